/* lower_linalg.c - lowering rules for small linear algebra: determinants,
 * inverses and solves through an LU with LAPACK's pivoting, triangular
 * solves, Cholesky, LU factor/unpack/solve, matrix_power.  The numeric
 * work is in lower_linalg_core.c; sizes must be static and small. */
#include "lower_linalg.h"
#include "lower_nn.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* a constant of dtype dt and value v shaped like batch b */
static ValId
batch_fill(Lower *L, const LaBatch *b, double v, DType dt)
{
	return lw_op2(L, "Expand", lw_scalar(L, v, dt), la_batch_shape(L, b));
}

/* ---------------------------------------------------------- determinant */

typedef struct DetParts {
	ValId lu, piv, diag, psign;
} DetParts;

static void
det_parts(Lower *L, ValId a, const LaBatch *b, int64_t n, DetParts *p)
{
	DType dt = lw_dtype(L, a);
	ValId perm;
	la_lu(L, a, b->nb, n, n, &p->lu, &perm, &p->piv);
	p->diag = la_diag(L, p->lu, b->nb, n, n);
	/* each pivot that moved a row flips the sign */
	int64_t *idx = lw_scratch(L, (size_t)n, sizeof(int64_t));
	for (int64_t i = 0; i < n; i++)
		idx[i] = i + 1;
	ValId moved = lw_cast(L, lw_op1(L, "Not", lw_op2t(L, "Equal", p->piv,
	    lw_const_i64s(L, idx, (int)n), DT_BOOL)), DT_I64);
	int64_t ax = -1;
	ValId cnt = lwn_reduce(L, "ReduceSum", moved, &ax, 1, false);
	ValId odd = lw_op2(L, "Mod", cnt, lw_scalar_i64(L, 2));
	p->psign = lw_op2(L, "Sub", lw_scalar(L, 1, dt),
	    lw_op2(L, "Mul", lw_scalar(L, 2, dt), lw_cast(L, odd, dt)));
}

/* linalg_det(A), _linalg_det(A) -> (det, LU, pivots) */
static int
det(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId a;
	if (la_square_in(L, 0, "A", "linalg_det", &b, &n, &a) < 0)
		return -1;
	DType dt = lw_dtype(L, a);
	if (n == 0 && la_static(L, &b, "linalg_det of 0x0 matrices") < 0)
		return -1;
	if (n == 0) {
		la_bind_out(L, 0, batch_fill(L, &b, 1, dt));
		la_bind_out(L, 1, a);
		int64_t d[LW_MAXRANK + 1];
		memcpy(d, b.d, sizeof(int64_t) * (size_t)b.nb);
		d[b.nb] = 0;
		la_bind_out(L, 2, lw_const(L, DT_I32, b.nb + 1, d, NULL));
		return lw_failed(L) ? -1 : 0;
	}
	DetParts p;
	det_parts(L, a, &b, n, &p);
	int64_t ax = -1;
	ValId prod = lwn_reduce(L, "ReduceProd", p.diag, &ax, 1, false);
	la_bind_out(L, 0, lw_op2(L, "Mul", prod, p.psign));
	la_bind_out(L, 1, p.lu);
	la_bind_out(L, 2, p.piv);
	return lw_failed(L) ? -1 : 0;
}

/* sign and log|det| from the LU; logdet: NaN where the sign is -1 */
static int
slogdet_common(Lower *L, bool logdet)
{
	LaBatch b;
	int64_t n;
	const char *kw = logdet ? "self" : "A";
	ValId a;
	if (la_square_in(L, 0, kw, logdet ? "logdet" : "linalg_slogdet", &b, &n,
	    &a) < 0)
		return -1;
	DType dt = lw_dtype(L, a);
	ValId sign, lad, lu = a, piv = 0;
	if (n == 0) {
		sign = batch_fill(L, &b, 1, dt);
		lad = batch_fill(L, &b, 0, dt);
	} else {
		DetParts p;
		det_parts(L, a, &b, n, &p);
		int64_t ax = -1;
		sign = lw_op2(L, "Mul", lwn_reduce(L, "ReduceProd",
		    lw_op1(L, "Sign", p.diag), &ax, 1, false), p.psign);
		lad = lwn_reduce(L, "ReduceSum", lw_op1(L, "Log",
		    lw_op1(L, "Abs", p.diag)), &ax, 1, false);
		lu = p.lu;
		piv = p.piv;
	}
	if (logdet) {
		ValId neg = lw_op2t(L, "Less", sign, lw_scalar(L, 0, dt), DT_BOOL);
		la_bind_out(L, 0, la_where(L, neg, lw_scalar(L, NAN, dt), lad));
		return lw_failed(L) ? -1 : 0;
	}
	la_bind_out(L, 0, sign);
	la_bind_out(L, 1, lad);
	la_bind_out(L, 2, lu);
	la_bind_out(L, 3, piv);
	return lw_failed(L) ? -1 : 0;
}

static int slogdet(Lower *L) { return slogdet_common(L, false); }
static int logdet(Lower *L) { return slogdet_common(L, true); }

/* ---------------------------------------------------- inverse and solve */

/* getrf's info from the diagonal of U */
static ValId
lu_info(Lower *L, ValId lu, int nb, int64_t n)
{
	ValId d = la_diag(L, lu, nb, n, n);
	return la_info(L, lw_op2t(L, "Equal", d,
	    lw_scalar(L, 0, lw_dtype(L, d)), DT_BOOL));
}

/* linalg_inv(A), linalg_inv_ex(A, *, check_errors) -> (inverse, info) */
static int
inv(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId a;
	if (la_square_in(L, 0, "A", "linalg_inv", &b, &n, &a) < 0)
		return -1;
	if (n == 0) {
		la_bind_out(L, 0, a);
		la_bind_out(L, 1, batch_fill(L, &b, 0, DT_I32));
		return lw_failed(L) ? -1 : 0;
	}
	ValId lu, perm, piv;
	la_lu(L, a, b.nb, n, n, &lu, &perm, &piv);
	ValId x = la_lu_solve(L, lu, perm, la_eye(L, &b, n, lw_dtype(L, a)), n);
	la_bind_out(L, 0, x);
	la_bind_out(L, 1, lu_info(L, lu, b.nb, n));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_solve(A, B, *, left), linalg_solve_ex -> (result, info),
 * _linalg_solve_ex -> (result, LU, pivots, info) */
static int
solve(Lower *L)
{
	LaBatch ba, bb, bo;
	int64_t n, br = 0, bc = 0;
	if (la_square_arg(L, 0, "A", "linalg_solve", &ba, &n) < 0)
		return -1;
	bool left = lw_bool(L, 2, "left", true);
	const Value *sb = lw_srcval(L, 1, "B");
	const Value *so = lw_outval(L, 0);
	if (!sb)
		return lw_fail(L, "linalg_solve: argument 'B' must be a tensor");
	/* B is a batch of vectors when the result has one dim less than A */
	bool vec = so->rank == ba.nb + 1;
	ValId a = lw_in(L, 0, "A"), bv = lw_in(L, 1, "B");
	if (lw_failed(L))
		return -1;
	if (vec) {
		int64_t ax = -1;
		bv = lw_axes_op(L, "Unsqueeze", bv, &ax, 1);
		bb.nb = sb->rank - 1;
		bb.shape = 0;
		for (int d = 0; d < sb->rank; d++) {
			int64_t v;
			if (!lw_sdim(L, sb, d, &v)) {
				if (d == bb.nb)
					return lw_fail(L, "linalg_solve is "
					    "unrolled over static sizes: dim "
					    "%d of 'B' is symbolic", d);
				v = -1;
				bb.shape = lwn_shape_of(L, lw_in(L, 1, "B"),
				    0, bb.nb);
			}
			if (d < bb.nb)
				bb.d[d] = v;
			else
				br = v;
		}
		bc = 1;
	} else if (la_rhs_arg(L, 1, "B", "linalg_solve", &bb, &br, &bc) < 0) {
		return -1;
	}
	if (!left) {
		/* X A = B  <=>  A^T X^T = B^T */
		a = la_mT(L, a, ba.nb);
		bv = la_mT(L, bv, bb.nb);
		int64_t t = br;
		br = bc;
		bc = t;
	}
	if (br != n)
		return lw_fail(L, "linalg_solve: B has %lld rows for a %lldx%lld "
		    "A", (long long)br, (long long)n, (long long)n);
	if (la_broadcast(L, &ba, &bb, &bo) < 0)
		return -1;
	a = la_expand(L, a, &bo, n, n);
	bv = la_expand(L, bv, &bo, n, bc);
	ValId x = bv, lu = a, piv = 0, info = batch_fill(L, &bo, 0, DT_I32);
	if (n > 0) {
		ValId perm;
		la_lu(L, a, bo.nb, n, n, &lu, &perm, &piv);
		x = la_lu_solve(L, lu, perm, bv, n);
		info = lu_info(L, lu, bo.nb, n);
	}
	if (!left)
		x = la_mT(L, x, bo.nb);
	if (vec) {
		int64_t ax = -1;
		x = lw_axes_op(L, "Squeeze", x, &ax, 1);
	}
	la_bind_out(L, 0, x);
	/* by the op, not by nout: the dump makes only the outputs it reads */
	if (strstr(ir_str(L->m, lw_node(L)->op), "_linalg_solve_ex")) {
		la_bind_out(L, 1, lu);
		la_bind_out(L, 2, piv);
		la_bind_out(L, 3, info);
	} else {
		la_bind_out(L, 1, info);
	}
	return lw_failed(L) ? -1 : 0;
}

/* ------------------------------------------------------ triangular solve */

/* solve t x = b, or x t = b (left false), t triangular; t and b
 * broadcast over their batches */
static ValId
tri_solve(Lower *L, const char *op, ValId t, const LaBatch *bt, int64_t n,
    ValId b, const LaBatch *bb, int64_t br, int64_t bc, bool upper,
    bool left, bool unit, LaBatch *bo)
{
	if (!left) {
		/* X T = B  <=>  T^T X^T = B^T, and T^T flips the triangle */
		t = la_mT(L, t, bt->nb);
		b = la_mT(L, b, bb->nb);
		upper = !upper;
		int64_t s = br;
		br = bc;
		bc = s;
	}
	if (br != n) {
		lw_fail(L, "%s: B has %lld rows for a %lldx%lld matrix", op,
		    (long long)br, (long long)n, (long long)n);
		return 0;
	}
	if (la_broadcast(L, bt, bb, bo) < 0)
		return 0;
	t = la_expand(L, t, bo, n, n);
	b = la_expand(L, b, bo, n, bc);
	ValId x = la_trsolve(L, t, b, n, upper, unit);
	return left ? x : la_mT(L, x, bo->nb);
}

/* linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False) */
static int
solve_triangular(Lower *L)
{
	LaBatch ba, bb, bo;
	int64_t n, br = 0, bc = 0;
	const char *op = "linalg_solve_triangular";
	if (la_square_arg(L, 0, "self", op, &ba, &n) < 0 ||
	    la_rhs_arg(L, 1, "B", op, &bb, &br, &bc) < 0)
		return -1;
	bool upper = lw_bool(L, 2, "upper", false);
	bool left = lw_bool(L, 3, "left", true);
	bool unit = lw_bool(L, 4, "unitriangular", false);
	ValId a = lw_in(L, 0, "self"), b = lw_in(L, 1, "B");
	if (lw_failed(L))
		return -1;
	ValId x = tri_solve(L, op, a, &ba, left ? n : n, b, &bb, br, bc, upper,
	    left, unit, &bo);
	if (!x)
		return -1;
	la_bind_out(L, 0, x);
	return lw_failed(L) ? -1 : 0;
}

/* triangular_solve(self=B, A, upper=True, transpose=False,
 * unitriangular=False) -> (solution, cloned_coefficient) */
static int
triangular_solve(Lower *L)
{
	LaBatch ba, bb, bo;
	int64_t n, br = 0, bc = 0;
	const char *op = "triangular_solve";
	if (la_rhs_arg(L, 0, "self", op, &bb, &br, &bc) < 0 ||
	    la_square_arg(L, 1, "A", op, &ba, &n) < 0)
		return -1;
	bool upper = lw_bool(L, 2, "upper", true);
	bool trans = lw_bool(L, 3, "transpose", false);
	bool unit = lw_bool(L, 4, "unitriangular", false);
	ValId b = lw_in(L, 0, "self"), a = lw_in(L, 1, "A");
	if (lw_failed(L))
		return -1;
	ValId t = a;
	if (trans) {
		t = la_mT(L, a, ba.nb);
		upper = !upper;
	}
	ValId x = tri_solve(L, op, t, &ba, n, b, &bb, br, bc, upper, true,
	    unit, &bo);
	if (!x)
		return -1;
	la_bind_out(L, 0, x);
	la_bind_out(L, 1, la_expand(L, a, &bo, n, n));
	return lw_failed(L) ? -1 : 0;
}

/* -------------------------------------------------------------- Cholesky */

/* linalg_cholesky(A, *, upper), linalg_cholesky_ex -> (L, info) */
static int
cholesky(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId a;
	if (la_square_in(L, 0, "self", "linalg_cholesky", &b, &n, &a) < 0)
		return -1;
	bool upper = lw_bool(L, 1, "upper", false);
	if (lw_failed(L))
		return -1;
	if (n == 0) {
		la_bind_out(L, 0, a);
		la_bind_out(L, 1, batch_fill(L, &b, 0, DT_I32));
		return lw_failed(L) ? -1 : 0;
	}
	ValId bad, f = la_cholesky(L, a, b.nb, n, &bad);
	la_bind_out(L, 0, upper ? la_mT(L, f, b.nb) : f);
	la_bind_out(L, 1, la_info(L, bad));
	return lw_failed(L) ? -1 : 0;
}

/* x = A^-1 b for A = F F^T (F = input2 or its transpose when upper) */
static ValId
chol_apply(Lower *L, ValId f, int nb, int64_t n, bool upper, ValId b)
{
	if (upper)
		f = la_mT(L, f, nb);
	ValId y = la_trsolve(L, f, b, n, false, false);
	return la_trsolve(L, la_mT(L, f, nb), y, n, true, false);
}

/* cholesky_solve(self=B, input2=F, upper=False) */
static int
cholesky_solve(Lower *L)
{
	LaBatch bf, bb, bo;
	int64_t n, br = 0, bc = 0;
	const char *op = "cholesky_solve";
	if (la_rhs_arg(L, 0, "self", op, &bb, &br, &bc) < 0 ||
	    la_square_arg(L, 1, "input2", op, &bf, &n) < 0)
		return -1;
	bool upper = lw_bool(L, 2, "upper", false);
	ValId b = lw_in(L, 0, "self"), f = lw_in(L, 1, "input2");
	if (lw_failed(L))
		return -1;
	if (br != n)
		return lw_fail(L, "%s: B has %lld rows for a %lldx%lld factor", op,
		    (long long)br, (long long)n, (long long)n);
	if (la_broadcast(L, &bb, &bf, &bo) < 0)
		return -1;
	f = la_expand(L, f, &bo, n, n);
	b = la_expand(L, b, &bo, n, bc);
	la_bind_out(L, 0, n ? chol_apply(L, f, bo.nb, n, upper, b) : b);
	return lw_failed(L) ? -1 : 0;
}

/* cholesky_inverse(self=F, upper=False) */
static int
cholesky_inverse(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId f;
	if (la_square_in(L, 0, "self", "cholesky_inverse", &b, &n, &f) < 0)
		return -1;
	bool upper = lw_bool(L, 1, "upper", false);
	if (lw_failed(L))
		return -1;
	la_bind_out(L, 0, n ? chol_apply(L, f, b.nb, n, upper,
	    la_eye(L, &b, n, lw_dtype(L, f))) : f);
	return lw_failed(L) ? -1 : 0;
}

/* -------------------------------------------------------------------- LU */

static int
lu_input(Lower *L, int i, const char *kw, const char *op, LaBatch *b,
    int64_t *m, int64_t *n, ValId *a)
{
	if (la_matrix_in(L, i, kw, op, b, m, n, a) < 0)
		return -1;
	if (*m == 0 || *n == 0)
		return lw_fail(L, "%s of an empty matrix is not supported", op);
	return 0;
}

/* linalg_lu_factor(A, *, pivot) -> (LU, pivots); linalg_lu_factor_ex(A,
 * *, pivot, check_errors) and _lu_with_info(self, pivot, check_errors)
 * -> (LU, pivots, info) */
static int
lu_factor(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	const Node *nd = lw_node(L);
	/* A is positional in every overload (self in _lu_with_info) */
	if (lu_input(L, 0, "A", "lu_factor", &b, &m, &n, &a) < 0)
		return -1;
	if (!lw_bool(L, 1, "pivot", true))
		return lw_fail(L, "lu_factor: LU without pivoting is not "
		    "implemented on the CPU (PyTorch refuses it too)");
	ValId lu, perm, piv;
	la_lu(L, a, b.nb, m, n, &lu, &perm, &piv);
	la_bind_out(L, 0, lu);
	la_bind_out(L, 1, piv);
	if (nd->nout > 2)
		la_bind_out(L, 2, la_info(L, lw_op2t(L, "Equal",
		    la_diag(L, lu, b.nb, m, n), lw_scalar(L, 0, lw_dtype(L, lu)),
		    DT_BOOL)));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_lu(A, *, pivot) -> (P, L, U) */
static int
lu_full(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	if (lu_input(L, 0, "A", "linalg_lu", &b, &m, &n, &a) < 0)
		return -1;
	if (!lw_bool(L, 1, "pivot", true))
		return lw_fail(L, "linalg_lu: LU without pivoting is not "
		    "implemented on the CPU (PyTorch refuses it too)");
	ValId lu, perm, piv, lo, up;
	la_lu(L, a, b.nb, m, n, &lu, &perm, &piv);
	la_lu_split(L, lu, b.nb, m, n, &lo, &up);
	la_bind_out(L, 0, la_perm_matrix(L, perm, m, lw_dtype(L, a)));
	la_bind_out(L, 1, lo);
	la_bind_out(L, 2, up);
	return lw_failed(L) ? -1 : 0;
}

/* lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True) */
static int
lu_unpack(Lower *L)
{
	LaBatch b;
	int64_t m, n;
	ValId a;
	if (lu_input(L, 0, "LU_data", "lu_unpack", &b, &m, &n, &a) < 0)
		return -1;
	if (!lw_bool(L, 2, "unpack_data", true) ||
	    !lw_bool(L, 3, "unpack_pivots", true))
		return lw_fail(L, "lu_unpack: only unpack_data=True and "
		    "unpack_pivots=True are supported");
	ValId piv = lw_in(L, 1, "LU_pivots");
	if (lw_failed(L))
		return -1;
	ValId lo, up;
	la_lu_split(L, a, b.nb, m, n, &lo, &up);
	ValId perm = la_pivots_perm(L, piv, m, m < n ? m : n);
	la_bind_out(L, 0, la_perm_matrix(L, perm, m, lw_dtype(L, a)));
	la_bind_out(L, 1, lo);
	la_bind_out(L, 2, up);
	return lw_failed(L) ? -1 : 0;
}

/* solve A X = B (or A^H X = B) with A = P L U given packed */
static int
lu_solve_common(Lower *L, int ilu, const char *klu, int ipiv,
    const char *kpiv, int ib, const char *kb, bool left, bool adjoint)
{
	LaBatch ba, bb, bo;
	int64_t n, c, br, bc;
	const char *op = "lu_solve";
	if (la_matrix_arg(L, ilu, klu, op, &ba, &n, &c) < 0 ||
	    la_rhs_arg(L, ib, kb, op, &bb, &br, &bc) < 0)
		return -1;
	if (n != c)
		return lw_fail(L, "%s: LU must be square", op);
	ValId lu = lw_in(L, ilu, klu), piv = lw_in(L, ipiv, kpiv);
	ValId b = lw_in(L, ib, kb);
	if (lw_failed(L))
		return -1;
	if (!left) {
		/* X A = B  <=>  A^T X^T = B^T */
		b = la_mT(L, b, bb.nb);
		int64_t t = br;
		br = bc;
		bc = t;
		adjoint = !adjoint;
	}
	if (br != n)
		return lw_fail(L, "%s: B has %lld rows for a %lldx%lld LU", op,
		    (long long)br, (long long)n, (long long)n);
	if (la_broadcast(L, &ba, &bb, &bo) < 0)
		return -1;
	lu = la_expand(L, lu, &bo, n, n);
	b = la_expand(L, b, &bo, n, bc);
	ValId x = b;
	/* no columns: nothing to solve (ONNX Runtime refuses the gathers
	 * of the permutation on an empty B) */
	if (n > 0 && bc != 0) {
		ValId perm = la_pivots_perm(L, piv, n, n);
		if (!adjoint) {
			x = la_lu_solve(L, lu, perm, b, n);
		} else {
			/* U^T L^T P^T x = b */
			ValId t = la_mT(L, lu, bo.nb);
			ValId z = la_trsolve(L, t, b, n, false, false);
			z = la_trsolve(L, t, z, n, true, true);
			x = la_unpermute(L, z, perm);
		}
	}
	la_bind_out(L, 0, left ? x : la_mT(L, x, bo.nb));
	return lw_failed(L) ? -1 : 0;
}

/* linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False) */
static int
linalg_lu_solve(Lower *L)
{
	bool left = lw_bool(L, 3, "left", true);
	bool adj = lw_bool(L, 4, "adjoint", false);
	return lu_solve_common(L, 0, "LU", 1, "pivots", 2, "B", left, adj);
}

/* lu_solve(self=B, LU_data, LU_pivots) */
static int
lu_solve(Lower *L)
{
	return lu_solve_common(L, 1, "LU_data", 2, "LU_pivots", 0, "self", true,
	    false);
}

/* linalg_matrix_power(self, n): binary powering, inverse first when n < 0 */
static int
matrix_power(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId a;
	if (la_square_in(L, 0, "self", "linalg_matrix_power", &b, &n, &a) < 0)
		return -1;
	int64_t k = lw_int(L, 1, "n", 0);
	if (lw_failed(L))
		return -1;
	DType dt = lw_dtype(L, a);
	if (k == 0 || n == 0) {
		la_bind_out(L, 0, n ? la_eye(L, &b, n, dt) : a);
		return lw_failed(L) ? -1 : 0;
	}
	if (k < 0) {
		if (k == INT64_MIN)
			return lw_fail(L, "linalg_matrix_power: exponent too large");
		ValId lu, perm, piv;
		la_lu(L, a, b.nb, n, n, &lu, &perm, &piv);
		a = la_lu_solve(L, lu, perm, la_eye(L, &b, n, dt), n);
		k = -k;
	}
	ValId acc = 0;
	for (uint64_t e = (uint64_t)k; e; e >>= 1) {
		if (e & 1)
			acc = acc ? lw_op2(L, "MatMul", acc, a) : a;
		if (e > 1)
			a = lw_op2(L, "MatMul", a, a);
	}
	la_bind_out(L, 0, acc);
	return lw_failed(L) ? -1 : 0;
}

/* linalg_tensorinv(self, ind=2), linalg_tensorsolve(self, other, dims=None)
 * (lower_linalg_core.c) */
static int tensorinv(Lower *L) { return la_tensorinv(L); }
static int tensorsolve(Lower *L) { return la_tensorsolve(L); }

/* linalg_householder_product(input, tau), linalg_qr(A, mode='reduced') */
static int householder_product(Lower *L) { return la_householder_product(L); }
static int qr(Lower *L) { return la_qr(L); }

/* matrix_exp(self), linalg_matrix_exp(self) */
static int
matrix_exp(Lower *L)
{
	LaBatch b;
	int64_t n;
	ValId a;
	if (la_square_in(L, 0, "self", "matrix_exp", &b, &n, &a) < 0)
		return -1;
	la_bind_out(L, 0, n ? la_matrix_exp(L, a, &b, n) : a);
	return lw_failed(L) ? -1 : 0;
}

/* svd and eigh (every overload): the values by Jacobi iteration in a
 * Loop, the vectors refused (lower_linalg_spec.c) */
static int
spectral(Lower *L)
{
	const char *op = ir_str(L->m, lw_node(L)->op);
	return strstr(op, "eig") ? la_eigh(L) : la_svd_rule(L);
}

/* linalg_pinv, pinverse, linalg_matrix_rank, linalg_cond,
 * linalg_matrix_sqrth (lower_linalg_spec.c) */
static int pinv(Lower *L) { return la_pinv(L); }
static int matrix_rank(Lower *L) { return la_matrix_rank(L); }
static int cond(Lower *L) { return la_cond(L); }
static int matrix_sqrth(Lower *L) { return la_matrix_sqrth(L); }
/* geqrf, ormqr (lower_linalg_qr.c), linalg_vander (lower_linalg_spec.c) */
static int geqrf(Lower *L) { return la_geqrf(L); }
static int ormqr(Lower *L) { return la_ormqr(L); }
static int vander(Lower *L) { return la_vander(L); }
/* linalg_polar (lower_linalg_spec.c) */
static int polar(Lower *L) { return la_polar(L); }
/* linalg_ldl_factor(_ex), linalg_ldl_solve (lower_linalg_ldl.c) */
static int ldl_factor(Lower *L) { return la_ldl_factor(L); }
static int ldl_solve(Lower *L) { return la_ldl_solve(L); }

/* higher_order::with_effects(token, op, args...): only the effect of
 * _linalg_check_errors, which raises in PyTorch when an info is not zero
 * (a singular matrix, one not positive definite).  ONNX cannot raise, so
 * the check is dropped: on such input the model gives the inf/NaN the
 * factorization computes where PyTorch would stop with an error; valid
 * input gives the same numbers.  The token output has no ONNX value. */
static int
with_effects(Lower *L)
{
	const Arg *op = lw_arg(L, 1, NULL);
	const char *name = op && op->kind == A_OP ? ir_str(L->m, op->u.s) : "";
	if (!strstr(name, "_linalg_check_errors"))
		return lw_fail(L, "with_effects of '%s' is not supported: only "
		    "the linalg error checks are dropped", name);
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_linalg LW_THIS
const LowerRule lw_rules_linalg[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
