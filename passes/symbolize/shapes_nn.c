/* shapes_nn.c - symbolic shape rules for selection and indexing, linear
 * algebra, batch-major layers, reductions, factories and SymInt
 * arithmetic (see shapes.c). */
#include <stdio.h>
#include <string.h>

#include "shapes.h"

/* --------------------------------------------------------- selection */

int
shp_slice(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	if (!x)
		return 0;
	int r = shp_rank(c, x);
	int d = shp_normdim(shp_iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return shp_fail(c, n, "%s", "dim out of range");
	for (int i = 0; i < r && shp_outrank(c, n, 0) == r; i++)
		if (i != d)
			out[0][i] = shp_dim(c, x, i);
	Dim xd = shp_dim(c, x, d);
	onnxc_arg sa, ea;
	bool hs = shp_arg(c, n, 2, "start", &sa),
	    he = shp_arg(c, n, 3, "end", &ea);
	int64_t s = 0, e = INT64_MAX, st = shp_iarg(c, n, 4, "step", 1);
	if (hs && sa.kind != ONNXC_ARG_NONE && !shp_ival(c, &sa, &s))
		return 0; /* a SymInt bound: the dump's own expression stays */
	if (he && ea.kind != ONNXC_ARG_NONE && !shp_ival(c, &ea, &e))
		return 0;
	int64_t size;
	if (!shp_isnew(c, xd) || !shp_traced(c, xd, &size)) {
		/* a static dim sliced to a traced size (mask[:T]) */
		if (he && ea.kind == ONNXC_ARG_INT && e != INT64_MAX &&
		    sym_unproven(c, n, "slice end", e) < 0)
			return -1;
		return 0;
	}
	if (st < 1)
		return shp_fail(c, n, "%s", "step must be positive");
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

int
shp_select(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	if (!x)
		return 0;
	int r = shp_rank(c, x);
	int d = shp_normdim(shp_iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return shp_fail(c, n, "%s", "dim out of range");
	for (int i = 0, j = 0; i < r; i++)
		if (i != d)
			out[0][j++] = shp_dim(c, x, i);
	return 0;
}

int
shp_narrow(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	if (!x)
		return 0;
	int r = shp_rank(c, x);
	int d = shp_normdim(shp_iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return shp_fail(c, n, "%s", "dim out of range");
	for (int i = 0; i < r; i++)
		if (i != d)
			out[0][i] = shp_dim(c, x, i);
	int64_t len;
	onnxc_arg a;
	if (shp_arg(c, n, 3, "length", &a) && shp_ival(c, &a, &len))
		return sym_unproven(c, n, "narrow length", len);
	return 0;
}

int
shp_index_select(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self"),
	    idx = shp_tensor(c, n, 2, "index");
	if (!x || !idx)
		return 0;
	int r = shp_rank(c, x);
	int d = shp_normdim(shp_iarg(c, n, 1, "dim", 0), r);
	if (d < 0 || d >= r)
		return shp_fail(c, n, "%s", "dim out of range");
	shp_copydims(c, x, out[0], r);
	if (shp_rank(c, idx) == 1)
		out[0][d] = shp_dim(c, idx, 0);
	return 0;
}

int
shp_gather(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value idx = shp_tensor(c, n, 2, "index");
	if (idx && shp_rank(c, idx) == shp_outrank(c, n, 0))
		shp_copydims(c, idx, out[0], shp_rank(c, idx));
	return 0;
}

/* x[i0, i1, ...]: the index tensors broadcast together and replace the
 * dims they index (in place when adjacent, in front otherwise). */
int
shp_index(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	onnxc_arg L;
	int r = shp_outrank(c, n, 0);
	if (!x || !shp_arg(c, n, 1, "indices", &L)
	    || L.kind != ONNXC_ARG_LIST ||
	    r < 0 || r > SYM_MAXR)
		return 0;
	onnxc_value idx[SYM_MAXR];
	int pos[SYM_MAXR], ni = 0, rx = shp_rank(c, x), bi = 0;
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
		if (shp_bcast_dim(c, n, idx, ni, bi, i, &out[0][at + i]) < 0)
			return -1;
	int j = 0;
	for (int i = 0; i < rx; i++) {
		bool indexed = false;
		for (int k = 0; k < ni; k++)
			indexed |= pos[k] == i;
		if (indexed)
			continue;
		int o = adjacent ? (i < pos[0] ? i : i - ni + bi) : bi + j;
		out[0][o] = shp_dim(c, x, i);
		j++;
	}
	return 0;
}

int
shp_embedding(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value w = shp_tensor(c, n, 0, "weight"),
	    idx = shp_tensor(c, n, 1, "indices");
	if (!w || !idx || shp_outrank(c, n, 0) != shp_rank(c, idx) + 1 ||
	    shp_rank(c, idx) >= SYM_MAXR)
		return 0;
	shp_copydims(c, idx, out[0], shp_rank(c, idx));
	out[0][shp_rank(c, idx)] = shp_dim(c, w, -1);
	return 0;
}

/* ------------------------------------------------------ linear algebra */

static int
mm_like(SymCtx *c, onnxc_node n, Out *out, int ia, int ib)
{
	onnxc_value a = shp_tensor(c, n, ia, NULL),
	    b = shp_tensor(c, n, ib, NULL);
	int r = shp_outrank(c, n, 0);
	if (!a || !b || r < 0)
		return 0;
	int ra = shp_rank(c, a), rb = shp_rank(c, b);
	if (ra == 1 && rb == 1)
		return 0;
	if (rb == 1) { /* [..., n, k] @ [k] */
		shp_copydims(c, a, out[0], ra - 1);
		return 0;
	}
	if (ra == 1) { /* [k] @ [..., k, m] */
		shp_copydims(c, b, out[0], rb - 2);
		out[0][r - 1] = shp_dim(c, b, -1);
		return 0;
	}
	/* batch dims broadcast; then rows of a, columns of b */
	onnxc_value in[2] = {a, b};
	for (int i = 0; i < r - 2; i++) {
		Dim *o = &out[0][i];
		int64_t want;
		if (!shp_traced(c, *o, &want))
			continue;
		for (int k = 0; k < 2; k++) {
			int j = i - (r - shp_rank(c, in[k]));
			int64_t v;
			if (j >= 0 && shp_isnew(c, shp_dim(c, in[k], j)) &&
			    shp_traced(c, shp_dim(c, in[k], j), &v)
			    && v == want)
				*o = shp_dim(c, in[k], j);
		}
	}
	out[0][r - 2] = shp_dim(c, a, -2);
	out[0][r - 1] = shp_dim(c, b, -1);
	return 0;
}

int
shp_mm(SymCtx *c, onnxc_node n, Out *out)
{
	return mm_like(c, n, out, 0, 1);
}

int
shp_addmm(SymCtx *c, onnxc_node n, Out *out)
{
	return mm_like(c, n, out, 1, 2);
}

int
shp_linear(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "input"),
	    w = shp_tensor(c, n, 1, "weight");
	int r = shp_outrank(c, n, 0);
	if (!x || !w || r != shp_rank(c, x))
		return 0;
	shp_copydims(c, x, out[0], r - 1);
	if (shp_rank(c, w) == 2)
		out[0][r - 1] = shp_dim(c, w, 0);
	return 0;
}

/* q[..., L, E] with v[..., S, Ev] -> [..., L, Ev] (and logsumexp
 * [..., L] for the flash variant) */
int
shp_sdpa(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value q = shp_tensor(c, n, 0, "query"),
	    v = shp_tensor(c, n, 2, "value");
	if (!q || !v)
		return 0;
	int r = shp_rank(c, q);
	if (shp_outrank(c, n, 0) == r) {
		shp_copydims(c, q, out[0], r - 1);
		out[0][r - 1] = shp_dim(c, v, -1);
	}
	if (shp_outrank(c, n, 1) == r - 1)
		shp_copydims(c, q, out[1], r - 1);
	return 0;
}

/* ------------------------------------------------- batch-major layers */

/* convolution, pooling, upsampling: the batch dim passes through (and
 * channels for pooling); other dims are the dump's numbers, which is only
 * right while they stay fixed */
static int
batch_major(SymCtx *c, onnxc_node n, Out *out, bool keep_channels)
{
	onnxc_value x = shp_tensor(c, n, 0, "input");
	if (!x)
		x = shp_tensor(c, n, 0, "self");
	if (!x)
		return 0;
	int r = shp_rank(c, x);
	for (int i = 1; i < r; i++)
		if (shp_isnew(c, shp_dim(c, x, i))
		    && !(keep_channels && i == 1))
			return shp_fail(c, n,
			    "a symbolic dim (%s) other than the "
			    "batch going through this op is not supported",
			    sym_text(c, shp_dim(c, x, i).e));
	for (uint32_t k = 0; sym_out(c, n, k) && k < MAXIN; k++) {
		if (shp_outrank(c, n, k) != r)
			continue;
		out[k][0] = shp_dim(c, x, 0);
		if (keep_channels && r > 1)
			out[k][1] = shp_dim(c, x, 1);
	}
	return 0;
}

int
shp_conv(SymCtx *c, onnxc_node n, Out *out)
{
	return batch_major(c, n, out, false);
}

int
shp_pool(SymCtx *c, onnxc_node n, Out *out)
{
	return batch_major(c, n, out, true);
}

/* native_layer_norm: out, mean and rstd ([..., 1, 1] over the
 * normalised dims) */
int
shp_layer_norm(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "input");
	if (!x)
		return 0;
	int r = shp_rank(c, x);
	for (uint32_t k = 0; sym_out(c, n, k) && k < MAXIN; k++) {
		if (shp_outrank(c, n, k) != r)
			continue;
		for (int i = 0; i < r; i++) {
			Dim d = shp_dim(c, x, i);
			int64_t v, want;
			if (k == 0 || (shp_traced(c, d, &v) &&
			    shp_traced(c, out[k][i], &want) && v == want))
				out[k][i] = d;
		}
	}
	return 0;
}

/* ---------------------------------------------------------- reductions */

int
shp_reduce(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	if (!x)
		x = shp_tensor(c, n, 0, "input");
	if (!x)
		return 0;
	int r = shp_rank(c, x);
	int64_t shp_dims[SYM_MAXR];
	onnxc_arg da, ka;
	int nd = shp_arg(c, n, 1, "dim", &da) && da.kind != ONNXC_ARG_BOOL
	    ? shp_ilist(c, &da, shp_dims, SYM_MAXR) : -1;
	bool keep = false;
	if (shp_arg(c, n, -1, "keepdim", &ka))
		keep = ka.i != 0;
	else if (shp_arg(c, n, 2, NULL, &ka) && ka.kind == ONNXC_ARG_BOOL)
		keep = ka.i != 0;
	bool red[SYM_MAXR] = {0};
	if (nd <= 0) { /* all dims */
		for (int i = 0; i < r; i++)
			red[i] = true;
	} else {
		for (int k = 0; k < nd; k++) {
			int d = shp_normdim(shp_dims[k], r);
			if (d < 0 || d >= r)
				return shp_fail(c, n, "%s", "dim out of range");
			red[d] = true;
		}
	}
	for (uint32_t k = 0; sym_out(c, n, k) && k < MAXIN; k++) {
		int ro = shp_outrank(c, n, k), j = 0;
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
			out[k][j++] = red[i] ? (Dim){1, 0} : shp_dim(c, x, i);
		}
	}
	return 0;
}

/* -------------------------------------------------------- other shapes */

int
shp_repeat(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	int64_t rep[SYM_MAXR];
	int r = shp_outrank(c, n, 0);
	onnxc_arg a;
	bool have = shp_arg(c, n, 1, "repeats", &a);
	if (!x || shp_ilist(c, have ? &a : NULL, rep, SYM_MAXR) != r)
		return 0;
	int lead = r - shp_rank(c, x);
	for (int k = lead; k < r; k++)
		out[0][k] = sym_mkdim(c, sym_bin(c, ONNXC_E_MUL,
		    sym_dim_expr(c, shp_dim(c, x, k - lead)),
		    sym_int(c, rep[k])));
	return 0;
}

int
shp_pad(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value x = shp_tensor(c, n, 0, "self");
	int64_t pad[2 * SYM_MAXR];
	int r = shp_outrank(c, n, 0);
	onnxc_arg a;
	bool have = shp_arg(c, n, 1, "pad", &a);
	int np = shp_ilist(c, have ? &a : NULL, pad, 2 * SYM_MAXR);
	if (!x || np < 0 || r != shp_rank(c, x))
		return 0;
	for (int i = 0; 2 * i + 1 < np && i < r; i++) {
		int d = r - 1 - i;
		out[0][d] = sym_mkdim(c, sym_bin(c, ONNXC_E_ADD,
		    sym_dim_expr(c, shp_dim(c, x, d)), sym_int(c,
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
	if (!shp_arg(c, n, i, kw, &a))
		return 0;
	if (a.kind == ONNXC_ARG_INT)
		return sym_unproven(c, n, what, a.i);
	if (!shp_islist(&a))
		return 0;
	for (uint32_t k = 0; k < a.len; k++) {
		onnxc_arg it;
		if (sym_item(c, &a, k, &it) && it.kind == ONNXC_ARG_INT &&
		    sym_unproven(c, n, what, it.i) < 0)
			return -1;
	}
	return 0;
}

int
shp_factory(SymCtx *c, onnxc_node n, Out *out)
{
	(void)out;
	const char *op = sym_op(c, n);
	if (shp_has(op, "::arange")) {
		for (int i = 0; i < 3; i++)
			if (check_literals(c, n, i, NULL, "arange bound") < 0)
				return -1;
		return 0;
	}
	if (shp_has(op, "::new_"))
		return check_literals(c, n, 1, "size", "size");
	if (shp_has(op, "::randint"))
		return check_literals(c, n, -1, "size", "size");
	return check_literals(c, n, 0, "size", "size");
}

/* ------------------------------------------------------------ SymInts */

static onnxc_expr
symarg(SymCtx *c, onnxc_node n, int i)
{
	onnxc_arg a;
	if (!shp_arg(c, n, i, NULL, &a))
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

int
shp_sym_size(SymCtx *c, onnxc_node n, Out *out)
{
	(void)out;
	onnxc_value x = shp_tensor(c, n, 0, "self");
	if (!x)
		return 0;
	int d = shp_normdim(shp_iarg(c, n, 1, "dim", 0), shp_rank(c, x));
	if (d < 0 || d >= shp_rank(c, x))
		return shp_fail(c, n, "%s", "dim out of range");
	if (shp_isnew(c, shp_dim(c, x, d)))
		return set_sym(c, n, sym_dim_expr(c, shp_dim(c, x, d)));
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
int
shp_symop(SymCtx *c, onnxc_node n, Out *out)
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
