/* copy.h - weight bytes from input files to outputs by the kernel.
 *
 * Inputs whose bytes may reach an output are registered as sources: their
 * read-only mapping, and the descriptor it was made from.  A writer that is
 * handed bytes inside a source copies them with copy_file_range (or
 * sendfile, or pread and write) from the file at the same offset, so they
 * are read and written once and never faulted in through the mapping.
 *
 * A source that shrinks while mapped would kill the process with SIGBUS on
 * the next read of a lost page; be_src_add installs a handler that maps
 * zeros there instead and notes the change, which be_src_changed reports
 * (outputs are then discarded, see out.c).
 */
#ifndef ONNXC_COPY_H
#define ONNXC_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Register map[0, len), the mapping of fd (which stays open until
 * be_src_remove) read from path.  Returns 0, or -1 when the table is
 * full. */
int be_src_add(const void *map, size_t len, int fd, const char *path);
/* Forget a source (and that it changed). */
void be_src_remove(const void *map);
/* Let go of the pages of every source that reads have brought in: they
 * stay in the page cache and come back on the next read, but no longer
 * count toward this process's memory (see plugins/host_tensor.c). */
void be_src_drop(void);
/* The same for p[0, n) where it lies in a source; nothing elsewhere. */
void be_src_release(const void *p, size_t n);
/* The source holding p[0, n): its descriptor and the file offset of p. */
bool be_src_find(const void *p, size_t n, int *fd, uint64_t *off);
/* Whether (dev, ino) is a registered source; its path if so. */
const char *be_src_same(dev_t dev, ino_t ino);
/* The path of a source that changed during conversion, or NULL. */
const char *be_src_changed(void);
void be_src_note_changed(int fd);

/* Bytes made as they are written (plugins/host_tensor.c: a deferred
 * tensor_make).  make hands p[0, n)'s bytes to put a piece at a time and
 * returns 0 or the first nonzero put or fill returned, or -1 when p[0, n)
 * is not made that way (its bytes are in the source's file, or nowhere
 * known).  One maker per process; NULL removes it. */
typedef int (*BePut)(void *ctx, const void *p, size_t n);
typedef int (*BeMake)(const void *p, size_t n, BePut put, void *put_ctx);
void be_src_maker(BeMake make);
/* The maker's answer for p[0, n); -1 without a maker. */
int be_src_make(const void *p, size_t n, BePut put, void *put_ctx);

/* Copy n bytes of in from offset off to the current position of out.
 * Returns 0 or an errno value; a source that ends early is noted as
 * changed and gives ESTALE. */
int be_copy(int out, int in, uint64_t off, uint64_t n);

#endif
