/* convbn.c - pass "fuse-conv-bn": folds inference batch norm into the conv
 * before it.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition.
 * Provides: BatchNormalization(Conv(x, W, b), scale, B, mean, var) in
 * inference form (one output) becomes Conv(x, W', b') when the Conv's
 * result has no other user and W, b, scale, B, mean and var are f32
 * constants: with s = scale / sqrt(var + epsilon) per output channel,
 * W' = W * s and b' = (b - mean) * s + B, computed in double and rounded
 * once.  The new weights are initializers named after the conv's; the
 * old ones are left to "dce".  Under --training nothing computed from a
 * parameter is visited (onnxc/rewrite.h), so this pass changes nothing.
 */
#include <math.h>
#include <stdio.h>

#include <onnxc/rewrite.h>

/* The f32 constant behind v with n elements, or NULL. */
static const float *
f32s(onnxc_rw *r, onnxc_value v, uint64_t n, onnxc_tensor_info *t)
{
	if (!onnxc_rw_const(r, v, t) || t->dtype != ONNXC_DT_F32 ||
	    onnxc_rw_numel(t) != n)
		return NULL;
	return (const float *)t->data;
}

static int
fold(onnxc_rw *r, onnxc_node bn, onnxc_node conv, const onnxc_node_info *ni,
    const char *name)
{
	onnxc_tensor_info tw, tb, ts, tB, tm, tv;
	onnxc_value w = onnxc_rw_in(r, conv, 1), b = onnxc_rw_in(r, conv, 2);
	if (!onnxc_rw_const(r, w, &tw) || tw.dtype != ONNXC_DT_F32 ||
	    tw.rank < 3 || tw.dims[0] <= 0)
		return 0;
	uint64_t m = (uint64_t)tw.dims[0], per = onnxc_rw_numel(&tw) / m;
	const float *bias = b ? f32s(r, b, m, &tb) : NULL;
	const float *sc = f32s(r, onnxc_rw_in(r, bn, 1), m, &ts);
	const float *sh = f32s(r, onnxc_rw_in(r, bn, 2), m, &tB);
	const float *mean = f32s(r, onnxc_rw_in(r, bn, 3), m, &tm);
	const float *var = f32s(r, onnxc_rw_in(r, bn, 4), m, &tv);
	if ((b && !bias) || !sc || !sh || !mean || !var)
		return 0;
	double eps = onnxc_rw_attr_f(r, bn, "epsilon", 1e-5);
	float *nw = malloc(onnxc_rw_numel(&tw) * sizeof *nw);
	float *nb = malloc(m * sizeof *nb);
	if (!nw || !nb) {
		free(nw);
		free(nb);
		r->failed = 1;
		return 0;
	}
	const float *ow = (const float *)tw.data;
	for (uint64_t c = 0; c < m; c++) {
		double s = sc[c] / sqrt((double)var[c] + eps);
		for (uint64_t k = 0; k < per; k++)
			nw[c * per + k] = (float)(ow[c * per + k] * s);
		nb[c] = (float)(((bias ? bias[c] : 0.0) - mean[c]) * s + sh[c]);
	}
	char wn[300], bname[300];
	snprintf(wn, sizeof wn, "%s.weight_bn", name);
	snprintf(bname, sizeof bname, "%s.bias_bn", name);
	int64_t md = (int64_t)m;
	onnxc_value in[3] = {onnxc_rw_in(r, conv, 0),
	    onnxc_rw_initializer(r, wn, ONNXC_DT_F32, tw.rank, tw.dims, nw),
	    onnxc_rw_initializer(r, bname, ONNXC_DT_F32, 1, &md, nb)};
	free(nw);
	free(nb);
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
	return onnxc_rw_replace(r, ni->out, onnxc_rw_out(r, c, 0, ni->out));
}

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info ci;
	onnxc_value_info wi;
	if (!onnxc_rw_is(r, ni, "BatchNormalization") || ni->nout != 1 ||
	    onnxc_rw_attr_i(r, n, "training_mode", 0))
		return 0;
	onnxc_value y = onnxc_rw_in(r, n, 0);
	onnxc_node conv = onnxc_rw_def(r, y, "Conv", &ci);
	if (!conv || !onnxc_rw_single(r, y) || r->h->value_get(r->ctx, r->g,
	    onnxc_rw_in(r, conv, 1), &wi) != ONNXC_OK)
		return 0;
	const char *s = r->h->str(r->ctx, wi.name);
	char name[256];
	snprintf(name, sizeof name, "%s", s && *s ? s : "conv");
	size_t len = strlen(name);
	if (len > 7 && !strcmp(name + len - 7, ".weight"))
		name[len - 7] = 0;
	return fold(r, n, conv, ni, name);
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "fuse-conv-bn", visit, 1);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "fuse-conv-bn",
	.summary = "fold inference BatchNormalization into the Conv before it",
	.run = run,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(convbn, "fuse-conv-bn", "1.0", init, NULL);
