/* test_lower_fft.c - complex values as [.., 2] pairs and the FFT family:
 * the pair type of complex results, DFT's axis as an attribute before
 * opset 20 and an input from 20, the dispatch that keeps complex values
 * away from real-only rules, and the refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lower/lower.h"
#include "lower_fixture.h"

static ValId
input(Fix *f, const char *name, DType dt, int rank, const int64_t *dims)
{
	ValId v = ir_value(f->g, ir_intern(f->m, name));
	set_type(f, v, dt, rank, dims);
	ir_val(f->g, v)->role = ROLE_USER_INPUT;
	ir_add_input(f->g, v);
	return v;
}

/* An FX node op(args...) with one output dt[dims]; returns the output. */
static ValId
node(Fix *f, const char *op, DType dt, int rank, const int64_t *dims,
    int nargs, const Arg *args)
{
	NodeId n = ir_node(f->g, D_FX, ir_intern(f->m, op), 1);
	Node *p = ir_nodep(f->g, n);
	char name[32];
	snprintf(name, sizeof name, "n%u", n);
	p->name = ir_intern(f->m, name);
	p->loc = (Loc){1, 1};
	ir_val(f->g, p->out)->name = p->name;
	set_type(f, p->out, dt, rank, dims);
	for (int i = 0; i < nargs; i++)
		arg(f, n, args[i]);
	return p->out;
}

static Arg
ints(Fix *f, const int64_t *v, uint32_t n)
{
	Arg it[8];
	for (uint32_t i = 0; i < n; i++)
		it[i] = arg_int(v[i]);
	return ir_list(f->g, A_LIST, it, n);
}

/* ops of the lowered graph without Constants */
static const char *
ops(Fix *f)
{
	Graph *g = dst(f);
	size_t len = 0;
	f->ops[0] = 0;
	for (NodeId k = 1; k < g->nnodes; k++) {
		const char *op = ir_str(f->m, g->nodes[k].op);
		if (strcmp(op, "Constant"))
			len += (size_t)snprintf(f->ops + len, sizeof f->ops -
			    len, "%s%s", len ? " " : "", op);
	}
	return f->ops;
}

static NodeId
find(Fix *f, const char *op)
{
	Graph *g = dst(f);
	for (NodeId k = 1; k < g->nnodes; k++)
		if (!strcmp(ir_str(f->m, g->nodes[k].op), op))
			return k;
	fail_msg("no %s in %s", op, ops(f));
	return 0;
}

/* x f32[4, 6] -> _to_copy c64 -> _fft_c2c(dim=[1], forward) -> out */
static ValId
c2c_graph(Fix *f, const char *out_op)
{
	static const int64_t d[2] = {4, 6}, dr[3] = {4, 6, 2};
	ValId x = input(f, "x", DT_F32, 2, d);
	ValId c = node(f, "aten::_to_copy.default", DT_C64, 2, d, 2,
	    (Arg[]){arg_val(x), arg_keyed((Arg){.kind = A_DTYPE,
	    .u.i = DT_C64}, ir_intern(f->m, "dtype"))});
	int64_t dim = 1;
	ValId y = node(f, "aten::_fft_c2c.default", DT_C64, 2, d, 4,
	    (Arg[]){arg_val(c), ints(f, &dim, 1), arg_int(0),
	    arg_bool(true)});
	if (!out_op)
		return y;
	return node(f, out_op, DT_F32, 3, dr, 1, (Arg[]){arg_val(y)});
}

/* a complex output is its pair form: f32[4, 6, 2] */
static void
test_complex_output_is_pair(void **state)
{
	Fix *f = *state;
	output(f, c2c_graph(f, NULL));
	assert_int_equal(pass_lower(f->m, f->gid, &f->out, 18), 0);
	const Value *o = ir_val(dst(f), dst(f)->outputs[0]);
	assert_int_equal(o->dtype, DT_F32);
	assert_int_equal(o->rank, 3);
	assert_int_equal(ir_dims(dst(f), dst(f)->outputs[0])[2].n, 2);
}

/* opset 18: DFT(x) axis=1; opset 20: DFT(x, , axis) */
static void
test_dft_axis_by_opset(void **state)
{
	Fix *f = *state;
	output(f, c2c_graph(f, "aten::view_as_real.default"));
	assert_int_equal(pass_lower(f->m, f->gid, &f->out, 18), 0);
	NodeId n = find(f, "DFT");
	assert_int_equal(ninputs(f, n), 1);
	const Arg *a = ir_find_arg(f->m, dst(f), n, -1, "axis");
	assert_non_null(a);
	assert_int_equal(a->u.i, 1);
	assert_int_equal(pass_lower(f->m, f->gid, &f->out, 20), 0);
	n = find(f, "DFT");
	assert_int_equal(ninputs(f, n), 3);
	assert_null(ir_find_arg(f->m, dst(f), n, -1, "axis"));
}

/* an op whose rule sees real tensors only is refused on complex values */
static void
test_complex_needs_complex_rule(void **state)
{
	Fix *f = *state;
	static const int64_t d[2] = {4, 6};
	ValId y = c2c_graph(f, NULL);
	output(f, node(f, "aten::sin.default", DT_C64, 2, d, 1,
	    (Arg[]){arg_val(y)}));
	assert_int_equal(pass_lower(f->m, f->gid, &f->out, 18), -1);
	assert_non_null(strstr(diags(f), "'aten::sin.default' on complex "
	    "values"));
}

/* a complex graph input has no pair form: refused, naming the way out */
static void
test_complex_input_refused(void **state)
{
	Fix *f = *state;
	static const int64_t d[2] = {4, 6}, dr[3] = {4, 6, 2};
	ValId x = input(f, "x", DT_C64, 2, d);
	output(f, node(f, "aten::view_as_real.default", DT_F32, 3, dr, 1,
	    (Arg[]){arg_val(x)}));
	assert_int_equal(pass_lower(f->m, f->gid, &f->out, 18), -1);
	assert_non_null(strstr(diags(f), "view_as_real"));
}

/* irfft of n=1 has no points: torch's message */
static void
test_irfft_no_points(void **state)
{
	Fix *f = *state;
	static const int64_t d[2] = {4, 1}, dout[2] = {4, 0};
	ValId x = input(f, "x", DT_F32, 2, d);
	output(f, node(f, "aten::fft_irfft.default", DT_F32, 2, dout, 1,
	    (Arg[]){arg_val(x)}));
	assert_int_equal(pass_lower(f->m, f->gid, &f->out, 18), -1);
	assert_non_null(strstr(diags(f), "invalid number of data points"));
}

/* angle of a real tensor: 0, or pi where negative, nan kept */
static void
test_angle_real(void **state)
{
	Fix *f = *state;
	static const int64_t d[2] = {4, 6};
	ValId x = input(f, "x", DT_F32, 2, d);
	output(f, node(f, "aten::angle.default", DT_F32, 2, d, 1,
	    (Arg[]){arg_val(x)}));
	assert_int_equal(pass_lower(f->m, f->gid, &f->out, 18), 0);
	assert_string_equal(ops(f), "Less Where IsNaN Where");
}

int
main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_complex_output_is_pair),
		T(test_dft_axis_by_opset),
		T(test_complex_needs_complex_rule),
		T(test_complex_input_refused),
		T(test_irfft_no_points),
		T(test_angle_real),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
