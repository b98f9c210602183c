/* pb.h - a streaming protobuf writer.
 *
 * A message is emitted by running the same code twice: first in sizing
 * mode, which writes nothing and records the length of every submessage
 * in the order they are opened, then in writing mode, which puts each
 * length before its submessage and encodes the bytes straight into the
 * BeOut's buffer (or through a buffer of its own into memory).  No message
 * tree is built and no length is computed twice, so writing is one pass
 * over the IR per mode.  Fields go out in the order they are emitted:
 * callers emit them in field-number order, as protobuf-c and the C++
 * runtime do, so the bytes are the canonical ones.  A part that is made
 * in memory and copied on whole can skip the sizing run (pb_write_grow:
 * each length is put in when its submessage closes, the bytes moved
 * where it takes another width than was left for it).
 */
#ifndef ONNXC_PB_H
#define ONNXC_PB_H

#include <string.h>

#include "../ir/ir.h"
#include "out.h"

typedef struct PbOpen PbOpen;

typedef struct Pb {
	bool writing;
	uint64_t pos;        /* bytes emitted so far */
	/* submessage lengths in the order opened (sizing fills them; a
	 * length over 4 GB is only ever measured: such a model is refused
	 * before it is written) */
	uint32_t *lens;
	uint32_t nlens, clens;
	uint32_t next;       /* writing: the next entry of lens */
	PbOpen *open;        /* sizing: the submessages open now */
	uint32_t depth, copen;
	/* writing: the destination, and where bytes go first: room at the
	 * end of the output's own buffer (be_out_room), or own */
	BeOut *out;
	uint8_t *mem;        /* instead of out: memory for the bytes from
	                      * position membase on */
	uint64_t membase;
	uint8_t *buf;
	size_t nbuf, cap;    /* cap 0: no room taken yet */
	uint8_t *own;        /* for memory, and where the output's buffer
	                      * has too little room left for a field */
	int err;             /* errno value of the first failed write */
	/* pb_write_grow: the bytes go to *grow (growing it), lengths are
	 * put in as submessages close */
	uint8_t **grow;
	size_t *growcap;
} Pb;

/* Start a run: sizing, or writing into out (or mem when out is NULL).
 * A writing run needs the sizing run of the same emission before it. */
void pb_size(Pb *w);
void pb_write(Pb *w, BeOut *out, uint8_t *mem);
/* A writing run with no sizing run: into *mem (of *cap bytes, NULL/0 to
 * start; realloc'ed as it fills), each submessage's length put before it
 * once it is closed (pb_open leaves room for a usual length and pb_close
 * moves the submessage where its length needs more or less).  The bytes
 * are those of a sizing and a writing run; w->pos says how many.  For
 * parts that are copied on whole (pbsplit's chunks); not for pb_weights
 * meant for kernel copies. */
void pb_write_grow(Pb *w, uint8_t **mem, size_t *cap);
/* End a writing run: flush; returns 0 or the errno value of a failure. */
int pb_flush(Pb *w);
/* Writing: the bytes from the current position on go to mem (flushed
 * first: what was emitted so far goes where it was headed). */
void pb_to_mem(Pb *w, uint8_t *mem);
/* n bytes of fields another Pb emitted, as they are: counted when
 * sizing, copied when writing. */
void pb_raw(Pb *w, const void *p, uint64_t n);
void pb_free(Pb *w);

/* Fields: field is the field number. */
void pb_varint(Pb *w, uint32_t field, uint64_t v);  /* int32/64, enum */
void pb_fixed32(Pb *w, uint32_t field, uint32_t v); /* float bits */
void pb_bytes_any(Pb *w, uint32_t field, const void *p, size_t n);
static inline void pb_bytes(Pb *w, uint32_t field, const void *p, size_t n);
/* Bytes that may lie in a source (copy.h): handed to be_out_write as they
 * are, when they are written, so that a big tensor becomes a kernel copy
 * and a small one is read from its mapping only then. */
void pb_weights(Pb *w, uint32_t field, const void *p, size_t n);
static inline void pb_str(Pb *w, uint32_t field, const char *s);
                                                    /* NULL: absent */
/* A submessage field: its fields go between pb_open and pb_close. */
void pb_open(Pb *w, uint32_t field);
void pb_close(Pb *w);
/* A submessage of two bytes fields, numbers 1 and 2 (a map entry, ONNX's
 * StringStringEntryProto): sized and written at once. */
void pb_entry(Pb *w, uint32_t field, const void *k, size_t kn,
    const void *v, size_t vn);
/* A submessage whose length the caller knows (no pb_close, and no entry
 * in lens): cheaper for small fixed-shape messages. */
void pb_open_sized(Pb *w, uint32_t field, uint64_t len);
/* Streaming (a file that can be patched): a submessage whose length is
 * known only once it is written, because parts inside it are sized as
 * they are written (pb_part_*), not in the sizing run.  The sizing run
 * opens and closes it as any other; the writing run puts its tag and
 * width bytes for the length, and returns the position of those bytes,
 * for the caller to patch (pb_varint_in) once it is closed. */
uint64_t pb_open_later(Pb *w, uint32_t field, unsigned width);
/* v as a varint of exactly width bytes at p; false if its canonical
 * encoding has another length. */
bool pb_varint_in(uint8_t *p, uint64_t v, unsigned width);
/* Writing: emit a part with the lengths of its own sizing run (part,
 * sized just before) instead of w's, between begin and end. */
void pb_part_begin(Pb *w, Pb *part);
void pb_part_end(Pb *w, Pb *part);
unsigned pb_varint_len(uint64_t v);
/* The bytes a bytes field of n bytes takes, tag and length included. */
uint64_t pb_bytes_size(uint32_t field, uint64_t n);
/* The bytes a varint field of value v takes, tag included. */
uint64_t pb_varint_size(uint32_t field, uint64_t v);

enum { PB_BUFSZ = 64 * 1024 };  /* own's size */

/* Inline, the common case of a short string (names, op types, metadata):
 * its tag and length are one byte each.  Anything else: pb_bytes_any. */
static inline void
pb_bytes(Pb *w, uint32_t field, const void *p, size_t n)
{
	uint64_t t = (uint64_t)field << 3 | 2;
	if (t < 0x80 && n < 0x80) {
		if (!w->writing) {
			w->pos += 2 + n;
			return;
		}
		if (w->nbuf + 2 + n <= w->cap) {
			uint8_t *b = w->buf + w->nbuf;
			b[0] = (uint8_t)t;
			b[1] = (uint8_t)n;
			if (n)
				memcpy(b + 2, p, n);
			w->nbuf += 2 + n;
			w->pos += 2 + n;
			return;
		}
	}
	pb_bytes_any(w, field, p, n);
}

static inline void
pb_str(Pb *w, uint32_t field, const char *s)
{
	if (s)
		pb_bytes(w, field, s, strlen(s));
}

#endif
