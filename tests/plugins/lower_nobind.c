/* lower_nobind.c - a lowering of aten::relu.default that emits a node but
 * binds no output and says it succeeded: an error naming the plugin. */
#include <onnxc/plugin.h>

static onnxc_status
lower(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	onnxc_value x;
	(void)user;
	if (host->lower_input(ctx, 0, "self", &x) != ONNXC_OK)
		return ONNXC_ERROR;
	return host->lower_emit(ctx, "", "Relu", 1, &x, 1) ? ONNXC_OK
	    : ONNXC_ERROR;
}

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_lowering_info lw = {
		sizeof lw, "aten::relu.default", "", 0, 0, lower, NULL
	};
	(void)ctx;
	return host->register_lowering(reg, &lw);
}

ONNXC_PLUGIN("lower-nobind", "1.0", init, NULL);
