/* test_backend.c - the writers' table (backend.c) and the text writer
 * (text.c) on a graph built by hand: what each name and number becomes,
 * and its limit on inline tensors.  tests/e2e/text_roundtrip.sh reads
 * whole models back with onnx.parser. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/backend.h"

typedef struct Fix {
	char dir[64], path[128];
	Module *m;
	char *diag;
	size_t diaglen;
	float w[6];
	float six;
} Fix;

static int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	strcpy(f->dir, "/tmp/test_backend_XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof f->path, "%s/m.onnxtxt", f->dir);
	f->m = ir_module_new();
	f->m->diagout = open_memstream(&f->diag, &f->diaglen);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	Fix *f = *state;
	fclose(f->m->diagout);
	free(f->diag);
	ir_free(f->m);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static StrId
S(Fix *f, const char *s)
{
	return ir_intern(f->m, s);
}

static char *
slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, fp);
	buf[n] = 0;
	fclose(fp);
	return buf;
}

static void
test_table(void **state)
{
	(void)state;
	char names[64];
	assert_string_equal(be_writer_names(names, sizeof names),
	    "onnx, ort or text");
	assert_ptr_equal(be_writer_named("text"), be_writer_for("m.onnxtxt"));
	assert_ptr_equal(be_writer_named("ort"), be_writer_for("dir/m.ort"));
	assert_ptr_equal(be_writer_named("onnx"), be_writer_for("m.onnx"));
	/* no extension, an unknown one, or just the extension: the default */
	assert_ptr_equal(be_writers[0], be_writer_for("model"));
	assert_ptr_equal(be_writers[0], be_writer_for("m.txt"));
	assert_ptr_equal(be_writers[0], be_writer_for(".ort"));
	assert_null(be_writer_named("pb"));
	/* each format's own checks */
	BeOptions o = {.opset = 18, .no_weights = true};
	const BeWriter *ort = be_writer_named("ort");
	assert_non_null(ort->check(&o));
	assert_false(ort->function_ops);
	o.no_weights = false;
	assert_null(ort->check(&o));
	o.external = BE_EXT_ALWAYS;
	assert_non_null(strstr(ort->check(&o), "no external data"));
	assert_null(be_writer_named("text")->check);
	assert_true(be_writer_named("text")->function_ops);
}

/* x: f32[2*s0, 3] and "fc.weight" -> MatMul -> Clip(mm, "", six)
 *   -> LeakyRelu(alpha=0.1) -> "float": f32[2*s0, 2] */
static GraphId
tiny(Fix *f)
{
	Module *m = f->m;
	GraphId gid = ir_graph_new(m, "main_graph", 0);
	m->main = gid;
	Graph *g = ir_graph(m, gid);
	Dim s = {0, ir_expr_bin(m, E_MUL, ir_expr_int(m, 2),
	    ir_expr_sym(m, "s0"))};
	Dim xd[2] = {s, {3, 0}}, wd[2] = {{3, 0}, {2, 0}}, yd[2] = {s, {2, 0}};
	ValId x = ir_value(g, S(f, "x"));
	ir_set_tensor(g, x, DT_F32, 2, xd);
	ir_add_input(g, x);
	float w[6] = {-2.5f, -0.0f, NAN, 1e-3f, 0.1f, 16777216.0f};
	memcpy(f->w, w, sizeof w);
	ValId wv = ir_value(g, S(f, "fc.weight"));
	ir_set_tensor(g, wv, DT_F32, 2, wd);
	int64_t dims[2] = {3, 2};
	Tensor t = {.name = S(f, "fc.weight"), .dtype = DT_F32, .rank = 2,
	    .dims = dims, .data = f->w, .nbytes = 24};
	ir_val(g, wv)->init = ir_tensor(m, &t);
	ir_add_input(g, wv);

	NodeId mm = ir_node(g, D_ONNX, S(f, "MatMul"), 1);
	ir_nodep(g, mm)->name = S(f, "linear");
	ir_val(g, ir_nodep(g, mm)->out)->name = S(f, "mm");
	ir_set_tensor(g, ir_nodep(g, mm)->out, DT_F32, 2, yd);
	ir_push_arg(g, mm, arg_val(x));
	ir_push_arg(g, mm, arg_val(wv));

	f->six = 6.0f;
	Tensor c = {.dtype = DT_F32, .rank = 0, .data = &f->six, .nbytes = 4};
	NodeId k = ir_node(g, D_ONNX, S(f, "Constant"), 1);
	ir_val(g, ir_nodep(g, k)->out)->name = S(f, "six");
	ir_push_arg(g, k, arg_keyed((Arg){.kind = A_TENSOR,
	    .u.t = ir_tensor(m, &c)}, S(f, "value")));
	NodeId cl = ir_node(g, D_ONNX, S(f, "Clip"), 1);
	ir_val(g, ir_nodep(g, cl)->out)->name = S(f, "clip");
	ir_push_arg(g, cl, arg_val(ir_nodep(g, mm)->out));
	ir_push_arg(g, cl, arg_none());
	ir_push_arg(g, cl, arg_val(ir_nodep(g, k)->out));

	NodeId lr = ir_node(g, D_ONNX, S(f, "LeakyRelu"), 1);
	ir_val(g, ir_nodep(g, lr)->out)->name = S(f, "float");
	ir_set_tensor(g, ir_nodep(g, lr)->out, DT_F32, 2, yd);
	ir_push_arg(g, lr, arg_val(ir_nodep(g, cl)->out));
	ir_push_arg(g, lr, arg_keyed(arg_float(0.1), S(f, "alpha")));
	Arg perm[2] = {arg_int(1), arg_int(0)};
	ir_push_arg(g, lr, arg_keyed(ir_list(g, A_LIST, perm, 2),
	    S(f, "ints_for_the_test")));
	ir_add_output(g, ir_nodep(g, lr)->out, OUT_USER, 0);
	return gid;
}

static void
test_text(void **state)
{
	Fix *f = *state;
	GraphId g = tiny(f);
	/* a node of another domain: an opset import of it, version 1 */
	Graph *gr = ir_graph(f->m, g);
	ir_nodep(gr, gr->nnodes - 1)->domain = S(f, "com.microsoft");
	BeOptions o = {.opset = 18};
	assert_int_equal(be_writer_named("text")->write(f->m, g, &o, f->path),
	    0);
	char *s = slurp(f->path);
	assert_non_null(s);
	static const char *const want[] = {
		"ir_version: 8,\n   opset_import: [\"\" : 18, "
		    "\"com.microsoft\" : 1],\n",
		/* dims that are no identifier: ?, and a comment */
		"   float[?,3] x   # dim 0 is \"2*s0\"\n) => (\n",
		/* a type name as a value name is quoted */
		"   float[?,2] \"float\"   # dim 0 is \"2*s0\"\n)\n<\n",
		/* exact values: -0, NaN, %.9g */
		"float[3,2] \"fc.weight\" = {-2.5, -0, nan, 0.00100000005, "
		    "0.100000001, 16777216},\n",
		"[node_linear] mm = MatMul (x, \"fc.weight\")\n",
		"[node_Constant] six = Constant <value: tensor = float {6}> ()\n",
		/* an input left out in the middle */
		"[node_Clip] clip = Clip (mm, \"\", six)\n",
		/* float attributes with a point, lists typed */
		"[node_LeakyRelu] \"float\" = com.microsoft.LeakyRelu <alpha: "
		    "float = "
		    "0.100000001, ints_for_the_test: ints = [1, 0]> (clip)\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		if (!strstr(s, want[i]))
			fail_msg("missing:\n%s\nin:\n%s", want[i], s);
	free(s);
}

/* More than 16 MB inline: an error naming the way out, and no file. */
static void
test_text_limit(void **state)
{
	Fix *f = *state;
	GraphId g = tiny(f);
	Graph *gr = ir_graph(f->m, g);
	size_t n = (17u << 20) / 4;
	float *big = calloc(n, sizeof *big);
	int64_t dims[1] = {(int64_t)n};
	Tensor t = {.name = S(f, "big"), .dtype = DT_F32, .rank = 1,
	    .dims = dims, .data = big, .nbytes = n * 4};
	ValId v = ir_value(gr, S(f, "big"));
	ir_set_tensor(gr, v, DT_F32, 1, (Dim[]){{(int64_t)n, 0}});
	ir_val(gr, v)->init = ir_tensor(f->m, &t);
	ir_add_input(gr, v);
	BeOptions o = {.opset = 18};
	assert_int_equal(be_writer_named("text")->write(f->m, g, &o, f->path),
	    -1);
	fflush(f->m->diagout);
	assert_non_null(strstr(f->diag, "17 MB of tensors to write inline, "
	    "over the 16 MB"));
	assert_non_null(strstr(f->diag, "--external-data"));
	assert_int_equal(access(f->path, F_OK), -1);
	/* --no-weights writes no values */
	o.no_weights = true;
	assert_int_equal(be_writer_named("text")->write(f->m, g, &o, f->path),
	    0);
	char *s = slurp(f->path);
	assert_non_null(strstr(s, "   float[4456448] big\n"));
	assert_null(strstr(s, " = {"));
	free(s);
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_limit, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
