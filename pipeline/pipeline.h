/* pipeline.h - the pass pipeline: its text, the presets, and the pass
 * manager that runs registered passes (plugins/pl.h) in order.
 *
 * Pipeline text, as in --passes:
 *   pipeline := step (',' step)*
 *   step     := name ('{' [option (',' option)*] '}')?
 *   option   := key '=' value        value: bare text, or 'quoted, text'
 * Names and keys are [a-z0-9-]+; blanks around the punctuation are
 * allowed.  Values are checked against the type the pass declared. */
#ifndef ONNXC_PIPELINE_H
#define ONNXC_PIPELINE_H

#include "../plugins/pl.h"

typedef struct PmStep {
	const PlPass *pass;
	PlOptVal *opts;   /* one per option of the pass: given or default */
	uint32_t off;     /* where the step starts in the text */
} PmStep;

typedef struct PmPipeline {
	PmStep *steps;
	uint32_t n, cap;
	const char *flag, *text;  /* where it came from, for diagnostics */
} PmPipeline;

/* What one pass did, for --report. */
typedef struct PmStat {
	const char *name;   /* the pass */
	const char *plugin; /* its plugin */
	double ms;          /* wall time */
	uint32_t nodes;     /* nodes of the graph after it */
	bool failed;
} PmStat;

typedef struct PmRun {
	int opset;
	bool training;
	bool verify_each;        /* ir_verify after every pass (always in
	                          * debug builds) */
	bool print_all;          /* print the IR after every pass */
	const char *print_after; /* ... or after the passes of this name */
	FILE *irout;             /* where printed IR goes */
	PmStat *stats;           /* if set, room for one per step: filled */
	uint32_t *nstats;        /* with each pass run, the failed one too */
	uint32_t have;           /* ONNXC_PROP_* true of *g before the first
	                          * pass; 0: read off *g's nodes */
	uint32_t want;           /* ... that must hold after the last one */
} PmRun;

/* What a run is for, from the command line: the pipeline builds the
 * presets from it and sets the pass options that stand for its flags. */
typedef struct PmTarget {
	int opset;
	bool ort;               /* writes an .ort file, not an .onnx */
	bool training;          /* --training */
	const char *dynamic;    /* --dynamic entries, comma-separated */
	const char *statics;    /* --static entries, comma-separated */
	bool strict;            /* --strict */
} PmTarget;

enum { PM_PRESET_MAX = 1024 };  /* room for a preset's text */

/* The text of preset -O<level> (0, 1, 2) for target t, in buf; NULL for
 * another level. */
const char *pm_preset(int level, const PmTarget *t, char *buf, size_t cap);
/* The presets as the usage text shows them, a line or more each. */
void pm_presets_help(FILE *f);
/* Each pass of a preset that no plugin registered is an error naming the
 * module expected to provide it and where it was looked for.  0 or -1. */
int pm_check_preset(Module *m, const PlRegistry *r, int level,
    const PmTarget *t);
/* The pipeline of a run: the text passes (--passes) when not NULL, else
 * preset -O<level> (the default one for level < 0) for target t; then
 * pm_target_options.  0, or -1 after reporting; p is freed by pm_free
 * either way. */
int pm_build(Module *m, const PlRegistry *r, const PmTarget *t,
    const char *passes, int level, PmPipeline *p);
/* Sets the options that stand for the target's flags (--dynamic, ...) on
 * each step of their pass; one given for a pass p lacks is an error. */
int pm_target_options(Module *m, const PmTarget *t, PmPipeline *p);
/* Parse text into p.  Errors are reported with flag ("--passes") as the
 * file name, the text as its line and a caret under the offending part.
 * 0 or -1; p is freed by pm_free either way. */
int pm_parse(Module *m, const PlRegistry *r, const char *flag,
    const char *text, PmPipeline *p);
void pm_free(PmPipeline *p);
/* The pass contracts of p (onnxc_pass_info.needs/provides/breaks), from
 * properties `have` before the first pass to `want` after the last: each
 * property a pass needs and the passes before it do not give is an error
 * at the step, naming the pass that would provide it.  0 or -1. */
int pm_check(Module *m, const PlRegistry *r, const PmPipeline *p,
    uint32_t have, uint32_t want);
/* The names of the ONNXC_PROP_* bits set in bits ("fx,functional") into
 * buf; returns buf. */
char *pm_props_text(uint32_t bits, char *buf, size_t cap);
/* Run the passes on *g, which follows the graph a pass switches to (lower
 * makes the ONNX graph), after pm_check.  0, or -1 with diagnostics
 * naming the pass and its plugin. */
int pm_run(Module *m, PlRegistry *r, const PmPipeline *p, const PmRun *o,
    GraphId *g);

#endif
