/* lower_elementwise.h - what the lower_elementwise*.c rule files share;
 * private to them. */
#ifndef ONNXC_LOWER_ELEMENTWISE_H
#define ONNXC_LOWER_ELEMENTWISE_H

#include "lower.h"

/* What the rules shared by a family of ops need to know about each, by
 * base name: "aten::sin_.default" is "sin". */
enum {
	F64_OK = 1,    /* float functions: ONNX Runtime has an f64 kernel */
	NEGATE = 2,    /* the result is negated (ne, isfinite) */
	NAN_AWARE = 4, /* fmin/fmax: a nan loses to a number */
	POS_INF = 8,   /* IsInf detect_positive */
	NEG_INF = 16,  /* IsInf detect_negative */
};

typedef struct OpInfo {
	const char *name;
	const char *op;  /* the ONNX op */
	const char *op2; /* bitwise ops: the ONNX op for integers */
	int flags;
} OpInfo;

/* The dtype arithmetic on dt computes in; DT_UNDEF (after an error) when
 * ONNX has no arithmetic for it (complex, float8, strings). */
DType lwe_compute_type(Lower *L, DType dt);

/* The dtype a float function of a dt result computes in: f64 only when the
 * ONNX Runtime kernel has one (dbl). */
DType lwe_float_type(DType dt, bool dbl);

/* The dtype of FX output 0, or fallback when it has no annotation. */
DType lwe_out_dtype(Lower *L, DType fallback);

/* Bind v to FX output 0 in the annotated dtype. */
int lwe_done(Lower *L, ValId v);

/* Operands i and j as values of dtype ct; false after an error. */
bool lwe_operands(Lower *L, int i, const char *ki, int j, const char *kj,
    DType ct, ValId *a, ValId *b);

/* A 0-d constant v of the dtype of like. */
ValId lwe_num(Lower *L, double v, ValId like);

/* the node that computes v, to add attributes right after emitting it */
NodeId lwe_def(Lower *L, ValId v);

ValId lwe_cmp(Lower *L, const char *op, ValId a, ValId b);

ValId lwe_where(Lower *L, ValId c, ValId a, ValId b);

/* round toward zero; ONNX has no Trunc */
ValId lwe_trunc_f(Lower *L, ValId x);

ValId lwe_is_nan(Lower *L, ValId x);

/* v broadcast to the run-time shape of like; Expand has no bf16 kernel */
ValId lwe_expand_to(Lower *L, ValId v, ValId like);

/* A number arg (int, float or bool) as a double; false if it is not one. */
bool lwe_number(Lower *L, int i, const char *kw, double *v);

/* The entry of the op being lowered; in-place spellings ("sin_") read as
 * their functional form, as the rule lookup does. */
const OpInfo *lwe_info(Lower *L);

/* Operands self and arg 1 (named kb) in the compute type of the result;
 * returns that, or DT_UNDEF after an error. */
DType lwe_binary(Lower *L, const char *kb, ValId *a, ValId *b);

/* neg, abs, sign */
int lwe_unary_same(Lower *L);

/* Clip(x, lo, hi); a bound is left out when has_lo/has_hi is false */
ValId lwe_clip(Lower *L, ValId x, bool has_lo, double lo, bool has_hi,
    double hi);

/* logical_*: operands are true when nonzero */
int lwe_logical(Lower *L);

#endif
