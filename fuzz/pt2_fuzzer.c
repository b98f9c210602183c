/* pt2_fuzzer.c - a whole .pt2 archive, as the driver reads one: the
 * layout, the JSON program into FX graphs (every graph verified), then the
 * weights (configs, views, torch.save pickles) bound to it. */
#include <stdlib.h>

#include "frontend/pt2.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FzDiag d;
	Module *m = fz_module(&d, "model.pt2", NULL, 0);
	GraphId g;
	Pt2 *a = pt2_open(m, "model.pt2", data, size, NULL, &g);
	fz_check(m, &d, a ? 0 : -1, 0, "pt2_open");
	if (a) {
		int errs = m->nerrors;
		int rc = fz_verify_all(m, g);
		fz_check(m, &d, rc, errs, "verify");
		errs = m->nerrors;
		if (rc == 0)
			fz_check(m, &d, pt2_bind(a, g), errs, "pt2_bind");
		pt2_close(a);
	}
	fz_done(m, &d);
	return 0;
}
