/* views.c - inside the functionalize plugin: the view ops, replaying
 * them on a base's current value, and undoing them when a value is
 * written into one (slice_scatter, select_scatter, view_as, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/table.h>

#include "fn.h"

/* The view ops (ir/views.def). */
static const ViewOp views[] = {
#define VIEW(op, inv, contig, maybe) {op, INV_##inv, contig, maybe},
#define MULTIVIEW(op, cut)
#define UNDO(inv, op)
#define REPLAY(inv, op)
#include "../../ir/views.def"
#undef VIEW
#undef MULTIVIEW
#undef UNDO
#undef REPLAY
};

/* How output k of a multiview op is cut from its input (views.def). */
typedef enum Cut {
	CUT_SELECT, CUT_SPLIT, CUT_CHUNK, CUT_SECTIONS, CUT_INDICES
} Cut;

/* Ops whose several outputs are views of their input. */
static const struct MultiOp {
	const char *op;
	Cut cut;
} multiviews[] = {
#define VIEW(op, inv, contig, maybe)
#define MULTIVIEW(op, cut) {op, CUT_##cut},
#define UNDO(inv, op)
#define REPLAY(inv, op)
#include "../../ir/views.def"
#undef VIEW
#undef MULTIVIEW
#undef UNDO
#undef REPLAY
};

/* By Inv: the op that undoes a write through such a view, and the one
 * that cuts a multiview's piece again. */
static const char *const undo_ops[INV_REFUSE + 1] = {
#define VIEW(op, inv, contig, maybe)
#define MULTIVIEW(op, cut)
#define UNDO(inv, op) [INV_##inv] = op,
#define REPLAY(inv, op)
#include "../../ir/views.def"
#undef VIEW
#undef MULTIVIEW
#undef UNDO
#undef REPLAY
};
static const char *const replay_ops[INV_REFUSE + 1] = {
#define VIEW(op, inv, contig, maybe)
#define MULTIVIEW(op, cut)
#define UNDO(inv, op)
#define REPLAY(inv, op) [INV_##inv] = op,
#include "../../ir/views.def"
#undef VIEW
#undef MULTIVIEW
#undef UNDO
#undef REPLAY
};

Val *
fn_val(Fn *f, onnxc_value v)
{
	if (v >= f->nv) {
		uint32_t n = f->h->value_end(f->ctx, f->g);
		uint32_t cap = f->nv ? f->nv : 256;
		while (cap <= n || cap <= v)
			cap *= 2;
		/* zeroed and on big pages: the table is as long as the
		 * graph (64 bytes a value) once any value is tracked */
		Val *p = onnxc_table_calloc(cap, sizeof *p);
		if (!p) {
			f->bad = 1;
			memset(&f->none, 0, sizeof f->none);
			return &f->none;
		}
		if (f->nv)
			memcpy(p, f->v, f->nv * sizeof *p);
		free(f->v);
		f->v = p;
		f->nv = cap;
	}
	return &f->v[v];
}

const Val *
fn_get(Fn *f, onnxc_value v)
{
	static const Val none;
	return v < f->nv ? &f->v[v] : &none;
}

onnxc_value
fn_root(Fn *f, onnxc_value v)
{
	onnxc_value r = fn_get(f, v)->root;
	return r ? r : v;
}

const char *
fn_opname(Fn *f, const onnxc_node_info *ni)
{
	const char *s = f->h->str(f->ctx, ni->op);
	return ni->dialect == ONNXC_FX && s ? s : "";
}

/* Every entry of both tables is an aten op: one prefix test, then the
 * first letter of the name filters before strcmp (asked of every node). */
enum { PREFIX = sizeof "aten::" - 1 };

static int
same_op(const char *entry, const char *op)
{
	return entry[PREFIX] == op[PREFIX] && !strcmp(entry + PREFIX,
	    op + PREFIX);
}

const ViewOp *
fn_view(const char *op)
{
	if (strncmp(op, "aten::", PREFIX))
		return NULL;
	for (size_t i = 0; i < sizeof views / sizeof *views; i++)
		if (same_op(views[i].op, op))
			return &views[i];
	return NULL;
}

static const struct MultiOp *
multiview(const char *op)
{
	if (strncmp(op, "aten::", PREFIX))
		return NULL;
	for (size_t i = 0; i < sizeof multiviews / sizeof *multiviews; i++)
		if (same_op(multiviews[i].op, op))
			return &multiviews[i];
	return NULL;
}

int
fn_is_multiview(const char *op)
{
	return multiview(op) != NULL;
}

/* Value v of the graph gets the type of value src. */
static int
copy_type(Fn *f, onnxc_value v, onnxc_value src)
{
	const onnxc_host_api *h = f->h;
	onnxc_value_info vi;
	onnxc_dim d[MAXR];
	if (h->value_get(f->ctx, f->g, src, &vi) != ONNXC_OK)
		return 0;
	if (vi.kind == ONNXC_VK_TENSOR) {
		if (vi.rank > MAXR || (vi.rank > 0 && h->value_dims(f->ctx, f->g,
		    src, d, MAXR) != ONNXC_OK))
			return 0;
		return h->value_set_type(f->ctx, f->g, v, vi.dtype, vi.rank,
		    d) == ONNXC_OK;
	}
	if (vi.kind == ONNXC_VK_SYMINT || vi.kind == ONNXC_VK_SYMFLOAT ||
	    vi.kind == ONNXC_VK_SYMBOOL)
		return h->value_set_sym(f->ctx, f->g, v, vi.kind, vi.sym) ==
		    ONNXC_OK;
	return 1;
}

/* A new FX node op(args) standing for node `like`; its output typed as
 * value `type` and named after it. */
onnxc_value
fn_emit(Fn *f, const char *op, const onnxc_arg *args, uint32_t n,
    onnxc_node like, onnxc_value type, const char *tag)
{
	const onnxc_host_api *h = f->h;
	onnxc_node m = h->node_new(f->ctx, f->g, ONNXC_FX, "", op, 1);
	onnxc_node_info mi;
	onnxc_value_info ti;
	for (uint32_t i = 0; m && i < n; i++)
		if (h->node_push_arg(f->ctx, f->g, m, &args[i]) != ONNXC_OK)
			m = 0;
	if (!m || h->node_get(f->ctx, f->g, m, &mi) != ONNXC_OK ||
	    h->value_get(f->ctx, f->g, type, &ti) != ONNXC_OK ||
	    !copy_type(f, mi.out, type)) {
		f->bad = 1;
		return 0;
	}
	char name[256];
	snprintf(name, sizeof name, "%s__%s%u", h->str(f->ctx, ti.name), tag,
	    mi.out);
	h->value_set_name(f->ctx, f->g, mi.out, name);
	h->node_set_name(f->ctx, f->g, m, name);
	if (like)
		h->node_set_origin(f->ctx, f->g, m, like);
	return mi.out;
}

onnxc_arg
fn_a_val(onnxc_value v)
{
	return (onnxc_arg){.kind = ONNXC_ARG_VALUE, .ref = v};
}

onnxc_arg
fn_a_int(int64_t i)
{
	return (onnxc_arg){.kind = ONNXC_ARG_INT, .i = i};
}

/* Argument i of node n, positional, for a new node; None when absent. */
onnxc_arg
fn_arg_at(Fn *f, onnxc_node n, uint32_t i)
{
	onnxc_arg a;
	onnxc_node_info ni;
	if (f->h->node_get(f->ctx, f->g, n, &ni) != ONNXC_OK || i >= ni.npos ||
	    f->h->node_arg(f->ctx, f->g, n, i, &a) != ONNXC_OK)
		return (onnxc_arg){.kind = ONNXC_ARG_NONE};
	a.key = 0;
	return a;
}


/* An int argument pos of node n; 0 when not a literal int. */
static int
int_at(Fn *f, onnxc_node n, uint32_t pos, int64_t dflt, int64_t *out)
{
	onnxc_arg a = fn_arg_at(f, n, pos);
	if (a.kind == ONNXC_ARG_NONE) {
		*out = dflt;
		return 1;
	}
	*out = a.i;
	return a.kind == ONNXC_ARG_INT;
}

void
fn_multi_piece(Fn *f, onnxc_node n, const char *op, uint32_t k, Val *o)
{
	onnxc_arg x = fn_arg_at(f, n, 0), sizes;
	onnxc_value_info xi;
	onnxc_dim d[MAXR];
	int64_t dim, s, len = -1;
	const struct MultiOp *mv = multiview(op);
	o->inv = INV_REFUSE;
	if (!mv || x.kind != ONNXC_ARG_VALUE || f->h->value_get(f->ctx, f->g, x.ref,
	    &xi) != ONNXC_OK || xi.rank < 1 || xi.rank > MAXR ||
	    f->h->value_dims(f->ctx, f->g, x.ref, d, MAXR) != ONNXC_OK)
		return;
	int unbind = mv->cut == CUT_SELECT;
	if (!int_at(f, n, unbind ? 1 : 2, 0, &dim) || dim < -xi.rank ||
	    dim >= xi.rank)
		return;
	if (dim < 0)
		dim += xi.rank;
	if (!d[dim].e)
		len = d[dim].n;
	o->mdim = (int32_t)dim;
	if (unbind) {
		o->inv = INV_SELECT;
		o->mstart = o->mend = k;
		return;
	}
	sizes = fn_arg_at(f, n, 1);
	if (sizes.kind == ONNXC_ARG_LIST || sizes.kind == ONNXC_ARG_TUPLE) {
		if (mv->cut != CUT_SPLIT)
			return; /* indices, not sizes */
		int64_t start = 0;
		for (uint32_t i = 0; i <= k && i < sizes.len; i++) {
			onnxc_arg it;
			if (f->h->list_item(f->ctx, f->g, &sizes, i, &it) !=
			    ONNXC_OK || it.kind != ONNXC_ARG_INT)
				return;
			o->mstart = start;
			o->mend = start += it.i;
		}
		o->inv = k < sizes.len ? INV_SLICE : INV_REFUSE;
		return;
	}
	if (sizes.kind != ONNXC_ARG_INT || sizes.i < 1)
		return;
	if (mv->cut == CUT_SECTIONS) {
		/* tensor_split: the first len % n pieces one longer */
		if (len < 0)
			return;
		int64_t q = len / sizes.i, r = len % sizes.i;
		o->inv = INV_SLICE;
		o->mstart = (int64_t)k * q + ((int64_t)k < r ? k : r);
		o->mend = o->mstart + q + ((int64_t)k < r);
		return;
	}
	if (mv->cut == CUT_CHUNK) {
		if (len < 0)
			return;
		s = (len + sizes.i - 1) / sizes.i; /* PyTorch's chunk size */
	} else if (mv->cut == CUT_SPLIT) {
		s = sizes.i;
	} else {
		return;
	}
	o->inv = INV_SLICE;
	o->mstart = (int64_t)k * s;
	o->mend = o->mstart + s;
}

/* The node that made view v, replayed on its parent's current value. */
static onnxc_value
replay(Fn *f, onnxc_value v)
{
	const onnxc_host_api *h = f->h;
	Val *x = fn_val(f, v);
	onnxc_node_info ni;
	onnxc_value p = fn_regen(f, x->parent);
	if (h->node_get(f->ctx, f->g, x->view, &ni) != ONNXC_OK || !p) {
		f->bad = 1;
		return 0;
	}
	onnxc_arg args[32];
	if (x->multi) {
		args[0] = fn_a_val(p);
		args[1] = fn_a_int(x->mdim);
		args[2] = fn_a_int(x->mstart);
		args[3] = fn_a_int(x->mend);
		if (x->inv == INV_SELECT || x->inv == INV_SLICE)
			return fn_emit(f, replay_ops[x->inv], args,
			    x->inv == INV_SELECT ? 3 : 4, x->view, v, "regen");
		h->report(f->ctx, ONNXC_SEV_ERROR, f->g, x->view, "an output "
		    "of this %s is read after a write to its input, which "
		    "onnxc cannot follow", fn_opname(f, &ni));
		f->bad = f->reported = 1;
		return 0;
	}
	if (ni.nargs > 32) {
		f->bad = 1;
		return 0;
	}
	for (uint32_t i = 0; i < ni.nargs; i++)
		if (h->node_arg(f->ctx, f->g, x->view, i, &args[i]) != ONNXC_OK)
			f->bad = 1;
	args[0] = fn_a_val(p);
	return fn_emit(f, fn_opname(f, &ni), args, ni.nargs, x->view, v, "regen");
}

/* The value v reads as now: v itself when no write reached its storage
 * since it was made, else regenerated from the root's current value. */
onnxc_value
fn_regen(Fn *f, onnxc_value v)
{
	if (!v || f->bad)
		return v;
	onnxc_value r = fn_root(f, v);
	const Val *rv = fn_get(f, r), *x = fn_get(f, v);
	uint32_t now = rv->rver;
	if (x->ver == now)
		return v;
	if (x->fresh && x->freshver == now)
		return x->fresh;
	onnxc_value nv = x->parent ? replay(f, v) : (rv->cur ? rv->cur : r);
	Val *w = fn_val(f, v); /* replay may have moved the table */
	w->fresh = nv;
	w->freshver = now;
	return nv;
}

/* The permutation inverse to node n's dims argument. */
static int
inverse_perm(Fn *f, onnxc_node n, onnxc_arg *out)
{
	onnxc_arg dims = fn_arg_at(f, n, 1), it, items[MAXR];
	int64_t p[MAXR];
	if ((dims.kind != ONNXC_ARG_LIST && dims.kind != ONNXC_ARG_TUPLE) ||
	    dims.len > MAXR)
		return 0;
	int64_t r = dims.len;
	for (uint32_t i = 0; i < dims.len; i++) {
		if (f->h->list_item(f->ctx, f->g, &dims, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_INT || it.i < -r || it.i >= r)
			return 0;
		p[i] = it.i < 0 ? it.i + r : it.i;
	}
	for (uint32_t i = 0; i < dims.len; i++)
		items[p[i]] = fn_a_int(i);
	return f->h->make_list(f->ctx, f->g, ONNXC_ARG_LIST, items, dims.len,
	    out) == ONNXC_OK;
}

/* pc (the parent's current value) with view value v (made by x->view)
 * replaced by w; 0 after an error. */
onnxc_value
fn_unview(Fn *f, onnxc_value v, onnxc_value pc, onnxc_value w, onnxc_node at)
{
	Val *x = fn_val(f, v);
	onnxc_node vn = x->view;
	onnxc_value parent = x->parent;
	onnxc_arg a[6];
	if (x->multi && (x->inv == INV_SLICE || x->inv == INV_SELECT)) {
		a[0] = fn_a_val(pc);
		a[1] = fn_a_val(w);
		a[2] = fn_a_int(x->mdim);
		a[3] = fn_a_int(x->mstart);
		a[4] = fn_a_int(x->mend);
		a[5] = fn_a_int(1);
		return fn_emit(f, undo_ops[x->inv], a, x->inv == INV_SELECT ?
		    4 : 6, at, parent, "scatter");
	}
	switch (x->multi ? INV_REFUSE : (Inv)x->inv) {
	case INV_SLICE:
		a[0] = fn_a_val(pc);
		a[1] = fn_a_val(w);
		for (uint32_t i = 1; i < 5; i++)
			a[i + 1] = fn_arg_at(f, vn, i);
		if (a[2].kind == ONNXC_ARG_NONE)
			a[2] = fn_a_int(0);
		if (a[5].kind == ONNXC_ARG_NONE)
			a[5] = fn_a_int(1);
		return fn_emit(f, undo_ops[INV_SLICE], a, 6, at, parent,
		    "scatter");
	case INV_NARROW: {
		onnxc_arg s = fn_arg_at(f, vn, 2), l = fn_arg_at(f, vn, 3);
		if (s.kind != ONNXC_ARG_INT || l.kind != ONNXC_ARG_INT)
			break;
		a[0] = fn_a_val(pc);
		a[1] = fn_a_val(w);
		a[2] = fn_arg_at(f, vn, 1);
		a[3] = s;
		a[4] = fn_a_int(s.i + l.i);
		return fn_emit(f, undo_ops[INV_NARROW], a, 5, at, parent,
		    "scatter");
	}
	case INV_SELECT:
		a[0] = fn_a_val(pc);
		a[1] = fn_a_val(w);
		a[2] = fn_arg_at(f, vn, 1);
		a[3] = fn_arg_at(f, vn, 2);
		return fn_emit(f, undo_ops[INV_SELECT], a, 4, at, parent,
		    "scatter");
	case INV_EXPAND: {
		onnxc_dim dp[MAXR], dv[MAXR];
		onnxc_value_info pi, vi;
		if (f->h->value_get(f->ctx, f->g, parent, &pi) != ONNXC_OK ||
		    f->h->value_get(f->ctx, f->g, v, &vi) != ONNXC_OK ||
		    pi.rank != vi.rank || pi.rank < 0 || pi.rank > MAXR ||
		    f->h->value_dims(f->ctx, f->g, parent, dp, MAXR) !=
		    ONNXC_OK || f->h->value_dims(f->ctx, f->g, v, dv, MAXR) !=
		    ONNXC_OK)
			break;
		for (int32_t i = 0; i < pi.rank; i++)
			if (dp[i].n != dv[i].n || dp[i].e != dv[i].e)
				goto refuse;
	}
		/* an expand to its own shape: a reshape */
		goto reshape;
	case INV_RESHAPE:
	reshape:
		a[0] = fn_a_val(w);
		a[1] = fn_a_val(pc);
		return fn_emit(f, undo_ops[INV_RESHAPE], a, 2, at, parent,
		    "unview");
	case INV_TRANSPOSE:
		a[0] = fn_a_val(w);
		a[1] = fn_arg_at(f, vn, 1);
		a[2] = fn_arg_at(f, vn, 2);
		return fn_emit(f, undo_ops[INV_TRANSPOSE], a, 3, at, parent,
		    "unview");
	case INV_T:
		a[0] = fn_a_val(w);
		return fn_emit(f, undo_ops[INV_T], a, 1, at, parent, "unview");
	case INV_PERMUTE:
		a[0] = fn_a_val(w);
		if (!inverse_perm(f, vn, &a[1]))
			break;
		return fn_emit(f, undo_ops[INV_PERMUTE], a, 2, at, parent,
		    "unview");
	case INV_ALIAS:
		return w;
	default:
		break;
	}
refuse:;
	onnxc_node_info vi;
	const char *vname = "?";
	if (f->h->node_get(f->ctx, f->g, vn, &vi) == ONNXC_OK)
		vname = fn_opname(f, &vi);
	f->h->report(f->ctx, ONNXC_SEV_ERROR, f->g, at,
	    "this in-place op writes through %s '%s' of its base; onnxc "
	    "cannot turn that write into a functional update",
	    x->inv == INV_EXPAND ? "an expand that broadcasts," : "the view",
	    vname);
	f->bad = f->reported = 1;
	return 0;
}
