/* lower_complex_ops.c - more complex variants of real ops (the pair form,
 * lower_fft.h): complex tensors made by full/zeros, written by
 * slice_scatter, contracted by einsum, rolled and gathered (fftshift), as
 * the spectral layers of Fourier neural operators and image filters use
 * them.  A table beside lower_complex.c's, looked up the same way. */
#include <string.h>

#include "lower_fft.h"

/* The logical rank of the FX output k */
static int
out_rank(Lower *L)
{
	const Value *ov = lw_outval(L, 0);
	return ov ? ov->rank : -1;
}

/* Complex arg i (a real tensor becomes complex); its logical rank in *r;
 * 0 after reporting. */
static ValId
cx_arg(Lower *L, int i, const char *kw, DType dt, int *r)
{
	const Value *sv = lw_srcval(L, i, kw);
	bool cx;
	if (!sv || sv->rank < 0) {
		lw_fail(L, "argument %s must be a ranked tensor", kw);
		return 0;
	}
	*r = sv->rank;
	ValId x = lwf_in(L, i, kw, &cx);
	if (!x)
		return 0;
	return cx ? lw_cast(L, x, dt) : lwf_to_cx(L, x, sv->rank, dt);
}

/* full(size, fill) / zeros(size) of a complex dtype: a real fill, zero
 * imaginary part (a complex fill is not a number the dump can hold) */
static ValId
filled(Lower *L, ValId shape, double v, DType dt)
{
	ValId parts[2] = {shape, lw_i64v(L, 2)};
	int64_t two = 2;
	ValId pair;
	if (dt == DT_F64) {
		double p[2] = {v, 0};
		pair = lw_const(L, dt, 1, &two, p);
	} else {
		float p[2] = {(float)v, 0};
		pair = lw_cast(L, lw_const(L, DT_F32, 1, &two, p), dt);
	}
	ValId in[2] = {pair, lw_concat_shape(L, parts, 2)};
	return lw_typed(L, lw_emit(L, "Expand", 2, in, 1), dt);
}

static int
full(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	ValId shape = lw_shape_list(L, 0, "size");
	const Arg *f = lw_arg(L, 1, "fill_value");
	if (!shape || lw_failed(L))
		return -1;
	if (!f || (f->kind != A_INT && f->kind != A_FLOAT && f->kind !=
	    A_BOOL))
		return lw_fail(L, "fill_value must be a real number");
	lwf_bind(L, 0, filled(L, shape, lw_float(L, 1, "fill_value", 0),
	    dt));
	return 0;
}

static int
zeros(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	ValId shape = lw_shape_list(L, 0, "size");
	if (!shape || lw_failed(L))
		return -1;
	lwf_bind(L, 0, filled(L, shape, 0, dt));
	return 0;
}

/* zeros_like / ones_like / full_like of a complex tensor */
static int
like(Lower *L, double v, bool has_fill)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	int r;
	ValId x = cx_arg(L, 0, "self", dt, &r);
	if (has_fill) {
		const Arg *f = lw_arg(L, 1, "fill_value");
		if (!f || (f->kind != A_INT && f->kind != A_FLOAT &&
		    f->kind != A_BOOL))
			return lw_fail(L, "fill_value must be a real number");
		v = lw_float(L, 1, "fill_value", 0);
	}
	if (!x || lw_failed(L))
		return -1;
	lwf_bind(L, 0, filled(L, lw_shape_range(L, x, 0, r), v, dt));
	return 0;
}

static int zeros_like(Lower *L) { return like(L, 0, false); }
static int ones_like(Lower *L) { return like(L, 1, false); }
static int full_like(Lower *L) { return like(L, 0, true); }

/* slice_scatter(self, src, dim, start, end, step): src written into
 * self[start:end:step] along dim.  Static bounds: positions of the slice
 * gather src's rows, the others self's (a Where on a constant mask along
 * dim) */
static int
slice_scatter(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	int r, rs;
	ValId x = cx_arg(L, 0, "self", dt, &r), s = cx_arg(L, 1, "src", dt,
	    &rs);
	int64_t d = lw_int(L, 2, "dim", 0), st = lw_int(L, 3, "start", 0),
		en = lw_int(L, 4, "end", INT64_MAX), step = lw_int(L, 5, "step",
		1), n;
	if (!x || !s || lw_failed(L) || lw_normdim(L, &d, r) < 0)
		return -1;
	if (!lw_sdim(L, lw_srcval(L, 0, "self"), (int)d, &n))
		return lw_fail(L, "needs a static size along dim %lld",
		    (long long)d);
	if (step <= 0 || rs != r)
		return lw_fail(L, "expected a positive step and src of the "
		    "rank of self");
	st = st < 0 ? st + n : st;
	en = en < 0 ? en + n : en;
	st = st < 0 ? 0 : st > n ? n : st;
	en = en < st ? st : en > n ? n : en;
	/* pick[i]: src's row for position i of the slice, else 0 */
	int64_t *pick = lw_scratch(L, (size_t)n + 1, sizeof *pick);
	bool *in = lw_scratch(L, (size_t)n + 1, sizeof *in);
	for (int64_t i = 0; i < n; i++) {
		in[i] = i >= st && i < en && (i - st) % step == 0;
		pick[i] = in[i] ? (i - st) / step : 0;
	}
	int64_t mshape[LW_MAXRANK + 1];
	for (int k = 0; k <= r; k++)
		mshape[k] = k == d ? n : 1;
	ValId g[2] = {s, lw_const_i64s(L, pick, (int)n)};
	NodeId gn = lw_emit(L, "Gather", 2, g, 1);
	lw_attr_int(L, gn, "axis", d);
	ValId w[3] = {lw_const(L, DT_BOOL, r + 1, mshape, in),
		lw_typed(L, gn, dt), x};
	lwf_bind(L, 0, lw_typed(L, lw_emit(L, "Where", 3, w, 1), dt));
	return 0;
}

/* einsum(equation, [a, b]) of two complex (or one real) operands:
 * (ar + i ai)(br + i bi) contracted part by part with the same equation,
 * real = ar.br - ai.bi, imag = ar.bi + ai.br */
static int
einsum(Lower *L)
{
	const Arg *eq = lw_arg(L, 0, "equation");
	LwTensorList tl;
	int n = lw_tensor_list(L, 1, "tensors", &tl);
	DType dt = lwf_part_dt(lw_outdtype(L));
	int r = out_rank(L);
	if (!eq || eq->kind != A_STR || lw_failed(L) || r < 0)
		return lw_fail(L, "expected an equation and ranked tensors");
	if (n != 2)
		return lw_fail(L, "complex einsum of %d operands (two are "
		    "supported)", n);
	ValId re[2], im[2];
	for (int k = 0; k < 2; k++) {
		ValId v = lwf_item(L, tl.v[k], tl.s[k]);
		if (!v)
			return -1;
		v = lw_cast(L, v, dt);
		int rk = tl.s[k]->rank;
		if (lwf_is_cx((DType)tl.s[k]->dtype)) {
			re[k] = lwf_part(L, v, rk, 0);
			im[k] = lwf_part(L, v, rk, 1);
		} else {
			re[k] = v;
			im[k] = 0;
		}
	}
	const char *e = ir_str(L->m, eq->u.s);
	ValId part[2];
	for (int p = 0; p < 2; p++) {
		ValId acc = 0;
		for (int k = 0; k < 2; k++) {
			/* p 0: re.re - im.im; p 1: re.im + im.re */
			ValId a = k == 0 ? re[0] : im[0];
			ValId b = p == 0 ? (k == 0 ? re[1] : im[1]) :
			    (k == 0 ? im[1] : re[1]);
			if (!a || !b)
				continue;
			ValId in[2] = {a, b};
			NodeId en = lw_emit(L, "Einsum", 2, in, 1);
			lw_attr_str(L, en, "equation", e);
			ValId t = lw_typed(L, en, dt);
			acc = !acc ? t : lw_op2(L, p == 0 ? "Sub" : "Add", acc,
			    t);
		}
		if (!acc) { /* both real: not a complex einsum */
			return lw_fail(L, "expected a complex operand");
		}
		int64_t ax = r;
		part[p] = lw_axes_op(L, "Unsqueeze", acc, &ax, 1);
	}
	lwf_bind(L, 0, lw_concat(L, part, 2, r, dt));
	return 0;
}

/* roll(self, shifts, dims): per dim a rotation by shift (static size);
 * no dims flattens, which complex programs do not meet (refused) */
static int
roll(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	int r;
	ValId x = cx_arg(L, 0, "self", dt, &r);
	int64_t sh[LW_MAXRANK], dm[LW_MAXRANK], n;
	int ns = lw_ints(L, 1, "shifts", sh, LW_MAXRANK);
	int nd = lw_ints(L, 2, "dims", dm, LW_MAXRANK);
	const Value *sv = lw_srcval(L, 0, "self");
	if (!x || lw_failed(L))
		return -1;
	if (nd <= 0 || ns != nd)
		return lw_fail(L, "expected one shift per dim (roll of the "
		    "flattened complex tensor is not supported)");
	for (int k = 0; k < nd; k++) {
		if (lw_normdim(L, &dm[k], r) < 0)
			return -1;
		if (!lw_sdim(L, sv, (int)dm[k], &n))
			return lw_fail(L, "needs a static size along dim "
			    "%lld", (long long)dm[k]);
		if (n == 0)
			continue;
		int64_t s = ((sh[k] % n) + n) % n;
		if (s == 0)
			continue;
		ValId p[2] = {lw_slice_const(L, x, dm[k], n - s, n, 1),
			lw_slice_const(L, x, dm[k], 0, n - s, 1)};
		x = lw_concat(L, p, 2, dm[k], dt);
	}
	lwf_bind(L, 0, x);
	return 0;
}

/* index_select(self, dim, index): Gather along the logical dim */
static int
index_select(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	int r;
	ValId x = cx_arg(L, 0, "self", dt, &r);
	int64_t d = lw_int(L, 1, "dim", 0);
	ValId i = lw_operand(L, 2, "index", DT_I64);
	if (!x || !i || lw_failed(L) || lw_normdim(L, &d, r) < 0)
		return -1;
	ValId in[2] = {x, i};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", d);
	lwf_bind(L, 0, lw_typed(L, g, dt));
	return 0;
}

/* copy(self, src): src (broadcast) in self's shape and dtype */
static int
copy_(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	int r, rs;
	ValId x = cx_arg(L, 0, "self", dt, &r), s = cx_arg(L, 1, "src", dt,
	    &rs);
	if (!x || !s || lw_failed(L))
		return -1;
	ValId in[2] = {s, lw_shape_range(L, x, 0, r + 1)};
	lwf_bind(L, 0, lw_typed(L, lw_emit(L, "Expand", 2, in, 1), dt));
	return 0;
}

/* mm/bmm/matmul: MatMul part by part, (ar br - ai bi, ar bi + ai br) */
static int
matmul(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	int ra, rb, r = out_rank(L);
	ValId a = cx_arg(L, 0, "self", dt, &ra), b = cx_arg(L, 1, "mat2", dt,
	    &rb);
	if (!a || !b || lw_failed(L) || r < 0)
		return -1;
	if (ra < 2 || rb < 2)
		return lw_fail(L, "complex matrix products of vectors are not "
		    "supported");
	ValId ar = lwf_part(L, a, ra, 0), ai = lwf_part(L, a, ra, 1);
	ValId br = lwf_part(L, b, rb, 0), bi = lwf_part(L, b, rb, 1);
	ValId re = lw_op2(L, "Sub", lw_op2(L, "MatMul", ar, br),
	    lw_op2(L, "MatMul", ai, bi));
	ValId im = lw_op2(L, "Add", lw_op2(L, "MatMul", ar, bi),
	    lw_op2(L, "MatMul", ai, br));
	int64_t ax = r;
	ValId p[2] = {lw_axes_op(L, "Unsqueeze", re, &ax, 1),
		lw_axes_op(L, "Unsqueeze", im, &ax, 1)};
	lwf_bind(L, 0, lw_concat(L, p, 2, r, dt));
	return 0;
}

const LowerRule lw_rules_complex_ops[] = {
	{"aten::copy.default", copy_},
	{"aten::mm.default", matmul},
	{"aten::bmm.default", matmul},
	{"aten::matmul.default", matmul},
	{"aten::full.default", full},
	{"aten::zeros.default", zeros},
	{"aten::zeros_like.default", zeros_like},
	{"aten::ones_like.default", ones_like},
	{"aten::full_like.default", full_like},
	{"aten::slice_scatter.default", slice_scatter},
	{"aten::einsum.default", einsum},
	{"aten::roll.default", roll},
	{"aten::index_select.default", index_select},
	{NULL, NULL},
};
