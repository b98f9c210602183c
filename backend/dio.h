/* dio.h - an output's whole blocks written by O_DIRECT on a thread.
 *
 * Bytes an output builds in memory (a 1M-node graph is 400 MB of them) go
 * from its buffers to the disk without being copied into the page cache,
 * whose fresh pages cost more to fault in than the copy and whose
 * writeback the closing fsync waits for; the writing overlaps the work
 * that fills the next buffer.  The owner fills one buffer of a ring while
 * the thread writes the others, in order, each at its offset (pwrite, so
 * the file position is the owner's).  The owner does its own I/O on the
 * file (buffered writes, kernel copies) only after be_dio_wait, which
 * also clears O_DIRECT.  A file system that refuses O_DIRECT gets the
 * same writes through the page cache, still on the thread.
 */
#ifndef ONNXC_DIO_H
#define ONNXC_DIO_H

#include <stddef.h>
#include <stdint.h>

enum {
	BE_DIO_ALIGN = 4096,    /* O_DIRECT offsets, lengths and memory */
	BE_DIO_BUF = 1 << 20,   /* bytes per buffer */
};

typedef struct BeDio BeDio;

/* A writer for fd, its first buffer in *buf; NULL (nothing started) when
 * memory or a thread cannot be had. */
BeDio *be_dio_new(int fd, unsigned char **buf);
/* Hand the first n bytes of *buf (a multiple of BE_DIO_ALIGN) to be
 * written at off, also a multiple; *buf becomes the next buffer once it
 * is free, keep bytes (< BE_DIO_ALIGN) from after the n copied to its
 * front.  Returns 0 or the errno of an earlier write that failed. */
int be_dio_submit(BeDio *d, unsigned char **buf, size_t n, size_t keep,
    uint64_t off);
/* Wait until every write handed over is done; O_DIRECT is off after.
 * Returns 0 or the errno of the first write that failed. */
int be_dio_wait(BeDio *d);
/* Stop the thread (writes not yet started are dropped) and free. */
void be_dio_free(BeDio *d);
/* Bytes this process wrote by O_DIRECT (for tests). */
uint64_t be_dio_bytes(void);

#endif
