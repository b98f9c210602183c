/* zip_fuzzer.c - a zip archive: zip_open (end record, zip64, central
 * directory against local headers), then every entry's bytes (in place or
 * inflated under the size limit, CRC-checked), each read through, and
 * zip_find on every name. */
#include <stdlib.h>

#include "frontend/zip.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FzDiag d;
	Module *m = fz_module(&d, "model.pt2", NULL, 0);
	Zip *z = zip_open(m, data, size);
	fz_check(m, &d, z ? 0 : -1, 0, "zip_open");
	if (z) {
		volatile uint8_t sink = 0;
		for (uint32_t i = 0; i < zip_count(z); i++) {
			ZipEntry *e = zip_entry(z, i);
			if (zip_find(z, e->name) != e)
				abort();
			const unsigned char *p;
			size_t n;
			int errs = m->nerrors;
			int rc = zip_data(z, e, &p, &n);
			fz_check(m, &d, rc, errs, "zip_data");
			if (rc == 0 && n != e->usize)
				abort();
			for (size_t k = 0; rc == 0 && k < n; k++)
				sink ^= p[k];
		}
		(void)sink;
		zip_close(z);
	}
	fz_done(m, &d);
	return 0;
}
