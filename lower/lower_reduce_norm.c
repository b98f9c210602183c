/* lower_reduce_norm.c - lowering rules for variance, standard deviation
 * and norms, any/all, and cumulative scans.  The shared reduction helpers
 * (reduce(), axes) are in lower_reduce.c. */
#include <math.h>
#include <string.h>

#include "lower_reduce.h"

/* --------------------------------------------------- variance and norms */

/* How many elements a reduction over ax folds into each result, as a 0-d
 * tensor of dt: a constant when those dims are static, else read from the
 * shape at run time. */
static ValId
reduced_count(Lower *L, const Value *sv, ValId x, Axes *ax, DType dt)
{
	int64_t cnt = 1, d;
	bool fixed = true;
	int n = ax->n < 0 ? sv->rank : ax->n;
	for (int k = 0; k < n; k++) {
		int a = ax->n < 0 ? k : (int)ax->v[k];
		if (lw_dim_static(sv, L->src, a, &d))
			cnt *= d;
		else
			fixed = false;
	}
	if (fixed)
		return lw_scalar(L, (double)cnt, dt);
	ValId shape = lwr_op1t(L, "Shape", x, DT_I64);
	if (ax->n > 0) {
		if (!ax->cst)
			ax->cst = lw_const_i64s(L, ax->v, ax->n);
		NodeId g = lw_emit(L, "Gather", 2, (ValId[]){shape, ax->cst},
		    1);
		lw_attr_int(L, g, "axis", 0);
		shape = lw_res(L, g, 0);
		lw_settype(L, shape, DT_I64);
	}
	Axes all = {.n = -1, .rank = 1};
	return lw_cast(L, lwr_reduce(L, "ReduceProd", shape, &all, false), dt);
}

/* The count of a reduction over ax when its dims are static, else -1. */
static int64_t
static_count(Lower *L, const Value *sv, const Axes *ax)
{
	int64_t cnt = 1, d;
	int n = ax->n < 0 ? sv->rank : ax->n;
	for (int k = 0; k < n; k++)
		if (!lw_dim_static(sv, L->src, ax->n < 0 ? k : (int)ax->v[k], &d))
			return -1;
		else
			cnt *= d;
	return cnt;
}

/* The mean of x over ax, n its count (0 to emit it when needed).  ONNX's
 * ReduceMean gives 0 over zero elements where PyTorch gives NaN: where
 * the count is not known to be positive, the sum divided by the count
 * (0 / 0 is NaN). */
static ValId
mean_n(Lower *L, const Value *sv, ValId x, Axes *ax, bool keep, ValId n)
{
	if (static_count(L, sv, ax) > 0)
		return lwr_reduce(L, "ReduceMean", x, ax, keep);
	if (!n)
		n = reduced_count(L, sv, x, ax, lw_dtype(L, x));
	return lw_op2(L, "Div", lwr_reduce(L, "ReduceSum", x, ax, keep), n);
}

ValId
lwr_mean(Lower *L, const Value *sv, ValId x, Axes *ax, bool keep)
{
	return mean_n(L, sv, x, ax, keep, 0);
}

/* var/std and var_mean/std_mean: sum((x - mean)^2) / max(N - correction,
 * 0).  Output 0 is the variance (or its root), output 1 the mean. */
static int
variance(Lower *L, bool root, int dimi, double corr, bool keep)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv || sv->kind != VK_TENSOR)
		return lw_fail(L, "argument 'self' must be a tensor");
	Axes ax = {.n = -1, .rank = sv->rank};
	if (dimi >= 0 && lwr_read_axes(L, dimi, "dim", sv, &ax) < 0)
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype), ct = lwr_float_type(od);
	ValId x = lwr_input_as(L, -1, ct);
	if (!x)
		return -1;
	ValId n = reduced_count(L, sv, x, &ax, ct);
	ValId mean = mean_n(L, sv, x, &ax, true, n);
	ValId dev = lw_op2(L, "Sub", x, mean);
	ValId ss = lwr_reduce(L, "ReduceSum", lw_op2(L, "Mul", dev, dev), &ax,
	    keep);
	ValId den = lw_op2(L, "Max", lw_op2(L, "Sub", n, lw_scalar(L, corr,
	    ct)), lw_scalar(L, 0, ct));
	ValId v = lw_op2(L, "Div", ss, den);
	if (root)
		v = lw_op1(L, "Sqrt", v);
	lw_bind(L, 0, lw_cast(L, v, od));
	if (lwr_has_out(L, 1)) {
		if (!keep)
			mean = mean_n(L, sv, x, &ax, false, n);
		lw_bind(L, 1, lw_cast(L, mean, lwr_outdt(L, 1, od)));
	}
	return 0;
}

/* var.correction(self, dim=None, *, correction=None, keepdim=False) */
static int
var_correction_common(Lower *L, bool root)
{
	double corr = lw_float(L, -1, "correction", 1);
	bool keep = lw_bool(L, -1, "keepdim", false);
	if (lw_failed(L))
		return -1;
	return variance(L, root, 1, corr, keep);
}

/* var.dim(self, dim, unbiased=True, keepdim=False) */
static int
var_dim_common(Lower *L, bool root)
{
	bool unbiased = lw_bool(L, 2, "unbiased", true);
	bool keep = lw_bool(L, 3, "keepdim", false);
	if (lw_failed(L))
		return -1;
	return variance(L, root, 1, unbiased ? 1 : 0, keep);
}

/* var.default(self, unbiased=True) */
static int
var_all_common(Lower *L, bool root)
{
	bool unbiased = lw_bool(L, 1, "unbiased", true);
	if (lw_failed(L))
		return -1;
	return variance(L, root, -1, unbiased ? 1 : 0, false);
}

static int
var_correction(Lower *L)
{
	return var_correction_common(L, false);
}

static int
std_correction(Lower *L)
{
	return var_correction_common(L, true);
}

static int
var_dim(Lower *L)
{
	return var_dim_common(L, false);
}

static int
std_dim(Lower *L)
{
	return var_dim_common(L, true);
}

static int
var_all(Lower *L)
{
	return var_all_common(L, false);
}

static int
std_all(Lower *L)
{
	return var_all_common(L, true);
}

/* The p-norm over ax of x (already in a float compute type). */
static ValId
pnorm(Lower *L, ValId x, double p, Axes *ax, bool keep)
{
	DType ct = lw_dtype(L, x);
	if (p == 2)
		return lwr_reduce(L, "ReduceL2", x, ax, keep);
	if (p == 1)
		return lwr_reduce(L, "ReduceL1", x, ax, keep);
	if (isinf(p))
		return lwr_reduce(L, p > 0 ? "ReduceMax" : "ReduceMin",
		    lw_op1(L, "Abs", x), ax, keep);
	if (p == 0) { /* the count of nonzero elements */
		ValId nz = lwr_op1t(L, "Not", lw_op2t(L, "Equal", x,
		    lw_scalar(L, 0, ct), DT_BOOL), DT_BOOL);
		return lwr_reduce(L, "ReduceSum", lw_cast(L, nz, ct), ax, keep);
	}
	ValId pw = lw_op2(L, "Pow", lw_op1(L, "Abs", x), lw_scalar(L, p, ct));
	return lw_op2(L, "Pow", lwr_reduce(L, "ReduceSum", pw, ax, keep),
	    lw_scalar(L, 1 / p, ct));
}

static int
norm_common(Lower *L, int pi, const char *pkw, double pdflt, int dimi,
    int keepi)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv || sv->kind != VK_TENSOR)
		return lw_fail(L, "argument 'self' must be a tensor");
	if (sv->dtype == DT_C64 || sv->dtype == DT_C128)
		return lw_fail(L, "norms of complex tensors are not supported");
	Axes ax = {.n = -1, .rank = sv->rank};
	if (dimi >= 0 && lwr_read_axes(L, dimi, "dim", sv, &ax) < 0)
		return -1;
	double p = lw_float(L, pi, pkw, pdflt);
	bool keep = keepi >= 0 && lw_bool(L, keepi, "keepdim", false);
	if (lw_failed(L))
		return -1;
	DType od = lwr_outdt(L, 0, DT_F32);
	ValId x = lwr_input_as(L, -1, lwr_float_type(od));
	if (!x)
		return -1;
	lw_bind(L, 0, lw_cast(L, pnorm(L, x, p, &ax, keep), od));
	return 0;
}

/* norm.ScalarOpt_dim(self, p, dim, keepdim=False) and _dtype */
static int
norm_dim(Lower *L)
{
	return norm_common(L, 1, "p", 2, 2, 3);
}

/* norm.Scalar(self, p=2), norm.ScalarOpt_dtype(self, p, *, dtype) */
static int
norm_all(Lower *L)
{
	return norm_common(L, 1, "p", 2, -1, -1);
}

/* linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype) */
static int
vector_norm(Lower *L)
{
	return norm_common(L, 1, "ord", 2, 2, 3);
}

/* ------------------------------------------------------------ any / all */

/* any/all(self, dim, keepdim): the max/min of the truth values */
static int
truth(Lower *L, bool isany, int dimi, int keepi)
{
	const Value *sv = lw_srcval(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	Axes ax = {.n = -1, .rank = sv->rank};
	if (dimi >= 0 && lwr_read_axes(L, dimi, "dim", sv, &ax) < 0)
		return -1;
	bool keep = keepi >= 0 && lw_bool(L, keepi, "keepdim", false);
	if (lw_failed(L))
		return -1;
	ValId b = lw_cast(L, lw_cast(L, x, DT_BOOL), DT_I32);
	ValId r = lwr_reduce(L, isany ? "ReduceMax" : "ReduceMin", b, &ax,
	    keep);
	/* uint8 inputs give uint8 results in torch: the annotation says */
	lw_bind(L, 0, lw_cast(L, lw_cast(L, r, DT_BOOL), lwr_outdt(L, 0,
	    DT_BOOL)));
	return 0;
}

static int
any_all(Lower *L)
{
	return truth(L, true, -1, -1);
}

static int
any_dim(Lower *L)
{
	return truth(L, true, 1, 2);
}

static int
all_all(Lower *L)
{
	return truth(L, false, -1, -1);
}

static int
all_dim(Lower *L)
{
	return truth(L, false, 1, 2);
}

/* count_nonzero(self, dim=None) and .dim_IntList(self, dim) */
static int
count_nonzero(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	Axes ax = {.n = -1, .rank = sv->rank};
	if (lwr_read_axes(L, 1, "dim", sv, &ax) < 0)
		return -1;
	ValId nz = lw_cast(L, lw_cast(L, x, DT_BOOL), DT_I64);
	lw_bind(L, 0, lw_cast(L, lwr_reduce(L, "ReduceSum", nz, &ax, false),
	    lwr_outdt(L, 0, DT_I64)));
	return 0;
}

/* ---------------------------------------------------------------- scans */

/* cumsum(self, dim, *, dtype) */
static int
cumsum(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv)
		return lw_fail(L, "argument 'self' must be a tensor");
	int64_t d;
	if (lwr_read_dim(L, 1, "dim", sv, 0, &d) < 0)
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype);
	ValId x = lwr_input_as(L, -1, lwr_acc_type(od));
	if (!x)
		return -1;
	if (sv->rank == 0) {
		lw_bind(L, 0, lw_cast(L, x, od));
		return 0;
	}
	ValId r = lw_op2(L, "CumSum", x, lw_scalar_i64(L, d));
	lw_bind(L, 0, lw_cast(L, r, od));
	return 0;
}

/* The running product of x (rank r) along axis d by a Scan whose state is
 * the product so far: ATen's order (left to right, so the same rounding),
 * for a length known only at run time or too long to unroll */
static ValId
cumprod_scan(Lower *L, ValId x, int64_t d, int r)
{
	DType dt = lw_dtype(L, x);
	const Dim *xd = ir_dims(L->dst, x);
	Dim sd[LW_MAXRANK];
	int64_t keep[LW_MAXRANK];
	int ns = 0;
	for (int k = 0; k < r; k++)
		if (k != d) {
			sd[ns] = xd[k];
			keep[ns++] = k;
		}
	GraphId sg = lw_subgraph(L, "cumprod_step");
	Graph *g = ir_graph(L->m, sg);
	Lower S = *L;
	S.dst = g;
	S.dstid = sg;
	const char *names[] = {"product_in", "slice"};
	ValId in[2];
	for (int j = 0; j < 2; j++) {
		in[j] = ir_value(g, ir_intern(L->m, names[j]));
		ir_set_tensor(g, in[j], dt, ns, ns ? sd : NULL);
		ir_add_input(g, in[j]);
	}
	ValId p = lw_op2(&S, "Mul", in[0], in[1]);
	lw_sub_output(L, sg, p);
	lw_sub_output(L, sg, p);
	if (S.failed)
		L->failed = true;
	/* the first state: ones of x's shape without axis d */
	ValId one = lw_scalar_int(L, 1, dt);
	if (ns) {
		ValId gin[2] = {lwr_op1t(L, "Shape", x, DT_I64),
			lw_const_i64s(L, keep, ns)};
		ValId shape = lw_typed(L, lw_emit(L, "Gather", 2, gin, 1),
		    DT_I64);
		one = lw_typed(L, lw_emit(L, "Expand", 2, (ValId[]){one,
		    shape}, 1), dt);
	}
	NodeId n = lw_emit(L, "Scan", 2, (ValId[]){one, x}, 2);
	lw_attr_graph(L, n, "body", sg);
	lw_attr_int(L, n, "num_scan_inputs", 1);
	if (d) {
		lw_attr_ints(L, n, "scan_input_axes", &d, 1);
		lw_attr_ints(L, n, "scan_output_axes", &d, 1);
	}
	lw_settype(L, lw_res(L, n, 0), dt);
	ValId y = lw_res(L, n, 1);
	lw_settype(L, y, dt);
	return y;
}

/* cumprod(self, dim, *, dtype): ONNX has no product scan, so a running
 * product over static slices (a Scan when the length is dynamic or long);
 * exact for integers, unlike exp(cumsum(log)) */
static int
cumprod(Lower *L)
{
	enum { LIMIT = 256 };
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv)
		return lw_fail(L, "argument 'self' must be a tensor");
	int64_t d, len;
	if (lwr_read_dim(L, 1, "dim", sv, 0, &d) < 0)
		return -1;
	DType od = lwr_outdt(L, 0, (DType)sv->dtype);
	ValId x = lwr_input_as(L, -1, lwr_acc_type(od));
	if (!x)
		return -1;
	if (sv->rank == 0) {
		lw_bind(L, 0, lw_cast(L, x, od));
		return 0;
	}
	if (!lw_dim_static(sv, L->src, (int)d, &len) || len > LIMIT) {
		lw_bind(L, 0, lw_cast(L, cumprod_scan(L, x, d, sv->rank), od));
		return 0;
	}
	if (len <= 1) {
		lw_bind(L, 0, lw_cast(L, x, od));
		return 0;
	}
	ValId parts[LIMIT], run = 0;
	ValId axis = lw_const_i64s(L, &d, 1);
	for (int64_t k = 0; k < len; k++) {
		int64_t e = k + 1;
		ValId in[4] = {x, lw_const_i64s(L, &k, 1),
			lw_const_i64s(L, &e, 1), axis};
		NodeId s = lw_emit(L, "Slice", 4, in, 1);
		ValId sl = lw_res(L, s, 0);
		lw_settype(L, sl, lw_dtype(L, x));
		run = run ? lw_op2(L, "Mul", run, sl) : sl;
		parts[k] = run;
	}
	NodeId c = lw_emit(L, "Concat", (int)len, parts, 1);
	lw_attr_int(L, c, "axis", d);
	ValId r = lw_res(L, c, 0);
	lw_settype(L, r, lw_dtype(L, x));
	lw_bind(L, 0, lw_cast(L, r, od));
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_reduce_norm LW_THIS
const LowerRule lw_rules_reduce_norm[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
