/* dce.c - pass "dce": removes nodes whose results nothing uses.
 *
 * Requires: the current graph in program order (every use after its
 * definition), FX nodes as parsed or ONNX nodes after "lower".
 * Provides: the same graph without the dead nodes that have no effect.
 *
 * A node may go when none of its outputs is used (by an argument, a list
 * item or a graph output) and removing it cannot change what the exported
 * model computes:
 * - ONNX nodes of the default domain (all of them are pure);
 * - FX nodes of aten::, prims::, _operator::, torch:: and math::.  The
 *   graph is functional (in-place ops rebind their first argument), and
 *   asserts and range constraints (_assert_scalar, sym_constrain_range)
 *   lower to nothing anyway.
 * higher_order:: ops and ops of any other namespace or domain (custom ops,
 * effect tokens) stay: we cannot know what they do.
 *
 * Subgraphs are left alone (not walked; their dead nodes stay).  What an
 * ONNX subgraph reads from outside is its owner's captures, which count
 * as uses, so the nodes computing them stay while the owner does.
 *
 * One backward sweep reaches the fixpoint: users follow their producers,
 * so when the sweep reaches a node, every dead user is already gone and
 * its uses are off the counts.  A host of ABI 1.5 or later keeps the
 * counts itself (value_uses: counted once per graph, node_erase takes an
 * erased node's uses off), so the sweep asks it; an older host's
 * value_uses may count afresh, so with it the counts are our own, taken
 * once at the start.  Linear either way.
 */
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>
#include <onnxc/table.h>

typedef struct Dce {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	uint32_t nvals;
	uint32_t *uses;  /* per value */
} Dce;

/* Lists nest (a tuple of lists); deeper than this is not a real graph. */
enum { MAXDEPTH = 64 };

static onnxc_status
count(Dce *d, const onnxc_arg *a, int delta, int depth)
{
	if (a->kind == ONNXC_ARG_VALUE) {
		if (a->ref && a->ref < d->nvals)
			d->uses[a->ref] += (uint32_t)delta;
		return ONNXC_OK;
	}
	if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
		return ONNXC_OK;
	if (depth > MAXDEPTH)
		return ONNXC_INVALID;
	for (uint32_t i = 0; i < a->len; i++) {
		onnxc_arg it;
		onnxc_status s = d->h->list_item(d->ctx, d->g, a, i, &it);
		if (s == ONNXC_OK)
			s = count(d, &it, delta, depth + 1);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

static onnxc_status
count_node(Dce *d, onnxc_node n, const onnxc_node_info *ni, int delta)
{
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a;
		onnxc_status s = d->h->node_arg(d->ctx, d->g, n, i, &a);
		if (s == ONNXC_OK)
			s = count(d, &a, delta, 0);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* May the node go once its results are unused? */
static int
removable(Dce *d, const onnxc_node_info *ni)
{
	if (ni->dialect == ONNXC_ONNX) {
		const char *dom = d->h->str(d->ctx, ni->domain);
		return !dom || !*dom || strcmp(dom, "ai.onnx") == 0;
	}
	if (ni->dialect != ONNXC_FX)
		return 0;
	const char *op = d->h->str(d->ctx, ni->op);
	if (!op)
		return 0;
	return starts(op, "aten::") || starts(op, "prims::") ||
	    starts(op, "_operator::") || starts(op, "torch::") ||
	    starts(op, "math::");
}

static int
dead(Dce *d, const onnxc_node_info *ni)
{
	for (uint32_t k = 0; k < ni->nout; k++) {
		onnxc_value v = ni->out + k;
		if (v >= d->nvals || d->uses[v])
			return 0;
	}
	return 1;
}

/* The backward sweep on the host's counts. */
static onnxc_status
sweep_host(Dce *d)
{
	const onnxc_host_api *h = d->h;
	uint32_t end = h->node_end(d->ctx, d->g);
	onnxc_node_info ni;
	for (onnxc_node n = end; n-- > 1;) {
		if (h->node_get(d->ctx, d->g, n, &ni) != ONNXC_OK)
			continue;
		int used = 0;
		for (uint32_t k = 0; k < ni.nout && !used; k++)
			used = ni.out + k >= d->nvals ||
			    h->value_uses(d->ctx, d->g, ni.out + k) != 0;
		if (used || !removable(d, &ni))
			continue;
		if (h->node_erase(d->ctx, d->g, n) != ONNXC_OK) {
			h->report(d->ctx, ONNXC_SEV_ERROR, d->g, n,
			    "dce: cannot erase this node");
			return ONNXC_ERROR;
		}
	}
	return ONNXC_OK;
}

static onnxc_status
sweep(Dce *d)
{
	const onnxc_host_api *h = d->h;
	uint32_t end = h->node_end(d->ctx, d->g);
	onnxc_node_info ni;
	for (onnxc_node n = 1; n < end; n++) {
		if (h->node_get(d->ctx, d->g, n, &ni) != ONNXC_OK)
			continue; /* erased */
		if (count_node(d, n, &ni, +1) != ONNXC_OK) {
			h->report(d->ctx, ONNXC_SEV_ERROR, d->g, n,
			    "dce: cannot read the arguments of this node");
			return ONNXC_ERROR;
		}
	}
	uint32_t nout = h->output_count(d->ctx, d->g);
	for (uint32_t i = 0; i < nout; i++) {
		onnxc_value v = h->output_at(d->ctx, d->g, i);
		if (v && v < d->nvals)
			d->uses[v]++;
	}
	for (onnxc_node n = end; n-- > 1;) {
		if (h->node_get(d->ctx, d->g, n, &ni) != ONNXC_OK)
			continue;
		if (!dead(d, &ni) || !removable(d, &ni))
			continue;
		if (count_node(d, n, &ni, -1) != ONNXC_OK ||
		    h->node_erase(d->ctx, d->g, n) != ONNXC_OK) {
			h->report(d->ctx, ONNXC_SEV_ERROR, d->g, n,
			    "dce: cannot erase this node");
			return ONNXC_ERROR;
		}
	}
	return ONNXC_OK;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	Dce d = {.ctx = ctx, .h = host, .g = host->graph(ctx)};
	d.nvals = host->value_end(ctx, d.g);
	if (ONNXC_HOST_HAS(host, graph_ops))
		return sweep_host(&d);
	d.uses = onnxc_table_calloc((size_t)d.nvals + 1, sizeof *d.uses);
	if (!d.uses) {
		host->report(ctx, ONNXC_SEV_ERROR, d.g, 0,
		    "dce: out of memory");
		return ONNXC_ERROR;
	}
	onnxc_status s = sweep(&d);
	free(d.uses);
	return s;
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "dce",
	.summary = "remove nodes whose results are unused and that have no "
	    "effect",
	.run = run,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(dce, "dce", "1.0", init, NULL);
