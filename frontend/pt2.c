/* pt2.c - the reader of .pt2 archives (torch.export.save): open the
 * archive and read its program (pt2_archive.c, pt2_sig.c), bind its
 * weights (pt2_weights.c for torch >= 2.7, pt2_pickle.c for torch <= 2.6),
 * close.  The files below it call down, never back up here.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2_int.h"
#include "reader.h"

Pt2 *
pt2_open(Module *m, const char *path, const unsigned char *buf, size_t len,
    const char *program, GraphId *out)
{
	Pt2 *a = calloc(1, sizeof *a);
	if (!a)
		ir_oom(0);
	a->m = m;
	a->path = path;
	a->ja = arena_new();
	a->z = zip_open(m, buf, len);
	a->inflate_left = zip_budget_for(len);
	/* non-overlapping views copy at most their storage; more is a view
	 * that repeats bytes (a stride of 0) */
	a->copy_left = (uint64_t)len + ((uint64_t)64 << 20);
	if (a->z)
		zip_set_budget(a->z, &a->inflate_left);
	const char *entry = NULL;
	if (!a->z || pt2_layout(a, program, &entry) < 0)
		goto fail;
	const JVal *prog = pt2_doc(a, entry, true);
	if (!prog || pt2_check_version(m, prog) < 0 ||
	    pt2_graph(m, prog, out) < 0)
		goto fail;
	a->progfile = m->file;
	a->progsrc = m->src;
	a->proglen = m->srclen;
	return a;
fail:
	pt2_close(a);
	return NULL;
}

int
pt2_bind(Pt2 *a, GraphId gid)
{
	Module *m = a->m;
	int errs = m->nerrors;
	int rc = a->v26 ? pt2_bind_pickles(a, gid) : pt2_bind_configs(a, gid);
	/* later diagnostics point into the program again */
	m->file = a->progfile;
	m->src = a->progsrc;
	m->srclen = a->proglen;
	return rc < 0 || m->nerrors != errs ? -1 : 0;
}

void
pt2_close(Pt2 *a)
{
	if (!a)
		return;
	pt2_weights_free(a);
	for (uint32_t i = 0; i < a->ninner; i++)
		zip_close(a->inner[i]);
	free(a->inner);
	if (a->pa)
		arena_free(a->pa);
	zip_close(a->z);
	arena_free(a->ja);
	free(a);
}

/* The reader table's entry (reader.h): an archive is a zip. */
static bool
rd_sniff(const char *path, const unsigned char *buf, size_t len)
{
	(void)path;
	return zip_sniff(buf, len);
}

static int
rd_read(Module *m, const FeInput *in, void **state, GraphId *out)
{
	*state = pt2_open(m, in->path, in->buf, in->len, in->program, out);
	return *state ? 0 : -1;
}

static int
rd_bind(void *state, GraphId g)
{
	return pt2_bind(state, g);
}

static void
rd_close(void *state)
{
	pt2_close(state);
}

const FeReader pt2_reader = {
	.name = ".pt2 archives",
	.what = ".pt2 archive (torch.export.save)",
	.programs = true,
	.sniff = rd_sniff,
	.read = rd_read,
	.bind = rd_bind,
	.close = rd_close,
};
