/* check_ops.c - the checker's rules: torch's argument and shape rules for
 * the ops whose sizes, dims, indices, strides, kernels, paddings and
 * scales come from the program (their meta functions and native checks
 * are the model, messages included).  Symbolic values are checked where
 * they are static and otherwise left to run time. */
#include <math.h>
#include <string.h>

#include "../ir/ckint.h"
#include "check.h"

enum { MAXL = LW_MAXRANK }; /* longest size list a rule reads */

/* The static dims of a tensor argument: rank, sizes, which are known. */
typedef struct Shape {
	int rank;
	int64_t d[MAXL];
	bool k[MAXL];
} Shape;

static bool
shape_of(Lower *L, int i, const char *kw, Shape *s)
{
	const Value *v = lwc_tensor(L, i, kw, &s->rank);
	if (!v)
		return false;
	for (int d = 0; d < s->rank; d++)
		s->k[d] = lw_sdim(L, v, d, &s->d[d]);
	return true;
}

static bool
all_known(const bool *k, int n)
{
	for (int d = 0; d < n; d++)
		if (!k[d])
			return false;
	return true;
}

/* A size list for a new tensor: no negative size, a numel that fits. */
static int
new_sizes(Lower *L, int i, const char *kw, int64_t *v, bool *k, int n)
{
	char b[256];
	int64_t numel = 1;
	for (int d = 0; d < n; d++)
		if (k[d] && v[d] < 0)
			return lwc_fail(L, i, kw, d, "Trying to create tensor "
			    "with negative dimension %lld: %s",
			    (long long)v[d], lwc_fmt_shape(b, sizeof b, v, k,
			    n));
	for (int d = 0; d < n; d++)
		if (k[d] && !ck_mul(numel, v[d], &numel))
			return lwc_fail(L, i, kw, d, "the number of elements "
			    "of %s overflows int64",
			    lwc_fmt_shape(b, sizeof b, v, k, n));
	return 0;
}

/* f as torch prints it: a NaN has no sign */
static double
shown(double f)
{
	return isnan(f) ? fabs(f) : f;
}

/* ------------------------------------------------------- creation ops */

/* full/zeros/ones/empty(size, ...) and new_*(self, size, ...) */
static int
creation(Lower *L, int i)
{
	int64_t v[MAXL];
	bool k[MAXL];
	int n = lwc_ints(L, i, "size", v, k, MAXL);
	if (n < 0)
		return 0;
	if (new_sizes(L, i, "size", v, k, n) < 0)
		return -1;
	return lwc_result(L, 0, v, k, n);
}

static int
ck_full(Lower *L)
{
	return creation(L, 0);
}

static int
ck_new_full(Lower *L)
{
	return creation(L, 1);
}

/* arange: finite bounds, a step of the right sign, a size in int64 */
static int
ck_arange(Lower *L)
{
	const char *op = ir_str(L->m, lw_node(L)->op);
	bool start = strstr(op, ".start") != NULL;
	int ie = start ? 1 : 0;
	double f[3] = {0, 0, 1};
	int64_t v[3] = {0, 0, 1};
	bool isint[3] = {true, true, true}, st = true;
	static const char *const kw[3] = {"start", "end", "step"};
	for (int j = start ? 0 : 1; j < (start ? 3 : 2); j++) {
		int pos = j == 1 ? ie : j;
		if (j == 2 && !lw_has(L, 2, "step"))
			continue;
		st &= lwc_num(L, pos, kw[j], &f[j], &v[j], &isint[j]);
	}
	if (!st)
		return 0;
	if (!isfinite(f[0]) || !isfinite(f[1]))
		return lwc_fail(L, isfinite(f[1]) ? 0 : ie, isfinite(f[1])
		    ? "start" : "end", -1, "unsupported range: %g -> %g",
		    shown(f[0]), shown(f[1]));
	if (f[2] == 0 || isnan(f[2]))
		return lwc_fail(L, 2, "step", -1, "step must be nonzero");
	if ((f[2] > 0 && f[1] < f[0]) || (f[2] < 0 && f[1] > f[0]))
		return lwc_fail(L, ie, "end", -1, "upper bound and larger "
		    "bound inconsistent with step sign");
	int64_t n;
	if (isint[0] && isint[1] && isint[2]) {
		/* end - start may not fit in int64 while the size does */
		__int128 span = (__int128)v[1] - v[0];
		__int128 q = span / v[2] + (span % v[2] != 0);
		if (q > INT64_MAX)
			return lwc_fail(L, ie, "end", -1, "invalid size, "
			    "possible overflow?");
		n = (int64_t)q;
	} else {
		double c = ceil((f[1] - f[0]) / f[2]);
		if (!(c >= 0 && c < 0x1p63))
			return lwc_fail(L, ie, "end", -1, "invalid size, "
			    "possible overflow?");
		n = (int64_t)c;
	}
	return lwc_result(L, 0, &n, NULL, 1);
}

/* ------------------------------------------------------------- views */

/* torch's infer_size: one -1 at most, no other negative size, a numel
 * equal to the input's. */
static int
ck_view(Lower *L)
{
	int64_t v[MAXL];
	bool k[MAXL];
	char b[256];
	int n = lwc_ints(L, 1, "size", v, k, MAXL), infer = -1;
	if (n < 0)
		return 0;
	int64_t numel = 1;
	bool known = true;
	for (int d = 0; d < n; d++) {
		if (!k[d]) {
			known = false;
			continue;
		}
		if (v[d] == -1) {
			if (infer >= 0)
				return lwc_fail(L, 1, "size", d, "only one "
				    "dimension can be inferred");
			infer = d;
		} else if (v[d] < 0) {
			return lwc_fail(L, 1, "size", d, "invalid shape "
			    "dimension %lld", (long long)v[d]);
		} else if (!ck_mul(numel, v[d], &numel)) {
			return lwc_fail(L, 1, "size", d, "shape '%s' is "
			    "invalid: its number of elements overflows int64",
			    lwc_fmt_shape(b, sizeof b, v, k, n));
		}
	}
	Shape in;
	int64_t have;
	if (!known || !shape_of(L, 0, "self", &in) ||
	    !all_known(in.k, in.rank) || !ck_prod(in.d, in.rank, &have))
		return 0;
	lwc_fmt_shape(b, sizeof b, v, k, n);
	if (infer >= 0 && numel == 0)
		return lwc_fail(L, 1, "size", infer, "cannot reshape tensor "
		    "of %lld elements into shape %s because the unspecified "
		    "dimension size -1 can be any value and is ambiguous",
		    (long long)have, b);
	if (infer >= 0 && have % numel == 0)
		v[infer] = have / numel;
	else if (infer >= 0 || have != numel)
		return lwc_fail(L, 1, "size", -1, "shape '%s' is invalid for "
		    "input of size %lld", b, (long long)have);
	return lwc_result(L, 0, v, NULL, n);
}

static int
ck_permute(Lower *L)
{
	int64_t v[MAXL];
	bool k[MAXL], seen[MAXL] = {false};
	Shape in;
	int n = lwc_ints(L, 1, "dims", v, k, MAXL);
	if (n < 0 || !shape_of(L, 0, "self", &in))
		return 0;
	if (n != in.rank)
		return lwc_fail(L, 1, "dims", -1, "number of dims don't match "
		    "in permute: input.dim() = %d is not equal to len(dims) "
		    "= %d", in.rank, n);
	int64_t out[MAXL];
	bool ok[MAXL];
	for (int d = 0; d < n; d++) {
		if (!k[d])
			return lwc_fail(L, 1, "dims", d, "dims must be "
			    "constant integers");
		if (lwc_dim(L, 1, "dims", d, &v[d], n) < 0)
			return -1;
		if (seen[v[d]])
			return lwc_fail(L, 1, "dims", d, "duplicate dims are "
			    "not allowed.");
		seen[v[d]] = true;
		out[d] = in.d[v[d]];
		ok[d] = in.k[v[d]];
	}
	return lwc_result(L, 0, out, ok, n);
}

/* expand(self, size): -1 keeps a dim, new leading dims need a size, a
 * dim that is not 1 keeps its size. */
static int
ck_expand(Lower *L)
{
	int64_t v[MAXL];
	bool k[MAXL];
	char b[256], c[256];
	Shape in;
	int n = lwc_ints(L, 1, "size", v, k, MAXL);
	if (n < 0 || !shape_of(L, 0, "self", &in))
		return 0;
	if (n < in.rank)
		return lwc_fail(L, 1, "size", -1, "the number of sizes "
		    "provided (%d) must be greater or equal to the number of "
		    "dimensions in the tensor (%d)", n, in.rank);
	int lead = n - in.rank;
	for (int d = 0; d < n; d++) {
		if (!k[d])
			continue;
		if (d < lead && v[d] < 0)
			return lwc_fail(L, 1, "size", d, "The expanded size of "
			    "the tensor (%lld) isn't allowed in a leading, "
			    "non-existing dimension %d", (long long)v[d], d);
		if (d < lead)
			continue;
		int s = d - lead;
		if (v[d] == -1) {
			v[d] = in.d[s];
			k[d] = in.k[s];
		} else if (v[d] < 0) {
			return lwc_fail(L, 1, "size", d, "The expanded size of "
			    "the tensor (%lld) must be non-negative",
			    (long long)v[d]);
		} else if (in.k[s] && in.d[s] != 1 && in.d[s] != v[d]) {
			return lwc_fail(L, 1, "size", d, "The expanded size of "
			    "the tensor (%lld) must match the existing size "
			    "(%lld) at non-singleton dimension %d.  Target "
			    "sizes: %s.  Tensor sizes: %s", (long long)v[d],
			    (long long)in.d[s], d,
			    lwc_fmt_shape(b, sizeof b, v, k, n),
			    lwc_fmt_shape(c, sizeof c, in.d, in.k, in.rank));
		}
	}
	if (new_sizes(L, 1, "size", v, k, n) < 0)
		return -1;
	return lwc_result(L, 0, v, k, n);
}

static int
ck_repeat(Lower *L)
{
	int64_t v[MAXL], out[MAXL];
	bool k[MAXL], ok[MAXL];
	Shape in;
	int n = lwc_ints(L, 1, "repeats", v, k, MAXL);
	if (n < 0 || !shape_of(L, 0, "self", &in))
		return 0;
	if (n < in.rank)
		return lwc_fail(L, 1, "repeats", -1, "Number of dimensions of "
		    "repeat dims can not be smaller than number of dimensions "
		    "of tensor");
	int lead = n - in.rank;
	for (int d = 0; d < n; d++) {
		if (k[d] && v[d] < 0)
			return lwc_fail(L, 1, "repeats", d, "Trying to create "
			    "tensor with negative dimension %lld",
			    (long long)v[d]);
		int64_t s = d < lead ? 1 : in.d[d - lead];
		ok[d] = k[d] && (d < lead || in.k[d - lead]);
		if (ok[d] && !ck_mul(s, v[d], &out[d]))
			return lwc_fail(L, 1, "repeats", d, "the repeated size "
			    "%lld * %lld overflows int64", (long long)s,
			    (long long)v[d]);
	}
	if (new_sizes(L, 1, "repeats", out, ok, n) < 0)
		return -1;
	return lwc_result(L, 0, out, ok, n);
}

/* ---------------------------------------------------- select, narrow */

static int
ck_select(Lower *L)
{
	Shape in;
	int64_t d, idx, size;
	if (!shape_of(L, 0, "self", &in) || !lwc_int(L, 1, "dim", 0, &d))
		return 0;
	if (in.rank == 0)
		return lwc_fail(L, 0, "self", -1, "select() cannot be applied "
		    "to a 0-dim tensor.");
	if (lwc_dim(L, 1, "dim", -1, &d, in.rank) < 0)
		return -1;
	if (!lwc_int(L, 2, "index", 0, &idx) || !in.k[d])
		return 0;
	size = in.d[d];
	if (idx < -size || idx >= size)
		return lwc_fail(L, 2, "index", -1, "select(): index %lld out "
		    "of range for tensor of size %s at dimension %lld",
		    (long long)idx, lwc_fmt_shape((char[256]){0}, 256, in.d,
		    in.k, in.rank), (long long)d);
	return 0;
}

static int
ck_narrow(Lower *L)
{
	Shape in;
	int64_t d, start, len, end;
	if (!shape_of(L, 0, "self", &in) || !lwc_int(L, 1, "dim", 0, &d))
		return 0;
	if (in.rank == 0)
		return lwc_fail(L, 0, "self", -1, "narrow() cannot be applied "
		    "to a 0-dim tensor.");
	if (lwc_dim(L, 1, "dim", -1, &d, in.rank) < 0)
		return -1;
	bool ks = lwc_int(L, 2, "start", 0, &start);
	bool kl = lwc_int(L, 3, "length", 0, &len);
	if (kl && len < 0)
		return lwc_fail(L, 3, "length", -1, "narrow(): length must "
		    "be non-negative.");
	if (!ks || !in.k[d])
		return 0;
	int64_t size = in.d[d];
	if (start < -size || start > size)
		return lwc_fail(L, 2, "start", -1, "start out of range "
		    "(expected to be in range of [%lld, %lld], but got %lld)",
		    (long long)-size, (long long)size, (long long)start);
	if (start < 0)
		start += size;
	if (kl && (!ck_add(start, len, &end) || end > size))
		return lwc_fail(L, 3, "length", -1, "start (%lld) + length "
		    "(%lld) exceeds dimension size (%lld).", (long long)start,
		    (long long)len, (long long)size);
	return 0;
}

/* -------------------------------------------------------------- split */

static int
ck_split(Lower *L)
{
	Shape in;
	int64_t v[MAXL * 16], d, size, sum = 0;
	bool k[MAXL * 16];
	char b[512];
	const Arg *sa = lw_arg(L, 1, NULL);
	bool sizes = sa && (sa->kind == A_LIST || sa->kind == A_TUPLE);
	int n = lwc_ints(L, 1, sizes ? "split_sizes" : "split_size", v, k,
	    MAXL * 16);
	if (n < 0 || !shape_of(L, 0, "self", &in) ||
	    !lwc_int(L, 2, "dim", 0, &d))
		return 0;
	const char *kw = sizes ? "split_sizes" : "split_size";
	if (in.rank == 0)
		return lwc_fail(L, 0, "self", -1, "split expects at least a "
		    "1-dimensional tensor");
	if (lwc_dim(L, 2, "dim", -1, &d, in.rank) < 0)
		return -1;
	if (!sizes) {
		if (k[0] && v[0] < 0)
			return lwc_fail(L, 1, kw, -1, "split expects "
			    "split_size be non-negative, but got "
			    "split_size=%lld", (long long)v[0]);
		return 0;
	}
	lwc_fmt_shape(b, sizeof b, v, k, n);
	for (int j = 0; j < n; j++) {
		if (k[j] && v[j] < 0)
			return lwc_fail(L, 1, kw, j, "split_with_sizes expects "
			    "split_sizes have only non-negative entries, but "
			    "got split_sizes=%s", b);
		if (k[j] && !ck_add(sum, v[j], &sum))
			return lwc_fail(L, 1, kw, j, "split_sizes=%s: their "
			    "sum overflows int64", b);
	}
	if (!all_known(k, n) || !in.k[d])
		return 0;
	size = in.d[d];
	if (sum != size)
		return lwc_fail(L, 1, kw, -1, "split_with_sizes expects "
		    "split_sizes to sum exactly to %lld (input tensor's size "
		    "at dimension %lld), but got split_sizes=%s",
		    (long long)size, (long long)d, b);
	return 0;
}

/* ------------------------------------------------------ reductions */

static int
ck_topk(Lower *L)
{
	Shape in;
	int64_t kk, d;
	if (!shape_of(L, 0, "self", &in) || !lwc_int(L, 1, "k", 0, &kk) ||
	    !lwc_int(L, 2, "dim", -1, &d))
		return 0;
	if (lwc_dim(L, 2, "dim", -1, &d, in.rank) < 0)
		return -1;
	int64_t size = in.rank ? in.d[d] : 1;
	if (kk < 0 || ((in.rank == 0 || in.k[d]) && kk > size))
		return lwc_fail(L, 1, "k", -1, "selected index k out of range "
		    "(k = %lld, dim size = %lld)", (long long)kk,
		    (long long)size);
	return 0;
}

/* ------------------------------------------------------------- nn ops */

/* A list of 1 or n ints, each at least lo ("what should be greater than
 * zero" and friends); empty counts as absent.  Returns the length (0:
 * absent), or -1 after reporting. */
static int
spatial(Lower *L, int i, const char *kw, int nd, int64_t lo, int64_t *v)
{
	bool k[MAXL];
	int n = lwc_ints(L, i, kw, v, k, MAXL);
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
	int64_t ks[MAXL], st[MAXL], pad[MAXL], dil[MAXL];
	int nk = nd ? spatial(L, 1, "kernel_size", nd, 1, ks) : 0;
	if (nk <= 0)
		return nk;
	if (spatial(L, 2, "stride", nd, 1, st) < 0 ||
	    spatial(L, 3, "padding", nd, 0, pad) < 0 ||
	    (!avg && spatial(L, 4, "dilation", nd, 1, dil) < 0))
		return -1;
	if (!lw_has(L, 2, "stride") || lwc_ints(L, 2, "stride", st,
	    (bool[MAXL]){0}, MAXL) == 0)
		memcpy(st, ks, sizeof st);
	if (!lw_has(L, 3, "padding"))
		memset(pad, 0, sizeof pad);
	if (avg || !lw_has(L, 4, "dilation"))
		for (int d = 0; d < nd; d++)
			dil[d] = 1;
	int64_t ceil_mode;
	if (!lwc_int(L, avg ? 4 : 5, "ceil_mode", 0, &ceil_mode))
		ceil_mode = 0;
	Shape in;
	bool have = shape_of(L, 0, "self", &in) && in.rank >= nd;
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
	int64_t v[MAXL];
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
	Shape in;
	if (!lwc_int(L, 1, kw, 1, &r))
		return 0;
	if (r <= 0)
		return lwc_fail(L, 1, kw, -1, "%s expects a positive %s, but "
		    "got %lld", name, kw, (long long)r);
	if (!shape_of(L, 0, "self", &in))
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
	int64_t v[MAXL];
	bool k[MAXL];
	int n = lwc_ints(L, 1, "output_size", v, k, MAXL);
	for (int d = 0; d < n; d++)
		if (k[d] && v[d] <= 0)
			return lwc_fail(L, 1, "output_size", d, "Input and "
			    "output sizes should be greater than 0, but got "
			    "output size %lld", (long long)v[d]);
	const Node *nd = lw_node(L);
	const Arg *args = &L->src->args[nd->args];
	Shape in;
	bool have = shape_of(L, 0, "input", &in) ||
	    shape_of(L, 0, "self", &in);
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
				    "%g", shown(s));
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
	int64_t p[2 * MAXL], out[MAXL];
	bool k[2 * MAXL], ok[MAXL];
	Shape in;
	const char *kw = strstr(ir_str(L->m, lw_node(L)->op), "ion_pad")
	    ? "padding" : "pad"; /* reflection_padNd, replication_padNd */
	int n = lwc_ints(L, 1, kw, p, k, 2 * MAXL);
	if (n < 0 || !shape_of(L, 0, "self", &in))
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

const LwcRule lwc_rules[] = {
	{"aten::full.default", ck_full},
	{"aten::zeros.default", ck_full},
	{"aten::ones.default", ck_full},
	{"aten::empty.memory_format", ck_full},
	{"aten::empty_strided.default", ck_full},
	{"aten::new_zeros.default", ck_new_full},
	{"aten::new_ones.default", ck_new_full},
	{"aten::new_full.default", ck_new_full},
	{"aten::new_empty.default", ck_new_full},
	{"aten::new_empty_strided.default", ck_new_full},
	{"aten::arange.default", ck_arange},
	{"aten::arange.start", ck_arange},
	{"aten::arange.start_step", ck_arange},
	{"aten::view.default", ck_view},
	{"aten::view_copy.default", ck_view},
	{"aten::_unsafe_view.default", ck_view},
	{"aten::reshape.default", ck_view},
	{"aten::permute.default", ck_permute},
	{"aten::permute_copy.default", ck_permute},
	{"aten::expand.default", ck_expand},
	{"aten::expand_copy.default", ck_expand},
	{"aten::repeat.default", ck_repeat},
	{"aten::select.int", ck_select},
	{"aten::select_copy.int", ck_select},
	{"aten::narrow.default", ck_narrow},
	{"aten::narrow_copy.default", ck_narrow},
	{"aten::split.Tensor", ck_split},
	{"aten::split.sizes", ck_split},
	{"aten::split_copy.Tensor", ck_split},
	{"aten::unsafe_split.Tensor", ck_split},
	{"aten::split_with_sizes.default", ck_split},
	{"aten::split_with_sizes_copy.default", ck_split},
	{"aten::unsafe_split_with_sizes.default", ck_split},
	{"aten::topk.default", ck_topk},
	{"aten::max_pool1d.default", ck_pool},
	{"aten::max_pool2d.default", ck_pool},
	{"aten::max_pool3d.default", ck_pool},
	{"aten::max_pool1d_with_indices.default", ck_pool},
	{"aten::max_pool2d_with_indices.default", ck_pool},
	{"aten::max_pool3d_with_indices.default", ck_pool},
	{"aten::avg_pool1d.default", ck_pool},
	{"aten::avg_pool2d.default", ck_pool},
	{"aten::avg_pool3d.default", ck_pool},
	{"aten::convolution.default", ck_conv},
	{"aten::conv1d.default", ck_conv},
	{"aten::conv2d.default", ck_conv},
	{"aten::conv3d.default", ck_conv},
	{"aten::conv1d.padding", ck_conv},
	{"aten::conv2d.padding", ck_conv},
	{"aten::conv3d.padding", ck_conv},
	{"aten::conv_transpose1d.default", ck_conv},
	{"aten::conv_transpose2d.input", ck_conv},
	{"aten::conv_transpose3d.input", ck_conv},
	{"aten::pixel_shuffle.default", ck_pixel_shuffle},
	{"aten::pixel_unshuffle.default", ck_pixel_shuffle},
	{"aten::constant_pad_nd.default", ck_pad},
	{"aten::pad.default", ck_pad},
	{"aten::reflection_pad1d.default", ck_pad},
	{"aten::reflection_pad2d.default", ck_pad},
	{"aten::reflection_pad3d.default", ck_pad},
	{"aten::replication_pad1d.default", ck_pad},
	{"aten::replication_pad2d.default", ck_pad},
	{"aten::replication_pad3d.default", ck_pad},
	{"aten::upsample_nearest1d.vec", ck_upsample},
	{"aten::upsample_nearest2d.vec", ck_upsample},
	{"aten::upsample_nearest3d.vec", ck_upsample},
	{"aten::upsample_nearest1d.default", ck_upsample},
	{"aten::upsample_nearest2d.default", ck_upsample},
	{"aten::upsample_nearest3d.default", ck_upsample},
	{"aten::_upsample_nearest_exact1d.vec", ck_upsample},
	{"aten::_upsample_nearest_exact2d.vec", ck_upsample},
	{"aten::_upsample_nearest_exact3d.vec", ck_upsample},
	{"aten::_upsample_nearest_exact1d.default", ck_upsample},
	{"aten::_upsample_nearest_exact2d.default", ck_upsample},
	{"aten::_upsample_nearest_exact3d.default", ck_upsample},
	{"aten::upsample_linear1d.vec", ck_upsample},
	{"aten::upsample_bilinear2d.vec", ck_upsample},
	{"aten::upsample_trilinear3d.vec", ck_upsample},
	{"aten::upsample_bicubic2d.vec", ck_upsample},
	{"aten::upsample_linear1d.default", ck_upsample},
	{"aten::upsample_bilinear2d.default", ck_upsample},
	{"aten::upsample_trilinear3d.default", ck_upsample},
	{"aten::upsample_bicubic2d.default", ck_upsample},
	{NULL, NULL},
};
