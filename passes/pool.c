/* pool.c - pass "fuse-pool-flatten": a global average pool whose result
 * is flattened to (N, C) is one ReduceMean.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition; opset 18 or later (ReduceMean's axes as an input).
 * Provides (onnxc/rewrite.h): Reshape or Flatten of
 * GlobalAveragePool(x), the pool's result having no other user and the
 * view's result being x's first two dims, becomes ReduceMean(x, axes 2
 * .. rank-1, keepdims 0): the same means of the same elements.
 */
#include <onnxc/rewrite.h>

enum { R = ONNXC_RW_MAXRANK };

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info pi;
	uint32_t dt, dy;
	int32_t rank, ry;
	onnxc_dim dx[R], d[R];
	int64_t axes[R];
	if (ni->nout != 1 || (!onnxc_rw_is(r, ni, "Reshape") &&
	    !onnxc_rw_is(r, ni, "Flatten")) || r->h->opset(r->ctx) < 18)
		return 0;
	onnxc_value p = onnxc_rw_in(r, n, 0);
	onnxc_node g = onnxc_rw_def(r, p, "GlobalAveragePool", &pi);
	onnxc_value x = g ? onnxc_rw_in(r, g, 0) : 0;
	if (!g || !onnxc_rw_single(r, p) ||
	    !onnxc_rw_type(r, x, &dt, &rank, dx) || rank < 3 ||
	    !onnxc_rw_type(r, ni->out, &dy, &ry, d) || ry != 2 || dy != dt)
		return 0;
	for (int i = 0; i < 2; i++)
		if (d[i].e != dx[i].e || (!d[i].e && d[i].n != dx[i].n))
			return 0;
	for (int32_t i = 2; i < rank; i++)
		axes[i - 2] = i;
	int64_t len = rank - 2;
	onnxc_value in[2] = {x, onnxc_rw_initializer(r, "pool_axes",
	    ONNXC_DT_I64, 1, &len, axes)};
	if (!in[1])
		return 0;
	onnxc_node m = onnxc_rw_swap(r, n, ni, "ReduceMean", 2, in);
	onnxc_rw_set_i(r, m, "keepdims", 0);
	return m != 0;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "fuse-pool-flatten", visit, 1);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "fuse-pool-flatten",
	.summary = "a global average pool flattened to (N, C) is one "
	    "ReduceMean",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(pool, "fuse-pool-flatten", "1.0", init, NULL);
