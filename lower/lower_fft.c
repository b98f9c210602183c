/* lower_fft.c - lowering rules for the FFT family: the core ops
 * _fft_r2c, _fft_c2r, _fft_c2c and the torch.fft.* functions of the
 * training IR, to ONNX DFT (one node per transformed axis) on the [.., 2]
 * pair form of complex values (lower_fft.h).  The composite functions
 * follow torch._refs.fft step by step: resize the input to s/n, transform,
 * scale for norm=.  ONNX's inverse DFT divides by the length, which the
 * final scale takes back where PyTorch's step is unnormalized.  A symbolic
 * size along a transformed dim is taken where no resize needs it (c2c and
 * r2c): the scale then reads it at run time. */
#include <math.h>
#include <string.h>

#include "lower_fft.h"

/* The part type of the node's output: f32 or f64; DT_UNDEF after
 * reporting. */
DType
lwf_out_part(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	if (dt != DT_F32 && dt != DT_F64) {
		lw_fail(L, "ONNX DFT computes in float32 and float64 only");
		return DT_UNDEF;
	}
	return dt;
}

/* The dims list arg i (or its default, the last nd of dflt) normalized
 * for rank r into d; its length, or -1 after reporting. */
static int
dims_arg(Lower *L, int i, const char *kw, int r, int64_t *d)
{
	int nd = lw_ints(L, i, kw, d, LW_MAXRANK);
	if (nd < 0)
		return lw_fail(L, "%s must be given", kw);
	for (int k = 0; k < nd; k++) {
		if (lw_normdim(L, &d[k], r) < 0)
			return -1;
		for (int j = 0; j < k; j++)
			if (d[j] == d[k])
				return lw_fail(L, "dims must be unique");
	}
	return nd;
}

/* Static sizes of FX value sv along dims d into sz; false after reporting */
static bool
sizes_of(Lower *L, const Value *sv, const int64_t *d, int nd, int64_t *sz)
{
	for (int k = 0; k < nd; k++)
		if (!lw_sdim(L, sv, (int)d[k], &sz[k])) {
			lw_fail(L, "needs a static size along dim %lld",
			    (long long)d[k]);
			return false;
		}
	return true;
}

/* Sizes along dims d, a symbolic one as DYN with dyn[k] set (FNet's
 * token mixing over a dynamic sequence); the number of those. */
enum { DYN = 1 << 20 };
static int
sizes_dyn(Lower *L, const Value *sv, const int64_t *d, int nd, int64_t *sz,
    bool *dyn)
{
	int n = 0;
	for (int k = 0; k < nd; k++) {
		dyn[k] = !lw_sdim(L, sv, (int)d[k], &sz[k]);
		if (dyn[k])
			sz[k] = DYN, n++;
	}
	return n;
}

/* x * f(n) where f is the scale a transform over sizes n needs and some of
 * them (dyn) are known at run time only: f is a power of their product
 * times a constant (norm and ONNX's inverse division are), so f1 and f2,
 * f with those sizes taken as 1 and as 2, give both; src is the input
 * whose shape holds them. */
static ValId
dyn_scale(Lower *L, ValId x, ValId src, const int64_t *d, int nd,
    const bool *dyn, int ndyn, double f1, double f2, DType dt)
{
	double p = round(2 * log2(f2 / f1) / ndyn) / 2;
	x = lwf_scale(L, x, f1);
	if (p == 0)
		return x;
	int64_t ax[LW_MAXRANK];
	int n = 0;
	for (int k = 0; k < nd; k++)
		if (dyn[k])
			ax[n++] = d[k];
	ValId shp = lw_op1(L, "Shape", src);
	lw_settype(L, shp, DT_I64);
	ValId g[2] = {shp, lw_const_i64s(L, ax, n)};
	ValId sz = lw_typed(L, lw_emit(L, "Gather", 2, g, 1), DT_I64);
	ValId cnt = lw_cast(L, lw_typed(L, lw_emit(L, "ReduceProd", 1, &sz, 1),
	    DT_I64), dt);
	ValId pw[2] = {cnt, lw_scalar(L, p, dt)};
	ValId f = lw_typed(L, lw_emit(L, "Pow", 2, pw, 1), dt);
	return lw_op2(L, "Mul", x, f);
}

/* sz with the DYN entries as v */
static void
sizes_as(const int64_t *sz, int nd, int64_t v, int64_t *out)
{
	for (int k = 0; k < nd; k++)
		out[k] = sz[k] == DYN ? v : sz[k];
}

static double
prod(const int64_t *sz, int n)
{
	double p = 1;
	for (int k = 0; k < n; k++)
		p *= (double)sz[k];
	return p;
}

/* _fft_*'s normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n */
static double
mode_factor(int64_t mode, double n)
{
	return mode == 1 ? 1 / sqrt(n) : mode == 2 ? 1 / n : 1;
}

/* DFT over dims of complex x; returns the product of the lengths an
 * inverse divided by in *div */
static ValId
c2c(Lower *L, ValId x, const int64_t *d, int nd, const int64_t *sz,
    bool inverse, DType dt, double *div)
{
	for (int k = 0; k < nd; k++) {
		x = lwf_dft(L, x, d[k], inverse, false, dt);
		if (inverse)
			*div *= (double)sz[k];
	}
	return x;
}

/* real x of rank r: onesided DFT along its last dim, then full forward
 * DFTs along the others (PyTorch's r2c) */
static ValId
r2c(Lower *L, ValId x, int r, const int64_t *d, int nd, bool onesided,
    DType dt)
{
	int64_t ax = r;
	x = lw_axes_op(L, "Unsqueeze", x, &ax, 1);
	x = lwf_dft(L, x, d[nd - 1], false, onesided, dt);
	for (int k = 0; k < nd - 1; k++)
		x = lwf_dft(L, x, d[k], false, false, dt);
	return x;
}

static int
check_mode(Lower *L, int64_t mode)
{
	if (mode < 0 || mode > 2)
		return lw_fail(L, "normalization %lld is not 0, 1 or 2",
		    (long long)mode);
	return 0;
}

/* _fft_r2c(self, dim, normalization, onesided) */
static int
fft_r2c(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t d[LW_MAXRANK], sz[LW_MAXRANK];
	int64_t mode = lw_int(L, 2, "normalization", 0);
	bool ones = lw_bool(L, 3, "onesided", true);
	DType dt = lwf_out_part(L);
	bool cx;
	ValId x = lwf_in(L, 0, "self", &cx);
	if (lw_failed(L) || !xv)
		return -1;
	int r = xv->rank, nd = dims_arg(L, 1, "dim", r, d);
	bool dyn[LW_MAXRANK];
	if (nd < 0 || check_mode(L, mode) < 0)
		return -1;
	int ndyn = sizes_dyn(L, xv, d, nd, sz, dyn);
	if (nd == 0 || cx)
		return lw_fail(L, "expects a real input and at least one dim");
	ValId y = r2c(L, lw_cast(L, x, dt), r, d, nd, ones, dt);
	int64_t s1[LW_MAXRANK], s2[LW_MAXRANK];
	sizes_as(sz, nd, 1, s1);
	sizes_as(sz, nd, 2, s2);
	lwf_bind(L, 0, !ndyn ? lwf_scale(L, y, mode_factor(mode, prod(sz, nd)))
	    : dyn_scale(L, y, x, d, nd, dyn, ndyn, mode_factor(mode, prod(s1,
	    nd)), mode_factor(mode, prod(s2, nd)), dt));
	return 0;
}

/* _fft_c2c(self, dim, normalization, forward) */
static int
fft_c2c(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t d[LW_MAXRANK], sz[LW_MAXRANK];
	int64_t mode = lw_int(L, 2, "normalization", 0);
	bool fwd = lw_bool(L, 3, "forward", true);
	DType dt = lwf_out_part(L);
	bool cx;
	ValId x = lwf_in(L, 0, "self", &cx);
	if (lw_failed(L) || !xv)
		return -1;
	int r = xv->rank, nd = dims_arg(L, 1, "dim", r, d);
	bool dyn[LW_MAXRANK];
	if (nd < 0 || check_mode(L, mode) < 0)
		return -1;
	int ndyn = sizes_dyn(L, xv, d, nd, sz, dyn);
	if (!cx)
		return lw_fail(L, "expects a complex input");
	double div = 1;
	ValId y = c2c(L, x, d, nd, sz, !fwd, dt, &div);
	if (!ndyn) {
		lwf_bind(L, 0, lwf_scale(L, y, mode_factor(mode, prod(sz, nd)) *
		    div));
		return 0;
	}
	/* the inverse's division (ONNX's, taken back) is by the sizes too */
	int64_t s1[LW_MAXRANK], s2[LW_MAXRANK];
	sizes_as(sz, nd, 1, s1);
	sizes_as(sz, nd, 2, s2);
	double i1 = fwd ? 1 : prod(s1, nd), i2 = fwd ? 1 : prod(s2, nd);
	lwf_bind(L, 0, dyn_scale(L, y, x, d, nd, dyn, ndyn,
	    mode_factor(mode, prod(s1, nd)) * i1, mode_factor(mode, prod(s2,
	    nd)) * i2, dt));
	return 0;
}

/* The real signal of length n (a [1] value known at run time) whose
 * one-sided spectrum along d is complex x (pair form, rank r + 1): x cut
 * to n/2 + 1 coefficients there or padded with zeros up to it, the
 * Hermitian half mirrored (X[n-k] = conj(X[k]) for k = last..1, Slices of
 * run-time bounds) and inverted; ONNX's inverse DFT divides by n */
static ValId
c2r_run(Lower *L, ValId x, int r, int64_t d, ValId n, DType dt)
{
	ValId in = lw_shape_range(L, x, (int)d, (int)d + 1);
	ValId half = lw_op2(L, "Add", lw_op2(L, "Div", n, lw_i64v(L, 2)),
	    lw_i64v(L, 1));
	x = lw_slice(L, x, lw_i64v(L, 0), half, &d, 1, 0);
	int64_t *pz = lw_scratch(L, (size_t)(2 * (r + 1)), sizeof *pz);
	memset(pz, 0, sizeof *pz * (size_t)(2 * (r + 1)));
	ValId grow = lw_op2(L, "Max", lw_op2(L, "Sub", half, in), lw_i64v(L,
	    0));
	ValId pads[3] = {lw_const_i64s(L, pz, (int)(r + 1 + d)), grow,
		lw_const_i64s(L, pz, (int)(r - d))};
	ValId pin[2] = {x, lw_concat(L, pads, 3, 0, DT_I64)};
	x = lw_typed(L, lw_emit(L, "Pad", 2, pin, 1), lw_dtype(L, x));
	ValId last = lw_op2(L, "Sub", lw_op2(L, "Div", lw_op2(L, "Add", n,
	    lw_i64v(L, 1)), lw_i64v(L, 2)), lw_i64v(L, 1));
	ValId parts[2] = {x, lwf_conj(L, lw_slice(L, x, last, lw_i64v(L, 0),
	    &d, 1, lw_i64v(L, -1)))};
	x = lw_concat(L, parts, 2, d, dt);
	return lwf_part(L, lwf_dft(L, x, d, true, false, dt), r, 0);
}

/* _fft_c2r(self, dim, normalization, last_dim_size) */
static int
fft_c2r(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t d[LW_MAXRANK], sz[LW_MAXRANK];
	int64_t mode = lw_int(L, 2, "normalization", 0);
	DType dt = lwf_out_part(L);
	bool cx;
	ValId x = lwf_in(L, 0, "self", &cx);
	if (lw_failed(L) || !xv)
		return -1;
	int r = xv->rank, nd = dims_arg(L, 1, "dim", r, d);
	const Arg *na = lw_arg(L, 3, "last_dim_size");
	int64_t v;
	if (check_mode(L, mode) < 0)
		return -1;
	if (nd == 1 && cx && na && !lw_static_int(L, na, &v)) {
		/* a last_dim_size known at run time only (core ATen's
		 * irfft(X, n=x.shape[-1])): times n, the mode's factor a
		 * power of it */
		ValId n = lw_int1(L, 3, "last_dim_size", 0);
		if (!n)
			return -1;
		ValId y = c2r_run(L, x, r, d[0], n, dt);
		bool dy = true;
		lwf_bind(L, 0, dyn_scale(L, y, y, d, 1, &dy, 1, mode_factor(mode,
		    1), 2 * mode_factor(mode, 2), dt));
		return 0;
	}
	if (nd < 0 || !sizes_of(L, xv, d, nd, sz))
		return -1;
	if (!cx || nd == 0)
		return lw_fail(L, "expects a complex input and at least one "
		    "dim");
	int64_t n = lw_int(L, 3, "last_dim_size", 0);
	if (lw_failed(L))
		return -1;
	if (n < 1 || sz[nd - 1] < n / 2 + 1)
		return lw_fail(L, "last_dim_size %lld needs %lld coefficients, "
		    "the input has %lld", (long long)n, (long long)(n / 2 + 1),
		    (long long)sz[nd - 1]);
	double div = n;
	x = c2c(L, x, d, nd - 1, sz, true, dt, &div);
	x = lwf_c2r(L, x, r, d[nd - 1], n, dt);
	lwf_bind(L, 0, lwf_scale(L, x, mode_factor(mode, prod(sz, nd - 1) *
	    (double)n) * div));
	return 0;
}

/* ------------------------------------------------- torch.fft functions */

enum { K_FFT, K_IFFT, K_RFFT, K_IRFFT, K_HFFT, K_IHFFT };

/* norm=: 0 "backward" (None), 1 "ortho", 2 "forward"; -1 after
 * reporting */
static int
norm_arg(Lower *L, int i)
{
	const Arg *a = lw_arg(L, i, "norm");
	if (!a || a->kind == A_NONE)
		return 0;
	const char *s = a->kind == A_STR ? ir_str(L->m, a->u.s) : "";
	if (!strcmp(s, "backward"))
		return 0;
	if (!strcmp(s, "ortho"))
		return 1;
	if (!strcmp(s, "forward"))
		return 2;
	return lw_fail(L, "invalid normalization mode: \"%s\"", s);
}

/* torch._refs.fft._apply_norm's factor */
static double
norm_factor(int norm, double n, bool forward)
{
	if (norm == 1)
		return 1 / sqrt(n);
	if ((!forward && norm == 0) || (forward && norm == 2))
		return 1 / n;
	return 1;
}

/* The dims and signal sizes of a torch.fft function (nd: 1 for the n=
 * form, 2 for the *2 forms, 0 for the *n forms), as
 * _canonicalize_fft_shape_and_dim_args; *has_s: sizes were given.
 * Returns the number of dims, or -1 after reporting. */
static int
signal(Lower *L, int form, int r, int64_t *d, int64_t *s, bool *has_s)
{
	int ns, nd;
	if (form == 1) {
		*has_s = lw_has(L, 1, "n");
		s[0] = *has_s ? lw_int(L, 1, "n", -1) : -1;
		d[0] = lw_int(L, 2, "dim", -1);
		ns = *has_s ? 1 : -1;
		nd = 1;
	} else {
		ns = lw_ints(L, 1, "s", s, LW_MAXRANK);
		nd = lw_ints(L, 2, "dim", d, LW_MAXRANK);
		*has_s = ns >= 0;
		if (nd < 0 && form == 2) {
			d[0] = -2, d[1] = -1, nd = 2;
		} else if (nd < 0) {
			nd = ns >= 0 ? ns : r;
			for (int k = 0; k < nd; k++)
				d[k] = r - nd + k;
		}
	}
	if (lw_failed(L))
		return -1;
	if (ns >= 0 && ns != nd)
		return lw_fail(L, "when given, dim and shape arguments must "
		    "have the same length");
	if (nd > r || nd == 0)
		return lw_fail(L, "got %d dims for a tensor of rank %d", nd, r);
	for (int k = 0; k < nd; k++) {
		if (lw_normdim(L, &d[k], r) < 0)
			return -1;
		for (int j = 0; j < k; j++)
			if (d[j] == d[k])
				return lw_fail(L, "all dims must be unique");
	}
	return nd;
}

/* irfft/hfft(x, n, dim, norm) along one dim whose length, or n, is known
 * at run time only (a spectral filter over a dynamic signal length,
 * irfft(X, n=x.shape[-1])): c2r_run, times n and the norm's factor, a
 * power of n (dyn_scale) */
static int
c2r_dyn(Lower *L, int kind, ValId x, int r, bool cx, DType dt)
{
	int64_t d = lw_int(L, 2, "dim", -1);
	int norm = norm_arg(L, 3);
	if (lw_failed(L) || norm < 0 || lw_normdim(L, &d, r) < 0)
		return -1;
	if (!cx)
		x = lwf_to_cx(L, lw_cast(L, x, dt), r, dt);
	if (kind == K_HFFT)
		x = lwf_conj(L, x);
	ValId n = lw_has(L, 1, "n") ? lw_int1(L, 1, "n", 0) : lw_op2(L, "Mul",
	    lw_op2(L, "Sub", lw_shape_range(L, x, (int)d, (int)d + 1),
	    lw_i64v(L, 1)), lw_i64v(L, 2));
	if (!n)
		return -1;
	ValId y = c2r_run(L, x, r, d, n, dt);
	bool fwd = kind == K_HFFT, dy = true;
	lwf_bind(L, 0, dyn_scale(L, y, y, &d, 1, &dy, 1, norm_factor(norm, 1,
	    fwd), 2 * norm_factor(norm, 2, fwd), dt));
	return 0;
}

static int
fftfn(Lower *L, int kind, int form)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t d[LW_MAXRANK], s[LW_MAXRANK], in[LW_MAXRANK];
	bool has_s, cx;
	int norm = norm_arg(L, 3);
	DType dt = lwf_out_part(L);
	ValId x = lwf_in(L, 0, "self", &cx);
	if (lw_failed(L) || !xv)
		return -1;
	if (form == 1 && (kind == K_IRFFT || kind == K_HFFT)) {
		const Arg *na = lw_arg(L, 1, "n");
		int64_t dim = lw_int(L, 2, "dim", -1), v;
		if (lw_normdim(L, &dim, xv->rank) < 0)
			return -1;
		if ((na && na->kind != A_NONE && !lw_static_int(L, na, &v)) ||
		    !lw_sdim(L, xv, (int)dim, &v))
			return c2r_dyn(L, kind, x, xv->rank, cx, dt);
	}
	int r = xv->rank, nd = signal(L, form, r, d, s, &has_s);
	bool dyn[LW_MAXRANK], c2r = kind == K_IRFFT || kind == K_HFFT;
	if (nd < 0)
		return -1;
	int ndyn = sizes_dyn(L, xv, d, nd, in, dyn);
	/* symbolic sizes: no resizing along them, no complex-to-real */
	for (int k = 0; k < nd && ndyn; k++)
		if (dyn[k] && (c2r || (has_s && s[k] != -1)))
			return lw_fail(L, "needs a static size along dim %lld",
			    (long long)d[k]);
	if (ndyn && norm < 0)
		return -1;
	for (int k = 0; k < nd; k++)
		if (!has_s || s[k] == -1)
			s[k] = in[k];
	int64_t lds = 0; /* c2r: the output's length along the last dim */
	if (c2r) {
		lds = has_s && s[nd - 1] != -1 ? s[nd - 1]
		    : 2 * (in[nd - 1] - 1);
		if (lds < 1)
			return lw_fail(L, "invalid number of data points (%lld) "
			    "specified", (long long)lds);
		s[nd - 1] = lds / 2 + 1;
	}
	for (int k = 0; k < nd; k++)
		if (s[k] < 1)
			return lw_fail(L, "invalid number of data points (%lld) "
			    "specified", (long long)s[k]);
	if (cx && (kind == K_RFFT || kind == K_IHFFT))
		return lw_fail(L, "expects a real input tensor");
	if (!cx)
		x = lw_cast(L, x, dt);
	for (int k = 0; k < nd; k++)
		x = lwf_resize(L, x, r + cx, d[k], in[k], s[k]);
	double div = 1, n = prod(s, nd);
	bool fwd = kind == K_FFT || kind == K_RFFT || kind == K_HFFT;
	ValId src = x;
	if (kind == K_FFT || kind == K_IFFT) {
		if (!cx)
			x = lwf_to_cx(L, x, r, dt);
		x = c2c(L, x, d, nd, s, !fwd, dt, &div);
	} else if (kind == K_RFFT || kind == K_IHFFT) {
		x = r2c(L, x, r, d + nd - 1, 1, true, dt);
		if (kind == K_IHFFT)
			x = lwf_conj(L, x);
		x = c2c(L, x, d, nd - 1, s, !fwd, dt, &div);
	} else {
		if (!cx)
			x = lwf_to_cx(L, x, r, dt);
		x = c2c(L, x, d, nd - 1, s, !fwd, dt, &div);
		if (kind == K_HFFT)
			x = lwf_conj(L, x);
		x = lwf_c2r(L, x, r, d[nd - 1], lds, dt);
		div *= (double)lds;
		n = prod(s, nd - 1) * (double)lds;
	}
	if (!ndyn) {
		lwf_bind(L, 0, lwf_scale(L, x, norm_factor(norm, n, fwd) * div));
		return 0;
	}
	/* c2c and r2c only here: an inverse divides by the c2c sizes */
	int64_t s1[LW_MAXRANK], s2[LW_MAXRANK];
	int nc = kind == K_FFT || kind == K_IFFT ? nd : nd - 1;
	sizes_as(s, nd, 1, s1);
	sizes_as(s, nd, 2, s2);
	double f1 = norm_factor(norm, prod(s1, nd), fwd) * (fwd ? 1 :
	    prod(s1, nc)), f2 = norm_factor(norm, prod(s2, nd), fwd) * (fwd ?
	    1 : prod(s2, nc));
	lwf_bind(L, 0, dyn_scale(L, x, src, d, nd, dyn, ndyn, f1, f2, dt));
	return 0;
}

static int fft_fft(Lower *L) { return fftfn(L, K_FFT, 1); }
static int fft_ifft(Lower *L) { return fftfn(L, K_IFFT, 1); }
static int fft_rfft(Lower *L) { return fftfn(L, K_RFFT, 1); }
static int fft_irfft(Lower *L) { return fftfn(L, K_IRFFT, 1); }
static int fft_hfft(Lower *L) { return fftfn(L, K_HFFT, 1); }
static int fft_ihfft(Lower *L) { return fftfn(L, K_IHFFT, 1); }
static int fft_fft2(Lower *L) { return fftfn(L, K_FFT, 2); }
static int fft_ifft2(Lower *L) { return fftfn(L, K_IFFT, 2); }
static int fft_rfft2(Lower *L) { return fftfn(L, K_RFFT, 2); }
static int fft_irfft2(Lower *L) { return fftfn(L, K_IRFFT, 2); }
static int fft_hfft2(Lower *L) { return fftfn(L, K_HFFT, 2); }
static int fft_ihfft2(Lower *L) { return fftfn(L, K_IHFFT, 2); }
static int fft_fftn(Lower *L) { return fftfn(L, K_FFT, 0); }
static int fft_ifftn(Lower *L) { return fftfn(L, K_IFFT, 0); }
static int fft_rfftn(Lower *L) { return fftfn(L, K_RFFT, 0); }
static int fft_irfftn(Lower *L) { return fftfn(L, K_IRFFT, 0); }
static int fft_hfftn(Lower *L) { return fftfn(L, K_HFFT, 0); }
static int fft_ihfftn(Lower *L) { return fftfn(L, K_IHFFT, 0); }

/* The rows of ir/ops.def this file and lower_fft_stft.c lower. */
#define LW_FAMILY_fft LW_THIS
const LowerRule lw_rules_fft[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
