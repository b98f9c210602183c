/* convbn.c - pass "fuse-conv-bn": folds inference batch norm into the conv
 * before it, or into an unpadded conv after it.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition.
 * Provides: BatchNormalization(Conv(x, W, b), scale, B, mean, var) in
 * inference form (one output) becomes Conv(x, W', b') when the Conv's
 * result has no other user and W, b, scale, B, mean and var are f32
 * constants: with s = scale / sqrt(var + epsilon) per output channel,
 * W' = W * s and b' = (b - mean) * s + B, computed in double and rounded
 * once.  Conv(BatchNormalization(x), W, b) likewise becomes Conv(x, W',
 * b') when the conv pads nothing (a padded border would see the batch
 * norm's shift, not zeros): W'[o, i, ...] = W[o, i, ...] * s[i] and
 * b'[o] = b[o] + the sum of W[o, i, ...] * (B - mean * s)[i].  The new
 * weights are initializers named after the conv's; the old ones are left
 * to "dce".  Under --training nothing computed from a
 * parameter is visited (onnxc/rewrite.h), so this pass changes nothing.
 */
#include <math.h>
#include <stdio.h>

#include <onnxc/rewrite.h>

/* The f32 constant behind v with n elements, or NULL. */
static const float *
f32s(onnxc_rw *r, onnxc_value v, uint64_t n, onnxc_tensor_info *t)
{
	const float *d = onnxc_rw_f32(r, v, t);
	return d && onnxc_rw_numel(t) == n ? d : NULL;
}

/* An inference batch norm's statistics, c channels of f32 constants. */
typedef struct Norm {
	const float *scale, *shift, *mean, *var;
	double eps;
} Norm;

static int
norm_of(onnxc_rw *r, onnxc_node bn, uint64_t c, Norm *n)
{
	onnxc_tensor_info t;
	n->scale = f32s(r, onnxc_rw_in(r, bn, 1), c, &t);
	n->shift = f32s(r, onnxc_rw_in(r, bn, 2), c, &t);
	n->mean = f32s(r, onnxc_rw_in(r, bn, 3), c, &t);
	n->var = f32s(r, onnxc_rw_in(r, bn, 4), c, &t);
	n->eps = onnxc_rw_attr_f(r, bn, "epsilon", 1e-5);
	return n->scale && n->shift && n->mean && n->var;
}

/* Room for the scales (ns doubles) and the new bias (nb floats). */
static int
scratch(onnxc_rw *r, uint64_t ns, uint64_t nb, double **s, float **b)
{
	*s = malloc((ns ? ns : 1) * sizeof **s);
	*b = malloc((nb ? nb : 1) * sizeof **b);
	if (*s && *b)
		return 1;
	free(*s);
	free(*b);
	r->failed = 1;
	return 0;
}

/* The weights' name without ".weight", for the new initializers. */
static void
conv_name(onnxc_rw *r, onnxc_node conv, char *name, size_t cap)
{
	onnxc_value_info wi;
	const char *s = r->h->value_get(r->ctx, r->g, onnxc_rw_in(r, conv, 1),
	    &wi) == ONNXC_OK ? r->h->str(r->ctx, wi.name) : NULL;
	snprintf(name, cap, "%s", s && *s ? s : "conv");
	size_t len = strlen(name);
	if (len > 7 && !strcmp(name + len - 7, ".weight"))
		name[len - 7] = 0;
}

/* Result `out` becomes Conv(x, W', nb) with conv's attributes: W' the
 * weights (shaped as tw) scaled as sc says, made a piece at a time
 * (onnxc_rw_scaled), nb one per output channel. */
static int
rebuild(onnxc_rw *r, onnxc_node conv, onnxc_value out, onnxc_value x,
    const onnxc_tensor_info *tw, const onnxc_rw_scaling *sc,
    const float *nb)
{
	char name[256], wn[300], bname[300];
	conv_name(r, conv, name, sizeof name);
	snprintf(wn, sizeof wn, "%s.weight_bn", name);
	snprintf(bname, sizeof bname, "%s.bias_bn", name);
	int64_t md = tw->dims[0];
	onnxc_value in[3] = {x, onnxc_rw_scaled(r, wn, tw, sc),
	    onnxc_rw_initializer(r, bname, ONNXC_DT_F32, 1, &md, nb)};
	if (r->failed)
		return 0;
	onnxc_node c = onnxc_rw_emit(r, "Conv", 3, in, 1, conv);
	static const char *const ints[] = {"dilations", "kernel_shape",
	    "pads", "strides"};
	int64_t v[2 * ONNXC_RW_MAXRANK];
	for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
		int k = onnxc_rw_attr_ints(r, conv, ints[i], v, 2 *
		    ONNXC_RW_MAXRANK);
		if (k >= 0)
			onnxc_rw_set_ints(r, c, ints[i], v, (uint32_t)k);
	}
	onnxc_arg a;
	if (onnxc_rw_attr(r, conv, "auto_pad", &a) && a.kind == ONNXC_ARG_STR &&
	    r->h->node_push_arg(r->ctx, r->g, c, &a) != ONNXC_OK)
		r->failed = 1;
	onnxc_rw_set_i(r, c, "group", onnxc_rw_attr_i(r, conv, "group", 1));
	return onnxc_rw_replace(r, out, onnxc_rw_out(r, c, 0, out));
}

/* BatchNormalization root over a conv: the norm goes in W, b. */
static int
fold(onnxc_rw *r, onnxc_node bn, onnxc_node conv, const onnxc_node_info *ni)
{
	onnxc_tensor_info tw, tb;
	onnxc_value w = onnxc_rw_in(r, conv, 1), b = onnxc_rw_in(r, conv, 2);
	if (!onnxc_rw_const(r, w, &tw) || tw.dtype != ONNXC_DT_F32 ||
	    tw.rank < 3 || tw.dims[0] <= 0)
		return 0;
	uint64_t m = (uint64_t)tw.dims[0], per = onnxc_rw_numel(&tw) / m;
	const float *bias = b ? f32s(r, b, m, &tb) : NULL;
	Norm nm;
	double *s;
	float *nb;
	if ((b && !bias) || !norm_of(r, bn, m, &nm) ||
	    !scratch(r, m, m, &s, &nb))
		return 0;
	for (uint64_t c = 0; c < m; c++) {
		s[c] = nm.scale[c] / sqrt((double)nm.var[c] + nm.eps);
		nb[c] = (float)(((bias ? bias[c] : 0.0) - nm.mean[c]) * s[c] +
		    nm.shift[c]);
	}
	onnxc_rw_scaling sc = {(const float *)tw.data, s, m, per ? per : 1};
	int ok = rebuild(r, conv, ni->out, onnxc_rw_in(r, conv, 0), &tw, &sc,
	    nb);
	free(s);
	free(nb);
	return ok;
}

/* Does conv n pad nothing? */
static int
unpadded(onnxc_rw *r, onnxc_node n)
{
	int64_t p[2 * ONNXC_RW_MAXRANK];
	onnxc_arg a;
	int k = onnxc_rw_attr_ints(r, n, "pads", p, 2 * ONNXC_RW_MAXRANK);
	if (onnxc_rw_attr(r, n, "auto_pad", &a) && (a.kind != ONNXC_ARG_STR ||
	    (strcmp(r->h->str(r->ctx, a.ref), "NOTSET") &&
	    strcmp(r->h->str(r->ctx, a.ref), "VALID"))))
		return 0;
	for (int i = 0; i < k; i++)
		if (p[i])
			return 0;
	return k >= 0 || !onnxc_rw_attr(r, n, "pads", &a);
}

/* Conv root reading an inference batch norm: the norm goes in W, b. */
static int
fold_before(onnxc_rw *r, onnxc_node conv, const onnxc_node_info *ni)
{
	onnxc_node_info bi;
	onnxc_tensor_info tw, tb;
	onnxc_value y = onnxc_rw_in(r, conv, 0), w = onnxc_rw_in(r, conv, 1);
	onnxc_value b = ni->npos > 2 ? onnxc_rw_in(r, conv, 2) : 0;
	onnxc_node bn = onnxc_rw_def(r, y, "BatchNormalization", &bi);
	if (!bn || bi.nout != 1 || !onnxc_rw_single(r, y) ||
	    onnxc_rw_attr_i(r, bn, "training_mode", 0) || !unpadded(r, conv) ||
	    !onnxc_rw_const(r, w, &tw) || tw.dtype != ONNXC_DT_F32 ||
	    tw.rank < 3 || tw.dims[0] <= 0 || tw.dims[1] <= 0)
		return 0;
	int64_t group = onnxc_rw_attr_i(r, conv, "group", 1);
	uint64_t m = (uint64_t)tw.dims[0], cin = (uint64_t)tw.dims[1];
	uint64_t per = onnxc_rw_numel(&tw) / m / cin, c = cin * (uint64_t)group;
	const float *bias = b ? f32s(r, b, m, &tb) : NULL;
	Norm nm;
	double *s;
	float *nb;
	/* W'[o, i, ...] is scaled by channel g * cin + i: with one group a
	 * table of cin scales repeats, else one scale per (o, i) */
	uint64_t ns = group == 1 ? cin : m * cin;
	if (group < 1 || m % (uint64_t)group || (b && !bias) ||
	    !norm_of(r, bn, c, &nm) || !scratch(r, ns, m, &s, &nb))
		return 0;
	const float *ow = (const float *)tw.data;
	for (uint64_t o = 0; o < m; o++) {
		double acc = bias ? bias[o] : 0.0;
		uint64_t g = o / (m / (uint64_t)group);
		for (uint64_t i = 0; i < cin; i++) {
			uint64_t ch = g * cin + i;
			double sc = nm.scale[ch] / sqrt((double)nm.var[ch] +
			    nm.eps);
			double t = nm.shift[ch] - nm.mean[ch] * sc;
			s[(o * cin + i) % ns] = sc;
			for (uint64_t k = 0; k < per; k++)
				acc += ow[(o * cin + i) * per + k] * t;
		}
		nb[o] = (float)acc;
	}
	onnxc_rw_scaling sc = {ow, s, ns, per ? per : 1};
	int ok = rebuild(r, conv, ni->out, onnxc_rw_in(r, bn, 0), &tw, &sc,
	    nb);
	free(s);
	free(nb);
	return ok;
}

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info ci;
	if (onnxc_rw_is(r, ni, "Conv") && ni->nout == 1)
		return fold_before(r, n, ni);
	if (!onnxc_rw_is(r, ni, "BatchNormalization") || ni->nout != 1 ||
	    onnxc_rw_attr_i(r, n, "training_mode", 0))
		return 0;
	onnxc_value y = onnxc_rw_in(r, n, 0);
	onnxc_node conv = onnxc_rw_def(r, y, "Conv", &ci);
	if (!conv || !onnxc_rw_single(r, y))
		return 0;
	return fold(r, n, conv, ni);
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "fuse-conv-bn", visit, 2);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "fuse-conv-bn",
	.summary = "fold inference BatchNormalization into the Conv before "
	    "it (or an unpadded Conv after it)",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(convbn, "fuse-conv-bn", "1.0", init, NULL);
