/* math.c - inside the decompose plugin: the decompositions of
 * element-wise math (shrinks, logaddexp, xlogy, glu, hypot, logit,
 * prelu, square, degrees). */
#include <math.h> /* NAN only: no libm */

#include "decompose.h"

#define LN2 0.69314718055994530942
#define PI 3.14159265358979323846

/* ----------------------------------------------------- element-wise */

/* hardshrink(x, lambd=0.5) -> where(|x| <= lambd, 0, x) (NaN stays) */
int
dec_hardshrink(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	double l;
	Ty tx;
	if (dec_ty_of(r, x, &tx) || !dec_arg_float(r, 1, "lambd", 0.5, &l))
		return 0;
	Ty tb = dec_ty_dtype(tx, ONNXC_DT_BOOL);
	onnxc_value ax = dec_unary(r, "aten::abs.default", x, &tx);
	onnxc_value in = dec_with_scalar(r, "aten::le.Scalar", ax, l, &tb);
	dec_bind(r, 0, EMIT(r, "aten::where.ScalarSelf", &tx, dec_a_val(in),
	    dec_a_float(0), dec_a_val(x)));
	return 1;
}

/* softshrink(x, lambd=0.5) -> x - clamp(x, -lambd, lambd) */
int
dec_softshrink(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	double l;
	Ty tx;
	if (dec_ty_of(r, x, &tx) || !dec_arg_float(r, 1, "lambd", 0.5, &l))
		return 0;
	onnxc_value c = EMIT(r, "aten::clamp.default", &tx, dec_a_val(x),
	    dec_a_float(-l), dec_a_float(l));
	dec_bind(r, 0, dec_binary(r, "aten::sub.Tensor", x, c, &tx));
	return 1;
}

/* logaddexp(a, b) -> max(a, b) + log1p(exp(-|a - b|)), and a + log 2
 * where a == b (equal infinities would give NaN).  logaddexp2 in base 2. */
static int
logaddexp_base(Rw *r, int base2)
{
	onnxc_value a = dec_arg_val(r, 0, "self");
	onnxc_value b = dec_arg_val(r, 1, "other");
	Ty ta, tb, to;
	if (dec_ty_of(r, a, &ta) || dec_ty_of(r, b, &tb) ||
	    dec_out_ty(r, 0, &to))
		return 0;
	Ty tab = dec_ty_bcast(&ta, &tb, to.dtype);
	Ty tbool = dec_ty_dtype(tab, ONNXC_DT_BOOL);
	onnxc_value mx = dec_binary(r, "aten::maximum.default", a, b, &tab);
	onnxc_value d = dec_binary(r, "aten::sub.Tensor", a, b, &tab);
	d = dec_unary(r, "aten::abs.default", d, &tab);
	d = dec_unary(r, "aten::neg.default", d, &tab);
	d = dec_unary(r, base2 ? "aten::exp2.default" : "aten::exp.default", d,
	    &tab);
	d = dec_unary(r, "aten::log1p.default", d, &tab);
	if (base2)
		d = dec_with_scalar(r, "aten::div.Tensor", d, LN2, &tab);
	onnxc_value y = dec_binary(r, "aten::add.Tensor", mx, d, &tab);
	onnxc_value same = dec_binary(r, "aten::eq.Tensor", a, b, &tbool);
	onnxc_value a2 = dec_with_scalar(r, "aten::add.Tensor", a,
	    base2 ? 1.0 : LN2, &ta);
	dec_bind(r, 0, EMIT(r, "aten::where.self", &to, dec_a_val(same),
	    dec_a_val(a2), dec_a_val(y)));
	return 1;
}

int dec_logaddexp(Rw *r) { return logaddexp_base(r, 0); }
int dec_logaddexp2(Rw *r) { return logaddexp_base(r, 1); }

/* xlogy(x, y) -> x * log(y), 0 where x == 0, NaN where y is NaN */
int
dec_xlogy(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	onnxc_value y = dec_arg_val(r, 1, "other");
	Ty tx, ty, to;
	if (dec_ty_of(r, x, &tx) || dec_ty_of(r, y, &ty) ||
	    dec_out_ty(r, 0, &to))
		return 0;
	Ty tl = dec_ty_dtype(ty, to.dtype);
	Ty tp = dec_ty_bcast(&tx, &ty, to.dtype);
	onnxc_value l = dec_unary(r, "aten::log.default", y, &tl);
	onnxc_value p = dec_binary(r, "aten::mul.Tensor", x, l, &tp);
	Ty tz = dec_ty_dtype(tx, ONNXC_DT_BOOL);
	onnxc_value z = dec_with_scalar(r, "aten::eq.Scalar", x, 0, &tz);
	p = EMIT(r, "aten::where.ScalarSelf", &tp, dec_a_val(z), dec_a_float(0),
	    dec_a_val(p));
	Ty tn = dec_ty_dtype(ty, ONNXC_DT_BOOL);
	onnxc_value nan = dec_unary(r, "aten::isnan.default", y, &tn);
	dec_bind(r, 0, EMIT(r, "aten::where.ScalarSelf", &to, dec_a_val(nan),
	    dec_a_float(NAN), dec_a_val(p)));
	return 1;
}

/* glu(x, dim=-1) -> first half * sigmoid(second half) */
int
dec_glu(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	int64_t dim, n;
	Ty tx;
	if (dec_ty_of(r, x, &tx) || !dec_arg_int(r, 1, "dim", -1, &dim) ||
	    dim < -tx.rank || dim >= tx.rank ||
	    !dec_dim_static(dec_dim_at(&tx, (int)dim), &n) || n % 2)
		return 0;
	Ty th = tx;
	*dec_dim_at(&th, (int)dim) = (onnxc_dim){n / 2, 0};
	onnxc_value a = EMIT(r, "aten::slice.Tensor", &th, dec_a_val(x),
	    dec_a_int(dim), dec_a_int(0), dec_a_int(n / 2));
	onnxc_value b = EMIT(r, "aten::slice.Tensor", &th, dec_a_val(x),
	    dec_a_int(dim), dec_a_int(n / 2), dec_a_int(n));
	b = dec_unary(r, "aten::sigmoid.default", b, &th);
	dec_bind(r, 0, dec_binary(r, "aten::mul.Tensor", a, b, &th));
	return 1;
}

/* hypot(a, b) -> m sqrt(1 + (n / m)^2), m and n the larger and the
 * smaller of |a| and |b|: a * a overflows where the result does not (0
 * where m is; infinite where either is, NaN or not, as std::hypot) */
int
dec_hypot(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other"), o = dec_out(r, 0);
	if (!a.v || !b.v || !o.v)
		return 0;
	a = dec_u(r, "aten::abs.default", dec_cast(r, a, o.t.dtype));
	b = dec_u(r, "aten::abs.default", dec_cast(r, b, o.t.dtype));
	TV m = dec_b(r, "aten::maximum.default", a, b);
	TV n = dec_b(r, "aten::minimum.default", a, b);
	TV q = dec_b(r, "aten::div.Tensor", n, dec_sel_s(r, dec_cs(r,
	    "aten::eq.Scalar", m, 0), 1, m));
	TV h = dec_b(r, "aten::mul.Tensor", m, dec_u(r, "aten::sqrt.default",
	    dec_s(r, "aten::add.Tensor", dec_b(r, "aten::mul.Tensor", q, q),
	    1)));
	Ty ba = dec_ty_dtype(a.t, ONNXC_DT_BOOL), bb = dec_ty_dtype(b.t,
	    ONNXC_DT_BOOL);
	TV inf = dec_b(r, "aten::logical_or.default", dec_tv(dec_unary(r,
	    "aten::isinf.default", a.v, &ba), ba), dec_tv(dec_unary(r,
	    "aten::isinf.default", b.v, &bb), bb));
	dec_bind(r, 0, dec_sel_s(r, inf, INFINITY, h).v);
	return 1;
}

/* logit(x, eps=None) -> log(x / (1 - x)), x clamped to [eps, 1 - eps] */
int
dec_logit(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	onnxc_arg ea;
	Ty to;
	if (dec_out_ty(r, 0, &to))
		return 0;
	if (dec_arg(r, 1, "eps", &ea)) {
		double eps;
		if (!dec_arg_float(r, 1, "eps", 0, &eps))
			return 0;
		/* PyTorch's kernel: x < eps ? eps : x > 1 - eps ? 1 - eps
		 * : x, which for eps > 0.5 is not clamp(x, eps, 1 - eps) */
		TV t = dec_tv(x, to);
		t = dec_sel_s(r, dec_cs(r, "aten::gt.Scalar", t, 1 - eps),
		    1 - eps, t);
		x = dec_sel_s(r, dec_cs(r, "aten::lt.Scalar",
		    dec_tv(x, to), eps), eps, t).v;
	}
	onnxc_value one_minus = dec_with_scalar(r, "aten::rsub.Scalar", x, 1,
	    &to);
	onnxc_value q = dec_binary(r, "aten::div.Tensor", x, one_minus, &to);
	dec_bind(r, 0, dec_unary(r, "aten::log.default", q, &to));
	return 1;
}

/* _prelu_kernel(x, weight) -> where(x > 0, x, weight * x) */
int
dec_prelu_kernel(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	onnxc_value w = dec_arg_val(r, 1, "weight");
	Ty tx, to;
	if (dec_ty_of(r, x, &tx) || !w || dec_out_ty(r, 0, &to))
		return 0;
	Ty tb = dec_ty_dtype(tx, ONNXC_DT_BOOL);
	onnxc_value pos = dec_with_scalar(r, "aten::gt.Scalar", x, 0, &tb);
	onnxc_value wx = dec_binary(r, "aten::mul.Tensor", w, x, &to);
	dec_bind(r, 0, EMIT(r, "aten::where.self", &to, dec_a_val(pos),
	    dec_a_val(x), dec_a_val(wx)));
	return 1;
}

/* prelu(x, weight) -> the kernel with weight [C] viewed as [C, 1, ...]
 * to align with dim 1 of x */
int
dec_prelu(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	onnxc_value w = dec_arg_val(r, 1, "weight");
	Ty tx, tw, to;
	int64_t c;
	if (dec_ty_of(r, x, &tx) || dec_ty_of(r, w, &tw) ||
	    dec_out_ty(r, 0, &to) || tw.rank > 1)
		return 0;
	/* a 0-d weight: one slope for every channel */
	if (tw.rank == 0)
		c = 1;
	else if (!dec_dim_static(&tw.d[0], &c))
		return 0;
	if (c != 1 && tx.rank >= 2) {
		Ty tv = tw;
		tv.rank = tx.rank - 1;
		for (int i = 1; i < tv.rank; i++)
			tv.d[i] = (onnxc_dim){1, 0};
		w = dec_view(r, w, &tv);
	} else if (c == 1 && tw.rank == 1) {
		/* one slope as a 0-d tensor: a [1] one would make a 0-d x's
		 * result [1] */
		Ty tv = tw;
		tv.rank = 0;
		w = dec_view(r, w, &tv);
	}
	Ty tb = dec_ty_dtype(tx, ONNXC_DT_BOOL);
	onnxc_value pos = dec_with_scalar(r, "aten::gt.Scalar", x, 0, &tb);
	onnxc_value wx = dec_binary(r, "aten::mul.Tensor", w, x, &to);
	dec_bind(r, 0, EMIT(r, "aten::where.self", &to, dec_a_val(pos),
	    dec_a_val(x), dec_a_val(wx)));
	return 1;
}

/* square(x) -> x * x */
int
dec_square(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	Ty to;
	if (!x || dec_out_ty(r, 0, &to))
		return 0;
	dec_bind(r, 0, dec_binary(r, "aten::mul.Tensor", x, x, &to));
	return 1;
}

/* deg2rad / rad2deg -> x * factor (an integer x as the float result) */
static int
scale_by(Rw *r, double f)
{
	TV x = dec_as_out_float(r, dec_in(r, 0, "self")), o = dec_out(r, 0);
	if (!x.v || !o.v || x.t.dtype != o.t.dtype)
		return 0;
	dec_bind(r, 0, dec_s(r, "aten::mul.Tensor", x, f).v);
	return 1;
}

int dec_deg2rad(Rw *r) { return scale_by(r, PI / 180); }
int dec_rad2deg(Rw *r) { return scale_by(r, 180 / PI); }

/* d + k for a size that may be symbolic */
static onnxc_dim
dim_add(Rw *r, onnxc_dim d, int64_t k)
{
	if (!d.e)
		return (onnxc_dim){d.n + k, 0};
	onnxc_expr e = r->h->expr_op(r->ctx, ONNXC_E_ADD, d.e,
	    r->h->expr_int(r->ctx, k));
	if (ONNXC_HOST_HAS(r->h, expr_simplify))
		e = r->h->expr_simplify(r->ctx, e);
	return (onnxc_dim){0, e};
}

/* diff(x, n=1, dim=-1, prepend=None, append=None): x with prepend and
 * append concatenated along dim, then n times x[1:] - x[:-1] (logical xor
 * for booleans). */
int
dec_diff(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	onnxc_value pre = dec_arg_val(r, 3, "prepend");
	onnxc_value app = dec_arg_val(r, 4, "append");
	int64_t n, dim;
	Ty t, tp, ta;
	if (dec_ty_of(r, x, &t) || t.rank < 1 ||
	    !dec_arg_int(r, 1, "n", 1, &n) || n < 0 ||
	    !dec_arg_int(r, 2, "dim", -1, &dim) || dim < -t.rank ||
	    dim >= t.rank || (pre && dec_ty_of(r, pre, &tp)) ||
	    (app && dec_ty_of(r, app, &ta)))
		return 0;
	if (dim < 0)
		dim += t.rank;
	if (n == 0) {  /* self, prepend and append left out, as in ATen */
		dec_bind(r, 0, EMIT(r, "aten::clone.default", &t, dec_a_val(x)));
		return 1;
	}
	if (pre || app) {
		onnxc_arg parts[3];
		uint32_t k = 0;
		onnxc_dim *d = &t.d[dim];
		if (pre) {
			parts[k++] = dec_a_val(pre);
			if (tp.rank != t.rank || tp.d[dim].e)
				return 0;
			*d = dim_add(r, *d, tp.d[dim].n);
		}
		parts[k++] = dec_a_val(x);
		if (app) {
			parts[k++] = dec_a_val(app);
			if (ta.rank != t.rank || ta.d[dim].e)
				return 0;
			*d = dim_add(r, *d, ta.d[dim].n);
		}
		onnxc_arg list;
		if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, parts, k,
		    &list) != ONNXC_OK)
			return 0;
		x = EMIT(r, "aten::cat.default", &t, list, dec_a_int(dim));
	}
	const char *op = t.dtype == ONNXC_DT_BOOL ?
	    "aten::logical_xor.default" : "aten::sub.Tensor";
	for (int64_t i = 0; i < n; i++) {
		t.d[dim] = dim_add(r, t.d[dim], -1);
		onnxc_value hi = EMIT(r, "aten::slice.Tensor", &t, dec_a_val(x),
		    dec_a_int(dim), dec_a_int(1), dec_a_int(INT64_MAX));
		onnxc_value lo = EMIT(r, "aten::slice.Tensor", &t, dec_a_val(x),
		    dec_a_int(dim), dec_a_int(0), dec_a_int(-1));
		x = dec_binary(r, op, hi, lo, &t);
	}
	/* n = 0 without prepend/append: a copy (binding x itself would
	 * rename the input) */
	if (x == dec_arg_val(r, 0, "self"))
		x = dec_unary(r, "aten::clone.default", x, &t);
	dec_bind(r, 0, x);
	return 1;
}
