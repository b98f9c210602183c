/* host_edit.c - the host functions that change the IR (onnxc_host_api):
 * nodes, arguments, values, tensors, constant inputs, expressions and
 * ranges.  Each change marks its graph (pl_mutable) so the pass manager
 * restores node order after the pass. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

/* --------------------------------------------------------- changing */

onnxc_node
h_node_new(onnxc_ctx *c, onnxc_graph g, uint32_t dialect, const char *domain,
    const char *op, uint32_t nout)
{
	Graph *G = pl_mutable(c, g);
	if (!G || dialect > ONNXC_ONNX || !pl_okname(op) || nout > MAXOUT ||
	    (domain && strnlen(domain, MAXNAME) == MAXNAME))
		return 0;
	NodeId n = ir_node(G, (Dialect)dialect, ir_intern(c->m, op), nout);
	G->nodes[n].domain = ir_intern(c->m, domain ? domain : "");
	c->newest_g = g;
	c->newest_n = n;
	return n;
}

onnxc_status
h_node_push_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n,
    const onnxc_arg *a)
{
	Graph *G = pl_mutable(c, g);
	Arg arg;
	if (!G || g != c->newest_g || n != c->newest_n || !pl_live(G, n) ||
	    !pl_from_plugin(c->m, G, a, &arg))
		return ONNXC_INVALID;
	pl_append_arg(G, n, arg);
	pl_bump(c, g, &arg, 1);
	return ONNXC_OK;
}

onnxc_status
h_node_set_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n, uint32_t i,
    const onnxc_arg *a)
{
	Graph *G = pl_mutable(c, g);
	Arg arg;
	if (!G || !pl_live(G, n) || i >= G->nodes[n].nargs ||
	    !pl_from_plugin(c->m, G, a, &arg))
		return ONNXC_INVALID;
	Arg *slot = &G->args[G->nodes[n].args + i];
	pl_bump(c, g, slot, -1);
	*slot = arg;
	pl_bump(c, g, slot, 1);
	return ONNXC_OK;
}

onnxc_status
pl_list_items(onnxc_ctx *c, Graph *G, uint32_t kind, const onnxc_arg *items,
    uint32_t n, Arg **out)
{
	if ((kind != ONNXC_ARG_LIST && kind != ONNXC_ARG_TUPLE) ||
	    (n && !items) || n > (1u << 24))
		return ONNXC_INVALID;
	Arg *it = arena_try_array(c->m->scratch, n + 1, sizeof *it);
	if (!it)
		return ONNXC_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (!pl_from_plugin(c->m, G, &items[i], &it[i]))
			return ONNXC_INVALID;
	*out = it;
	return ONNXC_OK;
}

onnxc_status
h_make_list(onnxc_ctx *c, onnxc_graph g, uint32_t kind,
    const onnxc_arg *items, uint32_t n, onnxc_arg *out)
{
	Graph *G = pl_mutable(c, g);
	Arg *it;
	if (!G || !out)
		return ONNXC_INVALID;
	ArenaMark mk = arena_mark(c->m->scratch);
	onnxc_status st = pl_list_items(c, G, kind, items, n, &it);
	if (st == ONNXC_OK) {
		Arg a = ir_list(G, (ArgKind)kind, it, n);
		pl_to_plugin(&a, out);
	}
	arena_release(c->m->scratch, mk);
	return st;
}

onnxc_status
h_node_erase(onnxc_ctx *c, onnxc_graph g, onnxc_node n)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_live(G, n))
		return ONNXC_INVALID;
	Node *p = &G->nodes[n];
	for (uint32_t k = 0; k < p->nargs; k++)
		pl_bump(c, g, &G->args[p->args + k], -1);
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

onnxc_status
h_replace_uses(onnxc_ctx *c, onnxc_graph g, onnxc_value from, onnxc_value to)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_okval(G, from) || !pl_okval(G, to))
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
	uint32_t *u = pl_uses(c, g, false);
	if (u) {
		u[to] += u[from];
		u[from] = 0;
	}
	return ONNXC_OK;
}

onnxc_status
h_value_set_type(onnxc_ctx *c, onnxc_graph g, onnxc_value v, uint32_t dtype,
    int32_t rank, const onnxc_dim *dims)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_okval(G, v) || dtype >= DT_COUNT || rank < -1 ||
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

onnxc_status
h_value_set_sym(onnxc_ctx *c, onnxc_graph g, onnxc_value v, uint32_t kind,
    onnxc_expr e)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_okval(G, v) || !pl_okexpr(c->m, e) ||
	    (kind != ONNXC_VK_SYMINT && kind != ONNXC_VK_SYMFLOAT &&
	    kind != ONNXC_VK_SYMBOOL))
		return ONNXC_INVALID;
	Value *p = &G->vals[v];
	p->kind = (uint8_t)kind;
	p->dtype = DT_UNDEF;
	p->sym = e;
	return ONNXC_OK;
}

onnxc_status
h_value_set_name(onnxc_ctx *c, onnxc_graph g, onnxc_value v, const char *name)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_okval(G, v) || !pl_okname(name))
		return ONNXC_INVALID;
	G->vals[v].name = ir_intern(c->m, name);
	return ONNXC_OK;
}

/* A tensor's byte size, or false when the shape is not acceptable. */
bool
pl_tensor_size(uint32_t dtype, int32_t rank, const int64_t *dims, uint64_t *nb)
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

TensorId
pl_new_tensor(Module *m, uint32_t dtype, int32_t rank, const int64_t *dims,
    const void *data)
{
	uint64_t nb;
	if (!pl_tensor_size(dtype, rank, dims, &nb) || (nb && !data))
		return 0;
	void *copy = arena_alloc(m->arena, nb ? nb : 1);
	if (nb)
		memcpy(copy, data, nb);
	Tensor t = {.dtype = (uint8_t)dtype, .rank = rank,
		.dims = (int64_t *)dims, .data = copy, .nbytes = nb};
	return ir_tensor(m, &t);
}

onnxc_tensor
h_tensor_new(onnxc_ctx *c, uint32_t dtype, int32_t rank, const int64_t *dims,
    const void *data)
{
	return c ? pl_new_tensor(c->m, dtype, rank, dims, data) : 0;
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
	/* a big one by where its bytes are: see ONNXC_BIG_TENSOR */
	if (t->nbytes >= ONNXC_BIG_TENSOR)
		return h ^ ir_hash(&t->data, sizeof t->data) * 1031u;
	return h ^ ir_hash(t->data, t->nbytes) * 1031u;
}

static bool
same_tensor(const Tensor *a, const Tensor *b)
{
	return a->dtype == b->dtype && a->rank == b->rank &&
	    a->nbytes == b->nbytes && (a->rank <= 0 || !memcmp(a->dims,
	    b->dims, (size_t)a->rank * sizeof *a->dims)) &&
	    (a->data == b->data || (a->nbytes < ONNXC_BIG_TENSOR &&
	    !memcmp(a->data, b->data, a->nbytes)));
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
			ir_oom(0);
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

onnxc_value
h_constant_input(onnxc_ctx *c, onnxc_graph g, const char *name,
    onnxc_tensor t)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_okname(name) || t == 0 || t >= c->m->ntensors)
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

onnxc_expr
h_expr_int(onnxc_ctx *c, int64_t n)
{
	return c ? ir_expr_int(c->m, n) : 0;
}

onnxc_expr
h_expr_sym(onnxc_ctx *c, const char *name)
{
	if (!c || !pl_okname(name))
		return 0;
	return ir_expr_sym(c->m, name);
}

onnxc_expr
h_expr_op(onnxc_ctx *c, uint32_t kind, onnxc_expr a, onnxc_expr b)
{
	if (!c || !pl_okexpr(c->m, a))
		return 0;
	switch (kind) {
	case E_NEG: case E_TOFLOAT: case E_NOT:
		return b ? 0 : ir_expr_bin(c->m, (ExprKind)kind, a, 0);
	case E_ADD: case E_MUL: case E_FLOORDIV: case E_MOD: case E_POW:
	case E_MAX: case E_MIN: case E_TRUEDIV: case E_EQ: case E_NE:
	case E_LT: case E_LE: case E_GT: case E_GE: case E_AND: case E_OR:
		return pl_okexpr(c->m, b)
		    ? ir_expr_bin(c->m, (ExprKind)kind, a, b) : 0;
	default: /* numbers, symbols and calls have their own makers */
		return 0;
	}
}

onnxc_status
h_expr_get(onnxc_ctx *c, onnxc_expr e, onnxc_expr_info *out)
{
	if (!c || !out || !pl_okexpr(c->m, e))
		return ONNXC_INVALID;
	const Expr *p = &c->m->exprs[e];
	*out = (onnxc_expr_info){.kind = p->kind, .str = p->str, .a = p->a,
		.b = p->b, .n = p->n, .f = p->f};
	return ONNXC_OK;
}

int
h_expr_print(onnxc_ctx *c, onnxc_expr e, char *buf, size_t cap)
{
	if (!c || !pl_okexpr(c->m, e) || (cap && !buf))
		return -1;
	return ir_expr_print(c->m, e, buf, cap);
}

/* ------------------------------------------------ ABI 1.1: symbolic */

onnxc_expr
h_expr_simplify(onnxc_ctx *c, onnxc_expr e)
{
	return c && pl_okexpr(c->m, e) ? sym_simplify(c->m, e) : 0;
}

onnxc_status
h_expr_eval(onnxc_ctx *c, onnxc_expr e, const onnxc_expr *syms,
    const int64_t *vals, uint32_t n, int64_t *out)
{
	if (!c || !pl_okexpr(c->m, e) || !out || (n && (!syms || !vals)) ||
	    n > (1u << 20))
		return ONNXC_INVALID;
	for (uint32_t i = 0; i < n; i++)
		if (!pl_okexpr(c->m, syms[i]))
			return ONNXC_INVALID;
	ArenaMark mk = arena_mark(c->m->scratch);
	SymBind *b = arena_try_array(c->m->scratch, n + 1, sizeof *b);
	if (!b)
		return ONNXC_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		b[i] = (SymBind){syms[i], vals[i]};
	int rc = sym_eval(c->m, e, b, n, out);
	arena_release(c->m->scratch, mk);
	return rc == 0 ? ONNXC_OK : ONNXC_ERROR;
}

onnxc_expr
h_expr_subst(onnxc_ctx *c, onnxc_expr e, onnxc_expr sym, onnxc_expr repl)
{
	if (!c || !pl_okexpr(c->m, e) || !pl_okexpr(c->m, sym) ||
	    !pl_okexpr(c->m, repl))
		return 0;
	return sym_subst(c->m, e, sym, repl);
}

int
h_expr_mentions(onnxc_ctx *c, onnxc_expr e, onnxc_expr sub)
{
	if (!c || !pl_okexpr(c->m, e) || !pl_okexpr(c->m, sub))
		return 0;
	return sym_mentions(c->m, e, sub);
}

uint32_t
h_range_count(onnxc_ctx *c)
{
	return c ? c->m->nrng : 0;
}

onnxc_status
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

onnxc_status
h_range_set(onnxc_ctx *c, uint32_t i, onnxc_expr e, int64_t lo, int64_t hi)
{
	if (!c || !c->pass || c->site || i > c->m->nrng ||
	    !pl_okexpr(c->m, e) || lo > hi)
		return ONNXC_INVALID;
	if (i < c->m->nrng) {
		c->m->rng[i] = (SymRange){e, lo, hi};
		sym_range_reindex(c->m);
	} else
		sym_range_set(c->m, e, lo, hi); /* appends, or updates e's */
	return ONNXC_OK;
}

onnxc_status
h_range_erase(onnxc_ctx *c, uint32_t i)
{
	if (!c || !c->pass || c->site || i >= c->m->nrng)
		return ONNXC_INVALID;
	Module *m = c->m;
	memmove(&m->rng[i], &m->rng[i + 1],
	    (m->nrng - i - 1) * sizeof *m->rng);
	m->nrng--;
	sym_range_reindex(m);
	return ONNXC_OK;
}

onnxc_status
h_node_set_origin(onnxc_ctx *c, onnxc_graph g, onnxc_node n,
    onnxc_node from)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_live(G, n) || from == 0 || from >= G->nnodes)
		return ONNXC_INVALID;
	/* from may be erased already: a rewrite erases what it replaces */
	G->nodes[n].loc = G->nodes[from].loc;
	G->nodes[n].trace = G->nodes[from].trace;
	G->nodes[n].scope = G->nodes[from].scope;
	if (!G->nodes[n].name)
		G->nodes[n].name = G->nodes[from].name;
	return ONNXC_OK;
}

onnxc_status
h_node_set_name(onnxc_ctx *c, onnxc_graph g, onnxc_node n, const char *name)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_live(G, n) || !name || strnlen(name, MAXNAME) == MAXNAME)
		return ONNXC_INVALID;
	G->nodes[n].name = ir_intern(c->m, name);
	return ONNXC_OK;
}

onnxc_status
h_output_set(onnxc_ctx *c, onnxc_graph g, uint32_t i, onnxc_value v)
{
	Graph *G = pl_mutable(c, g);
	if (!G || i >= G->noutputs || !pl_okval(G, v))
		return ONNXC_INVALID;
	uint32_t *u = pl_uses(c, g, false);
	if (u) {
		if (u[G->outputs[i]])
			u[G->outputs[i]]--;
		u[v]++;
	}
	G->outputs[i] = v;
	return ONNXC_OK;
}

onnxc_status
h_input_erase(onnxc_ctx *c, onnxc_graph g, onnxc_value v)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_okval(G, v))
		return ONNXC_INVALID;
	const Value *p = &G->vals[v];
	uint32_t i = 0;
	while (i < G->ninputs && G->inputs[i] != v)
		i++;
	if (i == G->ninputs || !p->init || p->role == ROLE_USER_INPUT ||
	    (c->training && (p->role == ROLE_PARAM || p->role == ROLE_BUFFER))
	    || pl_uses(c, g, true)[v])
		return ONNXC_INVALID;
	memmove(&G->inputs[i], &G->inputs[i + 1],
	    (G->ninputs - i - 1) * sizeof *G->inputs);
	G->ninputs--;
	/* the name and content indexes are rebuilt when next needed */
	c->named_g = 0;
	return ONNXC_OK;
}
