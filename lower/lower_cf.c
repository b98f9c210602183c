/* lower_cf.c - lowering rules for control flow: higher_order::cond -> If,
 * while_loop -> Loop (its condition graph lowered twice: before the loop
 * and at the end of the body), scan and map_impl -> Scan.
 *
 * Bodies become ONNX subgraphs of the node (lw_body).  What a body reads
 * from the graph around it (cond operands, additional inputs, map's
 * extra arguments: parameters, lifted constants, anything computed
 * before) it reads as outer-scope values, which the node lists as its
 * captures (ir.h); only Loop's carried values and Scan's states and
 * slices are subgraph inputs, as ONNX wants. */
#include "lower.h"

/* A Lower that emits into graph g (a subgraph being built), with no FX
 * node of its own: for the few nodes a rule adds between bodies. */
static Lower
in_graph(Lower *L, GraphId g)
{
	return (Lower){.m = L->m, .dst = ir_graph(L->m, g), .dstid = g,
	    .opset = L->opset};
}

/* The FX body passed as argument i; 0 after reporting. */
static GraphId
body_arg(Lower *L, int i)
{
	const Arg *a = lw_arg(L, i, NULL);
	if (!a || a->kind != A_GRAPH) {
		lw_fail(L, "argument %d must be a subgraph", i + 1);
		return 0;
	}
	return a->u.g;
}

/* The ONNX values of list argument i (tensors, SymInts, numbers), its
 * length in *n; an absent argument is an empty list.  NULL after
 * reporting; else scratch memory (lw_scratch). */
static ValId *
operands(Lower *L, int i, uint32_t *n)
{
	const Arg *a = lw_arg(L, i, NULL);
	uint32_t cnt = a && (a->kind == A_LIST || a->kind == A_TUPLE)
	    ? a->u.list.n : 0;
	ValId *v = lw_scratch(L, cnt + 1, sizeof *v);
	*n = cnt;
	if (a && a->kind != A_LIST && a->kind != A_TUPLE) {
		lw_fail(L, "argument %d must be a list of operands", i + 1);
		return NULL;
	}
	const Arg *it = cnt ? ir_items(L->src, a) : NULL;
	for (uint32_t k = 0; k < cnt; k++) {
		switch (it[k].kind) {
		case A_VAL:
			v[k] = L->map[it[k].u.v];
			break;
		case A_INT:
			v[k] = lw_scalar_int(L, it[k].u.i, DT_I64);
			break;
		case A_BOOL:
			v[k] = lw_scalar_int(L, it[k].u.i, DT_BOOL);
			break;
		case A_FLOAT:
			v[k] = lw_scalar(L, it[k].u.f, DT_F64);
			break;
		default:
			break;
		}
		if (!v[k]) {
			lw_fail(L, "element %u of argument %d is not a tensor, "
			    "SymInt or number", k + 1, i + 1);
			return NULL;
		}
	}
	return v;
}

/* Body g must take nin inputs and give nout outputs (nout 0: any). */
static int
check_body(Lower *L, GraphId g, uint32_t nin, uint32_t nout)
{
	const Graph *b = ir_graph(L->m, g);
	if (b->ninputs != nin)
		return lw_fail(L, "subgraph '%s' takes %u inputs, but %u are "
		    "passed", ir_str(L->m, b->name), b->ninputs, nin);
	if (nout && b->noutputs != nout)
		return lw_fail(L, "subgraph '%s' gives %u outputs, %u "
		    "expected", ir_str(L->m, b->name), b->noutputs, nout);
	return 0;
}

/* A new input of subgraph sub typed as input k of FX body fx; 0 after
 * reporting (the input is made all the same). */
static ValId
sub_input(Lower *L, GraphId sub, GraphId fx, uint32_t k)
{
	const Graph *f = ir_graph(L->m, fx);
	Graph *g = ir_graph(L->m, sub);
	ValId fv = f->inputs[k];
	const Value *s = ir_val(f, fv);
	ValId v = ir_value(g, s->name);
	if (s->kind == VK_TENSOR)
		ir_set_tensor(g, v, (DType)s->dtype, s->rank, ir_dims(f, fv));
	else if (s->kind == VK_SYMINT || s->kind == VK_SYMFLOAT ||
	    s->kind == VK_SYMBOOL)
		ir_set_tensor(g, v, s->kind == VK_SYMINT ? DT_I64
		    : s->kind == VK_SYMFLOAT ? DT_F64 : DT_BOOL, 0, NULL);
	ir_add_input(g, v);
	if (s->kind != VK_TENSOR && s->kind != VK_SYMINT &&
	    s->kind != VK_SYMFLOAT && s->kind != VK_SYMBOOL) {
		lw_fail(L, "input '%s' of subgraph '%s' is not a tensor or "
		    "SymInt", ir_str(L->m, s->name), ir_str(L->m, f->name));
		return 0;
	}
	return v;
}

/* A new 0-d input of subgraph sub (Loop's iteration count, condition). */
static ValId
sub_scalar_input(Lower *L, GraphId sub, DType dt, const char *name)
{
	Graph *g = ir_graph(L->m, sub);
	ValId v = ir_value(g, ir_intern(L->m, name));
	ir_set_tensor(g, v, dt, 0, NULL);
	ir_add_input(g, v);
	return v;
}

/* Lower FX body fx into a new subgraph whose outputs are the body's:
 * its first nin inputs are new subgraph inputs, the rest the outer values
 * caps[0..ncap) (captures 0..ncap of the node).  Returns the subgraph, 0
 * after reporting. */
static GraphId
subgraph(Lower *L, GraphId fx, uint32_t nin, const ValId *caps,
    uint32_t ncap)
{
	const Graph *f = ir_graph(L->m, fx);
	GraphId sub = lw_subgraph(L, ir_str(L->m, f->name));
	ValId *ins = lw_scratch(L, nin + ncap + 1, sizeof *ins);
	ValId *res = lw_scratch(L, f->noutputs + 1, sizeof *res);
	int rc = 0;
	for (uint32_t k = 0; k < nin; k++)
		if (!(ins[k] = sub_input(L, sub, fx, k)))
			rc = -1;
	for (uint32_t k = 0; k < ncap; k++)
		ins[nin + k] = lw_outer(L, sub, caps[k], k);
	if (rc == 0)
		rc = lw_body(L, fx, sub, ins, res);
	for (uint32_t k = 0; rc == 0 && k < f->noutputs; k++)
		lw_sub_output(L, sub, res[k]);
	return rc == 0 ? sub : 0;
}

/* Bind the node's FX outputs to the results of ONNX node n; results the
 * dump does not name or type keep the element type of the output of
 * subgraph sub that makes them (output first + k for result k). */
static void
bind_results(Lower *L, NodeId n, GraphId sub, uint32_t first)
{
	const Graph *g = ir_graph(L->m, sub);
	const Node *p = ir_nodep(L->dst, n);
	for (uint32_t k = 0; k < p->nout; k++) {
		ValId r = lw_res(L, n, (int)k);
		const Value *bv = ir_val(g, g->outputs[first + k]);
		Value *rv = ir_val(L->dst, r);
		rv->kind = VK_TENSOR;
		rv->dtype = bv->dtype;
		if (k < lw_node(L)->nout && lw_outval(L, (int)k)->kind !=
		    VK_UNKNOWN)
			lw_bind(L, (int)k, r);
	}
}

/* cond(pred, true_graph, false_graph, operands) -> If; the branches read
 * the operands from the graph around them. */
static int
lower_cond(Lower *L)
{
	GraphId br[2] = {body_arg(L, 1), body_arg(L, 2)};
	if (!br[0] || !br[1])
		return -1;
	uint32_t nops;
	ValId *ops = operands(L, 3, &nops);
	if (!ops)
		return -1;
	uint32_t nres = ir_graph(L->m, br[0])->noutputs;
	ValId pred = lw_cast(L, lw_operand(L, 0, NULL, DT_UNDEF), DT_BOOL);
	GraphId sub[2] = {0, 0};
	for (int b = 0; b < 2 && pred; b++)
		if (check_body(L, br[b], nops, nres) == 0)
			sub[b] = subgraph(L, br[b], 0, ops, nops);
	if (!sub[0] || !sub[1])
		return -1;
	NodeId n = lw_emit(L, "If", 1, &pred, (int)nres);
	lw_attr_graph(L, n, "then_branch", sub[0]);
	lw_attr_graph(L, n, "else_branch", sub[1]);
	for (uint32_t k = 0; k < nops; k++)
		lw_attr_capture(L, n, ops[k]);
	bind_results(L, n, sub[0], 0);
	return 0;
}

/* while_loop(cond_graph, body_graph, carried, additional) -> Loop with no
 * trip count: the condition graph runs once on the initial values (in
 * this graph) and once at the end of each iteration (in the body), on the
 * values the body carries on; additional inputs are outer values. */
static int
lower_while(Lower *L)
{
	GraphId cg = body_arg(L, 0), bg = body_arg(L, 1);
	uint32_t nc, na;
	ValId *car = cg && bg ? operands(L, 2, &nc) : NULL;
	ValId *add = car ? operands(L, 3, &na) : NULL;
	if (!add || check_body(L, cg, nc + na, 1) < 0 ||
	    check_body(L, bg, nc + na, nc) < 0)
		return -1;
	ValId *ins = lw_scratch(L, nc + na + 2, sizeof *ins);
	ValId *outs = lw_scratch(L, nc + 1, sizeof *outs);
	for (uint32_t k = 0; k < nc; k++)
		ins[2 + k] = car[k];
	for (uint32_t k = 0; k < na; k++)
		ins[2 + nc + k] = add[k];
	ValId c0 = 0;
	int rc = lw_body(L, cg, L->dstid, ins + 2, &c0);
	GraphId sub = 0;
	if (rc == 0) {
		ins[1] = lw_cast(L, c0, DT_BOOL);
		sub = lw_subgraph(L, ir_str(L->m, ir_graph(L->m, bg)->name));
		sub_scalar_input(L, sub, DT_I64, "iteration_num");
		sub_scalar_input(L, sub, DT_BOOL, "condition_in");
		ValId *bin = lw_scratch(L, nc + na + 1, sizeof *bin);
		for (uint32_t k = 0; k < nc; k++)
			if (!(bin[k] = sub_input(L, sub, bg, k)))
				rc = -1;
		for (uint32_t k = 0; k < na; k++)
			bin[nc + k] = lw_outer(L, sub, add[k], k);
		if (rc == 0)
			rc = lw_body(L, bg, sub, bin, outs);
		/* the condition on what the next iteration gets */
		for (uint32_t k = 0; k < nc; k++)
			bin[k] = outs[k];
		ValId c1 = 0;
		if (rc == 0)
			rc = lw_body(L, cg, sub, bin, &c1);
		if (rc == 0) {
			Lower S = in_graph(L, sub);
			lw_sub_output(L, sub, lw_cast(&S, c1, DT_BOOL));
			for (uint32_t k = 0; k < nc; k++)
				lw_sub_output(L, sub, outs[k]);
		}
	}
	if (rc == 0) {
		NodeId n = lw_emit(L, "Loop", (int)(nc + 2), ins, (int)nc);
		lw_attr_graph(L, n, "body", sub);
		for (uint32_t k = 0; k < na; k++)
			lw_attr_capture(L, n, add[k]);
		bind_results(L, n, sub, 1);
	}
	return rc;
}

/* A Scan node over states st[0..ns) and scan inputs xs[0..nx) along axis
 * (reversed when rev), with body fx whose remaining inputs are the outer
 * values ex[0..ne). */
static int
emit_scan(Lower *L, GraphId fx, const ValId *st, uint32_t ns,
    const ValId *xs, uint32_t nx, const ValId *ex, uint32_t ne,
    int64_t axis, bool rev)
{
	const Graph *f = ir_graph(L->m, fx);
	if (nx == 0)
		return lw_fail(L, "nothing to scan over");
	if (check_body(L, fx, ns + nx + ne, 0) < 0)
		return -1;
	if (f->noutputs < ns)
		return lw_fail(L, "subgraph '%s' gives %u outputs, fewer than "
		    "its %u carried values", ir_str(L->m, f->name),
		    f->noutputs, ns);
	GraphId sub = subgraph(L, fx, ns + nx, ex, ne);
	if (!sub)
		return -1;
	uint32_t ny = f->noutputs - ns;
	ValId *in = lw_scratch(L, ns + nx + 1, sizeof *in);
	int64_t *ax = lw_scratch(L, nx + ny + 1, sizeof *ax);
	int64_t *dir = lw_scratch(L, nx + ny + 1, sizeof *dir);
	for (uint32_t k = 0; k < ns; k++)
		in[k] = st[k];
	for (uint32_t k = 0; k < nx; k++)
		in[ns + k] = xs[k];
	for (uint32_t k = 0; k < nx + ny; k++) {
		ax[k] = axis;
		dir[k] = rev;
	}
	NodeId n = lw_emit(L, "Scan", (int)(ns + nx), in, (int)(ns + ny));
	lw_attr_graph(L, n, "body", sub);
	lw_attr_int(L, n, "num_scan_inputs", nx);
	if (axis) {
		lw_attr_ints(L, n, "scan_input_axes", ax, (int)nx);
		lw_attr_ints(L, n, "scan_output_axes", ax, (int)ny);
	}
	if (rev) {
		lw_attr_ints(L, n, "scan_input_directions", dir, (int)nx);
		lw_attr_ints(L, n, "scan_output_directions", dir, (int)ny);
	}
	for (uint32_t k = 0; k < ne; k++)
		lw_attr_capture(L, n, ex[k]);
	bind_results(L, n, sub, 0);
	return 0;
}

/* scan(combine_graph, init, xs, additional_inputs) (torch 2.7+), or
 * scan(combine_graph, init, xs, dim, reverse, additional_inputs) -> Scan:
 * the carried values are its states, ys its scan outputs (stacked along
 * dim, in the order of xs also when reversed). */
static int
lower_scan(Lower *L)
{
	GraphId fx = body_arg(L, 0);
	const Arg *a3 = lw_arg(L, 3, NULL);
	bool old = a3 && a3->kind == A_INT;
	int64_t dim = old ? lw_int(L, 3, NULL, 0) : 0;
	bool rev = old && lw_bool(L, 4, NULL, false);
	uint32_t ni, nx, ne;
	ValId *init = fx ? operands(L, 1, &ni) : NULL;
	ValId *xs = init ? operands(L, 2, &nx) : NULL;
	ValId *ex = xs ? operands(L, old ? 5 : 3, &ne) : NULL;
	int rc = -1;
	if (ex && nx && dim < 0) {
		const Value *x0 = ir_val(L->dst, xs[0]);
		dim += x0->rank;
		if (x0->rank < 0 || dim < 0)
			lw_fail(L, "dim %lld is out of range",
			    (long long)(dim - x0->rank));
	}
	if (ex && dim >= 0)
		rc = emit_scan(L, fx, init, ni, xs, nx, ex, ne, dim, rev);
	return rc;
}

/* map_impl(body, xs, args) (torch 2.4+), or map_impl(body, num_mapped,
 * *operands) -> Scan without states over dim 0; args are outer values. */
static int
lower_map(Lower *L)
{
	GraphId fx = body_arg(L, 0);
	const Arg *a1 = lw_arg(L, 1, NULL);
	if (!fx)
		return -1;
	uint32_t nx, ne;
	ValId *xs, *ex;
	if (a1 && a1->kind == A_INT) {
		uint32_t np = ir_npos(L->src, L->node);
		int64_t nm = a1->u.i;
		if (nm < 1 || (uint64_t)nm + 2 > np)
			return lw_fail(L, "%lld mapped operands of %u",
			    (long long)nm, np > 2 ? np - 2 : 0);
		nx = (uint32_t)nm;
		ne = np - 2 - nx;
		xs = lw_scratch(L, np + 1, sizeof *xs);
		for (uint32_t k = 0; k < nx + ne; k++)
			if (!(xs[k] = lw_in(L, (int)(2 + k), NULL)))
				return -1;
		return emit_scan(L, fx, NULL, 0, xs, nx, xs + nx, ne, 0,
		    false);
	}
	xs = operands(L, 1, &nx);
	ex = xs ? operands(L, 2, &ne) : NULL;
	return ex ? emit_scan(L, fx, NULL, 0, xs, nx, ex, ne, 0, false) : -1;
}

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_cf LW_THIS
const LowerRule lw_rules_cf[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
