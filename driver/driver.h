/* driver.h - the command line's helpers beside main.c: renaming the
 * model's inputs and outputs (names.c) and the conversion report
 * (report.c).  Errors are printed here; main decides the exit code. */
#ifndef ONNXC_DRIVER_H
#define ONNXC_DRIVER_H

#include "../ir/ir.h"
#include "../pipeline/pipeline.h"
#include "../plugins/pl.h"

/* names.c: --input-names / --output-names */
typedef struct DrNames {
	char *buf;        /* the flag's text, split in place */
	const char **v;
	uint32_t n;
} DrNames;
/* "a,b,c" into names; -1 (printed, a usage error) if one is empty or
 * repeated */
int dr_names_parse(const char *flag, const char *text, DrNames *out);
void dr_names_free(DrNames *n);
/* The user inputs (tensors and SymInts, in signature order) and user
 * outputs of g renamed by in and out, a prefix when fewer names are
 * given; each renamed value keeps its old name in Value.orig.  -1
 * (printed, a usage error) for more names than values, or a name that
 * another value of the graph has. */
int dr_rename(Module *m, Graph *g, const DrNames *in, const DrNames *out);
/* --dynamic entries "NAME:DIM=LABEL,..." in buf (capacity cap) whose
 * NAME is a new input name rewritten to the FX input it renames, so that
 * the two flags compose. */
void dr_names_dynamic(Module *m, const Graph *fx, const DrNames *in,
    char *buf, size_t cap);

/* report.c: --report FILE.md */
typedef struct DrReport DrReport;
/* The ops templates.so has templates for (build/gen/templates.def, made
 * from passes/templates/fx), and whether op reaches ONNX only through
 * one: a template and no rule or decomposition of onnxc's own. */
extern const char *const dr_templates[];
extern const size_t dr_ntemplates;
bool dr_by_template(const char *op);

DrReport *dr_report_new(const char *path, int argc, char **argv);
void dr_report_free(DrReport *r);
/* What the conversion is: the input's form, the opset. */
void dr_report_input(DrReport *r, const char *form, int opset);
/* The FX graph as parsed, before any pass changes it: its ops by node
 * name, so that ONNX nodes can be traced to them. */
void dr_report_parsed(DrReport *r, Module *m, GraphId fx);
/* Room for one PmStat per pipeline step, for PmRun.stats. */
PmStat *dr_report_stats(DrReport *r, uint32_t nsteps, uint32_t **count);
/* The ONNX graph written (0 when conversion did not get that far) and
 * how its weights were written. */
void dr_report_result(DrReport *r, GraphId onnx, const char *weights);
/* How long a phase of the conversion took, for the report's Phases
 * table: reading the input (parse or archive, weights), the passes,
 * writing the model.  A phase not reached has no row. */
typedef enum DrPhase { DR_READ, DR_PASSES, DR_WRITE, DR_NPHASES } DrPhase;
void dr_report_phase(DrReport *r, DrPhase p, double ms);
/* Write the report; ok says whether the conversion succeeded.  0, or -1
 * (reported) if the file cannot be written. */
int dr_report_write(DrReport *r, Module *m, const PlRegistry *reg, bool ok);

#endif
