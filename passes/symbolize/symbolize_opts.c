/* symbolize_opts.c - the symbolize-shapes pass: the graphs it walks, its
 * options (dynamic=, static=), and renaming and specialising symbols
 * (see symbolize.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

/* ------------------------------------------------------ the graphs */

static bool
addgraph(SymCtx *c, Graphs *gs, onnxc_graph g)
{
	for (uint32_t i = 0; i < gs->n; i++)
		if (gs->g[i] == g)
			return true;
	if (!sym_grow(c, (void **)&gs->g, &gs->cap, gs->n + 1, sizeof *gs->g))
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

bool
sym_collect_graphs(SymCtx *c, Graphs *gs)
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

bool
sym_isfx(SymCtx *c, onnxc_graph g)
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
		if (!sym_isfx(c, g))
			continue;
		uint32_t nv = h->value_end(c->ctx, g);
		for (onnxc_value v = 1; v < nv; v++) {
			onnxc_value_info vi;
			if (h->value_get(c->ctx, g, v, &vi) != ONNXC_OK)
				continue;
			int r = vi.rank > MAXRANK ? -1 : sym_dims_of(c, g, v, d,
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
				    sym_strof(c, vi.name));
			if (vi.sym && sym_mentions(c, vi.sym, sym) &&
			    h->value_set_sym(c->ctx, g, v, vi.kind,
			    h->expr_subst(c->ctx, vi.sym, sym, by)) !=
			    ONNXC_OK)
				sym_error(c, 0, "symbolize-shapes: the host "
				    "refused the new value of '%s'",
				    sym_strof(c, vi.name));
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
int
sym_findrange(SymCtx *c, onnxc_expr e, int64_t *lo, int64_t *hi)
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
bool
sym_known_symbol(SymCtx *c, const Graphs *gs, onnxc_expr s)
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
			int r = vi.rank > MAXRANK ? -1 : sym_dims_of(c, g, v, d,
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
		if (!strcmp(sym_strof(c, sym_value(c, v).name), name))
			return v;
	}
	return 0;
}

/* ------------------------------------------------------------- options */

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

int
sym_parse_options(SymCtx *c, const char *dyn, const char *stat, Opts *o)
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

int
sym_resolve(SymCtx *c, const SymDynamic *o, Target *t)
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
	if (!sym_isident(o->label)) {
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
int
sym_rename_symbols(SymCtx *c, const Graphs *gs, Target *t, int nt)
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
			    o->label, t[i].d, o->input,
			    sym_dimtext(c, t[i].dim));
			continue;
		}
		onnxc_expr l = c->h->expr_sym(c->ctx, o->label);
		bool dup = false;
		for (int k = 0; k < n; k++) {
			if (from[k] == s && to[k] != l) {
				sym_error(c, 0, "--dynamic %s:%lld=%s: symbol "
				    "'%s' is already named '%s' by another "
				    "--dynamic", o->input, (long long)o->dim,
				    o->label, sym_symname(c, s),
				    sym_symname(c, to[k]));
				dup = true;
			} else if (from[k] != s && to[k] == l) {
				sym_error(c, 0, "--dynamic %s:%lld=%s: label "
				    "'%s' already names symbol '%s'; two "
				    "symbols cannot share a label", o->input,
				    (long long)o->dim, o->label, o->label,
				    sym_symname(c, from[k]));
				dup = true;
			} else if (from[k] == s) {
				dup = true; /* the same request twice */
			}
		}
		if (dup)
			continue;
		if (l != s && sym_known_symbol(c, gs, l)) {
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
int
sym_specialise(SymCtx *c, const Graphs *gs, const Opts *o)
{
	int errs = c->nerr;
	for (int i = 0; i < o->nstat; i++) {
		const SymStatic *st = &o->stat[i];
		onnxc_expr s = sym_isident(st->label)
		    ? c->h->expr_sym(c->ctx, st->label) : 0;
		if (!s || !sym_known_symbol(c, gs, s)) {
			sym_error(c, 0, "--static %s=%lld: the graph has no "
			    "symbol '%s'", st->label, (long long)st->value,
			    st->label);
			continue;
		}
		int64_t rlo, rhi;
		if (sym_findrange(c, s, &rlo, &rhi) >= 0 &&
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
