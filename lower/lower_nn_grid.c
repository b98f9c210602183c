/* lower_nn_grid.c - grid sampling: grid_sampler{,_2d,_3d}.  ONNX
 * GridSample where it takes the input (4-D at any opset, 5-D from opset
 * 20); 5-D input below opset 20 is sampled here with Gathers, following
 * PyTorch's CPU kernel (aten/src/ATen/native/GridSampler.{h,cpp}) step by
 * step: unnormalize, pad (clip or reflect), then the eight trilinear
 * corners or the nearest one, each read only where it lies inside. */
#include <math.h>
#include <string.h>

#include "lower_nn.h"

/* ---------------------------------------------------------------- helpers */

static ValId
where(Lower *L, ValId c, ValId a, ValId b)
{
	ValId in[3] = {c, a, b};
	NodeId n = lw_emit(L, "Where", 3, in, 1);
	return lwn_settyped(L, n, 0, lw_dtype(L, a));
}

/* fmod(a, b), C's remainder with the sign of a */
static ValId
fmod_(Lower *L, ValId a, ValId b)
{
	ValId in[2] = {a, b};
	NodeId n = lw_emit(L, "Mod", 2, in, 1);
	lw_attr_int(L, n, "fmod", 1);
	return lwn_settyped(L, n, 0, lw_dtype(L, a));
}

static ValId
less(Lower *L, ValId a, ValId b)
{
	return lw_op2t(L, "Less", a, b, DT_BOOL);
}

/* x reshaped to shape; a 0 in shape is a 0 (an empty batch), not "copy" */
static ValId
reshape0(Lower *L, ValId x, ValId shape)
{
	ValId in[2] = {x, shape};
	NodeId n = lw_emit(L, "Reshape", 2, in, 1);
	lw_attr_int(L, n, "allowzero", 1);
	return lwn_settyped(L, n, 0, lw_dtype(L, x));
}

/* PyTorch's clip_coordinates, min(size - 1, max(c, 0)) as std::min and
 * std::max spell it, so that a NaN coordinate lands on size - 1 as there */
/* An input axis of `n` pixels (-1: known at run time only): n, n - 1 in
 * the compute type, and n as INT64 for the flat index. */
typedef struct Ax {
	int64_t n;
	ValId f, fm1, i;
} Ax;

static Ax
axis_of(Lower *L, const Value *xv, ValId x, int d, DType dt)
{
	Ax a = {-1, 0, 0, 0};
	if (lw_dim_static(xv, L->src, d, &a.n)) {
		a.f = lw_scalar(L, (double)a.n, dt);
		a.fm1 = lw_scalar(L, (double)(a.n - 1), dt);
		a.i = lw_scalar_i64(L, a.n);
		return a;
	}
	a.i = lwn_squeeze(L, lwn_shape_of(L, x, d, d + 1), 0);
	a.f = lw_cast(L, a.i, dt);
	a.fm1 = lw_op2(L, "Sub", a.f, lw_scalar(L, 1, dt));
	return a;
}

/* PyTorch's clip_coordinates, min(size - 1, max(c, 0)) as std::min and
 * std::max spell it, so that a NaN coordinate lands on size - 1 as there */
static ValId
clip_coord(Lower *L, ValId c, const Ax *ax, DType dt)
{
	ValId zero = lw_scalar(L, 0, dt);
	ValId m = where(L, less(L, c, zero), zero, c);
	return where(L, less(L, m, ax->fm1), m, ax->fm1);
}

/* PyTorch's reflect_coordinates(c, twice_low, twice_high): c mirrored
 * into [low, high] by as many flips as it takes; low = 0, high = size - 1
 * with align_corners, else low = -0.5, high = size - 0.5.  An axis of one
 * pixel with align_corners has nothing to mirror in: 0. */
static ValId
reflect_coord(Lower *L, ValId c, const Ax *ax, bool align, DType dt)
{
	if (align && ax->n == 1)
		return lwn_fill(L, lwn_shape_of(L, c, 0, INT64_MAX), 0, dt);
	ValId sp = align ? ax->fm1 : ax->f, lo = lw_scalar(L, align ? 0 : -0.5,
	    dt);
	ValId in = lw_op1(L, "Abs", lw_op2(L, "Sub", c, lo));
	ValId extra = fmod_(L, in, sp);
	ValId flips = lw_op1(L, "Floor", lw_op2(L, "Div", in, sp));
	ValId odd_n = fmod_(L, flips, lw_scalar(L, 2, dt));
	ValId even = lw_op2t(L, "Equal", odd_n, lw_scalar(L, 0, dt), DT_BOOL);
	ValId a = lw_op2(L, "Add", extra, lo);
	ValId b = lw_op2(L, "Add", lw_op2(L, "Sub", sp, extra), lo);
	ValId r = where(L, even, a, b);
	if (align && ax->n < 0) /* the one-pixel case at run time */
		r = where(L, lw_op2t(L, "Equal", sp, lw_scalar(L, 0, dt),
		    DT_BOOL), lw_scalar(L, 0, dt), r);
	return r;
}

/* grid_sampler_compute_source_index: the grid coordinate g in [-1, 1]
 * as a position along the axis, padded. */
static ValId
source_index(Lower *L, ValId g, const Ax *ax, int pad, bool align, DType dt)
{
	ValId one = lw_scalar(L, 1, dt), two = lw_scalar(L, 2, dt);
	ValId c = lw_op2(L, "Add", g, one);
	if (align)
		c = lw_op2(L, "Mul", lw_op2(L, "Div", c, two), ax->fm1);
	else
		c = lw_op2(L, "Div", lw_op2(L, "Sub", lw_op2(L, "Mul", c,
		    ax->f), one), two);
	if (pad == 1)
		return clip_coord(L, c, ax, dt);
	if (pad == 2)
		return clip_coord(L, reflect_coord(L, c, ax, align, dt), ax, dt);
	return c;
}

/* One sampling position along one axis: the (float) pixel index, whether
 * it lies in [0, size), and that index as INT64, 0 where outside (so every
 * Gather stays in bounds; the term is dropped there). */
typedef struct Tap {
	ValId ok, idx, w;
} Tap;

static Tap
tap(Lower *L, ValId i, ValId w, const Ax *ax, DType dt)
{
	ValId zero = lw_scalar(L, 0, dt);
	ValId ge = lw_op1(L, "Not", less(L, i, zero));
	ValId lt = less(L, i, ax->f);
	Tap t = {lw_op2t(L, "And", ge, lt, DT_BOOL), 0, w};
	t.idx = lw_cast(L, where(L, t.ok, i, zero), DT_I64);
	return t;
}

/* ------------------------------------------------------------ 3-D gather */

/* 5-D input [N, C, D, H, W] and grid [N, Do, Ho, Wo, 3] (x, y, z: x along
 * W) below opset 20: out[n, c, p] = sum over the corners k around grid
 * point p of w_k * input[n, c, k], as GatherElements over the flattened
 * D*H*W. */
static int
grid_sample_3d(Lower *L, const Value *xv, int64_t im, int64_t pm, bool align)
{
	int64_t n;
	for (int d = 2; d < 5; d++)
		if (lw_dim_static(xv, L->src, d, &n) && n < 1)
			return lw_fail(L, "3-D grid sampling of an empty input");
	ValId x = lw_in(L, 0, "input"), g = lw_in(L, 1, "grid");
	if (!x || !g)
		return -1;
	DType dt = lw_dtype(L, x) == DT_F64 ? DT_F64 : DT_F32;
	x = lw_cast(L, x, dt);
	g = lw_cast(L, g, dt);
	Ax sz[3]; /* W, H, D: the order of the grid's last dim */
	for (int a = 0; a < 3; a++)
		sz[a] = axis_of(L, xv, x, 4 - a, dt);

	/* input as [N, C, D*H*W]; the output positions as [N, 1, P] */
	ValId nc = lwn_shape_of(L, x, 0, 2), opos = lwn_shape_of(L, g, 1, 4);
	ValId parts[2] = {nc, lwn_reduce(L, "ReduceProd", lwn_shape_of(L, x, 2,
	    5), (int64_t[]){0}, 1, true)};
	ValId xf = reshape0(L, x, lw_concat(L, parts, 2, 0, DT_I64));
	ValId np = lwn_reduce(L, "ReduceProd", opos, (int64_t[]){0}, 1, true);
	ValId pshape[3] = {lwn_shape_of(L, g, 0, 1), lw_const_i64s(L,
	    (int64_t[]){1}, 1), np};
	ValId col = lw_concat(L, pshape, 3, 0, DT_I64);

	/* per axis: one tap (nearest) or two (linear), in PyTorch's order */
	Tap taps[3][2];
	int nt = im == 1 ? 1 : 2;
	for (int a = 0; a < 3; a++) {
		NodeId gn = lw_emit(L, "Gather", 2, (ValId[]){g,
		    lw_scalar_i64(L, a)}, 1);
		lw_attr_int(L, gn, "axis", 4);
		ValId c = source_index(L, lwn_settyped(L, gn, 0, dt), &sz[a],
		    (int)pm, align, dt);
		c = reshape0(L, c, col);
		if (im == 1) {
			/* nearbyint: half to even, as ONNX Round */
			taps[a][0] = tap(L, lw_op1(L, "Round", c), 0, &sz[a],
			    dt);
			continue;
		}
		ValId c0 = lw_op1(L, "Floor", c);
		ValId c1 = lw_op2(L, "Add", c0, lw_scalar(L, 1, dt));
		/* PyTorch's weights: (c0 + 1) - c for c0, c - c0 for c0 + 1 */
		taps[a][0] = tap(L, c0, lw_op2(L, "Sub", c1, c), &sz[a], dt);
		taps[a][1] = tap(L, c1, lw_op2(L, "Sub", c, c0), &sz[a], dt);
	}

	ValId eshape[2] = {nc, np}, out = 0;
	ValId expand = lw_concat(L, eshape, 2, 0, DT_I64);
	ValId w = sz[0].i, hw = sz[0].n >= 0 && sz[1].n >= 0 ?
	    lw_scalar_i64(L, sz[0].n * sz[1].n) : lw_op2(L, "Mul", sz[1].i, w);
	for (int kz = 0; kz < nt; kz++)
		for (int ky = 0; ky < nt; ky++)
			for (int kx = 0; kx < nt; kx++) {
				const Tap *tx = &taps[0][kx], *ty = &taps[1][ky],
					  *tz = &taps[2][kz];
				ValId idx = lw_op2(L, "Add", lw_op2(L, "Add",
				    lw_op2(L, "Mul", tz->idx, hw), lw_op2(L, "Mul",
				    ty->idx, w)), tx->idx);
				idx = lw_op2(L, "Expand", idx, expand);
				NodeId gn = lw_emit(L, "GatherElements", 2,
				    (ValId[]){xf, idx}, 1);
				lw_attr_int(L, gn, "axis", 2);
				ValId v = lwn_settyped(L, gn, 0, dt);
				ValId ok = lw_op2t(L, "And", lw_op2t(L, "And",
				    tz->ok, ty->ok, DT_BOOL), tx->ok, DT_BOOL);
				if (tx->w)
					v = lw_op2(L, "Mul", v, lw_op2(L, "Mul",
					    lw_op2(L, "Mul", tx->w, ty->w), tz->w));
				v = where(L, ok, v, lw_scalar(L, 0, dt));
				out = out ? lw_op2(L, "Add", out, v) : v;
			}
	ValId oshape[2] = {nc, opos};
	out = reshape0(L, out, lw_concat(L, oshape, 2, 0, DT_I64));
	lwn_bind_out(L, 0, out);
	return 0;
}

/* ------------------------------------------------------------------ rules */

/* grid_sampler{,_2d,_3d}(input, grid, interpolation_mode, padding_mode,
 * align_corners): ONNX GridSample, whose modes are PyTorch's (numbered
 * bilinear, nearest, bicubic; zeros, border, reflection).  3-D grids need
 * opset 20 for GridSample, where the linear modes lost their "bi";
 * before, grid_sample_3d. */
static int
grid_sampler(Lower *L)
{
	static const char *modes18[] = {"bilinear", "nearest", "bicubic"},
			  *modes20[] = {"linear", "nearest", "cubic"},
			  *pads[] = {"zeros", "border", "reflection"};
	const Value *xv = lw_srcval(L, 0, "input");
	int64_t im = lw_int(L, 2, "interpolation_mode", 0),
		pm = lw_int(L, 3, "padding_mode", 0);
	bool align = lw_bool(L, 4, "align_corners", false);
	if (lw_failed(L))
		return -1;
	if (!xv || (xv->rank != 4 && xv->rank != 5))
		return lw_fail(L, "input must be 4-D or 5-D");
	if (im < 0 || im > 2 || pm < 0 || pm > 2)
		return lw_fail(L, "unknown interpolation or padding mode");
	if (xv->rank == 5 && im == 2)
		return lw_fail(L, "bicubic interpolation is only supported for "
		    "4-D input");
	if (xv->rank == 5 && L->opset < 20)
		return grid_sample_3d(L, xv, im, pm, align);
	ValId in[2] = {lwn_f32(L, lw_in(L, 0, "input")),
	    lwn_f32(L, lw_in(L, 1, "grid"))};
	if (!in[0] || !in[1])
		return -1;
	NodeId n = lw_emit(L, "GridSample", 2, in, 1);
	lw_attr_str(L, n, "mode", (L->opset >= 20 ? modes20 : modes18)[im]);
	lw_attr_str(L, n, "padding_mode", pads[pm]);
	lw_attr_int(L, n, "align_corners", align);
	lwn_bind_out(L, 0, lwn_settyped(L, n, 0, DT_F32));
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn_grid LW_THIS
const LowerRule lw_rules_nn_grid[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
