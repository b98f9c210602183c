/* special.c - inside the decompose plugin: special functions (lgamma,
 * digamma, polygamma, Hurwitz zeta, erfinv, the normal distribution's
 * ndtr/log_ndtr/ndtri, erfcx, modified Bessel functions, entr, sinc,
 * xlog1py) as element-wise series and rational approximations, accurate
 * to a few float32 ulps over the ranges PyTorch's tests use. */
#include <math.h> /* NAN, INFINITY only: no libm */

#include "decompose.h"

#define PI 3.14159265358979323846
#define LN_SQRT_2PI 0.91893853320467274178
#define SQRT1_2 0.70710678118654752440

static TV
fn(Rw *r, const char *op, TV a)
{
	return dec_u(r, op, a);
}

/* s / a */
static TV
rdiv(Rw *r, double s, TV a)
{
	return dec_muls(r, fn(r, "aten::reciprocal.default", a), s);
}

/* x - round(x): in [-0.5, 0.5], where sin(pi x) and tan(pi x) are
 * computed without the error of pi * x for large x */
static TV
frac_round(Rw *r, TV x)
{
	return dec_sub(r, x, fn(r, "aten::round.default", x));
}

/* lgamma on x >= 0.5: lgamma(x + 8) by Stirling's series less
 * log(x (x + 1) ... (x + 7)) */
static TV
lgamma_pos(Rw *r, TV x)
{
	TV z = dec_adds(r, x, 8);
	TV iz = fn(r, "aten::reciprocal.default", z), iz2 = dec_mul(r, iz, iz);
	static const double c[] = {-1.0 / 1680, 1.0 / 1260, -1.0 / 360,
	    1.0 / 12};
	TV s = dec_mul(r, dec_poly(r, iz2, c, 4), iz);
	TV l = dec_sub(r, dec_mul(r, dec_adds(r, z, -0.5), fn(r,
	    "aten::log.default", z)),
	    z);
	l = dec_add(r, dec_adds(r, l, LN_SQRT_2PI), s);
	TV p = fn(r, "aten::log.default", x);
	for (int k = 1; k < 8; k++)
		p = dec_add(r, p, fn(r, "aten::log.default", dec_adds(r, x,
		    k)));
	return dec_sub(r, l, p);
}

/* lgamma(x); x < 0.5 by reflection: log(pi / |sin(pi x)|) - lgamma(1 - x) */
static TV
lgamma_of(Rw *r, TV x)
{
	TV lo = dec_cs(r, "aten::lt.Scalar", x, 0.5);
	TV y = dec_sel(r, lo, dec_rsubs(r, x, 1), x);
	TV g = lgamma_pos(r, y);
	TV sn = fn(r, "aten::abs.default", fn(r, "aten::sin.default",
	    dec_muls(r, frac_round(r, x), PI)));
	TV refl = dec_sub(r, fn(r, "aten::log.default", rdiv(r, PI, sn)), g);
	TV v = dec_sel(r, lo, refl, g);
	/* +inf: Stirling's series would give inf - inf */
	return dec_sel_s(r, dec_u(r, "aten::isposinf.default", x), INFINITY, v);
}

int
dec_lgamma(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	dec_bind(r, 0, lgamma_of(r, x).v);
	return 1;
}

/* mvlgamma(x, p) = sum over i < p of lgamma(x - i / 2) + p (p - 1) / 4
 * log(pi) */
int
dec_mvlgamma(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	int64_t p;
	if (!x.v || !dec_arg_int(r, 1, "p", 1, &p) || p < 1 || p > 64)
		return 0;
	TV s = lgamma_of(r, x);
	for (int64_t i = 1; i < p; i++)
		s = dec_add(r, s, lgamma_of(r, dec_adds(r, x,
		    -0.5 * (double)i)));
	dec_bind(r, 0, dec_adds(r, s, (double)(p * (p - 1)) / 4 *
	    1.14472988584940017414).v);
	return 1;
}

/* digamma(x): x >= 0.5 from digamma(x + 8) (asymptotic series) less
 * the sum of 1 / (x + k); below by reflection, psi(1 - x) - pi / tan(pi x);
 * NaN at the negative integers, -inf at 0 */
static TV
digamma_of(Rw *r, TV x)
{
	TV lo = dec_cs(r, "aten::lt.Scalar", x, 0.5);
	TV y = dec_sel(r, lo, dec_rsubs(r, x, 1), x);
	TV z = dec_adds(r, y, 8);
	TV iz = fn(r, "aten::reciprocal.default", z), iz2 = dec_mul(r, iz, iz);
	static const double c[] = {1.0 / 240, -1.0 / 252, 1.0 / 120,
	    -1.0 / 12, 0};
	TV v = dec_sub(r, fn(r, "aten::log.default", z), dec_muls(r, iz, 0.5));
	v = dec_add(r, v, dec_poly(r, iz2, c, 5));
	for (int k = 0; k < 8; k++)
		v = dec_sub(r, v, fn(r, "aten::reciprocal.default", dec_adds(r,
		    y, k)));
	TV t = fn(r, "aten::tan.default", dec_muls(r, frac_round(r, x), PI));
	TV refl = dec_sub(r, v, rdiv(r, PI, t));
	v = dec_sel(r, lo, refl, v);
	TV nint = dec_c(r, "aten::logical_and.default",
	    dec_cs(r, "aten::lt.Scalar", x, 0),
	    dec_c(r, "aten::eq.Tensor", x, fn(r, "aten::floor.default", x)));
	v = dec_sel_s(r, nint, NAN, v);
	return dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", x, 0), -INFINITY, v);
}

int
dec_digamma(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	dec_bind(r, 0, digamma_of(r, x).v);
	return 1;
}

/* Hurwitz zeta(s, q) = sum over k >= 0 of (q + k)^-s: 20 terms, then
 * Euler-Maclaurin at w = q + 20 (the tail's integral, half its first
 * term, and Bernoulli corrections), as Cephes does with its loop made
 * a fixed length.  inf at s == 1 and at q a non-positive integer; NaN
 * for s < 1 and for q < 0 with s not an integer. */
static TV
zeta_of(Rw *r, TV s, TV q)
{
	enum { N = 20 };
	/* (2j)! / B_2j */
	static const double A[] = {12.0, -720.0, 30240.0, -1209600.0,
	    47900160.0, -1.8924375803183791606e9, 7.47242496e10,
	    -2.950130727918164224e12};
	TV ns = fn(r, "aten::neg.default", s);
	TV sum = dec_b(r, "aten::pow.Tensor_Tensor", q, ns);
	for (int k = 1; k < N; k++)
		sum = dec_add(r, sum, dec_b(r, "aten::pow.Tensor_Tensor",
		    dec_adds(r, q, k), ns));
	TV w = dec_adds(r, q, N);
	TV b = dec_b(r, "aten::pow.Tensor_Tensor", w, ns);
	sum = dec_add(r, sum, dec_div(r, dec_mul(r, b, w), dec_adds(r, s, -1)));
	sum = dec_add(r, sum, dec_muls(r, b, 0.5));
	TV iw = fn(r, "aten::reciprocal.default", w);
	TV a = s;
	b = dec_mul(r, b, iw);
	for (int i = 0; i < 8; i++) {
		sum = dec_add(r, sum, dec_muls(r, dec_mul(r, a, b), 1 / A[i]));
		/* a *= (s + 2i + 1)(s + 2i + 2), b /= w^2 */
		a = dec_mul(r, a, dec_mul(r, dec_adds(r, s, 2 * i + 1),
		    dec_adds(r, s, 2 * i + 2)));
		b = dec_mul(r, b, dec_mul(r, iw, iw));
	}
	TV qneg = dec_cs(r, "aten::le.Scalar", q, 0);
	TV qint = dec_c(r, "aten::eq.Tensor", q, fn(r, "aten::floor.default",
	    q));
	TV sint = dec_c(r, "aten::eq.Tensor", s, fn(r, "aten::floor.default",
	    s));
	/* Cephes' order, the first that holds: s = 1 inf, s < 1 NaN, a
	 * pole q <= 0 inf, q < 0 with s not an integer NaN */
	sum = dec_sel_s(r, dec_c(r, "aten::logical_and.default", qneg,
	    fn(r, "aten::logical_not.default", sint)), NAN, sum);
	sum = dec_sel_s(r, dec_c(r, "aten::logical_and.default", qneg, qint),
	    INFINITY, sum);
	sum = dec_sel_s(r, dec_cs(r, "aten::lt.Scalar", s, 1), NAN, sum);
	return dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", s, 1), INFINITY, sum);
}

/* special_zeta(x, q) */
int
dec_zeta(Rw *r)
{
	TV s = dec_fin(r, 0, "self"), q = dec_fin(r, 1, "other");
	if (!s.v || !q.v)
		return 0;
	dec_bind(r, 0, zeta_of(r, s, q).v);
	return 1;
}

/* trigamma, step for step as PyTorch's calc_trigamma: below 1/2 the
 * reflection -pi^2 / sin(pi x)^2 with pi x rounded as there (so a
 * negative integer gives pi^2 over the square of that rounding's sine:
 * large and finite, as there), 1 - x, six steps of 1 / x^2, then the
 * asymptotic series, whose double constants make C++ compute it in
 * double, rounded once into the result */
static TV
trigamma_of(Rw *r, TV x)
{
	TV lt = dec_cs(r, "aten::lt.Scalar", x, 0.5);
	TV t = dec_muls(r, x, M_PI), sn;
	if (x.t.dtype == ONNXC_DT_F64) {
		/* ONNX Runtime's double Sin gives 0 at small multiples of pi
		 * where glibc's gives the rounding error: reduce by pi in
		 * three parts (Cody and Waite, Cephes' constants; exact for
		 * |k| < 2^29) and take the sine of the rest */
		TV k = fn(r, "aten::round.default", dec_muls(r, t, M_1_PI));
		TV rest = dec_sub(r, t, dec_muls(r, k, 3.14159250259399414062));
		rest = dec_sub(r, rest, dec_muls(r, k, 1.50995788317231927067e-7));
		rest = dec_sub(r, rest, dec_muls(r, k, 1.07806057163162381058e-14));
		TV odd = dec_sub(r, k, dec_muls(r, fn(r, "aten::floor.default",
		    dec_muls(r, k, 0.5)), 2));
		sn = dec_mul(r, fn(r, "aten::sin.default", rest), dec_rsubs(r,
		    dec_muls(r, odd, 2), 1));
	} else {
		sn = fn(r, "aten::sin.default", t);
	}
	TV pi2 = dec_muls(r, dec_adds(r, dec_muls(r, x, 0), M_PI), M_PI);
	TV refl = dec_div(r, pi2, dec_mul(r, sn, sn));
	TV res = dec_sel_s(r, dec_cs(r, "aten::ge.Scalar", x, 0.5), 0,
	    fn(r, "aten::neg.default", refl));
	TV y = dec_sel(r, lt, dec_rsubs(r, x, 1), x);
	for (int i = 0; i < 6; i++) {
		res = dec_add(r, res, rdiv(r, 1, dec_mul(r, y, y)));
		y = dec_adds(r, y, 1);
	}
	TV ixx = rdiv(r, 1, dec_mul(r, y, y));
	TV head = dec_adds(r, rdiv(r, 1, dec_muls(r, y, 2)), 1);
	TV d = dec_cast(r, ixx, ONNXC_DT_F64), yd = dec_cast(r, y, ONNXC_DT_F64);
	TV ser = dec_rsubs(r, dec_muls(r, d, 1. / 42), 1. / 30);
	ser = dec_rsubs(r, dec_mul(r, d, ser), 1. / 6);
	ser = dec_div(r, dec_add(r, dec_cast(r, head, ONNXC_DT_F64),
	    dec_mul(r, d, ser)), yd);
	res = dec_cast(r, dec_add(r, dec_cast(r, res, ONNXC_DT_F64), ser),
	    x.t.dtype);
	return dec_sel(r, lt, fn(r, "aten::neg.default", res), res);
}

/* polygamma(n, x): digamma for n = 0, else (-1)^(n+1) n! zeta(n+1, x) */
int
dec_polygamma(Rw *r)
{
	TV x = dec_fin(r, 1, "self");
	int64_t n;
	if (!x.v || !dec_arg_int(r, 0, "n", 0, &n) || n < 0 || n > 30)
		return 0;
	if (n == 0 || n == 1) {
		dec_bind(r, 0, (n ? trigamma_of(r, x) : digamma_of(r, x)).v);
		return 1;
	}
	double f = 1;
	for (int64_t i = 2; i <= n; i++)
		f *= (double)i;
	TV s = dec_adds(r, dec_muls(r, x, 0), (double)(n + 1));
	dec_bind(r, 0, dec_muls(r, zeta_of(r, s, x), n % 2 ? f : -f).v);
	return 1;
}

/* special_polygamma(n, x): the same */
int
dec_special_polygamma(Rw *r)
{
	return dec_polygamma(r);
}

/* erfinv(y): Giles' single-precision approximation in w = -log(1 - y^2),
 * then one Newton step on erf; +-inf at +-1, NaN beyond */
static TV
erfinv_w(Rw *r, TV y, TV w)
{
	static const double c1[] = {2.81022636e-08, 3.43273939e-07,
	    -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
	    -0.00417768164, 0.246640727, 1.50140941};
	static const double c2[] = {-0.000200214257, 0.000100950558,
	    0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
	    0.00943887047, 1.00167406, 2.83297682};
	TV p1 = dec_poly(r, dec_adds(r, w, -2.5), c1, 9);
	TV p2 = dec_poly(r, dec_adds(r, fn(r, "aten::sqrt.default", w), -3), c2,
	    9);
	TV p = dec_sel(r, dec_cs(r, "aten::lt.Scalar", w, 5), p1, p2);
	return dec_mul(r, p, y);
}

int
dec_erfinv(Rw *r)
{
	TV y = dec_fin(r, 0, "self");
	if (!y.v)
		return 0;
	TV w = fn(r, "aten::neg.default", fn(r, "aten::log.default",
	    dec_mul(r, dec_rsubs(r, y, 1), dec_adds(r, y, 1))));
	TV x = erfinv_w(r, y, w);
	/* Newton: x - (erf(x) - y) / (2 / sqrt(pi) exp(-x^2)) */
	TV d = dec_div(r, dec_sub(r, fn(r, "aten::erf.default", x), y),
	    dec_muls(r, fn(r, "aten::exp.default", fn(r, "aten::neg.default",
	    dec_mul(r, x, x))), 1.12837916709551257390));
	TV inner = dec_cs(r, "aten::lt.Scalar", fn(r, "aten::abs.default", y),
	    0.9);
	x = dec_sel(r, inner, dec_sub(r, x, d), x);
	TV one = dec_cs(r, "aten::eq.Scalar", fn(r, "aten::abs.default", y), 1);
	x = dec_sel(r, one, dec_muls(r, fn(r, "aten::sign.default", y),
	    INFINITY),
	    x);
	dec_bind(r, 0, x.v);
	return 1;
}

/* erfc(z) for z >= 0 as t exp(-z^2 + P(t)), t = 1 / (1 + z / 2)
 * (Numerical Recipes' erfcc, relative error below 1.2e-7); returned
 * without the exp(-z^2) factor (that is erfcx) when scaled */
static TV
erfc_pos(Rw *r, TV z, int scaled)
{
	static const double c[] = {0.17087277, -0.82215223, 1.48851587,
	    -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
	    1.00002368, -1.26551223};
	TV t = fn(r, "aten::reciprocal.default", dec_adds(r, dec_muls(r, z,
	    0.5), 1));
	TV e = dec_poly(r, t, c, 10);
	if (!scaled)
		e = dec_sub(r, e, dec_mul(r, z, z));
	return dec_mul(r, t, fn(r, "aten::exp.default", e));
}

/* the log of erfc_pos: log t + P(t) - z^2 */
static TV
log_erfc_pos(Rw *r, TV z)
{
	static const double c[] = {0.17087277, -0.82215223, 1.48851587,
	    -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
	    1.00002368, -1.26551223};
	TV t = fn(r, "aten::reciprocal.default", dec_adds(r, dec_muls(r, z,
	    0.5), 1));
	return dec_sub(r, dec_add(r, fn(r, "aten::log.default", t),
	    dec_poly(r, t, c, 10)), dec_mul(r, z, z));
}

/* erfcx(x) = exp(x^2) erfc(x); for x < 0, 2 exp(x^2) - erfcx(-x) */
int
dec_erfcx(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	TV ax = fn(r, "aten::abs.default", x);
	TV e = erfc_pos(r, ax, 1);
	TV neg = dec_sub(r, dec_muls(r, fn(r, "aten::exp.default", dec_mul(r, x,
	    x)), 2),
	    e);
	dec_bind(r, 0, dec_sel(r, dec_cs(r, "aten::lt.Scalar", x, 0), neg,
	    e).v);
	return 1;
}

/* ndtr(x) = erfc(-x / sqrt 2) / 2: the small tail computed directly */
static TV
ndtr_of(Rw *r, TV x)
{
	TV h = dec_muls(r, erfc_pos(r, dec_muls(r, fn(r, "aten::abs.default",
	    x),
	    SQRT1_2), 0), 0.5);
	return dec_sel(r, dec_cs(r, "aten::lt.Scalar", x, 0), h,
	    dec_rsubs(r, h, 1));
}

int
dec_ndtr(Rw *r)
{
	TV x = dec_fin(r, 0, "self"), o = dec_out(r, 0);
	if (!x.v)
		return 0;
	if (x.t.dtype != o.t.dtype) {
		/* half precision: PyTorch's kernel rounds each step in it,
		 * as its decomposition (1 + erf(x / sqrt 2)) / 2 does, in
		 * ops of the half type */
		TV h = dec_in(r, 0, "self");
		if (h.t.dtype != o.t.dtype)
			return 0;
		h = dec_u(r, "aten::erf.default", dec_muls(r, h, SQRT1_2));
		dec_bind(r, 0, dec_muls(r, dec_adds(r, h, 1), 0.5).v);
		return 1;
	}
	dec_bind(r, 0, ndtr_of(r, x).v);
	return 1;
}

/* log_ndtr(x): log(erfc(|x| / sqrt 2) / 2) in log form for x < 0,
 * log1p(-erfc(x / sqrt 2) / 2) above */
int
dec_log_ndtr(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	TV z = dec_muls(r, fn(r, "aten::abs.default", x), SQRT1_2);
	TV lo = dec_adds(r, log_erfc_pos(r, z), -0.69314718055994530942);
	TV hi = fn(r, "aten::log1p.default", dec_muls(r, erfc_pos(r, z, 0),
	    -0.5));
	dec_bind(r, 0, dec_sel(r, dec_cs(r, "aten::lt.Scalar", x, 0), lo,
	    hi).v);
	return 1;
}

/* ndtri(p) = sqrt 2 erfinv(2p - 1), with w = -log(4 p (1 - p)) formed
 * from p (exact in the tails), then one Newton step on ndtr */
int
dec_ndtri(Rw *r)
{
	TV p = dec_fin(r, 0, "self");
	if (!p.v)
		return 0;
	TV w = fn(r, "aten::neg.default", fn(r, "aten::log.default",
	    dec_muls(r, dec_mul(r, p, dec_rsubs(r, p, 1)), 4)));
	TV x = dec_muls(r, erfinv_w(r, dec_adds(r, dec_muls(r, p, 2), -1), w),
	    1.41421356237309504880);
	/* x - (ndtr(x) - p) / phi(x) */
	TV phi = dec_muls(r, fn(r, "aten::exp.default", dec_muls(r, dec_mul(r,
	    x, x),
	    -0.5)), 0.39894228040143267794);
	TV xn = dec_sub(r, x, dec_div(r, dec_sub(r, ndtr_of(r, x), p), phi));
	TV fine = dec_c(r, "aten::logical_and.default",
	    dec_cs(r, "aten::gt.Scalar", p, 0), dec_cs(r, "aten::lt.Scalar", p,
	    1));
	x = dec_sel(r, fine, xn, x);
	x = dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", p, 0), -INFINITY, x);
	x = dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", p, 1), INFINITY, x);
	dec_bind(r, 0, x.v);
	return 1;
}

/* entr(x) = -x log x, 0 at 0, -inf below */
int
dec_entr(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	TV v = fn(r, "aten::neg.default", dec_mul(r, x, fn(r,
	    "aten::log.default",
	    x)));
	v = dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", x, 0), 0, v);
	v = dec_sel_s(r, dec_cs(r, "aten::lt.Scalar", x, 0), -INFINITY, v);
	dec_bind(r, 0, v.v);
	return 1;
}

/* sinc(x) = sin(pi x) / (pi x), 1 at 0 */
int
dec_sinc(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	TV px = dec_muls(r, x, PI);
	TV v = dec_div(r, fn(r, "aten::sin.default", px), px);
	dec_bind(r, 0, dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", x, 0), 1,
	    v).v);
	return 1;
}

/* spherical_bessel_j0(x) = sin(x) / x, 1 at 0 */
int
dec_spherical_j0(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	TV v = dec_div(r, fn(r, "aten::sin.default", x), x);
	dec_bind(r, 0, dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", x, 0), 1,
	    v).v);
	return 1;
}

/* xlog1py(x, y) = x log1p(y), 0 where x == 0, NaN where y is NaN */
int
dec_xlog1py(Rw *r)
{
	TV x = dec_fin(r, 0, "self"), y = dec_fin(r, 1, "other");
	if (!x.v || !y.v)
		return 0;
	TV v = dec_mul(r, x, fn(r, "aten::log1p.default", y));
	v = dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", x, 0), 0, v);
	v = dec_sel_s(r, fn(r, "aten::isnan.default", y), NAN, v);
	dec_bind(r, 0, v.v);
	return 1;
}

/* ------------------------------------- modified Bessel functions */

/* Abramowitz and Stegun 9.8.1-9.8.8: polynomials in (x / 3.75)^2 below
 * 3.75 and in 3.75 / x above (I0, I1, scaled by sqrt(x) e^-x), in
 * x^2 / 4 up to 2 and in 2 / x above (K0, K1, scaled by sqrt(x) e^x);
 * errors below 2.2e-7 of the scaled value. */
static const double I0S[] = {0.0045813, 0.0360768, 0.2659732, 1.2067492,
    3.0899424, 3.5156229, 1.0};
static const double I0L[] = {0.00392377, -0.01647633, 0.02635537,
    -0.02057706, 0.00916281, -0.00157565, 0.00225319, 0.01328592,
    0.39894228};
static const double I1S[] = {0.00032411, 0.00301532, 0.02658733,
    0.15084934, 0.51498869, 0.87890594, 0.5};
static const double I1L[] = {-0.00420059, 0.01787654, -0.02895312,
    0.02282967, -0.01031555, 0.00163801, -0.00362018, -0.03988024,
    0.39894228};
static const double K0S[] = {0.0000074, 0.00010750, 0.00262698, 0.03488590,
    0.23069756, 0.42278420, -0.57721566};
static const double K0L[] = {0.00053208, -0.00251540, 0.00587872,
    -0.01062446, 0.02189568, -0.07832358, 1.25331414};
static const double K1S[] = {-0.00004686, -0.00110404, -0.01919402,
    -0.18156897, -0.67278579, 0.15443144, 1.0};
static const double K1L[] = {-0.00068245, 0.00325614, -0.00780353,
    0.01504268, -0.03655620, 0.23498619, 1.25331414};

/* I0 (one = 0) or I1 (one = 1) of x, times e^-|x| when scaled */
static TV
bessel_i(Rw *r, TV x, int one, int scaled)
{
	TV ax = fn(r, "aten::abs.default", x);
	TV small = dec_s(r, "aten::clamp_max.default", ax, 3.75);
	TV big = dec_s(r, "aten::clamp_min.default", ax, 3.75);
	TV y = dec_muls(r, dec_mul(r, small, small), 1 / (3.75 * 3.75));
	TV s = dec_poly(r, y, one ? I1S : I0S, 7);
	if (one)
		s = dec_mul(r, s, small);
	if (scaled)
		s = dec_mul(r, s, fn(r, "aten::exp.default",
		    fn(r, "aten::neg.default", small)));
	TV l = dec_div(r, dec_poly(r, rdiv(r, 3.75, big), one ? I1L : I0L, 9),
	    fn(r, "aten::sqrt.default", big));
	if (!scaled)
		l = dec_mul(r, l, fn(r, "aten::exp.default", big));
	TV v = dec_sel(r, dec_cs(r, "aten::le.Scalar", ax, 3.75), s, l);
	if (one)
		v = dec_mul(r, v, fn(r, "aten::sign.default", x));
	return v;
}

/* K0 or K1 of x, times e^x when scaled; inf at 0, NaN below */
static TV
bessel_k(Rw *r, TV x, int one, int scaled)
{
	TV small = dec_s(r, "aten::clamp.default", x, 0);
	small = dec_s(r, "aten::clamp_max.default", small, 2);
	TV big = dec_s(r, "aten::clamp_min.default", x, 2);
	TV y = dec_muls(r, dec_mul(r, small, small), 0.25);
	TV lg = fn(r, "aten::log.default", dec_muls(r, small, 0.5));
	TV s;
	if (one)
		s = dec_add(r, dec_mul(r, lg, bessel_i(r, small, 1, 0)),
		    dec_div(r, dec_poly(r, y, K1S, 7), small));
	else
		s = dec_sub(r, dec_poly(r, y, K0S, 7), dec_mul(r, lg,
		    bessel_i(r, small, 0, 0)));
	if (scaled)
		s = dec_mul(r, s, fn(r, "aten::exp.default", small));
	TV l = dec_div(r, dec_poly(r, rdiv(r, 2, big), one ? K1L : K0L, 7),
	    fn(r, "aten::sqrt.default", big));
	if (!scaled)
		l = dec_mul(r, l, fn(r, "aten::exp.default",
		    fn(r, "aten::neg.default", big)));
	TV v = dec_sel(r, dec_cs(r, "aten::le.Scalar", x, 2), s, l);
	v = dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", x, 0), INFINITY, v);
	return dec_sel_s(r, dec_cs(r, "aten::lt.Scalar", x, 0), NAN, v);
}

static int
bessel(Rw *r, int k, int one, int scaled)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	dec_bind(r, 0, (k ? bessel_k(r, x, one, scaled) :
	    bessel_i(r, x, one, scaled)).v);
	return 1;
}

int
dec_i0(Rw *r)
{
	return bessel(r, 0, 0, 0);
}

int
dec_i0e(Rw *r)
{
	return bessel(r, 0, 0, 1);
}

int
dec_i1(Rw *r)
{
	return bessel(r, 0, 1, 0);
}

int
dec_i1e(Rw *r)
{
	return bessel(r, 0, 1, 1);
}

int
dec_k0(Rw *r)
{
	return bessel(r, 1, 0, 0);
}

int
dec_k1(Rw *r)
{
	return bessel(r, 1, 1, 0);
}

int
dec_k0e(Rw *r)
{
	return bessel(r, 1, 0, 1);
}

int
dec_k1e(Rw *r)
{
	return bessel(r, 1, 1, 1);
}

