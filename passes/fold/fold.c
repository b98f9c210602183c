/* fold.c - pass "fold": evaluates cheap, exact computations on constants.
 *
 * Requires: the current graph in program order, FX nodes as parsed or ONNX
 * nodes after "lower".  Option max-size: the most elements a folded result
 * may have.
 * Provides, on the FX graph: nodes whose tensor operands are all constants
 * (bound parameters, buffers and lifted constants, or results folded
 * before) are evaluated and erased; the results that something else still
 * uses become constant graph inputs named after the node.  Only results
 * that need them get inputs: a chain permute -> view makes one.  A copy
 * of a constant input (clone, detach, lift_fresh_copy...) is replaced by
 * that input itself.  SymInt arithmetic on numbers (and sizes that the
 * annotations fix) gives its result as a number on the value (its
 * expression), which the lowering turns into a constant.
 * On the ONNX graph: Identity, Cast, Reshape, Unsqueeze, Squeeze,
 * Transpose, Concat, Gather, Expand, Slice, ScatterElements, Where, Range,
 * comparisons, logic, Min, Max, Abs, Neg, Log and + - * / of constants (Constant nodes,
 * initializers), and Shape of a value whose shape is static, become
 * Constant nodes; the nodes that fed them are left to dce.
 *
 * What is folded is computed exactly as PyTorch and ONNX Runtime do:
 * data movement, casts between f32/f64/i64/i32/bool, + - * / on operands
 * of one dtype (f32, f64; i64 without / on the FX graph), comparisons and
 * selections; and, on the ONNX graph, Log correctly rounded (ONNX
 * Runtime's is within an ulp of it).  Nothing else.
 * Never folded: nodes reading user inputs' data, results that are graph
 * outputs (their names are the model's interface), results bigger than
 * max-size, and under --training anything computed from parameters or
 * buffers: they change while training.
 *
 * Subgraphs (higher-order-op bodies, If/Loop/Scan bodies) are left
 * alone; an ONNX node's captures (what its subgraphs read) count as uses,
 * so a folded value they read is kept or replaced like any other.
 *
 * One forward sweep; linear in the graph and the folded data.
 *
 * The files: fold.c (this one) reads constants and arguments through the
 * host, counts uses, points nodes at folded values and runs the sweep;
 * fx.c and onnx.c evaluate the nodes of each dialect; tensor.c holds the
 * tensor arithmetic and layout they share; fold.h the shared state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/table.h>

#include "fold.h"

enum { MAXDEPTH = 64 };

/* -------------------------------------------------------- host access */

static int
tensor_of(Fold *f, onnxc_tensor t, Ten *out)
{
	onnxc_tensor_info ti;
	if (f->h->tensor_get(f->ctx, t, &ti) != ONNXC_OK)
		return 0;
	if (ti.rank < 0 || ti.rank > MAXRANK || !fold_elsize(ti.dtype))
		return 0;
	*out = (Ten){.dt = ti.dtype, .rank = ti.rank, .data = ti.data,
		.src = t};
	for (int i = 0; i < ti.rank; i++)
		out->dims[i] = ti.dims[i];
	out->numel = fold_numel(ti.rank, out->dims);
	return out->numel != UINT64_MAX &&
	    ti.nbytes == out->numel * fold_elsize(ti.dtype) &&
	    (ti.data || !ti.nbytes);
}

/* Keyed argument (ONNX attribute, FX kwarg) named key. */
int
fold_keyed(Fold *f, onnxc_node n, const onnxc_node_info *ni, onnxc_str key,
    onnxc_arg *a)
{
	for (uint32_t i = ni->npos; i < ni->nargs; i++)
		if (f->h->node_arg(f->ctx, f->g, n, i, a) == ONNXC_OK &&
		    a->key == key)
			return 1;
	return 0;
}

/* Positional pos, else keyword key; 0 when absent. */
int
fold_arg_at(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, onnxc_arg *a)
{
	if (pos >= 0 && (uint32_t)pos < ni->npos)
		return f->h->node_arg(f->ctx, f->g, n, (uint32_t)pos, a) ==
		    ONNXC_OK;
	return key && fold_keyed(f, n, ni, f->h->intern(f->ctx, key), a);
}

/* The constant behind value v: a folded result, a bound weight (not a
 * parameter or buffer under --training), or an ONNX Constant. */
int
fold_constant(Fold *f, onnxc_value v, Ten *out)
{
	onnxc_value_info vi;
	if (v < f->nvals && f->known[v]) {
		*out = *f->known[v];
		out->own = NULL;
		return 1;
	}
	if (f->h->value_get(f->ctx, f->g, v, &vi) != ONNXC_OK)
		return 0;
	if (!vi.def) {
		if (!vi.init || vi.role == ONNXC_ROLE_USER_INPUT)
			return 0;
		if (f->training && vi.role != ONNXC_ROLE_CONST)
			return 0;
		if (!tensor_of(f, vi.init, out))
			return 0;
		out->same = v;
		return 1;
	}
	onnxc_node_info ni;
	onnxc_arg a;
	if (f->h->node_get(f->ctx, f->g, vi.def, &ni) != ONNXC_OK ||
	    ni.dialect != ONNXC_ONNX || ni.op != f->s_constant ||
	    !fold_keyed(f, vi.def, &ni, f->s_value, &a) ||
	    a.kind != ONNXC_ARG_TENSOR)
		return 0;
	return tensor_of(f, a.ref, out);
}

/* A literal int, or a SymInt the annotations fix (not a user input). */
int
fold_as_int(Fold *f, const onnxc_arg *a, int64_t *out)
{
	onnxc_value_info vi;
	onnxc_expr_info e;
	if (a->kind == ONNXC_ARG_INT || a->kind == ONNXC_ARG_BOOL) {
		*out = a->i;
		return 1;
	}
	if (a->kind != ONNXC_ARG_VALUE ||
	    f->h->value_get(f->ctx, f->g, a->ref, &vi) != ONNXC_OK ||
	    vi.kind != ONNXC_VK_SYMINT || vi.role == ONNXC_ROLE_USER_INPUT ||
	    !vi.sym || f->h->expr_get(f->ctx, vi.sym, &e) != ONNXC_OK ||
	    e.kind != ONNXC_E_INT)
		return 0;
	*out = e.n;
	return 1;
}

/* A static int list (a lone int counts as [int]) from an argument, or
 * from a 1-D i64 constant; its length, or -1. */
int
fold_ints(Fold *f, const onnxc_arg *a, int64_t *out, int cap)
{
	if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
		return cap >= 1 && fold_as_int(f, a, out) ? 1 : -1;
	if (a->len > (uint32_t)cap)
		return -1;
	for (uint32_t i = 0; i < a->len; i++) {
		onnxc_arg it;
		if (f->h->list_item(f->ctx, f->g, a, i, &it) != ONNXC_OK ||
		    !fold_as_int(f, &it, &out[i]))
			return -1;
	}
	return (int)a->len;
}

/* Does r agree with v's annotation, where there is one? */
int
fold_fits(Fold *f, onnxc_value v, const Ten *r)
{
	onnxc_value_info vi;
	onnxc_dim d[MAXRANK];
	if (f->h->value_get(f->ctx, f->g, v, &vi) != ONNXC_OK)
		return 0;
	if (vi.kind == ONNXC_VK_UNKNOWN)
		return 1;
	if (vi.kind != ONNXC_VK_TENSOR || (vi.dtype && vi.dtype != r->dt))
		return 0;
	if (vi.rank < 0)
		return 1;
	if (vi.rank != r->rank || (vi.rank > 0 &&
	    f->h->value_dims(f->ctx, f->g, v, d, MAXRANK) != ONNXC_OK))
		return 0;
	for (int i = 0; i < r->rank; i++)
		if (d[i].e || d[i].n != r->dims[i])
			return 0;
	return 1;
}

/* ----------------------------------------------------------- use counts */

static onnxc_status
count(Fold *f, uint32_t *uses, const onnxc_arg *a, int depth)
{
	if (a->kind == ONNXC_ARG_VALUE) {
		if (a->ref < f->nvals)
			uses[a->ref]++;
		return ONNXC_OK;
	}
	if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
		return ONNXC_OK;
	if (depth > MAXDEPTH)
		return ONNXC_INVALID;
	for (uint32_t i = 0; i < a->len; i++) {
		onnxc_arg it;
		onnxc_status s = f->h->list_item(f->ctx, f->g, a, i, &it);
		if (s == ONNXC_OK)
			s = count(f, uses, &it, depth + 1);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

onnxc_status
fold_count_node(Fold *f, uint32_t *uses, onnxc_node n,
    const onnxc_node_info *ni)
{
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a;
		onnxc_status s = f->h->node_arg(f->ctx, f->g, n, i, &a);
		if (s == ONNXC_OK)
			s = count(f, uses, &a, 0);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

/* ------------------------------------------------------------ rewriting
 * A replaced value is never a graph output (those are not folded), and
 * its users come after it: pointing each node's arguments at the
 * replacements when the sweep reaches it costs one look per argument,
 * where replace_uses per fold could cost a look at the whole graph. */

static onnxc_value
canon(const Fold *f, onnxc_value v)
{
	return v < f->nvals && f->repl[v] ? f->repl[v] : v;
}

/* canon for onnxc_arg_map */
static onnxc_value
canon_of(const void *f, onnxc_value v)
{
	return canon(f, v);
}

/* Point node n's arguments at the replacements; args: its first nread
 * arguments, read with it (node_read), the rest are asked for. */
static onnxc_status
rewrite_read(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    const onnxc_arg *args, uint32_t nread)
{
	for (uint32_t i = 0; f->nrepl && i < ni->nargs; i++) {
		onnxc_arg a, b;
		int changed = 0;
		onnxc_status s = ONNXC_OK;
		if (i < nread)
			a = args[i];
		else
			s = f->h->node_arg(f->ctx, f->g, n, i, &a);
		if (s == ONNXC_OK)
			s = onnxc_arg_map(f->ctx, f->h, f->g, &a, canon_of, f,
			    &b, &changed, 0);
		if (s == ONNXC_OK && changed)
			s = f->h->node_set_arg(f->ctx, f->g, n, i, &b);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

static onnxc_status
rewrite(Fold *f, onnxc_node n, const onnxc_node_info *ni)
{
	return rewrite_read(f, n, ni, NULL, 0);
}

void
fold_replace(Fold *f, onnxc_value from, onnxc_value to)
{
	if (from < f->nvals) {
		f->repl[from] = to;
		f->nrepl++;
	}
}

/* ------------------------------------------------------- FX results */

/* Results still used by unfolded nodes or outputs become constant inputs
 * (or the input they copy); every folded node goes. */
static onnxc_status
materialize(Fold *f)
{
	const onnxc_host_api *h = f->h;
	for (onnxc_node n = 1; n < f->end; n++) {
		onnxc_node_info ni;
		if (!f->folded[n])
			continue;
		if (h->node_get(f->ctx, f->g, n, &ni) != ONNXC_OK)
			return ONNXC_ERROR;
		onnxc_value v = ni.out, in;
		Ten *r = f->known[v], *first = r->twin ? r->twin : r;
		/* the host's count is the one the sweep began with: only FX
		 * nodes fold, nothing of an FX graph is erased before this
		 * loop, and v's users all come after n */
		uint32_t uses = f->hostuses ? h->value_uses(f->ctx, f->g, v)
		    : f->uses[v];
		if (uses > f->folduses[v]) {
			/* an equal result made its input already: the host
			 * would find that one again (constant_input merges
			 * equal constants), without the copy */
			in = r->same ? r->same : first->made;
			if (!in) {
				onnxc_value_info vi;
				const char *name = h->str(f->ctx, ni.name);
				if ((!name || !*name) && h->value_get(f->ctx,
				    f->g, v, &vi) == ONNXC_OK)
					name = h->str(f->ctx, vi.name);
				/* the dead value gives its name up to the
				 * input that replaces it */
				char nm[256], dead[320];
				snprintf(nm, sizeof nm, "%s", name && *name ?
				    name : "folded");
				snprintf(dead, sizeof dead, "%s~folded", nm);
				if (h->value_set_name(f->ctx, f->g, v, dead) !=
				    ONNXC_OK)
					return ONNXC_ERROR;
				onnxc_tensor t = h->tensor_new(f->ctx, r->dt,
				    r->rank, r->dims, r->data);
				in = t ? h->constant_input(f->ctx, f->g, nm, t)
				    : 0;
				if (!in)
					return ONNXC_ERROR;
				first->made = in;
			}
			fold_replace(f, v, in);
		}
		if (h->node_erase(f->ctx, f->g, n) != ONNXC_OK)
			return ONNXC_ERROR;
	}
	/* every node's arguments again, read with the node (a graph has
	 * millions of nodes, most with few arguments) */
	enum { NREAD = 8 };
	for (onnxc_node n = 1; f->nrepl && n < f->end; n++) {
		onnxc_node_info ni;
		onnxc_arg args[NREAD];
		if (onnxc_read_node(f->ctx, h, f->g, n, &ni, args, NREAD) ==
		    ONNXC_OK && rewrite_read(f, n, &ni, args, ni.nargs < NREAD
		    ? ni.nargs : NREAD) != ONNXC_OK)
			return ONNXC_ERROR;
	}
	return ONNXC_OK;
}

/* ----------------------------------------------------------- the pass */

static onnxc_status
sweep(Fold *f)
{
	const onnxc_host_api *h = f->h;
	FoldFxOp fxop[FOLD_NFXOPS];
	onnxc_node_info ni;
	fold_fx_intern(f, fxop);
	for (onnxc_node n = 1; !f->hostuses && n < f->end; n++)
		if (h->node_get(f->ctx, f->g, n, &ni) == ONNXC_OK &&
		    fold_count_node(f, f->uses, n, &ni) != ONNXC_OK)
			return ONNXC_ERROR;
	uint32_t nout = h->output_count(f->ctx, f->g);
	for (uint32_t i = 0; i < nout; i++) {
		onnxc_value v = h->output_at(f->ctx, f->g, i);
		if (v < f->nvals) {
			f->uses[v]++;
			f->isout[v] = 1;
		}
	}
	for (onnxc_node n = 1; n < f->end; n++) {
		if (h->node_get(f->ctx, f->g, n, &ni) != ONNXC_OK)
			continue; /* erased */
		if (rewrite(f, n, &ni) != ONNXC_OK) {
			h->report(f->ctx, ONNXC_SEV_ERROR, f->g, n,
			    "fold: cannot point this node at folded values");
			return ONNXC_ERROR;
		}
		onnxc_status s = ONNXC_OK;
		if (ni.dialect == ONNXC_FX)
			s = fold_fx_node(f, n, &ni, fxop);
		else if (ni.dialect == ONNXC_ONNX)
			s = fold_onnx_node(f, n, &ni);
		if (s != ONNXC_OK) {
			h->report(f->ctx, ONNXC_SEV_ERROR, f->g, n, "fold: %s",
			    f->hostfail ? "out of memory"
			    : "the host refused a change to this node");
			return ONNXC_ERROR;
		}
	}
	if (materialize(f) != ONNXC_OK) {
		h->report(f->ctx, ONNXC_SEV_ERROR, f->g, 0,
		    "fold: the host refused to replace a folded node");
		return ONNXC_ERROR;
	}
	return ONNXC_OK;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	Fold f = {.ctx = ctx, .h = host, .g = host->graph(ctx),
	    .maxsize = 1024};
	if (host->opt_int(ctx, "max-size", &f.maxsize) != ONNXC_OK ||
	    f.maxsize < 0) {
		host->report(ctx, ONNXC_SEV_ERROR, f.g, 0,
		    "fold: max-size must be a number of elements (0 or more)");
		return ONNXC_ERROR;
	}
	f.training = host->training(ctx);
	f.hostuses = ONNXC_HOST_HAS(host, graph_ops);
	f.s_constant = host->intern(ctx, "Constant");
	f.s_value = host->intern(ctx, "value");
	f.nvals = host->value_end(ctx, f.g);
	f.end = host->node_end(ctx, f.g);
	size_t nv = (size_t)f.nvals + 1;
	f.known = onnxc_table_calloc(nv, sizeof *f.known);
	f.uses = onnxc_table_calloc(nv, sizeof *f.uses);
	f.folduses = onnxc_table_calloc(nv, sizeof *f.folduses);
	f.isout = onnxc_table_calloc(nv, 1);
	f.folded = onnxc_table_calloc((size_t)f.end + 1, 1);
	f.repl = onnxc_table_calloc(nv, sizeof *f.repl);
	onnxc_status s = ONNXC_ERROR;
	if (f.known && f.uses && f.folduses && f.isout && f.folded && f.repl)
		s = sweep(&f);
	else
		host->report(ctx, ONNXC_SEV_ERROR, f.g, 0,
		    "fold: out of memory");
	for (uint32_t v = 0; f.known && v < f.nvals; v++)
		if (f.known[v]) {
			free(f.known[v]->own);
			free(f.known[v]);
		}
	free(f.known);
	free(f.results);
	free(f.uses);
	free(f.folduses);
	free(f.isout);
	free(f.folded);
	free(f.repl);
	return s;
}

static const onnxc_option options[] = {
	{"max-size", ONNXC_OPT_INT, "1024",
	    "largest number of elements a folded result may have"},
};

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "fold",
	.summary = "evaluate cheap computations on constants",
	.options = options,
	.noptions = sizeof options / sizeof *options,
	.run = run,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(fold, "fold", "1.0", init, NULL);
