/* onnx_roundtrip_fuzzer.c - dump text -> IR -> lower -> ONNX bytes ->
 * protobuf-c unpack, then the unpacked model is compared with the lowered
 * graph it was meant to hold: versions, every node (op, domain, inputs,
 * outputs), graph inputs with their types, initializers byte for byte,
 * outputs.  Weights with small static shapes are bound to synthetic bytes
 * so that initializers are exercised too.  The model is also written into
 * a file through the split, streamed writer (chunks of two nodes, made in
 * one run each, the graph's length patched in: pbsplit.h), whose bytes
 * must be onnx_encode's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <onnx.pb-c.h>

#include "backend/onnx.h"
#include "frontend/fx.h"
#include "fuzz.h"
#include "lower/lower.h"

#define WEIGHT_BUDGET (64u << 10)

static void
differ(const char *what, const char *a, const char *b)
{
	fprintf(stderr, "fuzz: round trip differs at %s: '%s' vs '%s'\n",
	    what, a ? a : "(null)", b ? b : "(null)");
	abort();
}

static void
same(const char *what, const char *want, const char *got)
{
	if (!got || strcmp(want, got) != 0)
		differ(what, want, got);
}

static void
same_int(const char *what, int64_t want, int64_t got)
{
	char a[32], b[32];
	if (want == got)
		return;
	snprintf(a, sizeof a, "%lld", (long long)want);
	snprintf(b, sizeof b, "%lld", (long long)got);
	differ(what, a, b);
}

/* The name the backend gives a value of the main graph. */
static const char *
vname(const Module *m, const Graph *g, ValId v, char *buf)
{
	const Value *p = ir_val(g, v);
	if (p->name)
		return ir_str(m, p->name);
	snprintf(buf, 32, "_v%u", v);
	return buf;
}

/* Bytes of a weight of static shape, or 0 if it gets none. */
static uint64_t
weight_bytes(const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	if (p->kind != VK_TENSOR || p->rank < 0 ||
	    (p->role != ROLE_PARAM && p->role != ROLE_BUFFER &&
	    p->role != ROLE_CONST) || ir_dtype_size((DType)p->dtype) == 0)
		return 0;
	const Dim *d = ir_dims(g, v);
	uint64_t n = ir_dtype_size((DType)p->dtype);
	for (int32_t i = 0; i < p->rank; i++) {
		if (d[i].e || d[i].n < 0 || (uint64_t)d[i].n > WEIGHT_BUDGET)
			return 0;
		n *= (uint64_t)d[i].n;
		if (n > WEIGHT_BUDGET)
			return 0;
	}
	return n;
}

static void
bind_weights(Module *m, GraphId gid)
{
	Graph *g = ir_graph(m, gid);
	uint64_t budget = WEIGHT_BUDGET;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		uint64_t n = weight_bytes(g, v);
		if (n == 0 || n > budget)
			continue;
		budget -= n;
		Value *p = ir_val(g, v);
		uint8_t *bytes = arena_alloc(m->arena, (size_t)n);
		for (uint64_t k = 0; k < n; k++)
			bytes[k] = (uint8_t)(k * 31 + i);
		int64_t dims[64];
		const Dim *d = ir_dims(g, v);
		if (p->rank > 64)
			continue;
		for (int32_t k = 0; k < p->rank; k++)
			dims[k] = d[k].n;
		Tensor t = {.name = p->target ? p->target : p->name,
		    .dtype = p->dtype, .rank = p->rank, .dims = dims,
		    .data = bytes, .nbytes = n};
		p->init = ir_tensor(m, &t);
	}
}

static void
compare_type(const char *what, const Graph *g, ValId v,
    const Onnx__TypeProto *t)
{
	const Value *p = ir_val(g, v);
	if (p->kind != VK_TENSOR || p->dtype == DT_UNDEF) {
		if (t)
			differ(what, "no type", "a type");
		return;
	}
	if (!t || !t->tensor_type)
		differ(what, "a tensor type", "none");
	same_int(what, p->dtype, t->tensor_type->elem_type);
	const Onnx__TensorShapeProto *s = t->tensor_type->shape;
	if (p->rank < 0) {
		if (s)
			differ(what, "no shape", "a shape");
		return;
	}
	if (!s)
		differ(what, "a shape", "none");
	same_int(what, p->rank, (int64_t)s->n_dim);
	const Dim *d = ir_dims(g, v);
	for (int32_t i = 0; i < p->rank; i++)
		if (!d[i].e && d[i].n >= 0)
			same_int(what, d[i].n, s->dim[i]->dim_value);
		else if (!d[i].e && s->dim[i]->value_case !=
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET)
			differ(what, "an unknown dim", "a known one");
}

static void
compare(Module *m, GraphId gid, int opset, const Onnx__ModelProto *p)
{
	const Graph *g = ir_graph(m, gid);
	char b1[32];
	same_int("ir_version", be_ir_version(opset), p->ir_version);
	if (p->n_opset_import < 1 || !p->graph)
		differ("model", "an opset and a graph", "missing");
	same("opset domain", "", p->opset_import[0]->domain);
	same_int("opset", opset, p->opset_import[0]->version);
	const Onnx__GraphProto *gp = p->graph;
	same_int("node count", g->nnodes - 1, (int64_t)gp->n_node);
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *np = ir_nodep(g, n);
		const Onnx__NodeProto *q = gp->node[n - 1];
		same("op_type", ir_str(m, np->op), q->op_type);
		same("domain", np->domain ? ir_str(m, np->domain) : "",
		    q->domain ? q->domain : "");
		same_int("outputs", np->nout, (int64_t)q->n_output);
		for (uint32_t k = 0; k < np->nout; k++)
			same("output", vname(m, g, np->out + k, b1),
			    q->output[k]);
		if (q->n_input > ir_npos(g, n))
			differ("inputs", "fewer", "more");
		for (uint32_t k = 0; k < q->n_input; k++) {
			const Arg *a = ir_arg(g, n, k);
			same("input", a->kind == A_VAL ? vname(m, g, a->u.v, b1)
			    : "", q->input[k]);
		}
	}
	size_t nin = 0, ninit = 0;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		const Value *val = ir_val(g, v);
		if (!val->init) {
			if (nin >= gp->n_input)
				differ("inputs", "more", "fewer");
			const Onnx__ValueInfoProto *vi = gp->input[nin++];
			same("input name", vname(m, g, v, b1), vi->name);
			compare_type("input type", g, v, vi->type);
			continue;
		}
		if (ninit >= gp->n_initializer)
			differ("initializers", "more", "fewer");
		const Onnx__TensorProto *t = gp->initializer[ninit++];
		const Tensor *w = ir_tensorp(m, val->init);
		same("initializer", vname(m, g, v, b1), t->name);
		same_int("initializer type", w->dtype, t->data_type);
		same_int("initializer rank", w->rank, (int64_t)t->n_dims);
		for (int32_t k = 0; k < w->rank; k++)
			same_int("initializer dim", w->dims[k], t->dims[k]);
		if (t->raw_data.len != w->nbytes || (w->nbytes &&
		    memcmp(t->raw_data.data, w->data, w->nbytes) != 0))
			differ("initializer bytes", "equal", "different");
	}
	same_int("graph inputs", (int64_t)nin, (int64_t)gp->n_input);
	same_int("initializers", (int64_t)ninit, (int64_t)gp->n_initializer);
	same_int("graph outputs", g->noutputs, (int64_t)gp->n_output);
	for (uint32_t i = 0; i < g->noutputs; i++) {
		same("output name", vname(m, g, g->outputs[i], b1),
		    gp->output[i]->name);
		compare_type("output type", g, g->outputs[i],
		    gp->output[i]->type);
	}
}

/* Graph g written to a file with its nodes in chunks of two (a graph of
 * five nodes or more is split, and streamed): the bytes of want. */
static void
compare_streamed(Module *m, GraphId g, int opset, const uint8_t *want,
    size_t n)
{
	static char path[64];
	if (!*path)   /* tmpfs where there is one: a file per input */
		snprintf(path, sizeof path, "%s/onnxc_fuzz_%d.onnx",
		    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		    (int)getpid());
	BeOptions o = {.opset = opset, .split_nodes = 2, .threads = 1};
	if (onnx_write(m, g, &o, path) != 0)
		differ("the streamed write", "written", "failed");
	FILE *f = fopen(path, "rb");
	if (!f)
		differ("the streamed write", "a file", "none");
	uint8_t *got = malloc(n + 1);
	size_t k = got ? fread(got, 1, n + 1, f) : 0;
	fclose(f);
	unlink(path);
	if (k != n || memcmp(got, want, n) != 0)
		differ("the streamed file", "onnx_encode's bytes", "others");
	free(got);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FzDiag d;
	Module *m = fz_module(&d, "fuzz.txt", data, size);
	int opset = 17 + (int)(size % 7);
	GraphId fx = 0, onnx = 0;
	int rc = fx_parse(m, &fx);
	fz_check(m, &d, rc, 0, "fx_parse");
	if (rc == 0) {
		fz_check(m, &d, fz_verify_all(m, fx), 0, "ir_verify");
		bind_weights(m, fx);
		rc = pass_lower(m, fx, &onnx, opset);
		fz_check(m, &d, rc, 0, "pass_lower");
	}
	if (rc == 0) {
		fz_check(m, &d, ir_verify(m, onnx), 0, "ir_verify (lowered)");
		uint8_t *buf;
		size_t len;
		int errs = m->nerrors;
		rc = onnx_encode(m, onnx, &(BeOptions){.opset = opset}, &buf,
		    &len);
		fz_check(m, &d, rc, errs, "onnx_encode");
		if (rc == 0) {
			Onnx__ModelProto *p = onnx__model_proto__unpack(NULL,
			    len, buf);
			if (!p)
				differ("unpack", "a model", "none");
			compare(m, onnx, opset, p);
			onnx__model_proto__free_unpacked(p, NULL);
			compare_streamed(m, onnx, opset, buf, len);
			fz_check(m, &d, 0, errs, "the streamed write");
			free(buf);
		}
	}
	fz_done(m, &d);
	return 0;
}
