/* test_fx_scan.c - the fast paths of the FX dump parser: the getitem
 * pre-scan that skips lines without "[ INT ]" unlexed, the punctuation
 * switch, the lookahead across joined (multi-line) def lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "frontend/fx.h"
#include "ir/ir.h"

/* Parses src; returns the module (errors are in m->nerrors). */
static Module *
parse(const char *src, GraphId *g)
{
	Module *m = ir_module_new();
	m->file = "t.txt";
	m->src = src;
	m->srclen = strlen(src);
	m->diagout = fopen("/dev/null", "w");
	assert_non_null(m->diagout);
	*g = 0;
	fx_parse(m, g);
	fclose(m->diagout);
	m->diagout = NULL;
	return m;
}

static Node *
named(Module *m, Graph *g, const char *name)
{
	for (NodeId n = 1; n < g->nnodes; n++)
		if (strcmp(ir_str(m, g->nodes[n].name), name) == 0)
			return &g->nodes[n];
	fail_msg("no node %s", name);
	return NULL;
}

#define HEAD \
	"class GraphModule(torch.nn.Module):\n" \
	"    def forward(self, x: \"f32[4, 6]\"):\n"

/* "[ INT ]" spelled with blanks or colour codes between its tokens still
 * reaches the pre-scan; a 1-d annotation "[16]" is no getitem. */
static void
test_getitem_forms(void **state)
{
	(void)state;
	static const char *const idx[] = {"[3]", "[ 3 ]", "[\t3\t]",
	    "[\x1b[1m3\x1b[0m]", "\x1b[0m[3]"};
	for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
		char src[1024];
		snprintf(src, sizeof src, HEAD
		    "        split = torch.ops.aten.split.Tensor(x, 1)\n"
		    "        b: \"f32[16]\" = torch.ops.aten.relu.default(x)\n"
		    "        getitem_3: \"f32[1, 6]\" = split%s\n"
		    "        return (getitem_3, b)\n", idx[i]);
		GraphId gid;
		Module *m = parse(src, &gid);
		assert_int_equal(m->nerrors, 0);
		Graph *g = ir_graph(m, gid);
		Node *sp = named(m, g, "split");
		assert_int_equal(sp->nout, 4);
		assert_string_equal(ir_str(m, ir_val(g, sp->out + 3)->name),
		    "getitem_3");
		assert_int_equal(named(m, g, "b")->nout, 1);
		ir_free(m);
	}
}

/* A body whose last line has no newline and no return: the pre-scan
 * skips it unlexed and stops at the end; the parse reports it. */
static void
test_unterminated_body(void **state)
{
	(void)state;
	GraphId gid;
	Module *m = parse(HEAD
	    "        split = torch.ops.aten.split.Tensor(x, 1)\n"
	    "        getitem_1 = split[1]\n"
	    "        b = torch.ops.aten.relu.default(x)", &gid);
	assert_int_equal(m->nerrors, 1);
	ir_free(m);
}

/* Two-character operators next to one-character ones, and a def line
 * broken over lines with comments inside the brackets. */
static void
test_operators_and_joined_def(void **state)
{
	(void)state;
	GraphId gid;
	Module *m = parse("class GraphModule(torch.nn.Module):\n"
	    "    def forward(self,  # the input\n"
	    "                x: \"Sym(s0)\",\n"
	    "                # a comment line\n"
	    "                y: \"Sym(s1)\"):\n"
	    "        a = x ** y\n"
	    "        b = a // 2\n"
	    "        c = b >= x\n"
	    "        d = a != b\n"
	    "        e = -a\n"
	    "        f = a * b\n"
	    "        return (c, d, e, f)\n", &gid);
	assert_int_equal(m->nerrors, 0);
	Graph *g = ir_graph(m, gid);
	assert_int_equal(g->ninputs, 2);
	static const char *const want[][2] = {{"a", "_operator::pow"},
	    {"b", "_operator::floordiv"}, {"c", "_operator::ge"},
	    {"d", "_operator::ne"}, {"e", "_operator::neg"},
	    {"f", "_operator::mul"}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		assert_string_equal(ir_str(m, named(m, g, want[i][0])->op),
		    want[i][1]);
	ir_free(m);
}

/* Op names are built in a stack buffer up to 256 bytes, on the heap past
 * it: both spell the same. */
static void
test_opname_lengths(void **state)
{
	(void)state;
	static const size_t lens[] = {1, 200, 236, 237, 238, 300, 1000};
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		char *name = malloc(lens[i] + 1), *src = malloc(lens[i] + 512);
		memset(name, 'k', lens[i]);
		name[lens[i]] = 0;
		sprintf(src, HEAD "        y = torch.ops.mylib.%s.default(x)\n"
		    "        return (y,)\n", name);
		GraphId gid;
		Module *m = parse(src, &gid);
		assert_int_equal(m->nerrors, 0);
		const char *op = ir_str(m, named(m, ir_graph(m, gid), "y")->op);
		assert_int_equal(strlen(op), lens[i] + strlen("mylib::.default"));
		assert_memory_equal(op, "mylib::", 7);
		assert_memory_equal(op + 7, name, lens[i]);
		assert_string_equal(op + 7 + lens[i], ".default");
		ir_free(m);
		free(name);
		free(src);
	}
}

static void
check_type(Module *m, Graph *g, const char *name, DType dt, int32_t rank,
    const int64_t *dims)
{
	const Value *v = ir_val(g, named(m, g, name)->out);
	assert_int_equal(v->kind, VK_TENSOR);
	assert_int_equal(v->dtype, dt);
	assert_int_equal(v->rank, rank);
	for (int32_t i = 0; i < rank; i++) {
		assert_int_equal(ir_dims(g, named(m, g, name)->out)[i].e, 0);
		assert_int_equal(ir_dims(g, named(m, g, name)->out)[i].n,
		    dims[i]);
	}
}

/* A repeated annotation text gives the same type as reading it anew:
 * after other texts, a symbolic one (not kept) and a scalar one. */
static void
test_repeated_annotations(void **state)
{
	(void)state;
	GraphId gid;
	Module *m = parse("class GraphModule(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[s0, 6]\"):\n"
	    "        a: \"f32[4, 6]\" = torch.ops.aten.relu.default(x)\n"
	    "        b: \"f32[4, 6]\" = torch.ops.aten.relu.default(a)\n"
	    "        c: \"i64[4, 6]\" = torch.ops.aten.relu.default(b)\n"
	    "        d: \"f32[4, 6]\" = torch.ops.aten.relu.default(c)\n"
	    "        e: \"f32[s0, 6]\" = torch.ops.aten.relu.default(x)\n"
	    "        f: \"f32[s0, 6]\" = torch.ops.aten.relu.default(e)\n"
	    "        g: \"f32[]\" = torch.ops.aten.sum.default(d)\n"
	    "        h: \"f32[]\" = torch.ops.aten.sum.default(a)\n"
	    "        i: \"f32[4, 6]\" = torch.ops.aten.relu.default(f)\n"
	    "        return (b, c, d, f, h, i)\n", &gid);
	assert_int_equal(m->nerrors, 0);
	Graph *g = ir_graph(m, gid);
	static const int64_t d46[] = {4, 6};
	check_type(m, g, "a", DT_F32, 2, d46);
	check_type(m, g, "b", DT_F32, 2, d46);
	check_type(m, g, "c", DT_I64, 2, d46);
	check_type(m, g, "d", DT_F32, 2, d46);
	check_type(m, g, "g", DT_F32, 0, NULL);
	check_type(m, g, "h", DT_F32, 0, NULL);
	check_type(m, g, "i", DT_F32, 2, d46);
	for (int k = 0; k < 2; k++) {
		ValId v = named(m, g, k ? "f" : "e")->out;
		assert_int_not_equal(ir_dims(g, v)[0].e, 0);
		assert_int_equal(ir_dims(g, v)[1].n, 6);
	}
	ir_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getitem_forms),
		cmocka_unit_test(test_unterminated_body),
		cmocka_unit_test(test_operators_and_joined_def),
		cmocka_unit_test(test_opname_lengths),
		cmocka_unit_test(test_repeated_annotations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
