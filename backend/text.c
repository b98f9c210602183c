/* text.c - the text writer: a graph of D_ONNX nodes -> ONNX's textual
 * syntax, as onnx.printer writes it and onnx.parser (1.16+: node names in
 * [], quoted names) reads it, for reviewing and diffing models; the be_text
 * row of the writers' table (--emit text, or OUT.onnxtxt).
 *
 * Requires: a graph built by the lower pass, as onnx.c does.
 * Provides: a text that onnx.parser reads back as the model onnx.c writes
 * for the same options (tests/e2e/text_roundtrip.sh), except where the
 * syntax has no place (README, "Use"): metadata_props of graphs, nodes and
 * values are left out (as --no-metadata); a dim_param that is no
 * identifier ("2*s0") is written '?', its text in a comment on the line.
 * Weights are written as exact numbers (%.9g for float, %.17g for double,
 * the bit patterns of 16- and 8-bit floats as int32_data holds them), at
 * most TEXT_MAX_INLINE bytes of them: more is an error that names
 * --external-data (OUT.data in the ONNX writer's layout) and --no-weights.
 * How names, numbers and values are spelled is text_lex.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_int.h"

/* Tensor bytes written inline at most: 16 MiB makes a text of ~70 MB. */
#define TEXT_MAX_INLINE (UINT64_C(16) << 20)

/* ------------------------------------------------------------ prepare */

static bool
graph_name_ok(Txt *t, const Graph *g)
{
	const char *s = g->name ? ir_str(t->m, g->name) : "main_graph";
	if (!g->parent || (tx_is_ident(s) && !tx_is_reserved(s)))
		return true;
	/* a graph attribute's value starts with its name, unquoted */
	ir_error(t->m, (Loc){0, 0}, "subgraph '%s' cannot be written as "
	    "text: ONNX's syntax needs a plain identifier for it", s);
	return false;
}

static bool
note_domain(Txt *t, StrId d)
{
	const char *s = ir_str(t->m, d);
	for (const char *p = s; *p; p++)
		if (!(*p == '.' || *p == '_' || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) {
			ir_error(t->m, (Loc){0, 0}, "domain '%s' cannot be "
			    "written as text (ONNX's syntax spells it as "
			    "dotted identifiers)", s);
			return false;
		}
	if (!strcmp(s, "ai.onnx"))
		return true;     /* both spell the default domain */
	for (uint32_t i = 0; i < t->ndomains; i++)
		if (t->domains[i] == d)
			return true;
	vgrow((void **)&t->domains, &t->cdomains, t->ndomains + 1,
	    sizeof *t->domains);
	t->domains[t->ndomains++] = d;
	return true;
}

static bool prep_graph(Txt *t, GraphId gid);

static bool
prep_node(Txt *t, const Graph *g, NodeId id)
{
	Module *m = t->m;
	const Node *n = ir_nodep(g, id);
	if (n->dialect != D_ONNX || !tx_is_ident(ir_str(m, n->op))) {
		ir_error(m, (Loc){0, 0}, "internal error in the text backend: "
		    "node '%s' (%s) is no ONNX op", ir_str(m, n->name),
		    ir_str(m, n->op));
		return false;
	}
	if (n->domain && !note_domain(t, n->domain))
		return false;
	for (uint32_t i = ir_npos(g, id); i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (ir_is_capture(g, id, a))
			continue;
		bool ok = a->key && tx_is_ident(ir_str(m, a->key));
		if (ok && a->kind == A_TENSOR) {
			const Tensor *x = ir_tensorp(m, a->u.t);
			if (!be_tensor_check(m, x, NULL, "ONNX text", "text"))
				return false;
			t->inline_bytes += x->nbytes;
		} else if (ok && a->kind == A_GRAPH) {
			if (!prep_graph(t, a->u.g))
				return false;
		} else if (ok && (a->kind == A_LIST || a->kind == A_TUPLE)) {
			ok = be_list_kind(g, a) != BE_LIST_MIXED;
		} else if (ok) {
			ok = a->kind == A_INT || a->kind == A_BOOL ||
			    a->kind == A_DTYPE || a->kind == A_FLOAT ||
			    a->kind == A_STR;
		}
		if (!ok) {
			ir_error(m, (Loc){0, 0}, "internal error in the text "
			    "backend: attribute %u of %s cannot be written",
			    i, ir_str(m, n->op));
			return false;
		}
	}
	return true;
}

/* The checks of onnx_prep.c, in its order, so that initializers and
 * domains come in the ONNX writer's order. */
static bool
prep_graph(Txt *t, GraphId gid)
{
	Module *m = t->m;
	const Graph *g = ir_graph(m, gid);
	bool top = gid == m->main || !g->parent;
	if (!graph_name_ok(t, g))
		return false;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		const Value *v = ir_val(g, g->inputs[i]);
		StrId nm = be_value_name(m, gid, g, g->inputs[i]);
		if (v->init && !t->o->no_weights) {
			const Tensor *x = ir_tensorp(m, v->init);
			if (!be_tensor_check(m, x, ir_str(m, nm), "ONNX text",
			    "text"))
				return false;
			vgrow((void **)&t->inits, &t->cinits, t->ninits + 1,
			    sizeof *t->inits);
			t->inits[t->ninits++] = (BeInit){.t = x};
			if (!t->o->init_inputs)
				continue;
		}
		if (top && (v->kind != VK_TENSOR || v->dtype == DT_UNDEF)) {
			ir_error(m, (Loc){0, 0}, "graph input '%s' has no "
			    "tensor type", ir_str(m, nm));
			return false;
		}
	}
	for (NodeId n = 1; n < g->nnodes; n++)
		if (!prep_node(t, g, n))
			return false;
	for (uint32_t i = 0; top && i < g->noutputs; i++) {
		const Value *v = ir_val(g, g->outputs[i]);
		if (v->kind != VK_TENSOR || v->dtype == DT_UNDEF) {
			ir_error(m, (Loc){0, 0}, "graph output '%s' has no "
			    "tensor type", ir_str(m, be_value_name(m, gid, g,
			    g->outputs[i])));
			return false;
		}
	}
	return true;
}

/* -------------------------------------------------------------- types */

/* The tensor type of v, "float[s0,5]"; a dim whose dim_param is no
 * identifier is '?', its text added to *odd for a comment. */
static void
type(Txt *t, const Graph *g, ValId v, char *odd, size_t cap)
{
	const Value *p = ir_val(g, v);
	const Dim *d = ir_dims(g, v);
	tx_puts(t, tx_type_names[p->dtype] ? tx_type_names[p->dtype] : "undefined");
	if (p->rank < 0) {
		tx_puts(t, "[]");
		return;
	}
	for (int32_t i = 0; i < p->rank; i++) {
		tx_puts(t, i ? "," : "[");
		const Expr *x = d[i].e ? ir_exprp(t->m, d[i].e) : NULL;
		if (!x || x->kind == E_INT) {
			int64_t n = x ? x->n : d[i].n;
			if (x || n >= 0)
				tx_putf(t, "%lld", (long long)n);
			else
				tx_puts(t, "?");
			continue;
		}
		char small[128];
		int k = ir_expr_print(t->m, d[i].e, small, sizeof small);
		const char *s = k >= 0 && (size_t)k < sizeof small ? small
		    : ir_dim_text(t->m, d[i]);
		if (tx_is_ident(s)) {
			tx_puts(t, s);
			continue;
		}
		tx_puts(t, "?");
		size_t at = strlen(odd);
		snprintf(odd + at, cap - at, "%sdim %d is \"%s\"",
		    at ? ", " : "", i, s);
	}
	if (p->rank)
		tx_puts(t, "]");
}

/* A value-info "TYPE NAME" (just the name for an untyped value), then
 * sep, then a comment on dims the syntax cannot hold. */
static void
value(Txt *t, GraphId gid, const Graph *g, ValId v, const char *sep)
{
	const Value *p = ir_val(g, v);
	char odd[512] = "";
	if (p->kind == VK_TENSOR && p->dtype != DT_UNDEF) {
		type(t, g, v, odd, sizeof odd);
		tx_puts(t, " ");
	}
	tx_name(t, ir_str(t->m, be_value_name(t->m, gid, g, v)));
	tx_puts(t, sep);
	if (*odd) {
		tx_puts(t, "   # ");
		tx_puts(t, odd);
	}
}

/* An initializer "TYPE NAME = {...}", or its place in the data file. */
static void
initializer(Txt *t, const char *nm, const BeInit *in, int depth)
{
	tx_tensor_type(t, in->t);
	tx_puts(t, " ");
	tx_name(t, nm);
	tx_puts(t, " = ");
	if (!in->ext) {
		tx_values(t, in->t, depth);
		return;
	}
	tx_puts(t, "[\"location\": ");
	tx_quoted(t, t->location);
	tx_putf(t, ", \"offset\": \"%llu\", \"length\": \"%llu\"]",
	    (unsigned long long)in->off, (unsigned long long)in->t->nbytes);
}

/* ------------------------------------------------------------- graphs */

static void graph(Txt *t, GraphId gid, int depth);

static void
attribute(Txt *t, const Graph *g, const Arg *a, int depth)
{
	Module *m = t->m;
	tx_puts(t, ir_str(m, a->key));
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:   /* DType numbers are ONNX's: Cast(to=...) */
		tx_putf(t, ": int = %lld", (long long)a->u.i);
		break;
	case A_FLOAT:
		tx_puts(t, ": float = ");
		tx_number(t, (float)a->u.f, true, true);
		break;
	case A_STR:
		tx_puts(t, ": string = ");
		tx_quoted(t, ir_str(m, a->u.s));
		break;
	case A_TENSOR:
		tx_puts(t, ": tensor = ");
		tx_tensor_type(t, ir_tensorp(m, a->u.t));
		tx_puts(t, " ");
		tx_values(t, ir_tensorp(m, a->u.t), depth);
		break;
	case A_GRAPH:
		tx_puts(t, ": graph = ");
		graph(t, a->u.g, depth + 1);
		break;
	default: {      /* a list: prepare checked its kind */
		const Arg *it = ir_items(g, a);
		BeListKind k = be_list_kind(g, a);
		tx_puts(t, k == BE_LIST_INTS ? ": ints = [" : k == BE_LIST_FLOATS
		    ? ": floats = [" : ": strings = [");
		for (uint32_t i = 0; i < a->u.list.n; i++) {
			tx_puts(t, i ? ", " : "");
			if (k == BE_LIST_INTS)
				tx_putf(t, "%lld", (long long)it[i].u.i);
			else if (k == BE_LIST_FLOATS)
				tx_number(t, it[i].kind == A_FLOAT ? (float)it[i].u.f
				    : (float)it[i].u.i, true, true);
			else
				tx_quoted(t, ir_str(m, it[i].u.s));
		}
		tx_puts(t, "]");
	}
	}
}

/* "[name] outs = domain.Op <attrs> (ins)"; attributes holding a subgraph
 * go after the inputs, as onnx.printer puts them. */
static void
node(Txt *t, GraphId gid, const Graph *g, NodeId id, int depth)
{
	Module *m = t->m;
	const Node *n = ir_nodep(g, id);
	uint32_t npos = ir_npos(g, id), nin = npos;
	while (nin > 0 && ir_arg(g, id, nin - 1)->kind == A_NONE)
		nin--;
	char nb[BE_NODE_NAME_MAX];
	StrId nm = be_node_name(m, &t->names, n->name ? n->name : n->op);
	tx_indent(t, depth);
	tx_puts(t, "[");
	tx_name(t, be_node_text(m, nm, nb, NULL));
	tx_puts(t, "] ");
	for (uint32_t i = 0; i < n->nout; i++) {
		tx_puts(t, i ? ", " : "");
		tx_name(t, ir_str(m, be_value_name(m, gid, g, n->out + i)));
	}
	tx_puts(t, " = ");
	if (n->domain) {
		tx_puts(t, ir_str(m, n->domain));
		tx_puts(t, ".");
	}
	tx_puts(t, ir_str(m, n->op));
	bool sub = false, any = false;
	for (uint32_t i = npos; i < n->nargs; i++)
		if (!ir_is_capture(g, id, ir_arg(g, id, i))) {
			any = true;
			sub |= ir_arg(g, id, i)->kind == A_GRAPH;
		}
	for (int pass = 0; pass < 2; pass++) {
		if (any && pass == sub) {
			const char *sep = " <";
			for (uint32_t i = npos; i < n->nargs; i++) {
				const Arg *a = ir_arg(g, id, i);
				if (ir_is_capture(g, id, a))
					continue;
				tx_puts(t, sep);
				attribute(t, g, a, depth);
				sep = ", ";
			}
			tx_puts(t, ">");
		}
		if (pass == 0) {
			tx_puts(t, " (");
			for (uint32_t i = 0; i < nin; i++) {
				const Arg *a = ir_arg(g, id, i);
				tx_puts(t, i ? ", " : "");
				if (a->kind == A_VAL)
					tx_name(t, ir_str(m, be_value_name(m, gid,
					    g, a->u.v)));
				else
					tx_puts(t, "\"\"");
			}
			tx_puts(t, ")");
		}
	}
	tx_puts(t, "\n");
}

/* NAME (inputs) => (outputs) <initializers, value_info> {nodes}, one
 * value a line, so that a comment may follow it. */
static void
graph(Txt *t, GraphId gid, int depth)
{
	Module *m = t->m;
	const Graph *g = ir_graph(m, gid);
	bool weights = !t->o->no_weights, inputs = t->o->init_inputs;
	tx_name(t, g->name ? ir_str(m, g->name) : "main_graph");
	tx_puts(t, " (");
	/* the inputs shown: initializers only with --keep-initializers-as-
	 * inputs, then with their values */
	uint32_t first = t->next, k = first, ninit = 0, nshow = 0;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		bool init = ir_val(g, g->inputs[i])->init && weights;
		ninit += init;
		nshow += !init || inputs;
	}
	for (uint32_t i = 0, shown = 0; i < g->ninputs; i++) {
		bool init = ir_val(g, g->inputs[i])->init && weights;
		if (init && !inputs)
			continue;
		const char *sep = ++shown < nshow ? "," : "";
		tx_puts(t, "\n");
		tx_indent(t, depth + 1);
		if (!init) {
			value(t, gid, g, g->inputs[i], sep);
			continue;
		}
		initializer(t, ir_str(m, be_value_name(m, gid, g,
		    g->inputs[i])), &t->inits[k++], depth + 1);
		tx_puts(t, sep);
	}
	if (nshow) {
		tx_puts(t, "\n");
		tx_indent(t, depth);
	}
	tx_puts(t, ") => (");
	uint8_t *isout = xrealloc(NULL, g->nvals ? g->nvals : 1);
	memset(isout, 0, g->nvals ? g->nvals : 1);
	for (uint32_t i = 0; i < g->noutputs; i++) {
		isout[g->outputs[i]] = 1;
		tx_puts(t, "\n");
		tx_indent(t, depth + 1);
		value(t, gid, g, g->outputs[i], i + 1 < g->noutputs ? "," : "");
	}
	if (g->noutputs) {
		tx_puts(t, "\n");
		tx_indent(t, depth);
	}
	tx_puts(t, ")");
	/* initializers (when not inputs), then value_info */
	const char *sep = "\n";
	uint32_t nvi = 0;
	for (ValId v = 1; v < g->nvals; v++) {
		const Value *p = ir_val(g, v);
		nvi += p->def && !isout[v] && p->kind == VK_TENSOR &&
		    p->dtype != DT_UNDEF;
	}
	uint32_t left = (inputs ? 0 : ninit) + nvi;
	if (left) {
		tx_puts(t, "\n");
		tx_indent(t, depth);
		tx_puts(t, "<");
	}
	for (uint32_t i = 0; !inputs && i < g->ninputs; i++) {
		const Value *v = ir_val(g, g->inputs[i]);
		if (!v->init || !weights)
			continue;
		tx_puts(t, sep);
		tx_indent(t, depth + 1);
		initializer(t, ir_str(m, be_value_name(m, gid, g,
		    g->inputs[i])), &t->inits[k++], depth + 1);
		tx_puts(t, --left ? "," : "");
	}
	for (ValId v = 1; v < g->nvals; v++) {
		const Value *p = ir_val(g, v);
		if (!p->def || isout[v] || p->kind != VK_TENSOR ||
		    p->dtype == DT_UNDEF)
			continue;
		tx_puts(t, sep);
		tx_indent(t, depth + 1);
		value(t, gid, g, v, --left ? "," : "");
	}
	free(isout);
	if ((inputs ? 0 : ninit) + nvi) {
		tx_puts(t, "\n");
		tx_indent(t, depth);
		tx_puts(t, ">");
	}
	t->next = first + ninit;
	tx_puts(t, "\n");
	tx_indent(t, depth);
	tx_puts(t, "{\n");
	for (NodeId n = 1; n < g->nnodes; n++)
		node(t, gid, g, n, depth + 1);
	tx_indent(t, depth);
	tx_puts(t, "}");
}

/* BeEmit: the model */
static int
emit(void *ctx, BeOut *o)
{
	Txt *t = ctx;
	t->out = o;
	t->next = 0;
	tx_putf(t, "<\n%*sir_version: %d,\n%*sopset_import: [\"\" : %d", INDENT,
	    "", be_ir_version(t->o->opset), INDENT, "", t->o->opset);
	for (uint32_t i = 0; i < t->ndomains; i++) {
		tx_puts(t, ", ");
		tx_quoted(t, ir_str(t->m, t->domains[i]));
		tx_puts(t, " : 1");
	}
	tx_putf(t, "],\n%*sproducer_name: \"onnxc\",\n%*sproducer_version: ",
	    INDENT, "", INDENT, "");
	tx_quoted(t, ONNXC_VERSION_STRING);
	tx_puts(t, "\n>\n");
	graph(t, t->gid, 0);
	tx_puts(t, "\n");
	tx_flush(t);
	return t->err;
}

/* ---------------------------------------------------------- the writer */

static void
txt_free(Txt *t)
{
	be_names_free(&t->names);
	free(t->inits);
	free(t->domains);
	free(t);
}

/* Initializers to the data file (--external-data), then the bytes left
 * inline against TEXT_MAX_INLINE; false after reporting. */
static bool
place(Txt *t, BeOut *model, char **data)
{
	uint64_t bytes = t->inline_bytes;
	if (t->o->external == BE_EXT_ALWAYS && t->ninits) {
		const char *target = be_out_target(model);
		const char *slash = strrchr(target, '/');
		size_t n = strlen(target) + 6;
		*data = xrealloc(NULL, n);
		snprintf(*data, n, "%s.data", target);
		t->location = *data + (slash ? slash + 1 - target : 0);
		if (!be_ext_place(t->inits, t->ninits, t->o->ext_threshold))
			t->location = NULL;
	}
	for (uint32_t i = 0; i < t->ninits; i++)
		bytes += t->inits[i].ext ? 0 : t->inits[i].t->nbytes;
	if (bytes <= TEXT_MAX_INLINE)
		return true;
	ir_error(t->m, (Loc){0, 0}, "the model has %llu MB of tensors to "
	    "write inline, over the %llu MB the text format takes (about 4 "
	    "bytes of text a byte): --external-data puts initializers of "
	    "--external-data-threshold bytes or more in %s.data, which the "
	    "text names; --no-weights leaves them out; or write ONNX",
	    (unsigned long long)(bytes >> 20),
	    (unsigned long long)(TEXT_MAX_INLINE >> 20),
	    be_out_target(model));
	return false;
}

static int
text_write(Module *m, GraphId g, const BeOptions *o, const char *path)
{
	Txt *t = xrealloc(NULL, sizeof *t);
	memset(t, 0, sizeof *t);
	t->m = m;
	t->o = o;
	t->gid = g;
	int errs = m->nerrors;
	ir_name_outer(m, g);
	if (!be_ir_version(o->opset)) {
		ir_error(m, (Loc){0, 0}, "opset %d is not supported (choose "
		    "one of 7 to 23)", o->opset);
		txt_free(t);
		return -1;
	}
	BeOut *model = NULL;
	char *data = NULL;
	int rc = -1;
	if (!prep_graph(t, g) || m->nerrors != errs ||
	    !(model = be_out_open(m, path)) || !place(t, model, &data)) {
		be_out_discard(model);
	} else if (!t->location) {
		rc = be_write_into(m, model, emit, t);
	} else {
		BeOut *outs[2] = {be_out_open(m, data), model};
		int err = outs[0] ? be_ext_write(outs[0], t->inits, t->ninits)
		    : 0;
		BeOut *bad = outs[0];
		if (outs[0] && !err) {
			err = emit(t, model);
			bad = model;
		}
		if (outs[0] && !err) {
			rc = be_out_commit(m, outs, 2);
		} else {
			if (err)
				be_out_report(m, bad, err);
			be_out_discard(outs[0]);
			be_out_discard(model);
		}
	}
	free(data);
	txt_free(t);
	return rc;
}

static const char *
weights_text(const BeOptions *o)
{
	if (o->no_weights)
		return "not written (--no-weights): the weights are graph "
		    "inputs without data";
	if (o->external == BE_EXT_ALWAYS)
		return "in OUT.data from --external-data-threshold bytes up, "
		    "smaller ones inline as numbers";
	return "inline as numbers (initializers)";
}

const BeWriter be_text = {
	.name = "text",
	.ext = ".onnxtxt",
	.summary = "ONNX's textual syntax (onnx.parser reads it back)",
	.function_ops = true,
	.write = text_write,
	.weights = weights_text,
};
