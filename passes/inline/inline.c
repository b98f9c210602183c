/* inline.c - pass "inline": replaces the higher-order ops that only wrap
 * a body in a mode (grad mode, autocast) by the body itself.
 *
 * Requires: the main FX graph as parsed, its bodies as subgraphs.
 * Provides: the same graph with no higher_order::wrap_with_set_grad_enabled
 * and no higher_order::wrap_with_autocast of the cpu device; an enabled
 * autocast region of another device is refused naming it.  torch.vmap's
 * pre-dispatch helpers are dropped and the regions that batch exactly are
 * batched (vmap.c).
 *
 * wrap_with_set_grad_enabled(flag, body, *args) and wrap_with_autocast(
 * device, dtype, enabled, cache, body, *args) call body with args; their
 * outputs, read by getitem, are body's outputs.  Grad mode does not change
 * what inference computes.  Autocast does: in an enabled cpu region the
 * ops of PyTorch's lists get their floating arguments cast (autocast.c)
 * by aten::to.dtype nodes, as its AutocastCPU kernels do; the body's
 * annotations already have the dtypes that results.  Other devices' lists
 * differ, so a region there is an error, not a change of the numbers, and
 * so is a dtype cpu autocast does not take.  Each body node is
 * copied into the main graph with its arguments mapped (placeholders to
 * the call's arguments), bodies nested in bodies inline recursively, and
 * the shape checks the bodies carry (_assert_tensor_metadata) are dropped.
 * Other higher-order ops (cond, while_loop, scan, map) keep their bodies.
 *
 * Uses of the call's outputs are rewired by one sweep over the graph at
 * the end, so the pass is linear in the graph plus the copied bodies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>
#include <onnxc/table.h>

#include "inline.h"

enum { MAXDEPTH = 64 }; /* nesting of bodies and of argument lists */

typedef struct In {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;      /* the main graph */
	onnxc_value *remap; /* main value -> the value that replaces it */
	uint32_t nremap;
	int bad;
} In;

static const char GRAD[] = "higher_order::wrap_with_set_grad_enabled";
static const char AUTOCAST[] = "higher_order::wrap_with_autocast";

static int
is_op(In *in, const onnxc_node_info *ni, const char *op)
{
	const char *s = in->h->str(in->ctx, ni->op);
	return ni->dialect == ONNXC_FX && s && strcmp(s, op) == 0;
}

/* Checks that compute nothing: bodies carry them for every tensor. */
static int
droppable(In *in, const onnxc_node_info *ni)
{
	return is_op(in, ni, "aten::_assert_tensor_metadata.default");
}

/* torch's name of an autocast dtype */
static const char *
dtype_name(int64_t dt)
{
	switch (dt) {
	case ONNXC_DT_F16: return "torch.float16";
	case ONNXC_DT_BF16: return "torch.bfloat16";
	case ONNXC_DT_F32: return "torch.float32";
	case ONNXC_DT_F64: return "torch.float64";
	default: return "another dtype";
	}
}

static int
grow(In *in)
{
	uint32_t n = in->h->value_end(in->ctx, in->g);
	if (n <= in->nremap)
		return 1;
	uint32_t cap = in->nremap ? in->nremap : 64;
	while (cap < n)
		cap *= 2;
	onnxc_value *p = realloc(in->remap, cap * sizeof *p);
	if (!p)
		return 0;
	memset(p + in->nremap, 0, (cap - in->nremap) * sizeof *p);
	in->remap = p;
	in->nremap = cap;
	return 1;
}

static onnxc_value
resolve(In *in, onnxc_value v)
{
	while (v < in->nremap && in->remap[v])
		v = in->remap[v];
	return v;
}

/* Where a body's values live in the main graph. */
typedef struct Frame {
	onnxc_graph body;
	onnxc_value *map;   /* body value -> main value */
	uint32_t nmap;
	const char *prefix; /* the call's name: inlined names get it */
	uint32_t autocast;  /* an enabled CPU autocast region's dtype, or 0 */
} Frame;

/* Argument a of graph src, as an argument of the main graph: values
 * mapped through f (or resolved when f is NULL), lists rebuilt there. */
static int
map_arg(In *in, Frame *f, onnxc_graph src, const onnxc_arg *a,
    onnxc_arg *out, int depth)
{
	*out = *a;
	if (a->kind == ONNXC_ARG_VALUE) {
		if (f) {
			if (a->ref >= f->nmap || !f->map[a->ref])
				return 0;
			out->ref = f->map[a->ref];
		} else {
			out->ref = resolve(in, a->ref);
		}
		return 1;
	}
	if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
		return 1;
	if (depth > MAXDEPTH)
		return 0;
	onnxc_arg *items = calloc(a->len + 1, sizeof *items);
	if (!items)
		return 0;
	int ok = 1;
	for (uint32_t i = 0; ok && i < a->len; i++) {
		onnxc_arg it;
		ok = in->h->list_item(in->ctx, src, a, i, &it) == ONNXC_OK &&
		    map_arg(in, f, src, &it, &items[i], depth + 1);
	}
	ok = ok && in->h->make_list(in->ctx, in->g, a->kind, items, a->len,
	    out) == ONNXC_OK;
	out->key = a->key;
	free(items);
	return ok;
}

/* Value v of graph src gets the type of value sv of graph sg. */
static int
copy_type(In *in, onnxc_value v, onnxc_graph sg, onnxc_value sv)
{
	const onnxc_host_api *h = in->h;
	onnxc_value_info vi;
	if (h->value_get(in->ctx, sg, sv, &vi) != ONNXC_OK)
		return 0;
	if (vi.kind == ONNXC_VK_TENSOR) {
		onnxc_dim d[64];
		if (vi.rank > 64)
			return 0;
		if (vi.rank > 0 && h->value_dims(in->ctx, sg, sv, d,
		    (uint32_t)vi.rank) != ONNXC_OK)
			return 0;
		return h->value_set_type(in->ctx, in->g, v, vi.dtype, vi.rank,
		    d) == ONNXC_OK;
	}
	if (vi.kind == ONNXC_VK_SYMINT || vi.kind == ONNXC_VK_SYMFLOAT ||
	    vi.kind == ONNXC_VK_SYMBOOL)
		return h->value_set_sym(in->ctx, in->g, v, vi.kind, vi.sym) ==
		    ONNXC_OK;
	return 1;
}

/* Argument i, b (of the main graph), cast to dtype dt where PyTorch's
 * autocast would: a floating tensor other than float64 of another dtype. */
static int
autocast_arg(In *in, Frame *f, onnxc_arg *b, uint32_t i, uint32_t dt,
    onnxc_node origin, const char *node)
{
	const onnxc_host_api *h = in->h;
	onnxc_value_info vi;
	onnxc_dim d[64];
	if (b->kind != ONNXC_ARG_VALUE ||
	    h->value_get(in->ctx, in->g, b->ref, &vi) != ONNXC_OK ||
	    vi.kind != ONNXC_VK_TENSOR || vi.dtype == dt ||
	    (vi.dtype != ONNXC_DT_F32 && vi.dtype != ONNXC_DT_F16 &&
	    vi.dtype != ONNXC_DT_BF16))
		return 1;
	if (vi.rank < 0 || vi.rank > 64 || (vi.rank > 0 && h->value_dims(
	    in->ctx, in->g, b->ref, d, (uint32_t)vi.rank) != ONNXC_OK))
		return 0;
	onnxc_node m = h->node_new(in->ctx, in->g, ONNXC_FX, NULL,
	    "aten::to.dtype", 1);
	onnxc_arg t = {.kind = ONNXC_ARG_DTYPE, .i = dt};
	onnxc_arg x = {.kind = ONNXC_ARG_VALUE, .ref = b->ref};
	onnxc_node_info mi;
	if (!m || h->node_push_arg(in->ctx, in->g, m, &x) != ONNXC_OK ||
	    h->node_push_arg(in->ctx, in->g, m, &t) != ONNXC_OK ||
	    h->node_get(in->ctx, in->g, m, &mi) != ONNXC_OK ||
	    h->value_set_type(in->ctx, in->g, mi.out, dt, vi.rank, d) !=
	    ONNXC_OK)
		return 0;
	char name[256];
	snprintf(name, sizeof name, "%s_%s_autocast%u", f->prefix, node, i);
	h->node_set_origin(in->ctx, in->g, m, origin);
	h->node_set_name(in->ctx, in->g, m, name);
	h->value_set_name(in->ctx, in->g, mi.out, name);
	b->ref = mi.out;
	return 1;
}

static onnxc_status inline_call(In *in, Frame *caller, onnxc_graph src,
    onnxc_node call, onnxc_node origin, onnxc_value *outs, uint32_t nout,
    int depth);

/* Copies body node n of f into the main graph. */
static int
copy_node(In *in, Frame *f, onnxc_node n, const onnxc_node_info *ni,
    onnxc_node origin)
{
	const onnxc_host_api *h = in->h;
	const char *dom = h->str(in->ctx, ni->domain);
	uint32_t dt = f->autocast ? inl_autocast_dtype(h->str(in->ctx, ni->op),
	    f->autocast) : 0;
	const char *node = h->str(in->ctx, ni->name);
	onnxc_arg *args = calloc(ni->nargs + 1, sizeof *args);
	if (!args)
		return 0;
	int ok = 1;
	for (uint32_t i = 0; ok && i < ni->nargs; i++) {
		onnxc_arg a;
		ok = h->node_arg(in->ctx, f->body, n, i, &a) == ONNXC_OK &&
		    map_arg(in, f, f->body, &a, &args[i], 0) &&
		    (!dt || autocast_arg(in, f, &args[i], i, dt, origin, node));
	}
	/* after the casts: node_push_arg adds to the node made last */
	onnxc_node m = ok ? h->node_new(in->ctx, in->g, ONNXC_FX, dom,
	    h->str(in->ctx, ni->op), ni->nout) : 0;
	ok = ok && m;
	for (uint32_t i = 0; ok && i < ni->nargs; i++)
		ok = h->node_push_arg(in->ctx, in->g, m, &args[i]) == ONNXC_OK;
	free(args);
	if (!ok)
		return 0;
	onnxc_node_info mi;
	if (h->node_get(in->ctx, in->g, m, &mi) != ONNXC_OK)
		return 0;
	char name[256];
	snprintf(name, sizeof name, "%s_%s", f->prefix,
	    h->str(in->ctx, ni->name));
	h->node_set_origin(in->ctx, in->g, m, origin);
	h->node_set_name(in->ctx, in->g, m, name);
	for (uint32_t k = 0; k < ni->nout; k++) {
		onnxc_value_info vi;
		if (h->value_get(in->ctx, f->body, ni->out + k, &vi) !=
		    ONNXC_OK || !copy_type(in, mi.out + k, f->body, ni->out + k))
			return 0;
		snprintf(name, sizeof name, "%s_%s", f->prefix,
		    h->str(in->ctx, vi.name));
		h->value_set_name(in->ctx, in->g, mi.out + k, name);
		f->map[ni->out + k] = mi.out + k;
	}
	return 1;
}

/* Body b with its placeholders bound to args, under autocast dtype cast
 * (0: none): its outputs in outs. */
static onnxc_status
inline_body(In *in, onnxc_graph b, const onnxc_value *args, uint32_t nargs,
    const char *prefix, uint32_t cast, onnxc_node origin, onnxc_value *outs,
    uint32_t nout, int depth)
{
	const onnxc_host_api *h = in->h;
	Frame f = {.body = b, .prefix = prefix, .autocast = cast};
	f.nmap = h->value_end(in->ctx, b);
	f.map = onnxc_table_calloc((size_t)f.nmap + 1, sizeof *f.map);
	if (!f.map)
		return ONNXC_NOMEM;
	onnxc_status s = ONNXC_OK;
	uint32_t nin = h->input_count(in->ctx, b);
	if (nin != nargs) {
		h->report(in->ctx, ONNXC_SEV_ERROR, in->g, origin,
		    "inline: '%s' passes %u arguments to a body that takes %u",
		    prefix, nargs, nin);
		s = ONNXC_ERROR;
	}
	for (uint32_t i = 0; s == ONNXC_OK && i < nin; i++) {
		onnxc_value p = h->input_at(in->ctx, b, i);
		if (p < f.nmap)
			f.map[p] = args[i];
	}
	uint32_t end = h->node_end(in->ctx, b);
	for (onnxc_node n = 1; s == ONNXC_OK && n < end; n++) {
		onnxc_node_info ni;
		if (h->node_get(in->ctx, b, n, &ni) != ONNXC_OK ||
		    droppable(in, &ni))
			continue;
		if (is_op(in, &ni, GRAD) || is_op(in, &ni, AUTOCAST)) {
			onnxc_value *o = calloc(ni.nout + 1, sizeof *o);
			if (!o) {
				s = ONNXC_NOMEM;
				break;
			}
			s = inline_call(in, &f, b, n, origin, o, ni.nout,
			    depth + 1);
			for (uint32_t k = 0; s == ONNXC_OK && k < ni.nout; k++)
				f.map[ni.out + k] = o[k];
			free(o);
		} else if (!copy_node(in, &f, n, &ni, origin)) {
			h->report(in->ctx, ONNXC_SEV_ERROR, in->g, origin,
			    "inline: cannot copy node '%s' of the body of '%s'",
			    h->str(in->ctx, ni.name), prefix);
			s = ONNXC_ERROR;
		}
	}
	uint32_t nret = h->output_count(in->ctx, b);
	for (uint32_t k = 0; s == ONNXC_OK && k < nout; k++) {
		onnxc_value v = k < nret ? h->output_at(in->ctx, b, k) : 0;
		outs[k] = v && v < f.nmap ? f.map[v] : 0;
	}
	free(f.map);
	return s;
}

/* Inlines call node `call` of graph src (the main graph when caller is
 * NULL): outs gets the values of its nout outputs.  origin is the main
 * graph's call that led here: diagnostics and provenance point at it. */
static onnxc_status
inline_call(In *in, Frame *caller, onnxc_graph src, onnxc_node call,
    onnxc_node origin, onnxc_value *outs, uint32_t nout, int depth)
{
	const onnxc_host_api *h = in->h;
	onnxc_node_info ni;
	if (h->node_get(in->ctx, src, call, &ni) != ONNXC_OK)
		return ONNXC_INVALID;
	const char *name = h->str(in->ctx, ni.name);
	char prefix[256];
	snprintf(prefix, sizeof prefix, "%s%s%s", caller ? caller->prefix : "",
	    caller ? "_" : "", name);
	if (depth > MAXDEPTH) {
		h->report(in->ctx, ONNXC_SEV_ERROR, in->g, origin,
		    "inline: bodies nested more than %d deep", MAXDEPTH);
		return ONNXC_ERROR;
	}
	int autocast = is_op(in, &ni, AUTOCAST);
	uint32_t bodyat = autocast ? 4 : 1;
	onnxc_arg a;
	/* grad-mode bodies keep the autocast state they are called in */
	uint32_t cast = caller ? caller->autocast : 0;
	if (autocast) {
		onnxc_arg dev, dt;
		if (h->node_arg(in->ctx, src, call, 2, &a) != ONNXC_OK ||
		    (a.kind != ONNXC_ARG_BOOL && a.kind != ONNXC_ARG_INT))
			a.i = 1; /* not a literal: assume the worst */
		int okd = h->node_arg(in->ctx, src, call, 0, &dev) ==
		    ONNXC_OK && dev.kind == ONNXC_ARG_STR;
		int okt = h->node_arg(in->ctx, src, call, 1, &dt) ==
		    ONNXC_OK && dt.kind == ONNXC_ARG_DTYPE;
		const char *d = okd ? h->str(in->ctx, dev.ref) : NULL;
		cast = 0;
		if (a.i && (!d || strcmp(d, "cpu") || !okt ||
		    (dt.i != ONNXC_DT_BF16 && dt.i != ONNXC_DT_F16))) {
			h->report(in->ctx, ONNXC_SEV_ERROR, in->g, origin,
			    "autocast region '%s' (%s, %s) is enabled: onnxc "
			    "applies PyTorch's autocast policy for the cpu "
			    "device in torch.bfloat16 or torch.float16 only; "
			    "export the model with autocast disabled or cast "
			    "explicitly", prefix, d ? d : "?",
			    okt ? dtype_name(dt.i) : "?");
			return ONNXC_ERROR;
		}
		if (a.i)
			cast = (uint32_t)dt.i;
	}
	if (h->node_arg(in->ctx, src, call, bodyat, &a) != ONNXC_OK ||
	    a.kind != ONNXC_ARG_GRAPH || ni.npos < bodyat + 1) {
		h->report(in->ctx, ONNXC_SEV_ERROR, in->g, origin,
		    "inline: '%s' has no body as argument %u", prefix, bodyat);
		return ONNXC_ERROR;
	}
	onnxc_graph body = a.ref;
	uint32_t nargs = ni.npos - bodyat - 1;
	onnxc_value *args = calloc(nargs + 1, sizeof *args);
	if (!args)
		return ONNXC_NOMEM;
	onnxc_status s = ONNXC_OK;
	for (uint32_t i = 0; i < nargs; i++) {
		onnxc_arg x, y;
		if (h->node_arg(in->ctx, src, call, bodyat + 1 + i, &x) !=
		    ONNXC_OK || x.kind != ONNXC_ARG_VALUE ||
		    !map_arg(in, caller, src, &x, &y, 0)) {
			h->report(in->ctx, ONNXC_SEV_ERROR, in->g, origin,
			    "inline: argument %u of '%s' is not a value", i,
			    prefix);
			s = ONNXC_ERROR;
			break;
		}
		args[i] = y.ref;
	}
	if (s == ONNXC_OK)
		s = inline_body(in, body, args, nargs, prefix, cast, origin,
		    outs, nout, depth);
	free(args);
	return s;
}

/* Every argument and output that names a replaced value names its
 * replacement. */
static onnxc_status
rewire(In *in)
{
	const onnxc_host_api *h = in->h;
	uint32_t end = h->node_end(in->ctx, in->g);
	for (onnxc_node n = 1; n < end; n++) {
		onnxc_node_info ni;
		if (h->node_get(in->ctx, in->g, n, &ni) != ONNXC_OK)
			continue;
		for (uint32_t i = 0; i < ni.nargs; i++) {
			onnxc_arg a, b;
			if (h->node_arg(in->ctx, in->g, n, i, &a) != ONNXC_OK)
				return ONNXC_INVALID;
			int list = a.kind == ONNXC_ARG_LIST ||
			    a.kind == ONNXC_ARG_TUPLE;
			if (a.kind == ONNXC_ARG_VALUE &&
			    resolve(in, a.ref) == a.ref)
				continue;
			if (a.kind != ONNXC_ARG_VALUE && !list)
				continue;
			if (!map_arg(in, NULL, in->g, &a, &b, 0) ||
			    h->node_set_arg(in->ctx, in->g, n, i, &b) != ONNXC_OK)
				return ONNXC_INVALID;
		}
	}
	uint32_t nout = h->output_count(in->ctx, in->g);
	for (uint32_t i = 0; i < nout; i++) {
		onnxc_value v = h->output_at(in->ctx, in->g, i);
		if (resolve(in, v) != v && h->replace_uses(in->ctx, in->g, v,
		    resolve(in, v)) != ONNXC_OK)
			return ONNXC_INVALID;
	}
	return ONNXC_OK;
}

/* onnxc_no_op_concerns: a call to inline (or an op the host cannot
 * name) */
static int
call_op(void *arg, onnxc_str op)
{
	const In *in = arg;
	const char *s = in->h->str(in->ctx, op);
	return !s || !strcmp(s, GRAD) || !strcmp(s, AUTOCAST) ||
	    inl_is_predispatch(s);
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	In in = {.ctx = ctx, .h = host, .g = host->graph(ctx)};
	if (onnxc_no_op_concerns(ctx, host, in.g, call_op, &in))
		return ONNXC_OK;
	uint32_t end = host->node_end(ctx, in.g);
	onnxc_status s = ONNXC_OK;
	int any = 0;
	for (onnxc_node n = 1; s == ONNXC_OK && n < end; n++) {
		onnxc_node_info ni;
		if (host->node_get(ctx, in.g, n, &ni) != ONNXC_OK ||
		    (!is_op(&in, &ni, GRAD) && !is_op(&in, &ni, AUTOCAST)))
			continue;
		onnxc_value *o = calloc(ni.nout + 1, sizeof *o);
		if (!o || !grow(&in)) {
			free(o);
			s = ONNXC_NOMEM;
			break;
		}
		s = inline_call(&in, NULL, in.g, n, n, o, ni.nout, 0);
		if (s == ONNXC_OK && !grow(&in))
			s = ONNXC_NOMEM;
		for (uint32_t k = 0; s == ONNXC_OK && k < ni.nout; k++) {
			if (!o[k] && host->value_uses(ctx, in.g, ni.out + k)) {
				host->report(ctx, ONNXC_SEV_ERROR, in.g, n,
				    "inline: output %u of '%s' is read but its "
				    "body returns no value there", k,
				    host->str(ctx, ni.name));
				s = ONNXC_ERROR;
			}
			in.remap[ni.out + k] = o[k];
		}
		free(o);
		if (s == ONNXC_OK)
			s = host->node_erase(ctx, in.g, n);
		any = 1;
	}
	if (s == ONNXC_OK && any)
		s = rewire(&in);
	if (s == ONNXC_OK)  /* on the bodies inlined, too */
		s = inl_predispatch(ctx, host, in.g);
	if (s == ONNXC_NOMEM)
		host->report(ctx, ONNXC_SEV_ERROR, in.g, 0,
		    "inline: out of memory");
	else if (s == ONNXC_INVALID)
		host->report(ctx, ONNXC_SEV_ERROR, in.g, 0,
		    "inline: the host refused a change to the graph");
	free(in.remap);
	return s == ONNXC_OK ? ONNXC_OK : ONNXC_ERROR;
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "inline",
	.summary = "inline the bodies of wrap_with_set_grad_enabled and "
	    "wrap_with_autocast (cpu autocast policy), drop vmap's helpers",
	.run = run,
	.needs = ONNXC_PROP_FX,
	.provides = ONNXC_PROP_NO_HOP,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(inline, "inline", "1.0", init, NULL);
