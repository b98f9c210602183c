/* ort.h - the ORT-format writer: a lowered graph -> ONNX Runtime's .ort
 * FlatBuffer (file identifier ORTM); the be_ort row of the writers' table
 * (backend.h). */
#ifndef ONNXC_ORT_H
#define ONNXC_ORT_H

#include "backend.h"

/* Write graph g as an .ort model to path (temporary file + rename).
 * Returns 0 or -1 (reported). */
int ort_write(Module *m, GraphId g, const BeOptions *o, const char *path);
/* The same bytes in a malloc'ed buffer (tests, fuzzing). */
int ort_encode(Module *m, GraphId g, const BeOptions *o, uint8_t **buf,
    size_t *len);

#endif
