/* cover_sel.c - inside the decompose plugin: selections, scatters and
 * margin losses of the training IR with no lowering of their own (issue
 * 35): masked_scatter, put, _unsafe_masked_index(_put_accumulate),
 * multi_margin_loss, multilabel_margin_loss, following torch._decomp. */
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
	Ty t = x.t;
	t.rank = 1;
	t.d[0] = (onnxc_dim){numel(&x.t), 0};
	return dec_tv(dec_view(r, x.v, &t), t);
}

static TV
clamp(Rw *r, TV x, int64_t lo, int64_t hi)
{
	return dec_tv(EMIT(r, "aten::clamp.default", &x.t, dec_a_val(x.v),
	    dec_a_int(lo), dec_a_int(hi)), x.t);
}

/* where(c, a, x) for an integer a: an integer x keeps its dtype */
static TV
sel_i(Rw *r, TV c, int64_t a, TV x)
{
	if (x.t.dtype != ONNXC_DT_I64 && x.t.dtype != ONNXC_DT_I32)
		return dec_sel_s(r, c, (double)a, x);
	Ty t = dec_ty_bcast(&c.t, &x.t, x.t.dtype);
	return dec_tv(EMIT(r, "aten::where.ScalarSelf", &t, dec_a_val(c.v),
	    dec_a_int(a), dec_a_val(x.v)), t);
}

/* where(c, x, 0) */
static TV
keep_where(Rw *r, TV c, TV x)
{
	return sel_i(r, dec_u(r, "aten::logical_not.default", c), 0, x);
}

/* masked_scatter(x, mask, source): the positions where mask holds take
 * source's elements in order: source.flatten()[cumsum(mask) - 1] */
int
dec_masked_scatter(Rw *r)
{
	TV x = dec_in(r, 0, "self"), m = dec_in(r, 1, "mask");
	TV s = dec_in(r, 2, "source"), o = dec_out(r, 0);
	int64_t zero = 0;
	if (!x.v || !m.v || !s.v || !o.v || !dec_ty_static(&x.t) ||
	    !dec_ty_static(&m.t) || !dec_ty_static(&s.t) ||
	    !dec_ty_static(&o.t) || numel(&s.t) < 1 || numel(&o.t) < 1)
		return 0;
	TV mf = flat(r, dec_expand(r, m, &o.t));
	TV xf = flat(r, dec_expand(r, dec_cast(r, x, o.t.dtype), &o.t));
	TV pos = dec_cast(r, mf, ONNXC_DT_I64);
	pos = dec_tv(EMIT(r, "aten::cumsum.default", &pos.t, dec_a_val(pos.v),
	    dec_a_int(zero)), pos.t);
	pos = clamp(r, dec_s(r, "aten::sub.Tensor", pos, 1), 0,
	    numel(&s.t) - 1);
	TV sf = flat(r, dec_cast(r, s, o.t.dtype));
	Ty tg = xf.t;
	TV g = dec_tv(EMIT(r, "aten::index_select.default", &tg,
	    dec_a_val(sf.v), dec_a_int(0), dec_a_val(pos.v)), tg);
	dec_bind(r, 0, dec_view(r, dec_sel(r, mf, g, xf).v, &o.t));
	return 1;
}

/* put(x, index, source, accumulate=False): x.flatten() indexed by
 * index.flatten() (negative from the end) written (or added) with
 * source.flatten() */
int
dec_put(Rw *r)
{
	TV x = dec_in(r, 0, "self"), ix = dec_in(r, 1, "index");
	TV s = dec_in(r, 2, "source");
	int64_t acc;
	onnxc_arg list, it;
	if (!x.v || !ix.v || !s.v || !dec_ty_static(&x.t) ||
	    !dec_ty_static(&ix.t) || !dec_ty_static(&s.t) ||
	    numel(&ix.t) != numel(&s.t) ||
	    !dec_arg_int(r, 3, "accumulate", 0, &acc))
		return 0;
	if (numel(&ix.t) == 0) {  /* nothing put: self (maybe empty) */
		dec_bind(r, 0, dec_u(r, "aten::clone.default", x).v);
		return 1;
	}
	if (numel(&x.t) < 1)
		return 0;
	TV xf = flat(r, x), jf = flat(r, ix);
	TV sf = flat(r, dec_cast(r, s, x.t.dtype));
	TV neg = dec_cs(r, "aten::lt.Scalar", jf, 0);
	jf = dec_sel(r, neg, dec_s(r, "aten::add.Tensor", jf,
	    (double)numel(&x.t)), jf);
	it = dec_a_val(jf.v);
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, &it, 1, &list) !=
	    ONNXC_OK)
		return 0;
	TV y = dec_tv(EMIT(r, "aten::index_put.default", &xf.t,
	    dec_a_val(xf.v), list, dec_a_val(sf.v), dec_a_bool((int)acc)),
	    xf.t);
	dec_bind(r, 0, dec_view(r, y.v, &x.t));
	return 1;
}

/* The index list of _unsafe_masked_index(_put_accumulate), each index
 * clamped to [lo_neg ? -size : 0, size - 1] of its dim, into *out. */
static int
clamped_indices(Rw *r, const TV *x, int lo_neg, onnxc_arg *out)
{
	onnxc_arg a, items[MAXR];
	if (!dec_arg(r, 2, "indices", &a) || (a.kind != ONNXC_ARG_LIST &&
	    a.kind != ONNXC_ARG_TUPLE) || a.len > (uint32_t)x->t.rank)
		return -1;
	for (uint32_t i = 0; i < a.len; i++) {
		TV ix;
		if (r->h->list_item(r->ctx, r->g, &a, i, &items[i]) != ONNXC_OK)
			return -1;
		if (items[i].kind == ONNXC_ARG_NONE)
			continue;
		if (items[i].kind != ONNXC_ARG_VALUE || dec_ty_of(r,
		    items[i].ref, &ix.t) || ix.t.dtype == ONNXC_DT_BOOL ||
		    ix.t.dtype == ONNXC_DT_U8 || x->t.d[i].e)
			return -1;
	}
	for (uint32_t i = 0; i < a.len; i++) {
		if (items[i].kind == ONNXC_ARG_NONE)
			continue;
		TV ix = {items[i].ref, {0, 0, {{0, 0}}}};
		dec_ty_of(r, ix.v, &ix.t);
		int64_t n = x->t.d[i].n;
		items[i] = dec_a_val(clamp(r, ix, lo_neg ? -n : 0, n - 1).v);
	}
	return r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, items, a.len,
	    out) == ONNXC_OK ? 0 : -1;
}

/* _unsafe_masked_index(x, mask, indices, fill): x[indices clamped into
 * range] where mask holds, fill elsewhere */
int
dec_unsafe_masked_index(Rw *r)
{
	TV x = dec_in(r, 0, "self"), m = dec_in(r, 1, "mask"), o = dec_out(r, 0);
	double fill;
	onnxc_arg list;
	if (!x.v || !m.v || !o.v || !dec_ty_static(&x.t) || numel(&x.t) < 1 ||
	    !dec_arg_float(r, 3, "fill", 0, &fill) ||
	    clamped_indices(r, &x, 0, &list))
		return 0;
	TV g = dec_tv(EMIT(r, "aten::_unsafe_index.Tensor", &o.t,
	    dec_a_val(x.v), list), o.t);
	dec_bind(r, 0, dec_sel_s(r, dec_u(r, "aten::logical_not.default", m),
	    fill, g).v);
	return 1;
}

/* _unsafe_masked_index_put_accumulate(x, mask, indices, values): values
 * where mask holds (0 elsewhere) added at the clamped indices */
int
dec_unsafe_masked_index_put_accumulate(Rw *r)
{
	TV x = dec_in(r, 0, "self"), m = dec_in(r, 1, "mask");
	TV v = dec_in(r, 3, "values");
	onnxc_arg list;
	if (!x.v || !m.v || !v.v || !dec_ty_static(&x.t) || numel(&x.t) < 1 ||
	    clamped_indices(r, &x, 1, &list))
		return 0;
	TV mv = keep_where(r, m, dec_cast(r, v, x.t.dtype));
	dec_bind(r, 0, EMIT(r, "aten::_unsafe_index_put.default", &x.t,
	    dec_a_val(x.v), list, dec_a_val(mv.v), dec_a_bool(1)));
	return 1;
}

/* x as a matrix [N, C] (atleast_2d), t as [N] or [N, C] */
static int
as_rows(Rw *r, TV *x, TV *t, int t2d)
{
	/* rows already, of a batch that may be dynamic */
	if (x->t.rank == 2 && t->t.rank == (t2d ? 2 : 1) && !x->t.d[1].e &&
	    x->t.d[1].n >= 1)
		return 0;
	if (x->t.rank > 2 || !dec_ty_static(&x->t) || !dec_ty_static(&t->t))
		return -1;
	int64_t c = x->t.rank ? x->t.d[x->t.rank - 1].n : 1;
	int64_t n = x->t.rank == 2 ? x->t.d[0].n : 1;
	if (c < 1 || numel(&t->t) != (t2d ? n * c : n))
		return -1;
	Ty tx = {x->t.dtype, 2, {{n, 0}, {c, 0}}};
	Ty tt = {t->t.dtype, t2d ? 2 : 1, {{n, 0}, {c, 0}}};
	*x = dec_tv(dec_view(r, x->v, &tx), tx);
	*t = dec_tv(dec_view(r, t->v, &tt), tt);
	return 0;
}

/* multi_margin_loss(x, target, p=1, margin=1, weight=None, reduction=1):
 * sum over j != y of max(0, margin - x_y + x_j)^p (times weight_y), over
 * C; mean or sum over the rows, or per row */
int
dec_multi_margin_loss(Rw *r)
{
	TV x = dec_in(r, 0, "self"), t = dec_in(r, 1, "target");
	TV w = dec_in(r, 4, "weight"), o = dec_out(r, 0);
	double p, margin;
	int64_t red, one = 1;
	if (!x.v || !t.v || !o.v || !dec_arg_float(r, 2, "p", 1, &p) ||
	    !dec_arg_float(r, 3, "margin", 1, &margin) ||
	    !dec_arg_int(r, 5, "reduction", 1, &red) || (p != 1 && p != 2) ||
	    red < 0 || red > 2 || (w.v && !dec_ty_static(&w.t)) ||
	    as_rows(r, &x, &t, 0))
		return 0;
	int64_t c = x.t.d[1].n;
	TV t1 = dec_unsq(r, t, 1);
	Ty tu = dec_ty_dtype(t1.t, x.t.dtype);
	TV u = dec_tv(EMIT(r, "aten::gather.default", &tu, dec_a_val(x.v),
	    dec_a_int(one), dec_a_val(t1.v)), tu);
	TV z = dec_b(r, "aten::add.Tensor", dec_s(r, "aten::rsub.Scalar", u,
	    margin), x);
	z = dec_tv(EMIT(r, "aten::clamp_min.default", &z.t, dec_a_val(z.v),
	    dec_a_float(0)), z.t);
	if (p == 2)
		z = dec_b(r, "aten::mul.Tensor", z, z);
	if (w.v) {
		Ty tw = {w.t.dtype, 1, {{c, 0}}};
		TV wf = dec_tv(dec_view(r, w.v, &tw), tw);
		Ty tg = {w.t.dtype, 1, {t.t.d[0]}};
		TV wy = dec_tv(EMIT(r, "aten::index_select.default", &tg,
		    dec_a_val(wf.v), dec_a_int(0), dec_a_val(t.v)), tg);
		z = dec_b(r, "aten::mul.Tensor", z, dec_unsq(r, wy, 1));
	}
	TV ne = dec_c(r, "aten::ne.Tensor", dec_iota(r, c), t1);
	z = keep_where(r, ne, z);
	TV y;
	if (red == 1)
		y = dec_tv(EMIT(r, "aten::mean.default", &o.t, dec_a_val(z.v)),
		    o.t);
	else if (red == 2)
		y = dec_s(r, "aten::div.Tensor", dec_tv(EMIT(r,
		    "aten::sum.default", &o.t, dec_a_val(z.v)), o.t), (double)c);
	else
		y = dec_red(r, "aten::mean.dim", z, &one, 1, 0);
	dec_bind(r, 0, dec_view(r, y.v, &o.t));
	return 1;
}

/* multilabel_margin_loss(x, target, reduction=1): the target classes of
 * a row are its entries up to the first -1; the loss sums
 * max(0, 1 - (x_y - x_i)) / C over target classes y and non-target
 * classes i (torch._decomp's multilabel_margin_loss_forward) */
int
dec_multilabel_margin_loss(Rw *r)
{
	TV x = dec_in(r, 0, "self"), t = dec_in(r, 1, "target");
	TV o = dec_out(r, 0);
	int64_t red, last = -1, one = 1;
	if (!x.v || !t.v || !o.v || !dec_arg_int(r, 2, "reduction", 1, &red) ||
	    red < 0 || red > 2 || x.t.rank != t.t.rank || as_rows(r, &x, &t, 1))
		return 0;
	int64_t c = x.t.d[1].n;
	TV idx = dec_iota(r, c);
	/* the first -1 of each row (C if none): where(t == -1, idx, C) */
	TV end = sel_i(r, dec_cs(r, "aten::ne.Scalar", t, -1), c,
	    dec_expand_from(r, idx, &t.t, &t, 1));
	end = dec_red(r, "aten::amin.default", end, &last, 1, 1);
	TV tmask = dec_c(r, "aten::lt.Tensor", idx, end); /* [N, C] */
	TV t0 = keep_where(r, tmask, t);
	TV u = dec_tv(EMIT(r, "aten::gather.default", &x.t, dec_a_val(x.v),
	    dec_a_int(last), dec_a_val(t0.v)), x.t);
	TV t1 = sel_i(r, dec_u(r, "aten::logical_not.default", tmask), -1, t);
	TV hit = dec_c(r, "aten::eq.Tensor", idx, dec_unsq(r, t1, 2));
	Ty tt = hit.t;
	tt.rank = 2;
	tt.d[1] = hit.t.d[2];
	TV is_t = dec_tv(EMIT(r, "aten::any.dim", &tt, dec_a_val(hit.v),
	    dec_a_int(one)), tt);
	/* z[k, n, i] = max(0, 1 - u[n, k] + x[n, i]) / C */
	TV ut = dec_unsq(r, dec_swap(r, u, 0, 1), 2);
	TV z = dec_b(r, "aten::add.Tensor", dec_s(r, "aten::rsub.Scalar", ut,
	    1), x);
	z = dec_tv(EMIT(r, "aten::clamp_min.default", &z.t, dec_a_val(z.v),
	    dec_a_float(0)), z.t);
	z = dec_s(r, "aten::div.Tensor", z, (double)c);
	z = dec_sel_s(r, is_t, 0, z);
	z = keep_where(r, dec_unsq(r, dec_swap(r, tmask, 0, 1), 2), z);
	int64_t dims[2] = {0, -1};
	TV y;
	if (red == 2)
		y = dec_tv(EMIT(r, "aten::sum.default", &o.t, dec_a_val(z.v)),
		    o.t);
	else {
		y = dec_red(r, "aten::sum.dim_IntList", z, dims, 2, 0);
		if (red == 1)
			y = dec_tv(EMIT(r, "aten::mean.default", &o.t,
			    dec_a_val(y.v)), o.t);
	}
	dec_bind(r, 0, dec_view(r, y.v, &o.t));
	return 1;
}

/* max_pool2d/3d_with_indices_backward(grad_output, self, kernel, stride,
 * padding, dilation, ceil_mode, indices): each gradient added at the
 * flat spatial index its window's maximum came from (indices count
 * within each [N, C] plane, as PyTorch's do): a scatter_add into zeros */
int
dec_max_pool_backward(Rw *r)
{
	TV g = dec_in(r, 0, "grad_output"), x = dec_in(r, 1, "self");
	TV ix = dec_in(r, 7, "indices"), o = dec_out(r, 0);
	if (!g.v || !x.v || !ix.v || !o.v || !dec_ty_static(&x.t) ||
	    !dec_ty_static(&g.t) || !dec_ty_static(&ix.t) ||
	    g.t.rank != ix.t.rank || x.t.rank != g.t.rank || x.t.rank < 3)
		return 0;
	int sp = strstr(r->h->str(r->ctx, r->ni.op), "pool3d") ? 3 : 2;
	if (x.t.rank != sp + 1 && x.t.rank != sp + 2)
		return 0;
	/* planes first: [P, spatial] with P = numel / spatial */
	int64_t xs = 1, gs = 1;
	for (int i = x.t.rank - sp; i < x.t.rank; i++)
		xs *= x.t.d[i].n, gs *= g.t.d[i].n;
	if (xs < 1 || gs < 1)
		return 0;
	int64_t np = numel(&x.t) / xs;
	Ty tx = {x.t.dtype, 2, {{np, 0}, {xs, 0}}};
	Ty tg = {g.t.dtype, 2, {{np, 0}, {gs, 0}}};
	Ty ti = {ix.t.dtype, 2, {{np, 0}, {gs, 0}}};
	if (numel(&g.t) != np * gs || numel(&ix.t) != np * gs)
		return 0;
	TV z = dec_tv(EMIT(r, "aten::zeros_like.default", &x.t,
	    dec_a_val(x.v)), x.t);
	z = dec_tv(dec_view(r, z.v, &tx), tx);
	TV gv = dec_cast(r, dec_tv(dec_view(r, g.v, &tg), tg), x.t.dtype);
	TV iv = dec_tv(dec_view(r, ix.v, &ti), ti);
	TV y = dec_tv(EMIT(r, "aten::scatter_add.default", &tx, dec_a_val(z.v),
	    dec_a_int(1), dec_a_val(iv.v), dec_a_val(gv.v)), tx);
	dec_bind(r, 0, dec_view(r, y.v, &o.t));
	return 1;
}
