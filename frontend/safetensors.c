/* safetensors.c - map a .safetensors file and bind its tensors to a graph.
 *
 * The format: an 8-byte little-endian header length N, N bytes of JSON
 * (an object mapping tensor names to {"dtype", "shape", "data_offsets"},
 * plus an optional "__metadata__" object of strings), then the data
 * section.  data_offsets are [begin, end) relative to the data section.
 *
 * The file is mapped read-only and tensor data is never copied: Tensor.data
 * points into the mapping, which lives until st_close.  Everything in the
 * header is checked before use, since the file is user input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"
#include "safetensors.h"

struct StFile {
	Module *m;
	const char *path;        /* in m's arena */
	const unsigned char *map;
	size_t size;
	int fd;                  /* kept open: writers copy from it */
	const unsigned char *data; /* the data section */
	uint64_t datalen;
	Tensor *t;
	uint32_t n, cap;
	uint32_t *byname;        /* indices of t sorted by name */
};

/* ------------------------------------------------------------ diagnostics */

static void
at_file(StFile *f, const char *fmt, ...)
{
	DiagSrc src = {f->path, NULL, 0};
	va_list ap;
	va_start(ap, fmt);
	ir_vdiag_in(f->m, &src, "error", (Loc){0, 0}, fmt, ap);
	va_end(ap);
}

/* An error about the file, against the weights path (the file has no
 * text lines to show): "PATH: error: tensor 'NAME': message". */
static void
bad(StFile *f, const char *tensor, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (tensor)
		at_file(f, "tensor '%s': %s", tensor, msg);
	else
		at_file(f, "%s", msg);
}

/* Whether p[0..n) is one short line of printable text (its length, the
 * newline left out, in *len): what a symbolic link becomes in a checkout
 * or a copy that does not keep links. */
static bool
text_line(const unsigned char *p, size_t n, int *len)
{
	size_t k = n && p[n - 1] == '\n' ? n - 1 : n;
	if (k == 0 || k > 400)
		return false;
	for (size_t i = 0; i < k; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return false;
	*len = (int)k;
	return true;
}

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
	bad(j->f, NULL, "malformed JSON header at byte %zu: %s",
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

static const char *
stname(DType dt)
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

/* "[2, 3]" into buf. */
static const char *
shape_text(char *buf, size_t cap, const int64_t *dims, int32_t rank)
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
		bad(j->f, e->name, "unsupported dtype '%s'", j->buf);
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
				bad(j->f, e->name, "shape has more than %d "
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
		bad(j->f, e->name, "duplicate key '%s'", key);
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
		bad(f, e->name, "missing '%s'", !e->have_dt ? "dtype"
		    : !e->have_shape ? "shape" : "data_offsets");
		return false;
	}
	if (!e->okay)
		return false;
	if (off[0] > off[1]) {
		bad(f, e->name, "data_offsets [%llu, %llu] end before they "
		    "begin", (unsigned long long)off[0],
		    (unsigned long long)off[1]);
		return false;
	}
	if (off[1] > f->datalen) {
		bad(f, e->name, "data_offsets [%llu, %llu] reach past the "
		    "data section (%llu bytes)", (unsigned long long)off[0],
		    (unsigned long long)off[1],
		    (unsigned long long)f->datalen);
		return false;
	}
	shape_text(sh, sizeof sh, e->dims, e->rank);
	for (int32_t i = 0; i < e->rank; i++)
		if (!mul_ok(numel, (uint64_t)e->dims[i], &numel)) {
			bad(f, e->name, "shape %s has too many elements", sh);
			return false;
		}
	if (!mul_ok(numel, ir_dtype_size(e->dt), &need)) {
		bad(f, e->name, "shape %s has too many bytes", sh);
		return false;
	}
	if (off[1] - off[0] != need) {
		bad(f, e->name, "data_offsets [%llu, %llu] hold %llu bytes but "
		    "%s %s needs %llu", (unsigned long long)off[0],
		    (unsigned long long)off[1],
		    (unsigned long long)(off[1] - off[0]), stname(e->dt), sh,
		    (unsigned long long)need);
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
			bad(f, ir_str(f->m, t->name), "data_offsets [%llu, "
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

/* Parse the header; false if it was unusable (reported). */
static bool
header(StFile *f, const char *s, size_t n)
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
					bad(f, NULL, "duplicate key "
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
			bad(f, ir_str(f->m, f->t[f->byname[i]].name),
			    "appears twice in the header");
	overlaps(f);
	return f->m->nerrors == errs;
}

/* ------------------------------------------------------------------- API */

static bool
little_endian(void)
{
	const uint16_t one = 1;
	unsigned char b;
	memcpy(&b, &one, 1);
	return b == 1;
}

int
st_fd(const StFile *f, const void **map, size_t *len)
{
	*map = f->map;
	*len = f->size;
	return f->fd;
}

static StFile *
open_file(Module *m, const char *path)
{
	StFile *f = xrealloc(NULL, sizeof *f);
	memset(f, 0, sizeof *f);
	f->fd = -1;
	f->m = m;
	f->path = arena_strndup(m->arena, path, strlen(path));

	if (!little_endian()) {
		/* tensor bytes go to ONNX raw_data untouched, and both
		 * formats are little-endian */
		bad(f, NULL, "reading weights needs a little-endian host");
		goto fail;
	}
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		bad(f, NULL, "cannot open: %s", strerror(errno));
		goto fail;
	}
	f->fd = fd;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		bad(f, NULL, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		bad(f, NULL, "not a regular file (it is %s)",
		    fe_file_kind(st.st_mode));
		goto fail;
	}
	if (st.st_size < 8) {
		bad(f, NULL, "file is %lld bytes, too short for the 8-byte "
		    "header length", (long long)st.st_size);
		goto fail;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		bad(f, NULL, "file too large to map");
		goto fail;
	}
	f->size = (size_t)st.st_size;
	void *p = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		bad(f, NULL, "cannot map: %s", strerror(errno));
		goto fail;
	}
	f->map = p;

	uint64_t hlen = 0;
	for (int i = 7; i >= 0; i--)
		hlen = hlen << 8 | f->map[i];
	int line;
	if (hlen > f->size - 8 && text_line(f->map, f->size, &line)) {
		bad(f, NULL, "header length %llu reaches past the end of the "
		    "file (%zu bytes): the file is a line of text, '%.*s', not "
		    "safetensors (a symbolic link copied as a file?)",
		    (unsigned long long)hlen, f->size, line, f->map);
		goto fail;
	}
	if (hlen > f->size - 8) {
		bad(f, NULL, "header length %llu reaches past the end of the "
		    "file (%zu bytes)", (unsigned long long)hlen, f->size);
		goto fail;
	}
	f->data = f->map + 8 + hlen;
	f->datalen = f->size - 8 - hlen;
	if (!header(f, (const char *)f->map + 8, (size_t)hlen))
		goto fail;
	return f;
fail:
	st_close(f);
	return NULL;
}

StFile *
st_open(Module *m, const char *path)
{
	/* problems with the file are reported against the file (bad) */
	return open_file(m, path);
}

void
st_close(StFile *f)
{
	if (!f)
		return;
	if (f->map)
		munmap((void *)f->map, f->size);
	if (f->fd >= 0)
		close(f->fd);
	free(f->t);
	free(f->byname);
	free(f);
}

uint32_t
st_count(const StFile *f)
{
	return f->n;
}

const Tensor *
st_get(const StFile *f, uint32_t i)
{
	if (i >= f->n)
		BUG("tensor %u of %u", i, f->n);
	return &f->t[i];
}

const Tensor *
st_find(const StFile *f, const char *name)
{
	uint32_t lo = 0, hi = f->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const Tensor *t = &f->t[f->byname[mid]];
		int c = strcmp(ir_str(f->m, t->name), name);
		if (c == 0)
			return t;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *
role_name(Role r)
{
	switch (r) {
	case ROLE_PARAM: return "parameter";
	case ROLE_BUFFER: return "buffer";
	case ROLE_CONST: return "constant";
	default: return "input";
	}
}

/* An annotation's shape as written: "[64, s0, 7, 7]". */
static void
annot_text(Module *m, char *buf, size_t cap, const Dim *d, int32_t rank)
{
	size_t k;
	if (rank < 0) {
		snprintf(buf, cap, "of unknown rank");
		return;
	}
	k = str_addf(buf, cap, 0, "[");
	for (int32_t i = 0; i < rank && k < cap; i++)
		k = str_addf(buf, cap, k, "%s%s", i ? ", " : "",
		    ir_dim_text(m, d[i]));
	str_addf(buf, cap, k, "]");
}

/* The tensor for a weight input: its target as written, then with '.' as
 * '_' (readable dumps name parameters "conv_weight"), then the input's
 * own name. */
static const Tensor *
lookup(StFile *f, const char *target, const char *own)
{
	const Tensor *t = st_find(f, target);
	if (t)
		return t;
	size_t n = strlen(target);
	char *alt = xrealloc(NULL, n + 1);
	for (size_t i = 0; i <= n; i++)
		alt[i] = target[i] == '.' ? '_' : target[i];
	t = st_find(f, alt);
	free(alt);
	if (!t && own && *own)
		t = st_find(f, own);
	return t;
}

/* Checks t against weight input v of g (dtype, shape) and binds it;
 * symbolic dims of the annotation take the tensor's numbers (counted in
 * *nsym, the first described in first). */
int
st_bind_value(Module *m, GraphId gid, ValId v, const Tensor *t,
    const char *src, StSymNote *note)
{
	Graph *g = ir_graph(m, gid);
	Value *val = ir_val(g, v);
	const char *own = ir_str(m, val->name);
	const char *target = val->target ? ir_str(m, val->target) : own;
	const char *what = role_name((Role)val->role);
	const char *tn = ir_str(m, t->name);
	if (val->kind != VK_TENSOR) {
		ir_error(m, (Loc){0, 0}, "%s '%s' is not a tensor, but %s has "
		    "tensor '%s' for it", what, own, src, tn);
		return -1;
	}
	char want[256], got[256];
	shape_text(got, sizeof got, t->dims, t->rank);
	if (val->dtype != t->dtype) {
		ir_error(m, (Loc){0, 0}, "%s: tensor '%s' is %s %s but %s '%s' "
		    "is %s", src, tn, stname(t->dtype), got, what, own,
		    ir_dtype_name(val->dtype));
		return -1;
	}
	const Dim *d = ir_dims(g, v);
	bool same = val->rank == t->rank, symbolic = false;
	for (int32_t k = 0; same && k < val->rank; k++) {
		if (d[k].e)
			symbolic = true;
		else if (d[k].n != t->dims[k])
			same = false;
	}
	annot_text(m, want, sizeof want, d, val->rank);
	if (!same) {
		ir_error(m, (Loc){0, 0}, "%s: tensor '%s' has shape %s but %s "
		    "'%s' is %s %s", src, tn, got, what, own,
		    ir_dtype_name(val->dtype), want);
		return -1;
	}
	if (symbolic) {
		/* The weights' shapes are facts; a symbol here means the
		 * dump generalised a size that happened to equal a dynamic
		 * one.  Only this value's dims change. */
		if (!note->nsym++)
			snprintf(note->first, sizeof note->first, "%s '%s' is "
			    "annotated %s %s, but %s has %s", what, own,
			    ir_dtype_name(val->dtype), want, tn, got);
		ArenaMark mk = arena_mark(m->scratch);
		Dim *wd = arena_array(m->scratch, (size_t)val->rank,
		    sizeof *wd);
		for (int32_t k = 0; k < val->rank; k++)
			wd[k] = (Dim){t->dims[k], 0};
		/* a new run: dims may be shared by values of one shape */
		ir_set_tensor(g, v, (DType)val->dtype, val->rank, wd);
		arena_release(m->scratch, mk);
	}
	Tensor b = *t;
	b.name = ir_intern(m, target);
	ir_val(g, v)->init = ir_tensor(m, &b);
	return 0;
}

void
st_sym_note(Module *m, const StSymNote *note, const char *src)
{
	if (note->nsym)
		ir_warning(m, (Loc){0, 0}, "%s; using the shapes in %s for "
		    "this and %u other weight%s with symbolic dims",
		    note->first, src, note->nsym - 1,
		    note->nsym == 2 ? "" : "s");
}

static int
bind(Module *m, StFile *f, GraphId gid, bool partial)
{
	Graph *g = ir_graph(m, gid);
	int errs = m->nerrors;
	StSymNote note = {0};
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		Value *val = ir_val(g, v);
		if (val->role != ROLE_PARAM && val->role != ROLE_BUFFER &&
		    val->role != ROLE_CONST)
			continue;
		const char *own = ir_str(m, val->name);
		const char *target = val->target ? ir_str(m, val->target)
		    : own;
		const Tensor *t = lookup(f, target, own);
		if (!t && !partial)
			ir_error(m, (Loc){0, 0}, "no tensor '%s' in %s "
			    "(needed by %s '%s')", target, f->path,
			    role_name((Role)val->role), own);
		if (t)
			st_bind_value(m, gid, v, t, f->path, &note);
		g = ir_graph(m, gid);
	}
	st_sym_note(m, &note, f->path);
	return m->nerrors == errs ? 0 : -1;
}

int
st_bind(Module *m, StFile *f, GraphId gid)
{
	return bind(m, f, gid, false);
}

int
st_bind_over(Module *m, StFile *f, GraphId gid)
{
	return bind(m, f, gid, true);
}
