/* lower_nn.h - what the lower_nn*.c rule files share; private to
 * them. */
#ifndef ONNXC_LOWER_NN_H
#define ONNXC_LOWER_NN_H

#include "lower.h"

#define MAXSP 3 /* spatial dimensions: 1d, 2d, 3d */

/* Matrix products keep f64 and integers (ORT's MatMul has them). */
ValId lwn_mm_work(Lower *L, ValId v);

/* Conv, pooling, normalization and Resize: ORT's CPU kernels are float
 * only, so every floating type is computed as f32. */
ValId lwn_f32(Lower *L, ValId v);

bool lwn_used(Lower *L, int k);

/* Bind FX output k to v cast to its annotated dtype. */
void lwn_bind_out(Lower *L, int k, ValId v);

/* An optional tensor argument: 0 when absent or None; *err set when it is
 * present but cannot be used. */
ValId lwn_opt_in(Lower *L, int i, const char *kw, bool *err);

ValId lwn_settyped(Lower *L, NodeId n, int k, DType dt);

/* Shape(x)[start:end]; end == INT64_MAX for "to the end". */
ValId lwn_shape_of(Lower *L, ValId x, int64_t start, int64_t end);

/* Reductions take axes as an attribute before opset 18, as an input from
 * 18 on (ReduceSum from 13). */
ValId lwn_reduce(Lower *L, const char *op, ValId x, const int64_t *axes, int n,
    bool keep);

ValId lwn_reshape(Lower *L, ValId x, const int64_t *dims, int n);

ValId lwn_unsqueeze(Lower *L, ValId x, int64_t axis);

ValId lwn_squeeze(Lower *L, ValId x, int64_t axis);

ValId lwn_transpose(Lower *L, ValId x, const int64_t *perm, int n);

/* A tensor of the given runtime shape filled with v. */
ValId lwn_fill(Lower *L, ValId shape, double v, DType dt);

/* A per-channel vector [C] as [C, 1, ..., 1] for a rank-r NC... tensor. */
ValId lwn_per_channel(Lower *L, ValId v, int rank);

/* lower_resample_u8.c: bilinear or bicubic resampling of a uint8 x [..,
 * in[0], in[1]] to out[] as PyTorch's integer kernel computes it;
 * scale[k] is its source step per output step; 0 (reported) when it
 * cannot */
ValId lwn_resample_u8(Lower *L, ValId x, const int64_t in[2],
    const int64_t out[2], const double scale[2], bool align, bool cubic);
/* the same for bilinear of an input height or width (dims lead, lead + 1)
 * known at run time only; given[k]: PyTorch's scales, 0 when none */
ValId lwn_resample_u8_dyn(Lower *L, ValId x, int lead, const int64_t out[2],
    const double given[2], bool align);

/* Spatial parameter list i: one element stands for every dimension
 * (int[2] accepts an int).  Returns 1 when set, 0 when absent or empty
 * (out untouched: the caller fills defaults first), -1 on error. */
int lwn_spatial(Lower *L, int i, const char *kw, int nd, int64_t *out);

/* A list of Python floats (scale factors): its length, or -1 when absent;
 * -2 after an error. */
int lwn_floats(Lower *L, int i, const char *kw, double *out, int cap);

/* lower_nn_win.c: x gathered along axis with idx[i][k] = i*step + k*dil,
 * i < n, k < size: the axis becomes the two axes [n, size]. */
ValId lwn_windows(Lower *L, ValId x, int64_t axis, int64_t n, int64_t size,
    int64_t step, int64_t dil);

/* lower_nn_intwin.c: int64 convolution and pooling, exact where ONNX
 * Runtime's kernels take floats only.  x is [N, C, S...] with the static
 * spatial sizes in[]; pads are ONNX's (begins, then ends).  0 (reported)
 * when it cannot. */
typedef struct IntWin {
	int nd;
	int64_t in[MAXSP], k[MAXSP], s[MAXSP], d[MAXSP], pads[2 * MAXSP];
} IntWin;
ValId lwn_conv_int(Lower *L, const IntWin *W, ValId x, ValId w,
    const int64_t *wdims, ValId b, int64_t groups, bool transposed,
    const int64_t *outpad);
/* Pooling of FX input 0 (int64, of rank nd+1 unbatched, *unb, or nd+2;
 * W without in[]): max with its indices in *idx when idx is not NULL and
 * they are used, else the average over windows of size up to the padding
 * p (count_pad) or over the input only, or by divisor when not 0. */
ValId lwn_pool_int(Lower *L, IntWin *W, bool *unb, ValId *idx,
    const int64_t *p, bool count_pad, int64_t divisor);

/* lower_nn_pool.c: pooling input 0 of rank nd+1 (unbatched) or nd+2, as
 * *x with a batch dim; ints (max pooling): integers up to 32 bits too,
 * as float64. */
int lwn_pool_input(Lower *L, int nd, const Value **xv, ValId *x,
    bool *unbatched, bool ints);

/* lower_nn_adaptive.c: adaptive pooling to output_size (input 1) */
int lwn_adaptive_pool(Lower *L, int nd, bool max);

/* linear(input, weight, bias=None) = input @ weight.T + bias */
int lwn_linear(Lower *L);

#endif
