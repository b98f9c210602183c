/* symbolize.c - pass "symbolize-shapes": dynamic dimensions.
 *
 * Options (the driver's --dynamic, --static and --strict):
 *   dynamic  NAME:DIM=LABEL,...  name dim DIM of graph input NAME LABEL
 *   static   LABEL=VALUE,...     specialise a symbol to a number
 *   strict   unproven literals are errors, not warnings
 * Without dynamic and static entries the pass changes nothing.
 *
 * Requires: an FX graph (and its higher-order-op bodies), verified.
 * Provides: the same graphs with
 *  - symbols renamed (dynamic on a symbolic dim): every dim, SymInt
 *    expression and range that mentions the symbol now names the label,
 *    printed canonically (2*s0 becomes 2*batch);
 *  - numeric dims made symbolic (dynamic on a numeric dim): the input dim
 *    becomes the label, shapes downstream are re-derived by the rules of
 *    shapes.c and size literals that follow from the symbol are rewritten
 *    (to -1, or to SymInts computed by sym_size.int and Python-operator
 *    nodes, which the host puts before their user); literals that merely
 *    equal the traced size are reported;
 *  - symbols specialised (static): replaced by their number, so that
 *    sym_size nodes of them lower to constants.
 * Range constraints follow every rewrite.  A symbol introduced here gets
 * the range torch.export gives dynamic dims, VR[2, int_oo].
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/table.h>

#include "symbolize_int.h"

/* ---------------------------------------------------------- reporting */

static void
vreport(SymCtx *c, int sev, onnxc_node n, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	c->h->report(c->ctx, sev, c->g, n, "%s", msg);
}

void
sym_error(SymCtx *c, onnxc_node n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(c, ONNXC_SEV_ERROR, n, fmt, ap);
	va_end(ap);
	c->nerr++;
}

void
sym_warning(SymCtx *c, onnxc_node n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(c, ONNXC_SEV_WARNING, n, fmt, ap);
	va_end(ap);
}

/* An array grown for need elements; false (reported) when out of memory. */
bool
sym_grow(SymCtx *c, void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
	if (need <= *cap)
		return true;
	uint32_t n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	void *p = realloc(*arr, (size_t)n * sz);
	if (!p) {
		sym_error(c, 0, "symbolize-shapes: out of memory");
		return false;
	}
	*arr = p;
	*cap = n;
	return true;
}

/* ----------------------------------------------------- the IR, read */

const char *
sym_op(SymCtx *c, onnxc_node n)
{
	onnxc_node_info ni;
	if (c->h->node_get(c->ctx, c->g, n, &ni) != ONNXC_OK)
		return "";
	const char *s = c->h->str(c->ctx, ni.op);
	return s ? s : "";
}

bool
sym_arg(SymCtx *c, onnxc_node n, int i, const char *kw, onnxc_arg *a)
{
	return c->h->node_find_arg(c->ctx, c->g, n, i, kw, a) == ONNXC_OK;
}

bool
sym_item(SymCtx *c, const onnxc_arg *list, uint32_t i, onnxc_arg *out)
{
	return c->h->list_item(c->ctx, c->g, list, i, out) == ONNXC_OK;
}

uint32_t
sym_nargs(SymCtx *c, onnxc_node n)
{
	onnxc_node_info ni;
	return c->h->node_get(c->ctx, c->g, n, &ni) == ONNXC_OK ? ni.nargs : 0;
}

bool
sym_node_arg(SymCtx *c, onnxc_node n, uint32_t i, onnxc_arg *a)
{
	return c->h->node_arg(c->ctx, c->g, n, i, a) == ONNXC_OK;
}

onnxc_value
sym_out(SymCtx *c, onnxc_node n, uint32_t k)
{
	onnxc_node_info ni;
	if (c->h->node_get(c->ctx, c->g, n, &ni) != ONNXC_OK || k >= ni.nout)
		return 0;
	return ni.out + k;
}

onnxc_value_info
sym_value(SymCtx *c, onnxc_value v)
{
	onnxc_value_info vi = {.rank = -1};
	if (c->h->value_get(c->ctx, c->g, v, &vi) != ONNXC_OK)
		vi = (onnxc_value_info){.rank = -1};
	return vi;
}

int
sym_dims_of(SymCtx *c, onnxc_graph g, onnxc_value v, Dim *out, int cap)
{
	onnxc_value_info vi;
	if (c->h->value_get(c->ctx, g, v, &vi) != ONNXC_OK)
		return -1;
	if (vi.rank > 0 && cap > 0 && c->h->value_dims(c->ctx, g, v, out,
	    (uint32_t)cap) != ONNXC_OK)
		return -1;
	return vi.rank;
}

int
sym_dims(SymCtx *c, onnxc_value v, Dim *out, int cap)
{
	return sym_dims_of(c, c->g, v, out, cap);
}

int
sym_arg_index(SymCtx *c, onnxc_node n, int i, const char *kw)
{
	uint32_t na = sym_nargs(c, n);
	onnxc_arg a;
	if (i >= 0 && (uint32_t)i < na && sym_node_arg(c, n, (uint32_t)i, &a)
	    && a.key == 0)
		return i;
	if (!kw)
		return -1;
	for (uint32_t k = 0; k < na; k++) {
		if (!sym_node_arg(c, n, k, &a) || !a.key)
			continue;
		const char *s = c->h->str(c->ctx, a.key);
		if (s && !strcmp(s, kw))
			return (int)k;
	}
	return -1;
}

int
sym_set_list(SymCtx *c, onnxc_node n, uint32_t i, const onnxc_arg *list,
    const onnxc_arg *items, uint32_t cnt)
{
	onnxc_arg a;
	if (c->h->make_list(c->ctx, c->g, list->kind, items, cnt, &a) !=
	    ONNXC_OK) {
		sym_error(c, n, "%s: the host refused a size list",
		    sym_op(c, n));
		return -1;
	}
	a.key = list->key;
	if (c->h->node_set_arg(c->ctx, c->g, n, i, &a) != ONNXC_OK) {
		sym_error(c, n, "%s: the host refused a size list",
		    sym_op(c, n));
		return -1;
	}
	return 0;
}

const char *
sym_strof(SymCtx *c, onnxc_str s)
{
	const char *p = c->h->str(c->ctx, s);
	return p ? p : "";
}

/* ------------------------------------------------------- expressions */

onnxc_expr
sym_int(SymCtx *c, int64_t n)
{
	return c->h->expr_int(c->ctx, n);
}

onnxc_expr
sym_bin(SymCtx *c, uint32_t kind, onnxc_expr a, onnxc_expr b)
{
	return c->h->expr_op(c->ctx, kind, a, b);
}

onnxc_expr
sym_simplify(SymCtx *c, onnxc_expr e)
{
	return e ? c->h->expr_simplify(c->ctx, e) : 0;
}

onnxc_expr_info
sym_expr(SymCtx *c, onnxc_expr e)
{
	onnxc_expr_info x = {.kind = ONNXC_E_CALL};
	if (!e || c->h->expr_get(c->ctx, e, &x) != ONNXC_OK)
		x = (onnxc_expr_info){.kind = ONNXC_E_CALL};
	return x;
}

bool
sym_mentions(SymCtx *c, onnxc_expr e, onnxc_expr sub)
{
	return e && sub && c->h->expr_mentions(c->ctx, e, sub);
}

/* e as printed, into memory that lasts the compilation (for messages) */
static const char *
print(SymCtx *c, onnxc_expr e)
{
	char small[128];
	int n = c->h->expr_print(c->ctx, e, small, sizeof small);
	if (n < 0)
		return "?";
	char *s = c->h->alloc(c->ctx, (size_t)n + 1);
	if (!s)
		return "?";
	if ((size_t)n < sizeof small)
		memcpy(s, small, (size_t)n + 1);
	else
		c->h->expr_print(c->ctx, e, s, (size_t)n + 1);
	return s;
}

const char *
sym_text(SymCtx *c, onnxc_expr e)
{
	return print(c, sym_simplify(c, e));
}

/* a dim as the dump has it: a number or the expression as written */
const char *
sym_dimtext(SymCtx *c, Dim d)
{
	if (d.e)
		return print(c, d.e);
	char *s = c->h->alloc(c->ctx, 24);
	if (!s)
		return "?";
	snprintf(s, 24, "%lld", (long long)d.n);
	return s;
}

const char *
sym_symname(SymCtx *c, onnxc_expr s)
{
	return sym_strof(c, sym_expr(c, s).str);
}

onnxc_expr
sym_dim_expr(SymCtx *c, Dim d)
{
	return d.e ? d.e : sym_int(c, d.n);
}

Dim
sym_mkdim(SymCtx *c, onnxc_expr e)
{
	e = sym_simplify(c, e);
	onnxc_expr_info x = sym_expr(c, e);
	if (x.kind == ONNXC_E_INT)
		return (Dim){x.n, 0};
	return (Dim){0, e};
}

bool
sym_traced(SymCtx *c, onnxc_expr e, int64_t *v)
{
	return e && c->h->expr_eval(c->ctx, e, c->bsym, c->bval, c->nbind,
	    v) == ONNXC_OK;
}

bool
sym_is_new(SymCtx *c, onnxc_expr e)
{
	for (uint32_t i = 0; i < c->nnew; i++)
		if (sym_mentions(c, e, c->bsym[i]))
			return true;
	return false;
}

static bool
addbind(SymCtx *c, onnxc_expr sym, int64_t n)
{
	uint32_t cap = c->cbind;
	if (!sym_grow(c, (void **)&c->bsym, &cap, c->nbind + 1,
	    sizeof *c->bsym))
		return false;
	cap = c->cbind;
	if (!sym_grow(c, (void **)&c->bval, &cap, c->nbind + 1,
	    sizeof *c->bval))
		return false;
	c->cbind = cap;
	c->bsym[c->nbind] = sym;
	c->bval[c->nbind++] = n;
	return true;
}

/* index of sym's binding, -1 when it has none */
static int
findbind(SymCtx *c, onnxc_expr sym)
{
	for (uint32_t i = 0; i < c->nbind; i++)
		if (c->bsym[i] == sym)
			return (int)i;
	return -1;
}

/* Calls fn on every symbol of e. */
static void
eachsym(SymCtx *c, onnxc_expr e, void (*fn)(SymCtx *, onnxc_expr), int d)
{
	if (!e || d > MAXDEPTH)
		return;
	onnxc_expr_info x = sym_expr(c, e);
	if (x.kind == ONNXC_E_SYM) {
		fn(c, e);
		return;
	}
	eachsym(c, x.a, fn, d + 1);
	eachsym(c, x.b, fn, d + 1);
}

bool
sym_isident(const char *s)
{
	if (!s[0] || !((s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* ------------------------------------------------------- symbolizing */

/* values made by this pass are SymInts of new symbols */
static bool
touched(SymCtx *c, onnxc_value v)
{
	return v >= c->ntouched || c->touched[v];
}

static void
mark(SymCtx *c, onnxc_value v)
{
	if (v >= c->ntouched)
		return;
	onnxc_value_info p = sym_value(c, v);
	bool t = p.sym && sym_is_new(c, p.sym);
	Dim d[SYM_MAXR];
	int r = t ? 0 : sym_dims(c, v, d, SYM_MAXR);
	for (int i = 0; i < r && i < SYM_MAXR && !t; i++)
		t = d[i].e && sym_is_new(c, d[i].e);
	if (!t && r > SYM_MAXR) {
		Dim *big = c->scratch;
		r = r > MAXRANK ? MAXRANK : r;
		sym_dims(c, v, big, r);
		for (int i = SYM_MAXR; i < r && !t; i++)
			t = big[i].e && sym_is_new(c, big[i].e);
	}
	c->touched[v] = t;
}

static bool
arg_touched(SymCtx *c, const onnxc_arg *a, int depth)
{
	if (a->kind == ONNXC_ARG_VALUE)
		return touched(c, a->ref);
	if ((a->kind == ONNXC_ARG_LIST || a->kind == ONNXC_ARG_TUPLE) &&
	    depth < MAXDEPTH)
		for (uint32_t i = 0; i < a->len; i++) {
			onnxc_arg it;
			if (sym_item(c, a, i, &it) &&
			    arg_touched(c, &it, depth + 1))
				return true;
		}
	return false;
}

/* Stand-in values for the dump's own symbols (see SymCtx.bind). */
static void
bind_existing(SymCtx *c, onnxc_expr s)
{
	static const int64_t primes[] = {
		1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051, 1061,
		1063, 1069, 1087, 1091, 1093, 1097, 1103, 1109, 1117, 1123,
	};
	if (findbind(c, s) >= 0)
		return;
	uint32_t k = c->nbind - c->nnew;
	addbind(c, s, primes[k % 20] + 1000 * (int64_t)(k / 20));
}

static void
check_outputs(SymCtx *c, onnxc_node n, const onnxc_node_info *p,
    Dim o[][SYM_MAXR], uint32_t nout, bool *gained)
{
	for (uint32_t k = 0; k < nout; k++) {
		onnxc_value ov = p->out + k;
		onnxc_value_info v = sym_value(c, ov);
		if (v.kind != ONNXC_VK_TENSOR || v.rank <= 0 ||
		    v.rank > SYM_MAXR)
			continue;
		Dim d[SYM_MAXR];
		sym_dims(c, ov, d, SYM_MAXR);
		bool changed = false;
		for (int32_t i = 0; i < v.rank; i++) {
			/* the rule must agree with the dump at the traced
			 * sizes */
			int64_t want, got;
			onnxc_expr we = sym_dim_expr(c, d[i]);
			onnxc_expr ge = sym_dim_expr(c, o[k][i]);
			if (we == ge)
				continue;
			if (!sym_traced(c, we, &want) ||
			    !sym_traced(c, ge, &got) || want != got) {
				sym_error(c, n, "%s: the shape derived for "
				    "output '%s' has %s at dim %d where the "
				    "dump has %s (internal: a shape rule is "
				    "wrong)", sym_op(c, n),
				    sym_strof(c, v.name),
				    sym_text(c, ge), i, sym_dimtext(c, d[i]));
				break;
			}
			/* only a new symbol replaces what the dump says
			 * (rules may not know its own symbols) */
			if (o[k][i].e && sym_is_new(c, o[k][i].e)) {
				d[i] = o[k][i];
				changed = true;
			}
		}
		if (changed && c->h->value_set_type(c->ctx, c->g, ov, v.dtype,
		    v.rank, d) != ONNXC_OK)
			sym_error(c, n, "%s: the host refused the new shape of "
			    "'%s'", sym_op(c, n), sym_strof(c, v.name));
		mark(c, ov);
		*gained |= touched(c, ov);
	}
}

static int
propagate(SymCtx *c)
{
	const onnxc_host_api *h = c->h;
	int errs = c->nerr;
	c->ntouched = h->value_end(c->ctx, c->g);
	c->touched = onnxc_table_calloc(c->ntouched + 1, 1);
	Dim (*o)[SYM_MAXR] = calloc(MAXOUT, sizeof *o);
	if (!c->touched || !o) {
		free(o);
		sym_error(c, 0, "symbolize-shapes: out of memory");
		return -1;
	}
	uint32_t nin = h->input_count(c->ctx, c->g);
	for (uint32_t i = 0; i < nin; i++)
		mark(c, h->input_at(c->ctx, c->g, i));
	uint32_t nnodes0 = h->node_end(c->ctx, c->g);
	for (onnxc_node n = 1; n < nnodes0 && c->nerr == errs; n++) {
		onnxc_node_info p;
		if (h->node_get(c->ctx, c->g, n, &p) != ONNXC_OK)
			continue;
		bool t = false;
		for (uint32_t k = 0; k < p.nargs && !t; k++) {
			onnxc_arg a;
			t = sym_node_arg(c, n, k, &a) && arg_touched(c, &a, 0);
		}
		c->node = n;
		uint32_t nout = p.nout < MAXOUT ? p.nout : MAXOUT;
		for (uint32_t k = 0; k < nout; k++)
			sym_dims(c, p.out + k, o[k], SYM_MAXR);
		if (sym_infer(c, n, o) < 0)
			break;
		bool gained = false;
		check_outputs(c, n, &p, o, nout, &gained);
		for (uint32_t k = 0; k < p.nout; k++) {
			if (sym_value(c, p.out + k).kind == ONNXC_VK_SYMINT) {
				mark(c, p.out + k);
				gained |= touched(c, p.out + k);
			}
		}
		if (t && !gained && p.nout) {
			/* the symbol went in and did not come out: fine for
			 * reductions over it, suspicious when an output dim
			 * still has its traced size */
			for (uint32_t k = 0; k < nout; k++) {
				Dim d[SYM_MAXR];
				int r = sym_dims(c, p.out + k, d, SYM_MAXR);
				for (int i = 0; i < r && i < SYM_MAXR; i++)
					if (!d[i].e && sym_unproven(c, n,
					    "an output dim", d[i].n) < 0)
						goto done;
			}
		}
	}
done:
	free(o);
	return c->nerr == errs ? 0 : -1;
}

/* the dump's own symbols: stand-ins, and sources for materialising */
static void
bind_dump_symbols(SymCtx *c)
{
	Dim *d = c->scratch;
	uint32_t nv = c->h->value_end(c->ctx, c->g);
	for (onnxc_value v = 1; v < nv; v++) {
		onnxc_value_info vi = sym_value(c, v);
		int r = vi.rank > MAXRANK ? -1 : sym_dims(c, v, d, MAXRANK);
		for (int i = 0; i < r; i++)
			eachsym(c, d[i].e, bind_existing, 0);
	}
	for (onnxc_value v = 1; v < nv; v++)
		eachsym(c, sym_value(c, v).sym, bind_existing, 0);
	uint32_t nin = c->h->input_count(c->ctx, c->g);
	for (uint32_t i = 0; i < nin; i++) {
		onnxc_value v = c->h->input_at(c->ctx, c->g, i);
		onnxc_value_info vi = sym_value(c, v);
		int r = vi.rank > MAXRANK ? -1 : sym_dims(c, v, d, MAXRANK);
		for (int k = 0; k < r; k++) {
			if (!d[k].e || sym_expr(c, d[k].e).kind != ONNXC_E_SYM)
				continue;
			if (!sym_grow(c, (void **)&c->src, &c->csrc,
			    c->nsrc + 1,
			    sizeof *c->src))
				return;
			c->src[c->nsrc++] = (SymSrc){d[k].e, v, k};
		}
	}
}

static int
symbolize(SymCtx *c, const Graphs *gs, Target *t, int nt)
{
	int errs = c->nerr;
	for (int i = 0; i < nt; i++) {
		if (t[i].dim.e)
			continue;
		const SymDynamic *op = t[i].opt;
		onnxc_expr l = c->h->expr_sym(c->ctx, op->label);
		int64_t n = t[i].dim.n;
		int b = findbind(c, l);
		if (b >= 0 && c->bval[b] != n) {
			sym_error(c, 0, "--dynamic %s:%lld=%s: '%s' was traced "
			    "as %lld here but as %lld on another input",
			    op->input, (long long)op->dim, op->label, op->label,
			    (long long)n, (long long)c->bval[b]);
			continue;
		}
		if (b < 0 && sym_known_symbol(c, gs, l)) {
			sym_error(c, 0, "--dynamic %s:%lld=%s: '%s' is already "
			    "a symbol of the dump", op->input,
			    (long long)op->dim, op->label, op->label);
			continue;
		}
		if (n < 2) {
			sym_error(c, 0, "--dynamic %s:%lld=%s: the dump was "
			    "traced with size %lld there, which cannot be told "
			    "from broadcasting; re-export with a size of 2 or "
			    "more", op->input, (long long)op->dim, op->label,
			    (long long)n);
			continue;
		}
		if (b < 0 && !addbind(c, l, n))
			return -1;
		if (!sym_grow(c, (void **)&c->src, &c->csrc, c->nsrc + 1,
		    sizeof *c->src))
			return -1;
		c->src[c->nsrc++] = (SymSrc){l, t[i].v, t[i].d};
	}
	c->nnew = c->nbind;
	if (c->nerr != errs || c->nnew == 0)
		return c->nerr != errs ? -1 : 0;
	bind_dump_symbols(c);
	Dim *d = c->scratch;
	for (int i = 0; i < nt && c->nerr == errs; i++) {
		if (t[i].dim.e)
			continue;
		onnxc_value_info vi = sym_value(c, t[i].v);
		sym_dims(c, t[i].v, d, MAXRANK);
		d[t[i].d] = (Dim){0, c->h->expr_sym(c->ctx, t[i].opt->label)};
		if (c->h->value_set_type(c->ctx, c->g, t[i].v, vi.dtype,
		    vi.rank, d) != ONNXC_OK)
			sym_error(c, 0, "symbolize-shapes: the host refused "
			    "the new shape of '%s'", t[i].opt->input);
	}
	if (c->nerr != errs || propagate(c) < 0)
		return -1;
	for (uint32_t i = 0; i < c->nnew; i++)
		if (sym_findrange(c, c->bsym[i], &(int64_t){0},
		    &(int64_t){0}) < 0)
			c->h->range_set(c->ctx, c->h->range_count(c->ctx),
			    c->bsym[i], 2, INF);
	return 0;
}

/* ---------------------------------------------------------------- pass */

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	const char *dyn = "", *stat = "";
	int strict = 0;
	if (h->opt_string(ctx, "dynamic", &dyn) != ONNXC_OK ||
	    h->opt_string(ctx, "static", &stat) != ONNXC_OK ||
	    h->opt_bool(ctx, "strict", &strict) != ONNXC_OK)
		return ONNXC_INVALID;
	SymCtx c = {.ctx = ctx, .h = h, .g = h->graph(ctx),
		.strict = strict != 0};
	Opts o = {0};
	Graphs gs = {0};
	Target *t = NULL;
	if (sym_parse_options(&c, dyn, stat, &o) < 0 || (!o.ndyn && !o.nstat))
		goto out;
	if (!sym_isfx(&c, c.g)) {
		sym_error(&c, 0, "symbolize-shapes works on the FX graph: run "
		    "it before 'lower'");
		goto out;
	}
	t = calloc((size_t)o.ndyn + 1, sizeof *t);
	c.scratch = calloc(MAXRANK, sizeof *c.scratch);
	if (!t || !c.scratch || !sym_collect_graphs(&c, &gs)) {
		if (!t || !c.scratch)
			sym_error(&c, 0, "symbolize-shapes: out of memory");
		goto out;
	}
	for (int i = 0; i < o.ndyn; i++)
		sym_resolve(&c, &o.dyn[i], &t[i]);
	if (!c.nerr)
		sym_rename_symbols(&c, &gs, t, o.ndyn);
	if (!c.nerr)
		symbolize(&c, &gs, t, o.ndyn);
	if (!c.nerr)
		sym_specialise(&c, &gs, &o);
out:
	free(t);
	free(gs.g);
	free(o.buf);
	free(o.dyn);
	free(o.stat);
	free(c.bsym);
	free(c.bval);
	free(c.src);
	free(c.touched);
	free(c.memo_e);
	free(c.memo_v);
	free(c.scratch);
	return c.nerr ? ONNXC_ERROR : ONNXC_OK;
}

static const onnxc_option options[] = {
	{"dynamic", ONNXC_OPT_STRING, "", "NAME:DIM=LABEL,...: name dim DIM "
	    "of input NAME LABEL (a symbolic dim is renamed, a numeric one "
	    "becomes symbolic)"},
	{"static", ONNXC_OPT_STRING, "", "LABEL=VALUE,...: specialise a "
	    "symbol to a number"},
	{"strict", ONNXC_OPT_BOOL, "false", "literals not proven to follow a "
	    "symbolic dim are errors, not warnings"},
};

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "symbolize-shapes",
	.summary = "rename, introduce or specialise symbolic dims",
	.options = options,
	.noptions = sizeof options / sizeof *options,
	.run = run,
	.needs = ONNXC_PROP_FX,
	.provides = ONNXC_PROP_SYMBOLIZED,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	/* the expression algebra and the range table came with ABI 1.1 */
	if (!ONNXC_HOST_HAS(host, node_set_name)) {
		host->report(ctx, ONNXC_SEV_ERROR, 0, 0, "symbolize-shapes "
		    "needs a host of plugin ABI 1.1 or later");
		return ONNXC_VERSION;
	}
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(symbolize, "symbolize", "1.0", init, NULL);
