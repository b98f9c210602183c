/* host_lower.c - the lower_* host functions: what a plugin lowering may do
 * with the node the lowering pass hands it (a PlLowerSite), and the one
 * loop that offers a node to the plugin lowerings (pl_lower_node). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

/* ------------------------------------------------------------ lowering */

onnxc_node
h_lower_node(onnxc_ctx *c)
{
	return c && c->site ? c->site->node : 0;
}

onnxc_graph
h_lower_graph(onnxc_ctx *c)
{
	return c && c->site ? c->site->dstid : 0;
}

onnxc_status
h_lower_input(onnxc_ctx *c, int pos, const char *key, onnxc_value *out)
{
	if (!c || !c->site || !out)
		return ONNXC_INVALID;
	const PlLowerSite *L = c->site;
	const Arg *a = ir_find_arg(c->m, L->src, L->node, pos, key);
	if (!a || a->kind != A_VAL || !L->map[a->u.v])
		return ONNXC_INVALID;
	*out = L->map[a->u.v];
	return ONNXC_OK;
}

onnxc_node
h_lower_emit(onnxc_ctx *c, const char *domain, const char *op, uint32_t nin,
    const onnxc_value *in, uint32_t nout)
{
	if (!c || !c->site || !pl_okname(op) || nin > (1u << 16) ||
	    (nin && !in) || nout > MAXOUT ||
	    (domain && strnlen(domain, MAXNAME) == MAXNAME))
		return 0;
	const PlLowerSite *L = c->site;
	for (uint32_t k = 0; k < nin; k++)
		if (in[k] && in[k] >= L->dst->nvals)
			return 0;
	return L->ops->emit(L->self, domain ? domain : "", op, (int)nin, in,
	    (int)nout);
}

onnxc_status
h_lower_attr(onnxc_ctx *c, onnxc_node n, const char *name,
    const onnxc_arg *value)
{
	if (!c || !c->site || !pl_okname(name) || !value)
		return ONNXC_INVALID;
	const PlLowerSite *L = c->site;
	Arg a;
	/* only nodes this call emitted: earlier ones belong to other rules */
	if (n < c->lower_base || n >= L->dst->nnodes ||
	    !pl_from_plugin(c->m, L->dst, value, &a))
		return ONNXC_INVALID;
	switch (a.kind) {
	case A_INT: case A_FLOAT: case A_STR: case A_TENSOR: case A_GRAPH:
		break;
	case A_LIST: {
		const Arg *it = &L->dst->items[a.u.list.off];
		for (uint32_t i = 0; i < a.u.list.n; i++)
			if (it[i].kind != it[0].kind ||
			    (it[i].kind != A_INT && it[i].kind != A_FLOAT))
				return ONNXC_INVALID;
		break;
	}
	default:
		return ONNXC_INVALID;
	}
	a.key = ir_intern(c->m, name);
	pl_append_arg(L->dst, n, a);
	return ONNXC_OK;
}

onnxc_status
h_lower_set_dtype(onnxc_ctx *c, onnxc_value v, uint32_t dtype)
{
	if (!c || !c->site || !pl_okval(c->site->dst, v) || dtype == 0 ||
	    dtype >= DT_COUNT)
		return ONNXC_INVALID;
	c->site->ops->settype(c->site->self, v, (DType)dtype);
	return ONNXC_OK;
}

onnxc_value
h_lower_const(onnxc_ctx *c, uint32_t dtype, int32_t rank,
    const int64_t *dims, const void *data)
{
	uint64_t nb;
	if (!c || !c->site || !pl_tensor_size(dtype, rank, dims, &nb) ||
	    (nb && !data))
		return 0;
	return c->site->ops->constant(c->site->self, (DType)dtype, rank, dims,
	    data);
}

onnxc_status
h_lower_bind(onnxc_ctx *c, uint32_t k, onnxc_value v)
{
	const PlLowerSite *L = c ? c->site : NULL;
	if (!L || !pl_okval(L->dst, v) || k >= ir_nodep(L->src, L->node)->nout)
		return ONNXC_INVALID;
	L->ops->bind(L->self, (int)k, v);
	c->nbound++;
	return ONNXC_OK;
}

onnxc_status
h_lower_list(onnxc_ctx *c, uint32_t kind, const onnxc_arg *items, uint32_t n,
    onnxc_arg *out)
{
	if (!c || !c->site || !out || kind != ONNXC_ARG_LIST)
		return ONNXC_INVALID;
	Graph *G = c->site->dst;
	Arg *it;
	ArenaMark mk = arena_mark(c->m->scratch);
	onnxc_status st = pl_list_items(c, G, kind, items, n, &it);
	for (uint32_t i = 0; st == ONNXC_OK && i < n; i++)
		if (it[i].kind != A_INT && it[i].kind != A_FLOAT)
			st = ONNXC_INVALID;
	if (st == ONNXC_OK) {
		Arg a = ir_list(G, A_LIST, it, n);
		pl_to_plugin(&a, out);
	}
	arena_release(c->m->scratch, mk);
	return st;
}

/* ------------------------------------------------ offering a node */

int
pl_lower_node(onnxc_ctx *c, PlLowerSite *s)
{
	Module *m = c->m;
	const Node *node = ir_nodep(s->src, s->node);
	const char *op = ir_str(m, node->op);
	PlRegistry *reg = c->reg;
	Graph *d = s->dst;
	if (s->opset == c->opset) {   /* the answers are for c->opset */
		vgrow((void **)&c->plw, &c->cplw, node->op + 1, 1);
		if (!c->plw[node->op])
			c->plw[node->op] = pl_lowering_applies(reg, op,
			    c->opset) ? 1 : 2;
		if (c->plw[node->op] == 2)
			return 1;
	}
	for (uint32_t i = 0; i < reg->nlowerings; i++) {
		const PlLowering *lo = &reg->lowerings[i];
		if (strcmp(lo->info.target, op) ||
		    !pl_lowering_in_range(lo, s->opset))
			continue;
		uint32_t nn = d->nnodes, nv = d->nvals, na = d->nargs,
			 ni = d->nitems, nd = d->ndims;
		const char *name = pl_plugin_name(reg, lo->plugin);
		c->site = s;
		c->lower_base = nn;
		c->nbound = 0;
		onnxc_status st = pl_invoke(c, lo->plugin, (PlEntry){
		    .run = lo->info.lower, .user = lo->info.user});
		c->site = NULL;
		if (st == ONNXC_DECLINE && !c->reported) {
			/* as if it had not run: the next lowering starts from
			 * the same ONNX graph */
			d->nnodes = nn;
			d->nvals = nv;
			d->nargs = na;
			d->nitems = ni;
			d->ndims = nd;
			for (uint32_t k = 0; k < node->nout; k++)
				s->map[node->out + k] = 0;
			continue;
		}
		if (st == ONNXC_OK && !c->reported &&
		    (c->nbound || node->nout == 0)) {
			StrId via = ir_intern(m, name);
			for (NodeId k = nn; k < d->nnodes; k++)
				d->nodes[k].via = via;
			return 0;
		}
		if (!c->reported && st == ONNXC_OK)
			ir_error(m, node->loc, "%s: [%.64s] the "
			    "lowering bound no output (see host->lower_bind)",
			    op, name);
		else if (!c->reported)
			ir_error(m, node->loc, "%s: [%.64s] the "
			    "lowering failed (status %d)", op, name, (int)st);
		else
			ir_note(m, node->loc, "while plugin '%.64s' (%s) "
			    "lowered %s", name, pl_where(reg, lo->plugin), op);
		return -1;
	}
	return 1;
}
