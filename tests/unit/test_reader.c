/* test_reader.c - the table of input formats (frontend/reader.h): which
 * reader takes which input, the error for an input none takes, and the
 * one path (read, verify, bind, close) the driver runs through it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/fx.h"
#include "frontend/pt2.h"
#include "frontend/reader.h"
#include "ir/ir.h"

static const char dump[] =
    "def forward(self, x: \"f32[2]\"):\n"
    "    neg: \"f32[2]\" = torch.ops.aten.neg.default(x)\n"
    "    return (neg,)\n";

/* A zip's local file header, as every .pt2 archive starts. */
static const unsigned char zip[] = {'P', 'K', 3, 4, 20, 0, 0, 0, 0, 0};

/* A module whose diagnostics go to a string. */
typedef struct Fix {
	Module *m;
	FILE *f;
	char *diag;
	size_t len;
} Fix;

static int
setup(void **state)
{
	Fix *x = calloc(1, sizeof *x);
	x->m = ir_module_new();
	x->m->file = "in";
	x->f = open_memstream(&x->diag, &x->len);
	x->m->diagout = x->f;
	*state = x;
	return 0;
}

static int
teardown(void **state)
{
	Fix *x = *state;
	fclose(x->f);
	free(x->diag);
	ir_free(x->m);
	free(x);
	return 0;
}

static const char *
diag(Fix *x)
{
	fflush(x->f);
	return x->diag ? x->diag : "";
}

static FeInput
input(Module *m, const char *path, const void *buf, size_t len)
{
	m->src = buf;
	m->srclen = len;
	return (FeInput){.path = path, .buf = buf, .len = len};
}

static void
test_sniff_picks(void **state)
{
	Fix *x = *state;
	FeInput in = input(x->m, "model.pt2", zip, sizeof zip);
	assert_ptr_equal(fe_pick(x->m, fe_readers, fe_nreaders, &in),
	    &pt2_reader);
	/* by its bytes, not its name */
	in = input(x->m, "model.txt", zip, sizeof zip);
	assert_ptr_equal(fe_pick(x->m, fe_readers, fe_nreaders, &in),
	    &pt2_reader);
	in = input(x->m, "model.pt2", dump, strlen(dump));
	assert_ptr_equal(fe_pick(x->m, fe_readers, fe_nreaders, &in),
	    &fx_reader);
	/* the dump takes whatever is left, even nothing */
	in = input(x->m, "empty", "", 0);
	assert_ptr_equal(fe_pick(x->m, fe_readers, fe_nreaders, &in),
	    &fx_reader);
	assert_int_equal(x->m->nerrors, 0);
	/* the dump comes last: a reader before it is asked first */
	assert_ptr_equal(fe_readers[fe_nreaders - 1], &fx_reader);
}

static void
test_unknown_format(void **state)
{
	Fix *x = *state;
	const FeReader *only[] = {&pt2_reader};
	FeInput in = input(x->m, "graph.txt", dump, strlen(dump));
	assert_null(fe_pick(x->m, only, 1, &in));
	assert_int_equal(x->m->nerrors, 1);
	assert_non_null(strstr(diag(x), "error: 'graph.txt' is in no format "
	    "onnxc reads (it reads .pt2 archives)"));
}

/* A format of its own, known by its name's extension, counting the calls
 * the path makes. */
typedef struct Calls {
	int read, bind, close;
} Calls;
static Calls calls;

static bool
fake_sniff(const char *path, const unsigned char *buf, size_t len)
{
	(void)buf;
	(void)len;
	size_t n = strlen(path);
	return n > 5 && !strcmp(path + n - 5, ".fake");
}

static int
fake_read(Module *m, const FeInput *in, void **state, GraphId *out)
{
	(void)in;
	calls.read++;
	*state = &calls;
	return fx_parse(m, out);
}

static int
fake_bind(void *state, GraphId g)
{
	(void)g;
	((Calls *)state)->bind++;
	return 0;
}

static void
fake_close(void *state)
{
	((Calls *)state)->close++;
}

static const FeReader fake = {
	.name = "fake files",
	.what = "a fake file",
	.sniff = fake_sniff,
	.read = fake_read,
	.bind = fake_bind,
	.close = fake_close,
};

static void
test_table_order_and_path(void **state)
{
	Fix *x = *state;
	const FeReader *table[] = {&fake, &pt2_reader, &fx_reader};
	FeInput in = input(x->m, "m.fake", dump, strlen(dump));
	const FeReader *rd = fe_pick(x->m, table, 3, &in);
	assert_ptr_equal(rd, &fake);
	in = input(x->m, "m.txt", dump, strlen(dump));
	assert_ptr_equal(fe_pick(x->m, table, 3, &in), &fx_reader);

	calls = (Calls){0};
	GraphId g = 0;
	in = input(x->m, "m.fake", dump, strlen(dump));
	FeSource *s = fe_open(x->m, rd, &in, &g);
	assert_non_null(s);
	assert_int_not_equal(g, 0);
	assert_int_equal(ir_graph(x->m, g)->ninputs, 1);
	assert_int_equal(calls.read, 1);
	assert_int_equal(calls.bind, 1);
	const void *map;
	size_t len;
	assert_int_equal(fe_weights_fd(s, &map, &len), -1);
	fe_close(s);
	assert_int_equal(calls.close, 1);
	assert_int_equal(x->m->nerrors, 0);
}

/* --program on a format that holds one program */
static void
test_program_refused(void **state)
{
	Fix *x = *state;
	FeInput in = input(x->m, "g.txt", dump, strlen(dump));
	in.program = "model";
	GraphId g = 0;
	assert_null(fe_open(x->m, &fx_reader, &in, &g));
	assert_non_null(strstr(diag(x), "error: --program is for .pt2 "
	    "archives, and this is not one"));
}

/* A dump that does not parse: the reader's error, nothing held. */
static void
test_read_error(void **state)
{
	Fix *x = *state;
	static const char bad[] = "def forward(self, x: \"f32[2]\"):\n"
	    "    return (y,)\n";
	FeInput in = input(x->m, "g.txt", bad, strlen(bad));
	GraphId g = 0;
	assert_null(fe_open(x->m, &fx_reader, &in, &g));
	assert_true(x->m->nerrors > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sniff_picks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unknown_format, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_table_order_and_path,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_read_error, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
