/* onnx_prep.c - the ONNX writer's first walk: checks that graph g can be
 * written as a model (every node lowered, every name defined once, every
 * tensor's bytes those of its type and shape) and settles what takes work
 * or state: node names, the domains the nodes use, the initializers in
 * model order, the graph signature texts, the two-thread plan.  The emit
 * functions (onnx_emit.c) then only read what this settled.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_int.h"

/* ------------------------------------------------------------- helpers */

void
onnx_internal(Enc *e, const char *f, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	ir_error(e->m, (Loc){0, 0}, "internal error in the ONNX backend: %s",
	    buf);
}

StrId
onnx_valname(Enc *e, GraphId gid, const Graph *g, ValId v)
{
	return be_value_name(e->m, gid, g, v);
}

/* ------------------------------------------------------------- prepare */

static void
note_domain(Enc *e, StrId d)
{
	const char *s = ir_str(e->m, d);
	if (!d || strcmp(s, "ai.onnx") == 0)
		return;     /* both spell the default domain */
	for (uint32_t i = 0; i < e->ndomains; i++)
		if (e->domains[i] == d)
			return;
	vgrow((void **)&e->domains, &e->cdomains, e->ndomains + 1,
	    sizeof *e->domains);
	e->domains[e->ndomains++] = d;
}

static bool
prep_attr(Enc *e, const Graph *g, const Node *n, const Arg *a)
{
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:
	case A_FLOAT:
	case A_STR:
		return true;
	case A_TENSOR:
		return be_tensor_check(e->m, ir_tensorp(e->m, a->u.t), NULL,
		    "ONNX", "ONNX");
	case A_GRAPH:
		return onnx_prep_graph(e, a->u.g);
	case A_LIST:
	case A_TUPLE:
		if (list_type(g, a))
			return true;
		onnx_internal(e, "attribute '%s' of %s is a list of mixed kinds",
		    ir_str(e->m, a->key), ir_str(e->m, n->op));
		return false;
	default:
		onnx_internal(e, "attribute '%s' of %s has an unsupported kind %d",
		    ir_str(e->m, a->key), ir_str(e->m, n->op), a->kind);
		return false;
	}
}

static bool
prep_node(Enc *e, GraphId gid, const Graph *g, NodeId id, NodePrep *np)
{
	Module *m = e->m;
	const Node *n = ir_nodep(g, id);
	if (n->dialect != D_ONNX) {
		onnx_internal(e, "node '%s' (%s) was not lowered to ONNX",
		    ir_str(m, n->name), ir_str(m, n->op));
		return false;
	}
	if (n->domain)
		note_domain(e, n->domain);
	np->name = be_node_name(m, &e->names, n->name ? n->name : n->op);
	uint32_t npos = ir_npos(g, id), nin = node_nin(g, id, npos);
	for (uint32_t i = 0; i < nin; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (a->kind == A_VAL) {
			onnx_valname(e, gid, g, a->u.v);
		} else if (a->kind != A_NONE) {
			onnx_internal(e, "input %u of %s is not a value", i,
			    ir_str(m, n->op));
			return false;
		}
	}
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (!a->key) {
			onnx_internal(e, "%s has a positional argument after "
			    "attributes", ir_str(m, n->op));
			return false;
		}
		if (!ir_is_capture(g, id, a) && !prep_attr(e, g, n, a))
			return false;
	}
	return true;
}

/* Marks name id defined; false (reported) if it already was. */
static bool
define(Enc *e, const Graph *g, uint8_t **seen, uint32_t *cap, StrId id)
{
	vgrow((void **)seen, cap, id + 1, 1);
	if ((*seen)[id]) {
		onnx_internal(e, "graph '%s' defines '%s' twice",
		    ir_str(e->m, g->name), ir_str(e->m, id));
		return false;
	}
	(*seen)[id] = 1;
	return true;
}

/* Every name defined once in a graph: inputs, initializers, node outputs.
 * A clash would make ONNX Runtime wire values wrongly, so it is checked. */
static bool
names_unique(Enc *e, GraphId gid, const Graph *g)
{
	uint8_t *seen = NULL;
	uint32_t cap = 0;
	bool ok = true;
	for (uint32_t i = 0; ok && i < g->ninputs; i++)
		ok = define(e, g, &seen, &cap,
		    onnx_valname(e, gid, g, g->inputs[i]));
	for (NodeId n = 1; ok && n < g->nnodes; n++)
		for (uint32_t k = 0; ok && k < g->nodes[n].nout; k++)
			ok = define(e, g, &seen, &cap,
			    onnx_valname(e, gid, g, g->nodes[n].out + k));
	free(seen);
	return ok;
}

bool
onnx_prep_graph(Enc *e, GraphId gid)
{
	Module *m = e->m;
	const Graph *g = ir_graph(m, gid);
	bool top = is_top(e, gid);
	/* occurrences are numbered in the order emit_graph meets them */
	uint32_t k = e->ngraphs;
	vgrow((void **)&e->graphs, &e->cgraphs, k + 1, sizeof *e->graphs);
	e->ngraphs++;
	GraphPrep gp = {.init0 = e->ninits};
	gp.nodes = arena_alloc(e->a, (size_t)g->nnodes * sizeof *gp.nodes);
	gp.isout = arena_alloc(e->a, g->nvals);
	for (uint32_t i = 0; i < g->ninputs; i++) {
		const Value *val = ir_val(g, g->inputs[i]);
		const char *name = vname(e, gid, g, g->inputs[i]);
		if (val->init && !e->o->no_weights) {
			const Tensor *t = ir_tensorp(m, val->init);
			if (!be_tensor_check(m, t, name, "ONNX", "ONNX"))
				return false;
			vgrow((void **)&e->inits, &e->cinits, e->ninits + 1,
			    sizeof *e->inits);
			e->inits[e->ninits++] = (BeInit){.t = t};
			if (!e->o->init_inputs)
				continue;
		}
		if (top && !has_type(val)) {
			ir_error(m, (Loc){0, 0}, "graph input '%s' has no "
			    "tensor type", name);
			return false;
		}
	}
	for (NodeId n = 1; n < g->nnodes; n++)
		if (!prep_node(e, gid, g, n, &gp.nodes[n]))
			return false;
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		if (gp.isout[v]) {
			onnx_internal(e, "'%s' is output twice (the lower pass "
			    "should have added an Identity)",
			    vname(e, gid, g, v));
			return false;
		}
		gp.isout[v] = 1;
		if (top && !has_type(ir_val(g, v))) {
			ir_error(m, (Loc){0, 0}, "graph output '%s' has no "
			    "tensor type", vname(e, gid, g, v));
			return false;
		}
	}
	if (top && e->meta) {
		/* the range constraints are regenerated from the table, so
		 * that symbols renamed or added by symbolize-shapes appear;
		 * text the table could not hold is written as the dump had
		 * it */
		gp.sig = be_meta_signature(e->meta, m->main ? m->main : gid);
		gp.ranges = m->nrng ? sym_ranges_text(m) : m->ranges
		    ? ir_str(m, m->ranges) : "{}";
	}
	onnx_plan_split(e, gid, g, &gp);
	e->graphs[k] = gp;
	return names_unique(e, gid, g);
}
