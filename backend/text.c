/* text.c - the text writer: a graph of D_ONNX nodes -> ONNX's textual
 * syntax, the one onnx.printer writes and onnx.parser reads (onnx 1.16 and
 * later: node names in [], quoted names), for reviewing and diffing models.
 *
 * Requires: a graph built by the lower pass, as onnx.c does.
 * Provides: the be_text row of the writers' table (backend.h): --emit text,
 * or an output name ending in .onnxtxt.
 *
 * onnx.parser gives back the model onnx.c writes for the same options
 * (tests/e2e/text_roundtrip.py checks it): nodes with their names, ops,
 * domains and attributes, subgraphs, initializers with every value, inputs,
 * outputs and value_info with types and shapes, opset imports.  Where it
 * cannot, by the syntax:
 * - metadata_props of graphs, nodes and values have no syntax (onnx.printer
 *   leaves them out too) and are not written: the text is the model that
 *   --no-metadata writes;
 * - a dim_param that is no identifier ("2*s0") cannot be a dim: it is
 *   written '?' and its text follows in a comment on the value's line;
 * - weights are written as numbers, exactly (%.9g for float, %.17g for
 *   double, bit patterns for the 16- and 8-bit floats as int32_data holds
 *   them); NaN payloads are not kept.  onnx.parser cannot read subnormal
 *   floats back (std::stof's range error), though the text is exact.
 * Text takes about 4 bytes per byte of float weights, so at most
 * TEXT_MAX_INLINE bytes of tensors are written inline: a bigger model needs
 * --external-data (initializers of --external-data-threshold bytes or more
 * go to OUT.data, as for ONNX, and the text names them) or --no-weights.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* Tensor bytes written inline at most: 16 MiB makes a text of ~70 MB. */
#define TEXT_MAX_INLINE (UINT64_C(16) << 20)
#define INDENT 3

typedef struct Txt {
	Module *m;
	const BeOptions *o;
	BeNames names;       /* node names taken, as the ONNX writer takes them */
	BeInit *inits;       /* every initializer, in the ONNX writer's order */
	uint32_t ninits, cinits, next;
	StrId *domains;      /* non-default domains the nodes use */
	uint32_t ndomains, cdomains;
	uint64_t inline_bytes; /* tensor attributes' bytes */
	GraphId gid;         /* the graph written */
	const char *location; /* the data file, as initializers name it */
	BeOut *out;
	int err;             /* the first write error (an errno value) */
	size_t n;
	char buf[1 << 16];
} Txt;

/* ------------------------------------------------------------- output */

static void
flush(Txt *t)
{
	if (t->n && !t->err)
		t->err = be_out_write(t->out, t->buf, t->n);
	t->n = 0;
}

static void
put(Txt *t, const char *s, size_t n)
{
	if (t->n + n > sizeof t->buf)
		flush(t);
	if (n > sizeof t->buf) {
		if (!t->err)
			t->err = be_out_write(t->out, s, n);
		return;
	}
	memcpy(t->buf + t->n, s, n);
	t->n += n;
}

static void
puts_(Txt *t, const char *s)
{
	put(t, s, strlen(s));
}

static void
putf(Txt *t, const char *f, ...)
{
	char b[512];
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(b, sizeof b, f, ap);
	va_end(ap);
	put(t, b, n < 0 ? 0 : (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

static void
indent(Txt *t, int depth)
{
	static const char sp[] = "                                        ";
	for (int k = depth * INDENT; k > 0; k -= (int)sizeof sp - 1)
		put(t, sp, k < (int)sizeof sp - 1 ? (size_t)k : sizeof sp - 1);
}

/* ------------------------------------------------------------ lexemes */

static bool
is_ident(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static const char *const type_names[DT_COUNT] = {
	[DT_F32] = "float", [DT_U8] = "uint8", [DT_I8] = "int8",
	[DT_U16] = "uint16", [DT_I16] = "int16", [DT_I32] = "int32",
	[DT_I64] = "int64", [DT_STRING] = "string", [DT_BOOL] = "bool",
	[DT_F16] = "float16", [DT_F64] = "double", [DT_U32] = "uint32",
	[DT_U64] = "uint64", [DT_C64] = "complex64", [DT_C128] = "complex128",
	[DT_BF16] = "bfloat16", [DT_F8E4M3FN] = "float8e4m3fn",
	[DT_F8E4M3FNUZ] = "float8e4m3fnuz", [DT_F8E5M2] = "float8e5m2",
	[DT_F8E5M2FNUZ] = "float8e5m2fnuz", [DT_U4] = "uint4", [DT_I4] = "int4",
	[DT_F4E2M1] = "float4e2m1", [DT_F8E8M0] = "float8e8m0",
};

/* Words the parser reads as something else where a name may stand: a
 * type (a value-info without one), or a float (a graph attribute). */
static bool
is_reserved(const char *s)
{
	static const char *const words[] = {"seq", "map", "optional",
		"sparse_tensor", "inf", "infinity", "nan"};
	for (int i = 0; i < DT_COUNT; i++)
		if (type_names[i] && !strcmp(s, type_names[i]))
			return true;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (!strcasecmp(s, words[i]))
			return true;
	return false;
}

static void
quoted(Txt *t, const char *s)
{
	put(t, "\"", 1);
	for (const char *p = s; *p; p++) {
		size_t k = strcspn(p, "\\\"");
		put(t, p, k);
		p += k;
		if (!*p)
			break;
		put(t, "\\", 1);
		put(t, p, 1);
	}
	put(t, "\"", 1);
}

/* A name: bare where the parser reads it back as one, else quoted. */
static void
name(Txt *t, const char *s)
{
	if (is_ident(s) && !is_reserved(s))
		puts_(t, s);
	else
		quoted(t, s);
}

/* %.9g (float) or %.17g (double) gives the value back exactly; a literal
 * the parser must read as a float has a point or an exponent. */
static void
number(Txt *t, double v, bool single, bool as_float)
{
	char b[40];
	if (isnan(v))
		snprintf(b, sizeof b, "%snan", signbit(v) ? "-" : "");
	else if (isinf(v))
		snprintf(b, sizeof b, "%sinf", v < 0 ? "-" : "");
	else
		snprintf(b, sizeof b, single ? "%.9g" : "%.17g", v);
	if (as_float && !strpbrk(b, ".eina"))
		strcat(b, ".0");
	puts_(t, b);
}

/* ------------------------------------------------------------ prepare */

static bool
graph_name_ok(Txt *t, const Graph *g)
{
	const char *s = g->name ? ir_str(t->m, g->name) : "main_graph";
	if (!g->parent || (is_ident(s) && !is_reserved(s)))
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
	if (n->dialect != D_ONNX || !is_ident(ir_str(m, n->op))) {
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
		bool ok = a->key && is_ident(ir_str(m, a->key));
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
	puts_(t, type_names[p->dtype] ? type_names[p->dtype] : "undefined");
	if (p->rank < 0) {
		puts_(t, "[]");
		return;
	}
	for (int32_t i = 0; i < p->rank; i++) {
		puts_(t, i ? "," : "[");
		const Expr *x = d[i].e ? ir_exprp(t->m, d[i].e) : NULL;
		if (!x || x->kind == E_INT) {
			int64_t n = x ? x->n : d[i].n;
			if (x || n >= 0)
				putf(t, "%lld", (long long)n);
			else
				puts_(t, "?");
			continue;
		}
		char small[128];
		int k = ir_expr_print(t->m, d[i].e, small, sizeof small);
		const char *s = k >= 0 && (size_t)k < sizeof small ? small
		    : ir_dim_text(t->m, d[i]);
		if (is_ident(s)) {
			puts_(t, s);
			continue;
		}
		puts_(t, "?");
		size_t at = strlen(odd);
		snprintf(odd + at, cap - at, "%sdim %d is \"%s\"",
		    at ? ", " : "", i, s);
	}
	if (p->rank)
		puts_(t, "]");
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
		puts_(t, " ");
	}
	name(t, ir_str(t->m, be_value_name(t->m, gid, g, v)));
	puts_(t, sep);
	if (*odd) {
		puts_(t, "   # ");
		puts_(t, odd);
	}
}

/* ------------------------------------------------------------ tensors */

static uint64_t
le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* One element of x, as the parser reads it into the field onnx.proto
 * keeps that type in. */
static void
element(Txt *t, DType dt, const uint8_t *p)
{
	uint64_t bits;
	switch (dt) {
	case DT_F32:
	case DT_C64: {
		float f;
		memcpy(&f, p, 4);
		number(t, f, true, false);
		break;
	}
	case DT_F64:
	case DT_C128: {
		double f;
		memcpy(&f, p, 8);
		number(t, f, false, false);
		break;
	}
	case DT_I8:
		putf(t, "%d", (int8_t)p[0]);
		break;
	case DT_I16:
		putf(t, "%d", (int16_t)le(p, 2));
		break;
	case DT_I32:
		putf(t, "%d", (int32_t)le(p, 4));
		break;
	case DT_I64:
		putf(t, "%lld", (long long)(int64_t)le(p, 8));
		break;
	case DT_U32:
		putf(t, "%llu", (unsigned long long)le(p, 4));
		break;
	case DT_U64:
		putf(t, "%llu", (unsigned long long)le(p, 8));
		break;
	default:        /* bytes, bools, and the bits of 16- and 8-bit floats */
		bits = le(p, ir_dtype_size(dt) == 2 ? 2 : 1);
		putf(t, "%llu", (unsigned long long)bits);
		break;
	}
}

/* "{v, v, ...}": 4-bit types as their bytes (two elements each, low one
 * first, as int32_data holds them), complex ones as real, imaginary. */
static void
values(Txt *t, const Tensor *x, int depth)
{
	DType dt = (DType)x->dtype;
	size_t step = dt == DT_U4 || dt == DT_I4 || dt == DT_F4E2M1 ? 1
	    : dt == DT_C64 ? 4 : dt == DT_C128 ? 8 : ir_dtype_size(dt);
	uint64_t n = x->nbytes / step;
	const uint8_t *p = x->data;
	puts_(t, "{");
	for (uint64_t i = 0; i < n; i++) {
		if (i)
			puts_(t, ",");
		if (i && i % 16 == 0) {
			puts_(t, "\n");
			indent(t, depth + 1);
		} else if (i) {
			puts_(t, " ");
		}
		element(t, dt, p + i * step);
	}
	puts_(t, "}");
}

/* "TYPE[dims]" of a tensor; rank 0 is the bare type */
static void
tensor_type(Txt *t, const Tensor *x)
{
	puts_(t, type_names[x->dtype]);
	for (int32_t i = 0; i < x->rank; i++)
		putf(t, "%s%lld", i ? "," : "[", (long long)x->dims[i]);
	if (x->rank)
		puts_(t, "]");
}

/* An initializer "TYPE NAME = {...}", or its place in the data file. */
static void
initializer(Txt *t, const char *nm, const BeInit *in, int depth)
{
	tensor_type(t, in->t);
	puts_(t, " ");
	name(t, nm);
	puts_(t, " = ");
	if (!in->ext) {
		values(t, in->t, depth);
		return;
	}
	puts_(t, "[\"location\": ");
	quoted(t, t->location);
	putf(t, ", \"offset\": \"%llu\", \"length\": \"%llu\"]",
	    (unsigned long long)in->off, (unsigned long long)in->t->nbytes);
}

/* ------------------------------------------------------------- graphs */

static void graph(Txt *t, GraphId gid, int depth);

static void
attribute(Txt *t, const Graph *g, const Arg *a, int depth)
{
	Module *m = t->m;
	puts_(t, ir_str(m, a->key));
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:   /* DType numbers are ONNX's: Cast(to=...) */
		putf(t, ": int = %lld", (long long)a->u.i);
		break;
	case A_FLOAT:
		puts_(t, ": float = ");
		number(t, (float)a->u.f, true, true);
		break;
	case A_STR:
		puts_(t, ": string = ");
		quoted(t, ir_str(m, a->u.s));
		break;
	case A_TENSOR:
		puts_(t, ": tensor = ");
		tensor_type(t, ir_tensorp(m, a->u.t));
		puts_(t, " ");
		values(t, ir_tensorp(m, a->u.t), depth);
		break;
	case A_GRAPH:
		puts_(t, ": graph = ");
		graph(t, a->u.g, depth + 1);
		break;
	default: {      /* a list: prepare checked its kind */
		const Arg *it = ir_items(g, a);
		BeListKind k = be_list_kind(g, a);
		puts_(t, k == BE_LIST_INTS ? ": ints = [" : k == BE_LIST_FLOATS
		    ? ": floats = [" : ": strings = [");
		for (uint32_t i = 0; i < a->u.list.n; i++) {
			puts_(t, i ? ", " : "");
			if (k == BE_LIST_INTS)
				putf(t, "%lld", (long long)it[i].u.i);
			else if (k == BE_LIST_FLOATS)
				number(t, it[i].kind == A_FLOAT ? (float)it[i].u.f
				    : (float)it[i].u.i, true, true);
			else
				quoted(t, ir_str(m, it[i].u.s));
		}
		puts_(t, "]");
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
	indent(t, depth);
	puts_(t, "[");
	name(t, be_node_text(m, nm, nb, NULL));
	puts_(t, "] ");
	for (uint32_t i = 0; i < n->nout; i++) {
		puts_(t, i ? ", " : "");
		name(t, ir_str(m, be_value_name(m, gid, g, n->out + i)));
	}
	puts_(t, " = ");
	if (n->domain) {
		puts_(t, ir_str(m, n->domain));
		puts_(t, ".");
	}
	puts_(t, ir_str(m, n->op));
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
				puts_(t, sep);
				attribute(t, g, a, depth);
				sep = ", ";
			}
			puts_(t, ">");
		}
		if (pass == 0) {
			puts_(t, " (");
			for (uint32_t i = 0; i < nin; i++) {
				const Arg *a = ir_arg(g, id, i);
				puts_(t, i ? ", " : "");
				if (a->kind == A_VAL)
					name(t, ir_str(m, be_value_name(m, gid,
					    g, a->u.v)));
				else
					puts_(t, "\"\"");
			}
			puts_(t, ")");
		}
	}
	puts_(t, "\n");
}

/* NAME (inputs) => (outputs) <initializers, value_info> {nodes}, one
 * value a line, so that a comment may follow it. */
static void
graph(Txt *t, GraphId gid, int depth)
{
	Module *m = t->m;
	const Graph *g = ir_graph(m, gid);
	bool weights = !t->o->no_weights, inputs = t->o->init_inputs;
	name(t, g->name ? ir_str(m, g->name) : "main_graph");
	puts_(t, " (");
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
		puts_(t, "\n");
		indent(t, depth + 1);
		if (!init) {
			value(t, gid, g, g->inputs[i], sep);
			continue;
		}
		initializer(t, ir_str(m, be_value_name(m, gid, g,
		    g->inputs[i])), &t->inits[k++], depth + 1);
		puts_(t, sep);
	}
	if (nshow) {
		puts_(t, "\n");
		indent(t, depth);
	}
	puts_(t, ") => (");
	uint8_t *isout = xrealloc(NULL, g->nvals ? g->nvals : 1);
	memset(isout, 0, g->nvals ? g->nvals : 1);
	for (uint32_t i = 0; i < g->noutputs; i++) {
		isout[g->outputs[i]] = 1;
		puts_(t, "\n");
		indent(t, depth + 1);
		value(t, gid, g, g->outputs[i], i + 1 < g->noutputs ? "," : "");
	}
	if (g->noutputs) {
		puts_(t, "\n");
		indent(t, depth);
	}
	puts_(t, ")");
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
		puts_(t, "\n");
		indent(t, depth);
		puts_(t, "<");
	}
	for (uint32_t i = 0; !inputs && i < g->ninputs; i++) {
		const Value *v = ir_val(g, g->inputs[i]);
		if (!v->init || !weights)
			continue;
		puts_(t, sep);
		indent(t, depth + 1);
		initializer(t, ir_str(m, be_value_name(m, gid, g,
		    g->inputs[i])), &t->inits[k++], depth + 1);
		puts_(t, --left ? "," : "");
	}
	for (ValId v = 1; v < g->nvals; v++) {
		const Value *p = ir_val(g, v);
		if (!p->def || isout[v] || p->kind != VK_TENSOR ||
		    p->dtype == DT_UNDEF)
			continue;
		puts_(t, sep);
		indent(t, depth + 1);
		value(t, gid, g, v, --left ? "," : "");
	}
	free(isout);
	if ((inputs ? 0 : ninit) + nvi) {
		puts_(t, "\n");
		indent(t, depth);
		puts_(t, ">");
	}
	t->next = first + ninit;
	puts_(t, "\n");
	indent(t, depth);
	puts_(t, "{\n");
	for (NodeId n = 1; n < g->nnodes; n++)
		node(t, gid, g, n, depth + 1);
	indent(t, depth);
	puts_(t, "}");
}

/* BeEmit: the model */
static int
emit(void *ctx, BeOut *o)
{
	Txt *t = ctx;
	t->out = o;
	t->next = 0;
	putf(t, "<\n%*sir_version: %d,\n%*sopset_import: [\"\" : %d", INDENT,
	    "", be_ir_version(t->o->opset), INDENT, "", t->o->opset);
	for (uint32_t i = 0; i < t->ndomains; i++) {
		puts_(t, ", ");
		quoted(t, ir_str(t->m, t->domains[i]));
		puts_(t, " : 1");
	}
	putf(t, "],\n%*sproducer_name: \"onnxc\",\n%*sproducer_version: ",
	    INDENT, "", INDENT, "");
	quoted(t, ONNXC_VERSION_STRING);
	puts_(t, "\n>\n");
	graph(t, t->gid, 0);
	puts_(t, "\n");
	flush(t);
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
