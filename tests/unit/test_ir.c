/* test_ir.c - arena, strings, expressions, graphs, diagnostics, verifier,
 * printer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <onnxc/table.h>

#include "ir/ir.h"

/* Diagnostics of a module go to a growing string. */
typedef struct Capture {
	char *buf;
	size_t len;
} Capture;

static void
capture(Module *m, Capture *c)
{
	c->buf = NULL;
	c->len = 0;
	m->diagout = open_memstream(&c->buf, &c->len);
}

static void
test_arena(void **state)
{
	(void)state;
	Arena *a = arena_new();
	for (int i = 1; i < 2000; i += 37) {
		unsigned char *p = arena_alloc(a, (size_t)i);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (int k = 0; k < i; k++)
			assert_int_equal(p[k], 0);
		memset(p, 0xab, (size_t)i);
	}
	unsigned char *big = arena_alloc(a, 1 << 20);
	assert_non_null(big);
	big[(1 << 20) - 1] = 1;
	char *s = arena_strndup(a, "hello world", 5);
	assert_string_equal(s, "hello");
	arena_free(a);
}

/* arena_release gives back what came after its mark, and only that:
 * normal blocks made after it, big blocks slotted behind the head, and
 * the head's used space; what came before keeps its contents. */
static void
test_arena_mark_release(void **state)
{
	(void)state;
	Arena *a = arena_new();
	ArenaMark m0 = arena_mark(a); /* on an empty arena */
	(void)arena_alloc(a, 100);
	(void)arena_alloc(a, 1 << 20);
	arena_release(a, m0);
	char *keep = arena_strndup(a, "kept", 4);
	ArenaMark m1 = arena_mark(a);
	unsigned char *p1 = arena_alloc(a, 64);
	memset(p1, 0xcd, 64);
	ArenaMark m2 = arena_mark(a);
	for (int i = 0; i < 100; i++) /* several new blocks */
		memset(arena_alloc(a, 4000), 0xee, 4000);
	unsigned char *big = arena_alloc(a, 1 << 20);
	big[0] = 1;
	arena_release(a, m2);
	/* the next allocation starts where the mark was, zeroed */
	unsigned char *p2 = arena_alloc(a, 64);
	assert_ptr_equal(p2, p1 + 64);
	for (int k = 0; k < 64; k++) {
		assert_int_equal(p1[k], 0xcd);
		assert_int_equal(p2[k], 0);
	}
	arena_release(a, m1);
	assert_ptr_equal(arena_alloc(a, 64), p1);
	assert_string_equal(keep, "kept");
	/* a big block behind the marked head goes, the head stays */
	ArenaMark m3 = arena_mark(a);
	(void)arena_array(a, 1 << 17, sizeof(int64_t));
	unsigned char *p3 = arena_alloc(a, 16);
	arena_release(a, m3);
	assert_ptr_equal(arena_alloc(a, 16), p3);
	assert_string_equal(keep, "kept");
	/* sizes that cannot be had are NULL, for errors as values */
	assert_null(arena_try_array(a, SIZE_MAX / 8, 16));
	assert_null(arena_try_alloc(a, SIZE_MAX - 8));
	assert_non_null(arena_try_array(a, 4, 16));
	arena_free(a);
}

/* Blocks grow with the arena, big ones are mapped with huge pages and
 * reused after a release: whatever the block's history, arena_alloc's
 * memory is zero, and arena_alloc_nz leaves what was there. */
static void
test_arena_big_blocks_reuse(void **state)
{
	(void)state;
	Arena *a = arena_new();
	size_t total = 0;
	unsigned char *first = arena_alloc(a, 1000), *prev = first;
	size_t jumps = 0;
	/* 64 MiB in 1000-byte pieces: the blocks double, so few jumps */
	for (; total < (64u << 20); total += 1008) {
		unsigned char *p = arena_alloc(a, 1000);
		assert_int_equal(p[0] | p[999], 0);
		memset(p, 0xab, 1000);
		if (p != prev + 1008)
			jumps++;
		prev = p;
	}
	assert_true(jumps < 20);
	ArenaMark mk = arena_mark(a);
	unsigned char *big = arena_alloc(a, 3u << 20); /* mapped on its own */
	assert_int_equal(((uintptr_t)big & 15), 0);
	memset(big, 0x5a, 3u << 20);
	arena_release(a, mk);
	/* the spare comes back for the next big request, zeroed */
	unsigned char *again = arena_alloc(a, 3u << 20);
	assert_ptr_equal(again, big);
	for (size_t i = 0; i < (3u << 20); i += 4093)
		assert_int_equal(again[i], 0);
	arena_release(a, mk);
	/* not zeroed: the bytes of the last use stay */
	memset(arena_alloc(a, 256), 0x77, 256);
	arena_release(a, mk);
	unsigned char *nz = arena_alloc_nz(a, 256);
	assert_int_equal(nz[0], 0x77);
	assert_int_equal(nz[255], 0x77);
	char *s = arena_strndup(a, "abc", 3);
	assert_string_equal(s, "abc");
	assert_int_equal(first[0], 0);
	arena_free(a);
}

/* Tables from 1 MiB start on a 2 MiB boundary and come zeroed; smaller
 * ones are plain calloc; a vector keeps its contents as it crosses into
 * big tables and doubles there. */
static void
test_big_tables(void **state)
{
	(void)state;
	const uintptr_t two = (uintptr_t)2 << 20;
	size_t sizes[] = {1000, (1u << 20) - 8, 1u << 20, (3u << 20) + 5};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		unsigned char *t = onnxc_table_calloc(sizes[i], 1);
		assert_non_null(t);
		for (size_t k = 0; k < sizes[i]; k += 4093)
			assert_int_equal(t[k], 0);
		assert_int_equal(t[sizes[i] - 1], 0);
#ifdef __linux__
		if (sizes[i] >= (1u << 20))
			assert_int_equal((uintptr_t)t % two, 0);
#endif
		memset(t, 0xee, sizes[i]);
		free(t);
	}
	unsigned char *b = mem_alloc_big(3u << 20);
	assert_int_equal((uintptr_t)b % two, 0);
	b[(3u << 20) - 1] = 1;
	free(b);
	uint32_t *v = NULL, cap = 0;
	for (uint32_t n = 0; n < (3u << 20) / 4; n++) {
		vgrow_nz((void **)&v, &cap, n + 1, sizeof *v);
		v[n] = n * 7u;
	}
	assert_true((size_t)cap * 4 >= (1u << 20));
	assert_int_equal((uintptr_t)v % two, 0);
	for (uint32_t n = 0; n < (3u << 20) / 4; n += 997)
		assert_int_equal(v[n], n * 7u);
	free(v);
}

/* Interning through growth and the cache of recent strings: every string
 * keeps its id, lookups in any order find it, and strings that share a
 * cache slot (and prefixes, and lengths) are not confused. */
static void
test_intern_many(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	enum { N = 200000 };
	StrId *ids = malloc(N * sizeof *ids);
	assert_non_null(ids);
	char buf[32];
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof buf, "v_%d", i);
		ir_intern_prefetch(m, buf, strlen(buf)); /* a hint only */
		ids[i] = ir_intern(m, buf);
		assert_int_equal(ir_intern(m, buf), ids[i]); /* at once */
		if (i)
			assert_int_not_equal(ids[i], ids[i - 1]);
	}
	for (int i = N - 1; i >= 0; i -= 7) {
		snprintf(buf, sizeof buf, "v_%d", i);
		assert_int_equal(ir_intern(m, buf), ids[i]);
		assert_string_equal(ir_str(m, ids[i]), buf);
		assert_int_equal(ir_strlen(m, ids[i]), strlen(buf));
	}
	uint32_t n = m->nstrs;
	for (int i = 0; i < N; i += 3) {
		snprintf(buf, sizeof buf, "v_%d", i);
		assert_int_equal(ir_internn(m, buf, strlen(buf)), ids[i]);
		/* a prefix is a string of its own */
		assert_int_not_equal(ir_internn(m, buf, 2), ids[i]);
	}
	assert_int_equal(m->nstrs, n + 1); /* only "v_" was new */
	free(ids);
	ir_free(m);
}

/* Room reserved for strings (a parser that counted its lines): as many
 * strings then intern without the tables growing or moving, and the ones
 * interned before keep their ids. */
static void
test_reserve_strs(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	StrId early = ir_intern(m, "early");
	enum { N = 100000 };
	ir_reserve_strs(m, N);
	uint32_t hcap = m->hcap, cstrs = m->cstrs;
	const uint64_t *table = m->strhash;
	const char **strs = (const char **)m->strs;
	assert_true((uint64_t)(m->nstrs + N + 1) * 2 < hcap);
	assert_true(cstrs >= m->nstrs + N);
	char buf[32];
	for (int i = 0; i < N - 2; i++) {
		snprintf(buf, sizeof buf, "r_%d", i);
		ir_intern(m, buf);
	}
	assert_int_equal(m->hcap, hcap);
	assert_int_equal(m->cstrs, cstrs);
	assert_ptr_equal(m->strhash, table);
	assert_ptr_equal((const char **)m->strs, strs);
	assert_int_equal(ir_intern(m, "early"), early);
	for (int i = 0; i < N - 2; i += 99) {
		snprintf(buf, sizeof buf, "r_%d", i);
		assert_string_equal(ir_str(m, ir_intern(m, buf)), buf);
	}
	ir_free(m);
}

static void
test_strings(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	assert_int_equal(ir_intern(m, ""), 0);
	StrId a = ir_intern(m, "aten::add.Tensor");
	StrId b = ir_intern(m, "aten::add.Scalar");
	assert_int_not_equal(a, b);
	assert_int_equal(ir_intern(m, "aten::add.Tensor"), a);
	assert_int_equal(ir_internn(m, "aten::add.Tensorxyz", 16), a);
	/* force several rehashes; ids stay put */
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof buf, "s%d", i);
		ir_intern(m, buf);
	}
	assert_int_equal(ir_intern(m, "aten::add.Scalar"), b);
	assert_string_equal(ir_str(m, ir_intern(m, "s4321")), "s4321");
	ir_free(m);
}

/* Prefixes of one another (every tail length of the 8-byte hash steps),
 * names that differ only in their last byte, and ids handed out in
 * first-seen order, across rehashes. */
static void
test_strings_prefixes(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	static const char text[] = "torch.ops.aten.linear.default_relu_123456";
	StrId first = m->nstrs;
	for (size_t n = 1; n < sizeof text; n++)
		assert_int_equal(ir_internn(m, text, n), first + n - 1);
	char buf[48];
	StrId base = m->nstrs;
	for (int i = 0; i < 20000; i++) {
		snprintf(buf, sizeof buf, "relu_%07d", i);
		assert_int_equal(ir_intern(m, buf), base + (StrId)i);
	}
	for (size_t n = 1; n < sizeof text; n++) {
		StrId id = ir_internn(m, text, n);
		assert_int_equal(id, first + n - 1);
		assert_int_equal(strlen(ir_str(m, id)), n);
		assert_memory_equal(ir_str(m, id), text, n);
	}
	assert_int_equal(ir_intern(m, "relu_0012345"), base + 12345);
	ir_free(m);
}

static void
test_exprs_are_hash_consed(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	ExprId s0 = ir_expr_sym(m, "s0"), s1 = ir_expr_sym(m, "s1");
	assert_int_not_equal(s0, 0);
	assert_int_equal(ir_expr_sym(m, "s0"), s0);
	assert_int_not_equal(s0, s1);
	ExprId e1 = ir_expr_bin(m, E_MUL, ir_expr_int(m, 2), s0);
	ExprId e2 = ir_expr_bin(m, E_MUL, ir_expr_int(m, 2), s0);
	ExprId e3 = ir_expr_bin(m, E_MUL, ir_expr_int(m, 3), s0);
	assert_int_equal(e1, e2);
	assert_int_not_equal(e1, e3);
	assert_int_equal(ir_exprp(m, e1)->kind, E_MUL);
	assert_int_equal(ir_exprp(m, ir_exprp(m, e1)->a)->n, 2);
	for (int i = 0; i < 3000; i++)
		ir_expr_int(m, i);
	assert_int_equal(ir_expr_bin(m, E_MUL, ir_expr_int(m, 2), s0), e1);
	ir_free(m);
}

static void
test_dtypes(void **state)
{
	(void)state;
	for (int d = 1; d < DT_COUNT; d++) {
		const char *n = ir_dtype_name((DType)d);
		assert_int_equal(ir_dtype_parse(n, strlen(n)), d);
	}
	assert_int_equal(ir_dtype_parse("f32", 3), DT_F32);
	assert_int_equal(ir_dtype_parse("b8", 2), DT_BOOL);
	assert_int_equal(ir_dtype_parse("f31", 3), DT_UNDEF);
	assert_int_equal(ir_dtype_size(DT_BF16), 2);
	assert_int_equal(ir_dtype_size(DT_I64), 8);
	assert_true(ir_dtype_is_float(DT_F16));
	assert_false(ir_dtype_is_float(DT_BOOL));
	assert_true(ir_dtype_is_int(DT_U8));
	assert_false(ir_dtype_is_int(DT_BOOL));
}

/* x: f32[2, s0] -> relu -> add(relu, x, alpha=1) -> out */
static GraphId
small_graph(Module *m, ValId *relu_out)
{
	GraphId gid = ir_graph_new(m, "main", 0);
	Graph *g = ir_graph(m, gid);
	ValId x = ir_value(g, ir_intern(m, "x"));
	Dim d[2] = {{2, 0}, {0, ir_expr_sym(m, "s0")}};
	ir_set_tensor(g, x, DT_F32, 2, d);
	ir_val(g, x)->role = ROLE_USER_INPUT;
	ir_add_input(g, x);
	NodeId r = ir_node(g, D_FX, ir_intern(m, "aten::relu.default"), 1);
	ir_push_arg(g, r, arg_val(x));
	ValId rv = ir_nodep(g, r)->out;
	ir_val(g, rv)->name = ir_intern(m, "relu");
	ir_set_tensor(g, rv, DT_F32, 2, d);
	NodeId a = ir_node(g, D_FX, ir_intern(m, "aten::add.Tensor"), 1);
	ir_push_arg(g, a, arg_val(rv));
	ir_push_arg(g, a, arg_val(x));
	ir_push_arg(g, a, arg_keyed(arg_int(1), ir_intern(m, "alpha")));
	ValId av = ir_nodep(g, a)->out;
	ir_val(g, av)->name = ir_intern(m, "add");
	ir_set_tensor(g, av, DT_F32, 2, d);
	ir_add_output(g, av, OUT_USER, 0);
	if (relu_out)
		*relu_out = rv;
	return gid;
}

/* Values of one shape share a run of dims; other shapes get their own;
 * copying the dims of a value of the same graph works while the table
 * grows under them. */
static void
test_shared_dims(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Graph *g = ir_graph(m, ir_graph_new(m, "g", 0));
	enum { N = 20000 };
	ValId *v = malloc(N * sizeof *v);
	assert_non_null(v);
	Dim d816[2] = {{8, 0}, {16, 0}};
	ValId a = ir_value(g, ir_intern(m, "a"));
	ValId b = ir_value(g, ir_intern(m, "b"));
	ir_set_tensor(g, a, DT_F32, 2, d816);
	ir_set_tensor(g, b, DT_F32, 2, d816);
	assert_int_equal(ir_val(g, a)->dims, ir_val(g, b)->dims);
	uint32_t before = g->ndims;
	for (int i = 0; i < N; i++) {
		v[i] = ir_value(g, 0);
		Dim d[2] = {{i, 0}, {7, 0}};
		ir_set_tensor(g, v[i], DT_F32, 2, d);
	}
	assert_true(g->ndims > before + N); /* all different */
	for (int i = 0; i < N; i += 3) {
		ValId w = ir_value(g, 0);
		ir_set_tensor(g, w, DT_I64, 2, ir_dims(g, v[i]));
		assert_int_equal(ir_dims(g, w)[0].n, i);
		assert_int_equal(ir_dims(g, w)[1].n, 7);
		assert_int_equal(ir_val(g, w)->rank, 2);
	}
	/* a shape that differs in its symbol is another shape */
	Dim ds[2] = {{8, ir_expr_sym(m, "s0")}, {16, 0}};
	ValId c = ir_value(g, ir_intern(m, "c"));
	ir_set_tensor(g, c, DT_F32, 2, ds);
	assert_int_not_equal(ir_val(g, c)->dims, ir_val(g, a)->dims);
	assert_int_equal(ir_dims(g, a)[0].e, 0);
	free(v);
	ir_free(m);
}

/* Room reserved is used without growing: the tables stay where they are. */
static void
test_reserve(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Graph *g = ir_graph(m, ir_graph_new(m, "g", 0));
	ir_reserve(g, 100000, 100000, 300000);
	const Node *nodes = g->nodes;
	const Value *vals = g->vals;
	const Arg *args = g->args;
	ValId x = ir_value(g, ir_intern(m, "x"));
	StrId relu = ir_intern(m, "aten::relu.default");
	for (int i = 0; i < 99000; i++) {
		NodeId n = ir_node(g, D_FX, relu, 1);
		ir_push_arg(g, n, arg_val(x));
		ir_push_arg(g, n, arg_int(i));
		x = ir_nodep(g, n)->out;
	}
	assert_ptr_equal(g->nodes, nodes);
	assert_ptr_equal(g->vals, vals);
	assert_ptr_equal(g->args, args);
	assert_int_equal(g->nnodes, 99001);
	assert_int_equal(ir_arg(g, 99000, 1)->u.i, 98999);
	ir_reserve(g, UINT32_MAX, 0, 0); /* too much: a hint, ignored */
	assert_ptr_equal(g->nodes, nodes);
	ir_free(m);
}

/* Arguments pushed several at once: in order after the single ones, the
 * table grown where they do not fit, none for a count of 0. */
static void
test_push_args(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Graph *g = ir_graph(m, ir_graph_new(m, "g", 0));
	ValId x = ir_value(g, ir_intern(m, "x"));
	StrId op = ir_intern(m, "aten::cat.default");
	Arg many[300];
	for (int i = 0; i < 300; i++)
		many[i] = arg_int(i);
	uint32_t total = 0;
	for (uint32_t k = 0; k < 40; k++) {
		NodeId n = ir_node(g, D_FX, op, 1);
		ir_push_arg(g, n, arg_val(x));
		ir_push_args(g, n, many, k * 7);
		ir_push_args(g, n, many, 0);
		const Node *np = ir_nodep(g, n);
		assert_int_equal(np->args, total);
		assert_int_equal(np->nargs, 1 + k * 7);
		assert_int_equal(ir_arg(g, n, 0)->u.v, x);
		for (uint32_t i = 0; i < k * 7; i++)
			assert_int_equal(ir_arg(g, n, 1 + i)->u.i, i);
		total += 1 + k * 7;
		assert_int_equal(g->nargs, total);
		assert_true(g->cargs >= g->nargs);
	}
	ir_free(m);
}

static void
test_graph_building(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	GraphId gid = small_graph(m, NULL);
	Graph *g = ir_graph(m, gid);
	assert_int_equal(g->nnodes, 3); /* 0 is reserved */
	NodeId add = 2;
	assert_int_equal(ir_npos(g, add), 2);
	const Arg *alpha = ir_find_arg(m, g, add, 2, "alpha");
	assert_non_null(alpha);
	assert_int_equal(alpha->u.i, 1);
	assert_null(ir_find_arg(m, g, add, 5, "beta"));
	const Arg *other = ir_find_arg(m, g, add, 1, "other");
	assert_int_equal(other->kind, A_VAL);
	const Value *out = ir_val(g, g->outputs[0]);
	assert_int_equal(out->def, add);
	assert_int_equal(ir_dims(g, g->outputs[0])[0].n, 2);
	/* nested lists keep their items */
	Arg inner[2] = {arg_int(1), arg_int(2)};
	Arg in = ir_list(g, A_LIST, inner, 2);
	Arg outer_items[2] = {in, arg_int(3)};
	Arg outer = ir_list(g, A_TUPLE, outer_items, 2);
	const Arg *it = ir_items(g, &outer);
	assert_int_equal(it[0].kind, A_LIST);
	assert_int_equal(ir_items(g, &it[0])[1].u.i, 2);
	assert_int_equal(it[1].u.i, 3);
	assert_int_equal(ir_verify(m, gid), 0);
	ir_free(m);
}

/* A chain x -> r1 -> r2 -> add(r1, r1) -> cat([r1, add]) with r2 erased
 * and add pointed at r1 instead, as a pass leaves it, and an unused node
 * appended at the end: in program order already, so normalizing drops r2
 * in place (the node table is not replaced) and keeps the rest in order.
 * Then an appended node that an earlier one uses: the full walk moves it
 * before its user, into new tables. */
static void
test_normalize_in_place(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	GraphId gid = ir_graph_new(m, "g", 0);
	Graph *g = ir_graph(m, gid);
	ValId x = ir_value(g, ir_intern(m, "x"));
	ir_add_input(g, x);
	StrId relu = ir_intern(m, "aten::relu.default"), add = ir_intern(m, "aten::add.Tensor");
	NodeId r1 = ir_node(g, D_FX, relu, 1);
	ir_push_arg(g, r1, arg_val(x));
	NodeId r2 = ir_node(g, D_FX, relu, 1);
	ir_push_arg(g, r2, arg_val(ir_nodep(g, r1)->out));
	NodeId a = ir_node(g, D_FX, add, 1);
	ir_push_arg(g, a, arg_val(ir_nodep(g, r1)->out));
	ir_push_arg(g, a, arg_val(ir_nodep(g, r2)->out));
	NodeId cat = ir_node(g, D_FX, ir_intern(m, "aten::cat.default"), 1);
	Arg two[2] = {arg_val(ir_nodep(g, r1)->out),
		arg_val(ir_nodep(g, a)->out)};
	ir_push_arg(g, cat, ir_list(g, A_LIST, two, 2));
	ir_add_output(g, ir_nodep(g, cat)->out, OUT_USER, 0);
	uint32_t base = g->nnodes;
	NodeId extra = ir_node(g, D_FX, relu, 1);
	ir_push_arg(g, extra, arg_val(x));
	/* the pass: add reads r1 twice, r2 goes */
	g->args[ir_nodep(g, a)->args + 1] = arg_val(ir_nodep(g, r1)->out);
	ValId r2out = ir_nodep(g, r2)->out;
	ir_nodep(g, r2)->op = 0;
	const Node *before = g->nodes;
	assert_int_equal(ir_normalize(m, gid, base, "test"), 0);
	assert_ptr_equal(g->nodes, before);
	assert_int_equal(g->nnodes, 5);
	StrId want[] = {0, relu, add, ir_intern(m, "aten::cat.default"), relu};
	for (NodeId n = 1; n < 5; n++) {
		assert_int_equal(g->nodes[n].op, want[n]);
		assert_int_equal(g->vals[g->nodes[n].out].def, n);
	}
	assert_int_equal(g->vals[r2out].def, 0);
	assert_int_equal(g->nargs, 1 + 2 + 1 + 1);
	assert_int_equal(ir_arg(g, 2, 1)->u.v, g->nodes[1].out);
	assert_int_equal(ir_arg(g, 4, 0)->u.v, x);
	assert_int_equal(ir_verify(m, gid), 0);

	/* a node appended now and used by r1: moved before it */
	base = g->nnodes;
	NodeId neg = ir_node(g, D_FX, ir_intern(m, "aten::neg.default"), 1);
	ir_push_arg(g, neg, arg_val(x));
	g->args[ir_nodep(g, 1)->args] = arg_val(ir_nodep(g, neg)->out);
	before = g->nodes;
	assert_int_equal(ir_normalize(m, gid, base, "test"), 0);
	assert_ptr_not_equal(g->nodes, before);
	assert_int_equal(g->nnodes, 6);
	assert_int_equal(g->nodes[1].op, ir_intern(m, "aten::neg.default"));
	assert_int_equal(g->nodes[2].op, relu);
	assert_int_equal(ir_arg(g, 2, 0)->u.v, g->nodes[1].out);
	assert_int_equal(ir_verify(m, gid), 0);
	ir_free(m);
}

static void
test_verify_catches_use_before_def(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Capture c;
	capture(m, &c);
	ValId relu;
	GraphId gid = small_graph(m, &relu);
	Graph *g = ir_graph(m, gid);
	/* make relu use the value of the node after it */
	g->args[ir_nodep(g, 1)->args].u.v = ir_nodep(g, 2)->out;
	assert_int_equal(ir_verify(m, gid), -1);
	fflush(m->diagout);
	assert_non_null(strstr(c.buf, "used before its definition"));
	fclose(m->diagout);
	free(c.buf);
	ir_free(m);
}

/* An ONNX subgraph of parent: its ROLE_OUTER value stands for capture k
 * of the owner; op (a unary op) reads it and gives the output. */
static GraphId
branch(Module *m, GraphId parent, const char *name, const char *op,
    uint32_t k)
{
	GraphId gid = ir_graph_new(m, name, parent);
	Graph *g = ir_graph(m, gid);
	ValId o = ir_value(g, 0);
	ir_set_tensor(g, o, DT_F32, 0, NULL);
	ir_val(g, o)->role = ROLE_OUTER;
	ir_val(g, o)->defidx = k;
	NodeId n = ir_node(g, D_ONNX, ir_intern(m, op), 1);
	ir_push_arg(g, n, arg_val(o));
	ir_set_tensor(g, ir_nodep(g, n)->out, DT_F32, 0, NULL);
	ir_add_output(g, ir_nodep(g, n)->out, OUT_USER, 0);
	return gid;
}

/* main(c: bool, x: f32) = If(c) {Relu(x)} else {Neg(x)}, x captured */
static GraphId
if_graph(Module *m, GraphId *then_g, GraphId *else_g)
{
	GraphId gid = ir_graph_new(m, "main_graph", 0);
	Graph *g = ir_graph(m, gid);
	ValId c = ir_value(g, ir_intern(m, "c"));
	ValId x = ir_value(g, ir_intern(m, "x"));
	ir_set_tensor(g, c, DT_BOOL, 0, NULL);
	ir_set_tensor(g, x, DT_F32, 0, NULL);
	ir_add_input(g, c);
	ir_add_input(g, x);
	*then_g = branch(m, gid, "then", "Relu", 0);
	*else_g = branch(m, gid, "else", "Neg", 0);
	g = ir_graph(m, gid);
	NodeId n = ir_node(g, D_ONNX, ir_intern(m, "If"), 1);
	ir_push_arg(g, n, arg_val(c));
	ir_push_arg(g, n, arg_keyed((Arg){.kind = A_GRAPH, .u.g = *then_g},
	    ir_intern(m, "then_branch")));
	ir_push_arg(g, n, arg_keyed((Arg){.kind = A_GRAPH, .u.g = *else_g},
	    ir_intern(m, "else_branch")));
	ir_push_arg(g, n, arg_keyed(arg_val(x), ir_intern(m, IR_CAPTURE)));
	ir_set_tensor(g, ir_nodep(g, n)->out, DT_F32, 0, NULL);
	ir_add_output(g, ir_nodep(g, n)->out, OUT_USER, 0);
	return gid;
}

/* ir_verify on gid fails with a new message containing want */
static void
verify_fails(Module *m, Capture *c, GraphId gid, const char *want)
{
	fflush(m->diagout);
	size_t before = c->buf ? strlen(c->buf) : 0;
	assert_int_equal(ir_verify(m, gid), -1);
	fflush(m->diagout);
	if (!strstr(c->buf + before, want))
		fail_msg("no '%s' in: %s", want, c->buf + before);
}

static void
test_verify_subgraphs(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Capture c;
	capture(m, &c);
	GraphId t, e;
	GraphId gid = if_graph(m, &t, &e);
	assert_int_equal(ir_verify(m, gid), 0);
	/* the outer values take the name of the capture, as it is now */
	ir_name_outer(m, gid);
	assert_string_equal(ir_str(m, ir_graph(m, t)->vals[1].name), "x");
	assert_string_equal(ir_str(m, ir_graph(m, e)->vals[1].name), "x");

	/* first level: a use before its definition inside a branch */
	Graph *tg = ir_graph(m, t);
	tg->args[tg->nodes[1].args].u.v = tg->nodes[1].out;
	verify_fails(m, &c, gid, "graph 'then' at node Relu: value used "
	    "before its definition");
	tg->args[tg->nodes[1].args].u.v = 1;
	assert_int_equal(ir_verify(m, gid), 0);

	/* an outer value standing for a capture the owner does not have */
	ir_graph(m, e)->vals[1].defidx = 1;
	verify_fails(m, &c, gid, "graph 'else': outer-scope value that is "
	    "no capture");
	ir_graph(m, e)->vals[1].defidx = 0;

	/* second level: a branch holding an If of its own, broken inside */
	GraphId inner_t, inner_e;
	GraphId inner = if_graph(m, &inner_t, &inner_e);
	ir_graph(m, inner)->parent = t;
	ir_graph(m, inner_t)->vals[1].defidx = 7;
	tg = ir_graph(m, t);
	NodeId n = ir_node(tg, D_ONNX, ir_intern(m, "If"), 1);
	ir_push_arg(tg, n, arg_val(1));
	ir_push_arg(tg, n, arg_keyed((Arg){.kind = A_GRAPH, .u.g = inner_t},
	    ir_intern(m, "then_branch")));
	ir_push_arg(tg, n, arg_keyed((Arg){.kind = A_GRAPH, .u.g = inner_e},
	    ir_intern(m, "else_branch")));
	ir_push_arg(tg, n, arg_keyed(arg_val(1), ir_intern(m, IR_CAPTURE)));
	/* inner_t and inner_e were made for graph 'inner', not 't' */
	verify_fails(m, &c, gid, "subgraph of another graph");
	ir_graph(m, inner_t)->parent = t;
	ir_graph(m, inner_e)->parent = t;
	verify_fails(m, &c, gid, "graph 'then': outer-scope value that is "
	    "no capture of the node owning the graph (1)");
	ir_graph(m, inner_t)->vals[1].defidx = 0;
	assert_int_equal(ir_verify(m, gid), 0);

	/* a graph holding itself is a cycle, not a program */
	ir_graph(m, t)->parent = t;
	tg->args[tg->nodes[n].args + 1].u.g = t;
	verify_fails(m, &c, t, "subgraphs nested too deeply");
	fclose(m->diagout);
	free(c.buf);
	ir_free(m);
}

static void
test_verify_catches_bad_dims(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Capture c;
	capture(m, &c);
	GraphId gid = small_graph(m, NULL);
	Graph *g = ir_graph(m, gid);
	g->vals[1].dims = g->ndims + 5;
	assert_int_equal(ir_verify(m, gid), -1);
	fflush(m->diagout);
	assert_non_null(strstr(c.buf, "dims outside the dim table"));
	fclose(m->diagout);
	free(c.buf);
	ir_free(m);
}

static void
test_diagnostic_has_caret(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Capture c;
	capture(m, &c);
	m->file = "graph.txt";
	m->src = "line one\n    bad = torch.ops.aten.foo.bar(x)\nlast";
	m->srclen = strlen(m->src);
	ir_error(m, (Loc){2, 11}, "unsupported operator '%s'",
	    "aten::foo.bar");
	ir_warning(m, (Loc){0, 0}, "no location");
	fflush(m->diagout);
	assert_string_equal(c.buf,
	    "graph.txt:2:11: error: unsupported operator 'aten::foo.bar'\n"
	    "      bad = torch.ops.aten.foo.bar(x)\n"
	    "            ^\n"
	    "graph.txt: warning: no location\n");
	assert_int_equal(m->nerrors, 1);
	assert_int_equal(m->nwarnings, 1);
	fclose(m->diagout);
	free(c.buf);
	ir_free(m);
}

static void
diag_in(Module *m, const DiagSrc *src, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ir_vdiag_in(m, src, "error", loc, fmt, ap);
	va_end(ap);
}

/* A diagnostic about another source shows that source's name and line,
 * and leaves the module's own source as it was. */
static void
test_diagnostic_other_source(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Capture c;
	capture(m, &c);
	m->file = "graph.txt";
	m->src = "graph line\n";
	m->srclen = strlen(m->src);
	DiagSrc passes = {"--passes", "lower,flod", 10};
	diag_in(m, &passes, (Loc){1, 7}, "unknown pass '%s'", "flod");
	diag_in(m, &(DiagSrc){"p.so", NULL, 0}, (Loc){0, 0}, "bad plugin");
	ir_error(m, (Loc){1, 1}, "own");
	fflush(m->diagout);
	assert_string_equal(c.buf,
	    "--passes:1:7: error: unknown pass 'flod'\n"
	    "  lower,flod\n"
	    "        ^\n"
	    "p.so: error: bad plugin\n"
	    "graph.txt:1:1: error: own\n"
	    "  graph line\n"
	    "  ^\n");
	assert_int_equal(m->nerrors, 3);
	assert_string_equal(m->file, "graph.txt");
	fclose(m->diagout);
	free(c.buf);
	ir_free(m);
}

static void
test_diagnostic_long_line_window(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	Capture c;
	capture(m, &c);
	char *line = malloc(5001);
	memset(line, 'a', 5000);
	line[5000] = 0;
	memcpy(line + 3000, "HERE", 4);
	m->src = line;
	m->srclen = 5000;
	ir_error(m, (Loc){1, 3001}, "x");
	fflush(m->diagout);
	/* the shown window contains the column and stays short */
	assert_non_null(strstr(c.buf, "HERE"));
	assert_true(strlen(c.buf) < 400);
	/* the caret sits under the H: same offset within its line */
	char *here = strstr(c.buf, "HERE");
	char *srcstart = strchr(c.buf, '\n') + 1;
	char *caretline = strchr(here, '\n') + 1;
	char *caret = strchr(caretline, '^');
	assert_non_null(caret);
	assert_int_equal(caret - caretline, here - srcstart);
	fclose(m->diagout);
	free(c.buf);
	free(line);
	ir_free(m);
}

static void
test_print(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	GraphId gid = small_graph(m, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ir_print(m, gid, f);
	fclose(f);
	assert_non_null(strstr(buf, "graph main(%x: f32[2, s0])"));
	assert_non_null(strstr(buf,
	    "%add: f32[2, s0] = aten::add.Tensor(%relu, %x, alpha=1)"));
	assert_non_null(strstr(buf, "return %add"));
	free(buf);
	ir_free(m);
}

/* str_addf never writes past the buffer and keeps counting the whole
 * text, so a loop that appends can tell it was cut. */
static void
test_str_addf(void **state)
{
	(void)state;
	char buf[8];
	memset(buf, 'x', sizeof buf);
	size_t n = str_addf(buf, 6, 0, "%s", "ab");
	n = str_addf(buf, 6, n, ", %d", 1234);  /* cut: "ab, 1" */
	assert_int_equal(n, 8);
	assert_string_equal(buf, "ab, 1");
	assert_int_equal(buf[6], 'x');          /* untouched past cap */
	n = str_addf(buf, 6, n, ", %d", 5);     /* past the end: counts */
	assert_int_equal(n, 11);
	assert_string_equal(buf, "ab, 1");
	assert_int_equal(buf[6], 'x');
	assert_int_equal(str_addf(NULL, 0, 3, "abc"), 6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_str_addf),
		cmocka_unit_test(test_arena_mark_release),
		cmocka_unit_test(test_arena_big_blocks_reuse),
		cmocka_unit_test(test_big_tables),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_intern_many),
		cmocka_unit_test(test_reserve_strs),
		cmocka_unit_test(test_strings_prefixes),
		cmocka_unit_test(test_exprs_are_hash_consed),
		cmocka_unit_test(test_dtypes),
		cmocka_unit_test(test_push_args),
		cmocka_unit_test(test_graph_building),
		cmocka_unit_test(test_shared_dims),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_normalize_in_place),
		cmocka_unit_test(test_verify_catches_use_before_def),
		cmocka_unit_test(test_verify_catches_bad_dims),
		cmocka_unit_test(test_verify_subgraphs),
		cmocka_unit_test(test_diagnostic_has_caret),
		cmocka_unit_test(test_diagnostic_long_line_window),
		cmocka_unit_test(test_diagnostic_other_source),
		cmocka_unit_test(test_print),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
