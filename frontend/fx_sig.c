/* fx_sig.c - the sections after the graph in print(exported_program):
 *
 *   Graph signature:    three layouts: the 2.8+ "# inputs"/"# outputs"
 *                       listing, the 2.3-2.7 one-line dataclass repr with
 *                       input_specs/output_specs, and the 2.1-2.2 repr
 *                       with inputs_to_parameters/buffers_to_mutate maps;
 *   Range constraints:  kept as text in Module.ranges and parsed into the
 *                       range table (sym_range.c), in every layout;
 *   Equality constraints: (2.1-2.2) pairs of InputDim into Module.eqs.
 *
 * The dataclass reprs are parsed into a small tree of Python values first
 * (PV) and then read; newlines inside their brackets are ignored.
 */
#include <stdlib.h>
#include <string.h>

#include "fx_int.h"

static bool
tokeq(const Token *t, const char *s)
{
	return fx_tok_is(t, T_NAME, s);
}

bool
fx_at_section(Parser *p)
{
	Token *t = fx_cur(p);
	if (t->kind != T_NAME || !t->first)
		return false;
	/* the next token is lexed only after one of the four words: this
	 * runs at the start of every body line */
	if (tokeq(t, "Graph")) {
		Token *u = fx_peek(p, 1);
		return tokeq(u, "signature") || tokeq(u, "Signature");
	}
	if (tokeq(t, "Range") || tokeq(t, "Equality"))
		return tokeq(fx_peek(p, 1), "constraints");
	if (tokeq(t, "Symbol"))
		return tokeq(fx_peek(p, 1), "to");
	return false;
}

static const struct {
	const char *name;
	uint8_t role;
} inkinds[] = {
	{"USER_INPUT", ROLE_USER_INPUT}, {"PARAMETER", ROLE_PARAM},
	{"BUFFER", ROLE_BUFFER},         {"CONSTANT_TENSOR", ROLE_CONST},
	{"CUSTOM_OBJ", ROLE_CUSTOM_OBJ}, {"TOKEN", ROLE_TOKEN},
};

static const struct {
	const char *name;
	uint8_t kind;
} outkinds[] = {
	{"USER_OUTPUT", OUT_USER},
	{"LOSS_OUTPUT", OUT_LOSS},
	{"BUFFER_MUTATION", OUT_BUFFER_MUTATION},
	{"GRADIENT_TO_PARAMETER", OUT_GRAD_PARAM},
	{"GRADIENT_TO_USER_INPUT", OUT_GRAD_INPUT},
	{"USER_INPUT_MUTATION", OUT_USER_INPUT_MUTATION},
	{"TOKEN", OUT_TOKEN},
	{"PARAMETER_MUTATION", OUT_PARAM_MUTATION},
};

static int
inkind(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof inkinds / sizeof inkinds[0]; i++)
		if (strlen(inkinds[i].name) == n &&
		    memcmp(inkinds[i].name, s, n) == 0)
			return inkinds[i].role;
	return -1;
}

static int
outkind(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof outkinds / sizeof outkinds[0]; i++)
		if (strlen(outkinds[i].name) == n &&
		    memcmp(outkinds[i].name, s, n) == 0)
			return outkinds[i].kind;
	return -1;
}

static void
addentry(Sig *s, bool out, StrId name, uint8_t kind, StrId target, Loc loc,
    uint8_t persist)
{
	fe_sig_add(s, out, (SigEntry){name, kind, target, loc, persist});
}

/* The 2.8+ listing:
 *     # inputs
 *     p_w: PARAMETER target='w'
 *     b_rm: BUFFER target='bn.running_mean' persistent=True
 *     # outputs
 *     add: USER_OUTPUT
 */
static void
listing(Parser *p)
{
	Module *m = p->m;
	int mode = 0;
	for (;;) {
		Token *t = fx_cur(p);
		if (t->kind == T_EOF || fx_at_section(p))
			return;
		if (t->kind == T_NL) {
			fx_adv(p);
			continue;
		}
		if (t->kind == T_COMMENT) {
			const char *s = t->p;
			size_t n = t->n;
			while (n && (*s == ' ' || *s == '\t')) {
				s++;
				n--;
			}
			while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
				n--;
			if (n == 6 && memcmp(s, "inputs", 6) == 0)
				mode = 1;
			else if (n == 7 && memcmp(s, "outputs", 7) == 0)
				mode = 2;
			fx_adv(p);
			continue;
		}
		if (t->first && (tokeq(t, "class") || tokeq(t, "def")))
			return;
		Loc loc = t->loc;
		StrId name = 0;
		if (t->kind == T_NAME) {
			name = ir_internn(m, t->p, t->n);
			fx_adv(p);
		}
		if (!fx_tok_is(fx_cur(p), T_PUNCT, ":")) {
			fx_expected(p, name ? "':'" : "a placeholder name");
			fx_skip_line(p);
			continue;
		}
		fx_adv(p);
		Token kt = *fx_cur(p);
		if (kt.kind != T_NAME) {
			fx_expected(p, "an input or output kind");
			fx_skip_line(p);
			continue;
		}
		fx_adv(p);
		int kind = mode == 2 ? outkind(kt.p, kt.n) :
		    inkind(kt.p, kt.n);
		if (mode == 0) {
			fx_err(p, loc, "signature entry before '# inputs'");
		} else if (kind < 0) {
			fx_err(p, kt.loc, "unknown %s kind '%.*s'",
			    mode == 2 ? "output" : "input", (int)kt.n, kt.p);
		}
		StrId target = 0;
		uint8_t persist = PERSIST_UNKNOWN;
		while (!p->badline && fx_cur(p)->kind == T_NAME &&
		    fx_tok_is(fx_peek(p, 1), T_PUNCT, "=")) {
			bool istarget = tokeq(fx_cur(p), "target");
			bool ispersist = tokeq(fx_cur(p), "persistent");
			fx_adv(p);
			fx_adv(p);
			Token *v = fx_cur(p);
			if (istarget && v->kind == T_STR)
				target = fx_str_value(m, v);
			else if (ispersist && v->kind == T_NAME)
				persist = tokeq(v, "True") ? PERSIST_YES
				    : tokeq(v, "False") ? PERSIST_NO
				    : PERSIST_UNKNOWN;
			else if (v->kind != T_STR && v->kind != T_NAME &&
			    v->kind != T_INT)
				fx_expected(p, "a value");
			fx_adv(p);
		}
		if (!p->badline && fx_cur(p)->kind != T_NL &&
		    fx_cur(p)->kind != T_EOF)
			fx_expected(p, "end of line");
		if (!p->badline)
			addentry(&p->sig, mode == 2, name, (uint8_t)kind,
			    target, loc, persist);
		fx_skip_line(p);
	}
}

/* Python values of the dataclass reprs. */
enum { PV_CALL, PV_LIST, PV_DICT, PV_STR, PV_NUM, PV_NAME, PV_ENUM };

typedef struct PV PV;
struct PV {
	uint8_t kind;
	Loc loc;
	const char *text;  /* CALL, NAME: the dotted name; ENUM: last part */
	uint32_t n;
	StrId s;           /* STR */
	const char *key;   /* kwarg key of a CALL argument */
	uint32_t keyn;
	PV *kids, *last, *next; /* DICT: key, value, key, value ... */
};

static PV *
pvnew(Arena *a, uint8_t kind, const Token *t)
{
	PV *v = arena_alloc(a, sizeof *v);
	v->kind = kind;
	v->loc = t->loc;
	v->text = t->p;
	v->n = t->n;
	return v;
}

static void
pvadd(PV *parent, PV *kid)
{
	if (parent->last)
		parent->last->next = kid;
	else
		parent->kids = kid;
	parent->last = kid;
}

static PV *pvparse(Parser *p, Arena *a, int depth);

/* Items up to the closing bracket; calls may have key=value items and
 * dicts have key: value pairs. */
static bool
pvitems(Parser *p, Arena *a, PV *v, const Token *open, const char *close,
    int depth)
{
	for (;;) {
		Token *t = fx_cur(p);
		if (fx_tok_is(t, T_PUNCT, close))
			break;
		if (t->kind == T_EOF) {
			fx_err(p, open->loc, "unclosed '%c'", open->p[0]);
			return false;
		}
		const char *key = NULL;
		uint32_t keyn = 0;
		if (v->kind == PV_CALL && t->kind == T_NAME &&
		    fx_tok_is(fx_peek(p, 1), T_PUNCT, "=")) {
			key = t->p;
			keyn = t->n;
			fx_adv(p);
			fx_adv(p);
		}
		PV *kid = pvparse(p, a, depth + 1);
		if (!kid)
			return false;
		kid->key = key;
		kid->keyn = keyn;
		pvadd(v, kid);
		if (v->kind == PV_DICT) {
			if (!fx_tok_is(fx_cur(p), T_PUNCT, ":")) {
				fx_expected(p, "':'");
				return false;
			}
			fx_adv(p);
			kid = pvparse(p, a, depth + 1);
			if (!kid)
				return false;
			pvadd(v, kid);
		}
		if (fx_tok_is(fx_cur(p), T_PUNCT, ","))
			fx_adv(p);
		else if (!fx_tok_is(fx_cur(p), T_PUNCT, close)) {
			char what[16];
			snprintf(what, sizeof what, "',' or '%s'", close);
			fx_expected(p, what);
			return false;
		}
	}
	return true;
}

static PV *
pvparse(Parser *p, Arena *a, int depth)
{
	Token t = *fx_cur(p);
	if (depth >= FX_MAXDEPTH) {
		fx_err(p, t.loc, "brackets nested more than %d deep",
		    FX_MAXDEPTH);
		return NULL;
	}
	PV *v;
	switch (t.kind) {
	case T_STR:
		v = pvnew(a, PV_STR, &t);
		v->s = fx_str_value(p->m, &t);
		fx_adv(p);
		return v;
	case T_INT:
	case T_FLOAT:
		fx_adv(p);
		return pvnew(a, PV_NUM, &t);
	case T_NAME: {
		v = pvnew(a, PV_NAME, &t);
		fx_adv(p);
		while (fx_tok_is(fx_cur(p), T_PUNCT, ".") &&
		    fx_peek(p, 1)->kind == T_NAME) {
			fx_adv(p);
			Token *u = fx_cur(p);
			v->n = (uint32_t)(u->p + u->n - v->text);
			fx_adv(p);
		}
		if (!fx_tok_is(fx_cur(p), T_PUNCT, "("))
			return v;
		Token open = *fx_cur(p);
		fx_adv(p);
		v->kind = PV_CALL;
		if (!pvitems(p, a, v, &open, ")", depth))
			return NULL;
		fx_adv(p);
		return v;
	}
	case T_PUNCT:
		break;
	default:
		fx_expected(p, "a value");
		return NULL;
	}
	if (fx_tok_is(&t, T_PUNCT, "-")) {
		fx_adv(p);
		if (fx_cur(p)->kind != T_INT && fx_cur(p)->kind != T_FLOAT) {
			fx_expected(p, "a number");
			return NULL;
		}
		fx_adv(p);
		return pvnew(a, PV_NUM, &t);
	}
	if (fx_tok_is(&t, T_PUNCT, "<")) {
		/* <InputKind.PARAMETER: 2> */
		fx_adv(p);
		v = pvnew(a, PV_ENUM, &t);
		while (fx_cur(p)->kind == T_NAME) {
			v->text = fx_cur(p)->p;
			v->n = fx_cur(p)->n;
			fx_adv(p);
			if (!fx_tok_is(fx_cur(p), T_PUNCT, "."))
				break;
			fx_adv(p);
		}
		if (fx_tok_is(fx_cur(p), T_PUNCT, ":")) {
			fx_adv(p);
			if (fx_cur(p)->kind == T_INT)
				fx_adv(p);
		}
		if (!fx_tok_is(fx_cur(p), T_PUNCT, ">")) {
			fx_expected(p, "'>'");
			return NULL;
		}
		fx_adv(p);
		return v;
	}
	const char *close = fx_tok_is(&t, T_PUNCT, "[") ? "]" :
	    fx_tok_is(&t, T_PUNCT, "(") ? ")" :
	    fx_tok_is(&t, T_PUNCT, "{") ? "}" : NULL;
	if (!close) {
		fx_expected(p, "a value");
		return NULL;
	}
	fx_adv(p);
	v = pvnew(a, close[0] == '}' ? PV_DICT : PV_LIST, &t);
	if (!pvitems(p, a, v, &t, close, depth))
		return NULL;
	fx_adv(p);
	return v;
}

static bool
pvis(const PV *v, const char *s)
{
	return v && strlen(s) == v->n && memcmp(v->text, s, v->n) == 0;
}

static PV *
kwarg(const PV *call, const char *key)
{
	for (PV *k = call ? call->kids : NULL; k; k = k->next)
		if (k->key && strlen(key) == k->keyn &&
		    memcmp(k->key, key, k->keyn) == 0)
			return k;
	return NULL;
}

/* InputSpec(kind=<InputKind.PARAMETER: 2>, arg=TensorArgument(name='p'),
 * target='w', persistent=None) and OutputSpec(...) */
static void
specs(Parser *p, PV *list, bool out)
{
	for (PV *s = list && list->kind == PV_LIST ? list->kids : NULL; s;
	    s = s->next) {
		PV *kind = kwarg(s, "kind"), *arg = kwarg(s, "arg");
		PV *target = kwarg(s, "target");
		PV *persist = kwarg(s, "persistent");
		PV *name = kwarg(arg, "name");
		if (s->kind != PV_CALL || !kind || kind->kind != PV_ENUM ||
		    !name || name->kind != PV_STR) {
			fx_err(p, s->loc, "malformed %s in the graph signature",
			    out ? "OutputSpec" : "InputSpec");
			continue;
		}
		int k = out ? outkind(kind->text, kind->n) :
		    inkind(kind->text, kind->n);
		if (k < 0) {
			fx_err(p, kind->loc, "unknown %s kind '%.*s'",
			    out ? "output" : "input", (int)kind->n, kind->text);
			continue;
		}
		uint8_t pst = PERSIST_UNKNOWN;
		if (persist && persist->kind == PV_NAME)
			pst = persist->n == 4 && !memcmp(persist->text, "True",
			    4) ? PERSIST_YES : persist->n == 5 &&
			    !memcmp(persist->text, "False", 5) ? PERSIST_NO
			    : PERSIST_UNKNOWN;
		addentry(&p->sig, out, name->s, (uint8_t)k,
		    target && target->kind == PV_STR ? target->s : 0,
		    name->loc, pst);
	}
}

/* user_inputs=['a', 'b'] */
static void
names(Parser *p, PV *list, bool out, uint8_t kind)
{
	if (!list)
		return;
	if (list->kind != PV_LIST) {
		fx_err(p, list->loc, "expected a list of names");
		return;
	}
	for (PV *s = list->kids; s; s = s->next) {
		if (s->kind != PV_STR) {
			fx_err(p, s->loc, "expected a name string");
			continue;
		}
		addentry(&p->sig, out, s->s, kind, 0, s->loc, 0);
	}
}

/* inputs_to_parameters={'arg0_1': 'conv.weight'} */
static void
namemap(Parser *p, PV *dict, bool out, uint8_t kind)
{
	if (!dict)
		return;
	if (dict->kind != PV_DICT) {
		fx_err(p, dict->loc, "expected a dict of names");
		return;
	}
	for (PV *k = dict->kids; k && k->next; k = k->next->next) {
		if (k->kind != PV_STR || k->next->kind != PV_STR) {
			fx_err(p, k->loc, "expected 'name': 'target'");
			continue;
		}
		addentry(&p->sig, out, k->s, kind, k->next->s, k->loc,
		    0);
	}
}

static void
dataclass(Parser *p)
{
	Arena *a = arena_new();
	Token start = *fx_cur(p);
	p->join++;
	PV *v = pvparse(p, a, 0);
	/* end joining before anything past the last ')' is looked at */
	p->join--;
	if (v && !(v->kind == PV_CALL && (pvis(v, "ExportGraphSignature") ||
	    pvis(v, "ExportBackwardSignature")))) {
		fx_err(p, start.loc, "expected ExportGraphSignature(...)");
		v = NULL;
	}
	if (v) {
		p->sig.loc = start.loc;
		PV *in = kwarg(v, "input_specs"), *out = kwarg(v,
		    "output_specs");
		if (in || out) {
			specs(p, in, false);
			specs(p, out, true);
		} else {
			p->sig.bynames = true;
			names(p, kwarg(v, "user_inputs"), false,
			    ROLE_USER_INPUT);
			namemap(p, kwarg(v, "inputs_to_parameters"), false,
			    ROLE_PARAM);
			namemap(p, kwarg(v, "inputs_to_buffers"), false,
			    ROLE_BUFFER);
			namemap(p, kwarg(v,
			    "inputs_to_lifted_tensor_constants"), false,
			    ROLE_CONST);
			namemap(p, kwarg(v, "inputs_to_lifted_custom_objs"),
			    false, ROLE_CUSTOM_OBJ);
			names(p, kwarg(v, "user_outputs"), true, OUT_USER);
			namemap(p, kwarg(v, "buffers_to_mutate"), true,
			    OUT_BUFFER_MUTATION);
			namemap(p, kwarg(v, "user_inputs_to_mutate"), true,
			    OUT_USER_INPUT_MUTATION);
		}
	}
	arena_free(a);
}

/* A bracketed value kept as text (ranges) or skipped. */
static StrId
bracketed(Parser *p, bool keep)
{
	Token open = *fx_cur(p);
	const char *close = fx_tok_is(&open, T_PUNCT, "{") ? "}" :
	    fx_tok_is(&open, T_PUNCT, "[") ? "]" : NULL;
	if (!close) {
		fx_expected(p, "'{' or '['");
		return 0;
	}
	p->join++;
	fx_adv(p);
	int depth = 1;
	for (;;) {
		Token *t = fx_cur(p);
		if (t->kind == T_EOF) {
			fx_err(p, open.loc, "unclosed '%c'", open.p[0]);
			p->join--;
			return 0;
		}
		if (t->kind == T_ERR) {
			fx_err(p, t->loc, "%s", t->msg);
			p->join--;
			return 0;
		}
		if (t->kind == T_PUNCT && t->n == 1 && strchr("([{", t->p[0]))
			depth++;
		if (t->kind == T_PUNCT && t->n == 1 &&
		    strchr(")]}", t->p[0]) && --depth == 0) {
			Token end = *t;
			p->join--;
			fx_adv(p);
			if (!keep)
				return 0;
			return ir_internn(p->m, open.p,
			    (size_t)(end.p + 1 - open.p));
		}
		fx_adv(p);
	}
}

/* The range table (sym_range.c) from the text; ranges are advisory, so text
 * that does not read is a warning. */
static void
ranges(Parser *p, StrId text, Loc at)
{
	Module *m = p->m;
	const char *s = ir_str(m, text);
	size_t err = 0;
	if (sym_parse_ranges(m, s, strlen(s), &err) == 0) {
		ExprId bad;
		const char *why = sym_check_ranges(m, &bad);
		if (why) {
			char buf[128];
			ir_expr_print(m, bad, buf, sizeof buf);
			ir_error(m, at, "impossible range constraint on '%s': "
			    "%s", buf, why);
		}
		return;
	}
	/* the text may span lines; point into its first one */
	size_t nl = strcspn(s, "\n");
	if (err <= nl)
		at.col += (uint32_t)err;
	ir_warning(m, at, "range constraints not understood; they are kept "
	    "as text only");
}

/* [(InputDim(input_name='x', dim=0), InputDim(input_name='y', dim=0))] */
static bool
inputdim(const PV *v, StrId *name, int64_t *dim)
{
	PV *n = kwarg(v, "input_name"), *d = kwarg(v, "dim");
	if (!v || v->kind != PV_CALL || !pvis(v, "InputDim") || !n ||
	    n->kind != PV_STR || !d || d->kind != PV_NUM)
		return false;
	char buf[32];
	if (d->n >= sizeof buf)
		return false;
	memcpy(buf, d->text, d->n);
	buf[d->n] = 0;
	char *end;
	long long x = strtoll(buf, &end, 10);
	if (*end)
		return false;
	*name = n->s;
	*dim = x;
	return true;
}

static void
equalities(Parser *p)
{
	Module *m = p->m;
	Arena *a = arena_new();
	Token start = *fx_cur(p);
	p->join++;
	PV *v = pvparse(p, a, 0);
	p->join--;
	if (v && v->kind != PV_LIST)
		fx_err(p, start.loc, "expected a list of equality constraints");
	for (PV *e = v && v->kind == PV_LIST ? v->kids : NULL; e;
	    e = e->next) {
		SymEq eq;
		if (e->kind != PV_LIST || !e->kids || !e->kids->next ||
		    e->kids->next->next ||
		    !inputdim(e->kids, &eq.a, &eq.adim) ||
		    !inputdim(e->kids->next, &eq.b, &eq.bdim)) {
			ir_warning(m, e->loc, "equality constraint not "
			    "understood (expected (InputDim(...), "
			    "InputDim(...))); ignored");
			continue;
		}
		sym_eq_add(m, eq);
	}
	arena_free(a);
}

int
fx_section(Parser *p)
{
	Module *m = p->m;
	int errs = m->nerrors;
	Token t = *fx_cur(p);
	fx_adv(p);
	fx_adv(p);
	if (tokeq(&t, "Symbol") && tokeq(fx_cur(p), "range"))
		fx_adv(p);
	if (!fx_tok_is(fx_cur(p), T_PUNCT, ":")) {
		fx_expected(p, "':'");
		fx_skip_line(p);
		return -1;
	}
	fx_adv(p);
	if (tokeq(&t, "Graph")) {
		if (p->sig.present)
			fx_err(p, t.loc, "second graph signature");
		p->sig.present = true;
		p->sig.loc = t.loc;
		if (fx_cur(p)->kind == T_NL) {
			fx_adv(p);
			listing(p);
			return m->nerrors == errs ? 0 : -1;
		}
		dataclass(p);
	} else if (tokeq(&t, "Equality")) {
		if (fx_cur(p)->kind != T_NL && fx_cur(p)->kind != T_EOF)
			equalities(p);
	} else if (fx_cur(p)->kind != T_NL && fx_cur(p)->kind != T_EOF) {
		Loc at = fx_cur(p)->loc;
		StrId s = bracketed(p, true);
		if (s) {
			m->ranges = s;
			ranges(p, s, at);
		}
	}
	if (!p->badline && fx_cur(p)->kind != T_NL &&
	    fx_cur(p)->kind != T_EOF)
		fx_expected(p, "end of line");
	fx_skip_line(p);
	return m->nerrors == errs ? 0 : -1;
}
