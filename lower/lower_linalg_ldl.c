/* lower_linalg_ldl.c - LDL^T with Bunch-Kaufman pivoting as LAPACK's
 * ?sytrf computes it for PyTorch (uplo 'L'; for n <= 64, ilaenv's block
 * size, sytrf runs the unblocked ?sytf2 on the whole matrix), and the
 * solve ?sytrs does with its factors, unrolled over static sizes.
 *
 * The pivot choices are data: each matrix of a batch takes 1x1 or 2x2
 * steps of its own.  The factorization runs one step per column k; a
 * matrix whose previous step was a 2x2 block skips column k, so the
 * column a step starts at stays static and every mask stays a constant.
 * Per matrix flags and scalars are [.., 1, 1] tensors, chosen between
 * with Where.  The trailing matrix is kept symmetric in full (its lower
 * triangle computed as sytf2 does, mirrored), so a symmetric interchange
 * is a gather of rows and columns. */
#include "lower_linalg.h"
#include "lower_nn.h"

#include <math.h>
#include <string.h>

static bool
p_row_gt(int64_t i, int64_t j, int64_t k) { (void)j; return i > k; }
static bool
p_row_eq(int64_t i, int64_t j, int64_t k) { (void)j; return i == k; }
static bool
p_col_ge(int64_t i, int64_t j, int64_t k) { (void)i; return j >= k; }
static bool
p_below(int64_t i, int64_t j, int64_t k) { return i > k && j == k; }
static bool
p_low_from(int64_t i, int64_t j, int64_t k) { return i >= j && j >= k; }
static bool
p_up_from(int64_t i, int64_t j, int64_t k) { return i < j && i >= k; }
static bool
p_strict_up(int64_t i, int64_t j, int64_t k) { (void)k; return i < j; }
static bool
p_low(int64_t i, int64_t j, int64_t k) { (void)k; return i >= j; }

/* the INT64 constant 0..n-1 shaped [n, 1] (column) or [1, n] (row) */
static ValId
index_range(Lower *L, int64_t n, bool column)
{
	int64_t *rv = lw_scratch(L, (size_t)(n ? n : 1), sizeof(int64_t));
	for (int64_t i = 0; i < n; i++)
		rv[i] = i;
	int64_t dims[2] = {column ? n : 1, column ? 1 : n};
	return lw_const(L, DT_I64, 2, dims, rv);
}

static ValId
gather_elems(Lower *L, ValId x, ValId idx, int64_t axis)
{
	ValId in[2] = {x, idx};
	NodeId g = lw_emit(L, "GatherElements", 2, in, 1);
	lw_attr_int(L, g, "axis", axis);
	return lw_typed(L, g, lw_dtype(L, x));
}

/* idx expanded to [r, c] (with its own batch dims in front) */
static ValId
expand_to(Lower *L, ValId idx, int64_t r, int64_t c)
{
	int64_t s[2] = {r, c};
	return lw_op2(L, "Expand", idx, lw_const_i64s(L, s, 2));
}

/* r (a range) with the entries a and b ([.., 1, 1]) interchanged */
static ValId
swap_perm(Lower *L, ValId r, ValId a, ValId b)
{
	ValId isa = lw_op2t(L, "Equal", r, a, DT_BOOL);
	ValId isb = lw_op2t(L, "Equal", r, b, DT_BOOL);
	return la_where(L, isa, b, la_where(L, isb, a, r));
}

static ValId
and_not(Lower *L, ValId a, ValId b)
{
	ValId nb = lw_op1(L, "Not", b);
	return a ? lw_op2(L, "And", a, nb) : nb;
}

static ValId
ge(Lower *L, ValId a, ValId b)
{
	return lw_op2t(L, "GreaterOrEqual", a, b, DT_BOOL);
}

/* x[.., k:k+1, :] (axis -2) or x[.., :, k:k+1] (axis -1): la_take, by a
 * name short enough for the formulas below */
static ValId
at(Lower *L, ValId x, int64_t axis, int64_t k)
{
	return la_take(L, x, axis, k);
}

/* s with its lower triangle from column `from` on taken from u, and the
 * upper triangle there mirrored from it (what sytf2 writes is the lower
 * triangle; the mirror keeps the trailing matrix symmetric) */
static ValId
sym_from(Lower *L, ValId s, ValId u, int nb, int64_t n, int64_t from)
{
	ValId v = la_where(L, la_mask(L, n, n, from, p_low_from), u, s);
	return la_where(L, la_mask(L, n, n, from, p_up_from), la_mT(L, v, nb),
	    v);
}

/* sytf2's rank-1 update after a 1x1 pivot at k of s (interchanged):
 * A := A - x (1/d) x^T below and right of k, then column k scaled */
static ValId
ldl_step1(Lower *L, ValId s, int nb, int64_t n, int64_t k)
{
	DType dt = lw_dtype(L, s);
	ValId zero = lw_scalar(L, 0, dt);
	ValId col = at(L, s, -1, k);
	ValId x = la_where(L, la_mask(L, n, 1, k, p_row_gt), col, zero);
	ValId d11 = lw_op2(L, "Div", lw_scalar(L, 1, dt), at(L, col, -2, k));
	/* dsyr: a(i,j) + x(i) * (alpha x(j)), alpha = -d11 */
	ValId t = lw_op2(L, "Mul", lw_op1(L, "Neg", d11), x);
	ValId u = lw_op2(L, "Add", s, lw_op2(L, "Mul", x, la_mT(L, t, nb)));
	ValId w = sym_from(L, s, u, nb, n, k + 1);
	return la_where(L, la_mask(L, n, n, k, p_below),
	    lw_op2(L, "Mul", d11, x), w);
}

/* sytf2's rank-2 update after a 2x2 pivot at k, k+1 (k < n-2) */
static ValId
ldl_step2(Lower *L, ValId s, int nb, int64_t n, int64_t k)
{
	DType dt = lw_dtype(L, s);
	ValId zero = lw_scalar(L, 0, dt), one = lw_scalar(L, 1, dt);
	ValId c0 = at(L, s, -1, k), c1 = at(L, s, -1, k + 1);
	ValId d21 = at(L, c0, -2, k + 1);
	ValId d11 = lw_op2(L, "Div", at(L, c1, -2, k + 1), d21);
	ValId d22 = lw_op2(L, "Div", at(L, c0, -2, k), d21);
	ValId t = lw_op2(L, "Div", one,
	    lw_op2(L, "Sub", lw_op2(L, "Mul", d11, d22), one));
	ValId e = lw_op2(L, "Div", t, d21);
	ValId rest = la_mask(L, n, 1, k + 1, p_row_gt);
	ValId x0 = la_where(L, rest, c0, zero);
	ValId x1 = la_where(L, rest, c1, zero);
	ValId wk = lw_op2(L, "Mul", e, lw_op2(L, "Sub",
	    lw_op2(L, "Mul", d11, x0), x1));
	ValId wk1 = lw_op2(L, "Mul", e, lw_op2(L, "Sub",
	    lw_op2(L, "Mul", d22, x1), x0));
	/* a(i,j) - a(i,k) wk(j) - a(i,k+1) wk1(j), in that order */
	ValId u = lw_op2(L, "Sub", lw_op2(L, "Sub", s,
	    lw_op2(L, "Mul", x0, la_mT(L, wk, nb))),
	    lw_op2(L, "Mul", x1, la_mT(L, wk1, nb)));
	ValId w = sym_from(L, s, u, nb, n, k + 2);
	w = la_where(L, la_mask(L, n, n, k + 1, p_below), wk1, w);
	ValId below0 = lw_op2(L, "And", la_mask(L, n, n, k, p_below),
	    la_mask(L, n, 1, k + 1, p_row_gt));
	return la_where(L, below0, wk, w);
}

/* Factor a [.., n, n] (its lower triangle), 0 < n <= LA_MAXN (64, the
 * block size of sytrf: larger matrices would go through the blocked
 * lasyf, whose rounding differs): *ld the packed
 * factor as sytrf leaves it (the upper triangle zero, as PyTorch's
 * tril copy leaves it), *piv [.., n] INT64 (1-based, negative for the
 * two columns of a 2x2 block), *bad [.., n] BOOL: column k was zero (or
 * its diagonal NaN), sytf2's info */
static void
ldl_factor(Lower *L, ValId a, int nb, int64_t n, ValId *ld, ValId *piv,
    ValId *bad)
{
	DType dt = lw_dtype(L, a);
	/* alpha = (1 + sqrt(17)) / 8 in the working precision */
	double alpha = dt == DT_F32 ? (double)((1.0f + sqrtf(17.0f)) / 8.0f) :
	    (1.0 + sqrt(17.0)) / 8.0;
	ValId al = lw_scalar(L, alpha, dt), zero = lw_scalar(L, 0, dt);
	ValId rc = index_range(L, n, true), rr = index_range(L, n, false);
	ValId *pv = lw_scratch(L, (size_t)n, sizeof(ValId));
	ValId *bd = lw_scratch(L, (size_t)n, sizeof(ValId));
	ValId w = la_where(L, la_mask(L, n, n, 0, p_strict_up), la_mT(L, a, nb),
	    a);
	ValId skip = 0, prevneg = 0;
	for (int64_t k = 0; k < n; k++) {
		ValId kv = lw_scalar_i64(L, k);
		ValId col = at(L, w, -1, k);
		ValId absakk = lw_op1(L, "Abs", at(L, col, -2, k));
		ValId zcol = lw_op1(L, "IsNaN", absakk), keep = 0, two = 0;
		lw_settype(L, zcol, DT_BOOL);
		ValId imax = 0;
		if (k + 1 < n) {
			/* imax: the first row below k of largest magnitude */
			ValId acol = la_where(L, la_mask(L, n, 1, k, p_row_gt),
			    lw_op1(L, "Abs", col), lw_scalar(L, -1, dt));
			NodeId am = lw_emit(L, "ArgMax", 1, &acol, 1);
			lw_attr_int(L, am, "axis", -2);
			lw_attr_int(L, am, "keepdims", 1);
			imax = lw_typed(L, am, DT_I64);
			ValId colmax = gather_elems(L, acol, imax, -2);
			zcol = lw_op2(L, "Or", zcol, lw_op2t(L, "Equal",
			    lw_op2(L, "Max", absakk, colmax), zero, DT_BOOL));
			ValId ac = lw_op2(L, "Mul", al, colmax);
			/* rowmax: the largest magnitude off the diagonal in
			 * row (and column) imax of the trailing matrix */
			ValId row = gather_elems(L, w, expand_to(L, imax, 1, n),
			    -2);
			ValId rmask = and_not(L, la_mask(L, 1, n, k, p_col_ge),
			    lw_op2t(L, "Equal", rr, imax, DT_BOOL));
			int64_t ax = -1;
			ValId arow = la_where(L, rmask, lw_op1(L, "Abs", row),
			    zero);
			ValId rowmax = lwn_reduce(L, "ReduceMax", arow, &ax, 1,
			    true);
			ValId c1 = ge(L, absakk, ac);
			ValId c2 = ge(L, absakk, lw_op2(L, "Mul", ac,
			    lw_op2(L, "Div", colmax, rowmax)));
			ValId aii = lw_op1(L, "Abs", gather_elems(L, row, imax,
			    -1));
			ValId c3 = ge(L, aii, lw_op2(L, "Mul", al, rowmax));
			keep = lw_op2(L, "Or", c1, c2);
			two = lw_op1(L, "Not", lw_op2(L, "Or", keep, c3));
		} else {
			zcol = lw_op2(L, "Or", zcol, lw_op2t(L, "Equal", absakk,
			    zero, DT_BOOL));
		}
		/* a zero column is info, left as it is with kp = k */
		ValId live = skip ? lw_op1(L, "Not", skip) : 0;
		ValId active = and_not(L, live, zcol);
		bd[k] = skip ? and_not(L, zcol, skip) : zcol;
		ValId kp = kv, two_act = 0;
		ValId s = w, next = w;
		if (imax) {
			kp = la_where(L, and_not(L, active, keep), imax, kv);
			two_act = lw_op2(L, "And", active, two);
			ValId kk = la_where(L, two_act, lw_scalar_i64(L, k + 1),
			    kv);
			ValId pc = swap_perm(L, rc, kk, kp);
			ValId pr = swap_perm(L, rr, kk, kp);
			/* the interchange of sytf2 reaches the trailing
			 * matrix only: finished columns keep their rows */
			s = gather_elems(L, w, expand_to(L, pc, n, n), -2);
			s = gather_elems(L, s, expand_to(L, pr, n, n), -1);
			s = la_where(L, la_mask(L, n, n, k, p_col_ge), s, w);
			ValId one_act = and_not(L, active, two_act);
			next = la_where(L, one_act, ldl_step1(L, s, nb, n, k),
			    s);
			if (k + 2 < n)
				next = la_where(L, two_act,
				    ldl_step2(L, s, nb, n, k), next);
		}
		ValId kp1 = lw_op2(L, "Add", kp, lw_scalar_i64(L, 1));
		if (!imax && !skip) {
			/* a 1x1 matrix: the pivot has the batch's shape */
			ValId shp = lw_op1(L, "Shape", absakk);
			lw_settype(L, shp, DT_I64);
			kp1 = lw_op2(L, "Expand", kp1, shp);
		}
		ValId neg = lw_op1(L, "Neg", kp1);
		pv[k] = two_act ? la_where(L, two_act, neg, kp1) : kp1;
		if (skip)
			pv[k] = la_where(L, skip, prevneg, pv[k]);
		/* a skipped column is inactive: no interchange, no update */
		w = next;
		skip = two_act;
		prevneg = neg;
	}
	int64_t ax = -2;
	ValId p = lw_concat(L, pv, (int)n, -1, DT_I64);
	*piv = lw_axes_op(L, "Squeeze", p, &ax, 1);
	ValId b = lw_concat(L, bd, (int)n, -1, DT_BOOL);
	*bad = lw_axes_op(L, "Squeeze", b, &ax, 1);
	*ld = la_where(L, la_mask(L, n, n, 0, p_low), w, zero);
}

/* sytrs's first half at column k: L D y = P b, one block at a time.
 * p [.., 1, 1] the pivot of column k, *skip: k is the second column of
 * a 2x2 block (0 at k = 0) */
static ValId
solve_down(Lower *L, ValId ld, ValId b, ValId p, int64_t n, int64_t m,
    int64_t k, ValId *skip)
{
	DType dt = lw_dtype(L, b);
	ValId zero = lw_scalar(L, 0, dt), one = lw_scalar(L, 1, dt);
	ValId kv = lw_scalar_i64(L, k), i1 = lw_scalar_i64(L, 1);
	ValId neg = lw_op2t(L, "Less", p, lw_scalar_i64(L, 0), DT_BOOL);
	ValId act1 = and_not(L, *skip ? lw_op1(L, "Not", *skip) : 0, neg);
	/* a 2x2 block cannot start at the last column (valid pivots never
	 * ask for one; sytrs would read past the matrix) */
	ValId act2 = 0;
	if (k + 1 < n)
		act2 = *skip ? and_not(L, neg, *skip) : neg;
	ValId kp = la_where(L, act1, lw_op2(L, "Sub", p, i1), kv);
	ValId kk = kv;
	if (act2) {
		kp = la_where(L, act2,
		    lw_op2(L, "Sub", lw_op1(L, "Neg", p), i1), kp);
		kk = la_where(L, act2, lw_scalar_i64(L, k + 1), kv);
	}
	ValId perm = swap_perm(L, index_range(L, n, true), kk, kp);
	ValId s = gather_elems(L, b, expand_to(L, perm, n, m), -2);
	/* 1x1: dger with alpha = -1, then the row times 1 / d */
	ValId l0 = at(L, ld, -1, k), b0 = at(L, s, -2, k);
	ValId below = la_mask(L, n, 1, k, p_row_gt);
	ValId x = la_where(L, below, l0, zero);
	ValId s1 = la_where(L, below, lw_op2(L, "Add", s, lw_op2(L, "Mul", x,
	    lw_op1(L, "Neg", b0))), s);
	ValId r = lw_op2(L, "Div", one, at(L, l0, -2, k));
	s1 = la_where(L, la_mask(L, n, 1, k, p_row_eq), lw_op2(L, "Mul", r, b0),
	    s1);
	ValId out = la_where(L, act1, s1, s);
	if (act2) {
		ValId l1 = at(L, ld, -1, k + 1), b1 = at(L, s, -2, k + 1);
		ValId s2 = s;
		if (k + 2 < n) {
			ValId rest = la_mask(L, n, 1, k + 1, p_row_gt);
			ValId x0 = la_where(L, rest, l0, zero);
			ValId x1 = la_where(L, rest, l1, zero);
			ValId t = lw_op2(L, "Add", s, lw_op2(L, "Mul", x0,
			    lw_op1(L, "Neg", b0)));
			t = lw_op2(L, "Add", t, lw_op2(L, "Mul", x1,
			    lw_op1(L, "Neg", b1)));
			s2 = la_where(L, rest, t, s);
		}
		/* the inverse of the 2x2 block as sytrs writes it */
		ValId akm1k = at(L, l0, -2, k + 1);
		ValId akm1 = lw_op2(L, "Div", at(L, l0, -2, k), akm1k);
		ValId ak = lw_op2(L, "Div", at(L, l1, -2, k + 1), akm1k);
		ValId den = lw_op2(L, "Sub", lw_op2(L, "Mul", akm1, ak), one);
		ValId bkm1 = lw_op2(L, "Div", b0, akm1k);
		ValId bk = lw_op2(L, "Div", b1, akm1k);
		ValId n0 = lw_op2(L, "Sub", lw_op2(L, "Mul", ak, bkm1), bk);
		ValId n1 = lw_op2(L, "Sub", lw_op2(L, "Mul", akm1, bk), bkm1);
		n0 = lw_op2(L, "Div", n0, den);
		n1 = lw_op2(L, "Div", n1, den);
		s2 = la_where(L, la_mask(L, n, 1, k + 1, p_row_eq), n1, s2);
		s2 = la_where(L, la_mask(L, n, 1, k, p_row_eq), n0, s2);
		out = la_where(L, act2, s2, out);
	}
	*skip = act2;
	return out;
}

/* b[k, :] - sum over rows below k of b[i, :] l[i] (dgemv, transposed,
 * alpha = -1, beta = 1) with l [.., n, 1] column c of ld */
static ValId
gemv_row(Lower *L, ValId ld, ValId b, int nb, int64_t n, int64_t c,
    int64_t k)
{
	ValId x = la_where(L, la_mask(L, n, 1, k, p_row_gt), at(L, ld, -1, c),
	    lw_scalar(L, 0, lw_dtype(L, b)));
	ValId t = lw_op2(L, "MatMul", la_mT(L, x, nb), b);
	return lw_op2(L, "Sub", at(L, b, -2, c), t);
}

/* sytrs's second half at column k, from the last: L^T P^T x = y */
static ValId
solve_up(Lower *L, ValId ld, ValId b, ValId p, int nb, int64_t n, int64_t m,
    int64_t k, ValId *skip)
{
	ValId kv = lw_scalar_i64(L, k), i1 = lw_scalar_i64(L, 1);
	ValId neg = lw_op2t(L, "Less", p, lw_scalar_i64(L, 0), DT_BOOL);
	ValId act1 = and_not(L, *skip ? lw_op1(L, "Not", *skip) : 0, neg);
	ValId act2 = 0;
	if (k > 0)
		act2 = *skip ? and_not(L, neg, *skip) : neg;
	ValId out = b;
	if (k + 1 < n) {
		ValId rk = la_mask(L, n, 1, k, p_row_eq);
		ValId uk = la_where(L, rk, gemv_row(L, ld, b, nb, n, k, k), b);
		out = la_where(L, act1, uk, b);
		if (act2) {
			ValId rk1 = la_mask(L, n, 1, k - 1, p_row_eq);
			ValId u2 = la_where(L, rk1,
			    gemv_row(L, ld, b, nb, n, k - 1, k), uk);
			out = la_where(L, act2, u2, out);
		}
	}
	ValId kp = la_where(L, act1, lw_op2(L, "Sub", p, i1), kv);
	if (act2)
		kp = la_where(L, act2,
		    lw_op2(L, "Sub", lw_op1(L, "Neg", p), i1), kp);
	ValId perm = swap_perm(L, index_range(L, n, true), kv, kp);
	*skip = act2;
	return gather_elems(L, out, expand_to(L, perm, n, m), -2);
}

/* x solving (P L D L^T P^T) x = b from sytrf's ld [.., n, n] and piv
 * [.., n] (any integer type), n > 0, b [.., n, m], m > 0 */
static ValId
ldl_solve(Lower *L, ValId ld, ValId piv, ValId b, int nb, int64_t n,
    int64_t m)
{
	int64_t ax = -2;
	ValId p = lw_axes_op(L, "Unsqueeze", lw_cast(L, piv, DT_I64), &ax, 1);
	ValId skip = 0;
	for (int64_t k = 0; k < n; k++)
		b = solve_down(L, ld, b, at(L, p, -1, k), n, m, k, &skip);
	skip = 0;
	for (int64_t k = n - 1; k >= 0; k--)
		b = solve_up(L, ld, b, at(L, p, -1, k), nb, n, m, k, &skip);
	return b;
}

/* linalg_ldl_factor(self, *, hermitian) -> (LD, pivots);
 * linalg_ldl_factor_ex(self, *, hermitian, check_errors) -> (LD, pivots,
 * info).  On real matrices hermitian changes nothing (PyTorch calls
 * ?sytrf either way). */
int
la_ldl_factor(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId a;
	if (la_square_in(L, 0, "self", "linalg_ldl_factor", &b, &n, &a) < 0 ||
	    la_static(L, &b, "linalg_ldl_factor") < 0)
		return -1;
	if (n == 0) {
		int64_t d[LW_MAXRANK + 1];
		memcpy(d, b.d, sizeof(int64_t) * (size_t)b.nb);
		d[b.nb] = 0;
		la_bind_out(L, 0, a);
		la_bind_out(L, 1, lw_const(L, DT_I32, b.nb + 1, d, NULL));
		ValId z = lw_scalar_int(L, 0, DT_I32);
		la_bind_out(L, 2, lw_op2(L, "Expand", z,
		    lw_const_i64s(L, b.d, b.nb)));
		return lw_failed(L) ? -1 : 0;
	}
	ValId ld, piv, bad;
	ldl_factor(L, a, b.nb, n, &ld, &piv, &bad);
	la_bind_out(L, 0, ld);
	la_bind_out(L, 1, piv);
	if (la_out_used(L, 2))
		la_bind_out(L, 2, la_info(L, bad));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_ldl_solve(LD, pivots, B, *, hermitian) */
int
la_ldl_solve(Lower *L)
{
	LaBatch bl, bb, bo;
	int64_t n, br, m;
	const char *op = "linalg_ldl_solve";
	if (la_square_arg(L, 0, "LD", op, &bl, &n) < 0 ||
	    la_matrix_arg(L, 2, "B", op, &bb, &br, &m) < 0 ||
	    la_static(L, &bl, op) < 0 || la_static(L, &bb, op) < 0)
		return -1;
	if (br != n)
		return lw_fail(L, "%s: B has %lld rows for a %lldx%lld LD", op,
		    (long long)br, (long long)n, (long long)n);
	if (la_broadcast(L, &bl, &bb, &bo) < 0)
		return -1;
	/* PyTorch steps through LD's batch by the result's: a batched LD
	 * must have the result's batch dims (it reads past LD's memory
	 * otherwise); an unbatched LD serves every matrix */
	if (bl.nb > 0 && (bl.nb != bo.nb ||
	    memcmp(bl.d, bo.d, sizeof(int64_t) * (size_t)bo.nb) != 0))
		return lw_fail(L, "%s: a batched LD must have the batch dims "
		    "of the result: PyTorch does not broadcast LD (it reads "
		    "past LD's memory)", op);
	ValId ld = lw_in(L, 0, "LD"), piv = lw_in(L, 1, "pivots");
	ValId b = lw_in(L, 2, "B");
	if (lw_failed(L))
		return -1;
	/* every operand at the result's batch, so that each step's values
	 * have one rank */
	b = la_expand(L, b, &bo, n, m);
	ld = la_expand(L, ld, &bo, n, n);
	int64_t ps[LW_MAXRANK + 1];
	memcpy(ps, bo.d, sizeof(int64_t) * (size_t)bo.nb);
	ps[bo.nb] = n;
	piv = lw_op2(L, "Expand", piv, lw_const_i64s(L, ps, bo.nb + 1));
	/* an empty B is its own solution (ONNX Runtime refuses the gathers
	 * of the interchanges on it) */
	la_bind_out(L, 0, n > 0 && m > 0 ? ldl_solve(L, ld, piv, b, bo.nb, n, m)
	    : b);
	return lw_failed(L) ? -1 : 0;
}
