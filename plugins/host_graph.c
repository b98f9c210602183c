/* host_graph.c - the host functions of ABI 1.4 (onnxc_host_api): graphs
 * that nest (a new graph, its parent, its inputs) and graph outputs with
 * their kinds.  Like host_edit.c, each change marks its graph (pl_mutable)
 * so the pass manager normalizes and verifies it after the pass.  ABI 1.5:
 * the ops of a graph and its bodies (graph_ops).  ABI 1.8: a program's
 * text read into graphs of the module by the dump frontend (graph_parse). */
#include <string.h>

#include "../frontend/fx.h"
#include "host.h"

_Static_assert((int)ONNXC_OUT_USER == (int)OUT_USER &&
    (int)ONNXC_OUT_TOKEN == (int)OUT_TOKEN &&
    (int)ONNXC_OUT_PARAM_MUTATION == (int)OUT_PARAM_MUTATION,
    "output kinds follow OutKind");

onnxc_graph
h_graph_new(onnxc_ctx *c, const char *name, onnxc_graph parent)
{
	/* the same rule as pl_mutable: inside a pass, not in a lowering */
	if (!c || !c->pass || c->site || !pl_okname(name) ||
	    (parent && !pl_graph_of(c, parent)))
		return 0;
	GraphId g = ir_graph_new(c->m, name, parent);
	pl_mutable(c, g);
	return g;
}

/* The frontend reads m->src and reports under m->file, and sets m->main
 * and the ranges of a whole program: those of the program being compiled
 * are put back, whatever the text held. */
onnxc_graph
h_graph_parse(onnxc_ctx *c, const char *name, const char *text, size_t len)
{
	if (!c || !c->pass || c->site || !name || !*name || (!text && len))
		return 0;
	Module *m = c->m;
	const char *file = m->file, *src = m->src;
	size_t srclen = m->srclen;
	GraphId main = m->main;
	StrId ranges = m->ranges;
	m->file = name;
	m->src = text;
	m->srclen = len;
	GraphId g = 0;
	if (fx_parse(m, &g) < 0)
		g = 0;
	m->file = file;
	m->src = src;
	m->srclen = srclen;
	m->main = main;
	m->ranges = ranges;
	return g;
}

onnxc_graph
h_graph_parent(onnxc_ctx *c, onnxc_graph g)
{
	const Graph *G = pl_graph_of(c, g);
	return G ? G->parent : 0;
}

onnxc_value
h_input_add(onnxc_ctx *c, onnxc_graph g, const char *name, uint32_t role,
    uint32_t index)
{
	Graph *G = pl_mutable(c, g);
	/* outer values only in a subgraph; constants come from
	 * constant_input, which binds their bytes */
	if (!G || !pl_okname(name) || role == ONNXC_ROLE_NONE ||
	    role == ONNXC_ROLE_CONST || role > ONNXC_ROLE_OUTER ||
	    (role == ONNXC_ROLE_OUTER && !G->parent))
		return 0;
	ValId v = ir_value(G, ir_intern(c->m, name));
	Value *p = ir_val(G, v);
	p->role = (uint8_t)role;
	if (role == ONNXC_ROLE_OUTER)
		p->defidx = index;  /* not a graph input: ONNX scoping */
	else
		ir_add_input(G, v);
	return v;
}

onnxc_status
h_output_add(onnxc_ctx *c, onnxc_graph g, onnxc_value v, uint32_t kind,
    onnxc_str target)
{
	Graph *G = pl_mutable(c, g);
	if (!G || !pl_okval(G, v) || kind > ONNXC_OUT_PARAM_MUTATION ||
	    target >= c->m->nstrs)
		return ONNXC_INVALID;
	ir_add_output(G, v, (OutKind)kind, target);
	uint32_t *u = pl_uses(c, g, false);
	if (u)
		u[v]++;
	return ONNXC_OK;
}

onnxc_status
h_output_kind(onnxc_ctx *c, onnxc_graph g, uint32_t i, uint32_t *kind,
    onnxc_str *target)
{
	const Graph *G = pl_graph_of(c, g);
	if (!G || i >= G->noutputs)
		return ONNXC_INVALID;
	if (kind)
		*kind = G->outkind[i];
	if (target)
		*target = G->outtarget[i];
	return ONNXC_OK;
}

onnxc_status
h_output_set_kind(onnxc_ctx *c, onnxc_graph g, uint32_t i, uint32_t kind,
    onnxc_str target)
{
	Graph *G = pl_mutable(c, g);
	if (!G || i >= G->noutputs || kind > ONNXC_OUT_PARAM_MUTATION ||
	    target >= c->m->nstrs)
		return ONNXC_INVALID;
	G->outkind[i] = (uint8_t)kind;
	G->outtarget[i] = target;
	return ONNXC_OK;
}

/* ------------------------------------------------------------ ABI 1.5 */

/* A set of op handles by open addressing, kept at most half full; ops
 * also lists the first cap of them in the order they were met. */
typedef struct OpSet {
	Arena *a;
	StrId *slot;         /* 0: empty */
	uint32_t mask, n, cap;
	onnxc_str *ops;
} OpSet;

static uint32_t
slot_of(StrId op, uint32_t mask)
{
	return (uint32_t)(op * 2654435761u >> 7) & mask;
}

static void
add_op(OpSet *s, StrId op)
{
	uint32_t i = slot_of(op, s->mask);
	for (; s->slot[i]; i = (i + 1) & s->mask)
		if (s->slot[i] == op)
			return;
	if (2 * (s->n + 1) > s->mask + 1) {
		uint32_t mask = 2 * s->mask + 1;
		StrId *t = arena_array(s->a, (size_t)mask + 1, sizeof *t);
		for (uint32_t k = 0; k <= s->mask; k++)
			if (s->slot[k]) {
				uint32_t j = slot_of(s->slot[k], mask);
				while (t[j])
					j = (j + 1) & mask;
				t[j] = s->slot[k];
			}
		s->slot = t;
		s->mask = mask;
		for (i = slot_of(op, mask); s->slot[i]; i = (i + 1) & mask)
			;
	}
	s->slot[i] = op;
	if (s->n < s->cap)
		s->ops[s->n] = op;
	s->n++;
}

uint32_t
h_graph_ops(onnxc_ctx *c, onnxc_graph g, onnxc_str *ops, uint32_t cap)
{
	if (!pl_graph_of(c, g) || (cap && !ops))
		return 0;
	Module *m = c->m;
	ArenaMark mk = arena_mark(m->scratch);
	OpSet s = {.a = m->scratch, .mask = 63, .cap = cap, .ops = ops};
	s.slot = arena_array(m->scratch, s.mask + 1, sizeof *s.slot);
	/* a worklist, not recursion: bodies nest to any depth, each graph
	 * is read once however many nodes take it */
	uint8_t *seen = arena_alloc(m->scratch, m->ngraphs + 1);
	GraphId *todo = arena_array(m->scratch, m->ngraphs + 1, sizeof *todo);
	uint32_t ntodo = 0;
	todo[ntodo++] = g;
	seen[g] = 1;
	while (ntodo) {
		const Graph *G = m->graphs[todo[--ntodo]];
		StrId recent[16] = {0}; /* a graph repeats a few ops */
		for (NodeId n = 1; n < G->nnodes; n++) {
			const Node *p = &G->nodes[n];
			if (!p->op)
				continue;   /* erased */
			if (recent[p->op & 15] != p->op) {
				add_op(&s, p->op);
				recent[p->op & 15] = p->op;
			}
			const Arg *a = &G->args[p->args];
			for (uint32_t k = 0; k < p->nargs; k++)
				if (a[k].kind == A_GRAPH && a[k].u.g > 0 &&
				    a[k].u.g < m->ngraphs && !seen[a[k].u.g]) {
					seen[a[k].u.g] = 1;
					todo[ntodo++] = a[k].u.g;
				}
		}
	}
	arena_release(m->scratch, mk);
	return s.n;
}
