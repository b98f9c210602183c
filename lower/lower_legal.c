/* lower_legal.c - what ONNX allows but ONNX Runtime's CPU kernels do not
 * run, rewritten right after the rule that emitted it, so that no rule
 * has to know.  One entry point: lw_legalize. */
#include <string.h>

#include "lower.h"

/* Whether Scatter node n reduces (its reduction is not "none"). */
static bool
reduces(Lower *L, const Graph *g, NodeId n)
{
	const Arg *a = ir_find_arg(L->m, g, n, -1, "reduction");
	return a && a->kind == A_STR && strcmp(ir_str(L->m, a->u.s), "none");
}

/* The type node n must compute in for ONNX Runtime to run it, with its
 * two data inputs in *d0, *d1; DT_UNDEF when it runs as it is.
 * - ScatterElements / ScatterND with a reduction: float, double and
 *   integer kernels, no float16, bfloat16 (index_add, index_put
 *   (accumulate=True), scatter_reduce, max_pool's backward in half
 *   precision) or bool one (scatter_reduce of bools);
 * - Where: no bool kernel for its branches (half ones: `exact`).
 * (Double Sigmoids: sigmoid_f64.) */
static DType
wider(Lower *L, const Graph *g, NodeId n, const StrId ops[3], int *d0,
    int *d1)
{
	const Node *p = ir_nodep(g, n);
	int k = 0;
	while (k < 3 && p->op != ops[k])
		k++;
	if (k == 3 || p->dialect != D_ONNX || p->domain || p->nargs < 3 ||
	    p->nout != 1)
		return DT_UNDEF;
	*d0 = k == 2 ? 1 : 0;
	*d1 = 2;
	for (int i = 0; i < 3; i++)
		if (g->args[p->args + (uint32_t)i].kind != A_VAL)
			return DT_UNDEF;
	DType dt = (DType)ir_val(g, p->out)->dtype;
	if (k == 2)
		return dt == DT_BOOL ? DT_I32 : DT_UNDEF;
	if (!reduces(L, g, n))
		return DT_UNDEF;
	return dt == DT_F16 || dt == DT_BF16 ? DT_F32 :
	    dt == DT_BOOL ? DT_I32 : DT_UNDEF;
}

/* Node n, with its nin inputs replaced by in[], computes in type wt: the
 * node itself becomes the Cast back to its type, so its result keeps its
 * id and its users; the wide copy is appended (ir_normalize puts it
 * first). */
static void
cast_back(Lower *L, NodeId n, uint32_t nin, const ValId *in, DType wt)
{
	Graph *g = L->dst;
	Node *p = ir_nodep(g, n);
	DType dt = (DType)ir_val(g, p->out)->dtype;
	uint32_t nargs = p->nargs, base = p->args;
	NodeId w = lw_emit(L, ir_str(L->m, p->op), (int)nin, in, 1);
	for (uint32_t k = nin; k < nargs; k++)  /* the attributes */
		ir_push_arg(g, w, g->args[base + k]);
	ValId wide = lw_typed(L, w, wt);
	p = ir_nodep(g, n);
	p->op = ir_intern(L->m, "Cast");
	g->args[base] = arg_val(wide);
	g->args[base + 1] = arg_keyed(arg_int(dt), ir_intern(L->m, "to"));
	p->nargs = 2;
}

/* Scatter or Where node n computes in type wt, inputs d0 and d1 widened */
static void
widen(Lower *L, NodeId n, DType wt, int d0, int d1)
{
	Graph *g = L->dst;
	uint32_t base = ir_nodep(g, n)->args;
	ValId in[3];
	for (int k = 0; k < 3; k++) {
		in[k] = g->args[base + (uint32_t)k].u.v;
		if (k == d0 || k == d1)
			in[k] = lw_cast(L, in[k], wt);
	}
	cast_back(L, n, 3, in, wt);
}

/* Ops ONNX Runtime's CPU runs in no half type, for which float32 is exact
 * (they compare, select or move values): their half inputs (bit i of
 * `in`) are widened, and a half result cast back. */
static const struct {
	const char *op;
	unsigned in;
} exact[] = {
	{"Where", 6}, {"Equal", 3}, {"Less", 3}, {"Greater", 3},
	{"LessOrEqual", 3}, {"GreaterOrEqual", 3}, {"Pad", 5}, {"Tile", 1},
	{"Trilu", 1}, {"ReduceMax", 1}, {"ReduceMin", 1},
};
enum { NEXACT = sizeof exact / sizeof *exact };

/* Ops with no kernel for some 8-, 16- or 32-bit unsigned integers (MatMul
 * has no 8/16-bit type in ONNX itself), as ONNX Runtime 1.30's CPU
 * registers them: int32 computes them (int64 for uint32), and the Cast
 * back wraps a product or a sum as PyTorch's integer arithmetic does
 * (equal modulo 2^8 or 2^16).  `types`: the input types that widen. */
enum {
	W_I8 = 1, W_U8 = 2, W_I16 = 4, W_U16 = 8, W_U32 = 16, W_HALF = 32,
	W_UNSIGNED = 64,  /* uint16 to uint32 (BitShift takes no other) */
	W_SMALL = W_I8 | W_U8 | W_I16 | W_U16, W_16 = W_I16 | W_U16,
};
static const struct {
	const char *op;
	unsigned in, types;
} narrow[] = {
	{"Where", 6, W_I8 | W_16 | W_U32}, {"Trilu", 1, W_SMALL | W_U32},
	{"MatMul", 3, W_SMALL}, {"Einsum", 0xff, W_SMALL | W_U32},
	{"ReduceSum", 1, W_SMALL}, {"ReduceProd", 1, W_SMALL},
	{"CumSum", 1, W_SMALL | W_U32}, {"Pad", 5, W_16},
	{"Max", 0xff, W_16}, {"Min", 0xff, W_16},
	{"ReduceMax", 1, W_16 | W_U32}, {"ReduceMin", 1, W_16 | W_U32},
	{"ArgMax", 1, W_16 | W_U32}, {"ArgMin", 1, W_16 | W_U32},
	{"BitShift", 3, W_U16 | W_UNSIGNED}, {"Neg", 1, W_U8 | W_U16 | W_U32},
};
enum { NNARROW = sizeof narrow / sizeof *narrow };

/* the type a value of type dt computes in among `types`, DT_UNDEF for
 * itself */
static DType
wide_of(DType dt, unsigned types)
{
	unsigned bit = dt == DT_I8 ? W_I8 : dt == DT_U8 ? W_U8 : dt == DT_I16 ?
	    W_I16 : dt == DT_U16 ? W_U16 : dt == DT_U32 ? W_U32 :
	    dt == DT_F16 || dt == DT_BF16 ? W_HALF : 0;
	if (!(bit & types))
		return DT_UNDEF;
	if (bit == W_U16 && types & W_UNSIGNED)
		return DT_U32;
	return bit == W_HALF ? DT_F32 : bit == W_U32 ? DT_I64 : DT_I32;
}

/* Node n's inputs of bit i of `in` in their wide type (wide_of), the node
 * becoming the Cast back of a wide copy when its result has one too.
 * True when it changed. */
static bool
widen_in(Lower *L, NodeId n, unsigned in, unsigned types)
{
	Graph *g = L->dst;
	Node *p = ir_nodep(g, n);
	uint32_t base = p->args, nargs = p->nargs, nin = 0;
	if (p->dialect != D_ONNX || p->domain || p->nout != 1 || nargs > 8)
		return false;
	while (nin < nargs && !g->args[base + nin].key)
		nin++;
	ValId v[8];
	DType w[8];
	bool any = false;
	for (uint32_t i = 0; i < nin; i++) {
		const Arg *a = &g->args[base + i];
		v[i] = a->kind == A_VAL ? a->u.v : 0;
		w[i] = v[i] && in >> i & 1 ? wide_of((DType)ir_val(g,
		    v[i])->dtype, types) : DT_UNDEF;
		any |= w[i] != DT_UNDEF;
	}
	if (!any)
		return false;
	for (uint32_t i = 0; i < nin; i++)
		if (w[i] != DT_UNDEF)
			v[i] = lw_cast(L, v[i], w[i]);
	g = L->dst;
	p = ir_nodep(g, n);
	DType wt = wide_of((DType)ir_val(g, p->out)->dtype, types);
	if (wt == DT_UNDEF) {   /* a bool result: the inputs in place */
		for (uint32_t i = 0; i < nin; i++)
			if (v[i])
				g->args[base + i] = arg_val(v[i]);
		return true;
	}
	cast_back(L, n, nin, v, wt);
	return true;
}

/* A double Sigmoid becomes 1 / (1 + exp(-x)), PyTorch's own formula:
 * ONNX Runtime fuses x * Sigmoid(x) (silu, swish) into its QuickGelu,
 * which has no double kernel, and refuses the model.  True when it
 * changed. */
static bool
sigmoid_f64(Lower *L, NodeId n)
{
	Graph *g = L->dst;
	Node *p = ir_nodep(g, n);
	if (p->dialect != D_ONNX || p->domain || p->nargs != 1 ||
	    p->nout != 1 || g->args[p->args].kind != A_VAL ||
	    ir_val(g, p->out)->dtype != DT_F64)
		return false;
	ValId x = g->args[p->args].u.v;
	ValId e = lw_op1(L, "Exp", lw_op1(L, "Neg", x));
	ValId d = lw_op2(L, "Add", e, lw_scalar(L, 1, DT_F64));
	g = L->dst;
	p = ir_nodep(g, n);
	p->op = ir_intern(L->m, "Reciprocal");
	g->args[p->args] = arg_val(d);
	return true;
}

/* The body graphs of node n (Loop, If, Scan) legalized as a whole: a rule
 * builds them apart from the graph it emits into (gcd's Euclid steps,
 * the special functions' series) */
static void
bodies(Lower *L, NodeId n)
{
	Graph *g = L->dst;
	const Node *p = ir_nodep(g, n);
	for (uint32_t k = 0; k < p->nargs; k++) {
		const Arg *a = &g->args[p->args + k];
		if (a->kind != A_GRAPH)
			continue;
		Lower S = *L;
		S.dstid = a->u.g;
		S.dst = ir_graph(L->m, a->u.g);
		uint32_t before = S.dst->nnodes;
		if (lw_legalize(&S, 1) && ir_normalize(L->m, S.dstid, before,
		    "lower") < 0)
			lw_fail(L, "a legalized loop body does not order");
		g = L->dst;
		p = ir_nodep(g, n);
	}
}

/* Rewrites the nodes the current rule emitted (first .. the end of dst);
 * true when it appended nodes that must move before their users. */
bool
lw_legalize(Lower *L, NodeId first)
{
	Graph *g = L->dst;
	if (first >= g->nnodes)
		return false;
	/* interned once a rule, not once a node */
	const StrId ops[3] = {ir_intern(L->m, "ScatterElements"),
	    ir_intern(L->m, "ScatterND"), ir_intern(L->m, "Where")};
	const StrId sigmoid = ir_intern(L->m, "Sigmoid");
	StrId ex[NEXACT], nw[NNARROW];
	for (int k = 0; k < NEXACT; k++)
		ex[k] = ir_intern(L->m, exact[k].op);
	for (int k = 0; k < NNARROW; k++)
		nw[k] = ir_intern(L->m, narrow[k].op);
	bool moved = false;
	for (NodeId n = first, end = g->nnodes; n < end; n++) {
		bodies(L, n);
		g = L->dst;
		int d0, d1;
		DType wt = wider(L, g, n, ops, &d0, &d1);
		if (wt != DT_UNDEF) {
			widen(L, n, wt, d0, d1);
			moved = true;
			continue;
		}
		StrId op = ir_nodep(g, n)->op;
		if (op == sigmoid && sigmoid_f64(L, n)) {
			moved = true;
			continue;
		}
		for (int k = 0; k < NEXACT; k++)
			if (op == ex[k] && widen_in(L, n, exact[k].in,
			    W_HALF))
				moved = true;
		for (int k = 0; k < NNARROW; k++)
			if (ir_nodep(L->dst, n)->op == nw[k] && widen_in(L, n,
			    narrow[k].in, narrow[k].types))
				moved = true;
	}
	return moved;
}
