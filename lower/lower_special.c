/* lower_special.c - lowering rules for the orthogonal polynomials of
 * torch.special (Chebyshev T U V W and their shifted forms, Hermite H and
 * He, Laguerre L, Legendre P) whose degree n is a tensor: one ONNX Loop
 * runs the three-term recurrence for as many steps as the largest degree
 * needs, each element masked off once its own degree is reached.
 *
 * The results follow PyTorch's CPU kernels (ATen/native/Math.h): n is
 * truncated to an integer per element (a NaN or infinite n, which the
 * kernel's cast makes negative, gives 0 like any negative n); the
 * Chebyshev families take cos/sin of n acos(x) inside (-1, 1) above a
 * small degree and fixed values at the ends of the interval; the Hermite
 * polynomials are NaN above degree 128 (512 in double); the recurrence
 * stops on a NaN. */
#include <math.h>

#include "lower.h"

/* The polynomial families: which special cases apply. */
typedef enum PolyFam {
	PF_CHEB_T, PF_CHEB_U, PF_CHEB_V, PF_CHEB_W,
	PF_HERMITE, PF_LAGUERRE, PF_LEGENDRE,
} PolyFam;

/* One polynomial: with k = 1, 2, ... the step
 *   r = ((xk1 k + xk0) X + (a1 k + a0)) q - (c1 k + c0) p,
 *   r /= k + 1 when div,
 * from p = 1 and q = q1 X + q0 (the degree-1 value), where X is x, or
 * 2x - 1 for the shifted Chebyshev polynomials. */
typedef struct Poly {
	PolyFam fam;
	bool shifted;
	int trig_from;  /* Chebyshev: the trigonometric form above this n */
	double q1, q0;
	double xk1, xk0, a1, a0, c1, c0;
	bool div;
} Poly;

/* An expression builder over one graph (the main one or the loop body),
 * its floats of dtype dt. */
typedef struct Ex {
	Lower *L;
	DType dt;
} Ex;

static ValId
num(Ex *e, double v)
{
	return lw_scalar(e->L, v, e->dt);
}

static ValId
op1(Ex *e, const char *op, ValId a)
{
	return lw_op1(e->L, op, a);
}

static ValId
op2(Ex *e, const char *op, ValId a, ValId b)
{
	return lw_op2(e->L, op, a, b);
}

static ValId
cmp(Ex *e, const char *op, ValId a, ValId b)
{
	return lw_op2t(e->L, op, a, b, DT_BOOL);
}

/* IsNaN, IsInf: bool */
static ValId
is1(Ex *e, const char *op, ValId a)
{
	return lw_typed(e->L, lw_emit(e->L, op, 1, &a, 1), DT_BOOL);
}

static ValId
add(Ex *e, ValId a, ValId b)
{
	return op2(e, "Add", a, b);
}

static ValId
sub(Ex *e, ValId a, ValId b)
{
	return op2(e, "Sub", a, b);
}

static ValId
mul(Ex *e, ValId a, ValId b)
{
	return op2(e, "Mul", a, b);
}

static ValId
dv(Ex *e, ValId a, ValId b)
{
	return op2(e, "Div", a, b);
}

static ValId
adds(Ex *e, ValId a, double s)
{
	return add(e, a, num(e, s));
}

static ValId
muls(Ex *e, ValId a, double s)
{
	return mul(e, a, num(e, s));
}

static ValId
eqs(Ex *e, ValId a, double s)
{
	return cmp(e, "Equal", a, num(e, s));
}

static ValId
lts(Ex *e, ValId a, double s)
{
	return cmp(e, "Less", a, num(e, s));
}

static ValId
gts(Ex *e, ValId a, double s)
{
	return cmp(e, "Greater", a, num(e, s));
}

static ValId
and2(Ex *e, ValId a, ValId b)
{
	return cmp(e, "And", a, b);
}

static ValId
or2(Ex *e, ValId a, ValId b)
{
	return cmp(e, "Or", a, b);
}

static ValId
not1(Ex *e, ValId a)
{
	return lw_typed(e->L, lw_emit(e->L, "Not", 1, &a, 1), DT_BOOL);
}

static ValId
sel(Ex *e, ValId c, ValId a, ValId b)
{
	NodeId n = lw_emit(e->L, "Where", 3, (ValId[]){c, a, b}, 1);
	return lw_typed(e->L, n, lw_dtype(e->L, b));
}

/* where(c, s, b) */
static ValId
sels(Ex *e, ValId c, double s, ValId b)
{
	return sel(e, c, num(e, s), b);
}

/* the largest element of x (of any rank, possibly empty) and 0: an i64
 * scalar */
static ValId
max_or_zero(Ex *e, ValId x)
{
	Lower *L = e->L;
	ValId flat = lw_op2(L, "Reshape", x, lw_i64v(L, -1));
	ValId both = lw_concat(L, (ValId[]){flat, lw_i64v(L, 0)}, 2, 0,
	    DT_I64);
	NodeId n = lw_emit(L, "ReduceMax", 1, &both, 1);
	lw_attr_int(L, n, "keepdims", 0);
	return lw_typed(L, n, DT_I64);
}

/* The Loop body: inputs (i, cond, p, q), captures X and count; p, q
 * step on where i < count.  It goes on while some element still steps
 * and is not NaN. */
static GraphId
poly_body(Lower *L, const Poly *P, DType dt, ValId X, ValId cnt, ValId p0)
{
	GraphId sg = lw_subgraph(L, "poly_step");
	Graph *g = ir_graph(L->m, sg);
	Lower S = {.m = L->m, .dst = g, .dstid = sg, .opset = L->opset};
	Ex e = {&S, dt};
	const char *names[] = {"i", "cond_in", "p", "q"};
	ValId in[4];
	for (int k = 0; k < 4; k++) {
		in[k] = ir_value(g, ir_intern(L->m, names[k]));
		if (k < 2)
			ir_set_tensor(g, in[k], k ? DT_BOOL : DT_I64, 0, NULL);
		else
			ir_set_tensor(g, in[k], dt, ir_val(L->dst, p0)->rank,
			    ir_dims(L->dst, p0));
		ir_add_input(g, in[k]);
	}
	ValId x = lw_outer(L, sg, X, 0), c = lw_outer(L, sg, cnt, 1);
	ValId i1 = lw_op2(&S, "Add", in[0], lw_scalar_i64(&S, 1));
	ValId k = lw_cast(&S, i1, dt);
	ValId kx = adds(&e, muls(&e, k, P->xk1), P->xk0);
	ValId ka = adds(&e, muls(&e, k, P->a1), P->a0);
	ValId kc = adds(&e, muls(&e, k, P->c1), P->c0);
	ValId r = sub(&e, mul(&e, add(&e, mul(&e, x, kx), ka), in[3]),
	    mul(&e, kc, in[2]));
	if (P->div)
		r = dv(&e, r, adds(&e, k, 1));
	ValId m = cmp(&e, "Less", in[0], c);
	ValId p = sel(&e, m, in[3], in[2]), q = sel(&e, m, r, in[3]);
	ValId on = and2(&e, cmp(&e, "Less", i1, c), not1(&e,
	    is1(&e, "IsNaN", q)));
	NodeId any = lw_emit(&S, "ReduceMax", 1,
	    (ValId[]){lw_cast(&S, on, DT_I32)}, 1);
	lw_attr_int(&S, any, "keepdims", 0);
	lw_sub_output(L, sg, lw_cast(&S, lw_typed(&S, any, DT_I32), DT_BOOL));
	lw_sub_output(L, sg, p);
	lw_sub_output(L, sg, q);
	return sg;
}

/* fmod(n, 2) */
static ValId
fmod2(Ex *e, ValId n)
{
	NodeId m = lw_emit(e->L, "Mod", 2, (ValId[]){n, num(e, 2)}, 1);
	lw_attr_int(e->L, m, "fmod", 1);
	return lw_typed(e->L, m, e->dt);
}

/* n truncated toward zero; -1 where it is NaN or infinite */
static ValId
trunc_n(Ex *e, ValId n)
{
	ValId t = mul(e, op1(e, "Sign", n), op1(e, "Floor", op1(e, "Abs", n)));
	ValId bad = or2(e, is1(e, "IsNaN", n), is1(e, "IsInf", n));
	/* past 2^40 the recurrence would run for days either way */
	return op2(e, "Min", sels(e, bad, -1, t), num(e, 1099511627776.0));
}

/* the Chebyshev families' value at the end of the interval where X = 1
 * (pos) or X = -1, with 2n + 1, n + 1 and the parity of n */
static ValId
cheb_end(Ex *e, PolyFam f, int pos, ValId n, ValId even)
{
	ValId n1 = adds(e, n, 1), n2 = adds(e, muls(e, n, 2), 1);
	ValId one = num(e, 1), m1 = num(e, -1);
	switch (f) {
	case PF_CHEB_T:
		return pos ? one : sel(e, even, one, m1);
	case PF_CHEB_U:
		return pos ? n1 : sel(e, even, n1, op1(e, "Neg", n1));
	case PF_CHEB_V:
		return pos ? one : sel(e, even, n2, op1(e, "Neg", n2));
	default:
		return pos ? n2 : sel(e, even, one, m1);
	}
}

/* cos and acos: ONNX Runtime's CPU has float kernels only, so in double
 * cos(a) is sin(a + pi/2), and acos(X) = 2 asin(t) with t = sqrt((1 -
 * |X|) / 2) (pi minus that for X < 0): t is exact in double near |X| = 1
 * where X itself would lose its digits in float; asin(t) = b starts in
 * float and two Newton steps on sin(b) = t (b <= pi/4, cos(b) >= 0.7)
 * bring it to double's accuracy */
static ValId
cosine(Ex *e, ValId a)
{
	if (e->dt != DT_F64)
		return op1(e, "Cos", a);
	return op1(e, "Sin", adds(e, a, M_PI_2));
}

static ValId
arccos(Ex *e, ValId X)
{
	if (e->dt != DT_F64)
		return op1(e, "Acos", X);
	ValId t = op1(e, "Sqrt", muls(e, sub(e, num(e, 1), op1(e, "Abs", X)),
	    0.5));
	ValId b = lw_cast(e->L, op1(e, "Asin", lw_cast(e->L, t, DT_F32)),
	    DT_F64);
	for (int k = 0; k < 2; k++)
		b = sub(e, b, dv(e, sub(e, op1(e, "Sin", b), t), cosine(e, b)));
	ValId a = muls(e, b, 2);
	return sel(e, lts(e, X, 0), sub(e, num(e, M_PI), a), a);
}

/* the trigonometric form of a Chebyshev polynomial for |X| < 1 */
static ValId
cheb_trig(Ex *e, const Poly *P, ValId X, ValId x, ValId n, ValId even)
{
	ValId th = arccos(e, X), half = muls(e, th, 0.5);
	ValId nh = mul(e, adds(e, n, 0.5), th), n1 = adds(e, n, 1);
	switch (P->fam) {
	case PF_CHEB_T:
		return cosine(e, mul(e, n, th));
	case PF_CHEB_U: {
		ValId s = op1(e, "Sin", th), a = mul(e, n1, th);
		ValId alt = dv(e, mul(e, n1, cosine(e, a)), X);
		return sel(e, eqs(e, s, 0), alt, dv(e, op1(e, "Sin", a), s));
	}
	case PF_CHEB_V:
		return sel(e, eqs(e, op1(e, "Sin", half), 1),
		    cheb_end(e, PF_CHEB_V, 0, n, even),
		    dv(e, cosine(e, nh), cosine(e, half)));
	default: {
		/* PyTorch's fallback near X = 1: the value at x = 1 for the
		 * plain polynomial, the one at x = -1 for the shifted one */
		ValId fb = cheb_end(e, PF_CHEB_W, 0, n, even);
		if (!P->shifted)
			fb = sel(e, gts(e, x, 0), cheb_end(e, PF_CHEB_W, 1, n,
			    even), fb);
		return sel(e, eqs(e, cosine(e, half), 1), fb,
		    dv(e, op1(e, "Sin", nh), op1(e, "Sin", half)));
	}
	}
}

static int
poly(Lower *L, const Poly *P)
{
	DType dt = lw_outdtype(L);
	if (dt != DT_F32 && dt != DT_F64)
		return lw_fail(L, "orthogonal polynomials are computed in "
		    "float32 or float64 only");
	Ex e = {L, dt};
	ValId x0 = lw_operand(L, 0, "x", dt), n0 = lw_operand(L, 1, "n", dt);
	ValId shape = lw_op1(L, "Shape", add(&e, x0, n0));
	lw_settype(L, shape, DT_I64);
	ValId x = lw_op2(L, "Expand", x0, shape);
	ValId n = trunc_n(&e, lw_op2(L, "Expand", n0, shape));
	ValId X = P->shifted ? adds(&e, muls(&e, x, 2), -1) : x;
	ValId even = eqs(&e, fmod2(&e, n), 0);
	ValId neg = lts(&e, n, 0), v, done = neg;
	ValId trig = 0, tcond = 0, end_p = 0, end_m = 0;
	if (P->fam <= PF_CHEB_W) {
		end_p = eqs(&e, x, 1);
		end_m = eqs(&e, x, P->shifted ? 0 : -1);
		tcond = and2(&e, gts(&e, n, P->trig_from),
		    lts(&e, op1(&e, "Abs", X), 1));
		trig = cheb_trig(&e, P, X, x, n, even);
		done = or2(&e, done, or2(&e, or2(&e, end_p, end_m), tcond));
	} else if (P->fam == PF_HERMITE) {
		done = or2(&e, done, gts(&e, n, dt == DT_F32 ? 128 : 512));
	} else if (P->fam == PF_LEGENDRE) {
		done = or2(&e, done, eqs(&e, op1(&e, "Abs", x), 1));
	} else {
		done = or2(&e, done, eqs(&e, x, 0));
	}
	ValId cnt = lw_cast(L, sels(&e, done, 0, adds(&e, n, -1)), DT_I64);
	ValId p0 = lw_op2(L, "Expand", num(&e, 1), shape);
	ValId q0 = adds(&e, muls(&e, X, P->q1), P->q0);
	GraphId body = poly_body(L, P, dt, X, cnt, p0);
	NodeId loop = lw_emit(L, "Loop", 4, (ValId[]){max_or_zero(&e, cnt),
	    lw_scalar_int(L, 1, DT_BOOL), p0, q0}, 2);
	lw_attr_graph(L, loop, "body", body);
	lw_attr_capture(L, loop, X);
	lw_attr_capture(L, loop, cnt);
	lw_settype(L, lw_res(L, loop, 0), dt);
	v = lw_res(L, loop, 1);
	lw_settype(L, v, dt);
	/* the special cases, the kernel's first check applied last */
	if (P->fam == PF_HERMITE)
		v = sels(&e, gts(&e, n, dt == DT_F32 ? 128 : 512), NAN, v);
	v = sels(&e, eqs(&e, n, 0), 1, v);
	if (P->fam <= PF_CHEB_W) {
		v = sel(&e, tcond, trig, v);
		v = sel(&e, end_m, cheb_end(&e, P->fam, 0, n, even), v);
		v = sel(&e, end_p, cheb_end(&e, P->fam, 1, n, even), v);
	} else if (P->fam == PF_LEGENDRE) {
		v = sel(&e, eqs(&e, op1(&e, "Abs", x), 1), sel(&e,
		    or2(&e, gts(&e, x, 0), even), num(&e, 1), num(&e, -1)), v);
	} else if (P->fam == PF_LAGUERRE) {
		v = sels(&e, eqs(&e, x, 0), 1, v);
	}
	lw_bind(L, 0, sels(&e, neg, 0, v));
	return lw_failed(L) ? -1 : 0;
}

#define POLY(name, ...) \
	static int name(Lower *L) \
	{ \
		static const Poly P = {__VA_ARGS__}; \
		return poly(L, &P); \
	}
/* fam, shifted, trig_from, q1, q0, xk1, xk0, a1, a0, c1, c0, div */
POLY(cheb_t, PF_CHEB_T, false, 6, 1, 0, 0, 2, 0, 0, 0, 1, false)
POLY(cheb_u, PF_CHEB_U, false, 8, 2, 0, 0, 2, 0, 0, 0, 1, false)
POLY(cheb_v, PF_CHEB_V, false, 8, 2, -1, 0, 2, 0, 0, 0, 1, false)
POLY(cheb_w, PF_CHEB_W, false, 8, 2, 1, 0, 2, 0, 0, 0, 1, false)
POLY(scheb_t, PF_CHEB_T, true, 6, 1, 0, 0, 2, 0, 0, 0, 1, false)
POLY(scheb_u, PF_CHEB_U, true, 6, 2, 0, 0, 2, 0, 0, 0, 1, false)
POLY(scheb_v, PF_CHEB_V, true, 6, 2, -1, 0, 2, 0, 0, 0, 1, false)
POLY(scheb_w, PF_CHEB_W, true, 4, 2, 1, 0, 2, 0, 0, 0, 1, false)
/* H: r = 2x q - 2k p; He: r = x q - k p */
POLY(hermite_h, PF_HERMITE, false, 0, 2, 0, 0, 2, 0, 0, 2, 0, false)
POLY(hermite_he, PF_HERMITE, false, 0, 1, 0, 0, 1, 0, 0, 1, 0, false)
/* L: r = ((2k + 1 - x) q - k p) / (k + 1) */
POLY(laguerre_l, PF_LAGUERRE, false, 0, -1, 1, 0, -1, 2, 1, 1, 0, true)
/* P: r = ((2k + 1) x q - k p) / (k + 1) */
POLY(legendre_p, PF_LEGENDRE, false, 0, 1, 0, 2, 1, 0, 0, 1, 0, true)

#define LW_FAMILY_special LW_THIS
const LowerRule lw_rules_special[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
