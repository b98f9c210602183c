/* fuzz.h - what the fuzz targets share: a module whose diagnostics are
 * captured, and the checks every target makes on the way out.
 *
 * The contract checked (the driver's, seen from the library): an input is
 * either accepted with no error reported, or refused with at least one
 * "error:" line; no diagnostic ever says "internal" (a pass or the backend
 * caught a bug of ours).  A broken contract aborts, which the fuzzer
 * records as a crash. */
#ifndef ONNXC_FUZZ_H
#define ONNXC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"

typedef struct FzDiag {
	FILE *f;        /* the module's diagout while the target runs */
	char *text;
	size_t len;
} FzDiag;

/* A module over data[0..size) as its source text, diagnostics into d. */
Module *fz_module(FzDiag *d, const char *file, const uint8_t *data,
    size_t size);
/* Check the contract for a stage that returned rc (0 or -1), given the
 * module's error count before it; abort if broken. */
void fz_check(Module *m, FzDiag *d, int rc, int errs0, const char *stage);
/* Close the diagnostics and free the module. */
void fz_done(Module *m, FzDiag *d);
/* ir_verify every graph of m from g on (a broken one is reported as an
 * internal error, which fz_check then catches); 0 or -1. */
int fz_verify_all(Module *m, GraphId g);

/* The libFuzzer entry point each target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
