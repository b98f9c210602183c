/* lower_fft.h - complex values in the lowering; private to lower_fft*.c
 * and lower_complex.c.
 *
 * ONNX has no arithmetic on complex tensors, so a complex FX value (c64,
 * c128) lowers as ONNX does it for DFT: a float tensor (f32, f64) with a
 * trailing dimension of 2, [real, imaginary].  An FX node that reads or
 * makes a complex value is lowered by a complex-aware rule only
 * (lwf_complex_rule); every other rule sees real tensors, so none can
 * misread the pair as data.  Complex graph inputs, weights and constants
 * are refused: ONNX Runtime has no kernels for them. */
#ifndef ONNXC_LOWER_FFT_H
#define ONNXC_LOWER_FFT_H

#include "lower.h"

/* complex64/complex128 */
bool lwf_is_cx(DType dt);
/* the real type of a complex one's parts, or dt itself */
DType lwf_part_dt(DType dt);
/* Does FX node n of g read or make a complex tensor? */
bool lwf_touches_complex(const Graph *g, NodeId n);
/* The rule that lowers op on complex values, or NULL. */
LowerFn lwf_complex_rule(Module *m, StrId op);
/* The complex variants of ops whose own rules see real tensors only
 * (lower_complex.c); the rows of families fft, fft_stft and cplx
 * (lower.h) are complex-aware. */
extern const LowerRule lw_rules_complex[];
/* more of them: full/zeros, slice_scatter, einsum, roll, index_select
 * (lower_complex_ops.c) */
extern const LowerRule lw_rules_complex_ops[];
/* The part type of the node's output: f32 or f64; DT_UNDEF after
 * reporting (ONNX DFT has no other). */
DType lwf_out_part(Lower *L);

/* A tensor arg: *cx tells whether it is complex (then the value has the
 * trailing 2).  0 after reporting. */
ValId lwf_in(Lower *L, int i, const char *kw, bool *cx);
/* Tensor v of a list argument (FX value sv), a complex weight in its pair
 * form; 0 after reporting. */
ValId lwf_item(Lower *L, ValId v, const Value *sv);
/* A real value of rank r as complex (zero imaginary parts), typed dt. */
ValId lwf_to_cx(Lower *L, ValId x, int r, DType dt);
/* lw_bind, typing a complex FX output as its pair form. */
void lwf_bind(Lower *L, int k, ValId v);
/* Part p (0 real, 1 imaginary) of complex x of logical rank r. */
ValId lwf_part(Lower *L, ValId x, int r, int p);
/* conj(x) */
ValId lwf_conj(Lower *L, ValId x);
/* x * s (x itself when s is 1) */
ValId lwf_scale(Lower *L, ValId x, double s);
/* |x| of complex x of logical rank r */
ValId lwf_abs(Lower *L, ValId x, int r);
/* atan2(y, x) on real tensors, as torch: atan2(+-0, x<0) = +-pi */
ValId lwf_atan2(Lower *L, ValId y, ValId x);

/* ONNX DFT along axis of x (a [.., 1] real or [.., 2] complex tensor of
 * ONNX rank R); inverse divides by the length, as ONNX does. */
ValId lwf_dft(Lower *L, ValId x, int64_t axis, bool inverse, bool onesided,
    DType dt);
/* Complex-to-real inverse DFT (divided by n, as ONNX's inverse) of
 * complex x of logical rank r along axis into n real points: x holds the
 * first n/2+1 coefficients there; the rest follow by Hermitian symmetry. */
ValId lwf_c2r(Lower *L, ValId x, int r, int64_t axis, int64_t n, DType dt);
/* x (ONNX rank R) cut or zero-padded along axis from length cur to want */
ValId lwf_resize(Lower *L, ValId x, int R, int64_t axis, int64_t cur,
    int64_t want);

#endif
