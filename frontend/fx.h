/* fx.h - the frontend: FX graph dumps (as PyTorch prints them) -> IR. */
#ifndef ONNXC_FX_H
#define ONNXC_FX_H

#include "../ir/ir.h"

/* Parse m->src[0..m->srclen) (m->file names it in diagnostics) into FX
 * graphs of m: the main graph (*out) and one graph per higher-order-op
 * body.  Returns 0, or -1 after reporting every error found. */
int fx_parse(Module *m, GraphId *out);

/* The same with options: tests read a dump with the fast statement path
 * (fx_fast.c) off and compare, and count the lines it read. */
typedef struct FxOpts {
	bool general;        /* every line token by token, also in the
	                      * prescan for getitems */
	uint32_t fastlines;  /* out: lines the fast path read */
} FxOpts;
int fx_parse_with(Module *m, GraphId *out, FxOpts *o);

/* The reader table's entry for dumps (reader.h): it takes any input no
 * other reader took. */
struct FeReader;
extern const struct FeReader fx_reader;

#endif
