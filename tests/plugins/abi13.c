/* abi13.c - a plugin as one built against ABI 1.3 is: its descriptor
 * says 1.3 and its pass descriptor ends before the 1.4 contract.  It
 * must still load and run, unchecked, before or after "lower"; its pass
 * reports whether the host has the 1.4 members (ONNXC_HOST_HAS). */
#include <stddef.h>

#include <onnxc/plugin.h>

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	host->report(ctx, ONNXC_SEV_NOTE, 0, 0, "host ABI %d.%d, graph_new %s, "
	    "%u outputs", host->abi_major, host->abi_minor,
	    ONNXC_HOST_HAS(host, graph_new) ? "present" : "absent",
	    host->output_count(ctx, host->graph(ctx)));
	return ONNXC_OK;
}

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_pass_info pass = {
		.size = offsetof(onnxc_pass_info, needs),  /* a 1.3 size */
		.name = "old-abi",
		.summary = "reports the host's ABI",
		.run = run,
	};
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_EXPORT const onnxc_plugin_info onnxc_plugin = {
	1, 3, "abi-1.3", "1.0", init, NULL
};
