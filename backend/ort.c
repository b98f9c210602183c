/* ort.c - the ORT-format backend: a graph of D_ONNX nodes -> .ort bytes.
 *
 * Requires: a graph built by the lower pass (every node D_ONNX, every value
 * named and typed, weights bound to graph inputs through Value.init), and
 * an op schema (opschema.c) for every node.
 * Provides: ONNX Runtime's InferenceSession FlatBuffer (ort.fbs, format
 * version 6, identifier ORTM) as bytes (ort_encode) or a file (ort_write).
 *
 * The file holds the graph as ONNX Runtime keeps it after loading an ONNX
 * model, because minimal builds read it as is, without resolving the graph
 * again (research/ort-format.md):
 * - Constant nodes become initializers named after their output (ORT has
 *   no Constant kernel); initializers no node uses are left out;
 * - every node carries its schema's since_version, the schema defaults of
 *   attributes it leaves out, one input_arg_count per formal input, and an
 *   edge list;
 * - every name has a ValueInfo with its type (and "" one without, when an
 *   optional input is left out in the middle);
 * - the kernel type-string resolver maps each op's type-constraint names
 *   to the formal arguments that carry them.
 * Weights are not copied: raw_data vectors reference the mapped bytes and
 * ort_write streams them into the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <onnxc/table.h>

#include "fbs.h"
#include "opschema.h"
#include "ort.h"

#define ORT_FORMAT_VERSION "6"
/* ONNX Runtime's verifier visits at most this many tables */
#define MAX_TABLES 1000000u
/* what ONNX Runtime 1.30 reads in an .ort Tensor: up to the float8s */
#define MAX_ORT_DTYPE DT_F8E5M2FNUZ
/* raw_data alignment: more than ORT needs (4), kind to zero-copy loads */
#define RAW_ALIGN 16

/* Schema slots (ort.fbs.effective-1.30). */
enum { SESSION_ORT_VERSION, SESSION_MODEL, SESSION_STATE_DEPRECATED,
	SESSION_RESOLVER };
enum { MODEL_IR_VERSION, MODEL_OPSET_IMPORT, MODEL_PRODUCER_NAME,
	MODEL_PRODUCER_VERSION, MODEL_DOMAIN, MODEL_VERSION, MODEL_DOC,
	MODEL_GRAPH, MODEL_GRAPH_DOC, MODEL_METADATA };
enum { GRAPH_INITIALIZERS, GRAPH_NODE_ARGS, GRAPH_NODES,
	GRAPH_MAX_NODE_INDEX, GRAPH_NODE_EDGES, GRAPH_INPUTS, GRAPH_OUTPUTS,
	GRAPH_SPARSE_INITIALIZERS };
enum { NODE_NAME, NODE_DOC, NODE_DOMAIN, NODE_SINCE_VERSION, NODE_INDEX,
	NODE_OP_TYPE, NODE_TYPE, NODE_EP, NODE_INPUTS, NODE_OUTPUTS,
	NODE_ATTRIBUTES, NODE_INPUT_ARG_COUNTS, NODE_IMPLICIT_INPUTS };
enum { EDGE_NODE_INDEX, EDGE_INPUTS, EDGE_OUTPUTS };
enum { VI_NAME, VI_DOC, VI_TYPE };
enum { TYPE_DENOTATION, TYPE_VALUE_TYPE, TYPE_VALUE };
enum { TT_ELEM_TYPE, TT_SHAPE };
enum { DV_TYPE, DV_VALUE, DV_PARAM };
enum { TENSOR_NAME, TENSOR_DOC, TENSOR_DIMS, TENSOR_DATA_TYPE,
	TENSOR_RAW_DATA };
enum { ATTR_NAME, ATTR_DOC, ATTR_TYPE, ATTR_F, ATTR_I, ATTR_S, ATTR_T,
	ATTR_G, ATTR_FLOATS, ATTR_INTS, ATTR_STRINGS };
enum { TYPE_TENSOR = 1 };                           /* TypeInfoValue */
enum { DIM_UNKNOWN, DIM_VALUE, DIM_PARAM };         /* DimensionValueType */
enum { AT_FLOAT = 1, AT_INT, AT_STRING, AT_TENSOR, AT_GRAPH, AT_FLOATS,
	AT_INTS, AT_STRINGS };                      /* AttributeType */

/* A node-to-node edge: output src of node from feeds input dst of to. */
typedef struct Edge {
	uint32_t from, to;
	int32_t src, dst;
} Edge;

/* What one graph (the main one, or a subgraph) becomes. */
typedef struct Plan {
	GraphId gid;
	const Graph *g;
	/* per node (by NodeId) */
	const OpSchema **schema;
	StrId *nodename;     /* Enc.nodenames[gid] */
	uint32_t *index;     /* ORT node index + 1; 0: not a node in .ort */
	/* per value (by ValId) */
	StrId *name;
	TensorId *init;      /* initializer bytes (weights or Constant) */
	uint8_t *needed;     /* 1: read by a node or a graph output, 2: by a
	                      * subgraph of a node (a capture) */
	uint32_t *defnode;   /* ORT index + 1 of the node defining it */
} Plan;

typedef struct Enc {
	Module *m;
	Plan p;              /* the graph being written */
	int opset;
	Fbs *b;
	bool shapes;         /* write the shapes of intermediate values */
	int errs;            /* m->nerrors on entry */
	FbsRef *sref;        /* strings written, by StrId */
	uint32_t nsref;
	FbsRef empty;        /* the empty vector, shared */
	BeNames names;       /* node names taken */
	StrId **nodenames;   /* per GraphId and NodeId: the node's name */
	uint32_t nnodenames;
	/* the op schemas used, for the resolver */
	const OpSchema **ops;
	uint32_t nops, cops;
} Enc;

/* ------------------------------------------------------------- helpers */

static void
internal(Enc *e, const char *f, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	ir_error(e->m, (Loc){0, 0}, "internal error in the ORT backend: %s",
	    buf);
}

static void *
xcalloc(size_t n, size_t sz)
{
	void *p = onnxc_table_calloc(n, sz);
	if (!p)
		ir_oom(0);
	return p;
}

static void
plan_free(Plan *p)
{
	free(p->schema);
	free(p->index);
	free(p->name);
	free(p->init);
	free(p->needed);
	free(p->defnode);
	memset(p, 0, sizeof *p);
}

/* A string of the module, written once and shared. */
static FbsRef
str(Enc *e, StrId s)
{
	vgrow((void **)&e->sref, &e->nsref, s + 1, sizeof *e->sref);
	if (!e->sref[s])
		e->sref[s] = fbs_string(e->b, ir_str(e->m, s));
	return e->sref[s];
}

static FbsRef
cstr(Enc *e, const char *s)
{
	return str(e, ir_intern(e->m, s));
}

static FbsRef
empty_vec(Enc *e)
{
	if (!e->empty)
		e->empty = fbs_vec_refs(e->b, NULL, 0);
	return e->empty;
}


/* --------------------------------------------------------- the graph */

/* Constant nodes whose value is a tensor: ORT keeps them as initializers. */
static TensorId
constant_tensor(Enc *e, NodeId id)
{
	const Node *n = ir_nodep(e->p.g, id);
	if (n->nargs != 1 || n->nout != 1 ||
	    strcmp(ir_str(e->m, n->op), "Constant") != 0 ||
	    (n->domain && *ir_str(e->m, n->domain)))
		return 0;
	const Arg *a = ir_arg(e->p.g, id, 0);
	if (a->kind != A_TENSOR || strcmp(ir_str(e->m, a->key), "value"))
		return 0;
	return a->u.t;
}

/* The inputs a node really has: trailing missing ones are left out. */
static uint32_t
node_inputs(const Graph *g, NodeId id)
{
	uint32_t n = ir_npos(g, id);
	while (n > 0 && ir_arg(g, id, n - 1)->kind == A_NONE)
		n--;
	return n;
}

static void
note_op(Enc *e, const OpSchema *s)
{
	for (uint32_t i = 0; i < e->nops; i++)
		if (e->ops[i] == s)
			return;
	vgrow((void **)&e->ops, &e->cops, e->nops + 1, sizeof *e->ops);
	e->ops[e->nops++] = s;
}

/* Decide what becomes what: value names, initializers, node indices and
 * schemas.  Returns false after reporting. */
static bool
plan(Enc *e)
{
	Module *m = e->m;
	const Graph *g = e->p.g;
	e->p.schema = xcalloc(g->nnodes, sizeof *e->p.schema);
	e->p.index = xcalloc(g->nnodes, sizeof *e->p.index);
	e->p.nodename = e->nodenames[e->p.gid];
	e->p.name = xcalloc(g->nvals, sizeof *e->p.name);
	e->p.init = xcalloc(g->nvals, sizeof *e->p.init);
	e->p.needed = xcalloc(g->nvals, 1);
	e->p.defnode = xcalloc(g->nvals, sizeof *e->p.defnode);

	for (ValId v = 1; v < g->nvals; v++) {
		const Value *p = ir_val(g, v);
		if (p->name) {
			e->p.name[v] = p->name;
		} else {
			char buf[32];
			snprintf(buf, sizeof buf, "_v%u", v);
			e->p.name[v] = ir_intern(m, buf);
		}
	}
	for (uint32_t i = 0; i < g->ninputs; i++)
		e->p.init[g->inputs[i]] = ir_val(g, g->inputs[i])->init;
	for (uint32_t i = 0; i < g->noutputs; i++)
		e->p.needed[g->outputs[i]] = 1;

	bool ok = true;
	uint32_t next = 0;
	for (NodeId id = 1; id < g->nnodes; id++) {
		const Node *n = ir_nodep(g, id);
		const char *op = ir_str(m, n->op);
		if (n->dialect != D_ONNX) {
			internal(e, "node '%s' (%s) was not lowered to ONNX",
			    ir_str(m, n->name), op);
			ok = false;
			continue;
		}
		TensorId t = constant_tensor(e, id);
		if (t) {
			e->p.init[n->out] = t;
			continue;
		}
		const char *dom = n->domain ? ir_str(m, n->domain) : "";
		const OpSchema *s = opschema_find(dom, op, e->opset);
		if (!s) {
			ir_error(m, n->loc, "onnxc has no schema for %s%s%s in "
			    "opset %d, so it cannot write it to an .ort file",
			    dom, *dom ? "::" : "", op, e->opset);
			ok = false;
			continue;
		}
		e->p.schema[id] = s;
		note_op(e, s);
		e->p.index[id] = ++next;
		for (uint32_t k = 0; k < n->nout; k++)
			e->p.defnode[n->out + k] = next;
		uint32_t nin = node_inputs(g, id);
		for (uint32_t i = 0; i < n->nargs; i++) {
			const Arg *a = ir_arg(g, id, i);
			if (a->kind == A_VAL && i < nin)
				e->p.needed[a->u.v] |= 1;
			else if (a->kind == A_VAL && ir_is_capture(g, id, a))
				e->p.needed[a->u.v] |= 2;
		}
	}
	return ok;
}

/* ------------------------------------------------------------- types */

static FbsRef
dim(Enc *e, bool known, int64_t n, const char *param)
{
	FbsRef ps = param ? fbs_string(e->b, param) : 0;
	fbs_table(e->b);
	if (known)
		fbs_i64(e->b, DV_VALUE, n, 0);
	fbs_ref(e->b, DV_PARAM, ps);
	fbs_u8(e->b, DV_TYPE, param ? DIM_PARAM : known ? DIM_VALUE
	    : DIM_UNKNOWN, DIM_UNKNOWN);
	FbsRef dv = fbs_end(e->b);
	fbs_table(e->b);
	fbs_ref(e->b, 0, dv);
	return fbs_end(e->b);
}

/* TypeInfo of a tensor; the shape from d (IR dims) or nd (numbers), none
 * when rank < 0 or !withshape. */
static FbsRef
type_info(Enc *e, DType dt, int32_t rank, const Dim *d, const int64_t *nd,
    bool withshape)
{
	FbsRef shape = 0;
	if (withshape && rank >= 0) {
		FbsRef *dims = xcalloc((size_t)rank, sizeof *dims);
		for (int32_t i = 0; i < rank; i++) {
			if (nd) {
				dims[i] = dim(e, true, nd[i], NULL);
			} else if (d[i].e &&
			    ir_exprp(e->m, d[i].e)->kind == E_INT) {
				dims[i] = dim(e, true,
				    ir_exprp(e->m, d[i].e)->n, NULL);
			} else if (d[i].e) {
				dims[i] = dim(e, false, 0,
				    ir_dim_text(e->m, d[i]));
			} else {
				dims[i] = dim(e, d[i].n >= 0, d[i].n, NULL);
			}
		}
		FbsRef v = fbs_vec_refs(e->b, dims, (uint32_t)rank);
		free(dims);
		fbs_table(e->b);
		fbs_ref(e->b, 0, v);
		shape = fbs_end(e->b);
	}
	fbs_table(e->b);
	fbs_ref(e->b, TT_SHAPE, shape);
	fbs_i32(e->b, TT_ELEM_TYPE, dt, 0);
	FbsRef tt = fbs_end(e->b);
	fbs_table(e->b);
	fbs_ref(e->b, TYPE_VALUE, tt);
	fbs_u8(e->b, TYPE_VALUE_TYPE, TYPE_TENSOR, 0);
	return fbs_end(e->b);
}

static FbsRef
value_info(Enc *e, StrId name, FbsRef type)
{
	FbsRef n = str(e, name);
	fbs_table(e->b);
	fbs_ref(e->b, VI_NAME, n);
	fbs_ref(e->b, VI_TYPE, type);
	return fbs_end(e->b);
}

/* ------------------------------------------------------------ tensors */

/* Bytes raw_data of dt and numel elements takes; false for types it
 * cannot hold or on overflow. */
static bool
raw_size(DType dt, uint64_t numel, uint64_t *out)
{
	size_t sz = ir_dtype_size(dt);
	if (sz == 0 || numel > UINT64_MAX / sz)
		return false;
	*out = numel * sz;
	return true;
}

/* Whether t can go into an .ort Tensor; reports why not. */
static bool
tensor_ok(Enc *e, const Tensor *t, StrId name)
{
	DType dt = (DType)t->dtype;
	const char *nm = ir_str(e->m, name ? name : t->name);
	if (dt > MAX_ORT_DTYPE && dt < DT_COUNT) {
		ir_error(e->m, (Loc){0, 0}, "tensor '%s' is %s, which the .ort "
		    "format of ONNX Runtime 1.30 cannot hold (its types stop "
		    "at the float8 ones); write ONNX instead", nm,
		    ir_dtype_name(dt));
		return false;
	}
	uint64_t numel = 1, need;
	bool ok = dt > DT_UNDEF && dt < DT_COUNT && dt != DT_STRING &&
	    t->rank >= 0;
	for (int32_t i = 0; ok && i < t->rank; i++) {
		if (t->dims[i] < 0 || (t->dims[i] &&
		    numel > UINT64_MAX / (uint64_t)t->dims[i]))
			ok = false;
		else
			numel *= (uint64_t)t->dims[i];
	}
	if (!ok || !raw_size(dt, numel, &need)) {
		ir_error(e->m, (Loc){0, 0}, "cannot write tensor '%s' of type "
		    "%s to an .ort file", nm, ir_dtype_name(dt));
		return false;
	}
	if (need != t->nbytes || (need && !t->data)) {
		internal(e, "tensor '%s' has %llu bytes, its type and shape "
		    "need %llu", nm, (unsigned long long)t->nbytes,
		    (unsigned long long)need);
		return false;
	}
	return true;
}

static FbsRef
tensor(Enc *e, const Tensor *t, StrId name)
{
	if (!tensor_ok(e, t, name))
		return 0;
	FbsRef raw = fbs_vec_blob(e->b, t->data, t->nbytes, RAW_ALIGN);
	FbsRef dims = fbs_vec_scalars(e->b, t->dims, (uint32_t)t->rank, 8);
	FbsRef nm = name ? str(e, name) : 0;
	fbs_table(e->b);
	fbs_ref(e->b, TENSOR_NAME, nm);
	fbs_ref(e->b, TENSOR_DIMS, dims);
	fbs_i32(e->b, TENSOR_DATA_TYPE, t->dtype, 0);
	fbs_ref(e->b, TENSOR_RAW_DATA, raw);
	return fbs_end(e->b);
}

/* --------------------------------------------------------- attributes */

static bool
is_int_item(const Arg *a)
{
	return a->kind == A_INT || a->kind == A_BOOL || a->kind == A_DTYPE;
}

/* Node names of graph gid and its subgraphs, in the ONNX backend's order
 * (a node, then the nodes of its subgraphs; Constants included), so that
 * both files name each node alike. */
static void
name_nodes(Enc *e, GraphId gid, int depth)
{
	const Graph *g = ir_graph(e->m, gid);
	vgrow((void **)&e->nodenames, &e->nnodenames, gid + 1,
	    sizeof *e->nodenames);
	if (e->nodenames[gid] || depth > 64)
		return;         /* (ir_verify refuses cycles) */
	e->nodenames[gid] = xcalloc(g->nnodes, sizeof **e->nodenames);
	for (NodeId id = 1; id < g->nnodes; id++) {
		const Node *n = ir_nodep(g, id);
		e->nodenames[gid][id] = be_node_name(e->m, &e->names,
		    n->name ? n->name : n->op);
		for (uint32_t i = 0; i < n->nargs; i++)
			if (ir_arg(g, id, i)->kind == A_GRAPH)
				name_nodes(e, ir_arg(g, id, i)->u.g, depth + 1);
	}
}

static bool plan(Enc *e);
static FbsRef graph(Enc *e);

/* A Graph attribute: subgraph gid as a Graph table of its own, its plan
 * swapped in for the time being.  Values it reads from the graphs around
 * it are among its node args (with their types), as ONNX Runtime saves
 * them, and are its owner's implicit inputs. */
static FbsRef
subgraph(Enc *e, GraphId gid)
{
	Plan outer = e->p;
	memset(&e->p, 0, sizeof e->p);
	e->p.gid = gid;
	e->p.g = ir_graph(e->m, gid);
	FbsRef r = plan(e) ? graph(e) : 0;
	plan_free(&e->p);
	e->p = outer;
	return r;
}

static FbsRef
attribute(Enc *e, NodeId id, const Arg *a)
{
	const Graph *g = e->p.g;
	const char *op = ir_str(e->m, ir_nodep(g, id)->op);
	const char *key = ir_str(e->m, a->key);
	int type = 0;
	int64_t i = 0;
	float f = 0;
	FbsRef s = 0, t = 0, list = 0, sub = 0;
	int listslot = 0;
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:   /* DType numbers are ONNX's: Cast(to=...) */
		type = AT_INT;
		i = a->u.i;
		break;
	case A_FLOAT:
		type = AT_FLOAT;
		f = (float)a->u.f;
		break;
	case A_STR:
		type = AT_STRING;
		s = str(e, a->u.s);
		break;
	case A_TENSOR:
		type = AT_TENSOR;
		t = tensor(e, ir_tensorp(e->m, a->u.t), 0);
		if (!t)
			return 0;
		break;
	case A_GRAPH:
		type = AT_GRAPH;
		if (!(sub = subgraph(e, a->u.g)))
			return 0;
		break;
	case A_LIST:
	case A_TUPLE: {
		const Arg *it = ir_items(g, a);
		uint32_t cnt = a->u.list.n, nint = 0, nnum = 0, nstr = 0;
		for (uint32_t k = 0; k < cnt; k++) {
			nint += is_int_item(&it[k]);
			nnum += is_int_item(&it[k]) || it[k].kind == A_FLOAT;
			nstr += it[k].kind == A_STR;
		}
		if (nint == cnt) {      /* also the empty list */
			int64_t *v = xcalloc(cnt, sizeof *v);
			for (uint32_t k = 0; k < cnt; k++)
				v[k] = it[k].u.i;
			list = fbs_vec_scalars(e->b, v, cnt, 8);
			free(v);
			type = AT_INTS;
			listslot = ATTR_INTS;
		} else if (nnum == cnt) {
			float *v = xcalloc(cnt, sizeof *v);
			for (uint32_t k = 0; k < cnt; k++)
				v[k] = it[k].kind == A_FLOAT ? (float)it[k].u.f
				    : (float)it[k].u.i;
			list = fbs_vec_scalars(e->b, v, cnt, 4);
			free(v);
			type = AT_FLOATS;
			listslot = ATTR_FLOATS;
		} else if (nstr == cnt) {
			FbsRef *v = xcalloc(cnt, sizeof *v);
			for (uint32_t k = 0; k < cnt; k++)
				v[k] = str(e, it[k].u.s);
			list = fbs_vec_refs(e->b, v, cnt);
			free(v);
			type = AT_STRINGS;
			listslot = ATTR_STRINGS;
		} else {
			internal(e, "attribute '%s' of %s is a list of mixed "
			    "kinds", key, op);
			return 0;
		}
		break;
	}
	default:
		internal(e, "attribute '%s' of %s has an unsupported kind %d",
		    key, op, a->kind);
		return 0;
	}
	FbsRef name = str(e, a->key);
	fbs_table(e->b);
	fbs_i64(e->b, ATTR_I, i, 0);
	fbs_ref(e->b, ATTR_NAME, name);
	fbs_i32(e->b, ATTR_TYPE, type, 0);
	fbs_f32(e->b, ATTR_F, f, 0);
	fbs_ref(e->b, ATTR_S, s);
	fbs_ref(e->b, ATTR_T, t);
	fbs_ref(e->b, ATTR_G, sub);
	if (list)
		fbs_ref(e->b, listslot, list);
	return fbs_end(e->b);
}

/* A schema default the node leaves out, as ORT fills it in. */
static FbsRef
default_attribute(Enc *e, const OpAttr *d)
{
	FbsRef name = str(e, ir_internn(e->m, d->name, (size_t)d->namelen));
	FbsRef s = d->kind == OAK_STRING
	    ? fbs_stringn(e->b, d->s, (size_t)d->slen) : 0;
	fbs_table(e->b);
	if (d->kind == OAK_INT)
		fbs_i64(e->b, ATTR_I, d->i, 0);
	fbs_ref(e->b, ATTR_NAME, name);
	fbs_i32(e->b, ATTR_TYPE, d->kind == OAK_INT ? AT_INT
	    : d->kind == OAK_FLOAT ? AT_FLOAT : AT_STRING, 0);
	if (d->kind == OAK_FLOAT)
		fbs_f32(e->b, ATTR_F, (float)d->f, 0);
	fbs_ref(e->b, ATTR_S, s);
	return fbs_end(e->b);
}

/* -------------------------------------------------------------- nodes */

static FbsRef
node(Enc *e, NodeId id)
{
	Module *m = e->m;
	const Graph *g = e->p.g;
	const Node *n = ir_nodep(g, id);
	const OpSchema *s = e->p.schema[id];
	const char *op = ir_str(m, n->op);

	uint32_t nin = node_inputs(g, id);
	int32_t counts[OPSCHEMA_MAX_PARAMS];
	int nformal = opschema_arg_counts(s, nin, counts);
	if (nformal < 0) {
		internal(e, "%s has %u inputs, more than %s-%d takes", op, nin,
		    op, s->since);
		return 0;
	}
	FbsRef *refs = xcalloc(nin + n->nout + n->nargs + OPSCHEMA_MAX_PARAMS,
	    sizeof *refs);
	FbsRef ins = 0, outs, attrs, argc, nm, opname, dom = 0;
	for (uint32_t i = 0; i < nin; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (a->kind == A_VAL) {
			refs[i] = str(e, e->p.name[a->u.v]);
		} else if (a->kind == A_NONE) {
			refs[i] = str(e, 0);
		} else {
			internal(e, "input %u of %s is not a value", i, op);
			goto fail;
		}
	}
	ins = fbs_vec_refs(e->b, refs, nin);
	for (uint32_t k = 0; k < n->nout; k++)
		refs[k] = str(e, e->p.name[n->out + k]);
	outs = fbs_vec_refs(e->b, refs, n->nout);

	/* attributes as given, then the schema's defaults for the rest */
	uint32_t na = 0, npos = ir_npos(g, id);
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (!a->key) {
			internal(e, "%s has a positional argument after "
			    "attributes", op);
			goto fail;
		}
		if (ir_is_capture(g, id, a))
			continue;
		if (!(refs[na++] = attribute(e, id, a)))
			goto fail;
	}
	OpAttr defs[OPSCHEMA_MAX_PARAMS];
	int nd = opschema_attrs(s, defs);
	for (int k = 0; k < nd; k++) {
		if (!defs[k].has_default)
			continue;
		StrId key = ir_internn(m, defs[k].name,
		    (size_t)defs[k].namelen);
		bool given = false;
		for (uint32_t i = npos; i < n->nargs && !given; i++)
			given = ir_arg(g, id, i)->key == key;
		if (!given)
			refs[na++] = default_attribute(e, &defs[k]);
	}
	attrs = fbs_vec_refs(e->b, refs, na);
	argc = fbs_vec_scalars(e->b, counts, (uint32_t)nformal, 4);
	char name[BE_NODE_NAME_MAX];
	nm = cstr(e, be_node_text(m, e->p.nodename[id], name, NULL));
	opname = str(e, n->op);
	dom = str(e, 0);    /* "" for ai.onnx: the only domain with schemas */
	/* the outer values its subgraphs read: its captures, each once */
	uint32_t ni = 0;
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (!ir_is_capture(g, id, a))
			continue;
		FbsRef r = str(e, e->p.name[a->u.v]);
		uint32_t k = 0;
		while (k < ni && refs[k] != r)
			k++;
		if (k == ni)
			refs[ni++] = r;
	}
	FbsRef implicit = ni ? fbs_vec_refs(e->b, refs, ni) : empty_vec(e);

	fbs_table(e->b);
	fbs_ref(e->b, NODE_NAME, nm);
	fbs_ref(e->b, NODE_DOMAIN, dom);
	fbs_i32(e->b, NODE_SINCE_VERSION, s->since, 0);
	fbs_u32(e->b, NODE_INDEX, e->p.index[id] - 1, 0);
	fbs_ref(e->b, NODE_OP_TYPE, opname);
	fbs_ref(e->b, NODE_INPUTS, ins);
	fbs_ref(e->b, NODE_OUTPUTS, outs);
	fbs_ref(e->b, NODE_ATTRIBUTES, attrs);
	fbs_ref(e->b, NODE_INPUT_ARG_COUNTS, argc);
	fbs_ref(e->b, NODE_IMPLICIT_INPUTS, implicit);
	free(refs);
	return fbs_end(e->b);
fail:
	free(refs);
	return 0;
}

static int
cmp_in(const void *a, const void *b)
{
	const Edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int
cmp_out(const void *a, const void *b)
{
	const Edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* EdgeEnd structs {other node, src arg, dst arg}, little-endian. */
static FbsRef
edge_ends(Enc *e, const Edge *ed, uint32_t n, bool in)
{
	uint8_t *buf = xcalloc(n, 12);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w[3] = {in ? ed[i].from : ed[i].to,
		    (uint32_t)ed[i].src, (uint32_t)ed[i].dst};
		for (int k = 0; k < 12; k++)
			buf[12 * i + k] = (uint8_t)(w[k / 4] >> (8 * (k % 4)));
	}
	FbsRef r = fbs_vec_structs(e->b, buf, n, 12, 4);
	free(buf);
	return r;
}

/* One NodeEdge per node (ORT index order), both directions. */
static FbsRef
node_edges(Enc *e, uint32_t nnodes)
{
	const Graph *g = e->p.g;
	Edge *in = NULL;
	uint32_t nedges = 0, cedges = 0;
	for (NodeId id = 1; id < g->nnodes; id++) {
		if (!e->p.index[id])
			continue;
		uint32_t nin = node_inputs(g, id);
		for (uint32_t i = 0; i < nin; i++) {
			const Arg *a = ir_arg(g, id, i);
			if (a->kind != A_VAL || !e->p.defnode[a->u.v])
				continue;
			vgrow((void **)&in, &cedges, nedges + 1, sizeof *in);
			in[nedges++] = (Edge){e->p.defnode[a->u.v] - 1,
			    e->p.index[id] - 1,
			    (int32_t)ir_val(g, a->u.v)->defidx, (int32_t)i};
		}
	}
	Edge *out = xcalloc(nedges, sizeof *out);
	if (nedges)
		memcpy(out, in, nedges * sizeof *out);
	if (nedges) {
		qsort(in, nedges, sizeof *in, cmp_in);
		qsort(out, nedges, sizeof *out, cmp_out);
	}
	FbsRef *refs = xcalloc(nnodes, sizeof *refs);
	uint32_t ii = 0, oi = 0;
	for (uint32_t k = 0; k < nnodes; k++) {
		uint32_t i0 = ii, o0 = oi;
		while (ii < nedges && in[ii].to == k)
			ii++;
		while (oi < nedges && out[oi].from == k)
			oi++;
		FbsRef ie = edge_ends(e, in + i0, ii - i0, true);
		FbsRef oe = edge_ends(e, out + o0, oi - o0, false);
		fbs_table(e->b);
		fbs_u32(e->b, EDGE_NODE_INDEX, k, 0);
		fbs_ref(e->b, EDGE_INPUTS, ie);
		fbs_ref(e->b, EDGE_OUTPUTS, oe);
		refs[k] = fbs_end(e->b);
	}
	FbsRef r = fbs_vec_refs(e->b, refs, nnodes);
	free(refs);
	free(in);
	free(out);
	return r;
}

/* ------------------------------------------------------------- graph */

/* Every name defined once: a clash makes ORT refuse the file. */
static bool
mark_defined(Enc *e, uint8_t **seen, uint32_t *cap, StrId s)
{
	vgrow((void **)seen, cap, s + 1, 1);
	if ((*seen)[s]) {
		internal(e, "graph '%s' defines '%s' twice",
		    ir_str(e->m, e->p.g->name), ir_str(e->m, s));
		return false;
	}
	(*seen)[s] = 1;
	return true;
}

static FbsRef
node_args(Enc *e)
{
	Module *m = e->m;
	const Graph *g = e->p.g;
	FbsRef *refs = xcalloc(g->nvals + 1, sizeof *refs);
	uint8_t *isio = xcalloc(g->nvals, 1);
	uint8_t *seen = NULL;
	uint32_t cap = 0, n = 0;
	bool ok = true, hole = false;
	for (uint32_t i = 0; i < g->ninputs; i++)
		isio[g->inputs[i]] = 1;
	for (uint32_t i = 0; i < g->noutputs; i++)
		isio[g->outputs[i]] = 1;
	for (ValId v = 1; ok && v < g->nvals; v++) {
		const Value *p = ir_val(g, v);
		bool input = p->def == 0 && isio[v];
		/* ORT lists an outer value where a node reads it, not where
		 * only a subgraph does (that is the owner's implicit input) */
		bool outer = p->role == ROLE_OUTER && (e->p.needed[v] & 1);
		if (outer && e->p.name[v] < cap && seen[e->p.name[v]])
			continue;       /* one capture passed twice */
		if (!e->p.defnode[v] && !input && !e->p.init[v] && !outer)
			continue;       /* not in the .ort graph */
		if (e->p.init[v] && !e->p.needed[v])
			continue;       /* an initializer no one reads */
		if (!mark_defined(e, &seen, &cap, e->p.name[v])) {
			ok = false;
			break;
		}
		FbsRef type;
		if (e->p.init[v]) {
			const Tensor *t = ir_tensorp(m, e->p.init[v]);
			type = type_info(e, t->dtype, t->rank, NULL, t->dims,
			    true);
		} else if (p->kind != VK_TENSOR || p->dtype == DT_UNDEF) {
			if (input || isio[v])
				ir_error(m, (Loc){0, 0}, "graph %s '%s' has no "
				    "tensor type", input ? "input" : "output",
				    ir_str(m, e->p.name[v]));
			else
				internal(e, "value '%s' has no type (the .ort "
				    "format needs one for every value)",
				    ir_str(m, e->p.name[v]));
			ok = false;
			break;
		} else {
			type = type_info(e, p->dtype, p->rank, ir_dims(g, v),
			    NULL, e->shapes || isio[v]);
		}
		refs[n++] = value_info(e, e->p.name[v], type);
	}
	/* "" stands for an optional input left out in the middle */
	for (NodeId id = 1; ok && id < g->nnodes && !hole; id++) {
		if (!e->p.index[id])
			continue;
		uint32_t nin = node_inputs(g, id);
		for (uint32_t i = 0; i < nin; i++)
			hole |= ir_arg(g, id, i)->kind == A_NONE;
	}
	if (ok && hole)
		refs[n++] = value_info(e, 0, 0);
	FbsRef r = ok ? fbs_vec_refs(e->b, refs, n) : 0;
	free(refs);
	free(isio);
	free(seen);
	return r;
}

static FbsRef
graph(Enc *e)
{
	Module *m = e->m;
	const Graph *g = e->p.g;
	uint32_t n = 0;
	FbsRef *refs = xcalloc(g->nvals + g->nnodes + g->ninputs +
	    g->noutputs + 1, sizeof *refs);
	FbsRef inits, args, nodes, edges, ins, outs, r = 0;

	for (ValId v = 1; v < g->nvals; v++) {
		if (!e->p.init[v] || !e->p.needed[v])
			continue;
		if (!(refs[n++] = tensor(e, ir_tensorp(m, e->p.init[v]),
		    e->p.name[v])))
			goto out;
	}
	inits = fbs_vec_refs(e->b, refs, n);
	if (!(args = node_args(e)))
		goto out;

	n = 0;
	for (NodeId id = 1; id < g->nnodes; id++) {
		if (!e->p.index[id])
			continue;
		if (!(refs[n++] = node(e, id)))
			goto out;
	}
	nodes = fbs_vec_refs(e->b, refs, n);
	edges = node_edges(e, n);
	uint32_t nnodes = n;

	n = 0;
	for (uint32_t i = 0; i < g->ninputs; i++)
		if (!e->p.init[g->inputs[i]])
			refs[n++] = str(e, e->p.name[g->inputs[i]]);
	ins = fbs_vec_refs(e->b, refs, n);
	n = 0;
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		for (uint32_t k = 0; k < i; k++)
			if (g->outputs[k] == v) {
				internal(e, "'%s' is output twice (the lower "
				    "pass should have added an Identity)",
				    ir_str(m, e->p.name[v]));
				goto out;
			}
		refs[n++] = str(e, e->p.name[v]);
	}
	outs = fbs_vec_refs(e->b, refs, n);
	FbsRef sparse = empty_vec(e);

	fbs_table(e->b);
	fbs_ref(e->b, GRAPH_INITIALIZERS, inits);
	fbs_ref(e->b, GRAPH_NODE_ARGS, args);
	fbs_ref(e->b, GRAPH_NODES, nodes);
	fbs_u32(e->b, GRAPH_MAX_NODE_INDEX, nnodes, 0);
	fbs_ref(e->b, GRAPH_NODE_EDGES, edges);
	fbs_ref(e->b, GRAPH_INPUTS, ins);
	fbs_ref(e->b, GRAPH_OUTPUTS, outs);
	fbs_ref(e->b, GRAPH_SPARSE_INITIALIZERS, sparse);
	r = fbs_end(e->b);
out:
	free(refs);
	return r;
}

/* ---------------------------------------------------------- resolver */

typedef struct Key {
	char name[64];
	FbsRef args[2 * OPSCHEMA_MAX_PARAMS];
	uint32_t nargs;
} Key;

typedef struct Entry {
	char id[96];
	const OpSchema *s;
} Entry;

static int
cmp_key(const void *a, const void *b)
{
	return strcmp(((const Key *)a)->name, ((const Key *)b)->name);
}

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const Entry *)a)->id, ((const Entry *)b)->id);
}

static FbsRef
arg_ref(Enc *e, int out, uint32_t i)
{
	fbs_table(e->b);
	fbs_u32(e->b, 1, i, 0);
	fbs_u8(e->b, 0, (uint8_t)out, 0);
	return fbs_end(e->b);
}

/* {type string: [(INPUT|OUTPUT, formal index)]} for one schema, keyed by
 * the type-constraint name, or by the parameter's own name when its type
 * is fixed (ORT's KernelTypeStrResolver::RegisterOpSchema). */
static FbsRef
resolver_entry(Enc *e, const Entry *en)
{
	Key keys[2 * OPSCHEMA_MAX_PARAMS];
	uint32_t nkeys = 0;
	for (int out = 0; out < 2; out++) {
		OpParam p[OPSCHEMA_MAX_PARAMS];
		int np = opschema_params(out ? en->s->outputs : en->s->inputs,
		    p);
		for (int i = 0; i < np; i++) {
			const char *k = opschema_is_constraint(&p[i])
			    ? p[i].type : p[i].name;
			int kl = opschema_is_constraint(&p[i])
			    ? p[i].typelen : p[i].namelen;
			char name[64];
			snprintf(name, sizeof name, "%.*s", kl, k);
			uint32_t j;
			for (j = 0; j < nkeys; j++)
				if (!strcmp(keys[j].name, name))
					break;
			if (j == nkeys) {
				memcpy(keys[j].name, name, sizeof name);
				keys[j].nargs = 0;
				nkeys++;
			}
			keys[j].args[keys[j].nargs++] =
			    arg_ref(e, out, (uint32_t)i);
		}
	}
	qsort(keys, nkeys, sizeof *keys, cmp_key);
	FbsRef refs[2 * OPSCHEMA_MAX_PARAMS];
	for (uint32_t j = 0; j < nkeys; j++) {
		FbsRef args = fbs_vec_refs(e->b, keys[j].args, keys[j].nargs);
		FbsRef k = cstr(e, keys[j].name);
		fbs_table(e->b);
		fbs_ref(e->b, 0, k);
		fbs_ref(e->b, 1, args);
		refs[j] = fbs_end(e->b);
	}
	FbsRef v = fbs_vec_refs(e->b, refs, nkeys);
	FbsRef id = cstr(e, en->id);
	fbs_table(e->b);
	fbs_ref(e->b, 0, id);
	fbs_ref(e->b, 1, v);
	return fbs_end(e->b);
}

static FbsRef
resolver(Enc *e)
{
	Entry *en = xcalloc(e->nops, sizeof *en);
	for (uint32_t i = 0; i < e->nops; i++) {
		/* "domain:op_type:since_version", "" for ai.onnx */
		snprintf(en[i].id, sizeof en[i].id, ":%s:%d", e->ops[i]->op,
		    e->ops[i]->since);
		en[i].s = e->ops[i];
	}
	qsort(en, e->nops, sizeof *en, cmp_entry);
	FbsRef *refs = xcalloc(e->nops, sizeof *refs);
	for (uint32_t i = 0; i < e->nops; i++)
		refs[i] = resolver_entry(e, &en[i]);
	FbsRef v = fbs_vec_refs(e->b, refs, e->nops);
	free(refs);
	free(en);
	fbs_table(e->b);
	fbs_ref(e->b, 0, v);
	return fbs_end(e->b);
}

/* ------------------------------------------------------------- model */

static FbsRef
model(Enc *e)
{
	Module *m = e->m;
	FbsRef gr = graph(e);
	if (!gr)
		return 0;
	FbsRef dom = str(e, 0);
	fbs_table(e->b);
	fbs_i64(e->b, 1, e->opset, 0);
	fbs_ref(e->b, 0, dom);
	FbsRef opset = fbs_end(e->b);
	FbsRef imports = fbs_vec_refs(e->b, &opset, 1);
	FbsRef meta = 0;
	if (m->ranges) {
		FbsRef k = cstr(e, "pkg.torch.export.ExportedProgram."
		    "range_constraints");
		FbsRef v = str(e, m->ranges);
		fbs_table(e->b);
		fbs_ref(e->b, 0, k);
		fbs_ref(e->b, 1, v);
		FbsRef entry = fbs_end(e->b);
		meta = fbs_vec_refs(e->b, &entry, 1);
	}
	FbsRef pn = cstr(e, "onnxc"), pv = cstr(e, ONNXC_VERSION_STRING);
	fbs_table(e->b);
	fbs_i64(e->b, MODEL_IR_VERSION, onnx_ir_version(e->opset), 0);
	fbs_ref(e->b, MODEL_OPSET_IMPORT, imports);
	fbs_ref(e->b, MODEL_PRODUCER_NAME, pn);
	fbs_ref(e->b, MODEL_PRODUCER_VERSION, pv);
	fbs_ref(e->b, MODEL_GRAPH, gr);
	fbs_ref(e->b, MODEL_METADATA, meta);
	return fbs_end(e->b);
}

static void
too_big(Enc *e, uint64_t weights)
{
	ir_error(e->m, (Loc){0, 0}, "the model holds %llu MB of weights, too "
	    "much for an .ort file: it is a single FlatBuffer, limited to "
	    "2 GB, and has no external data for inference; write ONNX (-o "
	    "model.onnx or --emit onnx) with its weights as external data "
	    "instead", (unsigned long long)(weights >> 20));
}

static void
enc_free(Enc *e)
{
	fbs_free(e->b);
	free(e->sref);
	be_names_free(&e->names);
	plan_free(&e->p);
	for (uint32_t i = 0; i < e->nnodenames; i++)
		free(e->nodenames[i]);
	free(e->nodenames);
	free(e->ops);
	memset(e, 0, sizeof *e);
}

/* One attempt at the whole buffer; shapes says whether intermediate values
 * get theirs. */
static bool
build_once(Enc *e, Module *m, GraphId gid, int opset, bool shapes)
{
	memset(e, 0, sizeof *e);
	e->m = m;
	e->p.gid = gid;
	e->p.g = ir_graph(m, gid);
	e->opset = opset;
	e->shapes = shapes;
	e->errs = m->nerrors;
	e->b = fbs_new();
	name_nodes(e, gid, 0);
	if (!plan(e))
		return false;

	uint64_t weights = 0;
	for (ValId v = 1; v < e->p.g->nvals; v++)
		if (e->p.init[v] && e->p.needed[v])
			weights += ir_tensorp(m, e->p.init[v])->nbytes;
	if (weights > FBS_MAX_SIZE) {
		too_big(e, weights);
		return false;
	}

	FbsRef md = model(e);
	if (!md || m->nerrors != e->errs)
		return false;
	FbsRef rs = resolver(e);
	FbsRef ver = cstr(e, ORT_FORMAT_VERSION);
	fbs_table(e->b);
	fbs_ref(e->b, SESSION_ORT_VERSION, ver);
	fbs_ref(e->b, SESSION_MODEL, md);
	fbs_ref(e->b, SESSION_RESOLVER, rs);
	FbsRef root = fbs_end(e->b);
	fbs_finish(e->b, root, "ORTM");
	if (fbs_overflow(e->b)) {
		too_big(e, weights);
		return false;
	}
	return m->nerrors == e->errs;
}

static bool
build(Enc *e, Module *m, GraphId gid, const OnnxOptions *o)
{
	memset(e, 0, sizeof *e);
	ir_name_outer(m, gid);
	if (!onnx_ir_version(o->opset) || o->opset < OPSCHEMA_MIN_OPSET ||
	    o->opset > OPSCHEMA_MAX_OPSET) {
		ir_error(m, (Loc){0, 0}, "opset %d cannot be written to an "
		    ".ort file (choose one of %d to %d)", o->opset,
		    OPSCHEMA_MIN_OPSET, OPSCHEMA_MAX_OPSET);
		return false;
	}
	if (!build_once(e, m, gid, o->opset, true))
		return false;
	if (fbs_ntables(e->b) <= MAX_TABLES)
		return true;
	/* ORT's verifier would refuse the file: intermediate shapes cost
	 * 2 tables per dim and are optional, so they go first */
	enc_free(e);
	if (!build_once(e, m, gid, o->opset, false))
		return false;
	if (fbs_ntables(e->b) <= MAX_TABLES)
		return true;
	ir_error(m, (Loc){0, 0}, "the graph is too large for an .ort file: "
	    "it needs %u FlatBuffer tables and ONNX Runtime verifies at most "
	    "%u; write ONNX instead", fbs_ntables(e->b), MAX_TABLES);
	return false;
}

int
ort_encode(Module *m, GraphId g, const OnnxOptions *o, uint8_t **buf,
    size_t *len)
{
	Enc e;
	*buf = NULL;
	*len = 0;
	if (!build(&e, m, g, o)) {
		enc_free(&e);
		return -1;
	}
	*len = (size_t)fbs_size(e.b);
	*buf = xrealloc(NULL, *len);
	fbs_copy(e.b, *buf);
	enc_free(&e);
	return 0;
}

/* ---------------------------------------------------------------- files */

/* weights are referenced blobs: be_out_write copies them from the input
 * file by the kernel */
static int
put_file(void *ctx, const void *p, size_t n)
{
	return be_out_write(ctx, p, n);
}

/* BeEmit: the built buffer into o */
static int
emit_model(void *ctx, BeOut *o)
{
	return fbs_emit(ctx, put_file, o);
}

int
ort_write(Module *m, GraphId g, const OnnxOptions *o, const char *path)
{
	Enc e;
	int rc = build(&e, m, g, o) ? be_write_atomic(m, path, emit_model,
	    e.b) : -1;
	enc_free(&e);
	return rc;
}
