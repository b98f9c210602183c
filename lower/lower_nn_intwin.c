/* lower_nn_intwin.c - int64 convolution and pooling.  ONNX Runtime's Conv
 * and pooling kernels take floats only, where int64 sums are exact only
 * below 2^53; PyTorch computes them in int64 and wraps.  So the input is
 * padded, its windows gathered one spatial axis at a time, and an Einsum
 * with the weight, an ArgMax or a MatMul sum (ONNX Runtime's int64
 * ReduceSum adds in float64) runs on them in int64.  Static spatial sizes
 * only (the window indices are constants). */
#include "lower_nn.h"

/* The most window elements gathered per (n, c) plane. */
enum { MAXWIN = 1 << 22 };

/* x [N, C, S...] padded by ONNX-order spatial pads with fill. */
static ValId
pad_spatial(Lower *L, ValId x, int nd, const int64_t *pads, int64_t fill)
{
	int64_t p[2 * (MAXSP + 2)] = {0};
	int r = nd + 2;
	bool any = false;
	for (int k = 0; k < nd; k++) {
		p[2 + k] = pads[k];
		p[r + 2 + k] = pads[nd + k];
		any |= pads[k] != 0 || pads[nd + k] != 0;
	}
	if (!any)
		return x;
	ValId in[3] = {x, lw_const_i64s(L, p, 2 * r), lw_scalar_i64(L, fill)};
	return lwn_settyped(L, lw_emit(L, "Pad", 3, in, 1), 0, DT_I64);
}

/* Whether every size, window, stride, dilation and pad is below 2^31, so
 * that no sum of them overflows; false (reported) when not. */
static bool
sane(Lower *L, const IntWin *W)
{
	const int64_t lim = (int64_t)1 << 31;
	for (int k = 0; k < W->nd; k++)
		if (W->in[k] < 0 || W->in[k] >= lim || W->k[k] >= lim ||
		    W->s[k] >= lim || W->d[k] >= lim || W->pads[k] < 0 ||
		    W->pads[k] >= lim || W->pads[W->nd + k] < 0 ||
		    W->pads[W->nd + k] >= lim) {
			lw_fail(L, "sizes, windows, strides, dilations and "
			    "padding of 2^31 or more (or negative padding) are "
			    "not supported");
			return false;
		}
	return true;
}

/* Output sizes of windows k dilated by d, stride s over the padded sizes;
 * false (reported) when one has none. */
static bool
out_sizes(Lower *L, const IntWin *W, int64_t *o, int64_t *total)
{
	*total = 1;
	for (int k = 0; k < W->nd; k++) {
		int64_t span = W->d[k] * (W->k[k] - 1) + 1,
			len = W->in[k] + W->pads[k] + W->pads[W->nd + k];
		if (W->k[k] < 1 || W->s[k] < 1 || W->d[k] < 1 || len < span) {
			lw_fail(L, "the window does not fit the input along "
			    "spatial dim %d", k);
			return false;
		}
		o[k] = (len - span) / W->s[k] + 1;
		*total *= o[k] * W->k[k];
		if (*total > MAXWIN) {
			lw_fail(L, "more than %d window elements per plane",
			    MAXWIN);
			return false;
		}
	}
	return true;
}

/* The windows of padded x: [N, C, o1, k1, ..., ond, knd], the last
 * spatial axis first so that the earlier ones keep their places. */
static ValId
gather_windows(Lower *L, const IntWin *W, ValId x, const int64_t *o)
{
	for (int k = W->nd - 1; k >= 0; k--)
		x = lwn_windows(L, x, 2 + k, o[k], W->k[k], W->s[k], W->d[k]);
	return x;
}

/* Windows as [N, C, o..., K] with K = k1*...*knd, row-major in the kernel
 * as PyTorch scans it. */
static ValId
flat_windows(Lower *L, const IntWin *W, ValId x, const int64_t *o)
{
	int nd = W->nd;
	int64_t perm[2 + 2 * MAXSP] = {0, 1}, dims[3 + MAXSP] = {0, 0}, kk = 1;
	for (int k = 0; k < nd; k++) {
		perm[2 + k] = 2 + 2 * k;
		perm[2 + nd + k] = 3 + 2 * k;
		dims[2 + k] = o[k];
		kk *= W->k[k];
	}
	dims[2 + nd] = kk;
	x = lwn_transpose(L, gather_windows(L, W, x, o), perm, 2 + 2 * nd);
	return lwn_reshape(L, x, dims, 3 + nd);
}

/* Direct convolution of padded x [N, G*cg, S...] with w [G*dg, cg, K...]
 * (or, transposed, w [G*cg, dg, K...]) as one Einsum over the windows. */
static ValId
conv_windows(Lower *L, const IntWin *W, ValId x, ValId w, int64_t G,
    int64_t cg, int64_t dg, bool wt)
{
	int nd = W->nd;
	int64_t o[MAXSP], total, xd[3 + 2 * MAXSP] = {0, G, cg},
		wd[3 + MAXSP] = {G, wt ? cg : dg, wt ? dg : cg},
		yd[2 + MAXSP] = {0, G * dg};
	if (!out_sizes(L, W, o, &total))
		return 0;
	static const char os[] = "abe", ks[] = "xyz";
	char eq[64], *p = eq;
	p += sprintf(p, "ngc");
	for (int k = 0; k < nd; k++) {
		*p++ = os[k];
		*p++ = ks[k];
		xd[3 + 2 * k] = o[k];
		xd[4 + 2 * k] = W->k[k];
		wd[3 + k] = W->k[k];
		yd[2 + k] = o[k];
	}
	p += sprintf(p, ",g%s", wt ? "cd" : "dc");
	p += sprintf(p, "%.*s->ngd%.*s", nd, ks, nd, os);
	x = lwn_reshape(L, gather_windows(L, W, x, o), xd, 3 + 2 * nd);
	w = lwn_reshape(L, w, wd, 3 + nd);
	NodeId e = lw_emit(L, "Einsum", 2, (ValId[]){x, w}, 1);
	lw_attr_str(L, e, "equation", eq);
	return lwn_reshape(L, lwn_settyped(L, e, 0, DT_I64), yd, 2 + nd);
}

/* x with s-1 zeros after each element along axis (of static sizes sz[],
 * the whole shape from dim 0, whose dim 0 is left as it is). */
static ValId
spread(Lower *L, ValId x, int rank, int64_t *sz, int axis, int64_t s)
{
	int64_t pads[2 * (MAXSP + 3)] = {0}, dims[MAXSP + 2];
	x = lwn_unsqueeze(L, x, axis + 1);
	pads[rank + 1 + axis + 1] = s - 1;
	ValId in[2] = {x, lw_const_i64s(L, pads, 2 * (rank + 1))};
	x = lwn_settyped(L, lw_emit(L, "Pad", 2, in, 1), 0, DT_I64);
	for (int k = 0; k < rank; k++)
		dims[k] = k == 0 ? 0 : sz[k];
	dims[axis] = sz[axis] * s;
	x = lwn_reshape(L, x, dims, rank);
	sz[axis] = (sz[axis] - 1) * s + 1;
	return lw_slice_const(L, x, axis, 0, sz[axis], 1);
}

ValId
lwn_conv_int(Lower *L, const IntWin *W, ValId x, ValId w,
    const int64_t *wdims, ValId b, int64_t groups, bool transposed,
    const int64_t *outpad)
{
	int nd = W->nd;
	int64_t G = groups, cin = transposed ? wdims[0] : wdims[1] * G,
		cg = cin / G, dg = transposed ? wdims[1] : wdims[0] / G;
	if (G < 1 || wdims[0] % G != 0)
		return lw_fail(L, "groups=%lld does not divide the weight's "
		    "channels", (long long)G), 0;
	IntWin D = *W;
	if (!sane(L, W))
		return 0;
	for (int k = 0; transposed && k < nd; k++)
		if (outpad[k] < 0 || outpad[k] >= (int64_t)1 << 31)
			return lw_fail(L, "output_padding %lld is not supported",
			    (long long)outpad[k]), 0;
	if (transposed) {
		/* the transposed convolution is the direct one of the input
		 * spread by the stride, padded by d*(k-1)-p (plus
		 * output_padding at the end), with the kernel flipped */
		int64_t sz[2 + MAXSP] = {0, cin};
		for (int k = 0; k < nd; k++)
			sz[2 + k] = W->in[k];
		for (int k = 0; k < nd; k++) {
			if (W->s[k] > 1)
				x = spread(L, x, nd + 2, sz, 2 + k, W->s[k]);
			int64_t pk = W->d[k] * (W->k[k] - 1), lo = pk -
			    W->pads[k], hi = pk - W->pads[nd + k] + outpad[k];
			if (lo < 0 || hi < 0) {
				x = lw_slice_const(L, x, 2 + k, lo < 0 ? -lo : 0,
				    sz[2 + k] - (hi < 0 ? -hi : 0), 1);
				sz[2 + k] -= (lo < 0 ? -lo : 0) +
				    (hi < 0 ? -hi : 0);
			}
			D.in[k] = sz[2 + k];
			D.pads[k] = lo > 0 ? lo : 0;
			D.pads[nd + k] = hi > 0 ? hi : 0;
			D.s[k] = 1;
			w = lw_slice_const(L, w, 2 + k, -1, INT64_MIN, -1);
		}
	}
	x = pad_spatial(L, x, nd, D.pads, 0);
	ValId y = conv_windows(L, &D, x, w, G, cg, dg, transposed);
	if (y && b)
		y = lw_op2(L, "Add", y, lwn_per_channel(L, b, nd + 2));
	return y;
}

/* PyTorch's max pooling keeps the first maximum of each window in
 * row-major order (a later one must be greater), as ArgMax does; the
 * padding, of the smallest int64, never wins a window that holds input. */
static ValId
max_pool(Lower *L, const IntWin *W, ValId x, ValId *idx)
{
	int nd = W->nd;
	int64_t o[MAXSP], total;
	if (!out_sizes(L, W, o, &total))
		return 0;
	x = flat_windows(L, W, pad_spatial(L, x, nd, W->pads, INT64_MIN), o);
	NodeId am = lw_emit(L, "ArgMax", 1, &x, 1);
	lw_attr_int(L, am, "axis", -1);
	lw_attr_int(L, am, "keepdims", 1);
	ValId a = lwn_settyped(L, am, 0, DT_I64);
	NodeId g = lw_emit(L, "GatherElements", 2, (ValId[]){x, a}, 1);
	lw_attr_int(L, g, "axis", -1);
	ValId y = lwn_squeeze(L, lwn_settyped(L, g, 0, DT_I64), -1);
	if (!idx)
		return y;
	/* where each window element lies in its input plane, flat */
	int64_t dims[3 + MAXSP] = {1, 1}, kk = total;
	for (int k = 0; k < nd; k++) {
		dims[2 + k] = o[k];
		kk /= o[k];
	}
	dims[2 + nd] = kk;
	int64_t *pos = lw_scratch(L, (size_t)total, sizeof *pos);
	for (int64_t j = 0; j < total; j++) {
		int64_t ow = j / kk, kw = j % kk, flat = 0;
		int64_t oi[MAXSP], ki[MAXSP];
		for (int k = nd - 1; k >= 0; k--) {
			oi[k] = ow % o[k];
			ow /= o[k];
			ki[k] = kw % W->k[k];
			kw /= W->k[k];
		}
		for (int k = 0; k < nd && flat >= 0; k++) {
			int64_t at = oi[k] * W->s[k] + ki[k] * W->d[k] -
			    W->pads[k];
			flat = at < 0 || at >= W->in[k] ? -1 : flat * W->in[k]
			    + at;
		}
		pos[j] = flat;
	}
	ValId shp = lw_op1(L, "Shape", x);
	lw_settype(L, shp, DT_I64);
	ValId pe = lw_op2(L, "Expand", lw_const(L, DT_I64, 3 + nd, dims, pos),
	    shp);
	g = lw_emit(L, "GatherElements", 2, (ValId[]){pe, a}, 1);
	lw_attr_int(L, g, "axis", -1);
	*idx = lwn_squeeze(L, lwn_settyped(L, g, 0, DT_I64), -1);
	return y;
}

/* PyTorch's integer average: each window's int64 sum divided (truncated)
 * by the window size counted up to the padding (p, without ceil mode's
 * overhang) or over the input only, or by the divisor given; a window
 * with no input is 0. */
static ValId
avg_pool(Lower *L, const IntWin *W, ValId x, const int64_t *p,
    bool count_pad, int64_t divisor)
{
	int nd = W->nd;
	int64_t o[MAXSP], total, n = 1, dims[MAXSP];
	if (!out_sizes(L, W, o, &total))
		return 0;
	x = flat_windows(L, W, pad_spatial(L, x, nd, W->pads, 0), o);
	int64_t kk = total, one[2] = {0, 1};
	for (int k = 0; k < nd; k++)
		kk /= o[k];
	one[0] = kk;
	int64_t *ones = lw_scratch(L, (size_t)kk, sizeof *ones);
	for (int64_t j = 0; j < kk; j++)
		ones[j] = 1;
	x = lw_op2(L, "MatMul", x, lw_const(L, DT_I64, 2, one, ones));
	x = lwn_squeeze(L, x, -1);
	for (int k = 0; k < nd; k++)
		n *= dims[k] = o[k];
	int64_t *div = lw_scratch(L, (size_t)n, sizeof *div);
	for (int64_t j = 0; j < n; j++) {
		int64_t r = j, size = 1, inside = 1;
		for (int k = nd - 1; k >= 0; k--) {
			int64_t ok = r % o[k], s0 = ok * W->s[k] - p[k];
			r /= o[k];
			int64_t e0 = s0 + W->k[k];
			if (e0 > W->in[k] + p[k])
				e0 = W->in[k] + p[k];
			size *= e0 - s0;
			int64_t s1 = s0 < 0 ? 0 : s0,
				e1 = e0 > W->in[k] ? W->in[k] : e0;
			inside *= e1 > s1 ? e1 - s1 : 0;
		}
		div[j] = divisor ? divisor : count_pad ? size : inside;
		if (inside == 0 || div[j] == 0)
			div[j] = 1;  /* the sum is 0 */
	}
	return lw_op2(L, "Div", x, lw_const(L, DT_I64, nd, dims, div));
}

ValId
lwn_pool_int(Lower *L, IntWin *W, bool *unb, ValId *idx, const int64_t *p,
    bool count_pad, int64_t divisor)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int nd = W->nd;
	*unb = xv->rank == nd + 1;
	if (!*unb && xv->rank != nd + 2)
		return lw_fail(L, "input of rank %d for %dd pooling",
		    xv->rank, nd), 0;
	for (int k = 0; k < nd; k++)
		if (!lw_dim_static(xv, L->src, xv->rank - nd + k, &W->in[k]))
			return lw_fail(L, "pooling of int64 tensors needs "
			    "static sizes"), 0;
	ValId x = lw_in(L, 0, "self");
	if (!x || lw_failed(L) || !sane(L, W))
		return 0;
	if (*unb)
		x = lwn_unsqueeze(L, x, 0);
	return idx ? max_pool(L, W, x, lwn_used(L, 1) ? idx : NULL)
	    : avg_pool(L, W, x, p, count_pad, divisor);
}
