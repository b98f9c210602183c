/* ort.c - the ORT-format writer: a graph of D_ONNX nodes -> .ort bytes.
 *
 * Requires: a graph built by the lower pass (every node D_ONNX, every value
 * named and typed, weights bound to graph inputs through Value.init), and
 * an op schema (opschema.c) for every node.
 * Provides: ONNX Runtime's InferenceSession FlatBuffer (ort.fbs, format
 * version 6, identifier ORTM) as bytes (ort_encode) or a file (ort_write),
 * and the be_ort row of the writers' table (backend.h).
 *
 * The file holds the graph as ONNX Runtime keeps it after loading an ONNX
 * model, because minimal builds read it as is, without resolving the graph
 * again (research/ort-format.md):
 * - Constant nodes become initializers named after their output (ORT has
 *   no Constant kernel); initializers no node uses are left out;
 * - every node carries its schema's since_version, the schema defaults of
 *   attributes it leaves out, one input_arg_count per formal input, and an
 *   edge list;
 * - every name has a ValueInfo with its type (and "" one without, when an
 *   optional input is left out in the middle);
 * - the kernel type-string resolver maps each op's type-constraint names
 *   to the formal arguments that carry them.
 * Weights are not copied: raw_data vectors reference the mapped bytes and
 * ort_write streams them into the file.  This file plans each graph and
 * builds graphs and the model; ort_node.c the tables of their parts,
 * ort_resolver.c the resolver.
 */#include <stdarg.h>
#include <stdio.h>

#include "ort_int.h"

#define ORT_FORMAT_VERSION "6"
/* ONNX Runtime's verifier visits at most this many tables */
#define MAX_TABLES 1000000u

void
ort_internal(Enc *e, const char *f, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	ir_error(e->m, (Loc){0, 0}, "internal error in the ORT backend: %s",
	    buf);
}

static void
plan_free(Plan *p)
{
	free(p->schema);
	free(p->index);
	free(p->name);
	free(p->init);
	free(p->needed);
	free(p->defnode);
	memset(p, 0, sizeof *p);
}

/* --------------------------------------------------------- the graph */

/* Constant nodes whose value is a tensor: ORT keeps them as initializers. */
static TensorId
constant_tensor(Enc *e, NodeId id)
{
	const Node *n = ir_nodep(e->p.g, id);
	if (n->nargs != 1 || n->nout != 1 ||
	    strcmp(ir_str(e->m, n->op), "Constant") != 0 ||
	    (n->domain && *ir_str(e->m, n->domain)))
		return 0;
	const Arg *a = ir_arg(e->p.g, id, 0);
	if (a->kind != A_TENSOR || strcmp(ir_str(e->m, a->key), "value"))
		return 0;
	return a->u.t;
}

static void
note_op(Enc *e, const OpSchema *s)
{
	for (uint32_t i = 0; i < e->nops; i++)
		if (e->ops[i] == s)
			return;
	vgrow((void **)&e->ops, &e->cops, e->nops + 1, sizeof *e->ops);
	e->ops[e->nops++] = s;
}

bool
ort_plan(Enc *e)
{
	Module *m = e->m;
	const Graph *g = e->p.g;
	e->p.schema = xcalloc(g->nnodes, sizeof *e->p.schema);
	e->p.index = xcalloc(g->nnodes, sizeof *e->p.index);
	e->p.nodename = e->nodenames[e->p.gid];
	e->p.name = xcalloc(g->nvals, sizeof *e->p.name);
	e->p.init = xcalloc(g->nvals, sizeof *e->p.init);
	e->p.needed = xcalloc(g->nvals, 1);
	e->p.defnode = xcalloc(g->nvals, sizeof *e->p.defnode);

	for (ValId v = 1; v < g->nvals; v++) {
		const Value *p = ir_val(g, v);
		if (p->name) {
			e->p.name[v] = p->name;
		} else {
			char buf[32];
			snprintf(buf, sizeof buf, "_v%u", v);
			e->p.name[v] = ir_intern(m, buf);
		}
	}
	for (uint32_t i = 0; i < g->ninputs; i++)
		e->p.init[g->inputs[i]] = ir_val(g, g->inputs[i])->init;
	for (uint32_t i = 0; i < g->noutputs; i++)
		e->p.needed[g->outputs[i]] = 1;

	bool ok = true;
	uint32_t next = 0;
	for (NodeId id = 1; id < g->nnodes; id++) {
		const Node *n = ir_nodep(g, id);
		const char *op = ir_str(m, n->op);
		if (n->dialect != D_ONNX) {
			ort_internal(e, "node '%s' (%s) was not lowered to ONNX",
			    ir_str(m, n->name), op);
			ok = false;
			continue;
		}
		TensorId t = constant_tensor(e, id);
		if (t) {
			e->p.init[n->out] = t;
			continue;
		}
		const char *dom = n->domain ? ir_str(m, n->domain) : "";
		const OpSchema *s = opschema_find(dom, op, e->opset);
		if (!s) {
			ir_error(m, n->loc, "onnxc has no schema for %s%s%s in "
			    "opset %d, so it cannot write it to an .ort file",
			    dom, *dom ? "::" : "", op, e->opset);
			ok = false;
			continue;
		}
		e->p.schema[id] = s;
		note_op(e, s);
		e->p.index[id] = ++next;
		for (uint32_t k = 0; k < n->nout; k++)
			e->p.defnode[n->out + k] = next;
		uint32_t nin = node_inputs(g, id);
		for (uint32_t i = 0; i < n->nargs; i++) {
			const Arg *a = ir_arg(g, id, i);
			if (a->kind == A_VAL && i < nin)
				e->p.needed[a->u.v] |= 1;
			else if (a->kind == A_VAL && ir_is_capture(g, id, a))
				e->p.needed[a->u.v] |= 2;
		}
	}
	return ok;
}
/* Node names of graph gid and its subgraphs, in the ONNX backend's order
 * (a node, then the nodes of its subgraphs; Constants included), so that
 * both files name each node alike. */
static void
name_nodes(Enc *e, GraphId gid, int depth)
{
	const Graph *g = ir_graph(e->m, gid);
	vgrow((void **)&e->nodenames, &e->nnodenames, gid + 1,
	    sizeof *e->nodenames);
	if (e->nodenames[gid] || depth > 64)
		return;         /* (ir_verify refuses cycles) */
	e->nodenames[gid] = xcalloc(g->nnodes, sizeof **e->nodenames);
	for (NodeId id = 1; id < g->nnodes; id++) {
		const Node *n = ir_nodep(g, id);
		e->nodenames[gid][id] = be_node_name(e->m, &e->names,
		    n->name ? n->name : n->op);
		for (uint32_t i = 0; i < n->nargs; i++)
			if (ir_arg(g, id, i)->kind == A_GRAPH)
				name_nodes(e, ir_arg(g, id, i)->u.g, depth + 1);
	}
}

/* A Graph attribute: subgraph gid as a Graph table of its own, its plan
 * swapped in for the time being.  Values it reads from the graphs around
 * it are among its node args (with their types), as ONNX Runtime saves
 * them, and are its owner's implicit inputs. */
FbsRef
ort_subgraph(Enc *e, GraphId gid)
{
	Plan outer = e->p;
	memset(&e->p, 0, sizeof e->p);
	e->p.gid = gid;
	e->p.g = ir_graph(e->m, gid);
	FbsRef r = ort_plan(e) ? ort_graph(e) : 0;
	plan_free(&e->p);
	e->p = outer;
	return r;
}

/* ------------------------------------------------------------- graph */

/* Every name defined once: a clash makes ORT refuse the file. */
static bool
mark_defined(Enc *e, uint8_t **seen, uint32_t *cap, StrId s)
{
	vgrow((void **)seen, cap, s + 1, 1);
	if ((*seen)[s]) {
		ort_internal(e, "graph '%s' defines '%s' twice",
		    ir_str(e->m, e->p.g->name), ir_str(e->m, s));
		return false;
	}
	(*seen)[s] = 1;
	return true;
}

static FbsRef
node_args(Enc *e)
{
	Module *m = e->m;
	const Graph *g = e->p.g;
	FbsRef *refs = xcalloc(g->nvals + 1, sizeof *refs);
	uint8_t *isio = xcalloc(g->nvals, 1);
	uint8_t *seen = NULL;
	uint32_t cap = 0, n = 0;
	bool ok = true, hole = false;
	for (uint32_t i = 0; i < g->ninputs; i++)
		isio[g->inputs[i]] = 1;
	for (uint32_t i = 0; i < g->noutputs; i++)
		isio[g->outputs[i]] = 1;
	for (ValId v = 1; ok && v < g->nvals; v++) {
		const Value *p = ir_val(g, v);
		bool input = p->def == 0 && isio[v];
		/* ORT lists an outer value where a node reads it, not where
		 * only a subgraph does (that is the owner's implicit input) */
		bool outer = p->role == ROLE_OUTER && (e->p.needed[v] & 1);
		if (outer && e->p.name[v] < cap && seen[e->p.name[v]])
			continue;       /* one capture passed twice */
		if (!e->p.defnode[v] && !input && !e->p.init[v] && !outer)
			continue;       /* not in the .ort graph */
		if (e->p.init[v] && !e->p.needed[v])
			continue;       /* an initializer no one reads */
		if (!mark_defined(e, &seen, &cap, e->p.name[v])) {
			ok = false;
			break;
		}
		FbsRef type;
		if (e->p.init[v]) {
			const Tensor *t = ir_tensorp(m, e->p.init[v]);
			type = ort_type_info(e, t->dtype, t->rank, NULL, t->dims,
			    true);
		} else if (p->kind != VK_TENSOR || p->dtype == DT_UNDEF) {
			if (input || isio[v])
				ir_error(m, (Loc){0, 0}, "graph %s '%s' has no "
				    "tensor type", input ? "input" : "output",
				    ir_str(m, e->p.name[v]));
			else
				ort_internal(e, "value '%s' has no type (the .ort "
				    "format needs one for every value)",
				    ir_str(m, e->p.name[v]));
			ok = false;
			break;
		} else {
			type = ort_type_info(e, p->dtype, p->rank, ir_dims(g, v),
			    NULL, e->shapes || isio[v]);
		}
		refs[n++] = ort_value_info(e, e->p.name[v], type);
	}
	/* "" stands for an optional input left out in the middle */
	for (NodeId id = 1; ok && id < g->nnodes && !hole; id++) {
		if (!e->p.index[id])
			continue;
		uint32_t nin = node_inputs(g, id);
		for (uint32_t i = 0; i < nin; i++)
			hole |= ir_arg(g, id, i)->kind == A_NONE;
	}
	if (ok && hole)
		refs[n++] = ort_value_info(e, 0, 0);
	FbsRef r = ok ? fbs_vec_refs(e->b, refs, n) : 0;
	free(refs);
	free(isio);
	free(seen);
	return r;
}

FbsRef
ort_graph(Enc *e)
{
	Module *m = e->m;
	const Graph *g = e->p.g;
	uint32_t n = 0;
	FbsRef *refs = xcalloc(g->nvals + g->nnodes + g->ninputs +
	    g->noutputs + 1, sizeof *refs);
	FbsRef inits, args, nodes, edges, ins, outs, r = 0;

	for (ValId v = 1; v < g->nvals; v++) {
		if (!e->p.init[v] || !e->p.needed[v])
			continue;
		if (!(refs[n++] = ort_tensor(e, ir_tensorp(m, e->p.init[v]),
		    e->p.name[v])))
			goto out;
	}
	inits = fbs_vec_refs(e->b, refs, n);
	if (!(args = node_args(e)))
		goto out;

	n = 0;
	for (NodeId id = 1; id < g->nnodes; id++) {
		if (!e->p.index[id])
			continue;
		if (!(refs[n++] = ort_node(e, id)))
			goto out;
	}
	nodes = fbs_vec_refs(e->b, refs, n);
	edges = ort_node_edges(e, n);
	uint32_t nnodes = n;

	n = 0;
	for (uint32_t i = 0; i < g->ninputs; i++)
		if (!e->p.init[g->inputs[i]])
			refs[n++] = str(e, e->p.name[g->inputs[i]]);
	ins = fbs_vec_refs(e->b, refs, n);
	n = 0;
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		for (uint32_t k = 0; k < i; k++)
			if (g->outputs[k] == v) {
				ort_internal(e, "'%s' is output twice (the lower "
				    "pass should have added an Identity)",
				    ir_str(m, e->p.name[v]));
				goto out;
			}
		refs[n++] = str(e, e->p.name[v]);
	}
	outs = fbs_vec_refs(e->b, refs, n);
	FbsRef sparse = empty_vec(e);

	fbs_table(e->b);
	fbs_ref(e->b, GRAPH_INITIALIZERS, inits);
	fbs_ref(e->b, GRAPH_NODE_ARGS, args);
	fbs_ref(e->b, GRAPH_NODES, nodes);
	fbs_u32(e->b, GRAPH_MAX_NODE_INDEX, nnodes, 0);
	fbs_ref(e->b, GRAPH_NODE_EDGES, edges);
	fbs_ref(e->b, GRAPH_INPUTS, ins);
	fbs_ref(e->b, GRAPH_OUTPUTS, outs);
	fbs_ref(e->b, GRAPH_SPARSE_INITIALIZERS, sparse);
	r = fbs_end(e->b);
out:
	free(refs);
	return r;
}
/* ------------------------------------------------------------- model */

static FbsRef
model(Enc *e)
{
	Module *m = e->m;
	FbsRef gr = ort_graph(e);
	if (!gr)
		return 0;
	FbsRef dom = str(e, 0);
	fbs_table(e->b);
	fbs_i64(e->b, 1, e->opset, 0);
	fbs_ref(e->b, 0, dom);
	FbsRef opset = fbs_end(e->b);
	FbsRef imports = fbs_vec_refs(e->b, &opset, 1);
	FbsRef meta = 0;
	if (m->ranges) {
		FbsRef k = cstr(e, "pkg.torch.export.ExportedProgram."
		    "range_constraints");
		FbsRef v = str(e, m->ranges);
		fbs_table(e->b);
		fbs_ref(e->b, 0, k);
		fbs_ref(e->b, 1, v);
		FbsRef entry = fbs_end(e->b);
		meta = fbs_vec_refs(e->b, &entry, 1);
	}
	FbsRef pn = cstr(e, "onnxc"), pv = cstr(e, ONNXC_VERSION_STRING);
	fbs_table(e->b);
	fbs_i64(e->b, MODEL_IR_VERSION, be_ir_version(e->opset), 0);
	fbs_ref(e->b, MODEL_OPSET_IMPORT, imports);
	fbs_ref(e->b, MODEL_PRODUCER_NAME, pn);
	fbs_ref(e->b, MODEL_PRODUCER_VERSION, pv);
	fbs_ref(e->b, MODEL_GRAPH, gr);
	fbs_ref(e->b, MODEL_METADATA, meta);
	return fbs_end(e->b);
}

static void
too_big(Enc *e, uint64_t weights)
{
	ir_error(e->m, (Loc){0, 0}, "the model holds %llu MB of weights, too "
	    "much for an .ort file: it is a single FlatBuffer, limited to "
	    "2 GB, and has no external data for inference; write ONNX (-o "
	    "model.onnx or --emit onnx) with its weights as external data "
	    "instead", (unsigned long long)(weights >> 20));
}

static void
enc_free(Enc *e)
{
	fbs_free(e->b);
	free(e->sref);
	be_names_free(&e->names);
	plan_free(&e->p);
	for (uint32_t i = 0; i < e->nnodenames; i++)
		free(e->nodenames[i]);
	free(e->nodenames);
	free(e->ops);
	memset(e, 0, sizeof *e);
}

/* One attempt at the whole buffer; shapes says whether intermediate values
 * get theirs. */
static bool
build_once(Enc *e, Module *m, GraphId gid, int opset, bool shapes)
{
	memset(e, 0, sizeof *e);
	e->m = m;
	e->p.gid = gid;
	e->p.g = ir_graph(m, gid);
	e->opset = opset;
	e->shapes = shapes;
	e->errs = m->nerrors;
	e->b = fbs_new();
	name_nodes(e, gid, 0);
	if (!ort_plan(e))
		return false;

	uint64_t weights = 0;
	for (ValId v = 1; v < e->p.g->nvals; v++)
		if (e->p.init[v] && e->p.needed[v])
			weights += ir_tensorp(m, e->p.init[v])->nbytes;
	if (weights > FBS_MAX_SIZE) {
		too_big(e, weights);
		return false;
	}

	FbsRef md = model(e);
	if (!md || m->nerrors != e->errs)
		return false;
	FbsRef rs = ort_resolver(e);
	FbsRef ver = cstr(e, ORT_FORMAT_VERSION);
	fbs_table(e->b);
	fbs_ref(e->b, SESSION_ORT_VERSION, ver);
	fbs_ref(e->b, SESSION_MODEL, md);
	fbs_ref(e->b, SESSION_RESOLVER, rs);
	FbsRef root = fbs_end(e->b);
	fbs_finish(e->b, root, "ORTM");
	if (fbs_overflow(e->b)) {
		too_big(e, weights);
		return false;
	}
	return m->nerrors == e->errs;
}

static bool
build(Enc *e, Module *m, GraphId gid, const BeOptions *o)
{
	memset(e, 0, sizeof *e);
	ir_name_outer(m, gid);
	if (!be_ir_version(o->opset) || o->opset < OPSCHEMA_MIN_OPSET ||
	    o->opset > OPSCHEMA_MAX_OPSET) {
		ir_error(m, (Loc){0, 0}, "opset %d cannot be written to an "
		    ".ort file (choose one of %d to %d)", o->opset,
		    OPSCHEMA_MIN_OPSET, OPSCHEMA_MAX_OPSET);
		return false;
	}
	if (!build_once(e, m, gid, o->opset, true))
		return false;
	if (fbs_ntables(e->b) <= MAX_TABLES)
		return true;
	/* ORT's verifier would refuse the file: intermediate shapes cost
	 * 2 tables per dim and are optional, so they go first */
	enc_free(e);
	if (!build_once(e, m, gid, o->opset, false))
		return false;
	if (fbs_ntables(e->b) <= MAX_TABLES)
		return true;
	ir_error(m, (Loc){0, 0}, "the graph is too large for an .ort file: "
	    "it needs %u FlatBuffer tables and ONNX Runtime verifies at most "
	    "%u; write ONNX instead", fbs_ntables(e->b), MAX_TABLES);
	return false;
}

int
ort_encode(Module *m, GraphId g, const BeOptions *o, uint8_t **buf,
    size_t *len)
{
	Enc e;
	*buf = NULL;
	*len = 0;
	if (!build(&e, m, g, o)) {
		enc_free(&e);
		return -1;
	}
	*len = (size_t)fbs_size(e.b);
	*buf = xrealloc(NULL, *len);
	fbs_copy(e.b, *buf);
	enc_free(&e);
	return 0;
}

/* ---------------------------------------------------------------- files */

/* weights are referenced blobs: be_out_write copies them from the input
 * file by the kernel */
static int
put_file(void *ctx, const void *p, size_t n)
{
	return be_out_write(ctx, p, n);
}

/* BeEmit: the built buffer into o */
static int
emit_model(void *ctx, BeOut *o)
{
	return fbs_emit(ctx, put_file, o);
}

int
ort_write(Module *m, GraphId g, const BeOptions *o, const char *path)
{
	Enc e;
	int rc = build(&e, m, g, o) ? be_write_atomic(m, path, emit_model,
	    e.b) : -1;
	enc_free(&e);
	return rc;
}

/* ---------------------------------------------------------- the writer */

static const char *
check(const BeOptions *o)
{
	if (o->init_inputs || o->no_weights)
		return "--keep-initializers-as-inputs and --no-weights are "
		    "for .onnx output";
	if (o->external == BE_EXT_ALWAYS)
		return "--external-data: an .ort file has no external data "
		    "(it is one FlatBuffer); write ONNX";
	return NULL;
}

static const char *
weights_text(const BeOptions *o)
{
	(void)o;
	return "inline in the .ort file";
}

const BeWriter be_ort = {
	.name = "ort",
	.ext = ".ort",
	.summary = "ONNX Runtime's FlatBuffer format",
	/* HardSwish: ONNX Runtime inlines its function body when it loads
	 * an .onnx, but an .ort file needs a kernel, which it has not */
	.function_ops = false,
	.check = check,
	.write = ort_write,
	.weights = weights_text,
};
