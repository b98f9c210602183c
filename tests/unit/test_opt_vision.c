/* test_opt_vision.c - the -O2 passes that vision models need beyond
 * test_opt.c's: static-reshapes, fold-scales, fuse-conv-bn's norm before
 * a conv and fold's value ops on the ONNX graph (test_opt_layout.c has
 * the layout ones), loaded as modules and run by the real
 * pass manager on small ONNX graphs: the graph before, the graph after,
 * and the numbers the new graph computes. */
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

/* ----------------------------------------------------- static-reshapes */

/* x: (N, 24, 4, 4) -> Reshape(x, Concat(Unsqueeze(Squeeze(Shape(x)[0:1])),
 * [2, 12, 4, 4])) -> (N, 2, 12, 4, 4), the channel shuffle's view */
static ValId
shuffle_view(Fix *f, ExprId n)
{
	static const int64_t sx[] = {1, 24, 4, 4}, sy[] = {1, 2, 12, 4, 4};
	ExprId symx[] = {n, 0, 0, 0}, symy[] = {n, 0, 0, 0, 0};
	ValId x = input(f, "x", DT_F32, 4, sx, ROLE_USER_INPUT, NULL);
	retype(f, x, 4, sx, symx);
	ValId s = onnx(f, "Shape", "s", DT_I64, 1, (int64_t[]){1}, 3,
	    (Arg[]){arg_val(x), kw(f, "start", arg_int(0)),
	    kw(f, "end", arg_int(1))});
	ValId q = onnx(f, "Squeeze", "q", DT_I64, 0, NULL, 2,
	    (Arg[]){arg_val(s), arg_val(i64_const(f, "a0", 1,
	    (int64_t[]){0}))});
	ValId u = onnx(f, "Unsqueeze", "u", DT_I64, 1, (int64_t[]){1}, 2,
	    (Arg[]){arg_val(q), arg_val(i64_const(f, "a1", 1,
	    (int64_t[]){0}))});
	ValId c = onnx(f, "Concat", "c", DT_I64, 1, (int64_t[]){5}, 3,
	    (Arg[]){arg_val(u), arg_val(i64_const(f, "rest", 4,
	    (int64_t[]){2, 12, 4, 4})), kw(f, "axis", arg_int(0))});
	ValId y = onnx(f, "Reshape", "y", DT_F32, 5, sy, 2,
	    (Arg[]){arg_val(x), arg_val(c)});
	retype(f, y, 5, sy, symy);
	return y;
}

static void
reshapes_take_the_shape_their_type_fixes(void **state)
{
	Fix *f = *state;
	ExprId n = ir_expr_sym(f->m, "s0");
	ValId y = shuffle_view(f, n);
	output(f, onnx(f, "Neg", "z", DT_F32, 0, NULL, 1, (Arg[]){arg_val(y)}));
	/* before: Shape, Squeeze, Unsqueeze, Concat, Reshape, Neg and the
	 * two Constants */
	assert_int_equal(count_op(f, "Shape"), 1);
	assert_int_equal(run(f, "static-reshapes,dce", false), 0);
	/* after: Reshape(x, [0, 2, 12, 4, 4]) and the Neg */
	assert_int_equal(f->g->nnodes - 1, 2);
	NodeId r = find_op(f, "Reshape");
	assert_int_equal(operand(f, r, 0), f->g->inputs[0]);
	int64_t got[8], want[] = {0, 2, 12, 4, 4};
	assert_int_equal(const_ints(f, r, 1, got), 5);
	assert_memory_equal(got, want, sizeof want);
	/* the result keeps its symbolic batch */
	assert_int_equal(ir_dims(f->g, ir_nodep(f->g, r)->out)[0].e, n);
}

static void
reshapes_guess_one_moved_symbol(void **state)
{
	Fix *f = *state;
	/* (N, 6) -> (2, M) through a shape read at run time: M is -1; but
	 * (M, M) has two sizes no constant can say */
	static const int64_t sx[] = {1, 6}, sy[] = {2, 1};
	ExprId n = ir_expr_sym(f->m, "s0"), m = ir_expr_sym(f->m, "s1");
	ValId x = input(f, "x", DT_F32, 2, sx, ROLE_USER_INPUT, NULL);
	ValId shp = input(f, "shp", DT_I64, 1, (int64_t[]){2},
	    ROLE_USER_INPUT, NULL);
	retype(f, x, 2, sx, (ExprId[]){n, 0});
	ValId y = onnx(f, "Reshape", "y", DT_F32, 2, sy, 2,
	    (Arg[]){arg_val(x), arg_val(shp)});
	retype(f, y, 2, sy, (ExprId[]){0, m});
	ValId z = onnx(f, "Reshape", "z", DT_F32, 2, sy, 2,
	    (Arg[]){arg_val(x), arg_val(shp)});
	retype(f, z, 2, sy, (ExprId[]){m, m});
	output(f, onnx(f, "Neg", "a", DT_F32, 0, NULL, 1, (Arg[]){arg_val(y)}));
	output(f, onnx(f, "Neg", "b", DT_F32, 0, NULL, 1, (Arg[]){arg_val(z)}));
	assert_int_equal(run(f, "static-reshapes,dce", false), 0);
	assert_int_equal(count_op(f, "Reshape"), 2);
	NodeId ry = ir_val(f->g, operand(f, ir_val(f->g,
	    f->g->outputs[0])->def, 0))->def;
	NodeId rz = ir_val(f->g, operand(f, ir_val(f->g,
	    f->g->outputs[1])->def, 0))->def;
	int64_t got[8];
	assert_int_equal(const_ints(f, ry, 1, got), 2);
	assert_int_equal(got[0], 2);
	assert_int_equal(got[1], -1);
	assert_int_equal(operand(f, rz, 1), shp);
}

static void
reshapes_leave_graph_outputs_and_allowzero(void **state)
{
	Fix *f = *state;
	ExprId n = ir_expr_sym(f->m, "s0");
	ValId y = shuffle_view(f, n);
	ValId x = f->g->inputs[0];
	ValId c = operand(f, ir_val(f->g, y)->def, 1);
	ValId w = onnx(f, "Reshape", "w", DT_F32, 5, (int64_t[]){1, 2, 12, 4,
	    4}, 3, (Arg[]){arg_val(x), arg_val(c),
	    kw(f, "allowzero", arg_int(1))});
	retype(f, w, 5, (int64_t[]){1, 2, 12, 4, 4},
	    (ExprId[]){n, 0, 0, 0, 0});
	output(f, y);
	output(f, onnx(f, "Neg", "o", DT_F32, 0, NULL, 1, (Arg[]){arg_val(w)}));
	assert_int_equal(run(f, "static-reshapes,dce", false), 0);
	/* both still read the computed shape */
	assert_int_equal(count_op(f, "Reshape"), 2);
	assert_int_equal(count_op(f, "Concat"), 1);
	assert_int_equal(operand(f, ir_val(f->g, f->g->outputs[0])->def, 1),
	    c);
}

/* --------------------------------------------------------- fold-scales */

static const int64_t s23[] = {2, 3}, s32[] = {3, 2}, s2[] = {2};
static const float hs[] = {1, -2, 0.5f, 3, 0.25f, -1};   /* h: 2x3 */
static const float wm[] = {0.5f, -1, 2, 1.5f, -0.75f, 4}; /* W: 3x2 */
static const float bm[] = {0.1f, -0.3f};

/* h @ w + b (b may be NULL), 2x3 by 3x2, into out[4]. */
static void
linear(const float *w, const float *b, float out[4])
{
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			double acc = b ? b[j] : 0;
			for (int k = 0; k < 3; k++)
				acc += (double)hs[i * 3 + k] * w[k * 2 + j];
			out[i * 2 + j] = (float)acc;
		}
}

static void
scales_fold_a_channel_scale_through_a_transpose(void **state)
{
	Fix *f = *state;
	static const float sc[] = {2.5f, -0.5f};
	ValId h = input(f, "h", DT_F32, 2, s23, ROLE_USER_INPUT, NULL);
	ValId w = input(f, "w", DT_F32, 2, s32, ROLE_PARAM, wm);
	ValId b = input(f, "b", DT_F32, 1, s2, ROLE_PARAM, bm);
	ValId s = input(f, "s", DT_F32, 2, (int64_t[]){2, 1}, ROLE_PARAM, sc);
	ValId mm = onnx(f, "MatMul", "mm", DT_F32, -1, NULL, 2,
	    (Arg[]){arg_val(h), arg_val(w)});
	ValId a = onnx(f, "Add", "a", DT_F32, 2, (int64_t[]){2, 2}, 2,
	    (Arg[]){arg_val(mm), arg_val(b)});
	ValId t = onnx(f, "Transpose", "t", DT_F32, 2, (int64_t[]){2, 2}, 2,
	    (Arg[]){arg_val(a), kw(f, "perm", ints(f, 2,
	    (int64_t[]){1, 0}))});
	/* s is one number per row of t: per column of the MatMul */
	ValId y = onnx(f, "Mul", "y", DT_F32, 2, (int64_t[]){2, 2}, 2,
	    (Arg[]){arg_val(s), arg_val(t)});
	output(f, onnx(f, "Neg", "o", DT_F32, 2, (int64_t[]){2, 2}, 1,
	    (Arg[]){arg_val(y)}));
	assert_int_equal(run(f, "fold-scales,dce", false), 0);
	assert_int_equal(count_op(f, "Mul"), 0);
	assert_int_equal(f->g->nnodes - 1, 4);
	NodeId nm = find_op(f, "MatMul"), na = find_op(f, "Add");
	NodeId nt = find_op(f, "Transpose");
	assert_int_equal(operand(f, nm, 0), h);
	assert_int_equal(operand(f, nt, 0), ir_nodep(f->g, na)->out);
	assert_int_equal(operand(f, find_op(f, "Neg"), 0),
	    ir_nodep(f->g, nt)->out);
	/* (h @ W' + b') = (h @ W + b) * s per column */
	const Tensor *w2 = weight_of(f, nm, 1);
	const Tensor *b2 = weight_of(f, na, operand(f, na, 0) ==
	    ir_nodep(f->g, nm)->out ? 1 : 0);
	float want[4], got[4];
	linear(wm, bm, want);
	linear(w2->data, b2->data, got);
	for (int i = 0; i < 4; i++)
		assert_true(fabsf(want[i] * sc[i % 2] - got[i]) <= 1e-6f *
		    (1 + fabsf(got[i])));
	/* the parameters keep their bytes */
	assert_memory_equal(const_of(f, w)->data, wm, sizeof wm);
}

static void
scales_fold_gelus_half_into_the_next_matmul(void **state)
{
	Fix *f = *state;
	static const float half = 0.5f;
	ValId h = input(f, "h", DT_F32, 2, s23, ROLE_USER_INPUT, NULL);
	ValId p = input(f, "p", DT_F32, 2, s23, ROLE_USER_INPUT, NULL);
	ValId c = input(f, "half", DT_F32, 0, NULL, ROLE_CONST, &half);
	ValId w = input(f, "w", DT_F32, 2, s32, ROLE_PARAM, wm);
	ValId x = onnx(f, "Mul", "x", DT_F32, -1, NULL, 2,
	    (Arg[]){arg_val(h), arg_val(c)});
	ValId g = onnx(f, "Mul", "g", DT_F32, 2, s23, 2,
	    (Arg[]){arg_val(x), arg_val(p)});
	ValId y = onnx(f, "MatMul", "y", DT_F32, 2, (int64_t[]){2, 2}, 2,
	    (Arg[]){arg_val(g), arg_val(w)});
	output(f, onnx(f, "Neg", "o", DT_F32, 2, (int64_t[]){2, 2}, 1,
	    (Arg[]){arg_val(y)}));
	assert_int_equal(run(f, "fold-scales,dce", false), 0);
	/* MatMul(Mul(h, p), W / 2) */
	assert_int_equal(count_op(f, "Mul"), 1);
	NodeId nm = find_op(f, "MatMul"), nu = find_op(f, "Mul");
	assert_int_equal(operand(f, nm, 0), ir_nodep(f->g, nu)->out);
	assert_int_equal(operand(f, nu, 0), h);
	assert_int_equal(operand(f, nu, 1), p);
	const Tensor *w2 = weight_of(f, nm, 1);
	for (int i = 0; i < 6; i++)   /* a power of two: exact */
		assert_true(((const float *)w2->data)[i] == wm[i] * 0.5f);
}

static void
scales_fold_into_a_conv_and_keep_others(void **state)
{
	Fix *f = *state;
	static const int64_t sx[] = {1, 1, 2, 2}, sw[] = {2, 1, 1, 1},
	    sy[] = {1, 2, 2, 2}, ss[] = {1, 2, 1, 1}, sr[] = {1, 1, 2, 1};
	static const float cw[] = {3, -2}, cb[] = {1, 0.5f};
	static const float sc[] = {0.25f, 4}, rows[] = {2, 3};
	static const float xs[] = {1, 2, -1, 0.5f};
	ValId x = input(f, "x", DT_F32, 4, sx, ROLE_USER_INPUT, NULL);
	ValId w = input(f, "w", DT_F32, 4, sw, ROLE_PARAM, cw);
	ValId b = input(f, "b", DT_F32, 1, s2, ROLE_PARAM, cb);
	ValId s = input(f, "s", DT_F32, 4, ss, ROLE_PARAM, sc);
	ValId q = input(f, "q", DT_F32, 4, sr, ROLE_PARAM, rows);
	ValId c = onnx(f, "Conv", "c", DT_F32, 4, sy, 3,
	    (Arg[]){arg_val(x), arg_val(w), arg_val(b)});
	ValId y = onnx(f, "Mul", "y", DT_F32, 4, sy, 2,
	    (Arg[]){arg_val(c), arg_val(s)});
	/* a scale along the height is not per channel: it stays */
	ValId d = onnx(f, "Conv", "d", DT_F32, 4, sy, 3,
	    (Arg[]){arg_val(x), arg_val(w), arg_val(b)});
	ValId z = onnx(f, "Mul", "z", DT_F32, 4, sy, 2,
	    (Arg[]){arg_val(d), arg_val(q)});
	output(f, onnx(f, "Add", "o", DT_F32, 4, sy, 2,
	    (Arg[]){arg_val(y), arg_val(z)}));
	assert_int_equal(run(f, "fold-scales,dce", false), 0);
	assert_int_equal(count_op(f, "Mul"), 1);
	assert_int_equal(count_op(f, "Conv"), 2);
	NodeId add = find_op(f, "Add");
	NodeId nc = ir_val(f->g, operand(f, add, 0))->def;
	assert_string_equal(ir_str(f->m, ir_nodep(f->g, nc)->op), "Conv");
	const float *w2 = weight_of(f, nc, 1)->data;
	const float *b2 = weight_of(f, nc, 2)->data;
	/* a 1x1 conv: y[o, p] = (w[o] x[p] + b[o]) s[o] */
	for (int o = 0; o < 2; o++)
		for (int i = 0; i < 4; i++) {
			float want = (cw[o] * xs[i] + cb[o]) * sc[o];
			float got = w2[o] * xs[i] + b2[o];
			assert_true(fabsf(want - got) <= 1e-6f * (1 +
			    fabsf(want)));
		}
}

static void
scales_fold_a_number_into_one_split_output(void **state)
{
	Fix *f = *state;
	static const float quarter = 0.25f;
	/* h (2x3) @ W (3x2) + b, split into two columns; column 1 times 1/4
	 * through a Reshape */
	ValId h = input(f, "h", DT_F32, 2, s23, ROLE_USER_INPUT, NULL);
	ValId w = input(f, "w", DT_F32, 2, s32, ROLE_PARAM, wm);
	ValId b = input(f, "b", DT_F32, 1, s2, ROLE_PARAM, bm);
	ValId c = input(f, "quarter", DT_F32, 0, NULL, ROLE_CONST, &quarter);
	ValId mm = onnx(f, "MatMul", "mm", DT_F32, 2, (int64_t[]){2, 2}, 2,
	    (Arg[]){arg_val(h), arg_val(w)});
	ValId a = onnx(f, "Add", "a", DT_F32, 2, (int64_t[]){2, 2}, 2,
	    (Arg[]){arg_val(mm), arg_val(b)});
	ValId sizes = i64_const(f, "sizes", 2, (int64_t[]){1, 1});
	NodeId sp = ir_node(f->g, D_ONNX, ir_intern(f->m, "Split"), 2);
	ir_nodep(f->g, sp)->name = ir_intern(f->m, "sp");
	ir_push_arg(f->g, sp, arg_val(a));
	ir_push_arg(f->g, sp, arg_val(sizes));
	ir_push_arg(f->g, sp, kw(f, "axis", arg_int(1)));
	ValId q = ir_nodep(f->g, sp)->out, k = q + 1;
	for (ValId v = q; v <= k; v++)
		retype(f, v, 2, (int64_t[]){2, 1}, (ExprId[]){0, 0});
	ValId kv = view(f, "kv", k, 1, (int64_t[]){2});
	ValId ks = onnx(f, "Mul", "ks", DT_F32, 1, (int64_t[]){2}, 2,
	    (Arg[]){arg_val(kv), arg_val(c)});
	output(f, onnx(f, "Neg", "o", DT_F32, 2, (int64_t[]){2, 1}, 1,
	    (Arg[]){arg_val(q)}));
	output(f, onnx(f, "Neg", "p", DT_F32, 1, (int64_t[]){2}, 1,
	    (Arg[]){arg_val(ks)}));
	assert_int_equal(run(f, "fold-scales,dce", false), 0);
	assert_int_equal(count_op(f, "Mul"), 0);
	assert_int_equal(count_op(f, "Split"), 1);
	NodeId nm = find_op(f, "MatMul"), na = find_op(f, "Add");
	NodeId ns = find_op(f, "Split");
	/* both outputs read the new Split */
	NodeId o = ir_val(f->g, f->g->outputs[0])->def;
	assert_int_equal(operand(f, o, 0), ir_nodep(f->g, ns)->out);
	NodeId r = ir_val(f->g, operand(f, ir_val(f->g,
	    f->g->outputs[1])->def, 0))->def;
	assert_string_equal(ir_str(f->m, ir_nodep(f->g, r)->op), "Reshape");
	assert_int_equal(operand(f, r, 0), ir_nodep(f->g, ns)->out + 1);
	/* column 0 as it was, column 1 a quarter of it */
	const Tensor *w2 = weight_of(f, nm, 1);
	const Tensor *b2 = weight_of(f, na, operand(f, na, 0) ==
	    ir_nodep(f->g, nm)->out ? 1 : 0);
	float want[4], got[4];
	linear(wm, bm, want);
	linear(w2->data, b2->data, got);
	for (int i = 0; i < 4; i++)
		assert_true(got[i] == (i % 2 ? want[i] * 0.25f : want[i]));
}

static void
scales_training_changes_nothing(void **state)
{
	Fix *f = *state;
	static const float half = 0.5f;
	ValId h = input(f, "h", DT_F32, 2, s23, ROLE_USER_INPUT, NULL);
	ValId c = input(f, "half", DT_F32, 0, NULL, ROLE_CONST, &half);
	ValId w = input(f, "w", DT_F32, 2, s32, ROLE_PARAM, wm);
	ValId x = onnx(f, "Mul", "x", DT_F32, 2, s23, 2,
	    (Arg[]){arg_val(h), arg_val(c)});
	ValId y = onnx(f, "MatMul", "y", DT_F32, 2, (int64_t[]){2, 2}, 2,
	    (Arg[]){arg_val(x), arg_val(w)});
	output(f, onnx(f, "Neg", "o", DT_F32, 2, (int64_t[]){2, 2}, 1,
	    (Arg[]){arg_val(y)}));
	assert_int_equal(run(f, "fold-scales,dce", true), 0);
	assert_int_equal(count_op(f, "Mul"), 1);
	assert_int_equal(operand(f, find_op(f, "MatMul"), 1), w);
	assert_int_equal(run(f, "fold-scales,dce", false), 0);
	assert_int_equal(count_op(f, "Mul"), 0);
}

/* ------------------------------------------- fold: values on the ONNX graph */

static ValId
cinput(Fix *f, const char *name, DType dt, int rank, const int64_t *dims,
    const void *data)
{
	return input(f, name, dt, rank, dims, ROLE_CONST, data);
}

/* The f32 data of the constant Neg node n reads. */
static const float *
negated(Fix *f, NodeId n, uint64_t numel)
{
	const Tensor *t = const_of(f, operand(f, n, 0));
	assert_non_null(t);
	assert_int_equal(t->dtype, DT_F32);
	assert_int_equal(t->nbytes, numel * 4);
	return t->data;
}

/* A shifted-window mask in miniature: zeros, one row written by
 * ScatterElements, a reversed strided Slice, Equal/Not/Where, an Add. */
static void
fold_computes_masks_from_constants(void **state)
{
	Fix *f = *state;
	static const float zero = 0, big = -100, upd[] = {5, 6, 7, 8};
	static const int64_t shape[] = {3, 4}, rows[] = {1, 1, 1, 1};
	static const int64_t st[] = {1, 3}, en[] = {3, 0}, ax[] = {0, 1},
	    sp[] = {1, -2};
	static const int64_t d2[] = {2}, d14[] = {1, 4}, d22[] = {2, 2};
	ValId z = cinput(f, "zero", DT_F32, 0, NULL, &zero);
	ValId e = onnx(f, "Expand", "e", DT_F32, 2, shape, 2, (Arg[]){
	    arg_val(z), arg_val(cinput(f, "shape", DT_I64, 1, d2, shape))});
	ValId sc = onnx(f, "ScatterElements", "sc", DT_F32, 2, shape, 4,
	    (Arg[]){arg_val(e), arg_val(cinput(f, "rows", DT_I64, 2, d14,
	    rows)), arg_val(cinput(f, "upd", DT_F32, 2, d14, upd)),
	    kw(f, "axis", arg_int(0))});
	ValId sl = onnx(f, "Slice", "sl", DT_F32, 2, d22, 5, (Arg[]){
	    arg_val(sc), arg_val(cinput(f, "st", DT_I64, 1, d2, st)),
	    arg_val(cinput(f, "en", DT_I64, 1, d2, en)),
	    arg_val(cinput(f, "ax", DT_I64, 1, d2, ax)),
	    arg_val(cinput(f, "sp", DT_I64, 1, d2, sp))});
	ValId eq = onnx(f, "Equal", "eq", DT_BOOL, 2, d22, 2,
	    (Arg[]){arg_val(sl), arg_val(z)});
	ValId nt = onnx(f, "Not", "nt", DT_BOOL, 2, d22, 1, (Arg[]){arg_val(eq)});
	ValId w = onnx(f, "Where", "w", DT_F32, 2, d22, 3, (Arg[]){
	    arg_val(nt), arg_val(cinput(f, "big", DT_F32, 0, NULL, &big)),
	    arg_val(sl)});
	ValId a = onnx(f, "Add", "a", DT_F32, 2, d22, 2,
	    (Arg[]){arg_val(w), arg_val(sl)});
	output(f, onnx(f, "Neg", "o", DT_F32, 2, d22, 1, (Arg[]){arg_val(a)}));
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(f->g->nnodes - 1, 2);   /* a Constant and the Neg */
	/* rows 1, 2 and columns 3, 1 of [0 0 0 0; 5 6 7 8; 0 0 0 0]: 8 6 / 0 0;
	 * where nonzero -100, plus itself */
	static const float want[] = {-92, -94, 0, 0};
	assert_memory_equal(negated(f, find_op(f, "Neg"), 4), want,
	    sizeof want);
}

static void
fold_gathers_a_bias_table(void **state)
{
	Fix *f = *state;
	static const float table[] = {1, 2, 3, 4, 5, 6};
	static const int64_t idx[] = {2, -3, 2}, d32v[] = {3, 2}, d3[] = {3};
	ValId t = input(f, "table", DT_F32, 2, d32v, ROLE_PARAM, table);
	ValId i = input(f, "index", DT_I64, 1, d3, ROLE_BUFFER, idx);
	ValId g = onnx(f, "Gather", "g", DT_F32, 2, d32v, 3,
	    (Arg[]){arg_val(t), arg_val(i), kw(f, "axis", arg_int(0))});
	output(f, onnx(f, "Neg", "o", DT_F32, 2, d32v, 1, (Arg[]){arg_val(g)}));
	/* under --training the table changes: it stays a Gather */
	assert_int_equal(run(f, "fold,dce", true), 0);
	assert_int_equal(count_op(f, "Gather"), 1);
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(count_op(f, "Gather"), 0);
	static const float want[] = {5, 6, 1, 2, 5, 6};
	assert_memory_equal(negated(f, find_op(f, "Neg"), 6), want,
	    sizeof want);
	/* an index out of range is left for the runtime to report */
}

static void
fold_leaves_what_it_cannot_compute(void **state)
{
	Fix *f = *state;
	static const float table[] = {1, 2, 3};
	static const int64_t bad[] = {3}, d1v[] = {1}, d3[] = {3};
	static const int64_t huge[] = {2048, 2048}, d2[] = {2};
	static const float one = 1;
	ValId t = cinput(f, "table", DT_F32, 1, d3, table);
	ValId g = onnx(f, "Gather", "g", DT_F32, 1, d1v, 3, (Arg[]){
	    arg_val(t), arg_val(cinput(f, "bad", DT_I64, 1, d1v, bad)),
	    kw(f, "axis", arg_int(0))});
	/* 4M elements out of one: growing the model is no folding */
	ValId e = onnx(f, "Expand", "e", DT_F32, 2, huge, 2, (Arg[]){
	    arg_val(cinput(f, "one", DT_F32, 0, NULL, &one)),
	    arg_val(cinput(f, "huge", DT_I64, 1, d2, huge))});
	output(f, onnx(f, "Neg", "o", DT_F32, 1, d1v, 1, (Arg[]){arg_val(g)}));
	output(f, onnx(f, "Neg", "p", DT_F32, 2, huge, 1, (Arg[]){arg_val(e)}));
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(count_op(f, "Gather"), 1);
	assert_int_equal(count_op(f, "Expand"), 1);
}

/* ------------------------------------- fuse-conv-bn: the norm before */

/* x (1, 2, 1, 2) -> BatchNormalization -> Conv 1x1 (2 out) with pads. */
static const float bx[] = {0.5f, -1, 2, 3}, bw[] = {1, -2, 0.5f, 4};
static const float bb[] = {0.25f, -1}, bsc[] = {2, 0.5f}, bsh[] = {1, -1};
static const float bmean[] = {0.3f, -0.4f}, bvar[] = {4, 0.25f};

static ValId
bn_conv(Fix *f, int64_t pad)
{
	static const int64_t sx[] = {1, 2, 1, 2}, sw[] = {2, 2, 1, 1};
	ValId x = input(f, "x", DT_F32, 4, sx, ROLE_USER_INPUT, NULL);
	ValId n = onnx(f, "BatchNormalization", "bn", DT_F32, 4, sx, 6,
	    (Arg[]){arg_val(x), arg_val(input(f, "bn.weight", DT_F32, 1, s2,
	    ROLE_PARAM, bsc)), arg_val(input(f, "bn.bias", DT_F32, 1, s2,
	    ROLE_PARAM, bsh)), arg_val(input(f, "bn.mean", DT_F32, 1, s2,
	    ROLE_BUFFER, bmean)), arg_val(input(f, "bn.var", DT_F32, 1, s2,
	    ROLE_BUFFER, bvar)), kw(f, "epsilon", arg_float(1e-5))});
	ValId c = onnx(f, "Conv", "conv", DT_F32, 4, sx, 4, (Arg[]){
	    arg_val(n), arg_val(input(f, "conv.weight", DT_F32, 4, sw,
	    ROLE_PARAM, bw)), arg_val(input(f, "conv.bias", DT_F32, 1, s2,
	    ROLE_PARAM, bb)), kw(f, "pads", ints(f, 4,
	    (int64_t[]){0, pad, 0, pad}))});
	ValId y = onnx(f, "Relu", "y", DT_F32, 4, sx, 1, (Arg[]){arg_val(c)});
	output(f, y);
	return y;
}

static void
convbn_folds_a_norm_into_the_conv_after_it(void **state)
{
	Fix *f = *state;
	bn_conv(f, 0);
	assert_int_equal(run(f, "fuse-conv-bn,dce", false), 0);
	assert_int_equal(count_op(f, "BatchNormalization"), 0);
	NodeId c = find_op(f, "Conv");
	assert_int_equal(operand(f, c, 0), f->g->inputs[0]);
	const float *w = weight_of(f, c, 1)->data, *b = weight_of(f, c, 2)->data;
	/* y[o, p] = sum_i w[o, i] bn(x)[i, p] + b[o] */
	for (int o = 0; o < 2; o++)
		for (int p = 0; p < 2; p++) {
			double want = bb[o], got = b[o];
			for (int i = 0; i < 2; i++) {
				double v = bx[i * 2 + p];
				double n = (v - bmean[i]) / sqrt(bvar[i] + 1e-5) *
				    bsc[i] + bsh[i];
				want += bw[o * 2 + i] * n;
				got += w[o * 2 + i] * v;
			}
			assert_true(fabs(want - got) <= 1e-5 * (1 + fabs(want)));
		}
}

static void
convbn_keeps_a_norm_before_a_padded_conv(void **state)
{
	Fix *f = *state;
	bn_conv(f, 1);   /* the border would read the norm's shift */
	assert_int_equal(run(f, "fuse-conv-bn,dce", false), 0);
	assert_int_equal(count_op(f, "BatchNormalization"), 1);
	assert_int_equal(run(f, "fuse-conv-bn,dce", true), 0);
	assert_int_equal(count_op(f, "BatchNormalization"), 1);
}

int
main(void)
{
	if (find_plugins() < 0) {
		fprintf(stderr, "test_opt_vision: set ONNXC_BIN or "
		    "ONNXC_PLUGIN_DIR to find the plugin modules\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(reshapes_take_the_shape_their_type_fixes),
		T(reshapes_guess_one_moved_symbol),
		T(reshapes_leave_graph_outputs_and_allowzero),
		T(scales_fold_a_channel_scale_through_a_transpose),
		T(scales_fold_gelus_half_into_the_next_matmul),
		T(scales_fold_into_a_conv_and_keep_others),
		T(scales_fold_a_number_into_one_split_output),
		T(scales_training_changes_nothing),
		T(fold_computes_masks_from_constants),
		T(fold_gathers_a_bias_table),
		T(fold_leaves_what_it_cannot_compute),
		T(convbn_folds_a_norm_into_the_conv_after_it),
		T(convbn_keeps_a_norm_before_a_padded_conv),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

