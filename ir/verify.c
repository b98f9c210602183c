/* verify.c - structural invariants of a graph and of the subgraphs its
 * nodes hold (at every level), checked between passes.  A broken
 * invariant is a bug in a pass, reported as an error so the driver stops
 * before writing anything. */
#include <stdlib.h>

#include "ir.h"

typedef struct Check {
	Module *m;
	GraphId gid;
	const Graph *g;
	uint8_t *defined; /* per value: available at this point */
	uint32_t ncapture; /* captures of the node owning the graph */
	int depth;         /* subgraph nesting */
	int bad;
} Check;

/* Subgraphs nested deeper than this are not a real program (or a cycle). */
enum { MAXNEST = 64 };

static int verify_graph(Module *m, GraphId gid, const Graph *owner,
    NodeId on, int depth);

static void
fail(Check *c, NodeId n, const char *what, uint32_t x)
{
	const Node *p = n ? ir_nodep(c->g, n) : NULL;
	ir_error(c->m, p ? p->loc : (Loc){0},
	    "internal: invalid IR in graph '%s'%s%s: %s (%u)",
	    ir_str(c->m, c->g->name), p ? " at node " : "",
	    p ? ir_str(c->m, p->op) : "", what, x);
	c->bad++;
}

static void
check_arg(Check *c, NodeId n, const Arg *a, int depth)
{
	const Graph *g = c->g;
	switch (a->kind) {
	case A_VAL:
		if (a->u.v == 0 || a->u.v >= g->nvals)
			fail(c, n, "argument names no value", a->u.v);
		else if (!c->defined[a->u.v])
			fail(c, n, "value used before its definition", a->u.v);
		break;
	case A_LIST:
	case A_TUPLE:
		if ((uint64_t)a->u.list.off + a->u.list.n > g->nitems) {
			fail(c, n, "list outside the item table", a->u.list.off);
			break;
		}
		if (depth > 64) {
			fail(c, n, "lists nested too deeply", (uint32_t)depth);
			break;
		}
		for (uint32_t i = 0; i < a->u.list.n; i++)
			check_arg(c, n, &g->items[a->u.list.off + i], depth + 1);
		break;
	case A_GRAPH:
		if (a->u.g == 0 || a->u.g >= c->m->ngraphs)
			fail(c, n, "argument names no graph", a->u.g);
		else if (c->depth >= MAXNEST)
			fail(c, n, "subgraphs nested too deeply", a->u.g);
		else if (ir_nodep(g, n)->dialect == D_ONNX &&
		    c->m->graphs[a->u.g]->parent != c->gid)
			fail(c, n, "subgraph of another graph", a->u.g);
		else if (verify_graph(c->m, a->u.g, g, n, c->depth + 1) < 0)
			c->bad++;
		break;
	case A_TENSOR:
		if (a->u.t == 0 || a->u.t >= c->m->ntensors)
			fail(c, n, "argument names no tensor", a->u.t);
		break;
	case A_STR: case A_DEVICE: case A_LAYOUT: case A_MEMFMT: case A_OP:
		if (a->u.s >= c->m->nstrs)
			fail(c, n, "argument names no string", a->u.s);
		break;
	case A_NONE: case A_INT: case A_FLOAT: case A_BOOL: case A_DTYPE:
		break;
	default:
		fail(c, n, "unknown argument kind", a->kind);
	}
}

static void
check_value(Check *c, ValId v)
{
	const Value *p = &c->g->vals[v];
	if (p->rank < -1)
		fail(c, p->def, "negative rank", v);
	if (p->rank > 0 && (uint64_t)p->dims + (uint64_t)p->rank > c->g->ndims)
		fail(c, p->def, "dims outside the dim table", v);
	if (p->kind == VK_TENSOR && p->dtype >= DT_COUNT)
		fail(c, p->def, "unknown element type", v);
	if (p->def >= c->g->nnodes)
		fail(c, 0, "value defined by no node", v);
	if (p->init && p->init >= c->m->ntensors)
		fail(c, 0, "initializer names no tensor", v);
}

/* Captures of node on of graph owner (NULL: none). */
static uint32_t
captures(const Graph *owner, NodeId on)
{
	uint32_t k = 0;
	if (!owner)
		return 0;
	for (uint32_t i = 0; i < ir_nodep(owner, on)->nargs; i++)
		k += ir_is_capture(owner, on, ir_arg(owner, on, i));
	return k;
}

/* Graph gid, owned by node on of owner (NULL for a top-level graph). */
static int
verify_graph(Module *m, GraphId gid, const Graph *owner, NodeId on,
    int depth)
{
	Check c = {.m = m, .gid = gid, .g = ir_graph(m, gid), .depth = depth,
	    .ncapture = captures(owner, on)};
	const Graph *g = c.g;
	c.defined = calloc(g->nvals + 1, 1);
	if (!c.defined)
		ir_oom(0);
	for (ValId v = 1; v < g->nvals; v++) {
		check_value(&c, v);
		if (g->vals[v].role != ROLE_OUTER)
			continue;
		if (g->vals[v].def || g->vals[v].defidx >= c.ncapture)
			fail(&c, 0, "outer-scope value that is no capture of "
			    "the node owning the graph", v);
		c.defined[v] = 1;
	}
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		if (v == 0 || v >= g->nvals || g->vals[v].def) {
			fail(&c, 0, "graph input is not a free value", v);
			continue;
		}
		c.defined[v] = 1;
	}
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = &g->nodes[n];
		if (!p->op || p->op >= m->nstrs)
			fail(&c, 0, "node without an op", n);
		if ((uint64_t)p->args + p->nargs > g->nargs) {
			fail(&c, n, "args outside the arg table", p->args);
			continue;
		}
		bool keyed = false;
		for (uint32_t k = 0; k < p->nargs; k++) {
			const Arg *a = &g->args[p->args + k];
			if (a->key)
				keyed = true;
			else if (keyed)
				fail(&c, n, "positional argument after a "
				    "keyword", k);
			if (p->dialect == D_ONNX && !a->key &&
			    a->kind != A_VAL && a->kind != A_NONE)
				fail(&c, n, "ONNX input that is not a value", k);
			check_arg(&c, n, a, 0);
		}
		if ((uint64_t)p->out + p->nout > g->nvals) {
			fail(&c, n, "outputs outside the value table", p->out);
			continue;
		}
		for (uint32_t k = 0; k < p->nout; k++) {
			const Value *v = &g->vals[p->out + k];
			if (v->def != n || v->defidx != k)
				fail(&c, n, "output not linked to its node", k);
			c.defined[p->out + k] = 1;
		}
	}
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		if (v == 0 || v >= g->nvals || !c.defined[v])
			fail(&c, 0, "graph output is not defined", v);
	}
	free(c.defined);
	return c.bad ? -1 : 0;
}

int
ir_verify(Module *m, GraphId gid)
{
	return verify_graph(m, gid, NULL, 0, 0);
}
