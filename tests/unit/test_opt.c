/* test_opt.c - the -O2 passes simplify, lift-constants, fuse-conv-bn,
 * fuse-activations (onnxc/rewrite.h) and prune-initializers, loaded as
 * modules and run by the real pass manager on small ONNX graphs: the graph
 * before, the graph after, and for the arithmetic ones the numbers the new
 * graph computes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/pipeline.h"
#include "pass_fixture.h"
#include "opt_fixture.h"

static const int64_t d3[] = {3}, d23[] = {2, 3}, d32[] = {3, 2},
    d6[] = {6}, d1[] = {1};

static ValId
arg0(Fix *f, NodeId n)
{
	return operand(f, n, 0);
}

/* ------------------------------------------------------------ simplify */

static void
simplify_drops_identity_casts_and_transpose_pairs(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId a = onnx(f, "Identity", "a", DT_F32, 2, d23, 1,
	    (Arg[]){arg_val(x)});
	ValId b = onnx(f, "Cast", "b", DT_F32, 2, d23, 2,
	    (Arg[]){arg_val(a), kw(f, "to", arg_int(DT_F32))});
	ValId c = onnx(f, "Transpose", "c", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(b), kw(f, "perm", ints(f, 2, (int64_t[]){1, 0}))});
	ValId d = onnx(f, "Transpose", "d", DT_F32, 2, d23, 2,
	    (Arg[]){arg_val(c), kw(f, "perm", ints(f, 2, (int64_t[]){1, 0}))});
	ValId i = onnx(f, "Cast", "i", DT_I64, 2, d23, 2,
	    (Arg[]){arg_val(d), kw(f, "to", arg_int(DT_I64))});
	ValId y = onnx(f, "Relu", "y", DT_F32, 2, d23, 1, (Arg[]){arg_val(d)});
	output(f, y);
	output(f, i);
	/* before: Identity, Cast, Transpose, Transpose, Cast, Relu */
	assert_int_equal(f->g->nnodes - 1, 6);
	assert_int_equal(run(f, "simplify,dce", false), 0);
	/* after: the Relu and the Cast that changes the dtype, both on x */
	assert_int_equal(f->g->nnodes - 1, 2);
	assert_int_equal(count_op(f, "Relu"), 1);
	assert_int_equal(count_op(f, "Cast"), 1);
	assert_int_equal(arg0(f, find_op(f, "Relu")), x);
	assert_int_equal(arg0(f, find_op(f, "Cast")), x);
}

static void
simplify_composes_transposes(void **state)
{
	Fix *f = *state;
	static const int64_t s234[] = {2, 3, 4}, s243[] = {2, 4, 3},
	    s423[] = {4, 2, 3};
	ValId x = input(f, "x", DT_F32, 3, s234, ROLE_USER_INPUT, NULL);
	ValId a = onnx(f, "Transpose", "a", DT_F32, 3, s243, 2,
	    (Arg[]){arg_val(x), kw(f, "perm", ints(f, 3,
	    (int64_t[]){0, 2, 1}))});
	ValId b = onnx(f, "Transpose", "b", DT_F32, 3, s423, 2,
	    (Arg[]){arg_val(a), kw(f, "perm", ints(f, 3,
	    (int64_t[]){1, 0, 2}))});
	output(f, onnx(f, "Neg", "y", DT_F32, 3, s423, 1,
	    (Arg[]){arg_val(b)}));
	assert_int_equal(run(f, "simplify,dce", false), 0);
	assert_int_equal(count_op(f, "Transpose"), 1);
	NodeId t = find_op(f, "Transpose");
	assert_int_equal(arg0(f, t), x);
	/* out[i] = x's dim perm[i]: (2,3,4) -> (4,2,3) is perm (2,0,1) */
	const Arg *p = ir_find_arg(f->m, f->g, t, -1, "perm");
	assert_non_null(p);
	assert_int_equal(p->u.list.n, 3);
	int64_t want[] = {2, 0, 1};
	for (int i = 0; i < 3; i++)
		assert_int_equal(f->g->items[p->u.list.off + i].u.i, want[i]);
	/* the result keeps its type */
	ValId out = ir_nodep(f->g, t)->out;
	assert_int_equal(ir_val(f->g, out)->rank, 3);
	assert_int_equal(ir_dims(f->g, out)[0].n, 4);
}

static void
simplify_merges_unsqueezes_and_cancels_squeeze(void **state)
{
	Fix *f = *state;
	static const int64_t s13[] = {1, 3}, s131[] = {1, 3, 1},
	    s31[] = {3, 1};
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId a = onnx(f, "Unsqueeze", "a", DT_F32, 2, s13, 2,
	    (Arg[]){arg_val(x), arg_val(i64_const(f, "ax0", 1,
	    (int64_t[]){0}))});
	ValId b = onnx(f, "Unsqueeze", "b", DT_F32, 3, s131, 2,
	    (Arg[]){arg_val(a), arg_val(i64_const(f, "ax2", 1,
	    (int64_t[]){-1}))});
	ValId c = onnx(f, "Unsqueeze", "c", DT_F32, 2, s31, 2,
	    (Arg[]){arg_val(x), arg_val(i64_const(f, "ax1", 1,
	    (int64_t[]){1}))});
	ValId d = onnx(f, "Squeeze", "d", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(c), arg_val(i64_const(f, "ax1b", 1,
	    (int64_t[]){1}))});
	output(f, onnx(f, "Neg", "y", DT_F32, 3, s131, 1,
	    (Arg[]){arg_val(b)}));
	output(f, onnx(f, "Neg", "z", DT_F32, 1, d3, 1, (Arg[]){arg_val(d)}));
	assert_int_equal(run(f, "simplify,dce", false), 0);
	assert_int_equal(count_op(f, "Squeeze"), 0);
	assert_int_equal(count_op(f, "Unsqueeze"), 1);
	NodeId u = find_op(f, "Unsqueeze");
	assert_int_equal(arg0(f, u), x);
	/* x: (3) -> (1,3,1): axes 2 and 0 */
	const Tensor *ax = const_of(f, operand(f, u, 1));
	assert_non_null(ax);
	assert_int_equal(ax->dims[0], 2);
	int64_t got[2];
	memcpy(got, ax->data, sizeof got);
	assert_true((got[0] == 2 && got[1] == 0) ||
	    (got[0] == 0 && got[1] == 2));
	/* z reads x itself */
	NodeId z = ir_val(f->g, f->g->outputs[1])->def;
	assert_int_equal(arg0(f, z), x);
}

static void
simplify_reshapes_a_view_once(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId a = onnx(f, "Reshape", "a", DT_F32, 1, d6, 2,
	    (Arg[]){arg_val(x), arg_val(i64_const(f, "s6", 1,
	    (int64_t[]){6}))});
	ValId b = onnx(f, "Reshape", "b", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(a), arg_val(i64_const(f, "s32", 2,
	    (int64_t[]){3, 2}))});
	/* a Reshape to its own shape is nothing */
	ValId c = onnx(f, "Reshape", "c", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(b), arg_val(i64_const(f, "s32b", 2,
	    (int64_t[]){3, -1}))});
	output(f, onnx(f, "Neg", "y", DT_F32, 2, d32, 1, (Arg[]){arg_val(c)}));
	assert_int_equal(run(f, "simplify,dce", false), 0);
	assert_int_equal(count_op(f, "Reshape"), 1);
	assert_int_equal(arg0(f, find_op(f, "Reshape")), x);
	const Tensor *s = const_of(f, operand(f, find_op(f, "Reshape"), 1));
	assert_non_null(s);
	assert_int_equal(s->dims[0], 2);
}

static void
simplify_keeps_outputs_and_copying_reshapes(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId a = onnx(f, "Identity", "a", DT_F32, 2, d23, 1,
	    (Arg[]){arg_val(x)});
	ValId b = onnx(f, "Reshape", "b", DT_F32, 1, d6, 2,
	    (Arg[]){arg_val(x), arg_val(i64_const(f, "s6", 1,
	    (int64_t[]){6}))});
	/* a 0 in the shape copies the first Reshape's dim: stays */
	ValId c = onnx(f, "Reshape", "c", DT_F32, 2, (int64_t[]){6, 1}, 2,
	    (Arg[]){arg_val(b), arg_val(i64_const(f, "s01", 2,
	    (int64_t[]){0, 1}))});
	output(f, a);
	output(f, c);
	assert_int_equal(run(f, "simplify,dce", false), 0);
	assert_int_equal(count_op(f, "Identity"), 1);
	assert_int_equal(count_op(f, "Reshape"), 2);
}

static void
simplify_training_leaves_parameters(void **state)
{
	Fix *f = *state;
	static const float w[] = {1, 2, 3, 4, 5, 6};
	ValId p = input(f, "w", DT_F32, 2, d23, ROLE_PARAM, w);
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId a = onnx(f, "Identity", "a", DT_F32, 2, d23, 1,
	    (Arg[]){arg_val(p)});
	ValId b = onnx(f, "Identity", "b", DT_F32, 2, d23, 1,
	    (Arg[]){arg_val(x)});
	output(f, onnx(f, "Add", "y", DT_F32, 2, d23, 2,
	    (Arg[]){arg_val(a), arg_val(b)}));
	assert_int_equal(run(f, "simplify,dce", true), 0);
	/* the parameter's Identity stays, the input's goes */
	assert_int_equal(count_op(f, "Identity"), 1);
	assert_int_equal(arg0(f, find_op(f, "Identity")), p);
	assert_int_equal(operand(f, find_op(f, "Add"), 1), x);
}

static void
simplify_flattens_the_flatten_reshape(void **state)
{
	Fix *f = *state;
	static const int64_t s2311[] = {2, 3, 1, 1};
	ValId x = input(f, "x", DT_F32, 4, s2311, ROLE_USER_INPUT, NULL);
	ValId s = onnx(f, "Shape", "s", DT_I64, 1, d1, 3, (Arg[]){arg_val(x),
	    kw(f, "start", arg_int(0)), kw(f, "end", arg_int(1))});
	ValId c = onnx(f, "Concat", "c", DT_I64, 1, (int64_t[]){2}, 3,
	    (Arg[]){arg_val(s), arg_val(i64_const(f, "three", 1,
	    (int64_t[]){3})), kw(f, "axis", arg_int(0))});
	ValId y = onnx(f, "Reshape", "y", DT_F32, 2, d23, 2,
	    (Arg[]){arg_val(x), arg_val(c)});
	output(f, onnx(f, "Neg", "z", DT_F32, 2, d23, 1, (Arg[]){arg_val(y)}));
	assert_int_equal(run(f, "simplify,dce", false), 0);
	assert_int_equal(count_op(f, "Reshape"), 0);
	assert_int_equal(count_op(f, "Shape"), 0);
	NodeId fl = find_op(f, "Flatten");
	assert_int_not_equal(fl, 0);
	assert_int_equal(arg0(f, fl), x);
	assert_int_equal(ir_find_arg(f->m, f->g, fl, -1, "axis")->u.i, 1);
}

static void
simplify_drops_a_unit_axis_a_transpose_moves(void **state)
{
	Fix *f = *state;
	static const int64_t s234[] = {2, 3, 4}, s1234[] = {1, 2, 3, 4},
	    s4231[] = {4, 2, 3, 1}, s423[] = {4, 2, 3};
	ValId x = input(f, "x", DT_F32, 3, s234, ROLE_USER_INPUT, NULL);
	ValId u = onnx(f, "Unsqueeze", "u", DT_F32, 4, s1234, 2,
	    (Arg[]){arg_val(x), arg_val(i64_const(f, "a0", 1,
	    (int64_t[]){0}))});
	ValId t = onnx(f, "Transpose", "t", DT_F32, 4, s4231, 2,
	    (Arg[]){arg_val(u), kw(f, "perm", ints(f, 4,
	    (int64_t[]){3, 1, 2, 0}))});
	ValId q = onnx(f, "Squeeze", "q", DT_F32, 3, s423, 2,
	    (Arg[]){arg_val(t), arg_val(i64_const(f, "a3", 1,
	    (int64_t[]){3}))});
	output(f, onnx(f, "Neg", "y", DT_F32, 3, s423, 1, (Arg[]){arg_val(q)}));
	assert_int_equal(run(f, "simplify,dce", false), 0);
	assert_int_equal(count_op(f, "Unsqueeze"), 0);
	assert_int_equal(count_op(f, "Squeeze"), 0);
	NodeId tr = find_op(f, "Transpose");
	assert_int_equal(arg0(f, tr), x);
	/* (2,3,4) -> (4,2,3) */
	const Arg *p = ir_find_arg(f->m, f->g, tr, -1, "perm");
	int64_t want[] = {2, 0, 1};
	assert_int_equal(p->u.list.n, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(f->g->items[p->u.list.off + i].u.i, want[i]);
}

/* ---------------------------------------------------- fuse-activations */

static ValId
f32_const(Fix *f, const char *name, float v)
{
	float *p = arena_alloc(f->m->arena, sizeof *p);
	*p = v;
	Tensor t = {.dtype = DT_F32, .rank = 0, .data = p, .nbytes = 4};
	return onnx(f, "Constant", name, DT_F32, 0, NULL, 1,
	    (Arg[]){kw(f, "value", (Arg){.kind = A_TENSOR,
	    .u.t = ir_tensor(f->m, &t)})});
}

static void
activations_hardswish(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId h = onnx(f, "HardSigmoid", "h", DT_F32, 1, d3, 3,
	    (Arg[]){arg_val(x), kw(f, "alpha", arg_float(1.0f / 6)),
	    kw(f, "beta", arg_float(0.5))});
	ValId y = onnx(f, "Mul", "y", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(x), arg_val(h)});
	/* a hard sigmoid gating another tensor stays */
	ValId g = onnx(f, "HardSigmoid", "g", DT_F32, 1, d3, 3,
	    (Arg[]){arg_val(x), kw(f, "alpha", arg_float(1.0f / 6)),
	    kw(f, "beta", arg_float(0.5))});
	ValId z = onnx(f, "Mul", "z", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(g), arg_val(y)});
	output(f, onnx(f, "Neg", "o", DT_F32, 1, d3, 1, (Arg[]){arg_val(z)}));
	/* off by default: ONNX Runtime has no HardSwish kernel */
	assert_int_equal(run(f, "fuse-activations,dce", false), 0);
	assert_int_equal(count_op(f, "HardSwish"), 0);
	assert_int_equal(run(f, "fuse-activations{hardswish=true},dce", false),
	    0);
	assert_int_equal(count_op(f, "HardSwish"), 1);
	assert_int_equal(count_op(f, "HardSigmoid"), 1);
	assert_int_equal(count_op(f, "Mul"), 1);
	assert_int_equal(arg0(f, find_op(f, "HardSwish")), x);
}

/* 0.5 x (1 + erf(x / sqrt 2)), as the lowering writes gelu */
static ValId
gelu_erf(Fix *f, ValId x, float half)
{
	ValId a = onnx(f, "Mul", "a", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(x), arg_val(f32_const(f, "r2", 0.70710678f))});
	ValId e = onnx(f, "Erf", "e", DT_F32, 1, d3, 1, (Arg[]){arg_val(a)});
	ValId p = onnx(f, "Add", "p", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(e), arg_val(f32_const(f, "one", 1))});
	ValId h = onnx(f, "Mul", "h", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(x), arg_val(f32_const(f, "half", half))});
	return onnx(f, "Mul", "g", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(h), arg_val(p)});
}

static void
activations_gelu_from_opset_20(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	output(f, onnx(f, "Neg", "o", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(gelu_erf(f, x, 0.5f))}));
	assert_int_equal(run_at(f, "fuse-activations,dce", false, 18), 0);
	assert_int_equal(count_op(f, "Gelu"), 0);
	assert_int_equal(count_op(f, "Erf"), 1);
	assert_int_equal(run_at(f, "fuse-activations,dce", false, 20), 0);
	assert_int_equal(count_op(f, "Gelu"), 1);
	assert_int_equal(f->g->nnodes - 1, 2);
	assert_int_equal(arg0(f, find_op(f, "Gelu")), x);
}

/* Below opset 20 the erf form divides by sqrt 2, the form ONNX Runtime
 * fuses into its Gelu, and fold-scales leaves its 1/2 out of the MatMul
 * after it (which would undo that). */
static void
activations_gelu_below_opset_20_divides(void **state)
{
	Fix *f = *state;
	static const float w[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	static const int64_t d33[] = {3, 3};
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId wv = input(f, "w", DT_F32, 2, d33, ROLE_CONST, w);
	ValId mm = onnx(f, "MatMul", "mm", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(gelu_erf(f, x, 0.5f)), arg_val(wv)});
	output(f, onnx(f, "Neg", "o", DT_F32, 1, d3, 1, (Arg[]){arg_val(mm)}));
	assert_int_equal(run_at(f, "fuse-activations,fold-scales,dce", false,
	    18), 0);
	assert_int_equal(count_op(f, "Gelu"), 0);
	assert_int_equal(count_op(f, "Erf"), 1);
	assert_int_equal(count_op(f, "Mul"), 2);
	NodeId d = find_op(f, "Div");
	assert_int_not_equal(d, 0);
	assert_int_equal(arg0(f, d), x);
	const Tensor *c = const_of(f, operand(f, d, 1));
	assert_non_null(c);
	assert_true(*(const float *)c->data == 1.41421356f);
	/* the 1/2 stays: the MatMul reads the weights as they were */
	assert_int_equal(operand(f, find_op(f, "MatMul"), 1), wv);
}

static void
activations_gelu_needs_its_constants(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	output(f, onnx(f, "Neg", "o", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(gelu_erf(f, x, 0.25f))}));
	assert_int_equal(run_at(f, "fuse-activations,dce", false, 20), 0);
	assert_int_equal(count_op(f, "Gelu"), 0);
}

/* ------------------------------------------------------ lift-constants */

static void
lift_makes_one_initializer_per_content(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 1, d1, ROLE_USER_INPUT, NULL);
	ValId k0 = i64_const(f, "k0", 1, (int64_t[]){7});
	ValId k1 = i64_const(f, "k1", 1, (int64_t[]){7});
	ValId a = onnx(f, "Add", "a", DT_I64, 1, d1, 2,
	    (Arg[]){arg_val(x), arg_val(k0)});
	ValId b = onnx(f, "Mul", "b", DT_I64, 1, d1, 2,
	    (Arg[]){arg_val(a), arg_val(k1)});
	output(f, b);
	uint32_t ninputs = f->g->ninputs;
	assert_int_equal(run(f, "lift-constants,dce", false), 0);
	assert_int_equal(count_op(f, "Constant"), 0);
	assert_int_equal(f->g->ninputs, ninputs + 1);
	ValId c = f->g->inputs[ninputs];
	assert_int_equal(ir_val(f->g, c)->role, ROLE_CONST);
	assert_string_equal(ir_str(f->m, ir_val(f->g, c)->name), "k0");
	const Tensor *t = const_of(f, c);
	assert_non_null(t);
	int64_t seven;
	memcpy(&seven, t->data, 8);
	assert_int_equal(seven, 7);
	assert_int_equal(operand(f, find_op(f, "Add"), 1), c);
	assert_int_equal(operand(f, find_op(f, "Mul"), 1), c);
}

/* -------------------------------------------------------- fuse-conv-bn */

static const int64_t sx[] = {1, 2, 2, 2}, sw[] = {2, 2, 1, 1}, s2[] = {2};
static const float xs[] = {0.5f, -1, 2, 3, 1.5f, 0.25f, -2, 4};
static const float ws[] = {1, 2, -1, 0.5f}, bs[] = {0.1f, -0.2f};
static const float scale[] = {2, 0.5f}, shift[] = {1, -1};
static const float mean[] = {0.3f, -0.4f}, var[] = {4, 0.25f};

/* y = relu(bn(conv(x))) with 1x1 kernels; returns the relu. */
static ValId
conv_bn(Fix *f, Role role)
{
	ValId x = input(f, "x", DT_F32, 4, sx, ROLE_USER_INPUT, NULL);
	ValId w = input(f, "conv.weight", DT_F32, 4, sw, role, ws);
	ValId b = input(f, "conv.bias", DT_F32, 1, s2, role, bs);
	ValId g = input(f, "bn.weight", DT_F32, 1, s2, role, scale);
	ValId h = input(f, "bn.bias", DT_F32, 1, s2, role, shift);
	ValId m = input(f, "bn.mean", DT_F32, 1, s2, ROLE_BUFFER, mean);
	ValId v = input(f, "bn.var", DT_F32, 1, s2, ROLE_BUFFER, var);
	ValId c = onnx(f, "Conv", "conv", DT_F32, 4, sx, 4,
	    (Arg[]){arg_val(x), arg_val(w), arg_val(b),
	    kw(f, "strides", ints(f, 2, (int64_t[]){1, 1}))});
	ValId n = onnx(f, "BatchNormalization", "bn", DT_F32, 4, sx, 6,
	    (Arg[]){arg_val(c), arg_val(g), arg_val(h), arg_val(m),
	    arg_val(v), kw(f, "epsilon", arg_float(1e-5))});
	ValId y = onnx(f, "Relu", "y", DT_F32, 4, sx, 1, (Arg[]){arg_val(n)});
	output(f, y);
	return y;
}

/* A 1x1 conv of xs with weights w, bias b, then (bn) batch norm. */
static void
eval(const float *w, const float *b, int bn, float out[8])
{
	for (int o = 0; o < 2; o++)
		for (int p = 0; p < 4; p++) {
			double s = b[o];
			for (int i = 0; i < 2; i++)
				s += (double)w[o * 2 + i] * xs[i * 4 + p];
			if (bn)
				s = (s - mean[o]) / sqrt(var[o] + 1e-5) *
				    scale[o] + shift[o];
			out[o * 4 + p] = (float)s;
		}
}

static void
convbn_folds_into_the_conv(void **state)
{
	Fix *f = *state;
	conv_bn(f, ROLE_PARAM);
	assert_int_equal(run(f, "fuse-conv-bn,dce", false), 0);
	assert_int_equal(count_op(f, "BatchNormalization"), 0);
	assert_int_equal(count_op(f, "Conv"), 1);
	NodeId c = find_op(f, "Conv");
	assert_int_equal(ir_val(f->g, operand(f, find_op(f, "Relu"), 0))->def,
	    c);
	const Arg *st = ir_find_arg(f->m, f->g, c, -1, "strides");
	assert_non_null(st);
	const Tensor *w = const_of(f, operand(f, c, 1));
	const Tensor *b = const_of(f, operand(f, c, 2));
	assert_non_null(w);
	assert_non_null(b);
	assert_int_equal(w->rank, 4);
	/* the folded conv computes what conv + batch norm computed */
	float want[8], got[8];
	eval(ws, bs, 1, want);
	eval(w->data, b->data, 0, got);
	for (int i = 0; i < 8; i++)
		assert_true(fabsf(want[i] - got[i]) <= 1e-5f * (1 +
		    fabsf(want[i])));
	/* the parameters themselves are untouched */
	assert_memory_equal(ir_tensorp(f->m, ir_val(f->g,
	    f->g->inputs[1])->init)->data, ws, sizeof ws);
}

static void
convbn_training_changes_nothing(void **state)
{
	Fix *f = *state;
	conv_bn(f, ROLE_PARAM);
	uint32_t ninputs = f->g->ninputs;
	assert_int_equal(run(f, "fuse-conv-bn,dce", true), 0);
	assert_int_equal(count_op(f, "BatchNormalization"), 1);
	assert_int_equal(f->g->ninputs, ninputs);
	assert_int_equal(operand(f, find_op(f, "Conv"), 1), f->g->inputs[1]);
}

/* ------------------------------------------------- prune-initializers */

static void
prune_drops_the_weights_a_fold_replaced(void **state)
{
	Fix *f = *state;
	conv_bn(f, ROLE_PARAM);
	assert_int_equal(f->g->ninputs, 7);
	assert_int_equal(run(f, "fuse-conv-bn,dce,prune-initializers", false),
	    0);
	/* x and the folded weight and bias */
	assert_int_equal(f->g->ninputs, 3);
	assert_string_equal(ir_str(f->m, ir_val(f->g, f->g->inputs[0])->name),
	    "x");
	NodeId c = find_op(f, "Conv");
	assert_int_equal(operand(f, c, 1), f->g->inputs[1]);
	assert_int_equal(operand(f, c, 2), f->g->inputs[2]);
}

static void
prune_training_keeps_parameters(void **state)
{
	Fix *f = *state;
	static const float w[] = {1, 2, 3};
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	input(f, "unused.weight", DT_F32, 1, d3, ROLE_PARAM, w);
	input(f, "unused.const", DT_F32, 1, d3, ROLE_CONST, w);
	output(f, onnx(f, "Neg", "y", DT_F32, 1, d3, 1, (Arg[]){arg_val(x)}));
	assert_int_equal(run(f, "prune-initializers", true), 0);
	assert_int_equal(f->g->ninputs, 2);
	assert_string_equal(ir_str(f->m, ir_val(f->g, f->g->inputs[1])->name),
	    "unused.weight");
	assert_int_equal(run(f, "prune-initializers", false), 0);
	assert_int_equal(f->g->ninputs, 1);
}

static void
convbn_needs_constant_statistics(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, sx, ROLE_USER_INPUT, NULL);
	ValId w = input(f, "conv.weight", DT_F32, 4, sw, ROLE_PARAM, ws);
	ValId g = input(f, "g", DT_F32, 1, s2, ROLE_USER_INPUT, NULL);
	ValId h = input(f, "h", DT_F32, 1, s2, ROLE_PARAM, shift);
	ValId c = onnx(f, "Conv", "conv", DT_F32, 4, sx, 2,
	    (Arg[]){arg_val(x), arg_val(w)});
	ValId n = onnx(f, "BatchNormalization", "bn", DT_F32, 4, sx, 5,
	    (Arg[]){arg_val(c), arg_val(g), arg_val(h), arg_val(h),
	    arg_val(h)});
	output(f, onnx(f, "Relu", "y", DT_F32, 4, sx, 1, (Arg[]){arg_val(n)}));
	assert_int_equal(run(f, "fuse-conv-bn,dce", false), 0);
	assert_int_equal(count_op(f, "BatchNormalization"), 1);
}

int
main(void)
{
	if (find_plugins() < 0) {
		fprintf(stderr, "test_opt: set ONNXC_BIN or ONNXC_PLUGIN_DIR "
		    "to find the plugin modules\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(simplify_drops_identity_casts_and_transpose_pairs),
		T(simplify_composes_transposes),
		T(simplify_merges_unsqueezes_and_cancels_squeeze),
		T(simplify_reshapes_a_view_once),
		T(simplify_keeps_outputs_and_copying_reshapes),
		T(simplify_training_leaves_parameters),
		T(simplify_flattens_the_flatten_reshape),
		T(simplify_drops_a_unit_axis_a_transpose_moves),
		T(activations_hardswish),
		T(activations_gelu_from_opset_20),
		T(activations_gelu_below_opset_20_divides),
		T(activations_gelu_needs_its_constants),
		T(lift_makes_one_initializer_per_content),
		T(convbn_folds_into_the_conv),
		T(convbn_training_changes_nothing),
		T(convbn_needs_constant_statistics),
		T(prune_drops_the_weights_a_fold_replaced),
		T(prune_training_keeps_parameters),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
