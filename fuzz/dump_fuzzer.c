/* dump_fuzzer.c - dump text -> IR: the whole frontend (lexer, parser,
 * annotations, expressions, signature sections), the verifier on every
 * graph it built, and the IR printer. */
#include <stdlib.h>

#include "frontend/fx.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FzDiag d;
	Module *m = fz_module(&d, "fuzz.txt", data, size);
	GraphId g = 0;
	int rc = fx_parse(m, &g);
	fz_check(m, &d, rc, 0, "fx_parse");
	if (rc == 0) {
		rc = fz_verify_all(m, g);
		fz_check(m, &d, rc, 0, "ir_verify");
		for (GraphId i = g; i < m->ngraphs; i++)
			ir_print(m, i, d.f);
	}
	fz_done(m, &d);
	return 0;
}
