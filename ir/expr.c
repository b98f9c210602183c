/* expr.c - symbolic expressions as PyTorch prints them (sympy str form).
 *
 * The parser accepts Python operator syntax with Python precedence plus the
 * function spellings sympy and torch.utils._sympy use (Max, Min, ToFloat,
 * FloorDiv, Mod, Eq, Ne, CeilToInt, ...).  Subtraction has no Expr kind of
 * its own: a - b is E_ADD(a, E_NEG(b)), and the printer turns that back into
 * "a - b", so that print(parse(t)) == t for what sympy prints.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ckint.h"
#include "ir.h"

/* Deeper nesting is reported rather than recursed into (fuzzed input). */
#define MAXDEPTH 64
/* Operators in one expression.  Loops build left-leaning chains
 * (s0 + s0 + ...) that nesting does not limit, and passes walk
 * expressions recursively: this bounds their height too. */
#define MAXOPS 1024

typedef struct {
	Module *m;
	const char *s;
	size_t n, pos;
	int depth;
	int nops;
	size_t errpos;
	bool err;
} EP;

static ExprId disj(EP *p);
static ExprId unary(EP *p);

static void
fail(EP *p, size_t at)
{
	if (!p->err) {
		p->err = true;
		p->errpos = at;
	}
}

static void
skipws(EP *p)
{
	while (p->pos < p->n && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
		p->pos++;
}

static bool
isname0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
isdigit_(char c)
{
	return c >= '0' && c <= '9';
}

/* Is the next token the operator op (and not a longer one)? */
static bool
accept(EP *p, const char *op)
{
	skipws(p);
	size_t k = strlen(op);
	if (p->n - p->pos < k || memcmp(p->s + p->pos, op, k) != 0)
		return false;
	char nx = p->pos + k < p->n ? p->s[p->pos + k] : 0;
	/* "*" is not "**", "/" is not "//", "<" is not "<=" ... */
	if ((op[0] == '*' && k == 1 && nx == '*') ||
	    (op[0] == '/' && k == 1 && nx == '/') ||
	    ((op[0] == '<' || op[0] == '>' || op[0] == '=' || op[0] == '!') &&
	    k == 1 && nx == '='))
		return false;
	p->pos += k;
	return true;
}

/* Is the next token the keyword kw? */
static bool
acceptkw(EP *p, const char *kw)
{
	skipws(p);
	size_t k = strlen(kw);
	if (p->n - p->pos < k || memcmp(p->s + p->pos, kw, k) != 0)
		return false;
	if (p->pos + k < p->n && (isname0(p->s[p->pos + k]) ||
	    isdigit_(p->s[p->pos + k])))
		return false;
	p->pos += k;
	return true;
}

/* Count an operator; false (and failed at the current position) when
 * the expression has too many. */
static bool
op(EP *p)
{
	if (++p->nops <= MAXOPS)
		return true;
	fail(p, p->pos);
	return false;
}

static ExprId
mk(EP *p, ExprKind k, ExprId a, ExprId b)
{
	if (p->err || !op(p))
		return 0;
	return ir_expr_bin(p->m, k, a, b);
}

static ExprId
number(EP *p)
{
	size_t start = p->pos, i = p->pos;
	bool isfloat = false;
	while (i < p->n && isdigit_(p->s[i]))
		i++;
	if (i < p->n && p->s[i] == '.') {
		isfloat = true;
		i++;
		while (i < p->n && isdigit_(p->s[i]))
			i++;
	}
	if (i < p->n && (p->s[i] == 'e' || p->s[i] == 'E')) {
		size_t j = i + 1;
		if (j < p->n && (p->s[j] == '+' || p->s[j] == '-'))
			j++;
		if (j < p->n && isdigit_(p->s[j])) {
			isfloat = true;
			i = j;
			while (i < p->n && isdigit_(p->s[i]))
				i++;
		}
	}
	p->pos = i;
	if (isfloat) {
		char buf[80];
		size_t len = i - start;
		if (len >= sizeof buf) {
			fail(p, start);
			return 0;
		}
		memcpy(buf, p->s + start, len);
		buf[len] = 0;
		Expr e = {.kind = E_FLOAT, .f = strtod(buf, NULL)};
		return ir_expr(p->m, &e);
	}
	uint64_t v = 0;
	for (size_t k = start; k < i; k++) {
		uint64_t d = (uint64_t)(p->s[k] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			fail(p, start);
			return 0;
		}
		v = v * 10 + d;
	}
	if (v > (uint64_t)INT64_MAX) {
		fail(p, start);
		return 0;
	}
	return ir_expr_int(p->m, (int64_t)v);
}

/* Function-call spellings with an Expr kind of their own. */
static const struct {
	const char *name;
	uint8_t kind;
	uint8_t nargs; /* 0: two or more, folded to the right */
} fns[] = {
	{"Max", E_MAX, 0},       {"Min", E_MIN, 0},
	{"ToFloat", E_TOFLOAT, 1}, {"FloorDiv", E_FLOORDIV, 2},
	{"Eq", E_EQ, 2},         {"Ne", E_NE, 2},
	{"Lt", E_LT, 2},         {"Le", E_LE, 2},
	{"Gt", E_GT, 2},         {"Ge", E_GE, 2},
	{"StrictLessThan", E_LT, 2}, {"StrictGreaterThan", E_GT, 2},
	{"LessThan", E_LE, 2},   {"GreaterThan", E_GE, 2},
	{"And", E_AND, 0},       {"Or", E_OR, 0},
	{"Not", E_NOT, 1},
};

static ExprId
call(EP *p, size_t namepos, size_t namelen)
{
	ExprId args[64];
	size_t argpos[64];
	uint32_t nargs = 0;
	skipws(p);
	if (!accept(p, ")")) {
		for (;;) {
			skipws(p);
			size_t at = p->pos;
			ExprId a = disj(p);
			if (p->err)
				return 0;
			if (nargs == 64) {
				fail(p, at);
				return 0;
			}
			argpos[nargs] = at;
			args[nargs++] = a;
			if (accept(p, ","))
				continue;
			if (accept(p, ")"))
				break;
			skipws(p);
			fail(p, p->pos);
			return 0;
		}
	}
	const char *name = p->s + namepos;
	if (!op(p))
		return 0;
	if (namelen == 3 && memcmp(name, "Mod", 3) == 0) {
		if (nargs != 2) {
			fail(p, namepos);
			return 0;
		}
		/* Mod(a, b) keeps its spelling: str marks it for the printer */
		Expr e = {.kind = E_MOD, .str = ir_intern(p->m, "Mod"),
		    .a = args[0], .b = args[1]};
		return ir_expr(p->m, &e);
	}
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		if (strlen(fns[i].name) != namelen ||
		    memcmp(fns[i].name, name, namelen) != 0)
			continue;
		if (fns[i].nargs ? nargs != fns[i].nargs : nargs < 2) {
			fail(p, namepos);
			return 0;
		}
		if (fns[i].nargs == 1)
			return mk(p, fns[i].kind, args[0], 0);
		ExprId r = args[nargs - 1];
		for (uint32_t k = nargs - 1; k-- > 0;)
			r = mk(p, fns[i].kind, args[k], r);
		return r;
	}
	/* any other function keeps its name; at most two operands */
	if (nargs == 0 || nargs > 2) {
		fail(p, nargs > 2 ? argpos[2] : namepos);
		return 0;
	}
	Expr e = {.kind = E_CALL, .str = ir_internn(p->m, name, namelen),
	    .a = args[0], .b = nargs > 1 ? args[1] : 0};
	return ir_expr(p->m, &e);
}

static ExprId
atom(EP *p)
{
	skipws(p);
	if (p->pos >= p->n) {
		fail(p, p->pos);
		return 0;
	}
	char c = p->s[p->pos];
	if (isdigit_(c) || (c == '.' && p->pos + 1 < p->n &&
	    isdigit_(p->s[p->pos + 1])))
		return number(p);
	if (isname0(c)) {
		size_t start = p->pos;
		while (p->pos < p->n && (isname0(p->s[p->pos]) ||
		    isdigit_(p->s[p->pos])))
			p->pos++;
		size_t len = p->pos - start;
		skipws(p);
		if (p->pos < p->n && p->s[p->pos] == '(') {
			if (++p->depth > MAXDEPTH) {
				fail(p, p->pos);
				return 0;
			}
			p->pos++;
			ExprId r = call(p, start, len);
			p->depth--;
			return r;
		}
		Expr e = {.kind = E_SYM,
		    .str = ir_internn(p->m, p->s + start, len)};
		return ir_expr(p->m, &e);
	}
	if (c == '(') {
		if (++p->depth > MAXDEPTH) {
			fail(p, p->pos);
			return 0;
		}
		p->pos++;
		ExprId r = disj(p);
		if (p->err)
			return 0;
		if (!accept(p, ")")) {
			skipws(p);
			fail(p, p->pos);
			return 0;
		}
		p->depth--;
		return r;
	}
	fail(p, p->pos);
	return 0;
}

static ExprId
power(EP *p)
{
	ExprId a = atom(p);
	if (p->err)
		return 0;
	if (accept(p, "**")) {
		ExprId b = unary(p);
		return mk(p, E_POW, a, b);
	}
	return a;
}

static ExprId
unary(EP *p)
{
	skipws(p);
	if (++p->depth > MAXDEPTH) {
		fail(p, p->pos);
		return 0;
	}
	ExprId r;
	if (accept(p, "-")) {
		r = unary(p);
		if (!p->err) {
			/* a negative literal is a number, not a negation */
			const Expr *e = ir_exprp(p->m, r);
			if (e->kind == E_INT && e->n != INT64_MIN)
				r = ir_expr_int(p->m, -e->n);
			else if (e->kind == E_FLOAT)
				r = ir_expr(p->m, &(Expr){.kind = E_FLOAT,
				    .f = -e->f});
			else
				r = mk(p, E_NEG, r, 0);
		}
	} else if (accept(p, "+")) {
		r = unary(p);
	} else if (accept(p, "~")) {
		r = unary(p);
		r = mk(p, E_NOT, r, 0);
	} else {
		r = power(p);
	}
	p->depth--;
	return r;
}

static ExprId
term(EP *p)
{
	ExprId a = unary(p);
	while (!p->err) {
		ExprKind k;
		if (accept(p, "*"))
			k = E_MUL;
		else if (accept(p, "//"))
			k = E_FLOORDIV;
		else if (accept(p, "/"))
			k = E_TRUEDIV;
		else if (accept(p, "%"))
			k = E_MOD;
		else
			break;
		ExprId b = unary(p);
		a = mk(p, k, a, b);
	}
	return a;
}

static ExprId
arith(EP *p)
{
	ExprId a = term(p);
	while (!p->err) {
		if (accept(p, "+")) {
			ExprId b = term(p);
			a = mk(p, E_ADD, a, b);
		} else if (accept(p, "-")) {
			ExprId b = term(p);
			if (p->err)
				break;
			/* a - 3 is a + (-3), like sympy's Add(a, -3) */
			const Expr *e = ir_exprp(p->m, b);
			if (e->kind == E_INT && e->n != INT64_MIN)
				b = ir_expr_int(p->m, -e->n);
			else
				b = mk(p, E_NEG, b, 0);
			a = mk(p, E_ADD, a, b);
		} else {
			break;
		}
	}
	return a;
}

static ExprId
band(EP *p)
{
	ExprId a = arith(p);
	while (!p->err && accept(p, "&")) {
		ExprId b = arith(p);
		a = mk(p, E_AND, a, b);
	}
	return a;
}

static ExprId
bor(EP *p)
{
	ExprId a = band(p);
	while (!p->err && accept(p, "|")) {
		ExprId b = band(p);
		a = mk(p, E_OR, a, b);
	}
	return a;
}

static ExprId
comp(EP *p)
{
	ExprId a = bor(p);
	if (p->err)
		return 0;
	static const struct {
		const char *op;
		uint8_t kind;
	} rel[] = {
		{"==", E_EQ}, {"!=", E_NE}, {"<=", E_LE}, {">=", E_GE},
		{"<", E_LT}, {">", E_GT},
	};
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		if (!accept(p, rel[i].op))
			continue;
		ExprId b = bor(p);
		a = mk(p, rel[i].kind, a, b);
		/* chained comparisons (a < b < c) are not sympy output */
		skipws(p);
		size_t at = p->pos;
		for (size_t j = 0; j < sizeof rel / sizeof rel[0]; j++)
			if (!p->err && accept(p, rel[j].op))
				fail(p, at);
		break;
	}
	return a;
}

static ExprId
negation(EP *p)
{
	if (acceptkw(p, "not")) {
		if (++p->depth > MAXDEPTH) {
			fail(p, p->pos);
			return 0;
		}
		ExprId a = negation(p);
		p->depth--;
		return mk(p, E_NOT, a, 0);
	}
	return comp(p);
}

static ExprId
conjunction(EP *p)
{
	ExprId a = negation(p);
	while (!p->err && acceptkw(p, "and")) {
		ExprId b = negation(p);
		a = mk(p, E_AND, a, b);
	}
	return a;
}

static ExprId
disj(EP *p)
{
	ExprId a = conjunction(p);
	while (!p->err && acceptkw(p, "or")) {
		ExprId b = conjunction(p);
		a = mk(p, E_OR, a, b);
	}
	return a;
}

int
ir_expr_parse(Module *m, const char *s, size_t n, ExprId *out,
    size_t *errpos)
{
	EP p = {.m = m, .s = s, .n = n};
	ExprId e = disj(&p);
	skipws(&p);
	if (!p.err && p.pos < n)
		fail(&p, p.pos);
	if (p.err) {
		if (errpos)
			*errpos = p.errpos;
		return -1;
	}
	*out = e;
	return 0;
}

/* The value of e when it is an integer constant expression (isconst), and
 * the first reason it is impossible: a division or modulo by zero, int64
 * overflow, or a power no size can be.  Trees from the parser are bounded
 * by MAXOPS; depth bounds what other callers build. */
static const char *
check(const Module *m, ExprId e, int64_t *val, bool *isconst, ExprId *bad,
    int depth)
{
	const Expr *x = ir_exprp(m, e);
	int64_t a = 0, b = 0;
	bool ca = false, cb = false;
	const char *why = NULL;
	*isconst = false;
	*bad = e;
	if (depth > MAXDEPTH * 4)
		return "expression nested too deeply";
	if (x->kind == E_INT) {
		*val = x->n;
		*isconst = true;
		return NULL;
	}
	if (x->a && (why = check(m, x->a, &a, &ca, bad, depth + 1)))
		return why;
	if (x->b && (why = check(m, x->b, &b, &cb, bad, depth + 1)))
		return why;
	*bad = e;
	const Expr *y = x->b ? ir_exprp(m, x->b) : NULL;
	bool zero = y && ((cb && b == 0) || (y->kind == E_FLOAT && y->f == 0));
	switch (x->kind) {
	case E_FLOORDIV: case E_TRUEDIV:
		if (zero)
			return "division by zero";
		*isconst = ca && cb && x->kind == E_FLOORDIV;
		if (*isconst && !ck_floordiv(a, b, val))
			return "integer overflow";
		return NULL;
	case E_MOD:
		if (zero)
			return "modulo by zero";
		*isconst = ca && cb;
		return *isconst && !ck_mod(a, b, val) ? "integer overflow" : NULL;
	case E_ADD: case E_MUL: case E_NEG:
		*isconst = ca && (x->kind == E_NEG || cb);
		if (*isconst && !(x->kind == E_ADD ? ck_add(a, b, val)
		    : x->kind == E_MUL ? ck_mul(a, b, val) : ck_neg(a, val)))
			return "integer overflow";
		return NULL;
	case E_POW:
		if (!cb)
			return NULL;
		if (b < 0 && ca && a == 0)
			return "division by zero";
		if (b > 63 && !(ca && (a == 0 || a == 1 || a == -1)))
			return "exponent too large: no int64 size can be this "
			    "power";
		*isconst = ca && b >= 0;
		return *isconst && !ck_pow(a, b, val) ? "integer overflow"
		    : NULL;
	default:
		return NULL;
	}
}

const char *
ir_expr_check(const Module *m, ExprId e, ExprId *bad)
{
	int64_t v;
	bool c;
	ExprId b;
	const char *why = check(m, e, &v, &c, &b, 0);
	if (bad)
		*bad = b;
	return why;
}

/* Printing.  Precedence levels, loosest first; an operand is put in
 * parentheses when its level is below what its position needs. */
enum {
	P_LOW,
	P_REL,   /* a > b */
	P_BOR,   /* a | b */
	P_BAND,  /* a & b */
	P_ADD,   /* a + b, a - b */
	P_MUL,   /* a*b, a/b, a % b */
	P_UNARY, /* -a, ~a, negative numbers */
	P_POW,   /* a**b */
	P_ATOM
};

typedef struct {
	char *buf;
	size_t cap, len;
} Out;

static void
put(Out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->len++)
		if (o->len + 1 < o->cap)
			o->buf[o->len] = s[i];
}

static void
puts_(Out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void
putint(Out *o, int64_t n)
{
	char b[32];
	snprintf(b, sizeof b, "%lld", (long long)n);
	puts_(o, b);
}

/* The shortest text that reads back as f, with a '.' or exponent so that
 * it stays a float (Python repr style). */
static void
putfloat(Out *o, double f)
{
	char b[64];
	if (isnan(f)) {
		puts_(o, "nan");
		return;
	}
	if (isinf(f)) {
		puts_(o, f < 0 ? "-oo" : "oo");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(b, sizeof b, "%.*g", prec, f);
		if (strtod(b, NULL) == f)
			break;
	}
	if (!strpbrk(b, ".eEn"))
		strcat(b, ".0");
	puts_(o, b);
}

static int
level(const Module *m, ExprId id)
{
	const Expr *e = ir_exprp(m, id);
	switch (e->kind) {
	case E_INT:
		return e->n < 0 ? P_UNARY : P_ATOM;
	case E_FLOAT:
		return e->f < 0 || signbit(e->f) ? P_UNARY : P_ATOM;
	case E_SYM: case E_MAX: case E_MIN: case E_TOFLOAT: case E_CALL:
	case E_FLOORDIV: case E_EQ: case E_NE:
		return P_ATOM;
	case E_ADD:
		return P_ADD;
	case E_MUL: case E_TRUEDIV:
		return P_MUL;
	case E_MOD:
		return e->str ? P_ATOM : P_MUL;
	case E_POW:
		return P_POW;
	case E_NEG: case E_NOT:
		return P_UNARY;
	case E_LT: case E_LE: case E_GT: case E_GE:
		return P_REL;
	case E_AND:
		return P_BAND;
	case E_OR:
		return P_BOR;
	}
	return P_ATOM;
}

static void pr(const Module *m, ExprId id, int need, Out *o, int depth);

static void
prargs(const Module *m, const char *fn, ExprId a, ExprId b, Out *o,
    int depth)
{
	puts_(o, fn);
	puts_(o, "(");
	pr(m, a, P_LOW, o, depth);
	if (b) {
		puts_(o, ", ");
		pr(m, b, P_LOW, o, depth);
	}
	puts_(o, ")");
}

static void
prbin(const Module *m, const Expr *e, const char *op, int la, int lb,
    Out *o, int depth)
{
	pr(m, e->a, la, o, depth);
	puts_(o, op);
	pr(m, e->b, lb, o, depth);
}

static void
pr(const Module *m, ExprId id, int need, Out *o, int depth)
{
	if (id == 0 || depth > 4 * MAXDEPTH) {
		puts_(o, "?");
		return;
	}
	const Expr *e = ir_exprp(m, id);
	bool paren = level(m, id) < need;
	if (paren)
		puts_(o, "(");
	depth++;
	switch (e->kind) {
	case E_INT:
		putint(o, e->n);
		break;
	case E_FLOAT:
		putfloat(o, e->f);
		break;
	case E_SYM:
		puts_(o, ir_str(m, e->str));
		break;
	case E_ADD: {
		pr(m, e->a, P_ADD, o, depth);
		const Expr *b = ir_exprp(m, e->b);
		if (b->kind == E_NEG) {
			puts_(o, " - ");
			pr(m, b->a, P_MUL, o, depth);
		} else if (b->kind == E_INT && b->n < 0) {
			char t[32];
			snprintf(t, sizeof t, " - %llu",
			    0ull - (unsigned long long)b->n);
			puts_(o, t);
		} else if (b->kind == E_FLOAT && b->f < 0) {
			puts_(o, " - ");
			putfloat(o, -b->f);
		} else {
			puts_(o, " + ");
			pr(m, e->b, P_ADD + 1, o, depth);
		}
		break;
	}
	case E_MUL:
		prbin(m, e, "*", P_MUL, P_MUL + 1, o, depth);
		break;
	case E_TRUEDIV:
		prbin(m, e, "/", P_MUL, P_MUL + 1, o, depth);
		break;
	case E_FLOORDIV:
		/* torch's FloorDiv prints itself parenthesized: (s0//2) */
		puts_(o, "(");
		prbin(m, e, "//", P_ATOM, P_ATOM, o, depth);
		puts_(o, ")");
		break;
	case E_MOD:
		if (e->str)
			prargs(m, ir_str(m, e->str), e->a, e->b, o, depth);
		else
			prbin(m, e, " % ", P_ATOM, P_ATOM, o, depth);
		break;
	case E_POW:
		prbin(m, e, "**", P_POW + 1, P_UNARY, o, depth);
		break;
	case E_NEG:
		puts_(o, "-");
		pr(m, e->a, P_UNARY, o, depth);
		break;
	case E_NOT:
		puts_(o, "~");
		pr(m, e->a, P_UNARY, o, depth);
		break;
	case E_MAX:
	case E_MIN: {
		/* sympy flattens Max(a, Max(b, c)) to Max(a, b, c) */
		puts_(o, e->kind == E_MAX ? "Max(" : "Min(");
		const Expr *c = e;
		for (;;) {
			pr(m, c->a, P_LOW, o, depth);
			puts_(o, ", ");
			const Expr *nx = ir_exprp(m, c->b);
			if (nx->kind != e->kind)
				break;
			c = nx;
		}
		pr(m, c->b, P_LOW, o, depth);
		puts_(o, ")");
		break;
	}
	case E_TOFLOAT:
		prargs(m, "ToFloat", e->a, 0, o, depth);
		break;
	case E_EQ:
		prargs(m, "Eq", e->a, e->b, o, depth);
		break;
	case E_NE:
		prargs(m, "Ne", e->a, e->b, o, depth);
		break;
	case E_LT:
		prbin(m, e, " < ", P_REL + 1, P_REL + 1, o, depth);
		break;
	case E_LE:
		prbin(m, e, " <= ", P_REL + 1, P_REL + 1, o, depth);
		break;
	case E_GT:
		prbin(m, e, " > ", P_REL + 1, P_REL + 1, o, depth);
		break;
	case E_GE:
		prbin(m, e, " >= ", P_REL + 1, P_REL + 1, o, depth);
		break;
	case E_AND:
		prbin(m, e, " & ", P_BAND, P_BAND + 1, o, depth);
		break;
	case E_OR:
		prbin(m, e, " | ", P_BOR, P_BOR + 1, o, depth);
		break;
	case E_CALL:
		prargs(m, ir_str(m, e->str), e->a, e->b, o, depth);
		break;
	default:
		puts_(o, "?");
	}
	if (paren)
		puts_(o, ")");
}

int
ir_expr_print(const Module *m, ExprId e, char *buf, size_t cap)
{
	Out o = {.buf = buf, .cap = cap};
	pr(m, e, P_LOW, &o, 0);
	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = 0;
	return (int)o.len;
}

const char *
ir_dim_text(Module *m, Dim d)
{
	char small[128];
	int n;
	if (d.e == 0)
		n = snprintf(small, sizeof small, "%lld", (long long)d.n);
	else
		n = ir_expr_print(m, d.e, small, sizeof small);
	if (n < 0)
		n = 0;
	char *s = arena_alloc(m->arena, (size_t)n + 1);
	if ((size_t)n < sizeof small)
		memcpy(s, small, (size_t)n + 1);
	else
		ir_expr_print(m, d.e, s, (size_t)n + 1);
	return s;
}

