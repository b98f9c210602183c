/* lower_linalg_eig.c - symmetric eigenvalues and singular values by the
 * cyclic Jacobi method, run in an ONNX Loop until the off-diagonal part
 * is negligible (LAPACK's syevd/gesdd also iterate until convergence; a
 * Loop's condition lets the graph do the same, with a bound on the number
 * of sweeps).  The work is in float64 whatever the input, so float32
 * results are rounded once from far more accurate values.
 *
 * One sweep rotates every pair (p, q) once, in n-1 rounds of disjoint
 * pairs (the round-robin order): the rotations of a round commute, so a
 * round is one matrix J and A <- J^T A J, V <- V J.
 *
 * Singular values of A [m, n] are the non-negative eigenvalues of the
 * symmetric [[0, A], [A^T, 0]]; its eigenvectors [u; v] / sqrt(2) give
 * the singular vectors.  Eigen- and singular vectors are unique only up
 * to sign (and to a basis of each repeated value's space), and LAPACK's
 * choice follows no rule a graph can reproduce, so outputs of vectors
 * are refused; values, and products that do not depend on that choice
 * (pinv, matrix_rank, cond, matrix_sqrth, norms), are lowered. */
#include "lower_linalg.h"
#include "lower_nn.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* sweeps at most: quadratic convergence needs well under 20 for the
 * sizes unrolled; the bound only stops a NaN or a pathological input */
enum { JAC_SWEEPS = 60 };

bool
la_out_used(Lower *L, int k)
{
	const Node *nd = lw_node(L);
	if ((uint32_t)k >= nd->nout)
		return false;
	ValId v = nd->out + (uint32_t)k;
	const Graph *g = L->src;
	for (uint32_t i = 0; i < g->nargs; i++)
		if (g->args[i].kind == A_VAL && g->args[i].u.v == v)
			return true;
	for (uint32_t i = 0; i < g->nitems; i++)
		if (g->items[i].kind == A_VAL && g->items[i].u.v == v)
			return true;
	for (uint32_t i = 0; i < g->noutputs; i++)
		if (g->outputs[i] == v)
			return true;
	return false;
}

/* a constant shape: batch b then the tail dims */
static ValId
shape_of(Lower *L, const LaBatch *b, const int64_t *tail, int nt)
{
	int64_t s[LW_MAXRANK + 2];
	memcpy(s, b->d, sizeof(int64_t) * (size_t)b->nb);
	memcpy(s + b->nb, tail, sizeof(int64_t) * (size_t)nt);
	return lw_const_i64s(L, s, b->nb + nt);
}

static ValId
gather_last(Lower *L, ValId x, const int64_t *idx, int64_t k)
{
	ValId in[2] = {x, lw_const(L, DT_I64, 1, &k, idx)};
	NodeId n = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, n, "axis", -1);
	return lw_typed(L, n, lw_dtype(L, x));
}

/* Round r of the round-robin over N (even) players: pairs p[i] < q[i]
 * of real indices (< n); returns how many. */
static int64_t
round_pairs(int64_t N, int64_t n, int64_t r, int64_t *p, int64_t *q)
{
	int64_t k = 0;
	for (int64_t i = 0; i < N / 2; i++) {
		int64_t x = i == 0 ? N - 1 : (r + i) % (N - 1);
		int64_t y = i == 0 ? r : (r - i + (N - 1)) % (N - 1);
		if (x >= n || y >= n)
			continue;
		p[k] = x < y ? x : y;
		q[k] = x < y ? y : x;
		k++;
	}
	return k;
}

/* One round of rotations on a and v [.., n, n] (float64): for each pair,
 * the rotation (c, s) of Numerical Recipes' jacobi that zeroes a[p][q]:
 * theta = (a_qq - a_pp) / (2 a_pq), t = sgn(theta) / (|theta| +
 * sqrt(theta^2 + 1)), t = 0 where a_pq is 0. */
static void
jac_round(Lower *S, ValId *a, ValId *v, const LaBatch *b, int64_t n,
    const int64_t *p, const int64_t *q, int64_t k)
{
	int64_t nn = n * n;
	int64_t *ipp = lw_scratch(S, (size_t)k, sizeof(int64_t));
	int64_t *iqq = lw_scratch(S, (size_t)k, sizeof(int64_t));
	int64_t *ipq = lw_scratch(S, (size_t)k, sizeof(int64_t));
	double *cm = lw_scratch(S, (size_t)(k * nn), sizeof(double));
	double *sm = lw_scratch(S, (size_t)(k * nn), sizeof(double));
	double *jc = lw_scratch(S, (size_t)nn, sizeof(double));
	bool *paired = lw_scratch(S, (size_t)n, sizeof(bool));
	for (int64_t i = 0; i < k; i++) {
		ipp[i] = p[i] * n + p[i];
		iqq[i] = q[i] * n + q[i];
		ipq[i] = p[i] * n + q[i];
		cm[i * nn + ipp[i]] = 1;
		cm[i * nn + iqq[i]] = 1;
		sm[i * nn + ipq[i]] = 1;
		sm[i * nn + q[i] * n + p[i]] = -1;
		paired[p[i]] = paired[q[i]] = true;
	}
	for (int64_t i = 0; i < n; i++)
		jc[i * n + i] = paired[i] ? 0 : 1;
	ValId flat = lw_reshape(S, *a, shape_of(S, b, &nn, 1));
	ValId app = gather_last(S, flat, ipp, k);
	ValId aqq = gather_last(S, flat, iqq, k);
	ValId apq = gather_last(S, flat, ipq, k);
	ValId zero = lw_scalar(S, 0, DT_F64), one = lw_scalar(S, 1, DT_F64);
	ValId isz = lw_op2t(S, "Equal", apq, zero, DT_BOOL);
	ValId den = lw_op2(S, "Mul", lw_scalar(S, 2, DT_F64),
	    la_where(S, isz, one, apq));
	ValId th = lw_op2(S, "Div", lw_op2(S, "Sub", aqq, app), den);
	ValId sg = la_where(S, lw_op2t(S, "Less", th, zero, DT_BOOL),
	    lw_scalar(S, -1, DT_F64), one);
	ValId r = lw_op1(S, "Sqrt", lw_op2(S, "Add", lw_op2(S, "Mul", th, th),
	    one));
	ValId t = lw_op2(S, "Div", sg, lw_op2(S, "Add", lw_op1(S, "Abs", th),
	    r));
	t = la_where(S, isz, zero, t);
	ValId c = lw_op1(S, "Reciprocal", lw_op1(S, "Sqrt", lw_op2(S, "Add",
	    lw_op2(S, "Mul", t, t), one)));
	ValId s = lw_op2(S, "Mul", t, c);
	int64_t kd[2] = {k, nn};
	ValId jf = lw_op2(S, "Add", lw_op2(S, "MatMul", c,
	    lw_const(S, DT_F64, 2, kd, cm)), lw_op2(S, "MatMul", s,
	    lw_const(S, DT_F64, 2, kd, sm)));
	jf = lw_op2(S, "Add", jf, lw_const(S, DT_F64, 1, &nn, jc));
	int64_t sq[2] = {n, n};
	ValId j = lw_reshape(S, jf, shape_of(S, b, sq, 2));
	*a = lw_op2(S, "MatMul", lw_op2(S, "MatMul", la_mT(S, j, b->nb), *a),
	    j);
	*v = lw_op2(S, "MatMul", *v, j);
}

/* a new input of subgraph g */
static ValId
body_input(Lower *L, Graph *g, DType dt, const char *name)
{
	ValId v = ir_value(g, ir_intern(L->m, name));
	ir_set_tensor(g, v, dt, 0, NULL);
	ir_add_input(g, v);
	return v;
}

/* a new [.., n, n] float64 input of subgraph g */
static ValId
body_matrix(Lower *L, Graph *g, const LaBatch *b, int64_t n,
    const char *name)
{
	Dim d[LW_MAXRANK + 2];
	for (int i = 0; i < b->nb; i++)
		d[i] = (Dim){b->d[i], 0};
	d[b->nb] = d[b->nb + 1] = (Dim){n, 0};
	ValId v = ir_value(g, ir_intern(L->m, name));
	ir_set_tensor(g, v, DT_F64, b->nb + 2, d);
	ir_add_input(g, v);
	return v;
}

void
la_jacobi(Lower *L, ValId a, const LaBatch *b, int64_t n, ValId *vals,
    ValId *vecs)
{
	a = lw_cast(L, a, DT_F64);
	ValId eye = la_eye(L, b, n, DT_F64);
	if (n == 1) {
		int64_t ax = -1;
		*vals = lw_axes_op(L, "Squeeze", a, &ax, 1);
		*vecs = eye;
		return;
	}
	GraphId sub = lw_subgraph(L, "jacobi_sweep");
	Lower S = *L;
	S.dst = ir_graph(L->m, sub);
	S.dstid = sub;
	body_input(L, S.dst, DT_I64, "jacobi_iter");
	body_input(L, S.dst, DT_BOOL, "jacobi_cond");
	ValId ba = body_matrix(L, S.dst, b, n, "jacobi_a");
	ValId bv = body_matrix(L, S.dst, b, n, "jacobi_v");
	int64_t N = n + (n & 1);
	int64_t *p = lw_scratch(L, (size_t)N, sizeof(int64_t));
	int64_t *q = lw_scratch(L, (size_t)N, sizeof(int64_t));
	ValId x = ba, v = bv;
	for (int64_t r = 0; r < N - 1; r++) {
		int64_t k = round_pairs(N, n, r, p, q);
		jac_round(&S, &x, &v, b, n, p, q, k);
	}
	/* go on while some matrix of the batch has an off-diagonal part
	 * above 1e-13 of its Frobenius norm (rotations past that change
	 * nothing the results show) */
	ValId zero = lw_scalar(&S, 0, DT_F64);
	ValId x2 = lw_op2(&S, "Mul", x, x);
	ValId off = la_where(&S, lw_cast(&S, la_eye(&S, b, n, DT_F64), DT_BOOL),
	    zero, x2);
	ValId gap = lw_op2(&S, "Sub", lwn_reduce(&S, "ReduceSum", off, NULL, 0,
	    false), lw_op2(&S, "Mul", lwn_reduce(&S, "ReduceSum", x2, NULL, 0,
	    false), lw_scalar(&S, 1e-26, DT_F64)));
	ValId more = lw_op2t(&S, "Greater", gap, zero, DT_BOOL);
	lw_sub_output(L, sub, more);
	lw_sub_output(L, sub, x);
	lw_sub_output(L, sub, v);
	if (S.failed)
		L->failed = true;
	ValId in[4] = {lw_scalar_i64(L, JAC_SWEEPS),
	    lw_scalar_int(L, 1, DT_BOOL), a, eye};
	NodeId lp = lw_emit(L, "Loop", 4, in, 2);
	lw_attr_graph(L, lp, "body", sub);
	ValId fa = lw_res(L, lp, 0), fv = lw_res(L, lp, 1);
	lw_settype(L, fa, DT_F64);
	lw_settype(L, fv, DT_F64);
	/* ascending, as syevd gives them, the vectors' columns alike */
	ValId d = la_diag(L, fa, b->nb, n, n);
	ValId tin[2] = {d, lw_i64v(L, n)};
	NodeId tk = lw_emit(L, "TopK", 2, tin, 2);
	lw_attr_int(L, tk, "axis", -1);
	lw_attr_int(L, tk, "largest", 0);
	lw_attr_int(L, tk, "sorted", 1);
	*vals = lw_typed(L, tk, DT_F64);
	ValId idx = lw_res(L, tk, 1);
	lw_settype(L, idx, DT_I64);
	int64_t ax = -2;
	idx = lw_axes_op(L, "Unsqueeze", idx, &ax, 1);
	int64_t sq[2] = {n, n};
	idx = lw_op2(L, "Expand", idx, shape_of(L, b, sq, 2));
	ValId gin[2] = {fv, idx};
	NodeId ge = lw_emit(L, "GatherElements", 2, gin, 1);
	lw_attr_int(L, ge, "axis", -1);
	*vecs = lw_typed(L, ge, DT_F64);
}

void
la_svd(Lower *L, ValId a, const LaBatch *b, int64_t m, int64_t n, ValId *s,
    ValId *u, ValId *v)
{
	int64_t k = m < n ? m : n, mn = m + n;
	a = lw_cast(L, a, DT_F64);
	ValId z = lw_scalar(L, 0, DT_F64);
	ValId top[2] = {la_expand(L, z, b, m, m), a};
	ValId bot[2] = {la_mT(L, a, b->nb), la_expand(L, z, b, n, n)};
	ValId rows[2] = {lw_concat(L, top, 2, -1, DT_F64),
	    lw_concat(L, bot, 2, -1, DT_F64)};
	ValId h = lw_concat(L, rows, 2, -2, DT_F64);
	ValId w, vals;
	la_jacobi(L, h, b, mn, &vals, &w);
	/* the k largest, descending */
	int64_t *cols = lw_scratch(L, (size_t)k, sizeof(int64_t));
	for (int64_t i = 0; i < k; i++)
		cols[i] = mn - 1 - i;
	*s = lw_op1(L, "Abs", gather_last(L, vals, cols, k));
	if (!u && !v)
		return;
	ValId wk = lw_op2(L, "Mul", gather_last(L, w, cols, k),
	    lw_scalar(L, M_SQRT2, DT_F64));
	if (u)
		*u = lw_slice_const(L, wk, b->nb, 0, m, 1);
	if (v)
		*v = lw_slice_const(L, wk, b->nb, m, mn, 1);
}
