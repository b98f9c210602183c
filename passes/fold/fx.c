/* fx.c - inside the fold plugin: folding FX nodes.  ATen data movement,
 * casts and arithmetic on constants give a Ten (the pass driver turns
 * the ones still used into constant inputs); SymInt arithmetic on
 * numbers gives its result as a number on the value. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

/* ------------------------------------------------------------ FX ops */

/* 0 is no kind: the fold column of ir/ops.def */
enum {
	FX_PERMUTE = 1, FX_TRANSPOSE, FX_T, FX_VIEW, FX_UNSQUEEZE, FX_SQUEEZE,
	FX_SQUEEZE_DIM, FX_SQUEEZE_DIMS, FX_FLATTEN, FX_COPY, FX_TO_COPY,
	FX_TO_DTYPE, FX_EXPAND, FX_CAT, FX_SLICE, FX_SELECT, FX_NEG, FX_ADD,
	FX_SUB, FX_MUL, FX_DIV,
	/* SymInt results */
	FX_SYM_ADD, FX_SYM_SUB, FX_SYM_MUL, FX_SYM_FLOORDIV, FX_SYM_MOD,
	FX_SYM_NEG, FX_SYM_MAX, FX_SYM_MIN, FX_SYM_SIZE, FX_SYM_NUMEL
};

/* Every row of the op table with its fold column: 0 for most. */
static const struct {
	const char *name;
	int op;
} fxops[] = {
#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	{op, fold},
#include "../../ir/ops.def"
#undef OP
};
enum {
	NFOLDED = 0
#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	+ ((fold) != 0)
#include "../../ir/ops.def"
#undef OP
};
_Static_assert((int)NFOLDED == (int)FOLD_NFXOPS,
    "FOLD_NFXOPS (fold.h) counts the rows of ir/ops.def with a fold kind");

/* ------------------------------------------------------- arguments */

/* Normalise dim d of a rank-n tensor (0-d tensors take dims 0 and -1). */
static int
wrapdim(int64_t d, int n, int *out)
{
	int m = n ? n : 1;
	if (d < -m || d >= m)
		return 0;
	*out = (int)(d < 0 ? d + m : d);
	return 1;
}

/* x permuted by perm.  A weight is permuted for every layer that uses it
 * (the permute -> addmm form): a result kept for the same input bytes,
 * shape and order is borrowed as fold_dedup would borrow it, else the
 * result is computed, and remembered once fold_fx_node keeps it. */
static int
permute(Fold *f, const Ten *x, Ten *r, const int64_t *perm, int k)
{
	if (k != x->rank || k > PMEMO_RANK || !x->data)
		return fold_permute(f, x, r, perm, k);
	uintptr_t a = (uintptr_t)x->data;
	PermMemo *e = &f->pmemo[((a >> 4) ^ (a >> 12)) % PMEMO];
	size_t nb = sizeof(int64_t) * (size_t)k;
	if (e->res && e->data == x->data && e->dt == x->dt && e->rank == k &&
	    !memcmp(e->dims, x->dims, nb) && !memcmp(e->perm, perm, nb)) {
		const Ten *first = e->res;
		*r = (Ten){.dt = first->dt, .rank = first->rank,
		    .numel = first->numel, .data = first->data,
		    .twin = e->res};
		memcpy(r->dims, first->dims, sizeof(int64_t) *
		    (size_t)first->rank);
		return DONE;
	}
	int st = fold_permute(f, x, r, perm, k);
	if (st == DONE) {
		*e = (PermMemo){.data = x->data, .dt = x->dt, .rank = k};
		memcpy(e->dims, x->dims, nb);
		memcpy(e->perm, perm, nb);
		f->pending = (int)(e - f->pmemo) + 1;
	}
	return st;
}

static int
arg_const(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, Ten *out)
{
	onnxc_arg a;
	return fold_arg_at(f, n, ni, pos, key, &a) &&
	    a.kind == ONNXC_ARG_VALUE && fold_constant(f, a.ref, out);
}

/* An int argument; absent or None gives dflt.  0 when not static. */
static int
arg_int(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, int64_t dflt, int64_t *out)
{
	onnxc_arg a;
	if (!fold_arg_at(f, n, ni, pos, key, &a) || a.kind == ONNXC_ARG_NONE) {
		*out = dflt;
		return 1;
	}
	return fold_as_int(f, &a, out);
}

static int
arg_ints(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, int64_t *out, int cap)
{
	onnxc_arg a;
	if (!fold_arg_at(f, n, ni, pos, key, &a))
		return -1;
	return fold_ints(f, &a, out, cap);
}

/* ---------------------------------------------------- evaluation */

static int
fx_shape_op(Fold *f, int op, onnxc_node n, const onnxc_node_info *ni,
    const Ten *x, Ten *r)
{
	int64_t v[MAXRANK + 1], dims[MAXRANK + 1];
	int k = 0, d, e;
	switch (op) {
	case FX_VIEW:
		k = arg_ints(f, n, ni, 1, "size", v, MAXRANK);
		if (k < 0) /* reshape names it "shape" */
			k = arg_ints(f, n, ni, 1, "shape", v, MAXRANK);
		if (k < 0 || !fold_view_dims(x, v, k))
			return SKIP;
		return fold_reshape(f, x, r, k, v);
	case FX_UNSQUEEZE:
		if (!arg_int(f, n, ni, 1, "dim", 0, &v[0]) ||
		    x->rank >= MAXRANK || !wrapdim(v[0], x->rank + 1, &d))
			return SKIP;
		for (int i = 0, j = 0; i <= x->rank; i++)
			dims[i] = i == d ? 1 : x->dims[j++];
		return fold_reshape(f, x, r, x->rank + 1, dims);
	case FX_SQUEEZE:
	case FX_SQUEEZE_DIM:
	case FX_SQUEEZE_DIMS: {
		int drop[MAXRANK] = {0};
		if (op == FX_SQUEEZE_DIM)
			k = arg_ints(f, n, ni, 1, "dim", v, 1);
		else if (op == FX_SQUEEZE_DIMS)
			k = arg_ints(f, n, ni, 1, "dim", v, MAXRANK);
		for (int i = 0; op == FX_SQUEEZE && i < x->rank; i++)
			drop[i] = x->dims[i] == 1;
		if (op != FX_SQUEEZE && k < 0)
			return SKIP;
		for (int i = 0; op != FX_SQUEEZE && i < k; i++) {
			if (!wrapdim(v[i], x->rank, &d))
				return SKIP;
			drop[d] = d < x->rank && x->dims[d] == 1;
		}
		k = 0;
		for (int i = 0; i < x->rank; i++)
			if (!drop[i])
				dims[k++] = x->dims[i];
		return fold_reshape(f, x, r, k, dims);
	}
	case FX_FLATTEN: {
		int64_t s, t;
		if (!arg_int(f, n, ni, 1, "start_dim", 0, &s) ||
		    !arg_int(f, n, ni, 2, "end_dim", -1, &t) ||
		    !wrapdim(s, x->rank, &d) || !wrapdim(t, x->rank, &e) ||
		    d > e)
			return SKIP;
		if (x->rank == 0) {
			dims[0] = 1;
			return fold_reshape(f, x, r, 1, dims);
		}
		for (int i = 0; i < d; i++)
			dims[k++] = x->dims[i];
		dims[k++] = (int64_t)fold_numel(e - d + 1, x->dims + d);
		for (int i = e + 1; i < x->rank; i++)
			dims[k++] = x->dims[i];
		return fold_reshape(f, x, r, k, dims);
	}
	default:
		return SKIP;
	}
}

static int
fx_expand(Fold *f, onnxc_node n, const onnxc_node_info *ni, const Ten *x,
    Ten *r)
{
	int64_t v[MAXRANK], st[MAXRANK], rst[MAXRANK], dims[MAXRANK];
	int k = arg_ints(f, n, ni, 1, "size", v, MAXRANK);
	if (k < x->rank)
		return SKIP;
	fold_strides(x, st);
	for (int i = 0; i < k; i++) {
		int j = i - (k - x->rank);
		if (j < 0 && v[i] >= 0) {
			dims[i] = v[i];
			rst[i] = 0;
		} else if (j >= 0 && (v[i] == -1 || v[i] == x->dims[j])) {
			dims[i] = x->dims[j];
			rst[i] = st[j];
		} else if (j >= 0 && x->dims[j] == 1 && v[i] >= 0) {
			dims[i] = v[i];
			rst[i] = 0;
		} else {
			return SKIP;
		}
	}
	if (fold_shape(f, r, x->dt, k, dims) != DONE)
		return SKIP;
	return fold_gather(f, x, r, rst, 0);
}

static int
fx_slice(Fold *f, onnxc_node n, const onnxc_node_info *ni, const Ten *x,
    Ten *r)
{
	int64_t dim, start, end, stp;
	int d;
	if (!arg_int(f, n, ni, 1, "dim", 0, &dim) ||
	    !arg_int(f, n, ni, 2, "start", 0, &start) ||
	    !arg_int(f, n, ni, 3, "end", INT64_MAX, &end) ||
	    !arg_int(f, n, ni, 4, "step", 1, &stp) || stp <= 0 ||
	    x->rank == 0 || !wrapdim(dim, x->rank, &d))
		return SKIP;
	int64_t size = x->dims[d];
	if (start < 0)
		start += size;
	if (end < 0)
		end += size;
	start = start < 0 ? 0 : start > size ? size : start;
	end = end < start ? start : end > size ? size : end;
	int64_t count = end == start ? 0 : (end - start - 1) / stp + 1;
	return fold_slice(f, x, r, d, start, stp, count, 1);
}

static int
fx_select(Fold *f, onnxc_node n, const onnxc_node_info *ni, const Ten *x,
    Ten *r)
{
	int64_t dim, idx;
	int d;
	if (!arg_int(f, n, ni, 1, "dim", 0, &dim) ||
	    !arg_int(f, n, ni, 2, "index", 0, &idx) || x->rank == 0 ||
	    !wrapdim(dim, x->rank, &d))
		return SKIP;
	if (idx < 0)
		idx += x->dims[d];
	if (idx < 0 || idx >= x->dims[d])
		return SKIP;
	return fold_slice(f, x, r, d, idx, 1, 1, 0);
}

static int
fx_cat(Fold *f, onnxc_node n, const onnxc_node_info *ni, Ten *r)
{
	onnxc_arg a, it;
	int64_t dim;
	if (!fold_arg_at(f, n, ni, 0, "tensors", &a) ||
	    (a.kind != ONNXC_ARG_LIST && a.kind != ONNXC_ARG_TUPLE) ||
	    a.len == 0 || !arg_int(f, n, ni, 1, "dim", 0, &dim))
		return SKIP;
	Ten *in = calloc(a.len, sizeof *in);
	if (!in) {
		f->hostfail = 1;
		return FAIL;
	}
	int m = 0, s = SKIP;
	for (uint32_t i = 0; i < a.len; i++) {
		if (f->h->list_item(f->ctx, f->g, &a, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_VALUE ||
		    !fold_constant(f, it.ref, &in[m]))
			goto out;
		/* torch.cat skips 1-D empty tensors, whatever the rest */
		if (!(in[m].rank == 1 && in[m].dims[0] == 0))
			m++;
	}
	s = fold_concat(f, in, m, dim, r);
out:
	free(in);
	return s;
}

/* + - * / with a tensor or a Python number, one dtype, alpha 1. */
static int
fx_arith(Fold *f, int op, onnxc_node n, const onnxc_node_info *ni,
    const Ten *x, Ten *r)
{
	static const int map[] = {[FX_ADD] = ADD, [FX_SUB] = SUB,
	    [FX_MUL] = MUL, [FX_DIV] = DIV};
	onnxc_arg o, al;
	Ten y;
	int isf = x->dt == ONNXC_DT_F32 || x->dt == ONNXC_DT_F64;
	if (op == FX_NEG)
		return fold_arith(f, NEG, x, x, 0, 0, r);
	if (!fold_arg_at(f, n, ni, 1, "other", &o))
		return SKIP;
	if (fold_arg_at(f, n, ni, 2, "alpha", &al) &&
	    al.kind != ONNXC_ARG_NONE &&
	    !(al.kind == ONNXC_ARG_INT && al.i == 1) &&
	    !(al.kind == ONNXC_ARG_FLOAT && al.f == 1.0))
		return SKIP;
	switch (o.kind) {
	case ONNXC_ARG_VALUE:
		if (!fold_constant(f, o.ref, &y))
			return SKIP;
		return fold_arith(f, map[op], x, &y, 0, 0, r);
	case ONNXC_ARG_INT:
		/* an int becomes the tensor's float type: exact up to 2^53 */
		if (isf && (o.i > (INT64_C(1) << 53) ||
		    o.i < -(INT64_C(1) << 53)))
			return SKIP;
		return fold_arith(f, map[op], x, NULL, (double)o.i, o.i, r);
	case ONNXC_ARG_FLOAT:
		return isf ? fold_arith(f, map[op], x, NULL, o.f, 0, r) : SKIP;
	default:
		return SKIP;
	}
}

static int
fx_eval(Fold *f, int op, onnxc_node n, const onnxc_node_info *ni, Ten *r)
{
	Ten x;
	int64_t v[MAXRANK], a, b;
	int d, e, k;
	onnxc_arg dt;
	if (op == FX_CAT)
		return fx_cat(f, n, ni, r);
	if (!arg_const(f, n, ni, 0, "self", &x))
		return SKIP;
	switch (op) {
	case FX_PERMUTE:
		k = arg_ints(f, n, ni, 1, "dims", v, MAXRANK);
		return k < 0 ? SKIP : permute(f, &x, r, v, k);
	case FX_TRANSPOSE:
		if (!arg_int(f, n, ni, 1, "dim0", 0, &a) ||
		    !arg_int(f, n, ni, 2, "dim1", 0, &b) ||
		    !wrapdim(a, x.rank, &d) || !wrapdim(b, x.rank, &e))
			return SKIP;
		if (x.rank < 2)
			return fold_copy(f, &x, r);
		for (int i = 0; i < x.rank; i++)
			v[i] = i == d ? e : i == e ? d : i;
		return fold_permute(f, &x, r, v, x.rank);
	case FX_T:
		if (x.rank < 2)
			return fold_copy(f, &x, r);
		return x.rank == 2 ? fold_permute(f, &x, r, (int64_t[]){1, 0},
		    2) : SKIP;
	case FX_VIEW: case FX_UNSQUEEZE: case FX_SQUEEZE: case FX_SQUEEZE_DIM:
	case FX_SQUEEZE_DIMS: case FX_FLATTEN:
		return fx_shape_op(f, op, n, ni, &x, r);
	case FX_COPY:
		return fold_copy(f, &x, r);
	case FX_TO_COPY:
	case FX_TO_DTYPE:
		k = op == FX_TO_DTYPE ? 1 : -1;
		if (!fold_arg_at(f, n, ni, k, "dtype", &dt) ||
		    dt.kind == ONNXC_ARG_NONE)
			return fold_copy(f, &x, r);
		if (dt.kind != ONNXC_ARG_DTYPE)
			return SKIP;
		return fold_cast(f, &x, r, (uint32_t)dt.i);
	case FX_EXPAND:
		return fx_expand(f, n, ni, &x, r);
	case FX_SLICE:
		return fx_slice(f, n, ni, &x, r);
	case FX_SELECT:
		return fx_select(f, n, ni, &x, r);
	case FX_NEG: case FX_ADD: case FX_SUB: case FX_MUL: case FX_DIV:
		return fx_arith(f, op, n, ni, &x, r);
	default:
		return SKIP;
	}
}

/* Python int arithmetic on numbers; SKIP on overflow or division by 0. */
static int
pyint(int op, int64_t x, int64_t y, int64_t *out)
{
	switch (op) {
	case FX_SYM_ADD:
		if ((y > 0 && x > INT64_MAX - y) ||
		    (y < 0 && x < INT64_MIN - y))
			return SKIP;
		*out = x + y;
		return DONE;
	case FX_SYM_SUB:
		if ((y < 0 && x > INT64_MAX + y) ||
		    (y > 0 && x < INT64_MIN + y))
			return SKIP;
		*out = x - y;
		return DONE;
	case FX_SYM_MUL:
		if (x && y && (x > 0 ? (y > 0 ? x > INT64_MAX / y
		    : y < INT64_MIN / x) : (y > 0 ? x < INT64_MIN / y
		    : x < INT64_MAX / y)))
			return SKIP;
		*out = x * y;
		return DONE;
	case FX_SYM_FLOORDIV:
	case FX_SYM_MOD:
		if (y == 0 || (x == INT64_MIN && y == -1))
			return SKIP;
		if (op == FX_SYM_FLOORDIV)
			*out = x / y - (x % y != 0 && (x < 0) != (y < 0));
		else
			*out = x % y +
			    (x % y != 0 && (x < 0) != (y < 0) ? y : 0);
		return DONE;
	case FX_SYM_NEG:
		if (x == INT64_MIN)
			return SKIP;
		*out = -x;
		return DONE;
	case FX_SYM_MAX:
		*out = x > y ? x : y;
		return DONE;
	case FX_SYM_MIN:
		*out = x < y ? x : y;
		return DONE;
	default:
		return SKIP;
	}
}

/* The number a SymInt node computes, from numbers or static sizes.  The
 * size of a user input counts: it is fixed by the annotation, not read
 * from the data. */
static int
fx_symint(Fold *f, int op, onnxc_node n, const onnxc_node_info *ni,
    int64_t *out)
{
	onnxc_arg a;
	onnxc_value_info vi;
	onnxc_dim dims[MAXRANK];
	int64_t x, y = 0;
	int d;
	if (op == FX_SYM_SIZE || op == FX_SYM_NUMEL) {
		if (!fold_arg_at(f, n, ni, 0, "self", &a) ||
		    a.kind != ONNXC_ARG_VALUE ||
		    f->h->value_get(f->ctx, f->g, a.ref, &vi) != ONNXC_OK ||
		    vi.kind != ONNXC_VK_TENSOR || vi.rank < 0 ||
		    vi.rank > MAXRANK || f->h->value_dims(f->ctx, f->g, a.ref,
		    dims, MAXRANK) != ONNXC_OK)
			return SKIP;
		if (op == FX_SYM_SIZE) {
			if (!arg_int(f, n, ni, 1, "dim", 0, &x) ||
			    vi.rank == 0 ||
			    !wrapdim(x, vi.rank, &d) || dims[d].e)
				return SKIP;
			*out = dims[d].n;
			return DONE;
		}
		*out = 1;
		for (int i = 0; i < vi.rank; i++)
			if (dims[i].e || pyint(FX_SYM_MUL, *out, dims[i].n, out)
			    != DONE)
				return SKIP;
		return DONE;
	}
	if (!fold_arg_at(f, n, ni, 0, NULL, &a) || !fold_as_int(f, &a, &x))
		return SKIP;
	if (op != FX_SYM_NEG && (!fold_arg_at(f, n, ni, 1, NULL, &a) ||
	    !fold_as_int(f, &a, &y)))
		return SKIP;
	return pyint(op, x, y, out);
}

/* ------------------------------------------------------------ FX nodes */

/* The FX ops folded here, their names interned, into
 * fxop[0..FOLD_NFXOPS) for fold_fx_node. */
void
fold_fx_intern(Fold *f, FoldFxOp *fxop)
{
	int k = 0;
	for (size_t i = 0; i < sizeof fxops / sizeof *fxops; i++)
		if (fxops[i].op)
			fxop[k++] = (FoldFxOp){f->h->intern(f->ctx,
			    fxops[i].name), fxops[i].op};
}

onnxc_status
fold_fx_node(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    const FoldFxOp *fxop)
{
	/* a graph repeats a few ops: each is looked up in fxop once */
	uint32_t slot = (ni->op * 2654435761u) >> 26;
	if (f->fxkey[slot] != ni->op + 1) {
		int op = 0;
		for (size_t i = 0; i < FOLD_NFXOPS && !op; i++)
			if (ni->op == fxop[i].name)
				op = fxop[i].op;
		f->fxkey[slot] = ni->op + 1;
		f->fxcode[slot] = op;
	}
	int op = f->fxcode[slot];
	onnxc_value v = ni->out;
	if (!op || ni->nout != 1 || v >= f->nvals)
		return ONNXC_OK;
	if (op >= FX_SYM_ADD) {
		onnxc_value_info vi;
		onnxc_expr_info e;
		int64_t num;
		if (f->h->value_get(f->ctx, f->g, v, &vi) != ONNXC_OK ||
		    vi.kind != ONNXC_VK_SYMINT || (vi.sym &&
		    f->h->expr_get(f->ctx, vi.sym, &e) == ONNXC_OK &&
		    e.kind == ONNXC_E_INT) || fx_symint(f, op, n, ni, &num) !=
		    DONE)
			return ONNXC_OK;
		return f->h->value_set_sym(f->ctx, f->g, v, ONNXC_VK_SYMINT,
		    f->h->expr_int(f->ctx, num));
	}
	if (f->isout[v])
		return ONNXC_OK;
	/* most nodes do not fold: the result goes to the heap only when
	 * it is one */
	Ten t;
	memset(&t, 0, sizeof t);
	f->pending = 0;
	int s = fx_eval(f, op, n, ni, &t);
	if (s == DONE && !fold_fits(f, v, &t))
		s = SKIP;
	if (s != DONE) {
		free(t.own);
		return s == FAIL ? ONNXC_ERROR : ONNXC_OK;
	}
	Ten *r = malloc(sizeof *r);
	if (!r) {
		free(t.own);
		f->hostfail = 1;
		return ONNXC_ERROR;
	}
	*r = t;
	if (!fold_dedup(f, r)) {
		free(r->own);
		free(r);
		f->hostfail = 1;
		return ONNXC_ERROR;
	}
	f->known[v] = r;
	f->folded[n] = 1;
	if (f->pending)
		f->pmemo[f->pending - 1].res = r->twin ? r->twin : r;
	return fold_count_node(f, f->folduses, n, ni);
}
