/* test_lower_elementwise.c - elementwise lowering rules: promotion and
 * compute dtypes, rounding modes, activations written out, opset limits,
 * casts and fills. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lower/lower.h"
#include "lower_fixture.h"

static const int64_t d23[] = {2, 3};

static ValId
input(Fix *f, const char *name, DType dt, int rank)
{
	Dim d[2] = {{2, 0}, {3, 0}};
	ValId v = ir_value(f->g, ir_intern(f->m, name));
	ir_set_tensor(f->g, v, dt, rank, d);
	ir_val(f->g, v)->role = ROLE_USER_INPUT;
	ir_add_input(f->g, v);
	return v;
}

/* An FX node op(args...) with one output of type dt[2, 3], made a graph
 * output; kwargs are Args with a key. */
static NodeId
node(Fix *f, const char *op, DType dt, int nargs, const Arg *args)
{
	NodeId n = ir_node(f->g, D_FX, ir_intern(f->m, op), 1);
	Node *p = ir_nodep(f->g, n);
	p->name = ir_intern(f->m, "r");
	p->loc = (Loc){1, 1};
	ValId o = p->out;
	ir_val(f->g, o)->name = p->name;
	Dim d[2] = {{d23[0], 0}, {d23[1], 0}};
	ir_set_tensor(f->g, o, dt, 2, d);
	for (int i = 0; i < nargs; i++)
		ir_push_arg(f->g, n, args[i]);
	ir_add_output(f->g, o, OUT_USER, 0);
	return n;
}

static Arg
kw(Fix *f, const char *key, Arg a)
{
	return arg_keyed(a, ir_intern(f->m, key));
}

/* Lower at opset; fills f->ops with "Op Op ..." (no Constants). */
static int
lower(Fix *f, int opset)
{
	int rc = pass_lower(f->m, f->gid, &f->out, opset);
	f->ops[0] = 0;
	if (rc < 0)
		return rc;
	Graph *g = ir_graph(f->m, f->out);
	size_t len = 0;
	for (NodeId k = 1; k < g->nnodes; k++) {
		const char *op = ir_str(f->m, g->nodes[k].op);
		if (!strcmp(op, "Constant"))
			continue;
		len += (size_t)snprintf(f->ops + len, sizeof f->ops - len,
		    "%s%s", len ? " " : "", op);
	}
	assert_int_equal(ir_verify(f->m, f->out), 0);
	return rc;
}

/* the first lowered node of type op */
static NodeId
find(Fix *f, const char *op)
{
	Graph *g = ir_graph(f->m, f->out);
	for (NodeId k = 1; k < g->nnodes; k++)
		if (!strcmp(ir_str(f->m, g->nodes[k].op), op))
			return k;
	fail_msg("no %s node in: %s", op, f->ops);
	return 0;
}

static const Value *
result(Fix *f)
{
	Graph *g = ir_graph(f->m, f->out);
	return ir_val(g, g->outputs[0]);
}

static DType
dtype_of_input(Fix *f, NodeId n, int i)
{
	Graph *g = ir_graph(f->m, f->out);
	return (DType)ir_val(g, ir_arg(g, n, (uint32_t)i)->u.v)->dtype;
}

static int64_t
attr_int(Fix *f, NodeId n, const char *name)
{
	Graph *g = ir_graph(f->m, f->out);
	const Arg *a = ir_find_arg(f->m, g, n, -1, name);
	assert_non_null(a);
	return a->u.i;
}

static double
attr_float(Fix *f, NodeId n, const char *name)
{
	Graph *g = ir_graph(f->m, f->out);
	const Arg *a = ir_find_arg(f->m, g, n, -1, name);
	assert_non_null(a);
	return a->u.f;
}

/* the value of a 0-d Constant feeding input i of node n */
static double
const_input(Fix *f, NodeId n, int i)
{
	Graph *g = ir_graph(f->m, f->out);
	const Value *v = ir_val(g, ir_arg(g, n, (uint32_t)i)->u.v);
	const Node *c = ir_nodep(g, v->def);
	assert_string_equal(ir_str(f->m, c->op), "Constant");
	const Tensor *t = ir_tensorp(f->m, g->args[c->args].u.t);
	switch (t->dtype) {
	case DT_F32:
		return *(const float *)t->data;
	case DT_F64:
		return *(const double *)t->data;
	case DT_I64:
		return (double)*(const int64_t *)t->data;
	case DT_I32:
		return *(const int32_t *)t->data;
	default:
		fail_msg("constant of dtype %d", t->dtype);
		return 0;
	}
}

/* int tensor + 2.5 is f32: the int input is cast, the scalar is an f32 */
static void
test_int_plus_float_scalar(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 2);
	node(f, "aten::add.Tensor", DT_F32, 2,
	    (Arg[]){arg_val(x), arg_float(2.5)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Add");
	NodeId add = find(f, "Add");
	assert_int_equal(dtype_of_input(f, add, 0), DT_F32);
	assert_int_equal(dtype_of_input(f, add, 1), DT_F32);
	assert_true(const_input(f, add, 1) == 2.5);
	assert_int_equal(result(f)->dtype, DT_F32);
}

/* i32 tensor + i64 0-d tensor stays i32; alpha scales other */
static void
test_zero_dim_and_alpha(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I32, 2);
	ValId z = input(f, "z", DT_I64, 0);
	node(f, "aten::sub.Tensor", DT_I32, 3, (Arg[]){arg_val(x),
	    arg_val(z), kw(f, "alpha", arg_int(3))});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Mul Sub");
	NodeId mul = find(f, "Mul");
	assert_int_equal(dtype_of_input(f, mul, 0), DT_I32);
	assert_true(const_input(f, mul, 1) == 3);
	assert_int_equal(result(f)->dtype, DT_I32);
}

/* bool + bool computes in i32 and casts back: nonzero is Or */
static void
test_bool_add_is_or(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_BOOL, 2), b = input(f, "b", DT_BOOL, 2);
	node(f, "aten::add.Tensor", DT_BOOL, 2, (Arg[]){arg_val(a),
	    arg_val(b)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Cast Add Cast");
	assert_int_equal(dtype_of_input(f, find(f, "Add"), 0), DT_I32);
	assert_int_equal(result(f)->dtype, DT_BOOL);
}

/* f16 arithmetic runs in f32 (torch's opmath) and rounds once */
static void
test_half_computes_in_f32(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F16, 2);
	node(f, "aten::mul.Tensor", DT_F16, 2, (Arg[]){arg_val(x),
	    arg_int(2)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Mul Cast");
	NodeId mul = find(f, "Mul");
	assert_int_equal(dtype_of_input(f, mul, 0), DT_F32);
	assert_int_equal(dtype_of_input(f, mul, 1), DT_F32);
	assert_int_equal(result(f)->dtype, DT_F16);
}

/* integer true division gives float */
static void
test_int_true_division(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 2);
	node(f, "aten::div.Tensor", DT_F32, 2, (Arg[]){arg_val(x),
	    arg_int(4)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Div");
	assert_int_equal(dtype_of_input(f, find(f, "Div"), 1), DT_F32);
}

/* integer floor division: (a - a mod b) / b with Python's mod, never a
 * truncating Div of a and b directly; a tensor divisor is guarded (0 and
 * -1 divide by 1, then give 0 and -a), a number that is neither is not */
static void
test_int_floor_division(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_I64, 2), b = input(f, "b", DT_I64, 2);
	node(f, "aten::div.Tensor_mode", DT_I64, 3, (Arg[]){arg_val(a),
	    arg_val(b), kw(f, "rounding_mode", arg_str(ir_intern(f->m,
	    "floor")))});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops,
	    "Equal Equal Or Where Mod Sub Div Sub Equal Where Where");
	assert_int_equal(attr_int(f, find(f, "Mod"), "fmod"), 0);
}

static void
test_int_floor_division_by_number(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_I64, 2);
	node(f, "aten::div.Tensor_mode", DT_I64, 3, (Arg[]){arg_val(a),
	    arg_int(3), kw(f, "rounding_mode", arg_str(ir_intern(f->m,
	    "floor")))});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Mod Sub Div");
}

/* trunc on floats: no Trunc op in ONNX */
static void
test_float_trunc_division(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_F32, 2);
	node(f, "aten::div.Scalar_mode", DT_F32, 3, (Arg[]){arg_val(a),
	    arg_float(0.5), kw(f, "rounding_mode", arg_str(ir_intern(f->m,
	    "trunc")))});
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(strncmp(f->ops, "Div ", 4), 0);
	assert_non_null(strstr(f->ops, "Ceil"));
	assert_non_null(strstr(f->ops, "Floor"));
	assert_non_null(strstr(f->ops, "Where"));
	assert_null(strstr(f->ops, "Trunc"));
}

/* remainder of floats: fmod, then the sign of the divisor */
static void
test_float_remainder(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_F32, 2);
	node(f, "aten::remainder.Scalar", DT_F32, 2, (Arg[]){arg_val(a),
	    arg_float(-1.5)});
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(attr_int(f, find(f, "Mod"), "fmod"), 1);
	assert_non_null(strstr(f->ops, "Xor"));
	assert_non_null(strstr(f->ops, "Where"));
}

/* pow(x, 2) is x * x; pow(x, 1.7) a Pow */
static void
test_pow_forms(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2);
	NodeId n = node(f, "aten::pow.Tensor_Scalar", DT_F32, 2,
	    (Arg[]){arg_val(x), arg_int(2)});
	node(f, "aten::pow.Tensor_Scalar", DT_F32, 2,
	    (Arg[]){arg_val(ir_nodep(f->g, n)->out), arg_float(1.7)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Mul Pow");
	NodeId mul = find(f, "Mul");
	Graph *g = ir_graph(f->m, f->out);
	assert_int_equal(ir_arg(g, mul, 0)->u.v, ir_arg(g, mul, 1)->u.v);
}

/* comparisons compute in the promoted dtype and give bool */
static void
test_compare_promotes(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I32, 2);
	node(f, "aten::ge.Scalar", DT_BOOL, 2, (Arg[]){arg_val(x),
	    arg_float(0.5)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast GreaterOrEqual");
	NodeId ge = find(f, "GreaterOrEqual");
	assert_int_equal(dtype_of_input(f, ge, 0), DT_F32);
	assert_true(const_input(f, ge, 1) == 0.5);
	assert_int_equal(result(f)->dtype, DT_BOOL);
}

/* ne is Not(Equal) */
static void
test_not_equal(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_F32, 2), b = input(f, "b", DT_F32, 2);
	node(f, "aten::ne.Tensor", DT_BOOL, 2, (Arg[]){arg_val(a),
	    arg_val(b)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Equal Not");
}

/* bitwise ops: And on bools; BitwiseAnd on ints needs opset 18 */
static void
test_bitwise_bool(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_BOOL, 2), b = input(f, "b", DT_BOOL, 2);
	node(f, "aten::bitwise_and.Tensor", DT_BOOL, 2, (Arg[]){arg_val(a),
	    arg_val(b)});
	assert_int_equal(lower(f, 17), 0);
	assert_string_equal(f->ops, "And");
}

static void
test_bitwise_int_opsets(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_I64, 2), b = input(f, "b", DT_I64, 2);
	node(f, "aten::bitwise_or.Tensor", DT_I64, 2, (Arg[]){arg_val(a),
	    arg_val(b)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "BitwiseOr");
	assert_int_equal(lower(f, 17), -1);
	assert_non_null(strstr(diags(f), "opset 18"));
}

/* gelu: exact erf form by default, tanh form on request */
static void
test_gelu_forms(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2);
	node(f, "aten::gelu.default", DT_F32, 1, (Arg[]){arg_val(x)});
	assert_int_equal(lower(f, 18), 0);
	assert_non_null(strstr(f->ops, "Erf"));
	assert_null(strstr(f->ops, "Tanh"));

	/* lowering again covers both nodes */
	node(f, "aten::gelu.default", DT_F32, 2, (Arg[]){arg_val(x),
	    kw(f, "approximate", arg_str(ir_intern(f->m, "tanh")))});
	assert_int_equal(lower(f, 18), 0);
	assert_non_null(strstr(f->ops, "Tanh"));
}

/* hardswish = x * HardSigmoid(x) with torch's 1/6 and 1/2 */
static void
test_hardswish(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2);
	node(f, "aten::hardswish.default", DT_F32, 1, (Arg[]){arg_val(x)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "HardSigmoid Mul");
	NodeId h = find(f, "HardSigmoid");
	assert_true(attr_float(f, h, "alpha") == 1.0 / 6);
	assert_true(attr_float(f, h, "beta") == 0.5);
}

/* leaky_relu reads its slope; f64 input computes in f32 (no f64 kernel) */
static void
test_leaky_relu_f64(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F64, 2);
	node(f, "aten::leaky_relu.default", DT_F64, 2, (Arg[]){arg_val(x),
	    arg_float(0.1)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast LeakyRelu Cast");
	assert_true(attr_float(f, find(f, "LeakyRelu"), "alpha") == 0.1);
	assert_int_equal(result(f)->dtype, DT_F64);
}

/* clamp with one number bound: Clip without max; tensor bounds: Max/Min */
static void
test_clamp_forms(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2), lo = input(f, "lo", DT_F32, 2);
	node(f, "aten::clamp.default", DT_F32, 2, (Arg[]){arg_val(x),
	    arg_float(0.1)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Clip");
	Graph *g = ir_graph(f->m, f->out);
	NodeId c = find(f, "Clip");
	assert_int_equal(ir_npos(g, c), 3);
	assert_int_equal(ir_arg(g, c, 2)->kind, A_NONE);
	assert_true(const_input(f, c, 1) == (double)0.1f);

	node(f, "aten::clamp.Tensor", DT_F32, 3, (Arg[]){arg_val(x),
	    arg_val(lo), kw(f, "max", arg_float(2))});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Clip Max Min");
}

/* hardtanh(x, 0, 6) with int bounds */
static void
test_hardtanh_int_bounds(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2);
	node(f, "aten::hardtanh.default", DT_F32, 3, (Arg[]){arg_val(x),
	    arg_int(0), arg_int(6)});
	assert_int_equal(lower(f, 18), 0);
	NodeId c = find(f, "Clip");
	assert_true(const_input(f, c, 1) == 0);
	assert_true(const_input(f, c, 2) == 6);
}

/* where on f16 values computes in f32 (Where has no f16 kernel) */
static void
test_where_half(void **state)
{
	Fix *f = *state;
	ValId c = input(f, "c", DT_BOOL, 2), x = input(f, "x", DT_F16, 2);
	node(f, "aten::where.ScalarOther", DT_F16, 3, (Arg[]){arg_val(c),
	    arg_val(x), arg_float(0)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Where Cast");
	assert_int_equal(dtype_of_input(f, find(f, "Where"), 1), DT_F32);
	assert_int_equal(result(f)->dtype, DT_F16);
}

/* masked_fill puts value where the mask is set, in self's dtype */
static void
test_masked_fill(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 2), m = input(f, "m", DT_BOOL, 2);
	node(f, "aten::masked_fill.Scalar", DT_I64, 3, (Arg[]){arg_val(x),
	    arg_val(m), arg_float(-7.9)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Where");
	NodeId w = find(f, "Where");
	assert_true(const_input(f, w, 1) == -7); /* truncated, as torch */
	assert_int_equal(dtype_of_input(f, w, 2), DT_I64);
}

/* _to_copy: Cast to the dtype; without one an Identity */
static void
test_to_copy(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2);
	node(f, "aten::_to_copy.default", DT_BF16, 2, (Arg[]){arg_val(x),
	    kw(f, "dtype", (Arg){.kind = A_DTYPE, .u.i = DT_BF16})});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast");
	assert_int_equal(attr_int(f, find(f, "Cast"), "to"), DT_BF16);

	node(f, "aten::_to_copy.default", DT_F32, 1, (Arg[]){arg_val(x)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Identity");
}

/* zeros_like takes its shape at run time */
static void
test_zeros_like(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2);
	node(f, "aten::zeros_like.default", DT_I64, 2, (Arg[]){arg_val(x),
	    kw(f, "dtype", (Arg){.kind = A_DTYPE, .u.i = DT_I64})});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Shape Expand");
	NodeId e = find(f, "Expand");
	assert_true(const_input(f, e, 0) == 0);
	assert_int_equal(dtype_of_input(f, e, 0), DT_I64);
}

/* copy(self, src): src in self's dtype, broadcast to self's shape */
static void
test_copy_broadcasts(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2), s = input(f, "s", DT_F16, 0);
	node(f, "aten::copy.default", DT_F32, 2, (Arg[]){arg_val(x),
	    arg_val(s)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Shape Expand");
}

/* unary float ops on ints give f32 */
static void
test_int_sin(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 2);
	node(f, "aten::sin.default", DT_F32, 1, (Arg[]){arg_val(x)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Cast Sin");
	assert_int_equal(result(f)->dtype, DT_F32);
}

/* floor of an integer is itself */
static void
test_int_floor_is_identity(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I32, 2);
	node(f, "aten::floor.default", DT_I32, 1, (Arg[]){arg_val(x)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Identity");
}

/* relu on i64 has no Relu kernel: Max with 0 */
static void
test_relu_i64(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 2);
	node(f, "aten::relu.default", DT_I64, 1, (Arg[]){arg_val(x)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Max");
}

/* isfinite of ints is all true; of floats not (nan or inf) */
static void
test_isfinite(void **state)
{
	Fix *f = *state;
	ValId i = input(f, "i", DT_I64, 2), x = input(f, "x", DT_F32, 2);
	node(f, "aten::isfinite.default", DT_BOOL, 1, (Arg[]){arg_val(i)});
	node(f, "aten::isfinite.default", DT_BOOL, 1, (Arg[]){arg_val(x)});
	assert_int_equal(lower(f, 18), 0);
	assert_string_equal(f->ops, "Equal IsInf IsNaN Or Not");
}

/* complex tensors are refused with a diagnostic, not a crash */
static void
test_complex_refused(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_C64, 2);
	node(f, "aten::add.Tensor", DT_C64, 2, (Arg[]){arg_val(x),
	    arg_val(x)});
	assert_int_equal(lower(f, 18), -1);
	assert_non_null(strstr(diags(f), "c64"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_int_plus_float_scalar),
		T(test_zero_dim_and_alpha),
		T(test_bool_add_is_or),
		T(test_half_computes_in_f32),
		T(test_int_true_division),
		T(test_int_floor_division),
		T(test_int_floor_division_by_number),
		T(test_float_trunc_division),
		T(test_float_remainder),
		T(test_pow_forms),
		T(test_compare_promotes),
		T(test_not_equal),
		T(test_bitwise_bool),
		T(test_bitwise_int_opsets),
		T(test_gelu_forms),
		T(test_hardswish),
		T(test_leaky_relu_f64),
		T(test_clamp_forms),
		T(test_hardtanh_int_bounds),
		T(test_where_half),
		T(test_masked_fill),
		T(test_to_copy),
		T(test_zeros_like),
		T(test_copy_broadcasts),
		T(test_int_sin),
		T(test_int_floor_is_identity),
		T(test_relu_i64),
		T(test_isfinite),
		T(test_complex_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
