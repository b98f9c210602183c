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
 * batched first operand.  Other regions are an error naming vmap: they
 * would need PyTorch's batching rules.
 *
 * One sweep in graph order: a value is batched when an operand is. */
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>

#include "inline.h"

enum { MAXRANK = 64 };

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
	"sqrt", "square", "sub", "tan", "tanh", "trunc", "where",
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

typedef struct Vm {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	int32_t *prank;  /* value -> per-sample rank + 1 when batched, else 0 */
	uint32_t cap;
	onnxc_dim size;  /* the batch size of the region */
	int64_t level;
} Vm;

static int32_t
prank(const Vm *v, onnxc_value x)
{
	return x < v->cap ? v->prank[x] : 0;
}

static int
rank_of(Vm *v, onnxc_value x, onnxc_value_info *vi)
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
	int32_t r = rank_of(v, x, &vi);
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

static onnxc_status
fail(Vm *v, onnxc_node n, const char *name, const char *why)
{
	v->h->report(v->ctx, ONNXC_SEV_ERROR, v->g, n,
	    "torch.vmap region at '%s' is not supported: %s; onnxc converts "
	    "vmap over elementwise ops, reductions along given dims and "
	    "matmul/linear only: write the batched computation without "
	    "vmap", name, why);
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
		return fail(v, n, name, "_add_batch_dim takes (tensor, int, int)");
	if (prank(v, x.ref))
		return fail(v, n, name, "nested vmap");
	if (v->level && l.i != v->level)
		return fail(v, n, name, "two vmap levels in one program");
	int32_t r = rank_of(v, x.ref, &vi);
	if (r <= 0 ||
	    h->value_dims(v->ctx, v->g, x.ref, dims, (uint32_t)r) != ONNXC_OK)
		return fail(v, n, name, "the mapped input's rank is unknown");
	if (d.i < 0)
		d.i += r;
	if (d.i < 0 || d.i >= r)
		return fail(v, n, name, "in_dim is not a dim of the mapped "
		    "input");
	if (v->level && (dims[d.i].e != v->size.e ||
	    dims[d.i].n != v->size.n))
		return fail(v, n, name, "inputs of different batch sizes");
	v->level = l.i;
	v->size = dims[d.i];
	onnxc_value y = movedim(v, n, x.ref, d.i, 0, name);
	if (!y || y >= v->cap ||
	    h->replace_uses(v->ctx, v->g, ni->out, y) != ONNXC_OK)
		return ONNXC_INVALID;
	v->prank[y] = r;  /* r - 1 per-sample dims, plus one */
	return h->node_erase(v->ctx, v->g, n);
}

/* _remove_batch_dim(v, level, size, out_dim): the batch dim to out_dim */
static onnxc_status
remove_batch(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_arg x, o;
	if (h->node_arg(v->ctx, v->g, n, 0, &x) != ONNXC_OK ||
	    x.kind != ONNXC_ARG_VALUE ||
	    h->node_arg(v->ctx, v->g, n, 3, &o) != ONNXC_OK ||
	    o.kind != ONNXC_ARG_INT)
		return fail(v, n, name, "_remove_batch_dim takes (tensor, int, "
		    "int, int)");
	if (!prank(v, x.ref))
		return fail(v, n, name, "an output that does not depend on "
		    "the mapped inputs");
	/* a new value: the batched one may be read in the region too */
	onnxc_value y = movedim(v, n, x.ref, 0, o.i, name);
	if (!y || h->replace_uses(v->ctx, v->g, ni->out, y) != ONNXC_OK)
		return ONNXC_INVALID;
	return h->node_erase(v->ctx, v->g, n);
}

/* dim d >= 0 one further on, in the integer a of node n's argument i */
static int
shift_dim(Vm *v, onnxc_node n, uint32_t i, const onnxc_arg *a)
{
	const onnxc_host_api *h = v->h;
	if (a->kind == ONNXC_ARG_INT) {
		onnxc_arg b = *a;
		b.i += b.i >= 0;
		return h->node_set_arg(v->ctx, v->g, n, i, &b) == ONNXC_OK;
	}
	if (a->kind != ONNXC_ARG_LIST || a->len == 0 || a->len > MAXRANK)
		return 0;
	onnxc_arg items[MAXRANK], b;
	for (uint32_t k = 0; k < a->len; k++) {
		if (h->list_item(v->ctx, v->g, a, k, &items[k]) != ONNXC_OK ||
		    items[k].kind != ONNXC_ARG_INT)
			return 0;
		items[k].i += items[k].i >= 0;
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
		if (a.kind == ONNXC_ARG_VALUE && (i == 0) != !!prank(v, a.ref))
			return 0;
		if (i == 0)
			first = prank(v, a.ref) - 1;  /* its per-sample rank */
		/* another tensor's batch dims (those before its last two)
		 * must line up with the first's per-sample ones */
		int32_t ar = i > 0 && a.kind == ONNXC_ARG_VALUE ?
		    rank_of(v, a.ref, &ai) : 0;
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
	return dimat > 0 && h->node_arg(v->ctx, v->g, n, (uint32_t)dimat,
	    &d) == ONNXC_OK && shift_dim(v, n, (uint32_t)dimat, &d);
}

/* A node with batched operands: an elementwise one, or one of `along` or
 * `leading` fit for the batched tensor; outputs batched, typed with the
 * batch dim in front. */
static onnxc_status
batched_node(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *op, const char *name)
{
	const onnxc_host_api *h = v->h;
	onnxc_value_info vi;
	int32_t r = ni->nout == 1 ? rank_of(v, ni->out, &vi) : -1;
	int dims = base_in(op, along, sizeof along / sizeof *along);
	int lead = base_in(op, leading, sizeof leading / sizeof *leading);
	if (!dims && !lead &&
	    !base_in(op, elementwise, sizeof elementwise / sizeof *elementwise))
		return fail(v, n, name, "its per-sample op is not elementwise, "
		    "along a dim or a product with the batched operand first");
	if (r < 0)
		return fail(v, n, name, "a per-sample result of unknown rank");
	if ((dims || lead) && !first_only(v, n, ni, dims))
		return fail(v, n, name, "only its first operand may be "
		    "batched, and a reduction needs its dims given");
	for (uint32_t i = 0; !dims && !lead && i < ni->nargs; i++) {
		onnxc_arg a;
		onnxc_value_info ai;
		if (h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			return ONNXC_INVALID;
		if (a.kind == ONNXC_ARG_LIST || a.kind == ONNXC_ARG_TUPLE)
			return fail(v, n, name, "a list operand");
		if (a.kind != ONNXC_ARG_VALUE)
			continue;
		int32_t ar = rank_of(v, a.ref, &ai);
		int32_t pr = prank(v, a.ref);
		if (pr ? pr - 1 != r : ai.kind == ONNXC_VK_TENSOR && ar > r)
			return fail(v, n, name, "operands whose per-sample "
			    "ranks differ");
	}
	onnxc_dim d[MAXRANK + 1];
	d[0] = v->size;
	if (r > 0 && h->value_dims(v->ctx, v->g, ni->out, d + 1,
	    (uint32_t)r) != ONNXC_OK)
		return ONNXC_INVALID;
	if (h->value_set_type(v->ctx, v->g, ni->out, vi.dtype, r + 1, d) !=
	    ONNXC_OK)
		return ONNXC_INVALID;
	if (ni->out >= v->cap)
		return ONNXC_INVALID;
	v->prank[ni->out] = r + 1;
	return ONNXC_OK;
}

/* whether an argument of n, or an item of a list argument, is batched */
static int
any_batched(Vm *v, onnxc_node n, const onnxc_node_info *ni)
{
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a, it;
		if (v->h->node_arg(v->ctx, v->g, n, i, &a) != ONNXC_OK)
			continue;
		if (a.kind == ONNXC_ARG_VALUE && prank(v, a.ref))
			return 1;
		if (a.kind != ONNXC_ARG_LIST && a.kind != ONNXC_ARG_TUPLE)
			continue;
		for (uint32_t k = 0; k < a.len; k++)
			if (v->h->list_item(v->ctx, v->g, &a, k, &it) ==
			    ONNXC_OK && it.kind == ONNXC_ARG_VALUE &&
			    prank(v, it.ref))
				return 1;
	}
	return 0;
}

onnxc_status
inl_predispatch(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g)
{
	Vm v = {.ctx = ctx, .h = h, .g = g};
	uint32_t end = h->node_end(ctx, g);
	/* each movedim node appended adds one value past value_end */
	v.cap = h->value_end(ctx, g) + end + 1;
	v.prank = calloc(v.cap, sizeof *v.prank);
	if (!v.prank)
		return ONNXC_NOMEM;
	onnxc_status s = ONNXC_OK;
	for (onnxc_node n = 1; s == ONNXC_OK && n < end; n++) {
		onnxc_node_info ni;
		if (h->node_get(ctx, g, n, &ni) != ONNXC_OK ||
		    ni.dialect != ONNXC_FX)
			continue;
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
				for (uint32_t o = 0; o < ni.nout; o++)
					if (h->value_uses(ctx, g, ni.out + o))
						s = fail(&v, n, name, "the "
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
		} else if (any_batched(&v, n, &ni)) {
			s = batched_node(&v, n, &ni, op, name);
		}
	}
	free(v.prank);
	return s;
}
