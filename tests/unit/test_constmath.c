/* test_constmath.c - what -O2 does to the masks, position tables and size
 * chains transformers compute: fold's ONNX ops on constants
 * (passes/fold/onnx_math.c), the pass drop-neutral and
 * simplify's Squeeze/Unsqueeze of a Shape, run by the real pass manager on
 * small ONNX graphs: the graph before, the graph after, and the numbers
 * the folded constants hold. */
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

static const int64_t d4[] = {4}, d23[] = {2, 3}, d1[] = {1};

static ValId
onnx(Fix *f, const char *op, const char *name, DType dt, int rank,
    const int64_t *dims, int nargs, const Arg *args)
{
	return node(f, D_ONNX, op, name, dt, rank, dims, nargs, args);
}

/* A Constant node: rank 0 or 1 (n elements), data copied. */
static ValId
konst(Fix *f, const char *name, DType dt, int rank, int64_t n,
    const void *data)
{
	size_t nb = (size_t)n * ir_dtype_size(dt);
	int64_t *len = arena_alloc(f->m->arena, sizeof *len);
	void *p = arena_alloc(f->m->arena, nb);
	*len = n;
	memcpy(p, data, nb);
	Tensor t = {.dtype = (uint8_t)dt, .rank = rank, .dims = len,
		.data = p, .nbytes = nb};
	return onnx(f, "Constant", name, dt, rank, len, 1,
	    (Arg[]){kw(f, "value", (Arg){.kind = A_TENSOR,
	    .u.t = ir_tensor(f->m, &t)})});
}

static ValId
i64s(Fix *f, const char *name, int64_t n, const int64_t *v)
{
	return konst(f, name, DT_I64, 1, n, v);
}

static ValId
i64(Fix *f, const char *name, int64_t v)
{
	return konst(f, name, DT_I64, 0, 1, &v);
}

static ValId
f32(Fix *f, const char *name, float v)
{
	return konst(f, name, DT_F32, 0, 1, &v);
}

static ValId
op2(Fix *f, const char *op, const char *name, DType dt, int rank,
    const int64_t *dims, ValId a, ValId b)
{
	return onnx(f, op, name, dt, rank, dims, 2,
	    (Arg[]){arg_val(a), arg_val(b)});
}

/* ------------------------------------------------------------- folding */

/* T5's relative position buckets, small: where |i - 2| < 2 the distance,
 * else min(trunc(log(d / 2) ...), 3); then an embedding lookup. */
static ValId
buckets(Fix *f, const float *table, Role role)
{
	ValId x = input(f, "x", DT_F32, 1, d4, ROLE_USER_INPUT, NULL);
	ValId tab = input(f, "table", DT_F32, 1, d4, role, table);
	ValId r = onnx(f, "Range", "r", DT_I64, 1, d4, 3, (Arg[]){
	    arg_val(i64(f, "k0", 0)), arg_val(i64(f, "k4", 4)),
	    arg_val(i64(f, "k1", 1))});
	ValId a = onnx(f, "Abs", "a", DT_I64, 1, d4, 1, (Arg[]){arg_val(
	    op2(f, "Sub", "s", DT_I64, 1, d4, r, i64(f, "k2", 2)))});
	ValId c = onnx(f, "Cast", "c", DT_F32, 1, d4, 2,
	    (Arg[]){arg_val(a), kw(f, "to", arg_int(DT_F32))});
	ValId l = onnx(f, "Log", "l", DT_F32, 1, d4, 1, (Arg[]){arg_val(
	    op2(f, "Div", "h", DT_F32, 1, d4, c, f32(f, "two", 2)))});
	ValId li = onnx(f, "Cast", "li", DT_I64, 1, d4, 2,
	    (Arg[]){arg_val(l), kw(f, "to", arg_int(DT_I64))});
	ValId lt = op2(f, "Less", "lt", DT_BOOL, 1, d4, a, i64(f, "k2b", 2));
	ValId m = op2(f, "Min", "m", DT_I64, 1, d4, li, i64(f, "k3", 3));
	ValId w = onnx(f, "Where", "w", DT_I64, 1, d4, 3,
	    (Arg[]){arg_val(lt), arg_val(a), arg_val(m)});
	ValId g = onnx(f, "Gather", "g", DT_F32, 1, d4, 3, (Arg[]){
	    arg_val(tab), arg_val(w), kw(f, "axis", arg_int(0))});
	ValId y = op2(f, "Add", "y", DT_F32, 1, d4, x, g);
	output(f, y);
	return x;
}

static void
fold_computes_a_bucket_table(void **state)
{
	Fix *f = *state;
	static const float table[] = {10, 20, 30, 40};
	ValId x = buckets(f, table, ROLE_PARAM);
	/* before: 7 Constants, Range, Sub, Abs, Cast, Div, Log, Cast, Less,
	 * Min, Where, Gather, Add */
	assert_int_equal(f->g->nnodes - 1, 19);
	assert_int_equal(run(f, "fold{max-size=1024},dce", false), 0);
	/* after: x + one constant */
	assert_int_equal(f->g->nnodes - 1, 2);
	NodeId add = find_op(f, "Add");
	assert_int_equal(operand(f, add, 0), x);
	const Tensor *t = const_of(f, operand(f, add, 1));
	assert_non_null(t);
	assert_int_equal(t->dtype, DT_F32);
	/* |i-2| = 2 1 0 1; 2 is not < 2: trunc(log(1)) = 0 -> table[0] */
	float want[] = {10, 20, 10, 20};
	assert_memory_equal(t->data, want, sizeof want);
}

static void
fold_training_keeps_what_reads_a_parameter(void **state)
{
	Fix *f = *state;
	static const float table[] = {10, 20, 30, 40};
	buckets(f, table, ROLE_PARAM);
	assert_int_equal(run(f, "fold{max-size=1024},dce", true), 0);
	/* the indices fold; the lookup in the trained table stays */
	assert_int_equal(count_op(f, "Gather"), 1);
	assert_int_equal(count_op(f, "Range"), 0);
	assert_int_equal(count_op(f, "Log"), 0);
	const Tensor *t = const_of(f, operand(f, find_op(f, "Gather"), 1));
	assert_non_null(t);
	int64_t want[] = {0, 1, 0, 1};
	assert_memory_equal(t->data, want, sizeof want);
}

/* A causal mask: Where(j <= i, 0, -inf), And'ed with an expanded true. */
static void
fold_computes_a_mask_and_limits_growth(void **state)
{
	Fix *f = *state;
	static const int64_t d21[] = {2, 1}, d13[] = {1, 3}, big[] = {300,
	    300};
	unsigned char yes = 1;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId i = i64s(f, "i", 2, (int64_t[]){0, 1});
	ValId j = i64s(f, "j", 3, (int64_t[]){0, 1, 2});
	ValId iu = op2(f, "Unsqueeze", "iu", DT_I64, 2, d21, i,
	    i64s(f, "ax1", 1, (int64_t[]){1}));
	ValId ju = op2(f, "Unsqueeze", "ju", DT_I64, 2, d13, j,
	    i64s(f, "ax0", 1, (int64_t[]){0}));
	ValId le = op2(f, "LessOrEqual", "le", DT_BOOL, 2, d23, ju, iu);
	ValId t = op2(f, "Expand", "t", DT_BOOL, 2, d23,
	    konst(f, "yes", DT_BOOL, 0, 1, &yes), i64s(f, "sh", 2, d23));
	ValId m = op2(f, "And", "m", DT_BOOL, 2, d23, t, le);
	ValId w = onnx(f, "Where", "w", DT_F32, 2, d23, 3, (Arg[]){
	    arg_val(m), arg_val(f32(f, "zero", 0)),
	    arg_val(f32(f, "ninf", -INFINITY))});
	output(f, op2(f, "Add", "y", DT_F32, 2, d23, x, w));
	/* a scalar expanded to 90000 elements stays an Expand */
	ValId e = op2(f, "Expand", "e", DT_F32, 2, big, f32(f, "one", 1),
	    i64s(f, "bigsh", 2, big));
	output(f, op2(f, "Mul", "z", DT_F32, 2, big, e, f32(f, "k", 2)));
	/* and so does a lookup of 300 rows of 300 in a 2-row table */
	static const int64_t d2r[] = {2, 300};
	static const float tab[600];
	static const int64_t idx[300];
	ValId g = onnx(f, "Gather", "g", DT_F32, 2, big, 3, (Arg[]){
	    arg_val(input(f, "tab", DT_F32, 2, d2r, ROLE_CONST, tab)),
	    arg_val(i64s(f, "idx", 300, idx)), kw(f, "axis", arg_int(0))});
	output(f, op2(f, "Mul", "z2", DT_F32, 2, big, g, f32(f, "k2", 2)));
	assert_int_equal(run(f, "fold{max-size=268435456},dce", false), 0);
	assert_int_equal(count_op(f, "Where"), 0);
	assert_int_equal(count_op(f, "Expand"), 1);
	assert_int_equal(count_op(f, "Gather"), 1);
	const Tensor *c = const_of(f, operand(f, find_op(f, "Add"), 1));
	assert_non_null(c);
	float want[] = {0, -INFINITY, -INFINITY, 0, 0, -INFINITY};
	assert_int_equal(c->rank, 2);
	assert_memory_equal(c->data, want, sizeof want);
}

static void
fold_leaves_integer_division_by_zero(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 1, d4, ROLE_USER_INPUT, NULL);
	ValId q = op2(f, "Div", "q", DT_I64, 1, d4,
	    i64s(f, "n", 4, (int64_t[]){1, 2, 3, 4}), i64(f, "z", 0));
	ValId p = op2(f, "Div", "p", DT_I64, 1, d4,
	    i64s(f, "n2", 4, (int64_t[]){-7, 7, 8, 9}), i64(f, "two", 2));
	output(f, op2(f, "Add", "y", DT_I64, 1, d4, x, q));
	output(f, op2(f, "Add", "y2", DT_I64, 1, d4, x, p));
	assert_int_equal(run(f, "fold,dce", false), 0);
	/* ONNX Runtime reports that one; the other truncates to zero */
	assert_int_equal(count_op(f, "Div"), 1);
	NodeId a2 = 0;
	for (NodeId n = 1; n < f->g->nnodes; n++)
		if (!strcmp(ir_str(f->m, ir_nodep(f->g, n)->name), "y2"))
			a2 = n;
	const Tensor *c = const_of(f, operand(f, a2, 1));
	assert_non_null(c);
	int64_t want[] = {-3, 3, 4, 4};
	assert_memory_equal(c->data, want, sizeof want);
}

/* -------------------------------------------------------- drop-neutral */

static void
neutral_drops_units(void **state)
{
	Fix *f = *state;
	unsigned char yes = 1, no = 0;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId b = input(f, "b", DT_BOOL, 2, d23, ROLE_USER_INPUT, NULL);
	ValId a = op2(f, "Add", "a", DT_F32, 2, d23, x, f32(f, "z", 0));
	ValId s = op2(f, "Sub", "s", DT_F32, 2, d23, a, f32(f, "z2", 0));
	ValId m = op2(f, "Mul", "m", DT_F32, 2, d23, f32(f, "one", 1), s);
	ValId d = op2(f, "Div", "d", DT_F32, 2, d23, m, f32(f, "one2", 1));
	output(f, onnx(f, "Relu", "y", DT_F32, 2, d23, 1,
	    (Arg[]){arg_val(d)}));
	ValId n1 = op2(f, "And", "n1", DT_BOOL, 2, d23,
	    konst(f, "t", DT_BOOL, 0, 1, &yes), b);
	ValId n2 = op2(f, "Or", "n2", DT_BOOL, 2, d23, n1,
	    konst(f, "fl", DT_BOOL, 0, 1, &no));
	output(f, onnx(f, "Not", "nb", DT_BOOL, 2, d23, 1,
	    (Arg[]){arg_val(n2)}));
	/* these compute something else: 0 - x, x + [0 1 0], and a 0 that
	 * broadcasts x to a bigger shape */
	static const int64_t d223[] = {2, 2, 3};
	ValId k = op2(f, "Sub", "k", DT_F32, 2, d23, f32(f, "z3", 0), x);
	ValId v = op2(f, "Add", "v", DT_F32, 2, d23, k, konst(f, "row",
	    DT_F32, 1, 3, (float[]){0, 1, 0}));
	static const float zeros[2];
	ValId wide = input(f, "wz", DT_F32, 3, (int64_t[]){2, 1, 1},
	    ROLE_CONST, zeros);
	output(f, op2(f, "Add", "w", DT_F32, 3, d223, v, wide));
	assert_int_equal(run(f, "drop-neutral,dce", false), 0);
	/* the Relu reads x, the Not reads b */
	assert_int_equal(operand(f, find_op(f, "Relu"), 0), x);
	assert_int_equal(operand(f, find_op(f, "Not"), 0), b);
	assert_int_equal(count_op(f, "Mul") + count_op(f, "Div") +
	    count_op(f, "And") + count_op(f, "Or"), 0);
	assert_int_equal(count_op(f, "Sub"), 1);
	assert_int_equal(count_op(f, "Add"), 2);
}

/* Expand(w, Abs(Concat(Shape(x)[0:1], [-1, -1]))), as the lowering of
 * expand(-1, ...) writes it, and Abs(Squeeze(Shape(x))). */
static void
neutral_drops_abs_of_sizes(void **state)
{
	Fix *f = *state;
	static const int64_t d131[] = {1, 3, 1};
	static const float wv[] = {1, 2, 3};
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId w = input(f, "w", DT_F32, 3, d131, ROLE_PARAM, wv);
	ValId sh = onnx(f, "Shape", "sh", DT_I64, 1, d1, 3, (Arg[]){
	    arg_val(x), kw(f, "start", arg_int(0)), kw(f, "end", arg_int(1))});
	ValId c = onnx(f, "Concat", "c", DT_I64, 1, (int64_t[]){3}, 3,
	    (Arg[]){arg_val(sh), arg_val(i64s(f, "m1", 2, (int64_t[]){-1,
	    -1})), kw(f, "axis", arg_int(0))});
	ValId a = onnx(f, "Abs", "a", DT_I64, 1, (int64_t[]){3}, 1,
	    (Arg[]){arg_val(c)});
	static const int64_t d231[] = {2, 3, 1};
	output(f, op2(f, "Expand", "e", DT_F32, 3, d231, w, a));
	ValId q = op2(f, "Squeeze", "q", DT_I64, 0, NULL, sh,
	    i64s(f, "ax", 1, (int64_t[]){0}));
	ValId aq = onnx(f, "Abs", "aq", DT_I64, 0, NULL, 1,
	    (Arg[]){arg_val(q)});
	output(f, op2(f, "Mul", "n", DT_I64, 0, NULL, aq, i64(f, "k", 3)));
	/* x's data may be negative: its Abs stays */
	output(f, onnx(f, "Abs", "ax", DT_F32, 2, d23, 1,
	    (Arg[]){arg_val(x)}));
	assert_int_equal(run(f, "drop-neutral,dce", false), 0);
	assert_int_equal(count_op(f, "Abs"), 1);
	NodeId e = find_op(f, "Expand");
	ValId s = operand(f, e, 1);
	NodeId cc = ir_val(f->g, s)->def;
	assert_string_equal(ir_str(f->m, ir_nodep(f->g, cc)->op), "Concat");
	assert_int_equal(operand(f, cc, 0), sh);
	const Tensor *ones = const_of(f, operand(f, cc, 1));
	assert_non_null(ones);
	assert_memory_equal(ones->data, ((int64_t[]){1, 1}), 16);
	assert_int_equal(operand(f, find_op(f, "Mul"), 0), q);
}

/* ------------------------------------------------------------ simplify */

/* Unsqueeze(Squeeze(Shape(x)[0:1], [0]), [0]) is the Shape, whose result
 * the lowering leaves without a type. */
static void
simplify_unsqueezes_a_squeezed_shape_back(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId sh = onnx(f, "Shape", "sh", DT_I64, -1, NULL, 3, (Arg[]){
	    arg_val(x), kw(f, "start", arg_int(0)), kw(f, "end", arg_int(1))});
	ValId q = op2(f, "Squeeze", "q", DT_I64, 0, NULL, sh,
	    i64s(f, "a0", 1, (int64_t[]){0}));
	ValId u = op2(f, "Unsqueeze", "u", DT_I64, -1, NULL, q,
	    i64s(f, "a1", 1, (int64_t[]){0}));
	ValId c = onnx(f, "Concat", "c", DT_I64, 1, (int64_t[]){3}, 3,
	    (Arg[]){arg_val(u), arg_val(i64s(f, "rest", 1, (int64_t[]){3})),
	    kw(f, "axis", arg_int(0))});
	output(f, op2(f, "Reshape", "y", DT_F32, 2, d23, x, c));
	assert_int_equal(run(f, "simplify,dce", false), 0);
	assert_int_equal(count_op(f, "Squeeze") + count_op(f, "Unsqueeze"), 0);
	assert_int_equal(operand(f, find_op(f, "Concat"), 0), sh);
}

int
main(void)
{
	if (find_plugins() < 0) {
		fprintf(stderr, "test_constmath: set ONNXC_BIN or "
		    "ONNXC_PLUGIN_DIR to find the plugin modules\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(fold_computes_a_bucket_table),
		T(fold_training_keeps_what_reads_a_parameter),
		T(fold_computes_a_mask_and_limits_growth),
		T(fold_leaves_integer_division_by_zero),
		T(neutral_drops_units),
		T(neutral_drops_abs_of_sizes),
		T(simplify_unsqueezes_a_squeezed_shape_back),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
