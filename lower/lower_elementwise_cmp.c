/* lower_elementwise_cmp.c - lowering rules for clamp/min/max, where and
 * masked_fill, comparisons and logic, lerp/addcmul/addcdiv, casts and
 * fills.  Compute dtypes follow the rules at the top of
 * lower_elementwise.c. */
#include <math.h>
#include <string.h>

#include "lower_elementwise.h"

/* ------------------------------------------------------- clamp, min, max */

/* clamp(self, min, max) with the bounds at args imin/imax (-1: none);
 * Python number bounds become Clip, tensor bounds Max and Min */
static int
clamp_args(Lower *L, int imin, const char *kmin, int imax, const char *kmax)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType ct = lwe_compute_type(L, lwe_out_dtype(L, lw_dtype(L, x)));
	if (!ct)
		return -1;
	x = lw_cast(L, x, ct);
	bool has_lo = kmin && lw_has(L, imin, kmin),
	     has_hi = kmax && lw_has(L, imax, kmax);
	double lo = 0, hi = 0;
	bool nlo = !has_lo || lwe_number(L, imin, kmin, &lo),
	     nhi = !has_hi || lwe_number(L, imax, kmax, &hi);
	if (!has_lo && !has_hi)
		return lw_fail(L, "clamp needs at least one of min and max");
	if (nlo && nhi)
		return lwe_done(L, lwe_clip(L, x, has_lo, lo, has_hi, hi));
	if (has_lo) {
		ValId b = lw_operand(L, imin, kmin, ct);
		if (!b)
			return -1;
		x = lw_op2(L, "Max", x, b);
	}
	if (has_hi) {
		ValId b = lw_operand(L, imax, kmax, ct);
		if (!b)
			return -1;
		x = lw_op2(L, "Min", x, b);
	}
	return lwe_done(L, x);
}

static int
clamp(Lower *L)
{
	return clamp_args(L, 1, "min", 2, "max");
}

static int
clamp_min(Lower *L)
{
	return clamp_args(L, 1, "min", -1, NULL);
}

static int
clamp_max(Lower *L)
{
	return clamp_args(L, -1, NULL, 1, "max");
}

/* minimum/maximum, and fmin/fmax (a nan loses to a number) */
static int
minmax(Lower *L)
{
	const OpInfo *in = lwe_info(L);
	ValId a, b;
	DType ct = lwe_binary(L, "other", &a, &b);
	if (!ct)
		return -1;
	ValId r = lw_op2(L, in->op, a, b);
	if ((in->flags & NAN_AWARE) && ir_dtype_is_float(ct)) {
		r = lwe_where(L, lwe_is_nan(L, b), a, r);
		r = lwe_where(L, lwe_is_nan(L, a), b, r);
	}
	return lwe_done(L, r);
}

/* ---------------------------------------------------- where, masked_fill */

static ValId
condition(Lower *L, int i, const char *kw)
{
	return lw_operand(L, i, kw, DT_BOOL);
}

/* where(condition, self, other), any of self/other a number */
static int
where_(Lower *L)
{
	DType ct = lwe_compute_type(L,
	    lwe_out_dtype(L, lw_promote(L, 1, "self", 2,
	    "other")));
	ValId c = ct ? condition(L, 0, "condition") : 0;
	ValId a, b;
	if (!c || !lwe_operands(L, 1, "self", 2, "other", ct, &a, &b))
		return -1;
	return lwe_done(L, lwe_where(L, c, a, b));
}

/* masked_fill(self, mask, value): value where mask, in self's dtype */
static int
masked_fill(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType ct = lwe_compute_type(L, lwe_out_dtype(L, lw_dtype(L, x)));
	ValId c = ct ? condition(L, 1, "mask") : 0;
	ValId v = c ? lw_operand(L, 2, "value", ct) : 0;
	if (!v)
		return -1;
	return lwe_done(L, lwe_where(L, c, v, lw_cast(L, x, ct)));
}

/* heaviside(self, values): values where self is 0, else 1 where self > 0
 * and 0 below, and 0 for a nan (torch's kernel: self == 0 ? values :
 * self > 0) */
static int
heaviside(Lower *L)
{
	ValId x, v;
	if (!lwe_binary(L, "values", &x, &v))
		return -1;
	ValId zero = lwe_num(L, 0, x);
	ValId step = lw_cast(L, lwe_cmp(L, "Greater", x, zero), lw_dtype(L, x));
	return lwe_done(L, lwe_where(L, lwe_cmp(L, "Equal", x, zero), v, step));
}

/* ------------------------------------------------ comparisons and logic */

/* comparisons compute in the promoted dtype */
static int
compare(Lower *L)
{
	const OpInfo *in = lwe_info(L);
	DType ct = lwe_compute_type(L, lw_promote(L, 0, "self", 1, "other"));
	ValId a, b;
	if (!ct || !lwe_operands(L, 0, "self", 1, "other", ct, &a, &b))
		return -1;
	ValId r = lwe_cmp(L, in->op, a, b);
	return lwe_done(L, in->flags & NEGATE ? lw_op1(L, "Not", r) : r);
}

/* logical_*: operands are true when nonzero */
int
lwe_logical(Lower *L)
{
	ValId a, b;
	if (!lwe_operands(L, 0, "self", 1, "other", DT_BOOL, &a, &b))
		return -1;
	return lwe_done(L, lw_op2(L, lwe_info(L)->op, a, b));
}

static int
logical_not(Lower *L)
{
	ValId x = lw_operand(L, 0, "self", DT_BOOL);
	return x ? lwe_done(L, lw_op1(L, "Not", x)) : -1;
}

/* bitwise ops: And/Or/Xor on bools, Bitwise* (opset 18) on integers */
static int
bitwise(Lower *L)
{
	const char *boolop = lwe_info(L)->op, *intop = lwe_info(L)->op2;
	DType pt = lwe_out_dtype(L, lw_promote(L, 0, "self", 1, "other"));
	if (pt != DT_BOOL && !ir_dtype_is_int(pt))
		return lw_fail(L, "bitwise operation on %s tensors",
		    ir_dtype_name(pt));
	if (pt != DT_BOOL && L->opset < 18)
		return lw_fail(L, "bitwise operations on integers need opset "
		    "18 or later (%s)", intop);
	ValId a, b;
	if (!lwe_operands(L, 0, "self", 1, "other", pt, &a, &b))
		return -1;
	return lwe_done(L, lw_op2(L, pt == DT_BOOL ? boolop : intop, a, b));
}

static int
bitwise_not(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (dt == DT_BOOL)
		return lwe_done(L, lw_op1(L, "Not", x));
	if (!ir_dtype_is_int(dt))
		return lw_fail(L, "bitwise_not on %s tensors",
		    ir_dtype_name(dt));
	if (L->opset < 18)
		return lw_fail(L, "bitwise_not on integers needs opset 18 or "
		    "later");
	return lwe_done(L, lw_op1(L, "BitwiseNot", x));
}

/* isnan/isinf/isfinite.  Integers are always finite: x == x gives the
 * all-true mask of x's shape. */
static ValId
is_inf(Lower *L, ValId x, bool pos, bool neg)
{
	ValId r = lw_op1(L, "IsInf", x);
	lw_settype(L, r, DT_BOOL);
	lw_attr_int(L, lwe_def(L, r), "detect_positive", pos);
	lw_attr_int(L, lwe_def(L, r), "detect_negative", neg);
	return r;
}

static int
classify(Lower *L)
{
	const OpInfo *in = lwe_info(L);
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (!ir_dtype_is_float(dt)) {
		DType ct = lwe_compute_type(L, dt);
		if (!ct)
			return -1;
		x = lw_cast(L, x, ct);
		ValId all = lwe_cmp(L, "Equal", x, x);
		return lwe_done(L, in->flags & NEGATE ? all : lw_op1(L, "Not",
		    all));
	}
	x = lw_cast(L, x, lwe_float_type(dt, true));
	if (!strcmp(in->op, "IsNaN"))
		return lwe_done(L, lwe_is_nan(L, x));
	ValId inf = is_inf(L, x, in->flags & POS_INF, in->flags & NEG_INF);
	if (!(in->flags & NEGATE))
		return lwe_done(L, inf);
	return lwe_done(L,
	    lw_op1(L, "Not", lw_op2t(L, "Or", lwe_is_nan(L, x), inf,
	    DT_BOOL)));
}

/* the largest finite value of a float dtype */
static double
float_max(DType dt)
{
	switch (dt) {
	case DT_F16:
		return 65504;
	case DT_BF16:
		return 3.3895313892515355e38;
	case DT_F64:
		return 1.7976931348623157e308;
	default:
		return 3.4028234663852886e38;
	}
}

/* nan_to_num(self, nan=0, posinf=max, neginf=-max) */
static int
nan_to_num(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (!ir_dtype_is_float(dt))
		return lwe_done(L, x);
	double big = float_max(dt);
	double vn = lw_float(L, 1, "nan", 0), vp = lw_float(L, 2, "posinf",
	    big), vm = lw_float(L, 3, "neginf", -big);
	x = lw_cast(L, x, lwe_float_type(dt, true));
	ValId r = lwe_where(L, lwe_is_nan(L, x), lwe_num(L, vn, x),
	    x);
	r = lwe_where(L, is_inf(L, x, true, false), lwe_num(L, vp, x), r);
	r = lwe_where(L, is_inf(L, x, false, true), lwe_num(L, vm, x), r);
	return lwe_done(L, r);
}

/* ------------------------------------------- lerp, addcmul, addcdiv */

/* lerp(self, end, weight): torch's two-sided form, exact at both ends:
 *   |w| < 0.5 ? self + w * (end - self) : end - (end - self) * (1 - w) */
static int
lerp(Lower *L)
{
	ValId a, b;
	DType ct = lwe_binary(L, "end", &a, &b);
	ValId w = ct ? lw_operand(L, 2, "weight", ct) : 0;
	if (!w)
		return -1;
	ValId d = lw_op2(L, "Sub", b, a);
	ValId lo = lw_op2(L, "Add", a, lw_op2(L, "Mul", w, d));
	ValId hi = lw_op2(L, "Sub", b, lw_op2(L, "Mul", d, lw_op2(L, "Sub",
	    lwe_num(L, 1, w), w)));
	double wv;
	if (lwe_number(L, 2, "weight", &wv))
		return lwe_done(L, fabs(wv) < 0.5 ? lo : hi);
	ValId small = lwe_cmp(L, "Less", lw_op1(L, "Abs", w),
	    lwe_num(L, 0.5, w));
	return lwe_done(L, lwe_where(L, small, lo, hi));
}

/* addcmul/addcdiv(self, tensor1, tensor2, value): self + value * (t1 op t2)
 */
static int
addc(Lower *L)
{
	const char *op = lwe_info(L)->op;
	DType ct = lwe_compute_type(L,
	    lwe_out_dtype(L, lw_promote(L, 0, "self", 1,
	    "tensor1")));
	if (!ct)
		return -1;
	if (!strcmp(op, "Div") && !ir_dtype_is_float(ct))
		return lw_fail(L, "addcdiv on integer tensors");
	ValId s, t1, t2;
	if (!lwe_operands(L, 0, "self", 1, "tensor1", ct, &s, &t1) ||
	    !(t2 = lw_operand(L, 2, "tensor2", ct)))
		return -1;
	ValId p = lw_op2(L, op, t1, t2);
	double v;
	if (lw_has(L, 3, "value")
	    && !(lwe_number(L, 3, "value", &v) && v == 1)) {
		ValId k = lw_operand(L, 3, "value", ct);
		if (!k)
			return -1;
		p = lw_op2(L, "Mul", p, k);
	}
	return lwe_done(L, lw_op2(L, "Add", s, p));
}

/* -------------------------------------------------------- casts and fills */

/* The first dtype argument, for outputs without annotation. */
static DType
dtype_arg(Lower *L)
{
	const Node *n = lw_node(L);
	for (uint32_t i = 0; i < n->nargs; i++) {
		const Arg *a = ir_arg(L->src, L->node, i);
		if (a->kind == A_DTYPE)
			return (DType)a->u.i;
	}
	return DT_UNDEF;
}

/* _to_copy, to.*, type_as: a Cast to the result dtype (device, layout
 * and memory format mean nothing to ONNX).  core ATen may copy a Python
 * number (vmap of x / (n + 1e-6): _to_copy(1e-06, dtype=float32)): a
 * 0-d constant of the result dtype. */
static int
convert(Lower *L)
{
	const Arg *a = lw_arg(L, 0, "self");
	bool num = a && (a->kind == A_INT || a->kind == A_FLOAT ||
	    a->kind == A_BOOL);
	ValId x = num ? lw_operand(L, 0, "self", DT_UNDEF) : lw_in(L, 0,
	    "self");
	if (!x)
		return -1;
	DType dt = lwe_out_dtype(L, dtype_arg(L));
	if (!dt) {
		const Value *o = lw_srcval(L, 1, "other");
		dt = o && o->kind == VK_TENSOR ? (DType)o->dtype : DT_UNDEF;
	}
	return lwe_done(L, dt ? lw_cast(L, x, dt) : x);
}

static bool
same_shape(Lower *L, const Value *a, const Value *b)
{
	if (a->rank < 0 || a->rank != b->rank)
		return false;
	for (int d = 0; d < a->rank; d++) {
		const Dim *x = &L->src->dims[a->dims + (uint32_t)d],
			  *y = &L->src->dims[b->dims + (uint32_t)d];
		if (x->e != y->e || (!x->e && x->n != y->n))
			return false;
	}
	return true;
}

/* copy(self, src): src cast to self's dtype and broadcast to its shape */
static int
copy(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	ValId s = x ? lw_in(L, 1, "src") : 0;
	if (!s)
		return -1;
	s = lw_cast(L, s, lwe_out_dtype(L, lw_dtype(L, x)));
	const Value *vx = lw_srcval(L, 0, "self"), *vs = lw_srcval(L, 1, "src");
	if (same_shape(L, vx, vs))
		return lwe_done(L, s);
	return lwe_done(L, lwe_expand_to(L, s, x));
}

/* A tensor of self's run-time shape filled with arg i (a number or a 0-d
 * tensor), or with dflt when i < 0. */
static int
fill_like(Lower *L, int i, const char *kw, double dflt)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lwe_out_dtype(L, lw_dtype(L, x));
	ValId v = i >= 0 ? lw_operand(L, i, kw, dt) : lw_scalar(L, dflt, dt);
	return v ? lwe_done(L, lwe_expand_to(L, v, x)) : -1;
}

static int
fill(Lower *L)
{
	return fill_like(L, 1, "value", 0);
}

static int
zeros_like(Lower *L)
{
	return fill_like(L, -1, NULL, 0);
}

static int
ones_like(Lower *L)
{
	return fill_like(L, -1, NULL, 1);
}

static int
full_like(Lower *L)
{
	return fill_like(L, 1, "fill_value", 0);
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_elementwise_cmp LW_THIS
const LowerRule lw_rules_elementwise_cmp[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
