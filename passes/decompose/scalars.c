/* scalars.c - inside the decompose plugin: overloads whose operand is a
 * Python number (xlogy.Scalar_Other, bitwise_and.Scalar_Tensor, ...) as
 * their Tensor overload, and the factory composites eye, vander and
 * affine_grid_generator, which the training IR keeps.
 *
 * A number operand becomes a 0-d tensor (scalar_tensor) of the result's
 * dtype, or of the tensor operand's where the result is bool (isin,
 * bitwise ops of bools): a 0-d operand never widens the result, so the
 * Tensor overload computes what the Scalar one does. */
#include <string.h>

#include "decompose.h"

static const struct ScalarOp {
	const char *op, *target;
	int pos;   /* the number's position */
} scalar_ops[] = {
	{"aten::xlogy.Scalar_Self", "aten::xlogy.Tensor", 0},
	{"aten::xlogy.Scalar_Other", "aten::xlogy.Tensor", 1},
	{"aten::special_xlogy.self_scalar", "aten::xlogy.Tensor", 0},
	{"aten::special_xlogy.other_scalar", "aten::xlogy.Tensor", 1},
	{"aten::special_xlog1py.self_scalar", "aten::special_xlog1py.default",
	    0},
	{"aten::special_xlog1py.other_scalar", "aten::special_xlog1py.default",
	    1},
	{"aten::special_zeta.self_scalar", "aten::special_zeta.default", 0},
	{"aten::special_zeta.other_scalar", "aten::special_zeta.default", 1},
	{"aten::bitwise_and.Scalar_Tensor", "aten::bitwise_and.Tensor", 0},
	{"aten::bitwise_or.Scalar_Tensor", "aten::bitwise_or.Tensor", 0},
	{"aten::bitwise_xor.Scalar_Tensor", "aten::bitwise_xor.Tensor", 0},
	{"aten::isin.Tensor_Scalar", "aten::isin.Tensor_Tensor", 1},
	{"aten::isin.Scalar_Tensor", "aten::isin.Tensor_Tensor", 0},
};

int
dec_scalar_operand(Rw *r)
{
	const onnxc_host_api *h = r->h;
	const char *op = h->str(r->ctx, r->ni.op);
	const struct ScalarOp *s = NULL;
	for (size_t i = 0; i < sizeof scalar_ops / sizeof *scalar_ops; i++)
		if (!strcmp(scalar_ops[i].op, op))
			s = &scalar_ops[i];
	TV o = dec_out(r, 0);
	if (!s || !o.v || r->ni.nargs < 2 || r->ni.nargs > 8)
		return 0;
	onnxc_arg args[8], num;
	for (uint32_t i = 0; i < r->ni.nargs; i++)
		if (h->node_arg(r->ctx, r->g, r->n, i, &args[i]) != ONNXC_OK)
			return 0;
	num = args[s->pos];
	TV t = dec_in(r, 1 - s->pos, NULL);
	if (num.key || args[1 - s->pos].key || !t.v ||
	    (num.kind != ONNXC_ARG_INT && num.kind != ONNXC_ARG_FLOAT &&
	    num.kind != ONNXC_ARG_BOOL && num.kind != ONNXC_ARG_VALUE))
		return 0;
	uint32_t dt = o.t.dtype == ONNXC_DT_BOOL ? t.t.dtype : o.t.dtype;
	Ty t0 = {dt, 0, {{0, 0}}};
	args[s->pos] = dec_a_val(EMIT(r, "aten::scalar_tensor.default", &t0,
	    num, dec_a_dtype(r, dt)));
	dec_bind(r, 0, dec_emit(r, s->target, &o.t, (int)r->ni.nargs, args));
	return 1;
}

/* 0..d-1 of a dim d (a number or a symbolic size's argument a) */
static TV
iota_dim(Rw *r, onnxc_dim d, onnxc_arg a)
{
	Ty t = {ONNXC_DT_I64, 1, {d}};
	a.key = 0;
	return dec_tv(EMIT(r, "aten::arange.default", &t, a,
	    dec_a_dtype(r, ONNXC_DT_I64)), t);
}

/* eye(n, *, dtype...) and eye.m(n, m, ...): row index == column index */
int
dec_eye(Rw *r)
{
	TV o = dec_out(r, 0);
	onnxc_arg n, m;
	if (!o.v || o.t.rank != 2 || !dec_arg(r, 0, "n", &n))
		return 0;
	int two = strstr(r->h->str(r->ctx, r->ni.op), ".m") != NULL;
	if (two && !dec_arg(r, 1, "m", &m))
		return 0;
	TV row = dec_unsq(r, iota_dim(r, o.t.d[0], n), 1);
	TV col = iota_dim(r, o.t.d[1], two ? m : n);
	TV on = dec_c(r, "aten::eq.Tensor", row, col);
	dec_bind(r, 0, dec_cast(r, on, o.t.dtype).v);
	return 1;
}

/* vander(x, N=None, increasing=False), as ATen's kernel: column 0 of 1s,
 * then the running product of x (integers in int64), flipped unless
 * increasing */
int
dec_vander(Rw *r)
{
	TV x = dec_in(r, 0, "x"), o = dec_out(r, 0);
	int64_t n, inc;
	if (!x.v || !o.v || x.t.rank != 1 || o.t.rank != 2 ||
	    !dec_dim_static(&o.t.d[1], &n) || n < 1 ||
	    !dec_arg_int(r, 2, "increasing", 0, &inc))
		return 0;
	TV col = dec_unsq(r, dec_cast(r, x, o.t.dtype), 1);  /* [L, 1] */
	TV y = dec_u(r, "aten::ones_like.default", col);
	if (n > 1) {
		Ty te = col.t;
		te.d[1] = (onnxc_dim){n - 1, 0};
		TV e = dec_expand(r, col, &te);
		TV p = dec_tv(EMIT(r, "aten::cumprod.default", &te,
		    dec_a_val(e.v), dec_a_int(1)), te);
		onnxc_arg parts[2] = {dec_a_val(y.v), dec_a_val(p.v)}, l;
		if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, parts, 2,
		    &l) != ONNXC_OK)
			return 0;
		y = dec_tv(EMIT(r, "aten::cat.default", &o.t, l, dec_a_int(1)),
		    o.t);
	}
	if (!inc) {
		int64_t d = 1;
		y = dec_tv(EMIT(r, "aten::flip.default", &o.t, dec_a_val(y.v),
		    dec_a_ints(r, &d, 1)), o.t);
	}
	dec_bind(r, 0, y.v);
	return 1;
}

/* ATen's linspace_from_neg_one: [steps] from -1 to 1, scaled by
 * (steps - 1) / steps unless align_corners; 0 for one step */
static TV
from_neg_one(Rw *r, int64_t steps, int align, uint32_t dt)
{
	Ty t = {dt, 1, {{steps, 0}}};
	if (steps <= 1)
		return dec_tv(EMIT(r, "aten::zeros.default", &t,
		    dec_a_ints(r, &steps, 1), dec_a_dtype(r, dt)), t);
	TV v = dec_tv(EMIT(r, "aten::linspace.default", &t, dec_a_float(-1),
	    dec_a_float(1), dec_a_int(steps), dec_a_dtype(r, dt)), t);
	if (!align)
		v = dec_s(r, "aten::div.Tensor", dec_s(r, "aten::mul.Tensor", v,
		    (double)(steps - 1)), (double)steps);
	return v;
}

/* affine_grid_generator(theta, size, align_corners): the base grid of
 * (x, y[, z], 1) at every output point (x along the last dim), times
 * theta^T: [N, H*W, 3] @ [N, 3, 2] as ATen's kernel computes it.  The
 * spatial sizes are read from the output, static; the batch may not be */
int
dec_affine_grid(Rw *r)
{
	TV th = dec_in(r, 0, "theta"), o = dec_out(r, 0);
	int64_t sz[5], align;
	if (!th.v || !o.v || (o.t.rank != 4 && o.t.rank != 5) ||
	    th.t.rank != 3 || !dec_arg_int(r, 2, "align_corners", 0, &align))
		return 0;
	int sp = o.t.rank - 2;  /* spatial dims: 2 or 3 */
	uint32_t dt = th.t.dtype;
	Ty tg = {dt, sp, {{0, 0}}};   /* [D,] H, W */
	int64_t pts = 1;
	for (int k = 0; k < sp; k++) {
		const onnxc_dim *d = &o.t.d[1 + k];
		if (d->e || d->n < 0 || (d->n && pts > INT64_MAX / d->n))
			return 0;
		sz[2 + k] = d->n;
		tg.d[k] = *d;
		pts *= d->n;
	}
	/* coordinate k of the grid: along spatial dim sp-1-k, broadcast */
	onnxc_arg parts[4], l;
	for (int k = 0; k <= sp; k++) {
		TV c;
		if (k == sp) {
			c = dec_tv(EMIT(r, "aten::ones.default", &tg,
			    dec_a_ints(r, sz + 2, sp), dec_a_dtype(r, dt)), tg);
		} else {
			int axis = sp - 1 - k;
			c = from_neg_one(r, sz[2 + axis], (int)align, dt);
			for (int j = axis + 1; j < sp; j++)
				c = dec_unsq(r, c, c.t.rank);
			c = dec_expand(r, c, &tg);
		}
		parts[k] = dec_a_val(c.v);
	}
	Ty tb = tg;
	tb.rank = sp + 1;
	tb.d[sp] = (onnxc_dim){sp + 1, 0};
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, parts,
	    (uint32_t)sp + 1, &l) != ONNXC_OK)
		return 0;
	TV base = dec_tv(EMIT(r, "aten::stack.default", &tb, l,
	    dec_a_int(-1)), tb);
	Ty tf = {dt, 2, {{pts, 0}, {sp + 1, 0}}};
	base = dec_tv(dec_view(r, base.v, &tf), tf);
	TV tt = dec_swap(r, th, 1, 2);     /* [N, sp+1, sp] */
	Ty tm = {dt, 3, {th.t.d[0], {pts, 0}, {sp, 0}}};
	TV g = dec_tv(dec_binary(r, "aten::matmul.default", base.v, tt.v, &tm),
	    tm);
	dec_bind(r, 0, dec_view(r, g.v, &o.t));
	return 1;
}
