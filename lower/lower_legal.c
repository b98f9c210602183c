/* lower_legal.c - what ONNX allows but ONNX Runtime's CPU kernels do not
 * run, rewritten right after the rule that emitted it, so that no rule
 * has to know.  One entry point: lw_legalize. */
#include <string.h>

#include "lower.h"

static bool
is_half(DType dt)
{
	return dt == DT_F16 || dt == DT_BF16;
}

/* The reduction a Scatter node asks for, or NULL for none. */
static const char *
scatter_reduction(Lower *L, const Graph *g, const Node *p)
{
	for (uint32_t k = 0; k < p->nargs; k++) {
		const Arg *a = &g->args[p->args + k];
		if (a->kind == A_STR && a->key &&
		    !strcmp(ir_str(L->m, a->key), "reduction")) {
			const char *r = ir_str(L->m, a->u.s);
			return strcmp(r, "none") ? r : NULL;
		}
	}
	return NULL;
}

/* ScatterElements / ScatterND with a reduction have float, double and
 * integer kernels in ONNX Runtime, no float16 or bfloat16 one (index_add,
 * index_put(accumulate=True), scatter_reduce, max_pool's backward in half
 * precision): such a node runs in float32 between Casts.  The node itself
 * becomes the Cast back, so its result keeps its id and its users; a
 * float32 copy of it is appended (ir_normalize puts it first). */
static void
widen_half_scatter(Lower *L, NodeId n)
{
	Graph *g = L->dst;
	Node *p = ir_nodep(g, n);
	DType dt = (DType)ir_val(g, p->out)->dtype;
	uint32_t nargs = p->nargs, base = p->args;
	ValId in[3];
	for (int k = 0; k < 3; k++)
		in[k] = g->args[base + (uint32_t)k].u.v;
	ValId x = lw_cast(L, in[0], DT_F32), u = lw_cast(L, in[2], DT_F32);
	NodeId w = lw_emit(L, ir_str(L->m, ir_nodep(g, n)->op), 3,
	    (ValId[]){x, in[1], u}, 1);
	for (uint32_t k = 3; k < nargs; k++)  /* the attributes */
		ir_push_arg(g, w, g->args[base + k]);
	ValId wide = lw_typed(L, w, DT_F32);
	p = ir_nodep(g, n);
	p->op = ir_intern(L->m, "Cast");
	g->args[base] = arg_val(wide);
	g->args[base + 1] = arg_keyed(arg_int(dt), ir_intern(L->m, "to"));
	p->nargs = 2;
}

/* Rewrites the nodes the current rule emitted (first .. the end of dst);
 * true when it appended nodes that must move before their users. */
bool
lw_legalize(Lower *L, NodeId first)
{
	Graph *g = L->dst;
	StrId se = ir_intern(L->m, "ScatterElements");
	StrId snd = ir_intern(L->m, "ScatterND");
	bool moved = false;
	for (NodeId n = first, end = g->nnodes; n < end; n++) {
		const Node *p = ir_nodep(g, n);
		if (p->dialect != D_ONNX || p->domain || (p->op != se &&
		    p->op != snd) || p->nargs < 4 || p->nout != 1 ||
		    g->args[p->args].kind != A_VAL ||
		    g->args[p->args + 2].kind != A_VAL ||
		    !is_half((DType)ir_val(g, p->out)->dtype) ||
		    !scatter_reduction(L, g, p))
			continue;
		widen_half_scatter(L, n);
		moved = true;
	}
	return moved;
}
