/* matmuls.c - pass "merge-matmuls": MatMuls of one input by constant
 * weights side by side are one MatMul by the weights put side by side,
 * then a Split (attention's query, key and value projections).
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition; opset 13 or later (Split's sizes as an input).
 * Provides (onnxc/rewrite.h): two to MAXMERGE MatMul(x, W_i) of one x
 * (f32, rank >= 2), each W_i an f32 constant [K, N_i] and no result a
 * graph output, become Split(MatMul(x, [W_1 ... W_n]), [N_1 ... N_n],
 * axis -1); so do MatMuls by Transpose(V_i), V_i an f32 constant
 * [N_i, K] (a Linear's weight, which fold leaves transposed from 1 MiB
 * on): MatMul(x, Transpose(V)), V the V_i one after another, whose
 * Transpose ONNX Runtime folds when it loads the model.  Where every MatMul's one user is Add with an f32 constant
 * [N_i] (either operand order), the Adds go in too:
 * Split(Add(MatMul(x, W), [b_1 ... b_n])).  Each output column is the
 * same dot product as before: results change by float rounding at most
 * (the kernel's blocking).  One wide MatMul keeps x in cache once where
 * three read it three times: ONNX Runtime ran BERT-base's layers 4-7 %
 * faster so.  The new weight is made as it is written (onnxc_rw_concat),
 * never held whole.
 */
#include <stdio.h>

#include <onnxc/rewrite.h>

enum { MAXMERGE = 8 };

/* A MatMul this pass may merge, by its input x. */
typedef struct Cand {
	onnxc_value x;
	int transposed;      /* by Transpose(V): see weight_of */
	onnxc_node mm;
} Cand;

/* What a run learns in its one scan: groups of candidates, by node. */
typedef struct Scan {
	int done;
	Cand *c;
	uint32_t nc;
	uint32_t *first;     /* per node: 1 + index in c of its group's start */
	uint32_t *len;       /* per node that starts a group: its size */
	onnxc_node *add;     /* per value: the Add of a bias to it, or 0 */
	uint32_t nnodes, nvals;
} Scan;

static int
by_x(const void *a, const void *b)
{
	const Cand *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	if (p->transposed != q->transposed)
		return p->transposed - q->transposed;
	return p->mm < q->mm ? -1 : p->mm > q->mm;
}

/* When MatMul node mm of x is a candidate: its weight's [K, N], the
 * constant holding it (W [K, N], or V [N, K] under a Transpose: then
 * *transposed is 1); else 0. */
static onnxc_value
weight_of(onnxc_rw *r, onnxc_node mm, const onnxc_node_info *ni,
    int64_t kn[2], int *transposed)
{
	onnxc_tensor_info t;
	onnxc_node_info ti;
	uint32_t dt;
	int32_t rank;
	onnxc_dim d[ONNXC_RW_MAXRANK];
	int64_t perm[2];
	onnxc_value x = onnxc_rw_in(r, mm, 0), w = onnxc_rw_in(r, mm, 1);
	onnxc_node tr = onnxc_rw_def(r, w, "Transpose", &ti);
	*transposed = tr != 0;
	if (tr) {
		int np = onnxc_rw_attr_ints(r, tr, "perm", perm, 2);
		if (np >= 0 && (np != 2 || perm[0] != 1 || perm[1] != 0))
			return 0;
		w = onnxc_rw_in(r, tr, 0);
	}
	if (ni->nout != 1 || ni->out >= r->nvals || r->isout[ni->out] ||
	    !onnxc_rw_f32(r, w, &t) || t.rank != 2 ||
	    !onnxc_rw_type(r, x, &dt, &rank, d) || dt != ONNXC_DT_F32 ||
	    rank < 2)
		return 0;
	kn[0] = t.dims[!!tr];
	kn[1] = t.dims[!tr];
	return w;
}

/* b when v + b (either order) at Add node a adds an f32 constant [n]. */
static onnxc_value
bias_of(onnxc_rw *r, onnxc_node a, onnxc_value v, int64_t n)
{
	onnxc_tensor_info t;
	onnxc_value p = onnxc_rw_in(r, a, 0), q = onnxc_rw_in(r, a, 1);
	onnxc_value b = p == v ? q : p;
	if ((p != v && q != v) || p == q || !onnxc_rw_f32(r, b, &t) ||
	    t.rank != 1 || t.dims[0] != n)
		return 0;
	return b;
}

static void
scan_free(Scan *s)
{
	free(s->c);
	free(s->first);
	free(s->len);
	free(s->add);
	memset(s, 0, sizeof *s);
}

/* The candidates, grouped by x (a sort: O(n log n)), and each one's bias
 * Add where it has one.  0 when out of memory. */
static int
scan(onnxc_rw *r, Scan *s)
{
	const onnxc_host_api *h = r->h;
	int64_t kn[2];
	int tr;
	s->done = 1;
	s->nnodes = h->node_end(r->ctx, r->g);
	s->nvals = r->nvals;
	s->c = calloc(s->nnodes + 1, sizeof *s->c);
	s->first = calloc(s->nnodes + 1, sizeof *s->first);
	s->len = calloc(s->nnodes + 1, sizeof *s->len);
	s->add = calloc((size_t)s->nvals + 1, sizeof *s->add);
	if (!s->c || !s->first || !s->len || !s->add)
		return 0;
	for (onnxc_node n = 1; n < s->nnodes; n++) {
		onnxc_node_info ni;
		if (h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK ||
		    ni.dialect != ONNXC_ONNX || ni.nout != 1 ||
		    ni.out >= r->nvals || r->frozen[ni.out])
			continue;
		if (onnxc_rw_is(r, &ni, "MatMul") && weight_of(r, n, &ni, kn,
		    &tr))
			s->c[s->nc++] = (Cand){onnxc_rw_in(r, n, 0), tr, n};
		if (!onnxc_rw_is(r, &ni, "Add") || r->isout[ni.out])
			continue;
		for (uint32_t i = 0; i < 2; i++) {
			onnxc_value v = onnxc_rw_in(r, n, i);
			if (v && v < s->nvals && onnxc_rw_single(r, v))
				s->add[v] = n;
		}
	}
	qsort(s->c, s->nc, sizeof *s->c, by_x);
	for (uint32_t i = 0, j; i < s->nc; i = j) {
		for (j = i + 1; j < s->nc && s->c[j].x == s->c[i].x &&
		    s->c[j].transposed == s->c[i].transposed; j++)
			;
		for (uint32_t k = i; k < j; k += MAXMERGE) {
			uint32_t n = j - k < MAXMERGE ? j - k : MAXMERGE;
			if (n < 2)
				break;
			s->len[s->c[k].mm] = n;
			for (uint32_t m = k; m < k + n; m++)
				s->first[s->c[m].mm] = k + 1;
		}
	}
	return 1;
}

/* The Add of bias b (an f32 [total] made of bias[0..n)) to y, standing
 * for Add node like; its result, or 0. */
static onnxc_value
add_bias(onnxc_rw *r, onnxc_value y, const onnxc_value *bias,
    const int64_t *cols, uint32_t n, int64_t total, onnxc_node like)
{
	onnxc_tensor_info t;
	float *b = malloc((size_t)(total ? total : 1) * sizeof *b);
	int64_t at = 0;
	if (!b) {
		r->failed = 1;
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		const float *d = onnxc_rw_f32(r, bias[i], &t);
		memcpy(b + at, d, (size_t)cols[i] * sizeof *b);
		at += cols[i];
	}
	onnxc_value in[2] = {y, onnxc_rw_initializer(r, "merged_bias",
	    ONNXC_DT_F32, 1, &total, b)};
	free(b);
	onnxc_node a = in[1] ? onnxc_rw_emit(r, "Add", 2, in, 1, like) : 0;
	return a ? onnxc_rw_out(r, a, 0, 0) : 0;
}

/* Transpose(v), v an f32 [dims[0], dims[1]], typed. */
static onnxc_value
transpose(onnxc_rw *r, onnxc_value v, const int64_t dims[2],
    onnxc_node like)
{
	onnxc_dim d[2] = {{.n = dims[1]}, {.n = dims[0]}};
	onnxc_node t = onnxc_rw_emit(r, "Transpose", 1, &v, 1, like);
	onnxc_value y = t ? onnxc_rw_out(r, t, 0, 0) : 0;
	onnxc_rw_set_ints(r, t, "perm", (const int64_t[]){1, 0}, 2);
	if (y && r->h->value_set_type(r->ctx, r->g, y, ONNXC_DT_F32, 2, d) !=
	    ONNXC_OK)
		r->failed = 1;
	return r->failed ? 0 : y;
}

/* Merges the group of candidates c[0..n): see the contract above. */
static int
merge(onnxc_rw *r, const Scan *s, const Cand *c, uint32_t n)
{
	onnxc_rw_concat_part part[MAXMERGE];
	onnxc_value bias[MAXMERGE], out[MAXMERGE];
	onnxc_node adds[MAXMERGE];
	int64_t cols[MAXMERGE], k = -1, total = 0;
	onnxc_tensor_info t;
	onnxc_node_info ni;
	int biased = 1;
	onnxc_value w = 0;
	int tr = c[0].transposed, ti;
	for (uint32_t i = 0; i < n; i++) {
		int64_t kn[2];
		if (r->h->node_get(r->ctx, r->g, c[i].mm, &ni) != ONNXC_OK ||
		    !(w = weight_of(r, c[i].mm, &ni, kn, &ti)) || ti != tr ||
		    (k >= 0 && kn[0] != k))
			return 0;
		k = kn[0];
		cols[i] = kn[1];
		total += kn[1];
		/* side by side: a row of each in turn; stacked (V_i, [N_i,
		 * K]): each whole, one after another */
		part[i] = (onnxc_rw_concat_part){onnxc_rw_f32(r, w, &t),
		    (uint64_t)(tr ? kn[1] * kn[0] : kn[1])};
		out[i] = ni.out;
		adds[i] = s->add[ni.out];
		bias[i] = adds[i] ? bias_of(r, adds[i], ni.out, kn[1]) : 0;
		biased &= bias[i] != 0;
	}
	char name[300];
	onnxc_value_info vi;
	const char *wn = r->h->value_get(r->ctx, r->g, w, &vi) == ONNXC_OK ?
	    r->h->str(r->ctx, vi.name) : NULL;
	snprintf(name, sizeof name, "%s_merged", wn && *wn ? wn : "weight");
	int64_t dims[2] = {tr ? total : k, tr ? k : total};
	w = onnxc_rw_concat(r, name, dims, part, n);
	if (w && tr)
		w = transpose(r, w, dims, c[0].mm);
	onnxc_value in[2] = {c[0].x, w};
	onnxc_node m = w ? onnxc_rw_emit(r, "MatMul", 2, in, 1, c[0].mm) : 0;
	onnxc_value y = m ? onnxc_rw_out(r, m, 0, 0) : 0;
	if (y && biased) {
		y = add_bias(r, y, bias, cols, n, total, adds[0]);
		for (uint32_t i = 0; y && i < n; i++) {
			if (r->h->node_get(r->ctx, r->g, adds[i], &ni) !=
			    ONNXC_OK)
				return 0;
			out[i] = ni.out;
		}
	}
	/* the merged result's type: a part's, its last dim all the columns */
	uint32_t dt;
	int32_t rank;
	onnxc_dim d[ONNXC_RW_MAXRANK];
	if (!y || !onnxc_rw_type(r, out[0], &dt, &rank, d))
		return 0;
	d[rank - 1] = (onnxc_dim){.n = total};
	if (r->h->value_set_type(r->ctx, r->g, y, dt, rank, d) != ONNXC_OK)
		r->failed = 1;
	int64_t len = n;
	onnxc_value sv[2] = {y, onnxc_rw_initializer(r, "merged_split",
	    ONNXC_DT_I64, 1, &len, cols)};
	onnxc_node sp = sv[1] ? onnxc_rw_emit(r, "Split", 2, sv, n, c[0].mm) :
	    0;
	onnxc_rw_set_i(r, sp, "axis", -1);
	for (uint32_t i = 0; sp && i < n; i++)
		onnxc_rw_replace(r, out[i], onnxc_rw_out(r, sp, i, out[i]));
	return sp != 0;
}

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	Scan *s = r->user;
	if (!s->done && !scan(r, s)) {
		r->failed = 1;
		return 0;
	}
	if (!onnxc_rw_is(r, ni, "MatMul") || n >= s->nnodes || !s->len[n])
		return 0;
	return merge(r, s, &s->c[s->first[n] - 1], s->len[n]);
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	Scan s;
	(void)user;
	if (host->opset(ctx) < 13)
		return ONNXC_OK;
	memset(&s, 0, sizeof s);
	/* one round: the scan sees the graph as it was when it began */
	onnxc_status st = onnxc_rw_run_with(ctx, host, "merge-matmuls", visit,
	    1, &s);
	scan_free(&s);
	return st;
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "merge-matmuls",
	.summary = "MatMuls of one input by constant weights become one "
	    "MatMul by the weights side by side, then a Split",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(matmuls, "merge-matmuls", "1.0", init, NULL);
