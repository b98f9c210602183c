/* pt2_view.c - an archive's parameters, buffers and constants as
 * initializers.  A tensor is its storage's bytes (a stored zip entry, used
 * in place) seen through sizes, strides and a storage offset, all checked
 * against the storage's length; a contiguous view points into the mapped
 * archive, any other view is materialized once.  Both layouts (configs,
 * pt2_weights.c; pickles, pt2_pickle.c) bind through pt2_bind_each.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2_int.h"
#include "safetensors.h"

enum { MAXRANK = 64 };

static void
own(Pt2 *a, void *p)
{
	vgrow((void **)&a->owned, &a->cowned, a->nowned + 1, sizeof *a->owned);
	a->owned[a->nowned++] = p;
}

void
pt2_weights_free(Pt2 *a)
{
	for (uint32_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
	a->owned = NULL;
	a->nowned = a->cowned = 0;
}

static bool
mul_ok(uint64_t x, uint64_t y, uint64_t *out)
{
	if (y && x > UINT64_MAX / y)
		return false;
	*out = x * y;
	return true;
}

/* The view v over storage st[0..stlen) into *t (name set by the caller).
 * Returns an error message, or NULL. */
const char *
pt2_view(Pt2 *a, Pt2View *v, const unsigned char *st, uint64_t stlen,
    Tensor *t)
{
	(void)a;
	size_t es = ir_dtype_size((DType)v->dtype);
	if (!v->dtype)
		return "unknown dtype";
	if (!es)
		return "sub-byte dtypes are not read from archives";
	if (v->rank < 0 || v->rank > MAXRANK)
		return "rank out of range";
	uint64_t numel = 1, extent = 0; /* extent: last element + 1 */
	bool contiguous = true;
	uint64_t want = 1;
	for (int32_t i = v->rank; i-- > 0;) {
		if (v->sizes[i] < 0)
			return "negative size";
		if (v->strides[i] < 0)
			return "negative stride";
		if (!mul_ok(numel, (uint64_t)v->sizes[i], &numel))
			return "size overflows";
		if (v->sizes[i] > 1 && (uint64_t)v->strides[i] != want)
			contiguous = false;
		if (v->sizes[i] > 1 && !mul_ok(want, (uint64_t)v->sizes[i],
		    &want))
			return "size overflows";
	}
	if (v->offset < 0)
		return "negative storage offset";
	/* the offset alone must lie in the storage, an empty view's too:
	 * st + offset is formed below */
	extent = (uint64_t)v->offset;
	if (numel) {
		extent++;
		for (int32_t i = 0; i < v->rank; i++) {
			uint64_t span;
			if (!mul_ok((uint64_t)(v->sizes[i] - 1),
			    (uint64_t)v->strides[i], &span) ||
			    extent + span < extent)
				return "strides overflow";
			extent += span;
		}
	}
	uint64_t nbytes, need;
	if (!mul_ok(numel, es, &nbytes) || !mul_ok(extent, es, &need))
		return "size overflows";
	if (need > stlen)
		return "sizes, strides and storage offset reach past the "
		    "end of its storage";
	t->dtype = v->dtype;
	t->rank = v->rank;
	t->dims = (int64_t *)v->sizes;
	t->nbytes = nbytes;
	v->strided = !contiguous && numel;
	v->st = st;
	t->data = v->strided ? NULL : st + (uint64_t)v->offset * es;
	return NULL;
}

const char *
pt2_view_copy(Pt2 *a, const Pt2View *v, Tensor *t)
{
	size_t es = ir_dtype_size((DType)v->dtype);
	uint64_t numel = t->nbytes / es;
	if (t->nbytes > a->copy_left)
		return "a strided view that makes more bytes than the "
		    "archive holds (a stride of 0 repeating its storage?): "
		    "refused rather than copied";
	unsigned char *out = malloc(t->nbytes);
	if (!out)
		return "out of memory copying a strided tensor";
	a->copy_left -= t->nbytes;
	own(a, out);
	int64_t idx[MAXRANK] = {0};
	for (uint64_t k = 0; k < numel; k++) {
		uint64_t off = (uint64_t)v->offset;
		for (int32_t i = 0; i < v->rank; i++)
			off += (uint64_t)idx[i] * (uint64_t)v->strides[i];
		memcpy(out + k * es, v->st + off * es, es);
		for (int32_t i = v->rank; i-- > 0;) {
			if (++idx[i] < v->sizes[i])
				break;
			idx[i] = 0;
		}
	}
	t->data = out;
	return NULL;
}

static bool
isweight(const Value *val)
{
	return val->role == ROLE_PARAM || val->role == ROLE_BUFFER ||
	    val->role == ROLE_CONST;
}

int
pt2_bind_each(Pt2 *a, GraphId gid, Pt2Find find, void *ctx)
{
	Module *m = a->m;
	StSymNote note = {0};
	int rc = 0;
	Graph *g = ir_graph(m, gid);
	for (uint32_t i = 0; rc == 0 && i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		Value *val = ir_val(g, v);
		if (!isweight(val))
			continue;
		StrId tg = val->target ? val->target : val->name;
		Tensor t = {.name = tg};
		Pt2View view; /* t's dims live here until bound */
		view.strided = false;
		int found = find(a, ctx, tg, &t, &view);
		if (found == 0) {
			m->file = a->path;
			ir_error(m, (Loc){0, 0}, "the archive has no tensor "
			    "'%s' (needed by input '%s')", ir_str(m, tg),
			    ir_str(m, val->name));
		}
		/* the shape is checked before a strided view is copied */
		if (found <= 0 || st_bind_value(m, gid, v, &t, a->path,
		    &note) < 0)
			rc = -1;
		g = ir_graph(m, gid);
		const char *why = rc == 0 && view.strided ?
		    pt2_view_copy(a, &view, &t) : NULL;
		if (why) {
			m->file = a->path;
			ir_error(m, (Loc){0, 0}, "tensor '%s': %s",
			    ir_str(m, tg), why);
			rc = -1;
		} else if (rc == 0 && view.strided) {
			m->tensors[ir_val(g, v)->init].data = t.data;
		}
	}
	st_sym_note(m, &note, a->path);
	return rc;
}
