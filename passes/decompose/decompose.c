/* decompose.c - pass "decompose": high-level and pre-dispatch ATen ops
 * rewritten into ops the lowering handles.
 *
 * Requires: the FX graph (before "lower"), with tensor annotations on the
 * values it rewrites.  Provides: the same graph where each decomposed node
 * is replaced by FX nodes of simpler ATen ops, every new value typed.
 *
 * An op is decomposed when this module has a decomposition for it, no
 * lowering handles it (or option all=true), and it is not in the keep list:
 * an op that lowers better whole (SDPA -> Attention) stays whole.  A
 * decomposition that does not fit a node (symbolic sizes it needs, training
 * mode dropout, einsum beyond two-operand products) leaves the node alone
 * for the lowering to handle or report.
 *
 * The files: decompose.c (this one) holds the table of decompositions
 * (the decompose column of ir/ops.def), the keep list and the sweep;
 * nn.c and math.c the decompositions; rewrite.c what they share (types,
 * arguments, emitting nodes).  It includes ir/ops.def, data only.
 *
 * A plugin module: it reaches the host only through onnxc/plugin.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decompose.h"

/* ------------------------------------------------------------ the pass */

/* Every row of the op table with its decompose column: NULL for most. */
static const struct Dec {
	const char *op;
	DecFn fn;
} decs[] = {
#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	{op, decompose},
#include "../../ir/ops.def"
#undef OP
};

static const struct Dec *
find_dec(const char *op)
{
	for (size_t i = 0; i < sizeof decs / sizeof *decs; i++)
		if (decs[i].fn && !strcmp(decs[i].op, op))
			return &decs[i];
	return NULL;
}

/* What the pass does with an op, by its string handle, remembered: the
 * table has a row per overload, and a graph repeats a few ops many times.
 * Direct-mapped. */
typedef struct DecCache {
	uint32_t key[256];          /* op handle + 1; 0: empty */
	const struct Dec *dec[256];
} DecCache;

static int kept(const char *keep, const char *op);

/* The decomposition to try on nodes of op, or NULL: none, op kept, or a
 * lowering handles it (unless all).  Every part is fixed for the run. */
static const struct Dec *
verdict(DecCache *c, onnxc_ctx *ctx, const onnxc_host_api *h, uint32_t op,
    int all, const char *keep)
{
	uint32_t s = (op * 2654435761u) >> 24;
	if (c->key[s] != op + 1) {
		const char *name = h->str(ctx, op);
		const struct Dec *d = name ? find_dec(name) : NULL;
		if (d && (kept(keep, name) || (!all &&
		    h->has_lowering(ctx, name))))
			d = NULL;
		c->key[s] = op + 1;
		c->dec[s] = d;
	}
	return c->dec[s];
}

/* Whether keep-list entry e[0..n) names op: exactly, or without the
 * overload ("aten::linear" keeps every overload of linear). */
static int
entry_names(const char *e, size_t n, const char *op)
{
	const char *dot = strrchr(op, '.');
	size_t base = dot ? (size_t)(dot - op) : strlen(op);
	return (n == strlen(op) || n == base) && !strncmp(e, op, n);
}

/* The next entry of a comma-separated list at *s (spaces trimmed): its
 * length, 0 at the end; *s moves past it. */
static size_t
next_entry(const char **s, const char **e)
{
	while (**s == ' ' || **s == ',')
		(*s)++;
	size_t n = strcspn(*s, ","), m = n;
	while (m && (*s)[m - 1] == ' ')
		m--;
	*e = *s;
	*s += n;
	return m;
}

static int
kept(const char *keep, const char *op)
{
	const char *e;
	size_t n;
	while ((n = next_entry(&keep, &e)))
		if (entry_names(e, n, op))
			return 1;
	return 0;
}

/* Warns about keep entries that name nothing this pass rewrites: a typo
 * would otherwise silently keep nothing. */
static void
check_keep(onnxc_ctx *ctx, const onnxc_host_api *h, const char *keep)
{
	const char *e;
	size_t n;
	while ((n = next_entry(&keep, &e))) {
		int any = 0;
		for (size_t i = 0; i < sizeof decs / sizeof *decs; i++)
			any |= decs[i].fn && entry_names(e, n, decs[i].op);
		if (!any)
			h->report(ctx, ONNXC_SEV_WARNING, 0, 0, "keep names "
			    "'%.*s', which is not an op this pass decomposes",
			    (int)n, e);
	}
}

/* Decomposes the nodes of graph g, then of the graphs its nodes take as
 * arguments (cond branches, loop bodies).  Nodes made here are appended
 * at the end and get their own look: a decomposition may emit composite
 * ops that have decompositions of their own (each emits simpler ops, so
 * the sweep ends). */
/* Node n's arguments read through the replacements made so far. */
static onnxc_status
resolve_args(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g,
    onnxc_node n, const onnxc_node_info *ni, const Remap *rm)
{
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a, b;
		int changed = 0;
		if (h->node_arg(ctx, g, n, i, &a) != ONNXC_OK ||
		    onnxc_arg_map(ctx, h, g, &a, dec_resolve, rm, &b, &changed,
		    0) != ONNXC_OK ||
		    (changed && h->node_set_arg(ctx, g, n, i, &b) != ONNXC_OK))
			return ONNXC_ERROR;
	}
	return ONNXC_OK;
}

static onnxc_status sweep(onnxc_ctx *ctx, const onnxc_host_api *h,
    onnxc_graph g, int all, const char *keep, int depth, DecCache *cache,
    Remap *rm);

static onnxc_status
run_graph(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g, int all,
    const char *keep, int depth, DecCache *cache)
{
	Remap rm = {NULL, 0, 0};
	onnxc_status st = sweep(ctx, h, g, all, keep, depth, cache, &rm);
	/* once more over every node: a node made by a rewrite (appended)
	 * and rewritten in turn was defined after uses the sweep had
	 * already passed */
	uint32_t end = h->node_end(ctx, g);
	for (onnxc_node n = 1; st == ONNXC_OK && rm.any && n < end; n++) {
		onnxc_node_info ni;
		if (h->node_get(ctx, g, n, &ni) == ONNXC_OK && ni.op &&
		    resolve_args(ctx, h, g, n, &ni, &rm) != ONNXC_OK) {
			h->report(ctx, ONNXC_SEV_ERROR, g, n, "the host refused "
			    "to rewire a node's arguments");
			st = ONNXC_ERROR;
		}
	}
	/* and the graph's outputs */
	uint32_t nout = h->output_count(ctx, g);
	for (uint32_t i = 0; st == ONNXC_OK && rm.any && i < nout; i++) {
		onnxc_value v = h->output_at(ctx, g, i), to = dec_resolve(&rm, v);
		if (to != v && h->replace_uses(ctx, g, v, to) != ONNXC_OK) {
			h->report(ctx, ONNXC_SEV_ERROR, g, 0, "the host refused "
			    "to rewire a graph output");
			st = ONNXC_ERROR;
		}
	}
	free(rm.to);
	return st;
}

static onnxc_status
sweep(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g, int all,
    const char *keep, int depth, DecCache *cache, Remap *rm)
{
	for (onnxc_node n = 1; n < h->node_end(ctx, g); n++) {
		Rw r;
		memset(&r, 0, sizeof r);
		r.ctx = ctx, r.h = h, r.g = g, r.n = n, r.rm = rm;
		r.vend = h->value_end(ctx, g);
		if (h->node_get(ctx, g, n, &r.ni) != ONNXC_OK ||
		    r.ni.dialect != ONNXC_FX)
			continue;
		if (rm->any && (resolve_args(ctx, h, g, n, &r.ni, rm) !=
		    ONNXC_OK || h->node_get(ctx, g, n, &r.ni) != ONNXC_OK)) {
			h->report(ctx, ONNXC_SEV_ERROR, g, n, "the host refused "
			    "to rewire a node's arguments");
			return ONNXC_ERROR;
		}
		for (uint32_t i = 0; i < r.ni.nargs && depth < 16; i++) {
			onnxc_arg a;
			if (h->node_arg(ctx, g, n, i, &a) == ONNXC_OK &&
			    a.kind == ONNXC_ARG_GRAPH && a.ref != g &&
			    run_graph(ctx, h, a.ref, all, keep, depth + 1,
			    cache) != ONNXC_OK)
				return ONNXC_ERROR;
		}
		const struct Dec *d = verdict(cache, ctx, h, r.ni.op, all, keep);
		if (!d)
			continue;
		const char *op = h->str(ctx, r.ni.op);
		snprintf(r.base, sizeof r.base, "%s",
		    r.ni.name ? h->str(ctx, r.ni.name) : "decomposed");
		if (!d->fn(&r))
			continue;
		if (r.bad || h->node_erase(ctx, g, n) != ONNXC_OK) {
			h->report(ctx, ONNXC_SEV_ERROR, g, n,
			    "the host refused to rewrite %s", op);
			return ONNXC_ERROR;
		}
	}
	return ONNXC_OK;
}

/* What run asks verdict with, for onnxc_no_op_concerns. */
typedef struct Ask {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	int all;
	const char *keep;
	DecCache *cache;
} Ask;

/* onnxc_no_op_concerns: an op to decompose */
static int
to_decompose(void *arg, onnxc_str op)
{
	Ask *a = arg;
	return verdict(a->cache, a->ctx, a->h, op, a->all, a->keep) != NULL;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	int all = 0;
	const char *keep = "";
	if (h->opt_bool(ctx, "all", &all) != ONNXC_OK ||
	    h->opt_string(ctx, "keep", &keep) != ONNXC_OK)
		return ONNXC_ERROR;
	check_keep(ctx, h, keep);
	DecCache cache;
	memset(&cache, 0, sizeof cache);
	Ask ask = {ctx, h, all, keep, &cache};
	if (onnxc_no_op_concerns(ctx, h, h->graph(ctx), to_decompose, &ask))
		return ONNXC_OK;
	return run_graph(ctx, h, h->graph(ctx), all, keep, 0, &cache);
}

static const onnxc_option options[] = {
	{"all", ONNXC_OPT_BOOL, "false",
	    "decompose ops that have a lowering too"},
	{"keep", ONNXC_OPT_STRING, "",
	    "comma-separated ops never decomposed "
	    "(aten::scaled_dot_product_attention.default)"},
};

static const onnxc_pass_info pass = {
	sizeof(onnxc_pass_info), "decompose",
	"rewrite high-level ATen ops into ops the lowering handles",
	options, sizeof options / sizeof *options, run, NULL,
	ONNXC_PROP_FX, 0, 0,  /* needs, provides, breaks */
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN("decompose", "1.0", init, NULL);
