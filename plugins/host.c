/* host.c - the host function table (onnxc_host_api) over ir.h.
 *
 * Every handle a plugin passes in is checked: a bad one gives
 * ONNXC_INVALID (or 0 / NULL from functions returning a handle or a
 * pointer), never a crash.  The IR changes only through these functions
 * while a pass runs (not during init, not inside a lowering, where only
 * the lower_* functions emit); each change marks its graph so the pass
 * manager restores node order afterwards (pipeline/pipeline.c). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/table.h>

#include "host.h"

/* The ABI's enumerations are the IR's numbers: no tables in between. */
_Static_assert((int)ONNXC_ARG_TENSOR == (int)A_TENSOR &&
    (int)ONNXC_ARG_LIST == (int)A_LIST &&
    (int)ONNXC_ARG_GRAPH == (int)A_GRAPH, "onnxc_arg kinds follow ArgKind");
_Static_assert((int)ONNXC_VK_OBJ == (int)VK_OBJ &&
    (int)ONNXC_ROLE_OUTER == (int)ROLE_OUTER,
    "value kinds and roles follow ir.h");
_Static_assert((int)ONNXC_E_CALL == (int)E_CALL &&
    (int)ONNXC_E_NOT == (int)E_NOT, "expression kinds follow ExprKind");
_Static_assert((int)ONNXC_DT_BF16 == (int)DT_BF16 &&
    (int)ONNXC_FX == (int)D_FX && (int)ONNXC_ONNX == (int)D_ONNX,
    "dtypes and dialects follow ir.h");

/* ------------------------------------------------------------- contexts */

void
pl_ctx_init(onnxc_ctx *c, Module *m, PlRegistry *r)
{
	memset(c, 0, sizeof *c);
	c->m = m;
	c->reg = r;
	c->opset = 18;
}

void
pl_ctx_reset(onnxc_ctx *c)
{
	for (uint32_t i = 0; i < c->cuses; i++) {
		free(c->uses[i]);
		c->uses[i] = NULL;
		c->nuses[i] = 0;
	}
	if (c->base)
		memset(c->base, 0, c->cbase * sizeof *c->base);
	free(c->named);
	c->named = NULL;
	c->cnamed = 0;
	free(c->consts);
	c->consts = NULL;
	c->cconsts = c->nconsts = c->consts_upto = 0;
	c->named_g = 0;
	c->named_upto = 0;
	c->newest_g = 0;
	c->newest_n = 0;
}

void
pl_ctx_fini(onnxc_ctx *c)
{
	pl_ctx_reset(c);
	free(c->uses);
	free(c->nuses);
	free(c->base);
	free(c->haslw);
	free(c->plw);
	c->uses = NULL;
	c->nuses = NULL;
	c->base = NULL;
	c->haslw = NULL;
	c->plw = NULL;
	c->cuses = c->cbase = c->chaslw = c->cplw = 0;
}

/* ------------------------------------------------------------- checking */

Graph *
pl_graph_of(onnxc_ctx *c, onnxc_graph g)
{
	if (!c || g == 0 || g >= c->m->ngraphs)
		return NULL;
	return c->m->graphs[g];
}

bool
pl_live(const Graph *g, onnxc_node n)
{
	return n != 0 && n < g->nnodes && g->nodes[n].op != 0;
}

bool
pl_okval(const Graph *g, onnxc_value v)
{
	return v != 0 && v < g->nvals;
}

bool
pl_okexpr(const Module *m, onnxc_expr e)
{
	return e != 0 && e < m->nexprs;
}

bool
pl_okname(const char *s)
{
	return s && *s && strnlen(s, MAXNAME) < MAXNAME;
}

/* A graph the running pass may change, marked as changed. */
Graph *
pl_mutable(onnxc_ctx *c, onnxc_graph g)
{
	Graph *G = pl_graph_of(c, g);
	if (!G || !c->pass || c->site)
		return NULL;
	vgrow((void **)&c->base, &c->cbase, c->m->ngraphs, sizeof *c->base);
	if (!c->base[g])
		c->base[g] = G->nnodes + 1;
	return G;
}

/* --------------------------------------------------------- arguments */

void
pl_to_plugin(const Arg *a, onnxc_arg *o)
{
	memset(o, 0, sizeof *o);
	o->kind = a->kind;
	o->key = a->key;
	switch (a->kind) {
	case A_VAL:
		o->ref = a->u.v;
		break;
	case A_INT: case A_BOOL: case A_DTYPE:
		o->i = a->u.i;
		break;
	case A_FLOAT:
		o->f = a->u.f;
		break;
	case A_STR: case A_DEVICE: case A_LAYOUT: case A_MEMFMT: case A_OP:
		o->ref = a->u.s;
		break;
	case A_LIST: case A_TUPLE:
		o->len = a->u.list.n;
		o->list = a->u.list.off;
		break;
	case A_GRAPH:
		o->ref = a->u.g;
		break;
	case A_TENSOR:
		o->ref = a->u.t;
		break;
	default:
		break;
	}
}

/* An Arg of graph g from a plugin's record; false if anything in it
 * names nothing. */
bool
pl_from_plugin(const Module *m, const Graph *g, const onnxc_arg *o, Arg *a)
{
	if (!o || o->key >= m->nstrs)
		return false;
	*a = (Arg){.kind = (uint8_t)o->kind, .key = o->key};
	switch (o->kind) {
	case ONNXC_ARG_NONE:
		return true;
	case ONNXC_ARG_VALUE:
		a->u.v = o->ref;
		return pl_okval(g, o->ref);
	case ONNXC_ARG_BOOL:
		a->u.i = o->i;
		return o->i == 0 || o->i == 1;
	case ONNXC_ARG_DTYPE:
		a->u.i = o->i;
		return o->i > 0 && o->i < DT_COUNT;
	case ONNXC_ARG_INT:
		a->u.i = o->i;
		return true;
	case ONNXC_ARG_FLOAT:
		a->u.f = o->f;
		return true;
	case ONNXC_ARG_STR: case ONNXC_ARG_DEVICE: case ONNXC_ARG_LAYOUT:
	case ONNXC_ARG_MEMFMT: case ONNXC_ARG_OP:
		a->u.s = o->ref;
		return o->ref < m->nstrs;
	case ONNXC_ARG_LIST: case ONNXC_ARG_TUPLE:
		a->u.list.off = o->list;
		a->u.list.n = o->len;
		return (uint64_t)o->list + o->len <= g->nitems;
	case ONNXC_ARG_GRAPH:   /* a body of a node of g: g's child */
		a->u.g = o->ref;
		return o->ref != 0 && o->ref < m->ngraphs &&
		    m->graphs[o->ref]->parent &&
		    m->graphs[m->graphs[o->ref]->parent] == g;
	case ONNXC_ARG_TENSOR:
		a->u.t = o->ref;
		return o->ref != 0 && o->ref < m->ntensors;
	default:
		return false;
	}
}

/* ----------------------------------------------------------- use counts
 * Counted once per graph when first asked, then kept up to date by the
 * functions that change args, so a dead-code pass asking after every
 * erase stays linear. */

static void
count_arg(const Graph *g, const Arg *a, uint32_t *u, uint32_t nu, int delta,
    int depth)
{
	if (a->kind == A_VAL && a->u.v < nu) {
		if (delta > 0 || u[a->u.v] > 0)
			u[a->u.v] += (uint32_t)delta;
	} else if ((a->kind == A_LIST || a->kind == A_TUPLE) &&
	    depth < MAXDEPTH &&
	    (uint64_t)a->u.list.off + a->u.list.n <= g->nitems) {
		for (uint32_t i = 0; i < a->u.list.n; i++)
			count_arg(g, &g->items[a->u.list.off + i], u, nu, delta,
			    depth + 1);
	}
}

/* The counts of graph gid, or NULL when not counted yet and build is
 * false.  Sized for every value the graph has now. */
uint32_t *
pl_uses(onnxc_ctx *c, GraphId gid, bool build)
{
	Graph *g = c->m->graphs[gid];
	if (gid >= c->cuses) {
		if (!build)
			return NULL;
		uint32_t cap = c->cuses, cap2 = c->cuses;
		vgrow((void **)&c->uses, &cap, gid + 1, sizeof *c->uses);
		vgrow((void **)&c->nuses, &cap2, gid + 1, sizeof *c->nuses);
		c->cuses = cap;
	}
	uint32_t *u = c->uses[gid];
	if (!u && !build)
		return NULL;
	if (!u) {
		u = onnxc_table_calloc(g->nvals + 1, sizeof *u);
		if (!u)
			ir_oom(0);
		c->nuses[gid] = g->nvals;
		for (NodeId n = 1; n < g->nnodes; n++) {
			const Node *p = &g->nodes[n];
			if (!p->op)
				continue;
			for (uint32_t k = 0; k < p->nargs; k++)
				count_arg(g, &g->args[p->args + k], u, g->nvals,
				    1, 0);
		}
		for (uint32_t i = 0; i < g->noutputs; i++)
			if (g->outputs[i] < g->nvals)
				u[g->outputs[i]]++;
		c->uses[gid] = u;
	} else if (c->nuses[gid] < g->nvals) {
		u = xrealloc(u, (g->nvals + 1) * sizeof *u);
		memset(u + c->nuses[gid], 0,
		    (g->nvals + 1 - c->nuses[gid]) * sizeof *u);
		c->nuses[gid] = g->nvals;
		c->uses[gid] = u;
	}
	return u;
}

void
pl_bump(onnxc_ctx *c, GraphId gid, const Arg *a, int delta)
{
	uint32_t *u = pl_uses(c, gid, false);
	if (u)
		count_arg(c->m->graphs[gid], a, u, c->nuses[gid], delta, 0);
}

/* Append a to node n's args.  Args are contiguous per node: when n is
 * not the last to get args, its args move to the end of the table first
 * (the old slots become garbage, dropped when the graph is compacted). */
void
pl_append_arg(Graph *g, NodeId n, Arg a)
{
	Node *p = &g->nodes[n];
	if (p->args + p->nargs != g->nargs) {
		vgrow((void **)&g->args, &g->cargs, g->nargs + p->nargs + 1,
		    sizeof *g->args);
		memmove(&g->args[g->nargs], &g->args[p->args],
		    p->nargs * sizeof *g->args);
		p->args = g->nargs;
		g->nargs += p->nargs;
	}
	vgrow((void **)&g->args, &g->cargs, g->nargs + 1, sizeof *g->args);
	g->args[g->nargs++] = a;
	p->nargs++;
}

/* --------------------------------------------------------- diagnostics */

void
pl_diag(Module *m, const char *file, const char *kind, Loc loc,
    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (file)
		ir_vdiag_in(m, &(DiagSrc){file, NULL, 0}, kind, loc, fmt, ap);
	else
		ir_vdiag(m, kind, loc, fmt, ap);
	va_end(ap);
}

static void
h_report(onnxc_ctx *c, int severity, onnxc_graph g, onnxc_node n,
    const char *fmt, ...)
{
	if (!c || !fmt)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	Loc loc = {0};
	Graph *G = pl_graph_of(c, g);
	if (G && n && n < G->nnodes)
		loc = G->nodes[n].loc;
	const char *kind = severity == ONNXC_SEV_WARNING ? "warning"
	    : severity == ONNXC_SEV_NOTE ? "note" : "error";
	const char *file = c->reg ? c->reg->initfile : NULL;
	if (c->who)
		pl_diag(c->m, file, kind, loc, "[%.64s] %s", c->who, msg);
	else
		pl_diag(c->m, file, kind, loc, "%s", msg);
}

/* ----------------------------------------------------- memory, strings */

static void *
h_alloc(onnxc_ctx *c, size_t n)
{
	if (!c || n > ((size_t)1 << 31))
		return NULL;
	return arena_alloc(c->m->arena, n ? n : 1);
}

static onnxc_str
h_intern(onnxc_ctx *c, const char *s)
{
	if (!c || !s)
		return 0;
	return ir_intern(c->m, s);
}

static const char *
h_str(onnxc_ctx *c, onnxc_str s)
{
	if (!c || s >= c->m->nstrs)
		return NULL;
	return c->m->strs[s];
}

/* ---------------------------------------------------------- reading */

static onnxc_graph
h_graph(onnxc_ctx *c)
{
	return c ? c->graph : 0;
}

static int
h_opset(onnxc_ctx *c)
{
	return c ? c->opset : 0;
}

static int
h_training(onnxc_ctx *c)
{
	return c ? c->training : 0;
}

static uint32_t
h_node_end(onnxc_ctx *c, onnxc_graph g)
{
	Graph *G = pl_graph_of(c, g);
	return G ? G->nnodes : 0;
}

static onnxc_status
h_node_get(onnxc_ctx *c, onnxc_graph g, onnxc_node n, onnxc_node_info *out)
{
	Graph *G = pl_graph_of(c, g);
	if (!G || !out || !pl_live(G, n))
		return ONNXC_INVALID;
	const Node *p = &G->nodes[n];
	*out = (onnxc_node_info){
		.op = p->op, .domain = p->domain, .dialect = p->dialect,
		.nargs = p->nargs, .npos = ir_npos(G, n), .out = p->out,
		.nout = p->nout, .line = p->loc.line, .col = p->loc.col,
		.name = p->name,
	};
	return ONNXC_OK;
}

static onnxc_status
h_node_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n, uint32_t i,
    onnxc_arg *out)
{
	Graph *G = pl_graph_of(c, g);
	if (!G || !out || !pl_live(G, n) || i >= G->nodes[n].nargs)
		return ONNXC_INVALID;
	pl_to_plugin(&G->args[G->nodes[n].args + i], out);
	return ONNXC_OK;
}

static onnxc_status
h_node_read(onnxc_ctx *c, onnxc_graph g, onnxc_node n, onnxc_node_info *out,
    onnxc_arg *args, uint32_t cap)
{
	if (h_node_get(c, g, n, out) != ONNXC_OK || (cap && !args))
		return ONNXC_INVALID;
	const Graph *G = c->m->graphs[g];
	const Arg *a = &G->args[G->nodes[n].args];
	uint32_t k = out->nargs < cap ? out->nargs : cap;
	for (uint32_t i = 0; i < k; i++)
		pl_to_plugin(&a[i], &args[i]);
	return ONNXC_OK;
}

static onnxc_status
h_node_find_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n, int pos,
    const char *key, onnxc_arg *out)
{
	Graph *G = pl_graph_of(c, g);
	if (!G || !out || !pl_live(G, n))
		return ONNXC_INVALID;
	const Arg *a = ir_find_arg(c->m, G, n, pos, key);
	if (!a)
		return ONNXC_INVALID;
	pl_to_plugin(a, out);
	return ONNXC_OK;
}

static onnxc_status
h_list_item(onnxc_ctx *c, onnxc_graph g, const onnxc_arg *list, uint32_t i,
    onnxc_arg *out)
{
	Graph *G = pl_graph_of(c, g);
	if (!G || !list || !out || (list->kind != ONNXC_ARG_LIST &&
	    list->kind != ONNXC_ARG_TUPLE) || i >= list->len ||
	    (uint64_t)list->list + list->len > G->nitems)
		return ONNXC_INVALID;
	pl_to_plugin(&G->items[list->list + i], out);
	return ONNXC_OK;
}

static uint32_t
h_value_end(onnxc_ctx *c, onnxc_graph g)
{
	Graph *G = pl_graph_of(c, g);
	return G ? G->nvals : 0;
}

static onnxc_status
h_value_get(onnxc_ctx *c, onnxc_graph g, onnxc_value v, onnxc_value_info *out)
{
	Graph *G = pl_graph_of(c, g);
	if (!G || !out || !pl_okval(G, v))
		return ONNXC_INVALID;
	const Value *p = &G->vals[v];
	*out = (onnxc_value_info){
		.name = p->name, .kind = p->kind, .dtype = p->dtype,
		.rank = p->rank, .role = p->role, .def = p->def,
		.defidx = p->defidx, .sym = p->sym, .target = p->target,
		.init = p->init,
	};
	return ONNXC_OK;
}

static onnxc_status
h_value_dims(onnxc_ctx *c, onnxc_graph g, onnxc_value v, onnxc_dim *out,
    uint32_t cap)
{
	Graph *G = pl_graph_of(c, g);
	if (!G || !pl_okval(G, v) || (cap && !out))
		return ONNXC_INVALID;
	const Value *p = &G->vals[v];
	if (p->rank <= 0)
		return ONNXC_OK;
	if ((uint64_t)p->dims + (uint64_t)p->rank > G->ndims)
		return ONNXC_INVALID;
	uint32_t n = (uint32_t)p->rank < cap ? (uint32_t)p->rank : cap;
	for (uint32_t i = 0; i < n; i++)
		out[i] = (onnxc_dim){G->dims[p->dims + i].n,
		    G->dims[p->dims + i].e};
	return ONNXC_OK;
}

static uint32_t
h_input_count(onnxc_ctx *c, onnxc_graph g)
{
	Graph *G = pl_graph_of(c, g);
	return G ? G->ninputs : 0;
}

static onnxc_value
h_input_at(onnxc_ctx *c, onnxc_graph g, uint32_t i)
{
	Graph *G = pl_graph_of(c, g);
	return G && i < G->ninputs ? G->inputs[i] : 0;
}

static uint32_t
h_output_count(onnxc_ctx *c, onnxc_graph g)
{
	Graph *G = pl_graph_of(c, g);
	return G ? G->noutputs : 0;
}

static onnxc_value
h_output_at(onnxc_ctx *c, onnxc_graph g, uint32_t i)
{
	Graph *G = pl_graph_of(c, g);
	return G && i < G->noutputs ? G->outputs[i] : 0;
}

static onnxc_status
h_tensor_get(onnxc_ctx *c, onnxc_tensor t, onnxc_tensor_info *out)
{
	if (!c || !out || t == 0 || t >= c->m->ntensors)
		return ONNXC_INVALID;
	const Tensor *p = &c->m->tensors[t];
	*out = (onnxc_tensor_info){
		.name = p->name, .dtype = p->dtype, .rank = p->rank,
		.dims = p->dims, .data = p->data, .nbytes = p->nbytes,
	};
	return ONNXC_OK;
}

static uint32_t
h_value_uses(onnxc_ctx *c, onnxc_graph g, onnxc_value v)
{
	Graph *G = pl_graph_of(c, g);
	if (!G || !pl_okval(G, v))
		return 0;
	if (c->site) {
		/* the ONNX graph grows under a lowering: count afresh */
		ArenaMark mk = arena_mark(c->m->scratch);
		uint32_t *u = arena_array(c->m->scratch, G->nvals + 1,
		    sizeof *u), r;
		for (NodeId n = 1; n < G->nnodes; n++)
			for (uint32_t k = 0; G->nodes[n].op &&
			    k < G->nodes[n].nargs; k++)
				count_arg(G, &G->args[G->nodes[n].args + k], u,
				    G->nvals, 1, 0);
		for (uint32_t i = 0; i < G->noutputs; i++)
			if (G->outputs[i] < G->nvals)
				u[G->outputs[i]]++;
		r = u[v];
		arena_release(c->m->scratch, mk);
		return r;
	}
	return pl_uses(c, g, true)[v];
}

/* ---------------------------------------------------------------- table */

const onnxc_host_api pl_host = {
	.size = sizeof(onnxc_host_api),
	.abi_major = ONNXC_PLUGIN_ABI_MAJOR,
	.abi_minor = ONNXC_PLUGIN_ABI_MINOR,
	.report = h_report,
	.alloc = h_alloc,
	.intern = h_intern,
	.str = h_str,
	.graph = h_graph,
	.opset = h_opset,
	.training = h_training,
	.node_end = h_node_end,
	.node_get = h_node_get,
	.node_arg = h_node_arg,
	.node_find_arg = h_node_find_arg,
	.list_item = h_list_item,
	.value_end = h_value_end,
	.value_get = h_value_get,
	.value_dims = h_value_dims,
	.input_count = h_input_count,
	.input_at = h_input_at,
	.output_count = h_output_count,
	.output_at = h_output_at,
	.tensor_get = h_tensor_get,
	.value_uses = h_value_uses,
	.node_new = h_node_new,
	.node_push_arg = h_node_push_arg,
	.node_set_arg = h_node_set_arg,
	.make_list = h_make_list,
	.node_erase = h_node_erase,
	.replace_uses = h_replace_uses,
	.value_set_type = h_value_set_type,
	.value_set_sym = h_value_set_sym,
	.value_set_name = h_value_set_name,
	.tensor_new = h_tensor_new,
	.constant_input = h_constant_input,
	.expr_int = h_expr_int,
	.expr_sym = h_expr_sym,
	.expr_op = h_expr_op,
	.expr_get = h_expr_get,
	.expr_print = h_expr_print,
	.opt_bool = h_opt_bool,
	.opt_int = h_opt_int,
	.opt_float = h_opt_float,
	.opt_string = h_opt_string,
	.register_pass = h_register_pass,
	.register_lowering = h_register_lowering,
	.has_lowering = h_has_lowering,
	.lower_node = h_lower_node,
	.lower_graph = h_lower_graph,
	.lower_input = h_lower_input,
	.lower_emit = h_lower_emit,
	.lower_attr = h_lower_attr,
	.lower_set_dtype = h_lower_set_dtype,
	.lower_const = h_lower_const,
	.lower_bind = h_lower_bind,
	.lower_list = h_lower_list,
	.expr_simplify = h_expr_simplify,
	.expr_eval = h_expr_eval,
	.expr_subst = h_expr_subst,
	.expr_mentions = h_expr_mentions,
	.range_count = h_range_count,
	.range_get = h_range_get,
	.range_set = h_range_set,
	.range_erase = h_range_erase,
	.node_set_origin = h_node_set_origin,
	.node_set_name = h_node_set_name,
	.output_set = h_output_set,
	.input_erase = h_input_erase,
	.graph_new = h_graph_new,
	.graph_parent = h_graph_parent,
	.input_add = h_input_add,
	.output_add = h_output_add,
	.output_kind = h_output_kind,
	.output_set_kind = h_output_set_kind,
	.graph_ops = h_graph_ops,
	.node_read = h_node_read,
	.tensor_make = h_tensor_make,
	.tensor_view = h_tensor_view,
	.bytes_done = h_bytes_done,
	.tensor_make_deferred = h_tensor_make_deferred,
	.graph_parse = h_graph_parse,
};

/* ------------------------------------------------------------- calling */

onnxc_status
pl_invoke(onnxc_ctx *c, uint32_t plugin, PlEntry e)
{
	const char *who = c->who;
	int errs = c->m->nerrors;
	c->who = pl_plugin_name(c->reg, plugin);
	onnxc_status st = ONNXC_OK;
	if (e.run)
		st = e.run(c, &pl_host, e.user);
	else if (e.init)
		st = e.init(c, &pl_host, c->reg);
	else if (e.fini)
		e.fini();
	c->who = who;
	c->reported = c->m->nerrors != errs;
	return st;
}
