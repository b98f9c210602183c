/* test_opt_layout.c - the -O2 passes that move data around:
 * fuse-einsum-transposes, merge-layout-chains and fuse-pool-flatten,
 * loaded as modules and run by the real pass manager on small ONNX
 * graphs: the graph before, the graph after, and the numbers the new
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

/* ----------------------------------------------- fuse-einsum-transposes */

/* out = einsum(eq, a, b) for two operands of letters, by brute force:
 * every assignment of the letters, the products summed into out. */
static void
einsum2(const char *eq, const float *a, const int64_t *da, const float *b,
    const int64_t *db, float *out, int nout)
{
	char let[16];
	int64_t size[16], val[16] = {0};
	int nl = 0;
	const char *comma = strchr(eq, ','), *arrow = strstr(eq, "->");
	const char *ops[3] = {eq, comma + 1, arrow + 2};
	int lens[3] = {(int)(comma - eq), (int)(arrow - comma - 1),
	    (int)strlen(arrow + 2)};
	const int64_t *dims[2] = {da, db};
	for (int o = 0; o < 2; o++)
		for (int i = 0; i < lens[o]; i++) {
			int k = 0;
			while (k < nl && let[k] != ops[o][i])
				k++;
			if (k == nl) {
				let[nl] = ops[o][i];
				size[nl++] = dims[o][i];
			}
		}
	memset(out, 0, (size_t)nout * sizeof *out);
	for (;;) {
		int64_t off[3] = {0};
		for (int o = 0; o < 3; o++)
			for (int i = 0; i < lens[o]; i++) {
				int k = (int)(strchr(let, ops[o][i]) - let);
				off[o] = off[o] * size[k] + val[k];
			}
		out[off[2]] += a[off[0]] * b[off[1]];
		int k = nl - 1;
		while (k >= 0 && ++val[k] == size[k])
			val[k--] = 0;
		if (k < 0)
			return;
	}
}

static void
einsum_reads_and_writes_through_transposes(void **state)
{
	Fix *f = *state;
	static const float xs[] = {1, 2, 3, 4, 5, 6};            /* 3x2 */
	static const float ys[] = {1, -1, 2, 0, 3, 1, -2, 1, 4, 2, 2, -3};
	static const float two = 2;                              /* 4x3 */
	static const int64_t s32v[] = {3, 2}, s43[] = {4, 3};
	ValId x = input(f, "x", DT_F32, 2, s32v, ROLE_USER_INPUT, NULL);
	ValId y = input(f, "y", DT_F32, 2, s43, ROLE_USER_INPUT, NULL);
	ValId c = input(f, "two", DT_F32, 0, NULL, ROLE_CONST, &two);
	ValId a = onnx(f, "Transpose", "a", DT_F32, 2, (int64_t[]){2, 3}, 2,
	    (Arg[]){arg_val(x), kw(f, "perm", ints(f, 2, (int64_t[]){1, 0}))});
	ValId t = onnx(f, "Transpose", "t", DT_F32, 2, (int64_t[]){3, 4}, 2,
	    (Arg[]){arg_val(y), kw(f, "perm", ints(f, 2, (int64_t[]){1, 0}))});
	ValId b = onnx(f, "Mul", "b", DT_F32, 2, (int64_t[]){3, 4}, 2,
	    (Arg[]){arg_val(t), arg_val(c)});
	ValId e = onnx(f, "Einsum", "e", DT_F32, 2, (int64_t[]){2, 4}, 3,
	    (Arg[]){arg_val(a), arg_val(b), kw(f, "equation", (Arg){.kind =
	    A_STR, .u.s = ir_intern(f->m, "ij,jk->ik")})});
	ValId o = onnx(f, "Transpose", "o", DT_F32, 2, (int64_t[]){4, 2}, 2,
	    (Arg[]){arg_val(e), kw(f, "perm", ints(f, 2, (int64_t[]){1, 0}))});
	output(f, onnx(f, "Neg", "n", DT_F32, 2, (int64_t[]){4, 2}, 1,
	    (Arg[]){arg_val(o)}));
	assert_int_equal(run(f, "fuse-einsum-transposes,dce", false), 0);
	/* Einsum(x, Mul(y, 2)) and the Neg */
	assert_int_equal(count_op(f, "Transpose"), 0);
	assert_int_equal(f->g->nnodes - 1, 3);
	NodeId en = find_op(f, "Einsum"), mn = find_op(f, "Mul");
	assert_int_equal(operand(f, en, 0), x);
	assert_int_equal(operand(f, en, 1), ir_nodep(f->g, mn)->out);
	assert_int_equal(operand(f, mn, 0), y);
	const Arg *eq = ir_find_arg(f->m, f->g, en, -1, "equation");
	assert_non_null(eq);
	const char *text = ir_str(f->m, eq->u.s);
	/* the new equation on x and 2y gives what the old graph gave */
	float y2[12], want[8], got[8], e24[8];
	for (int i = 0; i < 12; i++)
		y2[i] = 2 * ys[i];
	float xt[6], yt2[12];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			xt[j * 3 + i] = xs[i * 2 + j];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3; j++)
			yt2[j * 4 + i] = y2[i * 3 + j];
	einsum2("ij,jk->ik", xt, (int64_t[]){2, 3}, yt2, (int64_t[]){3, 4},
	    e24, 8);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++)
			want[k * 2 + i] = e24[i * 4 + k];
	einsum2(text, xs, s32v, y2, s43, got, 8);
	assert_memory_equal(got, want, sizeof want);
}

static void
einsum_leaves_shared_transposes_and_ellipses(void **state)
{
	Fix *f = *state;
	static const int64_t s32v[] = {3, 2};
	ValId x = input(f, "x", DT_F32, 2, s32v, ROLE_USER_INPUT, NULL);
	ValId a = onnx(f, "Transpose", "a", DT_F32, 2, (int64_t[]){2, 3}, 2,
	    (Arg[]){arg_val(x), kw(f, "perm", ints(f, 2, (int64_t[]){1, 0}))});
	/* a is read twice: the Transpose stays for its other reader */
	ValId e = onnx(f, "Einsum", "e", DT_F32, 2, (int64_t[]){2, 2}, 3,
	    (Arg[]){arg_val(a), arg_val(x), kw(f, "equation", (Arg){.kind =
	    A_STR, .u.s = ir_intern(f->m, "ij,jk->ik")})});
	ValId g = onnx(f, "Einsum", "g", DT_F32, 2, (int64_t[]){2, 3}, 2,
	    (Arg[]){arg_val(a), kw(f, "equation", (Arg){.kind = A_STR,
	    .u.s = ir_intern(f->m, "...->...")})});
	ValId h = onnx(f, "Transpose", "h", DT_F32, 2, (int64_t[]){3, 2}, 2,
	    (Arg[]){arg_val(g), kw(f, "perm", ints(f, 2, (int64_t[]){1, 0}))});
	output(f, onnx(f, "Neg", "n", DT_F32, 2, (int64_t[]){2, 2}, 1,
	    (Arg[]){arg_val(e)}));
	output(f, onnx(f, "Neg", "m", DT_F32, 2, (int64_t[]){3, 2}, 1,
	    (Arg[]){arg_val(h)}));
	assert_int_equal(run(f, "fuse-einsum-transposes,dce", false), 0);
	assert_int_equal(count_op(f, "Transpose"), 2);
	assert_int_equal(count_op(f, "Einsum"), 2);
}

/* -------------------------------------------------- merge-layout-chains */

/* Runs the Reshapes and Transposes from x to value v on x's data. */
static void
replay(Fix *f, ValId x, ValId v, const float *in, float *out, int numel)
{
	NodeId chain[16];
	int n = 0;
	for (ValId u = v; u != x; u = operand(f, chain[n - 1], 0)) {
		assert_true(n < 16);
		chain[n++] = ir_val(f->g, u)->def;
	}
	float buf[64];
	memcpy(buf, in, (size_t)numel * sizeof *buf);
	for (int k = n - 1; k >= 0; k--) {
		const char *op = ir_str(f->m, ir_nodep(f->g, chain[k])->op);
		if (strcmp(op, "Transpose"))
			continue;   /* a reshape keeps the order */
		ValId a = operand(f, chain[k], 0);
		int rank = ir_val(f->g, a)->rank;
		const Dim *d = ir_dims(f->g, a);
		const Arg *p = ir_find_arg(f->m, f->g, chain[k], -1, "perm");
		int64_t st[8], idx[8] = {0}, perm[8], od[8];
		st[rank - 1] = 1;
		for (int i = rank - 2; i >= 0; i--)
			st[i] = st[i + 1] * d[i + 1].n;
		for (int i = 0; i < rank; i++) {
			perm[i] = f->g->items[p->u.list.off + i].u.i;
			od[i] = d[perm[i]].n;
		}
		float t[64];
		for (int e = 0; e < numel; e++) {
			int64_t off = 0;
			for (int i = 0; i < rank; i++)
				off += idx[i] * st[perm[i]];
			t[e] = buf[off];
			for (int i = rank - 1; i >= 0 && ++idx[i] == od[i]; i--)
				idx[i] = 0;
		}
		memcpy(buf, t, (size_t)numel * sizeof *buf);
	}
	memcpy(out, buf, (size_t)numel * sizeof *out);
}

static ValId
perm(Fix *f, const char *name, ValId x, int rank, const int64_t *d,
    const int64_t *p)
{
	return onnx(f, "Transpose", name, DT_F32, rank, d, 2, (Arg[]){
	    arg_val(x), kw(f, "perm", ints(f, rank, p))});
}

static void
layout_merges_a_window_partition(void **state)
{
	Fix *f = *state;
	float xs[24], want[24], got[24];
	for (int i = 0; i < 24; i++)
		xs[i] = (float)i;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){4, 6},
	    ROLE_USER_INPUT, NULL);
	ValId a = view(f, "a", x, 4, (int64_t[]){2, 2, 3, 2});
	ValId b = perm(f, "b", a, 4, (int64_t[]){2, 3, 2, 2},
	    (int64_t[]){0, 2, 1, 3});
	ValId c = view(f, "c", b, 3, (int64_t[]){6, 2, 2});
	ValId d = perm(f, "d", c, 3, (int64_t[]){2, 6, 2},
	    (int64_t[]){2, 0, 1});
	ValId e = view(f, "e", d, 2, (int64_t[]){12, 2});
	ValId o = onnx(f, "Neg", "o", DT_F32, 2, (int64_t[]){12, 2}, 1,
	    (Arg[]){arg_val(e)});
	output(f, o);
	replay(f, x, e, xs, want, 24);
	assert_int_equal(run(f, "merge-layout-chains,dce", false), 0);
	int moves = (int)(count_op(f, "Reshape") + count_op(f, "Transpose"));
	assert_true(moves >= 1 && moves <= 3);
	assert_true(count_op(f, "Transpose") <= 1);
	ValId last = operand(f, find_op(f, "Neg"), 0);
	assert_int_equal(ir_val(f->g, last)->rank, 2);
	assert_int_equal(ir_dims(f->g, last)[0].n, 12);
	replay(f, x, last, xs, got, 24);
	assert_memory_equal(got, want, sizeof want);
}

static void
layout_leaves_shared_steps_and_drops_round_trips(void **state)
{
	Fix *f = *state;
	ValId x = input(f, "x", DT_F32, 2, (int64_t[]){2, 3},
	    ROLE_USER_INPUT, NULL);
	/* b is read twice: no chain runs through it */
	ValId a = view(f, "a", x, 1, (int64_t[]){6});
	ValId b = view(f, "b", a, 2, (int64_t[]){3, 2});
	ValId c = perm(f, "c", b, 2, (int64_t[]){2, 3}, (int64_t[]){1, 0});
	ValId d = view(f, "d", c, 1, (int64_t[]){6});
	output(f, onnx(f, "Neg", "o", DT_F32, 2, (int64_t[]){3, 2}, 1,
	    (Arg[]){arg_val(b)}));
	output(f, onnx(f, "Neg", "p", DT_F32, 1, (int64_t[]){6}, 1,
	    (Arg[]){arg_val(d)}));
	/* three reshapes back to x's own shape: x itself */
	ValId g = view(f, "g", x, 1, (int64_t[]){6});
	ValId h = view(f, "h", g, 2, (int64_t[]){3, 2});
	ValId i = view(f, "i", h, 2, (int64_t[]){2, 3});
	output(f, onnx(f, "Neg", "q", DT_F32, 2, (int64_t[]){2, 3}, 1,
	    (Arg[]){arg_val(i)}));
	assert_int_equal(run(f, "merge-layout-chains,dce", false), 0);
	assert_int_equal(count_op(f, "Transpose"), 1);
	assert_int_equal(count_op(f, "Reshape"), 3);
	NodeId q = ir_val(f->g, f->g->outputs[2])->def;
	assert_int_equal(operand(f, q, 0), x);
}

/* ---------------------------------------------------- fuse-pool-flatten */

static void
pool_flatten_is_a_reduce_mean(void **state)
{
	Fix *f = *state;
	static const int64_t sx[] = {2, 3, 4, 4}, sp[] = {2, 3, 1, 1};
	ValId x = input(f, "x", DT_F32, 4, sx, ROLE_USER_INPUT, NULL);
	ValId p = onnx(f, "GlobalAveragePool", "p", DT_F32, 4, sp, 1,
	    (Arg[]){arg_val(x)});
	ValId y = view(f, "y", p, 2, (int64_t[]){2, 3});
	ValId q = onnx(f, "GlobalAveragePool", "q", DT_F32, 4, sp, 1,
	    (Arg[]){arg_val(x)});
	/* (N*C): not the pool's (N, C) */
	ValId z = view(f, "z", q, 1, (int64_t[]){6});
	output(f, onnx(f, "Neg", "o", DT_F32, 2, (int64_t[]){2, 3}, 1,
	    (Arg[]){arg_val(y)}));
	output(f, onnx(f, "Neg", "w", DT_F32, 1, (int64_t[]){6}, 1,
	    (Arg[]){arg_val(z)}));
	assert_int_equal(run(f, "fuse-pool-flatten,dce", false), 0);
	assert_int_equal(count_op(f, "GlobalAveragePool"), 1);
	NodeId m = find_op(f, "ReduceMean");
	assert_int_not_equal(m, 0);
	assert_int_equal(operand(f, m, 0), x);
	int64_t axes[8];
	assert_int_equal(const_ints(f, m, 1, axes), 2);
	assert_int_equal(axes[0], 2);
	assert_int_equal(axes[1], 3);
	assert_int_equal(ir_find_arg(f->m, f->g, m, -1, "keepdims")->u.i, 0);
	assert_int_equal(operand(f, ir_val(f->g, f->g->outputs[0])->def, 0),
	    ir_nodep(f->g, m)->out);
}

int
main(void)
{
	if (find_plugins() < 0) {
		fprintf(stderr, "test_opt_layout: set ONNXC_BIN or "
		    "ONNXC_PLUGIN_DIR to find the plugin modules\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(einsum_reads_and_writes_through_transposes),
		T(einsum_leaves_shared_transposes_and_ellipses),
		T(layout_merges_a_window_partition),
		T(layout_leaves_shared_steps_and_drops_round_trips),
		T(pool_flatten_is_a_reduce_mean),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

