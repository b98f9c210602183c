/* test_lower.c - the lowering pass itself: inputs and initializers,
 * outputs, unsupported ops, promotion, size lists, constants, Sym rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lower/lower.h"
#include "lower_fixture.h"

static ValId
input(Fix *f, const char *name, DType dt, int rank, const int64_t *dims,
    Role role, const char *target)
{
	Dim d[8];
	for (int i = 0; i < rank; i++)
		d[i] = (Dim){dims[i], 0};
	ValId v = ir_value(f->g, ir_intern(f->m, name));
	ir_set_tensor(f->g, v, dt, rank, d);
	ir_val(f->g, v)->role = (uint8_t)role;
	if (target)
		ir_val(f->g, v)->target = ir_intern(f->m, target);
	ir_add_input(f->g, v);
	return v;
}

static ValId
symint(Fix *f, const char *name, ExprId e)
{
	ValId v = ir_value(f->g, ir_intern(f->m, name));
	Value *p = ir_val(f->g, v);
	p->kind = VK_SYMINT;
	p->sym = e;
	p->role = ROLE_USER_INPUT;
	ir_add_input(f->g, v);
	return v;
}

/* A node with one output named name of type dt[rank dims]. */
static NodeId
node(Fix *f, const char *op, const char *name, DType dt, int rank,
    const int64_t *dims)
{
	NodeId n = ir_node(f->g, D_FX, ir_intern(f->m, op), 1);
	Node *p = ir_nodep(f->g, n);
	p->name = ir_intern(f->m, name);
	p->loc = (Loc){n + 1, 5};
	ir_val(f->g, p->out)->name = p->name;
	if (rank >= 0) {
		Dim d[8];
		for (int i = 0; i < rank; i++)
			d[i] = (Dim){dims[i], 0};
		ir_set_tensor(f->g, p->out, dt, rank, d);
	}
	return n;
}

static ValId
out(Fix *f, NodeId n)
{
	return ir_nodep(f->g, n)->out;
}

/* ONNX node k (1-based) of the lowered graph */
static const Node *
onnx_node(Fix *f, GraphId g, NodeId k)
{
	return ir_nodep(ir_graph(f->m, g), k);
}

static const char *
opname(Fix *f, const Node *n)
{
	return ir_str(f->m, n->op);
}

static void
test_inputs_initializers_and_outputs(void **state)
{
	Fix *f = *state;
	static const int64_t d23[] = {2, 3};
	ValId w = input(f, "p_fc_weight", DT_F32, 2, d23, ROLE_PARAM,
	    "fc.weight");
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	float data[6] = {1, 2, 3, 4, 5, 6};
	ir_val(f->g, w)->init = ir_tensor(f->m, &(Tensor){.dtype = DT_F32,
	    .rank = 2, .dims = (int64_t *)d23, .data = data, .nbytes = 24});
	NodeId add = node(f, "aten::add.Tensor", "add", DT_F32, 2, d23);
	ir_push_arg(f->g, add, arg_val(x));
	ir_push_arg(f->g, add, arg_val(w));
	NodeId relu = node(f, "aten::relu.default", "relu", DT_F32, 2, d23);
	ir_push_arg(f->g, relu, arg_val(out(f, add)));
	/* outputs: relu, relu again, and the user input itself */
	ir_add_output(f->g, out(f, relu), OUT_USER, 0);
	ir_add_output(f->g, out(f, relu), OUT_USER, 0);
	ir_add_output(f->g, x, OUT_USER, 0);
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), 0);
	Graph *g = ir_graph(f->m, o);
	assert_int_equal(ir_verify(f->m, o), 0);
	assert_int_equal(g->ninputs, 2);
	const Value *wi = ir_val(g, g->inputs[0]);
	assert_string_equal(ir_str(f->m, wi->name), "fc.weight");
	assert_int_not_equal(wi->init, 0);
	assert_string_equal(ir_str(f->m, ir_val(g, g->inputs[1])->name), "x");
	assert_int_equal(g->noutputs, 3);
	/* three distinct values, none of them a graph input */
	assert_int_not_equal(g->outputs[0], g->outputs[1]);
	assert_string_equal(ir_str(f->m, ir_val(g, g->outputs[0])->name),
	    "relu");
	for (int k = 0; k < 3; k++) {
		const Value *v = ir_val(g, g->outputs[k]);
		assert_int_not_equal(v->def, 0);
		assert_int_equal(v->dtype, DT_F32);
		assert_int_equal(v->rank, 2);
	}
	assert_string_equal(opname(f, onnx_node(f, o, 1)), "Add");
}

static void
test_unused_initializers_dropped(void **state)
{
	Fix *f = *state;
	static const int64_t d2[] = {2};
	float data[2] = {1, 2};
	Tensor t = {.dtype = DT_F32, .rank = 1, .dims = (int64_t *)d2,
	    .data = data, .nbytes = 8};
	ValId used = input(f, "b_used", DT_F32, 1, d2, ROLE_BUFFER, "used");
	ValId unused = input(f, "b_unused", DT_F32, 1, d2, ROLE_BUFFER,
	    "unused");
	ValId noweights = input(f, "p_w", DT_F32, 1, d2, ROLE_PARAM, "w");
	ir_val(f->g, used)->init = ir_tensor(f->m, &t);
	ir_val(f->g, unused)->init = ir_tensor(f->m, &t);
	(void)noweights;
	NodeId r = node(f, "aten::relu.default", "relu", DT_F32, 1, d2);
	ir_push_arg(f->g, r, arg_val(used));
	ir_add_output(f->g, out(f, r), OUT_USER, 0);
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), 0);
	Graph *g = ir_graph(f->m, o);
	/* the unused initializer goes; an unused graph input stays */
	assert_int_equal(g->ninputs, 2);
	assert_string_equal(ir_str(f->m, ir_val(g, g->inputs[0])->name), "used");
	assert_string_equal(ir_str(f->m, ir_val(g, g->inputs[1])->name), "w");
}

/* Two placeholders for one target (tied weights) are one ONNX input;
 * with different types they are an error, not a duplicate name. */
static void
test_tied_targets(void **state)
{
	Fix *f = *state;
	static const int64_t d2[] = {2}, d3[] = {3};
	ValId a = input(f, "p_a", DT_F32, 1, d2, ROLE_PARAM, "w");
	ValId b = input(f, "p_b", DT_F32, 1, d2, ROLE_PARAM, "w");
	NodeId n = node(f, "aten::add.Tensor", "add", DT_F32, 1, d2);
	ir_push_arg(f->g, n, arg_val(a));
	ir_push_arg(f->g, n, arg_val(b));
	ir_add_output(f->g, out(f, n), OUT_USER, 0);
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), 0);
	Graph *g = ir_graph(f->m, o);
	assert_int_equal(g->ninputs, 1);
	assert_string_equal(ir_str(f->m, ir_val(g, g->inputs[0])->name), "w");
	const Node *add = onnx_node(f, o, 1);
	assert_int_equal(g->args[add->args].u.v, g->args[add->args + 1].u.v);

	input(f, "p_c", DT_F32, 1, d3, ROLE_PARAM, "w");
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), -1);
	assert_non_null(strstr(diags(f), "placeholders 'p_a' and 'p_c' both "
	    "stand for 'w' but their types differ"));
}

static void
test_unsupported_ops_listed_at_once(void **state)
{
	Fix *f = *state;
	static const int64_t d2[] = {2};
	ValId x = input(f, "x", DT_F32, 1, d2, ROLE_USER_INPUT, NULL);
	NodeId a = node(f, "aten::foo.bar", "foo", DT_F32, 1, d2);
	ir_push_arg(f->g, a, arg_val(x));
	NodeId b = node(f, "aten::foo.bar", "foo_1", DT_F32, 1, d2);
	ir_push_arg(f->g, b, arg_val(out(f, a)));
	NodeId c = node(f, "mylib::baz.default", "baz", DT_F32, 1, d2);
	ir_push_arg(f->g, c, arg_val(out(f, b)));
	ir_add_output(f->g, out(f, c), OUT_USER, 0);
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), -1);
	const char *d = diags(f);
	assert_non_null(strstr(d, "unsupported operator 'aten::foo.bar'"));
	assert_non_null(strstr(d, "unsupported operator 'mylib::baz.default'"));
	/* each op once, at its first place (line 2: node 1) */
	assert_null(strstr(strstr(d, "foo.bar") + 1, "foo.bar'\n"));
	assert_non_null(strstr(d, ":2:5: error: unsupported operator "
	    "'aten::foo.bar'"));
}

/* The schema check: positional calls within the schema's counts pass
 * without parsing it; every other call is matched as before, with the
 * same errors (add.Tensor: self other * alpha=). */
static void
test_schema_calls(void **state)
{
	Fix *f = *state;
	static const int64_t d2[] = {2};
	ValId x = input(f, "x", DT_F32, 1, d2, ROLE_USER_INPUT, NULL);
	StrId other = ir_intern(f->m, "other"), alpha = ir_intern(f->m,
	    "alpha"), beta = ir_intern(f->m, "beta");
	const struct {
		int n;
		Arg a[3];
	} calls[] = {
		{1, {arg_val(x)}},                                 /* missing */
		{3, {arg_val(x), arg_val(x), arg_val(x)}},         /* extra */
		{2, {arg_val(x), arg_val(x)}},
		{2, {arg_val(x), arg_keyed(arg_val(x), other)}},
		{3, {arg_val(x), arg_val(x), arg_keyed(arg_int(2), alpha)}},
		{3, {arg_val(x), arg_val(x), arg_keyed(arg_int(2), beta)}},
	};
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
		char name[8];
		snprintf(name, sizeof name, "a%zu", i);
		NodeId n = node(f, "aten::add.Tensor", name, DT_F32, 1, d2);
		for (int k = 0; k < calls[i].n; k++)
			ir_push_arg(f->g, n, calls[i].a[k]);
		ir_add_output(f->g, out(f, n), OUT_USER, 0);
	}
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), -1);
	const char *d = diags(f);
	assert_non_null(strstr(d, "missing value for argument 'other'"));
	assert_non_null(strstr(d, "expected at most 2 positional argument(s) "
	    "but got 3"));
	assert_non_null(strstr(d, "unexpected keyword argument 'beta'"));
	int errors = 0;
	for (const char *p = d; (p = strstr(p, "error:")); p++)
		errors++;
	assert_int_equal(errors, 3);
}

/* Elementwise ops find their table entry once per op (Lower.infos): 18
 * ops in 16 slots, twice over in opposite orders, each still gets its
 * own ONNX op. */
static void
test_elementwise_entries(void **state)
{
	Fix *f = *state;
	static const int64_t d2[] = {2};
	static const char *const ops[][2] = {
		{"exp", "Exp"}, {"log", "Log"}, {"sqrt", "Sqrt"},
		{"reciprocal", "Reciprocal"}, {"sin", "Sin"}, {"cos", "Cos"},
		{"tan", "Tan"}, {"asin", "Asin"}, {"acos", "Acos"},
		{"atan", "Atan"}, {"sinh", "Sinh"}, {"cosh", "Cosh"},
		{"tanh", "Tanh"}, {"asinh", "Asinh"}, {"acosh", "Acosh"},
		{"atanh", "Atanh"}, {"erf", "Erf"}, {"sigmoid", "Sigmoid"},
	};
	enum { N = sizeof ops / sizeof *ops };
	ValId x = input(f, "x", DT_F32, 1, d2, ROLE_USER_INPUT, NULL);
	for (int i = 0; i < 2 * N; i++) {
		int k = i < N ? i : 2 * N - 1 - i;
		char op[64], name[16];
		snprintf(op, sizeof op, "aten::%s.default", ops[k][0]);
		snprintf(name, sizeof name, "y%d", i);
		NodeId n = node(f, op, name, DT_F32, 1, d2);
		ir_push_arg(f->g, n, arg_val(x));
		ir_add_output(f->g, out(f, n), OUT_USER, 0);
	}
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), 0);
	const Graph *g = ir_graph(f->m, o);
	assert_int_equal(g->nnodes - 1, 2 * N);
	for (int i = 0; i < 2 * N; i++) {
		int k = i < N ? i : 2 * N - 1 - i;
		assert_string_equal(ir_str(f->m, g->nodes[i + 1].op),
		    ops[k][1]);
	}
}

/* Lowering alone does not guess in-place semantics (a write may reach
 * views of the tensor): the op is refused with a pointer to the
 * functionalize pass. */
static void
test_inplace_needs_functionalize(void **state)
{
	Fix *f = *state;
	static const int64_t d2[] = {2};
	ValId x = input(f, "x", DT_F32, 1, d2, ROLE_USER_INPUT, NULL);
	NodeId r = node(f, "aten::relu_.default", "relu_", DT_F32, 1, d2);
	ir_push_arg(f->g, r, arg_val(x));
	ir_add_output(f->g, out(f, r), OUT_USER, 0);
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), -1);
	const char *d = diags(f);
	assert_non_null(strstr(d, "unsupported operator "
	    "'aten::relu_.default'"));
	assert_non_null(strstr(d, "note: in-place ops are rewritten by the "
	    "functionalize pass"));
}

/* Run rule-side helpers on a node without lowering the whole graph. */
static Lower
lower_on(Fix *f, NodeId n, GraphId *dst)
{
	Lower L = {.m = f->m, .opset = 18, .node = n};
	*dst = ir_graph_new(f->m, "dst", 0);
	L.src = ir_graph(f->m, f->gid);
	L.dst = ir_graph(f->m, *dst);
	L.dstid = *dst;
	L.map = calloc(L.src->nvals + 1, sizeof *L.map);
	return L;
}

/* The same on a relu of a fresh input x, for helpers that need only
 * some node to stand on. */
static Lower
lower_on_relu(Fix *f, GraphId *dst)
{
	static const int64_t d2[] = {2};
	ValId x = input(f, "x", DT_F32, 1, d2, ROLE_USER_INPUT, NULL);
	NodeId n = node(f, "aten::relu.default", "r", DT_F32, 1, d2);
	ir_push_arg(f->g, n, arg_val(x));
	return lower_on(f, n, dst);
}

static void
test_promotion(void **state)
{
	Fix *f = *state;
	static const int64_t d2[] = {2};
	ValId xi = input(f, "xi", DT_I32, 1, d2, ROLE_USER_INPUT, NULL);
	ValId xf16 = input(f, "xh", DT_F16, 1, d2, ROLE_USER_INPUT, NULL);
	ValId z64 = input(f, "z", DT_I64, 0, NULL, ROLE_USER_INPUT, NULL);
	ValId zf64 = input(f, "zd", DT_F64, 0, NULL, ROLE_USER_INPUT, NULL);
	ValId xu8 = input(f, "u", DT_U8, 1, d2, ROLE_USER_INPUT, NULL);
	ValId xi8 = input(f, "i8", DT_I8, 1, d2, ROLE_USER_INPUT, NULL);
	ValId xb = input(f, "b", DT_BOOL, 1, d2, ROLE_USER_INPUT, NULL);
	struct {
		Arg a, b;
		DType want;
	} cases[] = {
		{arg_val(xi), arg_float(2.5), DT_F32},   /* int tensor, float */
		{arg_val(xi), arg_int(2), DT_I32},       /* scalar int: tensor */
		{arg_val(xi), arg_val(z64), DT_I32},     /* 0-d loses to dim */
		{arg_val(xf16), arg_val(zf64), DT_F16},  /* same category */
		{arg_val(xi), arg_val(zf64), DT_F64},    /* higher category */
		{arg_val(xu8), arg_val(xi8), DT_I16},
		{arg_val(xb), arg_int(1), DT_I64},
		{arg_val(xb), arg_val(xb), DT_BOOL},
		{arg_val(xf16), arg_val(xi), DT_F16},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		NodeId n = node(f, "aten::add.Tensor", "add", DT_F32, 1, d2);
		ir_push_arg(f->g, n, cases[k].a);
		ir_push_arg(f->g, n, cases[k].b);
		GraphId dst;
		Lower L = lower_on(f, n, &dst);
		assert_int_equal(lw_promote(&L, 0, "self", 1, "other"),
		    cases[k].want);
		free(L.map);
	}
}

static uint16_t
half_bits(Fix *f, double v, DType dt)
{
	GraphId dst;
	Lower L = lower_on_relu(f, &dst);
	ValId c = lw_scalar(&L, v, dt);
	const Node *k = ir_nodep(L.dst, ir_val(L.dst, c)->def);
	const Tensor *t = ir_tensorp(f->m, L.dst->args[k->args].u.t);
	uint16_t h;
	memcpy(&h, t->data, 2);
	free(L.map);
	return h;
}

/* Names are remembered by the address of their text: one address holding
 * another name later (a caller's buffer) still gives that name, and
 * attribute names and the default domain come out right. */
static void
test_emit_names(void **state)
{
	Fix *f = *state;
	GraphId dst;
	Lower L = lower_on_relu(f, &dst);
	char op[16], key[16];
	const char *want[] = {"Relu", "Neg", "Relu", "Abs", "Abs"};
	NodeId e[5];
	for (int i = 0; i < 5; i++) {
		snprintf(op, sizeof op, "%s", want[i]);
		snprintf(key, sizeof key, "k%d", i % 2);
		e[i] = lw_emit_domain(&L, i == 4 ? "com.x" : "", op, 0, NULL,
		    1);
		lw_attr_int(&L, e[i], key, i);
	}
	for (int i = 0; i < 5; i++) {
		const Node *p = ir_nodep(L.dst, e[i]);
		char k[16];
		snprintf(k, sizeof k, "k%d", i % 2);
		assert_string_equal(ir_str(f->m, p->op), want[i]);
		assert_string_equal(ir_str(f->m, p->domain), i == 4 ? "com.x"
		    : "");
		assert_string_equal(ir_str(f->m, L.dst->args[p->args].key), k);
	}
	free(L.map);
}

static void
test_half_constants(void **state)
{
	Fix *f = *state;
	assert_int_equal(half_bits(f, 1.0, DT_F16), 0x3c00);
	assert_int_equal(half_bits(f, -2.0, DT_F16), 0xc000);
	assert_int_equal(half_bits(f, 65504.0, DT_F16), 0x7bff);
	assert_int_equal(half_bits(f, 1e6, DT_F16), 0x7c00);      /* inf */
	assert_int_equal(half_bits(f, 5.960464477539063e-08, DT_F16), 1);
	assert_int_equal(half_bits(f, 1e-9, DT_F16), 0);
	assert_int_equal(half_bits(f, 1.0, DT_BF16), 0x3f80);
	assert_int_equal(half_bits(f, 3.140625, DT_BF16), 0x4049);
}

static void
test_shape_list_with_symint(void **state)
{
	Fix *f = *state;
	ValId s = symint(f, "n", ir_expr_sym(f->m, "s0"));
	static const int64_t d2[] = {2};
	input(f, "x", DT_F32, 1, d2, ROLE_USER_INPUT, NULL);
	NodeId n = node(f, "aten::view.default", "view", DT_F32, 1, d2);
	Arg items[3] = {arg_int(2), arg_val(s), arg_int(-1)};
	ir_push_arg(f->g, n, arg_val(2));
	ir_push_arg(f->g, n, ir_list(f->g, A_LIST, items, 3));
	GraphId dst;
	Lower L = lower_on(f, n, &dst);
	/* the SymInt stands for a 0-d int64 already lowered */
	L.map[s] = ir_value(L.dst, ir_intern(f->m, "n"));
	ir_set_tensor(L.dst, L.map[s], DT_I64, 0, NULL);
	ValId r = lw_shape_list(&L, 1, "size");
	assert_int_not_equal(r, 0);
	const Node *c = ir_nodep(L.dst, ir_val(L.dst, r)->def);
	assert_string_equal(ir_str(f->m, c->op), "Concat");
	assert_int_equal(ir_npos(L.dst, ir_val(L.dst, r)->def), 3);
	assert_int_equal(lw_dtype(&L, r), DT_I64);
	free(L.map);

	/* all static: one constant */
	NodeId n2 = node(f, "aten::view.default", "view2", DT_F32, 1, d2);
	Arg st[2] = {arg_int(4), arg_int(-1)};
	ir_push_arg(f->g, n2, arg_val(2));
	ir_push_arg(f->g, n2, ir_list(f->g, A_LIST, st, 2));
	L = lower_on(f, n2, &dst);
	r = lw_shape_list(&L, 1, "size");
	c = ir_nodep(L.dst, ir_val(L.dst, r)->def);
	assert_string_equal(ir_str(f->m, c->op), "Constant");
	const Tensor *t = ir_tensorp(f->m, L.dst->args[c->args].u.t);
	assert_int_equal(t->dims[0], 2);
	assert_int_equal(((const int64_t *)t->data)[0], 4);
	assert_int_equal(((const int64_t *)t->data)[1], -1);
	free(L.map);
}

static void
test_sym_size_and_arith(void **state)
{
	Fix *f = *state;
	Dim d[2] = {{0, ir_expr_sym(f->m, "s0")}, {4, 0}};
	ValId x = ir_value(f->g, ir_intern(f->m, "x"));
	ir_set_tensor(f->g, x, DT_F32, 2, d);
	ir_val(f->g, x)->role = ROLE_USER_INPUT;
	ir_add_input(f->g, x);
	NodeId sz = node(f, "aten::sym_size.int", "sym_size", 0, -1, NULL);
	ir_push_arg(f->g, sz, arg_val(x));
	ir_push_arg(f->g, sz, arg_int(-2));
	ir_val(f->g, out(f, sz))->kind = VK_SYMINT;
	ir_val(f->g, out(f, sz))->sym = ir_expr_sym(f->m, "s0");
	NodeId fd = node(f, "_operator::floordiv", "floordiv", 0, -1, NULL);
	ir_push_arg(f->g, fd, arg_val(out(f, sz)));
	ir_push_arg(f->g, fd, arg_int(2));
	ir_val(f->g, out(f, fd))->kind = VK_SYMINT;
	ir_val(f->g, out(f, fd))->sym = ir_expr_bin(f->m, E_FLOORDIV,
	    ir_expr_sym(f->m, "s0"), ir_expr_int(f->m, 2));
	ir_add_output(f->g, out(f, fd), OUT_USER, 0);
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), 0);
	Graph *g = ir_graph(f->m, o);
	const Node *shape = onnx_node(f, o, 1);
	assert_string_equal(opname(f, shape), "Shape");
	const Arg *start = ir_find_arg(f->m, g, 1, -1, "start");
	const Arg *end = ir_find_arg(f->m, g, 1, -1, "end");
	assert_int_equal(start->u.i, 0); /* -2 normalised with rank 2 */
	assert_int_equal(end->u.i, 1);
	/* floor division goes through Mod (Python's sign rule) */
	bool has_mod = false;
	for (NodeId k = 1; k < g->nnodes; k++)
		has_mod |= !strcmp(opname(f, onnx_node(f, o, k)), "Mod");
	assert_true(has_mod);
	const Value *res = ir_val(g, g->outputs[0]);
	assert_int_equal(res->dtype, DT_I64);
	assert_int_equal(res->rank, 0);
}

static void
test_sym_constant_needs_no_shape(void **state)
{
	Fix *f = *state;
	static const int64_t d2[] = {3, 4};
	ValId x = input(f, "x", DT_F32, 2, d2, ROLE_USER_INPUT, NULL);
	NodeId sz = node(f, "aten::sym_size.int", "sym_size", 0, -1, NULL);
	ir_push_arg(f->g, sz, arg_val(x));
	ir_push_arg(f->g, sz, arg_int(0));
	ir_val(f->g, out(f, sz))->kind = VK_SYMINT;
	ir_val(f->g, out(f, sz))->sym = ir_expr_int(f->m, 3);
	ir_add_output(f->g, out(f, sz), OUT_USER, 0);
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), 0);
	assert_string_equal(opname(f, onnx_node(f, o, 1)), "Constant");
}

/* How often needle occurs in hay. */
static int
count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* A reader that fails marks the node failed and returns its default; the
 * rule stops before emitting, and the pass says why exactly once (no
 * "could not be lowered" after it). */
static void
test_sticky_error(void **state)
{
	Fix *f = *state;
	static const int64_t d23[] = {2, 3}, d2[] = {2};
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	NodeId n = node(f, "aten::sum.dim_IntList", "sum", DT_F32, 1, d2);
	arg(f, n, arg_val(x));
	arg(f, n, ir_list(f->g, A_LIST, (Arg[]){arg_int(1)}, 1));
	kwarg(f, n, "keepdim", arg_val(x)); /* a tensor, not a bool */
	output(f, out(f, n));

	/* the rule on its own */
	GraphId d;
	Lower L = lower_on(f, n, &d);
	L.map[x] = ir_value(L.dst, ir_intern(f->m, "x"));
	ir_set_tensor(L.dst, L.map[x], DT_F32, 0, NULL);
	assert_false(lw_failed(&L));
	assert_int_equal(lw_int(&L, 1, NULL, 7), 7); /* a list: default */
	assert_true(lw_failed(&L));
	L.failed = false;
	LowerFn fn = NULL;  /* the rule, from its family's table */
	for (const LwFamily *t = lw_families; t->name && !fn; t++)
		for (const LowerRule *x = t->rules; x->op && !fn; x++)
			if (!strcmp(x->op, "aten::sum.dim_IntList"))
				fn = x->fn;
	assert_non_null(fn);
	uint32_t before = L.dst->nnodes;
	assert_int_equal(fn(&L), -1);
	assert_true(lw_failed(&L));
	assert_int_equal(L.dst->nnodes, before);
	free(L.map);
	assert_int_equal(count(diags(f), "error:"), 2);

	/* through the pass: one diagnostic, nothing emitted */
	f->m->nerrors = 0;
	size_t at = strlen(diags(f));
	GraphId o;
	assert_int_equal(pass_lower(f->m, f->gid, &o, 18), -1);
	const char *now = diags(f) + at;
	assert_int_equal(count(now, "error:"), 1);
	assert_non_null(strstr(now, "aten::sum.dim_IntList: argument "
	    "'keepdim' must be a constant integer here"));
	assert_null(strstr(now, "could not be lowered"));
	assert_int_equal(ir_graph(f->m, o)->nnodes, 1);
	assert_int_equal(f->m->nerrors, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_inputs_initializers_and_outputs),
		T(test_unused_initializers_dropped),
		T(test_tied_targets),
		T(test_unsupported_ops_listed_at_once),
		T(test_inplace_needs_functionalize),
		T(test_schema_calls),
		T(test_elementwise_entries),
		T(test_promotion),
		T(test_half_constants),
		T(test_emit_names),
		T(test_shape_list_with_symint),
		T(test_sym_size_and_arith),
		T(test_sym_constant_needs_no_shape),
		T(test_sticky_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
