/* check_nn.c - the checker's rules for nn ops: pooling, convolution,
 * pixel_(un)shuffle, upsampling and padding -- their kernels, strides,
 * paddings, dilations, groups, factors and scales, after torch's meta
 * functions and native checks (their messages included). */
#include <math.h>
#include <string.h>

#include "../ir/ckint.h"
#include "check.h"

/* ------------------------------------------------------------- nn ops */

/* A list of 1 or n ints, each at least lo ("what should be greater than
 * zero" and friends); empty counts as absent.  Returns the length (0:
 * absent), or -1 after reporting. */
static int
spatial(Lower *L, int i, const char *kw, int nd, int64_t lo, int64_t *v)
{
	bool k[LW_MAXRANK];
	int n = lwc_ints(L, i, kw, v, k, LW_MAXRANK);
	if (n <= 0)
		return 0;
	if (n != 1 && n != nd)
		return lwc_fail(L, i, kw, -1, "%s must either be a single "
		    "int, or a tuple of %d ints", kw, nd);
	for (int d = 0; d < n; d++) {
		if (!k[d])
			return lwc_fail(L, i, kw, d, "%s must be constant",
			    kw);
		if (v[d] < lo)
			return lwc_fail(L, i, kw, d, "%s should be %s, but got "
			    "%lld", kw, lo > 0 ? "greater than zero"
			    : "non-negative", (long long)v[d]);
	}
	for (int d = n; d < nd; d++)
		v[d] = v[0];
	return nd;
}

/* The spatial rank of a pool or conv from its op name ("...2d..."). */
static int
nd_of(Lower *L)
{
	const char *op = ir_str(L->m, lw_node(L)->op);
	const char *p = strstr(op, "d.");
	if (!p)
		p = strstr(op, "d_");
	return p && p > op && p[-1] >= '1' && p[-1] <= '3' ? p[-1] - '0' : 0;
}

/* max_poolNd(self, kernel_size, stride, padding, dilation, ceil_mode) and
 * avg_poolNd(self, kernel_size, stride, padding, ceil_mode, ...) */
static int
ck_pool(Lower *L)
{
	int nd = nd_of(L);
	bool avg = strstr(ir_str(L->m, lw_node(L)->op), "avg_") != NULL;
	int64_t ks[LW_MAXRANK], st[LW_MAXRANK], pad[LW_MAXRANK], dil[LW_MAXRANK];
	int nk = nd ? spatial(L, 1, "kernel_size", nd, 1, ks) : 0;
	if (nk <= 0)
		return nk;
	if (spatial(L, 2, "stride", nd, 1, st) < 0 ||
	    spatial(L, 3, "padding", nd, 0, pad) < 0 ||
	    (!avg && spatial(L, 4, "dilation", nd, 1, dil) < 0))
		return -1;
	if (!lw_has(L, 2, "stride") || lwc_ints(L, 2, "stride", st,
	    (bool[LW_MAXRANK]){0}, LW_MAXRANK) == 0)
		memcpy(st, ks, sizeof st);
	if (!lw_has(L, 3, "padding"))
		memset(pad, 0, sizeof pad);
	if (avg || !lw_has(L, 4, "dilation"))
		for (int d = 0; d < nd; d++)
			dil[d] = 1;
	int64_t ceil_mode;
	if (!lwc_int(L, avg ? 4 : 5, "ceil_mode", 0, &ceil_mode))
		ceil_mode = 0;
	LwcShape in;
	bool have = lwc_shape(L, 0, "self", &in) && in.rank >= nd;
	for (int d = 0; d < nd; d++) {
		int64_t eff, out, span;
		/* effective kernel (k-1)*dilation+1, padded input size */
		if (!ck_mul(ks[d] - 1, dil[d], &eff) || !ck_add(eff, 1, &eff))
			return lwc_fail(L, avg ? 1 : 4, avg ? "kernel_size"
			    : "dilation", -1, "the effective kernel size "
			    "overflows int64");
		if (pad[d] > eff / 2)
			return lwc_fail(L, 3, "padding", -1, "pad should be at "
			    "most half of effective kernel size, but got "
			    "pad=%lld, kernel_size=%lld and dilation=%lld",
			    (long long)pad[d], (long long)ks[d],
			    (long long)dil[d]);
		int s = in.rank - nd + d;
		if (!have || !in.k[s])
			continue;
		if (!ck_add(in.d[s], 2 * pad[d], &span) ||
		    !ck_sub(span, eff, &span) ||
		    (ceil_mode && !ck_add(span, st[d] - 1, &span)) || span < 0 ||
		    !ck_floordiv(span, st[d], &out) || out + 1 <= 0)
			return lwc_fail(L, 0, "self", -1, "Given input size "
			    "%lld at spatial dim %d, calculated output size "
			    "is too small (kernel %lld, padding %lld, dilation "
			    "%lld)", (long long)in.d[s], d, (long long)ks[d],
			    (long long)pad[d], (long long)dil[d]);
	}
	return 0;
}

/* convolution and convN: stride, padding, dilation and groups */
static int
ck_conv(Lower *L)
{
	int64_t v[LW_MAXRANK];
	const char *op = ir_str(L->m, lw_node(L)->op);
	bool pstr = strstr(op, ".padding") != NULL; /* padding="same" */
	int nd = nd_of(L);
	if (!nd) { /* convolution(input, weight, ...): from the weight */
		int r;
		if (!lwc_tensor(L, 1, "weight", &r) || r < 3)
			return 0;
		nd = r - 2;
	}
	bool tr = strstr(op, "transpose") != NULL;
	if (spatial(L, 3, "stride", nd, 1, v) < 0 ||
	    (!pstr && spatial(L, 4, "padding", nd, 0, v) < 0))
		return -1;
	int di = tr ? 7 : 5;
	if (spatial(L, di, "dilation", nd, 1, v) < 0)
		return -1;
	int64_t g;
	int gi = strstr(op, "convolution") ? 8 : 6;
	if (lwc_int(L, gi, "groups", 1, &g) && g <= 0)
		return lwc_fail(L, gi, "groups", -1, "non-positive groups is "
		    "not supported");
	return 0;
}

static int
ck_pixel_shuffle(Lower *L)
{
	bool un = strstr(ir_str(L->m, lw_node(L)->op), "unshuffle") != NULL;
	const char *kw = un ? "downscale_factor" : "upscale_factor";
	const char *name = un ? "pixel_unshuffle" : "pixel_shuffle";
	int64_t r, rr;
	LwcShape in;
	if (!lwc_int(L, 1, kw, 1, &r))
		return 0;
	if (r <= 0)
		return lwc_fail(L, 1, kw, -1, "%s expects a positive %s, but "
		    "got %lld", name, kw, (long long)r);
	if (!lwc_shape(L, 0, "self", &in))
		return 0;
	if (in.rank < 3)
		return lwc_fail(L, 0, "self", -1, "%s expects input to have "
		    "at least 3 dimensions, but got input with %d "
		    "dimension(s)", name, in.rank);
	if (!ck_mul(r, r, &rr))
		return lwc_fail(L, 1, kw, -1, "%s: %s squared overflows int64",
		    name, kw);
	int c = in.rank - 3;
	if (!un && in.k[c] && in.d[c] % rr)
		return lwc_fail(L, 1, kw, -1, "pixel_shuffle expects its "
		    "input's 'channel' dimension to be divisible by the "
		    "square of upscale_factor, but input.size(-3)=%lld is not "
		    "divisible by %lld", (long long)in.d[c], (long long)rr);
	for (int d = in.rank - 2; un && d < in.rank; d++)
		if (in.k[d] && in.d[d] % r)
			return lwc_fail(L, 1, kw, -1, "pixel_unshuffle expects "
			    "dimension %d (size %lld) to be divisible by "
			    "downscale_factor %lld", d, (long long)in.d[d],
			    (long long)r);
	return 0;
}

/* upsample_*: output sizes positive; scales finite, positive, and giving
 * sizes that fit in int64 */
static int
ck_upsample(Lower *L)
{
	int64_t v[LW_MAXRANK];
	bool k[LW_MAXRANK];
	int n = lwc_ints(L, 1, "output_size", v, k, LW_MAXRANK);
	for (int d = 0; d < n; d++)
		if (k[d] && v[d] <= 0)
			return lwc_fail(L, 1, "output_size", d, "Input and "
			    "output sizes should be greater than 0, but got "
			    "output size %lld", (long long)v[d]);
	const Node *nd = lw_node(L);
	const Arg *args = &L->src->args[nd->args];
	LwcShape in;
	bool have = lwc_shape(L, 0, "input", &in) ||
	    lwc_shape(L, 0, "self", &in);
	if (have && n > 0 && n == in.rank - 2) {
		/* (N, C, *output_size): an annotation that says otherwise
		 * contradicts the op */
		int64_t out[LW_MAXRANK];
		bool ok[LW_MAXRANK];
		for (int d = 0; d < in.rank; d++) {
			out[d] = d < 2 ? in.d[d] : v[d - 2];
			ok[d] = d < 2 ? in.k[d] : k[d - 2];
		}
		if (lwc_result(L, 0, out, ok, in.rank) < 0)
			return -1;
	}
	for (uint32_t j = 1; j < nd->nargs; j++) {
		const Arg *a = &args[j];
		const char *kw = a->key ? ir_str(L->m, a->key) : NULL;
		if ((kw && strncmp(kw, "scale", 5)) || (!kw && j == 1))
			continue; /* output_size, align_corners */
		const Arg *it = a;
		uint32_t cnt = 1;
		if (a->kind == A_LIST || a->kind == A_TUPLE) {
			it = ir_items(L->src, a);
			cnt = a->u.list.n;
		} else if (a->kind != A_FLOAT) {
			continue;
		}
		for (uint32_t e = 0; e < cnt; e++) {
			if (it[e].kind != A_FLOAT && it[e].kind != A_INT)
				continue;
			double s = it[e].kind == A_FLOAT ? it[e].u.f
			    : (double)it[e].u.i;
			int pos = kw ? -1 : (int)j;
			int el = a->kind == A_FLOAT ? -1 : (int)e;
			if (!isfinite(s) || s <= 0)
				return lwc_fail(L, pos, kw, el, "scale factor "
				    "must be a positive finite number, but got "
				    "%g", lwc_shown(s));
			int sd = have ? in.rank - (int)cnt + (int)e : -1;
			if (sd >= 0 && in.k[sd] &&
			    !(floor((double)in.d[sd] * s) < 0x1p62))
				return lwc_fail(L, pos, kw, el, "scale factor "
				    "%g makes an output size that overflows "
				    "int64", s);
		}
	}
	return 0;
}

/* constant_pad_nd(self, pad, value): an even pad list no longer than
 * twice the rank, no size made negative */
static int
ck_pad(Lower *L)
{
	int64_t p[2 * LW_MAXRANK], out[LW_MAXRANK];
	bool k[2 * LW_MAXRANK], ok[LW_MAXRANK];
	LwcShape in;
	const char *kw = strstr(ir_str(L->m, lw_node(L)->op), "ion_pad")
	    ? "padding" : "pad"; /* reflection_padNd, replication_padNd */
	int n = lwc_ints(L, 1, kw, p, k, 2 * LW_MAXRANK);
	if (n < 0 || !lwc_shape(L, 0, "self", &in))
		return 0;
	if (n % 2)
		return lwc_fail(L, 1, kw, -1, "Length of pad must be even "
		    "but instead it equals %d", n);
	if (n / 2 > in.rank)
		return lwc_fail(L, 1, kw, -1, "Length of pad should be no "
		    "more than twice the number of dimensions of the input. "
		    "Pad length is %d while the input has %d dimensions.", n,
		    in.rank);
	for (int d = 0; d < in.rank; d++) {
		out[d] = in.d[d];
		ok[d] = in.k[d];
	}
	for (int j = 0; j < n / 2; j++) {
		int d = in.rank - 1 - j; /* pads go from the last dim */
		if (!k[2 * j] || !k[2 * j + 1]) {
			ok[d] = false;
			continue;
		}
		int64_t s = in.d[d];
		if (!in.k[d])
			s = 0;
		if (!ck_add(s, p[2 * j], &s) || !ck_add(s, p[2 * j + 1], &s))
			return lwc_fail(L, 1, kw, 2 * j, "padding dimension "
			    "%d by %lld and %lld overflows int64", d,
			    (long long)p[2 * j], (long long)p[2 * j + 1]);
		if (in.k[d] && s < 0)
			return lwc_fail(L, 1, kw, 2 * j, "The input size "
			    "%lld, plus negative padding %lld and %lld "
			    "resulted in a negative output size, which is "
			    "invalid. Check dimension %d of your input.",
			    (long long)in.d[d], (long long)p[2 * j],
			    (long long)p[2 * j + 1], d);
		out[d] = s;
	}
	return lwc_result(L, 0, out, ok, in.rank);
}

/* The rows of ir/checks.def this file holds. */
#define LWC_FILE_nn LW_THIS
const LwcRule lwc_rules_nn[] = {
#include "check_rows.h"
	{NULL, NULL},
};
