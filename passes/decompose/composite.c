/* composite.c - composite-implicit ops of the training IR that core ATen
 * decomposes: broadcast_to, empty_permuted, _weight_norm(_interface),
 * histc. */
#include <stdbool.h>
#include <string.h>

#include "decompose.h"

/* broadcast_to(x, size) is expand(x, size) */
int
dec_broadcast_to(Rw *r)
{
	Ty to;
	if (dec_out_ty(r, 0, &to))
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::expand.default", &to,
	    dec_arg_copy(r, 0, "self"), dec_arg_copy(r, 1, "size")));
	return 1;
}

/* empty_permuted(size, physical_layout, dtype, ...): its values are
 * unspecified, its logical shape is size: zeros of that shape */
int
dec_empty_permuted(Rw *r)
{
	Ty to;
	if (dec_out_ty(r, 0, &to))
		return 0;
	onnxc_arg dt;
	int hasdt = dec_arg(r, 2, "dtype", &dt);
	onnxc_arg args[2] = {dec_arg_copy(r, 0, "size"),
	    dec_a_keyed(r, hasdt ? dt : (onnxc_arg){.kind = ONNXC_ARG_DTYPE,
	    .i = to.dtype}, "dtype")};
	dec_bind(r, 0, dec_emit(r, "aten::zeros.default", &to, 2, args));
	return 1;
}

/* The 2-norm of v over every dim but dim (kept, size 1); type *tn. */
static onnxc_value
norm_except_dim(Rw *r, onnxc_value v, const Ty *tv, int64_t dim, Ty *tn)
{
	int64_t dims[MAXR];
	int nd = 0;
	*tn = *tv;
	for (int i = 0; i < tv->rank; i++)
		if (i != dim) {
			dims[nd++] = i;
			tn->d[i] = (onnxc_dim){1, 0};
		}
	return EMIT(r, "aten::linalg_vector_norm.default", tn, dec_a_val(v),
	    dec_a_float(2.0), dec_a_ints(r, dims, nd), dec_a_bool(1));
}

/* _weight_norm(v, g, dim=0) -> v * (g / norm_except_dim(v, 2, dim));
 * _weight_norm_interface also returns the norm */
static int
weight_norm(Rw *r, int two)
{
	onnxc_value v = dec_arg_val(r, 0, "v"), g = dec_arg_val(r, 1, "g");
	int64_t dim;
	Ty tv, tg, tn;
	if (dec_ty_of(r, v, &tv) || dec_ty_of(r, g, &tg) || tv.rank < 1 ||
	    !dec_arg_int(r, 2, "dim", 0, &dim) || dim < -1 || dim >= tv.rank)
		return 0;
	if (dim == -1) {
		/* over the whole tensor */
		Ty ts = tv;
		for (int i = 0; i < tv.rank; i++)
			ts.d[i] = (onnxc_dim){1, 0};
		int64_t all[MAXR];
		for (int i = 0; i < tv.rank; i++)
			all[i] = i;
		onnxc_value n = EMIT(r, "aten::linalg_vector_norm.default", &ts,
		    dec_a_val(v), dec_a_float(2.0), dec_a_ints(r, all, tv.rank),
		    dec_a_bool(1));
		onnxc_value s = dec_binary(r, "aten::div.Tensor", g, n, &ts);
		dec_bind(r, 0, dec_binary(r, "aten::mul.Tensor", v, s, &tv));
		if (two)
			dec_bind(r, 1, n);
		return 1;
	}
	onnxc_value n = norm_except_dim(r, v, &tv, dim, &tn);
	onnxc_value s = dec_binary(r, "aten::div.Tensor", g, n, &tn);
	dec_bind(r, 0, dec_binary(r, "aten::mul.Tensor", v, s, &tv));
	if (two)
		dec_bind(r, 1, n);
	return 1;
}

int
dec_weight_norm(Rw *r)
{
	return weight_norm(r, 0);
}

int
dec_weight_norm_interface(Rw *r)
{
	return weight_norm(r, 1);
}

/* histc(x, bins=100, min=0, max=0): counts of x in bins equal-width bins
 * over [min, max] (the data's range when min == max); values outside it
 * are not counted, max falls in the last bin.  One comparison of each
 * element's bin with every bin: x flat [N], bin [N, 1] == arange(bins). */
int
dec_histc(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "self");
	int64_t bins;
	double lo, hi;
	Ty tx, to;
	if (dec_ty_of(r, x, &tx) || dec_out_ty(r, 0, &to) ||
	    !dec_arg_int(r, 1, "bins", 100, &bins) || bins < 1 ||
	    !dec_arg_float(r, 2, "min", 0, &lo) ||
	    !dec_arg_float(r, 3, "max", 0, &hi))
		return 0;
	Ty tf = tx, t1, tb, tnb, tcol;
	tf.rank = 1;
	tf.d[0] = (onnxc_dim){-1, 0};
	/* the element count, symbolic where a size is (the routing of a
	 * mixture-of-experts layer over a dynamic sequence) */
	bool dyn = false;
	{
		int64_t n = 1, d;
		onnxc_expr e = 0;
		for (int i = 0; i < tx.rank; i++)
			if (dec_dim_static(&tx.d[i], &d))
				n *= d;
			else
				e = e ? r->h->expr_op(r->ctx, ONNXC_E_MUL, e,
				    tx.d[i].e) : tx.d[i].e;
		if (e && n != 1)
			e = r->h->expr_op(r->ctx, ONNXC_E_MUL, e,
			    r->h->expr_int(r->ctx, n));
		if (e && ONNXC_HOST_HAS(r->h, expr_simplify))
			e = r->h->expr_simplify(r->ctx, e);
		tf.d[0] = e ? (onnxc_dim){0, e} : (onnxc_dim){n, 0};
		dyn = e != 0;
	}
	t1 = tf;
	t1.rank = 0;
	onnxc_value flat = !dyn ? dec_view(r, x, &tf) : EMIT(r,
	    "aten::flatten.using_ints", &tf, dec_a_val(x), dec_a_int(0),
	    dec_a_int(-1));
	onnxc_value vlo, vhi;
	if (lo == hi) {
		vlo = dec_unary(r, "aten::min.default", flat, &t1);
		vhi = dec_unary(r, "aten::max.default", flat, &t1);
		/* an empty range widens by one, as PyTorch does */
		onnxc_value same = dec_binary(r, "aten::eq.Tensor", vlo, vhi,
		    &(Ty){ONNXC_DT_BOOL, 0, {{0, 0}}});
		onnxc_value one = EMIT(r, "aten::_to_copy.default", &t1,
		    dec_a_val(same), dec_a_dtype(r, t1.dtype));
		vlo = dec_binary(r, "aten::sub.Tensor", vlo, one, &t1);
		vhi = dec_binary(r, "aten::add.Tensor", vhi, one, &t1);
	} else {
		vlo = dec_with_scalar(r, "aten::add.Tensor",
		    dec_with_scalar(r, "aten::mul.Tensor", flat, 0.0, &tf), lo,
		    &tf);
		vhi = dec_with_scalar(r, "aten::add.Tensor",
		    dec_with_scalar(r, "aten::mul.Tensor", flat, 0.0, &tf), hi,
		    &tf);
	}
	tb = dec_ty_dtype(tf, ONNXC_DT_BOOL);
	onnxc_value in = dec_binary(r, "aten::logical_and.default",
	    dec_binary(r, "aten::ge.Tensor", flat, vlo, &tb),
	    dec_binary(r, "aten::le.Tensor", flat, vhi, &tb), &tb);
	/* bin = floor((x - lo) * bins / (hi - lo)), max in the last bin */
	onnxc_value pos = dec_binary(r, "aten::div.Tensor",
	    dec_with_scalar(r, "aten::mul.Tensor",
	    dec_binary(r, "aten::sub.Tensor", flat, vlo, &tf), (double)bins,
	    &tf), dec_binary(r, "aten::sub.Tensor", vhi, vlo, &tf), &tf);
	Ty ti = dec_ty_dtype(tf, ONNXC_DT_I64);
	onnxc_value bin = EMIT(r, "aten::_to_copy.default", &ti,
	    dec_a_val(dec_unary(r, "aten::floor.default", pos, &tf)),
	    dec_a_dtype(r, ONNXC_DT_I64));
	bin = EMIT(r, "aten::clamp.default", &ti, dec_a_val(bin), dec_a_int(0),
	    dec_a_int(bins - 1));
	tcol = ti;
	tcol.rank = 2;
	tcol.d[1] = (onnxc_dim){1, 0};
	onnxc_value col = EMIT(r, "aten::unsqueeze.default", &tcol,
	    dec_a_val(bin), dec_a_int(1));
	Ty tr = dec_ty_dtype(tf, ONNXC_DT_I64);
	tr.d[0] = (onnxc_dim){bins, 0};
	onnxc_value range = EMIT(r, "aten::arange.default", &tr,
	    dec_a_int(bins), dec_a_dtype(r, ONNXC_DT_I64));
	tnb = dec_ty_dtype(tcol, ONNXC_DT_BOOL);
	tnb.d[1] = (onnxc_dim){bins, 0};
	onnxc_value hit = dec_binary(r, "aten::eq.Tensor", col, range, &tnb);
	Ty tbc = tb;
	tbc.rank = 2;
	tbc.d[1] = (onnxc_dim){1, 0};
	onnxc_value inc = EMIT(r, "aten::unsqueeze.default", &tbc,
	    dec_a_val(in), dec_a_int(1));
	hit = dec_binary(r, "aten::logical_and.default", hit, inc, &tnb);
	Ty tfl = dec_ty_dtype(tnb, to.dtype);
	onnxc_value cnt = EMIT(r, "aten::_to_copy.default", &tfl,
	    dec_a_val(hit), dec_a_dtype(r, to.dtype));
	int64_t zero = 0;
	dec_bind(r, 0, EMIT(r, "aten::sum.dim_IntList", &to, dec_a_val(cnt),
	    dec_a_ints(r, &zero, 1)));
	return 1;
}
