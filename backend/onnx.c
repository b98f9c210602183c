/* onnx.c - the ONNX backend: a graph of D_ONNX nodes -> ModelProto.
 *
 * Requires: a graph built by the lower pass (every node D_ONNX, every value
 * named, weights bound to graph inputs through Value.init).
 * Provides: the model as bytes (onnx_encode) or as a file (onnx_write).
 *
 * The protobuf-c message tree lives in one arena per call.  Tensor bytes
 * are never copied: raw_data points at the weights mapping (or at the
 * module's constants), and onnx_write streams the packed message through
 * a ProtobufCBuffer into the file, where out.c turns the mapped bytes into
 * a kernel copy from the weights file.  With external data (forced, or
 * when the model would pass 2 GB) initializers go to <model>.data instead.
 * protobuf-c types stay here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <onnx.pb-c.h>

#include "onnx.h"

/* A single protobuf message cannot exceed 2 GB. */
#define MAX_MODEL_BYTES ((UINT64_C(2) << 30) - 1)
/* External data offsets: ONNX Runtime maps tensors of the data file
 * (Env::MapFileIntoMemory) at page granularity, and Windows maps at 64 KiB;
 * a tensor of 1 MiB or more starts on a 64 KiB boundary (also a multiple
 * of 4 and 16 KiB pages), smaller ones on 64 bytes (any element type, a
 * cache line) so padding stays small. */
#define EXT_ALIGN_BIG 65536
#define EXT_ALIGN_SMALL 64
#define EXT_BIG (UINT64_C(1) << 20)

static const Onnx__TensorShapeProto__Dimension__ValueCase
	DIM_VALUE = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE,
	DIM_PARAM = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;

typedef struct Enc {
	Module *m;
	Arena *a;            /* every protobuf-c structure of this model */
	uint64_t weights;    /* bytes of initializers and tensor attributes */
	BeNames names;       /* node names taken */
	const OnnxOptions *o;
	BeMeta *meta;        /* provenance texts; NULL: --no-metadata */
	StrId *domains;      /* non-default domains the nodes use */
	uint32_t ndomains, cdomains;
	Onnx__TensorProto **inits; /* every initializer, in model order */
	uint32_t ninits, cinits;
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
static void graph_metadata(Enc *e, GraphId gid, Onnx__GraphProto *p);

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

/* n metadata entries into *props, from an array of key, value pairs */
static void
props(Enc *e, Onnx__StringStringEntryProto ***out, size_t *nout,
    const char *const *kv, size_t n)
{
	*out = newarr(e, n, sizeof **out);
	*nout = n;
	for (size_t i = 0; i < n; i++)
		(*out)[i] = entry(e, kv[2 * i], (char *)kv[2 * i + 1]);
}

/* Provenance in torch.onnx's keys, on every node made from an FX node. */
static void
node_metadata(Enc *e, const Node *n, Onnx__NodeProto *p)
{
	BeNodeMeta nm;
	if (!e->meta || !be_meta_node(e->meta, n, &nm))
		return;
	const char *kv[] = {
		"namespace", nm.ns,
		"pkg.torch.onnx.class_hierarchy", nm.classes,
		"pkg.torch.onnx.fx_node", nm.fx_node,
		"pkg.torch.onnx.name_scopes", nm.scopes,
		"pkg.torch.onnx.stack_trace", nm.trace,
	};
	props(e, &p->metadata_props, &p->n_metadata_props, kv, 5);
}

/* The signature keys of graph input v (a ValueInfoProto's or an
 * initializer's), and its FX name when it was renamed. */
static void
input_metadata(Enc *e, const Value *v, Onnx__StringStringEntryProto ***out,
    size_t *nout)
{
	if (!e->meta)
		return;
	const char *kv[] = {
		"pkg.torch.export.graph_signature.InputSpec.kind",
		be_input_kind((Role)v->role),
		"pkg.torch.export.graph_signature.InputSpec.persistent",
		be_persist_text(v),
		"pkg.torch.onnx.original_node_name",
		v->orig ? ir_str(e->m, v->orig) : NULL,
	};
	props(e, out, nout, kv, v->orig ? 3 : 2);
}

static void
output_metadata(Enc *e, const Value *v, OutKind k, Onnx__ValueInfoProto *p)
{
	if (!e->meta)
		return;
	const char *kv[] = {
		"pkg.torch.export.graph_signature.OutputSpec.kind",
		be_output_kind(k),
		"pkg.torch.onnx.original_node_name",
		v->orig ? ir_str(e->m, v->orig) : NULL,
	};
	props(e, &p->metadata_props, &p->n_metadata_props, kv,
	    v->orig ? 2 : 1);
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
	/* with --keep-initializers-as-inputs each initializer is an input
	 * of the same name, by design */
	size_t ninit = e->o->init_inputs ? 0 : p->n_initializer;
	for (size_t i = 0; ok && i < p->n_input + ninit; i++) {
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
		if (val->init && !e->o->no_weights) {
			Onnx__TensorProto *t = tensor_proto(e,
			    ir_tensorp(m, val->init), name);
			if (!t)
				return NULL;
			if (top)
				input_metadata(e, val, &t->metadata_props,
				    &t->n_metadata_props);
			p->initializer[p->n_initializer++] = t;
			vgrow((void **)&e->inits, &e->cinits, e->ninits + 1,
			    sizeof *e->inits);
			e->inits[e->ninits++] = t;
			if (!e->o->init_inputs)
				continue;
		}
		Onnx__ValueInfoProto *vi = value_info(e, gid, g, v);
		if (top)
			input_metadata(e, val, &vi->metadata_props,
			    &vi->n_metadata_props);
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
		if (top)
			output_metadata(e, ir_val(g, v), (OutKind)g->outkind[i],
			    vi);
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
	if (top && e->meta)
		graph_metadata(e, gid, p);

	return names_unique(e, g, p) ? p : NULL;
}

/* torch.onnx's graph keys: the signature and the range constraints
 * (regenerated from the table, so that symbols renamed or added by
 * symbolize-shapes appear; text the table could not hold is written as
 * the dump had it). */
static void
graph_metadata(Enc *e, GraphId gid, Onnx__GraphProto *p)
{
	Module *m = e->m;
	const char *kv[] = {
		"pkg.torch.export.ExportedProgram.graph_signature",
		be_meta_signature(e->meta, m->main ? m->main : gid),
		"pkg.torch.export.ExportedProgram.range_constraints",
		m->nrng ? sym_ranges_text(m) : m->ranges ? ir_str(m, m->ranges)
		    : "{}",
	};
	props(e, &p->metadata_props, &p->n_metadata_props, kv, 2);
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
	e->o = o;
	if (!o->no_metadata)
		e->meta = be_meta_new(m, o->strip_paths);
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
	be_meta_free(e->meta);
	free(e->domains);
	free(e->inits);
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
	if (n > MAX_MODEL_BYTES) {
		ir_error(m, (Loc){0, 0}, "the model would be %zu MB, over the "
		    "2 GB limit of a single ONNX message; write it to a file, "
		    "where its weights can go to external data", n >> 20);
		enc_free(&e);
		return -1;
	}
	*buf = xrealloc(NULL, n);
	*len = onnx__model_proto__pack(p, *buf);
	enc_free(&e);
	if (*len != n)
		BUG("packed %zu bytes of %zu", *len, n);
	return 0;
}

/* ---------------------------------------------------------------- files */

/* protobuf-c hands us the message piece by piece, raw_data straight from
 * the weights mapping, which be_out_write turns into a kernel copy from
 * the weights file; the first failed write is remembered. */
typedef struct Sink {
	ProtobufCBuffer base;
	BeOut *out;
	int err;
} Sink;

static void
sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	Sink *s = (Sink *)b;
	if (!s->err)
		s->err = be_out_write(s->out, data, len);
}

/* BeEmit: pack the model into o */
static int
emit_model(void *ctx, BeOut *o)
{
	Sink s = {.base = {.append = sink_append}, .out = o};
	onnx__model_proto__pack_to_buffer(ctx, &s.base);
	return s.err;
}

/* Move each initializer of at least threshold bytes to the data file
 * named location: its offset, aligned, and its length go into
 * external_data; raw_data keeps the bytes for write_data.  Returns how
 * many moved. */
static uint32_t
externalize(Enc *e, const char *location, uint64_t threshold)
{
	uint64_t off = 0;
	uint32_t moved = 0;
	for (uint32_t i = 0; i < e->ninits; i++) {
		Onnx__TensorProto *t = e->inits[i];
		uint64_t n = t->raw_data.len;
		if (n == 0 || n < threshold)
			continue;
		uint64_t al = n >= EXT_BIG ? EXT_ALIGN_BIG : EXT_ALIGN_SMALL;
		off = (off + al - 1) & ~(al - 1);
		Onnx__StringStringEntryProto **x = newarr(e, 3, sizeof *x);
		x[0] = entry(e, "location", (char *)location);
		x[1] = entry(e, "offset", fmt(e, "%llu",
		    (unsigned long long)off));
		x[2] = entry(e, "length", fmt(e, "%llu",
		    (unsigned long long)n));
		t->external_data = x;
		t->n_external_data = 3;
		t->has_data_location = 1;
		t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
		t->has_raw_data = 0;   /* not packed; the bytes stay known */
		off += n;
		moved++;
	}
	return moved;
}

/* The data file: each external initializer at its offset. */
static int
write_data(Enc *e, BeOut *o)
{
	int err = 0;
	for (uint32_t i = 0; !err && i < e->ninits; i++) {
		const Onnx__TensorProto *t = e->inits[i];
		if (!t->n_external_data)
			continue;
		uint64_t al = t->raw_data.len >= EXT_BIG ? EXT_ALIGN_BIG
		    : EXT_ALIGN_SMALL;
		if (!(err = be_out_align(o, al)))
			err = be_out_write(o, t->raw_data.data,
			    t->raw_data.len);
	}
	return err;
}

/* Whether the initializers go to external data, by o and the size;
 * -1 after an error. */
static int
want_external(Enc *e, Onnx__ModelProto *p, const OnnxOptions *o)
{
	if (o->external == ONNX_EXT_ALWAYS)
		return 1;
	size_t size = onnx__model_proto__get_packed_size(p);
	if (size <= MAX_MODEL_BYTES)
		return 0;
	if (o->external == ONNX_EXT_AUTO)
		return 1;
	ir_error(e->m, (Loc){0, 0}, "the model would be %zu MB, over the 2 GB "
	    "limit of a single ONNX file, and --no-external-data forbids "
	    "writing its weights to a data file beside it", size >> 20);
	return -1;
}

static int
write_external(Enc *e, Onnx__ModelProto *p, const OnnxOptions *o,
    BeOut *model)
{
	Module *m = e->m;
	const char *target = be_out_target(model);
	const char *slash = strrchr(target, '/');
	char *data = fmt(e, "%s.data", target);
	uint32_t moved = externalize(e, fmt(e, "%s.data", slash ? slash + 1
	    : target), o->ext_threshold);
	size_t size = onnx__model_proto__get_packed_size(p);
	if (size > MAX_MODEL_BYTES) {
		ir_error(m, (Loc){0, 0}, "the model would be %zu MB even with "
		    "its initializers in external data, over the 2 GB limit "
		    "of an ONNX file", size >> 20);
		be_out_discard(model);
		return -1;
	}
	if (moved == 0) {       /* every tensor under the threshold */
		int err = emit_model(p, model);
		if (!err)
			return be_out_commit(m, &model, 1);
		be_out_report(m, model, err);
		be_out_discard(model);
		return -1;
	}
	BeOut *outs[2] = {be_out_open(m, data), model};
	if (!outs[0]) {
		be_out_discard(model);
		return -1;
	}
	int err = write_data(e, outs[0]);
	BeOut *bad = outs[0];
	if (!err) {
		err = emit_model(p, model);
		bad = model;
	}
	if (err) {
		be_out_report(m, bad, err);
		be_out_discard(outs[0]);
		be_out_discard(model);
		return -1;
	}
	return be_out_commit(m, outs, 2);
}

int
onnx_write(Module *m, GraphId g, const OnnxOptions *o, const char *path)
{
	Enc e;
	enc_init(&e, m);
	Onnx__ModelProto *p = build(&e, g, o);
	int ext = p ? want_external(&e, p, o) : -1;
	int rc = -1;
	if (ext == 0) {
		rc = be_write_atomic(m, path, emit_model, p);
	} else if (ext == 1) {
		BeOut *model = be_out_open(m, path);
		rc = model ? write_external(&e, p, o, model) : -1;
	}
	enc_free(&e);
	return rc;
}
