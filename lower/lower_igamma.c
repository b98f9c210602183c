/* lower_igamma.c - lowering rules for the regularized incomplete gamma
 * functions P(a, x) (igamma, special_gammainc) and Q(a, x) = 1 - P(a, x)
 * (igammac, special_gammaincc).
 *
 * PyTorch's CPU kernel (ATen/native/Math.h, calc_igamma/calc_igammac,
 * after SciPy and Cephes) picks per element: the power series of P
 * (DLMF 8.11.4), the series of Q for small x (DLMF 8.7.3), the continued
 * fraction of Q (DLMF 8.9.2) for x > 1.1 beyond a, and Temme's uniform
 * asymptotic expansion (DLMF 8.12.3/4) for large a near x.  Here one ONNX
 * Loop runs the three iterations side by side on every element, each
 * element's own one frozen once it has converged as the kernel's test
 * says, until all have; the element then takes the kernel's branch, with
 * the series or the fraction standing in for Temme's expansion (they
 * converge there too, in some sqrt(a) steps rather than a fixed few).
 * The prefactor x^a e^-x / Gamma(a) is the kernel's, with Boost's Lanczos
 * sum (g = 6.0246...) where a and x are close.  Everything is computed in
 * float64, whatever the dtype, and the result cast back: float32 agrees
 * with PyTorch's float32 kernel to its own rounding, float64 to about
 * 1e-9 relative (the stand-in series and PyTorch's expansion differ in
 * their last digits for a of 1e5 and up) and to 1e-14 elsewhere.
 *
 * The edge cases are the kernel's, in its order: NaN for a < 0 or x < 0;
 * a == 0 gives P = 1, Q = 0 for x > 0 and NaN at x == 0; x == 0 gives
 * P = 0, Q = 1; an infinite a gives P = 0, Q = 1 (NaN with x infinite);
 * an infinite x P = 1, Q = 0; else a NaN operand gives NaN.  An element
 * whose iteration has not converged after IG_MAXITER steps (a of some 1e7
 * and more with x below a by less than about sqrt(a), where the series
 * needs some 10 sqrt(a) steps, and the continued fraction converges to
 * -P, not Q) takes the first term of Temme's expansion instead, within
 * some 1e-7 of the kernel there (temme_q). */
#include <math.h>
#include <stdio.h>

#include "lower.h"

enum { IG_MAXITER = 20000 };
#define IG_EPS 1.11022302462515654042E-16   /* the kernel's MACHEP */
#define IG_BIG 4.503599627370496e15         /* continued fraction rescaling */
#define IG_BIGINV 2.22044604925031308085e-16
#define IG_E 2.718281828459045
#define IG_G 6.024680040776729583740234375  /* the Lanczos g */

/* Boost's lanczos13m53 sum, scaled by exp(g): numerator and denominator,
 * highest power first (the denominator is z (z + 1) ... (z + 11)). */
static const double ig_lnum[13] = {
	0.006061842346248906525783753964555936883222,
	0.5098416655656676188125178644804694509993,
	19.51992788247617482847860966235652136208,
	449.9445569063168119446858607650988409623,
	6955.999602515376140356310115515198987526,
	75999.29304014542649875303443598909137092,
	601859.6171681098786670226533699352302507,
	3481712.15498064590882071018964774556468,
	14605578.08768506808414169982791359218571,
	43338889.32467613834773723740590533316085,
	86363131.28813859145546927288977868422342,
	103794043.1163445451906271053616070238554,
	56906521.91347156388090791033559122686859,
};
static const double ig_lden[13] = {
	1., 66., 1925., 32670., 357423., 2637558., 13339535., 45995730.,
	105258076., 150917976., 120543840., 39916800., 0.,
};

/* float64 expressions over the graph L builds */
static ValId
k(Lower *L, double v)
{
	return lw_scalar(L, v, DT_F64);
}

static ValId
o1(Lower *L, const char *op, ValId a)
{
	return lw_op1(L, op, a);
}

static ValId
o2(Lower *L, const char *op, ValId a, ValId b)
{
	return lw_op2(L, op, a, b);
}

static ValId
add(Lower *L, ValId a, ValId b)
{
	return o2(L, "Add", a, b);
}

static ValId
sub(Lower *L, ValId a, ValId b)
{
	return o2(L, "Sub", a, b);
}

static ValId
mul(Lower *L, ValId a, ValId b)
{
	return o2(L, "Mul", a, b);
}

static ValId
dv(Lower *L, ValId a, ValId b)
{
	return o2(L, "Div", a, b);
}

static ValId
adds(Lower *L, ValId a, double s)
{
	return add(L, a, k(L, s));
}

static ValId
muls(Lower *L, ValId a, double s)
{
	return mul(L, a, k(L, s));
}

static ValId
cmp(Lower *L, const char *op, ValId a, ValId b)
{
	return lw_op2t(L, op, a, b, DT_BOOL);
}

static ValId
cmps(Lower *L, const char *op, ValId a, double s)
{
	return cmp(L, op, a, k(L, s));
}

static ValId
and2(Lower *L, ValId a, ValId b)
{
	return cmp(L, "And", a, b);
}

static ValId
or2(Lower *L, ValId a, ValId b)
{
	return cmp(L, "Or", a, b);
}

static ValId
bool1(Lower *L, const char *op, ValId a)
{
	return lw_typed(L, lw_emit(L, op, 1, &a, 1), DT_BOOL);
}

static ValId
sel(Lower *L, ValId c, ValId a, ValId b)
{
	NodeId n = lw_emit(L, "Where", 3, (ValId[]){c, a, b}, 1);
	return lw_typed(L, n, lw_dtype(L, b));
}

static ValId
sels(Lower *L, ValId c, double s, ValId b)
{
	return sel(L, c, k(L, s), b);
}

/* c[0] y^(n-1) + ... + c[n-1], or with the coefficients reversed */
static ValId
horner(Lower *L, const double *c, int n, bool rev, ValId y)
{
	ValId s = k(L, c[rev ? n - 1 : 0]);
	for (int i = 1; i < n; i++)
		s = adds(L, mul(L, s, y), c[rev ? n - 1 - i : i]);
	return s;
}

/* the Lanczos sum at z > 0, as a rational function in z up to 1 and in
 * 1 / z beyond, so that neither polynomial overflows */
static ValId
lanczos(Lower *L, ValId z)
{
	ValId big = cmps(L, "Greater", z, 1);
	ValId y = sel(L, big, o1(L, "Reciprocal", z), z);
	ValId n = sel(L, big, horner(L, ig_lnum, 13, true, y),
	    horner(L, ig_lnum, 13, false, y));
	ValId d = sel(L, big, horner(L, ig_lden, 13, true, y),
	    horner(L, ig_lden, 13, false, y));
	return dv(L, n, d);
}

/* lgamma(a) for a > 0: Gamma(a) = L(a) ((a + g - 1/2) / e)^(a - 1/2) */
static ValId
lgam(Lower *L, ValId a)
{
	ValId t = adds(L, o1(L, "Log", adds(L, a, IG_G - 0.5)), -1);
	return add(L, o1(L, "Log", lanczos(L, a)), mul(L, adds(L, a, -0.5), t));
}

/* (-1)^k zeta(k) / k for k = 25 down to 2: lgamma(1 + a) = -gamma a + the
 * sum of these times a^k (computed with mpmath) */
static const double ig_lg1p[24] = {
	-0.040000001192140140586, 0.041666669150341210469,
	-0.043478266053040259361, 0.045454556293204669442,
	-0.047619070330142227991, 0.05000004769810169364,
	-0.052631679379616660734, 0.055555767627403611102,
	-0.058823978658684582339, 0.062500955141213040742,
	-0.066668705882420468033, 0.071432946295361336059,
	-0.076932516411352191473, 0.083353840546109004025,
	-0.090954017145829042233, 0.10009945751278180853,
	-0.11133426586956469049, 0.12550966952474304242,
	-0.14404989676884611812, 0.16955717699740818995,
	-0.20738555102867398527, 0.27058080842778454788,
	-0.40068563438653142847, 0.82246703342411321824,
};

/* lgamma(1 + a) for a > 0 as the kernel has it, lgamma of 1 + a rounded:
 * near 0, where it is about -0.58 a and the Lanczos form would leave an
 * absolute error of an ulp of 1, by its Taylor series (to 0.2^25 / 25) at
 * b = (1 + a) - 1 */
static ValId
lgam1p(Lower *L, ValId a)
{
	ValId b = adds(L, adds(L, a, 1), -1);
	ValId t = mul(L, horner(L, ig_lg1p, 24, false, b), b);
	t = mul(L, adds(L, t, -0.577215664901532860607), b);
	return sel(L, cmps(L, "Less", a, 0.2), t, lgam(L, adds(L, a, 1)));
}

/* log1p(u) without its cancellation: log(w) u / (w - 1), w = 1 + u */
static ValId
log1p_(Lower *L, ValId u)
{
	ValId w = adds(L, u, 1), w1 = adds(L, w, -1);
	ValId one = cmp(L, "Equal", w1, k(L, 0));
	ValId r = dv(L, mul(L, o1(L, "Log", w), u), sels(L, one, 1, w1));
	return sel(L, one, u, r);
}

/* expm1(u) as Kahan writes it: (e - 1) u / log(e), e = exp(u) */
static ValId
expm1_(Lower *L, ValId u)
{
	ValId e = o1(L, "Exp", u), e1 = adds(L, e, -1);
	ValId one = cmps(L, "Equal", e1, 0);
	ValId le = o1(L, "Log", e);
	ValId r = dv(L, mul(L, e1, u), sels(L, one, 1, le));
	r = sels(L, cmps(L, "Equal", e1, -1), -1, r);
	return sel(L, one, u, r);
}

/* x^a e^-x / Gamma(a), the kernel's way: directly where |a - x| > 0.4 a,
 * else through the Lanczos sum (in log form for a or x of 200 and up) */
static ValId
prefactor(Lower *L, ValId a, ValId x)
{
	ValId far = cmp(L, "Greater", o1(L, "Abs", sub(L, a, x)),
	    muls(L, a, 0.4));
	ValId f1 = o1(L, "Exp", sub(L, sub(L, mul(L, a, o1(L, "Log", x)), x),
	    lgam(L, a)));
	ValId fc = adds(L, a, IG_G - 0.5);
	ValId res = dv(L, o1(L, "Sqrt", muls(L, fc, 1 / IG_E)), lanczos(L, a));
	ValId small = and2(L, cmps(L, "Less", a, 200), cmps(L, "Less", x, 200));
	ValId r1 = mul(L, o1(L, "Exp", sub(L, a, x)),
	    o2(L, "Pow", dv(L, x, fc), a));
	ValId nf = dv(L, adds(L, sub(L, x, a), 0.5 - IG_G), fc);
	ValId r2 = o1(L, "Exp", add(L, mul(L, a, sub(L, log1p_(L, nf), nf)),
	    dv(L, muls(L, x, 0.5 - IG_G), fc)));
	return sel(L, far, f1, mul(L, res, sel(L, small, r1, r2)));
}

/* not all of done (any shape, possibly empty): a bool scalar */
static ValId
any_open(Lower *L, ValId done)
{
	ValId open = lw_cast(L, bool1(L, "Not", done), DT_I32);
	ValId flat = lw_op2(L, "Reshape", open, lw_i64v(L, -1));
	ValId z = lw_const(L, DT_I32, 1, (int64_t[]){1}, (int32_t[]){0});
	ValId both = lw_concat(L, (ValId[]){flat, z}, 2, 0, DT_I32);
	NodeId n = lw_emit(L, "ReduceMax", 1, &both, 1);
	lw_attr_int(L, n, "keepdims", 0);
	return lw_cast(L, lw_typed(L, n, DT_I32), DT_BOOL);
}

/* The loop's state, in its order: the series of P (term, sum, done), the
 * series of Q (factor, sum, done), the continued fraction of Q (p_k-2,
 * p_k-1, q_k-2, q_k-1, value, done). */
enum { S_C, S_ANS, S_DS, S_F, S_SUM, S_DC, S_P2, S_P1, S_Q2, S_Q1, S_CF,
	S_DF, S_N };

static bool
is_done(int s)
{
	return s == S_DS || s == S_DC || s == S_DF;
}

/* one step k = i + 1 of all three, each element's frozen once done */
static GraphId
ig_body(Lower *L, ValId A, ValId X, const ValId *st0)
{
	GraphId sg = lw_subgraph(L, "igamma_step");
	Graph *g = ir_graph(L->m, sg);
	Lower S = {.m = L->m, .dst = g, .dstid = sg, .opset = L->opset};
	ValId in[S_N + 2];
	for (int i = 0; i < S_N + 2; i++) {
		char name[16];
		snprintf(name, sizeof name, "s%d", i);
		in[i] = ir_value(g, ir_intern(L->m, name));
		if (i < 2) {
			ir_set_tensor(g, in[i], i ? DT_BOOL : DT_I64, 0, NULL);
		} else {
			ValId v = st0[i - 2];
			ir_set_tensor(g, in[i], is_done(i - 2) ? DT_BOOL : DT_F64,
			    ir_val(L->dst, v)->rank, ir_dims(L->dst, v));
		}
		ir_add_input(g, in[i]);
	}
	const ValId *s = in + 2;
	ValId a = lw_outer(L, sg, A, 0), x = lw_outer(L, sg, X, 1);
	ValId kk = lw_cast(&S, lw_op2(&S, "Add", in[0], lw_scalar_i64(&S, 1)),
	    DT_F64);
	ValId ak = add(&S, a, kk);
	ValId out[S_N];
	/* P: c *= x / (a + k), ans += c, until c <= eps ans */
	ValId c = mul(&S, s[S_C], dv(&S, x, ak)), ans = add(&S, s[S_ANS], c);
	ValId dS = or2(&S, cmp(&S, "LessOrEqual", c, muls(&S, ans, IG_EPS)),
	    bool1(&S, "IsNaN", ans));
	out[S_C] = sel(&S, s[S_DS], s[S_C], c);
	out[S_ANS] = sel(&S, s[S_DS], s[S_ANS], ans);
	out[S_DS] = or2(&S, s[S_DS], dS);
	/* Q for small x: f *= -x / k, sum += f / (a + k), until the term is
	 * within eps of the sum */
	ValId f = mul(&S, s[S_F], dv(&S, o1(&S, "Neg", x), kk));
	ValId term = dv(&S, f, ak), sum = add(&S, s[S_SUM], term);
	ValId dC = or2(&S, cmp(&S, "LessOrEqual", o1(&S, "Abs", term),
	    muls(&S, o1(&S, "Abs", sum), IG_EPS)), bool1(&S, "IsNaN", sum));
	out[S_F] = sel(&S, s[S_DC], s[S_F], f);
	out[S_SUM] = sel(&S, s[S_DC], s[S_SUM], sum);
	out[S_DC] = or2(&S, s[S_DC], dC);
	/* the continued fraction: y = 1 - a + k, z = x - a + 2k + 2 */
	ValId yc = mul(&S, sub(&S, adds(&S, kk, 1), a), kk);
	ValId z = add(&S, sub(&S, x, a), adds(&S, muls(&S, kk, 2), 2));
	ValId pk = sub(&S, mul(&S, s[S_P1], z), mul(&S, s[S_P2], yc));
	ValId qk = sub(&S, mul(&S, s[S_Q1], z), mul(&S, s[S_Q2], yc));
	ValId nz = bool1(&S, "Not", cmps(&S, "Equal", qk, 0));
	ValId r = dv(&S, pk, sels(&S, bool1(&S, "Not", nz), 1, qk));
	ValId t = sels(&S, bool1(&S, "Not", nz), 1,
	    o1(&S, "Abs", dv(&S, sub(&S, s[S_CF], r), r)));
	ValId cf = sel(&S, nz, r, s[S_CF]);
	ValId sc = sels(&S, cmps(&S, "Greater", o1(&S, "Abs", pk), IG_BIG),
	    IG_BIGINV, k(&S, 1));
	ValId dF = or2(&S, cmps(&S, "LessOrEqual", t, IG_EPS),
	    bool1(&S, "IsNaN", cf));
	out[S_P2] = sel(&S, s[S_DF], s[S_P2], mul(&S, s[S_P1], sc));
	out[S_P1] = sel(&S, s[S_DF], s[S_P1], mul(&S, pk, sc));
	out[S_Q2] = sel(&S, s[S_DF], s[S_Q2], mul(&S, s[S_Q1], sc));
	out[S_Q1] = sel(&S, s[S_DF], s[S_Q1], mul(&S, qk, sc));
	out[S_CF] = sel(&S, s[S_DF], s[S_CF], cf);
	out[S_DF] = or2(&S, s[S_DF], dF);
	ValId all = and2(&S, and2(&S, out[S_DS], out[S_DC]), out[S_DF]);
	lw_sub_output(L, sg, any_open(&S, all));
	for (int i = 0; i < S_N; i++)
		lw_sub_output(L, sg, out[i]);
	return sg;
}

/* Q(a, x) by the first term of Temme's uniform expansion (DLMF 8.12.3,
 * c0 to second order in eta: 1/2 erfc(eta sqrt(a/2)) + e^(-a eta^2/2) /
 * sqrt(2 pi a) c0(eta)), for the elements the iteration leaves open: a of
 * 1e7 and more with |x - a| below some sqrt(a), where the terms left out
 * are below 1e-10.  ONNX Runtime's Erf is float only: its rounding, some
 * 1e-7, bounds the error there. */
static ValId
temme_q(Lower *L, ValId A, ValId X)
{
	ValId mu = dv(L, sub(L, X, A), A);
	/* eta^2 / 2 = lambda - 1 - ln lambda = mu - log1p(mu): its series
	 * near 0, where the difference cancels */
	ValId t = adds(L, muls(L, mu, -0.2), 0.25);
	t = adds(L, mul(L, t, mu), -1.0 / 3);
	t = adds(L, mul(L, t, mu), 0.5);
	ValId h = sel(L, cmps(L, "Less", o1(L, "Abs", mu), 1e-2),
	    mul(L, mul(L, mu, mu), t), sub(L, mu, log1p_(L, mu)));
	ValId eta = mul(L, o1(L, "Sqrt", muls(L, h, 2)), o1(L, "Sign", mu));
	ValId z = mul(L, eta, o1(L, "Sqrt", muls(L, A, 0.5)));
	ValId erf = lw_cast(L, o1(L, "Erf", lw_cast(L, z, DT_F32)), DT_F64);
	ValId c0 = adds(L, mul(L, eta, adds(L, muls(L, eta,
	    -0.014814814814814815), 1.0 / 12)), -1.0 / 3);
	ValId r = dv(L, mul(L, o1(L, "Exp", o1(L, "Neg", mul(L, A, h))), c0),
	    o1(L, "Sqrt", muls(L, A, 2 * M_PI)));
	return add(L, adds(L, muls(L, erf, -0.5), 0.5), r);
}

/* P (upper false) or Q of a and x, float64 of one shape */
static ValId
igamma_of(Lower *L, ValId a, ValId x, bool upper)
{
	ValId bad = or2(L, or2(L, bool1(L, "IsNaN", a), bool1(L, "IsNaN", x)),
	    or2(L, bool1(L, "IsInf", a), bool1(L, "IsInf", x)));
	bad = or2(L, bad, or2(L, cmps(L, "LessOrEqual", a, 0),
	    cmps(L, "LessOrEqual", x, 0)));
	/* the special elements run the iteration on a = x = 1, done at once */
	ValId A = sels(L, bad, 1, a), X = sels(L, bad, 1, x);
	ValId ax = prefactor(L, A, X);
	ValId zero = cmps(L, "Equal", ax, 0);
	ValId ser, cf, cs;
	if (upper) {
		/* calc_igammac's branches */
		ValId x11 = cmps(L, "Greater", X, 1.1);
		cf = and2(L, x11, cmp(L, "GreaterOrEqual", X, A));
		ValId lo = cmps(L, "LessOrEqual", X, 0.5);
		ValId s1 = and2(L, x11, cmp(L, "Less", X, A));
		ValId s2 = and2(L, lo, cmp(L, "Less", dv(L, k(L, -0.4),
		    o1(L, "Log", X)), A));
		ValId s3 = and2(L, and2(L, bool1(L, "Not", lo),
		    bool1(L, "Not", x11)), cmp(L, "Less", muls(L, X, 1.1), A));
		ser = or2(L, or2(L, s1, s2), s3);
		cs = bool1(L, "Not", or2(L, cf, ser));
	} else {
		/* calc_igamma's: Q's continued fraction or series beyond
		 * x > max(1, a) */
		ValId big = and2(L, cmps(L, "Greater", X, 1),
		    cmp(L, "Greater", X, A));
		ser = bool1(L, "Not", big);
		cf = and2(L, big, cmps(L, "Greater", X, 1.1));
		cs = and2(L, big, bool1(L, "Not", cf));
	}
	ValId nb = bool1(L, "Not", bad);
	ValId st[S_N];
	ValId one = sels(L, bad, 1, k(L, 1)); /* ones of the full shape */
	st[S_C] = one;
	st[S_ANS] = one;
	st[S_DS] = bool1(L, "Not", and2(L, and2(L, ser, nb),
	    bool1(L, "Not", zero)));
	st[S_F] = one;
	st[S_SUM] = muls(L, one, 0);
	st[S_DC] = bool1(L, "Not", and2(L, cs, nb));
	st[S_P2] = one;
	st[S_P1] = adds(L, X, 1);
	st[S_Q2] = X;
	st[S_Q1] = mul(L, adds(L, sub(L, X, A), 2), X);
	st[S_CF] = dv(L, st[S_P1], st[S_Q1]);
	st[S_DF] = bool1(L, "Not", and2(L, and2(L, cf, nb),
	    bool1(L, "Not", zero)));
	GraphId body = ig_body(L, A, X, st);
	ValId all = and2(L, and2(L, st[S_DS], st[S_DC]), st[S_DF]);
	ValId lin[S_N + 2] = {lw_scalar_i64(L, IG_MAXITER), any_open(L, all)};
	for (int i = 0; i < S_N; i++)
		lin[i + 2] = st[i];
	NodeId loop = lw_emit(L, "Loop", S_N + 2, lin, S_N);
	lw_attr_graph(L, loop, "body", body);
	lw_attr_capture(L, loop, A);
	lw_attr_capture(L, loop, X);
	ValId r[S_N];
	for (int i = 0; i < S_N; i++) {
		r[i] = lw_res(L, loop, i);
		lw_settype(L, r[i], is_done(i) ? DT_BOOL : DT_F64);
	}
	ValId pser = dv(L, mul(L, r[S_ANS], ax), A);
	ValId lx = o1(L, "Log", X);
	ValId qcs = sub(L, o1(L, "Neg", expm1_(L, sub(L, mul(L, A, lx),
	    lgam1p(L, A)))), mul(L, o1(L, "Exp", sub(L, mul(L, A,
	    lx), lgam(L, A))), r[S_SUM]));
	ValId qcf = mul(L, r[S_CF], ax);
	ValId v;
	if (upper) {
		v = sel(L, cf, qcf, sel(L, ser, o2(L, "Sub", k(L, 1), pser), qcs));
		/* a vanishing prefactor: the kernel returns before iterating */
		v = sel(L, zero, sel(L, cf, k(L, 0), sel(L, ser, k(L, 1), v)), v);
	} else {
		ValId q = sel(L, cf, qcf, qcs);
		v = sel(L, ser, pser, o2(L, "Sub", k(L, 1), q));
		v = sel(L, zero, sel(L, ser, k(L, 0), sel(L, cf, k(L, 1), v)), v);
	}
	ValId open = bool1(L, "Not", and2(L, and2(L, r[S_DS], r[S_DC]),
	    r[S_DF]));
	ValId tq = temme_q(L, A, X);
	v = sel(L, open, upper ? tq : o2(L, "Sub", k(L, 1), tq), v);
	/* the special cases, the kernel's first test applied last: a NaN
	 * operand gives NaN only where no earlier test decides (P(inf, NaN)
	 * is 0, P(NaN, 0) is 0, P(NaN, inf) is 1) */
	double hi = upper ? 0 : 1, lo = upper ? 1 : 0;
	v = sels(L, or2(L, bool1(L, "IsNaN", a), bool1(L, "IsNaN", x)), NAN, v);
	ValId ia = bool1(L, "IsInf", a), ix = bool1(L, "IsInf", x);
	v = sels(L, ix, hi, v);
	v = sel(L, ia, sels(L, ix, NAN, k(L, lo)), v);
	v = sels(L, cmps(L, "Equal", x, 0), lo, v);
	v = sel(L, cmps(L, "Equal", a, 0), sels(L, cmps(L, "Greater", x, 0),
	    hi, k(L, NAN)), v);
	return sels(L, or2(L, cmps(L, "Less", a, 0), cmps(L, "Less", x, 0)),
	    NAN, v);
}

static int
igamma_rule(Lower *L, bool upper)
{
	DType dt = lw_outdtype(L);
	if (dt != DT_F32 && dt != DT_F64 && dt != DT_F16 && dt != DT_BF16)
		return lw_fail(L, "the incomplete gamma functions are computed "
		    "on floating-point tensors only");
	ValId a0 = lw_operand(L, 0, "self", DT_F64);
	ValId x0 = lw_operand(L, 1, "other", DT_F64);
	if (lw_failed(L))
		return -1;
	ValId shape = lw_op1(L, "Shape", add(L, a0, x0));
	lw_settype(L, shape, DT_I64);
	ValId a = lw_op2(L, "Expand", a0, shape);
	ValId x = lw_op2(L, "Expand", x0, shape);
	lw_bind(L, 0, lw_cast(L, igamma_of(L, a, x, upper), dt));
	return lw_failed(L) ? -1 : 0;
}

static int
igamma(Lower *L)
{
	return igamma_rule(L, false);
}

static int
igammac(Lower *L)
{
	return igamma_rule(L, true);
}

#define LW_FAMILY_igamma LW_THIS
const LowerRule lw_rules_igamma[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
