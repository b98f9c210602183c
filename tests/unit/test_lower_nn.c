/* test_lower_nn.c - lowering of neural-network ops: convolution forms,
 * matrix products with beta/alpha, normalization in eval and training
 * mode, pooling in PyTorch's ceil mode, resampling modes, attention masks,
 * dropout, and reduced-precision compute. */
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

/* An FX node with nout outputs, output 0 typed dt[dims]; the others stay
 * unannotated (unused) unless typed with set_type. */
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

static ValId
out(Fix *f, NodeId n, uint32_t k)
{
	return ir_nodep(f->g, n)->out + k;
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

static int
count(Fix *f, const char *op)
{
	Graph *g = dst(f);
	int c = 0;
	for (NodeId n = 1; n < g->nnodes; n++)
		c += strcmp(ir_str(f->m, g->nodes[n].op), op) == 0;
	return c;
}

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

static double
attr_float(Fix *f, NodeId n, const char *name)
{
	const Arg *a = attr(f, n, name);
	assert_non_null(a);
	assert_int_equal(a->kind, A_FLOAT);
	return a->u.f;
}

static const char *
attr_str(Fix *f, NodeId n, const char *name)
{
	const Arg *a = attr(f, n, name);
	assert_non_null(a);
	assert_int_equal(a->kind, A_STR);
	return ir_str(f->m, a->u.s);
}

/* an ints attribute must equal want[0..n) */
static void
attr_ints_eq(Fix *f, NodeId nd, const char *name, const int64_t *want,
    int n)
{
	const Arg *a = attr(f, nd, name);
	assert_non_null(a);
	assert_int_equal(a->kind, A_LIST);
	assert_int_equal(a->u.list.n, n);
	const Arg *it = ir_items(dst(f), a);
	for (int k = 0; k < n; k++)
		assert_int_equal(it[k].u.i, want[k]);
}

static DType
out_dtype(Fix *f, uint32_t k)
{
	Graph *g = dst(f);
	assert_true(k < g->noutputs);
	return (DType)ir_val(g, g->outputs[k])->dtype;
}

/* the op type of the node defining input k of node n */
static const char *
producer(Fix *f, NodeId n, uint32_t k)
{
	Graph *g = dst(f);
	const Arg *a = ir_arg(g, n, k);
	assert_int_equal(a->kind, A_VAL);
	NodeId d = ir_val(g, a->u.v)->def;
	return d ? ir_str(f->m, ir_nodep(g, d)->op) : "(input)";
}

/* Transposed conv keeps output_padding and groups; a missing bias means
 * two inputs. */
static void
test_conv_transposed(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){1, 4, 5, 5});
	ValId w = input(f, "w", DT_F32, 4, (int64_t[]){4, 3, 3, 3});
	NodeId n = node(f, "aten::convolution.default", 1, DT_F32, 4,
	    (int64_t[]){1, 6, 10, 10});
	arg(f, n, arg_val(x));
	arg(f, n, arg_val(w));
	arg(f, n, arg_none());
	arg(f, n, ints(f, (int64_t[]){2, 2}, 2));
	arg(f, n, ints(f, (int64_t[]){1, 1}, 2));
	arg(f, n, ints(f, (int64_t[]){1, 1}, 2));
	arg(f, n, arg_bool(true));
	arg(f, n, ints(f, (int64_t[]){1, 1}, 2));
	arg(f, n, arg_int(2));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Conv"), 0);
	NodeId c = find(f, "ConvTranspose");
	assert_int_equal(ninputs(f, c), 2);
	attr_ints_eq(f, c, "output_padding", (int64_t[]){1, 1}, 2);
	attr_ints_eq(f, c, "pads", (int64_t[]){1, 1, 1, 1}, 4);
	attr_ints_eq(f, c, "strides", (int64_t[]){2, 2}, 2);
	assert_int_equal(attr_int(f, c, "group"), 2);
}

/* padding='same' with an even kernel puts the odd element on the right;
 * an unbatched input gets a batch dim around the Conv */
static void
test_conv_same_unbatched(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, (int64_t[]){2, 8, 8});
	ValId w = input(f, "w", DT_F32, 4, (int64_t[]){3, 2, 4, 3});
	NodeId n = node(f, "aten::conv2d.padding", 1, DT_F32, 3,
	    (int64_t[]){3, 8, 8});
	arg(f, n, arg_val(x));
	arg(f, n, arg_val(w));
	arg(f, n, arg_none());
	arg(f, n, ints(f, (int64_t[]){1}, 1));
	arg(f, n, arg_str(ir_intern(f->m, "same")));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 17), 0);
	NodeId c = find(f, "Conv");
	attr_ints_eq(f, c, "pads", (int64_t[]){1, 1, 2, 1}, 4);
	attr_ints_eq(f, c, "strides", (int64_t[]){1, 1}, 2);
	assert_string_equal(producer(f, c, 0), "Unsqueeze");
	assert_int_equal(count(f, "Squeeze"), 1);
}

/* an unknown padding string is an error, not a silent default */
static void
test_conv_bad_padding(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, (int64_t[]){1, 2, 8});
	ValId w = input(f, "w", DT_F32, 3, (int64_t[]){3, 2, 3});
	NodeId n = node(f, "aten::conv1d.padding", 1, DT_F32, 3,
	    (int64_t[]){1, 3, 8});
	arg(f, n, arg_val(x));
	arg(f, n, arg_val(w));
	arg(f, n, arg_none());
	arg(f, n, ints(f, (int64_t[]){1}, 1));
	arg(f, n, arg_str(ir_intern(f->m, "full")));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), -1);
	assert_non_null(strstr(diags(f), "unknown padding mode 'full'"));
}

/* addmm's beta/alpha become Gemm attributes; beta=0 drops self */
static void
test_addmm_gemm(void **state)
{
	Fix *f = *state;
	ValId b = input(f, "b", DT_F32, 1, (int64_t[]){5});
	ValId a1 = input(f, "a1", DT_F32, 2, (int64_t[]){3, 4});
	ValId a2 = input(f, "a2", DT_F32, 2, (int64_t[]){4, 5});
	NodeId n = node(f, "aten::addmm.default", 1, DT_F32, 2,
	    (int64_t[]){3, 5});
	arg(f, n, arg_val(b));
	arg(f, n, arg_val(a1));
	arg(f, n, arg_val(a2));
	kwarg(f, n, "beta", arg_float(0.5));
	kwarg(f, n, "alpha", arg_int(2));
	NodeId z = node(f, "aten::addmm.default", 1, DT_F32, 2,
	    (int64_t[]){3, 5});
	arg(f, z, arg_val(b));
	arg(f, z, arg_val(a1));
	arg(f, z, arg_val(a2));
	kwarg(f, z, "beta", arg_int(0));
	output(f, out(f, n, 0));
	output(f, out(f, z, 0));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Gemm"), 2);
	NodeId g = find(f, "Gemm");
	assert_int_equal(ninputs(f, g), 3);
	assert_true(attr_float(f, g, "alpha") == 2.0);
	assert_true(attr_float(f, g, "beta") == 0.5);
	Graph *d = dst(f);
	NodeId g2 = ir_val(d, d->outputs[1])->def;
	assert_string_equal(ir_str(f->m, ir_nodep(d, g2)->op), "Gemm");
	assert_int_equal(ninputs(f, g2), 2);
}

/* integer baddbmm has no Gemm: MatMul then scaled terms, in int64 */
static void
test_baddbmm_int(void **state)
{
	Fix *f = *state;
	ValId s = input(f, "s", DT_I64, 3, (int64_t[]){2, 3, 3});
	ValId a = input(f, "a", DT_I64, 3, (int64_t[]){2, 3, 4});
	ValId b = input(f, "b", DT_I64, 3, (int64_t[]){2, 4, 3});
	NodeId n = node(f, "aten::baddbmm.default", 1, DT_I64, 3,
	    (int64_t[]){2, 3, 3});
	arg(f, n, arg_val(s));
	arg(f, n, arg_val(a));
	arg(f, n, arg_val(b));
	kwarg(f, n, "beta", arg_int(3));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Gemm"), 0);
	assert_int_equal(count(f, "MatMul"), 1);
	assert_int_equal(count(f, "Mul"), 1);
	NodeId add = find(f, "Add");
	assert_string_equal(producer(f, add, 0), "Mul");
	assert_string_equal(producer(f, add, 1), "MatMul");
	assert_int_equal(out_dtype(f, 0), DT_I64);
}

/* bf16 products run in f32 and round once at the end, as PyTorch's CPU
 * kernels do */
static void
test_mm_bf16(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_BF16, 2, (int64_t[]){3, 4});
	ValId b = input(f, "b", DT_BF16, 2, (int64_t[]){4, 5});
	NodeId n = node(f, "aten::mm.default", 1, DT_BF16, 2,
	    (int64_t[]){3, 5});
	arg(f, n, arg_val(a));
	arg(f, n, arg_val(b));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	NodeId mm = find(f, "MatMul");
	assert_string_equal(producer(f, mm, 0), "Cast");
	assert_string_equal(producer(f, mm, 1), "Cast");
	assert_int_equal(count(f, "Cast"), 3);
	assert_int_equal(out_dtype(f, 0), DT_BF16);
}

/* eval-mode batch norm is BatchNormalization; absent weight and bias
 * become ones and zeros of the channel count */
static void
test_batch_norm_eval(void **state)
{
	Fix *f = *state;
	int64_t c3[] = {3};
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){2, 3, 4, 4});
	ValId rm = input(f, "rm", DT_F32, 1, c3);
	ValId rv = input(f, "rv", DT_F32, 1, c3);
	NodeId n = node(f, "aten::_native_batch_norm_legit_no_training."
	    "default", 3, DT_F32, 4, (int64_t[]){2, 3, 4, 4});
	arg(f, n, arg_val(x));
	arg(f, n, arg_none());
	arg(f, n, arg_none());
	arg(f, n, arg_val(rm));
	arg(f, n, arg_val(rv));
	arg(f, n, arg_float(0.1));
	arg(f, n, arg_float(1e-3));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	NodeId bn = find(f, "BatchNormalization");
	assert_true(fabs(attr_float(f, bn, "epsilon") - 1e-3) < 1e-12);
	assert_string_equal(producer(f, bn, 1), "Expand");
	assert_string_equal(producer(f, bn, 2), "Expand");
	assert_int_equal(count(f, "ReduceMean"), 0);
}

/* training-mode functional batch norm: batch statistics (axes as an
 * attribute at opset 17) and the updated running stats as outputs 3, 4 */
static void
test_batch_norm_functional_training(void **state)
{
	Fix *f = *state;
	int64_t c3[] = {3};
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){2, 3, 4, 4});
	ValId w = input(f, "w", DT_F32, 1, c3);
	ValId rm = input(f, "rm", DT_F32, 1, c3);
	ValId rv = input(f, "rv", DT_F32, 1, c3);
	NodeId n = node(f, "aten::_native_batch_norm_legit_functional."
	    "default", 5, DT_F32, 4, (int64_t[]){2, 3, 4, 4});
	arg(f, n, arg_val(x));
	arg(f, n, arg_val(w));
	arg(f, n, arg_none());
	arg(f, n, arg_val(rm));
	arg(f, n, arg_val(rv));
	arg(f, n, arg_bool(true));
	arg(f, n, arg_float(0.1));
	arg(f, n, arg_float(1e-5));
	set_type(f, out(f, n, 3), DT_F32, 1, c3);
	set_type(f, out(f, n, 4), DT_F32, 1, c3);
	output(f, out(f, n, 3));
	output(f, out(f, n, 4));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 17), 0);
	assert_int_equal(count(f, "BatchNormalization"), 0);
	NodeId r = find(f, "ReduceMean");
	assert_int_equal(ninputs(f, r), 1);
	attr_ints_eq(f, r, "axes", (int64_t[]){0, 2, 3}, 3);
	/* the unbiased correction n / (n - 1) reads the element count */
	assert_int_equal(count(f, "Size"), 1);
	assert_int_equal(dst(f)->noutputs, 3);
}

/* ... and at opset 18 the axes are an input */
static void
test_batch_norm_training_opset18(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, (int64_t[]){2, 3, 4});
	NodeId n = node(f, "aten::batch_norm.default", 1, DT_F32, 3,
	    (int64_t[]){2, 3, 4});
	arg(f, n, arg_val(x));
	for (int k = 0; k < 4; k++)
		arg(f, n, arg_none());
	arg(f, n, arg_bool(true));
	arg(f, n, arg_float(0.1));
	arg(f, n, arg_float(1e-5));
	arg(f, n, arg_bool(false));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	NodeId r = find(f, "ReduceMean");
	assert_int_equal(ninputs(f, r), 2);
	assert_null(attr(f, r, "axes"));
	assert_int_equal(count(f, "Size"), 0);
}

/* layer norm over the last two dims: axis 1 of a rank-3 input; no weight
 * means ones of the normalized shape */
static void
test_layer_norm_no_weight(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F16, 3, (int64_t[]){2, 5, 6});
	NodeId n = node(f, "aten::native_layer_norm.default", 3, DT_F16, 3,
	    (int64_t[]){2, 5, 6});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){5, 6}, 2));
	arg(f, n, arg_none());
	arg(f, n, arg_none());
	arg(f, n, arg_float(1e-5));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 17), 0);
	NodeId ln = find(f, "LayerNormalization");
	assert_int_equal(attr_int(f, ln, "axis"), 1);
	assert_int_equal(ninputs(f, ln), 2);
	assert_string_equal(producer(f, ln, 0), "Cast");
	assert_string_equal(producer(f, ln, 1), "Expand");
	assert_int_equal(ir_nodep(dst(f), ln)->nout, 1);
	assert_int_equal(out_dtype(f, 0), DT_F16);
}

/* group norm decomposes (GroupNormalization changed at opset 21) */
static void
test_group_norm_decomposed(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){2, 4, 5, 5});
	ValId w = input(f, "w", DT_F32, 1, (int64_t[]){4});
	NodeId n = node(f, "aten::native_group_norm.default", 3, DT_F32, 4,
	    (int64_t[]){2, 4, 5, 5});
	arg(f, n, arg_val(x));
	arg(f, n, arg_val(w));
	arg(f, n, arg_none());
	arg(f, n, arg_int(2));
	arg(f, n, arg_int(4));
	arg(f, n, arg_int(25));
	arg(f, n, arg_int(2));
	arg(f, n, arg_float(1e-5));
	set_type(f, out(f, n, 1), DT_F32, 2, (int64_t[]){2, 2});
	output(f, out(f, n, 0));
	output(f, out(f, n, 1));
	assert_int_equal(lower(f, 21), 0);
	assert_int_equal(count(f, "GroupNormalization"), 0);
	assert_int_equal(count(f, "ReduceMean"), 2);
	Graph *d = dst(f);
	NodeId sq = ir_val(d, d->outputs[1])->def;
	assert_string_equal(ir_str(f->m, ir_nodep(d, sq)->op), "Squeeze");
}

/* PyTorch ceil mode (op_max_pool1d_ceil): width 10, kernel 3, stride 2
 * gives 5 outputs; the end pad grows by one instead of ONNX ceil_mode,
 * and used indices are made per-plane with Mod */
static void
test_max_pool_ceil_indices(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){1, 3, 1, 10});
	NodeId n = node(f, "aten::max_pool2d_with_indices.default", 2,
	    DT_F32, 4, (int64_t[]){1, 3, 1, 5});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){1, 3}, 2));
	arg(f, n, ints(f, (int64_t[]){1, 2}, 2));
	arg(f, n, ints(f, (int64_t[]){0, 0}, 2));
	arg(f, n, ints(f, (int64_t[]){1, 1}, 2));
	arg(f, n, arg_bool(true));
	set_type(f, out(f, n, 1), DT_I64, 4, (int64_t[]){1, 3, 1, 5});
	output(f, out(f, n, 0));
	output(f, out(f, n, 1));
	assert_int_equal(lower(f, 18), 0);
	NodeId p = find(f, "MaxPool");
	assert_int_equal(ir_nodep(dst(f), p)->nout, 2);
	attr_ints_eq(f, p, "pads", (int64_t[]){0, 0, 0, 1}, 4);
	assert_null(attr(f, p, "ceil_mode"));
	assert_int_equal(count(f, "Mod"), 1);
	assert_int_equal(out_dtype(f, 1), DT_I64);
}

/* a ceil-mode window that would start in the right padding is dropped:
 * width 5, kernel 2, stride 2, pad 1 gives 3 outputs, not ONNX's 4, so
 * nothing is extended */
static void
test_max_pool_ceil_dropped_window(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, (int64_t[]){1, 2, 5});
	NodeId n = node(f, "aten::max_pool1d.default", 1, DT_F32, 3,
	    (int64_t[]){1, 2, 3});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){2}, 1));
	arg(f, n, ints(f, (int64_t[]){2}, 1));
	arg(f, n, ints(f, (int64_t[]){1}, 1));
	arg(f, n, ints(f, (int64_t[]){1}, 1));
	arg(f, n, arg_bool(true));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	NodeId p = find(f, "MaxPool");
	attr_ints_eq(f, p, "pads", (int64_t[]){1, 1}, 2);
	assert_null(attr(f, p, "ceil_mode"));
	assert_int_equal(ir_nodep(dst(f), p)->nout, 1);
}

/* avg pool, ceil mode, count_include_pad with padding: the padding is
 * explicit zeros so that it counts while the ceil overhang does not */
static void
test_avg_pool_ceil_count_pad(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){1, 1, 6, 6});
	NodeId n = node(f, "aten::avg_pool2d.default", 1, DT_F32, 4,
	    (int64_t[]){1, 1, 4, 4});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){3, 3}, 2));
	arg(f, n, ints(f, (int64_t[]){2, 2}, 2));
	arg(f, n, ints(f, (int64_t[]){1, 1}, 2));
	arg(f, n, arg_bool(true));
	arg(f, n, arg_bool(true));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	NodeId p = find(f, "AveragePool");
	assert_string_equal(producer(f, p, 0), "Pad");
	assert_int_equal(attr_int(f, p, "count_include_pad"), 0);
	/* 6 + 2 - 3 = 5, ceil(5/2) + 1 = 4 windows: end pad 1 past the
	 * explicit one */
	attr_ints_eq(f, p, "pads", (int64_t[]){0, 0, 1, 1}, 4);
}

/* divisor_override: the windows' mean over the explicitly padded input
 * times kernel size / divisor; a zero divisor is PyTorch's error */
static NodeId
avg_divisor(Fix *f, int64_t div)
{
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){1, 1, 4, 4});
	NodeId n = node(f, "aten::avg_pool2d.default", 1, DT_F32, 4,
	    (int64_t[]){1, 1, 3, 3});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){2, 2}, 2));
	arg(f, n, ints(f, (int64_t[]){2, 2}, 2));
	arg(f, n, ints(f, (int64_t[]){1, 1}, 2));
	arg(f, n, arg_bool(false));
	arg(f, n, arg_bool(true));
	arg(f, n, arg_int(div));
	output(f, out(f, n, 0));
	return n;
}

static void
test_avg_pool_divisor_override(void **state)
{
	Fix *f = *state;
	avg_divisor(f, 3);
	assert_int_equal(lower(f, 18), 0);
	NodeId p = find(f, "AveragePool");
	assert_string_equal(producer(f, p, 0), "Pad");
	attr_ints_eq(f, p, "pads", (int64_t[]){0, 0, 0, 0}, 4);
	assert_true(find(f, "Mul") != 0);
}

static void
test_avg_pool_divisor_zero(void **state)
{
	Fix *f = *state;
	avg_divisor(f, 0);
	assert_int_equal(lower(f, 18), -1);
	assert_non_null(strstr(diags(f), "divisor must be not zero"));
}

/* adaptive pooling: even split -> AveragePool, uneven -> slices */
static void
test_adaptive_avg_pool(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){1, 3, 8, 7});
	NodeId n = node(f, "aten::_adaptive_avg_pool2d.default", 1, DT_F32,
	    4, (int64_t[]){1, 3, 2, 3});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){2, 3}, 2));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "AveragePool"), 0);
	assert_int_equal(count(f, "Slice"), 5);
	assert_int_equal(count(f, "ReduceMean"), 5);
	assert_int_equal(count(f, "Concat"), 2);
}

/* nearest upsampling by scale factors: asymmetric + floor; bilinear with
 * align_corners=True maps corners */
static void
test_upsample_modes(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){1, 2, 3, 3});
	NodeId n = node(f, "aten::upsample_nearest2d.vec", 1, DT_F32, 4,
	    (int64_t[]){1, 2, 6, 6});
	arg(f, n, arg_val(x));
	arg(f, n, arg_none());
	Arg sc[2] = {arg_float(2.0), arg_float(2.0)};
	arg(f, n, ir_list(f->g, A_LIST, sc, 2));
	NodeId b = node(f, "aten::upsample_bilinear2d.vec", 1, DT_F32, 4,
	    (int64_t[]){1, 2, 5, 7});
	arg(f, b, arg_val(x));
	arg(f, b, ints(f, (int64_t[]){5, 7}, 2));
	arg(f, b, arg_bool(true));
	arg(f, b, arg_none());
	output(f, out(f, n, 0));
	output(f, out(f, b, 0));
	assert_int_equal(lower(f, 17), 0);
	assert_int_equal(count(f, "Resize"), 2);
	NodeId r = find(f, "Resize");
	assert_string_equal(attr_str(f, r, "mode"), "nearest");
	assert_string_equal(attr_str(f, r, "coordinate_transformation_mode"),
	    "asymmetric");
	assert_string_equal(attr_str(f, r, "nearest_mode"), "floor");
	assert_int_equal(ninputs(f, r), 3);
	Graph *d = dst(f);
	NodeId r2 = ir_val(d, d->outputs[1])->def;
	assert_string_equal(attr_str(f, r2, "mode"), "linear");
	assert_string_equal(attr_str(f, r2, "coordinate_transformation_mode"),
	    "align_corners");
	/* 3 -> 5 is no whole ratio: sizes from the runtime batch dims */
	assert_int_equal(ninputs(f, r2), 4);
	assert_string_equal(producer(f, r2, 3), "Concat");
}

/* causal attention: the mask compares runtime ranges, fills -inf via
 * Where, and the default scale is 1/sqrt(E) */
static void
test_sdpa_causal(void **state)
{
	Fix *f = *state;
	int64_t s[] = {1, 2, 5, 4};
	ValId q = input(f, "q", DT_F32, 4, s);
	ValId k = input(f, "k", DT_F32, 4, s);
	ValId v = input(f, "v", DT_F32, 4, s);
	NodeId n = node(f, "aten::scaled_dot_product_attention.default", 1,
	    DT_F32, 4, s);
	arg(f, n, arg_val(q));
	arg(f, n, arg_val(k));
	arg(f, n, arg_val(v));
	kwarg(f, n, "is_causal", arg_bool(true));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Range"), 2);
	assert_int_equal(count(f, "LessOrEqual"), 1);
	NodeId w = find(f, "Where");
	assert_string_equal(producer(f, w, 0), "LessOrEqual");
	NodeId sm = find(f, "Softmax");
	assert_int_equal(attr_int(f, sm, "axis"), -1);
	assert_string_equal(producer(f, sm, 0), "Where");
	assert_int_equal(count(f, "MatMul"), 2);
}

static void
test_sdpa_dropout_rejected(void **state)
{
	Fix *f = *state;
	int64_t s[] = {1, 5, 4};
	ValId q = input(f, "q", DT_F32, 3, s);
	NodeId n = node(f, "aten::scaled_dot_product_attention.default", 1,
	    DT_F32, 3, s);
	arg(f, n, arg_val(q));
	arg(f, n, arg_val(q));
	arg(f, n, arg_val(q));
	arg(f, n, arg_none());
	arg(f, n, arg_float(0.1));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), -1);
	assert_non_null(strstr(diags(f), "pass --training"));
}

/* native_dropout in eval: identity and an all-true mask; in training with
 * p > 0: a clear error */
static void
test_native_dropout(void **state)
{
	Fix *f = *state;
	int64_t s[] = {2, 3};
	ValId x = input(f, "x", DT_F32, 2, s);
	NodeId n = node(f, "aten::native_dropout.default", 2, DT_F32, 2, s);
	arg(f, n, arg_val(x));
	arg(f, n, arg_float(0.5));
	arg(f, n, arg_bool(false));
	set_type(f, out(f, n, 1), DT_BOOL, 2, s);
	output(f, out(f, n, 0));
	output(f, out(f, n, 1));
	NodeId t = node(f, "aten::dropout.default", 1, DT_F32, 2, s);
	arg(f, t, arg_val(x));
	arg(f, t, arg_float(0.5));
	arg(f, t, arg_bool(true));
	output(f, out(f, t, 0));
	assert_int_equal(lower(f, 18), -1);
	assert_non_null(strstr(diags(f), "training mode"));
	/* the first node lowered fine before the second failed */
	assert_int_equal(count(f, "Expand"), 1);
	assert_int_equal(count(f, "MatMul"), 0);
}

/* einsum keeps the equation minus spaces; operands come from a list */
static void
test_einsum(void **state)
{
	Fix *f = *state;
	ValId a = input(f, "a", DT_F32, 3, (int64_t[]){2, 3, 4});
	ValId b = input(f, "b", DT_F32, 3, (int64_t[]){2, 4, 5});
	NodeId n = node(f, "aten::einsum.default", 1, DT_F32, 3,
	    (int64_t[]){2, 3, 5});
	arg(f, n, arg_str(ir_intern(f->m, "bij, bjk -> bik")));
	Arg ops[2] = {arg_val(a), arg_val(b)};
	arg(f, n, ir_list(f->g, A_LIST, ops, 2));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	NodeId e = find(f, "Einsum");
	assert_int_equal(ninputs(f, e), 2);
	assert_string_equal(attr_str(f, e, "equation"), "bij,bjk->bik");
}

/* the overload name decides the mode: nearest-exact .default with both
 * per-dimension scales passes them as Resize scales */
static void
test_upsample_exact_default(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F16, 4, (int64_t[]){1, 2, 3, 3});
	NodeId n = node(f, "aten::_upsample_nearest_exact2d.default", 1,
	    DT_F16, 4, (int64_t[]){1, 2, 4, 4});
	arg(f, n, arg_val(x));
	arg(f, n, ints(f, (int64_t[]){4, 4}, 2));
	arg(f, n, arg_float(1.5));
	kwarg(f, n, "scales_w", arg_float(1.5));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	NodeId r = find(f, "Resize");
	assert_int_equal(ninputs(f, r), 3);
	assert_string_equal(attr_str(f, r, "coordinate_transformation_mode"),
	    "half_pixel");
	assert_string_equal(attr_str(f, r, "nearest_mode"),
	    "round_prefer_ceil");
	assert_string_equal(producer(f, r, 0), "Cast");
	assert_int_equal(out_dtype(f, 0), DT_F16);
}

/* grouped-query attention repeats each key/value head for its queries */
static void
test_sdpa_gqa(void **state)
{
	Fix *f = *state;
	ValId q = input(f, "q", DT_F32, 4, (int64_t[]){1, 4, 5, 8});
	ValId k = input(f, "k", DT_F32, 4, (int64_t[]){1, 2, 5, 8});
	NodeId n = node(f, "aten::scaled_dot_product_attention.default", 1,
	    DT_F32, 4, (int64_t[]){1, 4, 5, 8});
	arg(f, n, arg_val(q));
	arg(f, n, arg_val(k));
	arg(f, n, arg_val(k));
	kwarg(f, n, "enable_gqa", arg_bool(true));
	output(f, out(f, n, 0));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count(f, "Expand"), 2);
	assert_int_equal(count(f, "Reshape"), 2);
}

/* every test gets a fresh module */
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_conv_transposed),
		T(test_conv_same_unbatched),
		T(test_conv_bad_padding),
		T(test_addmm_gemm),
		T(test_baddbmm_int),
		T(test_mm_bf16),
		T(test_batch_norm_eval),
		T(test_batch_norm_functional_training),
		T(test_batch_norm_training_opset18),
		T(test_layer_norm_no_weight),
		T(test_group_norm_decomposed),
		T(test_max_pool_ceil_indices),
		T(test_max_pool_ceil_dropped_window),
		T(test_avg_pool_ceil_count_pad),
		T(test_avg_pool_divisor_override),
		T(test_avg_pool_divisor_zero),
		T(test_adaptive_avg_pool),
		T(test_upsample_modes),
		T(test_sdpa_causal),
		T(test_sdpa_dropout_rejected),
		T(test_native_dropout),
		T(test_einsum),
		T(test_upsample_exact_default),
		T(test_sdpa_gqa),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
