/* pt2.h - the frontend for .pt2 archives (torch.export.save): the JSON
 * program into the same IR the dump parser builds, and the archive's
 * weights bound as initializers that point into the mapped file. */
#ifndef ONNXC_PT2_H
#define ONNXC_PT2_H

#include "../ir/ir.h"

typedef struct Pt2 Pt2;

/* Opens the archive buf[0..len) (mapped by the caller, kept mapped until
 * pt2_close; path names it in messages) and parses program (NULL: the
 * only one) into FX graphs of m (*out).  From then on m->file and m->src
 * are the program's JSON, so later diagnostics point into it.  Returns
 * NULL after reporting errors. */
Pt2 *pt2_open(Module *m, const char *path, const unsigned char *buf,
    size_t len, const char *program, GraphId *out);
/* Binds the archive's parameters, buffers and constants to graph g's
 * weight inputs.  Returns -1 after errors. */
int pt2_bind(Pt2 *a, GraphId g);
void pt2_close(Pt2 *a);

/* The reader table's entry for archives (reader.h). */
struct FeReader;
extern const struct FeReader pt2_reader;

#endif
