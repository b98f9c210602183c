/* nn.c - inside the decompose plugin: the decompositions of neural
 * network layers.  Linear algebra (linear, convolutions, einsum, outer),
 * normalization, dropout in eval mode and attention. */
#include <math.h> /* INFINITY only: no libm */
#include <stdio.h>
#include <string.h>

#include "decompose.h"

/* ------------------------------------------------------ linear algebra */

/* linear(input, weight, bias=None) -> permute(weight) then addmm for 2-D
 * input, else matmul (+ add) */
int
dec_linear(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "input");
	onnxc_value w = dec_arg_val(r, 1, "weight");
	onnxc_value b = dec_arg_val(r, 2, "bias");
	Ty tx, tw, to, tt;
	if (dec_ty_of(r, x, &tx) || dec_ty_of(r, w, &tw) ||
	    dec_out_ty(r, 0, &to) || (tw.rank != 1 && tw.rank != 2))
		return 0;
	onnxc_value wt = w;
	if (tw.rank == 2)
		wt = dec_permute(r, w, &tw, (int64_t[]){1, 0}, &tt);
	if (tw.rank == 2 && tx.rank == 2 && b) {
		dec_bind(r, 0, EMIT(r, "aten::addmm.default", &to, dec_a_val(b),
		    dec_a_val(x), dec_a_val(wt)));
		return 1;
	}
	onnxc_value y = dec_binary(r, "aten::matmul.default", x, wt, &to);
	if (b)
		y = dec_binary(r, "aten::add.Tensor", y, b, &to);
	dec_bind(r, 0, y);
	return 1;
}

/* Fills out[0..k) from an int-list argument of length 1 or k. */
static int
ints_k(Rw *r, int pos, const char *key, int64_t dflt, int k, int64_t *out)
{
	int64_t v[MAXR];
	int n = dec_arg_ints(r, pos, key, v, MAXR);
	if (n == -2 || n == 0 || (n > 1 && n != k))
		return 0;
	for (int i = 0; i < k; i++)
		out[i] = n < 0 ? dflt : n == 1 ? v[0] : v[i];
	return 1;
}

/* conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups) ->
 * convolution(..., transposed=False, output_padding=0, groups); padding
 * may be "valid" or a symmetric "same" (the .padding overloads) */
static int
conv(Rw *r, int k)
{
	onnxc_value x = dec_arg_val(r, 0, "input");
	onnxc_value w = dec_arg_val(r, 1, "weight");
	int64_t st[3], pad[3], dil[3], zero[3] = {0, 0, 0}, groups;
	Ty tx, tw, to;
	if (dec_ty_of(r, x, &tx) || dec_ty_of(r, w, &tw) ||
	    dec_out_ty(r, 0, &to) || tx.rank != k + 2 || tw.rank != k + 2)
		return 0;
	if (!ints_k(r, 3, "stride", 1, k, st) ||
	    !ints_k(r, 5, "dilation", 1, k, dil) ||
	    !dec_arg_int(r, 6, "groups", 1, &groups))
		return 0;
	onnxc_arg pa;
	if (dec_arg(r, 4, "padding", &pa) && pa.kind == ONNXC_ARG_STR) {
		const char *mode = r->h->str(r->ctx, pa.ref);
		for (int i = 0; i < k; i++) {
			int64_t ks, total;
			if (!strcmp(mode, "valid")) {
				pad[i] = 0;
				continue;
			}
			if (strcmp(mode, "same") || st[i] != 1 ||
			    !dec_dim_static(&tw.d[2 + i], &ks))
				return 0;
			total = dil[i] * (ks - 1);
			if (total % 2)
				return 0; /* asymmetric: needs a pad op */
			pad[i] = total / 2;
		}
	} else if (!ints_k(r, 4, "padding", 0, k, pad)) {
		return 0;
	}
	dec_bind(r, 0, EMIT(r, "aten::convolution.default", &to, dec_a_val(x),
	    dec_a_val(w), dec_arg_copy(r, 2, "bias"), dec_a_ints(r, st, k),
	    dec_a_ints(r, pad, k), dec_a_ints(r, dil, k), dec_a_bool(0),
	    dec_a_ints(r, zero, k), dec_a_int(groups)));
	return 1;
}

int dec_conv1d(Rw *r) { return conv(r, 1); }
int dec_conv2d(Rw *r) { return conv(r, 2); }
int dec_conv3d(Rw *r) { return conv(r, 3); }

/* conv_transpose{k}d(input, weight, bias, stride, padding, output_padding,
 * groups, dilation) -> convolution(..., transposed=True, ...) */
static int
conv_transpose(Rw *r, int k)
{
	onnxc_value x = dec_arg_val(r, 0, "input");
	onnxc_value w = dec_arg_val(r, 1, "weight");
	int64_t st[3], pad[3], opad[3], dil[3], groups;
	Ty tx, to;
	if (dec_ty_of(r, x, &tx) || dec_out_ty(r, 0, &to) || tx.rank != k + 2)
		return 0;
	if (!ints_k(r, 3, "stride", 1, k, st) ||
	    !ints_k(r, 4, "padding", 0, k, pad) ||
	    !ints_k(r, 5, "output_padding", 0, k, opad) ||
	    !dec_arg_int(r, 6, "groups", 1, &groups) ||
	    !ints_k(r, 7, "dilation", 1, k, dil))
		return 0;
	dec_bind(r, 0, EMIT(r, "aten::convolution.default", &to, dec_a_val(x),
	    dec_a_val(w), dec_arg_copy(r, 2, "bias"), dec_a_ints(r, st, k),
	    dec_a_ints(r, pad, k), dec_a_ints(r, dil, k), dec_a_bool(1),
	    dec_a_ints(r, opad, k), dec_a_int(groups)));
	return 1;
}

int dec_conv_transpose1d(Rw *r) { return conv_transpose(r, 1); }
int dec_conv_transpose2d(Rw *r) { return conv_transpose(r, 2); }
int dec_conv_transpose3d(Rw *r) { return conv_transpose(r, 3); }

/* Einsum letters of one equation. */
typedef struct Eq {
	char a[MAXR + 1], b[MAXR + 1], o[MAXR + 1];
} Eq;

/* "ab,bc->ac" (spaces allowed; implicit output: the letters seen once,
 * sorted) into e; 0 for anything else (ellipsis, repeated letters). */
static int
eq_parse(const char *s, Eq *e)
{
	char *parts[3] = {e->a, e->b, e->o};
	int p = 0, n = 0, explicit = 0;
	memset(e, 0, sizeof *e);
	for (; *s; s++) {
		if (*s == ' ')
			continue;
		if (*s == ',' && p == 0) {
			p = 1, n = 0;
		} else if (s[0] == '-' && s[1] == '>' && p == 1) {
			p = 2, n = 0, explicit = 1, s++;
		} else if ((*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z')) {
			if (n == MAXR || strchr(parts[p], *s))
				return 0;
			parts[p][n++] = *s;
		} else {
			return 0;
		}
	}
	if (p == 0)
		return 0;
	if (!explicit) {
		n = 0;
		for (int c = 'A'; c <= 'z'; c++)
			if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) &&
			    !strchr(e->a, c) != !strchr(e->b, c))
				e->o[n++] = (char)c;
	}
	for (const char *c = e->o; *c; c++)
		if (!strchr(e->a, *c) && !strchr(e->b, *c))
			return 0;
	return 1;
}

static int
idx(const char *s, char c)
{
	return (int)(strchr(s, c) - s);
}

/* One einsum operand arranged as [batch..., rows, cols] for matmul:
 * permuted to the letter order `order`, viewed when a group is not one
 * dim.  nb batch letters, then nr row letters, then the rest. */
static onnxc_value
einsum_side(Rw *r, onnxc_value x, const Ty *tx, const char *lett,
    const char *order, int nb, int nr, Ty *out)
{
	int64_t perm[MAXR];
	int n = (int)strlen(order);
	Ty tp;
	for (int i = 0; i < n; i++)
		perm[i] = idx(lett, order[i]);
	x = dec_permute(r, x, tx, perm, &tp);
	int nc = n - nb - nr;
	if (nr == 1 && nc == 1) {
		*out = tp;
		return x;
	}
	int64_t rows = 1, cols = 1;
	for (int i = 0; i < nr; i++)
		rows *= tp.d[nb + i].n;
	for (int i = 0; i < nc; i++)
		cols *= tp.d[nb + nr + i].n;
	*out = tp;
	out->rank = nb + 2;
	out->d[nb] = (onnxc_dim){rows, 0};
	out->d[nb + 1] = (onnxc_dim){cols, 0};
	return dec_view(r, x, out);
}

/* einsum(equation, [a, b]) for two-operand products: letters in both and
 * the output are batch dims, letters in one input and the output are
 * rows/columns, letters in both inputs only are contracted.  Each side is
 * permuted to [batch, rows, contracted] / [batch, contracted, cols],
 * viewed to 3 groups when a group is not one dim (static sizes only),
 * multiplied with matmul, viewed back and permuted to the output. */
int
dec_einsum(Rw *r)
{
	onnxc_arg ea, la, ia, ib;
	Eq e;
	Ty ta, tb, to;
	if (!dec_arg(r, 0, "equation", &ea) || ea.kind != ONNXC_ARG_STR ||
	    !dec_arg(r, 1, "tensors", &la) ||
	    (la.kind != ONNXC_ARG_LIST && la.kind != ONNXC_ARG_TUPLE) ||
	    la.len != 2 || !eq_parse(r->h->str(r->ctx, ea.ref), &e))
		return 0;
	if (r->h->list_item(r->ctx, r->g, &la, 0, &ia) != ONNXC_OK ||
	    r->h->list_item(r->ctx, r->g, &la, 1, &ib) != ONNXC_OK ||
	    ia.kind != ONNXC_ARG_VALUE || ib.kind != ONNXC_ARG_VALUE ||
	    dec_ty_of(r, ia.ref, &ta) || dec_ty_of(r, ib.ref, &tb) ||
	    dec_out_ty(r, 0, &to) || ta.rank != (int)strlen(e.a) ||
	    tb.rank != (int)strlen(e.b) || to.rank != (int)strlen(e.o))
		return 0;
	char bat[MAXR + 1] = "", rows[MAXR + 1] = "", cols[MAXR + 1] = "";
	char con[MAXR + 1] = "";
	int nb = 0, nr = 0, nc = 0, nk = 0;
	for (const char *c = e.o; *c; c++) {
		int ina = strchr(e.a, *c) != NULL;
		int inb = strchr(e.b, *c) != NULL;
		if (ina && inb)
			bat[nb++] = *c;
		else if (ina)
			rows[nr++] = *c;
		else
			cols[nc++] = *c;
	}
	for (const char *c = e.a; *c; c++) {
		if (strchr(e.o, *c))
			continue;
		if (!strchr(e.b, *c))
			return 0; /* summed over one operand alone */
		con[nk++] = *c;
	}
	for (const char *c = e.b; *c; c++)
		if (!strchr(e.o, *c) && !strchr(e.a, *c))
			return 0;
	/* sizes of batch dims must agree (matmul would broadcast a 1) */
	for (int i = 0; i < nb; i++) {
		onnxc_dim *da = &ta.d[idx(e.a, bat[i])];
		onnxc_dim *db = &tb.d[idx(e.b, bat[i])];
		if (da->e != db->e || (!da->e && da->n != db->n))
			return 0;
	}
	/* a group other than one dim needs a view: static sizes only */
	int reshape = nr != 1 || nk != 1 || nc != 1;
	if (reshape && (!dec_ty_static(&ta) || !dec_ty_static(&tb) ||
	    !dec_ty_static(&to)))
		return 0;
	char oa[3 * MAXR + 1], ob[3 * MAXR + 1], om[3 * MAXR + 1];
	snprintf(oa, sizeof oa, "%s%s%s", bat, rows, con);
	snprintf(ob, sizeof ob, "%s%s%s", bat, con, cols);
	snprintf(om, sizeof om, "%s%s%s", bat, rows, cols);
	Ty tma, tmb, tm;
	onnxc_value a = einsum_side(r, ia.ref, &ta, e.a, oa, nb, nr, &tma);
	onnxc_value b = einsum_side(r, ib.ref, &tb, e.b, ob, nb, nk, &tmb);
	tm = tma;
	tm.dtype = to.dtype;
	tm.d[nb + 1] = tmb.d[nb + 1];
	onnxc_value y = dec_binary(r, "aten::matmul.default", a, b, &tm);
	/* back to [batch, rows..., cols...], then the output's order */
	Ty tg;
	tg.dtype = to.dtype;
	tg.rank = nb + nr + nc;
	for (int i = 0; i < tg.rank; i++)
		tg.d[i] = to.d[idx(e.o, om[i])];
	int same = tg.rank == tm.rank;
	for (int i = 0; same && i < tg.rank; i++)
		same = tg.d[i].n == tm.d[i].n && tg.d[i].e == tm.d[i].e;
	if (!same)
		y = dec_view(r, y, &tg);
	int64_t perm[MAXR];
	for (int i = 0; i < to.rank; i++)
		perm[i] = idx(om, e.o[i]);
	Ty tp;
	y = dec_permute(r, y, &tg, perm, &tp);
	dec_bind(r, 0, y);
	return 1;
}

/* outer(a, b) / ger(a, b) -> unsqueeze(a, 1) * b */
int
dec_outer(Rw *r)
{
	onnxc_value a = dec_arg_val(r, 0, "self");
	onnxc_value b = dec_arg_val(r, 1, "vec2");
	Ty ta, to, tu;
	if (dec_ty_of(r, a, &ta) || dec_out_ty(r, 0, &to) || ta.rank != 1)
		return 0;
	tu = ta;
	tu.rank = 2;
	tu.d[1] = (onnxc_dim){1, 0};
	onnxc_value u = EMIT(r, "aten::unsqueeze.default", &tu, dec_a_val(a),
	    dec_a_int(1));
	dec_bind(r, 0, dec_binary(r, "aten::mul.Tensor", u, b, &to));
	return 1;
}

/* ------------------------------------------------------ normalization */

/* batch_norm(input, weight, bias, running_mean, running_var, training,
 * momentum, eps, cudnn_enabled), in eval mode ->
 * _native_batch_norm_legit_no_training(input, weight, bias, running_mean,
 * running_var, momentum, eps)[0] */
int
dec_batch_norm(Rw *r)
{
	int64_t training;
	Ty to;
	if (!dec_arg_int(r, 5, "training", 0, &training) || training ||
	    !dec_arg_val(r, 3, "running_mean") ||
	    !dec_arg_val(r, 4, "running_var") || dec_out_ty(r, 0, &to))
		return 0;
	onnxc_arg args[] = {
		dec_arg_copy(r, 0, "input"), dec_arg_copy(r, 1, "weight"),
		dec_arg_copy(r, 2, "bias"), dec_arg_copy(r, 3, "running_mean"),
		dec_arg_copy(r, 4, "running_var"),
		dec_arg_copy(r, 6, "momentum"), dec_arg_copy(r, 7, "eps")};
	onnxc_node n = dec_emit_n(r,
	    "aten::_native_batch_norm_legit_no_training.default", &to, 3, 7,
	    args);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK)
		return r->bad = 1, 1;
	dec_bind(r, 0, ni.out);
	return 1;
}

/* layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable) ->
 * native_layer_norm(input, normalized_shape, weight, bias, eps)[0] */
int
dec_layer_norm(Rw *r)
{
	Ty to;
	double eps;
	if (dec_out_ty(r, 0, &to) || !dec_arg_float(r, 4, "eps", 1e-5, &eps))
		return 0;
	onnxc_arg args[] = {
		dec_arg_copy(r, 0, "input"),
		dec_arg_copy(r, 1, "normalized_shape"),
		dec_arg_copy(r, 2, "weight"), dec_arg_copy(r, 3, "bias"),
		dec_a_float(eps)};
	onnxc_node n = dec_emit_n(r, "aten::native_layer_norm.default", &to,
	    3, 5, args);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK)
		return r->bad = 1, 1;
	dec_bind(r, 0, ni.out);
	return 1;
}

/* group_norm(input, num_groups, weight, bias, eps, cudnn_enabled) ->
 * native_group_norm(input, weight, bias, N, C, HxW, group, eps)[0], for
 * static sizes */
int
dec_group_norm(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "input");
	int64_t groups, nn, c, hw = 1, d;
	double eps;
	Ty tx, to;
	if (dec_ty_of(r, x, &tx) || dec_out_ty(r, 0, &to) || tx.rank < 2 ||
	    !dec_ty_static(&tx) ||
	    !dec_arg_int(r, 1, "num_groups", 1, &groups) ||
	    !dec_arg_float(r, 4, "eps", 1e-5, &eps))
		return 0;
	dec_dim_static(&tx.d[0], &nn);
	dec_dim_static(&tx.d[1], &c);
	for (int i = 2; i < tx.rank; i++)
		hw *= dec_dim_static(&tx.d[i], &d) ? d : 0;
	onnxc_arg args[] = {
		dec_a_val(x), dec_arg_copy(r, 2, "weight"),
		dec_arg_copy(r, 3, "bias"), dec_a_int(nn), dec_a_int(c),
		dec_a_int(hw), dec_a_int(groups), dec_a_float(eps)};
	onnxc_node n = dec_emit_n(r, "aten::native_group_norm.default", &to,
	    3, 8, args);
	onnxc_node_info ni;
	if (!n || r->h->node_get(r->ctx, r->g, n, &ni) != ONNXC_OK)
		return r->bad = 1, 1;
	dec_bind(r, 0, ni.out);
	return 1;
}

/* Machine epsilon of a float type: rms_norm's default eps. */
static double
finfo_eps(uint32_t dt)
{
	switch (dt) {
	case ONNXC_DT_F64: return 2.220446049250313e-16;
	case ONNXC_DT_F16: return 0.0009765625;
	case ONNXC_DT_BF16: return 0.0078125;
	default: return 1.1920928955078125e-07;
	}
}

/* rms_norm(input, normalized_shape, weight=None, eps=None) ->
 * x * rsqrt(mean(x * x, trailing dims, keepdim) + eps) [* weight]; half
 * precision in float32 with float32's eps, cast back last (ATen's
 * composite: x * x overflows float16 from 256 on) */
int
dec_rms_norm(Rw *r)
{
	onnxc_value x = dec_arg_val(r, 0, "input");
	onnxc_value w = dec_arg_val(r, 2, "weight");
	int64_t ns[MAXR], dims[MAXR];
	Ty tx, to;
	if (dec_ty_of(r, x, &tx) || dec_out_ty(r, 0, &to))
		return 0;
	int k = dec_arg_ints(r, 1, "normalized_shape", ns, MAXR);
	onnxc_arg na;
	if (k == -2 && dec_arg(r, 1, "normalized_shape", &na) &&
	    (na.kind == ONNXC_ARG_LIST || na.kind == ONNXC_ARG_TUPLE))
		k = (int)na.len; /* symbolic sizes: only the count matters */
	int half = tx.dtype == ONNXC_DT_F16 || tx.dtype == ONNXC_DT_BF16;
	Ty tc = tx, tw = to;  /* computed in; the product's type */
	if (half) {
		tc.dtype = tw.dtype = ONNXC_DT_F32;
		x = dec_cast(r, dec_tv(x, tx), ONNXC_DT_F32).v;
	}
	double eps;
	if (k < 1 || k > tx.rank ||
	    !dec_arg_float(r, 3, "eps", finfo_eps(tc.dtype), &eps))
		return 0;
	Ty tm = tc;
	for (int i = 0; i < k; i++) {
		dims[i] = i - k;
		tm.d[tx.rank - k + i] = (onnxc_dim){1, 0};
	}
	onnxc_value sq = dec_binary(r, "aten::mul.Tensor", x, x, &tc);
	onnxc_value ms = EMIT(r, "aten::mean.dim", &tm, dec_a_val(sq),
	    dec_a_ints(r, dims, k), dec_a_bool(1));
	ms = dec_with_scalar(r, "aten::add.Tensor", ms, eps, &tm);
	ms = dec_unary(r, "aten::rsqrt.default", ms, &tm);
	onnxc_value y = dec_binary(r, "aten::mul.Tensor", x, ms, w ? &tc : &tw);
	if (w)
		y = dec_binary(r, "aten::mul.Tensor", y, w, &tw);
	if (half)
		y = dec_cast(r, dec_tv(y, tw), to.dtype).v;
	dec_bind(r, 0, y);
	return 1;
}

/* dropout(input, p, train) and its feature/alpha kinds, in eval mode ->
 * clone(input) */
int
dec_dropout(Rw *r)
{
	int64_t train;
	Ty to;
	if (!dec_arg_int(r, 2, "train", 1, &train) || train ||
	    dec_out_ty(r, 0, &to))
		return 0;
	dec_bind(r, 0, dec_unary(r, "aten::clone.default",
	    dec_arg_val(r, 0, "input"), &to));
	return 1;
}

/* native_dropout(input, p, train) -> (out, mask), in eval mode with the
 * mask unused -> clone(input) */
int
dec_native_dropout(Rw *r)
{
	int64_t train;
	Ty to;
	if (!dec_arg_int(r, 2, "train", 1, &train) || train ||
	    dec_out_used(r, 1) || dec_out_ty(r, 0, &to))
		return 0;
	dec_bind(r, 0, dec_unary(r, "aten::clone.default",
	    dec_arg_val(r, 0, "input"), &to));
	return 1;
}

/* ---------------------------------------------------------- attention */

/* Square root by Newton's method, in long double so that the double it
 * rounds to is the correctly rounded one: plugins link nothing, libm
 * included. */
static double
root(double x)
{
	long double y = x > 1 ? x : 1;
	for (int i = 0; i < 200; i++) {
		long double z = (y + x / y) / 2;
		if (z >= y)
			break;
		y = z;
	}
	return (double)y;
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False) ->
 * softmax(q @ k^T * scale + mask) @ v, the math path.  A boolean mask
 * keeps where true (the others get -inf); is_causal keeps the lower
 * triangle of an [L, S] mask built with tril.  Only without dropout. */
int
dec_sdpa(Rw *r)
{
	onnxc_value q = dec_arg_val(r, 0, "query");
	onnxc_value k = dec_arg_val(r, 1, "key");
	onnxc_value v = dec_arg_val(r, 2, "value");
	onnxc_value m = dec_arg_val(r, 3, "attn_mask");
	double drop, scale;
	int64_t causal, gqa, e, l = 0, s = 0, hq = 0, hk = 0;
	Ty tq, tk, tv, tm, to;
	if (dec_ty_of(r, q, &tq) || dec_ty_of(r, k, &tk) ||
	    dec_ty_of(r, v, &tv) || dec_out_ty(r, 0, &to) || tq.rank < 2 ||
	    tk.rank != tq.rank ||
	    tv.rank != tq.rank || to.rank != tq.rank ||
	    (m && dec_ty_of(r, m, &tm)))
		return 0;
	if (!dec_arg_float(r, 4, "dropout_p", 0, &drop) || drop != 0 ||
	    !dec_arg_int(r, 5, "is_causal", 0, &causal) ||
	    !dec_arg_int(r, 7, "enable_gqa", 0, &gqa) ||
	    !dec_dim_static(dec_dim_at(&tq, -1), &e) || e <= 0 ||
	    !dec_arg_float(r, 6, "scale", 1 / root((double)e), &scale))
		return 0;
	if (causal && (!dec_dim_static(dec_dim_at(&tq, -2), &l) ||
	    !dec_dim_static(dec_dim_at(&tk, -2), &s)))
		return 0;
	if (gqa && (tq.rank < 3 || !dec_dim_static(dec_dim_at(&tq, -3), &hq) ||
	    !dec_dim_static(dec_dim_at(&tk, -3), &hk) || hk <= 0 || hq % hk))
		return 0;
	if (gqa && hq != hk) {
		/* each key/value head serves hq/hk query heads in a row */
		Ty t = tk;
		*dec_dim_at(&t, -3) = (onnxc_dim){hq, 0};
		k = EMIT(r, "aten::repeat_interleave.self_int", &t,
		    dec_a_val(k), dec_a_int(hq / hk), dec_a_int(-3));
		tk = t;
		t = tv;
		*dec_dim_at(&t, -3) = (onnxc_dim){hq, 0};
		v = EMIT(r, "aten::repeat_interleave.self_int", &t,
		    dec_a_val(v), dec_a_int(hq / hk), dec_a_int(-3));
	}
	Ty tkt = tk;
	*dec_dim_at(&tkt, -1) = *dec_dim_at(&tk, -2);
	*dec_dim_at(&tkt, -2) = *dec_dim_at(&tk, -1);
	onnxc_value kt = EMIT(r, "aten::transpose.int", &tkt, dec_a_val(k),
	    dec_a_int(-2), dec_a_int(-1));
	Ty ts = to; /* scores: the output's batch dims, [L, S] */
	ts.dtype = tq.dtype;
	*dec_dim_at(&ts, -1) = *dec_dim_at(&tk, -2);
	onnxc_value a = dec_binary(r, "aten::matmul.default", q, kt, &ts);
	a = dec_with_scalar(r, "aten::mul.Tensor", a, scale, &ts);
	if (causal) {
		Ty tc = {ONNXC_DT_BOOL, 2, {{l, 0}, {s, 0}}};
		onnxc_value ones = EMIT(r, "aten::ones.default", &tc,
		    dec_a_ints(r, (int64_t[]){l, s}, 2),
		    dec_a_dtype(r, ONNXC_DT_BOOL));
		onnxc_value tri = dec_unary(r, "aten::tril.default", ones, &tc);
		onnxc_value drop_ = dec_unary(r, "aten::logical_not.default",
		    tri, &tc);
		ts = dec_ty_bcast(&ts, &tc, ts.dtype);
		a = EMIT(r, "aten::masked_fill.Scalar", &ts, dec_a_val(a),
		    dec_a_val(drop_), dec_a_float(-INFINITY));
	}
	if (m && tm.dtype == ONNXC_DT_BOOL) {
		onnxc_value drop_ = dec_unary(r, "aten::logical_not.default", m,
		    &tm);
		ts = dec_ty_bcast(&ts, &tm, ts.dtype);
		a = EMIT(r, "aten::masked_fill.Scalar", &ts, dec_a_val(a),
		    dec_a_val(drop_), dec_a_float(-INFINITY));
	} else if (m) {
		ts = dec_ty_bcast(&ts, &tm, ts.dtype);
		a = dec_binary(r, "aten::add.Tensor", a, m, &ts);
	}
	/* with a mask, a row it drops whole gives 0 (PyTorch's kernels and
	 * its own decomposition), not NaN */
	a = m ? EMIT(r, "aten::_safe_softmax.default", &ts, dec_a_val(a),
	    dec_a_int(-1)) : EMIT(r, "aten::_softmax.default", &ts,
	    dec_a_val(a), dec_a_int(-1), dec_a_bool(0));
	dec_bind(r, 0, dec_binary(r, "aten::matmul.default", a, v, &to));
	return 1;
}
