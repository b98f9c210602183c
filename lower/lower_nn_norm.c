/* lower_nn_norm.c - lowering rules for normalization: batch, layer, group
 * and instance norm, and their training forms.  Helpers shared with the
 * other lower_nn*.c files are in lower_nn.h. */
#include <math.h>
#include <string.h>

#include "lower_nn.h"

/* ---------------------------------------------------------- normalization */

/* Where a batch-norm overload keeps its arguments; -1: absent.  An
 * overload without a training flag has TRAINING or INFERENCE there. */
enum { TRAINING = -1, INFERENCE = -2 };

typedef struct BnArgs {
	int rm, rv, training, momentum, eps;
	bool functional; /* outputs upd, upd + 1: the updated running stats */
	int upd;         /* 0: 3 */
	int reserve;     /* an empty reserve-space output, or 0 */
} BnArgs;

/* Batch or instance normalization of half x (as float) with its mean
 * and biased variance var (float, over the normalized dims) as PyTorch's
 * half kernel rounds: the mean and 1 / sqrt(var + eps) kept in half (*mean
 * and *rstd get them; bfloat16 also its sum of squares, cnt times var,
 * and var + eps), then x * alpha + beta, alpha = rstd w and beta = b -
 * mean alpha, as one fused multiply-add (in float64, then rounded). */
static ValId
half_norm(Lower *L, ValId x, ValId *mean, ValId var, ValId cnt, ValId w,
    ValId b, int r, double eps, DType hdt, ValId *rstd)
{
	*mean = lw_rounded(L, *mean, hdt);
	ValId ve = lw_op2(L, "Add", var, lw_scalar(L, eps, DT_F32));
	if (hdt == DT_BF16)  /* its sum of squares and var + eps in bf16 */
		ve = lw_rounded(L, lw_op2(L, "Add", lw_op2(L, "Div",
		    lw_rounded(L, lw_op2(L, "Mul", var, cnt), hdt), cnt),
		    lw_scalar(L, eps, DT_F32)), hdt);
	*rstd = lw_rounded(L, lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", ve)),
	    hdt);
	ValId alpha = w ? lw_op2(L, "Mul", *rstd, lwn_per_channel(L, w, r)) :
	    *rstd;
	ValId beta = lw_op1(L, "Neg", lw_op2(L, "Mul", *mean, alpha));
	if (b)
		beta = lw_op2(L, "Add", lwn_per_channel(L, b, r), beta);
	return lw_cast(L, lw_op2(L, "Add", lw_op2(L, "Mul", lw_cast(L, x,
	    DT_F64), lw_cast(L, alpha, DT_F64)), lw_cast(L, beta, DT_F64)),
	    DT_F32);
}

/* An empty [0] tensor: what PyTorch returns for save_mean/save_invstd
 * when no statistics are computed. */
static void
bind_empty(Lower *L, int k)
{
	if (!lwn_used(L, k))
		return;
	int64_t zero = 0;
	DType dt = (DType)lw_outval(L, k)->dtype;
	lw_bind(L, k, lw_const(L, dt ? dt : DT_F32, 1, &zero, NULL));
}

static int
batch_norm(Lower *L, const BnArgs *a)
{
	const Value *xv = lw_srcval(L, 0, "input");
	/* PyTorch takes an empty 1-D input; the outputs become empty
	 * constants */
	if (xv && xv->rank == 1 && lw_outputs_empty(L))
		return 0;
	if (!xv || xv->rank < 2)
		return lw_fail(L, "input must be a tensor of rank >= 2");
	int r = xv->rank;
	bool training = a->training == TRAINING ? true
	    : a->training == INFERENCE ? false
	    : lw_bool(L, a->training, "training", false);
	double mom = lw_float(L, a->momentum, "momentum", 0.1);
	double eps = lw_float(L, a->eps, "eps", 1e-5);
	bool err = false;
	ValId x = lwn_f32(L, lw_in(L, 0, "input"));
	ValId w = lwn_f32(L, lwn_opt_in(L, 1, "weight", &err));
	ValId b = lwn_f32(L, lwn_opt_in(L, 2, "bias", &err));
	ValId rm = a->rm < 0 ? 0
	    : lwn_f32(L, lwn_opt_in(L, a->rm, "running_mean",
	    &err));
	ValId rv = a->rv < 0 ? 0
	    : lwn_f32(L, lwn_opt_in(L, a->rv, "running_var",
	    &err));
	if (!x || err)
		return -1;
	int u = a->upd ? a->upd : 3;
	if (a->reserve)
		bind_empty(L, a->reserve);
	bool stats_used = lwn_used(L, 1) || lwn_used(L, 2) || (a->functional &&
	    (lwn_used(L, u) || lwn_used(L, u + 1)));
	if (training && L->training && L->bn_onnx && L->opset >= 14 &&
	    !stats_used) {
		/* ONNX's own training-mode batch norm, which ONNX Runtime's
		 * training builds differentiate and update; its inference
		 * builds run it as inference batch norm */
		ValId ch = lwn_shape_of(L, x, 1, 2);
		NodeId n = lw_emit(L, "BatchNormalization", 5, (ValId[]){x,
		    w ? w : lwn_fill(L, ch, 1, DT_F32), b ? b
		    : lwn_fill(L, ch, 0,
		    DT_F32), rm ? rm : lwn_fill(L, ch, 0, DT_F32), rv ? rv :
		    lwn_fill(L, ch, 1, DT_F32)}, 3);
		lw_attr_float(L, n, "epsilon", eps);
		lw_attr_float(L, n, "momentum", 1 - mom);
		lw_attr_int(L, n, "training_mode", 1);
		/* ONNX wants the running statistics as outputs here */
		lw_settype(L, lw_res(L, n, 1), DT_F32);
		lw_settype(L, lw_res(L, n, 2), DT_F32);
		lwn_bind_out(L, 0, lwn_settyped(L, n, 0, DT_F32));
		return 0;
	}
	if (!training && rm && rv) {
		ValId ch = lwn_shape_of(L, x, 1, 2);
		if (!w)
			w = lwn_fill(L, ch, 1, DT_F32);
		if (!b)
			b = lwn_fill(L, ch, 0, DT_F32);
		NodeId n = lw_emit(L, "BatchNormalization", 5,
		    (ValId[]){x, w, b, rm, rv}, 1);
		lw_attr_float(L, n, "epsilon", eps);
		lw_attr_float(L, n, "momentum", 1 - mom);
		lwn_bind_out(L, 0, lwn_settyped(L, n, 0, DT_F32));
		bind_empty(L, 1);
		bind_empty(L, 2);
		if (a->functional) { /* stats unchanged in eval mode */
			if (lwn_used(L, u))
				lwn_bind_out(L, u, rm);
			if (lwn_used(L, u + 1))
				lwn_bind_out(L, u + 1, rv);
		}
		return 0;
	}
	/* training mode: statistics of this batch over every dim but C;
	 * the biased variance normalizes, the unbiased one is tracked */
	int64_t axes[8];
	int na = 0;
	for (int k = 0; k < r && na < 8; k++)
		if (k != 1)
			axes[na++] = k;
	ValId mean = lwn_reduce(L, "ReduceMean", x, axes, na, true);
	ValId d = lw_op2(L, "Sub", x, mean);
	ValId var = lwn_reduce(L, "ReduceMean", lw_op2(L, "Mul", d, d), axes,
	    na,
	    true);
	ValId rstd, y;
	DType hdt = (DType)xv->dtype;
	if (hdt == DT_F16 || hdt == DT_BF16) {
		ValId cnt = lw_op2(L, "Div", lw_cast(L, lwn_settyped(L,
		    lw_emit(L, "Size", 1, &x, 1), 0, DT_I64), DT_F32), lw_cast(L,
		    lwn_shape_of(L, x, 1, 2), DT_F32));
		y = half_norm(L, x, &mean, var, cnt, w, b, r, eps, hdt, &rstd);
	} else {
		rstd = lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", lw_op2(L,
		    "Add", var, lw_scalar(L, eps, DT_F32))));
		y = lw_op2(L, "Mul", d, rstd);
		if (w)
			y = lw_op2(L, "Mul", y, lwn_per_channel(L, w, r));
		if (b)
			y = lw_op2(L, "Add", y, lwn_per_channel(L, b, r));
	}
	lwn_bind_out(L, 0, y);
	int64_t flat = -1;
	if (lwn_used(L, 1))
		lwn_bind_out(L, 1, lwn_reshape(L, mean, &flat, 1));
	if (lwn_used(L, 2))
		lwn_bind_out(L, 2, lwn_reshape(L, rstd, &flat, 1));
	if (!a->functional || !(lwn_used(L, u) || lwn_used(L, u + 1)))
		return 0;
	if (!rm || !rv)
		return lw_fail(L, "running statistics are missing");
	ValId m = lw_scalar(L, mom, DT_F32), keep = lw_scalar(L, 1 - mom,
	    DT_F32);
	if (lwn_used(L, u)) {
		ValId bm = lwn_reshape(L, mean, &flat, 1);
		lwn_bind_out(L, u, lw_op2(L, "Add", lw_op2(L, "Mul", rm, keep),
		    lw_op2(L, "Mul", bm, m)));
	}
	if (lwn_used(L, u + 1)) {
		/* n / (n - 1) with n = numel / C elements per channel */
		NodeId sz = lw_emit(L, "Size", 1, &x, 1);
		ValId numel = lw_cast(L, lwn_settyped(L, sz, 0, DT_I64),
		    DT_F32);
		ValId cnt = lw_op2(L, "Div", numel,
		    lw_cast(L, lwn_shape_of(L, x,
		    1, 2), DT_F32));
		ValId corr = lw_op2(L, "Div", cnt, lw_op2(L, "Sub", cnt,
		    lw_scalar(L, 1, DT_F32)));
		ValId bv = lw_op2(L, "Mul", lwn_reshape(L, var, &flat, 1),
		    corr);
		lwn_bind_out(L, u + 1, lw_op2(L, "Add", lw_op2(L, "Mul", rv, keep),
		    lw_op2(L, "Mul", bv, m)));
	}
	return 0;
}

/* _native_batch_norm_legit_no_training(input, weight?, bias?,
 * running_mean, running_var, momentum, eps) */
static int
bn_no_training(Lower *L)
{
	return batch_norm(L, &(BnArgs){3, 4, INFERENCE, 5, 6, false, 0, 0});
}

/* _native_batch_norm_legit_functional(input, weight?, bias?, running_mean,
 * running_var, training, momentum, eps) -> (out, mean, rstd, new running
 * mean, new running var) */
static int
bn_functional(Lower *L)
{
	return batch_norm(L, &(BnArgs){3, 4, 5, 6, 7, true, 0, 0});
}

/* native_batch_norm, _native_batch_norm_legit, batch_norm: (input, weight?,
 * bias?, running_mean?, running_var?, training, momentum, eps, ...) */
static int
bn_native(Lower *L)
{
	return batch_norm(L, &(BnArgs){3, 4, 5, 6, 7, false, 0, 0});
}

/* _batch_norm_with_update(input, weight?, bias?, running_mean,
 * running_var, momentum, eps) -> (out, save_mean, save_rstd, reserve):
 * training mode; the running stats it updates in place are not outputs
 * here (the functionalize pass makes the functional form of it) */
static int
bn_with_update(Lower *L)
{
	return batch_norm(L, &(BnArgs){3, 4, TRAINING, 5, 6, false, 0, 3});
}

/* _batch_norm_with_update_functional(...) -> (out, save_mean, save_rstd,
 * reserve, new running mean, new running var) */
static int
bn_with_update_functional(Lower *L)
{
	return batch_norm(L, &(BnArgs){3, 4, TRAINING, 5, 6, true, 4, 3});
}

/* _native_batch_norm_legit.no_stats(input, weight?, bias?, training,
 * momentum, eps): always batch statistics */
static int
bn_no_stats(Lower *L)
{
	return batch_norm(L, &(BnArgs){-1, -1, TRAINING, 4, 5, false, 0, 0});
}

/* instance_norm(input, weight?, bias?, running_mean?, running_var?,
 * use_input_stats, momentum, eps, cudnn_enabled) */
static int
instance_norm(Lower *L)
{
	if (!lw_bool(L, 5, "use_input_stats", true))
		return batch_norm(L, &(BnArgs){3, 4, INFERENCE, 6, 7,
		    false, 0, 0});
	const Value *xv = lw_srcval(L, 0, "input");
	if (!xv || xv->rank < 3)
		return lw_fail(L, "input must be a tensor of rank >= 3");
	double eps = lw_float(L, 7, "eps", 1e-5);
	bool err = false;
	ValId x = lwn_f32(L, lw_in(L, 0, "input"));
	ValId w = lwn_f32(L, lwn_opt_in(L, 1, "weight", &err));
	ValId b = lwn_f32(L, lwn_opt_in(L, 2, "bias", &err));
	if (!x || err)
		return -1;
	DType hdt = (DType)xv->dtype;
	if (hdt == DT_F16 || hdt == DT_BF16) {
		/* PyTorch normalizes half instances with its half batch norm
		 * kernel over [1, N*C, ...]: its rounding, per (n, c) */
		int64_t axes[8];
		int na = 0;
		for (int k = 2; k < xv->rank && na < 8; k++)
			axes[na++] = k;
		ValId mean = lwn_reduce(L, "ReduceMean", x, axes, na, true), rstd;
		ValId d = lw_op2(L, "Sub", x, mean);
		ValId var = lwn_reduce(L, "ReduceMean", lw_op2(L, "Mul", d, d),
		    axes, na, true);
		ValId cnt = lw_cast(L, lwn_reduce(L, "ReduceProd",
		    lwn_shape_of(L, x, 2, INT64_MAX), NULL, 0, false), DT_F32);
		lwn_bind_out(L, 0, half_norm(L, x, &mean, var, cnt, w, b,
		    xv->rank, eps, hdt, &rstd));
		return 0;
	}
	ValId ch = lwn_shape_of(L, x, 1, 2);
	if (!w)
		w = lwn_fill(L, ch, 1, DT_F32);
	if (!b)
		b = lwn_fill(L, ch, 0, DT_F32);
	NodeId n = lw_emit(L, "InstanceNormalization", 3, (ValId[]){x, w, b},
	    1);
	lw_attr_float(L, n, "epsilon", eps);
	lwn_bind_out(L, 0, lwn_settyped(L, n, 0, DT_F32));
	return 0;
}

/* native_layer_norm(input, normalized_shape, weight?, bias?, eps) ->
 * (out, mean, rstd); layer_norm(input, normalized_shape, weight=None,
 * bias=None, eps=1e-5, cudnn_enable) -> out.  LayerNormalization (opset
 * 17) normalizes over the trailing axes from `axis` on, and its Mean and
 * InvStdDev have PyTorch's [*, 1, ..., 1] shape. */
static int
layer_norm(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "input");
	/* only its length matters: the sizes may be symbolic */
	const Arg *ns = lw_arg(L, 1, "normalized_shape");
	int k = ns && (ns->kind == A_LIST || ns->kind == A_TUPLE)
	    ? (int)ns->u.list.n : 1;
	if (!xv || xv->rank < k || k == 0)
		return lw_fail(L, "normalized_shape does not fit the input");
	int64_t axis = xv->rank - k;
	double eps = lw_float(L, 4, "eps", 1e-5);
	bool err = false;
	ValId x = lwn_f32(L, lw_in(L, 0, "input"));
	ValId w = lwn_f32(L, lwn_opt_in(L, 2, "weight", &err));
	ValId b = lwn_f32(L, lwn_opt_in(L, 3, "bias", &err));
	if (!x || err)
		return -1;
	if (!w)
		w = lwn_fill(L, lwn_shape_of(L, x, axis, INT64_MAX), 1, DT_F32);
	bool stats = lwn_used(L, 1) || lwn_used(L, 2);
	NodeId n = lw_emit(L, "LayerNormalization", b ? 3 : 2,
	    (ValId[]){x, w, b}, stats ? 3 : 1);
	lw_attr_int(L, n, "axis", axis);
	lw_attr_float(L, n, "epsilon", eps);
	lwn_bind_out(L, 0, lwn_settyped(L, n, 0, DT_F32));
	if (stats) {
		lwn_bind_out(L, 1, lwn_settyped(L, n, 1, DT_F32));
		lwn_bind_out(L, 2, lwn_settyped(L, n, 2, DT_F32));
	}
	return 0;
}

/* Group norm as a decomposition: GroupNormalization's scale/bias changed
 * meaning at opset 21 (per group -> per channel).  x [N, C, *] is viewed
 * as [N, G, -1], normalized, viewed back and scaled per channel. */
static int
group_norm(Lower *L, int ig, int iw, int ib, int ieps)
{
	const Value *xv = lw_srcval(L, 0, "input");
	if (!xv || xv->rank < 2)
		return lw_fail(L, "input must be a tensor of rank >= 2");
	int64_t g = lw_int(L, ig, "group", 1);
	double eps = lw_float(L, ieps, "eps", 1e-5);
	bool err = false;
	ValId x = lwn_f32(L, lw_in(L, 0, "input"));
	ValId w = lwn_f32(L, lwn_opt_in(L, iw, "weight", &err));
	ValId b = lwn_f32(L, lwn_opt_in(L, ib, "bias", &err));
	if (!x || err)
		return -1;
	if (g < 1)
		return lw_fail(L, "invalid number of groups %lld",
		    (long long)g);
	ValId xs = lwn_reshape(L, x, (int64_t[]){0, g, -1}, 3);
	int64_t ax = 2;
	ValId mean = lwn_reduce(L, "ReduceMean", xs, &ax, 1, true);
	ValId d = lw_op2(L, "Sub", xs, mean);
	ValId var = lwn_reduce(L, "ReduceMean", lw_op2(L, "Mul", d, d), &ax, 1,
	    true);
	ValId rstd = lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", lw_op2(L,
	    "Add", var, lw_scalar(L, eps, DT_F32))));
	ValId y = lw_op2(L, "Reshape", lw_op2(L, "Mul", d, rstd),
	    lwn_shape_of(L,
	    x, 0, INT64_MAX));
	if (w)
		y = lw_op2(L, "Mul", y, lwn_per_channel(L, w, xv->rank));
	if (b)
		y = lw_op2(L, "Add", y, lwn_per_channel(L, b, xv->rank));
	lwn_bind_out(L, 0, y);
	if (lwn_used(L, 1))
		lwn_bind_out(L, 1, lwn_squeeze(L, mean, 2));
	if (lwn_used(L, 2))
		lwn_bind_out(L, 2, lwn_squeeze(L, rstd, 2));
	return 0;
}

/* native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) */
static int
native_group_norm(Lower *L)
{
	return group_norm(L, 6, 1, 2, 7);
}

/* group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, ...) */
static int
group_norm_rule(Lower *L)
{
	return group_norm(L, 1, 2, 3, 4);
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn_norm LW_THIS
const LowerRule lw_rules_nn_norm[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
