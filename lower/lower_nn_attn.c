/* lower_nn_attn.c - lowering rules for attention (scaled dot-product
 * attention), embeddings, dropout and one-hot. */
#include <math.h>
#include <string.h>

#include "lower_nn.h"

/* -------------------------------------------------------------- attention */

/* A scalar dim of x's runtime shape (negative d from the end). */
static ValId
dim_scalar(Lower *L, ValId x, int64_t d)
{
	return lwn_squeeze(L,
	    lwn_shape_of(L, x, d, d == -1 ? INT64_MAX : d + 1), 0);
}

/* Grouped-query attention: each of the key's heads serves g query heads
 * in a row (repeat_interleave on dim -3): [.., H, S, E] -> [.., H*g, S, E]
 * through [.., H, g, S, E]. */
static ValId
repeat_heads(Lower *L, ValId x, int rank, int64_t g)
{
	int64_t ones[17];
	for (int k = 0; k <= rank; k++)
		ones[k] = 1;
	ones[rank - 2] = g;
	ValId x5 = lw_op2(L, "Expand", lwn_unsqueeze(L, x, rank - 2),
	    lw_const_i64s(L, ones, rank + 1));
	ValId parts[3] = {lwn_shape_of(L, x, 0, rank - 3),
	    lw_const_i64s(L, (int64_t[]){-1}, 1), lwn_shape_of(L, x, rank - 2,
	    INT64_MAX)};
	NodeId c = lw_emit(L, "Concat", 3, parts, 1);
	lw_attr_int(L, c, "axis", 0);
	return lw_op2(L, "Reshape", x5, lwn_settyped(L, c, 0, DT_I64));
}

/* An ONNX Dropout in training mode on x: (output, bool keep-mask). */
static NodeId
train_dropout(Lower *L, ValId x, double p)
{
	DType dt = lw_dtype(L, x);
	ValId ratio = lw_scalar(L, p, dt == DT_F16 || dt == DT_BF16 ||
	    dt == DT_F64 ? dt : DT_F32);
	NodeId n = lw_emit(L, "Dropout", 3, (ValId[]){x, ratio,
	    lw_const(L, DT_BOOL, 0, NULL, &(uint8_t){1})}, 2);
	lw_settype(L, lw_res(L, n, 0), dt);
	lw_settype(L, lw_res(L, n, 1), DT_BOOL);
	return n;
}

/* softmax(q @ k^T * scale + mask) @ v, the math reference PyTorch
 * documents; the causal mask keeps key j for query i when j <= i, and a
 * row that attn_mask drops whole gives 0, as PyTorch's kernels do. */
static int
attention(Lower *L, int imask, int idrop, int icausal, bool lse)
{
	const Value *qv = lw_srcval(L, 0, "query"), *kv = lw_srcval(L, 1,
	    "key"), *vv = lw_srcval(L, 2, "value");
	if (!qv || !kv || !vv || qv->rank < 2 || kv->rank < 2 ||
	    vv->rank < 2)
		return lw_fail(L, "query, key and value must be tensors of "
		    "rank >= 2");
	double pdrop = lw_float(L, idrop, "dropout_p", 0);
	if (!(pdrop >= 0 && pdrop <= 1))
		return lw_fail(L, "dropout_p has to be between 0 and 1, but "
		    "got %g", pdrop);
	if (pdrop != 0 && !L->training)
		return lw_fail(L, "dropout_p=%g is attention dropout in training "
		    "mode: pass --training to export the model for training, "
		    "or export it in eval mode (model.eval())", pdrop);
	bool causal = lw_bool(L, icausal, "is_causal", false);
	int64_t hq = 1, hk = 1;
	if (lw_bool(L, -1, "enable_gqa", false) && (qv->rank < 3 ||
	    kv->rank != vv->rank || !lw_dim_static(qv, L->src, -3, &hq) ||
	    !lw_dim_static(kv, L->src, -3, &hk) ||
	    !lw_dim_static(vv, L->src, -3, &hk) || hk < 1 || hq % hk))
		return lw_fail(L, "enable_gqa needs static head counts, the "
		    "query's a multiple of the key's");
	bool err = false;
	ValId q = lwn_mm_work(L, lw_in(L, 0, "query"));
	ValId k = lwn_mm_work(L, lw_in(L, 1, "key"));
	ValId v = lwn_mm_work(L, lw_in(L, 2, "value"));
	ValId mask = lwn_opt_in(L, imask, "attn_mask", &err);
	if (!q || !k || !v || err)
		return -1;
	if (mask && causal)
		return lw_fail(L, "attn_mask and is_causal together");
	DType dt = lw_dtype(L, q);
	k = lw_cast(L, k, dt);
	v = lw_cast(L, v, dt);
	if (hq != hk) {
		k = repeat_heads(L, k, kv->rank, hq / hk);
		v = repeat_heads(L, v, kv->rank, hq / hk);
	}
	int64_t perm[16];
	if (kv->rank > 15)
		return lw_fail(L, "key of rank %d", kv->rank);
	for (int i = 0; i < kv->rank; i++)
		perm[i] = i;
	perm[kv->rank - 2] = kv->rank - 1;
	perm[kv->rank - 1] = kv->rank - 2;
	ValId s = lw_op2(L, "MatMul", q, lwn_transpose(L, k, perm, kv->rank));
	ValId scale;
	int64_t e;
	if (lw_has(L, -1, "scale"))
		scale = lw_scalar(L, lw_float(L, -1, "scale", 1), dt);
	else if (lw_dim_static(qv, L->src, -1, &e))
		scale = lw_scalar(L, 1 / sqrt((double)e), dt);
	else
		scale = lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", lw_cast(L,
		    lwn_shape_of(L, q, -1, INT64_MAX), dt)));
	s = lw_op2(L, "Mul", s, scale);
	ValId ninf = lw_scalar(L, -INFINITY, dt);
	if (causal) {
		ValId zero = lw_scalar_i64(L, 0), one = lw_scalar_i64(L, 1);
		NodeId rn = lw_emit(L, "Range", 3, (ValId[]){zero,
		    dim_scalar(L, q, -2), one}, 1);
		ValId rows = lwn_unsqueeze(L, lwn_settyped(L, rn, 0, DT_I64),
		    1);
		NodeId cn = lw_emit(L, "Range", 3, (ValId[]){zero,
		    dim_scalar(L, k, -2), one}, 1);
		ValId cols = lwn_settyped(L, cn, 0, DT_I64);
		mask = lw_op2t(L, "LessOrEqual", cols, rows, DT_BOOL);
	}
	if (mask && lw_dtype(L, mask) == DT_BOOL) {
		NodeId w = lw_emit(L, "Where", 3, (ValId[]){mask, s, ninf}, 1);
		s = lwn_settyped(L, w, 0, dt);
	} else if (mask) {
		s = lw_op2(L, "Add", s, lw_cast(L, mask, dt));
	}
	NodeId sm = lw_emit(L, "Softmax", 1, &s, 1);
	lw_attr_int(L, sm, "axis", -1);
	ValId a = lwn_settyped(L, sm, 0, dt);
	if (mask && !causal) {
		/* a row the mask drops whole attends to nothing: PyTorch
		 * gives 0 there (its _safe_softmax), Softmax gives NaN */
		int64_t ax = -1;
		ValId none = lw_op2t(L, "Equal", lwn_reduce(L, "ReduceMax", s,
		    &ax, 1, true), ninf, DT_BOOL);
		NodeId w = lw_emit(L, "Where", 3, (ValId[]){none,
		    lw_scalar(L, 0, dt), a}, 1);
		a = lwn_settyped(L, w, 0, dt);
	}
	if (pdrop != 0) /* PyTorch drops attention weights after softmax */
		a = lw_res(L, train_dropout(L, a, pdrop), 0);
	lwn_bind_out(L, 0, lw_op2(L, "MatMul", a, v));
	if (lse && lwn_used(L, 1)) {
		int64_t ax = -1;
		lwn_bind_out(L, 1,
		    lwn_reduce(L, "ReduceLogSumExp", s, &ax, 1, false));
	}
	return 0;
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False) */
static int
sdpa(Lower *L)
{
	return attention(L, 3, 4, 5, false);
}

/* _scaled_dot_product_flash_attention_for_cpu(query, key, value,
 * dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None) ->
 * (output, logsumexp) */
static int
sdpa_flash_cpu(Lower *L)
{
	return attention(L, -1, 3, 4, true);
}

/* ---------------------------------------------------- embedding, dropout */

/* embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
 * sparse=False): rows of weight; padding_idx only matters for gradients */
static int
embedding(Lower *L)
{
	ValId w = lw_in(L, 0, "weight"), i = lw_in(L, 1, "indices");
	if (!w || !i)
		return -1;
	NodeId n = lw_emit(L, "Gather", 2, (ValId[]){w, i}, 1);
	lw_attr_int(L, n, "axis", 0);
	lwn_bind_out(L, 0, lwn_settyped(L, n, 0, lw_dtype(L, w)));
	return 0;
}

/* Dropout's keep-mask, as 0/1 in x's dtype, of the shape PyTorch draws its
 * noise in: x's for dropout and alpha dropout, [N, C, 1, ...] for the
 * feature kinds (a whole channel is kept or dropped). */
static ValId
keep_mask(Lower *L, ValId x, double p, int rank, bool feature)
{
	DType dt = lw_dtype(L, x);
	ValId shape = lwn_shape_of(L, x, 0, INT64_MAX);
	if (feature && rank > 2) {
		int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
		NodeId c = lw_emit(L, "Concat", 2,
		    (ValId[]){lwn_shape_of(L, x, 0,
		    2), lw_const_i64s(L, ones, rank - 2)}, 1);
		lw_attr_int(L, c, "axis", 0);
		shape = lwn_settyped(L, c, 0, DT_I64);
	}
	NodeId d = train_dropout(L, lwn_fill(L, shape, 1, dt), p);
	return lw_cast(L, lw_res(L, d, 1), dt);
}

/* Dropout at inference is the identity.  In training mode (--training) it
 * stays a dropout, one ONNX Dropout per site: x * keep / (1 - p) with the
 * keep-mask drawn by ONNX Runtime; the feature kinds drop whole channels,
 * the alpha kinds keep SELU's mean and variance (PyTorch's _dropout_impl:
 * x * keep * a + (keep - 1) * alpha * a + alpha * a * p). */
static int
dropout_common(Lower *L, bool train_dflt, bool feature, bool alpha)
{
	double p = lw_float(L, 1, "p", 0.5);
	bool train = lw_bool(L, 2, "train", train_dflt);
	if (!(p >= 0 && p <= 1))
		return lw_fail(L, "dropout probability has to be between 0 "
		    "and 1, but got %g", p);
	ValId x = lw_in(L, 0, "input");
	if (!x)
		return -1;
	if (!train || p == 0) {
		lwn_bind_out(L, 0, x);
		/* native_dropout's mask keeps everything */
		if (lwn_used(L, 1))
			lwn_bind_out(L, 1,
			    lwn_fill(L, lwn_shape_of(L, x, 0, INT64_MAX), 1,
			    DT_BOOL));
		return 0;
	}
	if (!L->training)
		return lw_fail(L, "dropout in training mode (train=True, p=%g): "
		    "pass --training to export the model for training, or "
		    "export it in eval mode (model.eval())", p);
	const Value *xv = lw_srcval(L, 0, "input");
	int rank = xv ? xv->rank : 0;
	if (!feature && !alpha) {
		NodeId d = train_dropout(L, x, p);
		lwn_bind_out(L, 0, lw_res(L, d, 0));
		if (lwn_used(L, 1))
			lwn_bind_out(L, 1, lw_res(L, d, 1));
		return 0;
	}
	if (rank < 0 || rank > 8)
		return lw_fail(L, "input of rank %d", rank);
	DType dt = lw_dtype(L, x);
	ValId keep = keep_mask(L, x, p, rank, feature);
	if (!alpha) {
		ValId scale = lw_scalar(L, p == 1 ? 0 : 1 / (1 - p), dt);
		lwn_bind_out(L, 0, lw_op2(L, "Mul", x, lw_op2(L, "Mul", keep,
		    scale)));
		return 0;
	}
	const double al = 1.7580993408473766;
	double a = p == 1 ? 0 : 1 / sqrt((al * al * p + 1) * (1 - p));
	ValId y = lw_op2(L, "Mul", lw_op2(L, "Mul", x, keep),
	    lw_scalar(L, a, dt));
	ValId b = lw_op2(L, "Add", lw_op2(L, "Mul", lw_op2(L, "Sub", keep,
	    lw_scalar(L, 1, dt)), lw_scalar(L, al * a, dt)),
	    lw_scalar(L, al * a * p, dt));
	lwn_bind_out(L, 0, lw_op2(L, "Add", y, b));
	return 0;
}

/* dropout(input, p, train) */
static int
dropout(Lower *L)
{
	return dropout_common(L, false, false, false);
}

static int
feature_dropout(Lower *L)
{
	return dropout_common(L, false, true, false);
}

static int
alpha_dropout(Lower *L)
{
	return dropout_common(L, false, false, true);
}

static int
feature_alpha_dropout(Lower *L)
{
	return dropout_common(L, false, true, true);
}

/* native_dropout(input, p, train?) -> (output, mask); train None means
 * training */
static int
native_dropout(Lower *L)
{
	return dropout_common(L, true, false, false);
}

/* one_hot(self, num_classes=-1): -1 means max(self) + 1 */
static int
one_hot(Lower *L)
{
	int64_t nc = lw_int(L, 1, "num_classes", -1);
	ValId x = lw_cast(L, lw_in(L, 0, "self"), DT_I64);
	if (!x)
		return -1;
	/* OneHot's indices have a rank: a 0-d one as [1], the class
	 * axis then the only one */
	bool zerod = lw_rank_of(L, 0, "self") == 0;
	if (zerod)
		x = lw_reshape(L, x, lw_i64v(L, 1));
	ValId depth = nc >= 0 ? lw_scalar_i64(L, nc) : lw_op2(L, "Add",
	    lwn_reduce(L, "ReduceMax", x, NULL, 0, false), lw_scalar_i64(L, 1));
	ValId vals = lw_const_i64s(L, (int64_t[]){0, 1}, 2);
	NodeId n = lw_emit(L, "OneHot", 3, (ValId[]){x, depth, vals}, 1);
	lw_attr_int(L, n, "axis", -1);
	ValId y = lwn_settyped(L, n, 0, DT_I64);
	if (zerod)
		y = lw_reshape(L, y, lw_i64v(L, -1));
	lwn_bind_out(L, 0, y);
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn_attn LW_THIS
const LowerRule lw_rules_nn_attn[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
