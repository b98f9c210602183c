/* compute.c - inside the fold plugin: ONNX Slice and ScatterElements (no
 * reduction) of constants: data movement, exact for every dtype.  The
 * elementwise ops, Where, Expand and Gather are onnx_math.c's. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

static int
is_int(const Ten *t)
{
	return t->dt == ONNXC_DT_I64 || t->dt == ONNXC_DT_I32;
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
		int64_t ax = na > 2 ? fold_geti(a[2], j) : (int64_t)j;
		int64_t sp = na > 3 ? fold_geti(a[3], j) : 1;
		ax += ax < 0 ? x->rank : 0;
		if (ax < 0 || ax >= x->rank || sp == 0)
			return SKIP;
		int64_t d = x->dims[ax], s = fold_geti(a[0], j), e = fold_geti(a[1], j);
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
	if (fold_shape_view(f, r, x->dt, x->rank, dims) != DONE)
		return SKIP;
	return fold_gather(f, x, r, st, base);
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
		int64_t v = fold_geti(idx, k), off = 0;
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

int
fold_onnx_compute(Fold *f, const char *op, onnxc_node n,
    const onnxc_node_info *ni, Ten *r)
{
	Ten t[5];
	const Ten *p[5];
	onnxc_arg a;
	uint32_t k = ni->npos < 5 ? ni->npos : 5;
	int sl = strcmp(op, "Slice") == 0;
	if (!sl && strcmp(op, "ScatterElements") != 0)
		return SKIP;
	for (uint32_t i = 0; i < k; i++) {
		if (!fold_onnx_input(f, n, ni, i, &t[i]))
			return SKIP;
		p[i] = &t[i];
	}
	if (sl)
		return k >= 3 ? slice(f, p[0], p + 1, (int)k - 1, r) : SKIP;
	int64_t axis = fold_onnx_attr(f, n, ni, "axis", &a) &&
	    a.kind == ONNXC_ARG_INT ? a.i : 0;
	return k == 3 && !fold_onnx_attr(f, n, ni, "reduction", &a) ?
	    scatter(f, p[0], p[1], p[2], axis, r) : SKIP;
}
