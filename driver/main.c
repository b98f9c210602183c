/* main.c - the onnxc command line: parse, bind weights, lower, write.
 * The only place that decides exit codes: 0 converted, 1 input error,
 * 2 usage error. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/onnx.h"
#include "frontend/fx.h"
#include "frontend/safetensors.h"
#include "ir/ir.h"
#include "passes/lower.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: onnxc GRAPH [--weights FILE.safetensors] -o OUT.onnx [--opset N]\n"
    "             [--print-ir] [--help] [--version]\n";

static const char help[] =
    "Converts a PyTorch FX graph dump (print(exported_program) or\n"
    "gm.print_readable()) into an ONNX model.\n"
    "\n"
    "  GRAPH                 the dump, as PyTorch printed it\n"
    "  --weights FILE        parameters, buffers and constants, keyed by their\n"
    "                        signature targets (fc.weight); without it they\n"
    "                        become graph inputs\n"
    "  -o, --output OUT      the model to write (written only on success)\n"
    "  --opset N             ONNX opset, 17 to 23 (default 18)\n"
    "  --print-ir            print the IR after parsing and after lowering\n"
    "  --help, --version\n";

typedef struct Options {
	const char *graph, *weights, *out;
	int opset;
	bool print_ir;
} Options;

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

/* Returns -1 to go on, else the exit code. */
static int
parse_args(int argc, char **argv, Options *o)
{
	o->opset = 18;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		bool missing = false;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			fputs(help, stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			printf("onnxc %s\n", ONNXC_VERSION);
			return 0;
		}
		if (!strcmp(a, "--print-ir")) {
			o->print_ir = true;
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
				return usage_error("--opset takes a number "
				    "from 17 to 23, not '%s'", v);
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
	if (!o->graph)
		return usage_error("%s", "no GRAPH given");
	if (!o->out && !o->print_ir)
		return usage_error("%s", "no output given (-o OUT.onnx)");
	return -1;
}

/* The dump is mapped read-only; diagnostics quote lines from it. */
static int
map_source(Module *m, const char *path, void **map, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		ir_error(m, (Loc){0}, "cannot read '%s': %s", path,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		ir_error(m, (Loc){0}, "'%s' is not a regular file", path);
		close(fd);
		return -1;
	}
	*len = (size_t)st.st_size;
	*map = NULL;
	if (*len) {
		*map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (*map == MAP_FAILED) {
			*map = NULL;
			ir_error(m, (Loc){0}, "cannot map '%s': %s", path,
			    strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	m->src = *map;
	m->srclen = *len;
	return 0;
}

static int
compile(Module *m, const Options *o)
{
	GraphId fx, onnx;
	if (fx_parse(m, &fx) < 0 || ir_verify(m, fx) < 0)
		return -1;
	if (o->print_ir)
		ir_print(m, fx, stdout);
	StFile *w = NULL;
	if (o->weights) {
		w = st_open(m, o->weights);
		if (!w || st_bind(m, w, fx) < 0) {
			st_close(w);
			return -1;
		}
	}
	int rc = pass_lower(m, fx, &onnx, o->opset);
	if (rc == 0)
		rc = ir_verify(m, onnx);
	if (rc == 0 && o->print_ir)
		ir_print(m, onnx, stdout);
	if (rc == 0 && o->out) {
		OnnxOptions oo = {.opset = o->opset};
		rc = onnx_write(m, onnx, &oo, o->out);
	}
	st_close(w);
	return rc;
}

int
main(int argc, char **argv)
{
	Options o = {0};
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	Module *m = ir_module_new();
	m->file = o.graph;
	m->maxerrors = 50;
	void *map = NULL;
	size_t len = 0;
	rc = map_source(m, o.graph, &map, &len);
	if (rc == 0)
		rc = compile(m, &o);
	if (m->nerrors > m->maxerrors)
		fprintf(stderr, "%s: note: %d more errors not shown\n", o.graph,
		    m->nerrors - m->maxerrors);
	if (rc < 0 && m->nerrors == 0)
		fprintf(stderr, "%s: error: conversion failed\n", o.graph);
	if (map)
		munmap(map, len);
	ir_free(m);
	return rc < 0 ? EXIT_INPUT : 0;
}
