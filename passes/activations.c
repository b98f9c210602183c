/* activations.c - pass "fuse-activations": activations written out in
 * elementwise ops become the one ONNX op that computes them.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition.
 * Provides (onnxc/rewrite.h; the intermediate results have no other user):
 * - with option hardswish (off by default): Mul(x, HardSigmoid(x,
 *   alpha=1/6, beta=1/2)) -> HardSwish(x), opset 14+.  ONNX Runtime has no
 *   HardSwish kernel: it inlines the op's function body back into those
 *   two ops when it loads an .onnx, and rejects it in an .ort file;
 * - Mul(Mul(x, 1/2), Add(Erf(Mul(x, 1/sqrt 2) or Div(x, sqrt 2)), 1))
 *   -> Gelu(x), opset 20+ (Gelu's own definition, as ONNX writes it);
 *   below opset 20 the Mul(x, 1/sqrt 2) of that form (f32) becomes
 *   Div(x, sqrt 2): ONNX Runtime fuses the form with the Div into its own
 *   Gelu when it loads the model, not the one with the Mul (BERT-base at
 *   opset 18: 12 Gelu instead of 48 ops; "fold-scales" leaves its 1/2).
 * The constants must be those numbers to float precision: the fused op
 * computes the same function, up to float rounding.
 */
#include <math.h>

#include <onnxc/rewrite.h>

#define SQRT2 1.41421356237309504880

/* Is v a one-element constant within float precision of want? */
static int
near(onnxc_rw *r, onnxc_value v, double want)
{
	double d;
	return onnxc_rw_scalar(r, v, &d) && fabs(d - want) <=
	    1e-6 * fabs(want);
}

/* Mul(a, b) or Mul(b, a) with b the constant want: a, else 0. */
static onnxc_value
scaled(onnxc_rw *r, onnxc_value v, const char *op, double want)
{
	onnxc_node_info ni;
	onnxc_node n = onnxc_rw_def(r, v, op, &ni);
	if (!n || !onnxc_rw_single(r, v))
		return 0;
	onnxc_value a = onnxc_rw_in(r, n, 0), b = onnxc_rw_in(r, n, 1);
	if (near(r, b, want))
		return a;
	if (op[0] == 'M' && near(r, a, want))
		return b;
	return 0;
}

static int
hardswish(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info hi;
	for (uint32_t k = 0; k < 2; k++) {
		onnxc_value x = onnxc_rw_in(r, n, k);
		onnxc_value s = onnxc_rw_in(r, n, 1 - k);
		onnxc_node h = onnxc_rw_def(r, s, "HardSigmoid", &hi);
		if (!h || !onnxc_rw_single(r, s) || onnxc_rw_in(r, h, 0) != x ||
		    fabs(onnxc_rw_attr_f(r, h, "alpha", 0.2) - 1.0 / 6) >
		    1e-7 || onnxc_rw_attr_f(r, h, "beta", 0.5) != 0.5)
			continue;
		return onnxc_rw_swap(r, n, ni, "HardSwish", 1, &x) != 0;
	}
	return 0;
}

/* Add(Erf(x / sqrt 2), 1): x, else 0. */
static onnxc_value
erf_part(onnxc_rw *r, onnxc_value v)
{
	onnxc_node_info ai, ei;
	onnxc_node a = onnxc_rw_def(r, v, "Add", &ai);
	if (!a || !onnxc_rw_single(r, v))
		return 0;
	for (uint32_t k = 0; k < 2; k++) {
		onnxc_value e = onnxc_rw_in(r, a, k);
		onnxc_node en = onnxc_rw_def(r, e, "Erf", &ei);
		if (!en || !onnxc_rw_single(r, e) ||
		    !near(r, onnxc_rw_in(r, a, 1 - k), 1.0))
			continue;
		onnxc_value in = onnxc_rw_in(r, en, 0);
		onnxc_value x = scaled(r, in, "Mul", 1 / SQRT2);
		return x ? x : scaled(r, in, "Div", SQRT2);
	}
	return 0;
}

static int
gelu(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	for (uint32_t k = 0; k < 2; k++) {
		onnxc_value h = onnxc_rw_in(r, n, k);
		onnxc_value x = scaled(r, h, "Mul", 0.5);
		if (!x || erf_part(r, onnxc_rw_in(r, n, 1 - k)) != x)
			continue;
		return onnxc_rw_swap(r, n, ni, "Gelu", 1, &x) != 0;
	}
	return 0;
}

/* Below opset 20: the gelu at n with x * (1/sqrt 2) made x / sqrt 2 (see
 * the top). */
static int
gelu_div(onnxc_rw *r, onnxc_node n)
{
	onnxc_node_info ai, ei, mi;
	onnxc_tensor_info t;
	for (uint32_t k = 0; k < 2; k++) {
		onnxc_value x = scaled(r, onnxc_rw_in(r, n, k), "Mul", 0.5);
		onnxc_value v = onnxc_rw_in(r, n, 1 - k);
		if (!x || erf_part(r, v) != x)
			continue;
		/* erf_part has checked the shape: Add(Erf(Mul(x, c)), 1) */
		onnxc_node a = onnxc_rw_def(r, v, "Add", &ai);
		for (uint32_t j = 0; a && j < 2; j++) {
			onnxc_node e = onnxc_rw_def(r, onnxc_rw_in(r, a, j),
			    "Erf", &ei);
			onnxc_value in = e ? onnxc_rw_in(r, e, 0) : 0;
			onnxc_node m = in ? onnxc_rw_def(r, in, "Mul", &mi) : 0;
			if (!m || scaled(r, in, "Mul", 1 / SQRT2) != x)
				continue;
			onnxc_value c = onnxc_rw_in(r, m,
			    onnxc_rw_in(r, m, 0) == x ? 1 : 0);
			if (!onnxc_rw_const(r, c, &t) ||
			    t.dtype != ONNXC_DT_F32)
				return 0;
			float s2 = (float)SQRT2;
			onnxc_value d[2] = {x, onnxc_rw_initializer(r,
			    "gelu_sqrt2", ONNXC_DT_F32, t.rank, t.dims, &s2)};
			return d[1] &&
			    onnxc_rw_swap(r, m, &mi, "Div", 2, d) != 0;
		}
	}
	return 0;
}

/* The options of the run under way, for the visitor (r->user). */
typedef struct Run {
	int hardswish;
} Run;

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	const Run *run = r->user;
	int opset = r->h->opset(r->ctx);
	if (!onnxc_rw_is(r, ni, "Mul") || ni->nout != 1)
		return 0;
	return (run->hardswish && opset >= 14 && hardswish(r, n, ni)) ||
	    (opset >= 20 && gelu(r, n, ni)) || (opset < 20 && gelu_div(r, n));
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	Run run = {0};
	if (host->opt_bool(ctx, "hardswish", &run.hardswish) != ONNXC_OK)
		return ONNXC_ERROR;
	return onnxc_rw_run_with(ctx, host, "fuse-activations", visit, 1,
	    &run);
}

static const onnxc_option options[] = {
	{"hardswish", ONNXC_OPT_BOOL, "false",
	    "write HardSwish (an .onnx for runtimes with its kernel; not .ort)"},
};

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "fuse-activations",
	.summary = "Gelu (and HardSwish) from the elementwise ops that spell "
	    "them",
	.options = options,
	.noptions = sizeof options / sizeof *options,
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(activations, "fuse-activations", "1.0", init, NULL);
