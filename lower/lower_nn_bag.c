/* lower_nn_bag.c - lowering rules for nn.EmbeddingBag: aten::embedding_bag
 * (.default, .padding_idx), _embedding_bag and _embedding_bag_forward_only.
 *
 * The ops take (weight, indices, offsets, scale_grad_by_freq, mode,
 * sparse, per_sample_weights, include_last_offset, padding_idx): bag b
 * holds indices[offsets[b]:offsets[b+1]] (the last bag runs to the end
 * unless include_last_offset), and is reduced by sum, mean or max.
 * Each index's bag comes from a running count of the bag starts, and the
 * gathered rows are scattered into their bags with that reduction. */
#include <math.h>
#include <string.h>

#include "lower_nn.h"

enum { BAG_SUM, BAG_MEAN, BAG_MAX };

/* x (an INT64 count of the bag starts at or before each index) from the
 * offsets: 1 at each start, a running sum, less 1 */
static ValId
bag_of_index(Lower *L, ValId n, ValId off)
{
	ValId n1 = lw_op2(L, "Add", n, lw_i64v(L, 1));
	lw_settype(L, n1, DT_I64);
	ValId zeros = lwn_fill(L, n1, 0, DT_I64);
	lw_settype(L, zeros, DT_I64);
	ValId ones = lwn_fill(L, lw_op1(L, "Shape", off), 1, DT_I64);
	lw_settype(L, ones, DT_I64);
	/* a bag may be empty, so starts may repeat and one may be n */
	ValId in[3] = {zeros, off, ones};
	NodeId s = lw_emit(L, "ScatterElements", 3, in, 1);
	lw_attr_str(L, s, "reduction", "add");
	ValId marks = lw_slice(L, lwn_settyped(L, s, 0, DT_I64), lw_i64v(L, 0),
	    n, (int64_t[]){0}, 1, 0);
	ValId c[2] = {marks, lw_scalar_i64(L, 0)};
	NodeId cs = lw_emit(L, "CumSum", 2, c, 1);
	return lw_op2(L, "Sub", lwn_settyped(L, cs, 0, DT_I64),
	    lw_scalar_i64(L, 1));
}

/* data with the rows u (of rank r) scattered into the rows bag by
 * reduction red */
static ValId
scatter_rows_n(Lower *L, ValId data, ValId bag, ValId u, const char *red,
    int r)
{
	int64_t ax[LW_MAXRANK];
	for (int k = 1; k < r; k++)
		ax[k - 1] = k;
	ValId b = r > 1 ? lw_axes_op(L, "Unsqueeze", bag, ax, r - 1) : bag;
	ValId shp = lw_op1(L, "Shape", u);
	lw_settype(L, shp, DT_I64);
	ValId in[3] = {data, lw_op2(L, "Expand", b, shp), u};
	NodeId s = lw_emit(L, "ScatterElements", 3, in, 1);
	lw_attr_str(L, s, "reduction", red);
	return lwn_settyped(L, s, 0, lw_dtype(L, data));
}

/* data with the rows u scattered into the rows bag by reduction red */
static ValId
scatter_rows(Lower *L, ValId data, ValId bag, ValId u, const char *red)
{
	ValId shp = lw_op1(L, "Shape", u);
	lw_settype(L, shp, DT_I64);
	ValId i = lw_op2(L, "Expand", lwn_unsqueeze(L, bag, 1), shp);
	ValId in[3] = {data, i, u};
	NodeId s = lw_emit(L, "ScatterElements", 3, in, 1);
	lw_attr_str(L, s, "reduction", red);
	return lwn_settyped(L, s, 0, lw_dtype(L, data));
}

/* FX output k as INT64 zeros when its annotation is static and holds
 * no element (what PyTorch leaves empty); 0 otherwise */
static ValId
zero_out(Lower *L, int k)
{
	const Value *o = lw_outval(L, k);
	int64_t dims[LW_MAXRANK], numel = 1;
	if (o->kind != VK_TENSOR || o->rank < 0 || o->rank > LW_MAXRANK)
		return 0;
	for (int d = 0; d < o->rank; d++) {
		if (!lw_dim_static(o, L->src, d, &dims[d]))
			return 0;
		numel *= dims[d];
	}
	if (numel != 0 && k == 1) /* offset2bag proper */
		return 0;
	if (numel > 1 << 20) {
		lw_fail(L, "output %d of %lld elements", k, (long long)numel);
		return 0;
	}
	int64_t *z = lw_scratch(L, (size_t)numel + 1, sizeof *z);
	return lw_const(L, DT_I64, o->rank, dims, z);
}

/* For mode='max': the weight row each maximum came from, the first in the
 * bag where several are equal; 0 for an empty bag. */
static ValId
argmax_rows(Lower *L, ValId rows, ValId out, ValId bag, ValId idx,
    ValId keep, ValId bd, DType dt)
{
	ValId in[2] = {out, bag};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", 0);
	ValId hit = lw_op2t(L, "Equal", rows, lwn_settyped(L, g, 0, dt),
	    DT_BOOL);
	if (keep)
		hit = lw_op2(L, "And", hit, lwn_unsqueeze(L, keep, 1));
	ValId n = lw_op1(L, "Shape", idx);
	ValId r3[3] = {lw_scalar_i64(L, 0), lwn_squeeze(L, n, 0),
	    lw_scalar_i64(L, 1)};
	ValId pos = lw_typed(L, lw_emit(L, "Range", 3, r3, 1), DT_I64);
	ValId wh[3] = {hit, lwn_unsqueeze(L, pos, 1),
	    lw_scalar_i64(L, INT64_MAX)};
	ValId cand = lw_typed(L, lw_emit(L, "Where", 3, wh, 1), DT_I64);
	ValId big = lw_op2(L, "Expand", lw_scalar_i64(L, INT64_MAX), bd);
	ValId first = scatter_rows(L, big, bag, cand, "min");
	/* no maximum: an empty bag (or one of padding only) */
	ValId none = lw_op2t(L, "Equal", first, lw_scalar_i64(L, INT64_MAX),
	    DT_BOOL);
	ValId w2[3] = {none, lw_scalar_i64(L, 0), first};
	first = lw_typed(L, lw_emit(L, "Where", 3, w2, 1), DT_I64);
	ValId gi[2] = {idx, first};
	ValId r = lw_typed(L, lw_emit(L, "Gather", 2, gi, 1), DT_I64);
	ValId w3[3] = {none, lw_scalar_i64(L, 0), r};
	return lw_typed(L, lw_emit(L, "Where", 3, w3, 1), DT_I64);
}

static int
embedding_bag(Lower *L)
{
	int64_t mode = lw_int(L, 4, "mode", BAG_SUM);
	bool last = lw_bool(L, 7, "include_last_offset", false);
	int64_t pad = lw_int(L, 8, "padding_idx", -1);
	bool err = false;
	ValId psw = lwn_opt_in(L, 6, "per_sample_weights", &err);
	const Value *wv = lw_srcval(L, 0, "weight"),
		    *iv = lw_srcval(L, 1, "indices"),
		    *ov = lw_srcval(L, 2, "offsets");
	if (lw_failed(L) || err)
		return -1;
	if (!wv || wv->rank != 2 || !iv || iv->rank != 1 || !ov ||
	    ov->rank != 1)
		return lw_fail(L, "needs a 2-D weight and 1-D indices and "
		    "offsets");
	/* embedding_bag.padding_idx counts a negative padding_idx from the
	 * end (None: none), _embedding_bag takes -1 for none */
	const char *op = ir_str(L->m, lw_node(L)->op);
	int64_t nw;
	if (pad < 0 && lw_has(L, 8, "padding_idx") &&
	    strcmp(op, "aten::embedding_bag.padding_idx") == 0) {
		if (!lw_sdim(L, wv, 0, &nw) || pad < -nw)
			return lw_fail(L, "padding_idx %lld is out of range",
			    (long long)pad);
		pad += nw;
	}
	if (mode < BAG_SUM || mode > BAG_MAX)
		return lw_fail(L, "unknown mode %lld", (long long)mode);
	if (psw && mode != BAG_SUM)
		return lw_fail(L, "per_sample_weights is only supported for "
		    "mode='sum'");
	if (mode == BAG_MAX && L->opset < 18)
		return lw_fail(L, "mode='max' needs opset 18 or later");
	ValId w = lw_in(L, 0, "weight");
	if (!w)
		return -1;
	DType dt = lw_dtype(L, w);
	if (dt == DT_F16 || dt == DT_BF16)
		w = lw_cast(L, w, dt = DT_F32);
	ValId idx = lw_cast(L, lw_in(L, 1, "indices"), DT_I64),
	      off = lw_cast(L, lw_in(L, 2, "offsets"), DT_I64);
	if (!idx || !off)
		return -1;
	if (last)
		off = lw_slice_const(L, off, 0, 0, -1, 1);
	ValId bag = bag_of_index(L, lw_op1(L, "Shape", idx), off);
	ValId in[2] = {w, idx};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", 0);
	ValId rows = lwn_settyped(L, g, 0, dt);
	if (psw)
		rows = lw_op2(L, "Mul", rows,
		    lwn_unsqueeze(L, lw_cast(L, psw, dt), 1));
	/* padding_idx: those indices are in no bag, nor in its count */
	ValId keep = 0;
	if (pad >= 0) {
		keep = lw_op2t(L, "Equal", idx, lw_scalar_i64(L, pad), DT_BOOL);
		keep = lw_op1(L, "Not", keep);
		ValId fill = lw_scalar(L, mode == BAG_MAX ? -INFINITY : 0, dt);
		ValId wh[3] = {lwn_unsqueeze(L, keep, 1), rows, fill};
		rows = lw_typed(L, lw_emit(L, "Where", 3, wh, 1), dt);
	}
	ValId parts[2] = {lw_op1(L, "Shape", off), lwn_shape_of(L, w, 1, 2)};
	lw_settype(L, parts[0], DT_I64);
	ValId bd = lw_concat(L, parts, 2, 0, DT_I64);
	ValId out, cnt = 0;
	if (mode != BAG_SUM) {
		ValId one = keep ? lw_cast(L, keep, dt)
		    : lwn_fill(L, lw_op1(L, "Shape", idx), 1, dt);
		lw_settype(L, one, dt);
		ValId z = lwn_fill(L, parts[0], 0, dt);
		lw_settype(L, z, dt);
		ValId ci[3] = {z, bag, one};
		NodeId cn = lw_emit(L, "ScatterElements", 3, ci, 1);
		lw_attr_str(L, cn, "reduction", "add");
		cnt = lwn_unsqueeze(L, lwn_settyped(L, cn, 0, dt), 1);
	}
	if (mode == BAG_MAX) {
		ValId init = lwn_fill(L, bd, -INFINITY, dt);
		lw_settype(L, init, dt);
		out = scatter_rows(L, init, bag, rows, "max");
		/* an empty bag is 0 */
		ValId some = lw_op2t(L, "Greater", cnt, lw_scalar(L, 0, dt),
		    DT_BOOL);
		ValId wh[3] = {some, out, lw_scalar(L, 0, dt)};
		out = lw_typed(L, lw_emit(L, "Where", 3, wh, 1), dt);
	} else {
		ValId z = lwn_fill(L, bd, 0, dt);
		lw_settype(L, z, dt);
		out = scatter_rows(L, z, bag, rows, "add");
		if (mode == BAG_MEAN)
			out = lw_op2(L, "Div", out, lw_op2(L, "Max", cnt,
			    lw_scalar(L, 1, dt)));
	}
	lwn_bind_out(L, 0, out);
	/* the other outputs are for the backward: offset2bag, bag_size,
	 * max_indices; what PyTorch's kernel leaves empty or zero has a
	 * static size in the annotation */
	ValId o[4] = {0, bag, cnt ? lwn_squeeze(L, cnt, 1) : 0, 0};
	if (mode == BAG_MAX && lwn_used(L, 3))
		o[3] = argmax_rows(L, rows, out, bag, idx, keep, bd, dt);
	else if (mode == BAG_MEAN)
		o[3] = o[2];
	for (int k = 1; k < 4; k++) {
		if (!lwn_used(L, k))
			continue;
		ValId z = zero_out(L, k);
		if (z && (k == 1 || mode == BAG_SUM))
			o[k] = z;
		/* mode='sum' leaves bag_size and max_indices zero, one per
		 * bag, however many bags there are */
		if (mode == BAG_SUM && k > 1 && !z && !lw_failed(L)) {
			o[k] = lwn_fill(L, parts[0], 0, DT_I64);
			lw_settype(L, o[k], DT_I64);
		}
		if (!o[k])
			return lw_failed(L) ? -1 : lw_fail(L, "output %d "
			    "needs a static size", k);
		lwn_bind_out(L, k, o[k]);
	}
	return 0;
}

/* embedding_renorm(self, indices, max_norm, norm_type): the rows that
 * indices name whose norm_type-norm exceeds max_norm are scaled to
 * max_norm / (norm + 1e-7) of themselves, as nn.Embedding(max_norm=)
 * does before looking them up; the other rows stay. */
static int
embedding_renorm(Lower *L)
{
	double mx = lw_float(L, 2, "max_norm", 0), p = lw_float(L, 3,
	    "norm_type", 2);
	const Value *wv = lw_srcval(L, 0, "self");
	ValId w = lw_in(L, 0, "self"), idx = lw_cast(L, lw_in(L, 1,
	    "indices"), DT_I64);
	if (lw_failed(L) || !w || !idx)
		return -1;
	if (!wv || wv->rank != 2)
		return lw_fail(L, "self must be a 2-D tensor");
	if (!(p > 0))
		return lw_fail(L, "norm_type %g is not supported", p);
	DType dt = lw_dtype(L, w);
	int64_t ax = 1;
	ValId a = lw_op1(L, "Abs", w), norm;
	if (p == INFINITY) {
		norm = lwn_reduce(L, "ReduceMax", a, &ax, 1, false);
	} else if (p == 1) {
		norm = lwn_reduce(L, "ReduceSum", a, &ax, 1, false);
	} else {
		a = lw_op2(L, "Pow", a, lw_scalar(L, p, dt));
		norm = lwn_reduce(L, "ReduceSum", a, &ax, 1, false);
		norm = lw_op2(L, "Pow", norm, lw_scalar(L, 1 / p, dt));
	}
	/* which rows indices name: a scatter of ones */
	ValId nrows = lwn_shape_of(L, w, 0, 1);
	ValId z = lwn_fill(L, nrows, 0, DT_BOOL);
	/* indices of any rank (nn.Embedding's [B, T] tokens), flat */
	idx = lwn_reshape(L, idx, (int64_t[]){-1}, 1);
	ValId ones = lwn_fill(L, lw_op1(L, "Shape", idx), 1, DT_BOOL);
	lw_settype(L, z, DT_BOOL);
	lw_settype(L, ones, DT_BOOL);
	ValId si[3] = {z, idx, ones};
	ValId named = lw_typed(L, lw_emit(L, "ScatterElements", 3, si, 1),
	    DT_BOOL);
	ValId big = lw_op2t(L, "Greater", norm, lw_scalar(L, mx, dt), DT_BOOL);
	ValId scale = lw_op2(L, "Div", lw_scalar(L, mx, dt), lw_op2(L, "Add",
	    norm, lw_scalar(L, 1e-7, dt)));
	ValId wh[3] = {lw_op2(L, "And", named, big), scale, lw_scalar(L, 1,
	    dt)};
	scale = lw_typed(L, lw_emit(L, "Where", 3, wh, 1), dt);
	lwn_bind_out(L, 0, lw_op2(L, "Mul", w, lwn_unsqueeze(L, scale, 1)));
	return 0;
}

/* segment_reduce(data, reduce, *, lengths=None, indices=None,
 * offsets=None, axis=0, unsafe=False, initial=None): rows of data in
 * segments given by 1-D lengths or offsets, each reduced, starting from
 * initial where given; an empty segment is initial, else the
 * reduction's identity (a mean's is NaN).  Rows past the last segment
 * go to a spare one that is cut off. */
static int
segment_reduce(Lower *L)
{
	const Arg *ra = lw_arg(L, 1, "reduce");
	const char *r = ra && ra->kind == A_STR ? ir_str(L->m, ra->u.s) : "";
	bool mean = !strcmp(r, "mean");
	const char *red = !strcmp(r, "sum") || mean ? "add" : !strcmp(r,
	    "prod") ? "mul" : !strcmp(r, "max") ? "max" : !strcmp(r, "min")
	    ? "min" : NULL;
	const Value *dv = lw_srcval(L, 0, "data");
	bool init = lw_has(L, -1, "initial"), err = false;
	double iv = lw_float(L, -1, "initial", 0);
	ValId len = lwn_opt_in(L, -1, "lengths", &err),
	      off = lwn_opt_in(L, -1, "offsets", &err);
	if (lw_failed(L) || err)
		return -1;
	if (!red)
		return lw_fail(L, "reduce argument must be either sum, prod, "
		    "max, min or mean, got %s", r);
	if (lw_has(L, -1, "indices"))
		return lw_fail(L, "indices is not supported");
	if (lw_int(L, -1, "axis", 0) != 0 || !dv || dv->rank < 1)
		return lw_fail(L, "only segments along axis 0 are supported");
	const Value *sv = lw_srcval(L, -1, len ? "lengths" : "offsets");
	if (!sv || sv->rank != 1 || (!len == !off))
		return lw_fail(L, "needs 1-D lengths or offsets, one of them");
	if (L->opset < 18 && red[1] != 'd' && red[1] != 'u')
		return lw_fail(L, "reduce='%s' needs opset 18 or later", r);
	ValId x = lw_in(L, 0, "data");
	if (!x)
		return -1;
	DType dt = lw_dtype(L, x);
	if (!ir_dtype_is_float(dt))
		return lw_fail(L, "segment_reduce of integers is not supported");
	ValId starts, total;
	if (len) {
		len = lw_cast(L, len, DT_I64);
		NodeId cs = lw_emit(L, "CumSum", 2, (ValId[]){len,
		    lw_scalar_i64(L, 0)}, 1);
		lw_attr_int(L, cs, "exclusive", 1);
		starts = lwn_settyped(L, cs, 0, DT_I64);
		total = lwn_reduce(L, "ReduceSum", len, NULL, 0, true);
	} else {
		off = lw_cast(L, off, DT_I64);
		starts = lw_slice_const(L, off, 0, 0, -1, 1);
		total = lw_slice_const(L, off, 0, -1, INT64_MAX, 1);
	}
	ValId n = lwn_shape_of(L, x, 0, 1), s = lw_op1(L, "Shape", starts);
	lw_settype(L, s, DT_I64);
	ValId seg = bag_of_index(L, n, starts);
	ValId pos = lw_typed(L, lw_emit(L, "Range", 3, (ValId[]){
	    lw_scalar_i64(L, 0), lwn_squeeze(L, n, 0), lw_scalar_i64(L, 1)},
	    1), DT_I64);
	ValId in = lw_op2t(L, "Less", pos, total, DT_BOOL);
	seg = lw_typed(L, lw_emit(L, "Where", 3, (ValId[]){in, seg,
	    lwn_squeeze(L, s, 0)}, 1), DT_I64);
	/* [segments + 1, rest..] from initial (or the identity) */
	ValId s1 = lw_op2(L, "Add", s, lw_i64v(L, 1));
	ValId od[2] = {s1, lwn_shape_of(L, x, 1, INT64_MAX)};
	ValId oshape = lw_concat(L, od, 2, 0, DT_I64);
	double id = !strcmp(red, "mul") ? 1 : !strcmp(red, "max") ? -INFINITY
	    : !strcmp(red, "min") ? INFINITY : 0;
	ValId base = lwn_fill(L, oshape, init ? iv : id, dt);
	lw_settype(L, base, dt);
	ValId y = scatter_rows_n(L, base, seg, x, red, dv->rank);
	if (mean) {
		ValId z = lwn_fill(L, s1, 0, dt), one = lwn_fill(L, n, 1, dt);
		lw_settype(L, z, dt);
		lw_settype(L, one, dt);
		NodeId cn = lw_emit(L, "ScatterElements", 3, (ValId[]){z, seg,
		    one}, 1);
		lw_attr_str(L, cn, "reduction", "add");
		ValId c = lwn_settyped(L, cn, 0, dt);
		int64_t dims[LW_MAXRANK];
		dims[0] = -1;
		for (int k = 1; k < dv->rank; k++)
			dims[k] = 1;
		c = lwn_reshape(L, c, dims, dv->rank);
		ValId q = lw_op2(L, "Div", y, c);
		ValId none = lw_op2t(L, "Equal", c, lw_scalar(L, 0, dt),
		    DT_BOOL);
		y = lw_typed(L, lw_emit(L, "Where", 3, (ValId[]){none,
		    lw_scalar(L, init ? iv : NAN, dt), q}, 1), dt);
	}
	y = lw_slice(L, y, lw_i64v(L, 0), s, (int64_t[]){0}, 1, 0);
	lwn_bind_out(L, 0, y);
	return 0;
}

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn_bag LW_THIS
const LowerRule lw_rules_nn_bag[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
