/* onnx_int.h - the ONNX writer's own header, for backend/onnx*.c only:
 * its state (Enc), what prepare settles, and what its files share.
 *   onnx.c       the model: sizing, writing, streaming, external data
 *   onnx_prep.c  prepare: checks, node names, initializers, the plan
 *   onnx_emit.c  the protobuf fields, the same in the sizing and the
 *                writing run
 */
#ifndef ONNXC_ONNX_INT_H
#define ONNXC_ONNX_INT_H

#include "onnx.h"
#include "pb.h"
#include "pbsplit.h"

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
	const BeOptions *o;
	BeMeta *meta;        /* provenance texts; NULL: --no-metadata */
	uint64_t measured;   /* the model's size by the last sizing walk */
	StrId *domains;      /* non-default domains the nodes use */
	uint32_t ndomains, cdomains;
	GraphPrep *graphs;   /* graph occurrences in the order emitted */
	uint32_t ngraphs, cgraphs;
	uint32_t emitted;    /* graph occurrences emitted in this run */
	BeInit *inits;         /* every initializer, in model order */
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

/* A split's context on one thread: one graph occurrence.  The helper's
 * Enc has only what emit_node and emit_value read: m, o, and its own
 * meta, arena and type cache. */
typedef struct Run {
	Enc *e;
	GraphId gid;
	const NodePrep *nodes;
	const uint8_t *isout;
} Run;

/* onnx_prep.c */
void onnx_internal(Enc *e, const char *f, ...);
/* The name of value v of graph gid: set by the lower pass; a fallback
 * keeps the model well formed if one slipped through. */
StrId onnx_valname(Enc *e, GraphId gid, const Graph *g, ValId v);
/* Checks graph gid and its subgraphs and settles what emitting needs
 * (a GraphPrep per occurrence); false after an error. */
bool onnx_prep_graph(Enc *e, GraphId gid);

/* onnx_emit.c */
/* The model's fields; emitted twice, to size and to write (pb.h). */
void onnx_emit_model(Enc *e, Pb *w);
/* Plans graph gid's nodes and value_info on two threads where that pays
 * (gp->split, gp->vsplit). */
void onnx_plan_split(Enc *e, GraphId gid, const Graph *g, GraphPrep *gp);

static inline const char *
vname(Enc *e, GraphId gid, const Graph *g, ValId v)
{
	return ir_str(e->m, onnx_valname(e, gid, g, v));
}

/* An interned string as a field, its length known. */
static inline void
pb_strid(Pb *w, uint32_t field, const Module *m, StrId s)
{
	pb_bytes(w, field, ir_str(m, s), ir_strlen(m, s));
}

static inline bool
is_top(const Enc *e, GraphId gid)
{
	return gid == e->m->main || !ir_graph(e->m, gid)->parent;
}

static inline bool
has_type(const Value *p)
{
	return p->kind == VK_TENSOR && p->dtype != DT_UNDEF;
}

/* The kind of a list attribute (AT_INTS, AT_FLOATS, AT_STRINGS); 0 for a
 * list of mixed kinds.  The empty list is ints. */
static inline int
list_type(const Graph *g, const Arg *a)
{
	static const int at[] = {[BE_LIST_INTS] = AT_INTS,
		[BE_LIST_FLOATS] = AT_FLOATS, [BE_LIST_STRINGS] = AT_STRINGS};
	return at[be_list_kind(g, a)];
}

/* Inputs written: trailing missing ones are left out. */
static inline uint32_t
node_nin(const Graph *g, NodeId id, uint32_t npos)
{
	while (npos > 0 && ir_arg(g, id, npos - 1)->kind == A_NONE)
		npos--;
	return npos;
}

#endif
