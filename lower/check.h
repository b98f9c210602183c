/* check.h - the argument and shape checker of the lowering: before any
 * rule runs, every FX node's arguments are checked against the op's
 * schema (the schema column of ir/ops.def, PyTorch's) and, for ops with a
 * rule in check_shape.c or check_nn.c, against torch's own rules for sizes, dims,
 * indices, strides, kernels, paddings and scales, computed in checked
 * int64 arithmetic (ir/ckint.h).  A static result shape must agree with
 * the node's annotation.  Messages follow torch's meta functions; each
 * error points at the argument (or list element) it is about. */
#ifndef ONNXC_CHECK_H
#define ONNXC_CHECK_H

#include "lower.h"

/* A shape rule: 0, or -1 after reporting. */
typedef int (*LwcFn)(Lower *L);
typedef struct LwcRule {
	const char *op;
	LwcFn fn;
} LwcRule;
/* The checker's files, check_<file>.c, each with the table of its rows
 * of ir/checks.def (check_rows.h) ending with {NULL, NULL}: written once,
 * as LWC_FILES(X) calls X(file) for each. */
#define LWC_FILES(X) X(shape) X(nn)
#define LWC_DECLARE(file) extern const LwcRule lwc_rules_##file[];
LWC_FILES(LWC_DECLARE)
#undef LWC_DECLARE

/* check.c: the checker.  Checks every node of L->src (L->node is left
 * 0); returns 0, or -1 after reporting each bad node. */
int lwc_check_graph(Lower *L);

/* --- helpers for the rules (check.c) --- */
/* Where argument i / kw (element elem of a list, or the whole argument
 * when elem < 0) is written in the dump; the node's place if unknown. */
Loc lwc_argloc(Lower *L, int i, const char *kw, int elem);
/* An error at that argument, prefixed with the op; returns -1. */
int lwc_fail(Lower *L, int i, const char *kw, int elem, const char *fmt,
    ...) __attribute__((format(printf, 5, 6)));
/* A static int argument (absent or None: dflt, and true). */
bool lwc_int(Lower *L, int i, const char *kw, int64_t dflt, int64_t *out);
/* A number argument, int or float, when static. */
bool lwc_num(Lower *L, int i, const char *kw, double *f, int64_t *n,
    bool *isint);
/* The elements of an int-list argument (a lone int counts as [int]):
 * returns the length (-1 when absent or not a list of ints/SymInts) and
 * fills out[0..cap) with the numbers, known[k] false where element k is
 * symbolic. */
int lwc_ints(Lower *L, int i, const char *kw, int64_t *out, bool *known,
    int cap);
/* The FX tensor value of argument i, and its rank (-1 when not a tensor
 * of known rank). */
const Value *lwc_tensor(Lower *L, int i, const char *kw, int *rank);
/* The static dims of a tensor argument: rank, sizes, which are known. */
typedef struct LwcShape {
	int rank;
	int64_t d[LW_MAXRANK];
	bool k[LW_MAXRANK];
} LwcShape;
/* false when argument i is not a tensor of known rank */
bool lwc_shape(Lower *L, int i, const char *kw, LwcShape *s);
bool lwc_all_known(const bool *k, int n);
/* f as torch prints it: a NaN has no sign */
double lwc_shown(double f);
/* Normalise dim d of argument (i, kw) for rank r like torch's
 * maybe_wrap_dim; 0, or -1 after reporting. */
int lwc_dim(Lower *L, int i, const char *kw, int elem, int64_t *d, int r);
/* "[2, 3]" into buf */
const char *lwc_fmt_shape(char *buf, size_t n, const int64_t *v,
    const bool *known, int cnt);
/* The static result shape dims[0..rank) of output k must agree with its
 * annotation where both are static (known NULL: all known). */
int lwc_result(Lower *L, int k, const int64_t *dims, const bool *known,
    int rank);

#endif
