/* bessel.c - inside the decompose plugin: the Bessel functions J0, J1,
 * Y0, Y1 and the Airy function Ai as PyTorch's CPU kernels compute them
 * (ATen/native/Math.h, from the Cephes Math Library, Copyright (c) 2018
 * Steven Moshier, 3-clause BSD): rational approximations in x^2 up to 5
 * and the Hankel asymptotic form p cos(x - phase) - q sin(x - phase)
 * above; Ai by its Maclaurin series on (-2.09, 2.09) and by asymptotic
 * rational forms outside.  Each branch is computed for every element and
 * the right one picked per element. */
#include <math.h> /* NAN, INFINITY only: no libm */

#include "decompose.h"

#define PI 3.14159265358979323846
#define SQRT_2_PI 0.797884560802865355879892119868763737 /* sqrt(2 / pi) */
#define TWO_PI_INV 0.636619772367581343075535053490057448 /* 2 / pi */

static TV
fn(Rw *r, const char *op, TV a)
{
	return dec_u(r, op, a);
}

/* the Hankel asymptotic coefficients, for x > 5, in w = 25 / x^2 */
static const double PP0[] = {7.96936729297347051624e-04,
    8.28352392107440799803e-02, 1.23953371646414299388e+00,
    5.44725003058768775090e+00, 8.74716500199817011941e+00,
    5.30324038235394892183e+00, 9.99999999999999997821e-01};
static const double PQ0[] = {9.24408810558863637013e-04,
    8.56288474354474431428e-02, 1.25352743901058953537e+00,
    5.47097740330417105182e+00, 8.76190883237069594232e+00,
    5.30605288235394617618e+00, 1.00000000000000000218e+00};
static const double QP0[] = {-1.13663838898469149931e-02,
    -1.28252718670509318512e+00, -1.95539544257735972385e+01,
    -9.32060152123768231369e+01, -1.77681167980488050595e+02,
    -1.47077505154951170175e+02, -5.14105326766599330220e+01,
    -6.05014350600728481186e+00};
static const double QQ0[] = {6.43178256118178023184e+01,
    8.56430025976980587198e+02, 3.88240183605401609683e+03,
    7.24046774195652478189e+03, 5.93072701187316984827e+03,
    2.06209331660327847417e+03, 2.42005740240291393179e+02};
static const double PP1[] = {7.62125616208173112003e-04,
    7.31397056940917570436e-02, 1.12719608129684925192e+00,
    5.11207951146807644818e+00, 8.42404590141772420927e+00,
    5.21451598682361504063e+00, 1.00000000000000000254e+00};
static const double PQ1[] = {5.71323128072548699714e-04,
    6.88455908754495404082e-02, 1.10514232634061696926e+00,
    5.07386386128601488557e+00, 8.39985554327604159757e+00,
    5.20982848682361821619e+00, 9.99999999999999997461e-01};
static const double QP1[] = {5.10862594750176621635e-02,
    4.98213872951233449420e+00, 7.58238284132545283818e+01,
    3.66779609360150777800e+02, 7.10856304998926107277e+02,
    5.97489612400613639965e+02, 2.11688757100572135698e+02,
    2.52070205858023719784e+01};
static const double QQ1[] = {7.42373277035675149943e+01,
    1.05644886038262816351e+03, 4.98641058337653607651e+03,
    9.56231892404756170795e+03, 7.99704160447350683650e+03,
    2.82619278517639096600e+03, 3.36093607810698293419e+02};

/* up to 5, in z = x^2 */
static const double RP0[] = {-4.79443220978201773821e+09,
    1.95617491946556577543e+12, -2.49248344360967716204e+14,
    9.70862251047306323952e+15};
static const double RQ0[] = {4.99563147152651017219e+02,
    1.73785401676374683123e+05, 4.84409658339962045305e+07,
    1.11855537045356834862e+10, 2.11277520115489217587e+12,
    3.10518229857422583814e+14, 3.18121955943204943306e+16,
    1.71086294081043136091e+18};
static const double RP1[] = {-8.99971225705559398224e+08,
    4.52228297998194034323e+11, -7.27494245221818276015e+13,
    3.68295732863852883286e+15};
static const double RQ1[] = {6.20836478118054335476e+02,
    2.56987256757748830383e+05, 8.35146791431949253037e+07,
    2.21511595479792499675e+10, 4.74914122079991414898e+12,
    7.84369607876235854894e+14, 8.95222336184627338078e+16,
    5.32278620332680085395e+18};
static const double YP0[] = {1.55924367855235737965e+04,
    -1.46639295903971606143e+07, 5.43526477051876500413e+09,
    -9.82136065717911466409e+11, 8.75906394395366999549e+13,
    -3.46628303384729719441e+15, 4.42733268572569800351e+16,
    -1.84950800436986690637e+16};
static const double YQ0[] = {1.04128353664259848412e+03,
    6.26107330137134956842e+05, 2.68919633393814121987e+08,
    8.64002487103935000337e+10, 2.02979612750105546709e+13,
    3.17157752842975028269e+15, 2.50596256172653059228e+17};
static const double YP1[] = {1.26320474790178026440e+09,
    -6.47355876379160291031e+11, 1.14509511541823727583e+14,
    -8.12770255501325109621e+15, 2.02439475713594898196e+17,
    -7.78877196265950026825e+17};
static const double YQ1[] = {5.94301592346128195359e+02,
    2.35564092943068577943e+05, 7.34811944459721705660e+07,
    1.87601316108706159478e+10, 3.88231277496238566008e+12,
    6.20557727146953693363e+14, 6.87141087355300489866e+16,
    3.97270608116560655612e+18};

/* the Hankel form for a > 5 of order `one`: sqrt(2 / (pi a)) times
 * p cos(a - ph) - q 5/a sin(a - ph) (J), or p sin + q 5/a cos (Y) */
static TV
hankel(Rw *r, TV a, int one, int y)
{
	TV w = dec_muls(r, fn(r, "aten::reciprocal.default",
	    dec_mul(r, a, a)), 25);
	TV p = dec_div(r, dec_poly(r, w, one ? PP1 : PP0, 7),
	    dec_poly(r, w, one ? PQ1 : PQ0, 7));
	TV q = dec_div(r, dec_poly(r, w, one ? QP1 : QP0, 8),
	    dec_poly(r, w, one ? QQ1 : QQ0, 7));
	q = dec_mul(r, q, dec_muls(r, fn(r, "aten::reciprocal.default", a), 5));
	TV t = dec_adds(r, a, one ? -0.75 * PI : -0.25 * PI);
	TV c = fn(r, "aten::cos.default", t), s = fn(r, "aten::sin.default", t);
	TV v = y ? dec_add(r, dec_mul(r, p, s), dec_mul(r, q, c)) :
	    dec_sub(r, dec_mul(r, p, c), dec_mul(r, q, s));
	return dec_div(r, dec_muls(r, v, SQRT_2_PI), fn(r, "aten::sqrt.default",
	    a));
}

/* J0 or J1 (odd) of x */
static TV
bessel_j(Rw *r, TV x, int one)
{
	TV a = fn(r, "aten::abs.default", x), z = dec_mul(r, x, x);
	TV s = dec_ratio(r, z, one ? RP1 : RP0, 4, one ? RQ1 : RQ0, 8);
	if (one)
		s = dec_mul(r, dec_mul(r, s, x), dec_mul(r,
		    dec_adds(r, z, -1.46819706421238932572e+01),
		    dec_adds(r, z, -4.92184563216946036703e+01)));
	else
		s = dec_mul(r, dec_mul(r, dec_adds(r, z,
		    -5.78318596294678452118e+00), dec_adds(r, z,
		    -3.04712623436620863991e+01)), s);
	TV l = hankel(r, a, one, 0);
	if (one)
		l = dec_mul(r, l, fn(r, "aten::sign.default", x));
	return dec_sel(r, dec_cs(r, "aten::le.Scalar", a, 5), s, l);
}

/* Y0 or Y1 of x: -inf at 0, NaN below */
static TV
bessel_y(Rw *r, TV x, int one)
{
	TV z = dec_mul(r, x, x), lg = fn(r, "aten::log.default", x);
	TV s;
	if (one)
		s = dec_add(r, dec_mul(r, x, dec_ratio(r, z, YP1, 6, YQ1, 8)),
		    dec_muls(r, dec_sub(r, dec_mul(r, bessel_j(r, x, 1), lg),
		    fn(r, "aten::reciprocal.default", x)), TWO_PI_INV));
	else
		s = dec_add(r, dec_ratio(r, z, YP0, 8, YQ0, 7),
		    dec_muls(r, dec_mul(r, lg, bessel_j(r, x, 0)), TWO_PI_INV));
	TV v = dec_sel(r, dec_cs(r, "aten::le.Scalar", x, 5), s,
	    hankel(r, x, one, 1));
	v = dec_sel_s(r, dec_cs(r, "aten::lt.Scalar", x, 0), NAN, v);
	return dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", x, 0), -INFINITY, v);
}

static int
bessel(Rw *r, int one, int y)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	dec_bind(r, 0, (y ? bessel_y(r, x, one) : bessel_j(r, x, one)).v);
	return 1;
}

int
dec_bessel_j0(Rw *r)
{
	return bessel(r, 0, 0);
}

int
dec_bessel_j1(Rw *r)
{
	return bessel(r, 1, 0);
}

int
dec_bessel_y0(Rw *r)
{
	return bessel(r, 0, 1);
}

int
dec_bessel_y1(Rw *r)
{
	return bessel(r, 1, 1);
}

/* ------------------------------------------------------------- Airy Ai */

static const double AN[] = {3.46538101525629032477e-01,
    1.20075952739645805542e+01, 7.62796053615234516538e+01,
    1.68089224934630576269e+02, 1.59756391350164413639e+02,
    7.05360906840444183113e+01, 1.40264691163389668864e+01,
    9.99999999999999995305e-01};
static const double AD[] = {5.67594532638770212846e-01,
    1.47562562584847203173e+01, 8.45138970141474626562e+01,
    1.77318088145400459522e+02, 1.64234692871529701831e+02,
    7.14778400825575695274e+01, 1.40959135607834029598e+01,
    1.00000000000000000470e+00};
static const double AFN[] = {-1.31696323418331795333e-01,
    -6.26456544431912369773e-01, -6.93158036036933542233e-01,
    -2.79779981545119124951e-01, -4.91900132609500318020e-02,
    -4.06265923594885404393e-03, -1.59276496239262096340e-04,
    -2.77649108155232920844e-06, -1.67787698489114633780e-08};
static const double AFD[] = {1.33560420706553243746e+01,
    3.26825032795224613948e+01, 2.67367040941499554804e+01,
    9.18707402907259625840e+00, 1.47529146771666414581e+00,
    1.15687173795188044134e-01, 4.40291641615211203805e-03,
    7.54720348287414296618e-05, 4.51850092970580378464e-07};
static const double AGN[] = {1.97339932091685679179e-02,
    3.91103029615688277255e-01, 1.06579897599595591108e+00,
    9.39169229816650230044e-01, 3.51465656105547619242e-01,
    6.33888919628925490927e-02, 5.85804113048388458567e-03,
    2.82851600836737019778e-04, 6.98793669997260967291e-06,
    8.11789239554389293311e-08, 3.41551784765923618484e-10};
static const double AGD[] = {9.30892908077441974853e+00,
    1.98352928718312140417e+01, 1.55646628932864612953e+01,
    5.47686069422975497931e+00, 9.54293611618961883998e-01,
    8.64580826352392193095e-02, 4.12656523824222607191e-03,
    1.01259085116509135510e-04, 1.17166733214413521882e-06,
    4.91834570062930015649e-09};

/* Terms of the Maclaurin series on |x| < 2.09 (|x^3| < 9.2): the 16th
 * term of either series is below 1e-19 of its sum there, past double's
 * precision, where the kernel's loop stops at float's or double's. */
enum { AIRY_TERMS = 16 };

int
dec_airy_ai(Rw *r)
{
	TV x = dec_fin(r, 0, "self");
	if (!x.v)
		return 0;
	/* x < -2.09: oscillating, in z = 1 / zeta, zeta = 2/3 (-x)^1.5 */
	TV nx = dec_s(r, "aten::clamp_min.default", fn(r, "aten::neg.default",
	    x), 2.09);
	TV zeta = dec_muls(r, dec_mul(r, nx, fn(r, "aten::sqrt.default", nx)),
	    2.0 / 3);
	TV z = fn(r, "aten::reciprocal.default", zeta), z2 = dec_mul(r, z, z);
	TV f = dec_adds(r, dec_mul(r, z2, dec_div(r, dec_poly(r, z2, AFN, 9),
	    dec_poly(r, z2, AFD, 9))), 1);
	TV g = dec_mul(r, z, dec_div(r, dec_poly(r, z2, AGN, 11),
	    dec_poly(r, z2, AGD, 10)));
	TV t = dec_adds(r, zeta, 0.25 * PI);
	TV osc = dec_sub(r, dec_mul(r, fn(r, "aten::sin.default", t), f),
	    dec_mul(r, fn(r, "aten::cos.default", t), g));
	osc = dec_div(r, dec_muls(r, osc, 5.64189583547756286948e-01),
	    fn(r, "aten::sqrt.default", fn(r, "aten::sqrt.default", nx)));
	/* x >= 2.09: decaying, in 1 / zeta */
	TV px = dec_s(r, "aten::clamp_min.default", x, 2.09);
	TV zp = dec_muls(r, dec_mul(r, px, fn(r, "aten::sqrt.default", px)),
	    2.0 / 3);
	TV iz = fn(r, "aten::reciprocal.default", zp);
	TV dec = dec_ratio(r, iz, AN, 8, AD, 8);
	dec = dec_div(r, dec_muls(r, dec, 5.64189583547756286948e-01 / 2),
	    dec_mul(r, fn(r, "aten::sqrt.default", fn(r, "aten::sqrt.default",
	    px)), fn(r, "aten::exp.default", zp)));
	/* between: f = sum x^3k / ((2)(3)(5)(6)...), g likewise from x */
	TV s = dec_s(r, "aten::clamp.default", x, -2.09);
	s = dec_s(r, "aten::clamp_max.default", s, 2.09);
	TV c = dec_mul(r, dec_mul(r, s, s), s);
	TV m = dec_adds(r, dec_muls(r, s, 0), 1), n = s;
	TV fs = m, gs = n;
	double k = 1;
	for (int i = 0; i < AIRY_TERMS; i++) {
		m = dec_muls(r, dec_mul(r, m, c), 1 / ((k + 1) * (k + 2)));
		n = dec_muls(r, dec_mul(r, n, c), 1 / ((k + 2) * (k + 3)));
		fs = dec_add(r, fs, m);
		gs = dec_add(r, gs, n);
		k += 3;
	}
	TV ser = dec_sub(r, dec_muls(r, fs, 0.355028053887817239260),
	    dec_muls(r, gs, 0.258819403792806798405));
	TV v = dec_sel(r, dec_cs(r, "aten::lt.Scalar", x, -2.09), osc,
	    dec_sel(r, dec_cs(r, "aten::ge.Scalar", x, 2.09), dec, ser));
	v = dec_sel_s(r, dec_cs(r, "aten::gt.Scalar", x, 103.892), 0, v);
	v = dec_sel_s(r, fn(r, "aten::isinf.default", x), NAN, v);
	dec_bind(r, 0, v.v);
	return 1;
}
