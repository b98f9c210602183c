/* pt2_expr.c - sympy srepr text (how .pt2 programs write symbolic sizes)
 * into IR expressions.  Only the constructors torch's symbolic shapes use
 * are known; anything else is kept as a call, as the dump parser keeps
 * unknown functions.  Division and modulo by a literal zero are errors
 * (ir_expr_check, shared with the dump parser). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_int.h"

enum { MAXDEPTH = 64, MAXARGS = 64 };

typedef struct SR {
	Module *m;
	const char *s, *p, *end;
	const char *why;
} SR;

static const struct {
	const char *name;
	uint8_t kind;
} fns[] = {
	{"Add", E_ADD}, {"Mul", E_MUL}, {"Pow", E_POW},
	{"FloorDiv", E_FLOORDIV}, {"Mod", E_MOD}, {"PythonMod", E_MOD},
	{"Max", E_MAX}, {"Min", E_MIN}, {"ToFloat", E_TOFLOAT},
	{"IntTrueDiv", E_TRUEDIV}, {"FloatTrueDiv", E_TRUEDIV},
	{"Equality", E_EQ}, {"Unequality", E_NE},
	{"StrictLessThan", E_LT}, {"LessThan", E_LE},
	{"StrictGreaterThan", E_GT}, {"GreaterThan", E_GE},
	{"And", E_AND}, {"Or", E_OR}, {"Not", E_NOT},
};

static void
ws(SR *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n'))
		r->p++;
}

static bool
fail(SR *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return false;
}

static bool
isname(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    (!first && c >= '0' && c <= '9');
}

/* 'text' -> the text (no escapes in symbol names) */
static bool
quoted(SR *r, const char **s, size_t *n)
{
	char q = *r->p++;
	const char *start = r->p;
	while (r->p < r->end && *r->p != q && *r->p != '\\')
		r->p++;
	if (r->p >= r->end || *r->p != q)
		return fail(r, "unterminated or escaped string");
	*s = start;
	*n = (size_t)(r->p - start);
	r->p++;
	return true;
}

static bool expr(SR *r, ExprId *out, int depth);

/* The arguments of Name( ... ): expressions, with keyword arguments
 * (positive=True) skipped. */
static bool
args(SR *r, ExprId *a, uint32_t *na, const char **str, size_t *strn,
    int depth)
{
	*na = 0;
	ws(r);
	while (r->p < r->end && *r->p != ')') {
		const char *save = r->p;
		while (r->p < r->end && isname(*r->p, r->p == save))
			r->p++;
		if (r->p > save && r->p < r->end && *r->p == '=') {
			r->p++;
			while (r->p < r->end && isname(*r->p, false))
				r->p++;
		} else {
			r->p = save;
			if (*r->p == '\'' || *r->p == '"') {
				if (!quoted(r, str, strn))
					return false;
			} else {
				if (*na == MAXARGS)
					return fail(r, "too many arguments");
				if (!expr(r, &a[(*na)++], depth + 1))
					return false;
			}
		}
		ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			ws(r);
		} else if (r->p >= r->end || *r->p != ')') {
			return fail(r, "expected ',' or ')'");
		}
	}
	if (r->p >= r->end)
		return fail(r, "unclosed '('");
	r->p++;
	return true;
}

static bool
integer(SR *r, const char *s, size_t n, int64_t *out)
{
	char buf[32];
	if (n == 0 || n >= sizeof buf)
		return fail(r, "bad integer");
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	long long v = strtoll(buf, &end, 10);
	if (*end || v == LLONG_MAX || v == LLONG_MIN)
		return fail(r, "bad or too large integer");
	*out = v;
	return true;
}

static bool
expr(SR *r, ExprId *out, int depth)
{
	Module *m = r->m;
	if (depth > MAXDEPTH)
		return fail(r, "expression nested too deeply");
	ws(r);
	const char *name = r->p;
	while (r->p < r->end && isname(*r->p, r->p == name))
		r->p++;
	size_t nl = (size_t)(r->p - name);
	if (!nl)
		return fail(r, "expected a sympy constructor");
#define IS(lit) (nl == sizeof lit - 1 && !memcmp(name, lit, nl))
	if (IS("true") || IS("false")) {
		*out = ir_expr_int(m, IS("true"));
		return true;
	}
	if (r->p >= r->end || *r->p != '(')
		return fail(r, "expected '('");
	r->p++;
	ExprId a[MAXARGS];
	uint32_t na;
	const char *str = NULL;
	size_t strn = 0;
	const char *argstart = r->p;
	if (IS("Integer") || IS("Float")) {
		const char *s = r->p;
		while (r->p < r->end && *r->p != ')' && *r->p != ',')
			r->p++;
		size_t n = (size_t)(r->p - s);
		if (IS("Float") && n >= 2 && (*s == '\'' || *s == '"')) {
			s++;
			n -= 2;
		}
		while (r->p < r->end && *r->p != ')')
			r->p++;  /* precision=53 */
		if (r->p >= r->end)
			return fail(r, "unclosed '('");
		r->p++;
		if (IS("Float")) {
			char buf[64];
			if (n >= sizeof buf)
				return fail(r, "bad float");
			memcpy(buf, s, n);
			buf[n] = 0;
			Expr e = {.kind = E_FLOAT, .f = strtod(buf, NULL)};
			*out = ir_expr(m, &e);
			return true;
		}
		int64_t v;
		if (!integer(r, s, n, &v))
			return false;
		*out = ir_expr_int(m, v);
		return true;
	}
	(void)argstart;
	if (!args(r, a, &na, &str, &strn, depth))
		return false;
	if (IS("Symbol")) {
		if (!str || na)
			return fail(r, "Symbol without a name");
		*out = ir_expr_sym(m, arena_strndup(m->arena, str, strn));
		return true;
	}
	if (IS("Rational")) {
		if (na != 2)
			return fail(r, "Rational takes two integers");
		*out = ir_expr_bin(m, E_TRUEDIV, a[0], a[1]);
		return true;
	}
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		if (strlen(fns[i].name) != nl || memcmp(fns[i].name, name, nl))
			continue;
		uint8_t k = fns[i].kind;
		bool unary = k == E_TOFLOAT || k == E_NOT;
		if (unary ? na != 1 : na < 2)
			return fail(r, "wrong number of arguments");
		if (unary) {
			Expr e = {.kind = k, .a = a[0]};
			*out = ir_expr(m, &e);
			return true;
		}
		bool assoc = k == E_ADD || k == E_MUL || k == E_MAX ||
		    k == E_MIN || k == E_AND || k == E_OR;
		if (!assoc && na != 2)
			return fail(r, "wrong number of arguments");
		ExprId acc = a[0];
		for (uint32_t j = 1; j < na; j++)
			acc = ir_expr_bin(m, k, acc, a[j]);
		*out = acc;
		return true;
	}
	/* CeilToInt, FloorToInt, TruncToInt, ...: kept as calls */
	if (na > 2)
		return fail(r, "unknown function with more than two arguments");
	Expr e = {.kind = E_CALL, .str = ir_internn(m, name, nl),
		.a = na > 0 ? a[0] : 0, .b = na > 1 ? a[1] : 0};
	*out = ir_expr(m, &e);
	return true;
#undef IS
}

int
pt2_srepr(Module *m, const char *s, size_t n, ExprId *out, const char **why)
{
	SR r = {m, s, s, s + n, NULL};
	if (!expr(&r, out, 0)) {
		*why = r.why;
		return -1;
	}
	ws(&r);
	if (r.p != r.end) {
		*why = "text after the expression";
		return -1;
	}
	const char *bad = ir_expr_check(m, *out, NULL);
	if (bad) {
		*why = bad;
		return -1;
	}
	*out = sym_simplify(m, *out);
	return 0;
}
