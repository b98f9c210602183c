/* memprobe.c - what fresh memory costs on this machine: maps MIB MiB,
 * touches one byte per 4 KiB page, with 4 KiB pages and with transparent
 * huge pages (madvise), and prints the seconds of each.  tools/bench_graph.sh
 * prints it beside the conversions: at a million nodes, page faults on
 * fresh memory are a large part of the wall time on some virtual machines.
 * usage: memprobe MIB */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double
now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double
touch(size_t n, int huge)
{
	double t0 = now();
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	if (huge)
		(void)madvise(p, n, MADV_HUGEPAGE);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	double t = now() - t0;
	munmap(p, n);
	return t;
}

int
main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 0;
	if (mib <= 0 || mib > (1L << 20)) {
		fprintf(stderr, "usage: memprobe MIB\n");
		return 2;
	}
	size_t n = (size_t)mib << 20;
	double small = touch(n, 0), huge = touch(n, 1);
	if (small < 0 || huge < 0) {
		perror("memprobe: mmap");
		return 1;
	}
	printf("%ld MiB of fresh memory: %.2f s with 4 KiB pages, %.2f s with "
	    "huge pages\n", mib, small, huge);
	return 0;
}
