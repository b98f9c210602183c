/* ort_int.h - the ORT writer's own header, for backend/ort*.c only: its
 * state (Enc, Plan), ort.fbs's slots, and what its files share.
 *   ort.c           the plan of each graph, graphs, the model, files
 *   ort_node.c      types, tensors, attributes, nodes and their edges
 *   ort_resolver.c  the kernel type-string resolver
 */
#ifndef ONNXC_ORT_INT_H
#define ONNXC_ORT_INT_H

#include <stdlib.h>
#include <string.h>

#include <onnxc/table.h>

#include "fbs.h"
#include "opschema.h"
#include "ort.h"

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

/* ort.c */
void ort_internal(Enc *e, const char *f, ...);
/* Decide what becomes what in e->p.g: value names, initializers, node
 * indices and schemas.  Returns false after reporting. */
bool ort_plan(Enc *e);
/* the Graph table of e->p */
FbsRef ort_graph(Enc *e);
/* A Graph attribute: subgraph gid, planned and built. */
FbsRef ort_subgraph(Enc *e, GraphId gid);

/* ort_node.c */
/* TypeInfo of a tensor; the shape from d (IR dims) or nd (numbers), none
 * when rank < 0 or !withshape. */
FbsRef ort_type_info(Enc *e, DType dt, int32_t rank, const Dim *d,
    const int64_t *nd, bool withshape);
FbsRef ort_value_info(Enc *e, StrId name, FbsRef type);
/* a Tensor table of t's bytes (referenced, not copied); 0 after an error */
FbsRef ort_tensor(Enc *e, const Tensor *t, StrId name);
FbsRef ort_node(Enc *e, NodeId id);
/* One NodeEdge per node (ORT index order), both directions. */
FbsRef ort_node_edges(Enc *e, uint32_t nnodes);

/* ort_resolver.c */
FbsRef ort_resolver(Enc *e);

static inline void *
xcalloc(size_t n, size_t sz)
{
	void *p = onnxc_table_calloc(n, sz);
	if (!p)
		ir_oom(0);
	return p;
}

/* A string of the module, written once and shared. */
static inline FbsRef
str(Enc *e, StrId s)
{
	vgrow((void **)&e->sref, &e->nsref, s + 1, sizeof *e->sref);
	if (!e->sref[s])
		e->sref[s] = fbs_string(e->b, ir_str(e->m, s));
	return e->sref[s];
}

static inline FbsRef
cstr(Enc *e, const char *s)
{
	return str(e, ir_intern(e->m, s));
}

static inline FbsRef
empty_vec(Enc *e)
{
	if (!e->empty)
		e->empty = fbs_vec_refs(e->b, NULL, 0);
	return e->empty;
}

/* The inputs a node really has: trailing missing ones are left out. */
static inline uint32_t
node_inputs(const Graph *g, NodeId id)
{
	uint32_t n = ir_npos(g, id);
	while (n > 0 && ir_arg(g, id, n - 1)->kind == A_NONE)
		n--;
	return n;
}

#endif
