/* functionalize.c - pass "functionalize": in-place ops and the views they
 * write through, rewritten as functional updates.
 *
 * Requires: the main FX graph as parsed (the training IR: in-place ops,
 * views), in program order.  Provides: the same graph without in-place
 * ops, where every read sees the writes PyTorch would have made visible.
 *
 * PyTorch's views (slice, select, view, transpose, ...) share storage with
 * their base: a write into a view (fill_, add_, copy_, ...) changes the
 * base and every other view of it.  One sweep in program order keeps, for
 * each value, its storage root, the view node that made it from its
 * parent, and the root's version when it was made.  An in-place op
 *   - becomes its functional form (add_.Tensor -> add.Tensor, zero_ ->
 *     zeros_like, __iand__ -> __and__), computing the new value w of the
 *     tensor x it names;
 *   - then rebuilds x's base through the view chain, innermost first
 *     (slice -> slice_scatter, select -> select_scatter, reshape-like ->
 *     view_as, transpose/permute -> their inverse, alias -> w), and makes
 *     the result the root's current value, bumping its version.
 * A later read of a value made at an older version reads it regenerated:
 * the view chain replayed on the root's current value (once per version).
 * Graph outputs are read the same way at the end (mutated inputs and
 * buffers: the signature's outputs name the written values).
 *
 * Writes through views we cannot invert (diagonal, as_strided, unfold,
 * an expand that broadcasts, the outputs of split/chunk/unbind) are
 * errors naming the view.  reshape/flatten/contiguous/to are views only
 * of contiguous tensors (roots, or reshapes of them); of anything else
 * they copy, as in PyTorch.
 *
 * Linear in the graph plus the nodes it adds (each stale read replays a
 * chain once per version; each write rebuilds one chain).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>

enum { MAXDEPTH = 64, MAXR = 64 };

/* How a view is undone when something is written into it. */
typedef enum Inv {
	INV_NONE,      /* not a view */
	INV_SLICE,     /* slice_scatter(p, w, dim, start, end, step) */
	INV_NARROW,    /* slice_scatter(p, w, dim, start, start + length) */
	INV_SELECT,    /* select_scatter(p, w, dim, index) */
	INV_RESHAPE,   /* view_as(w, p) */
	INV_TRANSPOSE, /* transpose(w, a, b) */
	INV_T,         /* t(w) */
	INV_PERMUTE,   /* permute(w, inverse) */
	INV_ALIAS,     /* w */
	INV_EXPAND,    /* view_as(w, p) when it broadcasts nothing */
	INV_REFUSE     /* a view whose writes we do not invert */
} Inv;

static const struct {
	const char *op;
	uint8_t inv;
	uint8_t contig; /* keeps a contiguous tensor contiguous */
	uint8_t maybe;  /* a view only of a contiguous tensor */
} views[] = {
	{"aten::slice.Tensor", INV_SLICE, 0, 0},
	{"aten::narrow.default", INV_NARROW, 0, 0},
	{"aten::select.int", INV_SELECT, 0, 0},
	{"aten::view.default", INV_RESHAPE, 1, 0},
	{"aten::_unsafe_view.default", INV_RESHAPE, 1, 0},
	{"aten::view_as.default", INV_RESHAPE, 1, 0},
	{"aten::unsqueeze.default", INV_RESHAPE, 1, 0},
	{"aten::squeeze.default", INV_RESHAPE, 1, 0},
	{"aten::squeeze.dim", INV_RESHAPE, 1, 0},
	{"aten::squeeze.dims", INV_RESHAPE, 1, 0},
	{"aten::unflatten.int", INV_RESHAPE, 1, 0},
	{"aten::reshape.default", INV_RESHAPE, 1, 1},
	{"aten::flatten.using_ints", INV_RESHAPE, 1, 1},
	{"aten::transpose.int", INV_TRANSPOSE, 0, 0},
	{"aten::swapaxes.default", INV_TRANSPOSE, 0, 0},
	{"aten::t.default", INV_T, 0, 0},
	{"aten::permute.default", INV_PERMUTE, 0, 0},
	{"aten::alias.default", INV_ALIAS, 1, 0},
	{"aten::detach.default", INV_ALIAS, 1, 0},
	{"aten::lift_fresh.default", INV_ALIAS, 1, 0},
	{"aten::contiguous.default", INV_ALIAS, 1, 1},
	{"aten::expand.default", INV_EXPAND, 0, 0},
	{"aten::expand_as.default", INV_EXPAND, 0, 0},
	{"aten::diagonal.default", INV_REFUSE, 0, 0},
	{"aten::as_strided.default", INV_REFUSE, 0, 0},
	{"aten::unfold.default", INV_REFUSE, 0, 0},
	{"aten::view.dtype", INV_REFUSE, 0, 0},
	{"aten::real.default", INV_REFUSE, 0, 0},
	{"aten::imag.default", INV_REFUSE, 0, 0},
	{"aten::view_as_real.default", INV_REFUSE, 0, 0},
	{"aten::view_as_complex.default", INV_REFUSE, 0, 0},
};

/* Ops whose several outputs are views of their input. */
static const char *const multiviews[] = {
	"aten::split.Tensor", "aten::split_with_sizes.default",
	"aten::chunk.default", "aten::unbind.int", "aten::tensor_split.sections",
	"aten::tensor_split.indices", "aten::split.sizes",
	"aten::unsafe_split.Tensor", "aten::unsafe_chunk.default",
};

/* What the sweep knows of one value. */
typedef struct Val {
	onnxc_value root;   /* its storage's root; 0: itself */
	onnxc_value parent; /* the value it is a view of; 0: a root */
	onnxc_node view;    /* the node that made it from parent */
	uint32_t ver;       /* the root's version it was made at */
	uint8_t inv;        /* Inv of view */
	uint8_t contig;     /* contiguous (roots are) */
	uint8_t multi;      /* an output of split/chunk/unbind */
	onnxc_value remap;  /* an erased in-place op's output: its new value */
	onnxc_value cur;    /* roots: the current value; 0: itself */
	uint32_t rver;      /* roots: the current version */
	onnxc_value fresh;  /* regenerated at version freshver */
	uint32_t freshver;
} Val;

typedef struct Fn {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	Val *v;
	uint32_t nv;
	int bad;      /* stop: something failed */
	int reported; /* and it was reported */
	onnxc_graph *todo; /* bodies of higher-order ops still to sweep */
	uint32_t ntodo, ctodo;
} Fn;

static Val *
V(Fn *f, onnxc_value v)
{
	static Val none;
	if (v >= f->nv) {
		uint32_t n = f->h->value_end(f->ctx, f->g);
		uint32_t cap = f->nv ? f->nv : 256;
		while (cap <= n || cap <= v)
			cap *= 2;
		Val *p = realloc(f->v, cap * sizeof *p);
		if (!p) {
			f->bad = 1;
			memset(&none, 0, sizeof none);
			return &none;
		}
		memset(p + f->nv, 0, (cap - f->nv) * sizeof *p);
		f->v = p;
		f->nv = cap;
	}
	return &f->v[v];
}

static onnxc_value
root(Fn *f, onnxc_value v)
{
	onnxc_value r = V(f, v)->root;
	return r ? r : v;
}

static const char *
opname(Fn *f, const onnxc_node_info *ni)
{
	const char *s = f->h->str(f->ctx, ni->op);
	return ni->dialect == ONNXC_FX && s ? s : "";
}

static int
view_index(const char *op)
{
	for (size_t i = 0; i < sizeof views / sizeof *views; i++)
		if (!strcmp(views[i].op, op))
			return (int)i;
	return -1;
}

static int
is_multiview(const char *op)
{
	for (size_t i = 0; i < sizeof multiviews / sizeof *multiviews; i++)
		if (!strcmp(multiviews[i], op))
			return 1;
	return 0;
}

/* The functional form of in-place op `op` in buf, or 0 when op is not
 * in place: "aten::add_.Tensor" -> "aten::add.Tensor", "aten::zero_" ->
 * "aten::zeros_like.default", "aten::__iand__.Tensor" ->
 * "aten::__and__.Tensor". */
static int
functional(const char *op, char *buf, size_t cap)
{
	const char *ns = strstr(op, "::");
	if (!ns || strncmp(op, "aten::", 6) != 0)
		return 0;
	const char *name = ns + 2, *dot = strchr(name, '.');
	size_t len = dot ? (size_t)(dot - name) : strlen(name);
	const char *over = dot ? dot : "";
	if (strlen(op) + 16 >= cap)
		return 0;
	if (len > 5 && !strncmp(name, "__i", 3) && !strncmp(name + len - 2,
	    "__", 2)) {
		snprintf(buf, cap, "aten::__%.*s%s", (int)(len - 3), name + 3,
		    over);
		return 1;
	}
	if (len < 2 || name[len - 1] != '_' || name[len - 2] == '_' ||
	    name[0] == '_')
		return 0;
	/* functional forms that are not the name without '_' */
	static const char *const renamed[][2] = {
		{"zero_", "aten::zeros_like.default"},
		{"transpose_", "aten::transpose.int"},
		{"swapaxes_", "aten::swapaxes.default"},
		{"swapdims_", "aten::transpose.int"},
	};
	for (size_t i = 0; i < sizeof renamed / sizeof *renamed; i++)
		if (strlen(renamed[i][0]) == len &&
		    !strncmp(name, renamed[i][0], len)) {
			snprintf(buf, cap, "%s", renamed[i][1]);
			return 1;
		}
	snprintf(buf, cap, "aten::%.*s%s", (int)(len - 1), name, over);
	return 1;
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
static onnxc_value
emit(Fn *f, const char *op, const onnxc_arg *args, uint32_t n,
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

static onnxc_arg
a_val(onnxc_value v)
{
	return (onnxc_arg){.kind = ONNXC_ARG_VALUE, .ref = v};
}

static onnxc_arg
a_int(int64_t i)
{
	return (onnxc_arg){.kind = ONNXC_ARG_INT, .i = i};
}

/* Argument i of node n, positional, for a new node; None when absent. */
static onnxc_arg
arg_at(Fn *f, onnxc_node n, uint32_t i)
{
	onnxc_arg a;
	onnxc_node_info ni;
	if (f->h->node_get(f->ctx, f->g, n, &ni) != ONNXC_OK || i >= ni.npos ||
	    f->h->node_arg(f->ctx, f->g, n, i, &a) != ONNXC_OK)
		return (onnxc_arg){.kind = ONNXC_ARG_NONE};
	a.key = 0;
	return a;
}

static onnxc_value regen(Fn *f, onnxc_value v);

/* The node that made view v, replayed on its parent's current value. */
static onnxc_value
replay(Fn *f, onnxc_value v)
{
	const onnxc_host_api *h = f->h;
	Val *x = V(f, v);
	onnxc_node_info ni;
	onnxc_value p = regen(f, x->parent);
	if (h->node_get(f->ctx, f->g, x->view, &ni) != ONNXC_OK || !p) {
		f->bad = 1;
		return 0;
	}
	onnxc_arg args[32];
	if (ni.nargs > 32) {
		f->bad = 1;
		return 0;
	}
	for (uint32_t i = 0; i < ni.nargs; i++)
		if (h->node_arg(f->ctx, f->g, x->view, i, &args[i]) != ONNXC_OK)
			f->bad = 1;
	args[0] = a_val(p);
	return emit(f, opname(f, &ni), args, ni.nargs, x->view, v, "regen");
}

/* The value v reads as now: v itself when no write reached its storage
 * since it was made, else regenerated from the root's current value. */
static onnxc_value
regen(Fn *f, onnxc_value v)
{
	if (!v || f->bad)
		return v;
	onnxc_value r = root(f, v);
	Val *rv = V(f, r);
	uint32_t now = rv->rver;
	Val *x = V(f, v);
	if (x->ver == now)
		return v;
	if (x->fresh && x->freshver == now)
		return x->fresh;
	onnxc_value nv = x->parent ? replay(f, v) : (rv->cur ? rv->cur : r);
	x = V(f, v); /* replay may have moved the table */
	x->fresh = nv;
	x->freshver = now;
	return nv;
}

/* The value argument a stands for now (remapped, regenerated); lists
 * rebuilt when an item changed.  *changed is set when it did. */
static int
refresh_arg(Fn *f, const onnxc_arg *a, onnxc_arg *out, int *changed,
    int depth)
{
	*out = *a;
	if (a->kind == ONNXC_ARG_VALUE) {
		onnxc_value v = a->ref;
		while (V(f, v)->remap)
			v = V(f, v)->remap;
		v = regen(f, v);
		if (v != a->ref) {
			out->ref = v;
			*changed = 1;
		}
		return !f->bad;
	}
	if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
		return 1;
	if (depth > MAXDEPTH || a->len > 4096)
		return 0;
	onnxc_arg *items = calloc(a->len + 1, sizeof *items);
	if (!items)
		return 0;
	int ok = 1, ch = 0;
	for (uint32_t i = 0; ok && i < a->len; i++) {
		onnxc_arg it;
		ok = f->h->list_item(f->ctx, f->g, a, i, &it) == ONNXC_OK &&
		    refresh_arg(f, &it, &items[i], &ch, depth + 1);
	}
	if (ok && ch) {
		ok = f->h->make_list(f->ctx, f->g, a->kind, items, a->len, out) ==
		    ONNXC_OK;
		out->key = a->key;
		*changed = 1;
	}
	free(items);
	return ok;
}

/* The permutation inverse to node n's dims argument. */
static int
inverse_perm(Fn *f, onnxc_node n, onnxc_arg *out)
{
	onnxc_arg dims = arg_at(f, n, 1), it, items[MAXR];
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
		items[p[i]] = a_int(i);
	return f->h->make_list(f->ctx, f->g, ONNXC_ARG_LIST, items, dims.len,
	    out) == ONNXC_OK;
}

/* pc (the parent's current value) with view value v (made by x->view)
 * replaced by w; 0 after an error. */
static onnxc_value
unview(Fn *f, onnxc_value v, onnxc_value pc, onnxc_value w, onnxc_node at)
{
	Val *x = V(f, v);
	onnxc_node vn = x->view;
	onnxc_value parent = x->parent;
	onnxc_arg a[6];
	switch ((Inv)x->inv) {
	case INV_SLICE:
		a[0] = a_val(pc);
		a[1] = a_val(w);
		for (uint32_t i = 1; i < 5; i++)
			a[i + 1] = arg_at(f, vn, i);
		if (a[2].kind == ONNXC_ARG_NONE)
			a[2] = a_int(0);
		if (a[5].kind == ONNXC_ARG_NONE)
			a[5] = a_int(1);
		return emit(f, "aten::slice_scatter.default", a, 6, at, parent,
		    "scatter");
	case INV_NARROW: {
		onnxc_arg s = arg_at(f, vn, 2), l = arg_at(f, vn, 3);
		if (s.kind != ONNXC_ARG_INT || l.kind != ONNXC_ARG_INT)
			break;
		a[0] = a_val(pc);
		a[1] = a_val(w);
		a[2] = arg_at(f, vn, 1);
		a[3] = s;
		a[4] = a_int(s.i + l.i);
		return emit(f, "aten::slice_scatter.default", a, 5, at, parent,
		    "scatter");
	}
	case INV_SELECT:
		a[0] = a_val(pc);
		a[1] = a_val(w);
		a[2] = arg_at(f, vn, 1);
		a[3] = arg_at(f, vn, 2);
		return emit(f, "aten::select_scatter.default", a, 4, at, parent,
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
		a[0] = a_val(w);
		a[1] = a_val(pc);
		return emit(f, "aten::view_as.default", a, 2, at, parent,
		    "unview");
	case INV_TRANSPOSE:
		a[0] = a_val(w);
		a[1] = arg_at(f, vn, 1);
		a[2] = arg_at(f, vn, 2);
		return emit(f, "aten::transpose.int", a, 3, at, parent,
		    "unview");
	case INV_T:
		a[0] = a_val(w);
		return emit(f, "aten::t.default", a, 1, at, parent, "unview");
	case INV_PERMUTE:
		a[0] = a_val(w);
		if (!inverse_perm(f, vn, &a[1]))
			break;
		return emit(f, "aten::permute.default", a, 2, at, parent,
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
		vname = opname(f, &vi);
	f->h->report(f->ctx, ONNXC_SEV_ERROR, f->g, at,
	    "this in-place op writes through %s '%s' of its base; onnxc "
	    "cannot turn that write into a functional update",
	    x->inv == INV_EXPAND ? "an expand that broadcasts," : "the view",
	    vname);
	f->bad = f->reported = 1;
	return 0;
}

/* Node n writes its result w into x: x's root gets the new value. */
static void
write_through(Fn *f, onnxc_value x, onnxc_value w, onnxc_node at)
{
	onnxc_value v = x;
	while (!f->bad && V(f, v)->parent) {
		if (V(f, v)->multi) {
			f->h->report(f->ctx, ONNXC_SEV_ERROR, f->g, at,
			    "this in-place op writes into an output of "
			    "split/chunk/unbind; onnxc cannot turn that write "
			    "into a functional update");
			f->bad = f->reported = 1;
			return;
		}
		onnxc_value p = V(f, v)->parent;
		onnxc_value pc = regen(f, p);
		w = unview(f, v, pc, w, at);
		v = p;
	}
	if (f->bad)
		return;
	onnxc_value r = root(f, x);
	Val *rv = V(f, r);
	rv->cur = w;
	rv->rver++;
}

/* Tracking for the outputs of view node n, a view of logical value x
 * (its argument may be x regenerated). */
static void
track(Fn *f, onnxc_node n, const onnxc_node_info *ni, const char *op,
    onnxc_value x)
{
	int vi = view_index(op);
	int multi = is_multiview(op);
	Val *xv = V(f, x);
	if (vi >= 0 && views[vi].maybe && xv->parent && !xv->contig)
		return; /* reshape of a non-contiguous tensor: a copy */
	onnxc_value r = root(f, x);
	uint32_t ver = V(f, r)->rver;
	xv = V(f, x);
	int contig = vi >= 0 && views[vi].contig &&
	    (!xv->parent || xv->contig);
	for (uint32_t k = 0; k < ni->nout; k++) {
		Val *o = V(f, ni->out + k);
		o->root = r;
		o->parent = x;
		o->view = n;
		o->ver = ver;
		o->inv = (uint8_t)(vi >= 0 ? views[vi].inv : INV_REFUSE);
		o->multi = (uint8_t)multi;
		o->contig = (uint8_t)contig;
	}
}

/* In-place node n (writing into logical value x) is replaced by its
 * functional form fop, and x's base rebuilt. */
static void
rewrite_inplace(Fn *f, onnxc_node n, const onnxc_node_info *ni,
    const char *fop, onnxc_value x)
{
	const onnxc_host_api *h = f->h;
	onnxc_arg args[32];
	uint32_t na = ni->nargs;
	if (!x || ni->nout != 1 || na > 32) {
		h->report(f->ctx, ONNXC_SEV_ERROR, f->g, n,
		    "in-place op without a tensor to write into");
		f->bad = f->reported = 1;
		return;
	}
	for (uint32_t i = 0; i < na; i++)
		if (h->node_arg(f->ctx, f->g, n, i, &args[i]) != ONNXC_OK)
			f->bad = 1;
	if (!strcmp(fop, "aten::zeros_like.default"))
		na = 1; /* zero_(self) */
	onnxc_value w = f->bad ? 0 : emit(f, fop, args, na, n, ni->out, "f");
	if (!w)
		return;
	if (view_index(fop) >= 0) {
		/* unsqueeze_, transpose_, t_ ...: x's shape changes, not its
		 * data; the name now stands for a view of x */
		onnxc_value_info wv;
		onnxc_node_info di;
		if (h->value_get(f->ctx, f->g, w, &wv) != ONNXC_OK ||
		    h->node_get(f->ctx, f->g, wv.def, &di) != ONNXC_OK) {
			f->bad = 1;
			return;
		}
		track(f, wv.def, &di, fop, x);
		V(f, ni->out)->remap = w;
		if (h->node_erase(f->ctx, f->g, n) != ONNXC_OK)
			f->bad = 1;
		return;
	}
	write_through(f, x, w, n);
	if (f->bad)
		return;
	/* the op's output is x after the write: a view of the same base */
	Val xv = *V(f, x);
	onnxc_value r = root(f, x);
	uint32_t now = V(f, r)->rver;
	*V(f, w) = (Val){.root = r, .parent = xv.parent, .view = xv.view,
	    .inv = xv.inv, .contig = xv.contig, .multi = xv.multi,
	    .ver = now};
	if (!xv.parent)
		V(f, r)->cur = w;
	V(f, ni->out)->remap = w;
	if (h->node_erase(f->ctx, f->g, n) != ONNXC_OK)
		f->bad = 1;
}

/* The value argument 0 of node n names, through erased in-place ops. */
static onnxc_value
logical_first(Fn *f, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_arg a;
	if (ni->npos < 1 || f->h->node_arg(f->ctx, f->g, n, 0, &a) !=
	    ONNXC_OK || a.kind != ONNXC_ARG_VALUE)
		return 0;
	onnxc_value v = a.ref;
	while (V(f, v)->remap)
		v = V(f, v)->remap;
	return v;
}

/* Body g (an argument of a higher-order op) gets its own sweep. */
static void
add_body(Fn *f, onnxc_graph g)
{
	for (uint32_t i = 0; i < f->ntodo; i++)
		if (f->todo[i] == g)
			return;
	if (f->ntodo == f->ctodo) {
		uint32_t cap = f->ctodo ? f->ctodo * 2 : 8;
		onnxc_graph *p = realloc(f->todo, cap * sizeof *p);
		if (!p) {
			f->bad = 1;
			return;
		}
		f->todo = p;
		f->ctodo = cap;
	}
	f->todo[f->ntodo++] = g;
}

/* Every argument of node n as it reads now. */
static void
refresh_node(Fn *f, onnxc_node n, const onnxc_node_info *ni)
{
	for (uint32_t i = 0; i < ni->nargs && !f->bad; i++) {
		onnxc_arg a, b;
		int ch = 0;
		if (f->h->node_arg(f->ctx, f->g, n, i, &a) == ONNXC_OK &&
		    a.kind == ONNXC_ARG_GRAPH)
			add_body(f, a.ref);
		if (f->h->node_arg(f->ctx, f->g, n, i, &a) != ONNXC_OK ||
		    !refresh_arg(f, &a, &b, &ch, 0) || (ch &&
		    f->h->node_set_arg(f->ctx, f->g, n, i, &b) != ONNXC_OK))
			f->bad = 1;
	}
}

static void
sweep(Fn *f)
{
	const onnxc_host_api *h = f->h;
	uint32_t end = h->node_end(f->ctx, f->g);
	char fop[256];
	for (onnxc_node n = 1; n < end && !f->bad; n++) {
		onnxc_node_info ni;
		if (h->node_get(f->ctx, f->g, n, &ni) != ONNXC_OK)
			continue;
		const char *op = opname(f, &ni);
		onnxc_value x = logical_first(f, n, &ni);
		refresh_node(f, n, &ni);
		if (f->bad)
			break;
		if (functional(op, fop, sizeof fop))
			rewrite_inplace(f, n, &ni, fop, x);
		else if (x && (view_index(op) >= 0 || is_multiview(op)))
			track(f, n, &ni, op, x);
	}
	uint32_t nout = h->output_count(f->ctx, f->g);
	for (uint32_t i = 0; i < nout && !f->bad; i++) {
		onnxc_value v = h->output_at(f->ctx, f->g, i), w = v;
		while (V(f, w)->remap)
			w = V(f, w)->remap;
		w = regen(f, w);
		if (!f->bad && w != v && h->output_set(f->ctx, f->g, i, w) !=
		    ONNXC_OK)
			f->bad = 1;
	}
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	Fn f = {.ctx = ctx, .h = host, .g = host->graph(ctx)};
	if (!ONNXC_HOST_HAS(host, output_set)) {
		host->report(ctx, ONNXC_SEV_ERROR, f.g, 0, "functionalize: "
		    "this onnxc's plugin host is too old (ABI 1.2 needed)");
		return ONNXC_ERROR;
	}
	/* the main graph, then every body reached from it (torch.cond and
	 * its kin forbid writes into their operands: each body is its own
	 * world) */
	add_body(&f, f.g);
	for (uint32_t i = 0; i < f.ntodo && !f.bad; i++) {
		f.g = f.todo[i];
		if (f.v)
			memset(f.v, 0, f.nv * sizeof *f.v);
		sweep(&f);
	}
	free(f.v);
	free(f.todo);
	if (f.bad && !f.reported)
		host->report(ctx, ONNXC_SEV_ERROR, f.g, 0, "functionalize: out "
		    "of memory, or the host refused a change to the graph");
	return f.bad ? ONNXC_ERROR : ONNXC_OK;
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "functionalize",
	.summary = "in-place ops and writes through views as functional "
	    "updates",
	.run = run,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(functionalize, "functionalize", "1.0", init, NULL);
