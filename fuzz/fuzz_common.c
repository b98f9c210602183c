/* fuzz_common.c - helpers of the fuzz targets (see fuzz.h). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

Module *
fz_module(FzDiag *d, const char *file, const uint8_t *data, size_t size)
{
	memset(d, 0, sizeof *d);
	d->f = open_memstream(&d->text, &d->len);
	if (!d->f)
		abort();
	Module *m = ir_module_new();
	m->file = file;
	m->src = (const char *)data;
	m->srclen = size;
	m->diagout = d->f;
	m->maxerrors = 50;  /* as the driver: bounded output per input */
	return m;
}

/* Does a diagnostic (not a quoted source line) start "error: internal"?
 * Messages are "FILE[:LINE:COL]: error: ..."; source lines under them are
 * indented, and may quote anything. */
static bool
internal_error(const char *t)
{
	for (const char *l = t; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1
	    : l + strlen(l)) {
		if (*l == ' ')
			continue;
		const char *e = strstr(l, ": error: ");
		const char *nl = strchr(l, '\n');
		if (e && (!nl || e < nl) && strncmp(e + 9, "internal", 8) == 0)
			return true;
	}
	return false;
}

static bool
has_error(const char *t)
{
	for (const char *l = t; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1
	    : l + strlen(l)) {
		const char *e = strstr(l, ": error: ");
		const char *nl = strchr(l, '\n');
		if (*l != ' ' && e && (!nl || e < nl))
			return true;
	}
	return false;
}

static void
broken(FzDiag *d, const char *stage, const char *why)
{
	fflush(d->f);
	fprintf(stderr, "fuzz: contract broken after %s: %s\n"
	    "--- diagnostics ---\n%.*s-------------------\n", stage, why,
	    (int)(d->len > 4000 ? 4000 : d->len), d->text ? d->text : "");
	abort();
}

void
fz_check(Module *m, FzDiag *d, int rc, int errs0, const char *stage)
{
	fflush(d->f);
	const char *t = d->text ? d->text : "";
	if (rc != 0 && rc != -1)
		broken(d, stage, "status neither 0 nor -1");
	if (rc == 0 && m->nerrors != errs0)
		broken(d, stage, "success with errors reported");
	if (rc != 0 && m->nerrors == errs0)
		broken(d, stage, "failure without an error reported");
	if (rc != 0 && !has_error(t))
		broken(d, stage, "failure without an 'error:' line");
	if (internal_error(t))
		broken(d, stage, "an internal error was reported");
}

int
fz_verify_all(Module *m, GraphId g)
{
	int rc = 0;
	for (GraphId i = g; i < m->ngraphs; i++)
		if (ir_verify(m, i) != 0)
			rc = -1;
	return rc;
}

void
fz_done(Module *m, FzDiag *d)
{
	fclose(d->f);
	free(d->text);
	ir_free(m);
}
