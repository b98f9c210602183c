/* ckint.h - checked int64 arithmetic: the one place onnxc computes with
 * sizes, indices and symbolic numbers that come from the input.  Each
 * function stores the exact result and returns true, or returns false
 * (leaving *r unspecified) when it does not exist in int64: overflow,
 * division or modulo by zero.  Division and modulo round like Python
 * (floor), as torch's sizes and sympy's FloorDiv and Mod do. */
#ifndef ONNXC_CKINT_H
#define ONNXC_CKINT_H

#include <stdbool.h>
#include <stdint.h>

static inline bool
ck_add(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

static inline bool
ck_sub(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_sub_overflow(a, b, r);
}

static inline bool
ck_mul(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}

static inline bool
ck_neg(int64_t a, int64_t *r)
{
	return ck_sub(0, a, r);
}

/* a // b, rounded toward negative infinity */
static inline bool
ck_floordiv(int64_t a, int64_t b, int64_t *r)
{
	if (b == 0 || (a == INT64_MIN && b == -1))
		return false;
	int64_t q = a / b;
	if (a % b != 0 && ((a < 0) != (b < 0)))
		q--;
	*r = q;
	return true;
}

/* a % b with the sign of b (Python) */
static inline bool
ck_mod(int64_t a, int64_t b, int64_t *r)
{
	if (b == 0)
		return false;
	if (b == -1) { /* INT64_MIN % -1 traps on x86 */
		*r = 0;
		return true;
	}
	int64_t m = a % b;
	if (m != 0 && ((m < 0) != (b < 0)))
		m += b;
	*r = m;
	return true;
}

/* a ** e for e >= 0 */
static inline bool
ck_pow(int64_t a, int64_t e, int64_t *r)
{
	int64_t acc = 1;
	if (e < 0)
		return false;
	if (a == 0 || a == 1) {
		*r = e == 0 ? 1 : a;
		return true;
	}
	if (a == -1) {
		*r = e % 2 ? -1 : 1;
		return true;
	}
	while (e > 0) { /* |a| >= 2: at most 63 rounds before overflow */
		if (!ck_mul(acc, a, &acc))
			return false;
		e--;
	}
	*r = acc;
	return true;
}

/* ceil(a / b) */
static inline bool
ck_ceildiv(int64_t a, int64_t b, int64_t *r)
{
	if (b == 0 || (a == INT64_MIN && b == -1))
		return false;
	int64_t q = a / b; /* toward zero: one up when the exact one is more */
	if (a % b != 0 && ((a < 0) == (b < 0)))
		q++;
	*r = q;
	return true;
}

/* The product of n sizes (the numel of a shape: 0 if any size is). */
static inline bool
ck_prod(const int64_t *v, int n, int64_t *r)
{
	int64_t acc = 1;
	for (int k = 0; k < n; k++)
		if (v[k] == 0) {
			*r = 0;
			return true;
		}
	for (int k = 0; k < n; k++)
		if (!ck_mul(acc, v[k], &acc))
			return false;
	*r = acc;
	return true;
}

#endif
