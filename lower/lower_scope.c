/* lower_scope.c - the lowering's scopes: bodies of control-flow ops
 * lowered into ONNX subgraphs (lw_body, each body with a Lower of its own
 * whose up is the scope around it), the outer values they read, and the
 * value names of the lowered model, unique across all its graphs. */
#include <stdlib.h>

#include "lower.h"

GraphId
lw_subgraph(Lower *L, const char *name)
{
	return ir_graph_new(L->m, name, L->dstid);
}

ValId
lw_outer(Lower *L, GraphId sub, ValId v, uint32_t k)
{
	Graph *g = ir_graph(L->m, sub);
	const Value *o = ir_val(L->dst, v);
	ValId r = ir_value(g, 0);
	ir_set_tensor(g, r, (DType)o->dtype, o->rank, ir_dims(L->dst, v));
	Value *p = ir_val(g, r);
	p->kind = o->kind;
	p->role = ROLE_OUTER;
	p->defidx = k;
	return r;
}

int
lw_body(Lower *L, GraphId body, GraphId dst, const ValId *ins, ValId *outs)
{
	Lower S = {.m = L->m, .src = ir_graph(L->m, body), .dstid = dst,
	    .dst = ir_graph(L->m, dst), .opset = L->opset, .up = L,
	    .reg = L->reg, .ctx = L->ctx, .training = L->training,
	    .bn_onnx = L->bn_onnx};
	int depth = 0;
	for (Lower *u = L; u; u = u->up)
		depth++;
	if (depth > LW_MAXNEST)
		return lw_fail(L, "control flow nested more than %d deep",
		    LW_MAXNEST);
	ArenaMark mk = arena_mark(L->m->scratch);
	S.map = arena_array(L->m->scratch, S.src->nvals + 1, sizeof *S.map);
	for (uint32_t i = 0; i < S.src->ninputs; i++)
		S.map[S.src->inputs[i]] = ins[i];
	int rc = lw_lower_nodes(&S);
	if (rc < 0)
		L->failed = true; /* reported at the body's node */
	for (uint32_t i = 0; rc == 0 && i < S.src->noutputs; i++) {
		outs[i] = S.map[S.src->outputs[i]];
		if (!outs[i])
			rc = lw_fail(L, "output %u of '%s' is not a tensor or "
			    "SymInt", i + 1, ir_str(L->m, S.src->name));
	}
	arena_release(L->m->scratch, mk);
	return rc;
}

void
lw_sub_output(Lower *L, GraphId sub, ValId v)
{
	Graph *g = ir_graph(L->m, sub);
	bool again = false;
	for (uint32_t i = 0; i < g->noutputs; i++)
		again |= g->outputs[i] == v;
	if (ir_val(g, v)->def && !again) {
		ir_add_output(g, v, OUT_USER, 0);
		return;
	}
	Lower S = {.m = L->m, .dst = g, .dstid = sub, .opset = L->opset};
	NodeId n = lw_emit(&S, "Identity", 1, &v, 1);
	ValId r = lw_res(&S, n, 0);
	Value keep = *ir_val(g, v);
	Value *rv = ir_val(g, r);
	rv->kind = keep.kind;
	rv->dtype = keep.dtype;
	rv->rank = keep.rank;
	rv->dims = keep.dims;
	ir_add_output(g, r, OUT_USER, 0);
}

/* Value names, unique across the model: an ONNX subgraph sees the names
 * of the graphs around it.  used marks the names taken. */
typedef struct Names {
	uint8_t *used;
	uint32_t cap;
	uint32_t serial;
} Names;

static bool
name_taken(const Names *nm, StrId s)
{
	return s < nm->cap && nm->used[s];
}

static void
name_take(Names *nm, StrId s)
{
	vgrow((void **)&nm->used, &nm->cap, s + 1, 1);
	nm->used[s] = 1;
}

static StrId
name_fresh(Module *m, Names *nm, const char *base)
{
	char buf[300];
	StrId s;
	do {
		snprintf(buf, sizeof buf, "%.200s__%u", base, nm->serial++);
		s = ir_intern(m, buf);
	} while (name_taken(nm, s));
	name_take(nm, s);
	return s;
}

/* Graph g, owned by node on of owner (NULL for the main graph): names
 * given already stay where they are free (all of the main graph's are),
 * others become "<name>__<k>"; unnamed values get "<fx node>__<k>"; an
 * outer value takes the name of the capture it stands for.  Then the
 * subgraphs of g's nodes, in order. */
static void
name_graph(Module *m, Names *nm, Graph *g, const Graph *owner, NodeId on)
{
	if (owner) {
		const Node *o = ir_nodep(owner, on);
		uint32_t ncap = 0;
		ArenaMark mk = arena_mark(m->scratch);
		ValId *cap = arena_array(m->scratch, o->nargs + 1, sizeof *cap);
		for (uint32_t i = 0; i < o->nargs; i++)
			if (ir_is_capture(owner, on, ir_arg(owner, on, i)))
				cap[ncap++] = ir_arg(owner, on, i)->u.v;
		for (ValId v = 1; v < g->nvals; v++)
			if (g->vals[v].role == ROLE_OUTER &&
			    g->vals[v].defidx < ncap)
				g->vals[v].name = ir_val(owner,
				    cap[g->vals[v].defidx])->name;
		arena_release(m->scratch, mk);
	}
	for (ValId v = 1; v < g->nvals; v++) {
		StrId s = g->vals[v].name;
		if (!s || g->vals[v].role == ROLE_OUTER)
			continue;
		if (name_taken(nm, s))
			g->vals[v].name = name_fresh(m, nm, ir_str(m, s));
		else
			name_take(nm, s);
	}
	for (ValId v = 1; v < g->nvals; v++) {
		if (g->vals[v].name)
			continue;
		const Node *p = g->vals[v].def ? ir_nodep(g, g->vals[v].def) : 0;
		g->vals[v].name = name_fresh(m, nm, p && p->name
		    ? ir_str(m, p->name) : "v");
	}
	for (NodeId n = 1; n < g->nnodes; n++)
		for (uint32_t i = 0; i < g->nodes[n].nargs; i++) {
			const Arg *a = ir_arg(g, n, i);
			if (a->kind == A_GRAPH)
				name_graph(m, nm, ir_graph(m, a->u.g), g, n);
		}
}

void
lw_name_values(Module *m, Graph *main)
{
	Names nm = {0};
	name_graph(m, &nm, main, NULL, 0);
	free(nm.used);
}
