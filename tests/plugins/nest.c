/* nest.c - a plugin of ABI 1.4 making a nested graph: pass "wrap-if"
 * (needs the ONNX graph) routes graph output 0 through If(true) whose
 * branches are subgraphs made with graph_new, reading the value through a
 * capture (input_add of ONNXC_ROLE_OUTER) and returning it with
 * output_add; the output keeps its kind (output_kind, output_set_kind).
 * The model computes what it did before. */
#include <onnxc/plugin.h>

enum { MAXR = 16 };

/* A branch of the If: capture 0 through op, as the graph's one output. */
static onnxc_graph
branch(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_graph g,
    const char *name, const onnxc_value_info *vi, const onnxc_dim *dims)
{
	onnxc_graph b = host->graph_new(ctx, name, g);
	onnxc_value in = host->input_add(ctx, b, "wrap_if_x",
	    ONNXC_ROLE_OUTER, 0);
	onnxc_node n = host->node_new(ctx, b, ONNXC_ONNX, "", "Identity", 1);
	onnxc_arg a = {ONNXC_ARG_VALUE, 0, 0, 0, in, 0, 0};
	onnxc_node_info ni;
	if (!b || !in || !n || host->graph_parent(ctx, b) != g ||
	    host->value_set_type(ctx, b, in, vi->dtype, vi->rank, dims) ||
	    host->node_push_arg(ctx, b, n, &a) ||
	    host->node_get(ctx, b, n, &ni) ||
	    host->value_set_type(ctx, b, ni.out, vi->dtype, vi->rank, dims) ||
	    host->value_set_name(ctx, b, ni.out, name) ||
	    host->output_add(ctx, b, ni.out, ONNXC_OUT_USER, 0))
		return 0;
	return b;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	if (!ONNXC_HOST_HAS(host, output_set_kind)) {
		host->report(ctx, ONNXC_SEV_ERROR, 0, 0, "needs ABI 1.4");
		return ONNXC_ERROR;
	}
	onnxc_graph g = host->graph(ctx);
	onnxc_value v = host->output_at(ctx, g, 0);
	onnxc_value_info vi;
	onnxc_dim dims[MAXR];
	uint32_t kind;
	onnxc_str target;
	if (!v || host->value_get(ctx, g, v, &vi) || vi.rank < 0 ||
	    vi.rank > MAXR || host->value_dims(ctx, g, v, dims, MAXR) ||
	    host->output_kind(ctx, g, 0, &kind, &target))
		return ONNXC_ERROR;
	unsigned char yes = 1;
	onnxc_value cond = host->constant_input(ctx, g, "wrap_if_cond",
	    host->tensor_new(ctx, ONNXC_DT_BOOL, 0, NULL, &yes));
	onnxc_arg args[4] = {
		{ONNXC_ARG_VALUE, 0, 0, 0, cond, 0, 0},
		{ONNXC_ARG_VALUE, host->intern(ctx, "capture"), 0, 0, v, 0, 0},
		{ONNXC_ARG_GRAPH, host->intern(ctx, "then_branch"), 0, 0,
		    branch(ctx, host, g, "wrap_if_then", &vi, dims), 0, 0},
		{ONNXC_ARG_GRAPH, host->intern(ctx, "else_branch"), 0, 0,
		    branch(ctx, host, g, "wrap_if_else", &vi, dims), 0, 0},
	};
	onnxc_node n = host->node_new(ctx, g, ONNXC_ONNX, "", "If", 1);
	onnxc_node_info ni;
	if (!cond || !n)
		return ONNXC_ERROR;
	for (int i = 0; i < 4; i++)
		if (host->node_push_arg(ctx, g, n, &args[i]))
			return ONNXC_ERROR;
	if (host->node_get(ctx, g, n, &ni) ||
	    host->value_set_type(ctx, g, ni.out, vi.dtype, vi.rank, dims) ||
	    host->value_set_name(ctx, g, ni.out, "wrap_if_out") ||
	    host->output_set(ctx, g, 0, ni.out) ||
	    host->output_set_kind(ctx, g, 0, kind, target))
		return ONNXC_ERROR;
	return ONNXC_OK;
}

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_pass_info pass = {
		.size = sizeof pass,
		.name = "wrap-if",
		.summary = "output 0 through an If whose branches return it",
		.run = run,
		.needs = ONNXC_PROP_ONNX,
	};
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN("nest", "1.0", init, NULL);
