/* normalize.c - ir_normalize: a graph edited out of order (nodes appended
 * anywhere, some erased) back into program order, for the pass manager
 * after each pass (pipeline/pipeline.c).
 *
 * Linear in the graph: one walk collects each node's defining nodes, a
 * depth-first walk orders them, one copy rebuilds the node and arg
 * tables; values keep their ids.  Most passes leave the order valid (they
 * erase nodes, or append nodes used only after them): then the erased
 * nodes are dropped in place, with no tables and no copy. */
#include <stdlib.h>
#include <string.h>

#include <onnxc/table.h>

#include "ir.h"

typedef struct Norm {
	Module *m;
	Graph *g;
	const char *who;
	NodeId *deps;
	uint32_t ndeps, cdeps;
	int bad;
} Norm;

static const char *
valname(Module *m, const Graph *g, ValId v)
{
	return g->vals[v].name ? ir_str(m, g->vals[v].name) : "(unnamed)";
}

/* The defining nodes of the values arg a uses, onto z->deps. */
static void
collect(Norm *z, NodeId user, const Arg *a, int depth)
{
	const Graph *g = z->g;
	if (a->kind == A_LIST || a->kind == A_TUPLE) {
		if (depth > 64 ||
		    (uint64_t)a->u.list.off + a->u.list.n > g->nitems)
			return; /* ir_verify reports it */
		for (uint32_t i = 0; i < a->u.list.n; i++)
			collect(z, user, &g->items[a->u.list.off + i],
			    depth + 1);
		return;
	}
	if (a->kind != A_VAL || a->u.v == 0 || a->u.v >= g->nvals)
		return;
	NodeId d = g->vals[a->u.v].def;
	if (d == 0 || d >= g->nnodes)
		return;
	if (!g->nodes[d].op) {
		ir_error(z->m, g->nodes[user].loc, "%s: '%s' is still used by "
		    "%s after the node defining it was erased", z->who,
		    valname(z->m, g, a->u.v), ir_str(z->m, g->nodes[user].op));
		z->bad++;
		return;
	}
	vgrow((void **)&z->deps, &z->cdeps, z->ndeps + 1, sizeof *z->deps);
	z->deps[z->ndeps++] = d;
}

static void
cycle(Module *m, const Graph *g, NodeId n, const char *who)
{
	ir_error(m, g->nodes[n].loc, "%s: nodes form a cycle through %s", who,
	    ir_str(m, g->nodes[n].op));
}

/* Does every value arg a of node n uses come from a live node before n
 * (a list's items too)?  Anything else, errors included, is left to the
 * full walk. */
static bool
arg_in_order(const Graph *g, NodeId n, const Arg *a, int depth)
{
	if (a->kind == A_LIST || a->kind == A_TUPLE) {
		if (depth > 64 ||
		    (uint64_t)a->u.list.off + a->u.list.n > g->nitems)
			return false;
		for (uint32_t i = 0; i < a->u.list.n; i++)
			if (!arg_in_order(g, n, &g->items[a->u.list.off + i],
			    depth + 1))
				return false;
		return true;
	}
	if (a->kind != A_VAL || a->u.v == 0 || a->u.v >= g->nvals)
		return true;
	NodeId d = g->vals[a->u.v].def;
	return d == 0 || (d < n && g->nodes[d].op);
}

/* Is the graph in program order, with each live node's args after the
 * previous live node's (so that they can move down in place)? */
static bool
in_order(const Graph *g)
{
	uint64_t end = 0;
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = &g->nodes[n];
		if (!p->op)
			continue;
		if (p->args < end || (uint64_t)p->args + p->nargs > g->nargs)
			return false;
		end = (uint64_t)p->args + p->nargs;
		for (uint32_t k = 0; k < p->nargs; k++)
			if (!arg_in_order(g, n, &g->args[p->args + k], 0))
				return false;
	}
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		NodeId d = v && v < g->nvals ? g->vals[v].def : 0;
		if (d && d < g->nnodes && !g->nodes[d].op)
			return false;
	}
	return true;
}

/* Drop the erased nodes of a graph in order: the order the full walk
 * would give, since each node already follows what it uses. */
static void
compact(Graph *g)
{
	NodeId k = 1;
	uint32_t na = 0;
	for (NodeId n = 1; n < g->nnodes; n++) {
		Node p = g->nodes[n];
		if (!p.op) {
			for (uint32_t j = 0; j < p.nout &&
			    p.out + j < g->nvals; j++)
				g->vals[p.out + j].def = 0;
			continue;
		}
		if (p.nargs && p.args != na)
			memmove(&g->args[na], &g->args[p.args],
			    p.nargs * sizeof *g->args);
		p.args = na;
		na += p.nargs;
		g->nodes[k] = p;
		for (uint32_t j = 0; j < p.nout && p.out + j < g->nvals; j++)
			g->vals[p.out + j].def = k;
		k++;
	}
	g->nnodes = k;
	g->nargs = na;
}

int
ir_normalize(Module *m, GraphId gid, uint32_t base, const char *who)
{
	Graph *g = ir_graph(m, gid);
	if (in_order(g)) {
		compact(g);
		return 0;
	}
	uint32_t nn = g->nnodes;
	Norm z = {.m = m, .g = g, .who = who};
	uint32_t *start = onnxc_table_calloc(nn + 1, sizeof *start);
	uint8_t *state = onnxc_table_calloc(nn + 1, 1);
	NodeId *order = onnxc_table_calloc(nn + 1, sizeof *order);
	struct {
		NodeId n;
		uint32_t k;
	} *stack = onnxc_table_calloc(nn + 1, sizeof *stack);
	if (!start || !state || !order || !stack)
		ir_oom(0);
	for (NodeId n = 1; n < nn; n++) {
		start[n] = z.ndeps;
		const Node *p = &g->nodes[n];
		if (!p->op || (uint64_t)p->args + p->nargs > g->nargs)
			continue;
		for (uint32_t k = 0; k < p->nargs; k++)
			collect(&z, n, &g->args[p->args + k], 0);
	}
	start[nn] = z.ndeps;
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		NodeId d = v && v < g->nvals ? g->vals[v].def : 0;
		if (d && d < nn && !g->nodes[d].op) {
			ir_error(m, (Loc){0}, "%s: graph output '%s' was left "
			    "without its node, which was erased", who,
			    valname(m, g, v));
			z.bad++;
		}
	}
	if (z.bad)
		goto out;

	/* Depth-first from the old nodes in order, then the new ones: each
	 * node goes after the nodes it uses, which puts new nodes right
	 * before their first user and keeps a valid old order as it is. */
	uint32_t norder = 0;
	for (int pass = 0; pass < 2 && !z.bad; pass++)
		for (NodeId root = 1; root < nn && !z.bad; root++) {
			if (!g->nodes[root].op || state[root] ||
			    (pass == 0) != (root < base))
				continue;
			uint32_t sp = 0;
			stack[sp].n = root;
			stack[sp++].k = 0;
			state[root] = 1;
			while (sp) {
				NodeId n = stack[sp - 1].n;
				if (start[n] + stack[sp - 1].k < start[n + 1]) {
					NodeId d = z.deps[start[n] +
					    stack[sp - 1].k++];
					if (state[d] == 1) {
						cycle(m, g, d, who);
						z.bad++;
						break;
					}
					if (state[d] == 0) {
						state[d] = 1;
						stack[sp].n = d;
						stack[sp++].k = 0;
					}
					continue;
				}
				state[n] = 2;
				order[norder++] = n;
				sp--;
			}
		}
	if (z.bad)
		goto out;

	/* Rebuild the node and arg tables in that order.  Values keep their
	 * ids; outputs of erased nodes are defined by nothing now. */
	uint32_t total = 0;
	for (uint32_t i = 0; i < norder; i++)
		total += g->nodes[order[i]].nargs;
	Node *nodes = mem_alloc_big((norder + 1) * sizeof *nodes);
	Arg *args = mem_alloc_big((total + 1) * sizeof *args);
	nodes[0] = g->nodes[0];
	for (NodeId n = 1; n < nn; n++) {
		const Node *p = &g->nodes[n];
		if (p->op)
			continue;
		for (uint32_t k = 0; k < p->nout && p->out + k < g->nvals; k++)
			g->vals[p->out + k].def = 0;
	}
	uint32_t na = 0;
	for (uint32_t i = 0; i < norder; i++) {
		Node p = g->nodes[order[i]];
		if (p.nargs)
			memcpy(&args[na], &g->args[p.args],
			    p.nargs * sizeof *args);
		p.args = na;
		na += p.nargs;
		nodes[i + 1] = p;
		for (uint32_t k = 0; k < p.nout && p.out + k < g->nvals; k++)
			g->vals[p.out + k].def = i + 1;
	}
	free(g->nodes);
	free(g->args);
	g->nodes = nodes;
	g->nnodes = g->cnodes = norder + 1;
	g->args = args;
	g->nargs = na;
	g->cargs = total + 1;
out:
	free(start);
	free(state);
	free(order);
	free(stack);
	free(z.deps);
	return z.bad ? -1 : 0;
}
