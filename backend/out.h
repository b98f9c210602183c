/* out.h - output files that never clobber an input and never litter.
 *
 * An output is written unnamed (O_TMPFILE in the folder of its target)
 * and given its name only by be_out_commit, so a process killed at any
 * moment leaves nothing behind.  Where O_TMPFILE is not supported, a short
 * temporary name is used instead, removed on failure and by handlers for
 * SIGTERM, SIGINT and SIGHUP.  Symbolic links are followed (the target is
 * written, the link kept); an existing device or FIFO is written into,
 * never replaced; an output that is the same file as an input (a source of
 * copy.h, or a loaded plugin) is refused before anything is written.
 */
#ifndef ONNXC_OUT_H
#define ONNXC_OUT_H

#include "../ir/ir.h"

typedef struct BeOut BeOut;

/* Open an output for path; NULL after reporting why not. */
BeOut *be_out_open(Module *m, const char *path);
/* Append n bytes; bytes inside a registered source go by kernel copy.
 * Returns 0, or the errno value of the first failure (kept: later writes
 * do nothing, and be_out_commit reports it). */
int be_out_write(BeOut *o, const void *p, size_t n);
/* Room to write into in place: *n bytes (none after a failure: NULL) at
 * the end of the output's buffer, which be_out_put then appends.  Any
 * other call on o ends the room; the protobuf writer encodes into it
 * rather than into a buffer of its own that is then copied. */
uint8_t *be_out_room(BeOut *o, size_t *n);
void be_out_put(BeOut *o, size_t k);
/* Zeros up to the next multiple of align (a power of two). */
int be_out_align(BeOut *o, uint64_t align);
uint64_t be_out_pos(const BeOut *o);
/* A file, which be_out_patch and be_out_rewind may change (not a device
 * or FIFO the user gave). */
bool be_out_seekable(const BeOut *o);
/* n (at most 16) bytes already appended at off become p's: a length the
 * writer knows only at the end.  Where the bytes have left the buffer,
 * they are rewritten when the output is finished (be_out_commit). */
int be_out_patch(BeOut *o, uint64_t off, const void *p, size_t n);
/* Empty the output, to be written again from its start. */
int be_out_rewind(BeOut *o);
/* The file written: the path given, symbolic links followed. */
const char *be_out_target(const BeOut *o);
/* Report err, a failure of writing o ("cannot write PATH: ..."). */
void be_out_report(Module *m, const BeOut *o, int err);
/* Give outs[0..n) their names, in order, once all are complete and no
 * input changed; on any failure none is kept.  Frees them; returns 0 or
 * -1 (reported). */
int be_out_commit(Module *m, BeOut **outs, int n);
/* Drop an output unnamed (NULL is fine). */
void be_out_discard(BeOut *o);
/* Remove every temporary output now, as a fatal signal would: for a
 * process that must end at once (out of memory). */
void be_out_abandon(void);

/* An output written by one callback: open, emit, commit.  emit returns 0
 * or an errno value. */
typedef int (*BeEmit)(void *ctx, BeOut *o);
int be_write_atomic(Module *m, const char *path, BeEmit emit, void *ctx);
/* The same into o, opened: committed, or discarded after a failure. */
int be_write_into(Module *m, BeOut *o, BeEmit emit, void *ctx);

#endif
