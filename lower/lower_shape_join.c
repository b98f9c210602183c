/* lower_shape_join.c - lowering rules for joining and splitting tensors
 * (cat, stack, split, chunk, unbind), slicing and selecting (slice,
 * select, narrow) and creation (arange, full, zeros, *_like).  Views,
 * permutes and expands are in lower_shape.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/ckint.h"
#include "lower_shape.h"

/* ------------------------------------------------------- cat, stack ... */

static int
cat(Lower *L)
{
	LwTensorList tl;
	int n = lw_tensor_list(L, 0, "tensors", &tl), rc = -1;
	const Value *o = lw_outval(L, 0);
	int r = o->rank;
	int64_t d = lw_int(L, 1, "dim", 0);
	DType dt = (DType)o->dtype;
	if (n < 0 || lw_normdim(L, &d, r) < 0)
		goto out;
	if (n == 0) {
		lw_fail(L, "cat of no tensors");
		goto out;
	}
	int nk = 0;
	for (int k = 0; k < n; k++) {
		int64_t len;
		if (!tl.v[k]) {
			lw_fail(L, "None in the tensor list");
			goto out;
		}
		/* torch skips 1-D empty tensors whatever the others are */
		if (r != 1 && tl.s[k]->rank == 1 &&
		    lw_sdim(L, tl.s[k], 0, &len) && len == 0)
			continue;
		tl.v[nk++] = lw_cast(L, tl.v[k], dt);
	}
	if (!nk)
		tl.v[nk++] = lw_cast(L, tl.v[0], dt);
	lw_bind(L, 0, lw_concat(L, tl.v, nk, d, dt));
	rc = 0;
out:
	return rc;
}

static int
stack(Lower *L)
{
	LwTensorList tl;
	int n = lw_tensor_list(L, 0, "tensors", &tl), rc = -1;
	DType dt = lw_outdtype(L);
	int64_t d = lw_int(L, 1, "dim", 0);
	if (n < 0)
		goto out;
	for (int k = 0; k < n; k++)
		if (!tl.v[k]) {
			lw_fail(L, "stack of None");
			goto out;
		}
	if (n == 0 || lw_normdim(L, &d, tl.s[0]->rank + 1) < 0) {
		if (n == 0)
			lw_fail(L, "stack of no tensors");
		goto out;
	}
	for (int k = 0; k < n; k++)
		tl.v[k] = lw_axes_op(L, "Unsqueeze", lw_cast(L, tl.v[k], dt), &d,
		    1);
	lw_bind(L, 0, lw_concat(L, tl.v, n, d, dt));
	rc = 0;
out:
	return rc;
}

/* hstack / vstack: atleast_1d / atleast_2d, then cat */
static int
xstack(Lower *L, bool vertical)
{
	LwTensorList tl;
	int n = lw_tensor_list(L, 0, "tensors", &tl);
	ValId *vals = tl.v;
	if (n <= 0)
		return n < 0 ? -1 : lw_fail(L, "stack of no tensors");
	for (int k = 0; k < n; k++)
		if (!vals[k])
			return lw_fail(L, "None in the tensor list");
	DType dt = lw_outdtype(L);
	int r0 = tl.s[0]->rank;
	for (int k = 0; k < n; k++) {
		ValId v = lw_cast(L, vals[k], dt);
		int r = tl.s[k]->rank;
		if (vertical && r < 2)
			v = lw_axes_op(L, "Unsqueeze", v, (int64_t[]){0, 1},
			    2 - r);
		else if (r == 0)
			v = lw_axes_op(L, "Unsqueeze", v, (int64_t[]){0}, 1);
		vals[k] = v;
	}
	int64_t d = vertical || r0 <= 1 ? 0 : 1;
	lw_bind(L, 0, lw_concat(L, vals, n, d, dt));
	return 0;
}

static int
hstack(Lower *L)
{
	return xstack(L, false);
}

static int
vstack(Lower *L)
{
	return xstack(L, true);
}

/* ------------------------------------------------------------- splitting */

/* Split x along d into pieces of the given static sizes. */
static void
split_sizes(Lower *L, ValId x, int64_t d, const int64_t *sizes, int n)
{
	ValId sp = lw_const_i64s(L, sizes, n);
	NodeId s = lw_emit(L, "Split", 2, (ValId[]){x, sp}, n);
	lw_attr_int(L, s, "axis", d);
	for (int k = 0; k < n; k++)
		lw_settype(L, lw_res(L, s, k), lw_dtype(L, x));
	lws_bind_all(L, s, n);
}

/* split_with_sizes(x, sizes, dim): sizes may hold SymInts, which Split
 * takes as a run-time input. */
static int
split_with_sizes(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "cannot split a 0-d tensor");
	int64_t d = lw_int(L, 2, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	const Arg *la = lw_arg(L, 1, NULL);
	int n = la && (la->kind == A_LIST || la->kind == A_TUPLE)
	    ? (int)la->u.list.n : 0;
	if (n == 0 || n > MAXT)
		return lw_fail(L, "bad number of split sizes (%d)", n);
	ValId sp = lw_shape_list(L, 1, NULL);
	if (!sp)
		return -1;
	NodeId sn = lw_emit(L, "Split", 2, (ValId[]){x, sp}, n);
	lw_attr_int(L, sn, "axis", d);
	for (int k = 0; k < n; k++)
		lw_settype(L, lw_res(L, sn, k), lw_dtype(L, x));
	lws_bind_all(L, sn, n);
	return 0;
}

/* split(x, split_size, dim): chunks of split_size, the last smaller.  With
 * a symbolic dim, each FX output is a Slice (ONNX clamps the last). */
static int
split(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	const Arg *sa = lw_arg(L, 1, "split_size");
	if (sa && (sa->kind == A_LIST || sa->kind == A_TUPLE))
		return split_with_sizes(L); /* split.sizes */
	int64_t s = lw_int(L, 1, "split_size", 0);
	int64_t d = lw_int(L, 2, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "cannot split a 0-d tensor");
	if (s <= 0)
		return lw_fail(L, "split_size must be positive");
	const Value *sv = lw_srcval(L, 0, "self");
	int64_t size;
	if (lw_sdim(L, sv, (int)d, &size)) {
		int64_t n = 1;
		if (size)
			ck_ceildiv(size, s, &n); /* s > 0: cannot fail */
		if (n > MAXT)
			return lw_fail(L, "too many pieces (%lld)",
			    (long long)n);
		int64_t *sizes = lw_scratch(L, (size_t)n, sizeof *sizes);
		for (int64_t k = 0; k < n; k++)
			sizes[k] = k < n - 1 ? s : size - s * (n - 1);
		split_sizes(L, x, d, sizes, (int)n);
		return 0;
	}
	int nout = (int)lw_node(L)->nout;
	for (int k = 0; k < nout; k++)
		lw_bind(L, k, lw_slice_const(L, x, d, k * s, (k + 1) * s, 1));
	return 0;
}

/* chunk along a dim of a size known at run time (classifier-free
 * guidance's noise.chunk(2) of a dynamic batch): pieces of s = max(1,
 * ceil(size / c)) read at run time, FX output k the Slice [k*s, (k+1)*s)
 * (ONNX clamps the last) */
static int
chunk_dyn(Lower *L, ValId x, int64_t d, int64_t c)
{
	ValId size = lw_shape_range(L, x, (int)d, (int)d + 1);
	ValId s = lw_op2(L, "Max", lw_op2(L, "Div", lw_op2(L, "Add", size,
	    lw_i64v(L, c - 1)), lw_i64v(L, c)), lw_i64v(L, 1));
	int nout = (int)lw_node(L)->nout;
	for (int k = 0; k < nout; k++) {
		ValId lo = lw_op2(L, "Mul", s, lw_i64v(L, k));
		ValId hi = lw_op2(L, "Mul", s, lw_i64v(L, k + 1));
		lw_bind(L, k, lw_slice(L, x, lo, hi, &d, 1, 0));
	}
	return 0;
}

/* chunk(x, chunks, dim): pieces of ceil(size / chunks) */
static int
chunk(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t c = lw_int(L, 1, "chunks", 1), d = lw_int(L, 2, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	if (c <= 0)
		return lw_fail(L, "chunks must be positive");
	int64_t size;
	if (r == 0)
		return lw_fail(L, "cannot chunk a 0-d tensor");
	if (!lw_sdim(L, lw_srcval(L, 0, "self"), (int)d, &size))
		return chunk_dyn(L, x, d, c);
	int64_t s = (size + c - 1) / c;
	if (s == 0)
		s = 1;
	int64_t n = size ? (size + s - 1) / s : 1;
	if (n > MAXT)
		return lw_fail(L, "too many chunks (%lld)", (long long)n);
	int64_t *sizes = lw_scratch(L, (size_t)n, sizeof *sizes);
	for (int64_t k = 0; k < n; k++)
		sizes[k] = k < n - 1 ? s : size - s * (n - 1);
	split_sizes(L, x, d, sizes, (int)n);
	return 0;
}

/* unbind(x, dim): output k is Gather(x, k) */
static int
unbind(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t d = lw_int(L, 1, "dim", 0);
	if (r == 0)
		return lw_fail(L, "cannot unbind a 0-d tensor");
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	int nout = (int)lw_node(L)->nout;
	for (int k = 0; k < nout; k++) {
		ValId idx = lw_scalar_i64(L, k);
		NodeId g = lw_emit(L, "Gather", 2, (ValId[]){x, idx}, 1);
		lw_attr_int(L, g, "axis", d);
		lw_bind(L, k, lw_typed(L, g, lw_dtype(L, x)));
	}
	return 0;
}

/* tensor_split(x, tensor, dim) of a 1-d tensor of indices, known only at
 * run time: piece k is x[idx[k-1]:idx[k]] along d, Python's slice (ONNX
 * Slice clamps and wraps negative bounds alike), the first from 0 and the
 * last to the end.  A 0-d tensor (a number of sections) makes sizes that
 * the program's annotations cannot hold but as unbacked symbols: refused. */
static int
split_at_tensor(Lower *L, ValId x, int64_t d, int nout)
{
	const Value *iv = lw_srcval(L, 1, "tensor_indices_or_sections");
	if (!iv || iv->rank != 1)
		return lw_fail(L, "a number of sections given as a tensor is "
		    "not supported (pass it as an int)");
	int64_t n;
	if (!lw_sdim(L, iv, 0, &n) || n + 1 != nout)
		return lw_fail(L, "the indices tensor needs a static length "
		    "one less than the number of pieces");
	ValId idx = lw_in(L, 1, "tensor_indices_or_sections");
	if (!idx)
		return -1;
	if (lw_dtype(L, idx) != DT_I64)
		idx = lw_cast(L, idx, DT_I64);
	for (int k = 0; k < nout; k++) {
		ValId s = k ? lw_slice_const(L, idx, 0, k - 1, k, 1)
		    : lw_const_i64s(L, (int64_t[]){0}, 1);
		ValId e = k < n ? lw_slice_const(L, idx, 0, k, k + 1, 1)
		    : lw_const_i64s(L, (int64_t[]){INT64_MAX}, 1);
		lw_bind(L, k, lw_slice(L, x, s, e, &d, 1, 0));
	}
	return 0;
}

/* tensor_split(x, tensor, dim) */
static int
tensor_split_tensor(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "cannot split a 0-d tensor");
	int64_t d = lw_int(L, 2, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	return split_at_tensor(L, x, d, (int)lw_node(L)->nout);
}

/* tensor_split(x, sections | indices, dim) */
static int
tensor_split(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "cannot split a 0-d tensor");
	int64_t d = lw_int(L, 2, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	const Arg *a = lw_arg(L, 1, NULL);
	if (!a)
		return lw_fail(L, "sections or indices are missing");
	int nout = (int)lw_node(L)->nout;
	if (a->kind == A_LIST || a->kind == A_TUPLE) {
		int64_t ix[MAXT];
		int n = lw_ints(L, 1, NULL, ix, MAXT);
		if (n < 0)
			return -1;
		for (int k = 0; k < nout && k <= n; k++) {
			int64_t s = k ? ix[k - 1] : 0;
			int64_t e = k < n ? ix[k] : INT64_MAX;
			/* a start past the end gives an empty piece, as in
			 * torch, since ONNX clamps both ends */
			lw_bind(L, k, lw_slice_const(L, x, d, s, e, 1));
		}
		return 0;
	}
	int64_t sec = lw_int(L, 1, "sections", 1), size;
	if (sec <= 0)
		return lw_fail(L, "sections must be positive");
	if (!lw_sdim(L, lw_srcval(L, 0, "self"), (int)d, &size)) {
		/* a size known at run time: piece k starts at k*q + min(k,
		 * rem), q and rem of size / sec read there */
		ValId n = lw_shape_range(L, x, (int)d, (int)d + 1);
		ValId q = lw_op2(L, "Div", n, lw_i64v(L, sec));
		ValId rem = lw_op2(L, "Sub", n, lw_op2(L, "Mul", q, lw_i64v(L,
		    sec)));
		for (int k = 0; k < nout && k < sec; k++) {
			ValId at[2];
			for (int e = 0; e < 2; e++)
				at[e] = lw_op2(L, "Add", lw_op2(L, "Mul", q,
				    lw_i64v(L, k + e)), lw_op2(L, "Min", rem,
				    lw_i64v(L, k + e)));
			lw_bind(L, k, lw_slice(L, x, at[0], at[1], &d, 1, 0));
		}
		return 0;
	}
	int64_t q = size / sec, rem = size % sec, s = 0;
	for (int k = 0; k < nout && k < sec; k++) {
		int64_t len = q + (k < rem);
		lw_bind(L, k, lw_slice_const(L, x, d, s, s + len, 1));
		s += len;
	}
	return 0;
}

/* --------------------------------------------------- slicing, selecting */

/* lw_slice(x, dim, start, end, step): ONNX Slice clamps out-of-range and
 * negative bounds the way Python does. */
static int
slice_rule(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "cannot slice a 0-d tensor");
	int64_t d = lw_int(L, 1, "dim", 0);
	int64_t step = lw_int(L, 4, "step", 1);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	if (step <= 0)
		return lw_fail(L, "slice step must be positive");
	int64_t s = 0, e = INT64_MAX, size;
	bool ss = !lw_has(L, 2, "start") || lws_argnum(L, lw_arg(L, 2, "start"),
	    &s);
	bool se = !lw_has(L, 3, "end")
	    || lws_argnum(L, lw_arg(L, 3, "end"), &e);
	bool full = ss && se && step == 1 && s == 0 && (e == INT64_MAX ||
	    (lw_sdim(L, lw_srcval(L, 0, "self"), (int)d, &size) && e >= size));
	if (full) {
		lw_bind(L, 0, x);
		return 0;
	}
	ValId sv = lw_int1(L, 2, "start", 0),
	    ev = lw_int1(L, 3, "end", INT64_MAX);
	if (!sv || !ev)
		return -1;
	lw_bind(L, 0, lw_slice(L, x, sv, ev, &d, 1, step != 1 ? lw_i64v(L, step)
	    : 0));
	return 0;
}

/* select(x, dim, index): Gather with a 0-d index drops the dim; ONNX
 * Gather accepts negative indices. */
static int
select_rule(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "cannot select from a 0-d tensor");
	int64_t d = lw_int(L, 1, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	ValId idx = lw_operand(L, 2, "index", DT_I64);
	if (!idx)
		return -1;
	NodeId g = lw_emit(L, "Gather", 2, (ValId[]){x, idx}, 1);
	lw_attr_int(L, g, "axis", d);
	lw_bind(L, 0, lw_typed(L, g, lw_dtype(L, x)));
	return 0;
}

/* narrow(x, dim, start, length) */
static int
narrow(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	if (r == 0)
		return lw_fail(L, "cannot narrow a 0-d tensor");
	int64_t d = lw_int(L, 1, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	int64_t s, len, size;
	bool ss = lws_argnum(L, lw_arg(L, 2, "start"), &s);
	bool sl = lws_argnum(L, lw_arg(L, 3, "length"), &len);
	ValId wrapped = 0;
	if (ss && s < 0) {
		/* torch wraps a negative start once: by the size at run time
		 * where it is dynamic */
		if (lw_sdim(L, lw_srcval(L, 0, "self"), (int)d, &size))
			s += size; /* s >= INT64_MIN, size >= 0: no overflow */
		else
			wrapped = lw_op2(L, "Add", lw_shape_range(L, x, (int)d,
			    (int)d + 1), lw_i64v(L, s));
	}
	int64_t end;
	if (ss && sl && !ck_add(s, len, &end))
		return lw_fail(L, "start %lld + length %lld overflows int64",
		    (long long)s, (long long)len);
	if (ss && sl && !wrapped) {
		lw_bind(L, 0, lw_slice_const(L, x, d, s, end, 1));
		return 0;
	}
	ValId sv = wrapped ? wrapped : ss ? lw_i64v(L, s) : lw_int1(L, 2,
	    "start", 0);
	ValId lv = lw_int1(L, 3, "length", 0);
	if (!sv || !lv)
		return -1;
	lw_bind(L, 0, lw_slice(L, x, sv, lw_op2(L, "Add", sv, lv), &d, 1, 0));
	return 0;
}

/* -------------------------------------------------------------- creation */

/* A number argument: value, whether it is an integer, whether static. */
static bool
numarg(Lower *L, int i, const char *kw, double *f, int64_t *n, bool *isint)
{
	const Arg *a = lw_arg(L, i, kw);
	if (a && a->kind == A_FLOAT) {
		*f = a->u.f;
		*isint = false;
		return true;
	}
	if (a && lws_argnum(L, a, n)) {
		*f = (double)*n;
		*isint = true;
		return true;
	}
	if (a && a->kind == A_VAL) {
		const Value *v = ir_val(L->src, a->u.v);
		*isint = v->kind != VK_SYMFLOAT && !(v->kind == VK_TENSOR &&
		    ir_dtype_is_float((DType)v->dtype));
	}
	return false;
}

/* arange(end), arange(start, end), arange(start, end, step): the dtype is
 * the annotation's.  Static ranges become constants computed like torch
 * (count from doubles, elements start + k*step); symbolic ones a Range in
 * int64 or double. */
static int
arange(Lower *L)
{
	const char *op = ir_str(L->m, lw_node(L)->op);
	bool has_start = strstr(op, ".start") != NULL;
	int ie = has_start ? 1 : 0;
	DType dt = lw_outdtype(L);
	double fs = 0, fe = 0, fp = 1;
	int64_t is = 0, ie_ = 0, ip = 1;
	bool ints = true, xi;
	bool st = true;
	if (has_start) {
		xi = true;
		st &= numarg(L, 0, "start", &fs, &is, &xi);
		ints &= xi;
	}
	xi = true;
	st &= numarg(L, ie, "end", &fe, &ie_, &xi);
	ints &= xi;
	if (has_start && lw_has(L, 2, "step")) {
		xi = true;
		st &= numarg(L, 2, "step", &fp, &ip, &xi);
		ints &= xi;
	}
	if (st) {
		if (fp == 0)
			return lw_fail(L, "step must not be zero");
		double cnt = ceil((fe - fs) / fp);
		int64_t span, icnt;
		if (ints && ck_sub(ie_, is, &span) &&
		    ck_ceildiv(span, ip, &icnt)) /* exact for large integers */
			cnt = (double)icnt;
		else if (ints) /* the checker refused ranges this long */
			cnt = MAXCONST + 1.0;
		if (cnt < 0)
			cnt = 0;
		if (cnt <= MAXCONST) {
			int64_t n = (int64_t)cnt;
			void *buf = lw_scratch(L, (size_t)n + 1, 8);
			ValId c;
			if (ints) {
				int64_t *v = buf;
				for (int64_t k = 0; k < n; k++) /* in range */
					v[k] = is + k * ip;
				c = lw_const(L, DT_I64, 1, &n, v);
			} else {
				double *v = buf;
				for (int64_t k = 0; k < n; k++)
					v[k] = fs + (double)k * fp;
				c = lw_const(L, DT_F64, 1, &n, v);
			}
			lw_bind(L, 0, lw_cast(L, c, dt));
			return 0;
		}
	}
	DType rt = ints ? DT_I64 : DT_F64;
	ValId s = has_start ? lw_operand(L, 0, "start", rt) : lw_scalar(L, 0,
	    rt);
	ValId e = lw_operand(L, ie, "end", rt);
	ValId p = has_start && lw_has(L, 2, "step") ? lw_operand(L, 2, "step",
	    rt) : lw_scalar(L, 1, rt);
	if (!s || !e || !p)
		return -1;
	NodeId n = lw_emit(L, "Range", 3, (ValId[]){s, e, p}, 1);
	lw_bind(L, 0, lw_cast(L, lw_typed(L, n, rt), dt));
	return 0;
}

/* A tensor of the annotated dtype filled with fill (a 0-d value of that
 * dtype), shaped by the size list argument i. */
static int
filled(Lower *L, int i, ValId fill)
{
	ValId shape = lw_shape_list(L, i, "size");
	if (!shape || !fill)
		return -1;
	lw_bind(L, 0, lw_op2(L, "Expand", fill, shape));
	return 0;
}

static int
zeros(Lower *L)
{
	return filled(L, 0, lw_scalar_int(L, 0, lw_outdtype(L)));
}

int
lws_ones(Lower *L)
{
	return filled(L, 0, lw_scalar_int(L, 1, lw_outdtype(L)));
}

static int
full(Lower *L)
{
	return filled(L, 0, lw_operand(L, 1, "fill_value", lw_outdtype(L)));
}

static int
new_zeros(Lower *L)
{
	return filled(L, 1, lw_scalar_int(L, 0, lw_outdtype(L)));
}

static int
new_ones(Lower *L)
{
	return filled(L, 1, lw_scalar_int(L, 1, lw_outdtype(L)));
}

static int
new_full(Lower *L)
{
	return filled(L, 1, lw_operand(L, 2, "fill_value", lw_outdtype(L)));
}

/* scalar_tensor(s, dtype=f32) */
static int
scalar_tensor(Lower *L)
{
	ValId v = lw_operand(L, 0, "s", lw_outdtype(L));
	if (!v)
		return -1;
	lw_bind(L, 0, v);
	return 0;
}

/* ------------------------------------------------------------------ table */

/* tril_indices / triu_indices(row, col, offset=0, *, dtype=long, ...):
 * the [2, n] coordinates (row-major) of the lower (upper) triangle of a
 * row x col matrix, j - i <= offset (>= offset): a constant. */
static int
tri_indices(Lower *L, bool upper)
{
	int64_t r = lw_int(L, 0, "row", 0), c = lw_int(L, 1, "col", 0),
		off = lw_int(L, 2, "offset", 0);
	if (lw_failed(L))
		return -1;
	if (r < 0 || c < 0)
		return lw_fail(L, "row and col must be non-negative");
	if ((double)r * (double)c > (double)(1 << 22))
		return lw_fail(L, "a %lld x %lld matrix is too big",
		    (long long)r, (long long)c);
	int64_t n = 0;
	for (int64_t i = 0; i < r; i++)
		for (int64_t j = 0; j < c; j++)
			n += upper ? j - i >= off : j - i <= off;
	int64_t *v = lw_scratch(L, (size_t)(2 * n) + 1, sizeof *v), k = 0;
	for (int64_t i = 0; i < r; i++)
		for (int64_t j = 0; j < c; j++)
			if (upper ? j - i >= off : j - i <= off) {
				v[k] = i;
				v[n + k++] = j;
			}
	ValId t = lw_const(L, DT_I64, 2, (int64_t[]){2, n}, v);
	lw_bind(L, 0, lw_cast(L, t, lw_outdtype(L)));
	return 0;
}

static int
tril_indices(Lower *L)
{
	return tri_indices(L, false);
}

static int
triu_indices(Lower *L)
{
	return tri_indices(L, true);
}

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_shape_join LW_THIS
const LowerRule lw_rules_shape_join[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
