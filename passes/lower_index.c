/* lower_index.c - lowering rules for indexing ATen ops: advanced indexing
 * (index, index_put), gathers and scatters, flip and roll, padding, and
 * tril/triu/diagonal.  Companion of lower_shape.c (views, joins, splits,
 * slices, creation); the helpers both use are in lower_kit.c.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ckint.h"
#include "lower.h"

enum {
	MAXCONST = 1 << 16, /* longest index list made a constant */
};

/* ----------------------------------------------------------------- helpers */

/* The tensors of a Tensor[] (or Tensor?[]) argument.  tl->v holds the
 * ONNX values and tl->s the FX values, 0/NULL for None entries; release
 * with tlist_free.  Returns the count, or -1 after reporting. */

/* ----------------------------------------------------- indexing, gathers */

/* The optional index tensors of index/index_put (argument 1) for a
 * rank-r tensor into idx/isv (0/NULL for None); count or -1. */
static int
index_list(Lower *L, int r, ValId *idx, const Value **isv)
{
	LwTensorList tl;
	int n = lw_tensor_list(L, 1, "indices", &tl);
	if (n > r) {
		lw_fail(L, "%d indices for a rank-%d tensor", n, r);
		n = -1;
	}
	for (int k = 0; k < n; k++)
		idx[k] = tl.v[k], isv[k] = tl.s[k];
	lw_tensor_list_free(&tl);
	return n;
}

/* idx (int64) with negative entries wrapped by the size of dim d of x. */
static ValId
wrap_index(Lower *L, const Value *sv, ValId x, int d, ValId idx)
{
	/* a 0-d divisor keeps the rank of a 0-d index */
	int64_t size;
	ValId n = lw_sdim(L, sv, d, &size) ? lw_scalar_i64(L, size)
	    : lw_reshape(L, lw_shape_range(L, x, d, d + 1), lw_const_i64s(L, NULL, 0));
	/* Mod with fmod=0 takes the divisor's sign: [-n, n) -> [0, n) */
	return lw_op2(L, "Mod", idx, n);
}

/* The index tensors idx[0..k) broadcast together, wrapped for the dims
 * pos[] of x and stacked on a new last axis: GatherND/ScatterND indices. */
static ValId
stack_indices(Lower *L, const Value *sv, ValId x, ValId *idx,
    const Value **isv, const int64_t *pos, int k)
{
	bool same = true;
	for (int j = 1; j < k && same; j++) {
		if (isv[j]->rank != isv[0]->rank) {
			same = false;
			break;
		}
		for (int d = 0; d < isv[0]->rank; d++) {
			int64_t a, b;
			if (!lw_sdim(L, isv[0], d, &a) ||
			    !lw_sdim(L, isv[j], d, &b) || a != b)
				same = false;
		}
	}
	if (!same) {
		ValId sum = idx[0];
		for (int j = 1; j < k; j++)
			sum = lw_op2(L, "Add", sum, idx[j]);
		ValId shp = lw_op1(L, "Shape", sum);
		lw_settype(L, shp, DT_I64);
		for (int j = 0; j < k; j++)
			idx[j] = lw_op2(L, "Expand", idx[j], shp);
	}
	ValId parts[LW_MAXRANK];
	for (int j = 0; j < k; j++) {
		ValId w = wrap_index(L, sv, x, (int)pos[j], idx[j]);
		parts[j] = lw_axes_op(L, "Unsqueeze", w, (int64_t[]){-1}, 1);
	}
	return lw_concat(L, parts, k, -1, DT_I64);
}

/* x with dims pos[0..k) moved to the front, the rest in order; the
 * permutation goes to perm. */
static ValId
front(Lower *L, ValId x, int r, const int64_t *pos, int k, int64_t *perm)
{
	bool used[LW_MAXRANK] = {0};
	int n = 0;
	for (int j = 0; j < k; j++) {
		perm[n++] = pos[j];
		used[pos[j]] = true;
	}
	for (int d = 0; d < r; d++)
		if (!used[d])
			perm[n++] = d;
	return lw_is_identity_perm(perm, r) ? x : lw_transpose(L, x, perm, r);
}

/* x[mask] for one boolean mask over dims p..p+mr: NonZero gives the
 * coordinates; the result's dims are pre + [N] + post. */
static int
index_mask(Lower *L, ValId x, int r, ValId mask, int mr, int p)
{
	if (p + mr > r)
		return lw_fail(L, "mask has more dims than the tensor");
	ValId nz = lw_op1(L, "NonZero", mask);
	lw_settype(L, nz, DT_I64);
	ValId coords = lw_transpose(L, nz, (int64_t[]){1, 0}, 2);
	int64_t pos[LW_MAXRANK], perm[LW_MAXRANK];
	for (int j = 0; j < mr; j++)
		pos[j] = p + j;
	ValId xt = front(L, x, r, pos, mr, perm);
	ValId g = lw_op2(L, "GatherND", xt, coords);
	if (p > 0) {
		int out = r - mr + 1;
		int64_t back[LW_MAXRANK];
		for (int j = 0; j < p; j++)
			back[j] = j + 1;
		back[p] = 0;
		for (int j = p + 1; j < out; j++)
			back[j] = j;
		g = lw_transpose(L, g, back, out);
	}
	lw_bind(L, 0, g);
	return 0;
}

/* index(x, [None, i, ...]): one index tensor is a Gather; several are a
 * GatherND on x with the indexed dims moved to the front.  Adjacent index
 * tensors put the broadcast dims where they were, separated ones put them
 * first (torch's rule). */
static int
index_rule(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), idx[LW_MAXRANK];
	const Value *isv[LW_MAXRANK];
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int n = index_list(L, r, idx, isv);
	if (n < 0)
		return -1;
	int64_t pos[LW_MAXRANK];
	ValId iv[LW_MAXRANK];
	const Value *is[LW_MAXRANK];
	int k = 0, nmask = 0;
	for (int j = 0; j < n; j++) {
		if (!idx[j])
			continue;
		DType dt = (DType)isv[j]->dtype;
		if (dt == DT_BOOL || dt == DT_U8)
			nmask++;
		else if (!ir_dtype_is_int(dt))
			return lw_fail(L, "index tensors must be integers or "
			    "booleans");
		pos[k] = j;
		iv[k] = idx[j];
		is[k++] = isv[j];
	}
	if (nmask) {
		if (k != 1)
			return lw_fail(L, "a boolean mask mixed with other "
			    "index tensors is not supported");
		return index_mask(L, x, r, lw_cast(L, iv[0], DT_BOOL),
		    is[0]->rank, (int)pos[0]);
	}
	if (k == 0) {
		lw_bind(L, 0, x);
		return 0;
	}
	for (int j = 0; j < k; j++)
		iv[j] = lw_cast(L, iv[j], DT_I64);
	if (k == 1) {
		NodeId g = lw_emit(L, "Gather", 2, (ValId[]){x, iv[0]}, 1);
		lw_attr_int(L, g, "axis", pos[0]);
		lw_bind(L, 0, lw_typed(L, g, lw_dtype(L, x)));
		return 0;
	}
	const Value *sv = lw_srcval(L, 0, "self");
	ValId st = stack_indices(L, sv, x, iv, is, pos, k);
	int64_t perm[LW_MAXRANK];
	ValId xt = front(L, x, r, pos, k, perm);
	ValId g = lw_op2(L, "GatherND", xt, st);
	bool adjacent = pos[k - 1] - pos[0] == k - 1;
	int p = (int)pos[0];
	if (adjacent && p > 0) {
		int nb = 0;
		for (int j = 0; j < k; j++)
			if (is[j]->rank > nb)
				nb = is[j]->rank;
		int out = nb + r - k;
		if (out > LW_MAXRANK)
			return lw_fail(L, "result rank too large");
		int64_t back[LW_MAXRANK];
		int m = 0;
		for (int j = 0; j < p; j++)
			back[m++] = nb + j;
		for (int j = 0; j < nb; j++)
			back[m++] = j;
		for (int j = nb + p; j < out; j++)
			back[m++] = j;
		g = lw_transpose(L, g, back, out);
	}
	lw_bind(L, 0, g);
	return 0;
}

/* index_select(x, dim, index) */
static int
index_select(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), i = lw_in(L, 2, "index");
	int r = lw_rank_of(L, 0, "self");
	if (!x || !i || r < 0)
		return -1;
	int64_t d = lw_int(L, 1, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	i = lw_cast(L, i, DT_I64);
	const Value *isv = lw_srcval(L, 2, "index");
	if (isv->rank == 0) /* keeps the dim, with size 1 */
		i = lw_axes_op(L, "Unsqueeze", i, (int64_t[]){0}, 1);
	if (r == 0) {
		lw_bind(L, 0, lw_reshape(L, x, lw_const_i64s(L, NULL, 0)));
		return 0;
	}
	NodeId g = lw_emit(L, "Gather", 2, (ValId[]){x, i}, 1);
	lw_attr_int(L, g, "axis", d);
	lw_bind(L, 0, lw_typed(L, g, lw_dtype(L, x)));
	return 0;
}

/* gather(x, dim, index) */
static int
gather(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), i = lw_in(L, 2, "index");
	int r = lw_rank_of(L, 0, "self");
	if (!x || !i || r < 0)
		return -1;
	int64_t d = lw_int(L, 1, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "gather on a 0-d tensor is not supported");
	i = lw_cast(L, i, DT_I64);
	NodeId g = lw_emit(L, "GatherElements", 2, (ValId[]){x, i}, 1);
	lw_attr_int(L, g, "axis", d);
	lw_bind(L, 0, lw_typed(L, g, lw_dtype(L, x)));
	return 0;
}

/* ScatterElements(x, index, updates, axis d, reduction red) */
static ValId
scatter_elems(Lower *L, ValId x, ValId i, ValId u, int64_t d,
    const char *red)
{
	NodeId s = lw_emit(L, "ScatterElements", 3, (ValId[]){x, i, u}, 1);
	lw_attr_int(L, s, "axis", d);
	if (red && strcmp(red, "none"))
		lw_attr_str(L, s, "reduction", red);
	return lw_typed(L, s, lw_dtype(L, x));
}

/* Updates for ScatterElements: torch reads src only where index has
 * entries, ONNX wants them the same shape. */
static ValId
src_like_index(Lower *L, ValId src, const Value *ssv, ValId i,
    const Value *isv)
{
	bool same = ssv->rank == isv->rank;
	for (int d = 0; same && d < isv->rank; d++) {
		int64_t a, b;
		if (!lw_sdim(L, ssv, d, &a) || !lw_sdim(L, isv, d, &b) || a != b)
			same = false;
	}
	if (same)
		return src;
	int r = isv->rank;
	int64_t zeros[LW_MAXRANK], axes[LW_MAXRANK];
	for (int d = 0; d < r; d++)
		zeros[d] = 0, axes[d] = d;
	ValId ends = lw_op1(L, "Shape", i);
	lw_settype(L, ends, DT_I64);
	return lw_slice(L, src, lw_const_i64s(L, zeros, r), ends, axes, r, 0);
}

/* scatter(x, dim, index, src | value [, reduce]), scatter_add,
 * scatter_reduce(..., reduce, include_self) */
static int
scatter(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), i = lw_in(L, 2, "index");
	int r = lw_rank_of(L, 0, "self");
	if (!x || !i || r < 0)
		return -1;
	int64_t d = lw_int(L, 1, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "scatter into a 0-d tensor is not supported");
	const char *op = ir_str(L->m, lw_node(L)->op);
	const char *red = "none";
	if (strstr(op, "scatter_add"))
		red = "add";
	const Arg *ra = lw_arg(L, 4, "reduce");
	if (ra && ra->kind == A_STR) {
		const char *s = ir_str(L->m, ra->u.s);
		if (!strcmp(s, "add") || !strcmp(s, "sum"))
			red = "add";
		else if (!strcmp(s, "multiply") || !strcmp(s, "prod"))
			red = "mul";
		else if ((!strcmp(s, "amax") || !strcmp(s, "amin")) &&
		    L->opset >= 18)
			red = s[2] == 'a' ? "max" : "min";
		else
			return lw_fail(L, "reduce='%s' is not supported%s", s,
			    s[0] == 'a' ? " before opset 18" : "");
		if (strstr(op, "scatter_reduce") &&
		    !lw_bool(L, 5, "include_self", true))
			return lw_fail(L, "include_self=False is not "
			    "supported");
	}
	i = lw_cast(L, i, DT_I64);
	const char *skw = lw_arg(L, 3, "src") ? "src" : "value";
	const Arg *sa = lw_arg(L, 3, skw);
	const Value *ssv = lw_srcval(L, 3, skw);
	ValId u;
	if (sa && sa->kind == A_VAL && ssv && ssv->kind == VK_TENSOR &&
	    ssv->rank > 0) {
		u = lw_cast(L, lw_in(L, 3, skw), lw_dtype(L, x));
		u = src_like_index(L, u, ssv, i, lw_srcval(L, 2, "index"));
	} else {
		/* a value: broadcast to the index's shape */
		ValId v = lw_operand(L, 3, skw, lw_dtype(L, x));
		if (!v)
			return -1;
		ValId shp = lw_op1(L, "Shape", i);
		lw_settype(L, shp, DT_I64);
		u = lw_op2(L, "Expand", v, shp);
	}
	lw_bind(L, 0, scatter_elems(L, x, i, u, d, red));
	return 0;
}

/* Python-clamped start/end of a slice of a dim of static size n. */
static void
clamp_slice(int64_t n, int64_t *s, int64_t *e)
{
	if (*s < 0)
		*s += n;
	if (*e < 0)
		*e += n;
	*s = *s < 0 ? 0 : *s > n ? n : *s;
	*e = *e < *s ? *s : *e > n ? n : *e;
}

/* slice_scatter(x, src, dim, start, end, step): ScatterElements with the
 * positions of the slice along dim, broadcast to src's shape. */
static int
slice_scatter(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), src = lw_in(L, 1, "src");
	int r = lw_rank_of(L, 0, "self");
	if (!x || !src || r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "slice_scatter into a 0-d tensor");
	int64_t d = lw_int(L, 2, "dim", 0), step = lw_int(L, 5, "step", 1);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	if (step <= 0)
		return lw_fail(L, "step must be positive");
	int64_t s = lw_int(L, 3, "start", 0), e = lw_int(L, 4, "end",
	    INT64_MAX), size;
	ValId rng;
	if (lw_sdim(L, lw_srcval(L, 0, "self"), (int)d, &size)) {
		clamp_slice(size, &s, &e);
		int64_t cnt = e > s ? (e - s + step - 1) / step : 0;
		if (cnt > MAXCONST)
			return lw_fail(L, "slice too long");
		int64_t *v = calloc((size_t)cnt + 1, sizeof *v);
		if (!v)
			BUG("out of memory");
		for (int64_t k = 0; k < cnt; k++)
			v[k] = s + k * step;
		rng = lw_const_i64s(L, v, (int)cnt);
		free(v);
	} else if (s >= 0 && e == INT64_MAX) {
		ValId n = lw_reshape(L, lw_shape_range(L, x, (int)d, (int)d + 1),
		    lw_const_i64s(L, NULL, 0));
		ValId in[3] = {lw_scalar_i64(L, s), n, lw_scalar_i64(L, step)};
		rng = lw_typed(L, lw_emit(L, "Range", 3, in, 1), DT_I64);
	} else {
		return lw_fail(L, "slice_scatter with these bounds needs a "
		    "static size along dim %lld", (long long)d);
	}
	/* positions along dim d, shaped [1,..,cnt,..,1] then like src */
	int64_t shp[LW_MAXRANK];
	for (int k = 0; k < r; k++)
		shp[k] = k == d ? -1 : 1;
	ValId pos = lw_reshape(L, rng, lw_const_i64s(L, shp, r));
	ValId ss = lw_op1(L, "Shape", src);
	lw_settype(L, ss, DT_I64);
	ValId idx = lw_op2(L, "Expand", pos, ss);
	src = lw_cast(L, src, lw_dtype(L, x));
	lw_bind(L, 0, scatter_elems(L, x, idx, src, d, NULL));
	return 0;
}

/* select_scatter(x, src, dim, index) */
static int
select_scatter(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), src = lw_in(L, 1, "src");
	int r = lw_rank_of(L, 0, "self");
	if (!x || !src || r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "select_scatter into a 0-d tensor");
	int64_t d = lw_int(L, 2, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	ValId i = lw_operand(L, 3, "index", DT_I64);
	if (!i)
		return -1;
	const Value *sv = lw_srcval(L, 0, "self");
	i = wrap_index(L, sv, x, (int)d, i);
	ValId u = lw_axes_op(L, "Unsqueeze", lw_cast(L, src, lw_dtype(L, x)), &d,
	    1);
	ValId shp = lw_op1(L, "Shape", u);
	lw_settype(L, shp, DT_I64);
	ValId idx = lw_op2(L, "Expand", i, shp);
	lw_bind(L, 0, scatter_elems(L, x, idx, u, d, NULL));
	return 0;
}

/* index_put(x, indices, values, accumulate): a boolean mask is a Where;
 * integer index tensors on the leading dims are a ScatterND. */
static int
index_put(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), v = lw_in(L, 2, "values"), idx[LW_MAXRANK];
	const Value *isv[LW_MAXRANK];
	int r = lw_rank_of(L, 0, "self");
	if (!x || !v || r < 0)
		return -1;
	int n = index_list(L, r, idx, isv);
	if (n < 0)
		return -1;
	bool acc = lw_bool(L, 3, "accumulate", false);
	DType dt = lw_dtype(L, x);
	v = lw_cast(L, v, dt);
	if (n == 1 && idx[0] && (isv[0]->dtype == DT_BOOL ||
	    isv[0]->dtype == DT_U8)) {
		const Value *vs = lw_srcval(L, 2, "values");
		bool one = true;
		for (int d = 0; d < vs->rank; d++) {
			int64_t m;
			if (!lw_sdim(L, vs, d, &m) || m != 1)
				one = false;
		}
		if (!one)
			return lw_fail(L, "a boolean mask with more than one "
			    "value is not supported");
		ValId mask = lw_cast(L, idx[0], DT_BOOL);
		int mr = isv[0]->rank;
		if (mr < r) {
			int64_t ax[LW_MAXRANK];
			for (int d = mr; d < r; d++)
				ax[d - mr] = d;
			mask = lw_axes_op(L, "Unsqueeze", mask, ax, r - mr);
		}
		if (vs->rank > 0)
			v = lw_reshape(L, v, lw_const_i64s(L, NULL, 0));
		ValId nv = acc ? lw_op2(L, "Add", x, v) : v;
		NodeId w = lw_emit(L, "Where", 3, (ValId[]){mask, nv, x}, 1);
		lw_bind(L, 0, lw_typed(L, w, dt));
		return 0;
	}
	int64_t pos[LW_MAXRANK];
	ValId iv[LW_MAXRANK];
	const Value *is[LW_MAXRANK];
	int k = 0;
	for (int j = 0; j < n; j++) {
		if (!idx[j])
			continue;
		if (!ir_dtype_is_int((DType)isv[j]->dtype))
			return lw_fail(L, "index tensors must be integers");
		if (j != k)
			return lw_fail(L, "index_put with None before an index "
			    "tensor is not supported");
		pos[k] = j;
		iv[k] = lw_cast(L, idx[j], DT_I64);
		is[k++] = isv[j];
	}
	if (!k)
		return lw_fail(L, "index_put without index tensors");
	const Value *sv = lw_srcval(L, 0, "self");
	ValId st = stack_indices(L, sv, x, iv, is, pos, k);
	ValId sst = lw_op1(L, "Shape", st);
	lw_settype(L, sst, DT_I64);
	ValId parts[2] = {lw_slice_const(L, sst, 0, 0, -1, 1),
	    lw_dims_of(L, sv, x, k, r)};
	ValId u = lw_op2(L, "Expand", v, lw_concat_shape(L, parts, 2));
	NodeId s = lw_emit(L, "ScatterND", 3, (ValId[]){x, st, u}, 1);
	if (acc)
		lw_attr_str(L, s, "reduction", "add");
	lw_bind(L, 0, lw_typed(L, s, dt));
	return 0;
}

/* repeat_interleave(repeats): the indices [0]*r0 + [1]*r1 + ...  Output
 * position p takes index #{k : cumsum(repeats)[k] <= p}, which is data
 * dependent in length, so it is computed by comparison (O(n * total)). */
static int
repeat_interleave_tensor(Lower *L)
{
	ValId r = lw_in(L, 0, "repeats");
	const Value *rv = lw_srcval(L, 0, "repeats");
	if (!r)
		return -1;
	if (rv->rank != 1)
		return lw_fail(L, "repeats must be a 1-D tensor");
	r = lw_cast(L, r, DT_I64);
	ValId ax0 = lw_scalar_i64(L, 0);
	ValId cs = lw_op2(L, "CumSum", r, ax0);
	ValId total = lw_op2(L, "ReduceSum", r, lw_i64v(L, 0));
	NodeId last = L->dst->nnodes - 1;
	lw_attr_int(L, last, "keepdims", 0);
	ValId in[3] = {lw_scalar_i64(L, 0), total, lw_scalar_i64(L, 1)};
	ValId pos = lw_typed(L, lw_emit(L, "Range", 3, in, 1), DT_I64);
	ValId le = lw_op2t(L, "LessOrEqual",
	    lw_axes_op(L, "Unsqueeze", cs, (int64_t[]){0}, 1),
	    lw_axes_op(L, "Unsqueeze", pos, (int64_t[]){1}, 1), DT_BOOL);
	ValId cnt = lw_op2(L, "ReduceSum", lw_cast(L, le, DT_I64), lw_i64v(L, 1));
	last = L->dst->nnodes - 1;
	lw_attr_int(L, last, "keepdims", 0);
	lw_bind(L, 0, lw_cast(L, cnt, lw_outdtype(L)));
	return 0;
}

/* ------------------------------------------------------------ flip, roll */

/* flip(x, dims): Slice backwards from the last element */
static int
flip(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t dims[LW_MAXRANK], st[LW_MAXRANK], en[LW_MAXRANK], sp[LW_MAXRANK];
	int n = lw_ints(L, 1, "dims", dims, LW_MAXRANK);
	if (n < 0)
		return -1;
	if (r == 0 || n == 0) {
		lw_bind(L, 0, x);
		return 0;
	}
	for (int k = 0; k < n; k++) {
		if (lw_normdim(L, &dims[k], r) < 0)
			return -1;
		st[k] = -1, en[k] = INT64_MIN, sp[k] = -1;
	}
	lw_bind(L, 0, lw_slice(L, x, lw_const_i64s(L, st, n),
	    lw_const_i64s(L, en, n), dims, n, lw_const_i64s(L, sp, n)));
	return 0;
}

/* x rolled by shift along d: the last shift elements come first */
static ValId
roll1(Lower *L, const Value *sv, ValId x, int64_t d, int64_t shift)
{
	int64_t size;
	if (sv && lw_sdim(L, sv, (int)d, &size)) {
		if (size == 0)
			return x;
		shift %= size;
		if (shift < 0)
			shift += size;
		if (shift == 0)
			return x;
		shift -= size; /* as a negative count from the end */
	} else if (shift == 0) {
		return x;
	}
	/* symbolic size: exact when |shift| < size */
	ValId a = lw_slice_const(L, x, d, -shift, INT64_MAX, 1);
	ValId b = lw_slice_const(L, x, d, 0, -shift, 1);
	return lw_concat(L, (ValId[]){a, b}, 2, d, lw_dtype(L, x));
}

/* roll(x, shifts, dims); no dims: roll the flattened tensor */
static int
roll(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t sh[LW_MAXRANK], dims[LW_MAXRANK];
	int ns = lw_ints(L, 1, "shifts", sh, LW_MAXRANK);
	int nd = lw_ints(L, 2, "dims", dims, LW_MAXRANK);
	if (ns < 0)
		return -1;
	if (nd <= 0) {
		if (ns != 1)
			return lw_fail(L, "roll without dims takes one shift");
		const Value *sv = lw_srcval(L, 0, "self");
		int64_t numel = 1, n;
		for (int d = 0; d < r && numel >= 0; d++)
			numel = lw_sdim(L, sv, d, &n) ? numel * n : -1;
		ValId flat = lw_reshape(L, x, lw_i64v(L, -1));
		ValId shp = lw_op1(L, "Shape", x);
		lw_settype(L, shp, DT_I64);
		ValId rolled;
		if (numel >= 0) {
			/* a static numel: wrap the shift like torch */
			int64_t s = numel ? sh[0] % numel : 0;
			if (s < 0)
				s += numel;
			rolled = s ? lw_concat(L, (ValId[]){lw_slice_const(L, flat, 0,
			    numel - s, INT64_MAX, 1), lw_slice_const(L, flat, 0, 0,
			    numel - s, 1)}, 2, 0, lw_dtype(L, x)) : flat;
		} else {
			rolled = roll1(L, NULL, flat, 0, sh[0]);
		}
		lw_bind(L, 0, lw_reshape(L, rolled, shp));
		return 0;
	}
	if (ns != nd)
		return lw_fail(L, "shifts and dims differ in length");
	const Value *sv = lw_srcval(L, 0, "self");
	for (int k = 0; k < nd; k++) {
		if (r == 0 || lw_normdim(L, &dims[k], r) < 0)
			return r == 0 ? lw_fail(L, "cannot roll a 0-d tensor")
			    : -1;
		x = roll1(L, sv, x, dims[k], sh[k]);
	}
	lw_bind(L, 0, x);
	return 0;
}

/* ----------------------------------------------------------------- padding */

typedef enum PadMode { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_CIRCULAR }
    PadMode;

/* Pad x (rank r) by the torch pad list (last dim first, begin/end pairs).
 * Growing uses ONNX Pad (or Slice+Concat for circular, valid before opset
 * 19); shrinking (negative pads) is a Slice. */
static int
pad_common(Lower *L, PadMode mode, int value_arg)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t p[2 * LW_MAXRANK];
	int np = lw_ints(L, 1, NULL, p, 2 * LW_MAXRANK);
	if (np < 0)
		return -1;
	if (np % 2 || np / 2 > r)
		return lw_fail(L, "pad list of length %d for a rank-%d tensor",
		    np, r);
	int64_t beg[LW_MAXRANK] = {0}, end[LW_MAXRANK] = {0};
	for (int j = 0; j < np / 2; j++) {
		beg[r - 1 - j] = p[2 * j];
		end[r - 1 - j] = p[2 * j + 1];
	}
	DType dt = lw_dtype(L, x);
	bool grow = false, crop = false;
	int64_t pads[2 * LW_MAXRANK];
	for (int d = 0; d < r; d++) {
		pads[d] = beg[d] > 0 ? beg[d] : 0;
		pads[r + d] = end[d] > 0 ? end[d] : 0;
		grow |= beg[d] > 0 || end[d] > 0;
		crop |= beg[d] < 0 || end[d] < 0;
	}
	if (grow && mode == PAD_CIRCULAR) {
		for (int d = 0; d < r; d++) {
			if (!pads[d] && !pads[r + d])
				continue;
			ValId parts[3];
			int n = 0;
			if (pads[d])
				parts[n++] = lw_slice_const(L, x, d, -pads[d],
				    INT64_MAX, 1);
			parts[n++] = x;
			if (pads[r + d])
				parts[n++] = lw_slice_const(L, x, d, 0, pads[r + d],
				    1);
			x = lw_concat(L, parts, n, d, dt);
		}
	} else if (grow) {
		ValId pv = lw_const_i64s(L, pads, 2 * r), cv = 0;
		if (mode == PAD_CONSTANT) {
			cv = lw_has(L, value_arg, "value")
			    ? lw_operand(L, value_arg, "value", dt)
			    : lw_scalar_int(L, 0, dt);
			if (!cv)
				return -1;
		}
		NodeId n = lw_emit(L, "Pad", cv ? 3 : 2, (ValId[]){x, pv, cv},
		    1);
		lw_attr_str(L, n, "mode", mode == PAD_CONSTANT ? "constant"
		    : mode == PAD_REFLECT ? "reflect" : "edge");
		x = lw_typed(L, n, dt);
	}
	if (crop) {
		int64_t st[LW_MAXRANK], en[LW_MAXRANK], ax[LW_MAXRANK];
		int n = 0;
		for (int d = 0; d < r; d++) {
			if (beg[d] >= 0 && end[d] >= 0)
				continue;
			ax[n] = d;
			st[n] = 0;
			if (beg[d] < 0 && !ck_neg(beg[d], &st[n]))
				return lw_fail(L, "pad %lld cannot be negated",
				    (long long)beg[d]);
			en[n] = end[d] < 0 ? end[d] : INT64_MAX;
			n++;
		}
		x = lw_slice(L, x, lw_const_i64s(L, st, n),
		    lw_const_i64s(L, en, n), ax, n, 0);
	}
	lw_bind(L, 0, x);
	return 0;
}

static int
constant_pad_nd(Lower *L)
{
	return pad_common(L, PAD_CONSTANT, 2);
}

static int
reflection_pad(Lower *L)
{
	return pad_common(L, PAD_REFLECT, -1);
}

static int
replication_pad(Lower *L)
{
	return pad_common(L, PAD_EDGE, -1);
}

/* pad(x, pad, mode="constant", value=None) */
static int
pad_rule(Lower *L)
{
	const Arg *a = lw_arg(L, 2, "mode");
	const char *m = a && a->kind == A_STR ? ir_str(L->m, a->u.s)
	    : "constant";
	if (!strcmp(m, "constant"))
		return pad_common(L, PAD_CONSTANT, 3);
	if (!strcmp(m, "reflect"))
		return pad_common(L, PAD_REFLECT, -1);
	if (!strcmp(m, "replicate"))
		return pad_common(L, PAD_EDGE, -1);
	if (!strcmp(m, "circular"))
		return pad_common(L, PAD_CIRCULAR, -1);
	return lw_fail(L, "pad mode '%s' is not supported", m);
}

/* ------------------------------------------------------------ tril, triu */

static int
trilu(Lower *L, bool upper)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	ValId k = lw_has(L, 1, "diagonal") ? lw_operand(L, 1, "diagonal",
	    DT_I64) : lw_scalar_i64(L, 0);
	if (!k)
		return -1;
	NodeId n = lw_emit(L, "Trilu", 2, (ValId[]){x, k}, 1);
	lw_attr_int(L, n, "upper", upper);
	lw_bind(L, 0, lw_typed(L, n, lw_dtype(L, x)));
	return 0;
}

static int
tril(Lower *L)
{
	return trilu(L, false);
}

static int
triu(Lower *L)
{
	return trilu(L, true);
}

/* diagonal(x, offset, dim1, dim2): dim1/dim2 moved last, rows picked by
 * Gather, then the column of each row by GatherElements.  Needs the two
 * dims static. */
static int
diagonal(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	if (r < 2)
		return lw_fail(L, "diagonal needs at least 2 dims");
	int64_t off = lw_int(L, 1, "offset", 0), d1 = lw_int(L, 2, "dim1", 0),
		d2 = lw_int(L, 3, "dim2", 1);
	if (lw_normdim(L, &d1, r) < 0 || lw_normdim(L, &d2, r) < 0)
		return -1;
	if (d1 == d2)
		return lw_fail(L, "dim1 and dim2 are the same");
	const Value *sv = lw_srcval(L, 0, "self");
	int64_t n, m;
	if (!lw_sdim(L, sv, (int)d1, &n) || !lw_sdim(L, sv, (int)d2, &m))
		return lw_fail(L, "diagonal needs static sizes on its dims");
	int64_t r0 = off < 0 ? -off : 0, c0 = off > 0 ? off : 0;
	int64_t len = n - r0 < m - c0 ? n - r0 : m - c0;
	if (len < 0)
		len = 0;
	if (len > MAXCONST)
		return lw_fail(L, "diagonal too long");
	int64_t fperm[LW_MAXRANK];
	int q = 0;
	for (int d = 0; d < r; d++)
		if (d != d1 && d != d2)
			fperm[q++] = d;
	fperm[q++] = d1;
	fperm[q++] = d2;
	ValId t = lw_is_identity_perm(fperm, r) ? x : lw_transpose(L, x, fperm, r);
	int64_t *rows = calloc((size_t)len + 1, sizeof *rows);
	int64_t *cols = calloc((size_t)len + 1, sizeof *cols);
	if (!rows || !cols)
		BUG("out of memory");
	for (int64_t k = 0; k < len; k++)
		rows[k] = r0 + k, cols[k] = c0 + k;
	ValId rv = lw_const_i64s(L, rows, (int)len);
	int64_t cd[2] = {len, 1};
	ValId cv = lw_const(L, DT_I64, 2, cd, cols);
	free(rows);
	free(cols);
	NodeId g = lw_emit(L, "Gather", 2, (ValId[]){t, rv}, 1);
	lw_attr_int(L, g, "axis", r - 2);
	ValId gr = lw_typed(L, g, lw_dtype(L, x)); /* [..., len, m] */
	ValId bparts[2] = {r > 2 ? lw_shape_range(L, gr, 0, r - 2) : 0,
	    lw_const_i64s(L, cd, 2)};
	ValId bshape = lw_concat_shape(L, bparts, 2);
	ValId ci = lw_op2(L, "Expand", cv, bshape);
	NodeId ge = lw_emit(L, "GatherElements", 2, (ValId[]){gr, ci}, 1);
	lw_attr_int(L, ge, "axis", r - 1);
	ValId e = lw_typed(L, ge, lw_dtype(L, x));
	lw_bind(L, 0, lw_axes_op(L, "Squeeze", e, (int64_t[]){-1}, 1));
	return 0;
}

/* ------------------------------------------------------------- the table */

const LowerRule lw_rules_index[] = {
	/* indexing, gathers, scatters */
	{"aten::index.Tensor", index_rule},
	{"aten::_unsafe_index.Tensor", index_rule},
	{"aten::index_select.default", index_select},
	{"aten::gather.default", gather},
	{"aten::scatter.src", scatter},
	{"aten::scatter.value", scatter},
	{"aten::scatter.reduce", scatter},
	{"aten::scatter.value_reduce", scatter},
	{"aten::scatter_add.default", scatter},
	{"aten::scatter_reduce.two", scatter},
	{"aten::slice_scatter.default", slice_scatter},
	{"aten::select_scatter.default", select_scatter},
	{"aten::index_put.default", index_put},
	{"aten::_unsafe_index_put.default", index_put},
	/* triangles and diagonals */
	{"aten::diagonal.default", diagonal},
	{"aten::diagonal_copy.default", diagonal},
	{"aten::tril.default", tril},
	{"aten::triu.default", triu},
	/* reordering */
	{"aten::repeat_interleave.Tensor", repeat_interleave_tensor},
	{"aten::flip.default", flip},
	{"aten::roll.default", roll},
	/* padding */
	{"aten::constant_pad_nd.default", constant_pad_nd},
	{"aten::pad.default", pad_rule},
	{"aten::reflection_pad1d.default", reflection_pad},
	{"aten::reflection_pad2d.default", reflection_pad},
	{"aten::reflection_pad3d.default", reflection_pad},
	{"aten::replication_pad1d.default", replication_pad},
	{"aten::replication_pad2d.default", replication_pad},
	{"aten::replication_pad3d.default", replication_pad},
	{NULL, NULL},
};
