/* vmap_ops.c - the vmap regions' ops beyond elementwise ones and
 * reductions (vmap.c): indexing by batched indices, views of a batched
 * tensor, products of two batched operands and linear with a batched
 * weight, each rewritten to run on the batched tensors with the level
 * dims in front. */
#include <stdbool.h>
#include <string.h>

#include <onnxc/plugin.h>

#include "vmap.h"

/* index.Tensor(x, [i0, i1, ...]) of an unbatched x by batched indices, one
 * per leading dim (no None): advanced indexing puts the indices'
 * broadcast shape first, so the batched indices, their level dims
 * aligned, give the batched result with the level dims in front.  Every
 * batched index has the same per-sample rank; an unbatched one no more. */
onnxc_status
vm_index(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_arg x, l, items[MAXRANK];
	onnxc_value_info vi, ai;
	int32_t r = ni->nout == 1 ? vm_rank_of(v, ni->out, &vi) : -1;
	if (ni->nargs != 2 || h->node_arg(v->ctx, v->g, n, 0, &x) !=
	    ONNXC_OK || x.kind != ONNXC_ARG_VALUE || vm_prank(v, x.ref) ||
	    h->node_arg(v->ctx, v->g, n, 1, &l) != ONNXC_OK ||
	    l.kind != ONNXC_ARG_LIST || l.len == 0 || l.len > MAXRANK || r < 0)
		return vm_fail(v, n, name, "an indexing of a batched tensor");
	uint64_t all = 0;
	int32_t p = -1;
	for (uint32_t k = 0; k < l.len; k++) {
		if (h->list_item(v->ctx, v->g, &l, k, &items[k]) != ONNXC_OK ||
		    items[k].kind != ONNXC_ARG_VALUE)
			return vm_fail(v, n, name, "an index list with None");
		int32_t pr = vm_prank(v, items[k].ref);
		all |= vm_mask_of(v, items[k].ref);
		if (pr && p >= 0 && pr - 1 != p)
			return vm_fail(v, n, name, "indices whose per-sample "
			    "ranks differ");
		if (pr)
			p = pr - 1;
	}
	for (uint32_t k = 0; k < l.len; k++) {
		uint64_t m = vm_mask_of(v, items[k].ref);
		if (!m && vm_rank_of(v, items[k].ref, &ai) > p)
			return vm_fail(v, n, name, "indices whose per-sample "
			    "ranks differ");
		if (m && m != all && !(items[k].ref = vm_aligned(v, n,
		    items[k].ref, m, all, name)))
			return ONNXC_INVALID;
	}
	onnxc_arg list;
	if (h->make_list(v->ctx, v->g, ONNXC_ARG_LIST, items, l.len, &list) !=
	    ONNXC_OK || h->node_set_arg(v->ctx, v->g, n, 1, &list) !=
	    ONNXC_OK)
		return ONNXC_INVALID;
	return vm_batched_out(v, ni, r, vi.dtype, all);
}

/* dim d of a per-sample rank p (negative from the end) as a dim of the
 * batched tensor with k level dims in front; -1 when out of range */
static int64_t
level_dim(int64_t d, int32_t p, int k)
{
	if (d < 0)
		d += p;
	return d < 0 || d >= p ? -1 : d + k;
}

/* A node of `views` on a batched argument 0 (batched_node's doc) */
onnxc_status
vm_view(Vm *v, onnxc_node n, const onnxc_node_info *ni, const char *op,
    const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_value_info vi;
	onnxc_arg x, a, items[MAXRANK + 64], list;
	int32_t r = ni->nout == 1 ? vm_rank_of(v, ni->out, &vi) : -1;
	if (r < 0 || h->node_arg(v->ctx, v->g, n, 0, &x) != ONNXC_OK ||
	    x.kind != ONNXC_ARG_VALUE || !vm_prank(v, x.ref))
		return vm_fail(v, n, name, "a view of a tensor not batched");
	for (uint32_t i = 1; i < ni->nargs; i++)
		if (h->node_arg(v->ctx, v->g, n, i, &a) == ONNXC_OK &&
		    a.kind == ONNXC_ARG_VALUE && vm_prank(v, a.ref))
			return vm_fail(v, n, name, "a batched size or index");
	uint64_t m = vm_mask_of(v, x.ref);
	int k = vm_nlev(m);
	int32_t p = vm_prank(v, x.ref) - 1;
	const char *base = op + 6;
	size_t len = strcspn(base, ".");
#define IS(s) (len == sizeof(s) - 1 && !strncmp(base, s, len))
	if (IS("numpy_T") || IS("t") || IS("permute")) {
		/* a new permute: the level dims, then the per-sample ones */
		int64_t perm[MAXRANK];
		int np = 0;
		if (IS("permute")) {
			if (h->node_arg(v->ctx, v->g, n, 1, &a) != ONNXC_OK ||
			    a.kind != ONNXC_ARG_LIST || (int32_t)a.len != p)
				return vm_fail(v, n, name, "permute's dims");
			for (uint32_t i = 0; i < a.len; i++)
				if (h->list_item(v->ctx, v->g, &a, i, &items[0]) !=
				    ONNXC_OK || items[0].kind != ONNXC_ARG_INT ||
				    (perm[np++] = level_dim(items[0].i, p, 0)) < 0)
					return vm_fail(v, n, name, "permute's dims");
		} else {
			for (int32_t i = p - 1; i >= 0; i--)
				perm[np++] = i;   /* t of rank < 2 is the same */
		}
		for (int i = 0; i < k + np; i++)
			items[i] = (onnxc_arg){.kind = ONNXC_ARG_INT,
				.i = i < k ? i : perm[i - k] + k};
		onnxc_node pn = h->node_new(v->ctx, v->g, ONNXC_FX, NULL,
		    "aten::permute.default", 1);
		onnxc_node_info pi;
		if (!pn || h->make_list(v->ctx, v->g, ONNXC_ARG_LIST, items,
		    (uint32_t)(k + np), &list) != ONNXC_OK ||
		    h->node_push_arg(v->ctx, v->g, pn, &x) != ONNXC_OK ||
		    h->node_push_arg(v->ctx, v->g, pn, &list) != ONNXC_OK ||
		    h->node_get(v->ctx, v->g, pn, &pi) != ONNXC_OK)
			return ONNXC_INVALID;
		h->node_set_origin(v->ctx, v->g, pn, n);
		h->node_set_name(v->ctx, v->g, pn, name);
		onnxc_dim d[MAXRANK];
		if ((r > 0 && h->value_dims(v->ctx, v->g, ni->out, d,
		    (uint32_t)r) != ONNXC_OK) || h->value_set_type(v->ctx,
		    v->g, pi.out, vi.dtype, r, d) != ONNXC_OK ||
		    h->replace_uses(v->ctx, v->g, ni->out, pi.out) != ONNXC_OK)
			return ONNXC_INVALID;
		onnxc_status st = vm_batched_out(v, &pi, r, vi.dtype, m);
		return st == ONNXC_OK ? h->node_erase(v->ctx, v->g, n) : st;
	}
	if (IS("reshape") || IS("view") || IS("_unsafe_view")) {
		/* the level sizes in front of the per-sample shape */
		onnxc_dim ld[64];
		vm_level_dims(v, m, ld);
		if (h->node_arg(v->ctx, v->g, n, 1, &a) != ONNXC_OK ||
		    a.kind != ONNXC_ARG_LIST || a.len > MAXRANK)
			return vm_fail(v, n, name, "a shape that is not a list");
		for (int i = 0; i < k; i++) {
			if (ld[i].e)
				return vm_fail(v, n, name, "a reshape at a "
				    "symbolic batch size");
			items[i] = (onnxc_arg){.kind = ONNXC_ARG_INT,
				.i = ld[i].n};
		}
		for (uint32_t i = 0; i < a.len; i++)
			if (h->list_item(v->ctx, v->g, &a, i, &items[k + i]) !=
			    ONNXC_OK)
				return ONNXC_INVALID;
		if (h->make_list(v->ctx, v->g, ONNXC_ARG_LIST, items,
		    (uint32_t)k + a.len, &list) != ONNXC_OK ||
		    h->node_set_arg(v->ctx, v->g, n, 1, &list) != ONNXC_OK)
			return ONNXC_INVALID;
		return vm_batched_out(v, ni, r, vi.dtype, m);
	}
	/* dims in arguments: transpose (1, 2), unsqueeze (1, of rank p + 1),
	 * flatten (1, 2), squeeze.dim(s), select, slice, narrow (1) */
	uint32_t last = IS("transpose") || IS("flatten") ? 2 : 1;
	if (IS("squeeze") && ni->nargs < 2)
		return vm_fail(v, n, name, "a squeeze of every dim");
	for (uint32_t i = 1; i <= last; i++) {
		if (h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return vm_fail(v, n, name, "a dim not given");
		int32_t pp = IS("unsqueeze") ? p + 1 : p;
		if (a.kind == ONNXC_ARG_INT) {
			a.i = level_dim(a.i, pp, k);
		} else if (a.kind == ONNXC_ARG_LIST && a.len <= MAXRANK) {
			for (uint32_t j = 0; j < a.len; j++)
				if (h->list_item(v->ctx, v->g, &a, j, &items[j]) !=
				    ONNXC_OK || items[j].kind != ONNXC_ARG_INT ||
				    (items[j].i = level_dim(items[j].i, pp, k)) < 0)
					return vm_fail(v, n, name, "a dim out of "
					    "range");
			onnxc_arg b;
			if (h->make_list(v->ctx, v->g, a.kind, items, a.len,
			    &b) != ONNXC_OK)
				return ONNXC_INVALID;
			b.key = a.key;
			a = b;
		} else {
			return vm_fail(v, n, name, "a dim not given");
		}
		if (a.kind == ONNXC_ARG_INT && a.i < 0)
			return vm_fail(v, n, name, "a dim out of range");
		if (h->node_set_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return ONNXC_INVALID;
	}
#undef IS
	return vm_batched_out(v, ni, r, vi.dtype, m);
}

/* matmul/bmm of two operands of per-sample rank 2 or more, either or both
 * batched: their level dims aligned in front, the one of lower rank padded
 * with 1s after them, so that matmul's batch broadcasting lines up */
onnxc_status
vm_matmul(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_value_info vi, ai;
	onnxc_arg a[2];
	int32_t pr[2], r = ni->nout == 1 ? vm_rank_of(v, ni->out, &vi) : -1;
	uint64_t all = 0;
	if (ni->nargs != 2 || r < 2)
		return vm_fail(v, n, name, "a product of vectors");
	for (int i = 0; i < 2; i++) {
		if (h->node_arg(v->ctx, v->g, n, (uint32_t)i, &a[i]) !=
		    ONNXC_OK || a[i].kind != ONNXC_ARG_VALUE)
			return ONNXC_INVALID;
		pr[i] = vm_prank(v, a[i].ref) ? vm_prank(v, a[i].ref) - 1 :
		    vm_rank_of(v, a[i].ref, &ai);
		if (pr[i] < 2)
			return vm_fail(v, n, name, "a product of vectors");
		all |= vm_mask_of(v, a[i].ref);
	}
	for (int i = 0; i < 2; i++) {
		uint64_t m = vm_mask_of(v, a[i].ref);
		onnxc_value x = a[i].ref;
		int pos = vm_nlev(all);
		if (m != all) {
			/* an unbatched operand: 1s for every level dim */
			x = m ? vm_aligned(v, n, x, m, all, name) : x;
			for (int l = 0; !m && x && l < pos; l++)
				x = vm_expand_at(v, n, x, 0, NULL, (onnxc_dim){0},
				    name);
		}
		for (int32_t k = pr[i]; x && k < pr[1 - i]; k++)
			x = vm_expand_at(v, n, x, pos, NULL, (onnxc_dim){0}, name);
		if (!x)
			return ONNXC_INVALID;
		a[i].ref = x;
		if (h->node_set_arg(v->ctx, v->g, n, (uint32_t)i, &a[i]) !=
		    ONNXC_OK)
			return ONNXC_INVALID;
	}
	return vm_batched_out(v, ni, r, vi.dtype, all);
}


/* A new FX node op(args) at node `at`'s place, its one output typed as
 * value `like` (the per-sample type); its info in *ni. */
static onnxc_node
new_node(Vm *v, onnxc_node at, const char *op, const onnxc_arg *args,
    int nargs, onnxc_value like, const char *name, onnxc_node_info *ni)
{
	const onnxc_host_api *h = v->h;
	onnxc_value_info vi;
	onnxc_dim d[MAXRANK];
	int32_t r = vm_rank_of(v, like, &vi);
	onnxc_node m = h->node_new(v->ctx, v->g, ONNXC_FX, NULL, op, 1);
	if (!m || r < 0 || (r > 0 && h->value_dims(v->ctx, v->g, like, d,
	    (uint32_t)r) != ONNXC_OK))
		return 0;
	for (int i = 0; i < nargs; i++)
		if (h->node_push_arg(v->ctx, v->g, m, &args[i]) != ONNXC_OK)
			return 0;
	if (h->node_get(v->ctx, v->g, m, ni) != ONNXC_OK ||
	    h->value_set_type(v->ctx, v->g, ni->out, vi.dtype, r, d) !=
	    ONNXC_OK)
		return 0;
	h->node_set_origin(v->ctx, v->g, m, at);
	h->node_set_name(v->ctx, v->g, m, name);
	return m;
}

/* linear(x, w, b) whose weight or bias is batched (ensembles: torch.func's
 * functional_call over stacked parameters): matmul(x, transpose(w, -1,
 * -2)) + b, each new node batched as vm_node does it */
onnxc_status
vm_linear(Vm *v, onnxc_node n, const onnxc_node_info *ni, const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_arg x, w, b = {.kind = ONNXC_ARG_NONE};
	onnxc_value_info wi;
	if (h->node_arg(v->ctx, v->g, n, 0, &x) != ONNXC_OK ||
	    h->node_arg(v->ctx, v->g, n, 1, &w) != ONNXC_OK ||
	    x.kind != ONNXC_ARG_VALUE || w.kind != ONNXC_ARG_VALUE ||
	    (ni->nargs > 2 && h->node_arg(v->ctx, v->g, n, 2, &b) !=
	    ONNXC_OK) || vm_rank_of(v, w.ref, &wi) < 2)
		return vm_fail(v, n, name, "linear's operands");
	/* w^T, batched as w is: the last two dims swapped */
	onnxc_dim d[MAXRANK];
	int32_t wr = wi.rank;
	if (h->value_dims(v->ctx, v->g, w.ref, d, (uint32_t)wr) != ONNXC_OK)
		return ONNXC_INVALID;
	onnxc_dim t = d[wr - 1];
	d[wr - 1] = d[wr - 2];
	d[wr - 2] = t;
	onnxc_arg targs[3] = {w, {.kind = ONNXC_ARG_INT, .i = -1},
		{.kind = ONNXC_ARG_INT, .i = -2}};
	onnxc_node tn = h->node_new(v->ctx, v->g, ONNXC_FX, NULL,
	    "aten::transpose.int", 1);
	onnxc_node_info ti, mi, ai;
	for (int i = 0; tn && i < 3; i++)
		if (h->node_push_arg(v->ctx, v->g, tn, &targs[i]) != ONNXC_OK)
			tn = 0;
	if (!tn || h->node_get(v->ctx, v->g, tn, &ti) != ONNXC_OK ||
	    h->value_set_type(v->ctx, v->g, ti.out, wi.dtype, wr, d) !=
	    ONNXC_OK || !vm_track(v, ti.out))
		return ONNXC_INVALID;
	h->node_set_origin(v->ctx, v->g, tn, n);
	v->prank[ti.out] = vm_prank(v, w.ref);
	v->mask[ti.out] = vm_mask_of(v, w.ref);
	/* x @ w^T, typed per sample as linear's result */
	onnxc_arg margs[2] = {x, {.kind = ONNXC_ARG_VALUE, .ref = ti.out}};
	onnxc_node mn = new_node(v, n, "aten::matmul.default", margs, 2,
	    ni->out, name, &mi);
	onnxc_status st = mn ? vm_node(v, mn, &mi, "aten::matmul.default",
	    name) : ONNXC_INVALID;
	onnxc_value y = mi.out;
	if (st == ONNXC_OK && b.kind == ONNXC_ARG_VALUE) {
		onnxc_arg aargs[2] = {{.kind = ONNXC_ARG_VALUE, .ref = y}, b};
		onnxc_node an = new_node(v, n, "aten::add.Tensor", aargs, 2,
		    ni->out, name, &ai);
		/* the matmul's result, batched, typed per sample for add */
		st = an ? vm_node(v, an, &ai, "aten::add.Tensor", name) :
		    ONNXC_INVALID;
		y = ai.out;
	}
	if (st != ONNXC_OK)
		return st;
	if (h->replace_uses(v->ctx, v->g, ni->out, y) != ONNXC_OK)
		return ONNXC_INVALID;
	return h->node_erase(v->ctx, v->g, n);
}

/* a new one-output FX node op(args[0..na)) at n, of per-sample type
 * dtype [pd[0..r)] batched at levels m (vm_batched_out); its result, 0
 * when the host refuses */
static onnxc_value
new_batched(Vm *v, onnxc_node n, const char *op, const onnxc_arg *args,
    int na, int32_t r, const onnxc_dim *pd, uint32_t dtype, uint64_t m,
    const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_node x = h->node_new(v->ctx, v->g, ONNXC_FX, NULL, op, 1);
	onnxc_node_info xi;
	for (int i = 0; x && i < na; i++)
		if (h->node_push_arg(v->ctx, v->g, x, &args[i]) != ONNXC_OK)
			x = 0;
	if (!x || h->node_get(v->ctx, v->g, x, &xi) != ONNXC_OK ||
	    h->value_set_type(v->ctx, v->g, xi.out, dtype, r, pd) != ONNXC_OK)
		return 0;
	h->node_set_origin(v->ctx, v->g, x, n);
	h->node_set_name(v->ctx, v->g, x, name);
	return vm_batched_out(v, &xi, r, dtype, m) == ONNXC_OK ? xi.out : 0;
}

/* A per-sample reduction over all of a batched x's dims (sum or mean of
 * x alone, a vector norm with no dim): a new node over its per-sample
 * dims only, which replaces n */
onnxc_status
vm_full_reduce(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *op, const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_arg x, a, list, args[4];
	onnxc_value_info vi;
	bool norm = !strcmp(op, "aten::linalg_vector_norm.default");
	if (h->node_arg(v->ctx, v->g, n, 0, &x) != ONNXC_OK ||
	    x.kind != ONNXC_ARG_VALUE || vm_prank(v, x.ref) < 1 ||
	    vm_rank_of(v, ni->out, &vi) < 0 || (!norm && ni->nargs != 1))
		return vm_fail(v, n, name, "a reduction of all dims with more "
		    "than its tensor");
	args[0] = x;
	args[0].key = 0;
	args[1] = (onnxc_arg){.kind = ONNXC_ARG_FLOAT, .f = 2};
	for (uint32_t i = 1; norm && i < ni->nargs; i++) {
		if (h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return ONNXC_INVALID;
		const char *key = a.key ? h->str(v->ctx, a.key) : NULL;
		if ((i == 1 && !key) || (key && !strcmp(key, "ord")))
			args[1] = a, args[1].key = 0;
		else if (a.kind != ONNXC_ARG_NONE && !(key && !strcmp(key,
		    "dim")) && !(i == 2 && !key))
			return vm_fail(v, n, name, "a vector norm with keepdim "
			    "or dtype");
	}
	uint64_t m = vm_mask_of(v, x.ref);
	int k = vm_nlev(m);
	int32_t p = vm_prank(v, x.ref) - 1;
	onnxc_arg items[MAXRANK];
	for (int32_t i = 0; i < p; i++)
		items[i] = (onnxc_arg){.kind = ONNXC_ARG_INT, .i = k + i};
	if (h->make_list(v->ctx, v->g, ONNXC_ARG_LIST, items, (uint32_t)p,
	    &list) != ONNXC_OK)
		return ONNXC_INVALID;
	onnxc_arg no = {.kind = ONNXC_ARG_BOOL, .i = 0};
	int na = 0;
	const char *nop = norm ? op : !strcmp(op, "aten::sum.default")
	    ? "aten::sum.dim_IntList" : "aten::mean.dim";
	args[na++] = args[0];
	if (norm)
		na++;   /* ord, in args[1] */
	args[na++] = list;
	args[na++] = no;
	onnxc_value y = new_batched(v, n, nop, args, na, 0, NULL, vi.dtype, m,
	    name);
	if (!y || h->replace_uses(v->ctx, v->g, ni->out, y) != ONNXC_OK)
		return ONNXC_INVALID;
	return h->node_erase(v->ctx, v->g, n);
}

/* outer(a, b) and trace(x) of batched operands, which broadcasting and
 * the per-sample dims express: a[..., :, None] * b[..., None, :], and
 * the sum of diagonal(x) over the last two dims */
onnxc_status
vm_outer_trace(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *op, const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_arg a[2];
	onnxc_value_info vi;
	bool outer = strcmp(op, "aten::trace.default") != 0;
	uint32_t na = outer ? 2 : 1;
	uint64_t m = 0;
	if (ni->nargs != na || vm_rank_of(v, ni->out, &vi) < 0)
		return vm_fail(v, n, name, "an outer product or trace");
	for (uint32_t i = 0; i < na; i++) {
		if (h->node_arg(v->ctx, v->g, n, i, &a[i]) != ONNXC_OK ||
		    a[i].kind != ONNXC_ARG_VALUE)
			return ONNXC_INVALID;
		uint64_t mi = vm_mask_of(v, a[i].ref);
		if (mi && m && mi != m)
			return vm_fail(v, n, name, "an outer product of "
			    "operands batched at different levels");
		m |= mi;
		a[i].key = 0;
	}
	int k = vm_nlev(m);
	onnxc_value y;
	if (outer) {
		/* a as [.., n, 1], b as [.., 1, m]: the level dims lead
		 * either, or the unbatched one broadcasts */
		int ka = vm_mask_of(v, a[0].ref) ? k : 0;
		int kb = vm_mask_of(v, a[1].ref) ? k : 0;
		a[0].ref = vm_expand_at(v, n, a[0].ref, ka + 1, NULL,
		    (onnxc_dim){0}, name);
		a[1].ref = vm_expand_at(v, n, a[1].ref, kb, NULL,
		    (onnxc_dim){0}, name);
		if (!a[0].ref || !a[1].ref)
			return ONNXC_INVALID;
		onnxc_dim pd[2];
		if (h->value_dims(v->ctx, v->g, ni->out, pd, 2) != ONNXC_OK)
			return ONNXC_INVALID;
		y = new_batched(v, n, "aten::mul.Tensor", a, 2, 2, pd, vi.dtype,
		    m, name);
	} else {
		onnxc_arg d[4] = {a[0], {.kind = ONNXC_ARG_INT, .i = 0},
			{.kind = ONNXC_ARG_INT, .i = k},
			{.kind = ONNXC_ARG_INT, .i = k + 1}};
		/* the per-sample diagonal of a square [s, s]: [s] */
		onnxc_value_info xi;
		onnxc_dim xd[MAXRANK + 64];
		int32_t xr = vm_rank_of(v, a[0].ref, &xi);
		if (xr < 2 || xr > MAXRANK + 64 || h->value_dims(v->ctx, v->g,
		    a[0].ref, xd, (uint32_t)xr) != ONNXC_OK)
			return ONNXC_INVALID;
		onnxc_value dg = new_batched(v, n, "aten::diagonal.default", d, 4,
		    1, &xd[xr - 1], xi.dtype, m, name);
		onnxc_arg items[1] = {{.kind = ONNXC_ARG_INT, .i = k}}, list;
		if (!dg || h->make_list(v->ctx, v->g, ONNXC_ARG_LIST, items, 1,
		    &list) != ONNXC_OK)
			return ONNXC_INVALID;
		onnxc_arg s[3] = {{.kind = ONNXC_ARG_VALUE, .ref = dg}, list,
			{.kind = ONNXC_ARG_BOOL, .i = 0}};
		y = new_batched(v, n, "aten::sum.dim_IntList", s, 3, 0, NULL,
		    vi.dtype, m, name);
	}
	if (!y || h->replace_uses(v->ctx, v->g, ni->out, y) != ONNXC_OK)
		return ONNXC_INVALID;
	return h->node_erase(v->ctx, v->g, n);
}
