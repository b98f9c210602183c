/* pickle.h - a restricted reader of the pickles torch.save writes for
 * tensors: a dict (or OrderedDict) of names to tensors, or one tensor.
 * Nothing is executed: the few globals torch.save uses are recognised by
 * name and interpreted here; any other global or opcode is an error. */
#ifndef ONNXC_PICKLE_H
#define ONNXC_PICKLE_H

#include "../ir/ir.h"

typedef struct PkTensor {
	const char *key;      /* its name in the dict; NULL for a lone tensor */
	const char *storage;  /* the storage's persistent key ("0") */
	uint8_t dtype;        /* from the storage class (FloatStorage) */
	int32_t rank;
	const int64_t *sizes, *strides;
	int64_t offset;       /* storage offset, in elements */
} PkTensor;

/* Reads p[0..n); the tensors go to *out (in a).  Returns -1 with *err (a
 * message in a) and *pos (the opcode's offset) on anything else. */
int pk_read(Arena *a, const unsigned char *p, size_t n, PkTensor **out,
    uint32_t *count, const char **err, size_t *pos);

#endif
