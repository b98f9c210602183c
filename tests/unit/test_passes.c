/* test_passes.c - the built-in plugin passes fold, cse, dce and
 * retype-int-div, and the early exits of inline, functionalize and
 * decompose, loaded as modules (<build>/plugins/<name>.so, next to onnxc)
 * and run by the real pass manager on small graphs built here, in both
 * dialects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/pipeline.h"
#include "pass_fixture.h"

static const int64_t d23[] = {2, 3}, d32[] = {3, 2}, d6[] = {6}, d3[] = {3};
static const float w23[] = {1, 2, 3, 4, 5, 6};

/* ----------------------------------------------------------------- dce */

static void
dce_removes_dead_pure_nodes(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId a = fx(f, "aten::relu.default", "a", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	fx(f, "aten::neg.default", "b", DT_F32, 1, d3, 1, (Arg[]){arg_val(a)});
	ValId y = fx(f, "aten::sin.default", "y", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	fx(f, "aten::_assert_scalar.default", "as", DT_UNDEF, -1, NULL, 2,
	    (Arg[]){arg_bool(true), arg_str(ir_intern(f->m, "msg"))});
	fx(f, "mylib::log.default", "c", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	fx(f, "higher_order::with_effects", "e", DT_UNDEF, -1, NULL, 1,
	    (Arg[]){arg_val(x)});
	output(f, y);
	assert_int_equal(run(f, "dce", false), 0);
	/* the relu -> neg chain goes in one pass, and so does the assert */
	assert_int_equal(count_op(f, "aten::relu.default"), 0);
	assert_int_equal(count_op(f, "aten::neg.default"), 0);
	assert_int_equal(count_op(f, "aten::_assert_scalar.default"), 0);
	assert_int_equal(count_op(f, "aten::sin.default"), 1);
	assert_int_equal(count_op(f, "mylib::log.default"), 1);
	assert_int_equal(count_op(f, "higher_order::with_effects"), 1);
	assert_int_equal(f->g->nnodes - 1, 3);
}

/* Pass `name` run on the graph with a host table of ABI 1.4 (no
 * graph_ops, node_read): the paths a plugin takes with an older onnxc. */
static onnxc_status
run_on_abi_1_4(Fix *f, const char *name)
{
	const PlPass *p = pl_find_pass(f->reg, name, strlen(name));
	onnxc_host_api old = pl_host;
	old.size = offsetof(onnxc_host_api, graph_ops);
	onnxc_ctx c;
	pl_ctx_init(&c, f->m, f->reg);
	c.graph = f->gid;
	c.pass = p;
	c.opts = p->dflt;
	onnxc_status st = p->info.run(&c, &old, p->info.user);
	pl_ctx_fini(&c);
	return st;
}

/* The fixture afresh, with module `mod` alone loaded. */
static void
reset_with(Fix *f, const char *mod)
{
	pl_registry_free(f->reg);
	fclose(f->m->diagout);
	free(f->diag);
	f->diag = NULL;
	ir_free(f->m);
	f->m = ir_module_new();
	f->m->diagout = open_memstream(&f->diag, &f->diaglen);
	f->reg = pl_registry_new(f->m);
	char path[4200];
	snprintf(path, sizeof path, "%s/%s.so", plugdir, mod);
	assert_int_equal(pl_load(f->reg, path), 0);
	f->gid = ir_graph_new(f->m, "main", 0);
	f->g = ir_graph(f->m, f->gid);
}

/* The same graph on a host keeping the counts (ABI 1.5) and on one whose
 * counts dce takes itself: the same nodes go. */
static void
dce_on_either_host(void **state)
{
	Fix *f = *state;
	for (int old = 0; old < 2; old++) {
		reset_with(f, "dce");
		ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
		ValId a = fx(f, "aten::relu.default", "a", DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(x)});
		Arg l[2] = {arg_val(a), arg_val(x)};
		fx(f, "aten::cat.default", "b", DT_F32, 1, d6, 1,
		    (Arg[]){ir_list(f->g, A_LIST, l, 2)});
		ValId y = fx(f, "aten::sin.default", "y", DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(x)});
		fx(f, "aten::cos.default", "c", DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(y)});
		fx(f, "mylib::log.default", "m", DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(a)});
		output(f, y);
		if (old)
			assert_int_equal(run_on_abi_1_4(f, "dce"), ONNXC_OK);
		else
			assert_int_equal(run(f, "dce", false), 0);
		/* relu stays for mylib's node; cat and cos go */
		assert_int_equal(count_op(f, "aten::cat.default"), 0);
		assert_int_equal(count_op(f, "aten::cos.default"), 0);
		assert_int_equal(count_op(f, "aten::relu.default"), 1);
		assert_int_equal(count_op(f, "aten::sin.default"), 1);
		assert_int_equal(count_op(f, "mylib::log.default"), 1);
	}
}

static void
dce_onnx_keeps_custom_domains(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId a = node(f, D_ONNX, "Relu", "a", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	node(f, D_ONNX, "Neg", "b", DT_F32, 1, d3, 1, (Arg[]){arg_val(a)});
	ValId c = node(f, D_ONNX, "Gelu", "c", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	ir_nodep(f->g, ir_val(f->g, c)->def)->domain =
	    ir_intern(f->m, "com.microsoft");
	ValId y = node(f, D_ONNX, "Sin", "y", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	output(f, y);
	assert_int_equal(run(f, "dce", false), 0);
	assert_int_equal(count_op(f, "Relu"), 0);
	assert_int_equal(count_op(f, "Neg"), 0);
	assert_int_equal(count_op(f, "Gelu"), 1);
	assert_int_equal(count_op(f, "Sin"), 1);
}

/* ----------------------------------------------------------------- cse */

static void
cse_merges_equal_nodes(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId a = fx(f, "aten::view.default", "a", DT_F32, 1, d6, 2,
	    (Arg[]){arg_val(x), ints(f, 1, d6)});
	ValId b = fx(f, "aten::view.default", "b", DT_F32, 1, d6, 2,
	    (Arg[]){arg_val(x), ints(f, 1, d6)});
	ValId c = fx(f, "aten::view.default", "c", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(x), ints(f, 2, d32)});
	/* equal once a and b are one: merging follows through */
	ValId ra = fx(f, "aten::relu.default", "ra", DT_F32, 1, d6, 1,
	    (Arg[]){arg_val(a)});
	ValId rb = fx(f, "aten::relu.default", "rb", DT_F32, 1, d6, 1,
	    (Arg[]){arg_val(b)});
	ValId s = fx(f, "aten::add.Tensor", "s", DT_F32, 1, d6, 2,
	    (Arg[]){arg_val(ra), arg_val(rb)});
	/* users in lists follow too */
	Arg parts[2] = {arg_val(ra), arg_val(rb)};
	ValId cc = fx(f, "aten::cat.default", "cc", DT_F32, 1,
	    (int64_t[]){12}, 1, (Arg[]){ir_list(f->g, A_LIST, parts, 2)});
	output(f, s);
	output(f, c);
	output(f, cc);
	assert_int_equal(run(f, "cse,dce", false), 0);
	assert_int_equal(count_op(f, "aten::view.default"), 2);
	assert_int_equal(count_op(f, "aten::relu.default"), 1);
	NodeId add = find_op(f, "aten::add.Tensor");
	assert_int_not_equal(add, 0);
	assert_int_equal(operand(f, add, 0), operand(f, add, 1));
	const Arg *l = ir_arg(f->g, find_op(f, "aten::cat.default"), 0);
	assert_int_equal(l->kind, A_LIST);
	const Arg *it = ir_items(f->g, l);
	assert_int_equal(it[0].u.v, operand(f, add, 0));
	assert_int_equal(it[1].u.v, operand(f, add, 0));
}

static void
cse_leaves_random_and_outputs(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId r1 = fx(f, "aten::rand_like.default", "r1", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	ValId r2 = fx(f, "aten::rand_like.default", "r2", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	ValId s = fx(f, "aten::add.Tensor", "s", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(r1), arg_val(r2)});
	/* both outputs: merging would rename one of the model's outputs */
	ValId o1 = fx(f, "aten::cos.default", "o1", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	ValId o2 = fx(f, "aten::cos.default", "o2", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	/* the same op with different unbacked sizes stays apart */
	ValId n1 = fx(f, "aten::nonzero.default", "n1", DT_I64, -1, NULL, 1,
	    (Arg[]){arg_val(x)});
	ValId n2 = fx(f, "aten::nonzero.default", "n2", DT_I64, -1, NULL, 1,
	    (Arg[]){arg_val(x)});
	Dim u0[2] = {{0, ir_expr_sym(f->m, "u0")}, {1, 0}};
	Dim u1[2] = {{0, ir_expr_sym(f->m, "u1")}, {1, 0}};
	ir_set_tensor(f->g, n1, DT_I64, 2, u0);
	ir_set_tensor(f->g, n2, DT_I64, 2, u1);
	ValId nn = fx(f, "aten::add.Tensor", "nn", DT_I64, -1, NULL, 2,
	    (Arg[]){arg_val(n1), arg_val(n2)});
	output(f, s);
	output(f, o1);
	output(f, o2);
	output(f, nn);
	assert_int_equal(run(f, "cse", false), 0);
	assert_int_equal(count_op(f, "aten::rand_like.default"), 2);
	assert_int_equal(count_op(f, "aten::cos.default"), 2);
	assert_int_equal(count_op(f, "aten::nonzero.default"), 2);
}

static void
cse_onnx_constants_by_bytes(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	const float one = 1, two = 2;
	ValId k[3];
	const float *vals[3] = {&one, &one, &two};
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "k%d", i);
		Tensor t = {.dtype = DT_F32, .rank = 0, .data = vals[i],
			.nbytes = 4};
		k[i] = node(f, D_ONNX, "Constant", name, DT_F32, 0, NULL, 1,
		    (Arg[]){kw(f, "value", (Arg){.kind = A_TENSOR,
		    .u.t = ir_tensor(f->m, &t)})});
	}
	ValId a = node(f, D_ONNX, "Add", "a", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(x), arg_val(k[0])});
	ValId b = node(f, D_ONNX, "Add", "b", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(x), arg_val(k[1])});
	ValId c = node(f, D_ONNX, "Add", "c", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(x), arg_val(k[2])});
	ValId s = node(f, D_ONNX, "Mul", "s", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(a), arg_val(b)});
	ValId y = node(f, D_ONNX, "Mul", "y", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(s), arg_val(c)});
	output(f, y);
	assert_int_equal(run(f, "cse,dce", false), 0);
	assert_int_equal(count_op(f, "Constant"), 2);
	assert_int_equal(count_op(f, "Add"), 2);
	NodeId mul = find_op(f, "Mul");
	assert_int_equal(operand(f, mul, 0), operand(f, mul, 1));
}

/* Thousands of pairs: the table grows while it is in use, and each merge
 * changes what the next nodes' arguments stand for after their hashes were
 * worked out ahead of the sweep. */
static void
cse_many_pairs(void **state)
{
	Fix *f = *state;
	enum { N = 3000 };
	ValId v = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	for (int i = 0; i < N; i++) {
		char na[16], nb[16], ns[16];
		snprintf(na, sizeof na, "a%d", i);
		snprintf(nb, sizeof nb, "b%d", i);
		snprintf(ns, sizeof ns, "s%d", i);
		ValId a = fx(f, "aten::sin.default", na, DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(v)});
		ValId b = fx(f, "aten::sin.default", nb, DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(v)});
		v = fx(f, "aten::add.Tensor", ns, DT_F32, 1, d3, 2,
		    (Arg[]){arg_val(a), arg_val(b)});
	}
	output(f, v);
	assert_int_equal(run(f, "cse,dce", false), 0);
	assert_int_equal(count_op(f, "aten::sin.default"), N);
	assert_int_equal(count_op(f, "aten::add.Tensor"), N);
	for (NodeId n = 1; n < f->g->nnodes; n++)
		if (ir_nodep(f->g, n)->op == ir_intern(f->m, "aten::add.Tensor"))
			assert_int_equal(operand(f, n, 0), operand(f, n, 1));
}

/* Nodes are read with their first 8 arguments a few nodes ahead of the
 * sweep (4): the 4th node, read before the sweep starts, is a twin only
 * once the 2nd has gone into the 1st; twins at every place of a longer
 * run; arguments past the 8th compared too. */
static void
cse_reads_ahead(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId a0 = fx(f, "aten::relu.default", "a0", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	ValId a1 = fx(f, "aten::relu.default", "a1", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	ValId n0 = fx(f, "aten::neg.default", "n0", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(a0)});
	ValId n1 = fx(f, "aten::neg.default", "n1", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(a1)});
	static const char *const ops[] = {"aten::sin.default",
	    "aten::cos.default", "aten::tanh.default"};
	Arg all[19];
	uint32_t na = 0;
	all[na++] = arg_val(n0);
	all[na++] = arg_val(n1);
	for (int i = 0; i < 12; i++) {
		char name[8];
		snprintf(name, sizeof name, "u%d", i);
		all[na++] = arg_val(fx(f, ops[i % 3], name, DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(x)}));
	}
	/* ten arguments; p0 and p1 equal, p2 differs in the last */
	for (int i = 0; i < 3; i++) {
		Arg a[10];
		a[0] = arg_val(x);
		for (int k = 1; k < 10; k++)
			a[k] = arg_int(k == 9 && i == 2 ? 99 : k);
		char name[8];
		snprintf(name, sizeof name, "p%d", i);
		all[na++] = arg_val(fx(f, "aten::mix.default", name, DT_F32, 1,
		    d3, 10, a));
	}
	output(f, fx(f, "aten::cat.default", "y", DT_F32, 1,
	    (int64_t[]){3 * 17}, 1, (Arg[]){ir_list(f->g, A_LIST, all, na)}));
	assert_int_equal(run(f, "cse,dce", false), 0);
	assert_int_equal(count_op(f, "aten::relu.default"), 1);
	assert_int_equal(count_op(f, "aten::neg.default"), 1);
	assert_int_equal(count_op(f, "aten::sin.default"), 1);
	assert_int_equal(count_op(f, "aten::cos.default"), 1);
	assert_int_equal(count_op(f, "aten::tanh.default"), 1);
	assert_int_equal(count_op(f, "aten::mix.default"), 2);
}

/* ---------------------------------------------------------------- fold */

/* x[4,3] @ permute(w[2,3], [1,0]) with w bound: the classic linear. */
static ValId
linear(Fix *f, Role role)
{
	ValId w = input(f, "w", DT_F32, 2, d23, role, w23);
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){4, 3},
	    ROLE_USER_INPUT, NULL);
	ValId t = fx(f, "aten::permute.default", "t", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(w), ints(f, 2, (int64_t[]){1, 0})});
	ValId y = fx(f, "aten::mm.default", "y", DT_F32, 2,
	    (int64_t[]){4, 2}, 2, (Arg[]){arg_val(x), arg_val(t)});
	output(f, y);
	return y;
}

static void
fold_transposes_a_weight(void **state)
{
	Fix *f = *state;
	linear(f, ROLE_PARAM);
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 0);
	NodeId mm = find_op(f, "aten::mm.default");
	const Tensor *t = const_of(f, operand(f, mm, 1));
	assert_non_null(t);
	assert_int_equal(t->rank, 2);
	assert_int_equal(t->dims[0], 3);
	assert_int_equal(t->dims[1], 2);
	static const float want[] = {1, 4, 2, 5, 3, 6};
	assert_memory_equal(t->data, want, sizeof want);
	assert_int_equal(ir_val(f->g, operand(f, mm, 1))->role, ROLE_CONST);
}

/* Folded permutes copy row by row with the element size fixed for 4 and
 * 8 bytes: rank 3 in f64 and bool (1 byte), against a plain loop. */
static void
fold_permutes_every_element_size(void **state)
{
	Fix *f = *state;
	static const int64_t d234[] = {2, 3, 4}, d423[] = {4, 2, 3};
	double wd[24];
	uint8_t wb[24];
	for (int i = 0; i < 24; i++) {
		wd[i] = i * 1.5;
		wb[i] = (uint8_t)(i % 3 == 0);
	}
	ValId vd = input(f, "wd", DT_F64, 3, d234, ROLE_PARAM, wd);
	ValId vb = input(f, "wb", DT_BOOL, 3, d234, ROLE_PARAM, wb);
	ValId xd = input(f, "xd", DT_F64, 3, d423, ROLE_USER_INPUT, NULL);
	ValId xb = input(f, "xb", DT_BOOL, 3, d423, ROLE_USER_INPUT, NULL);
	ValId pd = fx(f, "aten::permute.default", "pd", DT_F64, 3, d423, 2,
	    (Arg[]){arg_val(vd), ints(f, 3, (int64_t[]){2, 0, 1})});
	ValId pb = fx(f, "aten::permute.default", "pb", DT_BOOL, 3, d423, 2,
	    (Arg[]){arg_val(vb), ints(f, 3, (int64_t[]){2, 0, 1})});
	output(f, fx(f, "aten::add.Tensor", "ad", DT_F64, 3, d423, 2,
	    (Arg[]){arg_val(pd), arg_val(xd)}));
	output(f, fx(f, "aten::logical_and.default", "ab", DT_BOOL, 3, d423,
	    2, (Arg[]){arg_val(pb), arg_val(xb)}));
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 0);
	const Tensor *td = const_of(f, operand(f, find_op(f,
	    "aten::add.Tensor"), 0));
	const Tensor *tb = const_of(f, operand(f, find_op(f,
	    "aten::logical_and.default"), 0));
	assert_non_null(td);
	assert_non_null(tb);
	double want_d[24];
	uint8_t want_b[24];
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 3; c++) {
				want_d[(a * 2 + b) * 3 + c] = wd[(b * 3 + c) * 4 +
				    a];
				want_b[(a * 2 + b) * 3 + c] = wb[(b * 3 + c) * 4 +
				    a];
			}
	assert_int_equal(td->nbytes, sizeof want_d);
	assert_memory_equal(td->data, want_d, sizeof want_d);
	assert_int_equal(tb->nbytes, sizeof want_b);
	assert_memory_equal(tb->data, want_b, sizeof want_b);
}

/* fold finds an op's code once per op (64 slots by handle): 100 ops it
 * does not know, each right before a neg it folds, both on one weight;
 * with so many ops, slots are shared. */
static void
fold_ops_by_handle(void **state)
{
	Fix *f = *state;
	static const float w3[] = {1, 2, 3};
	ValId w = input(f, "w", DT_F32, 1, d3, ROLE_PARAM, w3);
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	enum { N = 100 };
	Arg outs[2 * N];
	for (int i = 0; i < N; i++) {
		char op[48], un[16], nn[16], an[16];
		snprintf(op, sizeof op, "aten::opaque%d.default", i);
		snprintf(un, sizeof un, "u%d", i);
		snprintf(nn, sizeof nn, "n%d", i);
		snprintf(an, sizeof an, "a%d", i);
		outs[2 * i] = arg_val(fx(f, op, un, DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(w)}));
		ValId n = fx(f, "aten::neg.default", nn, DT_F32, 1, d3, 1,
		    (Arg[]){arg_val(w)});
		outs[2 * i + 1] = arg_val(fx(f, "aten::add.Tensor", an, DT_F32,
		    1, d3, 2, (Arg[]){arg_val(n), arg_val(x)}));
	}
	output(f, fx(f, "aten::cat.default", "y", DT_F32, 1,
	    (int64_t[]){3 * 2 * N}, 1, (Arg[]){ir_list(f->g, A_LIST, outs,
	    2 * N)}));
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(count_op(f, "aten::neg.default"), 0);
	assert_int_equal(count_op(f, "aten::add.Tensor"), N);
	for (int i = 0; i < N; i++) {
		char op[48];
		snprintf(op, sizeof op, "aten::opaque%d.default", i);
		assert_int_equal(count_op(f, op), 1);
	}
	NodeId add = find_op(f, "aten::add.Tensor");
	const Tensor *t = const_of(f, operand(f, add, 0));
	assert_non_null(t);
	static const float want[] = {-1, -2, -3};
	assert_memory_equal(t->data, want, sizeof want);
}

/* A weight permuted again the same way borrows the first result; another
 * order, or a result that does not fit its annotation, does not. */
static void
fold_permutes_a_weight_once(void **state)
{
	Fix *f = *state;
	ValId w = input(f, "w", DT_F32, 2, d23, ROLE_PARAM, w23);
	static const struct {
		int64_t perm[2];
		const int64_t *dims;
	} p[] = {
		{{1, 0}, d32}, {{1, 0}, d32}, {{0, 1}, d23},
		{{1, 0}, d23},  /* annotated [2, 3]: not folded */
		{{-1, 0}, d32}, {{1, 0}, d32},
	};
	enum { N = sizeof p / sizeof *p };
	Arg outs[N];
	for (int i = 0; i < N; i++) {
		char tn[8], yn[8];
		snprintf(tn, sizeof tn, "t%d", i);
		snprintf(yn, sizeof yn, "y%d", i);
		ValId t = fx(f, "aten::permute.default", tn, DT_F32, 2,
		    p[i].dims, 2, (Arg[]){arg_val(w), ints(f, 2, p[i].perm)});
		outs[i] = arg_val(fx(f, "aten::relu.default", yn, DT_F32, 2,
		    p[i].dims, 1, (Arg[]){arg_val(t)}));
	}
	output(f, fx(f, "aten::cat.default", "y", DT_F32, 1,
	    (int64_t[]){6 * N}, 1, (Arg[]){ir_list(f->g, A_LIST, outs, N)}));
	uint32_t before = f->g->ninputs;
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 1);
	/* w^T once for t0, t1, t4, t5; w's order once for t2 */
	assert_int_equal(f->g->ninputs, before + 2);
	static const float wt[] = {1, 4, 2, 5, 3, 6};
	int nwt = 0, nw = 0;
	for (NodeId n = 1; n < f->g->nnodes; n++) {
		if (ir_nodep(f->g, n)->op != ir_intern(f->m,
		    "aten::relu.default"))
			continue;
		const Tensor *c = const_of(f, operand(f, n, 0));
		if (!c)
			continue;
		nwt += !memcmp(c->data, wt, sizeof wt) && c->dims[0] == 3;
		nw += !memcmp(c->data, w23, sizeof w23) && c->dims[0] == 2;
	}
	assert_int_equal(nwt, 4);
	assert_int_equal(nw, 1);
}

/* Equal folded results share one constant (and fold keeps one copy of
 * the bytes): the same weight transposed twice.  A result with the same
 * bytes under other dims stays a constant of its own. */
static void
fold_merges_equal_results_only(void **state)
{
	Fix *f = *state;
	static const float z32[] = {1, 5, 4, 3, 2, 6}; /* z^T = w^T's bytes */
	ValId w = input(f, "w", DT_F32, 2, d23, ROLE_PARAM, w23);
	ValId z = input(f, "z", DT_F32, 2, d32, ROLE_PARAM, z32);
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){4, 3},
	    ROLE_USER_INPUT, NULL);
	ValId a = input(f, "a", DT_F32, 2, (int64_t[]){4, 2},
	    ROLE_USER_INPUT, NULL);
	ValId t[3], y[3];
	ValId src[3] = {w, w, z};
	for (int i = 0; i < 3; i++) {
		char tn[8], yn[8];
		snprintf(tn, sizeof tn, "t%d", i);
		snprintf(yn, sizeof yn, "y%d", i);
		t[i] = fx(f, "aten::permute.default", tn, DT_F32, 2,
		    i < 2 ? d32 : d23, 2, (Arg[]){arg_val(src[i]),
		    ints(f, 2, (int64_t[]){1, 0})});
		y[i] = fx(f, "aten::mm.default", yn, DT_F32, 2, i < 2
		    ? (int64_t[]){4, 2} : (int64_t[]){4, 3}, 2,
		    (Arg[]){arg_val(i < 2 ? x : a), arg_val(t[i])});
		output(f, y[i]);
	}
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 0);
	NodeId mm[3];
	for (NodeId n = 1, k = 0; n < f->g->nnodes && k < 3; n++)
		if (ir_nodep(f->g, n)->op == ir_intern(f->m, "aten::mm.default"))
			mm[k++] = n;
	assert_int_equal(operand(f, mm[0], 1), operand(f, mm[1], 1));
	assert_int_not_equal(operand(f, mm[0], 1), operand(f, mm[2], 1));
	const Tensor *t0 = const_of(f, operand(f, mm[0], 1));
	const Tensor *t2 = const_of(f, operand(f, mm[2], 1));
	assert_non_null(t0);
	assert_non_null(t2);
	assert_int_equal(t0->dims[0], 3);
	assert_int_equal(t2->dims[0], 2);
	assert_memory_equal(t0->data, t2->data, 6 * sizeof(float));
}

static void
fold_leaves_parameters_when_training(void **state)
{
	Fix *f = *state;
	linear(f, ROLE_PARAM);
	assert_int_equal(run(f, "fold", true), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 1);
	assert_int_equal(f->g->ninputs, 2);
}

static void
fold_training_still_folds_lifted_constants(void **state)
{
	Fix *f = *state;
	linear(f, ROLE_CONST);
	assert_int_equal(run(f, "fold", true), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 0);
}

static void
fold_respects_max_size(void **state)
{
	Fix *f = *state;
	linear(f, ROLE_PARAM);
	assert_int_equal(run(f, "fold{max-size=5}", false), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 1);
	assert_int_equal(run(f, "fold{max-size=6}", false), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 0);
}

static void
fold_never_reads_user_inputs(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	ValId t = fx(f, "aten::permute.default", "t", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(x), ints(f, 2, (int64_t[]){1, 0})});
	ValId y = fx(f, "aten::relu.default", "y", DT_F32, 2, d32, 1,
	    (Arg[]){arg_val(t)});
	output(f, y);
	assert_int_equal(run(f, "fold", false), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 1);
}

/* A chain of folds makes one constant input, for the value used. */
static void
fold_chain_makes_one_input(void **state)
{
	Fix *f = *state;
	ValId w = input(f, "w", DT_F32, 2, d23, ROLE_PARAM, w23);
	ValId x = input(f, "x", DT_F32, 1, d6, ROLE_USER_INPUT, NULL);
	ValId t = fx(f, "aten::permute.default", "t", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(w), ints(f, 2, (int64_t[]){1, 0})});
	ValId v = fx(f, "aten::view.default", "v", DT_F32, 1, d6, 2,
	    (Arg[]){arg_val(t), ints(f, 1, (int64_t[]){-1})});
	ValId n = fx(f, "aten::neg.default", "n", DT_F32, 1, d6, 1,
	    (Arg[]){arg_val(v)});
	ValId y = fx(f, "aten::add.Tensor", "y", DT_F32, 1, d6, 2,
	    (Arg[]){arg_val(x), arg_val(n)});
	output(f, y);
	uint32_t before = f->g->ninputs;
	assert_int_equal(run(f, "fold", false), 0);
	assert_int_equal(f->g->ninputs, before + 1);
	assert_int_equal(f->g->nnodes - 1, 1);
	const Tensor *c = const_of(f, operand(f, find_op(f,
	    "aten::add.Tensor"), 1));
	assert_non_null(c);
	static const float want[] = {-1, -4, -2, -5, -3, -6};
	assert_memory_equal(c->data, want, sizeof want);
	assert_string_equal(ir_str(f->m, c->name ? c->name :
	    ir_val(f->g, f->g->inputs[before])->name), "n");
}

/* fold asks the host's use counts (ABI 1.5) or counts them itself: either
 * way a folded result used by another folded node only gets no input,
 * one used in a list and one used twice get one each. */
static void
fold_on_either_host(void **state)
{
	Fix *f = *state;
	for (int old = 0; old < 2; old++) {
		reset_with(f, "fold");
		ValId w = input(f, "w", DT_F32, 2, d23, ROLE_PARAM, w23);
		ValId x = input(f, "x", DT_F32, 1, d6, ROLE_USER_INPUT, NULL);
		ValId t = fx(f, "aten::permute.default", "t", DT_F32, 2, d32,
		    2, (Arg[]){arg_val(w), ints(f, 2, (int64_t[]){1, 0})});
		ValId v = fx(f, "aten::view.default", "v", DT_F32, 1, d6, 2,
		    (Arg[]){arg_val(t), ints(f, 1, (int64_t[]){-1})});
		ValId n = fx(f, "aten::neg.default", "n", DT_F32, 1, d6, 1,
		    (Arg[]){arg_val(v)});
		ValId m = fx(f, "aten::mul.Tensor", "m", DT_F32, 1, d6, 2,
		    (Arg[]){arg_val(v), arg_val(v)});
		Arg l[2] = {arg_val(n), arg_val(x)};
		output(f, fx(f, "aten::cat.default", "y", DT_F32, 1,
		    (int64_t[]){12}, 1, (Arg[]){ir_list(f->g, A_LIST, l, 2)}));
		output(f, fx(f, "aten::add.Tensor", "z", DT_F32, 1, d6, 2,
		    (Arg[]){arg_val(x), arg_val(m)}));
		output(f, fx(f, "aten::sub.Tensor", "s", DT_F32, 1, d6, 2,
		    (Arg[]){arg_val(x), arg_val(m)}));
		uint32_t before = f->g->ninputs;
		if (old)
			assert_int_equal(run_on_abi_1_4(f, "fold"), ONNXC_OK);
		else
			assert_int_equal(run(f, "fold", false), 0);
		/* n (in the list) and m (twice); not t, not v */
		assert_int_equal(f->g->ninputs, before + 2);
		static const float neg[] = {-1, -4, -2, -5, -3, -6},
		    sq[] = {1, 16, 4, 25, 9, 36};
		const Tensor *a = ir_tensorp(f->m, ir_val(f->g,
		    f->g->inputs[before])->init);
		const Tensor *b = ir_tensorp(f->m, ir_val(f->g,
		    f->g->inputs[before + 1])->init);
		assert_memory_equal(a->data, neg, sizeof neg);
		assert_memory_equal(b->data, sq, sizeof sq);
	}
}

static void
fold_arithmetic_and_data_movement(void **state)
{
	Fix *f = *state;
	static const float col[] = {10, 20};
	static const int64_t iv[] = {1, 2, 3, 4, 5, 6};
	ValId w = input(f, "w", DT_F32, 2, d23, ROLE_BUFFER, w23);
	ValId c = input(f, "c", DT_F32, 2, (int64_t[]){2, 1}, ROLE_CONST, col);
	ValId i = input(f, "i", DT_I64, 2, d23, ROLE_CONST, iv);
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){2, 5}, ROLE_USER_INPUT,
	    NULL);
	/* broadcast add, then divide by a Python number */
	ValId a = fx(f, "aten::add.Tensor", "a", DT_F32, 2, d23, 2,
	    (Arg[]){arg_val(w), arg_val(c)});
	ValId d = fx(f, "aten::div.Tensor", "d", DT_F32, 2, d23, 2,
	    (Arg[]){arg_val(a), arg_float(2)});
	/* int64: slice columns 1.., select row 1, cast to f32 */
	ValId s = fx(f, "aten::slice.Tensor", "s", DT_I64, 2,
	    (int64_t[]){2, 2}, 3, (Arg[]){arg_val(i), arg_int(1), arg_int(1)});
	ValId r = fx(f, "aten::select.int", "r", DT_I64, 1, (int64_t[]){2}, 3,
	    (Arg[]){arg_val(s), arg_int(0), arg_int(-1)});
	ValId m = fx(f, "aten::mul.Tensor", "m", DT_I64, 1, (int64_t[]){2}, 2,
	    (Arg[]){arg_val(r), arg_int(-3)});
	ValId k = fx(f, "aten::_to_copy.default", "k", DT_F32, 1,
	    (int64_t[]){2}, 2, (Arg[]){arg_val(m), kw(f, "dtype",
	    (Arg){.kind = A_DTYPE, .u.i = DT_F32})});
	ValId e = fx(f, "aten::expand.default", "e", DT_F32, 2,
	    (int64_t[]){2, 2}, 2, (Arg[]){arg_val(k), ints(f, 2,
	    (int64_t[]){2, -1})});
	Arg parts[2] = {arg_val(e), arg_val(d)};
	ValId cc = fx(f, "aten::cat.default", "cc", DT_F32, 2,
	    (int64_t[]){2, 5}, 2, (Arg[]){ir_list(f->g, A_LIST, parts, 2),
	    arg_int(1)});
	ValId y = fx(f, "aten::mul.Tensor", "y", DT_F32, 2, (int64_t[]){2, 5},
	    2, (Arg[]){arg_val(x), arg_val(cc)});
	output(f, y);
	assert_int_equal(run(f, "fold", false), 0);
	assert_int_equal(f->g->nnodes - 1, 1);
	const Tensor *t = const_of(f, operand(f, find_op(f,
	    "aten::mul.Tensor"), 1));
	assert_non_null(t);
	assert_int_equal(t->dims[1], 5);
	/* rows: [-15 -18 | (1+10)/2 (2+10)/2 (3+10)/2],
	 *       [-15 -18 | (4+20)/2 (5+20)/2 (6+20)/2] */
	static const float want[] = {-15, -18, 5.5f, 6, 6.5f,
		-15, -18, 12, 12.5f, 13};
	assert_memory_equal(t->data, want, sizeof want);
}

/* clone of a lifted constant is the constant: no copy of the bytes */
static void
fold_copy_reuses_the_input(void **state)
{
	Fix *f = *state;
	ValId c = input(f, "c", DT_F32, 1, d6, ROLE_CONST, w23);
	ValId x = input(f, "x", DT_F32, 1, d6, ROLE_USER_INPUT, NULL);
	ValId l = fx(f, "aten::lift_fresh_copy.default", "l", DT_F32, 1, d6, 1,
	    (Arg[]){arg_val(c)});
	ValId y = fx(f, "aten::add.Tensor", "y", DT_F32, 1, d6, 2,
	    (Arg[]){arg_val(x), arg_val(l)});
	output(f, y);
	assert_int_equal(run(f, "fold", false), 0);
	assert_int_equal(f->g->ninputs, 2);
	assert_int_equal(operand(f, find_op(f, "aten::add.Tensor"), 1), c);
}

/* A folded value that is a graph output keeps its node and name. */
static void
fold_leaves_graph_outputs(void **state)
{
	Fix *f = *state;
	ValId w = input(f, "w", DT_F32, 2, d23, ROLE_PARAM, w23);
	ValId t = fx(f, "aten::permute.default", "t", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(w), ints(f, 2, (int64_t[]){1, 0})});
	output(f, t);
	assert_int_equal(run(f, "fold", false), 0);
	assert_int_equal(count_op(f, "aten::permute.default"), 1);
}

static void
fold_symint_arithmetic(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){5, 3},
	    ROLE_USER_INPUT, NULL);
	ValId s = fx(f, "aten::sym_size.int", "s", DT_UNDEF, -1, NULL, 2,
	    (Arg[]){arg_val(x), arg_int(0)});
	ir_val(f->g, s)->kind = VK_SYMINT;
	ir_val(f->g, s)->sym = ir_expr_sym(f->m, "s0");
	ValId q = fx(f, "_operator::floordiv", "q", DT_UNDEF, -1, NULL, 2,
	    (Arg[]){arg_int(-7), arg_val(s)});
	ir_val(f->g, q)->kind = VK_SYMINT;
	ValId y = fx(f, "aten::view.default", "y", DT_F32, -1, NULL, 2,
	    (Arg[]){arg_val(x), ints(f, 1, (int64_t[]){15})});
	output(f, y);
	output(f, q);
	assert_int_equal(run(f, "fold", false), 0);
	const Expr *e = ir_exprp(f->m, ir_val(f->g, q)->sym);
	assert_int_equal(e->kind, E_INT);
	assert_int_equal(e->n, -2); /* Python: -7 // 5 */
}

static void
fold_onnx_constants_and_shapes(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, d23, ROLE_USER_INPUT, NULL);
	Tensor t = {.dtype = DT_F32, .rank = 2, .dims = (int64_t *)d23,
		.data = w23, .nbytes = sizeof w23};
	ValId k = node(f, D_ONNX, "Constant", "k", DT_F32, 2, d23, 1,
	    (Arg[]){kw(f, "value", (Arg){.kind = A_TENSOR,
	    .u.t = ir_tensor(f->m, &t)})});
	ValId tr = node(f, D_ONNX, "Transpose", "tr", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(k), kw(f, "perm", ints(f, 2, (int64_t[]){1, 0}))});
	ValId sh = node(f, D_ONNX, "Shape", "sh", DT_I64, 1, (int64_t[]){1}, 2,
	    (Arg[]){arg_val(x), kw(f, "start", arg_int(-1))});
	ValId cs = node(f, D_ONNX, "Cast", "cs", DT_F32, -1, NULL, 2,
	    (Arg[]){arg_val(sh), kw(f, "to", arg_int(DT_F32))});
	ValId a = node(f, D_ONNX, "Mul", "a", DT_F32, 2, d32, 2,
	    (Arg[]){arg_val(tr), arg_val(cs)});
	output(f, a);
	assert_int_equal(run(f, "fold,dce", false), 0);
	assert_int_equal(count_op(f, "Transpose"), 0);
	assert_int_equal(count_op(f, "Shape"), 0);
	assert_int_equal(count_op(f, "Cast"), 0);
	assert_int_equal(count_op(f, "Constant"), 2);
	NodeId mul = find_op(f, "Mul");
	const Tensor *a0 = const_of(f, operand(f, mul, 0));
	const Tensor *a1 = const_of(f, operand(f, mul, 1));
	assert_non_null(a0);
	assert_non_null(a1);
	static const float tw[] = {1, 4, 2, 5, 3, 6}, three = 3;
	assert_memory_equal(a0->data, tw, sizeof tw);
	assert_int_equal(a1->rank, 1);
	assert_memory_equal(a1->data, &three, 4);
	assert_string_equal(ir_str(f->m, ir_val(f->g, operand(f, mul,
	    0))->name), "tr");
}

static void
fold_rejects_a_negative_max_size(void **state)
{
	Fix *f = *state;
	linear(f, ROLE_PARAM);
	assert_int_equal(run(f, "fold{max-size=-1}", false), -1);
	assert_non_null(strstr(diags(f), "max-size"));
}


/* ------------------------------------- early exits (host graph_ops) */

/* A body graph of the main one: y f32[3] -> op(y) -> output.  f->g is
 * the body while it is built. */
static GraphId
body(Fix *f, const char *op)
{
	Graph *main = f->g;
	GraphId b = ir_graph_new(f->m, "body", f->gid);
	f->g = ir_graph(f->m, b);
	ValId y = input(f, "y", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId c = fx(f, "aten::clone.default", "c", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(y)});
	ValId r = strstr(op, "_.") ? fx(f, op, "r", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(c), arg_val(y)}) : fx(f, op, "r", DT_F32, 1, d3,
	    1, (Arg[]){arg_val(c)});
	output(f, r);
	f->g = ir_graph(f->m, f->gid);
	(void)main;
	return b;
}

static uint32_t
count_op_in(Fix *f, GraphId g, const char *op)
{
	Graph *keep = f->g;
	f->g = ir_graph(f->m, g);
	uint32_t n = count_op(f, op);
	f->g = keep;
	return n;
}

static void
functionalize_rewrites_inplace_ops(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	ValId c = fx(f, "aten::clone.default", "c", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)});
	ValId a = fx(f, "aten::add_.Tensor", "a", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(c), arg_val(x)});
	output(f, fx(f, "aten::sin.default", "s", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(a)}));
	assert_int_equal(run(f, "functionalize", false), 0);
	assert_int_equal(count_op(f, "aten::add_.Tensor"), 0);
	assert_int_equal(count_op(f, "aten::add.Tensor"), 1);
}

/* The main graph is functional, a body is not: the body still gets its
 * sweep (graph_ops looks into bodies). */
static void
functionalize_reaches_bodies(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	GraphId b = body(f, "aten::mul_.Tensor");
	ValId m = fx(f, "higher_order::map_impl", "m", DT_F32, 1, d3, 2,
	    (Arg[]){{.kind = A_GRAPH, .u.g = b}, arg_val(x)});
	output(f, m);
	assert_int_equal(run(f, "functionalize", false), 0);
	assert_int_equal(count_op_in(f, b, "aten::mul_.Tensor"), 0);
	assert_int_equal(count_op_in(f, b, "aten::mul.Tensor"), 1);
}

/* Nothing in place: the graph is left as it was, node for node. */
static void
functionalize_leaves_functional_graphs(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	GraphId b = body(f, "aten::relu.default");
	static const int64_t d13[] = {1, 3};
	ValId v = fx(f, "aten::view.default", "v", DT_F32, 2, d13, 2,
	    (Arg[]){arg_val(x), ints(f, 2, d13)});
	ValId m = fx(f, "higher_order::map_impl", "m", DT_F32, 1, d3, 2,
	    (Arg[]){{.kind = A_GRAPH, .u.g = b}, arg_val(v)});
	output(f, m);
	uint32_t nodes = f->g->nnodes, bnodes = ir_graph(f->m, b)->nnodes;
	assert_int_equal(run(f, "functionalize", false), 0);
	assert_int_equal(f->g->nnodes, nodes);
	assert_int_equal(ir_graph(f->m, b)->nnodes, bnodes);
	assert_int_equal(count_op(f, "aten::view.default"), 1);
}

static void
inline_inlines_grad_calls_only(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	GraphId b = body(f, "aten::relu.default");
	ValId c = fx(f, "higher_order::wrap_with_set_grad_enabled", "w",
	    DT_F32, 1, d3, 3, (Arg[]){arg_bool(false),
	    {.kind = A_GRAPH, .u.g = b}, arg_val(x)});
	output(f, fx(f, "aten::sin.default", "s", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(c)}));
	assert_int_equal(run(f, "inline", false), 0);
	assert_int_equal(count_op(f,
	    "higher_order::wrap_with_set_grad_enabled"), 0);
	assert_int_equal(count_op(f, "aten::relu.default"), 1);
	/* no call left: a second run changes nothing */
	uint32_t nodes = f->g->nnodes;
	assert_int_equal(run(f, "inline", false), 0);
	assert_int_equal(f->g->nnodes, nodes);
}

/* ------------------------------------------------------- retype-int-div */

/* torch 2.6's annotation of a true division of integers (i64) becomes
 * float32, and so do the values computed from it that followed it; an
 * argmax, sort's indices, a cast to a dtype and a comparison keep theirs.
 * A program annotated right is left as it is. */
static void
retype_int_div_follows_the_division(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 1, d3, ROLE_USER_INPUT, NULL);
	ValId d = fx(f, "aten::div.Tensor", "d", DT_I64, 1, d3, 2,
	    (Arg[]){arg_val(x), arg_int(2)});
	ValId m = fx(f, "aten::mul.Tensor", "m", DT_I64, 1, d3, 2,
	    (Arg[]){arg_val(d), arg_int(3)});
	Arg l[2] = {arg_val(m), arg_val(x)};
	ValId c = fx(f, "aten::cat.default", "c", DT_I64, 1, d6, 1,
	    (Arg[]){ir_list(f->g, A_LIST, l, 2)});
	ValId am = fx(f, "aten::argmax.default", "am", DT_I64, 0, NULL, 1,
	    (Arg[]){arg_val(m)});
	ValId to = fx(f, "aten::_to_copy.default", "to", DT_I64, 1, d3, 2,
	    (Arg[]){arg_val(m), kw(f, "dtype", (Arg){.kind = A_DTYPE,
	    .u.i = DT_I64})});
	ValId gt = fx(f, "aten::gt.Scalar", "gt", DT_BOOL, 1, d3, 2,
	    (Arg[]){arg_val(m), arg_int(0)});
	NodeId s = ir_node(f->g, D_FX, ir_intern(f->m, "aten::sort.default"), 2);
	ir_push_arg(f->g, s, arg_val(d));
	Dim dd[1] = {{3, 0}};
	ValId sv = ir_nodep(f->g, s)->out;
	ir_set_tensor(f->g, sv, DT_I64, 1, dd);
	ir_set_tensor(f->g, sv + 1, DT_I64, 1, dd);
	ValId outs[] = {c, am, to, gt, sv, sv + 1};
	for (size_t k = 0; k < sizeof outs / sizeof *outs; k++)
		output(f, outs[k]);
	assert_int_equal(run(f, "retype-int-div", false), 0);
	assert_int_equal(ir_val(f->g, d)->dtype, DT_F32);
	assert_int_equal(ir_val(f->g, m)->dtype, DT_F32);
	assert_int_equal(ir_val(f->g, c)->dtype, DT_F32);
	assert_int_equal(ir_val(f->g, c)->rank, 1);
	assert_int_equal(ir_dims(f->g, c)[0].n, 6);
	assert_int_equal(ir_val(f->g, sv)->dtype, DT_F32);
	assert_int_equal(ir_val(f->g, sv + 1)->dtype, DT_I64);
	assert_int_equal(ir_val(f->g, am)->dtype, DT_I64);
	assert_int_equal(ir_val(f->g, to)->dtype, DT_I64);
	assert_int_equal(ir_val(f->g, gt)->dtype, DT_BOOL);
	assert_int_equal(ir_val(f->g, x)->dtype, DT_I64);
}

static void
retype_int_div_leaves_right_annotations(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_I64, 1, d3, ROLE_USER_INPUT, NULL);
	ValId d = fx(f, "aten::div.Tensor", "d", DT_F32, 1, d3, 2,
	    (Arg[]){arg_val(x), arg_int(2)});
	ValId q = fx(f, "aten::div.Tensor_mode", "q", DT_I64, 1, d3, 3,
	    (Arg[]){arg_val(x), arg_int(2), kw(f, "rounding_mode",
	    arg_str(ir_intern(f->m, "floor")))});
	ValId m = fx(f, "aten::mul.Tensor", "m", DT_I64, 1, d3, 2,
	    (Arg[]){arg_val(q), arg_int(3)});
	output(f, d);
	output(f, m);
	assert_int_equal(run(f, "retype-int-div", false), 0);
	assert_int_equal(ir_val(f->g, d)->dtype, DT_F32);
	assert_int_equal(ir_val(f->g, q)->dtype, DT_I64);
	assert_int_equal(ir_val(f->g, m)->dtype, DT_I64);
}

/* square: decomposed unless kept or lowered (onnxc's rule, once the
 * lowering is registered), and with all=true even then; the early exit
 * must not skip the last. */
static void
decompose_only_what_it_should(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 1, d3, ROLE_USER_INPUT, NULL);
	output(f, fx(f, "aten::square.default", "q", DT_F32, 1, d3, 1,
	    (Arg[]){arg_val(x)}));
	assert_int_equal(run(f, "decompose{keep=aten::square}", false), 0);
	assert_int_equal(count_op(f, "aten::square.default"), 1);
	assert_int_equal(pl_add_static(f->reg, &onnxc_plugin_lower), 0);
	assert_int_equal(run(f, "decompose", false), 0);
	assert_int_equal(count_op(f, "aten::square.default"), 1);
	assert_int_equal(run(f, "decompose{all=true}", false), 0);
	assert_int_equal(count_op(f, "aten::square.default"), 0);
	assert_int_equal(count_op(f, "aten::mul.Tensor"), 1);
}

int
main(void)
{
	if (find_plugins() < 0) {
		fprintf(stderr, "test_passes: set ONNXC_BIN or "
		    "ONNXC_PLUGIN_DIR to find the plugin modules\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(dce_removes_dead_pure_nodes),
		T(dce_onnx_keeps_custom_domains),
		T(dce_on_either_host),
		T(cse_merges_equal_nodes),
		T(cse_leaves_random_and_outputs),
		T(cse_onnx_constants_by_bytes),
		T(cse_many_pairs),
		T(cse_reads_ahead),
		T(fold_transposes_a_weight),
		T(fold_permutes_every_element_size),
		T(fold_ops_by_handle),
		T(fold_permutes_a_weight_once),
		T(fold_merges_equal_results_only),
		T(fold_leaves_parameters_when_training),
		T(fold_training_still_folds_lifted_constants),
		T(fold_respects_max_size),
		T(fold_never_reads_user_inputs),
		T(fold_chain_makes_one_input),
		T(fold_on_either_host),
		T(fold_arithmetic_and_data_movement),
		T(fold_copy_reuses_the_input),
		T(fold_leaves_graph_outputs),
		T(fold_symint_arithmetic),
		T(fold_onnx_constants_and_shapes),
		T(fold_rejects_a_negative_max_size),
		T(functionalize_rewrites_inplace_ops),
		T(functionalize_reaches_bodies),
		T(functionalize_leaves_functional_graphs),
		T(inline_inlines_grad_calls_only),
		T(decompose_only_what_it_should),
		T(retype_int_div_follows_the_division),
		T(retype_int_div_leaves_right_annotations),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
