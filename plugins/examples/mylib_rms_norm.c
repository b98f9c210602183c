/* mylib_rms_norm.c - an example translation plugin.
 *
 * A model calls a custom op, registered in Python with torch.library:
 *
 *     @torch.library.custom_op("mylib::rms_norm", mutates_args=())
 *     def rms_norm(x: Tensor, weight: Tensor, eps: float) -> Tensor:
 *         ms = x.pow(2).mean(-1, keepdim=True)
 *         return x * torch.rsqrt(ms + eps) * weight
 *
 * and its exported dump holds
 *
 *     rms_norm: "f32[2, 5, 16]" =
 *         torch.ops.mylib.rms_norm.default(x, p_w, 1e-06)
 *
 * which onnxc reads as an FX node of op "mylib::rms_norm.default".  This
 * plugin lowers it to ONNX:
 *
 *     y = x / Sqrt(ReduceMean(x * x, axes=[-1], keepdims=1) + eps) * weight
 *
 * Build it against an installed onnxc (see CMakeLists.txt) and load it with
 * onnxc --load-plugin mylib_rms_norm.so.
 */
#include <onnxc/plugin.h>

/* The lowering: reads the FX node, emits ONNX nodes, binds the result.
 * Every status the host returns is checked: a failure was reported. */
static onnxc_status
lower_rms_norm(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	onnxc_graph fx = host->graph(ctx);
	onnxc_node node = host->lower_node(ctx);
	onnxc_value x, w;
	onnxc_arg eps_arg;
	onnxc_value_info xi;
	onnxc_status st;

	/* Inputs: the ONNX values computing FX arguments 0 and 1. */
	if ((st = host->lower_input(ctx, 0, "x", &x)) != ONNXC_OK ||
	    (st = host->lower_input(ctx, 1, "weight", &w)) != ONNXC_OK)
		return st;

	/* eps is a Python float in the dump: read it from the FX node. */
	if (host->node_find_arg(ctx, fx, node, 2, "eps", &eps_arg) !=
	    ONNXC_OK || (eps_arg.kind != ONNXC_ARG_FLOAT &&
	    eps_arg.kind != ONNXC_ARG_INT)) {
		host->report(ctx, ONNXC_SEV_ERROR, fx, node,
		    "mylib::rms_norm: eps must be a number");
		return ONNXC_ERROR;
	}
	double eps = eps_arg.kind == ONNXC_ARG_FLOAT ? eps_arg.f :
	    (double)eps_arg.i;

	/* The element type comes from the FX annotation of x.  This example
	 * handles float and double; anything else is declined, which hands
	 * the node to the next lowering (or to an "unsupported operator"
	 * error when there is none). */
	onnxc_arg xa;
	if (host->node_find_arg(ctx, fx, node, 0, "x", &xa) != ONNXC_OK ||
	    xa.kind != ONNXC_ARG_VALUE ||
	    host->value_get(ctx, fx, xa.ref, &xi) != ONNXC_OK)
		return ONNXC_DECLINE;
	uint32_t dt = xi.dtype;
	onnxc_value e;
	if (dt == ONNXC_DT_F32) {
		float f = (float)eps;
		e = host->lower_const(ctx, dt, 0, NULL, &f);
	} else if (dt == ONNXC_DT_F64) {
		e = host->lower_const(ctx, dt, 0, NULL, &eps);
	} else {
		return ONNXC_DECLINE;
	}

	/* x * x */
	onnxc_value in2[2] = {x, x};
	onnxc_node sq = host->lower_emit(ctx, "", "Mul", 2, in2, 1);

	/* ReduceMean over the last axis.  Opset 18 moved `axes` from an
	 * attribute to a second input. */
	onnxc_node_info sqi, mi, ai, ri, di, yi;
	if (!sq || host->node_get(ctx, host->lower_graph(ctx), sq, &sqi) !=
	    ONNXC_OK)
		return ONNXC_ERROR;
	host->lower_set_dtype(ctx, sqi.out, dt);
	onnxc_node mean;
	int64_t axis = -1;
	onnxc_arg keep = {ONNXC_ARG_INT, 0, 1, 0, 0, 0, 0};
	if (host->opset(ctx) >= 18) {
		int64_t one = 1;
		onnxc_value axes = host->lower_const(ctx, ONNXC_DT_I64, 1, &one,
		    &axis);
		onnxc_value min[2] = {sqi.out, axes};
		mean = host->lower_emit(ctx, "", "ReduceMean", 2, min, 1);
	} else {
		onnxc_arg item = {ONNXC_ARG_INT, 0, axis, 0, 0, 0, 0}, axes;
		if (host->lower_list(ctx, ONNXC_ARG_LIST, &item, 1, &axes) !=
		    ONNXC_OK)
			return ONNXC_ERROR;
		mean = host->lower_emit(ctx, "", "ReduceMean", 1, &sqi.out, 1);
		if (mean && host->lower_attr(ctx, mean, "axes", &axes) !=
		    ONNXC_OK)
			return ONNXC_ERROR;
	}
	onnxc_graph og = host->lower_graph(ctx);
	if (!mean || host->lower_attr(ctx, mean, "keepdims", &keep) !=
	    ONNXC_OK || host->node_get(ctx, og, mean, &mi) != ONNXC_OK)
		return ONNXC_ERROR;
	host->lower_set_dtype(ctx, mi.out, dt);

	/* + eps, Sqrt, x / that, * weight */
	onnxc_value ain[2] = {mi.out, e};
	onnxc_node add = host->lower_emit(ctx, "", "Add", 2, ain, 1);
	if (!add || host->node_get(ctx, og, add, &ai) != ONNXC_OK)
		return ONNXC_ERROR;
	host->lower_set_dtype(ctx, ai.out, dt);
	onnxc_node rt = host->lower_emit(ctx, "", "Sqrt", 1, &ai.out, 1);
	if (!rt || host->node_get(ctx, og, rt, &ri) != ONNXC_OK)
		return ONNXC_ERROR;
	host->lower_set_dtype(ctx, ri.out, dt);
	onnxc_value din[2] = {x, ri.out};
	onnxc_node div = host->lower_emit(ctx, "", "Div", 2, din, 1);
	if (!div || host->node_get(ctx, og, div, &di) != ONNXC_OK)
		return ONNXC_ERROR;
	host->lower_set_dtype(ctx, di.out, dt);
	onnxc_value yin[2] = {di.out, w};
	onnxc_node y = host->lower_emit(ctx, "", "Mul", 2, yin, 1);
	if (!y || host->node_get(ctx, og, y, &yi) != ONNXC_OK)
		return ONNXC_ERROR;
	host->lower_set_dtype(ctx, yi.out, dt);

	/* FX output 0 is computed by the last Mul. */
	return host->lower_bind(ctx, 0, yi.out);
}

static const onnxc_lowering_info rms_norm = {
	sizeof(onnxc_lowering_info),
	"mylib::rms_norm.default", /* the op as the dump names it */
	"",                        /* emits ai.onnx ops */
	13, 1000,                  /* ReduceMean's two forms cover 13.. */
	lower_rms_norm, NULL,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	/* Check the host is recent enough for what we call. */
	if (!ONNXC_HOST_HAS(host, lower_list))
		return ONNXC_VERSION;
	return host->register_lowering(reg, &rms_norm);
}

ONNXC_PLUGIN("mylib-rms-norm", "1.0", init, NULL);
