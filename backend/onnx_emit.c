/* onnx_emit.c - the ONNX writer's fields: a ModelProto of what prepare
 * settled (onnx_prep.c), emitted through the streaming writer (pb.h) once
 * to size every message and once to write it, identically.  Fields go in
 * field-number order, so the bytes are those of any protobuf library.
 * A big graph's nodes and value_info are made on two threads in both runs
 * (pbsplit.h).  Tensor bytes are never copied: raw_data is written straight
 * from the weights mapping, which out.c turns into a kernel copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_int.h"

/* ---------------------------------------------------------------- emit */

/* The emit functions write what prepare settled, identically in the
 * sizing and the writing run. */

static void emit_graph(Enc *e, Pb *w, GraphId gid);

static void
emit_entry(Pb *w, uint32_t field, const char *key, const char *value)
{
	pb_entry(w, field, key, strlen(key), value, strlen(value));
}

/* a node's metadata: literal keys, texts of known length */
#define NODE_ENTRY(w, key, t) \
	pb_entry(w, NODE_METADATA, key, sizeof key - 1, (t).s, (t).n)

/* The signature keys of graph input v (a ValueInfoProto's or an
 * initializer's), and its FX name when it was renamed. */
static void
emit_input_meta(Enc *e, Pb *w, uint32_t field, const Value *v)
{
	emit_entry(w, field, "pkg.torch.export.graph_signature.InputSpec.kind",
	    be_input_kind((Role)v->role));
	emit_entry(w, field,
	    "pkg.torch.export.graph_signature.InputSpec.persistent",
	    be_persist_text(v));
	if (v->orig)
		emit_entry(w, field, "pkg.torch.onnx.original_node_name",
		    ir_str(e->m, v->orig));
}

static void
emit_output_meta(Enc *e, Pb *w, const Value *v, OutKind k)
{
	emit_entry(w, VI_METADATA,
	    "pkg.torch.export.graph_signature.OutputSpec.kind",
	    be_output_kind(k));
	if (v->orig)
		emit_entry(w, VI_METADATA, "pkg.torch.onnx.original_node_name",
		    ir_str(e->m, v->orig));
}

static void
emit_dim(Enc *e, Pb *w, Dim d)
{
	const Expr *x = d.e ? ir_exprp(e->m, d.e) : NULL;
	if (!x || x->kind == E_INT) {
		/* a number, or an unknown dim (negative: neither field):
		 * sized here, without the writer's table of lengths */
		int64_t n = x ? x->n : d.n;
		uint64_t v = (uint64_t)n;
		bool known = x || n >= 0;
		pb_open_sized(w, SHAPE_DIM, known ? pb_varint_size(DIM_VALUE,
		    v) : 0);
		if (known)
			pb_varint(w, DIM_VALUE, v);
		return;
	}
	pb_open(w, SHAPE_DIM);
	char small[128];
	int n = ir_expr_print(e->m, d.e, small, sizeof small);
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof small)
		pb_bytes(w, DIM_PARAM, small, (size_t)n);
	else
		pb_str(w, DIM_PARAM, ir_dim_text(e->m, d));
	pb_close(w);
}

/* A TypeProto's fields for a tensor type; an unknown rank has no shape. */
static void
emit_type(Enc *e, Pb *w, const Value *p, const Dim *d)
{
	pb_open(w, TYPE_TENSOR);
	pb_varint(w, TTYPE_ELEM_TYPE, p->dtype);
	if (p->rank >= 0) {
		pb_open(w, TTYPE_SHAPE);
		for (int32_t i = 0; i < p->rank; i++)
			emit_dim(e, w, d[i]);
		pb_close(w);
	}
	pb_close(w);
}

/* The TypeProto of v (a typed tensor), encoded once per recent shape: a
 * value then costs one copy and no entries in the writer's table of
 * lengths. */
static const TypeBytes *
type_bytes(Enc *e, const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	const Dim *d = ir_dims(g, v);
	uintptr_t k = (uintptr_t)d ^ ((uintptr_t)p->rank << 8) ^ p->dtype;
	TypeBytes *t = &e->types[(k ^ k >> 7 ^ k >> 17) % TYPECACHE];
	if (t->p && t->dims == d && t->rank == p->rank &&
	    t->dtype == p->dtype)
		return t;
	pb_size(&e->tw);
	emit_type(e, &e->tw, p, d);
	uint64_t n = e->tw.pos;
	uint8_t *buf = arena_alloc(e->a, n ? n : 1);
	pb_write(&e->tw, NULL, buf);
	emit_type(e, &e->tw, p, d);
	pb_flush(&e->tw);
	*t = (TypeBytes){d, p->rank, p->dtype, buf, (uint32_t)n};
	return t;
}

/* A ValueInfoProto's name and type (none for a value that is no typed
 * tensor); vi_len is its length. */
static void
emit_value(Enc *e, Pb *w, GraphId gid, const Graph *g, ValId v)
{
	pb_strid(w, VI_NAME, e->m, onnx_valname(e, gid, g, v));
	if (has_type(ir_val(g, v))) {
		const TypeBytes *t = type_bytes(e, g, v);
		pb_bytes(w, VI_TYPE, t->p, t->n);
	}
}

static uint64_t
vi_len(Enc *e, GraphId gid, const Graph *g, ValId v)
{
	uint64_t n = pb_bytes_size(VI_NAME, ir_strlen(e->m,
	    onnx_valname(e, gid, g, v)));
	if (has_type(ir_val(g, v)))
		n += pb_bytes_size(VI_TYPE, type_bytes(e, g, v)->n);
	return n;
}

/* A TensorProto with t's bytes as raw_data, or in the data file when
 * in->ext; name NULL for a tensor attribute; meta: the graph input whose
 * signature keys it carries, or NULL. */
static void
emit_tensor(Enc *e, Pb *w, uint32_t field, const Tensor *t, const char *name,
    const BeInit *in, const Value *meta)
{
	pb_open(w, field);
	for (int32_t i = 0; i < t->rank; i++)
		pb_varint(w, TENSOR_DIMS, (uint64_t)t->dims[i]);
	pb_varint(w, TENSOR_DATA_TYPE, t->dtype);
	pb_str(w, TENSOR_NAME, name);
	if (!in || !in->ext) {
		pb_weights(w, TENSOR_RAW_DATA, t->data, t->nbytes);
	} else {
		char off[24], len[24];
		snprintf(off, sizeof off, "%llu", (unsigned long long)in->off);
		snprintf(len, sizeof len, "%llu", (unsigned long long)t->nbytes);
		emit_entry(w, TENSOR_EXTERNAL_DATA, "location", e->location);
		emit_entry(w, TENSOR_EXTERNAL_DATA, "offset", off);
		emit_entry(w, TENSOR_EXTERNAL_DATA, "length", len);
		pb_varint(w, TENSOR_DATA_LOCATION, LOCATION_EXTERNAL);
	}
	if (meta)
		emit_input_meta(e, w, TENSOR_METADATA, meta);
	pb_close(w);
}

static void
emit_attr(Enc *e, Pb *w, const Graph *g, const Arg *a)
{
	Module *m = e->m;
	int type;
	pb_open(w, NODE_ATTRIBUTE);
	pb_str(w, ATTR_NAME, ir_str(m, a->key));
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:   /* DType numbers are ONNX's: Cast(to=...) */
		type = AT_INT;
		pb_varint(w, ATTR_I, (uint64_t)a->u.i);
		break;
	case A_FLOAT: {
		float f = (float)a->u.f;
		uint32_t bits;
		memcpy(&bits, &f, sizeof bits);
		type = AT_FLOAT;
		pb_fixed32(w, ATTR_F, bits);
		break;
	}
	case A_STR:
		type = AT_STRING;
		pb_str(w, ATTR_S, ir_str(m, a->u.s));
		break;
	case A_TENSOR:
		type = AT_TENSOR;
		emit_tensor(e, w, ATTR_T, ir_tensorp(m, a->u.t), NULL, NULL,
		    NULL);
		break;
	case A_GRAPH:
		type = AT_GRAPH;
		pb_open(w, ATTR_G);
		emit_graph(e, w, a->u.g);
		pb_close(w);
		break;
	default: {      /* a list: prepare checked its kind */
		const Arg *it = ir_items(g, a);
		type = list_type(g, a);
		for (uint32_t i = 0; i < a->u.list.n; i++) {
			if (type == AT_INTS) {
				pb_varint(w, ATTR_INTS, (uint64_t)it[i].u.i);
			} else if (type == AT_FLOATS) {
				float f = it[i].kind == A_FLOAT
				    ? (float)it[i].u.f : (float)it[i].u.i;
				uint32_t bits;
				memcpy(&bits, &f, sizeof bits);
				pb_fixed32(w, ATTR_FLOATS, bits);
			} else {
				pb_str(w, ATTR_STRINGS, ir_str(m, it[i].u.s));
			}
		}
	}
	}
	pb_varint(w, ATTR_TYPE, (uint64_t)type);
	pb_close(w);
}

static void
emit_node(Enc *e, Pb *w, GraphId gid, const Graph *g, NodeId id,
    const NodePrep *np)
{
	Module *m = e->m;
	const Node *n = ir_nodep(g, id);
	uint32_t npos = ir_npos(g, id), nin = node_nin(g, id, npos);
	pb_open(w, GRAPH_NODE);
	for (uint32_t i = 0; i < nin; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (a->kind == A_VAL)
			pb_strid(w, NODE_INPUT, m, onnx_valname(e, gid, g, a->u.v));
		else
			pb_str(w, NODE_INPUT, "");
	}
	for (uint32_t i = 0; i < n->nout; i++)
		pb_strid(w, NODE_OUTPUT, m, onnx_valname(e, gid, g, n->out + i));
	char name[BE_NODE_NAME_MAX];
	size_t nl;
	be_node_text(m, np->name, name, &nl);
	pb_bytes(w, NODE_NAME, name, nl);
	pb_strid(w, NODE_OP_TYPE, m, n->op);
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		/* subgraphs name outer values themselves */
		if (!ir_is_capture(g, id, a))
			emit_attr(e, w, g, a);
	}
	if (n->domain)
		pb_str(w, NODE_DOMAIN, ir_str(m, n->domain));
	/* provenance in torch.onnx's keys, made here in both walks rather
	 * than held for every node (a few hundred bytes each) */
	BeNodeMeta nm;
	if (e->meta && be_meta_node(e->meta, n, &nm)) {
		NODE_ENTRY(w, "namespace", nm.ns);
		NODE_ENTRY(w, "pkg.torch.onnx.class_hierarchy", nm.classes);
		NODE_ENTRY(w, "pkg.torch.onnx.fx_node", nm.fx_node);
		NODE_ENTRY(w, "pkg.torch.onnx.name_scopes", nm.scopes);
		NODE_ENTRY(w, "pkg.torch.onnx.stack_trace", nm.trace);
	}
	pb_close(w);
}

/* PbEmitRange: nodes [lo, hi) */
static void
emit_nodes(void *ctx, Pb *w, uint32_t lo, uint32_t hi)
{
	Run *r = ctx;
	const Graph *g = ir_graph(r->e->m, r->gid);
	if (r->e->meta)
		be_meta_measure(r->e->meta, !w->writing);
	for (NodeId n = lo; n < hi; n++)
		emit_node(r->e, w, r->gid, g, n, &r->nodes[n]);
}

/* PbEmitRange: the value_info of values [lo, hi), the types the lowering
 * knows for intermediate values, so that viewers and runtimes need not
 * infer them */
static void
emit_values(void *ctx, Pb *w, uint32_t lo, uint32_t hi)
{
	Run *r = ctx;
	const Graph *g = ir_graph(r->e->m, r->gid);
	for (ValId v = lo; v < hi; v++) {
		const Value *val = ir_val(g, v);
		if (!val->def || r->isout[v] || !has_type(val))
			continue;
		pb_open_sized(w, GRAPH_VALUE_INFO, vi_len(r->e, r->gid, g, v));
		emit_value(r->e, w, r->gid, g, v);
	}
}

/* The nodes and value_info of graph gid on two threads, when it has
 * enough nodes for that to pay and they only need reading to be written:
 * no subgraph (its emission numbers occurrences), every value named
 * (valname would intern a name).  Chunks of nodes with a tensor attribute
 * stay on the calling thread, where its bytes can go by kernel copy. */
void
onnx_plan_split(Enc *e, GraphId gid, const Graph *g, GraphPrep *gp)
{
	uint32_t chunk = e->o->split_nodes ? e->o->split_nodes
	    : ONNX_SPLIT_NODES;
	if (chunk == UINT32_MAX || g->nnodes <= 1 ||
	    (g->nnodes - 1) / chunk < 2)
		return;
	uint32_t nchunks = (g->nnodes - 2) / chunk + 1;
	bool *helpable = arena_alloc(e->a, nchunks * sizeof *helpable);
	for (NodeId id = 1; id < g->nnodes; id++) {
		const Node *n = ir_nodep(g, id);
		bool ok = true;
		for (uint32_t i = 0; i < n->nargs; i++) {
			const Arg *a = ir_arg(g, id, i);
			if (a->kind == A_GRAPH || (a->kind == A_VAL &&
			    !ir_val(g, a->u.v)->name))
				return;
			ok &= a->kind != A_TENSOR;
		}
		for (uint32_t i = 0; i < n->nout; i++)
			if (!ir_val(g, n->out + i)->name)
				return;
		uint32_t c = (id - 1) / chunk;
		helpable[c] = (id - 1) % chunk ? helpable[c] && ok : ok;
	}
	Run *runs = arena_alloc(e->a, 2 * sizeof *runs);
	Enc *he = arena_alloc(e->a, sizeof *he);
	*he = (Enc){.m = e->m, .o = e->o, .a = arena_new(),
		.meta = e->meta ? be_meta_fork(e->meta) : NULL};
	gp->helper = he;
	runs[0] = (Run){e, gid, gp->nodes, gp->isout};
	runs[1] = (Run){he, gid, gp->nodes, gp->isout};
	/* the shares that kept the threads even on long chains (callgrind:
	 * the calling thread also prepares, appends and writes the rest) */
	gp->split = pb_split_new(1, g->nnodes, chunk, helpable, 60,
	    emit_nodes, &runs[0], &runs[1], e->o->threads);
	uint32_t nv = (g->nvals - 2) / chunk + 1;
	bool *all = arena_alloc(e->a, nv * sizeof *all);
	memset(all, 1, nv * sizeof *all);
	gp->vsplit = pb_split_new(1, g->nvals, chunk, all, 50, emit_values,
	    &runs[0], &runs[1], e->o->threads);
}

static void
emit_graph(Enc *e, Pb *w, GraphId gid)
{
	Module *m = e->m;
	const Graph *g = ir_graph(m, gid);
	const GraphPrep *gp = &e->graphs[e->emitted++];
	bool top = is_top(e, gid), weights = !e->o->no_weights;
	if (gp->split)
		pb_split_run(gp->split, w);
	else
		for (NodeId n = 1; n < g->nnodes; n++)
			emit_node(e, w, gid, g, n, &gp->nodes[n]);
	pb_str(w, GRAPH_NAME, g->name ? ir_str(m, g->name) : "main_graph");
	/* an index, not a pointer: e->inits is NULL in a model without
	 * initializers, and NULL + 0 is undefined */
	uint32_t k = gp->init0;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		const Value *val = ir_val(g, g->inputs[i]);
		if (!val->init || !weights)
			continue;
		const BeInit *in = &e->inits[k++];
		emit_tensor(e, w, GRAPH_INITIALIZER, in->t,
		    vname(e, gid, g, g->inputs[i]), in, top && e->meta ? val :
		    NULL);
	}
	for (uint32_t i = 0; i < g->ninputs; i++) {
		const Value *val = ir_val(g, g->inputs[i]);
		if (val->init && weights && !e->o->init_inputs)
			continue;
		pb_open(w, GRAPH_INPUT);
		emit_value(e, w, gid, g, g->inputs[i]);
		if (top && e->meta)
			emit_input_meta(e, w, VI_METADATA, val);
		pb_close(w);
	}
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		pb_open(w, GRAPH_OUTPUT);
		emit_value(e, w, gid, g, v);
		if (top && e->meta)
			emit_output_meta(e, w, ir_val(g, v),
			    (OutKind)g->outkind[i]);
		pb_close(w);
	}
	if (gp->vsplit)
		pb_split_run(gp->vsplit, w);
	else
		emit_values(&(Run){e, gid, gp->nodes, gp->isout}, w, 1,
		    g->nvals);
	if (gp->sig) {
		/* torch.onnx's graph keys */
		emit_entry(w, GRAPH_METADATA,
		    "pkg.torch.export.ExportedProgram.graph_signature", gp->sig);
		emit_entry(w, GRAPH_METADATA,
		    "pkg.torch.export.ExportedProgram.range_constraints",
		    gp->ranges);
	}
}

void
onnx_emit_model(Enc *e, Pb *w)
{
	e->emitted = 0;
	pb_varint(w, MODEL_IR_VERSION, (uint64_t)e->ir);
	pb_str(w, MODEL_PRODUCER_NAME, "onnxc");
	pb_str(w, MODEL_PRODUCER_VERSION, ONNXC_VERSION_STRING);
	if (e->stream && w->writing) {
		e->glen_at = pb_open_later(w, MODEL_GRAPH, e->glen_width);
		emit_graph(e, w, e->gid);
		e->glen = w->pos - e->glen_at - e->glen_width;
	} else {
		uint64_t start = w->pos;
		pb_open(w, MODEL_GRAPH);
		emit_graph(e, w, e->gid);
		pb_close(w);
		e->graph_sized = w->pos - start;
	}
	for (uint32_t i = 0; i <= e->ndomains; i++) {
		pb_open(w, MODEL_OPSET_IMPORT);
		pb_str(w, OPSET_DOMAIN, i ? ir_str(e->m, e->domains[i - 1])
		    : "");
		pb_varint(w, OPSET_VERSION, i ? 1 : (uint64_t)e->o->opset);
		pb_close(w);
	}
}
