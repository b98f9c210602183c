/* fx.h - the frontend: FX graph dumps (as PyTorch prints them) -> IR. */
#ifndef ONNXC_FX_H
#define ONNXC_FX_H

#include "../ir/ir.h"

/* Parse m->src[0..m->srclen) (m->file names it in diagnostics) into FX
 * graphs of m: the main graph (*out) and one graph per higher-order-op
 * body.  Returns 0, or -1 after reporting every error found. */
int fx_parse(Module *m, GraphId *out);

#endif
