/* main.c - the onnxc command line: load plugins, parse, bind weights, run
 * the pass pipeline (which lowers to ONNX), write.
 * The only place that decides exit codes: 0 converted, 1 input or plugin
 * error, 2 usage error. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/copy.h"
#include "backend/out.h"
#include "driver/driver.h"
#include "frontend/reader.h"
#include "ir/ir.h"
#include "lower/lower.h"
#include "pipeline/pipeline.h"
#include "plugins/pl.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: onnxc MODEL.pt2|GRAPH [--program NAME] [--weights FILE.safetensors]\n"
    "             -o OUT.onnx|OUT.ort|OUT.onnxtxt\n"
    "             [--opset N] [--emit onnx|ort|text]\n"
    "             [--dynamic NAME:DIM=LABEL]...\n"
    "             [--static LABEL=VALUE]... [--strict] [--print-ir]\n"
    "             [-O0|-O1|-O2|--passes=PIPELINE] [--load-plugin PATH]...\n"
    "             [--print-ir-after=PASS] [--print-ir-after-all]\n"
    "             [--verify-each] [--training]\n"
    "             [--input-names A,B,...] [--output-names X,Y,...]\n"
    "             [--strip-paths] [--no-metadata] [--report FILE.md]\n"
    "             [--keep-initializers-as-inputs] [--no-weights]\n"
    "             [--external-data|--no-external-data]\n"
    "             [--external-data-threshold BYTES]\n"
    "       onnxc --list-passes|--list-lowerings [--load-plugin PATH]...\n"
    "             [--help] [--version]\n";

static const char help[] =
    "Converts a PyTorch exported program into an ONNX model: the .pt2\n"
    "archive torch.export.save wrote (weights inside), or its FX dump\n"
    "(print(exported_program) or gm.print_readable()).\n"
    "\n"
    "  MODEL.pt2             the archive (a zip: chosen by its content)\n"
    "  --program NAME        the program of an archive that holds several\n"
    "                        (models/NAME.json)\n"
    "  GRAPH                 the dump, as PyTorch printed it\n"
    "  --weights FILE        parameters, buffers and constants, keyed by their\n"
    "                        signature targets (fc.weight); with a dump,\n"
    "                        without it they become graph inputs; with an\n"
    "                        archive, it overrides the archive's tensors\n"
    "  -o, --output OUT      the model to write (written only on success)\n"
    "  --training            a model exported in model.train() mode, for\n"
    "                        on-device training: dropout stays dropout (ONNX\n"
    "                        Dropout in training mode), batch norm uses batch\n"
    "                        statistics, every parameter and buffer stays an\n"
    "                        initializer under its name, untouched by passes\n"
    "  --opset N             ONNX opset, 17 to 23 (default 18)\n"
    "  --emit onnx|ort|text  output format (default: from OUT's extension,\n"
    "                        .ort is ONNX Runtime's FlatBuffer format,\n"
    "                        .onnxtxt ONNX's textual syntax, which\n"
    "                        onnx.parser reads; up to 16 MB of weights\n"
    "                        inline, more with --external-data)\n"
    "  --dynamic NAME:DIM=LABEL\n"
    "                        name dim DIM of input NAME LABEL: a symbolic dim\n"
    "                        is renamed, a numeric one becomes symbolic\n"
    "  --static LABEL=VALUE  specialise a symbol to a number\n"
    "  --strict              literals not proven to follow a symbolic dim are\n"
    "                        errors, not warnings\n"
    "  --print-ir            print the IR after parsing and after lowering\n"
    "  --external-data       write initializers to OUT.data beside the model\n"
    "                        (automatic when an .onnx would pass 2 GB)\n"
    "  --no-external-data    never: a model over 2 GB is an error\n"
    "  --external-data-threshold BYTES\n"
    "                        smaller initializers stay in the model (1024)\n"
    "\n"
    "Passes (plugin modules; see --list-passes):\n";

/* after the presets (pm_presets_help) */
static const char help_passes[] =
    "  --passes=PIPELINE     the passes to run, e.g.\n"
    "                        'decompose,fold{max-size=1024},cse,dce,lower'\n"
    "  --load-plugin PATH    load a plugin module (repeatable); plugins are\n"
    "                        also loaded from $ONNXC_PLUGIN_PATH and the\n"
    "                        plugin folder of the installation\n"
    "  --list-passes         the registered passes, their options and modules\n"
    "  --list-lowerings      the registered lowerings, plugin ones first, then\n"
    "                        rules, then the decompose pass's rewrites\n"
    "  --print-ir-after=PASS print the IR after each run of PASS\n"
    "  --print-ir-after-all  print the IR after every pass\n"
    "  --verify-each         verify the IR after every pass\n"
    "\n"
    "The model's contract (as torch.onnx.export's options):\n"
    "  --input-names A,B,... rename the user inputs in order (fewer names\n"
    "                        rename a prefix); --dynamic takes either name\n"
    "  --output-names X,Y,...  the same for the user outputs\n"
    "  --strip-paths         stack traces in the metadata keep file names\n"
    "  --no-metadata         write no metadata (provenance, signature)\n"
    "  --report FILE.md      a markdown report of the conversion, written\n"
    "                        whether it succeeds or fails\n"
    "  --keep-initializers-as-inputs\n"
    "                        list the weights as graph inputs too\n"
    "  --no-weights          write no weights: they are graph inputs\n"
    "  --help, --version\n";

enum { MAXSYM = 64, MAXPLUGINS = 64 };

typedef struct Options {
	const char *graph, *weights, *out;
	const char *program;     /* --program of an archive */
	int opset;
	bool print_ir;
	const char *emit;          /* --emit: the extension does not decide */
	const BeWriter *writer;    /* the output format */
	/* --dynamic and --static entries, joined by commas as the options
	 * of symbolize-shapes take them */
	char dynamic[MAXSYM * 256], statics[MAXSYM * 256];
	int ndyn, nstat;
	bool strict;
	const char *passes;      /* --passes text */
	int level;               /* -O level; -1 when not given */
	const char *plugins[MAXPLUGINS];
	int nplugins;
	bool list_passes, list_lowerings;
	const char *print_after;
	bool print_all, verify_each, training;
	DrNames in_names, out_names;  /* --input-names, --output-names */
	bool strip_paths, no_metadata, init_inputs, no_weights;
	const char *report;           /* --report FILE.md */
	BeExternal external;
	uint64_t ext_threshold;
} Options;

/* A flag value that is well formed as a flag but wrong: a usage error. */
static int
value_error(const char *flag, const char *value, const char *why)
{
	fprintf(stderr, "onnxc: error: %s '%s': %s\n", flag, value, why);
	return EXIT_USAGE;
}

static bool
parse_int(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = n;
	return true;
}

/* v onto the comma-separated list buf */
static void
append(char *buf, size_t cap, const char *v)
{
	size_t n = strlen(buf);
	snprintf(buf + n, cap - n, "%s%s", n ? "," : "", v);
}

/* NAME:DIM=LABEL */
static int
parse_dynamic(Options *o, const char *v)
{
	const char *colon = strrchr(v, ':'), *eq = strchr(v, '=');
	char dim[32];
	int64_t d;
	if (o->ndyn == MAXSYM)
		return value_error("--dynamic", v, "too many");
	if (!colon || !eq || eq < colon || colon == v || eq[1] == 0 ||
	    strchr(v, ',') || strlen(v) >= 256)
		return value_error("--dynamic", v, "expected NAME:DIM=LABEL, "
		    "e.g. x:0=batch");
	snprintf(dim, sizeof dim, "%.*s", (int)(eq - colon - 1), colon + 1);
	if (eq - colon - 1 >= (long)sizeof dim || !parse_int(dim, &d))
		return value_error("--dynamic", v, "DIM must be an integer");
	append(o->dynamic, sizeof o->dynamic, v);
	o->ndyn++;
	return -1;
}

/* LABEL=VALUE */
static int
parse_static(Options *o, const char *v)
{
	const char *eq = strchr(v, '=');
	int64_t n;
	if (o->nstat == MAXSYM)
		return value_error("--static", v, "too many");
	if (!eq || eq == v || strchr(v, ',') || strlen(v) >= 256)
		return value_error("--static", v, "expected LABEL=VALUE, "
		    "e.g. batch=1");
	if (!parse_int(eq + 1, &n) || n < 0)
		return value_error("--static", v, "VALUE must be a "
		    "non-negative integer");
	append(o->statics, sizeof o->statics, v);
	o->nstat++;
	return -1;
}

/* "--name VALUE" or "--name=VALUE"; NULL if argv[*i] is not --name */
static const char *
optval(int argc, char **argv, int *i, const char *name, bool *missing)
{
	size_t n = strlen(name);
	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != 0)
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

static int
usage_error(const char *fmt, const char *what)
{
	fputs("onnxc: error: ", stderr);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	fputs(usage, stderr);
	return EXIT_USAGE;
}

/* What the writers take of the options. */
static BeOptions
be_options(const Options *o)
{
	return (BeOptions){.opset = o->opset, .no_metadata = o->no_metadata,
		.strip_paths = o->strip_paths, .init_inputs = o->init_inputs,
		.no_weights = o->no_weights, .external = o->external,
		.ext_threshold = o->ext_threshold};
}

/* Returns -1 to go on, else the exit code. */
static int
parse_args(int argc, char **argv, Options *o)
{
	o->opset = 18;
	o->level = -1;
	o->ext_threshold = BE_EXT_THRESHOLD;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		bool missing = false;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			fputs(help, stdout);
			pm_presets_help(stdout);
			fputs(help_passes, stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			printf("onnxc %s\n", ONNXC_VERSION_STRING);
			return 0;
		}
		if (!strcmp(a, "--print-ir")) {
			o->print_ir = true;
		} else if (a[0] == '-' && a[1] == 'O' && a[2]) {
			if (a[3] || a[2] < '0' || a[2] > '2')
				return usage_error("unknown option '%s' (-O "
				    "takes 0, 1 or 2)", a);
			o->level = a[2] - '0';
		} else if (!strcmp(a, "--list-passes")) {
			o->list_passes = true;
		} else if (!strcmp(a, "--list-lowerings")) {
			o->list_lowerings = true;
		} else if (!strcmp(a, "--print-ir-after-all")) {
			o->print_all = true;
		} else if (!strcmp(a, "--verify-each")) {
			o->verify_each = true;
		} else if (!strcmp(a, "--training")) {
			o->training = true;
		} else if (!strcmp(a, "--strip-paths")) {
			o->strip_paths = true;
		} else if (!strcmp(a, "--no-metadata")) {
			o->no_metadata = true;
		} else if (!strcmp(a, "--keep-initializers-as-inputs")) {
			o->init_inputs = true;
		} else if (!strcmp(a, "--no-weights")) {
			o->no_weights = true;
		} else if ((v = optval(argc, argv, &i, "--report", &missing))) {
			o->report = v;
		} else if ((v = optval(argc, argv, &i, "--input-names",
		    &missing)) || (v = optval(argc, argv, &i, "--output-names",
		    &missing))) {
			bool in = !strncmp(a, "--input-names", 13);
			if (dr_names_parse(in ? "--input-names" :
			    "--output-names", v, in ? &o->in_names
			    : &o->out_names) < 0) {
				fputs(usage, stderr);
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--external-data")) {
			o->external = BE_EXT_ALWAYS;
		} else if (!strcmp(a, "--no-external-data")) {
			o->external = BE_EXT_NEVER;
		} else if ((v = optval(argc, argv, &i,
		    "--external-data-threshold", &missing))) {
			int64_t n;
			if (!parse_int(v, &n) || n < 0)
				return value_error("--external-data-threshold",
				    v, "expected a number of bytes");
			o->ext_threshold = (uint64_t)n;
		} else if ((v = optval(argc, argv, &i, "--passes", &missing))) {
			o->passes = v;
		} else if ((v = optval(argc, argv, &i, "--print-ir-after",
		    &missing))) {
			o->print_after = v;
		} else if ((v = optval(argc, argv, &i, "--load-plugin",
		    &missing))) {
			if (o->nplugins == MAXPLUGINS)
				return value_error("--load-plugin", v,
				    "too many plugins");
			o->plugins[o->nplugins++] = v;
		} else if (!strcmp(a, "--strict")) {
			o->strict = true;
		} else if ((v = optval(argc, argv, &i, "--dynamic", &missing))) {
			int rc = parse_dynamic(o, v);
			if (rc >= 0)
				return rc;
		} else if ((v = optval(argc, argv, &i, "--static", &missing))) {
			int rc = parse_static(o, v);
			if (rc >= 0)
				return rc;
		} else if ((v = optval(argc, argv, &i, "--emit", &missing))) {
			char names[64], fmt[96];
			if (!be_writer_named(v)) {
				snprintf(fmt, sizeof fmt, "--emit takes %s, "
				    "not '%%s'", be_writer_names(names,
				    sizeof names));
				return usage_error(fmt, v);
			}
			o->emit = v;
		} else if ((v = optval(argc, argv, &i, "--program", &missing))) {
			o->program = v;
		} else if ((v = optval(argc, argv, &i, "--weights", &missing))) {
			o->weights = v;
		} else if ((v = optval(argc, argv, &i, "--output", &missing)) ||
		    (v = optval(argc, argv, &i, "-o", &missing))) {
			o->out = v;
		} else if ((v = optval(argc, argv, &i, "--opset", &missing))) {
			char *end;
			errno = 0;
			long n = strtol(v, &end, 10);
			if (errno || *end || end == v || n < 17 || n > 23)
				return value_error("--opset", v, "onnxc writes "
				    "opsets 17 to 23");
			o->opset = (int)n;
		} else if (missing) {
			return usage_error("%s needs a value", a);
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'", a);
		} else if (o->graph) {
			return usage_error("more than one GRAPH given ('%s')", a);
		} else {
			o->graph = a;
		}
	}
	if (o->passes && o->level >= 0)
		return usage_error("%s", "--passes and -O<level> both given: "
		    "one pipeline at a time");
	if (o->list_passes || o->list_lowerings)
		return -1;
	if (!o->graph)
		return usage_error("%s", "no GRAPH given");
	if (!o->out && !o->print_ir)
		return usage_error("%s", "no output given (-o OUT.onnx)");
	o->writer = o->emit ? be_writer_named(o->emit) : o->out ?
	    be_writer_for(o->out) : be_writers[0];
	BeOptions bo = be_options(o);
	const char *why = o->writer->check ? o->writer->check(&bo) : NULL;
	if (why)
		return usage_error("%s", why);
	return -1;
}

/* The dump is mapped read-only; diagnostics quote lines from it.  Its
 * descriptor stays open (*fd) so that outputs can tell it from theirs. */
static int
map_source(Module *m, const char *path, void **map, size_t *len, int *fd)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0 || fstat(*fd, &st) < 0) {
		ir_error(m, (Loc){0}, "cannot read '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		ir_error(m, (Loc){0}, "'%s' is not a regular file (it is %s)",
		    path, fe_file_kind(st.st_mode));
		return -1;
	}
	*len = (size_t)st.st_size;
	*map = NULL;
	if (*len) {
		*map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, *fd, 0);
		if (*map == MAP_FAILED) {
			*map = NULL;
			ir_error(m, (Loc){0}, "cannot map '%s': %s", path,
			    strerror(errno));
			return -1;
		}
	}
	be_src_add(*map, *len, *fd, path);
	m->src = *map;
	m->srclen = *len;
	return 0;
}

/* Plugins: lower (built in), then --load-plugin in order, then the search
 * path; the first plugin of a name wins. */
static int
load_plugins(PlRegistry *r, const Options *o, const char *argv0)
{
	int rc = pl_add_static(r, &onnxc_plugin_lower);
	for (int i = 0; i < o->nplugins; i++)
		if (pl_load(r, o->plugins[i]) < 0)
			rc = -1;
	if (pl_load_search_path(r, argv0) < 0)
		rc = -1;
	return rc;
}

static void
list_passes(const PlRegistry *r)
{
	for (uint32_t i = 0; i < r->npasses; i++) {
		const PlPass *p = &r->passes[i];
		printf("%-18s %-46s %s\n", p->info.name, p->info.summary,
		    pl_where(r, p->plugin));
		for (uint32_t k = 0; k < p->info.noptions; k++) {
			const onnxc_option *op = &p->info.options[k];
			printf("    {%s=%s} default '%s'%s%s\n", op->name,
			    pl_opt_type_name(op->type), op->dflt,
			    *op->help ? ": " : "", op->help);
		}
		if (!p->contract) {
			printf("    no contract (a plugin of ABI 1.3 or "
			    "older): not checked\n");
			continue;
		}
		const uint32_t bits[3] = {p->info.needs, p->info.provides,
			p->info.breaks};
		const char *verb[3] = {"needs", "provides", "breaks"};
		char buf[64];
		const char *sep = "    ";
		for (int k = 0; k < 3; k++)
			if (bits[k]) {
				printf("%s%s %s", sep, verb[k], pm_props_text(
				    bits[k], buf, sizeof buf));
				sep = "; ";
			}
		if (*sep == ';')
			printf("\n");
	}
}

/* Plugin lowerings first, in the order they are tried, then the rules
 * onnxc has itself: the rows of the op table (ir/ops.def) with one, then
 * the ops the decompose pass rewrites into others (where no lowering
 * takes them).  Columns: op, domain, opsets, kind, where it comes from. */
static void
list_lowerings(const PlRegistry *r)
{
	for (uint32_t i = 0; i < r->nlowerings; i++) {
		const onnxc_lowering_info *l = &r->lowerings[i].info;
		char range[32];
		if (l->opset_min && l->opset_max)
			snprintf(range, sizeof range, "%d-%d", l->opset_min,
			    l->opset_max);
		else if (l->opset_min || l->opset_max)
			snprintf(range, sizeof range, "%s%d",
			    l->opset_min ? ">=" : "<=",
			    l->opset_min ? l->opset_min : l->opset_max);
		else
			snprintf(range, sizeof range, "any");
		printf("%-40s %-10s %-9s %-13s %s\n", l->target,
		    *l->domain ? l->domain : "ai.onnx", range, "plugin",
		    pl_where(r, r->lowerings[i].plugin));
	}
	for (uint32_t k = 0; k < ir_nops; k++)
		if (strcmp(ir_ops[k].family, "none"))
			printf("%-40s %-10s %-9s %-13s %s\n", ir_ops[k].op,
			    "ai.onnx", "", "rule", "built-in");
	for (uint32_t k = 0; k < ir_nops; k++)
		if (ir_ops[k].decompose)
			printf("%-40s %-10s %-9s %-13s %s\n", ir_ops[k].op, "",
			    "", "decomposition", "decompose pass");
	/* PyTorch's decompositions as data, for ops that have neither */
	for (size_t k = 0; k < dr_ntemplates; k++)
		if (dr_by_template(dr_templates[k]))
			printf("%-40s %-10s %-9s %-13s %s\n", dr_templates[k],
			    "", "", "template", "templates pass");
}

/* What the run is for, as the pipeline builds presets and sets the
 * options standing for flags from it. */
static PmTarget
target_of(const Options *o)
{
	return (PmTarget){.opset = o->opset, .ort = o->writer && !o->writer->function_ops,
		.training = o->training, .dynamic = o->dynamic,
		.statics = o->statics, .strict = o->strict};
}

static double
now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* -1 on an input error, -2 on a usage error found only now (more names
 * than inputs or outputs). */
static int
compile(Module *m, Options *o, PlRegistry *r, PmPipeline *pipe,
    DrReport *rep)
{
	GraphId fx, onnx;
	double t0 = now_ms();
	/* the reader table decides what the input is (reader.h) */
	FeInput in = {.path = o->graph, .buf = (const unsigned char *)m->src,
		.len = m->srclen, .program = o->program};
	const FeReader *rd = fe_pick(m, fe_readers, fe_nreaders, &in);
	if (!rd)
		return -1;
	if (rep)
		dr_report_input(rep, rd->what, o->opset);
	FeSource *src = fe_open(m, rd, &in, &fx);
	if (!src)
		return -1;
	if (rep)
		dr_report_parsed(rep, m, fx);
	if (o->in_names.n && o->ndyn) {
		/* --dynamic may name inputs by their new names */
		dr_names_dynamic(m, ir_graph(m, fx), &o->in_names, o->dynamic,
		    sizeof o->dynamic);
		PmTarget t = target_of(o);
		if (pm_target_options(m, &t, pipe) < 0) {
			fe_close(src);
			return -1;
		}
	}
	if (o->print_ir)
		ir_print(m, fx, stdout);
	if (o->weights) {
		if (fe_weights(src, o->weights, fx) < 0) {
			fe_close(src);
			return -1;
		}
		const void *wmap;
		size_t wlen;
		int wfd = fe_weights_fd(src, &wmap, &wlen);
		be_src_add(wmap, wlen, wfd, o->weights);
	}
	if (rep)
		dr_report_phase(rep, DR_READ, now_ms() - t0);
	PmRun run = {.opset = o->opset, .training = o->training,
		.verify_each = o->verify_each, .print_all = o->print_all,
		.print_after = o->print_after, .irout = stdout};
	if (rep)
		run.stats = dr_report_stats(rep, pipe->n, &run.nstats);
	/* the frontend gives an FX graph; writing one needs ONNX (the pass
	 * contracts decide whether the pipeline gets there) */
	run.have = ONNXC_PROP_FX;
	run.want = o->out ? ONNXC_PROP_ONNX : 0;
	onnx = fx;
	t0 = now_ms();
	int rc = pm_run(m, r, pipe, &run, &onnx);
	if (rep)
		dr_report_phase(rep, DR_PASSES, now_ms() - t0);
	if (rc == 0 && onnx != fx)
		rc = ir_verify(m, onnx);
	if (rc == 0 && o->print_ir && onnx != fx)
		ir_print(m, onnx, stdout);
	if (rc == 0 && dr_rename(m, ir_graph(m, onnx), &o->in_names,
	    &o->out_names) < 0) {
		m->nerrors++;
		rc = -2;
	}
	BeOptions bo = be_options(o);
	if (rep && rc == 0 && onnx != fx)
		dr_report_result(rep, onnx, o->out ? o->writer->weights(&bo)
		    : NULL);
	if (rc == 0 && o->out) {
		t0 = now_ms();
		rc = o->writer->write(m, onnx, &bo, o->out);
		if (rep && rc == 0)
			dr_report_phase(rep, DR_WRITE, now_ms() - t0);
	}
	if (rc == 0 && be_src_changed()) {
		/* the IR read zeros where the file lost pages (copy.c) */
		ir_error(m, (Loc){0}, "%s changed during conversion (it was "
		    "truncated or rewritten while onnxc read it)",
		    be_src_changed());
		rc = -1;
	}
	const void *wmap;
	size_t wlen;
	if (fe_weights_fd(src, &wmap, &wlen) >= 0)
		be_src_remove(wmap);
	fe_close(src);
	return rc;
}

/* Output on stdout (--help, --print-ir, the lists) that did not arrive
 * is an error too. */
static int
close_stdout(int rc)
{
	bool bad = ferror(stdout) != 0;
	errno = 0;
	if (fclose(stdout) != 0 || bad) {
		fprintf(stderr, "onnxc: error: cannot write to standard "
		    "output: %s\n", strerror(errno ? errno : EIO));
		return rc ? rc : EXIT_INPUT;
	}
	return rc;
}

/* Out of memory anywhere: an input error (a hostile input that got past
 * the readers' budgets, or a model too big for this machine), with no
 * output left behind. */
static const char *oom_input = "onnxc";

static void
on_oom(size_t bytes)
{
	char msg[512];
	int n = snprintf(msg, sizeof msg, "%.400s: error: out of memory "
	    "(asking for %zu bytes); no output written\n", oom_input, bytes);
	be_out_abandon();
	if (n > 0 && write(2, msg, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

int
main(int argc, char **argv)
{
	ir_set_oom_hook(on_oom);
	/* Tables of a big graph grow by realloc: from 2 MiB up they are
	 * mappings of their own, which realloc moves with mremap instead of
	 * copying, and which take huge pages (vgrow).  A fixed threshold also
	 * stops glibc from raising it after a free and copying them again. */
	mallopt(M_MMAP_THRESHOLD, 2 << 20);
	Options o = {0};
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0) {
		dr_names_free(&o.in_names);
		dr_names_free(&o.out_names);
		return close_stdout(rc);
	}
	Module *m = ir_module_new();
	m->file = o.graph ? o.graph : "onnxc";
	oom_input = m->file;
	m->maxerrors = 50;
	void *map = NULL;
	size_t len = 0;
	int srcfd = -1;
	PmPipeline pipe = {0};
	PlRegistry *reg = pl_registry_new(m);
	DrReport *rep = o.report ? dr_report_new(o.report, argc, argv) : NULL;
	rc = load_plugins(reg, &o, argv[0]);
	if (rc == 0 && (o.list_passes || o.list_lowerings)) {
		if (o.list_passes)
			list_passes(reg);
		if (o.list_lowerings)
			list_lowerings(reg);
		goto done;
	}
	PmTarget target = target_of(&o);
	if (rc == 0)
		rc = pm_build(m, reg, &target, o.passes, o.level, &pipe);
	if (rc == 0 && o.print_after &&
	    !pl_find_pass(reg, o.print_after, strlen(o.print_after))) {
		fprintf(stderr, "onnxc: error: --print-ir-after: no pass is "
		    "named '%s' (see --list-passes)\n", o.print_after);
		rc = -1;
		m->nerrors++;
	}
	if (rc == 0)
		rc = map_source(m, o.graph, &map, &len, &srcfd);
	if (rc == 0)
		rc = compile(m, &o, reg, &pipe, rep);
	if (rep && dr_report_write(rep, m, reg, rc == 0) < 0 && rc == 0)
		rc = -1;
done:
	if (m->nerrors > m->maxerrors)
		fprintf(stderr, "%s: note: %d more errors not shown\n", m->file,
		    m->nerrors - m->maxerrors);
	if (rc == -1 && m->nerrors == 0)
		fprintf(stderr, "%s: error: conversion failed\n", m->file);
	if (map)
		munmap(map, len);
	if (srcfd >= 0) {
		be_src_remove(map);
		close(srcfd);
	}
	pm_free(&pipe);
	pl_registry_free(reg); /* fini of each plugin, last loaded first */
	ir_free(m);
	dr_report_free(rep);
	dr_names_free(&o.in_names);
	dr_names_free(&o.out_names);
	return close_stdout(rc == -2 ? EXIT_USAGE : rc < 0 ? EXIT_INPUT : 0);
}
