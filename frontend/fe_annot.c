/* fe_annot.c - type annotations of FX values as the dump prints them (the
 * archive reader writes its TensorMeta out as that text and reads it here
 * the same way): "f32[2, s0]", "i64[]", "f32[3][1]cpu" (strides and
 * device are accepted and dropped), "Sym(s0)", "Sym(s0 > 2)",
 * "Sym(ToFloat(s37) + 3.0)". */
#include <stdlib.h>
#include <string.h>

#include "fe.h"

/* Dims of one tensor type, as in st_header.c; PyTorch allows fewer. */
enum { MAXRANK = 64 };

/* Quoted input in messages is cut to this many bytes. */
enum { QUOTE = 60 };

static int
quotelen(size_t n)
{
	return n > QUOTE ? QUOTE : (int)n;
}

static Loc
at(Loc base, size_t off)
{
	return (Loc){base.line, base.col + (uint32_t)off};
}

/* An error at loc when e cannot be a value (a division by zero, an
 * overflow): such a size must not reach the model's dim_params. */
static bool
impossible(Module *m, ExprId e, Loc loc)
{
	ExprId bad;
	const char *why = ir_expr_check(m, e, &bad);
	if (!why)
		return false;
	char buf[128];
	ir_expr_print(m, bad, buf, sizeof buf);
	ir_error(m, loc, "impossible symbolic expression: %s in '%s'", why,
	    buf);
	return true;
}

static bool
isws(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

enum { TY_INT, TY_FLOAT, TY_BOOL };

static bool
namestarts(const Module *m, StrId s, const char *prefix)
{
	return strncmp(ir_str(m, s), prefix, strlen(prefix)) == 0;
}

/* zf<digits> or zuf<digits>: a float symbol PyTorch made */
static bool
floatsym(const char *s)
{
	size_t k = !strncmp(s, "zuf", 3) ? 3 : !strncmp(s, "zf", 2) ? 2 : 0;
	if (!k || !s[k])
		return false;
	for (; s[k]; k++)
		if (s[k] < '0' || s[k] > '9')
			return false;
	return true;
}

/* Whether a symbolic expression is an int, a float or a bool. */
static int
etype(const Module *m, ExprId id, int depth)
{
	if (id == 0 || depth > 200)
		return TY_INT;
	const Expr *e = ir_exprp(m, id);
	switch (e->kind) {
	case E_INT:
		return TY_INT;
	case E_SYM:
		if (strcmp(ir_str(m, e->str), "True") == 0 ||
		    strcmp(ir_str(m, e->str), "False") == 0)
			return TY_BOOL;
		/* PyTorch's float symbols: zf (backed), zuf (unbacked: a
		 * float tensor's .item()) */
		if (floatsym(ir_str(m, e->str)))
			return TY_FLOAT;
		return TY_INT;
	case E_FLOAT: case E_TOFLOAT: case E_TRUEDIV:
		return TY_FLOAT;
	case E_EQ: case E_NE: case E_LT: case E_LE: case E_GT: case E_GE:
	case E_AND: case E_OR: case E_NOT:
		return TY_BOOL;
	case E_CALL:
		if (namestarts(m, e->str, "Float") ||
		    namestarts(m, e->str, "OpaqueUnaryFn") ||
		    strcmp(ir_str(m, e->str), "IntTrueDiv") == 0 ||
		    strcmp(ir_str(m, e->str), "sqrt") == 0)
			return TY_FLOAT;
		if (namestarts(m, e->str, "Ceil") ||
		    namestarts(m, e->str, "Floor") ||
		    namestarts(m, e->str, "Trunc") ||
		    namestarts(m, e->str, "Round") ||
		    strcmp(ir_str(m, e->str), "floor") == 0 ||
		    strcmp(ir_str(m, e->str), "ceiling") == 0)
			return TY_INT;
		break;
	default:
		break;
	}
	int ta = e->a ? etype(m, e->a, depth + 1) : TY_INT;
	int tb = e->b ? etype(m, e->b, depth + 1) : TY_INT;
	return ta == TY_FLOAT || tb == TY_FLOAT ? TY_FLOAT : TY_INT;
}

static int
parsedim(Module *m, const char *s, size_t n, Loc loc, Dim *d)
{
	size_t i = 0;
	while (i < n && isws(s[i]))
		i++;
	while (n > i && isws(s[n - 1]))
		n--;
	if (i == n) {
		ir_error(m, at(loc, i), "empty dimension in annotation");
		return -1;
	}
	/* a plain number, what nearly every dim is, without the expression
	 * parser (no leading zero: Python has none, the parser says why) */
	if (n - i <= 18 && (s[i] != '0' || n - i == 1)) {
		int64_t v = 0;
		size_t k = i;
		while (k < n && s[k] >= '0' && s[k] <= '9')
			v = v * 10 + (s[k++] - '0');
		if (k == n) {
			d->n = v;
			d->e = 0;
			return 0;
		}
	}
	ExprId e;
	size_t err = 0;
	if (ir_expr_parse(m, s + i, n - i, &e, &err) != 0) {
		ir_error(m, at(loc, i + err),
		    "bad dimension expression '%.*s%s'", quotelen(n - i),
		    s + i, n - i > QUOTE ? "..." : "");
		return -1;
	}
	if (impossible(m, e, at(loc, i)))
		return -1;
	const Expr *x = ir_exprp(m, e);
	if (x->kind == E_INT && x->n < 0) {
		ir_error(m, at(loc, i), "negative dimension %lld",
		    (long long)x->n);
		return -1;
	}
	if (x->kind == E_INT) {
		d->n = x->n;
		d->e = 0;
	} else {
		d->n = 0;
		d->e = e;
	}
	return 0;
}

/* The "[...]" starting at s[i]; returns the index of its ']' or n. */
static size_t
closing(const char *s, size_t n, size_t i)
{
	int depth = 0;
	for (; i < n; i++) {
		if (s[i] == '[' || s[i] == '(')
			depth++;
		else if (s[i] == ']' || s[i] == ')')
			if (--depth == 0)
				return i;
	}
	return n;
}

/* Are the known dims' elements of dt addressable (under 2^63 bytes)?  Size
 * arithmetic in passes and backends can then not overflow. */
static bool
fits(const Dim *dims, uint32_t rank, DType dt)
{
	uint64_t n = ir_dtype_size(dt) ? ir_dtype_size(dt) : 1;
	for (uint32_t i = 0; i < rank; i++) {
		uint64_t d = dims[i].e ? 1 : (uint64_t)dims[i].n;
		if (d && n > (uint64_t)INT64_MAX / d)
			return false;
		n *= d;
	}
	return true;
}

static int
tensorannot(Module *m, Graph *g, ValId v, const char *s, size_t n, Loc loc)
{
	size_t i = 0;
	while (i < n && ((s[i] >= 'a' && s[i] <= 'z') ||
	    (s[i] >= '0' && s[i] <= '9')))
		i++;
	if (i == 0 || i >= n || s[i] != '[') {
		ir_error(m, loc, "unrecognised type annotation '%.*s%s' "
		    "(expected a tensor type like f32[2, 3] or Sym(...))",
		    quotelen(n), s, n > QUOTE ? "..." : "");
		return -1;
	}
	DType dt = ir_dtype_parse(s, i);
	if (dt == DT_UNDEF) {
		ir_error(m, loc, "unknown dtype code '%.*s%s'", quotelen(i), s,
		    i > QUOTE ? "..." : "");
		return -1;
	}
	size_t open = i, close = closing(s, n, open);
	if (close >= n) {
		ir_error(m, at(loc, open), "unterminated '[' in annotation");
		return -1;
	}
	/* split the dims at top-level commas */
	Dim dims[MAXRANK];
	uint32_t rank = 0;
	int rc = 0;
	size_t b = open + 1;
	bool empty = true;
	for (size_t k = open + 1; k < close; k++)
		if (!isws(s[k]))
			empty = false;
	if (!empty) {
		int depth = 0;
		for (size_t k = open + 1; k <= close; k++) {
			char c = s[k];
			if (c == '(' || c == '[')
				depth++;
			else if ((c == ')' || c == ']') && k < close)
				depth--;
			if (k < close && (c != ',' || depth > 0))
				continue;
			if (rank == MAXRANK) {
				ir_error(m, at(loc, b), "tensor type with more "
				    "than %d dimensions", MAXRANK);
				rc = -1;
				break;
			}
			if (parsedim(m, s + b, k - b, at(loc, b),
			    &dims[rank]) != 0)
				rc = -1;
			rank++;
			b = k + 1;
		}
	}
	if (rc == 0 && !fits(dims, rank, dt)) {
		ir_error(m, loc, "tensor type '%.*s' holds more than 2^63 "
		    "bytes", quotelen(close + 1), s);
		rc = -1;
	}
	if (rc == 0)
		ir_set_tensor(g, v, dt, (int32_t)rank, dims);
	/* optional strides "[3, 1]" and device "cpu" / "cuda:0" */
	i = close + 1;
	if (i < n && s[i] == '[') {
		size_t c2 = closing(s, n, i);
		if (c2 >= n) {
			ir_error(m, at(loc, i),
			    "unterminated '[' in annotation");
			return -1;
		}
		i = c2 + 1;
	}
	size_t dev = i;
	while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'))
		i++;
	if (i > dev && i < n && s[i] == ':') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	while (i < n && isws(s[i]))
		i++;
	if (i < n) {
		ir_error(m, at(loc, i), "unexpected '%c' after tensor type",
		    s[i]);
		return -1;
	}
	return rc;
}

int
fe_annot(Module *m, Graph *g, ValId v, const char *s, size_t n, Loc loc)
{
	size_t i = 0;
	while (i < n && isws(s[i]))
		i++;
	while (n > i && isws(s[n - 1]))
		n--;
	s += i;
	n -= i;
	loc = at(loc, i);
	if (n >= 4 && memcmp(s, "Sym(", 4) == 0) {
		if (s[n - 1] != ')') {
			ir_error(m, at(loc, n), "expected ')' to close Sym(");
			return -1;
		}
		ExprId e;
		size_t err = 0;
		if (ir_expr_parse(m, s + 4, n - 5, &e, &err) != 0) {
			ir_error(m, at(loc, 4 + err),
			    "bad symbolic expression '%.*s%s'",
			    quotelen(n - 5), s + 4, n - 5 > QUOTE ? "..." : "");
			return -1;
		}
		if (impossible(m, e, at(loc, 4)))
			return -1;
		Value *val = ir_val(g, v);
		int ty = etype(m, e, 0);
		val->kind = ty == TY_BOOL ? VK_SYMBOOL :
		    ty == TY_FLOAT ? VK_SYMFLOAT : VK_SYMINT;
		val->sym = e;
		return 0;
	}
	return tensorannot(m, g, v, s, n, loc);
}
