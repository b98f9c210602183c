/* lower_index_sel.c - lowering rules for selections along a dimension:
 * cummax/cummin, kthvalue, median/nanmedian, mode, and the binary searches
 * searchsorted/bucketize; and the data-dependent sizes of nonzero,
 * argwhere, nonzero_static and masked_select.
 *
 * ONNX has no running maximum, mode or search, so these compare every
 * pair of positions along the dimension (an [n, n] pattern broadcast over
 * the other dims, a constant for a static n) and reduce; the order
 * statistics sort with TopK.  Ties are broken as PyTorch's CPU kernels
 * break them. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lower_index.h"
#include "lower_nn.h"

/* The longest dimension compared pairwise: n*n elements per position of
 * the other dims. */
enum { MAXPAIR = 4096 };

/* The extreme value of dtype dt (max: the largest, else the smallest), as
 * a 0-d constant; 0 after reporting for a dtype without one. */
static ValId
extreme(Lower *L, DType dt, bool max)
{
	if (ir_dtype_is_float(dt))
		return lw_scalar(L, max ? INFINITY : -INFINITY, dt);
	switch (dt) {
	case DT_I64: return lw_scalar_int(L, max ? INT64_MAX : INT64_MIN, dt);
	case DT_I32: return lw_scalar_int(L, max ? INT32_MAX : INT32_MIN, dt);
	case DT_I16: return lw_scalar_int(L, max ? INT16_MAX : INT16_MIN, dt);
	case DT_I8: return lw_scalar_int(L, max ? INT8_MAX : INT8_MIN, dt);
	case DT_U8: return lw_scalar_int(L, max ? UINT8_MAX : 0, dt);
	default:
		lw_fail(L, "tensors of this dtype are not supported");
		return 0;
	}
}

static ValId
where(Lower *L, ValId c, ValId a, ValId b)
{
	return lw_typed(L, lw_emit(L, "Where", 3, (ValId[]){c, a, b}, 1),
	    lw_dtype(L, a));
}

/* axes as an input from opset 18, an attribute before (lwn_reduce) */
static ValId
reduce(Lower *L, const char *op, ValId x, int64_t axis, bool keep)
{
	return lwn_reduce(L, op, x, &axis, 1, keep);
}

/* Whether the node has an FX output k that is annotated (one that no
 * getitem names is not). */
static bool
used(Lower *L, int k)
{
	return (uint32_t)k < lw_node(L)->nout &&
	    lw_outval(L, k)->kind != VK_UNKNOWN;
}

/* The dimension argument i of self (rank r, static length *n along it,
 * or -1 for a length known at run time only); -1 after reporting.  A 0-d
 * tensor is seen as [1]. */
static int
sel_dim(Lower *L, int i, const char *kw, int64_t dflt, int *r, int64_t *d,
    int64_t *n, ValId *x)
{
	const Value *xv = lw_srcval(L, 0, "self");
	*d = lw_int(L, i, kw, dflt);
	if (!xv || xv->rank < 0)
		return lw_fail(L, "self must be a ranked tensor");
	*r = xv->rank;
	if (lw_failed(L) || lw_normdim(L, d, *r) < 0)
		return -1;
	*x = lw_in(L, 0, "self");
	if (!*x)
		return -1;
	if (*r == 0) {
		*x = lw_axes_op(L, "Unsqueeze", *x, (int64_t[]){0}, 1);
		*n = 1;
		*r = 1;
		return 0;
	}
	if (!lw_sdim(L, xv, (int)*d, n))
		*n = -1;
	return 0;
}

/* x's length n along d as a [1] int64, read at run time when n < 0 */
static ValId
len_of(Lower *L, ValId x, int64_t d, int64_t n)
{
	return n >= 0 ? lw_i64v(L, n) : lwn_shape_of(L, x, d, d + 1);
}

/* A constant of rank 2 + tail: [n, m, 1, ...], filled by f(j, i). */
static ValId
pattern(Lower *L, DType dt, int64_t n, int64_t m, int tail, int kind)
{
	int64_t dims[LW_MAXRANK + 2];
	dims[0] = n;
	dims[1] = m;
	for (int k = 0; k < tail; k++)
		dims[2 + k] = 1;
	size_t cnt = (size_t)(n * m);
	if (dt == DT_BOOL) {
		uint8_t *v = lw_scratch(L, cnt + 1, 1);
		for (int64_t j = 0; j < n; j++)
			for (int64_t i = 0; i < m; i++)
				v[j * m + i] = j <= i;
		return lw_const(L, dt, 2 + tail, dims, v);
	}
	int64_t *v = lw_scratch(L, cnt + 1, sizeof *v);
	for (int64_t j = 0; j < n; j++)
		for (int64_t i = 0; i < m; i++)
			v[j * m + i] = kind ? j : 0;
	return lw_const(L, DT_I64, 2 + tail, dims, v);
}

/* 0..n-1 as [n, 1, ...] with tail 1s: positions along a dim */
static ValId
positions(Lower *L, int64_t n, int tail)
{
	int64_t dims[LW_MAXRANK + 1];
	dims[0] = n;
	for (int k = 0; k < tail; k++)
		dims[1 + k] = 1;
	int64_t *v = lw_scratch(L, (size_t)n + 1, sizeof *v);
	for (int64_t j = 0; j < n; j++)
		v[j] = j;
	return lw_const(L, DT_I64, 1 + tail, dims, v);
}

/* The same positions along dim d of x, its length read at run time */
static ValId
positions_dyn(Lower *L, ValId x, int64_t d, int tail)
{
	ValId len = lw_axes_op(L, "Squeeze", lwn_shape_of(L, x, d, d + 1),
	    (int64_t[]){0}, 1);
	ValId in[3] = {lw_scalar_i64(L, 0), len, lw_scalar_i64(L, 1)};
	ValId p = lw_typed(L, lw_emit(L, "Range", 3, in, 1), DT_I64);
	int64_t ax[LW_MAXRANK + 1];
	for (int k = 0; k < tail; k++)
		ax[k] = 1 + k;
	return tail ? lw_axes_op(L, "Unsqueeze", p, ax, tail) : p;
}

/* Bind values v and indices i, dropping dim d unless keep. */
static void
bind_vi(Lower *L, ValId v, ValId i, int64_t d, bool keep, bool zerod)
{
	if (!keep || zerod) {
		v = lw_axes_op(L, "Squeeze", v, &d, 1);
		i = lw_axes_op(L, "Squeeze", i, &d, 1);
	}
	lw_bind(L, 0, v);
	lw_bind(L, 1, i);
}

/* cummax/cummin(self, dim) -> (values, indices): at i, the extreme of
 * x[..i] and the last position holding it (PyTorch updates on ties).  A
 * NaN wins and stays, its index the last NaN so far, as in ATen's
 * cummax_cummin_helper. */
static int
cum_ext(Lower *L, bool max)
{
	int r;
	int64_t d, n;
	ValId x;
	bool zerod = lw_rank_of(L, 0, "self") == 0;
	if (sel_dim(L, 1, "dim", 0, &r, &d, &n, &x) < 0)
		return -1;
	if (n > MAXPAIR)
		return lw_fail(L, "a dimension of %lld is too long",
		    (long long)n);
	/* bools as int32 (false < true): ONNX Runtime compares and reduces
	 * no bools */
	bool b = lw_dtype(L, x) == DT_BOOL;
	x = lw_cast(L, x, b ? DT_I32 : lw_dtype(L, x));
	DType dt = lw_dtype(L, x);
	ValId fill = extreme(L, dt, !max);
	if (!fill)
		return -1;
	int tail = r - 1 - (int)d;
	ValId isn = 0;
	if (ir_dtype_is_float(dt)) {
		isn = lw_op1(L, "IsNaN", x);
		lw_settype(L, isn, DT_BOOL);
		x = where(L, isn, fill, x);
	}
	ValId xj = lw_axes_op(L, "Unsqueeze", x, (int64_t[]){d + 1}, 1);
	/* j <= i over [n, n, 1...], and j as [n, 1, 1...] */
	ValId jpos = n < 0 ? positions_dyn(L, x, d, tail + 1)
	    : pattern(L, DT_I64, n, 1, tail, 1);
	ValId m = n < 0 ? lw_op2t(L, "LessOrEqual", jpos, lw_axes_op(L,
	    "Unsqueeze", positions_dyn(L, x, d, tail), (int64_t[]){0}, 1),
	    DT_BOOL) : pattern(L, DT_BOOL, n, n, tail, 0);
	ValId v = reduce(L, max ? "ReduceMax" : "ReduceMin",
	    where(L, m, xj, fill), d, false);
	ValId hit = lw_op2(L, "And", m, lw_op2t(L, "Equal", xj,
	    lw_axes_op(L, "Unsqueeze", v, &d, 1), DT_BOOL));
	ValId i = reduce(L, "ReduceMax", where(L, hit, jpos, lw_scalar_i64(L,
	    -1)), d, false);
	if (isn) {
		ValId nj = lw_axes_op(L, "Unsqueeze", isn, (int64_t[]){d + 1},
		    1);
		ValId last = reduce(L, "ReduceMax", where(L, lw_op2(L, "And",
		    m, nj), jpos, lw_scalar_i64(L, -1)), d, false);
		ValId has = lw_op2t(L, "GreaterOrEqual", last, lw_scalar_i64(L,
		    0), DT_BOOL);
		v = where(L, has, lw_scalar(L, NAN, dt), v);
		i = where(L, has, last, i);
	}
	if (zerod) {
		v = lw_axes_op(L, "Squeeze", v, (int64_t[]){0}, 1);
		i = lw_axes_op(L, "Squeeze", i, (int64_t[]){0}, 1);
	}
	lw_bind(L, 0, b ? lw_cast(L, v, DT_BOOL) : v);
	lw_bind(L, 1, i);
	return 0;
}

static int cummax(Lower *L) { return cum_ext(L, true); }
static int cummin(Lower *L) { return cum_ext(L, false); }

/* x sorted ascending along d (TopK of all n, ties in position order):
 * values and indices */
static void
sort_up(Lower *L, ValId x, int64_t d, int64_t n, ValId *v, ValId *i)
{
	/* TopK has no half kernel on ONNX Runtime's CPU (an .ort file gets
	 * no Casts): float32 orders the same */
	DType dt = lw_dtype(L, x);
	if (dt == DT_F16 || dt == DT_BF16)
		x = lw_cast(L, x, DT_F32);
	ValId in[2] = {x, len_of(L, x, d, n)};
	NodeId t = lw_emit(L, "TopK", 2, in, 2);
	lw_attr_int(L, t, "axis", d);
	lw_attr_int(L, t, "largest", 0);
	lw_attr_int(L, t, "sorted", 1);
	*v = lw_res(L, t, 0);
	*i = lw_res(L, t, 1);
	lw_settype(L, *v, lw_dtype(L, x));
	lw_settype(L, *i, DT_I64);
	*v = lw_cast(L, *v, dt);
}

static ValId
gather_el(Lower *L, ValId x, ValId i, int64_t d)
{
	NodeId g = lw_emit(L, "GatherElements", 2, (ValId[]){x, i}, 1);
	lw_attr_int(L, g, "axis", d);
	return lw_typed(L, g, lw_dtype(L, x));
}

/* The k-th smallest (1-based k, static; 0: the lower median of a length
 * n known at run time only) along d, kept as a dim of 1; nan: NaNs are
 * left out (nanmedian, k from their count), else a NaN wins (median: the
 * first NaN) */
static void
kth(Lower *L, ValId x, int64_t d, int64_t n, int64_t k, int nan, ValId *v,
    ValId *i)
{
	DType dt = lw_dtype(L, x);
	bool fl = ir_dtype_is_float(dt) && nan >= 0;
	ValId isnan = fl ? lw_op1(L, "IsNaN", x) : 0;
	if (isnan) {
		lw_settype(L, isnan, DT_BOOL);
		ValId xs = where(L, isnan, lw_scalar(L, INFINITY, dt), x), sv;
		sort_up(L, xs, d, n, &sv, i);
	} else {
		ValId sv;
		sort_up(L, x, d, n, &sv, i);
	}
	ValId pos = 0;
	if (nan == 1 && isnan) {
		/* (count of non-NaN - 1) / 2, 0 for none */
		ValId c = reduce(L, "ReduceSum", lw_cast(L, lw_op1(L, "Not",
		    isnan), DT_I64), d, true);
		pos = lw_op2(L, "Max", lw_op2(L, "Div", lw_op2(L, "Sub", c,
		    lw_scalar_i64(L, 1)), lw_scalar_i64(L, 2)),
		    lw_scalar_i64(L, 0));
	}
	if (pos) {
		*i = gather_el(L, *i, pos, d);
	} else if (k == 0) {
		ValId p = lw_op2(L, "Div", lw_op2(L, "Sub", len_of(L, x, d, n),
		    lw_i64v(L, 1)), lw_i64v(L, 2));
		*i = lw_slice(L, *i, p, lw_op2(L, "Add", p, lw_i64v(L, 1)), &d,
		    1, 0);
	} else {
		*i = lw_slice_const(L, *i, d, k - 1, k, 1);
	}
	*v = gather_el(L, x, *i, d);
	if (nan == 0 && isnan) {
		ValId ni = lw_cast(L, isnan, DT_I32);
		NodeId am = lw_emit(L, "ArgMax", 1, &ni, 1);
		lw_attr_int(L, am, "axis", d);
		lw_attr_int(L, am, "keepdims", 1);
		ValId any = lw_op2t(L, "Greater", reduce(L, "ReduceMax", ni, d,
		    true), lw_scalar(L, 0, DT_I32), DT_BOOL);
		*i = where(L, any, lw_typed(L, am, DT_I64), *i);
		*v = gather_el(L, x, *i, d);
	}
}

/* kthvalue(self, k, dim=-1, keepdim=False) */
static int
kthvalue(Lower *L)
{
	int r;
	int64_t d, n, k = lw_int(L, 1, "k", 1);
	ValId x, v, i;
	bool zerod = lw_rank_of(L, 0, "self") == 0;
	if (sel_dim(L, 2, "dim", -1, &r, &d, &n, &x) < 0)
		return -1;
	/* past a length known at run time only: ONNX Runtime's Slice gives
	 * an empty result where PyTorch raises */
	if (k < 1 || (n >= 0 && k > n))
		return lw_fail(L, "kthvalue(): selected number k out of range "
		    "for dimension %lld", (long long)d);
	kth(L, x, d, n, k, -1, &v, &i);
	bind_vi(L, v, i, d, lw_bool(L, 3, "keepdim", false), zerod);
	return 0;
}

/* median/nanmedian.dim(self, dim, keepdim=False): the lower median,
 * PyTorch's ((n-1)/2-th smallest) */
static int
median_dim(Lower *L, bool nan)
{
	int r;
	int64_t d, n;
	ValId x, v, i;
	bool zerod = lw_rank_of(L, 0, "self") == 0;
	if (sel_dim(L, 1, "dim", 0, &r, &d, &n, &x) < 0)
		return -1;
	if (n == 0)
		return lw_fail(L, "median of an empty dimension");
	kth(L, x, d, n, n < 0 ? 0 : (n - 1) / 2 + 1, nan, &v, &i);
	bind_vi(L, v, i, d, lw_bool(L, 2, "keepdim", false), zerod);
	return 0;
}

static int median_d(Lower *L) { return median_dim(L, false); }
static int nanmedian_d(Lower *L) { return median_dim(L, true); }

/* median/nanmedian.default(self): of all elements, a 0-d value */
static int
median_all(Lower *L, bool nan)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t n = 1, e;
	if (!xv || xv->rank < 0)
		return lw_fail(L, "self must be a ranked tensor");
	for (int k = 0; k < xv->rank && n >= 0; k++)
		n = lw_sdim(L, xv, k, &e) ? n * e : -1;
	if (n == 0)
		return lw_fail(L, "median of an empty tensor");
	ValId x = lw_in(L, 0, "self"), v, i;
	if (!x)
		return -1;
	x = lw_reshape(L, x, lw_i64v(L, -1));
	kth(L, x, 0, n, n < 0 ? 0 : (n - 1) / 2 + 1, nan, &v, &i);
	lw_bind(L, 0, lw_axes_op(L, "Squeeze", v, (int64_t[]){0}, 1));
	return 0;
}

static int median_a(Lower *L) { return median_all(L, false); }
static int nanmedian_a(Lower *L) { return median_all(L, true); }

/* mode(self, dim=-1, keepdim=False): the most frequent value, the
 * smallest of equally frequent ones, and its last position */
static int
mode(Lower *L)
{
	int r;
	int64_t d, n;
	ValId x;
	bool zerod = lw_rank_of(L, 0, "self") == 0;
	if (sel_dim(L, 1, "dim", -1, &r, &d, &n, &x) < 0)
		return -1;
	if (n > MAXPAIR)
		return lw_fail(L, "a dimension of %lld is too long",
		    (long long)n);
	bool b = lw_dtype(L, x) == DT_BOOL;  /* as int32, as cum_ext */
	x = lw_cast(L, x, b ? DT_I32 : lw_dtype(L, x));
	DType dt = lw_dtype(L, x);
	ValId top = extreme(L, dt, true);
	if (!top)
		return -1;
	ValId xj = lw_axes_op(L, "Unsqueeze", x, (int64_t[]){d + 1}, 1),
	      xi = lw_axes_op(L, "Unsqueeze", x, &d, 1);
	ValId cnt = reduce(L, "ReduceSum", lw_cast(L, lw_op2t(L, "Equal", xj,
	    xi, DT_BOOL), DT_I64), d, false);
	ValId most = lw_op2t(L, "Equal", cnt, reduce(L, "ReduceMax", cnt, d,
	    true), DT_BOOL);
	ValId v = reduce(L, "ReduceMin", where(L, most, x, top), d, true);
	ValId at = where(L, lw_op2t(L, "Equal", x, v, DT_BOOL),
	    n < 0 ? positions_dyn(L, x, d, r - 1 - (int)d) : positions(L, n,
	    r - 1 - (int)d), lw_scalar_i64(L, -1));
	ValId i = reduce(L, "ReduceMax", at, d, true);
	if (b)
		v = lw_cast(L, v, DT_BOOL);
	bind_vi(L, v, i, d, lw_bool(L, 2, "keepdim", false), zerod);
	return 0;
}

/* The position each value of v would take in the sorted rows of seq:
 * how many are below it (left) or not above it (right).  seq is 1-D, or
 * holds one row per position of v's leading dims. */
static ValId
search(Lower *L, ValId seq, const Value *qv, ValId v, int vrank,
    bool right, bool i32)
{
	int64_t len;
	if (lw_sdim(L, qv, -1, &len) && len == 0) {
		/* nothing to count (ONNX Runtime's ReduceSum keeps an empty
		 * axis it should drop) */
		ValId shp = lw_op1(L, "Shape", v);
		lw_settype(L, shp, DT_I64);
		return lw_op2(L, "Expand", i32 ? lw_scalar_int(L, 0, DT_I32)
		    : lw_scalar_i64(L, 0), shp);
	}
	ValId vv = lw_axes_op(L, "Unsqueeze", v, (int64_t[]){-1}, 1);
	if (qv->rank > 1)
		seq = lw_axes_op(L, "Unsqueeze", seq, (int64_t[]){-2}, 1);
	(void)vrank;
	ValId c = lw_op2t(L, right ? "LessOrEqual" : "Less", seq, vv, DT_BOOL);
	ValId n = reduce(L, "ReduceSum", lw_cast(L, c, DT_I64), -1, false);
	return i32 ? lw_cast(L, n, DT_I32) : n;
}

/* searchsorted(sorted_sequence, self, *, out_int32=False, right=False,
 * side=None, sorter=None) */
static int
searchsorted(Lower *L)
{
	const Value *qv = lw_srcval(L, 0, "sorted_sequence"),
		    *sv = lw_srcval(L, 1, "self");
	bool right = lw_bool(L, -1, "right", false);
	const Arg *side = lw_arg(L, -1, "side");
	if (side && side->kind == A_STR) {
		const char *s = ir_str(L->m, side->u.s);
		if (right && !strcmp(s, "left"))
			return lw_fail(L, "side and right can't be set to "
			    "opposites");
		right = !strcmp(s, "right");
	}
	if (!qv || qv->rank < 1)
		return lw_fail(L, "sorted_sequence must be a tensor of rank "
		    ">= 1");
	int vr = sv ? sv->rank : 0;
	if (qv->rank > 1 && vr != qv->rank)
		return lw_fail(L, "boundaries and input must have the same "
		    "leading dimensions");
	DType dt = lw_promote(L, 0, "sorted_sequence", 1, "self");
	ValId seq = lw_operand(L, 0, "sorted_sequence", dt),
	      v = lw_operand(L, 1, "self", dt);
	bool err = false;
	ValId sorter = lw_has(L, -1, "sorter") ? lw_in(L, -1, "sorter") : 0;
	if (lw_has(L, -1, "sorter") && !sorter)
		err = true;
	if (!seq || !v || err)
		return -1;
	if (sorter) {
		NodeId g = lw_emit(L, "GatherElements", 2, (ValId[]){seq,
		    lw_cast(L, sorter, DT_I64)}, 1);
		lw_attr_int(L, g, "axis", -1);
		seq = lw_typed(L, g, dt);
	}
	lw_bind(L, 0, search(L, seq, qv, v, vr, right, lw_bool(L, -1,
	    "out_int32", false)));
	return 0;
}

/* bucketize(self, boundaries, *, out_int32=False, right=False): a search
 * in 1-D boundaries */
static int
bucketize(Lower *L)
{
	const Value *qv = lw_srcval(L, 1, "boundaries"),
		    *sv = lw_srcval(L, 0, "self");
	if (!qv || qv->rank != 1)
		return lw_fail(L, "boundaries tensor must be 1 dimension");
	DType dt = lw_promote(L, 0, "self", 1, "boundaries");
	ValId seq = lw_operand(L, 1, "boundaries", dt),
	      v = lw_operand(L, 0, "self", dt);
	if (!seq || !v)
		return -1;
	lw_bind(L, 0, search(L, seq, qv, v, sv ? sv->rank : 0, lw_bool(L, -1,
	    "right", false), lw_bool(L, -1, "out_int32", false)));
	return 0;
}

/* ------------------------------------------------ data-dependent sizes */

/* The positions of the non-zero elements of x, [count, rank]
 * (ONNX NonZero, transposed); a 0-d x has rank 0 columns. */
static ValId
nonzero_rows(Lower *L, ValId x, int r)
{
	x = lw_cast(L, x, DT_BOOL);
	if (r == 0)
		x = lw_reshape(L, x, lw_i64v(L, 1));
	ValId nz = lw_typed(L, lw_emit(L, "NonZero", 1, &x, 1), DT_I64);
	nz = lw_transpose(L, nz, (int64_t[]){1, 0}, 2);
	if (r == 0)
		nz = lw_slice_const(L, nz, 1, 0, 0, 1);
	return nz;
}

/* nonzero(self), argwhere(self) */
static int
nonzero(Lower *L)
{
	int r = lw_rank_of(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	if (r < 0 || !x)
		return -1;
	lw_bind(L, 0, nonzero_rows(L, x, r));
	return 0;
}

/* nonzero_numpy(self): nonzero(as_tuple=True), one 1-D tensor of
 * positions per dim (a 0-d self counts as 1-D) */
static int
nonzero_numpy(Lower *L)
{
	int r = lw_rank_of(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	if (r < 0 || !x)
		return -1;
	x = lw_cast(L, x, DT_BOOL);
	if (r == 0)
		x = lw_reshape(L, x, lw_i64v(L, 1));
	ValId nz = lw_typed(L, lw_emit(L, "NonZero", 1, &x, 1), DT_I64);
	for (uint32_t k = 0; k < lw_node(L)->nout; k++) {
		if (!used(L, (int)k))
			continue;
		if ((int)k >= (r ? r : 1))
			return lw_fail(L, "output %u of a rank %d tensor", k, r);
		NodeId g = lw_emit(L, "Gather", 2, (ValId[]){nz,
		    lw_scalar_i64(L, k)}, 1);
		lw_attr_int(L, g, "axis", 0);
		lw_bind(L, (int)k, lw_typed(L, g, DT_I64));
	}
	return 0;
}

/* nonzero_static(self, *, size, fill_value=-1): the first size rows of
 * nonzero, rows of fill_value after them */
static int
nonzero_static(Lower *L)
{
	int r = lw_rank_of(L, 0, "self");
	int64_t size = lw_int(L, -1, "size", 0), fill = lw_int(L, -1,
	    "fill_value", -1);
	ValId x = lw_in(L, 0, "self");
	if (r < 0 || !x || lw_failed(L))
		return -1;
	if (size < 0)
		return lw_fail(L, "nonzero_static: 'size' must be an "
		    "non-negative integer");
	int64_t dims[2] = {size, r == 0 ? 0 : r};
	ValId pad = lw_op2(L, "Expand", lw_scalar_i64(L, fill),
	    lw_const_i64s(L, dims, 2));
	ValId parts[2] = {nonzero_rows(L, x, r), pad};
	ValId all = lw_concat(L, parts, 2, 0, DT_I64);
	lw_bind(L, 0, lw_slice_const(L, all, 0, 0, size, 1));
	return 0;
}

/* masked_select(self, mask): the elements of self (broadcast with mask)
 * where mask is true, in order, 1-D */
static int
masked_select(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), m = lw_in(L, 1, "mask");
	if (!x || !m)
		return -1;
	m = lw_cast(L, m, DT_BOOL);
	ValId ms = lw_op1(L, "Shape", m);
	lw_settype(L, ms, DT_I64);
	x = lw_op2(L, "Expand", x, ms);
	ValId xs = lw_op1(L, "Shape", x);
	lw_settype(L, xs, DT_I64);
	m = lw_op2(L, "Expand", m, xs);
	ValId in[2] = {lw_reshape(L, x, lw_i64v(L, -1)),
	    lw_reshape(L, m, lw_i64v(L, -1))};
	NodeId c = lw_emit(L, "Compress", 2, in, 1);
	lw_attr_int(L, c, "axis", 0);
	lw_bind(L, 0, lw_typed(L, c, lw_dtype(L, x)));
	return 0;
}

/* An empty INT64 tensor [0]: what PyTorch returns for an output it was
 * not asked for. */
static ValId
empty_i64(Lower *L)
{
	int64_t zero = 0;
	return lw_const(L, DT_I64, 1, &zero, NULL);
}

/* The distinct elements of x flattened (axis < 0), or its distinct slices
 * along axis, as ONNX Unique sorts them, which is how PyTorch's CPU kernels
 * sort whatever `sorted` says; the inverse (in x's shape when flattened)
 * and the counts bound where asked, else empty.  Half precision is
 * compared as float, bools and integers as int64 (order kept: false,
 * true as 0, 1). */
static int
unique_of(Lower *L, ValId x, int64_t axis, bool inv, bool cnt)
{
	DType dt = lw_dtype(L, x), wt = dt;
	if (dt == DT_F16 || dt == DT_BF16)
		wt = DT_F32;
	else if ((ir_dtype_is_int(dt) && dt != DT_I8) || dt == DT_BOOL)
		wt = DT_I64;
	else if (dt != DT_F32 && dt != DT_F64 && dt != DT_I8)
		return lw_fail(L, "unique of this dtype is not supported");
	ValId w = lw_cast(L, x, wt);
	if (axis < 0)
		w = lw_reshape(L, w, lw_i64v(L, -1));
	NodeId u = lw_emit(L, "Unique", 1, &w, 4);
	lw_attr_int(L, u, "sorted", 1);
	if (axis >= 0)
		lw_attr_int(L, u, "axis", axis);
	ValId y = lw_res(L, u, 0), r[3], iv = lw_res(L, u, 2), shp = 0;
	lw_settype(L, y, wt);
	for (int k = 1; k < 4; k++)
		lw_settype(L, lw_res(L, u, k), DT_I64);
	if (axis < 0) {
		shp = lw_op1(L, "Shape", x);
		lw_settype(L, shp, DT_I64);
	}
	r[0] = lw_cast(L, y, dt);
	r[1] = !inv ? empty_i64(L) : shp ? lw_reshape(L, iv, shp) : iv;
	r[2] = cnt ? lw_res(L, u, 3) : empty_i64(L);
	for (int k = 0; k < 3; k++)
		if (k == 0 || used(L, k))
			lw_bind(L, k, r[k]);
	return 0;
}

/* _unique2(self, sorted=True, return_inverse=False, return_counts=False) */
static int
unique2(Lower *L)
{
	bool inv = lw_bool(L, 2, "return_inverse", false),
	     cnt = lw_bool(L, 3, "return_counts", false);
	ValId x = lw_in(L, 0, "self");
	if (!x || lw_failed(L))
		return -1;
	return unique_of(L, x, -1, inv, cnt);
}

/* unique_dim(self, dim, sorted=True, return_inverse=False,
 * return_counts=False): the distinct slices along dim */
static int
unique_dim(Lower *L)
{
	int64_t d = lw_int(L, 1, "dim", 0);
	bool inv = lw_bool(L, 3, "return_inverse", false),
	     cnt = lw_bool(L, 4, "return_counts", false);
	ValId x = lw_in(L, 0, "self");
	if (!x || lw_failed(L))
		return -1;
	int R = ir_val(L->dst, x)->rank;
	int64_t a = d < 0 ? d + R : d;
	if (R < 1 || a < 0 || a >= R)
		return lw_fail(L, "unique_dim: dim %lld is out of range for a "
		    "tensor of rank %d", (long long)d, R);
	return unique_of(L, x, a, inv, cnt);
}

/* unique_consecutive(self, return_inverse=False, return_counts=False,
 * dim=None): of each run of equal elements (self flattened), or of equal
 * slices along dim, the first; a run starts where an element (a slice)
 * differs from the one before it.  NaNs differ, as in PyTorch. */
static int
unique_consecutive(Lower *L)
{
	bool inv = lw_bool(L, 1, "return_inverse", false),
	     cnt = lw_bool(L, 2, "return_counts", false);
	int64_t d = 0;
	bool along = lw_has(L, 3, "dim");
	if (along)
		d = lw_int(L, 3, "dim", 0);
	ValId x = lw_in(L, 0, "self");
	if (!x || lw_failed(L))
		return -1;
	DType dt = lw_dtype(L, x);
	int R = along ? ir_val(L->dst, x)->rank : 1;
	d += d < 0 ? R : 0;
	if (along && (R < 1 || d < 0 || d >= R))
		return lw_fail(L, "unique_consecutive: dim %lld is out of range "
		    "for a tensor of rank %d", (long long)lw_int(L, 3, "dim",
		    0), R);
	ValId f = along ? x : lw_reshape(L, x, lw_i64v(L, -1));
	/* true for the first element or slice (none when there is none) */
	ValId s0 = lwn_shape_of(L, lw_slice_const(L, f, d, 0, 1, 1), d, d + 1);
	ValId first = lw_op2(L, "Expand", lw_scalar(L, 1, DT_BOOL), s0);
	ValId diff = lw_op1(L, "Not", lw_op2t(L, "Equal",
	    lw_slice_const(L, f, d, 1, INT64_MAX, 1),
	    lw_slice_const(L, f, d, 0, -1, 1), DT_BOOL));
	if (R > 1) {  /* a slice differs where any element does */
		int64_t axes[8];
		int n = 0;
		for (int k = 0; k < R && n < 8; k++)
			if (k != d)
				axes[n++] = k;
		diff = lwn_reduce(L, "ReduceSum", lw_cast(L, diff, DT_I64),
		    axes, n, false);
		diff = lw_op2t(L, "Greater", diff, lw_scalar_i64(L, 0),
		    DT_BOOL);
	}
	ValId starts[2] = {first, diff};
	ValId m = lw_concat(L, starts, 2, 0, DT_BOOL);
	NodeId c = lw_emit(L, "Compress", 2, (ValId[]){f, m}, 1);
	lw_attr_int(L, c, "axis", d);
	lw_bind(L, 0, lw_typed(L, c, dt));
	if (used(L, 1)) {
		ValId run = lw_op2(L, "CumSum", lw_cast(L, m, DT_I64),
		    lw_scalar_i64(L, 0));
		run = lw_op2(L, "Sub", run, lw_scalar_i64(L, 1));
		if (!along) {
			ValId shp = lw_op1(L, "Shape", x);
			lw_settype(L, shp, DT_I64);
			run = lw_reshape(L, run, shp);
		}
		lw_bind(L, 1, inv ? run : empty_i64(L));
	}
	if (used(L, 2)) {
		/* run lengths: the next start less this one */
		ValId at = lw_typed(L, lw_emit(L, "NonZero", 1, &m, 1),
		    DT_I64);
		at = lw_reshape(L, at, lw_i64v(L, -1));
		ValId n = lwn_shape_of(L, f, d, d + 1);
		ValId ends[2] = {lw_slice_const(L, at, 0, 1, INT64_MAX, 1), n};
		ValId len = lw_op2(L, "Sub", lw_concat(L, ends, 2, 0, DT_I64),
		    at);
		lw_bind(L, 2, cnt ? len : empty_i64(L));
	}
	return 0;
}

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_index_sel LW_THIS
const LowerRule lw_rules_index_sel[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
