/* test_safetensors.c - reading .safetensors files and binding weights. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "frontend/safetensors.h"

typedef struct Fix {
	char dir[64];
	char path[128];
	Module *m;
	char *diag;
	size_t diaglen;
} Fix;

static int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	strcpy(f->dir, "/tmp/test_st_XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof f->path, "%s/w.safetensors", f->dir);
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

static const char *
diag(Fix *f)
{
	fflush(f->m->diagout);
	return f->diag ? f->diag : "";
}

static void
write_raw(Fix *f, const void *p, size_t n)
{
	FILE *fp = fopen(f->path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(p, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

/* An 8-byte little-endian header length, the header, then data. */
static void
write_st(Fix *f, const char *json, const void *data, size_t n)
{
	size_t hl = strlen(json);
	unsigned char *buf = malloc(8 + hl + n);
	for (int i = 0; i < 8; i++)
		buf[i] = (unsigned char)((uint64_t)hl >> (8 * i));
	memcpy(buf + 8, json, hl);
	if (n)
		memcpy(buf + 8 + hl, data, n);
	write_raw(f, buf, 8 + hl + n);
	free(buf);
}

/* Opening must fail with an error naming the file and containing want. */
static void
expect_bad(Fix *f, const char *want)
{
	StFile *st = st_open(f->m, f->path);
	assert_null(st);
	assert_true(f->m->nerrors > 0);
	const char *d = diag(f);
	if (!strstr(d, want) || !strstr(d, f->path))
		fail_msg("diagnostics lack '%s' or the path:\n%s", want, d);
}

static void
test_good_file(void **state)
{
	Fix *f = *state;
	unsigned char data[64];
	float w[6] = {1, 2, 3, 4, 5, -6.5f};
	int64_t n = -42;
	unsigned char mask[3] = {1, 0, 1};
	uint16_t h = 0x3c00;     /* 1.0 in f16 */
	memcpy(data, w, 24);
	memcpy(data + 24, &n, 8);
	memcpy(data + 32, mask, 3);
	memcpy(data + 35, &h, 2);
	write_st(f,
	    "{\"__metadata__\": {\"format\": \"pt\", \"k\": \"v\\n\"},\n"
	    " \"fc.weight\": {\"dtype\": \"F32\", \"shape\": [2, 3], "
	    "\"data_offsets\": [0, 24]},\n"
	    " \"bn.num_batches_tracked\": {\"shape\": [], \"dtype\": \"I64\","
	    " \"data_offsets\": [24, 32], \"extra\": [1, -2.5e+3, {\"x\": "
	    "null}, true, false, \"s\", []]},\n"
	    " \"mask\": {\"dtype\": \"BOOL\", \"shape\": [3], "
	    "\"data_offsets\": [32, 35]},\n"
	    " \"a\\\"b\\u00e9\\ud83d\\ude00\": {\"dtype\": \"F16\", "
	    "\"shape\": [1, 1], \"data_offsets\": [35, 37]},\n"
	    " \"empty\": {\"dtype\": \"BF16\", \"shape\": [0, 4], "
	    "\"data_offsets\": [37, 37]}}   ", data, 37);
	StFile *st = st_open(f->m, f->path);
	assert_non_null(st);
	assert_int_equal(f->m->nerrors, 0);
	assert_int_equal(st_count(st), 5);

	const Tensor *t = st_find(st, "fc.weight");
	assert_non_null(t);
	assert_string_equal(ir_str(f->m, t->name), "fc.weight");
	assert_int_equal(t->dtype, DT_F32);
	assert_int_equal(t->rank, 2);
	assert_int_equal(t->dims[0], 2);
	assert_int_equal(t->dims[1], 3);
	assert_int_equal(t->nbytes, 24);
	float got[6];
	memcpy(got, t->data, 24);
	assert_memory_equal(got, w, 24);

	t = st_find(st, "bn.num_batches_tracked");
	assert_non_null(t);
	assert_int_equal(t->dtype, DT_I64);
	assert_int_equal(t->rank, 0);
	int64_t gn;
	memcpy(&gn, t->data, 8);
	assert_int_equal(gn, -42);

	t = st_find(st, "mask");
	assert_int_equal(t->dtype, DT_BOOL);
	assert_memory_equal(t->data, mask, 3);

	t = st_find(st, "a\"b\xc3\xa9\xf0\x9f\x98\x80");
	assert_non_null(t);
	assert_int_equal(t->dtype, DT_F16);
	assert_memory_equal(t->data, &h, 2);

	t = st_find(st, "empty");
	assert_non_null(t);
	assert_int_equal(t->dtype, DT_BF16);
	assert_int_equal(t->nbytes, 0);
	assert_int_equal(t->dims[0], 0);

	assert_null(st_find(st, "fc.bias"));
	assert_null(st_find(st, "__metadata__"));
	/* the data points into the mapping: order of st_get is file order */
	assert_ptr_equal(st_get(st, 0)->data,
	    (const char *)st_get(st, 1)->data - 24);
	st_close(st);
}

static void
test_empty_header(void **state)
{
	Fix *f = *state;
	write_st(f, "{}", NULL, 0);
	StFile *st = st_open(f->m, f->path);
	assert_non_null(st);
	assert_int_equal(st_count(st), 0);
	assert_null(st_find(st, "x"));
	st_close(st);
}

static void
test_truncated_length(void **state)
{
	Fix *f = *state;
	write_raw(f, "\x10\0\0\0", 4);
	expect_bad(f, "too short for the 8-byte header length");
}

static void
test_length_past_eof(void **state)
{
	Fix *f = *state;
	unsigned char b[12] = {0xe8, 0x03, 0, 0, 0, 0, 0, 0, '{', '}', ' ',
	    ' '};
	write_raw(f, b, sizeof b);
	expect_bad(f, "header length 1000 reaches past the end of the file");
}

/* A symbolic link copied as a file: the message quotes its text. */
static void
test_link_as_text(void **state)
{
	Fix *f = *state;
	const char *t = "../model/weights.safetensors\n";
	write_raw(f, t, strlen(t));
	expect_bad(f, "header length 7810759558479949358 reaches past the "
	    "end of the file (29 bytes): the file is a line of text, "
	    "'../model/weights.safetensors', not safetensors (a symbolic "
	    "link copied as a file?)");
}

static void
test_huge_length(void **state)
{
	Fix *f = *state;
	unsigned char b[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    '{', '}'};
	write_raw(f, b, sizeof b);
	expect_bad(f, "reaches past the end of the file");
}

static void
test_missing_file(void **state)
{
	Fix *f = *state;
	expect_bad(f, "cannot open: No such file or directory");
}

static void
test_not_a_file(void **state)
{
	Fix *f = *state;
	assert_int_equal(mkdir(f->path, 0700), 0);
	expect_bad(f, "not a regular file");
	rmdir(f->path);
}

static void
test_bad_json(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"a\": {\"dtype\": \"F32\", \"shape\": [1], "
	    "\"data_offsets\": [0, 4]}", "abcd", 4);
	expect_bad(f, "malformed JSON header at byte 60: expected ',' or '}'");
}

static void
test_bad_json_variants(void **state)
{
	static const char *const cases[][2] = {
		{"[]", "the header is not a JSON object"},
		{"{\"a\": 1}", "tensor 'a': expected an object of dtype"},
		{"{\"a\" {}}", "expected ':'"},
		{"{\"a\": {\"shape\": [01]}}", "leading zero"},
		{"{\"a\": {\"shape\": [-1]}}", "non-negative integer"},
		{"{\"a\": {\"shape\": [1.5]}}", "expected a non-negative integer in shape"},
		{"{\"a\": {\"dtype\": \"F32\\x\"}}", "invalid escape"},
		{"{\"a\": {\"dtype\": \"F\n\"}}", "control character"},
		{"{\"a\\ud800\": {}}", "unpaired surrogate"},
		{"{\"a\\u0000\": {}}", "\\u0000"},
		{"{\"a\": {\"x\": tru}}", "expected a value"},
		{"{\"a\": {\"x\": 1.}}", "expected digits after '.'"},
		{"{\"a\": {\"x\": -01}}", "leading zero in a number"},
		{"{\"a\": {\"x\": 1e}}", "expected digits in an exponent"},
		{"{} x", "at byte 3: text after the JSON document"},
		{"{\"a\": {\"dtype\": \"U8\", \"shape\": [0], "
		    "\"data_offsets\": [0, 0]},}", "expected a member name"},
		{"{\"a", "unterminated string"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		Fix *f = *state;
		write_st(f, cases[i][0], NULL, 0);
		expect_bad(f, cases[i][1]);
		/* a syntax error is reported once */
		if (f->m->nerrors != 1)
			fail_msg("case %zu: %d errors:\n%s", i, f->m->nerrors,
			    diag(f));
		teardown(state);
		setup(state);
	}
}

static void
test_unknown_dtype(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"a\": {\"dtype\": \"F128\", \"shape\": [1], "
	    "\"data_offsets\": [0, 16]}}", "0123456789abcdef", 16);
	expect_bad(f, "tensor 'a': unsupported dtype 'F128'");
}

static void
test_offsets_outside(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"w\": {\"dtype\": \"F32\", \"shape\": [100], "
	    "\"data_offsets\": [0, 400]}}", "abcd", 4);
	expect_bad(f, "tensor 'w': data_offsets [0, 400] reach past the data "
	    "section (4 bytes)");
}

static void
test_offsets_reversed(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"w\": {\"dtype\": \"F32\", \"shape\": [1], "
	    "\"data_offsets\": [4, 0]}}", "abcd", 4);
	expect_bad(f, "data_offsets [4, 0] end before they begin");
}

static void
test_size_mismatch(void **state)
{
	Fix *f = *state;
	char data[24] = {0};
	write_st(f, "{\"fc.weight\": {\"dtype\": \"F32\", \"shape\": [2, 3], "
	    "\"data_offsets\": [0, 12]}}", data, 24);
	expect_bad(f, "w.safetensors: error: tensor 'fc.weight': data_offsets "
	    "[0, 12] hold 12 bytes but F32 [2, 3] needs 24");
}

static void
test_overflowing_shape(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"w\": {\"dtype\": \"F32\", \"shape\": [4294967296, "
	    "4294967296, 16], \"data_offsets\": [0, 0]}}", NULL, 0);
	expect_bad(f, "tensor 'w': shape [4294967296, 4294967296, 16] has "
	    "too many elements");
}

static void
test_overflowing_bytes(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"w\": {\"dtype\": \"F64\", \"shape\": "
	    "[4611686018427387904], \"data_offsets\": [0, 0]}}", NULL, 0);
	expect_bad(f, "has too many bytes");
}

/* a key repeated inside an entry, and __metadata__ given twice or not of
 * strings: each named, the JSON itself being well-formed */
static void
test_repeated_keys(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"w\": {\"dtype\": \"U8\", \"dtype\": \"U8\", "
	    "\"shape\": [1], \"data_offsets\": [0, 1]}}", "a", 1);
	expect_bad(f, "tensor 'w': duplicate key 'dtype'");
	teardown(state);
	setup(state);
	f = *state;
	write_st(f, "{\"__metadata__\": {}, \"__metadata__\": {}}", NULL, 0);
	expect_bad(f, "duplicate key '__metadata__'");
	teardown(state);
	setup(state);
	f = *state;
	write_st(f, "{\"__metadata__\": {\"format\": 1}}", NULL, 0);
	expect_bad(f, "'__metadata__' is not an object of strings");
}

/* the byte of an error on a later line counts the lines before it */
static void
test_error_byte_multiline(void **state)
{
	Fix *f = *state;
	write_st(f, "{\n  \"a\": {\n    \"dtype\": F32}}", NULL, 0);
	expect_bad(f, "malformed JSON header at byte 24: expected a value");
}

static void
test_dim_too_large(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"w\": {\"dtype\": \"F32\", \"shape\": "
	    "[9223372036854775808], \"data_offsets\": [0, 0]}}", NULL, 0);
	expect_bad(f, "tensor 'w': number too large in shape");
}

static void
test_duplicate_key(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"w\": {\"dtype\": \"U8\", \"shape\": [1], "
	    "\"data_offsets\": [0, 1]}, \"v\": {\"dtype\": \"U8\", "
	    "\"shape\": [1], \"data_offsets\": [1, 2]}, \"w\": {\"dtype\": "
	    "\"U8\", \"shape\": [1], \"data_offsets\": [1, 2]}}", "ab", 2);
	expect_bad(f, "tensor 'w': appears twice in the header");
}

static void
test_missing_field(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"w\": {\"dtype\": \"U8\", \"shape\": [1]}}", "a", 1);
	expect_bad(f, "tensor 'w': missing 'data_offsets'");
}

static void
test_reports_all(void **state)
{
	Fix *f = *state;
	write_st(f, "{\"a\": {\"dtype\": \"X\", \"shape\": [1], "
	    "\"data_offsets\": [0, 1]}, \"b\": {\"dtype\": \"U8\", "
	    "\"shape\": [2], \"data_offsets\": [0, 1]}}", "a", 1);
	expect_bad(f, "tensor 'a': unsupported dtype 'X'");
	assert_non_null(strstr(diag(f), "tensor 'b': data_offsets [0, 1] "
	    "hold 1 bytes but U8 [2] needs 2"));
	assert_int_equal(f->m->nerrors, 2);
}

/* ------------------------------------------------------------- binding */

static ValId
weight(Graph *g, Module *m, const char *name, const char *target, Role r,
    DType dt, int32_t rank, const Dim *dims)
{
	ValId v = ir_value(g, ir_intern(m, name));
	ir_set_tensor(g, v, dt, rank, dims);
	ir_val(g, v)->role = (uint8_t)r;
	if (target)
		ir_val(g, v)->target = ir_intern(m, target);
	ir_add_input(g, v);
	return v;
}

static StFile *
bind_file(Fix *f)
{
	char data[64] = {0};
	for (int i = 0; i < 64; i++)
		data[i] = (char)i;
	write_st(f, "{\"fc.weight\": {\"dtype\": \"F32\", \"shape\": [2, 3], "
	    "\"data_offsets\": [0, 24]}, \"conv_weight\": {\"dtype\": \"F16\","
	    " \"shape\": [4], \"data_offsets\": [24, 32]}, \"running\": "
	    "{\"dtype\": \"I64\", \"shape\": [], \"data_offsets\": [32, 40]}}",
	    data, 40);
	StFile *st = st_open(f->m, f->path);
	assert_non_null(st);
	return st;
}

static void
test_bind(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	StFile *st = bind_file(f);
	GraphId gid = ir_graph_new(m, "g", 0);
	Graph *g = ir_graph(m, gid);
	Dim d23[2] = {{2, 0}, {3, 0}}, d4[1] = {{4, 0}};
	ValId a = weight(g, m, "p_fc_weight", "fc.weight", ROLE_PARAM, DT_F32,
	    2, d23);
	ValId b = weight(g, m, "p_conv_weight", "conv.weight", ROLE_PARAM,
	    DT_F16, 1, d4);
	ValId c = weight(g, m, "running", "bn.running", ROLE_BUFFER, DT_I64,
	    0, NULL);
	ValId x = weight(g, m, "x", NULL, ROLE_USER_INPUT, DT_F32, 1, d4);
	/* dumps that symbolised a size equal to the batch (f32[64, s0, 7, 7]
	 * for a 3-channel conv): the file's shape wins, with a warning */
	Dim s0 = {0, ir_expr_sym(m, "s0")};
	Dim dsym[2] = {s0, {3, 0}}, dsym2[2] = {s0, s0};
	ValId s = weight(g, m, "c_sym", "fc.weight", ROLE_CONST, DT_F32, 2,
	    dsym);
	weight(g, m, "c_sym2", "fc.weight", ROLE_CONST, DT_F32, 2, dsym2);
	assert_int_equal(st_bind(m, st, gid), 0);
	assert_int_equal(m->nerrors, 0);
	assert_int_equal(m->nwarnings, 1);
	if (!strstr(diag(f), "warning: constant 'c_sym' is annotated f32 "
	    "[s0, 3], but fc.weight has [2, 3]; using the shapes in ") ||
	    !strstr(diag(f), " for this and 1 other weight with symbolic "
	    "dims"))
		fail_msg("unexpected diagnostics:\n%s", diag(f));
	assert_int_not_equal(ir_val(g, s)->init, 0);
	assert_int_equal(ir_dims(g, s)[0].e, 0);
	assert_int_equal(ir_dims(g, s)[0].n, 2);
	assert_int_equal(ir_dims(g, x)[0].n, 4);

	const Tensor *t = ir_tensorp(m, ir_val(g, a)->init);
	assert_ptr_equal(t->data, st_find(st, "fc.weight")->data);
	assert_string_equal(ir_str(m, t->name), "fc.weight");
	assert_int_equal(t->rank, 2);
	assert_int_equal(t->dims[1], 3);
	assert_int_equal(t->nbytes, 24);
	/* readable dumps: "conv.weight" is stored as "conv_weight" */
	t = ir_tensorp(m, ir_val(g, b)->init);
	assert_ptr_equal(t->data, st_find(st, "conv_weight")->data);
	assert_string_equal(ir_str(m, t->name), "conv.weight");
	/* and by the input's own name */
	t = ir_tensorp(m, ir_val(g, c)->init);
	assert_ptr_equal(t->data, st_find(st, "running")->data);
	assert_int_equal(ir_val(g, x)->init, 0);
	st_close(st);
}

static void
test_bind_errors(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	StFile *st = bind_file(f);
	GraphId gid = ir_graph_new(m, "g", 0);
	Graph *g = ir_graph(m, gid);
	Dim d23[2] = {{2, 0}, {3, 0}}, d32[2] = {{3, 0}, {2, 0}};
	Dim dsym[2] = {{0, ir_expr_sym(m, "s0")}, {4, 0}};
	weight(g, m, "p_fc_weight", "fc.weight", ROLE_PARAM, DT_F16, 2, d23);
	weight(g, m, "p_fc2_weight", "fc.weight", ROLE_PARAM, DT_F32, 2, d32);
	weight(g, m, "p_missing", "missing.w", ROLE_PARAM, DT_F32, 2, d23);
	weight(g, m, "c_sym", "fc.weight", ROLE_CONST, DT_F32, 2, dsym);
	weight(g, m, "b_rank", "fc.weight", ROLE_BUFFER, DT_F32, 1, d23);
	ValId ok = weight(g, m, "p_ok", "fc.weight", ROLE_PARAM, DT_F32, 2,
	    d23);
	assert_int_equal(st_bind(m, st, gid), -1);
	assert_int_equal(m->nerrors, 5);
	const char *d = diag(f);
	char want[256];
	const char *wants[] = {
		"tensor 'fc.weight' is F32 [2, 3] but parameter "
		    "'p_fc_weight' is f16",
		"tensor 'fc.weight' has shape [2, 3] but parameter "
		    "'p_fc2_weight' is f32 [3, 2]",
		"tensor 'fc.weight' has shape [2, 3] but constant 'c_sym' is "
		    "f32 [s0, 4]",
		"tensor 'fc.weight' has shape [2, 3] but buffer 'b_rank' is "
		    "f32 [2]",
	};
	for (size_t i = 0; i < sizeof wants / sizeof *wants; i++)
		if (!strstr(d, wants[i]))
			fail_msg("no '%s' in:\n%s", wants[i], d);
	snprintf(want, sizeof want, "no tensor 'missing.w' in %s (needed by "
	    "parameter 'p_missing')", f->path);
	if (!strstr(d, want))
		fail_msg("no '%s' in:\n%s", want, d);
	/* the good one is bound all the same */
	assert_int_not_equal(ir_val(g, ok)->init, 0);
	st_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_empty_header, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_truncated_length, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_length_past_eof, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_link_as_text,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_length, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_not_a_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bad_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_json_variants, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unknown_dtype, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_offsets_outside, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_offsets_reversed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_size_mismatch, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_overflowing_shape, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_overflowing_bytes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_repeated_keys, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_error_byte_multiline, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_dim_too_large, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_key, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_missing_field, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reports_all, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_errors, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
