/* templates.c - pass "templates": PyTorch's own decompositions, as data.
 *
 * Requires: the FX graph (before "lower") with tensor annotations.
 * Provides: the same graph where each node of an op that no lowering
 * handles but a template covers is replaced by the template's nodes.
 *
 * A template (fx/<op>.<k>.fx, made by tools/gen_templates.py in PyTorch)
 * is the program print(exported_program) writes for one call of the op
 * after run_decompositions of that op alone, every tensor dim symbolic
 * (tpl_sN), under a header of '#' lines: "# onnxc template OP", then
 * "# arg I NAME KIND [VALUE] [default]" per argument of the op's schema.
 * The files are embedded in this module (CMake, templates_data.c), so
 * onnxc needs no file at run time; option dir= reads a folder of them
 * first (a rerun of the generator for another PyTorch, or a user's own).
 *
 * A node takes a template when its non-tensor arguments are the header's
 * (given, or left out where the header's value is the default), its
 * tensors have the placeholders' dtypes and ranks, and its sizes bind the
 * placeholders' symbols consistently (a symbol met twice binds equal
 * sizes; a number must be that number).  The template's text is read by
 * the host's dump frontend (graph_parse, ABI 1.8) once per run, its
 * nodes are copied in place of the node with every symbol substituted by
 * the size it binds, and the node's outputs are rewired to the template's
 * by one sweep at the end: linear in the graph plus the nodes copied.  A
 * copied node whose op has a template of its own is met later in the
 * same sweep (appended nodes are visited), to a depth of MAXDEPTH.
 * An op with a lowering rule or a rewrite of the decompose pass keeps it:
 * the rule wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>
#include <onnxc/table.h>

#include "templates.h"

/* -------------------------------------------------- which templates */

static const struct {
	const char *op;
	const char *decompose;
} rows[] = {
#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	{op, #decompose},
#include "../../ir/ops.def"
#undef OP
};

/* Whether onnxc handles op otherwise: a lowering (plugin or rule), or a
 * rewrite of the decompose pass. */
static int
handled(St *s, const char *op)
{
	if (s->h->has_lowering(s->ctx, op))
		return 1;
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		if (!strcmp(rows[i].op, op))
			return strcmp(rows[i].decompose, "0") != 0;
	return 0;
}

/* The first template of op (they are grouped by op), or -1. */
static int32_t
first_of(St *s, onnxc_str op)
{
	uint32_t k = (op * 2654435761u) >> 23;
	if (s->cache[k].key != op + 1) {
		const char *name = s->h->str(s->ctx, op);
		int32_t f = -1;
		for (uint32_t i = 0; name && i < s->nt && f < 0; i++)
			if (!strcmp(s->t[i].op, name))
				f = (int32_t)i;
		if (f >= 0 && handled(s, name))
			f = -1;
		s->cache[k].key = op + 1;
		s->cache[k].first = f;
	}
	return s->cache[k].first;
}

static int
concerns(void *arg, onnxc_str op)
{
	return first_of(arg, op) >= 0;
}

/* ----------------------------------------------------- the matching */

static onnxc_value
resolve(St *s, onnxc_value v)
{
	while (v < s->nremap && s->remap[v])
		v = s->remap[v];
	return v;
}

/* The node's argument the header's a names: keyed, else positional. */
static int
node_arg_of(St *s, onnxc_node n, const onnxc_node_info *ni, const TArg *a,
    onnxc_arg *out)
{
	const onnxc_host_api *h = s->h;
	for (uint32_t i = ni->npos; i < ni->nargs; i++)
		if (h->node_arg(s->ctx, s->g, n, i, out) == ONNXC_OK &&
		    out->key && !strcmp(h->str(s->ctx, out->key), a->name))
			return 1;
	return a->index < ni->npos &&
	    h->node_arg(s->ctx, s->g, n, a->index, out) == ONNXC_OK;
}

static int
same_scalar(St *s, const TArg *t, const onnxc_arg *a)
{
	char *e;
	if (!strcmp(t->kind, "none"))
		return a->kind == ONNXC_ARG_NONE;
	if (!strcmp(t->kind, "bool"))
		return a->kind == ONNXC_ARG_BOOL &&
		    a->i == !strcmp(t->value, "True");
	if (!strcmp(t->kind, "int"))
		return a->kind == ONNXC_ARG_INT &&
		    a->i == strtoll(t->value, &e, 10) && !*e;
	if (!strcmp(t->kind, "float")) {
		double f = strtod(t->value, &e);
		return !*e && ((a->kind == ONNXC_ARG_FLOAT && a->f == f) ||
		    (a->kind == ONNXC_ARG_INT && (double)a->i == f));
	}
	if (!strcmp(t->kind, "str"))
		return a->kind == ONNXC_ARG_STR &&
		    !strcmp(s->h->str(s->ctx, a->ref), t->value);
	if (!strcmp(t->kind, "ints")) {
		if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
			return 0;
		const char *p = t->value;
		for (uint32_t i = 0; i < a->len; i++) {
			onnxc_arg it;
			long long v = strtoll(p, &e, 10);
			if (e == p || s->h->list_item(s->ctx, s->g, a, i, &it) !=
			    ONNXC_OK || it.kind != ONNXC_ARG_INT || it.i != v)
				return 0;
			p = *e == ',' ? e + 1 : e;
		}
		return *p == 0;
	}
	return 0;
}

/* Symbols of the template bound to the node's sizes, and the numbers
 * its parameters' literals stand for. */
typedef struct Bind {
	onnxc_expr sym[MAXSYMS], to[MAXSYMS];
	uint32_t n;
	double lit[MAXPARAMS];
	onnxc_arg num[MAXPARAMS];
	uint32_t np;
} Bind;

/* A number a parameter takes: not 0 or +-1, where decompositions branch
 * (alpha == 1, beta == 0), nor a bool; finite. */
static int
param_fits(const onnxc_arg *a)
{
	double v;
	if (a->kind == ONNXC_ARG_INT)
		v = (double)a->i;
	else if (a->kind == ONNXC_ARG_FLOAT)
		v = a->f;
	else
		return 0;
	return v == v && v - v == 0 && v != 0 && v != 1 && v != -1;
}

static onnxc_expr
dim_expr(St *s, onnxc_dim d)
{
	return d.e ? d.e : s->h->expr_int(s->ctx, d.n);
}

/* Template value tv (of graph tg) against the node's value v: the same
 * kind, dtype and rank, and sizes that bind its symbols consistently. */
static int
bind_value(St *s, onnxc_graph tg, onnxc_value tv, onnxc_value v, Bind *b)
{
	const onnxc_host_api *h = s->h;
	onnxc_value_info ti, vi;
	onnxc_dim td[MAXR], vd[MAXR];
	if (h->value_get(s->ctx, tg, tv, &ti) != ONNXC_OK ||
	    h->value_get(s->ctx, s->g, v, &vi) != ONNXC_OK ||
	    ti.kind != ONNXC_VK_TENSOR || vi.kind != ONNXC_VK_TENSOR ||
	    ti.dtype != vi.dtype || ti.rank != vi.rank || ti.rank < 0 ||
	    ti.rank > MAXR)
		return 0;
	if (ti.rank && (h->value_dims(s->ctx, tg, tv, td, (uint32_t)ti.rank) !=
	    ONNXC_OK || h->value_dims(s->ctx, s->g, v, vd, (uint32_t)vi.rank)
	    != ONNXC_OK))
		return 0;
	for (int32_t j = 0; j < ti.rank; j++) {
		if (!td[j].e) {
			if (vd[j].e || vd[j].n != td[j].n)
				return 0;
			continue;
		}
		onnxc_expr_info ei;
		if (h->expr_get(s->ctx, td[j].e, &ei) != ONNXC_OK ||
		    ei.kind != ONNXC_E_SYM)
			return 0;  /* a size the placeholder computes: not bound */
		onnxc_expr to = dim_expr(s, vd[j]);
		uint32_t k = 0;
		while (k < b->n && b->sym[k] != td[j].e)
			k++;
		if (k < b->n) {
			if (h->expr_simplify(s->ctx, b->to[k]) !=
			    h->expr_simplify(s->ctx, to))
				return 0;
		} else if (b->n < MAXSYMS) {
			b->sym[b->n] = td[j].e;
			b->to[b->n++] = to;
		} else {
			return 0;
		}
	}
	return 1;
}

static onnxc_graph
graph_of(St *s, Tpl *t, onnxc_node n)
{
	if (!t->g && !t->failed) {
		char name[320];
		snprintf(name, sizeof name, "template %s", t->file);
		t->g = s->h->graph_parse(s->ctx, name, t->text, t->len);
		if (!t->g) {
			t->failed = 1;
			s->h->report(s->ctx, ONNXC_SEV_ERROR, s->g, n,
			    "the template of %s (%s) cannot be read: a "
			    "malformed or foreign template (regenerate it with "
			    "tools/gen_templates.py)", t->op, t->file);
		}
	}
	return t->g;
}

/* Whether template t fits node n; its inputs bound in b.  -1: the
 * template is unreadable (reported). */
static int
fits(St *s, Tpl *t, onnxc_node n, const onnxc_node_info *ni, Bind *b)
{
	const onnxc_host_api *h = s->h;
	onnxc_value ins[MAXARGS];
	uint32_t nin = 0;
	b->n = b->np = 0;
	for (uint32_t i = 0; i < t->nargs; i++) {
		const TArg *a = &t->args[i];
		onnxc_arg x;
		int has = node_arg_of(s, n, ni, a, &x);
		if (!strcmp(a->kind, "tensor")) {
			if (!has || x.kind != ONNXC_ARG_VALUE)
				return 0;
			ins[nin++] = resolve(s, x.ref);
		} else if (a->param && has && !same_scalar(s, a, &x)) {
			if (!param_fits(&x) || b->np == MAXPARAMS)
				return 0;
			b->lit[b->np] = strtod(a->value, NULL);
			b->num[b->np++] = x;
		} else if (!has ? !a->dflt : !same_scalar(s, a, &x)) {
			return 0;
		}
	}
	/* no argument the header does not know */
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg x;
		if (h->node_arg(s->ctx, s->g, n, i, &x) != ONNXC_OK)
			return 0;
		const char *key = x.key ? h->str(s->ctx, x.key) : NULL;
		int known = 0;
		for (uint32_t k = 0; k < t->nargs && !known; k++)
			known = key ? !strcmp(key, t->args[k].name) :
			    t->args[k].index == i;
		if (!known)
			return 0;
	}
	onnxc_graph tg = graph_of(s, t, n);
	if (!tg)
		return -1;
	if (h->input_count(s->ctx, tg) != nin ||
	    h->output_count(s->ctx, tg) != ni->nout)
		return 0;
	for (uint32_t i = 0; i < nin; i++)
		if (!bind_value(s, tg, h->input_at(s->ctx, tg, i), ins[i], b))
			return 0;
	return 1;
}

/* ------------------------------------------------------ the copying */

static int grow(St *s);

static onnxc_dim
subst_dim(St *s, const Bind *b, onnxc_dim d)
{
	if (!d.e)
		return d;
	onnxc_expr e = d.e;
	for (uint32_t k = 0; k < b->n; k++)
		e = s->h->expr_subst(s->ctx, e, b->sym[k], b->to[k]);
	e = s->h->expr_simplify(s->ctx, e);
	onnxc_expr_info ei;
	if (s->h->expr_get(s->ctx, e, &ei) == ONNXC_OK &&
	    ei.kind == ONNXC_E_INT)
		return (onnxc_dim){ei.n, 0};
	return (onnxc_dim){0, e};
}

static int
copy_type(St *s, const Bind *b, onnxc_graph tg, onnxc_value tv,
    onnxc_value v)
{
	const onnxc_host_api *h = s->h;
	onnxc_value_info vi;
	onnxc_dim d[MAXR];
	if (h->value_get(s->ctx, tg, tv, &vi) != ONNXC_OK)
		return 0;
	if (vi.kind == ONNXC_VK_TENSOR) {
		if (vi.rank > MAXR || (vi.rank > 0 && h->value_dims(s->ctx, tg,
		    tv, d, (uint32_t)vi.rank) != ONNXC_OK))
			return 0;
		for (int32_t j = 0; j < vi.rank; j++)
			d[j] = subst_dim(s, b, d[j]);
		return h->value_set_type(s->ctx, s->g, v, vi.dtype, vi.rank,
		    d) == ONNXC_OK;
	}
	if ((vi.kind == ONNXC_VK_SYMINT || vi.kind == ONNXC_VK_SYMFLOAT ||
	    vi.kind == ONNXC_VK_SYMBOOL) && vi.sym) {
		onnxc_dim x = subst_dim(s, b, (onnxc_dim){0, vi.sym});
		return h->value_set_sym(s->ctx, s->g, v, vi.kind,
		    dim_expr(s, x)) == ONNXC_OK;
	}
	return 1;
}

/* Argument a of the template graph tg, for the program graph: values
 * through map, a parameter's literal as the node's number, lists
 * rebuilt. */
static int
map_arg(St *s, onnxc_graph tg, const Bind *b, const onnxc_value *map,
    uint32_t nmap, const onnxc_arg *a, onnxc_arg *out, int depth)
{
	*out = *a;
	for (uint32_t k = 0; a->kind == ONNXC_ARG_FLOAT && k < b->np; k++)
		if (a->f == b->lit[k]) {
			*out = b->num[k];
			out->key = a->key;
			return 1;
		}
	if (a->kind == ONNXC_ARG_VALUE) {
		if (a->ref >= nmap || !map[a->ref])
			return 0;
		out->ref = map[a->ref];
		return 1;
	}
	if (a->kind == ONNXC_ARG_GRAPH || a->kind == ONNXC_ARG_TENSOR)
		return 0;  /* bodies and constants: templates have none */
	if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
		return 1;
	if (depth > 8)
		return 0;
	onnxc_arg *items = calloc(a->len + 1, sizeof *items);
	if (!items)
		return 0;
	int ok = 1;
	for (uint32_t i = 0; ok && i < a->len; i++) {
		onnxc_arg it;
		ok = s->h->list_item(s->ctx, tg, a, i, &it) == ONNXC_OK &&
		    map_arg(s, tg, b, map, nmap, &it, &items[i],
		    depth + 1);
	}
	ok = ok && s->h->make_list(s->ctx, s->g, a->kind, items, a->len, out)
	    == ONNXC_OK;
	out->key = a->key;
	free(items);
	return ok;
}

/* Copies template tg's nodes in place of node n (bound by b). */
static onnxc_status
expand(St *s, Tpl *t, onnxc_graph tg, onnxc_node n,
    const onnxc_node_info *ni, const Bind *b, int depth)
{
	const onnxc_host_api *h = s->h;
	uint32_t nmap = h->value_end(s->ctx, tg);
	onnxc_value *map = onnxc_table_calloc((size_t)nmap + 1, sizeof *map);
	if (!map)
		return ONNXC_NOMEM;
	const char *base = ni->name ? h->str(s->ctx, ni->name) : "tpl";
	onnxc_status st = ONNXC_OK;
	uint32_t nin = h->input_count(s->ctx, tg), k = 0;
	for (uint32_t i = 0; i < t->nargs; i++) {
		onnxc_arg x;
		if (strcmp(t->args[i].kind, "tensor"))
			continue;
		if (k < nin && node_arg_of(s, n, ni, &t->args[i], &x)) {
			onnxc_value p = h->input_at(s->ctx, tg, k);
			if (p < nmap)
				map[p] = resolve(s, x.ref);
		}
		k++;
	}
	uint32_t end = h->node_end(s->ctx, tg);
	for (onnxc_node m = 1; st == ONNXC_OK && m < end; m++) {
		onnxc_node_info mi, ci;
		if (h->node_get(s->ctx, tg, m, &mi) != ONNXC_OK)
			continue;
		onnxc_arg *args = calloc(mi.nargs + 1, sizeof *args);
		int ok = args != NULL;
		for (uint32_t i = 0; ok && i < mi.nargs; i++) {
			onnxc_arg a;
			ok = h->node_arg(s->ctx, tg, m, i, &a) == ONNXC_OK &&
			    map_arg(s, tg, b, map, nmap, &a, &args[i], 0);
		}
		onnxc_node c = ok ? h->node_new(s->ctx, s->g, mi.dialect,
		    h->str(s->ctx, mi.domain), h->str(s->ctx, mi.op),
		    mi.nout) : 0;
		ok = ok && c && h->node_get(s->ctx, s->g, c, &ci) == ONNXC_OK;
		for (uint32_t i = 0; ok && i < mi.nargs; i++)
			ok = h->node_push_arg(s->ctx, s->g, c, &args[i]) ==
			    ONNXC_OK;
		free(args);
		/* the node's name too (node_set_origin): the report traces
		 * the ONNX ops to the FX op by it */
		char name[256];
		ok = ok && h->node_set_origin(s->ctx, s->g, c, n) == ONNXC_OK;
		for (uint32_t o = 0; ok && o < mi.nout; o++) {
			onnxc_value_info vi;
			ok = h->value_get(s->ctx, tg, mi.out + o, &vi) ==
			    ONNXC_OK && copy_type(s, b, tg, mi.out + o,
			    ci.out + o);
			snprintf(name, sizeof name, "%s_%s", base,
			    h->str(s->ctx, vi.name));
			ok = ok && h->value_set_name(s->ctx, s->g, ci.out + o,
			    name) == ONNXC_OK;
			if (ok && mi.out + o < nmap)
				map[mi.out + o] = ci.out + o;
		}
		if (!ok) {
			h->report(s->ctx, ONNXC_SEV_ERROR, s->g, n, "the "
			    "template of %s (%s) has a node onnxc cannot copy "
			    "('%s')", t->op, t->file, h->str(s->ctx, mi.name));
			st = ONNXC_ERROR;
		} else if (!grow(s)) {
			st = ONNXC_NOMEM;
		} else {
			s->depth[c] = (uint8_t)(depth + 1);
		}
	}
	for (uint32_t o = 0; st == ONNXC_OK && o < ni->nout; o++) {
		onnxc_value v = h->output_at(s->ctx, tg, o);
		onnxc_value r = v < nmap ? map[v] : 0;
		if (!r) {
			h->report(s->ctx, ONNXC_SEV_ERROR, s->g, n, "the "
			    "template of %s (%s) returns no value for output "
			    "%u", t->op, t->file, o);
			st = ONNXC_ERROR;
		} else {
			s->remap[ni->out + o] = r;
		}
	}
	free(map);
	return st;
}

static int
grow(St *s)
{
	uint32_t nv = s->h->value_end(s->ctx, s->g);
	uint32_t nn = s->h->node_end(s->ctx, s->g);
	if (nv > s->nremap) {
		uint32_t c = s->nremap ? s->nremap : 64;
		while (c < nv)
			c *= 2;
		onnxc_value *p = realloc(s->remap, c * sizeof *p);
		if (!p)
			return 0;
		memset(p + s->nremap, 0, (c - s->nremap) * sizeof *p);
		s->remap = p;
		s->nremap = c;
	}
	if (nn > s->ndepth) {
		uint32_t c = s->ndepth ? s->ndepth : 64;
		while (c < nn)
			c *= 2;
		uint8_t *p = realloc(s->depth, c);
		if (!p)
			return 0;
		memset(p + s->ndepth, 0, c - s->ndepth);
		s->depth = p;
		s->ndepth = c;
	}
	return 1;
}

/* Argument a with every replaced value it names replaced, in out: 1 when
 * something changed, 0 when not, -1 when a list could not be made. */
static int
rewire_arg(St *s, const onnxc_arg *a, onnxc_arg *out, int depth)
{
	*out = *a;
	if (a->kind == ONNXC_ARG_VALUE) {
		out->ref = resolve(s, a->ref);
		return out->ref != a->ref;
	}
	if ((a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE) ||
	    depth > 8)
		return 0;
	onnxc_arg *items = calloc(a->len + 1, sizeof *items);
	if (!items)
		return -1;
	int any = 0;
	for (uint32_t i = 0; any >= 0 && i < a->len; i++) {
		onnxc_arg it;
		int r = s->h->list_item(s->ctx, s->g, a, i, &it) == ONNXC_OK ?
		    rewire_arg(s, &it, &items[i], depth + 1) : -1;
		any = r < 0 ? -1 : any | r;
	}
	if (any > 0 && s->h->make_list(s->ctx, s->g, a->kind, items, a->len,
	    out) != ONNXC_OK)
		any = -1;
	out->key = a->key;
	free(items);
	return any;
}

/* Every argument and output naming a replaced value names its
 * replacement: one sweep. */
static onnxc_status
rewire(St *s)
{
	const onnxc_host_api *h = s->h;
	uint32_t end = h->node_end(s->ctx, s->g);
	for (onnxc_node n = 1; n < end; n++) {
		onnxc_node_info ni;
		if (h->node_get(s->ctx, s->g, n, &ni) != ONNXC_OK)
			continue;
		for (uint32_t i = 0; i < ni.nargs; i++) {
			onnxc_arg a, b;
			if (h->node_arg(s->ctx, s->g, n, i, &a) != ONNXC_OK)
				return ONNXC_INVALID;
			int r = rewire_arg(s, &a, &b, 0);
			if (r < 0 || (r && h->node_set_arg(s->ctx, s->g, n, i,
			    &b) != ONNXC_OK))
				return ONNXC_INVALID;
		}
	}
	uint32_t nout = h->output_count(s->ctx, s->g);
	for (uint32_t i = 0; i < nout; i++) {
		onnxc_value v = h->output_at(s->ctx, s->g, i);
		if (resolve(s, v) != v && h->replace_uses(s->ctx, s->g, v,
		    resolve(s, v)) != ONNXC_OK)
			return ONNXC_INVALID;
	}
	return ONNXC_OK;
}

/* ----------------------------------------------------------- the pass */

static onnxc_status
sweep(St *s)
{
	const onnxc_host_api *h = s->h;
	int any = 0;
	onnxc_status st = ONNXC_OK;
	for (onnxc_node n = 1; st == ONNXC_OK && n < h->node_end(s->ctx, s->g);
	    n++) {
		onnxc_node_info ni;
		if (h->node_get(s->ctx, s->g, n, &ni) != ONNXC_OK ||
		    ni.dialect != ONNXC_FX)
			continue;
		int32_t f = first_of(s, ni.op);
		if (f < 0)
			continue;
		if (!grow(s))
			return ONNXC_NOMEM;
		int depth = s->depth[n];
		if (depth >= MAXDEPTH) {
			h->report(s->ctx, ONNXC_SEV_ERROR, s->g, n, "templates "
			    "nest more than %d deep at %s (a template that "
			    "leads back to its own op?)", MAXDEPTH,
			    h->str(s->ctx, ni.op));
			return ONNXC_ERROR;
		}
		for (uint32_t i = (uint32_t)f; i < s->nt &&
		    !strcmp(s->t[i].op, s->t[f].op); i++) {
			Bind b;
			int r = fits(s, &s->t[i], n, &ni, &b);
			if (r < 0)
				return ONNXC_ERROR;
			if (!r)
				continue;
			st = expand(s, &s->t[i], s->t[i].g, n, &ni, &b, depth);
			if (st == ONNXC_OK)
				st = h->node_erase(s->ctx, s->g, n);
			any = 1;
			break;
		}
	}
	if (st == ONNXC_OK && any)
		st = rewire(s);
	return st;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	const char *dir = "";
	if (h->opt_string(ctx, "dir", &dir) != ONNXC_OK)
		return ONNXC_ERROR;
	if (!ONNXC_HOST_HAS(h, graph_parse)) {
		h->report(ctx, ONNXC_SEV_ERROR, 0, 0, "templates: the host "
		    "has no graph_parse (ABI 1.8)");
		return ONNXC_ERROR;
	}
	St *s = calloc(1, sizeof *s);
	if (!s)
		return ONNXC_ERROR;
	s->ctx = ctx, s->h = h, s->g = h->graph(ctx);
	onnxc_status st = ONNXC_OK;
	if (*dir && tpl_load_dir(s, dir) != 0)
		st = ONNXC_ERROR;
	for (uint32_t i = 0; st == ONNXC_OK && i < tpl_nembedded; i++)
		if (tpl_add(s, tpl_embedded[i].file, tpl_embedded[i].text,
		    tpl_embedded[i].len, NULL) != 0)
			st = ONNXC_ERROR;
	/* grouped by op, in the order found: a folder's before the built-in */
	if (st == ONNXC_OK && tpl_group(s) != 0)
		st = ONNXC_NOMEM;
	if (st == ONNXC_OK && !onnxc_no_op_concerns(ctx, h, s->g, concerns, s))
		st = sweep(s);
	if (st == ONNXC_NOMEM)
		h->report(ctx, ONNXC_SEV_ERROR, s->g, 0,
		    "templates: out of memory");
	else if (st == ONNXC_INVALID)
		h->report(ctx, ONNXC_SEV_ERROR, s->g, 0,
		    "templates: the host refused a change to the graph");
	for (uint32_t i = 0; i < s->nt; i++)
		free(s->t[i].owned);
	free(s->t);
	free(s->remap);
	free(s->depth);
	free(s);
	return st == ONNXC_OK ? ONNXC_OK : ONNXC_ERROR;
}

static const onnxc_option options[] = {
	{"dir", ONNXC_OPT_STRING, "",
	    "a folder of templates (tools/gen_templates.py) tried before "
	    "the built-in ones"},
};

static const onnxc_pass_info pass = {
	sizeof(onnxc_pass_info), "templates",
	"inline PyTorch's decompositions (templates) for ops with no rule",
	options, sizeof options / sizeof *options, run, NULL,
	ONNXC_PROP_FX, 0, 0,  /* needs, provides, breaks */
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(templates, "templates", "1.0", init, NULL);
