/* lower_nn.c - lowering rules for neural-network ops: convolution and
 * matrix products here; normalization in lower_nn_norm.c, pooling and
 * resampling in lower_nn_pool.c, attention, embedding and dropout in
 * lower_nn_attn.c, the helpers they share in lower_nn.h.
 *
 * ONNX Runtime's CPU kernels for most of these ops take float only, while
 * PyTorch's CPU kernels for f16/bf16 accumulate in float and round once;
 * so reduced-precision inputs are computed in f32 and the result is cast
 * back to the dtype the FX graph annotates. */
#include <math.h>
#include <string.h>

#include "lower_nn.h"

/* ---------------------------------------------------------------- helpers */

/* Matrix products keep f64 and integers (ORT's MatMul has them). */
ValId
lwn_mm_work(Lower *L, ValId v)
{
	DType dt = v ? lw_dtype(L, v) : DT_UNDEF;
	if (dt == DT_F16 || dt == DT_BF16)
		return lw_cast(L, v, DT_F32);
	return v;
}

/* Conv, pooling, normalization and Resize: ORT's CPU kernels are float
 * only, so every floating type is computed as f32. */
ValId
lwn_f32(Lower *L, ValId v)
{
	if (v && ir_dtype_is_float(lw_dtype(L, v)))
		return lw_cast(L, v, DT_F32);
	return v;
}

bool
lwn_used(Lower *L, int k)
{
	if ((uint32_t)k >= lw_node(L)->nout)
		return false;
	return lw_outval(L, k)->kind != VK_UNKNOWN;
}

/* Bind FX output k to v cast to its annotated dtype. */
void
lwn_bind_out(Lower *L, int k, ValId v)
{
	if (!v || (uint32_t)k >= lw_node(L)->nout)
		return;
	const Value *o = lw_outval(L, k);
	if (o->kind == VK_TENSOR && o->dtype)
		v = lw_cast(L, v, (DType)o->dtype);
	lw_bind(L, k, v);
}

/* An optional tensor argument: 0 when absent or None; *err set when it is
 * present but cannot be used. */
ValId
lwn_opt_in(Lower *L, int i, const char *kw, bool *err)
{
	if (!lw_has(L, i, kw))
		return 0;
	ValId v = lw_in(L, i, kw);
	if (!v)
		*err = true;
	return v;
}

ValId
lwn_settyped(Lower *L, NodeId n, int k, DType dt)
{
	ValId r = lw_res(L, n, k);
	lw_settype(L, r, dt);
	return r;
}

/* Shape(x)[start:end]; end == INT64_MAX for "to the end". */
ValId
lwn_shape_of(Lower *L, ValId x, int64_t start, int64_t end)
{
	NodeId n = lw_emit(L, "Shape", 1, &x, 1);
	if (start)
		lw_attr_int(L, n, "start", start);
	if (end != INT64_MAX)
		lw_attr_int(L, n, "end", end);
	return lwn_settyped(L, n, 0, DT_I64);
}

/* Reductions take axes as an attribute before opset 18, as an input from
 * 18 on (ReduceSum from 13). */
ValId
lwn_reduce(Lower *L, const char *op, ValId x, const int64_t *axes, int n,
    bool keep)
{
	NodeId nd;
	if (L->opset >= 18 || strcmp(op, "ReduceSum") == 0) {
		ValId in[2] = {x, n ? lw_const_i64s(L, axes, n) : 0};
		nd = lw_emit(L, op, n ? 2 : 1, in, 1);
	} else {
		nd = lw_emit(L, op, 1, &x, 1);
		if (n)
			lw_attr_ints(L, nd, "axes", axes, n);
	}
	lw_attr_int(L, nd, "keepdims", keep);
	return lwn_settyped(L, nd, 0, lw_dtype(L, x));
}

ValId
lwn_reshape(Lower *L, ValId x, const int64_t *dims, int n)
{
	return lw_op2(L, "Reshape", x, lw_const_i64s(L, dims, n));
}

ValId
lwn_unsqueeze(Lower *L, ValId x, int64_t axis)
{
	return lw_op2(L, "Unsqueeze", x, lw_const_i64s(L, &axis, 1));
}

ValId
lwn_squeeze(Lower *L, ValId x, int64_t axis)
{
	return lw_op2(L, "Squeeze", x, lw_const_i64s(L, &axis, 1));
}

ValId
lwn_transpose(Lower *L, ValId x, const int64_t *perm, int n)
{
	NodeId nd = lw_emit(L, "Transpose", 1, &x, 1);
	if (perm)
		lw_attr_ints(L, nd, "perm", perm, n);
	return lwn_settyped(L, nd, 0, lw_dtype(L, x));
}

/* A tensor of the given runtime shape filled with v. */
ValId
lwn_fill(Lower *L, ValId shape, double v, DType dt)
{
	return lw_op2(L, "Expand", lw_scalar(L, v, dt), shape);
}

/* A per-channel vector [C] as [C, 1, ..., 1] for a rank-r NC... tensor. */
ValId
lwn_per_channel(Lower *L, ValId v, int rank)
{
	int64_t dims[8] = {-1, 1, 1, 1, 1, 1, 1, 1};
	if (rank - 1 > 8)
		BUG("rank %d", rank);
	return lwn_reshape(L, v, dims, rank - 1);
}

/* Spatial parameter list i: one element stands for every dimension
 * (int[2] accepts an int).  Returns 1 when set, 0 when absent or empty
 * (out untouched: the caller fills defaults first), -1 on error. */
int
lwn_spatial(Lower *L, int i, const char *kw, int nd, int64_t *out)
{
	int64_t v[8];
	if (!lw_has(L, i, kw))
		return 0;
	int n = lw_ints(L, i, kw, v, 8);
	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	if (n != 1 && n != nd)
		return lw_fail(L, "'%s' has %d elements for %d spatial "
		    "dimensions", kw, n, nd);
	for (int k = 0; k < nd; k++)
		out[k] = v[n == 1 ? 0 : k];
	return 1;
}

/* A list of Python floats (scale factors): its length, or -1 when absent;
 * -2 after an error. */
int
lwn_floats(Lower *L, int i, const char *kw, double *out, int cap)
{
	const Arg *a = lw_arg(L, i, kw);
	if (!a || a->kind == A_NONE)
		return -1;
	if (a->kind != A_LIST && a->kind != A_TUPLE) {
		lw_fail(L, "'%s' must be a list of numbers", kw);
		return -2;
	}
	const Arg *it = ir_items(L->src, a);
	if ((int)a->u.list.n > cap) {
		lw_fail(L, "'%s' has too many elements", kw);
		return -2;
	}
	for (uint32_t k = 0; k < a->u.list.n; k++) {
		if (it[k].kind == A_FLOAT)
			out[k] = it[k].u.f;
		else if (it[k].kind == A_INT)
			out[k] = (double)it[k].u.i;
		else {
			lw_fail(L, "element %u of '%s' must be a constant "
			    "number", k, kw);
			return -2;
		}
	}
	return (int)a->u.list.n;
}

/* ------------------------------------------------------------ convolution */

typedef struct Conv {
	int64_t stride[MAXSP], pad[MAXSP], dil[MAXSP], outpad[MAXSP];
	int64_t groups;
	bool transposed;
	bool same; /* padding='same' */
} Conv;

/* Where a conv overload keeps its arguments; -1: not in this overload. */
typedef struct ConvArgs {
	int stride, pad, dil, transposed, outpad, groups;
	bool transposed_fixed;
} ConvArgs;

/* An int64 convolution, exact (lower_nn_intwin.c); static sizes. */
static int
conv_int(Lower *L, const Conv *c, const int64_t *pads, int nd, bool unb)
{
	const Value *xv = lw_srcval(L, 0, "input"),
		    *wv = lw_srcval(L, 1, "weight");
	IntWin W = {.nd = nd};
	int64_t wd[2 + MAXSP];
	for (int k = 0; k < nd + 2; k++)
		if (!lw_dim_static(wv, L->src, k, &wd[k]) || (k >= 2 &&
		    !lw_dim_static(xv, L->src, xv->rank - nd + k - 2,
		    &W.in[k - 2])))
			return lw_fail(L, "an int64 convolution needs static "
			    "sizes");
	for (int k = 0; k < nd; k++) {
		W.k[k] = wd[2 + k];
		W.s[k] = c->stride[k];
		W.d[k] = c->dil[k];
		W.pads[k] = pads[k];
		W.pads[nd + k] = pads[nd + k];
	}
	bool err = false;
	ValId x = lw_cast(L, lw_in(L, 0, "input"), DT_I64),
	      w = lw_cast(L, lw_in(L, 1, "weight"), DT_I64),
	      b = lwn_opt_in(L, 2, "bias", &err);
	if (!x || !w || err || lw_failed(L))
		return -1;
	if (b)
		b = lw_cast(L, b, DT_I64);
	if (unb)
		x = lwn_unsqueeze(L, x, 0);
	ValId y = lwn_conv_int(L, &W, x, w, wd, b, c->groups, c->transposed,
	    c->outpad);
	if (!y)
		return -1;
	if (unb)
		y = lwn_squeeze(L, y, 0);
	lwn_bind_out(L, 0, y);
	return 0;
}

static int
conv(Lower *L, const ConvArgs *ca)
{
	const Value *xv = lw_srcval(L, 0, "input"),
		    *wv = lw_srcval(L, 1, "weight");
	if (!xv || !wv || xv->rank < 0 || wv->rank < 0)
		return lw_fail(L, "input and weight must be ranked tensors");
	int nd = wv->rank - 2;
	if (nd < 1 || nd > MAXSP)
		return lw_fail(L, "weight of rank %d: only 1d, 2d and 3d "
		    "convolutions are supported", wv->rank);
	bool unbatched = xv->rank == nd + 1;
	if (!unbatched && xv->rank != nd + 2)
		return lw_fail(L, "input of rank %d for a %dd convolution",
		    xv->rank, nd);
	Conv c = {.groups = 1, .transposed = ca->transposed_fixed};
	for (int k = 0; k < nd; k++) {
		c.stride[k] = c.dil[k] = 1;
		c.pad[k] = c.outpad[k] = 0;
	}
	if (lwn_spatial(L, ca->stride, "stride", nd, c.stride) < 0 ||
	    lwn_spatial(L, ca->dil, "dilation", nd, c.dil) < 0)
		return -1;
	const Arg *pa = lw_arg(L, ca->pad, "padding");
	if (pa && pa->kind == A_STR) {
		const char *s = ir_str(L->m, pa->u.s);
		if (strcmp(s, "same") == 0)
			c.same = true;
		else if (strcmp(s, "valid") != 0)
			return lw_fail(L, "unknown padding mode '%s'", s);
	} else if (lwn_spatial(L, ca->pad, "padding", nd, c.pad) < 0) {
		return -1;
	}
	if (ca->transposed >= 0)
		c.transposed = lw_bool(L, ca->transposed, "transposed", false);
	/* output_padding known at run time only (output_size= of a dynamic
	 * size): computed for the most it may be, max(stride, dilation) - 1,
	 * then cut to what it is; the rows it adds are the last ones */
	ValId dynop = 0;
	int64_t opmax[MAXSP];
	if (ca->outpad >= 0 && lw_list_symbolic(L, ca->outpad,
	    "output_padding")) {
		dynop = lw_shape_list(L, ca->outpad, "output_padding");
		const Arg *oa = lw_arg(L, ca->outpad, "output_padding");
		if (!dynop || oa->u.list.n != (uint32_t)nd)
			return lw_fail(L, "'output_padding' must have %d "
			    "elements", nd);
		for (int k = 0; k < nd; k++)
			opmax[k] = c.outpad[k] = (c.stride[k] > c.dil[k]
			    ? c.stride[k] : c.dil[k]) - 1;
	} else if (ca->outpad >= 0 && lwn_spatial(L, ca->outpad,
	    "output_padding", nd, c.outpad) < 0) {
		return -1;
	}
	if (ca->groups >= 0)
		c.groups = lw_int(L, ca->groups, "groups", 1);

	int64_t pads[2 * MAXSP];
	for (int k = 0; k < nd; k++) {
		pads[k] = pads[k + nd] = c.pad[k];
		if (!c.same)
			continue;
		/* torch pads 'same' with the odd element on the right */
		int64_t ks;
		if (!lw_dim_static(wv, L->src, k + 2, &ks))
			return lw_fail(L, "padding='same' needs a static "
			    "kernel size");
		int64_t total = c.dil[k] * (ks - 1);
		pads[k] = total / 2;
		pads[k + nd] = total - total / 2;
	}
	/* an integer convolution would be a model ONNX Runtime refuses to
	 * load; in float its sums are exact only below 2^24 */
	const Value *iv = lw_srcval(L, 0, "input");
	if (iv && iv->dtype == DT_I64 && dynop)
		return lw_fail(L, "int64 transposed convolution with an "
		    "output_padding known at run time only is not supported");
	if (iv && iv->dtype == DT_I64)
		return conv_int(L, &c, pads, nd, unbatched);
	if (iv && !ir_dtype_is_float((DType)iv->dtype))
		return lw_fail(L, "convolution of %s tensors: ONNX Runtime's Conv "
		    "takes floating types only (cast the input and weight to "
		    "float)", ir_dtype_name((DType)iv->dtype));
	bool err = false;
	ValId x = lwn_f32(L, lw_in(L, 0, "input")), w = lwn_f32(L, lw_in(L, 1,
	    "weight")), b = lwn_f32(L, lwn_opt_in(L, 2, "bias", &err));
	if (!x || !w || err)
		return -1;
	if (unbatched)
		x = lwn_unsqueeze(L, x, 0);
	/* PyTorch allows output_padding below max(stride, dilation), ONNX
	 * Runtime only below the stride: then the extra rows come from
	 * smaller end pads, and where they run past the full output, from
	 * zeros padded after it, with the bias added last */
	int64_t extra[2 * (MAXSP + 2)] = {0};
	bool big = false, grow = false;
	for (int k = 0; c.transposed && k < nd; k++)
		big |= c.outpad[k] >= c.stride[k];
	for (int k = 0; big && k < nd; k++) {
		pads[k + nd] -= c.outpad[k];
		c.outpad[k] = 0;
		if (pads[k + nd] < 0) {
			extra[nd + 2 + 2 + k] = -pads[k + nd];
			pads[k + nd] = 0;
			grow = true;
		}
	}
	ValId in[3] = {x, w, grow ? 0 : b};
	NodeId n = lw_emit(L, c.transposed ? "ConvTranspose" : "Conv",
	    in[2] ? 3 : 2, in, 1);
	lw_attr_ints(L, n, "strides", c.stride, nd);
	lw_attr_ints(L, n, "pads", pads, 2 * nd);
	lw_attr_ints(L, n, "dilations", c.dil, nd);
	lw_attr_int(L, n, "group", c.groups);
	if (c.transposed)
		lw_attr_ints(L, n, "output_padding", c.outpad, nd);
	ValId y = lwn_settyped(L, n, 0, DT_F32);
	if (grow) {
		y = lw_op2(L, "Pad", y, lw_const_i64s(L, extra,
		    2 * (nd + 2)));
		if (b)
			y = lw_op2(L, "Add", y, lwn_per_channel(L, b, nd + 2));
	}
	if (dynop) {
		int64_t axes[MAXSP], zeros[MAXSP] = {0};
		for (int k = 0; k < nd; k++)
			axes[k] = 2 + k;
		ValId ends = lw_op2(L, "Add", lw_op2(L, "Sub", lwn_shape_of(L,
		    y, 2, 2 + nd), lw_const_i64s(L, opmax, nd)), dynop);
		y = lw_slice(L, y, lw_const_i64s(L, zeros, nd), ends, axes, nd,
		    0);
	}
	if (unbatched)
		y = lwn_squeeze(L, y, 0);
	lwn_bind_out(L, 0, y);
	return 0;
}

/* convolution(input, weight, bias?, stride, padding, dilation, transposed,
 * output_padding, groups); _convolution adds backend flags after these */
static int
convolution(Lower *L)
{
	return conv(L, &(ConvArgs){3, 4, 5, 6, 7, 8, false});
}

/* conv{1,2,3}d(input, weight, bias=None, stride=1, padding=0, dilation=1,
 * groups=1); the .padding overload has padding as 'same'/'valid' */
static int
conv_nd(Lower *L)
{
	return conv(L, &(ConvArgs){3, 4, 5, -1, -1, 6, false});
}

/* conv_transpose{1,2,3}d.input(input, weight, bias=None, stride=1,
 * padding=0, output_padding=0, groups=1, dilation=1) */
static int
conv_transpose_nd(Lower *L)
{
	return conv(L, &(ConvArgs){3, 4, 7, -1, 5, 6, true});
}

/* -------------------------------------------------------- matrix products */

/* beta * self + alpha * prod, PyTorch's addmm family; beta == 0 ignores
 * self entirely (NaN in self does not propagate). */
static ValId
axpby(Lower *L, ValId prod, int iself, double alpha, double beta)
{
	DType dt = lw_dtype(L, prod);
	if (alpha != 1)
		prod = lw_op2(L, "Mul", prod, lw_scalar(L, alpha, dt));
	if (beta == 0)
		return prod;
	ValId s = lw_in(L, iself, "self");
	if (!s)
		return 0;
	s = lw_cast(L, s, dt);
	if (beta != 1)
		s = lw_op2(L, "Mul", s, lw_scalar(L, beta, dt));
	return lw_op2(L, "Add", s, prod);
}

static ValId
matmul2(Lower *L, int ia, const char *ka, int ib, const char *kb)
{
	ValId a = lwn_mm_work(L, lw_in(L, ia, ka)),
	    b = lwn_mm_work(L, lw_in(L, ib,
	    kb));
	if (!a || !b)
		return 0;
	DType dt = lw_dtype(L, a);
	if (lw_dtype(L, b) != dt) /* torch requires equal dtypes; be lenient */
		b = lw_cast(L, b, dt);
	return lw_op2(L, "MatMul", a, b);
}

/* mm, bmm, matmul, mv, dot: numpy matmul semantics, as ONNX MatMul */
static int
mm(Lower *L)
{
	ValId r = matmul2(L, 0, "self", 1, NULL);
	if (!r)
		return -1;
	lwn_bind_out(L, 0, r);
	return 0;
}

/* addmm(self, mat1, mat2, *, beta=1, alpha=1), and addmv, baddbmm with
 * the same argument layout */
static int
addmm(Lower *L)
{
	double beta = lw_float(L, 3, "beta", 1), alpha = lw_float(L, 4,
	    "alpha", 1);
	const Value *a = lw_srcval(L, 1, NULL), *b = lw_srcval(L, 2, NULL);
	DType odt = (DType)lw_outval(L, 0)->dtype;
	int64_t k;
	/* ONNX Runtime's Gemm returns C unscaled by beta when K is 0: the
	 * empty product goes the MatMul way */
	bool empty = a && lw_dim_static(a, L->src, -1, &k) && k == 0;
	if (a && b && a->rank == 2 && b->rank == 2 && !empty &&
	    ir_dtype_is_float(odt)) {
		/* Gemm computes alpha*A*B + beta*C in one kernel */
		ValId x = lwn_mm_work(L, lw_in(L, 1, NULL)),
		    y = lwn_mm_work(L, lw_in(L,
		    2, NULL)), c = 0;
		if (!x || !y)
			return -1;
		DType dt = lw_dtype(L, x);
		y = lw_cast(L, y, dt);
		if (beta != 0) {
			c = lw_in(L, 0, "self");
			if (!c)
				return -1;
			c = lw_cast(L, c, dt);
		}
		NodeId n = lw_emit(L, "Gemm", c ? 3 : 2, (ValId[]){x, y, c}, 1);
		lw_attr_float(L, n, "alpha", alpha);
		if (c)
			lw_attr_float(L, n, "beta", beta);
		lwn_bind_out(L, 0, lwn_settyped(L, n, 0, dt));
		return 0;
	}
	ValId p = matmul2(L, 1, NULL, 2, NULL);
	if (!p || !(p = axpby(L, p, 0, alpha, beta)))
		return -1;
	lwn_bind_out(L, 0, p);
	return 0;
}

/* addbmm(self, batch1, batch2, *, beta=1, alpha=1): the batch of
 * products summed */
static int
addbmm(Lower *L)
{
	double beta = lw_float(L, 3, "beta", 1), alpha = lw_float(L, 4,
	    "alpha", 1);
	ValId p = matmul2(L, 1, "batch1", 2, "batch2");
	if (!p)
		return -1;
	p = lwn_reduce(L, "ReduceSum", p, (int64_t[]){0}, 1, false);
	if (!(p = axpby(L, p, 0, alpha, beta)))
		return -1;
	lwn_bind_out(L, 0, p);
	return 0;
}

/* linear(input, weight, bias=None) = input @ weight.T + bias */
int
lwn_linear(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "input"),
		    *wv = lw_srcval(L, 1, "weight");
	if (!xv || !wv)
		return lw_fail(L, "input and weight must be tensors");
	bool err = false;
	ValId x = lwn_mm_work(L, lw_in(L, 0, "input")),
	    w = lwn_mm_work(L, lw_in(L, 1,
	    "weight")), b = lwn_mm_work(L, lwn_opt_in(L, 2, "bias", &err));
	if (!x || !w || err)
		return -1;
	DType dt = lw_dtype(L, x);
	w = lw_cast(L, w, dt);
	b = lw_cast(L, b, dt);
	ValId y;
	int64_t k;
	if (xv->rank >= 1 && lw_dim_static(xv, L->src, -1, &k) && k == 0) {
		/* no inner dim: zeros of input[:-1] x out_features, and the
		 * bias; a MatMul would meet ONNX Runtime's MatMul + Add fusion
		 * into a Gemm that refuses K = 0 */
		ValId parts[2] = {lwn_shape_of(L, x, 0, xv->rank - 1),
		    wv->rank == 2 ? lwn_shape_of(L, w, 0, 1) : 0};
		ValId shp = parts[1] ? lw_concat(L, parts, 2, 0, DT_I64) :
		    parts[0];
		y = lw_op2(L, "Expand", lw_scalar(L, 0, dt), shp);
		lw_settype(L, y, dt);
		if (b)
			y = lw_op2(L, "Add", y, b);
		lwn_bind_out(L, 0, y);
		return 0;
	}
	if (xv->rank == 2 && wv->rank == 2 && ir_dtype_is_float(dt)) {
		NodeId n = lw_emit(L, "Gemm", b ? 3 : 2, (ValId[]){x, w, b}, 1);
		lw_attr_int(L, n, "transB", 1);
		y = lwn_settyped(L, n, 0, dt);
	} else {
		if (wv->rank == 2)
			w = lwn_transpose(L, w, (int64_t[]){1, 0}, 2);
		y = lw_op2(L, "MatMul", x, w);
		if (b)
			y = lw_op2(L, "Add", y, b);
	}
	lwn_bind_out(L, 0, y);
	return 0;
}

/* t(self): transpose of a tensor of rank <= 2 */
static int
t(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	ValId x = lw_in(L, 0, "self");
	if (!x || !xv)
		return -1;
	if (xv->rank > 2)
		return lw_fail(L, "t() expects a tensor of rank <= 2, got %d",
		    xv->rank);
	lwn_bind_out(L, 0, xv->rank == 2
	    ? lwn_transpose(L, x, (int64_t[]){1, 0}, 2)
	    : x);
	return 0;
}

/* numpy_T(self): all dims reversed, Transpose's default */
static int
numpy_t(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	lwn_bind_out(L, 0, lwn_transpose(L, x, NULL, 0));
	return 0;
}

/* Operands whose "..." stand for fewer dims than another's get size-1
 * dims there, as PyTorch broadcasts them from the right (ONNX Runtime
 * refuses ellipses of different ranks); an explicit output without "..."
 * sums them, and ONNX Runtime wants it written: eq gets "..." after "->"
 * and the result is how many leading dims of the Einsum to sum, or -1
 * after reporting. */
static int
ellipsis_align(Lower *L, char *eq, size_t cap, ValId *in, uint32_t n)
{
	int lead[16], cnt[16], most = 0;
	const char *p = eq;
	for (uint32_t k = 0; k < n; k++) {
		int letters = 0, before = -1;
		for (; *p && *p != ',' && *p != '-'; p++) {
			if (*p == '.') {
				if (before < 0)
					before = letters;
			} else {
				letters++;
			}
		}
		if (*p == ',')
			p++;
		int r = ir_val(L->dst, in[k])->rank;
		lead[k] = before;
		cnt[k] = before < 0 ? 0 : r - letters;
		if (before >= 0 && (r < 0 || cnt[k] < 0))
			return lw_fail(L, "operand %u: its subscripts do not "
			    "match its rank", k);
		most = cnt[k] > most ? cnt[k] : most;
	}
	bool any = false;
	for (uint32_t k = 0; k < n; k++) {
		any |= lead[k] >= 0;
		for (int j = cnt[k]; lead[k] >= 0 && j < most; j++)
			in[k] = lwn_unsqueeze(L, in[k], lead[k]);
	}
	char *arrow = strstr(eq, "->");
	if (!any || !arrow || strstr(arrow, "..."))
		return 0;
	size_t len = strlen(eq);
	if (len + 4 > cap)
		return lw_fail(L, "the equation is too long");
	memmove(arrow + 5, arrow + 2, strlen(arrow + 2) + 1);
	memcpy(arrow + 2, "...", 3);
	return most;
}

/* einsum(equation, tensors, *, path=None) */
static int
einsum(Lower *L)
{
	const Arg *eq = lw_arg(L, 0, "equation"), *ts = lw_arg(L, 1,
	    "tensors");
	if (!eq || eq->kind != A_STR)
		return lw_fail(L, "the equation must be a string");
	if (!ts || (ts->kind != A_LIST && ts->kind != A_TUPLE))
		return lw_fail(L, "the operands must be a list of tensors");
	uint32_t n = ts->u.list.n;
	ValId in[16];
	if (n == 0 || n > 16)
		return lw_fail(L, "%u operands (1 to 16 supported)", n);
	const Arg *it = ir_items(L->src, ts);
	DType dt = DT_UNDEF;
	for (uint32_t k = 0; k < n; k++) {
		if (it[k].kind != A_VAL || !L->map[it[k].u.v])
			return lw_fail(L, "operand %u is not a tensor", k);
		in[k] = lwn_mm_work(L, L->map[it[k].u.v]);
		if (!dt)
			dt = lw_dtype(L, in[k]);
		in[k] = lw_cast(L, in[k], dt);
	}
	/* ONNX's grammar has no spaces */
	const char *s = ir_str(L->m, eq->u.s);
	char buf[256];
	size_t m = 0;
	for (; *s; s++)
		if (*s != ' ' && m + 1 < sizeof buf)
			buf[m++] = *s;
	buf[m] = 0;
	int sum = ellipsis_align(L, buf, sizeof buf, in, n);
	if (sum < 0)
		return -1;
	NodeId nd = lw_emit(L, "Einsum", (int)n, in, 1);
	lw_attr_str(L, nd, "equation", buf);
	ValId y = lwn_settyped(L, nd, 0, dt);
	if (sum > 0) {
		int64_t ax[LW_MAXRANK];
		for (int k = 0; k < sum; k++)
			ax[k] = k;
		NodeId rs = lw_emit(L, "ReduceSum", 2, (ValId[]){y,
		    lw_const_i64s(L, ax, sum)}, 1);
		lw_attr_int(L, rs, "keepdims", 0);
		y = lw_typed(L, rs, dt);
	}
	lwn_bind_out(L, 0, y);
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_nn LW_THIS
const LowerRule lw_rules_nn[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
