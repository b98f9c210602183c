/* out.c - writing a model file so that it appears only when complete:
 * the bytes go to a temporary file beside the target, which is renamed
 * into place on success and removed on any failure. */
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
