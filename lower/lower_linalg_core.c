/* lower_linalg_core.c - LU, triangular solves and Cholesky unrolled into
 * ONNX nodes (see lower_linalg.h).  Each step works on whole matrices
 * with constant masks, so the batch dims ride along in every op. */
#include "lower_linalg.h"
#include "lower_nn.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

/* FX output k, when the node has it, computed by v (cast to its dtype) */
void
la_bind_out(Lower *L, int k, ValId v)
{
	if ((uint32_t)k >= lw_node(L)->nout || !v)
		return;
	const Value *sv = lw_outval(L, k);
	if (sv->kind == VK_TENSOR && sv->dtype != DT_UNDEF)
		v = lw_cast(L, v, (DType)sv->dtype);
	lw_bind(L, k, v);
}

/* la_matrix_arg, with rhs: the columns may be symbolic (-1) */
static int
matrix_arg(Lower *L, int i, const char *kw, const char *op, LaBatch *b,
    int64_t *rows, int64_t *cols, bool rhs)
{
	const Value *sv = lw_srcval(L, i, kw);
	if (!sv)
		return lw_fail(L, "%s: argument '%s' must be a tensor", op, kw);
	if (sv->rank < 2)
		return lw_fail(L, "%s: argument '%s' must have at least 2 "
		    "dimensions", op, kw);
	if (sv->dtype != DT_F32 && sv->dtype != DT_F64)
		return lw_fail(L, "%s: only float32 and float64 matrices are "
		    "supported", op);
	b->nb = sv->rank - 2;
	b->shape = 0;
	bool dyn = false;
	for (int d = 0; d < sv->rank; d++) {
		int64_t n;
		if (!lw_sdim(L, sv, d, &n)) {
			if (d == b->nb + 1 && rhs) {
				*cols = -1;
				continue;
			}
			if (d >= b->nb)
				return lw_fail(L, "%s is unrolled over static "
				    "sizes: dim %d of '%s' is symbolic", op, d,
				    kw);
			n = -1;
			dyn = true;
		}
		if (d < b->nb)
			b->d[d] = n;
		else if (d == b->nb)
			*rows = n;
		else
			*cols = n;
	}
	if (*rows > LA_MAXN || *cols > LA_MAXN)
		return lw_fail(L, "%s is unrolled over static sizes: a %lldx%lld "
		    "matrix is larger than %d", op, (long long)*rows,
		    (long long)*cols, LA_MAXN);
	if (dyn) {
		ValId x = lw_in(L, i, kw);
		if (!x)
			return -1;
		b->shape = lwn_shape_of(L, x, 0, b->nb);
	}
	return 0;
}

int
la_matrix_arg(Lower *L, int i, const char *kw, const char *op, LaBatch *b,
    int64_t *rows, int64_t *cols)
{
	return matrix_arg(L, i, kw, op, b, rows, cols, false);
}

int
la_rhs_arg(Lower *L, int i, const char *kw, const char *op, LaBatch *b,
    int64_t *rows, int64_t *cols)
{
	return matrix_arg(L, i, kw, op, b, rows, cols, true);
}

int
la_static(Lower *L, const LaBatch *b, const char *op)
{
	if (b->shape)
		return lw_fail(L, "%s needs static batch sizes (a symbolic "
		    "batch dim)", op);
	return 0;
}

ValId
la_batch_shape(Lower *L, const LaBatch *b)
{
	return b->shape ? b->shape : lw_const_i64s(L, b->d, b->nb);
}

int
la_matrix_in(Lower *L, int i, const char *kw, const char *op, LaBatch *b,
    int64_t *rows, int64_t *cols, ValId *a)
{
	*a = 0;
	if (la_matrix_arg(L, i, kw, op, b, rows, cols) < 0)
		return -1;
	*a = lw_in(L, i, kw);
	return lw_failed(L) ? -1 : 0;
}

int
la_square_arg(Lower *L, int i, const char *kw, const char *op, LaBatch *b,
    int64_t *n)
{
	int64_t r = 0, c = 0;
	if (la_matrix_arg(L, i, kw, op, b, &r, &c) < 0)
		return -1;
	if (r != c)
		return lw_fail(L, "%s: '%s' must be a batch of square matrices, "
		    "not %lldx%lld", op, kw, (long long)r, (long long)c);
	*n = r;
	return 0;
}

int
la_square_in(Lower *L, int i, const char *kw, const char *op, LaBatch *b,
    int64_t *n, ValId *a)
{
	*a = 0;
	if (la_square_arg(L, i, kw, op, b, n) < 0)
		return -1;
	*a = lw_in(L, i, kw);
	return lw_failed(L) ? -1 : 0;
}

/* batch b as [nb] at run time, led by 1s to rank nb */
static ValId
batch_padded(Lower *L, const LaBatch *b, int nb)
{
	ValId s = la_batch_shape(L, b);
	if (b->nb == nb)
		return s;
	int64_t ones[LW_MAXRANK];
	for (int k = 0; k < nb - b->nb; k++)
		ones[k] = 1;
	ValId parts[2] = {lw_const_i64s(L, ones, nb - b->nb), s};
	return lw_concat(L, parts, 2, 0, DT_I64);
}

int
la_broadcast(Lower *L, const LaBatch *a, const LaBatch *b, LaBatch *out)
{
	int nb = a->nb > b->nb ? a->nb : b->nb;
	out->nb = nb;
	out->shape = 0;
	for (int k = 0; k < nb; k++) {
		int ia = k - (nb - a->nb), ib = k - (nb - b->nb);
		int64_t x = ia >= 0 ? a->d[ia] : 1, y = ib >= 0 ? b->d[ib] : 1;
		if (x >= 0 && y >= 0 && x != y && x != 1 && y != 1)
			return lw_fail(L, "batch dims %lld and %lld do not "
			    "broadcast", (long long)x, (long long)y);
		out->d[k] = x < 0 || y < 0 ? -1 : x == 1 ? y : x;
	}
	if (a->shape || b->shape) {
		/* torch's rule at run time: a 1 takes the other's size */
		ValId sa = batch_padded(L, a, nb), sb = batch_padded(L, b, nb);
		out->shape = la_where(L, lw_op2t(L, "Equal", sa, lw_scalar_i64(L,
		    1), DT_BOOL), sb, sa);
	}
	return 0;
}

ValId
la_expand(Lower *L, ValId x, const LaBatch *b, int64_t r, int64_t c)
{
	if (c < 0)
		c = 1;  /* symbolic columns: x has them, Expand keeps them */
	if (b->shape) {
		ValId parts[2] = {b->shape, lw_const_i64s(L, (int64_t[]){r,
		    c}, 2)};
		return lw_op2(L, "Expand", x, lw_concat(L, parts, 2, 0,
		    DT_I64));
	}
	int64_t s[LW_MAXRANK + 2];
	memcpy(s, b->d, sizeof(int64_t) * (size_t)b->nb);
	s[b->nb] = r;
	s[b->nb + 1] = c;
	return lw_op2(L, "Expand", x, lw_const_i64s(L, s, b->nb + 2));
}

ValId
la_take(Lower *L, ValId x, int64_t axis, int64_t k)
{
	ValId in[2] = {x, lw_i64v(L, k)};
	NodeId n = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, n, "axis", axis);
	return lw_typed(L, n, lw_dtype(L, x));
}

ValId
la_mT(Lower *L, ValId x, int nb)
{
	int64_t p[LW_MAXRANK + 2];
	for (int k = 0; k < nb; k++)
		p[k] = k;
	p[nb] = nb + 1;
	p[nb + 1] = nb;
	return lw_transpose(L, x, p, nb + 2);
}

ValId
la_where(Lower *L, ValId c, ValId x, ValId y)
{
	ValId in[3] = {c, x, y};
	return lw_typed(L, lw_emit(L, "Where", 3, in, 1), lw_dtype(L, x));
}

ValId
la_mask(Lower *L, int64_t r, int64_t c, int64_t k,
    bool (*pred)(int64_t i, int64_t j, int64_t k))
{
	int64_t cells = r * c;
	uint8_t *m = lw_scratch(L, (size_t)(cells > 0 ? cells : 1), 1);
	for (int64_t i = 0; i < r; i++)
		for (int64_t j = 0; j < c; j++)
			m[i * c + j] = pred(i, j, k);
	int64_t dims[2] = {r, c};
	return lw_const(L, DT_BOOL, 2, dims, m);
}

static bool
p_eye(int64_t i, int64_t j, int64_t k) { (void)k; return i == j; }
static bool
p_row_eq(int64_t i, int64_t j, int64_t k) { (void)j; return i == k; }
static bool
p_row_gt(int64_t i, int64_t j, int64_t k) { (void)j; return i > k; }
static bool
p_row_lt(int64_t i, int64_t j, int64_t k) { (void)j; return i < k; }
static bool
p_row_ge(int64_t i, int64_t j, int64_t k) { (void)j; return i >= k; }
static bool
p_col_gt(int64_t i, int64_t j, int64_t k) { (void)i; return j > k; }
static bool
p_below(int64_t i, int64_t j, int64_t k) { return i > k && j == k; }

ValId
la_eye(Lower *L, const LaBatch *b, int64_t n, DType dt)
{
	ValId m = la_mask(L, n, n, 0, p_eye);
	return la_expand(L, lw_cast(L, m, dt), b, n, n);
}

static ValId
argmax_last(Lower *L, ValId x)
{
	NodeId n = lw_emit(L, "ArgMax", 1, &x, 1);
	lw_attr_int(L, n, "axis", -1);
	lw_attr_int(L, n, "keepdims", 1);
	return lw_typed(L, n, DT_I64);
}

ValId
la_gather_rows(Lower *L, ValId x, ValId rows)
{
	/* x[.., rows[i], :] for rows [.., m] */
	int64_t one = -1;
	ValId idx = lw_axes_op(L, "Unsqueeze", rows, &one, 1);
	ValId shp = lw_op1(L, "Shape", x);
	lw_settype(L, shp, DT_I64);
	idx = lw_op2(L, "Expand", idx, shp);
	ValId in[2] = {x, idx};
	NodeId n = lw_emit(L, "GatherElements", 2, in, 1);
	lw_attr_int(L, n, "axis", -2);
	return lw_typed(L, n, lw_dtype(L, x));
}

/* the row order [.., m] that swaps rows k and p ([.., 1]) of range r */
static ValId
swap_index(Lower *L, ValId r, int64_t m, int64_t k, ValId p)
{
	int64_t ax = -1;
	ValId eqk = lw_axes_op(L, "Squeeze", la_mask(L, m, 1, k, p_row_eq),
	    &ax, 1);
	ValId eqp = lw_op2t(L, "Equal", r, p, DT_BOOL);
	return la_where(L, eqk, p, la_where(L, eqp, lw_scalar_i64(L, k), r));
}

/* pm[sw]: the row order after applying swap sw to order pm (0: none yet) */
static ValId
compose(Lower *L, ValId pm, ValId sw)
{
	if (!pm)
		return sw;
	ValId in[2] = {pm, sw};
	NodeId g = lw_emit(L, "GatherElements", 2, in, 1);
	lw_attr_int(L, g, "axis", -1);
	return lw_typed(L, g, DT_I64);
}

static ValId
range_i64(Lower *L, int64_t m)
{
	int64_t *rv = lw_scratch(L, (size_t)(m ? m : 1), sizeof(int64_t));
	for (int64_t i = 0; i < m; i++)
		rv[i] = i;
	return lw_const_i64s(L, rv, (int)m);
}

ValId
la_pivots_perm(Lower *L, ValId piv, int64_t m, int64_t k)
{
	ValId r = range_i64(L, m), pm = 0;
	ValId p0 = lw_op2(L, "Sub", lw_cast(L, piv, DT_I64), lw_scalar_i64(L, 1));
	for (int64_t i = 0; i < k; i++)
		pm = compose(L, pm, swap_index(L, r, m, i, la_take(L, p0, -1, i)));
	return pm ? pm : r;
}

ValId
la_unpermute(Lower *L, ValId w, ValId perm)
{
	/* x[perm[i]] = w[i]: a scatter of every row, exact */
	int64_t one = -1;
	ValId idx = lw_axes_op(L, "Unsqueeze", perm, &one, 1);
	ValId shp = lw_op1(L, "Shape", w);
	lw_settype(L, shp, DT_I64);
	idx = lw_op2(L, "Expand", idx, shp);
	ValId in[3] = {w, idx, w};
	NodeId n = lw_emit(L, "ScatterElements", 3, in, 1);
	lw_attr_int(L, n, "axis", -2);
	return lw_typed(L, n, lw_dtype(L, w));
}

void
la_lu(Lower *L, ValId a, int nb, int64_t m, int64_t n, ValId *lu,
    ValId *perm, ValId *piv)
{
	DType dt = lw_dtype(L, a);
	int64_t kmax = m < n ? m : n;
	ValId r = range_i64(L, m);
	ValId pm = 0, *pivs = lw_scratch(L, (size_t)(kmax ? kmax : 1),
	    sizeof(ValId));
	ValId zero = lw_scalar(L, 0, dt), neg = lw_scalar(L, -1, dt);
	int64_t ax = -1;
	for (int64_t k = 0; k < kmax; k++) {
		ValId col = lw_axes_op(L, "Squeeze", la_take(L, a, -1, k), &ax, 1);
		ValId ge = lw_axes_op(L, "Squeeze", la_mask(L, m, 1, k, p_row_ge),
		    &ax, 1);
		ValId p = argmax_last(L, la_where(L, ge,
		    lw_op1(L, "Abs", col), neg));
		pivs[k] = p;
		ValId sw = swap_index(L, r, m, k, p);
		pm = compose(L, pm, sw);
		a = la_gather_rows(L, a, sw);
		ValId rowk = la_take(L, a, -2, k);
		ValId pv = la_take(L, rowk, -1, k);
		ValId colk = la_take(L, a, -1, k);
		/* getrf scales by the pivot's reciprocal, and leaves a zero
		 * pivot's column unscaled (it is all zero) */
		ValId l = la_where(L, lw_op2t(L, "Equal", pv, zero, DT_BOOL),
		    colk, lw_op2(L, "Mul", colk, lw_op1(L, "Reciprocal", pv)));
		ValId lm = la_where(L, la_mask(L, m, 1, k, p_row_gt), l, zero);
		ValId rm = la_where(L, la_mask(L, 1, n, k, p_col_gt), rowk, zero);
		a = lw_op2(L, "Sub", a, lw_op2(L, "Mul", lm, rm));
		a = la_where(L, la_mask(L, m, n, k, p_below), l, a);
	}
	(void)nb;
	*lu = a;
	*perm = pm ? pm : r;
	if (kmax) {
		ValId c = lw_concat(L, pivs, (int)kmax, -1, DT_I64);
		*piv = lw_op2(L, "Add", c, lw_scalar_i64(L, 1));
	} else {
		*piv = 0;
	}
}

ValId
la_diag(Lower *L, ValId x, int nb, int64_t m, int64_t n)
{
	int64_t k = m < n ? m : n;
	if (m != k)
		x = lw_slice_const(L, x, nb, 0, k, 1);
	if (n != k)
		x = lw_slice_const(L, x, nb + 1, 0, k, 1);
	ValId z = la_where(L, la_mask(L, k, k, 0, p_eye), x,
	    lw_scalar(L, 0, lw_dtype(L, x)));
	int64_t ax = -2;
	return lwn_reduce(L, "ReduceSum", z, &ax, 1, false);
}

ValId
la_info(Lower *L, ValId bad)
{
	ValId b = lw_cast(L, bad, DT_I32);
	ValId first = lw_op2(L, "Add", argmax_last(L, b), lw_scalar_i64(L, 1));
	int64_t ax = -1;
	first = lw_axes_op(L, "Squeeze", lw_cast(L, first, DT_I32), &ax, 1);
	return lw_op2(L, "Mul", first, lwn_reduce(L, "ReduceMax", b, &ax, 1,
	    false));
}

ValId
la_trsolve(Lower *L, ValId t, ValId b, int64_t n, bool upper, bool unit)
{
	for (int64_t s = 0; s < n; s++) {
		int64_t j = upper ? n - 1 - s : s;
		ValId bj = la_take(L, b, -2, j);
		ValId tc = la_take(L, t, -1, j);
		if (!unit)
			bj = lw_op2(L, "Div", bj, la_take(L, tc, -2, j));
		ValId rest = la_mask(L, n, 1, j, upper ? p_row_lt : p_row_gt);
		b = la_where(L, rest, lw_op2(L, "Sub", b, lw_op2(L, "Mul", tc, bj)),
		    b);
		b = la_where(L, la_mask(L, n, 1, j, p_row_eq), bj, b);
	}
	return b;
}

ValId
la_lu_solve(Lower *L, ValId lu, ValId perm, ValId b, int64_t n)
{
	ValId pb = la_gather_rows(L, b, perm);
	ValId y = la_trsolve(L, lu, pb, n, false, true);
	return la_trsolve(L, lu, y, n, true, false);
}

ValId
la_cholesky(Lower *L, ValId a, int nb, int64_t n, ValId *bad)
{
	DType dt = lw_dtype(L, a);
	ValId *cols = lw_scratch(L, (size_t)n, sizeof(ValId));
	ValId *bads = lw_scratch(L, (size_t)n, sizeof(ValId));
	ValId zero = lw_scalar(L, 0, dt);
	for (int64_t j = 0; j < n; j++) {
		ValId c = la_take(L, a, -1, j);
		ValId dd = la_take(L, c, -2, j);
		/* potrf stops at a pivot that is not positive (or NaN) */
		bads[j] = lw_op1(L, "Not",
		    lw_op2t(L, "Greater", dd, zero, DT_BOOL));
		ValId l = la_where(L, la_mask(L, n, 1, j, p_row_ge),
		    lw_op2(L, "Div", c, lw_op1(L, "Sqrt", dd)), zero);
		cols[j] = l;
		if (j + 1 < n)
			a = lw_op2(L, "Sub", a, lw_op2(L, "Mul", l, la_mT(L, l, nb)));
	}
	ValId bb = lw_concat(L, bads, (int)n, -1, DT_BOOL);
	int64_t ax = -2;
	*bad = lw_axes_op(L, "Squeeze", bb, &ax, 1);
	return lw_concat(L, cols, (int)n, -1, dt);
}

ValId
la_perm_matrix(Lower *L, ValId perm, int64_t m, DType dt)
{
	/* P[perm[i], i] = 1: compare perm [.., 1, m] with rows [m, 1] */
	int64_t *rv = lw_scratch(L, (size_t)(m ? m : 1), sizeof(int64_t));
	for (int64_t i = 0; i < m; i++)
		rv[i] = i;
	int64_t dims[2] = {m, 1}, ax = -2;
	ValId r = lw_const(L, DT_I64, 2, dims, rv);
	ValId p = lw_axes_op(L, "Unsqueeze", perm, &ax, 1);
	return lw_cast(L, lw_op2t(L, "Equal", p, r, DT_BOOL), dt);
}

static bool m_strict_lower(int64_t i, int64_t j) { return i > j; }
static bool m_upper(int64_t i, int64_t j) { return i <= j; }
static bool m_eye(int64_t i, int64_t j) { return i == j; }

/* [r, c] BOOL constant of pred(i, j) */
static ValId
tri_mask(Lower *L, int64_t r, int64_t c, bool (*pred)(int64_t, int64_t))
{
	int64_t cells = r * c;
	uint8_t *m = lw_scratch(L, (size_t)(cells > 0 ? cells : 1), 1);
	for (int64_t i = 0; i < r; i++)
		for (int64_t j = 0; j < c; j++)
			m[i * c + j] = pred(i, j);
	int64_t dims[2] = {r, c};
	return lw_const(L, DT_BOOL, 2, dims, m);
}

/* the unit lower L [.., m, k] and upper U [.., k, n] packed in lu */
void
la_lu_split(Lower *L, ValId lu, int nb, int64_t m, int64_t n, ValId *lo,
    ValId *up)
{
	int64_t k = m < n ? m : n;
	DType dt = lw_dtype(L, lu);
	ValId lk = k < n ? lw_slice_const(L, lu, nb + 1, 0, k, 1) : lu;
	ValId uk = k < m ? lw_slice_const(L, lu, nb, 0, k, 1) : lu;
	ValId eye = lw_cast(L, tri_mask(L, m, k, m_eye), dt);
	*lo = la_where(L, tri_mask(L, m, k, m_strict_lower), lk, eye);
	*up = la_where(L, tri_mask(L, k, n, m_upper), uk, lw_scalar(L, 0, dt));
}


ValId
la_matrix_exp(Lower *L, ValId a, const LaBatch *b, int64_t n)
{
	/* the degree-18 Taylor polynomial after scaling the 1-norm below
	 * theta (PyTorch's bound of it for the dtype), then squaring back:
	 * per matrix, s = max(0, ceil(log2(norm / theta))) */
	enum { SMAX = 64 };
	DType dt = lw_dtype(L, a);
	double theta = dt == DT_F64 ? 1.090863719290036 : 3.010066362817634;
	int64_t ax2 = -2, ax1 = -1;
	ValId cs = lwn_reduce(L, "ReduceSum", lw_op1(L, "Abs", a), &ax2, 1, true);
	ValId norm = lwn_reduce(L, "ReduceMax", cs, &ax1, 1, true);
	ValId s = lw_op1(L, "Ceil", lw_op2(L, "Div", lw_op1(L, "Log",
	    lw_op2(L, "Div", norm, lw_scalar(L, theta, dt))),
	    lw_scalar(L, M_LN2, dt)));
	s = lw_op2(L, "Max", s, lw_scalar(L, 0, dt));
	ValId x = lw_op2(L, "Mul", a, lw_op2(L, "Pow", lw_scalar(L, 2, dt),
	    lw_op1(L, "Neg", s)));
	/* the degree-18 polynomial as PyTorch evaluates it (Bader, Blanes,
	 * Casas 2019: 5 products), so the rounding that the squarings
	 * amplify is the same */
	static const double c[5][5] = {
		{0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
		    -8.92138498045729985177e-04, 0.},
		{0., 3.97849749499645077844e-01, 1.36783778460411720168e+00,
		    4.98289622525382669416e-01, -6.37898194594723280150e-04},
		{-1.09676396052962061844e+01, 1.68015813878906206114e+00,
		    5.71779846478865511061e-02, -6.98210122488052056106e-03,
		    3.34975017086070470649e-05},
		{-9.04316832390810593223e-02, -6.76404519071381882256e-02,
		    6.75961301770459654925e-02, 2.95552570429315521194e-02,
		    -1.39180257516060693404e-05},
		{0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
		    -1.40086798182036094347e-05}};
	ValId p[5], bs[5];
	p[0] = la_eye(L, b, n, dt);
	p[1] = x;
	p[2] = lw_op2(L, "MatMul", x, x);
	p[3] = lw_op2(L, "MatMul", p[2], x);
	p[4] = lw_op2(L, "MatMul", p[3], p[3]);
	for (int i = 0; i < 5; i++) {
		bs[i] = 0;
		for (int j = 0; j < 5; j++) {
			ValId t = lw_op2(L, "Mul", p[j], lw_scalar(L, c[i][j], dt));
			bs[i] = bs[i] ? lw_op2(L, "Add", bs[i], t) : t;
		}
	}
	ValId a9 = lw_op2(L, "Add", lw_op2(L, "MatMul", bs[0], bs[4]), bs[3]);
	ValId e = lw_op2(L, "Add", bs[1], lw_op2(L, "MatMul",
	    lw_op2(L, "Add", bs[2], a9), a9));
	for (int i = 0; i < SMAX; i++) {
		ValId more = lw_op2t(L, "Less", lw_scalar(L, i, dt), s, DT_BOOL);
		e = la_where(L, more, lw_op2(L, "MatMul", e, e), e);
	}
	return e;
}

/* linalg_tensorinv(self, ind=2): the inverse of self as a matrix of
 * prod(shape[:ind]) rows, shaped shape[ind:] + shape[:ind] */
int
la_tensorinv(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	const Value *so = lw_outval(L, 0);
	int64_t ind = lw_int(L, 1, "ind", 2), rows = 1, all = 1;
	if (!sv || lw_failed(L))
		return lw_fail(L, "linalg_tensorinv: 'self' must be a tensor");
	if (ind <= 0 || ind > sv->rank)
		return lw_fail(L, "linalg_tensorinv: ind must be in [1, %d]",
		    sv->rank);
	if (sv->dtype != DT_F32 && sv->dtype != DT_F64)
		return lw_fail(L, "linalg_tensorinv: only float32 and float64 "
		    "are supported");
	for (int d = 0; d < sv->rank; d++) {
		int64_t v;
		if (!lw_sdim(L, sv, d, &v))
			return lw_fail(L, "linalg_tensorinv is unrolled over "
			    "static sizes: dim %d is symbolic", d);
		all *= v;
		if (d < ind)
			rows *= v;
	}
	if (rows * rows != all)
		return lw_fail(L, "linalg_tensorinv: the first %lld dims (%lld "
		    "elements) and the rest (%lld) do not make a square matrix",
		    (long long)ind, (long long)rows, (long long)(all / rows));
	if (rows > LA_MAXN)
		return lw_fail(L, "linalg_tensorinv is unrolled over static "
		    "sizes: a %lldx%lld matrix is larger than %d",
		    (long long)rows, (long long)rows, LA_MAXN);
	ValId a = lw_in(L, 0, "self");
	int64_t sq[2] = {rows, rows}, od[LW_MAXRANK];
	for (int d = 0; d < so->rank; d++)
		if (!lw_sdim(L, so, d, &od[d]))
			return lw_fail(L, "linalg_tensorinv: symbolic result");
	if (lw_failed(L))
		return -1;
	ValId m = lw_op2(L, "Reshape", a, lw_const_i64s(L, sq, 2));
	LaBatch b = {0};
	ValId x = m;
	if (rows > 0) {
		ValId lu, perm, piv;
		la_lu(L, m, 0, rows, rows, &lu, &perm, &piv);
		x = la_lu_solve(L, lu, perm, la_eye(L, &b, rows,
		    lw_dtype(L, a)), rows);
	}
	la_bind_out(L, 0, lw_op2(L, "Reshape", x, lw_const_i64s(L, od, so->rank)));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_tensorsolve(self, other, dims=None): self with dims moved last,
 * as a matrix of numel(other) rows, solved for other */
int
la_tensorsolve(Lower *L)
{
	const Value *sa = lw_srcval(L, 0, "self"), *sb = lw_srcval(L, 1, "other");
	const Value *so = lw_outval(L, 0);
	if (!sa || !sb)
		return lw_fail(L, "linalg_tensorsolve: tensors expected");
	if (sa->dtype != DT_F32 && sa->dtype != DT_F64)
		return lw_fail(L, "linalg_tensorsolve: only float32 and float64 "
		    "are supported");
	int64_t dims[LW_MAXRANK], perm[LW_MAXRANK], od[LW_MAXRANK];
	int nd = lw_ints(L, 2, "dims", dims, LW_MAXRANK);
	bool moved[LW_MAXRANK] = {false};
	int np = 0;
	for (int i = 0; i < nd; i++) {
		if (lw_normdim(L, &dims[i], sa->rank) < 0)
			return -1;
		moved[dims[i]] = true;
	}
	for (int d = 0; d < sa->rank; d++)
		if (!moved[d])
			perm[np++] = d;
	for (int i = 0; i < nd; i++)
		perm[np++] = dims[i];
	int64_t rows = 1, all = 1;
	for (int d = 0; d < sa->rank; d++) {
		int64_t v;
		if (!lw_sdim(L, sa, d, &v))
			return lw_fail(L, "linalg_tensorsolve is unrolled over "
			    "static sizes: dim %d of 'self' is symbolic", d);
		all *= v;
	}
	for (int d = 0; d < sb->rank; d++) {
		int64_t v;
		if (!lw_sdim(L, sb, d, &v))
			return lw_fail(L, "linalg_tensorsolve: dim %d of 'other' "
			    "is symbolic", d);
		rows *= v;
	}
	for (int d = 0; d < so->rank; d++)
		if (!lw_sdim(L, so, d, &od[d]))
			return lw_fail(L, "linalg_tensorsolve: symbolic result");
	if (rows * rows != all)
		return lw_fail(L, "linalg_tensorsolve: 'self' does not make a "
		    "square matrix of %lld rows", (long long)rows);
	if (rows > LA_MAXN)
		return lw_fail(L, "linalg_tensorsolve is unrolled over static "
		    "sizes: a %lldx%lld matrix is larger than %d",
		    (long long)rows, (long long)rows, LA_MAXN);
	ValId a = lw_in(L, 0, "self"), bv = lw_in(L, 1, "other");
	if (lw_failed(L))
		return -1;
	if (!lw_is_identity_perm(perm, sa->rank))
		a = lw_transpose(L, a, perm, sa->rank);
	int64_t sq[2] = {rows, rows}, col[2] = {rows, 1};
	a = lw_op2(L, "Reshape", a, lw_const_i64s(L, sq, 2));
	bv = lw_op2(L, "Reshape", lw_cast(L, bv, lw_dtype(L, a)),
	    lw_const_i64s(L, col, 2));
	ValId x = bv;
	if (rows > 0) {
		ValId lu, pm, piv;
		la_lu(L, a, 0, rows, rows, &lu, &pm, &piv);
		x = la_lu_solve(L, lu, pm, bv, rows);
	}
	la_bind_out(L, 0, lw_op2(L, "Reshape", x, lw_const_i64s(L, od, so->rank)));
	return lw_failed(L) ? -1 : 0;
}

