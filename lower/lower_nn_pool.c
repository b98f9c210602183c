/* lower_nn_pool.c - lowering rules for pooling (max, with indices, and
 * average; adaptive pooling's rows, whose work is in lower_nn_adaptive.c)
 * and resampling (upsample, interpolate); grid sampling is in
 * lower_nn_grid.c. */
#include <math.h>
#include <string.h>

#include "lower_nn.h"

/* ---------------------------------------------------------------- pooling */

typedef struct Pool {
	int nd;
	int64_t k[MAXSP], s[MAXSP], p[MAXSP], d[MAXSP];
	bool ceil;
	int64_t pads[2 * MAXSP]; /* ONNX pads, begins then ends */
	bool extended;           /* some end pad grown for ceil mode */
	bool ceil_attr;          /* fall back to ONNX's own ceil_mode */
} Pool;

/* Read kernel_size (1), stride (2, default kernel), padding (3) and, for
 * max pooling, dilation (4). */
static int
pool_read(Lower *L, Pool *P, int nd, bool has_dil, int iceil)
{
	P->nd = nd;
	for (int k = 0; k < nd; k++) {
		P->k[k] = 0;
		P->p[k] = 0;
		P->d[k] = 1;
	}
	int r = lwn_spatial(L, 1, "kernel_size", nd, P->k);
	if (r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "kernel_size is missing");
	for (int k = 0; k < nd; k++)
		P->s[k] = P->k[k];
	if (lwn_spatial(L, 2, "stride", nd, P->s) < 0 ||
	    lwn_spatial(L, 3, "padding", nd, P->p) < 0 ||
	    (has_dil && lwn_spatial(L, 4, "dilation", nd, P->d) < 0))
		return -1;
	P->ceil = lw_bool(L, iceil, "ceil_mode", false);
	return 0;
}

/* PyTorch's ceil mode drops a last window that would start in the right
 * padding; ONNX's ceil_mode did not until late opsets.  So with static
 * sizes the end padding is grown until floor mode yields PyTorch's output
 * size, which means the same as the runtimes agree on. */
static void
pool_pads(Lower *L, const Value *xv, Pool *P)
{
	int nd = P->nd;
	P->extended = P->ceil_attr = false;
	for (int k = 0; k < nd; k++)
		P->pads[k] = P->pads[k + nd] = P->p[k];
	if (!P->ceil)
		return;
	int64_t end[MAXSP];
	for (int k = 0; k < nd; k++) {
		int64_t in;
		if (!lw_dim_static(xv, L->src, xv->rank - nd + k, &in)) {
			P->ceil_attr = true;
			return;
		}
		int64_t ek = P->d[k] * (P->k[k] - 1) + 1;
		int64_t num = in + 2 * P->p[k] - ek;
		if (num < 0) { /* PyTorch rejects it; leave it to the runtime */
			P->ceil_attr = true;
			return;
		}
		int64_t out = (num + P->s[k] - 1) / P->s[k] + 1;
		if ((out - 1) * P->s[k] >= in + P->p[k])
			out--;
		end[k] = (out - 1) * P->s[k] + ek - in - P->p[k];
		if (end[k] < P->p[k])
			end[k] = P->p[k];
		/* ORT refuses pads that are not smaller than the kernel */
		if (end[k] >= P->k[k]) {
			P->ceil_attr = true;
			return;
		}
	}
	for (int k = 0; k < nd; k++) {
		if (end[k] != P->p[k])
			P->extended = true;
		P->pads[k + nd] = end[k];
	}
}

static void
pool_attrs(Lower *L, NodeId n, const Pool *P)
{
	lw_attr_ints(L, n, "kernel_shape", P->k, P->nd);
	lw_attr_ints(L, n, "strides", P->s, P->nd);
	lw_attr_ints(L, n, "pads", P->pads, 2 * P->nd);
	if (P->ceil_attr)
		lw_attr_int(L, n, "ceil_mode", 1);
}

/* Pooling input of rank nd+1 (unbatched) or nd+2; *x gets a batch dim.
 * ints (max pooling, which picks one of its inputs): integers up to 32
 * bits are taken too, as float64, and float64 stays float64 (exact) */
int
lwn_pool_input(Lower *L, int nd, const Value **xv, ValId *x, bool *unbatched,
    bool ints)
{
	*xv = lw_srcval(L, 0, "self");
	if (!*xv)
		return lw_fail(L, "input must be a tensor");
	*unbatched = (*xv)->rank == nd + 1;
	if (!*unbatched && (*xv)->rank != nd + 2)
		return lw_fail(L, "input of rank %d for %dd pooling",
		    (*xv)->rank, nd);
	/* a model ONNX Runtime refuses to load otherwise */
	DType dt = (DType)(*xv)->dtype;
	bool exact = ints && ir_dtype_is_int(dt) && ir_dtype_size(dt) <= 4;
	if (!ir_dtype_is_float(dt) && !exact)
		return lw_fail(L, "pooling of %s tensors: ONNX Runtime's pooling "
		    "takes floating types only (cast the input to float)%s",
		    ir_dtype_name(dt), ints ? "; max pooling takes integers "
		    "up to 32 bits, exact in float64" : "");
	*x = exact || (ints && dt == DT_F64) ? lw_cast(L, lw_in(L, 0, "self"),
	    DT_F64) : lwn_f32(L, lw_in(L, 0, "self"));
	if (!*x)
		return -1;
	if (*unbatched)
		*x = lwn_unsqueeze(L, *x, 0);
	return 0;
}

/* Pooling of an int64 tensor, exact (lower_nn_intwin.c). */
static ValId
pool_int(Lower *L, const Pool *P, bool *unb, ValId *idx, bool cip,
    int64_t divisor)
{
	IntWin W = {.nd = P->nd};
	memcpy(W.k, P->k, sizeof W.k);
	memcpy(W.s, P->s, sizeof W.s);
	memcpy(W.d, P->d, sizeof W.d);
	memcpy(W.pads, P->pads, sizeof W.pads);
	if (P->ceil_attr)
		return lw_fail(L, "pooling of int64 tensors in ceil mode needs "
		    "static sizes"), 0;
	return lwn_pool_int(L, &W, unb, idx, P->p, cip, divisor);
}

/* max_pool{1,2,3}d[_with_indices](self, kernel_size, stride=[],
 * padding=0, dilation=1, ceil_mode=False) */
static int
max_pool(Lower *L, int nd)
{
	Pool P;
	const Value *xv;
	ValId x;
	bool unb;
	if (pool_read(L, &P, nd, true, 5) < 0)
		return -1;
	xv = lw_srcval(L, 0, "self");
	if (xv && xv->dtype == DT_I64) {
		ValId i = 0;
		pool_pads(L, xv, &P);
		ValId y = pool_int(L, &P, &unb, &i, false, 0);
		if (!y)
			return -1;
		lwn_bind_out(L, 0, unb ? lwn_squeeze(L, y, 0) : y);
		if (i)
			lwn_bind_out(L, 1, unb ? lwn_squeeze(L, i, 0) : i);
		return 0;
	}
	if (lwn_pool_input(L, nd, &xv, &x, &unb, true) < 0)
		return -1;
	pool_pads(L, xv, &P);
	bool idx = lwn_used(L, 1);
	NodeId n = lw_emit(L, "MaxPool", 1, &x, idx ? 2 : 1);
	pool_attrs(L, n, &P);
	lw_attr_ints(L, n, "dilations", P.d, nd);
	ValId y = lwn_settyped(L, n, 0, lw_dtype(L, x));
	if (unb)
		y = lwn_squeeze(L, y, 0);
	lwn_bind_out(L, 0, y);
	if (!idx)
		return 0;
	/* ONNX flattens indices over the whole tensor, PyTorch over each
	 * (n, c) plane: the remainder by the plane size converts */
	ValId i = lwn_settyped(L, n, 1, DT_I64);
	ValId plane = lwn_reduce(L, "ReduceProd",
	    lwn_shape_of(L, x, 2, INT64_MAX),
	    NULL, 0, false);
	i = lw_op2(L, "Mod", i, plane);
	if (unb)
		i = lwn_squeeze(L, i, 0);
	lwn_bind_out(L, 1, i);
	return 0;
}

static int max_pool1d(Lower *L) { return max_pool(L, 1); }
static int max_pool2d(Lower *L) { return max_pool(L, 2); }
static int max_pool3d(Lower *L) { return max_pool(L, 3); }

/* avg_pool with divisor_override: each window's sum over the zero-padded
 * input, divided by the given number.  With every pad made explicit all
 * windows are whole, so the sum is the plain mean times the kernel size. */
static int
avg_divisor(Lower *L, Pool *P, ValId x, bool unb, int64_t div)
{
	int nd = P->nd, r = nd + 2;
	int64_t pads[2 * (MAXSP + 2)] = {0}, ksize = 1;
	if (div == 0)
		return lw_fail(L, "divisor must be not zero");
	if (P->ceil_attr)
		return lw_fail(L, "divisor_override in ceil mode needs static "
		    "input sizes");
	for (int k = 0; k < nd; k++) {
		pads[2 + k] = P->pads[k];
		pads[r + 2 + k] = P->pads[nd + k];
		P->pads[k] = P->pads[nd + k] = 0;
		ksize *= P->k[k];
	}
	x = lw_op2(L, "Pad", x, lw_const_i64s(L, pads, 2 * r));
	NodeId n = lw_emit(L, "AveragePool", 1, &x, 1);
	pool_attrs(L, n, P);
	ValId y = lw_op2(L, "Mul", lwn_settyped(L, n, 0, DT_F32),
	    lw_scalar(L, (double)ksize / (double)div, DT_F32));
	if (unb)
		y = lwn_squeeze(L, y, 0);
	lwn_bind_out(L, 0, y);
	return 0;
}

/* avg_pool{1,2,3}d(self, kernel_size, stride=[], padding=0,
 * ceil_mode=False, count_include_pad=True, divisor_override=None) */
static int
avg_pool(Lower *L, int nd)
{
	Pool P;
	const Value *xv;
	ValId x;
	bool unb;
	if (pool_read(L, &P, nd, false, 4) < 0)
		return -1;
	bool cip = lw_bool(L, 5, "count_include_pad", true);
	xv = lw_srcval(L, 0, "self");
	if (xv && xv->dtype == DT_I64) {
		bool has = lw_has(L, 6, "divisor_override");
		int64_t div = has ? lw_int(L, 6, "divisor_override", 1) : 0;
		if (has && div == 0)
			return lw_fail(L, "divisor must be not zero");
		pool_pads(L, xv, &P);
		ValId y = pool_int(L, &P, &unb, NULL, cip, div);
		if (!y)
			return -1;
		lwn_bind_out(L, 0, unb ? lwn_squeeze(L, y, 0) : y);
		return 0;
	}
	if (lwn_pool_input(L, nd, &xv, &x, &unb, false) < 0)
		return -1;
	pool_pads(L, xv, &P);
	if (lw_has(L, 6, "divisor_override"))
		return avg_divisor(L, &P, x, unb, lw_int(L, 6,
		    "divisor_override", 1));
	bool anypad = false;
	for (int k = 0; k < nd; k++)
		anypad |= P.p[k] != 0;
	if (P.extended && cip && anypad) {
		/* PyTorch counts the padding but not the ceil-mode overhang:
		 * pad with zeros explicitly, then count real elements only */
		int64_t pads[2 * (MAXSP + 2)] = {0};
		int r = nd + 2;
		for (int k = 0; k < nd; k++) {
			pads[2 + k] = pads[r + 2 + k] = P.p[k];
			P.pads[nd + k] -= P.p[k];
			P.pads[k] = 0;
		}
		x = lw_op2(L, "Pad", x, lw_const_i64s(L, pads, 2 * r));
		cip = false;
	} else if (P.extended) {
		cip = false;
	}
	NodeId n = lw_emit(L, "AveragePool", 1, &x, 1);
	pool_attrs(L, n, &P);
	lw_attr_int(L, n, "count_include_pad", cip);
	ValId y = lwn_settyped(L, n, 0, DT_F32);
	if (unb)
		y = lwn_squeeze(L, y, 0);
	lwn_bind_out(L, 0, y);
	return 0;
}

static int avg_pool1d(Lower *L) { return avg_pool(L, 1); }
static int avg_pool2d(Lower *L) { return avg_pool(L, 2); }
static int avg_pool3d(Lower *L) { return avg_pool(L, 3); }

static int adaptive_avg1d(Lower *L) { return lwn_adaptive_pool(L, 1, false); }
static int adaptive_avg2d(Lower *L) { return lwn_adaptive_pool(L, 2, false); }
static int adaptive_avg3d(Lower *L) { return lwn_adaptive_pool(L, 3, false); }
static int adaptive_max1d(Lower *L) { return lwn_adaptive_pool(L, 1, true); }
static int adaptive_max2d(Lower *L) { return lwn_adaptive_pool(L, 2, true); }
static int adaptive_max3d(Lower *L) { return lwn_adaptive_pool(L, 3, true); }

/* max_unpool2d(self, indices, output_size) and max_unpool3d(...,
 * stride, padding): each value goes to its index, flat over the output
 * plane (what max pooling's indices are), the rest is zero. */
static int
max_unpool(Lower *L, int nd)
{
	int64_t out[MAXSP], plane = 1;
	const Value *xv = lw_srcval(L, 0, "self");
	/* an output_size of a dynamic size (a skip connection's): the plane
	 * and the shape at run time */
	bool dyn = lw_list_symbolic(L, 2, "output_size");
	const Arg *oa = lw_arg(L, 2, "output_size");
	int n = dyn ? (int)oa->u.list.n : lw_ints(L, 2, "output_size", out,
	    MAXSP);
	if (lw_failed(L))
		return -1;
	if (n != nd)
		return lw_fail(L, "output_size must have %d elements", nd);
	if (!xv || (xv->rank != nd + 1 && xv->rank != nd + 2))
		return lw_fail(L, "input of rank %d for %dd unpooling",
		    xv ? xv->rank : -1, nd);
	for (int k = 0; k < nd && !dyn; k++) {
		if (out[k] < 0)
			return lw_fail(L, "output_size must be non-negative");
		plane *= out[k];
	}
	ValId osz = dyn ? lw_shape_list(L, 2, "output_size")
	    : lw_const_i64s(L, out, nd);
	if (!osz)
		return -1;
	ValId x = lw_in(L, 0, "self"), i = lw_cast(L, lw_in(L, 1, "indices"),
	    DT_I64);
	if (!x || !i)
		return -1;
	int lead = xv->rank - nd;
	/* [lead.., plane] zeros; values and indices as [lead.., -1] */
	ValId ls = lwn_shape_of(L, x, 0, lead);
	ValId flat[2] = {ls, lw_i64v(L, -1)};
	ValId fs = lw_concat(L, flat, 2, 0, DT_I64);
	ValId zs[2] = {ls, dyn ? lwn_reduce(L, "ReduceProd", osz,
	    (int64_t[]){0}, 1, true) : lw_i64v(L, plane)};
	ValId z = lwn_fill(L, lw_concat(L, zs, 2, 0, DT_I64), 0,
	    lw_dtype(L, x));
	lw_settype(L, z, lw_dtype(L, x));
	ValId in[3] = {z, lw_reshape(L, i, fs), lw_reshape(L, x, fs)};
	NodeId s = lw_emit(L, "ScatterElements", 3, in, 1);
	lw_attr_int(L, s, "axis", lead);
	ValId y = lwn_settyped(L, s, 0, lw_dtype(L, x));
	ValId os[2] = {ls, osz};
	lw_bind(L, 0, lw_reshape(L, y, lw_concat(L, os, 2, 0, DT_I64)));
	return 0;
}

static int max_unpool2d(Lower *L) { return max_unpool(L, 2); }
static int max_unpool3d(Lower *L) { return max_unpool(L, 3); }

/* ------------------------------------------------------------- resampling */

/* Where an upsample overload keeps its arguments. */
typedef struct Up {
	const char *mode; /* ONNX Resize mode: nearest, linear, cubic */
	int nd;
	int align;        /* align_corners, -1: none */
	int scale;        /* .vec: the scale_factors list; .default: the first
	                   * of nd optional per-dimension scales */
	bool vec;
	bool exact;       /* nearest-exact */
} Up;

static const char *scale_names[MAXSP][MAXSP] = {
	{"scales"},
	{"scales_h", "scales_w"},
	{"scales_d", "scales_h", "scales_w"},
};

/* uint8 bilinear and bicubic: PyTorch's integer arithmetic
 * (lwn_resample_u8), its source step per output step
 * (area_pixel_compute_scale) from the given scales or the sizes; bilinear
 * of an input size known at run time only: lwn_resample_u8_dyn */
static int
resample_u8(Lower *L, const Value *xv, int lead, const double *given,
    bool align, bool cubic)
{
	const Value *ov = lw_outval(L, 0);
	int64_t in[2], out[2];
	double step[2];
	bool dyn = false;
	for (int k = 0; k < 2; k++) {
		if (!ov || ov->rank != xv->rank || !lw_dim_static(ov, L->src,
		    lead + k, &out[k]))
			return lw_fail(L, "uint8 resampling needs static sizes");
		dyn |= !lw_dim_static(xv, L->src, lead + k, &in[k]);
	}
	if (dyn && (cubic || out[0] < 1 || out[1] < 1 || out[0] > (1 << 16) ||
	    out[1] > (1 << 16)))
		return lw_fail(L, "uint8 %s resampling of a size known at run "
		    "time only needs%s", cubic ? "bicubic" : "bilinear", cubic ?
		    " static sizes" : " an output of 1 to 65536 per dim");
	if (dyn) {
		double g[2] = {given ? given[0] : 0, given ? given[1] : 0};
		ValId x = lw_in(L, 0, "input");
		if (!x)
			return -1;
		lwn_bind_out(L, 0, lwn_resample_u8_dyn(L, x, lead, out, g,
		    align));
		return 0;
	}
	for (int k = 0; k < 2; k++) {
		if (align)
			step[k] = out[k] > 1 ? (double)(in[k] - 1) /
			    (double)(out[k] - 1) : 0;
		else
			step[k] = given && given[k] > 0 ? 1 / given[k] :
			    (double)in[k] / (double)out[k];
	}
	ValId x = lw_in(L, 0, "input");
	ValId y = x ? lwn_resample_u8(L, x, in, out, step, align, cubic) : 0;
	if (!y)
		return -1;
	lwn_bind_out(L, 0, y);
	return 0;
}

/* PyTorch maps output coordinates with 1/scale when scales are given, else
 * with in/out; ONNX Resize does the same with its scales or sizes input,
 * so scales are passed when known and sizes otherwise. */
static int
upsample(Lower *L, const Up *u)
{
	int nd = u->nd;
	const Value *xv = lw_srcval(L, 0, "input");
	if (!xv || xv->rank < nd + 1)
		return lw_fail(L, "input must be a tensor of rank >= %d",
		    nd + 1);
	int lead = xv->rank - nd;
	double sc[MAXSP];
	bool have_sc = false;
	if (u->vec) {
		int n = lwn_floats(L, u->scale, "scale_factors", sc, MAXSP);
		if (n == -2)
			return -1;
		if (n == 1)
			for (int k = 1; k < nd; k++)
				sc[k] = sc[0];
		else if (n >= 0 && n != nd)
			return lw_fail(L, "scale_factors has %d elements for "
			    "%d dimensions", n, nd);
		have_sc = n >= 0;
	} else {
		int cnt = 0;
		for (int k = 0; k < nd; k++) {
			const char *kw = scale_names[nd - 1][k];
			if (lw_has(L, u->scale + k, kw)) {
				sc[k] = lw_float(L, u->scale + k, kw, 1);
				cnt++;
			}
		}
		have_sc = cnt == nd;
	}
	bool user_sc = have_sc;  /* PyTorch's own scales, not out / in */
	int64_t out[MAXSP];
	const Arg *os = lw_arg(L, 1, "output_size");
	if (!have_sc && (!os || os->kind == A_NONE))
		return lw_fail(L, "needs output_size or scale_factors");
	if (!have_sc && (os->kind != A_LIST || os->u.list.n != (uint32_t)nd))
		return lw_fail(L, "output_size must list %d sizes", nd);
	if (!have_sc) {
		/* whole-number ratios as scales keep the coordinate
		 * arithmetic exact */
		const Arg *it = ir_items(L->src, os);
		bool ok = true;
		for (int k = 0; k < nd; k++) {
			ok &= it[k].kind == A_INT;
			out[k] = it[k].u.i;
		}
		for (int k = 0; k < nd && ok; k++) {
			int64_t i;
			ok = lw_dim_static(xv, L->src, lead + k, &i) && i > 0 &&
			    out[k] % i == 0;
			if (ok)
				sc[k] = (double)(out[k] / i);
		}
		have_sc = ok;
	}
	bool align = u->align >= 0 && lw_bool(L, u->align, "align_corners",
	    false);
	if (nd == 2 && xv->dtype == DT_U8 && strcmp(u->mode, "nearest"))
		return resample_u8(L, xv, lead, user_sc ? sc : NULL, align,
		    !strcmp(u->mode, "cubic"));
	ValId x = lwn_f32(L, lw_in(L, 0, "input"));
	if (!x)
		return -1;
	ValId scales = 0, sizes = 0;
	if (have_sc) {
		float v[MAXSP + 8];
		int64_t len = lead + nd;
		if (len > MAXSP + 8)
			return lw_fail(L, "input of rank %d", xv->rank);
		for (int k = 0; k < lead; k++)
			v[k] = 1;
		for (int k = 0; k < nd; k++)
			v[lead + k] = (float)sc[k];
		scales = lw_const(L, DT_F32, 1, &len, v);
	} else {
		ValId parts[2] = {lwn_shape_of(L, x, 0, lead),
		    lw_shape_list(L, 1, "output_size")};
		if (!parts[1])
			return -1;
		NodeId c = lw_emit(L, "Concat", 2, parts, 1);
		lw_attr_int(L, c, "axis", 0);
		sizes = lwn_settyped(L, c, 0, DT_I64);
	}
	ValId in[4] = {x, 0, scales, sizes};
	NodeId n = lw_emit(L, "Resize", sizes ? 4 : 3, in, 1);
	lw_attr_str(L, n, "mode", u->mode);
	if (strcmp(u->mode, "nearest") == 0) {
		/* nearest: floor(dst / scale); nearest-exact:
		 * floor((dst + 0.5) / scale) */
		lw_attr_str(L, n, "coordinate_transformation_mode",
		    u->exact ? "half_pixel" : "asymmetric");
		lw_attr_str(L, n, "nearest_mode",
		    u->exact ? "round_prefer_ceil" : "floor");
	} else {
		lw_attr_str(L, n, "coordinate_transformation_mode",
		    align ? "align_corners" : "half_pixel");
		if (strcmp(u->mode, "cubic") == 0)
			lw_attr_float(L, n, "cubic_coeff_a", -0.75);
	}
	lwn_bind_out(L, 0, lwn_settyped(L, n, 0, lw_dtype(L, x)));
	return 0;
}

/* The upsample overloads differ only in what their names say:
 * upsample_<mode><n>d or _upsample_nearest_exact<n>d, .vec (output_size?,
 * [align_corners,] scale_factors?) or .default (output_size,
 * [align_corners,] one optional scale per dimension). */
static int
upsample_rule(Lower *L)
{
	const char *op = ir_str(L->m, lw_node(L)->op), *d = strchr(op, '.');
	Up u = {.mode = "nearest", .align = -1, .scale = 2};
	if (!d || d - op < 2 || d[-1] != 'd' || d[-2] < '1' || d[-2] > '3')
		return lw_fail(L, "not an upsample overload");
	u.nd = d[-2] - '0';
	u.vec = strcmp(d, ".vec") == 0;
	u.exact = strstr(op, "exact") != NULL;
	if (strstr(op, "linear") || strstr(op, "cubic")) {
		u.mode = strstr(op, "cubic") ? "cubic" : "linear";
		u.align = 2;
		u.scale = 3;
	}
	return upsample(L, &u);
}

/* x reshaped to the sizes parts (each a 1-D int64) hold.  Any of these
 * may be 0 (an empty image), so no 0 may mean "copy" here: allowzero. */
static ValId
reshape_parts(Lower *L, ValId x, const ValId *parts, int n)
{
	ValId in[2] = {x, lw_concat(L, parts, n, 0, DT_I64)};
	NodeId rn = lw_emit(L, "Reshape", 2, in, 1);
	lw_attr_int(L, rn, "allowzero", 1);
	return lwn_settyped(L, rn, 0, lw_dtype(L, x));
}

/* x reshaped to [N, dims...] with N its own first dim */
static ValId
reshape_batch(Lower *L, ValId x, const int64_t *dims, int n)
{
	return reshape_parts(L, x, (ValId[]){lwn_shape_of(L, x, 0, 1),
	    lw_const_i64s(L, dims, n)}, 2);
}

/* pixel_shuffle (up) or pixel_unshuffle of a 4-D x as reshape, transpose,
 * reshape with every size taken at run time: dynamic heights, widths and
 * channels, any dtype */
static ValId
shuffle_dyn(Lower *L, ValId x, int64_t r, bool up)
{
	ValId n = lwn_shape_of(L, x, 0, 1), c = lwn_shape_of(L, x, 1, 2);
	ValId h = lwn_shape_of(L, x, 2, 3), w = lwn_shape_of(L, x, 3, 4);
	ValId rv = lw_i64v(L, r);
	if (up) {
		c = lw_op2(L, "Div", c, lw_i64v(L, r * r));
		x = reshape_parts(L, x, (ValId[]){n, c, rv, rv, h, w}, 6);
		x = lwn_transpose(L, x, (int64_t[]){0, 1, 4, 2, 5, 3}, 6);
		return reshape_parts(L, x, (ValId[]){n, c, lw_op2(L, "Mul", h,
		    rv), lw_op2(L, "Mul", w, rv)}, 4);
	}
	h = lw_op2(L, "Div", h, rv);
	w = lw_op2(L, "Div", w, rv);
	x = reshape_parts(L, x, (ValId[]){n, c, h, rv, w, rv}, 6);
	x = lwn_transpose(L, x, (int64_t[]){0, 1, 3, 5, 2, 4}, 6);
	return reshape_parts(L, x, (ValId[]){n, lw_op2(L, "Mul", c, lw_i64v(L,
	    r * r)), h, w}, 4);
}

/* pixel_shuffle(self, upscale_factor): [*, C*r*r, H, W] -> [*, C, H*r,
 * W*r] with channel c*r*r + i*r + j going to (c, h*r+i, w*r+j), which is
 * DepthToSpace in CRD mode.  ONNX Runtime's DepthToSpace takes float32,
 * float64, float16 and uint8, each moved exactly (bfloat16 widened to
 * float32, exact too); other dtypes reshape, transpose, reshape. */
static int
pixel_shuffle(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t r = lw_int(L, 1, "upscale_factor", 1);
	if (!xv || (xv->rank != 3 && xv->rank != 4))
		return lw_fail(L, "only inputs of rank 3 and 4 are supported");
	if (r < 1)
		return lw_fail(L, "upscale_factor must be positive");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (dt == DT_BF16)
		x = lw_cast(L, x, DT_F32);
	if (xv->rank == 3)
		x = lwn_unsqueeze(L, x, 0);
	int64_t c, h, w;
	if (!ir_dtype_is_float(dt) && dt != DT_U8) {
		if (!lw_dim_static(xv, L->src, -3, &c) ||
		    !lw_dim_static(xv, L->src, -2, &h) ||
		    !lw_dim_static(xv, L->src, -1, &w)) {
			x = shuffle_dyn(L, x, r, true);
		} else {
			x = reshape_batch(L, x, (int64_t[]){c / (r * r), r, r,
			    h, w}, 5);
			x = lwn_transpose(L, x, (int64_t[]){0, 1, 4, 2, 5, 3},
			    6);
			x = reshape_batch(L, x, (int64_t[]){c / (r * r), h * r,
			    w * r}, 3);
		}
	} else {
		NodeId n = lw_emit(L, "DepthToSpace", 1, &x, 1);
		lw_attr_int(L, n, "blocksize", r);
		lw_attr_str(L, n, "mode", "CRD");
		x = lwn_settyped(L, n, 0, lw_dtype(L, x));
	}
	if (xv->rank == 3)
		x = lwn_squeeze(L, x, 0);
	lwn_bind_out(L, 0, x);
	return 0;
}

/* pixel_unshuffle(self, downscale_factor): the inverse, [*, C, H*r, W*r]
 * -> [*, C*r*r, H, W].  SpaceToDepth orders channels the other way round
 * (DCR), so this is spelled as reshape, transpose, reshape. */
static int
pixel_unshuffle(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t r = lw_int(L, 1, "downscale_factor", 1), c, h, w;
	if (!xv || (xv->rank != 3 && xv->rank != 4))
		return lw_fail(L, "only inputs of rank 3 and 4 are supported");
	if (r < 1)
		return lw_fail(L, "downscale_factor must be positive");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	if (xv->rank == 3)
		x = lwn_unsqueeze(L, x, 0);
	if (!lw_dim_static(xv, L->src, -3, &c) ||
	    !lw_dim_static(xv, L->src, -2, &h) ||
	    !lw_dim_static(xv, L->src, -1, &w)) {
		x = shuffle_dyn(L, x, r, false);
	} else {
		x = reshape_batch(L, x, (int64_t[]){c, h / r, r, w / r, r}, 5);
		x = lwn_transpose(L, x, (int64_t[]){0, 1, 3, 5, 2, 4}, 6);
		x = reshape_batch(L, x, (int64_t[]){c * r * r, h / r, w / r},
		    3);
	}
	if (xv->rank == 3)
		x = lwn_squeeze(L, x, 0);
	lwn_bind_out(L, 0, x);
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn_pool LW_THIS
const LowerRule lw_rules_nn_pool[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
