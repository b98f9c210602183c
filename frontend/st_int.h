/* st_int.h - private to the safetensors reader (safetensors.c, the file
 * and binding; st_header.c, its JSON header). */
#ifndef ONNXC_ST_INT_H
#define ONNXC_ST_INT_H

#include "safetensors.h"

struct StFile {
	Module *m;
	const char *path;        /* in m's arena */
	const unsigned char *map;
	size_t size;
	int fd;                  /* kept open: writers copy from it */
	const unsigned char *data; /* the data section */
	uint64_t datalen;
	Tensor *t;
	uint32_t n, cap;
	uint32_t *byname;        /* indices of t sorted by name */
};

/* safetensors.c: an error about the file, against the weights path (the
 * file has no text lines to show): "PATH: error: tensor 'NAME': message";
 * tensor NULL for one about the whole file */
void st_bad(StFile *f, const char *tensor, const char *fmt, ...);

/* st_header.c */
/* the header's tensors into f->t (data pointing into f->data), sorted by
 * name into f->byname; false if it was unusable (reported) */
bool st_header(StFile *f, const char *s, size_t n);
/* the format's name of a dtype ("F32"), else onnxc's */
const char *st_dtype_name(DType dt);
/* "[2, 3]" into buf */
const char *st_shape_text(char *buf, size_t cap, const int64_t *dims,
    int32_t rank);

#endif
