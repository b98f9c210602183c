/* onnx.c - the ONNX writer: a graph of D_ONNX nodes -> ModelProto.
 *
 * Requires: a graph built by the lower pass (every node D_ONNX, every value
 * named, weights bound to graph inputs through Value.init).
 * Provides: the model as bytes (onnx_encode) or as a file (onnx_write),
 * and the be_onnx row of the writers' table (backend.h).
 *
 * Three walks over the graph: prepare (onnx_prep.c) checks that the model
 * can be written and settles everything that takes work or state (node
 * names, metadata texts, which initializers go to external data), then the
 * emit functions (onnx_emit.c) run twice through the streaming writer
 * (pb.h), once to size every message and once to write it; a big graph's
 * nodes are made on two threads in both runs (pbsplit.h).  Into a file,
 * such a graph is streamed: its nodes and value_info are made chunk by
 * chunk in one run each, lengths put in as they close (pb_write_grow), so
 * the disk starts at once, and the graph's length is patched in at the end
 * (write_streamed).  With external data (forced, or when the model would
 * pass 2 GB) initializers go to <model>.data instead (backend.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_int.h"

/* A single protobuf message cannot exceed 2 GB. */
#define MAX_MODEL_BYTES ((UINT64_C(2) << 30) - 1)

/* The size of the model as it would be written now. */
static uint64_t
measure(Enc *e)
{
	pb_size(&e->w);
	if (e->meta)
		be_meta_measure(e->meta, true);
	onnx_emit_model(e, &e->w);
	if (e->meta)
		be_meta_measure(e->meta, false);
	e->measured = e->w.pos;
	return e->w.pos;
}

/* Write the model measured last into o (or mem); 0 or an errno value. */
static int
emit_into(Enc *e, BeOut *o, uint8_t *mem)
{
	pb_write(&e->w, o, mem);
	onnx_emit_model(e, &e->w);
	if (e->w.next != e->w.nlens || (!e->stream && e->w.pos != e->measured))
		BUG("protobuf writer: %u submessages and %llu bytes written, "
		    "%u and %llu sized", e->w.next, (unsigned long long)
		    e->w.pos, e->w.nlens, (unsigned long long)e->measured);
	return pb_flush(&e->w);
}

/* BeEmit */
static int
emit_file(void *ctx, BeOut *o)
{
	return emit_into(ctx, o, NULL);
}

/* ---------------------------------------------------------------- model */

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
	be_names_free(&e->names);
	for (uint32_t i = 0; i < e->ngraphs; i++) {
		const GraphPrep *gp = &e->graphs[i];
		pb_split_free(gp->split);
		pb_split_free(gp->vsplit);
		if (gp->helper) {
			be_meta_free(gp->helper->meta);
			arena_free(gp->helper->a);
			pb_free(&gp->helper->tw);
		}
	}
	arena_free(e->a);   /* after the helpers: they live in it */
	be_meta_free(e->meta);
	free(e->domains);
	free(e->graphs);
	free(e->inits);
	pb_free(&e->w);
	pb_free(&e->tw);
}

/* Check that graph g can be written as a model and settle what emit
 * needs; false after an error. */
static bool
prepare(Enc *e, GraphId g, const BeOptions *o)
{
	Module *m = e->m;
	ir_name_outer(m, g);
	e->o = o;
	e->gid = g;
	e->ir = be_ir_version(o->opset);
	if (!e->ir) {
		ir_error(m, (Loc){0, 0}, "opset %d is not supported (choose "
		    "one of 7 to 23)", o->opset);
		return false;
	}
	if (!o->no_metadata)
		e->meta = be_meta_new(m, o->strip_paths);
	return onnx_prep_graph(e, g) && m->nerrors == e->errs;
}

int
onnx_encode(Module *m, GraphId g, const BeOptions *o, uint8_t **buf,
    size_t *len)
{
	Enc e;
	enc_init(&e, m);
	*buf = NULL;
	*len = 0;
	if (!prepare(&e, g, o)) {
		enc_free(&e);
		return -1;
	}
	uint64_t n = measure(&e);
	if (n > MAX_MODEL_BYTES) {
		ir_error(m, (Loc){0, 0}, "the model would be %llu MB, over "
		    "the 2 GB limit of a single ONNX message; write it to a "
		    "file, where its weights can go to external data",
		    (unsigned long long)(n >> 20));
		enc_free(&e);
		return -1;
	}
	*buf = xrealloc(NULL, (size_t)n);
	emit_into(&e, NULL, *buf);
	*len = (size_t)e.w.pos;
	enc_free(&e);
	if (*len != n)
		BUG("wrote %zu bytes of %llu", *len, (unsigned long long)n);
	return 0;
}

/* ---------------------------------------------------------------- files */

static char *
textf(Enc *e, const char *f, const char *s)
{
	size_t n = (size_t)snprintf(NULL, 0, f, s);
	char *p = arena_alloc(e->a, n + 1);
	snprintf(p, n + 1, f, s);
	return p;
}

/* Whether the initializers go to external data, by o and the size;
 * -1 after an error. */
static int
want_external(Enc *e, const BeOptions *o)
{
	if (o->external == BE_EXT_ALWAYS)
		return 1;
	uint64_t size = measure(e);
	if (size <= MAX_MODEL_BYTES)
		return 0;
	if (o->external == BE_EXT_AUTO)
		return 1;
	ir_error(e->m, (Loc){0, 0}, "the model would be %llu MB, over the "
	    "2 GB limit of a single ONNX file, and --no-external-data forbids "
	    "writing its weights to a data file beside it",
	    (unsigned long long)(size >> 20));
	return -1;
}

static int
write_external(Enc *e, const BeOptions *o, BeOut *model)
{
	Module *m = e->m;
	const char *target = be_out_target(model);
	const char *slash = strrchr(target, '/');
	char *data = textf(e, "%s.data", target);
	e->location = textf(e, "%s.data", slash ? slash + 1 : target);
	uint32_t moved = be_ext_place(e->inits, e->ninits, o->ext_threshold);
	uint64_t size = measure(e);
	if (size > MAX_MODEL_BYTES) {
		ir_error(m, (Loc){0, 0}, "the model would be %llu MB even "
		    "with its initializers in external data, over the 2 GB "
		    "limit of an ONNX file", (unsigned long long)(size >> 20));
		be_out_discard(model);
		return -1;
	}
	if (moved == 0) {       /* every tensor under the threshold */
		int err = emit_file(e, model);
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
	int err = be_ext_write(outs[0], e->inits, e->ninits);
	BeOut *bad = outs[0];
	if (!err) {
		err = emit_file(e, model);
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

/* ------------------------------------------------------------ streaming */

/* A big graph (split) alone in its model, whose weights may stay inline:
 * its nodes and value_info can be sized as they are written. */
static bool
can_stream(const Enc *e)
{
	return e->o->stream_width >= 0 && e->o->external != BE_EXT_ALWAYS
	    && e->ngraphs == 1 && e->graphs[0].split;
}

static void
set_stream(Enc *e, bool on)
{
	GraphPrep *gp = &e->graphs[0];
	e->stream = on;
	pb_split_stream(gp->split, on);
	if (gp->vsplit)
		pb_split_stream(gp->vsplit, on);
}

/* The bytes a graph of about est bytes needs for its length; 0 where
 * est lies within a quarter of a boundary between varint lengths, too
 * near to trust. */
static unsigned
length_width(uint64_t est)
{
	unsigned w = pb_varint_len(est);
	uint64_t lo = w > 1 ? UINT64_C(1) << 7 * (w - 1) : 0;
	uint64_t hi = UINT64_C(1) << 7 * w;
	return est - est / 4 < lo || est + est / 4 >= hi ? 0 : w;
}

/* Write the model into out with the big graph's nodes and value_info
 * sized as they are written, so that its first bytes go out at once and
 * the writer walks them once, not twice.  The graph's length goes at its
 * head before they are written: its width is guessed from a sample, and
 * the bytes are patched in at the end.  Returns 0 or -1 (reported) as
 * be_out_commit, out consumed; 1 where it did not fit the guess (or
 * might need external data), out emptied for the two walks. */
static int
write_streamed(Enc *e, BeOut *out)
{
	set_stream(e, true);
	uint64_t base = measure(e);
	const GraphPrep *gp = &e->graphs[0];
	uint64_t body = e->graph_sized + pb_split_estimate(gp->split) +
	    (gp->vsplit ? pb_split_estimate(gp->vsplit) : 0);
	unsigned width = e->o->stream_width ? (unsigned)e->o->stream_width
	    : length_width(body);
	if (width == 0 || base - e->graph_sized + body + body / 4 >
	    MAX_MODEL_BYTES) {
		set_stream(e, false);
		return 1;
	}
	e->glen_width = width;
	int err = emit_into(e, out, NULL);
	uint8_t len[10];
	if (!err && (e->w.pos > MAX_MODEL_BYTES ||
	    !pb_varint_in(len, e->glen, width))) {
		set_stream(e, false);
		if (!(err = be_out_rewind(out)))
			return 1;
	}
	if (!err)
		err = be_out_patch(out, e->glen_at, len, width);
	if (err) {
		be_out_report(e->m, out, err);
		be_out_discard(out);
		return -1;
	}
	if (e->o->streamed)
		(*e->o->streamed)++;
	return be_out_commit(e->m, &out, 1);
}

int
onnx_write(Module *m, GraphId g, const BeOptions *o, const char *path)
{
	Enc e;
	enc_init(&e, m);
	BeOut *out = NULL;
	int rc = prepare(&e, g, o) ? 1 : -1;
	if (rc == 1 && can_stream(&e)) {
		/* opened once: a FIFO's reader would see an end */
		out = be_out_open(m, path);
		if (!out)
			rc = -1;
		else if (be_out_seekable(out))
			rc = write_streamed(&e, out);
	}
	int ext = rc == 1 ? want_external(&e, o) : -1;
	if (ext == 0) {
		rc = out ? be_write_into(m, out, emit_file, &e)
		    : be_write_atomic(m, path, emit_file, &e);
	} else if (ext == 1) {
		BeOut *model = out ? out : be_out_open(m, path);
		rc = model ? write_external(&e, o, model) : -1;
	} else if (rc == 1) {
		be_out_discard(out);
		rc = -1;
	}
	enc_free(&e);
	return rc;
}

/* ---------------------------------------------------------- the writer */

static const char *
weights_text(const BeOptions *o)
{
	if (o->no_weights)
		return "not written (--no-weights): the weights are graph "
		    "inputs without data";
	if (o->init_inputs)
		return "inline as initializers, also listed as graph inputs "
		    "(--keep-initializers-as-inputs)";
	return "inline as initializers (no external data)";
}

const BeWriter be_onnx = {
	.name = "onnx",
	.ext = ".onnx",
	.summary = "an ONNX model (protobuf)",
	.function_ops = true,
	.write = onnx_write,
	.weights = weights_text,
};
