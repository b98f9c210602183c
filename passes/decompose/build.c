/* build.c - inside the decompose plugin: typed values for writing
 * decompositions as expressions.  Each builder emits one FX node and
 * computes its output type from its inputs (numpy broadcasting), so a
 * formula reads as nested calls instead of a type per line. */
#include <math.h>
#include <string.h>

#include "decompose.h"

static int
is_float(uint32_t dt)
{
	return dt == ONNXC_DT_F32 || dt == ONNXC_DT_F64 ||
	    dt == ONNXC_DT_F16 || dt == ONNXC_DT_BF16;
}

/* Argument pos/key as a typed value; .v == 0 when absent or untyped. */
TV
dec_in(Rw *r, int pos, const char *key)
{
	TV x = {dec_arg_val(r, pos, key), {0, 0, {{0, 0}}}};
	if (x.v && dec_ty_of(r, x.v, &x.t))
		x.v = 0;
	return x;
}

TV
dec_out(Rw *r, uint32_t k)
{
	TV x = {r->ni.out + k, {0, 0, {{0, 0}}}};
	if (dec_out_ty(r, k, &x.t))
		x.v = 0;
	return x;
}

TV
dec_tv(onnxc_value v, Ty t)
{
	TV x = {v, t};
	return x;
}

TV
dec_u(Rw *r, const char *op, TV x)
{
	return dec_tv(dec_unary(r, op, x.v, &x.t), x.t);
}

/* the element type of a op b: a float operand wins over an integer one */
static uint32_t
join_dtype(uint32_t a, uint32_t b)
{
	if (is_float(a) || !is_float(b))
		return a == ONNXC_DT_BOOL ? b : a;
	return b;
}

TV
dec_b(Rw *r, const char *op, TV a, TV b)
{
	Ty t = dec_ty_bcast(&a.t, &b.t, join_dtype(a.t.dtype, b.t.dtype));
	return dec_tv(dec_binary(r, op, a.v, b.v, &t), t);
}

TV
dec_c(Rw *r, const char *op, TV a, TV b)
{
	Ty t = dec_ty_bcast(&a.t, &b.t, ONNXC_DT_BOOL);
	return dec_tv(dec_binary(r, op, a.v, b.v, &t), t);
}

TV
dec_s(Rw *r, const char *op, TV x, double s)
{
	return dec_tv(dec_with_scalar(r, op, x.v, s, &x.t), x.t);
}

TV
dec_cs(Rw *r, const char *op, TV x, double s)
{
	Ty t = dec_ty_dtype(x.t, ONNXC_DT_BOOL);
	return dec_tv(dec_with_scalar(r, op, x.v, s, &t), t);
}

/* where(c, a, b) */
TV
dec_sel(Rw *r, TV c, TV a, TV b)
{
	Ty ab = dec_ty_bcast(&a.t, &b.t, join_dtype(a.t.dtype, b.t.dtype));
	Ty t = dec_ty_bcast(&c.t, &ab, ab.dtype);
	return dec_tv(EMIT(r, "aten::where.self", &t, dec_a_val(c.v),
	    dec_a_val(a.v), dec_a_val(b.v)), t);
}

/* where(c, a, x): a number where c holds */
TV
dec_sel_s(Rw *r, TV c, double a, TV x)
{
	Ty t = dec_ty_bcast(&c.t, &x.t, x.t.dtype);
	return dec_tv(EMIT(r, "aten::where.ScalarSelf", &t, dec_a_val(c.v),
	    dec_a_float(a), dec_a_val(x.v)), t);
}

TV
dec_cast(Rw *r, TV x, uint32_t dt)
{
	if (x.t.dtype == dt)
		return x;
	Ty t = dec_ty_dtype(x.t, dt);
	return dec_tv(EMIT(r, "aten::_to_copy.default", &t, dec_a_val(x.v),
	    dec_a_dtype(r, dt)), t);
}

/* op.dim_IntList-style reduction of x over dims[0..n) (n < 0: every
 * dim), keepdim keep: sum.dim_IntList, mean.dim, amax, amin */
TV
dec_red(Rw *r, const char *op, TV x, const int64_t *dims, int n, int keep)
{
	int64_t all[MAXR];
	int on[MAXR] = {0};
	if (n < 0) {
		for (int i = 0; i < x.t.rank; i++)
			all[i] = i;
		dims = all;
		n = x.t.rank;
	}
	/* a 0-d tensor takes dim 0 or -1 (as if of rank 1) and keeps its
	 * one value; a dim out of range is the checker's to report */
	int wrap = x.t.rank > 0 ? x.t.rank : 1;
	for (int i = 0; i < n; i++) {
		int64_t d = dims[i] < 0 ? dims[i] + wrap : dims[i];
		if (d >= 0 && d < x.t.rank)
			on[d] = 1;
	}
	Ty t = x.t;
	t.rank = 0;
	for (int i = 0; i < x.t.rank; i++)
		if (!on[i])
			t.d[t.rank++] = x.t.d[i];
		else if (keep)
			t.d[t.rank++] = (onnxc_dim){1, 0};
	return dec_tv(EMIT(r, op, &t, dec_a_val(x.v), dec_a_ints(r, dims, n),
	    dec_a_bool(keep)), t);
}

TV
dec_fin(Rw *r, int pos, const char *key)
{
	TV x = dec_in(r, pos, key), o = dec_out(r, 0);
	/* half precision computes in float32 (dec_bind casts back), as
	 * PyTorch's CPU kernels do */
	if (!x.v || !o.v || !dec_dt_float(o.t.dtype))
		x.v = 0;
	else
		x = dec_cast(r, x, o.t.dtype == ONNXC_DT_F64 ? ONNXC_DT_F64 :
		    ONNXC_DT_F32);
	return x;
}

/* a floating dtype (float16, bfloat16, float32, float64) */
int
dec_dt_float(uint32_t dt)
{
	return dt == ONNXC_DT_F32 || dt == ONNXC_DT_F64 ||
	    dt == ONNXC_DT_F16 || dt == ONNXC_DT_BF16;
}

double
dec_num_in(uint32_t dt, double v)
{
	int e, bits = dt == ONNXC_DT_F32 ? 24 : dt == ONNXC_DT_F16 ? 11 :
	    dt == ONNXC_DT_BF16 ? 8 : 0;
	if (!bits || v == 0 || !isfinite(v))
		return v;
	double m = frexp(v, &e);
	return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}

/* x, an integer or bool operand of a float result, in the output's
 * dtype, as PyTorch promotes it (trapezoid of ints, a loss of int
 * tensors); x itself otherwise */
TV
dec_as_out_float(Rw *r, TV x)
{
	TV o = dec_out(r, 0);
	uint32_t d = o.t.dtype, xd = x.t.dtype;
	int fo = d == ONNXC_DT_F32 || d == ONNXC_DT_F64 ||
	    d == ONNXC_DT_F16 || d == ONNXC_DT_BF16;
	int fx = xd == ONNXC_DT_F32 || xd == ONNXC_DT_F64 ||
	    xd == ONNXC_DT_F16 || xd == ONNXC_DT_BF16;
	return x.v && o.v && fo && !fx ? dec_cast(r, x, d) : x;
}

/* the arithmetic of formulas, one node each */
TV
dec_add(Rw *r, TV a, TV b)
{
	return dec_b(r, "aten::add.Tensor", a, b);
}

TV
dec_sub(Rw *r, TV a, TV b)
{
	return dec_b(r, "aten::sub.Tensor", a, b);
}

TV
dec_mul(Rw *r, TV a, TV b)
{
	return dec_b(r, "aten::mul.Tensor", a, b);
}

TV
dec_div(Rw *r, TV a, TV b)
{
	return dec_b(r, "aten::div.Tensor", a, b);
}

TV
dec_adds(Rw *r, TV a, double s)
{
	return dec_s(r, "aten::add.Tensor", a, s);
}

TV
dec_muls(Rw *r, TV a, double s)
{
	return dec_s(r, "aten::mul.Tensor", a, s);
}

/* s - a */
TV
dec_rsubs(Rw *r, TV a, double s)
{
	return dec_s(r, "aten::rsub.Scalar", a, s);
}

/* c[0] x^(n-1) + ... + c[n-1] by Horner's rule */
TV
dec_poly(Rw *r, TV x, const double *c, int n)
{
	TV p = dec_s(r, "aten::mul.Tensor", x, c[0]);
	for (int i = 1; i < n; i++) {
		p = dec_s(r, "aten::add.Tensor", p, c[i]);
		if (i + 1 < n)
			p = dec_b(r, "aten::mul.Tensor", p, x);
	}
	return p;
}

/* x with a dim of size 1 inserted at d (0..rank) */
TV
dec_unsq(Rw *r, TV x, int d)
{
	Ty t = x.t;
	for (int i = t.rank; i > d; i--)
		t.d[i] = t.d[i - 1];
	t.d[d] = (onnxc_dim){1, 0};
	t.rank++;
	return dec_tv(EMIT(r, "aten::unsqueeze.default", &t, dec_a_val(x.v),
	    dec_a_int(d)), t);
}

/* x without its dim d of size 1 (any other size symbolic, unlike a view) */
TV
dec_sq(Rw *r, TV x, int d)
{
	Ty t = x.t;
	for (int i = d; i + 1 < t.rank; i++)
		t.d[i] = t.d[i + 1];
	t.rank--;
	return dec_tv(EMIT(r, "aten::squeeze.dim", &t, dec_a_val(x.v),
	    dec_a_int(d)), t);
}

/* x[lo:hi] along dim, static bounds within x's static size there */
TV
dec_slice(Rw *r, TV x, int64_t dim, int64_t lo, int64_t hi)
{
	Ty t = x.t;
	t.d[dim] = (onnxc_dim){hi - lo, 0};
	return dec_tv(EMIT(r, "aten::slice.Tensor", &t, dec_a_val(x.v),
	    dec_a_int(dim), dec_a_int(lo), dec_a_int(hi)), t);
}

/* x with dims a and b swapped */
TV
dec_swap(Rw *r, TV x, int a, int b)
{
	Ty t = x.t;
	if (a < 0)
		a += t.rank;
	if (b < 0)
		b += t.rank;
	onnxc_dim s = t.d[a];
	t.d[a] = t.d[b];
	t.d[b] = s;
	return dec_tv(EMIT(r, "aten::transpose.int", &t, dec_a_val(x.v),
	    dec_a_int(a), dec_a_int(b)), t);
}

/* x broadcast to the dims of t (its dtype kept) */
TV
dec_expand(Rw *r, TV x, const Ty *t)
{
	return dec_expand_from(r, x, t, NULL, 0);
}

onnxc_value
dec_sym_size(Rw *r, TV src, int d)
{
	onnxc_value s = EMIT(r, "aten::sym_size.int", NULL, dec_a_val(src.v),
	    dec_a_int(d));
	if (!s || r->h->value_set_sym(r->ctx, r->g, s, ONNXC_VK_SYMINT,
	    src.t.d[d].e) != ONNXC_OK)
		r->bad = 1;
	return s;
}

TV
dec_expand_from(Rw *r, TV x, const Ty *t, const TV *srcs, int ns)
{
	int same = x.t.rank == t->rank;
	for (int i = 0; same && i < t->rank; i++)
		same = x.t.d[i].e == t->d[i].e && x.t.d[i].n == t->d[i].n;
	if (same)
		return x;
	Ty o = dec_ty_dtype(*t, x.t.dtype);
	onnxc_arg items[MAXR], list;
	for (int i = 0; i < t->rank; i++) {
		items[i] = t->d[i].e ? (onnxc_arg){.kind = ONNXC_ARG_INT,
		    .i = -1} : dec_a_int(t->d[i].n);
		/* a symbolic size stays as it is (-1) where x has that dim,
		 * else it is read from a source that has it */
		int xi = i - (t->rank - x.t.rank);
		if (!t->d[i].e || (xi >= 0 && x.t.d[xi].e == t->d[i].e))
			continue;
		int found = 0;
		for (int k = 0; k < ns && !found; k++)
			for (int j = 0; j < srcs[k].t.rank && !found; j++)
				if (srcs[k].t.d[j].e == t->d[i].e) {
					items[i] = dec_a_val(dec_sym_size(r,
					    srcs[k], j));
					found = 1;
				}
		if (!found) {
			r->bad = 1;
			return x;
		}
	}
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, items,
	    (uint32_t)t->rank, &list) != ONNXC_OK) {
		r->bad = 1;
		return x;
	}
	return dec_tv(EMIT(r, "aten::expand.default", &o, dec_a_val(x.v),
	    list), o);
}

/* P(x) / Q(x), the coefficients highest power first (Cephes' polevl
 * order): the rational approximations of special functions */
TV
dec_ratio(Rw *r, TV x, const double *p, int np, const double *q, int nq)
{
	return dec_div(r, dec_poly(r, x, p, np), dec_poly(r, x, q, nq));
}
