/* fold.c - pass "fold": evaluates cheap, exact computations on constants.
 *
 * Requires: the current graph in program order, FX nodes as parsed or ONNX
 * nodes after "lower".  Option max-size: the most elements a folded result
 * may have.
 * Provides, on the FX graph: nodes whose tensor operands are all constants
 * (bound parameters, buffers and lifted constants, or results folded
 * before) are evaluated and erased; the results that something else still
 * uses become constant graph inputs named after the node.  Only results
 * that need them get inputs: a chain permute -> view makes one.  A copy
 * of a constant input (clone, detach, lift_fresh_copy...) is replaced by
 * that input itself.  SymInt arithmetic on numbers (and sizes that the
 * annotations fix) gives its result as a number on the value (its
 * expression), which the lowering turns into a constant.
 * On the ONNX graph: Identity, Cast, Reshape, Unsqueeze, Squeeze,
 * Transpose and Concat of constants (Constant nodes, initializers), and
 * Shape of a value whose shape is static, become Constant nodes; the nodes
 * that fed them are left to dce.
 *
 * What is folded is computed exactly as PyTorch and ONNX Runtime do:
 * data movement, casts between f32/f64/i64/i32/bool, and + - * / on
 * operands of one dtype (f32, f64; i64 without /).  Nothing else.
 * Never folded: nodes reading user inputs' data, results that are graph
 * outputs (their names are the model's interface), results bigger than
 * max-size, and under --training anything computed from parameters or
 * buffers: they change while training.
 *
 * One forward sweep; linear in the graph and the folded data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>

enum { MAXRANK = 8, MAXDEPTH = 64 };

/* A constant: an operand (data borrowed) or a result (data in own, or
 * shared with an operand). */
typedef struct Ten {
	uint32_t dt;
	int rank;
	int64_t dims[MAXRANK];
	uint64_t numel;
	const void *data;
	void *own;
	onnxc_value same;  /* a constant input holding exactly this */
} Ten;

typedef struct Fold {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	int64_t maxsize;
	int training;
	uint32_t nvals, end;
	Ten **known;         /* per value: FX result folded here */
	uint32_t *uses;      /* per value: uses by args and graph outputs */
	uint32_t *folduses;  /* per value: uses by folded nodes */
	uint8_t *isout;      /* per value: a graph output */
	uint8_t *folded;     /* per node */
	onnxc_value *repl;   /* per value: what replaces it, or 0 */
	uint32_t nrepl;      /* values with a replacement */
	onnxc_str s_constant, s_value;
	int hostfail;        /* a host call that should work did not */
} Fold;

/* Outcome of evaluating one node. */
enum { SKIP = 0, DONE = 1, FAIL = -1 };

/* ------------------------------------------------------------ tensors */

static size_t
elsize(uint32_t dt)
{
	switch (dt) {
	case ONNXC_DT_U8: case ONNXC_DT_I8: case ONNXC_DT_BOOL:
		return 1;
	case ONNXC_DT_U16: case ONNXC_DT_I16: case ONNXC_DT_F16:
	case ONNXC_DT_BF16:
		return 2;
	case ONNXC_DT_F32: case ONNXC_DT_I32: case ONNXC_DT_U32:
		return 4;
	case ONNXC_DT_F64: case ONNXC_DT_I64: case ONNXC_DT_U64:
		return 8;
	default:
		return 0; /* strings, sub-byte types: not ours to move */
	}
}

/* numel of dims, or UINT64_MAX when negative or absurdly large */
static uint64_t
numel(int rank, const int64_t *dims)
{
	uint64_t n = 1;
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0 || (dims[i] && n > (UINT64_C(1) << 40) /
		    (uint64_t)dims[i]))
			return UINT64_MAX;
		n *= (uint64_t)dims[i];
	}
	return n;
}

static void
strides(const Ten *x, int64_t *st)
{
	int64_t s = 1;
	for (int i = x->rank - 1; i >= 0; i--) {
		st[i] = s;
		s *= x->dims[i];
	}
}

/* Set r's shape and check the size limit; SKIP when too big. */
static int
shape(Fold *f, Ten *r, uint32_t dt, int rank, const int64_t *dims)
{
	if (rank < 0 || rank > MAXRANK)
		return SKIP;
	r->dt = dt;
	r->rank = rank;
	for (int i = 0; i < rank; i++)
		r->dims[i] = dims[i];
	r->numel = numel(rank, dims);
	return r->numel <= (uint64_t)f->maxsize ? DONE : SKIP;
}

/* Give r its own zeroed storage. */
static int
storage(Fold *f, Ten *r)
{
	size_t n = (size_t)r->numel * elsize(r->dt);
	r->own = calloc(n ? n : 1, 1);
	if (!r->own) {
		f->hostfail = 1;
		return FAIL;
	}
	r->data = r->own;
	return DONE;
}

/* r is x under another shape: the data is shared. */
static int
reshape(Fold *f, const Ten *x, Ten *r, int rank, const int64_t *dims)
{
	int s = shape(f, r, x->dt, rank, dims);
	if (s != DONE || r->numel != x->numel)
		return SKIP;
	r->data = x->data;
	return DONE;
}

/* Steps through the elements of a result in order, keeping the offsets
 * of the matching elements of up to two operands. */
typedef struct Iter {
	int rank;
	const int64_t *dims;
	int64_t idx[MAXRANK];
	int64_t st[2][MAXRANK];
	int64_t off[2];
} Iter;

static void
step(Iter *it)
{
	for (int d = it->rank - 1; d >= 0; d--) {
		it->off[0] += it->st[0][d];
		it->off[1] += it->st[1][d];
		if (++it->idx[d] < it->dims[d])
			return;
		it->off[0] -= it->st[0][d] * it->dims[d];
		it->off[1] -= it->st[1][d] * it->dims[d];
		it->idx[d] = 0;
	}
}

/* Element k of r (shape already set) is element base + sum idx*st of x. */
static int
gather(Fold *f, const Ten *x, Ten *r, const int64_t *st, int64_t base)
{
	if (storage(f, r) != DONE)
		return FAIL;
	size_t es = elsize(x->dt);
	Iter it = {.rank = r->rank, .dims = r->dims, .off = {base, 0}};
	memcpy(it.st[0], st, sizeof(int64_t) * (size_t)r->rank);
	unsigned char *out = r->own;
	const unsigned char *in = x->data;
	for (uint64_t k = 0; k < r->numel; k++, step(&it))
		memcpy(out + k * es, in + (size_t)it.off[0] * es, es);
	return DONE;
}

static int
permute(Fold *f, const Ten *x, Ten *r, const int64_t *perm, int n)
{
	int64_t st[MAXRANK], dims[MAXRANK], pst[MAXRANK];
	int seen[MAXRANK] = {0};
	if (n != x->rank)
		return SKIP;
	strides(x, st);
	for (int i = 0; i < n; i++) {
		int64_t p = perm[i] < 0 ? perm[i] + n : perm[i];
		if (p < 0 || p >= n || seen[p]++)
			return SKIP;
		dims[i] = x->dims[p];
		pst[i] = st[p];
	}
	if (shape(f, r, x->dt, n, dims) != DONE)
		return SKIP;
	return gather(f, x, r, pst, 0);
}

/* Along dim d, elements start, start+step, ... (count of them); count 1
 * with keep == 0 drops the dim (select). */
static int
slice(Fold *f, const Ten *x, Ten *r, int d, int64_t start, int64_t stp,
    int64_t count, int keep)
{
	int64_t st[MAXRANK], dims[MAXRANK], rst[MAXRANK];
	int n = 0;
	strides(x, st);
	for (int i = 0; i < x->rank; i++) {
		if (i == d && !keep)
			continue;
		dims[n] = i == d ? count : x->dims[i];
		rst[n++] = i == d ? st[i] * stp : st[i];
	}
	if (shape(f, r, x->dt, n, dims) != DONE)
		return SKIP;
	return gather(f, x, r, rst, start * st[d]);
}

/* ONNX/numpy broadcasting of two shapes into r's shape. */
static int
broadcast(Fold *f, const Ten *a, const Ten *b, Ten *r, uint32_t dt,
    Iter *it)
{
	int rank = a->rank > b->rank ? a->rank : b->rank;
	int64_t dims[MAXRANK], sa[MAXRANK], sb[MAXRANK];
	strides(a, sa);
	strides(b, sb);
	for (int i = 0; i < rank; i++) {
		int ia = i - (rank - a->rank), ib = i - (rank - b->rank);
		int64_t da = ia >= 0 ? a->dims[ia] : 1;
		int64_t db = ib >= 0 ? b->dims[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return SKIP;
		dims[i] = da == 1 ? db : da;
		it->st[0][i] = ia >= 0 && da == dims[i] ? sa[ia] : 0;
		it->st[1][i] = ib >= 0 && db == dims[i] ? sb[ib] : 0;
	}
	if (shape(f, r, dt, rank, dims) != DONE)
		return SKIP;
	it->rank = rank;
	it->dims = r->dims;
	return storage(f, r);
}

/* Casts between f32, f64, i64, i32 and bool, as static_cast does; a
 * float out of an integer type's range is left alone (C leaves it
 * undefined, and so does PyTorch). */
static int
cast(Fold *f, const Ten *x, Ten *r, uint32_t to)
{
	static const uint32_t ok[] = {ONNXC_DT_F32, ONNXC_DT_F64,
	    ONNXC_DT_I64, ONNXC_DT_I32, ONNXC_DT_BOOL};
	int a = 0, b = 0;
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		a |= x->dt == ok[i];
		b |= to == ok[i];
	}
	if (!a || !b)
		return SKIP;
	if (shape(f, r, to, x->rank, x->dims) != DONE)
		return SKIP;
	if (x->dt == to) {
		r->data = x->data;
		r->same = x->same;
		return DONE;
	}
	if (storage(f, r) != DONE)
		return FAIL;
	const unsigned char *in = x->data;
	unsigned char *out = r->own;
	size_t ei = elsize(x->dt), eo = elsize(to);
	for (uint64_t k = 0; k < x->numel; k++) {
		double d = 0;
		int64_t v = 0;
		int isf = x->dt == ONNXC_DT_F32 || x->dt == ONNXC_DT_F64;
		if (x->dt == ONNXC_DT_F32) {
			float t;
			memcpy(&t, in + k * ei, 4);
			d = t;
		} else if (x->dt == ONNXC_DT_F64) {
			memcpy(&d, in + k * ei, 8);
		} else if (x->dt == ONNXC_DT_I64) {
			memcpy(&v, in + k * ei, 8);
		} else if (x->dt == ONNXC_DT_I32) {
			int32_t t;
			memcpy(&t, in + k * ei, 4);
			v = t;
		} else {
			v = in[k] != 0;
		}
		unsigned char *p = out + k * eo;
		if (to == ONNXC_DT_F32) {
			float t = isf ? (float)d : (float)v;
			memcpy(p, &t, 4);
		} else if (to == ONNXC_DT_F64) {
			double t = isf ? d : (double)v;
			memcpy(p, &t, 8);
		} else if (to == ONNXC_DT_BOOL) {
			*p = isf ? d != 0 || isnan(d) : v != 0;
		} else if (to == ONNXC_DT_I64) {
			if (isf && !(d >= -9223372036854775808.0 &&
			    d < 9223372036854775808.0))
				return SKIP;
			int64_t t = isf ? (int64_t)d : v;
			memcpy(p, &t, 8);
		} else {
			if (isf && !(d > -2147483649.0 && d < 2147483648.0))
				return SKIP;
			/* int64 -> int32 wraps, as in PyTorch */
			uint32_t u = isf ? (uint32_t)(int32_t)d : (uint32_t)v;
			memcpy(p, &u, 4);
		}
	}
	return DONE;
}

enum { ADD, SUB, MUL, DIV, NEG };

/* a op b on one dtype; b may be NULL for a scalar s (in a's dtype).
 * Floats round once per operation, as IEEE arithmetic does in PyTorch and
 * ONNX Runtime; int64 wraps. */
static int
arith(Fold *f, int op, const Ten *a, const Ten *b, double sf, int64_t si,
    Ten *r)
{
	uint32_t dt = a->dt;
	Ten sc = {.dt = dt, .rank = 0, .numel = 1};
	unsigned char sbuf[8];
	if (dt != ONNXC_DT_F32 && dt != ONNXC_DT_F64 && dt != ONNXC_DT_I64)
		return SKIP;
	if (op == DIV && dt == ONNXC_DT_I64)
		return SKIP; /* true division: a float result */
	if (!b) {
		if (dt == ONNXC_DT_F32) {
			float t = (float)sf;
			memcpy(sbuf, &t, 4);
		} else if (dt == ONNXC_DT_F64) {
			memcpy(sbuf, &sf, 8);
		} else {
			memcpy(sbuf, &si, 8);
		}
		sc.data = sbuf;
		b = &sc;
	}
	if (b->dt != dt)
		return SKIP;
	Iter it = {0};
	int s = broadcast(f, a, b, r, dt, &it);
	if (s != DONE)
		return s;
	const unsigned char *pa = a->data, *pb = b->data;
	unsigned char *out = r->own;
	size_t es = elsize(dt);
	for (uint64_t k = 0; k < r->numel; k++, step(&it)) {
		const unsigned char *xa = pa + (size_t)it.off[0] * es;
		const unsigned char *xb = pb + (size_t)it.off[1] * es;
		if (dt == ONNXC_DT_F32) {
			float x, y, z;
			memcpy(&x, xa, 4);
			memcpy(&y, xb, 4);
			z = op == ADD ? x + y : op == SUB ? x - y
			    : op == MUL ? x * y : op == DIV ? x / y : -x;
			memcpy(out + k * 4, &z, 4);
		} else if (dt == ONNXC_DT_F64) {
			double x, y, z;
			memcpy(&x, xa, 8);
			memcpy(&y, xb, 8);
			z = op == ADD ? x + y : op == SUB ? x - y
			    : op == MUL ? x * y : op == DIV ? x / y : -x;
			memcpy(out + k * 8, &z, 8);
		} else {
			uint64_t x, y, z;
			memcpy(&x, xa, 8);
			memcpy(&y, xb, 8);
			z = op == ADD ? x + y : op == SUB ? x - y
			    : op == MUL ? x * y : 0 - x;
			memcpy(out + k * 8, &z, 8);
		}
	}
	return DONE;
}

/* Inputs of the same dtype and rank, dims equal except along d. */
static int
concat(Fold *f, const Ten *in, int n, int64_t d, Ten *r)
{
	int64_t dims[MAXRANK];
	if (n < 1 || in[0].rank < 1)
		return SKIP;
	int rank = in[0].rank;
	if (d < 0)
		d += rank;
	if (d < 0 || d >= rank)
		return SKIP;
	memcpy(dims, in[0].dims, sizeof dims);
	dims[d] = 0;
	for (int i = 0; i < n; i++) {
		if (in[i].dt != in[0].dt || in[i].rank != rank)
			return SKIP;
		for (int k = 0; k < rank; k++)
			if (k != d && in[i].dims[k] != dims[k])
				return SKIP;
		dims[d] += in[i].dims[d];
	}
	if (shape(f, r, in[0].dt, rank, dims) != DONE)
		return SKIP;
	if (storage(f, r) != DONE)
		return FAIL;
	uint64_t outer = numel((int)d, dims), inner = numel(rank - (int)d - 1,
	    dims + d + 1);
	size_t es = elsize(r->dt);
	unsigned char *out = r->own;
	for (uint64_t o = 0; o < outer; o++)
		for (int i = 0; i < n; i++) {
			size_t blk = (size_t)(in[i].dims[d] * inner) * es;
			memcpy(out, (const unsigned char *)in[i].data + o * blk,
			    blk);
			out += blk;
		}
	return DONE;
}

/* Normalise dim d of a rank-n tensor (0-d tensors take dims 0 and -1). */
static int
wrapdim(int64_t d, int n, int *out)
{
	int m = n ? n : 1;
	if (d < -m || d >= m)
		return 0;
	*out = (int)(d < 0 ? d + m : d);
	return 1;
}

/* -------------------------------------------------------- host access */

static int
tensor_of(Fold *f, onnxc_tensor t, Ten *out)
{
	onnxc_tensor_info ti;
	if (f->h->tensor_get(f->ctx, t, &ti) != ONNXC_OK)
		return 0;
	if (ti.rank < 0 || ti.rank > MAXRANK || !elsize(ti.dtype))
		return 0;
	*out = (Ten){.dt = ti.dtype, .rank = ti.rank, .data = ti.data};
	for (int i = 0; i < ti.rank; i++)
		out->dims[i] = ti.dims[i];
	out->numel = numel(ti.rank, out->dims);
	return out->numel != UINT64_MAX &&
	    ti.nbytes == out->numel * elsize(ti.dtype) &&
	    (ti.data || !ti.nbytes);
}

/* Keyed argument (ONNX attribute, FX kwarg) named key. */
static int
keyed(Fold *f, onnxc_node n, const onnxc_node_info *ni, onnxc_str key,
    onnxc_arg *a)
{
	for (uint32_t i = ni->npos; i < ni->nargs; i++)
		if (f->h->node_arg(f->ctx, f->g, n, i, a) == ONNXC_OK &&
		    a->key == key)
			return 1;
	return 0;
}

/* Positional pos, else keyword key; 0 when absent. */
static int
arg_at(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, onnxc_arg *a)
{
	if (pos >= 0 && (uint32_t)pos < ni->npos)
		return f->h->node_arg(f->ctx, f->g, n, (uint32_t)pos, a) ==
		    ONNXC_OK;
	return key && keyed(f, n, ni, f->h->intern(f->ctx, key), a);
}

/* The constant behind value v: a folded result, a bound weight (not a
 * parameter or buffer under --training), or an ONNX Constant. */
static int
constant(Fold *f, onnxc_value v, Ten *out)
{
	onnxc_value_info vi;
	if (v < f->nvals && f->known[v]) {
		*out = *f->known[v];
		out->own = NULL;
		return 1;
	}
	if (f->h->value_get(f->ctx, f->g, v, &vi) != ONNXC_OK)
		return 0;
	if (!vi.def) {
		if (!vi.init || vi.role == ONNXC_ROLE_USER_INPUT)
			return 0;
		if (f->training && vi.role != ONNXC_ROLE_CONST)
			return 0;
		if (!tensor_of(f, vi.init, out))
			return 0;
		out->same = v;
		return 1;
	}
	onnxc_node_info ni;
	onnxc_arg a;
	if (f->h->node_get(f->ctx, f->g, vi.def, &ni) != ONNXC_OK ||
	    ni.dialect != ONNXC_ONNX || ni.op != f->s_constant ||
	    !keyed(f, vi.def, &ni, f->s_value, &a) ||
	    a.kind != ONNXC_ARG_TENSOR)
		return 0;
	return tensor_of(f, a.ref, out);
}

static int
arg_const(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, Ten *out)
{
	onnxc_arg a;
	return arg_at(f, n, ni, pos, key, &a) && a.kind == ONNXC_ARG_VALUE &&
	    constant(f, a.ref, out);
}

/* A literal int, or a SymInt the annotations fix (not a user input). */
static int
as_int(Fold *f, const onnxc_arg *a, int64_t *out)
{
	onnxc_value_info vi;
	onnxc_expr_info e;
	if (a->kind == ONNXC_ARG_INT || a->kind == ONNXC_ARG_BOOL) {
		*out = a->i;
		return 1;
	}
	if (a->kind != ONNXC_ARG_VALUE ||
	    f->h->value_get(f->ctx, f->g, a->ref, &vi) != ONNXC_OK ||
	    vi.kind != ONNXC_VK_SYMINT || vi.role == ONNXC_ROLE_USER_INPUT ||
	    !vi.sym || f->h->expr_get(f->ctx, vi.sym, &e) != ONNXC_OK ||
	    e.kind != ONNXC_E_INT)
		return 0;
	*out = e.n;
	return 1;
}

/* An int argument; absent or None gives dflt.  0 when not static. */
static int
arg_int(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, int64_t dflt, int64_t *out)
{
	onnxc_arg a;
	if (!arg_at(f, n, ni, pos, key, &a) || a.kind == ONNXC_ARG_NONE) {
		*out = dflt;
		return 1;
	}
	return as_int(f, &a, out);
}

/* A static int list (a lone int counts as [int]) from an argument, or
 * from a 1-D i64 constant; its length, or -1. */
static int
ints(Fold *f, const onnxc_arg *a, int64_t *out, int cap)
{
	if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
		return cap >= 1 && as_int(f, a, out) ? 1 : -1;
	if (a->len > (uint32_t)cap)
		return -1;
	for (uint32_t i = 0; i < a->len; i++) {
		onnxc_arg it;
		if (f->h->list_item(f->ctx, f->g, a, i, &it) != ONNXC_OK ||
		    !as_int(f, &it, &out[i]))
			return -1;
	}
	return (int)a->len;
}

static int
arg_ints(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, int64_t *out, int cap)
{
	onnxc_arg a;
	if (!arg_at(f, n, ni, pos, key, &a))
		return -1;
	return ints(f, &a, out, cap);
}

static int
i64s(const Ten *t, int64_t *out, int cap)
{
	if (t->dt != ONNXC_DT_I64 || t->rank != 1 || t->dims[0] > cap)
		return -1;
	memcpy(out, t->data, (size_t)t->numel * 8);
	return (int)t->numel;
}

/* ------------------------------------------------------------ FX ops */

enum {
	FX_PERMUTE, FX_TRANSPOSE, FX_T, FX_VIEW, FX_UNSQUEEZE, FX_SQUEEZE,
	FX_SQUEEZE_DIM, FX_SQUEEZE_DIMS, FX_FLATTEN, FX_COPY, FX_TO_COPY,
	FX_TO_DTYPE, FX_EXPAND, FX_CAT, FX_SLICE, FX_SELECT, FX_NEG, FX_ADD,
	FX_SUB, FX_MUL, FX_DIV,
	/* SymInt results */
	FX_SYM_ADD, FX_SYM_SUB, FX_SYM_MUL, FX_SYM_FLOORDIV, FX_SYM_MOD,
	FX_SYM_NEG, FX_SYM_MAX, FX_SYM_MIN, FX_SYM_SIZE, FX_SYM_NUMEL
};

static const struct {
	const char *name;
	int op;
} fxops[] = {
	{"aten::permute.default", FX_PERMUTE},
	{"aten::transpose.int", FX_TRANSPOSE},
	{"aten::t.default", FX_T},
	{"aten::view.default", FX_VIEW},
	{"aten::_unsafe_view.default", FX_VIEW},
	{"aten::reshape.default", FX_VIEW},
	{"aten::unsqueeze.default", FX_UNSQUEEZE},
	{"aten::squeeze.default", FX_SQUEEZE},
	{"aten::squeeze.dim", FX_SQUEEZE_DIM},
	{"aten::squeeze.dims", FX_SQUEEZE_DIMS},
	{"aten::flatten.using_ints", FX_FLATTEN},
	{"aten::clone.default", FX_COPY},
	{"aten::contiguous.default", FX_COPY},
	{"aten::detach.default", FX_COPY},
	{"aten::alias.default", FX_COPY},
	{"aten::lift_fresh_copy.default", FX_COPY},
	{"aten::_to_copy.default", FX_TO_COPY},
	{"aten::to.dtype", FX_TO_DTYPE},
	{"aten::to.dtype_layout", FX_TO_COPY},
	{"aten::expand.default", FX_EXPAND},
	{"aten::cat.default", FX_CAT},
	{"aten::slice.Tensor", FX_SLICE},
	{"aten::select.int", FX_SELECT},
	{"aten::neg.default", FX_NEG},
	{"aten::add.Tensor", FX_ADD},
	{"aten::add.Scalar", FX_ADD},
	{"aten::sub.Tensor", FX_SUB},
	{"aten::sub.Scalar", FX_SUB},
	{"aten::mul.Tensor", FX_MUL},
	{"aten::mul.Scalar", FX_MUL},
	{"aten::div.Tensor", FX_DIV},
	{"aten::div.Scalar", FX_DIV},
	{"_operator::add", FX_SYM_ADD},
	{"_operator::sub", FX_SYM_SUB},
	{"_operator::mul", FX_SYM_MUL},
	{"_operator::floordiv", FX_SYM_FLOORDIV},
	{"_operator::mod", FX_SYM_MOD},
	{"_operator::neg", FX_SYM_NEG},
	{"torch::sym_max", FX_SYM_MAX},
	{"torch::sym_min", FX_SYM_MIN},
	{"aten::sym_size.int", FX_SYM_SIZE},
	{"aten::sym_numel.default", FX_SYM_NUMEL},
};

/* view/reshape sizes: one -1 takes what is left */
static int
view_dims(const Ten *x, int64_t *dims, int n)
{
	int infer = -1;
	uint64_t known = 1;
	for (int i = 0; i < n; i++) {
		if (dims[i] == -1 && infer < 0)
			infer = i;
		else if (dims[i] < 0)
			return 0;
		else
			known *= (uint64_t)dims[i];
	}
	if (infer >= 0) {
		if (known == 0 || x->numel % known)
			return 0;
		dims[infer] = (int64_t)(x->numel / known);
	}
	return 1;
}

static int
fx_shape_op(Fold *f, int op, onnxc_node n, const onnxc_node_info *ni,
    const Ten *x, Ten *r)
{
	int64_t v[MAXRANK + 1], dims[MAXRANK + 1];
	int k = 0, d, e;
	switch (op) {
	case FX_VIEW:
		k = arg_ints(f, n, ni, 1, "size", v, MAXRANK);
		if (k < 0) /* reshape names it "shape" */
			k = arg_ints(f, n, ni, 1, "shape", v, MAXRANK);
		if (k < 0 || !view_dims(x, v, k))
			return SKIP;
		return reshape(f, x, r, k, v);
	case FX_UNSQUEEZE:
		if (!arg_int(f, n, ni, 1, "dim", 0, &v[0]) ||
		    x->rank >= MAXRANK || !wrapdim(v[0], x->rank + 1, &d))
			return SKIP;
		for (int i = 0, j = 0; i <= x->rank; i++)
			dims[i] = i == d ? 1 : x->dims[j++];
		return reshape(f, x, r, x->rank + 1, dims);
	case FX_SQUEEZE:
	case FX_SQUEEZE_DIM:
	case FX_SQUEEZE_DIMS: {
		int drop[MAXRANK] = {0};
		if (op == FX_SQUEEZE_DIM)
			k = arg_ints(f, n, ni, 1, "dim", v, 1);
		else if (op == FX_SQUEEZE_DIMS)
			k = arg_ints(f, n, ni, 1, "dim", v, MAXRANK);
		for (int i = 0; op == FX_SQUEEZE && i < x->rank; i++)
			drop[i] = x->dims[i] == 1;
		if (op != FX_SQUEEZE && k < 0)
			return SKIP;
		for (int i = 0; op != FX_SQUEEZE && i < k; i++) {
			if (!wrapdim(v[i], x->rank, &d))
				return SKIP;
			drop[d] = d < x->rank && x->dims[d] == 1;
		}
		k = 0;
		for (int i = 0; i < x->rank; i++)
			if (!drop[i])
				dims[k++] = x->dims[i];
		return reshape(f, x, r, k, dims);
	}
	case FX_FLATTEN: {
		int64_t s, t;
		if (!arg_int(f, n, ni, 1, "start_dim", 0, &s) ||
		    !arg_int(f, n, ni, 2, "end_dim", -1, &t) ||
		    !wrapdim(s, x->rank, &d) || !wrapdim(t, x->rank, &e) ||
		    d > e)
			return SKIP;
		if (x->rank == 0) {
			dims[0] = 1;
			return reshape(f, x, r, 1, dims);
		}
		for (int i = 0; i < d; i++)
			dims[k++] = x->dims[i];
		dims[k++] = (int64_t)numel(e - d + 1, x->dims + d);
		for (int i = e + 1; i < x->rank; i++)
			dims[k++] = x->dims[i];
		return reshape(f, x, r, k, dims);
	}
	default:
		return SKIP;
	}
}

/* r is x itself: the same data and shape */
static int
copy(Fold *f, const Ten *x, Ten *r)
{
	if (shape(f, r, x->dt, x->rank, x->dims) != DONE)
		return SKIP;
	r->data = x->data;
	r->same = x->same;
	return DONE;
}

static int
fx_expand(Fold *f, onnxc_node n, const onnxc_node_info *ni, const Ten *x,
    Ten *r)
{
	int64_t v[MAXRANK], st[MAXRANK], rst[MAXRANK], dims[MAXRANK];
	int k = arg_ints(f, n, ni, 1, "size", v, MAXRANK);
	if (k < x->rank)
		return SKIP;
	strides(x, st);
	for (int i = 0; i < k; i++) {
		int j = i - (k - x->rank);
		if (j < 0 && v[i] >= 0) {
			dims[i] = v[i];
			rst[i] = 0;
		} else if (j >= 0 && (v[i] == -1 || v[i] == x->dims[j])) {
			dims[i] = x->dims[j];
			rst[i] = st[j];
		} else if (j >= 0 && x->dims[j] == 1 && v[i] >= 0) {
			dims[i] = v[i];
			rst[i] = 0;
		} else {
			return SKIP;
		}
	}
	if (shape(f, r, x->dt, k, dims) != DONE)
		return SKIP;
	return gather(f, x, r, rst, 0);
}

static int
fx_slice(Fold *f, onnxc_node n, const onnxc_node_info *ni, const Ten *x,
    Ten *r)
{
	int64_t dim, start, end, stp;
	int d;
	if (!arg_int(f, n, ni, 1, "dim", 0, &dim) ||
	    !arg_int(f, n, ni, 2, "start", 0, &start) ||
	    !arg_int(f, n, ni, 3, "end", INT64_MAX, &end) ||
	    !arg_int(f, n, ni, 4, "step", 1, &stp) || stp <= 0 ||
	    x->rank == 0 || !wrapdim(dim, x->rank, &d))
		return SKIP;
	int64_t size = x->dims[d];
	if (start < 0)
		start += size;
	if (end < 0)
		end += size;
	start = start < 0 ? 0 : start > size ? size : start;
	end = end < start ? start : end > size ? size : end;
	int64_t count = end == start ? 0 : (end - start - 1) / stp + 1;
	return slice(f, x, r, d, start, stp, count, 1);
}

static int
fx_select(Fold *f, onnxc_node n, const onnxc_node_info *ni, const Ten *x,
    Ten *r)
{
	int64_t dim, idx;
	int d;
	if (!arg_int(f, n, ni, 1, "dim", 0, &dim) ||
	    !arg_int(f, n, ni, 2, "index", 0, &idx) || x->rank == 0 ||
	    !wrapdim(dim, x->rank, &d))
		return SKIP;
	if (idx < 0)
		idx += x->dims[d];
	if (idx < 0 || idx >= x->dims[d])
		return SKIP;
	return slice(f, x, r, d, idx, 1, 1, 0);
}

static int
fx_cat(Fold *f, onnxc_node n, const onnxc_node_info *ni, Ten *r)
{
	onnxc_arg a, it;
	int64_t dim;
	if (!arg_at(f, n, ni, 0, "tensors", &a) ||
	    (a.kind != ONNXC_ARG_LIST && a.kind != ONNXC_ARG_TUPLE) ||
	    a.len == 0 || !arg_int(f, n, ni, 1, "dim", 0, &dim))
		return SKIP;
	Ten *in = calloc(a.len, sizeof *in);
	if (!in) {
		f->hostfail = 1;
		return FAIL;
	}
	int m = 0, s = SKIP;
	for (uint32_t i = 0; i < a.len; i++) {
		if (f->h->list_item(f->ctx, f->g, &a, i, &it) != ONNXC_OK ||
		    it.kind != ONNXC_ARG_VALUE || !constant(f, it.ref, &in[m]))
			goto out;
		/* torch.cat skips 1-D empty tensors, whatever the rest */
		if (!(in[m].rank == 1 && in[m].dims[0] == 0))
			m++;
	}
	s = concat(f, in, m, dim, r);
out:
	free(in);
	return s;
}

/* + - * / with a tensor or a Python number, one dtype, alpha 1. */
static int
fx_arith(Fold *f, int op, onnxc_node n, const onnxc_node_info *ni,
    const Ten *x, Ten *r)
{
	static const int map[] = {[FX_ADD] = ADD, [FX_SUB] = SUB,
	    [FX_MUL] = MUL, [FX_DIV] = DIV};
	onnxc_arg o, al;
	Ten y;
	int isf = x->dt == ONNXC_DT_F32 || x->dt == ONNXC_DT_F64;
	if (op == FX_NEG)
		return arith(f, NEG, x, x, 0, 0, r);
	if (!arg_at(f, n, ni, 1, "other", &o))
		return SKIP;
	if (arg_at(f, n, ni, 2, "alpha", &al) && al.kind != ONNXC_ARG_NONE &&
	    !(al.kind == ONNXC_ARG_INT && al.i == 1) &&
	    !(al.kind == ONNXC_ARG_FLOAT && al.f == 1.0))
		return SKIP;
	switch (o.kind) {
	case ONNXC_ARG_VALUE:
		if (!constant(f, o.ref, &y))
			return SKIP;
		return arith(f, map[op], x, &y, 0, 0, r);
	case ONNXC_ARG_INT:
		/* an int becomes the tensor's float type: exact up to 2^53 */
		if (isf && (o.i > (INT64_C(1) << 53) ||
		    o.i < -(INT64_C(1) << 53)))
			return SKIP;
		return arith(f, map[op], x, NULL, (double)o.i, o.i, r);
	case ONNXC_ARG_FLOAT:
		return isf ? arith(f, map[op], x, NULL, o.f, 0, r) : SKIP;
	default:
		return SKIP;
	}
}

static int
fx_eval(Fold *f, int op, onnxc_node n, const onnxc_node_info *ni, Ten *r)
{
	Ten x;
	int64_t v[MAXRANK], a, b;
	int d, e, k;
	onnxc_arg dt;
	if (op == FX_CAT)
		return fx_cat(f, n, ni, r);
	if (!arg_const(f, n, ni, 0, "self", &x))
		return SKIP;
	switch (op) {
	case FX_PERMUTE:
		k = arg_ints(f, n, ni, 1, "dims", v, MAXRANK);
		return k < 0 ? SKIP : permute(f, &x, r, v, k);
	case FX_TRANSPOSE:
		if (!arg_int(f, n, ni, 1, "dim0", 0, &a) ||
		    !arg_int(f, n, ni, 2, "dim1", 0, &b) ||
		    !wrapdim(a, x.rank, &d) || !wrapdim(b, x.rank, &e))
			return SKIP;
		if (x.rank < 2)
			return copy(f, &x, r);
		for (int i = 0; i < x.rank; i++)
			v[i] = i == d ? e : i == e ? d : i;
		return permute(f, &x, r, v, x.rank);
	case FX_T:
		if (x.rank < 2)
			return copy(f, &x, r);
		return x.rank == 2 ? permute(f, &x, r, (int64_t[]){1, 0}, 2)
		    : SKIP;
	case FX_VIEW: case FX_UNSQUEEZE: case FX_SQUEEZE: case FX_SQUEEZE_DIM:
	case FX_SQUEEZE_DIMS: case FX_FLATTEN:
		return fx_shape_op(f, op, n, ni, &x, r);
	case FX_COPY:
		return copy(f, &x, r);
	case FX_TO_COPY:
	case FX_TO_DTYPE:
		k = op == FX_TO_DTYPE ? 1 : -1;
		if (!arg_at(f, n, ni, k, "dtype", &dt) ||
		    dt.kind == ONNXC_ARG_NONE)
			return copy(f, &x, r);
		if (dt.kind != ONNXC_ARG_DTYPE)
			return SKIP;
		return cast(f, &x, r, (uint32_t)dt.i);
	case FX_EXPAND:
		return fx_expand(f, n, ni, &x, r);
	case FX_SLICE:
		return fx_slice(f, n, ni, &x, r);
	case FX_SELECT:
		return fx_select(f, n, ni, &x, r);
	case FX_NEG: case FX_ADD: case FX_SUB: case FX_MUL: case FX_DIV:
		return fx_arith(f, op, n, ni, &x, r);
	default:
		return SKIP;
	}
}

/* Python int arithmetic on numbers; SKIP on overflow or division by 0. */
static int
pyint(int op, int64_t x, int64_t y, int64_t *out)
{
	switch (op) {
	case FX_SYM_ADD:
		if ((y > 0 && x > INT64_MAX - y) ||
		    (y < 0 && x < INT64_MIN - y))
			return SKIP;
		*out = x + y;
		return DONE;
	case FX_SYM_SUB:
		if ((y < 0 && x > INT64_MAX + y) ||
		    (y > 0 && x < INT64_MIN + y))
			return SKIP;
		*out = x - y;
		return DONE;
	case FX_SYM_MUL:
		if (x && y && (x > 0 ? (y > 0 ? x > INT64_MAX / y
		    : y < INT64_MIN / x) : (y > 0 ? x < INT64_MIN / y
		    : x < INT64_MAX / y)))
			return SKIP;
		*out = x * y;
		return DONE;
	case FX_SYM_FLOORDIV:
	case FX_SYM_MOD:
		if (y == 0 || (x == INT64_MIN && y == -1))
			return SKIP;
		if (op == FX_SYM_FLOORDIV)
			*out = x / y - (x % y != 0 && (x < 0) != (y < 0));
		else
			*out = x % y +
			    (x % y != 0 && (x < 0) != (y < 0) ? y : 0);
		return DONE;
	case FX_SYM_NEG:
		if (x == INT64_MIN)
			return SKIP;
		*out = -x;
		return DONE;
	case FX_SYM_MAX:
		*out = x > y ? x : y;
		return DONE;
	case FX_SYM_MIN:
		*out = x < y ? x : y;
		return DONE;
	default:
		return SKIP;
	}
}

/* The number a SymInt node computes, from numbers or static sizes.  The
 * size of a user input counts: it is fixed by the annotation, not read
 * from the data. */
static int
fx_symint(Fold *f, int op, onnxc_node n, const onnxc_node_info *ni,
    int64_t *out)
{
	onnxc_arg a;
	onnxc_value_info vi;
	onnxc_dim dims[MAXRANK];
	int64_t x, y = 0;
	int d;
	if (op == FX_SYM_SIZE || op == FX_SYM_NUMEL) {
		if (!arg_at(f, n, ni, 0, "self", &a) ||
		    a.kind != ONNXC_ARG_VALUE ||
		    f->h->value_get(f->ctx, f->g, a.ref, &vi) != ONNXC_OK ||
		    vi.kind != ONNXC_VK_TENSOR || vi.rank < 0 ||
		    vi.rank > MAXRANK || f->h->value_dims(f->ctx, f->g, a.ref,
		    dims, MAXRANK) != ONNXC_OK)
			return SKIP;
		if (op == FX_SYM_SIZE) {
			if (!arg_int(f, n, ni, 1, "dim", 0, &x) ||
			    vi.rank == 0 ||
			    !wrapdim(x, vi.rank, &d) || dims[d].e)
				return SKIP;
			*out = dims[d].n;
			return DONE;
		}
		*out = 1;
		for (int i = 0; i < vi.rank; i++)
			if (dims[i].e || pyint(FX_SYM_MUL, *out, dims[i].n, out)
			    != DONE)
				return SKIP;
		return DONE;
	}
	if (!arg_at(f, n, ni, 0, NULL, &a) || !as_int(f, &a, &x))
		return SKIP;
	if (op != FX_SYM_NEG && (!arg_at(f, n, ni, 1, NULL, &a) ||
	    !as_int(f, &a, &y)))
		return SKIP;
	return pyint(op, x, y, out);
}

/* Does r agree with v's annotation, where there is one? */
static int
fits(Fold *f, onnxc_value v, const Ten *r)
{
	onnxc_value_info vi;
	onnxc_dim d[MAXRANK];
	if (f->h->value_get(f->ctx, f->g, v, &vi) != ONNXC_OK)
		return 0;
	if (vi.kind == ONNXC_VK_UNKNOWN)
		return 1;
	if (vi.kind != ONNXC_VK_TENSOR || (vi.dtype && vi.dtype != r->dt))
		return 0;
	if (vi.rank < 0)
		return 1;
	if (vi.rank != r->rank || (vi.rank > 0 &&
	    f->h->value_dims(f->ctx, f->g, v, d, MAXRANK) != ONNXC_OK))
		return 0;
	for (int i = 0; i < r->rank; i++)
		if (d[i].e || d[i].n != r->dims[i])
			return 0;
	return 1;
}

/* ----------------------------------------------------------- use counts */

static onnxc_status
count(Fold *f, uint32_t *uses, const onnxc_arg *a, int depth)
{
	if (a->kind == ONNXC_ARG_VALUE) {
		if (a->ref < f->nvals)
			uses[a->ref]++;
		return ONNXC_OK;
	}
	if (a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE)
		return ONNXC_OK;
	if (depth > MAXDEPTH)
		return ONNXC_INVALID;
	for (uint32_t i = 0; i < a->len; i++) {
		onnxc_arg it;
		onnxc_status s = f->h->list_item(f->ctx, f->g, a, i, &it);
		if (s == ONNXC_OK)
			s = count(f, uses, &it, depth + 1);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

static onnxc_status
count_node(Fold *f, uint32_t *uses, onnxc_node n, const onnxc_node_info *ni)
{
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a;
		onnxc_status s = f->h->node_arg(f->ctx, f->g, n, i, &a);
		if (s == ONNXC_OK)
			s = count(f, uses, &a, 0);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

/* ------------------------------------------------------------ rewriting
 * A replaced value is never a graph output (those are not folded), and
 * its users come after it: pointing each node's arguments at the
 * replacements when the sweep reaches it costs one look per argument,
 * where replace_uses per fold could cost a look at the whole graph. */

static onnxc_value
canon(const Fold *f, onnxc_value v)
{
	return v < f->nvals && f->repl[v] ? f->repl[v] : v;
}

static onnxc_status
canon_arg(Fold *f, const onnxc_arg *a, onnxc_arg *out, int *changed,
    int depth)
{
	*out = *a;
	if (a->kind == ONNXC_ARG_VALUE) {
		out->ref = canon(f, a->ref);
		*changed |= out->ref != a->ref;
		return ONNXC_OK;
	}
	if ((a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE) ||
	    a->len == 0)
		return ONNXC_OK;
	if (depth > MAXDEPTH)
		return ONNXC_INVALID;
	onnxc_arg *items = calloc(a->len, sizeof *items);
	if (!items)
		return ONNXC_NOMEM;
	int any = 0;
	onnxc_status s = ONNXC_OK;
	for (uint32_t i = 0; i < a->len && s == ONNXC_OK; i++) {
		onnxc_arg it;
		s = f->h->list_item(f->ctx, f->g, a, i, &it);
		if (s == ONNXC_OK)
			s = canon_arg(f, &it, &items[i], &any, depth + 1);
	}
	if (s == ONNXC_OK && any) {
		s = f->h->make_list(f->ctx, f->g, a->kind, items, a->len, out);
		out->key = a->key;
		*changed = 1;
	}
	free(items);
	return s;
}

static onnxc_status
rewrite(Fold *f, onnxc_node n, const onnxc_node_info *ni)
{
	for (uint32_t i = 0; f->nrepl && i < ni->nargs; i++) {
		onnxc_arg a, b;
		int changed = 0;
		onnxc_status s = f->h->node_arg(f->ctx, f->g, n, i, &a);
		if (s == ONNXC_OK)
			s = canon_arg(f, &a, &b, &changed, 0);
		if (s == ONNXC_OK && changed)
			s = f->h->node_set_arg(f->ctx, f->g, n, i, &b);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

static void
replace(Fold *f, onnxc_value from, onnxc_value to)
{
	if (from < f->nvals) {
		f->repl[from] = to;
		f->nrepl++;
	}
}

/* ------------------------------------------------------------ FX nodes */

static onnxc_status
fx_node(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    const onnxc_str *fxop)
{
	int op = -1;
	for (size_t i = 0; i < sizeof fxops / sizeof *fxops && op < 0; i++)
		if (ni->op == fxop[i])
			op = fxops[i].op;
	onnxc_value v = ni->out;
	if (op < 0 || ni->nout != 1 || v >= f->nvals)
		return ONNXC_OK;
	if (op >= FX_SYM_ADD) {
		onnxc_value_info vi;
		onnxc_expr_info e;
		int64_t num;
		if (f->h->value_get(f->ctx, f->g, v, &vi) != ONNXC_OK ||
		    vi.kind != ONNXC_VK_SYMINT || (vi.sym &&
		    f->h->expr_get(f->ctx, vi.sym, &e) == ONNXC_OK &&
		    e.kind == ONNXC_E_INT) || fx_symint(f, op, n, ni, &num) !=
		    DONE)
			return ONNXC_OK;
		return f->h->value_set_sym(f->ctx, f->g, v, ONNXC_VK_SYMINT,
		    f->h->expr_int(f->ctx, num));
	}
	if (f->isout[v])
		return ONNXC_OK;
	Ten *r = calloc(1, sizeof *r);
	if (!r) {
		f->hostfail = 1;
		return ONNXC_ERROR;
	}
	int s = fx_eval(f, op, n, ni, r);
	if (s == DONE && !fits(f, v, r))
		s = SKIP;
	if (s != DONE) {
		free(r->own);
		free(r);
		return s == FAIL ? ONNXC_ERROR : ONNXC_OK;
	}
	f->known[v] = r;
	f->folded[n] = 1;
	return count_node(f, f->folduses, n, ni);
}

/* Results still used by unfolded nodes or outputs become constant inputs
 * (or the input they copy); every folded node goes. */
static onnxc_status
materialize(Fold *f)
{
	const onnxc_host_api *h = f->h;
	for (onnxc_node n = 1; n < f->end; n++) {
		onnxc_node_info ni;
		if (!f->folded[n])
			continue;
		if (h->node_get(f->ctx, f->g, n, &ni) != ONNXC_OK)
			return ONNXC_ERROR;
		onnxc_value v = ni.out, in;
		const Ten *r = f->known[v];
		if (f->uses[v] > f->folduses[v]) {
			in = r->same;
			if (!in) {
				onnxc_value_info vi;
				const char *name = h->str(f->ctx, ni.name);
				if ((!name || !*name) && h->value_get(f->ctx,
				    f->g, v, &vi) == ONNXC_OK)
					name = h->str(f->ctx, vi.name);
				/* the dead value gives its name up to the
				 * input that replaces it */
				char nm[256], dead[320];
				snprintf(nm, sizeof nm, "%s", name && *name ?
				    name : "folded");
				snprintf(dead, sizeof dead, "%s~folded", nm);
				if (h->value_set_name(f->ctx, f->g, v, dead) !=
				    ONNXC_OK)
					return ONNXC_ERROR;
				onnxc_tensor t = h->tensor_new(f->ctx, r->dt,
				    r->rank, r->dims, r->data);
				in = t ? h->constant_input(f->ctx, f->g, nm, t)
				    : 0;
				if (!in)
					return ONNXC_ERROR;
			}
			replace(f, v, in);
		}
		if (h->node_erase(f->ctx, f->g, n) != ONNXC_OK)
			return ONNXC_ERROR;
	}
	for (onnxc_node n = 1; f->nrepl && n < f->end; n++) {
		onnxc_node_info ni;
		if (h->node_get(f->ctx, f->g, n, &ni) == ONNXC_OK &&
		    rewrite(f, n, &ni) != ONNXC_OK)
			return ONNXC_ERROR;
	}
	return ONNXC_OK;
}

/* ---------------------------------------------------------- ONNX nodes */

static int
onnx_input(Fold *f, onnxc_node n, const onnxc_node_info *ni, uint32_t i,
    Ten *out)
{
	onnxc_arg a;
	return i < ni->npos &&
	    f->h->node_arg(f->ctx, f->g, n, i, &a) == ONNXC_OK &&
	    a.kind == ONNXC_ARG_VALUE && constant(f, a.ref, out);
}

static int
onnx_attr(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    const char *name, onnxc_arg *a)
{
	return keyed(f, n, ni, f->h->intern(f->ctx, name), a);
}

static int
onnx_shape(Fold *f, onnxc_node n, const onnxc_node_info *ni, Ten *r)
{
	onnxc_arg a;
	onnxc_value_info vi;
	onnxc_dim d[MAXRANK];
	int64_t start = 0, end;
	if (ni->npos < 1 || f->h->node_arg(f->ctx, f->g, n, 0, &a) !=
	    ONNXC_OK || a.kind != ONNXC_ARG_VALUE ||
	    f->h->value_get(f->ctx, f->g, a.ref, &vi) != ONNXC_OK ||
	    vi.kind != ONNXC_VK_TENSOR || vi.rank < 0 || vi.rank > MAXRANK ||
	    f->h->value_dims(f->ctx, f->g, a.ref, d, MAXRANK) != ONNXC_OK)
		return SKIP;
	end = vi.rank;
	if (onnx_attr(f, n, ni, "start", &a) && a.kind == ONNXC_ARG_INT)
		start = a.i;
	if (onnx_attr(f, n, ni, "end", &a) && a.kind == ONNXC_ARG_INT)
		end = a.i;
	start += start < 0 ? vi.rank : 0;
	end += end < 0 ? vi.rank : 0;
	start = start < 0 ? 0 : start > vi.rank ? vi.rank : start;
	end = end < start ? start : end > vi.rank ? vi.rank : end;
	int64_t len = end - start;
	if (shape(f, r, ONNXC_DT_I64, 1, &len) != DONE)
		return SKIP;
	for (int64_t i = start; i < end; i++)
		if (d[i].e)
			return SKIP;
	if (storage(f, r) != DONE)
		return FAIL;
	for (int64_t i = start; i < end; i++)
		memcpy((int64_t *)r->own + (i - start), &d[i].n, 8);
	return DONE;
}

static int
onnx_eval(Fold *f, const char *op, onnxc_node n, const onnxc_node_info *ni,
    Ten *r)
{
	Ten x, y;
	onnxc_arg a;
	int64_t v[MAXRANK], dims[MAXRANK];
	int k, d;
	if (strcmp(op, "Shape") == 0)
		return onnx_shape(f, n, ni, r);
	if (strcmp(op, "Concat") == 0) {
		Ten in[16];
		if (ni->npos > 16 || !onnx_attr(f, n, ni, "axis", &a) ||
		    a.kind != ONNXC_ARG_INT)
			return SKIP;
		for (uint32_t i = 0; i < ni->npos; i++)
			if (!onnx_input(f, n, ni, i, &in[i]))
				return SKIP;
		return concat(f, in, (int)ni->npos, a.i, r);
	}
	if (!onnx_input(f, n, ni, 0, &x))
		return SKIP;
	if (strcmp(op, "Identity") == 0)
		return copy(f, &x, r);
	if (strcmp(op, "Cast") == 0)
		return onnx_attr(f, n, ni, "to", &a) &&
		    a.kind == ONNXC_ARG_INT ? cast(f, &x, r, (uint32_t)a.i)
		    : SKIP;
	if (strcmp(op, "Transpose") == 0) {
		k = x.rank;
		for (int i = 0; i < k; i++)
			v[i] = k - 1 - i;
		if (onnx_attr(f, n, ni, "perm", &a))
			k = ints(f, &a, v, MAXRANK);
		return k < 0 ? SKIP : permute(f, &x, r, v, k);
	}
	if (strcmp(op, "Reshape") == 0) {
		int zero = !(onnx_attr(f, n, ni, "allowzero", &a) &&
		    a.kind == ONNXC_ARG_INT && a.i);
		if (!onnx_input(f, n, ni, 1, &y) ||
		    (k = i64s(&y, v, MAXRANK)) < 0)
			return SKIP;
		for (int i = 0; i < k; i++)
			if (zero && v[i] == 0) {
				if (i >= x.rank)
					return SKIP;
				v[i] = x.dims[i];
			}
		return view_dims(&x, v, k) ? reshape(f, &x, r, k, v) : SKIP;
	}
	if (strcmp(op, "Unsqueeze") == 0) {
		int put[MAXRANK] = {0};
		if (!onnx_input(f, n, ni, 1, &y) ||
		    (k = i64s(&y, v, MAXRANK)) < 0 || x.rank + k > MAXRANK)
			return SKIP;
		int rank = x.rank + k;
		for (int i = 0; i < k; i++) {
			if (v[i] < -rank || v[i] >= rank)
				return SKIP;
			d = (int)(v[i] < 0 ? v[i] + rank : v[i]);
			if (put[d]++)
				return SKIP;
		}
		for (int i = 0, j = 0; i < rank; i++)
			dims[i] = put[i] ? 1 : x.dims[j++];
		return reshape(f, &x, r, rank, dims);
	}
	if (strcmp(op, "Squeeze") == 0) {
		int drop[MAXRANK] = {0};
		if (ni->npos > 1 && onnx_input(f, n, ni, 1, &y)) {
			if ((k = i64s(&y, v, MAXRANK)) < 0)
				return SKIP;
			for (int i = 0; i < k; i++) {
				if (v[i] < -x.rank || v[i] >= x.rank)
					return SKIP;
				d = (int)(v[i] < 0 ? v[i] + x.rank : v[i]);
				if (x.dims[d] != 1)
					return SKIP;
				drop[d] = 1;
			}
		} else if (ni->npos > 1 && f->h->node_arg(f->ctx, f->g, n, 1,
		    &a) == ONNXC_OK && a.kind != ONNXC_ARG_NONE) {
			return SKIP; /* axes computed at run time */
		} else {
			for (int i = 0; i < x.rank; i++)
				drop[i] = x.dims[i] == 1;
		}
		k = 0;
		for (int i = 0; i < x.rank; i++)
			if (!drop[i])
				dims[k++] = x.dims[i];
		return reshape(f, &x, r, k, dims);
	}
	return SKIP;
}

/* Replace n's output by a Constant node holding r. */
static onnxc_status
emit_constant(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    const Ten *r)
{
	const onnxc_host_api *h = f->h;
	onnxc_dim dims[MAXRANK];
	onnxc_value_info vi;
	onnxc_node_info ci;
	for (int i = 0; i < r->rank; i++)
		dims[i] = (onnxc_dim){.n = r->dims[i]};
	onnxc_tensor t = h->tensor_new(f->ctx, r->dt, r->rank, r->dims,
	    r->data);
	onnxc_node c = t ? h->node_new(f->ctx, f->g, ONNXC_ONNX, "",
	    "Constant", 1) : 0;
	onnxc_arg a = {.kind = ONNXC_ARG_TENSOR, .key = f->s_value, .ref = t};
	if (!c || h->node_push_arg(f->ctx, f->g, c, &a) != ONNXC_OK ||
	    h->node_get(f->ctx, f->g, c, &ci) != ONNXC_OK ||
	    h->value_set_type(f->ctx, f->g, ci.out, r->dt, r->rank, dims) !=
	    ONNXC_OK || h->value_get(f->ctx, f->g, ni->out, &vi) != ONNXC_OK)
		return ONNXC_ERROR;
	/* the value keeps its name: it may be the FX name of an output */
	if (vi.name && h->value_set_name(f->ctx, f->g, ci.out,
	    h->str(f->ctx, vi.name)) != ONNXC_OK)
		return ONNXC_ERROR;
	replace(f, ni->out, ci.out);
	return h->node_erase(f->ctx, f->g, n);
}

static onnxc_status
onnx_node(Fold *f, onnxc_node n, const onnxc_node_info *ni)
{
	const char *dom = f->h->str(f->ctx, ni->domain);
	const char *op = f->h->str(f->ctx, ni->op);
	if ((dom && *dom && strcmp(dom, "ai.onnx") != 0) || !op ||
	    ni->nout != 1 || ni->out >= f->nvals || f->isout[ni->out])
		return ONNXC_OK;
	Ten r = {0};
	int s = onnx_eval(f, op, n, ni, &r);
	if (s == DONE && !fits(f, ni->out, &r))
		s = SKIP;
	onnxc_status st = s == FAIL ? ONNXC_ERROR : ONNXC_OK;
	if (s == DONE)
		st = emit_constant(f, n, ni, &r);
	free(r.own);
	return st;
}

/* ----------------------------------------------------------- the pass */

static onnxc_status
sweep(Fold *f)
{
	const onnxc_host_api *h = f->h;
	onnxc_str fxop[sizeof fxops / sizeof *fxops];
	onnxc_node_info ni;
	for (size_t i = 0; i < sizeof fxops / sizeof *fxops; i++)
		fxop[i] = h->intern(f->ctx, fxops[i].name);
	for (onnxc_node n = 1; n < f->end; n++)
		if (h->node_get(f->ctx, f->g, n, &ni) == ONNXC_OK &&
		    count_node(f, f->uses, n, &ni) != ONNXC_OK)
			return ONNXC_ERROR;
	uint32_t nout = h->output_count(f->ctx, f->g);
	for (uint32_t i = 0; i < nout; i++) {
		onnxc_value v = h->output_at(f->ctx, f->g, i);
		if (v < f->nvals) {
			f->uses[v]++;
			f->isout[v] = 1;
		}
	}
	for (onnxc_node n = 1; n < f->end; n++) {
		if (h->node_get(f->ctx, f->g, n, &ni) != ONNXC_OK)
			continue; /* erased */
		if (rewrite(f, n, &ni) != ONNXC_OK) {
			h->report(f->ctx, ONNXC_SEV_ERROR, f->g, n,
			    "fold: cannot point this node at folded values");
			return ONNXC_ERROR;
		}
		onnxc_status s = ONNXC_OK;
		if (ni.dialect == ONNXC_FX)
			s = fx_node(f, n, &ni, fxop);
		else if (ni.dialect == ONNXC_ONNX)
			s = onnx_node(f, n, &ni);
		if (s != ONNXC_OK) {
			h->report(f->ctx, ONNXC_SEV_ERROR, f->g, n, "fold: %s",
			    f->hostfail ? "out of memory"
			    : "the host refused a change to this node");
			return ONNXC_ERROR;
		}
	}
	if (materialize(f) != ONNXC_OK) {
		h->report(f->ctx, ONNXC_SEV_ERROR, f->g, 0,
		    "fold: the host refused to replace a folded node");
		return ONNXC_ERROR;
	}
	return ONNXC_OK;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	Fold f = {.ctx = ctx, .h = host, .g = host->graph(ctx),
	    .maxsize = 1024};
	if (host->opt_int(ctx, "max-size", &f.maxsize) != ONNXC_OK ||
	    f.maxsize < 0) {
		host->report(ctx, ONNXC_SEV_ERROR, f.g, 0,
		    "fold: max-size must be a number of elements (0 or more)");
		return ONNXC_ERROR;
	}
	f.training = host->training(ctx);
	f.s_constant = host->intern(ctx, "Constant");
	f.s_value = host->intern(ctx, "value");
	f.nvals = host->value_end(ctx, f.g);
	f.end = host->node_end(ctx, f.g);
	size_t nv = (size_t)f.nvals + 1;
	f.known = calloc(nv, sizeof *f.known);
	f.uses = calloc(nv, sizeof *f.uses);
	f.folduses = calloc(nv, sizeof *f.folduses);
	f.isout = calloc(nv, 1);
	f.folded = calloc((size_t)f.end + 1, 1);
	f.repl = calloc(nv, sizeof *f.repl);
	onnxc_status s = ONNXC_ERROR;
	if (f.known && f.uses && f.folduses && f.isout && f.folded && f.repl)
		s = sweep(&f);
	else
		host->report(ctx, ONNXC_SEV_ERROR, f.g, 0,
		    "fold: out of memory");
	for (uint32_t v = 0; f.known && v < f.nvals; v++)
		if (f.known[v]) {
			free(f.known[v]->own);
			free(f.known[v]);
		}
	free(f.known);
	free(f.uses);
	free(f.folduses);
	free(f.isout);
	free(f.folded);
	free(f.repl);
	return s;
}

static const onnxc_option options[] = {
	{"max-size", ONNXC_OPT_INT, "1024",
	    "largest number of elements a folded result may have"},
};

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "fold",
	.summary = "evaluate cheap computations on constants",
	.options = options,
	.noptions = sizeof options / sizeof *options,
	.run = run,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(fold, "fold", "1.0", init, NULL);
