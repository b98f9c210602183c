/* views.c - inside the decompose plugin: composite view and layout ops
 * of the training IR (mT, mH, real, ravel, flipud, fftshift, atleast_nd,
 * broadcast_tensors, meshgrid, diag, diag_embed, trace, rot90, ...) as
 * the views and copies the lowering has. */
#include <string.h>

#include "decompose.h"

static int
is_float_dt(uint32_t dt)
{
	return dt == ONNXC_DT_F32 || dt == ONNXC_DT_F64 ||
	    dt == ONNXC_DT_F16 || dt == ONNXC_DT_BF16;
}

/* mT, mH, adjoint, matrix_H of a real tensor: the last two dims swapped */
int
dec_mT(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	if (!x.v || x.t.rank < 2)
		return 0;
	dec_bind(r, 0, dec_swap(r, x, -2, -1).v);
	return 1;
}

/* real, resolve_conj, resolve_neg, _conj, conj_physical of a real
 * tensor: a copy of it */
int
dec_real_copy(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	/* ONNX's complex64 and complex128 */
	if (!x.v || x.t.dtype == 14 || x.t.dtype == 15)
		return 0;
	dec_bind(r, 0, dec_u(r, "aten::clone.default", x).v);
	return 1;
}

/* isreal of a real tensor: true everywhere */
int
dec_isreal(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	if (!x.v || x.t.dtype == 14 || x.t.dtype == 15)
		return 0;
	dec_bind(r, 0, dec_cast(r, dec_u(r, "aten::ones_like.default", x),
	    ONNXC_DT_BOOL).v);
	return 1;
}

/* ravel(x) -> reshape(x, [-1]) */
int
dec_ravel(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	int64_t m1 = -1;
	if (!x.v || !o.v)
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::reshape.default", &o.t, dec_a_val(x.v),
	    dec_a_ints(r, &m1, 1)));
	return 1;
}

int
dec_t_copy(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	if (!x.v || !o.v)
		return 0;
	dec_bind(r, 0, dec_unary(r, "aten::t.default", x.v, &o.t));
	return 1;
}

static int
flip_dim(Rw *r, int64_t d, int minrank)
{
	TV x = dec_in(r, 0, "self");
	if (!x.v || x.t.rank < minrank)
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::flip.default", &x.t, dec_a_val(x.v),
	    dec_a_ints(r, &d, 1)));
	return 1;
}

int dec_flipud(Rw *r) { return flip_dim(r, 0, 1); }
int dec_fliplr(Rw *r) { return flip_dim(r, 1, 2); }

/* fft_fftshift(x, dim=None): roll by n // 2 along each dim (every dim
 * when None); fft_ifftshift by -(n // 2) */
static int
fftshift(Rw *r, int inverse)
{
	TV x = dec_in(r, 0, "self");
	int64_t dims[MAXR], sh[MAXR];
	if (!x.v)
		return 0;
	int n = dec_arg_ints(r, 1, "dim", dims, MAXR);
	if (n == -2)
		return 0;
	if (n < 0) {
		n = x.t.rank;
		for (int i = 0; i < n; i++)
			dims[i] = i;
	}
	for (int i = 0; i < n; i++) {
		int64_t d = dims[i] < 0 ? dims[i] + x.t.rank : dims[i];
		if (d < 0 || d >= x.t.rank || !dec_dim_static(&x.t.d[d], &sh[i]))
			return 0;
		sh[i] = inverse ? -(sh[i] / 2) : sh[i] / 2;
	}
	if (n == 0) {
		dec_bind(r, 0, dec_u(r, "aten::clone.default", x).v);
		return 1;
	}
	dec_bind(r, 0, EMIT(r, "aten::roll.default", &x.t, dec_a_val(x.v),
	    dec_a_ints(r, sh, n), dec_a_ints(r, dims, n)));
	return 1;
}

int dec_fftshift(Rw *r) { return fftshift(r, 0); }
int dec_ifftshift(Rw *r) { return fftshift(r, 1); }

/* atleast_Nd(x): x viewed with the dims its output has (PyTorch puts a
 * 1-d tensor in the middle of the 3-d form, [1, n, 1]) */
int
dec_atleast(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	if (!x.v || !o.v)
		return 0;
	if (o.t.rank == x.t.rank) {
		dec_bind(r, 0, dec_u(r, "aten::clone.default", x).v);
		return 1;
	}
	if (!dec_ty_static(&o.t))
		return 0;
	dec_bind(r, 0, dec_view(r, x.v, &o.t));
	return 1;
}

/* sort(x, dim, descending) with both outputs typed; *idx gets output 1 */
static TV
sort2(Rw *r, TV x, int64_t dim, int64_t desc, TV *idx)
{
	onnxc_arg args[3] = {dec_a_val(x.v), dec_a_int(dim), dec_a_bool(desc)};
	onnxc_node n = dec_emit_n(r, "aten::sort.default", &x.t, 2, 3, args);
	onnxc_node_info ni;
	Ty ti = dec_ty_dtype(x.t, ONNXC_DT_I64);
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK ||
	    r->h->value_set_type(r->ctx, r->g, ni.out + 1, ti.dtype, ti.rank,
	    ti.d) != ONNXC_OK) {
		r->bad = 1;
		return x;
	}
	*idx = dec_tv(ni.out + 1, ti);
	return dec_tv(ni.out, x.t);
}

/* msort(x) -> sort(x, 0).values */
int
dec_msort(Rw *r)
{
	TV x = dec_in(r, 0, "self"), idx;
	if (!x.v)
		return 0;
	dec_bind(r, 0, sort2(r, x, 0, 0, &idx).v);
	return 1;
}

/* argsort(x, dim=-1, descending=False) -> sort(...).indices; the
 * .stable overload has its arguments keyword-only.  Ties keep their order
 * either way: the lowering's sort is stable. */
int
dec_argsort(Rw *r)
{
	TV x = dec_in(r, 0, "self"), idx;
	int64_t dim, desc;
	int st = !strcmp(r->h->str(r->ctx, r->ni.op), "aten::argsort.stable");
	if (!x.v || !dec_arg_int(r, st ? 99 : 1, "dim", -1, &dim) ||
	    !dec_arg_int(r, st ? 99 : 2, "descending", 0, &desc))
		return 0;
	if (x.t.rank == 0)
		dim = 0;
	sort2(r, x, dim, desc, &idx);
	dec_bind(r, 0, idx.v);
	return 1;
}

/* the tensors of list argument pos/key into xs (cap of them): how many,
 * -1 when not a list of typed tensors */
int
dec_tensor_list(Rw *r, int pos, const char *key, TV *xs, int cap)
{
	onnxc_arg a, it;
	if (!dec_arg(r, pos, key, &a) || (a.kind != ONNXC_ARG_LIST &&
	    a.kind != ONNXC_ARG_TUPLE) || a.len > (uint32_t)cap)
		return -1;
	for (uint32_t i = 0; i < a.len; i++) {
		if (r->h->list_item(r->ctx, r->g, &a, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_VALUE)
			return -1;
		xs[i].v = it.ref;
		if (dec_ty_of(r, it.ref, &xs[i].t))
			return -1;
	}
	return (int)a.len;
}

/* broadcast_tensors(xs) -> each expanded to the common shape */
int
dec_broadcast_tensors(Rw *r)
{
	TV xs[64];
	int n = dec_tensor_list(r, 0, "tensors", xs, 64);
	if (n < 0 || (uint32_t)n < r->ni.nout)
		return 0;
	for (uint32_t k = 0; k < r->ni.nout; k++) {
		if (!dec_out_used(r, k))
			continue;
		/* the shape PyTorch computed: its symbolic sizes are the
		 * inputs' */
		TV o = dec_out(r, k);
		if (!o.v)
			return 0;
		TV e = dec_expand_from(r, xs[k], &o.t, xs, n);
		/* an input already of that shape is copied: binding would
		 * rename the input itself */
		if (e.v == xs[k].v)
			e = dec_u(r, "aten::clone.default", e);
		dec_bind(r, k, e.v);
	}
	return 1;
}

/* atleast_Nd.Sequence(xs) -> each x viewed as its output (a size-1 dim
 * added where x has fewer than N) */
int
dec_atleast_seq(Rw *r)
{
	TV xs[64];
	int n = dec_tensor_list(r, 0, "tensors", xs, 64);
	if (n < 0 || (uint32_t)n != r->ni.nout)
		return 0;
	for (uint32_t k = 0; k < r->ni.nout; k++) {
		TV o = dec_out(r, k);
		if (!o.v || (o.t.rank != xs[k].t.rank && !dec_ty_static(&o.t)))
			return 0;
	}
	for (uint32_t k = 0; k < r->ni.nout; k++) {
		if (!dec_out_used(r, k))
			continue;
		TV o = dec_out(r, k);
		/* a copy where the rank stays: binding would rename the input */
		dec_bind(r, k, o.t.rank == xs[k].t.rank ? dec_u(r,
		    "aten::clone.default", xs[k]).v : dec_view(r, xs[k].v,
		    &o.t));
	}
	return 1;
}

/* meshgrid(xs, indexing='ij'): xs[k] (0-d or 1-d) laid along dim k of
 * the grid and expanded; 'xy' swaps the roles of the first two */
int
dec_meshgrid(Rw *r)
{
	TV xs[MAXR];
	onnxc_arg ia;
	int xy = 0;
	int n = dec_tensor_list(r, 0, "tensors", xs, MAXR);
	if (n < 1 || (uint32_t)n < r->ni.nout)
		return 0;
	if (dec_arg(r, 1, "indexing", &ia)) {
		const char *s = ia.kind == ONNXC_ARG_STR ?
		    r->h->str(r->ctx, ia.ref) : NULL;
		if (!s || (strcmp(s, "ij") && strcmp(s, "xy")))
			return 0;
		xy = !strcmp(s, "xy") && n >= 2;
	}
	Ty g;
	memset(&g, 0, sizeof g);
	g.dtype = xs[0].t.dtype;
	g.rank = n;
	for (int k = 0; k < n; k++) {
		if (xs[k].t.rank > 1)
			return 0;
		int pos = xy && k < 2 ? 1 - k : k;
		g.d[pos] = xs[k].t.rank ? xs[k].t.d[0] : (onnxc_dim){1, 0};
	}
	for (int k = 0; k < n; k++) {
		if (!dec_out_used(r, (uint32_t)k))
			continue;
		int pos = xy && k < 2 ? 1 - k : k;
		Ty tv = g;
		for (int i = 0; i < n; i++)
			if (i != pos)
				tv.d[i] = (onnxc_dim){1, 0};
		tv.dtype = xs[k].t.dtype;
		TV v = dec_tv(dec_view(r, xs[k].v, &tv), tv);
		dec_bind(r, (uint32_t)k, dec_expand_from(r, v, &g, xs, n).v);
	}
	return 1;
}

/* trace(x) -> sum(diagonal(x)) */
int
dec_trace(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	int64_t m, n;
	if (!x.v || !o.v || x.t.rank != 2)
		return 0;
	onnxc_dim len = x.t.d[0];  /* a square matrix of a dynamic size */
	if (dec_dim_static(&x.t.d[0], &m) && dec_dim_static(&x.t.d[1], &n))
		len = (onnxc_dim){m < n ? m : n, 0};
	else if (!x.t.d[0].e || x.t.d[0].e != x.t.d[1].e)
		return 0;
	/* integers and bools sum in int64, as ATen's sum promotes them */
	x = dec_cast(r, x, o.t.dtype);
	Ty td = x.t;
	td.rank = 1;
	td.d[0] = len;
	TV d = dec_tv(EMIT(r, "aten::diagonal.default", &td, dec_a_val(x.v)),
	    td);
	dec_bind(r, 0, dec_red(r, "aten::sum.dim_IntList", d, NULL, -1, 0).v);
	return 1;
}

/* i64 [m] 0..m-1 */
TV
dec_iota(Rw *r, int64_t m)
{
	Ty t = {ONNXC_DT_I64, 1, {{m, 0}}};
	return dec_tv(EMIT(r, "aten::arange.default", &t, dec_a_int(m),
	    dec_a_dtype(r, ONNXC_DT_I64)), t);
}

/* x's last dim ([..., n]) on the diagonal `off` of two new trailing dims
 * [..., m, m], m = n + |off|, zeros elsewhere; md is m as the output
 * states it (with n symbolic, m is too) */
TV
dec_embed_diag(Rw *r, TV x, int64_t off, onnxc_dim md)
{
	int64_t k = off < 0 ? -off : off;
	int last = x.t.rank - 1;
	TV y = x;
	if (k) {
		int64_t pad[2] = {0, k};
		y.t.d[last] = md;
		y = dec_tv(EMIT(r, "aten::constant_pad_nd.default", &y.t,
		    dec_a_val(x.v), dec_a_ints(r, pad, 2), dec_a_float(0)),
		    y.t);
	}
	TV padded = y;
	/* off >= 0: row i holds y[i] at column i + off; else column j holds
	 * y[j] at row j - off */
	y = dec_unsq(r, y, off >= 0 ? y.t.rank : y.t.rank - 1);
	Ty tm = y.t;
	tm.d[tm.rank - 1] = tm.d[tm.rank - 2] = md;
	y = dec_expand_from(r, y, &tm, &padded, 1);
	Ty ti = {ONNXC_DT_I64, 1, {md}};
	onnxc_arg end = md.e ? dec_a_val(dec_sym_size(r, padded, last))
	    : dec_a_int(md.n);
	TV a = dec_tv(EMIT(r, "aten::arange.default", &ti, end,
	    dec_a_dtype(r, ONNXC_DT_I64)), ti);
	TV col = dec_unsq(r, a, 0), row = dec_unsq(r, a, 1);
	TV on = dec_cs(r, "aten::eq.Scalar", dec_b(r, "aten::sub.Tensor", col,
	    row), (double)off);
	return dec_tv(EMIT(r, "aten::where.ScalarOther", &y.t, dec_a_val(on.v),
	    dec_a_val(y.v), dec_a_float(0)), y.t);
}

/* diag_embed(x, offset=0, dim1=-2, dim2=-1) */
int
dec_diag_embed(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	int64_t off, d1, d2;
	if (!x.v || !o.v || x.t.rank < 1 ||
	    !dec_arg_int(r, 1, "offset", 0, &off) ||
	    !dec_arg_int(r, 2, "dim1", -2, &d1) ||
	    !dec_arg_int(r, 3, "dim2", -1, &d2))
		return 0;
	int rk = o.t.rank;
	d1 = d1 < 0 ? d1 + rk : d1;
	d2 = d2 < 0 ? d2 + rk : d2;
	if (d1 < 0 || d2 < 0 || d1 >= rk || d2 >= rk || d1 == d2)
		return 0;
	TV y = dec_embed_diag(r, x, off, o.t.d[d1]);
	/* move the two new dims (rk-2, rk-1) to d1 and d2 */
	int64_t perm[MAXR];
	int src = 0;
	for (int i = 0; i < rk; i++)
		if (i == d1)
			perm[i] = rk - 2;
		else if (i == d2)
			perm[i] = rk - 1;
		else
			perm[i] = src++;
	Ty tp;
	dec_bind(r, 0, dec_permute(r, y.v, &y.t, perm, &tp));
	return 1;
}

/* diag(x, diagonal=0): a 1-d x on a diagonal of a matrix, or the
 * diagonal of a 2-d x */
int
dec_diag(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	int64_t off;
	if (!x.v || !o.v || !dec_arg_int(r, 1, "diagonal", 0, &off))
		return 0;
	/* a matrix's diagonal may have dynamic sizes (aten::diagonal) */
	if (x.t.rank == 1) {
		dec_bind(r, 0, dec_embed_diag(r, x, off, o.t.d[0]).v);
		return 1;
	}
	if (x.t.rank != 2)
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::diagonal.default", &o.t, dec_a_val(x.v),
	    dec_a_int(off)));
	return 1;
}

/* linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1) -> diagonal */
int
dec_linalg_diagonal(Rw *r)
{
	TV x = dec_in(r, 0, "A"), o = dec_out(r, 0);
	int64_t off, d1, d2;
	if (!x.v || !o.v || !dec_arg_int(r, 99, "offset", 0, &off) ||
	    !dec_arg_int(r, 99, "dim1", -2, &d1) ||
	    !dec_arg_int(r, 99, "dim2", -1, &d2))
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::diagonal.default", &o.t, dec_a_val(x.v),
	    dec_a_int(off), dec_a_int(d1), dec_a_int(d2)));
	return 1;
}

/* take_along_dim(x, idx, dim=None): gather along dim after broadcasting
 * the other dims of both; without dim, of the flattened x */
int
dec_take_along_dim(Rw *r)
{
	TV x = dec_in(r, 0, "self"), ix = dec_in(r, 1, "indices");
	TV o = dec_out(r, 0);
	onnxc_arg da;
	int64_t dim, m1 = -1;
	if (!x.v || !ix.v || !o.v || !dec_ty_static(&x.t) ||
	    !dec_ty_static(&o.t))
		return 0;
	if (!dec_arg(r, 2, "dim", &da)) {
		Ty f = x.t, fi = ix.t;
		f.rank = fi.rank = 1;
		f.d[0] = (onnxc_dim){-1, 0};
		int64_t n = 1, ni = 1;
		for (int i = 0; i < x.t.rank; i++)
			n *= x.t.d[i].n;
		for (int i = 0; i < ix.t.rank; i++)
			ni *= ix.t.d[i].n;
		f.d[0] = (onnxc_dim){n, 0};
		fi.d[0] = (onnxc_dim){ni, 0};
		onnxc_value xf = EMIT(r, "aten::reshape.default", &f,
		    dec_a_val(x.v), dec_a_ints(r, &m1, 1));
		onnxc_value xi = EMIT(r, "aten::reshape.default", &fi,
		    dec_a_val(ix.v), dec_a_ints(r, &m1, 1));
		dec_bind(r, 0, EMIT(r, "aten::gather.default", &o.t,
		    dec_a_val(xf), dec_a_int(0), dec_a_val(xi)));
		return 1;
	}
	if (!dec_arg_int(r, 2, "dim", 0, &dim) || x.t.rank != ix.t.rank ||
	    o.t.rank != x.t.rank || dim < -x.t.rank || dim >= x.t.rank)
		return 0;
	if (dim < 0)
		dim += x.t.rank;
	Ty tx = o.t;
	tx.dtype = x.t.dtype;
	tx.d[dim] = x.t.d[dim];
	Ty ti = o.t;
	ti.dtype = ix.t.dtype;
	TV xe = dec_expand(r, x, &tx), ie = dec_expand(r, ix, &ti);
	dec_bind(r, 0, EMIT(r, "aten::gather.default", &o.t, dec_a_val(xe.v),
	    dec_a_int(dim), dec_a_val(ie.v)));
	return 1;
}

/* rot90(x, k=1, dims=[0, 1]): k = 1 flips dims[1] then swaps the two,
 * 2 flips both, 3 flips dims[0] then swaps */
int
dec_rot90(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	int64_t k, dims[2] = {0, 1};
	if (!x.v || x.t.rank < 2 || !dec_arg_int(r, 1, "k", 1, &k))
		return 0;
	int n = dec_arg_ints(r, 2, "dims", dims, 2);
	if (n == -2 || (n >= 0 && n != 2))
		return 0;
	for (int i = 0; i < 2; i++) {
		if (dims[i] < -x.t.rank || dims[i] >= x.t.rank)
			return 0;
		dims[i] = dims[i] < 0 ? dims[i] + x.t.rank : dims[i];
	}
	if (dims[0] == dims[1])
		return 0;
	k = ((k % 4) + 4) % 4;
	if (k == 0) {
		dec_bind(r, 0, dec_u(r, "aten::clone.default", x).v);
		return 1;
	}
	if (k == 2) {
		dec_bind(r, 0, EMIT(r, "aten::flip.default", &x.t,
		    dec_a_val(x.v), dec_a_ints(r, dims, 2)));
		return 1;
	}
	TV f = dec_tv(EMIT(r, "aten::flip.default", &x.t, dec_a_val(x.v),
	    dec_a_ints(r, &dims[k == 1 ? 1 : 0], 1)), x.t);
	dec_bind(r, 0, dec_swap(r, f, (int)dims[0], (int)dims[1]).v);
	return 1;
}

/* channel_shuffle(x, groups): [N, C, ...] as [N, g, C/g, ...], the two
 * group dims swapped, viewed back */
int
dec_channel_shuffle(Rw *r)
{
	TV x = dec_in(r, 0, "self");
	int64_t g, c;
	if (!x.v || x.t.rank < 2 || x.t.rank >= MAXR ||
	    !dec_ty_static(&x.t) || !dec_arg_int(r, 1, "groups", 1, &g) ||
	    g < 1 || !dec_dim_static(&x.t.d[1], &c) || c % g)
		return 0;
	Ty t5 = x.t;
	t5.rank = x.t.rank + 1;
	t5.d[1] = (onnxc_dim){g, 0};
	t5.d[2] = (onnxc_dim){c / g, 0};
	for (int i = 2; i < x.t.rank; i++)
		t5.d[i + 1] = x.t.d[i];
	TV v = dec_tv(dec_view(r, x.v, &t5), t5);
	v = dec_swap(r, v, 1, 2);
	v = dec_u(r, "aten::clone.default", v);
	dec_bind(r, 0, dec_view(r, v.v, &x.t));
	return 1;
}

/* sum_to_size(x, size): x summed over the leading dims it has beyond
 * size and where size has 1, to the output's shape */
int
dec_sum_to_size(Rw *r)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	if (!x.v || !o.v || !dec_ty_static(&x.t) || !dec_ty_static(&o.t) ||
	    o.t.rank > x.t.rank)
		return 0;
	int64_t dims[MAXR];
	int n = 0, lead = x.t.rank - o.t.rank;
	for (int i = 0; i < x.t.rank; i++)
		if (i < lead || (o.t.d[i - lead].n == 1 && x.t.d[i].n != 1))
			dims[n++] = i;
	/* integers and bools sum in int64, as ATen's sum promotes them */
	x = dec_cast(r, x, o.t.dtype);
	if (n == 0) {
		dec_bind(r, 0, dec_u(r, "aten::clone.default", x).v);
		return 1;
	}
	TV s = dec_red(r, "aten::sum.dim_IntList", x, dims, n, 1);
	dec_bind(r, 0, dec_view(r, s.v, &o.t));
	return 1;
}

/* nansum(x, dim=None, keepdim=False, *, dtype=None): NaN counts as 0;
 * nanmean divides by the count of the others */
static int
nanred(Rw *r, int mean)
{
	TV x = dec_in(r, 0, "self"), o = dec_out(r, 0);
	int64_t dims[MAXR], keep;
	/* integers and bools hold no NaN: nansum is their sum, in the
	 * output's int64 (nanmean takes floating tensors only) */
	if (!x.v || !o.v || (!is_float_dt(x.t.dtype) && mean) ||
	    !dec_arg_int(r, 2, "keepdim", 0, &keep))
		return 0;
	int n = dec_arg_ints(r, 1, "dim", dims, MAXR);
	if (n == -2)
		return 0;
	if (n == 0)
		n = -1;
	TV nan = is_float_dt(x.t.dtype) ? dec_u(r, "aten::isnan.default", x) :
	    dec_tv(0, x.t);
	TV z = nan.v ? dec_sel_s(r, nan, 0, x) : x;
	z = dec_cast(r, z, o.t.dtype);
	TV s = dec_red(r, "aten::sum.dim_IntList", z, dims, n, (int)keep);
	if (mean) {
		TV c = dec_cast(r, dec_u(r, "aten::logical_not.default", nan),
		    o.t.dtype);
		c = dec_red(r, "aten::sum.dim_IntList", c, dims, n, (int)keep);
		s = dec_b(r, "aten::div.Tensor", s, c);
	}
	dec_bind(r, 0, s.v);
	return 1;
}

int dec_nansum(Rw *r) { return nanred(r, 0); }
int dec_nanmean(Rw *r) { return nanred(r, 1); }
