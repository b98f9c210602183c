/* lower.c - pass "lower": FX graph -> ONNX graph, one rule per FX op.
 * Requires: a verified FX graph.  Provides: a new graph of D_ONNX nodes
 * whose inputs, initializers and outputs follow the graph signature.
 *
 * A built-in plugin: registered through the same descriptor as plugin
 * modules (ONNXC_PLUGIN_STATIC names it onnxc_plugin_lower).  Lowerings
 * registered by plugins are tried first, in registration order; one may
 * decline a node, which then goes to the next one and finally to the
 * rule tables below. */
#define ONNXC_PLUGIN_STATIC
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../plugins/pl.h"
#include "check.h"
#include "lower.h"
#include "lower_fft.h"

/* The rows of ir/ops.def with a rule, by family (lower_rows.h). */
const LwFamily lw_families[] = {
#define FAMILY(f) {#f, lw_rules_##f},
#include "../ir/families.def"
#undef FAMILY
	{NULL, NULL},
};

/* Rule lookup by the op's StrId; the array is built once per lowering,
 * in scratch memory. */
typedef struct LwRegistry {
	LowerFn *fn;
	uint32_t n;
} Registry;

static void
registry_build(Module *m, Registry *r)
{
	for (const LwFamily *f = lw_families; f->name; f++)
		for (const LowerRule *x = f->rules; x->op; x++)
			ir_intern(m, x->op);
	r->n = m->nstrs;
	r->fn = arena_array(m->scratch, r->n, sizeof *r->fn);
	for (const LwFamily *f = lw_families; f->name; f++)
		for (const LowerRule *x = f->rules; x->op; x++) {
			StrId s = ir_intern(m, x->op);
			if (!r->fn[s])
				r->fn[s] = x->fn;
		}
}

static LowerFn
registry_find(Module *m, const Registry *r, StrId op)
{
	(void)m;
	return op < r->n ? r->fn[op] : NULL;
}

bool
lw_has_rule(const char *op)
{
	const IrOp *row = ir_op_find(op);
	return row && strcmp(row->family, "none") != 0;
}

/* -------------------------------------------------------------- the pass */

static ValId
lower_input(Lower *L, ValId sv)
{
	const Value *s = ir_val(L->src, sv);
	StrId name = s->name;
	if (s->role == ROLE_PARAM || s->role == ROLE_BUFFER ||
	    s->role == ROLE_CONST)
		name = s->target ? s->target : s->name;
	if (s->role == ROLE_TOKEN)
		return 0; /* an effect token (f32[0]) orders effects only */
	if (s->kind == VK_TENSOR) {
		ValId d = ir_value(L->dst, name);
		ir_set_tensor(L->dst, d, (DType)s->dtype, s->rank,
		    ir_dims(L->src, sv));
		Value *dv = ir_val(L->dst, d);
		dv->role = s->role;
		dv->persist = s->persist;
		dv->target = s->target;
		dv->init = s->init;
		dv->orig = name != s->name ? s->name : s->orig;
		return d;
	}
	if (s->kind == VK_SYMINT || s->kind == VK_SYMFLOAT ||
	    s->kind == VK_SYMBOOL) {
		ValId d = ir_value(L->dst, name);
		ir_set_tensor(L->dst, d, s->kind == VK_SYMINT ? DT_I64
		    : s->kind == VK_SYMFLOAT ? DT_F64 : DT_BOOL, 0, NULL);
		ir_val(L->dst, d)->role = s->role;
		return d;
	}
	return 0; /* constants, objects, tokens: no ONNX input */
}

/* Every op without a rule, each op once with its first place, in graph
 * g and the bodies of its higher-order ops. */
static int
check_graph(Lower *L, const Graph *g, uint8_t *seen, uint32_t nstrs,
    int depth)
{
	int bad = 0;
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = ir_nodep(g, n);
		for (uint32_t i = 0; i < p->nargs; i++) {
			const Arg *a = ir_arg(g, n, i);
			if (a->kind != A_GRAPH)
				continue;
			if (depth >= LW_MAXNEST) {
				ir_error(L->m, p->loc, "control flow nested "
				    "more than %d deep", LW_MAXNEST);
				return 1;
			}
			bad += check_graph(L, ir_graph(L->m, a->u.g), seen,
			    nstrs, depth + 1);
		}
		if ((lwf_touches_complex(g, n) ? lwf_complex_rule(L->m, p->op)
		    : registry_find(L->m, L->reg, p->op)) || (L->ctx &&
		    pl_lowering_applies(L->ctx->reg, ir_str(L->m, p->op),
		    L->opset)))
			continue;
		bad++;
		if (p->op < nstrs && seen[p->op])
			continue;
		if (p->op < nstrs)
			seen[p->op] = 1;
		if (lwf_touches_complex(g, n))
			ir_error(L->m, p->loc, "unsupported operator '%s' on "
			    "complex values", ir_str(L->m, p->op));
		else
			ir_error(L->m, p->loc, "unsupported operator '%s'",
			    ir_str(L->m, p->op));
		ir_note_origin(L->m, p);
		if (ir_op_of_inplace(ir_str(L->m, p->op)))
			ir_note(L->m, p->loc, "in-place ops are rewritten by the "
			    "functionalize pass (in every -O preset); add it to "
			    "--passes before lower");
		else
			ir_note(L->m, (Loc){0, 0}, "onnxc has no lowering for "
			    "it: 'onnxc --list-lowerings' lists those it has; "
			    "a translation plugin (--load-plugin, README "
			    "\"Plugins\") can add one, or export the program "
			    "decomposed (ep.run_decompositions())");
	}
	return bad;
}

static int
check_rules(Lower *L)
{
	ArenaMark mk = arena_mark(L->m->scratch);
	uint8_t *seen = arena_alloc(L->m->scratch, L->m->nstrs + 1);
	int bad = check_graph(L, L->src, seen, L->m->nstrs, 0);
	arena_release(L->m->scratch, mk);
	return bad ? -1 : 0;
}

/* ONNX wants every graph output to be a distinct value made by a node:
 * an input, initializer or repeated output goes through an Identity,
 * named "<name>_out<k>".  isout marks the values already made outputs. */
static ValId
output_value(Lower *L, ValId d, uint8_t *isout)
{
	const Graph *g = L->dst;
	if (ir_val(g, d)->def != 0 && !isout[d]) {
		isout[d] = 1;
		return d;
	}
	char buf[300];
	StrId name = ir_val(g, d)->name;
	Value keep = *ir_val(g, d);
	L->node = 0;
	NodeId n = lw_emit(L, "Identity", 1, &d, 1);
	ValId r = lw_res(L, n, 0);
	Value *rv = ir_val(L->dst, r);
	rv->kind = keep.kind;
	rv->dtype = keep.dtype;
	rv->rank = keep.rank;
	rv->dims = keep.dims;
	snprintf(buf, sizeof buf, "%.200s_out%u", ir_str(L->m, name),
	    g->noutputs);
	rv->name = ir_intern(L->m, buf);
	return r;
}

/* A SymFloat result (a Python float the program returns) is computed in
 * double and given as float32, the dtype PyTorch's exporter gives it:
 * the Cast takes the name, the double keeps it with "_f64" (an input
 * keeps its own; the Cast gets "_f32"). */
static ValId
symfloat_out(Lower *L, ValId d)
{
	char buf[300];
	StrId name = ir_val(L->dst, d)->name;
	L->node = 0;
	ValId r = lw_cast(L, d, DT_F32);
	if (r == d)
		return d;
	if (!ir_val(L->dst, d)->def) {   /* an input keeps its name */
		snprintf(buf, sizeof buf, "%.200s_f32", ir_str(L->m, name));
		ir_val(L->dst, r)->name = ir_intern(L->m, buf);
		return r;
	}
	snprintf(buf, sizeof buf, "%.200s_f64", ir_str(L->m, name));
	ir_val(L->dst, d)->name = ir_intern(L->m, buf);
	ir_val(L->dst, r)->name = name;
	return r;
}

/* What plugin lowerings may do with the node (host_lower.c calls these). */
static NodeId
site_emit(void *self, const char *domain, const char *op, int nin,
    const ValId *in, int nout)
{
	return lw_emit_domain(self, domain, op, nin, in, nout);
}

static void
site_settype(void *self, ValId v, DType dt)
{
	lw_settype(self, v, dt);
}

static ValId
site_const(void *self, DType dt, int rank, const int64_t *dims,
    const void *data)
{
	return lw_const(self, dt, rank, dims, data);
}

static void
site_bind(void *self, int k, ValId v)
{
	lw_bind(self, k, v);
}

static const PlLowerOps site_ops = {
	site_emit, site_settype, site_const, site_bind,
};

/* The plugin lowerings of the node: 0, 1 (none lowered it) or -1. */
static int
try_plugins(Lower *L, onnxc_ctx *c)
{
	PlLowerSite s = {.src = L->src, .node = L->node, .map = L->map,
	    .dst = L->dst, .dstid = L->dstid, .opset = L->opset,
	    .ops = &site_ops, .self = L};
	return pl_lower_node(c, &s);
}

/* Same type, as far as ONNX can tell. */
static bool
same_type(const Graph *a, ValId x, const Graph *b, ValId y)
{
	const Value *p = ir_val(a, x), *q = ir_val(b, y);
	if (p->kind != q->kind || p->dtype != q->dtype || p->rank != q->rank)
		return false;
	for (int32_t k = 0; k < p->rank; k++) {
		Dim c = a->dims[p->dims + (uint32_t)k];
		Dim d = b->dims[q->dims + (uint32_t)k];
		if (c.e != d.e || (!c.e && c.n != d.n))
			return false;
	}
	return true;
}

/* Graph inputs.  Placeholders naming the same target (tied weights) are
 * one ONNX input: its name is the target, which must stay unique.
 * Returns 0, or -1 after reporting. */
static int
lower_inputs(Lower *L)
{
	Module *m = L->m;
	uint32_t nstrs = m->nstrs;
	int rc = 0;
	ArenaMark mk = arena_mark(m->scratch);
	/* target -> FX input */
	ValId *first = arena_array(m->scratch, nstrs + 1, sizeof *first);
	for (uint32_t i = 0; i < L->src->ninputs; i++) {
		ValId sv = L->src->inputs[i];
		const Value *s = ir_val(L->src, sv);
		bool weight = s->role == ROLE_PARAM || s->role == ROLE_BUFFER ||
		    s->role == ROLE_CONST;
		StrId t = weight && s->target < nstrs ? s->target : 0;
		if (t && first[t]) {
			ValId f = first[t];
			if (!same_type(L->src, sv, L->src, f)) {
				ir_error(m, (Loc){0}, "placeholders '%s' and "
				    "'%s' both stand for '%s' but their types "
				    "differ", ir_str(m, ir_val(L->src, f)->name),
				    ir_str(m, s->name), ir_str(m, t));
				rc = -1;
			}
			L->map[sv] = L->map[f];
			continue;
		}
		ValId d = lower_input(L, sv);
		if (!d)
			continue;
		L->map[sv] = d;
		ir_add_input(L->dst, d);
		if (t)
			first[t] = sv;
	}
	arena_release(m->scratch, mk);
	return rc;
}

/* Weights nothing reads (a parameter fold replaced by its folded copy, a
 * buffer the model never uses) stay out of the model, except for training,
 * where every parameter and buffer is state the trainer owns. */
static void
drop_unused_initializers(Module *m, Graph *g)
{
	ArenaMark mk = arena_mark(m->scratch);
	uint8_t *used = arena_alloc(m->scratch, g->nvals + 1);
	for (uint32_t k = 0; k < g->nargs; k++)
		if (g->args[k].kind == A_VAL)
			used[g->args[k].u.v] = 1;
	for (uint32_t k = 0; k < g->nitems; k++)
		if (g->items[k].kind == A_VAL)
			used[g->items[k].u.v] = 1;
	for (uint32_t k = 0; k < g->noutputs; k++)
		used[g->outputs[k]] = 1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		if (g->vals[v].init && !used[v])
			continue;
		g->inputs[n++] = v;
	}
	g->ninputs = n;
	arena_release(m->scratch, mk);
}

/* Whether every output of FX node n is a tensor of static sizes with no
 * element, or a tuple part nothing takes (no annotation). */
static bool
outputs_empty(const Graph *g, NodeId n)
{
	const Node *nd = ir_nodep(g, n);
	uint32_t tensors = 0;
	for (uint32_t k = 0; k < nd->nout; k++) {
		const Value *v = ir_val(g, nd->out + k);
		const Dim *d = ir_dims(g, nd->out + k);
		bool zero = false;
		if (v->kind == VK_UNKNOWN)
			continue;
		if (v->kind != VK_TENSOR || v->rank < 1 || !v->dtype)
			return false;
		tensors++;
		for (int32_t j = 0; j < v->rank; j++) {
			if (d[j].e)
				return false;
			zero |= d[j].n == 0;
		}
		if (!zero)
			return false;
	}
	return tensors > 0;
}

bool
lw_outputs_empty(Lower *L)
{
	return outputs_empty(L->src, L->node);
}

/* A node whose outputs hold no element, once its rule has checked it,
 * becomes empty constants: ONNX Runtime's kernels refuse some empty
 * operands that PyTorch takes (GatherElements with an empty index of
 * another rank, Squeeze of an empty batch, Gemm with K = 0).  The nodes
 * the rule made are erased (op 0); 1 when it did. */
static bool
empty_as_constants(Lower *L, NodeId first)
{
	/* higher-order ops: their outputs may be effect tokens (f32[0]) */
	const char *op = ir_str(L->m, ir_nodep(L->src, L->node)->op);
	if (!strncmp(op, "higher_order::", 14) ||
	    !outputs_empty(L->src, L->node))
		return false;
	for (NodeId k = first; k < L->dst->nnodes; k++)
		L->dst->nodes[k].op = 0;
	const Node *nd = ir_nodep(L->src, L->node);
	for (uint32_t k = 0; k < nd->nout; k++) {
		ValId s = nd->out + k;
		const Value *v = ir_val(L->src, s);
		const Dim *d = ir_dims(L->src, s);
		if (v->kind == VK_UNKNOWN) {
			if (L->map[s])
				ir_val(L->dst, L->map[s])->name = 0;
			L->map[s] = 0;
			continue;
		}
		int64_t *dims = arena_array(L->m->scratch, (size_t)v->rank,
		    sizeof *dims);
		for (int32_t j = 0; j < v->rank; j++)
			dims[j] = d[j].n;
		if (L->map[s])
			ir_val(L->dst, L->map[s])->name = 0;
		lw_bind(L, (int)k, lw_const(L, (DType)v->dtype, v->rank, dims,
		    NULL));
	}
	return true;
}

int
lw_lower_nodes(Lower *L)
{
	Module *m = L->m;
	for (NodeId n = 1; n < L->src->nnodes; n++) {
		L->node = n;
		L->failed = false;
		/* a plugin lowering that fails has reported why */
		int rc = L->ctx ? try_plugins(L, L->ctx) : 1;
		if (rc < 0)
			return -1;
		/* complex values are [.., 2] pairs: only a complex-aware
		 * rule may read or make them (lower_fft.h) */
		StrId op = ir_nodep(L->src, n)->op;
		LowerFn fn = rc != 1 ? NULL : lwf_touches_complex(L->src, n)
		    ? lwf_complex_rule(m, op) : registry_find(m, L->reg, op);
		if (rc == 1 && !fn)
			lw_fail(L, "every plugin lowering declined the node, "
			    "and onnxc has no rule of its own for it");
		else if (fn) {
			ArenaMark mk = arena_mark(m->scratch);
			NodeId first = L->dst->nnodes;
			if (fn(L) < 0 && !lw_failed(L))
				lw_fail(L, "could not be lowered");
			else if (!lw_failed(L) && !lwf_touches_complex(L->src,
			    n) && empty_as_constants(L, first))
				L->erased = true;
			else if (!lw_failed(L) && lw_legalize(L, first))
				L->erased = true;  /* for ir_normalize */
			arena_release(m->scratch, mk); /* the rule's lw_scratch */
		}
		if (lw_failed(L))
			return -1;
	}
	return 0;
}

static int
lower_with(Module *m, GraphId srcid, GraphId *out, int opset, onnxc_ctx *c,
    bool bn_onnx)
{
	Lower L = {.m = m, .opset = opset, .ctx = c,
	    .training = c && c->training, .bn_onnx = bn_onnx};
	L.src = ir_graph(m, srcid);
	Registry r;
	ArenaMark rmk = arena_mark(m->scratch);
	registry_build(m, &r);
	L.reg = &r;
	if (check_rules(&L) < 0 || lwc_check_graph(&L) < 0) {
		arena_release(m->scratch, rmk);
		return -1;
	}
	L.dstid = ir_graph_new(m, "main_graph", 0);
	L.src = ir_graph(m, srcid);
	L.dst = ir_graph(m, L.dstid);
	/* most FX nodes become one ONNX node, a few become several */
	ir_reserve(L.dst, L.src->nnodes + L.src->nnodes / 4,
	    L.src->nvals + L.src->nvals / 4, L.src->nargs + L.src->nargs / 2);
	ArenaMark mk = arena_mark(m->scratch);
	L.map = arena_array(m->scratch, L.src->nvals + 1, sizeof *L.map);
	int rc = lower_inputs(&L);
	if (lw_lower_nodes(&L) < 0)
		rc = -1;
	if (rc == 0) {
		/* every output may add an Identity: room for those too */
		uint8_t *isout = arena_alloc(m->scratch, L.dst->nvals +
		    L.src->noutputs + 1);
		for (uint32_t i = 0; i < L.src->noutputs; i++) {
			ValId sv = L.src->outputs[i];
			ValId d = L.map[sv];
			/* an effect token, like a token input, has no ONNX value */
			if (!d && L.src->outkind[i] == OUT_TOKEN)
				continue;
			/* a parameter's new value (core ATen's functional form
			 * of nn.Embedding(max_norm=)'s in-place renorm) is no
			 * result of an inference model: its parameters are
			 * initializers it cannot update, and the program's
			 * outputs are its user outputs, after any mutated
			 * buffers; --training keeps it */
			if (!L.training && L.src->outkind[i] == OUT_PARAM_MUTATION)
				continue;
			if (!d) {
				const Value *s = ir_val(L.src, sv);
				ir_error(m, (Loc){0}, "output '%s' has no ONNX "
				    "value (it is not a tensor or SymInt)",
				    ir_str(m, s->name));
				rc = -1;
				continue;
			}
			if (ir_val(L.src, sv)->kind == VK_SYMFLOAT)
				d = symfloat_out(&L, d);
			ir_add_output(L.dst, output_value(&L, d, isout),
			    (OutKind)L.src->outkind[i], L.src->outtarget[i]);
		}
	}
	if (rc == 0 && L.erased && ir_normalize(m, L.dstid, L.dst->nnodes,
	    "lower") < 0)
		rc = -1;
	if (rc == 0) {
		if (!L.training)
			drop_unused_initializers(m, L.dst);
		lw_name_values(m, L.dst);
	}
	arena_release(m->scratch, mk);
	arena_release(m->scratch, rmk);
	*out = L.dstid;
	return rc;
}

int
pass_lower(Module *m, GraphId srcid, GraphId *out, int opset)
{
	return lower_with(m, srcid, out, opset, NULL, false);
}

/* ------------------------------------------------------ the pass "lower" */

static onnxc_status
run_lower(onnxc_ctx *c, const onnxc_host_api *host, void *user)
{
	(void)user;
	int bn_onnx = 0;
	host->opt_bool(c, "onnx-batch-norm", &bn_onnx);
	GraphId out;  /* its contract: the pipeline checked the graph is FX */
	if (lower_with(c->m, c->graph, &out, c->opset, c, bn_onnx) < 0)
		return ONNXC_ERROR;
	c->graph = out; /* the passes after this one see the ONNX graph */
	return ONNXC_OK;
}

static bool
has_rule(Module *m, StrId op)
{
	return lw_has_rule(ir_str(m, op));
}

static onnxc_status
init_lower(onnxc_ctx *c, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_option options[] = {
		{"onnx-batch-norm", ONNXC_OPT_BOOL, "false", "with --training, "
		    "batch norm in training mode becomes ONNX "
		    "BatchNormalization(training_mode=1), for ONNX Runtime's "
		    "training builds (its inference builds ignore the mode); "
		    "default: the exact batch-statistics computation"},
	};
	static const onnxc_pass_info pass = {
		.size = sizeof pass,
		.name = "lower",
		.summary = "FX graph to ONNX graph: plugin lowerings first, "
		    "then onnxc's rules",
		.options = options,
		.noptions = 1,
		.run = run_lower,
		.needs = ONNXC_PROP_FX,
		.provides = ONNXC_PROP_ONNX,
		.breaks = ONNXC_PROP_FX,
	};
	(void)c;
	reg->has_rule = has_rule;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(lower, "onnxc-lower", ONNXC_VERSION_STRING, init_lower, NULL);
