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
