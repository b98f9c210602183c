/* retype.c - pass "retype-int-div": true divisions of integers are float.
 *
 * Requires: FX nodes as parsed.
 * Provides: no aten::div/true_divide without a rounding mode whose result
 * is annotated as an integer or bool tensor, and the values computed from
 * one take the floating dtype PyTorch computes them in.
 *
 * torch 2.6 annotates a true division of an integer tensor by a SymInt
 * (torch.arange(h) / (h - 1), a grid normalized by a dynamic size), and of
 * any integer tensor in a program with dynamic sizes, as an integer
 * tensor, and every value computed from it after that; running the program
 * computes float32 (the default dtype).  Lowered as annotated, such a
 * grid is rounded to integers.  Programs whose annotations are right have
 * no such division, and this pass changes nothing in them.
 *
 * A value computed from a retyped one is retyped when its annotation is
 * the integer dtype the retyped value had: elementwise ops, reductions and
 * views follow their operands, except the outputs PyTorch makes integers
 * whatever the operands (indices of sort/topk/max.dim..., argmax,
 * searchsorted ...) and ops given a dtype.  Only the graph being worked
 * on is walked (bodies of cond/map/scan are not), and only when it has a
 * division (onnxc_no_op_concerns).  One sweep: linear.
 */
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>

enum { MAXRANK = 64, MAXDEPTH = 8 };

typedef struct Retype {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	uint32_t nvals;
	uint8_t *was;  /* per value: its annotated dtype + 1 when retyped */
	int failed;
} Retype;

/* The op's name without namespace and overload: "aten::max.dim" -> "max" */
static size_t
stem(const char *op, const char **start)
{
	const char *s = strstr(op, "::");
	s = s ? s + 2 : op;
	const char *dot = strchr(s, '.');
	*start = s;
	return dot ? (size_t)(dot - s) : strlen(s);
}

static int
stem_in(const char *op, const char *const *names)
{
	const char *s;
	size_t n = stem(op, &s);
	for (int k = 0; names[k]; k++)
		if (strlen(names[k]) == n && strncmp(s, names[k], n) == 0)
			return 1;
	return 0;
}

/* Ops whose results are integers (or Sym values) whatever the operands */
static const char *const fixed_int[] = {
	"argmax", "argmin", "argsort", "nonzero", "nonzero_static", "argwhere",
	"searchsorted", "bucketize", "count_nonzero", "bincount", "one_hot",
	"sym_size", "sym_numel", "sym_stride", "sym_storage_offset", "size",
	"numel", "_local_scalar_dense", "item", "type_as", NULL};

/* Ops with several results that all follow the operands; of any other op
 * only result 0 does (the others are indices: sort, topk, max.dim ...) */
static const char *const all_follow[] = {
	"split", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes",
	"unbind", "chunk", "tensor_split", "meshgrid", "broadcast_tensors",
	"aminmax", "std_mean", "var_mean", "split_copy", "unbind_copy",
	"split_with_sizes_copy", NULL};

static int
integral(uint32_t dt)
{
	return dt == ONNXC_DT_BOOL || dt == ONNXC_DT_U8 || dt == ONNXC_DT_I8 ||
	    dt == ONNXC_DT_I16 || dt == ONNXC_DT_I32 || dt == ONNXC_DT_I64 ||
	    dt == ONNXC_DT_U16 || dt == ONNXC_DT_U32 || dt == ONNXC_DT_U64;
}

/* a division op, true unless given a rounding mode */
static int
division_op(const char *op)
{
	static const char *const ops[] = {"aten::div.Tensor",
	    "aten::div.Scalar", "aten::true_divide.Tensor",
	    "aten::true_divide.Scalar", "aten::div.Tensor_mode",
	    "aten::div.Scalar_mode", NULL};
	for (int k = 0; ops[k]; k++)
		if (strcmp(ops[k], op) == 0)
			return 1;
	return 0;
}

static int
true_division(Retype *t, onnxc_node n, const char *op)
{
	onnxc_arg a;
	return division_op(op) && (t->h->node_find_arg(t->ctx, t->g, n, 2,
	    "rounding_mode", &a) != ONNXC_OK || a.kind == ONNXC_ARG_NONE);
}

/* onnxc_no_op_concerns: a division (or an op the host cannot name) */
static int
concerns(void *arg, onnxc_str op)
{
	const Retype *t = arg;
	const char *s = t->h->str(t->ctx, op);
	return !s || division_op(s);
}

/* Scan argument a for retyped values: *old gets the annotated dtype of
 * one (+1), *f64 whether a tensor of rank > 0 is float64. */
static void
scan_arg(Retype *t, const onnxc_arg *a, int depth, uint8_t *old, int *f64)
{
	if (a->kind == ONNXC_ARG_VALUE && a->ref < t->nvals) {
		onnxc_value_info vi;
		if (t->was[a->ref])
			*old = t->was[a->ref];
		else if (t->h->value_get(t->ctx, t->g, a->ref, &vi) ==
		    ONNXC_OK && vi.kind == ONNXC_VK_TENSOR &&
		    vi.dtype == ONNXC_DT_F64 && vi.rank > 0)
			*f64 = 1;
	} else if ((a->kind == ONNXC_ARG_LIST || a->kind == ONNXC_ARG_TUPLE) &&
	    depth < MAXDEPTH) {
		for (uint32_t i = 0; i < a->len; i++) {
			onnxc_arg it;
			if (t->h->list_item(t->ctx, t->g, a, i, &it) == ONNXC_OK)
				scan_arg(t, &it, depth + 1, old, f64);
		}
	}
}

/* Output v, annotated as integer dtype old - 1, becomes dt. */
static void
retype(Retype *t, onnxc_value v, uint8_t old, uint32_t dt)
{
	onnxc_value_info vi;
	onnxc_dim dims[MAXRANK];
	if (v >= t->nvals || t->h->value_get(t->ctx, t->g, v, &vi) !=
	    ONNXC_OK || vi.kind != ONNXC_VK_TENSOR || vi.dtype + 1 != old ||
	    vi.rank > MAXRANK)
		return;
	if (vi.rank > 0 && t->h->value_dims(t->ctx, t->g, v, dims,
	    MAXRANK) != ONNXC_OK) {
		t->failed = 1;
		return;
	}
	if (t->h->value_set_type(t->ctx, t->g, v, dt, vi.rank, dims) !=
	    ONNXC_OK) {
		t->failed = 1;
		return;
	}
	t->was[v] = old;
}

static void
visit(Retype *t, onnxc_node n, const onnxc_node_info *ni)
{
	const char *op = t->h->str(t->ctx, ni->op);
	if (!op || ni->dialect != ONNXC_FX)
		return;
	onnxc_value_info vi;
	if (true_division(t, n, op)) {
		/* float whatever its operands: a retyped one changes nothing */
		if (ni->nout >= 1 && t->h->value_get(t->ctx, t->g, ni->out,
		    &vi) == ONNXC_OK && vi.kind == ONNXC_VK_TENSOR &&
		    integral(vi.dtype))
			retype(t, ni->out, (uint8_t)(vi.dtype + 1),
			    ONNXC_DT_F32);
		return;
	}
	uint8_t old = 0;
	int f64 = 0;
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a;
		if (t->h->node_arg(t->ctx, t->g, n, i, &a) != ONNXC_OK)
			continue;
		if (a.kind == ONNXC_ARG_DTYPE)
			return; /* given a dtype: the result has it */
		scan_arg(t, &a, 0, &old, &f64);
	}
	if (!old || stem_in(op, fixed_int))
		return;
	uint32_t dt = f64 ? ONNXC_DT_F64 : ONNXC_DT_F32;
	uint32_t nout = stem_in(op, all_follow) ? ni->nout : 1;
	for (uint32_t k = 0; k < nout && k < ni->nout; k++)
		retype(t, ni->out + k, old, dt);
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	Retype t = {ctx, h, h->graph(ctx), 0, NULL, 0};
	if (onnxc_no_op_concerns(ctx, h, t.g, concerns, &t))
		return ONNXC_OK;
	t.nvals = h->value_end(ctx, t.g);
	t.was = calloc(t.nvals + 1, 1);
	if (!t.was) {
		h->report(ctx, ONNXC_SEV_ERROR, t.g, 0,
		    "retype-int-div: out of memory");
		return ONNXC_ERROR;
	}
	uint32_t end = h->node_end(ctx, t.g);
	for (onnxc_node n = 1; n < end && !t.failed; n++) {
		onnxc_node_info ni;
		if (h->node_get(ctx, t.g, n, &ni) == ONNXC_OK)
			visit(&t, n, &ni);
	}
	free(t.was);
	if (t.failed) {
		h->report(ctx, ONNXC_SEV_ERROR, t.g, 0,
		    "retype-int-div: the host refused a change to the graph");
		return ONNXC_ERROR;
	}
	return ONNXC_OK;
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "retype-int-div",
	.summary = "float32 for the true divisions of integers torch 2.6 "
	    "annotates as integers, and for what is computed from them",
	.run = run,
	.needs = ONNXC_PROP_FX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(retype, "retype-int-div", "1.0", init, NULL);
