/* lower_complex.c - lowering rules for complex values as [.., 2] pairs
 * (lower_fft.h): the rows of family cplx (angle, imag, view_as_real,
 * view_as_complex, complex, polar), and the complex variants of views,
 * copies and arithmetic whose own rules see real tensors only.  A view
 * moves the logical dims and keeps the pair axis last. */
#include <math.h>
#include <string.h>

#include "lower_fft.h"

/* The logical rank of tensor arg i; -1 after reporting. */
static int
rank_of(Lower *L, int i, const char *kw)
{
	const Value *sv = lw_srcval(L, i, kw);
	if (!sv || sv->kind != VK_TENSOR || sv->rank < 0)
		return lw_fail(L, "argument %s must be a ranked tensor", kw);
	return sv->rank;
}

/* Complex arg 0 ("self"); its logical rank in *r.  0 after reporting. */
static ValId
self_cx(Lower *L, int *r)
{
	bool cx;
	*r = rank_of(L, 0, "self");
	ValId x = *r < 0 ? 0 : lwf_in(L, 0, "self", &cx);
	if (x && !cx) {
		lw_fail(L, "expected a complex input");
		return 0;
	}
	return x;
}

static int
same(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x)
		return -1;
	lwf_bind(L, 0, x);
	return 0;
}

static int
conj_(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x)
		return -1;
	lwf_bind(L, 0, lwf_conj(L, x));
	return 0;
}

static int
neg(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x)
		return -1;
	lwf_bind(L, 0, lw_op1(L, "Neg", x));
	return 0;
}

/* _neg_view: -x, of a real tensor too (the imaginary part of a conj) */
static int
neg_view(Lower *L)
{
	bool cx;
	ValId x = lwf_in(L, 0, "self", &cx);
	if (!x)
		return -1;
	if (cx)
		lwf_bind(L, 0, lw_op1(L, "Neg", x));
	else
		lw_bind(L, 0, lw_op1(L, "Neg", x));
	return 0;
}

static int
real(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x)
		return -1;
	lw_bind(L, 0, lwf_part(L, x, r, 0));
	return 0;
}

static int
imag(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x)
		return -1;
	lw_bind(L, 0, lwf_part(L, x, r, 1));
	return 0;
}

static int
abs_(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x)
		return -1;
	lw_bind(L, 0, lwf_abs(L, x, r));
	return 0;
}

/* angle: atan2(imag, real); of a real tensor 0, or pi where it is
 * negative (nan stays nan), in the output's float type */
static int
angle(Lower *L)
{
	bool cx;
	int r = rank_of(L, 0, "self");
	ValId x = r < 0 ? 0 : lwf_in(L, 0, "self", &cx);
	DType dt = lw_outdtype(L);
	if (!x)
		return -1;
	if (cx) {
		lw_bind(L, 0, lwf_atan2(L, lwf_part(L, x, r, 1), lwf_part(L, x,
		    r, 0)));
		return 0;
	}
	if (!ir_dtype_is_float(dt))
		return lw_fail(L, "angle of a real tensor is a float tensor");
	x = lw_cast(L, x, dt);
	ValId zero = lw_scalar(L, 0, dt);
	ValId in[3] = {lw_op2t(L, "Less", x, zero, DT_BOOL),
		lw_scalar(L, M_PI, dt), zero};
	ValId a = lw_typed(L, lw_emit(L, "Where", 3, in, 1), dt);
	ValId in2[3] = {lw_op1(L, "IsNaN", x), x, a};
	lw_settype(L, in2[0], DT_BOOL);
	lw_bind(L, 0, lw_typed(L, lw_emit(L, "Where", 3, in2, 1), dt));
	return 0;
}

/* view_as_real: the pair form is the view */
static int
view_as_real(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x)
		return -1;
	lw_bind(L, 0, x);
	return 0;
}

static int
view_as_complex(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	int64_t two;
	if (!sv || sv->rank < 1 || !lw_sdim(L, sv, -1, &two) || two != 2)
		return lw_fail(L, "tensor must have a last dimension of size 2");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	lwf_bind(L, 0, lw_cast(L, x, lwf_part_dt(lw_outdtype(L))));
	return 0;
}

/* complex(real, imag) and polar(abs, angle): the parts, broadcast to one
 * shape (the output's, of rank r), stacked last */
static ValId
stack2(Lower *L, ValId a, ValId b, int r)
{
	DType dt = lw_dtype(L, a);
	ValId shape = lw_op1(L, "Shape", lw_op2(L, "Add", a, b));
	lw_settype(L, shape, DT_I64);
	ValId in[2], x[2] = {a, b};
	int64_t ax = r;
	for (int k = 0; k < 2; k++) {
		ValId e[2] = {x[k], shape};
		in[k] = lw_axes_op(L, "Unsqueeze", lw_typed(L, lw_emit(L,
		    "Expand", 2, e, 1), dt), &ax, 1);
	}
	return lw_concat(L, in, 2, r, dt);
}

static int
complex_(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	ValId a = lw_operand(L, 0, "real", dt), b = lw_operand(L, 1, "imag",
	    dt);
	if (lw_failed(L) || lw_outval(L, 0)->rank < 0)
		return lw_fail(L, "needs ranked tensors");
	lwf_bind(L, 0, stack2(L, a, b, lw_outval(L, 0)->rank));
	return 0;
}

static int
polar(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	ValId a = lw_operand(L, 0, "abs", dt), t = lw_operand(L, 1, "angle",
	    dt);
	if (lw_failed(L) || lw_outval(L, 0)->rank < 0)
		return lw_fail(L, "needs ranked tensors");
	lwf_bind(L, 0, stack2(L, lw_op2(L, "Mul", a, lw_op1(L, "Cos", t)),
	    lw_op2(L, "Mul", a, lw_op1(L, "Sin", t)), lw_outval(L, 0)->rank));
	return 0;
}

/* _to_copy: complex to complex casts the parts, real to complex adds zero
 * imaginary parts, complex to real keeps the real part (as torch) */
static int
to_copy(Lower *L)
{
	bool cx;
	int r = rank_of(L, 0, "self");
	ValId x = r < 0 ? 0 : lwf_in(L, 0, "self", &cx);
	DType out = lw_outdtype(L), dt = lwf_part_dt(out);
	if (!x)
		return -1;
	if (lwf_is_cx(out))
		lwf_bind(L, 0, cx ? lw_cast(L, x, dt) : lwf_to_cx(L, x, r, dt));
	else
		lw_bind(L, 0, lw_cast(L, lwf_part(L, x, r, 0), out));
	return 0;
}

/* ------------------------------------------------------------- views */

static int
normdim(Lower *L, int64_t *d, int r)
{
	return lw_normdim(L, d, r);
}

/* slice(x, dim, start, end, step); the bounds may be SymInts
 * (freqs_cis[:seqlen] of a dynamic sequence) */
static int
slice(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	int64_t d = lw_int(L, 1, "dim", 0), step = lw_int(L, 4, "step", 1);
	if (!x || lw_failed(L) || normdim(L, &d, r) < 0)
		return -1;
	if (step <= 0)
		return lw_fail(L, "slice step must be positive");
	ValId st = lw_int1(L, 2, "start", 0), en = lw_int1(L, 3, "end",
	    INT64_MAX);
	if (!st || !en)
		return -1;
	lwf_bind(L, 0, lw_slice(L, x, st, en, &d, 1, step != 1 ?
	    lw_const_i64s(L, &step, 1) : 0));
	return 0;
}

static int
select_(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	int64_t d = lw_int(L, 1, "dim", 0), i = lw_int(L, 2, "index", 0);
	if (!x || lw_failed(L) || normdim(L, &d, r) < 0)
		return -1;
	ValId in[2] = {x, lw_scalar_i64(L, i)};
	NodeId n = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, n, "axis", d);
	lwf_bind(L, 0, lw_typed(L, n, lw_dtype(L, x)));
	return 0;
}

static int
permute(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	int64_t p[LW_MAXRANK + 1];
	int n = lw_ints(L, 1, "dims", p, LW_MAXRANK);
	if (!x || lw_failed(L))
		return -1;
	if (n != r)
		return lw_fail(L, "dims has %d entries for rank %d", n, r);
	for (int k = 0; k < n; k++)
		if (normdim(L, &p[k], r) < 0)
			return -1;
	p[r] = r;
	lwf_bind(L, 0, lw_transpose(L, x, p, r + 1));
	return 0;
}

static int
transpose(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	int64_t a = lw_int(L, 1, "dim0", 0), b = lw_int(L, 2, "dim1", 0);
	int64_t p[LW_MAXRANK + 1];
	if (!x || lw_failed(L) || normdim(L, &a, r) < 0 ||
	    normdim(L, &b, r) < 0)
		return -1;
	for (int k = 0; k <= r; k++)
		p[k] = k;
	p[a] = b, p[b] = a;
	lwf_bind(L, 0, lw_transpose(L, x, p, r + 1));
	return 0;
}

static int
unsqueeze(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	int64_t d = lw_int(L, 1, "dim", 0);
	if (!x || lw_failed(L) || normdim(L, &d, r + 1) < 0)
		return -1;
	lwf_bind(L, 0, lw_axes_op(L, "Unsqueeze", x, &d, 1));
	return 0;
}

/* squeeze.default/.dim/.dims: the dims of static size 1 among those
 * named (all dims when none are) */
static int
squeeze(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	const Value *sv = lw_srcval(L, 0, "self");
	int64_t d[LW_MAXRANK], ax[LW_MAXRANK], len;
	int nd = lw_ints(L, 1, "dim", d, LW_MAXRANK), n = 0;
	if (!x || lw_failed(L))
		return -1;
	if (nd < 0)
		for (nd = 0; nd < r; nd++)
			d[nd] = nd;
	for (int k = 0; k < nd; k++) {
		if (normdim(L, &d[k], r) < 0)
			return -1;
		if (!lw_sdim(L, sv, (int)d[k], &len))
			return lw_fail(L, "needs static sizes");
		if (len == 1)
			ax[n++] = d[k];
	}
	lwf_bind(L, 0, n ? lw_axes_op(L, "Squeeze", x, ax, n) : x);
	return 0;
}

/* constant_pad_nd(self, pad, value=0): pairs of pads from the last dim;
 * only a zero value, as a complex fill has no argument form here */
static int
pad(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	int64_t p[2 * LW_MAXRANK], onnx[2 * (LW_MAXRANK + 1)] = {0};
	if (x && lw_list_symbolic(L, 1, "pad")) {
		/* pads known at run time (irfft's n of a dynamic length in
		 * core ATen), the pair dim not padded */
		if (lw_float(L, 2, "value", 0))
			return lw_fail(L, "only a zero fill is supported for "
			    "complex tensors");
		ValId pv = lw_pads_dyn(L, 1, "pad", r, r + 1);
		if (!pv)
			return -1;
		ValId in[2] = {x, pv};
		lwf_bind(L, 0, lw_typed(L, lw_emit(L, "Pad", 2, in, 1),
		    lw_dtype(L, x)));
		return 0;
	}
	int n = lw_ints(L, 1, "pad", p, 2 * LW_MAXRANK);
	double v = lw_float(L, 2, "value", 0);
	if (!x || lw_failed(L))
		return -1;
	if (n < 0 || n % 2 || n / 2 > r)
		return lw_fail(L, "pad must have an even length of at most "
		    "twice the rank");
	if (v != 0)
		return lw_fail(L, "only a zero fill is supported for complex "
		    "tensors");
	for (int i = 0; i < n / 2; i++) {
		int d = r - 1 - i;
		onnx[d] = p[2 * i];
		onnx[r + 1 + d] = p[2 * i + 1];
	}
	ValId in[2] = {x, lw_const_i64s(L, onnx, 2 * (r + 1))};
	lwf_bind(L, 0, lw_typed(L, lw_emit(L, "Pad", 2, in, 1),
	    lw_dtype(L, x)));
	return 0;
}

static int
view(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	ValId shape = lw_shape_list(L, 1, "size");
	if (!x || lw_failed(L))
		return -1;
	ValId parts[2] = {shape, lw_i64v(L, 2)};
	lwf_bind(L, 0, lw_reshape(L, x, lw_concat_shape(L, parts, 2)));
	return 0;
}

static int
expand(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x || lw_failed(L))
		return -1;
	/* the sizes asked for (-1 keeps a dim), with the pair axis */
	ValId parts[2] = {lw_shape_list(L, 1, "size"), lw_i64v(L, 2)};
	if (!parts[0])
		return -1;
	/* Expand broadcasts: ones where -1 keeps the input's size */
	ValId one = lw_i64v(L, 1), neg = lw_i64v(L, -1);
	ValId in3[3] = {lw_op2t(L, "Equal", parts[0], neg, DT_BOOL), one,
		parts[0]};
	parts[0] = lw_typed(L, lw_emit(L, "Where", 3, in3, 1), DT_I64);
	ValId in[2] = {x, lw_concat_shape(L, parts, 2)};
	lwf_bind(L, 0, lw_typed(L, lw_emit(L, "Expand", 2, in, 1),
	    lw_dtype(L, x)));
	return 0;
}

static int
cat(Lower *L)
{
	LwTensorList tl;
	int n = lw_tensor_list(L, 0, "tensors", &tl);
	int64_t d = lw_int(L, 1, "dim", 0);
	DType dt = lwf_part_dt(lw_outdtype(L));
	int r = lw_outval(L, 0)->rank;
	if (n < 1 || lw_failed(L) || normdim(L, &d, r) < 0)
		return -1;
	ValId *p = lw_scratch(L, (size_t)n, sizeof *p);
	for (int k = 0; k < n; k++) {
		if (!lwf_is_cx((DType)tl.s[k]->dtype) || !tl.s[k]->def)
			return lw_fail(L, "expects complex tensors made in the "
			    "graph");
		p[k] = lw_cast(L, tl.v[k], dt);
	}
	lwf_bind(L, 0, lw_concat(L, p, n, d, dt));
	return 0;
}

/* -------------------------------------------------------- arithmetic */

/* arg i as a pair (complex) or as a real tensor with a trailing 1 axis,
 * so that it broadcasts against pairs; *cx says which.  A Python number
 * is a 0-d real. */
static ValId
operand(Lower *L, int i, const char *kw, DType dt, bool *cx)
{
	const Value *sv = lw_srcval(L, i, kw);
	*cx = false;
	if (!sv)
		return lw_operand(L, i, kw, dt);
	int r = rank_of(L, i, kw);
	ValId x = r < 0 ? 0 : lwf_in(L, i, kw, cx);
	if (!x)
		return 0;
	if (*cx)
		return lw_cast(L, x, dt);
	int64_t ax = r;
	return lw_axes_op(L, "Unsqueeze", lw_cast(L, x, dt), &ax, 1);
}

/* a * b of pairs: (ar br - ai bi, ar bi + ai br) */
static ValId
cmul(Lower *L, ValId a, ValId b, DType dt)
{
	ValId rev = lw_const_i64s(L, (int64_t[]){1, 0}, 2);
	/* b swapped: (bi, br) */
	ValId in[2] = {b, rev};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", -1);
	ValId bs = lw_typed(L, g, dt);
	/* a * (br, bi) = (ar br, ai bi); a * (bi, br) = (ar bi, ai br) */
	ValId p = lw_op2(L, "Mul", a, b), q = lw_op2(L, "Mul", a, bs);
	ValId pr = lw_slice_const(L, p, -1, 0, 1, 1);
	ValId pi = lw_slice_const(L, p, -1, 1, 2, 1);
	ValId qs = lw_op2(L, "Add", lw_slice_const(L, q, -1, 0, 1, 1),
	    lw_slice_const(L, q, -1, 1, 2, 1));
	ValId parts[2] = {lw_op2(L, "Sub", pr, pi), qs};
	return lw_concat(L, parts, 2, -1, dt);
}

static int
mul(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	bool ca, cb;
	ValId a = operand(L, 0, "self", dt, &ca), b = operand(L, 1, "other",
	    dt, &cb);
	if (!a || !b || lw_failed(L))
		return -1;
	if (!ca && !cb)
		return lw_fail(L, "expected a complex operand");
	lwf_bind(L, 0, ca && cb ? cmul(L, a, b, dt) : lw_op2(L, "Mul", a, b));
	return 0;
}

static int
div_(Lower *L)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	bool ca, cb;
	ValId a = operand(L, 0, "self", dt, &ca), b = operand(L, 1, "other",
	    dt, &cb);
	if (!a || !b || lw_failed(L))
		return -1;
	if (cb)
		return lw_fail(L, "division by a complex tensor is not "
		    "supported");
	if (!ca)
		return lw_fail(L, "expected a complex dividend");
	lwf_bind(L, 0, lw_op2(L, "Div", a, b));
	return 0;
}

/* add/sub(self, other, alpha=1): a real operand gets a zero imaginary
 * part */
static int
addsub(Lower *L, const char *op)
{
	DType dt = lwf_part_dt(lw_outdtype(L));
	bool ca, cb;
	ValId a = operand(L, 0, "self", dt, &ca), b = operand(L, 1, "other",
	    dt, &cb);
	double alpha = lw_float(L, 2, "alpha", 1);
	if (!a || !b || lw_failed(L))
		return -1;
	if (!ca && !cb)
		return lw_fail(L, "expected a complex operand");
	const Arg *al = lw_arg(L, 2, "alpha");
	if (al && al->kind != A_NONE && al->kind != A_INT &&
	    al->kind != A_FLOAT)
		return lw_fail(L, "alpha must be a real number");
	/* a real operand (..., 1) padded to (..., 2) with a zero */
	ValId *real = !ca ? &a : !cb ? &b : NULL;
	if (real) {
		/* a zero, not real * 0, which keeps nan and inf */
		ValId parts[2] = {*real, 0};
		ValId shape = lw_op1(L, "Shape", *real);
		lw_settype(L, shape, DT_I64);
		ValId in[2] = {lw_scalar(L, 0, dt), shape};
		parts[1] = lw_typed(L, lw_emit(L, "Expand", 2, in, 1), dt);
		*real = lw_concat(L, parts, 2, -1, dt);
	}
	lwf_bind(L, 0, lw_op2(L, op, a, lwf_scale(L, b, alpha)));
	return 0;
}

/* sum.dim_IntList / mean.dim (self, dim, keepdim=False, *, dtype):
 * both parts reduced over the logical dims (all when dim is empty) */
static int
reduce(Lower *L, bool mean)
{
	int r;
	ValId x = self_cx(L, &r);
	const Value *sv = lw_srcval(L, 0, "self");
	int64_t d[LW_MAXRANK], len;
	int nd = lw_ints(L, 1, "dim", d, LW_MAXRANK);
	bool keep = lw_bool(L, 2, "keepdim", false);
	DType dt = lwf_part_dt(lw_outdtype(L));
	if (!x || lw_failed(L))
		return -1;
	if (nd <= 0)
		for (nd = 0; nd < r; nd++)
			d[nd] = nd;
	double n = 1;
	for (int k = 0; k < nd; k++) {
		if (normdim(L, &d[k], r) < 0)
			return -1;
		if (mean && !lw_sdim(L, sv, (int)d[k], &len))
			return lw_fail(L, "mean needs static sizes");
		n *= mean ? (double)len : 1;
	}
	ValId in[2] = {lw_cast(L, x, dt), lw_const_i64s(L, d, nd)};
	NodeId rs = lw_emit(L, "ReduceSum", nd ? 2 : 1, in, 1);
	lw_attr_int(L, rs, "keepdims", keep);
	lwf_bind(L, 0, lwf_scale(L, lw_typed(L, rs, dt), 1 / n));
	return 0;
}

static int sum(Lower *L) { return reduce(L, false); }
static int mean(Lower *L) { return reduce(L, true); }

/* exp(a + bi) = e^a (cos b + i sin b) */
static int
exp_(Lower *L)
{
	int r;
	ValId x = self_cx(L, &r);
	if (!x)
		return -1;
	ValId a = lw_op1(L, "Exp", lwf_part(L, x, r, 0)), b = lwf_part(L, x,
	    r, 1);
	ValId p[2] = {lw_op2(L, "Mul", a, lw_op1(L, "Cos", b)),
		lw_op2(L, "Mul", a, lw_op1(L, "Sin", b))};
	int64_t ax = r;
	p[0] = lw_axes_op(L, "Unsqueeze", p[0], &ax, 1);
	p[1] = lw_axes_op(L, "Unsqueeze", p[1], &ax, 1);
	lwf_bind(L, 0, lw_concat(L, p, 2, r, lw_dtype(L, x)));
	return 0;
}

static int add(Lower *L) { return addsub(L, "Add"); }
static int sub(Lower *L) { return addsub(L, "Sub"); }

const LowerRule lw_rules_complex[] = {
	{"aten::clone.default", same},
	{"aten::alias.default", same},
	{"aten::detach.default", same},
	{"aten::lift_fresh_copy.default", same},
	{"aten::resolve_conj.default", same},
	{"aten::resolve_neg.default", same},
	{"aten::contiguous.default", same},
	{"aten::_conj.default", conj_},
	{"aten::conj.default", conj_},
	{"aten::conj_physical.default", conj_},
	{"aten::_conj_physical.default", conj_},
	{"aten::neg.default", neg},
	{"aten::real.default", real},
	{"aten::abs.default", abs_},
	{"aten::_to_copy.default", to_copy},
	{"aten::to.dtype", to_copy},
	{"aten::to.dtype_layout", to_copy},
	{"aten::slice.Tensor", slice},
	{"aten::select.int", select_},
	{"aten::permute.default", permute},
	{"aten::transpose.int", transpose},
	{"aten::unsqueeze.default", unsqueeze},
	{"aten::squeeze.default", squeeze},
	{"aten::squeeze.dim", squeeze},
	{"aten::squeeze.dims", squeeze},
	{"aten::constant_pad_nd.default", pad},
	{"aten::view.default", view},
	{"aten::reshape.default", view},
	{"aten::_unsafe_view.default", view},
	{"aten::expand.default", expand},
	{"aten::cat.default", cat},
	{"aten::mul.Tensor", mul},
	{"aten::mul.Scalar", mul},
	{"aten::div.Tensor", div_},
	{"aten::div.Scalar", div_},
	{"aten::add.Tensor", add},
	{"aten::sum.dim_IntList", sum},
	{"aten::mean.dim", mean},
	{"aten::exp.default", exp_},
	{"aten::sub.Tensor", sub},
	{NULL, NULL},
};

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_cplx LW_THIS
const LowerRule lw_rules_cplx[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
