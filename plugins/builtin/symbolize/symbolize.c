/* symbolize.c - pass "symbolize-shapes": dynamic dimensions.
 *
 * Options (the driver's --dynamic, --static and --strict):
 *   dynamic  NAME:DIM=LABEL,...  name dim DIM of graph input NAME LABEL
 *   static   LABEL=VALUE,...     specialise a symbol to a number
 *   strict   unproven literals are errors, not warnings
 * Without dynamic and static entries the pass changes nothing.
 *
 * Requires: an FX graph (and its higher-order-op bodies), verified.
 * Provides: the same graphs with
 *  - symbols renamed (dynamic on a symbolic dim): every dim, SymInt
 *    expression and range that mentions the symbol now names the label,
 *    printed canonically (2*s0 becomes 2*batch);
 *  - numeric dims made symbolic (dynamic on a numeric dim): the input dim
 *    becomes the label, shapes downstream are re-derived by the rules of
 *    shapes.c and size literals that follow from the symbol are rewritten
 *    (to -1, or to SymInts computed by sym_size.int and Python-operator
 *    nodes, which the host puts before their user); literals that merely
 *    equal the traced size are reported;
 *  - symbols specialised (static): replaced by their number, so that
 *    sym_size nodes of them lower to constants.
 * Range constraints follow every rewrite.  A symbol introduced here gets
 * the range torch.export gives dynamic dims, VR[2, int_oo].
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"

enum {
	MAXRANK = 1024,  /* dims of one value, as the host allows */
	MAXDEPTH = 64,   /* nested lists and expressions */
	MAXOUT = 64      /* outputs of a node the rules look at */
};

#define INF INT64_MAX   /* int_oo in the range table */
#define NINF INT64_MIN

/* ---------------------------------------------------------- reporting */

static void
vreport(SymCtx *c, int sev, onnxc_node n, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	c->h->report(c->ctx, sev, c->g, n, "%s", msg);
}

void
sym_error(SymCtx *c, onnxc_node n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(c, ONNXC_SEV_ERROR, n, fmt, ap);
	va_end(ap);
	c->nerr++;
}

static void
warning(SymCtx *c, onnxc_node n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(c, ONNXC_SEV_WARNING, n, fmt, ap);
	va_end(ap);
}

/* An array grown for need elements; false (reported) when out of memory. */
static bool
grow(SymCtx *c, void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
	if (need <= *cap)
		return true;
	uint32_t n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	void *p = realloc(*arr, (size_t)n * sz);
	if (!p) {
		sym_error(c, 0, "symbolize-shapes: out of memory");
		return false;
	}
	*arr = p;
	*cap = n;
	return true;
}

/* ----------------------------------------------------- the IR, read */

const char *
sym_op(SymCtx *c, onnxc_node n)
{
	onnxc_node_info ni;
	if (c->h->node_get(c->ctx, c->g, n, &ni) != ONNXC_OK)
		return "";
	const char *s = c->h->str(c->ctx, ni.op);
	return s ? s : "";
}

bool
sym_arg(SymCtx *c, onnxc_node n, int i, const char *kw, onnxc_arg *a)
{
	return c->h->node_find_arg(c->ctx, c->g, n, i, kw, a) == ONNXC_OK;
}

bool
sym_item(SymCtx *c, const onnxc_arg *list, uint32_t i, onnxc_arg *out)
{
	return c->h->list_item(c->ctx, c->g, list, i, out) == ONNXC_OK;
}

uint32_t
sym_nargs(SymCtx *c, onnxc_node n)
{
	onnxc_node_info ni;
	return c->h->node_get(c->ctx, c->g, n, &ni) == ONNXC_OK ? ni.nargs : 0;
}

bool
sym_node_arg(SymCtx *c, onnxc_node n, uint32_t i, onnxc_arg *a)
{
	return c->h->node_arg(c->ctx, c->g, n, i, a) == ONNXC_OK;
}

onnxc_value
sym_out(SymCtx *c, onnxc_node n, uint32_t k)
{
	onnxc_node_info ni;
	if (c->h->node_get(c->ctx, c->g, n, &ni) != ONNXC_OK || k >= ni.nout)
		return 0;
	return ni.out + k;
}

onnxc_value_info
sym_value(SymCtx *c, onnxc_value v)
{
	onnxc_value_info vi = {.rank = -1};
	if (c->h->value_get(c->ctx, c->g, v, &vi) != ONNXC_OK)
		vi = (onnxc_value_info){.rank = -1};
	return vi;
}

static int
dims_of(SymCtx *c, onnxc_graph g, onnxc_value v, Dim *out, int cap)
{
	onnxc_value_info vi;
	if (c->h->value_get(c->ctx, g, v, &vi) != ONNXC_OK)
		return -1;
	if (vi.rank > 0 && cap > 0 && c->h->value_dims(c->ctx, g, v, out,
	    (uint32_t)cap) != ONNXC_OK)
		return -1;
	return vi.rank;
}

int
sym_dims(SymCtx *c, onnxc_value v, Dim *out, int cap)
{
	return dims_of(c, c->g, v, out, cap);
}

int
sym_arg_index(SymCtx *c, onnxc_node n, int i, const char *kw)
{
	uint32_t na = sym_nargs(c, n);
	onnxc_arg a;
	if (i >= 0 && (uint32_t)i < na && sym_node_arg(c, n, (uint32_t)i, &a)
	    && a.key == 0)
		return i;
	if (!kw)
		return -1;
	for (uint32_t k = 0; k < na; k++) {
		if (!sym_node_arg(c, n, k, &a) || !a.key)
			continue;
		const char *s = c->h->str(c->ctx, a.key);
		if (s && !strcmp(s, kw))
			return (int)k;
	}
	return -1;
}

int
sym_set_list(SymCtx *c, onnxc_node n, uint32_t i, const onnxc_arg *list,
    const onnxc_arg *items, uint32_t cnt)
{
	onnxc_arg a;
	if (c->h->make_list(c->ctx, c->g, list->kind, items, cnt, &a) !=
	    ONNXC_OK) {
		sym_error(c, n, "%s: the host refused a size list",
		    sym_op(c, n));
		return -1;
	}
	a.key = list->key;
	if (c->h->node_set_arg(c->ctx, c->g, n, i, &a) != ONNXC_OK) {
		sym_error(c, n, "%s: the host refused a size list",
		    sym_op(c, n));
		return -1;
	}
	return 0;
}

static const char *
strof(SymCtx *c, onnxc_str s)
{
	const char *p = c->h->str(c->ctx, s);
	return p ? p : "";
}

/* ------------------------------------------------------- expressions */

onnxc_expr
sym_int(SymCtx *c, int64_t n)
{
	return c->h->expr_int(c->ctx, n);
}

onnxc_expr
sym_bin(SymCtx *c, uint32_t kind, onnxc_expr a, onnxc_expr b)
{
	return c->h->expr_op(c->ctx, kind, a, b);
}

onnxc_expr
sym_simplify(SymCtx *c, onnxc_expr e)
{
	return e ? c->h->expr_simplify(c->ctx, e) : 0;
}

onnxc_expr_info
sym_expr(SymCtx *c, onnxc_expr e)
{
	onnxc_expr_info x = {.kind = ONNXC_E_CALL};
	if (!e || c->h->expr_get(c->ctx, e, &x) != ONNXC_OK)
		x = (onnxc_expr_info){.kind = ONNXC_E_CALL};
	return x;
}

bool
sym_mentions(SymCtx *c, onnxc_expr e, onnxc_expr sub)
{
	return e && sub && c->h->expr_mentions(c->ctx, e, sub);
}

/* e as printed, into memory that lasts the compilation (for messages) */
static const char *
print(SymCtx *c, onnxc_expr e)
{
	char small[128];
	int n = c->h->expr_print(c->ctx, e, small, sizeof small);
	if (n < 0)
		return "?";
	char *s = c->h->alloc(c->ctx, (size_t)n + 1);
	if (!s)
		return "?";
	if ((size_t)n < sizeof small)
		memcpy(s, small, (size_t)n + 1);
	else
		c->h->expr_print(c->ctx, e, s, (size_t)n + 1);
	return s;
}

const char *
sym_text(SymCtx *c, onnxc_expr e)
{
	return print(c, sym_simplify(c, e));
}

/* a dim as the dump has it: a number or the expression as written */
static const char *
dimtext(SymCtx *c, Dim d)
{
	if (d.e)
		return print(c, d.e);
	char *s = c->h->alloc(c->ctx, 24);
	if (!s)
		return "?";
	snprintf(s, 24, "%lld", (long long)d.n);
	return s;
}

static const char *
symname(SymCtx *c, onnxc_expr s)
{
	return strof(c, sym_expr(c, s).str);
}

onnxc_expr
sym_dim_expr(SymCtx *c, Dim d)
{
	return d.e ? d.e : sym_int(c, d.n);
}

Dim
sym_mkdim(SymCtx *c, onnxc_expr e)
{
	e = sym_simplify(c, e);
	onnxc_expr_info x = sym_expr(c, e);
	if (x.kind == ONNXC_E_INT)
		return (Dim){x.n, 0};
	return (Dim){0, e};
}

bool
sym_traced(SymCtx *c, onnxc_expr e, int64_t *v)
{
	return e && c->h->expr_eval(c->ctx, e, c->bsym, c->bval, c->nbind,
	    v) == ONNXC_OK;
}

bool
sym_is_new(SymCtx *c, onnxc_expr e)
{
	for (uint32_t i = 0; i < c->nnew; i++)
		if (sym_mentions(c, e, c->bsym[i]))
			return true;
	return false;
}

static bool
addbind(SymCtx *c, onnxc_expr sym, int64_t n)
{
	uint32_t cap = c->cbind;
	if (!grow(c, (void **)&c->bsym, &cap, c->nbind + 1, sizeof *c->bsym))
		return false;
	cap = c->cbind;
	if (!grow(c, (void **)&c->bval, &cap, c->nbind + 1, sizeof *c->bval))
		return false;
	c->cbind = cap;
	c->bsym[c->nbind] = sym;
	c->bval[c->nbind++] = n;
	return true;
}

/* index of sym's binding, -1 when it has none */
static int
findbind(SymCtx *c, onnxc_expr sym)
{
	for (uint32_t i = 0; i < c->nbind; i++)
		if (c->bsym[i] == sym)
			return (int)i;
	return -1;
}

/* Calls fn on every symbol of e. */
static void
eachsym(SymCtx *c, onnxc_expr e, void (*fn)(SymCtx *, onnxc_expr), int d)
{
	if (!e || d > MAXDEPTH)
		return;
	onnxc_expr_info x = sym_expr(c, e);
	if (x.kind == ONNXC_E_SYM) {
		fn(c, e);
		return;
	}
	eachsym(c, x.a, fn, d + 1);
	eachsym(c, x.b, fn, d + 1);
}

static bool
isident(const char *s)
{
	if (!s[0] || !((s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* ------------------------------------------------------ the graphs */

/* The graph being worked on and the bodies its nodes refer to (graph
 * arguments, also inside lists), each once. */
typedef struct Graphs {
	onnxc_graph *g;
	uint32_t n, cap;
} Graphs;

static bool
addgraph(SymCtx *c, Graphs *gs, onnxc_graph g)
{
	for (uint32_t i = 0; i < gs->n; i++)
		if (gs->g[i] == g)
			return true;
	if (!grow(c, (void **)&gs->g, &gs->cap, gs->n + 1, sizeof *gs->g))
		return false;
	gs->g[gs->n++] = g;
	return true;
}

static bool
graphs_in(SymCtx *c, Graphs *gs, onnxc_graph g, const onnxc_arg *a, int d)
{
	if (a->kind == ONNXC_ARG_GRAPH)
		return addgraph(c, gs, a->ref);
	if ((a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE) ||
	    d > MAXDEPTH)
		return true;
	for (uint32_t i = 0; i < a->len; i++) {
		onnxc_arg it;
		if (c->h->list_item(c->ctx, g, a, i, &it) == ONNXC_OK &&
		    !graphs_in(c, gs, g, &it, d + 1))
			return false;
	}
	return true;
}

static bool
collect_graphs(SymCtx *c, Graphs *gs)
{
	if (!addgraph(c, gs, c->g))
		return false;
	for (uint32_t i = 0; i < gs->n; i++) {
		onnxc_graph g = gs->g[i];
		uint32_t end = c->h->node_end(c->ctx, g);
		onnxc_node_info ni;
		for (onnxc_node n = 1; n < end; n++) {
			if (c->h->node_get(c->ctx, g, n, &ni) != ONNXC_OK)
				continue;
			for (uint32_t k = 0; k < ni.nargs; k++) {
				onnxc_arg a;
				if (c->h->node_arg(c->ctx, g, n, k, &a) ==
				    ONNXC_OK && !graphs_in(c, gs, g, &a, 0))
					return false;
			}
		}
	}
	return true;
}

static bool
isfx(SymCtx *c, onnxc_graph g)
{
	uint32_t end = c->h->node_end(c->ctx, g);
	onnxc_node_info ni;
	for (onnxc_node n = 1; n < end; n++)
		if (c->h->node_get(c->ctx, g, n, &ni) == ONNXC_OK &&
		    ni.dialect != ONNXC_FX)
			return false;
	return true;
}

/* Apply sym -> by to every dim, SymInt and range of every FX graph. */
static void
substitute(SymCtx *c, const Graphs *gs, onnxc_expr sym, onnxc_expr by)
{
	const onnxc_host_api *h = c->h;
	Dim *d = c->scratch;
	for (uint32_t gi = 0; gi < gs->n; gi++) {
		onnxc_graph g = gs->g[gi];
		if (!isfx(c, g))
			continue;
		uint32_t nv = h->value_end(c->ctx, g);
		for (onnxc_value v = 1; v < nv; v++) {
			onnxc_value_info vi;
			if (h->value_get(c->ctx, g, v, &vi) != ONNXC_OK)
				continue;
			int r = vi.rank > MAXRANK ? -1 : dims_of(c, g, v, d,
			    MAXRANK);
			bool changed = false;
			for (int i = 0; i < r; i++) {
				if (!d[i].e || !sym_mentions(c, d[i].e, sym))
					continue;
				onnxc_expr e = h->expr_subst(c->ctx, d[i].e,
				    sym, by);
				onnxc_expr_info x = sym_expr(c, e);
				d[i] = x.kind == ONNXC_E_INT ? (Dim){x.n, 0}
				    : (Dim){0, e};
				changed = true;
			}
			if (changed && h->value_set_type(c->ctx, g, v,
			    vi.dtype, vi.rank, d) != ONNXC_OK)
				sym_error(c, 0, "symbolize-shapes: the host "
				    "refused the new shape of '%s'",
				    strof(c, vi.name));
			if (vi.sym && sym_mentions(c, vi.sym, sym) &&
			    h->value_set_sym(c->ctx, g, v, vi.kind,
			    h->expr_subst(c->ctx, vi.sym, sym, by)) !=
			    ONNXC_OK)
				sym_error(c, 0, "symbolize-shapes: the host "
				    "refused the new value of '%s'",
				    strof(c, vi.name));
		}
	}
	/* ranges: a key that became a number says nothing any more */
	for (uint32_t i = 0; i < h->range_count(c->ctx);) {
		onnxc_expr e = 0;
		int64_t lo = 0, hi = 0;
		h->range_get(c->ctx, i, &e, &lo, &hi);
		if (sym_mentions(c, e, sym)) {
			e = h->expr_subst(c->ctx, e, sym, by);
			if (sym_expr(c, e).kind == ONNXC_E_INT) {
				h->range_erase(c->ctx, i);
				continue;
			}
			h->range_set(c->ctx, i, e, lo, hi);
		}
		i++;
	}
}

/* index of the range entry of e, -1 when it has none */
static int
findrange(SymCtx *c, onnxc_expr e, int64_t *lo, int64_t *hi)
{
	uint32_t n = c->h->range_count(c->ctx);
	for (uint32_t i = 0; i < n; i++) {
		onnxc_expr k;
		if (c->h->range_get(c->ctx, i, &k, lo, hi) == ONNXC_OK &&
		    k == e)
			return (int)i;
	}
	return -1;
}

/* Does any dim, SymInt or range of the program mention symbol s? */
static bool
known_symbol(SymCtx *c, const Graphs *gs, onnxc_expr s)
{
	Dim *d = c->scratch;
	for (uint32_t gi = 0; gi < gs->n; gi++) {
		onnxc_graph g = gs->g[gi];
		uint32_t nv = c->h->value_end(c->ctx, g);
		for (onnxc_value v = 1; v < nv; v++) {
			onnxc_value_info vi;
			if (c->h->value_get(c->ctx, g, v, &vi) != ONNXC_OK)
				continue;
			if (vi.sym && sym_mentions(c, vi.sym, s))
				return true;
			int r = vi.rank > MAXRANK ? -1 : dims_of(c, g, v, d,
			    MAXRANK);
			for (int i = 0; i < r; i++)
				if (d[i].e && sym_mentions(c, d[i].e, s))
					return true;
		}
	}
	uint32_t n = c->h->range_count(c->ctx);
	for (uint32_t i = 0; i < n; i++) {
		onnxc_expr e = 0;
		int64_t lo, hi;
		c->h->range_get(c->ctx, i, &e, &lo, &hi);
		if (sym_mentions(c, e, s))
			return true;
	}
	return false;
}

static onnxc_value
find_input(SymCtx *c, const char *name)
{
	uint32_t n = c->h->input_count(c->ctx, c->g);
	for (uint32_t i = 0; i < n; i++) {
		onnxc_value v = c->h->input_at(c->ctx, c->g, i);
		if (!strcmp(strof(c, sym_value(c, v).name), name))
			return v;
	}
	return 0;
}

/* ------------------------------------------------------------- options */

typedef struct SymDynamic {
	const char *input; /* graph input name as in the dump (x) */
	int64_t dim;       /* may be negative */
	const char *label; /* new symbol name (batch_size) */
} SymDynamic;

typedef struct SymStatic {
	const char *label; /* symbol (s0 or a label) */
	int64_t value;
} SymStatic;

typedef struct Opts {
	char *buf;         /* the option texts, cut into the entries */
	SymDynamic *dyn;
	int ndyn;
	SymStatic *stat;
	int nstat;
} Opts;

static bool
parse_int(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = n;
	return true;
}

static char *
trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	return s;
}

static int
count_entries(const char *s)
{
	int n = 1;
	for (; *s; s++)
		n += *s == ',';
	return n;
}

/* The next comma-separated entry of *s, cut and trimmed; NULL at the end. */
static char *
entry(char **s)
{
	if (!*s)
		return NULL;
	char *e = *s, *comma = strchr(e, ',');
	if (comma)
		*comma = 0;
	*s = comma ? comma + 1 : NULL;
	return trim(e);
}

/* NAME:DIM=LABEL entries of option dynamic */
static void
parse_dynamic(SymCtx *c, Opts *o, char *s)
{
	for (char *e; (e = entry(&s));) {
		if (!*e)
			continue;
		char *colon = strrchr(e, ':'), *eq = strchr(e, '=');
		SymDynamic *d = &o->dyn[o->ndyn];
		if (!colon || !eq || eq < colon || colon == e || !eq[1]) {
			sym_error(c, 0, "symbolize-shapes: dynamic entry '%s': "
			    "expected NAME:DIM=LABEL, e.g. x:0=batch", e);
			continue;
		}
		*colon = *eq = 0;
		if (!parse_int(colon + 1, &d->dim)) {
			sym_error(c, 0, "symbolize-shapes: dynamic entry "
			    "'%s:%s=%s': DIM must be an integer", e, colon + 1,
			    eq + 1);
			continue;
		}
		d->input = e;
		d->label = eq + 1;
		o->ndyn++;
	}
}

/* LABEL=VALUE entries of option static */
static void
parse_static(SymCtx *c, Opts *o, char *s)
{
	for (char *e; (e = entry(&s));) {
		if (!*e)
			continue;
		char *eq = strchr(e, '=');
		SymStatic *st = &o->stat[o->nstat];
		if (!eq || eq == e) {
			sym_error(c, 0, "symbolize-shapes: static entry '%s': "
			    "expected LABEL=VALUE, e.g. batch=1", e);
			continue;
		}
		*eq = 0;
		if (!parse_int(eq + 1, &st->value) || st->value < 0) {
			sym_error(c, 0, "symbolize-shapes: static entry "
			    "'%s=%s': VALUE must be a non-negative integer", e,
			    eq + 1);
			continue;
		}
		st->label = e;
		o->nstat++;
	}
}

static int
parse_options(SymCtx *c, const char *dyn, const char *stat, Opts *o)
{
	size_t nd = strlen(dyn), ns = strlen(stat);
	o->buf = malloc(nd + ns + 2);
	o->dyn = calloc((size_t)count_entries(dyn), sizeof *o->dyn);
	o->stat = calloc((size_t)count_entries(stat), sizeof *o->stat);
	if (!o->buf || !o->dyn || !o->stat) {
		sym_error(c, 0, "symbolize-shapes: out of memory");
		return -1;
	}
	memcpy(o->buf, dyn, nd + 1);
	memcpy(o->buf + nd + 1, stat, ns + 1);
	parse_dynamic(c, o, o->buf);
	parse_static(c, o, o->buf + nd + 1);
	return c->nerr ? -1 : 0;
}

typedef struct Target {
	const SymDynamic *opt;
	onnxc_value v;
	int32_t d;
	Dim dim;          /* as the dump has it */
} Target;

static int
resolve(SymCtx *c, const SymDynamic *o, Target *t)
{
	t->opt = o;
	t->v = find_input(c, o->input);
	if (!t->v) {
		sym_error(c, 0, "--dynamic %s:%lld=%s: the graph has no input "
		    "named '%s'", o->input, (long long)o->dim, o->label,
		    o->input);
		return -1;
	}
	onnxc_value_info v = sym_value(c, t->v);
	if (v.kind != ONNXC_VK_TENSOR || v.rank < 0 || v.rank > MAXRANK) {
		sym_error(c, 0, "--dynamic %s:%lld=%s: input '%s' is not a "
		    "tensor with a known shape", o->input, (long long)o->dim,
		    o->label, o->input);
		return -1;
	}
	int64_t d = o->dim < 0 ? o->dim + v.rank : o->dim;
	if (d < 0 || d >= v.rank) {
		sym_error(c, 0, "--dynamic %s:%lld=%s: input '%s' has rank %d, "
		    "so DIM must be in [%d, %d]", o->input, (long long)o->dim,
		    o->label, o->input, v.rank, -v.rank, v.rank - 1);
		return -1;
	}
	if (!isident(o->label)) {
		sym_error(c, 0, "--dynamic %s:%lld=%s: LABEL must be an "
		    "identifier (letters, digits, '_')", o->input,
		    (long long)o->dim, o->label);
		return -1;
	}
	sym_dims(c, t->v, c->scratch, MAXRANK);
	t->d = (int32_t)d;
	t->dim = c->scratch[d];
	return 0;
}

/* dynamic on symbolic dims: rename the symbol to the label. */
static int
rename_symbols(SymCtx *c, const Graphs *gs, Target *t, int nt)
{
	int errs = c->nerr;
	onnxc_expr from[64], to[64];
	int n = 0;
	for (int i = 0; i < nt; i++) {
		if (!t[i].dim.e)
			continue;
		const SymDynamic *o = t[i].opt;
		onnxc_expr s = t[i].dim.e;
		if (sym_expr(c, s).kind != ONNXC_E_SYM) {
			sym_error(c, 0, "--dynamic %s:%lld=%s: dim %d of '%s' "
			    "is the expression '%s', not a symbol; name the "
			    "symbol it is made of instead (on an input where "
			    "it stands alone)", o->input, (long long)o->dim,
			    o->label, t[i].d, o->input, dimtext(c, t[i].dim));
			continue;
		}
		onnxc_expr l = c->h->expr_sym(c->ctx, o->label);
		bool dup = false;
		for (int k = 0; k < n; k++) {
			if (from[k] == s && to[k] != l) {
				sym_error(c, 0, "--dynamic %s:%lld=%s: symbol "
				    "'%s' is already named '%s' by another "
				    "--dynamic", o->input, (long long)o->dim,
				    o->label, symname(c, s), symname(c, to[k]));
				dup = true;
			} else if (from[k] != s && to[k] == l) {
				sym_error(c, 0, "--dynamic %s:%lld=%s: label "
				    "'%s' already names symbol '%s'; two "
				    "symbols cannot share a label", o->input,
				    (long long)o->dim, o->label, o->label,
				    symname(c, from[k]));
				dup = true;
			} else if (from[k] == s) {
				dup = true; /* the same request twice */
			}
		}
		if (dup)
			continue;
		if (l != s && known_symbol(c, gs, l)) {
			sym_error(c, 0, "--dynamic %s:%lld=%s: '%s' is already "
			    "a symbol of the dump", o->input, (long long)o->dim,
			    o->label, o->label);
			continue;
		}
		if (n == 64) {
			sym_error(c, 0, "too many --dynamic options");
			break;
		}
		from[n] = s;
		to[n++] = l;
	}
	if (c->nerr != errs)
		return -1;
	for (int k = 0; k < n; k++)
		if (from[k] != to[k])
			substitute(c, gs, from[k], to[k]);
	return c->nerr != errs ? -1 : 0;
}

/* static LABEL=VALUE */
static int
specialise(SymCtx *c, const Graphs *gs, const Opts *o)
{
	int errs = c->nerr;
	for (int i = 0; i < o->nstat; i++) {
		const SymStatic *st = &o->stat[i];
		onnxc_expr s = isident(st->label)
		    ? c->h->expr_sym(c->ctx, st->label) : 0;
		if (!s || !known_symbol(c, gs, s)) {
			sym_error(c, 0, "--static %s=%lld: the graph has no "
			    "symbol '%s'", st->label, (long long)st->value,
			    st->label);
			continue;
		}
		int64_t rlo, rhi;
		if (findrange(c, s, &rlo, &rhi) >= 0 &&
		    (st->value < rlo || st->value > rhi)) {
			char lo[24] = "-int_oo", hi[24] = "int_oo";
			if (rlo != NINF)
				snprintf(lo, sizeof lo, "%lld", (long long)rlo);
			if (rhi != INF)
				snprintf(hi, sizeof hi, "%lld", (long long)rhi);
			sym_error(c, 0, "--static %s=%lld: the dump constrains "
			    "'%s' to [%s, %s]", st->label, (long long)st->value,
			    st->label, lo, hi);
			continue;
		}
		substitute(c, gs, s, sym_int(c, st->value));
	}
	return c->nerr == errs ? 0 : -1;
}

/* ---------------------------------------------------- reporting literals */

int
sym_unproven(SymCtx *c, onnxc_node n, const char *what, int64_t lit)
{
	const char *label = NULL;
	for (uint32_t i = 0; i < c->nnew; i++)
		if (c->bval[i] == lit)
			label = symname(c, c->bsym[i]);
	if (!label)
		return 0;
	c->nwarn++;
	const char *op = sym_op(c, n);
	if (c->strict) {
		sym_error(c, n, "%s: %s %lld equals the traced size of '%s' "
		    "but nothing shows it follows '%s' (--strict)", op, what,
		    (long long)lit, label, label);
		return -1;
	}
	warning(c, n, "%s: %s %lld equals the traced size of '%s' but "
	    "nothing shows it follows '%s'; it stays %lld, so the model may "
	    "only work when %s is %lld", op, what, (long long)lit, label,
	    label, (long long)lit, label, (long long)lit);
	return 0;
}

/* ------------------------------------------------------- materialising */

static const char *
fresh_name(SymCtx *c, const char *base, char *buf, size_t cap)
{
	uint32_t nv = c->h->value_end(c->ctx, c->g);
	for (;;) {
		snprintf(buf, cap, "%.80s_%u", base, c->serial++);
		onnxc_str s = c->h->intern(c->ctx, buf);
		bool used = false;
		for (onnxc_value v = 1; v < nv && !used; v++)
			used = sym_value(c, v).name == s;
		if (!used)
			return buf;
	}
}

/* A new FX node computing SymInt e for c->node (the host puts it before
 * its first user); 0 (reported) when the host refuses. */
static onnxc_node
newnode(SymCtx *c, const char *op, onnxc_expr e, const char *base)
{
	const onnxc_host_api *h = c->h;
	char name[128];
	onnxc_node n = h->node_new(c->ctx, c->g, ONNXC_FX, "", op, 1);
	onnxc_value v = n ? sym_out(c, n, 0) : 0;
	fresh_name(c, base, name, sizeof name);
	if (!v || h->node_set_origin(c->ctx, c->g, n, c->node) != ONNXC_OK ||
	    h->node_set_name(c->ctx, c->g, n, name) != ONNXC_OK ||
	    h->value_set_name(c->ctx, c->g, v, name) != ONNXC_OK ||
	    h->value_set_sym(c->ctx, c->g, v, ONNXC_VK_SYMINT, e) !=
	    ONNXC_OK) {
		sym_error(c, c->node, "%s: the host refused a new %s node",
		    sym_op(c, c->node), op);
		return 0;
	}
	return n;
}

static onnxc_arg
intarg(int64_t i)
{
	return (onnxc_arg){.kind = ONNXC_ARG_INT, .i = i};
}

static onnxc_arg
valarg(onnxc_value v)
{
	return (onnxc_arg){.kind = ONNXC_ARG_VALUE, .ref = v};
}

static bool
push(SymCtx *c, onnxc_node n, onnxc_arg a)
{
	if (c->h->node_push_arg(c->ctx, c->g, n, &a) == ONNXC_OK)
		return true;
	sym_error(c, c->node, "%s: the host refused an argument of a new node",
	    sym_op(c, c->node));
	return false;
}

static onnxc_value
binop(SymCtx *c, const char *op, onnxc_arg a, onnxc_arg b, onnxc_expr e)
{
	const char *base = strchr(op, ':') ? strrchr(op, ':') + 1 : op;
	onnxc_node n = newnode(c, op, e, base);
	if (!n || !push(c, n, a) || !push(c, n, b))
		return 0;
	return sym_out(c, n, 0);
}

static onnxc_arg
operand(SymCtx *c, onnxc_expr e, bool *ok)
{
	onnxc_expr_info x = sym_expr(c, e);
	if (x.kind == ONNXC_E_INT)
		return intarg(x.n);
	onnxc_value v = sym_materialize(c, e);
	if (!v)
		*ok = false;
	return valarg(v);
}

static onnxc_value
mat_symbol(SymCtx *c, onnxc_expr s)
{
	for (uint32_t i = 0; i < c->nsrc; i++) {
		if (c->src[i].sym != s)
			continue;
		char base[96];
		snprintf(base, sizeof base, "sym_size_%s", symname(c, s));
		onnxc_node n = newnode(c, "aten::sym_size.int", s, base);
		if (!n || !push(c, n, valarg(c->src[i].v)) ||
		    !push(c, n, intarg(c->src[i].d)))
			return 0;
		return sym_out(c, n, 0);
	}
	sym_error(c, c->node, "%s: no graph input has a dim that is just '%s', "
	    "so its size cannot be read at run time", sym_op(c, c->node),
	    symname(c, s));
	return 0;
}

onnxc_value
sym_materialize(SymCtx *c, onnxc_expr e)
{
	e = sym_simplify(c, e);
	for (uint32_t i = 0; i < c->nmemo; i++)
		if (c->memo_e[i] == e)
			return c->memo_v[i];
	onnxc_expr_info x = sym_expr(c, e);
	onnxc_value r = 0;
	bool ok = true;
	switch (x.kind) {
	case ONNXC_E_SYM:
		r = mat_symbol(c, e);
		break;
	case ONNXC_E_ADD: {
		/* a - b prints as a + (-b): compute it as sub */
		onnxc_expr_info b = sym_expr(c, x.b);
		if (b.kind == ONNXC_E_NEG) {
			onnxc_arg l = operand(c, x.a, &ok);
			onnxc_arg rr = operand(c, b.a, &ok);
			if (ok)
				r = binop(c, "_operator::sub", l, rr, e);
		} else if (b.kind == ONNXC_E_INT && b.n < 0 &&
		    b.n != INT64_MIN) {
			onnxc_arg l = operand(c, x.a, &ok);
			if (ok)
				r = binop(c, "_operator::sub", l,
				    intarg(-b.n), e);
		} else {
			onnxc_arg l = operand(c, x.a, &ok);
			onnxc_arg rr = operand(c, x.b, &ok);
			if (ok)
				r = binop(c, "_operator::add", l, rr, e);
		}
		break;
	}
	case ONNXC_E_MUL: {
		onnxc_arg l = operand(c, x.a, &ok), rr = operand(c, x.b, &ok);
		if (ok)
			r = binop(c, "_operator::mul", l, rr, e);
		break;
	}
	case ONNXC_E_NEG: {
		onnxc_arg l = operand(c, x.a, &ok);
		if (ok)
			r = binop(c, "_operator::mul", l, intarg(-1), e);
		break;
	}
	case ONNXC_E_FLOORDIV:
	case ONNXC_E_MOD:
	case ONNXC_E_MAX:
	case ONNXC_E_MIN: {
		const char *op = x.kind == ONNXC_E_FLOORDIV
		    ? "_operator::floordiv" : x.kind == ONNXC_E_MOD
		    ? "_operator::mod" : x.kind == ONNXC_E_MAX
		    ? "torch::sym_max" : "torch::sym_min";
		onnxc_arg l = operand(c, x.a, &ok), rr = operand(c, x.b, &ok);
		if (ok)
			r = binop(c, op, l, rr, e);
		break;
	}
	case ONNXC_E_POW: {
		onnxc_expr_info k = sym_expr(c, x.b);
		if (k.kind == ONNXC_E_INT && k.n >= 1 && k.n <= 8) {
			onnxc_arg base = operand(c, x.a, &ok), acc = base;
			onnxc_expr acce = x.a;
			for (int64_t i = 1; i < k.n && ok; i++) {
				acce = sym_simplify(c, sym_bin(c, ONNXC_E_MUL,
				    acce, x.a));
				onnxc_value v = binop(c, "_operator::mul", acc,
				    base, acce);
				ok = v != 0;
				acc = valarg(v);
			}
			if (ok)
				r = acc.kind == ONNXC_ARG_VALUE ? acc.ref : 0;
			break;
		}
	}
		/* fallthrough */
	default:
		sym_error(c, c->node, "%s: cannot compute the size '%s' at run "
		    "time", sym_op(c, c->node), sym_text(c, e));
		return 0;
	}
	if (r) {
		uint32_t cap = c->cmemo;
		if (!grow(c, (void **)&c->memo_e, &cap, c->nmemo + 1,
		    sizeof *c->memo_e))
			return 0;
		cap = c->cmemo;
		if (!grow(c, (void **)&c->memo_v, &cap, c->nmemo + 1,
		    sizeof *c->memo_v))
			return 0;
		c->cmemo = cap;
		c->memo_e[c->nmemo] = e;
		c->memo_v[c->nmemo++] = r;
	}
	return r;
}

/* ------------------------------------------------------- symbolizing */

/* values made by this pass are SymInts of new symbols */
static bool
touched(SymCtx *c, onnxc_value v)
{
	return v >= c->ntouched || c->touched[v];
}

static void
mark(SymCtx *c, onnxc_value v)
{
	if (v >= c->ntouched)
		return;
	onnxc_value_info p = sym_value(c, v);
	bool t = p.sym && sym_is_new(c, p.sym);
	Dim d[SYM_MAXR];
	int r = t ? 0 : sym_dims(c, v, d, SYM_MAXR);
	for (int i = 0; i < r && i < SYM_MAXR && !t; i++)
		t = d[i].e && sym_is_new(c, d[i].e);
	if (!t && r > SYM_MAXR) {
		Dim *big = c->scratch;
		r = r > MAXRANK ? MAXRANK : r;
		sym_dims(c, v, big, r);
		for (int i = SYM_MAXR; i < r && !t; i++)
			t = big[i].e && sym_is_new(c, big[i].e);
	}
	c->touched[v] = t;
}

static bool
arg_touched(SymCtx *c, const onnxc_arg *a, int depth)
{
	if (a->kind == ONNXC_ARG_VALUE)
		return touched(c, a->ref);
	if ((a->kind == ONNXC_ARG_LIST || a->kind == ONNXC_ARG_TUPLE) &&
	    depth < MAXDEPTH)
		for (uint32_t i = 0; i < a->len; i++) {
			onnxc_arg it;
			if (sym_item(c, a, i, &it) &&
			    arg_touched(c, &it, depth + 1))
				return true;
		}
	return false;
}

/* Stand-in values for the dump's own symbols (see SymCtx.bind). */
static void
bind_existing(SymCtx *c, onnxc_expr s)
{
	static const int64_t primes[] = {
		1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051, 1061,
		1063, 1069, 1087, 1091, 1093, 1097, 1103, 1109, 1117, 1123,
	};
	if (findbind(c, s) >= 0)
		return;
	uint32_t k = c->nbind - c->nnew;
	addbind(c, s, primes[k % 20] + 1000 * (int64_t)(k / 20));
}

static void
check_outputs(SymCtx *c, onnxc_node n, const onnxc_node_info *p,
    Dim o[][SYM_MAXR], uint32_t nout, bool *gained)
{
	for (uint32_t k = 0; k < nout; k++) {
		onnxc_value ov = p->out + k;
		onnxc_value_info v = sym_value(c, ov);
		if (v.kind != ONNXC_VK_TENSOR || v.rank <= 0 ||
		    v.rank > SYM_MAXR)
			continue;
		Dim d[SYM_MAXR];
		sym_dims(c, ov, d, SYM_MAXR);
		bool changed = false;
		for (int32_t i = 0; i < v.rank; i++) {
			/* the rule must agree with the dump at the traced
			 * sizes */
			int64_t want, got;
			onnxc_expr we = sym_dim_expr(c, d[i]);
			onnxc_expr ge = sym_dim_expr(c, o[k][i]);
			if (we == ge)
				continue;
			if (!sym_traced(c, we, &want) ||
			    !sym_traced(c, ge, &got) || want != got) {
				sym_error(c, n, "%s: the shape derived for "
				    "output '%s' has %s at dim %d where the "
				    "dump has %s (internal: a shape rule is "
				    "wrong)", sym_op(c, n), strof(c, v.name),
				    sym_text(c, ge), i, dimtext(c, d[i]));
				break;
			}
			/* only a new symbol replaces what the dump says
			 * (rules may not know its own symbols) */
			if (o[k][i].e && sym_is_new(c, o[k][i].e)) {
				d[i] = o[k][i];
				changed = true;
			}
		}
		if (changed && c->h->value_set_type(c->ctx, c->g, ov, v.dtype,
		    v.rank, d) != ONNXC_OK)
			sym_error(c, n, "%s: the host refused the new shape of "
			    "'%s'", sym_op(c, n), strof(c, v.name));
		mark(c, ov);
		*gained |= touched(c, ov);
	}
}

static int
propagate(SymCtx *c)
{
	const onnxc_host_api *h = c->h;
	int errs = c->nerr;
	c->ntouched = h->value_end(c->ctx, c->g);
	c->touched = calloc(c->ntouched + 1, 1);
	Dim (*o)[SYM_MAXR] = calloc(MAXOUT, sizeof *o);
	if (!c->touched || !o) {
		free(o);
		sym_error(c, 0, "symbolize-shapes: out of memory");
		return -1;
	}
	uint32_t nin = h->input_count(c->ctx, c->g);
	for (uint32_t i = 0; i < nin; i++)
		mark(c, h->input_at(c->ctx, c->g, i));
	uint32_t nnodes0 = h->node_end(c->ctx, c->g);
	for (onnxc_node n = 1; n < nnodes0 && c->nerr == errs; n++) {
		onnxc_node_info p;
		if (h->node_get(c->ctx, c->g, n, &p) != ONNXC_OK)
			continue;
		bool t = false;
		for (uint32_t k = 0; k < p.nargs && !t; k++) {
			onnxc_arg a;
			t = sym_node_arg(c, n, k, &a) && arg_touched(c, &a, 0);
		}
		c->node = n;
		uint32_t nout = p.nout < MAXOUT ? p.nout : MAXOUT;
		for (uint32_t k = 0; k < nout; k++)
			sym_dims(c, p.out + k, o[k], SYM_MAXR);
		if (sym_infer(c, n, o) < 0)
			break;
		bool gained = false;
		check_outputs(c, n, &p, o, nout, &gained);
		for (uint32_t k = 0; k < p.nout; k++) {
			if (sym_value(c, p.out + k).kind == ONNXC_VK_SYMINT) {
				mark(c, p.out + k);
				gained |= touched(c, p.out + k);
			}
		}
		if (t && !gained && p.nout) {
			/* the symbol went in and did not come out: fine for
			 * reductions over it, suspicious when an output dim
			 * still has its traced size */
			for (uint32_t k = 0; k < nout; k++) {
				Dim d[SYM_MAXR];
				int r = sym_dims(c, p.out + k, d, SYM_MAXR);
				for (int i = 0; i < r && i < SYM_MAXR; i++)
					if (!d[i].e && sym_unproven(c, n,
					    "an output dim", d[i].n) < 0)
						goto done;
			}
		}
	}
done:
	free(o);
	return c->nerr == errs ? 0 : -1;
}

/* the dump's own symbols: stand-ins, and sources for materialising */
static void
bind_dump_symbols(SymCtx *c)
{
	Dim *d = c->scratch;
	uint32_t nv = c->h->value_end(c->ctx, c->g);
	for (onnxc_value v = 1; v < nv; v++) {
		onnxc_value_info vi = sym_value(c, v);
		int r = vi.rank > MAXRANK ? -1 : sym_dims(c, v, d, MAXRANK);
		for (int i = 0; i < r; i++)
			eachsym(c, d[i].e, bind_existing, 0);
	}
	for (onnxc_value v = 1; v < nv; v++)
		eachsym(c, sym_value(c, v).sym, bind_existing, 0);
	uint32_t nin = c->h->input_count(c->ctx, c->g);
	for (uint32_t i = 0; i < nin; i++) {
		onnxc_value v = c->h->input_at(c->ctx, c->g, i);
		onnxc_value_info vi = sym_value(c, v);
		int r = vi.rank > MAXRANK ? -1 : sym_dims(c, v, d, MAXRANK);
		for (int k = 0; k < r; k++) {
			if (!d[k].e || sym_expr(c, d[k].e).kind != ONNXC_E_SYM)
				continue;
			if (!grow(c, (void **)&c->src, &c->csrc, c->nsrc + 1,
			    sizeof *c->src))
				return;
			c->src[c->nsrc++] = (SymSrc){d[k].e, v, k};
		}
	}
}

static int
symbolize(SymCtx *c, const Graphs *gs, Target *t, int nt)
{
	int errs = c->nerr;
	for (int i = 0; i < nt; i++) {
		if (t[i].dim.e)
			continue;
		const SymDynamic *op = t[i].opt;
		onnxc_expr l = c->h->expr_sym(c->ctx, op->label);
		int64_t n = t[i].dim.n;
		int b = findbind(c, l);
		if (b >= 0 && c->bval[b] != n) {
			sym_error(c, 0, "--dynamic %s:%lld=%s: '%s' was traced "
			    "as %lld here but as %lld on another input",
			    op->input, (long long)op->dim, op->label, op->label,
			    (long long)n, (long long)c->bval[b]);
			continue;
		}
		if (b < 0 && known_symbol(c, gs, l)) {
			sym_error(c, 0, "--dynamic %s:%lld=%s: '%s' is already "
			    "a symbol of the dump", op->input,
			    (long long)op->dim, op->label, op->label);
			continue;
		}
		if (n < 2) {
			sym_error(c, 0, "--dynamic %s:%lld=%s: the dump was "
			    "traced with size %lld there, which cannot be told "
			    "from broadcasting; re-export with a size of 2 or "
			    "more", op->input, (long long)op->dim, op->label,
			    (long long)n);
			continue;
		}
		if (b < 0 && !addbind(c, l, n))
			return -1;
		if (!grow(c, (void **)&c->src, &c->csrc, c->nsrc + 1,
		    sizeof *c->src))
			return -1;
		c->src[c->nsrc++] = (SymSrc){l, t[i].v, t[i].d};
	}
	c->nnew = c->nbind;
	if (c->nerr != errs || c->nnew == 0)
		return c->nerr != errs ? -1 : 0;
	bind_dump_symbols(c);
	Dim *d = c->scratch;
	for (int i = 0; i < nt && c->nerr == errs; i++) {
		if (t[i].dim.e)
			continue;
		onnxc_value_info vi = sym_value(c, t[i].v);
		sym_dims(c, t[i].v, d, MAXRANK);
		d[t[i].d] = (Dim){0, c->h->expr_sym(c->ctx, t[i].opt->label)};
		if (c->h->value_set_type(c->ctx, c->g, t[i].v, vi.dtype,
		    vi.rank, d) != ONNXC_OK)
			sym_error(c, 0, "symbolize-shapes: the host refused "
			    "the new shape of '%s'", t[i].opt->input);
	}
	if (c->nerr != errs || propagate(c) < 0)
		return -1;
	for (uint32_t i = 0; i < c->nnew; i++)
		if (findrange(c, c->bsym[i], &(int64_t){0}, &(int64_t){0}) < 0)
			c->h->range_set(c->ctx, c->h->range_count(c->ctx),
			    c->bsym[i], 2, INF);
	return 0;
}

/* ---------------------------------------------------------------- pass */

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	const char *dyn = "", *stat = "";
	int strict = 0;
	if (h->opt_string(ctx, "dynamic", &dyn) != ONNXC_OK ||
	    h->opt_string(ctx, "static", &stat) != ONNXC_OK ||
	    h->opt_bool(ctx, "strict", &strict) != ONNXC_OK)
		return ONNXC_INVALID;
	SymCtx c = {.ctx = ctx, .h = h, .g = h->graph(ctx),
		.strict = strict != 0};
	Opts o = {0};
	Graphs gs = {0};
	Target *t = NULL;
	if (parse_options(&c, dyn, stat, &o) < 0 || (!o.ndyn && !o.nstat))
		goto out;
	if (!isfx(&c, c.g)) {
		sym_error(&c, 0, "symbolize-shapes works on the FX graph: run "
		    "it before 'lower'");
		goto out;
	}
	t = calloc((size_t)o.ndyn + 1, sizeof *t);
	c.scratch = calloc(MAXRANK, sizeof *c.scratch);
	if (!t || !c.scratch || !collect_graphs(&c, &gs)) {
		if (!t || !c.scratch)
			sym_error(&c, 0, "symbolize-shapes: out of memory");
		goto out;
	}
	for (int i = 0; i < o.ndyn; i++)
		resolve(&c, &o.dyn[i], &t[i]);
	if (!c.nerr)
		rename_symbols(&c, &gs, t, o.ndyn);
	if (!c.nerr)
		symbolize(&c, &gs, t, o.ndyn);
	if (!c.nerr)
		specialise(&c, &gs, &o);
out:
	free(t);
	free(gs.g);
	free(o.buf);
	free(o.dyn);
	free(o.stat);
	free(c.bsym);
	free(c.bval);
	free(c.src);
	free(c.touched);
	free(c.memo_e);
	free(c.memo_v);
	free(c.scratch);
	return c.nerr ? ONNXC_ERROR : ONNXC_OK;
}

static const onnxc_option options[] = {
	{"dynamic", ONNXC_OPT_STRING, "", "NAME:DIM=LABEL,...: name dim DIM "
	    "of input NAME LABEL (a symbolic dim is renamed, a numeric one "
	    "becomes symbolic)"},
	{"static", ONNXC_OPT_STRING, "", "LABEL=VALUE,...: specialise a "
	    "symbol to a number"},
	{"strict", ONNXC_OPT_BOOL, "false", "literals not proven to follow a "
	    "symbolic dim are errors, not warnings"},
};

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "symbolize-shapes",
	.summary = "rename, introduce or specialise symbolic dims",
	.options = options,
	.noptions = sizeof options / sizeof *options,
	.run = run,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	/* the expression algebra and the range table came with ABI 1.1 */
	if (!ONNXC_HOST_HAS(host, node_set_name)) {
		host->report(ctx, ONNXC_SEV_ERROR, 0, 0, "symbolize-shapes "
		    "needs a host of plugin ABI 1.1 or later");
		return ONNXC_VERSION;
	}
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(symbolize, "symbolize", "1.0", init, NULL);
