/* lower_linalg_spec.c - rules built on the Jacobi eigen- and singular
 * value solvers of lower_linalg_eig.c: eigh / eigvalsh, svd / svdvals,
 * pinv, matrix_rank, cond, matrix_sqrth.  Only values and products that
 * do not depend on the signs of the vectors leave these rules; an output
 * of eigen- or singular vectors that the graph reads is refused (see
 * lower_linalg_eig.c for why). */
#include "lower_linalg.h"
#include "lower_nn.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* output k's annotation is static with no elements */
static bool
out_empty(Lower *L, int k)
{
	if ((uint32_t)k >= lw_node(L)->nout)
		return false;
	const Value *sv = lw_outval(L, k);
	if (sv->kind != VK_TENSOR)
		return false;
	for (int d = 0; d < sv->rank; d++) {
		int64_t n;
		if (lw_sdim(L, sv, d, &n) && n == 0)
			return true;
	}
	return false;
}

/* whether a batch dim is 0: no matrices, nothing to iterate over (ONNX
 * Runtime's Loop and gathers fail on an empty batch) */
static bool
no_matrices(const LaBatch *b)
{
	for (int i = 0; i < b->nb; i++)
		if (b->d[i] == 0)
			return true;
	return false;
}

/* bind output k, when it has no elements, to an empty constant */
static void
bind_empty(Lower *L, int k)
{
	const Value *sv = lw_outval(L, k);
	int64_t d[LW_MAXRANK];
	for (int i = 0; i < sv->rank; i++)
		if (!lw_sdim(L, sv, i, &d[i]))
			d[i] = 0;
	lw_bind(L, k, lw_const(L, (DType)sv->dtype, sv->rank, d, NULL));
}

/* Output k holds eigen- or singular vectors: refuse it when the graph
 * reads it and it has elements.  what: "eigenvectors" ... */
static int
vectors_out(Lower *L, int k, const char *what, const char *lapack)
{
	if (!la_out_used(L, k))
		return 0;
	if (out_empty(L, k)) {
		bind_empty(L, k);
		return 0;
	}
	return lw_fail(L, "the %s output is not supported: %s are unique only "
	    "up to sign, and LAPACK's choice of signs (%s) follows no rule "
	    "that an ONNX graph can reproduce; the values, and results that "
	    "do not depend on the signs (linalg_pinv, linalg_matrix_rank, "
	    "linalg_cond, linalg_matrix_sqrth, matrix norms), are supported",
	    what, what, lapack);
}

/* the symmetric matrix that eigh sees: the lower (UPLO 'L') or upper
 * triangle of a mirrored */
static bool sym_lo(int64_t i, int64_t j, int64_t k) { (void)k; return i >= j; }
static bool sym_up(int64_t i, int64_t j, int64_t k) { (void)k; return i <= j; }

static ValId
symmetric(Lower *L, ValId a, int nb, int64_t n, bool upper)
{
	return la_where(L, la_mask(L, n, n, 0, upper ? sym_up : sym_lo), a,
	    la_mT(L, a, nb));
}

static bool
uplo_upper(Lower *L)
{
	const Arg *u = lw_arg(L, 1, "UPLO");
	return u && u->kind == A_STR && !strcmp(ir_str(L->m, u->u.s), "U");
}

/* the first argument's keyword: self, or A in the ops that name it so */
static const char *
first_kw(Lower *L)
{
	return lw_arg(L, 0, "self") ? "self" : lw_arg(L, 0, "A") ? "A" : "input";
}

/* linalg_eigh(self, UPLO) and _linalg_eigh(A, UPLO, compute_v) ->
 * (eigenvalues, eigenvectors); linalg_eigvalsh(self, UPLO) */
int
la_eigh(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId a;
	if (la_square_in(L, 0, first_kw(L), "eigh", &b, &n, &a) < 0 ||
	    la_static(L, &b, "eigh") < 0)
		return -1;
	if (vectors_out(L, 1, "eigenvectors", "syevd") < 0)
		return -1;
	if (n == 0 || no_matrices(&b)) {
		bind_empty(L, 0);
		return lw_failed(L) ? -1 : 0;
	}
	ValId vals, vecs;
	la_jacobi(L, symmetric(L, a, b.nb, n, uplo_upper(L)), &b, n, &vals,
	    &vecs);
	la_bind_out(L, 0, vals);
	return lw_failed(L) ? -1 : 0;
}

/* linalg_svd(A, full_matrices, *, driver), _linalg_svd(A, full_matrices,
 * compute_uv, *, driver) -> (U, S, Vh); svd(self, some, compute_uv) ->
 * (U, S, V); linalg_svdvals(A, *, driver) -> S */
int
la_svd_rule(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	if (la_matrix_in(L, 0, first_kw(L), "svd", &b, &m, &n, &a) < 0 ||
	    la_static(L, &b, "svd") < 0)
		return -1;
	/* svdvals returns S alone; the others (U, S, V/Vh) even when the
	 * dump makes only the outputs it reads */
	bool vals_only = strstr(ir_str(L->m, lw_node(L)->op), "svdvals") !=
	    NULL;
	int ks = vals_only ? 0 : 1;
	if (!vals_only && (vectors_out(L, 0, "singular vectors", "gesdd") < 0 ||
	    vectors_out(L, 2, "singular vectors", "gesdd") < 0))
		return -1;
	if (m == 0 || n == 0 || no_matrices(&b)) {
		bind_empty(L, ks);
		return lw_failed(L) ? -1 : 0;
	}
	ValId s;
	la_svd(L, a, &b, m, n, &s, NULL, NULL);
	la_bind_out(L, ks, s);
	return lw_failed(L) ? -1 : 0;
}

/* --------------------------------------------- pinv and matrix_rank */

/* The tolerances of pinv and matrix_rank: absent is 0. */
typedef struct LaTol {
	ValId atol, rtol;
	bool hermitian;
} LaTol;

/* atol, rtol and hermitian by overload: .atol_rtol_tensor/_float (self,
 * *, atol, rtol, hermitian); linalg_pinv(self, rcond, hermitian) and
 * .rcond_tensor (rcond is rtol); pinverse(self, rcond=1e-15);
 * linalg_matrix_rank(self, tol, hermitian) and .tol_tensor (tol is
 * atol) */
static void
tolerances(Lower *L, DType dt, LaTol *t)
{
	const char *op = ir_str(L->m, lw_node(L)->op);
	memset(t, 0, sizeof *t);
	if (strstr(op, ".atol_rtol_")) {
		if (lw_has(L, 1, "atol"))
			t->atol = lw_operand(L, 1, "atol", dt);
		if (lw_has(L, 2, "rtol"))
			t->rtol = lw_operand(L, 2, "rtol", dt);
		t->hermitian = lw_bool(L, 3, "hermitian", false);
	} else if (strstr(op, "pinverse")) {
		t->rtol = lw_scalar(L, lw_float(L, 1, "rcond", 1e-15), dt);
	} else if (strstr(op, "linalg_pinv")) {
		t->rtol = lw_operand(L, 1, "rcond", dt);
		t->hermitian = lw_bool(L, 2, "hermitian", false);
	} else {
		t->atol = lw_operand(L, 1, "tol", dt);
		t->rtol = lw_scalar(L, 0, dt);
		t->hermitian = lw_bool(L, 2, "hermitian", false);
	}
}

/* max(atol, rtol * smax) [.., 1] as PyTorch's get_atol_rtol: rtol
 * absent is eps * max(m, n), or 0 where atol is given and positive */
static ValId
threshold(Lower *L, const LaTol *t, ValId smax, int64_t m, int64_t n,
    DType dt)
{
	double eps = (dt == DT_F64 ? DBL_EPSILON : FLT_EPSILON) *
	    (double)(m > n ? m : n);
	int64_t ax = -1;
	ValId atol = t->atol ? lw_axes_op(L, "Unsqueeze", t->atol, &ax, 1) : 0;
	ValId rtol = t->rtol ? lw_axes_op(L, "Unsqueeze", t->rtol, &ax, 1) : 0;
	if (!rtol) {
		rtol = lw_scalar(L, eps, dt);
		if (atol)
			rtol = la_where(L, lw_op2t(L, "Greater", atol,
			    lw_scalar(L, 0, dt), DT_BOOL), lw_scalar(L, 0, dt),
			    rtol);
	}
	ValId tol = lw_op2(L, "Mul", rtol, smax);
	return atol ? lw_op2(L, "Max", atol, tol) : tol;
}

/* The spectrum of a: singular values s (descending) and u, v, or for
 * hermitian the eigenvalues s and vectors u = v; *mag the magnitudes
 * [.., k] rounded to dt, the values PyTorch compares with the tolerance */
static void
spectrum(Lower *L, ValId a, const LaBatch *b, int64_t m, int64_t n, bool herm,
    bool vec, ValId *s, ValId *u, ValId *v, ValId *mag)
{
	DType dt = lw_dtype(L, a);
	if (herm) {
		ValId w;
		la_jacobi(L, symmetric(L, a, b->nb, n, false), b, n, s, &w);
		*u = *v = w;
		*mag = lw_op1(L, "Abs", lw_cast(L, *s, dt));
	} else {
		la_svd(L, a, b, m, n, s, vec ? u : NULL, vec ? v : NULL);
		*mag = lw_cast(L, *s, dt);
	}
}

/* linalg_pinv (every overload), pinverse */
int
la_pinv(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	if (la_matrix_in(L, 0, "self", "linalg_pinv", &b, &m, &n, &a) < 0 ||
	    la_static(L, &b, "linalg_pinv") < 0)
		return -1;
	DType dt = lw_dtype(L, a);
	LaTol t;
	tolerances(L, dt, &t);
	if (lw_failed(L))
		return -1;
	if (t.hermitian && m != n)
		return lw_fail(L, "linalg_pinv: hermitian=True needs square "
		    "matrices, not %lldx%lld", (long long)m, (long long)n);
	if (m == 0 || n == 0 || no_matrices(&b)) {
		bind_empty(L, 0);
		return lw_failed(L) ? -1 : 0;
	}
	ValId s, u, v, mag;
	spectrum(L, a, &b, m, n, t.hermitian, true, &s, &u, &v, &mag);
	int64_t ax = -1;
	ValId smax = lwn_reduce(L, "ReduceMax", mag, &ax, 1, true);
	ValId keep = lw_op2t(L, "Greater", mag, threshold(L, &t, smax, m, n, dt),
	    DT_BOOL);
	ValId sinv = la_where(L, keep, lw_op1(L, "Reciprocal", s),
	    lw_scalar(L, 0, DT_F64));
	int64_t ax2 = -2;
	ValId vs = lw_op2(L, "Mul", v, lw_axes_op(L, "Unsqueeze", sinv, &ax2, 1));
	la_bind_out(L, 0, lw_op2(L, "MatMul", vs, la_mT(L, u, b.nb)));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_matrix_rank (every overload): the values above the tolerance */
int
la_matrix_rank(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	if (la_matrix_in(L, 0, first_kw(L), "linalg_matrix_rank", &b, &m, &n,
	    &a) < 0 || la_static(L, &b, "linalg_matrix_rank") < 0)
		return -1;
	DType dt = lw_dtype(L, a);
	LaTol t;
	tolerances(L, dt, &t);
	if (lw_failed(L))
		return -1;
	if (t.hermitian && m != n)
		return lw_fail(L, "linalg_matrix_rank: hermitian=True needs "
		    "square matrices, not %lldx%lld", (long long)m, (long long)n);
	if (m == 0 || n == 0 || no_matrices(&b)) {
		la_bind_out(L, 0, lw_op2(L, "Expand", lw_scalar_i64(L, 0),
		    lw_const_i64s(L, b.d, b.nb)));
		return lw_failed(L) ? -1 : 0;
	}
	ValId s, u, v, mag;
	spectrum(L, a, &b, m, n, t.hermitian, false, &s, &u, &v, &mag);
	int64_t ax = -1;
	ValId smax = lwn_reduce(L, "ReduceMax", mag, &ax, 1, true);
	ValId keep = lw_op2t(L, "Greater", mag, threshold(L, &t, smax, m, n, dt),
	    DT_BOOL);
	la_bind_out(L, 0, lwn_reduce(L, "ReduceSum", lw_cast(L, keep, DT_I64),
	    &ax, 1, false));
	return lw_failed(L) ? -1 : 0;
}

/* the matrix norm of x [.., n, n] for linalg_cond's orders other than
 * +-2: 'fro', 'nuc', +-1 (column sums), +-inf (row sums) */
static ValId
cond_norm(Lower *L, ValId x, const LaBatch *b, int64_t n, const char *s,
    double p)
{
	int64_t both[2] = {-2, -1}, ax = -1;
	if (s && !strcmp(s, "fro"))
		return lw_op1(L, "Sqrt", lwn_reduce(L, "ReduceSum",
		    lw_op2(L, "Mul", x, x), both, 2, false));
	if (s) {
		ValId sv;
		la_svd(L, x, b, n, n, &sv, NULL, NULL);
		return lw_cast(L, lwn_reduce(L, "ReduceSum", sv, &ax, 1, false),
		    lw_dtype(L, x));
	}
	int64_t sum_ax = fabs(p) == 1 ? -2 : -1;
	ValId sums = lwn_reduce(L, "ReduceSum", lw_op1(L, "Abs", x), &sum_ax, 1,
	    false);
	return lwn_reduce(L, p > 0 ? "ReduceMax" : "ReduceMin", sums, &ax, 1,
	    false);
}

/* linalg_cond(self, p=None), .p_str(self, p): for None, 2, -2 the ratio
 * of the largest and smallest singular values; else, as PyTorch,
 * norm(A) norm(A^-1) with the inverse all inf where the LU meets a zero
 * pivot */
int
la_cond(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	if (la_matrix_in(L, 0, "self", "linalg_cond", &b, &m, &n, &a) < 0 ||
	    la_static(L, &b, "linalg_cond") < 0)
		return -1;
	const Arg *pa = lw_arg(L, 1, "p");
	const char *ps = pa && pa->kind == A_STR ? ir_str(L->m, pa->u.s) : NULL;
	double p = 2;
	if (!ps && pa && pa->kind != A_NONE)
		p = lw_float(L, 1, "p", 2);
	if (lw_failed(L))
		return -1;
	if (ps ? strcmp(ps, "fro") && strcmp(ps, "nuc") :
	    p != 2 && p != -2 && fabs(p) != 1 && !isinf(p))
		return lw_fail(L, "linalg_cond: p must be None, 'fro', 'nuc', "
		    "inf, -inf, 1, -1, 2 or -2");
	if (no_matrices(&b) && m > 0 && n > 0) {
		bind_empty(L, 0);
		return lw_failed(L) ? -1 : 0;
	}
	if (m == 0 || n == 0)
		return lw_fail(L, "linalg_cond of an empty matrix is not "
		    "supported");
	int64_t ax = -1;
	if (!ps && (p == 2 || p == -2)) {
		ValId s;
		la_svd(L, a, &b, m, n, &s, NULL, NULL);
		ValId hi = lwn_reduce(L, "ReduceMax", s, &ax, 1, false);
		ValId lo = lwn_reduce(L, "ReduceMin", s, &ax, 1, false);
		la_bind_out(L, 0, p > 0 ? lw_op2(L, "Div", hi, lo) :
		    lw_op2(L, "Div", lo, hi));
		return lw_failed(L) ? -1 : 0;
	}
	if (m != n)
		return lw_fail(L, "linalg_cond: p other than 2 and -2 needs "
		    "square matrices, not %lldx%lld", (long long)m, (long long)n);
	DType dt = lw_dtype(L, a);
	ValId lu, perm, piv;
	la_lu(L, a, b.nb, n, n, &lu, &perm, &piv);
	ValId inv = la_lu_solve(L, lu, perm, la_eye(L, &b, n, dt), n);
	ValId sing = lwn_reduce(L, "ReduceMax", lw_cast(L, lw_op2t(L, "Equal",
	    la_diag(L, lu, b.nb, n, n), lw_scalar(L, 0, dt), DT_BOOL), DT_I32),
	    &ax, 1, false);
	sing = lw_cast(L, sing, DT_BOOL);
	ValId na = cond_norm(L, a, &b, n, ps, p);
	ValId ni;
	if (ps && !strcmp(ps, "nuc")) {
		/* the singular values of an all-inf matrix: inf */
		ni = la_where(L, sing, lw_scalar(L, INFINITY, dt),
		    cond_norm(L, inv, &b, n, ps, p));
	} else {
		int64_t two[2] = {-1, -2};
		ValId s2 = lw_axes_op(L, "Unsqueeze", sing, two, 2);
		ni = cond_norm(L, la_where(L, s2, lw_scalar(L, INFINITY, dt), inv),
		    &b, n, ps, p);
	}
	la_bind_out(L, 0, lw_op2(L, "Mul", na, ni));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_matrix_sqrth(self): V sqrt(max(w, 0)) V^T from eigh of the
 * lower triangle (the principal root of a positive semi-definite A) */
int
la_matrix_sqrth(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId a;
	if (la_square_in(L, 0, "self", "linalg_matrix_sqrth", &b, &n, &a) < 0 ||
	    la_static(L, &b, "linalg_matrix_sqrth") < 0)
		return -1;
	if (n == 0 || no_matrices(&b)) {
		la_bind_out(L, 0, a);
		return lw_failed(L) ? -1 : 0;
	}
	ValId w, v;
	la_jacobi(L, symmetric(L, a, b.nb, n, false), &b, n, &w, &v);
	ValId r = lw_op1(L, "Sqrt", lw_op2(L, "Max", w, lw_scalar(L, 0,
	    DT_F64)));
	int64_t ax = -2;
	ValId vr = lw_op2(L, "Mul", v, lw_axes_op(L, "Unsqueeze", r, &ax, 1));
	la_bind_out(L, 0, lw_op2(L, "MatMul", vr, la_mT(L, v, b.nb)));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_vander(x, *, N=None): [..., n, N], column j = x^j, each power
 * one product more than the last as PyTorch's cumprod makes them */
int
la_vander(Lower *L)
{
	const Value *so = lw_outval(L, 0);
	int64_t od[LW_MAXRANK + 1];
	for (int d = 0; d < so->rank; d++)
		if (!lw_sdim(L, so, d, &od[d]))
			return lw_fail(L, "linalg_vander: the result's dim %d is "
			    "symbolic", d);
	ValId x = lw_in(L, 0, "x");
	if (lw_failed(L) || so->rank < 1)
		return -1;
	DType dt = (DType)so->dtype;
	int64_t cols = od[so->rank - 1];
	od[so->rank - 1] = 1;
	x = lw_reshape(L, lw_cast(L, x, dt), lw_const_i64s(L, od, so->rank));
	if (cols == 0) {
		od[so->rank - 1] = 0;
		lw_bind(L, 0, lw_const(L, dt, so->rank, od, NULL));
		return lw_failed(L) ? -1 : 0;
	}
	ValId *c = lw_scratch(L, (size_t)cols, sizeof(ValId));
	c[0] = lw_op2(L, "Expand", lw_scalar(L, 1, dt), lw_const_i64s(L, od,
	    so->rank));
	for (int64_t j = 1; j < cols; j++)
		c[j] = j == 1 ? x : lw_op2(L, "Mul", c[j - 1], x);
	lw_bind(L, 0, lw_concat(L, c, (int)cols, -1, dt));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_polar(A) -> (U, H), A [.., m, n] with m >= n: U = u v^T, H =
 * v diag(s) v^T from the singular value decomposition.  H is unique; U
 * is unique only where A has full rank, and where it has not (its
 * smallest singular value at most n eps of its largest) U is NaN:
 * PyTorch's U there is one of many, which no rule reproduces. */
int
la_polar(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	if (la_matrix_in(L, 0, "A", "linalg_polar", &b, &m, &n, &a) < 0 ||
	    la_static(L, &b, "linalg_polar") < 0)
		return -1;
	if (m < n)
		return lw_fail(L, "linalg_polar: input must have at least as many "
		    "rows as columns, not %lldx%lld", (long long)m, (long long)n);
	if (n == 0 || no_matrices(&b)) {
		bind_empty(L, 0);
		bind_empty(L, 1);
		return lw_failed(L) ? -1 : 0;
	}
	DType dt = lw_dtype(L, a);
	ValId s, u, v;
	la_svd(L, a, &b, m, n, &s, &u, &v);
	int64_t ax = -1, ax2 = -2;
	double eps = (dt == DT_F64 ? DBL_EPSILON : FLT_EPSILON) * (double)n;
	ValId smax = lwn_reduce(L, "ReduceMax", s, &ax, 1, true);
	ValId smin = lwn_reduce(L, "ReduceMin", s, &ax, 1, true);
	ValId bad = lw_op1(L, "Not", lw_op2t(L, "Greater", smin, lw_op2(L, "Mul",
	    smax, lw_scalar(L, eps, DT_F64)), DT_BOOL));
	bad = lw_axes_op(L, "Unsqueeze", bad, &ax, 1);
	ValId vt = la_mT(L, v, b.nb);
	la_bind_out(L, 0, la_where(L, bad, lw_scalar(L, NAN, DT_F64),
	    lw_op2(L, "MatMul", u, vt)));
	ValId vs = lw_op2(L, "Mul", v, lw_axes_op(L, "Unsqueeze", s, &ax2, 1));
	la_bind_out(L, 1, lw_op2(L, "MatMul", vs, vt));
	return lw_failed(L) ? -1 : 0;
}
