/* cover.c - inside the decompose plugin: composite ops of the training
 * IR with no lowering of their own (issue 35): rrelu in eval mode,
 * pdist, bilinear and _trilinear, combinations, gradient, _chunk_cat.
 * Each follows PyTorch's own definition (torch._decomp / ATen), with the
 * index tables it needs computed here as constants when sizes are
 * static. */
#include <stdio.h>
#include <string.h>

#include "decompose.h"

/* A 1-D INT64 constant holding v[0..n): a new constant graph input. */
TV
dec_const_i64(Rw *r, const int64_t *v, int64_t n)
{
	char buf[160];
	Ty t = {ONNXC_DT_I64, 1, {{n, 0}}};
	snprintf(buf, sizeof buf, "%s__idx%u", r->base, r->seq++);
	onnxc_tensor c = r->h->tensor_new(r->ctx, ONNXC_DT_I64, 1, &n, v);
	onnxc_value x = c ? r->h->constant_input(r->ctx, r->g, buf, c) : 0;
	if (!x || r->h->value_set_type(r->ctx, r->g, x, t.dtype, t.rank,
	    t.d) != ONNXC_OK)
		r->bad = 1;
	return dec_tv(x, t);
}

static int64_t
numel(const Ty *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		n *= t->d[i].n;
	return n;
}

/* x.index_select(0, idx) for a 1-D constant idx */
static TV
rows(Rw *r, TV x, TV idx)
{
	Ty t = x.t;
	t.d[0] = idx.t.d[0];
	return dec_tv(EMIT(r, "aten::index_select.default", &t, dec_a_val(x.v),
	    dec_a_int(0), dec_a_val(idx.v)), t);
}

/* Index tables bigger than this are declined (they are constants). */
enum { MAXIDX = 1 << 20 };

/* ------------------------------------------------------------ rrelu */

/* rrelu(x, lower, upper, training): in eval mode leaky_relu with slope
 * (lower + upper) / 2.  In training mode the slopes are random: refused
 * like the random ops, unless lower == upper makes them one number. */
static int
rrelu_at(Rw *r, int lo_pos, int noise)
{
	TV x = dec_in(r, 0, "self");
	double lo, hi;
	int64_t tr;
	if (!x.v || !dec_arg_float(r, lo_pos, "lower", 0.125, &lo) ||
	    !dec_arg_float(r, lo_pos + 1, "upper", 1.0 / 3, &hi) ||
	    !dec_arg_int(r, lo_pos + 2, "training", 0, &tr))
		return 0;
	if (tr && lo != hi) {
		r->h->report(r->ctx, ONNXC_SEV_ERROR, r->g, r->n, "%s in "
		    "training mode draws random slopes in [%g, %g]: no "
		    "converted model can reproduce PyTorch's outputs (in eval "
		    "mode it is leaky_relu with slope (lower + upper) / 2)",
		    r->h->str(r->ctx, r->ni.op), lo, hi);
		r->bad = 1;
		return 0;
	}
	double slope = tr ? lo : (lo + hi) / 2;
	dec_bind(r, 0, EMIT(r, "aten::leaky_relu.default", &x.t,
	    dec_a_val(x.v), dec_a_float(slope)));
	/* the noise buffer is only written in training mode */
	if (noise && dec_out_used(r, 1)) {
		TV n = dec_in(r, 1, "noise");
		if (!n.v)
			r->bad = 1;
		else
			dec_bind(r, 1, dec_u(r, "aten::clone.default", n).v);
	}
	return 1;
}

int dec_rrelu(Rw *r) { return rrelu_at(r, 1, 0); }
int dec_rrelu_with_noise(Rw *r) { return rrelu_at(r, 2, 1); }

/* ------------------------------------------------------------ pdist */

/* pdist(x [n, m], p=2): the p-norm distance of every pair of rows i < j,
 * in row-major order: norm(x[I] - x[J]) for constant index tables */
int
dec_pdist(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	double p;
	if (!x.v || !o.v || x.t.rank != 2 || !dec_ty_static(&x.t) ||
	    !dec_arg_float(r, 1, "p", 2, &p) || p < 0)
		return 0;
	int64_t n = x.t.d[0].n, k = n * (n - 1) / 2, last = -1;
	if (k > MAXIDX)
		return 0;
	if (k < 1) { /* no pairs: an empty [0] */
		TV e = dec_slice(r, x, 0, 0, 0);
		dec_bind(r, 0, dec_red(r, "aten::sum.dim_IntList", e, &last, 1,
		    0).v);
		return 1;
	}
	int64_t *ii = r->h->alloc(r->ctx, 2 * (size_t)k * sizeof *ii);
	if (!ii)
		return 0;
	int64_t *jj = ii + k, c = 0;
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = i + 1; j < n; j++, c++)
			ii[c] = i, jj[c] = j;
	TV d = dec_b(r, "aten::sub.Tensor", rows(r, x, dec_const_i64(r, ii, k)),
	    rows(r, x, dec_const_i64(r, jj, k)));
	dec_bind(r, 0, EMIT(r, "aten::linalg_vector_norm.default", &o.t,
	    dec_a_val(d.v), dec_a_float(p), dec_a_ints(r, &last, 1),
	    dec_a_bool(0)));
	return 1;
}

/* ------------------------------------------------- bilinear, trilinear */

/* _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim):
 * each input unsqueezed at its expand dims, the three multiplied
 * (broadcast) and summed over sumdim */
int
dec_trilinear(Rw *r)
{
	TV in[3] = {dec_in(r, 0, "i1"), dec_in(r, 1, "i2"), dec_in(r, 2, "i3")};
	TV o = dec_out(r, 0);
	static const char *const keys[3] = {"expand1", "expand2", "expand3"};
	int64_t ex[3][MAXR], sd[MAXR];
	int ne[3];
	if (!o.v)
		return 0;
	for (int k = 0; k < 3; k++) {
		ne[k] = dec_arg_ints(r, 3 + k, keys[k], ex[k], MAXR);
		if (!in[k].v || ne[k] < 0)
			return 0;
	}
	int ns = dec_arg_ints(r, 6, "sumdim", sd, MAXR);
	int total = in[0].t.rank + ne[0];
	if (ns < 0 || total >= MAXR)
		return 0;
	for (int k = 0; k < 3; k++) {
		if (in[k].t.rank + ne[k] != total)
			return 0;
		for (int i = 0; i < ne[k]; i++)
			if (ex[k][i] < 0 || ex[k][i] >= total ||
			    (i && ex[k][i] <= ex[k][i - 1]))
				return 0;
	}
	for (int i = 0; i < ns; i++)
		if (sd[i] < 0 || sd[i] >= total)
			return 0;
	TV y = {0, {0, 0, {{0, 0}}}};
	for (int k = 0; k < 3; k++) {
		TV v = in[k];
		for (int i = 0; i < ne[k]; i++)
			v = dec_unsq(r, v, (int)ex[k][i]);
		y = k ? dec_b(r, "aten::mul.Tensor", y, v) : v;
	}
	if (ns)
		y = dec_red(r, "aten::sum.dim_IntList", y, sd, ns, 0);
	dec_bind(r, 0, dec_view(r, y.v, &o.t));
	return 1;
}

/* bilinear(x1 [..., i], x2 [..., j], w [o, i, j], b?) =
 * sum_ij x1_i w_oij x2_j + b_o: x1 @ w (as [i, o*j]) viewed [B, o, j],
 * times x2, summed over j */
int
dec_bilinear(Rw *r)
{
	TV a = dec_in(r, 0, "input1"), c = dec_in(r, 1, "input2");
	TV w = dec_in(r, 2, "weight"), b = dec_in(r, 3, "bias");
	TV o = dec_out(r, 0);
	if (!a.v || !c.v || !w.v || !o.v || w.t.rank != 3 || a.t.rank < 1 ||
	    !dec_ty_static(&a.t) || !dec_ty_static(&c.t) ||
	    !dec_ty_static(&w.t) || !dec_ty_static(&o.t) ||
	    a.t.rank != c.t.rank)
		return 0;
	int64_t no = w.t.d[0].n, ni = w.t.d[1].n, nj = w.t.d[2].n;
	if (a.t.d[a.t.rank - 1].n != ni || c.t.d[c.t.rank - 1].n != nj)
		return 0;
	int64_t bn = numel(&a.t) / (ni ? ni : 1);
	Ty ta = {a.t.dtype, 2, {{bn, 0}, {ni, 0}}};
	Ty tc = {c.t.dtype, 3, {{bn, 0}, {1, 0}, {nj, 0}}};
	Ty tw = {w.t.dtype, 2, {{ni, 0}, {no * nj, 0}}};
	Ty tm = {o.t.dtype, 2, {{bn, 0}, {no * nj, 0}}};
	Ty t3 = {o.t.dtype, 3, {{bn, 0}, {no, 0}, {nj, 0}}};
	int64_t perm[3] = {1, 0, 2};
	Ty tp;
	TV wp = dec_tv(dec_permute(r, w.v, &w.t, perm, &tp), tp);
	wp = dec_u(r, "aten::clone.default", wp);
	TV m = dec_tv(EMIT(r, "aten::mm.default", &tm,
	    dec_a_val(dec_view(r, a.v, &ta)), dec_a_val(dec_view(r, wp.v,
	    &tw))), tm);
	TV p = dec_b(r, "aten::mul.Tensor", dec_tv(dec_view(r, m.v, &t3), t3),
	    dec_tv(dec_view(r, c.v, &tc), tc));
	int64_t last = -1;
	TV y = dec_red(r, "aten::sum.dim_IntList", p, &last, 1, 0);
	if (b.v)
		y = dec_b(r, "aten::add.Tensor", y, b);
	dec_bind(r, 0, dec_view(r, y.v, &o.t));
	return 1;
}

/* ----------------------------------------------------- combinations */

/* combinations(x [n], r=2, with_replacement=False): the r-tuples of
 * elements at increasing (non-decreasing) positions, in lexicographic
 * order, as rows of [K, r]: x gathered at a constant index table */
int
dec_combinations(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	int64_t k, rep;
	if (!x.v || !o.v || x.t.rank != 1 || !dec_ty_static(&x.t) ||
	    !dec_ty_static(&o.t) || o.t.rank != 2 ||
	    !dec_arg_int(r, 1, "r", 2, &k) ||
	    !dec_arg_int(r, 2, "with_replacement", 0, &rep) || k < 1 ||
	    k >= MAXR || o.t.d[1].n != k)
		return 0;
	int64_t n = x.t.d[0].n, rowsn = o.t.d[0].n;
	if (rowsn * k > MAXIDX)
		return 0;
	if (rowsn == 0) { /* fewer elements than r: no tuples */
		if (rep ? n > 0 : n >= k)
			return 0;
		TV e = dec_slice(r, x, 0, 0, 0);
		dec_bind(r, 0, dec_view(r, e.v, &o.t));
		return 1;
	}
	int64_t *idx = r->h->alloc(r->ctx, (size_t)(rowsn * k) * sizeof *idx);
	int64_t cur[MAXR], c = 0;
	if (!idx)
		return 0;
	/* odometer over tuples, each position > (>=) the one before */
	for (int64_t i = 0; i < k; i++)
		cur[i] = rep ? 0 : i;
	for (;;) {
		if (cur[k - 1] >= n)
			break;
		if (c == rowsn)
			return 0; /* more tuples than the output holds */
		memcpy(idx + c * k, cur, (size_t)k * sizeof *cur);
		c++;
		int64_t i = k - 1;
		while (i >= 0) {
			cur[i]++;
			int64_t room = rep ? n - 1 : n - (k - i);
			if (cur[i] <= room)
				break;
			i--;
		}
		if (i < 0)
			break;
		for (int64_t j = i + 1; j < k; j++)
			cur[j] = rep ? cur[i] : cur[j - 1] + 1;
	}
	if (c != rowsn)
		return 0;
	TV g = rows(r, x, dec_const_i64(r, idx, rowsn * k));
	dec_bind(r, 0, dec_view(r, g.v, &o.t));
	return 1;
}

/* --------------------------------------------------------- gradient */

/* x.slice(dim, lo, hi), short for the formulas below */
static TV
sl(Rw *r, TV x, int dim, int64_t lo, int64_t hi)
{
	return dec_slice(r, x, dim, lo, hi);
}

/* the derivative along dim of x: its first slice a, the inside mid and
 * the last slice z concatenated */
static TV
ends_and_mid(Rw *r, TV x, int dim, TV a, TV mid, TV z)
{
	onnxc_arg parts[3] = {dec_a_val(a.v), dec_a_val(mid.v), dec_a_val(z.v)},
	    list;
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, parts, 3, &list) !=
	    ONNXC_OK) {
		r->bad = 1;
		return x;
	}
	return dec_tv(EMIT(r, "aten::cat.default", &x.t, list,
	    dec_a_int(dim)), x.t);
}

/* the derivative along dim with uniform spacing h: central differences
 * inside, one-sided ones of order eo at both ends (ATen's gradient) */
static TV
grad_dim(Rw *r, TV x, int dim, double h, int eo)
{
	int64_t n = x.t.d[dim].n;
	TV mid = dec_s(r, "aten::div.Tensor", dec_b(r, "aten::sub.Tensor",
	    sl(r, x, dim, 2, n), sl(r, x, dim, 0, n - 2)), 2 * h);
	TV a, z;
	if (eo == 1) {
		a = dec_s(r, "aten::div.Tensor", dec_b(r, "aten::sub.Tensor",
		    sl(r, x, dim, 1, 2), sl(r, x, dim, 0, 1)), h);
		z = dec_s(r, "aten::div.Tensor", dec_b(r, "aten::sub.Tensor",
		    sl(r, x, dim, n - 1, n), sl(r, x, dim, n - 2, n - 1)), h);
	} else {
		/* (-3 x0 + 4 x1 - x2) / 2h and (3 x[-1] - 4 x[-2] + x[-3]) / 2h */
		TV t0 = dec_s(r, "aten::mul.Tensor", sl(r, x, dim, 0, 1), -1.5);
		TV t1 = dec_s(r, "aten::mul.Tensor", sl(r, x, dim, 1, 2), 2);
		TV t2 = dec_s(r, "aten::mul.Tensor", sl(r, x, dim, 2, 3), -0.5);
		a = dec_s(r, "aten::div.Tensor", dec_b(r, "aten::add.Tensor",
		    dec_b(r, "aten::add.Tensor", t0, t1), t2), h);
		t0 = dec_s(r, "aten::mul.Tensor", sl(r, x, dim, n - 3, n - 2),
		    0.5);
		t1 = dec_s(r, "aten::mul.Tensor", sl(r, x, dim, n - 2, n - 1), -2);
		t2 = dec_s(r, "aten::mul.Tensor", sl(r, x, dim, n - 1, n), 1.5);
		z = dec_s(r, "aten::div.Tensor", dec_b(r, "aten::add.Tensor",
		    dec_b(r, "aten::add.Tensor", t0, t1), t2), h);
	}
	return ends_and_mid(r, x, dim, a, mid, z);
}

/* c (1-D) viewed along dim of a rank-r tensor: [1, .., len, .., 1] */
static TV
along(Rw *r, TV c, int dim, int rank)
{
	Ty t = c.t;
	t.rank = rank;
	for (int k = 0; k < rank; k++)
		t.d[k] = (onnxc_dim){k == dim ? c.t.d[0].n : 1, 0};
	return dec_tv(dec_view(r, c.v, &t), t);
}

/* the derivative along dim with coordinates c (1-D, x's size along dim):
 * ATen's (and numpy's) second-order differences for uneven steps */
static TV
grad_dim_at(Rw *r, TV x, int dim, TV c, int eo)
{
	int64_t n = x.t.d[dim].n;
	int rk = x.t.rank;
	TV dx = dec_b(r, "aten::sub.Tensor", dec_slice(r, c, 0, 1, n), dec_slice(r, c, 0, 0,
	    n - 1));
#define B(op, a, b) dec_b(r, "aten::" op ".Tensor", a, b)
	/* a f[i-1] + b f[i] + c f[i+1]: a = -d2 / (d1 (d1 + d2)),
	 * b = (d2 - d1) / (d1 d2), c = d1 / (d2 (d1 + d2)) */
	TV d1 = along(r, dec_slice(r, dx, 0, 0, n - 2), dim, rk);
	TV d2 = along(r, dec_slice(r, dx, 0, 1, n - 1), dim, rk);
	TV s12 = B("add", d1, d2);
	TV ca = dec_s(r, "aten::mul.Tensor", B("div", d2, B("mul", d1, s12)),
	    -1);
	TV cb = B("div", B("sub", d2, d1), B("mul", d1, d2));
	TV cc = B("div", d1, B("mul", d2, s12));
	TV mid = B("add", B("add", B("mul", ca, sl(r, x, dim, 0, n - 2)),
	    B("mul", cb, sl(r, x, dim, 1, n - 1))), B("mul", cc, sl(r, x, dim,
	    2, n)));
	TV h0 = along(r, dec_slice(r, dx, 0, 0, 1), dim, rk);
	TV hz = along(r, dec_slice(r, dx, 0, n - 2, n - 1), dim, rk);
	TV a, z;
	if (eo == 1) {
		a = B("div", B("sub", sl(r, x, dim, 1, 2), sl(r, x, dim, 0, 1)),
		    h0);
		z = B("div", B("sub", sl(r, x, dim, n - 1, n), sl(r, x, dim,
		    n - 2, n - 1)), hz);
	} else {
		TV h1 = along(r, dec_slice(r, dx, 0, 1, 2), dim, rk);
		TV hy = along(r, dec_slice(r, dx, 0, n - 3, n - 2), dim, rk);
		/* first: -(2 h0 + h1) / (h0 (h0 + h1)), (h0 + h1) / (h0 h1),
		 * -h0 / (h1 (h0 + h1)) */
		TV s = B("add", h0, h1);
		TV p = dec_s(r, "aten::mul.Tensor", B("div", B("add", B("add",
		    h0, h0), h1), B("mul", h0, s)), -1);
		TV q = B("div", s, B("mul", h0, h1));
		TV t = dec_s(r, "aten::mul.Tensor", B("div", h0, B("mul", h1,
		    s)), -1);
		a = B("add", B("add", B("mul", p, sl(r, x, dim, 0, 1)), B("mul",
		    q, sl(r, x, dim, 1, 2))), B("mul", t, sl(r, x, dim, 2, 3)));
		/* last: hz / (hy (hy + hz)), -(hy + hz) / (hy hz),
		 * (2 hz + hy) / (hz (hy + hz)) */
		s = B("add", hy, hz);
		p = B("div", hz, B("mul", hy, s));
		q = dec_s(r, "aten::mul.Tensor", B("div", s, B("mul", hy, hz)),
		    -1);
		t = B("div", B("add", B("add", hz, hz), hy), B("mul", hz, s));
		z = B("add", B("add", B("mul", p, sl(r, x, dim, n - 3, n - 2)),
		    B("mul", q, sl(r, x, dim, n - 2, n - 1))), B("mul", t,
		    sl(r, x, dim, n - 1, n)));
	}
#undef B
	return ends_and_mid(r, x, dim, a, mid, z);
}

/* the coordinate tensors of gradient.tensorarray(int) into cs[0..cap),
 * each as dtype dt; their number, or -1 */
static int
coordinates(Rw *r, TV *cs, int cap, uint32_t dt)
{
	int n = dec_tensor_list(r, 1, "spacing", cs, cap);
	for (int i = 0; i < n; i++) {
		if (cs[i].t.rank != 1 || !dec_ty_static(&cs[i].t))
			return -1;
		cs[i] = dec_cast(r, cs[i], dt);
	}
	return n;
}

/* the spacing list of gradient.scalarrayint into h[0..cap); its length,
 * or -1 */
static int
spacings(Rw *r, double *h, int cap)
{
	onnxc_arg a, it;
	if (!dec_arg(r, 1, "spacing", &a) || (a.kind != ONNXC_ARG_LIST &&
	    a.kind != ONNXC_ARG_TUPLE) || a.len > (uint32_t)cap)
		return -1;
	for (uint32_t i = 0; i < a.len; i++) {
		if (r->h->list_item(r->ctx, r->g, &a, i, &it) != ONNXC_OK)
			return -1;
		if (it.kind == ONNXC_ARG_FLOAT)
			h[i] = it.f;
		else if (it.kind == ONNXC_ARG_INT)
			h[i] = (double)it.i;
		else
			return -1;
		if (h[i] == 0)
			return -1;
	}
	return (int)a.len;
}

/* gradient(x, *, spacing=None, dim=None, edge_order=1): one output per
 * dim (every dim when dim is None); spacing one number, or one per dim
 * (the "scalarray" overloads); dim an int, or a list (the "array" ones) */
int
dec_gradient(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0), cs[MAXR];
	double h = 1, hs[MAXR];
	int64_t dims[MAXR], eo;
	onnxc_arg a;
	const char *op = r->h->str(r->ctx, r->ni.op);
	int coords = strstr(op, "tensorarray") != NULL;
	int per_dim = coords || strstr(op, "scalarray") != NULL;
	if (!x.v || !o.v || !dec_dt_float(o.t.dtype))
		return 0;
	/* integers are differenced as the floating result (ATen divides
	 * them by the spacing, a true division); half precision in float32
	 * (dec_bind casts back) */
	uint32_t ct = o.t.dtype == ONNXC_DT_F64 ? ONNXC_DT_F64 : ONNXC_DT_F32;
	x = dec_cast(r, x, ct);
	int nh = !per_dim ? 0 : coords ? coordinates(r, cs, MAXR, ct) :
	    spacings(r, hs, MAXR);
	if (x.t.rank < 1 || !dec_ty_static(&x.t) ||
	    nh < 0 || (!per_dim && !dec_arg_float(r, 1, "spacing", 1, &h)) ||
	    (!per_dim && h == 0) ||
	    !dec_arg_int(r, 3, "edge_order", 1, &eo) || (eo != 1 && eo != 2))
		return 0;
	int nd = x.t.rank;
	if (!dec_arg(r, 2, "dim", &a)) {
		for (int k = 0; k < nd; k++)
			dims[k] = k;
	} else if (a.kind == ONNXC_ARG_LIST || a.kind == ONNXC_ARG_TUPLE) {
		nd = dec_arg_ints(r, 2, "dim", dims, MAXR);
		if (nd < 1)
			return 0;
	} else if (dec_arg_int(r, 2, "dim", 0, &dims[0])) {
		nd = 1;
	} else {
		return 0;
	}
	for (int k = 0; k < nd; k++) {
		dims[k] += dims[k] < 0 ? x.t.rank : 0;
		if (dims[k] < 0 || dims[k] >= x.t.rank ||
		    x.t.d[dims[k]].n < eo + 1)
			return 0; /* ATen refuses it */
		for (int j = 0; j < k; j++)
			if (dims[j] == dims[k])
				return 0;
	}
	if ((per_dim && nh != nd) || r->ni.nout < (uint32_t)nd)
		return 0;
	for (int k = 0; coords && k < nd; k++)
		if (cs[k].t.d[0].n != x.t.d[dims[k]].n)
			return 0; /* ATen refuses it */
	for (int k = 0; k < nd; k++)
		if (dec_out_used(r, (uint32_t)k))
			dec_bind(r, (uint32_t)k, coords ? grad_dim_at(r, x,
			    (int)dims[k], cs[k], (int)eo).v : grad_dim(r, x,
			    (int)dims[k], per_dim ? hs[k] : h, (int)eo).v);
	return 1;
}

/* -------------------------------------------------------- _chunk_cat */

/* _chunk_cat(tensors, dim, num_chunks): each tensor padded with zeros
 * along dim to a multiple of num_chunks, viewed [..., num_chunks, -1]
 * (the dims from dim on folded into the chunks), then all concatenated
 * along dim + 1 */
int
dec_chunk_cat(Rw *r)
{
	onnxc_arg a, it, parts[64], list;
	TV o = dec_out(r, 0);
	int64_t dim, nc;
	if (!o.v || !dec_ty_static(&o.t) || !dec_arg(r, 0, "tensors", &a) ||
	    (a.kind != ONNXC_ARG_LIST && a.kind != ONNXC_ARG_TUPLE) ||
	    !a.len || a.len > 64 || !dec_arg_int(r, 1, "dim", 0, &dim) ||
	    !dec_arg_int(r, 2, "num_chunks", 1, &nc) || nc < 1)
		return 0;
	TV xs[64];
	for (uint32_t i = 0; i < a.len; i++) {
		if (r->h->list_item(r->ctx, r->g, &a, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_VALUE || dec_ty_of(r, it.ref,
		    &xs[i].t) || !dec_ty_static(&xs[i].t))
			return 0;
		xs[i].v = it.ref;
	}
	dim += dim < 0 ? xs[0].t.rank : 0;
	if (dim < 0 || dim >= xs[0].t.rank || o.t.rank != dim + 2)
		return 0;
	int64_t lead = nc; /* elements of dims [0, dim] of each view */
	for (int64_t i = 0; i < dim; i++)
		lead *= o.t.d[i].n;
	for (uint32_t i = 0; i < a.len; i++) {
		TV x = dec_cast(r, xs[i], o.t.dtype);
		if (x.t.rank <= dim)
			return 0;
		int64_t s = x.t.d[dim].n, padded = (s + nc - 1) / nc * nc;
		if (padded != s) {
			int64_t pad[2 * MAXR] = {0};
			int np = 2 * (int)(x.t.rank - dim);
			pad[np - 1] = padded - s;
			Ty tp = x.t;
			tp.d[dim] = (onnxc_dim){padded, 0};
			x = dec_tv(EMIT(r, "aten::constant_pad_nd.default", &tp,
			    dec_a_val(x.v), dec_a_ints(r, pad, np),
			    dec_a_float(0)), tp);
		}
		Ty tv = o.t;
		tv.d[dim + 1] = (onnxc_dim){lead ? numel(&x.t) / lead : 0, 0};
		parts[i] = dec_a_val(dec_view(r, x.v, &tv));
	}
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, parts, a.len,
	    &list) != ONNXC_OK)
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::cat.default", &o.t, list,
	    dec_a_int(dim + 1)));
	return 1;
}

/* ------------------------------------------ linear_cross_entropy */

/* torch_nn::_linear_cross_entropy_batch_chunked(input, linear_weight,
 * target, linear_bias?, weight?, reduction, ignore_index,
 * label_smoothing, batch_chunk_size, acc_policy, acc_dtype, ...) ->
 * (loss, grads precomputed for backward) and its _no_reduction form
 * (input, linear_weight, target, linear_bias?, weight?, ignore_index,
 * ...) -> per-sample loss: torch.nn's chunked linear + cross_entropy,
 * here as one linear and one cross_entropy_loss (the chunking only saves
 * memory; the gradient outputs must be unused) */
int
dec_linear_cross_entropy(Rw *r)
{
	TV x = dec_in(r, 0, "input"), w = dec_in(r, 1, "linear_weight");
	TV t = dec_in(r, 2, "target"), o = dec_out(r, 0);
	int none = strstr(r->h->str(r->ctx, r->ni.op), "no_reduction") != NULL;
	onnxc_arg a;
	int64_t red = 0, ign;
	double ls = 0;
	if (!x.v || !w.v || !t.v || !o.v || w.t.rank != 2 || x.t.rank < 1 ||
	    x.t.dtype != o.t.dtype || x.t.rank >= MAXR)
		return 0;
	for (uint32_t k = 1; k < r->ni.nout; k++)
		if (dec_out_used(r, k))
			return 0;
	if (!none) {
		const char *s;
		if (!dec_arg(r, 5, "reduction", &a) || a.kind != ONNXC_ARG_STR)
			return 0;
		s = r->h->str(r->ctx, a.ref);
		red = !strcmp(s, "mean") ? 1 : !strcmp(s, "sum") ? 2 :
		    !strcmp(s, "none") ? 0 : -1;
		if (red < 0 || !dec_arg_float(r, 7, "label_smoothing", 0, &ls))
			return 0;
	}
	if (!dec_arg_int(r, none ? 5 : 6, "ignore_index", -100, &ign))
		return 0;
	Ty tl = x.t;
	tl.d[tl.rank - 1] = w.t.d[0];
	TV lg = dec_tv(EMIT(r, "aten::linear.default", &tl, dec_a_val(x.v),
	    dec_a_val(w.v), dec_arg_copy(r, 3, "linear_bias")), tl);
	dec_bind(r, 0, EMIT(r, "aten::cross_entropy_loss.default", &o.t,
	    dec_a_val(lg.v), dec_a_val(t.v), dec_arg_copy(r, 4, "weight"),
	    dec_a_int(red), dec_a_int(ign), dec_a_float(ls)));
	return 1;
}
