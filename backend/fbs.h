/* fbs.h - a small FlatBuffer builder (Debian ships no flatcc).
 *
 * The buffer is built back to front, as the reference builder does: an
 * object is written before anything that points at it, so every offset
 * points forward.  Objects are named by FbsRef, their distance from the
 * end of the buffer.  All scalars are written little-endian and aligned to
 * their size (counted from the end; fbs_finish pads the front so that the
 * start of the buffer is aligned too).  Identical vtables are shared.
 *
 * Large byte vectors (fbs_vec_blob) are referenced, never copied: the
 * caller keeps them alive until the buffer has been written out, which
 * lets weights go from the mapped file straight to the output.
 *
 * A buffer cannot exceed FBS_MAX_SIZE bytes (offsets are 32-bit and
 * readers verify against 2 GB).  Past it, every call does nothing and
 * fbs_overflow() says so: callers check once, after fbs_finish.
 */
#ifndef ONNXC_FBS_H
#define ONNXC_FBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FBS_MAX_SIZE UINT32_C(0x7fffffff)

typedef struct Fbs Fbs;
typedef uint32_t FbsRef;    /* an object; 0 means none */

Fbs *fbs_new(void);
void fbs_free(Fbs *b);

/* strings: byte length, the bytes, a NUL */
FbsRef fbs_string(Fbs *b, const char *s);
FbsRef fbs_stringn(Fbs *b, const char *s, size_t n);

/* vectors */
FbsRef fbs_vec_refs(Fbs *b, const FbsRef *refs, uint32_t n); /* tables,
							      * strings */
/* n host scalars of size bytes (1, 2, 4 or 8) at p, stored little-endian
 * (floats go through as their bit patterns) */
FbsRef fbs_vec_scalars(Fbs *b, const void *p, uint32_t n, unsigned size);
/* n structs of size bytes, already encoded little-endian, aligned to
 * align (the largest member) */
FbsRef fbs_vec_structs(Fbs *b, const void *p, uint32_t n, unsigned size,
    unsigned align);
/* n bytes at p, referenced until the buffer is written out; the data
 * start is aligned to align (a power of two, at least 4 is used) */
FbsRef fbs_vec_blob(Fbs *b, const void *p, uint64_t n, unsigned align);

/* Tables.  Between fbs_table and fbs_end only fields may be added (no
 * strings, vectors or other tables).  A scalar equal to its default is
 * left out, as the reference builder does; a 0 ref is left out. */
void fbs_table(Fbs *b);
void fbs_u8(Fbs *b, unsigned slot, uint8_t v, uint8_t dflt);
void fbs_i32(Fbs *b, unsigned slot, int32_t v, int32_t dflt);
void fbs_u32(Fbs *b, unsigned slot, uint32_t v, uint32_t dflt);
void fbs_i64(Fbs *b, unsigned slot, int64_t v, int64_t dflt);
void fbs_f32(Fbs *b, unsigned slot, float v, float dflt);
void fbs_ref(Fbs *b, unsigned slot, FbsRef r);
FbsRef fbs_end(Fbs *b);

/* Root offset and 4-byte file identifier (or NULL) at the front. */
void fbs_finish(Fbs *b, FbsRef root, const char *ident);

bool fbs_overflow(const Fbs *b);
uint64_t fbs_size(const Fbs *b);
uint32_t fbs_ntables(const Fbs *b);   /* tables written (verifier cost) */
/* The finished buffer, front to back: into out (fbs_size bytes), or
 * piece by piece to put, which returns 0 or stops the walk with its
 * nonzero value. */
void fbs_copy(const Fbs *b, uint8_t *out);
int fbs_emit(const Fbs *b, int (*put)(void *ctx, const void *p, size_t n),
    void *ctx);

#endif
