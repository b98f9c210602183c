/* st_header.c - the JSON header of a .safetensors file: a strict reader
 * for the subset the format uses (an object of tensor entries and an
 * optional "__metadata__" object of strings), each entry checked against
 * the data section as it is read.  Errors name the byte of the header
 * where they are.
 */
#include <stdlib.h>
#include <string.h>

#include "st_int.h"

/* ---------------------------------------------------------- JSON reading */

/* A strict reader for the header's JSON subset.  On a syntax error it
 * reports once and sets failed; callers then unwind. */
typedef struct Json {
	StFile *f;
	const char *s, *p, *end;
	bool failed;
	char *buf;               /* decoded string, grown as needed */
	size_t cap;
} Json;

static void
jfail(Json *j, const char *what)
{
	if (j->failed)
		return;
	j->failed = true;
	st_bad(j->f, NULL, "malformed JSON header at byte %zu: %s",
	    (size_t)(j->p - j->s), what);
}

static void
jspace(Json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* Consume c after optional white space. */
static bool
jeat(Json *j, char c)
{
	jspace(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static bool
jexpect(Json *j, char c)
{
	if (jeat(j, c))
		return true;
	char what[32];
	snprintf(what, sizeof what, "expected '%c'", c);
	jfail(j, what);
	return false;
}

static void
jputc(Json *j, size_t *len, char c)
{
	if (*len + 2 > j->cap) {
		j->cap = j->cap ? j->cap * 2 : 64;
		j->buf = xrealloc(j->buf, j->cap);
	}
	j->buf[(*len)++] = c;
	j->buf[*len] = 0;
}

static bool
jhex4(Json *j, uint32_t *out)
{
	uint32_t v = 0;
	if (j->end - j->p < 4) {
		jfail(j, "truncated \\u escape");
		return false;
	}
	for (int i = 0; i < 4; i++) {
		char c = *j->p++;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else {
			jfail(j, "bad hex digit in \\u escape");
			return false;
		}
	}
	*out = v;
	return true;
}

static void
jpututf8(Json *j, size_t *len, uint32_t cp)
{
	if (cp < 0x80) {
		jputc(j, len, (char)cp);
	} else if (cp < 0x800) {
		jputc(j, len, (char)(0xc0 | cp >> 6));
		jputc(j, len, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		jputc(j, len, (char)(0xe0 | cp >> 12));
		jputc(j, len, (char)(0x80 | (cp >> 6 & 0x3f)));
		jputc(j, len, (char)(0x80 | (cp & 0x3f)));
	} else {
		jputc(j, len, (char)(0xf0 | cp >> 18));
		jputc(j, len, (char)(0x80 | (cp >> 12 & 0x3f)));
		jputc(j, len, (char)(0x80 | (cp >> 6 & 0x3f)));
		jputc(j, len, (char)(0x80 | (cp & 0x3f)));
	}
}

/* A string into j->buf (NUL-terminated, *len bytes).  A \u0000 escape
 * is refused: names with NUL cannot be interned. */
static bool
jstring(Json *j, size_t *len)
{
	*len = 0;
	jputc(j, len, 0);   /* j->buf is "" even for an empty string */
	*len = 0;
	if (!jexpect(j, '"'))
		return false;
	for (;;) {
		if (j->p >= j->end) {
			jfail(j, "unterminated string");
			return false;
		}
		unsigned char c = (unsigned char)*j->p++;
		if (c == '"')
			return true;
		if (c < 0x20) {
			j->p--;
			jfail(j, "control character in string");
			return false;
		}
		if (c != '\\') {
			jputc(j, len, (char)c);
			continue;
		}
		if (j->p >= j->end) {
			jfail(j, "unterminated string");
			return false;
		}
		c = (unsigned char)*j->p++;
		switch (c) {
		case '"': case '\\': case '/':
			jputc(j, len, (char)c);
			break;
		case 'b': jputc(j, len, '\b'); break;
		case 'f': jputc(j, len, '\f'); break;
		case 'n': jputc(j, len, '\n'); break;
		case 'r': jputc(j, len, '\r'); break;
		case 't': jputc(j, len, '\t'); break;
		case 'u': {
			uint32_t cp, lo;
			if (!jhex4(j, &cp))
				return false;
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				jfail(j, "unpaired low surrogate");
				return false;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (j->end - j->p < 2 || j->p[0] != '\\' ||
				    j->p[1] != 'u') {
					jfail(j, "unpaired high surrogate");
					return false;
				}
				j->p += 2;
				if (!jhex4(j, &lo))
					return false;
				if (lo < 0xdc00 || lo > 0xdfff) {
					jfail(j, "bad low surrogate");
					return false;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
			}
			if (cp == 0) {
				jfail(j, "\\u0000 in string");
				return false;
			}
			jpututf8(j, len, cp);
			break;
		}
		default:
			j->p--;
			jfail(j, "bad escape in string");
			return false;
		}
	}
}

/* A non-negative integer that fits in max.  JSON has no leading zeros,
 * and sizes here are never negative, fractional or in exponent form. */
static bool
juint(Json *j, uint64_t max, uint64_t *out, const char *what)
{
	jspace(j);
	const char *start = j->p;
	uint64_t v = 0;
	bool over = false;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned d = (unsigned)(*j->p++ - '0');
		if (v > (max - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	if (j->p == start) {
		char msg[64];
		snprintf(msg, sizeof msg, "expected a non-negative integer "
		    "in %s", what);
		jfail(j, msg);
		return false;
	}
	if (j->p - start > 1 && *start == '0') {
		j->p = start;
		jfail(j, "leading zero in number");
		return false;
	}
	if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')) {
		char msg[64];
		snprintf(msg, sizeof msg, "expected an integer in %s", what);
		jfail(j, msg);
		return false;
	}
	if (over) {
		j->p = start;
		char msg[64];
		snprintf(msg, sizeof msg, "number too large in %s", what);
		jfail(j, msg);
		return false;
	}
	*out = v;
	return true;
}

static bool
jdigits(Json *j)
{
	const char *start = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p != start;
}

/* Any JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool
jnumber(Json *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	const char *start = j->p;
	if (!jdigits(j) || (*start == '0' && j->p - start > 1)) {
		jfail(j, "bad number");
		return false;
	}
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!jdigits(j)) {
			jfail(j, "bad number");
			return false;
		}
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!jdigits(j)) {
			jfail(j, "bad number");
			return false;
		}
	}
	return true;
}

/* Skip any JSON value (unknown keys of a tensor entry). */
static bool
jskip(Json *j, int depth)
{
	size_t len;
	if (depth > 64) {
		jfail(j, "nesting too deep");
		return false;
	}
	jspace(j);
	if (j->p >= j->end) {
		jfail(j, "expected a value");
		return false;
	}
	char c = *j->p;
	if (c == '"')
		return jstring(j, &len);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->p++;
		if (jeat(j, close))
			return true;
		do {
			if (c == '{' && (!jstring(j, &len) || !jexpect(j, ':')))
				return false;
			if (!jskip(j, depth + 1))
				return false;
		} while (jeat(j, ','));
		return jexpect(j, close);
	}
	static const char *const words[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);
		if ((size_t)(j->end - j->p) >= n &&
		    memcmp(j->p, words[i], n) == 0) {
			j->p += n;
			return true;
		}
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return jnumber(j);
	jfail(j, "expected a value");
	return false;
}

/* ------------------------------------------------------------- the header */

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

enum { MAXRANK = 64 };

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

static bool
read_dtype(Json *j, Entry *e)
{
	size_t len;
	if (!jstring(j, &len))
		return false;
	e->dt = DT_UNDEF;
	for (size_t i = 0; i < sizeof stdtypes / sizeof *stdtypes; i++)
		if (strcmp(j->buf, stdtypes[i].name) == 0)
			e->dt = stdtypes[i].dt;
	if (e->dt == DT_UNDEF) {
		st_bad(j->f, e->name, "unsupported dtype '%s'", j->buf);
		e->okay = false;
	}
	return true;
}

static bool
read_shape(Json *j, Entry *e)
{
	e->rank = 0;
	if (!jexpect(j, '['))
		return false;
	if (jeat(j, ']'))
		return true;
	do {
		uint64_t d;
		if (!juint(j, INT64_MAX, &d, "shape"))
			return false;
		if (e->rank == MAXRANK) {
			if (e->okay)
				st_bad(j->f, e->name, "shape has more than %d "
				    "dims", MAXRANK);
			e->okay = false;
			continue;
		}
		e->dims[e->rank++] = (int64_t)d;
	} while (jeat(j, ','));
	return jexpect(j, ']');
}

static bool
read_offsets(Json *j, Entry *e)
{
	return jexpect(j, '[') &&
	    juint(j, UINT64_MAX, &e->off[0], "data_offsets") &&
	    jexpect(j, ',') &&
	    juint(j, UINT64_MAX, &e->off[1], "data_offsets") &&
	    jexpect(j, ']');
}

/* Note a key seen; a repeated one is reported. */
static void
seen(Json *j, Entry *e, bool *have, const char *key)
{
	if (*have) {
		st_bad(j->f, e->name, "duplicate key '%s'", key);
		e->okay = false;
	}
	*have = true;
}

/* {"dtype": ..., "shape": [...], "data_offsets": [b, e]}; unknown keys
 * are skipped.  False on a JSON syntax error only. */
static bool
read_entry(Json *j, Entry *e)
{
	size_t len;
	if (!jexpect(j, '{'))
		return false;
	if (jeat(j, '}'))
		return true;
	do {
		if (!jstring(j, &len) || !jexpect(j, ':'))
			return false;
		bool ok;
		if (strcmp(j->buf, "dtype") == 0) {
			seen(j, e, &e->have_dt, "dtype");
			ok = read_dtype(j, e);
		} else if (strcmp(j->buf, "shape") == 0) {
			seen(j, e, &e->have_shape, "shape");
			ok = read_shape(j, e);
		} else if (strcmp(j->buf, "data_offsets") == 0) {
			seen(j, e, &e->have_off, "data_offsets");
			ok = read_offsets(j, e);
		} else {
			ok = jskip(j, 0);
		}
		if (!ok)
			return false;
	} while (jeat(j, ','));
	return jexpect(j, '}');
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

/* The entry for the tensor named name (interned): read, check, keep.
 * False on a JSON syntax error; other problems are reported and the
 * entry is dropped. */
static bool
tensor_entry(Json *j, StrId name)
{
	StFile *f = j->f;
	Entry e = {.name = ir_str(f->m, name), .okay = true};
	uint64_t nbytes;
	if (!read_entry(j, &e))
		return false;
	if (!check_entry(f, &e, &nbytes))
		return true;
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
	return true;
}

/* __metadata__: an object of strings, which we do not need. */
static bool
metadata(Json *j)
{
	size_t len;
	if (!jexpect(j, '{'))
		return false;
	if (jeat(j, '}'))
		return true;
	do {
		if (!jstring(j, &len) || !jexpect(j, ':') || !jstring(j, &len))
			return false;
	} while (jeat(j, ','));
	return jexpect(j, '}');
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
	Json j = {.f = f, .s = s, .p = s, .end = s + n};
	int errs = f->m->nerrors;
	size_t len;
	bool seen_meta = false;

	if (jexpect(&j, '{') && !jeat(&j, '}')) {
		do {
			if (!jstring(&j, &len) || !jexpect(&j, ':'))
				break;
			if (strcmp(j.buf, "__metadata__") == 0) {
				if (seen_meta)
					st_bad(f, NULL, "duplicate key "
					    "'__metadata__'");
				seen_meta = true;
				if (!metadata(&j))
					break;
				continue;
			}
			StrId name = ir_internn(f->m, j.buf, len);
			if (!tensor_entry(&j, name))
				break;
		} while (jeat(&j, ','));
		if (!j.failed)
			jexpect(&j, '}');
	}
	jspace(&j);
	if (!j.failed && j.p != j.end)
		jfail(&j, "text after the header object");
	free(j.buf);
	if (j.failed)
		return false;

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
