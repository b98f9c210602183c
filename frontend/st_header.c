/* st_header.c - the JSON header of a .safetensors file: an object of
 * tensor entries and an optional "__metadata__" object of strings, read
 * with the frontends' JSON reader (json.c) and each entry checked against
 * the data section.  Errors name the tensor, or the byte of the header
 * where the text is wrong.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "st_int.h"

/* safetensors' own reader refuses longer headers (HeaderTooLarge); the
 * tree costs a 64-byte node per value, so this also bounds its memory */
enum { MAXHEADER = 100000000, MAXRANK = 64 };

static const struct {
	const char *name;
	DType dt;
} stdtypes[] = {
	{"F64", DT_F64}, {"F32", DT_F32}, {"F16", DT_F16}, {"BF16", DT_BF16},
	{"I64", DT_I64}, {"I32", DT_I32}, {"I16", DT_I16}, {"I8", DT_I8},
	{"U64", DT_U64}, {"U32", DT_U32}, {"U16", DT_U16}, {"U8", DT_U8},
	{"BOOL", DT_BOOL}, {"F8_E4M3", DT_F8E4M3FN}, {"F8_E5M2", DT_F8E5M2},
	{"F8_E8M0", DT_F8E8M0}, {"C64", DT_C64},
};

const char *
st_dtype_name(DType dt)
{
	for (size_t i = 0; i < sizeof stdtypes / sizeof *stdtypes; i++)
		if (stdtypes[i].dt == dt)
			return stdtypes[i].name;
	return ir_dtype_name(dt);
}

static bool
mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a && b > UINT64_MAX / a)
		return false;
	*out = a * b;
	return true;
}

const char *
st_shape_text(char *buf, size_t cap, const int64_t *dims, int32_t rank)
{
	size_t k = str_addf(buf, cap, 0, "[");
	for (int32_t i = 0; i < rank && k < cap; i++)
		k = str_addf(buf, cap, k, "%s%lld", i ? ", " : "",
		    (long long)dims[i]);
	str_addf(buf, cap, k, "]");
	return buf;
}

/* One tensor entry as read, before it is checked. */
typedef struct Entry {
	const char *name;
	bool have_dt, have_shape, have_off;
	bool okay;               /* false once a problem was reported */
	DType dt;
	int32_t rank;
	int64_t dims[MAXRANK];
	uint64_t off[2];
} Entry;

/* The byte of s[0..n) at a line and column of json.c's. */
static size_t
byte_at(const char *s, size_t n, Loc at)
{
	size_t i = 0;
	for (uint32_t line = 1; line < at.line && i < n; i++)
		if (s[i] == '\n')
			line++;
	return i + (at.col ? at.col - 1 : 0);
}

/* The entry's first problem is reported; the rest follow from it. */
static void
bad(Entry *e, StFile *f, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (e->okay)
		st_bad(f, e->name, "%s", msg);
	e->okay = false;
}

/* A size: an integer in [0, 2^63). */
static bool
size_of(Entry *e, StFile *f, const JVal *v, const char *what, uint64_t *out)
{
	if (json_is(v, J_NUM) && v->isint && v->i >= 0) {
		*out = (uint64_t)v->i;
		return true;
	}
	if (json_is(v, J_NUM) && v->f >= 0x1p63 && v->f == floor(v->f))
		bad(e, f, "number too large in %s (sizes are below 2^63)", what);
	else
		bad(e, f, "expected a non-negative integer in %s", what);
	return false;
}

static void
read_dtype(Entry *e, StFile *f, const JVal *v)
{
	if (!json_is(v, J_STR)) {
		bad(e, f, "'dtype' is not a string");
		return;
	}
	e->dt = DT_UNDEF;
	for (size_t i = 0; i < sizeof stdtypes / sizeof *stdtypes; i++)
		if (strcmp(v->s, stdtypes[i].name) == 0)
			e->dt = stdtypes[i].dt;
	if (e->dt == DT_UNDEF)
		bad(e, f, "unsupported dtype '%s'", v->s);
}

static void
read_shape(Entry *e, StFile *f, const JVal *v)
{
	uint64_t d;
	e->rank = 0;
	if (!json_is(v, J_ARR)) {
		bad(e, f, "'shape' is not a list");
		return;
	}
	if (v->n > MAXRANK) {
		bad(e, f, "shape has more than %d dims", MAXRANK);
		return;
	}
	for (uint32_t i = 0; i < v->n; i++)
		if (size_of(e, f, &v->kids[i], "shape", &d))
			e->dims[e->rank++] = (int64_t)d;
}

static void
read_offsets(Entry *e, StFile *f, const JVal *v)
{
	if (!json_is(v, J_ARR) || v->n != 2) {
		bad(e, f, "'data_offsets' is not a list of two integers");
		return;
	}
	size_of(e, f, &v->kids[0], "data_offsets", &e->off[0]);
	size_of(e, f, &v->kids[1], "data_offsets", &e->off[1]);
}

/* {"dtype": ..., "shape": [...], "data_offsets": [b, e]}; other keys are
 * skipped, a repeated one is reported. */
static void
read_entry(Entry *e, StFile *f, const JVal *v)
{
	static const char *const keys[] = {"dtype", "shape", "data_offsets"};
	if (!json_is(v, J_OBJ)) {
		bad(e, f, "expected an object of dtype, shape and "
		    "data_offsets");
		return;
	}
	bool *have[] = {&e->have_dt, &e->have_shape, &e->have_off};
	for (uint32_t i = 0; i < v->n; i++) {
		const JVal *k = &v->kids[i];
		for (int w = 0; w < 3; w++) {
			if (strcmp(k->key, keys[w]) != 0)
				continue;
			if (*have[w])
				bad(e, f, "duplicate key '%s'", keys[w]);
			*have[w] = true;
			if (w == 0)
				read_dtype(e, f, k);
			else if (w == 1)
				read_shape(e, f, k);
			else
				read_offsets(e, f, k);
		}
	}
}

/* Check an entry against the data section; the byte count is computed
 * with overflow checks since shapes come from the file. */
static bool
check_entry(StFile *f, const Entry *e, uint64_t *nbytes)
{
	const uint64_t *off = e->off;
	char sh[256];
	uint64_t numel = 1, need;
	if (!e->have_dt || !e->have_shape || !e->have_off) {
		st_bad(f, e->name, "missing '%s'", !e->have_dt ? "dtype"
		    : !e->have_shape ? "shape" : "data_offsets");
		return false;
	}
	if (!e->okay)
		return false;
	if (off[0] > off[1]) {
		st_bad(f, e->name, "data_offsets [%llu, %llu] end before they "
		    "begin", (unsigned long long)off[0],
		    (unsigned long long)off[1]);
		return false;
	}
	if (off[1] > f->datalen) {
		st_bad(f, e->name, "data_offsets [%llu, %llu] reach past the "
		    "data section (%llu bytes)", (unsigned long long)off[0],
		    (unsigned long long)off[1],
		    (unsigned long long)f->datalen);
		return false;
	}
	st_shape_text(sh, sizeof sh, e->dims, e->rank);
	for (int32_t i = 0; i < e->rank; i++)
		if (!mul_ok(numel, (uint64_t)e->dims[i], &numel)) {
			st_bad(f, e->name, "shape %s has too many elements",
			    sh);
			return false;
		}
	if (!mul_ok(numel, ir_dtype_size(e->dt), &need)) {
		st_bad(f, e->name, "shape %s has too many bytes", sh);
		return false;
	}
	if (off[1] - off[0] != need) {
		st_bad(f, e->name, "data_offsets [%llu, %llu] hold %llu bytes "
		    "but %s %s needs %llu", (unsigned long long)off[0],
		    (unsigned long long)off[1],
		    (unsigned long long)(off[1] - off[0]),
		    st_dtype_name(e->dt), sh, (unsigned long long)need);
		return false;
	}
	*nbytes = need;
	return true;
}

/* The entry for the tensor named by v's key: read, check, keep; a
 * problem is reported and the entry dropped. */
static void
tensor_entry(StFile *f, const JVal *v)
{
	StrId name = ir_internn(f->m, v->key, v->klen);
	Entry e = {.name = ir_str(f->m, name), .okay = true};
	uint64_t nbytes;
	read_entry(&e, f, v);
	if (!e.okay || !check_entry(f, &e, &nbytes))
		return;
	vgrow((void **)&f->t, &f->cap, f->n + 1, sizeof *f->t);
	Tensor *t = &f->t[f->n++];
	t->name = name;
	t->dtype = (uint8_t)e.dt;
	t->rank = e.rank;
	t->dims = NULL;
	if (e.rank) {
		size_t sz = (size_t)e.rank * sizeof *e.dims;
		t->dims = arena_alloc(f->m->arena, sz);
		memcpy(t->dims, e.dims, sz);
	}
	t->data = f->data + e.off[0];
	t->nbytes = nbytes;
}

/* __metadata__: an object of strings, which we do not need. */
static void
metadata(StFile *f, const JVal *v)
{
	bool ok = json_is(v, J_OBJ);
	for (uint32_t i = 0; ok && i < v->n; i++)
		ok = json_is(&v->kids[i], J_STR);
	if (!ok)
		st_bad(f, NULL, "'__metadata__' is not an object of strings");
}

static int
byname_cmp(const void *a, const void *b, void *arg)
{
	const StFile *f = arg;
	const char *x = ir_str(f->m, f->t[*(const uint32_t *)a].name);
	const char *y = ir_str(f->m, f->t[*(const uint32_t *)b].name);
	return strcmp(x, y);
}

static int
byoff_cmp(const void *a, const void *b, void *arg)
{
	const StFile *f = arg;
	const Tensor *x = &f->t[*(const uint32_t *)a];
	const Tensor *y = &f->t[*(const uint32_t *)b];
	if (x->data != y->data)
		return (const unsigned char *)x->data <
		    (const unsigned char *)y->data ? -1 : 1;
	return x->nbytes < y->nbytes ? -1 : x->nbytes > y->nbytes;
}

/* Tensors whose bytes overlap would let a small file stand for many
 * times its size of weights (and writers never produce them). */
static void
overlaps(StFile *f)
{
	uint32_t *ord = xrealloc(NULL, (f->n ? f->n : 1) * sizeof *ord);
	for (uint32_t i = 0; i < f->n; i++)
		ord[i] = i;
	qsort_r(ord, f->n, sizeof *ord, byoff_cmp, f);
	const Tensor *prev = NULL;
	for (uint32_t i = 0; i < f->n; i++) {
		const Tensor *t = &f->t[ord[i]];
		if (t->nbytes == 0)
			continue;
		if (prev && (const unsigned char *)prev->data + prev->nbytes >
		    (const unsigned char *)t->data) {
			uint64_t b = (uint64_t)((const unsigned char *)t->data -
			    f->data);
			st_bad(f, ir_str(f->m, t->name), "data_offsets [%llu, "
			    "%llu] overlap those of tensor '%s'",
			    (unsigned long long)b,
			    (unsigned long long)(b + t->nbytes),
			    ir_str(f->m, prev->name));
			continue;
		}
		prev = t;
	}
	free(ord);
}

bool
st_header(StFile *f, const char *s, size_t n)
{
	int errs = f->m->nerrors;
	const char *err;
	Loc at;
	if (n > MAXHEADER) {
		st_bad(f, NULL, "header of %zu bytes is over the format's limit "
		    "of %d", n, MAXHEADER);
		return false;
	}
	/* repeats are reported below, naming the tensor */
	Arena *a = arena_new();
	const JVal *root = json_parse(a, s, n, JSON_DUPLICATES, &err, &at);
	if (!root) {
		st_bad(f, NULL, "malformed JSON header at byte %zu: %s",
		    byte_at(s, n, at), err);
		arena_free(a);
		return false;
	}
	if (!json_is(root, J_OBJ)) {
		st_bad(f, NULL, "the header is not a JSON object");
		arena_free(a);
		return false;
	}
	bool seen_meta = false;
	for (uint32_t i = 0; i < root->n; i++) {
		const JVal *v = &root->kids[i];
		if (strcmp(v->key, "__metadata__") != 0) {
			tensor_entry(f, v);
		} else {
			if (seen_meta)
				st_bad(f, NULL, "duplicate key '__metadata__'");
			seen_meta = true;
			metadata(f, v);
		}
	}
	arena_free(a);

	/* sorted names give st_find a binary search and show duplicates */
	f->byname = xrealloc(NULL, (f->n ? f->n : 1) * sizeof *f->byname);
	for (uint32_t i = 0; i < f->n; i++)
		f->byname[i] = i;
	qsort_r(f->byname, f->n, sizeof *f->byname, byname_cmp, f);
	for (uint32_t i = 1; i < f->n; i++)
		if (f->t[f->byname[i]].name == f->t[f->byname[i - 1]].name)
			st_bad(f, ir_str(f->m, f->t[f->byname[i]].name),
			    "appears twice in the header");
	overlaps(f);
	return f->m->nerrors == errs;
}
