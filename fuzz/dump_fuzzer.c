/* dump_fuzzer.c - dump text -> IR: the whole frontend (lexer, parser,
 * annotations, expressions, signature sections), the verifier on every
 * graph it built, and the IR printer.  Each input is read twice, with and
 * without the fast statement path (fx_fast.c), and both must give the
 * same diagnostics, the same graphs and the same strings in the same
 * order: the fast path is only a quicker way to the general one's result. */
#include <stdlib.h>
#include <string.h>

#include "frontend/fx.h"
#include "fuzz.h"

/* What reading data gives, as text: diagnostics, every graph printed and
 * counted, every interned string. */
static char *
read_dump(const uint8_t *data, size_t size, bool general, int *rc)
{
	FzDiag d;
	Module *m = fz_module(&d, "fuzz.txt", data, size);
	FxOpts o = {.general = general};
	GraphId g = 0;
	*rc = fx_parse_with(m, &g, &o);
	fz_check(m, &d, *rc, 0, general ? "fx_parse (general)" : "fx_parse");
	if (*rc == 0) {
		int v = fz_verify_all(m, g);
		fz_check(m, &d, v, 0, "ir_verify");
		for (GraphId i = g; i < m->ngraphs; i++)
			ir_print(m, i, d.f);
	}
	for (GraphId i = 1; i < m->ngraphs; i++) {
		const Graph *gr = m->graphs[i];
		fprintf(d.f, "graph %u: %u nodes %u values %u args %u items "
		    "%u dims\n", i, gr->nnodes, gr->nvals, gr->nargs,
		    gr->nitems, gr->ndims);
	}
	for (StrId s = 0; s < m->nstrs; s++)
		fprintf(d.f, "%u %s\n", s, ir_str(m, s));
	fflush(d.f);
	char *text = strdup(d.text ? d.text : "");
	fz_done(m, &d);
	if (!text)
		abort();
	return text;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fast_rc, general_rc;
	char *fast = read_dump(data, size, false, &fast_rc);
	char *general = read_dump(data, size, true, &general_rc);
	if (fast_rc != general_rc || strcmp(fast, general) != 0) {
		fprintf(stderr, "fuzz: the fast path and the general one "
		    "differ (status %d and %d)\n--- fast ---\n%.4000s\n"
		    "--- general ---\n%.4000s\n", fast_rc, general_rc, fast,
		    general);
		abort();
	}
	free(fast);
	free(general);
	return 0;
}
