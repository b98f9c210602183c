/* test_opt_big.c - the -O2 passes on weights of full size never hold a
 * changed weight in memory: the host's tensor_make fills a big tensor a
 * bounded piece at a time into its scratch file (a registered source, as
 * a mapped weight is), fuse-conv-bn and fold-scales scale weights through
 * it, fold shares a view's bytes, streams a slice and leaves a big
 * Transpose alone, and cse tells big constants apart by where their bytes
 * are.  A deferred tensor (tensor_make_deferred) is made only as the
 * writer streams it, or into the scratch file when something reads it
 * first; merge-matmuls puts weights side by side so too.  Weights here are mapped from a file, as onnxc maps them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/copy.h"
#include "backend/out.h"
#include "pipeline/pipeline.h"
#include "plugins/host.h"
#include "pass_fixture.h"
#include "opt_fixture.h"

/* A weight value a test can recompute. */
static float
wv(uint64_t i)
{
	return (float)((int)(i * 2654435761u >> 20) % 201 - 100) / 64.0f;
}

/* n floats wv(0..n) mapped read-only from a file and registered as a
 * source, as the driver maps a weights file. */
static const float *
mapped(uint64_t n)
{
	char path[] = "/tmp/onnxc-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	float buf[1024];
	for (uint64_t i = 0; i < n; i += 1024) {
		uint64_t k = n - i < 1024 ? n - i : 1024;
		for (uint64_t j = 0; j < k; j++)
			buf[j] = wv(i + j);
		assert_int_equal(write(fd, buf, k * 4), (ssize_t)(k * 4));
	}
	void *p = mmap(NULL, n * 4, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(be_src_add(p, n * 4, fd, "weights"), 0);
	return p;
}

static void
unmapped(const float *w, uint64_t n)
{
	int fd;
	uint64_t off;
	assert_true(be_src_find(w, n * 4, &fd, &off));
	be_src_remove(w);
	munmap((void *)w, n * 4);
	close(fd);
}

/* t's bytes are in a source other than the weights at w: the scratch
 * file, not the heap or the arena. */
static void
assert_streamed(const Tensor *t, const float *w, uint64_t n)
{
	int fd;
	uint64_t off;
	assert_true(be_src_find(t->data, t->nbytes, &fd, &off));
	const unsigned char *p = t->data, *a = (const unsigned char *)w;
	if (a)
		assert_true(p + t->nbytes <= a || p >= a + n * 4);
}

static ValId
relu(Fix *f, const char *name, ValId x, int rank, const int64_t *dims)
{
	return onnx(f, "Relu", name, DT_F32, rank, dims, 1,
	    (Arg[]){arg_val(x)});
}

/* ---------------------------------------------------------- tensor_make */

typedef struct Pieces {
	uint64_t next, most, calls;
} Pieces;

static int
fill_index(void *user, uint64_t first, uint64_t count, void *out)
{
	Pieces *p = user;
	assert_int_equal(first, p->next);   /* in order, once each */
	p->next += count;
	p->most = count > p->most ? count : p->most;
	p->calls++;
	for (uint64_t i = 0; i < count; i++)
		((float *)out)[i] = wv(first + i);
	return 0;
}

static int
fill_fails(void *user, uint64_t first, uint64_t count, void *out)
{
	(void)user, (void)first, (void)count, (void)out;
	return 1;
}

static void
make_fills_big_tensors_a_piece_at_a_time(void **state)
{
	Fix *f = *state;
	onnxc_ctx c;
	pl_ctx_init(&c, f->m, f->reg);
	const int64_t big[] = {3 << 20}, small[] = {100};
	Pieces p = {0};
	onnxc_tensor bt = pl_host.tensor_make(&c, DT_F32, 1, big, fill_index,
	    &p);
	assert_int_not_equal(bt, 0);
	const Tensor *tp = ir_tensorp(f->m, bt);
	assert_int_equal(tp->nbytes, (uint64_t)big[0] * 4);
	assert_int_equal(p.next, (uint64_t)big[0]);
	assert_true(p.calls > 1 && p.most * 4 <= (4u << 20));
	assert_streamed(tp, NULL, 0);
	for (uint64_t i = 0; i < (uint64_t)big[0]; i += 4093)
		assert_true(((const float *)tp->data)[i] == wv(i));
	/* a small one is made at once, in the arena */
	Pieces q = {0};
	onnxc_tensor t = pl_host.tensor_make(&c, DT_F32, 1, small,
	    fill_index, &q);
	int fd;
	uint64_t off;
	assert_int_equal(q.calls, 1);
	assert_false(be_src_find(ir_tensorp(f->m, t)->data, 400, &fd, &off));
	assert_true(((const float *)ir_tensorp(f->m, t)->data)[99] == wv(99));
	/* a fill that fails makes nothing */
	assert_int_equal(pl_host.tensor_make(&c, DT_F32, 1, big, fill_fails,
	    NULL), 0);
	/* a view shares the bytes */
	const int64_t two[] = {3, 1 << 20};
	onnxc_tensor v = pl_host.tensor_view(&c, bt, 2, two);
	assert_int_not_equal(v, 0);
	assert_ptr_equal(ir_tensorp(f->m, v)->data,
	    ir_tensorp(f->m, bt)->data);
	assert_int_equal(pl_host.tensor_view(&c, bt, 1, small), 0);
	pl_ctx_fini(&c);
}

/* ------------------------------------------------- tensor_make_deferred */

/* The host copies a deferred tensor's user data: the counts are reached
 * through a pointer in the copy. */
typedef struct Ref {
	Pieces *p;
} Ref;

static int
fill_ref(void *user, uint64_t first, uint64_t count, void *out)
{
	return fill_index(((Ref *)user)->p, first, count, out);
}

/* What a writer is handed: checked against wv, element by element. */
typedef struct Got {
	uint64_t next, most;
} Got;

static int
put_check(void *ctx, const void *p, size_t n)
{
	Got *g = ctx;
	const float *f = p;
	assert_int_equal(n % 4, 0);
	for (size_t i = 0; i < n / 4; i++)
		if (f[i] != wv(g->next + i))
			fail_msg("element %llu", (unsigned long long)(g->next + i));
	g->next += n / 4;
	g->most = n > g->most ? n : g->most;
	return 0;
}

/* What a writer is handed, copied out. */
typedef struct Sink {
	float *to;
	uint64_t at;    /* bytes */
} Sink;

static int
put_copy(void *ctx, const void *p, size_t n)
{
	Sink *k = ctx;
	memcpy((char *)k->to + k->at, p, n);
	k->at += n;
	return 0;
}

static int
emit_tensor(void *ctx, BeOut *o)
{
	const Tensor *t = ctx;
	return be_out_write(o, t->data, t->nbytes);
}

static void
deferred_tensors_are_made_as_written_or_when_read(void **state)
{
	Fix *f = *state;
	onnxc_ctx c;
	pl_ctx_init(&c, f->m, f->reg);
	const uint64_t n = 3 << 20;
	const int64_t big[] = {(int64_t)n}, small[] = {100};
	Pieces p = {0};
	Ref ref = {&p};
	onnxc_tensor bt = pl_host.tensor_make_deferred(&c, DT_F32, 1, big,
	    fill_ref, &ref, sizeof ref);
	assert_int_not_equal(bt, 0);
	const Tensor *tp = ir_tensorp(f->m, bt);
	assert_int_equal(tp->nbytes, n * 4);
	assert_int_equal(p.calls, 0);          /* nothing made yet */
	assert_streamed(tp, NULL, 0);
	/* a writer has it made, a bounded piece at a time, as often as it
	 * writes it, and it stays unmade */
	for (int k = 0; k < 2; k++) {
		Got g = {0};
		p = (Pieces){0};
		assert_int_equal(be_src_make(tp->data, tp->nbytes, put_check,
		    &g), 0);
		assert_int_equal(g.next, n);
		assert_true(p.calls > 1 && g.most <= (1u << 20));
	}
	/* into a file, through the output's buffer */
	char dir[] = "/tmp/onnxc-test-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/t.bin", dir);
	p = (Pieces){0};
	assert_int_equal(be_write_atomic(f->m, path, emit_tensor,
	    (void *)tp), 0);
	assert_int_equal(p.next, n);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	float buf[4096];
	for (uint64_t i = 0; i < n; i += 4096) {
		assert_int_equal(fread(buf, 4, 4096, fp), 4096);
		for (int j = 0; j < 4096; j++)
			if (buf[j] != wv(i + (uint64_t)j))
				fail_msg("file element %llu",
				    (unsigned long long)(i + (uint64_t)j));
	}
	fclose(fp);
	unlink(path);
	rmdir(dir);
	/* a reader (a later pass) has it made into the scratch file on its
	 * first read; writers then copy those bytes */
	p = (Pieces){0};
	const float *d = tp->data;
	assert_true(d[12345] == wv(12345));
	assert_int_equal(p.next, n);
	assert_true(d[n - 1] == wv(n - 1));
	Got g = {0};
	assert_int_equal(be_src_make(tp->data, tp->nbytes, put_check, &g),
	    -1);
	/* a writer asking for other than whole elements of one tensor has
	 * it made into the scratch file, and copies */
	Pieces q = {0};
	Ref rq = {&q};
	onnxc_tensor ut = pl_host.tensor_make_deferred(&c, DT_F32, 1, big,
	    fill_ref, &rq, sizeof rq);
	const Tensor *up = ir_tensorp(f->m, ut);
	assert_int_equal(be_src_make((const char *)up->data + 2, 1 << 20,
	    put_check, &g), -1);
	assert_int_equal(q.next, n);
	assert_true(((const float *)up->data)[77] == wv(77));
	/* a small one is made at once, in the arena */
	Pieces r = {0};
	Ref rr = {&r};
	onnxc_tensor st = pl_host.tensor_make_deferred(&c, DT_F32, 1, small,
	    fill_ref, &rr, sizeof rr);
	assert_int_equal(r.calls, 1);
	int fd;
	uint64_t off;
	assert_false(be_src_find(ir_tensorp(f->m, st)->data, 400, &fd,
	    &off));
	pl_ctx_fini(&c);
}

/* -------------------------------------------------------- fuse-conv-bn */

static void
convbn_scales_a_big_weight_as_it_streams(void **state)
{
	Fix *f = *state;
	enum { M = 256, C = 256, K = 3 };
	const uint64_t n = (uint64_t)M * C * K * K;
	const float *w = mapped(n);
	static float g[M], h[M], mu[M], var[M];
	for (int i = 0; i < M; i++) {
		g[i] = 1 + i % 5 * 0.25f;
		h[i] = 0.5f - i % 3;
		mu[i] = i % 7 * 0.125f;
		var[i] = 1 + i % 4;
	}
	const int64_t sx[] = {1, C, 8, 8}, sy[] = {1, M, 6, 6};
	const int64_t sw[] = {M, C, K, K}, sm[] = {M};
	ValId x = input(f, "x", DT_F32, 4, sx, ROLE_USER_INPUT, NULL);
	ValId wt = input(f, "conv.weight", DT_F32, 4, sw, ROLE_PARAM, w);
	ValId a = input(f, "bn.weight", DT_F32, 1, sm, ROLE_PARAM, g);
	ValId b = input(f, "bn.bias", DT_F32, 1, sm, ROLE_PARAM, h);
	ValId m = input(f, "bn.mean", DT_F32, 1, sm, ROLE_BUFFER, mu);
	ValId v = input(f, "bn.var", DT_F32, 1, sm, ROLE_BUFFER, var);
	ValId cv = onnx(f, "Conv", "conv", DT_F32, 4, sy, 2,
	    (Arg[]){arg_val(x), arg_val(wt)});
	ValId bn = onnx(f, "BatchNormalization", "bn", DT_F32, 4, sy, 6,
	    (Arg[]){arg_val(cv), arg_val(a), arg_val(b), arg_val(m),
	    arg_val(v), kw(f, "epsilon", arg_float(1e-5))});
	output(f, relu(f, "y", bn, 4, sy));
	if (run(f, "fuse-conv-bn,dce", false))
		fail_msg("%s", diags(f));
	assert_int_equal(count_op(f, "BatchNormalization"), 0);
	const Tensor *nw = weight_of(f, find_op(f, "Conv"), 1);
	assert_int_equal(nw->nbytes, n * 4);
	assert_streamed(nw, w, n);
	/* the same numbers the whole-tensor loop made */
	const float *o = nw->data;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t ch = i / (C * K * K);
		double s = g[ch] / sqrt((double)var[ch] + 1e-5);
		if (o[i] != (float)(wv(i) * s))
			fail_msg("element %llu", (unsigned long long)i);
	}
	unmapped(w, n);
}

/* A deferred weight made from another deferred weight: fold-scales on
 * the conv fuse-conv-bn made.  Its fill reads the first one's pages as
 * the writer streams it, which makes that one into the scratch file on
 * the way (the fault handler), and the bytes are the product of both. */
static void
scales_on_a_deferred_weight_make_it_on_the_way(void **state)
{
	Fix *f = *state;
	enum { M = 256, C = 128, K = 3 };
	const uint64_t n = (uint64_t)M * C * K * K;
	const float *w = mapped(n);
	static float g[M], h[M], mu[M], var[M], two[M];
	for (int i = 0; i < M; i++) {
		g[i] = 1 + i % 3 * 0.5f;
		h[i] = 0.25f;
		mu[i] = 0;
		var[i] = 1 + i % 2;
		two[i] = 2 + i % 4;
	}
	const int64_t sx[] = {1, C, 8, 8}, sy[] = {1, M, 6, 6};
	const int64_t sw[] = {M, C, K, K}, sm[] = {M}, sc[] = {1, M, 1, 1};
	ValId x = input(f, "x", DT_F32, 4, sx, ROLE_USER_INPUT, NULL);
	ValId wt = input(f, "conv.weight", DT_F32, 4, sw, ROLE_PARAM, w);
	ValId a = input(f, "bn.weight", DT_F32, 1, sm, ROLE_PARAM, g);
	ValId b = input(f, "bn.bias", DT_F32, 1, sm, ROLE_PARAM, h);
	ValId m = input(f, "bn.mean", DT_F32, 1, sm, ROLE_BUFFER, mu);
	ValId v = input(f, "bn.var", DT_F32, 1, sm, ROLE_BUFFER, var);
	ValId k = input(f, "k", DT_F32, 4, sc, ROLE_CONST, two);
	ValId cv = onnx(f, "Conv", "conv", DT_F32, 4, sy, 2,
	    (Arg[]){arg_val(x), arg_val(wt)});
	ValId bn = onnx(f, "BatchNormalization", "bn", DT_F32, 4, sy, 6,
	    (Arg[]){arg_val(cv), arg_val(a), arg_val(b), arg_val(m),
	    arg_val(v), kw(f, "epsilon", arg_float(1e-5))});
	ValId mul = onnx(f, "Mul", "k_bn", DT_F32, 4, sy, 2,
	    (Arg[]){arg_val(bn), arg_val(k)});
	output(f, relu(f, "y", mul, 4, sy));
	if (run(f, "fuse-conv-bn,dce,fold-scales,dce", false))
		fail_msg("%s", diags(f));
	assert_int_equal(count_op(f, "BatchNormalization"), 0);
	assert_int_equal(count_op(f, "Mul"), 0);
	const Tensor *nw = weight_of(f, find_op(f, "Conv"), 1);
	assert_streamed(nw, w, n);
	/* as the writer has them made: the same numbers a direct read gets */
	float *seen = malloc(n * 4);
	assert_non_null(seen);
	Sink sink = {seen, 0};
	assert_int_equal(be_src_make(nw->data, nw->nbytes, put_copy, &sink),
	    0);
	assert_int_equal(sink.at, n * 4);
	const float *o = nw->data;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t ch = i / (C * K * K);
		double s = g[ch] / sqrt((double)var[ch] + 1e-5);
		float once = (float)(wv(i) * s);
		if (o[i] != (float)((double)once * two[ch]) || seen[i] != o[i])
			fail_msg("element %llu", (unsigned long long)i);
	}
	free(seen);
	unmapped(w, n);
}

/* --------------------------------------------------------- fold-scales */

static void
scales_scale_a_big_weight_as_it_streams(void **state)
{
	Fix *f = *state;
	enum { N = 1024 };
	const uint64_t n = (uint64_t)N * N;
	const float *w = mapped(n);
	static const float half[] = {0.5f};
	const int64_t sh[] = {4, N}, sw[] = {N, N}, s1[] = {1};
	ValId x = input(f, "x", DT_F32, 2, sh, ROLE_USER_INPUT, NULL);
	ValId wt = input(f, "fc.weight", DT_F32, 2, sw, ROLE_PARAM, w);
	ValId c = input(f, "half", DT_F32, 1, s1, ROLE_CONST, half);
	ValId mm = onnx(f, "MatMul", "mm", DT_F32, 2, sh, 2,
	    (Arg[]){arg_val(x), arg_val(wt)});
	output(f, relu(f, "y", onnx(f, "Mul", "half_mm", DT_F32, 2, sh, 2,
	    (Arg[]){arg_val(mm), arg_val(c)}), 2, sh));
	if (run(f, "fold-scales,dce", false))
		fail_msg("%s", diags(f));
	assert_int_equal(count_op(f, "Mul"), 0);
	const Tensor *nw = weight_of(f, find_op(f, "MatMul"), 1);
	assert_streamed(nw, w, n);
	const float *o = nw->data;
	for (uint64_t i = 0; i < n; i++)
		if (o[i] != wv(i) * 0.5f)
			fail_msg("element %llu", (unsigned long long)i);
	unmapped(w, n);
}

/* ------------------------------------------------------- merge-matmuls */

/* x times three weights, each plus its bias (the third Add with the bias
 * first), become one MatMul by the weights side by side (made as it is
 * streamed, from the mapped bytes), one Add of the biases end to end and
 * a Split back into the three results. */
static void
matmuls_merge_projections_and_biases(void **state)
{
	Fix *f = *state;
	enum { K = 256, NQ = 512, NK = 384, NV = 128 };
	const int64_t cols[3] = {NQ, NK, NV};
	const uint64_t n = (uint64_t)K * (NQ + NK + NV);
	const float *w = mapped(n);
	static float b[NQ + NK + NV];
	for (int i = 0; i < NQ + NK + NV; i++)
		b[i] = (float)i / 8;
	const int64_t sx[] = {2, 3, K};
	ValId x = input(f, "x", DT_F32, 3, sx, ROLE_USER_INPUT, NULL);
	uint64_t at = 0, bat = 0;
	ValId r[3];
	for (int i = 0; i < 3; i++) {
		char nm[32];
		const int64_t sw[] = {K, cols[i]}, so[] = {2, 3, cols[i]};
		snprintf(nm, sizeof nm, "w%d", i);
		ValId wt = input(f, nm, DT_F32, 2, sw, ROLE_PARAM, w + at);
		snprintf(nm, sizeof nm, "b%d", i);
		ValId bi = input(f, nm, DT_F32, 1, &cols[i], ROLE_CONST, b + bat);
		snprintf(nm, sizeof nm, "mm%d", i);
		ValId mm = onnx(f, "MatMul", nm, DT_F32, 3, so, 2,
		    (Arg[]){arg_val(x), arg_val(wt)});
		snprintf(nm, sizeof nm, "add%d", i);
		ValId ad = onnx(f, "Add", nm, DT_F32, 3, so, 2, i == 2 ?
		    (Arg[]){arg_val(bi), arg_val(mm)} :
		    (Arg[]){arg_val(mm), arg_val(bi)});
		snprintf(nm, sizeof nm, "r%d", i);
		output(f, r[i] = relu(f, nm, ad, 3, so));
		at += (uint64_t)K * (uint64_t)cols[i];
		bat += (uint64_t)cols[i];
	}
	if (run(f, "merge-matmuls,dce", false))
		fail_msg("%s", diags(f));
	assert_int_equal(count_op(f, "MatMul"), 1);
	assert_int_equal(count_op(f, "Add"), 1);
	NodeId mn = find_op(f, "MatMul"), an = find_op(f, "Add");
	NodeId sn = find_op(f, "Split");
	assert_int_equal(operand(f, mn, 0), x);
	assert_int_equal(operand(f, an, 0), ir_nodep(f->g, mn)->out);
	assert_int_equal(operand(f, sn, 0), ir_nodep(f->g, an)->out);
	const Value *sv = ir_val(f->g, ir_nodep(f->g, sn)->out);
	assert_int_equal(sv->rank, 3);
	int64_t sizes[4];
	assert_int_equal(const_ints(f, sn, 1, sizes), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(sizes[i], cols[i]);
		NodeId rn = ir_val(f->g, r[i])->def;
		assert_int_equal(operand(f, rn, 0), ir_nodep(f->g, sn)->out + i);
	}
	const Tensor *bt = const_of(f, operand(f, an, 1));
	assert_memory_equal(bt->data, b, sizeof b);
	/* row k of the new weight: row k of each weight in turn */
	const Tensor *nw = weight_of(f, mn, 1);
	assert_int_equal(nw->rank, 2);
	assert_int_equal(nw->dims[1], NQ + NK + NV);
	assert_streamed(nw, w, n);
	const float *o = nw->data;
	for (uint64_t k = 0, i = 0; k < K; k++)
		for (int p = 0, base = 0; p < 3; base += K * (int)cols[p++])
			for (int64_t c = 0; c < cols[p]; c++, i++)
				if (o[i] != wv((uint64_t)base + k *
				    (uint64_t)cols[p] + (uint64_t)c))
					fail_msg("element %llu",
					    (unsigned long long)i);
	unmapped(w, n);
}

/* A Linear's weight comes transposed (V [N, K] under a Transpose, which
 * fold leaves from 1 MiB on): the V_i are stacked, one after another,
 * under one Transpose. */
static void
matmuls_stack_transposed_weights(void **state)
{
	Fix *f = *state;
	enum { K = 512, N0 = 256, N1 = 768 };
	const int64_t rows[2] = {N0, N1};
	const uint64_t n = (uint64_t)K * (N0 + N1);
	const float *w = mapped(n);
	const int64_t sx[] = {7, K};
	ValId x = input(f, "x", DT_F32, 2, sx, ROLE_USER_INPUT, NULL);
	uint64_t at = 0;
	for (int i = 0; i < 2; i++) {
		char nm[32];
		const int64_t sv[] = {rows[i], K}, st[] = {K, rows[i]};
		const int64_t so[] = {7, rows[i]};
		snprintf(nm, sizeof nm, "v%d", i);
		ValId v = input(f, nm, DT_F32, 2, sv, ROLE_PARAM, w + at);
		snprintf(nm, sizeof nm, "t%d", i);
		ValId t = onnx(f, "Transpose", nm, DT_F32, 2, st, 2,
		    (Arg[]){arg_val(v), kw(f, "perm", ints(f, 2,
		    (int64_t[]){1, 0}))});
		snprintf(nm, sizeof nm, "mm%d", i);
		ValId mm = onnx(f, "MatMul", nm, DT_F32, 2, so, 2,
		    (Arg[]){arg_val(x), arg_val(t)});
		snprintf(nm, sizeof nm, "r%d", i);
		output(f, relu(f, nm, mm, 2, so));
		at += (uint64_t)K * (uint64_t)rows[i];
	}
	if (run(f, "merge-matmuls,dce", false))
		fail_msg("%s", diags(f));
	assert_int_equal(count_op(f, "MatMul"), 1);
	assert_int_equal(count_op(f, "Transpose"), 1);
	NodeId mn = find_op(f, "MatMul"), tn = find_op(f, "Transpose");
	assert_int_equal(operand(f, mn, 1), ir_nodep(f->g, tn)->out);
	const Dim *td = ir_dims(f->g, ir_nodep(f->g, tn)->out);
	assert_non_null(td);
	assert_int_equal(td[0].n, K);
	assert_int_equal(td[1].n, N0 + N1);
	const Tensor *nw = weight_of(f, tn, 0);
	assert_int_equal(nw->dims[0], N0 + N1);
	assert_int_equal(nw->dims[1], K);
	assert_streamed(nw, w, n);
	const float *o = nw->data;
	for (uint64_t i = 0; i < n; i++)
		if (o[i] != wv(i))
			fail_msg("element %llu", (unsigned long long)i);
	unmapped(w, n);
}

/* Two MatMuls of x where one has no bias merge without the biases; one of
 * another input, and one whose result is a graph output, stay. */
static void
matmuls_leave_what_does_not_match(void **state)
{
	Fix *f = *state;
	enum { K = 4, N = 3 };
	static float wb[4][K * N], bias[N] = {1, 2, 3};
	const int64_t sx[] = {5, K}, sw[] = {K, N}, so[] = {5, N}, sn = N;
	ValId x = input(f, "x", DT_F32, 2, sx, ROLE_USER_INPUT, NULL);
	ValId y = input(f, "y", DT_F32, 2, sx, ROLE_USER_INPUT, NULL);
	ValId bi = input(f, "bias", DT_F32, 1, &sn, ROLE_CONST, bias);
	ValId in[4] = {x, x, y, x}, mm[4];
	for (int i = 0; i < 4; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "w%d", i);
		ValId wt = input(f, nm, DT_F32, 2, sw, ROLE_CONST, wb[i]);
		snprintf(nm, sizeof nm, "mm%d", i);
		mm[i] = onnx(f, "MatMul", nm, DT_F32, 2, so, 2,
		    (Arg[]){arg_val(in[i]), arg_val(wt)});
	}
	output(f, relu(f, "r0", onnx(f, "Add", "a0", DT_F32, 2, so, 2,
	    (Arg[]){arg_val(mm[0]), arg_val(bi)}), 2, so));
	output(f, relu(f, "r1", mm[1], 2, so));
	output(f, relu(f, "r2", mm[2], 2, so));
	output(f, mm[3]);
	if (run(f, "merge-matmuls,dce", false))
		fail_msg("%s", diags(f));
	/* mm0 and mm1 are one, the Add stays after the Split */
	assert_int_equal(count_op(f, "MatMul"), 3);
	assert_int_equal(count_op(f, "Split"), 1);
	assert_int_equal(count_op(f, "Add"), 1);
	NodeId sn2 = find_op(f, "Split");
	NodeId a0 = find_op(f, "Add");
	assert_int_equal(operand(f, a0, 0), ir_nodep(f->g, sn2)->out);
	assert_int_equal(ir_val(f->g, f->g->outputs[3])->def,
	    ir_val(f->g, mm[3])->def);
}

/* ---------------------------------------------------------------- fold */

static void
fold_shares_views_streams_slices_and_leaves_transposes(void **state)
{
	Fix *f = *state;
	enum { R = 1024, L = 512 };
	const uint64_t n = (uint64_t)R * L;
	const float *w = mapped(n);
	const int64_t sw[] = {R, L}, sr[] = {L, R}, sv[] = {R * L};
	const int64_t ss[] = {R / 2, L};
	static const int64_t shape[] = {R * L}, st[] = {1}, en[] = {R},
	    ax[] = {0};
	ValId wt = input(f, "w", DT_F32, 2, sw, ROLE_CONST, w);
	ValId flat = onnx(f, "Reshape", "flat", DT_F32, 1, sv, 2,
	    (Arg[]){arg_val(wt), arg_val(i64_const(f, "shape", 1, shape))});
	ValId two = i64_const(f, "two", 1, (const int64_t[]){2});
	ValId odd = onnx(f, "Slice", "odd", DT_F32, 2, ss, 5,
	    (Arg[]){arg_val(wt), arg_val(i64_const(f, "st", 1, st)),
	    arg_val(i64_const(f, "en", 1, en)),
	    arg_val(i64_const(f, "ax", 1, ax)), arg_val(two)});
	ValId tr = onnx(f, "Transpose", "wt", DT_F32, 2, sr, 2,
	    (Arg[]){arg_val(wt), kw(f, "perm", ints(f, 2,
	    (int64_t[]){1, 0}))});
	output(f, relu(f, "y0", flat, 1, sv));
	output(f, relu(f, "y1", odd, 2, ss));
	output(f, relu(f, "y2", tr, 2, sr));
	if (run(f, "fold{max-size=268435456},dce", false))
		fail_msg("%s", diags(f));
	assert_int_equal(count_op(f, "Reshape"), 0);
	assert_int_equal(count_op(f, "Slice"), 0);
	assert_int_equal(count_op(f, "Transpose"), 1);
	const Tensor *tf = const_of(f, operand(f, find_op(f, "Relu"), 0));
	const Tensor *to = const_of(f, operand(f, ir_val(f->g,
	    f->g->outputs[1])->def, 0));
	assert_non_null(tf);
	assert_non_null(to);
	assert_ptr_equal(tf->data, w);
	assert_int_equal(tf->rank, 1);
	assert_streamed(to, w, n);
	const float *o = to->data;
	for (uint64_t r = 0; r < R / 2; r++)
		for (uint64_t c = 0; c < L; c++)
			if (o[r * L + c] != wv((2 * r + 1) * L + c))
				fail_msg("row %llu", (unsigned long long)r);
	unmapped(w, n);
}

/* ----------------------------------------------------------------- cse */

/* A Constant node holding n floats at data. */
static ValId
big_const(Fix *f, const char *name, const int64_t *n, const float *data)
{
	Tensor t = {.dtype = DT_F32, .rank = 1, .dims = (int64_t *)n,
		.data = data, .nbytes = (uint64_t)n[0] * 4};
	return onnx(f, "Constant", name, DT_F32, 1, n, 1,
	    (Arg[]){kw(f, "value", (Arg){.kind = A_TENSOR,
	    .u.t = ir_tensor(f->m, &t)})});
}

static void
cse_tells_big_constants_apart_by_place(void **state)
{
	Fix *f = *state;
	static const int64_t n[] = {1 << 16};
	float *a = calloc((size_t)n[0], 4), *b = calloc((size_t)n[0], 4);
	ValId x = input(f, "x", DT_F32, 1, n, ROLE_USER_INPUT, NULL);
	ValId c[3] = {big_const(f, "c0", n, a), big_const(f, "c1", n, a),
	    big_const(f, "c2", n, b)};
	ValId y = x;
	for (int i = 0; i < 3; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "y%d", i);
		y = onnx(f, "Add", nm, DT_F32, 1, n, 2,
		    (Arg[]){arg_val(y), arg_val(c[i])});
	}
	output(f, y);
	assert_int_equal(run(f, "cse,dce", false), 0);
	/* c1 is c0 (the same bytes); c2 only equals it, and stays */
	assert_int_equal(count_op(f, "Constant"), 2);
	free(a);
	free(b);
}

int
main(void)
{
	if (find_plugins() < 0) {
		fprintf(stderr, "test_opt_big: set ONNXC_BIN or "
		    "ONNXC_PLUGIN_DIR to find the plugin modules\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(make_fills_big_tensors_a_piece_at_a_time),
		T(deferred_tensors_are_made_as_written_or_when_read),
		T(convbn_scales_a_big_weight_as_it_streams),
		T(scales_scale_a_big_weight_as_it_streams),
		T(scales_on_a_deferred_weight_make_it_on_the_way),
		T(matmuls_merge_projections_and_biases),
		T(matmuls_stack_transposed_weights),
		T(matmuls_leave_what_does_not_match),
		T(fold_shares_views_streams_slices_and_leaves_transposes),
		T(cse_tells_big_constants_apart_by_place),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
