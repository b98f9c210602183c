/* zip.h - a zip reader over bytes the caller keeps mapped: the central
 * directory is checked against the local headers, stored entries are used
 * in place (zero-copy), deflated ones are inflated once under a size
 * limit.  Errors go to the Module's diagnostics. */
#ifndef ONNXC_ZIP_H
#define ONNXC_ZIP_H

#include "../ir/ir.h"

typedef struct Zip Zip;

typedef struct ZipEntry {
	const char *name;       /* NUL-terminated copy, in the Zip's arena */
	uint32_t namelen;
	uint16_t method;        /* 0 stored, 8 deflated */
	uint32_t crc;
	uint64_t csize, usize;
	const unsigned char *raw; /* csize bytes of (compressed) data */
	const unsigned char *data; /* usize bytes once zip_data succeeded */
} ZipEntry;

/* Largest inflated entry (JSON programs, pickles); stored entries (the
 * weights) have no limit but the file's size. */
#define ZIP_MAX_INFLATE ((uint64_t)1 << 31)

/* Reads the directory of buf[0..len); NULL after reporting an error. */
Zip *zip_open(Module *m, const unsigned char *buf, size_t len);
/* Inflated entries of z take their bytes from *left, shared by the zips
 * of one input (an archive and the zips inside it); an entry that needs
 * more than is left is an error naming it.  Without a budget only
 * ZIP_MAX_INFLATE bounds each entry. */
void zip_set_budget(Zip *z, uint64_t *left);
/* The budget an input of len bytes gets: what a real archive needs
 * (JSON deflates 10-20x, weights hardly at all), far below what a bomb
 * asks for. */
uint64_t zip_budget_for(uint64_t len);
void zip_close(Zip *z);
uint32_t zip_count(const Zip *z);
ZipEntry *zip_entry(Zip *z, uint32_t i);
ZipEntry *zip_find(Zip *z, const char *name);
/* The entry's bytes: in place when stored, else inflated (once) and
 * CRC-checked.  Returns -1 after an error. */
int zip_data(Zip *z, ZipEntry *e, const unsigned char **data, size_t *len);
/* "PK\3\4" or "PK\5\6" (an empty archive) at the start */
bool zip_sniff(const unsigned char *buf, size_t len);

#endif
