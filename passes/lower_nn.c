/* lower_nn.c - lowering rules for neural-network ops: convolution, matrix
 * products, normalization, pooling, resampling, attention, embedding and
 * dropout.
 *
 * ONNX Runtime's CPU kernels for most of these ops take float only, while
 * PyTorch's CPU kernels for f16/bf16 accumulate in float and round once;
 * so reduced-precision inputs are computed in f32 and the result is cast
 * back to the dtype the FX graph annotates. */
#include <math.h>
#include <string.h>

#include "lower.h"

#define MAXSP 3 /* spatial dimensions: 1d, 2d, 3d */

/* ---------------------------------------------------------------- helpers */

/* Matrix products keep f64 and integers (ORT's MatMul has them). */
static ValId
mm_work(Lower *L, ValId v)
{
	DType dt = v ? lw_dtype(L, v) : DT_UNDEF;
	if (dt == DT_F16 || dt == DT_BF16)
		return lw_cast(L, v, DT_F32);
	return v;
}

/* Conv, pooling, normalization and Resize: ORT's CPU kernels are float
 * only, so every floating type is computed as f32. */
static ValId
f32(Lower *L, ValId v)
{
	if (v && ir_dtype_is_float(lw_dtype(L, v)))
		return lw_cast(L, v, DT_F32);
	return v;
}

static bool
used(Lower *L, int k)
{
	if ((uint32_t)k >= lw_node(L)->nout)
		return false;
	return lw_outval(L, k)->kind != VK_UNKNOWN;
}

/* Bind FX output k to v cast to its annotated dtype. */
static void
bind_out(Lower *L, int k, ValId v)
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
static ValId
opt_in(Lower *L, int i, const char *kw, bool *err)
{
	if (!lw_has(L, i, kw))
		return 0;
	ValId v = lw_in(L, i, kw);
	if (!v)
		*err = true;
	return v;
}

static ValId
settyped(Lower *L, NodeId n, int k, DType dt)
{
	ValId r = lw_res(L, n, k);
	lw_settype(L, r, dt);
	return r;
}

/* Shape(x)[start:end]; end == INT64_MAX for "to the end". */
static ValId
shape_of(Lower *L, ValId x, int64_t start, int64_t end)
{
	NodeId n = lw_emit(L, "Shape", 1, &x, 1);
	if (start)
		lw_attr_int(L, n, "start", start);
	if (end != INT64_MAX)
		lw_attr_int(L, n, "end", end);
	return settyped(L, n, 0, DT_I64);
}

/* Reductions take axes as an attribute before opset 18, as an input from
 * 18 on (ReduceSum from 13). */
static ValId
reduce(Lower *L, const char *op, ValId x, const int64_t *axes, int n,
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
	return settyped(L, nd, 0, lw_dtype(L, x));
}

static ValId
reshape(Lower *L, ValId x, const int64_t *dims, int n)
{
	return lw_op2(L, "Reshape", x, lw_const_i64s(L, dims, n));
}

static ValId
unsqueeze(Lower *L, ValId x, int64_t axis)
{
	return lw_op2(L, "Unsqueeze", x, lw_const_i64s(L, &axis, 1));
}

static ValId
squeeze(Lower *L, ValId x, int64_t axis)
{
	return lw_op2(L, "Squeeze", x, lw_const_i64s(L, &axis, 1));
}

static ValId
transpose(Lower *L, ValId x, const int64_t *perm, int n)
{
	NodeId nd = lw_emit(L, "Transpose", 1, &x, 1);
	if (perm)
		lw_attr_ints(L, nd, "perm", perm, n);
	return settyped(L, nd, 0, lw_dtype(L, x));
}

/* A tensor of the given runtime shape filled with v. */
static ValId
fill(Lower *L, ValId shape, double v, DType dt)
{
	return lw_op2(L, "Expand", lw_scalar(L, v, dt), shape);
}

/* A per-channel vector [C] as [C, 1, ..., 1] for a rank-r NC... tensor. */
static ValId
per_channel(Lower *L, ValId v, int rank)
{
	int64_t dims[8] = {-1, 1, 1, 1, 1, 1, 1, 1};
	if (rank - 1 > 8)
		BUG("rank %d", rank);
	return reshape(L, v, dims, rank - 1);
}

/* Spatial parameter list i: one element stands for every dimension
 * (int[2] accepts an int).  Returns 1 when set, 0 when absent or empty
 * (out untouched: the caller fills defaults first), -1 on error. */
static int
spatial(Lower *L, int i, const char *kw, int nd, int64_t *out)
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
static int
floats(Lower *L, int i, const char *kw, double *out, int cap)
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
	if (spatial(L, ca->stride, "stride", nd, c.stride) < 0 ||
	    spatial(L, ca->dil, "dilation", nd, c.dil) < 0)
		return -1;
	const Arg *pa = lw_arg(L, ca->pad, "padding");
	if (pa && pa->kind == A_STR) {
		const char *s = ir_str(L->m, pa->u.s);
		if (strcmp(s, "same") == 0)
			c.same = true;
		else if (strcmp(s, "valid") != 0)
			return lw_fail(L, "unknown padding mode '%s'", s);
	} else if (spatial(L, ca->pad, "padding", nd, c.pad) < 0) {
		return -1;
	}
	if (ca->transposed >= 0)
		c.transposed = lw_bool(L, ca->transposed, "transposed", false);
	if (ca->outpad >= 0 &&
	    spatial(L, ca->outpad, "output_padding", nd, c.outpad) < 0)
		return -1;
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
	bool err = false;
	ValId x = f32(L, lw_in(L, 0, "input")), w = f32(L, lw_in(L, 1,
	    "weight")), b = f32(L, opt_in(L, 2, "bias", &err));
	if (!x || !w || err)
		return -1;
	if (unbatched)
		x = unsqueeze(L, x, 0);
	ValId in[3] = {x, w, b};
	NodeId n = lw_emit(L, c.transposed ? "ConvTranspose" : "Conv",
	    b ? 3 : 2, in, 1);
	lw_attr_ints(L, n, "strides", c.stride, nd);
	lw_attr_ints(L, n, "pads", pads, 2 * nd);
	lw_attr_ints(L, n, "dilations", c.dil, nd);
	lw_attr_int(L, n, "group", c.groups);
	if (c.transposed)
		lw_attr_ints(L, n, "output_padding", c.outpad, nd);
	ValId y = settyped(L, n, 0, DT_F32);
	if (unbatched)
		y = squeeze(L, y, 0);
	bind_out(L, 0, y);
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
	ValId a = mm_work(L, lw_in(L, ia, ka)), b = mm_work(L, lw_in(L, ib,
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
	bind_out(L, 0, r);
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
	if (a && b && a->rank == 2 && b->rank == 2 &&
	    ir_dtype_is_float(odt)) {
		/* Gemm computes alpha*A*B + beta*C in one kernel */
		ValId x = mm_work(L, lw_in(L, 1, NULL)), y = mm_work(L, lw_in(L,
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
		bind_out(L, 0, settyped(L, n, 0, dt));
		return 0;
	}
	ValId p = matmul2(L, 1, NULL, 2, NULL);
	if (!p || !(p = axpby(L, p, 0, alpha, beta)))
		return -1;
	bind_out(L, 0, p);
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
	p = reduce(L, "ReduceSum", p, (int64_t[]){0}, 1, false);
	if (!(p = axpby(L, p, 0, alpha, beta)))
		return -1;
	bind_out(L, 0, p);
	return 0;
}

/* linear(input, weight, bias=None) = input @ weight.T + bias */
static int
linear(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "input"),
		    *wv = lw_srcval(L, 1, "weight");
	if (!xv || !wv)
		return lw_fail(L, "input and weight must be tensors");
	bool err = false;
	ValId x = mm_work(L, lw_in(L, 0, "input")), w = mm_work(L, lw_in(L, 1,
	    "weight")), b = mm_work(L, opt_in(L, 2, "bias", &err));
	if (!x || !w || err)
		return -1;
	DType dt = lw_dtype(L, x);
	w = lw_cast(L, w, dt);
	b = lw_cast(L, b, dt);
	ValId y;
	if (xv->rank == 2 && wv->rank == 2 && ir_dtype_is_float(dt)) {
		NodeId n = lw_emit(L, "Gemm", b ? 3 : 2, (ValId[]){x, w, b}, 1);
		lw_attr_int(L, n, "transB", 1);
		y = settyped(L, n, 0, dt);
	} else {
		if (wv->rank == 2)
			w = transpose(L, w, (int64_t[]){1, 0}, 2);
		y = lw_op2(L, "MatMul", x, w);
		if (b)
			y = lw_op2(L, "Add", y, b);
	}
	bind_out(L, 0, y);
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
	bind_out(L, 0, xv->rank == 2 ? transpose(L, x, (int64_t[]){1, 0}, 2)
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
	bind_out(L, 0, transpose(L, x, NULL, 0));
	return 0;
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
		in[k] = mm_work(L, L->map[it[k].u.v]);
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
	NodeId nd = lw_emit(L, "Einsum", (int)n, in, 1);
	lw_attr_str(L, nd, "equation", buf);
	bind_out(L, 0, settyped(L, nd, 0, dt));
	return 0;
}

/* ---------------------------------------------------------- normalization */

/* Where a batch-norm overload keeps its arguments; -1: absent.  An
 * overload without a training flag has TRAINING or INFERENCE there. */
enum { TRAINING = -1, INFERENCE = -2 };

typedef struct BnArgs {
	int rm, rv, training, momentum, eps;
	bool functional; /* outputs 3, 4: the updated running stats */
} BnArgs;

/* An empty [0] tensor: what PyTorch returns for save_mean/save_invstd
 * when no statistics are computed. */
static void
bind_empty(Lower *L, int k)
{
	if (!used(L, k))
		return;
	int64_t zero = 0;
	DType dt = (DType)lw_outval(L, k)->dtype;
	lw_bind(L, k, lw_const(L, dt ? dt : DT_F32, 1, &zero, NULL));
}

static int
batch_norm(Lower *L, const BnArgs *a)
{
	const Value *xv = lw_srcval(L, 0, "input");
	if (!xv || xv->rank < 2)
		return lw_fail(L, "input must be a tensor of rank >= 2");
	int r = xv->rank;
	bool training = a->training == TRAINING ? true
	    : a->training == INFERENCE ? false
	    : lw_bool(L, a->training, "training", false);
	double mom = lw_float(L, a->momentum, "momentum", 0.1);
	double eps = lw_float(L, a->eps, "eps", 1e-5);
	bool err = false;
	ValId x = f32(L, lw_in(L, 0, "input"));
	ValId w = f32(L, opt_in(L, 1, "weight", &err));
	ValId b = f32(L, opt_in(L, 2, "bias", &err));
	ValId rm = a->rm < 0 ? 0 : f32(L, opt_in(L, a->rm, "running_mean",
	    &err));
	ValId rv = a->rv < 0 ? 0 : f32(L, opt_in(L, a->rv, "running_var",
	    &err));
	if (!x || err)
		return -1;
	bool stats_used = used(L, 1) || used(L, 2) || (a->functional &&
	    (used(L, 3) || used(L, 4)));
	if (training && L->training && L->bn_onnx && L->opset >= 14 &&
	    !stats_used) {
		/* ONNX's own training-mode batch norm, which ONNX Runtime's
		 * training builds differentiate and update; its inference
		 * builds run it as inference batch norm */
		ValId ch = shape_of(L, x, 1, 2);
		NodeId n = lw_emit(L, "BatchNormalization", 5, (ValId[]){x,
		    w ? w : fill(L, ch, 1, DT_F32), b ? b : fill(L, ch, 0,
		    DT_F32), rm ? rm : fill(L, ch, 0, DT_F32), rv ? rv :
		    fill(L, ch, 1, DT_F32)}, 3);
		lw_attr_float(L, n, "epsilon", eps);
		lw_attr_float(L, n, "momentum", 1 - mom);
		lw_attr_int(L, n, "training_mode", 1);
		/* ONNX wants the running statistics as outputs here */
		lw_settype(L, lw_res(L, n, 1), DT_F32);
		lw_settype(L, lw_res(L, n, 2), DT_F32);
		bind_out(L, 0, settyped(L, n, 0, DT_F32));
		return 0;
	}
	if (!training && rm && rv) {
		ValId ch = shape_of(L, x, 1, 2);
		if (!w)
			w = fill(L, ch, 1, DT_F32);
		if (!b)
			b = fill(L, ch, 0, DT_F32);
		NodeId n = lw_emit(L, "BatchNormalization", 5,
		    (ValId[]){x, w, b, rm, rv}, 1);
		lw_attr_float(L, n, "epsilon", eps);
		lw_attr_float(L, n, "momentum", 1 - mom);
		bind_out(L, 0, settyped(L, n, 0, DT_F32));
		bind_empty(L, 1);
		bind_empty(L, 2);
		if (a->functional) { /* stats unchanged in eval mode */
			if (used(L, 3))
				bind_out(L, 3, rm);
			if (used(L, 4))
				bind_out(L, 4, rv);
		}
		return 0;
	}
	/* training mode: statistics of this batch over every dim but C;
	 * the biased variance normalizes, the unbiased one is tracked */
	int64_t axes[8];
	int na = 0;
	for (int k = 0; k < r && na < 8; k++)
		if (k != 1)
			axes[na++] = k;
	ValId mean = reduce(L, "ReduceMean", x, axes, na, true);
	ValId d = lw_op2(L, "Sub", x, mean);
	ValId var = reduce(L, "ReduceMean", lw_op2(L, "Mul", d, d), axes, na,
	    true);
	ValId rstd = lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", lw_op2(L,
	    "Add", var, lw_scalar(L, eps, DT_F32))));
	ValId y = lw_op2(L, "Mul", d, rstd);
	if (w)
		y = lw_op2(L, "Mul", y, per_channel(L, w, r));
	if (b)
		y = lw_op2(L, "Add", y, per_channel(L, b, r));
	bind_out(L, 0, y);
	int64_t flat = -1;
	if (used(L, 1))
		bind_out(L, 1, reshape(L, mean, &flat, 1));
	if (used(L, 2))
		bind_out(L, 2, reshape(L, rstd, &flat, 1));
	if (!a->functional || !(used(L, 3) || used(L, 4)))
		return 0;
	if (!rm || !rv)
		return lw_fail(L, "running statistics are missing");
	ValId m = lw_scalar(L, mom, DT_F32), keep = lw_scalar(L, 1 - mom,
	    DT_F32);
	if (used(L, 3)) {
		ValId bm = reshape(L, mean, &flat, 1);
		bind_out(L, 3, lw_op2(L, "Add", lw_op2(L, "Mul", rm, keep),
		    lw_op2(L, "Mul", bm, m)));
	}
	if (used(L, 4)) {
		/* n / (n - 1) with n = numel / C elements per channel */
		NodeId sz = lw_emit(L, "Size", 1, &x, 1);
		ValId numel = lw_cast(L, settyped(L, sz, 0, DT_I64), DT_F32);
		ValId cnt = lw_op2(L, "Div", numel, lw_cast(L, shape_of(L, x,
		    1, 2), DT_F32));
		ValId corr = lw_op2(L, "Div", cnt, lw_op2(L, "Sub", cnt,
		    lw_scalar(L, 1, DT_F32)));
		ValId bv = lw_op2(L, "Mul", reshape(L, var, &flat, 1), corr);
		bind_out(L, 4, lw_op2(L, "Add", lw_op2(L, "Mul", rv, keep),
		    lw_op2(L, "Mul", bv, m)));
	}
	return 0;
}

/* _native_batch_norm_legit_no_training(input, weight?, bias?,
 * running_mean, running_var, momentum, eps) */
static int
bn_no_training(Lower *L)
{
	return batch_norm(L, &(BnArgs){3, 4, INFERENCE, 5, 6, false});
}

/* _native_batch_norm_legit_functional(input, weight?, bias?, running_mean,
 * running_var, training, momentum, eps) -> (out, mean, rstd, new running
 * mean, new running var) */
static int
bn_functional(Lower *L)
{
	return batch_norm(L, &(BnArgs){3, 4, 5, 6, 7, true});
}

/* native_batch_norm, _native_batch_norm_legit, batch_norm: (input, weight?,
 * bias?, running_mean?, running_var?, training, momentum, eps, ...) */
static int
bn_native(Lower *L)
{
	return batch_norm(L, &(BnArgs){3, 4, 5, 6, 7, false});
}

/* _native_batch_norm_legit.no_stats(input, weight?, bias?, training,
 * momentum, eps): always batch statistics */
static int
bn_no_stats(Lower *L)
{
	return batch_norm(L, &(BnArgs){-1, -1, TRAINING, 4, 5, false});
}

/* instance_norm(input, weight?, bias?, running_mean?, running_var?,
 * use_input_stats, momentum, eps, cudnn_enabled) */
static int
instance_norm(Lower *L)
{
	if (!lw_bool(L, 5, "use_input_stats", true))
		return batch_norm(L, &(BnArgs){3, 4, INFERENCE, 6, 7,
		    false});
	const Value *xv = lw_srcval(L, 0, "input");
	if (!xv || xv->rank < 3)
		return lw_fail(L, "input must be a tensor of rank >= 3");
	double eps = lw_float(L, 7, "eps", 1e-5);
	bool err = false;
	ValId x = f32(L, lw_in(L, 0, "input"));
	ValId w = f32(L, opt_in(L, 1, "weight", &err));
	ValId b = f32(L, opt_in(L, 2, "bias", &err));
	if (!x || err)
		return -1;
	ValId ch = shape_of(L, x, 1, 2);
	if (!w)
		w = fill(L, ch, 1, DT_F32);
	if (!b)
		b = fill(L, ch, 0, DT_F32);
	NodeId n = lw_emit(L, "InstanceNormalization", 3, (ValId[]){x, w, b},
	    1);
	lw_attr_float(L, n, "epsilon", eps);
	bind_out(L, 0, settyped(L, n, 0, DT_F32));
	return 0;
}

/* native_layer_norm(input, normalized_shape, weight?, bias?, eps) ->
 * (out, mean, rstd); layer_norm(input, normalized_shape, weight=None,
 * bias=None, eps=1e-5, cudnn_enable) -> out.  LayerNormalization (opset
 * 17) normalizes over the trailing axes from `axis` on, and its Mean and
 * InvStdDev have PyTorch's [*, 1, ..., 1] shape. */
static int
layer_norm(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "input");
	/* only its length matters: the sizes may be symbolic */
	const Arg *ns = lw_arg(L, 1, "normalized_shape");
	int k = ns && (ns->kind == A_LIST || ns->kind == A_TUPLE)
	    ? (int)ns->u.list.n : 1;
	if (!xv || xv->rank < k || k == 0)
		return lw_fail(L, "normalized_shape does not fit the input");
	int64_t axis = xv->rank - k;
	double eps = lw_float(L, 4, "eps", 1e-5);
	bool err = false;
	ValId x = f32(L, lw_in(L, 0, "input"));
	ValId w = f32(L, opt_in(L, 2, "weight", &err));
	ValId b = f32(L, opt_in(L, 3, "bias", &err));
	if (!x || err)
		return -1;
	if (!w)
		w = fill(L, shape_of(L, x, axis, INT64_MAX), 1, DT_F32);
	bool stats = used(L, 1) || used(L, 2);
	NodeId n = lw_emit(L, "LayerNormalization", b ? 3 : 2,
	    (ValId[]){x, w, b}, stats ? 3 : 1);
	lw_attr_int(L, n, "axis", axis);
	lw_attr_float(L, n, "epsilon", eps);
	bind_out(L, 0, settyped(L, n, 0, DT_F32));
	if (stats) {
		bind_out(L, 1, settyped(L, n, 1, DT_F32));
		bind_out(L, 2, settyped(L, n, 2, DT_F32));
	}
	return 0;
}

/* Group norm as a decomposition: GroupNormalization's scale/bias changed
 * meaning at opset 21 (per group -> per channel).  x [N, C, *] is viewed
 * as [N, G, -1], normalized, viewed back and scaled per channel. */
static int
group_norm(Lower *L, int ig, int iw, int ib, int ieps)
{
	const Value *xv = lw_srcval(L, 0, "input");
	if (!xv || xv->rank < 2)
		return lw_fail(L, "input must be a tensor of rank >= 2");
	int64_t g = lw_int(L, ig, "group", 1);
	double eps = lw_float(L, ieps, "eps", 1e-5);
	bool err = false;
	ValId x = f32(L, lw_in(L, 0, "input"));
	ValId w = f32(L, opt_in(L, iw, "weight", &err));
	ValId b = f32(L, opt_in(L, ib, "bias", &err));
	if (!x || err)
		return -1;
	if (g < 1)
		return lw_fail(L, "invalid number of groups %lld",
		    (long long)g);
	ValId xs = reshape(L, x, (int64_t[]){0, g, -1}, 3);
	int64_t ax = 2;
	ValId mean = reduce(L, "ReduceMean", xs, &ax, 1, true);
	ValId d = lw_op2(L, "Sub", xs, mean);
	ValId var = reduce(L, "ReduceMean", lw_op2(L, "Mul", d, d), &ax, 1,
	    true);
	ValId rstd = lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", lw_op2(L,
	    "Add", var, lw_scalar(L, eps, DT_F32))));
	ValId y = lw_op2(L, "Reshape", lw_op2(L, "Mul", d, rstd), shape_of(L,
	    x, 0, INT64_MAX));
	if (w)
		y = lw_op2(L, "Mul", y, per_channel(L, w, xv->rank));
	if (b)
		y = lw_op2(L, "Add", y, per_channel(L, b, xv->rank));
	bind_out(L, 0, y);
	if (used(L, 1))
		bind_out(L, 1, squeeze(L, mean, 2));
	if (used(L, 2))
		bind_out(L, 2, squeeze(L, rstd, 2));
	return 0;
}

/* native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) */
static int
native_group_norm(Lower *L)
{
	return group_norm(L, 6, 1, 2, 7);
}

/* group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, ...) */
static int
group_norm_rule(Lower *L)
{
	return group_norm(L, 1, 2, 3, 4);
}

/* ---------------------------------------------------------------- pooling */

typedef struct Pool {
	int nd;
	int64_t k[MAXSP], s[MAXSP], p[MAXSP], d[MAXSP];
	bool ceil;
	int64_t pads[2 * MAXSP]; /* ONNX pads, begins then ends */
	bool extended;           /* some end pad grown for ceil mode */
	bool ceil_attr;          /* fall back to ONNX's own ceil_mode */
} Pool;

/* Read kernel_size (1), stride (2, default kernel), padding (3) and, for
 * max pooling, dilation (4). */
static int
pool_read(Lower *L, Pool *P, int nd, bool has_dil, int iceil)
{
	P->nd = nd;
	for (int k = 0; k < nd; k++) {
		P->k[k] = 0;
		P->p[k] = 0;
		P->d[k] = 1;
	}
	int r = spatial(L, 1, "kernel_size", nd, P->k);
	if (r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "kernel_size is missing");
	for (int k = 0; k < nd; k++)
		P->s[k] = P->k[k];
	if (spatial(L, 2, "stride", nd, P->s) < 0 ||
	    spatial(L, 3, "padding", nd, P->p) < 0 ||
	    (has_dil && spatial(L, 4, "dilation", nd, P->d) < 0))
		return -1;
	P->ceil = lw_bool(L, iceil, "ceil_mode", false);
	return 0;
}

/* PyTorch's ceil mode drops a last window that would start in the right
 * padding; ONNX's ceil_mode did not until late opsets.  So with static
 * sizes the end padding is grown until floor mode yields PyTorch's output
 * size, which means the same as the runtimes agree on. */
static void
pool_pads(Lower *L, const Value *xv, Pool *P)
{
	int nd = P->nd;
	P->extended = P->ceil_attr = false;
	for (int k = 0; k < nd; k++)
		P->pads[k] = P->pads[k + nd] = P->p[k];
	if (!P->ceil)
		return;
	int64_t end[MAXSP];
	for (int k = 0; k < nd; k++) {
		int64_t in;
		if (!lw_dim_static(xv, L->src, xv->rank - nd + k, &in)) {
			P->ceil_attr = true;
			return;
		}
		int64_t ek = P->d[k] * (P->k[k] - 1) + 1;
		int64_t num = in + 2 * P->p[k] - ek;
		if (num < 0) { /* PyTorch rejects it; leave it to the runtime */
			P->ceil_attr = true;
			return;
		}
		int64_t out = (num + P->s[k] - 1) / P->s[k] + 1;
		if ((out - 1) * P->s[k] >= in + P->p[k])
			out--;
		end[k] = (out - 1) * P->s[k] + ek - in - P->p[k];
		if (end[k] < P->p[k])
			end[k] = P->p[k];
		/* ORT refuses pads that are not smaller than the kernel */
		if (end[k] >= P->k[k]) {
			P->ceil_attr = true;
			return;
		}
	}
	for (int k = 0; k < nd; k++) {
		if (end[k] != P->p[k])
			P->extended = true;
		P->pads[k + nd] = end[k];
	}
}

static void
pool_attrs(Lower *L, NodeId n, const Pool *P)
{
	lw_attr_ints(L, n, "kernel_shape", P->k, P->nd);
	lw_attr_ints(L, n, "strides", P->s, P->nd);
	lw_attr_ints(L, n, "pads", P->pads, 2 * P->nd);
	if (P->ceil_attr)
		lw_attr_int(L, n, "ceil_mode", 1);
}

/* Pooling input of rank nd+1 (unbatched) or nd+2; *x gets a batch dim. */
static int
pool_input(Lower *L, int nd, const Value **xv, ValId *x, bool *unbatched)
{
	*xv = lw_srcval(L, 0, "self");
	if (!*xv)
		return lw_fail(L, "input must be a tensor");
	*unbatched = (*xv)->rank == nd + 1;
	if (!*unbatched && (*xv)->rank != nd + 2)
		return lw_fail(L, "input of rank %d for %dd pooling",
		    (*xv)->rank, nd);
	*x = f32(L, lw_in(L, 0, "self"));
	if (!*x)
		return -1;
	if (*unbatched)
		*x = unsqueeze(L, *x, 0);
	return 0;
}

/* max_pool{1,2,3}d[_with_indices](self, kernel_size, stride=[],
 * padding=0, dilation=1, ceil_mode=False) */
static int
max_pool(Lower *L, int nd)
{
	Pool P;
	const Value *xv;
	ValId x;
	bool unb;
	if (pool_read(L, &P, nd, true, 5) < 0 ||
	    pool_input(L, nd, &xv, &x, &unb) < 0)
		return -1;
	pool_pads(L, xv, &P);
	bool idx = used(L, 1);
	NodeId n = lw_emit(L, "MaxPool", 1, &x, idx ? 2 : 1);
	pool_attrs(L, n, &P);
	lw_attr_ints(L, n, "dilations", P.d, nd);
	ValId y = settyped(L, n, 0, DT_F32);
	if (unb)
		y = squeeze(L, y, 0);
	bind_out(L, 0, y);
	if (!idx)
		return 0;
	/* ONNX flattens indices over the whole tensor, PyTorch over each
	 * (n, c) plane: the remainder by the plane size converts */
	ValId i = settyped(L, n, 1, DT_I64);
	ValId plane = reduce(L, "ReduceProd", shape_of(L, x, 2, INT64_MAX),
	    NULL, 0, false);
	i = lw_op2(L, "Mod", i, plane);
	if (unb)
		i = squeeze(L, i, 0);
	bind_out(L, 1, i);
	return 0;
}

static int max_pool1d(Lower *L) { return max_pool(L, 1); }
static int max_pool2d(Lower *L) { return max_pool(L, 2); }
static int max_pool3d(Lower *L) { return max_pool(L, 3); }

/* avg_pool{1,2,3}d(self, kernel_size, stride=[], padding=0,
 * ceil_mode=False, count_include_pad=True, divisor_override=None) */
static int
avg_pool(Lower *L, int nd)
{
	Pool P;
	const Value *xv;
	ValId x;
	bool unb;
	if (lw_has(L, 6, "divisor_override"))
		return lw_fail(L, "divisor_override is not supported");
	if (pool_read(L, &P, nd, false, 4) < 0)
		return -1;
	bool cip = lw_bool(L, 5, "count_include_pad", true);
	if (pool_input(L, nd, &xv, &x, &unb) < 0)
		return -1;
	pool_pads(L, xv, &P);
	bool anypad = false;
	for (int k = 0; k < nd; k++)
		anypad |= P.p[k] != 0;
	if (P.extended && cip && anypad) {
		/* PyTorch counts the padding but not the ceil-mode overhang:
		 * pad with zeros explicitly, then count real elements only */
		int64_t pads[2 * (MAXSP + 2)] = {0};
		int r = nd + 2;
		for (int k = 0; k < nd; k++) {
			pads[2 + k] = pads[r + 2 + k] = P.p[k];
			P.pads[nd + k] -= P.p[k];
			P.pads[k] = 0;
		}
		x = lw_op2(L, "Pad", x, lw_const_i64s(L, pads, 2 * r));
		cip = false;
	} else if (P.extended) {
		cip = false;
	}
	NodeId n = lw_emit(L, "AveragePool", 1, &x, 1);
	pool_attrs(L, n, &P);
	lw_attr_int(L, n, "count_include_pad", cip);
	ValId y = settyped(L, n, 0, DT_F32);
	if (unb)
		y = squeeze(L, y, 0);
	bind_out(L, 0, y);
	return 0;
}

static int avg_pool1d(Lower *L) { return avg_pool(L, 1); }
static int avg_pool2d(Lower *L) { return avg_pool(L, 2); }
static int avg_pool3d(Lower *L) { return avg_pool(L, 3); }

/* adaptive_{avg,max}_pool{1,2,3}d(self, output_size).  Output 1 everywhere
 * is a global pool; sizes that divide evenly are a plain pool; any other
 * split is PyTorch's windows [floor(i*in/out), ceil((i+1)*in/out)) taken
 * one axis at a time (means and maxima of such boxes are separable). */
static int
adaptive_pool(Lower *L, int nd, bool max)
{
	int64_t out[MAXSP], in[MAXSP];
	const Value *xv;
	ValId x;
	bool unb;
	int n = lw_ints(L, 1, "output_size", out, MAXSP);
	if (n < 0)
		return -1;
	if (n == 1)
		for (int k = 1; k < nd; k++)
			out[k] = out[0];
	else if (n != nd)
		return lw_fail(L, "output_size has %d elements for %dd "
		    "pooling", n, nd);
	if (max && used(L, 1))
		return lw_fail(L, "the indices of adaptive max pooling are "
		    "not supported");
	if (pool_input(L, nd, &xv, &x, &unb) < 0)
		return -1;
	bool global = true, even = true, stat = true;
	for (int k = 0; k < nd; k++) {
		global &= out[k] == 1;
		if (!lw_dim_static(xv, L->src, xv->rank - nd + k, &in[k])) {
			stat = false;
			continue;
		}
		even &= out[k] > 0 && in[k] % out[k] == 0;
	}
	ValId y;
	if (global) {
		y = lw_op1(L, max ? "GlobalMaxPool" : "GlobalAveragePool", x);
	} else if (!stat) {
		return lw_fail(L, "adaptive pooling to %s needs static input "
		    "sizes", "a size other than 1");
	} else if (even) {
		Pool P = {.nd = nd};
		for (int k = 0; k < nd; k++) {
			P.k[k] = P.s[k] = in[k] / out[k];
			P.pads[k] = P.pads[k + nd] = 0;
		}
		NodeId nn = lw_emit(L, max ? "MaxPool" : "AveragePool", 1, &x,
		    1);
		pool_attrs(L, nn, &P);
		y = settyped(L, nn, 0, DT_F32);
	} else {
		y = x;
		for (int k = 0; k < nd; k++) {
			int64_t axis = 2 + k, o = out[k], i = in[k];
			if (o == i)
				continue;
			if (o < 1 || o > 1024)
				return lw_fail(L, "adaptive pooling to %lld "
				    "along one axis is not supported",
				    (long long)o);
			ValId parts[1024];
			for (int64_t j = 0; j < o; j++) {
				int64_t s = j * i / o,
					e = ((j + 1) * i + o - 1) / o;
				ValId in4[4] = {y, lw_const_i64s(L, &s, 1),
				    lw_const_i64s(L, &e, 1),
				    lw_const_i64s(L, &axis, 1)};
				NodeId sn = lw_emit(L, "Slice", 4, in4, 1);
				ValId v = settyped(L, sn, 0, DT_F32);
				parts[j] = reduce(L, max ? "ReduceMax"
				    : "ReduceMean", v, &axis, 1, true);
			}
			NodeId c = lw_emit(L, "Concat", (int)o, parts, 1);
			lw_attr_int(L, c, "axis", axis);
			y = settyped(L, c, 0, DT_F32);
		}
	}
	if (unb)
		y = squeeze(L, y, 0);
	bind_out(L, 0, y);
	return 0;
}

static int adaptive_avg1d(Lower *L) { return adaptive_pool(L, 1, false); }
static int adaptive_avg2d(Lower *L) { return adaptive_pool(L, 2, false); }
static int adaptive_avg3d(Lower *L) { return adaptive_pool(L, 3, false); }
static int adaptive_max1d(Lower *L) { return adaptive_pool(L, 1, true); }
static int adaptive_max2d(Lower *L) { return adaptive_pool(L, 2, true); }

/* ------------------------------------------------------------- resampling */

/* Where an upsample overload keeps its arguments. */
typedef struct Up {
	const char *mode; /* ONNX Resize mode: nearest, linear, cubic */
	int nd;
	int align;        /* align_corners, -1: none */
	int scale;        /* .vec: the scale_factors list; .default: the first
	                   * of nd optional per-dimension scales */
	bool vec;
	bool exact;       /* nearest-exact */
} Up;

static const char *scale_names[MAXSP][MAXSP] = {
	{"scales"},
	{"scales_h", "scales_w"},
	{"scales_d", "scales_h", "scales_w"},
};

/* PyTorch maps output coordinates with 1/scale when scales are given, else
 * with in/out; ONNX Resize does the same with its scales or sizes input,
 * so scales are passed when known and sizes otherwise. */
static int
upsample(Lower *L, const Up *u)
{
	int nd = u->nd;
	const Value *xv = lw_srcval(L, 0, "input");
	if (!xv || xv->rank < nd + 1)
		return lw_fail(L, "input must be a tensor of rank >= %d",
		    nd + 1);
	int lead = xv->rank - nd;
	double sc[MAXSP];
	bool have_sc = false;
	if (u->vec) {
		int n = floats(L, u->scale, "scale_factors", sc, MAXSP);
		if (n == -2)
			return -1;
		if (n == 1)
			for (int k = 1; k < nd; k++)
				sc[k] = sc[0];
		else if (n >= 0 && n != nd)
			return lw_fail(L, "scale_factors has %d elements for "
			    "%d dimensions", n, nd);
		have_sc = n >= 0;
	} else {
		int cnt = 0;
		for (int k = 0; k < nd; k++) {
			const char *kw = scale_names[nd - 1][k];
			if (lw_has(L, u->scale + k, kw)) {
				sc[k] = lw_float(L, u->scale + k, kw, 1);
				cnt++;
			}
		}
		have_sc = cnt == nd;
	}
	int64_t out[MAXSP];
	const Arg *os = lw_arg(L, 1, "output_size");
	if (!have_sc && (!os || os->kind == A_NONE))
		return lw_fail(L, "needs output_size or scale_factors");
	if (!have_sc && (os->kind != A_LIST || os->u.list.n != (uint32_t)nd))
		return lw_fail(L, "output_size must list %d sizes", nd);
	if (!have_sc) {
		/* whole-number ratios as scales keep the coordinate
		 * arithmetic exact */
		const Arg *it = ir_items(L->src, os);
		bool ok = true;
		for (int k = 0; k < nd; k++) {
			ok &= it[k].kind == A_INT;
			out[k] = it[k].u.i;
		}
		for (int k = 0; k < nd && ok; k++) {
			int64_t i;
			ok = lw_dim_static(xv, L->src, lead + k, &i) && i > 0 &&
			    out[k] % i == 0;
			if (ok)
				sc[k] = (double)(out[k] / i);
		}
		have_sc = ok;
	}
	bool align = u->align >= 0 && lw_bool(L, u->align, "align_corners",
	    false);
	ValId x = f32(L, lw_in(L, 0, "input"));
	if (!x)
		return -1;
	ValId scales = 0, sizes = 0;
	if (have_sc) {
		float v[MAXSP + 8];
		int64_t len = lead + nd;
		if (len > MAXSP + 8)
			return lw_fail(L, "input of rank %d", xv->rank);
		for (int k = 0; k < lead; k++)
			v[k] = 1;
		for (int k = 0; k < nd; k++)
			v[lead + k] = (float)sc[k];
		scales = lw_const(L, DT_F32, 1, &len, v);
	} else {
		ValId parts[2] = {shape_of(L, x, 0, lead),
		    lw_shape_list(L, 1, "output_size")};
		if (!parts[1])
			return -1;
		NodeId c = lw_emit(L, "Concat", 2, parts, 1);
		lw_attr_int(L, c, "axis", 0);
		sizes = settyped(L, c, 0, DT_I64);
	}
	ValId in[4] = {x, 0, scales, sizes};
	NodeId n = lw_emit(L, "Resize", sizes ? 4 : 3, in, 1);
	lw_attr_str(L, n, "mode", u->mode);
	if (strcmp(u->mode, "nearest") == 0) {
		/* nearest: floor(dst / scale); nearest-exact:
		 * floor((dst + 0.5) / scale) */
		lw_attr_str(L, n, "coordinate_transformation_mode",
		    u->exact ? "half_pixel" : "asymmetric");
		lw_attr_str(L, n, "nearest_mode",
		    u->exact ? "round_prefer_ceil" : "floor");
	} else {
		lw_attr_str(L, n, "coordinate_transformation_mode",
		    align ? "align_corners" : "half_pixel");
		if (strcmp(u->mode, "cubic") == 0)
			lw_attr_float(L, n, "cubic_coeff_a", -0.75);
	}
	bind_out(L, 0, settyped(L, n, 0, lw_dtype(L, x)));
	return 0;
}

/* The upsample overloads differ only in what their names say:
 * upsample_<mode><n>d or _upsample_nearest_exact<n>d, .vec (output_size?,
 * [align_corners,] scale_factors?) or .default (output_size,
 * [align_corners,] one optional scale per dimension). */
static int
upsample_rule(Lower *L)
{
	const char *op = ir_str(L->m, lw_node(L)->op), *d = strchr(op, '.');
	Up u = {.mode = "nearest", .align = -1, .scale = 2};
	if (!d || d - op < 2 || d[-1] != 'd' || d[-2] < '1' || d[-2] > '3')
		return lw_fail(L, "not an upsample overload");
	u.nd = d[-2] - '0';
	u.vec = strcmp(d, ".vec") == 0;
	u.exact = strstr(op, "exact") != NULL;
	if (strstr(op, "linear") || strstr(op, "cubic")) {
		u.mode = strstr(op, "cubic") ? "cubic" : "linear";
		u.align = 2;
		u.scale = 3;
	}
	return upsample(L, &u);
}

/* pixel_shuffle(self, upscale_factor): [*, C*r*r, H, W] -> [*, C, H*r,
 * W*r] with channel c*r*r + i*r + j going to (c, h*r+i, w*r+j), which is
 * DepthToSpace in CRD mode. */
static int
pixel_shuffle(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t r = lw_int(L, 1, "upscale_factor", 1);
	if (!xv || (xv->rank != 3 && xv->rank != 4))
		return lw_fail(L, "only inputs of rank 3 and 4 are supported");
	ValId x = f32(L, lw_in(L, 0, "self"));
	if (!x)
		return -1;
	if (xv->rank == 3)
		x = unsqueeze(L, x, 0);
	NodeId n = lw_emit(L, "DepthToSpace", 1, &x, 1);
	lw_attr_int(L, n, "blocksize", r);
	lw_attr_str(L, n, "mode", "CRD");
	ValId y = settyped(L, n, 0, lw_dtype(L, x));
	if (xv->rank == 3)
		y = squeeze(L, y, 0);
	bind_out(L, 0, y);
	return 0;
}

/* pixel_unshuffle(self, downscale_factor): the inverse, [*, C, H*r, W*r]
 * -> [*, C*r*r, H, W].  SpaceToDepth orders channels the other way round
 * (DCR), so this is spelled as reshape, transpose, reshape. */
static int
pixel_unshuffle(Lower *L)
{
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t r = lw_int(L, 1, "downscale_factor", 1), c, h, w;
	if (!xv || (xv->rank != 3 && xv->rank != 4))
		return lw_fail(L, "only inputs of rank 3 and 4 are supported");
	if (r < 1 || !lw_dim_static(xv, L->src, -3, &c) ||
	    !lw_dim_static(xv, L->src, -2, &h) ||
	    !lw_dim_static(xv, L->src, -1, &w))
		return lw_fail(L, "needs static channel and spatial sizes");
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	if (xv->rank == 3)
		x = unsqueeze(L, x, 0);
	x = reshape(L, x, (int64_t[]){0, c, h / r, r, w / r, r}, 6);
	x = transpose(L, x, (int64_t[]){0, 1, 3, 5, 2, 4}, 6);
	x = reshape(L, x, (int64_t[]){0, c * r * r, h / r, w / r}, 4);
	if (xv->rank == 3)
		x = squeeze(L, x, 0);
	bind_out(L, 0, x);
	return 0;
}

/* -------------------------------------------------------------- attention */

/* A scalar dim of x's runtime shape (negative d from the end). */
static ValId
dim_scalar(Lower *L, ValId x, int64_t d)
{
	return squeeze(L, shape_of(L, x, d, d == -1 ? INT64_MAX : d + 1), 0);
}

/* Grouped-query attention: each of the key's heads serves g query heads
 * in a row (repeat_interleave on dim -3): [.., H, S, E] -> [.., H*g, S, E]
 * through [.., H, g, S, E]. */
static ValId
repeat_heads(Lower *L, ValId x, int rank, int64_t g)
{
	int64_t ones[17];
	for (int k = 0; k <= rank; k++)
		ones[k] = 1;
	ones[rank - 2] = g;
	ValId x5 = lw_op2(L, "Expand", unsqueeze(L, x, rank - 2),
	    lw_const_i64s(L, ones, rank + 1));
	ValId parts[3] = {shape_of(L, x, 0, rank - 3),
	    lw_const_i64s(L, (int64_t[]){-1}, 1), shape_of(L, x, rank - 2,
	    INT64_MAX)};
	NodeId c = lw_emit(L, "Concat", 3, parts, 1);
	lw_attr_int(L, c, "axis", 0);
	return lw_op2(L, "Reshape", x5, settyped(L, c, 0, DT_I64));
}

/* An ONNX Dropout in training mode on x: (output, bool keep-mask). */
static NodeId
train_dropout(Lower *L, ValId x, double p)
{
	DType dt = lw_dtype(L, x);
	ValId ratio = lw_scalar(L, p, dt == DT_F16 || dt == DT_BF16 ||
	    dt == DT_F64 ? dt : DT_F32);
	NodeId n = lw_emit(L, "Dropout", 3, (ValId[]){x, ratio,
	    lw_const(L, DT_BOOL, 0, NULL, &(uint8_t){1})}, 2);
	lw_settype(L, lw_res(L, n, 0), dt);
	lw_settype(L, lw_res(L, n, 1), DT_BOOL);
	return n;
}

/* softmax(q @ k^T * scale + mask) @ v, the math reference PyTorch
 * documents; the causal mask keeps key j for query i when j <= i. */
static int
attention(Lower *L, int imask, int idrop, int icausal, bool lse)
{
	const Value *qv = lw_srcval(L, 0, "query"), *kv = lw_srcval(L, 1,
	    "key"), *vv = lw_srcval(L, 2, "value");
	if (!qv || !kv || !vv || qv->rank < 2 || kv->rank < 2 ||
	    vv->rank < 2)
		return lw_fail(L, "query, key and value must be tensors of "
		    "rank >= 2");
	double pdrop = lw_float(L, idrop, "dropout_p", 0);
	if (!(pdrop >= 0 && pdrop <= 1))
		return lw_fail(L, "dropout_p has to be between 0 and 1, but "
		    "got %g", pdrop);
	if (pdrop != 0 && !L->training)
		return lw_fail(L, "dropout_p=%g is attention dropout in training "
		    "mode: pass --training to export the model for training, "
		    "or export it in eval mode (model.eval())", pdrop);
	bool causal = lw_bool(L, icausal, "is_causal", false);
	int64_t hq = 1, hk = 1;
	if (lw_bool(L, -1, "enable_gqa", false) && (qv->rank < 3 ||
	    kv->rank != vv->rank || !lw_dim_static(qv, L->src, -3, &hq) ||
	    !lw_dim_static(kv, L->src, -3, &hk) ||
	    !lw_dim_static(vv, L->src, -3, &hk) || hk < 1 || hq % hk))
		return lw_fail(L, "enable_gqa needs static head counts, the "
		    "query's a multiple of the key's");
	bool err = false;
	ValId q = mm_work(L, lw_in(L, 0, "query"));
	ValId k = mm_work(L, lw_in(L, 1, "key"));
	ValId v = mm_work(L, lw_in(L, 2, "value"));
	ValId mask = opt_in(L, imask, "attn_mask", &err);
	if (!q || !k || !v || err)
		return -1;
	if (mask && causal)
		return lw_fail(L, "attn_mask and is_causal together");
	DType dt = lw_dtype(L, q);
	k = lw_cast(L, k, dt);
	v = lw_cast(L, v, dt);
	if (hq != hk) {
		k = repeat_heads(L, k, kv->rank, hq / hk);
		v = repeat_heads(L, v, kv->rank, hq / hk);
	}
	int64_t perm[16];
	if (kv->rank > 15)
		return lw_fail(L, "key of rank %d", kv->rank);
	for (int i = 0; i < kv->rank; i++)
		perm[i] = i;
	perm[kv->rank - 2] = kv->rank - 1;
	perm[kv->rank - 1] = kv->rank - 2;
	ValId s = lw_op2(L, "MatMul", q, transpose(L, k, perm, kv->rank));
	ValId scale;
	int64_t e;
	if (lw_has(L, -1, "scale"))
		scale = lw_scalar(L, lw_float(L, -1, "scale", 1), dt);
	else if (lw_dim_static(qv, L->src, -1, &e))
		scale = lw_scalar(L, 1 / sqrt((double)e), dt);
	else
		scale = lw_op1(L, "Reciprocal", lw_op1(L, "Sqrt", lw_cast(L,
		    shape_of(L, q, -1, INT64_MAX), dt)));
	s = lw_op2(L, "Mul", s, scale);
	ValId ninf = lw_scalar(L, -INFINITY, dt);
	if (causal) {
		ValId zero = lw_scalar_i64(L, 0), one = lw_scalar_i64(L, 1);
		NodeId rn = lw_emit(L, "Range", 3, (ValId[]){zero,
		    dim_scalar(L, q, -2), one}, 1);
		ValId rows = unsqueeze(L, settyped(L, rn, 0, DT_I64), 1);
		NodeId cn = lw_emit(L, "Range", 3, (ValId[]){zero,
		    dim_scalar(L, k, -2), one}, 1);
		ValId cols = settyped(L, cn, 0, DT_I64);
		mask = lw_op2t(L, "LessOrEqual", cols, rows, DT_BOOL);
	}
	if (mask && lw_dtype(L, mask) == DT_BOOL) {
		NodeId w = lw_emit(L, "Where", 3, (ValId[]){mask, s, ninf}, 1);
		s = settyped(L, w, 0, dt);
	} else if (mask) {
		s = lw_op2(L, "Add", s, lw_cast(L, mask, dt));
	}
	NodeId sm = lw_emit(L, "Softmax", 1, &s, 1);
	lw_attr_int(L, sm, "axis", -1);
	ValId a = settyped(L, sm, 0, dt);
	if (pdrop != 0) /* PyTorch drops attention weights after softmax */
		a = lw_res(L, train_dropout(L, a, pdrop), 0);
	bind_out(L, 0, lw_op2(L, "MatMul", a, v));
	if (lse && used(L, 1)) {
		int64_t ax = -1;
		bind_out(L, 1, reduce(L, "ReduceLogSumExp", s, &ax, 1, false));
	}
	return 0;
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False) */
static int
sdpa(Lower *L)
{
	return attention(L, 3, 4, 5, false);
}

/* _scaled_dot_product_flash_attention_for_cpu(query, key, value,
 * dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None) ->
 * (output, logsumexp) */
static int
sdpa_flash_cpu(Lower *L)
{
	return attention(L, -1, 3, 4, true);
}

/* ---------------------------------------------------- embedding, dropout */

/* embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
 * sparse=False): rows of weight; padding_idx only matters for gradients */
static int
embedding(Lower *L)
{
	ValId w = lw_in(L, 0, "weight"), i = lw_in(L, 1, "indices");
	if (!w || !i)
		return -1;
	NodeId n = lw_emit(L, "Gather", 2, (ValId[]){w, i}, 1);
	lw_attr_int(L, n, "axis", 0);
	bind_out(L, 0, settyped(L, n, 0, lw_dtype(L, w)));
	return 0;
}

/* Dropout's keep-mask, as 0/1 in x's dtype, of the shape PyTorch draws its
 * noise in: x's for dropout and alpha dropout, [N, C, 1, ...] for the
 * feature kinds (a whole channel is kept or dropped). */
static ValId
keep_mask(Lower *L, ValId x, double p, int rank, bool feature)
{
	DType dt = lw_dtype(L, x);
	ValId shape = shape_of(L, x, 0, INT64_MAX);
	if (feature && rank > 2) {
		int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
		NodeId c = lw_emit(L, "Concat", 2, (ValId[]){shape_of(L, x, 0,
		    2), lw_const_i64s(L, ones, rank - 2)}, 1);
		lw_attr_int(L, c, "axis", 0);
		shape = settyped(L, c, 0, DT_I64);
	}
	NodeId d = train_dropout(L, fill(L, shape, 1, dt), p);
	return lw_cast(L, lw_res(L, d, 1), dt);
}

/* Dropout at inference is the identity.  In training mode (--training) it
 * stays a dropout, one ONNX Dropout per site: x * keep / (1 - p) with the
 * keep-mask drawn by ONNX Runtime; the feature kinds drop whole channels,
 * the alpha kinds keep SELU's mean and variance (PyTorch's _dropout_impl:
 * x * keep * a + (keep - 1) * alpha * a + alpha * a * p). */
static int
dropout_common(Lower *L, bool train_dflt, bool feature, bool alpha)
{
	double p = lw_float(L, 1, "p", 0.5);
	bool train = lw_bool(L, 2, "train", train_dflt);
	if (!(p >= 0 && p <= 1))
		return lw_fail(L, "dropout probability has to be between 0 "
		    "and 1, but got %g", p);
	ValId x = lw_in(L, 0, "input");
	if (!x)
		return -1;
	if (!train || p == 0) {
		bind_out(L, 0, x);
		/* native_dropout's mask keeps everything */
		if (used(L, 1))
			bind_out(L, 1, fill(L, shape_of(L, x, 0, INT64_MAX), 1,
			    DT_BOOL));
		return 0;
	}
	if (!L->training)
		return lw_fail(L, "dropout in training mode (train=True, p=%g): "
		    "pass --training to export the model for training, or "
		    "export it in eval mode (model.eval())", p);
	const Value *xv = lw_srcval(L, 0, "input");
	int rank = xv ? xv->rank : 0;
	if (!feature && !alpha) {
		NodeId d = train_dropout(L, x, p);
		bind_out(L, 0, lw_res(L, d, 0));
		if (used(L, 1))
			bind_out(L, 1, lw_res(L, d, 1));
		return 0;
	}
	if (rank < 0 || rank > 8)
		return lw_fail(L, "input of rank %d", rank);
	DType dt = lw_dtype(L, x);
	ValId keep = keep_mask(L, x, p, rank, feature);
	if (!alpha) {
		ValId scale = lw_scalar(L, p == 1 ? 0 : 1 / (1 - p), dt);
		bind_out(L, 0, lw_op2(L, "Mul", x, lw_op2(L, "Mul", keep,
		    scale)));
		return 0;
	}
	const double al = 1.7580993408473766;
	double a = p == 1 ? 0 : 1 / sqrt((al * al * p + 1) * (1 - p));
	ValId y = lw_op2(L, "Mul", lw_op2(L, "Mul", x, keep),
	    lw_scalar(L, a, dt));
	ValId b = lw_op2(L, "Add", lw_op2(L, "Mul", lw_op2(L, "Sub", keep,
	    lw_scalar(L, 1, dt)), lw_scalar(L, al * a, dt)),
	    lw_scalar(L, al * a * p, dt));
	bind_out(L, 0, lw_op2(L, "Add", y, b));
	return 0;
}

/* dropout(input, p, train) */
static int
dropout(Lower *L)
{
	return dropout_common(L, false, false, false);
}

static int
feature_dropout(Lower *L)
{
	return dropout_common(L, false, true, false);
}

static int
alpha_dropout(Lower *L)
{
	return dropout_common(L, false, false, true);
}

static int
feature_alpha_dropout(Lower *L)
{
	return dropout_common(L, false, true, true);
}

/* native_dropout(input, p, train?) -> (output, mask); train None means
 * training */
static int
native_dropout(Lower *L)
{
	return dropout_common(L, true, false, false);
}

/* one_hot(self, num_classes=-1): -1 means max(self) + 1 */
static int
one_hot(Lower *L)
{
	int64_t nc = lw_int(L, 1, "num_classes", -1);
	ValId x = lw_cast(L, lw_in(L, 0, "self"), DT_I64);
	if (!x)
		return -1;
	ValId depth = nc >= 0 ? lw_scalar_i64(L, nc) : lw_op2(L, "Add",
	    reduce(L, "ReduceMax", x, NULL, 0, false), lw_scalar_i64(L, 1));
	ValId vals = lw_const_i64s(L, (int64_t[]){0, 1}, 2);
	NodeId n = lw_emit(L, "OneHot", 3, (ValId[]){x, depth, vals}, 1);
	lw_attr_int(L, n, "axis", -1);
	bind_out(L, 0, settyped(L, n, 0, DT_I64));
	return 0;
}

/* ------------------------------------------------------------------ table */

const LowerRule lw_rules_nn[] = {
	{"aten::convolution.default", convolution},
	{"aten::_convolution.default", convolution},
	{"aten::_convolution.deprecated", convolution},
	{"aten::conv1d.default", conv_nd},
	{"aten::conv2d.default", conv_nd},
	{"aten::conv3d.default", conv_nd},
	{"aten::conv1d.padding", conv_nd},
	{"aten::conv2d.padding", conv_nd},
	{"aten::conv3d.padding", conv_nd},
	{"aten::conv_transpose1d.default", conv_transpose_nd},
	{"aten::conv_transpose2d.input", conv_transpose_nd},
	{"aten::conv_transpose3d.input", conv_transpose_nd},

	{"aten::linear.default", linear},
	{"aten::addmm.default", addmm},
	{"aten::addmv.default", addmm},
	{"aten::baddbmm.default", addmm},
	{"aten::addbmm.default", addbmm},
	{"aten::mm.default", mm},
	{"aten::bmm.default", mm},
	{"aten::mv.default", mm},
	{"aten::dot.default", mm},
	{"aten::matmul.default", mm},
	{"aten::t.default", t},
	{"aten::numpy_T.default", numpy_t},
	{"aten::einsum.default", einsum},

	{"aten::_native_batch_norm_legit_no_training.default", bn_no_training},
	{"aten::_native_batch_norm_legit_functional.default", bn_functional},
	{"aten::_native_batch_norm_legit.default", bn_native},
	{"aten::_native_batch_norm_legit.no_stats", bn_no_stats},
	{"aten::native_batch_norm.default", bn_native},
	{"aten::batch_norm.default", bn_native},
	{"aten::instance_norm.default", instance_norm},
	{"aten::native_layer_norm.default", layer_norm},
	{"aten::layer_norm.default", layer_norm},
	{"aten::native_group_norm.default", native_group_norm},
	{"aten::group_norm.default", group_norm_rule},

	{"aten::max_pool1d.default", max_pool1d},
	{"aten::max_pool2d.default", max_pool2d},
	{"aten::max_pool3d.default", max_pool3d},
	{"aten::max_pool1d_with_indices.default", max_pool1d},
	{"aten::max_pool2d_with_indices.default", max_pool2d},
	{"aten::max_pool3d_with_indices.default", max_pool3d},
	{"aten::avg_pool1d.default", avg_pool1d},
	{"aten::avg_pool2d.default", avg_pool2d},
	{"aten::avg_pool3d.default", avg_pool3d},
	{"aten::adaptive_avg_pool1d.default", adaptive_avg1d},
	{"aten::adaptive_avg_pool2d.default", adaptive_avg2d},
	{"aten::_adaptive_avg_pool2d.default", adaptive_avg2d},
	{"aten::adaptive_avg_pool3d.default", adaptive_avg3d},
	{"aten::_adaptive_avg_pool3d.default", adaptive_avg3d},
	{"aten::adaptive_max_pool1d.default", adaptive_max1d},
	{"aten::adaptive_max_pool2d.default", adaptive_max2d},

	{"aten::upsample_nearest1d.vec", upsample_rule},
	{"aten::upsample_nearest2d.vec", upsample_rule},
	{"aten::upsample_nearest3d.vec", upsample_rule},
	{"aten::upsample_nearest1d.default", upsample_rule},
	{"aten::upsample_nearest2d.default", upsample_rule},
	{"aten::upsample_nearest3d.default", upsample_rule},
	{"aten::_upsample_nearest_exact1d.vec", upsample_rule},
	{"aten::_upsample_nearest_exact2d.vec", upsample_rule},
	{"aten::_upsample_nearest_exact3d.vec", upsample_rule},
	{"aten::_upsample_nearest_exact1d.default", upsample_rule},
	{"aten::_upsample_nearest_exact2d.default", upsample_rule},
	{"aten::_upsample_nearest_exact3d.default", upsample_rule},
	{"aten::upsample_linear1d.vec", upsample_rule},
	{"aten::upsample_bilinear2d.vec", upsample_rule},
	{"aten::upsample_trilinear3d.vec", upsample_rule},
	{"aten::upsample_bicubic2d.vec", upsample_rule},
	{"aten::upsample_linear1d.default", upsample_rule},
	{"aten::upsample_bilinear2d.default", upsample_rule},
	{"aten::upsample_trilinear3d.default", upsample_rule},
	{"aten::upsample_bicubic2d.default", upsample_rule},
	{"aten::pixel_shuffle.default", pixel_shuffle},
	{"aten::pixel_unshuffle.default", pixel_unshuffle},

	{"aten::scaled_dot_product_attention.default", sdpa},
	{"aten::_scaled_dot_product_flash_attention_for_cpu.default",
	    sdpa_flash_cpu},

	{"aten::embedding.default", embedding},
	{"aten::dropout.default", dropout},
	{"aten::feature_dropout.default", feature_dropout},
	{"aten::alpha_dropout.default", alpha_dropout},
	{"aten::feature_alpha_dropout.default", feature_alpha_dropout},
	{"aten::native_dropout.default", native_dropout},
	{"aten::one_hot.default", one_hot},
	{NULL, NULL},
};
