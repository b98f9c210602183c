/* arith.c - inside the decompose plugin: element-wise ops the training
 * IR keeps composite (copysign, signbit, float_power, ldexp, isclose,
 * frexp) and the split/stack helpers of numpy's names (hsplit, vsplit,
 * dsplit, dstack, column_stack, block_diag). */
#include <math.h> /* INFINITY only */
#include <string.h>

#include "decompose.h"

static int
is_float(uint32_t dt)
{
	return dt == ONNXC_DT_F32 || dt == ONNXC_DT_F64 ||
	    dt == ONNXC_DT_F16 || dt == ONNXC_DT_BF16;
}

/* x < 0, or -0.0 (whose reciprocal is -inf) */
static TV
signbit_of(Rw *r, TV x)
{
	TV neg = dec_cs(r, "aten::lt.Scalar", x, 0);
	if (!is_float(x.t.dtype))
		return neg;
	TV nz = dec_c(r, "aten::logical_and.default",
	    dec_cs(r, "aten::eq.Scalar", x, 0), dec_cs(r, "aten::lt.Scalar",
	    dec_u(r, "aten::reciprocal.default", x), 0));
	return dec_c(r, "aten::logical_or.default", neg, nz);
}

int
dec_signbit(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	if (!x.v)
		return 0;
	dec_bind(r, 0, signbit_of(r, x).v);
	return 1;
}

/* copysign(a, b) = |a| with b's sign bit */
int
dec_copysign(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other"), o = dec_out(r, 0);
	double s;
	if (!a.v || !o.v || !is_float(o.t.dtype))
		return 0;
	a = dec_cast(r, a, o.t.dtype);
	TV m = dec_u(r, "aten::abs.default", a);
	TV neg;
	if (b.v) {
		neg = signbit_of(r, b);
	} else {
		if (!dec_arg_float(r, 1, "other", 0, &s))
			return 0;
		/* a number: its sign is known now (-0.0 included) */
		int sb = s < 0 || (s == 0 && 1 / s < 0);
		dec_bind(r, 0, sb ? dec_u(r, "aten::neg.default", m).v : m.v);
		return 1;
	}
	TV nm = dec_u(r, "aten::neg.default", m);
	dec_bind(r, 0, dec_cast(r, dec_sel(r, neg, nm, m), o.t.dtype).v);
	return 1;
}

/* float_power(a, b): pow in float64 */
int
dec_float_power(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "exponent");
	TV o = dec_out(r, 0);
	double s;
	if (!o.v || o.t.dtype != ONNXC_DT_F64)
		return 0;
	if (a.v && b.v) {
		dec_bind(r, 0, dec_b(r, "aten::pow.Tensor_Tensor",
		    dec_cast(r, a, ONNXC_DT_F64), dec_cast(r, b,
		    ONNXC_DT_F64)).v);
		return 1;
	}
	if (a.v && dec_arg_float(r, 1, "exponent", 0, &s)) {
		dec_bind(r, 0, dec_s(r, "aten::pow.Tensor_Scalar",
		    dec_cast(r, a, ONNXC_DT_F64), s).v);
		return 1;
	}
	if (b.v && dec_arg_float(r, 0, "self", 0, &s)) {
		TV e = dec_cast(r, b, ONNXC_DT_F64);
		dec_bind(r, 0, dec_tv(EMIT(r, "aten::pow.Scalar", &e.t,
		    dec_a_float(s), dec_a_val(e.v)), e.t).v);
		return 1;
	}
	return 0;
}

/* ldexp(x, e) = x * 2^e */
int
dec_ldexp(Rw *r)
{
	TV x = dec_in(r, 0, "self"), e = dec_in(r, 1, "other"), o = dec_out(r, 0);
	if (!x.v || !e.v || !o.v || !is_float(o.t.dtype))
		return 0;
	TV p = dec_u(r, "aten::exp2.default", dec_cast(r, e, o.t.dtype));
	dec_bind(r, 0, dec_cast(r, dec_b(r, "aten::mul.Tensor", x, p),
	    o.t.dtype).v);
	return 1;
}

/* isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False): a == b, or
 * finite and |a - b| <= atol + rtol |b| */
int
dec_isclose(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other");
	double rtol, atol;
	int64_t en;
	if (!a.v || !b.v || !dec_arg_float(r, 2, "rtol", 1e-5, &rtol) ||
	    !dec_arg_float(r, 3, "atol", 1e-8, &atol) ||
	    !dec_arg_int(r, 4, "equal_nan", 0, &en))
		return 0;
	TV eq = dec_c(r, "aten::eq.Tensor", a, b);
	if (!is_float(a.t.dtype) && !is_float(b.t.dtype)) {
		dec_bind(r, 0, eq.v);
		return 1;
	}
	TV d = dec_u(r, "aten::abs.default", dec_b(r, "aten::sub.Tensor", a, b));
	TV tol = dec_s(r, "aten::add.Tensor", dec_s(r, "aten::mul.Tensor",
	    dec_u(r, "aten::abs.default", b), rtol), atol);
	TV c = dec_c(r, "aten::logical_or.default", eq,
	    dec_c(r, "aten::le.Tensor", d, tol));
	if (en)
		c = dec_c(r, "aten::logical_or.default", c,
		    dec_c(r, "aten::logical_and.default",
		    dec_u(r, "aten::isnan.default", a),
		    dec_u(r, "aten::isnan.default", b)));
	dec_bind(r, 0, c.v);
	return 1;
}

/* hsplit / vsplit / dsplit (x, sections or indices): tensor_split along
 * dim 1 (0 for a 1-d hsplit), 0, 2, as one slice per output */
static int
nsplit(Rw *r, int dim)
{
	TV x = dec_in(r, 0, "self");
	int64_t ix[64], n, k;
	if (!x.v || x.t.rank < 1)
		return 0;
	if (dim == 1 && x.t.rank == 1)
		dim = 0;
	if (dim >= x.t.rank || !dec_dim_static(&x.t.d[dim], &n))
		return 0;
	const char *op = r->h->str(r->ctx, r->ni.op);
	int nb;
	if (strstr(op, ".int")) {
		if (!dec_arg_int(r, 1, "sections", 1, &k) || k < 1 || n % k ||
		    k > 63)
			return 0;
		for (int64_t i = 0; i < k; i++)
			ix[i] = i * (n / k);
		nb = (int)k;
	} else {
		int m = dec_arg_ints(r, 1, "indices", ix + 1, 62);
		if (m < 0)
			return 0;
		ix[0] = 0;
		nb = m + 1;
	}
	if ((uint32_t)nb < r->ni.nout)
		return 0;
	for (int i = 0; i < nb; i++) {
		int64_t lo = ix[i], hi = i + 1 < nb ? ix[i + 1] : n;
		lo = lo < 0 ? 0 : lo > n ? n : lo;
		hi = hi < lo ? lo : hi > n ? n : hi;
		if ((uint32_t)i >= r->ni.nout || !dec_out_used(r, (uint32_t)i))
			continue;
		Ty t = x.t;
		t.d[dim] = (onnxc_dim){hi - lo, 0};
		dec_bind(r, (uint32_t)i, EMIT(r, "aten::slice.Tensor", &t,
		    dec_a_val(x.v), dec_a_int(dim), dec_a_int(lo),
		    dec_a_int(hi)));
	}
	return 1;
}

int dec_hsplit(Rw *r) { return nsplit(r, 1); }
int dec_vsplit(Rw *r) { return nsplit(r, 0); }
int dec_dsplit(Rw *r) { return nsplit(r, 2); }

/* the typed tensors of list argument 0 */
static int
tensors(Rw *r, TV *xs, int cap)
{
	onnxc_arg a, it;
	if (!dec_arg(r, 0, "tensors", &a) || (a.kind != ONNXC_ARG_LIST &&
	    a.kind != ONNXC_ARG_TUPLE) || a.len > (uint32_t)cap || !a.len)
		return -1;
	for (uint32_t i = 0; i < a.len; i++) {
		if (r->h->list_item(r->ctx, r->g, &a, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_VALUE || dec_ty_of(r, it.ref, &xs[i].t) ||
		    !dec_ty_static(&xs[i].t))
			return -1;
		xs[i].v = it.ref;
	}
	return (int)a.len;
}

/* cat of xs along dim into the output */
static int
cat_out(Rw *r, TV *xs, int n, int64_t dim)
{
	TV o = dec_out(r, 0);
	onnxc_arg items[64], list;
	if (!o.v)
		return 0;
	for (int i = 0; i < n; i++)
		items[i] = dec_a_val(xs[i].v);
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, items, (uint32_t)n,
	    &list) != ONNXC_OK)
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::cat.default", &o.t, list, dec_a_int(dim)));
	return 1;
}

/* x viewed with rank k as atleast_kd shapes it (0-d [1, 1, 1], 1-d
 * [1, n, 1], 2-d [m, n, 1] for k = 3; 0-d / 1-d as [n, 1] for columns) */
static TV
reshaped(Rw *r, TV x, const int64_t *d, int k)
{
	Ty t = x.t;
	t.rank = k;
	for (int i = 0; i < k; i++)
		t.d[i] = (onnxc_dim){d[i], 0};
	return dec_tv(dec_view(r, x.v, &t), t);
}

/* dstack(tensors): each at least 3-d, cat along dim 2 */
int
dec_dstack(Rw *r)
{
	TV xs[64];
	int n = tensors(r, xs, 64);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		Ty *t = &xs[i].t;
		if (t->rank >= 3)
			continue;
		int64_t d[3] = {1, t->rank >= 1 ? t->d[0].n : 1, 1};
		if (t->rank == 2)
			d[0] = t->d[0].n, d[1] = t->d[1].n;
		xs[i] = reshaped(r, xs[i], d, 3);
	}
	return cat_out(r, xs, n, 2);
}

/* column_stack(tensors): 0-d and 1-d as columns [n, 1], cat along dim 1 */
int
dec_column_stack(Rw *r)
{
	TV xs[64];
	int n = tensors(r, xs, 64);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (xs[i].t.rank < 2) {
			int64_t d[2] = {xs[i].t.rank ? xs[i].t.d[0].n : 1, 1};
			xs[i] = reshaped(r, xs[i], d, 2);
		}
	return cat_out(r, xs, n, 1);
}

/* block_diag(tensors): each as a matrix (0-d [1, 1], 1-d [1, n]) padded
 * with zeros to the total width at its column offset, cat along rows */
int
dec_block_diag(Rw *r)
{
	TV xs[64];
	TV o = dec_out(r, 0);
	int n = tensors(r, xs, 64);
	if (n < 0 || !o.v || o.t.rank != 2)
		return 0;
	int64_t w = o.t.d[1].n, off = 0;
	for (int i = 0; i < n; i++) {
		if (xs[i].t.rank > 2)
			return 0;
		if (xs[i].t.rank < 2) {
			int64_t d[2] = {1, xs[i].t.rank ? xs[i].t.d[0].n : 1};
			xs[i] = reshaped(r, xs[i], d, 2);
		}
		xs[i] = dec_cast(r, xs[i], o.t.dtype);
		int64_t c = xs[i].t.d[1].n, pad[2] = {off, w - off - c};
		Ty t = xs[i].t;
		t.d[1] = (onnxc_dim){w, 0};
		xs[i] = dec_tv(EMIT(r, "aten::constant_pad_nd.default", &t,
		    dec_a_val(xs[i].v), dec_a_ints(r, pad, 2), dec_a_float(0)),
		    t);
		off += c;
	}
	return cat_out(r, xs, n, 0);
}

/* a 2^-e in two halves, so that 2^e need not be a finite float (e up
 * to 128, down to -149) */
static TV
scale2(Rw *r, TV a, TV e)
{
	TV h = dec_u(r, "aten::floor.default", dec_s(r, "aten::mul.Tensor", e,
	    0.5));
	TV p = dec_u(r, "aten::exp2.default", dec_u(r, "aten::neg.default", h));
	TV q = dec_u(r, "aten::exp2.default", dec_u(r, "aten::neg.default",
	    dec_b(r, "aten::sub.Tensor", e, h)));
	return dec_b(r, "aten::mul.Tensor", dec_b(r, "aten::mul.Tensor", a, p),
	    q);
}

/* frexp(x) -> (m, e), x = m 2^e with 0.5 <= |m| < 1: e = floor(log2 |x|)
 * + 1, corrected by one where log2 rounded across a power of two; (x, 0)
 * for 0, inf and NaN */
int
dec_frexp(Rw *r)
{
	/* an output nothing reads may have no type (no getitem names it) */
	TV x = dec_in(r, 0, "self");
	TV oe = dec_out_used(r, 1) ? dec_out(r, 1) : x;
	if (!x.v || !oe.v || !is_float(x.t.dtype))
		return 0;
	TV ax = dec_u(r, "aten::abs.default", x);
	TV odd = dec_c(r, "aten::logical_or.default",
	    dec_cs(r, "aten::eq.Scalar", x, 0), dec_c(r,
	    "aten::logical_or.default", dec_u(r, "aten::isinf.default", x),
	    dec_u(r, "aten::isnan.default", x)));
	/* |x| with 1 in the odd places, so that the log stays finite */
	TV a1 = dec_sel_s(r, odd, 1, ax);
	TV e = dec_s(r, "aten::add.Tensor", dec_u(r, "aten::floor.default",
	    dec_u(r, "aten::log2.default", a1)), 1);
	TV m = scale2(r, a1, e);
	TV lo = dec_cs(r, "aten::lt.Scalar", m, 0.5);
	TV hi = dec_cs(r, "aten::ge.Scalar", m, 1);
	e = dec_b(r, "aten::sub.Tensor", e, dec_cast(r, lo, x.t.dtype));
	e = dec_b(r, "aten::add.Tensor", e, dec_cast(r, hi, x.t.dtype));
	m = scale2(r, a1, e);
	m = dec_b(r, "aten::mul.Tensor", m, dec_u(r, "aten::sign.default", x));
	m = dec_sel(r, odd, x, m);
	e = dec_sel_s(r, odd, 0, e);
	if (dec_out_used(r, 0))
		dec_bind(r, 0, m.v);
	if (dec_out_used(r, 1))
		dec_bind(r, 1, dec_cast(r, e, oe.t.dtype).v);
	return 1;
}
