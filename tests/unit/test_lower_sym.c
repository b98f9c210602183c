/* test_lower_sym.c - SymInt computation lowered to ONNX, checked by value:
 * each Python-operator and torch.sym_* rule, sym_size.int, and size lists
 * mixing numbers and SymInts, on dumps with symbolic input shapes.  A
 * small evaluator runs the emitted scalar/1-D integer ONNX ops for given
 * input sizes, so Python semantics (floor division and modulo of negative
 * numbers, true division) are checked, not just op names. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/fx.h"
#include "lower/lower.h"

enum { MAXE = 8 };

typedef struct Val {
	bool set;
	int dt;       /* DT_I64, DT_F64 or DT_BOOL */
	int n;        /* elements; rank is 0 when scalar */
	bool scalar;
	double f[MAXE];
	int64_t i[MAXE];
} Val;

typedef struct Ev {
	Module *m;
	Graph *g;
	Val *v;
	const int64_t *dims; /* the input x's shape */
	int rank;
} Ev;

static const Arg *
attr(Ev *e, NodeId n, const char *key)
{
	return ir_find_arg(e->m, e->g, n, -1, key);
}

static Val *
in(Ev *e, NodeId n, uint32_t k)
{
	const Arg *a = ir_arg(e->g, n, k);
	assert_int_equal(a->kind, A_VAL);
	assert_true(e->v[a->u.v].set);
	return &e->v[a->u.v];
}

static double
num(const Val *v, int k)
{
	return v->dt == DT_F64 || v->dt == DT_F32 ? v->f[k] : (double)v->i[k];
}

static void
put(Val *r, int k, double f, int64_t i)
{
	if (r->dt == DT_F64 || r->dt == DT_F32)
		r->f[k] = f;
	else
		r->i[k] = i;
}

static int64_t
pyfloordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static void
eval_node(Ev *e, NodeId n)
{
	const Node *p = ir_nodep(e->g, n);
	const char *op = ir_str(e->m, p->op);
	Val r = {.set = true, .dt = ir_val(e->g, p->out)->dtype};
	if (!strcmp(op, "Constant")) {
		const Tensor *t = ir_tensorp(e->m, attr(e, n, "value")->u.t);
		r.dt = t->dtype;
		r.scalar = t->rank == 0;
		r.n = (int)ir_numel(t);
		assert_true(r.n <= MAXE);
		for (int k = 0; k < r.n && k < MAXE; k++) {
			if (t->dtype == DT_I64)
				memcpy(&r.i[k], (const char *)t->data + 8 * k, 8);
			else if (t->dtype == DT_F64)
				memcpy(&r.f[k], (const char *)t->data + 8 * k, 8);
			else if (t->dtype == DT_F32) {
				float x;
				memcpy(&x, (const char *)t->data + 4 * k, 4);
				r.f[k] = x;
			}
			else if (t->dtype == DT_BOOL)
				r.i[k] = ((const uint8_t *)t->data)[k];
			else
				fail_msg("constant of dtype %d", t->dtype);
		}
	} else if (!strcmp(op, "Shape")) {
		const Arg *s = attr(e, n, "start"), *en = attr(e, n, "end");
		int64_t a = s ? s->u.i : 0, b = en ? en->u.i : e->rank;
		r.dt = DT_I64;
		for (int64_t k = a; k < b; k++)
			r.i[r.n++] = e->dims[k];
	} else if (!strcmp(op, "Squeeze") || !strcmp(op, "Identity") ||
	    !strcmp(op, "Unsqueeze")) {
		Val *x = in(e, n, 0);
		r = *x;
		r.scalar = !strcmp(op, "Squeeze");
		assert_int_equal(r.n, 1);
	} else if (!strcmp(op, "Cast")) {
		Val *x = in(e, n, 0);
		r = *x;
		r.dt = (int)attr(e, n, "to")->u.i;
		for (int k = 0; k < r.n; k++) {
			double f = num(x, k);
			r.f[k] = f;
			r.i[k] = r.dt == DT_BOOL ? f != 0 : (int64_t)f;
		}
	} else if (!strcmp(op, "Concat")) {
		r.dt = DT_I64;
		for (uint32_t k = 0; k < p->nargs; k++) {
			if (ir_arg(e->g, n, k)->key)
				break;
			Val *x = in(e, n, k);
			for (int j = 0; j < x->n; j++)
				r.i[r.n++] = x->i[j];
		}
	} else if (!strcmp(op, "ReduceProd")) {
		Val *x = in(e, n, 0);
		r.dt = DT_I64;
		r.scalar = true;
		r.n = 1;
		r.i[0] = 1;
		for (int k = 0; k < x->n; k++)
			r.i[0] *= x->i[k];
	} else if (!strcmp(op, "Neg") || !strcmp(op, "Not") ||
	    !strcmp(op, "Floor") || !strcmp(op, "Ceil")) {
		Val *x = in(e, n, 0);
		r = *x;
		for (int k = 0; k < r.n; k++) {
			double f = num(x, k);
			double y = op[0] == 'N' && op[1] == 'e' ? -f
			    : op[0] == 'N' ? !f : op[0] == 'F' ? floor(f) : ceil(f);
			put(&r, k, y, op[0] == 'N' && op[1] == 'o' ? !x->i[k]
			    : op[1] == 'e' ? -x->i[k] : x->i[k]);
		}
	} else if (!strcmp(op, "Reshape") || !strcmp(op, "Expand")) {
		/* size-list tests look at the shape a Reshape gets: stand
		 * for its output by that (the same for Expand) */
		r = *in(e, n, 1);
	} else {
		Val *a = in(e, n, 0), *b = in(e, n, 1);
		assert_int_equal(a->n, 1);
		assert_int_equal(b->n, 1);
		r.n = 1;
		r.scalar = a->scalar && b->scalar;
		double x = num(a, 0), y = num(b, 0);
		int64_t xi = a->i[0], yi = b->i[0];
		bool flt = a->dt == DT_F64;
		assert_int_equal(a->dt, b->dt);
		if (!strcmp(op, "Add"))
			put(&r, 0, x + y, xi + yi);
		else if (!strcmp(op, "Sub"))
			put(&r, 0, x - y, xi - yi);
		else if (!strcmp(op, "Mul"))
			put(&r, 0, x * y, xi * yi);
		else if (!strcmp(op, "Div")) /* ONNX: integers truncate */
			put(&r, 0, x / y, yi ? xi / yi : 0);
		else if (!strcmp(op, "Mod")) {
			assert_false(flt);
			put(&r, 0, 0, xi - pyfloordiv(xi, yi) * yi);
		} else if (!strcmp(op, "Pow"))
			put(&r, 0, pow(x, y), (int64_t)pow(x, y));
		else if (!strcmp(op, "Max"))
			put(&r, 0, x > y ? x : y, xi > yi ? xi : yi);
		else if (!strcmp(op, "Min"))
			put(&r, 0, x < y ? x : y, xi < yi ? xi : yi);
		else if (!strcmp(op, "Equal"))
			r.i[0] = x == y;
		else if (!strcmp(op, "Less"))
			r.i[0] = x < y;
		else if (!strcmp(op, "LessOrEqual"))
			r.i[0] = x <= y;
		else if (!strcmp(op, "Greater"))
			r.i[0] = x > y;
		else if (!strcmp(op, "GreaterOrEqual"))
			r.i[0] = x >= y;
		else if (!strcmp(op, "And"))
			r.i[0] = xi && yi;
		else if (!strcmp(op, "Or"))
			r.i[0] = xi || yi;
		else
			fail_msg("evaluator has no '%s'", op);
	}
	e->v[p->out] = r;
}

typedef struct Fix {
	Module *m;
	GraphId fx, onnx;
	char *diag;
	size_t diaglen;
	Val *vals;
} Fix;

static void
lower(Fix *f, const char *body, const char *outs)
{
	static char dump[4096];
	snprintf(dump, sizeof dump,
	    "class GraphModule(torch.nn.Module):\n"
	    "    def forward(self, x: \"f32[s0, s1]\"):\n"
	    "        a: \"Sym(s0)\" = torch.ops.aten.sym_size.int(x, 0)\n"
	    "        b: \"Sym(s1)\" = torch.ops.aten.sym_size.int(x, 1)\n"
	    "%s"
	    "        return (%s)\n", body, outs);
	memset(f, 0, sizeof *f);
	f->m = ir_module_new();
	f->m->diagout = open_memstream(&f->diag, &f->diaglen);
	f->m->src = dump;
	f->m->srclen = strlen(dump);
	if (fx_parse(f->m, &f->fx) != 0 ||
	    pass_lower(f->m, f->fx, &f->onnx, 18) != 0) {
		fflush(f->m->diagout);
		fail_msg("lowering failed:\n%s\n%s", dump, f->diag);
	}
	assert_int_equal(ir_verify(f->m, f->onnx), 0);
}

/* output k for x of shape [s0, s1] */
static const Val *
run(Fix *f, int64_t s0, int64_t s1, uint32_t k)
{
	Graph *g = ir_graph(f->m, f->onnx);
	free(f->vals);
	f->vals = calloc(g->nvals + 1, sizeof *f->vals);
	int64_t dims[2] = {s0, s1};
	Ev e = {f->m, g, f->vals, dims, 2};
	for (NodeId n = 1; n < g->nnodes; n++)
		eval_node(&e, n);
	assert_true(k < g->noutputs);
	assert_true(f->vals[g->outputs[k]].set);
	return &f->vals[g->outputs[k]];
}

static void
finish(Fix *f)
{
	fclose(f->m->diagout);
	free(f->diag);
	free(f->vals);
	ir_free(f->m);
}

static int64_t
ival(Fix *f, int64_t s0, int64_t s1, uint32_t k)
{
	const Val *v = run(f, s0, s1, k);
	assert_true(v->scalar);
	assert_int_equal(v->dt, DT_I64);
	return v->i[0];
}

static void
test_arith(void **state)
{
	(void)state;
	Fix f;
	lower(&f,
	    "        add: \"Sym(s0 + s1)\" = a + b\n"
	    "        sub: \"Sym(s0 - 10)\" = a - 10\n"
	    "        mul: \"Sym(s0*s1)\" = a * b\n"
	    "        floordiv: \"Sym((s0 - 10)//4)\" = sub // 4\n"
	    "        mod: \"Sym(Mod(s0 - 10, 4))\" = sub % 4\n"
	    "        neg: \"Sym(10 - s0)\" = -sub\n"
	    "        pow_1: \"Sym(s1**2)\" = b ** 2\n",
	    "add, sub, mul, floordiv, mod, neg, pow_1");
	/* s0 = 7, s1 = 3: sub = -3 */
	assert_int_equal(ival(&f, 7, 3, 0), 10);
	assert_int_equal(ival(&f, 7, 3, 1), -3);
	assert_int_equal(ival(&f, 7, 3, 2), 21);
	assert_int_equal(ival(&f, 7, 3, 3), -1); /* floor, not truncation */
	assert_int_equal(ival(&f, 7, 3, 4), 1);  /* sign of the divisor */
	assert_int_equal(ival(&f, 7, 3, 5), 3);
	assert_int_equal(ival(&f, 7, 3, 6), 9);
	/* other sizes: computed, not folded */
	assert_int_equal(ival(&f, 19, 5, 3), 2);
	assert_int_equal(ival(&f, 19, 5, 4), 1);
	assert_int_equal(ival(&f, 19, 5, 2), 95);
	finish(&f);
}

static void
test_float_max_min_compare(void **state)
{
	(void)state;
	Fix f;
	lower(&f,
	    "        sym_float: \"Sym(ToFloat(s0))\" = torch.sym_float(a)\n"
	    "        truediv: \"Sym(ToFloat(s0)/ToFloat(s1))\" = a / b\n"
	    "        sym_max: \"Sym(Max(5, s0))\" = torch.sym_max(a, 5)\n"
	    "        sym_min: \"Sym(Min(5, s0))\" = torch.sym_min(a, 5)\n"
	    "        gt: \"Sym(s0 > s1)\" = a > b\n"
	    "        eq: \"Sym(Eq(s0, 4))\" = a == 4\n"
	    "        le: \"Sym(s1 <= 2)\" = b <= 2\n",
	    "sym_float, truediv, sym_max, sym_min, gt, eq, le");
	/* computed in double, returned as float32 (PyTorch's exporter's
	 * dtype for a SymFloat output) */
	const Val *v = run(&f, 7, 2, 0);
	assert_int_equal(v->dt, DT_F32);
	assert_true(v->f[0] == 7.0);
	v = run(&f, 7, 2, 1);
	assert_int_equal(v->dt, DT_F32);
	assert_true(v->f[0] == 3.5);
	assert_int_equal(ival(&f, 7, 2, 2), 7);
	assert_int_equal(ival(&f, 3, 2, 2), 5);
	assert_int_equal(ival(&f, 7, 2, 3), 5);
	assert_int_equal(ival(&f, 3, 2, 3), 3);
	v = run(&f, 7, 2, 4);
	assert_int_equal(v->dt, DT_BOOL);
	assert_int_equal(v->i[0], 1);
	assert_int_equal(run(&f, 2, 7, 4)->i[0], 0);
	assert_int_equal(run(&f, 4, 7, 5)->i[0], 1);
	assert_int_equal(run(&f, 5, 7, 5)->i[0], 0);
	assert_int_equal(run(&f, 5, 2, 6)->i[0], 1);
	assert_int_equal(run(&f, 5, 3, 6)->i[0], 0);
	finish(&f);
}

/* [s0, 4] style lists: runs of numbers and one element per SymInt,
 * concatenated into one 1-D int64 shape */
static void
test_size_lists(void **state)
{
	(void)state;
	Fix f;
	lower(&f,
	    "        mul: \"Sym(s0*s1)\" = a * b\n"
	    "        view: \"f32[1, s0*s1, 1]\" = torch.ops.aten.view.default(x, [1, mul, 1])\n"
	    "        view_1: \"f32[s1, 2, s0]\" = torch.ops.aten.view.default(x, [b, 2, a])\n"
	    "        view_2: \"f32[s0*s1]\" = torch.ops.aten.view.default(x, [-1])\n",
	    "view, view_1, view_2");
	Graph *g = ir_graph(f.m, f.onnx);
	const Val *v = run(&f, 6, 3, 0);
	assert_int_equal(v->n, 3);
	assert_int_equal(v->i[0], 1);
	assert_int_equal(v->i[1], 18);
	assert_int_equal(v->i[2], 1);
	v = run(&f, 6, 3, 1);
	assert_int_equal(v->n, 3);
	assert_int_equal(v->i[0], 3);
	assert_int_equal(v->i[1], 2);
	assert_int_equal(v->i[2], 6);
	/* all static: one constant, no Concat */
	v = run(&f, 6, 3, 2);
	assert_int_equal(v->n, 1);
	assert_int_equal(v->i[0], -1);
	NodeId r2 = ir_val(g, g->outputs[2])->def;
	const Arg *shp = ir_arg(g, r2, 1);
	assert_string_equal(ir_str(f.m, ir_nodep(g, ir_val(g, shp->u.v)->def)
	    ->op), "Constant");
	finish(&f);
}

static void
test_sym_numel_and_full(void **state)
{
	(void)state;
	Fix f;
	lower(&f,
	    "        sym_numel: \"Sym(s0*s1)\" = torch.ops.aten.sym_numel.default(x)\n"
	    "        add: \"Sym(s0 + 1)\" = a + 1\n"
	    "        full: \"f32[s0 + 1, 2]\" = torch.ops.aten.full.default([add, 2], 1.5, device = device(type='cpu'), pin_memory = False)\n",
	    "sym_numel, full");
	assert_int_equal(ival(&f, 4, 5, 0), 20);
	const Val *v = run(&f, 4, 5, 1); /* the shape full expands to */
	assert_int_equal(v->n, 2);
	assert_int_equal(v->i[0], 5);
	assert_int_equal(v->i[1], 2);
	finish(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arith),
		cmocka_unit_test(test_float_max_min_compare),
		cmocka_unit_test(test_size_lists),
		cmocka_unit_test(test_sym_numel_and_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
