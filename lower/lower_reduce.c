/* lower_reduce.c - lowering rules for reductions, softmax, top-k/sort and
 * the reductions that return indices; variance, norms, any/all and scans
 * are in lower_reduce_norm.c.
 *
 * The ONNX reductions take their axes as an attribute before opset 18 and
 * as an input from 18 on (ReduceSum: an input since 13); reduce() hides the
 * difference.  A reduction over every axis leaves the axes out, which keeps
 * it independent of the rank and of dynamic sizes.
 *
 * ONNX Runtime's CPU kernels cover few element types (sums f32/f64/i32/i64,
 * means f32/f64, arg-reductions f32/f64/i32 ...): other types are computed
 * in a covered one and cast back.  f16/bf16 compute in f32 like torch's
 * accumulation.  The FX annotation of each output decides its final dtype.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lower_reduce.h"

ValId
lwr_op1t(Lower *L, const char *op, ValId x, DType dt)
{
	NodeId n = lw_emit(L, op, 1, &x, 1);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, dt);
	return r;
}

static ValId
where(Lower *L, ValId c, ValId a, ValId b)
{
	NodeId n = lw_emit(L, "Where", 3, (ValId[]){c, a, b}, 1);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, lw_dtype(L, a));
	return r;
}

/* dtype FX output k is annotated with, or dflt when it has none */
DType
lwr_outdt(Lower *L, int k, DType dflt)
{
	const Value *v = lw_outval(L, k);
	return v->kind == VK_TENSOR && v->dtype ? (DType)v->dtype : dflt;
}

bool
lwr_has_out(Lower *L, int k)
{
	return (uint32_t)k < lw_node(L)->nout;
}

/* Element type sums, products, extrema and scans compute in. */
DType
lwr_acc_type(DType dt)
{
	switch (dt) {
	case DT_F32:
	case DT_F64:
	case DT_I32:
	case DT_I64:
		return dt;
	case DT_F16:
	case DT_BF16:
		return DT_F32;
	default:
		return DT_I64; /* bool and the small integers */
	}
}

/* Element type for ops with float kernels only (means, norms, softmax). */
DType
lwr_float_type(DType dt)
{
	return dt == DT_F64 ? DT_F64 : DT_F32;
}

/* Element type ArgMax/ArgMin/TopK compare in: exact for every input up
 * to int64 values beyond 2**53. */
static DType
cmp_type(DType dt)
{
	switch (dt) {
	case DT_F32:
	case DT_F64:
	case DT_I32:
		return dt;
	case DT_F16:
	case DT_BF16:
		return DT_F32;
	case DT_I64:
	case DT_U32:
		return DT_F64;
	default:
		return DT_I32;
	}
}

/* Reads a dim or dim-list argument: absent, None and [] mean every axis
 * (as for torch's sum, mean, amax ...).  Returns -1 after reporting. */
int
lwr_read_axes(Lower *L, int i, const char *kw, const Value *sv, Axes *ax)
{
	int n = lw_ints(L, i, kw, ax->v, MAXAXES);
	if (lw_failed(L))
		return -1;
	ax->rank = sv->rank;
	ax->cst = 0;
	ax->n = n <= 0 ? -1 : n;
	for (int k = 0; k < n; k++) {
		int64_t d = ax->v[k], r = sv->rank;
		if (r < 0)
			continue; /* ONNX takes negative axes as they are */
		/* a 0-d tensor accepts dim 0 and -1 */
		int64_t lim = r ? r : 1;
		if (d < -lim || d >= lim)
			return lw_fail(L, "dim %lld is out of range for a "
			    "tensor of rank %lld", (long long)d, (long long)r);
		ax->v[k] = d < 0 ? d + lim : d;
		for (int j = 0; j < k; j++)
			if (ax->v[j] == ax->v[k])
				return lw_fail(L, "dim %lld appears twice",
				    (long long)d);
	}
	if (ax->rank == 0)
		ax->n = -1;
	return 0;
}

/* A single dim argument normalised against rank; *d stays dflt if absent.
 * Returns -1 after reporting. */
int
lwr_read_dim(Lower *L, int i, const char *kw, const Value *sv, int64_t dflt,
    int64_t *d)
{
	*d = lw_int(L, i, kw, dflt);
	if (lw_failed(L))
		return -1;
	int64_t r = sv->rank, lim = r > 0 ? r : 1;
	if (r < 0)
		return lw_fail(L, "the input's rank is unknown");
	if (*d < -lim || *d >= lim)
		return lw_fail(L, "dim %lld is out of range for a tensor of "
		    "rank %lld", (long long)*d, (long long)r);
	if (*d < 0)
		*d += lim;
	return 0;
}

/* ReduceSum of int64 x over ax, exactly and wrapping as PyTorch adds:
 * ONNX Runtime's int64 ReduceSum adds in float64 (wrong above 2^53,
 * saturating), its MatMul in int64.  So the reduced axes go last, become
 * one, and a MatMul with ones sums it. */
static ValId
sum_i64(Lower *L, ValId x, const Axes *ax, bool keep)
{
	int r = ax->rank, nk = 0, nr = 0;
	int64_t perm[MAXAXES], red[MAXAXES];
	bool in[MAXAXES] = {false}, moved = false;
	for (int k = 0; k < (ax->n > 0 ? ax->n : r); k++)
		in[ax->n > 0 ? ax->v[k] : k] = true;
	for (int k = 0; k < r; k++)
		if (!in[k])
			perm[nk++] = k;
	for (int k = 0; k < r; k++)
		if (in[k]) {
			moved |= nk + nr != k;
			red[nr] = k;
			perm[nk + nr++] = k;
		}
	if (moved)
		x = lw_transpose(L, x, perm, r);
	int64_t one = 1;
	Axes all = {.n = 1, .rank = 1, .v = {0}};
	ValId shp[2] = {nk ? lw_shape_range(L, x, 0, nk) : 0, lwr_reduce(L,
	    "ReduceProd", lw_shape_range(L, x, nk, r), &all, true)};
	/* a 0 in the shape is an empty axis, not "copy": allowzero */
	NodeId rn = lw_emit(L, "Reshape", 2, (ValId[]){x, lw_concat_shape(L,
	    shp, 2)}, 1);
	lw_attr_int(L, rn, "allowzero", 1);
	x = lw_typed(L, rn, DT_I64);
	ValId ones = lw_op2(L, "Expand", lw_scalar_i64(L, 1), lw_concat_shape(L,
	    (ValId[]){shp[1], lw_const_i64s(L, &one, 1)}, 2));
	x = lw_axes_op(L, "Squeeze", lw_op2(L, "MatMul", x, ones), (int64_t[]){
	    nk}, 1);
	return keep ? lw_axes_op(L, "Unsqueeze", x, red, nr) : x;
}

/* Whether x is a Cast from bools or 8- or 16-bit integers, whose sums
 * float64 holds exactly (the usual count of a mask). */
static bool
narrow_cast(Lower *L, ValId x)
{
	const Value *v = ir_val(L->dst, x);
	if (!v->def || strcmp(ir_str(L->m, ir_nodep(L->dst, v->def)->op),
	    "Cast"))
		return false;
	const Arg *a = ir_arg(L->dst, v->def, 0);
	if (a->kind != A_VAL)
		return false;
	DType dt = (DType)ir_val(L->dst, a->u.v)->dtype;
	return dt == DT_BOOL || (ir_dtype_is_int(dt) && ir_dtype_size(dt) <= 2);
}

/* An ONNX Reduce* over ax.  On a 0-d input every reduction is the identity
 * (L1/L2: the magnitude), which torch allows and ONNX leaves vague. */
ValId
lwr_reduce(Lower *L, const char *op, ValId x, Axes *ax, bool keep)
{
	if (ax->rank == 0) {
		if (!strcmp(op, "ReduceL1") || !strcmp(op, "ReduceL2"))
			return lw_op1(L, "Abs", x);
		return x;
	}
	if (!strcmp(op, "ReduceSum") && lw_dtype(L, x) == DT_I64 &&
	    ax->rank > 0 && ax->rank <= MAXAXES && !narrow_cast(L, x))
		return sum_i64(L, x, ax, keep);
	bool as_attr = L->opset < 18 && strcmp(op, "ReduceSum") != 0;
	ValId in[2] = {x, 0};
	if (ax->n > 0 && !as_attr) {
		if (!ax->cst)
			ax->cst = lw_const_i64s(L, ax->v, ax->n);
		in[1] = ax->cst;
	}
	NodeId n = lw_emit(L, op, in[1] ? 2 : 1, in, 1);
	if (ax->n > 0 && as_attr)
		lw_attr_ints(L, n, "axes", ax->v, ax->n);
	lw_attr_int(L, n, "keepdims", keep);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, lw_dtype(L, x));
	return r;
}

/* The input, cast to the dtype argument first when there is one (torch
 * converts before reducing), then to the compute type ct.  dti is the
 * dtype's position, -1 where it is keyword-only. */
ValId
lwr_input_as(Lower *L, int dti, DType ct)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return 0;
	DType dt = lw_dtype_arg(L, dti, "dtype");
	if (lw_failed(L))
		return 0;
	if (dt)
		x = lw_cast(L, x, dt);
	return lw_cast(L, x, ct);
}

/* ------------------------------------------------------ plain reductions */

/* Shared by sum/mean/prod/amax/amin/max/min: dimi < 0 means "all axes",
 * keepi < 0 means keepdim=False. */
static int
simple(Lower *L, const char *op, DType (*ctype)(DType), int dimi,
    const char *dimkw, int keepi)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv || sv->kind != VK_TENSOR)
		return lw_fail(L, "argument 'self' must be a tensor");
	Axes ax = {.n = -1, .rank = sv->rank};
	if (dimi >= 0 && lwr_read_axes(L, dimi, dimkw, sv, &ax) < 0)
		return -1;
	bool keep = keepi >= 0 && lw_bool(L, keepi, "keepdim", false);
	if (lw_failed(L))
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype);
	ValId x = lwr_input_as(L, -1, ctype(od));
	if (!x)
		return -1;
	lw_bind(L, 0, lw_cast(L, lwr_reduce(L, op, x, &ax, keep), od));
	return 0;
}

/* sum.default(self, *, dtype) */
static int
sum_all(Lower *L)
{
	return simple(L, "ReduceSum", lwr_acc_type, -1, NULL, -1);
}

/* sum.dim_IntList(self, dim, keepdim=False, *, dtype) */
static int
sum_dim(Lower *L)
{
	return simple(L, "ReduceSum", lwr_acc_type, 1, "dim", 2);
}

/* mean over dim (dimi < 0: every axis), as simple does; NaN over zero
 * elements (lwr_mean) */
static int
mean_of(Lower *L, int dimi, int keepi)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv || sv->kind != VK_TENSOR)
		return lw_fail(L, "argument 'self' must be a tensor");
	Axes ax = {.n = -1, .rank = sv->rank};
	if (dimi >= 0 && lwr_read_axes(L, dimi, "dim", sv, &ax) < 0)
		return -1;
	bool keep = keepi >= 0 && lw_bool(L, keepi, "keepdim", false);
	if (lw_failed(L))
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype);
	ValId x = lwr_input_as(L, -1, lwr_float_type(od));
	if (!x)
		return -1;
	ValId m = sv->rank == 0 ? x : lwr_mean(L, sv, x, &ax, keep);
	lw_bind(L, 0, lw_cast(L, m, od));
	return 0;
}

static int
mean_all(Lower *L)
{
	return mean_of(L, -1, -1);
}

/* mean.dim(self, dim, keepdim=False, *, dtype) */
static int
mean_dim(Lower *L)
{
	return mean_of(L, 1, 2);
}

static int
prod_all(Lower *L)
{
	return simple(L, "ReduceProd", lwr_acc_type, -1, NULL, -1);
}

/* prod.dim_int(self, dim, keepdim=False, *, dtype) */
static int
prod_dim(Lower *L)
{
	return simple(L, "ReduceProd", lwr_acc_type, 1, "dim", 2);
}

/* amax(self, dim=[], keepdim=False): [] reduces every axis */
static int
amax(Lower *L)
{
	return simple(L, "ReduceMax", lwr_acc_type, 1, "dim", 2);
}

static int
amin(Lower *L)
{
	return simple(L, "ReduceMin", lwr_acc_type, 1, "dim", 2);
}

static int
max_all(Lower *L)
{
	return simple(L, "ReduceMax", lwr_acc_type, -1, NULL, -1);
}

static int
min_all(Lower *L)
{
	return simple(L, "ReduceMin", lwr_acc_type, -1, NULL, -1);
}

/* ----------------------------------------------- reductions with indices */

/* ArgMax/ArgMin along one axis; ties give the first index, as in torch. */
static ValId
argred(Lower *L, const char *op, ValId x, int64_t axis, bool keep)
{
	x = lw_cast(L, x, cmp_type(lw_dtype(L, x)));
	NodeId n = lw_emit(L, op, 1, &x, 1);
	lw_attr_int(L, n, "axis", axis);
	lw_attr_int(L, n, "keepdims", keep);
	lw_attr_int(L, n, "select_last_index", 0);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, DT_I64);
	return r;
}

/* max.dim / min.dim(self, dim, keepdim=False) -> (values, indices) */
static int
extreme_dim(Lower *L, bool ismax)
{
	const Value *sv = lw_srcval(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	int64_t d;
	if (!x || lwr_read_dim(L, 1, "dim", sv, 0, &d) < 0)
		return -1;
	bool keep = lw_bool(L, 2, "keepdim", false);
	if (lw_failed(L))
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype);
	Axes ax = {.n = 1, .rank = sv->rank, .v = {d}};
	ValId xc = lw_cast(L, x, lwr_acc_type(od));
	lw_bind(L, 0,
	    lw_cast(L, lwr_reduce(L, ismax ? "ReduceMax" : "ReduceMin",
	    xc, &ax, keep), od));
	if (!lwr_has_out(L, 1))
		return 0;
	if (sv->rank == 0)
		lw_bind(L, 1, lw_scalar_i64(L, 0));
	else
		lw_bind(L, 1, argred(L, ismax ? "ArgMax" : "ArgMin", x, d,
		    keep));
	return 0;
}

static int
max_dim(Lower *L)
{
	return extreme_dim(L, true);
}

static int
min_dim(Lower *L)
{
	return extreme_dim(L, false);
}

/* argmax / argmin(self, dim=None, keepdim=False); dim None searches the
 * flattened tensor */
static int
arg_extreme(Lower *L, const char *op)
{
	const Value *sv = lw_srcval(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	bool keep = lw_bool(L, 2, "keepdim", false);
	if (lw_failed(L))
		return -1;
	if (sv->rank == 0) {
		lw_bind(L, 0, lw_scalar_i64(L, 0));
		return 0;
	}
	if (lw_has(L, 1, "dim")) {
		int64_t d;
		if (lwr_read_dim(L, 1, "dim", sv, 0, &d) < 0)
			return -1;
		lw_bind(L, 0, argred(L, op, x, d, keep));
		return 0;
	}
	if (sv->rank < 0)
		return lw_fail(L, "the input's rank is unknown");
	ValId flat = lw_op2(L, "Reshape", x, lw_const_i64s(L,
	    (int64_t[]){-1}, 1));
	ValId r = argred(L, op, flat, 0, false);
	if (keep) { /* torch keeps every dim as 1 */
		int64_t ones[MAXAXES];
		if (sv->rank > MAXAXES)
			return lw_fail(L, "rank %d is too large", sv->rank);
		for (int k = 0; k < sv->rank; k++)
			ones[k] = 1;
		r = lw_op2(L, "Reshape", r, lw_const_i64s(L, ones, sv->rank));
	}
	lw_bind(L, 0, r);
	return 0;
}

static int
argmax(Lower *L)
{
	return arg_extreme(L, "ArgMax");
}

static int
argmin(Lower *L)
{
	return arg_extreme(L, "ArgMin");
}

/* logsumexp(self, dim, keepdim=False): max-subtracted like torch, with an
 * infinite maximum replaced by 0 so all -inf rows give -inf, not NaN.
 * float16/bfloat16 round as ATen's logsumexp_out_impl does, each of its
 * tensor ops in the half type (x - max, exp, the float-accumulated sum,
 * log, + max); core ATen's decomposition upcasts instead, which the
 * float path already is */
static int
logsumexp(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv)
		return lw_fail(L, "argument 'self' must be a tensor");
	Axes ax = {0};
	if (lwr_read_axes(L, 1, "dim", sv, &ax) < 0)
		return -1;
	bool keep = lw_bool(L, 2, "keepdim", false);
	if (lw_failed(L))
		return -1;
	DType od = lwr_outdt(L, 0, DT_F32), ct = lwr_float_type(od);
	ValId x = lwr_input_as(L, -1, ct);
	if (!x)
		return -1;
	if (sv->rank == 0) {
		lw_bind(L, 0, lw_cast(L, x, od));
		return 0;
	}
	DType h = od == DT_F16 || od == DT_BF16 ? od : DT_UNDEF;
#define HALF(v) (h ? lw_rounded(L, (v), h) : (v))
	ValId m = lwr_reduce(L, "ReduceMax", x, &ax, true);
	m = where(L, lwr_op1t(L, "IsInf", m, DT_BOOL), lw_scalar(L, 0, ct), m);
	ValId e = HALF(lw_op1(L, "Exp", HALF(lw_op2(L, "Sub", x, m))));
	ValId s = HALF(lw_op1(L, "Log", HALF(lwr_reduce(L, "ReduceSum", e, &ax,
	    keep))));
#undef HALF
	if (!keep) { /* drop the reduced dims of m too */
		if (ax.n > 0 && !ax.cst)
			ax.cst = lw_const_i64s(L, ax.v, ax.n);
		ValId in[2] = {m, ax.n > 0 ? ax.cst : 0};
		NodeId n = lw_emit(L, "Squeeze", in[1] ? 2 : 1, in, 1);
		m = lw_res(L, n, 0);
		lw_settype(L, m, ct);
	}
	lw_bind(L, 0, lw_cast(L, lw_op2(L, "Add", s, m), od));
	return 0;
}

/* -------------------------------------------------------------- softmax */

/* log_softmax of half x (as float) along its last dim d as PyTorch's
 * kernel for it rounds: the sum of exp(x - max) and its log are kept in
 * the half type, x - max - log(sum) is computed in float. */
static ValId
log_softmax_half(Lower *L, ValId x, int64_t d, DType ht)
{
	Axes ax = {.n = 1, .rank = (int)d + 1, .v = {d}};
	ValId m = lwr_reduce(L, "ReduceMax", x, &ax, true);
	ValId xm = lw_op2(L, "Sub", x, m);
	ValId s = lw_rounded(L, lwr_reduce(L, "ReduceSum", lw_op1(L, "Exp", xm),
	    &ax, true), ht);
	return lw_op2(L, "Sub", xm, lw_rounded(L, lw_op1(L, "Log", s), ht));
}

/* Softmax or LogSoftmax along dim.  half_to_float and the dtype kwarg
 * show in the output annotation. */
static int
softmax_common(Lower *L, const char *op, bool dtype_kw)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv)
		return lw_fail(L, "argument 'self' must be a tensor");
	int64_t d;
	if (lwr_read_dim(L, 1, "dim", sv, -1, &d) < 0)
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype), ct = lwr_float_type(od);
	/* the .int overloads take dtype as their third argument */
	ValId x = dtype_kw ? lwr_input_as(L, 2, ct) : lw_in(L, 0, "self");
	if (!x)
		return -1;
	x = lw_cast(L, x, ct);
	ValId r;
	if (sv->rank == 0) { /* one element: softmax 1, log_softmax 0 */
		r = lw_op2(L, "Sub", x, x);
		if (!strcmp(op, "Softmax"))
			r = lw_op1(L, "Exp", r);
	} else if (!strcmp(op, "LogSoftmax") && d == sv->rank - 1 &&
	    (od == DT_F16 || od == DT_BF16) && od == (DType)sv->dtype) {
		r = log_softmax_half(L, x, d, od);
	} else {
		NodeId n = lw_emit(L, op, 1, &x, 1);
		lw_attr_int(L, n, "axis", d);
		r = lw_res(L, n, 0);
		lw_settype(L, r, ct);
	}
	lw_bind(L, 0, lw_cast(L, r, od));
	return 0;
}

/* _softmax(self, dim, half_to_float) */
static int
softmax_(Lower *L)
{
	return softmax_common(L, "Softmax", false);
}

/* softmax.int(self, dim, dtype=None) */
static int
softmax_int(Lower *L)
{
	return softmax_common(L, "Softmax", true);
}

static int
log_softmax_(Lower *L)
{
	return softmax_common(L, "LogSoftmax", false);
}

static int
log_softmax_int(Lower *L)
{
	return softmax_common(L, "LogSoftmax", true);
}

/* _safe_softmax(self, dim, dtype=None): softmax, but 0 along rows that
 * are entirely -inf (fully masked attention rows) instead of NaN */
static int
safe_softmax(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv)
		return lw_fail(L, "argument 'self' must be a tensor");
	int64_t d;
	if (lwr_read_dim(L, 1, "dim", sv, -1, &d) < 0)
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype), ct = lwr_float_type(od);
	ValId x = lwr_input_as(L, 2, ct);
	if (!x)
		return -1;
	if (sv->rank == 0)
		return lw_fail(L, "_safe_softmax of a 0-d tensor is not "
		    "supported");
	NodeId n = lw_emit(L, "Softmax", 1, &x, 1);
	lw_attr_int(L, n, "axis", d);
	ValId s = lw_res(L, n, 0);
	lw_settype(L, s, ct);
	ValId masked = lw_op2t(L, "Equal", x, lw_scalar(L, -INFINITY, ct),
	    DT_BOOL);
	Axes ax = {.n = 1, .rank = sv->rank, .v = {d}};
	ValId rows = lwr_reduce(L, "ReduceMin", lw_cast(L, masked, DT_I32), &ax,
	    true);
	ValId r = where(L, lw_cast(L, rows, DT_BOOL), lw_scalar(L, 0, ct), s);
	lw_bind(L, 0, lw_cast(L, r, od));
	return 0;
}

/* ----------------------------------------------------------- topk, sort */

/* TopK of x along d with k a 1-D INT64 tensor; binds values and indices.
 * ONNX puts equal elements in index order, which is what torch's stable
 * sort does. */
static int
topk_common(Lower *L, const Value *sv, ValId k, int64_t d, bool largest)
{
	ValId x = lw_in(L, 0, "self");
	if (!x || !k)
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype);
	if (sv->rank == 0) {
		lw_bind(L, 0, lw_cast(L, x, od));
		if (lwr_has_out(L, 1))
			lw_bind(L, 1, lw_scalar_i64(L, 0));
		return 0;
	}
	DType ct = cmp_type(od);
	if (ct == DT_F64 && od == DT_I64)
		ct = DT_I64; /* TopK has int64 kernels: stay exact */
	ValId xc = lw_cast(L, x, ct), key = xc;
	bool fl = ct == DT_F32 || ct == DT_F64;
	if (fl) {
		/* NaN is the largest, after +inf, as PyTorch sorts it (TopK
		 * leaves NaN's place open): the key in double, NaN as +inf and
		 * +inf as the largest finite double */
		key = lw_cast(L, xc, DT_F64);
		ValId inf = lw_scalar(L, INFINITY, DT_F64);
		key = where(L, lw_op2t(L, "Equal", key, inf, DT_BOOL),
		    lw_scalar(L, DBL_MAX, DT_F64), key);
		key = where(L, lw_typed(L, lw_emit(L, "IsNaN", 1, &xc, 1),
		    DT_BOOL), inf, key);
	}
	NodeId n = lw_emit(L, "TopK", 2, (ValId[]){key, k}, 2);
	lw_attr_int(L, n, "axis", d);
	lw_attr_int(L, n, "largest", largest);
	lw_attr_int(L, n, "sorted", 1);
	ValId v = lw_res(L, n, 0), idx = lw_res(L, n, 1);
	lw_settype(L, v, fl ? DT_F64 : ct);
	lw_settype(L, idx, DT_I64);
	if (fl) {  /* the values themselves, NaN and +inf as they were */
		NodeId g = lw_emit(L, "GatherElements", 2, (ValId[]){xc, idx}, 1);
		lw_attr_int(L, g, "axis", d);
		v = lw_typed(L, g, ct);
	}
	lw_bind(L, 0, lw_cast(L, v, od));
	if (lwr_has_out(L, 1))
		lw_bind(L, 1, idx);
	return 0;
}

/* topk(self, k, dim=-1, largest=True, sorted=True); sorted=False leaves
 * the order to the implementation, so sorted order is correct too */
static int
topk(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv)
		return lw_fail(L, "argument 'self' must be a tensor");
	int64_t d;
	if (lwr_read_dim(L, 2, "dim", sv, -1, &d) < 0)
		return -1;
	bool largest = lw_bool(L, 3, "largest", true);
	if (lw_failed(L))
		return -1;
	ValId k = lw_shape_list(L, 1, "k");
	return topk_common(L, sv, k, d, largest);
}

/* sort: a TopK over the whole dim */
static int
sort_common(Lower *L, int dimi, int desci)
{
	const Value *sv = lw_srcval(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	if (!sv || !x)
		return -1;
	int64_t d;
	if (lwr_read_dim(L, dimi, "dim", sv, -1, &d) < 0)
		return -1;
	bool desc = lw_bool(L, desci, "descending", false);
	if (lw_failed(L))
		return -1;
	ValId k = 0;
	if (sv->rank > 0) {
		NodeId n = lw_emit(L, "Shape", 1, &x, 1);
		lw_attr_int(L, n, "start", d);
		lw_attr_int(L, n, "end", d + 1);
		k = lw_res(L, n, 0);
		lw_settype(L, k, DT_I64);
	} else {
		k = lw_const_i64s(L, (int64_t[]){1}, 1);
	}
	return topk_common(L, sv, k, d, desc);
}

/* sort(self, dim=-1, descending=False) */
static int
sort(Lower *L)
{
	return sort_common(L, 1, 2);
}

/* sort.stable(self, *, stable, dim=-1, descending=False) */
static int
sort_stable(Lower *L)
{
	return sort_common(L, -1, -1);
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_reduce LW_THIS
const LowerRule lw_rules_reduce[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
