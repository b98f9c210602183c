/* json.c - JSON text to a located tree (json.h).
 *
 * Our own rather than a library's: diagnostics about archive content need
 * the line and column of every value, which cJSON and jansson do not keep,
 * and a tree in one arena frees in one call.  A first scan counts each
 * container's kids, so that each gets its array in the arena at once: a
 * document costs one arena node per value and a count per container, and
 * nothing more at its peak (a stack of kids copied on close cost twice
 * that).  Nesting is limited (programs nest a few levels per subgraph),
 * strings must be valid UTF-8 without NUL.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

enum { MAXDEPTH = 512 };

typedef struct P {
	Arena *a;
	const char *s, *p, *end, *bol;
	uint32_t line;
	const char *err;
	Loc at;
	uint32_t *count;      /* kids of each container, in opening order */
	uint32_t ncount, next;
	unsigned flags;       /* JSON_* */
} P;

static Loc
here(const P *p)
{
	return (Loc){p->line, (uint32_t)(p->p - p->bol) + 1};
}

static bool
fail(P *p, const char *msg)
{
	if (!p->err) {
		p->err = msg;
		p->at = here(p);
	}
	return false;
}

static void
space(P *p)
{
	while (p->p < p->end) {
		char c = *p->p;
		if (c == '\n') {
			p->line++;
			p->bol = ++p->p;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			p->p++;
		} else {
			break;
		}
	}
}

static bool
word(P *p, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(p->end - p->p) < n || memcmp(p->p, w, n))
		return false;
	p->p += n;
	return true;
}

static int
hex4(const char *q)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = q[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
		    c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		    c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static char *
utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* The length of the UTF-8 sequence at q (1 to 4), 0 when it is not one:
 * a stray continuation byte, a short sequence, an overlong form, a
 * surrogate or a code point past U+10FFFF. */
static int
utf8_seq(const unsigned char *q, const unsigned char *end)
{
	unsigned c = q[0];
	int n = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 :
	    c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
	if (!n || end - q < n)
		return 0;
	for (int i = 1; i < n; i++)
		if ((q[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && q[1] < 0xa0) || (c == 0xed && q[1] >= 0xa0) ||
	    (c == 0xf0 && q[1] < 0x90) || (c == 0xf4 && q[1] >= 0x90))
		return 0;
	return n;
}

/* A string at the opening quote; decoded into the arena (escapes make it
 * shorter, never longer, than its source). */
static bool
string(P *p, const char **out, uint32_t *len)
{
	const char *q = ++p->p;
	while (q < p->end && *q != '"' && *q != '\\' &&
	    (unsigned char)*q >= 0x20)
		q++;
	size_t cap = (size_t)(q - p->p);
	const char *r = q;
	if (q < p->end && *q == '\\') {  /* the rest, to size the buffer */
		while (r < p->end && *r != '"') {
			if ((unsigned char)*r < 0x20)
				break;
			r += *r == '\\' && r + 1 < p->end ? 2 : 1;
		}
		cap = (size_t)(r - p->p);
	}
	if (cap > UINT32_MAX - 1)
		return fail(p, "string too long");
	char *buf = arena_alloc(p->a, cap + 1), *o = buf;
	while (p->p < p->end) {
		unsigned char c = (unsigned char)*p->p;
		if (c == '"') {
			p->p++;
			*o = 0;
			*out = buf;
			*len = (uint32_t)(o - buf);
			return true;
		}
		if (c < 0x20)
			return fail(p, "control character in a string");
		if (c >= 0x80) {
			/* names go into the ONNX file, whose strings are
			 * UTF-8 */
			int k = utf8_seq((const unsigned char *)p->p,
			    (const unsigned char *)p->end);
			if (!k)
				return fail(p, "invalid UTF-8 in a string");
			memcpy(o, p->p, (size_t)k);
			o += k;
			p->p += k;
			continue;
		}
		if (c != '\\') {
			*o++ = (char)c;
			p->p++;
			continue;
		}
		if (p->end - p->p < 2)
			break;
		char e = p->p[1];
		const char *map = strchr("\"\"\\\\//b\bf\fn\nr\rt\t", e);
		if (e && map && (map - "\"\"\\\\//b\bf\fn\nr\rt\t") % 2 == 0) {
			*o++ = map[1];
			p->p += 2;
			continue;
		}
		if (e != 'u')
			return fail(p, "invalid escape in a string");
		int cp = p->end - p->p >= 6 ? hex4(p->p + 2) : -1;
		if (cp < 0)
			return fail(p, "invalid \\u escape");
		if (cp == 0)
			return fail(p, "NUL character (\\u0000) in a string: "
			    "names and paths must not hold one");
		p->p += 6;
		uint32_t u = (uint32_t)cp;
		if (u >= 0xd800 && u < 0xdc00) {
			int lo = p->end - p->p >= 6 && p->p[0] == '\\' &&
			    p->p[1] == 'u' ? hex4(p->p + 2) : -1;
			if (lo < 0xdc00 || lo > 0xdfff)
				return fail(p, "unpaired surrogate in a "
				    "string");
			u = 0x10000 + ((u - 0xd800) << 10) +
			    ((uint32_t)lo - 0xdc00);
			p->p += 6;
		} else if (u >= 0xdc00 && u < 0xe000) {
			return fail(p, "unpaired surrogate in a string");
		}
		o = utf8(o, u);
	}
	return fail(p, "unterminated string");
}

static bool
number(P *p, JVal *v)
{
	const char *q = p->p, *start = q;
	if (q < p->end && *q == '-')
		q++;
	if ((size_t)(p->end - q) >= 8 && !memcmp(q, "Infinity", 8)) {
		v->f = *start == '-' ? -INFINITY : INFINITY;
		p->p = q + 8;
		return true;
	}
	if (q >= p->end || *q < '0' || *q > '9')
		return fail(p, "expected a value");
	if (*q == '0' && q + 1 < p->end && q[1] >= '0' && q[1] <= '9')
		return fail(p, "leading zero in a number");
	bool isint = true;
	uint64_t mag = 0;
	bool ovf = false;
	while (q < p->end && *q >= '0' && *q <= '9') {
		unsigned d = (unsigned)(*q++ - '0');
		if (mag > (UINT64_MAX - d) / 10)
			ovf = true;
		else
			mag = mag * 10 + d;
	}
	if (q < p->end && *q == '.') {
		isint = false;
		if (++q >= p->end || *q < '0' || *q > '9')
			return fail(p, "expected digits after '.'");
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < p->end && (*q == 'e' || *q == 'E')) {
		isint = false;
		q++;
		if (q < p->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= p->end || *q < '0' || *q > '9')
			return fail(p, "expected digits in an exponent");
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	char buf[64];
	size_t n = (size_t)(q - start);
	if (n < sizeof buf) {
		memcpy(buf, start, n);
		buf[n] = 0;
		v->f = strtod(buf, NULL);
	} else {
		v->f = *start == '-' ? -HUGE_VAL : HUGE_VAL;
	}
	bool neg = *start == '-';
	if (isint && !ovf && mag <= (uint64_t)INT64_MAX + neg) {
		v->isint = true;
		v->i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	}
	p->p = q;
	return true;
}

/* The kids of every container, in the order they open: commas at its
 * level, plus one unless it is empty.  Only a guide for valid text: the
 * parser checks every count it is given before writing. */
static uint32_t *
count_kids(const char *s, size_t n, uint32_t *ncount)
{
	enum { DEPTH = MAXDEPTH + 1 };
	uint32_t open[DEPTH], *count = NULL, nc = 0, cc = 0;
	bool filled[DEPTH];
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r' ||
		    c == ':')
			continue;
		if (c == ',') {
			if (depth > 0 && count[open[depth - 1]] < UINT32_MAX)
				count[open[depth - 1]]++;
			continue;
		}
		if (c == ']' || c == '}') {
			if (depth > 0 && filled[--depth])
				count[open[depth]]++;
			continue;
		}
		if (depth > 0)
			filled[depth - 1] = true;
		if (c == '"') {
			while (++i < n && s[i] != '"')
				if (s[i] == '\\')
					i++;
		} else if ((c == '[' || c == '{') && depth < DEPTH) {
			vgrow((void **)&count, &cc, nc + 1, sizeof *count);
			count[nc] = 0;
			filled[depth] = false;
			open[depth++] = nc++;
		}
	}
	while (depth > 0)  /* unclosed at the end: as if closed there */
		if (filled[--depth])
			count[open[depth]]++;
	*ncount = nc;
	return count;
}

static bool value(P *p, JVal *v, int depth);

static uint32_t
keyhash(const JVal *k)
{
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < k->klen; i++)
		h = (h ^ (unsigned char)k->key[i]) * 16777619u;
	return h;
}

/* An object naming a member twice is ambiguous (Python's json keeps the
 * last, json_get finds the first): refused.  Linear, through a table of
 * twice the members. */
static bool
unique_keys(P *p, const JVal *v)
{
	if (v->n < 2)
		return true;
	uint32_t cap = 4;
	while (cap < 2 * v->n)
		cap *= 2;
	uint32_t *slot = xzalloc(cap, sizeof *slot);
	bool ok = true;
	for (uint32_t i = 0; i < v->n && ok; i++) {
		const JVal *k = &v->kids[i];
		uint32_t j = keyhash(k) & (cap - 1);
		for (; slot[j]; j = (j + 1) & (cap - 1)) {
			const JVal *o = &v->kids[slot[j] - 1];
			if (o->klen == k->klen && !memcmp(o->key, k->key,
			    k->klen)) {
				fail(p, "a member name given twice in one "
				    "object");
				p->at = k->loc;
				ok = false;
				break;
			}
		}
		slot[j] = i + 1;
	}
	free(slot);
	return ok;
}

/* [ ... ] or { ... } at the bracket: kids go to the stack, then the
 * arena. */
static bool
container(P *p, JVal *v, int depth)
{
	bool obj = *p->p == '{';
	char close = obj ? '}' : ']';
	v->kind = obj ? J_OBJ : J_ARR;
	if (depth >= MAXDEPTH)
		return fail(p, "nesting too deep");
	p->p++;
	uint32_t want = p->next < p->ncount ? p->count[p->next] : 0;
	p->next++;
	v->kids = want ? arena_alloc_nz(p->a, (size_t)want *
	    sizeof *v->kids) : NULL;
	v->n = 0;
	space(p);
	if (p->p < p->end && *p->p == close) {
		p->p++;
		return true;
	}
	for (;;) {
		JVal kid = {0};
		space(p);
		if (obj) {
			if (p->p >= p->end || *p->p != '"')
				return fail(p, "expected a member name");
			if (!string(p, &kid.key, &kid.klen))
				return false;
			space(p);
			if (p->p >= p->end || *p->p != ':')
				return fail(p, "expected ':'");
			p->p++;
			space(p);
		}
		if (v->n == want)  /* more than counted: not valid text */
			return fail(p, "malformed container");
		/* the kid is built in place: containers inside it take
		 * their own arrays */
		JVal *k = &v->kids[v->n];
		*k = kid;
		if (!value(p, k, depth + 1))
			return false;
		v->n++;
		space(p);
		if (p->p < p->end && *p->p == ',') {
			p->p++;
			continue;
		}
		if (p->p < p->end && *p->p == close) {
			p->p++;
			break;
		}
		return fail(p, obj ? "expected ',' or '}'" :
		    "expected ',' or ']'");
	}
	return !obj || (p->flags & JSON_DUPLICATES) || unique_keys(p, v);
}

static bool
value(P *p, JVal *v, int depth)
{
	space(p);
	v->loc = here(p);
	if (p->p >= p->end)
		return fail(p, "unexpected end of the document");
	switch (*p->p) {
	case '{':
	case '[':
		return container(p, v, depth);
	case '"':
		v->kind = J_STR;
		return string(p, &v->s, &v->n);
	case 't':
	case 'f':
		v->kind = J_BOOL;
		v->b = *p->p == 't';
		return word(p, v->b ? "true" : "false") ||
		    fail(p, "expected a value");
	case 'n':
		v->kind = J_NULL;
		return word(p, "null") || fail(p, "expected a value");
	case 'N':
		v->kind = J_NUM;
		v->f = NAN;
		return word(p, "NaN") || fail(p, "expected a value");
	default:
		v->kind = J_NUM;
		return number(p, v);
	}
}

JVal *
json_parse(Arena *a, const char *s, size_t n, unsigned flags,
    const char **err, Loc *at)
{
	P p = {.a = a, .s = s, .p = s, .end = s + n, .bol = s, .line = 1,
	    .flags = flags};
	p.count = count_kids(s, n, &p.ncount);
	JVal *root = arena_alloc(a, sizeof *root);
	bool ok = value(&p, root, 0);
	if (ok) {
		space(&p);
		if (p.p != p.end)
			ok = fail(&p, "text after the JSON document");
	}
	free(p.count);
	if (ok)
		return root;
	*err = p.err;
	*at = p.at;
	return NULL;
}

const JVal *
json_get(const JVal *obj, const char *key)
{
	if (!obj || obj->kind != J_OBJ)
		return NULL;
	size_t n = strlen(key);
	for (uint32_t i = 0; i < obj->n; i++)
		if (obj->kids[i].klen == n && !memcmp(obj->kids[i].key, key, n))
			return &obj->kids[i];
	return NULL;
}

bool
json_is(const JVal *v, JKind k)
{
	return v && v->kind == k;
}

void
json_err(Module *m, const JVal *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ir_vdiag(m, "error", v ? v->loc : (Loc){0, 0}, fmt, ap);
	va_end(ap);
}
