/* neutral.c - pass "drop-neutral": elementwise ops whose result is one of
 * their operands are replaced by that operand.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition.
 * Provides (onnxc/rewrite.h), where the result has the type (dtype and
 * every dim) of the operand x it becomes:
 * - x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1, And(x, true), Or(x, false),
 *   with the constant's every element that number (a float x + 0 turns a
 *   -0 into +0: equal as numbers);
 * - Abs(x) of an x known to be >= 0: sizes (Shape, and what Squeeze,
 *   Unsqueeze, Reshape, Concat, Gather, Mul and Add make of sizes and of
 *   constants >= 0);
 * - Abs(Concat(sizes and constants)) used once -> the Concat with each
 *   constant's absolute value (the lowering's expand sizes, where -1 means
 *   "keep" and Abs makes it 1).
 * What no longer has a user is left to "dce".
 */
#include <onnxc/rewrite.h>

enum { DEPTH = 8, MAXN = 64 };

/* Is every element of the constant v equal to want?  Bools too. */
static int
all_equal(onnxc_rw *r, onnxc_value v, double want)
{
	onnxc_tensor_info t;
	double d;
	if (!onnxc_rw_const(r, v, &t) || onnxc_rw_numel(&t) == 0)
		return 0;
	uint64_t n = onnxc_rw_numel(&t);
	for (uint64_t i = 0; i < n; i++) {
		if (t.dtype == ONNXC_DT_BOOL)
			d = ((const unsigned char *)t.data)[i] != 0;
		else if (!onnxc_rw_elem(&t, i, &d))
			return 0;
		if (d != want)
			return 0;
	}
	return 1;
}

/* Is every element of v >= 0?  Constants are read; sizes are known to
 * be; up to DEPTH ops that keep them so are followed. */
static int
nonneg(onnxc_rw *r, onnxc_value v, int depth)
{
	static const char *const keep[] = {"Squeeze", "Unsqueeze", "Reshape",
	    "Gather", "Concat", "Mul", "Add"};
	onnxc_tensor_info t;
	onnxc_node_info ni;
	double d;
	if (onnxc_rw_const(r, v, &t)) {
		for (uint64_t i = 0, n = onnxc_rw_numel(&t); i < n; i++)
			if (!onnxc_rw_elem(&t, i, &d) || !(d >= 0))
				return 0;
		return 1;
	}
	onnxc_node n = onnxc_rw_def(r, v, NULL, &ni);
	if (!n || depth >= DEPTH)
		return 0;
	if (onnxc_rw_is(r, &ni, "Shape"))
		return 1;
	for (size_t k = 0; k < sizeof keep / sizeof *keep; k++) {
		if (!onnxc_rw_is(r, &ni, keep[k]))
			continue;
		/* Gather's indices and the shape operands say where, not
		 * what: only the data operands count */
		uint32_t nin = keep[k][0] == 'C' || keep[k][0] == 'M' ||
		    keep[k][0] == 'A' ? ni.npos : 1;
		if (nin > MAXN)
			return 0;
		for (uint32_t i = 0; i < nin; i++)
			if (!nonneg(r, onnxc_rw_in(r, n, i), depth + 1))
				return 0;
		return 1;
	}
	return 0;
}

/* Abs(Concat(parts)): the Concat again, each constant part made >= 0. */
static int
abs_concat(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info ci;
	onnxc_tensor_info t;
	onnxc_value x = onnxc_rw_in(r, n, 0), in[MAXN];
	onnxc_node c = onnxc_rw_def(r, x, "Concat", &ci);
	if (!c || !onnxc_rw_single(r, x) || ci.npos > MAXN)
		return 0;
	for (uint32_t i = 0; i < ci.npos; i++) {
		in[i] = onnxc_rw_in(r, c, i);
		if (!onnxc_rw_const(r, in[i], &t))
			if (!nonneg(r, in[i], 0))
				return 0;
	}
	for (uint32_t i = 0; i < ci.npos; i++) {
		int64_t v[ONNXC_RW_MAXRANK];
		int k;
		if (!onnxc_rw_const(r, in[i], &t) || nonneg(r, in[i], 0))
			continue;
		if (t.dtype != ONNXC_DT_I64 || t.rank != 1 ||
		    (k = onnxc_rw_ints(r, in[i], v, ONNXC_RW_MAXRANK)) < 0)
			return 0;
		for (int j = 0; j < k; j++)
			if (v[j] == INT64_MIN)
				return 0;
			else if (v[j] < 0)
				v[j] = -v[j];
		int64_t len = k;
		in[i] = onnxc_rw_initializer(r, "abs_sizes", ONNXC_DT_I64, 1,
		    &len, v);
	}
	onnxc_node m = onnxc_rw_swap(r, n, ni, "Concat", ci.npos, in);
	onnxc_rw_set_i(r, m, "axis", onnxc_rw_attr_i(r, c, "axis", 0));
	return m != 0;
}

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	static const struct {
		const char *op;
		double unit;
		int left;  /* the unit may stand on the left too */
	} units[] = {
		{"Add", 0, 1}, {"Sub", 0, 0}, {"Mul", 1, 1}, {"Div", 1, 0},
		{"And", 1, 1}, {"Or", 0, 1},
	};
	if (ni->nout != 1)
		return 0;
	onnxc_value a = onnxc_rw_in(r, n, 0);
	if (onnxc_rw_is(r, ni, "Abs"))
		return (onnxc_rw_same_type(r, a, ni->out) && nonneg(r, a, 0) &&
		    onnxc_rw_replace(r, ni->out, a)) || abs_concat(r, n, ni);
	if (ni->npos != 2)
		return 0;
	onnxc_value b = onnxc_rw_in(r, n, 1);
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (!onnxc_rw_is(r, ni, units[i].op))
			continue;
		if (all_equal(r, b, units[i].unit) &&
		    onnxc_rw_same_type(r, a, ni->out))
			return onnxc_rw_replace(r, ni->out, a);
		return units[i].left && all_equal(r, a, units[i].unit) &&
		    onnxc_rw_same_type(r, b, ni->out) &&
		    onnxc_rw_replace(r, ni->out, b);
	}
	return 0;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "drop-neutral", visit, 4);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "drop-neutral",
	.summary = "replace x+0, x*1, x/1, And(x, true), Abs of sizes and "
	    "the like by their operand",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(neutral, "drop-neutral", "1.0", init, NULL);
