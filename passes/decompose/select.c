/* select.c - inside the decompose plugin: composite selections and
 * constructions (take, isin, diagflat, diagonal_scatter,
 * cartesian_prod, renorm, quantile, nanquantile, index_copy, index_add,
 * index_fill, linspace and logspace with tensor bounds) as gathers,
 * scatters, comparisons and masks. */
#include <math.h> /* NAN, INFINITY only */
#include <string.h>

#include "decompose.h"

static int64_t
numel(const Ty *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		n *= t->d[i].n;
	return n;
}

/* x flattened to [numel] */
static TV
flat(Rw *r, TV x)
{
	int64_t m1 = -1;
	Ty t = x.t;
	t.rank = 1;
	t.d[0] = (onnxc_dim){numel(&x.t), 0};
	return dec_tv(EMIT(r, "aten::reshape.default", &t, dec_a_val(x.v),
	    dec_a_ints(r, &m1, 1)), t);
}

/* take(x, idx) = x.flatten()[idx], negative indices from the end */
int
dec_take(Rw *r)
{
	TV x = dec_in(r, 0, "self"), ix = dec_in(r, 1, "index"), o = dec_out(r, 0);
	if (!x.v || !ix.v || !o.v || !dec_ty_static(&x.t) ||
	    !dec_ty_static(&ix.t))
		return 0;
	TV xf = flat(r, x), jf = flat(r, ix);
	TV neg = dec_cs(r, "aten::lt.Scalar", jf, 0);
	jf = dec_sel(r, neg, dec_s(r, "aten::add.Tensor", jf,
	    (double)numel(&x.t)), jf);
	Ty tg = dec_ty_dtype(jf.t, x.t.dtype);
	TV g = dec_tv(EMIT(r, "aten::index_select.default", &tg,
	    dec_a_val(xf.v), dec_a_int(0), dec_a_val(jf.v)), tg);
	dec_bind(r, 0, dec_view(r, g.v, &o.t));
	return 1;
}

/* isin(elements, test_elements, *, assume_unique=False, invert=False):
 * each element compared with every test element */
int
dec_isin(Rw *r)
{
	TV e = dec_in(r, 0, "elements"), t = dec_in(r, 1, "test_elements");
	TV o = dec_out(r, 0);
	int64_t inv, last = -1;
	if (!e.v || !t.v || !o.v || !dec_ty_static(&e.t) ||
	    !dec_ty_static(&t.t) || e.t.rank >= MAXR ||
	    !dec_arg_int(r, 3, "invert", 0, &inv))
		return 0;
	TV ef = dec_unsq(r, e, e.t.rank), tf = flat(r, t);
	TV eq = dec_c(r, "aten::eq.Tensor", ef, tf);
	Ty ta = eq.t;
	ta.rank--;
	TV any = dec_tv(EMIT(r, "aten::any.dim", &ta, dec_a_val(eq.v),
	    dec_a_int(last)), ta);
	if (inv)
		any = dec_u(r, "aten::logical_not.default", any);
	dec_bind(r, 0, any.v);
	return 1;
}

/* diagflat(x, offset=0): x flattened on a diagonal of a matrix */
int
dec_diagflat(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	int64_t off;
	if (!x.v || !o.v || o.t.rank != 2 || !dec_ty_static(&x.t) ||
	    !dec_arg_int(r, 1, "offset", 0, &off))
		return 0;
	dec_bind(r, 0, dec_embed_diag(r, flat(r, x), off, o.t.d[0]).v);
	return 1;
}

/* iota(m) as a rank-R tensor whose dim d holds it (size 1 elsewhere) */
static TV
iota_at(Rw *r, int64_t m, int d, int rank)
{
	TV i = dec_iota(r, m);
	Ty t = i.t;
	t.rank = rank;
	for (int k = 0; k < rank; k++)
		t.d[k] = (onnxc_dim){k == d ? m : 1, 0};
	return dec_tv(dec_view(r, i.v, &t), t);
}

/* diagonal_scatter(x, src, offset=0, dim1=0, dim2=1): src (x's other dims,
 * then the diagonal) on diagonal offset of the (dim1, dim2) planes, x
 * elsewhere.  src's last dim is padded to the length of the dim that
 * counts the diagonal (dim1 above it, dim2 below), moved there, and
 * broadcast along the other. */
int
dec_diagonal_scatter(Rw *r)
{
	TV x = dec_in(r, 0, "self"), s = dec_in(r, 1, "src");
	int64_t off, d1, d2;
	if (!x.v || !s.v || x.t.rank < 2 || s.t.rank != x.t.rank - 1 ||
	    !dec_ty_static(&x.t) || !dec_ty_static(&s.t) ||
	    !dec_arg_int(r, 2, "offset", 0, &off) ||
	    !dec_arg_int(r, 3, "dim1", 0, &d1) ||
	    !dec_arg_int(r, 4, "dim2", 1, &d2))
		return 0;
	int R = x.t.rank;
	d1 += d1 < 0 ? R : 0;
	d2 += d2 < 0 ? R : 0;
	if (d1 < 0 || d2 < 0 || d1 >= R || d2 >= R || d1 == d2)
		return 0;
	int a = off >= 0 ? (int)d1 : (int)d2, b = off >= 0 ? (int)d2 : (int)d1;
	int64_t len = x.t.d[a].n, k = s.t.d[R - 2].n;
	if (k > len)
		return 0;
	TV v = s;
	if (k < len) {
		int64_t pad[2] = {0, len - k};
		Ty tp = s.t;
		tp.d[R - 2] = (onnxc_dim){len, 0};
		v = dec_tv(EMIT(r, "aten::constant_pad_nd.default", &tp,
		    dec_a_val(s.v), dec_a_ints(r, pad, 2), dec_a_float(0)), tp);
	}
	/* the diagonal (last) to a's place among x's dims without b */
	int pos = a - (b < a), j = 0;
	int64_t perm[MAXR];
	for (int i = 0; i < R - 1; i++)
		perm[i] = i == pos ? R - 2 : j++;
	Ty tm;
	v = dec_tv(dec_permute(r, v.v, &v.t, perm, &tm), tm);
	v = dec_unsq(r, v, b);
	TV on = dec_cs(r, "aten::eq.Scalar", dec_b(r, "aten::sub.Tensor",
	    iota_at(r, x.t.d[d2].n, (int)d2, R), iota_at(r, x.t.d[d1].n,
	    (int)d1, R)), (double)off);
	dec_bind(r, 0, dec_sel(r, on, dec_expand(r, dec_cast(r, v, x.t.dtype),
	    &x.t), x).v);
	return 1;
}

/* cartesian_prod(tensors): rows of every combination, the last tensor
 * varying fastest; one tensor is itself */
int
dec_cartesian_prod(Rw *r)
{
	onnxc_arg a, it;
	TV o = dec_out(r, 0), xs[MAXR];
	if (!o.v || !dec_arg(r, 0, "tensors", &a) || a.kind != ONNXC_ARG_LIST ||
	    a.len < 1 || a.len >= MAXR)
		return 0;
	int n = (int)a.len;
	Ty g;
	g.dtype = o.t.dtype;
	g.rank = n;
	for (int i = 0; i < n; i++) {
		if (r->h->list_item(r->ctx, r->g, &a, (uint32_t)i, &it) !=
		    ONNXC_OK || it.kind != ONNXC_ARG_VALUE ||
		    dec_ty_of(r, it.ref, &xs[i].t) || xs[i].t.rank != 1)
			return 0;
		xs[i].v = it.ref;
		g.d[i] = xs[i].t.d[0];
	}
	if (n == 1) {
		dec_bind(r, 0, dec_u(r, "aten::clone.default", xs[0]).v);
		return 1;
	}
	onnxc_arg cols[MAXR], list;
	Ty tc = o.t;
	tc.d[1] = (onnxc_dim){1, 0};
	for (int i = 0; i < n; i++) {
		Ty tv = g;
		for (int j = 0; j < n; j++)
			if (j != i)
				tv.d[j] = (onnxc_dim){1, 0};
		TV v = dec_tv(dec_view(r, xs[i].v, &tv), tv);
		v = dec_expand_from(r, v, &g, xs, n);
		v = dec_u(r, "aten::clone.default", v);
		cols[i] = dec_a_val(dec_view(r, v.v, &tc));
	}
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, cols, (uint32_t)n,
	    &list) != ONNXC_OK)
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::cat.default", &o.t, list, dec_a_int(1)));
	return 1;
}

/* renorm(x, p, dim, maxnorm): each slice along dim whose p-norm is above
 * maxnorm scaled by maxnorm / (norm + 1e-7) */
int
dec_renorm(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	double p, mx;
	int64_t dim, dims[MAXR];
	if (!x.v || x.t.rank < 1 || !dec_arg_float(r, 1, "p", 2, &p) ||
	    !dec_arg_int(r, 2, "dim", 0, &dim) ||
	    !dec_arg_float(r, 3, "maxnorm", 0, &mx))
		return 0;
	dim += dim < 0 ? x.t.rank : 0;
	if (dim < 0 || dim >= x.t.rank)
		return 0;
	int nd = 0;
	for (int i = 0; i < x.t.rank; i++)
		if (i != dim)
			dims[nd++] = i;
	TV s0 = dec_red(r, "aten::sum.dim_IntList", x, dims, nd, 1);
	TV nrm = dec_tv(EMIT(r, "aten::linalg_vector_norm.default", &s0.t,
	    dec_a_val(x.v), dec_a_float(p), dec_a_ints(r, dims, nd),
	    dec_a_bool(1)), s0.t);
	TV f = dec_u(r, "aten::reciprocal.default",
	    dec_s(r, "aten::add.Tensor", nrm, 1e-7));
	f = dec_s(r, "aten::mul.Tensor", f, mx);
	TV big = dec_cs(r, "aten::gt.Scalar", nrm, mx);
	f = dec_tv(EMIT(r, "aten::where.ScalarOther", &f.t, dec_a_val(big.v),
	    dec_a_val(f.v), dec_a_float(1)), f.t);
	dec_bind(r, 0, dec_b(r, "aten::mul.Tensor", x, f).v);
	return 1;
}

/* quantile / nanquantile.scalar(x, q, dim=None, keepdim=False, *,
 * interpolation='linear'), and .default with q a tensor (each q's result
 * along a new first dim): x sorted along dim (flattened when None;
 * NaN as +inf: last), the value at q (k - 1) linearly interpolated, k the
 * count of values (of non-NaN ones for nanquantile); NaN where k is 0,
 * and for quantile where any value is NaN */
static int
quantile(Rw *r, int nan)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	TV qt = dec_in(r, 1, "q");  /* .default: q a tensor of 0 or 1 dims */
	double q = 0.5;
	int64_t dim, keep;
	onnxc_arg da, ia;
	if (!x.v || !o.v ||
	    (qt.v ? qt.t.rank > 1 || !dec_ty_static(&qt.t) :
	    !dec_arg_float(r, 1, "q", 0.5, &q) || q < 0 || q > 1) ||
	    !dec_arg_int(r, 3, "keepdim", 0, &keep))
		return 0;
	/* interpolation between the two neighbours of the rank q (k - 1) */
	static const char *const modes[] = {"linear", "lower", "higher",
		"midpoint", "nearest"};
	int mode = 0;
	if (dec_arg(r, 4, "interpolation", &ia)) {
		if (ia.kind != ONNXC_ARG_STR)
			return 0;
		const char *m = r->h->str(r->ctx, ia.ref);
		for (mode = 0; mode < 5 && strcmp(m, modes[mode]); mode++)
			;
		if (mode == 5)
			return 0;
	}
	int hasdim = dec_arg(r, 2, "dim", &da);
	if (hasdim && !dec_arg_int(r, 2, "dim", 0, &dim))
		return 0;
	/* over all elements: flattened, static sizes; along a dim, the
	 * other sizes may be symbolic */
	int viewed = !hasdim || x.t.rank == 0;
	if (viewed && !dec_ty_static(&x.t))
		return 0;
	if (viewed) {
		x = flat(r, x);
		dim = 0;
	}
	dim += dim < 0 ? x.t.rank : 0;
	if (dim < 0 || dim >= x.t.rank)
		return 0;
	/* NaN as +inf: it sorts last whatever the sort does with NaN */
	TV isn = dec_u(r, "aten::isnan.default", x);
	TV xi = dec_sel_s(r, isn, INFINITY, x);
	onnxc_arg args[3] = {dec_a_val(xi.v), dec_a_int(dim), dec_a_bool(0)};
	onnxc_node sn = dec_emit_n(r, "aten::sort.default", &x.t, 2, 3, args);
	onnxc_node_info ni;
	Ty ti = dec_ty_dtype(x.t, ONNXC_DT_I64);
	if (!sn || r->h->node_get(r->ctx, r->g, sn, &ni) != ONNXC_OK ||
	    r->h->value_set_type(r->ctx, r->g, ni.out + 1, ti.dtype, ti.rank,
	    ti.d) != ONNXC_OK)
		return 0;
	TV s = dec_tv(ni.out, x.t);
	TV k = dec_red(r, "aten::sum.dim_IntList", dec_cast(r,
	    dec_u(r, "aten::logical_not.default", isn), x.t.dtype), &dim, 1, 1);
	int64_t len;
	if (!nan && dec_dim_static(&x.t.d[dim], &len))
		k = dec_s(r, "aten::add.Tensor", dec_s(r, "aten::mul.Tensor", k, 0),
		    (double)len);
	else if (!nan)  /* the length at run time: a sum of ones */
		k = dec_red(r, "aten::sum.dim_IntList", dec_s(r,
		    "aten::add.Tensor", dec_s(r, "aten::mul.Tensor", dec_cast(r,
		    isn, x.t.dtype), 0), 1), &dim, 1, 1);
	TV pos;
	if (qt.v) {
		/* each q along a new first dim: s, k and the NaN flags
		 * broadcast over it, and the gathers run along dim + 1 */
		int64_t nq = qt.t.rank ? qt.t.d[0].n : 1;
		Ty tq = {x.t.dtype, x.t.rank + 1, {{nq, 0}}}, ts = tq;
		for (int i = 0; i < x.t.rank; i++) {
			tq.d[i + 1] = (onnxc_dim){1, 0};
			ts.d[i + 1] = x.t.d[i];
		}
		TV qv = dec_tv(dec_view(r, dec_cast(r, qt, x.t.dtype).v, &tq),
		    tq);
		s = dec_expand(r, dec_unsq(r, s, 0), &ts);
		k = dec_unsq(r, k, 0);
		isn = dec_unsq(r, isn, 0);
		dim++;
		pos = dec_mul(r, dec_s(r, "aten::sub.Tensor", k, 1), qv);
	} else {
		pos = dec_s(r, "aten::mul.Tensor", dec_s(r, "aten::sub.Tensor", k,
		    1), q);
	}
	pos = dec_s(r, "aten::clamp_min.default", pos, 0);
	/* nearest: torch rounds the rank half to even, as round does */
	TV lo = dec_u(r, mode == 4 ? "aten::round.default" :
	    "aten::floor.default", pos);
	TV hi = mode == 4 ? lo : dec_u(r, "aten::ceil.default", pos);
	TV w = dec_b(r, "aten::sub.Tensor", pos, lo);
	Ty tk = lo.t;
	TV vlo = dec_tv(EMIT(r, "aten::gather.default", &tk, dec_a_val(s.v),
	    dec_a_int(dim), dec_a_val(dec_cast(r, lo, ONNXC_DT_I64).v)), tk);
	TV vhi = dec_tv(EMIT(r, "aten::gather.default", &tk, dec_a_val(s.v),
	    dec_a_int(dim), dec_a_val(dec_cast(r, hi, ONNXC_DT_I64).v)), tk);
	TV v = mode == 1 || mode == 4 ? vlo : mode == 2 ? vhi : mode == 3 ?
	    dec_s(r, "aten::mul.Tensor", dec_b(r, "aten::add.Tensor", vlo, vhi),
	    0.5) : dec_b(r, "aten::add.Tensor", vlo, dec_b(r, "aten::mul.Tensor",
	    dec_b(r, "aten::sub.Tensor", vhi, vlo), w));
	Ty tb = dec_ty_dtype(tk, ONNXC_DT_BOOL);
	TV bad = nan ? dec_cs(r, "aten::eq.Scalar", k, 0) :
	    dec_tv(EMIT(r, "aten::any.dim", &tb, dec_a_val(isn.v),
	    dec_a_int(dim), dec_a_bool(1)), tb);
	v = dec_sel_s(r, bad, NAN, v);
	if (!viewed && !keep)
		v = dec_sq(r, v, (int)dim);
	if (!viewed && qt.v && qt.t.rank == 0)
		v = dec_sq(r, v, 0);
	dec_bind(r, 0, viewed ? dec_view(r, v.v, &o.t) : v.v);
	return 1;
}

int dec_quantile(Rw *r) { return quantile(r, 0); }
int dec_nanquantile(Rw *r) { return quantile(r, 1); }

/* x (0-d as [1]) and its dim argument at pos 1, normalised; *n its size
 * there */
static int
index_base(Rw *r, TV *x, int64_t *dim, int64_t *n)
{
	*x = dec_in(r, 0, "self");
	if (!x->v || !dec_ty_static(&x->t) || !dec_arg_int(r, 1, "dim", 0, dim))
		return 0;
	if (x->t.rank == 0) {
		int64_t one = 1;
		Ty t = x->t;
		t.rank = 1;
		t.d[0] = (onnxc_dim){1, 0};
		*x = dec_tv(EMIT(r, "aten::reshape.default", &t, dec_a_val(x->v),
		    dec_a_ints(r, &one, 1)), t);
		if (*dim != 0 && *dim != -1)
			return 0;
		*dim = 0;
	}
	*dim += *dim < 0 ? x->t.rank : 0;
	if (*dim < 0 || *dim >= x->t.rank)
		return 0;
	*n = x->t.d[*dim].n;
	return 1;
}

/* 1-d index idx with negative entries from the end of n */
static TV
wrap_index(Rw *r, TV idx, int64_t n)
{
	if (idx.t.rank == 0)
		idx = dec_unsq(r, idx, 0);
	return dec_sel(r, dec_cs(r, "aten::lt.Scalar", idx, 0),
	    dec_s(r, "aten::add.Tensor", idx, (double)n), idx);
}

/* index_copy/index_add of symbolic sizes (the tokens routed to experts in
 * GraniteMoE and JetMoE, an unbacked count; a KV cache written at given
 * positions of a dynamic length): index_put(x, [idx], src,
 * accumulate=add) along dim 0, as core ATen decomposes it, with another
 * dim swapped to the front and back; the index lowering wraps negative
 * entries. */
static int
index_put_dyn(Rw *r, int add, TV x, int64_t dim, TV idx, TV src,
    double alpha)
{
	onnxc_arg it, list;
	if (dim < 0 || dim >= x.t.rank || src.t.rank != x.t.rank)
		return 0;
	if (dim != 0) {
		x = dec_swap(r, x, 0, (int)dim);
		src = dec_swap(r, src, 0, (int)dim);
	}
	if (idx.t.rank == 0)
		idx = dec_unsq(r, idx, 0);
	src = dec_cast(r, src, x.t.dtype);
	if (add && alpha != 1)
		src = dec_s(r, "aten::mul.Tensor", src, alpha);
	it = dec_a_val(idx.v);
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, &it, 1, &list) !=
	    ONNXC_OK)
		return 0;
	TV y = dec_tv(EMIT(r, "aten::index_put.default", &x.t,
	    dec_a_val(x.v), list, dec_a_val(src.v), dec_a_bool(add)), x.t);
	/* the shape of x (rank >= 1, maybe symbolic) is the output's */
	dec_bind(r, 0, dim ? dec_swap(r, y, 0, (int)dim).v : y.v);
	return 1;
}

/* index_copy(x, dim, idx, src) and index_add(..., alpha=1): a scatter
 * (scatter_add) of src with idx laid along dim and expanded to src */
static int
index_scatter(Rw *r, int add)
{
	TV x, idx = dec_in(r, 2, "index"), src = dec_in(r, 3, "source");
	TV o = dec_out(r, 0);
	int64_t dim, n;
	double alpha;
	if (!idx.v || !src.v || !o.v || idx.t.rank > 1 ||
	    !dec_arg_float(r, 4, "alpha", 1, &alpha))
		return 0;
	x = dec_in(r, 0, "self");
	if (x.v && (!dec_ty_static(&x.t) || !dec_ty_static(&src.t)) &&
	    dec_arg_int(r, 1, "dim", 0, &dim) && x.t.rank > 0)
		return index_put_dyn(r, add, x, dim + (dim < 0 ? x.t.rank : 0),
		    idx, src, alpha);
	if (!index_base(r, &x, &dim, &n) || !dec_ty_static(&src.t))
		return 0;
	if (src.t.rank != x.t.rank) {
		if (src.t.rank != 0 || x.t.rank != 1)
			return 0;
		src = dec_unsq(r, src, 0);
	}
	idx = wrap_index(r, idx, n);
	int64_t k = idx.t.d[0].n;
	if (k != src.t.d[dim].n)
		return 0;
	Ty tv = src.t;
	tv.dtype = idx.t.dtype;
	for (int i = 0; i < tv.rank; i++)
		if (i != dim)
			tv.d[i] = (onnxc_dim){1, 0};
	Ty te = dec_ty_dtype(src.t, idx.t.dtype);
	TV ie = dec_expand(r, dec_tv(dec_view(r, idx.v, &tv), tv), &te);
	src = dec_cast(r, src, x.t.dtype);
	if (add && alpha != 1)
		src = dec_s(r, "aten::mul.Tensor", src, alpha);
	onnxc_value y = add ? EMIT(r, "aten::scatter_add.default", &x.t,
	    dec_a_val(x.v), dec_a_int(dim), dec_a_val(ie.v), dec_a_val(src.v)) :
	    EMIT(r, "aten::scatter.src", &x.t, dec_a_val(x.v), dec_a_int(dim),
	    dec_a_val(ie.v), dec_a_val(src.v));
	dec_bind(r, 0, dec_view(r, y, &o.t));
	return 1;
}

int dec_index_copy(Rw *r) { return index_scatter(r, 0); }
int dec_index_add(Rw *r) { return index_scatter(r, 1); }

/* index_fill(x, dim, idx, value): value where the position along dim is
 * one of idx */
int
dec_index_fill(Rw *r)
{
	TV x, idx = dec_in(r, 2, "index"), val = dec_in(r, 3, "value");
	TV o = dec_out(r, 0);
	int64_t dim, n;
	double s;
	if (!idx.v || !o.v || idx.t.rank > 1 || !index_base(r, &x, &dim, &n))
		return 0;
	idx = wrap_index(r, idx, n);
	TV hit = dec_c(r, "aten::eq.Tensor", dec_unsq(r, dec_iota(r, n), 1),
	    dec_unsq(r, idx, 0));
	Ty tm = hit.t;
	tm.rank = 1;
	TV m = dec_tv(EMIT(r, "aten::any.dim", &tm, dec_a_val(hit.v),
	    dec_a_int(1)), tm);
	Ty tv = dec_ty_dtype(x.t, ONNXC_DT_BOOL);
	for (int i = 0; i < tv.rank; i++)
		if (i != dim)
			tv.d[i] = (onnxc_dim){1, 0};
	m = dec_tv(dec_view(r, m.v, &tv), tv);
	TV y;
	if (val.v)
		y = dec_sel(r, m, dec_cast(r, val, x.t.dtype), x);
	else if (dec_arg_float(r, 3, "value", 0, &s))
		y = dec_sel_s(r, m, s, x);
	else
		return 0;
	dec_bind(r, 0, dec_view(r, y.v, &o.t));
	return 1;
}

/* start/end argument pos of linspace: a 0-d tensor, or a number (made a
 * 0-d tensor of dtype dt) */
static TV
bound(Rw *r, int pos, const char *key, uint32_t dt)
{
	TV v = dec_in(r, pos, key);
	double s;
	if (v.v)
		return dec_cast(r, v, dt);
	if (!dec_arg_float(r, pos, key, 0, &s))
		return v;
	Ty t = {dt, 0, {{0, 0}}};
	return dec_tv(EMIT(r, "aten::scalar_tensor.default", &t,
	    dec_a_float(s), dec_a_dtype(r, dt)), t);
}

/* linspace(start, end, steps) with tensor bounds, as PyTorch's CPU kernel
 * computes it: start + i step for the first half, end - (steps - 1 - i)
 * step for the rest; logspace(.., base=10) is base to that power */
static int
space(Rw *r, int lg)
{
	TV o = dec_out(r, 0);
	int64_t n;
	double base;
	if (!o.v || o.t.rank != 1 || o.t.dtype == ONNXC_DT_BOOL ||
	    !dec_arg_int(r, 2, "steps", 0, &n) ||
	    n < 0 || !dec_arg_float(r, 3, "base", 10, &base))
		return 0;
	/* integers are computed in double and truncated, as the kernel's
	 * double step does; half precision in float32 */
	uint32_t dt = !dec_dt_float(o.t.dtype) ? ONNXC_DT_F64 :
	    o.t.dtype == ONNXC_DT_F64 ? ONNXC_DT_F64 : ONNXC_DT_F32;
	TV a = bound(r, 0, "start", dt), b = bound(r, 1, "end", dt);
	if (!a.v || !b.v || a.t.rank || b.t.rank)
		return 0;
	if (n == 0) {
		dec_bind(r, 0, EMIT(r, "aten::full.default", &o.t,
		    dec_a_ints(r, &n, 1), dec_a_float(0), dec_a_dtype(r, o.t.dtype)));
		return 1;
	}
	TV i = dec_cast(r, dec_iota(r, n), dt);
	TV step = dec_s(r, "aten::div.Tensor", dec_b(r, "aten::sub.Tensor", b, a),
	    n > 1 ? (double)(n - 1) : 1);
	TV lo = dec_b(r, "aten::add.Tensor", a, dec_b(r, "aten::mul.Tensor", i,
	    step));
	TV hi = dec_b(r, "aten::sub.Tensor", b, dec_b(r, "aten::mul.Tensor",
	    dec_s(r, "aten::rsub.Scalar", i, (double)(n - 1)), step));
	/* one step is start */
	TV v = n == 1 ? lo : dec_sel(r, dec_cs(r, "aten::lt.Scalar", i,
	    (double)(n / 2)), lo, hi);
	if (lg)
		v = dec_tv(EMIT(r, "aten::pow.Scalar", &v.t, dec_a_float(base),
		    dec_a_val(v.v)), v.t);
	dec_bind(r, 0, dec_cast(r, v, o.t.dtype).v);
	return 1;
}

int dec_linspace(Rw *r) { return space(r, 0); }
int dec_logspace(Rw *r) { return space(r, 1); }
