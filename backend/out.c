/* out.c - what both backends share: writing a model file so that it
 * appears only when complete (the bytes go to a temporary file beside the
 * target, renamed into place on success, removed on any failure), and
 * naming nodes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx.h"

int
be_write_atomic(Module *m, const char *path, BeEmit emit, void *ctx)
{
	size_t plen = strlen(path);
	char *tmp = xrealloc(NULL, plen + sizeof ".tmpXXXXXX");
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
	int err = 0;
	int fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	/* mkstemp makes the file 0600; give it the mode a plain create
	 * would (onnxc is single-threaded, so reading the umask this way
	 * races with nothing) */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0) {
		err = errno;
		close(fd);
		goto fail;
	}
	FILE *fp = fdopen(fd, "wb");
	if (!fp) {
		err = errno;
		close(fd);
		goto fail;
	}
	err = emit(ctx, fp);
	if (!err && fflush(fp) != 0)
		err = errno ? errno : EIO;
	if (!err && fsync(fileno(fp)) != 0)
		err = errno;
	if (fclose(fp) != 0 && !err)
		err = errno ? errno : EIO;
	if (err)
		goto fail;
	if (rename(tmp, path) != 0) {
		err = errno;
		goto fail;
	}
	goto out;
fail:
	unlink(tmp);
out:
	if (err)
		ir_error(m, (Loc){0, 0}, "cannot write %s: %s", path,
		    strerror(err));
	free(tmp);
	return err ? -1 : 0;
}

StrId
be_node_name(Module *m, BeNames *nm, const char *base)
{
	char buf[300];
	snprintf(buf, sizeof buf, "node_%.280s", base);
	StrId b = ir_intern(m, buf), s = b;
	vgrow((void **)&nm->serial, &nm->nserial, b + 1, sizeof *nm->serial);
	while (s < nm->nused && nm->used[s]) {
		snprintf(buf, sizeof buf, "node_%.280s_%u", base,
		    ++nm->serial[b]);
		s = ir_intern(m, buf);
	}
	vgrow((void **)&nm->used, &nm->nused, s + 1, 1);
	nm->used[s] = 1;
	return s;
}

void
be_names_free(BeNames *nm)
{
	free(nm->used);
	free(nm->serial);
	*nm = (BeNames){0};
}
