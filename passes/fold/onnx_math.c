/* onnx_math.c - inside the fold plugin: ONNX elementwise, comparison,
 * selection and index ops on constants (the masks and position tables that
 * transformers compute from their static sizes).
 *
 * Each result is what ONNX Runtime computes, exactly: integers in int64,
 * floats with one rounding per operation (computed in double and rounded
 * once to f32, which gives IEEE f32 arithmetic's result for + - * /), and
 * Log correctly rounded (ONNX Runtime's is within an ulp of it).
 * A result larger than every operand (Expand, broadcasting, Gather,
 * Range) is folded only up to GROW elements: folding must not turn a
 * small constant into a big initializer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"

enum { GROW = 65536, MAXIN = 3 };

static int
isfloat(uint32_t dt)
{
	return dt == ONNXC_DT_F32 || dt == ONNXC_DT_F64;
}

static int
numeric(uint32_t dt)
{
	return isfloat(dt) || dt == ONNXC_DT_I64 || dt == ONNXC_DT_I32 ||
	    dt == ONNXC_DT_BOOL;
}

static double
getf(const Ten *t, uint64_t i)
{
	const unsigned char *p = t->data;
	float f;
	double d;
	if (t->dt == ONNXC_DT_F32) {
		memcpy(&f, p + i * 4, 4);
		return f;
	}
	memcpy(&d, p + i * 8, 8);
	return d;
}

int64_t
fold_geti(const Ten *t, uint64_t i)
{
	const unsigned char *p = t->data;
	int32_t v32;
	int64_t v;
	if (t->dt == ONNXC_DT_BOOL)
		return p[i] != 0;
	if (t->dt == ONNXC_DT_I32) {
		memcpy(&v32, p + i * 4, 4);
		return v32;
	}
	memcpy(&v, p + i * 8, 8);
	return v;
}

/* Element k of r: fv for float dtypes, else iv (wrapping to i32). */
static void
put(Ten *r, uint64_t k, double fv, int64_t iv)
{
	unsigned char *p = r->own;
	float f = (float)fv;
	int32_t v32 = (int32_t)(uint32_t)iv;
	switch (r->dt) {
	case ONNXC_DT_F32: memcpy(p + k * 4, &f, 4); break;
	case ONNXC_DT_F64: memcpy(p + k * 8, &fv, 8); break;
	case ONNXC_DT_I32: memcpy(p + k * 4, &v32, 4); break;
	case ONNXC_DT_BOOL: p[k] = iv != 0; break;
	default: memcpy(p + k * 8, &iv, 8); break;
	}
}

/* ONNX broadcasting of n operand shapes: r's shape and storage, and per
 * operand the stride of each result dim (0 where it is broadcast). */
typedef struct Bc {
	int n;
	int64_t st[MAXIN][MAXRANK];
	int64_t idx[MAXRANK];
	uint64_t off[MAXIN];
} Bc;

static int
bcast(Fold *f, const Ten *in, int n, uint32_t dt, Ten *r, Bc *b)
{
	int rank = 0;
	int64_t dims[MAXRANK], st[MAXRANK];
	uint64_t biggest = 0;
	memset(b, 0, sizeof *b);
	b->n = n;
	for (int k = 0; k < n; k++) {
		rank = in[k].rank > rank ? in[k].rank : rank;
		if (in[k].data && in[k].numel > biggest)
			biggest = in[k].numel;
	}
	for (int i = 0; i < rank; i++) {
		dims[i] = 1;
		for (int k = 0; k < n; k++) {
			int j = i - (rank - in[k].rank);
			int64_t d = j >= 0 ? in[k].dims[j] : 1;
			if (d != 1 && dims[i] != 1 && d != dims[i])
				return SKIP;
			dims[i] = d != 1 ? d : dims[i];
		}
	}
	for (int k = 0; k < n; k++) {
		fold_strides(&in[k], st);
		for (int i = 0; i < rank; i++) {
			int j = i - (rank - in[k].rank);
			b->st[k][i] = j >= 0 && in[k].dims[j] == dims[i] ?
			    st[j] : 0;
		}
	}
	if (fold_shape(f, r, dt, rank, dims) != DONE ||
	    (r->numel > biggest && r->numel > GROW))
		return SKIP;
	return fold_storage(f, r);
}

static void
next(Bc *b, const Ten *r)
{
	for (int d = r->rank - 1; d >= 0; d--) {
		for (int k = 0; k < b->n; k++)
			b->off[k] += (uint64_t)b->st[k][d];
		if (++b->idx[d] < r->dims[d])
			return;
		for (int k = 0; k < b->n; k++)
			b->off[k] -= (uint64_t)(b->st[k][d] * r->dims[d]);
		b->idx[d] = 0;
	}
}

enum {
	M_ABS, M_NEG, M_NOT, M_LOG,                        /* unary */
	M_ADD, M_SUB, M_MUL, M_DIV,                        /* same dtype */
	M_MIN, M_MAX, M_AND, M_OR, M_XOR,
	M_EQ, M_LT, M_GT, M_LE, M_GE,                      /* -> bool */
	M_WHERE, M_EXPAND
};

static const struct {
	const char *name;
	int op, nin;
} ops[] = {
	{"Add", M_ADD, 2}, {"Sub", M_SUB, 2}, {"Mul", M_MUL, 2},
	{"Div", M_DIV, 2}, {"Abs", M_ABS, 1}, {"Neg", M_NEG, 1}, {"Not", M_NOT, 1},
	{"Log", M_LOG, 1}, {"Min", M_MIN, 2}, {"Max", M_MAX, 2},
	{"And", M_AND, 2}, {"Or", M_OR, 2}, {"Xor", M_XOR, 2},
	{"Equal", M_EQ, 2}, {"Less", M_LT, 2}, {"Greater", M_GT, 2},
	{"LessOrEqual", M_LE, 2}, {"GreaterOrEqual", M_GE, 2},
	{"Where", M_WHERE, 3}, {"Expand", M_EXPAND, 2},
};

/* One element of op on a, b (b unused by unary ops), as float or int;
 * 0 for an integer division by zero (ONNX Runtime's error, not ours). */
static int
apply(int op, int fl, double fa, double fb, int64_t ia, int64_t ib,
    double *fr, int64_t *ir)
{
	uint64_t ua = (uint64_t)ia, ub = (uint64_t)ib;  /* ints wrap */
	switch (op) {
	case M_ADD: *fr = fa + fb; *ir = (int64_t)(ua + ub); break;
	case M_SUB: *fr = fa - fb; *ir = (int64_t)(ua - ub); break;
	case M_MUL: *fr = fa * fb; *ir = (int64_t)(ua * ub); break;
	case M_DIV:
		if (!fl && (ib == 0 || (ib == -1 && (ia == INT64_MIN ||
		    ia == INT32_MIN))))
			return 0;
		*fr = fa / fb;
		*ir = fl ? 0 : ia / ib;  /* C truncates, as ONNX does */
		break;
	case M_ABS: *fr = fabs(fa); *ir = ia < 0 ? (int64_t)(0 - (uint64_t)ia)
	    : ia; break;
	case M_NEG: *fr = -fa; *ir = (int64_t)(0 - (uint64_t)ia); break;
	case M_NOT: *ir = !ia; break;
	case M_LOG: *fr = log(fa); break;
	case M_MIN: *fr = isnan(fa) || fa < fb ? fa : fb;
		*ir = ia < ib ? ia : ib; break;
	case M_MAX: *fr = isnan(fa) || fa > fb ? fa : fb;
		*ir = ia > ib ? ia : ib; break;
	case M_AND: *ir = ia && ib; break;
	case M_OR: *ir = ia || ib; break;
	case M_XOR: *ir = !ia != !ib; break;
	case M_EQ: *ir = fl ? fa == fb : ia == ib; break;
	case M_LT: *ir = fl ? fa < fb : ia < ib; break;
	case M_GT: *ir = fl ? fa > fb : ia > ib; break;
	case M_LE: *ir = fl ? fa <= fb : ia <= ib; break;
	case M_GE: *ir = fl ? fa >= fb : ia >= ib; break;
	}
	return 1;
}

/* The elementwise ops, Where and Expand. */
static int
elementwise(Fold *f, int op, Ten *in, int nin, Ten *r)
{
	uint32_t dt = in[0].dt;
	int64_t dims[MAXRANK];
	Bc b;
	if (op == M_EXPAND) {
		/* the shape is an operand of that shape whose data is unread */
		int k = in[1].dt == ONNXC_DT_I64 && in[1].rank == 1 &&
		    in[1].numel <= MAXRANK ? (int)in[1].numel : -1;
		for (int i = 0; i < k; i++)
			if ((dims[i] = fold_geti(&in[1], (uint64_t)i)) < 0)
				return SKIP;
		if (k < 0)
			return SKIP;
		in[1] = (Ten){.dt = dt, .rank = k, .data = NULL,
		    .numel = fold_numel(k, dims)};
		memcpy(in[1].dims, dims, sizeof dims);
	}
	if (op == M_WHERE) {
		dt = in[1].dt;
		if (in[0].dt != ONNXC_DT_BOOL || in[2].dt != dt)
			return SKIP;
	} else if (nin == 2 && op != M_EXPAND && in[1].dt != dt) {
		return SKIP;
	}
	if (!numeric(dt) || ((op == M_AND || op == M_OR || op == M_XOR ||
	    op == M_NOT) && dt != ONNXC_DT_BOOL) || (op == M_LOG &&
	    !isfloat(dt)) || ((op == M_ABS || op == M_NEG ||
	    (op >= M_ADD && op <= M_DIV)) && dt == ONNXC_DT_BOOL))
		return SKIP;
	uint32_t rdt = op >= M_EQ && op <= M_GE ? ONNXC_DT_BOOL : dt;
	int s = bcast(f, in, nin, rdt, r, &b);
	if (s != DONE)
		return s;
	int fl = isfloat(dt);
	for (uint64_t k = 0; k < r->numel; k++, next(&b, r)) {
		double fv = 0;
		int64_t iv = 0;
		if (op == M_WHERE) {
			const Ten *src = fold_geti(&in[0], b.off[0]) ? &in[1] :
			    &in[2];
			uint64_t o = b.off[src == &in[1] ? 1 : 2];
			fv = fl ? getf(src, o) : 0;
			iv = fl ? 0 : fold_geti(src, o);
		} else if (op == M_EXPAND) {
			fv = fl ? getf(&in[0], b.off[0]) : 0;
			iv = fl ? 0 : fold_geti(&in[0], b.off[0]);
		} else {
			int two = nin > 1;
			if (!apply(op, fl, fl ? getf(&in[0], b.off[0]) : 0,
			    fl && two ? getf(&in[1], b.off[1]) : 0,
			    fl ? 0 : fold_geti(&in[0], b.off[0]),
			    !fl && two ? fold_geti(&in[1], b.off[1]) : 0, &fv, &iv))
				return SKIP;
		}
		put(r, k, fv, iv);
	}
	return DONE;
}

/* Gather(x, indices, axis): indices of i64 or i32, negative ones counting
 * from the end; one out of range leaves the node to ONNX Runtime's error. */
static int
gather(Fold *f, const Ten *x, const Ten *idx, int64_t axis, Ten *r)
{
	int64_t dims[MAXRANK];
	int rank = x->rank - 1 + idx->rank;
	axis += axis < 0 ? x->rank : 0;
	if (axis < 0 || axis >= x->rank || rank > MAXRANK ||
	    (idx->dt != ONNXC_DT_I64 && idx->dt != ONNXC_DT_I32))
		return SKIP;
	int n = 0;
	for (int i = 0; i < axis; i++)
		dims[n++] = x->dims[i];
	for (int i = 0; i < idx->rank; i++)
		dims[n++] = idx->dims[i];
	for (int i = (int)axis + 1; i < x->rank; i++)
		dims[n++] = x->dims[i];
	if (fold_shape(f, r, x->dt, rank, dims) != DONE || (r->numel > GROW &&
	    r->numel > x->numel && r->numel > idx->numel))
		return SKIP;
	uint64_t outer = fold_numel((int)axis, x->dims);
	uint64_t inner = fold_numel(x->rank - (int)axis - 1,
	    x->dims + axis + 1);
	int64_t len = x->dims[axis];
	for (uint64_t j = 0; j < idx->numel; j++) {
		int64_t i = fold_geti(idx, j);
		if (i < -len || i >= len)
			return SKIP;
	}
	if (fold_storage(f, r) != DONE)
		return FAIL;
	size_t es = fold_elsize(x->dt), blk = (size_t)inner * es;
	unsigned char *out = r->own;
	const unsigned char *src = x->data;
	for (uint64_t o = 0; o < outer; o++)
		for (uint64_t j = 0; j < idx->numel; j++) {
			int64_t i = fold_geti(idx, j);
			i += i < 0 ? len : 0;
			memcpy(out, src + (o * (uint64_t)len + (uint64_t)i) *
			    blk, blk);
			out += blk;
		}
	return DONE;
}

/* Range of int64 or int32 scalars. */
static int
range(Fold *f, const Ten *in, Ten *r)
{
	uint32_t dt = in[0].dt;
	for (int i = 0; i < 3; i++)
		if (in[i].dt != dt || in[i].numel != 1 ||
		    (dt != ONNXC_DT_I64 && dt != ONNXC_DT_I32))
			return SKIP;
	int64_t start = fold_geti(&in[0], 0), limit = fold_geti(&in[1], 0);
	int64_t delta = fold_geti(&in[2], 0);
	const int64_t lim = INT64_MAX / 4;  /* no overflow below */
	if (delta == 0 || start > lim || start < -lim || limit > lim ||
	    limit < -lim)
		return SKIP;
	int64_t span = limit - start, n = span / delta;
	n += n * delta != span && (span > 0) == (delta > 0);
	n = n < 0 ? 0 : n;
	if (fold_shape(f, r, dt, 1, &n) != DONE || (r->numel > GROW))
		return SKIP;
	if (fold_storage(f, r) != DONE)
		return FAIL;
	for (int64_t k = 0; k < n; k++)
		put(r, (uint64_t)k, 0, start + k * delta);
	return DONE;
}

int
fold_onnx_math(Fold *f, const char *op, onnxc_node n,
    const onnxc_node_info *ni, Ten *r)
{
	Ten in[MAXIN] = {{0}};
	onnxc_arg a;
	if (strcmp(op, "Range") == 0 || strcmp(op, "Gather") == 0) {
		int nin = op[0] == 'R' ? 3 : 2;
		for (int i = 0; i < nin; i++)
			if (ni->npos != (uint32_t)nin ||
			    !fold_onnx_input(f, n, ni, (uint32_t)i, &in[i]))
				return SKIP;
		if (nin == 3)
			return range(f, in, r);
		int64_t axis = fold_onnx_attr(f, n, ni, "axis", &a) &&
		    a.kind == ONNXC_ARG_INT ? a.i : 0;
		return gather(f, &in[0], &in[1], axis, r);
	}
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
		if (strcmp(op, ops[i].name) != 0)
			continue;
		if (ni->npos != (uint32_t)ops[i].nin)
			return SKIP;
		for (int k = 0; k < ops[i].nin; k++)
			if (!fold_onnx_input(f, n, ni, (uint32_t)k, &in[k]))
				return SKIP;
		return elementwise(f, ops[i].op, in, ops[i].nin, r);
	}
	return SKIP;
}
