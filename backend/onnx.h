/* onnx.h - the ONNX backend: a lowered graph -> ModelProto bytes. */
#ifndef ONNXC_ONNX_H
#define ONNXC_ONNX_H

#include "../ir/ir.h"

typedef struct OnnxOptions {
	int opset;           /* default-domain opset, 17..23 */
} OnnxOptions;

/* ir_version for an opset (opset 18 -> 8, ...) */
int onnx_ir_version(int opset);
/* Write graph g (D_ONNX nodes) as a model to path: streamed into a
 * temporary file in the same folder, renamed into place on success, removed
 * on failure.  Returns 0 or -1 (reported). */
int onnx_write(Module *m, GraphId g, const OnnxOptions *o, const char *path);
/* The same model packed into a malloc'ed buffer (for tests and fuzzing). */
int onnx_encode(Module *m, GraphId g, const OnnxOptions *o, uint8_t **buf,
    size_t *len);

/* out.c: write path so that it appears only when complete (temporary file
 * beside it, renamed on success, removed on failure).  emit writes the
 * bytes to fp and returns 0 or an errno value.  Returns 0 or -1 (reported
 * as "cannot write PATH: reason"). */
typedef int (*BeEmit)(void *ctx, FILE *fp);
int be_write_atomic(Module *m, const char *path, BeEmit emit, void *ctx);
/* Node names "node_<base>", then "node_<base>_1", ... unique in a model;
 * both backends name nodes alike. */
typedef struct BeNames {
	uint8_t *used;    /* taken, by StrId */
	uint32_t *serial; /* next suffix per base, by StrId */
	uint32_t nused, nserial;
} BeNames;
StrId be_node_name(Module *m, BeNames *nm, const char *base);
void be_names_free(BeNames *nm);

#endif
