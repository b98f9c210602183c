/* fracpool.c - inside the decompose plugin: fractional max pooling
 * (fractional_max_pool2d/3d) given its random samples, as ATen's CPU
 * kernel pools.  The samples are what makes it random: the training IR
 * draws them with aten::rand, which onnxc refuses, or with --training
 * converts to a RandomUniform; given as an input, the pooling is plain.
 *
 * Along each spatial dim of input size I, output size O and window P,
 * output i's window starts at int((i + u) alpha) - int(u alpha) for
 * i < O - 1 and at I - P for the last, alpha = (I - P) / (O - 1) in the
 * samples' type (half ones round each step to half, as c10::Half does),
 * u the sample of that (batch, channel) and dim: the 2-D kernel reads W's
 * sample first, then H's; the 3-D one T, H, W.  The
 * window's largest value wins, the first of equal ones; its index is the
 * flat position in the image.  (A window of several NaNs gives the first
 * one's index where ATen gives the last's.) */
#include <string.h>

#include "decompose.h"

enum { FMAXD = 3 };

/* [N, C, O] int64: the window starts along one dim from u [N, C] */
static TV
starts(Rw *r, TV u, int64_t in, int64_t out, int64_t pool)
{
	TV last = dec_cast(r, dec_unsq(r, dec_adds(r, dec_muls(r, u, 0),
	    (double)(in - pool)), 2), ONNXC_DT_I64);
	if (out == 1)
		return last;
	uint32_t dt = u.t.dtype;
	double alpha = dt != ONNXC_DT_F64 ? (double)((float)(in - pool) /
	    (float)(out - 1)) : (double)(in - pool) / (double)(out - 1);
	/* half: alpha held in half (a Python number would multiply
	 * unrounded) */
	if (dt == ONNXC_DT_F16 || dt == ONNXC_DT_BF16)
		alpha = dec_num_in(dt, alpha);
	TV i = dec_cast(r, dec_iota(r, out - 1), dt);
	TV a = dec_u(r, "aten::trunc.default", dec_muls(r, dec_b(r,
	    "aten::add.Tensor", i, dec_unsq(r, u, 2)), alpha));
	TV b = dec_u(r, "aten::trunc.default", dec_muls(r, u, alpha));
	TV s = dec_cast(r, dec_sub(r, a, dec_unsq(r, b, 2)), ONNXC_DT_I64);
	onnxc_arg parts[2] = {dec_a_val(s.v), dec_a_val(last.v)}, list;
	if (r->h->make_list(r->ctx, r->g, ONNXC_ARG_LIST, parts, 2, &list) !=
	    ONNXC_OK)
		return (TV){0};
	Ty t = s.t;
	t.d[2] = (onnxc_dim){out, 0};
	return dec_tv(EMIT(r, "aten::cat.default", &t, list, dec_a_int(2)), t);
}

/* fractional_max_pool2d/3d(self, kernel_size, output_size, random_samples)
 * -> (output, indices), batched, static sizes, any floating type */
int
dec_fractional_max_pool(Rw *r)
{
	int nd = strstr(r->h->str(r->ctx, r->ni.op), "3d") ? 3 : 2;
	TV x = dec_in(r, 0, "self"), u = dec_in(r, 3, "random_samples");
	int64_t k[FMAXD], o[FMAXD];
	if (!x.v || !u.v || x.t.rank != nd + 2 || u.t.rank != 3 ||
	    !dec_ty_static(&x.t) || !dec_ty_static(&u.t) ||
	    (x.t.dtype != ONNXC_DT_F32 && x.t.dtype != ONNXC_DT_F64 &&
	    x.t.dtype != ONNXC_DT_F16 && x.t.dtype != ONNXC_DT_BF16) ||
	    u.t.dtype != x.t.dtype || u.t.d[2].n != nd ||
	    dec_arg_ints(r, 1, "kernel_size", k, FMAXD) != nd ||
	    dec_arg_ints(r, 2, "output_size", o, FMAXD) != nd)
		return 0;
	int64_t n = x.t.d[0].n, c = x.t.d[1].n, img = 1, npos = 1, nwin = 1;
	for (int d = 0; d < nd; d++) {
		int64_t in = x.t.d[2 + d].n;
		if (k[d] < 1 || o[d] < 1 || k[d] > in || o[d] + k[d] - 1 > in)
			return 0;
		img *= in;
		npos *= o[d];
		nwin *= k[d];
	}
	/* F [N, C, O.., P..]: each window element's flat image position */
	int R = 2 + 2 * nd;
	TV f = {0};
	int64_t stride = img;
	for (int d = 0; d < nd; d++) {
		stride /= x.t.d[2 + d].n;
		int which = nd == 2 ? 1 - d : d;
		Ty ts = u.t;
		ts.rank = 2;
		TV ud = dec_tv(EMIT(r, "aten::select.int", &ts, dec_a_val(u.v),
		    dec_a_int(2), dec_a_int(which)), ts);
		TV s = starts(r, ud, x.t.d[2 + d].n, o[d], k[d]);
		if (!s.v)
			return 0;
		TV w = dec_b(r, "aten::add.Tensor", dec_unsq(r, s, 3), dec_iota(r,
		    k[d]));
		Ty tv = {ONNXC_DT_I64, R, {{0, 0}}};
		for (int j = 0; j < R; j++)
			tv.d[j] = (onnxc_dim){1, 0};
		tv.d[0] = x.t.d[0];
		tv.d[1] = x.t.d[1];
		tv.d[2 + d] = (onnxc_dim){o[d], 0};
		tv.d[2 + nd + d] = (onnxc_dim){k[d], 0};
		w = dec_muls(r, dec_tv(dec_view(r, w.v, &tv), tv), (double)stride);
		f = f.v ? dec_b(r, "aten::add.Tensor", f, w) : w;
	}
	Ty tf = {ONNXC_DT_I64, 3, {{n, 0}, {c, 0}, {npos * nwin, 0}}};
	Ty tx = {x.t.dtype, 3, {{n, 0}, {c, 0}, {img, 0}}};
	Ty tg = {x.t.dtype, 3, {{n, 0}, {c, 0}, {npos * nwin, 0}}};
	Ty tw = {x.t.dtype, nd + 3, {{0, 0}}}, to = {x.t.dtype, nd + 2, {{0, 0}}};
	tw.d[0] = to.d[0] = x.t.d[0];
	tw.d[1] = to.d[1] = x.t.d[1];
	for (int d = 0; d < nd; d++)
		tw.d[2 + d] = to.d[2 + d] = (onnxc_dim){o[d], 0};
	tw.d[nd + 2] = (onnxc_dim){nwin, 0};
	onnxc_value ff = dec_view(r, f.v, &tf);
	TV g = dec_tv(EMIT(r, "aten::gather.default", &tg, dec_a_val(dec_view(r,
	    x.v, &tx)), dec_a_int(2), dec_a_val(ff)), tg);
	g = dec_tv(dec_view(r, g.v, &tw), tw);
	/* the flat positions laid out as the windows */
	Ty twi = tw;
	twi.dtype = ONNXC_DT_I64;
	TV fw = dec_tv(dec_view(r, ff, &twi), twi);
	Ty ti = to;
	ti.dtype = ONNXC_DT_I64;
	onnxc_arg args[] = {dec_a_val(g.v), dec_a_int(nd + 2), dec_a_bool(0)};
	onnxc_node m = dec_emit_n(r, "aten::max.dim", &to, 2, 3, args);
	onnxc_node_info mi;
	if (!m || r->h->node_get(r->ctx, r->g, m, &mi) != ONNXC_OK ||
	    r->h->value_set_type(r->ctx, r->g, mi.out + 1, ti.dtype, ti.rank,
	    ti.d) != ONNXC_OK)
		return r->bad = 1, 1;
	dec_bind(r, 0, mi.out);
	if (r->ni.nout > 1 && dec_out_used(r, 1)) {
		TV am = dec_unsq(r, dec_tv(mi.out + 1, ti), nd + 2);
		Ty t1 = am.t;
		TV at = dec_tv(EMIT(r, "aten::gather.default", &t1,
		    dec_a_val(fw.v), dec_a_int(nd + 2), dec_a_val(am.v)), t1);
		dec_bind(r, 1, dec_view(r, at.v, &ti));
	}
	return 1;
}
