/* load.c - the templates pass's templates: their headers read, a folder
 * of them loaded (option dir=), grouped by op. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "templates.h"

/* ------------------------------------------------------- the headers */

static int
parse_header(Tpl *t)
{
	const char *p = t->text, *end = t->text + t->len;
	while (p < end && *p == '#') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[256];
		if (n >= sizeof line)
			return 0;
		memcpy(line, p, n);
		line[n] = 0;
		TArg a;
		memset(&a, 0, sizeof a);
		char dflt[16] = "", flag2[16] = "";
		if (sscanf(line, "# onnxc template %127s", t->op) == 1) {
			;
		} else if (sscanf(line, "# arg %u %47s %7s", &a.index, a.name,
		    a.kind) == 3) {
			/* the value, absent for tensor and none */
			int k = 1;
			if (strcmp(a.kind, "tensor") && strcmp(a.kind, "none"))
				k = sscanf(line, "# arg %*u %*s %*s %79s %15s "
				    "%15s", a.value, dflt, flag2);
			else if (sscanf(line, "# arg %*u %*s %*s %15s",
			    dflt) < 1)
				*dflt = 0;
			/* the flags after the value: "param" (a float the
			 * body holds as this literal, any other number fits)
			 * and "default", in that order */
			if (!strcmp(dflt, "param") && !strcmp(a.kind, "float")) {
				a.param = 1;
				memcpy(dflt, flag2, sizeof dflt);
			} else if (*flag2) {
				return 0;
			}
			if (k < 1 || t->nargs >= MAXARGS ||
			    (*dflt && strcmp(dflt, "default")))
				return 0;
			a.dflt = *dflt != 0;
			t->args[t->nargs++] = a;
		} else if (!strncmp(line, "# arg ", 6) ||
		    !strncmp(line, "# onnxc ", 8)) {
			return 0;  /* other '#' lines are comments */
		}
		p = nl ? nl + 1 : end;
	}
	return *t->op != 0;
}

int
tpl_add(St *s, const char *file, const char *text, size_t len, char *owned)
{
	if (s->nt == s->ct) {
		uint32_t c = s->ct ? 2 * s->ct : 64;
		Tpl *p = realloc(s->t, c * sizeof *p);
		if (!p)
			return -1;
		s->t = p;
		s->ct = c;
	}
	Tpl *t = &s->t[s->nt];
	memset(t, 0, sizeof *t);
	snprintf(t->file, sizeof t->file, "%s", file);
	t->text = text;
	t->len = len;
	t->owned = owned;
	if (!parse_header(t)) {
		s->h->report(s->ctx, ONNXC_SEV_ERROR, 0, 0, "template %s: its "
		    "header is not '# onnxc template OP' and '# arg I NAME "
		    "KIND [VALUE] [default]' lines", file);
		free(owned);
		return -1;
	}
	s->nt++;
	return 0;
}

static int
byname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.fx files of dir, in name order, before the embedded ones. */
int
tpl_load_dir(St *s, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		s->h->report(s->ctx, ONNXC_SEV_ERROR, 0, 0, "templates: cannot "
		    "open the folder '%s'", dir);
		return -1;
	}
	char **names = NULL;
	uint32_t n = 0, c = 0;
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 4 || strcmp(e->d_name + l - 3, ".fx"))
			continue;
		if (n == c) {
			c = c ? 2 * c : 32;
			char **p = realloc(names, c * sizeof *p);
			if (!p) {
				rc = -1;
				break;
			}
			names = p;
		}
		if (!(names[n] = strdup(e->d_name)))
			rc = -1;
		else
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, byname);
	for (uint32_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		FILE *f = rc == 0 ? fopen(path, "rb") : NULL;
		char *buf = NULL;
		long len = -1;
		if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
		    len < (1L << 24) && fseek(f, 0, SEEK_SET) == 0 &&
		    (buf = malloc((size_t)len + 1)) &&
		    fread(buf, 1, (size_t)len, f) == (size_t)len) {
			buf[len] = 0;
			rc = tpl_add(s, path, buf, (size_t)len, buf);
		} else if (rc == 0) {
			free(buf);
			s->h->report(s->ctx, ONNXC_SEV_ERROR, 0, 0,
			    "templates: cannot read '%s'", path);
			rc = -1;
		}
		if (f)
			fclose(f);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* The templates of one op next to each other, each op's in the order
 * they were found (quadratic in the number of templates, a few hundred,
 * once per run). */
int
tpl_group(St *s)
{
	Tpl *g = malloc((s->nt + 1) * sizeof *g);
	uint8_t *done = calloc(s->nt + 1, 1);
	if (!g || !done) {
		free(g);
		free(done);
		return -1;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->nt; i++) {
		if (done[i])
			continue;
		for (uint32_t j = i; j < s->nt; j++)
			if (!done[j] && !strcmp(s->t[j].op, s->t[i].op)) {
				g[k++] = s->t[j];
				done[j] = 1;
			}
	}
	memcpy(s->t, g, s->nt * sizeof *g);
	free(g);
	free(done);
	return 0;
}

