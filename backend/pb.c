/* pb.c - the streaming protobuf writer (pb.h). */
#include <stdlib.h>
#include <string.h>

#include "pb.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };
enum { BUFSZ = PB_BUFSZ };

struct PbOpen {
	uint32_t slot;   /* its entry of lens; growing: the bytes left for
	                  * its length */
	uint64_t start;  /* pos after its tag and before its length */
};

static unsigned
varint_size(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* v as a varint at p; returns the end */
static uint8_t *
varint_at(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

void
pb_size(Pb *w)
{
	w->grow = NULL;
	w->writing = false;
	w->pos = 0;
	w->nlens = 0;
	w->depth = 0;
}

void
pb_write(Pb *w, BeOut *out, uint8_t *mem)
{
	w->grow = NULL;
	w->writing = true;
	w->pos = 0;
	w->next = 0;
	w->out = out;
	w->mem = mem;
	w->membase = 0;
	w->nbuf = 0;
	w->cap = 0;
	w->err = 0;
}

void
pb_write_grow(Pb *w, uint8_t **mem, size_t *cap)
{
	pb_write(w, NULL, NULL);
	w->grow = mem;
	w->growcap = cap;
	w->buf = *mem;
	w->cap = *cap;
	w->depth = 0;
}

/* What is in the buffer to its destination; the room ends with it (any
 * other write to the output moves the output's buffer on). */
static void
drain(Pb *w)
{
	if (w->grow)
		return;   /* the buffer is the destination */
	if (w->nbuf) {
		if (w->mem)
			memcpy(w->mem + (w->pos - w->membase) - w->nbuf,
			    w->buf, w->nbuf);
		else if (w->buf != w->own)
			be_out_put(w->out, w->nbuf);
		else if (!w->err)
			w->err = be_out_write(w->out, w->own, w->nbuf);
	}
	w->nbuf = 0;
	w->cap = 0;
}

/* Room for n more bytes (n <= PB_BUFSZ): in the output's buffer where it
 * has that much left, else in own. */
static void
ensure(Pb *w, size_t n)
{
	if (w->nbuf + n <= w->cap)
		return;
	if (w->grow) {
		size_t c = w->cap ? w->cap : BUFSZ;
		while (c < w->nbuf + n)
			c *= 2;
		w->buf = *w->grow = xrealloc(w->buf, c);
		w->cap = *w->growcap = c;
		return;
	}
	drain(w);
	size_t k = 0;
	uint8_t *p = w->mem || !w->out ? NULL : be_out_room(w->out, &k);
	if (p && k >= n) {
		w->buf = p;
		w->cap = k;
		return;
	}
	if (!w->own)
		w->own = xrealloc(NULL, BUFSZ);
	w->buf = w->own;
	w->cap = BUFSZ;
}

int
pb_flush(Pb *w)
{
	if (w->grow)
		return 0;
	drain(w);
	/* bytes put in the output's room report nothing: its own failure */
	if (!w->err && !w->mem && w->out)
		w->err = be_out_write(w->out, NULL, 0);
	return w->err;
}

/* Writing: n bytes to the destination themselves, after the buffer. */
static void
put_direct(Pb *w, const void *p, size_t n)
{
	if (w->grow) {
		ensure(w, n);
		memcpy(w->buf + w->nbuf, p, n);
		w->nbuf += n;
		w->pos += n;
		return;
	}
	drain(w);
	w->pos += n;
	if (w->mem)
		memcpy(w->mem + (w->pos - w->membase) - n, p, n);
	else if (!w->err)
		w->err = be_out_write(w->out, p, n);
}

void
pb_to_mem(Pb *w, uint8_t *mem)
{
	if (w->grow)
		BUG("protobuf writer: pb_to_mem while growing");
	drain(w);
	w->mem = mem;
	w->membase = w->pos;
}

void
pb_raw(Pb *w, const void *p, uint64_t n)
{
	if (!w->writing || n == 0) {
		w->pos += n;
		return;
	}
	if (n <= BUFSZ / 4) {
		ensure(w, (size_t)n);
		memcpy(w->buf + w->nbuf, p, (size_t)n);
		w->nbuf += (size_t)n;
		w->pos += n;
		return;
	}
	put_direct(w, p, (size_t)n);
}

void
pb_free(Pb *w)
{
	free(w->lens);
	free(w->open);
	free(w->own);
	*w = (Pb){0};
}

/* Writing: n small bytes (at most 20) into the buffer. */
static uint8_t *
room(Pb *w, size_t n)
{
	ensure(w, n);
	return w->buf + w->nbuf;
}

/* inline: most varints are tags and lengths under 128, one byte */
static inline void
put_varint(Pb *w, uint64_t v)
{
	if (!w->writing) {
		w->pos += v < 0x80 ? 1 : varint_size(v);
		return;
	}
	ensure(w, 10);
	uint8_t *p = w->buf + w->nbuf, *s = p;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	w->nbuf += (size_t)(p - s);
	w->pos += (uint64_t)(p - s);
}

static inline void
tag(Pb *w, uint32_t field, unsigned wt)
{
	put_varint(w, (uint64_t)field << 3 | wt);
}

void
pb_varint(Pb *w, uint32_t field, uint64_t v)
{
	tag(w, field, WT_VARINT);
	put_varint(w, v);
}

void
pb_fixed32(Pb *w, uint32_t field, uint32_t v)
{
	tag(w, field, WT_I32);
	if (w->writing) {
		uint8_t *p = room(w, 4);
		for (int i = 0; i < 4; i++)
			p[i] = (uint8_t)(v >> 8 * i);
		w->nbuf += 4;
	}
	w->pos += 4;
}

/* A bytes field; direct: its bytes go to the destination themselves, not
 * through the buffer */
static void
bytes(Pb *w, uint32_t field, const void *p, size_t n, bool direct)
{
	uint64_t t = (uint64_t)field << 3 | WT_LEN;
	if (!w->writing) {
		w->pos += (t < 0x80 && n < 0x80 ? 2 : varint_size(t) +
		    varint_size(n)) + n;
		return;
	}
	if (!direct && n <= BUFSZ / 4) {
		/* tag, length and bytes with one check for room */
		ensure(w, 20 + n);
		put_varint(w, t);
		put_varint(w, n);
		if (n)
			memcpy(w->buf + w->nbuf, p, n);
		w->nbuf += n;
		w->pos += n;
		return;
	}
	put_varint(w, t);
	put_varint(w, n);
	if (n == 0)
		return;
	put_direct(w, p, n);
}

void
pb_bytes_any(Pb *w, uint32_t field, const void *p, size_t n)
{
	bytes(w, field, p, n, false);
}

void
pb_weights(Pb *w, uint32_t field, const void *p, size_t n)
{
	bytes(w, field, p, n, true);
}

/* Growing: room for the length (two bytes where a node's usually fits,
 * one inside it), the body's start noted. */
static void
open_grow(Pb *w)
{
	unsigned gap = w->depth ? 1 : 2;
	if (w->depth == w->copen)
		vgrow((void **)&w->open, &w->copen, w->depth + 1,
		    sizeof *w->open);
	ensure(w, gap);
	w->nbuf += gap;
	w->pos += gap;
	w->open[w->depth++] = (PbOpen){gap, w->nbuf};
}

/* Growing: the length before the body, which moves when it takes other
 * than the room left for it. */
static void
close_grow(Pb *w)
{
	if (w->depth == 0)
		BUG("protobuf writer: pb_close without pb_open");
	PbOpen o = w->open[--w->depth];
	size_t len = w->nbuf - (size_t)o.start;
	unsigned k = varint_size(len), gap = o.slot;
	if (k > gap)
		ensure(w, k - gap);
	uint8_t *body = w->buf + o.start;
	if (k != gap)
		memmove(body - gap + k, body, len);
	varint_at(body - gap, len);
	w->nbuf = w->nbuf - gap + k;
	w->pos = w->pos - gap + k;
}

void
pb_open(Pb *w, uint32_t field)
{
	tag(w, field, WT_LEN);
	if (w->grow) {
		open_grow(w);
		return;
	}
	if (w->writing) {
		if (w->next >= w->nlens)
			BUG("protobuf writer: more submessages than sized");
		put_varint(w, w->lens[w->next++]);
		return;
	}
	if (w->nlens == w->clens)
		vgrow((void **)&w->lens, &w->clens, w->nlens + 1,
		    sizeof *w->lens);
	if (w->depth == w->copen)
		vgrow((void **)&w->open, &w->copen, w->depth + 1,
		    sizeof *w->open);
	w->open[w->depth++] = (PbOpen){w->nlens++, w->pos};
}

void
pb_close(Pb *w)
{
	if (w->grow) {
		close_grow(w);
		return;
	}
	if (w->writing)
		return;
	if (w->depth == 0)
		BUG("protobuf writer: pb_close without pb_open");
	PbOpen o = w->open[--w->depth];
	uint64_t len = w->pos - o.start;
	w->lens[o.slot] = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	w->pos += varint_size(len);
}

void
pb_entry(Pb *w, uint32_t field, const void *k, size_t kn, const void *v,
    size_t vn)
{
	/* the tags of fields 1 and 2 are one byte each */
	uint64_t in = 1 + varint_size(kn) + kn + 1 + varint_size(vn) + vn;
	uint64_t t = (uint64_t)field << 3 | WT_LEN;
	uint64_t all = varint_size(t) + varint_size(in) + in;
	if (!w->writing) {
		w->pos += all;
		return;
	}
	if (all > BUFSZ / 4) {
		pb_open_sized(w, field, in);
		bytes(w, 1, k, kn, false);
		bytes(w, 2, v, vn, false);
		return;
	}
	ensure(w, (size_t)all);
	uint8_t *p = varint_at(varint_at(w->buf + w->nbuf, t), in);
	*p++ = 1 << 3 | WT_LEN;
	p = varint_at(p, kn);
	if (kn)
		memcpy(p, k, kn);
	p += kn;
	*p++ = 2 << 3 | WT_LEN;
	p = varint_at(p, vn);
	if (vn)
		memcpy(p, v, vn);
	w->nbuf += (size_t)all;
	w->pos += all;
}

void
pb_open_sized(Pb *w, uint32_t field, uint64_t len)
{
	tag(w, field, WT_LEN);
	put_varint(w, len);
}

uint64_t
pb_open_later(Pb *w, uint32_t field, unsigned width)
{
	if (!w->writing || width == 0 || width > 10)
		BUG("protobuf writer: a length written later, not writing");
	if (w->next >= w->nlens)
		BUG("protobuf writer: more submessages than sized");
	w->next++;        /* the sized length, which lacks the parts */
	tag(w, field, WT_LEN);
	uint8_t *p = room(w, width);
	memset(p, 0, width);
	w->nbuf += width;
	w->pos += width;
	return w->pos - width;
}

bool
pb_varint_in(uint8_t *p, uint64_t v, unsigned width)
{
	if (varint_size(v) != width)
		return false;
	varint_at(p, v);
	return true;
}

unsigned
pb_varint_len(uint64_t v)
{
	return varint_size(v);
}

/* The lengths of two runs trade places (where each is in them too). */
static void
swap_lens(Pb *a, Pb *b)
{
	uint32_t *l = a->lens, n = a->nlens, c = a->clens, k = a->next;
	a->lens = b->lens;
	a->nlens = b->nlens;
	a->clens = b->clens;
	a->next = b->next;
	b->lens = l;
	b->nlens = n;
	b->clens = c;
	b->next = k;
}

void
pb_part_begin(Pb *w, Pb *part)
{
	swap_lens(w, part);
	w->next = 0;
}

void
pb_part_end(Pb *w, Pb *part)
{
	if (w->next != w->nlens)
		BUG("protobuf writer: a part wrote %u submessages, sized %u",
		    w->next, w->nlens);
	swap_lens(w, part);
}

uint64_t
pb_bytes_size(uint32_t field, uint64_t n)
{
	return varint_size((uint64_t)field << 3 | WT_LEN) + varint_size(n) + n;
}

uint64_t
pb_varint_size(uint32_t field, uint64_t v)
{
	return varint_size((uint64_t)field << 3 | WT_VARINT) + varint_size(v);
}
