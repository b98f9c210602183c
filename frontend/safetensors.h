/* safetensors.h - reading weights from a .safetensors file (mapped, never
 * copied) and binding them to a graph's parameters, buffers and constants. */
#ifndef ONNXC_SAFETENSORS_H
#define ONNXC_SAFETENSORS_H

#include "../ir/ir.h"

typedef struct StFile StFile;

/* Map and validate path; reports problems as errors of m.  Returns NULL on
 * failure. */
StFile *st_open(Module *m, const char *path);
void st_close(StFile *f);
/* The open file and its mapping (for copying weights by the kernel). */
int st_fd(const StFile *f, const void **map, size_t *len);
/* number of tensors, and tensor i as a Tensor whose data points into the
 * mapping (name interned in m) */
uint32_t st_count(const StFile *f);
const Tensor *st_get(const StFile *f, uint32_t i);
const Tensor *st_find(const StFile *f, const char *name);
/* For each PARAM/BUFFER/CONST input of graph g: find its target, check
 * dtype and shape against the annotation, set Value.init.  Returns 0, or
 * -1 after reporting every mismatch. */
int st_bind(Module *m, StFile *f, GraphId g);
/* The same for the tensors f has; inputs it lacks keep their binding
 * (--weights over an archive's own weights). */
int st_bind_over(Module *m, StFile *f, GraphId g);

/* Binding one tensor t (from src, for messages) to weight input v, with
 * the checks of st_bind; weights annotated with symbolic dims are
 * collected in a note, reported once by st_sym_note. */
typedef struct StSymNote {
	uint32_t nsym;
	char first[600];
} StSymNote;
int st_bind_value(Module *m, GraphId g, ValId v, const Tensor *t,
    const char *src, StSymNote *note);
void st_sym_note(Module *m, const StSymNote *note, const char *src);

#endif
