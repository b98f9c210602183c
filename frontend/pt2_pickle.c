/* pt2_pickle.c - torch.save files inside an archive: a zip (ROOT/data.pkl
 * and one ROOT/data/KEY entry per storage) whose pickle pickle.c reads.
 * Storages are stored entries of a stored entry, so their bytes are still
 * the mapped archive's. */
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "pt2_int.h"
#include "safetensors.h"

typedef struct Saved {
	Zip *z;
	const char *root;     /* "archive/" */
	const char *file;     /* archive:entry, for messages */
	PkTensor *t;
	uint32_t n;
	StrMap keys;          /* key StrId -> index + 1 */
} Saved;

/* Reads the torch.save file d[0..len), entry path of the archive. */
static int
open_saved(Pt2 *a, const char *path, const unsigned char *d, size_t len,
    Saved *s)
{
	Module *m = a->m;
	size_t fl = strlen(a->path) + strlen(path) + 2;
	char *file = arena_alloc(m->arena, fl);
	snprintf(file, fl, "%s:%s", a->path, path);
	m->file = s->file = file;
	m->src = NULL;
	m->srclen = 0;
	if (!zip_sniff(d, len)) {
		ir_error(m, (Loc){0, 0}, "not a torch.save zip file (torch "
		    "< 1.6 saved tensors without zip; re-save the program "
		    "with a newer torch)");
		return -1;
	}
	s->z = zip_open(m, d, len);
	if (!s->z)
		return -1;
	zip_set_budget(s->z, &a->inflate_left);
	vgrow((void **)&a->inner, &a->cinner, a->ninner + 1, sizeof *a->inner);
	a->inner[a->ninner++] = s->z;
	ZipEntry *pk = NULL;
	for (uint32_t i = 0; i < zip_count(s->z); i++) {
		ZipEntry *e = zip_entry(s->z, i);
		const char *sl = strchr(e->name, '/');
		if (sl && !strcmp(sl + 1, "data.pkl")) {
			pk = e;
			s->root = arena_strndup(m->arena, e->name,
			    (size_t)(sl - e->name) + 1);
		}
	}
	const unsigned char *p;
	size_t n;
	if (!pk) {
		ir_error(m, (Loc){0, 0}, "no ROOT/data.pkl in this torch.save "
		    "file");
		return -1;
	}
	if (zip_data(s->z, pk, &p, &n) < 0)
		return -1;
	if (!a->pa)
		a->pa = arena_new();
	const char *err;
	size_t pos;
	if (pk_read(a->pa, p, n, &s->t, &s->n, &err, &pos) < 0) {
		ir_error(m, (Loc){0, 0}, "%sdata.pkl, byte %zu: %s", s->root,
		    pos, err);
		return -1;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		if (!s->t[i].key)
			continue;
		StrId k = ir_intern(m, s->t[i].key);
		if (fe_map_get(&s->keys, k)) {
			ir_error(m, (Loc){0, 0}, "tensor '%s' twice in "
			    "data.pkl", s->t[i].key);
			return -1;
		}
		fe_map_set(&s->keys, k, i + 1);
	}
	return 0;
}

/* Tensor i of s, viewing its storage entry. */
static int
saved_tensor(Pt2 *a, Saved *s, uint32_t i, Tensor *t, Pt2View *v)
{
	Module *m = a->m;
	const PkTensor *pk = &s->t[i];
	m->file = s->file;
	size_t n = strlen(s->root) + strlen(pk->storage) + 8;
	char *name = arena_alloc(m->arena, n);
	snprintf(name, n, "%sdata/%s", s->root, pk->storage);
	ZipEntry *e = zip_find(s->z, name);
	const unsigned char *d;
	size_t len;
	if (!e) {
		ir_error(m, (Loc){0, 0}, "tensor '%s': no storage entry '%s'",
		    pk->key ? pk->key : "", name);
		return -1;
	}
	if (zip_data(s->z, e, &d, &len) < 0)
		return -1;
	v->dtype = pk->dtype;
	v->rank = pk->rank;
	v->offset = pk->offset;
	for (int32_t k = 0; k < pk->rank; k++) {
		v->sizes[k] = pk->sizes[k];
		v->strides[k] = pk->strides[k];
	}
	const char *why = pt2_view(a, v, d, len, t);
	if (why) {
		ir_error(m, (Loc){0, 0}, "tensor '%s': %s", pk->key ?
		    pk->key : "", why);
		return -1;
	}
	return 0;
}

int
pt2_pickled(Pt2 *a, const char *path, const unsigned char *d, size_t len,
    Tensor *t, Pt2View *v)
{
	Saved s = {0};
	int rc = open_saved(a, path, d, len, &s);
	if (rc == 0 && (s.n != 1 || s.t[0].key)) {
		ir_error(a->m, (Loc){0, 0}, "expected one pickled tensor");
		rc = -1;
	}
	if (rc == 0)
		rc = saved_tensor(a, &s, 0, t, v);
	fe_map_free(&s.keys);
	return rc;
}

/* ROOT/NAME.pt when present (a program without weights has none). */
static int
load(Pt2 *a, const char *name, Saved *s)
{
	size_t n = strlen(a->root) + strlen(name) + 1;
	char *path = arena_alloc(a->m->arena, n);
	snprintf(path, n, "%s%s", a->root, name);
	ZipEntry *e = zip_find(a->z, path);
	const unsigned char *d;
	size_t len;
	if (!e)
		return 0;
	if (zip_data(a->z, e, &d, &len) < 0)
		return -1;
	return open_saved(a, path, d, len, s);
}

typedef struct Pickles {
	Saved sd, cs;   /* the state dict and the constants */
} Pickles;

static int
find_saved(Pt2 *a, void *ctx, StrId target, Tensor *t,
    Pt2View *view)
{
	Pickles *p = ctx;
	uint32_t k = fe_map_get(&p->sd.keys, target);
	Saved *s = k ? &p->sd : &p->cs;
	if (!k)
		k = fe_map_get(&p->cs.keys, target);
	if (!k)
		return 0;
	return saved_tensor(a, s, k - 1, t, view) < 0 ? -1 : 1;
}

int
pt2_bind_pickles(Pt2 *a, GraphId gid)
{
	Pickles p = {0};
	int rc = 0;
	if (load(a, "serialized_state_dict.pt", &p.sd) < 0 ||
	    load(a, "serialized_constants.pt", &p.cs) < 0)
		rc = -1;
	if (rc == 0)
		rc = pt2_bind_each(a, gid, find_saved, &p);
	fe_map_free(&p.sd.keys);
	fe_map_free(&p.cs.keys);
	return rc;
}
