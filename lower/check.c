/* check.c - the checker's driver and the helpers its rules share: the
 * schema check (extra, missing and unknown arguments), argument places in
 * the dump, readers of static arguments, dims and result annotations. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* ---------------------------------------------------- places in the dump */

/* Past the argument starting at s (nested brackets and strings skipped):
 * the ',' or ')' that ends it, or e. */
static const char *
skip_arg(const char *s, const char *e)
{
	int depth = 0;
	for (; s < e; s++) {
		if (*s == '"' || *s == '\'') {
			char q = *s;
			for (s++; s < e && *s != q; s++)
				if (*s == '\\')
					s++;
			continue;
		}
		if (*s == '(' || *s == '[' || *s == '{')
			depth++;
		else if ((*s == ')' || *s == ']' || *s == '}') && depth-- == 0)
			return s;
		else if (*s == ',' && depth == 0)
			return s;
	}
	return e;
}

static const char *
skip_space(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* Element elem of the list starting at s ('[' or '('), or NULL. */
static const char *
list_elem(const char *s, const char *e, int elem)
{
	if (s >= e || (*s != '[' && *s != '('))
		return elem == 0 ? s : NULL; /* a lone int stands for [int] */
	s++;
	for (int k = 0; s < e; k++) {
		s = skip_space(s, e);
		if (k == elem)
			return s < e && *s != ']' && *s != ')' ? s : NULL;
		s = skip_arg(s, e);
		if (s >= e || *s != ',')
			return NULL;
		s++;
	}
	return NULL;
}

Loc
lwc_argloc(Lower *L, int i, const char *kw, int elem)
{
	const Node *n = lw_node(L);
	size_t len;
	const char *line = ir_srcline(L->m, n->loc.line, &len);
	if (!line || !n->loc.col || n->loc.col > len)
		return n->loc;
	const char *e = line + len;
	const char *s = memchr(line + n->loc.col - 1, '(',
	    len - (n->loc.col - 1));
	if (!s)
		return n->loc;
	s++;
	size_t kl = kw ? strlen(kw) : 0;
	for (int k = 0; s < e; k++) {
		s = skip_space(s, e);
		const char *eq = s;
		while (eq < e && (*eq == '_' || (*eq >= 'a' && *eq <= 'z') ||
		    (*eq >= 'A' && *eq <= 'Z') || (*eq >= '0' && *eq <= '9')))
			eq++;
		const char *nend = eq; /* torch prints "key = value" */
		eq = skip_space(eq, e);
		bool keyed = nend > s && eq + 1 < e && *eq == '=' &&
		    eq[1] != '=';
		const char *at = NULL;
		if (keyed && kw && (size_t)(nend - s) == kl &&
		    !memcmp(s, kw, kl))
			at = eq + 1;
		else if (!keyed && k == i)
			at = s;
		if (at) {
			at = skip_space(at, e);
			if (elem >= 0)
				at = list_elem(at, e, elem);
			if (!at)
				break;
			return (Loc){n->loc.line, (uint32_t)(at - line) + 1};
		}
		s = skip_arg(s, e);
		if (s >= e || *s != ',')
			break;
		s++;
	}
	return n->loc;
}

int
lwc_fail(Lower *L, int i, const char *kw, int elem, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ir_error(L->m, lwc_argloc(L, i, kw, elem), "%s: %s",
	    ir_str(L->m, lw_node(L)->op), msg);
	L->failed = true;
	return -1;
}

/* ---------------------------------------------------------------- readers */

bool
lwc_int(Lower *L, int i, const char *kw, int64_t dflt, int64_t *out)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind == A_NONE) {
		*out = dflt;
		return true;
	}
	return lw_static_int(L, a, out);
}

bool
lwc_num(Lower *L, int i, const char *kw, double *f, int64_t *n, bool *isint)
{
	const Arg *a = lw_arg(L, i, kw);
	if (a && a->kind == A_FLOAT) {
		*f = a->u.f;
		*isint = false;
		return true;
	}
	if (a && lw_static_int(L, a, n)) {
		*f = (double)*n;
		*isint = true;
		return true;
	}
	return false;
}

int
lwc_ints(Lower *L, int i, const char *kw, int64_t *out, bool *known, int cap)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind == A_NONE)
		return -1;
	if (a->kind != A_LIST && a->kind != A_TUPLE) {
		if (cap < 1 || (a->kind != A_INT && a->kind != A_VAL))
			return -1;
		known[0] = lw_static_int(L, a, &out[0]);
		return 1;
	}
	if ((int)a->u.list.n > cap)
		return -1;
	const Arg *it = ir_items(L->src, a);
	for (uint32_t k = 0; k < a->u.list.n; k++) {
		if (it[k].kind != A_INT && it[k].kind != A_VAL &&
		    it[k].kind != A_BOOL)
			return -1;
		known[k] = lw_static_int(L, &it[k], &out[k]);
	}
	return (int)a->u.list.n;
}

const Value *
lwc_tensor(Lower *L, int i, const char *kw, int *rank)
{
	const Value *v = lw_srcval(L, i, kw);
	*rank = v && v->kind == VK_TENSOR && v->rank >= 0 &&
	    v->rank <= LW_MAXRANK ? v->rank : -1;
	return *rank >= 0 ? v : NULL;
}

bool
lwc_shape(Lower *L, int i, const char *kw, LwcShape *s)
{
	const Value *v = lwc_tensor(L, i, kw, &s->rank);
	if (!v)
		return false;
	for (int d = 0; d < s->rank; d++)
		s->k[d] = lw_sdim(L, v, d, &s->d[d]);
	return true;
}

bool
lwc_all_known(const bool *k, int n)
{
	for (int d = 0; d < n; d++)
		if (!k[d])
			return false;
	return true;
}

double
lwc_shown(double f)
{
	return isnan(f) ? fabs(f) : f;
}

int
lwc_dim(Lower *L, int i, const char *kw, int elem, int64_t *d, int r)
{
	int64_t n = r > 0 ? r : 1;
	if (*d < -n || *d >= n)
		return lwc_fail(L, i, kw, elem, "Dimension out of range "
		    "(expected to be in range of [%lld, %lld], but got %lld)",
		    (long long)-n, (long long)(n - 1), (long long)*d);
	if (*d < 0)
		*d += n;
	return 0;
}

const char *
lwc_fmt_shape(char *buf, size_t n, const int64_t *v, const bool *known,
    int cnt)
{
	size_t o = str_addf(buf, n, 0, "[");
	for (int k = 0; k < cnt && o < n; k++) {
		if (!known || known[k])
			o = str_addf(buf, n, o, "%s%lld", k ? ", " : "",
			    (long long)v[k]);
		else
			o = str_addf(buf, n, o, "%s?", k ? ", " : "");
	}
	str_addf(buf, n, o, "]");
	return buf;
}

int
lwc_result(Lower *L, int k, const int64_t *dims, const bool *known, int rank)
{
	const Node *n = lw_node(L);
	if ((uint32_t)k >= n->nout)
		return 0;
	const Value *v = lw_outval(L, k);
	if (v->kind != VK_TENSOR || v->rank < 0)
		return 0;
	bool bad = v->rank != rank;
	for (int d = 0; d < rank && !bad; d++) {
		int64_t a;
		if ((!known || known[d]) && lw_dim_static(v, L->src, d, &a) &&
		    a != dims[d])
			bad = true;
	}
	if (!bad)
		return 0;
	char want[256], got[256];
	int64_t ann[LW_MAXRANK];
	bool ak[LW_MAXRANK];
	int ar = v->rank < LW_MAXRANK ? v->rank : LW_MAXRANK;
	for (int d = 0; d < ar; d++)
		ak[d] = lw_dim_static(v, L->src, d, &ann[d]);
	lwc_fmt_shape(want, sizeof want, dims, known, rank);
	lwc_fmt_shape(got, sizeof got, ann, ak, ar);
	ir_error(L->m, n->loc, "%s: the annotation of '%s' says %s, but the "
	    "op computes %s", ir_str(L->m, n->op), ir_str(L->m, v->name), got,
	    want);
	L->failed = true;
	return -1;
}

/* ----------------------------------------------------------------- schema */

/* Parameter k of a schema string: name (len), default?, keyword-only? */
typedef struct Param {
	const char *name;
	size_t len;
	bool dflt, kwonly;
} Param;

static int
parse_params(const char *s, Param *p, int cap)
{
	int n = 0;
	bool kwonly = false;
	while (*s && n < cap) {
		while (*s == ' ')
			s++;
		const char *b = s;
		while (*s && *s != ' ')
			s++;
		if (s == b)
			break;
		if (s - b == 1 && *b == '*') {
			kwonly = true;
			continue;
		}
		bool d = s[-1] == '=';
		p[n++] = (Param){b, (size_t)(s - b) - d, d, kwonly};
	}
	return n;
}

static const char *
decl(const IrOp *sc, char *buf, size_t n)
{
	snprintf(buf, n, "%s(%s)", sc->op, sc->schema);
	return buf;
}

/* Extra positional arguments, unknown or repeated keywords, missing
 * required ones: torch's schema matching. */
static int
check_schema(Lower *L, const IrOp *sc)
{
	enum { MAXP = 32 };
	Param p[MAXP];
	int np = parse_params(sc->schema, p, MAXP), npos = 0;
	bool given[MAXP] = {false};
	char d[512];
	while (npos < np && !p[npos].kwonly)
		npos++;
	const Node *n = lw_node(L);
	const Arg *args = &L->src->args[n->args];
	int pos = 0;
	for (uint32_t k = 0; k < n->nargs; k++) {
		if (!args[k].key) {
			if (pos >= npos)
				return lwc_fail(L, pos, NULL, -1, "expected at "
				    "most %d positional argument(s) but got "
				    "%d. Declaration: %s", npos, pos + 1,
				    decl(sc, d, sizeof d));
			given[pos++] = true;
			continue;
		}
		const char *key = ir_str(L->m, args[k].key);
		int j = 0;
		while (j < np && (strlen(key) != p[j].len ||
		    memcmp(key, p[j].name, p[j].len)))
			j++;
		if (j == np)
			return lwc_fail(L, -1, key, -1, "got an unexpected "
			    "keyword argument '%s'. Declaration: %s", key,
			    decl(sc, d, sizeof d));
		if (given[j])
			return lwc_fail(L, -1, key, -1, "argument '%s' given "
			    "twice. Declaration: %s", key,
			    decl(sc, d, sizeof d));
		given[j] = true;
	}
	for (int j = 0; j < np; j++)
		if (!given[j] && !p[j].dflt)
			return lwc_fail(L, -1, NULL, -1, "missing value for "
			    "argument '%.*s'. Declaration: %s", (int)p[j].len,
			    p[j].name, decl(sc, d, sizeof d));
	return 0;
}

/* ----------------------------------------------------------------- driver */

/* Op name -> schema and rule, indexed by StrId for O(1) lookups; per
 * schema, what a call of positional arguments only needs (plain). */
typedef struct Plain {
	uint8_t npos;  /* at most this many */
	uint8_t need;  /* at least this many: past the last required one */
} Plain;

typedef struct Table {
	const IrOp **schema;
	Plain *plain;
	LwcFn *fn;
	uint32_t n;
} Table;

static Plain
plain_of(const IrOp *sc)
{
	enum { MAXP = 32 };  /* as check_schema */
	Param p[MAXP];
	int np = parse_params(sc->schema, p, MAXP), npos = 0, need = 0;
	while (npos < np && !p[npos].kwonly)
		npos++;
	for (int j = 0; j < np; j++)
		if (!p[j].dflt)
			need = j + 1;
	return (Plain){(uint8_t)npos, (uint8_t)need};
}

/* check_schema's verdict without parsing the schema, for the usual call:
 * positional arguments only, as many as the schema takes and needs. */
static bool
plain_ok(Lower *L, Plain pl)
{
	const Node *n = lw_node(L);
	const Arg *args = &L->src->args[n->args];
	if (n->nargs > pl.npos || n->nargs < pl.need)
		return false;
	for (uint32_t k = 0; k < n->nargs; k++)
		if (args[k].key)
			return false;
	return true;
}

static void
table_build(Module *m, Table *t)
{
	for (uint32_t k = 0; k < ir_nops; k++)
		if (ir_ops[k].schema)
			ir_intern(m, ir_ops[k].op);
#define LWC_TABLE(file) lwc_rules_##file,
	const LwcRule *const tables[] = {LWC_FILES(LWC_TABLE)};
#undef LWC_TABLE
	for (size_t k = 0; k < sizeof tables / sizeof *tables; k++)
		for (const LwcRule *r = tables[k]; r->op; r++)
			ir_intern(m, r->op);
	t->n = m->nstrs;
	t->schema = arena_array(m->scratch, t->n + 1, sizeof *t->schema);
	t->plain = arena_array(m->scratch, t->n + 1, sizeof *t->plain);
	t->fn = arena_array(m->scratch, t->n + 1, sizeof *t->fn);
	for (uint32_t k = 0; k < ir_nops; k++)
		if (ir_ops[k].schema) {
			StrId op = ir_intern(m, ir_ops[k].op);
			t->schema[op] = &ir_ops[k];
			t->plain[op] = plain_of(&ir_ops[k]);
		}
	for (size_t k = 0; k < sizeof tables / sizeof *tables; k++)
		for (const LwcRule *r = tables[k]; r->op; r++)
			t->fn[ir_intern(m, r->op)] = r->fn;
}

int
lwc_check_graph(Lower *L)
{
	Table t;
	ArenaMark tmk = arena_mark(L->m->scratch);
	table_build(L->m, &t);
	bool bad = false;
	ArenaMark mk = arena_mark(L->m->scratch);
	for (NodeId n = 1; n < L->src->nnodes; n++) {
		StrId op = ir_nodep(L->src, n)->op;
		if (op >= t.n || (!t.schema[op] && !t.fn[op]))
			continue;
		L->node = n;
		L->failed = false;
		/* the shape rule reads arguments the schema vouched for */
		if ((!t.schema[op] || plain_ok(L, t.plain[op]) ||
		    check_schema(L, t.schema[op]) == 0) &&
		    t.fn[op])
			t.fn[op](L);
		bad |= lw_failed(L);
		arena_release(L->m->scratch, mk); /* the rules' lw_scratch */
	}
	L->node = 0;
	L->failed = false;
	arena_release(L->m->scratch, tmk);
	return bad ? -1 : 0;
}
