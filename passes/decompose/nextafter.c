/* nextafter.c - inside the decompose plugin: nextafter(x, y), the float
 * next to x toward y, without reading the bits (ONNX has no bitcast):
 * the spacing of floats at |x| is 2^(e - mantissa bits) for |x| in
 * [2^e, 2^(e+1)), the subnormal spacing below the smallest normal; a
 * step toward zero from a power of two is half a spacing.  e comes from
 * log2 and is corrected against exact powers of two, so that rounding in
 * log2 cannot put it off by one. */
#include <math.h> /* NAN, INFINITY only: no libm */

#include "decompose.h"

/* 2^t for an integer-valued tensor t: exact */
static TV
pow2(Rw *r, TV t)
{
	return dec_u(r, "aten::exp2.default", t);
}

/* A float format: mantissa bits, smallest normal exponent, smallest
 * subnormal, largest finite. */
typedef struct Fmt {
	uint32_t dtype;
	int mant, emin;
	double tiny, big;
} Fmt;

static const Fmt *
fmt_of(uint32_t dt)
{
	static const Fmt fmts[] = {
		{ONNXC_DT_F64, 52, -1022, 4.9406564584124654e-324,
		    1.7976931348623157e308},
		{ONNXC_DT_F32, 23, -126, 1.40129846e-45, 3.40282347e38},
		{ONNXC_DT_F16, 10, -14, 5.9604644775390625e-8, 65504},
		{ONNXC_DT_BF16, 7, -126, 9.18354961579912e-41,
		    3.3895313892515355e38},
	};
	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
		if (fmts[i].dtype == dt)
			return &fmts[i];
	return NULL;
}

int
dec_nextafter(Rw *r)
{
	TV x = dec_fin(r, 0, "self"), y = dec_fin(r, 1, "other");
	TV o = dec_out(r, 0);
	if (!x.v || !y.v)
		return 0;
	/* the step is the output type's: half precision's too (dec_fin
	 * computes it in float32, where each of its floats and steps is
	 * exact) */
	const Fmt *f = fmt_of(o.t.dtype);
	if (!f || (x.t.dtype != o.t.dtype && o.t.dtype != ONNXC_DT_F16 &&
	    o.t.dtype != ONNXC_DT_BF16))
		return 0;
	double mant = f->mant, emin = f->emin, tiny = f->tiny, big = f->big;
	TV a = dec_u(r, "aten::abs.default", x);
	/* e = floor(log2 |x|), then one step either way where log2 rounded
	 * across a power of two */
	TV e = dec_u(r, "aten::floor.default", dec_u(r, "aten::log2.default",
	    a));
	e = dec_sel(r, dec_c(r, "aten::gt.Tensor", pow2(r, e), a),
	    dec_adds(r, e, -1), e);
	e = dec_sel(r, dec_c(r, "aten::le.Tensor", pow2(r, dec_adds(r, e, 1)),
	    a), dec_adds(r, e, 1), e);
	TV en = dec_s(r, "aten::clamp_min.default", e, emin);
	TV ulp = pow2(r, dec_adds(r, en, -mant));
	/* toward zero from an exact power of two (not subnormal): half */
	TV pw = dec_c(r, "aten::logical_and.default",
	    dec_c(r, "aten::eq.Tensor", pow2(r, e), a),
	    dec_cs(r, "aten::gt.Scalar", e, emin));
	TV down = dec_sub(r, a, dec_sel(r, pw, dec_muls(r, ulp, 0.5), ulp));
	TV up = dec_add(r, a, ulp);
	/* away from zero when y lies beyond x on x's side */
	TV pos = dec_cs(r, "aten::gt.Scalar", x, 0);
	TV away = dec_c(r, "aten::eq.Tensor", pos,
	    dec_c(r, "aten::gt.Tensor", y, x));
	TV m = dec_sel(r, away, up, down);
	TV v = dec_sel(r, pos, m, dec_u(r, "aten::neg.default", m));
	/* from +-inf toward anything: the largest finite float */
	TV inf = dec_u(r, "aten::isinf.default", x);
	v = dec_sel(r, inf, dec_muls(r, dec_u(r, "aten::sign.default", x),
	    big), v);
	/* from zero: the smallest subnormal with y's sign */
	TV zero = dec_cs(r, "aten::eq.Scalar", x, 0);
	TV sy = dec_sel_s(r, dec_cs(r, "aten::le.Scalar", y, 0), -tiny, y);
	sy = dec_sel_s(r, dec_cs(r, "aten::gt.Scalar", y, 0), tiny, sy);
	v = dec_sel(r, zero, sy, v);
	v = dec_sel(r, dec_c(r, "aten::eq.Tensor", x, y), y, v);
	TV nan = dec_c(r, "aten::logical_or.default",
	    dec_u(r, "aten::isnan.default", x),
	    dec_u(r, "aten::isnan.default", y));
	dec_bind(r, 0, dec_sel_s(r, nan, NAN, v).v);
	return 1;
}
