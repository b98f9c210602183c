/* quant.c - inside the decompose plugin: fake quantization, as QAT models
 * run it (torch.ao.quantization.FakeQuantize, fake_quantize_per_*).
 *
 * PyTorch's CPU kernels compute q = zero_point + nearbyint(x * inv_scale)
 * with inv_scale = 1.0f / scale in float, clamp q to [quant_min,
 * quant_max] and give (q - zero_point) * scale; the cachemask overloads
 * also give q's being in range (the gradient's mask).  nearbyint rounds
 * half to even, as aten::round does.  Per channel, scale and zero_point
 * run along `axis`.  _fake_quantize_per_tensor_affine_cachemask_
 * tensor_qparams passes x through where fake_quant_enabled is 0. */
#include <string.h>

#include "decompose.h"

/* a 1-D per-channel parameter viewed to broadcast along axis of x */
static TV
along(Rw *r, TV p, int64_t axis, const TV *x, uint32_t dt)
{
	p = dec_cast(r, p, dt);
	if (p.t.rank != 1)
		return p;
	Ty t = {dt, x->t.rank, {{0, 0}}};
	for (int i = 0; i < x->t.rank; i++)
		t.d[i] = i == axis ? p.t.d[0] : (onnxc_dim){1, 0};
	return dec_tv(dec_view(r, p.v, &t), t);
}

/* Per channel the axis (argument 3, normalized against x), then
 * quant_min and quant_max at `at` and `at` + 1; 0 when they are not ints,
 * the axis is out of range or the range empty */
static int
q_range(Rw *r, int chan, int at, const TV *x, int64_t *axis, int64_t *qmin,
    int64_t *qmax)
{
	*axis = 0;
	if ((chan && !dec_arg_int(r, 3, "axis", 0, axis)) ||
	    !dec_arg_int(r, at, "quant_min", 0, qmin) ||
	    !dec_arg_int(r, at + 1, "quant_max", 0, qmax) || *qmin > *qmax)
		return 0;
	if (*axis < 0)
		*axis += x->t.rank;
	return !chan || (*axis >= 0 && *axis < x->t.rank);
}

int
dec_fake_quant(Rw *r)
{
	const char *op = r->h->str(r->ctx, r->ni.op);
	int chan = strstr(op, "per_channel") != NULL;
	int tq = strstr(op, "tensor_qparams") != NULL;
	int enabled = strstr(op, "_cachemask_tensor_qparams") != NULL;
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	/* the ints after the tensors: (axis,) quant_min, quant_max */
	int at = 3 + enabled + chan;
	int64_t axis = 0, qmin, qmax;
	if (!x.v || !o.v || !dec_dt_float(x.t.dtype) ||
	    !q_range(r, chan, at, &x, &axis, &qmin, &qmax))
		return 0;
	uint32_t dt = x.t.dtype;
	TV q;
	TV sc = {0}, zp = {0};
	double s = 0, z = 0;
	if (chan || tq) {
		sc = dec_in(r, 1, "scale");
		zp = dec_in(r, 2, "zero_point");
		if (!sc.v || !zp.v)
			return 0;
		sc = chan ? along(r, sc, axis, &x, dt) : dec_cast(r, sc, dt);
		zp = chan ? along(r, zp, axis, &x, dt) : dec_cast(r, zp, dt);
		TV inv = dec_u(r, "aten::reciprocal.default", sc);
		q = dec_add(r, zp, dec_u(r, "aten::round.default",
		    dec_mul(r, x, inv)));
	} else {
		int64_t zi;
		if (!dec_arg_float(r, 1, "scale", 0, &s) ||
		    !dec_arg_int(r, 2, "zero_point", 0, &zi))
			return 0;
		z = (double)zi;
		/* 1.0f / scale, rounded to float as the kernel's is */
		float inv = 1.0f / (float)s;
		q = dec_adds(r, dec_u(r, "aten::round.default", dec_muls(r, x,
		    (double)inv)), z);
	}
	TV c = dec_tv(EMIT(r, "aten::clamp.default", &q.t, dec_a_val(q.v),
	    dec_a_float((double)qmin), dec_a_float((double)qmax)), q.t);
	TV y = chan || tq ? dec_mul(r, dec_sub(r, c, zp), sc) :
	    dec_muls(r, dec_adds(r, c, -z), s);
	TV in = dec_c(r, "aten::logical_and.default", dec_cs(r, "aten::ge.Scalar",
	    q, (double)qmin), dec_cs(r, "aten::le.Scalar", q, (double)qmax));
	if (enabled) {
		TV en = dec_in(r, 3, "fake_quant_enabled");
		if (!en.v)
			return 0;
		TV on = dec_cs(r, "aten::ne.Scalar", en, 0);
		y = dec_sel(r, on, y, x);
		in = dec_c(r, "aten::logical_or.default", in,
		    dec_u(r, "aten::logical_not.default", on));
	}
	dec_bind(r, 0, dec_cast(r, y, o.t.dtype).v);
	if (r->ni.nout > 1 && dec_out_used(r, 1))
		dec_bind(r, 1, in.v);
	return 1;
}

/* quantized_decomposed::quantize_per_tensor / quantize_per_channel /
 * dequantize_per_tensor / dequantize_per_channel: the Q/DQ ops of PyTorch
 * 2 export quantization (prepare_pt2e / convert_pt2e), as their Python
 * kernels (torch/ao/quantization/fx/_decomposed.py) compute them:
 *   q = clamp(round(x * (1.0 / scale)) + zero_point, quant_min,
 *       quant_max).to(dtype), 1.0 / scale in double then float for a
 *       float scale (or scale.item()), per channel 1.0 / scales in the
 *       scales' dtype;
 *   y = (q.to(out_dtype) - zero_point) * scale per tensor, per channel
 *       ((q - zero_points) * scales).to(out_dtype), q - zero_points in
 *       integers.
 * Half inputs quantize in float32, as there.  The quantized dtype and
 * out_dtype are the outputs' types. */
static TV
as_0d(Rw *r, TV p)
{
	if (p.t.rank == 0)
		return p;
	Ty t = p.t;
	t.rank = 0;
	return dec_tv(dec_view(r, p.v, &t), t);
}

int
dec_qdq(Rw *r)
{
	const char *op = r->h->str(r->ctx, r->ni.op);
	int deq = strstr(op, "dequantize") != NULL;
	int chan = strstr(op, "per_channel") != NULL;
	int tq = strstr(op, ".tensor") != NULL;
	TV x = dec_in(r, 0, "input"), o = dec_out(r, 0);
	int64_t axis = 0, qmin, qmax;
	int at = 3 + chan;
	if (!x.v || !o.v || !q_range(r, chan, at, &x, &axis, &qmin, &qmax))
		return 0;
	TV sc = {0}, zp = {0};
	double s = 0;
	int64_t z = 0;
	if (chan || tq) {
		sc = dec_in(r, 1, chan ? "scales" : "scale");
		zp = dec_in(r, 2, chan ? "zero_points" : "zero_point");
		if (!sc.v || (!zp.v && !(chan && deq)) ||
		    !dec_dt_float(sc.t.dtype))
			return 0;
		if (tq) {
			if (!dec_ty_static(&sc.t) || !dec_ty_static(&zp.t))
				return 0;
			sc = as_0d(r, sc);
			zp = as_0d(r, zp);
		}
	} else if (!dec_arg_float(r, 1, "scale", 0, &s) ||
	    !dec_arg_int(r, 2, "zero_point", 0, &z)) {
		return 0;
	}
	uint32_t od = o.t.dtype, sd = sc.v && sc.t.dtype == ONNXC_DT_F64 ?
	    ONNXC_DT_F64 : ONNXC_DT_F32;
	TV y;
	if (!deq) {
		if (!dec_dt_float(x.t.dtype))
			return 0;
		TV q;
		if (chan) {
			TV inv = dec_u(r, "aten::reciprocal.default", along(r,
			    sc, axis, &x, sd));
			q = dec_add(r, dec_u(r, "aten::round.default", dec_mul(r,
			    dec_cast(r, x, sd), inv)), along(r, zp, axis, &x,
			    sd));
		} else if (tq) {
			TV inv = dec_cast(r, dec_u(r, "aten::reciprocal.default",
			    dec_cast(r, sc, ONNXC_DT_F64)), ONNXC_DT_F32);
			q = dec_add(r, dec_u(r, "aten::round.default", dec_mul(r,
			    dec_cast(r, x, ONNXC_DT_F32), inv)), dec_cast(r, zp,
			    ONNXC_DT_F32));
		} else {
			float inv = (float)(1.0 / s);
			q = dec_adds(r, dec_u(r, "aten::round.default",
			    dec_muls(r, dec_cast(r, x, ONNXC_DT_F32),
			    (double)inv)), (double)z);
		}
		y = dec_tv(EMIT(r, "aten::clamp.default", &q.t,
		    dec_a_val(q.v), dec_a_float((double)qmin),
		    dec_a_float((double)qmax)), q.t);
	} else if (chan) {
		TV d = x;
		if (zp.v && dec_dt_float(zp.t.dtype))
			d = dec_sub(r, dec_cast(r, x, zp.t.dtype), along(r, zp,
			    axis, &x, zp.t.dtype));
		else if (zp.v)
			d = dec_sub(r, dec_cast(r, x, ONNXC_DT_I64), along(r, zp,
			    axis, &x, ONNXC_DT_I64));
		y = dec_mul(r, dec_cast(r, d, sd), along(r, sc, axis, &x, sd));
	} else {
		/* a half out_dtype: PyTorch's half kernels compute in float
		 * and round once, which float32 and a last Cast do too (and
		 * x - zero_point is exact in half) */
		uint32_t ct = od == ONNXC_DT_F16 || od == ONNXC_DT_BF16 ?
		    ONNXC_DT_F32 : od;
		if (tq)
			y = dec_mul(r, dec_sub(r, dec_cast(r, x, ct), dec_cast(r,
			    zp, ct)), dec_cast(r, sc, ct));
		else
			y = dec_muls(r, dec_adds(r, dec_cast(r, x, ct),
			    -(double)z), s);
	}
	dec_bind(r, 0, dec_cast(r, y, od).v);
	return 1;
}

/* quantized_decomposed::choose_qparams.tensor(input, quant_min, quant_max,
 * eps, dtype) -> (scale, zero_point): dynamic quantization's per-tensor
 * affine parameters from the input's range, as determine_qparams computes
 * them (torch/ao/quantization/utils.py), in float:
 *   lo = min(min(x), 0), hi = max(max(x), 0),
 *   scale = max((hi - lo) / (quant_max - quant_min), eps),
 *   zero_point = clamp(quant_min - round(lo / scale), quant_min, quant_max),
 * given back as float64 and int64 tensors of one element. */
int
dec_choose_qparams(Rw *r)
{
	TV x = dec_in(r, 0, "input"), os = dec_out(r, 0), oz = dec_out(r, 1);
	int64_t qmin, qmax;
	double eps;
	if (!x.v || !os.v || !dec_dt_float(x.t.dtype) ||
	    !dec_arg_int(r, 1, "quant_min", 0, &qmin) ||
	    !dec_arg_int(r, 2, "quant_max", 0, &qmax) ||
	    !dec_arg_float(r, 3, "eps", 0, &eps) || qmin >= qmax ||
	    os.t.rank != 1 || (oz.v && oz.t.rank != 1))
		return 0;
	TV lo = dec_s(r, "aten::clamp_max.default", dec_red(r,
	    "aten::amin.default", x, NULL, -1, 0), 0);
	TV hi = dec_s(r, "aten::clamp_min.default", dec_red(r,
	    "aten::amax.default", x, NULL, -1, 0), 0);
	TV sc = dec_s(r, "aten::div.Scalar", dec_sub(r, hi, lo),
	    (double)(qmax - qmin));
	sc = dec_s(r, "aten::clamp_min.default", sc, eps);
	TV zp = dec_rsubs(r, dec_u(r, "aten::round.default", dec_div(r, lo,
	    sc)), (double)qmin);
	zp = dec_tv(EMIT(r, "aten::clamp.default", &zp.t, dec_a_val(zp.v),
	    dec_a_float((double)qmin), dec_a_float((double)qmax)), zp.t);
	Ty one = {ONNXC_DT_F64, 1, {{1, 0}}};
	dec_bind(r, 0, dec_view(r, dec_cast(r, sc, ONNXC_DT_F64).v, &one));
	if (oz.v && dec_out_used(r, 1)) {
		one.dtype = ONNXC_DT_I64;
		dec_bind(r, 1, dec_view(r, dec_cast(r, zp, ONNXC_DT_I64).v,
		    &one));
	}
	return 1;
}
