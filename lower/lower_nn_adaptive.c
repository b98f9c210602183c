/* lower_nn_adaptive.c - lowering rules for adaptive pooling
 * (adaptive_{avg,max}_pool{1,2,3}d, with or without indices), of static
 * or dynamic input sizes. */
#include "lower_nn.h"

/* Window j of o along an axis of length i (static) or len (its length
 * at run time, when not 0): [floor(j*i/o), ceil((j+1)*i/o)) as 1-D
 * bounds in s[0], s[1]. */
static void
bounds(Lower *L, ValId len, int64_t i, int64_t j, int64_t o, ValId s[2])
{
	int64_t b = j * i / o, e = ((j + 1) * i + o - 1) / o;
	if (!len) {
		s[0] = lw_const_i64s(L, &b, 1);
		s[1] = lw_const_i64s(L, &e, 1);
		return;
	}
	s[0] = lw_op2(L, "Div", lw_op2(L, "Mul", len, lw_i64v(L, j)),
	    lw_i64v(L, o));
	s[1] = lw_op2(L, "Div", lw_op2(L, "Add", lw_op2(L, "Mul", len,
	    lw_i64v(L, j + 1)), lw_i64v(L, o - 1)), lw_i64v(L, o));
}

/* y and its flat indices pi (the same shape) reduced along axis to the
 * window b by their first maximum. */
static void
max_window(Lower *L, ValId *y, ValId *pi, int64_t axis, const ValId b[2])
{
	ValId v = lw_slice(L, *y, b[0], b[1], &axis, 1, 0),
	      i = lw_slice(L, *pi, b[0], b[1], &axis, 1, 0);
	NodeId am = lw_emit(L, "ArgMax", 1, &v, 1);
	lw_attr_int(L, am, "axis", axis);
	lw_attr_int(L, am, "keepdims", 1);
	ValId a = lwn_settyped(L, am, 0, DT_I64);
	NodeId g = lw_emit(L, "GatherElements", 2, (ValId[]){v, a}, 1);
	lw_attr_int(L, g, "axis", axis);
	*y = lwn_settyped(L, g, 0, lw_dtype(L, v));
	g = lw_emit(L, "GatherElements", 2, (ValId[]){i, a}, 1);
	lw_attr_int(L, g, "axis", axis);
	*pi = lwn_settyped(L, g, 0, DT_I64);
}

/* Adaptive max pooling with its indices (flat over each input plane, as
 * PyTorch gives them): the windows are taken one axis at a time, last
 * axis first, each keeping the first maximum and where it came from, so
 * of equal maxima the first in row-major order wins, as in PyTorch. */
static int
adaptive_max_idx(Lower *L, int nd, const int64_t *out, const Value *xv,
    ValId x, bool unb)
{
	int64_t in[MAXSP], plane = 1;
	bool st[MAXSP], all = true;
	for (int k = 0; k < nd; k++) {
		st[k] = lw_dim_static(xv, L->src, xv->rank - nd + k, &in[k]);
		all &= st[k];
		if (out[k] < 1 || out[k] > 1024 || (st[k] && in[k] == 0))
			return lw_fail(L, "adaptive pooling to %lld along one "
			    "axis is not supported", (long long)out[k]);
		plane *= st[k] ? in[k] : 1;
	}
	if (plane > 1 << 24)
		return lw_fail(L, "input planes of %lld elements are too big",
		    (long long)plane);
	ValId shp = lw_op1(L, "Shape", x), pi;
	lw_settype(L, shp, DT_I64);
	if (all) {
		int64_t dims[MAXSP + 2] = {1, 1};
		int64_t *v = lw_scratch(L, (size_t)plane, sizeof *v);
		for (int64_t j = 0; j < plane; j++)
			v[j] = j;
		for (int k = 0; k < nd; k++)
			dims[2 + k] = in[k];
		pi = lw_const(L, DT_I64, nd + 2, dims, v);
	} else {  /* 0 .. H*W-1 over the plane, made at run time */
		ValId sp = lwn_shape_of(L, x, 2, INT64_MAX);
		ValId r3[3] = {lw_scalar_i64(L, 0), lwn_squeeze(L, lwn_reduce(L,
		    "ReduceProd", sp, NULL, 0, true), 0), lw_scalar_i64(L, 1)};
		pi = lw_typed(L, lw_emit(L, "Range", 3, r3, 1), DT_I64);
		pi = lw_reshape(L, pi, lw_concat_shape(L, (ValId[]){
		    lw_const_i64s(L, (int64_t[]){1, 1}, 2), sp}, 2));
	}
	pi = lw_op2(L, "Expand", pi, shp);
	ValId y = x;
	for (int k = nd - 1; k >= 0; k--) {
		int64_t axis = 2 + k, o = out[k], i = st[k] ? in[k] : 0;
		if (st[k] && o == i)
			continue;
		ValId vp[1024], ip[1024], len = st[k] ? 0 : lwn_shape_of(L, x,
		    axis, axis + 1), b[2];
		for (int64_t j = 0; j < o; j++) {
			vp[j] = y;
			ip[j] = pi;
			bounds(L, len, i, j, o, b);
			max_window(L, &vp[j], &ip[j], axis, b);
		}
		y = lw_concat(L, vp, (int)o, axis, lw_dtype(L, x));
		pi = lw_concat(L, ip, (int)o, axis, DT_I64);
	}
	if (unb) {
		y = lwn_squeeze(L, y, 0);
		pi = lwn_squeeze(L, pi, 0);
	}
	lwn_bind_out(L, 0, y);
	lwn_bind_out(L, 1, pi);
	return 0;
}

/* Adaptive average pooling of half x [N, C, T, H, W] (as float) as
 * ATen's 3-D kernel computes it: each window's sum accumulated in the half
 * type ht in row-major order, rounded after every addition, then divided
 * by kT, kH and kW in turn, rounded each time.  The windows are gathered
 * from the flat planes into [N, C, O, K], padded with zeros (which add
 * nothing); 0 when they are too many for that. */
static ValId
avg3d_half(Lower *L, ValId x, const int64_t *in, const int64_t *out,
    DType ht)
{
	int64_t o = out[0] * out[1] * out[2], plane = in[0] * in[1] * in[2],
		kmax = 1;
	for (int k = 0; k < 3; k++)
		kmax *= (in[k] + out[k] - 1) / out[k] + 1;
	if (kmax > 64 || o * kmax > 1 << 20 || plane >= 1 << 30)
		return 0;
	int64_t *idx = lw_scratch(L, (size_t)(o * kmax), sizeof *idx),
		*div = lw_scratch(L, (size_t)(3 * o), sizeof *div);
	for (int64_t j = 0; j < o; j++) {
		int64_t p[3] = {j / (out[1] * out[2]), j / out[2] % out[1],
			j % out[2]}, s[3], e[3], n = 0;
		for (int k = 0; k < 3; k++) {
			s[k] = p[k] * in[k] / out[k];
			e[k] = ((p[k] + 1) * in[k] + out[k] - 1) / out[k];
			div[k * o + j] = e[k] - s[k];
		}
		for (int64_t t = s[0]; t < e[0]; t++)
			for (int64_t h = s[1]; h < e[1]; h++)
				for (int64_t w = s[2]; w < e[2]; w++)
					idx[j * kmax + n++] = (t * in[1] + h) *
					    in[2] + w;
		while (n < kmax)
			idx[j * kmax + n++] = plane;  /* the zero */
	}
	int64_t flat[3] = {0, 0, plane};
	ValId xf = lwn_reshape(L, x, flat, 3);
	ValId zero = lw_op2(L, "Mul", lw_slice_const(L, xf, 2, 0, 1, 1),
	    lw_scalar(L, 0, DT_F32));
	xf = lw_concat(L, (ValId[]){xf, zero}, 2, 2, DT_F32);
	NodeId g = lw_emit(L, "Gather", 2, (ValId[]){xf, lw_const(L, DT_I64, 2,
	    (int64_t[]){o, kmax}, idx)}, 1);
	lw_attr_int(L, g, "axis", 2);
	ValId v = lwn_settyped(L, g, 0, DT_F32), acc = 0;
	for (int64_t k = 0; k < kmax; k++) {
		ValId e = lw_slice_const(L, v, 3, k, k + 1, 1);
		acc = acc ? lw_rounded(L, lw_op2(L, "Add", acc, e), ht) : e;
	}
	acc = lwn_squeeze(L, acc, 3);
	for (int k = 0; k < 3; k++)
		acc = lw_rounded(L, lw_op2(L, "Div", acc, lw_cast(L, lw_const(L,
		    DT_I64, 1, &o, div + k * o), DT_F32)), ht);
	int64_t dims[5] = {0, 0, out[0], out[1], out[2]};
	return lwn_reshape(L, acc, dims, 5);
}

/* adaptive_{avg,max}_pool{1,2,3}d(self, output_size).  Output 1 everywhere
 * is a global pool; sizes that divide evenly are a plain pool; any other
 * split is PyTorch's windows [floor(i*in/out), ceil((i+1)*in/out)) taken
 * one axis at a time (means and maxima of such boxes are separable), their
 * bounds computed at run time along an axis of dynamic length. */
int
lwn_adaptive_pool(Lower *L, int nd, bool max)
{
	int64_t out[MAXSP], in[MAXSP];
	const Value *xv;
	ValId x;
	bool unb;
	int n = lw_ints(L, 1, "output_size", out, MAXSP);
	if (n < 0)
		return -1;
	if (n == 1)
		for (int k = 1; k < nd; k++)
			out[k] = out[0];
	else if (n != nd)
		return lw_fail(L, "output_size has %d elements for %dd "
		    "pooling", n, nd);
	if (lwn_pool_input(L, nd, &xv, &x, &unb, max) < 0)
		return -1;
	DType ct = lw_dtype(L, x);  /* float32; float64 or ints for max */
	if (max && lwn_used(L, 1))
		return adaptive_max_idx(L, nd, out, xv, x, unb);
	bool global = true, even = true, stat = true, st[MAXSP];
	for (int k = 0; k < nd; k++) {
		global &= out[k] == 1;
		st[k] = lw_dim_static(xv, L->src, xv->rank - nd + k, &in[k]);
		stat &= st[k];
		even &= st[k] && out[k] > 0 && in[k] % out[k] == 0;
	}
	DType ht = (DType)xv->dtype;
	ValId y = !max && nd == 3 && stat && (ht == DT_F16 || ht == DT_BF16) ?
	    avg3d_half(L, x, in, out, ht) : 0;
	if (y)
		goto done;
	if (global && max && ct != DT_F32) {
		/* GlobalMaxPool has no float64 kernel in ONNX Runtime */
		int64_t axes[MAXSP];
		for (int k = 0; k < nd; k++)
			axes[k] = 2 + k;
		y = lwn_reduce(L, "ReduceMax", x, axes, nd, true);
	} else if (global) {
		y = lw_op1(L, max ? "GlobalMaxPool" : "GlobalAveragePool", x);
	} else if (stat && even) {
		int64_t ks[MAXSP], pads[2 * MAXSP] = {0};
		for (int k = 0; k < nd; k++)
			ks[k] = in[k] / out[k];
		NodeId nn = lw_emit(L, max ? "MaxPool" : "AveragePool", 1, &x,
		    1);
		lw_attr_ints(L, nn, "kernel_shape", ks, nd);
		lw_attr_ints(L, nn, "strides", ks, nd);
		lw_attr_ints(L, nn, "pads", pads, 2 * nd);
		y = lwn_settyped(L, nn, 0, ct);
	} else {
		y = x;
		for (int k = 0; k < nd; k++) {
			int64_t axis = 2 + k, o = out[k], i = st[k] ? in[k] : 0;
			if (st[k] && o == i)
				continue;
			if (o < 1 || o > 1024)
				return lw_fail(L, "adaptive pooling to %lld "
				    "along one axis is not supported",
				    (long long)o);
			ValId parts[1024], len = st[k] ? 0 : lwn_shape_of(L, y,
			    axis, axis + 1), b[2];
			for (int64_t j = 0; j < o; j++) {
				bounds(L, len, i, j, o, b);
				ValId in4[4] = {y, b[0], b[1],
				    lw_const_i64s(L, &axis, 1)};
				NodeId sn = lw_emit(L, "Slice", 4, in4, 1);
				ValId v = lwn_settyped(L, sn, 0, ct);
				parts[j] = lwn_reduce(L, max ? "ReduceMax"
				    : "ReduceMean", v, &axis, 1, true);
			}
			NodeId c = lw_emit(L, "Concat", (int)o, parts, 1);
			lw_attr_int(L, c, "axis", axis);
			y = lwn_settyped(L, c, 0, ct);
		}
	}
done:
	if (unb)
		y = lwn_squeeze(L, y, 0);
	lwn_bind_out(L, 0, y);
	return 0;
}

