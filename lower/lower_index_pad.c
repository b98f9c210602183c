/* lower_index_pad.c - lowering rules for flip and roll, padding
 * (constant, reflect, replicate, circular) and tril/triu/diagonal. */
#include <stdlib.h>
#include <string.h>

#include "../ir/ckint.h"
#include "lower_index.h"

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

/* x rolled along d by a shift known at run time (shift: a [1] INT64) or
 * along a dim of a size known there: the shift wrapped to k in [0, n) as
 * torch wraps it (Mod takes the divisor's sign; an empty dim as 1), the
 * last k elements first */
static ValId
roll_dyn(Lower *L, ValId x, int64_t d, ValId shift)
{
	ValId n = lw_shape_range(L, x, (int)d, (int)d + 1);
	ValId k = lw_op2(L, "Mod", shift, lw_op2(L, "Max", n, lw_i64v(L, 1)));
	ValId cut = lw_op2(L, "Sub", n, k);
	ValId a = lw_slice(L, x, cut, lw_i64v(L, INT64_MAX), &d, 1, 0);
	ValId b = lw_slice(L, x, lw_i64v(L, 0), cut, &d, 1, 0);
	return lw_concat(L, (ValId[]){a, b}, 2, d, lw_dtype(L, x));
}

/* x rolled by shift along d: the last shift elements come first */
static ValId
roll1(Lower *L, const Value *sv, ValId x, int64_t d, int64_t shift)
{
	int64_t size;
	if (shift == 0)
		return x;
	if (!sv || !lw_sdim(L, sv, (int)d, &size))
		return roll_dyn(L, x, d, lw_i64v(L, shift));
	if (size == 0)
		return x;
	shift %= size;
	if (shift < 0)
		shift += size;
	if (shift == 0)
		return x;
	shift -= size; /* as a negative count from the end */
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
	int nd = lw_ints(L, 2, "dims", dims, LW_MAXRANK);
	if (lw_list_symbolic(L, 1, "shifts")) {
		/* shifts known at run time (roll by t // 2 of a dynamic t) */
		const Arg *a = lw_arg(L, 1, "shifts");
		ValId all = lw_shape_list(L, 1, "shifts");
		if (!all || nd != (int)a->u.list.n || r == 0)
			return lw_fail(L, "shifts known at run time need as "
			    "many dims, of a tensor of rank 1 or more");
		for (int k = 0; k < nd; k++) {
			if (lw_normdim(L, &dims[k], r) < 0)
				return -1;
			x = roll_dyn(L, x, dims[k], lw_slice_const(L, all, 0, k,
			    k + 1, 1));
		}
		lw_bind(L, 0, x);
		return 0;
	}
	int ns = lw_ints(L, 1, "shifts", sh, LW_MAXRANK);
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

/* x (rank r) with the negative pads of beg/end cut off: a Slice; 0
 * after reporting */
static ValId
crop_neg(Lower *L, ValId x, int r, const int64_t *beg, const int64_t *end)
{
	int64_t st[LW_MAXRANK], en[LW_MAXRANK], ax[LW_MAXRANK];
	int n = 0;
	for (int d = 0; d < r; d++) {
		if (beg[d] >= 0 && end[d] >= 0)
			continue;
		ax[n] = d;
		st[n] = 0;
		if (beg[d] < 0 && !ck_neg(beg[d], &st[n])) {
			lw_fail(L, "pad %lld cannot be negated",
			    (long long)beg[d]);
			return 0;
		}
		en[n] = end[d] < 0 ? end[d] : INT64_MAX;
		n++;
	}
	return lw_slice(L, x, lw_const_i64s(L, st, n), lw_const_i64s(L, en,
	    n), ax, n, 0);
}

/* Pad x (rank r) by the torch pad list (last dim first, begin/end pairs).
 * Growing uses ONNX Pad (or Slice+Concat for circular, valid before opset
 * 19); shrinking (negative pads) is a Slice, before the wrap for circular
 * (PyTorch's _pad_circular wraps the cut tensor), after the Pad else. */
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
	/* circular: PyTorch cuts first and wraps what is left */
	if (crop && mode == PAD_CIRCULAR && !(x = crop_neg(L, x, r, beg, end)))
		return -1;
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
	if (crop && mode != PAD_CIRCULAR)
		x = crop_neg(L, x, r, beg, end);
	if (x)
		lw_bind(L, 0, x);
	return x ? 0 : -1;
}

/* padding by sizes known at run time (istft's pad to a given length in
 * core ATen: [0, max(0, len - n)]; a window partition's pad to a multiple,
 * (w - h % w) % w): the torch list, last dim first, gathered into ONNX's
 * begins-then-ends order, zeros for the dims it leaves out; a negative pad
 * crops, as ONNX Pad does too.  mode is ONNX's: constant, reflect, edge */
static int
pad_dyn(Lower *L, int value_arg, const char *mode)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	ValId pv = x && r >= 0 ? lw_pads_dyn(L, 1, "pad", r, r) : 0;
	if (!pv)
		return -1;
	DType dt = lw_dtype(L, x);
	ValId cv = value_arg >= 0 && lw_has(L, value_arg, "value")
	    ? lw_operand(L, value_arg, "value", dt) : lw_scalar_int(L, 0, dt);
	if (!cv)
		return -1;
	NodeId n = lw_emit(L, "Pad", 3, (ValId[]){x, pv, cv}, 1);
	lw_attr_str(L, n, "mode", mode);
	lw_bind(L, 0, lw_typed(L, n, dt));
	return 0;
}

static int
constant_pad_nd(Lower *L)
{
	if (lw_list_symbolic(L, 1, "pad"))
		return pad_dyn(L, 2, "constant");
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
	bool dyn = lw_list_symbolic(L, 1, "pad");
	if (!strcmp(m, "constant"))
		return dyn ? pad_dyn(L, 3, "constant")
		    : pad_common(L, PAD_CONSTANT, 3);
	if (!strcmp(m, "reflect"))
		return dyn ? pad_dyn(L, -1, "reflect")
		    : pad_common(L, PAD_REFLECT, -1);
	if (!strcmp(m, "replicate"))
		return dyn ? pad_dyn(L, -1, "edge")
		    : pad_common(L, PAD_EDGE, -1);
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
 * Gather, then the column of each row by GatherElements; the indices are
 * constants where the two dims are static, else made at run time. */
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
	/* an offset past any size gives an empty diagonal: clamped, so that
	 * neither -off nor the sums below overflow */
	const int64_t big = (int64_t)1 << 40;
	int64_t n, m, r0 = off < 0 ? (off < -big ? big : -off) : 0,
		c0 = off > 0 ? (off > big ? big : off) : 0;
	bool st = lw_sdim(L, sv, (int)d1, &n) && lw_sdim(L, sv, (int)d2, &m);
	int64_t fperm[LW_MAXRANK];
	int q = 0;
	for (int d = 0; d < r; d++)
		if (d != d1 && d != d2)
			fperm[q++] = d;
	fperm[q++] = d1;
	fperm[q++] = d2;
	ValId t = lw_is_identity_perm(fperm, r) ? x : lw_transpose(L, x, fperm, r);
	ValId rv, cv, cshape;
	if (st) {
		int64_t len = n - r0 < m - c0 ? n - r0 : m - c0;
		if (len < 0)
			len = 0;
		if (len > MAXCONST)
			return lw_fail(L, "diagonal too long");
		int64_t *rows = lw_scratch(L, (size_t)len + 1, sizeof *rows);
		int64_t *cols = lw_scratch(L, (size_t)len + 1, sizeof *cols);
		for (int64_t k = 0; k < len; k++)
			rows[k] = r0 + k, cols[k] = c0 + k;
		int64_t cd[2] = {len, 1};
		rv = lw_const_i64s(L, rows, (int)len);
		cv = lw_const(L, DT_I64, 2, cd, cols);
		cshape = lw_const_i64s(L, cd, 2);
	} else {  /* the same at run time: len = min(n - r0, m - c0), >= 0 */
		ValId len = lw_op2(L, "Max", lw_op2(L, "Min", lw_op2(L, "Sub",
		    lw_shape_range(L, t, r - 2, r - 1), lw_i64v(L, r0)),
		    lw_op2(L, "Sub", lw_shape_range(L, t, r - 1, r),
		    lw_i64v(L, c0))), lw_i64v(L, 0));
		ValId r3[3] = {lw_scalar_i64(L, 0), lw_axes_op(L, "Squeeze", len,
		    (int64_t[]){0}, 1), lw_scalar_i64(L, 1)};
		ValId k = lw_typed(L, lw_emit(L, "Range", 3, r3, 1), DT_I64);
		rv = lw_op2(L, "Add", k, lw_scalar_i64(L, r0));
		cv = lw_axes_op(L, "Unsqueeze", lw_op2(L, "Add", k,
		    lw_scalar_i64(L, c0)), (int64_t[]){1}, 1);
		cshape = lw_concat_shape(L, (ValId[]){len, lw_i64v(L, 1)}, 2);
	}
	NodeId g = lw_emit(L, "Gather", 2, (ValId[]){t, rv}, 1);
	lw_attr_int(L, g, "axis", r - 2);
	ValId gr = lw_typed(L, g, lw_dtype(L, x)); /* [..., len, m] */
	ValId bparts[2] = {r > 2 ? lw_shape_range(L, gr, 0, r - 2) : 0,
	    cshape};
	ValId bshape = lw_concat_shape(L, bparts, 2);
	ValId ci = lw_op2(L, "Expand", cv, bshape);
	NodeId ge = lw_emit(L, "GatherElements", 2, (ValId[]){gr, ci}, 1);
	lw_attr_int(L, ge, "axis", r - 1);
	ValId e = lw_typed(L, ge, lw_dtype(L, x));
	lw_bind(L, 0, lw_axes_op(L, "Squeeze", e, (int64_t[]){-1}, 1));
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_index_pad LW_THIS
const LowerRule lw_rules_index_pad[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
