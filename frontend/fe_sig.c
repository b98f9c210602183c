/* fe_sig.c - a graph signature (what the dump's "Graph signature:"
 * section or an archive's GraphSignature says of each placeholder and
 * output) applied to the main graph: roles, targets and output kinds. */
#include <stdlib.h>
#include <string.h>

#include "fe.h"

void
fe_sig_add(Sig *s, bool out, SigEntry e)
{
	if (out) {
		vgrow((void **)&s->out, &s->cout, s->nout + 1, sizeof *s->out);
		s->out[s->nout++] = e;
	} else {
		vgrow((void **)&s->in, &s->cin, s->nin + 1, sizeof *s->in);
		s->in[s->nin++] = e;
	}
}

/* Without a signature (gm.print_readable()), the placeholder prefixes
 * tell parameters (p_), buffers (b_) and lifted constants (c_). */
static void
byprefix(Module *m, Graph *g)
{
	static const struct {
		const char *prefix;
		uint8_t role;
	} pre[] = {
		{"p_", ROLE_PARAM}, {"b_", ROLE_BUFFER}, {"c_", ROLE_CONST},
	};
	for (uint32_t i = 0; i < g->ninputs; i++) {
		Value *v = ir_val(g, g->inputs[i]);
		const char *name = ir_str(m, v->name);
		for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++) {
			if (strncmp(name, pre[k].prefix, 2) != 0 || !name[2])
				continue;
			v->role = pre[k].role;
			v->target = ir_intern(m, name + 2);
		}
	}
}

int
fe_sig_apply(Module *m, const Sig *s, GraphId main)
{
	Graph *g = ir_graph(m, main);
	int errs = m->nerrors;
	if (!s->present) {
		byprefix(m, g);
		return 0;
	}
	/* names -> inputs once: a signature entry per input must stay
	 * linear for exports with many thousands of weights */
	StrMap inputs = {0};
	for (uint32_t i = 0; i < g->ninputs; i++)
		fe_map_set(&inputs, ir_val(g, g->inputs[i])->name,
		    g->inputs[i]);
	for (uint32_t i = 0; i < s->nin; i++) {
		const SigEntry *e = &s->in[i];
		if (!e->name)
			continue;
		ValId v = fe_map_get(&inputs, e->name);
		if (!v) {
			ir_error(m, e->loc, "the graph signature names '%s', "
			    "which is not a placeholder of forward()",
			    ir_str(m, e->name));
			continue;
		}
		Value *val = ir_val(g, v);
		val->role = e->kind;
		val->target = e->target;
		val->persist = e->persist;
	}
	fe_map_free(&inputs);
	if (s->bynames) {
		StrMap outs = {0}; /* signature output name -> index + 1 */
		for (uint32_t k = 0; k < s->nout; k++)
			fe_map_set(&outs, s->out[k].name, k + 1);
		for (uint32_t i = 0; i < g->noutputs; i++) {
			uint32_t k = fe_map_get(&outs,
			    ir_val(g, g->outputs[i])->name);
			if (!k)
				continue;
			g->outkind[i] = s->out[k - 1].kind;
			g->outtarget[i] = s->out[k - 1].target;
		}
		fe_map_free(&outs);
		return m->nerrors == errs ? 0 : -1;
	}
	if (s->nout != g->noutputs && s->lost)
		return -1;
	if (s->nout != g->noutputs) {
		ir_error(m, s->loc, "the graph signature lists %u outputs but "
		    "forward() returns %u", s->nout, g->noutputs);
		return -1;
	}
	for (uint32_t i = 0; i < s->nout; i++) {
		const SigEntry *e = &s->out[i];
		StrId name = ir_val(g, g->outputs[i])->name;
		if (e->name && e->name != name)
			ir_warning(m, e->loc, "signature output %u is '%s' but "
			    "forward() returns '%s' there", i,
			    ir_str(m, e->name), ir_str(m, name));
		g->outkind[i] = e->kind;
		g->outtarget[i] = e->target;
	}
	return m->nerrors == errs ? 0 : -1;
}

void
fe_sig_free(Sig *s)
{
	free(s->in);
	free(s->out);
	memset(s, 0, sizeof *s);
}
