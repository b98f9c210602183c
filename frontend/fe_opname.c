/* fe_opname.c - the names ops get in the IR, whichever frontend read them:
 * the dump's dotted call targets and the archive's "target" strings are
 * the same Python paths, and must become the same op table keys. */
#include <stdlib.h>
#include <string.h>

#include "fe.h"

static bool
spaneq(const FeSpan *s, const char *w)
{
	size_t n = strlen(w);
	return s->n == n && memcmp(s->p, w, n) == 0;
}

StrId
fe_opname(Module *m, const FeSpan *parts, int n)
{
	size_t len = 16;
	for (int i = 0; i < n; i++)
		len += parts[i].n + 1;
	char stack[256];  /* op names are short: no malloc per call */
	char *buf = len <= sizeof stack ? stack : xrealloc(NULL, len), *o = buf;
	int from = 0, sep;
	if (n >= 4 && spaneq(&parts[0], "torch") &&
	    spaneq(&parts[1], "ops")) {
		from = 2;
		sep = 3;  /* "::" before the op name */
	} else if (n >= 2) {
		sep = n - 1;
	} else {
		memcpy(o, "builtins", 8);
		o += 8;
		sep = 0;
	}
	if (n >= 2 && sep == n - 1 && sep == 1 &&
	    spaneq(&parts[0], "operator")) {
		memcpy(o, "_", 1);
		o++;
	}
	for (int i = from; i < n; i++) {
		if (i == sep) {
			memcpy(o, "::", 2);
			o += 2;
		} else if (i > from) {
			*o++ = '.';
		}
		memcpy(o, parts[i].p, parts[i].n);
		o += parts[i].n;
	}
	StrId s = ir_internn(m, buf, (size_t)(o - buf));
	if (buf != stack)
		free(buf);
	return s;
}

StrId
fe_opname_text(Module *m, const char *s, size_t n)
{
	FeSpan parts[16];
	int np = 0;
	size_t i = 0;
	while (i <= n && np < 16) {
		size_t j = i;
		while (j < n && s[j] != '.')
			j++;
		parts[np++] = (FeSpan){s + i, (uint32_t)(j - i)};
		i = j + 1;
	}
	if (i <= n || np == 0)
		return 0;
	return fe_opname(m, parts, np);
}
