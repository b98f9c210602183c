/* backend.h - what every writer shares: the options, the node names and
 * torch.onnx's metadata texts, and the table of writers (backend.c) the
 * driver picks from by --emit or by the output's extension.
 *
 * A writer turns graph g of a Module (D_ONNX nodes, as the lower pass
 * leaves it) into one output format.  Adding a format is one file with its
 * BeWriter and one row of be_writers (backend.c); the driver knows none of
 * them by name.
 */
#ifndef ONNXC_BACKEND_H
#define ONNXC_BACKEND_H

#include "../ir/ir.h"
#include "out.h"

/* Where initializers go: beside the model in <model>.data when it would
 * not fit (the writer's limit), always, or never (an error then). */
typedef enum BeExternal {
	BE_EXT_AUTO,
	BE_EXT_ALWAYS,
	BE_EXT_NEVER,
} BeExternal;

/* torch.onnx's threshold (ParamSizeThresholdForExternalStorage), which
 * onnx.save_model's size_threshold shares */
#define BE_EXT_THRESHOLD 1024

typedef struct BeOptions {
	int opset;           /* default-domain opset, 17..23 */
	bool no_metadata;    /* write no metadata_props at all */
	bool strip_paths;    /* stack traces keep file names only */
	bool init_inputs;    /* initializers are graph inputs too */
	bool no_weights;     /* no initializers: weights are graph inputs */
	BeExternal external;
	uint64_t ext_threshold; /* smaller initializers stay inline */
	/* The ONNX writer's checks (tests): the nodes of a graph go out in
	 * chunks of this many, two threads making them (pbsplit.h): 0 for
	 * ONNX_SPLIT_NODES, UINT32_MAX for one thread and no chunks */
	uint32_t split_nodes;
	int threads;         /* 1: chunks made on one thread (a check) */
	/* a big graph written as it is sized (onnx_write): the bytes of its
	 * length, 0 to guess them, -1 never to stream (checks) */
	int stream_width;
	/* per run, out: incremented when onnx_write streamed the graph (its
	 * nodes sized as written); NULL when nobody asks (tests ask) */
	unsigned *streamed;
} BeOptions;

/* One output format. */
typedef struct BeWriter {
	const char *name;      /* --emit NAME */
	const char *ext;       /* an output name ending so picks it, or NULL */
	const char *summary;   /* for the usage text */
	/* The ONNX function ops (HardSwish) may be written for the runtime to
	 * inline: true for formats ONNX Runtime loads as ONNX, false for .ort,
	 * which needs a kernel for each node. */
	bool function_ops;
	/* The options this format cannot honour: a usage error text (no
	 * "error: " prefix), or NULL. */
	const char *(*check)(const BeOptions *o);
	/* Write g to path (and whatever files go beside it); every file
	 * appears only on success (out.h).  Returns 0 or -1 (reported). */
	int (*write)(Module *m, GraphId g, const BeOptions *o,
	    const char *path);
	/* Where the weights went, for --report. */
	const char *(*weights)(const BeOptions *o);
} BeWriter;

/* The writers (backend.c), NULL-terminated; the first is the default.
 * Each is defined in its own file (onnx.c: be_onnx, ...). */
extern const BeWriter *const be_writers[];
/* by --emit NAME; NULL if none */
const BeWriter *be_writer_named(const char *name);
/* by the extension of path; the first writer if none claims it */
const BeWriter *be_writer_for(const char *path);
/* "onnx, ort or text": the names, for messages */
const char *be_writer_names(char *buf, size_t cap);

/* ir_version for an opset (opset 18 -> 8, ...); 0 if unknown */
int be_ir_version(int opset);
/* The name of value v of graph gid: set by the lower pass; a fallback
 * ("_v3", "_g2_v3" in a subgraph) keeps the model well formed if one
 * slipped through. */
StrId be_value_name(Module *m, GraphId gid, const Graph *g, ValId v);

/* Whether t can be written as raw bytes: its type has a byte layout and
 * its bytes are those its shape needs.  Reports why not ("cannot write
 * tensor 'NAME' of type T to <format>"), naming it name, or t's own name
 * when name is NULL; backend names the writer in internal errors. */
bool be_tensor_check(Module *m, const Tensor *t, const char *name,
    const char *format, const char *backend);
/* The bytes raw_data of dt and numel elements takes (4-bit types two to a
 * byte); false for types without a byte layout, or on overflow. */
bool be_raw_size(DType dt, uint64_t numel, uint64_t *out);

/* An initializer, in model order, and where it goes: inline, or at off in
 * the data file beside the model (ONNX external data). */
typedef struct BeInit {
	const Tensor *t;
	uint64_t off;     /* in the data file, when ext */
	bool ext;
} BeInit;
/* Move each initializer of at least threshold bytes to the data file,
 * at its offset there, aligned; returns how many moved. */
uint32_t be_ext_place(BeInit *in, uint32_t n, uint64_t threshold);
/* The data file: each moved initializer at its offset (0 or an errno). */
int be_ext_write(BeOut *o, const BeInit *in, uint32_t n);

/* The kind of a list attribute; BE_LIST_MIXED (0) for a list no ONNX
 * attribute can hold.  The empty list is ints. */
typedef enum BeListKind {
	BE_LIST_MIXED, BE_LIST_INTS, BE_LIST_FLOATS, BE_LIST_STRINGS,
} BeListKind;
BeListKind be_list_kind(const Graph *g, const Arg *a);

/* Node names "node_<base>", then "node_<base>_1", ... unique in a model;
 * every writer names nodes alike. */
typedef struct BeNames {
	uint8_t *used;    /* taken, by StrId */
	uint32_t *serial; /* next suffix per base, by StrId */
	uint32_t nused, nserial;
} BeNames;
/* the name for a node of base name base (its FX name, or its op), as the
 * StrId of what follows "node_"; be_node_text writes it out */
StrId be_node_name(Module *m, BeNames *nm, StrId base);
enum { BE_NODE_NAME_MAX = 320 };
const char *be_node_text(Module *m, StrId name, char buf[BE_NODE_NAME_MAX],
    size_t *len);
void be_names_free(BeNames *nm);

/* meta.c: torch.onnx's metadata texts (keys and formats of
 * torch/onnx/_internal/exporter/_core.py).  The signature's text lives
 * until be_meta_free. */
typedef struct BeMeta BeMeta;
/* a text and its length (written with the length) */
typedef struct BeText {
	const char *s;
	size_t n;
} BeText;
typedef struct BeNodeMeta {
	BeText ns;      /* namespace: "path: Class/.../name: target" */
	BeText classes; /* pkg.torch.onnx.class_hierarchy: repr(list) */
	BeText scopes;  /* pkg.torch.onnx.name_scopes: repr(list) */
	BeText fx_node; /* pkg.torch.onnx.fx_node: Node.format_node() */
	BeText trace;   /* pkg.torch.onnx.stack_trace ("" if none) */
} BeNodeMeta;
BeMeta *be_meta_new(Module *m, bool strip_paths);
void be_meta_free(BeMeta *x);
/* A BeMeta for another thread: it reads x's tables, which must outlive
 * it, and has buffers and caches of its own. */
BeMeta *be_meta_fork(const BeMeta *x);
/* the keys of a node made from an FX node; false if n has no FX name.
 * The texts last until the next call on x: the writer makes them as it
 * writes each node and keeps none.  Only the last text made and texts
 * that are the module's strings are NUL-terminated. */
bool be_meta_node(BeMeta *x, const Node *n, BeNodeMeta *out);
/* While on, be_meta_node only measures: each text has its length and a
 * NULL s (the writer's sizing walk needs no more). */
void be_meta_measure(BeMeta *x, bool on);
/* str(ExportGraphSignature) of graph g, its inputs and outputs under
 * their FX names */
const char *be_meta_signature(BeMeta *x, GraphId g);
const char *be_input_kind(Role r);      /* "PARAMETER" ... */
const char *be_output_kind(OutKind o);  /* "USER_OUTPUT" ... */
const char *be_persist_text(const Value *v); /* "True" "False" "None" */

#endif
