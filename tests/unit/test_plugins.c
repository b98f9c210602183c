/* test_plugins.c - the plugin host: pipeline text and its diagnostics,
 * registration checks, the host table on bad handles, use counts, the
 * node order restored after a pass, the pass manager, and loading the
 * small plugins of tests/plugins (built into <build>/test-plugins). */
#define ONNXC_PLUGIN_STATIC
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pipeline/pipeline.h"
#include "plugins/pl.h"

typedef struct Capture {
	char *buf;
	size_t len;
} Capture;

static void
capture(Module *m, Capture *c)
{
	c->buf = NULL;
	c->len = 0;
	m->diagout = open_memstream(&c->buf, &c->len);
}

static const char *
captured(Module *m, Capture *c)
{
	fflush(m->diagout);
	return c->buf ? c->buf : "";
}

static void
release(Module *m, Capture *c)
{
	fclose(m->diagout);
	m->diagout = NULL;
	free(c->buf);
}

/* ----------------------------------------------- a plugin linked in */

/* What the test passes saw, through their user pointer. */
typedef struct Seen {
	int runs;
	int64_t n;
	int on;
	double x;
	const char *s;
} Seen;

static Seen seen_alpha;

static const onnxc_option alpha_opts[] = {
	{"n", ONNXC_OPT_INT, "3", "a count"},
	{"on", ONNXC_OPT_BOOL, "false", ""},
	{"x", ONNXC_OPT_FLOAT, "0.25", ""},
	{"s", ONNXC_OPT_STRING, "dflt", ""},
};

static onnxc_status
run_alpha(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	Seen *s = user;
	s->runs++;
	if (host->opt_int(ctx, "n", &s->n) || host->opt_bool(ctx, "on", &s->on)
	    || host->opt_float(ctx, "x", &s->x) ||
	    host->opt_string(ctx, "s", &s->s))
		return ONNXC_ERROR;
	return ONNXC_OK;
}

static onnxc_status
run_beta(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)ctx;
	(void)host;
	(void)user;
	return ONNXC_OK;
}

static onnxc_status
init_tp(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_pass_info alpha = {
		sizeof alpha, "alpha", "reads its options", alpha_opts, 4,
		run_alpha, &seen_alpha, 0, 0, 0
	};
	static const onnxc_pass_info beta = {
		sizeof beta, "beta-2", "does nothing", NULL, 0, run_beta, NULL,
		    0, 0, 0
	};
	(void)ctx;
	if (host->register_pass(reg, &alpha) || host->register_pass(reg, &beta))
		return ONNXC_ERROR;
	return ONNXC_OK;
}

ONNXC_PLUGIN_NAMED(tp, "tp", "1", init_tp, NULL);

/* A plugin whose registrations are all wrong. */
static onnxc_status
init_bad(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_option bad_default[] = {
		{"n", ONNXC_OPT_INT, "many", ""},
	};
	static const onnxc_pass_info upper = {
		sizeof upper, "Bad_Name", "", NULL, 0, run_beta, NULL, 0, 0, 0
	};
	static const onnxc_pass_info dup = {
		sizeof dup, "alpha", "", NULL, 0, run_beta, NULL, 0, 0, 0
	};
	static const onnxc_pass_info dflt = {
		sizeof dflt, "bad-default", "", bad_default, 1, run_beta, NULL,
		    0, 0, 0
	};
	static const onnxc_pass_info norun = {
		sizeof norun, "no-run", "", NULL, 0, NULL, NULL, 0, 0, 0
	};
	(void)ctx;
	int bad = 0;
	bad += host->register_pass(reg, &upper) == ONNXC_INVALID;
	bad += host->register_pass(reg, &dup) == ONNXC_INVALID;
	bad += host->register_pass(reg, &dflt) == ONNXC_INVALID;
	bad += host->register_pass(reg, &norun) == ONNXC_INVALID;
	bad += host->register_pass(reg, NULL) == ONNXC_INVALID;
	/* all five refused: report success anyway, the host must not */
	return bad == 5 ? ONNXC_OK : ONNXC_ERROR;
}

ONNXC_PLUGIN_NAMED(bad, "bad-registrations", "1", init_bad, NULL);

typedef struct Fix {
	Module *m;
	PlRegistry *r;
	Capture cap;
} Fix;

static int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	f->m = ir_module_new();
	capture(f->m, &f->cap);
	f->r = pl_registry_new(f->m);
	assert_int_equal(pl_add_static(f->r, &onnxc_plugin_tp), 0);
	memset(&seen_alpha, 0, sizeof seen_alpha);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	Fix *f = *state;
	pl_registry_free(f->r);
	release(f->m, &f->cap);
	ir_free(f->m);
	free(f);
	return 0;
}

/* ------------------------------------------------------ pipeline text */

static void
test_parse_ok(void **state)
{
	Fix *f = *state;
	PmPipeline p;
	assert_int_equal(pm_parse(f->m, f->r, "--passes",
	    " alpha{n=-7, on=true,x = 2.5, s='a, b}c'} , beta-2,alpha{}",
	    &p), 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.steps[0].pass->info.name, "alpha");
	assert_int_equal(p.steps[0].opts[0].i, -7);
	assert_int_equal(p.steps[0].opts[1].i, 1);
	assert_true(p.steps[0].opts[2].f == 2.5);
	assert_string_equal(p.steps[0].opts[3].s, "a, b}c");
	assert_string_equal(p.steps[1].pass->info.name, "beta-2");
	/* defaults where nothing was given */
	assert_int_equal(p.steps[2].opts[0].i, 3);
	assert_int_equal(p.steps[2].opts[1].i, 0);
	assert_true(p.steps[2].opts[2].f == 0.25);
	assert_string_equal(p.steps[2].opts[3].s, "dflt");
	assert_int_equal(f->m->nerrors, 0);
	pm_free(&p);
	assert_int_equal(pm_parse(f->m, f->r, "--passes",
	    "alpha{on=0,s=\"x'y\"}", &p), 0);
	assert_int_equal(p.steps[0].opts[1].i, 0);
	assert_string_equal(p.steps[0].opts[3].s, "x'y");
	pm_free(&p);
}

static void
test_parse_errors(void **state)
{
	static const struct {
		const char *text;
		int col;
		const char *msg;
	} cases[] = {
		{"gamma", 1, "unknown pass 'gamma'"},
		{"alpha,gamma", 7, "unknown pass 'gamma'"},
		{"alpha{m=1}", 7, "pass 'alpha' has no option 'm'"},
		{"alpha{n=x}", 9, "takes an int, not 'x'"},
		{"alpha{n=99999999999999999999}", 9, "takes an int"},
		{"alpha{on=yes}", 10, "takes a bool"},
		{"alpha{x=1.5.2}", 9, "takes a float"},
		{"alpha{n=1", 6, "unbalanced '{'"},
		{"alpha{s='v' beta}", 13, "expected ',' or '}' after option"},
		{"alpha}", 6, "unbalanced '}'"},
		{"alpha beta-2", 7, "expected ',' or the end"},
		{"alpha,", 7, "expected a pass name, not the end"},
		{",alpha", 1, "expected a pass name, not ','"},
		{"", 1, "expected a pass name"},
		{"Alpha", 1, "expected a pass name, not 'A'"},
		{"alpha{n=1,n=2}", 11, "given twice"},
		{"alpha{s='abc}", 9, "unterminated quoted value"},
		{"alpha{n}", 8, "expected '=' after option 'n'"},
		{"alpha{n=}", 9, "expected a value"},
		{"beta-2{n=1}", 8, "pass 'beta-2' has no option 'n'"},
		{"alpha{\x01}", 7, "byte 0x01"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		Module *m = ir_module_new();
		Capture cap;
		capture(m, &cap);
		PlRegistry *r = pl_registry_new(m);
		assert_int_equal(pl_add_static(r, &onnxc_plugin_tp), 0);
		PmPipeline p;
		assert_int_equal(pm_parse(m, r, "--passes", cases[i].text, &p),
		    -1);
		pm_free(&p);
		const char *d = captured(m, &cap);
		char want[64], caret[128];
		snprintf(want, sizeof want, "--passes:1:%d: error: ",
		    cases[i].col);
		/* the text, then a caret under the offending column */
		snprintf(caret, sizeof caret, "\n  %*s^\n", cases[i].col - 1,
		    "");
		if (!strstr(d, want) || !strstr(d, cases[i].msg) ||
		    !strstr(d, caret))
			fail_msg("'%s': got\n%s", cases[i].text, d);
		assert_int_equal(m->nerrors, 1);
		pl_registry_free(r);
		release(m, &cap);
		ir_free(m);
	}
}

static void
test_parse_notes(void **state)
{
	Fix *f = *state;
	PmPipeline p;
	assert_int_equal(pm_parse(f->m, f->r, "--passes", "alph", &p), -1);
	pm_free(&p);
	assert_non_null(strstr(captured(f->m, &f->cap),
	    "note: registered passes: alpha, beta-2"));
	assert_int_equal(pm_parse(f->m, f->r, "--passes", "alpha{q=1}", &p),
	    -1);
	pm_free(&p);
	assert_non_null(strstr(captured(f->m, &f->cap),
	    "note: its options: n, on, x, s"));
}

static void
test_preset_missing_module(void **state)
{
	Fix *f = *state;
	PmTarget onnx = {.opset = 18}, ort = {.opset = 18, .ort = true};
	char buf[PM_PRESET_MAX];
	assert_string_equal(pm_preset(0, &onnx, buf, sizeof buf),
	    "inline,retype-int-div,functionalize,symbolize-shapes,lower");
	assert_null(pm_preset(3, &onnx, buf, sizeof buf));
	/* the target decides HardSwish in -O2: an .ort has no kernel */
	assert_non_null(strstr(pm_preset(2, &onnx, buf, sizeof buf),
	    ",fuse-activations{hardswish=true},dce,"));
	assert_non_null(strstr(pm_preset(2, &ort, buf, sizeof buf),
	    ",fuse-activations,dce,"));
	assert_int_equal(pm_check_preset(f->m, f->r, 1, &onnx), -1);
	const char *d = captured(f->m, &f->cap);
	assert_non_null(strstr(d, "-O1:1:1: error: no plugin provides pass "
	    "'inline': its module inline.so was expected"));
	assert_non_null(strstr(d, "-O1:1:8: error: no plugin provides pass "
	    "'retype-int-div': its module retype.so was expected"));
	assert_non_null(strstr(d, "-O1:1:23: error: no plugin provides pass "
	    "'functionalize': its module functionalize.so was expected"));
	assert_non_null(strstr(d, "'decompose': its module decompose.so was "
	    "expected"));
	assert_non_null(strstr(d, "'symbolize-shapes': its module "
	    "symbolize.so"));
}

/* ------------------------------------------------------- registration */

static void
test_registration_refused(void **state)
{
	Fix *f = *state;
	uint32_t n = f->r->npasses;
	assert_int_equal(pl_add_static(f->r, &onnxc_plugin_bad), -1);
	assert_int_equal(f->r->npasses, n);
	assert_int_equal(f->r->nplugins, 1);
	const char *d = captured(f->m, &f->cap);
	assert_non_null(strstr(d, "[bad-registrations] register_pass: pass "
	    "name 'Bad_Name' is not kebab-case"));
	assert_non_null(strstr(d, "pass 'alpha' is already registered by "
	    "plugin 'tp'"));
	assert_non_null(strstr(d, "option 'n' has a default that is not of "
	    "its type"));
	assert_non_null(strstr(d, "pass 'no-run' has no run function"));
	assert_non_null(strstr(d, "plugin 'bad-registrations' failed to "
	    "initialise"));
	/* the same plugin name twice, outside a folder search, is an error */
	assert_int_equal(pl_add_static(f->r, &onnxc_plugin_tp), -1);
	assert_non_null(strstr(captured(f->m, &f->cap),
	    "plugin 'tp' is already loaded from built-in"));
}

/* -------------------------------------------------------- host table */

/* x -> a = relu(x) -> b = neg(a); returns b */
typedef struct Small {
	GraphId g;
	ValId x;
	NodeId a, b;
} Small;

static Small
small_graph(Module *m)
{
	Small s;
	s.g = ir_graph_new(m, "g", 0);
	Graph *g = ir_graph(m, s.g);
	s.x = ir_value(g, ir_intern(m, "x"));
	Dim d = {4, 0};
	ir_set_tensor(g, s.x, DT_F32, 1, &d);
	ir_add_input(g, s.x);
	s.a = ir_node(g, D_FX, ir_intern(m, "aten::relu.default"), 1);
	ir_push_arg(g, s.a, arg_val(s.x));
	ir_val(g, ir_nodep(g, s.a)->out)->name = ir_intern(m, "a");
	s.b = ir_node(g, D_FX, ir_intern(m, "aten::neg.default"), 1);
	ir_push_arg(g, s.b, arg_val(ir_nodep(g, s.a)->out));
	ir_val(g, ir_nodep(g, s.b)->out)->name = ir_intern(m, "b");
	ir_add_output(g, ir_nodep(g, s.b)->out, OUT_USER, 0);
	return s;
}

/* a context as the pass manager makes it, for pass "beta-2" */
static void
pass_ctx(Fix *f, onnxc_ctx *c, GraphId g)
{
	pl_ctx_init(c, f->m, f->r);
	c->graph = g;
	c->pass = pl_find_pass(f->r, "beta-2", 6);
	c->opts = NULL;
	c->who = "tp";
}

static void
test_host_bad_handles(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	Small s = small_graph(f->m);
	onnxc_ctx c;
	pass_ctx(f, &c, s.g);
	onnxc_node_info ni;
	onnxc_value_info vi;
	onnxc_arg a = {.kind = ONNXC_ARG_VALUE, .ref = s.x}, out;
	onnxc_dim d[4];
	assert_int_equal(h->node_end(&c, 0), 0);
	assert_int_equal(h->node_end(&c, 99), 0);
	assert_int_equal(h->node_get(&c, s.g, 0, &ni), ONNXC_INVALID);
	assert_int_equal(h->node_get(&c, s.g, 99, &ni), ONNXC_INVALID);
	assert_int_equal(h->node_get(&c, 99, s.a, &ni), ONNXC_INVALID);
	assert_int_equal(h->node_get(&c, s.g, s.a, NULL), ONNXC_INVALID);
	assert_int_equal(h->node_get(NULL, s.g, s.a, &ni), ONNXC_INVALID);
	assert_int_equal(h->node_arg(&c, s.g, s.a, 5, &out), ONNXC_INVALID);
	assert_int_equal(h->value_get(&c, s.g, 0, &vi), ONNXC_INVALID);
	assert_int_equal(h->value_get(&c, s.g, 1000, &vi), ONNXC_INVALID);
	assert_int_equal(h->value_dims(&c, s.g, s.x, NULL, 4), ONNXC_INVALID);
	assert_int_equal(h->value_dims(&c, s.g, s.x, d, 4), ONNXC_OK);
	assert_int_equal(d[0].n, 4);
	assert_int_equal(h->input_at(&c, s.g, 7), 0);
	assert_int_equal(h->output_at(&c, 42, 0), 0);
	assert_int_equal(h->tensor_get(&c, 0, NULL), ONNXC_INVALID);
	assert_int_equal(h->tensor_get(&c, 12345, NULL), ONNXC_INVALID);
	assert_null(h->str(&c, 1u << 30));
	assert_int_equal(h->expr_get(&c, 0, NULL), ONNXC_INVALID);
	assert_int_equal(h->expr_op(&c, ONNXC_E_ADD, 1u << 30, 1), 0);
	assert_int_equal(h->expr_op(&c, ONNXC_E_SYM, 1, 1), 0);
	assert_int_equal(h->expr_print(&c, 77777, NULL, 0), -1);
	onnxc_expr e = h->expr_op(&c, ONNXC_E_MUL, h->expr_int(&c, 2),
	    h->expr_sym(&c, "s0"));
	char buf[32];
	assert_int_equal(h->expr_print(&c, e, buf, sizeof buf), 4);
	assert_string_equal(buf, "2*s0");
	/* lists: a forged handle outside the item table */
	onnxc_arg forged = {.kind = ONNXC_ARG_LIST, .list = 1000, .len = 2};
	assert_int_equal(h->list_item(&c, s.g, &forged, 0, &out),
	    ONNXC_INVALID);
	assert_int_equal(h->node_set_arg(&c, s.g, s.b, 0, &forged),
	    ONNXC_INVALID);
	/* args naming nothing */
	onnxc_arg badv = {.kind = ONNXC_ARG_VALUE, .ref = 9999};
	onnxc_arg badk = {.kind = 99};
	onnxc_arg badb = {.kind = ONNXC_ARG_BOOL, .i = 2};
	assert_int_equal(h->node_set_arg(&c, s.g, s.b, 0, &badv),
	    ONNXC_INVALID);
	assert_int_equal(h->node_set_arg(&c, s.g, s.b, 0, &badk),
	    ONNXC_INVALID);
	assert_int_equal(h->node_set_arg(&c, s.g, s.b, 0, &badb),
	    ONNXC_INVALID);
	assert_int_equal(h->node_set_arg(&c, s.g, s.b, 0, NULL),
	    ONNXC_INVALID);
	/* node_push_arg: only the node node_new made last */
	assert_int_equal(h->node_push_arg(&c, s.g, s.b, &a), ONNXC_INVALID);
	assert_int_equal(h->node_new(&c, s.g, 7, "", "x", 1), 0);
	assert_int_equal(h->node_new(&c, s.g, ONNXC_FX, "", "", 1), 0);
	assert_int_equal(h->node_new(&c, s.g, ONNXC_FX, "", NULL, 1), 0);
	onnxc_node n = h->node_new(&c, s.g, ONNXC_FX, NULL,
	    "aten::exp.default", 1);
	assert_int_not_equal(n, 0);
	assert_int_equal(h->node_push_arg(&c, s.g, n, &a), ONNXC_OK);
	assert_int_equal(h->node_push_arg(&c, s.g, s.a, &a), ONNXC_INVALID);
	assert_int_equal(h->node_erase(&c, s.g, n), ONNXC_OK);
	assert_int_equal(h->node_erase(&c, s.g, n), ONNXC_INVALID);
	assert_int_equal(h->node_get(&c, s.g, n, &ni), ONNXC_INVALID);
	assert_int_equal(h->node_push_arg(&c, s.g, n, &a), ONNXC_INVALID);
	/* types and tensors */
	onnxc_dim neg = {-3, 0}, badexpr = {0, 1u << 30};
	assert_int_equal(h->value_set_type(&c, s.g, s.x, ONNXC_DT_F32, 1,
	    &neg), ONNXC_INVALID);
	assert_int_equal(h->value_set_type(&c, s.g, s.x, ONNXC_DT_F32, 1,
	    &badexpr), ONNXC_INVALID);
	assert_int_equal(h->value_set_type(&c, s.g, s.x, ONNXC_DT_F32, 1,
	    NULL), ONNXC_INVALID);
	assert_int_equal(h->value_set_type(&c, s.g, s.x, 200, 0, NULL),
	    ONNXC_INVALID);
	assert_int_equal(h->value_set_sym(&c, s.g, s.x, ONNXC_VK_TENSOR, e),
	    ONNXC_INVALID);
	int64_t dims[2] = {2, -1};
	float data[4] = {1, 2, 3, 4};
	assert_int_equal(h->tensor_new(&c, ONNXC_DT_F32, 2, dims, data), 0);
	dims[1] = 2;
	assert_int_equal(h->tensor_new(&c, ONNXC_DT_F32, 2, dims, NULL), 0);
	assert_int_equal(h->tensor_new(&c, 0, 2, dims, data), 0);
	int64_t huge[2] = {INT64_MAX / 2, 4};
	assert_int_equal(h->tensor_new(&c, ONNXC_DT_F32, 2, huge, data), 0);
	onnxc_tensor t = h->tensor_new(&c, ONNXC_DT_F32, 2, dims, data);
	assert_int_not_equal(t, 0);
	data[0] = 99; /* copied: the tensor keeps 1 */
	onnxc_tensor_info ti;
	assert_int_equal(h->tensor_get(&c, t, &ti), ONNXC_OK);
	assert_int_equal(ti.nbytes, 16);
	assert_true(((const float *)ti.data)[0] == 1);
	/* a constant input under a name taken already gets a fresh one */
	onnxc_value k = h->constant_input(&c, s.g, "x", t);
	assert_int_not_equal(k, 0);
	assert_int_equal(h->value_get(&c, s.g, k, &vi), ONNXC_OK);
	assert_string_equal(h->str(&c, vi.name), "x_1");
	assert_int_equal(vi.role, ONNXC_ROLE_CONST);
	assert_int_equal(vi.init, t);
	/* options: this pass has none */
	int64_t i64;
	assert_int_equal(h->opt_int(&c, "n", &i64), ONNXC_INVALID);
	/* outside a lowering, the lower_* functions refuse */
	assert_int_equal(h->lower_node(&c), 0);
	assert_int_equal(h->lower_emit(&c, "", "Relu", 0, NULL, 1), 0);
	assert_int_equal(h->lower_bind(&c, 0, s.x), ONNXC_INVALID);
	/* no pass running: no changes */
	c.pass = NULL;
	assert_int_equal(h->node_new(&c, s.g, ONNXC_FX, "", "aten::x", 1), 0);
	assert_int_equal(h->replace_uses(&c, s.g, s.x, s.x), ONNXC_INVALID);
	/* reports carry the plugin's name and the node's place */
	ir_nodep(ir_graph(f->m, s.g), s.b)->loc = (Loc){3, 5};
	h->report(&c, ONNXC_SEV_WARNING, s.g, s.b, "look %d", 42);
	h->report(&c, 12345, 99, 99, "odd severity");
	h->report(NULL, 0, 0, 0, "nowhere");
	const char *dg = captured(f->m, &f->cap);
	assert_non_null(strstr(dg, ":3:5: warning: [tp] look 42"));
	assert_non_null(strstr(dg, "error: [tp] odd severity"));
	assert_null(strstr(dg, "nowhere"));
	pl_ctx_fini(&c);
}

static void
test_host_abi_1_1(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	Small s = small_graph(f->m);
	onnxc_ctx c;
	pass_ctx(f, &c, s.g);
	assert_true(ONNXC_HOST_HAS(h, node_set_name));
	onnxc_expr s0 = h->expr_sym(&c, "s0"), two = h->expr_int(&c, 2);
	onnxc_expr sum = h->expr_op(&c, ONNXC_E_ADD, s0, s0);
	onnxc_expr twice = h->expr_op(&c, ONNXC_E_MUL, two, s0);
	assert_int_equal(h->expr_simplify(&c, sum), h->expr_simplify(&c,
	    twice));
	assert_int_equal(h->expr_simplify(&c, 99999), 0);
	int64_t v = 0, seven = 7;
	assert_int_equal(h->expr_eval(&c, sum, &s0, &seven, 1, &v), ONNXC_OK);
	assert_int_equal(v, 14);
	assert_int_equal(h->expr_eval(&c, sum, NULL, NULL, 0, &v),
	    ONNXC_ERROR); /* s0 unbound */
	assert_int_equal(h->expr_eval(&c, sum, NULL, NULL, 1, &v),
	    ONNXC_INVALID);
	onnxc_expr three = h->expr_int(&c, 3);
	assert_int_equal(h->expr_eval(&c, h->expr_subst(&c, sum, s0, three),
	    NULL, NULL, 0, &v), ONNXC_OK);
	assert_int_equal(v, 6);
	assert_true(h->expr_mentions(&c, sum, s0));
	assert_false(h->expr_mentions(&c, sum, three));
	/* the range table */
	uint32_t n0 = h->range_count(&c);
	assert_int_equal(h->range_set(&c, n0 + 1, s0, 0, 1), ONNXC_INVALID);
	assert_int_equal(h->range_set(&c, n0, s0, 5, 2), ONNXC_INVALID);
	assert_int_equal(h->range_set(&c, n0, s0, 2, INT64_MAX), ONNXC_OK);
	assert_int_equal(h->range_count(&c), n0 + 1);
	onnxc_expr e;
	int64_t lo, hi;
	assert_int_equal(h->range_get(&c, n0, &e, &lo, &hi), ONNXC_OK);
	assert_int_equal(e, s0);
	assert_int_equal(lo, 2);
	assert_int_equal(h->range_erase(&c, n0), ONNXC_OK);
	assert_int_equal(h->range_count(&c), n0);
	assert_int_equal(h->range_get(&c, n0, &e, &lo, &hi), ONNXC_INVALID);
	/* provenance of a node made by a pass */
	Graph *g = ir_graph(f->m, s.g);
	g->nodes[s.a].loc = (Loc){7, 9};
	onnxc_node n = h->node_new(&c, s.g, ONNXC_FX, "", "aten::exp.default",
	    1);
	assert_int_equal(h->node_set_origin(&c, s.g, n, s.a), ONNXC_OK);
	assert_int_equal(h->node_set_origin(&c, s.g, n, 999), ONNXC_INVALID);
	assert_int_equal(h->node_set_name(&c, s.g, n, "exp_1"), ONNXC_OK);
	onnxc_node_info ni;
	assert_int_equal(h->node_get(&c, s.g, n, &ni), ONNXC_OK);
	assert_int_equal(ni.line, 7);
	assert_int_equal(ni.col, 9);
	assert_string_equal(h->str(&c, ni.name), "exp_1");
	c.pass = NULL; /* outside a pass: no changes */
	assert_int_equal(h->range_set(&c, 0, s0, 0, 1), ONNXC_INVALID);
	assert_int_equal(h->node_set_name(&c, s.g, n, "x"), ONNXC_INVALID);
	pl_ctx_fini(&c);
}

/* output_set (ABI 1.2) moves one graph output and no argument: the
 * value a node reads stays what it was. */
static void
test_host_abi_1_2_output_set(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	Small s = small_graph(f->m);
	Graph *g = ir_graph(f->m, s.g);
	ValId a = ir_nodep(g, s.a)->out, b = ir_nodep(g, s.b)->out;
	onnxc_ctx c;
	pass_ctx(f, &c, s.g);
	assert_true(ONNXC_HOST_HAS(h, output_set));
	assert_int_equal(h->value_uses(&c, s.g, a), 1);
	assert_int_equal(h->output_set(&c, s.g, 0, a), ONNXC_OK);
	assert_int_equal(h->output_at(&c, s.g, 0), a);
	assert_int_equal(h->value_uses(&c, s.g, a), 2);
	assert_int_equal(h->value_uses(&c, s.g, b), 0);
	onnxc_arg arg;
	assert_int_equal(h->node_arg(&c, s.g, s.b, 0, &arg), ONNXC_OK);
	assert_int_equal(arg.ref, a); /* b still reads a */
	assert_int_equal(h->output_set(&c, s.g, 1, a), ONNXC_INVALID);
	assert_int_equal(h->output_set(&c, s.g, 0, 99999), ONNXC_INVALID);
	c.pass = NULL;
	assert_int_equal(h->output_set(&c, s.g, 0, b), ONNXC_INVALID);
	pl_ctx_fini(&c);
}

static void
test_use_counts(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	Small s = small_graph(f->m);
	Graph *g = ir_graph(f->m, s.g);
	ValId a = ir_nodep(g, s.a)->out, b = ir_nodep(g, s.b)->out;
	onnxc_ctx c;
	pass_ctx(f, &c, s.g);
	assert_int_equal(h->value_uses(&c, s.g, s.x), 1);
	assert_int_equal(h->value_uses(&c, s.g, a), 1);
	assert_int_equal(h->value_uses(&c, s.g, b), 1); /* graph output */
	assert_int_equal(h->replace_uses(&c, s.g, a, s.x), ONNXC_OK);
	assert_int_equal(h->value_uses(&c, s.g, a), 0);
	assert_int_equal(h->value_uses(&c, s.g, s.x), 2);
	assert_int_equal(h->node_erase(&c, s.g, s.a), ONNXC_OK);
	assert_int_equal(h->value_uses(&c, s.g, s.x), 1);
	/* a list argument counts each element */
	onnxc_arg items[2] = {{.kind = ONNXC_ARG_VALUE, .ref = s.x},
		{.kind = ONNXC_ARG_VALUE, .ref = s.x}}, list;
	assert_int_equal(h->make_list(&c, s.g, ONNXC_ARG_LIST, items, 2,
	    &list), ONNXC_OK);
	onnxc_node n = h->node_new(&c, s.g, ONNXC_FX, "", "aten::cat.default",
	    1);
	assert_int_equal(h->node_push_arg(&c, s.g, n, &list), ONNXC_OK);
	assert_int_equal(h->value_uses(&c, s.g, s.x), 3);
	onnxc_arg item;
	assert_int_equal(h->list_item(&c, s.g, &list, 1, &item), ONNXC_OK);
	assert_int_equal(item.ref, s.x);
	assert_int_equal(h->list_item(&c, s.g, &list, 2, &item),
	    ONNXC_INVALID);
	assert_int_equal(ir_normalize(f->m, s.g, c.base[s.g] - 1, "test"), 0);
	assert_int_equal(ir_verify(f->m, s.g), 0);
	pl_ctx_fini(&c);
}

/* --------------------------------------------------------- normalize */

static void
test_normalize_orders_new_nodes(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	Small s = small_graph(f->m);
	Graph *g = ir_graph(f->m, s.g);
	ValId b = ir_nodep(g, s.b)->out;
	onnxc_ctx c;
	pass_ctx(f, &c, s.g);
	/* neg(relu(x)) -> neg(exp(x)), exp made at the end, relu erased */
	onnxc_arg x = {.kind = ONNXC_ARG_VALUE, .ref = s.x};
	onnxc_node e = h->node_new(&c, s.g, ONNXC_FX, "", "aten::exp.default",
	    1);
	onnxc_node_info ei;
	assert_int_equal(h->node_push_arg(&c, s.g, e, &x), ONNXC_OK);
	assert_int_equal(h->node_get(&c, s.g, e, &ei), ONNXC_OK);
	onnxc_arg ev = {.kind = ONNXC_ARG_VALUE, .ref = ei.out};
	assert_int_equal(h->node_set_arg(&c, s.g, s.b, 0, &ev), ONNXC_OK);
	assert_int_equal(h->node_erase(&c, s.g, s.a), ONNXC_OK);
	/* an unused new node goes to the end */
	onnxc_node u = h->node_new(&c, s.g, ONNXC_FX, "", "aten::sin.default",
	    1);
	assert_int_equal(h->node_push_arg(&c, s.g, u, &x), ONNXC_OK);
	assert_int_equal(ir_verify(f->m, s.g), -1); /* neg uses exp early */
	assert_int_equal(ir_normalize(f->m, s.g, c.base[s.g] - 1, "test"), 0);
	g = ir_graph(f->m, s.g);
	assert_int_equal(g->nnodes, 4);
	assert_string_equal(ir_str(f->m, g->nodes[1].op), "aten::exp.default");
	assert_string_equal(ir_str(f->m, g->nodes[2].op), "aten::neg.default");
	assert_string_equal(ir_str(f->m, g->nodes[3].op), "aten::sin.default");
	assert_int_equal(ir_val(g, b)->def, 2);
	assert_int_equal(ir_val(g, ei.out)->def, 1);
	assert_int_equal(g->nargs, 3); /* the erased node's arg is gone */
	int errs = f->m->nerrors;
	assert_int_equal(ir_verify(f->m, s.g), 0);
	assert_int_equal(f->m->nerrors, errs);
	pl_ctx_fini(&c);
}

static void
test_normalize_dangling_and_cycle(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	Small s = small_graph(f->m);
	onnxc_ctx c;
	pass_ctx(f, &c, s.g);
	assert_int_equal(h->node_erase(&c, s.g, s.a), ONNXC_OK);
	assert_int_equal(ir_normalize(f->m, s.g, c.base[s.g] - 1,
	    "pass 'x'"), -1);
	assert_non_null(strstr(captured(f->m, &f->cap), "error: pass 'x': "
	    "'a' is still used by aten::neg.default after the node defining "
	    "it was erased"));
	pl_ctx_fini(&c);

	Small t = small_graph(f->m);
	Graph *g = ir_graph(f->m, t.g);
	pass_ctx(f, &c, t.g);
	onnxc_arg bv = {.kind = ONNXC_ARG_VALUE,
		.ref = ir_nodep(g, t.b)->out};
	assert_int_equal(h->node_set_arg(&c, t.g, t.a, 0, &bv), ONNXC_OK);
	assert_int_equal(ir_normalize(f->m, t.g, c.base[t.g] - 1,
	    "pass 'y'"), -1);
	assert_non_null(strstr(captured(f->m, &f->cap), "pass 'y': nodes "
	    "form a cycle"));
	pl_ctx_fini(&c);
}

/* ------------------------------------------------------- pass manager */

static void
test_pm_run(void **state)
{
	Fix *f = *state;
	Small s = small_graph(f->m);
	PmPipeline p;
	assert_int_equal(pm_parse(f->m, f->r, "--passes",
	    "alpha{n=5,s='hi there'},beta-2,alpha", &p), 0);
	char *out = NULL;
	size_t len = 0;
	FILE *ir = open_memstream(&out, &len);
	PmRun run = {.opset = 18, .print_after = "beta-2", .irout = ir,
		.verify_each = true};
	GraphId g = s.g;
	assert_int_equal(pm_run(f->m, f->r, &p, &run, &g), 0);
	fclose(ir);
	assert_int_equal(g, s.g);
	assert_int_equal(seen_alpha.runs, 2);
	assert_int_equal(seen_alpha.n, 3); /* the second run: defaults */
	assert_non_null(strstr(out, "// IR after beta-2\ngraph g("));
	assert_null(strstr(out, "after alpha"));
	free(out);
	pm_free(&p);
}

/* --------------------------------------------------------- the loader */

static char *
test_plugin(const char *name)
{
	const char *bin = getenv("ONNXC_BIN");
	if (!bin)
		return NULL;
	const char *slash = strrchr(bin, '/');
	size_t n = slash ? (size_t)(slash - bin) : 0;
	char *p = malloc(n + strlen(name) + 32);
	sprintf(p, "%.*s%stest-plugins/%s.so", (int)n, bin, n ? "/" : "",
	    name);
	if (access(p, R_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void
load_fails(Fix *f, const char *name, const char *msg)
{
	char *p = test_plugin(name);
	if (!p)
		skip();
	uint32_t np = f->r->nplugins, npass = f->r->npasses;
	assert_int_equal(pl_load(f->r, p), -1);
	assert_int_equal(f->r->nplugins, np);
	assert_int_equal(f->r->npasses, npass);
	const char *d = captured(f->m, &f->cap);
	if (!strstr(d, name) || !strstr(d, msg))
		fail_msg("%s: got\n%s", name, d);
	free(p);
}

static void
test_load_no_descriptor(void **state)
{
	load_fails(*state, "no_descriptor", "exports no 'onnxc_plugin' "
	    "descriptor");
}

static void
test_load_function_descriptor(void **state)
{
	load_fails(*state, "function_descriptor", "its 'onnxc_plugin' is not "
	    "a descriptor");
}

static void
test_load_wrong_abi(void **state)
{
	/* init would abort: the ABI is checked from the data alone */
	load_fails(*state, "wrong_abi", "plugin built for plugin ABI 2.0");
}

static void
test_load_init_fails(void **state)
{
	load_fails(*state, "init_fail", "plugin 'init-fail' failed to "
	    "initialise");
	Fix *f = *state;
	assert_non_null(strstr(captured(f->m, &f->cap),
	    "error: [init-fail] cannot find its configuration"));
	assert_null(pl_find_pass(f->r, "init-fail-pass", 14));
}

static void
test_load_ok_and_once(void **state)
{
	Fix *f = *state;
	char *p = test_plugin("options");
	if (!p)
		skip();
	assert_int_equal(pl_load(f->r, p), 0);
	const PlPass *o = pl_find_pass(f->r, "opts", 4);
	assert_non_null(o);
	assert_int_equal(o->info.noptions, 4);
	assert_non_null(strstr(pl_where(f->r, o->plugin),
	    "test-plugins/options.so"));
	uint32_t n = f->r->nplugins;
	assert_int_equal(pl_load(f->r, p), 0); /* the same file: once */
	assert_int_equal(f->r->nplugins, n);
	free(p);
}

static void
test_load_not_a_module(void **state)
{
	Fix *f = *state;
	char path[] = "/tmp/onnxc-notso-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
	close(fd);
	assert_int_equal(pl_load(f->r, path), -1);
	assert_non_null(strstr(captured(f->m, &f->cap),
	    "not a loadable plugin module"));
	unlink(path);
	assert_int_equal(pl_load(f->r, "/nonexistent/x.so"), -1);
	assert_non_null(strstr(captured(f->m, &f->cap),
	    "/nonexistent/x.so: error: cannot load plugin: No such file"));
	assert_int_equal(pl_load_dir(f->r, "/nonexistent"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parse_ok, setup, teardown),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test_setup_teardown(test_parse_notes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_preset_missing_module,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_registration_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_bad_handles, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_host_abi_1_1, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_host_abi_1_2_output_set,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_use_counts, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_normalize_orders_new_nodes,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_normalize_dangling_and_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pm_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_function_descriptor,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_no_descriptor, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_load_wrong_abi, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_load_init_fails, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_load_ok_and_once, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_load_not_a_module, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
