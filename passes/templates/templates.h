/* templates.h - the templates embedded in the module: CMake writes
 * templates_data.c from the .fx files of passes/templates/fx
 * (cmake/EmbedTemplates.cmake). */
#ifndef ONNXC_PASS_TEMPLATES_H
#define ONNXC_PASS_TEMPLATES_H

#include <stddef.h>
#include <stdint.h>

#include <onnxc/plugin.h>

typedef struct TplBlob {
	const char *file;  /* the file's name, for diagnostics */
	const char *text;
	size_t len;
} TplBlob;

extern const TplBlob tpl_embedded[];
extern const unsigned tpl_nembedded;

/* what the pass keeps of one run (templates.c) */
enum {
	MAXDEPTH = 16, MAXARGS = 32, MAXSYMS = 64, MAXR = 16, MAXPARAMS = 8
};

/* One header line: "# arg I NAME KIND VALUE [param] [default]". */
typedef struct TArg {
	uint32_t index;
	char name[48];
	char kind[8];     /* tensor int float bool none str ints */
	char value[80];
	int dflt;
	int param;        /* any number but 0 and +-1: the body's literal
	                   * VALUE stands for it (gen_templates.py checks) */
} TArg;

/* A template of the run: its text, what its header says, its graph once
 * read. */
typedef struct Tpl {
	char op[128];
	char file[160];
	const char *text;
	size_t len;
	char *owned;      /* text read from dir=, freed at the end */
	TArg args[MAXARGS];
	uint32_t nargs;
	onnxc_graph g;    /* 0: not read yet */
	int failed;       /* read, with errors (reported once) */
} Tpl;

typedef struct St {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	Tpl *t;
	uint32_t nt, ct;
	onnxc_value *remap;  /* value -> the value replacing it */
	uint32_t nremap;
	uint8_t *depth;      /* node -> templates it came through */
	uint32_t ndepth;
	struct { uint32_t key; int32_t first; } cache[512]; /* op -> tpl */
} St;

/* load.c: template text (its header read) added to the run, 0 or -1
 * (reported); a folder's *.fx files, in name order; the templates of
 * one op next to each other, each op's in the order they were added */
int tpl_add(St *s, const char *file, const char *text, size_t len,
    char *owned);
int tpl_load_dir(St *s, const char *dir);
int tpl_group(St *s);

#endif
