/* graph.c - building and reading graphs, args and element types. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

GraphId
ir_graph_new(Module *m, const char *name, GraphId parent)
{
	Graph *g = xrealloc(NULL, sizeof *g);
	memset(g, 0, sizeof *g);
	g->name = ir_intern(m, name);
	g->parent = parent;
	/* index 0 of each table means "none" */
	vgrow((void **)&g->vals, &g->cvals, 1, sizeof *g->vals);
	g->vals[0].rank = -1;
	g->nvals = 1;
	vgrow((void **)&g->nodes, &g->cnodes, 1, sizeof *g->nodes);
	g->nnodes = 1;
	vgrow((void **)&g->dims, &g->cdims, 1, sizeof *g->dims);
	g->ndims = 1;
	vgrow((void **)&m->graphs, &m->cgraphs, m->ngraphs + 1,
	    sizeof *m->graphs);
	m->graphs[m->ngraphs] = g;
	return m->ngraphs++;
}

Graph *
ir_graph(const Module *m, GraphId g)
{
	if (g == 0 || g >= m->ngraphs)
		BUG("bad GraphId %u", g);
	return m->graphs[g];
}

/* Room for that many more nodes, values and args without growing: a
 * table that doubles as it fills touches twice its size in fresh memory
 * (each copy lands in new pages), where room never used costs nothing but
 * address space. */
void
ir_reserve(Graph *g, uint32_t nodes, uint32_t vals, uint32_t args)
{
	uint64_t n = (uint64_t)g->nnodes + nodes, v = (uint64_t)g->nvals + vals,
	    a = (uint64_t)g->nargs + args;
	if (n > UINT32_MAX / 2 || v > UINT32_MAX / 2 || a > UINT32_MAX / 2)
		return; /* growth says "too large" when it gets there */
	vgrow_nz((void **)&g->nodes, &g->cnodes, (uint32_t)n, sizeof *g->nodes);
	vgrow_nz((void **)&g->vals, &g->cvals, (uint32_t)v, sizeof *g->vals);
	vgrow_nz((void **)&g->args, &g->cargs, (uint32_t)a, sizeof *g->args);
}

ValId
ir_value(Graph *g, StrId name)
{
	if (g->nvals >= g->cvals)  /* the call only when full */
		vgrow_nz((void **)&g->vals, &g->cvals, g->nvals + 1,
		    sizeof *g->vals);
	Value *v = &g->vals[g->nvals];
	memset(v, 0, sizeof *v);
	v->name = name;
	v->rank = -1;
	return g->nvals++;
}

static uint32_t
shape_hash(const Dim *d, int32_t rank)
{
	uint64_t h = (uint64_t)rank;
	for (int32_t i = 0; i < rank; i++)
		h = (h ^ (uint64_t)d[i].n ^ (uint64_t)d[i].e << 40) *
		    0x9e3779b97f4a7c15u;
	return (uint32_t)(h >> 58) % SHAPE_CACHE;
}

static bool
same_dims(const Dim *a, const Dim *b, int32_t rank)
{
	for (int32_t i = 0; i < rank; i++)
		if (a[i].n != b[i].n || a[i].e != b[i].e)
			return false;
	return true;
}

/* Dims are never written in place, so a value takes the run of an earlier
 * one of the same shape where the cache of recent shapes has it: a graph's
 * values mostly share a few shapes. */
void
ir_set_tensor(Graph *g, ValId v, DType dt, int32_t rank, const Dim *dims)
{
	Value *p = ir_val(g, v);
	p->kind = VK_TENSOR;
	p->dtype = (uint8_t)dt;
	p->rank = rank;
	p->dims = 0;
	if (rank <= 0)
		return;
	uint32_t h = 0;
	if (dims) {
		h = shape_hash(dims, rank);
		uint32_t at = g->shapes[h];
		if (at && (uint64_t)at + (uint32_t)rank <= g->ndims &&
		    same_dims(&g->dims[at], dims, rank)) {
			p->dims = at;
			return;
		}
	}
	/* dims may be a run of this table, which growing can move */
	bool inside = dims && g->dims && dims >= g->dims &&
	    dims < g->dims + g->ndims;
	size_t off = inside ? (size_t)(dims - g->dims) : 0;
	vgrow_nz((void **)&g->dims, &g->cdims, g->ndims + (uint32_t)rank,
	    sizeof *g->dims);
	if (inside)
		dims = g->dims + off;
	p = ir_val(g, v);
	p->dims = g->ndims;
	if (dims) {
		memcpy(&g->dims[g->ndims], dims, (size_t)rank * sizeof *dims);
		g->shapes[h] = g->ndims;
	} else {
		memset(&g->dims[g->ndims], 0, (size_t)rank * sizeof *dims);
	}
	g->ndims += (uint32_t)rank;
}

const Dim *
ir_dims(const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	return p->rank > 0 ? &g->dims[p->dims] : NULL;
}

void
ir_add_input(Graph *g, ValId v)
{
	vgrow((void **)&g->inputs, &g->cinputs, g->ninputs + 1,
	    sizeof *g->inputs);
	g->inputs[g->ninputs++] = v;
}

void
ir_add_output(Graph *g, ValId v, OutKind k, StrId target)
{
	uint32_t cap = g->coutputs;
	vgrow((void **)&g->outputs, &g->coutputs, g->noutputs + 1,
	    sizeof *g->outputs);
	if (g->coutputs != cap) {
		uint32_t c = cap;
		vgrow((void **)&g->outkind, &c, g->coutputs,
		    sizeof *g->outkind);
		c = cap;
		vgrow((void **)&g->outtarget, &c, g->coutputs,
		    sizeof *g->outtarget);
	}
	g->outputs[g->noutputs] = v;
	g->outkind[g->noutputs] = (uint8_t)k;
	g->outtarget[g->noutputs] = target;
	g->noutputs++;
}

NodeId
ir_node(Graph *g, Dialect d, StrId op, uint32_t nout)
{
	if (g->nnodes >= g->cnodes)  /* the call only when full */
		vgrow_nz((void **)&g->nodes, &g->cnodes, g->nnodes + 1,
		    sizeof *g->nodes);
	NodeId id = g->nnodes++;
	Node *n = &g->nodes[id];
	memset(n, 0, sizeof *n);
	n->op = op;
	n->dialect = (uint8_t)d;
	n->args = g->nargs;
	n->nout = nout;
	n->out = g->nvals;
	for (uint32_t i = 0; i < nout; i++) {
		ValId v = ir_value(g, 0);
		g->vals[v].def = id;
		g->vals[v].defidx = i;
	}
	return id;
}

void
ir_push_arg(Graph *g, NodeId n, Arg a)
{
	ir_push_args(g, n, &a, 1);
}

void
ir_push_args(Graph *g, NodeId n, const Arg *a, uint32_t k)
{
	Node *p = ir_nodep(g, n);
	if (n != g->nnodes - 1 || p->args + p->nargs != g->nargs)
		BUG("args pushed to node %u, which is not the last", n);
	if (k == 0)
		return;
	if (k > g->cargs - g->nargs)  /* the call only when full */
		vgrow_nz((void **)&g->args, &g->cargs, g->nargs + k,
		    sizeof *g->args);
	memcpy(&g->args[g->nargs], a, (size_t)k * sizeof *a);
	g->nargs += k;
	p->nargs += k;
}

bool
ir_is_capture(const Graph *g, NodeId n, const Arg *a)
{
	return ir_nodep(g, n)->dialect == D_ONNX && a->key &&
	    a->kind == A_VAL;
}

/* Subgraphs nested deeper are left as they are (ir_verify refuses them). */
enum { MAXNEST = 64 };

/* The names of the captures of node n of g, in order; *k gets their count. */
static StrId *
capture_names(const Graph *g, NodeId n, uint32_t *k)
{
	const Node *p = &g->nodes[n];
	StrId *names = xrealloc(NULL, (p->nargs + 1) * sizeof *names);
	*k = 0;
	for (uint32_t i = 0; i < p->nargs; i++) {
		const Arg *c = &g->args[p->args + i];
		if (ir_is_capture(g, n, c) && c->u.v < g->nvals)
			names[(*k)++] = g->vals[c->u.v].name;
	}
	return names;
}

static void
name_outer(Module *m, const Graph *g, int depth)
{
	for (NodeId n = 1; n < g->nnodes && depth < MAXNEST; n++) {
		const Node *p = &g->nodes[n];
		if (p->dialect != D_ONNX)
			continue;
		for (uint32_t i = 0; i < p->nargs; i++) {
			const Arg *a = &g->args[p->args + i];
			if (a->kind != A_GRAPH || a->u.g == 0 || a->u.g >= m->ngraphs)
				continue;
			Graph *sub = m->graphs[a->u.g];
			uint32_t ncap;
			StrId *names = capture_names(g, n, &ncap);
			for (ValId v = 1; v < sub->nvals; v++)
				if (sub->vals[v].role == ROLE_OUTER &&
				    sub->vals[v].defidx < ncap)
					sub->vals[v].name =
					    names[sub->vals[v].defidx];
			free(names);
			name_outer(m, sub, depth + 1);
		}
	}
}

void
ir_name_outer(Module *m, GraphId g)
{
	name_outer(m, ir_graph(m, g), 0);
}

const Arg *
ir_find_arg(const Module *m, const Graph *g, NodeId n, int i, const char *key)
{
	const Node *p = ir_nodep(g, n);
	if (i >= 0 && (uint32_t)i < p->nargs && g->args[p->args + i].key == 0)
		return &g->args[p->args + i];
	if (!key)
		return NULL;
	for (uint32_t k = 0; k < p->nargs; k++) {
		const Arg *a = &g->args[p->args + k];
		if (a->key && strcmp(ir_str(m, a->key), key) == 0)
			return a;
	}
	return NULL;
}

Arg
ir_list(Graph *g, ArgKind kind, const Arg *items, uint32_t n)
{
	Arg a = {.kind = (uint8_t)kind};
	vgrow((void **)&g->items, &g->citems, g->nitems + n + 1,
	    sizeof *g->items);
	a.u.list.off = g->nitems;
	a.u.list.n = n;
	if (n)
		memcpy(&g->items[g->nitems], items, n * sizeof *items);
	g->nitems += n;
	return a;
}

const Arg *
ir_items(const Graph *g, const Arg *list)
{
	if (list->kind != A_LIST && list->kind != A_TUPLE)
		BUG("not a list");
	return &g->items[list->u.list.off];
}

Arg
arg_none(void)
{
	return (Arg){.kind = A_NONE};
}

Arg
arg_val(ValId v)
{
	return (Arg){.kind = A_VAL, .u.v = v};
}

Arg
arg_int(int64_t i)
{
	return (Arg){.kind = A_INT, .u.i = i};
}

Arg
arg_float(double f)
{
	return (Arg){.kind = A_FLOAT, .u.f = f};
}

Arg
arg_bool(bool b)
{
	return (Arg){.kind = A_BOOL, .u.i = b};
}

Arg
arg_str(StrId s)
{
	return (Arg){.kind = A_STR, .u.s = s};
}

Arg
arg_keyed(Arg a, StrId key)
{
	a.key = key;
	return a;
}

/* FX dtype codes (torch/utils/_dtype_abbrs.py) by DType. */
static const struct {
	const char *code;
	uint8_t size; /* bytes; 0 for sub-byte or strings */
	uint8_t cls;  /* 'f' float, 'i' integer, 'b' bool, other */
} dtinfo[DT_COUNT] = {
	[DT_F32] = {"f32", 4, 'f'},   [DT_U8] = {"u8", 1, 'i'},
	[DT_I8] = {"i8", 1, 'i'},     [DT_U16] = {"u16", 2, 'i'},
	[DT_I16] = {"i16", 2, 'i'},   [DT_I32] = {"i32", 4, 'i'},
	[DT_I64] = {"i64", 8, 'i'},   [DT_STRING] = {"str", 0, 's'},
	[DT_BOOL] = {"b8", 1, 'b'},   [DT_F16] = {"f16", 2, 'f'},
	[DT_F64] = {"f64", 8, 'f'},   [DT_U32] = {"u32", 4, 'i'},
	[DT_U64] = {"u64", 8, 'i'},   [DT_C64] = {"c64", 8, 'c'},
	[DT_C128] = {"c128", 16, 'c'}, [DT_BF16] = {"bf16", 2, 'f'},
	[DT_F8E4M3FN] = {"f8e4m3fn", 1, 'f'},
	[DT_F8E4M3FNUZ] = {"f8e4m3fnuz", 1, 'f'},
	[DT_F8E5M2] = {"f8e5m2", 1, 'f'},
	[DT_F8E5M2FNUZ] = {"f8e5m2fnuz", 1, 'f'},
	[DT_U4] = {"u4", 0, 'i'},     [DT_I4] = {"i4", 0, 'i'},
	[DT_F4E2M1] = {"f4e2m1fnx2", 0, 'f'},
	[DT_F8E8M0] = {"f8e8m0fnu", 1, 'f'},
};

const char *
ir_dtype_name(DType dt)
{
	if ((unsigned)dt >= DT_COUNT || !dtinfo[dt].code)
		return "?";
	return dtinfo[dt].code;
}

DType
ir_dtype_parse(const char *code, size_t n)
{
	for (int d = 1; d < DT_COUNT; d++)
		if (dtinfo[d].code && strlen(dtinfo[d].code) == n &&
		    memcmp(dtinfo[d].code, code, n) == 0)
			return (DType)d;
	return DT_UNDEF;
}

size_t
ir_dtype_size(DType dt)
{
	return (unsigned)dt < DT_COUNT ? dtinfo[dt].size : 0;
}

bool
ir_dtype_is_float(DType dt)
{
	return (unsigned)dt < DT_COUNT && dtinfo[dt].cls == 'f';
}

bool
ir_dtype_is_int(DType dt)
{
	return (unsigned)dt < DT_COUNT && dtinfo[dt].cls == 'i';
}
