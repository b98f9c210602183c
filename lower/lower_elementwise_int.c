/* lower_elementwise_int.c - lowering rules for the integer-only
 * elementwise ops: bit shifts, gcd and lcm, with ATen's results at the
 * edges (shifts past the width, negative operands, zeros). */
#include <string.h>

#include "lower_elementwise.h"

/* the unsigned type of dt's width, whose bits BitShift moves */
static DType
unsigned_of(DType dt, int *bits)
{
	switch (dt) {
	case DT_I8: case DT_U8: *bits = 8; return DT_U8;
	case DT_I16: case DT_U16: *bits = 16; return DT_U16;
	case DT_I32: case DT_U32: *bits = 32; return DT_U32;
	case DT_I64: case DT_U64: *bits = 64; return DT_U64;
	default: return DT_UNDEF;
	}
}

static ValId
where(Lower *L, ValId c, ValId a, ValId b, DType dt)
{
	return lw_typed(L, lw_emit(L, "Where", 3, (ValId[]){c, a, b}, 1), dt);
}

/* x shifted by s (both of unsigned type ut, s below the width) */
static ValId
bitshift(Lower *L, ValId x, ValId s, DType ut, bool left)
{
	NodeId n = lw_emit(L, "BitShift", 2, (ValId[]){x, s}, 1);
	lw_attr_str(L, n, "direction", left ? "LEFT" : "RIGHT");
	return lw_typed(L, n, ut);
}

/* bitwise_left_shift / bitwise_right_shift / __lshift__ / __rshift__.
 * ONNX's BitShift moves unsigned bits: a signed x shifts left as its
 * bits, right as -1 - ((-1 - x) >> s) when negative (arithmetic).  A
 * shift below 0 or past the width gives 0 (left) or x >> (width - 1)
 * (right), as ATen's kernels. */
static int
shift(Lower *L)
{
	const char *op = ir_str(L->m, lw_node(L)->op);
	bool left = strstr(op, "left") || strstr(op, "lshift");
	DType pt = lwe_out_dtype(L, lw_promote(L, 0, "self", 1, "other"));
	int bits = 0;
	DType ut = unsigned_of(pt, &bits);
	if (!ut)
		return lw_fail(L, "bit shifts of %s tensors (PyTorch shifts "
		    "integers only)", ir_dtype_name(pt));
	ValId x, s;
	if (!lwe_operands(L, 0, "self", 1, "other", pt, &x, &s))
		return -1;
	bool sgn = pt != ut;
	ValId big = lw_op2t(L, "Or", lw_op2t(L, "Less", s, lw_scalar_int(L, 0,
	    pt), DT_BOOL), lw_op2t(L, "GreaterOrEqual", s, lw_scalar_int(L,
	    bits, pt), DT_BOOL), DT_BOOL);
	ValId cap = lw_scalar_int(L, left ? 0 : bits - 1, pt);
	ValId su = lw_cast(L, where(L, big, cap, s, pt), ut);
	ValId y;
	if (left) {
		y = lw_cast(L, bitshift(L, lw_cast(L, x, ut), su, ut, true), pt);
		y = where(L, big, lw_scalar_int(L, 0, pt), y, pt);
	} else if (!sgn) {
		y = bitshift(L, x, su, ut, false);
	} else {
		ValId neg = lw_op2t(L, "Less", x, lw_scalar_int(L, 0, pt),
		    DT_BOOL);
		ValId m1 = lw_scalar_int(L, -1, pt);
		ValId m = where(L, neg, lw_op2(L, "Sub", m1, x), x, pt);
		y = lw_cast(L, bitshift(L, lw_cast(L, m, ut), su, ut, false),
		    pt);
		y = where(L, neg, lw_op2(L, "Sub", m1, y), y, pt);
	}
	return lwe_done(L, y);
}

/* gcd(|a|, |b|) by Euclid's steps in a Loop: while a != 0: a, b =
 * b mod a, a (ATen's calc_gcd); at most 93 steps for 64 bits (the
 * Fibonacci numbers), fewer once every a is 0.  Both are broadcast to
 * the result's shape first, which a Loop's carried values keep. */
static ValId
gcd_of(Lower *L, ValId a, ValId b, DType dt)
{
	ValId za = lw_op2(L, "Mul", b, lw_scalar_int(L, 0, dt));
	ValId zb = lw_op2(L, "Mul", a, lw_scalar_int(L, 0, dt));
	a = lw_op2(L, "Add", lw_op1(L, "Abs", a), za);
	b = lw_op2(L, "Add", lw_op1(L, "Abs", b), zb);
	GraphId sg = lw_subgraph(L, "gcd_step");
	Graph *g = ir_graph(L->m, sg);
	Lower S = *L;
	S.dst = g;
	S.dstid = sg;
	const char *names[] = {"i", "cond_in", "a", "b"};
	ValId in[4];
	for (int j = 0; j < 4; j++) {
		in[j] = ir_value(g, ir_intern(L->m, names[j]));
		if (j < 2)
			ir_set_tensor(g, in[j], j ? DT_BOOL : DT_I64, 0, NULL);
		else
			ir_set_tensor(g, in[j], dt, ir_val(L->dst, a)->rank,
			    ir_dims(L->dst, a));
		ir_add_input(g, in[j]);
	}
	ValId zero = lw_scalar_int(&S, 0, dt);
	ValId nz = lw_op2t(&S, "Equal", in[2], zero, DT_BOOL);
	nz = lw_op1(&S, "Not", nz);
	ValId safe = where(&S, nz, in[2], lw_scalar_int(&S, 1, dt), dt);
	ValId na = where(&S, nz, lw_op2(&S, "Mod", in[3], safe), zero, dt);
	ValId nb = where(&S, nz, in[2], in[3], dt);
	/* go on while some a is not 0 (an empty tensor: ReduceMax gives the
	 * lowest value, and the trip count ends it) */
	ValId any = lw_cast(&S, lw_op1(&S, "Not", lw_op2t(&S, "Equal", na,
	    zero, DT_BOOL)), DT_I32);
	NodeId rm = lw_emit(&S, "ReduceMax", 1, &any, 1);
	lw_attr_int(&S, rm, "keepdims", 0);
	lw_sub_output(L, sg, lw_cast(&S, lw_typed(&S, rm, DT_I32), DT_BOOL));
	lw_sub_output(L, sg, na);
	lw_sub_output(L, sg, nb);
	if (S.failed)
		L->failed = true;
	ValId lin[4] = {lw_scalar_i64(L, 93), lw_scalar_int(L, 1, DT_BOOL), a,
	    b};
	NodeId lp = lw_emit(L, "Loop", 4, lin, 2);
	lw_attr_graph(L, lp, "body", sg);
	lw_settype(L, lw_res(L, lp, 0), dt);
	ValId r = lw_res(L, lp, 1);
	lw_settype(L, r, dt);
	return r;
}

/* gcd(self, other), and lcm: |a / gcd * b|, 0 where the gcd is 0 */
static int
gcd_lcm(Lower *L)
{
	const char *op = ir_str(L->m, lw_node(L)->op);
	DType pt = lwe_out_dtype(L, lw_promote(L, 0, "self", 1, "other"));
	int bits;
	if (!unsigned_of(pt, &bits) || pt == DT_U16 || pt == DT_U32 ||
	    pt == DT_U64)
		return lw_fail(L, "%s of %s tensors (PyTorch takes integers)",
		    strstr(op, "lcm") ? "lcm" : "gcd", ir_dtype_name(pt));
	ValId a, b;
	if (!lwe_operands(L, 0, "self", 1, "other", pt, &a, &b))
		return -1;
	ValId g = gcd_of(L, a, b, pt);
	if (!strstr(op, "lcm"))
		return lwe_done(L, g);
	/* C++ promotes 8- and 16-bit operands to int: a / g * b and its
	 * abs in int32, wrapped to the type only when stored */
	DType ct = pt == DT_I8 || pt == DT_U8 || pt == DT_I16 ? DT_I32 : pt;
	a = lw_cast(L, a, ct);
	b = lw_cast(L, b, ct);
	g = lw_cast(L, g, ct);
	ValId zero = lw_scalar_int(L, 0, ct);
	ValId gz = lw_op2t(L, "Equal", g, zero, DT_BOOL);
	ValId q = lw_op2(L, "Div", a, where(L, gz, lw_scalar_int(L, 1, ct), g,
	    ct));
	ValId y = lw_op1(L, "Abs", lw_op2(L, "Mul", q, b));
	return lwe_done(L, lw_cast(L, where(L, gz, zero, y, ct), pt));
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_elementwise_int LW_THIS
const LowerRule lw_rules_elementwise_int[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
