/* headers.c - the installed plugin headers compile on their own under
 * strict ISO C and with the default feature macros (tests/sdk/check.sh),
 * and onnxc_table_calloc gives zeroed memory, on a 2 MiB boundary where
 * huge pages can be asked for. */
#include <onnxc/plugin.h>
#include <onnxc/rewrite.h>
#include <onnxc/table.h>
#include <stdint.h>
#include <stdio.h>
int main(void)
{
	size_t n = (3u << 20) + 5;
	unsigned char *p = onnxc_table_calloc(n, 1);
	size_t i;
	if (!p)
		return 1;
	for (i = 0; i < n; i++)
		if (p[i])
			return 2;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if ((uintptr_t)p % ((uintptr_t)2 << 20))
		return 3;
#endif
	free(p);
	puts("ok");
	return 0;
}
