/* text_lex.c - how the text writer spells things: an output buffer in
 * front of out.h, names (bare or quoted), numbers that read back exactly,
 * tensor types and values as onnx.parser reads them into the fields
 * onnx.proto keeps each type in.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "text_int.h"

/* ------------------------------------------------------------- output */

void
tx_flush(Txt *t)
{
	if (t->n && !t->err)
		t->err = be_out_write(t->out, t->buf, t->n);
	t->n = 0;
}

void
tx_put(Txt *t, const char *s, size_t n)
{
	if (t->n + n > sizeof t->buf)
		tx_flush(t);
	if (n > sizeof t->buf) {
		if (!t->err)
			t->err = be_out_write(t->out, s, n);
		return;
	}
	memcpy(t->buf + t->n, s, n);
	t->n += n;
}

void
tx_puts(Txt *t, const char *s)
{
	tx_put(t, s, strlen(s));
}

void
tx_putf(Txt *t, const char *f, ...)
{
	char b[512];
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(b, sizeof b, f, ap);
	va_end(ap);
	tx_put(t, b, n < 0 ? 0 : (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

void
tx_indent(Txt *t, int depth)
{
	static const char sp[] = "                                        ";
	for (int k = depth * INDENT; k > 0; k -= (int)sizeof sp - 1)
		tx_put(t, sp, k < (int)sizeof sp - 1 ? (size_t)k : sizeof sp - 1);
}

/* ------------------------------------------------------------ lexemes */

bool
tx_is_ident(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

const char *const tx_type_names[DT_COUNT] = {
	[DT_F32] = "float", [DT_U8] = "uint8", [DT_I8] = "int8",
	[DT_U16] = "uint16", [DT_I16] = "int16", [DT_I32] = "int32",
	[DT_I64] = "int64", [DT_STRING] = "string", [DT_BOOL] = "bool",
	[DT_F16] = "float16", [DT_F64] = "double", [DT_U32] = "uint32",
	[DT_U64] = "uint64", [DT_C64] = "complex64", [DT_C128] = "complex128",
	[DT_BF16] = "bfloat16", [DT_F8E4M3FN] = "float8e4m3fn",
	[DT_F8E4M3FNUZ] = "float8e4m3fnuz", [DT_F8E5M2] = "float8e5m2",
	[DT_F8E5M2FNUZ] = "float8e5m2fnuz", [DT_U4] = "uint4", [DT_I4] = "int4",
	[DT_F4E2M1] = "float4e2m1", [DT_F8E8M0] = "float8e8m0",
};

/* Words the parser reads as something else where a name may stand: a
 * type (a value-info without one), or a float (a graph attribute). */
bool
tx_is_reserved(const char *s)
{
	static const char *const words[] = {"seq", "map", "optional",
		"sparse_tensor", "inf", "infinity", "nan"};
	for (int i = 0; i < DT_COUNT; i++)
		if (tx_type_names[i] && !strcmp(s, tx_type_names[i]))
			return true;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (!strcasecmp(s, words[i]))
			return true;
	return false;
}

void
tx_quoted(Txt *t, const char *s)
{
	tx_put(t, "\"", 1);
	for (const char *p = s; *p; p++) {
		size_t k = strcspn(p, "\\\"");
		tx_put(t, p, k);
		p += k;
		if (!*p)
			break;
		tx_put(t, "\\", 1);
		tx_put(t, p, 1);
	}
	tx_put(t, "\"", 1);
}

/* A name: bare where the parser reads it back as one, else quoted. */
void
tx_name(Txt *t, const char *s)
{
	if (tx_is_ident(s) && !tx_is_reserved(s))
		tx_puts(t, s);
	else
		tx_quoted(t, s);
}

/* %.9g (float) or %.17g (double) gives the value back exactly; a literal
 * the parser must read as a float has a point or an exponent. */
void
tx_number(Txt *t, double v, bool single, bool as_float)
{
	char b[40];
	if (isnan(v))
		snprintf(b, sizeof b, "%snan", signbit(v) ? "-" : "");
	else if (isinf(v))
		snprintf(b, sizeof b, "%sinf", v < 0 ? "-" : "");
	else
		snprintf(b, sizeof b, single ? "%.9g" : "%.17g", v);
	if (as_float && !strpbrk(b, ".eina"))
		strcat(b, ".0");
	tx_puts(t, b);
}

/* ------------------------------------------------------------ tensors */

static uint64_t
le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* One element of x, as the parser reads it into the field onnx.proto
 * keeps that type in. */
static void
element(Txt *t, DType dt, const uint8_t *p)
{
	uint64_t bits;
	switch (dt) {
	case DT_F32:
	case DT_C64: {
		float f;
		memcpy(&f, p, 4);
		tx_number(t, f, true, false);
		break;
	}
	case DT_F64:
	case DT_C128: {
		double f;
		memcpy(&f, p, 8);
		tx_number(t, f, false, false);
		break;
	}
	case DT_I8:
		tx_putf(t, "%d", (int8_t)p[0]);
		break;
	case DT_I16:
		tx_putf(t, "%d", (int16_t)le(p, 2));
		break;
	case DT_I32:
		tx_putf(t, "%d", (int32_t)le(p, 4));
		break;
	case DT_I64:
		tx_putf(t, "%lld", (long long)(int64_t)le(p, 8));
		break;
	case DT_U32:
		tx_putf(t, "%llu", (unsigned long long)le(p, 4));
		break;
	case DT_U64:
		tx_putf(t, "%llu", (unsigned long long)le(p, 8));
		break;
	default:        /* bytes, bools, and the bits of 16- and 8-bit floats */
		bits = le(p, ir_dtype_size(dt) == 2 ? 2 : 1);
		tx_putf(t, "%llu", (unsigned long long)bits);
		break;
	}
}

/* "{v, v, ...}": 4-bit types as their bytes (two elements each, low one
 * first, as int32_data holds them), complex ones as real, imaginary. */
void
tx_values(Txt *t, const Tensor *x, int depth)
{
	DType dt = (DType)x->dtype;
	size_t step = dt == DT_U4 || dt == DT_I4 || dt == DT_F4E2M1 ? 1
	    : dt == DT_C64 ? 4 : dt == DT_C128 ? 8 : ir_dtype_size(dt);
	uint64_t n = x->nbytes / step;
	const uint8_t *p = x->data;
	tx_puts(t, "{");
	for (uint64_t i = 0; i < n; i++) {
		if (i)
			tx_puts(t, ",");
		if (i && i % 16 == 0) {
			tx_puts(t, "\n");
			tx_indent(t, depth + 1);
		} else if (i) {
			tx_puts(t, " ");
		}
		element(t, dt, p + i * step);
	}
	tx_puts(t, "}");
}

/* "TYPE[dims]" of a tensor; rank 0 is the bare type */
void
tx_tensor_type(Txt *t, const Tensor *x)
{
	tx_puts(t, tx_type_names[x->dtype]);
	for (int32_t i = 0; i < x->rank; i++)
		tx_putf(t, "%s%lld", i ? "," : "[", (long long)x->dims[i]);
	if (x->rank)
		tx_puts(t, "]");
}

