/* ort_node.c - the ORT writer's tables for the parts of a graph: tensor
 * types, tensors (raw_data referencing the mapped weights), attributes
 * with the schema defaults ORT fills in, nodes with their input_arg_count
 * and implicit inputs, and the edge list between nodes.
 */
#include "ort_int.h"

/* what ONNX Runtime 1.30 reads in an .ort Tensor: up to the float8s */
#define MAX_ORT_DTYPE DT_F8E5M2FNUZ
/* raw_data alignment: more than ORT needs (4), kind to zero-copy loads */
#define RAW_ALIGN 16

/* ------------------------------------------------------------- types */

static FbsRef
dim(Enc *e, bool known, int64_t n, const char *param)
{
	FbsRef ps = param ? fbs_string(e->b, param) : 0;
	fbs_table(e->b);
	if (known)
		fbs_i64(e->b, DV_VALUE, n, 0);
	fbs_ref(e->b, DV_PARAM, ps);
	fbs_u8(e->b, DV_TYPE, param ? DIM_PARAM : known ? DIM_VALUE
	    : DIM_UNKNOWN, DIM_UNKNOWN);
	FbsRef dv = fbs_end(e->b);
	fbs_table(e->b);
	fbs_ref(e->b, 0, dv);
	return fbs_end(e->b);
}

FbsRef
ort_type_info(Enc *e, DType dt, int32_t rank, const Dim *d, const int64_t *nd,
    bool withshape)
{
	FbsRef shape = 0;
	if (withshape && rank >= 0) {
		FbsRef *dims = xcalloc((size_t)rank, sizeof *dims);
		for (int32_t i = 0; i < rank; i++) {
			if (nd) {
				dims[i] = dim(e, true, nd[i], NULL);
			} else if (d[i].e &&
			    ir_exprp(e->m, d[i].e)->kind == E_INT) {
				dims[i] = dim(e, true,
				    ir_exprp(e->m, d[i].e)->n, NULL);
			} else if (d[i].e) {
				dims[i] = dim(e, false, 0,
				    ir_dim_text(e->m, d[i]));
			} else {
				dims[i] = dim(e, d[i].n >= 0, d[i].n, NULL);
			}
		}
		FbsRef v = fbs_vec_refs(e->b, dims, (uint32_t)rank);
		free(dims);
		fbs_table(e->b);
		fbs_ref(e->b, 0, v);
		shape = fbs_end(e->b);
	}
	fbs_table(e->b);
	fbs_ref(e->b, TT_SHAPE, shape);
	fbs_i32(e->b, TT_ELEM_TYPE, dt, 0);
	FbsRef tt = fbs_end(e->b);
	fbs_table(e->b);
	fbs_ref(e->b, TYPE_VALUE, tt);
	fbs_u8(e->b, TYPE_VALUE_TYPE, TYPE_TENSOR, 0);
	return fbs_end(e->b);
}

FbsRef
ort_value_info(Enc *e, StrId name, FbsRef type)
{
	FbsRef n = str(e, name);
	fbs_table(e->b);
	fbs_ref(e->b, VI_NAME, n);
	fbs_ref(e->b, VI_TYPE, type);
	return fbs_end(e->b);
}

/* ------------------------------------------------------------ tensors */

/* Whether t can go into an .ort Tensor; reports why not. */
static bool
tensor_ok(Enc *e, const Tensor *t, StrId name)
{
	DType dt = (DType)t->dtype;
	const char *nm = ir_str(e->m, name ? name : t->name);
	if (dt > MAX_ORT_DTYPE && dt < DT_COUNT) {
		ir_error(e->m, (Loc){0, 0}, "tensor '%s' is %s, which the .ort "
		    "format of ONNX Runtime 1.30 cannot hold (its types stop "
		    "at the float8 ones); write ONNX instead", nm,
		    ir_dtype_name(dt));
		return false;
	}
	return be_tensor_check(e->m, t, nm, "an .ort file", "ORT");
}

FbsRef
ort_tensor(Enc *e, const Tensor *t, StrId name)
{
	if (!tensor_ok(e, t, name))
		return 0;
	FbsRef raw = fbs_vec_blob(e->b, t->data, t->nbytes, RAW_ALIGN);
	FbsRef dims = fbs_vec_scalars(e->b, t->dims, (uint32_t)t->rank, 8);
	FbsRef nm = name ? str(e, name) : 0;
	fbs_table(e->b);
	fbs_ref(e->b, TENSOR_NAME, nm);
	fbs_ref(e->b, TENSOR_DIMS, dims);
	fbs_i32(e->b, TENSOR_DATA_TYPE, t->dtype, 0);
	fbs_ref(e->b, TENSOR_RAW_DATA, raw);
	return fbs_end(e->b);
}

/* --------------------------------------------------------- attributes */

static FbsRef
attribute(Enc *e, NodeId id, const Arg *a)
{
	const Graph *g = e->p.g;
	const char *op = ir_str(e->m, ir_nodep(g, id)->op);
	const char *key = ir_str(e->m, a->key);
	int type = 0;
	int64_t i = 0;
	float f = 0;
	FbsRef s = 0, t = 0, list = 0, sub = 0;
	int listslot = 0;
	switch (a->kind) {
	case A_INT:
	case A_BOOL:
	case A_DTYPE:   /* DType numbers are ONNX's: Cast(to=...) */
		type = AT_INT;
		i = a->u.i;
		break;
	case A_FLOAT:
		type = AT_FLOAT;
		f = (float)a->u.f;
		break;
	case A_STR:
		type = AT_STRING;
		s = str(e, a->u.s);
		break;
	case A_TENSOR:
		type = AT_TENSOR;
		t = ort_tensor(e, ir_tensorp(e->m, a->u.t), 0);
		if (!t)
			return 0;
		break;
	case A_GRAPH:
		type = AT_GRAPH;
		if (!(sub = ort_subgraph(e, a->u.g)))
			return 0;
		break;
	case A_LIST:
	case A_TUPLE: {
		const Arg *it = ir_items(g, a);
		uint32_t cnt = a->u.list.n;
		BeListKind kind = be_list_kind(g, a);
		if (kind == BE_LIST_INTS) {      /* also the empty list */
			int64_t *v = xcalloc(cnt, sizeof *v);
			for (uint32_t k = 0; k < cnt; k++)
				v[k] = it[k].u.i;
			list = fbs_vec_scalars(e->b, v, cnt, 8);
			free(v);
			type = AT_INTS;
			listslot = ATTR_INTS;
		} else if (kind == BE_LIST_FLOATS) {
			float *v = xcalloc(cnt, sizeof *v);
			for (uint32_t k = 0; k < cnt; k++)
				v[k] = it[k].kind == A_FLOAT ? (float)it[k].u.f
				    : (float)it[k].u.i;
			list = fbs_vec_scalars(e->b, v, cnt, 4);
			free(v);
			type = AT_FLOATS;
			listslot = ATTR_FLOATS;
		} else if (kind == BE_LIST_STRINGS) {
			FbsRef *v = xcalloc(cnt, sizeof *v);
			for (uint32_t k = 0; k < cnt; k++)
				v[k] = str(e, it[k].u.s);
			list = fbs_vec_refs(e->b, v, cnt);
			free(v);
			type = AT_STRINGS;
			listslot = ATTR_STRINGS;
		} else {
			ort_internal(e, "attribute '%s' of %s is a list of mixed "
			    "kinds", key, op);
			return 0;
		}
		break;
	}
	default:
		ort_internal(e, "attribute '%s' of %s has an unsupported kind %d",
		    key, op, a->kind);
		return 0;
	}
	FbsRef name = str(e, a->key);
	fbs_table(e->b);
	fbs_i64(e->b, ATTR_I, i, 0);
	fbs_ref(e->b, ATTR_NAME, name);
	fbs_i32(e->b, ATTR_TYPE, type, 0);
	fbs_f32(e->b, ATTR_F, f, 0);
	fbs_ref(e->b, ATTR_S, s);
	fbs_ref(e->b, ATTR_T, t);
	fbs_ref(e->b, ATTR_G, sub);
	if (list)
		fbs_ref(e->b, listslot, list);
	return fbs_end(e->b);
}

/* A schema default the node leaves out, as ORT fills it in. */
static FbsRef
default_attribute(Enc *e, const OpAttr *d)
{
	FbsRef name = str(e, ir_internn(e->m, d->name, (size_t)d->namelen));
	FbsRef s = d->kind == OAK_STRING
	    ? fbs_stringn(e->b, d->s, (size_t)d->slen) : 0;
	fbs_table(e->b);
	if (d->kind == OAK_INT)
		fbs_i64(e->b, ATTR_I, d->i, 0);
	fbs_ref(e->b, ATTR_NAME, name);
	fbs_i32(e->b, ATTR_TYPE, d->kind == OAK_INT ? AT_INT
	    : d->kind == OAK_FLOAT ? AT_FLOAT : AT_STRING, 0);
	if (d->kind == OAK_FLOAT)
		fbs_f32(e->b, ATTR_F, (float)d->f, 0);
	fbs_ref(e->b, ATTR_S, s);
	return fbs_end(e->b);
}

/* -------------------------------------------------------------- nodes */

FbsRef
ort_node(Enc *e, NodeId id)
{
	Module *m = e->m;
	const Graph *g = e->p.g;
	const Node *n = ir_nodep(g, id);
	const OpSchema *s = e->p.schema[id];
	const char *op = ir_str(m, n->op);

	uint32_t nin = node_inputs(g, id);
	int32_t counts[OPSCHEMA_MAX_PARAMS];
	int nformal = opschema_arg_counts(s, nin, counts);
	if (nformal < 0) {
		ort_internal(e, "%s has %u inputs, more than %s-%d takes", op, nin,
		    op, s->since);
		return 0;
	}
	FbsRef *refs = xcalloc(nin + n->nout + n->nargs + OPSCHEMA_MAX_PARAMS,
	    sizeof *refs);
	FbsRef ins = 0, outs, attrs, argc, nm, opname, dom = 0;
	for (uint32_t i = 0; i < nin; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (a->kind == A_VAL) {
			refs[i] = str(e, e->p.name[a->u.v]);
		} else if (a->kind == A_NONE) {
			refs[i] = str(e, 0);
		} else {
			ort_internal(e, "input %u of %s is not a value", i, op);
			goto fail;
		}
	}
	ins = fbs_vec_refs(e->b, refs, nin);
	for (uint32_t k = 0; k < n->nout; k++)
		refs[k] = str(e, e->p.name[n->out + k]);
	outs = fbs_vec_refs(e->b, refs, n->nout);

	/* attributes as given, then the schema's defaults for the rest */
	uint32_t na = 0, npos = ir_npos(g, id);
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (!a->key) {
			ort_internal(e, "%s has a positional argument after "
			    "attributes", op);
			goto fail;
		}
		if (ir_is_capture(g, id, a))
			continue;
		if (!(refs[na++] = attribute(e, id, a)))
			goto fail;
	}
	OpAttr defs[OPSCHEMA_MAX_PARAMS];
	int nd = opschema_attrs(s, defs);
	for (int k = 0; k < nd; k++) {
		if (!defs[k].has_default)
			continue;
		StrId key = ir_internn(m, defs[k].name,
		    (size_t)defs[k].namelen);
		bool given = false;
		for (uint32_t i = npos; i < n->nargs && !given; i++)
			given = ir_arg(g, id, i)->key == key;
		if (!given)
			refs[na++] = default_attribute(e, &defs[k]);
	}
	attrs = fbs_vec_refs(e->b, refs, na);
	argc = fbs_vec_scalars(e->b, counts, (uint32_t)nformal, 4);
	char name[BE_NODE_NAME_MAX];
	nm = cstr(e, be_node_text(m, e->p.nodename[id], name, NULL));
	opname = str(e, n->op);
	dom = str(e, 0);    /* "" for ai.onnx: the only domain with schemas */
	/* the outer values its subgraphs read: its captures, each once */
	uint32_t ni = 0;
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (!ir_is_capture(g, id, a))
			continue;
		FbsRef r = str(e, e->p.name[a->u.v]);
		uint32_t k = 0;
		while (k < ni && refs[k] != r)
			k++;
		if (k == ni)
			refs[ni++] = r;
	}
	FbsRef implicit = ni ? fbs_vec_refs(e->b, refs, ni) : empty_vec(e);

	fbs_table(e->b);
	fbs_ref(e->b, NODE_NAME, nm);
	fbs_ref(e->b, NODE_DOMAIN, dom);
	fbs_i32(e->b, NODE_SINCE_VERSION, s->since, 0);
	fbs_u32(e->b, NODE_INDEX, e->p.index[id] - 1, 0);
	fbs_ref(e->b, NODE_OP_TYPE, opname);
	fbs_ref(e->b, NODE_INPUTS, ins);
	fbs_ref(e->b, NODE_OUTPUTS, outs);
	fbs_ref(e->b, NODE_ATTRIBUTES, attrs);
	fbs_ref(e->b, NODE_INPUT_ARG_COUNTS, argc);
	fbs_ref(e->b, NODE_IMPLICIT_INPUTS, implicit);
	free(refs);
	return fbs_end(e->b);
fail:
	free(refs);
	return 0;
}

static int
cmp_in(const void *a, const void *b)
{
	const Edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int
cmp_out(const void *a, const void *b)
{
	const Edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* EdgeEnd structs {other node, src arg, dst arg}, little-endian. */
static FbsRef
edge_ends(Enc *e, const Edge *ed, uint32_t n, bool in)
{
	uint8_t *buf = xcalloc(n, 12);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w[3] = {in ? ed[i].from : ed[i].to,
		    (uint32_t)ed[i].src, (uint32_t)ed[i].dst};
		for (int k = 0; k < 12; k++)
			buf[12 * i + k] = (uint8_t)(w[k / 4] >> (8 * (k % 4)));
	}
	FbsRef r = fbs_vec_structs(e->b, buf, n, 12, 4);
	free(buf);
	return r;
}

FbsRef
ort_node_edges(Enc *e, uint32_t nnodes)
{
	const Graph *g = e->p.g;
	Edge *in = NULL;
	uint32_t nedges = 0, cedges = 0;
	for (NodeId id = 1; id < g->nnodes; id++) {
		if (!e->p.index[id])
			continue;
		uint32_t nin = node_inputs(g, id);
		for (uint32_t i = 0; i < nin; i++) {
			const Arg *a = ir_arg(g, id, i);
			if (a->kind != A_VAL || !e->p.defnode[a->u.v])
				continue;
			vgrow((void **)&in, &cedges, nedges + 1, sizeof *in);
			in[nedges++] = (Edge){e->p.defnode[a->u.v] - 1,
			    e->p.index[id] - 1,
			    (int32_t)ir_val(g, a->u.v)->defidx, (int32_t)i};
		}
	}
	Edge *out = xcalloc(nedges, sizeof *out);
	if (nedges)
		memcpy(out, in, nedges * sizeof *out);
	if (nedges) {
		qsort(in, nedges, sizeof *in, cmp_in);
		qsort(out, nedges, sizeof *out, cmp_out);
	}
	FbsRef *refs = xcalloc(nnodes, sizeof *refs);
	uint32_t ii = 0, oi = 0;
	for (uint32_t k = 0; k < nnodes; k++) {
		uint32_t i0 = ii, o0 = oi;
		while (ii < nedges && in[ii].to == k)
			ii++;
		while (oi < nedges && out[oi].from == k)
			oi++;
		FbsRef ie = edge_ends(e, in + i0, ii - i0, true);
		FbsRef oe = edge_ends(e, out + o0, oi - o0, false);
		fbs_table(e->b);
		fbs_u32(e->b, EDGE_NODE_INDEX, k, 0);
		fbs_ref(e->b, EDGE_INPUTS, ie);
		fbs_ref(e->b, EDGE_OUTPUTS, oe);
		refs[k] = fbs_end(e->b);
	}
	FbsRef r = fbs_vec_refs(e->b, refs, nnodes);
	free(refs);
	free(in);
	free(out);
	return r;
}
