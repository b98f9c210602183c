/* test_fbs.c - the FlatBuffer builder: buffers built by hand and read back
 * with a small reader that follows the format's rules (offsets relative
 * to where they are stored, vtables at table - soffset). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/fbs.h"

/* ------------------------------------------------------------- reader */

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
rd64(const uint8_t *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static const uint8_t *
deref(const uint8_t *p)
{
	return p + rd32(p);
}

static const uint8_t *
vtable(const uint8_t *t)
{
	return t - (int32_t)rd32(t);
}

/* the field in slot, or NULL when absent */
static const uint8_t *
fld(const uint8_t *t, unsigned slot)
{
	const uint8_t *vt = vtable(t);
	if (4 + 2 * slot >= rd16(vt))
		return NULL;
	uint16_t o = rd16(vt + 4 + 2 * slot);
	return o ? t + o : NULL;
}

static const uint8_t *
root(const uint8_t *buf)
{
	return deref(buf);
}

/* a string field: its bytes (NUL-terminated, checked) */
static const char *
str_at(const uint8_t *s, uint32_t *len)
{
	*len = rd32(s);
	assert_int_equal(s[4 + *len], 0);
	return (const char *)s + 4;
}

typedef struct Buf {
	uint8_t *p;
	size_t n;
} Buf;

static Buf
finish(Fbs *b, FbsRef r, const char *ident)
{
	fbs_finish(b, r, ident);
	assert_false(fbs_overflow(b));
	Buf out = {.n = (size_t)fbs_size(b)};
	out.p = malloc(out.n);
	fbs_copy(b, out.p);
	return out;
}

static bool
aligned(const Buf *b, const uint8_t *p, unsigned a)
{
	return (size_t)(p - b->p) % a == 0;
}

/* -------------------------------------------------------------- tests */

static void
test_scalars_and_header(void **state)
{
	(void)state;
	Fbs *b = fbs_new();
	FbsRef s = fbs_string(b, "hello");
	fbs_table(b);
	fbs_u8(b, 0, 7, 0);
	fbs_i32(b, 1, -5, 0);
	fbs_i64(b, 2, INT64_C(0x123456789a), 0);
	fbs_f32(b, 3, 1.5f, 0);
	fbs_ref(b, 4, s);
	fbs_u32(b, 5, 0xdeadbeef, 0);
	FbsRef t = fbs_end(b);
	Buf out = finish(b, t, "TEST");

	assert_memory_equal(out.p + 4, "TEST", 4);
	assert_int_equal(out.n % 8, 0);
	const uint8_t *r = root(out.p);
	assert_true(aligned(&out, r, 4));
	assert_int_equal(*fld(r, 0), 7);
	assert_int_equal((int32_t)rd32(fld(r, 1)), -5);
	assert_true(aligned(&out, fld(r, 1), 4));
	assert_int_equal(rd64(fld(r, 2)), INT64_C(0x123456789a));
	assert_true(aligned(&out, fld(r, 2), 8));
	uint32_t bits = rd32(fld(r, 3)), want;
	float f = 1.5f;
	memcpy(&want, &f, 4);
	assert_int_equal(bits, want);
	uint32_t len;
	const uint8_t *sp = deref(fld(r, 4));
	assert_true(aligned(&out, sp, 4));
	assert_string_equal(str_at(sp, &len), "hello");
	assert_int_equal(len, 5);
	assert_int_equal(rd32(fld(r, 5)), 0xdeadbeef);
	/* vtable: 6 slots, inline size covers the soffset and the fields */
	const uint8_t *vt = vtable(r);
	assert_true(aligned(&out, vt, 2));
	assert_int_equal(rd16(vt), 4 + 2 * 6);
	assert_true(rd16(vt + 2) >= 4 + 1 + 4 + 8 + 4 + 4 + 4);
	assert_int_equal(fbs_ntables(b), 1);
	free(out.p);
	fbs_free(b);
}

static void
test_defaults_left_out(void **state)
{
	(void)state;
	Fbs *b = fbs_new();
	fbs_table(b);
	fbs_i32(b, 0, 3, 3);          /* default: absent */
	fbs_i64(b, 1, -1, -1);
	fbs_f32(b, 2, -0.0f, 0.0f);   /* not the default bit pattern */
	fbs_u8(b, 3, 1, 0);
	fbs_ref(b, 4, 0);             /* no object: absent */
	fbs_u32(b, 9, 0, 0);          /* trailing absent slots: trimmed */
	FbsRef t = fbs_end(b);
	Buf out = finish(b, t, NULL);
	const uint8_t *r = root(out.p);
	assert_null(fld(r, 0));
	assert_null(fld(r, 1));
	assert_non_null(fld(r, 2));
	assert_int_equal(rd32(fld(r, 2)), 0x80000000u);
	assert_int_equal(*fld(r, 3), 1);
	assert_null(fld(r, 4));
	assert_int_equal(rd16(vtable(r)), 4 + 2 * 4);
	free(out.p);
	fbs_free(b);
}

static void
test_vtables_shared(void **state)
{
	(void)state;
	Fbs *b = fbs_new();
	FbsRef t[3];
	for (int i = 0; i < 3; i++) {
		fbs_table(b);
		fbs_i32(b, 0, 10 + i, 0);
		if (i == 2)
			fbs_i32(b, 1, 1, 0);
		t[i] = fbs_end(b);
	}
	FbsRef v = fbs_vec_refs(b, t, 3);
	fbs_table(b);
	fbs_ref(b, 0, v);
	FbsRef r = fbs_end(b);
	Buf out = finish(b, r, NULL);
	const uint8_t *vec = deref(fld(root(out.p), 0));
	assert_int_equal(rd32(vec), 3);
	const uint8_t *e[3];
	for (int i = 0; i < 3; i++) {
		e[i] = deref(vec + 4 + 4 * i);
		assert_int_equal(rd32(fld(e[i], 0)), 10 + i);
	}
	assert_ptr_equal(vtable(e[0]), vtable(e[1]));
	assert_ptr_not_equal(vtable(e[0]), vtable(e[2]));
	assert_int_equal(rd32(fld(e[2], 1)), 1);
	assert_int_equal(fbs_ntables(b), 4);
	free(out.p);
	fbs_free(b);
}

static void
test_vectors(void **state)
{
	(void)state;
	Fbs *b = fbs_new();
	int64_t i64[3] = {-1, INT64_C(1) << 40, 7};
	int32_t i32[2] = {-2, 3};
	uint8_t u8[5] = {1, 2, 3, 4, 5};
	uint8_t st[2 * 12];
	for (int i = 0; i < 24; i++)
		st[i] = (uint8_t)i;
	FbsRef a = fbs_vec_scalars(b, u8, 5, 1);
	FbsRef c = fbs_vec_scalars(b, i64, 3, 8);
	FbsRef d = fbs_vec_scalars(b, i32, 2, 4);
	FbsRef s[2] = {fbs_string(b, "x"), fbs_string(b, "")};
	FbsRef e = fbs_vec_refs(b, s, 2);
	FbsRef f = fbs_vec_structs(b, st, 2, 12, 4);
	FbsRef z = fbs_vec_refs(b, NULL, 0);
	fbs_table(b);
	fbs_ref(b, 0, a);
	fbs_ref(b, 1, c);
	fbs_ref(b, 2, d);
	fbs_ref(b, 3, e);
	fbs_ref(b, 4, f);
	fbs_ref(b, 5, z);
	FbsRef r = fbs_end(b);
	Buf out = finish(b, r, "ABCD");
	const uint8_t *t = root(out.p);

	const uint8_t *v = deref(fld(t, 0));
	assert_int_equal(rd32(v), 5);
	assert_memory_equal(v + 4, u8, 5);
	v = deref(fld(t, 1));
	assert_int_equal(rd32(v), 3);
	assert_true(aligned(&out, v + 4, 8));
	for (int i = 0; i < 3; i++)
		assert_int_equal((int64_t)rd64(v + 4 + 8 * i), i64[i]);
	v = deref(fld(t, 2));
	assert_int_equal((int32_t)rd32(v + 4), -2);
	assert_int_equal((int32_t)rd32(v + 8), 3);
	v = deref(fld(t, 3));
	uint32_t len;
	assert_int_equal(rd32(v), 2);
	assert_string_equal(str_at(deref(v + 4), &len), "x");
	assert_string_equal(str_at(deref(v + 8), &len), "");
	assert_int_equal(len, 0);
	v = deref(fld(t, 4));
	assert_int_equal(rd32(v), 2);
	assert_true(aligned(&out, v + 4, 4));
	assert_memory_equal(v + 4, st, 24);
	assert_int_equal(rd32(deref(fld(t, 5))), 0);
	free(out.p);
	fbs_free(b);
}

typedef struct Pieces {
	uint8_t buf[4096];
	size_t n;
	int calls;
	int fail_at;
} Pieces;

static int
put(void *ctx, const void *p, size_t n)
{
	Pieces *pc = ctx;
	if (++pc->calls == pc->fail_at)
		return 28;
	assert_true(pc->n + n <= sizeof pc->buf);
	memcpy(pc->buf + pc->n, p, n);
	pc->n += n;
	return 0;
}

/* Blobs are referenced, not copied, and land aligned between the bytes
 * written around them. */
static void
test_blobs(void **state)
{
	(void)state;
	uint8_t w1[37], w2[3];
	for (int i = 0; i < 37; i++)
		w1[i] = (uint8_t)(100 + i);
	memset(w2, 0xee, sizeof w2);
	Fbs *b = fbs_new();
	FbsRef v1 = fbs_vec_blob(b, w1, sizeof w1, 16);
	FbsRef s = fbs_string(b, "between");
	FbsRef v2 = fbs_vec_blob(b, w2, sizeof w2, 64);
	FbsRef v0 = fbs_vec_blob(b, w2, 0, 16);
	fbs_table(b);
	fbs_ref(b, 0, v1);
	fbs_ref(b, 1, s);
	fbs_ref(b, 2, v2);
	fbs_ref(b, 3, v0);
	FbsRef r = fbs_end(b);
	fbs_finish(b, r, "BLOB");
	w1[0] = 42;         /* after building: the output still sees it */
	Buf out = {.n = (size_t)fbs_size(b)};
	out.p = malloc(out.n);
	fbs_copy(b, out.p);
	assert_int_equal(out.n % 64, 0);
	const uint8_t *t = root(out.p);
	const uint8_t *v = deref(fld(t, 0));
	assert_int_equal(rd32(v), 37);
	assert_true(aligned(&out, v + 4, 16));
	assert_memory_equal(v + 4, w1, 37);
	uint32_t len;
	assert_string_equal(str_at(deref(fld(t, 1)), &len), "between");
	v = deref(fld(t, 2));
	assert_int_equal(rd32(v), 3);
	assert_true(aligned(&out, v + 4, 64));
	assert_memory_equal(v + 4, w2, 3);
	assert_int_equal(rd32(deref(fld(t, 3))), 0);

	/* piece by piece: the same bytes, the blobs as pieces of their own */
	Pieces pc = {.fail_at = 0};
	assert_int_equal(fbs_emit(b, put, &pc), 0);
	assert_int_equal(pc.n, out.n);
	assert_memory_equal(pc.buf, out.p, out.n);
	assert_true(pc.calls >= 5);
	/* a failing sink stops the walk with its code */
	Pieces bad = {.fail_at = 2};
	assert_int_equal(fbs_emit(b, put, &bad), 28);
	assert_int_equal(bad.calls, 2);
	free(out.p);
	fbs_free(b);
}

static void
test_overflow(void **state)
{
	(void)state;
	static const uint8_t tiny[4];
	Fbs *b = fbs_new();
	FbsRef a = fbs_vec_blob(b, tiny, FBS_MAX_SIZE / 2, 4);
	assert_true(a != 0);
	assert_false(fbs_overflow(b));
	/* the second half does not fit next to the first */
	assert_int_equal(fbs_vec_blob(b, tiny, FBS_MAX_SIZE / 2 + 16, 4), 0);
	assert_true(fbs_overflow(b));
	/* from here on nothing is written */
	assert_int_equal(fbs_string(b, "x"), 0);
	fbs_table(b);
	fbs_ref(b, 0, a);
	assert_int_equal(fbs_end(b), 0);
	fbs_finish(b, a, "OVER");
	assert_true(fbs_overflow(b));
	fbs_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars_and_header),
		cmocka_unit_test(test_defaults_left_out),
		cmocka_unit_test(test_vtables_shared),
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
