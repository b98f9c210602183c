/* test_symbolize.c - the symbolize-shapes pass, loaded as its plugin module
 * (<build>/plugins/symbolize.so) and run by the real pass manager on small
 * dumps: renaming, making a numeric dim symbolic (shapes re-derived, size
 * literals rewritten, unproven literals reported), static, option errors,
 * the range metadata, and the exact dim_param strings of the ONNX model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <onnx.pb-c.h>

#include "backend/onnx.h"
#include "frontend/fx.h"
#include "lower/lower.h"
#include "pipeline/pipeline.h"

/* The pass's options as the driver gives them (--dynamic, --static). */
typedef struct SymDynamic {
	const char *input;
	int64_t dim;
	const char *label;
} SymDynamic;

typedef struct SymStatic {
	const char *label;
	int64_t value;
} SymStatic;

typedef struct Run {
	Module *m;
	PlRegistry *reg;
	GraphId g;
	char *diag;
	size_t diaglen;
	int rc;
} Run;

static char plugdir[4096];

/* The modules sit in <dir of onnxc>/plugins; ONNXC_PLUGIN_DIR overrides. */
static int
find_plugins(void)
{
	const char *d = getenv("ONNXC_PLUGIN_DIR"), *bin = getenv("ONNXC_BIN");
	if (d) {
		snprintf(plugdir, sizeof plugdir, "%s", d);
		return 0;
	}
	if (!bin)
		return -1;
	const char *slash = strrchr(bin, '/');
	int n = slash ? (int)(slash - bin) : 1;
	snprintf(plugdir, sizeof plugdir, "%.*s/plugins", n, slash ? bin : ".");
	return 0;
}

/* "symbolize-shapes{dynamic='x:0=b,...',static='s0=3',strict=true}" */
static void
pipeline(char *buf, size_t cap, const SymDynamic *dyn, int ndyn,
    const SymStatic *st, int nst, bool strict)
{
	size_t n = (size_t)snprintf(buf, cap, "symbolize-shapes{dynamic='");
	for (int i = 0; i < ndyn; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s:%lld=%s",
		    i ? "," : "", dyn[i].input, (long long)dyn[i].dim,
		    dyn[i].label);
	n += (size_t)snprintf(buf + n, cap - n, "',static='");
	for (int i = 0; i < nst; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s=%lld",
		    i ? "," : "", st[i].label, (long long)st[i].value);
	snprintf(buf + n, cap - n, "',strict=%s}", strict ? "true" : "false");
}

/* Parse dump, then run pipeline text with the pass module loaded. */
static void
run_text(Run *r, const char *dump, const char *text)
{
	memset(r, 0, sizeof *r);
	r->m = ir_module_new();
	r->m->diagout = open_memstream(&r->diag, &r->diaglen);
	r->m->src = dump;
	r->m->srclen = strlen(dump);
	r->m->file = "t.txt";
	r->reg = pl_registry_new(r->m);
	char path[4200];
	snprintf(path, sizeof path, "%s/symbolize.so", plugdir);
	assert_int_equal(pl_load(r->reg, path), 0);
	assert_int_equal(fx_parse(r->m, &r->g), 0);
	PmPipeline p = {0};
	assert_int_equal(pm_parse(r->m, r->reg, "--passes", text, &p), 0);
	PmRun o = {.opset = 18, .verify_each = true};
	GraphId g = r->g;
	r->rc = pm_run(r->m, r->reg, &p, &o, &g);
	pm_free(&p);
	assert_int_equal(g, r->g);
	if (r->rc == 0)
		assert_int_equal(ir_verify(r->m, r->g), 0);
	fflush(r->m->diagout);
}

/* ... with the given options, as the driver passes them on */
static void
run(Run *r, const char *dump, const SymDynamic *dyn, int ndyn,
    const SymStatic *st, int nst, bool strict)
{
	char text[1024];
	pipeline(text, sizeof text, dyn, ndyn, st, nst, strict);
	run_text(r, dump, text);
}

static void
done(Run *r)
{
	pl_registry_free(r->reg);
	fclose(r->m->diagout);
	free(r->diag);
	ir_free(r->m);
}

static const char *
diags(Run *r)
{
	fflush(r->m->diagout);
	return r->diag ? r->diag : "";
}

static ValId
named(Run *r, const char *name)
{
	Graph *g = ir_graph(r->m, r->g);
	StrId s = ir_intern(r->m, name);
	for (ValId v = 1; v < g->nvals; v++)
		if (g->vals[v].name == s)
			return v;
	fail_msg("no value '%s'", name);
	return 0;
}

/* the dims of a value as "a, b, c" */
static const char *
shape(Run *r, const char *name)
{
	static char buf[256];
	Graph *g = ir_graph(r->m, r->g);
	ValId v = named(r, name);
	const Dim *d = ir_dims(g, v);
	buf[0] = 0;
	for (int32_t i = 0; i < ir_val(g, v)->rank; i++) {
		if (i)
			strcat(buf, ", ");
		strcat(buf, ir_dim_text(r->m, d[i]));
	}
	return buf;
}

/* the list argument i of the node defining value name, as text */
static const char *
list(Run *r, const char *name, int i)
{
	static char buf[256];
	Graph *g = ir_graph(r->m, r->g);
	const Arg *a = ir_arg(g, ir_val(g, named(r, name))->def, (uint32_t)i);
	assert_int_equal(a->kind, A_LIST);
	buf[0] = 0;
	for (uint32_t k = 0; k < a->u.list.n; k++) {
		const Arg *it = &ir_items(g, a)[k];
		char t[64];
		if (it->kind == A_INT)
			snprintf(t, sizeof t, "%lld", (long long)it->u.i);
		else if (it->kind == A_VAL)
			snprintf(t, sizeof t, "%%%s(%s)",
			    ir_str(r->m, ir_val(g, it->u.v)->name),
			    sym_text(r->m, ir_val(g, it->u.v)->sym));
		else
			snprintf(t, sizeof t, "?");
		if (k)
			strcat(buf, ", ");
		strcat(buf, t);
	}
	return buf;
}

static const char attn[] =
"ExportedProgram:\n"
"    class GraphModule(torch.nn.Module):\n"
"        def forward(self, p_w: \"f32[32, 32]\", x: \"f32[2, 7, 32]\"):\n"
"            t: \"f32[32, 32]\" = torch.ops.aten.permute.default(p_w, [1, 0])\n"
"            view: \"f32[14, 32]\" = torch.ops.aten.view.default(x, [14, 32])\n"
"            mm: \"f32[14, 32]\" = torch.ops.aten.mm.default(view, t)\n"
"            view_1: \"f32[2, 7, 4, 8]\" = torch.ops.aten.view.default(mm, [2, 7, 4, 8])\n"
"            permute: \"f32[2, 4, 7, 8]\" = torch.ops.aten.permute.default(view_1, [0, 2, 1, 3])\n"
"            expand: \"f32[2, 4, 7, 8]\" = torch.ops.aten.expand.default(permute, [2, 4, 7, 8])\n"
"            sum_1: \"f32[2, 7]\" = torch.ops.aten.sum.dim_IntList(expand, [1, 3])\n"
"            cat: \"f32[2, 14]\" = torch.ops.aten.cat.default([sum_1, sum_1], 1)\n"
"            return (view_1, cat)\n"
"\n"
"Graph signature:\n"
"    # inputs\n"
"    p_w: PARAMETER target='w'\n"
"    x: USER_INPUT\n"
"\n"
"    # outputs\n"
"    view_1: USER_OUTPUT\n"
"    cat: USER_OUTPUT\n"
"\n"
"Range constraints: {}\n";

static void
test_symbolize_two_dims(void **state)
{
	(void)state;
	Run r;
	SymDynamic d[] = {{"x", 0, "batch"}, {"x", -2, "seq"}};
	run(&r, attn, d, 2, NULL, 0, false);
	assert_int_equal(r.rc, 0);
	assert_string_equal(diags(&r), "");
	assert_string_equal(shape(&r, "x"), "batch, seq, 32");
	assert_string_equal(shape(&r, "view"), "batch*seq, 32");
	/* one symbolic entry: -1 */
	assert_string_equal(list(&r, "view", 1), "-1, 32");
	assert_string_equal(shape(&r, "view_1"), "batch, seq, 4, 8");
	/* two: -1 and a SymInt read from x at run time */
	assert_string_equal(list(&r, "view_1", 1), "-1, %sym_size_seq_0(seq), "
	    "4, 8");
	assert_string_equal(shape(&r, "permute"), "batch, 4, seq, 8");
	assert_string_equal(list(&r, "expand", 1), "-1, 4, -1, 8");
	assert_string_equal(shape(&r, "sum_1"), "batch, seq");
	assert_string_equal(shape(&r, "cat"), "batch, 2*seq");
	/* the sym_size node went before its user */
	Graph *g = ir_graph(r.m, r.g);
	NodeId ss = ir_val(g, named(&r, "sym_size_seq_0"))->def;
	NodeId user = ir_val(g, named(&r, "view_1"))->def;
	assert_true(ss < user);
	assert_string_equal(ir_str(r.m, ir_nodep(g, ss)->op),
	    "aten::sym_size.int");
	/* new symbols get torch's range for dynamic dims */
	assert_string_equal(sym_ranges_text(r.m),
	    "{batch: VR[2, int_oo], seq: VR[2, int_oo]}");
	done(&r);
}

static const char dyn[] =
"ExportedProgram:\n"
"    class GraphModule(torch.nn.Module):\n"
"        def forward(self, x: \"f32[s0, 4]\", y: \"f32[s1, 4]\"):\n"
"            sym_size_int: \"Sym(s0)\" = torch.ops.aten.sym_size.int(x, 0)\n"
"            mul: \"Sym(2*s0)\" = sym_size_int * 2\n"
"            cat: \"f32[2*s0 + s1, 4]\" = torch.ops.aten.cat.default([x, x, y])\n"
"            view: \"f32[2*s0 + s1, 2, 2]\" = torch.ops.aten.view.default(cat, [-1, 2, 2])\n"
"            return (view, mul)\n"
"\n"
"Graph signature:\n"
"    # inputs\n"
"    x: USER_INPUT\n"
"    y: USER_INPUT\n"
"\n"
"    # outputs\n"
"    view: USER_OUTPUT\n"
"    mul: USER_OUTPUT\n"
"\n"
"Range constraints: {s0: VR[2, int_oo], s1: VR[2, int_oo], "
"2*s0 + s1: VR[6, int_oo]}\n";

static void
test_rename(void **state)
{
	(void)state;
	Run r;
	SymDynamic d[] = {{"x", 0, "batch"}, {"y", 0, "n"}};
	run(&r, dyn, d, 2, NULL, 0, false);
	assert_int_equal(r.rc, 0);
	assert_string_equal(shape(&r, "x"), "batch, 4");
	assert_string_equal(shape(&r, "cat"), "2*batch + n, 4");
	Graph *g = ir_graph(r.m, r.g);
	assert_string_equal(sym_text(r.m, ir_val(g, named(&r, "mul"))->sym),
	    "2*batch");
	assert_string_equal(sym_ranges_text(r.m), "{batch: VR[2, int_oo], "
	    "n: VR[2, int_oo], 2*batch + n: VR[6, int_oo]}");
	done(&r);
}

static void
test_static(void **state)
{
	(void)state;
	Run r;
	SymStatic s[] = {{"s0", 3}};
	run(&r, dyn, NULL, 0, s, 1, false);
	assert_int_equal(r.rc, 0);
	assert_string_equal(shape(&r, "x"), "3, 4");
	assert_string_equal(shape(&r, "cat"), "s1 + 6, 4");
	Graph *g = ir_graph(r.m, r.g);
	/* the size query is now a constant for the lowering */
	const Expr *e = ir_exprp(r.m, ir_val(g, named(&r, "sym_size_int"))->sym);
	assert_int_equal(e->kind, E_INT);
	assert_int_equal(e->n, 3);
	assert_string_equal(sym_ranges_text(r.m), "{s1: VR[2, int_oo], "
	    "s1 + 6: VR[6, int_oo]}");
	done(&r);

	/* outside the dump's range */
	SymStatic bad[] = {{"s1", 1}};
	run(&r, dyn, NULL, 0, bad, 1, false);
	assert_int_equal(r.rc, -1);
	assert_non_null(strstr(diags(&r), "constrains 's1' to [2, int_oo]"));
	done(&r);
	SymStatic none[] = {{"batch", 1}};
	run(&r, dyn, NULL, 0, none, 1, false);
	assert_int_equal(r.rc, -1);
	assert_non_null(strstr(diags(&r), "no symbol 'batch'"));
	done(&r);
}

static void
test_option_errors(void **state)
{
	(void)state;
	static const struct {
		SymDynamic d[2];
		int n;
		const char *want;
	} cases[] = {
		{{{"z", 0, "b"}}, 1, "no input named 'z'"},
		{{{"x", 2, "b"}}, 1, "has rank 2, so DIM must be in [-2, 1]"},
		{{{"x", 0, "2b"}}, 1, "LABEL must be an identifier"},
		{{{"x", 0, "b"}, {"x", 0, "c"}}, 2, "already named 'b'"},
		{{{"x", 0, "b"}, {"y", 0, "b"}}, 2, "two symbols cannot share"},
		{{{"x", 0, "s1"}}, 1, "'s1' is already a symbol"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		Run r;
		run(&r, dyn, cases[i].d, cases[i].n, NULL, 0, false);
		assert_int_equal(r.rc, -1);
		if (!strstr(diags(&r), cases[i].want))
			fail_msg("case %zu: '%s' not in:\n%s", i, cases[i].want,
			    diags(&r));
		done(&r);
	}
}

/* The options as pipeline text: entries with blanks, malformed entries,
 * and no entries at all (the pass changes nothing). */
static void
test_option_text(void **state)
{
	(void)state;
	Run r;
	run_text(&r, dyn, "symbolize-shapes{dynamic=' x:0=batch , y:0=n ',"
	    "static=''}");
	assert_int_equal(r.rc, 0);
	assert_string_equal(shape(&r, "cat"), "2*batch + n, 4");
	done(&r);
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"symbolize-shapes{dynamic='x:zero=b'}", "DIM must be an integer"},
		{"symbolize-shapes{dynamic='x0=b'}", "expected NAME:DIM=LABEL"},
		{"symbolize-shapes{static='s0=-1'}", "non-negative integer"},
		{"symbolize-shapes{static='s0'}", "expected LABEL=VALUE"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		run_text(&r, dyn, bad[i].text);
		assert_int_equal(r.rc, -1);
		if (!strstr(diags(&r), bad[i].want))
			fail_msg("case %zu: '%s' not in:\n%s", i, bad[i].want,
			    diags(&r));
		done(&r);
	}
	run_text(&r, dyn, "symbolize-shapes{strict=true}");
	assert_int_equal(r.rc, 0);
	assert_string_equal(diags(&r), "");
	assert_string_equal(shape(&r, "cat"), "2*s0 + s1, 4");
	assert_string_equal(sym_ranges_text(r.m), "{s0: VR[2, int_oo], "
	    "s1: VR[2, int_oo], 2*s0 + s1: VR[6, int_oo]}");
	done(&r);
}

static const char expr_dim[] =
"ExportedProgram:\n"
"    class GraphModule(torch.nn.Module):\n"
"        def forward(self, x: \"f32[s0, 4]\", y: \"f32[s0 + 1, 4]\"):\n"
"            cat: \"f32[2*s0 + 1, 4]\" = torch.ops.aten.cat.default([x, y])\n"
"            return (cat,)\n"
"\n"
"Graph signature:\n"
"    # inputs\n"
"    x: USER_INPUT\n"
"    y: USER_INPUT\n"
"\n"
"    # outputs\n"
"    cat: USER_OUTPUT\n"
"\n"
"Range constraints: {s0: VR[2, int_oo]}\n";

static void
test_rename_expression_dim(void **state)
{
	(void)state;
	Run r;
	SymDynamic d[] = {{"y", 0, "n"}};
	run(&r, expr_dim, d, 1, NULL, 0, false);
	assert_int_equal(r.rc, -1);
	assert_non_null(strstr(diags(&r), "is the expression 's0 + 1', not "
	    "a symbol"));
	done(&r);
	SymDynamic ok[] = {{"x", 0, "n"}};
	run(&r, expr_dim, ok, 1, NULL, 0, false);
	assert_int_equal(r.rc, 0);
	assert_string_equal(shape(&r, "y"), "n + 1, 4");
	assert_string_equal(shape(&r, "cat"), "2*n + 1, 4");
	done(&r);
}

static const char factory[] =
"ExportedProgram:\n"
"    class GraphModule(torch.nn.Module):\n"
"        def forward(self, x: \"f32[3, 5]\"):\n"
"            zeros: \"f32[3, 5]\" = torch.ops.aten.zeros.default([3, 5], device = device(type='cpu'), pin_memory = False)\n"
"            add: \"f32[3, 5]\" = torch.ops.aten.add.Tensor(x, zeros)\n"
"            slice_1: \"f32[3, 5]\" = torch.ops.aten.slice.Tensor(add, 0, 0, 3)\n"
"            slice_2: \"f32[3, 4]\" = torch.ops.aten.slice.Tensor(slice_1, 1, 1, 9223372036854775807)\n"
"            return (slice_2,)\n"
"\n"
"Graph signature:\n"
"    # inputs\n"
"    x: USER_INPUT\n"
"\n"
"    # outputs\n"
"    slice_2: USER_OUTPUT\n"
"\n"
"Range constraints: {}\n";

static void
test_unproven_literals(void **state)
{
	(void)state;
	Run r;
	SymDynamic d[] = {{"x", 0, "b"}, {"x", 1, "w"}};
	run(&r, factory, d, 2, NULL, 0, false);
	assert_int_equal(r.rc, 0);
	const char *t = diags(&r);
	/* the zeros size, the broadcast against it, the slice end */
	assert_non_null(strstr(t, "t.txt:4:"));
	assert_non_null(strstr(t, "size 3 equals the traced size of 'b'"));
	assert_non_null(strstr(t, "size 5 equals the traced size of 'w'"));
	assert_non_null(strstr(t, "t.txt:6:"));
	assert_non_null(strstr(t, "slice end 3 equals the traced size"));
	assert_int_equal(r.m->nerrors, 0);
	assert_true(r.m->nwarnings >= 3);
	/* a slice to the end follows the symbol */
	assert_string_equal(shape(&r, "slice_2"), "3, w - 1");
	done(&r);
	run(&r, factory, d, 2, NULL, 0, true);
	assert_int_equal(r.rc, -1);
	assert_non_null(strstr(diags(&r), "(--strict)"));
	done(&r);
}

static void
test_traced_at_one(void **state)
{
	(void)state;
	Run r;
	static const char one[] =
	"ExportedProgram:\n"
	"    class GraphModule(torch.nn.Module):\n"
	"        def forward(self, x: \"f32[1, 5]\"):\n"
	"            relu: \"f32[1, 5]\" = torch.ops.aten.relu.default(x)\n"
	"            return (relu,)\n";
	SymDynamic d[] = {{"x", 0, "b"}};
	run(&r, one, d, 1, NULL, 0, false);
	assert_int_equal(r.rc, -1);
	assert_non_null(strstr(diags(&r), "cannot be told from broadcasting"));
	done(&r);
}

/* The model keeps the exact dim_param strings: expressions printed as
 * PyTorch prints them, renamed labels inside them. */
static const char *
dimp(Onnx__ValueInfoProto *v, size_t i)
{
	Onnx__TensorShapeProto *s = v->type->tensor_type->shape;
	assert_true(i < s->n_dim);
	if (s->dim[i]->value_case ==
	    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
		return s->dim[i]->dim_param;
	static char buf[32];
	snprintf(buf, sizeof buf, "%lld", (long long)s->dim[i]->dim_value);
	return buf;
}

static const char *
meta(Onnx__ModelProto *p, const char *key)
{
	/* torch.onnx writes the graph's keys on the GraphProto */
	const Onnx__GraphProto *g = p->graph;
	for (size_t i = 0; i < g->n_metadata_props; i++)
		if (!strcmp(g->metadata_props[i]->key, key))
			return g->metadata_props[i]->value;
	return NULL;
}

static Onnx__ModelProto *
convert(Run *r, uint8_t **buf)
{
	GraphId onnx;
	assert_int_equal(pass_lower(r->m, r->g, &onnx, 18), 0);
	size_t len;
	BeOptions o = {.opset = 18};
	assert_int_equal(onnx_encode(r->m, onnx, &o, buf, &len), 0);
	Onnx__ModelProto *p = onnx__model_proto__unpack(NULL, len, *buf);
	assert_non_null(p);
	return p;
}

static void
test_dim_params(void **state)
{
	(void)state;
	Run r;
	uint8_t *buf;
	/* as the dump has them */
	run(&r, dyn, NULL, 0, NULL, 0, false);
	Onnx__ModelProto *p = convert(&r, &buf);
	Onnx__GraphProto *g = p->graph;
	assert_string_equal(dimp(g->input[0], 0), "s0");
	assert_string_equal(dimp(g->input[1], 0), "s1");
	assert_string_equal(dimp(g->output[0], 0), "2*s0 + s1");
	assert_string_equal(dimp(g->output[0], 1), "2");
	onnx__model_proto__free_unpacked(p, NULL);
	free(buf);
	done(&r);

	/* renamed */
	SymDynamic d[] = {{"x", 0, "batch_size"}};
	run(&r, dyn, d, 1, NULL, 0, false);
	p = convert(&r, &buf);
	g = p->graph;
	assert_string_equal(dimp(g->input[0], 0), "batch_size");
	assert_string_equal(dimp(g->output[0], 0), "2*batch_size + s1");
	assert_string_equal(meta(p, "pkg.torch.export.ExportedProgram."
	    "range_constraints"), "{batch_size: VR[2, int_oo], "
	    "s1: VR[2, int_oo], 2*batch_size + s1: VR[6, int_oo]}");
	onnx__model_proto__free_unpacked(p, NULL);
	free(buf);
	done(&r);

	/* symbolized from a static dump */
	SymDynamic d2[] = {{"x", 0, "batch"}, {"x", 1, "seq"}};
	run(&r, attn, d2, 2, NULL, 0, false);
	p = convert(&r, &buf);
	g = p->graph;
	assert_string_equal(dimp(g->input[1], 0), "batch");
	assert_string_equal(dimp(g->input[1], 1), "seq");
	assert_string_equal(dimp(g->output[0], 0), "batch");
	assert_string_equal(dimp(g->output[0], 1), "seq");
	assert_string_equal(dimp(g->output[1], 1), "2*seq");
	onnx__model_proto__free_unpacked(p, NULL);
	free(buf);
	done(&r);
}

int
main(void)
{
	if (find_plugins() < 0) {
		fprintf(stderr, "test_symbolize: set ONNXC_BIN or "
		    "ONNXC_PLUGIN_DIR to find the plugin modules\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbolize_two_dims),
		cmocka_unit_test(test_rename),
		cmocka_unit_test(test_static),
		cmocka_unit_test(test_option_errors),
		cmocka_unit_test(test_option_text),
		cmocka_unit_test(test_rename_expression_dim),
		cmocka_unit_test(test_unproven_literals),
		cmocka_unit_test(test_traced_at_one),
		cmocka_unit_test(test_dim_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
