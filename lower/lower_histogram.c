/* lower_histogram.c - lowering rules for torch.histogram and
 * torch.histogramdd: aten::histogram (.bin_ct, .bins_tensor),
 * aten::histogramdd (.default, .int_bins, .TensorList_bins) and the
 * overloads its core form calls, _histogramdd_bin_edges,
 * _histogramdd_from_bin_cts and _histogramdd_from_bin_tensors.
 *
 * They follow PyTorch's CPU kernels (ATen/native/Histogram.cpp,
 * cpu/HistogramKernel.cpp).  The input is read as M points of D
 * coordinates (histogram: D = 1).  With a bin count, each dim's edges are
 * linspace(lo, hi, K + 1): lo, hi the range given, else the dim's min and
 * max, an empty range widened by 0.5 each way in double, then rounded to
 * the input's dtype; linspace's CPU kernel computes start + step * i
 * below the half and end - step * (steps - 1 - i) above it, each as one
 * fused multiply-add (GCC contracts them), which the graph reproduces
 * (float: in double; double: with error-free products and sums).  A
 * point counts where every coordinate lies in [first edge, last edge]
 * (NaN never does); its bin is std::upper_bound over the edges, less 1,
 * the last edge falling in the last bin.  With a bin count the kernel
 * guesses the bin as (x - lo) * K / (hi - lo) and searches the edges
 * from the bin before to the one after it, a search of at most three
 * edges; with tensor edges it searches them all.  The graph runs
 * upper_bound's own binary search, unrolled (it needs as many steps as
 * the edge count has bits), so edges that are not sorted give what the
 * kernel gives too.  The counts (or weights) add up with ScatterElements
 * (reduction add) into the flattened histogram; density divides by
 * their total and by each dim's bin widths, in the kernel's order.
 * (torch 2.14's linspace was checked to equal the fused form for 2 to 101
 * steps, its vector loop included, in float and double.) */
#include <math.h>
#include <string.h>

#include "lower.h"
#include "lower_nn.h"

enum { HMAXD = 64 };

/* one histogram being built */
typedef struct Hist {
	DType dt;            /* FLOAT or DOUBLE: the input's */
	int D;               /* dims of a point */
	int64_t K[HMAXD];    /* bins of each dim */
	ValId col[HMAXD];    /* [M] the coordinates of each dim */
	ValId edges[HMAXD];  /* [K + 1] */
	bool linear;         /* edges from a bin count: local search */
} Hist;

static ValId
typed(Lower *L, NodeId n, DType dt)
{
	return lw_typed(L, n, dt);
}

static ValId
where(Lower *L, ValId c, ValId a, ValId b)
{
	return typed(L, lw_emit(L, "Where", 3, (ValId[]){c, a, b}, 1),
	    lw_dtype(L, a));
}

static ValId
cmp(Lower *L, const char *op, ValId a, ValId b)
{
	return lw_op2t(L, op, a, b, DT_BOOL);
}

/* element k of the 1-D v, 0-d */
static ValId
elem(Lower *L, ValId v, int64_t k)
{
	NodeId n = lw_emit(L, "Gather", 2, (ValId[]){v, lw_scalar_i64(L, k)},
	    1);
	lw_attr_int(L, n, "axis", 0);
	return typed(L, n, lw_dtype(L, v));
}

static ValId
gather(Lower *L, ValId v, ValId idx)
{
	NodeId n = lw_emit(L, "Gather", 2, (ValId[]){v, idx}, 1);
	lw_attr_int(L, n, "axis", 0);
	return typed(L, n, lw_dtype(L, v));
}

/* a 1-D constant of dtype dt holding v[0..n) */
static ValId
vec(Lower *L, const double *v, int64_t n, DType dt)
{
	void *buf;
	if (dt == DT_F32) {
		float *f = lw_scratch(L, (size_t)n + 1, sizeof *f);
		for (int64_t i = 0; i < n; i++)
			f[i] = (float)v[i];
		buf = f;
	} else {
		double *d = lw_scratch(L, (size_t)n + 1, sizeof *d);
		memcpy(d, v, (size_t)n * sizeof *d);
		buf = d;
	}
	return lw_const(L, dt, 1, &n, buf);
}

/* TwoSum: s + t == a + b exactly, s = fl(a + b) */
static void
two_sum(Lower *L, ValId a, ValId b, ValId *s, ValId *t)
{
	*s = lw_op2(L, "Add", a, b);
	ValId bb = lw_op2(L, "Sub", *s, a);
	ValId ab = lw_op2(L, "Sub", *s, bb);
	*t = lw_op2(L, "Add", lw_op2(L, "Sub", a, ab), lw_op2(L, "Sub", b,
	    bb));
}

/* fl(c + s * i) rounded once, as a fused multiply-add gives it, for the
 * 0-d s and c and the small whole numbers i (1-D, n of them) */
static ValId
fma_vec(Lower *L, ValId s, const double *i, int64_t n, ValId c, DType dt)
{
	if (dt == DT_F32) {
		/* a float product is exact in double; one rounding of the
		 * sum to double, then to float, differs from one rounding
		 * only when the first lands on a float tie */
		ValId s64 = lw_cast(L, s, DT_F64), c64 = lw_cast(L, c, DT_F64);
		ValId r = lw_op2(L, "Add", c64, lw_op2(L, "Mul", s64,
		    vec(L, i, n, DT_F64)));
		return lw_cast(L, r, DT_F32);
	}
	/* double: s split into halves of 26 bits (Veltkamp), whose
	 * products with i (below 2^26) are exact; p + e == s * i exactly */
	ValId iv = vec(L, i, n, DT_F64);
	ValId cs = lw_op2(L, "Mul", s, lw_scalar(L, 134217729.0, DT_F64));
	ValId sh = lw_op2(L, "Sub", cs, lw_op2(L, "Sub", cs, s));
	ValId sl = lw_op2(L, "Sub", s, sh);
	ValId p = lw_op2(L, "Mul", s, iv);
	ValId e = lw_op2(L, "Add", lw_op2(L, "Sub", lw_op2(L, "Mul", sh, iv),
	    p), lw_op2(L, "Mul", sl, iv));
	ValId sum, t;
	two_sum(L, c, p, &sum, &t);
	return lw_op2(L, "Add", sum, lw_op2(L, "Add", t, e));
}

/* linspace(start, end, K + 1) as ATen's CPU kernel computes it */
static ValId
linspace(Lower *L, ValId start, ValId end, int64_t K, DType dt)
{
	int64_t steps = K + 1, half = steps / 2;
	ValId step = lw_op2(L, "Div", lw_op2(L, "Sub", end, start),
	    lw_scalar(L, (double)K, dt));
	double *i = lw_scratch(L, (size_t)steps + 1, sizeof *i);
	for (int64_t k = 0; k < half; k++)
		i[k] = (double)k;
	ValId lo = fma_vec(L, step, i, half, start, dt);
	for (int64_t k = half; k < steps; k++)
		i[k - half] = (double)(steps - 1 - k);
	ValId hi = fma_vec(L, lw_op1(L, "Neg", step), i, steps - half, end,
	    dt);
	return half ? lw_concat(L, (ValId[]){lo, hi}, 2, 0, dt) : hi;
}

/* The edges of every dim from bin counts: range (2 D floats) or, if
 * nr < 0, the data's extremes.  0, or -1 after reporting. */
static int
edges_from_counts(Lower *L, Hist *h, const double *range, int nr,
    bool empty)
{
	for (int d = 0; d < h->D; d++) {
		ValId start, end;
		if (nr >= 0 || empty) {
			double lo = nr >= 0 ? range[2 * d] : 0.0;
			double hi = nr >= 0 ? range[2 * d + 1] : 1.0;
			if (!isfinite(lo) || !isfinite(hi) || lo > hi)
				return lw_fail(L, "range [%g, %g] of dim %d is "
				    "not finite and increasing", lo, hi, d);
			if (lo == hi) {
				lo -= 0.5;
				hi += 0.5;
			}
			start = lw_scalar(L, lo, h->dt);
			end = lw_scalar(L, hi, h->dt);
		} else {
			NodeId rn = lw_emit(L, "ReduceMin", 1, &h->col[d], 1);
			lw_attr_int(L, rn, "keepdims", 0);
			NodeId rx = lw_emit(L, "ReduceMax", 1, &h->col[d], 1);
			lw_attr_int(L, rx, "keepdims", 0);
			ValId mn = typed(L, rn, h->dt), mx = typed(L, rx, h->dt);
			ValId m64 = lw_cast(L, mn, DT_F64);
			ValId x64 = lw_cast(L, mx, DT_F64);
			ValId w = where(L, cmp(L, "Equal", m64, x64),
			    lw_scalar(L, 0.5, DT_F64),
			    lw_scalar(L, 0.0, DT_F64));
			start = lw_cast(L, lw_op2(L, "Sub", m64, w), h->dt);
			end = lw_cast(L, lw_op2(L, "Add", x64, w), h->dt);
		}
		h->edges[d] = linspace(L, start, end, h->K[d], h->dt);
	}
	return lw_failed(L) ? -1 : 0;
}

/* std::upper_bound over edges e[first, first + len) for each element x,
 * unrolled for lengths below 2^bits */
static ValId
upper_bound(Lower *L, ValId e, int64_t n, ValId x, ValId first, ValId len,
    int bits)
{
	ValId one = lw_scalar_i64(L, 1), zero = lw_scalar_i64(L, 0);
	ValId last = lw_scalar_i64(L, n - 1);
	for (int it = 0; it < bits; it++) {
		ValId half = lw_op2(L, "Div", len, lw_scalar_i64(L, 2));
		ValId mid = lw_op2(L, "Add", first, half);
		ValId v = gather(L, e, lw_op2(L, "Min", mid, last));
		ValId lt = cmp(L, "Less", x, v);
		ValId on = cmp(L, "Greater", len, zero);
		ValId right = lw_op2t(L, "And", on, lw_op1(L, "Not", lt),
		    DT_BOOL);
		first = where(L, right, lw_op2(L, "Add", mid, one), first);
		ValId nlen = where(L, lt, half, lw_op2(L, "Sub", lw_op2(L,
		    "Sub", len, half), one));
		len = where(L, on, nlen, len);
	}
	return first;
}

static int
bits_of(int64_t n)
{
	int b = 0;
	for (; n > 0; n >>= 1)
		b++;
	return b;
}

/* The flattened bin of each point in dim d, and whether it counts. */
static ValId
bin_of(Lower *L, const Hist *h, int d, ValId *valid)
{
	int64_t K = h->K[d];
	ValId e = h->edges[d], x = h->col[d];
	ValId e0 = elem(L, e, 0), ek = elem(L, e, K);
	*valid = lw_op2t(L, "And", cmp(L, "GreaterOrEqual", x, e0),
	    cmp(L, "LessOrEqual", x, ek), DT_BOOL);
	/* points that do not count are searched as the first edge */
	x = where(L, *valid, x, e0);
	ValId first, len;
	int bits;
	if (h->linear) {
		ValId q = lw_op2(L, "Div", lw_op2(L, "Mul", lw_op2(L, "Sub",
		    x, e0), lw_scalar(L, (double)K, h->dt)), lw_op2(L, "Sub",
		    ek, e0));
		ValId pos = lw_cast(L, q, DT_I64);
		first = lw_op2(L, "Max", lw_op2(L, "Sub", pos,
		    lw_scalar_i64(L, 1)), lw_scalar_i64(L, 0));
		ValId end = lw_op2(L, "Min", lw_op2(L, "Add", pos,
		    lw_scalar_i64(L, 2)), lw_scalar_i64(L, K + 1));
		len = lw_op2(L, "Max", lw_op2(L, "Sub", end, first),
		    lw_scalar_i64(L, 0));
		bits = 2;
	} else {
		/* 0-d: the first step broadcasts them to the points */
		first = lw_scalar_i64(L, 0);
		len = lw_scalar_i64(L, K + 1);
		bits = bits_of(K + 1);
	}
	ValId ub = upper_bound(L, e, K + 1, x, first, len, bits);
	/* the last edge is in the last bin; below the first edge (unsorted
	 * edges, where the kernel writes out of bounds) the first bin */
	ValId pos = lw_op2(L, "Sub", ub, lw_scalar_i64(L, 1));
	pos = lw_op2(L, "Min", lw_op2(L, "Max", pos, lw_scalar_i64(L, 0)),
	    lw_scalar_i64(L, K - 1));
	return pos;
}

/* The histogram, shaped [K0, ..., K(D-1)]; w is the weight ([M]) or 0. */
static ValId
count(Lower *L, const Hist *h, ValId w, bool density)
{
	int64_t P = 1, stride[HMAXD];
	for (int d = h->D - 1; d >= 0; d--) {
		stride[d] = P;
		P *= h->K[d];
	}
	ValId flat = 0, valid = 0;
	for (int d = 0; d < h->D; d++) {
		ValId ok;
		ValId pos = bin_of(L, h, d, &ok);
		if (stride[d] != 1)
			pos = lw_op2(L, "Mul", pos, lw_scalar_i64(L,
			    stride[d]));
		flat = flat ? lw_op2(L, "Add", flat, pos) : pos;
		valid = valid ? lw_op2t(L, "And", valid, ok, DT_BOOL) : ok;
	}
	ValId upd = w ? where(L, valid, w, lw_scalar(L, 0.0, h->dt)) :
	    lw_cast(L, valid, h->dt);
	ValId zeros = lw_op2(L, "Expand", lw_scalar(L, 0.0, h->dt),
	    lw_const_i64s(L, &P, 1));
	NodeId s = lw_emit(L, "ScatterElements", 3, (ValId[]){zeros, flat,
	    upd}, 1);
	lw_attr_int(L, s, "axis", 0);
	lw_attr_str(L, s, "reduction", "add");
	ValId hist = lw_reshape(L, typed(L, s, h->dt), lw_const_i64s(L, h->K,
	    h->D));
	if (!density)
		return hist;
	ValId tot = typed(L, lw_emit(L, "ReduceSum", 1, &hist, 1), h->dt);
	hist = lw_op2(L, "Div", hist, tot);
	for (int d = 0; d < h->D; d++) {
		int64_t K = h->K[d], shp[HMAXD];
		ValId wd = lw_op2(L, "Sub", lw_slice_const(L, h->edges[d], 0, 1,
		    K + 1, 1), lw_slice_const(L, h->edges[d], 0, 0, K, 1));
		for (int k = 0; k < h->D; k++)
			shp[k] = k == d ? K : 1;
		hist = lw_op2(L, "Div", hist, lw_reshape(L, wd,
		    lw_const_i64s(L, shp, h->D)));
	}
	return hist;
}

/* The op's form. */
typedef enum HForm {
	HF_1D_CT, HF_1D_TENSOR,   /* histogram.bin_ct, .bins_tensor */
	HF_DD_CTS, HF_DD_INT, HF_DD_TENSORS,  /* histogramdd overloads */
	HF_EDGES, HF_FROM_CTS, HF_FROM_TENSORS  /* the core form's */
} HForm;

/* Reads the input into h (points [M, D], columns), its weight into *w.
 * 0, or -1 after reporting. */
static int
read_input(Lower *L, Hist *h, bool dd, int wpos, ValId *w, bool *empty)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv || sv->kind != VK_TENSOR || sv->rank < 0)
		return lw_fail(L, "the input must be a tensor of known rank");
	h->dt = (DType)sv->dtype;
	if (h->dt != DT_F32 && h->dt != DT_F64)
		return lw_fail(L, "histograms of %s are not supported (float "
		    "and double are)", ir_dtype_name(h->dt));
	int64_t D = 1, M = 1, n;
	if (dd) {
		if (sv->rank < 2 || !lw_sdim(L, sv, -1, &D) || D < 1 ||
		    D > HMAXD)
			return lw_fail(L, "histogramdd needs an input of rank "
			    "2 or more with a static last dim of 1 to %d",
			    HMAXD);
	}
	*empty = false;
	for (int k = 0; k < sv->rank - (dd ? 1 : 0); k++)
		if (!lw_sdim(L, sv, k, &n))
			M = -1;
		else if (M >= 0)
			M *= n;
	*empty = M == 0;
	h->D = (int)D;
	ValId x = lw_in(L, 0, "self");
	ValId pts = lw_reshape(L, x, lw_const_i64s(L, (int64_t[]){-1, D}, 2));
	for (int d = 0; d < h->D; d++) {
		NodeId g = lw_emit(L, "Gather", 2, (ValId[]){pts,
		    lw_scalar_i64(L, d)}, 1);
		lw_attr_int(L, g, "axis", 1);
		h->col[d] = typed(L, g, h->dt);
	}
	*w = 0;
	if (lw_has(L, wpos, "weight")) {
		const Value *wv = lw_srcval(L, wpos, "weight");
		if (!wv || wv->kind != VK_TENSOR || wv->dtype != h->dt)
			return lw_fail(L, "weight must be a tensor of the "
			    "input's dtype");
		*w = lw_reshape(L, lw_in(L, wpos, "weight"), lw_i64v(L, -1));
	}
	return lw_failed(L) ? -1 : 0;
}

static int
hist_rule(Lower *L, HForm f)
{
	Hist h;
	memset(&h, 0, sizeof h);
	bool dd = f != HF_1D_CT && f != HF_1D_TENSOR;
	/* keyword-only after bins in all but histogramdd's own overloads */
	bool kwonly = f != HF_DD_CTS && f != HF_DD_INT && f != HF_DD_TENSORS;
	int rpos = kwonly ? -1 : 2, wpos = kwonly ? -1 : 3;
	int dpos = kwonly ? -1 : 4;
	ValId w = 0;
	bool empty = false;
	if (read_input(L, &h, dd, wpos, &w, &empty) < 0)
		return -1;
	bool density = lw_bool(L, dpos, "density", false);
	bool tensors = f == HF_1D_TENSOR || f == HF_DD_TENSORS ||
	    f == HF_FROM_TENSORS;
	if (tensors) {
		LwTensorList tl;
		ValId one_v[1];
		const Value *one_s[1];
		int n = 1;
		if (f == HF_1D_TENSOR) {
			one_v[0] = lw_in(L, 1, "bins");
			one_s[0] = lw_srcval(L, 1, "bins");
			tl.v = one_v;
			tl.s = one_s;
		} else {
			n = lw_tensor_list(L, 1, "bins", &tl);
			if (n < 0)
				return -1;
		}
		if (n != h.D)
			return lw_fail(L, "%d sequences of bin edges for a "
			    "%d-dimensional histogram", n, h.D);
		for (int d = 0; d < h.D; d++) {
			int64_t ne;
			const Value *ev = tl.s[d];
			if (!ev || ev->kind != VK_TENSOR || ev->rank != 1 ||
			    ev->dtype != h.dt || !lw_sdim(L, ev, 0, &ne) ||
			    ne < 2)
				return lw_fail(L, "bin edges must be 1-D "
				    "tensors of the input's dtype with a "
				    "static size of 2 or more");
			h.K[d] = ne - 1;
			h.edges[d] = tl.v[d];
		}
	} else {
		int64_t bins[HMAXD];
		int nb;
		if (f == HF_1D_CT || f == HF_DD_INT) {
			bins[0] = lw_int(L, 1, "bins", 100);
			nb = h.D;
			for (int d = 1; d < h.D; d++)
				bins[d] = bins[0];
		} else {
			nb = lw_ints(L, 1, "bins", bins, HMAXD);
		}
		if (lw_failed(L))
			return -1;
		if (nb != h.D)
			return lw_fail(L, "%d bin counts for a %d-dimensional "
			    "histogram", nb, h.D);
		for (int d = 0; d < h.D; d++) {
			if (bins[d] < 1)
				return lw_fail(L, "bins must be > 0, got %lld",
				    (long long)bins[d]);
			h.K[d] = bins[d];
		}
		double range[2 * HMAXD];
		int nr = -1;
		const Arg *ra = lw_arg(L, rpos, "range");
		if (ra && ra->kind != A_NONE) {
			if (ra->kind != A_LIST && ra->kind != A_TUPLE)
				return lw_fail(L, "range must be a list of "
				    "numbers");
			const Arg *it = ir_items(L->src, ra);
			nr = (int)ra->u.list.n;
			if (nr != 2 * h.D)
				return lw_fail(L, "range needs %d numbers, "
				    "has %d", 2 * h.D, nr);
			for (int k = 0; k < nr; k++) {
				if (it[k].kind == A_FLOAT)
					range[k] = it[k].u.f;
				else if (it[k].kind == A_INT)
					range[k] = (double)it[k].u.i;
				else
					return lw_fail(L, "range must be "
					    "constant numbers");
			}
		}
		if (nr < 0 && !empty) {
			/* a run-time M of 0 would take [0, 1]: refused */
			const Value *sv = lw_srcval(L, 0, "self");
			for (int k = 0; k < sv->rank - (dd ? 1 : 0); k++) {
				int64_t n;
				if (!lw_sdim(L, sv, k, &n))
					return lw_fail(L, "edges from the data "
					    "need a static number of points");
			}
		}
		h.linear = true;
		if (edges_from_counts(L, &h, range, nr, empty) < 0)
			return -1;
	}
	uint32_t nout = lw_node(L)->nout;
	if (f == HF_EDGES) {
		for (int d = 0; d < h.D && (uint32_t)d < nout; d++)
			lw_bind(L, d, h.edges[d]);
		return lw_failed(L) ? -1 : 0;
	}
	lw_bind(L, 0, count(L, &h, w, density));
	for (int d = 0; d < h.D && (uint32_t)d + 1 < nout; d++)
		lw_bind(L, d + 1, h.edges[d]);
	return lw_failed(L) ? -1 : 0;
}

#define HRULE(name, form) \
	static int name(Lower *L) \
	{ \
		return hist_rule(L, form); \
	}
HRULE(hist_ct, HF_1D_CT)
HRULE(hist_tensor, HF_1D_TENSOR)
HRULE(histdd_cts, HF_DD_CTS)
HRULE(histdd_int, HF_DD_INT)
HRULE(histdd_tensors, HF_DD_TENSORS)
HRULE(histdd_edges, HF_EDGES)
HRULE(histdd_from_cts, HF_FROM_CTS)
HRULE(histdd_from_tensors, HF_FROM_TENSORS)

/* bincount(self, weights=None, minlength=0): how often each value of a
 * 1-D integer self occurs (or its summed weights), in max(self) + 1 bins
 * or minlength if more: a size known at run time, read from the data
 * (-1 joins self so that an empty one gives 0 bins).  PyTorch refuses a
 * negative value when it runs; the graph cannot, so one is counted
 * where ScatterElements puts it (from the end). */
static int
bincount(Lower *L)
{
	const Value *sv = lw_srcval(L, 0, "self");
	if (!sv || sv->kind != VK_TENSOR || sv->rank != 1 ||
	    !ir_dtype_is_int((DType)sv->dtype))
		return lw_fail(L, "bincount only supports 1-d non-negative "
		    "integral inputs");
	int64_t minlength = lw_int(L, 2, "minlength", 0);
	if (minlength < 0)
		return lw_fail(L, "minlength should be >= 0");
	DType od = lw_outdtype(L);
	ValId x = lw_cast(L, lw_in(L, 0, "self"), DT_I64), w = 0;
	if (lw_has(L, 1, "weights")) {
		const Value *wv = lw_srcval(L, 1, "weights");
		if (!wv || wv->rank != 1)
			return lw_fail(L, "weights should be 1-d and have the "
			    "same length as input");
		w = lw_cast(L, lw_in(L, 1, "weights"), od);
	}
	if (!x || lw_failed(L))
		return -1;
	int64_t ax = 0;
	ValId ends[2] = {x, lw_const_i64s(L, (int64_t[]){-1}, 1)};
	ValId mx = lwn_reduce(L, "ReduceMax", lw_concat(L, ends, 2, 0, DT_I64),
	    &ax, 1, true);
	ValId n = lw_op2(L, "Max", lw_op2(L, "Add", mx, lw_scalar_i64(L, 1)),
	    lw_const_i64s(L, &minlength, 1));
	ValId zeros = lw_op2(L, "Expand", lw_scalar(L, 0.0, od), n);
	ValId shp = lw_op1(L, "Shape", x);
	lw_settype(L, shp, DT_I64);
	ValId upd = w ? w : lw_op2(L, "Expand", lw_scalar(L, 1.0, od), shp);
	NodeId s = lw_emit(L, "ScatterElements", 3, (ValId[]){zeros, x, upd},
	    1);
	lw_attr_int(L, s, "axis", 0);
	lw_attr_str(L, s, "reduction", "add");
	lw_bind(L, 0, typed(L, s, od));
	return 0;
}

#define LW_FAMILY_histogram LW_THIS
const LowerRule lw_rules_histogram[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
