/* transformers.c - a translation plugin for the custom ops of Hugging
 * Face transformers, shipped with onnxc: its lowerings apply where a
 * program names them.
 *
 *   transformers::grouped_mm_fallback(x[S,K], w[E,K,N], offs[E]) -> [S,N]:
 *     the experts of a mixture-of-experts layer (transformers'
 *     integrations/moe.py, experts implementation "grouped_mm" when
 *     torch._grouped_mm cannot run).  Rows offs[e-1] <= s < offs[e] (the
 *     tokens routed to expert e, sorted by expert) are multiplied by w[e];
 *     rows from offs[E-1] on are 0.  ONNX has no grouped matmul: every row
 *     is multiplied by every expert's weight (one batched MatMul, [E,S,N])
 *     and each row's own expert is gathered.  That costs E times the
 *     multiply-adds of the grouped product and an [E,S,N] temporary,
 *     where gathering a weight per row instead would hold [S,K,N]: far
 *     more, since K (the hidden size) is much larger than E.  The row's
 *     expert is the number of offsets at or below it, which is right for
 *     the running sums transformers passes.
 * The weights may be float32, float16 (computed in float32) or float64;
 * other dtypes are declined. */
#include <stdio.h>

#include <onnxc/plugin.h>

typedef struct Lw {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph fx;
	onnxc_node node;
} Lw;

static onnxc_value
emit(Lw *l, const char *op, uint32_t nin, const onnxc_value *in,
    uint32_t dtype, onnxc_node *made)
{
	return onnxc_lower_op(l->ctx, l->h, op, nin, in, dtype, made);
}

static onnxc_value
emit2(Lw *l, const char *op, onnxc_value a, onnxc_value b, uint32_t dtype)
{
	onnxc_value in[2] = {a, b};
	return emit(l, op, 2, in, dtype, NULL);
}

static onnxc_value
ints(Lw *l, int64_t n, const int64_t *v)
{
	return l->h->lower_const(l->ctx, ONNXC_DT_I64, 1, &n, v);
}

static onnxc_value
scalar(Lw *l, int64_t v)
{
	return l->h->lower_const(l->ctx, ONNXC_DT_I64, 0, NULL, &v);
}

/* an int attribute of an emitted node; v 0 passes through */
static onnxc_value
with_int(Lw *l, onnxc_value v, onnxc_node m, const char *name, int64_t i)
{
	return v && onnxc_lower_attr_i(l->ctx, l->h, m, name, i) ? v : 0;
}

/* op on n inputs with one int attribute */
static onnxc_value
emit_int(Lw *l, const char *op, uint32_t n, const onnxc_value *in,
    uint32_t dtype, const char *name, int64_t i)
{
	onnxc_node m = 0;
	onnxc_value v = emit(l, op, n, in, dtype, &m);
	return with_int(l, v, m, name, i);
}

static onnxc_value
cast(Lw *l, onnxc_value v, uint32_t dtype)
{
	return emit_int(l, "Cast", 1, &v, dtype, "to", dtype);
}

/* dims [from, to) of v's shape */
static onnxc_value
shape(Lw *l, onnxc_value v, int64_t from, int64_t to)
{
	onnxc_node m = 0;
	onnxc_value s = emit(l, "Shape", 1, &v, ONNXC_DT_I64, &m);
	return with_int(l, with_int(l, s, m, "start", from), m, "end", to);
}

/* argument pos: a tensor of `rank` dims; its dtype into *dt */
static int
tensor_arg(Lw *l, int pos, const char *key, int32_t rank, uint32_t *dt)
{
	onnxc_arg a;
	onnxc_value_info vi;
	if (l->h->node_find_arg(l->ctx, l->fx, l->node, pos, key, &a) !=
	    ONNXC_OK || a.kind != ONNXC_ARG_VALUE ||
	    l->h->value_get(l->ctx, l->fx, a.ref, &vi) != ONNXC_OK ||
	    vi.kind != ONNXC_VK_TENSOR || vi.rank != rank)
		return 0;
	*dt = vi.dtype;
	return 1;
}

static onnxc_status
lower_grouped_mm(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	Lw l = {ctx, h, h->graph(ctx), h->lower_node(ctx)};
	uint32_t dt, wdt, odt;
	if (!tensor_arg(&l, 0, "input", 2, &dt) ||
	    !tensor_arg(&l, 1, "weight", 3, &wdt) ||
	    !tensor_arg(&l, 2, "offs", 1, &odt))
		return ONNXC_DECLINE;
	if ((dt != ONNXC_DT_F32 && dt != ONNXC_DT_F16 && dt != ONNXC_DT_F64) ||
	    wdt != dt || (odt != ONNXC_DT_I32 && odt != ONNXC_DT_I64))
		return ONNXC_DECLINE;
	onnxc_value x, w, offs;
	onnxc_status st;
	if ((st = h->lower_input(ctx, 0, "input", &x)) != ONNXC_OK ||
	    (st = h->lower_input(ctx, 1, "weight", &w)) != ONNXC_OK ||
	    (st = h->lower_input(ctx, 2, "offs", &offs)) != ONNXC_OK)
		return st;
	const int64_t zero = 0, one = 1, last[2] = {0, 2};
	/* float16 is computed in float32 and rounded once at the end, as
	 * onnxc's own matrix products are: ONNX Runtime's CPU has no float16
	 * MatMul or Where (an .onnx file gets Casts when it loads; an .ort
	 * file does not) */
	uint32_t out_dt = dt;
	if (dt == ONNXC_DT_F16) {
		dt = ONNXC_DT_F32;
		x = cast(&l, x, dt);
		w = cast(&l, w, dt);
	}

	/* every row times every expert: [1,S,K] @ [E,K,N] -> [E,S,N] */
	onnxc_value all = emit2(&l, "MatMul", emit2(&l, "Unsqueeze", x,
	    ints(&l, 1, &zero), dt), w, dt);

	/* each row's expert: e[s] = #{e : offs[e] <= s} */
	onnxc_value o64 = cast(&l, offs, ONNXC_DT_I64);
	onnxc_value rows = emit(&l, "Range", 3, (onnxc_value[3]){scalar(&l, 0),
	    emit2(&l, "Squeeze", shape(&l, x, 0, 1), ints(&l, 1, &zero),
	    ONNXC_DT_I64), scalar(&l, 1)}, ONNXC_DT_I64, NULL);
	onnxc_value at = emit2(&l, "LessOrEqual", emit2(&l, "Unsqueeze", o64,
	    ints(&l, 1, &zero), ONNXC_DT_I64), emit2(&l, "Unsqueeze", rows,
	    ints(&l, 1, &one), ONNXC_DT_I64), ONNXC_DT_BOOL);
	onnxc_value e = emit_int(&l, "ReduceSum", 2, (onnxc_value[2]){cast(&l,
	    at, ONNXC_DT_I64), ints(&l, 1, &one)}, ONNXC_DT_I64, "keepdims", 0);

	/* rows past the last offset belong to no expert: 0 */
	onnxc_value ne = shape(&l, offs, 0, 1);
	onnxc_value valid = emit2(&l, "Less", e, ne, ONNXC_DT_BOOL);
	onnxc_value ec = emit2(&l, "Min", e, emit2(&l, "Sub", ne,
	    ints(&l, 1, &one), ONNXC_DT_I64), ONNXC_DT_I64);

	/* gather all[e[s], s, :] */
	onnxc_value idx = emit2(&l, "Expand", emit2(&l, "Unsqueeze", ec,
	    ints(&l, 2, last), ONNXC_DT_I64), emit_int(&l, "Concat", 2,
	    (onnxc_value[2]){ints(&l, 1, &one), shape(&l, all, 1, 3)},
	    ONNXC_DT_I64, "axis", 0), ONNXC_DT_I64);
	onnxc_value y = emit_int(&l, "GatherElements", 2, (onnxc_value[2]){all,
	    idx}, dt, "axis", 0);
	y = emit2(&l, "Squeeze", y, ints(&l, 1, &zero), dt);
	/* 0 is all zero bytes in each of the three dtypes */
	const uint64_t zbits = 0;
	onnxc_value z = l.h->lower_const(ctx, dt, 0, NULL, &zbits);
	onnxc_value out = emit(&l, "Where", 3, (onnxc_value[3]){emit2(&l,
	    "Unsqueeze", valid, ints(&l, 1, &one), ONNXC_DT_BOOL), y, z}, dt,
	    NULL);
	if (out && out_dt != dt)
		out = cast(&l, out, out_dt);
	if (!out)
		return ONNXC_ERROR;
	return h->lower_bind(ctx, 0, out);
}

static const onnxc_lowering_info rules[] = {
	/* Shape's start/end: opset 15 */
	{sizeof(onnxc_lowering_info), "transformers::grouped_mm_fallback."
		"default", "", 15, 1000, lower_grouped_mm, NULL},
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	if (!ONNXC_HOST_HAS(host, lower_list))
		return ONNXC_VERSION;
	return onnxc_register_lowerings(host, reg, rules,
	    sizeof rules / sizeof *rules);
}

ONNXC_PLUGIN_NAMED(transformers, "transformers", "1.0", init, NULL);
