/* vmap.c - the inline pass's handling of torch.vmap's pre-dispatch helpers.
 *
 * torch.export's training IR keeps torch.vmap as calls into
 * torch._functorch.predispatch: lazy_load_decompositions() and
 * _vmap_increment_nesting/_vmap_decrement_nesting only set up state (their
 * results are unused), and are dropped.  _add_batch_dim(x, in_dim, level)
 * makes the per-sample view of x, on which the body's ops run;
 * _remove_batch_dim(v, level, size, out_dim) stacks the per-sample results.
 * A region is exact with the batch dim moved to the front where each
 * per-sample op is: elementwise (each batched operand then has one more
 * leading dim, which broadcasting lines up when every batched operand has
 * the output's per-sample rank and every other one no more); along given
 * dims of its one batched tensor (those dims >= 0 move one on); or a
 * product (matmul, linear) broadcasting over the leading dims of its
 * batched first operand, or matmul of two batched operands (the lower
 * rank padded with 1s after the level dims), or linear with a batched
 * weight or bias (ensembles: matmul(x, w^T) + b); or a view of its batched
 * argument 0 (reshape and view gain the level sizes in front, the dims
 * of transpose, unsqueeze, squeeze, select, slice, flatten and narrow
 * move past the level dims, permute/t/numpy_T keep them first); an
 * elementwise operand of lower per-sample rank broadcasts through 1s
 * after its level dims; or index.Tensor of an unbatched tensor by
 * batched indices, one per leading dim (transformers' padding masks,
 * which the frontend reads from flat_apply(ModIndex)).  Nodes whose
 * results nothing live reads are dropped, not batched (functorch leaves
 * a dead unsqueeze/expand).  Nested vmaps (levels) each add a dim: a value
 * holds one per level it is batched at, outer first (an operand lacking
 * one gets a dim of 1 there); a result not batched at the level it leaves
 * is expanded, as PyTorch does (to a symbolic size too).  A level's
 * batch size holds from its first _add_batch_dim until the next vmap at
 * that depth begins.  Other regions are an error naming vmap: they would
 * need PyTorch's batching rules.
 *
 * One sweep in graph order: a value is batched when an operand is.
 * vmap_ops.c has the indexing, view and two-sided product rewrites. */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include <onnxc/plugin.h>

#include "inline.h"
#include "vmap.h"

static const char PRE[] = "torch._functorch.predispatch::";

/* ops that set up state and compute nothing */
static const char *const helpers[] = {
	"lazy_load_decompositions", "_vmap_increment_nesting",
	"_vmap_decrement_nesting",
};

/* per-sample ops where the per-sample result is the batched one with the
 * batch dim in front (elementwise, broadcasting from the right) */
static const char *const elementwise[] = {
	"abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2",
	"atanh", "ceil", "clamp", "clamp_max", "clamp_min", "clone", "cos",
	"cosh", "div", "elu", "eq", "erf", "exp", "exp2", "expm1", "floor",
	"ge", "gelu", "gt", "hardsigmoid", "hardswish", "hardtanh", "le",
	"leaky_relu", "log", "log10", "log1p", "log2", "logical_and",
	"logical_not", "logical_or", "lt", "maximum", "minimum", "mish", "mul",
	"ne", "neg", "pow", "reciprocal", "relu", "relu6", "round", "rsqrt",
	"rsub", "selu", "sigmoid", "sign", "silu", "sin", "sinh", "softplus",
	"sqrt", "square", "sub", "tan", "tanh", "trunc", "where", "__and__",
	"__or__", "__xor__", "bitwise_and", "bitwise_or", "bitwise_xor",
	"bitwise_not", "logical_xor", "remainder", "fmod", "to", "_to_copy",
	"alias", "detach", "contiguous", "zeros_like", "ones_like",
	"full_like", "empty_like",
};

/* per-sample ops that read only the dtype of their batched argument 0:
 * new_ones(x, size) is the same ones for every sample, so it stays
 * unbatched (PyTorch batches it, broadcasting gives the same values);
 * _assert_tensor_metadata checks the dtype and has no result */
static const char *const dtype_only[] = {
	"new_empty", "new_full", "new_ones", "new_zeros",
	"_assert_tensor_metadata",
};

/* per-sample ops along a dim (argument 1, or kwarg dim; an int or a
 * list): exact on the batched tensor with the dims >= 0 one further on,
 * when only their tensor (argument 0) is batched */
static const char *const along[] = {
	"amax", "amin", "cumsum", "log_softmax", "logsumexp", "mean", "softmax",
	"sum",
};

/* per-sample ops whose batched form broadcasts over leading dims of
 * argument 0 when only that one is batched: x @ w, x w^T + b */
static const char *const leading[] = {"linear", "matmul"};

/* per-sample views whose dims move past the level dims (argument 0
 * alone batched): the dims they name shift on, a shape gains the level
 * sizes in front, a transpose of all dims keeps the level dims first */
static const char *const views[] = {
	"flatten", "narrow", "numpy_T", "permute", "reshape", "select",
	"slice", "squeeze", "t", "transpose", "unsqueeze", "view",
	"_unsafe_view",
};

/* "aten::sin.default" -> is "sin" in names */
static int
base_in(const char *op, const char *const *names, size_t n)
{
	if (strncmp(op, "aten::", 6) != 0)
		return 0;
	op += 6;
	size_t len = strcspn(op, ".");
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(op, names[i], len))
			return 1;
	return 0;
}

int
inl_is_predispatch(const char *op)
{
	return op && !strncmp(op, PRE, sizeof PRE - 1);
}


/* Nested vmaps: a value batched at levels M holds one dim per level of
 * M, outer levels first, then its per-sample dims. */
int
vm_nlev(uint64_t m)
{
	int n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

/* room for value x in prank and mask (new values come past the end) */
int
vm_track(Vm *v, onnxc_value x)
{
	if (x < v->cap)
		return 1;
	uint32_t cap = v->cap * 2 > x + 1 ? v->cap * 2 : x + 1;
	int32_t *p = realloc(v->prank, cap * sizeof *p);
	if (p)
		v->prank = p;
	uint64_t *m = p ? realloc(v->mask, cap * sizeof *m) : NULL;
	if (!m)
		return 0;
	v->mask = m;
	memset(v->prank + v->cap, 0, (cap - v->cap) * sizeof *p);
	memset(v->mask + v->cap, 0, (cap - v->cap) * sizeof *m);
	v->cap = cap;
	return 1;
}

uint64_t
vm_mask_of(const Vm *v, onnxc_value x)
{
	return x < v->cap ? v->mask[x] : 0;
}

/* the level dims of mask m, outer first, into d: how many */
int
vm_level_dims(const Vm *v, uint64_t m, onnxc_dim *d)
{
	int k = 0;
	for (int l = 0; l < 64; l++)
		if (m >> l & 1)
			d[k++] = v->size[l];
	return k;
}

int32_t
vm_prank(const Vm *v, onnxc_value x)
{
	return x < v->cap ? v->prank[x] : 0;
}

int
vm_rank_of(Vm *v, onnxc_value x, onnxc_value_info *vi)
{
	if (v->h->value_get(v->ctx, v->g, x, vi) != ONNXC_OK ||
	    vi->kind != ONNXC_VK_TENSOR || vi->rank < 0 || vi->rank >= MAXRANK)
		return -1;
	return vi->rank;
}

/* x moved from dim `from` to dim `to` by a new movedim node (an alias
 * when they are one: a new value all the same, which alone is batched
 * where x is read outside the region too): its value */
static onnxc_value
movedim(Vm *v, onnxc_node at, onnxc_value x, int64_t from, int64_t to,
    const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_value_info vi;
	onnxc_dim d[MAXRANK], e[MAXRANK];
	int32_t r = vm_rank_of(v, x, &vi);
	if (r <= 0 || from < 0 || from >= r || to < 0 || to >= r ||
	    h->value_dims(v->ctx, v->g, x, d, (uint32_t)r) != ONNXC_OK)
		return 0;
	onnxc_node m = h->node_new(v->ctx, v->g, ONNXC_FX, NULL,
	    from == to ? "aten::alias.default" : "aten::movedim.int", 1);
	onnxc_arg a = {.kind = ONNXC_ARG_VALUE, .ref = x};
	onnxc_arg f = {.kind = ONNXC_ARG_INT, .i = from};
	onnxc_arg t = {.kind = ONNXC_ARG_INT, .i = to};
	onnxc_node_info mi;
	if (!m || h->node_push_arg(v->ctx, v->g, m, &a) != ONNXC_OK ||
	    (from != to && (h->node_push_arg(v->ctx, v->g, m, &f) != ONNXC_OK ||
	    h->node_push_arg(v->ctx, v->g, m, &t) != ONNXC_OK)) ||
	    h->node_get(v->ctx, v->g, m, &mi) != ONNXC_OK)
		return 0;
	for (int32_t i = 0, j = 0; i < r; i++) {   /* the dims without from */
		if (i != from)
			e[j++] = d[i];
	}
	memmove(e + to + 1, e + to, (size_t)(r - 1 - to) * sizeof *e);
	e[to] = d[from];
	h->node_set_origin(v->ctx, v->g, m, at);
	h->node_set_name(v->ctx, v->g, m, name);
	if (h->value_set_type(v->ctx, v->g, mi.out, vi.dtype, r, e) !=
	    ONNXC_OK)
		return 0;
	return mi.out;
}

/* x with a new dim at pos: unsqueeze, then expand to `size` (an int or
 * a symbolic size's value; the dim's type is sd), the other dims kept
 * (-1); only the unsqueeze when size is NULL */
onnxc_value
vm_expand_at(Vm *v, onnxc_node at, onnxc_value x, int64_t pos,
    const onnxc_arg *size, onnxc_dim sd, const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_value_info vi;
	onnxc_dim d[MAXRANK + 1];
	int32_t r = vm_rank_of(v, x, &vi);
	if (r < 0 || r >= MAXRANK || pos < 0 || pos > r ||
	    (r > 0 && h->value_dims(v->ctx, v->g, x, d, (uint32_t)r) !=
	    ONNXC_OK))
		return 0;
	memmove(d + pos + 1, d + pos, (size_t)(r - pos) * sizeof *d);
	d[pos] = (onnxc_dim){.n = 1};
	onnxc_arg items[MAXRANK + 1], list;
	onnxc_arg a = {.kind = ONNXC_ARG_VALUE, .ref = x};
	onnxc_arg p = {.kind = ONNXC_ARG_INT, .i = pos};
	onnxc_node_info ui, ei;
	onnxc_node u = h->node_new(v->ctx, v->g, ONNXC_FX, NULL,
	    "aten::unsqueeze.default", 1);
	if (!u || h->node_push_arg(v->ctx, v->g, u, &a) != ONNXC_OK ||
	    h->node_push_arg(v->ctx, v->g, u, &p) != ONNXC_OK ||
	    h->node_get(v->ctx, v->g, u, &ui) != ONNXC_OK ||
	    h->value_set_type(v->ctx, v->g, ui.out, vi.dtype, r + 1, d) !=
	    ONNXC_OK)
		return 0;
	h->node_set_origin(v->ctx, v->g, u, at);
	if (!size)
		return ui.out;   /* only the unsqueeze */
	for (int32_t i = 0; i <= r; i++)
		items[i] = i == pos ? *size :
		    (onnxc_arg){.kind = ONNXC_ARG_INT, .i = -1};
	items[pos].key = 0;
	if (h->make_list(v->ctx, v->g, ONNXC_ARG_LIST, items, (uint32_t)r + 1,
	    &list) != ONNXC_OK)
		return 0;
	a.ref = ui.out;
	onnxc_node e = h->node_new(v->ctx, v->g, ONNXC_FX, NULL,
	    "aten::expand.default", 1);
	d[pos] = sd;
	if (!e || h->node_push_arg(v->ctx, v->g, e, &a) != ONNXC_OK ||
	    h->node_push_arg(v->ctx, v->g, e, &list) != ONNXC_OK ||
	    h->node_get(v->ctx, v->g, e, &ei) != ONNXC_OK ||
	    h->value_set_type(v->ctx, v->g, ei.out, vi.dtype, r + 1, d) !=
	    ONNXC_OK)
		return 0;
	h->node_set_origin(v->ctx, v->g, e, at);
	h->node_set_name(v->ctx, v->g, e, name);
	return ei.out;
}

onnxc_status
vm_fail(Vm *v, onnxc_node n, const char *name, const char *why)
{
	v->h->report(v->ctx, ONNXC_SEV_ERROR, v->g, n,
	    "torch.vmap region at '%s' is not supported: %s; onnxc converts "
	    "vmap over elementwise ops, reductions along given dims, views "
	    "(reshape, transpose, permute, unsqueeze, ...), indexing by "
	    "batched indices and matmul/linear only: write the batched "
	    "computation without vmap", name, why);
	return ONNXC_ERROR;
}

/* _add_batch_dim(x, in_dim, level): x with the batch dim in front */
static onnxc_status
add_batch(Vm *v, onnxc_node n, const onnxc_node_info *ni, const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_arg x, d, l;
	onnxc_value_info vi;
	onnxc_dim dims[MAXRANK];
	if (h->node_arg(v->ctx, v->g, n, 0, &x) != ONNXC_OK ||
	    x.kind != ONNXC_ARG_VALUE ||
	    h->node_arg(v->ctx, v->g, n, 1, &d) != ONNXC_OK ||
	    d.kind != ONNXC_ARG_INT ||
	    h->node_arg(v->ctx, v->g, n, 2, &l) != ONNXC_OK ||
	    l.kind != ONNXC_ARG_INT)
		return vm_fail(v, n, name, "_add_batch_dim takes (tensor, int, int)");
	uint64_t mx = vm_mask_of(v, x.ref);
	if (l.i < 1 || l.i > 63 || mx >> l.i)
		return vm_fail(v, n, name, "vmap levels out of order");
	int k = vm_nlev(mx);   /* x's own level dims come first */
	int32_t r = vm_rank_of(v, x.ref, &vi);
	if (r <= k ||
	    h->value_dims(v->ctx, v->g, x.ref, dims, (uint32_t)r) != ONNXC_OK)
		return vm_fail(v, n, name, "the mapped input's rank is unknown");
	if (d.i < 0)
		d.i += r - k;
	if (d.i < 0 || d.i >= r - k)
		return vm_fail(v, n, name, "in_dim is not a dim of the mapped "
		    "input");
	uint64_t bit = (uint64_t)1 << l.i;
	onnxc_dim *s = &v->size[l.i];
	if (v->known & bit && (dims[k + d.i].e != s->e ||
	    dims[k + d.i].n != s->n))
		return vm_fail(v, n, name, "inputs of different batch sizes");
	v->known |= bit;
	*s = dims[k + d.i];
	onnxc_value y = movedim(v, n, x.ref, k + d.i, k, name);
	if (!y || !vm_track(v, y) ||
	    h->replace_uses(v->ctx, v->g, ni->out, y) != ONNXC_OK)
		return ONNXC_INVALID;
	v->prank[y] = r - k;  /* r - k - 1 per-sample dims, plus one */
	v->mask[y] = mx | bit;
	return h->node_erase(v->ctx, v->g, n);
}

/* _remove_batch_dim(v, level, size, out_dim): the batch dim to out_dim */
static onnxc_status
remove_batch(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_arg x, l, sz, o;
	if (h->node_arg(v->ctx, v->g, n, 0, &x) != ONNXC_OK ||
	    x.kind != ONNXC_ARG_VALUE ||
	    h->node_arg(v->ctx, v->g, n, 1, &l) != ONNXC_OK ||
	    l.kind != ONNXC_ARG_INT ||
	    h->node_arg(v->ctx, v->g, n, 2, &sz) != ONNXC_OK ||
	    h->node_arg(v->ctx, v->g, n, 3, &o) != ONNXC_OK ||
	    o.kind != ONNXC_ARG_INT)
		return vm_fail(v, n, name, "_remove_batch_dim takes (tensor, int, "
		    "int, int)");
	uint64_t m = vm_mask_of(v, x.ref);
	uint64_t bit = l.i >= 1 && l.i <= 63 ? (uint64_t)1 << l.i : 0;
	if (!bit || m >> l.i > 1)
		return vm_fail(v, n, name, "vmap levels out of order");
	int k = vm_nlev(m & ~bit);  /* the outer level dims */
	int32_t pr = vm_prank(v, x.ref);
	onnxc_value_info vi;
	int32_t r = vm_rank_of(v, x.ref, &vi);
	onnxc_value y;
	if (o.i < 0 || r < k)
		return vm_fail(v, n, name, "a negative out_dim");
	if (m & bit) {
		/* a new value: the batched one may be read in the region */
		y = movedim(v, n, x.ref, k, k + o.i, name);
	} else {
		/* not batched at this level: PyTorch expands it */
		onnxc_dim sd = {.n = sz.i};
		if (sz.kind == ONNXC_ARG_VALUE && v->known & bit)
			sd = v->size[l.i];
		else if (sz.kind != ONNXC_ARG_INT)
			return vm_fail(v, n, name, "a result that does not depend "
			    "on the level's inputs, of a size not known");
		y = vm_expand_at(v, n, x.ref, k + o.i, &sz, sd, name);
	}
	if (!y || !vm_track(v, y))
		return ONNXC_INVALID;
	v->mask[y] = m & ~bit;   /* one per-sample dim more where batched */
	v->prank[y] = v->mask[y] ? pr + 1 : 0;
	if (h->replace_uses(v->ctx, v->g, ni->out, y) != ONNXC_OK)
		return ONNXC_INVALID;
	return h->node_erase(v->ctx, v->g, n);
}

/* dims d >= 0 `by` further on, in the integer or list a of node n's
 * argument i */
static int
shift_dim(Vm *v, onnxc_node n, uint32_t i, const onnxc_arg *a, int by)
{
	const onnxc_host_api *h = v->h;
	if (a->kind == ONNXC_ARG_INT) {
		onnxc_arg b = *a;
		b.i += b.i >= 0 ? by : 0;
		return h->node_set_arg(v->ctx, v->g, n, i, &b) == ONNXC_OK;
	}
	if (a->kind != ONNXC_ARG_LIST || a->len == 0 || a->len > MAXRANK)
		return 0;
	onnxc_arg items[MAXRANK], b;
	for (uint32_t k = 0; k < a->len; k++) {
		if (h->list_item(v->ctx, v->g, a, k, &items[k]) != ONNXC_OK ||
		    items[k].kind != ONNXC_ARG_INT)
			return 0;
		items[k].i += items[k].i >= 0 ? by : 0;
	}
	if (h->make_list(v->ctx, v->g, a->kind, items, a->len, &b) !=
	    ONNXC_OK)
		return 0;
	b.key = a->key;
	return h->node_set_arg(v->ctx, v->g, n, i, &b) == ONNXC_OK;
}

/* A node of `along` or `leading` whose argument 0 alone is batched: its
 * dims shifted past the batch dim (along); 0 when it does not fit. */
static int
first_only(Vm *v, onnxc_node n, const onnxc_node_info *ni, int dims)
{
	const onnxc_host_api *h = v->h;
	int dimat = -1;
	int32_t first = 0;
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a;
		onnxc_value_info ai;
		if (h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return 0;
		if (a.kind == ONNXC_ARG_VALUE && (i == 0) != !!vm_prank(v, a.ref))
			return 0;
		if (i == 0)
			first = vm_prank(v, a.ref) - 1;  /* its per-sample rank */
		/* another tensor's batch dims (those before its last two)
		 * must line up with the first's per-sample ones */
		int32_t ar = i > 0 && a.kind == ONNXC_ARG_VALUE ?
		    vm_rank_of(v, a.ref, &ai) : 0;
		if (ar > 2 && ar > first)
			return 0;
		if (a.kind == ONNXC_ARG_LIST && a.len && i != 1)
			return 0;   /* a list of tensors: not checked here */
		const char *key = a.key ? h->str(v->ctx, a.key) : NULL;
		if (dims && ((i == 1 && !a.key) || (key && !strcmp(key,
		    "dim"))))
			dimat = (int)i;
	}
	if (!dims)
		return 1;
	onnxc_arg d;
	onnxc_arg x;
	return dimat > 0 && h->node_arg(v->ctx, v->g, n, 0, &x) == ONNXC_OK &&
	    h->node_arg(v->ctx, v->g, n, (uint32_t)dimat, &d) == ONNXC_OK &&
	    shift_dim(v, n, (uint32_t)dimat, &d, vm_nlev(vm_mask_of(v, x.ref)));
}

/* x, batched at levels m of the levels all, with a dim of 1 for each
 * level it lacks, so that broadcasting lines the level dims up (0 when
 * the host refuses) */
onnxc_value
vm_aligned(Vm *v, onnxc_node n, onnxc_value x, uint64_t m, uint64_t all,
    const char *name)
{
	int pos = 0;
	for (int l = 1; l < 64 && m != all && x; l++) {
		uint64_t bit = (uint64_t)1 << l;
		if (!(all & bit))
			continue;
		if (!(m & bit))
			x = vm_expand_at(v, n, x, pos, NULL, (onnxc_dim){0}, name);
		pos++;
	}
	return x;
}

/* node ni's output, of per-sample rank r, batched at levels all: its type
 * gains their dims in front */
onnxc_status
vm_batched_out(Vm *v, const onnxc_node_info *ni, int32_t r, uint32_t dtype,
    uint64_t all)
{
	const onnxc_host_api *h = v->h;
	onnxc_dim d[2 * MAXRANK];
	int k = vm_level_dims(v, all, d);
	if ((r > 0 && h->value_dims(v->ctx, v->g, ni->out, d + k,
	    (uint32_t)r) != ONNXC_OK) || h->value_set_type(v->ctx, v->g,
	    ni->out, dtype, r + k, d) != ONNXC_OK)
		return ONNXC_INVALID;
	if (!vm_track(v, ni->out))
		return ONNXC_NOMEM;
	v->prank[ni->out] = r + 1;
	v->mask[ni->out] = all;
	return ONNXC_OK;
}

/* whether n has a dim argument (arg 2 or kwarg dim) that is not None */
static bool
has_dim(Vm *v, onnxc_node n, const onnxc_node_info *ni)
{
	for (uint32_t i = 1; i < ni->nargs; i++) {
		onnxc_arg a;
		if (v->h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return true;
		const char *key = a.key ? v->h->str(v->ctx, a.key) : NULL;
		if (((i == 2 && !key) || (key && !strcmp(key, "dim"))) &&
		    a.kind != ONNXC_ARG_NONE)
			return true;
	}
	return false;
}

/* A node with batched operands: an elementwise one, or one of `along` or
 * `leading` fit for the batched tensor; outputs batched, typed with the
 * batch dim in front. */
onnxc_status
vm_node(Vm *v, onnxc_node n, const onnxc_node_info *ni, const char *op,
    const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_value_info vi;
	int32_t r = ni->nout == 1 ? vm_rank_of(v, ni->out, &vi) : -1;
	int dims = base_in(op, along, sizeof along / sizeof *along);
	int lead = base_in(op, leading, sizeof leading / sizeof *leading);
	if (!strcmp(op, "aten::index.Tensor"))
		return vm_index(v, n, ni, name);
	if (!strcmp(op, "aten::sum.default") || !strcmp(op,
	    "aten::mean.default") || (!strcmp(op,
	    "aten::linalg_vector_norm.default") && !has_dim(v, n, ni)))
		return vm_full_reduce(v, n, ni, op, name);
	if (!strcmp(op, "aten::outer.default") || !strcmp(op,
	    "aten::ger.default") || !strcmp(op, "aten::trace.default"))
		return vm_outer_trace(v, n, ni, op, name);
	if (base_in(op, views, sizeof views / sizeof *views))
		return vm_view(v, n, ni, op, name);
	if ((!strcmp(op, "aten::matmul.default") ||
	    !strcmp(op, "aten::bmm.default")) && !first_only(v, n, ni, 0))
		return vm_matmul(v, n, ni, name);
	if (!strcmp(op, "aten::linear.default") && !first_only(v, n, ni, 0))
		return vm_linear(v, n, ni, name);
	if (base_in(op, dtype_only, sizeof dtype_only / sizeof *dtype_only)) {
		for (uint32_t i = 1; i < ni->nargs; i++) {
			onnxc_arg a;
			if (h->node_arg(v->ctx, v->g, n, i, &a) == ONNXC_OK &&
			    a.kind == ONNXC_ARG_VALUE && vm_prank(v, a.ref))
				return vm_fail(v, n, name, "a batched size or "
				    "fill value");
		}
		return ONNXC_OK;
	}
	if (!dims && !lead &&
	    !base_in(op, elementwise, sizeof elementwise / sizeof *elementwise))
		return vm_fail(v, n, name, "its per-sample op is not elementwise, "
		    "along a dim or a product with the batched operand first");
	if (r < 0)
		return vm_fail(v, n, name, "a per-sample result of unknown rank");
	if ((dims || lead) && !first_only(v, n, ni, dims))
		return vm_fail(v, n, name, "only its first operand may be "
		    "batched, and a reduction needs its dims given");
	uint64_t all = 0;
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a;
		onnxc_value_info ai;
		if (h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return ONNXC_INVALID;
		if (!dims && !lead && (a.kind == ONNXC_ARG_LIST ||
		    a.kind == ONNXC_ARG_TUPLE))
			return vm_fail(v, n, name, "a list operand");
		if (a.kind != ONNXC_ARG_VALUE)
			continue;
		all |= vm_mask_of(v, a.ref);
		int32_t ar = vm_rank_of(v, a.ref, &ai);
		int32_t pr = vm_prank(v, a.ref);
		if (!dims && !lead && (pr ? pr - 1 > r :
		    ai.kind == ONNXC_VK_TENSOR && ar > r))
			return vm_fail(v, n, name, "operands whose per-sample "
			    "ranks differ");
	}
	for (uint32_t i = 0; !dims && !lead && i < ni->nargs; i++) {
		onnxc_arg a;
		uint64_t m;
		if (h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return ONNXC_INVALID;
		if (a.kind != ONNXC_ARG_VALUE || !(m = vm_mask_of(v, a.ref)))
			continue;
		/* a batched operand of lower per-sample rank broadcasts
		 * against the result's: 1s between its level dims and its
		 * own */
		onnxc_value x = vm_aligned(v, n, a.ref, m, all, name);
		for (int32_t pr = vm_prank(v, a.ref) - 1; x && pr < r; pr++)
			x = vm_expand_at(v, n, x, vm_nlev(all), NULL, (onnxc_dim){0},
			    name);
		if (!x)
			return ONNXC_INVALID;
		a.ref = x;
		if (h->node_set_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return ONNXC_INVALID;
	}
	return vm_batched_out(v, ni, r, vi.dtype, all);
}

/* whether an argument of n, or an item of a list argument, is batched */
static int
any_batched(Vm *v, onnxc_node n, const onnxc_node_info *ni)
{
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a, it;
		if (v->h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			continue;
		if (a.kind == ONNXC_ARG_VALUE && vm_prank(v, a.ref))
			return 1;
		if (a.kind != ONNXC_ARG_LIST && a.kind != ONNXC_ARG_TUPLE)
			continue;
		for (uint32_t k = 0; k < a.len; k++)
			if (v->h->list_item(v->ctx, v->g, &a, k, &it) ==
			    ONNXC_OK && it.kind == ONNXC_ARG_VALUE &&
			    vm_prank(v, it.ref))
				return 1;
	}
	return 0;
}

/* whether node n may act beyond its results: not aten, no results, or
 * in place (a name ending in one '_') */
static int
effects(const char *op, uint32_t nout)
{
	if (!op || strncmp(op, "aten::", 6) || !nout)
		return 1;
	size_t len = strcspn(op + 6, ".");
	return len >= 2 && op[6 + len - 1] == '_' && op[6 + len - 2] != '_';
}

static void
mark_live(Vm *v, uint8_t *live, const onnxc_arg *a, int depth)
{
	if (a->kind == ONNXC_ARG_VALUE && a->ref < v->cap) {
		live[a->ref] = 1;
	} else if ((a->kind == ONNXC_ARG_LIST || a->kind == ONNXC_ARG_TUPLE) &&
	    depth < 8) {
		for (uint32_t k = 0; k < a->len; k++) {
			onnxc_arg it;
			if (v->h->list_item(v->ctx, v->g, a, k, &it) == ONNXC_OK)
				mark_live(v, live, &it, depth + 1);
		}
	}
}

/* dead[n]: node n computes only what nothing reads, through live nodes
 * to the graph's outputs (functorch leaves such expands behind: a vmap
 * region's dead code need not batch).  One sweep back over the graph. */
static uint8_t *
find_dead(Vm *v, uint32_t end)
{
	const onnxc_host_api *h = v->h;
	uint8_t *live = calloc(v->cap, 1), *dead = calloc(end + 1, 1);
	if (!live || !dead) {
		free(live);
		free(dead);
		return NULL;
	}
	for (uint32_t i = 0, no = h->output_count(v->ctx, v->g); i < no; i++) {
		onnxc_value o = h->output_at(v->ctx, v->g, i);
		if (o < v->cap)
			live[o] = 1;
	}
	for (onnxc_node n = end; n-- > 1;) {
		onnxc_node_info ni;
		if (h->node_get(v->ctx, v->g, n, &ni) != ONNXC_OK)
			continue;
		int keep = effects(h->str(v->ctx, ni.op), ni.nout);
		for (uint32_t k = 0; k < ni.nout && !keep; k++)
			keep = ni.out + k < v->cap && live[ni.out + k];
		dead[n] = !keep;
		for (uint32_t i = 0; keep && i < ni.nargs; i++) {
			onnxc_arg a;
			if (h->node_arg(v->ctx, v->g, n, i, &a) == ONNXC_OK)
				mark_live(v, live, &a, 0);
		}
	}
	free(live);
	return dead;
}

onnxc_status
inl_predispatch(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g)
{
	Vm v = {.ctx = ctx, .h = h, .g = g};
	uint32_t end = h->node_end(ctx, g);
	v.cap = h->value_end(ctx, g) + 1;
	v.prank = calloc(v.cap, sizeof *v.prank);
	v.mask = calloc(v.cap, sizeof *v.mask);
	if (!v.prank || !v.mask) {
		free(v.prank);
		free(v.mask);
		return ONNXC_NOMEM;
	}
	onnxc_status s = ONNXC_OK;
	uint8_t *dead = NULL;
	onnxc_node *drop = NULL;
	uint32_t ndrop = 0;
	for (onnxc_node n = 1; s == ONNXC_OK && n < end; n++) {
		onnxc_node_info ni;
		if (h->node_get(ctx, g, n, &ni) != ONNXC_OK ||
		    ni.dialect != ONNXC_FX)
			continue;
		const char *o = h->str(ctx, ni.op);
		if (!dead && inl_is_predispatch(o) && (!(dead = find_dead(&v,
		    end)) || !(drop = malloc(end * sizeof *drop)))) {
			s = ONNXC_NOMEM;
			break;
		}
		const char *op = h->str(ctx, ni.op);
		const char *name = h->str(ctx, ni.name);
		if (!op)
			continue;
		if (inl_is_predispatch(op)) {
			const char *f = op + sizeof PRE - 1;
			size_t k = 0;
			while (k < sizeof helpers / sizeof *helpers &&
			    strcmp(f, helpers[k]))
				k++;
			if (k < sizeof helpers / sizeof *helpers) {
				/* a level's size is set by its first
				 * _add_batch_dim, until its vmap ends: the
				 * next vmap at that depth may map another */
				if (!strcmp(f, "_vmap_increment_nesting") &&
				    v.depth < 63)
					v.known &= ~((uint64_t)1 << ++v.depth);
				else if (!strcmp(f, "_vmap_decrement_nesting") &&
				    v.depth > 0)
					v.depth--;
				for (uint32_t o = 0; o < ni.nout; o++)
					if (h->value_uses(ctx, g, ni.out + o))
						s = vm_fail(&v, n, name, "the "
						    "result of a helper is read");
				if (s == ONNXC_OK)
					s = h->node_erase(ctx, g, n);
			} else if (!strcmp(f, "_add_batch_dim")) {
				s = add_batch(&v, n, &ni, name);
			} else if (!strcmp(f, "_remove_batch_dim")) {
				s = remove_batch(&v, n, &ni, name);
			} else {
				h->report(ctx, ONNXC_SEV_ERROR, g, n,
				    "unsupported pre-dispatch helper '%s' "
				    "(torch.vmap or functorch transform)", op);
				s = ONNXC_ERROR;
			}
		} else if (any_batched(&v, n, &ni) && dead && dead[n]) {
			/* dropped, its consumers first; they are dead too and
			 * count as batched (-1) */
			drop[ndrop++] = n;
			for (uint32_t k = 0; k < ni.nout && s == ONNXC_OK; k++)
				if (vm_track(&v, ni.out + k))
					v.prank[ni.out + k] = -1;
				else
					s = ONNXC_NOMEM;
		} else if (any_batched(&v, n, &ni)) {
			s = vm_node(&v, n, &ni, op, name);
		}
	}
	while (s == ONNXC_OK && ndrop)
		s = h->node_erase(ctx, g, drop[--ndrop]);
	free(drop);
	free(dead);
	free(v.prank);
	free(v.mask);
	return s;
}
