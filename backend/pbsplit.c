/* pbsplit.c - a run of protobuf fields emitted by two threads (pbsplit.h).
 *
 * The helper's chunks travel through NSLOT buffers: the helper fills one
 * while the caller appends the other, and each is reused, so memory stays
 * at NSLOT chunks whatever the graph's size. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "pbsplit.h"

enum { NSLOT = 3 };

typedef struct Slot {
	uint8_t *buf;
	size_t cap;
	bool full;       /* holds its chunk, not yet appended */
} Slot;

struct PbSplit {
	uint32_t lo, hi, chunk, nchunks;
	bool *helped;    /* per chunk: the helper emits it */
	bool *plain;     /* per chunk: helpable (only read to be written) */
	uint64_t *size;  /* per chunk the helper emits: its bytes */
	PbEmitRange emit;
	void *mine, *helper;
	bool threaded;   /* a second CPU may run the helper */
	bool stream;     /* no sizing run: chunks made as they are written */
	uint64_t estimate; /* streaming: the bytes the sizing run expects */
	Pb hw;           /* the helper's writer, its lengths kept from the
	                  * sizing run to the writing run */
	Pb ms;           /* streaming: the calling thread's chunk sizes, or
	                  * its items one at a time (mbuf) */
	uint8_t *mbuf;
	size_t mcap;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	Slot slot[NSLOT];
};

static int
cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 1;
	return CPU_COUNT(&set);
}

PbSplit *
pb_split_new(uint32_t lo, uint32_t hi, uint32_t chunk, const bool *helpable,
    unsigned share, PbEmitRange emit, void *mine, void *helper, int threads)
{
	PbSplit *s = xrealloc(NULL, sizeof *s);
	*s = (PbSplit){.lo = lo, .hi = hi, .chunk = chunk, .emit = emit,
		.mine = mine, .helper = helper};
	s->nchunks = (hi - lo + chunk - 1) / chunk;
	s->helped = xrealloc(NULL, s->nchunks * sizeof *s->helped);
	s->plain = xrealloc(NULL, s->nchunks * sizeof *s->plain);
	memcpy(s->plain, helpable, s->nchunks * sizeof *s->plain);
	s->size = xrealloc(NULL, s->nchunks * sizeof *s->size);
	/* share percent of the chunks, spread evenly */
	for (uint64_t c = 0; c < s->nchunks; c++)
		s->helped[c] = helpable[c] &&
		    (c + 1) * share / 100 > c * share / 100;
	s->threaded = threads != 1 && cpus() > 1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	return s;
}

void
pb_split_free(PbSplit *s)
{
	if (!s)
		return;
	for (int i = 0; i < NSLOT; i++)
		free(s->slot[i].buf);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	pb_free(&s->hw);
	pb_free(&s->ms);
	free(s->mbuf);
	free(s->helped);
	free(s->plain);
	free(s->size);
	free(s);
}

static void
range(const PbSplit *s, uint32_t c, uint32_t *lo, uint32_t *hi)
{
	*lo = s->lo + c * s->chunk;
	*hi = s->hi - *lo > s->chunk ? *lo + s->chunk : s->hi;
}

static void
emit_chunk(PbSplit *s, void *ctx, Pb *w, uint32_t c)
{
	uint32_t lo, hi;
	range(s, c, &lo, &hi);
	s->emit(ctx, w, lo, hi);
}

/* Sizing: the helper's chunks, each one's bytes noted. */
static void *
size_helped(void *arg)
{
	PbSplit *s = arg;
	pb_size(&s->hw);
	for (uint32_t c = 0; c < s->nchunks; c++) {
		if (!s->helped[c])
			continue;
		uint64_t start = s->hw.pos;
		emit_chunk(s, s->helper, &s->hw, c);
		s->size[c] = s->hw.pos - start;
	}
	return NULL;
}

/* Writing: helped chunk c into slot, which is free; streaming, in one
 * run that grows the slot. */
static void
fill(PbSplit *s, uint32_t c, Slot *slot)
{
	if (s->stream) {
		/* one run, the lengths put in as the slot fills */
		pb_write_grow(&s->hw, &slot->buf, &slot->cap);
		emit_chunk(s, s->helper, &s->hw, c);
		s->size[c] = s->hw.pos;
		return;
	}
	if (slot->cap < s->size[c]) {
		free(slot->buf);
		slot->cap = (size_t)s->size[c];
		slot->buf = xrealloc(NULL, slot->cap);
	}
	uint64_t start = s->hw.pos;
	pb_to_mem(&s->hw, slot->buf);
	emit_chunk(s, s->helper, &s->hw, c);
	pb_flush(&s->hw);
	if (s->hw.pos - start != s->size[c])
		BUG("split writer: chunk %u wrote %llu bytes, sized %llu", c,
		    (unsigned long long)(s->hw.pos - start),
		    (unsigned long long)s->size[c]);
}

/* The helper's writing run: its chunks in order, each into the next
 * slot once the caller has appended what that slot held. */
static void *
write_helped(void *arg)
{
	PbSplit *s = arg;
	uint32_t k = 0;
	for (uint32_t c = 0; c < s->nchunks; c++) {
		if (!s->helped[c])
			continue;
		Slot *slot = &s->slot[k++ % NSLOT];
		pthread_mutex_lock(&s->mu);
		while (slot->full)
			pthread_cond_wait(&s->cv, &s->mu);
		pthread_mutex_unlock(&s->mu);
		fill(s, c, slot);
		pthread_mutex_lock(&s->mu);
		slot->full = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

/* Streaming's sizing run: what the split will take, from runs of items
 * spread over it (the writing run sizes every chunk). */
static void
estimate(PbSplit *s)
{
	enum { SAMPLES = 16, RUN = 64 };
	uint64_t n = s->hi - s->lo, bytes = 0, items = 0;
	for (uint64_t i = 0; i < SAMPLES && items < n; i++) {
		uint64_t lo = s->lo + i * n / SAMPLES;
		uint64_t hi = lo + RUN < s->hi ? lo + RUN : s->hi;
		pb_size(&s->ms);
		s->emit(s->mine, &s->ms, (uint32_t)lo, (uint32_t)hi);
		bytes += s->ms.pos;
		items += hi - lo;
	}
	s->estimate = items ? bytes * n / items : 0;
}

/* A chunk of the calling thread's.  Streaming, a plain one goes an item
 * at a time through a buffer that stays in the cache (pb_write_grow: one
 * run), and one that holds bytes for kernel copies is sized, then
 * written with those lengths. */
static void
emit_mine(PbSplit *s, Pb *w, uint32_t c)
{
	if (!s->stream) {
		emit_chunk(s, s->mine, w, c);
		return;
	}
	if (s->plain[c]) {
		uint32_t lo, hi;
		range(s, c, &lo, &hi);
		for (uint32_t i = lo; i < hi; i++) {
			pb_write_grow(&s->ms, &s->mbuf, &s->mcap);
			s->emit(s->mine, &s->ms, i, i + 1);
			pb_raw(w, s->mbuf, s->ms.pos);
		}
		return;
	}
	pb_size(&s->ms);
	emit_chunk(s, s->mine, &s->ms, c);
	pb_part_begin(w, &s->ms);
	emit_chunk(s, s->mine, w, c);
	pb_part_end(w, &s->ms);
}

static void
run_sizing(PbSplit *s, Pb *w)
{
	if (s->stream) {
		estimate(s);
		return;
	}
	pthread_t t;
	bool async = s->threaded && pthread_create(&t, NULL, size_helped,
	    s) == 0;
	for (uint32_t c = 0; c < s->nchunks; c++)
		if (!s->helped[c])
			emit_chunk(s, s->mine, w, c);
	if (async)
		pthread_join(t, NULL);
	else
		size_helped(s);
	pb_raw(w, NULL, s->hw.pos);
}

static void
run_writing(PbSplit *s, Pb *w)
{
	if (!s->stream)
		pb_write(&s->hw, NULL, NULL);
	for (int i = 0; i < NSLOT; i++)
		s->slot[i].full = false;
	pthread_t t;
	bool async = s->threaded && pthread_create(&t, NULL, write_helped,
	    s) == 0;
	uint32_t k = 0;
	for (uint32_t c = 0; c < s->nchunks; c++) {
		if (!s->helped[c]) {
			emit_mine(s, w, c);
			continue;
		}
		Slot *slot = &s->slot[k++ % NSLOT];
		if (async) {
			pthread_mutex_lock(&s->mu);
			while (!slot->full)
				pthread_cond_wait(&s->cv, &s->mu);
			pthread_mutex_unlock(&s->mu);
		} else {
			fill(s, c, slot);
		}
		pb_raw(w, slot->buf, s->size[c]);
		pthread_mutex_lock(&s->mu);
		slot->full = false;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	if (async)
		pthread_join(t, NULL);
	if (!s->stream && s->hw.next != s->hw.nlens)
		BUG("split writer: %u submessages written, %u sized",
		    s->hw.next, s->hw.nlens);
}

void
pb_split_stream(PbSplit *s, bool on)
{
	s->stream = on;
	s->estimate = 0;
}

uint64_t
pb_split_estimate(const PbSplit *s)
{
	return s->estimate;
}

void
pb_split_run(PbSplit *s, Pb *w)
{
	if (w->writing)
		run_writing(s, w);
	else
		run_sizing(s, w);
}
