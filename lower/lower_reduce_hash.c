/* lower_reduce_hash.c - hash_tensor(self, dim=[], *, keepdim=False,
 * mode=0): the xor of the elements' bit patterns over dim, each element
 * first widened to its 64-bit kind (integers sign- or zero-extended to
 * int64/uint64, floats converted to double) and read as uint64
 * (aten/src/ATen/native/ReduceOps.cpp, xor_sum).
 *
 * ONNX has no bitcast at these opsets, so a double's pattern is rebuilt
 * from its value: sign (with -0.0 told apart by 1/x), exponent by a
 * binary search over exact powers of two, mantissa as an exact integer;
 * zero, subnormals and infinities are exact.  A NaN's sign and payload
 * are beyond every ONNX operator (no comparison or arithmetic reads them),
 * so each NaN hashes as PyTorch's own float('nan') widened to double,
 * 0x7ff8000000000000; the diagnostic-free alternative, refusing every
 * float input, would lose the op for the inputs that have no NaN. */
#include <math.h>
#include <string.h>

#include "lower_reduce.h"

static ValId
where(Lower *L, ValId c, ValId a, ValId b)
{
	ValId in[3] = {c, a, b};
	NodeId n = lw_emit(L, "Where", 3, in, 1);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, lw_dtype(L, a));
	return r;
}

static ValId
cmp(Lower *L, const char *op, ValId a, double b)
{
	return lw_op2t(L, op, a, lw_scalar(L, b, DT_F64), DT_BOOL);
}

static ValId
f64(Lower *L, double v)
{
	return lw_scalar(L, v, DT_F64);
}

/* u64 value v shifted left by s bits */
static ValId
shl(Lower *L, ValId v, int s)
{
	ValId in[2] = {v, lw_scalar_int(L, s, DT_U64)};
	NodeId n = lw_emit(L, "BitShift", 2, in, 1);
	lw_attr_str(L, n, "direction", "LEFT");
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, DT_U64);
	return r;
}

/* The IEEE 754 binary64 pattern of the f64 tensor x, as uint64. */
static ValId
double_bits(Lower *L, ValId x)
{
	ValId a = lw_op1(L, "Abs", x);
	ValId nan = lwr_op1t(L, "IsNaN", x, DT_BOOL);
	ValId inf = lwr_op1t(L, "IsInf", x, DT_BOOL);
	ValId zero = cmp(L, "Equal", a, 0);
	ValId sub = lw_op2t(L, "And", cmp(L, "Less", a, 0x1p-1022),
	    lw_op1(L, "Not", zero), DT_BOOL);

	/* m = a, subnormals scaled by 2^600 into the normal range, then
	 * halved or doubled to [1, 2) in powers 2^512 ... 2^1: e = the
	 * binary exponent of a (of the scaled value, less 600).  Every step
	 * multiplies by a power of two on a normal value: exact. */
	ValId m = where(L, sub, lw_op2(L, "Mul", a, f64(L, 0x1p600)), a);
	ValId e = where(L, sub, f64(L, -600), f64(L, 0));
	for (int s = 512; s >= 1; s /= 2) {
		ValId c = lw_op1(L, "Not", cmp(L, "Less", m, ldexp(1, s)));
		m = where(L, c, lw_op2(L, "Mul", m, f64(L, ldexp(1, -s))), m);
		e = lw_op2(L, "Add", e, where(L, c, f64(L, s), f64(L, 0)));
	}
	for (int s = 512; s >= 1; s /= 2) {
		ValId c = cmp(L, "Less", m, ldexp(1, 1 - s));
		m = where(L, c, lw_op2(L, "Mul", m, f64(L, ldexp(1, s))), m);
		e = lw_op2(L, "Sub", e, where(L, c, f64(L, s), f64(L, 0)));
	}

	/* biased exponent: e + 1023 for normals, 0 for zero and subnormals,
	 * 2047 for inf and NaN; every lane chosen is finite before the Cast */
	ValId special = lw_op2t(L, "Or", nan, inf, DT_BOOL);
	ValId tiny = lw_op2t(L, "Or", zero, sub, DT_BOOL);
	ValId ex = where(L, special, f64(L, 2047), where(L, tiny, f64(L, 0),
	    lw_op2(L, "Add", e, f64(L, 1023))));
	/* mantissa: (m - 1) * 2^52 for normals, a * 2^1074 for subnormals
	 * (= the scaled a * 2^474), 2^51 for NaN (quiet), 0 else */
	ValId mn = lw_op2(L, "Mul", lw_op2(L, "Sub", m, f64(L, 1)),
	    f64(L, 0x1p52));
	ValId ms = lw_op2(L, "Mul", lw_op2(L, "Mul", a, f64(L, 0x1p600)),
	    f64(L, 0x1p474));
	ValId man = where(L, nan, f64(L, 0x1p51), where(L, lw_op2t(L, "Or", inf,
	    zero, DT_BOOL), f64(L, 0), where(L, sub, ms, mn)));

	/* sign: x < 0, or -0.0 (1 / -0.0 = -inf); not NaN's, see above */
	ValId neg0 = lw_op2t(L, "And", zero, cmp(L, "Less", lw_op2(L, "Div",
	    f64(L, 1), x), 0), DT_BOOL);
	ValId sign = lw_op2t(L, "Or", cmp(L, "Less", x, 0), neg0, DT_BOOL);

	ValId bits = lw_op2t(L, "BitwiseOr", shl(L, lw_cast(L, ex, DT_U64), 52),
	    lw_cast(L, man, DT_U64), DT_U64);
	return lw_op2t(L, "BitwiseOr", bits, shl(L, lw_cast(L, sign, DT_U64),
	    63), DT_U64);
}

/* Each element of x as PyTorch's hash reads it, a uint64; 0 after
 * reporting a dtype it cannot read. */
static ValId
elem_bits(Lower *L, ValId x, DType dt)
{
	switch (dt) {
	case DT_F16:
	case DT_BF16:
	case DT_F32:
	case DT_F64:
		return double_bits(L, lw_cast(L, x, DT_F64));
	case DT_I8:
	case DT_I16:
	case DT_I32:
	case DT_I64:
		return lw_cast(L, lw_cast(L, x, DT_I64), DT_U64);
	case DT_BOOL:
	case DT_U8:
	case DT_U16:
	case DT_U32:
	case DT_U64:
		return lw_cast(L, x, DT_U64);
	default:
		lw_fail(L, "hash_tensor of %s values is not supported",
		    ir_dtype_name(dt));
		return 0;
	}
}

/* xor over the last axis of v [M, k], k static and > 0, by halves */
static ValId
xor_tree(Lower *L, ValId v, int64_t k)
{
	while (k > 1) {
		int64_t h = k / 2;
		ValId r = lw_op2t(L, "BitwiseXor", lw_slice_const(L, v, 1, 0, h,
		    1), lw_slice_const(L, v, 1, h, 2 * h, 1), DT_U64);
		if (k & 1) {
			ValId parts[2] = {r, lw_slice_const(L, v, 1, 2 * h, k,
			    1)};
			r = lw_concat(L, parts, 2, 1, DT_U64);
		}
		v = r;
		k = h + (k & 1);
	}
	return v;
}

/* The same for a count k known at run time only (an INT64 0-d value):
 * v[:, i] ^= v[:, i + s] (zeros past the end) for s = 1, 2, 4 ... while
 * s < k, in a Loop whose v keeps its shape; column 0 ends up the xor of
 * all. */
static ValId
xor_loop(Lower *L, ValId v, ValId k)
{
	GraphId sg = lw_subgraph(L, "hash_xor_step");
	Graph *g = ir_graph(L->m, sg);
	Lower S = *L;
	S.dst = g;
	S.dstid = sg;
	const char *names[] = {"i", "cond_in", "stride", "bits"};
	ValId in[4];
	for (int j = 0; j < 4; j++) {
		in[j] = ir_value(g, ir_intern(L->m, names[j]));
		if (j < 3)
			ir_set_tensor(g, in[j], j == 1 ? DT_BOOL : DT_I64, 0,
			    NULL);
		else
			ir_set_tensor(g, in[j], DT_U64, ir_val(L->dst, v)->rank,
			    ir_dims(L->dst, v));
		ir_add_input(g, in[j]);
	}
	ValId kk = lw_outer(L, sg, k, 0);
	int64_t zero = 0, one = 1;
	ValId s1 = lw_axes_op(&S, "Unsqueeze", in[2], &zero, 1);
	ValId tail = lw_slice(&S, in[3], s1, lw_i64v(&S, INT64_MAX), &one, 1, 0);
	ValId pad = lw_axes_op(&S, "Unsqueeze", lw_op2(&S, "Min", in[2], kk),
	    &zero, 1);
	ValId pads[2] = {lw_const_i64s(&S, (int64_t[]){0, 0, 0}, 3), pad};
	ValId pin[2] = {tail, lw_concat(&S, pads, 2, 0, DT_I64)};
	NodeId pn = lw_emit(&S, "Pad", 2, pin, 1);
	ValId shifted = lw_res(&S, pn, 0);
	lw_settype(&S, shifted, DT_U64);
	ValId nv = lw_op2t(&S, "BitwiseXor", in[3], shifted, DT_U64);
	ValId ns = lw_op2(&S, "Mul", in[2], lw_scalar_i64(&S, 2));
	lw_sub_output(L, sg, lw_op2t(&S, "Less", ns, kk, DT_BOOL));
	lw_sub_output(L, sg, ns);
	lw_sub_output(L, sg, nv);
	if (S.failed)
		L->failed = true;
	/* s doubles from 1: past any int64 count within 63 steps */
	ValId lin[4] = {lw_scalar_i64(L, 64), lw_op2t(L, "Less",
	    lw_scalar_i64(L, 1), k, DT_BOOL), lw_scalar_i64(L, 1), v};
	NodeId lp = lw_emit(L, "Loop", 4, lin, 2);
	lw_attr_graph(L, lp, "body", sg);
	lw_attr_capture(L, lp, k);
	lw_settype(L, lw_res(L, lp, 0), DT_I64);
	ValId r = lw_res(L, lp, 1);
	lw_settype(L, r, DT_U64);
	return lw_slice_const(L, r, 1, 0, 1, 1);
}

static int
hash_tensor(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv || sv->kind != VK_TENSOR || sv->rank < 0)
		return lw_fail(L, "argument 'self' must be a tensor of known rank");
	Axes ax = {.n = -1, .rank = sv->rank};
	if (lwr_read_axes(L, 1, "dim", sv, &ax) < 0)
		return -1;
	bool keep = lw_bool(L, -1, "keepdim", false);
	int64_t mode = lw_int(L, -1, "mode", 0);
	if (lw_failed(L))
		return -1;
	if (mode != 0)
		return lw_fail(L, "hash_tensor mode %lld is not supported (PyTorch "
		    "has mode 0, the xor reduction)", (long long)mode);
	if (L->opset < 18)
		return lw_fail(L, "hash_tensor needs --opset 18 or later "
		    "(BitwiseXor)");
	int r = sv->rank;
	bool red[LW_MAXRANK] = {false};
	for (int d = 0; d < r; d++)
		red[d] = ax.n < 0;
	for (int k = 0; ax.n > 0 && k < ax.n; k++)
		red[ax.v[k]] = true;
	int64_t cnt = 1, n;
	int64_t rax[LW_MAXRANK];
	int nr = 0;
	for (int d = 0; d < r; d++)
		if (red[d]) {
			rax[nr++] = d;
			if (cnt >= 0 && lw_sdim(L, sv, d, &n))
				cnt *= n;
			else
				cnt = -1; /* known at run time */
		}
	if (cnt == 0)
		return lw_fail(L, "hash_tensor over zero elements (PyTorch raises "
		    "an error: a reduced dim of size 0)");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	ValId bits = elem_bits(L, x, (DType)sv->dtype);
	if (!bits)
		return -1;
	if (r == 0) {
		lw_bind(L, 0, bits);
		return 0;
	}
	/* the reduced dims last, flattened: [M, cnt] */
	int64_t perm[LW_MAXRANK];
	int np = 0;
	for (int d = 0; d < r; d++)
		if (!red[d])
			perm[np++] = d;
	for (int d = 0; d < r; d++)
		if (red[d])
			perm[np++] = d;
	ValId v = lw_is_identity_perm(perm, r) ? bits :
	    lw_transpose(L, bits, perm, r);
	if (cnt > 0) {
		v = lw_reshape(L, v, lw_const_i64s(L, (int64_t[]){-1, cnt}, 2));
		v = xor_tree(L, v, cnt);
	} else {
		ValId gin[2] = {lwr_op1t(L, "Shape", x, DT_I64),
		    lw_const_i64s(L, rax, nr)};
		NodeId gn = lw_emit(L, "Gather", 2, gin, 1);
		ValId dims = lw_res(L, gn, 0);
		lw_settype(L, dims, DT_I64);
		NodeId pn = lw_emit(L, "ReduceProd", 1, &dims, 1);
		lw_attr_int(L, pn, "keepdims", 1);
		ValId k1 = lw_res(L, pn, 0); /* [1] */
		lw_settype(L, k1, DT_I64);
		int64_t zero = 0;
		ValId k = lw_axes_op(L, "Squeeze", k1, &zero, 1);
		ValId sh[2] = {lw_i64v(L, -1), k1};
		v = lw_reshape(L, v, lw_concat(L, sh, 2, 0, DT_I64));
		v = xor_loop(L, v, k);
	}

	/* back to the kept dims (with 1 for each reduced one if keepdim) */
	ValId parts[LW_MAXRANK];
	int nparts = 0;
	for (int d = 0; d < r; d++)
		if (!red[d])
			parts[nparts++] = lw_dims_of(L, sv, x, d, d + 1);
		else if (keep)
			parts[nparts++] = lw_i64v(L, 1);
	ValId in[2] = {v, lw_concat_shape(L, parts, nparts)};
	NodeId rn = lw_emit(L, "Reshape", 2, in, 1);
	lw_attr_int(L, rn, "allowzero", 1);
	ValId out = lw_res(L, rn, 0);
	lw_settype(L, out, DT_U64);
	lw_bind(L, 0, out);
	return 0;
}

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_reduce_hash LW_THIS
const LowerRule lw_rules_reduce_hash[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
