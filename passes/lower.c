/* lower.c - pass "lower": FX graph -> ONNX graph, one rule per FX op.
 * Requires: a verified FX graph.  Provides: a new graph of D_ONNX nodes
 * whose inputs, initializers and outputs follow the graph signature.
 *
 * A built-in plugin: registered through the same descriptor as plugin
 * modules (ONNXC_PLUGIN_STATIC names it onnxc_plugin_lower).  Lowerings
 * registered by plugins are tried first, in registration order; one may
 * decline a node, which then goes to the next one and finally to the
 * rule tables below. */
#define ONNXC_PLUGIN_STATIC
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../plugins/pl.h"
#include "check.h"
#include "lower.h"

const LowerRule *const lw_rule_tables[] = {
	lw_rules_elementwise, lw_rules_reduce, lw_rules_nn, lw_rules_shape,
	lw_rules_index, lw_rules_sym, lw_rules_cf, NULL,
};

/* Rule lookup by the op's StrId; the array is built once per module. */
typedef struct LwRegistry {
	LowerFn *fn;
	uint32_t n;
} Registry;

static void
registry_build(Module *m, Registry *r)
{
	for (size_t t = 0; lw_rule_tables[t]; t++)
		for (const LowerRule *x = lw_rule_tables[t]; x->op; x++)
			ir_intern(m, x->op);
	r->n = m->nstrs;
	r->fn = calloc(r->n, sizeof *r->fn);
	if (!r->fn)
		BUG("out of memory");
	for (size_t t = 0; lw_rule_tables[t]; t++)
		for (const LowerRule *x = lw_rule_tables[t]; x->op; x++) {
			StrId s = ir_intern(m, x->op);
			if (!r->fn[s])
				r->fn[s] = x->fn;
		}
}

static LowerFn
registry_find(Module *m, const Registry *r, StrId op)
{
	(void)m;
	return op < r->n ? r->fn[op] : NULL;
}

/* Does op name an in-place overload (aten::add_.Tensor)? */
static bool
inplace_op(const char *s)
{
	const char *b = strstr(s, "::"), *dot;
	b = b ? b + 2 : s;
	dot = strchr(b, '.');
	size_t n = dot ? (size_t)(dot - b) : strlen(b);
	return n >= 2 && b[n - 1] == '_' && b[n - 2] != '_' && b[0] != '_';
}

LowerFn
lw_find(Module *m, StrId op)
{
	Registry r;
	registry_build(m, &r);
	LowerFn f = registry_find(m, &r, op);
	free(r.fn);
	return f;
}

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

static const char *
argdesc(int i, const char *kw)
{
	static char buf[64];
	if (kw)
		snprintf(buf, sizeof buf, "argument '%s'", kw);
	else
		snprintf(buf, sizeof buf, "argument %d", i + 1);
	return buf;
}

int64_t
lw_int(Lower *L, int i, const char *kw, int64_t dflt)
{
	const Arg *a = lw_arg(L, i, kw);
	int64_t n;
	if (!a || a->kind == A_NONE)
		return dflt;
	if (static_int(L, a, &n))
		return n;
	lw_fail(L, "%s must be a constant integer here", argdesc(i, kw));
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
	lw_fail(L, "%s must be a constant number here", argdesc(i, kw));
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
			    argdesc(i, kw));
			return -1;
		}
		return 1;
	}
	const Arg *it = ir_items(L->src, a);
	if ((int)a->u.list.n > cap) {
		lw_fail(L, "%s has too many elements (%u)", argdesc(i, kw),
		    a->u.list.n);
		return -1;
	}
	for (uint32_t k = 0; k < a->u.list.n; k++)
		if (!static_int(L, &it[k], &out[k])) {
			lw_fail(L, "element %u of %s must be a constant integer",
			    k, argdesc(i, kw));
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
		lw_fail(L, "%s must be a dtype", argdesc(i, kw));
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
		lw_fail(L, "%s must be a tensor", argdesc(i, kw));
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
		lw_fail(L, "%s is missing", argdesc(i, kw));
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
		lw_fail(L, "%s must be a tensor or a number", argdesc(i, kw));
		return 0;
	}
}

ValId
lw_shape_list(Lower *L, int i, const char *kw)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind == A_NONE) {
		lw_fail(L, "%s (a size list) is missing", argdesc(i, kw));
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
			lw_fail(L, "%s must be a list of sizes", argdesc(i, kw));
			return 0;
		}
		return lw_const_i64s(L, &n, 1);
	}
	uint32_t cnt = a->u.list.n;
	const Arg *it = ir_items(L->src, a);
	int64_t *nums = calloc(cnt + 1, sizeof *nums);
	ValId *parts = calloc(cnt + 1, sizeof *parts);
	if (!nums || !parts)
		BUG("out of memory");
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
			    argdesc(i, kw));
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
	free(nums);
	free(parts);
	return res;
}

/* --------------------------------------------------------------- emitting */

NodeId
lw_emit_domain(Lower *L, const char *domain, const char *op, int nin,
    const ValId *in, int nout)
{
	const Node *src = L->node ? lw_node(L) : NULL;
	NodeId n = ir_node(L->dst, D_ONNX, ir_intern(L->m, op), (uint32_t)nout);
	Node *p = ir_nodep(L->dst, n);
	p->domain = ir_intern(L->m, domain);
	if (src) {
		p->loc = src->loc;
		p->trace = src->trace;
		p->name = src->name;
		p->scope = src->scope;
	}
	for (int k = 0; k < nin; k++)
		ir_push_arg(L->dst, n, in[k] ? arg_val(in[k]) : arg_none());
	return n;
}

NodeId
lw_emit(Lower *L, const char *op, int nin, const ValId *in, int nout)
{
	return lw_emit_domain(L, "", op, nin, in, nout);
}

ValId
lw_res(Lower *L, NodeId n, int k)
{
	const Node *p = ir_nodep(L->dst, n);
	if ((uint32_t)k >= p->nout)
		BUG("result %d of a node with %u", k, p->nout);
	return p->out + (uint32_t)k;
}

static void
attr(Lower *L, NodeId n, const char *name, Arg a)
{
	ir_push_arg(L->dst, n, arg_keyed(a, ir_intern(L->m, name)));
}

void
lw_attr_capture(Lower *L, NodeId n, ValId v)
{
	attr(L, n, IR_CAPTURE, arg_val(v));
}

void
lw_attr_int(Lower *L, NodeId n, const char *name, int64_t v)
{
	attr(L, n, name, arg_int(v));
}

void
lw_attr_float(Lower *L, NodeId n, const char *name, double v)
{
	attr(L, n, name, arg_float(v));
}

void
lw_attr_str(Lower *L, NodeId n, const char *name, const char *v)
{
	attr(L, n, name, arg_str(ir_intern(L->m, v)));
}

void
lw_attr_ints(Lower *L, NodeId n, const char *name, const int64_t *v, int cnt)
{
	Arg *it = calloc((size_t)cnt + 1, sizeof *it);
	if (!it)
		BUG("out of memory");
	for (int k = 0; k < cnt; k++)
		it[k] = arg_int(v[k]);
	attr(L, n, name, ir_list(L->dst, A_LIST, it, (uint32_t)cnt));
	free(it);
}

void
lw_attr_floats(Lower *L, NodeId n, const char *name, const double *v, int cnt)
{
	Arg *it = calloc((size_t)cnt + 1, sizeof *it);
	if (!it)
		BUG("out of memory");
	for (int k = 0; k < cnt; k++)
		it[k] = arg_float(v[k]);
	attr(L, n, name, ir_list(L->dst, A_LIST, it, (uint32_t)cnt));
	free(it);
}

void
lw_attr_tensor(Lower *L, NodeId n, const char *name, TensorId t)
{
	attr(L, n, name, (Arg){.kind = A_TENSOR, .u.t = t});
}

void
lw_attr_graph(Lower *L, NodeId n, const char *name, GraphId g)
{
	attr(L, n, name, (Arg){.kind = A_GRAPH, .u.g = g});
}

void
lw_settype(Lower *L, ValId v, DType dt)
{
	Value *p = ir_val(L->dst, v);
	p->kind = VK_TENSOR;
	p->dtype = (uint8_t)dt;
}

DType
lw_dtype(Lower *L, ValId v)
{
	return (DType)ir_val(L->dst, v)->dtype;
}

ValId
lw_op2t(Lower *L, const char *op, ValId a, ValId b, DType dt)
{
	NodeId n = lw_emit(L, op, 2, (ValId[]){a, b}, 1);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, dt);
	return r;
}

ValId
lw_op2(Lower *L, const char *op, ValId a, ValId b)
{
	return lw_op2t(L, op, a, b, lw_dtype(L, a));
}

ValId
lw_op1(Lower *L, const char *op, ValId x)
{
	NodeId n = lw_emit(L, op, 1, &x, 1);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, lw_dtype(L, x));
	return r;
}

ValId
lw_cast(Lower *L, ValId x, DType to)
{
	if (!x || lw_dtype(L, x) == to)
		return x;
	NodeId n = lw_emit(L, "Cast", 1, &x, 1);
	lw_attr_int(L, n, "to", to);
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, to);
	return r;
}

/* -------------------------------------------------------------- constants */

ValId
lw_const(Lower *L, DType dt, int rank, const int64_t *dims, const void *data)
{
	Tensor t = {.dtype = (uint8_t)dt, .rank = rank, .dims = (int64_t *)dims};
	uint64_t numel = ir_numel(&t);
	t.nbytes = numel * ir_dtype_size(dt);
	void *copy = arena_alloc(L->m->arena, t.nbytes ? t.nbytes : 1);
	if (t.nbytes)
		memcpy(copy, data, t.nbytes);
	t.data = copy;
	NodeId n = lw_emit(L, "Constant", 0, NULL, 1);
	lw_attr_tensor(L, n, "value", ir_tensor(L->m, &t));
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, dt);
	return r;
}

ValId
lw_const_i64s(Lower *L, const int64_t *v, int n)
{
	int64_t d = n;
	return lw_const(L, DT_I64, 1, &d, v);
}

ValId
lw_scalar_i64(Lower *L, int64_t v)
{
	return lw_const(L, DT_I64, 0, NULL, &v);
}

static uint16_t
f32_to_f16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff,
		 m = x & 0x7fffff;
	if (e == 0xff)
		return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
	int32_t ue = (int32_t)e - 127 + 15;
	if (ue >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (ue <= 0) {
		if (ue < -10)
			return (uint16_t)sign;
		m |= 0x800000;
		uint32_t shift = (uint32_t)(14 - ue);
		uint32_t h = m >> shift, rem = m & ((1u << shift) - 1),
			 half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)ue << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++; /* may carry into the exponent: still correct */
	return (uint16_t)(sign | h);
}

static uint16_t
f32_to_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

/* Store v (or iv when isint) as one element of dt at p. */
static bool
store_num(void *p, DType dt, double v, int64_t iv, bool isint)
{
	double d = isint ? (double)iv : v;
	/* a float out of int64's range saturates (NaN gives 0) rather than
	 * being undefined behaviour */
	int64_t i = isint ? iv : isnan(v) ? 0 : v >= 0x1p63 ? INT64_MAX
	    : v < -0x1p63 ? INT64_MIN : (int64_t)v;
	switch (dt) {
	case DT_F32: { float f = (float)d; memcpy(p, &f, 4); return true; }
	case DT_F64: memcpy(p, &d, 8); return true;
	case DT_F16: { uint16_t h = f32_to_f16((float)d); memcpy(p, &h, 2);
		return true; }
	case DT_BF16: { uint16_t h = f32_to_bf16((float)d); memcpy(p, &h, 2);
		return true; }
	case DT_I64: memcpy(p, &i, 8); return true;
	case DT_I32: { int32_t x = (int32_t)i; memcpy(p, &x, 4); return true; }
	case DT_I16: { int16_t x = (int16_t)i; memcpy(p, &x, 2); return true; }
	case DT_I8: { int8_t x = (int8_t)i; memcpy(p, &x, 1); return true; }
	case DT_U8: { uint8_t x = (uint8_t)i; memcpy(p, &x, 1); return true; }
	case DT_BOOL: { uint8_t x = isint ? iv != 0 : v != 0; memcpy(p, &x, 1);
		return true; }
	default:
		return false;
	}
}

static ValId
scalar(Lower *L, double v, int64_t iv, bool isint, DType dt)
{
	unsigned char buf[16];
	if (!store_num(buf, dt, v, iv, isint)) {
		lw_fail(L, "cannot make a %s constant", ir_dtype_name(dt));
		return 0;
	}
	return lw_const(L, dt, 0, NULL, buf);
}

ValId
lw_scalar(Lower *L, double v, DType dt)
{
	return scalar(L, v, 0, false, dt);
}

ValId
lw_scalar_int(Lower *L, int64_t v, DType dt)
{
	return scalar(L, 0, v, true, dt);
}

/* ---------------------------------------------------------------- results */

void
lw_bind(Lower *L, int k, ValId v)
{
	if (!v)
		return;
	const Value *sv = lw_outval(L, k);
	ValId s = lw_node(L)->out + (uint32_t)k;
	Value *dv = ir_val(L->dst, v);
	if (dv->name || !dv->def) {
		/* v already stands for something: keep names unique */
		DType dt = (DType)dv->dtype;
		NodeId n = lw_emit(L, "Identity", 1, &v, 1);
		v = lw_res(L, n, 0);
		lw_settype(L, v, dt);
	}
	dv = ir_val(L->dst, v);
	dv->name = sv->name;
	if (sv->kind == VK_TENSOR) {
		ir_set_tensor(L->dst, v, (DType)sv->dtype, sv->rank,
		    ir_dims(L->src, s));
	} else if (sv->kind == VK_SYMINT || sv->kind == VK_SYMFLOAT ||
	    sv->kind == VK_SYMBOOL) {
		DType dt = sv->kind == VK_SYMINT ? DT_I64
		    : sv->kind == VK_SYMFLOAT ? DT_F64 : DT_BOOL;
		ir_set_tensor(L->dst, v, dt, 0, NULL);
	}
	L->map[s] = v;
}

int
lw_fail(Lower *L, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const Node *n = lw_node(L);
	ir_error(L->m, n->loc, "%s: %s", ir_str(L->m, n->op), msg);
	return -1;
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

/* -------------------------------------------------------------- the pass */

static ValId
lower_input(Lower *L, ValId sv)
{
	const Value *s = ir_val(L->src, sv);
	StrId name = s->name;
	if (s->role == ROLE_PARAM || s->role == ROLE_BUFFER ||
	    s->role == ROLE_CONST)
		name = s->target ? s->target : s->name;
	if (s->kind == VK_TENSOR) {
		ValId d = ir_value(L->dst, name);
		ir_set_tensor(L->dst, d, (DType)s->dtype, s->rank,
		    ir_dims(L->src, sv));
		Value *dv = ir_val(L->dst, d);
		dv->role = s->role;
		dv->persist = s->persist;
		dv->target = s->target;
		dv->init = s->init;
		dv->orig = name != s->name ? s->name : s->orig;
		return d;
	}
	if (s->kind == VK_SYMINT || s->kind == VK_SYMFLOAT ||
	    s->kind == VK_SYMBOOL) {
		ValId d = ir_value(L->dst, name);
		ir_set_tensor(L->dst, d, s->kind == VK_SYMINT ? DT_I64
		    : s->kind == VK_SYMFLOAT ? DT_F64 : DT_BOOL, 0, NULL);
		ir_val(L->dst, d)->role = s->role;
		return d;
	}
	return 0; /* constants, objects, tokens: no ONNX input */
}

/* Every op without a rule, each op once with its first place, in graph
 * g and the bodies of its higher-order ops. */
static int
check_graph(Lower *L, const Graph *g, uint8_t *seen, uint32_t nstrs,
    int depth)
{
	int bad = 0;
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = ir_nodep(g, n);
		for (uint32_t i = 0; i < p->nargs; i++) {
			const Arg *a = ir_arg(g, n, i);
			if (a->kind != A_GRAPH)
				continue;
			if (depth >= LW_MAXNEST) {
				ir_error(L->m, p->loc, "control flow nested "
				    "more than %d deep", LW_MAXNEST);
				return 1;
			}
			bad += check_graph(L, ir_graph(L->m, a->u.g), seen,
			    nstrs, depth + 1);
		}
		if (registry_find(L->m, L->reg, p->op) || (L->ctx &&
		    pl_lowering_applies(L->ctx->reg, ir_str(L->m, p->op),
		    L->opset)))
			continue;
		bad++;
		if (p->op < nstrs && seen[p->op])
			continue;
		if (p->op < nstrs)
			seen[p->op] = 1;
		ir_error(L->m, p->loc, "unsupported operator '%s'",
		    ir_str(L->m, p->op));
		if (inplace_op(ir_str(L->m, p->op)))
			ir_note(L->m, p->loc, "in-place ops are rewritten by the "
			    "functionalize pass (in every -O preset); add it to "
			    "--passes before lower");
	}
	return bad;
}

static int
check_rules(Lower *L)
{
	uint8_t *seen = calloc(L->m->nstrs + 1, 1);
	if (!seen)
		BUG("out of memory");
	int bad = check_graph(L, L->src, seen, L->m->nstrs, 0);
	free(seen);
	return bad ? -1 : 0;
}

/* ONNX wants every graph output to be a distinct value made by a node:
 * an input, initializer or repeated output goes through an Identity,
 * named "<name>_out<k>".  isout marks the values already made outputs. */
static ValId
output_value(Lower *L, ValId d, uint8_t *isout)
{
	const Graph *g = L->dst;
	if (ir_val(g, d)->def != 0 && !isout[d]) {
		isout[d] = 1;
		return d;
	}
	char buf[300];
	StrId name = ir_val(g, d)->name;
	Value keep = *ir_val(g, d);
	L->node = 0;
	NodeId n = lw_emit(L, "Identity", 1, &d, 1);
	ValId r = lw_res(L, n, 0);
	Value *rv = ir_val(L->dst, r);
	rv->kind = keep.kind;
	rv->dtype = keep.dtype;
	rv->rank = keep.rank;
	rv->dims = keep.dims;
	snprintf(buf, sizeof buf, "%.200s_out%u", ir_str(L->m, name),
	    g->noutputs);
	rv->name = ir_intern(L->m, buf);
	return r;
}

/* What plugin lowerings may do with the node (host_lower.c calls these). */
static NodeId
site_emit(void *self, const char *domain, const char *op, int nin,
    const ValId *in, int nout)
{
	return lw_emit_domain(self, domain, op, nin, in, nout);
}

static void
site_settype(void *self, ValId v, DType dt)
{
	lw_settype(self, v, dt);
}

static ValId
site_const(void *self, DType dt, int rank, const int64_t *dims,
    const void *data)
{
	return lw_const(self, dt, rank, dims, data);
}

static void
site_bind(void *self, int k, ValId v)
{
	lw_bind(self, k, v);
}

static const PlLowerOps site_ops = {
	site_emit, site_settype, site_const, site_bind,
};

/* The plugin lowerings of the node: 0, 1 (none lowered it) or -1. */
static int
try_plugins(Lower *L, onnxc_ctx *c)
{
	PlLowerSite s = {.src = L->src, .node = L->node, .map = L->map,
	    .dst = L->dst, .dstid = L->dstid, .opset = L->opset,
	    .ops = &site_ops, .self = L};
	return pl_lower_node(c, &s);
}

/* Same type, as far as ONNX can tell. */
static bool
same_type(const Graph *a, ValId x, const Graph *b, ValId y)
{
	const Value *p = ir_val(a, x), *q = ir_val(b, y);
	if (p->kind != q->kind || p->dtype != q->dtype || p->rank != q->rank)
		return false;
	for (int32_t k = 0; k < p->rank; k++) {
		Dim c = a->dims[p->dims + (uint32_t)k];
		Dim d = b->dims[q->dims + (uint32_t)k];
		if (c.e != d.e || (!c.e && c.n != d.n))
			return false;
	}
	return true;
}

/* Graph inputs.  Placeholders naming the same target (tied weights) are
 * one ONNX input: its name is the target, which must stay unique. */
static void
lower_inputs(Lower *L)
{
	Module *m = L->m;
	uint32_t nstrs = m->nstrs;
	ValId *first = calloc(nstrs + 1, sizeof *first); /* target -> FX input */
	if (!first)
		BUG("out of memory");
	for (uint32_t i = 0; i < L->src->ninputs; i++) {
		ValId sv = L->src->inputs[i];
		const Value *s = ir_val(L->src, sv);
		bool weight = s->role == ROLE_PARAM || s->role == ROLE_BUFFER ||
		    s->role == ROLE_CONST;
		StrId t = weight && s->target < nstrs ? s->target : 0;
		if (t && first[t]) {
			ValId f = first[t];
			if (!same_type(L->src, sv, L->src, f))
				ir_error(m, (Loc){0}, "placeholders '%s' and "
				    "'%s' both stand for '%s' but their types "
				    "differ", ir_str(m, ir_val(L->src, f)->name),
				    ir_str(m, s->name), ir_str(m, t));
			L->map[sv] = L->map[f];
			continue;
		}
		ValId d = lower_input(L, sv);
		if (!d)
			continue;
		L->map[sv] = d;
		ir_add_input(L->dst, d);
		if (t)
			first[t] = sv;
	}
	free(first);
}

/* Weights nothing reads (a parameter fold replaced by its folded copy, a
 * buffer the model never uses) stay out of the model, except for training,
 * where every parameter and buffer is state the trainer owns. */
static void
drop_unused_initializers(Graph *g)
{
	uint8_t *used = calloc(g->nvals + 1, 1);
	if (!used)
		BUG("out of memory");
	for (uint32_t k = 0; k < g->nargs; k++)
		if (g->args[k].kind == A_VAL)
			used[g->args[k].u.v] = 1;
	for (uint32_t k = 0; k < g->nitems; k++)
		if (g->items[k].kind == A_VAL)
			used[g->items[k].u.v] = 1;
	for (uint32_t k = 0; k < g->noutputs; k++)
		used[g->outputs[k]] = 1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		if (g->vals[v].init && !used[v])
			continue;
		g->inputs[n++] = v;
	}
	g->ninputs = n;
	free(used);
}

int
lw_lower_nodes(Lower *L)
{
	Module *m = L->m;
	int errs = m->nerrors;
	for (NodeId n = 1; n < L->src->nnodes; n++) {
		L->node = n;
		int rc = L->ctx ? try_plugins(L, L->ctx) : 1;
		LowerFn fn = rc == 1 ? registry_find(m, L->reg,
		    ir_nodep(L->src, n)->op) : NULL;
		if (rc == 1 && !fn)
			lw_fail(L, "every plugin lowering declined the node, "
			    "and onnxc has no rule of its own for it");
		else if (fn && fn(L) < 0 && m->nerrors == errs)
			lw_fail(L, "could not be lowered");
		if (m->nerrors != errs)
			return -1;
	}
	return 0;
}

static int
lower_with(Module *m, GraphId srcid, GraphId *out, int opset, onnxc_ctx *c,
    bool bn_onnx)
{
	Lower L = {.m = m, .opset = opset, .ctx = c,
	    .training = c && c->training, .bn_onnx = bn_onnx};
	L.src = ir_graph(m, srcid);
	Registry r;
	registry_build(m, &r);
	L.reg = &r;
	if (check_rules(&L) < 0 || lwc_check_graph(&L) < 0) {
		free(r.fn);
		return -1;
	}
	L.dstid = ir_graph_new(m, "main_graph", 0);
	L.src = ir_graph(m, srcid);
	L.dst = ir_graph(m, L.dstid);
	L.map = calloc(L.src->nvals + 1, sizeof *L.map);
	if (!L.map)
		BUG("out of memory");
	int errs = m->nerrors;
	lower_inputs(&L);
	lw_lower_nodes(&L);
	if (m->nerrors == errs) {
		/* every output may add an Identity: room for those too */
		uint8_t *isout = calloc(L.dst->nvals + L.src->noutputs + 1, 1);
		if (!isout)
			BUG("out of memory");
		for (uint32_t i = 0; i < L.src->noutputs; i++) {
			ValId sv = L.src->outputs[i];
			ValId d = L.map[sv];
			if (!d) {
				const Value *s = ir_val(L.src, sv);
				ir_error(m, (Loc){0}, "output '%s' has no ONNX "
				    "value (it is not a tensor or SymInt)",
				    ir_str(m, s->name));
				continue;
			}
			ir_add_output(L.dst, output_value(&L, d, isout),
			    (OutKind)L.src->outkind[i], L.src->outtarget[i]);
		}
		free(isout);
	}
	if (m->nerrors == errs) {
		if (!L.training)
			drop_unused_initializers(L.dst);
		lw_name_values(m, L.dst);
	}
	free(L.map);
	free(r.fn);
	*out = L.dstid;
	return m->nerrors == errs ? 0 : -1;
}

int
pass_lower(Module *m, GraphId srcid, GraphId *out, int opset)
{
	return lower_with(m, srcid, out, opset, NULL, false);
}

/* ------------------------------------------------------ the pass "lower" */

static onnxc_status
run_lower(onnxc_ctx *c, const onnxc_host_api *host, void *user)
{
	(void)user;
	int bn_onnx = 0;
	host->opt_bool(c, "onnx-batch-norm", &bn_onnx);
	Graph *g = ir_graph(c->m, c->graph);
	for (NodeId n = 1; n < g->nnodes; n++)
		if (g->nodes[n].dialect == D_ONNX) {
			ir_error(c->m, g->nodes[n].loc, "pass 'lower': the "
			    "graph is ONNX already (lower runs once per "
			    "pipeline)");
			return ONNXC_ERROR;
		}
	GraphId out;
	if (lower_with(c->m, c->graph, &out, c->opset, c, bn_onnx) < 0)
		return ONNXC_ERROR;
	c->graph = out; /* the passes after this one see the ONNX graph */
	return ONNXC_OK;
}

static bool
has_rule(Module *m, StrId op)
{
	return lw_find(m, op) != NULL;
}

static onnxc_status
init_lower(onnxc_ctx *c, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_option options[] = {
		{"onnx-batch-norm", ONNXC_OPT_BOOL, "false", "with --training, "
		    "batch norm in training mode becomes ONNX "
		    "BatchNormalization(training_mode=1), for ONNX Runtime's "
		    "training builds (its inference builds ignore the mode); "
		    "default: the exact batch-statistics computation"},
	};
	static const onnxc_pass_info pass = {
		.size = sizeof pass,
		.name = "lower",
		.summary = "FX graph to ONNX graph: plugin lowerings first, "
		    "then onnxc's rules",
		.options = options,
		.noptions = 1,
		.run = run_lower,
	};
	(void)c;
	reg->has_rule = has_rule;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(lower, "onnxc-lower", ONNXC_VERSION_STRING, init_lower, NULL);
