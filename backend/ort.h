/* ort.h - the ORT-format backend: a lowered graph -> ONNX Runtime's .ort
 * FlatBuffer (file identifier ORTM). */
#ifndef ONNXC_ORT_H
#define ONNXC_ORT_H

#include "onnx.h"

/* Write graph g as an .ort model to path (temporary file + rename).
 * Returns 0 or -1 (reported). */
int ort_write(Module *m, GraphId g, const OnnxOptions *o, const char *path);
/* The same bytes in a malloc'ed buffer (tests, fuzzing). */
int ort_encode(Module *m, GraphId g, const OnnxOptions *o, uint8_t **buf,
    size_t *len);

#endif
