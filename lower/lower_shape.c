/* lower_shape.c - lowering rules for shape ATen ops: views and reshapes,
 * permutes, squeeze/unsqueeze, expand/repeat, identity-like ops and
 * runtime assertions.  cat/stack/split, slice/select/narrow and
 * arange/full/zeros are in lower_shape_join.c; indexing, gathers,
 * scatters, flip/roll, padding and triangles in lower_index*.c.
 *
 * Shapes are decided from the FX annotations; where a size is symbolic the
 * rules read it at run time (Shape) instead of baking the traced number.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/ckint.h"
#include "lower_shape.h"

/* ----------------------------------------------------------------- helpers */

/* The number an int-like argument stands for, if it is static. */
bool
lws_argnum(Lower *L, const Arg *a, int64_t *out)
{
	return a && lw_static_int(L, a, out);
}

/* Bind the ONNX results of node n to the first nout FX outputs. */
void
lws_bind_all(Lower *L, NodeId n, int cnt)
{
	int nout = (int)lw_node(L)->nout;
	for (int k = 0; k < nout && k < cnt; k++)
		lw_bind(L, k, lw_res(L, n, k));
}

/* ------------------------------------------------- identity-like, no-ops */

/* clone, contiguous, alias, detach, lift_fresh_copy: values, not memory */
static int
identity(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	lw_bind(L, 0, x);
	return 0;
}

/* runtime assertions and range hints: nothing to compute */
static int
noop(Lower *L)
{
	(void)L;
	return 0;
}

/* item(x): the single element as a 0-d tensor; a SymInt/SymFloat/SymBool
 * result takes the scalar type SymInts lower to. */
static int
item(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	ValId r = lw_reshape(L, x, lw_const_i64s(L, NULL, 0));
	const Value *o = lw_outval(L, 0);
	DType dt = o->kind == VK_SYMINT ? DT_I64
	    : o->kind == VK_SYMFLOAT ? DT_F64
	    : o->kind == VK_SYMBOOL ? DT_BOOL
	    : o->kind == VK_TENSOR ? (DType)o->dtype : lw_dtype(L, r);
	lw_bind(L, 0, lw_cast(L, r, dt));
	return 0;
}

/* Does size item it (a literal or a SymInt) equal dim d of the tensor? */
static bool
same_size(Lower *L, const Arg *it, Dim d)
{
	if (it->kind == A_INT)
		return !d.e && d.n == it->u.i;
	if (it->kind != A_VAL)
		return false;
	const Value *v = ir_val(L->src, it->u.v);
	if (!v->sym)
		return false;
	const Expr *e = ir_exprp(L->m, v->sym);
	return d.e ? v->sym == d.e : e->kind == E_INT && e->n == d.n;
}

/* Whether FX value v is its own contiguous storage from offset 0, as
 * as_strided reads it: a graph input, a fresh result, or a reshape of
 * one; not a view that eager PyTorch would read through to its base. */
static bool
own_storage(Lower *L, ValId v, int depth)
{
	static const char *keep[] = {"view.", "reshape.", "_unsafe_view.",
	    "squeeze.", "unsqueeze.", "flatten.", "alias.", "detach.",
	    "clone.", "contiguous.", NULL};
	static const char *views[] = {"permute", "transpose", "::t.",
	    "expand", "slice", "select", "diagonal", "narrow", "split",
	    "unbind", "chunk", "unfold", "as_strided", "movedim", "swapaxes",
	    "swapdims", "real", "imag", "view_as", "::T", "::mT", "::H",
	    "indices", "values", NULL};
	const Value *sv = ir_val(L->src, v);
	if (!sv->def)
		return true;
	if (depth > 64)
		return false;
	const Node *n = ir_nodep(L->src, sv->def);
	const char *op = ir_str(L->m, n->op);
	for (int k = 0; keep[k]; k++) {
		const char *p = strstr(op, keep[k]);
		if (p && p > op && p[-1] == ':') {
			const Arg *a = ir_arg(L->src, sv->def, 0);
			return a->kind == A_VAL && own_storage(L, a->u.v,
			    depth + 1);
		}
	}
	for (int k = 0; views[k]; k++)
		if (strstr(op, views[k]) && !strstr(op, "_copy") &&
		    !strstr(op, "_scatter"))
			return false;
	return true;
}

/* strided_offsets where a size of self or of the view, a stride or the
 * offset is known at run time only: offset + sum over d of
 * Range(size[d]) * stride[d], each term along its own dim.  A position
 * outside self is then Gather's (or ScatterElements') run-time error, as
 * PyTorch's setStorage check is at run time. */
static ValId
strided_offsets_dyn(Lower *L, int first)
{
	const Arg *sa = lw_arg(L, first, "size"),
		  *ta = lw_arg(L, first + 1, "stride");
	bool lists = sa && ta && (sa->kind == A_LIST || sa->kind == A_TUPLE) &&
	    (ta->kind == A_LIST || ta->kind == A_TUPLE);
	if (!lists || sa->u.list.n != ta->u.list.n ||
	    sa->u.list.n > LW_MAXRANK) {
		lw_fail(L, "mismatch in length of strides and shape");
		return 0;
	}
	int n = (int)sa->u.list.n;
	int64_t reach = 0; /* the farthest position of the static dims */
	for (int d = 0; d < n; d++) {
		int64_t z, t;
		bool zs = lws_argnum(L, &ir_items(L->src, sa)[d], &z),
		     ts = lws_argnum(L, &ir_items(L->src, ta)[d], &t);
		if ((zs && z < 0) || (ts && t < 0)) {
			lw_fail(L, "negative sizes and strides are not "
			    "supported");
			return 0;
		}
		if (zs && ts && z > 0 && (!ck_mul(z - 1, t, &z) ||
		    !ck_add(reach, z, &reach))) {
			lw_fail(L, "setStorage: sizes and strides reach past "
			    "any storage");
			return 0;
		}
	}
	ValId size = lw_shape_list(L, first, "size"),
	      stride = lw_shape_list(L, first + 1, "stride"),
	      at = lw_int1(L, first + 2, "storage_offset", 0);
	if (!size || !stride || !at)
		return 0;
	int64_t ones[LW_MAXRANK];
	for (int d = 0; d < n; d++)
		ones[d] = 1;
	at = lw_reshape(L, at, lw_const_i64s(L, ones, n));
	for (int d = 0; d < n; d++) {
		ValId k = lw_scalar_i64(L, d);
		ValId r3[3] = {lw_scalar_i64(L, 0), lw_op2(L, "Gather", size, k),
		    lw_scalar_i64(L, 1)};
		ValId r = lw_typed(L, lw_emit(L, "Range", 3, r3, 1), DT_I64);
		r = lw_op2(L, "Mul", r, lw_op2(L, "Gather", stride, k));
		ones[d] = -1;
		at = lw_op2(L, "Add", at, lw_reshape(L, r,
		    lw_const_i64s(L, ones, n)));
		ones[d] = 1;
	}
	return at;
}

/* Whether a storage_offset (argument i) is a SymInt with no fixed number */
static bool
offset_symbolic(Lower *L, int i)
{
	const Arg *off = lw_arg(L, i, "storage_offset");
	int64_t e;
	return off && off->kind != A_NONE && !lws_argnum(L, off, &e);
}

/* The storage positions an as_strided(size, stride, storage_offset)
 * (arguments 1, 2, 3 from first) of self reads, as an INT64 constant
 * shaped size, or computed at run time (strided_offsets_dyn) when a size,
 * stride or offset is known at run time only; 0 after reporting.
 * Positions outside self are PyTorch's setStorage error. */
static ValId
strided_offsets(Lower *L, int first)
{
	if (lw_list_symbolic(L, first, "size") ||
	    lw_list_symbolic(L, first + 1, "stride") ||
	    offset_symbolic(L, first + 2))
		return strided_offsets_dyn(L, first);
	const Value *xv = lw_srcval(L, 0, "self");
	int64_t size[LW_MAXRANK], stride[LW_MAXRANK], numel = 1, e;
	for (int d = 0; xv && d < xv->rank; d++) {
		if (!lw_sdim(L, xv, d, &e))
			return strided_offsets_dyn(L, first);
		if (e > 0 && numel > ((int64_t)1 << 40) / e) {
			lw_fail(L, "an as_strided view of part of a tensor "
			    "that large is not supported");
			return 0;
		}
		numel *= e;
	}
	int n = lw_ints(L, first, "size", size, LW_MAXRANK),
	    nt = lw_ints(L, first + 1, "stride", stride, LW_MAXRANK);
	int64_t off = lw_int(L, first + 2, "storage_offset", 0);
	if (lw_failed(L) || n < 0 || nt != n) {
		if (!lw_failed(L))
			lw_fail(L, "mismatch in length of strides and shape");
		return 0;
	}
	int64_t cnt = 1;
	for (int d = 0; d < n; d++) {
		if (size[d] < 0 || stride[d] < 0) {
			lw_fail(L, "negative sizes and strides are not "
			    "supported");
			return 0;
		}
		if (size[d] > 1 << 22 || (size[d] > 1 && stride[d] > numel) ||
		    off > numel) {
			lw_fail(L, "setStorage: sizes and strides reach past a "
			    "storage of %lld", (long long)numel);
			return 0;
		}
		cnt *= size[d];
		if (cnt > 1 << 22) {
			lw_fail(L, "an as_strided view that large is not "
			    "supported");
			return 0;
		}
	}
	int64_t *idx = lw_scratch(L, (size_t)cnt + 1, sizeof *idx);
	for (int64_t j = 0; j < cnt; j++) {
		int64_t rest = j, at = off;
		for (int d = n - 1; d >= 0; d--) {
			at += rest % size[d] * stride[d];
			rest /= size[d];
		}
		if (at < 0 || at >= numel) {
			lw_fail(L, "setStorage: sizes and strides reach "
			    "element %lld of a storage of %lld", (long long)at,
			    (long long)numel);
			return 0;
		}
		idx[j] = at;
	}
	return lw_const(L, DT_I64, n, size, idx);
}

/* Any other as_strided: a Gather of the storage (self flattened) at the
 * offsets, when self is its own storage. */
static int
strided_gather(Lower *L)
{
	const Arg *sa = lw_arg(L, 0, "self");
	ValId idx = strided_offsets(L, 1), x = lw_in(L, 0, "self");
	if (!idx || !x)
		return -1;
	if (sa->kind != A_VAL || !own_storage(L, sa->u.v, 0))
		return lw_fail(L, "an as_strided view of part of a tensor "
		    "is supported only on a tensor that is its own storage, "
		    "not on another view");
	ValId in[2] = {lw_reshape(L, x, lw_i64v(L, -1)), idx};
	NodeId g = lw_emit(L, "Gather", 2, in, 1);
	lw_attr_int(L, g, "axis", 0);
	lw_bind(L, 0, lw_typed(L, g, lw_dtype(L, x)));
	return 0;
}

/* as_strided_scatter(self, src, size, stride, storage_offset=None): a
 * copy of self with the as_strided view of it replaced by src. */
static int
as_strided_scatter(Lower *L)
{
	ValId idx = strided_offsets(L, 2), x = lw_in(L, 0, "self"),
	      src = lw_in(L, 1, "src");
	if (!idx || !x || !src)
		return -1;
	ValId flat = lw_i64v(L, -1);
	ValId in[3] = {lw_reshape(L, x, flat), lw_reshape(L, idx, flat),
	    lw_reshape(L, lw_cast(L, src, lw_dtype(L, x)), flat)};
	NodeId s = lw_emit(L, "ScatterElements", 3, in, 1);
	lw_attr_int(L, s, "axis", 0);
	ValId shp = lw_op1(L, "Shape", x);
	lw_settype(L, shp, DT_I64);
	lw_bind(L, 0, lw_reshape(L, lw_typed(L, s, lw_dtype(L, x)), shp));
	return 0;
}

/* as_strided is an identity only when it views the whole tensor with its
 * contiguous strides (strides of size-1 dims do not matter); sizes may be
 * symbolic when they are the tensor's own. */
static int
as_strided(Lower *L)
{
	int r = lw_rank_of(L, 0, "self");
	if (r < 0)
		return -1;
	const Arg *sa = lw_arg(L, 1, "size");
	if (lw_list_symbolic(L, 2, "stride") || offset_symbolic(L, 3))
		return strided_gather(L); /* not compared symbolically */
	int64_t stride[LW_MAXRANK];
	int nt = lw_ints(L, 2, "stride", stride, LW_MAXRANK);
	int64_t off = lw_int(L, 3, "storage_offset", 0);
	if (nt < 0)
		return -1;
	bool ok = sa && (sa->kind == A_LIST || sa->kind == A_TUPLE) &&
	    sa->u.list.n == (uint32_t)r && nt == r && off == 0;
	const Arg *it = ok ? ir_items(L->src, sa) : NULL;
	const Dim *dims = ir_dims(L->src, lw_arg(L, 0, "self")->u.v);
	int64_t want = 1;
	bool symbolic = false; /* want is a product with a symbolic size */
	for (int d = r - 1; ok && d >= 0; d--) {
		Dim dd = dims[d];
		if (!same_size(L, &it[d], dd))
			ok = false;
		else if (!(!dd.e && dd.n == 1) && (symbolic ||
		    stride[d] != want))
			ok = false;
		if (dd.e)
			symbolic = true;
		else
			want *= dd.n;
	}
	if (ok)
		return identity(L);
	return strided_gather(L);
}

/* ------------------------------------------------------ views, reshapes */

/* view/lw_reshape(x, size): Reshape with the sizes as traced (-1 stays -1).
 * A literal 0 means an empty dim in torch, so allowzero is set then. */
static int
view(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	ValId shape = lw_shape_list(L, 1, NULL);
	if (!x || !shape)
		return -1;
	const Arg *a = lw_arg(L, 1, NULL);
	bool zero = false;
	if (a->kind == A_LIST || a->kind == A_TUPLE) {
		const Arg *it = ir_items(L->src, a);
		for (uint32_t k = 0; k < a->u.list.n; k++) {
			int64_t n;
			if (lws_argnum(L, &it[k], &n) && n == 0)
				zero = true;
		}
	}
	NodeId n = lw_emit(L, "Reshape", 2, (ValId[]){x, shape}, 1);
	if (zero)
		lw_attr_int(L, n, "allowzero", 1);
	lw_bind(L, 0, lw_typed(L, n, lw_dtype(L, x)));
	return 0;
}

/* view_as / reshape_as(x, other) */
static int
view_as(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), o = lw_in(L, 1, "other");
	if (!x || !o)
		return -1;
	ValId shp = lw_op1(L, "Shape", o);
	lw_settype(L, shp, DT_I64);
	lw_bind(L, 0, lw_reshape(L, x, shp));
	return 0;
}

/* flatten(x, start_dim, end_dim) */
static int
flatten(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	if (r == 0) {
		lw_bind(L, 0, lw_reshape(L, x, lw_i64v(L, 1)));
		return 0;
	}
	int64_t s = lw_int(L, 1, "start_dim", 0), e = lw_int(L, 2, "end_dim",
	    -1);
	if (lw_normdim(L, &s, r) < 0 || lw_normdim(L, &e, r) < 0)
		return -1;
	if (s > e)
		return lw_fail(L, "start_dim comes after end_dim");
	if (s == e) {
		lw_bind(L, 0, x);
		return 0;
	}
	const Value *sv = lw_srcval(L, 0, "self");
	int64_t mid = -1;
	lw_dim_static(lw_outval(L, 0), L->src, (int)s, &mid);
	ValId parts[3] = {lw_dims_of(L, sv, x, 0, (int)s), lw_i64v(L, mid),
	    lw_dims_of(L, sv, x, (int)e + 1, r)};
	lw_bind(L, 0, lw_reshape(L, x, lw_concat_shape(L, parts, 3)));
	return 0;
}

/* unflatten(x, dim, sizes) */
static int
unflatten(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t d = lw_int(L, 1, "dim", 0);
	if (lw_normdim(L, &d, r) < 0)
		return -1;
	ValId sizes = lw_shape_list(L, 2, "sizes");
	if (!sizes)
		return -1;
	const Value *sv = lw_srcval(L, 0, "self");
	ValId parts[3] = {lw_dims_of(L, sv, x, 0, (int)d), sizes,
	    lw_dims_of(L, sv, x, (int)d + 1, r)};
	lw_bind(L, 0, lw_reshape(L, x, lw_concat_shape(L, parts, 3)));
	return 0;
}

/* --------------------------------------------------------------- permutes */

static int
permute(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	int64_t perm[LW_MAXRANK];
	if (!x || r < 0)
		return -1;
	int n = lw_ints(L, 1, "dims", perm, LW_MAXRANK);
	if (n < 0)
		return -1;
	if (n != r)
		return lw_fail(L, "permutation of %d dims for a rank-%d tensor",
		    n, r);
	for (int k = 0; k < n; k++)
		if (lw_normdim(L, &perm[k], r) < 0)
			return -1;
	lw_bind(L, 0, lw_is_identity_perm(perm, n) ? x : lw_transpose(L, x, perm,
	    n));
	return 0;
}

/* lw_transpose(x, a, b), swapaxes, swapdims */
static int
transpose_int(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t a = lw_int(L, 1, NULL, 0), b = lw_int(L, 2, NULL, 0);
	if (lw_normdim(L, &a, r) < 0 || lw_normdim(L, &b, r) < 0)
		return -1;
	if (a == b || r < 2) {
		lw_bind(L, 0, x);
		return 0;
	}
	int64_t perm[LW_MAXRANK];
	for (int k = 0; k < r; k++)
		perm[k] = k;
	perm[a] = b;
	perm[b] = a;
	lw_bind(L, 0, lw_transpose(L, x, perm, r));
	return 0;
}

/* movedim(x, source, destination): int or int list */
static int
movedim(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t src[LW_MAXRANK], dst[LW_MAXRANK], perm[LW_MAXRANK];
	int ns = lw_ints(L, 1, "source", src, LW_MAXRANK);
	int nd = lw_ints(L, 2, "destination", dst, LW_MAXRANK);
	if (ns < 0 || nd < 0)
		return -1;
	if (ns != nd)
		return lw_fail(L, "source and destination differ in length");
	bool used[LW_MAXRANK] = {0}, placed[LW_MAXRANK] = {0};
	for (int k = 0; k < ns; k++) {
		if (lw_normdim(L, &src[k], r) < 0 || lw_normdim(L, &dst[k], r) < 0)
			return -1;
		if (used[src[k]] || placed[dst[k]])
			return lw_fail(L, "repeated dim in movedim");
		perm[dst[k]] = src[k];
		used[src[k]] = placed[dst[k]] = true;
	}
	/* the other dims keep their order in the free places */
	int s = 0;
	for (int d = 0; d < r; d++) {
		if (placed[d])
			continue;
		while (used[s])
			s++;
		perm[d] = s++;
	}
	lw_bind(L, 0, lw_is_identity_perm(perm, r) ? x : lw_transpose(L, x, perm, r));
	return 0;
}

/* --------------------------------------------------- squeeze, unsqueeze */

static int
unsqueeze(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	int64_t d = lw_int(L, 1, "dim", 0);
	if (lw_normdim(L, &d, r + 1) < 0)
		return -1;
	lw_bind(L, 0, lw_axes_op(L, "Unsqueeze", x, &d, 1));
	return 0;
}

/* squeeze, squeeze.dim, squeeze.dims: only dims the annotation says are
 * of size 1 go, as torch leaves other dims alone. */
static int
squeeze(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	const Value *sv = lw_srcval(L, 0, "self");
	int64_t dims[LW_MAXRANK], axes[LW_MAXRANK];
	int nd;
	if (lw_has(L, 1, "dim")) {
		nd = lw_ints(L, 1, "dim", dims, LW_MAXRANK);
		if (nd < 0)
			return -1;
	} else {
		nd = r;
		for (int k = 0; k < r; k++)
			dims[k] = k;
	}
	bool pick[LW_MAXRANK] = {0};
	for (int k = 0; k < nd; k++) {
		if (lw_normdim(L, &dims[k], r) < 0)
			return -1;
		int64_t n;
		if (r > 0 && lw_sdim(L, sv, (int)dims[k], &n) && n == 1)
			pick[dims[k]] = true;
	}
	int na = 0;
	for (int d = 0; d < r; d++)
		if (pick[d])
			axes[na++] = d;
	lw_bind(L, 0, na ? lw_axes_op(L, "Squeeze", x, axes, na) : x);
	return 0;
}

/* ------------------------------------------------------- expand, repeat */

/* expand(x, size): -1 keeps the input dim, which ONNX's bidirectional
 * broadcast does for a 1. */
/* Expand of x to shape; ONNX Runtime has no bfloat16 Expand kernel (an
 * autocast region's bf16 attention in core ATen expands), so bf16 goes
 * through float32, which holds every bf16 value exactly */
static ValId
expand_to(Lower *L, ValId x, ValId shape)
{
	DType dt = lw_dtype(L, x);
	if (dt != DT_BF16)
		return lw_op2(L, "Expand", x, shape);
	return lw_cast(L, lw_op2(L, "Expand", lw_cast(L, x, DT_F32), shape),
	    dt);
}

static int
expand(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	if (!x)
		return -1;
	const Arg *a = lw_arg(L, 1, "size");
	if (!a || (a->kind != A_LIST && a->kind != A_TUPLE))
		return lw_fail(L, "argument 'size' must be a list of sizes");
	const Arg *it = ir_items(L->src, a);
	uint32_t cnt = a->u.list.n;
	bool all = true, minus = false;
	int64_t nums[LW_MAXRANK];
	if (cnt > LW_MAXRANK)
		return lw_fail(L, "too many sizes (%u)", cnt);
	for (uint32_t k = 0; k < cnt; k++) {
		if (!lws_argnum(L, &it[k], &nums[k]))
			all = false;
		else if (nums[k] == -1)
			minus = true, nums[k] = 1;
	}
	ValId shape;
	if (all) {
		shape = lw_const_i64s(L, nums, (int)cnt);
	} else {
		shape = lw_shape_list(L, 1, "size");
		/* sizes are >= 0 apart from -1, which must become 1 */
		if (shape && minus)
			shape = lw_op1(L, "Abs", shape);
	}
	if (!shape)
		return -1;
	lw_bind(L, 0, expand_to(L, x, shape));
	return 0;
}

/* expand_as(x, other) */
static int
expand_as(Lower *L)
{
	ValId x = lw_in(L, 0, "self"), o = lw_in(L, 1, "other");
	if (!x || !o)
		return -1;
	ValId shp = lw_op1(L, "Shape", o);
	lw_settype(L, shp, DT_I64);
	lw_bind(L, 0, expand_to(L, x, shp));
	return 0;
}

/* Tile x (rank r) by the count list argument i, which has n entries:
 * missing leading counts are 1 (tile); extra ones add leading dims
 * (repeat, tile). */
static ValId
tile(Lower *L, ValId x, int r, int i, const char *kw)
{
	const Arg *a = lw_arg(L, i, kw);
	int n = a && (a->kind == A_LIST || a->kind == A_TUPLE)
	    ? (int)a->u.list.n : 1;
	if (n > LW_MAXRANK) {
		lw_fail(L, "too many repeat counts (%d)", n);
		return 0;
	}
	if (n > r) {
		int64_t ax[LW_MAXRANK];
		for (int k = 0; k < n - r; k++)
			ax[k] = k;
		x = lw_axes_op(L, "Unsqueeze", x, ax, n - r);
	}
	ValId reps = lw_shape_list(L, i, kw);
	if (!reps)
		return 0;
	if (n < r) {
		int64_t lws_ones[LW_MAXRANK];
		for (int k = 0; k < r - n; k++)
			lws_ones[k] = 1;
		reps = lw_concat(L, (ValId[]){lw_const_i64s(L, lws_ones, r - n),
		    reps}, 2, 0,
		    DT_I64);
	}
	return lw_op2(L, "Tile", x, reps);
}

static int
repeat(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	const Arg *a = lw_arg(L, 1, "repeats");
	if (a && (a->kind == A_LIST || a->kind == A_TUPLE) &&
	    (int)a->u.list.n < r)
		return lw_fail(L, "fewer repeat counts than dims");
	ValId t = tile(L, x, r, 1, "repeats");
	if (!t)
		return -1;
	lw_bind(L, 0, t);
	return 0;
}

static int
tile_rule(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	ValId t = tile(L, x, r, 1, "dims");
	if (!t)
		return -1;
	lw_bind(L, 0, t);
	return 0;
}

/* repeat_interleave(x, int repeats, dim): each element r times in a row,
 * i.e. a new axis after dim broadcast to r, merged back into dim. */
static int
repeat_interleave(Lower *L)
{
	ValId x = lw_in(L, 0, "self");
	int r = lw_rank_of(L, 0, "self");
	if (!x || r < 0)
		return -1;
	const Arg *ra = lw_arg(L, 1, "repeats");
	const Value *rv = ra && ra->kind == A_VAL ? ir_val(L->src, ra->u.v)
	    : NULL;
	bool tensor = rv && rv->kind == VK_TENSOR;
	if (tensor && rv->rank > 1)
		return lw_fail(L, "repeats must be a 0-D or 1-D tensor");
	ValId reps = tensor ? lw_in(L, 1, "repeats") : lw_int1(L, 1,
	    "repeats", 1);
	if (!reps)
		return -1;
	int64_t d = 0;
	if (!lw_has(L, 2, "dim") || r == 0) {
		x = lw_reshape(L, x, lw_i64v(L, -1));
		r = 1;
	} else {
		d = lw_int(L, 2, "dim", 0);
		if (lw_normdim(L, &d, r) < 0)
			return -1;
	}
	if (tensor) {
		/* a repeat per element (one for all broadcast): element k
		 * taken repeats[k] times, a Gather of the indices */
		ValId n = lw_shape_range(L, x, (int)d, (int)d + 1);
		reps = lw_op2(L, "Expand", lw_reshape(L, lw_cast(L, reps,
		    DT_I64), lw_i64v(L, -1)), n);
		NodeId g = lw_emit(L, "Gather", 2, (ValId[]){x,
		    lw_repeat_indices(L, reps)}, 1);
		lw_attr_int(L, g, "axis", d);
		lw_bind(L, 0, lw_typed(L, g, lw_dtype(L, x)));
		return 0;
	}
	int64_t ax = d + 1;
	ValId u = lw_axes_op(L, "Unsqueeze", x, &ax, 1);
	int64_t lws_ones[LW_MAXRANK + 1];
	for (int k = 0; k <= r; k++)
		lws_ones[k] = 1;
	ValId parts[3] = {d + 1 > 0 ? lw_const_i64s(L, lws_ones, (int)d + 1)
	    : 0, reps,
	    r - d - 1 > 0 ? lw_const_i64s(L, lws_ones, r - (int)d - 1) : 0};
	ValId e = lw_op2(L, "Expand", u, lw_concat_shape(L, parts, 3));
	ValId sp[3] = {d > 0 ? lw_shape_range(L, x, 0, (int)d) : 0, lw_i64v(L, -1),
	    d + 1 < r ? lw_shape_range(L, x, (int)d + 1, r) : 0};
	lw_bind(L, 0, lw_reshape(L, e, lw_concat_shape(L, sp, 3)));
	return 0;
}

/* ------------------------------------------------------------------ table */

/* The rows of ir/ops.def this file lowers. */
#define LW_FAMILY_shape LW_THIS
const LowerRule lw_rules_shape[] = {
#include "lower_rows.h"
	{NULL, NULL},
};
