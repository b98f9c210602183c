/* pt2_weights.c - the tensors of a torch >= 2.7 archive, found through its
 * configs; each is read as a view (pt2_view.c).
 *
 * ROOT/data/{weights,constants}/PROG_*_config.json name an entry and a
 * TensorMeta per tensor; an entry with use_pickle is a torch.save file
 * (pt2_pickle.c), as all of torch <= 2.6's are.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2_int.h"

enum { MAXRANK = 64 };

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
		json_err(m, meta, "tensor_meta needs a dtype and sizes and "
		    "strides of one length (at most %d)", MAXRANK);
		return false;
	}
	v->dtype = pt2_dtype(dt->i);
	if (!v->dtype) {
		json_err(m, dt, "unknown dtype code %lld", (long long)dt->i);
		return false;
	}
	v->rank = (int32_t)sz->n;
	for (uint32_t i = 0; i < sz->n; i++) {
		if (!asint(&sz->kids[i], &v->sizes[i]) ||
		    !asint(&st->kids[i], &v->strides[i])) {
			json_err(m, &sz->kids[i], "weights need numeric sizes "
			    "and strides");
			return false;
		}
	}
	v->offset = 0;
	if (so && !asint(so, &v->offset)) {
		json_err(m, so, "storage_offset must be {\"as_int\": N}");
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
		json_err(m, doc, "expected {\"config\": {...}}");
		return -1;
	}
	for (uint32_t i = 0; i < c->cfg->n; i++)
		fe_map_set(&c->keys, ir_internn(m, c->cfg->kids[i].key,
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
		json_err(m, e, "expected a path_name (a file name)");
		return -1;
	}
	size_t n = strlen(c->dir) + pn->n + 1;
	char *path = arena_alloc(m->arena, n);
	snprintf(path, n, "%s%s", c->dir, pn->s);
	ZipEntry *ze = zip_find(a->z, path);
	const unsigned char *d;
	size_t len;
	if (!ze) {
		json_err(m, pn, "the archive has no '%s'", path);
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
		json_err(m, e, "tensor '%.*s': %s", (int)e->klen, e->key, why);
		return -1;
	}
	return 0;
}

typedef struct Cfgs {
	Cfg w, k;   /* the weights and the constants configs */
} Cfgs;

static int
find_cfg(Pt2 *a, void *ctx, StrId target, Tensor *t,
    Pt2View *view)
{
	Cfgs *cs = ctx;
	uint32_t wi = fe_map_get(&cs->w.keys, target);
	uint32_t ki = wi ? 0 : fe_map_get(&cs->k.keys, target);
	Cfg *c = wi ? &cs->w : &cs->k;
	uint32_t ix = wi ? wi : ki;
	if (!ix)
		return 0;
	return cfg_tensor(a, c, &c->cfg->kids[ix - 1], t, view) < 0 ? -1 : 1;
}

/* torch >= 2.7: each weight input's target in the weights or the
 * constants config. */
int
pt2_bind_configs(Pt2 *a, GraphId gid)
{
	Cfgs cs = {0};
	int rc = 0;
	if (load_cfg(a, &cs.w, "weights") < 0 ||
	    load_cfg(a, &cs.k, "constants") < 0)
		rc = -1;
	if (rc == 0)
		rc = pt2_bind_each(a, gid, find_cfg, &cs);
	fe_map_free(&cs.w.keys);
	fe_map_free(&cs.k.keys);
	return rc;
}
