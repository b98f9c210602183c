/* cover_aa.c - inside the decompose plugin: antialiased bilinear and
 * bicubic resampling (_upsample_bilinear2d_aa, _upsample_bicubic2d_aa) as
 * two matrix products with interpolation matrices computed here, out =
 * Wh @ x @ Ww^T, each row of weights as PyTorch's CPU kernel computes it
 * (UpSampleKernel.cpp, _compute_weights_aa with the triangle filter, or
 * Keys' cubic with a = -0.5).  An input height or width known at run time
 * only (torchvision's Resize, antialias=True, on images of any size) gets
 * the same arithmetic as graph ops (aa_weights_dyn). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "decompose.h"

/* ATen's area_pixel_compute_scale: input / output per output step */
static double
aa_scale(int64_t in, int64_t out, int ac, double given)
{
	if (ac)
		return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0;
	return given > 0 ? 1 / given : (double)in / (double)out;
}

static double
tri(double x)
{
	x = fabs(x);
	return x < 1 ? 1 - x : 0;
}

/* Keys' cubic convolution kernel, a = -0.5 (ATen's bicubic aa filter),
 * and w[out][in]: row i holds the normalized filter weights of output i;
 * the triangle filter (support 1) or the cubic one (support 2), both
 * widened by the scale when downsampling.  PyTorch computes them in the
 * input's type, so there is one of each for float and for double. */
#define AA_WEIGHTS(T, KEYS, WEIGHTS)                                         \
	static T KEYS(T x)                                                   \
	{                                                                    \
		const T a = -0.5;                                            \
		x = x < 0 ? -x : x;                                          \
		if (x < 1)                                                   \
			return ((a + 2) * x - (a + 3)) * x * x + 1;          \
		if (x < 2)                                                   \
			return (((x - 5) * x + 8) * x - 4) * a;              \
		return 0;                                                    \
	}                                                                    \
	static void WEIGHTS(T *w, int64_t in, int64_t out, double scale,     \
	    bool cubic)                                                      \
	{                                                                    \
		T sc = (T)scale;                                             \
		T support = (sc >= 1 ? sc : (T)1) * (cubic ? (T)2 : (T)1);   \
		T inv = sc >= 1 ? 1 / sc : (T)1;                             \
		for (int64_t i = 0; i < out; i++) {                          \
			T *row = w + i * in, total = 0;                      \
			T center = sc * ((T)i + (T)0.5);                     \
			int64_t lo = (int64_t)(center - support + (T)0.5);   \
			int64_t hi = (int64_t)(center + support + (T)0.5);   \
			lo = lo < 0 ? 0 : lo;                                \
			hi = hi > in ? in : hi;                              \
			for (int64_t j = 0; j < in; j++)                     \
				row[j] = 0;                                  \
			for (int64_t j = lo; j < hi; j++) {                  \
				T at = ((T)j - center + (T)0.5) * inv;       \
				row[j] = cubic ? KEYS(at) : (T)tri(at);      \
				total += row[j];                             \
			}                                                    \
			if (total != 0)                                      \
				for (int64_t j = lo; j < hi; j++)            \
					row[j] /= total;                     \
		}                                                            \
	}
AA_WEIGHTS(float, keys_f32, aa_weights_f32)
AA_WEIGHTS(double, keys_f64, aa_weights_f64)

/* a 2-D constant of dtype dt (F32 or F64) */
static TV
const_2d(Rw *r, int dt, const void *v, int64_t rows, int64_t cols)
{
	char buf[160];
	int64_t dims[2] = {rows, cols};
	Ty t = {dt, 2, {{rows, 0}, {cols, 0}}};
	snprintf(buf, sizeof buf, "%s__aa%u", r->base, r->seq++);
	onnxc_tensor c = r->h->tensor_new(r->ctx, dt, 2, dims, v);
	onnxc_value x = c ? r->h->constant_input(r->ctx, r->g, buf, c) : 0;
	if (!x || r->h->value_set_type(r->ctx, r->g, x, t.dtype, t.rank,
	    t.d) != ONNXC_OK)
		r->bad = 1;
	return dec_tv(x, t);
}

static TV
matmul(Rw *r, TV a, TV b, const Ty *t)
{
	return dec_tv(EMIT(r, "aten::matmul.default", t, dec_a_val(a.v),
	    dec_a_val(b.v)), *t);
}

/* dt's 0.5, 1.5 ... (m of them) as an [m, 1] constant: the output
 * positions' centers before the scale */
static TV
half_steps(Rw *r, int dt, int64_t m)
{
	size_t es = dt == ONNXC_DT_F64 ? sizeof(double) : sizeof(float);
	char *v = r->h->alloc(r->ctx, (size_t)m * es + 1);
	if (!v) {
		r->bad = 1;
		return (TV){0, {0, 0, {{0, 0}}}};
	}
	for (int64_t i = 0; i < m; i++) {
		if (dt == ONNXC_DT_F64)
			((double *)(void *)v)[i] = (double)i + 0.5;
		else
			((float *)(void *)v)[i] = (float)i + 0.5f;
	}
	return const_2d(r, dt, v, m, 1);
}

/* keys() and tri() of t, as graph ops of t's dtype in ATen's order */
static TV
filter_dyn(Rw *r, TV t, bool cubic)
{
	TV a = dec_u(r, "aten::abs.default", t);
	TV below1 = dec_cs(r, "aten::lt.Scalar", a, 1);
	if (!cubic)
		return dec_sel_s(r, dec_u(r, "aten::logical_not.default",
		    below1), 0, dec_s(r, "aten::add.Tensor", dec_u(r,
		    "aten::neg.default", a), 1));
	TV near = dec_s(r, "aten::add.Tensor", dec_b(r, "aten::mul.Tensor",
	    dec_b(r, "aten::mul.Tensor", dec_s(r, "aten::sub.Tensor", dec_s(r,
	    "aten::mul.Tensor", a, 1.5), 2.5), a), a), 1);
	TV far = dec_s(r, "aten::mul.Tensor", dec_s(r, "aten::sub.Tensor",
	    dec_b(r, "aten::mul.Tensor", dec_s(r, "aten::add.Tensor", dec_b(r,
	    "aten::mul.Tensor", dec_s(r, "aten::sub.Tensor", a, 5), a), 8), a),
	    4), -0.5);
	TV past2 = dec_u(r, "aten::logical_not.default", dec_cs(r,
	    "aten::lt.Scalar", a, 2));
	return dec_sel(r, below1, near, dec_sel_s(r, past2, 0, far));
}

/* The [m, n] weights of axis ax of x, its size n known at run time only:
 * aa_weights_* as graph ops in x's dtype (the scale in double first, as
 * area_pixel_compute_scale), each window [lo, hi) compared with the
 * positions 0..n-1.  Only the normalizing sum may round in another
 * order (an ulp). */
static TV
aa_weights_dyn(Rw *r, TV x, int ax, int64_t m, int ac, double given,
    bool cubic)
{
	int dt = (int)x.t.dtype;
	onnxc_value nv = dec_sym_size(r, x, ax);
	Ty t64 = {ONNXC_DT_F64, 0, {{0, 0}}}, ti = {ONNXC_DT_I64, 0, {{0, 0}}};
	TV n = dec_tv(EMIT(r, "aten::scalar_tensor.default", &t64,
	    dec_a_val(nv), dec_a_dtype(r, ONNXC_DT_F64)), t64);
	TV ni = dec_tv(EMIT(r, "aten::scalar_tensor.default", &ti,
	    dec_a_val(nv), dec_a_dtype(r, ONNXC_DT_I64)), ti);
	TV sc = ac ? dec_s(r, "aten::mul.Tensor", n, 0) : n;
	if (ac && m > 1)
		sc = dec_s(r, "aten::div.Tensor", dec_s(r, "aten::sub.Tensor",
		    n, 1), (double)(m - 1));
	else if (!ac && given > 0)
		sc = dec_s(r, "aten::add.Tensor", dec_s(r, "aten::mul.Tensor",
		    n, 0), 1 / given);
	else if (!ac)
		sc = dec_s(r, "aten::div.Tensor", n, (double)m);
	sc = dec_cast(r, sc, (uint32_t)dt);
	TV small = dec_u(r, "aten::logical_not.default", dec_cs(r,
	    "aten::ge.Scalar", sc, 1));
	TV support = dec_s(r, "aten::mul.Tensor", dec_sel_s(r, small, 1, sc),
	    cubic ? 2 : 1);
	TV inv = dec_sel_s(r, small, 1, dec_u(r, "aten::reciprocal.default",
	    sc));
	TV center = dec_b(r, "aten::mul.Tensor", sc, half_steps(r, dt, m));
	TV lo = dec_s(r, "aten::clamp_min.default", dec_cast(r, dec_s(r,
	    "aten::add.Tensor", dec_b(r, "aten::sub.Tensor", center, support),
	    0.5), ONNXC_DT_I64), 0);
	TV hi = dec_b(r, "aten::minimum.default", dec_cast(r, dec_s(r,
	    "aten::add.Tensor", dec_b(r, "aten::add.Tensor", center, support),
	    0.5), ONNXC_DT_I64), ni);
	Ty tj = {ONNXC_DT_I64, 1, {x.t.d[ax]}};
	TV j = dec_tv(EMIT(r, "aten::arange.default", &tj, dec_a_val(nv),
	    dec_a_dtype(r, ONNXC_DT_I64)), tj);
	TV at = dec_b(r, "aten::mul.Tensor", dec_s(r, "aten::add.Tensor",
	    dec_b(r, "aten::sub.Tensor", dec_cast(r, j, (uint32_t)dt), center),
	    0.5), inv);
	TV out = dec_u(r, "aten::logical_not.default", dec_c(r,
	    "aten::logical_and.default", dec_c(r, "aten::ge.Tensor", j, lo),
	    dec_c(r, "aten::lt.Tensor", j, hi)));
	TV w = dec_sel_s(r, out, 0, filter_dyn(r, at, cubic));
	int64_t last = 1;
	TV total = dec_red(r, "aten::sum.dim_IntList", w, &last, 1, 1);
	return dec_sel(r, dec_cs(r, "aten::eq.Scalar", total, 0), w, dec_b(r,
	    "aten::div.Tensor", w, total));
}

/* The arguments of the 2-D resampling ops: .vec(input, output_size?,
 * align_corners, scale_factors?) and .default(self, output_size,
 * align_corners, scales_h=None, scales_w=None); 4-D input (any batch; a
 * height or width known at run time only is the caller's to check) and
 * an output of static height and width.  0 when they are not those. */
static int
resample_args(Rw *r, TV *x, TV *o, int64_t *ac, double *sh, double *sw)
{
	onnxc_arg a, it;
	*x = dec_in(r, 0, "input");
	*o = dec_out(r, 0);
	if (!x->v)
		*x = dec_in(r, 0, "self");
	*sh = *sw = 0;
	if (!x->v || !o->v || x->t.rank != 4 || o->t.rank != 4 ||
	    o->t.d[2].e || o->t.d[3].e ||
	    !dec_arg_int(r, 2, "align_corners", 0, ac))
		return 0;
	int vec = strstr(r->h->str(r->ctx, r->ni.op), ".vec") != NULL;
	if (vec && dec_arg(r, 3, "scale_factors", &a)) {
		if ((a.kind != ONNXC_ARG_LIST && a.kind != ONNXC_ARG_TUPLE) ||
		    a.len != 2)
			return 0;
		double s[2];
		for (uint32_t i = 0; i < 2; i++) {
			if (r->h->list_item(r->ctx, r->g, &a, i, &it) !=
			    ONNXC_OK)
				return 0;
			if (it.kind == ONNXC_ARG_FLOAT)
				s[i] = it.f;
			else if (it.kind == ONNXC_ARG_INT)
				s[i] = (double)it.i;
			else
				return 0;
		}
		*sh = s[0], *sw = s[1];
	} else if (!vec && (!dec_arg_float(r, 3, "scales_h", 0, sh) ||
	    !dec_arg_float(r, 4, "scales_w", 0, sw))) {
		return 0;
	}
	int64_t h = x->t.d[2].n, w = x->t.d[3].n, oh = o->t.d[2].n,
	    ow = o->t.d[3].n;
	if (x->t.d[2].e || x->t.d[3].e)
		return oh >= 1 && ow >= 1 && oh <= (1 << 16) && ow <= (1 << 16);
	return h >= 1 && w >= 1 && oh >= 1 && ow >= 1 && oh * h <= (1 << 22) &&
	    ow * w <= (1 << 22);
}

/* m[out][in] (an int32 matrix): double weights w[out][in] as the uint8
 * kernel's int16 ones, scaled by 2^prec (prec as large as keeps the
 * largest below 2^15) and rounded half away from zero.  The precision. */
static int
int16_weights(int32_t *m, const double *w, int64_t n)
{
	double wmax = 0;
	for (int64_t i = 0; i < n; i++)
		wmax = w[i] > wmax ? w[i] : wmax;
	int prec = 0;
	while (prec < 22 && (int)(0.5 + wmax * (double)(1 << (prec + 1))) <
	    (1 << 15))
		prec++;
	for (int64_t i = 0; i < n; i++) {
		double v = w[i] * (double)(1 << prec);
		m[i] = (int16_t)(v < 0 ? v - 0.5 : v + 0.5);
	}
	return prec;
}

/* (v + 2^(prec-1)) >> prec (a floor division), clamped to 0..255 */
static TV
u8_round(Rw *r, TV v, int prec)
{
	Ty t = v.t;
	v = dec_tv(EMIT(r, "aten::add.Scalar", &t, dec_a_val(v.v),
	    dec_a_int((int64_t)1 << (prec - 1))), t);
	v = dec_tv(EMIT(r, "aten::floor_divide.Scalar", &t, dec_a_val(v.v),
	    dec_a_int((int64_t)1 << prec)), t);
	return dec_tv(EMIT(r, "aten::clamp.default", &t, dec_a_val(v.v),
	    dec_a_int(0), dec_a_int(255)), t);
}

/* uint8 as PyTorch's kernel: the double weights in 16 bits, the width
 * then the height in int32, each pass rounded and clamped to uint8 */
static int
aa_u8(Rw *r, TV x, TV o, double sch, double scw, bool cubic)
{
	int64_t h = x.t.d[2].n, w = x.t.d[3].n, oh = o.t.d[2].n, ow = o.t.d[3].n;
	double *dh = r->h->alloc(r->ctx, (size_t)(oh * h) * sizeof *dh);
	double *dw = r->h->alloc(r->ctx, (size_t)(ow * w) * sizeof *dw);
	int32_t *mh = r->h->alloc(r->ctx, (size_t)(oh * h) * sizeof *mh);
	int32_t *mw = r->h->alloc(r->ctx, (size_t)(ow * w) * sizeof *mw);
	int32_t *mwt = r->h->alloc(r->ctx, (size_t)(ow * w) * sizeof *mwt);
	if (!dh || !dw || !mh || !mw || !mwt)
		return 0;
	aa_weights_f64(dh, h, oh, sch, cubic);
	aa_weights_f64(dw, w, ow, scw, cubic);
	int ph = int16_weights(mh, dh, oh * h), pw = int16_weights(mw, dw,
	    ow * w);
	if (ph < 1 || pw < 1)
		return 0;
	for (int64_t i = 0; i < ow; i++)
		for (int64_t j = 0; j < w; j++)
			mwt[j * ow + i] = mw[i * w + j];
	Ty t1 = x.t;
	t1.dtype = ONNXC_DT_I32;
	t1.d[3] = o.t.d[3];
	TV y = u8_round(r, matmul(r, dec_cast(r, x, ONNXC_DT_I32), const_2d(r,
	    ONNXC_DT_I32, mwt, w, ow), &t1), pw);
	Ty t2 = t1;
	t2.d[2] = o.t.d[2];
	y = u8_round(r, matmul(r, const_2d(r, ONNXC_DT_I32, mh, oh, h), y, &t2),
	    ph);
	dec_bind(r, 0, dec_cast(r, y, ONNXC_DT_U8).v);
	return 1;
}

/* int16_weights at run time: [m, n] float64 weights w as int32 values of
 * the 16-bit weights, and 2^prec (*scale, int32 0-d) */
static TV
int16_weights_dyn(Rw *r, TV w, TV *scale)
{
	double p2[22];
	for (int p = 0; p < 22; p++)
		p2[p] = (double)(1 << (p + 1));
	int64_t none = -1;
	TV wmax = dec_red(r, "aten::amax.default", w, &none, -1, 0);
	wmax = dec_sel_s(r, dec_cs(r, "aten::lt.Scalar", wmax, 0), 0, wmax);
	/* prec: how many of 2^1 .. 2^22 keep (int)(0.5 + wmax * 2^p) < 2^15 */
	TV next = dec_cast(r, dec_s(r, "aten::add.Tensor", dec_b(r,
	    "aten::mul.Tensor", wmax, const_2d(r, ONNXC_DT_F64, p2, 1, 22)),
	    0.5), ONNXC_DT_I64);
	TV prec = dec_red(r, "aten::sum.dim_IntList", dec_cast(r, dec_cs(r,
	    "aten::lt.Scalar", next, 1 << 15), ONNXC_DT_I64), &none, -1, 0);
	Ty t64 = {ONNXC_DT_F64, 0, {{0, 0}}};
	TV sc = dec_tv(EMIT(r, "aten::pow.Scalar", &t64, dec_a_float(2.0),
	    dec_a_val(dec_cast(r, prec, ONNXC_DT_F64).v)), t64);
	*scale = dec_cast(r, sc, ONNXC_DT_I32);
	TV v = dec_b(r, "aten::mul.Tensor", w, sc);
	TV m = dec_sel(r, dec_cs(r, "aten::lt.Scalar", v, 0), dec_s(r,
	    "aten::sub.Tensor", v, 0.5), dec_s(r, "aten::add.Tensor", v, 0.5));
	return dec_cast(r, dec_u(r, "aten::trunc.default", m), ONNXC_DT_I32);
}

/* u8_round with 2^prec known at run time (scale, int32 0-d) */
static TV
u8_round_dyn(Rw *r, TV v, TV scale)
{
	Ty t = v.t;
	TV half = dec_s(r, "aten::floor_divide.Scalar", scale, 2);
	v = dec_tv(EMIT(r, "aten::add.Tensor", &t, dec_a_val(v.v),
	    dec_a_val(half.v)), t);
	v = dec_tv(EMIT(r, "aten::floor_divide.default", &t, dec_a_val(v.v),
	    dec_a_val(scale.v)), t);
	return dec_tv(EMIT(r, "aten::clamp.default", &t, dec_a_val(v.v),
	    dec_a_int(0), dec_a_int(255)), t);
}

/* aa_u8 of a height or width known at run time: the same float64
 * weights, their 16-bit precision chosen at run time as PyTorch's kernel
 * chooses it for each size */
static int
aa_u8_dyn(Rw *r, TV x, TV o, int ac, double sh, double sw, bool cubic)
{
	TV x64 = x; /* aa_weights_dyn computes in float64 from x's sizes */
	x64.t.dtype = ONNXC_DT_F64;
	TV sh16, sw16;
	TV mh = int16_weights_dyn(r, aa_weights_dyn(r, x64, 2, o.t.d[2].n, ac,
	    sh, cubic), &sh16);
	TV mw = int16_weights_dyn(r, aa_weights_dyn(r, x64, 3, o.t.d[3].n, ac,
	    sw, cubic), &sw16);
	Ty t1 = x.t;
	t1.dtype = ONNXC_DT_I32;
	t1.d[3] = o.t.d[3];
	TV y = u8_round_dyn(r, matmul(r, dec_cast(r, x, ONNXC_DT_I32),
	    dec_swap(r, mw, 0, 1), &t1), sw16);
	Ty t2 = t1;
	t2.d[2] = o.t.d[2];
	y = u8_round_dyn(r, matmul(r, mh, y, &t2), sh16);
	dec_bind(r, 0, dec_cast(r, y, ONNXC_DT_U8).v);
	return 1;
}

/* _upsample_bilinear2d_aa and _upsample_bicubic2d_aa, float32, float64
 * or uint8, of static or dynamic height and width */
int
dec_upsample_bilinear2d_aa(Rw *r)
{
	TV x, o;
	int64_t ac;
	double sh, sw;
	if (!resample_args(r, &x, &o, &ac, &sh, &sw))
		return 0;
	bool cubic = strstr(r->h->str(r->ctx, r->ni.op), "bicubic") != NULL;
	if (x.t.d[2].e || x.t.d[3].e) {
		if (x.t.dtype == ONNXC_DT_U8)
			return aa_u8_dyn(r, x, o, (int)ac, sh, sw, cubic);
		if (x.t.dtype != ONNXC_DT_F32 && x.t.dtype != ONNXC_DT_F64) {
			r->h->report(r->ctx, ONNXC_SEV_ERROR, r->g, r->n, "%s "
			    "of a height or width known at run time only takes "
			    "float32, float64 or uint8",
			    r->h->str(r->ctx, r->ni.op));
			r->bad = 1;
			return 0;
		}
		TV wh = aa_weights_dyn(r, x, 2, o.t.d[2].n, (int)ac, sh, cubic);
		TV ww = aa_weights_dyn(r, x, 3, o.t.d[3].n, (int)ac, sw, cubic);
		Ty t1 = x.t;
		t1.d[2] = o.t.d[2];
		TV y = matmul(r, wh, x, &t1);
		y = matmul(r, y, dec_swap(r, ww, 0, 1), &o.t);
		dec_bind(r, 0, y.v);
		return 1;
	}
	if (x.t.dtype == ONNXC_DT_U8)
		return aa_u8(r, x, o, aa_scale(x.t.d[2].n, o.t.d[2].n, (int)ac,
		    sh), aa_scale(x.t.d[3].n, o.t.d[3].n, (int)ac, sw), cubic);
	if (x.t.dtype != ONNXC_DT_F32 && x.t.dtype != ONNXC_DT_F64)
		return 0;
	int64_t h = x.t.d[2].n, w = x.t.d[3].n, oh = o.t.d[2].n, ow = o.t.d[3].n;
	int dt = x.t.dtype;
	size_t es = dt == ONNXC_DT_F64 ? sizeof(double) : sizeof(float);
	char *wh = r->h->alloc(r->ctx, (size_t)(oh * h + w * ow) * es);
	char *ww = r->h->alloc(r->ctx, (size_t)(ow * w) * es);
	if (!wh || !ww)
		return 0;
	char *wwt = wh + (size_t)(oh * h) * es;
	double sch = aa_scale(h, oh, (int)ac, sh), scw = aa_scale(w, ow,
	    (int)ac, sw);
	if (dt == ONNXC_DT_F64) {
		aa_weights_f64((double *)(void *)wh, h, oh, sch, cubic);
		aa_weights_f64((double *)(void *)ww, w, ow, scw, cubic);
	} else {
		aa_weights_f32((float *)(void *)wh, h, oh, sch, cubic);
		aa_weights_f32((float *)(void *)ww, w, ow, scw, cubic);
	}
	for (int64_t i = 0; i < ow; i++) /* transposed: [w, ow] */
		for (int64_t j = 0; j < w; j++)
			memcpy(wwt + (size_t)(j * ow + i) * es,
			    ww + (size_t)(i * w + j) * es, es);
	Ty t1 = x.t;
	t1.d[2] = o.t.d[2];
	TV y = matmul(r, const_2d(r, dt, wh, oh, h), x, &t1);
	y = matmul(r, y, const_2d(r, dt, wwt, w, ow), &o.t);
	dec_bind(r, 0, y.v);
	return 1;
}
