/* tensor.c - inside the fold plugin: the small tensor arithmetic and
 * layout helpers its evaluators share.  They read only the Ten they are
 * given (no host calls) and return SKIP for anything not folded exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"

size_t
fold_elsize(uint32_t dt)
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
uint64_t
fold_numel(int rank, const int64_t *dims)
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

void
fold_strides(const Ten *x, int64_t *st)
{
	int64_t s = 1;
	for (int i = x->rank - 1; i >= 0; i--) {
		st[i] = s;
		s *= x->dims[i];
	}
}

/* Set r's shape and check the size limit; SKIP when too big. */
int
fold_shape(Fold *f, Ten *r, uint32_t dt, int rank, const int64_t *dims)
{
	if (rank < 0 || rank > MAXRANK)
		return SKIP;
	r->dt = dt;
	r->rank = rank;
	for (int i = 0; i < rank; i++)
		r->dims[i] = dims[i];
	r->numel = fold_numel(rank, dims);
	if (r->numel > (uint64_t)f->maxsize)
		return SKIP;
	size_t es = fold_elsize(dt) ? fold_elsize(dt) : 1;
	return r->numel < FOLD_BIG / es || f->bigview ? DONE : SKIP;
}

int
fold_shape_view(Fold *f, Ten *r, uint32_t dt, int rank, const int64_t *dims)
{
	f->bigview = f->bigok;
	int s = fold_shape(f, r, dt, rank, dims);
	f->bigview = 0;
	return s;
}

/* Give r its own zeroed storage. */
int
fold_storage(Fold *f, Ten *r)
{
	size_t n = (size_t)r->numel * fold_elsize(r->dt);
	r->own = calloc(n ? n : 1, 1);
	if (!r->own) {
		f->hostfail = 1;
		return FAIL;
	}
	r->data = r->own;
	return DONE;
}

/* Results by content: a weight transposed for every layer that uses it
 * (the permute -> addmm form) is one tensor, not one per use. */
static uint64_t
content_hash(const Ten *r, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ r->dt ^ (uint64_t)r->rank << 8;
	for (int i = 0; i < r->rank; i++)
		h = (h ^ (uint64_t)r->dims[i]) * 0xff51afd7ed558ccdu;
	const unsigned char *p = r->data;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return h ^ (h >> 32);
}

static int
same_content(const Ten *a, const Ten *b, size_t n)
{
	if (a->dt != b->dt || a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return n == 0 || memcmp(a->data, b->data, n) == 0;
}

int
fold_dedup(Fold *f, Ten *r)
{
	size_t n = (size_t)r->numel * fold_elsize(r->dt);
	if (!r->own || r->same)
		return 1;  /* a view of an input, or equal to one */
	if ((f->nresults + 1) * 2 > f->cresults) {
		uint32_t cap = f->cresults ? f->cresults * 2 : 64;
		Ten **t = calloc(cap, sizeof *t);
		if (!t)
			return 0;
		for (uint32_t i = 0; i < f->cresults; i++) {
			Ten *e = f->results[i];
			if (!e)
				continue;
			uint64_t j = content_hash(e, (size_t)e->numel *
			    fold_elsize(e->dt));
			while (t[j & (cap - 1)])
				j++;
			t[j & (cap - 1)] = e;
		}
		free(f->results);
		f->results = t;
		f->cresults = cap;
	}
	uint64_t j = content_hash(r, n);
	for (;; j++) {
		Ten **slot = &f->results[j & (f->cresults - 1)];
		if (!*slot) {
			*slot = r;
			f->nresults++;
			return 1;
		}
		if (same_content(*slot, r, n)) {
			free(r->own);
			r->own = NULL;
			r->data = (*slot)->data;
			r->twin = *slot;
			return 1;
		}
	}
}

/* r is x under another shape: the data is shared. */
int
fold_reshape(Fold *f, const Ten *x, Ten *r, int rank, const int64_t *dims)
{
	int s = fold_shape_view(f, r, x->dt, rank, dims);
	if (s != DONE || r->numel != x->numel)
		return SKIP;
	r->data = x->data;
	r->src = x->src;
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

/* Element k of r (shape already set) is element base + sum idx*st of x.
 * Row by row along r's last dim, with the element size fixed where it is
 * 4 or 8 bytes: a permuted weight is thousands of elements. */
int
fold_gather(Fold *f, const Ten *x, Ten *r, const int64_t *st, int64_t base)
{
	if (r->numel >= FOLD_BIG / fold_elsize(r->dt)) {
		/* only fold_shape_view lets one through: made when written */
		r->from = x->data;
		r->gbase = base;
		for (int i = 0; i < r->rank; i++)
			r->gst[i] = st[i];
		return DONE;
	}
	if (fold_storage(f, r) != DONE)
		return FAIL;
	size_t es = fold_elsize(x->dt);
	unsigned char *out = r->own;
	const unsigned char *in = x->data;
	if (r->numel == 0)
		return DONE;
	if (r->rank == 0) {
		memcpy(out, in + (size_t)base * es, es);
		return DONE;
	}
	int last = r->rank - 1;
	uint64_t len = (uint64_t)r->dims[last];
	int64_t s = st[last];
	Iter it = {.rank = last, .dims = r->dims, .off = {base, 0}};
	memcpy(it.st[0], st, sizeof(int64_t) * (size_t)last);
	for (uint64_t k = 0; k < r->numel; k += len, step(&it)) {
		unsigned char *o = out + k * es;
		const unsigned char *p = in + (size_t)it.off[0] * es;
		if (es == 4)
			for (uint64_t j = 0; j < len; j++)
				memcpy(o + 4 * j, p + (int64_t)j * s * 4, 4);
		else if (es == 8)
			for (uint64_t j = 0; j < len; j++)
				memcpy(o + 8 * j, p + (int64_t)j * s * 8, 8);
		else
			for (uint64_t j = 0; j < len; j++)
				memcpy(o + es * j, p + (int64_t)j * s *
				    (int64_t)es, es);
	}
	return DONE;
}

int
fold_permute(Fold *f, const Ten *x, Ten *r, const int64_t *perm, int n)
{
	int64_t st[MAXRANK], dims[MAXRANK], pst[MAXRANK];
	int seen[MAXRANK] = {0};
	if (n != x->rank)
		return SKIP;
	fold_strides(x, st);
	for (int i = 0; i < n; i++) {
		int64_t p = perm[i] < 0 ? perm[i] + n : perm[i];
		if (p < 0 || p >= n || seen[p]++)
			return SKIP;
		dims[i] = x->dims[p];
		pst[i] = st[p];
	}
	/* not past FOLD_BIG: see there */
	if (fold_shape(f, r, x->dt, n, dims) != DONE)
		return SKIP;
	return fold_gather(f, x, r, pst, 0);
}

/* Along dim d, elements start, start+step, ... (count of them); count 1
 * with keep == 0 drops the dim (select). */
int
fold_slice(Fold *f, const Ten *x, Ten *r, int d, int64_t start, int64_t stp,
    int64_t count, int keep)
{
	int64_t st[MAXRANK], dims[MAXRANK], rst[MAXRANK];
	int n = 0;
	fold_strides(x, st);
	for (int i = 0; i < x->rank; i++) {
		if (i == d && !keep)
			continue;
		dims[n] = i == d ? count : x->dims[i];
		rst[n++] = i == d ? st[i] * stp : st[i];
	}
	if (fold_shape_view(f, r, x->dt, n, dims) != DONE)
		return SKIP;
	return fold_gather(f, x, r, rst, start * st[d]);
}

/* ONNX/numpy broadcasting of two shapes into r's shape. */
static int
broadcast(Fold *f, const Ten *a, const Ten *b, Ten *r, uint32_t dt,
    Iter *it)
{
	int rank = a->rank > b->rank ? a->rank : b->rank;
	int64_t dims[MAXRANK], sa[MAXRANK], sb[MAXRANK];
	fold_strides(a, sa);
	fold_strides(b, sb);
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
	if (fold_shape(f, r, dt, rank, dims) != DONE)
		return SKIP;
	it->rank = rank;
	it->dims = r->dims;
	return fold_storage(f, r);
}

/* Casts between f32, f64, i64, i32 and bool, as static_cast does; a
 * float out of an integer type's range is left alone (C leaves it
 * undefined, and so does PyTorch), except one below int64's (-inf: the
 * log of a zero distance), which the CPUs PyTorch and ONNX Runtime run on
 * make INT64_MIN (x86's cvttsd2si, ARM's saturating fcvtzs). */
int
fold_cast(Fold *f, const Ten *x, Ten *r, uint32_t to)
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
	if ((x->dt == to ? fold_shape_view(f, r, to, x->rank, x->dims) :
	    fold_shape(f, r, to, x->rank, x->dims)) != DONE)
		return SKIP;
	if (x->dt == to) {
		r->data = x->data;
		r->same = x->same;
		r->src = x->src;
		return DONE;
	}
	if (fold_storage(f, r) != DONE)
		return FAIL;
	const unsigned char *in = x->data;
	unsigned char *out = r->own;
	size_t ei = fold_elsize(x->dt), eo = fold_elsize(to);
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
			int low = isf && d < -9223372036854775808.0;
			if (isf && !low && !(d >= -9223372036854775808.0 &&
			    d < 9223372036854775808.0))
				return SKIP;
			int64_t t = low ? INT64_MIN : isf ? (int64_t)d : v;
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

/* a op b on one dtype; b may be NULL for a scalar s (in a's dtype).
 * Floats round once per operation, as IEEE arithmetic does in PyTorch and
 * ONNX Runtime; int64 wraps. */
int
fold_arith(Fold *f, int op, const Ten *a, const Ten *b, double sf, int64_t si,
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
	size_t es = fold_elsize(dt);
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
int
fold_concat(Fold *f, const Ten *in, int n, int64_t d, Ten *r)
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
	if (fold_shape(f, r, in[0].dt, rank, dims) != DONE)
		return SKIP;
	if (fold_storage(f, r) != DONE)
		return FAIL;
	uint64_t outer = fold_numel((int)d, dims);
	uint64_t inner = fold_numel(rank - (int)d - 1, dims + d + 1);
	size_t es = fold_elsize(r->dt);
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

/* r is x itself: the same data and shape */
int
fold_copy(Fold *f, const Ten *x, Ten *r)
{
	if (fold_shape_view(f, r, x->dt, x->rank, x->dims) != DONE)
		return SKIP;
	r->data = x->data;
	r->same = x->same;
	r->src = x->src;
	return DONE;
}

/* view/reshape sizes: one -1 takes what is left */
int
fold_view_dims(const Ten *x, int64_t *dims, int n)
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

/* Source offset of the first element of row `row` (all dims but the
 * last) of the big gather r. */
static int64_t
row_at(const Ten *r, uint64_t row)
{
	int64_t off = r->gbase;
	for (int d = r->rank - 2; d >= 0; d--) {
		off += (int64_t)(row % (uint64_t)r->dims[d]) * r->gst[d];
		row /= (uint64_t)r->dims[d];
	}
	return off;
}

/* Columns [c0, c1) of rows row .. row + nrows - 1 of the big gather
 * g->r to q (row j at q + j * len elements).  In bands of columns, ROWS
 * rows at a time: a transposed weight reads ROWS neighbours of each
 * source row, not one.  The source bytes read are handed back to the host
 * (bytes_done) every SPAN bytes of them: each output row of a transpose
 * reads across the whole weight, which would otherwise stay resident. */
static void
copy_rows(const FoldGather *g, unsigned char *q, uint64_t row,
    uint64_t nrows, uint64_t c0, uint64_t c1)
{
	enum { ROWS = 16, BAND = 256, SPAN = 16 << 20 };
	const Ten *r = g->r;
	size_t es = fold_elsize(r->dt);
	uint64_t len = (uint64_t)r->dims[r->rank - 1];
	int64_t s = r->gst[r->rank - 1] * (int64_t)es;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint64_t j = 0; j < nrows; j++) {
		int64_t a = row_at(r, row + j) * (int64_t)es;
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	int64_t dlo = INT64_MAX, dhi = INT64_MIN;   /* read since handed back */
	for (uint64_t b = c0; b < c1; b += BAND) {
		uint64_t e = c1 - b < BAND ? c1 : b + BAND;
		for (uint64_t r0 = 0; r0 < nrows; r0 += ROWS) {
			const unsigned char *p[ROWS];
			int nr = nrows - r0 < ROWS ? (int)(nrows - r0) : ROWS;
			for (int j = 0; j < nr; j++)
				p[j] = r->from + row_at(r, row + r0 +
				    (uint64_t)j) * (int64_t)es;
			unsigned char *o = q + (r0 * len - c0) * es;
			if (es == 4)
				for (uint64_t c = b; c < e; c++)
					for (int j = 0; j < nr; j++)
						memcpy(o + ((uint64_t)j * len +
						    c) * 4, p[j] + (int64_t)c *
						    s, 4);
			else
				for (uint64_t c = b; c < e; c++)
					for (int j = 0; j < nr; j++)
						memcpy(o + ((uint64_t)j * len +
						    c) * es, p[j] + (int64_t)c *
						    s, es);
		}
		int64_t x = (int64_t)b * s, y = (int64_t)(e - 1) * s;
		int64_t blo = lo + (x < y ? x : y), bhi = hi + (x < y ? y : x) +
		    (int64_t)es;
		dlo = blo < dlo ? blo : dlo;
		dhi = bhi > dhi ? bhi : dhi;
		if (dhi - dlo >= SPAN && g->f &&
		    ONNXC_HOST_HAS(g->f->h, bytes_done)) {
			g->f->h->bytes_done(g->f->ctx, r->from + dlo,
			    (uint64_t)(dhi - dlo));
			dlo = INT64_MAX;
			dhi = INT64_MIN;
		}
	}
}

int
fold_gather_fill(void *user, uint64_t first, uint64_t count, void *out)
{
	const FoldGather *g = user;
	const Ten *r = g->r;
	size_t es = fold_elsize(r->dt);
	unsigned char *o = out;
	if (r->rank == 0) {
		memcpy(o, r->from + (size_t)r->gbase * es, es);
		return 0;
	}
	uint64_t len = (uint64_t)r->dims[r->rank - 1], k = 0;
	while (k < count) {
		uint64_t at = first + k, row = at / len, col = at % len;
		uint64_t n = count - k;
		if (col == 0 && n >= len) {
			copy_rows(g, o + k * es, row, n / len, 0, len);
			k += n / len * len;
		} else {
			uint64_t e = len - col < n ? len : col + n;
			copy_rows(g, o + k * es, row, 1, col, e);
			k += e - col;
		}
	}
	return 0;
}
