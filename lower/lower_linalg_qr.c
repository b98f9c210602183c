/* lower_linalg_qr.c - Householder QR as LAPACK's unblocked geqr2 does it
 * (slarfg's reflector: beta = -sign(alpha) |x|, tau = (beta - alpha) /
 * beta, a zero tail leaves H = I), and the product of reflectors (orgqr,
 * householder_product), unrolled over static sizes. */
#include "lower_linalg.h"
#include "lower_nn.h"

#include <string.h>

static bool
q_row_gt(int64_t i, int64_t j, int64_t k) { (void)j; return i > k; }
static bool
q_row_eq(int64_t i, int64_t j, int64_t k) { (void)j; return i == k; }
static bool
q_col_gt(int64_t i, int64_t j, int64_t k) { (void)i; return j > k; }
static bool
q_col_eq(int64_t i, int64_t j, int64_t k) { (void)i; return j == k; }
static bool
q_eye(int64_t i, int64_t j, int64_t k) { (void)k; return i == j; }

/* reflector i's vector [.., m, 1]: 1 at row i, a's column i below */
static ValId
reflector(Lower *L, ValId a, int64_t m, int64_t i)
{
	DType dt = lw_dtype(L, a);
	ValId col = la_take(L, a, -1, i);
	ValId one = la_where(L, la_mask(L, m, 1, i, q_row_eq),
	    lw_scalar(L, 1, dt), lw_scalar(L, 0, dt));
	return la_where(L, la_mask(L, m, 1, i, q_row_gt), col, one);
}

/* H_0 ... H_{k-1} applied to the first qcols columns of I_m; tau
 * [.., k] */
static ValId
householder(Lower *L, ValId a, ValId tau, const LaBatch *b, int64_t m,
    int64_t k, int64_t qcols)
{
	DType dt = lw_dtype(L, a);
	ValId q = la_expand(L, lw_cast(L, la_mask(L, m, qcols, 0, q_eye), dt),
	    b, m, qcols);
	int64_t ax = -1;
	for (int64_t i = k - 1; i >= 0; i--) {
		ValId v = reflector(L, a, m, i);
		ValId t = lw_axes_op(L, "Unsqueeze", la_take(L, tau, -1, i), &ax,
		    1);
		ValId w = lw_op2(L, "MatMul", la_mT(L, v, b->nb), q);
		q = lw_op2(L, "Sub", q, lw_op2(L, "Mul", t,
		    lw_op2(L, "Mul", v, w)));
	}
	return q;
}

int
la_householder_product(Lower *L)
{
	LaBatch b, bt;
	int64_t m, n;
	const char *op = "linalg_householder_product";
	if (la_matrix_arg(L, 0, "input", op, &b, &m, &n) < 0 ||
	    la_static(L, &b, op) < 0)
		return -1;
	const Value *st = lw_srcval(L, 1, "tau");
	int64_t k;
	if (!st || st->rank != b.nb + 1 || !lw_sdim(L, st, -1, &k))
		return lw_fail(L, "%s: 'tau' must have the batch of 'input' and "
		    "one static dim more", op);
	if (n > m || k > n)
		return lw_fail(L, "%s: needs rows >= columns >= len(tau)", op);
	for (int d = 0; d < b.nb; d++)
		if (!lw_sdim(L, st, d, &bt.d[d]) || bt.d[d] != b.d[d])
			return lw_fail(L, "%s: 'tau' and 'input' have different "
			    "batches", op);
	ValId a = lw_in(L, 0, "input"), tau = lw_in(L, 1, "tau");
	if (lw_failed(L))
		return -1;
	la_bind_out(L, 0, householder(L, a, lw_cast(L, tau, lw_dtype(L, a)), &b,
	    m, k, n));
	return lw_failed(L) ? -1 : 0;
}

/* one geqr2 step on column j: the reflector's tau [.., 1, 1]; a gets
 * beta on the diagonal, v below it, H applied to the columns right */
static ValId
qr_step(Lower *L, ValId *pa, int nb, int64_t m, int64_t n, int64_t j)
{
	ValId a = *pa;
	DType dt = lw_dtype(L, a);
	ValId zero = lw_scalar(L, 0, dt), one = lw_scalar(L, 1, dt);
	ValId col = la_take(L, a, -1, j);
	ValId alpha = la_take(L, col, -2, j);
	ValId below = la_mask(L, m, 1, j, q_row_gt);
	ValId x = la_where(L, below, col, zero);
	int64_t ax = -2;
	ValId xn2 = lwn_reduce(L, "ReduceSum", lw_op2(L, "Mul", x, x), &ax, 1,
	    true);
	ValId nz = lw_op2t(L, "Greater", xn2, zero, DT_BOOL);
	ValId sgn = la_where(L, lw_op2t(L, "Less", alpha, zero, DT_BOOL),
	    lw_scalar(L, -1, dt), one);
	ValId beta0 = lw_op1(L, "Neg", lw_op2(L, "Mul", sgn, lw_op1(L, "Sqrt",
	    lw_op2(L, "Add", lw_op2(L, "Mul", alpha, alpha), xn2))));
	ValId safe = la_where(L, nz, beta0, one);
	ValId tau = la_where(L, nz, lw_op2(L, "Div",
	    lw_op2(L, "Sub", beta0, alpha), safe), zero);
	ValId beta = la_where(L, nz, beta0, alpha);
	ValId den = la_where(L, nz, lw_op2(L, "Sub", alpha, beta0), one);
	ValId v = la_where(L, below, lw_op2(L, "Div", col, den),
	    la_where(L, la_mask(L, m, 1, j, q_row_eq), one, zero));
	if (j + 1 < n) {
		ValId w = lw_op2(L, "MatMul", la_mT(L, v, nb), a);
		ValId upd = lw_op2(L, "Sub", a, lw_op2(L, "Mul", tau,
		    lw_op2(L, "Mul", v, w)));
		a = la_where(L, la_mask(L, 1, n, j, q_col_gt), upd, a);
	}
	ValId newcol = la_where(L, below, v, la_where(L,
	    la_mask(L, m, 1, j, q_row_eq), beta, col));
	*pa = la_where(L, la_mask(L, 1, n, j, q_col_eq), newcol, a);
	return tau;
}

static bool
q_upper(int64_t i, int64_t j, int64_t k) { (void)k; return i <= j; }

int
la_qr(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	const char *op = "linalg_qr";
	if (la_matrix_arg(L, 0, "A", op, &b, &m, &n) < 0 ||
	    la_static(L, &b, op) < 0)
		return -1;
	const Arg *ma = lw_arg(L, 1, "mode");
	const char *mode = "reduced";
	if (ma && ma->kind == A_STR)
		mode = ir_str(L->m, ma->u.s);
	bool complete = !strcmp(mode, "complete"), ronly = !strcmp(mode, "r");
	if (!complete && !ronly && strcmp(mode, "reduced"))
		return lw_fail(L, "%s: unknown mode '%s'", op, mode);
	ValId a = lw_in(L, 0, "A");
	if (lw_failed(L))
		return -1;
	int64_t k = m < n ? m : n;
	ValId *taus = lw_scratch(L, (size_t)(k ? k : 1), sizeof(ValId));
	ValId f = a;
	for (int64_t j = 0; j < k; j++)
		taus[j] = qr_step(L, &f, b.nb, m, n, j);
	int64_t rrows = complete ? m : k;
	ValId r = rrows < m ? lw_slice_const(L, f, b.nb, 0, rrows, 1) : f;
	r = la_where(L, la_mask(L, rrows, n, 0, q_upper), r,
	    lw_scalar(L, 0, lw_dtype(L, a)));
	ValId q;
	if (ronly) {
		/* mode 'r': PyTorch's Q is an empty tensor of shape (0,) */
		int64_t zero = 0;
		q = lw_const(L, lw_dtype(L, a), 1, &zero, NULL);
	} else {
		/* no reflectors (k = 0): Q is the identity's columns */
		ValId t = 0;
		int64_t ax = -2;
		if (k)
			t = lw_axes_op(L, "Squeeze", lw_concat(L, taus, (int)k, -1,
			    lw_dtype(L, a)), &ax, 1);
		q = householder(L, f, t, &b, m, k, complete ? m : k);
	}
	la_bind_out(L, 0, q);
	la_bind_out(L, 1, r);
	return lw_failed(L) ? -1 : 0;
}

/* geqrf(self) -> (a, tau): geqr2's packed reflectors and R, and tau */
int
la_geqrf(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	if (la_matrix_in(L, 0, "self", "geqrf", &b, &m, &n, &a) < 0 ||
	    la_static(L, &b, "geqrf") < 0)
		return -1;
	int64_t k = m < n ? m : n;
	if (k == 0) {
		int64_t d[LW_MAXRANK + 1];
		memcpy(d, b.d, sizeof(int64_t) * (size_t)b.nb);
		d[b.nb] = 0;
		la_bind_out(L, 0, a);
		la_bind_out(L, 1, lw_const(L, lw_dtype(L, a), b.nb + 1, d, NULL));
		return lw_failed(L) ? -1 : 0;
	}
	ValId *taus = lw_scratch(L, (size_t)k, sizeof(ValId));
	ValId f = a;
	for (int64_t j = 0; j < k; j++)
		taus[j] = qr_step(L, &f, b.nb, m, n, j);
	int64_t ax = -2;
	la_bind_out(L, 0, f);
	la_bind_out(L, 1, lw_axes_op(L, "Squeeze", lw_concat(L, taus, (int)k, -1,
	    lw_dtype(L, a)), &ax, 1));
	return lw_failed(L) ? -1 : 0;
}

/* ormqr(self=reflectors, input2=tau, input3=C, left=True,
 * transpose=False): C times Q = H_0 ... H_{k-1} (or Q^T), on the left
 * or the right, Q built whole as orgqr does (householder) */
int
la_ormqr(Lower *L)
{
	LaBatch ba, bc;
	int64_t mq, k0, m, n;
	const char *op = "ormqr";
	ValId a, c;
	if (la_matrix_in(L, 0, "self", op, &ba, &mq, &k0, &a) < 0 ||
	    la_matrix_in(L, 2, "input3", op, &bc, &m, &n, &c) < 0 ||
	    la_static(L, &ba, op) < 0 || la_static(L, &bc, op) < 0)
		return -1;
	bool left = lw_bool(L, 3, "left", true);
	bool trans = lw_bool(L, 4, "transpose", false);
	const Value *st = lw_srcval(L, 1, "input2");
	int64_t k;
	if (!st || st->rank != ba.nb + 1 || !lw_sdim(L, st, -1, &k))
		return lw_fail(L, "%s: 'input2' (tau) must have the batch of "
		    "'self' and one static dim more", op);
	if (mq != (left ? m : n) || k > k0 || k > mq)
		return lw_fail(L, "%s: reflectors of %lld rows, %lld of them, "
		    "do not fit a %lldx%lld matrix on the %s", op, (long long)mq,
		    (long long)k, (long long)m, (long long)n,
		    left ? "left" : "right");
	if (ba.nb != bc.nb || memcmp(ba.d, bc.d, sizeof(int64_t) *
	    (size_t)ba.nb))
		return lw_fail(L, "%s: 'self' and 'input3' must have the same "
		    "batch dims", op);
	ValId tau = lw_in(L, 1, "input2");
	if (lw_failed(L))
		return -1;
	if (m == 0 || n == 0 || k == 0) {
		la_bind_out(L, 0, c);
		return lw_failed(L) ? -1 : 0;
	}
	ValId q = householder(L, a, lw_cast(L, tau, lw_dtype(L, a)), &ba, mq, k,
	    mq);
	if (trans)
		q = la_mT(L, q, ba.nb);
	la_bind_out(L, 0, left ? lw_op2(L, "MatMul", q, c) :
	    lw_op2(L, "MatMul", c, q));
	return lw_failed(L) ? -1 : 0;
}
