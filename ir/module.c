/* module.c - the per-compilation module: strings, expressions, tensors and
 * diagnostics. */
#include <stdlib.h>
#include <string.h>

#include <onnxc/table.h>

#include "ir.h"

static uint32_t
hashbytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

uint32_t
ir_hash(const void *p, size_t n)
{
	return hashbytes(p, n);
}

Module *
ir_module_new(void)
{
	Module *m = xrealloc(NULL, sizeof *m);
	memset(m, 0, sizeof *m);
	m->arena = arena_new();
	m->scratch = arena_new();
	m->diagout = stderr;
	m->file = "<input>";
	ir_intern(m, "");           /* StrId 0 */
	Expr none = {.kind = E_INT};
	vgrow((void **)&m->exprs, &m->cexprs, 1, sizeof *m->exprs);
	m->exprs[0] = none;         /* ExprId 0: "none" */
	m->nexprs = 1;
	vgrow((void **)&m->tensors, &m->ctensors, 1, sizeof *m->tensors);
	m->ntensors = 1;
	vgrow((void **)&m->graphs, &m->cgraphs, 1, sizeof *m->graphs);
	m->ngraphs = 1;
	return m;
}

static void
graph_free(Graph *g)
{
	if (!g)
		return;
	free(g->vals);
	free(g->nodes);
	free(g->args);
	free(g->items);
	free(g->dims);
	free(g->inputs);
	free(g->outputs);
	free(g->outkind);
	free(g->outtarget);
	free(g);
}

void
ir_free(Module *m)
{
	if (!m)
		return;
	for (uint32_t i = 1; i < m->ngraphs; i++)
		graph_free(m->graphs[i]);
	free(m->graphs);
	free(m->strs);
	free(m->strkey);
	free(m->strhash);
	free(m->exprs);
	free(m->exprhash);
	free(m->tensors);
	arena_free(m->arena);
	arena_free(m->scratch);
	free(m);
}

/* The hash of interned strings: eight bytes a step (FNV above is one). */
static uint32_t
strhash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n;
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	uint64_t w = 0;
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	/* murmur3's finalizer: every input bit reaches the low (index) bits */
	h ^= w;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* Open-addressing table: an entry is a string's hash << 32 | its index + 1
 * (0 is empty), so a probe that meets another string's entry decides
 * without reading that string.  Each string's hash and length are kept
 * (strkey), so growing rehashes no text.  In front, the strings interned
 * last, by the low bits of their hash: names are mostly used soon after
 * they are made (a value on the next line), and those are in the cache
 * where the table's slot is not. */
static void
rehash_strs(Module *m, uint32_t cap)
{
	size_t bytes = (size_t)cap * sizeof *m->strhash;
	free(m->strhash);
	m->strhash = onnxc_table_calloc(cap, sizeof *m->strhash);
	if (!m->strhash)
		ir_oom(bytes);
	m->hcap = cap;
	for (uint32_t i = 0; i < m->nstrs; i++) {
		uint32_t h = (uint32_t)(m->strkey[i] >> 32), j = h;
		while (m->strhash[j & (cap - 1)])
			j++;
		m->strhash[j & (cap - 1)] = (uint64_t)h << 32 | (i + 1);
	}
}

StrId
ir_internn(Module *m, const char *s, size_t n)
{
	if ((m->nstrs + 1) * 2 >= m->hcap)
		rehash_strs(m, m->hcap ? m->hcap * 2 : 1024);
	if (n > UINT32_MAX)
		BUG("string too long to intern");
	uint32_t h = strhash(s, n), j = h;
	uint64_t key = (uint64_t)h << 32 | n;
	uint32_t *recent = &m->strrecent[h & (NRECENT - 1)];
	if (*recent && m->strkey[*recent - 1] == key &&
	    memcmp(m->strs[*recent - 1], s, n) == 0)
		return *recent - 1;
	for (;; j++) {
		uint64_t e = m->strhash[j & (m->hcap - 1)];
		if (!e)
			break;
		uint32_t id = (uint32_t)e - 1;
		if ((uint32_t)(e >> 32) == h && m->strkey[id] == key &&
		    memcmp(m->strs[id], s, n) == 0) {
			*recent = id + 1;
			return id;
		}
	}
	if (m->nstrs == m->cstrs) {
		uint32_t cap = m->cstrs;
		vgrow_nz((void **)&m->strkey, &cap, m->nstrs + 1,
		    sizeof *m->strkey);
		vgrow_nz((void **)&m->strs, &m->cstrs, m->nstrs + 1,
		    sizeof *m->strs);
	}
	m->strs[m->nstrs] = arena_strndup(m->arena, s, n);
	m->strkey[m->nstrs] = key;
	m->strhash[j & (m->hcap - 1)] = (uint64_t)h << 32 | (m->nstrs + 1);
	*recent = m->nstrs + 1;
	return m->nstrs++;
}

void
ir_reserve_strs(Module *m, uint32_t more)
{
	uint64_t want = (uint64_t)m->nstrs + more;
	if (want >= UINT32_MAX / 4)
		return;   /* the table grows as it fills */
	uint32_t cap = m->hcap ? m->hcap : 1024;
	while ((want + 1) * 2 >= cap)
		cap *= 2;
	if (cap != m->hcap)
		rehash_strs(m, cap);
	uint32_t c = m->cstrs;
	vgrow_nz((void **)&m->strkey, &c, (uint32_t)want, sizeof *m->strkey);
	vgrow_nz((void **)&m->strs, &m->cstrs, (uint32_t)want,
	    sizeof *m->strs);
}

/* A hint: ir_internn(m, s, n) comes soon.  Its first probe lands anywhere
 * in a table of millions of entries; fetching the line meanwhile saves
 * most of the wait. */
void
ir_intern_prefetch(const Module *m, const char *s, size_t n)
{
	if (m->strhash)
		__builtin_prefetch(&m->strhash[strhash(s, n) & (m->hcap - 1)]);
}

StrId
ir_intern(Module *m, const char *s)
{
	return ir_internn(m, s, strlen(s));
}

static uint32_t
hashexpr(const Expr *e)
{
	/* hash the fields one by one: padding bytes are not to be trusted */
	uint32_t h = hashbytes(&e->kind, sizeof e->kind);
	h ^= hashbytes(&e->str, sizeof e->str) * 31u;
	h ^= hashbytes(&e->a, sizeof e->a) * 131u;
	h ^= hashbytes(&e->b, sizeof e->b) * 1031u;
	h ^= hashbytes(&e->n, sizeof e->n) * 10007u;
	h ^= hashbytes(&e->f, sizeof e->f) * 100003u;
	return h;
}

static bool
sameexpr(const Expr *x, const Expr *y)
{
	return x->kind == y->kind && x->str == y->str && x->a == y->a &&
	    x->b == y->b && x->n == y->n &&
	    memcmp(&x->f, &y->f, sizeof x->f) == 0;
}

static void
rehash_exprs(Module *m)
{
	uint32_t cap = m->ehcap ? m->ehcap * 2 : 256;
	free(m->exprhash);
	m->exprhash = xrealloc(NULL, cap * sizeof *m->exprhash);
	memset(m->exprhash, 0, cap * sizeof *m->exprhash);
	m->ehcap = cap;
	for (uint32_t i = 1; i < m->nexprs; i++) {
		uint32_t h = hashexpr(&m->exprs[i]);
		while (m->exprhash[h & (cap - 1)])
			h++;
		m->exprhash[h & (cap - 1)] = i;
	}
}

ExprId
ir_expr(Module *m, const Expr *e)
{
	Expr k;
	memset(&k, 0, sizeof k);
	k.kind = e->kind;
	k.str = e->str;
	k.a = e->a;
	k.b = e->b;
	k.n = e->n;
	k.f = e->f;
	if ((m->nexprs + 1) * 2 >= m->ehcap)
		rehash_exprs(m);
	uint32_t h = hashexpr(&k);
	for (;; h++) {
		uint32_t slot = m->exprhash[h & (m->ehcap - 1)];
		if (!slot)
			break;
		if (sameexpr(&m->exprs[slot], &k))
			return slot;
	}
	vgrow((void **)&m->exprs, &m->cexprs, m->nexprs + 1, sizeof *m->exprs);
	m->exprs[m->nexprs] = k;
	m->exprhash[h & (m->ehcap - 1)] = m->nexprs;
	return m->nexprs++;
}

ExprId
ir_expr_int(Module *m, int64_t n)
{
	return ir_expr(m, &(Expr){.kind = E_INT, .n = n});
}

ExprId
ir_expr_sym(Module *m, const char *name)
{
	return ir_expr(m, &(Expr){.kind = E_SYM, .str = ir_intern(m, name)});
}

ExprId
ir_expr_bin(Module *m, ExprKind k, ExprId a, ExprId b)
{
	return ir_expr(m, &(Expr){.kind = (uint8_t)k, .a = a, .b = b});
}

const Expr *
ir_exprp(const Module *m, ExprId e)
{
	if (e == 0 || e >= m->nexprs)
		BUG("bad ExprId %u", e);
	return &m->exprs[e];
}

TensorId
ir_tensor(Module *m, const Tensor *t)
{
	vgrow((void **)&m->tensors, &m->ctensors, m->ntensors + 1,
	    sizeof *m->tensors);
	Tensor *c = &m->tensors[m->ntensors];
	*c = *t;
	c->dims = NULL;
	if (t->rank > 0) {
		c->dims = arena_alloc(m->arena, (size_t)t->rank * sizeof *c->dims);
		memcpy(c->dims, t->dims, (size_t)t->rank * sizeof *c->dims);
	}
	return m->ntensors++;
}

const Tensor *
ir_tensorp(const Module *m, TensorId t)
{
	if (t == 0 || t >= m->ntensors)
		BUG("bad TensorId %u", t);
	return &m->tensors[t];
}

uint64_t
ir_numel(const Tensor *t)
{
	uint64_t n = 1;
	for (int32_t i = 0; i < t->rank; i++)
		n *= (uint64_t)t->dims[i];
	return n;
}

static const char *
srcline(const char *p, size_t n, uint32_t line, size_t *len)
{
	if (!p || line == 0)
		return NULL;
	const char *end = p + n;
	for (uint32_t l = 1; l < line; l++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			return NULL;
		p++;
	}
	const char *e = memchr(p, '\n', (size_t)(end - p));
	*len = (size_t)((e ? e : end) - p);
	return p;
}

const char *
ir_srcline(const Module *m, uint32_t line, size_t *len)
{
	return srcline(m->src, m->srclen, line, len);
}

void
ir_vdiag(Module *m, const char *kind, Loc loc, const char *fmt, va_list ap)
{
	DiagSrc src = {m->file, m->src, m->srclen};
	ir_vdiag_in(m, &src, kind, loc, fmt, ap);
}

void
ir_vdiag_in(Module *m, const DiagSrc *src, const char *kind, Loc loc,
    const char *fmt, va_list ap)
{
	if (kind[0] == 'e')
		m->nerrors++;
	else if (kind[0] == 'w')
		m->nwarnings++;
	if (m->maxerrors && m->nerrors > m->maxerrors)
		return;
	FILE *f = m->diagout;
	if (!f)
		return;
	if (loc.line)
		fprintf(f, "%s:%u:%u: %s: ", src->file, loc.line, loc.col,
		    kind);
	else
		fprintf(f, "%s: %s: ", src->file, kind);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	size_t len = 0;
	const char *line = srcline(src->text, src->len, loc.line, &len);
	if (!line)
		return;
	/* long lines (50 KB def lines) are shown as a window around the col */
	size_t col = loc.col ? loc.col - 1 : 0, from = 0;
	if (col > len)
		col = len;
	if (col > 60)
		from = col - 40;
	size_t show = len - from > 120 ? 120 : len - from;
	fprintf(f, "  %s", from ? "..." : "");
	for (size_t i = 0; i < show; i++) {
		char c = line[from + i];
		fputc(c == '\t' || (unsigned char)c < 32 ? ' ' : c, f);
	}
	fprintf(f, "%s\n  %s", from + show < len ? "..." : "", from ? "   " : "");
	for (size_t i = from; i < col; i++)
		fputc(' ', f);
	fputs("^\n", f);
}

#define DIAGFN(fn, kind) \
	void fn(Module *m, Loc loc, const char *fmt, ...) \
	{ \
		va_list ap; \
		va_start(ap, fmt); \
		ir_vdiag(m, kind, loc, fmt, ap); \
		va_end(ap); \
	}
DIAGFN(ir_error, "error")
DIAGFN(ir_warning, "warning")
DIAGFN(ir_note, "note")

void
ir_note_origin(Module *m, const Node *p)
{
	if (p->name && p->scope) {
		/* the innermost module is the last "path\tClass" line */
		const char *s = ir_str(m, p->scope), *last = strrchr(s, '\n');
		last = last ? last + 1 : s;
		const char *tab = strchr(last, '\t');
		int pl = tab ? (int)(tab - last) : (int)strlen(last);
		if (pl)
			ir_note(m, (Loc){0, 0}, "in FX node '%s' of module "
			    "'%.*s' (%s)", ir_str(m, p->name), pl, last,
			    tab ? tab + 1 : "?");
		else
			ir_note(m, (Loc){0, 0}, "in FX node '%s' of the root "
			    "module (%s)", ir_str(m, p->name),
			    tab ? tab + 1 : "?");
	} else if (p->name) {
		ir_note(m, (Loc){0, 0}, "in FX node '%s'", ir_str(m, p->name));
	}
	if (p->trace) {
		/* a trace of two lines has the user's frame first */
		const char *t = ir_str(m, p->trace), *nl = strchr(t, '\n');
		int tl = nl ? (int)(nl - t) : (int)strlen(t);
		bool torch = memmem(t, (size_t)tl, "/torch/", 7) != NULL;
		ir_note(m, (Loc){0, 0}, "from %s: %.*s", torch ? "torch's code" :
		    "your code", tl, t);
	}
}
