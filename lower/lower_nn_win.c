/* lower_nn_win.c - lowering rules for sliding windows: Tensor.unfold
 * (aten::unfold, unfold_copy), nn.Unfold (aten::im2col) and its inverse
 * sum nn.Fold (aten::col2im).  A window gather is a Gather with a
 * [windows, size] index of the input positions (i*step + k*dilation): a
 * constant where the windowed axis has a static size, else made at run
 * time from its length. */
#include "lower_nn.h"

/* The biggest index constant built; far above any real window grid. */
enum { MAXIDX = 1 << 22 };

/* x gathered along axis with idx[i][k] = i*step + k*dil, i < n, k < size:
 * the axis becomes the two axes [n, size]. */
ValId
lwn_windows(Lower *L, ValId x, int64_t axis, int64_t n, int64_t size,
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

/* lwn_windows() along an axis whose length is known only at run time: n =
 * (len - span) / step + 1 windows, len = Shape(x)[axis], the index a
 * Range times step plus the constant offsets k*dil. */
static ValId
windows_dyn(Lower *L, ValId x, int64_t axis, int64_t size, int64_t step,
    int64_t dil)
{
	ValId len = lwn_shape_of(L, x, axis, axis + 1);
	int64_t span = dil * (size - 1) + 1;
	ValId n = lw_op2(L, "Add", lw_op2(L, "Div", lw_op2(L, "Sub", len,
	    lw_i64v(L, span)), lw_i64v(L, step)), lw_i64v(L, 1));
	ValId r3[3] = {lw_scalar_i64(L, 0), lwn_squeeze(L, n, 0),
	    lw_scalar_i64(L, 1)};
	ValId pos = lw_typed(L, lw_emit(L, "Range", 3, r3, 1), DT_I64);
	pos = lw_op2(L, "Mul", lwn_unsqueeze(L, pos, 1), lw_scalar_i64(L,
	    step));
	int64_t *v = lw_scratch(L, (size_t)size + 1, sizeof *v);
	for (int64_t k = 0; k < size; k++)
		v[k] = k * dil;
	ValId off = lw_const(L, DT_I64, 2, (int64_t[]){1, size}, v);
	ValId in[2] = {x, lw_op2(L, "Add", pos, off)};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", axis);
	return lwn_settyped(L, g, 0, lw_dtype(L, x));
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
	/* a dynamic length: the windows are counted at run time (PyTorch
	 * checks size <= len when it runs) */
	bool dyn = r > 0 && !lw_sdim(L, xv, (int)d, &len);
	if (dyn)
		len = size;
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
	x = dyn ? windows_dyn(L, x, d, size, step, 1)
	    : lwn_windows(L, x, d, n, size, step, 1);
	/* [.., n, size, rest..] -> [.., n, rest.., size] */
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
	if (!lw_sdim(L, xv, -3, &c))
		return lw_fail(L, "needs a static channel size");
	/* a dynamic height or width: its windows are counted at run time */
	bool dyn[2];
	for (int i = 0; i < 2; i++) {
		dyn[i] = !lw_sdim(L, xv, i - 2, &in[i]);
		if (dyn[i])
			in[i] = dil[i] * (k[i] - 1) + 1 - 2 * pad[i];
	}
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
	x = dyn[0] ? windows_dyn(L, x, 2, k[0], st[0], dil[0])
	    : lwn_windows(L, x, 2, out[0], k[0], st[0], dil[0]);
	x = dyn[1] ? windows_dyn(L, x, 4, k[1], st[1], dil[1])
	    : lwn_windows(L, x, 4, out[1], k[1], st[1], dil[1]);
	x = lwn_transpose(L, x, (int64_t[]){0, 1, 3, 5, 2, 4}, 6);
	x = reshape_n(L, x, (int64_t[]){c * k[0] * k[1], dyn[0] || dyn[1] ?
	    -1 : out[0] * out[1]}, 2);
	if (xv->rank == 3)
		x = lwn_squeeze(L, x, 0);
	lwn_bind_out(L, 0, x);
	return 0;
}

/* output_size as two static numbers into osz: true; false (nothing
 * reported) when either is symbolic. */
static bool
static_size2(Lower *L, int64_t osz[2])
{
	const Arg *a = lw_arg(L, 1, "output_size");
	if (!a || (a->kind != A_LIST && a->kind != A_TUPLE) ||
	    a->u.list.n != 2)
		return true; /* lwn_spatial reports what is wrong */
	const Arg *it = ir_items(L->src, a);
	return lw_static_int(L, &it[0], &osz[0]) &&
	    lw_static_int(L, &it[1], &osz[1]);
}

/* The flat output position of each (kernel row i, kernel column j, block
 * row, block column) of a fold into a symbolic [H, W] (osz, 1-D INT64),
 * H*W where it falls in the padding: [kh*kw*blocks] made at run time. */
static ValId
fold_index_dyn(Lower *L, ValId osz, const int64_t *k, const int64_t *dil,
    const int64_t *pad, const int64_t *st)
{
	ValId side[2], lim[2];
	for (int a = 0; a < 2; a++) {
		lim[a] = lw_slice_const(L, osz, 0, a, a + 1, 1);
		/* blocks: (size + 2*pad - dil*(k-1) - 1) / stride + 1 */
		ValId nb = lw_op2(L, "Add", lw_op2(L, "Div", lw_op2(L, "Add",
		    lim[a], lw_i64v(L, 2 * pad[a] - dil[a] * (k[a] - 1) - 1)),
		    lw_i64v(L, st[a])), lw_i64v(L, 1));
		ValId r3[3] = {lw_scalar_i64(L, 0), lwn_squeeze(L, nb, 0),
		    lw_scalar_i64(L, 1)};
		ValId b = lw_typed(L, lw_emit(L, "Range", 3, r3, 1), DT_I64);
		b = lw_op2(L, "Sub", lw_op2(L, "Mul", b, lw_scalar_i64(L,
		    st[a])), lw_scalar_i64(L, pad[a]));
		int64_t *v = lw_scratch(L, (size_t)k[a] + 1, sizeof *v);
		for (int64_t q = 0; q < k[a]; q++)
			v[q] = q * dil[a];
		/* [k, blocks]: row and column of each kernel offset */
		side[a] = lw_op2(L, "Add", lw_const(L, DT_I64, 2, (int64_t[]){
		    k[a], 1}, v), lwn_unsqueeze(L, b, 0));
	}
	/* [kh, 1, bh, 1] and [1, kw, 1, bw] */
	ValId y = lw_axes_op(L, "Unsqueeze", side[0], (int64_t[]){1, 3}, 2);
	ValId z = lw_axes_op(L, "Unsqueeze", side[1], (int64_t[]){0, 2}, 2);
	ValId zero = lw_scalar_i64(L, 0);
	ValId in = lw_op2(L, "And", lw_op2(L, "And",
	    lw_op2t(L, "GreaterOrEqual", y, zero, DT_BOOL),
	    lw_op2t(L, "Less", y, lim[0], DT_BOOL)), lw_op2(L, "And",
	    lw_op2t(L, "GreaterOrEqual", z, zero, DT_BOOL),
	    lw_op2t(L, "Less", z, lim[1], DT_BOOL)));
	ValId hw = lw_op2(L, "Mul", lim[0], lim[1]);
	ValId wh[3] = {in, lw_op2(L, "Add", lw_op2(L, "Mul", y, lim[1]), z),
	    hw};
	ValId idx = lw_typed(L, lw_emit(L, "Where", 3, wh, 1), DT_I64);
	return lwn_reshape(L, idx, (int64_t[]){-1}, 1);
}

/* col2im(self, output_size, kernel_size, dilation, padding, stride), what
 * nn.Fold calls: [N, C*kh*kw, L] (or [C*kh*kw, L]) -> [N, C, H, W], each
 * column's values added into the window it came from.  The sums are a
 * ScatterElements(reduction add) of every (row, column) to its flat output
 * position along [N, C, H*W + 1], where the extra slot takes the values
 * that fall in the padding; exact where a product with a 0/1 kernel
 * (ConvTranspose) would turn an inf into NaN.  The positions are a
 * constant, or made at run time for a symbolic output_size
 * (F.fold(x, img.shape[-2:])). */
static int
col2im(Lower *L)
{
	int64_t osz[2] = {1, 1}, k[2] = {0, 0}, dil[2] = {1, 1},
		pad[2] = {0, 0}, st[2] = {1, 1}, nb[2], len, c = -1;
	bool dyn = !static_size2(L, osz);
	if ((!dyn && lwn_spatial(L, 1, "output_size", 2, osz) < 0) ||
	    lwn_spatial(L, 2, "kernel_size", 2, k) < 0 ||
	    lwn_spatial(L, 3, "dilation", 2, dil) < 0 ||
	    lwn_spatial(L, 4, "padding", 2, pad) < 0 ||
	    lwn_spatial(L, 5, "stride", 2, st) < 0)
		return -1;
	const Value *xv = lw_srcval(L, 0, "self");
	if (!xv || (xv->rank != 2 && xv->rank != 3))
		return lw_fail(L, "expected a 2-D or 3-D input");
	for (int i = 0; i < 2; i++) {
		if (dyn) /* checked by PyTorch when it runs */
			osz[i] = dil[i] * (k[i] - 1) + 1;
		if (k[i] <= 0 || dil[i] <= 0 || st[i] <= 0 || pad[i] < 0 ||
		    osz[i] <= 0)
			return lw_fail(L, "output_size, kernel_size, dilation "
			    "and stride must be positive, padding "
			    "non-negative");
		nb[i] = (osz[i] + 2 * pad[i] - dil[i] * (k[i] - 1) - 1) /
		    st[i] + 1;
		if (nb[i] < 1)
			return lw_fail(L, "the kernel does not fit the padded "
			    "output");
	}
	int64_t kk = k[0] * k[1], nl = nb[0] * nb[1], hw = osz[0] * osz[1];
	if (kk * nl > MAXIDX || hw > MAXIDX)
		return lw_fail(L, "too many windows");
	if (!dyn && lw_sdim(L, xv, -1, &len) && len != nl)
		return lw_fail(L, "expected %lld blocks, input has %lld",
		    (long long)nl, (long long)len);
	if (lw_sdim(L, xv, -2, &len)) {
		if (len % kk)
			return lw_fail(L, "expected size(-2) to be divisible "
			    "by %lld, got %lld", (long long)kk,
			    (long long)len);
		c = len / kk;
	}
	if (dyn && c < 0)
		return lw_fail(L, "a symbolic output_size needs a static "
		    "size(-2)");
	ValId x = lwn_mm_work(L, lw_in(L, 0, "self")), osv = 0;
	if (dyn)
		osv = lw_shape_list(L, 1, "output_size");
	if (!x || lw_failed(L))
		return -1;
	DType dt = lw_dtype(L, x);
	if (xv->rank == 2)
		x = lwn_unsqueeze(L, x, 0);
	/* [N, C*K, L] -> [N, C, K*L]: row c*K + i*kw + j, column l */
	x = reshape_n(L, x, dyn ? (int64_t[]){c, -1} : (int64_t[]){-1,
	    kk * nl}, 2);
	ValId idx, hwv;
	if (dyn) {
		idx = fold_index_dyn(L, osv, k, dil, pad, st);
		hwv = lw_op2(L, "Mul", lw_slice_const(L, osv, 0, 0, 1, 1),
		    lw_slice_const(L, osv, 0, 1, 2, 1));
	} else {
		int64_t *v = lw_scratch(L, (size_t)(kk * nl) + 1, sizeof *v);
		for (int64_t i = 0; i < k[0]; i++)
		for (int64_t j = 0; j < k[1]; j++)
		for (int64_t bi = 0; bi < nb[0]; bi++)
		for (int64_t bj = 0; bj < nb[1]; bj++) {
			int64_t y = bi * st[0] - pad[0] + i * dil[0];
			int64_t z = bj * st[1] - pad[1] + j * dil[1];
			bool in = y >= 0 && y < osz[0] && z >= 0 &&
			    z < osz[1];
			v[((i * k[1] + j) * nb[0] + bi) * nb[1] + bj] =
			    in ? y * osz[1] + z : hw;
		}
		idx = lw_const(L, DT_I64, 1, (int64_t[]){kk * nl}, v);
		hwv = lw_i64v(L, hw);
		osv = lw_const_i64s(L, osz, 2);
	}
	idx = lw_op2(L, "Expand", idx, lwn_shape_of(L, x, 0, INT64_MAX));
	ValId nc = lwn_shape_of(L, x, 0, 2);
	ValId zshape[2] = {nc, lw_op2(L, "Add", hwv, lw_i64v(L, 1))};
	ValId zero = lwn_fill(L, lw_concat(L, zshape, 2, 0, DT_I64), 0, dt);
	NodeId s = lw_emit(L, "ScatterElements", 3, (ValId[]){zero, idx, x},
	    1);
	lw_attr_int(L, s, "axis", 2);
	lw_attr_str(L, s, "reduction", "add");
	ValId y = lw_slice(L, lwn_settyped(L, s, 0, dt), lw_i64v(L, 0), hwv,
	    (int64_t[]){2}, 1, 0);
	ValId oshape[2] = {nc, osv};
	y = lw_reshape(L, y, lw_concat(L, oshape, 2, 0, DT_I64));
	if (xv->rank == 2)
		y = lwn_squeeze(L, y, 0);
	lwn_bind_out(L, 0, y);
	return 0;
}

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn_win LW_THIS
const LowerRule lw_rules_nn_win[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
