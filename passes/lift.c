/* lift.c - pass "lift-constants": ONNX Constant nodes become initializers.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition.
 * Provides: every Constant node of the graph with a tensor "value" whose
 * result is not a graph output is replaced by a constant input (an
 * initializer) holding that tensor, under the Constant's result name.
 * Equal constants become one initializer (the host keeps one input per
 * content).  A runtime reads an initializer as it reads the Constant, so
 * nothing computed changes; the model has one node less per constant.
 * The Constant nodes are left to "dce".
 */
#include <stdio.h>

#include <onnxc/rewrite.h>

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_arg a;
	onnxc_tensor_info t;
	onnxc_value_info vi;
	char name[256], dead[300];
	if (!onnxc_rw_is(r, ni, "Constant") || ni->nout != 1 ||
	    ni->out >= r->nvals || r->isout[ni->out] ||
	    !onnxc_rw_attr(r, n, "value", &a) || a.kind != ONNXC_ARG_TENSOR ||
	    r->h->tensor_get(r->ctx, a.ref, &t) != ONNXC_OK ||
	    r->h->value_get(r->ctx, r->g, ni->out, &vi) != ONNXC_OK)
		return 0;
	const char *s = r->h->str(r->ctx, vi.name);
	snprintf(name, sizeof name, "%s", s && *s ? s : "constant");
	/* the Constant's result gives its name up to the initializer */
	snprintf(dead, sizeof dead, "%s~lifted", name);
	if (r->h->value_set_name(r->ctx, r->g, ni->out, dead) != ONNXC_OK) {
		r->failed = 1;
		return 0;
	}
	onnxc_value v = r->h->constant_input(r->ctx, r->g, name, a.ref);
	if (!v) {
		r->failed = 1;
		return 0;
	}
	return onnxc_rw_replace(r, ni->out, v);
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "lift-constants", visit, 1);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "lift-constants",
	.summary = "turn ONNX Constant nodes into initializers",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(lift, "lift-constants", "1.0", init, NULL);
