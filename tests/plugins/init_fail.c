/* init_fail.c - init registers a pass, then reports an error and fails:
 * the host must drop the pass along with the plugin. */
#include <onnxc/plugin.h>

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)ctx;
	(void)host;
	(void)user;
	return ONNXC_OK;
}

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_pass_info pass = {
		sizeof pass, "init-fail-pass", "never usable", NULL, 0, run,
		NULL, 0, 0, 0
	};
	if (host->register_pass(reg, &pass) != ONNXC_OK)
		return ONNXC_ERROR;
	host->report(ctx, ONNXC_SEV_ERROR, 0, 0, "cannot find %s",
	    "its configuration");
	return ONNXC_ERROR;
}

ONNXC_PLUGIN("init-fail", "1.0", init, NULL);
