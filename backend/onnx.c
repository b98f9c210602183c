/* onnx.c - the ONNX backend: a graph of D_ONNX nodes -> ModelProto.
 *
 * Requires: a graph built by the lower pass (every node D_ONNX, every value
 * named, weights bound to graph inputs through Value.init).
 * Provides: the model as bytes (onnx_encode) or as a file (onnx_write).
 *
 * Three walks over the graph: prepare checks that the model can be written
 * and settles everything that takes work or state (node names, metadata
 * texts, which initializers go to external data), then the emit functions
 * run twice through the streaming writer (pb.h), once to size every
 * message and once to write it; a big graph's nodes are made on two
 * threads in both runs (pbsplit.h).  Into a file, such a graph is
 * streamed: its nodes and value_info are made chunk by chunk in one run
 * each, lengths put in as they close (pb_write_grow), so the disk starts
 * at once, and the graph's length is patched in at the end
 * (write_streamed).  Tensor bytes are never copied:
 * raw_data is written straight from the weights mapping (or the module's
 * constants), which out.c turns into a kernel copy from the weights file.
 * With external data (forced, or when the model would pass 2 GB)
 * initializers go to <model>.data instead.  Fields are emitted in field-number order,
 * so the bytes are those of any protobuf library.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx.h"
#include "pb.h"
#include "pbsplit.h"

/* A single protobuf message cannot exceed 2 GB. */
#define MAX_MODEL_BYTES ((UINT64_C(2) << 30) - 1)
/* External data offsets: ONNX Runtime maps tensors of the data file
 * (Env::MapFileIntoMemory) at page granularity, and Windows maps at 64 KiB;
 * a tensor of 1 MiB or more starts on a 64 KiB boundary (also a multiple
 * of 4 and 16 KiB pages), smaller ones on 64 bytes (any element type, a
 * cache line) so padding stays small. */
#define EXT_ALIGN_BIG 65536
#define EXT_ALIGN_SMALL 64
#define EXT_BIG (UINT64_C(1) << 20)

/* Field numbers of onnx.proto, the ones written. */
enum {
	MODEL_IR_VERSION = 1, MODEL_PRODUCER_NAME = 2,
	MODEL_PRODUCER_VERSION = 3, MODEL_GRAPH = 7, MODEL_OPSET_IMPORT = 8,
	OPSET_DOMAIN = 1, OPSET_VERSION = 2,
	GRAPH_NODE = 1, GRAPH_NAME = 2, GRAPH_INITIALIZER = 5,
	GRAPH_INPUT = 11, GRAPH_OUTPUT = 12, GRAPH_VALUE_INFO = 13,
	GRAPH_METADATA = 16,
	NODE_INPUT = 1, NODE_OUTPUT = 2, NODE_NAME = 3, NODE_OP_TYPE = 4,
	NODE_ATTRIBUTE = 5, NODE_DOMAIN = 7, NODE_METADATA = 9,
	ATTR_NAME = 1, ATTR_F = 2, ATTR_I = 3, ATTR_S = 4, ATTR_T = 5,
	ATTR_G = 6, ATTR_FLOATS = 7, ATTR_INTS = 8, ATTR_STRINGS = 9,
	ATTR_TYPE = 20,
	TENSOR_DIMS = 1, TENSOR_DATA_TYPE = 2, TENSOR_NAME = 8,
	TENSOR_RAW_DATA = 9, TENSOR_EXTERNAL_DATA = 13,
	TENSOR_DATA_LOCATION = 14, TENSOR_METADATA = 16,
	VI_NAME = 1, VI_TYPE = 2, VI_METADATA = 4,
	TYPE_TENSOR = 1, TTYPE_ELEM_TYPE = 1, TTYPE_SHAPE = 2,
	SHAPE_DIM = 1, DIM_VALUE = 1, DIM_PARAM = 2,
};

/* AttributeProto.AttributeType and TensorProto.DataLocation values */
enum {
	AT_FLOAT = 1, AT_INT = 2, AT_STRING = 3, AT_TENSOR = 4, AT_GRAPH = 5,
	AT_FLOATS = 6, AT_INTS = 7, AT_STRINGS = 8,
	LOCATION_EXTERNAL = 1,
};

/* What prepare settled for a node. */
typedef struct NodePrep {
	StrId name;
} NodePrep;

typedef struct Enc Enc;

/* One occurrence of a graph in the model (a subgraph attribute is one). */
typedef struct GraphPrep {
	NodePrep *nodes;  /* by NodeId */
	uint8_t *isout;   /* by ValId: the value is a graph output */
	uint32_t init0;   /* its first entry of Enc.inits */
	const char *sig, *ranges; /* top graphs' metadata texts */
	PbSplit *split;   /* its nodes on two threads, or NULL */
	PbSplit *vsplit;  /* its value_info the same way */
	Enc *helper;      /* what the helper thread writes them with */
} GraphPrep;

/* An initializer, in model order. */
typedef struct Init {
	const Tensor *t;
	uint64_t off;     /* in the data file, when ext */
	bool ext;
} Init;

/* A tensor type's encoded TypeProto, by its dims run: values of one dtype
 * and shape share the run (ir_set_tensor), and so write the same bytes. */
enum { TYPECACHE = 64 };
typedef struct TypeBytes {
	const Dim *dims;     /* the run (NULL for rank 0 or unknown) */
	int32_t rank;
	uint8_t dtype;
	uint8_t *p;          /* NULL: slot empty */
	uint32_t n;
} TypeBytes;

struct Enc {
	Module *m;
	Arena *a;            /* prepared data of this model */
	BeNames names;       /* node names taken */
	const OnnxOptions *o;
	BeMeta *meta;        /* provenance texts; NULL: --no-metadata */
	uint64_t measured;   /* the model's size by the last sizing walk */
	StrId *domains;      /* non-default domains the nodes use */
	uint32_t ndomains, cdomains;
	GraphPrep *graphs;   /* graph occurrences in the order emitted */
	uint32_t ngraphs, cgraphs;
	uint32_t emitted;    /* graph occurrences emitted in this run */
	Init *inits;         /* every initializer, in model order */
	uint32_t ninits, cinits;
	const char *location; /* the data file, as initializers name it */
	GraphId gid;         /* the graph written */
	int ir;              /* its ir_version */
	Pb w;
	Pb tw;               /* encodes tensor types (type_bytes) */
	/* streaming (write_streamed): the splits are sized as they are
	 * written, and the graph's length is patched in at the end */
	bool stream;
	unsigned glen_width; /* bytes the graph's length takes */
	uint64_t glen_at;    /* where they are */
	uint64_t glen;       /* the length written */
	uint64_t graph_sized; /* the graph field's bytes by the sizing run */
	TypeBytes types[TYPECACHE];
	int errs;            /* m->nerrors on entry */
};

int
onnx_ir_version(int opset)
{
	/* the ONNX release table: each opset ships with one IR version */
	static const struct {
		int opset, ir;
	} table[] = {
		{7, 3}, {8, 3}, {9, 4}, {10, 5}, {11, 6}, {12, 7}, {13, 7},
		{14, 7}, {15, 8}, {16, 8}, {17, 8}, {18, 8}, {19, 9}, {20, 9},
		{21, 10}, {22, 10}, {23, 11},
	};
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (table[i].opset == opset)
			return table[i].ir;
	return 0;
}

/* ------------------------------------------------------------- helpers */

static void
internal(Enc *e, const char *f, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	ir_error(e->m, (Loc){0, 0}, "internal error in the ONNX backend: %s",
	    buf);
}

/* The name of value v of graph gid: set by the lower pass; a fallback
 * keeps the model well formed if one slipped through. */
static StrId
valname(Enc *e, GraphId gid, const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	if (p->name)
		return p->name;
	char buf[64];
	if (gid == e->m->main || !g->parent)
		snprintf(buf, sizeof buf, "_v%u", v);
	else
		snprintf(buf, sizeof buf, "_g%u_v%u", gid, v);
	return ir_intern(e->m, buf);
}

static const char *
vname(Enc *e, GraphId gid, const Graph *g, ValId v)
{
	return ir_str(e->m, valname(e, gid, g, v));
}

/* An interned string as a field, its length known. */
static void
pb_strid(Pb *w, uint32_t field, const Module *m, StrId s)
{
	pb_bytes(w, field, ir_str(m, s), ir_strlen(m, s));
}

static bool
is_top(const Enc *e, GraphId gid)
{
	return gid == e->m->main || !ir_graph(e->m, gid)->parent;
}

static bool
has_type(const Value *p)
{
	return p->kind == VK_TENSOR && p->dtype != DT_UNDEF;
}

static bool
is_int_item(const Arg *a)
{
	return a->kind == A_INT || a->kind == A_BOOL || a->kind == A_DTYPE;
}

/* Bytes a tensor of dt and numel elements takes in raw_data; false for
 * types raw_data cannot hold or on overflow. */
static bool
raw_size(DType dt, uint64_t numel, uint64_t *out)
{
	size_t sz = ir_dtype_size(dt);
	if (dt == DT_U4 || dt == DT_I4 || dt == DT_F4E2M1) {
		*out = numel / 2 + numel % 2;   /* two per byte */
		return true;
	}
	if (sz == 0)
		return false;
	if (numel > UINT64_MAX / sz)
		return false;
	*out = numel * sz;
	return true;
}

/* The kind of a list attribute (AT_INTS, AT_FLOATS, AT_STRINGS); 0 for a
 * list of mixed kinds.  The empty list is ints. */
static int
list_type(const Graph *g, const Arg *a)
{
	const Arg *it = ir_items(g, a);
	uint32_t cnt = a->u.list.n, nint = 0, nnum = 0, nstr = 0;
	for (uint32_t i = 0; i < cnt; i++) {
		nint += is_int_item(&it[i]);
		nnum += is_int_item(&it[i]) || it[i].kind == A_FLOAT;
		nstr += it[i].kind == A_STR;
	}
	return nint == cnt ? AT_INTS : nnum == cnt ? AT_FLOATS
	    : nstr == cnt ? AT_STRINGS : 0;
}

/* ------------------------------------------------------------- prepare */

static bool prep_graph(Enc *e, GraphId gid);

/* Whether t can be written as raw_data (reported if not); name NULL for
 * a tensor attribute. */
static bool
check_tensor(Enc *e, const Tensor *t, const char *name)
{
	DType dt = (DType)t->dtype;
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
		    "%s to ONNX", name ? name : ir_str(e->m, t->name),
		    ir_dtype_name(dt));
		return false;
	}
	if (need != t->nbytes || (need && !t->data)) {
		internal(e, "tensor '%s' has %llu bytes, its type and shape "
		    "need %llu", name ? name : ir_str(e->m, t->name),
		    (unsigned long long)t->nbytes, (unsigned long long)need);
		return false;
	}
	return true;
}

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
		return check_tensor(e, ir_tensorp(e->m, a->u.t), NULL);
	case A_GRAPH:
		return prep_graph(e, a->u.g);
	case A_LIST:
	case A_TUPLE:
		if (list_type(g, a))
			return true;
		internal(e, "attribute '%s' of %s is a list of mixed kinds",
		    ir_str(e->m, a->key), ir_str(e->m, n->op));
		return false;
	default:
		internal(e, "attribute '%s' of %s has an unsupported kind %d",
		    ir_str(e->m, a->key), ir_str(e->m, n->op), a->kind);
		return false;
	}
}

/* Inputs written: trailing missing ones are left out. */
static uint32_t
node_nin(const Graph *g, NodeId id, uint32_t npos)
{
	while (npos > 0 && ir_arg(g, id, npos - 1)->kind == A_NONE)
		npos--;
	return npos;
}

static bool
prep_node(Enc *e, GraphId gid, const Graph *g, NodeId id, NodePrep *np)
{
	Module *m = e->m;
	const Node *n = ir_nodep(g, id);
	if (n->dialect != D_ONNX) {
		internal(e, "node '%s' (%s) was not lowered to ONNX",
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
			valname(e, gid, g, a->u.v);
		} else if (a->kind != A_NONE) {
			internal(e, "input %u of %s is not a value", i,
			    ir_str(m, n->op));
			return false;
		}
	}
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (!a->key) {
			internal(e, "%s has a positional argument after "
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
		internal(e, "graph '%s' defines '%s' twice",
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
		    valname(e, gid, g, g->inputs[i]));
	for (NodeId n = 1; ok && n < g->nnodes; n++)
		for (uint32_t k = 0; ok && k < g->nodes[n].nout; k++)
			ok = define(e, g, &seen, &cap,
			    valname(e, gid, g, g->nodes[n].out + k));
	free(seen);
	return ok;
}

static void plan_split(Enc *e, GraphId gid, const Graph *g, GraphPrep *gp);

static bool
prep_graph(Enc *e, GraphId gid)
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
			if (!check_tensor(e, t, name))
				return false;
			vgrow((void **)&e->inits, &e->cinits, e->ninits + 1,
			    sizeof *e->inits);
			e->inits[e->ninits++] = (Init){.t = t};
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
			internal(e, "'%s' is output twice (the lower pass "
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
	plan_split(e, gid, g, &gp);
	e->graphs[k] = gp;
	return names_unique(e, gid, g);
}

/* ---------------------------------------------------------------- emit */

/* The emit functions write what prepare settled, identically in the
 * sizing and the writing run. */

static void emit_graph(Enc *e, Pb *w, GraphId gid);

static void
emit_entry(Pb *w, uint32_t field, const char *key, const char *value)
{
	pb_entry(w, field, key, strlen(key), value, strlen(value));
}

/* a node's metadata: literal keys, texts of known length */
#define NODE_ENTRY(w, key, t) \
	pb_entry(w, NODE_METADATA, key, sizeof key - 1, (t).s, (t).n)

/* The signature keys of graph input v (a ValueInfoProto's or an
 * initializer's), and its FX name when it was renamed. */
static void
emit_input_meta(Enc *e, Pb *w, uint32_t field, const Value *v)
{
	emit_entry(w, field, "pkg.torch.export.graph_signature.InputSpec.kind",
	    be_input_kind((Role)v->role));
	emit_entry(w, field,
	    "pkg.torch.export.graph_signature.InputSpec.persistent",
	    be_persist_text(v));
	if (v->orig)
		emit_entry(w, field, "pkg.torch.onnx.original_node_name",
		    ir_str(e->m, v->orig));
}

static void
emit_output_meta(Enc *e, Pb *w, const Value *v, OutKind k)
{
	emit_entry(w, VI_METADATA,
	    "pkg.torch.export.graph_signature.OutputSpec.kind",
	    be_output_kind(k));
	if (v->orig)
		emit_entry(w, VI_METADATA, "pkg.torch.onnx.original_node_name",
		    ir_str(e->m, v->orig));
}

static void
emit_dim(Enc *e, Pb *w, Dim d)
{
	const Expr *x = d.e ? ir_exprp(e->m, d.e) : NULL;
	if (!x || x->kind == E_INT) {
		/* a number, or an unknown dim (negative: neither field):
		 * sized here, without the writer's table of lengths */
		int64_t n = x ? x->n : d.n;
		uint64_t v = (uint64_t)n;
		bool known = x || n >= 0;
		pb_open_sized(w, SHAPE_DIM, known ? pb_varint_size(DIM_VALUE,
		    v) : 0);
		if (known)
			pb_varint(w, DIM_VALUE, v);
		return;
	}
	pb_open(w, SHAPE_DIM);
	char small[128];
	int n = ir_expr_print(e->m, d.e, small, sizeof small);
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof small)
		pb_bytes(w, DIM_PARAM, small, (size_t)n);
	else
		pb_str(w, DIM_PARAM, ir_dim_text(e->m, d));
	pb_close(w);
}

/* A TypeProto's fields for a tensor type; an unknown rank has no shape. */
static void
emit_type(Enc *e, Pb *w, const Value *p, const Dim *d)
{
	pb_open(w, TYPE_TENSOR);
	pb_varint(w, TTYPE_ELEM_TYPE, p->dtype);
	if (p->rank >= 0) {
		pb_open(w, TTYPE_SHAPE);
		for (int32_t i = 0; i < p->rank; i++)
			emit_dim(e, w, d[i]);
		pb_close(w);
	}
	pb_close(w);
}

/* The TypeProto of v (a typed tensor), encoded once per recent shape: a
 * value then costs one copy and no entries in the writer's table of
 * lengths. */
static const TypeBytes *
type_bytes(Enc *e, const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	const Dim *d = ir_dims(g, v);
	uintptr_t k = (uintptr_t)d ^ ((uintptr_t)p->rank << 8) ^ p->dtype;
	TypeBytes *t = &e->types[(k ^ k >> 7 ^ k >> 17) % TYPECACHE];
	if (t->p && t->dims == d && t->rank == p->rank &&
	    t->dtype == p->dtype)
		return t;
	pb_size(&e->tw);
	emit_type(e, &e->tw, p, d);
	uint64_t n = e->tw.pos;
	uint8_t *buf = arena_alloc(e->a, n ? n : 1);
	pb_write(&e->tw, NULL, buf);
	emit_type(e, &e->tw, p, d);
	pb_flush(&e->tw);
	*t = (TypeBytes){d, p->rank, p->dtype, buf, (uint32_t)n};
	return t;
}

/* A ValueInfoProto's name and type (none for a value that is no typed
 * tensor); vi_len is its length. */
static void
emit_value(Enc *e, Pb *w, GraphId gid, const Graph *g, ValId v)
{
	pb_strid(w, VI_NAME, e->m, valname(e, gid, g, v));
	if (has_type(ir_val(g, v))) {
		const TypeBytes *t = type_bytes(e, g, v);
		pb_bytes(w, VI_TYPE, t->p, t->n);
	}
}

static uint64_t
vi_len(Enc *e, GraphId gid, const Graph *g, ValId v)
{
	uint64_t n = pb_bytes_size(VI_NAME, ir_strlen(e->m,
	    valname(e, gid, g, v)));
	if (has_type(ir_val(g, v)))
		n += pb_bytes_size(VI_TYPE, type_bytes(e, g, v)->n);
	return n;
}

/* A TensorProto with t's bytes as raw_data, or in the data file when
 * in->ext; name NULL for a tensor attribute; meta: the graph input whose
 * signature keys it carries, or NULL. */
static void
emit_tensor(Enc *e, Pb *w, uint32_t field, const Tensor *t, const char *name,
    const Init *in, const Value *meta)
{
	pb_open(w, field);
	for (int32_t i = 0; i < t->rank; i++)
		pb_varint(w, TENSOR_DIMS, (uint64_t)t->dims[i]);
	pb_varint(w, TENSOR_DATA_TYPE, t->dtype);
	pb_str(w, TENSOR_NAME, name);
	if (!in || !in->ext) {
		pb_weights(w, TENSOR_RAW_DATA, t->data, t->nbytes);
	} else {
		char off[24], len[24];
		snprintf(off, sizeof off, "%llu", (unsigned long long)in->off);
		snprintf(len, sizeof len, "%llu", (unsigned long long)t->nbytes);
		emit_entry(w, TENSOR_EXTERNAL_DATA, "location", e->location);
		emit_entry(w, TENSOR_EXTERNAL_DATA, "offset", off);
		emit_entry(w, TENSOR_EXTERNAL_DATA, "length", len);
		pb_varint(w, TENSOR_DATA_LOCATION, LOCATION_EXTERNAL);
	}
	if (meta)
		emit_input_meta(e, w, TENSOR_METADATA, meta);
	pb_close(w);
}

static void
emit_attr(Enc *e, Pb *w, const Graph *g, const Arg *a)
{
	Module *m = e->m;
	int type;
	pb_open(w, NODE_ATTRIBUTE);
	pb_str(w, ATTR_NAME, ir_str(m, a->key));
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:   /* DType numbers are ONNX's: Cast(to=...) */
		type = AT_INT;
		pb_varint(w, ATTR_I, (uint64_t)a->u.i);
		break;
	case A_FLOAT: {
		float f = (float)a->u.f;
		uint32_t bits;
		memcpy(&bits, &f, sizeof bits);
		type = AT_FLOAT;
		pb_fixed32(w, ATTR_F, bits);
		break;
	}
	case A_STR:
		type = AT_STRING;
		pb_str(w, ATTR_S, ir_str(m, a->u.s));
		break;
	case A_TENSOR:
		type = AT_TENSOR;
		emit_tensor(e, w, ATTR_T, ir_tensorp(m, a->u.t), NULL, NULL,
		    NULL);
		break;
	case A_GRAPH:
		type = AT_GRAPH;
		pb_open(w, ATTR_G);
		emit_graph(e, w, a->u.g);
		pb_close(w);
		break;
	default: {      /* a list: prepare checked its kind */
		const Arg *it = ir_items(g, a);
		type = list_type(g, a);
		for (uint32_t i = 0; i < a->u.list.n; i++) {
			if (type == AT_INTS) {
				pb_varint(w, ATTR_INTS, (uint64_t)it[i].u.i);
			} else if (type == AT_FLOATS) {
				float f = it[i].kind == A_FLOAT
				    ? (float)it[i].u.f : (float)it[i].u.i;
				uint32_t bits;
				memcpy(&bits, &f, sizeof bits);
				pb_fixed32(w, ATTR_FLOATS, bits);
			} else {
				pb_str(w, ATTR_STRINGS, ir_str(m, it[i].u.s));
			}
		}
	}
	}
	pb_varint(w, ATTR_TYPE, (uint64_t)type);
	pb_close(w);
}

static void
emit_node(Enc *e, Pb *w, GraphId gid, const Graph *g, NodeId id,
    const NodePrep *np)
{
	Module *m = e->m;
	const Node *n = ir_nodep(g, id);
	uint32_t npos = ir_npos(g, id), nin = node_nin(g, id, npos);
	pb_open(w, GRAPH_NODE);
	for (uint32_t i = 0; i < nin; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (a->kind == A_VAL)
			pb_strid(w, NODE_INPUT, m, valname(e, gid, g, a->u.v));
		else
			pb_str(w, NODE_INPUT, "");
	}
	for (uint32_t i = 0; i < n->nout; i++)
		pb_strid(w, NODE_OUTPUT, m, valname(e, gid, g, n->out + i));
	char name[BE_NODE_NAME_MAX];
	size_t nl;
	be_node_text(m, np->name, name, &nl);
	pb_bytes(w, NODE_NAME, name, nl);
	pb_strid(w, NODE_OP_TYPE, m, n->op);
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		/* subgraphs name outer values themselves */
		if (!ir_is_capture(g, id, a))
			emit_attr(e, w, g, a);
	}
	if (n->domain)
		pb_str(w, NODE_DOMAIN, ir_str(m, n->domain));
	/* provenance in torch.onnx's keys, made here in both walks rather
	 * than held for every node (a few hundred bytes each) */
	BeNodeMeta nm;
	if (e->meta && be_meta_node(e->meta, n, &nm)) {
		NODE_ENTRY(w, "namespace", nm.ns);
		NODE_ENTRY(w, "pkg.torch.onnx.class_hierarchy", nm.classes);
		NODE_ENTRY(w, "pkg.torch.onnx.fx_node", nm.fx_node);
		NODE_ENTRY(w, "pkg.torch.onnx.name_scopes", nm.scopes);
		NODE_ENTRY(w, "pkg.torch.onnx.stack_trace", nm.trace);
	}
	pb_close(w);
}

/* The fields of a GraphProto, in field-number order. */
/* A split's context on one thread: one graph occurrence.  The helper's
 * Enc has only what emit_node and emit_value read: m, o, and its own
 * meta, arena and type cache. */
typedef struct Run {
	Enc *e;
	GraphId gid;
	const NodePrep *nodes;
	const uint8_t *isout;
} Run;

/* PbEmitRange: nodes [lo, hi) */
static void
emit_nodes(void *ctx, Pb *w, uint32_t lo, uint32_t hi)
{
	Run *r = ctx;
	const Graph *g = ir_graph(r->e->m, r->gid);
	if (r->e->meta)
		be_meta_measure(r->e->meta, !w->writing);
	for (NodeId n = lo; n < hi; n++)
		emit_node(r->e, w, r->gid, g, n, &r->nodes[n]);
}

/* PbEmitRange: the value_info of values [lo, hi), the types the lowering
 * knows for intermediate values, so that viewers and runtimes need not
 * infer them */
static void
emit_values(void *ctx, Pb *w, uint32_t lo, uint32_t hi)
{
	Run *r = ctx;
	const Graph *g = ir_graph(r->e->m, r->gid);
	for (ValId v = lo; v < hi; v++) {
		const Value *val = ir_val(g, v);
		if (!val->def || r->isout[v] || !has_type(val))
			continue;
		pb_open_sized(w, GRAPH_VALUE_INFO, vi_len(r->e, r->gid, g, v));
		emit_value(r->e, w, r->gid, g, v);
	}
}

/* The nodes and value_info of graph gid on two threads, when it has
 * enough nodes for that to pay and they only need reading to be written:
 * no subgraph (its emission numbers occurrences), every value named
 * (valname would intern a name).  Chunks of nodes with a tensor attribute
 * stay on the calling thread, where its bytes can go by kernel copy. */
static void
plan_split(Enc *e, GraphId gid, const Graph *g, GraphPrep *gp)
{
	uint32_t chunk = e->o->split_nodes ? e->o->split_nodes
	    : ONNX_SPLIT_NODES;
	if (chunk == UINT32_MAX || g->nnodes <= 1 ||
	    (g->nnodes - 1) / chunk < 2)
		return;
	uint32_t nchunks = (g->nnodes - 2) / chunk + 1;
	bool *helpable = arena_alloc(e->a, nchunks * sizeof *helpable);
	for (NodeId id = 1; id < g->nnodes; id++) {
		const Node *n = ir_nodep(g, id);
		bool ok = true;
		for (uint32_t i = 0; i < n->nargs; i++) {
			const Arg *a = ir_arg(g, id, i);
			if (a->kind == A_GRAPH || (a->kind == A_VAL &&
			    !ir_val(g, a->u.v)->name))
				return;
			ok &= a->kind != A_TENSOR;
		}
		for (uint32_t i = 0; i < n->nout; i++)
			if (!ir_val(g, n->out + i)->name)
				return;
		uint32_t c = (id - 1) / chunk;
		helpable[c] = (id - 1) % chunk ? helpable[c] && ok : ok;
	}
	Run *runs = arena_alloc(e->a, 2 * sizeof *runs);
	Enc *he = arena_alloc(e->a, sizeof *he);
	*he = (Enc){.m = e->m, .o = e->o, .a = arena_new(),
		.meta = e->meta ? be_meta_fork(e->meta) : NULL};
	gp->helper = he;
	runs[0] = (Run){e, gid, gp->nodes, gp->isout};
	runs[1] = (Run){he, gid, gp->nodes, gp->isout};
	/* the shares that kept the threads even on long chains (callgrind:
	 * the calling thread also prepares, appends and writes the rest) */
	gp->split = pb_split_new(1, g->nnodes, chunk, helpable, 60,
	    emit_nodes, &runs[0], &runs[1], e->o->threads);
	uint32_t nv = (g->nvals - 2) / chunk + 1;
	bool *all = arena_alloc(e->a, nv * sizeof *all);
	memset(all, 1, nv * sizeof *all);
	gp->vsplit = pb_split_new(1, g->nvals, chunk, all, 50, emit_values,
	    &runs[0], &runs[1], e->o->threads);
}

static void
emit_graph(Enc *e, Pb *w, GraphId gid)
{
	Module *m = e->m;
	const Graph *g = ir_graph(m, gid);
	const GraphPrep *gp = &e->graphs[e->emitted++];
	bool top = is_top(e, gid), weights = !e->o->no_weights;
	if (gp->split)
		pb_split_run(gp->split, w);
	else
		for (NodeId n = 1; n < g->nnodes; n++)
			emit_node(e, w, gid, g, n, &gp->nodes[n]);
	pb_str(w, GRAPH_NAME, g->name ? ir_str(m, g->name) : "main_graph");
	/* an index, not a pointer: e->inits is NULL in a model without
	 * initializers, and NULL + 0 is undefined */
	uint32_t k = gp->init0;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		const Value *val = ir_val(g, g->inputs[i]);
		if (!val->init || !weights)
			continue;
		const Init *in = &e->inits[k++];
		emit_tensor(e, w, GRAPH_INITIALIZER, in->t,
		    vname(e, gid, g, g->inputs[i]), in, top && e->meta ? val :
		    NULL);
	}
	for (uint32_t i = 0; i < g->ninputs; i++) {
		const Value *val = ir_val(g, g->inputs[i]);
		if (val->init && weights && !e->o->init_inputs)
			continue;
		pb_open(w, GRAPH_INPUT);
		emit_value(e, w, gid, g, g->inputs[i]);
		if (top && e->meta)
			emit_input_meta(e, w, VI_METADATA, val);
		pb_close(w);
	}
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		pb_open(w, GRAPH_OUTPUT);
		emit_value(e, w, gid, g, v);
		if (top && e->meta)
			emit_output_meta(e, w, ir_val(g, v),
			    (OutKind)g->outkind[i]);
		pb_close(w);
	}
	if (gp->vsplit)
		pb_split_run(gp->vsplit, w);
	else
		emit_values(&(Run){e, gid, gp->nodes, gp->isout}, w, 1,
		    g->nvals);
	if (gp->sig) {
		/* torch.onnx's graph keys */
		emit_entry(w, GRAPH_METADATA,
		    "pkg.torch.export.ExportedProgram.graph_signature", gp->sig);
		emit_entry(w, GRAPH_METADATA,
		    "pkg.torch.export.ExportedProgram.range_constraints",
		    gp->ranges);
	}
}

static void
emit_model(Enc *e, Pb *w)
{
	e->emitted = 0;
	pb_varint(w, MODEL_IR_VERSION, (uint64_t)e->ir);
	pb_str(w, MODEL_PRODUCER_NAME, "onnxc");
	pb_str(w, MODEL_PRODUCER_VERSION, ONNXC_VERSION_STRING);
	if (e->stream && w->writing) {
		e->glen_at = pb_open_later(w, MODEL_GRAPH, e->glen_width);
		emit_graph(e, w, e->gid);
		e->glen = w->pos - e->glen_at - e->glen_width;
	} else {
		uint64_t start = w->pos;
		pb_open(w, MODEL_GRAPH);
		emit_graph(e, w, e->gid);
		pb_close(w);
		e->graph_sized = w->pos - start;
	}
	for (uint32_t i = 0; i <= e->ndomains; i++) {
		pb_open(w, MODEL_OPSET_IMPORT);
		pb_str(w, OPSET_DOMAIN, i ? ir_str(e->m, e->domains[i - 1])
		    : "");
		pb_varint(w, OPSET_VERSION, i ? 1 : (uint64_t)e->o->opset);
		pb_close(w);
	}
}

/* The size of the model as it would be written now. */
static uint64_t
measure(Enc *e)
{
	pb_size(&e->w);
	if (e->meta)
		be_meta_measure(e->meta, true);
	emit_model(e, &e->w);
	if (e->meta)
		be_meta_measure(e->meta, false);
	e->measured = e->w.pos;
	return e->w.pos;
}

/* Write the model measured last into o (or mem); 0 or an errno value. */
static int
emit_into(Enc *e, BeOut *o, uint8_t *mem)
{
	pb_write(&e->w, o, mem);
	emit_model(e, &e->w);
	if (e->w.next != e->w.nlens || (!e->stream && e->w.pos != e->measured))
		BUG("protobuf writer: %u submessages and %llu bytes written, "
		    "%u and %llu sized", e->w.next, (unsigned long long)
		    e->w.pos, e->w.nlens, (unsigned long long)e->measured);
	return pb_flush(&e->w);
}

/* BeEmit */
static int
emit_file(void *ctx, BeOut *o)
{
	return emit_into(ctx, o, NULL);
}

/* ---------------------------------------------------------------- model */

static void
enc_init(Enc *e, Module *m)
{
	memset(e, 0, sizeof *e);
	e->m = m;
	e->a = arena_new();
	e->errs = m->nerrors;
}

static void
enc_free(Enc *e)
{
	be_names_free(&e->names);
	for (uint32_t i = 0; i < e->ngraphs; i++) {
		const GraphPrep *gp = &e->graphs[i];
		pb_split_free(gp->split);
		pb_split_free(gp->vsplit);
		if (gp->helper) {
			be_meta_free(gp->helper->meta);
			arena_free(gp->helper->a);
			pb_free(&gp->helper->tw);
		}
	}
	arena_free(e->a);   /* after the helpers: they live in it */
	be_meta_free(e->meta);
	free(e->domains);
	free(e->graphs);
	free(e->inits);
	pb_free(&e->w);
	pb_free(&e->tw);
}

/* Check that graph g can be written as a model and settle what emit
 * needs; false after an error. */
static bool
prepare(Enc *e, GraphId g, const OnnxOptions *o)
{
	Module *m = e->m;
	ir_name_outer(m, g);
	e->o = o;
	e->gid = g;
	e->ir = onnx_ir_version(o->opset);
	if (!e->ir) {
		ir_error(m, (Loc){0, 0}, "opset %d is not supported (choose "
		    "one of 7 to 23)", o->opset);
		return false;
	}
	if (!o->no_metadata)
		e->meta = be_meta_new(m, o->strip_paths);
	return prep_graph(e, g) && m->nerrors == e->errs;
}

int
onnx_encode(Module *m, GraphId g, const OnnxOptions *o, uint8_t **buf,
    size_t *len)
{
	Enc e;
	enc_init(&e, m);
	*buf = NULL;
	*len = 0;
	if (!prepare(&e, g, o)) {
		enc_free(&e);
		return -1;
	}
	uint64_t n = measure(&e);
	if (n > MAX_MODEL_BYTES) {
		ir_error(m, (Loc){0, 0}, "the model would be %llu MB, over "
		    "the 2 GB limit of a single ONNX message; write it to a "
		    "file, where its weights can go to external data",
		    (unsigned long long)(n >> 20));
		enc_free(&e);
		return -1;
	}
	*buf = xrealloc(NULL, (size_t)n);
	emit_into(&e, NULL, *buf);
	*len = (size_t)e.w.pos;
	enc_free(&e);
	if (*len != n)
		BUG("wrote %zu bytes of %llu", *len, (unsigned long long)n);
	return 0;
}

/* ---------------------------------------------------------------- files */

static char *
textf(Enc *e, const char *f, const char *s)
{
	size_t n = (size_t)snprintf(NULL, 0, f, s);
	char *p = arena_alloc(e->a, n + 1);
	snprintf(p, n + 1, f, s);
	return p;
}

/* Move each initializer of at least threshold bytes to the data file:
 * its offset there, aligned.  Returns how many moved. */
static uint32_t
externalize(Enc *e, uint64_t threshold)
{
	uint64_t off = 0;
	uint32_t moved = 0;
	for (uint32_t i = 0; i < e->ninits; i++) {
		Init *in = &e->inits[i];
		uint64_t n = in->t->nbytes;
		if (n == 0 || n < threshold)
			continue;
		uint64_t al = n >= EXT_BIG ? EXT_ALIGN_BIG : EXT_ALIGN_SMALL;
		off = (off + al - 1) & ~(al - 1);
		in->off = off;
		in->ext = true;
		off += n;
		moved++;
	}
	return moved;
}

/* The data file: each external initializer at its offset. */
static int
write_data(Enc *e, BeOut *o)
{
	int err = 0;
	for (uint32_t i = 0; !err && i < e->ninits; i++) {
		const Init *in = &e->inits[i];
		if (!in->ext)
			continue;
		uint64_t al = in->t->nbytes >= EXT_BIG ? EXT_ALIGN_BIG
		    : EXT_ALIGN_SMALL;
		if (!(err = be_out_align(o, al)))
			err = be_out_write(o, in->t->data, in->t->nbytes);
	}
	return err;
}

/* Whether the initializers go to external data, by o and the size;
 * -1 after an error. */
static int
want_external(Enc *e, const OnnxOptions *o)
{
	if (o->external == ONNX_EXT_ALWAYS)
		return 1;
	uint64_t size = measure(e);
	if (size <= MAX_MODEL_BYTES)
		return 0;
	if (o->external == ONNX_EXT_AUTO)
		return 1;
	ir_error(e->m, (Loc){0, 0}, "the model would be %llu MB, over the "
	    "2 GB limit of a single ONNX file, and --no-external-data forbids "
	    "writing its weights to a data file beside it",
	    (unsigned long long)(size >> 20));
	return -1;
}

static int
write_external(Enc *e, const OnnxOptions *o, BeOut *model)
{
	Module *m = e->m;
	const char *target = be_out_target(model);
	const char *slash = strrchr(target, '/');
	char *data = textf(e, "%s.data", target);
	e->location = textf(e, "%s.data", slash ? slash + 1 : target);
	uint32_t moved = externalize(e, o->ext_threshold);
	uint64_t size = measure(e);
	if (size > MAX_MODEL_BYTES) {
		ir_error(m, (Loc){0, 0}, "the model would be %llu MB even "
		    "with its initializers in external data, over the 2 GB "
		    "limit of an ONNX file", (unsigned long long)(size >> 20));
		be_out_discard(model);
		return -1;
	}
	if (moved == 0) {       /* every tensor under the threshold */
		int err = emit_file(e, model);
		if (!err)
			return be_out_commit(m, &model, 1);
		be_out_report(m, model, err);
		be_out_discard(model);
		return -1;
	}
	BeOut *outs[2] = {be_out_open(m, data), model};
	if (!outs[0]) {
		be_out_discard(model);
		return -1;
	}
	int err = write_data(e, outs[0]);
	BeOut *bad = outs[0];
	if (!err) {
		err = emit_file(e, model);
		bad = model;
	}
	if (err) {
		be_out_report(m, bad, err);
		be_out_discard(outs[0]);
		be_out_discard(model);
		return -1;
	}
	return be_out_commit(m, outs, 2);
}

/* ------------------------------------------------------------ streaming */

static unsigned nstreamed;

unsigned
onnx_streamed(void)
{
	return nstreamed;
}

/* A big graph (split) alone in its model, whose weights may stay inline:
 * its nodes and value_info can be sized as they are written. */
static bool
can_stream(const Enc *e)
{
	return e->o->stream_width >= 0 && e->o->external != ONNX_EXT_ALWAYS
	    && e->ngraphs == 1 && e->graphs[0].split;
}

static void
set_stream(Enc *e, bool on)
{
	GraphPrep *gp = &e->graphs[0];
	e->stream = on;
	pb_split_stream(gp->split, on);
	if (gp->vsplit)
		pb_split_stream(gp->vsplit, on);
}

/* The bytes a graph of about est bytes needs for its length; 0 where
 * est lies within a quarter of a boundary between varint lengths, too
 * near to trust. */
static unsigned
length_width(uint64_t est)
{
	unsigned w = pb_varint_len(est);
	uint64_t lo = w > 1 ? UINT64_C(1) << 7 * (w - 1) : 0;
	uint64_t hi = UINT64_C(1) << 7 * w;
	return est - est / 4 < lo || est + est / 4 >= hi ? 0 : w;
}

/* Write the model into out with the big graph's nodes and value_info
 * sized as they are written, so that its first bytes go out at once and
 * the writer walks them once, not twice.  The graph's length goes at its
 * head before they are written: its width is guessed from a sample, and
 * the bytes are patched in at the end.  Returns 0 or -1 (reported) as
 * be_out_commit, out consumed; 1 where it did not fit the guess (or
 * might need external data), out emptied for the two walks. */
static int
write_streamed(Enc *e, BeOut *out)
{
	set_stream(e, true);
	uint64_t base = measure(e);
	const GraphPrep *gp = &e->graphs[0];
	uint64_t body = e->graph_sized + pb_split_estimate(gp->split) +
	    (gp->vsplit ? pb_split_estimate(gp->vsplit) : 0);
	unsigned width = e->o->stream_width ? (unsigned)e->o->stream_width
	    : length_width(body);
	if (width == 0 || base - e->graph_sized + body + body / 4 >
	    MAX_MODEL_BYTES) {
		set_stream(e, false);
		return 1;
	}
	e->glen_width = width;
	int err = emit_into(e, out, NULL);
	uint8_t len[10];
	if (!err && (e->w.pos > MAX_MODEL_BYTES ||
	    !pb_varint_in(len, e->glen, width))) {
		set_stream(e, false);
		if (!(err = be_out_rewind(out)))
			return 1;
	}
	if (!err)
		err = be_out_patch(out, e->glen_at, len, width);
	if (err) {
		be_out_report(e->m, out, err);
		be_out_discard(out);
		return -1;
	}
	nstreamed++;
	return be_out_commit(e->m, &out, 1);
}

int
onnx_write(Module *m, GraphId g, const OnnxOptions *o, const char *path)
{
	Enc e;
	enc_init(&e, m);
	BeOut *out = NULL;
	int rc = prepare(&e, g, o) ? 1 : -1;
	if (rc == 1 && can_stream(&e)) {
		/* opened once: a FIFO's reader would see an end */
		out = be_out_open(m, path);
		if (!out)
			rc = -1;
		else if (be_out_seekable(out))
			rc = write_streamed(&e, out);
	}
	int ext = rc == 1 ? want_external(&e, o) : -1;
	if (ext == 0) {
		rc = out ? be_write_into(m, out, emit_file, &e)
		    : be_write_atomic(m, path, emit_file, &e);
	} else if (ext == 1) {
		BeOut *model = out ? out : be_out_open(m, path);
		rc = model ? write_external(&e, o, model) : -1;
	} else if (rc == 1) {
		be_out_discard(out);
		rc = -1;
	}
	enc_free(&e);
	return rc;
}
