/* rewrite.c - inside the decompose plugin: what the decompositions
 * share.  Types of values, reading the arguments of the node being
 * rewritten, and emitting the FX nodes that replace it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decompose.h"

/* ------------------------------------------------------------- types */

/* The type of tensor value v; -1 if v is not a tensor of known rank. */
int
dec_ty_of(Rw *r, onnxc_value v, Ty *t)
{
	onnxc_value_info vi;
	memset(t, 0, sizeof *t);
	if (!v || r->h->value_get(r->ctx, r->g, v, &vi) != ONNXC_OK)
		return -1;
	if (vi.kind != ONNXC_VK_TENSOR || vi.rank < 0 || vi.rank > MAXR)
		return -1;
	t->dtype = vi.dtype;
	t->rank = vi.rank;
	if (r->h->value_dims(r->ctx, r->g, v, t->d, MAXR) != ONNXC_OK)
		return -1;
	return 0;
}

int
dec_dim_static(const onnxc_dim *d, int64_t *n)
{
	if (d->e)
		return 0;
	*n = d->n;
	return 1;
}

/* the dim counting negative i from the end */
onnxc_dim *
dec_dim_at(Ty *t, int i)
{
	return &t->d[i < 0 ? t->rank + i : i];
}

int
dec_ty_static(const Ty *t)
{
	for (int i = 0; i < t->rank; i++)
		if (t->d[i].e)
			return 0;
	return 1;
}

Ty
dec_ty_dtype(Ty t, uint32_t dtype)
{
	t.dtype = dtype;
	return t;
}

/* Broadcast of a and b (numpy rules): a static 1 yields to the other. */
Ty
dec_ty_bcast(const Ty *a, const Ty *b, uint32_t dtype)
{
	Ty t;
	memset(&t, 0, sizeof t);
	t.dtype = dtype;
	t.rank = a->rank > b->rank ? a->rank : b->rank;
	for (int i = 0; i < t.rank; i++) {
		int ia = a->rank - t.rank + i, ib = b->rank - t.rank + i;
		const onnxc_dim *da = ia >= 0 ? &a->d[ia] : NULL;
		const onnxc_dim *db = ib >= 0 ? &b->d[ib] : NULL;
		if (!da || (!da->e && da->n == 1 && db))
			t.d[i] = *db;
		else
			t.d[i] = *da;
	}
	return t;
}

/* -------------------------------------------------------- arguments */

onnxc_arg
dec_a_val(onnxc_value v)
{
	onnxc_arg a = {ONNXC_ARG_VALUE, 0, 0, 0, v, 0, 0};
	return a;
}

onnxc_arg
dec_a_int(int64_t i)
{
	onnxc_arg a = {ONNXC_ARG_INT, 0, i, 0, 0, 0, 0};
	return a;
}

onnxc_arg
dec_a_float(double f)
{
	onnxc_arg a = {ONNXC_ARG_FLOAT, 0, 0, f, 0, 0, 0};
	return a;
}

onnxc_arg
dec_a_bool(int b)
{
	onnxc_arg a = {ONNXC_ARG_BOOL, 0, b != 0, 0, 0, 0, 0};
	return a;
}

static onnxc_arg
a_none(void)
{
	onnxc_arg a = {ONNXC_ARG_NONE, 0, 0, 0, 0, 0, 0};
	return a;
}

onnxc_arg
dec_a_keyed(Rw *r, onnxc_arg a, const char *key)
{
	a.key = r->h->intern(r->ctx, key);
	return a;
}

/* the keyword dtype= of a factory or a conversion */
onnxc_arg
dec_a_dtype(Rw *r, uint32_t dt)
{
	return dec_a_keyed(r, (onnxc_arg){.kind = ONNXC_ARG_DTYPE, .i = dt},
	    "dtype");
}

onnxc_arg
dec_a_ints(Rw *r, const int64_t *v, int n)
{
	onnxc_arg items[MAXR], out;
	for (int i = 0; i < n && i < MAXR; i++)
		items[i] = dec_a_int(v[i]);
	if (n > MAXR || r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, items,
	    (uint32_t)n, &out) != ONNXC_OK) {
		r->bad = 1;
		return a_none();
	}
	return out;
}

/* Argument pos/key of the node; 0 when absent or None. */
int
dec_arg(Rw *r, int pos, const char *key, onnxc_arg *a)
{
	if (r->h->node_find_arg(r->ctx, r->g, r->n, pos, key, a) != ONNXC_OK)
		return 0;
	return a->kind != ONNXC_ARG_NONE;
}

/* The value behind a tensor argument, or 0. */
onnxc_value
dec_arg_val(Rw *r, int pos, const char *key)
{
	onnxc_arg a;
	if (!dec_arg(r, pos, key, &a) || a.kind != ONNXC_ARG_VALUE)
		return 0;
	return a.ref;
}

/* A static int (or bool) argument: 1 and *out, dflt when absent, 0 when
 * it is not a number known now (a SymInt). */
int
dec_arg_int(Rw *r, int pos, const char *key, int64_t dflt, int64_t *out)
{
	onnxc_arg a;
	*out = dflt;
	if (!dec_arg(r, pos, key, &a))
		return 1;
	if (a.kind != ONNXC_ARG_INT && a.kind != ONNXC_ARG_BOOL)
		return 0;
	*out = a.i;
	return 1;
}

int
dec_arg_float(Rw *r, int pos, const char *key, double dflt, double *out)
{
	onnxc_arg a;
	*out = dflt;
	if (!dec_arg(r, pos, key, &a))
		return 1;
	if (a.kind == ONNXC_ARG_FLOAT)
		*out = a.f;
	else if (a.kind == ONNXC_ARG_INT || a.kind == ONNXC_ARG_BOOL)
		*out = (double)a.i;
	else
		return 0;
	return 1;
}

/* A static int list (a lone int counts as [int]) into out[0..cap): its
 * length, -1 when absent, -2 when not static or too long. */
int
dec_arg_ints(Rw *r, int pos, const char *key, int64_t *out, int cap)
{
	onnxc_arg a, it;
	if (!dec_arg(r, pos, key, &a))
		return -1;
	if (a.kind == ONNXC_ARG_INT) {
		out[0] = a.i;
		return 1;
	}
	if (a.kind != ONNXC_ARG_LIST && a.kind != ONNXC_ARG_TUPLE)
		return -2;
	if (a.len > (uint32_t)cap)
		return -2;
	for (uint32_t i = 0; i < a.len; i++) {
		if (r->h->list_item(r->ctx, r->g, &a, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_INT)
			return -2;
		out[i] = it.i;
	}
	return (int)a.len;
}

/* Argument pos/key copied for a new node (lists rebuilt item by item so
 * that the new node owns them); None when absent. */
onnxc_arg
dec_arg_copy(Rw *r, int pos, const char *key)
{
	onnxc_arg a, items[64], out;
	if (r->h->node_find_arg(r->ctx, r->g, r->n, pos, key, &a) != ONNXC_OK)
		return a_none();
	a.key = 0;
	if (a.kind != ONNXC_ARG_LIST && a.kind != ONNXC_ARG_TUPLE)
		return a;
	if (a.len > 64) {
		r->bad = 1;
		return a_none();
	}
	for (uint32_t i = 0; i < a.len; i++)
		if (r->h->list_item(r->ctx, r->g, &a, i, &items[i]) != ONNXC_OK)
			r->bad = 1;
	if (r->h->make_list(r->ctx, r->g, a.kind, items, a.len, &out) !=
	    ONNXC_OK) {
		r->bad = 1;
		return a_none();
	}
	return out;
}

/* ---------------------------------------------------------- emitting */

/* Names value v "<node>__<tag><seq>" so that ONNX names stay unique. */
static void
name_new(Rw *r, onnxc_value v, const char *tag)
{
	char buf[160];
	snprintf(buf, sizeof buf, "%s__%s%u", r->base, tag, r->seq++);
	if (r->h->value_set_name(r->ctx, r->g, v, buf) != ONNXC_OK)
		r->bad = 1;
}

/* A new FX node op(args...) with nout outputs; output 0 has type t.  The
 * other outputs are named but left untyped (callers type what they use). */
onnxc_node
dec_emit_n(Rw *r, const char *op, const Ty *t, uint32_t nout, int nargs,
    const onnxc_arg *args)
{
	onnxc_node n = r->h->node_new(r->ctx, r->g, ONNXC_FX, "", op, nout);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK) {
		r->bad = 1;
		return 0;
	}
	/* the replacement keeps the node's provenance (model metadata) */
	if (ONNXC_HOST_HAS(r->h, node_set_origin) &&
	    r->h->node_set_origin(r->ctx, r->g, n, r->n) != ONNXC_OK)
		r->bad = 1;
	for (int i = 0; i < nargs; i++)
		if (r->h->node_push_arg(r->ctx, r->g, n, &args[i]) != ONNXC_OK)
			r->bad = 1;
	const char *s = strstr(op, "::");
	char tag[48];
	snprintf(tag, sizeof tag, "%s", s ? s + 2 : op);
	char *dot = strchr(tag, '.');
	if (dot)
		*dot = 0;
	for (uint32_t k = 0; k < nout; k++)
		name_new(r, ni.out + k, tag);
	if (t && r->h->value_set_type(r->ctx, r->g, ni.out, t->dtype, t->rank,
	    t->d) != ONNXC_OK)
		r->bad = 1;
	return n;
}

/* The output value of a one-output new node. */
onnxc_value
dec_emit(Rw *r, const char *op, const Ty *t, int nargs, const onnxc_arg *args)
{
	onnxc_node n = dec_emit_n(r, op, t, 1, nargs, args);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK) {
		r->bad = 1;
		return 0;
	}
	return ni.out;
}

onnxc_value
dec_unary(Rw *r, const char *op, onnxc_value x, const Ty *t)
{
	return EMIT(r, op, t, dec_a_val(x));
}

onnxc_value
dec_binary(Rw *r, const char *op, onnxc_value a, onnxc_value b, const Ty *t)
{
	return EMIT(r, op, t, dec_a_val(a), dec_a_val(b));
}

/* op(x, scalar) for the .Scalar / .Tensor-with-a-number overloads */
onnxc_value
dec_with_scalar(Rw *r, const char *op, onnxc_value x, double s, const Ty *t)
{
	return EMIT(r, op, t, dec_a_val(x), dec_a_float(s));
}

onnxc_value
dec_permute(Rw *r, onnxc_value x, const Ty *tx, const int64_t *perm, Ty *out)
{
	*out = *tx;
	int ident = 1;
	for (int i = 0; i < tx->rank; i++) {
		out->d[i] = tx->d[perm[i]];
		ident &= perm[i] == i;
	}
	if (ident)
		return x;
	return EMIT(r, "aten::permute.default", out, dec_a_val(x),
	    dec_a_ints(r, perm, tx->rank));
}

/* x viewed as the sizes of t (at most one of them symbolic) */
onnxc_value
dec_view(Rw *r, onnxc_value x, const Ty *t)
{
	int64_t s[MAXR];
	int sym = 0;
	/* one symbolic size is what the others leave (-1); more cannot be
	 * written as numbers: the rewrite fails rather than view wrongly */
	for (int i = 0; i < t->rank; i++) {
		s[i] = t->d[i].e ? -1 : t->d[i].n;
		sym += t->d[i].e != 0;
	}
	if (sym > 1) {
		r->bad = 1;
		return x;
	}
	return EMIT(r, "aten::view.default", t, dec_a_val(x),
	    dec_a_ints(r, s, t->rank));
}

/* FX output k of the node being rewritten is now computed by v: its uses
 * move to v, which takes its name (graph outputs keep their names).  A v
 * this rewrite did not make (a graph input, as diff(x, n=0) gives, or
 * another node's tensor) keeps its own name: an alias of it takes the
 * output's, so an input is never renamed to an output's name. */
void
dec_bind(Rw *r, uint32_t k, onnxc_value v)
{
	onnxc_value old = r->ni.out + k;
	onnxc_value_info vi;
	char keep[160], buf[176];
	Ty t, to;
	/* a float result computed in another float type (half precision
	 * computed in float32) is cast to the output's */
	if (v && dec_ty_of(r, v, &t) == 0 && dec_ty_of(r, old, &to) == 0 &&
	    t.dtype != to.dtype && dec_dt_float(t.dtype) &&
	    dec_dt_float(to.dtype))
		v = dec_cast(r, dec_tv(v, t), to.dtype).v;
	else if (v && v < r->vend && dec_ty_of(r, v, &t) == 0)
		v = dec_unary(r, "aten::alias.default", v, &t);
	if (!v || r->h->value_get(r->ctx, r->g, old, &vi) != ONNXC_OK) {
		r->bad = 1;
		return;
	}
	snprintf(keep, sizeof keep, "%s", r->h->str(r->ctx, vi.name));
	snprintf(buf, sizeof buf, "%s__replaced", keep);
	if (dec_remap(r->rm, old, v) != 0 ||
	    r->h->value_set_name(r->ctx, r->g, old, buf) != ONNXC_OK ||
	    r->h->value_set_name(r->ctx, r->g, v, keep) != ONNXC_OK)
		r->bad = 1;
}

/* The type of FX output k of the node being rewritten. */
int
dec_out_ty(Rw *r, uint32_t k, Ty *t)
{
	return dec_ty_of(r, r->ni.out + k, t);
}

/* Whether FX output k is used; a tuple element no getitem takes has no
 * value at all. */
int
dec_out_used(Rw *r, uint32_t k)
{
	return k < r->ni.nout &&
	    r->h->value_uses(r->ctx, r->g, r->ni.out + k) != 0;
}

/* Records that old is now v; 0, or -1 out of memory. */
int
dec_remap(Remap *rm, onnxc_value old, onnxc_value v)
{
	if (old >= rm->n) {
		uint32_t c = rm->n ? rm->n : 256;
		while (c <= old)
			c *= 2;
		onnxc_value *p = realloc(rm->to, c * sizeof *p);
		if (!p)
			return -1;
		memset(p + rm->n, 0, (c - rm->n) * sizeof *p);
		rm->to = p;
		rm->n = c;
	}
	rm->to[old] = v;
	rm->any = 1;
	return 0;
}

/* The value standing for v now. */
onnxc_value
dec_resolve(const void *user, onnxc_value v)
{
	const Remap *rm = user;
	while (v < rm->n && rm->to[v])
		v = rm->to[v];
	return v;
}
