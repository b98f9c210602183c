/* lower_index.c - lowering rules for indexing ATen ops: advanced indexing
 * (index, index_put), gathers and scatters; flip and roll, padding, and
 * tril/triu/diagonal are in lower_index_pad.c.  Companion of lower_shape.c (views, joins, splits,
 * slices, creation); the helpers both use are in lower_kit.c.
 */
#include <stdlib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../ir/ckint.h"
#include "lower_index.h"

/* ----------------------------------------------------------------- helpers */

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
	/* a 0-d self (and index) reads as one of size 1, as ATen does */
	int ri = lw_rank_of(L, 2, "index");
	if (r == 0)
		x = lw_reshape(L, x, lw_i64v(L, 1));
	i = lw_cast(L, i, DT_I64);
	if (ri == 0)
		i = lw_reshape(L, i, lw_i64v(L, 1));
	NodeId g = lw_emit(L, "GatherElements", 2, (ValId[]){x, i}, 1);
	lw_attr_int(L, g, "axis", d);
	ValId y = lw_typed(L, g, lw_dtype(L, x));
	if (ri == 0)
		y = lw_reshape(L, y, lw_const_i64s(L, NULL, 0));
	lw_bind(L, 0, y);
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

/* The identity of reduction red in dtype dt: what include_self=False
 * starts the written places from; 0 after reporting. */
static ValId
red_identity(Lower *L, const char *red, DType dt)
{
	bool up = !strcmp(red, "min");
	if (!strcmp(red, "add") || !strcmp(red, "mean"))
		return lw_scalar(L, 0, dt);
	if (!strcmp(red, "mul"))
		return lw_scalar(L, 1, dt);
	if (ir_dtype_is_float(dt))
		return lw_scalar(L, up ? INFINITY : -INFINITY, dt);
	switch (dt) {
	case DT_I64: return lw_scalar_int(L, up ? INT64_MAX : INT64_MIN, dt);
	case DT_I32: return lw_scalar_int(L, up ? INT32_MAX : INT32_MIN, dt);
	case DT_I16: return lw_scalar_int(L, up ? INT16_MAX : INT16_MIN, dt);
	case DT_I8: return lw_scalar_int(L, up ? INT8_MAX : INT8_MIN, dt);
	case DT_U8: return lw_scalar_int(L, up ? UINT8_MAX : 0, dt);
	case DT_BOOL: return lw_scalar_int(L, up, dt);  /* and / or */
	default:
		lw_fail(L, "include_self=False is not supported for this "
		    "dtype");
		return 0;
	}
}

/* scatter_reduce with include_self=False, or with reduce='mean': the
 * places index writes start from the reduction's identity (or keep x),
 * and a mean divides by how many values each place got (1 more with
 * x).  Places nothing is written to keep x. */
static ValId
scatter_excl(Lower *L, ValId x, ValId i, ValId u, int64_t d,
    const char *red, bool self)
{
	DType dt = lw_dtype(L, x);
	bool mean = !strcmp(red, "mean");
	if (mean && dt == DT_BOOL) {
		lw_fail(L, "reduce='mean' of booleans is not supported");
		return 0;
	}
	ValId xs = lw_op1(L, "Shape", x), us = lw_op1(L, "Shape", u);
	lw_settype(L, xs, DT_I64);
	lw_settype(L, us, DT_I64);
	ValId base = x, cnt = 0, id = red_identity(L, red, dt);
	if (!id)
		return 0;
	if (mean) {
		ValId c0 = lw_op2(L, "Expand", lw_scalar(L, self, dt), xs);
		ValId ones = lw_op2(L, "Expand", lw_scalar(L, 1, dt), us);
		cnt = scatter_elems(L, c0, i, ones, d, "add");
	}
	if (!self) {
		ValId z = lw_op2(L, "Expand", lw_scalar(L, 0, DT_BOOL), xs);
		ValId t = lw_op2(L, "Expand", lw_scalar(L, 1, DT_BOOL), us);
		ValId hit = scatter_elems(L, z, i, t, d, "none");
		base = lw_typed(L, lw_emit(L, "Where", 3, (ValId[]){hit, id,
		    x}, 1), dt);
	}
	ValId y = scatter_elems(L, base, i, u, d, mean ? "add" : red);
	if (!mean)
		return y;
	/* cnt is 0 only where nothing was written and x was left out */
	ValId none = lw_op2t(L, "Equal", cnt, lw_scalar(L, 0, dt), DT_BOOL);
	/* half precision divides in float32, rounded once (ONNX Runtime's
	 * CPU has no float16 Max or Div; an .ort file gets no Casts) */
	DType qt = dt == DT_F16 || dt == DT_BF16 ? DT_F32 : dt;
	ValId c = lw_op2(L, "Max", lw_cast(L, cnt, qt), lw_scalar(L, 1, qt));
	y = lw_cast(L, y, qt);
	/* integers divide rounding down (ATen's div_(count, "floor")): with
	 * c > 0, y - Mod(y, c) (Mod takes the divisor's sign) is exact */
	if (!ir_dtype_is_float(dt))
		y = lw_op2(L, "Sub", y, lw_op2(L, "Mod", y, c));
	ValId q = lw_cast(L, lw_op2(L, "Div", y, c), dt);
	return lw_typed(L, lw_emit(L, "Where", 3, (ValId[]){none, x, q}, 1),
	    dt);
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
	const char *op = ir_str(L->m, lw_node(L)->op);
	const char *red = "none";
	bool self = true;
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
		else if (!strcmp(s, "mean") && strstr(op, "scatter_reduce"))
			red = "mean";
		else
			return lw_fail(L, "reduce='%s' is not supported%s", s,
			    s[0] == 'a' ? " before opset 18" : "");
		if (strstr(op, "scatter_reduce"))
			self = lw_bool(L, 5, "include_self", true);
	}
	i = lw_cast(L, i, DT_I64);
	const char *skw = lw_arg(L, 3, "src") ? "src" : "value";
	const Arg *sa = lw_arg(L, 3, skw);
	const Value *ssv = lw_srcval(L, 3, skw);
	const Value *isv = lw_srcval(L, 2, "index");
	ValId u;
	/* a 0-d self, index and src read as ones of size 1, as ATen does */
	bool zerod = r == 0;
	if (zerod) {
		x = lw_reshape(L, x, lw_i64v(L, 1));
		if (isv && isv->rank == 0)
			i = lw_reshape(L, i, lw_i64v(L, 1));
	}
	if (sa && sa->kind == A_VAL && ssv && ssv->kind == VK_TENSOR &&
	    (ssv->rank > 0 || zerod)) {
		u = lw_cast(L, lw_in(L, 3, skw), lw_dtype(L, x));
		if (zerod) {
			/* src may hold more than index reads */
			ValId ends = lw_op1(L, "Shape", i);
			lw_settype(L, ends, DT_I64);
			u = lw_slice(L, lw_reshape(L, u, lw_i64v(L, -1)),
			    lw_i64v(L, 0), ends, (int64_t[]){0}, 1, 0);
		} else
			u = src_like_index(L, u, ssv, i, isv);
	} else {
		/* a value: broadcast to the index's shape */
		ValId v = lw_operand(L, 3, skw, lw_dtype(L, x));
		if (!v)
			return -1;
		ValId shp = lw_op1(L, "Shape", i);
		lw_settype(L, shp, DT_I64);
		u = lw_op2(L, "Expand", v, shp);
	}
	ValId y = self && strcmp(red, "mean") ? scatter_elems(L, x, i, u, d,
	    red) : scatter_excl(L, x, i, u, d, red, self);
	if (zerod && y)
		y = lw_reshape(L, y, lw_const_i64s(L, NULL, 0));
	if (y)
		lw_bind(L, 0, y);
	return lw_failed(L) || !y ? -1 : 0;
}

/* index_reduce(self, dim, index, source, reduce, *, include_self=True):
 * source's slice k along dim reduced into self's slice index[k], as a
 * scatter_reduce whose index is index broadcast along source. */
static int
index_reduce(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), i = lw_in(L, 2, "index"),
	      u = lw_in(L, 3, "source");
	int r = lw_rank_of(L, 0, "self");
	int64_t d = lw_int(L, 1, "dim", 0);
	bool self = lw_bool(L, -1, "include_self", true);
	const Arg *ra = lw_arg(L, 4, "reduce");
	if (!x || !i || !u || r < 0 || lw_failed(L))
		return -1;
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	const char *s = ra && ra->kind == A_STR ? ir_str(L->m, ra->u.s) : "";
	const char *red = !strcmp(s, "prod") ? "mul" : !strcmp(s, "mean") ?
	    "mean" : !strcmp(s, "amax") ? "max" : !strcmp(s, "amin") ? "min"
	    : NULL;
	if (!red)
		return lw_fail(L, "reduce argument must be either prod, mean, "
		    "amax or amin, got %s", s);
	if ((!strcmp(red, "max") || !strcmp(red, "min")) && L->opset < 18)
		return lw_fail(L, "reduce='%s' needs opset 18 or later", s);
	bool zerod = r == 0;
	if (zerod) {
		x = lw_reshape(L, x, lw_i64v(L, 1));
		u = lw_reshape(L, u, lw_i64v(L, -1));
		r = 1;
	}
	u = lw_cast(L, u, lw_dtype(L, x));
	/* index as [1, .., len, .., 1], then as big as source */
	int64_t dims[LW_MAXRANK];
	for (int k = 0; k < r; k++)
		dims[k] = k == d ? -1 : 1;
	i = lw_reshape(L, lw_cast(L, i, DT_I64), lw_const_i64s(L, dims, r));
	ValId us = lw_op1(L, "Shape", u);
	lw_settype(L, us, DT_I64);
	i = lw_op2(L, "Expand", i, us);
	ValId y = self && strcmp(red, "mean") ? scatter_elems(L, x, i, u, d,
	    red) : scatter_excl(L, x, i, u, d, red, self);
	if (zerod && y)
		y = lw_reshape(L, y, lw_const_i64s(L, NULL, 0));
	if (!y)
		return -1;
	lw_bind(L, 0, y);
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

/* Bound arg i (an int, a SymInt, or None for dflt) of a slice of a dim of
 * run-time size n ([1]): from the end when negative, clamped to [0, n] */
static ValId
clamp_bound(Lower *L, int i, const char *kw, int64_t dflt, ValId n)
{
	ValId b = lw_int1(L, i, kw, dflt);
	if (!b)
		return 0;
	ValId zero = lw_i64v(L, 0);
	ValId neg = lw_op2t(L, "Less", b, zero, DT_BOOL);
	b = lw_typed(L, lw_emit(L, "Where", 3, (ValId[]){neg, lw_op2(L, "Add",
	    b, n), b}, 1), DT_I64);
	return lw_op2(L, "Min", lw_op2(L, "Max", b, zero), n);
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
	int64_t s = 0, e = INT64_MAX, size;
	const Arg *sa = lw_arg(L, 3, "start"), *ea = lw_arg(L, 4, "end");
	bool fixed = (!sa || sa->kind == A_NONE || lw_static_int(L, sa, &s)) &&
	    (!ea || ea->kind == A_NONE || lw_static_int(L, ea, &e));
	ValId rng;
	if (fixed && lw_sdim(L, lw_srcval(L, 0, "self"), (int)d, &size)) {
		clamp_slice(size, &s, &e);
		int64_t cnt = e > s ? (e - s + step - 1) / step : 0;
		if (cnt > MAXCONST)
			return lw_fail(L, "slice too long");
		int64_t *v = lw_scratch(L, (size_t)cnt + 1, sizeof *v);
		for (int64_t k = 0; k < cnt; k++)
			v[k] = s + k * step;
		rng = lw_const_i64s(L, v, (int)cnt);
	} else {
		/* a size, or bounds, known at run time (x[:, -t:] = y of a
		 * dynamic t; z[:, 1:-1] = x): Python's clamping there */
		ValId n = lw_shape_range(L, x, (int)d, (int)d + 1);
		ValId lo = clamp_bound(L, 3, "start", 0, n);
		ValId hi = clamp_bound(L, 4, "end", INT64_MAX, n);
		if (!lo || !hi)
			return -1;
		int64_t ax0 = 0;
		hi = lw_axes_op(L, "Squeeze", lw_op2(L, "Max", hi, lo), &ax0, 1);
		lo = lw_axes_op(L, "Squeeze", lo, &ax0, 1);
		ValId in[3] = {lo, hi, lw_scalar_i64(L, step)};
		rng = lw_typed(L, lw_emit(L, "Range", 3, in, 1), DT_I64);
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

/* x[mask] = v for a mask over the leading mr dims and values of their own
 * (one per true element, or broadcast to them): a ScatterND at the
 * coordinates NonZero gives. */
static int
mask_put(Lower *L, ValId x, ValId mask, int mr, ValId v, bool acc)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (mr > sv->rank)
		return lw_fail(L, "mask has more dims than the tensor");
	ValId nz = lw_op1(L, "NonZero", mask);
	lw_settype(L, nz, DT_I64);
	ValId coords = lw_transpose(L, nz, (int64_t[]){1, 0}, 2);
	ValId parts[2] = {lw_shape_range(L, coords, 0, 1),
	    lw_dims_of(L, sv, x, mr, sv->rank)};
	ValId u = lw_op2(L, "Expand", v, lw_concat_shape(L, parts, 2));
	NodeId s = lw_emit(L, "ScatterND", 3, (ValId[]){x, coords, u}, 1);
	if (acc)
		lw_attr_str(L, s, "reduction", "add");
	lw_bind(L, 0, lw_typed(L, s, lw_dtype(L, x)));
	return 0;
}

/* index_put(x, [None] * p + idx[0..k), v): the indexed dims p..p+k
 * moved to the front, where ScatterND writes, and back.  v broadcasts to
 * the indexed shape x[:p] + B + x[p+k:] (B the broadcast index shape);
 * it is moved alike, B first. */
static int
put_after_nones(Lower *L, const Value *sv, ValId x, ValId v, ValId *iv,
    const Value **is, const int64_t *pos, int k, bool acc)
{
	int r = sv->rank, p = (int)pos[0], nb = 0;
	for (int j = 0; j < k; j++)
		nb = is[j]->rank > nb ? is[j]->rank : nb;
	int64_t perm[LW_MAXRANK], inv[LW_MAXRANK], pv[LW_MAXRANK];
	ValId xt = front(L, x, r, pos, k, perm);
	for (int d = 0; d < r; d++)
		inv[perm[d]] = d;
	ValId st = stack_indices(L, sv, x, iv, is, pos, k);
	ValId sst = lw_op1(L, "Shape", st);
	lw_settype(L, sst, DT_I64);
	ValId parts[3] = {lw_dims_of(L, sv, x, 0, p),
	    lw_slice_const(L, sst, 0, 0, -1, 1),
	    p + k < r ? lw_dims_of(L, sv, x, p + k, r) : 0};
	ValId u = lw_op2(L, "Expand", v, lw_concat_shape(L, parts, 3));
	int n = 0, vr = p + nb + (r - p - k);
	for (int d = 0; d < nb; d++)
		pv[n++] = p + d;
	for (int d = 0; d < p; d++)
		pv[n++] = d;
	for (int d = p + nb; d < vr; d++)
		pv[n++] = d;
	u = lw_transpose(L, u, pv, vr);
	NodeId s = lw_emit(L, "ScatterND", 3, (ValId[]){xt, st, u}, 1);
	if (acc)
		lw_attr_str(L, s, "reduction", "add");
	ValId y = lw_typed(L, s, lw_dtype(L, x));
	lw_bind(L, 0, lw_is_identity_perm(inv, r) ? y : lw_transpose(L, y, inv,
	    r));
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
		ValId mask = lw_cast(L, idx[0], DT_BOOL);
		int mr = isv[0]->rank;
		if (!one)
			return mask_put(L, x, mask, mr, v, acc);
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
		if (k && j != pos[k - 1] + 1)
			return lw_fail(L, "index_put with index tensors apart "
			    "(None between them) is not supported");
		pos[k] = j;
		iv[k] = lw_cast(L, idx[j], DT_I64);
		is[k++] = isv[j];
	}
	if (!k)
		return lw_fail(L, "index_put without index tensors");
	const Value *sv = lw_srcval(L, 0, "self");
	if (pos[0] > 0)
		return put_after_nones(L, sv, x, v, iv, is, pos, k, acc);
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

/* The indices [0]*r0 + [1]*r1 + ... of 1-D repeats r, int64.  Output
 * position p takes index #{k : cumsum(repeats)[k] <= p}, which is data
 * dependent in length, so it is computed by comparison (O(n * total)). */
ValId
lw_repeat_indices(Lower *L, ValId r)
{
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
	return cnt;
}

/* repeat_interleave(repeats): lw_repeat_indices */
static int
repeat_interleave_tensor(Lower *L)
{
	ValId r = lw_in(L, 0, "repeats");
	const Value *rv = lw_srcval(L, 0, "repeats");
	if (!r)
		return -1;
	if (rv->rank != 1)
		return lw_fail(L, "repeats must be a 1-D tensor");
	lw_bind(L, 0, lw_cast(L, lw_repeat_indices(L, r), lw_outdtype(L)));
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_index LW_THIS
const LowerRule lw_rules_index[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
