/* test_meta.c - torch.onnx's metadata texts (backend/meta.c) on graphs
 * built by hand: the module-stack views, format_node(), stripped paths
 * and the signature. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/onnx.h"

typedef struct Fix {
	Module *m;
	GraphId fx;
	NodeId lin, out;  /* FX nodes: linear, and one that reads it */
} Fix;

/* a text is want: its length, then its bytes (texts of a node lie one
 * after another, not NUL-terminated) */
#define assert_text(t, want) do { \
	assert_int_equal((t).n, strlen(want)); \
	if ((t).n) \
		assert_memory_equal((t).s, want, (t).n); \
} while (0)

static StrId
S(Fix *f, const char *s)
{
	return ir_intern(f->m, s);
}

/* def forward(x, p_w, b_rm): linear = aten.linear(x, p_w, None);
 * to = aten.to.dtype(linear, torch.float16, copy=False);
 * cat = aten.cat([linear, linear], -1); scale = mul(linear, 0.5);
 * return (cat, scale) */
static int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	f->m = ir_module_new();
	Module *m = f->m;
	f->fx = ir_graph_new(m, "fx", 0);
	m->main = f->fx;
	Graph *g = ir_graph(m, f->fx);
	Dim d[2] = {{2, 0}, {3, 0}};
	const char *in[] = {"p_w", "b_rm", "x"};
	const uint8_t role[] = {ROLE_PARAM, ROLE_BUFFER, ROLE_USER_INPUT};
	ValId v[3];
	for (int i = 0; i < 3; i++) {
		v[i] = ir_value(g, S(f, in[i]));
		ir_set_tensor(g, v[i], DT_F32, 2, d);
		ir_val(g, v[i])->role = role[i];
		ir_add_input(g, v[i]);
	}
	ir_val(g, v[0])->target = S(f, "fc.weight");
	ir_val(g, v[1])->target = S(f, "bn.running_mean");
	ir_val(g, v[1])->persist = PERSIST_YES;

	f->lin = ir_node(g, D_FX, S(f, "aten::linear.default"), 1);
	Node *n = ir_nodep(g, f->lin);
	n->name = S(f, "linear");
	n->scope = S(f, "\tmymodel.Net\nblocks.0\tmymodel.Block\n"
	    "blocks.0.fc\ttorch.nn.modules.linear.Linear");
	n->trace = S(f, "File \"/home/u/proj/mymodel.py\", line 7, in "
	    "forward\n    return self.fc(x)\nFile: /opt/lib/linear.py:134 "
	    "in forward, code: return F.linear(input)");
	ir_val(g, n->out)->name = S(f, "linear");
	ir_push_arg(g, f->lin, arg_val(v[2]));
	ir_push_arg(g, f->lin, arg_val(v[0]));
	ir_push_arg(g, f->lin, arg_none());
	ValId lin = ir_nodep(g, f->lin)->out;

	NodeId to = ir_node(g, D_FX, S(f, "aten::to.dtype"), 1);
	ir_nodep(g, to)->name = S(f, "to");
	ir_push_arg(g, to, arg_val(lin));
	ir_push_arg(g, to, (Arg){.kind = A_DTYPE, .u.i = DT_F16});
	ir_push_arg(g, to, arg_keyed(arg_bool(false), S(f, "copy")));

	NodeId cat = ir_node(g, D_FX, S(f, "aten::cat.default"), 1);
	ir_nodep(g, cat)->name = S(f, "cat");
	ir_val(g, ir_nodep(g, cat)->out)->name = S(f, "cat");
	Arg two[2] = {arg_val(lin), arg_val(lin)};
	ir_push_arg(g, cat, ir_list(g, A_LIST, two, 2));
	ir_push_arg(g, cat, arg_int(-1));

	f->out = ir_node(g, D_FX, S(f, "_operator::mul"), 1);
	ir_nodep(g, f->out)->name = S(f, "scale");
	ir_val(g, ir_nodep(g, f->out)->out)->name = S(f, "scale");
	ir_push_arg(g, f->out, arg_val(lin));
	ir_push_arg(g, f->out, arg_float(0.5));

	ir_add_output(g, ir_nodep(g, cat)->out, OUT_USER, 0);
	ir_add_output(g, lin, OUT_BUFFER_MUTATION, S(f, "bn.running_mean"));
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	Fix *f = *state;
	ir_free(f->m);
	free(f);
	return 0;
}

/* An ONNX node lowered from FX node name. */
static Node
onnx_node(Fix *f, const char *name)
{
	return (Node){.op = S(f, "Gemm"), .dialect = D_ONNX,
		.name = S(f, name)};
}

/* Measuring (the writer's sizing walk) gives each text's length, and no
 * text where one would be made. */
static void
check_measure(BeMeta *x, const Node *n, const BeNodeMeta *want)
{
	BeNodeMeta got;
	be_meta_measure(x, true);
	assert_true(be_meta_node(x, n, &got));
	be_meta_measure(x, false);
	const BeText *g = &got.ns, *w = &want->ns;
	for (int i = 0; i < 5; i++) {
		assert_int_equal(g[i].n, w[i].n);
		if (g[i].s)   /* only a text kept as it is (a trace) */
			assert_string_equal(g[i].s, w[i].s);
	}
	assert_null(got.ns.s);
	assert_null(got.fx_node.s);
}

static void
test_module_stack(void **state)
{
	Fix *f = *state;
	BeMeta *x = be_meta_new(f->m, false);
	Node n = onnx_node(f, "linear");
	BeNodeMeta nm;
	assert_true(be_meta_node(x, &n, &nm));
	/* as _get_node_namespace builds them from nn_module_stack */
	assert_text(nm.ns, ": mymodel.Net/blocks.0: mymodel.Block/"
	    "blocks.0.fc: torch.nn.modules.linear.Linear/"
	    "linear: aten.linear.default");
	assert_text(nm.classes, "['mymodel.Net', 'mymodel.Block', "
	    "'torch.nn.modules.linear.Linear', 'aten.linear.default']");
	assert_text(nm.scopes, "['', 'blocks.0', 'blocks.0.fc', "
	    "'linear']");
	/* linear feeds to, cat (twice: one user) and scale, and is an
	 * output: four users */
	assert_text(nm.fx_node, "%linear : [num_users=4] = "
	    "call_function[target=torch.ops.aten.linear.default](args = "
	    "(%x, %p_w, None), kwargs = {})");
	assert_text(nm.trace, ir_str(f->m, ir_nodep(ir_graph(f->m,
	    f->fx), f->lin)->trace));
	check_measure(x, &n, &nm);

	/* no module stack: the node alone, as torch.onnx falls back */
	n = onnx_node(f, "scale");
	assert_true(be_meta_node(x, &n, &nm));
	assert_text(nm.ns, "scale: <built-in function mul>");
	assert_text(nm.classes, "['<built-in function mul>']");
	assert_text(nm.scopes, "['scale']");
	assert_text(nm.fx_node, "%scale : [num_users=0] = "
	    "call_function[target=operator.mul](args = (%linear, 0.5), "
	    "kwargs = {})");
	assert_text(nm.trace, "");
	check_measure(x, &n, &nm);

	/* a node made by no FX node has no metadata */
	n.name = 0;
	assert_false(be_meta_node(x, &n, &nm));
	be_meta_free(x);
}

static void
test_args_and_repr(void **state)
{
	Fix *f = *state;
	BeMeta *x = be_meta_new(f->m, false);
	BeNodeMeta nm;
	Node n = onnx_node(f, "to");
	assert_true(be_meta_node(x, &n, &nm));
	assert_text(nm.fx_node, "%to : [num_users=0] = call_function"
	    "[target=torch.ops.aten.to.dtype](args = (%linear, "
	    "torch.float16), kwargs = {copy: False})");
	check_measure(x, &n, &nm);
	n = onnx_node(f, "cat");
	assert_true(be_meta_node(x, &n, &nm));
	assert_text(nm.fx_node, "%cat : [num_users=1] = call_function"
	    "[target=torch.ops.aten.cat.default](args = ([%linear, %linear], "
	    "-1), kwargs = {})");
	check_measure(x, &n, &nm);
	be_meta_free(x);

	/* a quote in a module path: repr() switches to double quotes */
	Graph *g = ir_graph(f->m, f->fx);
	ir_nodep(g, f->lin)->scope = S(f, "it's\tm.A\\B");
	x = be_meta_new(f->m, false);
	n = onnx_node(f, "linear");
	assert_true(be_meta_node(x, &n, &nm));
	assert_text(nm.scopes, "[\"it's\", 'linear']");
	assert_text(nm.classes, "['m.A\\\\B', 'aten.linear.default']");
	check_measure(x, &n, &nm);
	be_meta_free(x);
}

static void
test_strip_paths(void **state)
{
	Fix *f = *state;
	BeMeta *x = be_meta_new(f->m, true);
	Node n = onnx_node(f, "linear");
	BeNodeMeta nm;
	assert_true(be_meta_node(x, &n, &nm));
	assert_text(nm.trace, "File \"mymodel.py\", line 7, in "
	    "forward\n    return self.fc(x)\nFile: linear.py:134 in forward, "
	    "code: return F.linear(input)");
	check_measure(x, &n, &nm);
	be_meta_free(x);
}

static void
test_signature(void **state)
{
	Fix *f = *state;
	BeMeta *x = be_meta_new(f->m, false);
	/* str(ExportGraphSignature) */
	assert_string_equal(be_meta_signature(x, f->fx), "\n# inputs\n"
	    "p_w: PARAMETER target='fc.weight'\n"
	    "b_rm: BUFFER target='bn.running_mean' persistent=True\n"
	    "x: USER_INPUT\n\n# outputs\ncat: USER_OUTPUT\n"
	    "linear: BUFFER_MUTATION target='bn.running_mean'\n");
	Graph *g = ir_graph(f->m, f->fx);
	assert_string_equal(be_persist_text(ir_val(g, g->inputs[1])), "True");
	assert_string_equal(be_persist_text(ir_val(g, g->inputs[0])), "None");
	assert_string_equal(be_input_kind(ROLE_CONST), "CONSTANT_TENSOR");
	assert_string_equal(be_output_kind(OUT_GRAD_PARAM),
	    "GRADIENT_TO_PARAMETER");
	be_meta_free(x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_module_stack, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_args_and_repr, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_strip_paths, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_signature, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
