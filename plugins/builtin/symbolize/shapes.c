/* shapes.c - symbolic shape rules for the symbolize-shapes pass.
 *
 * Each rule re-derives the shapes of one FX node's outputs from the
 * shapes of its inputs, which may now hold symbols where the dump had
 * numbers.  Rules fill out[k][i] with expressions; the pass checks that
 * each equals the dump's number at the traced sizes, so a wrong rule is
 * caught, not trusted.  Size literals that follow a new symbol are
 * rewritten here too (view sizes, expand sizes), and literals that only
 * happen to equal a traced size are reported (factories, slice ends).
 *
 * Ops without a rule of their own are treated as elementwise with
 * broadcasting, which is what most of ATen is: an output dim takes a new
 * symbol from an input dim at the same place (counted from the right)
 * that had the same traced size.
 */
#include <stdio.h>
#include <string.h>

#include "symbolize.h"

typedef Dim Out[SYM_MAXR];
typedef int (*Rule)(SymCtx *c, onnxc_node n, Out *out);

enum { MAXIN = 64 };

/* ----------------------------------------------------------- reading */

static bool
A(SymCtx *c, onnxc_node n, int i, const char *kw, onnxc_arg *a)
{
	return sym_arg(c, n, i, kw, a);
}

static bool
islist(const onnxc_arg *a)
{
	return a->kind == ONNXC_ARG_LIST || a->kind == ONNXC_ARG_TUPLE;
}

/* a tensor value of known rank (the rules follow up to SYM_MAXR dims) */
static bool
istensor(SymCtx *c, onnxc_value v)
{
	onnxc_value_info vi = sym_value(c, v);
	return vi.kind == ONNXC_VK_TENSOR && vi.rank >= 0 &&
	    vi.rank <= SYM_MAXR;
}

/* the tensor value of an argument, 0 if it is not one */
static onnxc_value
T(SymCtx *c, onnxc_node n, int i, const char *kw)
{
	onnxc_arg a;
	if (!A(c, n, i, kw, &a) || a.kind != ONNXC_ARG_VALUE)
		return 0;
	return istensor(c, a.ref) ? a.ref : 0;
}

static int
R(SymCtx *c, onnxc_value v)
{
	return sym_value(c, v).rank;
}

/* all dims of v (at most SYM_MAXR) */
static int
dims(SymCtx *c, onnxc_value v, Dim *out)
{
	int r = sym_dims(c, v, out, SYM_MAXR);
	return r > SYM_MAXR ? SYM_MAXR : r;
}

static Dim
D(SymCtx *c, onnxc_value v, int i)
{
	Dim d[SYM_MAXR];
	int r = dims(c, v, d);
	if (i < 0)
		i += r;
	return i >= 0 && i < r ? d[i] : (Dim){0, 0};
}

/* copies the first cnt dims of v into out */
static void
copydims(SymCtx *c, onnxc_value v, Dim *out, int cnt)
{
	Dim d[SYM_MAXR];
	int r = dims(c, v, d);
	for (int i = 0; i < cnt && i < r; i++)
		out[i] = d[i];
}

static int
outrank(SymCtx *c, onnxc_node n, uint32_t k)
{
	onnxc_value o = sym_out(c, n, k);
	if (!o)
		return -1;
	onnxc_value_info v = sym_value(c, o);
	return v.kind == ONNXC_VK_TENSOR ? v.rank : -1;
}

static bool
ival(SymCtx *c, const onnxc_arg *a, int64_t *v)
{
	if (a->kind == ONNXC_ARG_INT || a->kind == ONNXC_ARG_BOOL) {
		*v = a->i;
		return true;
	}
	if (a->kind == ONNXC_ARG_VALUE) {
		onnxc_expr e = sym_value(c, a->ref).sym;
		onnxc_expr_info x = sym_expr(c, e);
		if (e && x.kind == ONNXC_E_INT) {
			*v = x.n;
			return true;
		}
	}
	return false;
}

static int64_t
iarg(SymCtx *c, onnxc_node n, int i, const char *kw, int64_t dflt)
{
	int64_t v;
	onnxc_arg a;
	return A(c, n, i, kw, &a) && ival(c, &a, &v) ? v : dflt;
}

/* an int list (or a lone int) into out; -1 when absent or not static */
static int
ilist(SymCtx *c, const onnxc_arg *a, int64_t *out, int cap)
{
	if (!a || a->kind == ONNXC_ARG_NONE)
		return -1;
	if (!islist(a))
		return cap > 0 && ival(c, a, out) ? 1 : -1;
	if ((int)a->len > cap)
		return -1;
	for (uint32_t k = 0; k < a->len; k++) {
		onnxc_arg it;
		if (!sym_item(c, a, k, &it) || !ival(c, &it, &out[k]))
			return -1;
	}
	return (int)a->len;
}

/* the items of list a into it (cap of them); -1 when it is not a list
 * or longer */
static int
items(SymCtx *c, const onnxc_arg *a, onnxc_arg *it, int cap)
{
	if (!islist(a) || (int)a->len > cap)
		return -1;
	for (uint32_t k = 0; k < a->len; k++)
		if (!sym_item(c, a, k, &it[k]))
			return -1;
	return (int)a->len;
}

static bool
isnew(SymCtx *c, Dim d)
{
	return d.e && sym_is_new(c, d.e);
}

static bool
traced(SymCtx *c, Dim d, int64_t *v)
{
	return sym_traced(c, sym_dim_expr(c, d), v);
}

static int
fail(SymCtx *c, onnxc_node n, const char *fmt, const char *what)
{
	char msg[300];
	snprintf(msg, sizeof msg, fmt, what);
	sym_error(c, n, "%s: %s", sym_op(c, n), msg);
	return -1;
}

static int
normdim(int64_t d, int r)
{
	return (int)(d < 0 ? d + r : d);
}

static bool
has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* ------------------------------------------------------- broadcasting */

/* Output dim i of rank r, from the tensor inputs aligned at the right:
 * a new symbol of the same traced size wins; a fixed size other than 1
 * meeting it only works at the traced size. */
static int
bcast_dim(SymCtx *c, onnxc_node n, const onnxc_value *in, int nin, int r,
    int i, Dim *o)
{
	int64_t want;
	if (!traced(c, *o, &want))
		return 0;
	int with = -1;
	for (int k = 0; k < nin && with < 0; k++) {
		int j = i - (r - R(c, in[k]));
		int64_t v;
		if (j < 0)
			continue;
		Dim d = D(c, in[k], j);
		if (isnew(c, d) && traced(c, d, &v) && v == want)
			with = k;
	}
	if (with < 0)
		return 0;
	*o = D(c, in[with], i - (r - R(c, in[with])));
	for (int k = 0; k < nin; k++) {
		int j = i - (r - R(c, in[k]));
		if (j < 0 || k == with)
			continue;
		Dim d = D(c, in[k], j);
		if (!d.e && d.n != 1 && sym_unproven(c, n, "a fixed size",
		    d.n) < 0)
			return -1;
	}
	return 0;
}

/* the tensor values among the node's arguments (lists included) */
static int
tensors(SymCtx *c, onnxc_node n, onnxc_value *in, int cap)
{
	uint32_t na = sym_nargs(c, n);
	int k = 0;
	for (uint32_t i = 0; i < na; i++) {
		onnxc_arg a;
		if (!sym_node_arg(c, n, i, &a))
			continue;
		uint32_t cnt = islist(&a) ? a.len : 1;
		for (uint32_t j = 0; j < cnt && k < cap; j++) {
			onnxc_arg it = a;
			if (islist(&a) && !sym_item(c, &a, j, &it))
				continue;
			if (it.kind == ONNXC_ARG_VALUE && istensor(c, it.ref))
				in[k++] = it.ref;
		}
	}
	return k;
}

static int
r_broadcast(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value in[MAXIN];
	int nin = tensors(c, n, in, MAXIN), maxr = 0;
	for (int k = 0; k < nin; k++)
		if (R(c, in[k]) > maxr)
			maxr = R(c, in[k]);
	uint32_t nout = 0;
	while (sym_out(c, n, nout))
		nout++;
	bool any = false;
	for (uint32_t k = 0; k < nout && k < MAXIN; k++) {
		int r = outrank(c, n, k);
		if (r < 0 || r != maxr)
			continue;
		any = true;
		for (int i = 0; i < r; i++)
			if (bcast_dim(c, n, in, nin, r, i, &out[k][i]) < 0)
				return -1;
	}
	if (!any && nout && outrank(c, n, 0) > 0)
		return fail(c, n, "%s", "no shape rule for this op, and its "
		    "output rank differs from its inputs'; cannot follow the "
		    "symbolic dim through it");
	return 0;
}

/* ------------------------------------------------------------ reshape */

static onnxc_expr
product(SymCtx *c, const Dim *d, int from, int to)
{
	onnxc_expr e = sym_int(c, 1);
	for (int i = from; i < to; i++)
		e = sym_bin(c, ONNXC_E_MUL, e, sym_dim_expr(c, d[i]));
	return sym_simplify(c, e);
}

/* Spread the symbolic size E of a group over its output dims: a dim whose
 * traced size is a new symbol's takes that symbol, the rest keep their
 * numbers, and the product must come out as E. */
static bool
spread(SymCtx *c, onnxc_expr E, Dim *o, int cnt)
{
	Dim cand[SYM_MAXR];
	memcpy(cand, o, (size_t)cnt * sizeof *o);
	bool used[SYM_MAXR] = {0};
	for (uint32_t s = 0; s < c->nnew; s++) {
		if (!sym_mentions(c, E, c->bsym[s]))
			continue;
		for (int k = 0; k < cnt; k++) {
			if (used[k] || cand[k].e || cand[k].n != c->bval[s])
				continue;
			cand[k] = (Dim){0, c->bsym[s]};
			used[k] = true;
			break;
		}
	}
	if (product(c, cand, 0, cnt) == E) {
		memcpy(o, cand, (size_t)cnt * sizeof *o);
		return true;
	}
	/* one dim that is not 1 takes all of it */
	int only = -1;
	for (int k = 0; k < cnt; k++) {
		if (o[k].e || o[k].n != 1) {
			if (only >= 0)
				return false;
			only = k;
		}
	}
	if (only < 0)
		return false;
	o[only] = sym_mkdim(c, E);
	return true;
}

/* Output dims of a reshape of in[0..rin) into o[0..rout) (annotated):
 * dims are grouped where running products of traced sizes meet; a group
 * holding a new symbol passes its size on. */
static int
regroup(SymCtx *c, onnxc_node n, const Dim *in, int rin, Dim *o, int rout)
{
	int64_t iv[SYM_MAXR], ov[SYM_MAXR];
	bool sym = false;
	if (rin > SYM_MAXR || rout > SYM_MAXR)
		return 0;
	for (int i = 0; i < rin; i++) {
		if (!traced(c, in[i], &iv[i]))
			return fail(c, n, "%s", "cannot size the input");
		sym |= isnew(c, in[i]);
	}
	for (int j = 0; j < rout; j++)
		if (!traced(c, o[j], &ov[j]))
			return fail(c, n, "%s", "cannot size the output");
	if (!sym)
		return 0;
	for (int i = 0; i < rin; i++)
		if (iv[i] == 0)
			return fail(c, n, "%s", "reshaping a tensor with a "
			    "zero dim: cannot tell where the symbol goes");
	int i = 0, j = 0;
	while (i < rin || j < rout) {
		int i0 = i, j0 = j;
		int64_t pi = 1, pj = 1;
		if (i < rin)
			pi = iv[i++];
		if (j < rout)
			pj = ov[j++];
		while (pi != pj) {
			bool ovf;
			if (pi < pj && i < rin)
				ovf = __builtin_mul_overflow(pi, iv[i++], &pi);
			else if (pj < pi && j < rout)
				ovf = __builtin_mul_overflow(pj, ov[j++], &pj);
			else
				return fail(c, n, "%s", "the output holds a "
				    "different number of elements");
			if (ovf)
				return fail(c, n, "%s", "sizes overflow");
		}
		onnxc_expr E = product(c, in, i0, i);
		if (!sym_is_new(c, E))
			continue;
		if (j == j0 || !spread(c, E, o + j0, j - j0))
			return fail(c, n, "cannot tell which dims of the "
			    "output carry '%s'", sym_text(c, E));
	}
	return 0;
}

/* Size-list entries that now follow a new symbol: one becomes -1 (when
 * the list has none), the others SymInts computed at run time. */
static int
rewrite_sizes(SymCtx *c, onnxc_node n, int li, const char *kw, const Dim *o,
    int rout, bool minus_one)
{
	onnxc_arg L, it[SYM_MAXR];
	int idx = sym_arg_index(c, n, li, kw);
	if (idx < 0 || !sym_node_arg(c, n, (uint32_t)idx, &L) ||
	    rout > SYM_MAXR || items(c, &L, it, SYM_MAXR) != rout)
		return 0;
	bool neg = !minus_one, changed = false;
	for (int k = 0; k < rout; k++)
		neg |= it[k].kind == ONNXC_ARG_INT && it[k].i == -1;
	for (int k = 0; k < rout; k++) {
		onnxc_arg a = it[k];
		if (!isnew(c, o[k]) || (a.kind == ONNXC_ARG_INT && a.i == -1))
			continue;
		/* a SymInt the dump computed with the traced size in it
		 * (2*s0 where 2 was the batch) is replaced too */
		if (a.kind == ONNXC_ARG_VALUE) {
			onnxc_value_info v = sym_value(c, a.ref);
			if (v.kind != ONNXC_VK_SYMINT || sym_simplify(c, v.sym)
			    == sym_simplify(c, o[k].e))
				continue;
		}
		if (a.kind != ONNXC_ARG_INT && a.kind != ONNXC_ARG_VALUE)
			continue;
		changed = true;
		if (!neg) {
			it[k] = (onnxc_arg){.kind = ONNXC_ARG_INT, .i = -1};
			neg = true;
			continue;
		}
		onnxc_value v = sym_materialize(c, o[k].e);
		if (!v)
			return -1;
		it[k] = (onnxc_arg){.kind = ONNXC_ARG_VALUE, .ref = v};
	}
	if (!changed)
		return 0;
	return sym_set_list(c, n, (uint32_t)idx, &L, it, (uint32_t)rout);
}

static int
reshape_rule(SymCtx *c, onnxc_node n, Out *out, int li, const char *kw)
{
	onnxc_value x = T(c, n, 0, "self");
	int r = outrank(c, n, 0);
	if (!x || r < 0)
		return 0;
	Dim in[SYM_MAXR];
	int rin = dims(c, x, in);
	if (regroup(c, n, in, rin, out[0], r) < 0)
		return -1;
	return li < 0 ? 0 : rewrite_sizes(c, n, li, kw, out[0], r, true);
}

static int
r_view(SymCtx *c, onnxc_node n, Out *out)
{
	return reshape_rule(c, n, out, 1, "size");
}

static int
r_reshape(SymCtx *c, onnxc_node n, Out *out)
{
	return reshape_rule(c, n, out, 1, "shape");
}

static int
r_unflatten(SymCtx *c, onnxc_node n, Out *out)
{
	if (reshape_rule(c, n, out, -1, NULL) < 0)
		return -1;
	/* sizes replace dim d: they line up with out[d..] */
	onnxc_value x = T(c, n, 0, "self");
	int d = normdim(iarg(c, n, 1, "dim", 0), R(c, x));
	onnxc_arg L;
	if (!A(c, n, 2, "sizes", &L) || L.kind != ONNXC_ARG_LIST || d < 0 ||
	    d + (int)L.len > SYM_MAXR)
		return 0;
	return rewrite_sizes(c, n, 2, "sizes", out[0] + d, (int)L.len, true);
}

/* flatten, squeeze, unsqueeze and friends: reshapes without a size list */
static int
r_regroup(SymCtx *c, onnxc_node n, Out *out)
{
	return reshape_rule(c, n, out, -1, NULL);
}

/* -------------------------------------------------------- permutations */

static int
r_permute(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	int64_t p[SYM_MAXR];
	int r = x ? R(c, x) : -1;
	onnxc_arg a;
	bool have = A(c, n, 1, "dims", &a);
	if (r < 0 || ilist(c, have ? &a : NULL, p, SYM_MAXR) != r)
		return fail(c, n, "%s", "permutation not understood");
	for (int k = 0; k < r; k++) {
		int d = normdim(p[k], r);
		if (d < 0 || d >= r)
			return fail(c, n, "%s", "permutation out of range");
		out[0][k] = D(c, x, d);
	}
	return 0;
}

static int
r_transpose(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	int r = x ? R(c, x) : -1;
	if (r < 0)
		return 0;
	if (r < 2) {
		copydims(c, x, out[0], r);
		return 0;
	}
	const char *op = sym_op(c, n);
	int a = r - 2, b = r - 1;
	if (!has(op, "::t.") && !has(op, "numpy_T")) {
		a = normdim(iarg(c, n, 1, "dim0", 0), r);
		b = normdim(iarg(c, n, 2, "dim1", 1), r);
	}
	if (has(op, "numpy_T")) { /* reverses all dims */
		for (int k = 0; k < r; k++)
			out[0][k] = D(c, x, r - 1 - k);
		return 0;
	}
	if (a < 0 || a >= r || b < 0 || b >= r)
		return fail(c, n, "%s", "dims out of range");
	for (int k = 0; k < r; k++)
		out[0][k] = D(c, x, k == a ? b : k == b ? a : k);
	return 0;
}

/* ------------------------------------------------------------- expand */

static int
r_expand(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	int r = outrank(c, n, 0);
	onnxc_arg L, it[SYM_MAXR];
	int idx = sym_arg_index(c, n, 1, "size");
	if (!x || r < 0 || idx < 0 || !sym_node_arg(c, n, (uint32_t)idx, &L) ||
	    L.kind != ONNXC_ARG_LIST || items(c, &L, it, SYM_MAXR) != r)
		return r_broadcast(c, n, out);
	int lead = r - R(c, x);
	bool changed = false;
	for (int k = 0; k < r; k++) {
		onnxc_arg a = it[k];
		bool lit = a.kind == ONNXC_ARG_INT;
		if (k < lead) {
			if (lit && sym_unproven(c, n, "expand size", a.i) < 0)
				return -1;
			continue;
		}
		Dim d = D(c, x, k - lead);
		int64_t v;
		if (lit && a.i == -1) {
			out[0][k] = d;
		} else if (isnew(c, d) && lit && traced(c, d, &v) &&
		    v == a.i) {
			out[0][k] = d;
			it[k].i = -1; /* keep it */
			changed = true;
		} else if (lit && !d.e && d.n == 1 &&
		    sym_unproven(c, n, "expand size", a.i) < 0) {
			return -1;
		}
	}
	if (!changed)
		return 0;
	return sym_set_list(c, n, (uint32_t)idx, &L, it, (uint32_t)r);
}

/* ------------------------------------------------------- cat and stack */

static int
tensor_list(SymCtx *c, onnxc_node n, onnxc_value *in, int cap)
{
	onnxc_arg L;
	if (!A(c, n, 0, "tensors", &L) || !islist(&L))
		return -1;
	int k = 0;
	for (uint32_t i = 0; i < L.len && k < cap; i++) {
		onnxc_arg it;
		if (sym_item(c, &L, i, &it) && it.kind == ONNXC_ARG_VALUE &&
		    R(c, it.ref) >= 0 && R(c, it.ref) <= SYM_MAXR)
			in[k++] = it.ref;
	}
	return k;
}

static int
r_cat(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value in[MAXIN];
	int nin = tensor_list(c, n, in, MAXIN), r = outrank(c, n, 0);
	if (nin <= 0 || r <= 0)
		return 0;
	int d = normdim(iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return fail(c, n, "%s", "dim out of range");
	onnxc_expr sum = sym_int(c, 0);
	int used = 0;
	for (int k = 0; k < nin; k++) {
		if (R(c, in[k]) != r)
			continue; /* legacy empty 1-D tensors */
		sum = sym_bin(c, ONNXC_E_ADD, sum, sym_dim_expr(c, D(c, in[k],
		    d)));
		used++;
	}
	if (!used)
		return 0;
	out[0][d] = sym_mkdim(c, sum);
	for (int i = 0; i < r; i++) {
		if (i == d)
			continue;
		for (int k = 0; k < nin; k++)
			if (R(c, in[k]) == r && isnew(c, D(c, in[k], i))) {
				out[0][i] = D(c, in[k], i);
				break;
			}
	}
	return 0;
}

static int
r_stack(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value in[MAXIN];
	int nin = tensor_list(c, n, in, MAXIN), r = outrank(c, n, 0);
	if (nin <= 0 || r <= 0)
		return 0;
	int d = normdim(iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r || R(c, in[0]) != r - 1)
		return fail(c, n, "%s", "dim out of range");
	for (int i = 0, j = 0; i < r; i++) {
		if (i == d)
			continue;
		out[0][i] = D(c, in[0], j);
		for (int k = 1; k < nin; k++)
			if (isnew(c, D(c, in[k], j)))
				out[0][i] = D(c, in[k], j);
		j++;
	}
	return 0;
}

/* ------------------------------------------------------- split family */

/* Outputs are the input with the split dim as the dump has it; splitting
 * along a new symbol into fixed pieces has no fixed answer. */
static int
r_split(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	if (!x)
		return 0;
	int r = R(c, x);
	bool unbind = has(sym_op(c, n), "unbind");
	int d = normdim(iarg(c, n, unbind ? 1 : 2, "dim", 0), r);
	if (d < 0 || d >= r)
		return fail(c, n, "%s", "dim out of range");
	if (isnew(c, D(c, x, d)))
		return fail(c, n, "splitting along the symbolic dim '%s' into "
		    "a fixed number of pieces is not supported",
		    sym_text(c, D(c, x, d).e));
	for (uint32_t k = 0; sym_out(c, n, k) && k < MAXIN; k++) {
		int ro = outrank(c, n, k);
		if (ro < 0)
			continue;
		for (int i = 0, j = 0; i < r; i++) {
			if (i == d && unbind)
				continue;
			if (i != d && j < ro)
				out[k][j] = D(c, x, i);
			j++;
		}
	}
	return 0;
}

/* --------------------------------------------------------- selection */

static int
r_slice(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	if (!x)
		return 0;
	int r = R(c, x);
	int d = normdim(iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return fail(c, n, "%s", "dim out of range");
	for (int i = 0; i < r && outrank(c, n, 0) == r; i++)
		if (i != d)
			out[0][i] = D(c, x, i);
	Dim xd = D(c, x, d);
	onnxc_arg sa, ea;
	bool hs = A(c, n, 2, "start", &sa), he = A(c, n, 3, "end", &ea);
	int64_t s = 0, e = INT64_MAX, st = iarg(c, n, 4, "step", 1);
	if (hs && sa.kind != ONNXC_ARG_NONE && !ival(c, &sa, &s))
		return 0; /* a SymInt bound: the dump's own expression stays */
	if (he && ea.kind != ONNXC_ARG_NONE && !ival(c, &ea, &e))
		return 0;
	int64_t size;
	if (!isnew(c, xd) || !traced(c, xd, &size)) {
		/* a static dim sliced to a traced size (mask[:T]) */
		if (he && ea.kind == ONNXC_ARG_INT && e != INT64_MAX &&
		    sym_unproven(c, n, "slice end", e) < 0)
			return -1;
		return 0;
	}
	if (st < 1)
		return fail(c, n, "%s", "step must be positive");
	/* bounds that hold at every size past the traced one keep the
	 * dump's number; bounds counted from the end follow the symbol */
	onnxc_expr E = xd.e, len;
	if (s < 0 && e >= size) {
		return 0; /* x[-k:]: k elements */
	} else if (s >= 0 && e >= INT64_MAX / 2) {
		len = sym_bin(c, ONNXC_E_ADD, E, sym_int(c, -s));
	} else if (s >= 0 && e < 0) {
		len = sym_bin(c, ONNXC_E_ADD, E, sym_int(c, e - s));
	} else if (s >= 0 && e == size) {
		return sym_unproven(c, n, "slice end", e);
	} else if (s >= 0 && e > size) {
		len = sym_bin(c, ONNXC_E_ADD, sym_bin(c, ONNXC_E_MIN, E,
		    sym_int(c, e)), sym_int(c, -s));
	} else {
		return 0; /* fixed window inside the traced size */
	}
	if (st != 1)
		len = sym_bin(c, ONNXC_E_FLOORDIV, sym_bin(c, ONNXC_E_ADD, len,
		    sym_int(c, st - 1)), sym_int(c, st));
	out[0][d] = sym_mkdim(c, len);
	return 0;
}

static int
r_select(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	if (!x)
		return 0;
	int r = R(c, x);
	int d = normdim(iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return fail(c, n, "%s", "dim out of range");
	for (int i = 0, j = 0; i < r; i++)
		if (i != d)
			out[0][j++] = D(c, x, i);
	return 0;
}

static int
r_narrow(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	if (!x)
		return 0;
	int r = R(c, x);
	int d = normdim(iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return fail(c, n, "%s", "dim out of range");
	for (int i = 0; i < r; i++)
		if (i != d)
			out[0][i] = D(c, x, i);
	int64_t len;
	onnxc_arg a;
	if (A(c, n, 3, "length", &a) && ival(c, &a, &len))
		return sym_unproven(c, n, "narrow length", len);
	return 0;
}

static int
r_index_select(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self"), idx = T(c, n, 2, "index");
	if (!x || !idx)
		return 0;
	int r = R(c, x);
	int d = normdim(iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return fail(c, n, "%s", "dim out of range");
	copydims(c, x, out[0], r);
	if (R(c, idx) == 1)
		out[0][d] = D(c, idx, 0);
	return 0;
}

static int
r_gather(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value idx = T(c, n, 2, "index");
	if (idx && R(c, idx) == outrank(c, n, 0))
		copydims(c, idx, out[0], R(c, idx));
	return 0;
}

/* x[i0, i1, ...]: the index tensors broadcast together and replace the
 * dims they index (in place when adjacent, in front otherwise). */
static int
r_index(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	onnxc_arg L;
	int r = outrank(c, n, 0);
	if (!x || !A(c, n, 1, "indices", &L) || L.kind != ONNXC_ARG_LIST ||
	    r < 0 || r > SYM_MAXR)
		return 0;
	onnxc_value idx[SYM_MAXR];
	int pos[SYM_MAXR], ni = 0, rx = R(c, x), bi = 0;
	for (uint32_t k = 0; k < L.len && k < SYM_MAXR; k++) {
		onnxc_arg it;
		if (!sym_item(c, &L, k, &it) || it.kind != ONNXC_ARG_VALUE)
			continue;
		onnxc_value_info v = sym_value(c, it.ref);
		if (v.dtype == ONNXC_DT_BOOL || v.dtype == ONNXC_DT_U8 ||
		    v.rank < 0 || v.rank > SYM_MAXR)
			return 0; /* masks: data-dependent sizes */
		idx[ni] = it.ref;
		pos[ni++] = (int)k;
		if (v.rank > bi)
			bi = v.rank;
	}
	if (!ni)
		return 0;
	bool adjacent = pos[ni - 1] - pos[0] == ni - 1;
	int at = adjacent ? pos[0] : 0;
	if (r != rx - ni + bi)
		return 0;
	/* the broadcast index shape at out[at .. at+bi) */
	for (int i = 0; i < bi; i++)
		if (bcast_dim(c, n, idx, ni, bi, i, &out[0][at + i]) < 0)
			return -1;
	int j = 0;
	for (int i = 0; i < rx; i++) {
		bool indexed = false;
		for (int k = 0; k < ni; k++)
			indexed |= pos[k] == i;
		if (indexed)
			continue;
		int o = adjacent ? (i < pos[0] ? i : i - ni + bi) : bi + j;
		out[0][o] = D(c, x, i);
		j++;
	}
	return 0;
}

static int
r_embedding(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value w = T(c, n, 0, "weight"), idx = T(c, n, 1, "indices");
	if (!w || !idx || outrank(c, n, 0) != R(c, idx) + 1 ||
	    R(c, idx) >= SYM_MAXR)
		return 0;
	copydims(c, idx, out[0], R(c, idx));
	out[0][R(c, idx)] = D(c, w, -1);
	return 0;
}

/* ------------------------------------------------------ linear algebra */

static int
mm_like(SymCtx *c, onnxc_node n, Out *out, int ia, int ib)
{
	onnxc_value a = T(c, n, ia, NULL), b = T(c, n, ib, NULL);
	int r = outrank(c, n, 0);
	if (!a || !b || r < 0)
		return 0;
	int ra = R(c, a), rb = R(c, b);
	if (ra == 1 && rb == 1)
		return 0;
	if (rb == 1) { /* [..., n, k] @ [k] */
		copydims(c, a, out[0], ra - 1);
		return 0;
	}
	if (ra == 1) { /* [k] @ [..., k, m] */
		copydims(c, b, out[0], rb - 2);
		out[0][r - 1] = D(c, b, -1);
		return 0;
	}
	/* batch dims broadcast; then rows of a, columns of b */
	onnxc_value in[2] = {a, b};
	for (int i = 0; i < r - 2; i++) {
		Dim *o = &out[0][i];
		int64_t want;
		if (!traced(c, *o, &want))
			continue;
		for (int k = 0; k < 2; k++) {
			int j = i - (r - R(c, in[k]));
			int64_t v;
			if (j >= 0 && isnew(c, D(c, in[k], j)) &&
			    traced(c, D(c, in[k], j), &v) && v == want)
				*o = D(c, in[k], j);
		}
	}
	out[0][r - 2] = D(c, a, -2);
	out[0][r - 1] = D(c, b, -1);
	return 0;
}

static int
r_mm(SymCtx *c, onnxc_node n, Out *out)
{
	return mm_like(c, n, out, 0, 1);
}

static int
r_addmm(SymCtx *c, onnxc_node n, Out *out)
{
	return mm_like(c, n, out, 1, 2);
}

static int
r_linear(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "input"), w = T(c, n, 1, "weight");
	int r = outrank(c, n, 0);
	if (!x || !w || r != R(c, x))
		return 0;
	copydims(c, x, out[0], r - 1);
	if (R(c, w) == 2)
		out[0][r - 1] = D(c, w, 0);
	return 0;
}

/* q[..., L, E] with v[..., S, Ev] -> [..., L, Ev] (and logsumexp
 * [..., L] for the flash variant) */
static int
r_sdpa(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value q = T(c, n, 0, "query"), v = T(c, n, 2, "value");
	if (!q || !v)
		return 0;
	int r = R(c, q);
	if (outrank(c, n, 0) == r) {
		copydims(c, q, out[0], r - 1);
		out[0][r - 1] = D(c, v, -1);
	}
	if (outrank(c, n, 1) == r - 1)
		copydims(c, q, out[1], r - 1);
	return 0;
}

/* ------------------------------------------------- batch-major layers */

/* convolution, pooling, upsampling: the batch dim passes through (and
 * channels for pooling); other dims are the dump's numbers, which is only
 * right while they stay fixed */
static int
batch_major(SymCtx *c, onnxc_node n, Out *out, bool keep_channels)
{
	onnxc_value x = T(c, n, 0, "input");
	if (!x)
		x = T(c, n, 0, "self");
	if (!x)
		return 0;
	int r = R(c, x);
	for (int i = 1; i < r; i++)
		if (isnew(c, D(c, x, i)) && !(keep_channels && i == 1))
			return fail(c, n, "a symbolic dim (%s) other than the "
			    "batch going through this op is not supported",
			    sym_text(c, D(c, x, i).e));
	for (uint32_t k = 0; sym_out(c, n, k) && k < MAXIN; k++) {
		if (outrank(c, n, k) != r)
			continue;
		out[k][0] = D(c, x, 0);
		if (keep_channels && r > 1)
			out[k][1] = D(c, x, 1);
	}
	return 0;
}

static int
r_conv(SymCtx *c, onnxc_node n, Out *out)
{
	return batch_major(c, n, out, false);
}

static int
r_pool(SymCtx *c, onnxc_node n, Out *out)
{
	return batch_major(c, n, out, true);
}

/* native_layer_norm: out, mean and rstd ([..., 1, 1] over the
 * normalised dims) */
static int
r_layer_norm(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "input");
	if (!x)
		return 0;
	int r = R(c, x);
	for (uint32_t k = 0; sym_out(c, n, k) && k < MAXIN; k++) {
		if (outrank(c, n, k) != r)
			continue;
		for (int i = 0; i < r; i++) {
			Dim d = D(c, x, i);
			int64_t v, want;
			if (k == 0 || (traced(c, d, &v) &&
			    traced(c, out[k][i], &want) && v == want))
				out[k][i] = d;
		}
	}
	return 0;
}

/* ---------------------------------------------------------- reductions */

static int
r_reduce(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	if (!x)
		x = T(c, n, 0, "input");
	if (!x)
		return 0;
	int r = R(c, x);
	int64_t dims[SYM_MAXR];
	onnxc_arg da, ka;
	int nd = A(c, n, 1, "dim", &da) && da.kind != ONNXC_ARG_BOOL
	    ? ilist(c, &da, dims, SYM_MAXR) : -1;
	bool keep = false;
	if (A(c, n, -1, "keepdim", &ka))
		keep = ka.i != 0;
	else if (A(c, n, 2, NULL, &ka) && ka.kind == ONNXC_ARG_BOOL)
		keep = ka.i != 0;
	bool red[SYM_MAXR] = {0};
	if (nd <= 0) { /* all dims */
		for (int i = 0; i < r; i++)
			red[i] = true;
	} else {
		for (int k = 0; k < nd; k++) {
			int d = normdim(dims[k], r);
			if (d < 0 || d >= r)
				return fail(c, n, "%s", "dim out of range");
			red[d] = true;
		}
	}
	for (uint32_t k = 0; sym_out(c, n, k) && k < MAXIN; k++) {
		int ro = outrank(c, n, k), j = 0;
		if (ro < 0)
			continue;
		int want = 0;
		for (int i = 0; i < r; i++)
			want += !red[i] || keep;
		if (ro != want)
			continue; /* var_mean's and the like's other outputs */
		for (int i = 0; i < r; i++) {
			if (red[i] && !keep)
				continue;
			out[k][j++] = red[i] ? (Dim){1, 0} : D(c, x, i);
		}
	}
	return 0;
}

/* -------------------------------------------------------- other shapes */

static int
r_repeat(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	int64_t rep[SYM_MAXR];
	int r = outrank(c, n, 0);
	onnxc_arg a;
	bool have = A(c, n, 1, "repeats", &a);
	if (!x || ilist(c, have ? &a : NULL, rep, SYM_MAXR) != r)
		return 0;
	int lead = r - R(c, x);
	for (int k = lead; k < r; k++)
		out[0][k] = sym_mkdim(c, sym_bin(c, ONNXC_E_MUL,
		    sym_dim_expr(c, D(c, x, k - lead)), sym_int(c, rep[k])));
	return 0;
}

static int
r_pad(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = T(c, n, 0, "self");
	int64_t pad[2 * SYM_MAXR];
	int r = outrank(c, n, 0);
	onnxc_arg a;
	bool have = A(c, n, 1, "pad", &a);
	int np = ilist(c, have ? &a : NULL, pad, 2 * SYM_MAXR);
	if (!x || np < 0 || r != R(c, x))
		return 0;
	for (int i = 0; 2 * i + 1 < np && i < r; i++) {
		int d = r - 1 - i;
		out[0][d] = sym_mkdim(c, sym_bin(c, ONNXC_E_ADD,
		    sym_dim_expr(c, D(c, x, d)), sym_int(c,
		    pad[2 * i] + pad[2 * i + 1])));
	}
	return 0;
}

/* factories: the sizes are literals; report those equal to a traced
 * size */
static int
check_literals(SymCtx *c, onnxc_node n, int i, const char *kw,
    const char *what)
{
	onnxc_arg a;
	if (!A(c, n, i, kw, &a))
		return 0;
	if (a.kind == ONNXC_ARG_INT)
		return sym_unproven(c, n, what, a.i);
	if (!islist(&a))
		return 0;
	for (uint32_t k = 0; k < a.len; k++) {
		onnxc_arg it;
		if (sym_item(c, &a, k, &it) && it.kind == ONNXC_ARG_INT &&
		    sym_unproven(c, n, what, it.i) < 0)
			return -1;
	}
	return 0;
}

static int
r_factory(SymCtx *c, onnxc_node n, Out *out)
{
	(void)out;
	const char *op = sym_op(c, n);
	if (has(op, "::arange")) {
		for (int i = 0; i < 3; i++)
			if (check_literals(c, n, i, NULL, "arange bound") < 0)
				return -1;
		return 0;
	}
	if (has(op, "::new_"))
		return check_literals(c, n, 1, "size", "size");
	if (has(op, "::randint"))
		return check_literals(c, n, -1, "size", "size");
	return check_literals(c, n, 0, "size", "size");
}

/* ------------------------------------------------------------ SymInts */

static onnxc_expr
symarg(SymCtx *c, onnxc_node n, int i)
{
	onnxc_arg a;
	if (!A(c, n, i, NULL, &a))
		return 0;
	if (a.kind == ONNXC_ARG_INT || a.kind == ONNXC_ARG_BOOL)
		return sym_int(c, a.i);
	if (a.kind == ONNXC_ARG_VALUE)
		return sym_value(c, a.ref).sym;
	return 0;
}

/* the output of n now equals e (kept only on Sym values) */
static int
set_sym(SymCtx *c, onnxc_node n, onnxc_expr e)
{
	onnxc_value o = sym_out(c, n, 0);
	onnxc_value_info v = sym_value(c, o);
	if (v.kind != ONNXC_VK_SYMINT && v.kind != ONNXC_VK_SYMFLOAT &&
	    v.kind != ONNXC_VK_SYMBOOL)
		return 0;
	if (c->h->value_set_sym(c->ctx, c->g, o, v.kind, e) != ONNXC_OK) {
		sym_error(c, n, "%s: the host refused the new value of '%s'",
		    sym_op(c, n), c->h->str(c->ctx, v.name));
		return -1;
	}
	return 0;
}

static int
r_sym_size(SymCtx *c, onnxc_node n, Out *out)
{
	(void)out;
	onnxc_value x = T(c, n, 0, "self");
	if (!x)
		return 0;
	int d = normdim(iarg(c, n, 1, "dim", 0), R(c, x));
	if (d < 0 || d >= R(c, x))
		return fail(c, n, "%s", "dim out of range");
	if (isnew(c, D(c, x, d)))
		return set_sym(c, n, sym_dim_expr(c, D(c, x, d)));
	return 0;
}

static const struct {
	const char *op;
	uint8_t kind;
} symops[] = {
	{"_operator::add", ONNXC_E_ADD}, {"_operator::mul", ONNXC_E_MUL},
	{"_operator::floordiv", ONNXC_E_FLOORDIV},
	{"_operator::mod", ONNXC_E_MOD},
	{"_operator::truediv", ONNXC_E_TRUEDIV},
	{"_operator::pow", ONNXC_E_POW},
	{"torch::sym_max", ONNXC_E_MAX}, {"torch::sym_min", ONNXC_E_MIN},
	{"_operator::eq", ONNXC_E_EQ}, {"_operator::ne", ONNXC_E_NE},
	{"_operator::lt", ONNXC_E_LT}, {"_operator::le", ONNXC_E_LE},
	{"_operator::gt", ONNXC_E_GT}, {"_operator::ge", ONNXC_E_GE},
};

/* Python operators on SymInts: the output's expression, recomputed */
static int
r_symop(SymCtx *c, onnxc_node n, Out *out)
{
	(void)out;
	const char *op = sym_op(c, n);
	onnxc_expr a = symarg(c, n, 0), b = symarg(c, n, 1), e = 0;
	if (!a)
		return 0;
	if (!strcmp(op, "_operator::sub") && b)
		e = sym_bin(c, ONNXC_E_ADD, a, sym_bin(c, ONNXC_E_NEG, b, 0));
	else if (!strcmp(op, "_operator::neg"))
		e = sym_bin(c, ONNXC_E_NEG, a, 0);
	else if (!strcmp(op, "torch::sym_float"))
		e = sym_bin(c, ONNXC_E_TOFLOAT, a, 0);
	for (size_t i = 0; i < sizeof symops / sizeof symops[0] && !e; i++)
		if (!strcmp(op, symops[i].op) && b)
			e = sym_bin(c, symops[i].kind, a, b);
	if (e && sym_out(c, n, 0) && !sym_out(c, n, 1))
		return set_sym(c, n, sym_simplify(c, e));
	return 0;
}

/* -------------------------------------------------------------- table */

/* Rules by op name without namespace and overload ("view" for
 * aten::view.default), except Python operators, matched whole. */
static const struct {
	const char *name;
	Rule fn;
} rules[] = {
	{"view", r_view}, {"view_copy", r_view}, {"_unsafe_view", r_view},
	{"_reshape_alias", r_view}, {"_reshape_alias_copy", r_view},
	{"reshape", r_reshape}, {"unflatten", r_unflatten},
	{"flatten", r_regroup}, {"squeeze", r_regroup},
	{"squeeze_copy", r_regroup}, {"unsqueeze", r_regroup},
	{"unsqueeze_copy", r_regroup},
	{"permute", r_permute}, {"permute_copy", r_permute},
	{"transpose", r_transpose}, {"transpose_copy", r_transpose},
	{"t", r_transpose}, {"t_copy", r_transpose}, {"numpy_T", r_transpose},
	{"swapaxes", r_transpose},
	{"expand", r_expand}, {"expand_copy", r_expand},
	{"cat", r_cat}, {"concat", r_cat}, {"concatenate", r_cat},
	{"stack", r_stack},
	{"split", r_split}, {"split_with_sizes", r_split},
	{"split_copy", r_split}, {"split_with_sizes_copy", r_split},
	{"chunk", r_split}, {"unbind", r_split}, {"unbind_copy", r_split},
	{"tensor_split", r_split},
	{"slice", r_slice}, {"slice_copy", r_slice},
	{"select", r_select}, {"select_copy", r_select},
	{"narrow", r_narrow}, {"narrow_copy", r_narrow},
	{"index_select", r_index_select}, {"gather", r_gather},
	{"index", r_index}, {"_unsafe_index", r_index},
	{"embedding", r_embedding},
	{"mm", r_mm}, {"bmm", r_mm}, {"matmul", r_mm}, {"mv", r_mm},
	{"addmm", r_addmm}, {"baddbmm", r_addmm}, {"addmv", r_addmm},
	{"linear", r_linear},
	{"scaled_dot_product_attention", r_sdpa},
	{"_scaled_dot_product_flash_attention_for_cpu", r_sdpa},
	{"convolution", r_conv}, {"_convolution", r_conv},
	{"conv1d", r_conv}, {"conv2d", r_conv}, {"conv3d", r_conv},
	{"conv_transpose1d", r_conv}, {"conv_transpose2d", r_conv},
	{"conv_transpose3d", r_conv},
	{"max_pool1d", r_pool}, {"max_pool2d", r_pool}, {"max_pool3d", r_pool},
	{"max_pool1d_with_indices", r_pool},
	{"max_pool2d_with_indices", r_pool},
	{"max_pool3d_with_indices", r_pool},
	{"avg_pool1d", r_pool}, {"avg_pool2d", r_pool}, {"avg_pool3d", r_pool},
	{"adaptive_avg_pool1d", r_pool}, {"adaptive_avg_pool2d", r_pool},
	{"_adaptive_avg_pool2d", r_pool}, {"adaptive_avg_pool3d", r_pool},
	{"_adaptive_avg_pool3d", r_pool}, {"adaptive_max_pool1d", r_pool},
	{"adaptive_max_pool2d", r_pool},
	{"upsample_nearest1d", r_pool}, {"upsample_nearest2d", r_pool},
	{"upsample_nearest3d", r_pool}, {"upsample_linear1d", r_pool},
	{"upsample_bilinear2d", r_pool}, {"upsample_trilinear3d", r_pool},
	{"upsample_bicubic2d", r_pool},
	{"_upsample_nearest_exact1d", r_pool},
	{"_upsample_nearest_exact2d", r_pool},
	{"_upsample_nearest_exact3d", r_pool},
	{"pixel_shuffle", r_pool}, {"pixel_unshuffle", r_pool},
	{"native_layer_norm", r_layer_norm},
	{"native_group_norm", r_layer_norm},
	{"sum", r_reduce}, {"mean", r_reduce}, {"prod", r_reduce},
	{"amax", r_reduce}, {"amin", r_reduce}, {"max", r_reduce},
	{"min", r_reduce}, {"argmax", r_reduce}, {"argmin", r_reduce},
	{"logsumexp", r_reduce}, {"var", r_reduce}, {"std", r_reduce},
	{"var_mean", r_reduce}, {"std_mean", r_reduce}, {"norm", r_reduce},
	{"linalg_vector_norm", r_reduce}, {"any", r_reduce},
	{"all", r_reduce}, {"count_nonzero", r_reduce},
	{"repeat", r_repeat}, {"constant_pad_nd", r_pad}, {"pad", r_pad},
	{"zeros", r_factory}, {"ones", r_factory}, {"empty", r_factory},
	{"full", r_factory}, {"rand", r_factory}, {"randn", r_factory},
	{"randint", r_factory}, {"arange", r_factory},
	{"empty_strided", r_factory}, {"new_zeros", r_factory},
	{"new_ones", r_factory}, {"new_empty", r_factory},
	{"new_full", r_factory}, {"new_empty_strided", r_factory},
	{"sym_size", r_sym_size},
};

/* Factories and slices are looked at even when nothing symbolic reaches
 * them: their literals may stand for a traced size. */
static bool
always(Rule fn)
{
	return fn == r_factory || fn == r_slice;
}

static Rule
find(SymCtx *c, onnxc_node n)
{
	const char *op = sym_op(c, n);
	if (!strncmp(op, "_operator::", 11) || !strncmp(op, "torch::sym_", 11))
		return r_symop;
	const char *s = strstr(op, "::");
	s = s ? s + 2 : op;
	size_t len = strcspn(s, ".");
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (strlen(rules[i].name) == len &&
		    !memcmp(rules[i].name, s, len))
			return rules[i].fn;
	/* in-place forms (add_) follow their functional form */
	if (len > 1 && s[len - 1] == '_')
		return r_broadcast;
	return NULL;
}

static bool
val_touched(SymCtx *c, const onnxc_arg *a)
{
	return a->kind == ONNXC_ARG_VALUE && (a->ref >= c->ntouched ||
	    c->touched[a->ref]);
}

static bool
node_touched(SymCtx *c, onnxc_node n)
{
	uint32_t na = sym_nargs(c, n);
	for (uint32_t k = 0; k < na; k++) {
		onnxc_arg a;
		if (!sym_node_arg(c, n, k, &a))
			continue;
		if (!islist(&a)) {
			if (val_touched(c, &a))
				return true;
			continue;
		}
		for (uint32_t j = 0; j < a.len; j++) {
			onnxc_arg it;
			if (sym_item(c, &a, j, &it) && val_touched(c, &it))
				return true;
		}
	}
	return false;
}

int
sym_infer(SymCtx *c, onnxc_node n, Out *out)
{
	Rule fn = find(c, n);
	bool t = node_touched(c, n);
	if (!t && !(fn && always(fn)))
		return 0;
	if (!t && fn == r_slice) {
		/* a static dim: only the literal check applies */
		return r_slice(c, n, out);
	}
	return (fn ? fn : r_broadcast)(c, n, out);
}
