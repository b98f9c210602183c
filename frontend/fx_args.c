/* fx_args.c - arguments of FX calls: Python literals (ints up to INT64_MAX,
 * floats with inf/nan, strings), value names, lists and tuples, torch
 * constants (dtypes, layouts, memory formats), device(...) and op objects.
 * Lists are committed to the graph inner-first, from a scratch stack. */
#include <stdlib.h>
#include <string.h>

#include "fx_int.h"

static bool
tokeq(const Token *t, const char *s)
{
	return fx_tok_is(t, T_NAME, s);
}

static StrId
tokstr(Module *m, const Token *t)
{
	return ir_internn(m, t->p, t->n);
}

void
fx_scrpush(Ctx *c, Arg a)
{
	if (c->nscr >= c->cscr)  /* the call only when full */
		vgrow((void **)&c->scr, &c->cscr, c->nscr + 1,
		    sizeof *c->scr);
	c->scr[c->nscr++] = a;
}

/* A dotted name a.b.c starting at the current token; at most max parts. */
int
fx_dotted(Ctx *c, Token *parts, int max)
{
	Parser *p = &c->p;
	int n = fx_dotted_fast(p, parts, max);
	if (n)
		return n;
	for (;;) {
		Token *t = fx_cur(p);
		if (t->kind != T_NAME) {
			fx_expected(p, "a name");
			return -1;
		}
		if (n == max) {
			fx_err(p, t->loc, "dotted name too long");
			return -1;
		}
		parts[n++] = *t;
		fx_adv(p);
		if (!fx_atpunct(p, ".") || fx_peek(p, 1)->kind != T_NAME)
			return n;
		fx_adv(p);
	}
}

/* The parts of a dotted name (fx_dotted reads at most 16) as fe_opname
 * takes them. */
StrId
fx_opname(Module *m, const Token *parts, int n)
{
	FeSpan sp[16];
	if (n > 16)
		BUG("fx_opname: %d parts", n);
	for (int i = 0; i < n; i++)
		sp[i] = (FeSpan){parts[i].p, parts[i].n};
	return fe_opname(m, sp, n);
}

/* torch.<name> constants that may appear as arguments. */
static const struct {
	const char *name;
	uint8_t kind;  /* A_DTYPE, A_LAYOUT, A_MEMFMT */
	uint8_t dtype;
} torchconst[] = {
	{"float32", A_DTYPE, DT_F32},     {"float", A_DTYPE, DT_F32},
	{"float64", A_DTYPE, DT_F64},     {"double", A_DTYPE, DT_F64},
	{"float16", A_DTYPE, DT_F16},     {"half", A_DTYPE, DT_F16},
	{"bfloat16", A_DTYPE, DT_BF16},   {"int8", A_DTYPE, DT_I8},
	{"int16", A_DTYPE, DT_I16},       {"short", A_DTYPE, DT_I16},
	{"int32", A_DTYPE, DT_I32},       {"int", A_DTYPE, DT_I32},
	{"int64", A_DTYPE, DT_I64},       {"long", A_DTYPE, DT_I64},
	{"uint8", A_DTYPE, DT_U8},        {"uint16", A_DTYPE, DT_U16},
	{"uint32", A_DTYPE, DT_U32},      {"uint64", A_DTYPE, DT_U64},
	{"bool", A_DTYPE, DT_BOOL},       {"complex64", A_DTYPE, DT_C64},
	{"cfloat", A_DTYPE, DT_C64},      {"complex128", A_DTYPE, DT_C128},
	{"cdouble", A_DTYPE, DT_C128},
	{"float8_e4m3fn", A_DTYPE, DT_F8E4M3FN},
	{"float8_e4m3fnuz", A_DTYPE, DT_F8E4M3FNUZ},
	{"float8_e5m2", A_DTYPE, DT_F8E5M2},
	{"float8_e5m2fnuz", A_DTYPE, DT_F8E5M2FNUZ},
	{"float8_e8m0fnu", A_DTYPE, DT_F8E8M0},
	{"float4_e2m1fn_x2", A_DTYPE, DT_F4E2M1},
	{"strided", A_LAYOUT, 0},         {"sparse_coo", A_LAYOUT, 0},
	{"sparse_csr", A_LAYOUT, 0},      {"sparse_csc", A_LAYOUT, 0},
	{"sparse_bsr", A_LAYOUT, 0},      {"sparse_bsc", A_LAYOUT, 0},
	{"_mkldnn", A_LAYOUT, 0},         {"jagged", A_LAYOUT, 0},
	{"contiguous_format", A_MEMFMT, 0},
	{"preserve_format", A_MEMFMT, 0},
	{"channels_last", A_MEMFMT, 0},
	{"channels_last_3d", A_MEMFMT, 0},
};

/* device(type='cuda', index=0) -> "cuda:0" */
static bool
parsedevice(Ctx *c, Arg *out)
{
	Parser *p = &c->p;
	Token open = *fx_cur(p);
	fx_adv(p);
	StrId type = 0;
	int64_t index = -1;
	int pos = 0;
	while (!fx_atpunct(p, ")")) {
		Token *t = fx_cur(p);
		bool kw = t->kind == T_NAME && fx_tok_is(fx_peek(p, 1),
		    T_PUNCT, "=");
		bool isindex = kw && tokeq(t, "index");
		if (kw) {
			if (!tokeq(t, "type") && !isindex) {
				fx_err(p, t->loc, "unknown device field '%.*s'",
				    (int)t->n, t->p);
				return false;
			}
			fx_adv(p);
			fx_adv(p);
		} else {
			isindex = pos++ > 0;
		}
		t = fx_cur(p);
		if (!isindex && t->kind == T_STR) {
			type = fx_str_value(c->m, t);
		} else if (isindex && t->kind == T_INT && !t->ovf &&
		    t->u < 1u << 20) {
			index = (int64_t)t->u;
		} else if (isindex && tokeq(t, "None")) {
			index = -1;
		} else if (fx_eol(p)) {
			fx_err(p, open.loc, "unclosed '(' of device(...)");
			return false;
		} else {
			fx_expected(p, isindex ? "a device index" :
			    "a device type string");
			return false;
		}
		fx_adv(p);
		if (!fx_accept(p, ",") && !fx_atpunct(p, ")")) {
			if (fx_eol(p))
				fx_err(p, open.loc,
				    "unclosed '(' of device(...)");
			else
				fx_expected(p, "',' or ')'");
			return false;
		}
	}
	fx_adv(p);
	if (!type) {
		fx_err(p, open.loc, "device(...) without a type");
		return false;
	}
	char buf[96];
	if (index >= 0)
		snprintf(buf, sizeof buf, "%.60s:%lld", ir_str(c->m, type),
		    (long long)index);
	else
		snprintf(buf, sizeof buf, "%.60s", ir_str(c->m, type));
	*out = (Arg){.kind = A_DEVICE, .u.s = ir_intern(c->m, buf)};
	return true;
}

/* [a, b] or (a, b): items are committed after their own nested lists. */
static bool
parselist(Ctx *c, Arg *out, int depth)
{
	Parser *p = &c->p;
	Token open = *fx_cur(p);
	bool tuple = fx_tok_is(&open, T_PUNCT, "(");
	const char *close = tuple ? ")" : "]";
	if (depth >= FX_MAXDEPTH) {
		fx_err(p, open.loc, "brackets nested more than %d deep",
		    FX_MAXDEPTH);
		return false;
	}
	fx_adv(p);
	uint32_t base = c->nscr;
	bool comma = false, ok = true;
	while (!fx_atpunct(p, close)) {
		if (fx_eol(p)) {
			fx_err(p, open.loc, "unclosed '%c'", open.p[0]);
			ok = false;
			break;
		}
		Arg a;
		if (!fx_arg(c, &a, NULL, depth + 1)) {
			ok = false;
			break;
		}
		fx_scrpush(c, a);
		if (fx_accept(p, ",")) {
			comma = true;
			continue;
		}
		if (!fx_atpunct(p, close)) {
			if (fx_eol(p)) {
				fx_err(p, open.loc, "unclosed '%c'", open.p[0]);
			} else {
				char what[32];
				snprintf(what, sizeof what, "',' or '%s'",
				    close);
				fx_expected(p, what);
			}
			ok = false;
			break;
		}
	}
	if (ok) {
		fx_adv(p);
		uint32_t n = c->nscr - base;
		if (tuple && n == 1 && !comma)
			*out = c->scr[base];  /* (x) is just x */
		else
			*out = ir_list(c->g, tuple ? A_TUPLE : A_LIST,
			    n ? c->scr + base : NULL, n);
	}
	c->nscr = base;
	return ok;
}

static bool
intarg(Ctx *c, const Token *t, bool neg, Arg *out)
{
	if (t->ovf || t->u > (uint64_t)INT64_MAX + (neg ? 1 : 0)) {
		fx_err(&c->p, t->loc,
		    "integer literal does not fit in 64 bits");
		return false;
	}
	*out = arg_int(neg ? (int64_t)(0 - t->u) : (int64_t)t->u);
	return true;
}

/* One argument.  *name (if given) gets the name of a plain value
 * reference, for in-place rebinding. */
/* complex(re, im), a Python complex number: a 0-d complex tensor made
 * by nodes before the one being read (fe_complex) */
static bool
parsecomplex(Ctx *c, Arg *out, Loc loc, int depth)
{
	Parser *p = &c->p;
	double v[2];
	fx_adv(p); /* '(' */
	for (int k = 0; k < 2; k++) {
		Arg a;
		StrId nm = 0;
		Loc at = fx_cur(p)->loc;
		if (!fx_arg(c, &a, &nm, depth + 1))
			return false;
		if (a.kind != A_INT && a.kind != A_FLOAT) {
			fx_err(p, at, "complex() takes two numbers");
			return false;
		}
		v[k] = a.kind == A_INT ? (double)a.u.i : a.u.f;
		if (!(k ? fx_expect(p, ")") : fx_expect(p, ",")))
			return false;
	}
	*out = arg_val(fe_complex(c->m, c->g, v[0], v[1], loc));
	return true;
}

bool
fx_arg(Ctx *c, Arg *out, StrId *name, int depth)
{
	Parser *p = &c->p;
	Module *m = c->m;
	Token t = *fx_cur(p);
	char buf[48];
	if (name)
		*name = 0;
	switch (t.kind) {
	case T_INT:
		fx_adv(p);
		return intarg(c, &t, false, out);
	case T_FLOAT:
		fx_adv(p);
		*out = arg_float(t.f);
		return true;
	case T_STR:
		fx_adv(p);
		*out = arg_str(fx_str_value(m, &t));
		return true;
	case T_PUNCT:
		if (fx_tok_is(&t, T_PUNCT, "[") || fx_tok_is(&t, T_PUNCT, "("))
			return parselist(c, out, depth);
		if (fx_tok_is(&t, T_PUNCT, "-")) {
			fx_adv(p);
			Token *n = fx_cur(p);
			if (n->kind == T_INT) {
				Token v = *n;
				fx_adv(p);
				return intarg(c, &v, true, out);
			}
			if (n->kind == T_FLOAT || tokeq(n, "inf") ||
			    tokeq(n, "nan")) {
				double f = n->kind == T_FLOAT ? n->f :
				    tokeq(n, "inf") ? 1.0 / 0.0 : 0.0 / 0.0;
				fx_adv(p);
				*out = arg_float(-f);
				return true;
			}
			fx_expected(p, "a number after '-'");
			return false;
		}
		if (fx_tok_is(&t, T_PUNCT, "{")) {
			fx_err(p, t.loc, "dict arguments are not supported");
			return false;
		}
		break;
	case T_NAME:
		break;
	default:
		fx_expected(p, "an argument");
		return false;
	}
	if (t.kind != T_NAME) {
		fx_err(p, t.loc, "expected an argument, found %s",
		    fx_tok_desc(&t, buf));
		return false;
	}
	Token *nx = fx_peek(p, 1);
	if (fx_tok_is(nx, T_PUNCT, ".")) {
		Token parts[16];
		int n = fx_dotted(c, parts, 16);
		if (n < 0)
			return false;
		if (fx_atpunct(p, "(")) {
			fx_err(p, t.loc, "call of '%.*s' inside an argument is "
			    "not supported",
			    (int)(fx_cur(p)->p - t.p), t.p);
			return false;
		}
		if (tokeq(&parts[0], "self")) {
			fx_err(p, t.loc, "attribute '%.*s' read inside an "
			    "argument: this is an unlifted module "
			    "(ep.module()); dump print(exported_program) "
			    "instead", (int)(parts[n - 1].p + parts[n - 1].n -
			    t.p), t.p);
			return false;
		}
		if (n >= 4 && tokeq(&parts[0], "torch") &&
		    tokeq(&parts[1], "ops")) {
			*out = (Arg){.kind = A_OP,
			    .u.s = fx_opname(m, parts, n)};
			return true;
		}
		if (n == 2 && tokeq(&parts[0], "torch")) {
			for (size_t i = 0; i < sizeof torchconst /
			    sizeof torchconst[0]; i++) {
				if (!tokeq(&parts[1], torchconst[i].name))
					continue;
				if (torchconst[i].kind == A_DTYPE)
					*out = (Arg){.kind = A_DTYPE,
					    .u.i = torchconst[i].dtype};
				else
					*out = (Arg){.kind = torchconst[i].kind,
					    .u.s = ir_intern(m,
					    torchconst[i].name)};
				return true;
			}
		}
		if (n == 2 && tokeq(&parts[0], "math") &&
		    (tokeq(&parts[1], "inf") || tokeq(&parts[1], "nan"))) {
			*out = arg_float(tokeq(&parts[1], "inf") ? 1.0 / 0.0 :
			    0.0 / 0.0);
			return true;
		}
		fx_err(p, t.loc, "unknown constant '%.*s'",
		    (int)(parts[n - 1].p + parts[n - 1].n - t.p), t.p);
		return false;
	}
	fx_adv(p);
	if (tokeq(&t, "True") || tokeq(&t, "False")) {
		*out = arg_bool(tokeq(&t, "True"));
		return true;
	}
	if (tokeq(&t, "None")) {
		*out = arg_none();
		return true;
	}
	if (tokeq(&t, "inf") || tokeq(&t, "nan")) {
		*out = arg_float(tokeq(&t, "inf") ? 1.0 / 0.0 : 0.0 / 0.0);
		return true;
	}
	if (tokeq(&t, "device") && fx_atpunct(p, "("))
		return parsedevice(c, out);
	if (tokeq(&t, "complex") && fx_atpunct(p, "("))
		return parsecomplex(c, out, t.loc, depth);
	if (fx_atpunct(p, "(")) {
		fx_err(p, t.loc, "call of '%.*s' inside an argument is not "
		    "supported", (int)t.n, t.p);
		return false;
	}
	StrId s = tokstr(m, &t);
	Bind *b = fx_lookup(c, s);
	if (!b) {
		fx_err(p, t.loc, "use of undefined value '%.*s'", (int)t.n,
		    t.p);
		return false;
	}
	switch (b->kind) {
	case B_VAL:
		*out = arg_val(b->x);
		if (name)
			*name = s;
		return true;
	case B_REF:
		/* the Ref index, replaced by a GraphId at the end */
		*out = (Arg){.kind = A_GRAPH, .u.g = b->x + 1};
		return true;
	case B_MULTI:
		fx_err(p, t.loc, "'%.*s' is a tuple of %u values; use its "
		    "elements", (int)t.n, t.p,
		    ir_nodep(c->g, b->x)->nout);
		return false;
	case B_SUB:
		fx_err(p, t.loc, "'%.*s' is a list inside a tuple; use its "
		    "elements", (int)t.n, t.p);
		return false;
	default:
		c->poisoned = true;
		*out = arg_none();
		return true;
	}
}
