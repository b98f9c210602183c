/* lower_resample_u8.c - bilinear and bicubic resampling of uint8 images
 * as PyTorch's CPU kernel computes them, in integers with 16-bit weights,
 * which ONNX's Resize does not (its linear Resize of uint8 rounds
 * otherwise, off by 1 in half the pixels; ONNX Runtime's cubic one fails
 * at run time).  Modelled on the kernel's results: bilinear and bicubic
 * downsampling match in every size tried, bicubic upsampling is off by 1
 * in a few pixels in 10^4 near a border.  Entry points: lwn_resample_u8
 * (static sizes, weights as constants) and lwn_resample_u8_dyn (bilinear
 * of an input size known at run time: the same weights made in the
 * graph). */
#include <math.h>

#include "lower.h"
#include "lower_nn.h"

/* The largest bicubic weight as the kernel's own weight table has it
 * (_compute_indices_min_size_weights_aa, without antialiasing): the taps
 * of each window inside the input, normalized to sum 1, which at the
 * borders makes one larger than 1.  The kernel's precision comes from
 * it, though its weights are the ones below (measured: upsampling is
 * off by 1 in 0.5 % of pixels without it, a few in 10^4 with it) */
static double
norm_max(int64_t in, int64_t out, double sc, bool align)
{
	const double delta = align ? 0.5 : 0;
	double m = 0;
	for (int64_t i = 0; i < out; i++) {
		double c = sc * ((double)i + 0.5 - delta), w[4], total = 0;
		int64_t lo = (int64_t)(c - 2 + 0.5 + delta);
		int64_t hi = (int64_t)(c + 2 + 0.5 + delta);
		lo = lo < 0 ? 0 : lo;
		hi = hi > in ? in : hi;
		int n = 0;
		for (int64_t p = lo; p < hi && n < 4; p++) {
			double d = fabs((double)p - c + 0.5 - delta);
			w[n] = d < 1 ? (1.25 * d - 2.25) * d * d + 1 : d < 2 ?
			    (((d - 5) * d + 8) * d - 4) * -0.75 : 0;
			total += w[n++];
		}
		for (int k = 0; k < n && total != 0; k++)
			m = fmax(m, w[k] / total);
	}
	return m;
}

/* One axis: source positions and the filter's weights in double (as the
 * kernel; PyTorch's decomposition computes them in float and is off by 1
 * in some pixels): bicubic, Keys' (a = -0.75) at the four taps around
 * the position, bilinear the two around it (positions below 0 taken as
 * 0); the weights scaled by 2^prec (prec as large as keeps the largest
 * below 2^15) and rounded half away from zero, the taps at clamped
 * positions summed into m[out][in].  The precision, or -1. */
static int
axis_weights(Lower *L, int32_t *m, int64_t in, int64_t out, double sc,
    bool align, bool cubic)
{
	const double a = -0.75;
	const int taps = cubic ? 4 : 2;
	double *wt = arena_array(L->m->scratch, (size_t)out * 4, sizeof *wt);
	int64_t *x0 = arena_array(L->m->scratch, (size_t)out, sizeof *x0);
	double wmax = -INFINITY;
	for (int64_t i = 0; i < out; i++) {
		double src = align ? sc * (double)i : sc * ((double)i + 0.5) -
		    0.5;
		if (!cubic && src < 0)
			src = 0;
		double fl = floor(src), t = src - fl;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
		x0[i] = (int64_t)fl - (cubic ? 1 : 0);
		const double u[4] = {t + 1.0, t, 1.0 - t, 2.0 - t};
		for (int k = 0; k < taps; k++) {
			double v = u[k + (cubic ? 0 : 1)], w;
			if (!cubic)
				w = 1 - v;
			else if (k == 0 || k == 3)
				w = ((a * v - 5 * a) * v + 8 * a) * v - 4 * a;
			else
				w = ((a + 2) * v - (a + 3)) * v * v + 1;
			wt[i * 4 + k] = w;
			wmax = w > wmax ? w : wmax;
		}
	}
	if (cubic)  /* the kernel's largest weight is of its own weights */
		wmax = fmax(wmax, norm_max(in, out, sc, align));
	int prec = 22;
	for (int p = 0; p < 22; p++)
		if (0.5 + wmax * (double)(1 << (p + 1)) >= 32768.0)
			prec--;
	if (prec < 1)
		return -1;
	for (int64_t i = 0; i < out * in; i++)
		m[i] = 0;
	for (int64_t i = 0; i < out; i++)
		for (int k = 0; k < taps; k++) {
			double w = wt[i * 4 + k];
			double half = w > 0 ? 0.5 : w < 0 ? -0.5 : 0.0;
			int64_t at = x0[i] + k;
			at = at < 0 ? 0 : at >= in ? in - 1 : at;
			m[i * in + at] += (int16_t)(w * (double)(1 << prec) +
			    half);
		}
	return prec;
}

/* (v + 2^(prec-1)) >> prec clamped to 0..255: Div truncates where >>
 * floors, which differ only below 0, where the clamp gives 0 either way */
static ValId
round_clamp(Lower *L, ValId v, int prec)
{
	v = lw_op2(L, "Add", v, lw_scalar_int(L, (int64_t)1 << (prec - 1),
	    DT_I32));
	v = lw_op2(L, "Div", v, lw_scalar_int(L, (int64_t)1 << prec, DT_I32));
	v = lw_op2(L, "Max", v, lw_scalar_int(L, 0, DT_I32));
	return lw_op2(L, "Min", v, lw_scalar_int(L, 255, DT_I32));
}

/* x [.., h, w] uint8 to [.., oh, ow]: round(Wh @ round(x @ Ww^T)) in
 * int32, each pass rounded with its own precision; scale[] PyTorch's
 * source steps per output step.  0 (reported) when it cannot. */
ValId
lwn_resample_u8(Lower *L, ValId x, const int64_t in[2], const int64_t out[2],
    const double scale[2], bool align, bool cubic)
{
	if (in[0] < 1 || in[1] < 1 || out[0] < 1 || out[1] < 1 ||
	    in[0] * out[0] > (1 << 22) || in[1] * out[1] > (1 << 22)) {
		lw_fail(L, "uint8 resampling of %lldx%lld to %lldx%lld: "
		    "weights of more than 2^22 elements per axis",
		    (long long)in[0], (long long)in[1], (long long)out[0],
		    (long long)out[1]);
		return 0;
	}
	int32_t *mh = arena_array(L->m->scratch, (size_t)(out[0] * in[0]),
	    sizeof *mh);
	int32_t *mw = arena_array(L->m->scratch, (size_t)(out[1] * in[1]),
	    sizeof *mw);
	int32_t *mwt = arena_array(L->m->scratch, (size_t)(out[1] * in[1]),
	    sizeof *mwt);
	int ph = axis_weights(L, mh, in[0], out[0], scale[0], align, cubic);
	int pw = axis_weights(L, mw, in[1], out[1], scale[1], align, cubic);
	if (ph < 1 || pw < 1) {
		lw_fail(L, "uint8 resampling: no weight precision");
		return 0;
	}
	for (int64_t i = 0; i < out[1]; i++)
		for (int64_t j = 0; j < in[1]; j++)
			mwt[j * out[1] + i] = mw[i * in[1] + j];
	int64_t dh[2] = {out[0], in[0]}, dw[2] = {in[1], out[1]};
	ValId y = lw_op2(L, "MatMul", lw_cast(L, x, DT_I32), lw_const(L, DT_I32,
	    2, dw, mwt));
	y = round_clamp(L, y, pw);
	y = lw_op2(L, "MatMul", lw_const(L, DT_I32, 2, dh, mh), y);
	return lw_cast(L, round_clamp(L, y, ph), DT_U8);
}

/* axis_weights of bilinear for dim d of x, whose size n is known at run
 * time only: the same double arithmetic as graph ops, [out, n] int32,
 * and 2^prec as *scale (int32 0-d).  given: PyTorch's scale, 0 if none */
static ValId
axis_weights_dyn(Lower *L, ValId x, int d, int64_t out, double given,
    bool align, ValId *scale)
{
	ValId ni = lw_axes_op(L, "Squeeze", lwn_shape_of(L, x, d, d + 1),
	    (int64_t[]){0}, 1);
	ValId n = lw_cast(L, ni, DT_F64), one = lw_scalar(L, 1, DT_F64);
	ValId sc = align ? (out > 1 ? lw_op2(L, "Div", lw_op2(L, "Sub", n,
	    one), lw_scalar(L, (double)(out - 1), DT_F64)) : lw_scalar(L, 0,
	    DT_F64)) : given > 0 ? lw_scalar(L, 1 / given, DT_F64) :
	    lw_op2(L, "Div", n, lw_scalar(L, (double)out, DT_F64));
	double *pos = arena_array(L->m->scratch, (size_t)out, sizeof *pos);
	for (int64_t i = 0; i < out; i++)
		pos[i] = align ? (double)i : (double)i + 0.5;
	ValId src = lw_op2(L, "Mul", lw_const(L, DT_F64, 2, (int64_t[]){out,
	    1}, pos), sc);
	if (!align)
		src = lw_op2(L, "Max", lw_op2(L, "Sub", src, lw_scalar(L, 0.5,
		    DT_F64)), lw_scalar(L, 0, DT_F64));
	ValId fl = lw_op1(L, "Floor", src);
	ValId t = lw_op2(L, "Min", lw_op2(L, "Max", lw_op2(L, "Sub", src, fl),
	    lw_scalar(L, 0, DT_F64)), one);
	ValId w[2] = {lw_op2(L, "Sub", one, t), t};
	/* prec: how many p in 0..21 keep 0.5 + wmax * 2^(p+1) below 2^15 */
	ValId wmax = lwn_reduce(L, "ReduceMax", lw_concat(L, w, 2, 0, DT_F64),
	    NULL, 0, false);
	double p2[22];
	for (int p = 0; p < 22; p++)
		p2[p] = (double)(1 << (p + 1));
	ValId fits = lw_op2t(L, "Less", lw_op2(L, "Add", lw_op2(L, "Mul", wmax,
	    lw_const(L, DT_F64, 1, (int64_t[]){22}, p2)), lw_scalar(L, 0.5,
	    DT_F64)), lw_scalar(L, 32768, DT_F64), DT_BOOL);
	ValId prec = lwn_reduce(L, "ReduceSum", lw_cast(L, fits, DT_F64), NULL,
	    0, false);
	ValId s = lw_op2(L, "Pow", lw_scalar(L, 2, DT_F64), prec);
	*scale = lw_cast(L, s, DT_I32);
	/* the taps at x0 and x0 + 1, clamped into 0..n-1, rounded as the
	 * kernel's int16 weights (non-negative: half up) */
	ValId x0 = lw_cast(L, fl, DT_I64);
	ValId last = lw_op2(L, "Sub", ni, lw_scalar_i64(L, 1));
	ValId r3[3] = {lw_scalar_i64(L, 0), ni, lw_scalar_i64(L, 1)};
	ValId j = lw_typed(L, lw_emit(L, "Range", 3, r3, 1), DT_I64);
	ValId m = 0;
	for (int k = 0; k < 2; k++) {
		ValId at = k ? lw_op2(L, "Add", x0, lw_scalar_i64(L, 1)) : x0;
		at = lw_op2(L, "Min", lw_op2(L, "Max", at, lw_scalar_i64(L, 0)),
		    last);
		ValId q = lw_cast(L, lw_op1(L, "Floor", lw_op2(L, "Add",
		    lw_op2(L, "Mul", w[k], s), lw_scalar(L, 0.5, DT_F64))),
		    DT_I32);
		ValId in[3] = {lw_op2t(L, "Equal", j, at, DT_BOOL), q,
		    lw_scalar_int(L, 0, DT_I32)};
		ValId tap = lw_typed(L, lw_emit(L, "Where", 3, in, 1), DT_I32);
		m = m ? lw_op2(L, "Add", m, tap) : tap;
	}
	return m;
}

/* round_clamp with 2^prec known at run time (scale, int32 0-d) */
static ValId
round_clamp_dyn(Lower *L, ValId v, ValId scale)
{
	v = lw_op2(L, "Add", v, lw_op2(L, "Div", scale, lw_scalar_int(L, 2,
	    DT_I32)));
	v = lw_op2(L, "Div", v, scale);
	v = lw_op2(L, "Max", v, lw_scalar_int(L, 0, DT_I32));
	return lw_op2(L, "Min", v, lw_scalar_int(L, 255, DT_I32));
}

/* lwn_resample_u8 of bilinear where the input's height or width (dims
 * lead, lead + 1) is known at run time only: the weights and their
 * precision made in the graph; given[k] PyTorch's scales (0: none). */
ValId
lwn_resample_u8_dyn(Lower *L, ValId x, int lead, const int64_t out[2],
    const double given[2], bool align)
{
	ValId sh, sw;
	ValId mh = axis_weights_dyn(L, x, lead, out[0], given[0], align, &sh);
	ValId mw = axis_weights_dyn(L, x, lead + 1, out[1], given[1], align,
	    &sw);
	ValId y = lw_op2(L, "MatMul", lw_cast(L, x, DT_I32), lwn_transpose(L,
	    mw, (int64_t[]){1, 0}, 2));
	y = lw_op2(L, "MatMul", mh, round_clamp_dyn(L, y, sw));
	return lw_cast(L, round_clamp_dyn(L, y, sh), DT_U8);
}
