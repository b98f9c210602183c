/* test_expr.c - symbolic expression text <-> Expr (ir/expr.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir/ckint.h"
#include "ir/ir.h"

static int
setup(void **state)
{
	*state = ir_module_new();
	return 0;
}

static int
teardown(void **state)
{
	ir_free(*state);
	return 0;
}

static ExprId
parse(Module *m, const char *s)
{
	ExprId e = 0;
	size_t at = 0;
	int rc = ir_expr_parse(m, s, strlen(s), &e, &at);
	if (rc != 0)
		fail_msg("parse of '%s' failed at %zu", s, at);
	return e;
}

static const char *
print(Module *m, ExprId e)
{
	static char buf[512];
	int n = ir_expr_print(m, e, buf, sizeof buf);
	assert_int_equal(n, strlen(buf));
	return buf;
}

/* What PyTorch prints in annotations and range constraints (from the
 * corpus dumps and from torch.utils._sympy printing rules). */
static void
test_roundtrip(void **state)
{
	Module *m = *state;
	static const char *const texts[] = {
		"s0", "u0", "s96", "2*s0", "s0 + 1", "s0*s1", "s96 + 1",
		"-s0 + 5", "s0 - 1", "2*s96", "s27 + 1", "s0 + 131",
		"Max(1, s0)", "Min(s0, 4) + 1", "Max(1, s0, s1)",
		"(s0//2)", "((s0 + 1)//2)", "2*(s0//2)", "((2*s0)//3)",
		"ToFloat(s37)", "ToFloat(s37) + 3.0", "s77 > 2", "s0 > 4",
		"u0 >= 0", "u0 <= 5", "s0 < 3", "Eq(s0, 2)", "Ne(s0, 1)",
		"s0**2", "Mod(s0, 2)", "s0 % 2", "(s0 + 1) % 2",
		"-2*s0 + 24", "24 - 3*s0", "s0 - 2*s1", "-(s0 + 1)",
		"s0 + s1 + s2", "s0 - (s1 - s2)", "s0*(s1 + 1)", "s0/2",
		"CeilToInt(IntTrueDiv(s0, 2))", "floor(s0/2)", "ceiling(s0/3)",
		"(s0 > 2) & (s1 < 3)", "(s0 > 2) | Eq(s1, 1)", "~(s0 > 2)",
		"1e-05*s0", "0.5*ToFloat(s0)", "-s0*s1", "2**s0",
		"-s0 + Max(2, s0)", "s0 + 9223372036854775807", "-5",
		"-s0 + ((-2*s0 + ((24 - 3*s0)//2) + 6)//2) + 4",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		ExprId e = parse(m, texts[i]);
		assert_string_equal(print(m, e), texts[i]);
	}
}

/* Other spellings of the same expressions: hash-consing makes them one. */
static void
test_equivalent_spellings(void **state)
{
	Module *m = *state;
	static const char *const pairs[][2] = {
		{"22-2*s0", "22 - 2*s0"},
		{"s0+1", "s0 + 1"},
		{"FloorDiv(24-3*s0,2)", "((24 - 3*s0)//2)"},
		{"s0//2", "(s0//2)"},
		{"s0 == 2", "Eq(s0, 2)"},
		{"s0 != 2", "Ne(s0, 2)"},
		{"s0 + -3", "s0 - 3"},
		{"(s0)", "s0"},
		{"+s0", "s0"},
		{"s0 > 2 and s1 < 3", "(s0 > 2) & (s1 < 3)"},
		{"not s0 > 2", "~(s0 > 2)"},
		{"Max(s0, Max(s1, s2))", "Max(s0, s1, s2)"},
		{"-(3)", "-3"},
		{"3.", "3.0"},
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		ExprId a = parse(m, pairs[i][0]), b = parse(m, pairs[i][1]);
		assert_int_equal(a, b);
		assert_string_equal(print(m, a), pairs[i][1]);
	}
}

static void
test_structure_and_precedence(void **state)
{
	Module *m = *state;
	ExprId s0 = ir_expr_sym(m, "s0"), s1 = ir_expr_sym(m, "s1");
	ExprId two = ir_expr_int(m, 2);
	/* 1 + 2*s0: * binds tighter */
	ExprId e = parse(m, "1 + 2*s0");
	const Expr *x = ir_exprp(m, e);
	assert_int_equal(x->kind, E_ADD);
	assert_int_equal(x->a, ir_expr_int(m, 1));
	assert_int_equal(x->b, ir_expr_bin(m, E_MUL, two, s0));
	/* a - b is a + (-b); a - 2 is a + (-2) */
	e = parse(m, "s0 - s1");
	assert_int_equal(e, ir_expr_bin(m, E_ADD, s0,
	    ir_expr_bin(m, E_NEG, s1, 0)));
	assert_int_equal(parse(m, "s0 - 2"), ir_expr_bin(m, E_ADD, s0,
	    ir_expr_int(m, -2)));
	/* -s0**2 is -(s0**2); 2**-1 has a unary exponent */
	assert_int_equal(parse(m, "-s0**2"), ir_expr_bin(m, E_NEG,
	    ir_expr_bin(m, E_POW, s0, two), 0));
	assert_int_equal(parse(m, "2**-1"), ir_expr_bin(m, E_POW, two,
	    ir_expr_int(m, -1)));
	/* ** is right associative, * left */
	assert_int_equal(parse(m, "s0**s1**2"), ir_expr_bin(m, E_POW, s0,
	    ir_expr_bin(m, E_POW, s1, two)));
	assert_int_equal(parse(m, "s0*s1*2"), ir_expr_bin(m, E_MUL,
	    ir_expr_bin(m, E_MUL, s0, s1), two));
	/* comparisons bind looser than arithmetic */
	x = ir_exprp(m, parse(m, "s0 + 1 > 2*s1"));
	assert_int_equal(x->kind, E_GT);
	assert_int_equal(ir_exprp(m, x->a)->kind, E_ADD);
	/* the function spellings */
	assert_int_equal(ir_exprp(m, parse(m, "Max(1, s0)"))->kind, E_MAX);
	assert_int_equal(ir_exprp(m, parse(m, "Min(1, s0)"))->kind, E_MIN);
	assert_int_equal(ir_exprp(m, parse(m, "ToFloat(s0)"))->kind,
	    E_TOFLOAT);
	assert_int_equal(ir_exprp(m, parse(m, "FloorDiv(s0, 2)"))->kind,
	    E_FLOORDIV);
	assert_int_equal(ir_exprp(m, parse(m, "Mod(s0, 2)"))->kind, E_MOD);
	assert_int_equal(ir_exprp(m, parse(m, "s0 / 2"))->kind, E_TRUEDIV);
	x = ir_exprp(m, parse(m, "CeilToInt(s0)"));
	assert_int_equal(x->kind, E_CALL);
	assert_string_equal(ir_str(m, x->str), "CeilToInt");
	assert_int_equal(x->a, s0);
	assert_int_equal(x->b, 0);
	/* numbers */
	x = ir_exprp(m, parse(m, "9223372036854775807"));
	assert_int_equal(x->kind, E_INT);
	assert_true(x->n == INT64_MAX);
	x = ir_exprp(m, parse(m, "1e-05"));
	assert_int_equal(x->kind, E_FLOAT);
	assert_true(x->f == 1e-05);
	x = ir_exprp(m, parse(m, "-2.5"));
	assert_int_equal(x->kind, E_FLOAT);
	assert_true(x->f == -2.5);
}

static void
expect_error(Module *m, const char *s, size_t pos)
{
	ExprId e = 12345;
	size_t at = 999;
	int rc = ir_expr_parse(m, s, strlen(s), &e, &at);
	if (rc != -1)
		fail_msg("'%s' parsed", s);
	if (at != pos)
		fail_msg("'%s': error at %zu, expected %zu", s, at, pos);
	assert_int_equal(e, 12345); /* untouched on error */
}

static void
test_errors(void **state)
{
	Module *m = *state;
	expect_error(m, "", 0);
	expect_error(m, "s0 +", 4);
	expect_error(m, "s0 + * 2", 5);
	expect_error(m, "Max(s0", 6);
	expect_error(m, "(s0", 3);
	expect_error(m, "s0 s1", 3);
	expect_error(m, "s0 $ 1", 3);
	expect_error(m, "s0)", 2);
	expect_error(m, "1 < s0 < 3", 7);
	expect_error(m, "foo(s0, s1, s2)", 12);
	expect_error(m, "ToFloat(s0, s1)", 0);
	expect_error(m, "Max(s0)", 0);
	expect_error(m, "99999999999999999999", 0);
	expect_error(m, "s0 + 9223372036854775808", 5);
	/* deep nesting is an error, not a stack overflow */
	char deep[4096];
	memset(deep, '(', 2000);
	strcpy(deep + 2000, "s0");
	ExprId e;
	size_t at = 0;
	assert_int_equal(ir_expr_parse(m, deep, strlen(deep), &e, &at), -1);
	assert_true(at < 200);
	memset(deep, '-', 3000);
	strcpy(deep + 3000, "s0");
	assert_int_equal(ir_expr_parse(m, deep, strlen(deep), &e, &at), -1);
	/* the text need not be NUL-terminated: only n bytes are read */
	assert_int_equal(ir_expr_parse(m, "s0 + 1garbage", 6, &e, &at), 0);
	assert_string_equal(print(m, e), "s0 + 1");
}

/* ir/ckint.h: Python's rounding, and false exactly where int64 ends. */
static void
test_checked_arithmetic(void **state)
{
	(void)state;
	int64_t r;
	assert_true(ck_floordiv(-7, 2, &r));
	assert_int_equal(r, -4);
	assert_true(ck_floordiv(7, -2, &r));
	assert_int_equal(r, -4);
	assert_false(ck_floordiv(5, 0, &r));
	assert_false(ck_floordiv(INT64_MIN, -1, &r));
	assert_true(ck_mod(-7, 2, &r));
	assert_int_equal(r, 1);
	assert_true(ck_mod(7, -2, &r));
	assert_int_equal(r, -1);
	assert_true(ck_mod(INT64_MIN, -1, &r));
	assert_int_equal(r, 0);
	assert_false(ck_mod(1, 0, &r));
	assert_true(ck_ceildiv(7, 2, &r));
	assert_int_equal(r, 4);
	assert_true(ck_ceildiv(-7, 2, &r));
	assert_int_equal(r, -3);
	assert_true(ck_ceildiv(INT64_MAX, 1, &r));
	assert_int_equal(r, INT64_MAX);
	assert_true(ck_pow(2, 62, &r));
	assert_int_equal(r, INT64_C(1) << 62);
	assert_false(ck_pow(2, 63, &r));
	assert_true(ck_pow(-2, 63, &r));
	assert_int_equal(r, INT64_MIN);
	assert_true(ck_pow(-1, INT64_MAX, &r));
	assert_int_equal(r, -1);
	assert_false(ck_pow(3, -1, &r));
	assert_false(ck_neg(INT64_MIN, &r));
	assert_false(ck_add(INT64_MAX, 1, &r));
	assert_false(ck_sub(INT64_MIN, 1, &r));
	assert_false(ck_mul(INT64_C(3037000500), INT64_C(3037000500), &r));
	assert_false(ck_prod((int64_t[]){INT64_MAX, 2, 1}, 3, &r));
	/* an empty shape has no elements however large its other sizes */
	assert_true(ck_prod((int64_t[]){INT64_MAX, 2, 0}, 3, &r));
	assert_int_equal(r, 0);
}

/* Expressions no size can equal: the reason and the subexpression. */
static void
test_impossible(void **state)
{
	Module *m = *state;
	static const struct {
		const char *text, *why, *bad;
	} cases[] = {
		{"FloorDiv(s0, 0)", "division by zero", "(s0//0)"},
		{"s0 % 0", "modulo by zero", "s0 % 0"},
		{"Mod(s0, 0)", "modulo by zero", "Mod(s0, 0)"},
		{"2*FloorDiv(4, 0) + s0", "division by zero", "(4//0)"},
		{"s0 / 0.0", "division by zero", "s0/0.0"},
		{"FloorDiv(-9223372036854775807 - 1, -1)", "integer overflow",
		    "((-9223372036854775807 - 1)//(-1))"},
		{"9223372036854775807 + 1", "integer overflow",
		    "9223372036854775807 + 1"},
		{"3037000500*3037000500", "integer overflow",
		    "3037000500*3037000500"},
		{"s0**99999999", "exponent too large", "s0**99999999"},
		{"2**63", "integer overflow", "2**63"},
		{"0**(-1)", "division by zero", "0**-1"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		ExprId bad = 0, e = parse(m, cases[i].text);
		const char *why = ir_expr_check(m, e, &bad);
		if (!why || strncmp(why, cases[i].why, strlen(cases[i].why)))
			fail_msg("'%s': got %s", cases[i].text,
			    why ? why : "no error");
		assert_string_equal(print(m, bad), cases[i].bad);
	}
	/* what torch prints for real sizes stays accepted */
	static const char *const fine[] = {
		"FloorDiv(s0, 2)", "s0 % 8", "s0**2", "2**62", "1**99999999",
		"(-1)**99999999", "Max(1, s0 - 1)", "FloorDiv(-7, 2)",
		"9223372036854775807", "-9223372036854775807 - 1",
	};
	for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
		const char *why = ir_expr_check(m, parse(m, fine[i]), NULL);
		if (why)
			fail_msg("'%s': %s", fine[i], why);
	}
}

static void
test_print_buffer_and_dim_text(void **state)
{
	Module *m = *state;
	ExprId e = parse(m, "s0 + 131");
	char small[4];
	assert_int_equal(ir_expr_print(m, e, small, sizeof small), 8);
	assert_string_equal(small, "s0 ");
	assert_int_equal(ir_expr_print(m, e, NULL, 0), 8);
	assert_string_equal(ir_dim_text(m, (Dim){4, 0}), "4");
	assert_string_equal(ir_dim_text(m, (Dim){-1, 0}), "-1");
	assert_string_equal(ir_dim_text(m, (Dim){0, e}), "s0 + 131");
	/* longer than any fixed buffer */
	char big[2000] = "s0";
	for (int i = 1; i < 150; i++)
		snprintf(big + strlen(big), sizeof big - strlen(big),
		    " + s%d", i);
	e = parse(m, big);
	const char *t = ir_dim_text(m, (Dim){0, e});
	assert_string_equal(t, big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_equivalent_spellings,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_structure_and_precedence,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test(test_checked_arithmetic),
		cmocka_unit_test_setup_teardown(test_impossible, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_print_buffer_and_dim_text,
		    setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
