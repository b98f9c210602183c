/* scales.c - pass "fold-scales": a multiplication by a constant next to a
 * MatMul or Conv with constant weights moves into those weights.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition.
 * Provides (onnxc/rewrite.h), each intermediate result having no other
 * user, f32 weights and scales that are constants (not under --training:
 * the rewrite helper leaves parameters alone then):
 * - after: Mul(P, s) (either operand order), P being MatMul(h, W),
 *   Add(MatMul(h, W), b) or Conv(x, W[, b]), perhaps under a Transpose,
 *   and s one number or one number per output channel (the MatMul's last
 *   axis, the Conv's axis 1, wherever the Transpose puts it), becomes P
 *   with W and b scaled per channel;
 * - after, by one number: Mul(V, c) with V views (Reshape, Transpose...)
 *   of one output of a Split of such a P along its last axis: P's columns
 *   that go to that output are scaled; the Split's other outputs read
 *   the new Split;
 * - before: MatMul(g, W) or Conv(g, W[, b]) where g is Mul(x, c) or
 *   Mul(Mul(x, c), y) with c one number becomes the same op of x (of
 *   Mul(x, y)) with W scaled by c (the bias stays: it is added after),
 *   unless y is the Add(Erf(Div ...)) of a gelu ONNX Runtime fuses.
 * The Mul goes; the products are computed in double and rounded once, so
 * a power of two (gelu's 1/2) changes no bit of the result.  The new
 * weights are initializers; the old ones are left to "dce" and
 * "prune-initializers".
 */
#include <stdio.h>

#include <onnxc/rewrite.h>

enum { R = ONNXC_RW_MAXRANK };

/* A copy of constant w (f32) with element i times s[(i / inner) % m]
 * (m == 1: every element times s[0]), as a new initializer, made a piece
 * at a time (onnxc_rw_scaled): a big weight is never held whole. */
static onnxc_value
scaled(onnxc_rw *r, onnxc_value w, const float *s, uint64_t m,
    uint64_t inner)
{
	onnxc_tensor_info t;
	onnxc_value_info vi;
	const float *d = onnxc_rw_f32(r, w, &t);
	double *sd = d ? malloc((m ? m : 1) * sizeof *sd) : NULL;
	char name[300];
	if (!sd) {
		r->failed |= d != NULL;
		return 0;
	}
	for (uint64_t i = 0; i < m; i++)
		sd[i] = s[i];
	const char *wn = r->h->value_get(r->ctx, r->g, w, &vi) == ONNXC_OK ?
	    r->h->str(r->ctx, vi.name) : NULL;
	snprintf(name, sizeof name, "%s_scaled", wn && *wn ? wn : "weight");
	onnxc_rw_scaling sc = {d, sd, m, inner ? inner : 1};
	onnxc_value v = onnxc_rw_scaled(r, name, &t, &sc);
	free(sd);
	return v;
}

/* Copies node `from`'s attributes onto m (new nodes take no others). */
static void
copy_attrs(onnxc_rw *r, onnxc_node from, onnxc_node m)
{
	onnxc_node_info ni;
	onnxc_arg a;
	if (!m || r->h->node_get(r->ctx, r->g, from, &ni) != ONNXC_OK) {
		r->failed = 1;
		return;
	}
	for (uint32_t i = ni.npos; i < ni.nargs; i++)
		if (r->h->node_arg(r->ctx, r->g, from, i, &a) != ONNXC_OK ||
		    r->h->node_push_arg(r->ctx, r->g, m, &a) != ONNXC_OK)
			r->failed = 1;
}

/* A new node like `like` (op, attributes, result type) on in[0..nin). */
static onnxc_value
remake(onnxc_rw *r, onnxc_node like, uint32_t nin, const onnxc_value *in)
{
	onnxc_node_info li;
	if (r->h->node_get(r->ctx, r->g, like, &li) != ONNXC_OK)
		return 0;
	onnxc_node m = onnxc_rw_emit(r, r->h->str(r->ctx, li.op), nin, in, 1,
	    like);
	copy_attrs(r, like, m);
	return m ? onnxc_rw_out(r, m, 0, li.out) : 0;
}

/* ------------------------------------------------------------- after */

/* The axis (of rank-`rank` y) along which constant s varies: -1 for one
 * number, -2 when s is not one number per place of a single axis. */
static int
scale_axis(onnxc_rw *r, onnxc_value s, int32_t rank, const onnxc_dim *dy,
    onnxc_tensor_info *t)
{
	int axis = -1;
	if (!onnxc_rw_f32(r, s, t) || t->rank > rank)
		return -2;
	for (int32_t i = 0; i < t->rank; i++) {
		int32_t j = rank - t->rank + i;
		if (t->dims[i] == 1)
			continue;
		if (axis >= 0 || dy[j].e || dy[j].n != t->dims[i])
			return -2;
		axis = j;
	}
	return axis;
}

/* z = MatMul(h, W) or Add(MatMul(h, W), b), scaled along its last axis
 * (or everywhere) by s[0..m): the new result, or 0. */
static onnxc_value
scale_linear(onnxc_rw *r, onnxc_value z, const float *s, uint64_t m)
{
	onnxc_node_info ai, mi;
	onnxc_tensor_info tw, tb;
	onnxc_value b = 0, mm = z;
	onnxc_node add = onnxc_rw_def(r, z, "Add", &ai);
	if (add) {
		for (uint32_t k = 0; k < 2 && !b; k++)
			if (onnxc_rw_f32(r, onnxc_rw_in(r, add, k), &tb)) {
				b = onnxc_rw_in(r, add, k);
				mm = onnxc_rw_in(r, add, 1 - k);
			}
		if (!b || tb.rank != 1 || (m > 1 && (uint64_t)tb.dims[0] != m) ||
		    !onnxc_rw_single(r, mm))
			return 0;
	}
	onnxc_node mat = onnxc_rw_def(r, mm, "MatMul", &mi);
	onnxc_value w = mat ? onnxc_rw_in(r, mat, 1) : 0;
	if (!mat || !onnxc_rw_f32(r, w, &tw) || tw.rank != 2 ||
	    (m > 1 && (uint64_t)tw.dims[1] != m) || (b && tb.dims[0] !=
	    tw.dims[1]))
		return 0;
	onnxc_value in[2] = {onnxc_rw_in(r, mat, 0), scaled(r, w, s, m, 1)};
	if (!in[1] || !(in[0] = remake(r, mat, 2, in)))
		return 0;
	if (!b)
		return in[0];
	in[1] = scaled(r, b, s, m, 1);
	return in[1] ? remake(r, add, 2, in) : 0;
}

/* z = Conv(x, W[, b]) scaled along axis 1 (or everywhere) by s[0..m). */
static onnxc_value
scale_conv(onnxc_rw *r, onnxc_value z, const float *s, uint64_t m)
{
	onnxc_node_info ci;
	onnxc_tensor_info tw, tb;
	onnxc_node c = onnxc_rw_def(r, z, "Conv", &ci);
	onnxc_value w = c ? onnxc_rw_in(r, c, 1) : 0;
	onnxc_value b = c ? onnxc_rw_in(r, c, 2) : 0;
	if (!c || !onnxc_rw_f32(r, w, &tw) || tw.rank < 3 || tw.dims[0] <= 0 ||
	    (m > 1 && (uint64_t)tw.dims[0] != m) ||
	    (b && (!onnxc_rw_f32(r, b, &tb) || tb.rank != 1 ||
	    tb.dims[0] != tw.dims[0])))
		return 0;
	uint64_t per = onnxc_rw_numel(&tw) / (uint64_t)tw.dims[0];
	onnxc_value in[3] = {onnxc_rw_in(r, c, 0), scaled(r, w, s, m, per),
	    b ? scaled(r, b, s, m, 1) : 0};
	if (!in[1] || (b && !in[2]))
		return 0;
	return remake(r, c, b ? 3 : 2, in);
}

/* y = views of output k of Split(P) along P's last axis, P a MatMul
 * (plus bias) as scale_linear takes, times one number c: P's columns of
 * output k scaled instead; the Split's other outputs are replaced by the
 * new Split's.  The new value standing for y * c, or 0. */
static onnxc_value
scale_split(onnxc_rw *r, onnxc_value y, float c)
{
	static const char *const views[] = {"Reshape", "Flatten", "Squeeze",
	    "Unsqueeze", "Transpose"};
	onnxc_node chain[8], sp = 0;
	onnxc_node_info ci, si;
	int len = 0;
	onnxc_value z = y;
	while (!sp && len < 8 && onnxc_rw_single(r, z)) {
		onnxc_node d = onnxc_rw_def(r, z, NULL, &ci);
		if (d && onnxc_rw_is(r, &ci, "Split")) {
			sp = d;
			break;
		}
		size_t i = 0;
		while (d && i < sizeof views / sizeof *views &&
		    !onnxc_rw_is(r, &ci, views[i]))
			i++;
		if (!d || i == sizeof views / sizeof *views)
			return 0;
		chain[len++] = d;
		z = onnxc_rw_in(r, d, 0);
	}
	onnxc_dim d[R];
	uint32_t dt;
	int32_t rank;
	onnxc_value p = sp ? onnxc_rw_in(r, sp, 0) : 0;
	if (!sp || r->h->node_get(r->ctx, r->g, sp, &si) != ONNXC_OK ||
	    si.nout > 64 || !onnxc_rw_single(r, p) ||
	    !onnxc_rw_type(r, p, &dt, &rank, d) || rank < 1 || d[rank - 1].e)
		return 0;
	int64_t axis = onnxc_rw_attr_i(r, sp, "axis", 0);
	if (axis != rank - 1 && axis != -1)
		return 0;
	/* the columns of output k, from the outputs' types */
	uint64_t off = 0, len_k = 0, n = (uint64_t)d[rank - 1].n;
	for (uint32_t j = 0; j < si.nout; j++) {
		onnxc_dim dj[R];
		int32_t rj;
		if (!onnxc_rw_type(r, si.out + j, &dt, &rj, dj) || rj != rank ||
		    dj[rank - 1].e)
			return 0;
		if (si.out + j == z)
			len_k = (uint64_t)dj[rank - 1].n;
		else if (!len_k)
			off += (uint64_t)dj[rank - 1].n;
	}
	if (!len_k || off + len_k > n || n > (1u << 24))
		return 0;
	float *sv = malloc(n * sizeof *sv);
	if (!sv) {
		r->failed = 1;
		return 0;
	}
	for (uint64_t i = 0; i < n; i++)
		sv[i] = i >= off && i < off + len_k ? c : 1;
	onnxc_value q = scale_linear(r, p, sv, n);
	free(sv);
	onnxc_value in[8] = {q};
	for (uint32_t i = 1; i < si.npos && i < 8; i++)
		in[i] = onnxc_rw_in(r, sp, i);
	onnxc_node ns = q && si.npos <= 8 ? onnxc_rw_emit(r, "Split",
	    si.npos, in, si.nout, sp) : 0;
	if (!ns)
		return 0;
	copy_attrs(r, sp, ns);
	onnxc_value v = 0;
	for (uint32_t j = 0; j < si.nout; j++) {
		onnxc_value o = onnxc_rw_out(r, ns, j, si.out + j);
		if (si.out + j == z)
			v = o;
		else
			onnxc_rw_replace(r, si.out + j, o);
	}
	while (v && len > 0) {
		onnxc_node_info li;
		onnxc_node like = chain[--len];
		if (r->h->node_get(r->ctx, r->g, like, &li) != ONNXC_OK)
			return 0;
		in[0] = v;
		for (uint32_t i = 1; i < li.npos && i < 8; i++)
			in[i] = onnxc_rw_in(r, like, i);
		v = li.npos <= 8 ? remake(r, like, li.npos, in) : 0;
	}
	return v;
}

static int
after(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info ti;
	onnxc_tensor_info ts;
	onnxc_dim dy[R], dz[R];
	uint32_t dt;
	int32_t rank, rz;
	int64_t perm[R];
	for (uint32_t k = 0; k < 2; k++) {
		onnxc_value y = onnxc_rw_in(r, n, k), s = onnxc_rw_in(r, n, 1 - k);
		if (!onnxc_rw_single(r, y) ||
		    !onnxc_rw_type(r, y, &dt, &rank, dy) || rank < 1 ||
		    !onnxc_rw_same_type(r, y, ni->out))
			continue;
		int axis = scale_axis(r, s, rank, dy, &ts);
		if (axis == -2)
			continue;
		onnxc_value z = y;
		onnxc_node t = onnxc_rw_def(r, y, "Transpose", &ti);
		if (t) {
			z = onnxc_rw_in(r, t, 0);
			if (!onnxc_rw_single(r, z) || onnxc_rw_attr_ints(r, t,
			    "perm", perm, R) != rank)
				continue;
			axis = axis < 0 ? axis : (int)perm[axis];
		}
		if (!onnxc_rw_type(r, z, &dt, &rz, dz))
			continue;
		const float *sv = (const float *)ts.data;
		uint64_t m = onnxc_rw_numel(&ts);
		onnxc_value v = 0;
		if (axis < 0 || axis == rz - 1)
			v = scale_linear(r, z, sv, m);
		if (!v && (axis < 0 || axis == 1))
			v = scale_conv(r, z, sv, m);
		if (v && t)
			v = remake(r, t, 1, &v);
		if (!v && axis < 0)
			v = scale_split(r, y, sv[0]);
		if (v)
			return onnxc_rw_replace(r, ni->out, v);
	}
	return 0;
}

/* ------------------------------------------------------------ before */

/* v = Mul(x, c) with c one f32 number, v used once: x, c in *c. */
static onnxc_value
times_number(onnxc_rw *r, onnxc_value v, float *c)
{
	onnxc_node_info mi;
	onnxc_tensor_info t;
	onnxc_node m = onnxc_rw_def(r, v, "Mul", &mi);
	if (!m || !onnxc_rw_single(r, v))
		return 0;
	for (uint32_t k = 0; k < 2; k++) {
		const float *d = onnxc_rw_f32(r, onnxc_rw_in(r, m, 1 - k), &t);
		onnxc_value x = onnxc_rw_in(r, m, k);
		uint32_t dt;
		int32_t rank;
		/* one number of no higher rank: Mul(x, c) is shaped as x */
		if (d && onnxc_rw_numel(&t) == 1 &&
		    onnxc_rw_type(r, x, &dt, &rank, NULL) &&
		    dt == ONNXC_DT_F32 && rank >= t.rank) {
			*c = d[0];
			return x;
		}
	}
	return 0;
}

/* Is v Add(Erf(Div(...)), ...)?  The erf form of gelu that ONNX Runtime
 * fuses into one op (see fuse-activations): its 1/2 stays. */
static int
gelu_erf(onnxc_rw *r, onnxc_value v)
{
	onnxc_node_info ai, ei, di;
	onnxc_node a = onnxc_rw_def(r, v, "Add", &ai);
	for (uint32_t k = 0; a && k < 2; k++) {
		onnxc_node e = onnxc_rw_def(r, onnxc_rw_in(r, a, k), "Erf",
		    &ei);
		if (e && onnxc_rw_def(r, onnxc_rw_in(r, e, 0), "Div", &di))
			return 1;
	}
	return 0;
}

static int
before(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info gi;
	onnxc_tensor_info tw;
	float c;
	onnxc_value g = onnxc_rw_in(r, n, 0), w = onnxc_rw_in(r, n, 1);
	if (!onnxc_rw_f32(r, w, &tw))
		return 0;
	onnxc_value x = times_number(r, g, &c);
	if (!x) {   /* Mul(Mul(x, c), y) */
		onnxc_node m = onnxc_rw_def(r, g, "Mul", &gi);
		if (!m || !onnxc_rw_single(r, g))
			return 0;
		for (uint32_t k = 0; k < 2 && !x; k++) {
			onnxc_value u = times_number(r, onnxc_rw_in(r, m, k), &c);
			if (!u || gelu_erf(r, onnxc_rw_in(r, m, 1 - k)))
				continue;
			onnxc_value in[2] = {u, onnxc_rw_in(r, m, 1 - k)};
			x = remake(r, m, 2, in);
		}
		if (!x)
			return 0;
	}
	onnxc_value in[3] = {x, scaled(r, w, &c, 1, 1),
	    ni->npos > 2 ? onnxc_rw_in(r, n, 2) : 0};
	onnxc_value v = in[1] ? remake(r, n, ni->npos > 2 ? 3 : 2, in) : 0;
	return v && onnxc_rw_replace(r, ni->out, v);
}

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	if (ni->nout != 1)
		return 0;
	if (onnxc_rw_is(r, ni, "Mul"))
		return after(r, n, ni);
	if (onnxc_rw_is(r, ni, "MatMul") || onnxc_rw_is(r, ni, "Conv"))
		return before(r, n, ni);
	return 0;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "fold-scales", visit, 4);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "fold-scales",
	.summary = "move multiplications by constants into the weights of "
	    "the MatMul or Conv next to them",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(scales, "fold-scales", "1.0", init, NULL);
