/* lower_reduce.h - what the lower_reduce*.c rule files share; private to
 * them. */
#ifndef ONNXC_LOWER_REDUCE_H
#define ONNXC_LOWER_REDUCE_H

#include "lower.h"

#define MAXAXES 64

/* The axes of a reduction over an input of rank `rank`: n < 0 means every
 * axis.  Axes are normalised to 0..rank-1 when the rank is known.  cst is
 * their INT64 constant once emitted, shared by a rule's reductions. */
typedef struct Axes {
	int n;
	int rank;
	int64_t v[MAXAXES];
	ValId cst;
} Axes;

ValId lwr_op1t(Lower *L, const char *op, ValId x, DType dt);

/* dtype FX output k is annotated with, or dflt when it has none */
DType lwr_outdt(Lower *L, int k, DType dflt);

bool lwr_has_out(Lower *L, int k);

/* Element type sums, products, extrema and scans compute in. */
DType lwr_acc_type(DType dt);

/* Element type for ops with float kernels only (means, norms, softmax). */
DType lwr_float_type(DType dt);

/* Reads a dim or dim-list argument: absent, None and [] mean every axis
 * (as for torch's sum, mean, amax ...).  Returns -1 after reporting. */
int lwr_read_axes(Lower *L, int i, const char *kw, const Value *sv, Axes *ax);

/* A single dim argument normalised against rank; *d stays dflt if absent.
 * Returns -1 after reporting. */
int lwr_read_dim(Lower *L, int i, const char *kw, const Value *sv, int64_t dflt,
    int64_t *d);

/* An ONNX Reduce* over ax.  On a 0-d input every reduction is the identity
 * (L1/L2: the magnitude), which torch allows and ONNX leaves vague. */
ValId lwr_reduce(Lower *L, const char *op, ValId x, Axes *ax, bool keep);

/* The input, cast to the dtype argument first when there is one (torch
 * converts before reducing), then to the compute type ct.  dti is the
 * dtype's position, -1 where it is keyword-only. */
ValId lwr_input_as(Lower *L, int dti, DType ct);

/* The mean over ax: NaN over zero elements, as in PyTorch */
ValId lwr_mean(Lower *L, const Value *sv, ValId x, Axes *ax, bool keep);

#endif
