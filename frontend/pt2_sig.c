/* pt2_sig.c - a .pt2 program's graph signature (input and output kinds
 * and targets, applied by fe_sig_apply as the dump's are) and its range
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
		json_err(m, list, "the graph signature needs %s",
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
			json_err(m, &list->kids[i], "unknown %s spec",
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
		fe_sig_add(s, !in, e);
	}
	return 0;
}

/* A bound of a range constraint: an integer, or null / absent for an
 * unbounded side (schema.py's Optional[int]). */
static bool
bound(Module *m, const JVal *b, char *buf, size_t cap, const char *inf)
{
	if (!b || b->kind == J_NULL) {
		snprintf(buf, cap, "%s", inf);
		return true;
	}
	if (!b->isint) {
		json_err(m, b, "a range bound must be an integer or null");
		return false;
	}
	snprintf(buf, cap, "%lld", (long long)b->i);
	return true;
}

/* range_constraints {"s0": {"min_val": 2, "max_val": 64}} as the dump
 * prints them, into Module.ranges and the range table, checked as the
 * dump's are (a lower bound above the upper is impossible). */
static int
ranges(Module *m, const JVal *rc)
{
	if (!rc)
		return 0;
	if (!json_is(rc, J_OBJ)) {
		json_err(m, rc, "range_constraints must be an object");
		return -1;
	}
	size_t cap = 3;
	for (uint32_t i = 0; i < rc->n; i++)
		cap += (size_t)rc->kids[i].klen + 64;
	char *buf = xrealloc(NULL, cap);
	size_t n = str_addf(buf, cap, 0, "{");
	int res = 0;
	for (uint32_t i = 0; i < rc->n && res == 0; i++) {
		const JVal *r = &rc->kids[i];
		char l[32], h[32];
		if (!json_is(r, J_OBJ)) {
			json_err(m, r, "a range constraint must be an object "
			    "with min_val and max_val");
			res = -1;
		} else if (!bound(m, json_get(r, "min_val"), l, sizeof l,
		    "-int_oo") || !bound(m, json_get(r, "max_val"), h,
		    sizeof h, "int_oo")) {
			res = -1;
		} else {
			n = str_addf(buf, cap, n, "%s%.*s: VR[%s, %s]",
			    i ? ", " : "", (int)r->klen, r->key, l, h);
		}
	}
	n = str_addf(buf, cap, n, "}");
	size_t err = 0;
	if (res == 0 && n < cap) {
		m->ranges = ir_internn(m, buf, n);
		if (sym_parse_ranges(m, buf, n, &err) < 0) {
			json_err(m, rc, "range constraints not understood");
			res = -1;
		}
	}
	ExprId bad;
	const char *why = res == 0 ? sym_check_ranges(m, &bad) : NULL;
	if (why) {
		char eb[128];
		ir_expr_print(m, bad, eb, sizeof eb);
		json_err(m, rc, "impossible range constraint on '%s': %s", eb,
		    why);
		res = -1;
	}
	free(buf);
	return res;
}

/* torch.export's signature has one input spec per placeholder: a
 * placeholder without one would silently become a user input (a weight
 * the caller must feed), one named twice would take two roles. */
static int
inputs_covered(Module *m, const JVal *sig, const Sig *s, const Graph *g)
{
	if (s->nin != g->ninputs) {
		json_err(m, sig, "the graph signature lists %u inputs but the "
		    "graph has %u placeholders", s->nin, g->ninputs);
		return -1;
	}
	StrMap seen = {0};
	int rc = 0;
	for (uint32_t i = 0; i < s->nin && rc == 0; i++) {
		StrId n = s->in[i].name;
		if (!n) {
			ir_error(m, s->in[i].loc, "input spec %u names no "
			    "placeholder", i);
			rc = -1;
		} else if (fe_map_get(&seen, n)) {
			ir_error(m, s->in[i].loc, "the graph signature names "
			    "placeholder '%s' twice", ir_str(m, n));
			rc = -1;
		}
		fe_map_set(&seen, n, 1);
	}
	fe_map_free(&seen);
	return rc;
}

int
pt2_graph(Module *m, const JVal *prog, GraphId *out)
{
	int errs = m->nerrors;
	const JVal *gm = json_get(prog, "graph_module");
	const JVal *sig = json_get(gm, "signature");
	if (!json_is(gm, J_OBJ) || !json_is(sig, J_OBJ)) {
		json_err(m, gm ? gm : prog, "expected graph_module with a "
		    "graph and a signature");
		return -1;
	}
	GraphId main;
	if (pt2_build(m, json_get(gm, "graph"), "GraphModule", 0, 0, &main) < 0)
		return -1;
	Sig s = {.present = true, .loc = sig->loc};
	if (specs(m, json_get(sig, "input_specs"), true, &s) == 0 &&
	    specs(m, json_get(sig, "output_specs"), false, &s) == 0 &&
	    inputs_covered(m, sig, &s, ir_graph(m, main)) == 0)
		fe_sig_apply(m, &s, main);
	fe_sig_free(&s);
	ranges(m, json_get(prog, "range_constraints"));
	if (m->nerrors != errs)
		return -1;
	m->main = main;
	*out = main;
	return 0;
}
