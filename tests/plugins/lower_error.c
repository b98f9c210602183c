/* lower_error.c - a lowering of aten::relu.default that fails without a
 * word: the host must name the plugin. */
#include <onnxc/plugin.h>

static onnxc_status
lower(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)ctx;
	(void)host;
	(void)user;
	return ONNXC_ERROR;
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

ONNXC_PLUGIN("lower-error", "1.0", init, NULL);
