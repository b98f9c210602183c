/* lower_fft_stft.c - lowering rules for torch.stft and torch.istft
 * (aten::stft, aten::istft) on real signals, in the pair form of complex
 * values (lower_fft.h).  Frames are a Gather of a [frames, n_fft] index,
 * a constant for a static signal length, else made at run time; the window (win_length,
 * centred in n_fft as torch pads it) multiplies each frame before an ONNX
 * DFT along the frame.  istft inverts each frame, windows it, and adds
 * the frames back together with a ConvTranspose whose kernel is the
 * identity (overlap-add), dividing by the overlap-added squared window as
 * torch does.  stft's center= padding is a separate pad node in the
 * exported program; istft's center= trims it. */
#include <math.h>
#include <string.h>

#include "lower_fft.h"

/* Frames biggest index constant built. */
enum { MAXIDX = 1 << 24 };

/* The window arg i (absent: ones of win), cast to dt and zero-padded on
 * both sides to n_fft as torch centres it; 0 when absent and win ==
 * n_fft (no window), -1 ... after reporting: *bad. */
static ValId
window(Lower *L, int i, int64_t n_fft, int64_t win, DType dt, bool *bad)
{
	const Value *wv = lw_has(L, i, "window") ? lw_srcval(L, i, "window")
	    : NULL;
	int64_t len = win;
	ValId w = 0;
	*bad = false;
	if (wv) {
		if (wv->rank != 1 || !lw_sdim(L, wv, 0, &len) || len != win) {
			*bad = true;
			lw_fail(L, "expected a 1-D window of size win_length "
			    "(%lld)", (long long)win);
			return 0;
		}
		if (lwf_is_cx((DType)wv->dtype)) {
			*bad = true;
			lw_fail(L, "complex windows are not supported");
			return 0;
		}
		w = lw_cast(L, lw_in(L, i, "window"), dt);
	} else if (win == n_fft) {
		return 0;
	} else {
		int64_t dims[1] = {win};
		ValId in[2] = {lw_scalar(L, 1, dt), lw_const_i64s(L, dims, 1)};
		w = lw_typed(L, lw_emit(L, "Expand", 2, in, 1), dt);
	}
	if (win < n_fft) {
		int64_t left = (n_fft - win) / 2, pads[2] = {left, n_fft - win -
			left};
		ValId in[2] = {w, lw_const_i64s(L, pads, 2)};
		w = lw_typed(L, lw_emit(L, "Pad", 2, in, 1), dt);
	}
	return w;
}

/* hop_length and win_length with torch's defaults; false after
 * reporting */
static bool
hop_win(Lower *L, int64_t n_fft, int64_t *hop, int64_t *win)
{
	*hop = lw_has(L, 2, "hop_length") ? lw_int(L, 2, "hop_length", 0)
	    : n_fft / 4;
	*win = lw_has(L, 3, "win_length") ? lw_int(L, 3, "win_length", 0)
	    : n_fft;
	if (lw_failed(L))
		return false;
	if (n_fft <= 0 || *hop <= 0 || *win <= 0 || *win > n_fft) {
		lw_fail(L, "expected 0 < n_fft, 0 < hop_length and 0 < "
		    "win_length <= n_fft (n_fft=%lld, hop_length=%lld, "
		    "win_length=%lld)", (long long)n_fft, (long long)*hop,
		    (long long)*win);
		return false;
	}
	return true;
}

/* stft(self, n_fft, hop_length, win_length, window, normalized,
 * onesided, return_complex, align_to_window) -> [B?, freq, frames] */
static int
stft(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t n_fft = lw_int(L, 1, "n_fft", 0), hop, win, len;
	bool norm = lw_bool(L, 5, "normalized", false);
	bool ones = lw_bool(L, 6, "onesided", true);
	bool align = lw_bool(L, 8, "align_to_window", false);
	DType dt = lwf_out_part(L);
	if (lw_failed(L) || !xv || !hop_win(L, n_fft, &hop, &win))
		return -1;
	if (xv->rank != 1 && xv->rank != 2)
		return lw_fail(L, "expected a 1D or 2D tensor");
	if (lwf_is_cx((DType)xv->dtype))
		return lw_fail(L, "complex signals are not supported");
	if (align)
		return lw_fail(L, "align_to_window=True is not supported");
	/* a symbolic length (audio of any duration): the frame index is
	 * made at run time */
	bool dyn = !lw_sdim(L, xv, -1, &len);
	if (!dyn && len < n_fft)
		return lw_fail(L, "expected 0 < n_fft <= %lld, but got "
		    "n_fft=%lld", (long long)len, (long long)n_fft);
	int64_t nf = dyn ? 0 : 1 + (len - n_fft) / hop;
	if (nf * n_fft > MAXIDX || n_fft > MAXIDX)
		return lw_fail(L, "%lld frames of %lld is too many",
		    (long long)nf, (long long)n_fft);
	bool bad;
	ValId w = window(L, 4, n_fft, win, dt, &bad);
	ValId x = lw_in(L, 0, "self");
	if (bad || !x)
		return -1;
	int r = xv->rank;
	ValId idx;
	if (dyn) {
		idx = lw_frames_dyn(L, x, r - 1, n_fft, hop);
	} else {
		int64_t dims[2] = {nf, n_fft};
		int64_t *v = lw_scratch(L, (size_t)(nf * n_fft) + 1,
		    sizeof *v);
		for (int64_t i = 0; i < nf; i++)
			for (int64_t k = 0; k < n_fft; k++)
				v[i * n_fft + k] = i * hop + k;
		idx = lw_const(L, DT_I64, 2, dims, v);
	}
	ValId in[2] = {lw_cast(L, x, dt), idx};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", r - 1);
	x = lw_typed(L, g, dt); /* [B?, frames, n_fft] */
	if (w)
		x = lw_op2(L, "Mul", x, w);
	int64_t ax = r + 1;
	x = lw_axes_op(L, "Unsqueeze", x, &ax, 1);
	x = lwf_dft(L, x, r, false, ones, dt);
	if (norm)
		x = lwf_scale(L, x, 1 / sqrt((double)n_fft));
	int64_t perm[4] = {0, 2, 1, 3};
	x = r == 2 ? lw_transpose(L, x, perm, 4)
	    : lw_transpose(L, x, (int64_t[]){1, 0, 2}, 3);
	lwf_bind(L, 0, x);
	return 0;
}

/* istft's end over a symbolic number of frames: y and env [B, 1, T] cut
 * to [start, end) (end < 0 counts from T's end; Slice clamps a length
 * past T), divided, and, for a given length past T, zero-padded to it
 * after the division as torch pads */
static int
istft_dyn_tail(Lower *L, ValId y, ValId env, int64_t start, int64_t end,
    bool has_len, bool b)
{
	if (end == 0 || (end > 0 && end <= start))
		return lw_fail(L, "the output would be empty");
	int64_t want = end - start;
	y = lw_slice_const(L, y, 2, start, end, 1);
	env = lw_slice_const(L, env, 2, start, end, 1);
	y = lw_op2(L, "Div", y, env);
	if (has_len) {
		/* pads [0, 0, 0, 0, 0, max(0, want - T)] */
		ValId t = lw_shape_range(L, y, 2, 3);
		ValId d = lw_op2(L, "Max", lw_op2(L, "Sub", lw_i64v(L, want), t),
		    lw_i64v(L, 0));
		ValId parts[2] = {lw_const_i64s(L, (int64_t[]){0, 0, 0, 0, 0},
		    5), d};
		ValId in[2] = {y, lw_concat_shape(L, parts, 2)};
		y = lw_typed(L, lw_emit(L, "Pad", 2, in, 1), lw_dtype(L, y));
	}
	y = lw_axes_op(L, "Squeeze", y, (int64_t[]){1}, 1);
	if (!b)
		y = lw_axes_op(L, "Squeeze", y, (int64_t[]){0}, 1);
	lw_bind(L, 0, y);
	return 0;
}

/* istft(self, n_fft, hop_length, win_length, window, center, normalized,
 * onesided, length, return_complex): self [B?, freq, frames] complex */
static int
istft(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t n_fft = lw_int(L, 1, "n_fft", 0), hop, win, nfreq, nf;
	bool center = lw_bool(L, 5, "center", true);
	bool norm = lw_bool(L, 6, "normalized", false);
	bool retc = lw_bool(L, 9, "return_complex", false);
	DType dt = lwf_out_part(L);
	if (lw_failed(L) || !xv || !hop_win(L, n_fft, &hop, &win))
		return -1;
	if (xv->rank != 2 && xv->rank != 3)
		return lw_fail(L, "expected a tensor with 2 or 3 dimensions of "
		    "complex dtype");
	/* a symbolic number of frames (a vocoder's output of any length):
	 * the envelope's shape and the output's end are read at run time */
	if (!lw_sdim(L, xv, -2, &nfreq))
		return lw_fail(L, "needs a static number of frequencies");
	bool dyn = !lw_sdim(L, xv, -1, &nf);
	if (dyn)
		nf = 1;
	bool ones = lw_has(L, 7, "onesided") ? lw_bool(L, 7, "onesided", true)
	    : nfreq != n_fft;
	if (retc)
		return lw_fail(L, "only the real inverse (return_complex="
		    "False) is supported");
	if (!ones && nfreq != n_fft)
		return lw_fail(L, "expected the frequency dimension (%lld) to "
		    "be n_fft (%lld) for a two-sided input", (long long)nfreq,
		    (long long)n_fft);
	if (ones && nfreq != n_fft / 2 + 1)
		return lw_fail(L, "expected the frequency dimension (%lld) to "
		    "be n_fft / 2 + 1 (%lld) for a onesided input",
		    (long long)nfreq, (long long)(n_fft / 2 + 1));
	if (nf < 1)
		return lw_fail(L, "expected at least one frame");
	bool cx, bad;
	ValId x = lwf_in(L, 0, "self", &cx);
	ValId w = window(L, 4, n_fft, win, dt, &bad);
	if (!x || bad)
		return -1;
	if (!cx)
		return lw_fail(L, "expected a complex input");
	int r = xv->rank, b = r == 3;
	x = lw_cast(L, x, dt);
	if (!b)
		x = lw_axes_op(L, "Unsqueeze", x, (int64_t[]){0}, 1);
	/* a real output of a two-sided spectrum reads its first half, as
	 * PyTorch does (the rest mirrors it when the signal is real) */
	if (!ones)
		x = lw_slice_const(L, x, 1, 0, n_fft / 2 + 1, 1);
	/* [B, freq, frames, 2] -> [B, frames, freq, 2] -> [B, frames, n_fft]
	 * real frames (ONNX's inverse has divided by n_fft, torch's
	 * backward norm too; ortho takes sqrt(n_fft) back) */
	x = lw_transpose(L, x, (int64_t[]){0, 2, 1, 3}, 4);
	x = lwf_c2r(L, x, 3, 2, n_fft, dt);
	if (norm)
		x = lwf_scale(L, x, sqrt((double)n_fft));
	if (w)
		x = lw_op2(L, "Mul", x, w);
	/* overlap-add: ConvTranspose of [B, n_fft, frames] with an identity
	 * kernel [n_fft, 1, n_fft] at stride hop */
	x = lw_transpose(L, x, (int64_t[]){0, 2, 1}, 3);
	int64_t kd[3] = {n_fft, 1, n_fft};
	if (n_fft * n_fft > MAXIDX)
		return lw_fail(L, "n_fft %lld is too big for the overlap-add "
		    "kernel", (long long)n_fft);
	size_t esz = dt == DT_F64 ? 8 : 4;
	unsigned char *kv = lw_scratch(L, (size_t)(n_fft * n_fft), esz);
	for (int64_t k = 0; k < n_fft; k++) {
		if (dt == DT_F64)
			((double *)kv)[k * n_fft + k] = 1;
		else
			((float *)kv)[k * n_fft + k] = 1;
	}
	ValId kern = lw_const(L, dt, 3, kd, kv);
	ValId in[2] = {x, kern};
	NodeId ct = lw_emit(L, "ConvTranspose", 2, in, 1);
	lw_attr_ints(L, ct, "strides", &hop, 1);
	ValId y = lw_typed(L, ct, dt); /* [B, 1, expected] */
	int64_t expected = n_fft + hop * (nf - 1);
	/* the envelope: window squared, overlap-added the same way */
	ValId env;
	{
		ValId w2 = w ? lw_op2(L, "Mul", w, w) : 0;
		int64_t sh[3] = {1, n_fft, nf};
		ValId one = lw_scalar(L, 1, dt), shp = lw_const_i64s(L, sh, 3);
		if (dyn) {
			ValId parts[2] = {lw_const_i64s(L, sh, 2),
				lw_shape_range(L, x, 2, 3)};
			shp = lw_concat_shape(L, parts, 2);
		}
		ValId e[2] = {w2 ? lw_axes_op(L, "Unsqueeze", w2,
		    (int64_t[]){0, 2}, 2) : one, shp};
		ValId ew = lw_typed(L, lw_emit(L, "Expand", 2, e, 1), dt);
		ValId cin[2] = {ew, kern};
		NodeId c2 = lw_emit(L, "ConvTranspose", 2, cin, 1);
		lw_attr_ints(L, c2, "strides", &hop, 1);
		env = lw_typed(L, c2, dt);
	}
	int64_t start = center ? n_fft / 2 : 0, end = expected;
	bool has_len = lw_has(L, 8, "length");
	if (has_len)
		end = start + lw_int(L, 8, "length", 0);
	else if (center)
		end = expected - n_fft / 2;
	if (lw_failed(L))
		return -1;
	if (dyn)
		return istft_dyn_tail(L, y, env, start, has_len ? end : center
		    && n_fft / 2 ? -(n_fft / 2) : INT64_MAX, has_len, b);
	int64_t cut = end < expected ? end : expected;
	if (cut <= start)
		return lw_fail(L, "the output would be empty");
	y = lw_slice_const(L, y, 2, start, cut, 1);
	env = lw_slice_const(L, env, 2, start, cut, 1);
	y = lw_op2(L, "Div", y, env);
	y = lw_axes_op(L, "Squeeze", y, (int64_t[]){1}, 1);
	if (end > expected)
		y = lwf_resize(L, y, 2, 1, cut - start, end - start);
	if (!b)
		y = lw_axes_op(L, "Squeeze", y, (int64_t[]){0}, 1);
	lw_bind(L, 0, y);
	return 0;
}

/* ------------------------------------------------ window functions */

/* I0, the modified Bessel function of order 0 (kaiser_window), by its
 * power series: its terms fall fast for the betas windows use */
static double
bessel_i0(double x)
{
	double sum = 1, term = 1, q = x * x / 4;
	for (int k = 1; k < 500 && term > sum * 1e-17; k++) {
		term *= q / ((double)k * (double)k);
		sum += term;
	}
	return sum;
}

/* hann/hamming/blackman/bartlett/kaiser_window(window_length,
 * periodic=True, ...): a constant, computed in double and cast to the
 * output's dtype (torch computes in that dtype: within its rounding).
 * A periodic window is the symmetric one of length + 1 without its last
 * point; length 1 is [1]. */
static int
window_fn(Lower *L, char kind)
{
	const char *op = ir_str(L->m, lw_node(L)->op);
	int64_t n = lw_int(L, 0, "window_length", 0);
	bool has_p = strstr(op, ".periodic") || strstr(op, ".beta");
	bool periodic = has_p ? lw_bool(L, 1, "periodic", true) : true;
	double alpha = 0.54, beta = kind == 'k' ? 12.0 : 0.46;
	DType dt = lw_outdtype(L);
	if (kind == 'm' && strstr(op, "_alpha"))
		alpha = lw_float(L, 2, "alpha", 0.54);
	if (kind == 'm' && strstr(op, "_beta"))
		beta = lw_float(L, 3, "beta", 0.46);
	if (kind == 'k' && strstr(op, ".beta"))
		beta = lw_float(L, 2, "beta", 12.0);
	if (lw_failed(L))
		return -1;
	if (n < 0 || n > MAXIDX)
		return lw_fail(L, "window_length %lld out of range",
		    (long long)n);
	if (!ir_dtype_is_float(dt))
		return lw_fail(L, "a window must have a floating dtype");
	double *v = lw_scratch(L, (size_t)n + 1, sizeof *v);
	double m = (double)(periodic ? n : n - 1);
	for (int64_t i = 0; i < n; i++) {
		double t = n == 1 ? 0 : 2 * M_PI * (double)i / m;
		switch (kind) {
		case 'h':
			v[i] = n == 1 ? 1 : 0.5 - 0.5 * cos(t);
			break;
		case 'm':
			v[i] = n == 1 ? 1 : alpha - beta * cos(t);
			break;
		case 'b':
			v[i] = n == 1 ? 1 : 0.42 - 0.5 * cos(t) + 0.08 *
			    cos(2 * t);
			break;
		case 'r':
			v[i] = n == 1 ? 1 : 1 - fabs(2 * (double)i / m - 1);
			break;
		default: {
			double r = n == 1 ? 0 : (double)i / (m / 2) - 1;
			v[i] = bessel_i0(beta * sqrt(fmax(0, 1 - r * r))) /
			    bessel_i0(beta);
		}
		}
	}
	lw_bind(L, 0, lw_cast(L, lw_const(L, DT_F64, 1, &n, v), dt));
	return 0;
}

static int hann_window(Lower *L) { return window_fn(L, 'h'); }
static int hamming_window(Lower *L) { return window_fn(L, 'm'); }
static int blackman_window(Lower *L) { return window_fn(L, 'b'); }
static int bartlett_window(Lower *L) { return window_fn(L, 'r'); }
static int kaiser_window(Lower *L) { return window_fn(L, 'k'); }

/* fft_fftfreq / fft_rfftfreq(n, d=1.0): the sample frequencies of an
 * n-point transform, [0, 1, .., -(n/2), .., -1] / (d n) (rfftfreq: the
 * first n/2 + 1 non-negative ones), a constant of the output dtype */
static int
fftfreq_fn(Lower *L, bool half)
{
	int64_t n = lw_int(L, 0, "n", 0);
	double d = lw_float(L, 1, "d", 1.0);
	DType dt = lw_outdtype(L);
	if (lw_failed(L))
		return -1;
	if (n < 0 || n > MAXIDX)
		return lw_fail(L, "n = %lld out of range", (long long)n);
	if (!ir_dtype_is_float(dt))
		return lw_fail(L, "frequencies must have a floating dtype");
	int64_t m = half ? n / 2 + 1 : n;
	if (n == 0)
		m = 0;
	double *v = lw_scratch(L, (size_t)m + 1, sizeof *v);
	for (int64_t i = 0; i < m; i++) {
		int64_t k = half || i < (n + 1) / 2 ? i : i - n;
		v[i] = (double)k / (d * (double)n);
	}
	lw_bind(L, 0, lw_cast(L, lw_const(L, DT_F64, 1, &m, v), dt));
	return 0;
}

static int fftfreq(Lower *L) { return fftfreq_fn(L, false); }
static int rfftfreq(Lower *L) { return fftfreq_fn(L, true); }

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_fft_stft LW_THIS
const LowerRule lw_rules_fft_stft[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
