/* wrong_abi.c - a descriptor for a future ABI major.  The host must refuse
 * it from the descriptor's data alone: init aborts if it is ever called. */
#include <stdlib.h>

#include <onnxc/plugin.h>

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	(void)host;
	(void)reg;
	abort();
}

ONNXC_PLUGIN_EXPORT const onnxc_plugin_info onnxc_plugin = {
	ONNXC_PLUGIN_ABI_MAJOR + 1, 0, "wrong-abi", "1.0", init, NULL
};
