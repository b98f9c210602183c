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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fn.h"

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

/* The value argument a stands for now (remapped, regenerated); lists
 * rebuilt when an item changed.  *changed is set when it did. */
static int
refresh_arg(Fn *f, const onnxc_arg *a, onnxc_arg *out, int *changed,
    int depth)
{
	*out = *a;
	if (a->kind == ONNXC_ARG_VALUE) {
		onnxc_value v = a->ref;
		while (fn_get(f, v)->remap)
			v = fn_get(f, v)->remap;
		v = fn_regen(f, v);
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

/* Node n writes its result w into x: x's root gets the new value. */
static void
write_through(Fn *f, onnxc_value x, onnxc_value w, onnxc_node at)
{
	onnxc_value v = x;
	while (!f->bad && fn_get(f, v)->parent) {
		onnxc_value p = fn_get(f, v)->parent;
		onnxc_value pc = fn_regen(f, p);
		w = fn_unview(f, v, pc, w, at);
		v = p;
	}
	if (f->bad)
		return;
	onnxc_value r = fn_root(f, x);
	Val *rv = fn_val(f, r);
	rv->cur = w;
	rv->rver++;
}

/* Tracking for the outputs of view node n, a view of logical value x
 * (its argument may be x regenerated). */
static void
track(Fn *f, onnxc_node n, const onnxc_node_info *ni, const char *op,
    onnxc_value x)
{
	const ViewOp *vo = fn_view(op);
	int multi = fn_is_multiview(op);
	Val *xv = fn_val(f, x);
	if (vo && vo->maybe && xv->parent && !xv->contig)
		return; /* reshape of a non-contiguous tensor: a copy */
	onnxc_value r = fn_root(f, x);
	uint32_t ver = fn_val(f, r)->rver;
	xv = fn_val(f, x);
	int contig = vo && vo->contig &&
	    (!xv->parent || xv->contig);
	for (uint32_t k = 0; k < ni->nout; k++) {
		Val *o = fn_val(f, ni->out + k);
		o->root = r;
		o->parent = x;
		o->view = n;
		o->ver = ver;
		o->inv = (uint8_t)(vo ? vo->inv : INV_REFUSE);
		o->multi = (uint8_t)multi;
		o->contig = (uint8_t)contig;
		if (multi)
			fn_multi_piece(f, n, op, k, o);
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
	onnxc_value w = f->bad ? 0 : fn_emit(f, fop, args, na, n, ni->out, "f");
	if (!w)
		return;
	if (fn_view(fop)) {
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
		fn_val(f, ni->out)->remap = w;
		if (h->node_erase(f->ctx, f->g, n) != ONNXC_OK)
			f->bad = 1;
		return;
	}
	write_through(f, x, w, n);
	if (f->bad)
		return;
	/* the op's output is x after the write: a view of the same base */
	Val xv = *fn_val(f, x);
	onnxc_value r = fn_root(f, x);
	uint32_t now = fn_val(f, r)->rver;
	*fn_val(f, w) = (Val){.root = r, .parent = xv.parent, .view = xv.view,
	    .inv = xv.inv, .contig = xv.contig, .multi = xv.multi,
	    .mdim = xv.mdim, .mstart = xv.mstart, .mend = xv.mend,
	    .ver = now};
	if (!xv.parent)
		fn_val(f, r)->cur = w;
	fn_val(f, ni->out)->remap = w;
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
	while (fn_get(f, v)->remap)
		v = fn_get(f, v)->remap;
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
		const char *op = fn_opname(f, &ni);
		onnxc_value x = logical_first(f, n, &ni);
		refresh_node(f, n, &ni);
		if (f->bad)
			break;
		if (functional(op, fop, sizeof fop))
			rewrite_inplace(f, n, &ni, fop, x);
		else if (x && (fn_view(op) || fn_is_multiview(op)))
			track(f, n, &ni, op, x);
	}
	uint32_t nout = h->output_count(f->ctx, f->g);
	for (uint32_t i = 0; i < nout && !f->bad; i++) {
		onnxc_value v = h->output_at(f->ctx, f->g, i), w = v;
		while (fn_get(f, w)->remap)
			w = fn_get(f, w)->remap;
		w = fn_regen(f, w);
		if (!f->bad && w != v && h->output_set(f->ctx, f->g, i, w) !=
		    ONNXC_OK)
			f->bad = 1;
	}
}

/* onnxc_no_op_concerns: an in-place op (or one the host cannot name).
 * With none in graph g and its bodies nothing is written through a view,
 * every value reads as itself and the sweep would change nothing. */
static int
inplace(void *arg, onnxc_str op)
{
	const Fn *f = arg;
	const char *s = f->h->str(f->ctx, op);
	char fop[256];
	return !s || functional(s, fop, sizeof fop);
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
	if (onnxc_no_op_concerns(ctx, host, f.g, inplace, &f))
		return ONNXC_OK;
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
	.needs = ONNXC_PROP_FX,
	.provides = ONNXC_PROP_FUNCTIONAL,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(functionalize, "functionalize", "1.0", init, NULL);
