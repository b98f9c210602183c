/* onnxc/rewrite.h - pattern rewriting on ONNX graphs, for pass plugins.
 *
 * Header-only, built on the host table of <onnxc/plugin.h> (ABI 1.1): a
 * plugin includes it and links nothing more.  A rewrite pass gives
 * onnxc_rw_run a visitor; the visitor looks at one node (the root of a
 * pattern), walks to its producers with onnxc_rw_def, checks types, shapes
 * and constants, and replaces the root's outputs with onnxc_rw_replace
 * (values it already has or nodes it makes with onnxc_rw_emit):
 *
 *	static int
 *	visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
 *	{
 *		onnxc_value x = onnxc_rw_in(r, n, 0);
 *		if (!onnxc_rw_is(r, ni, "Identity"))
 *			return 0;
 *		return onnxc_rw_replace(r, ni->out, x);
 *	}
 *
 * Rounds of one forward sweep run until a round changes nothing (at most
 * maxrounds): each round is linear in the graph.  Replacements go through
 * a table that each node reads when the sweep reaches it, because users
 * follow their producers; nodes made during a round are read at its end.
 * What the rewrites leave unused is left to "dce"; a node none of whose
 * results is used is not visited.
 * The rules every rewrite gets for free:
 * - a graph output is never replaced (its name is the model's interface);
 * - under --training no node computed from a parameter or buffer is
 *   visited, and onnxc_rw_const sees no parameter or buffer: training
 *   changes them, and their names and bytes must stay as they are.
 */
#ifndef ONNXC_REWRITE_H
#define ONNXC_REWRITE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>

enum { ONNXC_RW_MAXRANK = 16 };

typedef struct onnxc_rw {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	const char *who;      /* the pass, for messages */
	int training;
	uint32_t nvals;       /* values when the round began */
	uint32_t *uses;       /* per value: args and graph outputs */
	onnxc_value *repl;    /* per value: what replaces it, or 0 */
	uint8_t *isout;       /* per value: a graph output */
	uint8_t *frozen;      /* per value: computed from a parameter */
	uint32_t changed;     /* replacements this round */
	int failed;           /* a host call failed */
	void *user;           /* the pass's own, for its visitor: the run's
	                       * options (onnxc_rw_run_with) */
} onnxc_rw;

typedef int (*onnxc_rw_visit)(onnxc_rw *r, onnxc_node n,
    const onnxc_node_info *ni);

/* ------------------------------------------------------------ reading */

static inline int
onnxc_rw_is(onnxc_rw *r, const onnxc_node_info *ni, const char *op)
{
	const char *s = r->h->str(r->ctx, ni->op);
	const char *d = r->h->str(r->ctx, ni->domain);
	return ni->dialect == ONNXC_ONNX && s && strcmp(s, op) == 0 &&
	    (!d || !*d || strcmp(d, "ai.onnx") == 0);
}

static inline onnxc_value
onnxc_rw_canon(const onnxc_rw *r, onnxc_value v)
{
	/* chains are short: a replacement may itself be replaced later */
	for (int i = 0; i < 64 && v < r->nvals && r->repl[v]; i++)
		v = r->repl[v];
	return v;
}

/* Positional input i of node n (replacements applied), or 0. */
static inline onnxc_value
onnxc_rw_in(onnxc_rw *r, onnxc_node n, uint32_t i)
{
	onnxc_node_info ni;
	onnxc_arg a;
	if (r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK ||
	    i >= ni.npos || r->h->node_arg(r->ctx, r->g, n, i, &a) !=
	    ONNXC_OK || a.kind != ONNXC_ARG_VALUE)
		return 0;
	return onnxc_rw_canon(r, a.ref);
}

/* The node defining v when it is the default-domain ONNX op `op` (any op
 * when op is NULL), with its info in *ni; else 0. */
static inline onnxc_node
onnxc_rw_def(onnxc_rw *r, onnxc_value v, const char *op,
    onnxc_node_info *ni)
{
	onnxc_value_info vi;
	if (!v || r->h->value_get(r->ctx, r->g, v, &vi) != ONNXC_OK ||
	    !vi.def || r->h->node_get(r->ctx, r->g, vi.def, ni) != ONNXC_OK)
		return 0;
	if (op ? !onnxc_rw_is(r, ni, op) : ni->dialect != ONNXC_ONNX)
		return 0;
	return vi.def;
}

/* Is v used once, by a node, and not a graph output? */
static inline int
onnxc_rw_single(const onnxc_rw *r, onnxc_value v)
{
	return v < r->nvals && r->uses[v] == 1 && !r->isout[v];
}

/* Attribute `name` of node n; 0 when absent. */
static inline int
onnxc_rw_attr(onnxc_rw *r, onnxc_node n, const char *name, onnxc_arg *a)
{
	onnxc_node_info ni;
	onnxc_str key = r->h->intern(r->ctx, name);
	if (r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK)
		return 0;
	for (uint32_t i = ni.npos; i < ni.nargs; i++)
		if (r->h->node_arg(r->ctx, r->g, n, i, a) == ONNXC_OK &&
		    a->key == key)
			return 1;
	return 0;
}

static inline int64_t
onnxc_rw_attr_i(onnxc_rw *r, onnxc_node n, const char *name, int64_t dflt)
{
	onnxc_arg a;
	return onnxc_rw_attr(r, n, name, &a) && (a.kind == ONNXC_ARG_INT ||
	    a.kind == ONNXC_ARG_BOOL) ? a.i : dflt;
}

static inline double
onnxc_rw_attr_f(onnxc_rw *r, onnxc_node n, const char *name, double dflt)
{
	onnxc_arg a;
	return onnxc_rw_attr(r, n, name, &a) && a.kind == ONNXC_ARG_FLOAT ?
	    a.f : dflt;
}

/* An int-list attribute into out; its length, -1 when absent or longer
 * than cap. */
static inline int
onnxc_rw_attr_ints(onnxc_rw *r, onnxc_node n, const char *name,
    int64_t *out, int cap)
{
	onnxc_arg a, it;
	if (!onnxc_rw_attr(r, n, name, &a) || a.kind != ONNXC_ARG_LIST ||
	    a.len > (uint32_t)cap)
		return -1;
	for (uint32_t i = 0; i < a.len; i++) {
		if (r->h->list_item(r->ctx, r->g, &a, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_INT)
			return -1;
		out[i] = it.i;
	}
	return (int)a.len;
}

/* v's tensor type: dtype, rank (-1 unknown) and dims (up to MAXRANK). */
static inline int
onnxc_rw_type(onnxc_rw *r, onnxc_value v, uint32_t *dtype, int32_t *rank,
    onnxc_dim *dims)
{
	onnxc_value_info vi;
	if (!v || r->h->value_get(r->ctx, r->g, v, &vi) != ONNXC_OK ||
	    vi.kind != ONNXC_VK_TENSOR || vi.rank > ONNXC_RW_MAXRANK)
		return 0;
	*dtype = vi.dtype;
	*rank = vi.rank;
	return vi.rank <= 0 || !dims || r->h->value_dims(r->ctx, r->g, v,
	    dims, ONNXC_RW_MAXRANK) == ONNXC_OK;
}

/* Do a and b have the same known dtype and shape (numbers or the same
 * symbolic sizes)? */
static inline int
onnxc_rw_same_type(onnxc_rw *r, onnxc_value a, onnxc_value b)
{
	uint32_t ta, tb;
	int32_t ra, rb;
	onnxc_dim da[ONNXC_RW_MAXRANK], db[ONNXC_RW_MAXRANK];
	if (!onnxc_rw_type(r, a, &ta, &ra, da) ||
	    !onnxc_rw_type(r, b, &tb, &rb, db) || !ta || ta != tb ||
	    ra < 0 || ra != rb)
		return 0;
	for (int32_t i = 0; i < ra; i++)
		if (da[i].e != db[i].e || (!da[i].e && da[i].n != db[i].n))
			return 0;
	return 1;
}

/* The constant behind v: an initializer (not a parameter or buffer under
 * --training) or an ONNX Constant's tensor. */
static inline int
onnxc_rw_const(onnxc_rw *r, onnxc_value v, onnxc_tensor_info *t)
{
	onnxc_value_info vi;
	onnxc_node_info ni;
	onnxc_arg a;
	if (!v || r->h->value_get(r->ctx, r->g, v, &vi) != ONNXC_OK)
		return 0;
	if (!vi.def) {
		if (!vi.init || vi.role == ONNXC_ROLE_USER_INPUT ||
		    (r->training && vi.role != ONNXC_ROLE_CONST))
			return 0;
		return r->h->tensor_get(r->ctx, vi.init, t) == ONNXC_OK &&
		    (t->data || !t->nbytes);
	}
	if (r->h->node_get(r->ctx, r->g, vi.def, &ni) != ONNXC_OK ||
	    !onnxc_rw_is(r, &ni, "Constant") ||
	    !onnxc_rw_attr(r, vi.def, "value", &a) ||
	    a.kind != ONNXC_ARG_TENSOR)
		return 0;
	return r->h->tensor_get(r->ctx, a.ref, t) == ONNXC_OK &&
	    (t->data || !t->nbytes);
}

static inline uint64_t
onnxc_rw_numel(const onnxc_tensor_info *t)
{
	uint64_t n = 1;
	for (int32_t i = 0; i < t->rank; i++)
		n *= t->dims[i] < 0 ? 0 : (uint64_t)t->dims[i];
	return n;
}

/* The elements of v when it is an f32 constant (t filled in), or NULL. */
static inline const float *
onnxc_rw_f32(onnxc_rw *r, onnxc_value v, onnxc_tensor_info *t)
{
	if (!onnxc_rw_const(r, v, t) || t->dtype != ONNXC_DT_F32)
		return NULL;
	return (const float *)t->data;
}

/* Element i of a numeric constant as a double (f32, f64, i32, i64). */
static inline int
onnxc_rw_elem(const onnxc_tensor_info *t, uint64_t i, double *out)
{
	const unsigned char *p = (const unsigned char *)t->data;
	float f;
	double d;
	int32_t i32;
	int64_t i64;
	if (i >= onnxc_rw_numel(t))
		return 0;
	switch (t->dtype) {
	case ONNXC_DT_F32: memcpy(&f, p + 4 * i, 4); *out = f; return 1;
	case ONNXC_DT_F64: memcpy(&d, p + 8 * i, 8); *out = d; return 1;
	case ONNXC_DT_I32: memcpy(&i32, p + 4 * i, 4); *out = i32; return 1;
	case ONNXC_DT_I64: memcpy(&i64, p + 8 * i, 8); *out = (double)i64;
		return 1;
	default: return 0;
	}
}

/* A constant with one element, as a double. */
static inline int
onnxc_rw_scalar(onnxc_rw *r, onnxc_value v, double *out)
{
	onnxc_tensor_info t;
	return onnxc_rw_const(r, v, &t) && onnxc_rw_numel(&t) == 1 &&
	    onnxc_rw_elem(&t, 0, out);
}

/* A 0-D or 1-D int64 constant into out; its length, or -1. */
static inline int
onnxc_rw_ints(onnxc_rw *r, onnxc_value v, int64_t *out, int cap)
{
	onnxc_tensor_info t;
	if (!onnxc_rw_const(r, v, &t) || t.dtype != ONNXC_DT_I64 ||
	    t.rank > 1 || onnxc_rw_numel(&t) > (uint64_t)cap)
		return -1;
	uint64_t n = onnxc_rw_numel(&t);
	if (n)
		memcpy(out, t.data, n * 8);
	return (int)n;
}

/* ------------------------------------------------------------ changing */

/* Every later use of `from` reads `to`.  0 (nothing changed) when from
 * is a graph output. */
static inline int
onnxc_rw_replace(onnxc_rw *r, onnxc_value from, onnxc_value to)
{
	to = onnxc_rw_canon(r, to);
	if (!from || !to || from >= r->nvals || r->isout[from] ||
	    !r->uses[from] || from == to)
		return 0;
	r->repl[from] = to;
	if (to < r->nvals)
		r->uses[to] += r->uses[from];
	r->uses[from] = 0;
	r->changed++;
	return 1;
}

/* A new node op(in[0..nin)) with nout outputs (a 0 input is a missing
 * optional one), standing for node `from` in diagnostics and names.
 * Attributes follow with onnxc_rw_set_*, before the next emit. */
static inline onnxc_node
onnxc_rw_emit(onnxc_rw *r, const char *op, uint32_t nin,
    const onnxc_value *in, uint32_t nout, onnxc_node from)
{
	onnxc_node n = r->h->node_new(r->ctx, r->g, ONNXC_ONNX, "", op, nout);
	onnxc_node_info fi;
	if (!n) {
		r->failed = 1;
		return 0;
	}
	for (uint32_t i = 0; i < nin; i++) {
		onnxc_arg a = {.kind = in[i] ? ONNXC_ARG_VALUE : ONNXC_ARG_NONE,
		    .ref = onnxc_rw_canon(r, in[i])};
		if (r->h->node_push_arg(r->ctx, r->g, n, &a) != ONNXC_OK)
			r->failed = 1;
	}
	if (from && r->h->node_get(r->ctx, r->g, from, &fi) == ONNXC_OK) {
		const char *name = r->h->str(r->ctx, fi.name);
		r->h->node_set_origin(r->ctx, r->g, n, from);
		if (name && *name)
			r->h->node_set_name(r->ctx, r->g, n, name);
	}
	return r->failed ? 0 : n;
}

static inline void
onnxc_rw_set_i(onnxc_rw *r, onnxc_node n, const char *name, int64_t v)
{
	onnxc_arg a = {.kind = ONNXC_ARG_INT, .i = v,
	    .key = r->h->intern(r->ctx, name)};
	if (!n || r->h->node_push_arg(r->ctx, r->g, n, &a) != ONNXC_OK)
		r->failed = 1;
}

static inline void
onnxc_rw_set_f(onnxc_rw *r, onnxc_node n, const char *name, double v)
{
	onnxc_arg a = {.kind = ONNXC_ARG_FLOAT, .f = v,
	    .key = r->h->intern(r->ctx, name)};
	if (!n || r->h->node_push_arg(r->ctx, r->g, n, &a) != ONNXC_OK)
		r->failed = 1;
}

static inline void
onnxc_rw_set_ints(onnxc_rw *r, onnxc_node n, const char *name,
    const int64_t *v, uint32_t len)
{
	onnxc_arg it[ONNXC_RW_MAXRANK], a;
	if (len > ONNXC_RW_MAXRANK) {
		r->failed = 1;
		return;
	}
	for (uint32_t i = 0; i < len; i++)
		it[i] = (onnxc_arg){.kind = ONNXC_ARG_INT, .i = v[i]};
	if (!n || r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, it, len, &a) !=
	    ONNXC_OK) {
		r->failed = 1;
		return;
	}
	a.key = r->h->intern(r->ctx, name);
	if (r->h->node_push_arg(r->ctx, r->g, n, &a) != ONNXC_OK)
		r->failed = 1;
}

/* Output k of node n, typed like `like` (0: left untyped). */
static inline onnxc_value
onnxc_rw_out(onnxc_rw *r, onnxc_node n, uint32_t k, onnxc_value like)
{
	onnxc_node_info ni;
	uint32_t dt;
	int32_t rank;
	onnxc_dim d[ONNXC_RW_MAXRANK];
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK ||
	    k >= ni.nout) {
		r->failed = 1;
		return 0;
	}
	if (like && onnxc_rw_type(r, like, &dt, &rank, d) &&
	    r->h->value_set_type(r->ctx, r->g, ni.out + k, dt, rank, d) !=
	    ONNXC_OK)
		r->failed = 1;
	return ni.out + k;
}

/* Node n's one result becomes op(in[0..nin)), a new node standing for n
 * (typed like that result), which it returns so that attributes can
 * follow; 0 when the host failed.  A graph output is not replaced (the
 * new node is left to "dce"). */
static inline onnxc_node
onnxc_rw_swap(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni,
    const char *op, uint32_t nin, const onnxc_value *in)
{
	onnxc_node m = onnxc_rw_emit(r, op, nin, in, 1, n);
	if (m)
		onnxc_rw_replace(r, ni->out, onnxc_rw_out(r, m, 0, ni->out));
	return m;
}

/* A new constant input (an initializer) holding a copy of data. */
static inline onnxc_value
onnxc_rw_initializer(onnxc_rw *r, const char *name, uint32_t dtype,
    int32_t rank, const int64_t *dims, const void *data)
{
	onnxc_tensor t = r->h->tensor_new(r->ctx, dtype, rank, dims, data);
	onnxc_value v = t ? r->h->constant_input(r->ctx, r->g, name, t) : 0;
	if (!v)
		r->failed = 1;
	return v;
}

/* f32 weights times a number per channel: element i of w times
 * s[(i / inner) % m], the product in double rounded once. */
typedef struct onnxc_rw_scaling {
	const float *w;
	const double *s;
	uint64_t m, inner;
} onnxc_rw_scaling;

static inline int
onnxc_rw_scale_fill(void *user, uint64_t first, uint64_t count, void *out)
{
	const onnxc_rw_scaling *sc = (const onnxc_rw_scaling *)user;
	const float *w = sc->w + first;
	float *o = (float *)out;
	uint64_t i = 0, n, t;
	if (sc->m == 1) {
		for (; i < count; i++)
			o[i] = (float)((double)w[i] * sc->s[0]);
		return 0;
	}
	if (sc->inner == 1) {
		/* a row of the m scales at a time */
		for (uint64_t k = first % sc->m; i < count; i += n, k = 0) {
			n = sc->m - k < count - i ? sc->m - k : count - i;
			for (t = 0; t < n; t++)
				o[i + t] = (float)((double)w[i + t] *
				    sc->s[k + t]);
		}
		return 0;
	}
	/* k: the scale's index, j: the place in its run of inner */
	uint64_t j = first % sc->inner, k = first / sc->inner % sc->m;
	for (; i < count; i += n) {
		double s = sc->s[k];
		n = sc->inner - j < count - i ? sc->inner - j : count - i;
		for (t = 0; t < n; t++)
			o[i + t] = (float)((double)w[i + t] * s);
		j += n;
		if (j == sc->inner) {
			j = 0;
			k = k + 1 == sc->m ? 0 : k + 1;
		}
	}
	return 0;
}

/* onnxc_rw_scaling in one block the host can copy (tensor_make_deferred):
 * the m scales follow this header. */
typedef struct onnxc_rw_scaling_block {
	const float *w;
	uint64_t m, inner;
} onnxc_rw_scaling_block;

static inline int
onnxc_rw_scale_fill_block(void *user, uint64_t first, uint64_t count,
    void *out)
{
	const onnxc_rw_scaling_block *b = (const onnxc_rw_scaling_block *)user;
	onnxc_rw_scaling sc = {b->w, (const double *)(const void *)(b + 1),
	    b->m, b->inner};
	return onnxc_rw_scale_fill(&sc, first, count, out);
}

/* A new initializer holding f32 weights w (shaped as t) scaled as
 * onnxc_rw_scaling says.  A host with tensor_make_deferred (ABI 1.7)
 * makes it only as it is written, straight into the output; one with
 * tensor_make (ABI 1.6) makes it now, a piece at a time into a scratch
 * file; either way a big weight is never held whole. */
static inline onnxc_value
onnxc_rw_scaled(onnxc_rw *r, const char *name, const onnxc_tensor_info *t,
    const onnxc_rw_scaling *sc)
{
	onnxc_tensor x = 0;
	if (ONNXC_HOST_HAS(r->h, tensor_make_deferred)) {
		uint64_t size = sizeof(onnxc_rw_scaling_block) +
		    sc->m * sizeof(double);
		onnxc_rw_scaling_block *b = (onnxc_rw_scaling_block *)
		    malloc((size_t)size);
		if (b) {
			b->w = sc->w;
			b->m = sc->m;
			b->inner = sc->inner;
			memcpy(b + 1, sc->s, (size_t)(sc->m * sizeof(double)));
			x = r->h->tensor_make_deferred(r->ctx, ONNXC_DT_F32,
			    t->rank, t->dims, onnxc_rw_scale_fill_block, b,
			    size);
		}
		free(b);
	} else if (ONNXC_HOST_HAS(r->h, tensor_make)) {
		x = r->h->tensor_make(r->ctx, ONNXC_DT_F32, t->rank, t->dims,
		    onnxc_rw_scale_fill, (void *)sc);
	} else {
		uint64_t n = onnxc_rw_numel(t);
		float *o = (float *)malloc((n ? n : 1) * sizeof *o);
		if (o) {
			onnxc_rw_scale_fill((void *)sc, 0, n, o);
			x = r->h->tensor_new(r->ctx, ONNXC_DT_F32, t->rank,
			    t->dims, o);
		}
		free(o);
	}
	onnxc_value v = x ? r->h->constant_input(r->ctx, r->g, name, x) : 0;
	if (!v)
		r->failed = 1;
	return v;
}

/* f32 matrices [K, cols] side by side (onnxc_rw_concat): one part. */
typedef struct onnxc_rw_concat_part {
	const float *data;
	uint64_t cols;
} onnxc_rw_concat_part;

/* onnxc_rw_concat's recipe in one block the host can copy: the n parts
 * follow this header. */
typedef struct onnxc_rw_concat_block {
	uint64_t n, total;    /* parts, and the columns of all together */
} onnxc_rw_concat_block;

/* Elements [first, first + count) of the matrix made of the block's
 * parts side by side, a run of one part's row at a time. */
static inline int
onnxc_rw_concat_fill(void *user, uint64_t first, uint64_t count, void *out)
{
	const onnxc_rw_concat_block *b = (const onnxc_rw_concat_block *)user;
	const onnxc_rw_concat_part *p =
	    (const onnxc_rw_concat_part *)(const void *)(b + 1);
	float *o = (float *)out;
	uint64_t row, col, k = 0, at = 0, i = 0;  /* part k starts at col at */
	if (!count)
		return 0;
	if (!b->total || !b->n)
		return -1;
	row = first / b->total;
	col = first % b->total;
	while (col >= at + p[k].cols)
		at += p[k++].cols;
	while (i < count) {
		uint64_t run = at + p[k].cols - col;
		if (run > count - i)
			run = count - i;
		memcpy(o + i, p[k].data + row * p[k].cols + (col - at),
		    (size_t)run * sizeof *o);
		i += run;
		col += run;
		while (k < b->n && col == at + p[k].cols)
			at += p[k++].cols;
		if (k == b->n) {
			k = 0;
			at = col = 0;
			row++;
		}
	}
	return 0;
}

/* A new f32 initializer [dims[0], dims[1]] holding the n parts side by
 * side (their columns together make a row; parts of one row each, whole
 * matrices, stack them), made as onnxc_rw_scaled makes its weights: as
 * it is written, or a piece at a time. */
static inline onnxc_value
onnxc_rw_concat(onnxc_rw *r, const char *name, const int64_t dims[2],
    const onnxc_rw_concat_part *parts, uint64_t n)
{
	onnxc_tensor x = 0;
	uint64_t size = sizeof(onnxc_rw_concat_block) + n * sizeof *parts;
	onnxc_rw_concat_block *b = (onnxc_rw_concat_block *)malloc(
	    (size_t)size);
	if (b) {
		b->n = n;
		b->total = 0;
		for (uint64_t i = 0; i < n; i++)
			b->total += parts[i].cols;
		memcpy(b + 1, parts, (size_t)(n * sizeof *parts));
	}
	if (b && ONNXC_HOST_HAS(r->h, tensor_make_deferred)) {
		x = r->h->tensor_make_deferred(r->ctx, ONNXC_DT_F32, 2, dims,
		    onnxc_rw_concat_fill, b, size);
	} else if (b && ONNXC_HOST_HAS(r->h, tensor_make)) {
		x = r->h->tensor_make(r->ctx, ONNXC_DT_F32, 2, dims,
		    onnxc_rw_concat_fill, b);
	} else if (b) {
		uint64_t k = (uint64_t)dims[0] * (uint64_t)dims[1];
		float *o = (float *)malloc((k ? k : 1) * sizeof *o);
		if (o && onnxc_rw_concat_fill(b, 0, k, o) == 0)
			x = r->h->tensor_new(r->ctx, ONNXC_DT_F32, 2, dims, o);
		free(o);
	}
	free(b);
	onnxc_value v = x ? r->h->constant_input(r->ctx, r->g, name, x) : 0;
	if (!v)
		r->failed = 1;
	return v;
}

/* --------------------------------------------------------------- rounds */

static inline void
onnxc_rw_free(onnxc_rw *r)
{
	free(r->uses);
	free(r->repl);
	free(r->isout);
	free(r->frozen);
	r->uses = NULL;
	r->repl = NULL;
	r->isout = NULL;
	r->frozen = NULL;
}

/* Use counts, graph outputs and (under --training) what parameters and
 * buffers reach, for a round. */
static inline int
onnxc_rw_begin(onnxc_rw *r)
{
	const onnxc_host_api *h = r->h;
	uint32_t end = h->node_end(r->ctx, r->g);
	size_t nv;
	r->nvals = h->value_end(r->ctx, r->g);
	nv = (size_t)r->nvals + 1;
	r->uses = (uint32_t *)calloc(nv, sizeof *r->uses);
	r->repl = (onnxc_value *)calloc(nv, sizeof *r->repl);
	r->isout = (uint8_t *)calloc(nv, 1);
	r->frozen = (uint8_t *)calloc(nv, 1);
	r->changed = 0;
	if (!r->uses || !r->repl || !r->isout || !r->frozen)
		return 0;
	for (uint32_t i = 0, n = h->input_count(r->ctx, r->g); i < n; i++) {
		onnxc_value v = h->input_at(r->ctx, r->g, i);
		onnxc_value_info vi;
		if (r->training && v < r->nvals && h->value_get(r->ctx, r->g,
		    v, &vi) == ONNXC_OK && (vi.role == ONNXC_ROLE_PARAM ||
		    vi.role == ONNXC_ROLE_BUFFER))
			r->frozen[v] = 1;
	}
	for (onnxc_node n = 1; n < end; n++) {
		onnxc_node_info ni;
		int fz = 0;
		if (h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK)
			continue;
		for (uint32_t i = 0; i < ni.nargs; i++) {
			onnxc_arg a;
			if (h->node_arg(r->ctx, r->g, n, i, &a) != ONNXC_OK ||
			    a.kind != ONNXC_ARG_VALUE || a.ref >= r->nvals)
				continue;
			r->uses[a.ref]++;
			fz |= r->frozen[a.ref];
		}
		for (uint32_t k = 0; fz && k < ni.nout; k++)
			if (ni.out + k < r->nvals)
				r->frozen[ni.out + k] = 1;
	}
	for (uint32_t i = 0, n = h->output_count(r->ctx, r->g); i < n; i++) {
		onnxc_value v = h->output_at(r->ctx, r->g, i);
		if (v < r->nvals) {
			r->uses[v]++;
			r->isout[v] = 1;
		}
	}
	return 1;
}

/* Points node n's value inputs at their replacements. */
static inline int
onnxc_rw_point(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a;
		if (r->h->node_arg(r->ctx, r->g, n, i, &a) != ONNXC_OK)
			return 0;
		if (a.kind != ONNXC_ARG_VALUE ||
		    onnxc_rw_canon(r, a.ref) == a.ref)
			continue;
		a.ref = onnxc_rw_canon(r, a.ref);
		if (r->h->node_set_arg(r->ctx, r->g, n, i, &a) != ONNXC_OK)
			return 0;
	}
	return 1;
}

/* Runs visit on every node of the current graph, round after round until
 * nothing changes or maxrounds have run, with r->user = user (what the
 * visitor needs of this run: a pass keeps no state between runs).
 * ONNXC_ERROR (reported) when the host refuses a change. */
static inline onnxc_status
onnxc_rw_run_with(onnxc_ctx *ctx, const onnxc_host_api *host,
    const char *who, onnxc_rw_visit visit, int maxrounds, void *user)
{
	onnxc_rw r;
	memset(&r, 0, sizeof r);
	r.ctx = ctx;
	r.h = host;
	r.g = host->graph(ctx);
	r.who = who;
	r.training = host->training(ctx);
	r.user = user;
	for (int round = 0; round < maxrounds; round++) {
		if (!onnxc_rw_begin(&r)) {
			onnxc_rw_free(&r);
			host->report(ctx, ONNXC_SEV_ERROR, r.g, 0,
			    "%s: out of memory", who);
			return ONNXC_ERROR;
		}
		uint32_t end = host->node_end(ctx, r.g);
		for (onnxc_node n = 1; n < end && !r.failed; n++) {
			onnxc_node_info ni;
			int skip = 0, used = 0;
			if (host->node_get(ctx, r.g, n, &ni) != ONNXC_OK)
				continue;
			if (!onnxc_rw_point(&r, n, &ni)) {
				r.failed = 1;
				break;
			}
			for (uint32_t k = 0; k < ni.nout; k++)
				if (ni.out + k >= r.nvals ||
				    r.frozen[ni.out + k])
					skip = 1;
				else
					used |= r.uses[ni.out + k] != 0;
			if (!skip && used && ni.dialect == ONNXC_ONNX)
				visit(&r, n, &ni);
		}
		/* nodes made this round, and users that came before them */
		end = host->node_end(ctx, r.g);
		for (onnxc_node n = 1; n < end && !r.failed && r.changed; n++) {
			onnxc_node_info ni;
			if (host->node_get(ctx, r.g, n, &ni) == ONNXC_OK &&
			    !onnxc_rw_point(&r, n, &ni))
				r.failed = 1;
		}
		uint32_t changed = r.changed;
		int failed = r.failed;
		onnxc_rw_free(&r);
		if (failed) {
			host->report(ctx, ONNXC_SEV_ERROR, r.g, 0,
			    "%s: the host refused a change to the graph", who);
			return ONNXC_ERROR;
		}
		if (!changed)
			break;
	}
	return ONNXC_OK;
}

/* onnxc_rw_run_with, for a visitor that needs nothing of the run */
static inline onnxc_status
onnxc_rw_run(onnxc_ctx *ctx, const onnxc_host_api *host, const char *who,
    onnxc_rw_visit visit, int maxrounds)
{
	return onnxc_rw_run_with(ctx, host, who, visit, maxrounds, NULL);
}

#endif
