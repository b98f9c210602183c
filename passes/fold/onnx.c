/* onnx.c - inside the fold plugin: folding ONNX nodes.  Identity, Cast,
 * Reshape, Unsqueeze, Squeeze, Transpose and Concat of constants, and
 * Shape of a value whose shape is static, become Constant nodes; so do
 * the ops of onnx_math.c and compute.c. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

static int
i64s(const Ten *t, int64_t *out, int cap)
{
	if (t->dt != ONNXC_DT_I64 || t->rank != 1 || t->dims[0] > cap)
		return -1;
	memcpy(out, t->data, (size_t)t->numel * 8);
	return (int)t->numel;
}

int
fold_onnx_input(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    uint32_t i, Ten *out)
{
	onnxc_arg a;
	return i < ni->npos &&
	    f->h->node_arg(f->ctx, f->g, n, i, &a) == ONNXC_OK &&
	    a.kind == ONNXC_ARG_VALUE && fold_constant(f, a.ref, out);
}

int
fold_onnx_attr(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    const char *name, onnxc_arg *a)
{
	return fold_keyed(f, n, ni, f->h->intern(f->ctx, name), a);
}

static int
onnx_shape(Fold *f, onnxc_node n, const onnxc_node_info *ni, Ten *r)
{
	onnxc_arg a;
	onnxc_value_info vi;
	onnxc_dim d[MAXRANK];
	int64_t start = 0, end;
	if (ni->npos < 1 || f->h->node_arg(f->ctx, f->g, n, 0, &a) !=
	    ONNXC_OK || a.kind != ONNXC_ARG_VALUE ||
	    f->h->value_get(f->ctx, f->g, a.ref, &vi) != ONNXC_OK ||
	    vi.kind != ONNXC_VK_TENSOR || vi.rank < 0 || vi.rank > MAXRANK ||
	    f->h->value_dims(f->ctx, f->g, a.ref, d, MAXRANK) != ONNXC_OK)
		return SKIP;
	end = vi.rank;
	if (fold_onnx_attr(f, n, ni, "start", &a) && a.kind == ONNXC_ARG_INT)
		start = a.i;
	if (fold_onnx_attr(f, n, ni, "end", &a) && a.kind == ONNXC_ARG_INT)
		end = a.i;
	start += start < 0 ? vi.rank : 0;
	end += end < 0 ? vi.rank : 0;
	start = start < 0 ? 0 : start > vi.rank ? vi.rank : start;
	end = end < start ? start : end > vi.rank ? vi.rank : end;
	int64_t len = end - start;
	if (fold_shape(f, r, ONNXC_DT_I64, 1, &len) != DONE)
		return SKIP;
	for (int64_t i = start; i < end; i++)
		if (d[i].e)
			return SKIP;
	if (fold_storage(f, r) != DONE)
		return FAIL;
	for (int64_t i = start; i < end; i++)
		memcpy((int64_t *)r->own + (i - start), &d[i].n, 8);
	return DONE;
}

static int
onnx_eval(Fold *f, const char *op, onnxc_node n, const onnxc_node_info *ni,
    Ten *r)
{
	Ten x, y;
	onnxc_arg a;
	int64_t v[MAXRANK], dims[MAXRANK];
	int k, d;
	if (strcmp(op, "Shape") == 0)
		return onnx_shape(f, n, ni, r);
	if (strcmp(op, "Concat") == 0) {
		Ten in[16];
		if (ni->npos > 16 || !fold_onnx_attr(f, n, ni, "axis", &a) ||
		    a.kind != ONNXC_ARG_INT)
			return SKIP;
		for (uint32_t i = 0; i < ni->npos; i++)
			if (!fold_onnx_input(f, n, ni, i, &in[i]))
				return SKIP;
		return fold_concat(f, in, (int)ni->npos, a.i, r);
	}
	if (!fold_onnx_input(f, n, ni, 0, &x))
		return SKIP;
	if (strcmp(op, "Identity") == 0)
		return fold_copy(f, &x, r);
	if (strcmp(op, "Cast") == 0)
		return fold_onnx_attr(f, n, ni, "to", &a) &&
		    a.kind == ONNXC_ARG_INT ? fold_cast(f, &x, r, (uint32_t)a.i)
		    : SKIP;
	if (strcmp(op, "Transpose") == 0) {
		k = x.rank;
		for (int i = 0; i < k; i++)
			v[i] = k - 1 - i;
		if (fold_onnx_attr(f, n, ni, "perm", &a))
			k = fold_ints(f, &a, v, MAXRANK);
		return k < 0 ? SKIP : fold_permute(f, &x, r, v, k);
	}
	if (strcmp(op, "Reshape") == 0) {
		int zero = !(fold_onnx_attr(f, n, ni, "allowzero", &a) &&
		    a.kind == ONNXC_ARG_INT && a.i);
		if (!fold_onnx_input(f, n, ni, 1, &y) ||
		    (k = i64s(&y, v, MAXRANK)) < 0)
			return SKIP;
		for (int i = 0; i < k; i++)
			if (zero && v[i] == 0) {
				if (i >= x.rank)
					return SKIP;
				v[i] = x.dims[i];
			}
		return fold_view_dims(&x, v, k) ? fold_reshape(f, &x, r, k, v)
		    : SKIP;
	}
	if (strcmp(op, "Unsqueeze") == 0) {
		int put[MAXRANK] = {0};
		if (!fold_onnx_input(f, n, ni, 1, &y) ||
		    (k = i64s(&y, v, MAXRANK)) < 0 || x.rank + k > MAXRANK)
			return SKIP;
		int rank = x.rank + k;
		for (int i = 0; i < k; i++) {
			if (v[i] < -rank || v[i] >= rank)
				return SKIP;
			d = (int)(v[i] < 0 ? v[i] + rank : v[i]);
			if (put[d]++)
				return SKIP;
		}
		for (int i = 0, j = 0; i < rank; i++)
			dims[i] = put[i] ? 1 : x.dims[j++];
		return fold_reshape(f, &x, r, rank, dims);
	}
	if (strcmp(op, "Squeeze") == 0) {
		int drop[MAXRANK] = {0};
		if (ni->npos > 1 && fold_onnx_input(f, n, ni, 1, &y)) {
			if ((k = i64s(&y, v, MAXRANK)) < 0)
				return SKIP;
			for (int i = 0; i < k; i++) {
				if (v[i] < -x.rank || v[i] >= x.rank)
					return SKIP;
				d = (int)(v[i] < 0 ? v[i] + x.rank : v[i]);
				if (x.dims[d] != 1)
					return SKIP;
				drop[d] = 1;
			}
		} else if (ni->npos > 1 && f->h->node_arg(f->ctx, f->g, n, 1,
		    &a) == ONNXC_OK && a.kind != ONNXC_ARG_NONE) {
			return SKIP; /* axes computed at run time */
		} else {
			for (int i = 0; i < x.rank; i++)
				drop[i] = x.dims[i] == 1;
		}
		k = 0;
		for (int i = 0; i < x.rank; i++)
			if (!drop[i])
				dims[k++] = x.dims[i];
		return fold_reshape(f, &x, r, k, dims);
	}
	int rc = fold_onnx_math(f, op, n, ni, r);
	return rc == SKIP ? fold_onnx_compute(f, op, n, ni, r) : rc;
}

/* The host tensor for result r: a big one is made as it is written (a
 * gather) or shares its operand's bytes (a view), see FOLD_BIG. */
static onnxc_tensor
made(Fold *f, Ten *r)
{
	const onnxc_host_api *h = f->h;
	FoldGather g = {f, r};
	if (r->from && ONNXC_HOST_HAS(h, tensor_make))
		return h->tensor_make(f->ctx, r->dt, r->rank, r->dims,
		    fold_gather_fill, &g);
	if (r->from) {
		/* an older host: made here, held whole */
		size_t n = (size_t)r->numel * fold_elsize(r->dt);
		r->own = malloc(n ? n : 1);
		if (!r->own)
			return 0;
		fold_gather_fill(&g, 0, r->numel, r->own);
		r->data = r->own;
	} else if (r->src && !r->own && ONNXC_HOST_HAS(h, tensor_view) &&
	    r->numel * fold_elsize(r->dt) >= FOLD_BIG) {
		return h->tensor_view(f->ctx, r->src, r->rank, r->dims);
	}
	return h->tensor_new(f->ctx, r->dt, r->rank, r->dims, r->data);
}

/* Replace n's output by a Constant node holding r. */
static onnxc_status
emit_constant(Fold *f, onnxc_node n, const onnxc_node_info *ni, Ten *r)
{
	const onnxc_host_api *h = f->h;
	onnxc_dim dims[MAXRANK];
	onnxc_value_info vi;
	onnxc_node_info ci;
	for (int i = 0; i < r->rank; i++)
		dims[i] = (onnxc_dim){.n = r->dims[i]};
	onnxc_tensor t = made(f, r);
	onnxc_node c = t ? h->node_new(f->ctx, f->g, ONNXC_ONNX, "",
	    "Constant", 1) : 0;
	onnxc_arg a = {.kind = ONNXC_ARG_TENSOR, .key = f->s_value, .ref = t};
	if (!c || h->node_push_arg(f->ctx, f->g, c, &a) != ONNXC_OK ||
	    h->node_get(f->ctx, f->g, c, &ci) != ONNXC_OK ||
	    h->value_set_type(f->ctx, f->g, ci.out, r->dt, r->rank, dims) !=
	    ONNXC_OK || h->value_get(f->ctx, f->g, ni->out, &vi) != ONNXC_OK)
		return ONNXC_ERROR;
	/* the value keeps its name: it may be the FX name of an output */
	if (vi.name && h->value_set_name(f->ctx, f->g, ci.out,
	    h->str(f->ctx, vi.name)) != ONNXC_OK)
		return ONNXC_ERROR;
	fold_replace(f, ni->out, ci.out);
	return h->node_erase(f->ctx, f->g, n);
}

onnxc_status
fold_onnx_node(Fold *f, onnxc_node n, const onnxc_node_info *ni)
{
	const char *dom = f->h->str(f->ctx, ni->domain);
	const char *op = f->h->str(f->ctx, ni->op);
	if ((dom && *dom && strcmp(dom, "ai.onnx") != 0) || !op ||
	    ni->nout != 1 || ni->out >= f->nvals || f->isout[ni->out])
		return ONNXC_OK;
	Ten r = {0};
	f->bigok = 1;
	int s = onnx_eval(f, op, n, ni, &r);
	f->bigok = 0;
	if (s == DONE && !fold_fits(f, ni->out, &r))
		s = SKIP;
	onnxc_status st = s == FAIL ? ONNXC_ERROR : ONNXC_OK;
	if (s == DONE)
		st = emit_constant(f, n, ni, &r);
	free(r.own);
	return st;
}
