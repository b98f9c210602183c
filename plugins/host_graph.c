/* host_graph.c - the host functions of ABI 1.4 (onnxc_host_api): graphs
 * that nest (a new graph, its parent, its inputs) and graph outputs with
 * their kinds.  Like host_edit.c, each change marks its graph (pl_mutable)
 * so the pass manager normalizes and verifies it after the pass. */
#include <string.h>

#include "host.h"

_Static_assert((int)ONNXC_OUT_USER == (int)OUT_USER &&
    (int)ONNXC_OUT_TOKEN == (int)OUT_TOKEN &&
    (int)ONNXC_OUT_PARAM_MUTATION == (int)OUT_PARAM_MUTATION,
    "output kinds follow OutKind");

onnxc_graph
h_graph_new(onnxc_ctx *c, const char *name, onnxc_graph parent)
{
	/* the same rule as pl_mutable: inside a pass, not in a lowering */
	if (!c || !c->pass || c->site || !pl_okname(name) ||
	    (parent && !pl_graph_of(c, parent)))
		return 0;
	GraphId g = ir_graph_new(c->m, name, parent);
	pl_mutable(c, g);
	return g;
}

onnxc_graph
h_graph_parent(onnxc_ctx *c, onnxc_graph g)
{
	const Graph *G = pl_graph_of(c, g);
	return G ? G->parent : 0;
}

onnxc_value
h_input_add(onnxc_ctx *c, onnxc_graph g, const char *name, uint32_t role,
    uint32_t index)
{
	Graph *G = pl_mutable(c, g);
	/* outer values only in a subgraph; constants come from
	 * constant_input, which binds their bytes */
	if (!G || !pl_okname(name) || role == ONNXC_ROLE_NONE ||
	    role == ONNXC_ROLE_CONST || role > ONNXC_ROLE_OUTER ||
	    (role == ONNXC_ROLE_OUTER && !G->parent))
		return 0;
	ValId v = ir_value(G, ir_intern(c->m, name));
	Value *p = ir_val(G, v);
	p->role = (uint8_t)role;
	if (role == ONNXC_ROLE_OUTER)
		p->defidx = index;  /* not a graph input: ONNX scoping */
	else
		ir_add_input(G, v);
	return v;
}

onnxc_status
h_output_add(onnxc_ctx *c, onnxc_graph g, onnxc_value v, uint32_t kind,
    onnxc_str target)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_okval(G, v) || kind > ONNXC_OUT_PARAM_MUTATION ||
	    target >= c->m->nstrs)
		return ONNXC_INVALID;
	ir_add_output(G, v, (OutKind)kind, target);
	uint32_t *u = pl_uses(c, g, false);
	if (u)
		u[v]++;
	return ONNXC_OK;
}

onnxc_status
h_output_kind(onnxc_ctx *c, onnxc_graph g, uint32_t i, uint32_t *kind,
    onnxc_str *target)
{
	const Graph *G = pl_graph_of(c, g);
	if (!G || i >= G->noutputs)
		return ONNXC_INVALID;
	if (kind)
		*kind = G->outkind[i];
	if (target)
		*target = G->outtarget[i];
	return ONNXC_OK;
}

onnxc_status
h_output_set_kind(onnxc_ctx *c, onnxc_graph g, uint32_t i, uint32_t kind,
    onnxc_str target)
{
	Graph *G = pl_mutable(c, g);
	if (!G || i >= G->noutputs || kind > ONNXC_OUT_PARAM_MUTATION ||
	    target >= c->m->nstrs)
		return ONNXC_INVALID;
	G->outkind[i] = (uint8_t)kind;
	G->outtarget[i] = target;
	return ONNXC_OK;
}
