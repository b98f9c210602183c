/* lower_elementwise_act.c - lowering rules for float unary math (exp, log,
 * trigonometry, rounding ...) and activations.  Compute dtypes follow the
 * rules at the top of lower_elementwise.c. */
#include <math.h>
#include <string.h>

#include "lower_elementwise.h"

/* --------------------------------------------------------- unary, integer */

/* ops that keep the dtype: computed in the compute type of the input */
static ValId
int_in(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return 0;
	DType ct = lwe_compute_type(L, lwe_out_dtype(L, lw_dtype(L, x)));
	return ct ? lw_cast(L, x, ct) : 0;
}

/* neg, abs, sign */
int
lwe_unary_same(Lower *L)
{
	ValId x = int_in(L);
	return x ? lwe_done(L, lw_op1(L, lwe_info(L)->op, x)) : -1;
}

static int
square(Lower *L)
{
	ValId x = int_in(L);
	return x ? lwe_done(L, lw_op2(L, "Mul", x, x)) : -1;
}

static int
positive(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	return x ? lwe_done(L, x) : -1;
}

/* floor/ceil/round/trunc: integers are already whole */
static int
rounding(Lower *L, const char *op)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (!ir_dtype_is_float(dt))
		return lwe_done(L, x);
	x = lw_cast(L, x, lwe_float_type(dt, true));
	return lwe_done(L, op ? lw_op1(L, op, x) : lwe_trunc_f(L, x));
}

/* floor, ceil, trunc */
static int
round_whole(Lower *L)
{
	return rounding(L, lwe_info(L)->op);
}

/* round(x) is half to even, as ONNX Round; round(x, decimals=d) scales by
 * 10^d first (divides by 10^-d for negative d, as torch does) */
static int
round_(Lower *L)
{
	int64_t d = lw_int(L, 1, "decimals", 0);
	if (d == 0)
		return rounding(L, "Round");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (!ir_dtype_is_float(dt))
		return lwe_done(L, x);
	x = lw_cast(L, x, lwe_float_type(dt, true));
	ValId p = lwe_num(L, pow(10, (double)(d < 0 ? -d : d)), x);
	if (d > 0)
		return lwe_done(L, lw_op2(L, "Div", lw_op1(L, "Round", lw_op2(L,
		    "Mul", x, p)), p));
	return lwe_done(L, lw_op2(L, "Mul", lw_op1(L, "Round", lw_op2(L, "Div",
	    x, p)), p));
}

/* frac(x) = x - trunc(x) */
static int
frac(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	x = lw_cast(L, x, lwe_float_type(lw_dtype(L, x), true));
	return lwe_done(L, lw_op2(L, "Sub", x, lwe_trunc_f(L, x)));
}

/* ----------------------------------------------------------- unary, float */

/* self in the float compute type of the result.  dbl: the ONNX Runtime
 * kernels used have f64 versions. */
static ValId
float_in(Lower *L, bool dbl)
{
	ValId x = lw_operand(L, 0, "self", DT_UNDEF);
	if (!x)
		return 0;
	DType dt = lw_dtype(L, x);
	dt = lwe_out_dtype(L, ir_dtype_is_float(dt) ? dt : DT_F32);
	return lw_cast(L, x, lwe_float_type(dt, dbl));
}

/* exp, sin, erf ... */
static int
unary_float(Lower *L)
{
	const OpInfo *in = lwe_info(L);
	ValId x = float_in(L, in->flags & F64_OK);
	return x ? lwe_done(L, lw_op1(L, in->op, x)) : -1;
}

static int
erfc_(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	return lwe_done(L,
	    lw_op2(L, "Sub", lwe_num(L, 1, x), lw_op1(L, "Erf", x)));
}

static int
exp2_(Lower *L)
{
	ValId x = float_in(L, true);
	return x ? lwe_done(L, lw_op2(L, "Pow", lwe_num(L, 2, x), x)) : -1;
}

static int
expm1_(Lower *L)
{
	ValId x = float_in(L, true);
	if (!x)
		return -1;
	return lwe_done(L,
	    lw_op2(L, "Sub", lw_op1(L, "Exp", x), lwe_num(L, 1, x)));
}

static int
log1p_(Lower *L)
{
	ValId x = float_in(L, true);
	if (!x)
		return -1;
	return lwe_done(L,
	    lw_op1(L, "Log", lw_op2(L, "Add", x, lwe_num(L, 1, x))));
}

/* log(x) / log(base) */
static int
log_base(Lower *L, double base)
{
	ValId x = float_in(L, true);
	if (!x)
		return -1;
	return lwe_done(L, lw_op2(L, "Mul", lw_op1(L, "Log", x), lwe_num(L,
	    1 / log(base), x)));
}

static int
log2_(Lower *L)
{
	return log_base(L, 2);
}

static int
log10_(Lower *L)
{
	return log_base(L, 10);
}

static int
rsqrt(Lower *L)
{
	ValId x = float_in(L, true);
	return x ? lwe_done(L, lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", x)))
	    : -1;
}

/* atan2(y, x): atan(y / x) moved to the quadrant of (x, y) */
static int
atan2_(Lower *L)
{
	DType pt = lw_promote(L, 0, "self", 1, "other");
	DType ct = lwe_float_type(lwe_out_dtype(L, ir_dtype_is_float(pt) ? pt
	    : DT_F32), false);
	ValId y, x;
	if (!lwe_operands(L, 0, "self", 1, "other", ct, &y, &x))
		return -1;
	ValId zero = lwe_num(L, 0, x);
	ValId r = lw_op1(L, "Atan", lw_op2(L, "Div", y, x));
	ValId turn = lwe_where(L, lwe_cmp(L, "GreaterOrEqual", y, zero),
	    lwe_num(L, M_PI,
	    x), lwe_num(L, -M_PI, x));
	r = lwe_where(L, lwe_cmp(L, "Less", x, zero), lw_op2(L, "Add", r, turn),
	    r);
	/* atan2(0, 0) = 0, where y / x is nan */
	ValId origin = lw_op2t(L, "And", lwe_cmp(L, "Equal", x, zero),
	    lwe_cmp(L,
	    "Equal", y, zero), DT_BOOL);
	return lwe_done(L, lwe_where(L, origin, zero, r));
}

/* ------------------------------------------------------------ activations */

static int
relu(Lower *L)
{
	ValId x = int_in(L);
	if (!x)
		return -1;
	/* Relu has no i64 kernel */
	if (lw_dtype(L, x) == DT_I64)
		return lwe_done(L, lw_op2(L, "Max", x, lwe_num(L, 0, x)));
	return lwe_done(L, lw_op1(L, "Relu", x));
}

/* Clip(x, lo, hi); a bound is left out when has_lo/has_hi is false */
ValId
lwe_clip(Lower *L, ValId x, bool has_lo, double lo, bool has_hi, double hi)
{
	ValId in[3] = {x, has_lo ? lwe_num(L, lo, x) : 0, has_hi
	    ? lwe_num(L, hi, x)
	    : 0};
	NodeId n = lw_emit(L, "Clip", 3, in, 1);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, lw_dtype(L, x));
	return r;
}

static int
hardtanh(Lower *L)
{
	ValId x = int_in(L);
	if (!x)
		return -1;
	double lo = lw_float(L, 1, "min_val", -1),
	       hi = lw_float(L, 2, "max_val", 1);
	return lwe_done(L, lwe_clip(L, x, true, lo, true, hi));
}

static int
relu6(Lower *L)
{
	ValId x = int_in(L);
	return x ? lwe_done(L, lwe_clip(L, x, true, 0, true, 6)) : -1;
}

/* x > threshold ? x : value */
static int
threshold(Lower *L)
{
	ValId x = int_in(L);
	if (!x)
		return -1;
	ValId t = lw_operand(L, 1, "threshold", lw_dtype(L, x));
	ValId v = t ? lw_operand(L, 2, "value", lw_dtype(L, x)) : 0;
	if (!v)
		return -1;
	return lwe_done(L, lwe_where(L, lwe_cmp(L, "Greater", x, t), x, v));
}

static int
leaky_relu(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	double slope = lw_float(L, 1, "negative_slope", 0.01);
	ValId r = lw_op1(L, "LeakyRelu", x);
	lw_attr_float(L, lwe_def(L, r), "alpha", slope);
	return lwe_done(L, r);
}

/* elu(x, alpha, scale, input_scale) =
 *   x > 0 ? scale * x : scale * alpha * (exp(x * input_scale) - 1) */
static int
elu(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	double alpha = lw_float(L, 1, "alpha", 1),
	       scale = lw_float(L, 2, "scale", 1),
	       in_scale = lw_float(L, 3, "input_scale", 1);
	if (scale == 1 && in_scale == 1) {
		ValId r = lw_op1(L, "Elu", x);
		lw_attr_float(L, lwe_def(L, r), "alpha", alpha);
		return lwe_done(L, r);
	}
	ValId neg = lw_op2(L, "Sub", lw_op1(L, "Exp", lw_op2(L, "Mul", x,
	    lwe_num(L, in_scale, x))), lwe_num(L, 1, x));
	neg = lw_op2(L, "Mul", neg, lwe_num(L, alpha * scale, x));
	ValId pos = lw_op2(L, "Mul", x, lwe_num(L, scale, x));
	return lwe_done(L,
	    lwe_where(L, lwe_cmp(L, "Greater", x, lwe_num(L, 0, x)), pos, neg));
}

static int
selu(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	ValId r = lw_op1(L, "Selu", x);
	/* torch's constants (ONNX's defaults are these rounded to f32) */
	lw_attr_float(L, lwe_def(L, r), "alpha",
	    1.6732632423543772848170429916717);
	lw_attr_float(L, lwe_def(L, r), "gamma",
	    1.0507009873554804934193349852946);
	return lwe_done(L, r);
}

static int
celu(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	double alpha = lw_float(L, 1, "alpha", 1);
	ValId r = lw_op1(L, "Celu", x);
	lw_attr_float(L, lwe_def(L, r), "alpha", alpha);
	return lwe_done(L, r);
}

/* gelu: x/2 * (1 + erf(x / sqrt 2)), or with approximate='tanh'
 * x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).  Written out: the
 * Gelu op needs opset 20. */
static int
gelu(Lower *L)
{
	const Arg *ap = lw_arg(L, 1, "approximate");
	const char *mode = ap && ap->kind == A_STR ? ir_str(L->m, ap->u.s)
	    : "none";
	bool tanh_form = strcmp(mode, "tanh") == 0;
	if (!tanh_form && strcmp(mode, "none") != 0)
		return lw_fail(L, "unknown approximate='%s'", mode);
	ValId x = float_in(L, tanh_form);
	if (!x)
		return -1;
	ValId inner;
	if (tanh_form) {
		ValId x3 = lw_op2(L, "Mul", lw_op2(L, "Mul", x, x), x);
		inner = lw_op2(L, "Add", x, lw_op2(L, "Mul", x3, lwe_num(L,
		    0.044715, x)));
		inner = lw_op2(L, "Mul", inner, lwe_num(L, sqrt(2 / M_PI), x));
		inner = lw_op1(L, "Tanh", inner);
	} else {
		inner = lw_op1(L, "Erf",
		    lw_op2(L, "Mul", x, lwe_num(L, M_SQRT1_2,
		    x)));
	}
	ValId half = lw_op2(L, "Mul", x, lwe_num(L, 0.5, x));
	return lwe_done(L,
	    lw_op2(L, "Mul", half, lw_op2(L, "Add", inner, lwe_num(L,
	    1, x))));
}

/* silu(x) = x * sigmoid(x); in double as PyTorch's kernel writes it,
 * x / (1 + exp(-x)): one division where lw_legalize's rewrite of a double
 * Sigmoid (ONNX Runtime's QuickGelu fusion has no double kernel) would
 * leave x * (1 / (1 + exp(-x))) */
static int
silu(Lower *L)
{
	ValId x = float_in(L, true);
	if (!x)
		return -1;
	if (lw_dtype(L, x) != DT_F64)
		return lwe_done(L, lw_op2(L, "Mul", x, lw_op1(L, "Sigmoid",
		    x)));
	ValId e = lw_op1(L, "Exp", lw_op1(L, "Neg", x));
	return lwe_done(L, lw_op2(L, "Div", x, lw_op2(L, "Add", e,
	    lwe_num(L, 1, x))));
}

/* mish(x) = x * tanh(softplus(x)) */
static int
mish(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	return lwe_done(L, lw_op2(L, "Mul", x, lw_op1(L, "Tanh", lw_op1(L,
	    "Softplus", x))));
}

/* softplus(x, beta, threshold) =
 *   x * beta > threshold ? x : log(1 + exp(x * beta)) / beta */
static int
softplus(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	double beta = lw_float(L, 1, "beta", 1),
	       th = lw_float(L, 2, "threshold", 20);
	ValId bx = beta == 1 ? x : lw_op2(L, "Mul", x, lwe_num(L, beta, x));
	ValId sp = lw_op1(L, "Softplus", bx);
	if (beta != 1)
		sp = lw_op2(L, "Div", sp, lwe_num(L, beta, x));
	return lwe_done(L,
	    lwe_where(L, lwe_cmp(L, "Greater", bx, lwe_num(L, th, x)), x, sp));
}

/* log(sigmoid(x)) = -softplus(-x) */
static int
log_sigmoid(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	return lwe_done(L,
	    lw_op1(L, "Neg", lw_op1(L, "Softplus", lw_op1(L, "Neg",
	    x))));
}

/* relu6(x + 3): ONNX's HardSigmoid (alpha 1/6, beta 1/2) has a float
 * kernel only; a double x takes Max and Min, divided by 6 where PyTorch
 * divides */
static ValId
relu6_3(Lower *L, ValId x)
{
	return lw_op2(L, "Min", lw_op2(L, "Max", lw_op2(L, "Add", x,
	    lwe_num(L, 3, x)), lwe_num(L, 0, x)), lwe_num(L, 6, x));
}

static ValId
hard_sigmoid(Lower *L, ValId x)
{
	if (lw_dtype(L, x) == DT_F64)
		return lw_op2(L, "Div", relu6_3(L, x), lwe_num(L, 6, x));
	ValId r = lw_op1(L, "HardSigmoid", x);
	lw_attr_float(L, lwe_def(L, r), "alpha", 1.0 / 6);
	lw_attr_float(L, lwe_def(L, r), "beta", 0.5);
	return r;
}

/* hardsigmoid(x) = relu6(x + 3) / 6 */
static int
hardsigmoid(Lower *L)
{
	ValId x = float_in(L, true);
	return x ? lwe_done(L, hard_sigmoid(L, x)) : -1;
}

/* hardswish(x) = x * relu6(x + 3) / 6; ONNX Runtime has no HardSwish
 * kernel of its own */
static int
hardswish(Lower *L)
{
	ValId x = float_in(L, true);
	if (!x)
		return -1;
	if (lw_dtype(L, x) == DT_F64)
		return lwe_done(L, lw_op2(L, "Div", lw_op2(L, "Mul", x,
		    relu6_3(L, x)), lwe_num(L, 6, x)));
	return lwe_done(L, lw_op2(L, "Mul", x, hard_sigmoid(L, x)));
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_elementwise_act LW_THIS
const LowerRule lw_rules_elementwise_act[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
