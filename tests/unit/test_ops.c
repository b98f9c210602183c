/* test_ops.c - the op table (ir/ops.def) is one table: each overload
 * once; in-place and out variants that belong to their row and to no
 * other; every row with a lowering found in its family's rule table, and
 * no rule outside the table; the decompose, shape and fold columns in
 * their places, one shape rule per op name (symbolize matches by name);
 * the checker's shape rules and the schemas naming rows that are lowered.
 * The checks run on small bad tables first, so each is seen to fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lower/check.h"
#include "lower/lower.h"

/* The columns ir/ops.c leaves out, as text. */
typedef struct Row {
	const char *op, *decompose, *shape, *fold;
} Row;

static const Row rows[] = {
#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	{op, #decompose, #shape, #fold},
#include "ir/ops.def"
#undef OP
};
enum { NROWS = sizeof rows / sizeof *rows };



static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first string that two of names[0..n) hold, NULL if none (sorts). */
static const char *
repeated(const char **names, size_t n)
{
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(names[i - 1], names[i]))
			return names[i];
	return NULL;
}

/* The first row whose op, in-place or out variant is another row's (or
 * its own twice), NULL if none. */
static const char *
first_shared(const IrOp *t, size_t n)
{
	const char **names = calloc(3 * n + 1, sizeof *names);
	assert_non_null(names);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		names[k++] = t[i].op;
		if (t[i].inplace)
			names[k++] = t[i].inplace;
		if (t[i].out)
			names[k++] = t[i].out;
	}
	const char *r = repeated(names, k);
	free(names);
	return r;
}

/* Name and overload of an "ns::name.overload" op. */
static void
parts(const char *op, char *name, char *over, size_t cap)
{
	const char *b = strstr(op, "::"), *dot;
	b = b ? b + 2 : op;
	dot = strchr(b, '.');
	snprintf(name, cap, "%.*s", dot ? (int)(dot - b) : (int)strlen(b), b);
	snprintf(over, cap, "%s", dot ? dot + 1 : "");
}

/* Whether the variants of row r are its own: NAME_.OVERLOAD in place,
 * NAME.something out=. */
static bool
variants_fit(const IrOp *r)
{
	char n[128], o[128], vn[128], vo[128], want[160];
	parts(r->op, n, o, sizeof n);
	if (r->inplace) {
		parts(r->inplace, vn, vo, sizeof vn);
		snprintf(want, sizeof want, "%s_", n);
		if (strcmp(vn, want) || strcmp(vo, o) ||
		    strncmp(r->inplace, r->op, strcspn(r->op, ":") + 2))
			return false;
	}
	if (r->out) {
		parts(r->out, vn, vo, sizeof vn);
		if (strcmp(vn, n) || !strcmp(vo, o) ||
		    strncmp(r->out, r->op, strcspn(r->op, ":") + 2))
			return false;
	}
	return true;
}

/* Parameters: names, a '=' after one with a default, one '*' at most. */
static bool
schema_ok(const char *s)
{
	int stars = 0;
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, " ");
		if (n == 1 && *p == '*')
			stars++;
		else
			for (size_t i = 0; i < n; i++)
				if (!(p[i] == '_' || (p[i] >= 'a' && p[i] <= 'z')
				    || (p[i] >= 'A' && p[i] <= 'Z') ||
				    (p[i] >= '0' && p[i] <= '9' && i) ||
				    (p[i] == '=' && i == n - 1 && i)))
					return false;
		if (!n)
			return false;
		p += n;
		if (*p)
			p++;
	}
	return stars <= 1;
}

static const LowerRule *
in_family(const char *family, const char *op)
{
	for (const LwFamily *f = lw_families; f->name; f++)
		if (!strcmp(f->name, family))
			for (const LowerRule *x = f->rules; x->op; x++)
				if (!strcmp(x->op, op))
					return x;
	return NULL;
}

/* The rule of op in any family, by its text (the pass looks it up by
 * StrId in a table built from the same families). */
static LowerFn
rule_of(const char *op)
{
	for (const LwFamily *f = lw_families; f->name; f++)
		for (const LowerRule *x = f->rules; x->op; x++)
			if (!strcmp(x->op, op))
				return x->fn;
	return NULL;
}

static bool
is_row(const char *op)
{
	return ir_op_find(op) != NULL;
}

/* ---------------------------------------------------------------- tests */

static void
test_checks_fail_on_bad_tables(void **state)
{
	(void)state;
	const IrOp dup[] = {
		{"aten::a.default", "none", "0", NULL, NULL, NULL, false},
		{"aten::b.default", "none", "0", NULL, NULL, NULL, false},
		{"aten::a.default", "none", "0", NULL, NULL, NULL, false},
	};
	assert_string_equal(first_shared(dup, 3), "aten::a.default");
	const IrOp twice[] = {
		{"aten::a.Tensor", "none", "0", NULL, "aten::a_.Tensor", NULL, false},
		{"aten::b.Tensor", "none", "0", NULL, "aten::a_.Tensor", NULL, false},
	};
	assert_string_equal(first_shared(twice, 2), "aten::a_.Tensor");
	assert_null(first_shared(dup, 2));
	const IrOp wrong[] = {
		{"aten::a.Tensor", "none", "0", NULL, "aten::b_.Tensor", NULL, false},
		{"aten::a.Tensor", "none", "0", NULL, "aten::a_.Scalar", NULL, false},
		{"aten::a.Tensor", "none", "0", NULL, NULL, "aten::a.Tensor", false},
		{"aten::a.Tensor", "none", "0", NULL, NULL, "aten::b.out", false},
		{"aten::a.Tensor", "none", "0", NULL, "prims::a_.Tensor", NULL, false},
	};
	for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++)
		assert_false(variants_fit(&wrong[i]));
	const IrOp right = {"aten::a.Tensor", "none", "0", NULL,
	    "aten::a_.Tensor", "aten::a.out", false};
	assert_true(variants_fit(&right));
	assert_false(schema_ok("self other * alpha= * x"));
	assert_false(schema_ok("self  other"));
	assert_false(schema_ok("self =x"));
	assert_true(schema_ok("self other * alpha="));
	assert_null(in_family("nn", "aten::add.Tensor"));
	assert_non_null(in_family("elementwise", "aten::add.Tensor"));
}

static void
test_each_overload_once(void **state)
{
	(void)state;
	assert_int_equal(ir_nops, NROWS);
	assert_null(first_shared(ir_ops, ir_nops));
}

static void
test_variants_belong_to_their_row(void **state)
{
	(void)state;
	uint32_t nin = 0;
	for (uint32_t k = 0; k < ir_nops; k++) {
		const IrOp *r = &ir_ops[k];
		if (!variants_fit(r))
			fail_msg("%s: variants %s, %s", r->op,
			    r->inplace ? r->inplace : "-", r->out ? r->out :
			    "-");
		if (r->inplace) {
			nin++;
			assert_ptr_equal(ir_op_of_inplace(r->inplace), r);
		}
	}
	assert_true(nin > 100); /* the column is filled, not left NULL */
	assert_ptr_equal(ir_op_of_inplace("aten::relu_.default"),
	    ir_op_find("aten::relu.default"));
	assert_null(ir_op_of_inplace("aten::relu.default"));
}

/* Each row with a family is in that family's table, rows without one in
 * none, and the tables hold nothing else. */
static void
test_rows_resolve_to_rules(void **state)
{
	(void)state;
	uint32_t nlow = 0, nrules = 0;
	for (uint32_t k = 0; k < ir_nops; k++) {
		const IrOp *r = &ir_ops[k];
		LowerFn f = rule_of(r->op);
		assert_true(lw_has_rule(r->op) == (f != NULL));
		if (!strcmp(r->family, "none")) {
			if (f || strcmp(r->rule, "0"))
				fail_msg("%s: a rule without a family", r->op);
			continue;
		}
		nlow++;
		const LowerRule *x = in_family(r->family, r->op);
		if (!x || x->fn != f)
			fail_msg("%s: not in lw_rules_%s", r->op, r->family);
	}
	for (const LwFamily *f = lw_families; f->name; f++)
		for (const LowerRule *x = f->rules; x->op; x++)
			nrules++;
	assert_int_equal(nrules, nlow);
	assert_true(lw_has_rule("aten::add.Tensor"));
	assert_false(lw_has_rule("aten::add_.Tensor"));
	assert_false(lw_has_rule("mylib::op.default"));
}

/* A row's op name (no namespace, no overload) and shape column. */
typedef struct Named {
	char name[96];
	const char *shape, *op;
} Named;

static int
cmp_named(const void *a, const void *b)
{
	return strcmp(((const Named *)a)->name, ((const Named *)b)->name);
}

/* The plugins take these columns straight from ops.def; what the table
 * must get right is their place and, for shapes, one rule per name. */
static void
test_plugin_columns(void **state)
{
	(void)state;
	int ndec = 0, nshape = 0, nfold = 0;
	for (size_t i = 0; i < NROWS; i++) {
		const Row *r = &rows[i];
		assert_string_equal(r->op, ir_ops[i].op);
		if (strcmp(r->decompose, "0")) {
			ndec++;
			assert_memory_equal(r->decompose, "dec_", 4);
		}
		if (strcmp(r->shape, "0")) {
			nshape++;
			assert_memory_equal(r->shape, "shp_", 4);
		}
		if (strcmp(r->fold, "0")) {
			nfold++;
			assert_memory_equal(r->fold, "FX_", 3);
		}
	}
	assert_true(ndec > 0 && nshape > 0 && nfold > 0);
	/* symbolize finds a rule by the op's name: every overload of a name
	 * gets the same one */
	Named *nm = calloc(NROWS, sizeof *nm);
	assert_non_null(nm);
	size_t n = 0;
	char over[128];
	for (size_t i = 0; i < NROWS; i++)
		if (!strncmp(rows[i].op, "aten::", 6)) {
			parts(rows[i].op, nm[n].name, over, sizeof nm[n].name);
			nm[n].shape = rows[i].shape;
			nm[n++].op = rows[i].op;
		}
	qsort(nm, n, sizeof *nm, cmp_named);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(nm[i - 1].name, nm[i].name) &&
		    strcmp(nm[i - 1].shape, nm[i].shape))
			fail_msg("%s has shape rule %s, %s has %s", nm[i - 1].op,
			    nm[i - 1].shape, nm[i].op, nm[i].shape);
	free(nm);
}

/* The checker's schemas are the rows'; its shape rules name rows that
 * the lowering handles (it runs only on those). */
static void
test_checker_keys(void **state)
{
	(void)state;
	for (uint32_t k = 0; k < ir_nops; k++) {
		const IrOp *r = &ir_ops[k];
		bool lowered = strcmp(r->family, "none") != 0;
		if (r->schema && (!lowered || !schema_ok(r->schema)))
			fail_msg("%s: schema '%s'", r->op, r->schema);
		if (lowered && !r->schema && !strncmp(r->op, "aten::", 6))
			fail_msg("%s: lowered without a schema", r->op);
	}
#define LWC_TABLE(file) {#file, lwc_rules_##file},
	static const struct {
		const char *file;
		const LwcRule *rules;
	} t[] = {LWC_FILES(LWC_TABLE)};
#undef LWC_TABLE
	enum { NT = sizeof t / sizeof *t };
	for (size_t i = 0; i < NT; i++)
		for (const LwcRule *x = t[i].rules; x->op; x++) {
			const IrOp *r = ir_op_find(x->op);
			if (!r || !strcmp(r->family, "none"))
				fail_msg("check rule for %s: no lowered row",
				    x->op);
		}
	/* each row of ir/checks.def is in its file's table, once */
	static const struct {
		const char *op, *file;
	} checks[] = {
#define CHECK(op, file, rule) {op, #file},
#include "ir/checks.def"
#undef CHECK
	};
	size_t ncheck = sizeof checks / sizeof *checks, nrules = 0;
	for (size_t i = 0; i < NT; i++)
		for (const LwcRule *x = t[i].rules; x->op; x++)
			nrules++;
	assert_int_equal(nrules, ncheck);
	for (size_t k = 0; k < ncheck; k++) {
		int found = 0;
		for (size_t i = 0; i < NT; i++)
			for (const LwcRule *x = t[i].rules; x->op &&
			    !strcmp(t[i].file, checks[k].file); x++)
				found += !strcmp(x->op, checks[k].op);
		if (found != 1)
			fail_msg("%s: %d rows in lwc_rules_%s", checks[k].op,
			    found, checks[k].file);
	}
	assert_true(is_row("aten::add.Tensor"));
	assert_false(is_row("aten::add_.Tensor"));
}

/* ir/views.def: each view op once, and a way to undo each inverse its
 * views name (ALIAS needs none, REFUSE has none). */
static void
test_views_table(void **state)
{
	(void)state;
	static const struct {
		const char *op, *inv;
	} views[] = {
#define VIEW(op, inv, contig, maybe) {op, #inv},
#define MULTIVIEW(op, cut) {op, "multi"},
#define UNDO(inv, op)
#define REPLAY(inv, op)
#include "ir/views.def"
#undef VIEW
#undef MULTIVIEW
#undef UNDO
#undef REPLAY
	}, undo[] = {
#define VIEW(op, inv, contig, maybe)
#define MULTIVIEW(op, cut)
#define UNDO(inv, op) {op, #inv},
#define REPLAY(inv, op)
#include "ir/views.def"
#undef VIEW
#undef MULTIVIEW
#undef UNDO
#undef REPLAY
	};
	enum {
		NV = sizeof views / sizeof *views,
		NU = sizeof undo / sizeof *undo
	};
	IrOp rows[NV];
	for (size_t i = 0; i < NV; i++)
		rows[i] = (IrOp){.op = views[i].op};
	assert_null(first_shared(rows, NV));
	for (size_t i = 0; i < NV; i++) {
		bool found = !strcmp(views[i].inv, "ALIAS") ||
		    !strcmp(views[i].inv, "REFUSE") ||
		    !strcmp(views[i].inv, "multi");
		for (size_t k = 0; k < NU && !found; k++)
			found = !strcmp(undo[k].inv, views[i].inv) &&
			    ir_op_find(undo[k].op);
		if (!found)
			fail_msg("%s: no UNDO row for %s", views[i].op,
			    views[i].inv);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_fail_on_bad_tables),
		cmocka_unit_test(test_each_overload_once),
		cmocka_unit_test(test_variants_belong_to_their_row),
		cmocka_unit_test(test_rows_resolve_to_rules),
		cmocka_unit_test(test_plugin_columns),
		cmocka_unit_test(test_checker_keys),
		cmocka_unit_test(test_views_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
