/* host.c - the host function table (onnxc_host_api) over ir.h.
 *
 * Every handle a plugin passes in is checked: a bad one gives
 * ONNXC_INVALID (or 0 / NULL from functions returning a handle or a
 * pointer), never a crash.  The IR changes only through these functions
 * while a pass runs (not during init, not inside a lowering, where only
 * the lower_* functions emit); each change marks its graph so the pass
 * manager restores node order afterwards (passes/pipeline.c). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../passes/lower.h"
#include "pl.h"

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

enum {
	MAXRANK = 1024,      /* value_set_type, tensors */
	MAXOUT = 4096,       /* outputs of one node */
	MAXDEPTH = 64,       /* nested lists, as ir_verify allows */
	MAXNAME = 4096       /* names of ops, values, options */
};

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
	c->uses = NULL;
	c->nuses = NULL;
	c->base = NULL;
	c->haslw = NULL;
	c->cuses = c->cbase = c->chaslw = 0;
}

/* ------------------------------------------------------------- checking */

static Graph *
graph_of(onnxc_ctx *c, onnxc_graph g)
{
	if (!c || g == 0 || g >= c->m->ngraphs)
		return NULL;
	return c->m->graphs[g];
}

static bool
live(const Graph *g, onnxc_node n)
{
	return n != 0 && n < g->nnodes && g->nodes[n].op != 0;
}

static bool
okval(const Graph *g, onnxc_value v)
{
	return v != 0 && v < g->nvals;
}

static bool
okexpr(const Module *m, onnxc_expr e)
{
	return e != 0 && e < m->nexprs;
}

static bool
okname(const char *s)
{
	return s && *s && strnlen(s, MAXNAME) < MAXNAME;
}

/* A graph the running pass may change, marked as changed. */
static Graph *
mutable(onnxc_ctx *c, onnxc_graph g)
{
	Graph *G = graph_of(c, g);
	if (!G || !c->pass || c->lower)
		return NULL;
	vgrow((void **)&c->base, &c->cbase, c->m->ngraphs, sizeof *c->base);
	if (!c->base[g])
		c->base[g] = G->nnodes + 1;
	return G;
}

/* --------------------------------------------------------- arguments */

static void
to_plugin(const Arg *a, onnxc_arg *o)
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
static bool
from_plugin(const Module *m, const Graph *g, const onnxc_arg *o, Arg *a)
{
	if (!o || o->key >= m->nstrs)
		return false;
	*a = (Arg){.kind = (uint8_t)o->kind, .key = o->key};
	switch (o->kind) {
	case ONNXC_ARG_NONE:
		return true;
	case ONNXC_ARG_VALUE:
		a->u.v = o->ref;
		return okval(g, o->ref);
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
	case ONNXC_ARG_GRAPH:
		a->u.g = o->ref;
		return o->ref != 0 && o->ref < m->ngraphs;
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
static uint32_t *
uses(onnxc_ctx *c, GraphId gid, bool build)
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
		u = calloc(g->nvals + 1, sizeof *u);
		if (!u)
			BUG("out of memory");
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

static void
bump(onnxc_ctx *c, GraphId gid, const Arg *a, int delta)
{
	uint32_t *u = uses(c, gid, false);
	if (u)
		count_arg(c->m->graphs[gid], a, u, c->nuses[gid], delta, 0);
}

/* Append a to node n's args.  Args are contiguous per node: when n is
 * not the last to get args, its args move to the end of the table first
 * (the old slots become garbage, dropped when the graph is compacted). */
static void
append_arg(Graph *g, NodeId n, Arg a)
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

static void
diag(Module *m, const char *kind, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
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
	Graph *G = graph_of(c, g);
	if (G && n && n < G->nnodes)
		loc = G->nodes[n].loc;
	const char *kind = severity == ONNXC_SEV_WARNING ? "warning"
	    : severity == ONNXC_SEV_NOTE ? "note" : "error";
	if (c->who)
		diag(c->m, kind, loc, "[%.64s] %s", c->who, msg);
	else
		diag(c->m, kind, loc, "%s", msg);
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
	Graph *G = graph_of(c, g);
	return G ? G->nnodes : 0;
}

static onnxc_status
h_node_get(onnxc_ctx *c, onnxc_graph g, onnxc_node n, onnxc_node_info *out)
{
	Graph *G = graph_of(c, g);
	if (!G || !out || !live(G, n))
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
	Graph *G = graph_of(c, g);
	if (!G || !out || !live(G, n) || i >= G->nodes[n].nargs)
		return ONNXC_INVALID;
	to_plugin(&G->args[G->nodes[n].args + i], out);
	return ONNXC_OK;
}

static onnxc_status
h_node_find_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n, int pos,
    const char *key, onnxc_arg *out)
{
	Graph *G = graph_of(c, g);
	if (!G || !out || !live(G, n))
		return ONNXC_INVALID;
	const Arg *a = ir_find_arg(c->m, G, n, pos, key);
	if (!a)
		return ONNXC_INVALID;
	to_plugin(a, out);
	return ONNXC_OK;
}

static onnxc_status
h_list_item(onnxc_ctx *c, onnxc_graph g, const onnxc_arg *list, uint32_t i,
    onnxc_arg *out)
{
	Graph *G = graph_of(c, g);
	if (!G || !list || !out || (list->kind != ONNXC_ARG_LIST &&
	    list->kind != ONNXC_ARG_TUPLE) || i >= list->len ||
	    (uint64_t)list->list + list->len > G->nitems)
		return ONNXC_INVALID;
	to_plugin(&G->items[list->list + i], out);
	return ONNXC_OK;
}

static uint32_t
h_value_end(onnxc_ctx *c, onnxc_graph g)
{
	Graph *G = graph_of(c, g);
	return G ? G->nvals : 0;
}

static onnxc_status
h_value_get(onnxc_ctx *c, onnxc_graph g, onnxc_value v, onnxc_value_info *out)
{
	Graph *G = graph_of(c, g);
	if (!G || !out || !okval(G, v))
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
	Graph *G = graph_of(c, g);
	if (!G || !okval(G, v) || (cap && !out))
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
	Graph *G = graph_of(c, g);
	return G ? G->ninputs : 0;
}

static onnxc_value
h_input_at(onnxc_ctx *c, onnxc_graph g, uint32_t i)
{
	Graph *G = graph_of(c, g);
	return G && i < G->ninputs ? G->inputs[i] : 0;
}

static uint32_t
h_output_count(onnxc_ctx *c, onnxc_graph g)
{
	Graph *G = graph_of(c, g);
	return G ? G->noutputs : 0;
}

static onnxc_value
h_output_at(onnxc_ctx *c, onnxc_graph g, uint32_t i)
{
	Graph *G = graph_of(c, g);
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
	Graph *G = graph_of(c, g);
	if (!G || !okval(G, v))
		return 0;
	if (c->lower) {
		/* the ONNX graph grows under a lowering: count afresh */
		uint32_t *u = calloc(G->nvals + 1, sizeof *u), r;
		if (!u)
			BUG("out of memory");
		for (NodeId n = 1; n < G->nnodes; n++)
			for (uint32_t k = 0; G->nodes[n].op &&
			    k < G->nodes[n].nargs; k++)
				count_arg(G, &G->args[G->nodes[n].args + k], u,
				    G->nvals, 1, 0);
		for (uint32_t i = 0; i < G->noutputs; i++)
			if (G->outputs[i] < G->nvals)
				u[G->outputs[i]]++;
		r = u[v];
		free(u);
		return r;
	}
	return uses(c, g, true)[v];
}

/* --------------------------------------------------------- changing */

static onnxc_node
h_node_new(onnxc_ctx *c, onnxc_graph g, uint32_t dialect, const char *domain,
    const char *op, uint32_t nout)
{
	Graph *G = mutable(c, g);
	if (!G || dialect > ONNXC_ONNX || !okname(op) || nout > MAXOUT ||
	    (domain && strnlen(domain, MAXNAME) == MAXNAME))
		return 0;
	NodeId n = ir_node(G, (Dialect)dialect, ir_intern(c->m, op), nout);
	G->nodes[n].domain = ir_intern(c->m, domain ? domain : "");
	c->newest_g = g;
	c->newest_n = n;
	return n;
}

static onnxc_status
h_node_push_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n,
    const onnxc_arg *a)
{
	Graph *G = mutable(c, g);
	Arg arg;
	if (!G || g != c->newest_g || n != c->newest_n || !live(G, n) ||
	    !from_plugin(c->m, G, a, &arg))
		return ONNXC_INVALID;
	append_arg(G, n, arg);
	bump(c, g, &arg, 1);
	return ONNXC_OK;
}

static onnxc_status
h_node_set_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n, uint32_t i,
    const onnxc_arg *a)
{
	Graph *G = mutable(c, g);
	Arg arg;
	if (!G || !live(G, n) || i >= G->nodes[n].nargs ||
	    !from_plugin(c->m, G, a, &arg))
		return ONNXC_INVALID;
	Arg *slot = &G->args[G->nodes[n].args + i];
	bump(c, g, slot, -1);
	*slot = arg;
	bump(c, g, slot, 1);
	return ONNXC_OK;
}

static bool
list_items(onnxc_ctx *c, Graph *G, uint32_t kind, const onnxc_arg *items,
    uint32_t n, Arg **out)
{
	if ((kind != ONNXC_ARG_LIST && kind != ONNXC_ARG_TUPLE) ||
	    (n && !items) || n > (1u << 24))
		return false;
	Arg *it = calloc(n + 1, sizeof *it);
	if (!it)
		BUG("out of memory");
	for (uint32_t i = 0; i < n; i++)
		if (!from_plugin(c->m, G, &items[i], &it[i])) {
			free(it);
			return false;
		}
	*out = it;
	return true;
}

static onnxc_status
h_make_list(onnxc_ctx *c, onnxc_graph g, uint32_t kind,
    const onnxc_arg *items, uint32_t n, onnxc_arg *out)
{
	Graph *G = mutable(c, g);
	Arg *it;
	if (!G || !out || !list_items(c, G, kind, items, n, &it))
		return ONNXC_INVALID;
	Arg a = ir_list(G, (ArgKind)kind, it, n);
	free(it);
	to_plugin(&a, out);
	return ONNXC_OK;
}

static onnxc_status
h_node_erase(onnxc_ctx *c, onnxc_graph g, onnxc_node n)
{
	Graph *G = mutable(c, g);
	if (!G || !live(G, n))
		return ONNXC_INVALID;
	Node *p = &G->nodes[n];
	for (uint32_t k = 0; k < p->nargs; k++)
		bump(c, g, &G->args[p->args + k], -1);
	p->op = 0; /* erased: dropped when the pass returns */
	if (c->newest_g == g && c->newest_n == n)
		c->newest_n = 0;
	return ONNXC_OK;
}

static void
replace_in(Graph *g, Arg *a, ValId from, ValId to, int depth)
{
	if (a->kind == A_VAL && a->u.v == from)
		a->u.v = to;
	else if ((a->kind == A_LIST || a->kind == A_TUPLE) &&
	    depth < MAXDEPTH &&
	    (uint64_t)a->u.list.off + a->u.list.n <= g->nitems)
		for (uint32_t i = 0; i < a->u.list.n; i++)
			replace_in(g, &g->items[a->u.list.off + i], from, to,
			    depth + 1);
}

static onnxc_status
h_replace_uses(onnxc_ctx *c, onnxc_graph g, onnxc_value from, onnxc_value to)
{
	Graph *G = mutable(c, g);
	if (!G || !okval(G, from) || !okval(G, to))
		return ONNXC_INVALID;
	if (from == to)
		return ONNXC_OK;
	for (NodeId n = 1; n < G->nnodes; n++) {
		const Node *p = &G->nodes[n];
		for (uint32_t k = 0; p->op && k < p->nargs; k++)
			replace_in(G, &G->args[p->args + k], from, to, 0);
	}
	for (uint32_t i = 0; i < G->noutputs; i++)
		if (G->outputs[i] == from)
			G->outputs[i] = to;
	uint32_t *u = uses(c, g, false);
	if (u) {
		u[to] += u[from];
		u[from] = 0;
	}
	return ONNXC_OK;
}

static onnxc_status
h_value_set_type(onnxc_ctx *c, onnxc_graph g, onnxc_value v, uint32_t dtype,
    int32_t rank, const onnxc_dim *dims)
{
	Graph *G = mutable(c, g);
	if (!G || !okval(G, v) || dtype >= DT_COUNT || rank < -1 ||
	    rank > MAXRANK || (rank > 0 && !dims))
		return ONNXC_INVALID;
	Dim d[MAXRANK];
	for (int32_t i = 0; i < rank; i++) {
		if (dims[i].e ? dims[i].e >= c->m->nexprs : dims[i].n < 0)
			return ONNXC_INVALID;
		d[i] = (Dim){dims[i].n, dims[i].e};
	}
	ir_set_tensor(G, v, (DType)dtype, rank, rank > 0 ? d : NULL);
	return ONNXC_OK;
}

static onnxc_status
h_value_set_sym(onnxc_ctx *c, onnxc_graph g, onnxc_value v, uint32_t kind,
    onnxc_expr e)
{
	Graph *G = mutable(c, g);
	if (!G || !okval(G, v) || !okexpr(c->m, e) ||
	    (kind != ONNXC_VK_SYMINT && kind != ONNXC_VK_SYMFLOAT &&
	    kind != ONNXC_VK_SYMBOOL))
		return ONNXC_INVALID;
	Value *p = &G->vals[v];
	p->kind = (uint8_t)kind;
	p->dtype = DT_UNDEF;
	p->sym = e;
	return ONNXC_OK;
}

static onnxc_status
h_value_set_name(onnxc_ctx *c, onnxc_graph g, onnxc_value v, const char *name)
{
	Graph *G = mutable(c, g);
	if (!G || !okval(G, v) || !okname(name))
		return ONNXC_INVALID;
	G->vals[v].name = ir_intern(c->m, name);
	return ONNXC_OK;
}

/* A tensor's byte size, or false when the shape is not acceptable. */
static bool
tensor_size(uint32_t dtype, int32_t rank, const int64_t *dims, uint64_t *nb)
{
	if (dtype == 0 || dtype >= DT_COUNT || !ir_dtype_size((DType)dtype) ||
	    rank < 0 || rank > MAXRANK || (rank > 0 && !dims))
		return false;
	uint64_t n = ir_dtype_size((DType)dtype), lim = (uint64_t)1 << 31;
	for (int32_t i = 0; i < rank; i++) {
		if (dims[i] < 0 || (dims[i] && n > lim / (uint64_t)dims[i]))
			return false;
		n *= (uint64_t)dims[i];
	}
	*nb = n;
	return n <= lim;
}

static TensorId
new_tensor(Module *m, uint32_t dtype, int32_t rank, const int64_t *dims,
    const void *data)
{
	uint64_t nb;
	if (!tensor_size(dtype, rank, dims, &nb) || (nb && !data))
		return 0;
	void *copy = arena_alloc(m->arena, nb ? nb : 1);
	if (nb)
		memcpy(copy, data, nb);
	Tensor t = {.dtype = (uint8_t)dtype, .rank = rank,
		.dims = (int64_t *)dims, .data = copy, .nbytes = nb};
	return ir_tensor(m, &t);
}

static onnxc_tensor
h_tensor_new(onnxc_ctx *c, uint32_t dtype, int32_t rank, const int64_t *dims,
    const void *data)
{
	return c ? new_tensor(c->m, dtype, rank, dims, data) : 0;
}

static void const_add(onnxc_ctx *c, const Graph *g, ValId v);

/* Whether a value of graph gid is named s: an index of names kept per
 * context, brought up to date with the values added since the last call,
 * so that naming n constants costs O(n), not O(n * values). */
static bool
name_used(onnxc_ctx *c, GraphId gid, const Graph *g, StrId s)
{
	if (c->named_g != gid) {
		if (c->named)
			memset(c->named, 0, c->cnamed);
		if (c->consts)
			memset(c->consts, 0, c->cconsts * sizeof *c->consts);
		c->nconsts = c->consts_upto = 0;
		c->named_g = gid;
		c->named_upto = 1;
	}
	if (c->cnamed < c->m->nstrs)
		vgrow((void **)&c->named, &c->cnamed, c->m->nstrs, 1);
	for (; c->named_upto < g->nvals; c->named_upto++) {
		const Value *v = &g->vals[c->named_upto];
		c->named[v->name] = 1;
	}
	/* constant inputs only: a lowered graph may hold a constant's value
	 * that is no input (nothing used it), which no node may read */
	for (; c->consts_upto < g->ninputs; c->consts_upto++) {
		ValId v = g->inputs[c->consts_upto];
		if (g->vals[v].role == ROLE_CONST && g->vals[v].init)
			const_add(c, g, v);
	}
	return c->named[s];
}

static uint32_t
tensor_hash(const Tensor *t)
{
	uint32_t h = ir_hash(&t->dtype, sizeof t->dtype) ^ ir_hash(&t->rank,
	    sizeof t->rank) * 31u;
	if (t->rank > 0)
		h ^= ir_hash(t->dims, (size_t)t->rank * sizeof *t->dims) * 131u;
	return h ^ ir_hash(t->data, t->nbytes) * 1031u;
}

static bool
same_tensor(const Tensor *a, const Tensor *b)
{
	return a->dtype == b->dtype && a->rank == b->rank &&
	    a->nbytes == b->nbytes && (a->rank <= 0 || !memcmp(a->dims,
	    b->dims, (size_t)a->rank * sizeof *a->dims)) &&
	    (a->data == b->data || !memcmp(a->data, b->data, a->nbytes));
}

/* The slot of tensor t in the content table of constant inputs: where an
 * equal one is, or the free slot it would take. */
static ValId *
const_slot(onnxc_ctx *c, const Graph *g, const Tensor *t)
{
	uint32_t mask = c->cconsts - 1;
	for (uint32_t h = tensor_hash(t);; h++) {
		ValId *s = &c->consts[h & mask];
		if (!*s || same_tensor(&c->m->tensors[g->vals[*s].init], t))
			return s;
	}
}

static void
const_add(onnxc_ctx *c, const Graph *g, ValId v)
{
	if ((c->nconsts + 1) * 2 > c->cconsts) {
		ValId *old = c->consts;
		uint32_t n = c->cconsts;
		c->cconsts = n ? n * 2 : 64;
		c->consts = calloc(c->cconsts, sizeof *c->consts);
		if (!c->consts)
			BUG("out of memory");
		for (uint32_t i = 0; i < n; i++)
			if (old[i])
				*const_slot(c, g, &c->m->tensors[g->vals[old[i]]
				    .init]) = old[i];
		free(old);
	}
	ValId *s = const_slot(c, g, &c->m->tensors[g->vals[v].init]);
	if (!*s) {
		*s = v;
		c->nconsts++;
	}
}

static onnxc_value
h_constant_input(onnxc_ctx *c, onnxc_graph g, const char *name,
    onnxc_tensor t)
{
	Graph *G = mutable(c, g);
	if (!G || !okname(name) || t == 0 || t >= c->m->ntensors)
		return 0;
	/* input and initializer names must be unique in an ONNX graph */
	StrId s = ir_intern(c->m, name);
	char buf[300];
	for (uint32_t k = 1; name_used(c, g, G, s); k++) {
		snprintf(buf, sizeof buf, "%.200s_%u", name, k);
		s = ir_intern(c->m, buf);
	}
	/* an equal constant input already there serves (name_used has
	 * indexed the graph's constants up to now) */
	if (c->cconsts) {
		ValId *slot = const_slot(c, G, &c->m->tensors[t]);
		if (*slot)
			return *slot;
	}
	const Tensor *tp = &c->m->tensors[t];
	Dim d[MAXRANK];
	int32_t rank = tp->rank > MAXRANK ? MAXRANK : tp->rank;
	for (int32_t i = 0; i < rank; i++)
		d[i] = (Dim){tp->dims[i], 0};
	ValId v = ir_value(G, s);
	ir_set_tensor(G, v, (DType)tp->dtype, rank, rank > 0 ? d : NULL);
	Value *p = ir_val(G, v);
	p->role = ROLE_CONST;
	p->target = s;
	p->init = t;
	ir_add_input(G, v);
	const_add(c, G, v);
	return v;
}

/* -------------------------------------------------------- expressions */

static onnxc_expr
h_expr_int(onnxc_ctx *c, int64_t n)
{
	return c ? ir_expr_int(c->m, n) : 0;
}

static onnxc_expr
h_expr_sym(onnxc_ctx *c, const char *name)
{
	if (!c || !okname(name))
		return 0;
	return ir_expr_sym(c->m, name);
}

static onnxc_expr
h_expr_op(onnxc_ctx *c, uint32_t kind, onnxc_expr a, onnxc_expr b)
{
	if (!c || !okexpr(c->m, a))
		return 0;
	switch (kind) {
	case E_NEG: case E_TOFLOAT: case E_NOT:
		return b ? 0 : ir_expr_bin(c->m, (ExprKind)kind, a, 0);
	case E_ADD: case E_MUL: case E_FLOORDIV: case E_MOD: case E_POW:
	case E_MAX: case E_MIN: case E_TRUEDIV: case E_EQ: case E_NE:
	case E_LT: case E_LE: case E_GT: case E_GE: case E_AND: case E_OR:
		return okexpr(c->m, b)
		    ? ir_expr_bin(c->m, (ExprKind)kind, a, b) : 0;
	default: /* numbers, symbols and calls have their own makers */
		return 0;
	}
}

static onnxc_status
h_expr_get(onnxc_ctx *c, onnxc_expr e, onnxc_expr_info *out)
{
	if (!c || !out || !okexpr(c->m, e))
		return ONNXC_INVALID;
	const Expr *p = &c->m->exprs[e];
	*out = (onnxc_expr_info){.kind = p->kind, .str = p->str, .a = p->a,
		.b = p->b, .n = p->n, .f = p->f};
	return ONNXC_OK;
}

static int
h_expr_print(onnxc_ctx *c, onnxc_expr e, char *buf, size_t cap)
{
	if (!c || !okexpr(c->m, e) || (cap && !buf))
		return -1;
	return ir_expr_print(c->m, e, buf, cap);
}

/* ------------------------------------------------------------ options */

const char *
pl_opt_type_name(uint32_t type)
{
	switch (type) {
	case ONNXC_OPT_BOOL: return "bool";
	case ONNXC_OPT_INT: return "int";
	case ONNXC_OPT_FLOAT: return "float";
	case ONNXC_OPT_STRING: return "string";
	default: return "?";
	}
}

int
pl_opt_parse(Arena *a, uint32_t type, const char *text, size_t n,
    PlOptVal *out)
{
	char *s = arena_strndup(a, text, n), *end;
	*out = (PlOptVal){.s = s};
	switch (type) {
	case ONNXC_OPT_BOOL:
		if (!strcmp(s, "true") || !strcmp(s, "1"))
			out->i = 1;
		else if (strcmp(s, "false") && strcmp(s, "0"))
			return -1;
		out->f = (double)out->i;
		return 0;
	case ONNXC_OPT_INT: {
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (!n || errno || *end || isspace((unsigned char)s[0]))
			return -1;
		out->i = v;
		out->f = (double)v;
		return 0;
	}
	case ONNXC_OPT_FLOAT:
		errno = 0;
		out->f = strtod(s, &end);
		if (!n || errno || *end || isspace((unsigned char)s[0]))
			return -1;
		out->i = (int64_t)(out->f >= -9.2e18 && out->f <= 9.2e18
		    ? out->f : 0);
		return 0;
	case ONNXC_OPT_STRING:
		return 0;
	default:
		return -1;
	}
}

static const PlOptVal *
opt(onnxc_ctx *c, const char *name, uint32_t type)
{
	if (!c || !c->pass || !c->opts || !name)
		return NULL;
	const onnxc_pass_info *p = &c->pass->info;
	for (uint32_t i = 0; i < p->noptions; i++)
		if (!strcmp(p->options[i].name, name))
			return p->options[i].type == type ? &c->opts[i] : NULL;
	return NULL;
}

static onnxc_status
h_opt_bool(onnxc_ctx *c, const char *name, int *out)
{
	const PlOptVal *v = opt(c, name, ONNXC_OPT_BOOL);
	if (!v || !out)
		return ONNXC_INVALID;
	*out = (int)v->i;
	return ONNXC_OK;
}

static onnxc_status
h_opt_int(onnxc_ctx *c, const char *name, int64_t *out)
{
	const PlOptVal *v = opt(c, name, ONNXC_OPT_INT);
	if (!v || !out)
		return ONNXC_INVALID;
	*out = v->i;
	return ONNXC_OK;
}

static onnxc_status
h_opt_float(onnxc_ctx *c, const char *name, double *out)
{
	const PlOptVal *v = opt(c, name, ONNXC_OPT_FLOAT);
	if (!v || !out)
		return ONNXC_INVALID;
	*out = v->f;
	return ONNXC_OK;
}

static onnxc_status
h_opt_string(onnxc_ctx *c, const char *name, const char **out)
{
	const PlOptVal *v = opt(c, name, ONNXC_OPT_STRING);
	if (!v || !out)
		return ONNXC_INVALID;
	*out = v->s;
	return ONNXC_OK;
}

/* -------------------------------------------------------- registration */

static bool
kebab(const char *s)
{
	if (!okname(s) || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-'))
			return false;
	return true;
}

/* Refuse a registration: reported at the plugin, and init fails. */
static onnxc_status
refuse(onnxc_registry *r, const char *fmt, const char *what)
{
	const char *who = pl_plugin_name(r, r->current - 1);
	char msg[256];
	snprintf(msg, sizeof msg, fmt, what);
	diag(r->m, "error", (Loc){0}, "[%.64s] %s", who, msg);
	r->bad = 1;
	return ONNXC_INVALID;
}

static char *
copy(onnxc_registry *r, const char *s)
{
	return arena_strndup(r->arena, s ? s : "", s ? strlen(s) : 0);
}

static onnxc_status
h_register_pass(onnxc_registry *r, const onnxc_pass_info *pass)
{
	if (!r || !r->current)
		return ONNXC_INVALID;
	size_t need = offsetof(onnxc_pass_info, user) + sizeof pass->user;
	if (!pass || pass->size < need)
		return refuse(r, "%s", "register_pass: a descriptor too small "
		    "for this ABI (set size = sizeof(onnxc_pass_info))");
	if (!kebab(pass->name))
		return refuse(r, "register_pass: pass name '%.64s' is not "
		    "kebab-case ([a-z0-9-]+)", pass->name ? pass->name : "");
	if (!pass->run)
		return refuse(r, "pass '%s' has no run function", pass->name);
	if (pass->noptions > 64 || (pass->noptions && !pass->options))
		return refuse(r, "pass '%s' has a bad option table",
		    pass->name);
	const PlPass *old = pl_find_pass(r, pass->name, strlen(pass->name));
	if (old) {
		char msg[300];
		snprintf(msg, sizeof msg, "%s' is already registered by plugin "
		    "'%.64s", pass->name, pl_plugin_name(r, old->plugin));
		return refuse(r, "pass '%s'", msg);
	}
	PlPass p = {.plugin = r->current - 1};
	memcpy(&p.info, pass, need);
	p.info.size = sizeof p.info;
	p.info.name = copy(r, pass->name);
	p.info.summary = copy(r, pass->summary);
	onnxc_option *opts = arena_alloc(r->arena,
	    (pass->noptions + 1) * sizeof *opts);
	p.dflt = arena_alloc(r->arena, (pass->noptions + 1) * sizeof *p.dflt);
	for (uint32_t i = 0; i < pass->noptions; i++) {
		const onnxc_option *o = &pass->options[i];
		if (!kebab(o->name) || o->type > ONNXC_OPT_STRING)
			return refuse(r, "pass '%s' has an option with a bad "
			    "name or type", pass->name);
		for (uint32_t k = 0; k < i; k++)
			if (!strcmp(opts[k].name, o->name))
				return refuse(r, "option '%s' is declared "
				    "twice", o->name);
		const char *d = o->dflt ? o->dflt
		    : o->type == ONNXC_OPT_BOOL ? "false"
		    : o->type == ONNXC_OPT_STRING ? "" : "0";
		if (pl_opt_parse(r->arena, o->type, d, strlen(d),
		    &p.dflt[i]) < 0)
			return refuse(r, "option '%s' has a default that is "
			    "not of its type", o->name);
		opts[i] = (onnxc_option){copy(r, o->name), o->type, copy(r, d),
			copy(r, o->help)};
	}
	p.info.options = opts;
	vgrow((void **)&r->passes, &r->cpasses, r->npasses + 1,
	    sizeof *r->passes);
	r->passes[r->npasses++] = p;
	return ONNXC_OK;
}

static onnxc_status
h_register_lowering(onnxc_registry *r, const onnxc_lowering_info *lw)
{
	if (!r || !r->current)
		return ONNXC_INVALID;
	size_t need = offsetof(onnxc_lowering_info, user) + sizeof lw->user;
	if (!lw || lw->size < need)
		return refuse(r, "%s", "register_lowering: a descriptor too "
		    "small for this ABI (set size = "
		    "sizeof(onnxc_lowering_info))");
	if (!okname(lw->target) || !lw->lower)
		return refuse(r, "%s", "register_lowering: a lowering needs a "
		    "target op and a lower function");
	if (lw->opset_min < 0 || lw->opset_max < 0 ||
	    (lw->opset_max && lw->opset_min > lw->opset_max))
		return refuse(r, "lowering of '%.200s' has a bad opset range",
		    lw->target);
	PlLowering l = {.plugin = r->current - 1};
	memcpy(&l.info, lw, need);
	l.info.size = sizeof l.info;
	l.info.target = copy(r, lw->target);
	l.info.domain = copy(r, lw->domain);
	vgrow((void **)&r->lowerings, &r->clowerings, r->nlowerings + 1,
	    sizeof *r->lowerings);
	r->lowerings[r->nlowerings++] = l;
	return ONNXC_OK;
}

/* Whether the lowering applies at this opset (0 leaves a bound open). */
static bool
in_range(const PlLowering *l, int opset)
{
	return (!l->info.opset_min || opset >= l->info.opset_min) &&
	    (!l->info.opset_max || opset <= l->info.opset_max);
}

static int
h_has_lowering(onnxc_ctx *c, const char *op)
{
	if (!c || !okname(op))
		return 0;
	if (c->reg)
		for (uint32_t i = 0; i < c->reg->nlowerings; i++)
			if (!strcmp(c->reg->lowerings[i].info.target, op) &&
			    in_range(&c->reg->lowerings[i], c->opset))
				return 1;
	StrId s = ir_intern(c->m, op);
	vgrow((void **)&c->haslw, &c->chaslw, s + 1, 1);
	if (!c->haslw[s])
		c->haslw[s] = lw_find(c->m, s) ? 1 : 2;
	return c->haslw[s] == 1;
}

/* ------------------------------------------------------------ lowering */

static onnxc_node
h_lower_node(onnxc_ctx *c)
{
	return c && c->lower ? c->lower->node : 0;
}

static onnxc_graph
h_lower_graph(onnxc_ctx *c)
{
	return c && c->lower ? c->lower->dstid : 0;
}

static onnxc_status
h_lower_input(onnxc_ctx *c, int pos, const char *key, onnxc_value *out)
{
	if (!c || !c->lower || !out)
		return ONNXC_INVALID;
	Lower *L = c->lower;
	const Arg *a = ir_find_arg(c->m, L->src, L->node, pos, key);
	if (!a || a->kind != A_VAL || !L->map[a->u.v])
		return ONNXC_INVALID;
	*out = L->map[a->u.v];
	return ONNXC_OK;
}

static onnxc_node
h_lower_emit(onnxc_ctx *c, const char *domain, const char *op, uint32_t nin,
    const onnxc_value *in, uint32_t nout)
{
	if (!c || !c->lower || !okname(op) || nin > (1u << 16) ||
	    (nin && !in) || nout > MAXOUT ||
	    (domain && strnlen(domain, MAXNAME) == MAXNAME))
		return 0;
	Lower *L = c->lower;
	for (uint32_t k = 0; k < nin; k++)
		if (in[k] && in[k] >= L->dst->nvals)
			return 0;
	return lw_emit_domain(L, domain ? domain : "", op, (int)nin, in,
	    (int)nout);
}

static onnxc_status
h_lower_attr(onnxc_ctx *c, onnxc_node n, const char *name,
    const onnxc_arg *value)
{
	if (!c || !c->lower || !okname(name) || !value)
		return ONNXC_INVALID;
	Lower *L = c->lower;
	Arg a;
	/* only nodes this call emitted: earlier ones belong to other rules */
	if (n < c->lower_base || n >= L->dst->nnodes ||
	    !from_plugin(c->m, L->dst, value, &a))
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
	append_arg(L->dst, n, a);
	return ONNXC_OK;
}

static onnxc_status
h_lower_set_dtype(onnxc_ctx *c, onnxc_value v, uint32_t dtype)
{
	if (!c || !c->lower || !okval(c->lower->dst, v) || dtype == 0 ||
	    dtype >= DT_COUNT)
		return ONNXC_INVALID;
	lw_settype(c->lower, v, (DType)dtype);
	return ONNXC_OK;
}

static onnxc_value
h_lower_const(onnxc_ctx *c, uint32_t dtype, int32_t rank,
    const int64_t *dims, const void *data)
{
	uint64_t nb;
	if (!c || !c->lower || !tensor_size(dtype, rank, dims, &nb) ||
	    (nb && !data))
		return 0;
	return lw_const(c->lower, (DType)dtype, rank, dims, data);
}

static onnxc_status
h_lower_bind(onnxc_ctx *c, uint32_t k, onnxc_value v)
{
	if (!c || !c->lower || !okval(c->lower->dst, v) ||
	    k >= lw_node(c->lower)->nout)
		return ONNXC_INVALID;
	lw_bind(c->lower, (int)k, v);
	c->nbound++;
	return ONNXC_OK;
}

static onnxc_status
h_lower_list(onnxc_ctx *c, uint32_t kind, const onnxc_arg *items, uint32_t n,
    onnxc_arg *out)
{
	if (!c || !c->lower || !out || kind != ONNXC_ARG_LIST)
		return ONNXC_INVALID;
	Graph *G = c->lower->dst;
	Arg *it;
	if (!list_items(c, G, kind, items, n, &it))
		return ONNXC_INVALID;
	for (uint32_t i = 0; i < n; i++)
		if (it[i].kind != A_INT && it[i].kind != A_FLOAT) {
			free(it);
			return ONNXC_INVALID;
		}
	Arg a = ir_list(G, A_LIST, it, n);
	free(it);
	to_plugin(&a, out);
	return ONNXC_OK;
}

/* ------------------------------------------------ ABI 1.1: symbolic */

static onnxc_expr
h_expr_simplify(onnxc_ctx *c, onnxc_expr e)
{
	return c && okexpr(c->m, e) ? sym_simplify(c->m, e) : 0;
}

static onnxc_status
h_expr_eval(onnxc_ctx *c, onnxc_expr e, const onnxc_expr *syms,
    const int64_t *vals, uint32_t n, int64_t *out)
{
	if (!c || !okexpr(c->m, e) || !out || (n && (!syms || !vals)) ||
	    n > (1u << 20))
		return ONNXC_INVALID;
	SymBind *b = calloc(n + 1, sizeof *b);
	if (!b)
		BUG("out of memory");
	for (uint32_t i = 0; i < n; i++) {
		if (!okexpr(c->m, syms[i])) {
			free(b);
			return ONNXC_INVALID;
		}
		b[i] = (SymBind){syms[i], vals[i]};
	}
	int rc = sym_eval(c->m, e, b, n, out);
	free(b);
	return rc == 0 ? ONNXC_OK : ONNXC_ERROR;
}

static onnxc_expr
h_expr_subst(onnxc_ctx *c, onnxc_expr e, onnxc_expr sym, onnxc_expr repl)
{
	if (!c || !okexpr(c->m, e) || !okexpr(c->m, sym) ||
	    !okexpr(c->m, repl))
		return 0;
	return sym_subst(c->m, e, sym, repl);
}

static int
h_expr_mentions(onnxc_ctx *c, onnxc_expr e, onnxc_expr sub)
{
	if (!c || !okexpr(c->m, e) || !okexpr(c->m, sub))
		return 0;
	return sym_mentions(c->m, e, sub);
}

static uint32_t
h_range_count(onnxc_ctx *c)
{
	return c ? c->m->nrng : 0;
}

static onnxc_status
h_range_get(onnxc_ctx *c, uint32_t i, onnxc_expr *e, int64_t *lo,
    int64_t *hi)
{
	if (!c || i >= c->m->nrng || !e || !lo || !hi)
		return ONNXC_INVALID;
	*e = c->m->rng[i].e;
	*lo = c->m->rng[i].lo;
	*hi = c->m->rng[i].hi;
	return ONNXC_OK;
}

static onnxc_status
h_range_set(onnxc_ctx *c, uint32_t i, onnxc_expr e, int64_t lo, int64_t hi)
{
	if (!c || !c->pass || c->lower || i > c->m->nrng ||
	    !okexpr(c->m, e) || lo > hi)
		return ONNXC_INVALID;
	if (i < c->m->nrng)
		c->m->rng[i] = (SymRange){e, lo, hi};
	else
		sym_range_set(c->m, e, lo, hi); /* appends, or updates e's */
	return ONNXC_OK;
}

static onnxc_status
h_range_erase(onnxc_ctx *c, uint32_t i)
{
	if (!c || !c->pass || c->lower || i >= c->m->nrng)
		return ONNXC_INVALID;
	Module *m = c->m;
	memmove(&m->rng[i], &m->rng[i + 1],
	    (m->nrng - i - 1) * sizeof *m->rng);
	m->nrng--;
	return ONNXC_OK;
}

static onnxc_status
h_node_set_origin(onnxc_ctx *c, onnxc_graph g, onnxc_node n,
    onnxc_node from)
{
	Graph *G = mutable(c, g);
	if (!G || !live(G, n) || from == 0 || from >= G->nnodes)
		return ONNXC_INVALID;
	/* from may be erased already: a rewrite erases what it replaces */
	G->nodes[n].loc = G->nodes[from].loc;
	G->nodes[n].trace = G->nodes[from].trace;
	G->nodes[n].scope = G->nodes[from].scope;
	if (!G->nodes[n].name)
		G->nodes[n].name = G->nodes[from].name;
	return ONNXC_OK;
}

static onnxc_status
h_node_set_name(onnxc_ctx *c, onnxc_graph g, onnxc_node n, const char *name)
{
	Graph *G = mutable(c, g);
	if (!G || !live(G, n) || !name || strnlen(name, MAXNAME) == MAXNAME)
		return ONNXC_INVALID;
	G->nodes[n].name = ir_intern(c->m, name);
	return ONNXC_OK;
}

static onnxc_status
h_output_set(onnxc_ctx *c, onnxc_graph g, uint32_t i, onnxc_value v)
{
	Graph *G = mutable(c, g);
	if (!G || i >= G->noutputs || !okval(G, v))
		return ONNXC_INVALID;
	uint32_t *u = uses(c, g, false);
	if (u) {
		if (u[G->outputs[i]])
			u[G->outputs[i]]--;
		u[v]++;
	}
	G->outputs[i] = v;
	return ONNXC_OK;
}

static onnxc_status
h_input_erase(onnxc_ctx *c, onnxc_graph g, onnxc_value v)
{
	Graph *G = mutable(c, g);
	if (!G || !okval(G, v))
		return ONNXC_INVALID;
	const Value *p = &G->vals[v];
	uint32_t i = 0;
	while (i < G->ninputs && G->inputs[i] != v)
		i++;
	if (i == G->ninputs || !p->init || p->role == ROLE_USER_INPUT ||
	    (c->training && (p->role == ROLE_PARAM || p->role == ROLE_BUFFER))
	    || uses(c, g, true)[v])
		return ONNXC_INVALID;
	memmove(&G->inputs[i], &G->inputs[i + 1],
	    (G->ninputs - i - 1) * sizeof *G->inputs);
	G->ninputs--;
	/* the name and content indexes are rebuilt when next needed */
	c->named_g = 0;
	return ONNXC_OK;
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
};
