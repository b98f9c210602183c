/* lower_emit.c - the rule-author API, writing side: emitting ONNX nodes
 * and their attributes, constants, binding FX outputs, reporting.
 * Depends on ir/ only. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* --------------------------------------------------------------- emitting */

/* The interned name s.  Rules pass the same literals for every node: a
 * hit on the text's address only has to compare the text (a caller's
 * buffer may hold another name at the same address), not hash it. */
static StrId
name_id(Lower *L, const char *s)
{
	if (!*s)
		return 0;
	uint32_t h = (uint32_t)((uintptr_t)s >> 2) * 2654435761u;
	LwName *e = &L->names[h >> 27 & (LW_NAMES - 1)];
	if (e->s == s && !strcmp(ir_str(L->m, e->id), s))
		return e->id;
	e->s = s;
	e->id = ir_intern(L->m, s);
	return e->id;
}

NodeId
lw_emit_domain(Lower *L, const char *domain, const char *op, int nin,
    const ValId *in, int nout)
{
	const Node *src = L->node ? lw_node(L) : NULL;
	NodeId n = ir_node(L->dst, D_ONNX, name_id(L, op), (uint32_t)nout);
	Node *p = ir_nodep(L->dst, n);
	p->domain = name_id(L, domain);
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
	ir_push_arg(L->dst, n, arg_keyed(a, name_id(L, name)));
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
	ArenaMark mk = arena_mark(L->m->scratch);
	Arg *it = arena_array(L->m->scratch, (size_t)cnt + 1, sizeof *it);
	for (int k = 0; k < cnt; k++)
		it[k] = arg_int(v[k]);
	attr(L, n, name, ir_list(L->dst, A_LIST, it, (uint32_t)cnt));
	arena_release(L->m->scratch, mk);
}

void
lw_attr_floats(Lower *L, NodeId n, const char *name, const double *v, int cnt)
{
	ArenaMark mk = arena_mark(L->m->scratch);
	Arg *it = arena_array(L->m->scratch, (size_t)cnt + 1, sizeof *it);
	for (int k = 0; k < cnt; k++)
		it[k] = arg_float(v[k]);
	attr(L, n, name, ir_list(L->dst, A_LIST, it, (uint32_t)cnt));
	arena_release(L->m->scratch, mk);
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

ValId
lw_rounded(Lower *L, ValId x, DType dt)
{
	return lw_cast(L, lw_cast(L, x, dt), lw_dtype(L, x));
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
	case DT_U16: { uint16_t x = (uint16_t)i; memcpy(p, &x, 2); return true; }
	case DT_U32: { uint32_t x = (uint32_t)i; memcpy(p, &x, 4); return true; }
	case DT_U64: {
		/* from a float: saturated to [0, 2^64) (NaN gives 0) */
		uint64_t x = isint ? (uint64_t)iv : !(v > 0) ? 0 :
		    v >= 0x1p64 ? UINT64_MAX : (uint64_t)v;
		memcpy(p, &x, 8);
		return true;
	}
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
	/* an output past the node's last read one (the dump made only as
	 * many as its getitems read): nothing reads it */
	if (!v || (uint32_t)k >= lw_node(L)->nout)
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
	L->failed = true;
	return -1;
}

bool
lw_failed(const Lower *L)
{
	return L->failed;
}
