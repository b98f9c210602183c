/* onnx.h - the ONNX writer: a lowered graph -> ModelProto bytes (the
 * be_onnx row of the writers' table, backend.h). */
#ifndef ONNXC_ONNX_H
#define ONNXC_ONNX_H

#include "backend.h"

#define ONNX_SPLIT_NODES 4096

/* Write graph g (D_ONNX nodes) as a model to path, and its external data
 * to path.data if it has any; both appear only on success (out.h).
 * Returns 0 or -1 (reported). */
int onnx_write(Module *m, GraphId g, const BeOptions *o, const char *path);
/* The same model packed into a malloc'ed buffer (for tests and fuzzing). */
int onnx_encode(Module *m, GraphId g, const BeOptions *o, uint8_t **buf,
    size_t *len);

#endif
