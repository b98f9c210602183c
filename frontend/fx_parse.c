/* fx_parse.c - FX graph dumps to IR: print(exported_program) and
 * gm.print_readable(), torch 2.1 to 2.10 (research/fx-formats.md).
 *
 * Structure comes from keywords, not indentation (dumps arrive re-indented):
 * "class X(...):" opens a module whose "def forward(...):" body runs to its
 * "return".  Only class lines use indentation, to tell a subgraph class
 * nested in another one.  Higher-order-op bodies come after their call
 * sites, so graph arguments hold a reference index until the end, when
 * every "x = self.true_graph_0" is matched with its class.
 *
 * Tuple-valued nodes get one output per getitem index (a pre-scan of the
 * body finds the largest); "y = x[i]" creates no node but names output i.
 * In-place ops (add_.Tensor) rebind the name of their first argument, so
 * the rest of the body reads as functional code.
 */
#include <stdlib.h>
#include <string.h>

#include "fx_int.h"

/* Limits that keep hostile input cheap; real dumps stay far below them. */
enum {
	MAXCLASSES = 1024,       /* modules (graphs) in one dump */
	MAXREFS = 65536,         /* "x = self.attr" lines */
	MAXSYMS = 10000,         /* distinct symbols in annotations */
	MAXOUTPUTS = 65536       /* values one forward() returns */
};
#define MAXSRC ((size_t)1 << 30) /* bytes of dump text */

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

/* Bindings of the current body. */

Bind *
fx_lookup(Ctx *c, StrId name)
{
	uint32_t i = fx_map_get(&c->names, name);
	return i ? &c->binds[i - 1] : NULL;
}

static void
bind(Ctx *c, StrId name, uint8_t kind, uint32_t x, Loc loc, bool rebind)
{
	Bind *old = fx_lookup(c, name);
	if (old && !rebind && old->kind != B_POISON && kind != B_POISON) {
		ir_error(c->m, loc, "duplicate definition of '%s'",
		    ir_str(c->m, name));
		ir_note(c->m, old->loc, "previous definition of '%s' is here",
		    ir_str(c->m, name));
	}
	if (old && old->kind != B_POISON && kind == B_POISON)
		return;
	if (c->nbinds >= c->cbinds)  /* the call only when full */
		vgrow_nz((void **)&c->binds, &c->cbinds, c->nbinds + 1,
		    sizeof *c->binds);
	c->binds[c->nbinds] = (Bind){kind, x, loc};
	fx_map_set(&c->names, name, ++c->nbinds);
}

/* The text of an unquoted annotation: tokens up to a stop token at
 * bracket depth 0. */
static bool
rawannot(Ctx *c, const char **s, size_t *n, Loc *loc, bool inparams)
{
	Parser *p = &c->p;
	Token first = *fx_cur(p);
	const char *end = first.p;
	int depth = 0;
	for (;;) {
		Token *t = fx_cur(p);
		if (t->kind == T_NL || t->kind == T_EOF || t->kind == T_ERR ||
		    t->kind == T_COMMENT)
			break;
		if (depth == 0 && t->kind == T_PUNCT &&
		    (fx_tok_is(t, T_PUNCT, "=") || fx_tok_is(t, T_PUNCT, ";") ||
		    (inparams && (fx_tok_is(t, T_PUNCT, ",") ||
		    fx_tok_is(t, T_PUNCT, ")")))))
			break;
		if (t->kind == T_PUNCT && strchr("([{", t->p[0]) && t->n == 1)
			depth++;
		if (t->kind == T_PUNCT && strchr(")]}", t->p[0]) && t->n == 1)
			depth--;
		end = t->p + t->n;
		fx_adv(p);
	}
	if (end == first.p) {
		fx_expected(p, "a type annotation");
		return false;
	}
	*s = first.p;
	*n = (size_t)(end - first.p);
	*loc = first.loc;
	return true;
}

/* ": ANNOT" after a name, quoted or not.  Sets *s = NULL if absent. */
static bool
annotation(Ctx *c, const char **s, size_t *n, Loc *loc, bool inparams)
{
	Parser *p = &c->p;
	*s = NULL;
	if (!fx_accept(p, ":"))
		return true;
	Token *t = fx_cur(p);
	if (t->kind == T_STR) {
		*s = t->p + 1;
		*n = t->n - 2;
		*loc = (Loc){t->loc.line, t->loc.col + 1};
		fx_adv(p);
		return true;
	}
	return rawannot(c, s, n, loc, inparams);
}

static void
settrace(Ctx *c, const Token *t)
{
	const char *s = t->p;
	size_t n = t->n;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	static const char nost[] = "No stacktrace found for following nodes";
	if (n == 0 || (n == sizeof nost - 1 && memcmp(s, nost, n) == 0))
		c->trace = 0;
	else
		c->trace = ir_internn(c->m, s, n);
}

/* Does the op name end in '_' (aten::add_.Tensor), i.e. mutate its first
 * argument? */
static bool
inplace(const char *op)
{
	const char *ns = strstr(op, "::");
	if (!ns || strncmp(op, "higher_order::", 14) == 0 ||
	    strncmp(op, "_operator::", 11) == 0)
		return false;
	const char *name = ns + 2, *dot = strchr(name, '.');
	size_t len = dot ? (size_t)(dot - name) : strlen(name);
	return len >= 2 && name[len - 1] == '_' && name[len - 2] != '_' &&
	    name[0] != '_';
}

static NodeId
mknode(Ctx *c, StrId op, uint32_t nout, Loc loc, StrId name,
    uint32_t argbase)
{
	NodeId n = ir_node(c->g, D_FX, op, nout);
	Node *np = ir_nodep(c->g, n);
	np->loc = loc;
	np->name = name;
	np->trace = c->trace;
	if (c->nscr > argbase)
		ir_push_args(c->g, n, c->scr + argbase, c->nscr - argbase);
	c->nscr = argbase;
	return n;
}

/* Name a single-output node's value and bind it, applying the
 * annotation. */
static void
defvalue(Ctx *c, NodeId n, bool multi, StrId name, Loc loc, const char *an,
    size_t ann, Loc anloc)
{
	Node *np = ir_nodep(c->g, n);
	if (!multi) {
		ValId v = np->out;
		ir_val(c->g, v)->name = name;
		if (an && fx_annot_same(c, v, an, ann, anloc) != 0)
			c->p.badline = true;
		bind(c, name, B_VAL, v, loc, false);
		return;
	}
	/* tuple-valued: outputs are named by their getitem users */
	const char *base = ir_str(c->m, name);
	size_t len = strlen(base) + 32;
	char *buf = xrealloc(NULL, len);
	for (uint32_t i = 0; i < np->nout; i++) {
		snprintf(buf, len, "%s_unused_%u", base, i);
		ir_val(c->g, np->out + i)->name = ir_intern(c->m, buf);
	}
	free(buf);
	bind(c, name, B_MULTI, n, loc, false);
}

/* name = producer[i] */
static void
getitem(Ctx *c, StrId name, Loc loc, const char *an, size_t ann, Loc anloc)
{
	Parser *p = &c->p;
	Token prod = *fx_cur(p);
	fx_adv(p);
	fx_adv(p); /* '[' */
	Token idx = *fx_cur(p);
	if (idx.kind != T_INT) {
		fx_expected(p, "an integer index");
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	fx_adv(p);
	if (!fx_expect(p, "]")) {
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	Bind *b = fx_lookup(c, tokstr(c->m, &prod));
	if (!b) {
		fx_err(p, prod.loc, "use of undefined value '%.*s'",
		    (int)prod.n, prod.p);
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	if (b->kind == B_POISON) {
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	if (b->kind != B_MULTI) {
		fx_err(p, prod.loc, "'%.*s' is not a tuple-valued node, cannot "
		    "take element %llu", (int)prod.n, prod.p,
		    (unsigned long long)idx.u);
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	Node *np = ir_nodep(c->g, b->x);
	if (idx.ovf || idx.u >= np->nout) {
		/* the pre-scan ignores absurd indices */
		fx_err(p, idx.loc, "index %llu out of range", 
		    (unsigned long long)idx.u);
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	ValId v = np->out + (uint32_t)idx.u;
	Value *val = ir_val(c->g, v);
	/* a second getitem of the same element is an alias */
	Bind *named = fx_lookup(c, val->name);
	bool fresh = !(named && named->kind == B_VAL && named->x == v);
	if (fresh) {
		val->name = name;
		if (an && fx_annot(c->m, c->g, v, an, ann, anloc) != 0)
			p->badline = true;
	}
	bind(c, name, B_VAL, v, loc, false);
}

/* Outputs that no getitem names cost no text, so they are the one way a
 * small dump could make very many values: all values of the module are
 * kept under a budget proportional to the text. */
static bool
outputs_fit(Ctx *c, uint32_t hint)
{
	uint64_t n = hint;
	for (GraphId i = 1; i < c->m->ngraphs; i++)
		n += c->m->graphs[i]->nvals;
	return n <= c->m->srclen / 4 + 65536;
}

/* A call: dotted callee, then (args). */
static void
callstmt(Ctx *c, StrId name, Loc loc, const char *an, size_t ann,
    Loc anloc)
{
	Parser *p = &c->p;
	Module *m = c->m;
	Token parts[16];
	Loc oploc = fx_cur(p)->loc;
	int n = fx_dotted(c, parts, 16);
	if (n < 0) {
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	Token open = *fx_cur(p);
	if (!fx_expect(p, "(")) {
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	StrId op = fx_opname(m, parts, n);
	uint32_t base = c->nscr;
	bool kwseen = false, ok = true;
	StrId first = 0;
	c->poisoned = false;
	while (!fx_atpunct(p, ")")) {
		if (fx_eol(p)) {
			fx_err(p, open.loc, "unclosed '('");
			ok = false;
			break;
		}
		Token *t = fx_cur(p);
		StrId key = 0, nm = 0;
		if (t->kind == T_NAME && fx_tok_is(fx_peek(p, 1), T_PUNCT,
		    "=")) {
			key = tokstr(m, t);
			kwseen = true;
			fx_adv(p);
			fx_adv(p);
		} else if (kwseen) {
			fx_err(p, t->loc, "positional argument after keyword "
			    "arguments");
			ok = false;
			break;
		}
		bool isfirst = c->nscr == base;
		Arg a;
		if (!fx_arg(c, &a, &nm, 0)) {
			ok = false;
			break;
		}
		if (isfirst && !key)
			first = nm;
		fx_scrpush(c, key ? arg_keyed(a, key) : a);
		if (fx_accept(p, ","))
			continue;
		if (!fx_atpunct(p, ")")) {
			if (fx_eol(p))
				fx_err(p, open.loc, "unclosed '('");
			else
				fx_expected(p, "',' or ')'");
			ok = false;
			break;
		}
	}
	if (ok)
		fx_adv(p); /* ')' */
	if (!ok || c->poisoned) {
		c->nscr = base;
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	fx_callnode(c, name, loc, oploc, op, base, first,
	    (FxAnnot){an, ann, anloc});
}

void
fx_callnode(Ctx *c, StrId name, Loc loc, Loc oploc, StrId op, uint32_t base,
    StrId first, FxAnnot an)
{
	Module *m = c->m;
	uint32_t hint = fx_map_get(&c->nout, name);
	if (hint > 1 && !outputs_fit(c, hint)) {
		fx_err(&c->p, loc, "'%s' would get %u outputs (from its "
		    "getitem uses), more values than a dump of this size can "
		    "hold", ir_str(m, name), hint);
		c->nscr = base;
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	NodeId nd = mknode(c, op, hint ? hint : 1, oploc, name, base);
	if (hint && an.s)
		an.s = NULL;  /* tuple-valued nodes carry no annotation */
	defvalue(c, nd, hint > 0, name, loc, an.s, an.n, an.loc);
	if (!first)
		return;
	/* whether an op is in-place is asked once per op: 1 + the answer */
	uint32_t known = fx_map_get(&c->inpl, op);
	if (!known) {
		known = 1 + inplace(ir_str(m, op));
		fx_map_set(&c->inpl, op, known);
	}
	if (known == 2) {
		Node *np = ir_nodep(c->g, nd);
		bind(c, first, B_VAL, np->out, loc, true);
	}
}

static const struct {
	const char *tok;
	const char *op;
} binops[] = {
	{"+", "_operator::add"},      {"-", "_operator::sub"},
	{"*", "_operator::mul"},      {"/", "_operator::truediv"},
	{"//", "_operator::floordiv"}, {"%", "_operator::mod"},
	{"**", "_operator::pow"},     {">", "_operator::gt"},
	{"<", "_operator::lt"},       {">=", "_operator::ge"},
	{"<=", "_operator::le"},      {"==", "_operator::eq"},
	{"!=", "_operator::ne"},      {"&", "_operator::and_"},
	{"|", "_operator::or_"},      {"^", "_operator::xor"},
	{"@", "_operator::matmul"},
};

/* Python operators on SymInts: a + b, -a, a > 2, not a. */
static void
operstmt(Ctx *c, StrId name, Loc loc, const char *an, size_t ann,
    Loc anloc)
{
	Parser *p = &c->p;
	Module *m = c->m;
	Loc oploc = fx_cur(p)->loc;
	uint32_t base = c->nscr;
	const char *op = NULL;
	Token *t = fx_cur(p);
	Token *nx = fx_peek(p, 1);
	c->poisoned = false;
	bool unary = false;
	if ((fx_tok_is(t, T_PUNCT, "-") || fx_tok_is(t, T_PUNCT, "~") ||
	    tokeq(t, "not")) && nx->kind == T_NAME && !tokeq(nx, "inf") &&
	    !tokeq(nx, "nan")) {
		op = tokeq(t, "not") ? "_operator::not_" :
		    t->p[0] == '-' ? "_operator::neg" : "_operator::invert";
		fx_adv(p);
		unary = true;
	}
	Arg a;
	if (!fx_arg(c, &a, NULL, 0))
		goto fail;
	fx_scrpush(c, a);
	if (!unary) {
		t = fx_cur(p);
		for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
			if (fx_tok_is(t, T_PUNCT, binops[i].tok))
				op = binops[i].op;
		if (!op) {
			fx_expected(p, "an operator or a call");
			goto fail;
		}
		fx_adv(p);
		if (!fx_arg(c, &a, NULL, 0))
			goto fail;
		fx_scrpush(c, a);
	}
	if (c->poisoned)
		goto fail;
	NodeId nd = mknode(c, ir_intern(m, op), 1, oploc, name, base);
	defvalue(c, nd, false, name, loc, an, ann, anloc);
	return;
fail:
	c->nscr = base;
	bind(c, name, B_POISON, 0, loc, false);
}

/* name = self.attr */
static void
getattr(Ctx *c, StrId name, Loc loc, bool annotated)
{
	Parser *p = &c->p;
	Token parts[16];
	Token start = *fx_cur(p);
	int n = fx_dotted(c, parts, 16);
	if (n < 0) {
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	int len = (int)(parts[n - 1].p + parts[n - 1].n - start.p);
	if (fx_atpunct(p, "(")) {
		fx_err(p, start.loc, "call of submodule '%.*s': this is an "
		    "unlifted module (ep.module()); dump "
		    "print(exported_program) instead", len, start.p);
	} else if (n != 2 || annotated) {
		fx_err(p, start.loc, "attribute read '%.*s': this is an "
		    "unlifted module (ep.module()) whose weights are not "
		    "graph inputs; dump print(exported_program) instead", len,
		    start.p);
	} else if (c->nrefs >= MAXREFS) {
		fx_err(p, start.loc, "more than %d subgraph references in one "
		    "dump", MAXREFS);
	} else {
		vgrow((void **)&c->refs, &c->crefs, c->nrefs + 1,
		    sizeof *c->refs);
		c->refs[c->nrefs] = (Ref){c->gid, tokstr(c->m, &parts[1]),
		    start.loc, 0};
		bind(c, name, B_REF, c->nrefs++, loc, false);
		return;
	}
	bind(c, name, B_POISON, 0, loc, false);
}

/* name = other: a second name for a value, tuple or submodule (the
 * training IR writes "input_1 = input"); it makes no node. */
static void
alias(Ctx *c, StrId name, Loc loc)
{
	Parser *p = &c->p;
	Token t = *fx_cur(p);
	fx_adv(p);
	Bind *b = fx_lookup(c, tokstr(c->m, &t));
	if (!b) {
		fx_err(p, t.loc, "use of undefined value '%.*s'", (int)t.n,
		    t.p);
		bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	Bind copy = *b;
	bind(c, name, copy.kind, copy.x, loc, false);
}

/* NAME [: ANNOT] = EXPR [; frees] */
static void
assignment(Ctx *c)
{
	Parser *p = &c->p;
	Token nt = *fx_cur(p);
	StrId name = tokstr(c->m, &nt);
	fx_adv(p);
	if (fx_atpunct(p, ",")) {
		fx_err(p, nt.loc, "tuple assignment (pytree flattening of an "
		    "unlifted module); dump print(exported_program) instead");
		return;
	}
	const char *an;
	size_t ann = 0;
	Loc anloc = {0, 0};
	if (!annotation(c, &an, &ann, &anloc, false)) {
		bind(c, name, B_POISON, 0, nt.loc, false);
		return;
	}
	if (an && (fx_atpunct(p, ";") || fx_eol(p))) {
		fx_err(p, nt.loc, "type declaration without a value (unlifted "
		    "module); dump print(exported_program) instead");
		return;
	}
	if (!fx_expect(p, "=")) {
		bind(c, name, B_POISON, 0, nt.loc, false);
		return;
	}
	Token *t = fx_cur(p);
	Token *nx = fx_peek(p, 1);
	if (t->kind == T_NAME && (nx->kind == T_NL || nx->kind == T_EOF ||
	    nx->kind == T_COMMENT || fx_tok_is(nx, T_PUNCT, ";")) &&
	    !tokeq(t, "None") && !tokeq(t, "True") && !tokeq(t, "False") &&
	    !tokeq(t, "inf") && !tokeq(t, "nan"))
		alias(c, name, nt.loc);
	else if (tokeq(t, "self") && fx_tok_is(nx, T_PUNCT, "."))
		getattr(c, name, nt.loc, an != NULL);
	else if (t->kind == T_NAME && fx_tok_is(nx, T_PUNCT, "["))
		getitem(c, name, nt.loc, an, ann, anloc);
	else if (t->kind == T_NAME && !tokeq(t, "not") &&
	    (fx_tok_is(nx, T_PUNCT, ".") || fx_tok_is(nx, T_PUNCT, "(")))
		callstmt(c, name, nt.loc, an, ann, anloc);
	else
		operstmt(c, name, nt.loc, an, ann, anloc);
	if (p->badline)
		return;
	if (fx_accept(p, ";")) {
		/* ";  a = b = None" only frees Python variables */
		while (!fx_eol(p))
			fx_adv(p);
	}
	if (!fx_eol(p))
		fx_expected(p, "end of line");
}

/* The name the next line defines is interned a line from now: its table
 * slot is fetched while this line is parsed. */
static void
prefetch_next_name(Ctx *c, const Token *t)
{
	const Lexer *lx = &c->p.lx;
	const char *end = lx->s + lx->n;
	const char *q = memchr(t->p, '\n', (size_t)(end - t->p));
	if (!q)
		return;
	while (++q < end && *q == ' ')
		;
	const char *name = q;
	while (q < end && (*q == '_' || (*q >= 'a' && *q <= 'z') ||
	    (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
		q++;
	if (q > name)
		ir_intern_prefetch(c->m, name, (size_t)(q - name));
}

/* A returned value. */
static bool
retval(Ctx *c)
{
	Parser *p = &c->p;
	Token t = *fx_cur(p);
	char buf[48];
	if (t.kind == T_NAME && !tokeq(&t, "None") && !tokeq(&t, "True") &&
	    !tokeq(&t, "False") && !tokeq(&t, "inf") && !tokeq(&t, "nan")) {
		fx_adv(p);
		Bind *b = fx_lookup(c, tokstr(c->m, &t));
		if (!b) {
			fx_err(p, t.loc, "use of undefined value '%.*s'",
			    (int)t.n, t.p);
			return false;
		}
		if (b->kind == B_VAL && c->g->noutputs >= MAXOUTPUTS) {
			fx_err(p, t.loc, "more than %d outputs", MAXOUTPUTS);
			return false;
		}
		if (b->kind == B_VAL) {
			ir_add_output(c->g, b->x, OUT_USER, 0);
			return true;
		}
		if (b->kind == B_POISON)
			return true;
		fx_err(p, t.loc, "cannot return '%.*s': %s", (int)t.n, t.p,
		    b->kind == B_REF ? "it is a submodule" :
		    "it is a tuple; return its elements");
		return false;
	}
	if (t.kind == T_NL || t.kind == T_EOF)
		fx_expected(p, "a value to return");
	else
		fx_err(p, t.loc, "return of a non-value constant %s is not "
		    "supported (only graph values can be outputs)",
		    fx_tok_desc(&t, buf));
	return false;
}

static void
returnstmt(Ctx *c)
{
	Parser *p = &c->p;
	fx_adv(p); /* return */
	Token t = *fx_cur(p);
	if (t.kind == T_NAME && fx_tok_is(fx_peek(p, 1), T_PUNCT, ".")) {
		fx_err(p, t.loc, "return through pytree (unlifted module); "
		    "dump print(exported_program) instead");
		return;
	}
	if (fx_tok_is(&t, T_PUNCT, "(") || fx_tok_is(&t, T_PUNCT, "[")) {
		const char *close = t.p[0] == '(' ? ")" : "]";
		fx_adv(p);
		while (!fx_atpunct(p, close)) {
			if (fx_eol(p)) {
				fx_err(p, t.loc, "unclosed '%c'", t.p[0]);
				return;
			}
			if (!retval(c))
				return;
			if (fx_accept(p, ","))
				continue;
			if (!fx_atpunct(p, close)) {
				fx_expected(p, t.p[0] == '(' ? "',' or ')'" :
				    "',' or ']'");
				return;
			}
		}
		fx_adv(p);
	} else if (!retval(c)) {
		return;
	}
	if (!fx_eol(p))
		fx_expected(p, "end of line");
}

/* Is the current token where a forward() body must have ended? */
static bool
atbodyend(Ctx *c)
{
	Parser *p = &c->p;
	Token *t = fx_cur(p);
	return t->kind == T_EOF || (t->first && (tokeq(t, "class") ||
	    tokeq(t, "def") || fx_at_section(p)));
}

/* Before the body: the largest getitem index of each producer, so that
 * tuple-valued nodes are created with all their outputs, and room in the
 * graph for the body's lines. */
static void
prescan(Ctx *c)
{
	Parser *p = &c->p;
	Parser save = *p;
	p->join = 0;
	uint32_t lines = 0;
	for (;; lines++) {
		if (!c->general && fx_skip_body_line(p))
			continue;
		Token *t = fx_cur(p);
		if (atbodyend(c) || (t->first && tokeq(t, "return")))
			break;
		/* NAME [: ...] = NAME [ INT ] end; most lines cannot hold
		 * that, and their tokens after the first are not lexed */
		if (t->first && fx_skip_plain_line(p))
			continue;
		if (t->kind == T_NAME && t->first) {
			fx_adv(p);
			int depth = 0;
			while (!fx_eol(p)) {
				Token *u = fx_cur(p);
				if (depth == 0 && fx_tok_is(u, T_PUNCT, "="))
					break;
				if (u->kind == T_PUNCT && u->n == 1 &&
				    strchr("([{", u->p[0]))
					depth++;
				if (u->kind == T_PUNCT && u->n == 1 &&
				    strchr(")]}", u->p[0]))
					depth--;
				fx_adv(p);
			}
			if (fx_accept(p, "=") && fx_cur(p)->kind == T_NAME &&
			    fx_tok_is(fx_peek(p, 1), T_PUNCT, "[") &&
			    fx_peek(p, 2)->kind == T_INT &&
			    fx_tok_is(fx_peek(p, 3), T_PUNCT, "]")) {
				Token *idx = fx_peek(p, 2);
				StrId prod = tokstr(c->m, fx_cur(p));
				/* indices beyond 2^16 are not real */
				if (!idx->ovf && idx->u < 65536) {
					uint32_t k = (uint32_t)idx->u + 1;
					if (k > fx_map_get(&c->nout, prod))
						fx_map_set(&c->nout, prod, k);
				}
			}
		}
		while (!fx_eol(p))
			fx_adv(p);
		fx_adv(p);
	}
	*p = save;
	/* a statement a line, most of them a node with one output and a
	 * few arguments */
	ir_reserve(c->g, lines, lines, 3 * lines);
	/* and as many names, each bound */
	ir_reserve_strs(c->m, lines);
	vgrow_nz((void **)&c->binds, &c->cbinds, c->nbinds + lines,
	    sizeof *c->binds);
}

static void
resetbody(Ctx *c)
{
	fx_map_free(&c->names);
	fx_map_free(&c->nout);
	c->nbinds = 0;
	c->trace = 0;
}

/* def forward(self, params...): and the body up to its return. */
static void
parsedef(Ctx *c, GraphId gid)
{
	Parser *p = &c->p;
	Module *m = c->m;
	Token deft = *fx_cur(p);
	fx_adv(p);
	resetbody(c);
	c->gid = gid;
	c->g = ir_graph(m, gid);
	if (fx_cur(p)->kind != T_NAME) {
		fx_expected(p, "a function name");
		fx_skip_line(p);
		return;
	}
	fx_adv(p);
	Token open = *fx_cur(p);
	if (!fx_expect(p, "(")) {
		fx_skip_line(p);
		return;
	}
	p->join++;
	bool first = true;
	while (!fx_atpunct(p, ")")) {
		Token *t = fx_cur(p);
		if (t->kind == T_EOF) {
			fx_err(p, open.loc, "unclosed '(' of def");
			break;
		}
		if (fx_accept(p, "**") || fx_accept(p, "*")) {
			if (fx_accept(p, ","))
				continue;
			t = fx_cur(p);
		}
		if (t->kind != T_NAME) {
			fx_expected(p, "a parameter name");
			break;
		}
		Token nt = *t;
		fx_adv(p);
		const char *an;
		size_t ann = 0;
		Loc anloc;
		if (!annotation(c, &an, &ann, &anloc, true)) {
			/* uses of it are not errors of their own */
			bind(c, tokstr(m, &nt), B_POISON, 0, nt.loc, false);
			break;
		}
		if (fx_accept(p, "=")) {
			Arg dflt;
			if (!fx_arg(c, &dflt, NULL, 0))
				break;
		}
		if (first && tokeq(&nt, "self") && !an) {
			first = false;
		} else {
			first = false;
			StrId name = tokstr(m, &nt);
			ValId v = ir_value(c->g, name);
			if (an) {
				if (fx_annot(m, c->g, v, an, ann, anloc) != 0)
					p->badline = true;
			} else {
				ir_val(c->g, v)->kind = VK_CONST;
			}
			ir_val(c->g, v)->role = ROLE_USER_INPUT;
			ir_add_input(c->g, v);
			bind(c, name, B_VAL, v, nt.loc, false);
		}
		if (!fx_accept(p, ",") && !fx_atpunct(p, ")")) {
			/* a body line after an unclosed def line */
			if (fx_cur(p)->first)
				fx_err(p, open.loc, "unclosed '(' of def");
			else
				fx_expected(p, "',' or ')'");
			break;
		}
	}
	bool ok = fx_accept(p, ")");
	p->join--;
	if (ok && fx_accept(p, "->")) {
		while (!fx_eol(p) && !fx_atpunct(p, ":"))
			fx_adv(p);
	}
	if (ok && !fx_expect(p, ":"))
		ok = false;
	if (ok && !fx_eol(p)) {
		fx_expected(p, "end of line");
		ok = false;
	}
	fx_skip_line(p);
	prescan(c);
	for (;;) {
		if (!c->general && fx_fast_stmt(c)) {
			c->fastlines++;
			continue;
		}
		Token *t = fx_cur(p);
		if (atbodyend(c)) {
			ir_error(m, deft.loc, "missing 'return' at the end of "
			    "forward() of '%s'", ir_str(m, c->g->name));
			return;
		}
		if (t->kind == T_NL) {
			fx_adv(p);
			continue;
		}
		if (t->kind == T_COMMENT) {
			settrace(c, t);
			fx_adv(p);
		} else if (tokeq(t, "return")) {
			returnstmt(c);
			fx_skip_line(p);
			return;
		} else if (t->kind == T_NAME) {
			prefetch_next_name(c, t);
			assignment(c);
		} else {
			fx_expected(p, "a statement");
		}
		fx_skip_line(p);
	}
}

/* class NAME(base): -- a module; indentation tells nesting. */
static void
parseclass(Ctx *c)
{
	Parser *p = &c->p;
	Module *m = c->m;
	Token ct = *fx_cur(p);
	fx_adv(p);
	Token *t = fx_cur(p);
	StrId name = 0;
	bool lambda = false;
	if (t->kind == T_NAME) {
		name = tokstr(m, t);
		fx_adv(p);
	} else if (fx_tok_is(t, T_PUNCT, "<") && fx_peek(p, 1)->kind ==
	    T_NAME && fx_tok_is(fx_peek(p, 2), T_PUNCT, ">")) {
		name = ir_intern(m, "<lambda>");
		lambda = true;
		fx_adv(p);
		fx_adv(p);
		fx_adv(p);
	} else {
		fx_expected(p, "a class name");
		fx_skip_line(p);
		return;
	}
	if (fx_accept(p, "(")) {
		while (!fx_atpunct(p, ")") && !fx_eol(p))
			fx_adv(p);
		if (!fx_expect(p, ")")) {
			fx_skip_line(p);
			return;
		}
	}
	if (fx_expect(p, ":") && !fx_eol(p))
		fx_expected(p, "end of line");
	fx_skip_line(p);
	if (c->ncls >= MAXCLASSES) {
		ir_error(m, ct.loc, "class '%s': more than %d classes (graphs) "
		    "in one dump", ir_str(m, name), MAXCLASSES);
		return;
	}
	GraphId parent = 0;
	if (c->main) {
		/* the innermost earlier class indented less than this one */
		parent = c->main;
		for (uint32_t i = c->ncls; i-- > 0;) {
			if (c->cls[i].indent < ct.indent) {
				parent = c->cls[i].g;
				break;
			}
		}
	}
	GraphId g = ir_graph_new(m, ir_str(m, name), parent);
	if (!c->main)
		c->main = g;
	vgrow((void **)&c->cls, &c->ccls, c->ncls + 1, sizeof *c->cls);
	c->cls[c->ncls++] = (Class){g, parent, name, ct.indent, ct.loc,
	    lambda, false, false};
	/* the forward() of this class */
	while (fx_cur(p)->kind == T_COMMENT || fx_cur(p)->kind == T_NL)
		fx_adv(p);
	if (!tokeq(fx_cur(p), "def")) {
		ir_error(m, ct.loc, "class '%s' has no forward()",
		    ir_str(m, name));
		return;
	}
	c->cls[c->ncls - 1].hasdef = true;
	parsedef(c, g);
}

/* Match "x = self.attr" references with subgraph classes and patch the
 * A_GRAPH arguments, which hold Ref index + 1 until now. */
static void
resolve(Ctx *c)
{
	Module *m = c->m;
	for (uint32_t r = 0; r < c->nrefs; r++) {
		Ref *ref = &c->refs[r];
		for (uint32_t k = 0; k < c->ncls && !ref->target; k++)
			if (c->cls[k].parent == ref->owner &&
			    !c->cls[k].lambda && c->cls[k].name == ref->attr)
				ref->target = c->cls[k].g;
		if (ref->target)
			continue;
		/* <lambda> classes follow the order of the get_attr lines */
		for (uint32_t k = 0; k < c->ncls && !ref->target; k++) {
			Class *cl = &c->cls[k];
			if (cl->parent == ref->owner && cl->lambda &&
			    !cl->used) {
				cl->used = true;
				ref->target = cl->g;
				ir_graph(m, cl->g)->name = ref->attr;
			}
		}
		if (!ref->target)
			ir_error(m, ref->loc, "no subgraph class '%s' for "
			    "'self.%s' in this dump", ir_str(m, ref->attr),
			    ir_str(m, ref->attr));
	}
	for (uint32_t gi = c->main; gi < m->ngraphs; gi++) {
		Graph *g = m->graphs[gi];
		for (int pass = 0; pass < 2; pass++) {
			Arg *a = pass ? g->items : g->args;
			uint32_t n = pass ? g->nitems : g->nargs;
			for (uint32_t i = 0; i < n; i++) {
				if (a[i].kind != A_GRAPH)
					continue;
				uint32_t r = a[i].u.g - 1;
				a[i].u.g = r < c->nrefs ? c->refs[r].target : 0;
			}
		}
	}
}

/* The forms that carry no types are recognised up front. */
static int
detectform(Ctx *c)
{
	Module *m = c->m;
	Lexer lx;
	Token t, u;
	fx_lex_init(&lx, m->src, m->srclen);
	do
		fx_lex_next(&lx, &t);
	while (t.kind == T_NL || t.kind == T_COMMENT);
	if (t.kind == T_EOF) {
		ir_error(m, (Loc){1, 1}, "empty input: no FX graph found");
		return -1;
	}
	fx_lex_next(&lx, &u);
	Loc l1 = {t.loc.line, 1};
	if (tokeq(&t, "graph") && fx_tok_is(&u, T_PUNCT, "(")) {
		ir_error(m, l1, "this is print(gm.graph) output (FX graph "
		    "IR), which has no dtypes or shapes; dump "
		    "print(exported_program) instead");
		return -1;
	}
	if (tokeq(&t, "opcode") && tokeq(&u, "name")) {
		ir_error(m, l1, "this is gm.graph.print_tabular() output, "
		    "which has no dtypes or shapes; dump "
		    "print(exported_program) instead");
		return -1;
	}
	if (!tokeq(&t, "def"))
		return 0;
	/* gm.code: plain Python; any "name: type" makes it a typed dump */
	Token prev = u;
	int depth = 0;
	for (;;) {
		fx_lex_next(&lx, &t);
		if (t.kind == T_EOF)
			break;
		if (t.kind == T_PUNCT && t.n == 1 && strchr("([{", t.p[0]))
			depth++;
		if (t.kind == T_PUNCT && t.n == 1 && strchr(")]}", t.p[0]))
			depth--;
		if (fx_tok_is(&t, T_PUNCT, ":") && prev.kind == T_NAME &&
		    (depth == 1 || prev.first))
			return 0;
		prev = t;
	}
	ir_error(m, l1, "this is gm.code (plain Python without type "
	    "annotations), which has no dtypes or shapes; dump "
	    "print(exported_program) instead");
	return -1;
}

/* Passes relate symbols pairwise; their number is kept sane. */
static void
countsyms(Module *m)
{
	uint32_t n = 0;
	for (ExprId e = 1; e < m->nexprs; e++)
		n += m->exprs[e].kind == E_SYM;
	if (n > MAXSYMS)
		ir_error(m, (Loc){0, 0}, "the dump uses %u distinct symbols; "
		    "onnxc handles at most %d", n, MAXSYMS);
}

int
fx_parse(Module *m, GraphId *out)
{
	return fx_parse_with(m, out, NULL);
}

int
fx_parse_with(Module *m, GraphId *out, FxOpts *o)
{
	int errs0 = m->nerrors;
	Ctx c;
	memset(&c, 0, sizeof c);
	c.ann.rank = -1;
	c.general = o && o->general;
	c.m = m;
	c.p.m = m;
	if (m->srclen > MAXSRC) {
		ir_error(m, (Loc){0, 0}, "the dump is %zu bytes; onnxc reads "
		    "dumps of at most 1 GB", m->srclen);
		return -1;
	}
	fx_lex_init(&c.p.lx, m->src ? m->src : "", m->src ? m->srclen : 0);
	if (detectform(&c) != 0)
		return -1;
	Parser *p = &c.p;
	for (;;) {
		Token *t = fx_cur(p);
		if (t->kind == T_EOF)
			break;
		if (t->kind == T_NL || t->kind == T_COMMENT) {
			fx_adv(p);
			continue;
		}
		if (tokeq(t, "ExportedProgram") &&
		    fx_tok_is(fx_peek(p, 1), T_PUNCT, ":")) {
			fx_adv(p);
			fx_adv(p);
			if (!fx_eol(p))
				fx_expected(p, "end of line");
			fx_skip_line(p);
			continue;
		}
		if (tokeq(t, "class")) {
			parseclass(&c);
			continue;
		}
		if (tokeq(t, "def")) {
			if (c.main) {
				fx_err(p, t->loc, "forward() outside of a "
				    "class after the main graph");
				fx_skip_line(p);
				continue;
			}
			c.main = ir_graph_new(m, "forward", 0);
			parsedef(&c, c.main);
			continue;
		}
		if (fx_at_section(p)) {
			if (!c.main) {
				fx_err(p, t->loc, "section before any graph");
				fx_skip_line(p);
				continue;
			}
			fx_section(p);
			continue;
		}
		char buf[48];
		if (t->kind == T_ERR)
			fx_err(p, t->loc, "%s (expected 'class', 'def' or a "
			    "section like 'Graph signature:')", t->msg);
		else
			fx_err(p, t->loc, "unexpected %s (expected 'class', "
			    "'def' or a section like 'Graph signature:')",
			    fx_tok_desc(t, buf));
		fx_skip_line(p);
	}
	if (!c.main)
		ir_error(m, (Loc){1, 1}, "no forward() found in the input");
	else
		resolve(&c);
	if (c.main)
		fx_apply_sig(p, c.main);
	countsyms(m);
	resetbody(&c);
	fx_map_free(&c.inpl);
	free(c.binds);
	free(c.scr);
	free(c.refs);
	free(c.cls);
	fx_sig_free(&p->sig);
	if (o)
		o->fastlines = c.fastlines;
	if (m->nerrors != errs0)
		return -1;
	m->main = c.main;
	*out = c.main;
	return 0;
}
