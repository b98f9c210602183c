/* prune.c - pass "prune-initializers": drops initializers nothing reads.
 *
 * Requires: the ONNX graph ("lower" has run) and a host of ABI 1.2
 * (input_erase); run it after "dce".
 * Provides: no graph input bound to bytes (a constant, or a parameter or
 * buffer, not under --training) that no node and no graph output uses.
 * The rewrites of -O2 replace weights (a folded batch norm, a transposed
 * weight): the weights they replaced would otherwise stay in the model.
 * A graph with subgraphs is left as it is: their nodes may read the
 * graph's initializers by name.
 */
#include <onnxc/plugin.h>

static int
has_subgraphs(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g)
{
	uint32_t end = h->node_end(ctx, g);
	for (onnxc_node n = 1; n < end; n++) {
		onnxc_node_info ni;
		onnxc_arg a;
		if (h->node_get(ctx, g, n, &ni) != ONNXC_OK)
			continue;
		for (uint32_t i = 0; i < ni.nargs; i++)
			if (h->node_arg(ctx, g, n, i, &a) == ONNXC_OK &&
			    a.kind == ONNXC_ARG_GRAPH)
				return 1;
	}
	return 0;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	onnxc_graph g = h->graph(ctx);
	if (!ONNXC_HOST_HAS(h, input_erase)) {
		h->report(ctx, ONNXC_SEV_ERROR, g, 0, "prune-initializers: "
		    "this onnxc is older than the plugin ABI 1.2 it needs");
		return ONNXC_ERROR;
	}
	if (has_subgraphs(ctx, h, g))
		return ONNXC_OK;
	int training = h->training(ctx);
	/* from the end: erasing input i leaves the ones before it in place */
	for (uint32_t i = h->input_count(ctx, g); i-- > 0;) {
		onnxc_value v = h->input_at(ctx, g, i);
		onnxc_value_info vi;
		if (!v || h->value_get(ctx, g, v, &vi) != ONNXC_OK ||
		    !vi.init || vi.role == ONNXC_ROLE_USER_INPUT ||
		    (training && (vi.role == ONNXC_ROLE_PARAM ||
		    vi.role == ONNXC_ROLE_BUFFER)) || h->value_uses(ctx, g, v))
			continue;
		if (h->input_erase(ctx, g, v) != ONNXC_OK) {
			h->report(ctx, ONNXC_SEV_ERROR, g, 0,
			    "prune-initializers: the host refused to drop '%s'",
			    h->str(ctx, vi.name));
			return ONNXC_ERROR;
		}
	}
	return ONNXC_OK;
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "prune-initializers",
	.summary = "drop initializers that nothing reads",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(prune, "prune-initializers", "1.0", init, NULL);
