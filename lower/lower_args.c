/* lower_args.c - the rule-author API, reading side: the FX node being
 * lowered, its arguments (checked and converted), its operands as ONNX
 * values, and torch's type promotion.  Depends on ir/ only. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* ---------------------------------------------------------------- reading */

const Node *
lw_node(Lower *L)
{
	return ir_nodep(L->src, L->node);
}

const Arg *
lw_arg(Lower *L, int i, const char *kw)
{
	return ir_find_arg(L->m, L->src, L->node, i, kw);
}

bool
lw_has(Lower *L, int i, const char *kw)
{
	const Arg *a = lw_arg(L, i, kw);
	return a && a->kind != A_NONE;
}

/* The number an int-like arg stands for: literals, and SymInt values whose
 * expression is a plain number. */
static bool
static_int(Lower *L, const Arg *a, int64_t *out)
{
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
		*out = a->u.i;
		return true;
	case A_VAL: {
		const Value *v = ir_val(L->src, a->u.v);
		if (v->sym && ir_exprp(L->m, v->sym)->kind == E_INT) {
			*out = ir_exprp(L->m, v->sym)->n;
			return true;
		}
		return false;
	}
	default:
		return false;
	}
}

bool
lw_static_int(Lower *L, const Arg *a, int64_t *out)
{
	return static_int(L, a, out);
}

/* "argument 'kw'" or "argument 3", in buf (char[64]) */
static const char *
argdesc(char *buf, int i, const char *kw)
{
	if (kw)
		snprintf(buf, 64, "argument '%s'", kw);
	else
		snprintf(buf, 64, "argument %d", i + 1);
	return buf;
}

/* in a buffer of the caller's block: a message may name two arguments */
#define ARGDESC(i, kw) argdesc((char[64]){0}, i, kw)

int64_t
lw_int(Lower *L, int i, const char *kw, int64_t dflt)
{
	const Arg *a = lw_arg(L, i, kw);
	int64_t n;
	if (!a || a->kind == A_NONE)
		return dflt;
	if (static_int(L, a, &n))
		return n;
	lw_fail(L, "%s must be a constant integer here", ARGDESC(i, kw));
	return dflt;
}

double
lw_float(Lower *L, int i, const char *kw, double dflt)
{
	const Arg *a = lw_arg(L, i, kw);
	int64_t n;
	if (!a || a->kind == A_NONE)
		return dflt;
	if (a->kind == A_FLOAT)
		return a->u.f;
	if (static_int(L, a, &n))
		return (double)n;
	lw_fail(L, "%s must be a constant number here", ARGDESC(i, kw));
	return dflt;
}

bool
lw_bool(Lower *L, int i, const char *kw, bool dflt)
{
	return lw_int(L, i, kw, dflt) != 0;
}

int
lw_ints(Lower *L, int i, const char *kw, int64_t *out, int cap)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind == A_NONE)
		return -1;
	if (a->kind != A_LIST && a->kind != A_TUPLE) {
		if (cap < 1 || !static_int(L, a, &out[0])) {
			lw_fail(L, "%s must be a list of constant integers",
			    ARGDESC(i, kw));
			return -1;
		}
		return 1;
	}
	const Arg *it = ir_items(L->src, a);
	if ((int)a->u.list.n > cap) {
		lw_fail(L, "%s has too many elements (%u)", ARGDESC(i, kw),
		    a->u.list.n);
		return -1;
	}
	for (uint32_t k = 0; k < a->u.list.n; k++)
		if (!static_int(L, &it[k], &out[k])) {
			lw_fail(L, "element %u of %s must be a constant integer",
			    k, ARGDESC(i, kw));
			return -1;
		}
	return (int)a->u.list.n;
}

DType
lw_dtype_arg(Lower *L, int i, const char *kw)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind == A_NONE)
		return DT_UNDEF;
	if (a->kind != A_DTYPE) {
		lw_fail(L, "%s must be a dtype", ARGDESC(i, kw));
		return DT_UNDEF;
	}
	return (DType)a->u.i;
}

const Value *
lw_srcval(Lower *L, int i, const char *kw)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind != A_VAL)
		return NULL;
	return ir_val(L->src, a->u.v);
}

const Value *
lw_outval(Lower *L, int k)
{
	const Node *n = lw_node(L);
	if ((uint32_t)k >= n->nout)
		BUG("output %d of a node with %u", k, n->nout);
	return ir_val(L->src, n->out + (uint32_t)k);
}

bool
lw_dim_static(const Value *v, const Graph *g, int d, int64_t *n)
{
	if (v->rank <= 0)
		return false;
	if (d < 0)
		d += v->rank;
	if (d < 0 || d >= v->rank)
		return false;
	const Dim *dim = &g->dims[v->dims + (uint32_t)d];
	if (dim->e)
		return false;
	*n = dim->n;
	return true;
}

/* --------------------------------------------------------------- operands */

ValId
lw_in(Lower *L, int i, const char *kw)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind != A_VAL) {
		lw_fail(L, "%s must be a tensor", ARGDESC(i, kw));
		return 0;
	}
	ValId v = L->map[a->u.v];
	if (!v) {
		const Value *sv = ir_val(L->src, a->u.v);
		lw_fail(L, "'%s' has no ONNX counterpart (a %s)",
		    ir_str(L->m, sv->name),
		    sv->kind == VK_OBJ ? "custom object or token"
		    : sv->kind == VK_CONST ? "specialised non-tensor input"
		    : "value this node cannot use");
	}
	return v;
}

ValId
lw_operand(Lower *L, int i, const char *kw, DType dt)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a) {
		lw_fail(L, "%s is missing", ARGDESC(i, kw));
		return 0;
	}
	switch (a->kind) {
	case A_VAL: {
		ValId v = lw_in(L, i, kw);
		return v && dt ? lw_cast(L, v, dt) : v;
	}
	case A_INT:
		return lw_scalar_int(L, a->u.i, dt ? dt : DT_I64);
	case A_BOOL:
		return lw_scalar_int(L, a->u.i, dt ? dt : DT_BOOL);
	case A_FLOAT:
		return lw_scalar(L, a->u.f, dt ? dt : DT_F32);
	default:
		lw_fail(L, "%s must be a tensor or a number", ARGDESC(i, kw));
		return 0;
	}
}

ValId
lw_int1(Lower *L, int i, const char *kw, int64_t dflt)
{
	const Arg *a = lw_arg(L, i, kw);
	int64_t n;
	if (!a || a->kind == A_NONE)
		return lw_i64v(L, dflt);
	if (static_int(L, a, &n))
		return lw_i64v(L, n);
	ValId v = lw_operand(L, i, kw, DT_I64);
	return v ? lw_axes_op(L, "Unsqueeze", v, (int64_t[]){0}, 1) : 0;
}

bool
lw_list_symbolic(Lower *L, int i, const char *kw)
{
	const Arg *a = lw_arg(L, i, kw);
	int64_t v;
	if (!a || (a->kind != A_LIST && a->kind != A_TUPLE))
		return false;
	const Arg *it = ir_items(L->src, a);
	for (uint32_t k = 0; k < a->u.list.n; k++)
		if (!lw_static_int(L, &it[k], &v))
			return true;
	return false;
}

ValId
lw_shape_list(Lower *L, int i, const char *kw)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind == A_NONE) {
		lw_fail(L, "%s (a size list) is missing", ARGDESC(i, kw));
		return 0;
	}
	if (a->kind == A_VAL) {
		const Value *sv = ir_val(L->src, a->u.v);
		ValId v = lw_in(L, i, kw);
		if (!v)
			return 0;
		if (sv->kind == VK_SYMINT) /* a lone SymInt: [n] */
			return lw_op2t(L, "Unsqueeze", v, lw_const_i64s(L,
			    (int64_t[]){0}, 1), DT_I64);
		return lw_cast(L, v, DT_I64);
	}
	if (a->kind != A_LIST && a->kind != A_TUPLE) {
		int64_t n;
		if (!static_int(L, a, &n)) {
			lw_fail(L, "%s must be a list of sizes", ARGDESC(i, kw));
			return 0;
		}
		return lw_const_i64s(L, &n, 1);
	}
	uint32_t cnt = a->u.list.n;
	const Arg *it = ir_items(L->src, a);
	ArenaMark mk = arena_mark(L->m->scratch);
	int64_t *nums = arena_array(L->m->scratch, cnt + 1, sizeof *nums);
	ValId *parts = arena_array(L->m->scratch, cnt + 1, sizeof *parts);
	bool all = true;
	for (uint32_t k = 0; k < cnt; k++)
		if (!static_int(L, &it[k], &nums[k]))
			all = false;
	ValId res = 0;
	if (all) {
		res = lw_const_i64s(L, nums, (int)cnt);
		goto out;
	}
	/* runs of numbers become one constant, SymInts one element each */
	int np = 0;
	for (uint32_t k = 0; k < cnt;) {
		if (static_int(L, &it[k], &nums[k])) {
			uint32_t e = k;
			while (e < cnt && static_int(L, &it[e], &nums[e]))
				e++;
			parts[np++] = lw_const_i64s(L, nums + k, (int)(e - k));
			k = e;
			continue;
		}
		if (it[k].kind != A_VAL || !L->map[it[k].u.v]) {
			lw_fail(L, "element %u of %s is not a size", k,
			    ARGDESC(i, kw));
			goto out;
		}
		ValId s = lw_cast(L, L->map[it[k].u.v], DT_I64);
		parts[np++] = lw_op2t(L, "Unsqueeze", s,
		    lw_const_i64s(L, (int64_t[]){0}, 1), DT_I64);
		k++;
	}
	if (np == 1) {
		res = parts[0];
	} else {
		NodeId c = lw_emit(L, "Concat", np, parts, 1);
		lw_attr_int(L, c, "axis", 0);
		res = lw_res(L, c, 0);
		lw_settype(L, res, DT_I64);
	}
out:
	arena_release(L->m->scratch, mk);
	return res;
}

/* ------------------------------------------------------------- promotion */

static int
category(DType d)
{
	if (d == DT_BOOL)
		return 0;
	if (ir_dtype_is_int(d))
		return 1;
	if (ir_dtype_is_float(d))
		return 2;
	return 3; /* complex */
}

/* torch.promote_types for two defined dtypes */
static DType
promote2(DType a, DType b)
{
	if (!a)
		return b;
	if (!b || a == b)
		return a;
	int ca = category(a), cb = category(b);
	if (ca != cb)
		return ca > cb ? a : b;
	if (ca == 2) {
		if ((a == DT_F16 && b == DT_BF16) || (a == DT_BF16 && b == DT_F16))
			return DT_F32;
		return ir_dtype_size(a) >= ir_dtype_size(b) ? a : b;
	}
	if (ca == 1) {
		bool ua = a == DT_U8, ub = b == DT_U8;
		if (ua != ub) { /* uint8 with a signed type */
			DType s = ua ? b : a;
			return s == DT_I8 ? DT_I16 : s;
		}
		return ir_dtype_size(a) >= ir_dtype_size(b) ? a : b;
	}
	return a;
}

/* c10 combine_categories */
static DType
combine(DType higher, DType lower)
{
	if (!higher)
		return lower;
	if (!lower)
		return higher;
	if (category(higher) >= 2)
		return higher;
	if (higher == DT_BOOL || category(lower) == 2)
		return promote2(higher, lower);
	return higher;
}

DType
lw_promote(Lower *L, int i, const char *kwi, int j, const char *kwj)
{
	DType dim = 0, zero = 0, wrapped = 0;
	const Arg *as[2] = {lw_arg(L, i, kwi), lw_arg(L, j, kwj)};
	for (int k = 0; k < 2; k++) {
		const Arg *a = as[k];
		if (!a)
			continue;
		switch (a->kind) {
		case A_VAL: {
			const Value *v = ir_val(L->src, a->u.v);
			if (v->kind == VK_TENSOR && v->rank != 0)
				dim = promote2(dim, (DType)v->dtype);
			else if (v->kind == VK_TENSOR)
				zero = promote2(zero, (DType)v->dtype);
			else if (v->kind == VK_SYMINT)
				wrapped = promote2(wrapped, DT_I64);
			else if (v->kind == VK_SYMFLOAT)
				wrapped = promote2(wrapped, DT_F32);
			else if (v->kind == VK_SYMBOOL)
				wrapped = promote2(wrapped, DT_BOOL);
			break;
		}
		case A_INT:
			wrapped = promote2(wrapped, DT_I64);
			break;
		case A_FLOAT:
			wrapped = promote2(wrapped, DT_F32);
			break;
		case A_BOOL:
			wrapped = promote2(wrapped, DT_BOOL);
			break;
		default:
			break;
		}
	}
	return combine(dim, combine(zero, wrapped));
}
