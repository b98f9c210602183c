/* simplify.c - pass "simplify": removes ONNX nodes that move no data.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition.
 * Provides, to a fixed point (onnxc/rewrite.h), each result being what it
 * was, bit for bit:
 * - Identity, Cast to the dtype its input has, Transpose by the identity,
 *   and Reshape, Flatten, Squeeze, Unsqueeze and Expand whose result has
 *   the type (dtype and every dim, numbers or the same symbols) of their
 *   input are replaced by that input;
 * - Transpose of a Transpose is one Transpose (or none);
 * - Unsqueeze of an Unsqueeze is one Unsqueeze, Squeeze of an Unsqueeze on
 *   the same axes (and the converse) is nothing, and so is a one-axis
 *   Unsqueeze that a Transpose moves and a Squeeze removes (the Transpose
 *   of the rest stays);
 * - Reshape of a Reshape, Flatten, Squeeze or Unsqueeze to a constant
 *   shape without 0 (or with allowzero) reshapes the first one's input;
 * - Reshape(x, Concat(Shape(x)[0:1], [-1 or the rest's size])) is
 *   Flatten(x) (axis 1).
 * What no longer has a user is left to "dce".
 */
#include <onnxc/rewrite.h>

enum { R = ONNXC_RW_MAXRANK };

/* Axes list of a Squeeze/Unsqueeze (input 1 from opset 13, attribute
 * before), normalised against rank and sorted; its length or -1. */
static int
axes_of(onnxc_rw *r, onnxc_node n, int64_t rank, int64_t *ax)
{
	int k = onnxc_rw_ints(r, onnxc_rw_in(r, n, 1), ax, R);
	if (k < 0 && !onnxc_rw_in(r, n, 1))
		k = onnxc_rw_attr_ints(r, n, "axes", ax, R);
	for (int i = 0; i < k; i++) {
		ax[i] += ax[i] < 0 ? rank : 0;
		if (ax[i] < 0 || ax[i] >= rank)
			return -1;
	}
	for (int i = 1; i < k; i++)     /* insertion sort: k <= R */
		for (int j = i; j > 0 && ax[j - 1] > ax[j]; j--) {
			int64_t t = ax[j];
			ax[j] = ax[j - 1];
			ax[j - 1] = t;
		}
	for (int i = 1; i < k; i++)
		if (ax[i] == ax[i - 1])
			return -1;
	return k;
}

/* v's rank or -1; a Shape's result is 1-D even where it is untyped. */
static int32_t
rank_of(onnxc_rw *r, onnxc_value v)
{
	uint32_t dt;
	int32_t rank;
	onnxc_node_info si;
	if (onnxc_rw_type(r, v, &dt, &rank, NULL) && rank >= 0)
		return rank;
	return onnxc_rw_def(r, v, "Shape", &si) ? 1 : -1;
}

/* An i64 1-D initializer holding a list of ints. */
static onnxc_value
ints_const(onnxc_rw *r, const char *tag, const int64_t *v, int64_t n)
{
	return onnxc_rw_initializer(r, tag, ONNXC_DT_I64, 1, &n, v);
}

/* Node n's result becomes x transposed by perm (x itself for the
 * identity). */
static int
transpose_to(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni,
    onnxc_value x, const int64_t *perm, int32_t rank)
{
	int id = 1;
	for (int32_t i = 0; i < rank; i++)
		id &= perm[i] == i;
	if (id)
		return onnxc_rw_replace(r, ni->out, x);
	onnxc_node m = onnxc_rw_swap(r, n, ni, "Transpose", 1, &x);
	onnxc_rw_set_ints(r, m, "perm", perm, (uint32_t)rank);
	return m != 0;
}

static int
transposes(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_value x = onnxc_rw_in(r, n, 0);
	int32_t rank = rank_of(r, x);
	int64_t p2[R], p1[R], q[R];
	onnxc_node_info pi;
	if (rank <= 0)
		return 0;
	if (onnxc_rw_attr_ints(r, n, "perm", p2, R) != rank)
		return 0;
	int id = 1;
	for (int32_t i = 0; i < rank; i++)
		id &= p2[i] == i;
	if (id)
		return onnxc_rw_replace(r, ni->out, x);
	onnxc_node t = onnxc_rw_def(r, x, "Transpose", &pi);
	if (!t || onnxc_rw_attr_ints(r, t, "perm", p1, R) != rank)
		return 0;
	for (int32_t i = 0; i < rank; i++) {
		if (p2[i] < 0 || p2[i] >= rank)
			return 0;
		q[i] = p1[p2[i]];
	}
	return transpose_to(r, n, ni, onnxc_rw_in(r, t, 0), q, rank);
}

/* Unsqueeze(Unsqueeze(x, a1), a2): the second inserts a2 in the final
 * rank; the first one's new dims sit at the a1-th places left free. */
static int
unsqueezes(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info pi;
	onnxc_value y = onnxc_rw_in(r, n, 0);
	onnxc_node u = onnxc_rw_def(r, y, "Unsqueeze", &pi);
	int64_t a1[R], a2[R], all[R];
	onnxc_value x = u ? onnxc_rw_in(r, u, 0) : 0;
	int32_t r0 = rank_of(r, x), r2 = rank_of(r, ni->out);
	if (!u || r0 < 0 || r2 < 0 || r2 > R)
		return 0;
	int k1 = axes_of(r, u, rank_of(r, y), a1);
	int k2 = axes_of(r, n, r2, a2);
	if (k1 < 0 || k2 < 0 || r0 + k1 + k2 != r2)
		return 0;
	uint8_t taken[R] = {0};
	for (int i = 0; i < k2; i++)
		taken[a2[i]] = 1;
	/* position j of y lands on the j-th free place */
	int64_t place[R];
	for (int64_t p = 0, j = 0; p < r2; p++)
		if (!taken[p])
			place[j++] = p;
	int k = 0;
	for (int i = 0; i < k2; i++)
		all[k++] = a2[i];
	for (int i = 0; i < k1; i++)
		all[k++] = place[a1[i]];
	onnxc_value ax = ints_const(r, "unsqueeze_axes", all, k);
	onnxc_value in[2] = {x, ax};
	return onnxc_rw_swap(r, n, ni, "Unsqueeze", 2, in) != 0;
}

/* Squeeze(Unsqueeze(x, a), a) and Unsqueeze(Squeeze(x, a), a) are x. */
static int
roundtrip(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni,
    const char *inner)
{
	onnxc_node_info pi;
	onnxc_value y = onnxc_rw_in(r, n, 0);
	onnxc_node u = onnxc_rw_def(r, y, inner, &pi);
	int64_t a1[R], a2[R];
	int unsq = inner[0] == 'U';
	if (!u)
		return 0;
	onnxc_value x = onnxc_rw_in(r, u, 0);
	/* the Unsqueeze's axes count in its output, the Squeeze's in its
	 * input: both the wider side */
	int32_t wide = unsq ? rank_of(r, y) : rank_of(r, x);
	if (wide < 0 || !onnxc_rw_in(r, u, 1) || !onnxc_rw_in(r, n, 1))
		return 0; /* a Squeeze without axes drops every 1 */
	int k1 = axes_of(r, u, wide, a1), k2 = axes_of(r, n, wide, a2);
	if (k1 <= 0 || k1 != k2 || memcmp(a1, a2, (size_t)k1 * 8))
		return 0;
	return onnxc_rw_replace(r, ni->out, x);
}

/* The product of x's dims after the first when they are numbers, else
 * -2 (no size). */
static int64_t
inner(onnxc_rw *r, onnxc_value x)
{
	uint32_t dt;
	int32_t rank;
	onnxc_dim d[R];
	int64_t p = 1;
	if (!onnxc_rw_type(r, x, &dt, &rank, d) || rank < 1)
		return -2;
	for (int32_t i = 1; i < rank; i++) {
		if (d[i].e || d[i].n < 0 || (d[i].n && p > INT64_MAX / d[i].n))
			return -2;
		p *= d[i].n;
	}
	return p;
}

/* Reshape(x, Concat(Shape(x, start 0, end 1), [n])) -> Flatten(x), with
 * n -1 or the product of x's other dims. */
static int
flatten(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info ci, si;
	onnxc_value x = onnxc_rw_in(r, n, 0);
	onnxc_node c = onnxc_rw_def(r, onnxc_rw_in(r, n, 1), "Concat", &ci);
	int64_t rest[2];
	if (!c || ci.npos != 2 || onnxc_rw_ints(r, onnxc_rw_in(r, c, 1), rest,
	    2) != 1 || (rest[0] != -1 && rest[0] != inner(r, x)))
		return 0;
	onnxc_node s = onnxc_rw_def(r, onnxc_rw_in(r, c, 0), "Shape", &si);
	if (!s || onnxc_rw_in(r, s, 0) != x ||
	    onnxc_rw_attr_i(r, s, "start", 0) != 0 ||
	    onnxc_rw_attr_i(r, s, "end", -1) != 1)
		return 0;
	onnxc_node m = onnxc_rw_swap(r, n, ni, "Flatten", 1, &x);
	onnxc_rw_set_i(r, m, "axis", 1);
	return m != 0;
}

/* Squeeze(Transpose(Unsqueeze(x, [a]), perm), [k]) with perm[k] == a:
 * the Transpose of x by perm without entry k (and a's place). */
static int
moved_unit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info ti, ui;
	onnxc_value y = onnxc_rw_in(r, n, 0);
	onnxc_node t = onnxc_rw_def(r, y, "Transpose", &ti);
	onnxc_value z = t ? onnxc_rw_in(r, t, 0) : 0;
	onnxc_node u = onnxc_rw_def(r, z, "Unsqueeze", &ui);
	int32_t wide = rank_of(r, y);
	int64_t perm[R], a[R], k[R], q[R];
	if (!u || !onnxc_rw_single(r, y) || !onnxc_rw_single(r, z) ||
	    wide < 2 || onnxc_rw_attr_ints(r, t, "perm", perm, R) != wide ||
	    !onnxc_rw_in(r, n, 1) || axes_of(r, u, wide, a) != 1 ||
	    axes_of(r, n, wide, k) != 1 || perm[k[0]] != a[0])
		return 0;
	int32_t j = 0;
	for (int32_t i = 0; i < wide; i++)
		if (i != k[0])
			q[j++] = perm[i] - (perm[i] > a[0]);
	return transpose_to(r, n, ni, onnxc_rw_in(r, u, 0), q, j);
}

/* Reshape(view(x), s) where view only changes the shape. */
static int
reshapes(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	static const char *const views[] = {"Reshape", "Flatten", "Squeeze",
	    "Unsqueeze"};
	onnxc_node_info pi;
	onnxc_value y = onnxc_rw_in(r, n, 0), s = onnxc_rw_in(r, n, 1);
	int64_t shape[R];
	onnxc_node v = 0;
	for (size_t i = 0; !v && i < sizeof views / sizeof *views; i++)
		v = onnxc_rw_def(r, y, views[i], &pi);
	int k = onnxc_rw_ints(r, s, shape, R);
	if (!v || k < 0)
		return 0;
	if (!onnxc_rw_attr_i(r, n, "allowzero", 0))
		for (int i = 0; i < k; i++)
			if (shape[i] == 0)
				return 0;
	onnxc_value in[2] = {onnxc_rw_in(r, v, 0), s};
	int64_t allowzero = onnxc_rw_attr_i(r, n, "allowzero", 0);
	onnxc_node m = onnxc_rw_swap(r, n, ni, "Reshape", 2, in);
	if (allowzero)
		onnxc_rw_set_i(r, m, "allowzero", 1);
	return m != 0;
}

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	static const char *const noops[] = {"Reshape", "Flatten", "Squeeze",
	    "Unsqueeze", "Expand"};
	onnxc_value x = onnxc_rw_in(r, n, 0);
	uint32_t dt;
	int32_t rank;
	if (ni->nout != 1 || !x)
		return 0;
	if (onnxc_rw_is(r, ni, "Identity"))
		return onnxc_rw_replace(r, ni->out, x);
	if (onnxc_rw_is(r, ni, "Cast"))
		return onnxc_rw_type(r, x, &dt, &rank, NULL) && dt &&
		    (int64_t)dt == onnxc_rw_attr_i(r, n, "to", -1) &&
		    onnxc_rw_replace(r, ni->out, x);
	if (onnxc_rw_is(r, ni, "Transpose"))
		return transposes(r, n, ni);
	for (size_t i = 0; i < sizeof noops / sizeof *noops; i++)
		if (onnxc_rw_is(r, ni, noops[i]) &&
		    onnxc_rw_same_type(r, x, ni->out))
			return onnxc_rw_replace(r, ni->out, x);
	if (onnxc_rw_is(r, ni, "Unsqueeze"))
		return roundtrip(r, n, ni, "Squeeze") ||
		    unsqueezes(r, n, ni);
	if (onnxc_rw_is(r, ni, "Squeeze"))
		return roundtrip(r, n, ni, "Unsqueeze") ||
		    moved_unit(r, n, ni);
	if (onnxc_rw_is(r, ni, "Reshape"))
		return reshapes(r, n, ni) || flatten(r, n, ni);
	return 0;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "simplify", visit, 8);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "simplify",
	.summary = "remove ONNX nodes that move no data (Identity, no-op "
	    "casts and views, transpose and reshape chains)",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(simplify, "simplify", "1.0", init, NULL);
