/* fbs.c - a small FlatBuffer builder, back to front (see fbs.h).
 *
 * Memory holds every byte except referenced blobs.  It grows towards the
 * front: the used part is mem[cap - len, cap).  A blob records how many
 * memory bytes lay behind it when it was added, which is all fbs_emit
 * needs to interleave the two.  Offsets (FbsRef) count the blobs too.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "fbs.h"

typedef struct Blob {
	const void *p;
	uint64_t n;
	uint64_t behind;    /* memory bytes after it in the buffer */
} Blob;

typedef struct Field {
	uint16_t slot;
	uint32_t off;       /* FbsRef of the field */
} Field;

typedef struct Vtab {
	uint32_t moff;      /* distance of the vtable from memory's end */
	uint32_t off;       /* its FbsRef */
	uint32_t hash;
} Vtab;

struct Fbs {
	uint8_t *mem;
	uint64_t cap, len;  /* bytes allocated, bytes used (at the end) */
	uint64_t blobbytes;
	Blob *blobs;
	uint32_t nblobs, cblobs;
	Field *fields;      /* of the table being built */
	uint32_t nfields, cfields;
	bool intable;
	uint64_t tstart;    /* size where the table's last byte ends */
	Vtab *vtabs;
	uint32_t nvtabs, cvtabs;
	uint32_t *vhash;    /* open addressing: index + 1 into vtabs */
	uint32_t vhcap;
	unsigned minalign;  /* largest alignment used */
	uint32_t ntables;
	bool overflow;
	bool finished;
};

Fbs *
fbs_new(void)
{
	Fbs *b = xrealloc(NULL, sizeof *b);
	memset(b, 0, sizeof *b);
	b->minalign = 1;
	return b;
}

void
fbs_free(Fbs *b)
{
	if (!b)
		return;
	free(b->mem);
	free(b->blobs);
	free(b->fields);
	free(b->vtabs);
	free(b->vhash);
	free(b);
}

static uint64_t
size(const Fbs *b)
{
	return b->len + b->blobbytes;
}

/* Room for n more bytes at the front; false (and overflow) past the
 * limit. */
static bool
room(Fbs *b, uint64_t n)
{
	if (b->overflow)
		return false;
	if (size(b) + n > FBS_MAX_SIZE) {
		b->overflow = true;
		return false;
	}
	if (b->len + n <= b->cap)
		return true;
	uint64_t cap = b->cap ? b->cap : 1024;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *mem = xrealloc(NULL, (size_t)cap);
	if (b->len)
		memcpy(mem + cap - b->len, b->mem + b->cap - b->len,
		    (size_t)b->len);
	free(b->mem);
	b->mem = mem;
	b->cap = cap;
	return true;
}

/* the front of memory, after room() */
static uint8_t *
front(Fbs *b)
{
	return b->mem + b->cap - b->len;
}

static void
put_zeros(Fbs *b, uint64_t n)
{
	if (!room(b, n))
		return;
	b->len += n;
	memset(front(b), 0, (size_t)n);
}

static void
put_le(Fbs *b, uint64_t v, unsigned n)
{
	if (!room(b, n))
		return;
	b->len += n;
	uint8_t *p = front(b);
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Pad so that after n more bytes the size is a multiple of align. */
static void
pad(Fbs *b, uint64_t n, unsigned align)
{
	if (align > b->minalign)
		b->minalign = align;
	uint64_t r = (size(b) + n) % align;
	if (r)
		put_zeros(b, align - r);
}

static void
not_in_table(Fbs *b, const char *what)
{
	if (b->intable)
		BUG("fbs: %s written inside a table", what);
	if (b->finished)
		BUG("fbs: %s written after fbs_finish", what);
}

/* ----------------------------------------------------------- objects */

FbsRef
fbs_stringn(Fbs *b, const char *s, size_t n)
{
	not_in_table(b, "string");
	pad(b, (uint64_t)n + 1, 4);
	if (!room(b, (uint64_t)n + 1))
		return 0;
	b->len += n + 1;
	uint8_t *p = front(b);
	if (n)
		memcpy(p, s, n);
	p[n] = 0;
	put_le(b, n, 4);
	return b->overflow ? 0 : (FbsRef)size(b);
}

FbsRef
fbs_string(Fbs *b, const char *s)
{
	return fbs_stringn(b, s, strlen(s));
}

FbsRef
fbs_vec_refs(Fbs *b, const FbsRef *refs, uint32_t n)
{
	not_in_table(b, "vector");
	pad(b, (uint64_t)n * 4, 4);
	for (uint32_t i = n; i-- > 0;) {
		if (!refs[i])
			BUG("fbs: vector element %u is empty", i);
		/* relative to the element's own slot, which is at size+4 */
		put_le(b, size(b) + 4 - refs[i], 4);
	}
	put_le(b, n, 4);
	return b->overflow ? 0 : (FbsRef)size(b);
}

FbsRef
fbs_vec_scalars(Fbs *b, const void *p, uint32_t n, unsigned sz)
{
	not_in_table(b, "vector");
	if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
		BUG("fbs: scalar of %u bytes", sz);
	pad(b, (uint64_t)n * sz, sz > 4 ? sz : 4);
	const uint8_t *q = p;
	for (uint32_t i = n; i-- > 0;) {
		uint64_t v = 0;
		switch (sz) {
		case 1: v = q[i]; break;
		case 2: { uint16_t x; memcpy(&x, q + 2 * i, 2); v = x; break; }
		case 4: { uint32_t x; memcpy(&x, q + 4 * (size_t)i, 4); v = x;
			break; }
		default: memcpy(&v, q + 8 * (size_t)i, 8); break;
		}
		put_le(b, v, sz);
	}
	put_le(b, n, 4);
	return b->overflow ? 0 : (FbsRef)size(b);
}

FbsRef
fbs_vec_structs(Fbs *b, const void *p, uint32_t n, unsigned sz,
    unsigned align)
{
	not_in_table(b, "vector");
	uint64_t total = (uint64_t)n * sz;
	pad(b, total, align > 4 ? align : 4);
	if (!room(b, total))
		return 0;
	b->len += total;
	if (total)
		memcpy(front(b), p, (size_t)total);
	put_le(b, n, 4);
	return b->overflow ? 0 : (FbsRef)size(b);
}

FbsRef
fbs_vec_blob(Fbs *b, const void *p, uint64_t n, unsigned align)
{
	not_in_table(b, "vector");
	if (align < 4)
		align = 4;
	pad(b, n, align);
	if (b->overflow || size(b) + n > FBS_MAX_SIZE) {
		b->overflow = true;
		return 0;
	}
	if (n) {
		vgrow((void **)&b->blobs, &b->cblobs, b->nblobs + 1,
		    sizeof *b->blobs);
		b->blobs[b->nblobs++] = (Blob){p, n, b->len};
		b->blobbytes += n;
	}
	put_le(b, n, 4);
	return b->overflow ? 0 : (FbsRef)size(b);
}

/* ------------------------------------------------------------- tables */

void
fbs_table(Fbs *b)
{
	not_in_table(b, "table");
	b->intable = true;
	b->nfields = 0;
	b->tstart = size(b);
}

static void
field(Fbs *b, unsigned slot, uint64_t v, unsigned n)
{
	if (!b->intable)
		BUG("fbs: field outside a table");
	if (slot > 0x7ff0)
		BUG("fbs: slot %u", slot);
	pad(b, n, n);
	if (b->nfields == 0)
		b->tstart = size(b);    /* padding behind it is no part */
	put_le(b, v, n);
	vgrow((void **)&b->fields, &b->cfields, b->nfields + 1,
	    sizeof *b->fields);
	b->fields[b->nfields++] = (Field){(uint16_t)slot, (uint32_t)size(b)};
}

void
fbs_u8(Fbs *b, unsigned slot, uint8_t v, uint8_t dflt)
{
	if (v != dflt)
		field(b, slot, v, 1);
}

void
fbs_i32(Fbs *b, unsigned slot, int32_t v, int32_t dflt)
{
	if (v != dflt)
		field(b, slot, (uint32_t)v, 4);
}

void
fbs_u32(Fbs *b, unsigned slot, uint32_t v, uint32_t dflt)
{
	if (v != dflt)
		field(b, slot, v, 4);
}

void
fbs_i64(Fbs *b, unsigned slot, int64_t v, int64_t dflt)
{
	if (v != dflt)
		field(b, slot, (uint64_t)v, 8);
}

void
fbs_f32(Fbs *b, unsigned slot, float v, float dflt)
{
	uint32_t x, d;
	memcpy(&x, &v, 4);
	memcpy(&d, &dflt, 4);
	if (x != d)     /* bitwise: -0.0 and NaN payloads are kept */
		field(b, slot, x, 4);
}

void
fbs_ref(Fbs *b, unsigned slot, FbsRef r)
{
	if (!r)
		return;
	if (!b->intable)
		BUG("fbs: field outside a table");
	pad(b, 4, 4);
	if (b->nfields == 0)
		b->tstart = size(b);
	put_le(b, size(b) + 4 - r, 4);
	vgrow((void **)&b->fields, &b->cfields, b->nfields + 1,
	    sizeof *b->fields);
	b->fields[b->nfields++] = (Field){(uint16_t)slot, (uint32_t)size(b)};
}

static void
rehash(Fbs *b)
{
	uint32_t cap = b->vhcap ? 2 * b->vhcap : 64;
	free(b->vhash);
	b->vhash = xrealloc(NULL, cap * sizeof *b->vhash);
	memset(b->vhash, 0, cap * sizeof *b->vhash);
	b->vhcap = cap;
	for (uint32_t i = 0; i < b->nvtabs; i++) {
		uint32_t s = b->vtabs[i].hash & (cap - 1);
		while (b->vhash[s])
			s = (s + 1) & (cap - 1);
		b->vhash[s] = i + 1;
	}
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

FbsRef
fbs_end(Fbs *b)
{
	if (!b->intable)
		BUG("fbs: fbs_end without fbs_table");
	b->intable = false;
	pad(b, 4, 4);
	if (b->nfields == 0)
		b->tstart = size(b);
	put_le(b, 0, 4);    /* soffset, set below */
	if (b->overflow)
		return 0;
	uint32_t table = (uint32_t)size(b);
	unsigned nslots = 0;
	for (uint32_t i = 0; i < b->nfields; i++)
		if (b->fields[i].slot + 1u > nslots)
			nslots = b->fields[i].slot + 1u;
	uint8_t vt[4 + 2 * 64];
	uint8_t *v = vt;
	unsigned vlen = 4 + 2 * nslots;
	if (nslots > 64)
		v = xrealloc(NULL, vlen);
	memset(v, 0, vlen);
	uint64_t inl = table - b->tstart;
	if (inl > 0xffff)
		BUG("fbs: table of %llu bytes", (unsigned long long)inl);
	v[0] = (uint8_t)vlen;
	v[1] = (uint8_t)(vlen >> 8);
	v[2] = (uint8_t)inl;
	v[3] = (uint8_t)(inl >> 8);
	for (uint32_t i = 0; i < b->nfields; i++) {
		uint32_t at = table - b->fields[i].off;
		v[4 + 2 * b->fields[i].slot] = (uint8_t)at;
		v[5 + 2 * b->fields[i].slot] = (uint8_t)(at >> 8);
	}
	/* a vtable written before with the same bytes serves this table */
	uint32_t h = 2166136261u;
	for (unsigned i = 0; i < vlen; i++)
		h = (h ^ v[i]) * 16777619u;
	if (2 * (b->nvtabs + 1) > b->vhcap)
		rehash(b);
	uint32_t slot = h & (b->vhcap - 1), voff = 0;
	for (; b->vhash[slot]; slot = (slot + 1) & (b->vhcap - 1)) {
		const Vtab *o = &b->vtabs[b->vhash[slot] - 1];
		const uint8_t *q = b->mem + b->cap - o->moff;
		if (o->hash == h && rd16(q) == vlen &&
		    memcmp(q, v, vlen) == 0) {
			voff = o->off;
			break;
		}
	}
	if (!voff && room(b, vlen)) {
		b->len += vlen;
		memcpy(front(b), v, vlen);
		voff = (uint32_t)size(b);
		vgrow((void **)&b->vtabs, &b->cvtabs, b->nvtabs + 1,
		    sizeof *b->vtabs);
		b->vtabs[b->nvtabs++] = (Vtab){(uint32_t)b->len, voff, h};
		b->vhash[slot] = b->nvtabs;
	}
	if (v != vt)
		free(v);
	if (b->overflow)
		return 0;
	/* vtable address = table address - soffset; addresses run the
	 * other way from offsets */
	int32_t so = (int32_t)((int64_t)voff - (int64_t)table);
	uint8_t *t = b->mem + b->cap - (table - b->blobbytes);
	for (unsigned i = 0; i < 4; i++)
		t[i] = (uint8_t)((uint32_t)so >> (8 * i));
	b->ntables++;
	return table;
}

/* ------------------------------------------------------------ finish */

void
fbs_finish(Fbs *b, FbsRef root, const char *ident)
{
	not_in_table(b, "root");
	unsigned hdr = ident ? 8 : 4;
	if (b->minalign < 4)
		b->minalign = 4;
	pad(b, hdr, b->minalign);
	if (ident) {
		if (room(b, 4)) {
			b->len += 4;
			memcpy(front(b), ident, 4);
		}
	}
	put_le(b, size(b) + 4 - root, 4);
	b->finished = true;
}

bool
fbs_overflow(const Fbs *b)
{
	return b->overflow;
}

uint64_t
fbs_size(const Fbs *b)
{
	return size(b);
}

uint32_t
fbs_ntables(const Fbs *b)
{
	return b->ntables;
}

int
fbs_emit(const Fbs *b, int (*put)(void *ctx, const void *p, size_t n),
    void *ctx)
{
	if (!b->finished || b->overflow)
		BUG("fbs: emitting an unfinished buffer");
	const uint8_t *mem = b->mem + b->cap - b->len;
	uint64_t at = 0;    /* memory bytes emitted */
	int rc;
	for (uint32_t i = b->nblobs; i-- > 0;) {
		const Blob *bl = &b->blobs[i];
		uint64_t upto = b->len - bl->behind;
		if (upto > at && (rc = put(ctx, mem + at, (size_t)(upto - at))))
			return rc;
		at = upto;
		/* in pieces, so a size_t of 32 bits is no limit */
		const uint8_t *p = bl->p;
		for (uint64_t k = 0; k < bl->n;) {
			uint64_t piece = bl->n - k;
			if (piece > (UINT64_C(1) << 30))
				piece = UINT64_C(1) << 30;
			if ((rc = put(ctx, p + k, (size_t)piece)))
				return rc;
			k += piece;
		}
	}
	if (b->len > at && (rc = put(ctx, mem + at, (size_t)(b->len - at))))
		return rc;
	return 0;
}

static int
put_mem(void *ctx, const void *p, size_t n)
{
	uint8_t **out = ctx;
	memcpy(*out, p, n);
	*out += n;
	return 0;
}

void
fbs_copy(const Fbs *b, uint8_t *out)
{
	fbs_emit(b, put_mem, &out);
}
