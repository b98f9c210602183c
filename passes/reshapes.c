/* reshapes.c - pass "static-reshapes": a Reshape to a shape computed at
 * run time gets that shape as a constant when its result's type fixes it.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition, result types as "symbolize-shapes" and "lower" give them.
 * Provides (onnxc/rewrite.h): Reshape(x, s) with s not a constant, x and
 * the result of known rank, becomes Reshape(x, c) with c a constant:
 * each result dim that is a number is that number, one that is the same
 * symbolic size as x's dim at the same place is 0 (copy it), and at most
 * one other symbolic dim is -1.  Never with allowzero, nor when a dim is
 * 0.  The Shape, Gather, Unsqueeze and Concat nodes that computed s are
 * left to "dce".
 */
#include <onnxc/rewrite.h>

enum { R = ONNXC_RW_MAXRANK };

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_value x = onnxc_rw_in(r, n, 0), s = onnxc_rw_in(r, n, 1);
	onnxc_dim dx[R], dy[R];
	uint32_t tx, ty;
	int32_t rx, ry;
	int64_t c[R];
	int guessed = 0;
	if (!onnxc_rw_is(r, ni, "Reshape") || ni->nout != 1 || !x || !s ||
	    onnxc_rw_ints(r, s, c, R) >= 0 ||
	    onnxc_rw_attr_i(r, n, "allowzero", 0) ||
	    !onnxc_rw_type(r, x, &tx, &rx, dx) ||
	    !onnxc_rw_type(r, ni->out, &ty, &ry, dy) || rx < 0 || ry < 0)
		return 0;
	for (int32_t i = 0; i < rx; i++)
		if (!dx[i].e && dx[i].n <= 0)
			return 0; /* -1 would not know what to take */
	for (int32_t i = 0; i < ry; i++) {
		if (!dy[i].e) {
			if (dy[i].n <= 0)
				return 0;
			c[i] = dy[i].n;
		} else if (i < rx && dx[i].e == dy[i].e) {
			c[i] = 0;
		} else if (!guessed++) {
			c[i] = -1;
		} else {
			return 0;
		}
	}
	int64_t len = ry;
	onnxc_value in[2] = {x, onnxc_rw_initializer(r, "reshape_shape",
	    ONNXC_DT_I64, 1, &len, c)};
	return in[1] && onnxc_rw_swap(r, n, ni, "Reshape", 2, in) != 0;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "static-reshapes", visit, 1);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "static-reshapes",
	.summary = "give a Reshape the constant shape its result's type fixes",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(reshapes, "static-reshapes", "1.0", init, NULL);
