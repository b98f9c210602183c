/* decompose.c - pass "decompose": high-level and pre-dispatch ATen ops
 * rewritten into ops the lowering handles.
 *
 * Requires: the FX graph (before "lower"), with tensor annotations on the
 * values it rewrites.  Provides: the same graph where each decomposed node
 * is replaced by FX nodes of simpler ATen ops, every new value typed.
 *
 * An op is decomposed when this file has a decomposition for it, no
 * lowering handles it (or option all=true), and it is not in the keep list:
 * an op that lowers better whole (SDPA -> Attention) stays whole.  A
 * decomposition that does not fit a node (symbolic sizes it needs, training
 * mode dropout, einsum beyond two-operand products) leaves the node alone
 * for the lowering to handle or report.
 *
 * A plugin module: it reaches the host only through onnxc/plugin.h.
 */
#include <math.h> /* INFINITY and NAN only: no libm */
#include <stdio.h>
#include <string.h>

#include <onnxc/plugin.h>

#define MAXR 16 /* largest rank a rewrite handles */
#define LN2 0.69314718055994530942
#define PI 3.14159265358979323846

/* A tensor type: element type and dims. */
typedef struct Ty {
	uint32_t dtype;
	int32_t rank;
	onnxc_dim d[MAXR];
} Ty;

/* The node being rewritten. */
typedef struct Rw {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	onnxc_node n;
	onnxc_node_info ni;
	char base[96];  /* its FX name: new values are named after it */
	unsigned seq;
	int bad;        /* a host call failed */
} Rw;

/* ------------------------------------------------------------- types */

/* The type of tensor value v; -1 if v is not a tensor of known rank. */
static int
ty_of(Rw *r, onnxc_value v, Ty *t)
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

static int
dim_static(const onnxc_dim *d, int64_t *n)
{
	if (d->e)
		return 0;
	*n = d->n;
	return 1;
}

/* the dim counting negative i from the end */
static onnxc_dim *
dim_at(Ty *t, int i)
{
	return &t->d[i < 0 ? t->rank + i : i];
}

static int
ty_static(const Ty *t)
{
	for (int i = 0; i < t->rank; i++)
		if (t->d[i].e)
			return 0;
	return 1;
}

static Ty
ty_dtype(Ty t, uint32_t dtype)
{
	t.dtype = dtype;
	return t;
}

/* Broadcast of a and b (numpy rules): a static 1 yields to the other. */
static Ty
ty_bcast(const Ty *a, const Ty *b, uint32_t dtype)
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

static onnxc_arg
a_val(onnxc_value v)
{
	onnxc_arg a = {ONNXC_ARG_VALUE, 0, 0, 0, v, 0, 0};
	return a;
}

static onnxc_arg
a_int(int64_t i)
{
	onnxc_arg a = {ONNXC_ARG_INT, 0, i, 0, 0, 0, 0};
	return a;
}

static onnxc_arg
a_float(double f)
{
	onnxc_arg a = {ONNXC_ARG_FLOAT, 0, 0, f, 0, 0, 0};
	return a;
}

static onnxc_arg
a_bool(int b)
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

static onnxc_arg
a_keyed(Rw *r, onnxc_arg a, const char *key)
{
	a.key = r->h->intern(r->ctx, key);
	return a;
}

static onnxc_arg
a_ints(Rw *r, const int64_t *v, int n)
{
	onnxc_arg items[MAXR], out;
	for (int i = 0; i < n && i < MAXR; i++)
		items[i] = a_int(v[i]);
	if (n > MAXR || r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, items,
	    (uint32_t)n, &out) != ONNXC_OK) {
		r->bad = 1;
		return a_none();
	}
	return out;
}

/* Argument pos/key of the node; 0 when absent or None. */
static int
arg(Rw *r, int pos, const char *key, onnxc_arg *a)
{
	if (r->h->node_find_arg(r->ctx, r->g, r->n, pos, key, a) != ONNXC_OK)
		return 0;
	return a->kind != ONNXC_ARG_NONE;
}

/* The value behind a tensor argument, or 0. */
static onnxc_value
arg_val(Rw *r, int pos, const char *key)
{
	onnxc_arg a;
	if (!arg(r, pos, key, &a) || a.kind != ONNXC_ARG_VALUE)
		return 0;
	return a.ref;
}

/* A static int (or bool) argument: 1 and *out, dflt when absent, 0 when
 * it is not a number known now (a SymInt). */
static int
arg_int(Rw *r, int pos, const char *key, int64_t dflt, int64_t *out)
{
	onnxc_arg a;
	*out = dflt;
	if (!arg(r, pos, key, &a))
		return 1;
	if (a.kind != ONNXC_ARG_INT && a.kind != ONNXC_ARG_BOOL)
		return 0;
	*out = a.i;
	return 1;
}

static int
arg_float(Rw *r, int pos, const char *key, double dflt, double *out)
{
	onnxc_arg a;
	*out = dflt;
	if (!arg(r, pos, key, &a))
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
static int
arg_ints(Rw *r, int pos, const char *key, int64_t *out, int cap)
{
	onnxc_arg a, it;
	if (!arg(r, pos, key, &a))
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
static onnxc_arg
arg_copy(Rw *r, int pos, const char *key)
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
static onnxc_node
emit_n(Rw *r, const char *op, const Ty *t, uint32_t nout, int nargs,
    const onnxc_arg *args)
{
	onnxc_node n = r->h->node_new(r->ctx, r->g, ONNXC_FX, "", op, nout);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK) {
		r->bad = 1;
		return 0;
	}
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
static onnxc_value
emit(Rw *r, const char *op, const Ty *t, int nargs, const onnxc_arg *args)
{
	onnxc_node n = emit_n(r, op, t, 1, nargs, args);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK) {
		r->bad = 1;
		return 0;
	}
	return ni.out;
}

#define EMIT(r, op, t, ...) \
	emit(r, op, t, sizeof((onnxc_arg[]){__VA_ARGS__}) / \
	    sizeof(onnxc_arg), (onnxc_arg[]){__VA_ARGS__})

static onnxc_value
unary(Rw *r, const char *op, onnxc_value x, const Ty *t)
{
	return EMIT(r, op, t, a_val(x));
}

static onnxc_value
binary(Rw *r, const char *op, onnxc_value a, onnxc_value b, const Ty *t)
{
	return EMIT(r, op, t, a_val(a), a_val(b));
}

/* op(x, scalar) for the .Scalar / .Tensor-with-a-number overloads */
static onnxc_value
with_scalar(Rw *r, const char *op, onnxc_value x, double s, const Ty *t)
{
	return EMIT(r, op, t, a_val(x), a_float(s));
}

static onnxc_value
permute(Rw *r, onnxc_value x, const Ty *tx, const int64_t *perm, Ty *out)
{
	*out = *tx;
	int ident = 1;
	for (int i = 0; i < tx->rank; i++) {
		out->d[i] = tx->d[perm[i]];
		ident &= perm[i] == i;
	}
	if (ident)
		return x;
	return EMIT(r, "aten::permute.default", out, a_val(x),
	    a_ints(r, perm, tx->rank));
}

/* x viewed as the static sizes of t */
static onnxc_value
view(Rw *r, onnxc_value x, const Ty *t)
{
	int64_t s[MAXR];
	for (int i = 0; i < t->rank; i++)
		s[i] = t->d[i].n;
	return EMIT(r, "aten::view.default", t, a_val(x),
	    a_ints(r, s, t->rank));
}

/* FX output k of the node being rewritten is now computed by v: its uses
 * move to v, which takes its name (graph outputs keep their names). */
static void
bind(Rw *r, uint32_t k, onnxc_value v)
{
	onnxc_value old = r->ni.out + k;
	onnxc_value_info vi;
	char keep[160], buf[176];
	if (!v || r->h->value_get(r->ctx, r->g, old, &vi) != ONNXC_OK) {
		r->bad = 1;
		return;
	}
	snprintf(keep, sizeof keep, "%s", r->h->str(r->ctx, vi.name));
	snprintf(buf, sizeof buf, "%s__replaced", keep);
	if (r->h->replace_uses(r->ctx, r->g, old, v) != ONNXC_OK ||
	    r->h->value_set_name(r->ctx, r->g, old, buf) != ONNXC_OK ||
	    r->h->value_set_name(r->ctx, r->g, v, keep) != ONNXC_OK)
		r->bad = 1;
}

/* The type of FX output k of the node being rewritten. */
static int
out_ty(Rw *r, uint32_t k, Ty *t)
{
	return ty_of(r, r->ni.out + k, t);
}

/* Whether FX output k is used; a tuple element no getitem takes has no
 * value at all. */
static int
out_used(Rw *r, uint32_t k)
{
	return k < r->ni.nout &&
	    r->h->value_uses(r->ctx, r->g, r->ni.out + k) != 0;
}

/* Each decomposition returns 1 when it rewrote the node (every used
 * output bound), 0 when it does not apply (nothing emitted).  Checks come
 * before the first emit so that declining leaves no dead nodes. */
typedef int (*DecFn)(Rw *r);

/* Square root by Newton's method, in long double so that the double it
 * rounds to is the correctly rounded one: plugins link nothing, libm
 * included. */
static double
root(double x)
{
	long double y = x > 1 ? x : 1;
	for (int i = 0; i < 200; i++) {
		long double z = (y + x / y) / 2;
		if (z >= y)
			break;
		y = z;
	}
	return (double)y;
}

/* ------------------------------------------------------ linear algebra */

/* linear(input, weight, bias=None) -> permute(weight) then addmm for 2-D
 * input, else matmul (+ add) */
static int
linear(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "input"), w = arg_val(r, 1, "weight");
	onnxc_value b = arg_val(r, 2, "bias");
	Ty tx, tw, to, tt;
	if (ty_of(r, x, &tx) || ty_of(r, w, &tw) || out_ty(r, 0, &to) ||
	    (tw.rank != 1 && tw.rank != 2))
		return 0;
	onnxc_value wt = w;
	if (tw.rank == 2)
		wt = permute(r, w, &tw, (int64_t[]){1, 0}, &tt);
	if (tw.rank == 2 && tx.rank == 2 && b) {
		bind(r, 0, EMIT(r, "aten::addmm.default", &to, a_val(b),
		    a_val(x), a_val(wt)));
		return 1;
	}
	onnxc_value y = binary(r, "aten::matmul.default", x, wt, &to);
	if (b)
		y = binary(r, "aten::add.Tensor", y, b, &to);
	bind(r, 0, y);
	return 1;
}

/* Fills out[0..k) from an int-list argument of length 1 or k. */
static int
ints_k(Rw *r, int pos, const char *key, int64_t dflt, int k, int64_t *out)
{
	int64_t v[MAXR];
	int n = arg_ints(r, pos, key, v, MAXR);
	if (n == -2 || n == 0 || (n > 1 && n != k))
		return 0;
	for (int i = 0; i < k; i++)
		out[i] = n < 0 ? dflt : n == 1 ? v[0] : v[i];
	return 1;
}

/* conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups) ->
 * convolution(..., transposed=False, output_padding=0, groups); padding
 * may be "valid" or a symmetric "same" (the .padding overloads) */
static int
conv(Rw *r, int k)
{
	onnxc_value x = arg_val(r, 0, "input"), w = arg_val(r, 1, "weight");
	int64_t st[3], pad[3], dil[3], zero[3] = {0, 0, 0}, groups;
	Ty tx, tw, to;
	if (ty_of(r, x, &tx) || ty_of(r, w, &tw) || out_ty(r, 0, &to) ||
	    tx.rank != k + 2 || tw.rank != k + 2)
		return 0;
	if (!ints_k(r, 3, "stride", 1, k, st) ||
	    !ints_k(r, 5, "dilation", 1, k, dil) ||
	    !arg_int(r, 6, "groups", 1, &groups))
		return 0;
	onnxc_arg pa;
	if (arg(r, 4, "padding", &pa) && pa.kind == ONNXC_ARG_STR) {
		const char *mode = r->h->str(r->ctx, pa.ref);
		for (int i = 0; i < k; i++) {
			int64_t ks, total;
			if (!strcmp(mode, "valid")) {
				pad[i] = 0;
				continue;
			}
			if (strcmp(mode, "same") || st[i] != 1 ||
			    !dim_static(&tw.d[2 + i], &ks))
				return 0;
			total = dil[i] * (ks - 1);
			if (total % 2)
				return 0; /* asymmetric: needs a pad op */
			pad[i] = total / 2;
		}
	} else if (!ints_k(r, 4, "padding", 0, k, pad)) {
		return 0;
	}
	bind(r, 0, EMIT(r, "aten::convolution.default", &to, a_val(x),
	    a_val(w), arg_copy(r, 2, "bias"), a_ints(r, st, k),
	    a_ints(r, pad, k), a_ints(r, dil, k), a_bool(0),
	    a_ints(r, zero, k), a_int(groups)));
	return 1;
}

static int conv1d(Rw *r) { return conv(r, 1); }
static int conv2d(Rw *r) { return conv(r, 2); }
static int conv3d(Rw *r) { return conv(r, 3); }

/* conv_transpose{k}d(input, weight, bias, stride, padding, output_padding,
 * groups, dilation) -> convolution(..., transposed=True, ...) */
static int
conv_transpose(Rw *r, int k)
{
	onnxc_value x = arg_val(r, 0, "input"), w = arg_val(r, 1, "weight");
	int64_t st[3], pad[3], opad[3], dil[3], groups;
	Ty tx, to;
	if (ty_of(r, x, &tx) || out_ty(r, 0, &to) || tx.rank != k + 2)
		return 0;
	if (!ints_k(r, 3, "stride", 1, k, st) ||
	    !ints_k(r, 4, "padding", 0, k, pad) ||
	    !ints_k(r, 5, "output_padding", 0, k, opad) ||
	    !arg_int(r, 6, "groups", 1, &groups) ||
	    !ints_k(r, 7, "dilation", 1, k, dil))
		return 0;
	bind(r, 0, EMIT(r, "aten::convolution.default", &to, a_val(x),
	    a_val(w), arg_copy(r, 2, "bias"), a_ints(r, st, k),
	    a_ints(r, pad, k), a_ints(r, dil, k), a_bool(1),
	    a_ints(r, opad, k), a_int(groups)));
	return 1;
}

static int conv_transpose1d(Rw *r) { return conv_transpose(r, 1); }
static int conv_transpose2d(Rw *r) { return conv_transpose(r, 2); }
static int conv_transpose3d(Rw *r) { return conv_transpose(r, 3); }

/* Einsum letters of one equation. */
typedef struct Eq {
	char a[MAXR + 1], b[MAXR + 1], o[MAXR + 1];
} Eq;

/* "ab,bc->ac" (spaces allowed; implicit output: the letters seen once,
 * sorted) into e; 0 for anything else (ellipsis, repeated letters). */
static int
eq_parse(const char *s, Eq *e)
{
	char *parts[3] = {e->a, e->b, e->o};
	int p = 0, n = 0, explicit = 0;
	memset(e, 0, sizeof *e);
	for (; *s; s++) {
		if (*s == ' ')
			continue;
		if (*s == ',' && p == 0) {
			p = 1, n = 0;
		} else if (s[0] == '-' && s[1] == '>' && p == 1) {
			p = 2, n = 0, explicit = 1, s++;
		} else if ((*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z')) {
			if (n == MAXR || strchr(parts[p], *s))
				return 0;
			parts[p][n++] = *s;
		} else {
			return 0;
		}
	}
	if (p == 0)
		return 0;
	if (!explicit) {
		n = 0;
		for (int c = 'A'; c <= 'z'; c++)
			if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) &&
			    !strchr(e->a, c) != !strchr(e->b, c))
				e->o[n++] = (char)c;
	}
	for (const char *c = e->o; *c; c++)
		if (!strchr(e->a, *c) && !strchr(e->b, *c))
			return 0;
	return 1;
}

static int
idx(const char *s, char c)
{
	return (int)(strchr(s, c) - s);
}

/* One einsum operand arranged as [batch..., rows, cols] for matmul:
 * permuted to the letter order `order`, viewed when a group is not one
 * dim.  nb batch letters, then nr row letters, then the rest. */
static onnxc_value
einsum_side(Rw *r, onnxc_value x, const Ty *tx, const char *lett,
    const char *order, int nb, int nr, Ty *out)
{
	int64_t perm[MAXR];
	int n = (int)strlen(order);
	Ty tp;
	for (int i = 0; i < n; i++)
		perm[i] = idx(lett, order[i]);
	x = permute(r, x, tx, perm, &tp);
	int nc = n - nb - nr;
	if (nr == 1 && nc == 1) {
		*out = tp;
		return x;
	}
	int64_t rows = 1, cols = 1;
	for (int i = 0; i < nr; i++)
		rows *= tp.d[nb + i].n;
	for (int i = 0; i < nc; i++)
		cols *= tp.d[nb + nr + i].n;
	*out = tp;
	out->rank = nb + 2;
	out->d[nb] = (onnxc_dim){rows, 0};
	out->d[nb + 1] = (onnxc_dim){cols, 0};
	return view(r, x, out);
}

/* einsum(equation, [a, b]) for two-operand products: letters in both and
 * the output are batch dims, letters in one input and the output are
 * rows/columns, letters in both inputs only are contracted.  Each side is
 * permuted to [batch, rows, contracted] / [batch, contracted, cols],
 * viewed to 3 groups when a group is not one dim (static sizes only),
 * multiplied with matmul, viewed back and permuted to the output. */
static int
einsum(Rw *r)
{
	onnxc_arg ea, la, ia, ib;
	Eq e;
	Ty ta, tb, to;
	if (!arg(r, 0, "equation", &ea) || ea.kind != ONNXC_ARG_STR ||
	    !arg(r, 1, "tensors", &la) ||
	    (la.kind != ONNXC_ARG_LIST && la.kind != ONNXC_ARG_TUPLE) ||
	    la.len != 2 || !eq_parse(r->h->str(r->ctx, ea.ref), &e))
		return 0;
	if (r->h->list_item(r->ctx, r->g, &la, 0, &ia) != ONNXC_OK ||
	    r->h->list_item(r->ctx, r->g, &la, 1, &ib) != ONNXC_OK ||
	    ia.kind != ONNXC_ARG_VALUE || ib.kind != ONNXC_ARG_VALUE ||
	    ty_of(r, ia.ref, &ta) || ty_of(r, ib.ref, &tb) ||
	    out_ty(r, 0, &to) || ta.rank != (int)strlen(e.a) ||
	    tb.rank != (int)strlen(e.b) || to.rank != (int)strlen(e.o))
		return 0;
	char bat[MAXR + 1] = "", rows[MAXR + 1] = "", cols[MAXR + 1] = "";
	char con[MAXR + 1] = "";
	int nb = 0, nr = 0, nc = 0, nk = 0;
	for (const char *c = e.o; *c; c++) {
		int ina = strchr(e.a, *c) != NULL;
		int inb = strchr(e.b, *c) != NULL;
		if (ina && inb)
			bat[nb++] = *c;
		else if (ina)
			rows[nr++] = *c;
		else
			cols[nc++] = *c;
	}
	for (const char *c = e.a; *c; c++) {
		if (strchr(e.o, *c))
			continue;
		if (!strchr(e.b, *c))
			return 0; /* summed over one operand alone */
		con[nk++] = *c;
	}
	for (const char *c = e.b; *c; c++)
		if (!strchr(e.o, *c) && !strchr(e.a, *c))
			return 0;
	/* sizes of batch dims must agree (matmul would broadcast a 1) */
	for (int i = 0; i < nb; i++) {
		onnxc_dim *da = &ta.d[idx(e.a, bat[i])];
		onnxc_dim *db = &tb.d[idx(e.b, bat[i])];
		if (da->e != db->e || (!da->e && da->n != db->n))
			return 0;
	}
	/* a group other than one dim needs a view: static sizes only */
	int reshape = nr != 1 || nk != 1 || nc != 1;
	if (reshape && (!ty_static(&ta) || !ty_static(&tb) ||
	    !ty_static(&to)))
		return 0;
	char oa[3 * MAXR + 1], ob[3 * MAXR + 1], om[3 * MAXR + 1];
	snprintf(oa, sizeof oa, "%s%s%s", bat, rows, con);
	snprintf(ob, sizeof ob, "%s%s%s", bat, con, cols);
	snprintf(om, sizeof om, "%s%s%s", bat, rows, cols);
	Ty tma, tmb, tm;
	onnxc_value a = einsum_side(r, ia.ref, &ta, e.a, oa, nb, nr, &tma);
	onnxc_value b = einsum_side(r, ib.ref, &tb, e.b, ob, nb, nk, &tmb);
	tm = tma;
	tm.dtype = to.dtype;
	tm.d[nb + 1] = tmb.d[nb + 1];
	onnxc_value y = binary(r, "aten::matmul.default", a, b, &tm);
	/* back to [batch, rows..., cols...], then the output's order */
	Ty tg;
	tg.dtype = to.dtype;
	tg.rank = nb + nr + nc;
	for (int i = 0; i < tg.rank; i++)
		tg.d[i] = to.d[idx(e.o, om[i])];
	int same = tg.rank == tm.rank;
	for (int i = 0; same && i < tg.rank; i++)
		same = tg.d[i].n == tm.d[i].n && tg.d[i].e == tm.d[i].e;
	if (!same)
		y = view(r, y, &tg);
	int64_t perm[MAXR];
	for (int i = 0; i < to.rank; i++)
		perm[i] = idx(om, e.o[i]);
	Ty tp;
	y = permute(r, y, &tg, perm, &tp);
	bind(r, 0, y);
	return 1;
}

/* outer(a, b) / ger(a, b) -> unsqueeze(a, 1) * b */
static int
outer(Rw *r)
{
	onnxc_value a = arg_val(r, 0, "self"), b = arg_val(r, 1, "vec2");
	Ty ta, to, tu;
	if (ty_of(r, a, &ta) || out_ty(r, 0, &to) || ta.rank != 1)
		return 0;
	tu = ta;
	tu.rank = 2;
	tu.d[1] = (onnxc_dim){1, 0};
	onnxc_value u = EMIT(r, "aten::unsqueeze.default", &tu, a_val(a),
	    a_int(1));
	bind(r, 0, binary(r, "aten::mul.Tensor", u, b, &to));
	return 1;
}

/* ------------------------------------------------------ normalization */

/* batch_norm(input, weight, bias, running_mean, running_var, training,
 * momentum, eps, cudnn_enabled), in eval mode ->
 * _native_batch_norm_legit_no_training(input, weight, bias, running_mean,
 * running_var, momentum, eps)[0] */
static int
batch_norm(Rw *r)
{
	int64_t training;
	Ty to;
	if (!arg_int(r, 5, "training", 0, &training) || training ||
	    !arg_val(r, 3, "running_mean") || !arg_val(r, 4, "running_var") ||
	    out_ty(r, 0, &to))
		return 0;
	onnxc_arg args[] = {
		arg_copy(r, 0, "input"), arg_copy(r, 1, "weight"),
		arg_copy(r, 2, "bias"), arg_copy(r, 3, "running_mean"),
		arg_copy(r, 4, "running_var"), arg_copy(r, 6, "momentum"),
		arg_copy(r, 7, "eps")};
	onnxc_node n = emit_n(r, "aten::_native_batch_norm_legit_no_training"
	    ".default", &to, 3, 7, args);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK)
		return r->bad = 1, 1;
	bind(r, 0, ni.out);
	return 1;
}

/* layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable) ->
 * native_layer_norm(input, normalized_shape, weight, bias, eps)[0] */
static int
layer_norm(Rw *r)
{
	Ty to;
	double eps;
	if (out_ty(r, 0, &to) || !arg_float(r, 4, "eps", 1e-5, &eps))
		return 0;
	onnxc_arg args[] = {
		arg_copy(r, 0, "input"), arg_copy(r, 1, "normalized_shape"),
		arg_copy(r, 2, "weight"), arg_copy(r, 3, "bias"),
		a_float(eps)};
	onnxc_node n = emit_n(r, "aten::native_layer_norm.default", &to, 3, 5,
	    args);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK)
		return r->bad = 1, 1;
	bind(r, 0, ni.out);
	return 1;
}

/* group_norm(input, num_groups, weight, bias, eps, cudnn_enabled) ->
 * native_group_norm(input, weight, bias, N, C, HxW, group, eps)[0], for
 * static sizes */
static int
group_norm(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "input");
	int64_t groups, nn, c, hw = 1, d;
	double eps;
	Ty tx, to;
	if (ty_of(r, x, &tx) || out_ty(r, 0, &to) || tx.rank < 2 ||
	    !ty_static(&tx) || !arg_int(r, 1, "num_groups", 1, &groups) ||
	    !arg_float(r, 4, "eps", 1e-5, &eps))
		return 0;
	dim_static(&tx.d[0], &nn);
	dim_static(&tx.d[1], &c);
	for (int i = 2; i < tx.rank; i++)
		hw *= dim_static(&tx.d[i], &d) ? d : 0;
	onnxc_arg args[] = {
		a_val(x), arg_copy(r, 2, "weight"), arg_copy(r, 3, "bias"),
		a_int(nn), a_int(c), a_int(hw), a_int(groups), a_float(eps)};
	onnxc_node n = emit_n(r, "aten::native_group_norm.default", &to, 3, 8,
	    args);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK)
		return r->bad = 1, 1;
	bind(r, 0, ni.out);
	return 1;
}

/* Machine epsilon of a float type: rms_norm's default eps. */
static double
finfo_eps(uint32_t dt)
{
	switch (dt) {
	case ONNXC_DT_F64: return 2.220446049250313e-16;
	case ONNXC_DT_F16: return 0.0009765625;
	case ONNXC_DT_BF16: return 0.0078125;
	default: return 1.1920928955078125e-07;
	}
}

/* rms_norm(input, normalized_shape, weight=None, eps=None) ->
 * x * rsqrt(mean(x * x, trailing dims, keepdim) + eps) [* weight] */
static int
rms_norm(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "input"), w = arg_val(r, 2, "weight");
	int64_t ns[MAXR], dims[MAXR];
	Ty tx, to;
	if (ty_of(r, x, &tx) || out_ty(r, 0, &to))
		return 0;
	int k = arg_ints(r, 1, "normalized_shape", ns, MAXR);
	onnxc_arg na;
	if (k == -2 && arg(r, 1, "normalized_shape", &na) &&
	    (na.kind == ONNXC_ARG_LIST || na.kind == ONNXC_ARG_TUPLE))
		k = (int)na.len; /* symbolic sizes: only the count matters */
	double eps;
	if (k < 1 || k > tx.rank ||
	    !arg_float(r, 3, "eps", finfo_eps(tx.dtype), &eps))
		return 0;
	Ty tm = tx;
	for (int i = 0; i < k; i++) {
		dims[i] = i - k;
		tm.d[tx.rank - k + i] = (onnxc_dim){1, 0};
	}
	onnxc_value sq = binary(r, "aten::mul.Tensor", x, x, &tx);
	onnxc_value ms = EMIT(r, "aten::mean.dim", &tm, a_val(sq),
	    a_ints(r, dims, k), a_bool(1));
	ms = with_scalar(r, "aten::add.Tensor", ms, eps, &tm);
	ms = unary(r, "aten::rsqrt.default", ms, &tm);
	onnxc_value y = binary(r, "aten::mul.Tensor", x, ms, w ? &tx : &to);
	if (w)
		y = binary(r, "aten::mul.Tensor", y, w, &to);
	bind(r, 0, y);
	return 1;
}

/* dropout(input, p, train) and its feature/alpha kinds, in eval mode ->
 * clone(input) */
static int
dropout(Rw *r)
{
	int64_t train;
	Ty to;
	if (!arg_int(r, 2, "train", 1, &train) || train || out_ty(r, 0, &to))
		return 0;
	bind(r, 0, unary(r, "aten::clone.default", arg_val(r, 0, "input"),
	    &to));
	return 1;
}

/* native_dropout(input, p, train) -> (out, mask), in eval mode with the
 * mask unused -> clone(input) */
static int
native_dropout(Rw *r)
{
	int64_t train;
	Ty to;
	if (!arg_int(r, 2, "train", 1, &train) || train || out_used(r, 1) ||
	    out_ty(r, 0, &to))
		return 0;
	bind(r, 0, unary(r, "aten::clone.default", arg_val(r, 0, "input"),
	    &to));
	return 1;
}

/* ---------------------------------------------------------- attention */

/* scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False) ->
 * softmax(q @ k^T * scale + mask) @ v, the math path.  A boolean mask
 * keeps where true (the others get -inf); is_causal keeps the lower
 * triangle of an [L, S] mask built with tril.  Only without dropout. */
static int
sdpa(Rw *r)
{
	onnxc_value q = arg_val(r, 0, "query"), k = arg_val(r, 1, "key");
	onnxc_value v = arg_val(r, 2, "value"), m = arg_val(r, 3, "attn_mask");
	double drop, scale;
	int64_t causal, gqa, e, l = 0, s = 0, hq = 0, hk = 0;
	Ty tq, tk, tv, tm, to;
	if (ty_of(r, q, &tq) || ty_of(r, k, &tk) || ty_of(r, v, &tv) ||
	    out_ty(r, 0, &to) || tq.rank < 2 || tk.rank != tq.rank ||
	    tv.rank != tq.rank || to.rank != tq.rank ||
	    (m && ty_of(r, m, &tm)))
		return 0;
	if (!arg_float(r, 4, "dropout_p", 0, &drop) || drop != 0 ||
	    !arg_int(r, 5, "is_causal", 0, &causal) ||
	    !arg_int(r, 7, "enable_gqa", 0, &gqa) ||
	    !dim_static(dim_at(&tq, -1), &e) || e <= 0 ||
	    !arg_float(r, 6, "scale", 1 / root((double)e), &scale))
		return 0;
	if (causal && (!dim_static(dim_at(&tq, -2), &l) ||
	    !dim_static(dim_at(&tk, -2), &s)))
		return 0;
	if (gqa && (tq.rank < 3 || !dim_static(dim_at(&tq, -3), &hq) ||
	    !dim_static(dim_at(&tk, -3), &hk) || hk <= 0 || hq % hk))
		return 0;
	if (gqa && hq != hk) {
		/* each key/value head serves hq/hk query heads in a row */
		Ty t = tk;
		*dim_at(&t, -3) = (onnxc_dim){hq, 0};
		k = EMIT(r, "aten::repeat_interleave.self_int", &t, a_val(k),
		    a_int(hq / hk), a_int(-3));
		tk = t;
		t = tv;
		*dim_at(&t, -3) = (onnxc_dim){hq, 0};
		v = EMIT(r, "aten::repeat_interleave.self_int", &t, a_val(v),
		    a_int(hq / hk), a_int(-3));
	}
	Ty tkt = tk;
	*dim_at(&tkt, -1) = *dim_at(&tk, -2);
	*dim_at(&tkt, -2) = *dim_at(&tk, -1);
	onnxc_value kt = EMIT(r, "aten::transpose.int", &tkt, a_val(k),
	    a_int(-2), a_int(-1));
	Ty ts = to; /* scores: the output's batch dims, [L, S] */
	ts.dtype = tq.dtype;
	*dim_at(&ts, -1) = *dim_at(&tk, -2);
	onnxc_value a = binary(r, "aten::matmul.default", q, kt, &ts);
	a = with_scalar(r, "aten::mul.Tensor", a, scale, &ts);
	if (causal) {
		Ty tc = {ONNXC_DT_BOOL, 2, {{l, 0}, {s, 0}}};
		onnxc_value ones = EMIT(r, "aten::ones.default", &tc,
		    a_ints(r, (int64_t[]){l, s}, 2),
		    a_keyed(r, (onnxc_arg){ONNXC_ARG_DTYPE, 0, ONNXC_DT_BOOL,
		    0, 0, 0, 0}, "dtype"));
		onnxc_value tri = unary(r, "aten::tril.default", ones, &tc);
		onnxc_value drop_ = unary(r, "aten::logical_not.default", tri,
		    &tc);
		ts = ty_bcast(&ts, &tc, ts.dtype);
		a = EMIT(r, "aten::masked_fill.Scalar", &ts, a_val(a),
		    a_val(drop_), a_float(-INFINITY));
	}
	if (m && tm.dtype == ONNXC_DT_BOOL) {
		onnxc_value drop_ = unary(r, "aten::logical_not.default", m,
		    &tm);
		ts = ty_bcast(&ts, &tm, ts.dtype);
		a = EMIT(r, "aten::masked_fill.Scalar", &ts, a_val(a),
		    a_val(drop_), a_float(-INFINITY));
	} else if (m) {
		ts = ty_bcast(&ts, &tm, ts.dtype);
		a = binary(r, "aten::add.Tensor", a, m, &ts);
	}
	a = EMIT(r, "aten::_softmax.default", &ts, a_val(a), a_int(-1),
	    a_bool(0));
	bind(r, 0, binary(r, "aten::matmul.default", a, v, &to));
	return 1;
}

/* ----------------------------------------------------- element-wise */

/* hardshrink(x, lambd=0.5) -> where(|x| <= lambd, 0, x) (NaN stays) */
static int
hardshrink(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "self");
	double l;
	Ty tx;
	if (ty_of(r, x, &tx) || !arg_float(r, 1, "lambd", 0.5, &l))
		return 0;
	Ty tb = ty_dtype(tx, ONNXC_DT_BOOL);
	onnxc_value ax = unary(r, "aten::abs.default", x, &tx);
	onnxc_value in = with_scalar(r, "aten::le.Scalar", ax, l, &tb);
	bind(r, 0, EMIT(r, "aten::where.ScalarSelf", &tx, a_val(in),
	    a_float(0), a_val(x)));
	return 1;
}

/* softshrink(x, lambd=0.5) -> x - clamp(x, -lambd, lambd) */
static int
softshrink(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "self");
	double l;
	Ty tx;
	if (ty_of(r, x, &tx) || !arg_float(r, 1, "lambd", 0.5, &l))
		return 0;
	onnxc_value c = EMIT(r, "aten::clamp.default", &tx, a_val(x),
	    a_float(-l), a_float(l));
	bind(r, 0, binary(r, "aten::sub.Tensor", x, c, &tx));
	return 1;
}

/* logaddexp(a, b) -> max(a, b) + log1p(exp(-|a - b|)), and a + log 2
 * where a == b (equal infinities would give NaN).  logaddexp2 in base 2. */
static int
logaddexp_base(Rw *r, int base2)
{
	onnxc_value a = arg_val(r, 0, "self"), b = arg_val(r, 1, "other");
	Ty ta, tb, to;
	if (ty_of(r, a, &ta) || ty_of(r, b, &tb) || out_ty(r, 0, &to))
		return 0;
	Ty tab = ty_bcast(&ta, &tb, to.dtype);
	Ty tbool = ty_dtype(tab, ONNXC_DT_BOOL);
	onnxc_value mx = binary(r, "aten::maximum.default", a, b, &tab);
	onnxc_value d = binary(r, "aten::sub.Tensor", a, b, &tab);
	d = unary(r, "aten::abs.default", d, &tab);
	d = unary(r, "aten::neg.default", d, &tab);
	d = unary(r, base2 ? "aten::exp2.default" : "aten::exp.default", d,
	    &tab);
	d = unary(r, "aten::log1p.default", d, &tab);
	if (base2)
		d = with_scalar(r, "aten::div.Tensor", d, LN2, &tab);
	onnxc_value y = binary(r, "aten::add.Tensor", mx, d, &tab);
	onnxc_value same = binary(r, "aten::eq.Tensor", a, b, &tbool);
	onnxc_value a2 = with_scalar(r, "aten::add.Tensor", a,
	    base2 ? 1.0 : LN2, &ta);
	bind(r, 0, EMIT(r, "aten::where.self", &to, a_val(same), a_val(a2),
	    a_val(y)));
	return 1;
}

static int logaddexp(Rw *r) { return logaddexp_base(r, 0); }
static int logaddexp2(Rw *r) { return logaddexp_base(r, 1); }

/* xlogy(x, y) -> x * log(y), 0 where x == 0, NaN where y is NaN */
static int
xlogy(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "self"), y = arg_val(r, 1, "other");
	Ty tx, ty, to;
	if (ty_of(r, x, &tx) || ty_of(r, y, &ty) || out_ty(r, 0, &to))
		return 0;
	Ty tl = ty_dtype(ty, to.dtype), tp = ty_bcast(&tx, &ty, to.dtype);
	onnxc_value l = unary(r, "aten::log.default", y, &tl);
	onnxc_value p = binary(r, "aten::mul.Tensor", x, l, &tp);
	Ty tz = ty_dtype(tx, ONNXC_DT_BOOL);
	onnxc_value z = with_scalar(r, "aten::eq.Scalar", x, 0, &tz);
	p = EMIT(r, "aten::where.ScalarSelf", &tp, a_val(z), a_float(0),
	    a_val(p));
	Ty tn = ty_dtype(ty, ONNXC_DT_BOOL);
	onnxc_value nan = unary(r, "aten::isnan.default", y, &tn);
	bind(r, 0, EMIT(r, "aten::where.ScalarSelf", &to, a_val(nan),
	    a_float(NAN), a_val(p)));
	return 1;
}

/* glu(x, dim=-1) -> first half * sigmoid(second half) */
static int
glu(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "self");
	int64_t dim, n;
	Ty tx;
	if (ty_of(r, x, &tx) || !arg_int(r, 1, "dim", -1, &dim) ||
	    dim < -tx.rank || dim >= tx.rank ||
	    !dim_static(dim_at(&tx, (int)dim), &n) || n % 2)
		return 0;
	Ty th = tx;
	*dim_at(&th, (int)dim) = (onnxc_dim){n / 2, 0};
	onnxc_value a = EMIT(r, "aten::slice.Tensor", &th, a_val(x),
	    a_int(dim), a_int(0), a_int(n / 2));
	onnxc_value b = EMIT(r, "aten::slice.Tensor", &th, a_val(x),
	    a_int(dim), a_int(n / 2), a_int(n));
	b = unary(r, "aten::sigmoid.default", b, &th);
	bind(r, 0, binary(r, "aten::mul.Tensor", a, b, &th));
	return 1;
}

/* hypot(a, b) -> sqrt(a * a + b * b) */
static int
hypot_(Rw *r)
{
	onnxc_value a = arg_val(r, 0, "self"), b = arg_val(r, 1, "other");
	Ty ta, tb, to;
	if (ty_of(r, a, &ta) || ty_of(r, b, &tb) || out_ty(r, 0, &to))
		return 0;
	onnxc_value a2 = binary(r, "aten::mul.Tensor", a, a, &ta);
	onnxc_value b2 = binary(r, "aten::mul.Tensor", b, b, &tb);
	onnxc_value s = binary(r, "aten::add.Tensor", a2, b2, &to);
	bind(r, 0, unary(r, "aten::sqrt.default", s, &to));
	return 1;
}

/* logit(x, eps=None) -> log(x / (1 - x)), x clamped to [eps, 1 - eps] */
static int
logit(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "self");
	onnxc_arg ea;
	Ty to;
	if (out_ty(r, 0, &to))
		return 0;
	if (arg(r, 1, "eps", &ea)) {
		double eps;
		if (!arg_float(r, 1, "eps", 0, &eps))
			return 0;
		x = EMIT(r, "aten::clamp.default", &to, a_val(x),
		    a_float(eps), a_float(1 - eps));
	}
	onnxc_value one_minus = with_scalar(r, "aten::rsub.Scalar", x, 1, &to);
	onnxc_value q = binary(r, "aten::div.Tensor", x, one_minus, &to);
	bind(r, 0, unary(r, "aten::log.default", q, &to));
	return 1;
}

/* _prelu_kernel(x, weight) -> where(x > 0, x, weight * x) */
static int
prelu_kernel(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "self"), w = arg_val(r, 1, "weight");
	Ty tx, to;
	if (ty_of(r, x, &tx) || !w || out_ty(r, 0, &to))
		return 0;
	Ty tb = ty_dtype(tx, ONNXC_DT_BOOL);
	onnxc_value pos = with_scalar(r, "aten::gt.Scalar", x, 0, &tb);
	onnxc_value wx = binary(r, "aten::mul.Tensor", w, x, &to);
	bind(r, 0, EMIT(r, "aten::where.self", &to, a_val(pos), a_val(x),
	    a_val(wx)));
	return 1;
}

/* prelu(x, weight) -> the kernel with weight [C] viewed as [C, 1, ...]
 * to align with dim 1 of x */
static int
prelu(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "self"), w = arg_val(r, 1, "weight");
	Ty tx, tw, to;
	int64_t c;
	if (ty_of(r, x, &tx) || ty_of(r, w, &tw) || out_ty(r, 0, &to) ||
	    tw.rank != 1 || !dim_static(&tw.d[0], &c))
		return 0;
	if (c != 1 && tx.rank >= 2) {
		Ty tv = tw;
		tv.rank = tx.rank - 1;
		for (int i = 1; i < tv.rank; i++)
			tv.d[i] = (onnxc_dim){1, 0};
		w = view(r, w, &tv);
	}
	Ty tb = ty_dtype(tx, ONNXC_DT_BOOL);
	onnxc_value pos = with_scalar(r, "aten::gt.Scalar", x, 0, &tb);
	onnxc_value wx = binary(r, "aten::mul.Tensor", w, x, &to);
	bind(r, 0, EMIT(r, "aten::where.self", &to, a_val(pos), a_val(x),
	    a_val(wx)));
	return 1;
}

/* square(x) -> x * x */
static int
square(Rw *r)
{
	onnxc_value x = arg_val(r, 0, "self");
	Ty to;
	if (!x || out_ty(r, 0, &to))
		return 0;
	bind(r, 0, binary(r, "aten::mul.Tensor", x, x, &to));
	return 1;
}

/* deg2rad / rad2deg of a float tensor -> x * factor */
static int
scale_by(Rw *r, double f)
{
	onnxc_value x = arg_val(r, 0, "self");
	Ty tx, to;
	if (ty_of(r, x, &tx) || out_ty(r, 0, &to) || tx.dtype != to.dtype)
		return 0;
	bind(r, 0, with_scalar(r, "aten::mul.Tensor", x, f, &to));
	return 1;
}

static int deg2rad(Rw *r) { return scale_by(r, PI / 180); }
static int rad2deg(Rw *r) { return scale_by(r, 180 / PI); }

/* ------------------------------------------------------------ the pass */

static const struct Dec {
	const char *op;
	DecFn fn;
} decs[] = {
	{"aten::linear.default", linear},
	{"aten::conv1d.default", conv1d},
	{"aten::conv2d.default", conv2d},
	{"aten::conv3d.default", conv3d},
	{"aten::conv1d.padding", conv1d},
	{"aten::conv2d.padding", conv2d},
	{"aten::conv3d.padding", conv3d},
	{"aten::conv_transpose1d.default", conv_transpose1d},
	{"aten::conv_transpose2d.input", conv_transpose2d},
	{"aten::conv_transpose3d.input", conv_transpose3d},
	{"aten::einsum.default", einsum},
	{"aten::outer.default", outer},
	{"aten::ger.default", outer},
	{"aten::batch_norm.default", batch_norm},
	{"aten::layer_norm.default", layer_norm},
	{"aten::group_norm.default", group_norm},
	{"aten::rms_norm.default", rms_norm},
	{"aten::dropout.default", dropout},
	{"aten::feature_dropout.default", dropout},
	{"aten::alpha_dropout.default", dropout},
	{"aten::feature_alpha_dropout.default", dropout},
	{"aten::native_dropout.default", native_dropout},
	{"aten::scaled_dot_product_attention.default", sdpa},
	{"aten::hardshrink.default", hardshrink},
	{"aten::softshrink.default", softshrink},
	{"aten::logaddexp.default", logaddexp},
	{"aten::logaddexp2.default", logaddexp2},
	{"aten::xlogy.Tensor", xlogy},
	{"aten::glu.default", glu},
	{"aten::hypot.default", hypot_},
	{"aten::logit.default", logit},
	{"aten::_prelu_kernel.default", prelu_kernel},
	{"aten::prelu.default", prelu},
	{"aten::square.default", square},
	{"aten::deg2rad.default", deg2rad},
	{"aten::rad2deg.default", rad2deg},
};

static const struct Dec *
find_dec(const char *op)
{
	for (size_t i = 0; i < sizeof decs / sizeof *decs; i++)
		if (!strcmp(decs[i].op, op))
			return &decs[i];
	return NULL;
}

/* Whether keep-list entry e[0..n) names op: exactly, or without the
 * overload ("aten::linear" keeps every overload of linear). */
static int
entry_names(const char *e, size_t n, const char *op)
{
	const char *dot = strrchr(op, '.');
	size_t base = dot ? (size_t)(dot - op) : strlen(op);
	return (n == strlen(op) || n == base) && !strncmp(e, op, n);
}

/* The next entry of a comma-separated list at *s (spaces trimmed): its
 * length, 0 at the end; *s moves past it. */
static size_t
next_entry(const char **s, const char **e)
{
	while (**s == ' ' || **s == ',')
		(*s)++;
	size_t n = strcspn(*s, ","), m = n;
	while (m && (*s)[m - 1] == ' ')
		m--;
	*e = *s;
	*s += n;
	return m;
}

static int
kept(const char *keep, const char *op)
{
	const char *e;
	size_t n;
	while ((n = next_entry(&keep, &e)))
		if (entry_names(e, n, op))
			return 1;
	return 0;
}

/* Warns about keep entries that name nothing this pass rewrites: a typo
 * would otherwise silently keep nothing. */
static void
check_keep(onnxc_ctx *ctx, const onnxc_host_api *h, const char *keep)
{
	const char *e;
	size_t n;
	while ((n = next_entry(&keep, &e))) {
		int any = 0;
		for (size_t i = 0; i < sizeof decs / sizeof *decs; i++)
			any |= entry_names(e, n, decs[i].op);
		if (!any)
			h->report(ctx, ONNXC_SEV_WARNING, 0, 0, "keep names "
			    "'%.*s', which is not an op this pass decomposes",
			    (int)n, e);
	}
}

/* Decomposes the nodes of graph g, then of the graphs its nodes take as
 * arguments (cond branches, loop bodies).  Nodes made here are appended
 * past the end seen at the start and need no second look. */
static onnxc_status
run_graph(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g, int all,
    const char *keep, int depth)
{
	uint32_t end = h->node_end(ctx, g);
	for (onnxc_node n = 1; n < end; n++) {
		Rw r;
		memset(&r, 0, sizeof r);
		r.ctx = ctx, r.h = h, r.g = g, r.n = n;
		if (h->node_get(ctx, g, n, &r.ni) != ONNXC_OK ||
		    r.ni.dialect != ONNXC_FX)
			continue;
		for (uint32_t i = 0; i < r.ni.nargs && depth < 16; i++) {
			onnxc_arg a;
			if (h->node_arg(ctx, g, n, i, &a) == ONNXC_OK &&
			    a.kind == ONNXC_ARG_GRAPH && a.ref != g &&
			    run_graph(ctx, h, a.ref, all, keep, depth + 1) !=
			    ONNXC_OK)
				return ONNXC_ERROR;
		}
		const char *op = h->str(ctx, r.ni.op);
		const struct Dec *d = find_dec(op);
		if (!d || kept(keep, op) || (!all && h->has_lowering(ctx, op)))
			continue;
		snprintf(r.base, sizeof r.base, "%s",
		    r.ni.name ? h->str(ctx, r.ni.name) : "decomposed");
		if (!d->fn(&r))
			continue;
		if (r.bad || h->node_erase(ctx, g, n) != ONNXC_OK) {
			h->report(ctx, ONNXC_SEV_ERROR, g, n,
			    "the host refused to rewrite %s", op);
			return ONNXC_ERROR;
		}
	}
	return ONNXC_OK;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	int all = 0;
	const char *keep = "";
	if (h->opt_bool(ctx, "all", &all) != ONNXC_OK ||
	    h->opt_string(ctx, "keep", &keep) != ONNXC_OK)
		return ONNXC_ERROR;
	check_keep(ctx, h, keep);
	return run_graph(ctx, h, h->graph(ctx), all, keep, 0);
}

static const onnxc_option options[] = {
	{"all", ONNXC_OPT_BOOL, "false",
	    "decompose ops that have a lowering too"},
	{"keep", ONNXC_OPT_STRING, "",
	    "comma-separated ops never decomposed "
	    "(aten::scaled_dot_product_attention.default)"},
};

static const onnxc_pass_info pass = {
	sizeof(onnxc_pass_info), "decompose",
	"rewrite high-level ATen ops into ops the lowering handles",
	options, sizeof options / sizeof *options, run, NULL,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN("decompose", "1.0", init, NULL);
