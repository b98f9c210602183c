/* lower_kit.c - helpers that several rule files share: dims, slices,
 * transposes, concats and shapes read at run time. */
#include <string.h>

#include "lower.h"

DType
lw_outdtype(Lower *L)
{
	return (DType)lw_outval(L, 0)->dtype;
}

/* result 0 of node n, typed dt */
ValId
lw_typed(Lower *L, NodeId n, DType dt)
{
	ValId r = lw_res(L, n, 0);
	lw_settype(L, r, dt);
	return r;
}

/* The rank of a tensor argument, or -1 after reporting. */
int
lw_rank_of(Lower *L, int i, const char *kw)
{
	const Value *v = lw_srcval(L, i, kw);
	if (!v || v->kind != VK_TENSOR || v->rank < 0) {
		lw_fail(L, "argument '%s' must be a tensor of known rank",
		    kw ? kw : "?");
		return -1;
	}
	if (v->rank > LW_MAXRANK) {
		lw_fail(L, "rank %d is more than torch allows", v->rank);
		return -1;
	}
	return v->rank;
}

/* Normalise a torch dim for a tensor of rank r (0-d tensors accept 0 and
 * -1, like torch).  Returns 0, or -1 after reporting. */
int
lw_normdim(Lower *L, int64_t *d, int r)
{
	int n = r > 0 ? r : 1;
	if (*d < -n || *d >= n)
		return lw_fail(L, "dim %lld is out of range for rank %d",
		    (long long)*d, r);
	if (*d < 0)
		*d += n;
	return 0;
}

bool
lw_sdim(Lower *L, const Value *v, int d, int64_t *n)
{
	return lw_dim_static(v, L->src, d, n);
}

ValId
lw_i64v(Lower *L, int64_t v)
{
	return lw_const_i64s(L, &v, 1);
}

/* Unsqueeze or Squeeze (op) over constant axes. */
ValId
lw_axes_op(Lower *L, const char *op, ValId x, const int64_t *axes, int n)
{
	return lw_op2(L, op, x, lw_const_i64s(L, axes, n));
}

ValId
lw_transpose(Lower *L, ValId x, const int64_t *perm, int n)
{
	NodeId t = lw_emit(L, "Transpose", 1, &x, 1);
	lw_attr_ints(L, t, "perm", perm, n);
	return lw_typed(L, t, lw_dtype(L, x));
}

bool
lw_is_identity_perm(const int64_t *perm, int n)
{
	for (int k = 0; k < n; k++)
		if (perm[k] != k)
			return false;
	return true;
}

/* Slice x along constant axes with 1-D starts/ends (and steps, or 0). */
ValId
lw_slice(Lower *L, ValId x, ValId starts, ValId ends, const int64_t *axes,
    int n, ValId steps)
{
	ValId ax = lw_const_i64s(L, axes, n);
	ValId in[5] = {x, starts, ends, ax, steps};
	NodeId s = lw_emit(L, "Slice", steps ? 5 : 4, in, 1);
	return lw_typed(L, s, lw_dtype(L, x));
}

ValId
lw_slice_const(Lower *L, ValId x, int64_t axis, int64_t start, int64_t end,
    int64_t step)
{
	return lw_slice(L, x, lw_i64v(L, start), lw_i64v(L, end), &axis, 1,
	    step != 1 ? lw_i64v(L, step) : 0);
}

ValId
lw_concat(Lower *L, const ValId *parts, int n, int64_t axis, DType dt)
{
	if (n == 1)
		return parts[0];
	NodeId c = lw_emit(L, "Concat", n, parts, 1);
	lw_attr_int(L, c, "axis", axis);
	return lw_typed(L, c, dt);
}

/* Concat of the non-zero 1-D INT64 parts; an empty constant if none. */
ValId
lw_concat_shape(Lower *L, const ValId *parts, int n)
{
	ValId p[8];
	int k = 0;
	for (int i = 0; i < n && k < 8; i++)
		if (parts[i])
			p[k++] = parts[i];
	if (!k)
		return lw_const_i64s(L, NULL, 0);
	return lw_concat(L, p, k, 0, DT_I64);
}

/* Shape(x)[d0:d1] at run time. */
ValId
lw_shape_range(Lower *L, ValId x, int d0, int d1)
{
	NodeId s = lw_emit(L, "Shape", 1, &x, 1);
	lw_attr_int(L, s, "start", d0);
	lw_attr_int(L, s, "end", d1);
	return lw_typed(L, s, DT_I64);
}

/* Dims [d0, d1) of the FX value sv (ONNX value x) as a 1-D INT64 tensor:
 * a constant when the annotation is static there, else read at run time.
 * 0 when the range is empty. */
ValId
lw_dims_of(Lower *L, const Value *sv, ValId x, int d0, int d1)
{
	int64_t buf[LW_MAXRANK];
	if (d0 >= d1)
		return 0;
	for (int d = d0; d < d1; d++)
		if (!lw_sdim(L, sv, d, &buf[d - d0]))
			return lw_shape_range(L, x, d0, d1);
	return lw_const_i64s(L, buf, d1 - d0);
}

ValId
lw_reshape(Lower *L, ValId x, ValId shape)
{
	return lw_op2(L, "Reshape", x, shape);
}

void *
lw_scratch(Lower *L, size_t n, size_t size)
{
	return arena_array(L->m->scratch, n, size);
}

int
lw_tensor_list(Lower *L, int i, const char *kw, LwTensorList *tl)
{
	const Arg *a = lw_arg(L, i, kw);
	tl->v = NULL;
	tl->s = NULL;
	if (!a || (a->kind != A_LIST && a->kind != A_TUPLE)) {
		lw_fail(L, "argument '%s' must be a list of tensors", kw);
		return -1;
	}
	tl->v = lw_scratch(L, a->u.list.n + 1, sizeof *tl->v);
	tl->s = lw_scratch(L, a->u.list.n + 1, sizeof *tl->s);
	ValId *vals = tl->v;
	const Value **srcs = tl->s;
	const Arg *it = ir_items(L->src, a);
	for (uint32_t k = 0; k < a->u.list.n; k++) {
		vals[k] = 0;
		srcs[k] = NULL;
		if (it[k].kind == A_NONE)
			continue;
		const Value *sv = it[k].kind == A_VAL
		    ? ir_val(L->src, it[k].u.v) : NULL;
		if (!sv || sv->kind != VK_TENSOR || !L->map[it[k].u.v]) {
			lw_fail(L, "element %u of '%s' is not a tensor", k, kw);
			return -1;
		}
		vals[k] = L->map[it[k].u.v];
		srcs[k] = sv;
	}
	return (int)a->u.list.n;
}

/* The frame index of a sliding window over axis of x whose length is read
 * at run time: [n, size] INT64 with idx[i][k] = i*step + k and n = (len -
 * size) / step + 1 (Range, so n follows the input).  The caller checks
 * size and step are positive. */
ValId
lw_frames_dyn(Lower *L, ValId x, int axis, int64_t size, int64_t step)
{
	ValId len = lw_axes_op(L, "Squeeze", lw_shape_range(L, x, axis, axis +
	    1), (int64_t[]){0}, 1);
	ValId n = lw_op2(L, "Add", lw_op2(L, "Div", lw_op2(L, "Sub", len,
	    lw_scalar_i64(L, size)), lw_scalar_i64(L, step)),
	    lw_scalar_i64(L, 1));
	ValId in[3] = {lw_scalar_i64(L, 0), n, lw_scalar_i64(L, 1)};
	ValId i = lw_typed(L, lw_emit(L, "Range", 3, in, 1), DT_I64);
	i = lw_axes_op(L, "Unsqueeze", lw_op2(L, "Mul", i, lw_scalar_i64(L,
	    step)), (int64_t[]){1}, 1);
	int64_t dims[2] = {1, size};
	int64_t *k = lw_scratch(L, (size_t)size + 1, sizeof *k);
	for (int64_t j = 0; j < size; j++)
		k[j] = j;
	return lw_op2(L, "Add", i, lw_const(L, DT_I64, 2, dims, k));
}

/* ONNX Pad's pads (begins then ends, 2 * R) from torch's pad list arg i,
 * known at run time: pairs from the last of the first r dims backwards,
 * zeros for the dims it leaves out and for dims r..R-1 (complex values'
 * pair dim); 0 after reporting a list that does not fit */
ValId
lw_pads_dyn(Lower *L, int i, const char *kw, int r, int R)
{
	const Arg *a = lw_arg(L, i, kw);
	ValId t = lw_shape_list(L, i, kw);
	if (!t || r > R || R > LW_MAXRANK)
		return 0;
	int np = (int)a->u.list.n;
	if (np % 2 || np / 2 > r) {
		lw_fail(L, "pad list of length %d for a rank-%d tensor", np, r);
		return 0;
	}
	int64_t idx[2 * LW_MAXRANK];
	for (int d = 0; d < R; d++) {
		int j = r - 1 - d; /* the pair of dim d in the torch list */
		idx[d] = d < r && j < np / 2 ? 2 * j : np;
		idx[R + d] = d < r && j < np / 2 ? 2 * j + 1 : np;
	}
	ValId parts[2] = {t, lw_i64v(L, 0)};
	ValId g[2] = {lw_concat_shape(L, parts, 2), lw_const_i64s(L, idx,
	    2 * R)};
	return lw_typed(L, lw_emit(L, "Gather", 2, g, 1), DT_I64);
}
