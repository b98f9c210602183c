/* fe_reader.c - the table of input formats and the one path through it:
 * pick a reader by the input's bytes, read, verify, bind the input's own
 * weights, then the weights file's. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fx.h"
#include "pt2.h"
#include "reader.h"
#include "safetensors.h"

/* A new format goes before the dump, which takes anything. */
const FeReader *const fe_readers[] = {&pt2_reader, &fx_reader};
const uint32_t fe_nreaders = sizeof fe_readers / sizeof fe_readers[0];

struct FeSource {
	Module *m;
	const FeReader *rd;
	void *state;
	StFile *w;   /* --weights */
};

/* "A, B and C" of the names of table[0..n) that have programs (or all);
 * false when none has. */
static bool
names(char *buf, size_t cap, const FeReader *const *table, uint32_t n,
    bool programs)
{
	uint32_t k = 0, total = 0;
	for (uint32_t i = 0; i < n; i++)
		total += !programs || table[i]->programs;
	size_t len = str_addf(buf, cap, 0, "%s", "");
	for (uint32_t i = 0; i < n; i++) {
		if (programs && !table[i]->programs)
			continue;
		k++;
		len = str_addf(buf, cap, len, "%s%s", k == 1 ? "" : k == total
		    ? " and " : ", ", table[i]->name);
	}
	return k > 0;
}

const FeReader *
fe_pick(Module *m, const FeReader *const *table, uint32_t n,
    const FeInput *in)
{
	for (uint32_t i = 0; i < n; i++)
		if (table[i]->sniff(in->path, in->buf, in->len))
			return table[i];
	char list[256];
	if (!names(list, sizeof list, table, n, false))
		snprintf(list, sizeof list, "nothing");
	ir_error(m, (Loc){0, 0}, "'%s' is in no format onnxc reads (it "
	    "reads %s)", in->path, list);
	return NULL;
}

FeSource *
fe_open(Module *m, const FeReader *rd, const FeInput *in, GraphId *out)
{
	if (in->program && !rd->programs) {
		char list[256];
		if (!names(list, sizeof list, fe_readers, fe_nreaders, true))
			snprintf(list, sizeof list, "inputs of several programs");
		ir_error(m, (Loc){0, 0}, "--program is for %s, and this is not "
		    "one", list);
		return NULL;
	}
	void *state = NULL;
	if (rd->read(m, in, &state, out) < 0)
		return NULL;
	if (ir_verify(m, *out) < 0 || (rd->bind && rd->bind(state, *out) < 0)) {
		rd->close(state);
		return NULL;
	}
	FeSource *s = calloc(1, sizeof *s);
	if (!s)
		ir_oom(sizeof *s);
	*s = (FeSource){m, rd, state, NULL};
	return s;
}

int
fe_weights(FeSource *s, const char *path, GraphId g)
{
	if (s->w)
		BUG("fe_weights: a second weights file");
	s->w = st_open(s->m, path);
	if (!s->w)
		return -1;
	return s->rd->bind ? st_bind_over(s->m, s->w, g) : st_bind(s->m,
	    s->w, g);
}

int
fe_weights_fd(const FeSource *s, const void **map, size_t *len)
{
	if (!s->w)
		return -1;
	return st_fd(s->w, map, len);
}

void
fe_close(FeSource *s)
{
	if (!s)
		return;
	st_close(s->w);
	s->rd->close(s->state);
	free(s);
}

const char *
fe_file_kind(unsigned mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket"
	    : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode)
	    ? "a block device" : S_ISDIR(mode) ? "a directory"
	    : "of an unknown kind";
}
