/* lower_elementwise.c - lowering rules for elementwise ATen ops: arithmetic
 * and integer unary ops here; float unary math and activations in
 * lower_elementwise_act.c; clamps, comparisons, logic, where, casts and
 * fills in lower_elementwise_cmp.c (shared helpers: lower_elementwise.h).
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

#include "lower_elementwise.h"

/* ---------------------------------------------------------------- helpers */

/* The dtype arithmetic on dt computes in; DT_UNDEF (after an error) when
 * ONNX has no arithmetic for it (complex, float8, strings). */
DType
lwe_compute_type(Lower *L, DType dt)
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
DType
lwe_float_type(DType dt, bool dbl)
{
	return dt == DT_F64 && dbl ? DT_F64 : DT_F32;
}

/* The dtype of FX output 0, or fallback when it has no annotation. */
DType
lwe_out_dtype(Lower *L, DType fallback)
{
	const Value *o = lw_outval(L, 0);
	return o->kind == VK_TENSOR && o->dtype ? (DType)o->dtype : fallback;
}

/* Bind v to FX output 0 in the annotated dtype. */
int
lwe_done(Lower *L, ValId v)
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
bool
lwe_operands(Lower *L, int i, const char *ki, int j, const char *kj, DType ct,
    ValId *a, ValId *b)
{
	*a = lw_operand(L, i, ki, ct);
	*b = *a ? lw_operand(L, j, kj, ct) : 0;
	return *b != 0;
}

/* A 0-d constant v of the dtype of like. */
ValId
lwe_num(Lower *L, double v, ValId like)
{
	return lw_scalar(L, v, lw_dtype(L, like));
}

/* the node that computes v, to add attributes right after emitting it */
NodeId
lwe_def(Lower *L, ValId v)
{
	return ir_val(L->dst, v)->def;
}

ValId
lwe_cmp(Lower *L, const char *op, ValId a, ValId b)
{
	return lw_op2t(L, op, a, b, DT_BOOL);
}

ValId
lwe_where(Lower *L, ValId c, ValId a, ValId b)
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
	lw_attr_int(L, lwe_def(L, r), "fmod", fmod);
	return r;
}

/* round toward zero; ONNX has no Trunc */
ValId
lwe_trunc_f(Lower *L, ValId x)
{
	return lwe_where(L, lwe_cmp(L, "Less", x, lwe_num(L, 0, x)),
	    lw_op1(L, "Ceil", x),
	    lw_op1(L, "Floor", x));
}

ValId
lwe_is_nan(Lower *L, ValId x)
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
ValId
lwe_expand_to(Lower *L, ValId v, ValId like)
{
	DType dt = lw_dtype(L, v);
	if (dt == DT_BF16)
		v = lw_cast(L, v, DT_F32);
	ValId r = lw_op2(L, "Expand", v, shape_of(L, like));
	return lw_cast(L, r, dt);
}

/* A number arg (int, float or bool) as a double; false if it is not one. */
bool
lwe_number(Lower *L, int i, const char *kw, double *v)
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
find_info(Lower *L)
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

/* find_info once per op: a graph repeats a few ops many times. */
const OpInfo *
lwe_info(Lower *L)
{
	StrId op = lw_node(L)->op;
	LwInfo *e = &L->infos[op & (LW_INFOS - 1)];
	if (!e->info || e->op != op) {
		e->info = find_info(L);
		e->op = op;
	}
	return e->info;
}

/* ------------------------------------------------------------- arithmetic */

/* x * alpha, skipped when alpha is absent or 1 */
static ValId
scale_alpha(Lower *L, ValId x, DType ct)
{
	double al;
	if (!lw_has(L, 2, "alpha")
	    || (lwe_number(L, 2, "alpha", &al) && al == 1))
		return x;
	ValId a = lw_operand(L, 2, "alpha", ct);
	return a ? lw_op2(L, "Mul", x, a) : 0;
}

/* Operands self and arg 1 (named kb) in the compute type of the result;
 * returns that, or DT_UNDEF after an error. */
DType
lwe_binary(Lower *L, const char *kb, ValId *a, ValId *b)
{
	DType ct = lwe_compute_type(L,
	    lwe_out_dtype(L, lw_promote(L, 0, "self", 1,
	    kb)));
	if (!ct || !lwe_operands(L, 0, "self", 1, kb, ct, a, b))
		return DT_UNDEF;
	return ct;
}

/* m and b differ in sign, m nonzero: where a remainder m of division by b
 * needs fixing to take b's sign (Python's rule) */
static ValId
sign_differs(Lower *L, ValId m, ValId b)
{
	ValId zero = lwe_num(L, 0, m);
	ValId diff = lw_op2t(L, "Xor", lwe_cmp(L, "Less", b, zero),
	    lwe_cmp(L, "Less",
	    m, zero), DT_BOOL);
	return lw_op2t(L, "And", lw_op1(L, "Not", lwe_cmp(L, "Equal", m, zero)),
	    diff, DT_BOOL);
}

/* add/sub/mul(self, other[, alpha]): self op alpha * other */
static int
arith(Lower *L)
{
	ValId a, b;
	DType ct = lwe_binary(L, "other", &a, &b);
	if (!ct || !(b = scale_alpha(L, b, ct)))
		return -1;
	return lwe_done(L, lw_op2(L, lwe_info(L)->op, a, b));
}

/* rsub(self, other, alpha) = other - alpha * self */
static int
rsub(Lower *L)
{
	ValId a, b;
	DType ct = lwe_binary(L, "other", &a, &b);
	if (!ct || !(a = scale_alpha(L, a, ct)))
		return -1;
	return lwe_done(L, lw_op2(L, "Sub", b, a));
}

/* torch's floor division of floats (div_floor_floating): from the fmod
 * remainder, so that 1 // 0.1 is 9 like Python, not floor(1 / 0.1) = 10 */
static ValId
floordiv_float(Lower *L, ValId a, ValId b)
{
	ValId zero = lwe_num(L, 0, a), one = lwe_num(L, 1, a);
	ValId m = mod(L, a, b, 1);
	ValId d = lw_op2(L, "Div", lw_op2(L, "Sub", a, m), b);
	d = lwe_where(L, sign_differs(L, m, b), lw_op2(L, "Sub", d, one), d);
	ValId f = lw_op1(L, "Floor", d);
	ValId up = lwe_cmp(L, "Greater", lw_op2(L, "Sub", d, f),
	    lwe_num(L, 0.5, a));
	f = lwe_where(L, up, lw_op2(L, "Add", f, one), f);
	/* x // 0 is x / 0 (inf or nan) */
	return lwe_where(L, lwe_cmp(L, "Equal", b, zero),
	    lw_op2(L, "Div", a, b), f);
}

/* The integer divisor b (arg 1) made safe: ONNX Runtime's integer Div and
 * Mod trap on 0 (SIGFPE: the process dies where PyTorch raises
 * ZeroDivisionError) and on INT_MIN / -1 (PyTorch traps too).  *odd marks
 * where b is 0 or -1, and those lanes divide by 1; 0 (no guard) when b is
 * a number that is neither. */
static ValId
safe_divisor(Lower *L, ValId b, ValId *odd)
{
	double e;
	*odd = 0;
	if (lwe_number(L, 1, "other", &e) && e != 0 && e != -1)
		return b;
	*odd = lw_op2t(L, "Or", lwe_cmp(L, "Equal", b, lwe_num(L, 0, b)),
	    lwe_cmp(L, "Equal", b, lwe_num(L, -1, b)), DT_BOOL);
	return lwe_where(L, *odd, lwe_num(L, 1, b), b);
}

/* q (a quotient of a by the guarded divisor) where b is 0 or -1: -a for
 * -1 (wrapping), 0 for 0 */
static ValId
odd_quotient(Lower *L, ValId q, ValId a, ValId b, ValId odd)
{
	if (!odd)
		return q;
	ValId neg = lw_op2(L, "Sub", lwe_num(L, 0, a), a);
	return lwe_where(L, odd, lwe_where(L, lwe_cmp(L, "Equal", b,
	    lwe_num(L, -1, b)), neg, lwe_num(L, 0, q)), q);
}

/* Division with rounding mode NULL (true division), "trunc" or "floor". */
static int
divide(Lower *L, const char *mode)
{
	DType pt = lw_promote(L, 0, "self", 1, "other");
	if (!mode) {
		DType dt = lwe_out_dtype(L, ir_dtype_is_float(pt) ? pt
		    : DT_F32);
		DType ct = lwe_compute_type(L, ir_dtype_is_float(dt) ? dt
		    : DT_F32);
		ValId a, b;
		if (!ct || !lwe_operands(L, 0, "self", 1, "other", ct, &a, &b))
			return -1;
		return lwe_done(L, lw_op2(L, "Div", a, b));
	}
	DType ct = lwe_compute_type(L, lwe_out_dtype(L, pt));
	ValId a, b;
	if (!ct || !lwe_operands(L, 0, "self", 1, "other", ct, &a, &b))
		return -1;
	bool fl = ir_dtype_is_float(ct);
	if (strcmp(mode, "trunc") && strcmp(mode, "floor"))
		return lw_fail(L, "unknown rounding_mode '%s'", mode);
	if (fl && !strcmp(mode, "trunc"))
		return lwe_done(L, lwe_trunc_f(L, lw_op2(L, "Div", a, b)));
	if (fl)
		return lwe_done(L, floordiv_float(L, a, b));
	ValId odd, bs = safe_divisor(L, b, &odd);
	if (!strcmp(mode, "trunc")) /* integer Div truncates already */
		return lwe_done(L, odd_quotient(L, lw_op2(L, "Div", a, bs), a, b,
		    odd));
	/* a - a mod b (Python sign) is an exact multiple of b */
	ValId r = mod(L, a, bs, 0);
	return lwe_done(L, odd_quotient(L, lw_op2(L, "Div", lw_op2(L, "Sub", a,
	    r), bs), a, b, odd));
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
	DType ct = lwe_binary(L, "other", &a, &b);
	if (!ct)
		return -1;
	if (!ir_dtype_is_float(ct)) {
		ValId odd, r = mod(L, a, safe_divisor(L, b, &odd), 0);
		return lwe_done(L, odd ? lwe_where(L, odd, lwe_num(L, 0, r), r)
		    : r);
	}
	/* ONNX Mod needs fmod=1 for floats: fix the sign as torch does */
	ValId m = mod(L, a, b, 1);
	return lwe_done(L,
	    lwe_where(L, sign_differs(L, m, b), lw_op2(L, "Add", m, b),
	    m));
}

/* fmod: the sign of the dividend, like C */
static int
fmod_(Lower *L)
{
	ValId a, b;
	DType ct = lwe_binary(L, "other", &a, &b);
	if (!ct)
		return -1;
	if (ct != DT_I64)
		return lwe_done(L, mod(L, a, b, 1));
	/* ONNX Runtime's int64 fmod goes through float64 (wrong above
	 * 2^53): a - trunc(a / b) * b, by its exact integer Div, the
	 * divisor guarded (safe_divisor), 0 where it is 0 or -1 */
	ValId odd, q = lw_op2(L, "Div", a, safe_divisor(L, b, &odd));
	ValId r = lw_op2(L, "Sub", a, lw_op2(L, "Mul", q, b));
	return lwe_done(L, odd ? lwe_where(L, odd, lwe_num(L, 0, r), r) : r);
}

/* base ** e for a constant e >= 0 by squaring, in the integer type:
 * exact and wrapping as PyTorch's integer pow (ONNX Runtime's integer Pow
 * goes through float64) */
static ValId
ipow(Lower *L, ValId base, uint64_t e)
{
	ValId r = 0;
	while (e) {
		if (e & 1)
			r = r ? lw_op2(L, "Mul", r, base) : base;
		e >>= 1;
		if (e)
			base = lw_op2(L, "Mul", base, base);
	}
	return r ? r : lw_op2(L, "Add", lw_op2(L, "Mul", base,
	    lwe_num(L, 0, base)), lwe_num(L, 1, base));
}

/* pow(self, exponent); a few constant exponents have exact forms, as in
 * torch's kernels */
static int
pow_(Lower *L)
{
	DType ct = lwe_compute_type(L,
	    lwe_out_dtype(L, lw_promote(L, 0, "self", 1,
	    "exponent")));
	ValId a, b;
	double e;
	if (!ct)
		return -1;
	if ((ct == DT_I32 || ct == DT_I64) && lw_srcval(L, 0, "self") &&
	    lwe_number(L, 1, "exponent", &e) && e >= 0 && e < 0x1p63 &&
	    e == (double)(int64_t)e) {
		if (!(a = lw_operand(L, 0, "self", ct)))
			return -1;
		return lwe_done(L, ipow(L, a, (uint64_t)e));
	}
	if (!ir_dtype_is_float(ct) || !lw_srcval(L, 0, "self") ||
	    !lwe_number(L, 1, "exponent", &e)) {
		if (!lwe_operands(L, 0, "self", 1, "exponent", ct, &a, &b))
			return -1;
		return lwe_done(L, lw_op2(L, "Pow", a, b));
	}
	if (!(a = lw_operand(L, 0, "self", ct)))
		return -1;
	if (e == 1)
		return lwe_done(L, a);
	if (e == 2)
		return lwe_done(L, lw_op2(L, "Mul", a, a));
	if (e == 0.5)
		return lwe_done(L, lw_op1(L, "Sqrt", a));
	if (e == -1)
		return lwe_done(L, lw_op1(L, "Reciprocal", a));
	return lwe_done(L, lw_op2(L, "Pow", a, lwe_num(L, e, a)));
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_elementwise LW_THIS
const LowerRule lw_rules_elementwise[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
