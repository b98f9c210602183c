/* test_lower_reduce.c - lowering of reductions, arg-reductions, scans,
 * softmax and topk: axes forms per opset, dtypes, negative and empty dims,
 * 0-d inputs, dynamic sizes. */
#include <math.h>
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
input(Fix *f, const char *name, DType dt, int rank, const int64_t *dims)
{
	ValId v = ir_value(f->g, ir_intern(f->m, name));
	set_type(f, v, dt, rank, dims);
	ir_val(f->g, v)->role = ROLE_USER_INPUT;
	ir_add_input(f->g, v);
	return v;
}

/* An FX node with nout outputs; output 0 is dt[rank dims]. */
static NodeId
node(Fix *f, const char *op, uint32_t nout, DType dt, int rank,
    const int64_t *dims)
{
	NodeId n = ir_node(f->g, D_FX, ir_intern(f->m, op), nout);
	Node *p = ir_nodep(f->g, n);
	char buf[32];
	snprintf(buf, sizeof buf, "n%u", n);
	p->name = ir_intern(f->m, buf);
	p->loc = (Loc){n + 1, 5};
	for (uint32_t k = 0; k < nout; k++) {
		snprintf(buf, sizeof buf, "n%u_%u", n, k);
		ir_val(f->g, p->out + k)->name = ir_intern(f->m, buf);
	}
	set_type(f, p->out, dt, rank, dims);
	return n;
}

static Arg
ints(Fix *f, const int64_t *v, int n)
{
	Arg it[8];
	for (int i = 0; i < n; i++)
		it[i] = arg_int(v[i]);
	return ir_list(f->g, A_LIST, it, (uint32_t)n);
}

static int
lower(Fix *f, int opset)
{
	return pass_lower(f->m, f->gid, &f->out, opset);
}

/* how many ONNX nodes of type op the lowered graph has */
static int
count(Fix *f, const char *op)
{
	Graph *g = dst(f);
	int c = 0;
	for (NodeId n = 1; n < g->nnodes; n++)
		c += strcmp(ir_str(f->m, g->nodes[n].op), op) == 0;
	return c;
}

/* the first ONNX node of type op */
static NodeId
find(Fix *f, const char *op)
{
	Graph *g = dst(f);
	for (NodeId n = 1; n < g->nnodes; n++)
		if (strcmp(ir_str(f->m, g->nodes[n].op), op) == 0)
			return n;
	fail_msg("no %s node", op);
	return 0;
}

static const Arg *
attr(Fix *f, NodeId n, const char *name)
{
	Graph *g = dst(f);
	const Node *p = ir_nodep(g, n);
	for (uint32_t k = 0; k < p->nargs; k++) {
		const Arg *a = ir_arg(g, n, k);
		if (a->key && strcmp(ir_str(f->m, a->key), name) == 0)
			return a;
	}
	return NULL;
}

static int64_t
attr_int(Fix *f, NodeId n, const char *name)
{
	const Arg *a = attr(f, n, name);
	assert_non_null(a);
	assert_int_equal(a->kind, A_INT);
	return a->u.i;
}

/* the int64 data of the Constant that defines input k of node n */
static const int64_t *
const_input(Fix *f, NodeId n, uint32_t k, uint64_t *cnt)
{
	Graph *g = dst(f);
	const Arg *a = ir_arg(g, n, k);
	assert_int_equal(a->kind, A_VAL);
	NodeId c = ir_val(g, a->u.v)->def;
	assert_string_equal(ir_str(f->m, ir_nodep(g, c)->op), "Constant");
	const Arg *t = attr(f, c, "value");
	assert_non_null(t);
	const Tensor *tp = ir_tensorp(f->m, t->u.t);
	assert_int_equal(tp->dtype, DT_I64);
	*cnt = ir_numel(tp);
	return tp->data;
}

/* dtype of the ONNX value bound to the graph's output k */
static DType
out_dtype(Fix *f, uint32_t k)
{
	Graph *g = dst(f);
	assert_true(k < g->noutputs);
	return (DType)ir_val(g, g->outputs[k])->dtype;
}

static const int64_t X234[] = {2, 3, 4};

/* bool sums count in int64; dim -1 becomes axis 1; the axes of ReduceSum
 * are an input at every opset */
static void
test_sum_bool_negative_dim(void **state)
{
	Fix *f = *state;
	ValId b = input(f, "b", DT_BOOL, 2, (int64_t[]){2, 3});
	NodeId n = node(f, "aten::sum.dim_IntList", 1, DT_I64, 1,
	    (int64_t[]){2});
	arg(f, n, arg_val(b));
	arg(f, n, ints(f, (int64_t[]){-1}, 1));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 17), 0);
	NodeId r = find(f, "ReduceSum");
	assert_int_equal(ninputs(f, r), 2);
	uint64_t cnt;
	const int64_t *axes = const_input(f, r, 1, &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(axes[0], 1);
	assert_int_equal(attr_int(f, r, "keepdims"), 0);
	assert_null(attr(f, r, "axes"));
	NodeId c = find(f, "Cast");
	assert_int_equal(attr_int(f, c, "to"), DT_I64);
	assert_int_equal(out_dtype(f, 0), DT_I64);
}

/* ReduceMean: axes attribute at opset 17, input at 18 */
static void
mean_at(Fix *f, int opset)
{
	ValId x = input(f, "x", DT_F32, 3, X234);
	NodeId n = node(f, "aten::mean.dim", 1, DT_F32, 3,
	    (int64_t[]){2, 1, 1});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){1, -1}, 2));
	arg(f, n, arg_bool(true));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, opset), 0);
}

static void
test_mean_axes_opset17(void **state)
{
	Fix *f = *state;
	mean_at(f, 17);
	NodeId r = find(f, "ReduceMean");
	assert_int_equal(ninputs(f, r), 1);
	const Arg *axes = attr(f, r, "axes");
	assert_non_null(axes);
	assert_int_equal(axes->kind, A_LIST);
	assert_int_equal(axes->u.list.n, 2);
	const Arg *it = ir_items(dst(f), axes);
	assert_int_equal(it[0].u.i, 1);
	assert_int_equal(it[1].u.i, 2);
	assert_int_equal(attr_int(f, r, "keepdims"), 1);
	assert_int_equal(count(f, "Cast"), 0);
}

static void
test_mean_axes_opset18(void **state)
{
	Fix *f = *state;
	mean_at(f, 18);
	NodeId r = find(f, "ReduceMean");
	assert_int_equal(ninputs(f, r), 2);
	assert_null(attr(f, r, "axes"));
	uint64_t cnt;
	const int64_t *axes = const_input(f, r, 1, &cnt);
	assert_int_equal(cnt, 2);
	assert_int_equal(axes[1], 2);
}

/* amax(x, []) reduces every axis: no axes at all */
static void
test_amax_empty_dims(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, X234);
	NodeId n = node(f, "aten::amax.default", 1, DT_F32, 0, NULL);
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, NULL, 0));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 18), 0);
	NodeId r = find(f, "ReduceMax");
	assert_int_equal(ninputs(f, r), 1);
	assert_null(attr(f, r, "axes"));
	assert_int_equal(attr_int(f, r, "keepdims"), 0);
}

/* f16 sums accumulate in f32 and come back to f16 */
static void
test_sum_f16_in_f32(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F16, 3, X234);
	NodeId n = node(f, "aten::sum.default", 1, DT_F16, 0, NULL);
	arg(f, n, arg_val(x));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Cast"), 2);
	NodeId r = find(f, "ReduceSum");
	assert_int_equal(ninputs(f, r), 1);
	assert_int_equal(ir_val(dst(f), ir_nodep(dst(f), r)->out)->dtype,
	    DT_F32);
	assert_int_equal(out_dtype(f, 0), DT_F16);
}

/* max.dim: values and first-index int64 indices along the normalised dim */
static void
test_max_dim_two_outputs(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, X234);
	NodeId n = node(f, "aten::max.dim", 2, DT_F32, 2, (int64_t[]){2, 3});
	set_type(f, ir_nodep(f->g, n)->out + 1, DT_I64, 2, (int64_t[]){2, 3});
	arg(f, n, arg_val(x));
	arg(f, n, arg_int(-1));
	output(f, ir_nodep(f->g, n)->out);
	output(f, ir_nodep(f->g, n)->out + 1);
	assert_int_equal(lower(f, 17), 0);
	NodeId a = find(f, "ArgMax");
	assert_int_equal(attr_int(f, a, "axis"), 2);
	assert_int_equal(attr_int(f, a, "keepdims"), 0);
	assert_int_equal(attr_int(f, a, "select_last_index"), 0);
	NodeId r = find(f, "ReduceMax");
	const Arg *axes = attr(f, r, "axes");
	assert_non_null(axes);
	assert_int_equal(ir_items(dst(f), axes)[0].u.i, 2);
	assert_int_equal(out_dtype(f, 0), DT_F32);
	assert_int_equal(out_dtype(f, 1), DT_I64);
}

/* argmax with dim None searches the flattened tensor */
static void
test_argmax_flattened_keepdim(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F16, 3, X234);
	NodeId n = node(f, "aten::argmax.default", 1, DT_I64, 3,
	    (int64_t[]){1, 1, 1});
	arg(f, n, arg_val(x));
	arg(f, n, arg_none());
	arg(f, n, arg_bool(true));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Reshape"), 2);
	NodeId a = find(f, "ArgMax");
	assert_int_equal(attr_int(f, a, "axis"), 0);
	assert_int_equal(attr_int(f, a, "keepdims"), 0);
	/* ORT's ArgMax has no f16 kernel: compared in f32 */
	NodeId c = find(f, "Cast");
	assert_int_equal(attr_int(f, c, "to"), DT_F32);
	assert_int_equal(out_dtype(f, 0), DT_I64);
}

/* _softmax with half_to_float: f16 in, f32 out, negative dim normalised */
static void
test_softmax_half_to_float(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F16, 3, X234);
	NodeId n = node(f, "aten::_softmax.default", 1, DT_F32, 3, X234);
	arg(f, n, arg_val(x));
	arg(f, n, arg_int(-2));
	arg(f, n, arg_bool(true));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 18), 0);
	NodeId s = find(f, "Softmax");
	assert_int_equal(attr_int(f, s, "axis"), 1);
	assert_int_equal(count(f, "Cast"), 1);
	assert_int_equal(out_dtype(f, 0), DT_F32);
}

static void
test_log_softmax_f16_roundtrip(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F16, 3, X234);
	NodeId n = node(f, "aten::log_softmax.int", 1, DT_F16, 3, X234);
	arg(f, n, arg_val(x));
	arg(f, n, arg_int(0));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 17), 0);
	NodeId s = find(f, "LogSoftmax");
	assert_int_equal(attr_int(f, s, "axis"), 0);
	assert_int_equal(count(f, "Cast"), 2);
	assert_int_equal(out_dtype(f, 0), DT_F16);
}

/* reductions of a 0-d tensor are the identity; dim 0 and -1 are valid */
static void
test_rank0_reductions(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 0, NULL);
	NodeId n = node(f, "aten::sum.dim_IntList", 1, DT_F32, 0, NULL);
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){-1}, 1));
	arg(f, n, arg_bool(true));
	output(f, ir_nodep(f->g, n)->out);
	NodeId a = node(f, "aten::argmax.default", 1, DT_I64, 0, NULL);
	arg(f, a, arg_val(x));
	arg(f, a, arg_int(0));
	output(f, ir_nodep(f->g, a)->out);
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "ReduceSum"), 0);
	assert_int_equal(count(f, "ArgMax"), 0);
	assert_int_equal(out_dtype(f, 0), DT_F32);
	assert_int_equal(out_dtype(f, 1), DT_I64);
}

/* logsumexp subtracts the (finite) maximum like torch */
static void
test_logsumexp_stable(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, X234);
	NodeId n = node(f, "aten::logsumexp.default", 1, DT_F32, 2,
	    (int64_t[]){2, 3});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){-1}, 1));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 17), 0);
	assert_int_equal(attr_int(f, find(f, "ReduceMax"), "keepdims"), 1);
	assert_int_equal(count(f, "IsInf"), 1);
	assert_int_equal(count(f, "Where"), 1);
	assert_int_equal(count(f, "Squeeze"), 1);
	NodeId r = find(f, "ReduceSum");
	assert_int_equal(attr_int(f, r, "keepdims"), 0);
}

/* var over a dynamic dim reads the count from the shape at run time */
static void
test_var_dynamic_count(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){-1, 6});
	NodeId n = node(f, "aten::var.correction", 1, DT_F32, 1,
	    (int64_t[]){6});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){0}, 1));
	kwarg(f, n, "correction", arg_int(0));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Shape"), 1);
	uint64_t cnt;
	const int64_t *idx = const_input(f, find(f, "Gather"), 1, &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(idx[0], 0);
	assert_int_equal(count(f, "ReduceProd"), 1);
}

/* a static count is a constant */
static void
test_std_static_count(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, X234);
	NodeId n = node(f, "aten::std.dim", 1, DT_F32, 1, (int64_t[]){2});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){1, 2}, 2));
	arg(f, n, arg_bool(true));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Shape"), 0);
	assert_int_equal(count(f, "Sqrt"), 1);
}

/* norm p=2 is ReduceL2; inf is ReduceMax of Abs */
static void
test_norms(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, X234);
	NodeId n = node(f, "aten::norm.ScalarOpt_dim", 1, DT_F32, 0, NULL);
	arg(f, n, arg_val(x));
	arg(f, n, arg_int(2));
	arg(f, n, ints(f, NULL, 0));
	output(f, ir_nodep(f->g, n)->out);
	NodeId m = node(f, "aten::linalg_vector_norm.default", 1, DT_F32, 1,
	    (int64_t[]){2});
	arg(f, m, arg_val(x));
	arg(f, m, arg_float(INFINITY));
	arg(f, m, ints(f, (int64_t[]){1, 2}, 2));
	output(f, ir_nodep(f->g, m)->out);
	assert_int_equal(lower(f, 17), 0);
	NodeId l2 = find(f, "ReduceL2");
	assert_int_equal(ninputs(f, l2), 1);
	assert_null(attr(f, l2, "axes"));
	assert_int_equal(count(f, "Abs"), 1);
	assert_non_null(attr(f, find(f, "ReduceMax"), "axes"));
}

/* cumsum takes its axis as a 0-d input */
static void
test_cumsum_axis(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I32, 3, X234);
	NodeId n = node(f, "aten::cumsum.default", 1, DT_I64, 3, X234);
	arg(f, n, arg_val(x));
	arg(f, n, arg_int(-2));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 18), 0);
	uint64_t cnt;
	const int64_t *axis = const_input(f, find(f, "CumSum"), 1, &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(axis[0], 1);
	assert_int_equal(out_dtype(f, 0), DT_I64);
}

/* topk: k as a 1-D input, largest and axis as attributes */
static void
test_topk(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, X234);
	NodeId n = node(f, "aten::topk.default", 2, DT_F32, 3,
	    (int64_t[]){2, 2, 4});
	set_type(f, ir_nodep(f->g, n)->out + 1, DT_I64, 3,
	    (int64_t[]){2, 2, 4});
	arg(f, n, arg_val(x));
	arg(f, n, arg_int(2));
	arg(f, n, arg_int(1));
	kwarg(f, n, "largest", arg_bool(false));
	output(f, ir_nodep(f->g, n)->out);
	output(f, ir_nodep(f->g, n)->out + 1);
	assert_int_equal(lower(f, 18), 0);
	NodeId t = find(f, "TopK");
	assert_int_equal(attr_int(f, t, "axis"), 1);
	assert_int_equal(attr_int(f, t, "largest"), 0);
	uint64_t cnt;
	const int64_t *k = const_input(f, t, 1, &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(k[0], 2);
	assert_int_equal(out_dtype(f, 1), DT_I64);
}

static void
test_dim_out_of_range(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, X234);
	NodeId n = node(f, "aten::amin.default", 1, DT_F32, 2,
	    (int64_t[]){2, 3});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){3}, 1));
	output(f, ir_nodep(f->g, n)->out);
	assert_int_equal(lower(f, 18), -1);
	assert_non_null(strstr(diags(f), "dim 3 is out of range"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sum_bool_negative_dim,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_mean_axes_opset17, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mean_axes_opset18, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_amax_empty_dims, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sum_f16_in_f32, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_max_dim_two_outputs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_argmax_flattened_keepdim,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_softmax_half_to_float,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_softmax_f16_roundtrip,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_rank0_reductions, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_logsumexp_stable, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_var_dynamic_count, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_std_static_count, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_norms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cumsum_axis, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_topk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dim_out_of_range, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
