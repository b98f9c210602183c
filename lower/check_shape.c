/* check_shape.c - the checker's rules for shape and creation ops: sizes
 * of new tensors, arange, views, permute, expand, repeat, select, narrow,
 * split and topk, after torch's meta functions and native checks (their
 * messages included).  Symbolic values are checked where they are static
 * and otherwise left to run time. */
#include <math.h>
#include <string.h>

#include "../ir/ckint.h"
#include "check.h"

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

/* ------------------------------------------------------- creation ops */

/* full/zeros/ones/empty(size, ...) and new_*(self, size, ...) */
static int
creation(Lower *L, int i)
{
	int64_t v[LW_MAXRANK];
	bool k[LW_MAXRANK];
	int n = lwc_ints(L, i, "size", v, k, LW_MAXRANK);
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
		    lwc_shown(f[0]), lwc_shown(f[1]));
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
	int64_t v[LW_MAXRANK];
	bool k[LW_MAXRANK];
	char b[256];
	int n = lwc_ints(L, 1, "size", v, k, LW_MAXRANK), infer = -1;
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
	LwcShape in;
	int64_t have;
	if (!known || !lwc_shape(L, 0, "self", &in) ||
	    !lwc_all_known(in.k, in.rank) || !ck_prod(in.d, in.rank, &have))
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
	int64_t v[LW_MAXRANK];
	bool k[LW_MAXRANK], seen[LW_MAXRANK] = {false};
	LwcShape in;
	int n = lwc_ints(L, 1, "dims", v, k, LW_MAXRANK);
	if (n < 0 || !lwc_shape(L, 0, "self", &in))
		return 0;
	if (n != in.rank)
		return lwc_fail(L, 1, "dims", -1, "number of dims don't match "
		    "in permute: input.dim() = %d is not equal to len(dims) "
		    "= %d", in.rank, n);
	int64_t out[LW_MAXRANK];
	bool ok[LW_MAXRANK];
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
	int64_t v[LW_MAXRANK];
	bool k[LW_MAXRANK];
	char b[256], c[256];
	LwcShape in;
	int n = lwc_ints(L, 1, "size", v, k, LW_MAXRANK);
	if (n < 0 || !lwc_shape(L, 0, "self", &in))
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
	int64_t v[LW_MAXRANK], out[LW_MAXRANK];
	bool k[LW_MAXRANK], ok[LW_MAXRANK];
	LwcShape in;
	int n = lwc_ints(L, 1, "repeats", v, k, LW_MAXRANK);
	if (n < 0 || !lwc_shape(L, 0, "self", &in))
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

/* repeat_interleave.self_int(self, repeats, dim=None): repeats >= 0; the
 * repeated dim (all elements flattened without dim) fits in int64 and is
 * what the annotation says */
static int
ck_repeat_interleave(Lower *L)
{
	LwcShape in;
	int64_t r, d, out[LW_MAXRANK];
	bool ok[LW_MAXRANK];
	if (!lwc_shape(L, 0, "self", &in) || !lwc_int(L, 1, "repeats", 0, &r))
		return 0;
	if (r < 0)
		return lwc_fail(L, 1, "repeats", -1, "repeats can not be "
		    "negative");
	int n = in.rank;
	if (!lwc_int(L, 2, "dim", INT64_MIN, &d) || d == INT64_MIN) {
		int64_t numel = 1;
		bool known = true;
		for (int k = 0; k < in.rank; k++)
			known = known && in.k[k] && ck_mul(numel, in.d[k],
			    &numel);
		if (!known)
			return 0;
		n = 1;
		out[0] = numel;
		ok[0] = true;
		d = 0;
	} else {
		if (in.rank == 0)
			return 0;
		if (lwc_dim(L, 2, "dim", -1, &d, in.rank) < 0)
			return -1;
		for (int k = 0; k < n; k++) {
			out[k] = in.d[k];
			ok[k] = in.k[k];
		}
		if (!ok[d])
			return 0;
	}
	int64_t size = out[d];
	if (!ck_mul(size, r, &out[d]))
		return lwc_fail(L, 1, "repeats", -1, "the repeated size %lld * "
		    "%lld overflows int64", (long long)size, (long long)r);
	return lwc_result(L, 0, out, ok, n);
}

/* ---------------------------------------------------- select, narrow */

static int
ck_select(Lower *L)
{
	LwcShape in;
	int64_t d, idx, size;
	if (!lwc_shape(L, 0, "self", &in) || !lwc_int(L, 1, "dim", 0, &d))
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
	LwcShape in;
	int64_t d, start, len, end;
	if (!lwc_shape(L, 0, "self", &in) || !lwc_int(L, 1, "dim", 0, &d))
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
	LwcShape in;
	int64_t v[LW_MAXRANK * 16], d, size, sum = 0;
	bool k[LW_MAXRANK * 16];
	char b[512];
	const Arg *sa = lw_arg(L, 1, NULL);
	bool sizes = sa && (sa->kind == A_LIST || sa->kind == A_TUPLE);
	int n = lwc_ints(L, 1, sizes ? "split_sizes" : "split_size", v, k,
	    LW_MAXRANK * 16);
	if (n < 0 || !lwc_shape(L, 0, "self", &in) ||
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
	if (!lwc_all_known(k, n) || !in.k[d])
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
	LwcShape in;
	int64_t kk, d;
	if (!lwc_shape(L, 0, "self", &in) || !lwc_int(L, 1, "k", 0, &kk) ||
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

/* The rows of ir/checks.def this file holds. */
#define LWC_FILE_shape LW_THIS
const LwcRule lwc_rules_shape[] = {
#include "check_rows.h"
	{NULL, NULL},
};
