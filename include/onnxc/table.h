/* onnxc/table.h - big zeroed tables for pass plugins.
 *
 * Header-only: a plugin includes it and links nothing more.  A pass over a
 * graph of millions of values keeps tables of megabytes (one entry per
 * value or node), touches them all over and frees them when it returns.
 * On 4 KiB pages each such table costs thousands of page faults, and in a
 * virtual machine a fault costs more than zeroing its page; the next pass
 * pays them again.  onnxc_table_calloc is calloc that puts a table of
 * 1 MiB or more on 2 MiB pages (a hint: without transparent huge pages
 * they are small ones): one fault and one page to zero beat 256 faults.
 * Free the table with free().
 */
#ifndef ONNXC_TABLE_H
#define ONNXC_TABLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

static inline void *
onnxc_table_calloc(size_t n, size_t size)
{
	/* MADV_HUGEPAGE is defined where madvise and posix_memalign are
	 * declared (the default feature macros); strict ISO C gets calloc */
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const size_t big = (size_t)2 << 20;
	if (size && n >= big / 2 / size && n <= (SIZE_MAX - big) / size) {
		/* on a 2 MiB boundary and a whole number of 2 MiB pages:
		 * where a table's ends share a big page with something else,
		 * that page is 512 small ones */
		size_t bytes = (n * size + big - 1) & ~(big - 1);
		void *p = NULL;
		if (posix_memalign(&p, big, bytes) != 0)
			return NULL;
		(void)madvise(p, bytes, MADV_HUGEPAGE);
		memset(p, 0, bytes);
		return p;
	}
#endif
	return calloc(n ? n : 1, size ? size : 1);
}

#endif
