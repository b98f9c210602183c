/* replay.c - a main() for the fuzz targets when libFuzzer is not there:
 * feeds every file named (or found in a folder named) on the command line
 * to LLVMFuzzerTestOneInput, so seed corpora and regression inputs run as
 * ordinary tests with any compiler.  A crash or a broken contract aborts,
 * which fails the test. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
runfile(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = xrealloc(buf, cap);
		}
		size_t k = fread(buf + len, 1, cap - len, f);
		if (k == 0)
			break;
		len += k;
	}
	bool err = ferror(f);
	fclose(f);
	if (err) {
		perror(path);
		free(buf);
		return -1;
	}
	/* an exact-size copy, so that reads past the end are caught */
	uint8_t *exact = xrealloc(NULL, len ? len : 1);
	if (len)
		memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

/* The files of a folder, in name order; returns how many ran, or -1. */
static int
rundir(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	char **names = NULL;
	uint32_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		vgrow((void **)&names, &cap, n + 1, sizeof *names);
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		names[n] = xrealloc(NULL, len);
		snprintf(names[n++], len, "%s/%s", path, e->d_name);
	}
	closedir(d);
	if (n)  /* an empty folder (a new target's regress/) */
		qsort(names, n, sizeof *names, cmpstr);
	int rc = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (runfile(names[i]) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc ? -1 : (int)n;
}

int
main(int argc, char **argv)
{
	int total = 0, rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			/* a regression folder that holds nothing yet */
			printf("%s: no %s, skipped\n", argv[0], argv[i]);
			continue;
		}
		int k = S_ISDIR(st.st_mode) ? rundir(argv[i]) :
		    runfile(argv[i]) == 0 ? 1 : -1;
		if (k < 0)
			rc = 1;
		else
			total += k;
	}
	printf("%s: %d inputs replayed\n", argv[0], total);
	return rc || total == 0;
}
