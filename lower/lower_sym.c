/* lower_sym.c - rules for size queries and Python-operator arithmetic on
 * SymInt/SymFloat/SymBool values.  They become 0-d INT64/DOUBLE/BOOL
 * tensors; a symbol whose value the dump fixed is a constant. */
#include <string.h>

#include "lower.h"

/* The ONNX dtype standing for an FX output's Sym kind. */
static DType
symtype(Lower *L)
{
	const Value *v = lw_outval(L, 0);
	switch (v->kind) {
	case VK_SYMFLOAT:
		return DT_F64;
	case VK_SYMBOOL:
		return DT_BOOL;
	case VK_TENSOR:
		return (DType)v->dtype;
	default:
		return DT_I64;
	}
}

/* A Sym output whose expression is a number needs no computation. */
static bool
bind_if_constant(Lower *L)
{
	const Value *v = lw_outval(L, 0);
	if (!v->sym)
		return false;
	const Expr *e = ir_exprp(L->m, v->sym);
	if (e->kind == E_INT && v->kind == VK_SYMINT) {
		lw_bind(L, 0, lw_scalar_i64(L, e->n));
		return true;
	}
	if (e->kind == E_FLOAT && v->kind == VK_SYMFLOAT) {
		lw_bind(L, 0, lw_scalar(L, e->f, DT_F64));
		return true;
	}
	return false;
}

/* sym_size.int(x, dim): Shape(x)[dim] as a 0-d int64 */
static int
sym_size(Lower *L)
{
	if (bind_if_constant(L))
		return 0;
	const Value *sv = lw_srcval(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	int64_t d = lw_int(L, 1, "dim", 0);
	if (!x || !sv)
		return -1;
	if (sv->rank < 0)
		return lw_fail(L, "the rank of the input is unknown");
	if (d < 0)
		d += sv->rank;
	if (d < 0 || d >= sv->rank)
		return lw_fail(L, "dim %lld is out of range for rank %d",
		    (long long)d, sv->rank);
	NodeId n = lw_emit(L, "Shape", 1, &x, 1);
	lw_attr_int(L, n, "start", d);
	lw_attr_int(L, n, "end", d + 1);
	ValId s = lw_res(L, n, 0);
	lw_settype(L, s, DT_I64);
	lw_bind(L, 0, lw_op2(L, "Squeeze", s, lw_const_i64s(L,
	    (int64_t[]){0}, 1)));
	return 0;
}

/* sym_numel(x): the product of Shape(x) */
static int
sym_numel(Lower *L)
{
	if (bind_if_constant(L))
		return 0;
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	ValId s = lw_op1(L, "Shape", x);
	lw_settype(L, s, DT_I64);
	NodeId n = lw_emit(L, "ReduceProd", 1, &s, 1);
	lw_attr_int(L, n, "keepdims", 0);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, DT_I64);
	lw_bind(L, 0, r);
	return 0;
}

/* Operands of a Python operator, in the dtype of the computation: double
 * when either side is a float, else int64 (bool stays bool for logic). */
static DType
operand_type(Lower *L, int i)
{
	const Arg *a = lw_arg(L, i, NULL);
	if (!a)
		return DT_UNDEF;
	if (a->kind == A_FLOAT)
		return DT_F64;
	if (a->kind == A_BOOL)
		return DT_BOOL;
	if (a->kind == A_VAL) {
		const Value *v = ir_val(L->src, a->u.v);
		if (v->kind == VK_SYMFLOAT)
			return DT_F64;
		if (v->kind == VK_SYMBOOL)
			return DT_BOOL;
		if (v->kind == VK_TENSOR)
			return (DType)v->dtype;
	}
	return DT_I64;
}

static DType
common_type(Lower *L)
{
	DType a = operand_type(L, 0), b = operand_type(L, 1);
	if (a == DT_F64 || b == DT_F64 || ir_dtype_is_float(a) ||
	    ir_dtype_is_float(b))
		return DT_F64;
	if (a == DT_BOOL && b == DT_BOOL)
		return DT_BOOL;
	return DT_I64;
}

static int
binary(Lower *L, const char *op, DType compute)
{
	if (bind_if_constant(L))
		return 0;
	ValId a = lw_operand(L, 0, NULL, compute);
	ValId b = lw_operand(L, 1, NULL, compute);
	if (!a || !b)
		return -1;
	ValId r = lw_op2(L, op, a, b);
	lw_bind(L, 0, lw_cast(L, r, symtype(L)));
	return 0;
}

static int
op_add(Lower *L) { return binary(L, "Add", common_type(L)); }
static int
op_sub(Lower *L) { return binary(L, "Sub", common_type(L)); }
static int
op_mul(Lower *L) { return binary(L, "Mul", common_type(L)); }
static int
op_truediv(Lower *L) { return binary(L, "Div", DT_F64); }
static int
op_pow(Lower *L) { return binary(L, "Pow", common_type(L)); }
static int
op_max(Lower *L) { return binary(L, "Max", common_type(L)); }
static int
op_min(Lower *L) { return binary(L, "Min", common_type(L)); }

static int
compare(Lower *L, const char *op, bool negate)
{
	if (bind_if_constant(L))
		return 0;
	DType t = common_type(L);
	ValId a = lw_operand(L, 0, NULL, t), b = lw_operand(L, 1, NULL, t);
	if (!a || !b)
		return -1;
	ValId r = lw_op2t(L, op, a, b, DT_BOOL);
	if (negate)
		r = lw_op1(L, "Not", r);
	lw_bind(L, 0, r);
	return 0;
}

static int
op_eq(Lower *L) { return compare(L, "Equal", false); }
static int
op_ne(Lower *L) { return compare(L, "Equal", true); }
static int
op_lt(Lower *L) { return compare(L, "Less", false); }
static int
op_le(Lower *L) { return compare(L, "LessOrEqual", false); }
static int
op_gt(Lower *L) { return compare(L, "Greater", false); }
static int
op_ge(Lower *L) { return compare(L, "GreaterOrEqual", false); }

/* a // b: floor division.  Integers: (a - a mod b) / b is exact, with
 * Python's mod (sign of the divisor, ONNX Mod fmod=0). */
static int
op_floordiv(Lower *L)
{
	if (bind_if_constant(L))
		return 0;
	DType t = common_type(L);
	ValId a = lw_operand(L, 0, NULL, t), b = lw_operand(L, 1, NULL, t);
	if (!a || !b)
		return -1;
	ValId r;
	if (t == DT_F64) {
		r = lw_op1(L, "Floor", lw_op2(L, "Div", a, b));
	} else {
		ValId mod = lw_op2(L, "Mod", a, b);
		r = lw_op2(L, "Div", lw_op2(L, "Sub", a, mod), b);
	}
	lw_bind(L, 0, lw_cast(L, r, symtype(L)));
	return 0;
}

/* a % b with Python's sign rule */
static int
op_mod(Lower *L)
{
	if (bind_if_constant(L))
		return 0;
	DType t = common_type(L);
	ValId a = lw_operand(L, 0, NULL, t), b = lw_operand(L, 1, NULL, t);
	if (!a || !b)
		return -1;
	ValId r;
	if (t == DT_F64) { /* a - floor(a / b) * b */
		ValId q = lw_op1(L, "Floor", lw_op2(L, "Div", a, b));
		r = lw_op2(L, "Sub", a, lw_op2(L, "Mul", q, b));
	} else {
		NodeId n = lw_emit(L, "Mod", 2, (ValId[]){a, b}, 1);
		lw_attr_int(L, n, "fmod", 0);
		r = lw_res(L, n, 0);
		lw_settype(L, r, t);
	}
	lw_bind(L, 0, lw_cast(L, r, symtype(L)));
	return 0;
}

static int
unary(Lower *L, const char *op, DType compute)
{
	if (bind_if_constant(L))
		return 0;
	ValId a = lw_operand(L, 0, NULL, compute ? compute : operand_type(L, 0));
	if (!a)
		return -1;
	ValId r = op ? lw_op1(L, op, a) : a;
	lw_bind(L, 0, lw_cast(L, r, symtype(L)));
	return 0;
}

static int
op_neg(Lower *L) { return unary(L, "Neg", DT_UNDEF); }
static int
sym_float(Lower *L) { return unary(L, NULL, DT_F64); }
static int
sym_not(Lower *L) { return unary(L, "Not", DT_BOOL); }
static int
math_ceil(Lower *L) { return unary(L, "Ceil", DT_F64); }
static int
math_floor(Lower *L) { return unary(L, "Floor", DT_F64); }

/* int(x) truncates toward zero: Cast from double does too */
static int
sym_int(Lower *L) { return unary(L, NULL, DT_F64); }

static int
op_and(Lower *L) { return binary(L, "And", DT_BOOL); }
static int
op_or(Lower *L) { return binary(L, "Or", DT_BOOL); }

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_sym LW_THIS
const LowerRule lw_rules_sym[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
