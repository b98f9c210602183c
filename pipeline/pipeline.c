/* pipeline.c - pipeline text, presets and the pass manager (pipeline.h).
 *
 * The pass manager runs each pass with an onnxc_ctx on the current graph.
 * Passes change graphs only through the host table, which records each
 * graph they touch; afterwards ir_normalize (ir/normalize.c) puts that
 * graph back in def-before-use order with erased nodes dropped, so a pass
 * may append a node and use it from anywhere.  Then ir_verify, with
 * --verify-each or in a debug build.  Before the first pass, pm_check
 * holds the pipeline to the passes' contracts. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline.h"

/* The presets, one step a row: the -O levels it is in (bit l: -O<l>)
 * and the targets it is for.  The pipeline text of a level is its rows in
 * order; the usage text prints the same rows (pm_presets_help).  Passes
 * after lower work on the ONNX graph. */
enum { O0 = 1, O1 = 2, O2 = 4, O12 = O1 | O2, OALL = O0 | O1 | O2 };
enum { FOR_ALL, FOR_ONNX, FOR_ORT };  /* which output a row is for */
static const struct {
	const char *step;
	uint8_t levels, only;
} presets[] = {
	{"inline", OALL, FOR_ALL},
	{"retype-int-div", OALL, FOR_ALL},
	{"functionalize", OALL, FOR_ALL},
	{"templates", O12, FOR_ALL},
	{"decompose", O12, FOR_ALL},
	{"symbolize-shapes", OALL, FOR_ALL},
	{"fold", O12, FOR_ALL},
	{"cse", O12, FOR_ALL},
	{"dce", O12, FOR_ALL},
	{"lower", OALL, FOR_ALL},
	{"cse", O1, FOR_ALL},
	{"dce", O1, FOR_ALL},
	{"fold{max-size=268435456}", O2, FOR_ALL},
	{"drop-neutral", O2, FOR_ALL},
	{"static-reshapes", O2, FOR_ALL},
	{"simplify", O2, FOR_ALL},
	{"fuse-conv-bn", O2, FOR_ALL},
	/* HardSwish: ONNX Runtime inlines its function body when it loads
	 * an .onnx, but an .ort file needs a kernel, which it has not */
	{"fuse-activations{hardswish=true}", O2, FOR_ONNX},
	{"fuse-activations", O2, FOR_ORT},
	{"dce", O2, FOR_ALL},
	{"fold-scales", O2, FOR_ALL},
	{"merge-matmuls", O2, FOR_ALL},
	{"fuse-einsum-transposes", O2, FOR_ALL},
	{"merge-layout-chains", O2, FOR_ALL},
	{"fuse-pool-flatten", O2, FOR_ALL},
	{"lift-constants", O2, FOR_ALL},
	{"cse", O2, FOR_ALL},
	{"dce", O2, FOR_ALL},
	{"prune-initializers", O2, FOR_ALL},
};
enum { NLEVELS = 3, DEFAULT_LEVEL = 1 };

/* The module each built-in pass ships in (passes/<module>.c or <module>/). */
static const struct {
	const char *pass, *module;
} builtin[] = {
	{"inline", "inline.so"},
	{"retype-int-div", "retype.so"},
	{"functionalize", "functionalize.so"},
	{"templates", "templates.so"},
	{"decompose", "decompose.so"},
	{"symbolize-shapes", "symbolize.so"},
	{"fold", "fold.so"},
	{"cse", "cse.so"},
	{"dce", "dce.so"},
	{"simplify", "simplify.so"},
	{"lift-constants", "lift.so"},
	{"fuse-conv-bn", "convbn.so"},
	{"prune-initializers", "prune.so"},
	{"fuse-activations", "activations.so"},
	{"static-reshapes", "reshapes.so"},
	{"fold-scales", "scales.so"},
	{"merge-matmuls", "matmuls.so"},
	{"fuse-einsum-transposes", "einsum.so"},
	{"merge-layout-chains", "layout.so"},
	{"fuse-pool-flatten", "pool.so"},
	{"drop-neutral", "neutral.so"},
};

static bool
in_preset(int level, const PmTarget *t, size_t i)
{
	return (presets[i].levels >> level & 1) && (presets[i].only == FOR_ALL
	    || (presets[i].only == FOR_ORT) == t->ort);
}

const char *
pm_preset(int level, const PmTarget *t, char *buf, size_t cap)
{
	size_t len = 0;
	if (level < 0 || level >= NLEVELS || !cap)
		return NULL;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
		if (in_preset(level, t, i))
			len = str_addf(buf, cap, len, "%s%s", len ? "," : "",
			    presets[i].step);
	return len < cap - 1 ? buf : NULL;
}

void
pm_presets_help(FILE *f)
{
	enum { WIDTH = 74, INDENT = 24 };
	for (int level = 0; level < NLEVELS; level++) {
		int col = fprintf(f, "  -O%d%s", level, level == DEFAULT_LEVEL ?
		    " (default)" : "");
		fprintf(f, "%*s", col < INDENT ? INDENT - col : 1, "");
		col = INDENT;
		bool first = true;
		for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
			if (!(presets[i].levels >> level & 1))
				continue;
			const char *only = presets[i].only == FOR_ONNX ?
			    " (.onnx)" : presets[i].only == FOR_ORT ? " (.ort)"
			    : "";
			int n = (int)(strlen(presets[i].step) + strlen(only));
			if (!first && col + 1 + n > WIDTH) {
				fprintf(f, ",\n%*s", INDENT, "");
				col = INDENT;
			} else if (!first) {
				col += fprintf(f, ",");
			}
			first = false;
			col += fprintf(f, "%s%s", presets[i].step, only);
		}
		fputc('\n', f);
	}
}

/* A diagnostic with file shown as the file name and, when text is given,
 * text as its source with a caret at off. */
static void
vreport(Module *m, const char *kind, const char *file, const char *text,
    size_t off, const char *fmt, va_list ap)
{
	DiagSrc src = {file, text, text ? strlen(text) : 0};
	Loc loc = {0};
	if (text) {
		size_t bol = 0;
		loc.line = 1;
		for (size_t i = 0; i < off && i < src.len; i++)
			if (text[i] == '\n') {
				loc.line++;
				bol = i + 1;
			}
		loc.col = (uint32_t)(off - bol + 1);
	}
	ir_vdiag_in(m, &src, kind, loc, fmt, ap);
}

static void
report(Module *m, const char *kind, const char *file, const char *text,
    size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(m, kind, file, text, off, fmt, ap);
	va_end(ap);
}

/* A comma-separated list into buf. */
static void
join(char *buf, size_t cap, const char *const *items, uint32_t n,
    size_t stride)
{
	size_t len = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < n && len < cap; i++) {
		const char *s = *(const char *const *)((const char *)items +
		    i * stride);
		len = str_addf(buf, cap, len, "%s%s", i ? ", " : "", s);
	}
}

int
pm_check_preset(Module *m, const PlRegistry *r, int level, const PmTarget *t)
{
	char buf[PM_PRESET_MAX];
	const char *text = pm_preset(level, t, buf, sizeof buf);
	char flag[8], dirs[2048];
	int bad = 0;
	if (!text)
		return -1;
	snprintf(flag, sizeof flag, "-O%d", level);
	join(dirs, sizeof dirs, r->dirs, r->ndirs, sizeof *r->dirs);
	for (const char *s = text; *s;) {
		size_t n = strcspn(s, ",{"), skip = n;
		if (s[n] == '{')    /* options: checked when the text is parsed */
			skip += strcspn(s + n, "}") + (strchr(s + n, '}') != NULL);
		if (!pl_find_pass(r, s, n)) {
			const char *module = "a plugin module";
			for (size_t i = 0; i < sizeof builtin / sizeof *builtin;
			    i++)
				if (strlen(builtin[i].pass) == n &&
				    !memcmp(builtin[i].pass, s, n))
					module = builtin[i].module;
			report(m, "error", flag, text, (size_t)(s - text),
			    "no plugin provides pass '%.*s': its module %s was "
			    "expected in %s", (int)n, s, module, r->ndirs ? dirs
			    : "the plugin folders (none searched)");
			bad++;
		}
		s += skip + (s[skip] == ',');
	}
	return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- parser */

typedef struct P {
	Module *m;
	const PlRegistry *r;
	const char *flag, *s;
	size_t n, pos;
} P;

static int
perr(P *p, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(p->m, "error", p->flag, p->s, off, fmt, ap);
	va_end(ap);
	return -1;
}

static void
pnote(P *p, const char *fmt, const char *what)
{
	report(p->m, "note", p->flag, NULL, 0, fmt, what);
}

static bool
isname(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

static bool
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static void
blanks(P *p)
{
	while (p->pos < p->n && blank(p->s[p->pos]))
		p->pos++;
}

static size_t
word(P *p)
{
	size_t at = p->pos;
	while (p->pos < p->n && isname(p->s[p->pos]))
		p->pos++;
	return p->pos - at;
}

/* The character at pos, quoted for a message. */
static const char *
found(P *p, char *buf, size_t cap)
{
	if (p->pos >= p->n)
		return "the end";
	unsigned char c = (unsigned char)p->s[p->pos];
	if (c > ' ' && c < 127)
		snprintf(buf, cap, "'%c'", c);
	else
		snprintf(buf, cap, "byte 0x%02x", c);
	return buf;
}

/* How much of a value to quote in a message: one line, 40 bytes. */
static size_t
shown(const char *v, size_t n)
{
	size_t k = 0;
	while (k < n && k < 40 && (unsigned char)v[k] >= ' ' && v[k] != 127)
		k++;
	return k;
}

static const char *
takes(uint32_t type)
{
	switch (type) {
	case ONNXC_OPT_BOOL: return "a bool (true, false, 1 or 0)";
	case ONNXC_OPT_INT: return "an int";
	case ONNXC_OPT_FLOAT: return "a float";
	default: return "a string";
	}
}

/* An option value at pos: quoted, or bare up to the next punctuation
 * with trailing blanks dropped.  -1 (reported) when there is none. */
static int
value(P *p, const onnxc_option *o, const char **v, size_t *vlen)
{
	size_t vat = p->pos;
	*v = p->s + vat;
	if (p->pos < p->n && (**v == '\'' || **v == '"')) {
		const char *close = memchr(*v + 1, **v, p->n - vat - 1);
		if (!close)
			return perr(p, vat, "unterminated quoted value (no "
			    "closing %c)", **v);
		++*v;
		*vlen = (size_t)(close - *v);
		p->pos = (size_t)(close - p->s) + 1;
		return 0;
	}
	while (p->pos < p->n && !strchr(",{}'\"", p->s[p->pos]))
		p->pos++;
	*vlen = p->pos - vat;
	while (*vlen && blank((*v)[*vlen - 1]))
		--*vlen;
	if (!*vlen)
		return perr(p, vat, "expected a value for option '%s'",
		    o->name);
	return 0;
}

/* The option of the pass named s[at..at+len), or noptions. */
static uint32_t
find_option(const onnxc_pass_info *pi, const char *s, size_t len)
{
	uint32_t i = 0;
	while (i < pi->noptions && (strlen(pi->options[i].name) != len ||
	    memcmp(pi->options[i].name, s, len)))
		i++;
	return i;
}

static int
no_option(P *p, const onnxc_pass_info *pi, size_t at, size_t len)
{
	char list[1024];
	perr(p, at, "pass '%s' has no option '%.*s'", pi->name, (int)len,
	    p->s + at);
	if (pi->noptions) {
		join(list, sizeof list, &pi->options[0].name, pi->noptions,
		    sizeof *pi->options);
		pnote(p, "its options: %s", list);
	} else {
		pnote(p, "%s", "it takes no options");
	}
	return -1;
}

/* '{' key=value, ... '}' after the pass of step st. */
static int
options(P *p, PmStep *st)
{
	const onnxc_pass_info *pi = &st->pass->info;
	size_t open = p->pos++;
	uint8_t given[64] = {0};
	char buf[16];
	const char *unbalanced = "unbalanced '{': no '}' closes it";
	blanks(p);
	if (p->pos < p->n && p->s[p->pos] == '}') {
		p->pos++;
		return 0;
	}
	for (;;) {
		blanks(p);
		size_t at = p->pos, len = word(p);
		if (!len && p->pos >= p->n)
			return perr(p, open, "%s", unbalanced);
		if (!len)
			return perr(p, at, "expected an option name, not %s",
			    found(p, buf, sizeof buf));
		uint32_t i = find_option(pi, p->s + at, len);
		if (i == pi->noptions)
			return no_option(p, pi, at, len);
		const onnxc_option *o = &pi->options[i];
		if (given[i])
			return perr(p, at, "option '%s' is given twice",
			    o->name);
		given[i] = 1;
		blanks(p);
		if (p->pos >= p->n || p->s[p->pos] != '=')
			return perr(p, p->pos, "expected '=' after option "
			    "'%s', not %s", o->name, found(p, buf, sizeof buf));
		p->pos++;
		blanks(p);
		size_t vat = p->pos, vlen;
		const char *v;
		if (value(p, o, &v, &vlen) < 0)
			return -1;
		if (pl_opt_parse(p->m->arena, o->type, v, vlen,
		    &st->opts[i]) < 0)
			return perr(p, vat, "option '%s' of pass '%s' takes "
			    "%s, not '%.*s'%s", o->name, pi->name,
			    takes(o->type), (int)shown(v, vlen), v,
			    shown(v, vlen) < vlen ? "..." : "");
		blanks(p);
		if (p->pos >= p->n)
			return perr(p, open, "%s", unbalanced);
		if (p->s[p->pos] == '}') {
			p->pos++;
			return 0;
		}
		if (p->s[p->pos] != ',')
			return perr(p, p->pos, "expected ',' or '}' after "
			    "option '%s', not %s", o->name,
			    found(p, buf, sizeof buf));
		p->pos++;
	}
}

static void
unknown_pass(P *p, size_t at, size_t len)
{
	perr(p, at, "unknown pass '%.*s'", (int)len, p->s + at);
	char list[2048];
	ArenaMark mk = arena_mark(p->m->scratch);
	const char **names = arena_array(p->m->scratch, p->r->npasses + 1,
	    sizeof *names);
	for (uint32_t i = 0; i < p->r->npasses; i++)
		names[i] = p->r->passes[i].info.name;
	join(list, sizeof list, names, p->r->npasses, sizeof *names);
	arena_release(p->m->scratch, mk);
	pnote(p, "registered passes: %s (--list-passes tells where they "
	    "come from)", p->r->npasses ? list : "none");
}

int
pm_parse(Module *m, const PlRegistry *r, const char *flag, const char *text,
    PmPipeline *out)
{
	P p = {.m = m, .r = r, .flag = flag, .s = text, .n = strlen(text)};
	char buf[16];
	memset(out, 0, sizeof *out);
	out->flag = arena_strndup(m->arena, flag, strlen(flag));
	out->text = arena_strndup(m->arena, text, p.n);
	for (;;) {
		blanks(&p);
		size_t at = p.pos, len = word(&p);
		if (!len)
			return perr(&p, at, "expected a pass name, not %s",
			    found(&p, buf, sizeof buf));
		const PlPass *pass = pl_find_pass(r, text + at, len);
		if (!pass) {
			unknown_pass(&p, at, len);
			return -1;
		}
		vgrow((void **)&out->steps, &out->cap, out->n + 1,
		    sizeof *out->steps);
		PmStep *st = &out->steps[out->n++];
		uint32_t k = pass->info.noptions;
		st->pass = pass;
		st->off = (uint32_t)at;
		st->opts = arena_alloc(m->arena, (k + 1) * sizeof *st->opts);
		if (k)
			memcpy(st->opts, pass->dflt, k * sizeof *st->opts);
		blanks(&p);
		if (p.pos < p.n && text[p.pos] == '{') {
			if (options(&p, st) < 0)
				return -1;
			blanks(&p);
		}
		if (p.pos >= p.n)
			return 0;
		if (text[p.pos] == '}')
			return perr(&p, p.pos, "unbalanced '}': no '{' "
			    "opens it");
		if (text[p.pos] != ',')
			return perr(&p, p.pos, "expected ',' or the end after "
			    "pass '%s', not %s", pass->info.name,
			    found(&p, buf, sizeof buf));
		p.pos++;
	}
}

void
pm_free(PmPipeline *p)
{
	free(p->steps);
	memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------- the target */

/* Pass options that stand for command-line flags: set from the target on
 * every step of their pass, over what --passes gave them. */
enum { T_DYNAMIC, T_STATIC, T_STRICT };
static const struct {
	const char *pass, *option;
	uint8_t field;
	const char *flag;  /* given without the pass: an error */
} bound[] = {
	{"symbolize-shapes", "dynamic", T_DYNAMIC, "--dynamic"},
	{"symbolize-shapes", "static", T_STATIC, "--static"},
	{"symbolize-shapes", "strict", T_STRICT, NULL},
};

/* The text the target gives bound option i, NULL when it gives none. */
static const char *
bound_text(const PmTarget *t, size_t i)
{
	switch (bound[i].field) {
	case T_DYNAMIC: return t->dynamic && *t->dynamic ? t->dynamic : NULL;
	case T_STATIC: return t->statics && *t->statics ? t->statics : NULL;
	default: return t->strict ? "true" : NULL;
	}
}

int
pm_target_options(Module *m, const PmTarget *t, PmPipeline *p)
{
	for (size_t i = 0; i < sizeof bound / sizeof *bound; i++) {
		const char *text = bound_text(t, i);
		bool found = false;
		for (uint32_t k = 0; k < p->n; k++) {
			const onnxc_pass_info *pi = &p->steps[k].pass->info;
			if (strcmp(pi->name, bound[i].pass))
				continue;
			found = true;
			uint32_t o = find_option(pi, bound[i].option,
			    strlen(bound[i].option));
			if (!text || o == pi->noptions)
				continue;
			if (pl_opt_parse(m->arena, pi->options[o].type, text,
			    strlen(text), &p->steps[k].opts[o]) < 0) {
				report(m, "error", "onnxc", NULL, 0, "the pass "
				    "%s loaded does not take option '%s' as "
				    "text", bound[i].pass, bound[i].option);
				return -1;
			}
		}
		if (!found && text && bound[i].flag) {
			report(m, "error", "onnxc", NULL, 0, "%s is an option "
			    "of the pass '%s', which the --passes pipeline "
			    "lacks", bound[i].flag, bound[i].pass);
			return -1;
		}
	}
	return 0;
}

int
pm_build(Module *m, const PlRegistry *r, const PmTarget *t,
    const char *passes, int level, PmPipeline *p)
{
	char flag[16], buf[PM_PRESET_MAX];  /* "-O" and any int */
	if (passes) {
		if (pm_parse(m, r, "--passes", passes, p) < 0)
			return -1;
	} else {
		if (level < 0)
			level = DEFAULT_LEVEL;
		snprintf(flag, sizeof flag, "-O%d", level);
		const char *text = pm_preset(level, t, buf, sizeof buf);
		if (!text || pm_check_preset(m, r, level, t) < 0 ||
		    pm_parse(m, r, flag, text, p) < 0)
			return -1;
	}
	return pm_target_options(m, t, p);
}

/* ------------------------------------------------------------ contracts */

static const struct {
	uint32_t bit;
	const char *name, *what;
} props[] = {
	{ONNXC_PROP_FX, "fx", "an FX graph, not lowered yet"},
	{ONNXC_PROP_ONNX, "onnx", "an ONNX graph"},
	{ONNXC_PROP_FUNCTIONAL, "functional", "no in-place ops"},
	{ONNXC_PROP_NO_HOP, "no-hop", "no higher-order op whose body is to "
	    "be inlined"},
	{ONNXC_PROP_SYMBOLIZED, "symbolized", "dims symbolized as --dynamic "
	    "asks"},
};
enum { NPROPS = sizeof props / sizeof *props };
_Static_assert(ONNXC_PROP_ALL == (1u << NPROPS) - 1,
    "every property has a name");

char *
pm_props_text(uint32_t bits, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < NPROPS && len < cap; i++)
		if (bits & props[i].bit)
			len = str_addf(buf, cap, len, "%s%s",
			    len ? "," : "", props[i].name);
	return buf;
}

/* The properties of graph g as its nodes show them (an empty graph has
 * both dialects). */
static uint32_t
props_of(const Module *m, GraphId g)
{
	const Graph *G = ir_graph(m, g);
	uint32_t seen = 0;
	for (NodeId n = 1; n < G->nnodes; n++)
		if (G->nodes[n].op)
			seen |= G->nodes[n].dialect == D_ONNX ? ONNXC_PROP_ONNX
			    : ONNXC_PROP_FX;
	return seen ? seen : ONNXC_PROP_FX | ONNXC_PROP_ONNX;
}

/* The first registered pass providing property i, or NULL. */
static const char *
provider(const PlRegistry *r, int i)
{
	for (uint32_t k = 0; k < r->npasses; k++)
		if (r->passes[k].contract &&
		    (r->passes[k].info.provides & props[i].bit))
			return r->passes[k].info.name;
	return NULL;
}

/* Property i is missing at off, where pass `who` (NULL: the end of the
 * pipeline) needs it; `lost` is the step that took it away, if any. */
static int
unmet(Module *m, const PlRegistry *r, const PmPipeline *p, uint32_t off,
    const char *who, int i, const PmStep *lost)
{
	const char *by = provider(r, i), *flag = p->flag ? p->flag : "passes";
	char why[160];
	if (lost)
		snprintf(why, sizeof why, "pass '%s' before it does not keep "
		    "it", lost->pass->info.name);
	else
		snprintf(why, sizeof why, "no pass before it provides it");
	if (who)
		report(m, "error", flag, p->text, off, "pass '%s' needs "
		    "property '%s' (%s): %s", who, props[i].name,
		    props[i].what, why);
	else
		report(m, "error", flag, p->text, off, "the pipeline "
		    "leaves a graph without property '%s' (%s), which cannot "
		    "be written: it needs the pass '%s'", props[i].name,
		    props[i].what, by ? by : "(none registered)");
	if (who && by && !lost)
		report(m, "note", flag, NULL, 0, "pass '%s' provides '%s': "
		    "run it before '%s'", by, props[i].name, who);
	return -1;
}

int
pm_check(Module *m, const PlRegistry *r, const PmPipeline *p,
    uint32_t have, uint32_t want)
{
	const PmStep *lost[NPROPS] = {0};  /* the step that broke each */
	for (uint32_t k = 0; k < p->n; k++) {
		const PmStep *st = &p->steps[k];
		const onnxc_pass_info *pi = &st->pass->info;
		if (!st->pass->contract)
			continue;   /* before ABI 1.4: not checked */
		for (int i = 0; i < NPROPS; i++)
			if (pi->needs & ~have & props[i].bit)
				return unmet(m, r, p, st->off, pi->name, i,
				    lost[i]);
		for (int i = 0; i < NPROPS; i++)
			if (pi->breaks & ~pi->provides & have & props[i].bit)
				lost[i] = st;
		have = (have & ~pi->breaks) | pi->provides;
	}
	for (int i = 0; i < NPROPS; i++)
		if (want & ~have & props[i].bit)
			return unmet(m, r, p, p->text ? (uint32_t)strlen(
			    p->text) : 0, NULL, i, lost[i]);
	return 0;
}

/* -------------------------------------------------------------- running */

/* ir_verify on the top-level graph of each graph the pass changed, other
 * than c->graph (verified already): a body is checked from its owner,
 * which knows its captures.  Each once. */
static int
verify_touched(Module *m, const onnxc_ctx *c)
{
	ArenaMark mk = arena_mark(m->scratch);
	uint8_t *done = arena_alloc(m->scratch, m->ngraphs + 1);
	int rc = 0;
	for (GraphId k = 1; k < c->cbase && k < m->ngraphs; k++) {
		GraphId top = k;
		for (uint32_t up = 0; c->base[k] && m->graphs[top]->parent &&
		    up < m->ngraphs; up++)
			top = m->graphs[top]->parent;
		if (!c->base[k] || top == c->graph || done[top])
			continue;
		done[top] = 1;
		if (ir_verify(m, top) < 0)
			rc = -1;
	}
	arena_release(m->scratch, mk);
	return rc;
}

int
pm_run(Module *m, PlRegistry *r, const PmPipeline *p, const PmRun *o,
    GraphId *g)
{
	if (pm_check(m, r, p, o->have ? o->have : props_of(m, *g),
	    o->want) < 0)
		return -1;
	onnxc_ctx c;
	pl_ctx_init(&c, m, r);
	c.graph = *g;
	c.opset = o->opset;
	c.training = o->training;
	bool verify = o->verify_each;
#ifndef NDEBUG
	verify = true;
#endif
	int rc = 0;
	for (uint32_t i = 0; i < p->n && rc == 0; i++) {
		const PlPass *pass = p->steps[i].pass;
		const char *name = pass->info.name;
		char who[160];
		snprintf(who, sizeof who, "pass '%s' (plugin '%.64s')", name,
		    pl_plugin_name(r, pass->plugin));
		pl_ctx_reset(&c);
		c.pass = pass;
		c.opts = p->steps[i].opts;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		onnxc_status st = pl_invoke(&c, pass->plugin, (PlEntry){
		    .run = pass->info.run, .user = pass->info.user});
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (o->stats) {
			PmStat *s = &o->stats[(*o->nstats)++];
			const Graph *cg = c.graph && c.graph < m->ngraphs
			    ? ir_graph(m, c.graph) : NULL;
			uint32_t live = 0;  /* erased nodes have op 0 */
			for (NodeId k = 1; cg && k < cg->nnodes; k++)
				live += cg->nodes[k].op != 0;
			*s = (PmStat){name, pl_plugin_name(r, pass->plugin),
			    (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6, live,
			    st != ONNXC_OK || c.reported};
		}
		c.pass = NULL;
		c.opts = NULL;
		if (st != ONNXC_OK || c.reported) {
			if (!c.reported)
				ir_error(m, (Loc){0}, "%s failed (status %d)",
				    who, (int)st);
			rc = -1;
			break;
		}
		for (GraphId k = 1; k < c.cbase && k < m->ngraphs; k++)
			if (c.base[k] && ir_normalize(m, k, c.base[k] - 1,
			    who) < 0)
				rc = -1;
		if (rc == 0 && c.graph && (c.graph >= m->ngraphs ||
		    (verify && ir_verify(m, c.graph) < 0))) {
			ir_note(m, (Loc){0}, "the IR was left invalid by %s, "
			    "from %s", who, pl_where(r, pass->plugin));
			rc = -1;
		}
		if (rc == 0 && verify && verify_touched(m, &c) < 0) {
			ir_note(m, (Loc){0}, "the IR was left invalid by %s",
			    who);
			rc = -1;
		}
		if (rc == 0 && o->irout && (o->print_all || (o->print_after &&
		    !strcmp(o->print_after, name)))) {
			fprintf(o->irout, "// IR after %s\n", name);
			ir_print(m, c.graph, o->irout);
		}
	}
	*g = c.graph;
	pl_ctx_fini(&c);
	return rc;
}
