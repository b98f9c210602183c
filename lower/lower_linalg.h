/* lower_linalg.h - small dense linear algebra as unrolled ONNX graphs
 * (lower_linalg_core.c), for the rules of lower_linalg.c.
 *
 * ONNX has no LU, triangular solve or Cholesky, so each is emitted as
 * one step per row/column over matrices whose sizes are static and
 * small (LA_MAXN): every matrix value is [batch..., rows, cols] with the
 * batch dims (la->nb of them) and the two matrix dims known here.
 * Eigenvalues and singular values iterate until convergence: Jacobi
 * sweeps in an ONNX Loop (lower_linalg_eig.c), the rules on them in
 * lower_linalg_spec.c. */
#ifndef ONNXC_LOWER_LINALG_H
#define ONNXC_LOWER_LINALG_H

#include "lower.h"

/* the largest matrix side unrolled: each step is ~15 nodes */
enum { LA_MAXN = 64 };

typedef struct LaBatch {
	int nb;                    /* batch rank */
	int64_t d[LW_MAXRANK];     /* batch dims, -1 where symbolic */
	ValId shape;               /* with a symbolic dim: the batch [nb]
	                            * at run time, else 0 */
} LaBatch;

/* Shape of tensor arg i as batch dims (symbolic ones read at run time)
 * + the last two (static); the op name is for messages.  0, or -1 after
 * reporting. */
int la_matrix_arg(Lower *L, int i, const char *kw, const char *op,
    LaBatch *b, int64_t *rows, int64_t *cols);
/* la_matrix_arg for the right-hand sides of a solve: the columns may be
 * symbolic (*cols = -1), they ride along */
int la_rhs_arg(Lower *L, int i, const char *kw, const char *op,
    LaBatch *b, int64_t *rows, int64_t *cols);
/* The prologue of most rules: la_matrix_arg, then the ONNX value of
 * the argument in *a.  0, or -1 after reporting. */
int la_matrix_in(Lower *L, int i, const char *kw, const char *op,
    LaBatch *b, int64_t *rows, int64_t *cols, ValId *a);
/* la_matrix_arg for a batch of square matrices of side *n */
int la_square_arg(Lower *L, int i, const char *kw, const char *op,
    LaBatch *b, int64_t *n);
/* la_square_arg, then the argument's ONNX value in *a */
int la_square_in(Lower *L, int i, const char *kw, const char *op,
    LaBatch *b, int64_t *n, ValId *a);
/* -1 after reporting when batch b has a symbolic dim (the rules that
 * iterate per matrix, or type their subgraphs, need static batches) */
int la_static(Lower *L, const LaBatch *b, const char *op);
/* the batch as a 1-D INT64 value: b->shape, or a constant */
ValId la_batch_shape(Lower *L, const LaBatch *b);
/* Broadcast batch of a and b (torch's rule); -1 after reporting. */
int la_broadcast(Lower *L, const LaBatch *a, const LaBatch *b, LaBatch *out);
/* x expanded to batch b + [r, c] (c < 0: x's own columns). */
ValId la_expand(Lower *L, ValId x, const LaBatch *b, int64_t r, int64_t c);
/* x[..., k:k+1, :] (axis -2) or x[..., :, k:k+1] (axis -1) */
ValId la_take(Lower *L, ValId x, int64_t axis, int64_t k);
/* swap the last two dims of a value of rank nb + 2 */
ValId la_mT(Lower *L, ValId x, int nb);
/* the identity [n, n] of dtype dt expanded to batch b */
ValId la_eye(Lower *L, const LaBatch *b, int64_t n, DType dt);
/* a constant [r, c] BOOL mask: cell (i, j) is pred(i, j, k) */
ValId la_mask(Lower *L, int64_t r, int64_t c, int64_t k,
    bool (*pred)(int64_t i, int64_t j, int64_t k));
ValId la_where(Lower *L, ValId c, ValId x, ValId y);

/* LU with LAPACK getrf's partial pivoting (the first row of largest
 * magnitude; a zero pivot column is left unscaled) of a [.., m, n]:
 * *lu the packed factors, *perm [.., m] INT64 with lu = a[perm] row-wise
 * (L U = P^T a), *piv [.., min(m, n)] INT64 1-based pivots. */
void la_lu(Lower *L, ValId a, int nb, int64_t m, int64_t n, ValId *lu,
    ValId *perm, ValId *piv);
/* the diagonal [.., k] of x [.., m, n], k = min(m, n) > 0 */
ValId la_diag(Lower *L, ValId x, int nb, int64_t m, int64_t n);
/* getrf/potrf's info as INT32 [..]: 1 + the first index where bad
 * [.., k] is true, 0 if none */
ValId la_info(Lower *L, ValId bad);
/* x [.., n, k] solving t x = b for triangular t [.., n, n] (the other
 * triangle is not read); unit: ones on the diagonal, not read */
ValId la_trsolve(Lower *L, ValId t, ValId b, int64_t n, bool upper,
    bool unit);
/* x solving a x = b from la_lu's lu and perm (same batch as b) */
ValId la_lu_solve(Lower *L, ValId lu, ValId perm, ValId b, int64_t n);
/* lower Cholesky factor of a [.., n, n] from its lower triangle;
 * *bad [.., n] BOOL: the pivot of column j is not positive */
ValId la_cholesky(Lower *L, ValId a, int nb, int64_t n, ValId *bad);
/* the permutation matrix P [.., m, m] (a = P L U) of la_lu's perm */
ValId la_perm_matrix(Lower *L, ValId perm, int64_t m, DType dt);

/* x[.., rows[i], :] for a row order rows [.., m] */
ValId la_gather_rows(Lower *L, ValId x, ValId rows);
/* the row order [.., m] of LAPACK pivots piv [.., k] (1-based, any int) */
ValId la_pivots_perm(Lower *L, ValId piv, int64_t m, int64_t k);
/* x with x[perm[i]] = w[i] (rows), i.e. P w */
ValId la_unpermute(Lower *L, ValId w, ValId perm);
/* the unit lower L [.., m, k] and upper U [.., k, n] packed in lu */
void la_lu_split(Lower *L, ValId lu, int nb, int64_t m, int64_t n, ValId *lo,
    ValId *up);
/* exp of a [.., n, n] (batch b), n > 0 */
ValId la_matrix_exp(Lower *L, ValId a, const LaBatch *b, int64_t n);
/* FX output k, when the node has it, computed by v (cast to its dtype) */
void la_bind_out(Lower *L, int k, ValId v);
/* is FX output k of the node read (by a node or as a graph output)? */
bool la_out_used(Lower *L, int k);
/* eigenvalues [.., n] ascending and eigenvectors [.., n, n] (columns)
 * of the symmetric a [.., n, n], n > 0, both float64: cyclic Jacobi in a
 * Loop (lower_linalg_eig.c) */
void la_jacobi(Lower *L, ValId a, const LaBatch *b, int64_t n, ValId *vals,
    ValId *vecs);
/* singular values s [.., k] descending of a [.., m, n] (m, n > 0,
 * k = min(m, n)) and, where u / v are not NULL, singular vectors
 * u [.., m, k], v [.., n, k] (meaningful where s > 0), all float64 */
void la_svd(Lower *L, ValId a, const LaBatch *b, int64_t m, int64_t n,
    ValId *s, ValId *u, ValId *v);
/* whole rules, kept here for the size of lower_linalg.c */
int la_tensorinv(Lower *L);
int la_tensorsolve(Lower *L);
int la_householder_product(Lower *L);
int la_qr(Lower *L);
int la_eigh(Lower *L);
int la_svd_rule(Lower *L);
int la_pinv(Lower *L);
int la_matrix_rank(Lower *L);
int la_cond(Lower *L);
int la_matrix_sqrth(Lower *L);
int la_geqrf(Lower *L);
int la_ormqr(Lower *L);
int la_vander(Lower *L);
int la_polar(Lower *L);
/* linalg_ldl_factor(_ex), linalg_ldl_solve (lower_linalg_ldl.c) */
int la_ldl_factor(Lower *L);
int la_ldl_solve(Lower *L);

#endif
