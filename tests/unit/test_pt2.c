/* test_pt2.c - the readers under the .pt2 frontend: JSON with locations
 * (frontend/json.c), sympy srepr expressions (pt2_expr.c) and the
 * restricted unpickler (pickle.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/pickle.h"
#include "frontend/pt2_int.h"

static const JVal *
parse(Arena *a, const char *s, const char **err, Loc *at)
{
	*err = NULL;
	return json_parse(a, s, strlen(s), 0, err, at);
}

static void
test_json(void **state)
{
	(void)state;
	Arena *a = arena_new();
	const char *err;
	Loc at;
	const JVal *v = parse(a, "{\"a\": [1, -2.5e1, \"x\\u00e9\\n\"],\n"
	    " \"b\": {\"c\": NaN, \"d\": -Infinity}, \"e\": 9223372036854775808}",
	    &err, &at);
	assert_non_null(v);
	const JVal *arr = json_get(v, "a");
	assert_true(json_is(arr, J_ARR));
	assert_int_equal(arr->n, 3);
	assert_true(arr->kids[0].isint);
	assert_int_equal(arr->kids[0].i, 1);
	assert_false(arr->kids[1].isint);
	assert_true(arr->kids[1].f == -25.0);
	assert_string_equal(arr->kids[2].s, "x\xc3\xa9\n");
	const JVal *b = json_get(v, "b");
	assert_int_equal(b->loc.line, 2);    /* located where it starts */
	assert_int_equal(b->loc.col, 7);
	assert_true(isnan(json_get(b, "c")->f));
	assert_true(isinf(json_get(b, "d")->f) && json_get(b, "d")->f < 0);
	assert_false(json_get(v, "e")->isint); /* past int64: not an int */
	assert_null(json_get(v, "zz"));

	assert_null(parse(a, "{\"a\": [1, 2}", &err, &at));
	assert_string_equal(err, "expected ',' or ']'");
	assert_int_equal(at.col, 12);
	assert_null(parse(a, "[01]", &err, &at));
	assert_null(parse(a, "\"\\ud800\"", &err, &at));
	assert_null(parse(a, "{} x", &err, &at));
	assert_string_equal(err, "text after the JSON document");
	char deep[2000];
	memset(deep, '[', sizeof deep - 1);
	deep[sizeof deep - 1] = 0;
	assert_null(parse(a, deep, &err, &at));
	assert_string_equal(err, "nesting too deep");
	arena_free(a);
}

/* Strings are UTF-8 without NUL (names go into the ONNX file); each
 * container's kids are counted ahead and filled in place, deep or wide. */
static void
test_json_strings_and_shapes(void **state)
{
	(void)state;
	Arena *a = arena_new();
	const char *err = NULL;
	Loc at;
	assert_null(parse(a, "[\"ab\\u0000c\"]", &err, &at));
	assert_true(strstr(err, "NUL character") != NULL);
	assert_null(parse(a, "[\"a\xff" "b\"]", &err, &at));
	assert_string_equal(err, "invalid UTF-8 in a string");
	assert_int_equal(at.col, 4);
	static const char *const bad8[] = {"\"\xc0\xaf\"", "\"\xe0\x80\x80\"",
		"\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"",
		"\"\x80\""};
	for (size_t i = 0; i < sizeof bad8 / sizeof bad8[0]; i++)
		assert_null(parse(a, bad8[i], &err, &at));
	const JVal *v = parse(a, "{\"\xc3\xa9t\xc3\xa9\": \"\xe2\x82\xac\xf0\x9f\x98\x80\"}",
	    &err, &at);
	assert_non_null(v);
	assert_string_equal(v->kids[0].s, "\xe2\x82\xac\xf0\x9f\x98\x80");
	/* nested and empty containers, strings holding brackets and
	 * commas: every count right */
	v = parse(a, "[[], [1, [2, 3], {}], {\"a,]\": [\"],[\", 4]}, 5]", &err,
	    &at);
	assert_non_null(v);
	assert_int_equal(v->n, 4);
	assert_int_equal(v->kids[0].n, 0);
	assert_int_equal(v->kids[1].n, 3);
	assert_int_equal(v->kids[1].kids[1].n, 2);
	assert_int_equal(v->kids[1].kids[1].kids[1].i, 3);
	assert_int_equal(v->kids[2].n, 1);
	assert_int_equal(v->kids[2].kids[0].n, 2);
	assert_string_equal(v->kids[2].kids[0].kids[0].s, "],[");
	assert_int_equal(v->kids[3].i, 5);
	/* a member named twice is ambiguous */
	assert_null(parse(a, "{\"a\": 1, \"b\": 2,\n \"a\": 3}", &err, &at));
	assert_string_equal(err, "a member name given twice in one object");
	assert_int_equal(at.line, 2);
	/* text that does not close: the error where it stops */
	assert_null(parse(a, "[1, [2, 3", &err, &at));
	assert_string_equal(err, "expected ',' or ']'");
	arena_free(a);
}

static const char *
srepr(Module *m, const char *s)
{
	ExprId e;
	const char *why = NULL;
	if (pt2_srepr(m, s, strlen(s), &e, &why) < 0)
		return why;
	return sym_text(m, e);
}

static void
test_srepr(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	assert_string_equal(srepr(m, "Symbol('s0', positive=True, "
	    "integer=True)"), "s0");
	assert_string_equal(srepr(m, "Mul(Integer(2), Symbol('s77', "
	    "positive=True, integer=True))"), "2*s77");
	assert_string_equal(srepr(m, "Add(Symbol('s0', integer=True), "
	    "Integer(1))"), "s0 + 1");
	assert_string_equal(srepr(m, "FloorDiv(Symbol('s0', integer=True), "
	    "Integer(2))"), sym_text(m, sym_simplify(m, ir_expr_bin(m,
	    E_FLOORDIV, ir_expr_sym(m, "s0"), ir_expr_int(m, 2)))));
	assert_string_equal(srepr(m, "FloorDiv(Symbol('s0', integer=True), "
	    "Integer(0))"), "division by zero");
	assert_string_equal(srepr(m, "PythonMod(Symbol('s0'), Integer(0))"),
	    "modulo by zero");
	assert_string_equal(srepr(m, "Mul(Integer(2)"), "expected ',' or ')'");
	assert_string_equal(srepr(m, "Symbol('s0') x"),
	    "text after the expression");
	ir_free(m);
}

/* ScalarType codes of torch/_export/serde/schema.py, the unsigned ones
 * included (hash_tensor's result is uint64, code 35) */
static void
test_dtype_codes(void **state)
{
	(void)state;
	assert_int_equal(pt2_dtype(1), DT_U8);
	assert_int_equal(pt2_dtype(7), DT_F32);
	assert_int_equal(pt2_dtype(28), DT_U16);
	assert_int_equal(pt2_dtype(33), DT_UNDEF); /* float8_e8m0fnu */
	assert_int_equal(pt2_dtype(34), DT_U32);
	assert_int_equal(pt2_dtype(35), DT_U64);
	assert_int_equal(pt2_dtype(36), DT_UNDEF);
	assert_int_equal(pt2_dtype(0), DT_UNDEF);
	assert_int_equal(pt2_dtype(-1), DT_UNDEF);
}

/* torch.save of a 2x2 float view at offset 1, strides (1, 2), in a dict */
static const unsigned char dict_pkl[] =
    "\x80\x02}q\x00X\x01\x00\x00\x00wq\x01"
    "ctorch._utils\n_rebuild_tensor_v2\nq\x02"
    "((X\x07\x00\x00\x00storageq\x03" "ctorch\nFloatStorage\nq\x04"
    "X\x01\x00\x00\x00" "0q\x05X\x03\x00\x00\x00" "cpuq\x06K\x06tq\x07Q"
    "K\x01K\x02K\x02\x86q\x08K\x01K\x02\x86q\t\x89"
    "ccollections\nOrderedDict\nq\n)Rq\x0btq\x0cRq\rs.";

static void
test_pickle(void **state)
{
	(void)state;
	Arena *a = arena_new();
	PkTensor *t;
	uint32_t n;
	const char *err = NULL;
	size_t pos;
	int rc = pk_read(a, dict_pkl, sizeof dict_pkl - 1, &t, &n, &err, &pos);
	if (rc)
		print_message("pk_read: %s at byte %zu\n", err, pos);
	assert_int_equal(rc, 0);
	assert_int_equal(n, 1);
	assert_string_equal(t[0].key, "w");
	assert_string_equal(t[0].storage, "0");
	assert_int_equal(t[0].dtype, DT_F32);
	assert_int_equal(t[0].rank, 2);
	assert_int_equal(t[0].offset, 1);
	assert_int_equal(t[0].strides[1], 2);

	static const unsigned char evil[] = "\x80\x02" "cos\nsystem\nq\x00.";
	assert_int_equal(pk_read(a, evil, sizeof evil - 1, &t, &n, &err,
	    &pos), -1);
	assert_string_equal(err, "forbidden pickle global 'os.system' (only "
	    "the tensors torch.save writes are read)");
	assert_int_equal(pos, 2);
	static const unsigned char trunc[] = "\x80\x02}q";
	assert_int_equal(pk_read(a, trunc, sizeof trunc - 1, &t, &n, &err,
	    &pos), -1);
	assert_string_equal(err, "pickle truncated");
	static const unsigned char notdict[] = "\x80\x02K\x05.";
	assert_int_equal(pk_read(a, notdict, sizeof notdict - 1, &t, &n,
	    &err, &pos), -1);
	static const unsigned char badget[] = "\x80\x02h\x07.";
	assert_int_equal(pk_read(a, badget, sizeof badget - 1, &t, &n, &err,
	    &pos), -1);
	assert_string_equal(err, "memo get of an unset index");
	/* what the values take is bounded by the pickle's size: 200,000
	 * ints kept on a list ask for more than 16 bytes a byte (and the 1 MiB
	 * every pickle may use) */
	size_t np = 4 + 3 * 200000;
	unsigned char *many = malloc(np);
	memcpy(many, "\x80\x02]", 3);
	for (size_t i = 0; i < 200000; i++)
		memcpy(many + 3 + 3 * i, "K\x01" "a", 3);
	many[np - 1] = '.';
	assert_int_equal(pk_read(a, many, np, &t, &n, &err, &pos), -1);
	assert_true(strstr(err, "more objects than one of its size") != NULL);
	/* None, MARK and booleans are shared: a million of them pushed and
	 * popped cost nothing */
	np = 4 + 2 * 1000000;
	many = realloc(many, np);
	memcpy(many, "\x80\x02", 2);
	for (size_t i = 0; i < 1000000; i++)
		memcpy(many + 2 + 2 * i, i % 2 ? "\x88" "0" : "N0", 2);
	memcpy(many + np - 2, "}.", 2);
	assert_int_equal(pk_read(a, many, np, &t, &n, &err, &pos), 0);
	assert_int_equal(n, 0);
	free(many);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_strings_and_shapes),
		cmocka_unit_test(test_srepr),
		cmocka_unit_test(test_pickle),
		cmocka_unit_test(test_dtype_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
