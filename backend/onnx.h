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
	OnnxExternal external;
	uint64_t ext_threshold; /* smaller initializers stay inline */
} OnnxOptions;

/* ir_version for an opset (opset 18 -> 8, ...) */
int onnx_ir_version(int opset);
/* Write graph g (D_ONNX nodes) as a model to path, and its external data
 * to path.data if it has any; both appear only on success (out.h).
 * Returns 0 or -1 (reported). */
int onnx_write(Module *m, GraphId g, const OnnxOptions *o, const char *path);
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
StrId be_node_name(Module *m, BeNames *nm, const char *base);
void be_names_free(BeNames *nm);

#endif
