/* compute.c - inside the fold plugin: ONNX ops on constants that compute
 * values rather than shapes: Expand, Slice, Gather, ScatterElements
 * (no reduction), Where, Equal, Not, and Add, Sub, Mul, Div (through
 * fold_arith).  Each is data movement or one exact operation per element.
 * A result more than 2^20 elements big and bigger than its operands
 * together is left alone: folding it would only grow the model. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

enum { GROW = 1 << 20 };

/* An int64 or int32 element of t as int64. */
static int64_t
int_at(const Ten *t, uint64_t i)
{
	if (t->dt == ONNXC_DT_I32) {
		int32_t v;
		memcpy(&v, (const char *)t->data + 4 * i, 4);
		return v;
	}
	int64_t v;
	memcpy(&v, (const char *)t->data + 8 * i, 8);
	return v;
}

static int
is_int(const Ten *t)
{
	return t->dt == ONNXC_DT_I64 || t->dt == ONNXC_DT_I32;
}

/* The broadcast shape of in[0..n) into r (dtype dt) with each operand's
 * strides over r (0 along broadcast dims), and r's storage. */
static int
bcast(Fold *f, const Ten *const *in, int n, uint32_t dt, Ten *r,
    int64_t st[][MAXRANK])
{
	int rank = 0;
	int64_t dims[MAXRANK], s[MAXRANK];
	uint64_t total = 0;
	for (int k = 0; k < n; k++) {
		rank = in[k]->rank > rank ? in[k]->rank : rank;
		total += in[k]->numel;
	}
	for (int i = 0; i < rank; i++) {
		dims[i] = 1;
		for (int k = 0; k < n; k++) {
			int j = i - (rank - in[k]->rank);
			int64_t d = j >= 0 ? in[k]->dims[j] : 1;
			if (d != 1 && dims[i] != 1 && d != dims[i])
				return SKIP;
			dims[i] = d != 1 ? d : dims[i];
		}
	}
	for (int k = 0; k < n; k++) {
		fold_strides(in[k], s);
		for (int i = 0; i < rank; i++) {
			int j = i - (rank - in[k]->rank);
			st[k][i] = j >= 0 && in[k]->dims[j] == dims[i] &&
			    dims[i] != 1 ? s[j] : 0;
		}
	}
	if (fold_shape(f, r, dt, rank, dims) != DONE ||
	    (r->numel > GROW && r->numel > total))
		return SKIP;
	return fold_storage(f, r);
}

/* Offsets of element k of a result of `rank` dims in n operands: the
 * odometer advances idx and off together. */
static void
advance(int rank, const int64_t *dims, int64_t *idx, int n,
    int64_t st[][MAXRANK], int64_t *off)
{
	for (int d = rank - 1; d >= 0; d--) {
		for (int k = 0; k < n; k++)
			off[k] += st[k][d];
		if (++idx[d] < dims[d])
			return;
		for (int k = 0; k < n; k++)
			off[k] -= st[k][d] * dims[d];
		idx[d] = 0;
	}
}

static int
expand(Fold *f, const Ten *x, const Ten *shape, Ten *r)
{
	Ten s = {.dt = x->dt, .rank = (int)shape->numel, .numel = 1};
	int64_t st[1][MAXRANK];
	if (shape->dt != ONNXC_DT_I64 || shape->rank != 1 ||
	    shape->numel > MAXRANK)
		return SKIP;
	for (int i = 0; i < s.rank; i++) {
		s.dims[i] = int_at(shape, (uint64_t)i);
		if (s.dims[i] < 0)
			return SKIP;
		s.numel *= (uint64_t)s.dims[i];
	}
	/* the shape's operand takes no room: only x's strides matter */
	const Ten *in[2] = {x, &s};
	int64_t both[2][MAXRANK];
	int rc = bcast(f, in, 2, x->dt, r, both);
	if (rc != DONE)
		return rc;
	memcpy(st[0], both[0], sizeof st[0]);
	free(r->own);
	r->own = NULL;
	return fold_gather(f, x, r, st[0], 0);
}

/* ONNX Slice on constant starts, ends, axes and steps. */
static int
slice(Fold *f, const Ten *x, const Ten *const *a, int na, Ten *r)
{
	int64_t st[MAXRANK], start[MAXRANK], step[MAXRANK], dims[MAXRANK];
	int64_t base = 0;
	uint64_t k = a[0]->numel;
	fold_strides(x, st);
	for (int i = 0; i < x->rank; i++) {
		start[i] = 0;
		step[i] = 1;
		dims[i] = x->dims[i];
	}
	for (int i = 0; i < na; i++)
		if (!is_int(a[i]) || a[i]->rank != 1 || a[i]->numel != k)
			return SKIP;
	for (uint64_t j = 0; j < k; j++) {
		int64_t ax = na > 2 ? int_at(a[2], j) : (int64_t)j;
		int64_t sp = na > 3 ? int_at(a[3], j) : 1;
		ax += ax < 0 ? x->rank : 0;
		if (ax < 0 || ax >= x->rank || sp == 0)
			return SKIP;
		int64_t d = x->dims[ax], s = int_at(a[0], j), e = int_at(a[1], j);
		s += s < 0 ? d : 0;
		e += e < 0 ? d : 0;
		if (sp > 0) {
			s = s < 0 ? 0 : s > d ? d : s;
			e = e < 0 ? 0 : e > d ? d : e;
		} else {
			s = s < 0 ? -1 : s > d - 1 ? d - 1 : s;
			e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
		}
		int64_t len = sp > 0 ? (e - s + sp - 1) / sp : (s - e - sp - 1) /
		    -sp;
		start[ax] = s;
		step[ax] = sp;
		dims[ax] = len < 0 ? 0 : len;
	}
	for (int i = 0; i < x->rank; i++) {
		base += start[i] * st[i];
		st[i] *= step[i];
	}
	if (fold_shape(f, r, x->dt, x->rank, dims) != DONE)
		return SKIP;
	return fold_gather(f, x, r, st, base);
}

static int
gather(Fold *f, const Ten *x, const Ten *idx, int64_t axis, Ten *r)
{
	int64_t dims[MAXRANK];
	int rank = 0;
	axis += axis < 0 ? x->rank : 0;
	if (!is_int(idx) || axis < 0 || axis >= x->rank ||
	    x->rank + idx->rank - 1 > MAXRANK)
		return SKIP;
	for (int i = 0; i < axis; i++)
		dims[rank++] = x->dims[i];
	for (int i = 0; i < idx->rank; i++)
		dims[rank++] = idx->dims[i];
	for (int i = (int)axis + 1; i < x->rank; i++)
		dims[rank++] = x->dims[i];
	if (fold_shape(f, r, x->dt, rank, dims) != DONE ||
	    (r->numel > GROW && r->numel > x->numel + idx->numel))
		return SKIP;
	uint64_t outer = 1, inner = 1, d = (uint64_t)x->dims[axis];
	for (int i = 0; i < axis; i++)
		outer *= (uint64_t)x->dims[i];
	for (int i = (int)axis + 1; i < x->rank; i++)
		inner *= (uint64_t)x->dims[i];
	for (uint64_t j = 0; j < idx->numel; j++) {
		int64_t v = int_at(idx, j);
		if (v < -(int64_t)d || v >= (int64_t)d)
			return SKIP; /* ONNX Runtime would refuse it */
	}
	if (fold_storage(f, r) != DONE)
		return FAIL;
	size_t es = fold_elsize(x->dt), blk = (size_t)inner * es;
	char *out = r->own;
	for (uint64_t o = 0; o < outer; o++)
		for (uint64_t j = 0; j < idx->numel; j++) {
			int64_t v = int_at(idx, j);
			v += v < 0 ? (int64_t)d : 0;
			memcpy(out, (const char *)x->data + (o * d +
			    (uint64_t)v) * blk, blk);
			out += blk;
		}
	return DONE;
}

/* ScatterElements without reduction: a copy of x with updates written
 * where indices point along axis (the last write wins, as in ONNX
 * Runtime's sequential loop). */
static int
scatter(Fold *f, const Ten *x, const Ten *idx, const Ten *upd, int64_t axis,
    Ten *r)
{
	int64_t sx[MAXRANK], idxs[MAXRANK] = {0};
	axis += axis < 0 ? x->rank : 0;
	if (!is_int(idx) || upd->dt != x->dt || idx->rank != x->rank ||
	    upd->rank != x->rank || axis < 0 || axis >= x->rank)
		return SKIP;
	for (int i = 0; i < x->rank; i++)
		if (idx->dims[i] != upd->dims[i] || (i != axis &&
		    idx->dims[i] > x->dims[i]))
			return SKIP;
	if (fold_shape(f, r, x->dt, x->rank, x->dims) != DONE)
		return SKIP;
	if (fold_storage(f, r) != DONE)
		return FAIL;
	memcpy(r->own, x->data, x->numel * fold_elsize(x->dt));
	fold_strides(x, sx);
	size_t es = fold_elsize(x->dt);
	for (uint64_t k = 0; k < idx->numel; k++) {
		int64_t v = int_at(idx, k), off = 0;
		if (v < -x->dims[axis] || v >= x->dims[axis])
			return SKIP;
		v += v < 0 ? x->dims[axis] : 0;
		for (int i = 0; i < x->rank; i++)
			off += (i == axis ? v : idxs[i]) * sx[i];
		memcpy((char *)r->own + (size_t)off * es,
		    (const char *)upd->data + k * es, es);
		for (int d = x->rank - 1; d >= 0 && ++idxs[d] == idx->dims[d];
		    d--)
			idxs[d] = 0;
	}
	return DONE;
}

/* Where(c, a, b), Equal(a, b) and Not(a), elementwise with broadcasting. */
static int
select3(Fold *f, int op, const Ten *const *in, int n, Ten *r)
{
	int64_t st[3][MAXRANK], idx[MAXRANK] = {0}, off[3] = {0};
	uint32_t dt = op == 'W' ? in[1]->dt : ONNXC_DT_BOOL;
	size_t es = fold_elsize(op == 'W' ? dt : in[0]->dt);
	if ((op != 'E' && in[0]->dt != ONNXC_DT_BOOL) ||
	    (op == 'W' && in[2]->dt != dt) || (op == 'E' && in[1]->dt !=
	    in[0]->dt) || !es)
		return SKIP;
	int rc = bcast(f, in, n, dt, r, st);
	if (rc != DONE)
		return rc;
	const unsigned char *p[3] = {in[0]->data, n > 1 ? in[1]->data : NULL,
	    n > 2 ? in[2]->data : NULL};
	unsigned char *out = r->own;
	for (uint64_t k = 0; k < r->numel; k++) {
		if (op == 'N') {
			out[k] = !p[0][off[0]];
		} else if (op == 'W') {
			int c = p[0][off[0]] != 0;
			memcpy(out + k * es, c ? p[1] + (size_t)off[1] * es :
			    p[2] + (size_t)off[2] * es, es);
		} else if (in[0]->dt == ONNXC_DT_F32) {
			float a, b;
			memcpy(&a, p[0] + (size_t)off[0] * 4, 4);
			memcpy(&b, p[1] + (size_t)off[1] * 4, 4);
			out[k] = a == b;
		} else if (in[0]->dt == ONNXC_DT_F64) {
			double a, b;
			memcpy(&a, p[0] + (size_t)off[0] * 8, 8);
			memcpy(&b, p[1] + (size_t)off[1] * 8, 8);
			out[k] = a == b;
		} else {   /* integers and bools: the bytes say it */
			out[k] = !memcmp(p[0] + (size_t)off[0] * es,
			    p[1] + (size_t)off[1] * es, es);
		}
		advance(r->rank, r->dims, idx, n, st, off);
	}
	return DONE;
}

int
fold_onnx_compute(Fold *f, const char *op, onnxc_node n,
    const onnxc_node_info *ni, Ten *r)
{
	static const char *const arith[] = {"Add", "Sub", "Mul", "Div"};
	Ten t[5];
	const Ten *p[5];
	onnxc_arg a;
	uint32_t k = ni->npos < 5 ? ni->npos : 5;
	for (uint32_t i = 0; i < k; i++) {
		if (!fold_onnx_input(f, n, ni, i, &t[i]))
			return SKIP;
		p[i] = &t[i];
	}
	int64_t axis = fold_onnx_attr(f, n, ni, "axis", &a) &&
	    a.kind == ONNXC_ARG_INT ? a.i : 0;
	for (int i = 0; i < 4; i++)
		if (strcmp(op, arith[i]) == 0)
			return k == 2 ? fold_arith(f, ADD + i, p[0], p[1], 0, 0,
			    r) : SKIP;
	if (strcmp(op, "Expand") == 0)
		return k == 2 ? expand(f, p[0], p[1], r) : SKIP;
	if (strcmp(op, "Slice") == 0)
		return k >= 3 ? slice(f, p[0], p + 1, (int)k - 1, r) : SKIP;
	if (strcmp(op, "Gather") == 0)
		return k == 2 ? gather(f, p[0], p[1], axis, r) : SKIP;
	if (strcmp(op, "ScatterElements") == 0)
		return k == 3 && !fold_onnx_attr(f, n, ni, "reduction", &a) ?
		    scatter(f, p[0], p[1], p[2], axis, r) : SKIP;
	if (strcmp(op, "Where") == 0)
		return k == 3 ? select3(f, 'W', p, 3, r) : SKIP;
	if (strcmp(op, "Equal") == 0)
		return k == 2 ? select3(f, 'E', p, 2, r) : SKIP;
	if (strcmp(op, "Not") == 0)
		return k == 1 ? select3(f, 'N', p, 1, r) : SKIP;
	return SKIP;
}
