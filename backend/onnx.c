/* onnx.c - the ONNX backend: a graph of D_ONNX nodes -> ModelProto.
 *
 * Requires: a graph built by the lower pass (every node D_ONNX, every value
 * named, weights bound to graph inputs through Value.init).
 * Provides: the model as bytes (onnx_encode) or as a file (onnx_write).
 *
 * The protobuf-c message tree lives in one arena per call.  Tensor bytes
 * are never copied: raw_data points at the weights mapping (or at the
 * module's constants), and onnx_write streams the packed message through
 * a ProtobufCBuffer straight into the file.  protobuf-c types stay here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <onnx.pb-c.h>

#include "onnx.h"

/* A single protobuf message cannot exceed 2 GB; leave room for the graph
 * itself next to the weights. */
#define MAX_WEIGHT_BYTES ((UINT64_C(2) << 30) - (UINT64_C(64) << 20))
#define MAX_MODEL_BYTES ((UINT64_C(2) << 30) - 1)

static const Onnx__TensorShapeProto__Dimension__ValueCase
	DIM_VALUE = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE,
	DIM_PARAM = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;

typedef struct Enc {
	Module *m;
	Arena *a;            /* every protobuf-c structure of this model */
	uint64_t weights;    /* bytes of initializers and tensor attributes */
	BeNames names;       /* node names taken */
	StrId *fxop;         /* FX op by FX node name, for provenance */
	uint32_t nfxop;
	StrId *domains;      /* non-default domains the nodes use */
	uint32_t ndomains, cdomains;
	int errs;            /* m->nerrors on entry */
} Enc;

int
onnx_ir_version(int opset)
{
	/* the ONNX release table: each opset ships with one IR version */
	static const struct {
		int opset, ir;
	} table[] = {
		{7, 3}, {8, 3}, {9, 4}, {10, 5}, {11, 6}, {12, 7}, {13, 7},
		{14, 7}, {15, 8}, {16, 8}, {17, 8}, {18, 8}, {19, 9}, {20, 9},
		{21, 10}, {22, 10}, {23, 11},
	};
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (table[i].opset == opset)
			return table[i].ir;
	return 0;
}

/* ------------------------------------------------------------- helpers */

static void *
newmsg(Enc *e, const ProtobufCMessageDescriptor *d)
{
	void *p = arena_alloc(e->a, d->sizeof_message);
	protobuf_c_message_init(d, p);
	return p;
}

static void *
newarr(Enc *e, size_t n, size_t sz)
{
	return arena_alloc(e->a, n * sz);
}

/* protobuf-c fields are char * but never written through */
static char *
str(Enc *e, StrId s)
{
	return (char *)ir_str(e->m, s);
}

static char *
fmt(Enc *e, const char *f, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof buf) {
		char *p = arena_alloc(e->a, (size_t)n + 1);
		va_start(ap, f);
		vsnprintf(p, (size_t)n + 1, f, ap);
		va_end(ap);
		return p;
	}
	return arena_strndup(e->a, buf, (size_t)n);
}

static void
internal(Enc *e, const char *f, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	ir_error(e->m, (Loc){0, 0}, "internal error in the ONNX backend: %s",
	    buf);
}

static Onnx__StringStringEntryProto *
entry(Enc *e, const char *key, char *value)
{
	Onnx__StringStringEntryProto *p =
	    newmsg(e, &onnx__string_string_entry_proto__descriptor);
	p->key = (char *)key;
	p->value = value;
	return p;
}

/* The name of value v of graph gid: set by the lower pass; a fallback
 * keeps the model well formed if one slipped through. */
static char *
valname(Enc *e, GraphId gid, const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	if (p->name)
		return str(e, p->name);
	if (gid == e->m->main || !g->parent)
		return fmt(e, "_v%u", v);
	return fmt(e, "_g%u_v%u", gid, v);
}

/* --------------------------------------------------------------- types */

/* Bytes a tensor of dt and numel elements takes in raw_data; false for
 * types raw_data cannot hold or on overflow. */
static bool
raw_size(DType dt, uint64_t numel, uint64_t *out)
{
	size_t sz = ir_dtype_size(dt);
	if (dt == DT_U4 || dt == DT_I4 || dt == DT_F4E2M1) {
		*out = numel / 2 + numel % 2;   /* two per byte */
		return true;
	}
	if (sz == 0)
		return false;
	if (numel > UINT64_MAX / sz)
		return false;
	*out = numel * sz;
	return true;
}

static Onnx__TypeProto *
type_proto(Enc *e, const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	if (p->kind != VK_TENSOR || p->dtype == DT_UNDEF)
		return NULL;
	Onnx__TypeProto *t = newmsg(e, &onnx__type_proto__descriptor);
	Onnx__TypeProto__Tensor *tt =
	    newmsg(e, &onnx__type_proto__tensor__descriptor);
	t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	t->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = p->dtype;
	if (p->rank < 0)
		return t;       /* unknown rank: no shape at all */
	Onnx__TensorShapeProto *s =
	    newmsg(e, &onnx__tensor_shape_proto__descriptor);
	tt->shape = s;
	s->n_dim = (size_t)p->rank;
	s->dim = newarr(e, s->n_dim, sizeof *s->dim);
	const Dim *d = ir_dims(g, v);
	for (int32_t i = 0; i < p->rank; i++) {
		Onnx__TensorShapeProto__Dimension *x =
		    newmsg(e, &onnx__tensor_shape_proto__dimension__descriptor);
		s->dim[i] = x;
		if (d[i].e && ir_exprp(e->m, d[i].e)->kind == E_INT) {
			x->value_case = DIM_VALUE;
			x->dim_value = ir_exprp(e->m, d[i].e)->n;
		} else if (d[i].e) {
			x->value_case = DIM_PARAM;
			x->dim_param = (char *)ir_dim_text(e->m, d[i]);
		} else if (d[i].n >= 0) {
			x->value_case = DIM_VALUE;
			x->dim_value = d[i].n;
		}
		/* a negative number is an unknown dim: neither field */
	}
	return t;
}

static Onnx__ValueInfoProto *
value_info(Enc *e, GraphId gid, const Graph *g, ValId v)
{
	Onnx__ValueInfoProto *p =
	    newmsg(e, &onnx__value_info_proto__descriptor);
	p->name = valname(e, gid, g, v);
	p->type = type_proto(e, g, v);
	return p;
}

/* A TensorProto whose raw_data points at t's bytes. */
static Onnx__TensorProto *
tensor_proto(Enc *e, const Tensor *t, char *name)
{
	DType dt = (DType)t->dtype;
	uint64_t numel = 1, need;
	bool ok = dt > DT_UNDEF && dt < DT_COUNT && dt != DT_STRING &&
	    t->rank >= 0;
	for (int32_t i = 0; ok && i < t->rank; i++) {
		if (t->dims[i] < 0 || (t->dims[i] &&
		    numel > UINT64_MAX / (uint64_t)t->dims[i]))
			ok = false;
		else
			numel *= (uint64_t)t->dims[i];
	}
	if (!ok || !raw_size(dt, numel, &need)) {
		ir_error(e->m, (Loc){0, 0}, "cannot write tensor '%s' of type "
		    "%s to ONNX", name ? name : ir_str(e->m, t->name),
		    ir_dtype_name(dt));
		return NULL;
	}
	if (need != t->nbytes || (need && !t->data)) {
		internal(e, "tensor '%s' has %llu bytes, its type and shape "
		    "need %llu", name ? name : ir_str(e->m, t->name),
		    (unsigned long long)t->nbytes, (unsigned long long)need);
		return NULL;
	}
	Onnx__TensorProto *p = newmsg(e, &onnx__tensor_proto__descriptor);
	p->name = name;
	p->has_data_type = 1;
	p->data_type = dt;
	p->n_dims = (size_t)t->rank;
	p->dims = newarr(e, p->n_dims, sizeof *p->dims);
	for (int32_t i = 0; i < t->rank; i++)
		p->dims[i] = t->dims[i];
	p->has_raw_data = 1;
	p->raw_data.len = (size_t)need;
	p->raw_data.data = (uint8_t *)t->data;
	e->weights += need;
	return p;
}

/* ---------------------------------------------------------------- nodes */

static Onnx__GraphProto *graph_proto(Enc *e, GraphId gid);

static void
note_domain(Enc *e, StrId d)
{
	const char *s = ir_str(e->m, d);
	if (!d || strcmp(s, "ai.onnx") == 0)
		return;     /* both spell the default domain */
	for (uint32_t i = 0; i < e->ndomains; i++)
		if (e->domains[i] == d)
			return;
	vgrow((void **)&e->domains, &e->cdomains, e->ndomains + 1,
	    sizeof *e->domains);
	e->domains[e->ndomains++] = d;
}


static bool
is_int_item(const Arg *a)
{
	return a->kind == A_INT || a->kind == A_BOOL || a->kind == A_DTYPE;
}

static Onnx__AttributeProto *
attribute(Enc *e, const Graph *g, const Node *n, const Arg *a)
{
	Onnx__AttributeProto *p = newmsg(e, &onnx__attribute_proto__descriptor);
	p->name = str(e, a->key);
	p->has_type = 1;
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:   /* DType numbers are ONNX's: Cast(to=...) */
		p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
		p->has_i = 1;
		p->i = a->u.i;
		return p;
	case A_FLOAT:
		p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
		p->has_f = 1;
		p->f = (float)a->u.f;
		return p;
	case A_STR:
		p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
		p->has_s = 1;
		p->s.data = (uint8_t *)str(e, a->u.s);
		p->s.len = strlen((char *)p->s.data);
		return p;
	case A_TENSOR:
		p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
		p->t = tensor_proto(e, ir_tensorp(e->m, a->u.t), NULL);
		return p->t ? p : NULL;
	case A_GRAPH:
		p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
		p->g = graph_proto(e, a->u.g);
		return p->g ? p : NULL;
	case A_LIST:
	case A_TUPLE:
		break;
	default:
		internal(e, "attribute '%s' of %s has an unsupported kind %d",
		    p->name, ir_str(e->m, n->op), a->kind);
		return NULL;
	}
	const Arg *it = ir_items(g, a);
	uint32_t cnt = a->u.list.n, nint = 0, nnum = 0, nstr = 0;
	for (uint32_t i = 0; i < cnt; i++) {
		nint += is_int_item(&it[i]);
		nnum += is_int_item(&it[i]) || it[i].kind == A_FLOAT;
		nstr += it[i].kind == A_STR;
	}
	if (nint == cnt) {      /* also the empty list */
		p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
		p->n_ints = cnt;
		p->ints = newarr(e, cnt, sizeof *p->ints);
		for (uint32_t i = 0; i < cnt; i++)
			p->ints[i] = it[i].u.i;
	} else if (nnum == cnt) {
		p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
		p->n_floats = cnt;
		p->floats = newarr(e, cnt, sizeof *p->floats);
		for (uint32_t i = 0; i < cnt; i++)
			p->floats[i] = it[i].kind == A_FLOAT
			    ? (float)it[i].u.f : (float)it[i].u.i;
	} else if (nstr == cnt) {
		p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
		p->n_strings = cnt;
		p->strings = newarr(e, cnt, sizeof *p->strings);
		for (uint32_t i = 0; i < cnt; i++) {
			p->strings[i].data = (uint8_t *)str(e, it[i].u.s);
			p->strings[i].len = strlen((char *)p->strings[i].data);
		}
	} else {
		internal(e, "attribute '%s' of %s is a list of mixed kinds",
		    p->name, ir_str(e->m, n->op));
		return NULL;
	}
	return p;
}

/* Provenance in the reference exporter's keys. */
static void
node_metadata(Enc *e, const Node *n, Onnx__NodeProto *p)
{
	if (!n->name && !n->trace)
		return;
	p->metadata_props = newarr(e, 2, sizeof *p->metadata_props);
	if (n->name) {
		StrId op = n->name < e->nfxop ? e->fxop[n->name] : 0;
		p->metadata_props[p->n_metadata_props++] = entry(e, "namespace",
		    op ? fmt(e, "%s: %s", ir_str(e->m, n->name),
		    ir_str(e->m, op)) : str(e, n->name));
	}
	if (n->trace)
		p->metadata_props[p->n_metadata_props++] = entry(e,
		    "pkg.torch.onnx.stack_trace", str(e, n->trace));
}

static Onnx__NodeProto *
node_proto(Enc *e, GraphId gid, const Graph *g, NodeId id)
{
	const Node *n = ir_nodep(g, id);
	if (n->dialect != D_ONNX) {
		internal(e, "node '%s' (%s) was not lowered to ONNX",
		    ir_str(e->m, n->name), ir_str(e->m, n->op));
		return NULL;
	}
	Onnx__NodeProto *p = newmsg(e, &onnx__node_proto__descriptor);
	p->op_type = str(e, n->op);
	if (n->domain) {
		p->domain = str(e, n->domain);
		note_domain(e, n->domain);
	}
	p->name = str(e, be_node_name(e->m, &e->names,
	    ir_str(e->m, n->name ? n->name : n->op)));

	uint32_t npos = ir_npos(g, id), nin = npos;
	while (nin > 0 && ir_arg(g, id, nin - 1)->kind == A_NONE)
		nin--;          /* trailing missing inputs are left out */
	p->n_input = nin;
	p->input = newarr(e, nin, sizeof *p->input);
	for (uint32_t i = 0; i < nin; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (a->kind == A_VAL) {
			p->input[i] = valname(e, gid, g, a->u.v);
		} else if (a->kind == A_NONE) {
			p->input[i] = "";
		} else {
			internal(e, "input %u of %s is not a value", i,
			    p->op_type);
			return NULL;
		}
	}
	p->n_output = n->nout;
	p->output = newarr(e, n->nout, sizeof *p->output);
	for (uint32_t i = 0; i < n->nout; i++)
		p->output[i] = valname(e, gid, g, n->out + i);

	uint32_t nattr = n->nargs - npos;
	p->attribute = newarr(e, nattr, sizeof *p->attribute);
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (!a->key) {
			internal(e, "%s has a positional argument after "
			    "attributes", p->op_type);
			return NULL;
		}
		if (ir_is_capture(g, id, a))
			continue; /* subgraphs name outer values themselves */
		Onnx__AttributeProto *at = attribute(e, g, n, a);
		if (!at)
			return NULL;
		p->attribute[p->n_attribute++] = at;
	}
	node_metadata(e, n, p);
	return p;
}

/* --------------------------------------------------------------- graphs */

/* Every name defined once in a graph: inputs, initializers, node outputs.
 * A clash would make ONNX Runtime wire values wrongly, so it is checked. */
static bool
names_unique(Enc *e, const Graph *g, Onnx__GraphProto *p)
{
	Module *m = e->m;
	uint8_t *seen = NULL;
	uint32_t cap = 0;
	bool ok = true;
	for (size_t i = 0; ok && i < p->n_input + p->n_initializer; i++) {
		const char *s = i < p->n_input ? p->input[i]->name
		    : p->initializer[i - p->n_input]->name;
		StrId id = ir_intern(m, s);
		vgrow((void **)&seen, &cap, id + 1, 1);
		if (seen[id]) {
			internal(e, "graph '%s' defines '%s' twice",
			    ir_str(m, g->name), s);
			ok = false;
		}
		seen[id] = 1;
	}
	for (size_t i = 0; ok && i < p->n_node; i++)
		for (size_t k = 0; ok && k < p->node[i]->n_output; k++) {
			StrId id = ir_intern(m, p->node[i]->output[k]);
			vgrow((void **)&seen, &cap, id + 1, 1);
			if (seen[id]) {
				internal(e, "graph '%s' defines '%s' twice",
				    ir_str(m, g->name), p->node[i]->output[k]);
				ok = false;
			}
			seen[id] = 1;
		}
	free(seen);
	return ok;
}

static Onnx__GraphProto *
graph_proto(Enc *e, GraphId gid)
{
	Module *m = e->m;
	const Graph *g = ir_graph(m, gid);
	bool top = gid == m->main || !g->parent;
	Onnx__GraphProto *p = newmsg(e, &onnx__graph_proto__descriptor);
	p->name = g->name ? str(e, g->name) : "main_graph";

	p->input = newarr(e, g->ninputs, sizeof *p->input);
	p->initializer = newarr(e, g->ninputs, sizeof *p->initializer);
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		const Value *val = ir_val(g, v);
		char *name = valname(e, gid, g, v);
		if (val->init) {
			Onnx__TensorProto *t = tensor_proto(e,
			    ir_tensorp(m, val->init), name);
			if (!t)
				return NULL;
			p->initializer[p->n_initializer++] = t;
			continue;
		}
		Onnx__ValueInfoProto *vi = value_info(e, gid, g, v);
		if (top && !vi->type) {
			ir_error(m, (Loc){0, 0}, "graph input '%s' has no "
			    "tensor type", name);
			return NULL;
		}
		p->input[p->n_input++] = vi;
	}

	p->node = newarr(e, g->nnodes, sizeof *p->node);
	for (NodeId n = 1; n < g->nnodes; n++) {
		Onnx__NodeProto *np = node_proto(e, gid, g, n);
		if (!np)
			return NULL;
		p->node[p->n_node++] = np;
	}

	p->output = newarr(e, g->noutputs, sizeof *p->output);
	uint8_t *isout = calloc(g->nvals, 1);
	if (!isout)
		BUG("out of memory");
	for (uint32_t i = 0; i < g->noutputs; i++) {
		ValId v = g->outputs[i];
		if (isout[v]) {
			internal(e, "'%s' is output twice (the lower pass "
			    "should have added an Identity)",
			    valname(e, gid, g, v));
			free(isout);
			return NULL;
		}
		isout[v] = 1;
		Onnx__ValueInfoProto *vi = value_info(e, gid, g, v);
		if (top && !vi->type) {
			ir_error(m, (Loc){0, 0}, "graph output '%s' has no "
			    "tensor type", vi->name);
			free(isout);
			return NULL;
		}
		p->output[p->n_output++] = vi;
	}

	/* the types the lowering knows for intermediate values, so that
	 * viewers and runtimes need not infer them */
	p->value_info = newarr(e, g->nvals, sizeof *p->value_info);
	for (ValId v = 1; v < g->nvals; v++) {
		const Value *val = ir_val(g, v);
		if (!val->def || isout[v] || val->kind != VK_TENSOR ||
		    val->dtype == DT_UNDEF)
			continue;
		p->value_info[p->n_value_info++] = value_info(e, gid, g, v);
	}
	free(isout);

	return names_unique(e, g, p) ? p : NULL;
}

/* FX op names by FX node name, from every FX graph, so node metadata can
 * say which FX node an ONNX node came from. */
static void
index_fx(Enc *e)
{
	Module *m = e->m;
	e->nfxop = m->nstrs;
	e->fxop = calloc(e->nfxop ? e->nfxop : 1, sizeof *e->fxop);
	if (!e->fxop)
		BUG("out of memory");
	for (GraphId gi = 1; gi < m->ngraphs; gi++) {
		const Graph *g = m->graphs[gi];
		for (NodeId n = 1; g && n < g->nnodes; n++) {
			const Node *p = &g->nodes[n];
			if (p->dialect == D_FX && p->name &&
			    p->name < e->nfxop && !e->fxop[p->name])
				e->fxop[p->name] = p->op;
		}
	}
}

static Onnx__ModelProto *
model_proto(Enc *e, GraphId gid, const OnnxOptions *o)
{
	Module *m = e->m;
	int ir = onnx_ir_version(o->opset);
	if (!ir) {
		ir_error(m, (Loc){0, 0}, "opset %d is not supported (choose "
		    "one of 7 to 23)", o->opset);
		return NULL;
	}
	index_fx(e);
	Onnx__ModelProto *p = newmsg(e, &onnx__model_proto__descriptor);
	p->has_ir_version = 1;
	p->ir_version = ir;
	p->producer_name = "onnxc";
	p->producer_version = ONNXC_VERSION_STRING;
	p->graph = graph_proto(e, gid);
	if (!p->graph)
		return NULL;

	p->n_opset_import = 1 + e->ndomains;
	p->opset_import = newarr(e, p->n_opset_import, sizeof *p->opset_import);
	for (size_t i = 0; i < p->n_opset_import; i++) {
		Onnx__OperatorSetIdProto *s =
		    newmsg(e, &onnx__operator_set_id_proto__descriptor);
		s->domain = i ? str(e, e->domains[i - 1]) : "";
		s->has_version = 1;
		s->version = i ? 1 : o->opset;
		p->opset_import[i] = s;
	}
	if (m->ranges || m->nrng) {
		/* regenerated from the table, so that symbols renamed or added
		 * by symbolize-shapes appear; text the table could not hold is
		 * written as the dump had it */
		const char *text = m->nrng ? sym_ranges_text(m)
		    : str(e, m->ranges);
		p->n_metadata_props = 1;
		p->metadata_props = newarr(e, 1, sizeof *p->metadata_props);
		p->metadata_props[0] = entry(e, "pkg.torch.export."
		    "ExportedProgram.range_constraints", (char *)text);
	}
	if (e->weights > MAX_WEIGHT_BYTES) {
		ir_error(m, (Loc){0, 0}, "the model holds %llu MB of weights; "
		    "a single ONNX file is limited to 2 GB, so weights this "
		    "large need external data (not supported yet)",
		    (unsigned long long)(e->weights >> 20));
		return NULL;
	}
	size_t size = onnx__model_proto__get_packed_size(p);
	if (size > MAX_MODEL_BYTES) {
		ir_error(m, (Loc){0, 0}, "the model would be %zu bytes, over "
		    "the 2 GB limit of an ONNX file", size);
		return NULL;
	}
	return p;
}

static void
enc_init(Enc *e, Module *m)
{
	memset(e, 0, sizeof *e);
	e->m = m;
	e->a = arena_new();
	e->errs = m->nerrors;
}

static void
enc_free(Enc *e)
{
	arena_free(e->a);
	be_names_free(&e->names);
	free(e->fxop);
	free(e->domains);
}

static Onnx__ModelProto *
build(Enc *e, GraphId g, const OnnxOptions *o)
{
	ir_name_outer(e->m, g);
	Onnx__ModelProto *p = model_proto(e, g, o);
	if (e->m->nerrors != e->errs)
		return NULL;
	return p;
}

int
onnx_encode(Module *m, GraphId g, const OnnxOptions *o, uint8_t **buf,
    size_t *len)
{
	Enc e;
	enc_init(&e, m);
	*buf = NULL;
	*len = 0;
	Onnx__ModelProto *p = build(&e, g, o);
	if (!p) {
		enc_free(&e);
		return -1;
	}
	size_t n = onnx__model_proto__get_packed_size(p);
	*buf = xrealloc(NULL, n);
	*len = onnx__model_proto__pack(p, *buf);
	enc_free(&e);
	if (*len != n)
		BUG("packed %zu bytes of %zu", *len, n);
	return 0;
}

/* ---------------------------------------------------------------- files */

/* protobuf-c hands us the message piece by piece, tensor bytes straight
 * from the mapping; the first failed write is remembered. */
typedef struct Sink {
	ProtobufCBuffer base;
	FILE *fp;
	int err;
} Sink;

static void
sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	Sink *s = (Sink *)b;
	if (s->err || len == 0)
		return;
	errno = 0;
	if (fwrite(data, 1, len, s->fp) != len)
		s->err = errno ? errno : EIO;
}

/* BeEmit: pack the model into fp */
static int
emit_model(void *ctx, FILE *fp)
{
	Sink s = {.base = {.append = sink_append}, .fp = fp};
	onnx__model_proto__pack_to_buffer(ctx, &s.base);
	return s.err;
}

int
onnx_write(Module *m, GraphId g, const OnnxOptions *o, const char *path)
{
	Enc e;
	enc_init(&e, m);
	Onnx__ModelProto *p = build(&e, g, o);
	int rc = p ? be_write_atomic(m, path, emit_model, p) : -1;
	enc_free(&e);
	return rc;
}
