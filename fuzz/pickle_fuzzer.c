/* pickle_fuzzer.c - a pickle as torch.save writes it: pk_read must give
 * tensors with sane records, or an error with a message and a position
 * inside the input; it never runs anything. */
#include <stdlib.h>
#include <string.h>

#include "frontend/pickle.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena *a = arena_new();
	PkTensor *t = NULL;
	uint32_t n = 0;
	const char *err = NULL;
	size_t pos = 0;
	if (pk_read(a, data, size, &t, &n, &err, &pos) < 0) {
		if (!err || !*err || pos > size)
			abort();
	} else {
		for (uint32_t i = 0; i < n; i++)
			if (t[i].rank < 0 || t[i].rank > 64 || !t[i].storage ||
			    !t[i].dtype || (n > 1 && !t[i].key))
				abort();
	}
	arena_free(a);
	return 0;
}
