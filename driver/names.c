/* names.c - --input-names and --output-names: the model's user inputs and
 * outputs renamed in order, as torch.onnx.export's input_names and
 * output_names do (the old name kept as original_node_name metadata). */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static int
names_error(const char *flag, const char *text, const char *why)
{
	fprintf(stderr, "onnxc: error: %s '%s': %s\n", flag, text, why);
	return -1;
}

int
dr_names_parse(const char *flag, const char *text, DrNames *out)
{
	dr_names_free(out);
	size_t len = strlen(text);
	out->buf = xrealloc(NULL, len + 1);
	memcpy(out->buf, text, len + 1);
	uint32_t cnt = 1;
	for (const char *p = text; *p; p++)
		cnt += *p == ',';
	out->v = xrealloc(NULL, cnt * sizeof *out->v);
	for (char *s = out->buf;;) {
		char *c = strchr(s, ',');
		if (c)
			*c = 0;
		if (!*s)
			return names_error(flag, text, "a name is empty");
		for (uint32_t k = 0; k < out->n; k++)
			if (!strcmp(out->v[k], s))
				return names_error(flag, text, "a name is "
				    "given twice");
		out->v[out->n++] = s;
		if (!c)
			break;
		s = c + 1;
	}
	return 0;
}

void
dr_names_free(DrNames *n)
{
	free(n->buf);
	free(n->v);
	*n = (DrNames){0};
}

/* A user input ONNX or the FX graph has as a graph input. */
static bool
user_input(const Value *v)
{
	return v->role == ROLE_USER_INPUT && (v->kind == VK_TENSOR ||
	    v->kind == VK_SYMINT || v->kind == VK_SYMFLOAT ||
	    v->kind == VK_SYMBOOL);
}

/* The i-th user input of g, or 0. */
static ValId
nth_input(const Graph *g, uint32_t i)
{
	for (uint32_t k = 0; k < g->ninputs; k++)
		if (user_input(ir_val(g, g->inputs[k])) && i-- == 0)
			return g->inputs[k];
	return 0;
}

static uint32_t
count_user(const Graph *g, bool outputs)
{
	uint32_t n = 0;
	if (outputs) {
		for (uint32_t k = 0; k < g->noutputs; k++)
			n += g->outkind[k] == OUT_USER;
	} else {
		for (uint32_t k = 0; k < g->ninputs; k++)
			n += user_input(ir_val(g, g->inputs[k]));
	}
	return n;
}

static const char *
list_names(Module *m, const Graph *g, bool outputs, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	uint32_t lim = outputs ? g->noutputs : g->ninputs;
	for (uint32_t k = 0; k < lim && n < cap; k++) {
		ValId v = outputs ? g->outputs[k] : g->inputs[k];
		if (outputs ? g->outkind[k] != OUT_USER
		    : !user_input(ir_val(g, v)))
			continue;
		int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "",
		    ir_str(m, ir_val(g, v)->name));
		n += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

static int
rename_side(Module *m, Graph *g, const DrNames *nm, bool outputs,
    uint8_t *taken, uint32_t ntaken)
{
	const char *flag = outputs ? "--output-names" : "--input-names";
	uint32_t have = count_user(g, outputs);
	if (nm->n > have) {
		char list[512];
		fprintf(stderr, "onnxc: error: %s gives %u names, but the "
		    "model has %u user %s (%s)\n", flag, nm->n, have,
		    outputs ? "outputs" : "inputs",
		    list_names(m, g, outputs, list, sizeof list));
		return -1;
	}
	uint32_t i = 0;
	uint32_t lim = outputs ? g->noutputs : g->ninputs;
	for (uint32_t k = 0; k < lim && i < nm->n; k++) {
		ValId v = outputs ? g->outputs[k] : g->inputs[k];
		Value *val = ir_val(g, v);
		if (outputs ? g->outkind[k] != OUT_USER : !user_input(val))
			continue;
		StrId s = ir_intern(m, nm->v[i++]);
		if (s == val->name)
			continue;
		if (s < ntaken && taken[s]) {
			fprintf(stderr, "onnxc: error: %s: '%s' is already "
			    "the name of another value of the model\n", flag,
			    ir_str(m, s));
			return -1;
		}
		if (!val->orig)
			val->orig = val->name;
		val->name = s;
	}
	return 0;
}

int
dr_rename(Module *m, Graph *g, const DrNames *in, const DrNames *out)
{
	if (!in->n && !out->n)
		return 0;
	/* every name in use, so a new name cannot capture another value;
	 * strings interned from here on are beyond the table: not taken */
	for (uint32_t k = 0; k < in->n; k++)
		ir_intern(m, in->v[k]);
	for (uint32_t k = 0; k < out->n; k++)
		ir_intern(m, out->v[k]);
	uint32_t ntaken = m->nstrs;
	uint8_t *taken = calloc(ntaken + 1, 1);
	if (!taken)
		ir_oom(0);
	for (ValId v = 1; v < g->nvals; v++)
		if (g->vals[v].name < ntaken)
			taken[g->vals[v].name] = 1;
	/* a value being renamed frees its name for another one only if
	 * that one is renamed too; keeping it taken is the simple rule */
	int rc = rename_side(m, g, in, false, taken, ntaken);
	if (rc == 0)
		rc = rename_side(m, g, out, true, taken, ntaken);
	free(taken);
	return rc;
}

void
dr_names_dynamic(Module *m, const Graph *fx, const DrNames *in, char *buf,
    size_t cap)
{
	if (!in->n || !*buf)
		return;
	char *out = xrealloc(NULL, cap);
	size_t n = 0;
	bool fits = true;
	out[0] = 0;
	for (char *s = buf; *s;) {
		char *end = s + strcspn(s, ",");
		char *eq = memchr(s, '=', (size_t)(end - s));
		char *colon = s;
		for (char *p = s; eq && p < eq; p++)
			if (*p == ':')
				colon = p;
		const char *name = NULL;
		for (uint32_t k = 0; colon > s && k < in->n; k++) {
			if (strlen(in->v[k]) != (size_t)(colon - s) ||
			    memcmp(in->v[k], s, (size_t)(colon - s)))
				continue;
			ValId v = nth_input(fx, k);
			if (v)
				name = ir_str(m, ir_val(fx, v)->name);
		}
		int w = snprintf(out + n, cap - n, "%s%s%.*s", n ? "," : "",
		    name ? name : "", (int)(end - (name ? colon : s)),
		    name ? colon : s);
		if (w < 0 || (size_t)w >= cap - n) {
			fits = false;   /* too long: left as given */
			break;
		}
		n += (size_t)w;
		s = *end ? end + 1 : end;
	}
	if (fits)
		memcpy(buf, out, n + 1);
	free(out);
}
