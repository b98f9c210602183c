/* sym_range.c - the constraint tables of a Module: ranges of symbols and
 * expressions (a hash index over m->rng, parsed from the text PyTorch
 * prints in any of its layouts, checked, and printed back as the
 * reference exporter's metadata) and the equality constraints of 2.1-2.2
 * dumps.  sym_bounds (sym.c) reads them.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* The slot of e in the range index: its entry's, or the empty one where
 * it would go. */
static uint32_t
rngslot(const Module *m, ExprId e)
{
	uint32_t mask = m->crngix - 1;
	for (uint32_t i = (e * 2654435761u) & mask;; i = (i + 1) & mask) {
		uint32_t k = m->rngix[i];
		if (!k || m->rng[k - 1].e == e)
			return i;
	}
}

void
sym_range_reindex(Module *m)
{
	uint32_t cap = 16;
	while (cap < 2 * m->nrng + 2)
		cap *= 2;
	if (cap != m->crngix) {
		m->rngix = arena_array(m->arena, cap, sizeof *m->rngix);
		m->crngix = cap;
	} else {
		memset(m->rngix, 0, cap * sizeof *m->rngix);
	}
	for (uint32_t i = 0; i < m->nrng; i++) {
		uint32_t s = rngslot(m, m->rng[i].e);
		if (!m->rngix[s])
			m->rngix[s] = i + 1;  /* the first of duplicates wins */
	}
}

const SymRange *
sym_range_find(const Module *m, ExprId e)
{
	if (!m->crngix)
		return NULL;
	uint32_t k = m->rngix[rngslot(m, e)];
	return k ? &m->rng[k - 1] : NULL;
}

void
sym_range_set(Module *m, ExprId e, int64_t lo, int64_t hi)
{
	if (m->crngix) {
		uint32_t k = m->rngix[rngslot(m, e)];
		if (k) {
			m->rng[k - 1].lo = lo;
			m->rng[k - 1].hi = hi;
			return;
		}
	}
	if (m->nrng == m->crng) {
		uint32_t cap = m->crng ? 2 * m->crng : 8;
		SymRange *n = arena_alloc(m->arena, cap * sizeof *n);
		if (m->nrng)
			memcpy(n, m->rng, m->nrng * sizeof *n);
		m->rng = n;
		m->crng = cap;
	}
	m->rng[m->nrng++] = (SymRange){e, lo, hi};
	if (2 * m->nrng + 2 > m->crngix)
		sym_range_reindex(m);  /* at most half full */
	else
		m->rngix[rngslot(m, e)] = m->nrng;
}

void
sym_eq_add(Module *m, SymEq eq)
{
	if (m->neqs == m->ceqs) {
		uint32_t cap = m->ceqs ? 2 * m->ceqs : 4;
		SymEq *n = arena_alloc(m->arena, cap * sizeof *n);
		if (m->neqs)
			memcpy(n, m->eqs, m->neqs * sizeof *n);
		m->eqs = n;
		m->ceqs = cap;
	}
	m->eqs[m->neqs++] = eq;
}

/* Range text reader. */
typedef struct RP {
	const char *s;
	size_t n, pos;
} RP;

static void
rws(RP *p)
{
	while (p->pos < p->n && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
	    p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static bool
rlit(RP *p, const char *lit)
{
	rws(p);
	size_t k = strlen(lit);
	if (p->n - p->pos < k || memcmp(p->s + p->pos, lit, k) != 0)
		return false;
	p->pos += k;
	return true;
}

/* A bound: an integer, int_oo, oo, inf, math.inf, with an optional sign.
 * sys.maxsize - 1 and above (what 2.1-2.4 printed for "no bound") read as
 * unbounded. */
static bool
rbound(RP *p, int64_t *out)
{
	rws(p);
	bool neg = false;
	if (rlit(p, "-"))
		neg = true;
	rws(p);
	static const char *const inf[] = {"int_oo", "math.inf", "oo", "inf"};
	for (size_t i = 0; i < sizeof inf / sizeof inf[0]; i++) {
		size_t k = strlen(inf[i]);
		if (p->n - p->pos >= k &&
		    memcmp(p->s + p->pos, inf[i], k) == 0) {
			p->pos += k;
			*out = neg ? SYM_NINF : SYM_INF;
			return true;
		}
	}
	size_t start = p->pos;
	uint64_t v = 0;
	while (p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
		uint64_t d = (uint64_t)(p->s[p->pos] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		p->pos++;
	}
	if (p->pos == start)
		return false;
	if (v >= (uint64_t)INT64_MAX - 1)
		*out = neg ? SYM_NINF : SYM_INF;
	else
		*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* key=value arguments of RangeConstraint(...) / ValueRanges(...) */
static bool
rkwargs(RP *p, const char *klo, const char *khi, int64_t *lo, int64_t *hi)
{
	bool gotlo = false, gothi = false;
	while (!rlit(p, ")")) {
		rws(p);
		size_t ks = p->pos;
		while (p->pos < p->n && p->s[p->pos] != '=' &&
		    p->s[p->pos] != ')' && p->s[p->pos] != ',')
			p->pos++;
		size_t kn = p->pos - ks;
		while (kn && p->s[ks + kn - 1] == ' ')
			kn--;
		if (!rlit(p, "="))
			return false;
		if (kn == strlen(klo) && !memcmp(p->s + ks, klo, kn)) {
			if (!rbound(p, lo))
				return false;
			gotlo = true;
		} else if (kn == strlen(khi) && !memcmp(p->s + ks, khi, kn)) {
			if (!rbound(p, hi))
				return false;
			gothi = true;
		} else { /* is_bool=False and the like */
			rws(p);
			while (p->pos < p->n && p->s[p->pos] != ',' &&
			    p->s[p->pos] != ')')
				p->pos++;
		}
		rlit(p, ",");
		if (p->pos >= p->n)
			return false;
	}
	return gotlo && gothi;
}

int
sym_parse_ranges(Module *m, const char *s, size_t n, size_t *errpos)
{
	RP p = {s, n, 0};
	if (!rlit(&p, "{"))
		goto bad;
	while (!rlit(&p, "}")) {
		rws(&p);
		/* the key runs to the ':' outside brackets */
		size_t ks = p.pos;
		int depth = 0;
		while (p.pos < p.n && (depth > 0 || p.s[p.pos] != ':')) {
			char c = p.s[p.pos];
			if (c == '(' || c == '[')
				depth++;
			else if (c == ')' || c == ']')
				depth--;
			else if (c == '}' && depth == 0)
				goto bad;
			p.pos++;
		}
		if (p.pos >= p.n)
			goto bad;
		ExprId key;
		size_t err;
		if (ir_expr_parse(m, s + ks, p.pos - ks, &key, &err) < 0) {
			p.pos = ks + err;
			goto bad;
		}
		p.pos++; /* ':' */
		int64_t lo, hi;
		if (rlit(&p, "VR[")) {
			if (!rbound(&p, &lo) || !rlit(&p, ",") ||
			    !rbound(&p, &hi) || !rlit(&p, "]"))
				goto bad;
		} else if (rlit(&p, "RangeConstraint(")) {
			if (!rkwargs(&p, "min_val", "max_val", &lo, &hi))
				goto bad;
		} else if (rlit(&p, "ValueRanges(")) {
			if (!rkwargs(&p, "lower", "upper", &lo, &hi))
				goto bad;
		} else {
			goto bad;
		}
		sym_range_set(m, key, lo, hi);
		if (!rlit(&p, ",")) {
			if (!rlit(&p, "}"))
				goto bad;
			break;
		}
	}
	rws(&p);
	if (p.pos != p.n)
		goto bad;
	return 0;
bad:
	if (errpos)
		*errpos = p.pos;
	return -1;
}

const char *
sym_check_ranges(const Module *m, ExprId *bad)
{
	for (uint32_t i = 0; i < m->nrng; i++) {
		const char *why = ir_expr_check(m, m->rng[i].e, bad);
		if (why)
			return why;
		*bad = m->rng[i].e;
		if (m->rng[i].lo > m->rng[i].hi)
			return "the lower bound is above the upper bound";
	}
	return NULL;
}

static void
putbound(char *buf, size_t cap, int64_t v)
{
	if (v == SYM_INF)
		snprintf(buf, cap, "int_oo");
	else if (v == SYM_NINF)
		snprintf(buf, cap, "-int_oo");
	else
		snprintf(buf, cap, "%lld", (long long)v);
}

const char *
sym_ranges_text(Module *m)
{
	size_t cap = 3, len = 0;
	for (uint32_t i = 0; i < m->nrng; i++)
		cap += (size_t)sym_print(m, m->rng[i].e, NULL, 0) + 64;
	char *out = arena_alloc(m->arena, cap);
	out[len++] = '{';
	for (uint32_t i = 0; i < m->nrng; i++) {
		char lo[24], hi[24];
		putbound(lo, sizeof lo, m->rng[i].lo);
		putbound(hi, sizeof hi, m->rng[i].hi);
		if (i)
			len = str_addf(out, cap, len, ", ");
		len = sym_add(m, m->rng[i].e, out, cap, len);
		len = str_addf(out, cap, len, ": VR[%s, %s]", lo, hi);
	}
	str_addf(out, cap, len, "}");
	return out;
}
