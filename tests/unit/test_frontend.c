/* test_frontend.c - FX dumps to IR (frontend/fx_*.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <math.h>

#include <cmocka.h>

#include "frontend/fx.h"
#include "ir/ir.h"

/* One parse: the module, the result and the diagnostics text. */
typedef struct Run {
	Module *m;
	GraphId g;
	int rc;
	char *diag;
	size_t diaglen;
} Run;

static Run
run(const char *src, size_t n)
{
	Run r = {0};
	r.m = ir_module_new();
	r.m->file = "t.txt";
	r.m->src = src;
	r.m->srclen = n;
	FILE *f = open_memstream(&r.diag, &r.diaglen);
	assert_non_null(f);
	r.m->diagout = f;
	r.rc = fx_parse(r.m, &r.g);
	fclose(f);
	r.m->diagout = NULL;
	return r;
}

static Run
runs(const char *src)
{
	return run(src, strlen(src));
}

static void
done(Run *r)
{
	ir_free(r->m);
	free(r->diag);
}

/* Parse that must succeed without diagnostics. */
static Run
ok(const char *src)
{
	Run r = runs(src);
	if (r.rc != 0 || r.m->nerrors || r.diaglen)
		fail_msg("parse failed (rc %d):\n%s", r.rc, r.diag);
	assert_int_not_equal(r.g, 0);
	assert_int_equal(r.m->main, r.g);
	return r;
}

/* The diagnostics must contain "t.txt:LINE:COL: error: " followed by a
 * message containing what. */
static void
has_error(const Run *r, int line, int col, const char *what)
{
	char head[64];
	snprintf(head, sizeof head, "t.txt:%d:%d: error: ", line, col);
	for (const char *p = r->diag; p && (p = strstr(p, head)); p++) {
		const char *eol = strchr(p, '\n');
		const char *hit = strstr(p, what);
		if (hit && (!eol || hit < eol))
			return;
	}
	fputs(r->diag, stderr);
	fail_msg("no error '%s' at %d:%d", what, line, col);
}

static Graph *
G(const Run *r)
{
	return ir_graph(r->m, r->g);
}

static ValId
input(const Run *r, const Graph *g, uint32_t i)
{
	assert_true(i < g->ninputs);
	(void)r;
	return g->inputs[i];
}

static const char *
name(const Module *m, const Graph *g, ValId v)
{
	return ir_str(m, ir_val(g, v)->name);
}

/* The node whose FX name is nm. */
static NodeId
node(const Module *m, const Graph *g, const char *nm)
{
	for (NodeId n = 1; n < g->nnodes; n++)
		if (strcmp(ir_str(m, g->nodes[n].name), nm) == 0)
			return n;
	fail_msg("no node %s", nm);
	return 0;
}

static const char *
opof(const Module *m, const Graph *g, NodeId n)
{
	return ir_str(m, ir_nodep(g, n)->op);
}

static void
check_dims(const Module *mc, const Graph *g, ValId v, const char *want)
{
	Module *m = (Module *)mc;
	char buf[256] = "";
	const Value *p = ir_val(g, v);
	const Dim *d = ir_dims(g, v);
	strcat(buf, "[");
	for (int32_t i = 0; i < p->rank; i++) {
		if (i)
			strcat(buf, ", ");
		strcat(buf, ir_dim_text(m, d[i]));
	}
	strcat(buf, "]");
	assert_string_equal(buf, want);
}

static const char dump28[] =
"ExportedProgram:\n"
"    class GraphModule(torch.nn.Module):\n"
"        def forward(self, p_fc_weight: \"f32[4, 3]\", p_fc_bias: \"f32[4]\", b_bn_running_mean: \"f32[4]\", c_lifted_tensor_0: \"i64[]\", x: \"f32[s0, 3]\", n):\n"
"             # File: /tmp/m.py:10 in forward, code: y = self.fc(x)  # a 'quoted' \"comment\"\n"
"            linear: \"f32[s0, 4]\" = torch.ops.aten.linear.default(x, p_fc_weight, p_fc_bias);  x = p_fc_weight = p_fc_bias = None\n"
"            \n"
"                 add: \"f32[4]\" = torch.ops.aten.add.Tensor(b_bn_running_mean, 1);  b_bn_running_mean = None\n"
"            slice_1: \"f32[s0, 4]\" = torch.ops.aten.slice.Tensor(linear, 1, -2, 9223372036854775807, 1)\n"
"            zeros: \"f32[6]\" = torch.ops.aten.zeros.default([6], dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)\n"
"            to: \"f64[s0, 4]\" = torch.ops.aten.to.dtype(slice_1, torch.double, memory_format = torch.contiguous_format)\n"
"            clamp: \"f32[s0, 4]\" = torch.ops.aten.clamp.default(slice_1, -inf, inf)\n"
"            full: \"f32[2]\" = torch.ops.aten.full.default([2], nan, dtype = torch.long)\n"
"            bn: \"f32[s0, 4]\" = torch.ops.aten.native_dropout.default(linear, 1e-05, True)\n"
"            msg = torch.ops.aten._assert_async.msg(c_lifted_tensor_0, 'it\\'s; # not a comment \"x\"');  msg = None\n"
"            view: \"f32[s0, 2, 2]\" = torch.ops.aten.view.default(slice_1, [-1, 2, 2])\n"
"            cat: \"f32[s0, 8]\" = torch.ops.aten.cat.default([[slice_1, linear], ()], -1)\n"
"            return (add, cat, view)\n"
"            \n"
"Graph signature: \n"
"    # inputs\n"
"    p_fc_weight: PARAMETER target='fc.weight'\n"
"    p_fc_bias: PARAMETER target='fc.bias'\n"
"    b_bn_running_mean: BUFFER target='bn.running_mean' persistent=True\n"
"    c_lifted_tensor_0: CONSTANT_TENSOR target='lifted_tensor_0'\n"
"    x: USER_INPUT\n"
"    n: USER_INPUT\n"
"    \n"
"    # outputs\n"
"    add: BUFFER_MUTATION target='bn.running_mean'\n"
"    cat: USER_OUTPUT\n"
"    view: USER_OUTPUT\n"
"    \n"
"Range constraints: {s0: VR[2, int_oo], s0 + 1: VR[3, int_oo]}\n"
"\n";

static void
test_printep_28(void **state)
{
	(void)state;
	Run r = ok(dump28);
	Module *m = r.m;
	Graph *g = G(&r);
	assert_int_equal(g->ninputs, 6);
	static const struct {
		const char *name;
		uint8_t role;
		const char *target;
	} ins[] = {
		{"p_fc_weight", ROLE_PARAM, "fc.weight"},
		{"p_fc_bias", ROLE_PARAM, "fc.bias"},
		{"b_bn_running_mean", ROLE_BUFFER, "bn.running_mean"},
		{"c_lifted_tensor_0", ROLE_CONST, "lifted_tensor_0"},
		{"x", ROLE_USER_INPUT, ""},
		{"n", ROLE_USER_INPUT, ""},
	};
	for (uint32_t i = 0; i < 6; i++) {
		Value *v = ir_val(g, input(&r, g, i));
		assert_string_equal(ir_str(m, v->name), ins[i].name);
		assert_int_equal(v->role, ins[i].role);
		assert_string_equal(ir_str(m, v->target), ins[i].target);
		assert_int_equal(v->def, 0);
	}
	ValId w = input(&r, g, 0), x = input(&r, g, 4), n = input(&r, g, 5);
	assert_int_equal(ir_val(g, w)->kind, VK_TENSOR);
	assert_int_equal(ir_val(g, w)->dtype, DT_F32);
	check_dims(m, g, w, "[4, 3]");
	check_dims(m, g, x, "[s0, 3]");
	assert_int_equal(ir_dims(g, x)[0].e, ir_expr_sym(m, "s0"));
	assert_int_equal(ir_dims(g, x)[1].n, 3);
	assert_int_equal(ir_dims(g, x)[1].e, 0);
	assert_int_equal(ir_val(g, input(&r, g, 3))->dtype, DT_I64);
	assert_int_equal(ir_val(g, input(&r, g, 3))->rank, 0);
	assert_int_equal(ir_val(g, n)->kind, VK_CONST);

	/* linear: op name, loc in the original text, trace, args */
	NodeId lin = node(m, g, "linear");
	Node *np = ir_nodep(g, lin);
	assert_string_equal(opof(m, g, lin), "aten::linear.default");
	assert_int_equal(np->dialect, D_FX);
	assert_int_equal(np->loc.line, 5);
	assert_int_equal(np->loc.col, 36);
	assert_string_equal(ir_str(m, np->trace), "File: /tmp/m.py:10 in "
	    "forward, code: y = self.fc(x)  # a 'quoted' \"comment\"");
	assert_int_equal(np->nargs, 3);
	assert_int_equal(ir_arg(g, lin, 0)->kind, A_VAL);
	assert_int_equal(ir_arg(g, lin, 0)->u.v, x);
	assert_int_equal(ir_arg(g, lin, 1)->u.v, w);
	assert_int_equal(np->nout, 1);
	assert_string_equal(name(m, g, np->out), "linear");
	check_dims(m, g, np->out, "[s0, 4]");
	/* the comment is still the trace of the node after it */
	NodeId add = node(m, g, "add");
	assert_int_equal(ir_nodep(g, add)->loc.line, 7);
	assert_int_equal(ir_nodep(g, add)->loc.col, 34);
	assert_int_equal(ir_nodep(g, add)->trace, np->trace);

	/* literals */
	NodeId sl = node(m, g, "slice_1");
	assert_int_equal(ir_arg(g, sl, 2)->kind, A_INT);
	assert_true(ir_arg(g, sl, 2)->u.i == -2);
	assert_true(ir_arg(g, sl, 3)->u.i == INT64_MAX);
	NodeId z = node(m, g, "zeros");
	assert_int_equal(ir_npos(g, z), 1);
	const Arg *a = ir_arg(g, z, 0);
	assert_int_equal(a->kind, A_LIST);
	assert_int_equal(a->u.list.n, 1);
	assert_true(ir_items(g, a)[0].u.i == 6);
	a = ir_find_arg(m, g, z, -1, "dtype");
	assert_non_null(a);
	assert_int_equal(a->kind, A_DTYPE);
	assert_int_equal(a->u.i, DT_F32);
	a = ir_find_arg(m, g, z, -1, "layout");
	assert_int_equal(a->kind, A_LAYOUT);
	assert_string_equal(ir_str(m, a->u.s), "strided");
	a = ir_find_arg(m, g, z, -1, "device");
	assert_int_equal(a->kind, A_DEVICE);
	assert_string_equal(ir_str(m, a->u.s), "cuda:0");
	a = ir_find_arg(m, g, z, -1, "pin_memory");
	assert_int_equal(a->kind, A_BOOL);
	assert_int_equal(a->u.i, 0);
	assert_string_equal(ir_str(m, ir_arg(g, z, 1)->key), "dtype");
	NodeId to = node(m, g, "to");
	assert_int_equal(ir_arg(g, to, 1)->kind, A_DTYPE);
	assert_int_equal(ir_arg(g, to, 1)->u.i, DT_F64);
	a = ir_find_arg(m, g, to, -1, "memory_format");
	assert_int_equal(a->kind, A_MEMFMT);
	assert_string_equal(ir_str(m, a->u.s), "contiguous_format");
	assert_int_equal(ir_val(g, ir_nodep(g, to)->out)->dtype, DT_F64);
	NodeId cl = node(m, g, "clamp");
	assert_int_equal(ir_arg(g, cl, 1)->kind, A_FLOAT);
	assert_true(isinf(ir_arg(g, cl, 1)->u.f) && ir_arg(g, cl, 1)->u.f < 0);
	assert_true(isinf(ir_arg(g, cl, 2)->u.f) && ir_arg(g, cl, 2)->u.f > 0);
	NodeId full = node(m, g, "full");
	assert_true(isnan(ir_arg(g, full, 1)->u.f));
	assert_int_equal(ir_find_arg(m, g, full, -1, "dtype")->u.i, DT_I64);
	NodeId bn = node(m, g, "bn");
	assert_true(ir_arg(g, bn, 1)->u.f == 1e-05);
	assert_int_equal(ir_arg(g, bn, 2)->kind, A_BOOL);
	assert_int_equal(ir_arg(g, bn, 2)->u.i, 1);
	/* a string with ';', '#' and escaped quotes; unannotated value */
	NodeId msg = node(m, g, "msg");
	assert_string_equal(opof(m, g, msg), "aten::_assert_async.msg");
	assert_int_equal(ir_arg(g, msg, 1)->kind, A_STR);
	assert_string_equal(ir_str(m, ir_arg(g, msg, 1)->u.s),
	    "it's; # not a comment \"x\"");
	assert_int_equal(ir_val(g, ir_nodep(g, msg)->out)->kind, VK_UNKNOWN);
	NodeId view = node(m, g, "view");
	a = ir_arg(g, view, 1);
	assert_true(ir_items(g, a)[0].u.i == -1);
	check_dims(m, g, ir_nodep(g, view)->out, "[s0, 2, 2]");
	/* nested list and empty tuple */
	NodeId cat = node(m, g, "cat");
	a = ir_arg(g, cat, 0);
	assert_int_equal(a->kind, A_LIST);
	assert_int_equal(a->u.list.n, 2);
	const Arg *inner = &ir_items(g, a)[0];
	assert_int_equal(inner->kind, A_LIST);
	assert_int_equal(inner->u.list.n, 2);
	assert_int_equal(ir_items(g, inner)[0].u.v, ir_nodep(g, sl)->out);
	assert_int_equal(ir_items(g, inner)[1].u.v, ir_nodep(g, lin)->out);
	assert_int_equal(ir_items(g, a)[1].kind, A_TUPLE);
	assert_int_equal(ir_items(g, a)[1].u.list.n, 0);

	/* outputs and their kinds */
	assert_int_equal(g->noutputs, 3);
	assert_int_equal(g->outputs[0], ir_nodep(g, add)->out);
	assert_int_equal(g->outkind[0], OUT_BUFFER_MUTATION);
	assert_string_equal(ir_str(m, g->outtarget[0]), "bn.running_mean");
	assert_int_equal(g->outkind[1], OUT_USER);
	assert_int_equal(g->outputs[2], ir_nodep(g, view)->out);
	assert_string_equal(ir_str(m, m->ranges),
	    "{s0: VR[2, int_oo], s0 + 1: VR[3, int_oo]}");
	done(&r);
}

static const char dump23[] =
"ExportedProgram:\n"
"    class GraphModule(torch.nn.Module):\n"
"        def forward(self, p_linear_weight: \"f32[2, 4]\", b_buf: \"f32[2]\", x: \"f32[3, 4]\"):\n"
"                linear: \"f32[3, 2]\" = torch.ops.aten.linear.default(x, p_linear_weight);  x = p_linear_weight = None\n"
"            add: \"f32[2]\" = torch.ops.aten.add.Tensor(b_buf, 1);  b_buf = None\n"
"            return (add, linear)\n"
"            \n"
"Graph signature: ExportGraphSignature(input_specs=[InputSpec(kind=<InputKind.PARAMETER: 2>, arg=TensorArgument(name='p_linear_weight'), target='linear.weight', persistent=None), InputSpec(kind=<InputKind.BUFFER: 3>, arg=TensorArgument(name='b_buf'), target='buf', persistent=True), InputSpec(kind=<InputKind.USER_INPUT: 1>, arg=TensorArgument(name='x'), target=None, persistent=None)], output_specs=[OutputSpec(kind=<OutputKind.BUFFER_MUTATION: 3>, arg=TensorArgument(name='add'), target='buf'), OutputSpec(kind=<OutputKind.USER_OUTPUT: 1>, arg=TensorArgument(name='linear'), target=None)])\n"
"Range constraints: {}\n";

static void
test_printep_dataclass_signature(void **state)
{
	(void)state;
	Run r = ok(dump23);
	Module *m = r.m;
	Graph *g = G(&r);
	assert_int_equal(g->ninputs, 3);
	Value *w = ir_val(g, g->inputs[0]), *b = ir_val(g, g->inputs[1]);
	Value *x = ir_val(g, g->inputs[2]);
	assert_int_equal(w->role, ROLE_PARAM);
	assert_string_equal(ir_str(m, w->target), "linear.weight");
	assert_int_equal(b->role, ROLE_BUFFER);
	assert_string_equal(ir_str(m, b->target), "buf");
	assert_int_equal(x->role, ROLE_USER_INPUT);
	assert_int_equal(g->noutputs, 2);
	assert_int_equal(g->outkind[0], OUT_BUFFER_MUTATION);
	assert_string_equal(ir_str(m, g->outtarget[0]), "buf");
	assert_int_equal(g->outkind[1], OUT_USER);
	assert_string_equal(name(m, g, g->outputs[1]), "linear");
	assert_string_equal(ir_str(m, m->ranges), "{}");
	done(&r);
}

/* 2.1-2.2: unquoted annotations, multi-line signature repr (as the docs
 * show it), RangeConstraint, Equality constraints, # code: comments. */
static const char dump21[] =
"ExportedProgram:\n"
"    class GraphModule(torch.nn.Module):\n"
"        def forward(self, arg0_1: f32[32, 64], arg1_1: f32[32], arg4_1: f32[32], arg5_1: f32[s0, 64], arg6_1):\n"
"\n"
"            # code: out1 = self.branch1(x1)\n"
"            permute: f32[64, 32] = torch.ops.aten.permute.default(arg0_1, [1, 0]);\n"
"            addmm: f32[s0, 32] = torch.ops.aten.addmm.default(arg1_1, arg5_1, permute);\n"
"            sym_size: Sym(s0) = torch.ops.aten.sym_size(arg5_1, 0)\n"
"            gt: Sym(s0 > 4) = sym_size > 4\n"
"            add: f32[s0, 32] = torch.ops.aten.add.Tensor(addmm, arg4_1);\n"
"            add_1: f32[32] = torch.ops.aten.add.Tensor(arg4_1, 1);\n"
"            return (add_1, add)\n"
"\n"
"    Graph signature: ExportGraphSignature(\n"
"        parameters=[\n"
"            'branch1.0.weight',\n"
"            'branch1.0.bias',\n"
"        ],\n"
"        buffers=['L__self___buffer'],\n"
"        user_inputs=['arg5_1', 'arg6_1'],\n"
"        user_outputs=['add'],\n"
"        inputs_to_parameters={\n"
"            'arg0_1': 'branch1.0.weight',\n"
"            'arg1_1': 'branch1.0.bias',\n"
"        },\n"
"        inputs_to_buffers={'arg4_1': 'L__self___buffer'},\n"
"        buffers_to_mutate={'add_1': 'L__self___buffer'},\n"
"        backward_signature=None,\n"
"        assertion_dep_token=None,\n"
"    )\n"
"    Range constraints: {s0: RangeConstraint(min_val=2, max_val=9223372036854775806)}\n"
"    Equality constraints: [(InputDim(input_name='arg5_1', dim=0), InputDim(input_name='arg6_1', dim=0))]\n";

static void
test_printep_21(void **state)
{
	(void)state;
	Run r = ok(dump21);
	Module *m = r.m;
	Graph *g = G(&r);
	assert_int_equal(g->ninputs, 5);
	static const uint8_t roles[] = {ROLE_PARAM, ROLE_PARAM, ROLE_BUFFER,
	    ROLE_USER_INPUT, ROLE_USER_INPUT};
	static const char *const targets[] = {"branch1.0.weight",
	    "branch1.0.bias", "L__self___buffer", "", ""};
	for (uint32_t i = 0; i < 5; i++) {
		assert_int_equal(ir_val(g, g->inputs[i])->role, roles[i]);
		assert_string_equal(ir_str(m, ir_val(g, g->inputs[i])->target),
		    targets[i]);
	}
	check_dims(m, g, g->inputs[3], "[s0, 64]");
	assert_int_equal(ir_val(g, g->inputs[4])->kind, VK_CONST);
	NodeId ss = node(m, g, "sym_size");
	assert_string_equal(opof(m, g, ss), "aten::sym_size");
	Value *v = ir_val(g, ir_nodep(g, ss)->out);
	assert_int_equal(v->kind, VK_SYMINT);
	assert_int_equal(v->sym, ir_expr_sym(m, "s0"));
	NodeId gt = node(m, g, "gt");
	assert_string_equal(opof(m, g, gt), "_operator::gt");
	assert_int_equal(ir_val(g, ir_nodep(g, gt)->out)->kind, VK_SYMBOOL);
	assert_int_equal(ir_arg(g, gt, 0)->u.v, ir_nodep(g, ss)->out);
	assert_int_equal(ir_arg(g, gt, 1)->u.i, 4);
	assert_string_equal(ir_str(m, ir_nodep(g, node(m, g, "permute"))->
	    trace), "code: out1 = self.branch1(x1)");
	/* outputs are matched by name in this layout */
	assert_int_equal(g->noutputs, 2);
	assert_int_equal(g->outkind[0], OUT_BUFFER_MUTATION);
	assert_string_equal(ir_str(m, g->outtarget[0]), "L__self___buffer");
	assert_int_equal(g->outkind[1], OUT_USER);
	assert_string_equal(ir_str(m, m->ranges), "{s0: RangeConstraint("
	    "min_val=2, max_val=9223372036854775806)}");
	done(&r);
}

/* gm.print_readable(): no signature; prefixes give roles and targets. */
static const char readable[] =
"class GraphModule(torch.nn.Module):\n"
"    def forward(self, p_conv_weight: \"f32[3, 1, 1, 1]\", b_bn_num_batches_tracked: \"i64[]\", c_lifted_tensor_0: \"f32[]\", x: \"f32[1, 1, 3, 3]\", p_: \"f32[1]\"):\n"
"        # File: conv.py:553 in forward, code: return self._conv_forward(input, self.weight, self.bias)\n"
"        conv2d: \"f32[1, 3, 3, 3]\" = torch.ops.aten.conv2d.default(x, p_conv_weight);  x = p_conv_weight = None\n"
"        \n"
"        # File: batchnorm.py:174 in forward, code: self.num_batches_tracked.add_(1)\n"
"        add_: \"i64[]\" = torch.ops.aten.add_.Tensor(b_bn_num_batches_tracked, 1);  add_ = None\n"
"        mul: \"i64[]\" = torch.ops.aten.mul.Tensor(b_bn_num_batches_tracked, 2)\n"
"        relu_: \"f32[1, 3, 3, 3]\" = torch.ops.aten.relu_.default(conv2d)\n"
"        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(conv2d, [2, 2], [2, 2])\n"
"        getitem: \"f32[1, 3, 1, 1]\" = max_pool2d_with_indices[0];  max_pool2d_with_indices = None\n"
"        getitem_1: \"f32[1, 3, 1, 1]\" = max_pool2d_with_indices[0]\n"
"        split = torch.ops.aten.split.Tensor(relu_, 1)\n"
"        getitem_4: \"f32[1, 1, 3, 3]\" = split[3]\n"
"        side = torch.ops.aten._assert_scalar.default(mul, 'x');  side = None\n"
"        return (getitem, getitem_4, mul, conv2d)\n"
"        \n";

static void
test_readable_getitem_inplace(void **state)
{
	(void)state;
	Run r = ok(readable);
	Module *m = r.m;
	Graph *g = G(&r);
	assert_string_equal(ir_str(m, g->name), "GraphModule");
	assert_int_equal(g->ninputs, 5);
	static const uint8_t roles[] = {ROLE_PARAM, ROLE_BUFFER, ROLE_CONST,
	    ROLE_USER_INPUT, ROLE_USER_INPUT};
	static const char *const targets[] = {"conv_weight",
	    "bn_num_batches_tracked", "lifted_tensor_0", "", ""};
	for (uint32_t i = 0; i < 5; i++) {
		assert_int_equal(ir_val(g, g->inputs[i])->role, roles[i]);
		assert_string_equal(ir_str(m, ir_val(g, g->inputs[i])->target),
		    targets[i]);
	}
	/* in-place: later uses of the buffer read add_'s result */
	NodeId addn = node(m, g, "add_");
	assert_string_equal(opof(m, g, addn), "aten::add_.Tensor");
	assert_int_equal(ir_arg(g, addn, 0)->u.v, g->inputs[1]);
	NodeId mul = node(m, g, "mul");
	assert_int_equal(ir_arg(g, mul, 0)->u.v, ir_nodep(g, addn)->out);
	/* relu_ rebinds conv2d: the pool and the output use relu_ */
	NodeId relu = node(m, g, "relu_");
	NodeId mp = node(m, g, "max_pool2d_with_indices");
	assert_int_equal(ir_arg(g, mp, 0)->u.v, ir_nodep(g, relu)->out);
	/* tuple-valued nodes: no getitem nodes, outputs named by them */
	for (NodeId n = 1; n < g->nnodes; n++)
		assert_string_not_equal(opof(m, g, n), "_operator::getitem");
	assert_int_equal(g->nnodes - 1, 7);
	Node *mpn = ir_nodep(g, mp);
	assert_int_equal(mpn->nout, 1);
	assert_string_equal(name(m, g, mpn->out), "getitem");
	check_dims(m, g, mpn->out, "[1, 3, 1, 1]");
	Node *sp = ir_nodep(g, node(m, g, "split"));
	assert_int_equal(sp->nout, 4);
	assert_string_equal(name(m, g, sp->out + 3), "getitem_4");
	assert_int_equal(ir_val(g, sp->out + 3)->kind, VK_TENSOR);
	assert_int_equal(ir_val(g, sp->out + 0)->kind, VK_UNKNOWN);
	assert_int_equal(ir_val(g, sp->out + 3)->def, node(m, g, "split"));
	assert_int_equal(ir_val(g, sp->out + 3)->defidx, 3);
	assert_int_equal(g->outputs[0], mpn->out);
	assert_int_equal(g->outputs[1], sp->out + 3);
	assert_int_equal(g->outputs[3], ir_nodep(g, relu)->out);
	for (uint32_t i = 0; i < g->noutputs; i++)
		assert_int_equal(g->outkind[i], OUT_USER);
	/* an unused side-effect node: nout 1, unknown value */
	Node *side = ir_nodep(g, node(m, g, "side"));
	assert_int_equal(side->nout, 1);
	assert_int_equal(ir_val(g, side->out)->kind, VK_UNKNOWN);
	done(&r);
}

static const char symdump[] =
"class GraphModule(torch.nn.Module):\n"
"    def forward(self, d_b, d_i: \"Sym(s37)\", x: \"f32[s0, 2*s0, (s0//2) + 1, Max(1, s0)][4, 2, 1, 1]cpu\"):\n"
"        sym_float: \"Sym(ToFloat(s37))\" = torch.sym_float(d_i);  d_i = None\n"
"        add: \"Sym(ToFloat(s37) + 3.0)\" = sym_float + 3.0;  sym_float = None\n"
"        sym_size_int: \"Sym(s0)\" = torch.ops.aten.sym_size.int(x, 0)\n"
"        mul: \"Sym(2*s0)\" = 2 * sym_size_int\n"
"        sub: \"Sym(s0 - 1)\" = sym_size_int - 1\n"
"        floordiv: \"Sym((s0//2))\" = sym_size_int // 2\n"
"        mod: \"Sym(Mod(s0, 3))\" = sym_size_int % 3\n"
"        truediv: \"Sym(ToFloat(s0)/2)\" = sym_size_int / 2\n"
"        pow_1: \"Sym(s0**2)\" = sym_size_int ** 2\n"
"        neg: \"Sym(-s0)\" = -sym_size_int\n"
"        ge: \"Sym(s0 >= 2)\" = sym_size_int >= 2\n"
"        eq: \"Sym(Eq(s0, 2))\" = sym_size_int == 2\n"
"        ne: \"Sym(Ne(s0, 2))\" = sym_size_int != 2\n"
"        lt: \"Sym(s0 < 2)\" = sym_size_int < 2\n"
"        le: \"Sym(s0 <= 2)\" = sym_size_int <= 2\n"
"        sym_not: \"Sym(~(s0 <= 2))\" = torch.sym_not(le)\n"
"        sym_max: \"Sym(Max(3, s0))\" = torch.sym_max(sym_size_int, 3)\n"
"        ceil: \"Sym(3)\" = math.ceil(truediv)\n"
"        getitem = operator.getitem(x, 0)\n"
"        return (add, mul, ceil, sub)\n";

static void
test_sym_ops(void **state)
{
	(void)state;
	Run r = ok(symdump);
	Module *m = r.m;
	Graph *g = G(&r);
	assert_int_equal(ir_val(g, g->inputs[0])->kind, VK_CONST);
	Value *di = ir_val(g, g->inputs[1]);
	assert_int_equal(di->kind, VK_SYMINT);
	assert_int_equal(di->sym, ir_expr_sym(m, "s37"));
	check_dims(m, g, g->inputs[2], "[s0, 2*s0, (s0//2) + 1, Max(1, s0)]");
	static const struct {
		const char *node, *op;
		uint8_t kind;
		int nargs;
	} want[] = {
		{"sym_float", "torch::sym_float", VK_SYMFLOAT, 1},
		{"add", "_operator::add", VK_SYMFLOAT, 2},
		{"sym_size_int", "aten::sym_size.int", VK_SYMINT, 2},
		{"mul", "_operator::mul", VK_SYMINT, 2},
		{"sub", "_operator::sub", VK_SYMINT, 2},
		{"floordiv", "_operator::floordiv", VK_SYMINT, 2},
		{"mod", "_operator::mod", VK_SYMINT, 2},
		{"truediv", "_operator::truediv", VK_SYMFLOAT, 2},
		{"pow_1", "_operator::pow", VK_SYMINT, 2},
		{"neg", "_operator::neg", VK_SYMINT, 1},
		{"ge", "_operator::ge", VK_SYMBOOL, 2},
		{"eq", "_operator::eq", VK_SYMBOOL, 2},
		{"ne", "_operator::ne", VK_SYMBOOL, 2},
		{"lt", "_operator::lt", VK_SYMBOOL, 2},
		{"le", "_operator::le", VK_SYMBOOL, 2},
		{"sym_not", "torch::sym_not", VK_SYMBOOL, 1},
		{"sym_max", "torch::sym_max", VK_SYMINT, 2},
		{"ceil", "math::ceil", VK_SYMINT, 1},
		{"getitem", "_operator::getitem", VK_UNKNOWN, 2},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		NodeId n = node(m, g, want[i].node);
		assert_string_equal(opof(m, g, n), want[i].op);
		assert_int_equal(ir_val(g, ir_nodep(g, n)->out)->kind,
		    want[i].kind);
		assert_int_equal(ir_nodep(g, n)->nargs, want[i].nargs);
	}
	/* operands in order; literal operands keep their type */
	NodeId mul = node(m, g, "mul");
	assert_int_equal(ir_arg(g, mul, 0)->kind, A_INT);
	assert_int_equal(ir_arg(g, mul, 1)->kind, A_VAL);
	NodeId add = node(m, g, "add");
	assert_int_equal(ir_arg(g, add, 1)->kind, A_FLOAT);
	assert_true(ir_arg(g, add, 1)->u.f == 3.0);
	/* loc of an operator expression: its first operand */
	assert_int_equal(ir_nodep(g, mul)->loc.line, 6);
	assert_int_equal(ir_nodep(g, mul)->loc.col, 28);
	Value *c = ir_val(g, ir_nodep(g, node(m, g, "ceil"))->out);
	assert_int_equal(ir_exprp(m, c->sym)->kind, E_INT);
	assert_int_equal(ir_exprp(m, c->sym)->n, 3);
	char buf[64];
	ir_expr_print(m, ir_val(g, ir_nodep(g, add)->out)->sym, buf,
	    sizeof buf);
	assert_string_equal(buf, "ToFloat(s37) + 3.0");
	done(&r);
}

/* Higher-order ops: named subgraph classes, nested ones, <lambda>s. */
static const char conddump[] =
"ExportedProgram:\n"
"    class GraphModule(torch.nn.Module):\n"
"        def forward(self, x: \"f32[s77, 2]\", y: \"f32[2]\"):\n"
"            sym_size_int_1: \"Sym(s77)\" = torch.ops.aten.sym_size.int(x, 0)\n"
"                 gt: \"Sym(s77 > 2)\" = sym_size_int_1 > 2;  sym_size_int_1 = None\n"
"                 true_graph_0 = self.true_graph_0\n"
"            false_graph_0 = self.false_graph_0\n"
"            cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (x, y));  gt = true_graph_0 = false_graph_0 = x = y = None\n"
"            getitem: \"f32[s77, 2]\" = cond[0];  cond = None\n"
"            return (getitem,)\n"
"            \n"
"        class true_graph_0(torch.nn.Module):\n"
"            def forward(self, x: \"f32[s77, 2]\", y: \"f32[2]\"):\n"
"                         true_graph_0 = self.true_graph_0\n"
"                map_impl = torch.ops.higher_order.map_impl(true_graph_0, [x], [y])\n"
"                getitem: \"f32[s77, 2]\" = map_impl[0]\n"
"                return (getitem,)\n"
"                \n"
"            class true_graph_0(torch.nn.Module):\n"
"                def forward(self, x: \"f32[2]\", y: \"f32[2]\"):\n"
"                    add: \"f32[2]\" = torch.ops.aten.add.Tensor(x, y)\n"
"                    return (add,)\n"
"                    \n"
"        class false_graph_0(torch.nn.Module):\n"
"            def forward(self, x: \"f32[s77, 2]\", y: \"f32[2]\"):\n"
"                         sub: \"f32[s77, 2]\" = torch.ops.aten.sub.Tensor(x, y);  x = y = None\n"
"                return (sub,)\n"
"                \n"
"Graph signature: \n"
"    # inputs\n"
"    x: USER_INPUT\n"
"    y: USER_INPUT\n"
"    \n"
"    # outputs\n"
"    getitem: USER_OUTPUT\n"
"    \n"
"Range constraints: {s77: VR[0, int_oo]}\n";

static GraphId
graph_named(const Module *m, GraphId parent, const char *nm)
{
	for (GraphId i = 1; i < m->ngraphs; i++)
		if (m->graphs[i]->parent == parent &&
		    strcmp(ir_str(m, m->graphs[i]->name), nm) == 0)
			return i;
	fail_msg("no graph %s under %u", nm, parent);
	return 0;
}

static void
test_subgraphs(void **state)
{
	(void)state;
	Run r = ok(conddump);
	Module *m = r.m;
	Graph *g = G(&r);
	assert_int_equal(m->ngraphs - 1, 4);
	GraphId tg = graph_named(m, r.g, "true_graph_0");
	GraphId fg = graph_named(m, r.g, "false_graph_0");
	GraphId inner = graph_named(m, tg, "true_graph_0");
	NodeId cond = node(m, g, "cond");
	assert_string_equal(opof(m, g, cond), "higher_order::cond");
	assert_int_equal(ir_arg(g, cond, 1)->kind, A_GRAPH);
	assert_int_equal(ir_arg(g, cond, 1)->u.g, tg);
	assert_int_equal(ir_arg(g, cond, 2)->u.g, fg);
	const Arg *ops = ir_arg(g, cond, 3);
	assert_int_equal(ops->kind, A_TUPLE);
	assert_int_equal(ir_items(g, ops)[1].u.v, g->inputs[1]);
	assert_int_equal(ir_nodep(g, cond)->nout, 1);
	assert_string_equal(name(m, g, ir_nodep(g, cond)->out), "getitem");
	/* get_attr creates no node */
	assert_int_equal(g->nnodes - 1, 3);
	Graph *t = ir_graph(m, tg);
	NodeId mi = node(m, t, "map_impl");
	assert_int_equal(ir_arg(t, mi, 0)->u.g, inner);
	assert_int_equal(t->ninputs, 2);
	assert_int_equal(t->noutputs, 1);
	Graph *f = ir_graph(m, fg);
	assert_string_equal(opof(m, f, node(m, f, "sub")), "aten::sub.Tensor");
	assert_int_equal(f->outputs[0], ir_nodep(f, node(m, f, "sub"))->out);
	assert_int_equal(ir_graph(m, inner)->nnodes - 1, 1);
	done(&r);
}

static const char lambdadump[] =
"class GraphModule(torch.nn.Module):\n"
"    def forward(self, arg0_1: f32[s0, 3]):\n"
"        sym_size: Sym(s0) = torch.ops.aten.sym_size.int(arg0_1, 0)\n"
"        gt: Sym(s0 > 4) = sym_size > 4;  sym_size = None\n"
"        true_graph_0 = self.true_graph_0\n"
"        false_graph_0 = self.false_graph_0\n"
"        conditional: f32[s0, 3] = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [arg0_1]);  gt = true_graph_0 = false_graph_0 = arg0_1 = None\n"
"        return (conditional,)\n"
"\n"
"    class <lambda>(torch.nn.Module):\n"
"        def forward(self, arg0_1: f32[s0, 3]):\n"
"            cos: f32[s0, 3] = torch.ops.aten.cos.default(arg0_1)\n"
"            return cos\n"
"\n"
"    class <lambda>(torch.nn.Module):\n"
"        def forward(self, arg0_1: f32[s0, 3]):\n"
"            sin: f32[s0, 3] = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None\n"
"            return sin\n";

static void
test_lambda_subgraphs(void **state)
{
	(void)state;
	Run r = ok(lambdadump);
	Module *m = r.m;
	Graph *g = G(&r);
	NodeId c = node(m, g, "conditional");
	GraphId tg = ir_arg(g, c, 1)->u.g, fg = ir_arg(g, c, 2)->u.g;
	assert_int_not_equal(tg, 0);
	assert_int_not_equal(fg, 0);
	assert_int_equal(ir_graph(m, tg)->parent, r.g);
	/* textual order links them, and they take the attribute names */
	assert_string_equal(ir_str(m, ir_graph(m, tg)->name), "true_graph_0");
	assert_string_equal(ir_str(m, ir_graph(m, fg)->name), "false_graph_0");
	Graph *t = ir_graph(m, tg);
	assert_string_equal(opof(m, t, 1), "aten::cos.default");
	Graph *f = ir_graph(m, fg);
	assert_string_equal(opof(m, f, 1), "aten::sin.default");
	assert_int_equal(f->noutputs, 1);
	done(&r);
}

/* Wrapped dumps: logger prefixes, ANSI colours, a markdown fence, CRLF,
 * no newline at the end.  Positions are those of the original text. */
static void
test_wrapped(void **state)
{
	(void)state;
	const char *src =
	    "```python\r\n"
	    "V0610 18:40:25.800000 93824 torch/_export/_trace.py:690] class GraphModule(torch.nn.Module):\r\n"
	    "V0610 18:40:25.800000 93824 torch/_export/_trace.py:690]     def forward(self, x: \"f32[2]\"):\r\n"
	    "V0610 18:40:25.800000 93824 torch/_export/_trace.py:690]         \x1b[1m\x1b[33msin\x1b[0m: \"f32[2]\" = torch.ops.aten.sin.default(x)\r\n"
	    "V0610 18:40:25.800000 93824 torch/_export/_trace.py:690]         return (sin,)\r\n"
	    "```";
	Run r = ok(src);
	Module *m = r.m;
	Graph *g = G(&r);
	NodeId s = node(m, g, "sin");
	assert_int_equal(ir_nodep(g, s)->loc.line, 4);
	/* 57 prefix bytes, 8 spaces, 3 escape codes (4+5+4 bytes), "sin: "
	 * and the annotation: the op starts at byte 95 */
	assert_int_equal(ir_nodep(g, s)->loc.col, 95);
	assert_string_equal(name(m, g, g->outputs[0]), "sin");
	done(&r);
}

static void
test_untyped_forms(void **state)
{
	(void)state;
	static const char *const srcs[] = {
		"graph():\n"
		"    %x : [num_users=1] = placeholder[target=x]\n"
		"    return (x,)\n",
		"opcode         name           target\n"
		"-------------  -------------  ------\n"
		"placeholder    x              x\n",
		"def forward(self, b_buffer, x):\n"
		"    add_ = torch.ops.aten.add_.Tensor(x, 5);  x = None\n"
		"    return (add_,)\n",
	};
	static const char *const says[] = {"print(gm.graph)",
	    "print_tabular", "gm.code"};
	for (int i = 0; i < 3; i++) {
		Run r = runs(srcs[i]);
		assert_int_equal(r.rc, -1);
		assert_int_equal(r.m->nerrors, 1);
		has_error(&r, 1, 1, says[i]);
		has_error(&r, 1, 1, "no dtypes or shapes");
		has_error(&r, 1, 1, "print(exported_program)");
		done(&r);
	}
	/* a def with annotations is a typed dump after all */
	Run r = ok("def forward(self, x: \"f32[2]\"):\n"
	    "    neg: \"f32[2]\" = torch.ops.aten.neg.default(x)\n"
	    "    return (neg,)\n");
	assert_int_equal(G(&r)->nnodes - 1, 1);
	done(&r);
}

/* An op written as PyTorch prints it is read from the text at once
 * (fx_dotted_fast); written with blanks, or followed by other than '(',
 * token by token: the same ops, and the same positions after them. */
static void
test_dotted_ops(void **state)
{
	(void)state;
	Run r = ok("def forward(self, x: \"f32[2]\"):\n"
	    "    a: \"f32[2]\" = torch.ops.aten.neg.default(x)\n"
	    "    b: \"f32[2]\" = torch . ops.aten .neg. default (a)\n"
	    "    c: \"f32[2]\" = torch.ops.aten.add.Tensor(a, b)\n"
	    "    return (c,)\n");
	const Graph *g = G(&r);
	assert_string_equal(opof(r.m, g, node(r.m, g, "a")),
	    "aten::neg.default");
	assert_string_equal(opof(r.m, g, node(r.m, g, "b")),
	    "aten::neg.default");
	assert_string_equal(opof(r.m, g, node(r.m, g, "c")),
	    "aten::add.Tensor");
	assert_int_equal(ir_nodep(g, node(r.m, g, "c"))->loc.line, 4);
	assert_int_equal(ir_nodep(g, node(r.m, g, "c"))->loc.col, 19);
	done(&r);

	r = runs("def forward(self, x: \"f32[2]\"):\n"
	    "    a: \"f32[2]\" = torch.ops.aten.neg.default(q)\n"
	    "    b: \"f32[2]\" = torch.ops . aten.neg.default(q)\n"
	    "    c: \"f32[2]\" = torch.ops.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o(x)\n"
	    "    d: \"f32[2]\" = torch.ops.aten.neg.default x\n"
	    "    return (x,)\n");
	assert_int_equal(r.rc, -1);
	has_error(&r, 2, 46, "use of undefined value 'q'");
	has_error(&r, 3, 48, "use of undefined value 'q'");
	has_error(&r, 4, 57, "dotted name too long");
	has_error(&r, 5, 46, "expected '('");
	done(&r);
}

/* A dump read with the fast statement path (fx_fast.c) and without it: the
 * same result, the same diagnostics, the same strings interned in the same
 * order and the same IR, every node's line:col included.  Returns the
 * number of lines the fast path read. */
static uint32_t
same_both(const char *src, size_t n)
{
	char *out[2], *diag[2];
	size_t outlen, diaglen;
	int rc[2];
	FxOpts o[2] = {{.general = false}, {.general = true}};
	for (int k = 0; k < 2; k++) {
		Module *m = ir_module_new();
		m->file = "t.txt";
		m->src = src;
		m->srclen = n;
		m->diagout = open_memstream(&diag[k], &diaglen);
		GraphId g = 0;
		rc[k] = fx_parse_with(m, &g, &o[k]);
		fclose(m->diagout);
		m->diagout = NULL;
		FILE *f = open_memstream(&out[k], &outlen);
		for (GraphId i = g; rc[k] == 0 && i < m->ngraphs; i++)
			ir_print(m, i, f);
		for (GraphId i = 1; i < m->ngraphs; i++) {
			const Graph *gr = m->graphs[i];
			fprintf(f, "graph %u: %u %u %u %u %u\n", i, gr->nnodes,
			    gr->nvals, gr->nargs, gr->nitems, gr->ndims);
		}
		for (StrId i = 0; i < m->nstrs; i++)
			fprintf(f, "%u %s\n", i, ir_str(m, i));
		fclose(f);
		ir_free(m);
	}
	assert_int_equal(rc[0], rc[1]);
	assert_string_equal(diag[0], diag[1]);
	assert_string_equal(out[0], out[1]);
	assert_int_equal(o[1].fastlines, 0);
	for (int k = 0; k < 2; k++) {
		free(out[k]);
		free(diag[k]);
	}
	return o[0].fastlines;
}

/* The statement forms the fast path reads, and next to each some it must
 * leave to the general path (marked "general"), errors among them. */
static const char fastdump[] =
"class GraphModule(torch.nn.Module):\n"
"    def forward(self, x: \"f32[2, 3]\", y: \"i64[2]\", s: \"Sym(s0)\"):\n"
"        a: \"f32[2, 3]\" = torch.ops.aten.relu.default(x)\n"
"        b: 'f32[3, 2]' = torch.ops.aten.permute.default(a, [1, 0])\n"
"        c: \"f32[2]\" = torch.ops.aten.sum.dim_IntList(b, [-1], False, dtype = None)\n"
"        d = torch.ops.aten.mul.Tensor(c, c)\n"
"        e: \"f32[2]\" = torch.ops.aten.add_.Tensor(c, d);  c = None\n"
"        f: \"f32[2]\" = torch.ops.aten.clamp.default(e, -inf, inf)\n"  /* general */
"        g: \"f32[s0]\" = torch.ops.aten.view.default(e,[s,]) \t\r\n"
"        h: \"f32[2]\" = torch.ops.aten.mul.Scalar(c, 2.5)\n"          /* general */
"        i: \"f32[2]\" = torch.ops.aten.add.Tensor (h, c)\n"           /* general */
"        j: \"f32[2]\" = torch.ops.aten.cat.default([[c], [d]], 0)\n"  /* general */
"        k: \"f32[2]\" = torch.ops.aten.neg.default(h)  # x\n"        /* general, error */
"        max_1 = torch.ops.aten.max.dim(k, 0)\n"
"        l: \"f32[2]\" = max_1[0]\n"                                  /* general */
"        m: \"i64[2]\" = torch.ops.aten.neg.default(max_1)\n"           /* general, error */
"        n: \"f32[2]\" = torch.ops.aten.add.Tensor(l, undefined_name)\n" /* general, error */
"        o: \"f32[2]\" = torch.ops.aten.neg.default(k)\n"
"        p: \"f33[2]\" = torch.ops.aten.neg.default(l)\n"               /* error */
"        p: \"f32[2]\" = torch.ops.aten.neg.default(l)\n"               /* error */
"        q: \"f32[2]\" = torch.ops.aten.add.Tensor(other = l, l)\n"   /* general, error */
"        r: \"f32[2]\" = torch.ops.aten.to.dtype(l, torch.float32)\n"  /* general */
"        t: \"f32[2]\" = sin(l)\n"
"        u: \"f32[2]\" = torch.ops.aten.neg.default(l, 123456789012345678)\n"
"        v: \"f32[2]\" = torch.ops.aten.neg.default(l, 1234567890123456789)\n" /* general */
"        w: \"f32[2]\" = torch.ops.aten.neg.default(l, 99999999999999999999)\n" /* general, error */
"        y1: \"f32[2]\" = torch.ops.aten.mul.Tensorx(l, l)\n"
"        y2: \"f32[2]\" = torch.ops.aten.mul.Tensor (l, l)\n"        /* general */
"        l2: \"i64[2]\" = max_1[ 1 ]\n"
"        \x1b[1mx2\x1b[0m: \"f32[2]\" = torch.ops.aten.neg.default(l)\n"     /* general */
"        return (f, g, l, u, l2, x2, y1, y2)\n"
"        \n";

static void
test_fast_stmt(void **state)
{
	(void)state;
	assert_int_equal(same_both(fastdump, sizeof fastdump - 1), 13);
	/* the diagnostics, where the general path gives them */
	Run r = runs(fastdump);
	assert_int_equal(r.rc, -1);
	has_error(&r, 13, 54, "expected end of line");
	has_error(&r, 16, 50, "'max_1' is a tuple of 2 values");
	has_error(&r, 17, 52, "use of undefined value 'undefined_name'");
	has_error(&r, 19, 13, "unknown dtype code 'f33'");
	has_error(&r, 20, 9, "duplicate definition of 'p'");
	has_error(&r, 21, 60, "positional argument after keyword");
	has_error(&r, 26, 53, "does not fit in 64 bits");
	assert_int_equal(r.m->nerrors, 7);
	const Graph *g = ir_graph(r.m, 1);  /* the failed parse's main */
	NodeId n = node(r.m, g, "e");
	assert_int_equal(ir_nodep(g, n)->loc.line, 7);
	assert_int_equal(ir_nodep(g, n)->loc.col, 23);
	/* add_ rebinds c: t reads add_'s value */
	assert_int_equal(g->args[ir_nodep(g, node(r.m, g, "h"))->args].u.v,
	    ir_nodep(g, n)->out);
	/* an op whose text starts as one read before, and the same op
	 * with a blank before its '(' */
	assert_string_equal(opof(r.m, g, node(r.m, g, "y1")),
	    "aten::mul.Tensorx");
	assert_string_equal(opof(r.m, g, node(r.m, g, "y2")),
	    "aten::mul.Tensor");
	/* the colour codes are skipped as blanks, and counted in columns */
	n = node(r.m, g, "x2");
	assert_int_equal(ir_nodep(g, n)->loc.line, 30);
	assert_int_equal(ir_nodep(g, n)->loc.col, 32);
	assert_int_equal(ir_val(g, ir_nodep(g, n)->out)->rank, 1);
	done(&r);
	/* a name of 17 parts, and a last line without its newline (read
	 * by the general path) */
	static const char tail[] =
	    "def forward(self, x: \"f32[2]\"):\n"
	    "    a: \"f32[2]\" = torch.ops.aten.neg.default(x)\n"
	    "    b: \"f32[2]\" = a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q(x)\n"
	    "    c: \"f32[2]\" = torch.ops.aten.neg.default(a)";
	assert_int_equal(same_both(tail, sizeof tail - 1), 1);
	r = runs(tail);
	has_error(&r, 3, 51, "dotted name too long");
	has_error(&r, 1, 1, "missing 'return'");
	assert_int_equal(r.m->nerrors, 2);
	done(&r);
}

/* The whole file at path (malloc'ed, *len bytes), or NULL. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *text = NULL;
	*len = 0;
	FILE *mf = open_memstream(&text, len);
	char chunk[65536];
	size_t k;
	while (mf && (k = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, k, mf);
	fclose(f);
	if (!mf)
		return NULL;
	fclose(mf);
	return text;
}

/* Every dump the tests, the fuzzer's seeds and the shared corpus hold:
 * the same with the fast path and without it. */
static uint32_t
same_both_dir(const char *dir, const char *file)
{
	DIR *d = opendir(dir);
	uint32_t fast = 0;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s%s%s", dir, e->d_name,
		    file ? "/" : "", file ? file : "");
		size_t len;
		char *text = slurp(path, &len);
		if (!text)
			continue;
		fast += same_both(text, len);
		free(text);
	}
	closedir(d);
	return fast;
}

static void
test_fast_corpus(void **state)
{
	(void)state;
	const char *src = getenv("ONNXC_SRC");
	if (!src)
		skip();
	static const char *const dirs[][2] = {
		{"tests/cases", "graph.txt"}, {"tests/cases-cf", "graph.txt"},
		{"tests/cases-decompose", "graph.txt"},
		{"tests/cases-diagnose", "graph.txt"},
		{"tests/cases-dynamic", "graph.txt"},
		{"tests/cases-training", "graph.txt"},
		{"fuzz/corpus/dump", NULL}, {"tests/regress/dump", NULL},
	};
	uint32_t fast = 0;
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		char dir[1024];
		snprintf(dir, sizeof dir, "%s/%s", src, dirs[i][0]);
		fast += same_both_dir(dir, dirs[i][1]);
	}
	assert_true(fast > 1000);
	same_both_dir("/work/shared/corpus", "graph.txt");
}

/* "input_1 = input": a second name for a value, with a comment in the
 * body; an undefined right-hand side is an error. */
static void
test_alias_assignment(void **state)
{
	(void)state;
	Run r = ok("class GraphModule(torch.nn.Module):\n"
	    "    def forward(self, input: \"f32[2]\"):\n"
	    "        input_1 = input\n"
	    "        # File: x.py:3 in forward, code: y = -x\n"
	    "        neg: \"f32[2]\" = torch.ops.aten.neg.default(input_1)\n"
	    "        same = neg;  neg = None\n"
	    "        return (same,)\n");
	Module *m = r.m;
	Graph *g = G(&r);
	assert_int_equal(g->nnodes - 1, 1);
	NodeId n = node(m, g, "neg");
	assert_int_equal(g->args[ir_nodep(g, n)->args].u.v, input(&r, g, 0));
	assert_int_equal(g->outputs[0], ir_nodep(g, n)->out);
	done(&r);
	r = runs("class GraphModule(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[2]\"):\n"
	    "        y = zz\n"
	    "        return (x,)\n");
	assert_int_equal(r.rc, -1);
	has_error(&r, 3, 13, "use of undefined value 'zz'");
	done(&r);
}

/* Each error at its line:col; parsing goes on at the next line. */
static void
test_errors(void **state)
{
	(void)state;
	static const char src[] =
"class GraphModule(torch.nn.Module):\n"
"    def forward(self, x: \"f32[2]\", y: \"q32[2]\", z: \"f32[2, s0 +]\"):\n"
"        a: \"f32[2]\" = torch.ops.aten.neg.default(x y)\n"
"        b: \"f32[2]\" = torch.ops.aten.add.Tensor(x, 'oops)\n"
"        c: \"f32[2]\" = torch.ops.aten.add.Tensor(x, [1, 2\n"
"        d: \"f32[2]\" = torch.ops.aten.neg.default(x)\n"
"        d: \"f32[2]\" = torch.ops.aten.neg.default(x)\n"
"        e: \"f32[2]\" = torch.ops.aten.add.Tensor(x, foo)\n"
"        f: \"f32[2]\" = torch.ops.aten.add.Tensor(d, a)\n"
"        g: \"f32[2]\" = torch.ops.aten.neg.default(x, 99999999999999999999)\n"
"        h: \"Sym(s0 >)\" = torch.ops.aten.neg.default(x)\n"
"        i: \"f32[2]\" = torch.ops.aten.neg.default(x);  ok = None\n"
"        return (d, 3)\n"
"Graph signature: \n"
"    # inputs\n"
"    x: USER_INPUT\n"
"    w: PARAMETER target='w'\n"
"    # outputs\n"
"    d: USER_OUTPUT\n";
	Run r = runs(src);
	assert_int_equal(r.rc, -1);
	has_error(&r, 2, 40, "unknown dtype code 'q32'");
	has_error(&r, 2, 64, "bad dimension expression 's0 +'");
	has_error(&r, 3, 52, "expected ',' or ')', found 'y'");
	has_error(&r, 4, 52, "unterminated string");
	has_error(&r, 5, 52, "unclosed '['");
	has_error(&r, 7, 9, "duplicate definition of 'd'");
	has_error(&r, 8, 52, "use of undefined value 'foo'");
	has_error(&r, 10, 53, "does not fit in 64 bits");
	has_error(&r, 11, 21, "bad symbolic expression");
	has_error(&r, 13, 20, "non-value constant");
	has_error(&r, 17, 5, "'w', which is not a placeholder");
	/* 'a', 'b' and 'c' failed: uses of them are not errors again */
	assert_null(strstr(r.diag, "undefined value 'a'"));
	if (r.m->nerrors != 11) {
		fputs(r.diag, stderr);
		fail_msg("%d errors", r.m->nerrors);
	}
	done(&r);
}

static void
test_more_errors(void **state)
{
	(void)state;
	Run r = runs("");
	assert_int_equal(r.rc, -1);
	has_error(&r, 1, 1, "empty input");
	done(&r);
	r = runs("   \n\n  # just a comment\n");
	has_error(&r, 1, 1, "empty input");
	done(&r);
	/* missing return: reported at the def */
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[2]\"):\n"
	    "        a: \"f32[2]\" = torch.ops.aten.neg.default(x)\n"
	    "Range constraints: {}\n");
	assert_int_equal(r.rc, -1);
	has_error(&r, 2, 5, "missing 'return'");
	done(&r);
	/* unexpected token with what was expected */
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[2]\"):\n"
	    "        a: \"f32[2]\" torch.ops.aten.neg.default(x)\n"
	    "        return (x,)\n");
	has_error(&r, 3, 21, "expected '=', found 'torch'");
	done(&r);
	/* unclosed def, brackets nested too deep, unknown subgraph */
	char deep[1024];
	strcpy(deep, "class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[2]\"):\n"
	    "        a: \"f32[2]\" = torch.ops.aten.neg.default(");
	for (int i = 0; i < 100; i++)
		strcat(deep, "[");
	strcat(deep, "\n        return (x,)\n");
	r = runs(deep);
	assert_int_equal(r.rc, -1);
	has_error(&r, 3, 114, "nested more than 64 deep");
	done(&r);
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[2]\"):\n"
	    "        g = self.body_graph_0\n"
	    "        m = torch.ops.higher_order.map_impl(g, [x], [])\n"
	    "        getitem: \"f32[2]\" = m[0]\n"
	    "        return (getitem,)\n");
	has_error(&r, 3, 13, "no subgraph class 'body_graph_0'");
	done(&r);
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[2]\"\n"
	    "        a: \"f32[2]\" = torch.ops.aten.neg.default(x)\n"
	    "        return (a,)\n");
	has_error(&r, 2, 16, "unclosed '(' of def");
	done(&r);
	/* unlifted module forms say what to dump instead */
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[2]\"):\n"
	    "        w: \"f32[2]\" = self.fc.weight\n"
	    "        return (x,)\n");
	has_error(&r, 3, 23, "unlifted module");
	done(&r);
	/* the signature's output count must match the return */
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[2]\"):\n"
	    "        return (x, x)\n"
	    "Graph signature: \n"
	    "    # inputs\n"
	    "    x: USER_INPUT\n"
	    "    # outputs\n"
	    "    x: USER_OUTPUT\n");
	has_error(&r, 4, 1, "lists 1 outputs but forward() returns 2");
	done(&r);
}

/* A list as the last element of a tuple result (histogramdd's (Tensor
 * hist, Tensor[] bin_edges)): its getitems name the node's outputs after
 * the elements before it; a list before another element, or nested
 * deeper, is refused by name. */
static void
test_nested_list_output(void **state)
{
	(void)state;
	Run r = ok("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[5, 3]\"):\n"
	    "        h = torch.ops.aten.histogramdd.default(x, [1, 2, 3])\n"
	    "        getitem: \"f32[1, 2, 3]\" = h[0]\n"
	    "        getitem_1 = h[1];  h = None\n"
	    "        getitem_2: \"f32[2]\" = getitem_1[0]\n"
	    "        getitem_3: \"f32[4]\" = getitem_1[2]\n"
	    "        getitem_4: \"f32[4]\" = getitem_1[2];  getitem_1 = None\n"
	    "        return (getitem, getitem_2, getitem_3, getitem_4)\n");
	Module *m = r.m;
	Graph *g = G(&r);
	Node *h = ir_nodep(g, node(m, g, "h"));
	/* hist, then bin_edges[0..2] */
	assert_int_equal(h->nout, 4);
	assert_string_equal(name(m, g, h->out), "getitem");
	assert_string_equal(name(m, g, h->out + 1), "getitem_2");
	assert_string_equal(name(m, g, h->out + 3), "getitem_3");
	check_dims(m, g, h->out + 1, "[2]");
	check_dims(m, g, h->out + 3, "[4]");
	assert_int_equal(ir_val(g, h->out + 2)->kind, VK_UNKNOWN);
	assert_int_equal(g->noutputs, 4);
	assert_int_equal(g->outputs[0], h->out);
	assert_int_equal(g->outputs[1], h->out + 1);
	assert_int_equal(g->outputs[2], h->out + 3);
	assert_int_equal(g->outputs[3], h->out + 3);
	done(&r);
	/* an element after the list */
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[5, 3]\"):\n"
	    "        h = torch.ops.aten.f.default(x)\n"
	    "        a = h[0]\n"
	    "        b: \"f32[2]\" = a[0]\n"
	    "        c: \"f32[2]\" = h[1]\n"
	    "        return (b, c)\n");
	has_error(&r, 6, 25, "a list is supported as its last element only");
	done(&r);
	/* a list in a list in a tuple; a list used whole */
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[5, 3]\"):\n"
	    "        h = torch.ops.aten.f.default(x)\n"
	    "        a = h[0]\n"
	    "        b = a[0]\n"
	    "        c: \"f32[2]\" = b[0]\n"
	    "        return (c,)\n");
	has_error(&r, 5, 9, "one level of nesting is supported");
	done(&r);
	r = runs("class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[5, 3]\"):\n"
	    "        h = torch.ops.aten.f.default(x)\n"
	    "        a = h[0]\n"
	    "        b: \"f32[2]\" = a[0]\n"
	    "        c: \"f32[2]\" = torch.ops.aten.cat.default(a)\n"
	    "        return (b, c)\n");
	has_error(&r, 6, 50, "is a list inside a tuple; use its elements");
	done(&r);
}

/* Never crash or hang: every prefix of a dump, NUL bytes, byte flips. */
static void
test_robust(void **state)
{
	(void)state;
	size_t n = strlen(conddump);
	char *buf = malloc(n + 1);
	for (size_t k = 0; k <= n; k += 7) {
		memcpy(buf, conddump, k);
		Run r = run(buf, k);
		assert_true(r.rc == 0 || r.m->nerrors > 0);
		done(&r);
	}
	static const char flips[] = "\0\n\"'([{)]}:;,#=-.<>x9\x1b\xff";
	uint32_t seed = 12345;
	for (int it = 0; it < 400; it++) {
		memcpy(buf, dump28, sizeof dump28 < n + 1 ? sizeof dump28 :
		    n + 1);
		size_t len = strlen(dump28) < n ? strlen(dump28) : n;
		for (int j = 0; j < 3; j++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			buf[at] = flips[(seed >> 8) % (sizeof flips - 1)];
		}
		Run r = run(buf, len);
		assert_true(r.rc == 0 || r.m->nerrors > 0);
		done(&r);
	}
	free(buf);
	/* a 60 KB def line and a 50 KB argument list */
	size_t cap = 200000;
	char *big = malloc(cap);
	strcpy(big, "class M(torch.nn.Module):\n    def forward(self");
	for (int i = 0; i < 3000; i++)
		sprintf(big + strlen(big), ", x%d: \"f32[2]\"", i);
	strcat(big, "):\n        cat: \"f32[6000]\" = "
	    "torch.ops.aten.cat.default([");
	for (int i = 0; i < 3000; i++)
		sprintf(big + strlen(big), "%sx%d", i ? ", " : "", i);
	strcat(big, "])\n        return (cat,)");
	Run r = ok(big);
	assert_int_equal(G(&r)->ninputs, 3000);
	assert_int_equal(ir_arg(G(&r), 1, 0)->u.list.n, 3000);
	done(&r);
	free(big);
}

/* Every case of the shared corpus: "pass" cases parse cleanly; others
 * parse or fail with errors, never crash. */
static void
test_corpus(void **state)
{
	(void)state;
	const char *dir = "/work/shared/corpus";
	DIR *d = opendir(dir);
	if (!d)
		skip();
	int seen = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s/graph.txt", dir, e->d_name);
		size_t len;
		char *text = slurp(path, &len);
		if (!text)
			continue;
		snprintf(path, sizeof path, "%s/%s/case.json", dir, e->d_name);
		bool pass = false;
		FILE *f = fopen(path, "rb");
		if (f) {
			char js[8192];
			size_t jn = fread(js, 1, sizeof js - 1, f);
			js[jn] = 0;
			pass = strstr(js, "\"expect\": \"pass\"") != NULL;
			fclose(f);
		}
		Run r = run(text, len);
		if (pass && (r.rc != 0 || r.m->nerrors))
			fail_msg("%s: %s", e->d_name, r.diag);
		assert_true(r.rc == 0 || r.m->nerrors > 0);
		done(&r);
		free(text);
		seen++;
	}
	closedir(d);
	assert_true(seen > 0);
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printep_28),
		cmocka_unit_test(test_printep_dataclass_signature),
		cmocka_unit_test(test_printep_21),
		cmocka_unit_test(test_readable_getitem_inplace),
		cmocka_unit_test(test_nested_list_output),
		cmocka_unit_test(test_sym_ops),
		cmocka_unit_test(test_subgraphs),
		cmocka_unit_test(test_lambda_subgraphs),
		cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_untyped_forms),
		cmocka_unit_test(test_dotted_ops),
		cmocka_unit_test(test_fast_stmt),
		cmocka_unit_test(test_fast_corpus),
		cmocka_unit_test(test_alias_assignment),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_more_errors),
		cmocka_unit_test(test_robust),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
