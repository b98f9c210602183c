/* zip.c - the central directory of a mapped zip, checked before use.
 *
 * The end record (or its zip64 form) gives the directory; every directory
 * entry must fit the file, agree with its local header (name, method), and
 * point at data inside the file before the directory.  Counts that lie,
 * duplicate names, encryption, unknown methods and inflate bombs are
 * errors.  Stored entries are not CRC-checked: that would read every
 * weight byte up front; their bounds are checked instead.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "zip.h"

enum {
	EOCD_SIG = 0x06054b50, EOCD64_SIG = 0x06064b50,
	LOC64_SIG = 0x07064b50, CDH_SIG = 0x02014b50, LFH_SIG = 0x04034b50,
	EOCD_LEN = 22, CDH_LEN = 46, LFH_LEN = 30,
	MAXENTRIES = 1 << 20
};

struct Zip {
	Module *m;
	const unsigned char *buf;
	size_t len;
	ZipEntry *e;
	uint32_t n;
	uint32_t *byname;     /* open addressing over e, size hcap */
	uint32_t hcap;
	void **owned;         /* inflated buffers */
	uint32_t nowned, cowned;
	uint64_t *left;       /* inflate budget, shared; NULL: none */
};

static uint16_t
rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
rd64(const unsigned char *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static int
bad(Zip *z, const char *fmt, const char *name)
{
	ir_error(z->m, (Loc){0, 0}, fmt, name);
	return -1;
}

bool
zip_sniff(const unsigned char *buf, size_t len)
{
	return len >= 4 && buf[0] == 'P' && buf[1] == 'K' &&
	    ((buf[2] == 3 && buf[3] == 4) || (buf[2] == 5 && buf[3] == 6));
}

static uint32_t
hashname(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

ZipEntry *
zip_find(Zip *z, const char *name)
{
	size_t n = strlen(name);
	for (uint32_t i = hashname(name, n) & (z->hcap - 1);;
	    i = (i + 1) & (z->hcap - 1)) {
		uint32_t k = z->byname[i];
		if (!k)
			return NULL;
		ZipEntry *e = &z->e[k - 1];
		if (e->namelen == n && !memcmp(e->name, name, n))
			return e;
	}
}

/* zip64 extended information: the fields that are 0xFFFFFFFF in the
 * directory, in order usize, csize, offset. */
static int
zip64_extra(Zip *z, const unsigned char *x, size_t n, ZipEntry *e,
    uint64_t *off)
{
	while (n >= 4) {
		uint16_t id = rd16(x), sz = rd16(x + 2);
		if ((size_t)sz + 4 > n)
			return bad(z, "entry '%s': extra field overruns the "
			    "central directory", e->name);
		if (id == 1) {
			const unsigned char *p = x + 4, *end = p + sz;
			uint64_t *f[3] = {&e->usize, &e->csize, off};
			for (int i = 0; i < 3; i++) {
				if (*f[i] != 0xffffffffu)
					continue;
				if (end - p < 8)
					return bad(z, "entry '%s': short "
					    "zip64 extra field", e->name);
				*f[i] = rd64(p);
				p += 8;
			}
		}
		x += 4 + sz;
		n -= 4 + (size_t)sz;
	}
	return 0;
}

/* One central directory entry at *p; advances *p. */
static int
direntry(Zip *z, const unsigned char **p, const unsigned char *end,
    uint64_t cdoff, ZipEntry *e)
{
	const unsigned char *h = *p;
	if (end - h < CDH_LEN || rd32(h) != CDH_SIG)
		return bad(z, "%s", "the central directory holds fewer entries "
		    "than its end record says (truncated or corrupt archive)");
	uint16_t flags = rd16(h + 8), nlen = rd16(h + 28), xlen = rd16(h + 30),
	    clen = rd16(h + 32);
	if ((size_t)(end - h - CDH_LEN) < (size_t)nlen + xlen + clen)
		return bad(z, "%s", "a central directory entry overruns the "
		    "directory");
	e->namelen = nlen;
	e->name = arena_strndup(z->m->arena, (const char *)h + CDH_LEN, nlen);
	if (memchr(h + CDH_LEN, 0, nlen))
		return bad(z, "entry '%s': NUL byte in its name", e->name);
	e->method = rd16(h + 10);
	e->crc = rd32(h + 16);
	e->csize = rd32(h + 20);
	e->usize = rd32(h + 24);
	uint64_t off = rd32(h + 42);
	if (zip64_extra(z, h + CDH_LEN + nlen, xlen, e, &off) < 0)
		return -1;
	*p = h + CDH_LEN + nlen + xlen + clen;
	if (flags & 1)
		return bad(z, "entry '%s' is encrypted", e->name);
	if (e->method != 0 && e->method != 8)
		return bad(z, "entry '%s': unknown compression method (only "
		    "stored and deflated entries are read)", e->name);
	if (e->method == 0 && e->csize != e->usize)
		return bad(z, "entry '%s': stored entry whose sizes differ",
		    e->name);
	/* the local header, its name and the data, all before the
	 * directory */
	if (off > cdoff || cdoff - off < LFH_LEN)
		return bad(z, "entry '%s': local header outside the archive",
		    e->name);
	const unsigned char *l = z->buf + off;
	if (rd32(l) != LFH_SIG)
		return bad(z, "entry '%s': no local header where the "
		    "directory says", e->name);
	uint16_t lnlen = rd16(l + 26), lxlen = rd16(l + 28);
	uint64_t data = off + LFH_LEN + lnlen + lxlen;
	if (lnlen != nlen || memcmp(l + LFH_LEN, e->name, nlen) ||
	    rd16(l + 8) != e->method)
		return bad(z, "entry '%s': the local header disagrees with "
		    "the central directory", e->name);
	if (data > cdoff || e->csize > cdoff - data)
		return bad(z, "entry '%s': data reaches past the end of the "
		    "archive (truncated?)", e->name);
	e->raw = z->buf + data;
	if (e->method == 0)
		e->data = e->raw;
	return 0;
}

/* The end record, and its zip64 form when fields are saturated. */
static int
endrecord(Zip *z, uint64_t *count, uint64_t *cdoff, uint64_t *cdsize)
{
	const unsigned char *b = z->buf;
	size_t len = z->len, at = SIZE_MAX;
	if (len < EOCD_LEN)
		return bad(z, "%s", "not a complete zip archive (too short)");
	size_t lo = len - EOCD_LEN > 65535 ? len - EOCD_LEN - 65535 : 0;
	for (size_t i = len - EOCD_LEN + 1; i-- > lo;) {
		if (rd32(b + i) == EOCD_SIG &&
		    i + EOCD_LEN + rd16(b + i + 20) == len) {
			at = i;
			break;
		}
	}
	if (at == SIZE_MAX)
		return bad(z, "%s", "no zip end record (truncated archive?)");
	const unsigned char *e = b + at;
	if (rd16(e + 4) || rd16(e + 6) || rd16(e + 8) != rd16(e + 10))
		return bad(z, "%s", "multi-disk zip archives are not read");
	*count = rd16(e + 10);
	*cdsize = rd32(e + 12);
	*cdoff = rd32(e + 16);
	if (*count == 0xffff || *cdsize == 0xffffffffu ||
	    *cdoff == 0xffffffffu) {
		if (at < 20 || rd32(b + at - 20) != LOC64_SIG)
			return bad(z, "%s", "saturated zip end record without "
			    "a zip64 locator");
		uint64_t o = rd64(b + at - 20 + 8);
		if (o > at - 20 || at - 20 - o < 56 ||
		    rd32(b + o) != EOCD64_SIG)
			return bad(z, "%s", "the zip64 locator points outside "
			    "the archive");
		*count = rd64(b + o + 32);
		*cdsize = rd64(b + o + 40);
		*cdoff = rd64(b + o + 48);
		at = (size_t)o;
	}
	if (*cdoff > at || *cdsize > at - *cdoff)
		return bad(z, "%s", "the central directory lies outside the "
		    "archive (truncated or corrupt)");
	if (*count > MAXENTRIES || *count > *cdsize / CDH_LEN)
		return bad(z, "%s", "the zip end record's entry count does not "
		    "fit its central directory");
	return 0;
}

static int
index_names(Zip *z)
{
	z->hcap = 16;
	while (z->hcap < z->n * 2)
		z->hcap *= 2;
	z->byname = calloc(z->hcap, sizeof *z->byname);
	if (!z->byname)
		ir_oom(0);
	for (uint32_t k = 0; k < z->n; k++) {
		ZipEntry *e = &z->e[k];
		if (zip_find(z, e->name))
			return bad(z, "duplicate entry '%s'", e->name);
		uint32_t i = hashname(e->name, e->namelen) & (z->hcap - 1);
		while (z->byname[i])
			i = (i + 1) & (z->hcap - 1);
		z->byname[i] = k + 1;
	}
	return 0;
}

Zip *
zip_open(Module *m, const unsigned char *buf, size_t len)
{
	Zip *z = calloc(1, sizeof *z);
	if (!z)
		ir_oom(0);
	z->m = m;
	z->buf = buf;
	z->len = len;
	uint64_t count, cdoff, cdsize;
	if (endrecord(z, &count, &cdoff, &cdsize) < 0)
		goto fail;
	z->n = (uint32_t)count;
	z->e = calloc(z->n ? z->n : 1, sizeof *z->e);
	if (!z->e)
		ir_oom(0);
	const unsigned char *p = buf + cdoff, *end = p + cdsize;
	for (uint32_t i = 0; i < z->n; i++)
		if (direntry(z, &p, end, cdoff, &z->e[i]) < 0)
			goto fail;
	if (p != end) {
		bad(z, "%s", "the central directory holds more than its end "
		    "record's entry count");
		goto fail;
	}
	if (index_names(z) < 0)
		goto fail;
	return z;
fail:
	zip_close(z);
	return NULL;
}

void
zip_close(Zip *z)
{
	if (!z)
		return;
	for (uint32_t i = 0; i < z->nowned; i++)
		free(z->owned[i]);
	free(z->owned);
	free(z->byname);
	free(z->e);
	free(z);
}

void
zip_set_budget(Zip *z, uint64_t *left)
{
	z->left = left;
}

uint64_t
zip_budget_for(uint64_t len)
{
	uint64_t floor = (uint64_t)8 << 20;
	return len > (UINT64_MAX - floor) / 8 ? UINT64_MAX : floor + 8 * len;
}

uint32_t
zip_count(const Zip *z)
{
	return z->n;
}

ZipEntry *
zip_entry(Zip *z, uint32_t i)
{
	return i < z->n ? &z->e[i] : NULL;
}

/* Inflate e into a buffer of exactly usize bytes: more output than the
 * directory says is a bomb or a lie, less is corruption. */
static int
inflate_entry(Zip *z, ZipEntry *e)
{
	if (e->usize > ZIP_MAX_INFLATE)
		return bad(z, "entry '%s' inflates to more than 2 GiB",
		    e->name);
	if (z->left && e->usize > *z->left) {
		ir_error(z->m, (Loc){0, 0}, "entry '%s' inflates to %llu "
		    "bytes, more than the %llu left of what an input of "
		    "this size may inflate to (8 times its size + 8 MiB, "
		    "all entries together): an inflate bomb?", e->name,
		    (unsigned long long)e->usize,
		    (unsigned long long)*z->left);
		return -1;
	}
	unsigned char *out = malloc(e->usize ? e->usize : 1);
	if (!out)
		return bad(z, "entry '%s': out of memory inflating it",
		    e->name);
	z_stream s;
	memset(&s, 0, sizeof s);
	if (inflateInit2(&s, -MAX_WBITS) != Z_OK) {
		free(out);
		return bad(z, "entry '%s': zlib failed to start", e->name);
	}
	const unsigned char *in = e->raw;
	uint64_t inleft = e->csize, outdone = 0;
	int rc = Z_OK;
	while (rc == Z_OK) {
		uInt ichunk = inleft > 1u << 30 ? 1u << 30 : (uInt)inleft;
		uInt ochunk = e->usize - outdone > 1u << 30 ? 1u << 30 :
		    (uInt)(e->usize - outdone);
		unsigned char spare;
		s.next_in = (Bytef *)in;
		s.avail_in = ichunk;
		/* one spare byte tells a stream that runs past usize */
		s.next_out = ochunk ? out + outdone : &spare;
		s.avail_out = ochunk ? ochunk : 1;
		rc = inflate(&s, Z_NO_FLUSH);
		in += ichunk - s.avail_in;
		inleft -= ichunk - s.avail_in;
		if (!ochunk && s.avail_out == 0) {
			rc = Z_BUF_ERROR;
			break;
		}
		if (ochunk)
			outdone += ochunk - s.avail_out;
		if (rc == Z_OK && s.avail_in == ichunk && inleft == 0)
			rc = Z_DATA_ERROR; /* no progress, no more input */
	}
	inflateEnd(&s);
	if (rc != Z_STREAM_END || outdone != e->usize) {
		free(out);
		return bad(z, "entry '%s': deflated data is corrupt or "
		    "inflates to a size other than the directory says",
		    e->name);
	}
	if (crc32_z(0, out, (z_size_t)e->usize) != e->crc) {
		free(out);
		return bad(z, "entry '%s': CRC mismatch", e->name);
	}
	vgrow((void **)&z->owned, &z->cowned, z->nowned + 1,
	    sizeof *z->owned);
	z->owned[z->nowned++] = out;
	if (z->left)
		*z->left -= e->usize;
	e->data = out;
	return 0;
}

int
zip_data(Zip *z, ZipEntry *e, const unsigned char **data, size_t *len)
{
	if (!e->data && inflate_entry(z, e) < 0)
		return -1;
	*data = e->data;
	*len = (size_t)e->usize;
	return 0;
}
