/* losses.c - inside the decompose plugin: the loss functions and
 * distances of torch.nn.functional as the element-wise ops and
 * reductions they are defined by (PyTorch's own composite kernels). */
#include "decompose.h"

/* reduction: 0 none, 1 mean, 2 sum */
static int
reduced(Rw *r, TV l, int64_t red)
{
	TV o = dec_out(r, 0);
	if (!o.v)
		return 0;
	if (red == 1)
		l = dec_red(r, "aten::mean.dim", l, NULL, -1, 0);
	else if (red == 2)
		l = dec_red(r, "aten::sum.dim_IntList", l, NULL, -1, 0);
	dec_bind(r, 0, l.v);
	return 1;
}

/* the two operands and the reduction at position rpos */
static int
pair(Rw *r, TV *x, TV *y, int rpos, int64_t *red)
{
	*x = dec_in(r, 0, "self");
	*y = dec_in(r, 1, "target");
	TV o = dec_out(r, 0);
	return x->v && y->v && o.v &&
	    dec_arg_int(r, rpos, "reduction", 1, red) && *red >= 0 && *red <= 2;
}

/* l1_loss: |x - y| */
int
dec_l1_loss(Rw *r)
{
	TV x, y;
	int64_t red;
	if (!pair(r, &x, &y, 2, &red))
		return 0;
	return reduced(r, dec_u(r, "aten::abs.default",
	    dec_b(r, "aten::sub.Tensor", x, y)), red);
}

/* mse_loss: (x - y)^2 */
int
dec_mse_loss(Rw *r)
{
	TV x, y;
	int64_t red;
	if (!pair(r, &x, &y, 2, &red))
		return 0;
	TV d = dec_b(r, "aten::sub.Tensor", x, y);
	return reduced(r, dec_b(r, "aten::mul.Tensor", d, d), red);
}

/* smooth_l1_loss(x, y, reduction, beta=1): 0.5 d^2 / beta where d < beta,
 * else d - 0.5 beta (d = |x - y|; beta 0 is l1) and huber_loss(x, y,
 * reduction, delta=1): 0.5 d^2 where d < delta, else delta (d - 0.5
 * delta) */
static int
smooth(Rw *r, int huber)
{
	TV x, y;
	int64_t red;
	double b;
	if (!pair(r, &x, &y, 2, &red) ||
	    !dec_arg_float(r, 3, huber ? "delta" : "beta", 1.0, &b) || b < 0)
		return 0;
	TV d = dec_u(r, "aten::abs.default", dec_b(r, "aten::sub.Tensor", x, y));
	if (b == 0 && !huber)
		return reduced(r, d, red);
	TV q = dec_s(r, "aten::mul.Tensor", dec_b(r, "aten::mul.Tensor", d, d),
	    huber ? 0.5 : 0.5 / b);
	TV l = dec_s(r, "aten::sub.Tensor", d, 0.5 * b);
	if (huber)
		l = dec_s(r, "aten::mul.Tensor", l, b);
	return reduced(r, dec_sel(r, dec_cs(r, "aten::lt.Scalar", d, b), q, l),
	    red);
}

int dec_smooth_l1_loss(Rw *r) { return smooth(r, 0); }
int dec_huber_loss(Rw *r) { return smooth(r, 1); }

/* soft_margin_loss: log(1 + exp(-y x)) */
int
dec_soft_margin_loss(Rw *r)
{
	TV x, y;
	int64_t red;
	if (!pair(r, &x, &y, 2, &red))
		return 0;
	TV e = dec_u(r, "aten::exp.default", dec_u(r, "aten::neg.default",
	    dec_b(r, "aten::mul.Tensor", y, x)));
	return reduced(r, dec_u(r, "aten::log1p.default", e), red);
}

/* binary_cross_entropy(x, y, weight=None, reduction): -(y log x +
 * (1 - y) log(1 - x)) * weight, each log clamped at -100 */
int
dec_binary_cross_entropy(Rw *r)
{
	TV x, y, w = dec_in(r, 2, "weight");
	int64_t red;
	if (!pair(r, &x, &y, 3, &red))
		return 0;
	TV lx = dec_s(r, "aten::clamp_min.default",
	    dec_u(r, "aten::log.default", x), -100);
	TV l1x = dec_s(r, "aten::clamp_min.default",
	    dec_u(r, "aten::log.default", dec_s(r, "aten::rsub.Scalar", x, 1)),
	    -100);
	TV l = dec_b(r, "aten::add.Tensor", dec_b(r, "aten::mul.Tensor", y, lx),
	    dec_b(r, "aten::mul.Tensor", dec_s(r, "aten::rsub.Scalar", y, 1),
	    l1x));
	l = dec_u(r, "aten::neg.default", l);
	if (w.v)
		l = dec_b(r, "aten::mul.Tensor", l, w);
	return reduced(r, l, red);
}

/* binary_cross_entropy_with_logits(x, y, weight, pos_weight, reduction):
 * (1 - y) x + (1 + (pw - 1) y) (log1p(exp(-|x|)) + max(-x, 0)) */
int
dec_bce_with_logits(Rw *r)
{
	TV x, y, w = dec_in(r, 2, "weight"), pw = dec_in(r, 3, "pos_weight");
	int64_t red;
	if (!pair(r, &x, &y, 4, &red))
		return 0;
	TV sp = dec_b(r, "aten::add.Tensor", dec_u(r, "aten::log1p.default",
	    dec_u(r, "aten::exp.default", dec_u(r, "aten::neg.default",
	    dec_u(r, "aten::abs.default", x)))), dec_s(r,
	    "aten::clamp_min.default", dec_u(r, "aten::neg.default", x), 0));
	if (pw.v) {
		TV c = dec_s(r, "aten::add.Tensor", dec_b(r, "aten::mul.Tensor",
		    dec_s(r, "aten::sub.Tensor", pw, 1), y), 1);
		sp = dec_b(r, "aten::mul.Tensor", c, sp);
	}
	TV l = dec_b(r, "aten::add.Tensor", dec_b(r, "aten::mul.Tensor",
	    dec_s(r, "aten::rsub.Scalar", y, 1), x), sp);
	if (w.v)
		l = dec_b(r, "aten::mul.Tensor", l, w);
	return reduced(r, l, red);
}

/* hinge_embedding_loss(x, y, margin=1, reduction): x where y != -1 plus
 * max(margin - x, 0) where y != 1 */
int
dec_hinge_embedding_loss(Rw *r)
{
	TV x, y;
	int64_t red;
	double m;
	if (!pair(r, &x, &y, 3, &red) || !dec_arg_float(r, 2, "margin", 1, &m))
		return 0;
	TV mc = dec_s(r, "aten::clamp_min.default",
	    dec_s(r, "aten::rsub.Scalar", x, m), 0);
	TV a = dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", y, 1), 0, mc);
	TV b = dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", y, -1), 0, x);
	return reduced(r, dec_b(r, "aten::add.Tensor", a, b), red);
}

/* margin_ranking_loss(a, b, y, margin=0, reduction): max(-y (a - b) +
 * margin, 0) */
int
dec_margin_ranking_loss(Rw *r)
{
	TV a = dec_in(r, 0, "input1"), b = dec_in(r, 1, "input2");
	TV y = dec_in(r, 2, "target");
	int64_t red;
	double m;
	if (!a.v || !b.v || !y.v || !dec_arg_float(r, 3, "margin", 0, &m) ||
	    !dec_arg_int(r, 4, "reduction", 1, &red) || red < 0 || red > 2)
		return 0;
	TV d = dec_u(r, "aten::neg.default", dec_b(r, "aten::mul.Tensor", y,
	    dec_b(r, "aten::sub.Tensor", a, b)));
	/* integers: the float margin makes the sum float, as in PyTorch */
	d = dec_as_out_float(r, d);
	return reduced(r, dec_s(r, "aten::clamp_min.default",
	    dec_s(r, "aten::add.Tensor", d, m), 0), red);
}

/* cosine_embedding_loss(a, b, y, margin=0, reduction): cos = <a, b> /
 * sqrt((|a|^2 + 1e-12)(|b|^2 + 1e-12)) over the last dim; 1 - cos where
 * y == 1, max(cos - margin, 0) where y == -1 */
int
dec_cosine_embedding_loss(Rw *r)
{
	TV a = dec_in(r, 0, "input1"), b = dec_in(r, 1, "input2");
	TV y = dec_in(r, 2, "target");
	int64_t red, last = -1;
	double m;
	if (!a.v || !b.v || !y.v || a.t.rank < 1 ||
	    !dec_arg_float(r, 3, "margin", 0, &m) ||
	    !dec_arg_int(r, 4, "reduction", 1, &red) || red < 0 || red > 2)
		return 0;
	a = dec_as_out_float(r, a);
	b = dec_as_out_float(r, b);
	TV ab = dec_red(r, "aten::sum.dim_IntList", dec_b(r, "aten::mul.Tensor",
	    a, b), &last, 1, 0);
	TV aa = dec_s(r, "aten::add.Tensor", dec_red(r, "aten::sum.dim_IntList",
	    dec_b(r, "aten::mul.Tensor", a, a), &last, 1, 0), 1e-12);
	TV bb = dec_s(r, "aten::add.Tensor", dec_red(r, "aten::sum.dim_IntList",
	    dec_b(r, "aten::mul.Tensor", b, b), &last, 1, 0), 1e-12);
	TV c = dec_b(r, "aten::div.Tensor", ab, dec_u(r, "aten::sqrt.default",
	    dec_b(r, "aten::mul.Tensor", aa, bb)));
	TV pos = dec_sel_s(r, dec_cs(r, "aten::ne.Scalar", y, 1), 0,
	    dec_s(r, "aten::rsub.Scalar", c, 1));
	TV neg = dec_sel_s(r, dec_cs(r, "aten::ne.Scalar", y, -1), 0,
	    dec_s(r, "aten::clamp_min.default", dec_s(r, "aten::sub.Tensor", c,
	    m), 0));
	return reduced(r, dec_b(r, "aten::add.Tensor", pos, neg), red);
}

/* kl_div(x, y, reduction, log_target=False): y (log y - x), 0 where
 * y == 0; exp(y) (y - x) for a log target */
int
dec_kl_div(Rw *r)
{
	TV x, y;
	int64_t red, lt;
	if (!pair(r, &x, &y, 2, &red) ||
	    !dec_arg_int(r, 3, "log_target", 0, &lt))
		return 0;
	TV l;
	if (lt)
		l = dec_b(r, "aten::mul.Tensor", dec_u(r, "aten::exp.default", y),
		    dec_b(r, "aten::sub.Tensor", y, x));
	else
		l = dec_b(r, "aten::sub.Tensor", dec_b(r, "aten::xlogy.Tensor", y,
		    y), dec_b(r, "aten::mul.Tensor", y, x));
	return reduced(r, l, red);
}

/* poisson_nll_loss(input, target, log_input, full, eps, reduction):
 * exp(x) - y x, or x - y log(x + eps); full adds Stirling's term
 * y log y - y + log(2 pi y) / 2 where y > 1 (PyTorch's composite) */
int
dec_poisson_nll_loss(Rw *r)
{
	TV x = dec_in(r, 0, "input"), y = dec_in(r, 1, "target");
	int64_t log_in, full, red;
	double eps;
	if (!x.v || !y.v || !dec_out(r, 0).v ||
	    !dec_arg_int(r, 2, "log_input", 1, &log_in) ||
	    !dec_arg_int(r, 3, "full", 0, &full) ||
	    !dec_arg_float(r, 4, "eps", 1e-8, &eps) ||
	    !dec_arg_int(r, 5, "reduction", 1, &red) || red < 0 || red > 2)
		return 0;
	TV l;
	if (log_in)
		l = dec_sub(r, dec_u(r, "aten::exp.default", x), dec_mul(r, y, x));
	else
		l = dec_sub(r, x, dec_mul(r, y, dec_u(r, "aten::log.default",
		    dec_adds(r, x, eps))));
	if (full) {
		TV st = dec_add(r, dec_sub(r, dec_mul(r, y,
		    dec_u(r, "aten::log.default", y)), y), dec_muls(r,
		    dec_u(r, "aten::log.default", dec_muls(r, y,
		    2 * 3.14159265358979323846)), 0.5));
		l = dec_add(r, l, dec_sel_s(r, dec_cs(r, "aten::le.Scalar", y, 1),
		    0, st));
	}
	return reduced(r, l, red);
}

/* ||v||_p over dims (every dim when n < 0) */
static TV
vnorm(Rw *r, TV v, double p, const int64_t *dims, int n, int keep)
{
	int64_t all[MAXR];
	if (n < 0) {
		for (int i = 0; i < v.t.rank; i++)
			all[i] = i;
		dims = all;
		n = v.t.rank;
	}
	TV s = dec_red(r, "aten::sum.dim_IntList", v, dims, n, keep);
	return dec_tv(EMIT(r, "aten::linalg_vector_norm.default", &s.t,
	    dec_a_val(v.v), dec_a_float(p), dec_a_ints(r, dims, n),
	    dec_a_bool(keep)), s.t);
}

/* a - b + eps: the difference in the operands' type (integers wrap, a
 * uint8 one that falls wraps up, as in PyTorch), then the float result's */
static TV
diff_eps(Rw *r, TV a, TV b, double eps)
{
	TV d = dec_as_out_float(r, dec_b(r, "aten::sub.Tensor", a, b));
	return dec_s(r, "aten::add.Tensor", d, eps);
}

/* pairwise_distance(a, b, p=2, eps=1e-6, keepdim=False): ||a - b + eps||_p
 * over the last dim */
int
dec_pairwise_distance(Rw *r)
{
	TV a = dec_in(r, 0, "x1"), b = dec_in(r, 1, "x2"), o = dec_out(r, 0);
	double p, eps;
	int64_t keep, last = -1;
	if (!a.v || !b.v || !o.v || !dec_arg_float(r, 2, "p", 2, &p) ||
	    !dec_arg_float(r, 3, "eps", 1e-6, &eps) ||
	    !dec_arg_int(r, 4, "keepdim", 0, &keep))
		return 0;
	TV d = diff_eps(r, a, b, eps);
	if (d.t.rank == 0) {
		dec_bind(r, 0, dec_u(r, "aten::abs.default", d).v);
		return 1;
	}
	dec_bind(r, 0, vnorm(r, d, p, &last, 1, (int)keep).v);
	return 1;
}

/* dist(a, b, p=2): ||a - b||_p over everything */
int
dec_dist(Rw *r)
{
	TV a = dec_in(r, 0, "self"), b = dec_in(r, 1, "other");
	double p;
	if (!a.v || !b.v || !dec_arg_float(r, 2, "p", 2, &p))
		return 0;
	dec_bind(r, 0, vnorm(r, dec_b(r, "aten::sub.Tensor", a, b), p, NULL,
	    -1, 0).v);
	return 1;
}

/* cosine_similarity(a, b, dim=1, eps=1e-8): sum((a / max(|a|, eps)) *
 * (b / max(|b|, eps))) over dim, after broadcasting a and b */
int
dec_cosine_similarity(Rw *r)
{
	TV a = dec_in(r, 0, "x1"), b = dec_in(r, 1, "x2");
	int64_t dim;
	double eps;
	if (!a.v || !b.v || !dec_arg_int(r, 2, "dim", 1, &dim) ||
	    !dec_arg_float(r, 3, "eps", 1e-8, &eps))
		return 0;
	Ty t = dec_ty_bcast(&a.t, &b.t, a.t.dtype);
	if (t.rank == 0 && (dim == 0 || dim == -1)) {
		/* 0-d: dim 0 is the value itself, its norm |x| */
		TV na = dec_s(r, "aten::clamp_min.default",
		    dec_u(r, "aten::abs.default", a), eps);
		TV nb = dec_s(r, "aten::clamp_min.default",
		    dec_u(r, "aten::abs.default", b), eps);
		dec_bind(r, 0, dec_b(r, "aten::mul.Tensor", dec_b(r,
		    "aten::div.Tensor", a, na), dec_b(r, "aten::div.Tensor", b,
		    nb)).v);
		return 1;
	}
	if (dim < -t.rank || dim >= t.rank)
		return 0;
	/* to the common shape, its symbolic sizes read from a or b */
	TV ab[2] = {a, b};
	a = dec_expand_from(r, a, &t, ab, 2);
	b = dec_expand_from(r, b, &t, ab, 2);
	TV na = dec_s(r, "aten::clamp_min.default", vnorm(r, a, 2, &dim, 1, 1),
	    eps);
	TV nb = dec_s(r, "aten::clamp_min.default", vnorm(r, b, 2, &dim, 1, 1),
	    eps);
	TV pr = dec_b(r, "aten::mul.Tensor", dec_b(r, "aten::div.Tensor", a, na),
	    dec_b(r, "aten::div.Tensor", b, nb));
	dec_bind(r, 0, dec_red(r, "aten::sum.dim_IntList", pr, &dim, 1, 0).v);
	return 1;
}

/* cdist(a [.., P, M], b [.., R, M], p=2): ||a_i - b_j||_p for each pair,
 * from the difference of a[.., P, 1, M] and b[.., 1, R, M] */
int
dec_cdist(Rw *r)
{
	TV a = dec_in(r, 0, "x1"), b = dec_in(r, 1, "x2"), o = dec_out(r, 0);
	double p;
	int64_t last = -1;
	if (!a.v || !b.v || !o.v || a.t.rank < 2 || b.t.rank < 2 ||
	    !dec_arg_float(r, 2, "p", 2, &p) || p < 0)
		return 0;
	TV d = dec_b(r, "aten::sub.Tensor", dec_unsq(r, a, a.t.rank - 1),
	    dec_unsq(r, b, b.t.rank - 2));
	dec_bind(r, 0, vnorm(r, d, p, &last, 1, 0).v);
	return 1;
}

/* triplet_margin_loss(a, pos, neg, margin=1, p=2, eps=1e-6, swap=False,
 * reduction): max(margin + d(a, pos) - d(a, neg), 0), d the pairwise
 * distance; swap takes min(d(a, neg), d(pos, neg)) */
int
dec_triplet_margin_loss(Rw *r)
{
	TV a = dec_in(r, 0, "anchor"), ps = dec_in(r, 1, "positive");
	TV ng = dec_in(r, 2, "negative");
	double m, p, eps;
	int64_t swap, red, last = -1;
	if (!a.v || !ps.v || !ng.v || a.t.rank < 1 ||
	    !dec_arg_float(r, 3, "margin", 1, &m) ||
	    !dec_arg_float(r, 4, "p", 2, &p) ||
	    !dec_arg_float(r, 5, "eps", 1e-6, &eps) ||
	    !dec_arg_int(r, 6, "swap", 0, &swap) ||
	    !dec_arg_int(r, 7, "reduction", 1, &red) || red < 0 || red > 2)
		return 0;
	TV dp = vnorm(r, diff_eps(r, a, ps, eps), p, &last, 1, 0);
	TV dn = vnorm(r, diff_eps(r, a, ng, eps), p, &last, 1, 0);
	if (swap)
		dn = dec_b(r, "aten::minimum.default", dn, vnorm(r,
		    diff_eps(r, ps, ng, eps), p, &last, 1, 0));
	TV l = dec_s(r, "aten::clamp_min.default", dec_s(r, "aten::add.Tensor",
	    dec_b(r, "aten::sub.Tensor", dp, dn), m), 0);
	return reduced(r, l, red);
}

/* The negative log likelihood of the classes target picks from logp
 * (classes along dim cd), weighted by weight[target] (when given), 0
 * where target == ii; reduced (mean: divided by the sum of the weights
 * counted, which *den gets; none: *den unset).  {0} when it cannot. */
static TV
nll_tv(Rw *r, TV logp, TV target, TV weight, int64_t red, int64_t ii,
    int cd, TV *den)
{
	TV none = {0, {0, 0, {{0, 0}}}};
	if (red < 0 || red > 2 || (weight.v && weight.t.rank != 1))
		return none;
	TV valid = dec_cs(r, "aten::ne.Scalar", target, (double)ii);
	TV t = dec_tv(EMIT(r, "aten::where.ScalarOther", &target.t,
	    dec_a_val(valid.v), dec_a_val(target.v), dec_a_int(0)), target.t);
	TV ti = dec_unsq(r, t, cd);
	Ty tg = ti.t;
	tg.dtype = logp.t.dtype;
	TV g = dec_tv(EMIT(r, "aten::gather.default", &tg, dec_a_val(logp.v),
	    dec_a_int(cd), dec_a_val(ti.v)), tg);
	TV l = dec_u(r, "aten::neg.default", dec_sq(r, g, cd));
	TV w = none;
	if (weight.v) {
		/* weight[t] as an embedding of [C, 1] rows: t's shape, any of
		 * its sizes symbolic */
		TV wc = dec_unsq(r, weight, 1);
		Ty te = dec_ty_dtype(t.t, weight.t.dtype);
		te.d[te.rank++] = (onnxc_dim){1, 0};
		TV e = dec_tv(EMIT(r, "aten::embedding.default", &te,
		    dec_a_val(wc.v), dec_a_val(t.v)), te);
		w = dec_sq(r, e, t.t.rank);
		l = dec_b(r, "aten::mul.Tensor", l, w);
	}
	TV invalid = dec_u(r, "aten::logical_not.default", valid);
	l = dec_sel_s(r, invalid, 0, l);
	if (red == 0)
		return l;
	l = dec_red(r, "aten::sum.dim_IntList", l, NULL, -1, 0);
	if (red == 2)
		return l;
	TV d = w.v ? dec_sel_s(r, invalid, 0, w) : dec_cast(r, valid,
	    logp.t.dtype);
	*den = dec_red(r, "aten::sum.dim_IntList", d, NULL, -1, 0);
	return dec_b(r, "aten::div.Tensor", l, *den);
}

static int
nll(Rw *r, TV logp, TV target, TV weight, int64_t red, int64_t ii, int cd)
{
	TV den, l = nll_tv(r, logp, target, weight, red, ii, cd, &den);
	if (!l.v || !dec_out(r, 0).v)
		return 0;
	dec_bind(r, 0, l.v);
	return 1;
}

/* p (classes along dim cd) times the class weights w where given, w
 * viewed as [C, 1, ...] to broadcast */
static TV
class_weighted(Rw *r, TV p, TV w, int cd)
{
	if (!w.v)
		return p;
	Ty tw = w.t;
	tw.rank = p.t.rank - cd;
	for (int i = 1; i < tw.rank; i++)
		tw.d[i] = (onnxc_dim){1, 0};
	return dec_b(r, "aten::mul.Tensor", p, tw.rank == 1 ? w :
	    dec_tv(dec_view(r, w.v, &tw), tw));
}

/* Cross entropy of class indices smoothed by ls, as ATen's
 * cross_entropy_loss_label_smoothing: (1 - ls) * nll + ls / C times the
 * loss against the uniform distribution, -sum(logp * weight) over the
 * classes, 0 where target == ii, reduced as nll is (mean: by nll's sum
 * of the weights counted). */
static int
smoothed(Rw *r, TV lp, TV t, TV w, int64_t red, int64_t ii, int cd,
    double ls, int64_t c)
{
	TV den = {0, {0, 0, {{0, 0}}}};
	TV n = nll_tv(r, lp, t, w, red, ii, cd, &den);
	if (!n.v)
		return 0;
	TV p = class_weighted(r, lp, w, cd);
	int64_t d = cd;
	TV sl = dec_u(r, "aten::neg.default", dec_red(r,
	    "aten::sum.dim_IntList", p, &d, 1, 0));
	sl = dec_sel_s(r, dec_cs(r, "aten::eq.Scalar", t, (double)ii), 0, sl);
	if (red != 0)
		sl = dec_red(r, "aten::sum.dim_IntList", sl, NULL, -1, 0);
	if (red == 1)
		sl = dec_b(r, "aten::div.Tensor", sl, den);
	TV o = dec_b(r, "aten::add.Tensor", dec_s(r, "aten::mul.Tensor", n,
	    1 - ls), dec_s(r, "aten::mul.Tensor", sl, ls / (double)c));
	if (!dec_out(r, 0).v)
		return 0;
	dec_bind(r, 0, o.v);
	return 1;
}

/* nll_loss_nd / nll_loss(self, target, weight=None, reduction=1,
 * ignore_index=-100) */
int
dec_nll_loss(Rw *r)
{
	TV x = dec_in(r, 0, "self"), t = dec_in(r, 1, "target");
	TV w = dec_in(r, 2, "weight");
	int64_t red, ii;
	if (!x.v || !t.v || x.t.rank < 1 || !dec_out(r, 0).v ||
	    !dec_arg_int(r, 3, "reduction", 1, &red) ||
	    !dec_arg_int(r, 4, "ignore_index", -100, &ii))
		return 0;
	return nll(r, x, t, w, red, ii, x.t.rank == 1 ? 0 : 1);
}

/* cross_entropy_loss(self, target, weight=None, reduction=1,
 * ignore_index=-100, label_smoothing=0): log_softmax over the classes,
 * then nll for class indices, or -sum(target * logp * weight) over the
 * classes for probabilities (smoothed towards uniform) */
int
dec_cross_entropy_loss(Rw *r)
{
	TV x = dec_in(r, 0, "self"), t = dec_in(r, 1, "target");
	TV w = dec_in(r, 2, "weight");
	int64_t red, ii, c;
	double ls;
	if (!x.v || !t.v || x.t.rank < 1 || !dec_out(r, 0).v ||
	    !dec_arg_int(r, 3, "reduction", 1, &red) ||
	    !dec_arg_int(r, 4, "ignore_index", -100, &ii) ||
	    !dec_arg_float(r, 5, "label_smoothing", 0, &ls) || red < 0 ||
	    red > 2)
		return 0;
	int64_t cd = x.t.rank == 1 ? 0 : 1;
	/* the batch may be dynamic; smoothing divides by the classes */
	if (!dec_dim_static(&x.t.d[cd], &c) && ls != 0)
		return 0;
	TV lp = dec_tv(EMIT(r, "aten::log_softmax.int", &x.t, dec_a_val(x.v),
	    dec_a_int(cd)), x.t);
	if (t.t.dtype == ONNXC_DT_I64 || t.t.dtype == ONNXC_DT_I32)
		return ls != 0 ? smoothed(r, lp, t, w, red, ii, (int)cd, ls, c) :
		    nll(r, lp, t, w, red, ii, (int)cd);
	if (t.t.rank != x.t.rank)
		return 0;
	if (ls != 0)
		t = dec_s(r, "aten::add.Tensor", dec_s(r, "aten::mul.Tensor", t,
		    1 - ls), ls / (double)c);
	TV p = class_weighted(r, dec_b(r, "aten::mul.Tensor", lp, t), w,
	    (int)cd);
	TV l = dec_u(r, "aten::neg.default", dec_red(r, "aten::sum.dim_IntList",
	    p, &cd, 1, 0));
	return reduced(r, l, red);
}
