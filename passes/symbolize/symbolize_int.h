/* symbolize_int.h - what the files of the pass (symbolize*.c) share,
 * beyond symbolize.h (which the shape rules see too). */
#ifndef ONNXC_SYMBOLIZE_INT_H
#define ONNXC_SYMBOLIZE_INT_H

#include "symbolize.h"

enum {
	MAXRANK = 1024,  /* dims of one value, as the host allows */
	MAXDEPTH = 64,   /* nested lists and expressions */
	MAXOUT = 64      /* outputs of a node the rules look at */
};

#define INF INT64_MAX   /* int_oo in the range table */
#define NINF INT64_MIN

/* The graph being worked on and the bodies its nodes refer to (graph
 * arguments, also inside lists), each once. */
typedef struct Graphs {
	onnxc_graph *g;
	uint32_t n, cap;
} Graphs;

typedef struct SymDynamic {
	const char *input; /* graph input name as in the dump (x) */
	int64_t dim;       /* may be negative */
	const char *label; /* new symbol name (batch_size) */
} SymDynamic;

typedef struct SymStatic {
	const char *label; /* symbol (s0 or a label) */
	int64_t value;
} SymStatic;

typedef struct Opts {
	char *buf;         /* the option texts, cut into the entries */
	SymDynamic *dyn;
	int ndyn;
	SymStatic *stat;
	int nstat;
} Opts;

typedef struct Target {
	const SymDynamic *opt;
	onnxc_value v;
	int32_t d;
	Dim dim;          /* as the dump has it */
} Target;

/* symbolize.c */
void sym_warning(SymCtx *c, onnxc_node n, const char *fmt, ...);
/* An array grown for need elements; false (reported) when out of memory. */
bool sym_grow(SymCtx *c, void **arr, uint32_t *cap, uint32_t need, size_t sz);
int sym_dims_of(SymCtx *c, onnxc_graph g, onnxc_value v, Dim *out, int cap);
const char *sym_strof(SymCtx *c, onnxc_str s);
/* a dim as the dump has it: a number or the expression as written */
const char *sym_dimtext(SymCtx *c, Dim d);
const char *sym_symname(SymCtx *c, onnxc_expr s);
bool sym_isident(const char *s);

/* symbolize_opts.c */
bool sym_collect_graphs(SymCtx *c, Graphs *gs);
bool sym_isfx(SymCtx *c, onnxc_graph g);
/* index of the range entry of e, -1 when it has none */
int sym_findrange(SymCtx *c, onnxc_expr e, int64_t *lo, int64_t *hi);
/* Does any dim, SymInt or range of the program mention symbol s? */
bool sym_known_symbol(SymCtx *c, const Graphs *gs, onnxc_expr s);
int sym_parse_options(SymCtx *c, const char *dyn, const char *stat, Opts *o);
int sym_resolve(SymCtx *c, const SymDynamic *o, Target *t);
/* dynamic on symbolic dims: rename the symbol to the label. */
int sym_rename_symbols(SymCtx *c, const Graphs *gs, Target *t, int nt);
/* static LABEL=VALUE */
int sym_specialise(SymCtx *c, const Graphs *gs, const Opts *o);

#endif
