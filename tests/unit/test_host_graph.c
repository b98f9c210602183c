/* test_host_graph.c - ABI 1.4 of the plugin host: graphs that nest
 * (graph_new, graph_parent, input_add, a body attached as a node's graph
 * argument with its captures), outputs and their kinds, each call on bad
 * handles; pass contracts checked by the pipeline (pm_check), and a pass
 * descriptor of ABI 1.3 registered without a contract. */
#define ONNXC_PLUGIN_STATIC
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/pipeline.h"
#include "plugins/pl.h"

static onnxc_status
run_nothing(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)ctx;
	(void)host;
	(void)user;
	return ONNXC_OK;
}

/* "edit": no contract bits (either dialect); "needs-func": needs
 * 'functional'; "make-func": provides it; "old": a 1.3 descriptor. */
static onnxc_status
init_nest(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_pass_info edit = {
		.size = sizeof edit, .name = "edit", .run = run_nothing,
	};
	static const onnxc_pass_info needs = {
		.size = sizeof needs, .name = "needs-func", .run = run_nothing,
		.needs = ONNXC_PROP_FUNCTIONAL | ONNXC_PROP_FX,
	};
	static const onnxc_pass_info makes = {
		.size = sizeof makes, .name = "make-func", .run = run_nothing,
		.needs = ONNXC_PROP_FX, .provides = ONNXC_PROP_FUNCTIONAL,
	};
	static const onnxc_pass_info old = {
		.size = offsetof(onnxc_pass_info, needs), .name = "old",
		.run = run_nothing,
	};
	(void)ctx;
	if (host->register_pass(reg, &edit) ||
	    host->register_pass(reg, &needs) ||
	    host->register_pass(reg, &makes) || host->register_pass(reg, &old))
		return ONNXC_ERROR;
	return ONNXC_OK;
}

ONNXC_PLUGIN_NAMED(nest, "nest", "1", init_nest, NULL);

/* A pass declaring a property onnxc does not know is refused. */
static onnxc_status
init_unknown(onnxc_ctx *ctx, const onnxc_host_api *host,
    onnxc_registry *reg)
{
	static const onnxc_pass_info p = {
		.size = sizeof p, .name = "future", .run = run_nothing,
		.needs = 1u << 30,
	};
	(void)ctx;
	return host->register_pass(reg, &p) == ONNXC_INVALID ? ONNXC_ERROR
	    : ONNXC_OK;
}

ONNXC_PLUGIN_NAMED(unknown, "unknown-prop", "1", init_unknown, NULL);

typedef struct Fix {
	Module *m;
	PlRegistry *r;
	char *diag;
	size_t ndiag;
	onnxc_ctx c;
	GraphId g;   /* x: f32[4] -> nothing yet */
	ValId x;
} Fix;

static int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	f->m = ir_module_new();
	f->m->diagout = open_memstream(&f->diag, &f->ndiag);
	f->r = pl_registry_new(f->m);
	assert_int_equal(pl_add_static(f->r, &onnxc_plugin_nest), 0);
	f->g = ir_graph_new(f->m, "g", 0);
	Graph *g = ir_graph(f->m, f->g);
	f->x = ir_value(g, ir_intern(f->m, "x"));
	Dim d = {4, 0};
	ir_set_tensor(g, f->x, DT_F32, 1, &d);
	ir_add_input(g, f->x);
	pl_ctx_init(&f->c, f->m, f->r);
	f->c.graph = f->g;
	f->c.pass = pl_find_pass(f->r, "edit", 4);
	f->c.who = "nest";
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	Fix *f = *state;
	pl_ctx_fini(&f->c);
	pl_registry_free(f->r);
	fclose(f->m->diagout);
	f->m->diagout = NULL;
	free(f->diag);
	ir_free(f->m);
	free(f);
	return 0;
}

static const char *
diags(Fix *f)
{
	fflush(f->m->diagout);
	return f->diag ? f->diag : "";
}

/* x -> If(true) { Relu(x) } else { Neg(x) } -> output, every part made
 * through the host: a valid nested graph whose bodies capture x. */
static void
test_build_if(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	onnxc_ctx *c = &f->c;
	onnxc_dim d4 = {4, 0};
	onnxc_graph body[2];
	const char *ops[2] = {"Relu", "Neg"};
	for (int i = 0; i < 2; i++) {
		body[i] = h->graph_new(c, i ? "else" : "then", f->g);
		assert_int_not_equal(body[i], 0);
		assert_int_equal(h->graph_parent(c, body[i]), f->g);
		onnxc_value in = h->input_add(c, body[i], "x_outer",
		    ONNXC_ROLE_OUTER, 0);
		assert_int_not_equal(in, 0);
		assert_int_equal(h->value_set_type(c, body[i], in,
		    ONNXC_DT_F32, 1, &d4), ONNXC_OK);
		onnxc_node n = h->node_new(c, body[i], ONNXC_ONNX, "", ops[i],
		    1);
		onnxc_arg a = {.kind = ONNXC_ARG_VALUE, .ref = in};
		onnxc_node_info ni;
		assert_int_equal(h->node_push_arg(c, body[i], n, &a), ONNXC_OK);
		assert_int_equal(h->node_get(c, body[i], n, &ni), ONNXC_OK);
		assert_int_equal(h->value_set_type(c, body[i], ni.out,
		    ONNXC_DT_F32, 1, &d4), ONNXC_OK);
		assert_int_equal(h->output_add(c, body[i], ni.out,
		    ONNXC_OUT_USER, 0), ONNXC_OK);
		/* an outer value is no graph input of the body */
		assert_int_equal(h->input_count(c, body[i]), 0);
	}
	assert_int_equal(h->graph_parent(c, f->g), 0);
	uint8_t one = 1;
	onnxc_value cond = h->constant_input(c, f->g, "cond",
	    h->tensor_new(c, ONNXC_DT_BOOL, 0, NULL, &one));
	onnxc_node n = h->node_new(c, f->g, ONNXC_ONNX, "", "If", 1);
	onnxc_arg args[4] = {
		{.kind = ONNXC_ARG_VALUE, .ref = cond},
		{.kind = ONNXC_ARG_VALUE, .ref = f->x,
		    .key = h->intern(c, IR_CAPTURE)},
		{.kind = ONNXC_ARG_GRAPH, .ref = body[0],
		    .key = h->intern(c, "then_branch")},
		{.kind = ONNXC_ARG_GRAPH, .ref = body[1],
		    .key = h->intern(c, "else_branch")},
	};
	for (int i = 0; i < 4; i++)
		assert_int_equal(h->node_push_arg(c, f->g, n, &args[i]),
		    ONNXC_OK);
	onnxc_node_info ni;
	assert_int_equal(h->node_get(c, f->g, n, &ni), ONNXC_OK);
	assert_int_equal(h->value_set_type(c, f->g, ni.out, ONNXC_DT_F32, 1,
	    &d4), ONNXC_OK);
	assert_int_equal(h->output_add(c, f->g, ni.out, ONNXC_OUT_USER, 0),
	    ONNXC_OK);
	assert_int_equal(h->value_uses(c, f->g, ni.out), 1);
	/* kinds read back and set */
	uint32_t kind = 99;
	onnxc_str target = 99;
	assert_int_equal(h->output_kind(c, f->g, 0, &kind, &target),
	    ONNXC_OK);
	assert_int_equal(kind, ONNXC_OUT_USER);
	assert_int_equal(target, 0);
	onnxc_str buf = h->intern(c, "buf");
	assert_int_equal(h->output_set_kind(c, f->g, 0,
	    ONNXC_OUT_BUFFER_MUTATION, buf), ONNXC_OK);
	assert_int_equal(h->output_kind(c, f->g, 0, &kind, NULL), ONNXC_OK);
	assert_int_equal(kind, ONNXC_OUT_BUFFER_MUTATION);
	assert_int_equal(ir_graph(f->m, f->g)->outtarget[0], buf);
	assert_int_equal(h->output_set_kind(c, f->g, 0, ONNXC_OUT_USER, 0),
	    ONNXC_OK);
	/* the host marked every graph it touched, so the pass manager
	 * normalizes them; the verifier walks the bodies */
	for (GraphId k = f->g; k <= body[1]; k++) {
		assert_true(k < f->c.cbase && f->c.base[k] != 0);
		assert_int_equal(ir_normalize(f->m, k, f->c.base[k] - 1,
		    "test"), 0);
	}
	assert_int_equal(ir_verify(f->m, f->g), 0);
	/* a body that captures more than its node lists is caught there */
	assert_int_not_equal(h->input_add(c, body[0], "y", ONNXC_ROLE_OUTER,
	    1), 0);
	assert_int_equal(ir_verify(f->m, f->g), -1);
	assert_non_null(strstr(diags(f), "outer-scope value that is no "
	    "capture"));
}

/* Bad handles and arguments: values, never a crash. */
static void
test_bad_handles(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	onnxc_ctx *c = &f->c;
	assert_int_equal(h->graph_new(c, "", f->g), 0);
	assert_int_equal(h->graph_new(c, NULL, f->g), 0);
	assert_int_equal(h->graph_new(c, "b", 999), 0);
	assert_int_equal(h->graph_new(NULL, "b", 0), 0);
	assert_int_equal(h->graph_parent(c, 0), 0);
	assert_int_equal(h->graph_parent(c, 999), 0);
	assert_int_equal(h->graph_parent(NULL, f->g), 0);
	/* outer values only in a subgraph; constants through
	 * constant_input; no unknown role */
	assert_int_equal(h->input_add(c, f->g, "o", ONNXC_ROLE_OUTER, 0), 0);
	assert_int_equal(h->input_add(c, f->g, "k", ONNXC_ROLE_CONST, 0), 0);
	assert_int_equal(h->input_add(c, f->g, "k", 42, 0), 0);
	assert_int_equal(h->input_add(c, 999, "k", ONNXC_ROLE_USER_INPUT, 0),
	    0);
	onnxc_value in = h->input_add(c, f->g, "y", ONNXC_ROLE_USER_INPUT, 0);
	assert_int_not_equal(in, 0);
	assert_int_equal(h->input_at(c, f->g, 1), in);
	assert_int_equal(h->output_add(c, f->g, 0, ONNXC_OUT_USER, 0),
	    ONNXC_INVALID);
	assert_int_equal(h->output_add(c, f->g, 999, ONNXC_OUT_USER, 0),
	    ONNXC_INVALID);
	assert_int_equal(h->output_add(c, f->g, f->x, 8, 0), ONNXC_INVALID);
	assert_int_equal(h->output_add(c, f->g, f->x, ONNXC_OUT_USER,
	    999999), ONNXC_INVALID);
	assert_int_equal(h->output_add(c, 999, f->x, ONNXC_OUT_USER, 0),
	    ONNXC_INVALID);
	assert_int_equal(h->output_kind(c, f->g, 0, NULL, NULL),
	    ONNXC_INVALID);   /* no output yet */
	assert_int_equal(h->output_add(c, f->g, f->x, ONNXC_OUT_USER, 0),
	    ONNXC_OK);
	assert_int_equal(h->output_kind(c, f->g, 1, NULL, NULL),
	    ONNXC_INVALID);
	assert_int_equal(h->output_kind(c, 999, 0, NULL, NULL),
	    ONNXC_INVALID);
	assert_int_equal(h->output_set_kind(c, f->g, 0, 8, 0), ONNXC_INVALID);
	assert_int_equal(h->output_set_kind(c, f->g, 1, 0, 0), ONNXC_INVALID);
	/* a graph argument must be a body of the node's graph */
	onnxc_graph top = h->graph_new(c, "top", 0);
	onnxc_graph sub = h->graph_new(c, "sub", f->g);
	onnxc_graph subsub = h->graph_new(c, "subsub", sub);
	assert_int_not_equal(subsub, 0);
	onnxc_node n = h->node_new(c, f->g, ONNXC_ONNX, "", "If", 1);
	onnxc_arg ga = {.kind = ONNXC_ARG_GRAPH, .ref = top};
	assert_int_equal(h->node_push_arg(c, f->g, n, &ga), ONNXC_INVALID);
	ga.ref = subsub;
	assert_int_equal(h->node_push_arg(c, f->g, n, &ga), ONNXC_INVALID);
	ga.ref = f->g;
	assert_int_equal(h->node_push_arg(c, f->g, n, &ga), ONNXC_INVALID);
	ga.ref = sub;
	assert_int_equal(h->node_push_arg(c, f->g, n, &ga), ONNXC_OK);
	/* outside a pass (during init, say) nothing is made */
	c->pass = NULL;
	assert_int_equal(h->graph_new(c, "late", 0), 0);
	assert_int_equal(h->output_add(c, f->g, f->x, ONNXC_OUT_USER, 0),
	    ONNXC_INVALID);
	assert_int_equal(h->output_set_kind(c, f->g, 0, 0, 0), ONNXC_INVALID);
	/* reading needs no pass */
	assert_int_equal(h->graph_parent(c, subsub), sub);
	assert_int_equal(h->output_kind(c, f->g, 0, NULL, NULL), ONNXC_OK);
}

/* A host table of ABI 1.3 (smaller size): plugins testing with
 * ONNXC_HOST_HAS see no 1.4 member. */
static void
test_host_has(void **state)
{
	(void)state;
	onnxc_host_api old = pl_host;
	assert_true(ONNXC_HOST_HAS(&pl_host, graph_new));
	assert_true(ONNXC_HOST_HAS(&pl_host, output_set_kind));
	old.size = offsetof(onnxc_host_api, graph_new);
	assert_false(ONNXC_HOST_HAS(&old, graph_new));
	assert_false(ONNXC_HOST_HAS(&old, output_set_kind));
	assert_true(ONNXC_HOST_HAS(&old, input_erase));
	assert_true(pl_host.abi_minor >= 4);
}


/* ABI 1.5: graph_ops lists each op of a graph and its bodies once, an
 * erased node's not at all. */
static void
test_graph_ops(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	onnxc_ctx *c = &f->c;
	Graph *g = ir_graph(f->m, f->g);
	GraphId b = ir_graph_new(f->m, "b", f->g);
	GraphId bb = ir_graph_new(f->m, "bb", b);
	g = ir_graph(f->m, f->g);
	ir_node(ir_graph(f->m, b), D_ONNX, ir_intern(f->m, "Sin"), 1);
	NodeId inner = ir_node(ir_graph(f->m, b), D_ONNX,
	    ir_intern(f->m, "Loop"), 1);
	ir_push_arg(ir_graph(f->m, b), inner, (Arg){.kind = A_GRAPH,
	    .u.g = bb});
	ir_node(ir_graph(f->m, bb), D_ONNX, ir_intern(f->m, "Relu"), 1);
	ir_node(ir_graph(f->m, bb), D_ONNX, ir_intern(f->m, "Cos"), 1);
	const char *main_ops[] = {"Relu", "Relu", "Neg", "Abs", "Relu"};
	for (int i = 0; i < 5; i++)
		ir_node(g, D_ONNX, ir_intern(f->m, main_ops[i]), 1);
	g->nodes[4].op = 0; /* Abs erased */
	NodeId n = ir_node(g, D_ONNX, ir_intern(f->m, "If"), 1);
	ir_push_arg(g, n, (Arg){.kind = A_GRAPH, .u.g = b});
	ir_push_arg(g, n, (Arg){.kind = A_GRAPH, .u.g = b});
	onnxc_str ops[8] = {0};
	assert_int_equal(h->graph_ops(c, f->g, ops, 8), 6);
	const char *want[] = {"Relu", "Neg", "If", "Sin", "Loop", "Cos"};
	for (int i = 0; i < 6; i++) {
		int found = 0;
		for (int k = 0; k < 6; k++)
			found += ops[k] == ir_intern(f->m, want[i]);
		assert_int_equal(found, 1);
	}
	assert_int_equal(ops[6], 0);
	/* the count whatever the room; a body alone; bad handles */
	assert_int_equal(h->graph_ops(c, f->g, ops, 2), 6);
	assert_int_equal(h->graph_ops(c, f->g, NULL, 0), 6);
	assert_int_equal(h->graph_ops(c, bb, ops, 8), 2);
	assert_int_equal(h->graph_ops(c, 999, ops, 8), 0);
	assert_int_equal(h->graph_ops(c, f->g, NULL, 8), 0);
	assert_true(ONNXC_HOST_HAS(h, graph_ops));
	assert_true(pl_host.abi_minor >= 5);
}


/* ABI 1.5: node_read is node_get and node_arg in one call. */
static void
test_node_read(void **state)
{
	Fix *f = *state;
	const onnxc_host_api *h = &pl_host;
	onnxc_ctx *c = &f->c;
	Graph *g = ir_graph(f->m, f->g);
	NodeId n = ir_node(g, D_FX, ir_intern(f->m, "aten::mix.default"), 2);
	Arg items[2] = {arg_int(3), arg_val(f->x)};
	ir_push_arg(g, n, arg_val(f->x));
	ir_push_arg(g, n, arg_float(2.5));
	ir_push_arg(g, n, ir_list(g, A_LIST, items, 2));
	ir_push_arg(g, n, arg_keyed(arg_str(ir_intern(f->m, "s")),
	    ir_intern(f->m, "k")));
	onnxc_node_info a, b;
	onnxc_arg args[8], one;
	memset(args, 0xab, sizeof args);
	assert_int_equal(h->node_read(c, f->g, n, &a, args, 8), ONNXC_OK);
	assert_int_equal(h->node_get(c, f->g, n, &b), ONNXC_OK);
	assert_memory_equal(&a, &b, sizeof a);
	assert_int_equal(a.nargs, 4);
	assert_int_equal(a.npos, 3);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(h->node_arg(c, f->g, n, i, &one), ONNXC_OK);
		assert_memory_equal(&args[i], &one, sizeof one);
	}
	/* only cap of them; none at all with cap 0 */
	memset(args, 0xab, sizeof args);
	assert_int_equal(h->node_read(c, f->g, n, &a, args, 2), ONNXC_OK);
	assert_int_equal(args[1].kind, ONNXC_ARG_FLOAT);
	assert_int_equal(args[2].kind, 0xabababab);
	assert_int_equal(h->node_read(c, f->g, n, &a, NULL, 0), ONNXC_OK);
	/* bad handles */
	assert_int_equal(h->node_read(c, f->g, n, &a, NULL, 4), ONNXC_INVALID);
	assert_int_equal(h->node_read(c, f->g, n + 1, &a, args, 4),
	    ONNXC_INVALID);
	assert_int_equal(h->node_read(c, 999, n, &a, args, 4), ONNXC_INVALID);
	assert_int_equal(h->node_read(c, f->g, n, NULL, args, 4),
	    ONNXC_INVALID);
	assert_true(ONNXC_HOST_HAS(h, node_read));
}

static int
check(Fix *f, const char *text, uint32_t have, uint32_t want)
{
	PmPipeline p;
	assert_int_equal(pm_parse(f->m, f->r, "--passes", text, &p), 0);
	int rc = pm_check(f->m, f->r, &p, have, want);
	pm_free(&p);
	return rc;
}

static void
test_contracts(void **state)
{
	Fix *f = *state;
	const PlPass *old = pl_find_pass(f->r, "old", 3);
	assert_false(old->contract);
	assert_true(pl_find_pass(f->r, "needs-func", 10)->contract);
	assert_int_equal(check(f, "make-func,needs-func", ONNXC_PROP_FX, 0),
	    0);
	/* a pass without a contract is not checked, and keeps properties */
	assert_int_equal(check(f, "old,make-func,old,needs-func",
	    ONNXC_PROP_ONNX, 0), -1);
	assert_non_null(strstr(diags(f), "--passes:1:5: error: pass "
	    "'make-func' needs property 'fx'"));
	assert_int_equal(check(f, "make-func,old,needs-func", ONNXC_PROP_FX,
	    0), 0);
	assert_int_equal(check(f, "edit,needs-func", ONNXC_PROP_FX, 0), -1);
	assert_non_null(strstr(diags(f), "--passes:1:6: error: pass "
	    "'needs-func' needs property 'functional' (no in-place ops): no "
	    "pass before it provides it\n  edit,needs-func\n       ^"));
	assert_non_null(strstr(diags(f), "note: pass 'make-func' provides "
	    "'functional': run it before 'needs-func'"));
	assert_int_equal(check(f, "make-func,edit", ONNXC_PROP_FX,
	    ONNXC_PROP_FUNCTIONAL), 0);
	assert_int_equal(check(f, "edit", ONNXC_PROP_FX,
	    ONNXC_PROP_FUNCTIONAL), -1);
	assert_non_null(strstr(diags(f), "the pipeline leaves a graph "
	    "without property 'functional' (no in-place ops), which cannot "
	    "be written: it needs the pass 'make-func'"));
	/* undeclared properties are refused at registration */
	int bad = f->m->nerrors;
	assert_int_equal(pl_add_static(f->r, &onnxc_plugin_unknown), -1);
	assert_true(f->m->nerrors > bad);
	assert_non_null(strstr(diags(f), "pass 'future' declares properties "
	    "this onnxc does not know"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_if, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_handles, setup,
		    teardown),
		cmocka_unit_test(test_host_has),
		cmocka_unit_test_setup_teardown(test_graph_ops, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_node_read, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_contracts, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
