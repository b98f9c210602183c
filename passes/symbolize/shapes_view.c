/* shapes_view.c - symbolic shape rules for views and joins: reshape,
 * permutations, expand, cat/stack and the split family (see shapes.c). */
#include <stdio.h>
#include <string.h>

#include "shapes.h"

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
		if (!shp_traced(c, in[i], &iv[i]))
			return shp_fail(c, n, "%s", "cannot size the input");
		sym |= shp_isnew(c, in[i]);
	}
	for (int j = 0; j < rout; j++)
		if (!shp_traced(c, o[j], &ov[j]))
			return shp_fail(c, n, "%s", "cannot size the output");
	if (!sym)
		return 0;
	for (int i = 0; i < rin; i++)
		if (iv[i] == 0)
			return shp_fail(c, n, "%s", "reshaping a tensor with a "
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
				return shp_fail(c, n, "%s",
				    "the output holds a "
				    "different number of elements");
			if (ovf)
				return shp_fail(c, n, "%s", "sizes overflow");
		}
		onnxc_expr E = product(c, in, i0, i);
		if (!sym_is_new(c, E))
			continue;
		if (j == j0 || !spread(c, E, o + j0, j - j0))
			return shp_fail(c, n, "cannot tell which dims of the "
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
	    rout > SYM_MAXR || shp_items(c, &L, it, SYM_MAXR) != rout)
		return 0;
	bool neg = !minus_one, changed = false;
	for (int k = 0; k < rout; k++)
		neg |= it[k].kind == ONNXC_ARG_INT && it[k].i == -1;
	for (int k = 0; k < rout; k++) {
		onnxc_arg a = it[k];
		if (!shp_isnew(c, o[k])
		    || (a.kind == ONNXC_ARG_INT && a.i == -1))
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
	onnxc_value x = shp_tensor(c, n, 0, "self");
	int r = shp_outrank(c, n, 0);
	if (!x || r < 0)
		return 0;
	Dim in[SYM_MAXR];
	int rin = shp_dims(c, x, in);
	if (regroup(c, n, in, rin, out[0], r) < 0)
		return -1;
	return li < 0 ? 0 : rewrite_sizes(c, n, li, kw, out[0], r, true);
}

int
shp_view(SymCtx *c, onnxc_node n, Out *out)
{
	return reshape_rule(c, n, out, 1, "size");
}

int
shp_reshape(SymCtx *c, onnxc_node n, Out *out)
{
	return reshape_rule(c, n, out, 1, "shape");
}

int
shp_unflatten(SymCtx *c, onnxc_node n, Out *out)
{
	if (reshape_rule(c, n, out, -1, NULL) < 0)
		return -1;
	/* sizes replace dim d: they line up with out[d..] */
	onnxc_value x = shp_tensor(c, n, 0, "self");
	int d = shp_normdim(shp_iarg(c, n, 1, "dim", 0), shp_rank(c, x));
	onnxc_arg L;
	if (!shp_arg(c, n, 2, "sizes", &L) || L.kind != ONNXC_ARG_LIST
	    || d < 0 ||
	    d + (int)L.len > SYM_MAXR)
		return 0;
	return rewrite_sizes(c, n, 2, "sizes", out[0] + d, (int)L.len, true);
}

/* flatten, squeeze, unsqueeze and friends: reshapes without a size list */
int
shp_regroup(SymCtx *c, onnxc_node n, Out *out)
{
	return reshape_rule(c, n, out, -1, NULL);
}

/* -------------------------------------------------------- permutations */

int
shp_permute(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	int64_t p[SYM_MAXR];
	int r = x ? shp_rank(c, x) : -1;
	onnxc_arg a;
	bool have = shp_arg(c, n, 1, "dims", &a);
	if (r < 0 || shp_ilist(c, have ? &a : NULL, p, SYM_MAXR) != r)
		return shp_fail(c, n, "%s", "permutation not understood");
	for (int k = 0; k < r; k++) {
		int d = shp_normdim(p[k], r);
		if (d < 0 || d >= r)
			return shp_fail(c, n, "%s", "permutation out of range");
		out[0][k] = shp_dim(c, x, d);
	}
	return 0;
}

int
shp_transpose(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	int r = x ? shp_rank(c, x) : -1;
	if (r < 0)
		return 0;
	if (r < 2) {
		shp_copydims(c, x, out[0], r);
		return 0;
	}
	const char *op = sym_op(c, n);
	int a = r - 2, b = r - 1;
	if (!shp_has(op, "::t.") && !shp_has(op, "numpy_T")) {
		a = shp_normdim(shp_iarg(c, n, 1, "dim0", 0), r);
		b = shp_normdim(shp_iarg(c, n, 2, "dim1", 1), r);
	}
	if (shp_has(op, "numpy_T")) { /* reverses all dims */
		for (int k = 0; k < r; k++)
			out[0][k] = shp_dim(c, x, r - 1 - k);
		return 0;
	}
	if (a < 0 || a >= r || b < 0 || b >= r)
		return shp_fail(c, n, "%s", "dims out of range");
	for (int k = 0; k < r; k++)
		out[0][k] = shp_dim(c, x, k == a ? b : k == b ? a : k);
	return 0;
}

/* ------------------------------------------------------------- expand */

int
shp_expand(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	int r = shp_outrank(c, n, 0);
	onnxc_arg L, it[SYM_MAXR];
	int idx = sym_arg_index(c, n, 1, "size");
	if (!x || r < 0 || idx < 0 || !sym_node_arg(c, n, (uint32_t)idx, &L) ||
	    L.kind != ONNXC_ARG_LIST || shp_items(c, &L, it, SYM_MAXR) != r)
		return shp_broadcast(c, n, out);
	int lead = r - shp_rank(c, x);
	bool changed = false;
	for (int k = 0; k < r; k++) {
		onnxc_arg a = it[k];
		bool lit = a.kind == ONNXC_ARG_INT;
		if (k < lead) {
			if (lit && sym_unproven(c, n, "expand size", a.i) < 0)
				return -1;
			continue;
		}
		Dim d = shp_dim(c, x, k - lead);
		int64_t v;
		if (lit && a.i == -1) {
			out[0][k] = d;
		} else if (shp_isnew(c, d) && lit && shp_traced(c, d, &v) &&
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
	if (!shp_arg(c, n, 0, "tensors", &L) || !shp_islist(&L))
		return -1;
	int k = 0;
	for (uint32_t i = 0; i < L.len && k < cap; i++) {
		onnxc_arg it;
		if (sym_item(c, &L, i, &it) && it.kind == ONNXC_ARG_VALUE &&
		    shp_rank(c, it.ref) >= 0 && shp_rank(c, it.ref) <= SYM_MAXR)
			in[k++] = it.ref;
	}
	return k;
}

int
shp_cat(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value in[MAXIN];
	int nin = tensor_list(c, n, in, MAXIN), r = shp_outrank(c, n, 0);
	if (nin <= 0 || r <= 0)
		return 0;
	int d = shp_normdim(shp_iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return shp_fail(c, n, "%s", "dim out of range");
	onnxc_expr sum = sym_int(c, 0);
	int used = 0;
	for (int k = 0; k < nin; k++) {
		if (shp_rank(c, in[k]) != r)
			continue; /* legacy empty 1-D tensors */
		sum = sym_bin(c, ONNXC_E_ADD, sum,
		    sym_dim_expr(c, shp_dim(c, in[k],
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
			if (shp_rank(c, in[k]) == r
			    && shp_isnew(c, shp_dim(c, in[k], i))) {
				out[0][i] = shp_dim(c, in[k], i);
				break;
			}
	}
	return 0;
}

int
shp_stack(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value in[MAXIN];
	int nin = tensor_list(c, n, in, MAXIN), r = shp_outrank(c, n, 0);
	if (nin <= 0 || r <= 0)
		return 0;
	int d = shp_normdim(shp_iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r || shp_rank(c, in[0]) != r - 1)
		return shp_fail(c, n, "%s", "dim out of range");
	for (int i = 0, j = 0; i < r; i++) {
		if (i == d)
			continue;
		out[0][i] = shp_dim(c, in[0], j);
		for (int k = 1; k < nin; k++)
			if (shp_isnew(c, shp_dim(c, in[k], j)))
				out[0][i] = shp_dim(c, in[k], j);
		j++;
	}
	return 0;
}

/* ------------------------------------------------------- split family */

/* Outputs are the input with the split dim as the dump has it; splitting
 * along a new symbol into fixed pieces has no fixed answer. */
int
shp_split(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	if (!x)
		return 0;
	int r = shp_rank(c, x);
	bool unbind = shp_has(sym_op(c, n), "unbind");
	int d = shp_normdim(shp_iarg(c, n, unbind ? 1 : 2, "dim", 0), r);
	if (d < 0 || d >= r)
		return shp_fail(c, n, "%s", "dim out of range");
	if (shp_isnew(c, shp_dim(c, x, d)))
		return shp_fail(c, n,
		    "splitting along the symbolic dim '%s' into "
		    "a fixed number of pieces is not supported",
		    sym_text(c, shp_dim(c, x, d).e));
	for (uint32_t k = 0; sym_out(c, n, k) && k < MAXIN; k++) {
		int ro = shp_outrank(c, n, k);
		if (ro < 0)
			continue;
		for (int i = 0, j = 0; i < r; i++) {
			if (i == d && unbind)
				continue;
			if (i != d && j < ro)
				out[k][j] = shp_dim(c, x, i);
			j++;
		}
	}
	return 0;
}
