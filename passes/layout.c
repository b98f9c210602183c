/* layout.c - pass "merge-layout-chains": a chain of Reshapes and
 * Transposes on static shapes becomes at most Reshape, Transpose,
 * Reshape.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition, result types with every dim a number.
 * Provides (onnxc/rewrite.h): a chain of Reshape, Flatten, Squeeze,
 * Unsqueeze and Transpose nodes whose results before the last have no
 * other user is replaced by the shortest of Reshape(x, A), Transpose(p),
 * Reshape(to the last result's shape) that moves the same elements, when
 * that has fewer nodes than the chain.  Data movement only: every
 * element is what it was.
 * How: every axis along the chain is a run of "atoms", pieces of the
 * input's row-major layout (a size and a stride); a Transpose reorders
 * the runs, a Reshape regroups the atoms into its dims (splitting one
 * where a dim ends inside it).  At the end the atoms in the input's
 * order give A, their order in the result gives p; atoms next to each
 * other in both orders merge.  Linear in the chain.
 */
#include <onnxc/rewrite.h>

enum { R = ONNXC_RW_MAXRANK, MAXATOM = 32, MAXCHAIN = 64 };

typedef struct Atom {
	int64_t size, stride;
} Atom;

/* A tensor as atoms in row-major order and the first atom of each axis
 * (axis k is atoms [first[k], first[k + 1])). */
typedef struct Lay {
	int n, rank;
	Atom a[MAXATOM];
	int first[R + 1];
} Lay;

static int
static_dims(onnxc_rw *r, onnxc_value v, int64_t *d)
{
	uint32_t dt;
	int32_t rank;
	onnxc_dim dims[R];
	if (!onnxc_rw_type(r, v, &dt, &rank, dims) || rank < 0)
		return -1;
	for (int32_t i = 0; i < rank; i++) {
		if (dims[i].e || dims[i].n < 1)
			return -1;
		d[i] = dims[i].n;
	}
	return rank;
}

static void
start(Lay *l, const int64_t *d, int rank)
{
	int64_t s = 1;
	l->n = 0;
	l->rank = rank;
	for (int i = rank - 1; i >= 0; i--)
		s *= d[i];
	for (int i = 0; i < rank; i++) {
		l->first[i] = l->n;
		s /= d[i];
		if (d[i] > 1)
			l->a[l->n++] = (Atom){d[i], s};
	}
	l->first[rank] = l->n;
}

static int
transpose(Lay *l, const int64_t *perm, int rank)
{
	Lay o = {.rank = rank};
	if (rank != l->rank)
		return 0;
	for (int j = 0; j < rank; j++) {
		int k = (int)perm[j];
		if (k < 0 || k >= rank)
			return 0;
		o.first[j] = o.n;
		for (int i = l->first[k]; i < l->first[k + 1]; i++)
			o.a[o.n++] = l->a[i];
	}
	o.first[rank] = o.n;
	*l = o;
	return 1;
}

/* Regroup the atoms into dims d, splitting where a dim ends inside one. */
static int
reshape(Lay *l, const int64_t *d, int rank)
{
	Lay o = {.rank = rank};
	int i = 0, m = 0;
	/* a reshape sees the flat order: neighbours in memory are one atom */
	for (int k = 0; k < l->n; k++)
		if (m && l->a[m - 1].stride == l->a[k].stride * l->a[k].size)
			l->a[m - 1] = (Atom){l->a[m - 1].size * l->a[k].size,
			    l->a[k].stride};
		else
			l->a[m++] = l->a[k];
	l->n = m;
	Atom cur = l->n ? l->a[0] : (Atom){1, 1};
	for (int k = 0; k < rank; k++) {
		int64_t need = d[k];
		o.first[k] = o.n;
		while (need > 1) {
			if (i >= l->n || o.n >= MAXATOM)
				return 0;
			if (cur.size <= need) {
				if (need % cur.size)
					return 0;
				o.a[o.n++] = cur;
				need /= cur.size;
				cur = ++i < l->n ? l->a[i] : (Atom){1, 1};
			} else {
				if (cur.size % need)
					return 0;
				/* the dim takes the atom's outer part */
				int64_t inner = cur.size / need;
				o.a[o.n++] = (Atom){need, cur.stride * inner};
				cur = (Atom){inner, cur.stride};
				need = 1;
			}
		}
	}
	o.first[rank] = o.n;
	if (i != l->n)
		return 0;
	*l = o;
	return 1;
}

/* The atoms in the input's order (strides falling) into in[], and for
 * each atom of the result its place there; merged where adjacent in both.
 * Their count, or -1 when they do not tile the input. */
static int
plan(const Lay *l, Atom *in, int *perm)
{
	Atom out[MAXATOM];
	int n = l->n;
	memcpy(out, l->a, sizeof(Atom) * (size_t)n);
	memcpy(in, l->a, sizeof(Atom) * (size_t)n);
	for (int i = 1; i < n; i++)   /* insertion sort: n <= MAXATOM */
		for (int j = i; j > 0 && in[j - 1].stride < in[j].stride; j--) {
			Atom t = in[j];
			in[j] = in[j - 1];
			in[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
		if (in[i].stride != (i + 1 < n ? in[i + 1].stride *
		    in[i + 1].size : 1))
			return -1;
	/* merge out[j], out[j+1] when out[j+1] is the next atom in */
	for (int j = 0; j + 1 < n;) {
		if (out[j].stride == out[j + 1].stride * out[j + 1].size) {
			out[j] = (Atom){out[j].size * out[j + 1].size,
			    out[j + 1].stride};
			memmove(out + j + 1, out + j + 2, sizeof(Atom) *
			    (size_t)(n - j - 2));
			n--;
		} else {
			j++;
		}
	}
	memcpy(in, out, sizeof(Atom) * (size_t)n);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && in[j - 1].stride < in[j].stride; j--) {
			Atom t = in[j];
			in[j] = in[j - 1];
			in[j - 1] = t;
		}
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			if (in[i].stride == out[j].stride)
				perm[j] = i;
	return n;
}

static int
is_view(onnxc_rw *r, const onnxc_node_info *ni)
{
	return onnxc_rw_is(r, ni, "Reshape") || onnxc_rw_is(r, ni, "Flatten") ||
	    onnxc_rw_is(r, ni, "Squeeze") || onnxc_rw_is(r, ni, "Unsqueeze");
}

static int
same(const int64_t *a, int na, const int64_t *b, int nb)
{
	return na == nb && !memcmp(a, b, sizeof(int64_t) * (size_t)na);
}

/* Output 0 of node m (0: none), typed dt[d]. */
static onnxc_value
typed(onnxc_rw *r, onnxc_node m, uint32_t dt, const int64_t *d, int rank)
{
	onnxc_dim dims[R];
	onnxc_value v = m ? onnxc_rw_out(r, m, 0, 0) : 0;
	for (int i = 0; i < rank; i++)
		dims[i] = (onnxc_dim){.n = d[i]};
	if (v && r->h->value_set_type(r->ctx, r->g, v, dt, rank, dims) !=
	    ONNXC_OK)
		r->failed = 1;
	return r->failed ? 0 : v;
}

static onnxc_value
emit_reshape(onnxc_rw *r, onnxc_value x, uint32_t dt, const int64_t *d,
    int rank, onnxc_node from)
{
	int64_t len = rank;
	onnxc_value in[2] = {x, onnxc_rw_initializer(r, "layout_shape",
	    ONNXC_DT_I64, 1, &len, d)};
	onnxc_node m = in[1] ? onnxc_rw_emit(r, "Reshape", 2, in, 1, from) : 0;
	return typed(r, m, dt, d, rank);
}

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node chain[MAXCHAIN];
	onnxc_node_info ci;
	int len = 0;
	int64_t d[R], perm[R];
	if (ni->nout != 1 || (!is_view(r, ni) && !onnxc_rw_is(r, ni,
	    "Transpose")))
		return 0;
	/* back from n while the producers are views or Transposes used once */
	chain[len++] = n;
	for (;;) {
		onnxc_value v = onnxc_rw_in(r, chain[len - 1], 0);
		onnxc_node p = onnxc_rw_def(r, v, NULL, &ci);
		if (!p || len == MAXCHAIN || !onnxc_rw_single(r, v) ||
		    ci.nout != 1 || (!is_view(r, &ci) && !onnxc_rw_is(r, &ci,
		    "Transpose")))
			break;
		chain[len++] = p;
	}
	if (len < 3)
		return 0;
	onnxc_value x = onnxc_rw_in(r, chain[len - 1], 0);
	int xr = static_dims(r, x, d);
	Lay l;
	if (xr < 0)
		return 0;
	int64_t xd[R];
	memcpy(xd, d, sizeof d);
	start(&l, d, xr);
	for (int k = len - 1; k >= 0; k--) {
		onnxc_node_info ki;
		onnxc_node c = chain[k];
		if (r->h->node_get(r->ctx, r->g, c, &ki) != ONNXC_OK)
			return 0;
		int rank = static_dims(r, ki.out, d);
		if (rank < 0)
			return 0;
		if (onnxc_rw_is(r, &ki, "Transpose")) {
			if (onnxc_rw_attr_ints(r, c, "perm", perm, R) != rank ||
			    !transpose(&l, perm, rank))
				return 0;
		} else if (!reshape(&l, d, rank)) {
			return 0;
		}
	}
	Atom in[MAXATOM];
	int p[MAXATOM];
	int na = plan(&l, in, p);
	if (na < 0 || na > R)
		return 0;
	int64_t a[R], ad[R], q[R];
	int ident = 1;
	for (int i = 0; i < na; i++) {
		a[i] = in[i].size;
		q[i] = p[i];
		ad[i] = in[p[i]].size;
		ident &= p[i] == i;
	}
	/* no reordering: one Reshape to the result's shape, if any */
	int nodes = ident ? !same(d, l.rank, xd, xr) : !same(a, na, xd, xr) +
	    1 + !same(ad, na, d, l.rank);
	if (nodes >= len)
		return 0;
	uint32_t dt;
	int32_t rank;
	onnxc_value v = x;
	if (!onnxc_rw_type(r, x, &dt, &rank, NULL))
		return 0;
	if (ident) {
		if (!same(d, l.rank, xd, xr))
			v = emit_reshape(r, v, dt, d, l.rank, n);
		return v && onnxc_rw_replace(r, ni->out, v);
	}
	if (!same(a, na, xd, xr))
		v = emit_reshape(r, v, dt, a, na, n);
	if (v) {
		onnxc_node t = onnxc_rw_emit(r, "Transpose", 1, &v, 1, n);
		onnxc_rw_set_ints(r, t, "perm", q, (uint32_t)na);
		v = typed(r, t, dt, ad, na);
	}
	if (v && !same(ad, na, d, l.rank))
		v = emit_reshape(r, v, dt, d, l.rank, n);
	return v && onnxc_rw_replace(r, ni->out, v);
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "merge-layout-chains", visit, 8);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "merge-layout-chains",
	.summary = "chains of Reshapes and Transposes on static shapes become "
	    "at most Reshape, Transpose, Reshape",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(layout, "merge-layout-chains", "1.0", init, NULL);
