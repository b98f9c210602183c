/* lower_shape.h - what the lower_shape*.c rule files share; private to
 * them. */
#ifndef ONNXC_LOWER_SHAPE_H
#define ONNXC_LOWER_SHAPE_H

#include "lower.h"

enum {
	MAXT = 1024, /* tensors in one Tensor[] argument */
	/* static aranges up to this many elements become constants */
	MAXCONST = 1 << 16,
};

/* The number an int-like argument stands for, if it is static. */
bool lws_argnum(Lower *L, const Arg *a, int64_t *out);

/* Bind the ONNX results of node n to the first nout FX outputs. */
void lws_bind_all(Lower *L, NodeId n, int cnt);

int lws_ones(Lower *L);

#endif
