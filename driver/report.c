/* report.c - --report FILE.md: what a conversion did, written whether it
 * succeeded or not (torch.onnx.export's report=True for onnxc): the
 * command, the input, the model's inputs and outputs, every FX op with
 * the lowering that handled it and the ONNX ops it became, the ops no
 * lowering handles with a hint (each lowering a plugin's, a built-in rule
 * or the decompose pass's rewrite), the time of each phase, the passes with
 * their time and node count, and the weights.
 *
 * ONNX nodes are traced to FX ops by Node.name, which lowering and the
 * passes keep (Node.via names a plugin lowering); the FX ops are those
 * of the graph as parsed, recorded before any pass rewrites it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../lower/lower.h"
#include "driver.h"

const char *const dr_templates[] = {
#define TEMPLATE(op) op,
#include "templates.def"
#undef TEMPLATE
	NULL
};
const size_t dr_ntemplates = sizeof dr_templates / sizeof *dr_templates - 1;

bool
dr_by_template(const char *op)
{
	const IrOp *io = ir_op_find(op);
	if (io && (strcmp(io->family, "none") || io->decompose))
		return false;  /* the rule wins */
	for (size_t k = 0; k < dr_ntemplates; k++)
		if (!strcmp(dr_templates[k], op))
			return true;
	return false;
}

typedef struct OpRow {
	StrId op;
	uint32_t count;
	Loc loc;          /* first place */
	StrId *onnx;      /* ONNX op types it became, each once */
	uint32_t nonnx;
	StrId *via;       /* plugins that lowered it; 0 entry: a built-in rule */
	uint32_t nvia;
	bool unsupported;
} OpRow;

struct DrReport {
	const char *path;
	int argc;
	char **argv;
	const char *form;
	int opset;
	GraphId fx, onnx;
	const char *weights;
	OpRow *rows;
	uint32_t nrows, crows;
	uint32_t *rowof;  /* FX node name (StrId) -> row + 1 */
	uint32_t *rowbyop; /* FX op (StrId) -> row + 1 */
	uint32_t nrowof;  /* strings when parsed: the size of both */
	PmStat *stats;
	uint32_t nstats;
	double phase_ms[DR_NPHASES]; /* < 0: not reached */
};

DrReport *
dr_report_new(const char *path, int argc, char **argv)
{
	DrReport *r = calloc(1, sizeof *r);
	if (!r)
		ir_oom(0);
	r->path = path;
	r->argc = argc;
	r->argv = argv;
	for (int i = 0; i < DR_NPHASES; i++)
		r->phase_ms[i] = -1;
	return r;
}

void
dr_report_phase(DrReport *r, DrPhase p, double ms)
{
	r->phase_ms[p] = ms;
}

void
dr_report_free(DrReport *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].onnx);
		free(r->rows[i].via);
	}
	free(r->rows);
	free(r->rowof);
	free(r->rowbyop);
	free(r->stats);
	free(r);
}

void
dr_report_input(DrReport *r, const char *form, int opset)
{
	r->form = form;
	r->opset = opset;
}

/* a StrId onto a small set (linear: an op becomes a handful of ops) */
static void
add_once(StrId **set, uint32_t *n, StrId s)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((*set)[i] == s)
			return;
	*set = xrealloc(*set, (*n + 1) * sizeof **set);
	(*set)[(*n)++] = s;
}

void
dr_report_parsed(DrReport *r, Module *m, GraphId fx)
{
	const Graph *g = ir_graph(m, fx);
	r->fx = fx;
	r->nrowof = m->nstrs;
	r->rowof = calloc(m->nstrs + 1, sizeof *r->rowof);
	uint32_t *rowbyop = r->rowbyop = calloc(m->nstrs + 1,
	    sizeof *rowbyop);
	if (!rowbyop || !r->rowof)
		ir_oom(0);
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = &g->nodes[n];
		if (!p->op)
			continue;
		uint32_t k = rowbyop[p->op];
		if (!k) {
			vgrow((void **)&r->rows, &r->crows, r->nrows + 1,
			    sizeof *r->rows);
			r->rows[r->nrows] = (OpRow){.op = p->op, .loc = p->loc};
			k = rowbyop[p->op] = ++r->nrows;
		}
		r->rows[k - 1].count++;
		if (p->name && p->name < r->nrowof && !r->rowof[p->name])
			r->rowof[p->name] = k;
	}
}

PmStat *
dr_report_stats(DrReport *r, uint32_t nsteps, uint32_t **count)
{
	r->stats = calloc(nsteps + 1, sizeof *r->stats);
	if (!r->stats)
		ir_oom(0);
	*count = &r->nstats;
	return r->stats;
}

void
dr_report_result(DrReport *r, GraphId onnx, const char *weights)
{
	r->onnx = onnx;
	r->weights = weights;
}

/* ------------------------------------------------------------ writing */

/* text for a table cell: '|' and line breaks would end it */
static void
cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/* aten::add.Tensor as torch prints it: aten.add.Tensor */
static void
opname(FILE *f, const char *op)
{
	const char *ns = strstr(op, "::");
	if (ns)
		fprintf(f, "%.*s.%s", (int)(ns - op), op, ns + 2);
	else
		cell(f, op);
}

static void
values(FILE *f, Module *m, const Graph *g, bool outputs)
{
	fputs("| Name | Type | Shape | Dim params |\n|---|---|---|---|\n", f);
	uint32_t lim = outputs ? g->noutputs : g->ninputs;
	for (uint32_t k = 0; k < lim; k++) {
		ValId v = outputs ? g->outputs[k] : g->inputs[k];
		const Value *p = ir_val(g, v);
		if (outputs ? g->outkind[k] != OUT_USER
		    : p->role != ROLE_USER_INPUT)
			continue;
		fputs("| `", f);
		cell(f, ir_str(m, p->name));
		fputc('`', f);
		if (p->orig) {
			fputs(" (was `", f);
			cell(f, ir_str(m, p->orig));
			fputs("`)", f);
		}
		fprintf(f, " | %s | ", p->kind == VK_TENSOR
		    ? ir_dtype_name((DType)p->dtype) : p->kind == VK_SYMINT
		    ? "SymInt" : p->kind == VK_SYMFLOAT ? "SymFloat"
		    : p->kind == VK_SYMBOOL ? "SymBool" : "other");
		const Dim *d = ir_dims(g, v);
		if (p->kind != VK_TENSOR || p->rank < 0) {
			fputs(p->kind == VK_TENSOR ? "unknown" : "scalar", f);
		} else {
			fputc('[', f);
			for (int32_t i = 0; i < p->rank; i++)
				fprintf(f, "%s%s", i ? ", " : "",
				    ir_dim_text(m, d[i]));
			fputc(']', f);
		}
		fputs(" | ", f);
		int nparam = 0;
		for (int32_t i = 0; p->kind == VK_TENSOR && i < p->rank; i++)
			if (d[i].e && ir_exprp(m, d[i].e)->kind != E_INT)
				fprintf(f, "%s%s", nparam++ ? ", " : "",
				    ir_dim_text(m, d[i]));
		fputs(nparam ? " |\n" : "none |\n", f);
	}
}

/* Which ONNX ops each FX op became, and through which lowering. */
static void
trace_onnx(DrReport *r, Module *m)
{
	const Graph *g = ir_graph(m, r->onnx);
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = &g->nodes[n];
		uint32_t k = p->op && p->name < r->nrowof ? r->rowof[p->name]
		    : 0;
		if (!k)
			continue;
		OpRow *row = &r->rows[k - 1];
		add_once(&row->onnx, &row->nonnx, p->op);
		add_once(&row->via, &row->nvia, p->via);
	}
}

/* FX ops left that no lowering handles (after the passes, which may have
 * rewritten some), marked on their rows; new ops get rows of their own. */
static uint32_t
find_unsupported(DrReport *r, Module *m, const PlRegistry *reg)
{
	const Graph *g = ir_graph(m, r->fx);
	uint32_t bad = 0;
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = &g->nodes[n];
		if (!p->op || p->dialect != D_FX)
			continue;
		uint32_t k = p->op < r->nrowof ? r->rowbyop[p->op] : 0;
		for (uint32_t i = 0; p->op >= r->nrowof && i < r->nrows &&
		    !k; i++)
			if (r->rows[i].op == p->op)
				k = i + 1;   /* an op the passes introduced */
		if (k && (r->rows[k - 1].unsupported || r->rows[k - 1].nvia))
			continue;   /* known either way */
		const char *s = ir_str(m, p->op);
		bool lowered = lw_has_rule(s);
		for (uint32_t i = 0; !lowered && i < reg->nlowerings; i++)
			lowered = !strcmp(reg->lowerings[i].info.target, s);
		if (lowered)
			continue;
		if (!k) {
			vgrow((void **)&r->rows, &r->crows, r->nrows + 1,
			    sizeof *r->rows);
			r->rows[r->nrows] = (OpRow){.op = p->op, .loc = p->loc};
			k = ++r->nrows;
			if (p->op < r->nrowof)
				r->rowbyop[p->op] = k;
		}
		r->rows[k - 1].unsupported = true;
		bad++;
	}
	return bad;
}

static const char *
hint(const char *op)
{
	if (ir_op_of_inplace(op))
		return "an in-place op: the functionalize pass (in every -O "
		    "preset) rewrites it; add it to --passes before lower";
	if (strstr(op, "dropout") || strstr(op, "batch_norm") ||
	    strstr(op, "_backward"))
		return "a training-mode op: export the model in eval mode "
		    "(model.eval()) or convert with --training";
	return "no lowering: add one in a plugin (--load-plugin; "
	    "--list-lowerings shows those loaded)";
}

static void
op_table(FILE *f, DrReport *r, Module *m, const PlRegistry *reg, bool ok)
{
	fputs("## FX ops\n\n| FX op | Count | Lowering | ONNX ops |\n"
	    "|---|---:|---|---|\n", f);
	for (uint32_t i = 0; i < r->nrows; i++) {
		const OpRow *row = &r->rows[i];
		/* an op without a rule of its own reaches ONNX through the
		 * decompose pass, whose nodes keep its name */
		const IrOp *io = ir_op_find(ir_str(m, row->op));
		bool dec = io && io->decompose && !strcmp(io->family, "none");
		bool tpl = dr_by_template(ir_str(m, row->op));
		fputs("| `", f);
		opname(f, ir_str(m, row->op));
		fprintf(f, "` | %u | ", row->count);
		if (row->unsupported)
			fputs("**none (unsupported)**", f);
		for (uint32_t k = 0; k < row->nvia; k++) {
			fputs(k ? ", " : "", f);
			if (row->via[k]) {
				fputs("plugin `", f);
				cell(f, ir_str(m, row->via[k]));
				fputc('`', f);
			} else {
				fputs(dec ? "decomposition (decompose pass)" :
				    tpl ? "template (templates pass)" :
				    "built-in rule", f);
			}
		}
		if (!row->unsupported && !row->nvia)
			fputs(ok ? "none needed (folded or removed by the "
			    "passes)" : "not reached", f);
		fputs(" | ", f);
		for (uint32_t k = 0; k < row->nonnx; k++)
			fprintf(f, "%s%s", k ? ", " : "",
			    ir_str(m, row->onnx[k]));
		fputs(row->nonnx ? " |\n" : "- |\n", f);
	}
	(void)reg;
}

static void
unsupported(FILE *f, DrReport *r, Module *m)
{
	fputs("\n## Unsupported ops\n\n", f);
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->nrows; i++) {
		const OpRow *row = &r->rows[i];
		if (!row->unsupported)
			continue;
		if (!n++)
			fputs("| FX op | Count | First at | Hint |\n"
			    "|---|---:|---|---|\n", f);
		const char *op = ir_str(m, row->op);
		fputs("| `", f);
		opname(f, op);
		fprintf(f, "` | %u | `", row->count);
		cell(f, m->file);
		fprintf(f, ":%u:%u` | %s |\n", row->loc.line, row->loc.col,
		    hint(op));
	}
	if (!n)
		fputs("None.\n", f);
}

static void
passes(FILE *f, const DrReport *r)
{
	fputs("\n## Passes\n\n", f);
	if (!r->nstats) {
		fputs("No pass ran.\n", f);
		return;
	}
	fputs("| Pass | Plugin | Time (ms) | Nodes after |\n"
	    "|---|---|---:|---:|\n", f);
	for (uint32_t i = 0; i < r->nstats; i++) {
		const PmStat *s = &r->stats[i];
		fprintf(f, "| %s%s | %s | %.3f | %u |\n", s->name,
		    s->failed ? " (failed)" : "", s->plugin, s->ms, s->nodes);
	}
}

/* Where the time went: a conversion of a big graph is the sum of these
 * (the Passes table splits the second). */
static void
phases(FILE *f, const DrReport *r)
{
	static const char *const name[DR_NPHASES] = {
		[DR_READ] = "read (parse or archive, weights)",
		[DR_PASSES] = "passes", [DR_WRITE] = "write",
	};
	fputs("\n## Phases\n\n| Phase | Time (ms) |\n|---|---:|\n", f);
	for (int i = 0; i < DR_NPHASES; i++)
		if (r->phase_ms[i] >= 0)
			fprintf(f, "| %s | %.3f |\n", name[i], r->phase_ms[i]);
}

static void
weights(FILE *f, const DrReport *r, Module *m)
{
	const Graph *g = ir_graph(m, r->onnx ? r->onnx : r->fx);
	uint64_t bytes = 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->ninputs; i++) {
		const Value *v = ir_val(g, g->inputs[i]);
		if (!v->init)
			continue;
		n++;
		bytes += ir_tensorp(m, v->init)->nbytes;
	}
	fprintf(f, "\n## Weights\n\n- %u tensors, %llu bytes\n", n,
	    (unsigned long long)bytes);
	fprintf(f, "- %s\n", r->weights ? r->weights
	    : "not written (the conversion failed)");
}

static int
emit_text(void *ctx, FILE *f)
{
	void **a = ctx;
	DrReport *r = a[0];
	Module *m = a[1];
	const PlRegistry *reg = a[2];
	bool ok = a[3] != NULL;
	fputs("# onnxc conversion report\n\n- Command: `", f);
	for (int i = 0; i < r->argc; i++)
		fprintf(f, "%s%s", i ? " " : "", r->argv[i]);
	fputs("`\n- Input: `", f);
	cell(f, m->file ? m->file : "");
	fprintf(f, "` (%s)\n", r->form ? r->form : "not read");
	fprintf(f, "- Opset: %d (IR version %d)\n", r->opset,
	    be_ir_version(r->opset));
	if (ok)
		fputs("- Result: **converted**\n", f);
	else
		fprintf(f, "- Result: **failed** (%d error%s; the messages "
		    "are on standard error)\n", m->nerrors,
		    m->nerrors == 1 ? "" : "s");
	if (r->fx || r->onnx) {
		const Graph *g = ir_graph(m, r->onnx ? r->onnx : r->fx);
		fputs("\n## Inputs\n\n", f);
		values(f, m, g, false);
		fputs("\n## Outputs\n\n", f);
		values(f, m, g, true);
		fputc('\n', f);
		op_table(f, r, m, reg, ok);
		unsupported(f, r, m);
	}
	phases(f, r);
	passes(f, r);
	if (r->fx || r->onnx)
		weights(f, r, m);
	return ferror(f) ? EIO : 0;
}

/* The report is small: made in memory, then written as one output (which
 * appears only when complete). */
static int
emit(void *ctx, BeOut *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return errno;
	int err = emit_text(ctx, f);
	if (fclose(f) != 0 && !err)
		err = errno ? errno : EIO;
	if (!err)
		err = be_out_write(o, buf, len);
	free(buf);
	return err;
}

int
dr_report_write(DrReport *r, Module *m, const PlRegistry *reg, bool ok)
{
	if (r->onnx)
		trace_onnx(r, m);
	if (r->fx && !ok)
		find_unsupported(r, m, reg);
	void *ctx[4] = {r, m, (void *)reg, ok ? (void *)r : NULL};
	return be_write_atomic(m, r->path, emit, ctx);
}
