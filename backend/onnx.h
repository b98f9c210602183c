/* onnx.h - the ONNX backend: a lowered graph -> ModelProto bytes. */
#ifndef ONNXC_ONNX_H
#define ONNXC_ONNX_H

#include "../ir/ir.h"
#include "out.h"

/* Where initializers go (onnx_write): beside the model in <model>.data
 * when it would not fit in 2 GB, always, or never (an error then). */
typedef enum OnnxExternal {
	ONNX_EXT_AUTO,
	ONNX_EXT_ALWAYS,
	ONNX_EXT_NEVER,
} OnnxExternal;

/* torch.onnx's threshold (ParamSizeThresholdForExternalStorage), which
 * onnx.save_model's size_threshold shares */
#define ONNX_EXT_THRESHOLD 1024

typedef struct OnnxOptions {
	int opset;           /* default-domain opset, 17..23 */
	bool no_metadata;    /* write no metadata_props at all */
	bool strip_paths;    /* stack traces keep file names only */
	bool init_inputs;    /* initializers are graph inputs too */
	bool no_weights;     /* no initializers: weights are graph inputs */
	OnnxExternal external;
	uint64_t ext_threshold; /* smaller initializers stay inline */
	/* the nodes of a graph go out in chunks of this many, two threads
	 * making them (pbsplit.h): 0 for ONNX_SPLIT_NODES, UINT32_MAX for
	 * one thread and no chunks */
	uint32_t split_nodes;
	int threads;         /* 1: chunks made on one thread (a check) */
	/* a big graph written as it is sized (onnx_write): the bytes of its
	 * length, 0 to guess them, -1 never to stream (checks) */
	int stream_width;
} OnnxOptions;

#define ONNX_SPLIT_NODES 4096

/* ir_version for an opset (opset 18 -> 8, ...) */
int onnx_ir_version(int opset);
/* Write graph g (D_ONNX nodes) as a model to path, and its external data
 * to path.data if it has any; both appear only on success (out.h).
 * Returns 0 or -1 (reported). */
int onnx_write(Module *m, GraphId g, const OnnxOptions *o, const char *path);
/* Models onnx_write wrote streaming, its big graph sized as written
 * (for tests). */
unsigned onnx_streamed(void);
/* The same model packed into a malloc'ed buffer (for tests and fuzzing). */
int onnx_encode(Module *m, GraphId g, const OnnxOptions *o, uint8_t **buf,
    size_t *len);

/* Node names "node_<base>", then "node_<base>_1", ... unique in a model;
 * both backends name nodes alike. */
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
