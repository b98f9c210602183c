/* symbolize.h - inside the symbolize-shapes plugin: the context its two
 * files share, the reading helpers over the host table (symbolize.c), and
 * the symbolic shape rules (shapes.c) that re-derive FX shapes forward
 * once a numeric dim has become a symbol. */
#ifndef SYMBOLIZE_H
#define SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#include <onnxc/plugin.h>

typedef onnxc_dim Dim; /* the number n when e == 0, else the expression e */

enum { SYM_MAXR = 16 }; /* ranks the rules follow */

/* Where a symbol can be read at run time: dim d of graph input v. */
typedef struct SymSrc {
	onnxc_expr sym;
	onnxc_value v;
	int32_t d;
} SymSrc;

typedef struct SymCtx {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	bool strict;
	int nerr;           /* errors reported: the pass fails when > 0 */
	/* values symbols stand for when the dump was traced: the symbols this
	 * pass introduced (their traced sizes) and, for symbols the dump
	 * already had, stand-in values (distinct primes), so that any dim
	 * has a number to match shapes by */
	onnxc_expr *bsym;
	int64_t *bval;
	uint32_t nbind, cbind;
	uint32_t nnew;      /* bsym[0..nnew) are the introduced symbols */
	SymSrc *src;
	uint32_t nsrc, csrc;
	uint8_t *touched;   /* per value: its shape or value mentions a new
	                     * symbol */
	uint32_t ntouched;
	onnxc_node node;    /* the node being handled */
	/* materialised expressions, reused by later nodes */
	onnxc_expr *memo_e;
	onnxc_value *memo_v;
	uint32_t nmemo, cmemo;
	Dim *scratch;       /* room for the dims of any one value */
	uint32_t serial;    /* for fresh value names */
	int nwarn;          /* unproven literals reported */
} SymCtx;

/* --- shapes.c --- */
/* Re-derive the output shapes of node n from its (already re-derived)
 * inputs, rewriting size literals that follow a new symbol.  out[k]
 * holds output k's dims, pre-filled with the annotation.  Returns 0 or
 * -1 (reported). */
int sym_infer(SymCtx *c, onnxc_node n, Dim out[][SYM_MAXR]);

/* --- symbolize.c: reporting --- */
void sym_error(SymCtx *c, onnxc_node n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A literal equal to a new symbol's traced size that nothing proves
 * follows it: a warning, an error under --strict.  Returns -1 when it is
 * an error. */
int sym_unproven(SymCtx *c, onnxc_node n, const char *what, int64_t lit);

/* --- symbolize.c: the IR through the host --- */
const char *sym_op(SymCtx *c, onnxc_node n);    /* "aten::view.default" */
/* positional i (when >= 0), else the keyword kw; false when absent */
bool sym_arg(SymCtx *c, onnxc_node n, int i, const char *kw, onnxc_arg *a);
bool sym_item(SymCtx *c, const onnxc_arg *list, uint32_t i, onnxc_arg *out);
uint32_t sym_nargs(SymCtx *c, onnxc_node n);
bool sym_node_arg(SymCtx *c, onnxc_node n, uint32_t i, onnxc_arg *a);
/* output k of n, 0 if there is none */
onnxc_value sym_out(SymCtx *c, onnxc_node n, uint32_t k);
onnxc_value_info sym_value(SymCtx *c, onnxc_value v);
/* min(rank, cap) dims of v into out; returns the rank (-1: unknown) */
int sym_dims(SymCtx *c, onnxc_value v, Dim *out, int cap);
/* a list argument holding n items (copied) replaces argument i of n */
int sym_set_list(SymCtx *c, onnxc_node n, uint32_t i, const onnxc_arg *list,
    const onnxc_arg *items, uint32_t cnt);
/* index of the argument sym_arg finds, -1 when absent */
int sym_arg_index(SymCtx *c, onnxc_node n, int i, const char *kw);

/* --- symbolize.c: expressions --- */
onnxc_expr sym_int(SymCtx *c, int64_t n);
onnxc_expr sym_bin(SymCtx *c, uint32_t kind, onnxc_expr a, onnxc_expr b);
onnxc_expr sym_simplify(SymCtx *c, onnxc_expr e);
onnxc_expr_info sym_expr(SymCtx *c, onnxc_expr e);
bool sym_mentions(SymCtx *c, onnxc_expr e, onnxc_expr sub);
/* canonical text, kept for the compilation ("2*s0", "s0 + 1") */
const char *sym_text(SymCtx *c, onnxc_expr e);
onnxc_expr sym_dim_expr(SymCtx *c, Dim d);
Dim sym_mkdim(SymCtx *c, onnxc_expr e);
/* the number e stood for when the dump was traced; false if it cannot be
 * told (floats, unknown calls) */
bool sym_traced(SymCtx *c, onnxc_expr e, int64_t *v);
/* does e mention a symbol this pass introduced */
bool sym_is_new(SymCtx *c, onnxc_expr e);
/* A SymInt value computing e, made of sym_size.int and Python-operator
 * nodes placed before the node being handled; 0 (reported) when e has
 * parts FX cannot compute. */
onnxc_value sym_materialize(SymCtx *c, onnxc_expr e);

#endif
