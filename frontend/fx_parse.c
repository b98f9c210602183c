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
 * A list as a tuple's last element (histogramdd's bin_edges: "l = x[1]",
 * then "y = l[j]") adds its elements as outputs i, i + 1, ...
 * In-place ops (add_.Tensor) rebind the name of their first argument, so
 * the rest of the body reads as functional code.
 */
#include <stdlib.h>
#include <string.h>

#include "fx_int.h"
#include "reader.h"

/* Limits that keep hostile input cheap; real dumps stay far below them. */
enum {
	MAXCLASSES = 1024,       /* modules (graphs) in one dump */
	MAXSYMS = 10000          /* distinct symbols in annotations */
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

/* Is the current token where a forward() body must have ended? */
static bool
atbodyend(Ctx *c)
{
	Parser *p = &c->p;
	Token *t = fx_cur(p);
	return t->kind == T_EOF || (t->first && (tokeq(t, "class") ||
	    tokeq(t, "def") || fx_at_section(p)));
}

/* "y = x[i]" of the pre-scan */
typedef struct Sub {
	StrId y, x;
	uint32_t i;
} Sub;

/* A getitem y = x[i] whose y has getitems of its own is a list inside
 * x's result: its elements become x's outputs from i on where it is the
 * last element used (what else follows it, getitem reports). */
static void
nest_lists(Ctx *c, const Sub *sub, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t ny = fe_map_get(&c->nout, sub[k].y);
		if (!ny)
			continue;
		uint32_t was = fe_map_get(&c->nested, sub[k].x);
		if (!was || sub[k].i + 1 < was)
			fe_map_set(&c->nested, sub[k].x, sub[k].i + 1);
		if (fe_map_get(&c->nout, sub[k].x) == sub[k].i + 1 &&
		    sub[k].i + ny <= 65536)
			fe_map_set(&c->nout, sub[k].x, sub[k].i + ny);
	}
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
	Sub *sub = NULL;
	uint32_t nsub = 0, csub = 0;
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
			Token yt = *t;
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
					if (k > fe_map_get(&c->nout, prod))
						fe_map_set(&c->nout, prod, k);
					if (nsub >= csub)
						vgrow_nz((void **)&sub, &csub,
						    nsub + 1, sizeof *sub);
					sub[nsub++] = (Sub){tokstr(c->m, &yt),
					    prod, k - 1};
				}
			}
		}
		while (!fx_eol(p))
			fx_adv(p);
		fx_adv(p);
	}
	nest_lists(c, sub, nsub);
	free(sub);
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
	fe_map_free(&c->names);
	fe_map_free(&c->nout);
	fe_map_free(&c->nested);
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
		if (!fx_annotation(c, &an, &ann, &anloc, true)) {
			/* uses of it are not errors of their own */
			fx_bind(c, tokstr(m, &nt), B_POISON, 0, nt.loc, false);
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
				if (fe_annot(m, c->g, v, an, ann, anloc) != 0)
					p->badline = true;
			} else {
				ir_val(c->g, v)->kind = VK_CONST;
			}
			ir_val(c->g, v)->role = ROLE_USER_INPUT;
			ir_add_input(c->g, v);
			fx_bind(c, name, B_VAL, v, nt.loc, false);
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
			fx_settrace(c, t);
			fx_adv(p);
		} else if (tokeq(t, "return")) {
			fx_return(c);
			fx_skip_line(p);
			return;
		} else if (t->kind == T_NAME) {
			fx_prefetch_name(c, t);
			fx_assignment(c);
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
		/* flat_apply's constants (its spec and function), which
		 * the dump does not print: its calls do not keep them */
		const char *at = ir_str(m, ref->attr);
		if (!ref->target && (!strncmp(at, "function_const_func_spec",
		    24) || !strncmp(at, "torch__dynamo__trace_wrapped_", 29)))
			continue;
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
	c.first = m->ngraphs;
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
		fe_sig_apply(m, &p->sig, c.main);
	countsyms(m);
	resetbody(&c);
	fe_map_free(&c.inpl);
	free(c.binds);
	free(c.scr);
	free(c.refs);
	free(c.cls);
	fe_sig_free(&p->sig);
	if (o)
		o->fastlines = c.fastlines;
	if (m->nerrors != errs0)
		return -1;
	m->main = c.main;
	*out = c.main;
	return 0;
}

/* The reader table's entry (reader.h).  A dump is any text: the parser
 * says what is wrong with anything else, and where. */
static bool
rd_sniff(const char *path, const unsigned char *buf, size_t len)
{
	(void)path;
	(void)buf;
	(void)len;
	return true;
}

static int
rd_read(Module *m, const FeInput *in, void **state, GraphId *out)
{
	(void)in;   /* m->src holds its bytes */
	*state = NULL;
	return fx_parse(m, out);
}

static void
rd_close(void *state)
{
	(void)state;
}

const FeReader fx_reader = {
	.name = "FX dumps",
	.what = "FX text dump, print(exported_program)",
	.sniff = rd_sniff,
	.read = rd_read,
	.close = rd_close,
};
