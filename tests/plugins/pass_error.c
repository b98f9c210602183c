/* pass_error.c - pass "pass-error" reports an error at the graph's first
 * node and fails. */
#include <onnxc/plugin.h>

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	onnxc_graph g = host->graph(ctx);
	onnxc_node_info ni;
	if (host->node_get(ctx, g, 1, &ni) != ONNXC_OK)
		return ONNXC_ERROR;
	host->report(ctx, ONNXC_SEV_ERROR, g, 1, "refusing %s",
	    host->str(ctx, ni.op));
	return ONNXC_ERROR;
}

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_pass_info pass = {
		sizeof pass, "pass-error", "always fails", NULL, 0, run, NULL,
		    0, 0, 0
	};
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN("pass-error", "1.0", init, NULL);
