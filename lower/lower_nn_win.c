/* lower_nn_win.c - lowering rules for sliding windows: Tensor.unfold
 * (aten::unfold, unfold_copy) and nn.Unfold (aten::im2col).  A window
 * gather is a Gather with a constant [windows, size] index of the input
 * positions (i*step + k*dilation), so sizes along the windowed axes must
 * be static. */
#include "lower_nn.h"

/* The biggest index constant built; far above any real window grid. */
enum { MAXIDX = 1 << 22 };

/* x gathered along axis with idx[i][k] = i*step + k*dil, i < n, k < size:
 * the axis becomes the two axes [n, size]. */
static ValId
windows(Lower *L, ValId x, int64_t axis, int64_t n, int64_t size,
    int64_t step, int64_t dil)
{
	int64_t dims[2] = {n, size};
	int64_t *v = lw_scratch(L, (size_t)(n * size) + 1, sizeof *v);
	for (int64_t i = 0; i < n; i++)
		for (int64_t k = 0; k < size; k++)
			v[i * size + k] = i * step + k * dil;
	ValId in[2] = {x, lw_const(L, DT_I64, 2, dims, v)};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", axis);
	return lwn_settyped(L, g, 0, lw_dtype(L, x));
}

/* binds x [.., n, size, rest..] as [.., n, rest.., size] */
static int
place_last(Lower *L, ValId x, int64_t d, int r)
{
	int64_t perm[LW_MAXRANK + 1];
	int k = 0;
	for (int i = 0; i <= r; i++)
		if (i != d + 1)
			perm[k++] = i;
	perm[k] = d + 1;
	if (!lw_is_identity_perm(perm, r + 1))
		x = lwn_transpose(L, x, perm, r + 1);
	lwn_bind_out(L, 0, x);
	return 0;
}

/* unfold(self, dimension, size, step): dimension of length len becomes
 * (len - size) / step + 1 windows, and a new last dimension of size. */
static int
unfold(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t d = lw_int(L, 1, "dimension", 0), size = lw_int(L, 2, "size",
	    0), step = lw_int(L, 3, "step", 1), len = 1;
	if (!xv || xv->rank < 0)
		return lw_fail(L, "self must be a ranked tensor");
	int r = xv->rank;
	if (lw_failed(L) || lw_normdim(L, &d, r) < 0)
		return -1;
	/* a symbolic length (stft's frames in core ATen on audio of any
	 * duration): the window index is made at run time */
	bool dyn = r > 0 && !lw_sdim(L, xv, (int)d, &len);
	if (dyn && size > 0 && step > 0 && size <= MAXIDX) {
		ValId x = lw_in(L, 0, "self");
		if (!x)
			return -1;
		ValId in[2] = {x, lw_frames_dyn(L, x, (int)d, size, step)};
		NodeId g = lw_emit(L, "Gather", 2, in, 1);
		lw_attr_int(L, g, "axis", d);
		return place_last(L, lwn_settyped(L, g, 0, lw_dtype(L, x)), d,
		    r);
	}
	if (dyn)
		return lw_fail(L, "needs a static size along dimension %lld",
		    (long long)d);
	if (size < 0 || size > len)
		return lw_fail(L, "maximum size for tensor at dimension %lld "
		    "is %lld but size is %lld", (long long)d, (long long)len,
		    (long long)size);
	if (step <= 0)
		return lw_fail(L, "step is %lld but must be > 0",
		    (long long)step);
	int64_t n = (len - size) / step + 1;
	if (n * size > MAXIDX)
		return lw_fail(L, "%lld windows of %lld elements is too many",
		    (long long)n, (long long)size);
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	if (r == 0 && size != 1)
		return lw_fail(L, "a 0-d tensor unfolds to windows of 1");
	if (r == 0) { /* a 0-d tensor is one window of itself */
		lwn_bind_out(L, 0, lwn_unsqueeze(L, x, 0));
		return 0;
	}
	return place_last(L, windows(L, x, d, n, size, step, 1), d, r);
}

/* x reshaped to [N, dims...] with N its own first dim; any of these may
 * be 0, so allowzero */
static ValId
reshape_n(Lower *L, ValId x, const int64_t *dims, int n)
{
	ValId parts[2] = {lwn_shape_of(L, x, 0, 1), lw_const_i64s(L, dims, n)};
	ValId in[2] = {x, lw_concat(L, parts, 2, 0, DT_I64)};
	NodeId rn = lw_emit(L, "Reshape", 2, in, 1);
	lw_attr_int(L, rn, "allowzero", 1);
	return lwn_settyped(L, rn, 0, lw_dtype(L, x));
}

/* im2col(self, kernel_size, dilation, padding, stride): [N, C, H, W] (or
 * [C, H, W]) -> [N, C*kh*kw, L], each column one window position, rows
 * in (c, i, j) order. */
static int
im2col(Lower *L)
{
	int64_t k[2] = {0, 0}, dil[2] = {1, 1}, pad[2] = {0, 0},
		st[2] = {1, 1}, c, in[2], out[2];
	if (lwn_spatial(L, 1, "kernel_size", 2, k) < 0 ||
	    lwn_spatial(L, 2, "dilation", 2, dil) < 0 ||
	    lwn_spatial(L, 3, "padding", 2, pad) < 0 ||
	    lwn_spatial(L, 4, "stride", 2, st) < 0)
		return -1;
	const Value *xv = lw_srcval(L, 0, "self");
	if (!xv || (xv->rank != 3 && xv->rank != 4))
		return lw_fail(L, "expected a 3-D or 4-D input");
	if (!lw_sdim(L, xv, -3, &c) || !lw_sdim(L, xv, -2, &in[0]) ||
	    !lw_sdim(L, xv, -1, &in[1]))
		return lw_fail(L, "needs static channel and spatial sizes");
	for (int i = 0; i < 2; i++) {
		if (k[i] <= 0 || dil[i] <= 0 || st[i] <= 0 || pad[i] < 0)
			return lw_fail(L, "kernel_size, dilation and stride "
			    "must be positive, padding non-negative");
		out[i] = (in[i] + 2 * pad[i] - dil[i] * (k[i] - 1) - 1) /
		    st[i] + 1;
		if (out[i] < 1)
			return lw_fail(L, "the kernel does not fit the padded "
			    "input");
		if (out[i] * k[i] > MAXIDX)
			return lw_fail(L, "too many windows");
	}
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	if (xv->rank == 3)
		x = lwn_unsqueeze(L, x, 0);
	if (pad[0] || pad[1]) {
		int64_t p[8] = {0, 0, pad[0], pad[1], 0, 0, pad[0], pad[1]};
		x = lw_op2(L, "Pad", x, lw_const_i64s(L, p, 8));
	}
	/* [N, C, H, W] -> [N, C, oh, kh, W] -> [N, C, oh, kh, ow, kw] */
	x = windows(L, x, 2, out[0], k[0], st[0], dil[0]);
	x = windows(L, x, 4, out[1], k[1], st[1], dil[1]);
	x = lwn_transpose(L, x, (int64_t[]){0, 1, 3, 5, 2, 4}, 6);
	x = reshape_n(L, x, (int64_t[]){c * k[0] * k[1], out[0] * out[1]},
	    2);
	if (xv->rank == 3)
		x = lwn_squeeze(L, x, 0);
	lwn_bind_out(L, 0, x);
	return 0;
}

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn_win LW_THIS
const LowerRule lw_rules_nn_win[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
