/* lower_fft_kit.c - complex values as [.., 2] float pairs: the helpers
 * the complex-aware rules share (lower_fft.h), and the dispatch that
 * sends every node touching a complex value to one of them. */
#include <math.h>
#include <string.h>

#include "lower_fft.h"

bool
lwf_is_cx(DType dt)
{
	return dt == DT_C64 || dt == DT_C128;
}

DType
lwf_part_dt(DType dt)
{
	return dt == DT_C64 ? DT_F32 : dt == DT_C128 ? DT_F64 : dt;
}

static bool
cx_val(const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	return p->kind == VK_TENSOR && lwf_is_cx((DType)p->dtype);
}

bool
lwf_touches_complex(const Graph *g, NodeId n)
{
	const Node *p = ir_nodep(g, n);
	for (uint32_t k = 0; k < p->nout; k++)
		if (cx_val(g, p->out + k))
			return true;
	for (uint32_t i = 0; i < p->nargs; i++) {
		const Arg *a = ir_arg(g, n, i);
		if (a->kind == A_VAL && cx_val(g, a->u.v))
			return true;
		if (a->kind != A_LIST && a->kind != A_TUPLE)
			continue;
		const Arg *it = ir_items(g, a);
		for (uint32_t j = 0; j < a->u.list.n; j++)
			if (it[j].kind == A_VAL && cx_val(g, it[j].u.v))
				return true;
	}
	return false;
}

LowerFn
lwf_complex_rule(Module *m, StrId op)
{
	const char *s = ir_str(m, op);
	const LowerRule *t[] = {lw_rules_complex, lw_rules_complex_ops,
		lw_rules_fft, lw_rules_fft_stft, lw_rules_cplx};
	for (size_t k = 0; k < sizeof t / sizeof *t; k++)
		for (const LowerRule *x = t[k]; x->op; x++)
			if (!strcmp(x->op, s))
				return x->fn;
	return NULL;
}

/* A complex weight with its bytes at hand: c64 data is (real, imag)
 * float pairs already, so the initializer is the same bytes typed as the
 * pair form (once: the ONNX value is retyped). */
static ValId
weight(Lower *L, ValId d, const char *kw, const Value *sv)
{
	Value *dv = d ? ir_val(L->dst, d) : NULL;
	if (!dv || !lwf_is_cx((DType)dv->dtype))
		return d;
	const Tensor *t = ir_tensorp(L->m, dv->init);
	if (!t || t->rank != sv->rank) {
		lw_fail(L, "complex weight %s has no data of its shape", kw);
		return 0;
	}
	DType pt = lwf_part_dt((DType)sv->dtype);
	int64_t *td = lw_scratch(L, (size_t)t->rank + 1, sizeof *td);
	Dim *vd = lw_scratch(L, (size_t)t->rank + 1, sizeof *vd);
	for (int32_t k = 0; k < t->rank; k++) {
		td[k] = t->dims[k];
		vd[k] = (Dim){t->dims[k], 0};
	}
	td[t->rank] = 2;
	vd[t->rank] = (Dim){2, 0};
	Tensor nt = *t;
	nt.dtype = (uint8_t)pt;
	nt.rank = t->rank + 1;
	nt.dims = td;
	/* ir_tensor may move the module's tensors, t among them */
	TensorId id = ir_tensor(L->m, &nt);
	dv = ir_val(L->dst, d);
	dv->init = id;
	ir_set_tensor(L->dst, d, pt, nt.rank, vd);
	return d;
}

ValId
lwf_item(Lower *L, ValId v, const Value *sv)
{
	if (!v || !lwf_is_cx((DType)sv->dtype) || sv->def)
		return v;
	if (sv->init)
		return weight(L, v, "of the list", sv);
	lw_fail(L, "complex graph inputs are not supported");
	return 0;
}

ValId
lwf_in(Lower *L, int i, const char *kw, bool *cx)
{
	const Value *sv = lw_srcval(L, i, kw);
	if (!sv || sv->kind != VK_TENSOR || sv->rank < 0) {
		lw_fail(L, "argument %s must be a ranked tensor", kw);
		return 0;
	}
	*cx = lwf_is_cx((DType)sv->dtype);
	if (*cx && !sv->def && sv->init)
		return weight(L, lw_in(L, i, kw), kw, sv);
	if (*cx && !sv->def) {
		/* ONNX Runtime has no complex kernels: the pair form is made
		 * inside the graph only */
		lw_fail(L, "complex (%s) graph inputs, and weights given "
		    "without their data, are not supported; pass torch.view_as_real(%s) and call "
		    "torch.view_as_complex inside the model",
		    sv->dtype == DT_C64 ? "c64" : "c128", kw);
		return 0;
	}
	return lw_in(L, i, kw);
}

static ValId
pair_const(Lower *L, double a, double b, DType dt)
{
	int64_t two = 2;
	if (dt == DT_F64) {
		double v[2] = {a, b};
		return lw_const(L, dt, 1, &two, v);
	}
	float v[2] = {(float)a, (float)b};
	return lw_const(L, DT_F32, 1, &two, v);
}

ValId
lwf_to_cx(Lower *L, ValId x, int r, DType dt)
{
	int64_t ax = r, pads[2 * (LW_MAXRANK + 1)] = {0};
	x = lw_axes_op(L, "Unsqueeze", lw_cast(L, x, dt), &ax, 1);
	pads[2 * r + 1] = 1; /* the end of the new last axis */
	ValId in[2] = {x, lw_const_i64s(L, pads, 2 * (r + 1))};
	return lw_typed(L, lw_emit(L, "Pad", 2, in, 1), dt);
}

void
lwf_bind(Lower *L, int k, ValId v)
{
	if ((uint32_t)k >= lw_node(L)->nout)
		return;   /* not read (lw_bind) */
	const Value *sv = lw_outval(L, k);
	lw_bind(L, k, v);
	if (!v || sv->kind != VK_TENSOR || !lwf_is_cx((DType)sv->dtype) ||
	    sv->rank < 0)
		return;
	ValId s = lw_node(L)->out + (uint32_t)k;
	Dim *d = lw_scratch(L, (size_t)sv->rank + 1, sizeof *d);
	if (sv->rank > 0)
		memcpy(d, ir_dims(L->src, s), (size_t)sv->rank * sizeof *d);
	d[sv->rank].n = 2;
	ir_set_tensor(L->dst, L->map[s], lwf_part_dt((DType)sv->dtype),
	    sv->rank + 1, d);
}

ValId
lwf_part(Lower *L, ValId x, int r, int p)
{
	ValId in[2] = {x, lw_scalar_i64(L, p)};
	NodeId n = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, n, "axis", r);
	return lw_typed(L, n, lw_dtype(L, x));
}

ValId
lwf_conj(Lower *L, ValId x)
{
	return lw_op2(L, "Mul", x, pair_const(L, 1, -1, lw_dtype(L, x)));
}

ValId
lwf_scale(Lower *L, ValId x, double s)
{
	if (s == 1)
		return x;
	return lw_op2(L, "Mul", x, lw_scalar(L, s, lw_dtype(L, x)));
}

ValId
lwf_abs(Lower *L, ValId x, int r)
{
	int64_t ax = r;
	ValId in[2] = {lw_op2(L, "Mul", x, x), lw_const_i64s(L, &ax, 1)};
	NodeId n = lw_emit(L, "ReduceSum", 2, in, 1);
	lw_attr_int(L, n, "keepdims", 0);
	return lw_op1(L, "Sqrt", lw_typed(L, n, lw_dtype(L, x)));
}

static ValId
where(Lower *L, ValId c, ValId a, ValId b)
{
	ValId in[3] = {c, a, b};
	return lw_typed(L, lw_emit(L, "Where", 3, in, 1), lw_dtype(L, a));
}

ValId
lwf_atan2(Lower *L, ValId y, ValId x)
{
	DType dt = lw_dtype(L, x);
	ValId zero = lw_scalar(L, 0, dt);
	ValId r = lw_op1(L, "Atan", lw_op2(L, "Div", y, x));
	/* y >= +0: a zero's sign is that of 1 / y */
	ValId pos = lw_op2t(L, "Or", lw_op2t(L, "Greater", y, zero, DT_BOOL),
	    lw_op2t(L, "And", lw_op2t(L, "Equal", y, zero, DT_BOOL),
	    lw_op2t(L, "Greater", lw_op2(L, "Div", lw_scalar(L, 1, dt), y),
	    zero, DT_BOOL), DT_BOOL), DT_BOOL);
	ValId turn = where(L, pos, lw_scalar(L, M_PI, dt), lw_scalar(L, -M_PI,
	    dt));
	r = where(L, lw_op2t(L, "Less", x, zero, DT_BOOL),
	    lw_op2(L, "Add", r, turn), r);
	/* atan2(0, 0) = 0, where y / x is nan */
	ValId origin = lw_op2t(L, "And", lw_op2t(L, "Equal", x, zero, DT_BOOL),
	    lw_op2t(L, "Equal", y, zero, DT_BOOL), DT_BOOL);
	return where(L, origin, zero, r);
}

ValId
lwf_dft(Lower *L, ValId x, int64_t axis, bool inverse, bool onesided,
    DType dt)
{
	NodeId n;
	if (L->opset >= 20) { /* axis became an input */
		ValId in[3] = {x, 0, lw_scalar_i64(L, axis)};
		n = lw_emit(L, "DFT", 3, in, 1);
	} else {
		n = lw_emit(L, "DFT", 1, &x, 1);
		lw_attr_int(L, n, "axis", axis);
	}
	if (inverse)
		lw_attr_int(L, n, "inverse", 1);
	if (onesided)
		lw_attr_int(L, n, "onesided", 1);
	return lw_typed(L, n, dt);
}

ValId
lwf_c2r(Lower *L, ValId x, int r, int64_t axis, int64_t n, DType dt)
{
	/* X[n-k] = conj(X[k]): the coefficients past n/2 are those before
	 * it, reversed and conjugated; imaginary parts of X[0] (and of
	 * X[n/2] for even n) drop out of the real part, as in pocketfft */
	ValId full = lw_slice_const(L, x, axis, 0, n / 2 + 1, 1);
	int64_t last = (n + 1) / 2 - 1;
	if (last >= 1) {
		ValId parts[2] = {full, lwf_conj(L, lw_slice_const(L, x, axis,
		    last, 0, -1))};
		full = lw_concat(L, parts, 2, axis, dt);
	}
	return lwf_part(L, lwf_dft(L, full, axis, true, false, dt), r, 0);
}

ValId
lwf_resize(Lower *L, ValId x, int R, int64_t axis, int64_t cur, int64_t want)
{
	if (want < cur)
		return lw_slice_const(L, x, axis, 0, want, 1);
	if (want == cur)
		return x;
	int64_t pads[2 * (LW_MAXRANK + 1)] = {0};
	pads[R + axis] = want - cur;
	ValId in[2] = {x, lw_const_i64s(L, pads, 2 * R)};
	return lw_typed(L, lw_emit(L, "Pad", 2, in, 1), lw_dtype(L, x));
}
