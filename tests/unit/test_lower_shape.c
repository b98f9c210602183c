/* test_lower_shape.c - lowering rules for shape, indexing and creation ops:
 * the ONNX nodes they emit for the cases that are easy to get wrong
 * (negative dims, -1 sizes, squeeze of non-1 dims, legacy empty cat inputs,
 * split remainders, symbolic dims, index placement, pad order, dtypes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lower/lower.h"
#include "lower_fixture.h"

/* dims: numbers, or -1 for the symbol s0 */
static void
set_dims(Fix *f, ValId v, DType dt, int rank, const int64_t *dims)
{
	Dim d[8];
	for (int i = 0; i < rank; i++)
		d[i] = dims[i] < 0 ? (Dim){0, ir_expr_sym(f->m, "s0")}
		    : (Dim){dims[i], 0};
	ir_set_tensor(f->g, v, dt, rank, d);
}

static ValId
input(Fix *f, const char *name, DType dt, int rank, const int64_t *dims)
{
	ValId v = ir_value(f->g, ir_intern(f->m, name));
	set_dims(f, v, dt, rank, dims);
	ir_val(f->g, v)->role = ROLE_USER_INPUT;
	ir_add_input(f->g, v);
	return v;
}

static ValId
symint(Fix *f, const char *name)
{
	ValId v = ir_value(f->g, ir_intern(f->m, name));
	Value *p = ir_val(f->g, v);
	p->kind = VK_SYMINT;
	p->sym = ir_expr_sym(f->m, "s0");
	p->role = ROLE_USER_INPUT;
	ir_add_input(f->g, v);
	return v;
}

/* An FX node with nout outputs; output 0 typed dt[rank dims] (rank < 0:
 * no annotation), the others left for the caller. */
static NodeId
node(Fix *f, const char *op, const char *name, uint32_t nout, DType dt,
    int rank, const int64_t *dims)
{
	NodeId n = ir_node(f->g, D_FX, ir_intern(f->m, op), nout);
	Node *p = ir_nodep(f->g, n);
	p->name = ir_intern(f->m, name);
	p->loc = (Loc){n + 1, 5};
	ir_val(f->g, p->out)->name = p->name;
	if (rank >= 0)
		set_dims(f, p->out, dt, rank, dims);
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
	Arg it[16];
	for (int i = 0; i < n; i++)
		it[i] = arg_int(v[i]);
	return ir_list(f->g, A_LIST, it, (uint32_t)n);
}

static Arg
kw(Fix *f, const char *key, Arg a)
{
	return arg_keyed(a, ir_intern(f->m, key));
}

/* Lower at opset; outputs are every node's first output unless given. */
static int
lower(Fix *f, int opset)
{
	if (!f->g->noutputs)
		for (NodeId n = 1; n < f->g->nnodes; n++)
			if (ir_val(f->g, out(f, n, 0))->kind == VK_TENSOR)
				ir_add_output(f->g, out(f, n, 0), OUT_USER, 0);
	return pass_lower(f->m, f->gid, &f->out, opset);
}

static int
count_op(Fix *f, const char *op)
{
	Graph *g = dst(f);
	int c = 0;
	for (NodeId n = 1; n < g->nnodes; n++)
		c += !strcmp(ir_str(f->m, g->nodes[n].op), op);
	return c;
}

/* the k-th (0-based) node of type op, or 0 */
static NodeId
find_op(Fix *f, const char *op, int k)
{
	Graph *g = dst(f);
	for (NodeId n = 1; n < g->nnodes; n++)
		if (!strcmp(ir_str(f->m, g->nodes[n].op), op) && k-- == 0)
			return n;
	return 0;
}

static const Arg *
attr(Fix *f, NodeId n, const char *name)
{
	Graph *g = dst(f);
	const Node *p = ir_nodep(g, n);
	for (uint32_t i = 0; i < p->nargs; i++) {
		const Arg *a = ir_arg(g, n, i);
		if (a->key && !strcmp(ir_str(f->m, a->key), name))
			return a;
	}
	return NULL;
}

static int64_t
attr_int(Fix *f, NodeId n, const char *name)
{
	const Arg *a = attr(f, n, name);
	assert_non_null(a);
	return a->u.i;
}

static int
attr_ints(Fix *f, NodeId n, const char *name, int64_t *v)
{
	const Arg *a = attr(f, n, name);
	assert_non_null(a);
	const Arg *it = ir_items(dst(f), a);
	for (uint32_t i = 0; i < a->u.list.n; i++)
		v[i] = it[i].u.i;
	return (int)a->u.list.n;
}

/* The constant behind input k of node n, or NULL if it is not one. */
static const Tensor *
const_in(Fix *f, NodeId n, uint32_t k)
{
	Graph *g = dst(f);
	const Arg *a = ir_arg(g, n, k);
	if (a->kind != A_VAL)
		return NULL;
	NodeId d = ir_val(g, a->u.v)->def;
	if (!d || strcmp(ir_str(f->m, g->nodes[d].op), "Constant"))
		return NULL;
	const Arg *t = attr(f, d, "value");
	return t ? ir_tensorp(f->m, t->u.t) : NULL;
}

/* Input k of node n is the INT64 constant v[0..cnt). */
static void
assert_const_i64(Fix *f, NodeId n, uint32_t k, const int64_t *v, int cnt)
{
	const Tensor *t = const_in(f, n, k);
	assert_non_null(t);
	assert_int_equal(t->dtype, DT_I64);
	assert_int_equal(ir_numel(t), cnt);
	for (int i = 0; i < cnt; i++)
		assert_int_equal(((const int64_t *)t->data)[i], v[i]);
}

/* the dtype of the ONNX value bound to FX output k of FX node n */
static DType
out_dtype(Fix *f, NodeId n, uint32_t k)
{
	Graph *g = dst(f);
	const char *name = ir_str(f->m, ir_val(f->g, out(f, n, k))->name);
	for (ValId v = 1; v < g->nvals; v++)
		if (!strcmp(ir_str(f->m, g->vals[v].name), name))
			return (DType)g->vals[v].dtype;
	fail_msg("no value named %s", name);
	return DT_UNDEF;
}

static const int64_t D234[] = {2, 3, 4};

static void
test_view_static_symint_and_zero(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, D234);
	ValId s = symint(f, "n");
	NodeId v = node(f, "aten::view.default", "view", 1, DT_F32, 2,
	    (int64_t[]){6, 4});
	arg(f, v, arg_val(x));
	arg(f, v, ints(f, (int64_t[]){-1, 4}, 2));
	NodeId r = node(f, "aten::reshape.default", "r", 1, DT_F32, 2,
	    (int64_t[]){-1, 4});
	arg(f, r, arg_val(x));
	Arg it[2] = {arg_val(s), arg_int(4)};
	arg(f, r, ir_list(f->g, A_LIST, it, 2));
	/* a literal 0 needs an empty input: torch checks numels; the output
	 * annotated [0, s0], not all static (else it is a constant, below) */
	ValId e = input(f, "e", DT_F32, 2, (int64_t[]){0, 6});
	NodeId z = node(f, "aten::view.default", "z", 1, DT_F32, 2,
	    (int64_t[]){0, 3});
	ir_set_tensor(f->g, ir_nodep(f->g, z)->out, DT_F32, 2, (Dim[]){{0, 0},
	    {0, ir_expr_sym(f->m, "s0")}});
	arg(f, z, arg_val(e));
	arg(f, z, ints(f, (int64_t[]){0, 3}, 2));
	/* an output of static sizes with no element is an empty constant
	 * once the rule checked the node: no Reshape */
	NodeId z2 = node(f, "aten::view.default", "z2", 1, DT_F32, 3,
	    (int64_t[]){0, 2, 3});
	arg(f, z2, arg_val(e));
	arg(f, z2, ints(f, (int64_t[]){0, 2, 3}, 3));
	output(f, ir_nodep(f->g, z2)->out);
	assert_int_equal(lower(f, 18), 0);
	const Graph *d = dst(f);
	ValId o = d->outputs[0];
	assert_true(d->vals[o].def);
	assert_string_equal(ir_str(f->m, d->nodes[d->vals[o].def].op),
	    "Constant");
	assert_int_equal(d->vals[o].rank, 3);
	assert_int_equal(count_op(f, "Reshape"), 3);
	NodeId a = find_op(f, "Reshape", 0);
	assert_const_i64(f, a, 1, (int64_t[]){-1, 4}, 2);
	assert_null(attr(f, a, "allowzero"));
	/* the SymInt size is read at run time */
	assert_null(const_in(f, find_op(f, "Reshape", 1), 1));
	assert_int_equal(count_op(f, "Concat"), 1);
	/* a literal 0 is an empty dim in torch, not "copy" */
	assert_int_equal(attr_int(f, find_op(f, "Reshape", 2), "allowzero"),
	    1);
}

static void
test_transpose_negative_and_permute(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, D234);
	NodeId t = node(f, "aten::transpose.int", "t", 1, DT_F32, 3,
	    (int64_t[]){2, 4, 3});
	arg(f, t, arg_val(x));
	arg(f, t, arg_int(-2));
	arg(f, t, arg_int(-1));
	NodeId p = node(f, "aten::permute.default", "p", 1, DT_F32, 3,
	    (int64_t[]){4, 2, 3});
	arg(f, p, arg_val(x));
	arg(f, p, ints(f, (int64_t[]){-1, 0, 1}, 3));
	assert_int_equal(lower(f, 18), 0);
	int64_t perm[8];
	assert_int_equal(attr_ints(f, find_op(f, "Transpose", 0), "perm",
	    perm), 3);
	assert_int_equal(perm[0], 0);
	assert_int_equal(perm[1], 2);
	assert_int_equal(perm[2], 1);
	attr_ints(f, find_op(f, "Transpose", 1), "perm", perm);
	assert_int_equal(perm[0], 2);
	assert_int_equal(perm[1], 0);
	assert_int_equal(perm[2], 1);
}

static void
test_expand_minus_one(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){2, 1, 3, 4});
	ValId s = symint(f, "n");
	NodeId e = node(f, "aten::expand.default", "e", 1, DT_F32, 5,
	    (int64_t[]){5, 2, 3, 3, 4});
	arg(f, e, arg_val(x));
	arg(f, e, ints(f, (int64_t[]){5, -1, 3, -1, -1}, 5));
	NodeId e2 = node(f, "aten::expand.default", "e2", 1, DT_F32, 4,
	    (int64_t[]){2, -1, 3, 4});
	arg(f, e2, arg_val(x));
	Arg it[4] = {arg_int(-1), arg_val(s), arg_int(-1), arg_int(-1)};
	arg(f, e2, ir_list(f->g, A_LIST, it, 4));
	assert_int_equal(lower(f, 18), 0);
	/* -1 keeps the dim: a 1 under ONNX broadcasting */
	assert_const_i64(f, find_op(f, "Expand", 0), 1,
	    (int64_t[]){5, 1, 3, 1, 1}, 5);
	/* with a SymInt the list is built at run time, -1 -> Abs -> 1 */
	assert_int_equal(count_op(f, "Abs"), 1);
}

static void
test_squeeze_only_size_one(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){2, 1, -1, 1});
	NodeId a = node(f, "aten::squeeze.default", "a", 1, DT_F32, 2,
	    (int64_t[]){2, -1});
	arg(f, a, arg_val(x));
	NodeId b = node(f, "aten::squeeze.dim", "b", 1, DT_F32, 4,
	    (int64_t[]){2, 1, -1, 1});
	arg(f, b, arg_val(x));
	arg(f, b, arg_int(0)); /* size 2: left alone */
	NodeId c = node(f, "aten::squeeze.dims", "c", 1, DT_F32, 3,
	    (int64_t[]){2, -1, 1});
	arg(f, c, arg_val(x));
	arg(f, c, ints(f, (int64_t[]){-3, 0}, 2));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count_op(f, "Squeeze"), 2);
	assert_const_i64(f, find_op(f, "Squeeze", 0), 1, (int64_t[]){1, 3},
	    2);
	assert_const_i64(f, find_op(f, "Squeeze", 1), 1, (int64_t[]){1}, 1);
	assert_int_equal(count_op(f, "Identity"), 1);
}

static void
test_cat_skips_legacy_empty_and_casts(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){2, 3});
	ValId y = input(f, "y", DT_I64, 2, (int64_t[]){2, 5});
	ValId e = input(f, "e", DT_F32, 1, (int64_t[]){0});
	NodeId c = node(f, "aten::cat.default", "c", 1, DT_F32, 2,
	    (int64_t[]){2, 8});
	Arg it[3] = {arg_val(x), arg_val(e), arg_val(y)};
	arg(f, c, ir_list(f->g, A_LIST, it, 3));
	arg(f, c, arg_int(-1));
	assert_int_equal(lower(f, 18), 0);
	NodeId n = find_op(f, "Concat", 0);
	assert_int_equal(ir_nodep(dst(f), n)->nargs, 3); /* 2 inputs + axis */
	assert_int_equal(attr_int(f, n, "axis"), 1);
	assert_int_equal(attr_int(f, find_op(f, "Cast", 0), "to"), DT_F32);
	assert_int_equal(out_dtype(f, c, 0), DT_F32);
}

static void
test_split_remainder_and_symbolic(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){5, 3});
	ValId y = input(f, "y", DT_F32, 2, (int64_t[]){-1, 3});
	NodeId s = node(f, "aten::split.Tensor", "s", 3, DT_F32, 2,
	    (int64_t[]){2, 3});
	set_dims(f, out(f, s, 1), DT_F32, 2, (int64_t[]){2, 3});
	set_dims(f, out(f, s, 2), DT_F32, 2, (int64_t[]){1, 3});
	arg(f, s, arg_val(x));
	arg(f, s, arg_int(2));
	NodeId t = node(f, "aten::split.Tensor", "t", 2, DT_F32, 2,
	    (int64_t[]){2, 3});
	set_dims(f, out(f, t, 1), DT_F32, 2, (int64_t[]){-1, 3});
	arg(f, t, arg_val(y));
	arg(f, t, arg_int(2));
	ir_add_output(f->g, out(f, s, 2), OUT_USER, 0);
	ir_add_output(f->g, out(f, t, 1), OUT_USER, 0);
	assert_int_equal(lower(f, 17), 0);
	NodeId n = find_op(f, "Split", 0);
	assert_int_equal(ir_nodep(dst(f), n)->nout, 3);
	assert_const_i64(f, n, 1, (int64_t[]){2, 2, 1}, 3);
	assert_int_equal(attr_int(f, n, "axis"), 0);
	/* symbolic dim: one Slice per FX output, ONNX clamps the last */
	assert_int_equal(count_op(f, "Split"), 1);
	assert_int_equal(count_op(f, "Slice"), 2);
	assert_const_i64(f, find_op(f, "Slice", 1), 1, (int64_t[]){2}, 1);
	assert_const_i64(f, find_op(f, "Slice", 1), 2, (int64_t[]){4}, 1);
}

static void
test_slice_full_is_identity_and_step(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){3, 2});
	NodeId a = node(f, "aten::slice.Tensor", "a", 1, DT_F32, 2,
	    (int64_t[]){3, 2});
	arg(f, a, arg_val(x));
	arg(f, a, arg_int(0));
	arg(f, a, arg_int(0));
	arg(f, a, arg_int(INT64_MAX));
	NodeId b = node(f, "aten::slice.Tensor", "b", 1, DT_F32, 2,
	    (int64_t[]){3, 1});
	arg(f, b, arg_val(x));
	arg(f, b, arg_int(-1));
	arg(f, b, arg_int(1));
	arg(f, b, arg_int(INT64_MAX));
	arg(f, b, arg_int(2));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count_op(f, "Slice"), 1);
	assert_int_equal(count_op(f, "Identity"), 1);
	NodeId n = find_op(f, "Slice", 0);
	assert_const_i64(f, n, 1, (int64_t[]){1}, 1);
	assert_const_i64(f, n, 2, (int64_t[]){INT64_MAX}, 1);
	assert_const_i64(f, n, 3, (int64_t[]){1}, 1);
	assert_const_i64(f, n, 4, (int64_t[]){2}, 1);
}

static void
test_index_single_and_adjacent(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){2, 3, 4, 5});
	ValId i = input(f, "i", DT_I64, 1, (int64_t[]){6});
	ValId j = input(f, "j", DT_I64, 2, (int64_t[]){2, 6});
	NodeId a = node(f, "aten::index.Tensor", "a", 1, DT_F32, 4,
	    (int64_t[]){2, 6, 4, 5});
	arg(f, a, arg_val(x));
	Arg ia[2] = {arg_none(), arg_val(i)};
	arg(f, a, ir_list(f->g, A_LIST, ia, 2));
	/* x[:, i, j]: adjacent, so the broadcast dims [2, 6] stay at 1 */
	NodeId b = node(f, "aten::index.Tensor", "b", 1, DT_F32, 4,
	    (int64_t[]){2, 2, 6, 5});
	arg(f, b, arg_val(x));
	Arg ib[3] = {arg_none(), arg_val(i), arg_val(j)};
	arg(f, b, ir_list(f->g, A_LIST, ib, 3));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(attr_int(f, find_op(f, "Gather", 0), "axis"), 1);
	assert_int_equal(count_op(f, "GatherND"), 1);
	int64_t perm[8];
	/* x moved to [3, 4, 2, 5], gathered to [2, 6, 2, 5], put back */
	attr_ints(f, find_op(f, "Transpose", 0), "perm", perm);
	assert_int_equal(perm[0], 1);
	assert_int_equal(perm[1], 2);
	assert_int_equal(perm[2], 0);
	assert_int_equal(perm[3], 3);
	assert_int_equal(attr_ints(f, find_op(f, "Transpose", 1), "perm",
	    perm), 4);
	assert_int_equal(perm[0], 2);
	assert_int_equal(perm[1], 0);
	assert_int_equal(perm[2], 1);
	assert_int_equal(perm[3], 3);
	/* the shapes differ, so the indices are broadcast first */
	assert_int_equal(count_op(f, "Expand"), 2);
}

static void
test_index_bool_mask(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){3, 4});
	ValId m = input(f, "m", DT_BOOL, 2, (int64_t[]){3, 4});
	NodeId a = node(f, "aten::index.Tensor", "a", 1, DT_F32, 1,
	    (int64_t[]){-1});
	arg(f, a, arg_val(x));
	Arg ia[1] = {arg_val(m)};
	arg(f, a, ir_list(f->g, A_LIST, ia, 1));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count_op(f, "NonZero"), 1);
	assert_int_equal(count_op(f, "GatherND"), 1);
}

static void
test_constant_pad_order_and_crop(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F16, 3, D234);
	NodeId p = node(f, "aten::constant_pad_nd.default", "p", 1, DT_F16, 3,
	    (int64_t[]){2, 4, 3});
	arg(f, p, arg_val(x));
	arg(f, p, ints(f, (int64_t[]){-1, 0, 1, 0}, 4));
	arg(f, p, arg_float(2.5));
	assert_int_equal(lower(f, 18), 0);
	NodeId n = find_op(f, "Pad", 0);
	/* [begins per dim, ends per dim]; the last dim's -1 is a crop */
	assert_const_i64(f, n, 1, (int64_t[]){0, 1, 0, 0, 0, 0}, 6);
	/* the fill value is float16's 2.5; ONNX Runtime's CPU pads no half
	 * type, so the Pad runs in float32 (exact) and its result is cast
	 * back */
	Graph *g = dst(f);
	const Arg *fill = ir_arg(g, n, 2);
	assert_int_equal(fill->kind, A_VAL);
	assert_int_equal(ir_val(g, fill->u.v)->dtype, DT_F32);
	NodeId c = ir_val(g, fill->u.v)->def;
	assert_string_equal(ir_str(f->m, g->nodes[c].op), "Cast");
	const Tensor *v = const_in(f, c, 0);
	assert_non_null(v);
	assert_int_equal(v->dtype, DT_F16);
	assert_int_equal(ir_val(g, g->nodes[n].out)->dtype, DT_F32);
	NodeId s = find_op(f, "Slice", 0);
	assert_const_i64(f, s, 1, (int64_t[]){1}, 1);
	assert_const_i64(f, s, 3, (int64_t[]){2}, 1);
}

static void
test_circular_pad_without_pad_op(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, D234);
	NodeId p = node(f, "aten::pad.default", "p", 1, DT_F32, 3,
	    (int64_t[]){2, 3, 7});
	arg(f, p, arg_val(x));
	arg(f, p, ints(f, (int64_t[]){1, 2}, 2));
	arg(f, p, arg_str(ir_intern(f->m, "circular")));
	NodeId q = node(f, "aten::reflection_pad1d.default", "q", 1, DT_F32,
	    3, (int64_t[]){2, 3, 6});
	arg(f, q, arg_val(x));
	arg(f, q, ints(f, (int64_t[]){1, 1}, 2));
	assert_int_equal(lower(f, 17), 0);
	/* "wrap" needs opset 19: circular is Slice+Concat */
	assert_int_equal(count_op(f, "Pad"), 1);
	assert_int_equal(count_op(f, "Concat"), 1);
	const Arg *m = attr(f, find_op(f, "Pad", 0), "mode");
	assert_string_equal(ir_str(f->m, m->u.s), "reflect");
}

static void
test_arange_constants_and_dtype(void **state)
{
	Fix *f = *state;
	NodeId a = node(f, "aten::arange.start_step", "a", 1, DT_I64, 1,
	    (int64_t[]){4});
	arg(f, a, arg_int(0));
	arg(f, a, arg_int(12));
	arg(f, a, arg_int(3));
	NodeId b = node(f, "aten::arange.default", "b", 1, DT_F32, 1,
	    (int64_t[]){2});
	arg(f, b, arg_float(1.5));
	arg(f, b, kw(f, "dtype", (Arg){.kind = A_DTYPE, .u.i = DT_F32}));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count_op(f, "Range"), 0);
	assert_int_equal(out_dtype(f, a, 0), DT_I64);
	assert_int_equal(out_dtype(f, b, 0), DT_F32);
	/* the integer range is an exact constant */
	Graph *g = dst(f);
	bool found = false;
	for (NodeId n = 1; n < g->nnodes; n++) {
		if (strcmp(ir_str(f->m, g->nodes[n].op), "Constant"))
			continue;
		const Tensor *t = ir_tensorp(f->m, attr(f, n, "value")->u.t);
		if (t->dtype == DT_I64 && ir_numel(t) == 4) {
			const int64_t *v = t->data;
			assert_int_equal(v[3], 9);
			found = true;
		}
	}
	assert_true(found);
}

static void
test_arange_symbolic_is_range(void **state)
{
	Fix *f = *state;
	ValId s = symint(f, "n");
	NodeId a = node(f, "aten::arange.start", "a", 1, DT_F32, 1,
	    (int64_t[]){-1});
	arg(f, a, arg_int(1));
	arg(f, a, arg_val(s));
	assert_int_equal(lower(f, 18), 0);
	NodeId r = find_op(f, "Range", 0);
	assert_int_not_equal(r, 0);
	assert_int_equal(ir_val(dst(f), ir_nodep(dst(f), r)->out)->dtype,
	    DT_I64);
	assert_int_equal(out_dtype(f, a, 0), DT_F32);
}

static void
test_full_dtype_and_symbolic_size(void **state)
{
	Fix *f = *state;
	ValId s = symint(f, "n");
	NodeId a = node(f, "aten::full.default", "a", 1, DT_I64, 2,
	    (int64_t[]){-1, 5});
	Arg it[2] = {arg_val(s), arg_int(5)};
	arg(f, a, ir_list(f->g, A_LIST, it, 2));
	arg(f, a, arg_int(7));
	NodeId z = node(f, "aten::zeros.default", "z", 1, DT_BOOL, 1,
	    (int64_t[]){6});
	arg(f, z, ints(f, (int64_t[]){6}, 1));
	arg(f, z, kw(f, "device", (Arg){.kind = A_DEVICE,
	    .u.s = ir_intern(f->m, "cpu")}));
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count_op(f, "Expand"), 2);
	const Tensor *v = const_in(f, find_op(f, "Expand", 0), 0);
	assert_int_equal(v->dtype, DT_I64);
	assert_int_equal(*(const int64_t *)v->data, 7);
	assert_null(const_in(f, find_op(f, "Expand", 0), 1));
	v = const_in(f, find_op(f, "Expand", 1), 0);
	assert_int_equal(v->dtype, DT_BOOL);
}

static void
test_item_symint_and_noops(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I32, 0, NULL);
	NodeId it = node(f, "aten::item.default", "item", 1, DT_UNDEF, -1,
	    NULL);
	Value *iv = ir_val(f->g, out(f, it, 0));
	iv->kind = VK_SYMINT;
	iv->sym = ir_expr_sym(f->m, "u0");
	arg(f, it, arg_val(x));
	NodeId c = node(f, "aten::sym_constrain_range_for_size.default", "c", 1,
	    DT_UNDEF, -1, NULL);
	arg(f, c, arg_val(out(f, it, 0)));
	NodeId z = node(f, "aten::zeros.default", "z", 1, DT_F32, 2,
	    (int64_t[]){-1, 5});
	Arg sz[2] = {arg_val(out(f, it, 0)), arg_int(5)};
	arg(f, z, ir_list(f->g, A_LIST, sz, 2));
	ir_add_output(f->g, out(f, z, 0), OUT_USER, 0);
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count_op(f, "Reshape"), 1);
	assert_int_equal(attr_int(f, find_op(f, "Cast", 0), "to"), DT_I64);
	assert_int_equal(out_dtype(f, it, 0), DT_I64);
	assert_int_equal(count_op(f, "Expand"), 1);
}

static void
test_roll_and_flip(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 3, D234);
	NodeId r = node(f, "aten::roll.default", "r", 1, DT_F32, 3, D234);
	arg(f, r, arg_val(x));
	arg(f, r, ints(f, (int64_t[]){-5}, 1));
	arg(f, r, ints(f, (int64_t[]){2}, 1));
	NodeId fl = node(f, "aten::flip.default", "fl", 1, DT_F32, 3, D234);
	arg(f, fl, arg_val(x));
	arg(f, fl, ints(f, (int64_t[]){-1}, 1));
	assert_int_equal(lower(f, 18), 0);
	/* roll by -5 on a dim of 4 is a roll by 3: x[1:] then x[:1] */
	assert_const_i64(f, find_op(f, "Slice", 0), 1, (int64_t[]){1}, 1);
	assert_const_i64(f, find_op(f, "Slice", 1), 2, (int64_t[]){1}, 1);
	NodeId s = find_op(f, "Slice", 2);
	assert_const_i64(f, s, 1, (int64_t[]){-1}, 1);
	assert_const_i64(f, s, 2, (int64_t[]){INT64_MIN}, 1);
	assert_const_i64(f, s, 3, (int64_t[]){2}, 1);
	assert_const_i64(f, s, 4, (int64_t[]){-1}, 1);
}

/* as_strided over part of a tensor: a Gather of the flattened storage at
 * the offsets; offsets past the storage are PyTorch's error */
static NodeId
strided(Fix *f, int64_t off)
{
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){3, 4});
	NodeId a = node(f, "aten::as_strided.default", "a", 1, DT_F32, 2,
	    (int64_t[]){2, 2});
	arg(f, a, arg_val(x));
	arg(f, a, ints(f, (int64_t[]){2, 2}, 2));
	arg(f, a, ints(f, (int64_t[]){1, 2}, 2));
	arg(f, a, arg_int(off));
	ir_add_output(f->g, out(f, a, 0), OUT_USER, 0);
	return a;
}

static void
test_as_strided_part_gathers(void **state)
{
	Fix *f = *state;
	strided(f, 1);
	assert_int_equal(lower(f, 18), 0);
	NodeId g = find_op(f, "Gather", 0);
	assert_const_i64(f, g, 1, (int64_t[]){1, 3, 2, 4}, 4);
}

static void
test_as_strided_past_storage(void **state)
{
	Fix *f = *state;
	strided(f, 9);
	assert_int_equal(lower(f, 18), -1);
	assert_non_null(strstr(diags(f), "setStorage"));
}

/* ConvNeXt's core form: as_strided(mean, [s0, 32, 1, 1], [32, 1, 32, 32])
 * views the whole tensor (a symbolic batch, any stride on size-1 dims);
 * another stride for the symbolic dim is a view of overlapping rows,
 * gathered at offsets computed at run time. */
static void
test_as_strided_symbolic_identity(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 4, (int64_t[]){-1, 32, 1, 1});
	ValId n0 = symint(f, "n0");
	Arg size[4] = {arg_val(n0), arg_int(32), arg_int(1), arg_int(1)};
	NodeId a = node(f, "aten::as_strided.default", "a", 1, DT_F32, 4,
	    (int64_t[]){-1, 32, 1, 1});
	arg(f, a, arg_val(x));
	arg(f, a, ir_list(f->g, A_LIST, size, 4));
	arg(f, a, ints(f, (int64_t[]){32, 1, 32, 32}, 4));
	ir_add_output(f->g, out(f, a, 0), OUT_USER, 0);
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count_op(f, "Reshape") + count_op(f, "Slice"), 0);
}

static void
test_as_strided_symbolic_overlapping(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){-1, 32});
	ValId n0 = symint(f, "n0");
	Arg size[2] = {arg_val(n0), arg_int(32)};
	NodeId a = node(f, "aten::as_strided.default", "a", 1, DT_F32, 2,
	    (int64_t[]){-1, 32});
	arg(f, a, arg_val(x));
	arg(f, a, ir_list(f->g, A_LIST, size, 2));
	arg(f, a, ints(f, (int64_t[]){16, 1}, 2));
	ir_add_output(f->g, out(f, a, 0), OUT_USER, 0);
	assert_int_equal(lower(f, 18), 0);
	assert_int_equal(count_op(f, "Gather") > 0, 1);
	assert_int_equal(count_op(f, "Range"), 2);
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_view_static_symint_and_zero),
		T(test_transpose_negative_and_permute),
		T(test_expand_minus_one),
		T(test_squeeze_only_size_one),
		T(test_cat_skips_legacy_empty_and_casts),
		T(test_split_remainder_and_symbolic),
		T(test_slice_full_is_identity_and_step),
		T(test_index_single_and_adjacent),
		T(test_index_bool_mask),
		T(test_constant_pad_order_and_crop),
		T(test_circular_pad_without_pad_op),
		T(test_arange_constants_and_dtype),
		T(test_arange_symbolic_is_range),
		T(test_full_dtype_and_symbolic_size),
		T(test_item_symint_and_noops),
		T(test_roll_and_flip),
		T(test_as_strided_part_gathers),
		T(test_as_strided_past_storage),
		T(test_as_strided_symbolic_identity),
		T(test_as_strided_symbolic_overlapping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
