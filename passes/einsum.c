/* einsum.c - pass "fuse-einsum-transposes": an Einsum reads and writes
 * through its subscripts what a Transpose next to it would move.
 *
 * Requires: the ONNX graph ("lower" has run), every use after its
 * definition.
 * Provides (onnxc/rewrite.h), the Transpose's result having no other
 * user, for equations of letters with an explicit output (no "..."):
 * - Einsum(..., Transpose(x, perm), ...) reads x, its subscripts
 *   permuted back; so does Einsum(..., Mul(Transpose(x, perm), c), ...)
 *   with c one number, which becomes Mul(x, c);
 * - Transpose(Einsum(...), perm) is the Einsum with its output
 *   subscripts permuted.
 * The sums are the same; their order inside the runtime's kernel may
 * differ, so results may differ by float rounding.
 */
#include <onnxc/rewrite.h>

enum { R = ONNXC_RW_MAXRANK, MAXIN = 8, EQ = 256 };

/* An equation split into its inputs' and output's subscripts. */
typedef struct Eq {
	int n;                 /* inputs */
	char in[MAXIN][R + 1];
	char out[R + 1];
} Eq;

static int
parse(const char *s, Eq *e)
{
	int len = 0, out = 0;
	memset(e, 0, sizeof *e);
	e->n = 1;
	for (; s && *s; s++) {
		char *dst = out ? e->out : e->in[e->n - 1];
		if (*s == ' ')
			continue;
		if (*s == ',' && !out) {
			if (e->n == MAXIN)
				return 0;
			e->n++;
			len = 0;
		} else if (s[0] == '-' && s[1] == '>' && !out) {
			out = 1;
			len = 0;
			s++;
		} else if (((*s >= 'a' && *s <= 'z') || (*s >= 'A' &&
		    *s <= 'Z')) && len < R) {
			dst[len++] = *s;
		} else {
			return 0;   /* "...", or too many subscripts */
		}
	}
	return out;
}

static void
print(const Eq *e, char *buf)
{
	buf[0] = 0;
	for (int i = 0; i < e->n; i++) {
		strcat(buf, e->in[i]);
		strcat(buf, i + 1 < e->n ? "," : "->");
	}
	strcat(buf, e->out);
}

static int
equation(onnxc_rw *r, onnxc_node n, Eq *e)
{
	onnxc_arg a;
	return onnxc_rw_attr(r, n, "equation", &a) && a.kind ==
	    ONNXC_ARG_STR && parse(r->h->str(r->ctx, a.ref), e);
}

/* The Transpose under operand v of an Einsum, its perm in perm, or
 * through Mul(Transpose, c) with c one number (*c set, else 0); 0 when
 * there is none. */
static onnxc_node
transposed(onnxc_rw *r, onnxc_value v, int32_t rank, int64_t *perm,
    onnxc_value *c)
{
	onnxc_node_info ti, mi;
	onnxc_tensor_info ct;
	onnxc_node t = 0;
	*c = 0;
	if (!onnxc_rw_single(r, v))
		return 0;
	onnxc_node m = onnxc_rw_def(r, v, "Mul", &mi);
	if (!m)
		t = onnxc_rw_def(r, v, "Transpose", &ti);
	for (uint32_t k = 0; m && !t && k < 2; k++) {
		onnxc_value u = onnxc_rw_in(r, m, k);
		*c = onnxc_rw_in(r, m, 1 - k);
		/* one number of no higher rank: Mul(u, c) is shaped as u */
		if (onnxc_rw_const(r, *c, &ct) && onnxc_rw_numel(&ct) == 1 &&
		    ct.rank <= rank && onnxc_rw_single(r, u))
			t = onnxc_rw_def(r, u, "Transpose", &ti);
	}
	if (!t || onnxc_rw_attr_ints(r, t, "perm", perm, R) != rank)
		return 0;
	for (int32_t j = 0; j < rank; j++)
		if (perm[j] < 0 || perm[j] >= rank)
			return 0;
	return t;
}

/* Node n's result becomes Einsum(in) with equation e. */
static int
einsum(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni,
    const onnxc_value *in, const Eq *e)
{
	char buf[EQ];
	print(e, buf);
	onnxc_node m = onnxc_rw_swap(r, n, ni, "Einsum", (uint32_t)e->n, in);
	onnxc_arg a = {.kind = ONNXC_ARG_STR, .key = r->h->intern(r->ctx,
	    "equation"), .ref = r->h->intern(r->ctx, buf)};
	if (!m || r->h->node_push_arg(r->ctx, r->g, m, &a) != ONNXC_OK)
		r->failed = 1;
	return m != 0;
}

/* Einsum root: operands read through their Transposes. */
static int
operands(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni, Eq *e)
{
	onnxc_value in[MAXIN], c;
	int64_t perm[R];
	int changed = 0;
	if ((int)ni->npos != e->n)
		return 0;
	for (int i = 0; i < e->n; i++) {
		int32_t rank = (int32_t)strlen(e->in[i]);
		in[i] = onnxc_rw_in(r, n, (uint32_t)i);
		onnxc_node t = transposed(r, in[i], rank, perm, &c);
		if (!t)
			continue;
		/* y = Transpose(x): y's axis j is x's axis perm[j] */
		char s[R + 1] = {0};
		for (int32_t j = 0; j < rank; j++)
			s[perm[j]] = e->in[i][j];
		memcpy(e->in[i], s, sizeof s);
		in[i] = onnxc_rw_in(r, t, 0);
		if (c) {
			onnxc_value mi[2] = {in[i], c};
			onnxc_node m = onnxc_rw_emit(r, "Mul", 2, mi, 1, t);
			in[i] = onnxc_rw_out(r, m, 0, in[i]);
		}
		changed = 1;
	}
	return changed && !r->failed && einsum(r, n, ni, in, e);
}

/* Transpose root over an Einsum: the Einsum writes that order. */
static int
result(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	onnxc_node_info ei;
	onnxc_value in[MAXIN];
	int64_t perm[R];
	Eq e;
	onnxc_value y = onnxc_rw_in(r, n, 0);
	onnxc_node en = onnxc_rw_def(r, y, "Einsum", &ei);
	if (!en || !onnxc_rw_single(r, y) || !equation(r, en, &e) ||
	    (int)ei.npos != e.n)
		return 0;
	int32_t rank = (int32_t)strlen(e.out);
	if (onnxc_rw_attr_ints(r, n, "perm", perm, R) != rank)
		return 0;
	char s[R + 1] = {0};
	for (int32_t j = 0; j < rank; j++) {
		if (perm[j] < 0 || perm[j] >= rank)
			return 0;
		s[j] = e.out[perm[j]];
	}
	memcpy(e.out, s, sizeof s);
	for (int i = 0; i < e.n; i++)
		in[i] = onnxc_rw_in(r, en, (uint32_t)i);
	return einsum(r, n, ni, in, &e);
}

static int
visit(onnxc_rw *r, onnxc_node n, const onnxc_node_info *ni)
{
	Eq e;
	if (ni->nout != 1)
		return 0;
	if (onnxc_rw_is(r, ni, "Transpose"))
		return result(r, n, ni);
	if (onnxc_rw_is(r, ni, "Einsum") && equation(r, n, &e))
		return operands(r, n, ni, &e);
	return 0;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	return onnxc_rw_run(ctx, host, "fuse-einsum-transposes", visit, 4);
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "fuse-einsum-transposes",
	.summary = "let an Einsum's subscripts do the Transposes next to it",
	.run = run,
	.needs = ONNXC_PROP_ONNX,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(einsum, "fuse-einsum-transposes", "1.0", init, NULL);
