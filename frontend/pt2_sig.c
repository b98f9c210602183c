/* pt2_sig.c - a .pt2 program's graph signature (input and output kinds
 * and targets, through the dump parser's fx_apply_sig) and its range
 * constraints, and the entry point that builds the whole program. */
#include <stdlib.h>
#include <string.h>

#include "pt2_int.h"

static const struct {
	const char *key, *target;
	uint8_t kind;
} inspecs[] = {
	{"user_input", NULL, ROLE_USER_INPUT},
	{"parameter", "parameter_name", ROLE_PARAM},
	{"buffer", "buffer_name", ROLE_BUFFER},
	{"tensor_constant", "tensor_constant_name", ROLE_CONST},
	{"custom_obj", "custom_obj_name", ROLE_CUSTOM_OBJ},
	{"token", NULL, ROLE_TOKEN},
}, outspecs[] = {
	{"user_output", NULL, OUT_USER},
	{"loss_output", NULL, OUT_LOSS},
	{"buffer_mutation", "buffer_name", OUT_BUFFER_MUTATION},
	{"gradient_to_parameter", "parameter_name", OUT_GRAD_PARAM},
	{"gradient_to_user_input", "user_input_name", OUT_GRAD_INPUT},
	{"user_input_mutation", "user_input_name", OUT_USER_INPUT_MUTATION},
	{"token", NULL, OUT_TOKEN},
	{"parameter_mutation", "parameter_name", OUT_PARAM_MUTATION},
};

/* InputSpec/OutputSpec lists into the dump reader's Sig. */
static int
specs(Module *m, const JVal *list, bool in, Sig *s)
{
	if (!json_is(list, J_ARR)) {
		pt2_err(m, list, "the graph signature needs %s",
		    in ? "input_specs" : "output_specs");
		return -1;
	}
	size_t nt = in ? sizeof inspecs / sizeof inspecs[0] :
	    sizeof outspecs / sizeof outspecs[0];
	for (uint32_t i = 0; i < list->n; i++) {
		const char *k;
		const JVal *u = pt2_union(&list->kids[i], &k);
		size_t t = 0;
		while (u && t < nt && strcmp((in ? inspecs : outspecs)[t].key,
		    k))
			t++;
		if (!u || t == nt) {
			pt2_err(m, &list->kids[i], "unknown %s spec",
			    in ? "input" : "output");
			return -1;
		}
		const char *tk = (in ? inspecs : outspecs)[t].target;
		const JVal *a = json_get(u, "arg");
		const char *ak;
		const JVal *au = pt2_union(a, &ak);
		StrId name = pt2_refname(m, a);
		if (!name && au)
			name = au->kind == J_STR ? pt2_jname(m, au) :
			    pt2_refname(m, au);
		SigEntry e = {.name = name, .kind = (in ? inspecs :
			outspecs)[t].kind, .loc = list->kids[i].loc,
			.target = tk ? pt2_jname(m, json_get(u, tk)) : 0};
		const JVal *pers = json_get(u, "persistent");
		if (in && e.kind == ROLE_BUFFER && json_is(pers, J_BOOL))
			e.persist = pers->b ? PERSIST_YES : PERSIST_NO;
		if (in) {
			vgrow((void **)&s->in, &s->cin, s->nin + 1,
			    sizeof *s->in);
			s->in[s->nin++] = e;
		} else {
			vgrow((void **)&s->out, &s->cout, s->nout + 1,
			    sizeof *s->out);
			s->out[s->nout++] = e;
		}
	}
	return 0;
}

/* range_constraints {"s0": {"min_val": 2, "max_val": 64}} as the dump
 * prints them, into Module.ranges and the range table. */
static int
ranges(Module *m, const JVal *rc)
{
	if (!rc)
		return 0;
	if (!json_is(rc, J_OBJ)) {
		pt2_err(m, rc, "range_constraints must be an object");
		return -1;
	}
	size_t cap = 64 + (size_t)rc->n * 96, n = 0;
	char *buf = malloc(cap);
	n += (size_t)snprintf(buf, cap, "{");
	for (uint32_t i = 0; i < rc->n; i++) {
		const JVal *r = &rc->kids[i], *lo = json_get(r, "min_val"),
		    *hi = json_get(r, "max_val");
		char l[32] = "-int_oo", h[32] = "int_oo";
		if (lo && lo->isint)
			snprintf(l, sizeof l, "%lld", (long long)lo->i);
		if (hi && hi->isint)
			snprintf(h, sizeof h, "%lld", (long long)hi->i);
		n += (size_t)snprintf(buf + n, cap - n, "%s%.*s: VR[%s, %s]",
		    i ? ", " : "", r->klen > 40 ? 40 : (int)r->klen, r->key,
		    l, h);
	}
	n += (size_t)snprintf(buf + n, cap - n, "}");
	size_t err = 0;
	int res = 0;
	m->ranges = ir_internn(m, buf, n);
	if (sym_parse_ranges(m, buf, n, &err) < 0) {
		pt2_err(m, rc, "range constraints not understood");
		res = -1;
	}
	free(buf);
	return res;
}

int
pt2_graph(Module *m, const JVal *prog, GraphId *out)
{
	int errs = m->nerrors;
	const JVal *gm = json_get(prog, "graph_module");
	const JVal *sig = json_get(gm, "signature");
	if (!json_is(gm, J_OBJ) || !json_is(sig, J_OBJ)) {
		pt2_err(m, gm ? gm : prog, "expected graph_module with a graph "
		    "and a signature");
		return -1;
	}
	GraphId main;
	if (pt2_build(m, json_get(gm, "graph"), "GraphModule", 0, 0, &main) < 0)
		return -1;
	Parser p = {.m = m};
	p.sig.present = true;
	p.sig.loc = sig->loc;
	if (specs(m, json_get(sig, "input_specs"), true, &p.sig) == 0 &&
	    specs(m, json_get(sig, "output_specs"), false, &p.sig) == 0)
		fx_apply_sig(&p, main);
	fx_sig_free(&p.sig);
	ranges(m, json_get(prog, "range_constraints"));
	if (m->nerrors != errs)
		return -1;
	m->main = main;
	*out = main;
	return 0;
}
