/* linalg.c - inside the decompose plugin: composite products, norms and
 * scans of the training IR (linalg_vecdot, vdot, inner, addr, multi_dot,
 * tensordot, kron, linalg_norm, linalg_matrix_norm, cross,
 * logcumsumexp, aminmax, trapezoid, _softmax_backward_data) as the
 * products, reductions and element-wise ops the lowering has. */
#include <math.h> /* INFINITY only */
#include <string.h>

#include "decompose.h"

static TV mul(Rw *r, TV a, TV b) { return dec_b(r, "aten::mul.Tensor", a, b); }
static TV sub(Rw *r, TV a, TV b) { return dec_b(r, "aten::sub.Tensor", a, b); }

static int64_t
numel(const Ty *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		n *= t->d[i].n;
	return n;
}

/* x viewed as static dims d[0..n) */
static TV
view(Rw *r, TV x, const int64_t *d, int n)
{
	Ty t = x.t;
	t.rank = n;
	for (int i = 0; i < n; i++)
		t.d[i] = (onnxc_dim){d[i], 0};
	return dec_tv(dec_view(r, x.v, &t), t);
}

/* linalg_vecdot(x, y, *, dim=-1) = sum(x * y, dim) for real tensors */
int
dec_linalg_vecdot(Rw *r)
{
	TV x = dec_in(r, 0, "x"), y = dec_in(r, 1, "y");
	int64_t dim;
	if (!x.v || !y.v || !dec_arg_int(r, 2, "dim", -1, &dim))
		return 0;
	TV p = mul(r, x, y);
	if (dim < -p.t.rank || dim >= p.t.rank)
		return 0;
	dec_bind(r, 0, dec_red(r, "aten::sum.dim_IntList", p, &dim, 1, 0).v);
	return 1;
}

/* vdot(a, b) of real vectors = dot */
int
dec_vdot(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other"), o = dec_out(r, 0);
	if (!a.v || !b.v || !o.v)
		return 0;
	dec_bind(r, 0, dec_binary(r, "aten::dot.default", a.v, b.v, &o.t));
	return 1;
}

/* a [..., k] and b [..., k] as [A, k] @ [k, B], viewed as the output */
static TV
contract_last(Rw *r, TV a, TV b, const Ty *to)
{
	int64_t k = a.t.d[a.t.rank - 1].n;
	int64_t da[2] = {numel(&a.t) / (k ? k : 1), k};
	int64_t db[2] = {numel(&b.t) / (k ? k : 1), k};
	if (!k)
		da[0] = numel(&a.t), db[0] = numel(&b.t);
	TV a2 = view(r, a, da, 2), b2 = view(r, b, db, 2);
	TV bt = dec_swap(r, b2, 0, 1);
	Ty tm = a2.t;
	tm.d[1] = (onnxc_dim){db[0], 0};
	TV m = dec_tv(dec_binary(r, "aten::mm.default", a2.v, bt.v, &tm), tm);
	return dec_tv(dec_view(r, m.v, to), *to);
}

/* inner(a, b): a * b when either is 0-d, else the contraction of their
 * last dims */
int
dec_inner(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other"), o = dec_out(r, 0);
	if (!a.v || !b.v || !o.v || !dec_ty_static(&a.t) ||
	    !dec_ty_static(&b.t) || !dec_ty_static(&o.t))
		return 0;
	if (a.t.rank == 0 || b.t.rank == 0) {
		dec_bind(r, 0, mul(r, a, b).v);
		return 1;
	}
	dec_bind(r, 0, contract_last(r, a, b, &o.t).v);
	return 1;
}

/* tensordot(a, b, dims_a, dims_b): a's contracted dims moved last, b's
 * first, both as matrices, one mm */
int
dec_tensordot(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other"), o = dec_out(r, 0);
	int64_t da[MAXR], db[MAXR];
	if (!a.v || !b.v || !o.v || !dec_ty_static(&a.t) ||
	    !dec_ty_static(&b.t) || !dec_ty_static(&o.t))
		return 0;
	int n = dec_arg_ints(r, 2, "dims_self", da, MAXR);
	if (n < 0 || dec_arg_ints(r, 3, "dims_other", db, MAXR) != n)
		return 0;
	int ina[MAXR] = {0}, inb[MAXR] = {0};
	int64_t pa[MAXR], pb[MAXR], k = 1;
	for (int i = 0; i < n; i++) {
		if (da[i] < -a.t.rank || da[i] >= a.t.rank || db[i] < -b.t.rank ||
		    db[i] >= b.t.rank)
			return 0;
		da[i] += da[i] < 0 ? a.t.rank : 0;
		db[i] += db[i] < 0 ? b.t.rank : 0;
		int64_t sa = a.t.d[da[i]].n, sb = b.t.d[db[i]].n;
		/* a size 1 against a larger one: PyTorch broadcasts it, which
		 * is the other side summed over that dim first */
		if (ina[da[i]] || inb[db[i]] ||
		    (sa != sb && sa != 1 && sb != 1))
			return 0;
		ina[da[i]] = inb[db[i]] = 1;
	}
	for (int i = 0; i < n; i++) {
		if (a.t.d[da[i]].n == 1 && b.t.d[db[i]].n > 1)
			b = dec_red(r, "aten::sum.dim_IntList", b, &db[i], 1, 1);
		else if (b.t.d[db[i]].n == 1 && a.t.d[da[i]].n > 1)
			a = dec_red(r, "aten::sum.dim_IntList", a, &da[i], 1, 1);
	}
	memset(ina, 0, sizeof ina);
	memset(inb, 0, sizeof inb);
	for (int i = 0; i < n; i++) {
		ina[da[i]] = inb[db[i]] = 1;
		k *= a.t.d[da[i]].n;
	}
	int na = 0, nb = 0;
	for (int i = 0; i < a.t.rank; i++)
		if (!ina[i])
			pa[na++] = i;
	for (int i = 0; i < n; i++)
		pa[na + i] = da[i], pb[i] = db[i];
	for (int i = 0; i < b.t.rank; i++)
		if (!inb[i])
			pb[n + nb++] = i;
	Ty ta, tb;
	TV ap = dec_tv(dec_permute(r, a.v, &a.t, pa, &ta), ta);
	TV bp = dec_tv(dec_permute(r, b.v, &b.t, pb, &tb), tb);
	int64_t m = k ? numel(&a.t) / k : 0, q = k ? numel(&b.t) / k : 0;
	int64_t sa[2] = {m, k}, sb[2] = {k, q};
	if (ap.v != a.v)
		ap = dec_u(r, "aten::clone.default", ap);
	if (bp.v != b.v)
		bp = dec_u(r, "aten::clone.default", bp);
	TV a2 = view(r, ap, sa, 2), b2 = view(r, bp, sb, 2);
	Ty tm = a2.t;
	tm.d[1] = (onnxc_dim){q, 0};
	onnxc_value mm = dec_binary(r, "aten::mm.default", a2.v, b2.v, &tm);
	dec_bind(r, 0, dec_view(r, mm, &o.t));
	return 1;
}

/* kron(a, b): a as [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...],
 * viewed as [a0 b0, a1 b1, ...] (ranks aligned with leading 1s) */
int
dec_kron(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other"), o = dec_out(r, 0);
	if (!a.v || !b.v || !o.v || !dec_ty_static(&a.t) ||
	    !dec_ty_static(&b.t) || !dec_ty_static(&o.t) ||
	    2 * o.t.rank > MAXR)
		return 0;
	int n = o.t.rank;
	int64_t sa[MAXR], sb[MAXR];
	for (int i = 0; i < n; i++) {
		int ia = i - (n - a.t.rank), ib = i - (n - b.t.rank);
		sa[2 * i] = ia >= 0 ? a.t.d[ia].n : 1;
		sa[2 * i + 1] = 1;
		sb[2 * i] = 1;
		sb[2 * i + 1] = ib >= 0 ? b.t.d[ib].n : 1;
	}
	TV p = mul(r, view(r, a, sa, 2 * n), view(r, b, sb, 2 * n));
	dec_bind(r, 0, dec_view(r, p.v, &o.t));
	return 1;
}

/* addr(self, v1, v2, *, beta=1, alpha=1) = beta self + alpha outer(v1, v2);
 * self is ignored when beta is 0 */
int
dec_addr(Rw *r)
{
	TV s = dec_in(r, 0, "self"), a = dec_in(r, 1, "vec1");
	TV b = dec_in(r, 2, "vec2"), o = dec_out(r, 0);
	double beta, alpha;
	if (!s.v || !a.v || !b.v || !o.v || a.t.rank != 1 || b.t.rank != 1 ||
	    !dec_arg_float(r, 3, "beta", 1, &beta) ||
	    !dec_arg_float(r, 4, "alpha", 1, &alpha))
		return 0;
	/* ATen's kernel: beta * self + (alpha * vec1) * vec2, alpha and beta
	 * in the tensors' type, each product rounded to it (half too) */
	uint32_t dt = o.t.dtype;
	alpha = dec_num_in(dt, alpha);
	beta = dec_num_in(dt, beta);
	TV a1 = alpha != 1 ? dec_s(r, "aten::mul.Tensor", a, alpha) : a;
	TV p = mul(r, dec_unsq(r, a1, 1), dec_unsq(r, b, 0));
	if (beta != 0)
		p = dec_b(r, "aten::add.Tensor", beta == 1 ? s : dec_s(r,
		    "aten::mul.Tensor", s, beta), p);
	else
		p = dec_expand(r, p, &o.t);
	dec_bind(r, 0, dec_cast(r, p, o.t.dtype).v);
	return 1;
}

/* linalg_multi_dot(tensors): matmul left to right (a 1-d first or last
 * operand is a vector, as matmul takes it) */
int
dec_multi_dot(Rw *r)
{
	onnxc_arg l, it;
	TV o = dec_out(r, 0);
	if (!o.v || !dec_arg(r, 0, "tensors", &l) || l.kind != ONNXC_ARG_LIST ||
	    l.len < 2)
		return 0;
	TV xs[64];
	if (l.len > 64)
		return 0;
	for (uint32_t i = 0; i < l.len; i++) {
		if (r->h->list_item(r->ctx, r->g, &l, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_VALUE || dec_ty_of(r, it.ref, &xs[i].t))
			return 0;
		xs[i].v = it.ref;
		if (xs[i].t.rank < 1 || xs[i].t.rank > 2 || (xs[i].t.rank == 1 &&
		    i > 0 && i + 1 < l.len))
			return 0;
	}
	TV acc = xs[0];
	for (uint32_t i = 1; i < l.len; i++) {
		Ty t = acc.t;
		TV b = xs[i];
		t.rank = (acc.t.rank - 1) + (b.t.rank - 1);
		if (acc.t.rank == 2)
			t.d[0] = acc.t.d[0];
		if (b.t.rank == 2)
			t.d[t.rank - 1] = b.t.d[1];
		acc = dec_tv(dec_binary(r, "aten::matmul.default", acc.v, b.v, &t),
		    t);
	}
	dec_bind(r, 0, acc.v);
	return 1;
}

/* the ord vector norm of x over dims (every dim when nd < 0) */
static TV
vector_norm(Rw *r, TV x, double ord, const int64_t *dims, int nd, int keep)
{
	int64_t all[MAXR];
	if (nd < 0) {
		for (int i = 0; i < x.t.rank; i++)
			all[i] = i;
		dims = all;
		nd = x.t.rank;
	}
	TV s0 = dec_red(r, "aten::sum.dim_IntList", x, dims, nd, keep);
	return dec_tv(EMIT(r, "aten::linalg_vector_norm.default", &s0.t,
	    dec_a_val(x.v), dec_a_float(ord), dec_a_ints(r, dims, nd),
	    dec_a_bool(keep)), s0.t);
}

/* the 2-norm (red amax), its -2 counterpart (amin) or the nuclear norm
 * (sum) over dims d0, d1: of the singular values of x with d0, d1 moved
 * last (linalg_svdvals, which the lowering computes by Jacobi) */
static int
spectral_norm(Rw *r, TV x, const char *red, int64_t d0, int64_t d1, int keep,
    TV *out)
{
	if (!dec_ty_static(&x.t))
		return 0;
	int64_t perm[MAXR], np = 0;
	for (int i = 0; i < x.t.rank; i++)
		if (i != d0 && i != d1)
			perm[np++] = i;
	perm[np++] = d0;
	perm[np++] = d1;
	int64_t m = x.t.d[d0].n, n = x.t.d[d1].n, k = m < n ? m : n;
	if (k == 0)
		return 0; /* PyTorch: an empty max, or a sum of nothing */
	Ty tp;
	TV p = dec_tv(dec_permute(r, x.v, &x.t, perm, &tp), tp);
	Ty ts = tp;
	ts.rank = tp.rank - 1;
	ts.d[ts.rank - 1] = (onnxc_dim){k, 0};
	TV sv = dec_tv(EMIT(r, "aten::linalg_svdvals.default", &ts,
	    dec_a_val(p.v)), ts);
	int64_t last = ts.rank - 1;
	TV v = dec_red(r, red, sv, &last, 1, 0);
	if (keep) {
		Ty t = x.t;
		t.d[d0] = t.d[d1] = (onnxc_dim){1, 0};
		v = dec_tv(dec_view(r, v.v, &t), t);
	}
	*out = v;
	return 1;
}

/* the matrix norm over dims d0, d1: 'fro' (s) is the 2-norm of the
 * entries; 1 / -1 the max / min over columns of the absolute column
 * sums, inf / -inf the same over rows; 'nuc', 2, -2 from the singular
 * values */
static int
matrix_norm(Rw *r, TV x, const char *s, double ord, int64_t d0, int64_t d1,
    int keep, TV *out)
{
	d0 += d0 < 0 ? x.t.rank : 0;
	d1 += d1 < 0 ? x.t.rank : 0;
	if (d0 < 0 || d1 < 0 || d0 >= x.t.rank || d1 >= x.t.rank || d0 == d1)
		return 0;
	int64_t both[2] = {d0, d1};
	if (s && !strcmp(s, "nuc"))
		return spectral_norm(r, x, "aten::sum.dim_IntList", d0, d1, keep,
		    out);
	if (!s && (ord == 2 || ord == -2))
		return spectral_norm(r, x, ord > 0 ? "aten::amax.default" :
		    "aten::amin.default", d0, d1, keep, out);
	if (s) {
		if (strcmp(s, "fro"))
			return 0;
		*out = vector_norm(r, x, 2, both, 2, keep);
		return 1;
	}
	int col = ord == 1 || ord == -1;
	if (!col && ord != INFINITY && ord != -INFINITY)
		return 0;
	int64_t sd = col ? d0 : d1, od = col ? d1 : d0;
	TV a = dec_red(r, "aten::sum.dim_IntList", dec_u(r, "aten::abs.default",
	    x), &sd, 1, 1);
	TV m = dec_red(r, ord > 0 ? "aten::amax.default" : "aten::amin.default",
	    a, &od, 1, 1);
	if (!keep) {
		Ty t = m.t;
		t.rank = 0;
		for (int i = 0; i < m.t.rank; i++)
			if (i != d0 && i != d1)
				t.d[t.rank++] = m.t.d[i];
		m = dec_tv(dec_view(r, m.v, &t), t);
	}
	*out = m;
	return 1;
}

/* the ord argument at pos: *s for a string, else *ord (2 when None);
 * *given says whether there was one */
static int
ord_arg(Rw *r, int pos, const char **s, double *ord, int *given)
{
	onnxc_arg a;
	*s = NULL;
	*ord = 2;
	*given = dec_arg(r, pos, "ord", &a);
	if (!*given)
		return 1;
	if (a.kind == ONNXC_ARG_STR) {
		*s = r->h->str(r->ctx, a.ref);
		return *s != NULL;
	}
	return dec_arg_float(r, pos, "ord", 2, ord);
}

/* linalg_matrix_norm(A, ord='fro' / ord, dim=[-2, -1], keepdim=False) */
int
dec_linalg_matrix_norm(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	const char *s;
	double ord;
	int given;
	int64_t dims[2] = {-2, -1}, keep;
	if (!x.v || x.t.rank < 2 || !ord_arg(r, 1, &s, &ord, &given) ||
	    dec_arg_ints(r, 2, "dim", dims, 2) == -2 ||
	    !dec_arg_int(r, 3, "keepdim", 0, &keep))
		return 0;
	if (!given)
		s = "fro";
	TV out;
	if (!matrix_norm(r, x, s, ord, dims[0], dims[1], (int)keep, &out))
		return 0;
	dec_bind(r, 0, out.v);
	return 1;
}

/* linalg_norm(A, ord=None, dim=None, keepdim=False): without ord the
 * 2-norm of the entries over dim (all of them); with ord a vector norm
 * over one dim (or a 1-d A), a matrix norm over two (or a 2-d A) */
int
dec_linalg_norm(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	const char *s;
	double ord;
	int given;
	int64_t dims[MAXR], keep;
	if (!x.v || !ord_arg(r, 1, &s, &ord, &given) ||
	    !dec_arg_int(r, 3, "keepdim", 0, &keep))
		return 0;
	int nd = dec_arg_ints(r, 2, "dim", dims, MAXR);
	if (nd == -2)
		return 0;
	TV out;
	if (!given) {
		out = vector_norm(r, x, 2, dims, nd, (int)keep);
	} else if (nd == 1 || (nd < 0 && x.t.rank == 1)) {
		if (s)
			return 0;
		out = vector_norm(r, x, ord, dims, nd, (int)keep);
	} else if (nd == 2 || (nd < 0 && x.t.rank == 2)) {
		if (nd < 0)
			dims[0] = 0, dims[1] = 1;
		if (!matrix_norm(r, x, s, ord, dims[0], dims[1], (int)keep, &out))
			return 0;
	} else {
		return 0;
	}
	dec_bind(r, 0, out.v);
	return 1;
}

/* cross / linalg_cross(a, b, dim): along dim (size 3), a[i+1] b[i+2] -
 * a[i+2] b[i+1], the shifts as rolls; cross without dim takes the first
 * dim of size 3 */
int
dec_cross(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other"), o = dec_out(r, 0);
	onnxc_arg da;
	int64_t dim = -1;
	if (!a.v || !b.v || !o.v || !dec_ty_static(&o.t))
		return 0;
	a = dec_expand(r, a, &o.t);
	b = dec_expand(r, b, &o.t);
	if (dec_arg(r, 2, "dim", &da)) {
		if (!dec_arg_int(r, 2, "dim", -1, &dim))
			return 0;
	} else if (!strcmp(r->h->str(r->ctx, r->ni.op), "aten::cross.default")) {
		dim = -100;
		for (int i = 0; i < o.t.rank && dim == -100; i++)
			if (o.t.d[i].n == 3)
				dim = i;
	}
	dim += dim < 0 ? o.t.rank : 0;
	if (dim < 0 || dim >= o.t.rank || o.t.d[dim].n != 3)
		return 0;
	int64_t s1 = -1, s2 = -2;
	TV a1 = dec_tv(EMIT(r, "aten::roll.default", &a.t, dec_a_val(a.v),
	    dec_a_ints(r, &s1, 1), dec_a_ints(r, &dim, 1)), a.t);
	TV a2 = dec_tv(EMIT(r, "aten::roll.default", &a.t, dec_a_val(a.v),
	    dec_a_ints(r, &s2, 1), dec_a_ints(r, &dim, 1)), a.t);
	TV b1 = dec_tv(EMIT(r, "aten::roll.default", &b.t, dec_a_val(b.v),
	    dec_a_ints(r, &s1, 1), dec_a_ints(r, &dim, 1)), b.t);
	TV b2 = dec_tv(EMIT(r, "aten::roll.default", &b.t, dec_a_val(b.v),
	    dec_a_ints(r, &s2, 1), dec_a_ints(r, &dim, 1)), b.t);
	dec_bind(r, 0, sub(r, mul(r, a1, b2), mul(r, a2, b1)).v);
	return 1;
}

/* logcumsumexp(x, dim) = m + log(cumsum(exp(x - m))), m the max over dim
 * (0 where it is infinite) */
int
dec_logcumsumexp(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	int64_t dim;
	if (!x.v || !dec_arg_int(r, 1, "dim", 0, &dim))
		return 0;
	if (x.t.rank == 0) {
		dec_bind(r, 0, dec_u(r, "aten::clone.default", x).v);
		return 1;
	}
	if (dim < -x.t.rank || dim >= x.t.rank)
		return 0;
	/* half: accumulated in float, each output rounded once (ATen) */
	uint32_t dt = x.t.dtype;
	if (dt == ONNXC_DT_F16 || dt == ONNXC_DT_BF16)
		x = dec_cast(r, x, ONNXC_DT_F32);
	TV m = dec_red(r, "aten::amax.default", x, &dim, 1, 1);
	m = dec_sel_s(r, dec_u(r, "aten::isinf.default", m), 0, m);
	TV e = dec_u(r, "aten::exp.default", sub(r, x, m));
	TV c = dec_tv(EMIT(r, "aten::cumsum.default", &e.t, dec_a_val(e.v),
	    dec_a_int(dim)), e.t);
	dec_bind(r, 0, dec_cast(r, dec_b(r, "aten::add.Tensor", dec_u(r,
	    "aten::log.default", c), m), dt).v);
	return 1;
}

/* aminmax(x, *, dim=None, keepdim=False) -> (amin, amax) */
int
dec_aminmax(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	int64_t dim, keep;
	onnxc_arg da;
	if (!x.v || !dec_arg_int(r, 2, "keepdim", 0, &keep))
		return 0;
	int has = dec_arg(r, 1, "dim", &da);
	if (has && !dec_arg_int(r, 1, "dim", 0, &dim))
		return 0;
	for (uint32_t k = 0; k < 2; k++)
		if (dec_out_used(r, k))
			dec_bind(r, k, dec_red(r, k ? "aten::amax.default" :
			    "aten::amin.default", x, &dim, has ? 1 : -1,
			    has ? (int)keep : 0).v);
	return 1;
}

/* _softmax_backward_data(grad, out, dim, dtype) = out (grad - sum(grad
 * out, dim)) */
int
dec_softmax_backward(Rw *r)
{
	TV g = dec_in(r, 0, "grad_output"), y = dec_in(r, 1, "output");
	TV o = dec_out(r, 0);
	int64_t dim;
	if (!g.v || !y.v || !o.v || !dec_arg_int(r, 2, "dim", -1, &dim))
		return 0;
	/* PyTorch's half kernels compute in float and round once */
	if (g.t.dtype == ONNXC_DT_F16 || g.t.dtype == ONNXC_DT_BF16) {
		g = dec_cast(r, g, ONNXC_DT_F32);
		y = dec_cast(r, y, ONNXC_DT_F32);
	}
	TV s = g.t.rank ? dec_red(r, "aten::sum.dim_IntList", mul(r, g, y), &dim,
	    1, 1) : mul(r, g, y);
	dec_bind(r, 0, dec_cast(r, mul(r, y, sub(r, g, s)), o.t.dtype).v);
	return 1;
}

/* trapezoid(y, x | dx, dim=-1) (trapz), cumulative_trapezoid: ATen's
 * formulas (Integration.cpp), in their order and types, so that integer
 * inputs wrap where PyTorch's do (x's diff and y[i+1] + y[i] stay in
 * their integer type; a uint8 x that falls wraps up):
 *   .x:  sum(dx * (y[i+1] + y[i]) / 2),  dx = x[i+1] - x[i]
 *   .dx: (sum(y) - (y[0] + y[-1]) * 0.5) * dx
 *   cumulative: cumsum of the terms, dx / 2 * (y[i+1] + y[i]) for .dx */
static int
trapezoid(Rw *r, int cumulative)
{
	TV y = dec_in(r, 0, "y"), x = dec_in(r, 1, "x"), o = dec_out(r, 0);
	int64_t dim, n;
	double dx;
	if (!y.v || !o.v || !dec_arg_int(r, 2, "dim", -1, &dim) ||
	    !dec_arg_float(r, 99, "dx", 1, &dx) || y.t.rank < 1 ||
	    (x.v && x.t.rank != y.t.rank) || !dec_dt_float(o.t.dtype))
		return 0;
	dim += dim < 0 ? y.t.rank : 0;
	if (dim < 0 || dim >= y.t.rank ||
	    !dec_dim_static(&y.t.d[dim], &n) || n < 1)
		return 0;
	uint32_t od = o.t.dtype;
	TV s = dec_b(r, "aten::add.Tensor", dec_slice(r, y, dim, 1, n),
	    dec_slice(r, y, dim, 0, n - 1));
	TV t;
	if (x.v) {
		TV d = sub(r, dec_slice(r, x, dim, 1, n), dec_slice(r, x, dim, 0,
		    n - 1));
		t = dec_muls(r, dec_cast(r, mul(r, d, s), od), 0.5);
	} else if (cumulative) {
		t = dec_muls(r, dec_cast(r, s, od), dx / 2);
	} else {
		TV ys = dec_red(r, "aten::sum.dim_IntList", dec_dt_float(
		    y.t.dtype) ? y : dec_cast(r, y, ONNXC_DT_I64), &dim, 1, 0);
		TV e = dec_b(r, "aten::add.Tensor", dec_slice(r, y, dim, 0, 1),
		    dec_slice(r, y, dim, n - 1, n));
		e = dec_muls(r, dec_red(r, "aten::sum.dim_IntList", dec_cast(r,
		    e, od), &dim, 1, 0), 0.5);
		t = dec_muls(r, dec_sub(r, dec_cast(r, ys, od), e), dx);
		dec_bind(r, 0, dec_cast(r, t, od).v);
		return 1;
	}
	if (cumulative)
		t = dec_tv(EMIT(r, "aten::cumsum.default", &t.t, dec_a_val(t.v),
		    dec_a_int(dim)), t.t);
	else
		t = dec_red(r, "aten::sum.dim_IntList", t, &dim, 1, 0);
	dec_bind(r, 0, dec_cast(r, t, od).v);
	return 1;
}

int dec_trapezoid(Rw *r) { return trapezoid(r, 0); }
int dec_cumulative_trapezoid(Rw *r) { return trapezoid(r, 1); }
