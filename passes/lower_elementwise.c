/* lower_elementwise.c - lowering rules for elementwise ATen ops: arithmetic,
 * unary math, activations, clamps, comparisons, logic, where, casts and
 * fills.
 *
 * Semantics are torch's.  Each rule reads its operands in a compute dtype,
 * emits ONNX nodes and casts the result to the dtype of the FX annotation,
 * which is the ground truth for type promotion.
 *
 * Compute dtypes follow what ONNX Runtime's CPU kernels accept, since a
 * model that type-checks but has no kernel is of no use:
 * - arithmetic, comparisons, Where, Min/Max, Pow: f32, f64, i32, i64.
 *   f16/bf16 compute in f32, as torch's CPU kernels do (opmath), so the
 *   single rounding back matches torch; bool and small ints compute in i32
 *   (bool + bool then is Or, bool * bool And, after the cast back).
 * - most float functions (Cos, Erf, Elu, Softplus ...) have f32 kernels
 *   only: f64 inputs compute in f32 for those.
 */
#include <math.h>
#include <string.h>

#include "lower.h"

/* ---------------------------------------------------------------- helpers */

/* The dtype arithmetic on dt computes in; DT_UNDEF (after an error) when
 * ONNX has no arithmetic for it (complex, float8, strings). */
static DType
compute_type(Lower *L, DType dt)
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
	case DT_BOOL:
	case DT_I8:
	case DT_I16:
	case DT_U8:
	case DT_U16:
		return DT_I32;
	case DT_U32:
	case DT_U64:
		return DT_I64;
	default:
		lw_fail(L, "no elementwise arithmetic on %s tensors",
		    ir_dtype_name(dt));
		return DT_UNDEF;
	}
}

/* The dtype a float function of a dt result computes in: f64 only when the
 * ONNX Runtime kernel has one (dbl). */
static DType
float_type(DType dt, bool dbl)
{
	return dt == DT_F64 && dbl ? DT_F64 : DT_F32;
}

/* The dtype of FX output 0, or fallback when it has no annotation. */
static DType
out_dtype(Lower *L, DType fallback)
{
	const Value *o = lw_outval(L, 0);
	return o->kind == VK_TENSOR && o->dtype ? (DType)o->dtype : fallback;
}

/* Bind v to FX output 0 in the annotated dtype. */
static int
done(Lower *L, ValId v)
{
	if (!v)
		return -1;
	const Value *o = lw_outval(L, 0);
	if (o->kind == VK_TENSOR && o->dtype)
		v = lw_cast(L, v, (DType)o->dtype);
	lw_bind(L, 0, v);
	return 0;
}

/* Operands i and j as values of dtype ct; false after an error. */
static bool
operands(Lower *L, int i, const char *ki, int j, const char *kj, DType ct,
    ValId *a, ValId *b)
{
	*a = lw_operand(L, i, ki, ct);
	*b = *a ? lw_operand(L, j, kj, ct) : 0;
	return *b != 0;
}

/* A 0-d constant v of the dtype of like. */
static ValId
num(Lower *L, double v, ValId like)
{
	return lw_scalar(L, v, lw_dtype(L, like));
}

/* the node that computes v, to add attributes right after emitting it */
static NodeId
def(Lower *L, ValId v)
{
	return ir_val(L->dst, v)->def;
}

static ValId
cmp(Lower *L, const char *op, ValId a, ValId b)
{
	return lw_op2t(L, op, a, b, DT_BOOL);
}

static ValId
where(Lower *L, ValId c, ValId a, ValId b)
{
	NodeId n = lw_emit(L, "Where", 3, (ValId[]){c, a, b}, 1);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, lw_dtype(L, a));
	return r;
}

static ValId
mod(Lower *L, ValId a, ValId b, int fmod)
{
	ValId r = lw_op2(L, "Mod", a, b);
	lw_attr_int(L, def(L, r), "fmod", fmod);
	return r;
}

/* round toward zero; ONNX has no Trunc */
static ValId
trunc_f(Lower *L, ValId x)
{
	return where(L, cmp(L, "Less", x, num(L, 0, x)), lw_op1(L, "Ceil", x),
	    lw_op1(L, "Floor", x));
}

static ValId
is_nan(Lower *L, ValId x)
{
	ValId r = lw_op1(L, "IsNaN", x);
	lw_settype(L, r, DT_BOOL);
	return r;
}

static ValId
shape_of(Lower *L, ValId x)
{
	ValId r = lw_op1(L, "Shape", x);
	lw_settype(L, r, DT_I64);
	return r;
}

/* v broadcast to the run-time shape of like; Expand has no bf16 kernel */
static ValId
expand_to(Lower *L, ValId v, ValId like)
{
	DType dt = lw_dtype(L, v);
	if (dt == DT_BF16)
		v = lw_cast(L, v, DT_F32);
	ValId r = lw_op2(L, "Expand", v, shape_of(L, like));
	return lw_cast(L, r, dt);
}

/* A number arg (int, float or bool) as a double; false if it is not one. */
static bool
number(Lower *L, int i, const char *kw, double *v)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a)
		return false;
	if (a->kind == A_FLOAT)
		*v = a->u.f;
	else if (a->kind == A_INT || a->kind == A_BOOL)
		*v = (double)a->u.i;
	else
		return false;
	return true;
}

/* What the rules shared by a family of ops need to know about each, by
 * base name: "aten::sin_.default" is "sin". */
enum {
	F64_OK = 1,    /* float functions: ONNX Runtime has an f64 kernel */
	NEGATE = 2,    /* the result is negated (ne, isfinite) */
	NAN_AWARE = 4, /* fmin/fmax: a nan loses to a number */
	POS_INF = 8,   /* IsInf detect_positive */
	NEG_INF = 16,  /* IsInf detect_negative */
};

typedef struct OpInfo {
	const char *name;
	const char *op;  /* the ONNX op */
	const char *op2; /* bitwise ops: the ONNX op for integers */
	int flags;
} OpInfo;

static const OpInfo infos[] = {
	/* arith, addc */
	{"add", "Add", NULL, 0},
	{"sub", "Sub", NULL, 0},
	{"mul", "Mul", NULL, 0},
	{"addcmul", "Mul", NULL, 0},
	{"addcdiv", "Div", NULL, 0},
	/* unary_same, rounding */
	{"neg", "Neg", NULL, 0},
	{"negative", "Neg", NULL, 0},
	{"abs", "Abs", NULL, 0},
	{"absolute", "Abs", NULL, 0},
	{"sign", "Sign", NULL, 0},
	{"sgn", "Sign", NULL, 0},
	{"floor", "Floor", NULL, 0},
	{"ceil", "Ceil", NULL, 0},
	{"trunc", NULL, NULL, 0},
	{"fix", NULL, NULL, 0},
	/* unary_float */
	{"exp", "Exp", NULL, F64_OK},
	{"log", "Log", NULL, F64_OK},
	{"sqrt", "Sqrt", NULL, F64_OK},
	{"reciprocal", "Reciprocal", NULL, F64_OK},
	{"sin", "Sin", NULL, F64_OK},
	{"cos", "Cos", NULL, 0},
	{"tan", "Tan", NULL, 0},
	{"asin", "Asin", NULL, 0},
	{"acos", "Acos", NULL, 0},
	{"atan", "Atan", NULL, 0},
	{"arcsin", "Asin", NULL, 0},
	{"arccos", "Acos", NULL, 0},
	{"arctan", "Atan", NULL, 0},
	{"sinh", "Sinh", NULL, 0},
	{"cosh", "Cosh", NULL, 0},
	{"tanh", "Tanh", NULL, F64_OK},
	{"asinh", "Asinh", NULL, 0},
	{"acosh", "Acosh", NULL, 0},
	{"atanh", "Atanh", NULL, 0},
	{"erf", "Erf", NULL, 0},
	{"sigmoid", "Sigmoid", NULL, F64_OK},
	/* minmax */
	{"minimum", "Min", NULL, 0},
	{"maximum", "Max", NULL, 0},
	{"min", "Min", NULL, 0},  /* min.other, max.other */
	{"max", "Max", NULL, 0},
	{"fmin", "Min", NULL, NAN_AWARE},
	{"fmax", "Max", NULL, NAN_AWARE},
	/* compare */
	{"eq", "Equal", NULL, 0},
	{"ne", "Equal", NULL, NEGATE},
	{"lt", "Less", NULL, 0},
	{"le", "LessOrEqual", NULL, 0},
	{"gt", "Greater", NULL, 0},
	{"ge", "GreaterOrEqual", NULL, 0},
	/* logical, bitwise */
	{"logical_and", "And", NULL, 0},
	{"logical_or", "Or", NULL, 0},
	{"logical_xor", "Xor", NULL, 0},
	{"bitwise_and", "And", "BitwiseAnd", 0},
	{"bitwise_or", "Or", "BitwiseOr", 0},
	{"bitwise_xor", "Xor", "BitwiseXor", 0},
	{"__and__", "And", "BitwiseAnd", 0},
	{"__or__", "Or", "BitwiseOr", 0},
	{"__xor__", "Xor", "BitwiseXor", 0},
	/* classify */
	{"isnan", "IsNaN", NULL, 0},
	{"isinf", "IsInf", NULL, POS_INF | NEG_INF},
	{"isposinf", "IsInf", NULL, POS_INF},
	{"isneginf", "IsInf", NULL, NEG_INF},
	{"isfinite", "IsInf", NULL, POS_INF | NEG_INF | NEGATE},
};

/* The entry of the op being lowered; in-place spellings ("sin_") read as
 * their functional form, as the rule lookup does. */
static const OpInfo *
info(Lower *L)
{
	const char *s = ir_str(L->m, lw_node(L)->op);
	const char *b = strstr(s, "::");
	b = b ? b + 2 : s;
	const char *dot = strchr(b, '.');
	size_t n = dot ? (size_t)(dot - b) : strlen(b);
	if (n >= 2 && b[n - 1] == '_' && b[n - 2] != '_')
		n--;
	for (size_t k = 0; k < sizeof infos / sizeof *infos; k++)
		if (strlen(infos[k].name) == n && !strncmp(infos[k].name, b, n))
			return &infos[k];
	BUG("no elementwise OpInfo for %s", s);
}

/* ------------------------------------------------------------- arithmetic */

/* x * alpha, skipped when alpha is absent or 1 */
static ValId
scale_alpha(Lower *L, ValId x, DType ct)
{
	double al;
	if (!lw_has(L, 2, "alpha") || (number(L, 2, "alpha", &al) && al == 1))
		return x;
	ValId a = lw_operand(L, 2, "alpha", ct);
	return a ? lw_op2(L, "Mul", x, a) : 0;
}

/* Operands self and arg 1 (named kb) in the compute type of the result;
 * returns that, or DT_UNDEF after an error. */
static DType
binary(Lower *L, const char *kb, ValId *a, ValId *b)
{
	DType ct = compute_type(L, out_dtype(L, lw_promote(L, 0, "self", 1,
	    kb)));
	if (!ct || !operands(L, 0, "self", 1, kb, ct, a, b))
		return DT_UNDEF;
	return ct;
}

/* m and b differ in sign, m nonzero: where a remainder m of division by b
 * needs fixing to take b's sign (Python's rule) */
static ValId
sign_differs(Lower *L, ValId m, ValId b)
{
	ValId zero = num(L, 0, m);
	ValId diff = lw_op2t(L, "Xor", cmp(L, "Less", b, zero), cmp(L, "Less",
	    m, zero), DT_BOOL);
	return lw_op2t(L, "And", lw_op1(L, "Not", cmp(L, "Equal", m, zero)),
	    diff, DT_BOOL);
}

/* add/sub/mul(self, other[, alpha]): self op alpha * other */
static int
arith(Lower *L)
{
	ValId a, b;
	DType ct = binary(L, "other", &a, &b);
	if (!ct || !(b = scale_alpha(L, b, ct)))
		return -1;
	return done(L, lw_op2(L, info(L)->op, a, b));
}

/* rsub(self, other, alpha) = other - alpha * self */
static int
rsub(Lower *L)
{
	ValId a, b;
	DType ct = binary(L, "other", &a, &b);
	if (!ct || !(a = scale_alpha(L, a, ct)))
		return -1;
	return done(L, lw_op2(L, "Sub", b, a));
}

/* torch's floor division of floats (div_floor_floating): from the fmod
 * remainder, so that 1 // 0.1 is 9 like Python, not floor(1 / 0.1) = 10 */
static ValId
floordiv_float(Lower *L, ValId a, ValId b)
{
	ValId zero = num(L, 0, a), one = num(L, 1, a);
	ValId m = mod(L, a, b, 1);
	ValId d = lw_op2(L, "Div", lw_op2(L, "Sub", a, m), b);
	d = where(L, sign_differs(L, m, b), lw_op2(L, "Sub", d, one), d);
	ValId f = lw_op1(L, "Floor", d);
	ValId up = cmp(L, "Greater", lw_op2(L, "Sub", d, f), num(L, 0.5, a));
	f = where(L, up, lw_op2(L, "Add", f, one), f);
	/* x // 0 is x / 0 (inf or nan) */
	return where(L, cmp(L, "Equal", b, zero), lw_op2(L, "Div", a, b), f);
}

/* Division with rounding mode NULL (true division), "trunc" or "floor". */
static int
divide(Lower *L, const char *mode)
{
	DType pt = lw_promote(L, 0, "self", 1, "other");
	if (!mode) {
		DType dt = out_dtype(L, ir_dtype_is_float(pt) ? pt : DT_F32);
		DType ct = compute_type(L, ir_dtype_is_float(dt) ? dt
		    : DT_F32);
		ValId a, b;
		if (!ct || !operands(L, 0, "self", 1, "other", ct, &a, &b))
			return -1;
		return done(L, lw_op2(L, "Div", a, b));
	}
	DType ct = compute_type(L, out_dtype(L, pt));
	ValId a, b;
	if (!ct || !operands(L, 0, "self", 1, "other", ct, &a, &b))
		return -1;
	bool fl = ir_dtype_is_float(ct);
	if (strcmp(mode, "trunc") == 0) {
		/* integer Div truncates already */
		ValId q = lw_op2(L, "Div", a, b);
		return done(L, fl ? trunc_f(L, q) : q);
	}
	if (strcmp(mode, "floor") != 0)
		return lw_fail(L, "unknown rounding_mode '%s'", mode);
	if (fl)
		return done(L, floordiv_float(L, a, b));
	/* a - a mod b (Python sign) is an exact multiple of b */
	ValId r = mod(L, a, b, 0);
	return done(L, lw_op2(L, "Div", lw_op2(L, "Sub", a, r), b));
}

static int
div_true(Lower *L)
{
	return divide(L, NULL);
}

static int
div_mode(Lower *L)
{
	const Arg *m = lw_arg(L, 2, "rounding_mode");
	if (m && m->kind != A_NONE && m->kind != A_STR)
		return lw_fail(L, "rounding_mode must be a string or None");
	return divide(L, m && m->kind == A_STR ? ir_str(L->m, m->u.s) : NULL);
}

static int
floor_divide(Lower *L)
{
	return divide(L, "floor");
}

/* remainder: the sign of the divisor, like Python's % */
static int
remainder_(Lower *L)
{
	ValId a, b;
	DType ct = binary(L, "other", &a, &b);
	if (!ct)
		return -1;
	if (!ir_dtype_is_float(ct))
		return done(L, mod(L, a, b, 0));
	/* ONNX Mod needs fmod=1 for floats: fix the sign as torch does */
	ValId m = mod(L, a, b, 1);
	return done(L, where(L, sign_differs(L, m, b), lw_op2(L, "Add", m, b),
	    m));
}

/* fmod: the sign of the dividend, like C */
static int
fmod_(Lower *L)
{
	ValId a, b;
	return binary(L, "other", &a, &b) ? done(L, mod(L, a, b, 1)) : -1;
}

/* pow(self, exponent); a few constant exponents have exact forms, as in
 * torch's kernels */
static int
pow_(Lower *L)
{
	DType ct = compute_type(L, out_dtype(L, lw_promote(L, 0, "self", 1,
	    "exponent")));
	ValId a, b;
	double e;
	if (!ct)
		return -1;
	if (!ir_dtype_is_float(ct) || !lw_srcval(L, 0, "self") ||
	    !number(L, 1, "exponent", &e)) {
		if (!operands(L, 0, "self", 1, "exponent", ct, &a, &b))
			return -1;
		return done(L, lw_op2(L, "Pow", a, b));
	}
	if (!(a = lw_operand(L, 0, "self", ct)))
		return -1;
	if (e == 1)
		return done(L, a);
	if (e == 2)
		return done(L, lw_op2(L, "Mul", a, a));
	if (e == 0.5)
		return done(L, lw_op1(L, "Sqrt", a));
	if (e == -1)
		return done(L, lw_op1(L, "Reciprocal", a));
	return done(L, lw_op2(L, "Pow", a, num(L, e, a)));
}

/* --------------------------------------------------------- unary, integer */

/* ops that keep the dtype: computed in the compute type of the input */
static ValId
int_in(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return 0;
	DType ct = compute_type(L, out_dtype(L, lw_dtype(L, x)));
	return ct ? lw_cast(L, x, ct) : 0;
}

/* neg, abs, sign */
static int
unary_same(Lower *L)
{
	ValId x = int_in(L);
	return x ? done(L, lw_op1(L, info(L)->op, x)) : -1;
}

static int
square(Lower *L)
{
	ValId x = int_in(L);
	return x ? done(L, lw_op2(L, "Mul", x, x)) : -1;
}

static int
positive(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	return x ? done(L, x) : -1;
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
		return done(L, x);
	x = lw_cast(L, x, float_type(dt, true));
	return done(L, op ? lw_op1(L, op, x) : trunc_f(L, x));
}

/* floor, ceil, trunc */
static int
round_whole(Lower *L)
{
	return rounding(L, info(L)->op);
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
		return done(L, x);
	x = lw_cast(L, x, float_type(dt, true));
	ValId p = num(L, pow(10, (double)(d < 0 ? -d : d)), x);
	if (d > 0)
		return done(L, lw_op2(L, "Div", lw_op1(L, "Round", lw_op2(L,
		    "Mul", x, p)), p));
	return done(L, lw_op2(L, "Mul", lw_op1(L, "Round", lw_op2(L, "Div",
	    x, p)), p));
}

/* frac(x) = x - trunc(x) */
static int
frac(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	x = lw_cast(L, x, float_type(lw_dtype(L, x), true));
	return done(L, lw_op2(L, "Sub", x, trunc_f(L, x)));
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
	dt = out_dtype(L, ir_dtype_is_float(dt) ? dt : DT_F32);
	return lw_cast(L, x, float_type(dt, dbl));
}

/* exp, sin, erf ... */
static int
unary_float(Lower *L)
{
	const OpInfo *in = info(L);
	ValId x = float_in(L, in->flags & F64_OK);
	return x ? done(L, lw_op1(L, in->op, x)) : -1;
}

static int
erfc_(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	return done(L, lw_op2(L, "Sub", num(L, 1, x), lw_op1(L, "Erf", x)));
}

static int
exp2_(Lower *L)
{
	ValId x = float_in(L, true);
	return x ? done(L, lw_op2(L, "Pow", num(L, 2, x), x)) : -1;
}

static int
expm1_(Lower *L)
{
	ValId x = float_in(L, true);
	if (!x)
		return -1;
	return done(L, lw_op2(L, "Sub", lw_op1(L, "Exp", x), num(L, 1, x)));
}

static int
log1p_(Lower *L)
{
	ValId x = float_in(L, true);
	if (!x)
		return -1;
	return done(L, lw_op1(L, "Log", lw_op2(L, "Add", x, num(L, 1, x))));
}

/* log(x) / log(base) */
static int
log_base(Lower *L, double base)
{
	ValId x = float_in(L, true);
	if (!x)
		return -1;
	return done(L, lw_op2(L, "Mul", lw_op1(L, "Log", x), num(L,
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
	return x ? done(L, lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", x)))
	    : -1;
}

/* atan2(y, x): atan(y / x) moved to the quadrant of (x, y) */
static int
atan2_(Lower *L)
{
	DType pt = lw_promote(L, 0, "self", 1, "other");
	DType ct = float_type(out_dtype(L, ir_dtype_is_float(pt) ? pt
	    : DT_F32), false);
	ValId y, x;
	if (!operands(L, 0, "self", 1, "other", ct, &y, &x))
		return -1;
	ValId zero = num(L, 0, x);
	ValId r = lw_op1(L, "Atan", lw_op2(L, "Div", y, x));
	ValId turn = where(L, cmp(L, "GreaterOrEqual", y, zero), num(L, M_PI,
	    x), num(L, -M_PI, x));
	r = where(L, cmp(L, "Less", x, zero), lw_op2(L, "Add", r, turn), r);
	/* atan2(0, 0) = 0, where y / x is nan */
	ValId origin = lw_op2t(L, "And", cmp(L, "Equal", x, zero), cmp(L,
	    "Equal", y, zero), DT_BOOL);
	return done(L, where(L, origin, zero, r));
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
		return done(L, lw_op2(L, "Max", x, num(L, 0, x)));
	return done(L, lw_op1(L, "Relu", x));
}

/* Clip(x, lo, hi); a bound is left out when has_lo/has_hi is false */
static ValId
clip(Lower *L, ValId x, bool has_lo, double lo, bool has_hi, double hi)
{
	ValId in[3] = {x, has_lo ? num(L, lo, x) : 0, has_hi ? num(L, hi, x)
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
	return done(L, clip(L, x, true, lo, true, hi));
}

static int
relu6(Lower *L)
{
	ValId x = int_in(L);
	return x ? done(L, clip(L, x, true, 0, true, 6)) : -1;
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
	return done(L, where(L, cmp(L, "Greater", x, t), x, v));
}

static int
leaky_relu(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	double slope = lw_float(L, 1, "negative_slope", 0.01);
	ValId r = lw_op1(L, "LeakyRelu", x);
	lw_attr_float(L, def(L, r), "alpha", slope);
	return done(L, r);
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
		lw_attr_float(L, def(L, r), "alpha", alpha);
		return done(L, r);
	}
	ValId neg = lw_op2(L, "Sub", lw_op1(L, "Exp", lw_op2(L, "Mul", x,
	    num(L, in_scale, x))), num(L, 1, x));
	neg = lw_op2(L, "Mul", neg, num(L, alpha * scale, x));
	ValId pos = lw_op2(L, "Mul", x, num(L, scale, x));
	return done(L, where(L, cmp(L, "Greater", x, num(L, 0, x)), pos, neg));
}

static int
selu(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	ValId r = lw_op1(L, "Selu", x);
	/* torch's constants (ONNX's defaults are these rounded to f32) */
	lw_attr_float(L, def(L, r), "alpha", 1.6732632423543772848170429916717);
	lw_attr_float(L, def(L, r), "gamma", 1.0507009873554804934193349852946);
	return done(L, r);
}

static int
celu(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	double alpha = lw_float(L, 1, "alpha", 1);
	ValId r = lw_op1(L, "Celu", x);
	lw_attr_float(L, def(L, r), "alpha", alpha);
	return done(L, r);
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
		inner = lw_op2(L, "Add", x, lw_op2(L, "Mul", x3, num(L,
		    0.044715, x)));
		inner = lw_op2(L, "Mul", inner, num(L, sqrt(2 / M_PI), x));
		inner = lw_op1(L, "Tanh", inner);
	} else {
		inner = lw_op1(L, "Erf", lw_op2(L, "Mul", x, num(L, M_SQRT1_2,
		    x)));
	}
	ValId half = lw_op2(L, "Mul", x, num(L, 0.5, x));
	return done(L, lw_op2(L, "Mul", half, lw_op2(L, "Add", inner, num(L,
	    1, x))));
}

static int
silu(Lower *L)
{
	ValId x = float_in(L, true);
	return x ? done(L, lw_op2(L, "Mul", x, lw_op1(L, "Sigmoid", x))) : -1;
}

/* mish(x) = x * tanh(softplus(x)) */
static int
mish(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	return done(L, lw_op2(L, "Mul", x, lw_op1(L, "Tanh", lw_op1(L,
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
	ValId bx = beta == 1 ? x : lw_op2(L, "Mul", x, num(L, beta, x));
	ValId sp = lw_op1(L, "Softplus", bx);
	if (beta != 1)
		sp = lw_op2(L, "Div", sp, num(L, beta, x));
	return done(L, where(L, cmp(L, "Greater", bx, num(L, th, x)), x, sp));
}

/* log(sigmoid(x)) = -softplus(-x) */
static int
log_sigmoid(Lower *L)
{
	ValId x = float_in(L, false);
	if (!x)
		return -1;
	return done(L, lw_op1(L, "Neg", lw_op1(L, "Softplus", lw_op1(L, "Neg",
	    x))));
}

static ValId
hard_sigmoid(Lower *L, ValId x)
{
	ValId r = lw_op1(L, "HardSigmoid", x);
	lw_attr_float(L, def(L, r), "alpha", 1.0 / 6);
	lw_attr_float(L, def(L, r), "beta", 0.5);
	return r;
}

/* hardsigmoid(x) = relu6(x + 3) / 6 */
static int
hardsigmoid(Lower *L)
{
	ValId x = float_in(L, false);
	return x ? done(L, hard_sigmoid(L, x)) : -1;
}

/* hardswish(x) = x * relu6(x + 3) / 6; ONNX Runtime has no HardSwish
 * kernel of its own */
static int
hardswish(Lower *L)
{
	ValId x = float_in(L, false);
	return x ? done(L, lw_op2(L, "Mul", x, hard_sigmoid(L, x))) : -1;
}

/* ------------------------------------------------------- clamp, min, max */

/* clamp(self, min, max) with the bounds at args imin/imax (-1: none);
 * Python number bounds become Clip, tensor bounds Max and Min */
static int
clamp_args(Lower *L, int imin, const char *kmin, int imax, const char *kmax)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType ct = compute_type(L, out_dtype(L, lw_dtype(L, x)));
	if (!ct)
		return -1;
	x = lw_cast(L, x, ct);
	bool has_lo = kmin && lw_has(L, imin, kmin),
	     has_hi = kmax && lw_has(L, imax, kmax);
	double lo = 0, hi = 0;
	bool nlo = !has_lo || number(L, imin, kmin, &lo),
	     nhi = !has_hi || number(L, imax, kmax, &hi);
	if (!has_lo && !has_hi)
		return lw_fail(L, "clamp needs at least one of min and max");
	if (nlo && nhi)
		return done(L, clip(L, x, has_lo, lo, has_hi, hi));
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
	return done(L, x);
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
	const OpInfo *in = info(L);
	ValId a, b;
	DType ct = binary(L, "other", &a, &b);
	if (!ct)
		return -1;
	ValId r = lw_op2(L, in->op, a, b);
	if ((in->flags & NAN_AWARE) && ir_dtype_is_float(ct)) {
		r = where(L, is_nan(L, b), a, r);
		r = where(L, is_nan(L, a), b, r);
	}
	return done(L, r);
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
	DType ct = compute_type(L, out_dtype(L, lw_promote(L, 1, "self", 2,
	    "other")));
	ValId c = ct ? condition(L, 0, "condition") : 0;
	ValId a, b;
	if (!c || !operands(L, 1, "self", 2, "other", ct, &a, &b))
		return -1;
	return done(L, where(L, c, a, b));
}

/* masked_fill(self, mask, value): value where mask, in self's dtype */
static int
masked_fill(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType ct = compute_type(L, out_dtype(L, lw_dtype(L, x)));
	ValId c = ct ? condition(L, 1, "mask") : 0;
	ValId v = c ? lw_operand(L, 2, "value", ct) : 0;
	if (!v)
		return -1;
	return done(L, where(L, c, v, lw_cast(L, x, ct)));
}

/* ------------------------------------------------ comparisons and logic */

/* comparisons compute in the promoted dtype */
static int
compare(Lower *L)
{
	const OpInfo *in = info(L);
	DType ct = compute_type(L, lw_promote(L, 0, "self", 1, "other"));
	ValId a, b;
	if (!ct || !operands(L, 0, "self", 1, "other", ct, &a, &b))
		return -1;
	ValId r = cmp(L, in->op, a, b);
	return done(L, in->flags & NEGATE ? lw_op1(L, "Not", r) : r);
}

/* logical_*: operands are true when nonzero */
static int
logical(Lower *L)
{
	ValId a, b;
	if (!operands(L, 0, "self", 1, "other", DT_BOOL, &a, &b))
		return -1;
	return done(L, lw_op2(L, info(L)->op, a, b));
}

static int
logical_not(Lower *L)
{
	ValId x = lw_operand(L, 0, "self", DT_BOOL);
	return x ? done(L, lw_op1(L, "Not", x)) : -1;
}

/* bitwise ops: And/Or/Xor on bools, Bitwise* (opset 18) on integers */
static int
bitwise(Lower *L)
{
	const char *boolop = info(L)->op, *intop = info(L)->op2;
	DType pt = out_dtype(L, lw_promote(L, 0, "self", 1, "other"));
	if (pt != DT_BOOL && !ir_dtype_is_int(pt))
		return lw_fail(L, "bitwise operation on %s tensors",
		    ir_dtype_name(pt));
	if (pt != DT_BOOL && L->opset < 18)
		return lw_fail(L, "bitwise operations on integers need opset "
		    "18 or later (%s)", intop);
	ValId a, b;
	if (!operands(L, 0, "self", 1, "other", pt, &a, &b))
		return -1;
	return done(L, lw_op2(L, pt == DT_BOOL ? boolop : intop, a, b));
}

static int
bitwise_not(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (dt == DT_BOOL)
		return done(L, lw_op1(L, "Not", x));
	if (!ir_dtype_is_int(dt))
		return lw_fail(L, "bitwise_not on %s tensors",
		    ir_dtype_name(dt));
	if (L->opset < 18)
		return lw_fail(L, "bitwise_not on integers needs opset 18 or "
		    "later");
	return done(L, lw_op1(L, "BitwiseNot", x));
}

/* isnan/isinf/isfinite.  Integers are always finite: x == x gives the
 * all-true mask of x's shape. */
static ValId
is_inf(Lower *L, ValId x, bool pos, bool neg)
{
	ValId r = lw_op1(L, "IsInf", x);
	lw_settype(L, r, DT_BOOL);
	lw_attr_int(L, def(L, r), "detect_positive", pos);
	lw_attr_int(L, def(L, r), "detect_negative", neg);
	return r;
}

static int
classify(Lower *L)
{
	const OpInfo *in = info(L);
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (!ir_dtype_is_float(dt)) {
		DType ct = compute_type(L, dt);
		if (!ct)
			return -1;
		x = lw_cast(L, x, ct);
		ValId all = cmp(L, "Equal", x, x);
		return done(L, in->flags & NEGATE ? all : lw_op1(L, "Not",
		    all));
	}
	x = lw_cast(L, x, float_type(dt, true));
	if (!strcmp(in->op, "IsNaN"))
		return done(L, is_nan(L, x));
	ValId inf = is_inf(L, x, in->flags & POS_INF, in->flags & NEG_INF);
	if (!(in->flags & NEGATE))
		return done(L, inf);
	return done(L, lw_op1(L, "Not", lw_op2t(L, "Or", is_nan(L, x), inf,
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
		return done(L, x);
	double big = float_max(dt);
	double vn = lw_float(L, 1, "nan", 0), vp = lw_float(L, 2, "posinf",
	    big), vm = lw_float(L, 3, "neginf", -big);
	x = lw_cast(L, x, float_type(dt, true));
	ValId r = where(L, is_nan(L, x), num(L, vn, x),
	    x);
	r = where(L, is_inf(L, x, true, false), num(L, vp, x), r);
	r = where(L, is_inf(L, x, false, true), num(L, vm, x), r);
	return done(L, r);
}

/* ------------------------------------------- lerp, addcmul, addcdiv */

/* lerp(self, end, weight): torch's two-sided form, exact at both ends:
 *   |w| < 0.5 ? self + w * (end - self) : end - (end - self) * (1 - w) */
static int
lerp(Lower *L)
{
	ValId a, b;
	DType ct = binary(L, "end", &a, &b);
	ValId w = ct ? lw_operand(L, 2, "weight", ct) : 0;
	if (!w)
		return -1;
	ValId d = lw_op2(L, "Sub", b, a);
	ValId lo = lw_op2(L, "Add", a, lw_op2(L, "Mul", w, d));
	ValId hi = lw_op2(L, "Sub", b, lw_op2(L, "Mul", d, lw_op2(L, "Sub",
	    num(L, 1, w), w)));
	double wv;
	if (number(L, 2, "weight", &wv))
		return done(L, fabs(wv) < 0.5 ? lo : hi);
	ValId small = cmp(L, "Less", lw_op1(L, "Abs", w), num(L, 0.5, w));
	return done(L, where(L, small, lo, hi));
}

/* addcmul/addcdiv(self, tensor1, tensor2, value): self + value * (t1 op t2)
 */
static int
addc(Lower *L)
{
	const char *op = info(L)->op;
	DType ct = compute_type(L, out_dtype(L, lw_promote(L, 0, "self", 1,
	    "tensor1")));
	if (!ct)
		return -1;
	if (!strcmp(op, "Div") && !ir_dtype_is_float(ct))
		return lw_fail(L, "addcdiv on integer tensors");
	ValId s, t1, t2;
	if (!operands(L, 0, "self", 1, "tensor1", ct, &s, &t1) ||
	    !(t2 = lw_operand(L, 2, "tensor2", ct)))
		return -1;
	ValId p = lw_op2(L, op, t1, t2);
	double v;
	if (lw_has(L, 3, "value") && !(number(L, 3, "value", &v) && v == 1)) {
		ValId k = lw_operand(L, 3, "value", ct);
		if (!k)
			return -1;
		p = lw_op2(L, "Mul", p, k);
	}
	return done(L, lw_op2(L, "Add", s, p));
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
 * and memory format mean nothing to ONNX) */
static int
convert(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = out_dtype(L, dtype_arg(L));
	if (!dt) {
		const Value *o = lw_srcval(L, 1, "other");
		dt = o && o->kind == VK_TENSOR ? (DType)o->dtype : DT_UNDEF;
	}
	return done(L, dt ? lw_cast(L, x, dt) : x);
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
	s = lw_cast(L, s, out_dtype(L, lw_dtype(L, x)));
	const Value *vx = lw_srcval(L, 0, "self"), *vs = lw_srcval(L, 1, "src");
	if (same_shape(L, vx, vs))
		return done(L, s);
	return done(L, expand_to(L, s, x));
}

/* A tensor of self's run-time shape filled with arg i (a number or a 0-d
 * tensor), or with dflt when i < 0. */
static int
fill_like(Lower *L, int i, const char *kw, double dflt)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	DType dt = out_dtype(L, lw_dtype(L, x));
	ValId v = i >= 0 ? lw_operand(L, i, kw, dt) : lw_scalar(L, dflt, dt);
	return v ? done(L, expand_to(L, v, x)) : -1;
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

const LowerRule lw_rules_elementwise[] = {
	/* arithmetic */
	{"aten::add.Tensor", arith},
	{"aten::add.Scalar", arith},
	{"aten::sub.Tensor", arith},
	{"aten::sub.Scalar", arith},
	{"aten::rsub.Tensor", rsub},
	{"aten::rsub.Scalar", rsub},
	{"aten::mul.Tensor", arith},
	{"aten::mul.Scalar", arith},
	{"aten::div.Tensor", div_true},
	{"aten::div.Scalar", div_true},
	{"aten::div.Tensor_mode", div_mode},
	{"aten::div.Scalar_mode", div_mode},
	{"aten::true_divide.Tensor", div_true},
	{"aten::true_divide.Scalar", div_true},
	{"aten::floor_divide.default", floor_divide},
	{"aten::floor_divide.Scalar", floor_divide},
	{"aten::remainder.Tensor", remainder_},
	{"aten::remainder.Scalar", remainder_},
	{"aten::remainder.Scalar_Tensor", remainder_},
	{"aten::fmod.Tensor", fmod_},
	{"aten::fmod.Scalar", fmod_},
	{"aten::pow.Tensor_Scalar", pow_},
	{"aten::pow.Tensor_Tensor", pow_},
	{"aten::pow.Scalar", pow_},
	/* unary, dtype kept */
	{"aten::neg.default", unary_same},
	{"aten::negative.default", unary_same},
	{"aten::abs.default", unary_same},
	{"aten::absolute.default", unary_same},
	{"aten::sign.default", unary_same},
	{"aten::sgn.default", unary_same},
	{"aten::square.default", square},
	{"aten::positive.default", positive},
	{"aten::floor.default", round_whole},
	{"aten::ceil.default", round_whole},
	{"aten::round.default", round_},
	{"aten::round.decimals", round_},
	{"aten::trunc.default", round_whole},
	{"aten::fix.default", round_whole},
	{"aten::frac.default", frac},
	/* unary, float */
	{"aten::exp.default", unary_float},
	{"aten::exp2.default", exp2_},
	{"aten::expm1.default", expm1_},
	{"aten::log.default", unary_float},
	{"aten::log1p.default", log1p_},
	{"aten::log2.default", log2_},
	{"aten::log10.default", log10_},
	{"aten::sqrt.default", unary_float},
	{"aten::rsqrt.default", rsqrt},
	{"aten::reciprocal.default", unary_float},
	{"aten::sin.default", unary_float},
	{"aten::cos.default", unary_float},
	{"aten::tan.default", unary_float},
	{"aten::asin.default", unary_float},
	{"aten::acos.default", unary_float},
	{"aten::atan.default", unary_float},
	{"aten::arcsin.default", unary_float},
	{"aten::arccos.default", unary_float},
	{"aten::arctan.default", unary_float},
	{"aten::atan2.default", atan2_},
	{"aten::arctan2.default", atan2_},
	{"aten::sinh.default", unary_float},
	{"aten::cosh.default", unary_float},
	{"aten::tanh.default", unary_float},
	{"aten::asinh.default", unary_float},
	{"aten::acosh.default", unary_float},
	{"aten::atanh.default", unary_float},
	{"aten::erf.default", unary_float},
	{"aten::erfc.default", erfc_},
	{"aten::sigmoid.default", unary_float},
	/* activations */
	{"aten::relu.default", relu},
	{"aten::relu6.default", relu6},
	{"aten::hardtanh.default", hardtanh},
	{"aten::threshold.default", threshold},
	{"aten::leaky_relu.default", leaky_relu},
	{"aten::elu.default", elu},
	{"aten::selu.default", selu},
	{"aten::celu.default", celu},
	{"aten::gelu.default", gelu},
	{"aten::silu.default", silu},
	{"aten::mish.default", mish},
	{"aten::softplus.default", softplus},
	{"aten::log_sigmoid.default", log_sigmoid},
	{"aten::log_sigmoid_forward.default", log_sigmoid},
	{"aten::hardsigmoid.default", hardsigmoid},
	{"aten::hardswish.default", hardswish},
	/* clamp, min, max */
	{"aten::clamp.default", clamp},
	{"aten::clamp.Tensor", clamp},
	{"aten::clip.default", clamp},
	{"aten::clip.Tensor", clamp},
	{"aten::clamp_min.default", clamp_min},
	{"aten::clamp_min.Tensor", clamp_min},
	{"aten::clamp_max.default", clamp_max},
	{"aten::clamp_max.Tensor", clamp_max},
	{"aten::minimum.default", minmax},
	{"aten::maximum.default", minmax},
	{"aten::min.other", minmax},
	{"aten::max.other", minmax},
	{"aten::fmin.default", minmax},
	{"aten::fmax.default", minmax},
	/* where, masked_fill */
	{"aten::where.self", where_},
	{"aten::where.ScalarSelf", where_},
	{"aten::where.ScalarOther", where_},
	{"aten::where.Scalar", where_},
	{"aten::masked_fill.Scalar", masked_fill},
	{"aten::masked_fill.Tensor", masked_fill},
	/* comparisons */
	{"aten::eq.Tensor", compare},
	{"aten::eq.Scalar", compare},
	{"aten::ne.Tensor", compare},
	{"aten::ne.Scalar", compare},
	{"aten::lt.Tensor", compare},
	{"aten::lt.Scalar", compare},
	{"aten::le.Tensor", compare},
	{"aten::le.Scalar", compare},
	{"aten::gt.Tensor", compare},
	{"aten::gt.Scalar", compare},
	{"aten::ge.Tensor", compare},
	{"aten::ge.Scalar", compare},
	/* logic */
	{"aten::logical_and.default", logical},
	{"aten::logical_or.default", logical},
	{"aten::logical_xor.default", logical},
	{"aten::logical_not.default", logical_not},
	{"aten::bitwise_and.Tensor", bitwise},
	{"aten::bitwise_and.Scalar", bitwise},
	{"aten::bitwise_or.Tensor", bitwise},
	{"aten::bitwise_or.Scalar", bitwise},
	{"aten::bitwise_xor.Tensor", bitwise},
	{"aten::bitwise_xor.Scalar", bitwise},
	{"aten::bitwise_not.default", bitwise_not},
	{"aten::__and__.Tensor", bitwise},
	{"aten::__and__.Scalar", bitwise},
	{"aten::__or__.Tensor", bitwise},
	{"aten::__or__.Scalar", bitwise},
	{"aten::__xor__.Tensor", bitwise},
	{"aten::__xor__.Scalar", bitwise},
	{"aten::isnan.default", classify},
	{"aten::isinf.default", classify},
	{"aten::isfinite.default", classify},
	{"aten::isposinf.default", classify},
	{"aten::isneginf.default", classify},
	{"aten::nan_to_num.default", nan_to_num},
	/* interpolation */
	{"aten::lerp.Scalar", lerp},
	{"aten::lerp.Tensor", lerp},
	{"aten::addcmul.default", addc},
	{"aten::addcdiv.default", addc},
	/* casts and fills */
	{"aten::_to_copy.default", convert},
	{"aten::to.dtype", convert},
	{"aten::to.dtype_layout", convert},
	{"aten::to.device", convert},
	{"aten::to.other", convert},
	{"aten::type_as.default", convert},
	{"aten::copy.default", copy},
	{"aten::fill.Scalar", fill},
	{"aten::fill.Tensor", fill},
	{"aten::zeros_like.default", zeros_like},
	{"aten::ones_like.default", ones_like},
	{"aten::full_like.default", full_like},
	{"aten::empty_like.default", zeros_like},
	{NULL, NULL},
};
