/* pbsplit.h - a long run of protobuf fields emitted by two threads.
 *
 * The nodes of a big graph are most of a model's bytes, and each is
 * encoded on its own.  A split cuts items [lo, hi) into chunks; a share of
 * the chunks the caller marks helpable go to a helper thread, which emits
 * them into memory that the caller appends in order, and the rest stay
 * with the calling thread, which emits them straight into its Pb.  The bytes
 * are those of emitting every item in order on one thread, in the sizing
 * and the writing run alike (pb.h): the helper sizes its chunks in the
 * sizing run and reuses those lengths in the writing run.  Streaming
 * (pb_split_stream) there is no sizing run for the split: each chunk is
 * made in one run that puts lengths in as it goes (pb_write_grow).
 *
 * The emit callback runs on both threads at once, with the context meant
 * for each: it must only read shared state.  Chunks holding anything else
 * (a tensor that should go by kernel copy, a subgraph) are left
 * unhelpable, and the caller emits them.  Without a second CPU, or when a
 * thread cannot be started, the caller emits the helper's chunks itself.
 */
#ifndef ONNXC_PBSPLIT_H
#define ONNXC_PBSPLIT_H

#include "pb.h"

/* Emit items [lo, hi) into w, sizing or writing as w is. */
typedef void (*PbEmitRange)(void *ctx, Pb *w, uint32_t lo, uint32_t hi);

typedef struct PbSplit PbSplit;

/* A split of items [lo, hi) into chunks of chunk items; helpable[c] says
 * whether chunk c may go to the helper, which takes share percent of
 * them (the calling thread also appends the helper's bytes: the even
 * split is less than half).  mine and helper are the contexts emit runs
 * with on each thread.  threads is 1 to emit everything on the calling
 * thread (as a check), 0 for as many as the process may use (at most 2). */
PbSplit *pb_split_new(uint32_t lo, uint32_t hi, uint32_t chunk,
    const bool *helpable, unsigned share, PbEmitRange emit, void *mine,
    void *helper, int threads);
/* Emit every item into w, in order (the sizing run before the writing
 * run, as for w itself). */
void pb_split_run(PbSplit *s, Pb *w);
void pb_split_free(PbSplit *s);
/* Streaming (pb.h's pb_open_later): the sizing run adds nothing to its
 * Pb and only estimates the split's bytes, from a sample of chunks; the
 * writing run sizes each chunk just before writing it, on each thread,
 * so that the first bytes go out at once. */
void pb_split_stream(PbSplit *s, bool on);
uint64_t pb_split_estimate(const PbSplit *s);

#endif
