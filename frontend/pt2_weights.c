/* pt2_weights.c - an archive's parameters, buffers and constants as
 * initializers.  A tensor is its storage's bytes (a stored zip entry, used
 * in place) seen through sizes, strides and a storage offset, all checked
 * against the storage's length; a contiguous view points into the mapped
 * archive, any other view is materialized once.
 *
 * torch >= 2.7: ROOT/data/{weights,constants}/PROG_*_config.json name an
 * entry and a TensorMeta per tensor.  torch <= 2.6 (and use_pickle
 * entries): torch.save pickles, read by pickle.c.
 */
#include <stdlib.h>
#include <string.h>

#include "fx_int.h"
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

/* An int from {"as_int": n} */
static bool
asint(const JVal *v, int64_t *out)
{
	const JVal *u = json_get(v, "as_int");
	if (!u || !u->isint)
		return false;
	*out = u->i;
	return true;
}

/* TensorMeta (dtype, sizes, strides, storage_offset) into a view. */
static bool
meta_view(Module *m, const JVal *meta, Pt2View *v)
{
	const JVal *dt = json_get(meta, "dtype"), *sz = json_get(meta, "sizes"),
	    *st = json_get(meta, "strides"),
	    *so = json_get(meta, "storage_offset");
	if (!dt || !dt->isint || !json_is(sz, J_ARR) || !json_is(st, J_ARR) ||
	    sz->n != st->n || sz->n > MAXRANK) {
		pt2_err(m, meta, "tensor_meta needs a dtype and sizes and "
		    "strides of one length (at most %d)", MAXRANK);
		return false;
	}
	v->dtype = pt2_dtype(dt->i);
	if (!v->dtype) {
		pt2_err(m, dt, "unknown dtype code %lld", (long long)dt->i);
		return false;
	}
	v->rank = (int32_t)sz->n;
	for (uint32_t i = 0; i < sz->n; i++) {
		if (!asint(&sz->kids[i], &v->sizes[i]) ||
		    !asint(&st->kids[i], &v->strides[i])) {
			pt2_err(m, &sz->kids[i], "weights need numeric sizes "
			    "and strides");
			return false;
		}
	}
	v->offset = 0;
	if (so && !asint(so, &v->offset)) {
		pt2_err(m, so, "storage_offset must be {\"as_int\": N}");
		return false;
	}
	return true;
}

/* A config's "config" object, indexed by key. */
typedef struct Cfg {
	const JVal *cfg;
	const char *dir;  /* ROOT/data/weights/ */
	const char *file, *src;
	size_t srclen;
	StrMap keys;      /* StrId -> kid index + 1 */
} Cfg;

static int
load_cfg(Pt2 *a, Cfg *c, const char *kind)
{
	Module *m = a->m;
	size_t n = strlen(a->root) + strlen(a->prog) + 64;
	char *dir = arena_alloc(m->arena, n), *name = arena_alloc(m->arena, n);
	snprintf(dir, n, "%sdata/%s/", a->root, kind);
	snprintf(name, n, "%s%s_%s_config.json", dir, a->prog, kind);
	c->dir = dir;
	const JVal *doc = pt2_doc(a, name, false);
	if (!doc)
		return m->nerrors ? -1 : 0;
	c->file = m->file;
	c->src = m->src;
	c->srclen = m->srclen;
	c->cfg = json_get(doc, "config");
	if (!json_is(c->cfg, J_OBJ)) {
		pt2_err(m, doc, "expected {\"config\": {...}}");
		return -1;
	}
	for (uint32_t i = 0; i < c->cfg->n; i++)
		fx_map_set(&c->keys, ir_internn(m, c->cfg->kids[i].key,
		    c->cfg->kids[i].klen), i + 1);
	return 0;
}

/* The tensor the config lists under target, from its entry. */
static int
cfg_tensor(Pt2 *a, Cfg *c, const JVal *e, Tensor *t, Pt2View *v)
{
	Module *m = a->m;
	m->file = c->file;
	m->src = c->src;
	m->srclen = c->srclen;
	const JVal *pn = json_get(e, "path_name"), *up = json_get(e,
	    "use_pickle");
	if (!json_is(pn, J_STR) || strchr(pn->s, '/')) {
		pt2_err(m, e, "expected a path_name (a file name)");
		return -1;
	}
	size_t n = strlen(c->dir) + pn->n + 1;
	char *path = arena_alloc(m->arena, n);
	snprintf(path, n, "%s%s", c->dir, pn->s);
	ZipEntry *ze = zip_find(a->z, path);
	const unsigned char *d;
	size_t len;
	if (!ze) {
		pt2_err(m, pn, "the archive has no '%s'", path);
		return -1;
	}
	if (zip_data(a->z, ze, &d, &len) < 0)
		return -1;
	if (up && up->kind == J_BOOL && up->b) {
		/* torch.save of one tensor: a zip within the zip */
		return pt2_pickled(a, path, d, len, t, v);
	}
	if (!meta_view(m, json_get(e, "tensor_meta"), v))
		return -1;
	const char *why = pt2_view(a, v, d, len, t);
	if (why) {
		pt2_err(m, e, "tensor '%.*s': %s", (int)e->klen, e->key, why);
		return -1;
	}
	return 0;
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

typedef struct Cfgs {
	Cfg w, k;   /* the weights and the constants configs */
} Cfgs;

static int
find_cfg(Pt2 *a, void *ctx, StrId target, Tensor *t,
    Pt2View *view)
{
	Cfgs *cs = ctx;
	uint32_t wi = fx_map_get(&cs->w.keys, target);
	uint32_t ki = wi ? 0 : fx_map_get(&cs->k.keys, target);
	Cfg *c = wi ? &cs->w : &cs->k;
	uint32_t ix = wi ? wi : ki;
	if (!ix)
		return 0;
	return cfg_tensor(a, c, &c->cfg->kids[ix - 1], t, view) < 0 ? -1 : 1;
}

/* torch >= 2.7: each weight input's target in the weights or the
 * constants config. */
static int
bind_configs(Pt2 *a, GraphId gid)
{
	Cfgs cs = {0};
	int rc = 0;
	if (load_cfg(a, &cs.w, "weights") < 0 ||
	    load_cfg(a, &cs.k, "constants") < 0)
		rc = -1;
	if (rc == 0)
		rc = pt2_bind_each(a, gid, find_cfg, &cs);
	fx_map_free(&cs.w.keys);
	fx_map_free(&cs.k.keys);
	return rc;
}

int
pt2_bind(Pt2 *a, GraphId gid)
{
	Module *m = a->m;
	int errs = m->nerrors;
	int rc = a->v26 ? pt2_bind_pickles(a, gid) : bind_configs(a, gid);
	/* later diagnostics point into the program again */
	m->file = a->progfile;
	m->src = a->progsrc;
	m->srclen = a->proglen;
	return rc < 0 || m->nerrors != errs ? -1 : 0;
}
