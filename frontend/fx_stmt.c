/* fx_stmt.c - one statement of a forward() body: an annotated name bound
 * to a call, a getitem, a Python operator on SymInts, a getattr or another
 * name, and the return; the bindings of the body's names.  fx_parse.c
 * reads the classes and defs around them.
 */
#include <stdlib.h>
#include <string.h>

#include "fx_int.h"

/* Limits that keep hostile input cheap; real dumps stay far below them. */
enum {
	MAXREFS = 65536,         /* "x = self.attr" lines */
	MAXOUTPUTS = 65536       /* values one forward() returns */
};

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
	uint32_t i = fe_map_get(&c->names, name);
	return i ? &c->binds[i - 1] : NULL;
}

void
fx_bind(Ctx *c, StrId name, uint8_t kind, uint32_t x, Loc loc, bool rebind)
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
	c->binds[c->nbinds] = (Bind){kind, x, loc, 0};
	fe_map_set(&c->names, name, ++c->nbinds);
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
bool
fx_annotation(Ctx *c, const char **s, size_t *n, Loc *loc, bool inparams)
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

void
fx_settrace(Ctx *c, const Token *t)
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

/* fe_annot, but a text equal to the last one (a chain of nodes of one
 * type) copies that value's static type. */
static int
annot_same(Ctx *c, ValId v, const char *s, size_t n, Loc loc)
{
	Graph *g = c->g;
	if (c->ann.rank >= 0 && c->ann.n == n && memcmp(c->ann.s, s, n) == 0) {
		ir_set_tensor(g, v, (DType)c->ann.dtype, c->ann.rank,
		    c->ann.dims);
		return 0;
	}
	if (fe_annot(c->m, g, v, s, n, loc) != 0)
		return -1;
	/* only static shapes: a symbolic one is checked against the
	 * symbols known when it is read */
	const Value *x = ir_val(g, v);
	if (x->kind != VK_TENSOR || x->rank < 0 || x->rank > FX_MAXRANK)
		return 0;
	const Dim *d = ir_dims(g, v);
	for (int32_t i = 0; i < x->rank; i++)
		if (d[i].e)
			return 0;
	c->ann.s = s;
	c->ann.n = n;
	c->ann.dtype = x->dtype;
	c->ann.rank = x->rank;
	if (x->rank > 0)
		memcpy(c->ann.dims, d, (size_t)x->rank * sizeof *d);
	return 0;
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
		if (an && annot_same(c, v, an, ann, anloc) != 0)
			c->p.badline = true;
		fx_bind(c, name, B_VAL, v, loc, false);
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
	fx_bind(c, name, B_MULTI, n, loc, false);
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
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	fx_adv(p);
	if (!fx_expect(p, "]")) {
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	Bind *b = fx_lookup(c, tokstr(c->m, &prod));
	if (!b) {
		fx_err(p, prod.loc, "use of undefined value '%.*s'",
		    (int)prod.n, prod.p);
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	if (b->kind == B_POISON) {
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	if (b->kind != B_MULTI && b->kind != B_SUB) {
		fx_err(p, prod.loc, "'%.*s' is not a tuple-valued node, cannot "
		    "take element %llu", (int)prod.n, prod.p,
		    (unsigned long long)idx.u);
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	uint32_t off = b->kind == B_SUB ? b->off : 0;
	if (b->kind == B_SUB && fe_map_get(&c->nout, name)) {
		fx_err(p, loc, "'%s' is a list inside a list inside a tuple; "
		    "one level of nesting is supported", ir_str(c->m, name));
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	uint32_t nest = b->kind == B_MULTI ? fe_map_get(&c->nested,
	    tokstr(c->m, &prod)) : 0;
	if (nest && !idx.ovf && idx.u + 1 > nest) {
		fx_err(p, idx.loc, "element %llu of '%.*s' follows a list "
		    "inside the tuple; a list is supported as its last "
		    "element only", (unsigned long long)idx.u, (int)prod.n,
		    prod.p);
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	if (nest && idx.u + 1 == nest) {
		/* the list: its getitems name the node's outputs from here */
		fx_bind(c, name, B_SUB, b->x, loc, false);
		c->binds[c->nbinds - 1].off = (uint32_t)idx.u;
		return;
	}
	Node *np = ir_nodep(c->g, b->x);
	if (idx.ovf || idx.u >= np->nout - off) {
		/* the pre-scan ignores absurd indices */
		fx_err(p, idx.loc, "index %llu out of range", 
		    (unsigned long long)idx.u);
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	ValId v = np->out + off + (uint32_t)idx.u;
	Value *val = ir_val(c->g, v);
	/* a second getitem of the same element is an alias */
	Bind *named = fx_lookup(c, val->name);
	bool fresh = !(named && named->kind == B_VAL && named->x == v);
	if (fresh) {
		val->name = name;
		if (an && fe_annot(c->m, c->g, v, an, ann, anloc) != 0)
			p->badline = true;
	}
	fx_bind(c, name, B_VAL, v, loc, false);
}

/* Outputs that no getitem names cost no text, so they are the one way a
 * small dump could make very many values: all values of the module are
 * kept under a budget proportional to the text. */
static bool
outputs_fit(Ctx *c, uint32_t hint)
{
	uint64_t n = hint;
	for (GraphId i = c->first ? c->first : 1; i < c->m->ngraphs; i++)
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
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	Token open = *fx_cur(p);
	if (!fx_expect(p, "(")) {
		fx_bind(c, name, B_POISON, 0, loc, false);
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
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	fx_callnode(c, name, loc, oploc, op, base, first,
	    (FxAnnot){an, ann, anloc});
}

/* torch.ops.higher_order.flat_apply(spec, fn, 'qualname', *flat_args) is
 * fn(*args) with args unflattened by spec, a constant the dump does not
 * print.  Dynamo writes it for ModIndex (x[indices] inside torch.vmap,
 * transformers' padding masks): with one index per dim of x no None can
 * sit among them, so the flat arguments are x and the indices in order,
 * and the call is aten::index.Tensor(x, [indices]).  Other functions are
 * refused; op and the arguments at base are rewritten in place. */
static bool
flat_apply(Ctx *c, StrId *op, uint32_t base, Loc oploc)
{
	static const char MODINDEX[] =
	    "torch._dynamo._trace_wrapped_higher_order_op.ModIndex";
	Module *m = c->m;
	uint32_t n = c->nscr - base;
	Arg *a = c->scr + base;
	const char *fn = n >= 3 && a[2].kind == A_STR ? ir_str(m, a[2].u.s) :
	    NULL;
	if (!fn || strcmp(fn, MODINDEX) != 0) {
		fx_err(&c->p, oploc, "flat_apply of %s%s%s is not supported: "
		    "its arguments' structure is a constant the dump does not "
		    "print (only ModIndex, an indexing, is known)",
		    fn ? "'" : "", fn ? fn : "a function not named", fn ? "'" :
		    "");
		return false;
	}
	const Value *x = n >= 4 && a[3].kind == A_VAL ? ir_val(c->g,
	    a[3].u.v) : NULL;
	if (!x || x->kind != VK_TENSOR || x->rank < 1 ||
	    (uint32_t)x->rank != n - 4) {
		fx_err(&c->p, oploc, "flat_apply of ModIndex with %u indices "
		    "for a tensor of rank %d: where a None (':') falls among "
		    "them is a constant the dump does not print", n > 4 ? n - 4
		    : 0, x && x->kind == VK_TENSOR ? x->rank : -1);
		return false;
	}
	for (uint32_t i = 4; i < n; i++)
		if (a[i].kind != A_VAL || a[i].key) {
			fx_err(&c->p, oploc, "flat_apply of ModIndex: index "
			    "%u is not a tensor", i - 4);
			return false;
		}
	Arg list = ir_list(c->g, A_LIST, a + 4, n - 4);
	a[0] = a[3];
	a[1] = list;
	c->nscr = base + 2;
	*op = ir_intern(m, "aten::index.Tensor");
	return true;
}

void
fx_callnode(Ctx *c, StrId name, Loc loc, Loc oploc, StrId op, uint32_t base,
    StrId first, FxAnnot an)
{
	Module *m = c->m;
	if (!strcmp(ir_str(m, op), "higher_order::flat_apply") &&
	    !flat_apply(c, &op, base, oploc)) {
		c->nscr = base;
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	uint32_t hint = fe_map_get(&c->nout, name);
	if (hint > 1 && !outputs_fit(c, hint)) {
		fx_err(&c->p, loc, "'%s' would get %u outputs (from its "
		    "getitem uses), more values than a dump of this size can "
		    "hold", ir_str(m, name), hint);
		c->nscr = base;
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	NodeId nd = mknode(c, op, hint ? hint : 1, oploc, name, base);
	if (hint && an.s)
		an.s = NULL;  /* tuple-valued nodes carry no annotation */
	defvalue(c, nd, hint > 0, name, loc, an.s, an.n, an.loc);
	if (!first)
		return;
	/* whether an op is in-place is asked once per op: 1 + the answer */
	uint32_t known = fe_map_get(&c->inpl, op);
	if (!known) {
		known = 1 + inplace(ir_str(m, op));
		fe_map_set(&c->inpl, op, known);
	}
	if (known == 2) {
		Node *np = ir_nodep(c->g, nd);
		fx_bind(c, first, B_VAL, np->out, loc, true);
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
	fx_bind(c, name, B_POISON, 0, loc, false);
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
		fx_bind(c, name, B_POISON, 0, loc, false);
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
		fx_bind(c, name, B_REF, c->nrefs++, loc, false);
		return;
	}
	fx_bind(c, name, B_POISON, 0, loc, false);
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
		fx_bind(c, name, B_POISON, 0, loc, false);
		return;
	}
	Bind copy = *b;
	fx_bind(c, name, copy.kind, copy.x, loc, false);
}

/* NAME [: ANNOT] = EXPR [; frees] */
void
fx_assignment(Ctx *c)
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
	if (!fx_annotation(c, &an, &ann, &anloc, false)) {
		fx_bind(c, name, B_POISON, 0, nt.loc, false);
		return;
	}
	if (an && (fx_atpunct(p, ";") || fx_eol(p))) {
		fx_err(p, nt.loc, "type declaration without a value (unlifted "
		    "module); dump print(exported_program) instead");
		return;
	}
	if (!fx_expect(p, "=")) {
		fx_bind(c, name, B_POISON, 0, nt.loc, false);
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
void
fx_prefetch_name(Ctx *c, const Token *t)
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
		if (b->kind == B_POISON) {
			c->p.sig.lost = true;
			return true;
		}
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

void
fx_return(Ctx *c)
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
