/* mylib.c - a translation plugin for the tests: lowers the custom op
 * mylib::twice (x + x) at any opset and mylib::old only up to opset 17;
 * offers a lowering of aten::relu that emits a node and then declines
 * (the host must undo the node and use its own rule); and a pass,
 * "rebuild-relu", that replaces every aten::relu node by a new one made
 * at the end of the graph, which the host must move before its users. */
#include <string.h>

#include <onnxc/plugin.h>

static onnxc_status
lower_twice(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	onnxc_value x;
	(void)user;
	if (host->lower_input(ctx, 0, "self", &x) != ONNXC_OK) {
		host->report(ctx, ONNXC_SEV_ERROR, host->graph(ctx),
		    host->lower_node(ctx), "expected a tensor");
		return ONNXC_ERROR;
	}
	onnxc_value in[2] = {x, x};
	onnxc_node n = host->lower_emit(ctx, "", "Add", 2, in, 1);
	onnxc_node_info ni;
	if (!n || host->node_get(ctx, host->lower_graph(ctx), n, &ni))
		return ONNXC_ERROR;
	host->lower_set_dtype(ctx, ni.out, ONNXC_DT_F32);
	return host->lower_bind(ctx, 0, ni.out);
}

static onnxc_status
lower_decline(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	onnxc_value x;
	(void)user;
	if (host->lower_input(ctx, 0, "self", &x) == ONNXC_OK)
		host->lower_emit(ctx, "", "Garbage", 1, &x, 1);
	return ONNXC_DECLINE;
}

static onnxc_status
rebuild_relu(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	onnxc_graph g = host->graph(ctx);
	uint32_t end = host->node_end(ctx, g);
	(void)user;
	for (onnxc_node n = 1; n < end; n++) {
		onnxc_node_info ni;
		onnxc_value_info vi;
		onnxc_arg x;
		onnxc_dim dims[8];
		if (host->node_get(ctx, g, n, &ni) != ONNXC_OK ||
		    strcmp(host->str(ctx, ni.op), "aten::relu.default"))
			continue;
		if (host->node_arg(ctx, g, n, 0, &x) != ONNXC_OK ||
		    host->value_get(ctx, g, ni.out, &vi) != ONNXC_OK ||
		    vi.rank < 0 || vi.rank > 8 ||
		    host->value_dims(ctx, g, ni.out, dims, 8) != ONNXC_OK)
			return ONNXC_ERROR;
		onnxc_node m = host->node_new(ctx, g, ONNXC_FX, "",
		    "aten::relu.default", 1);
		onnxc_node_info mi;
		if (!m || host->node_push_arg(ctx, g, m, &x) != ONNXC_OK ||
		    host->node_get(ctx, g, m, &mi) != ONNXC_OK)
			return ONNXC_ERROR;
		/* only the newest node takes arguments */
		if (host->node_push_arg(ctx, g, n, &x) != ONNXC_INVALID)
			return ONNXC_ERROR;
		if (host->value_set_type(ctx, g, mi.out, vi.dtype, vi.rank,
		    dims) != ONNXC_OK ||
		    host->replace_uses(ctx, g, ni.out, mi.out) != ONNXC_OK ||
		    host->node_erase(ctx, g, n) != ONNXC_OK ||
		    host->value_set_name(ctx, g, mi.out,
		    host->str(ctx, vi.name)) != ONNXC_OK)
			return ONNXC_ERROR;
		if (host->value_uses(ctx, g, ni.out) != 0)
			return ONNXC_ERROR;
	}
	return ONNXC_OK;
}

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_lowering_info twice = {
		sizeof twice, "mylib::twice.default", "", 17, 0, lower_twice,
		NULL
	};
	static const onnxc_lowering_info old = {
		sizeof old, "mylib::old.default", "", 0, 17, lower_twice, NULL
	};
	static const onnxc_lowering_info relu = {
		sizeof relu, "aten::relu.default", "", 0, 0, lower_decline, NULL
	};
	static const onnxc_pass_info pass = {
		sizeof pass, "rebuild-relu", "remakes each relu at the end",
		NULL, 0, rebuild_relu, NULL, 0, 0, 0
	};
	(void)ctx;
	if (host->register_lowering(reg, &twice) ||
	    host->register_lowering(reg, &old) ||
	    host->register_lowering(reg, &relu) ||
	    host->register_pass(reg, &pass))
		return ONNXC_ERROR;
	return ONNXC_OK;
}

ONNXC_PLUGIN("mylib", "1.0", init, NULL);
