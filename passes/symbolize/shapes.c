/* shapes.c - symbolic shape rules for the symbolize-shapes pass.
 *
 * Each rule re-derives the shapes of one FX node's outputs from the
 * shapes of its inputs, which may now hold symbols where the dump had
 * numbers.  Rules fill out[k][i] with expressions; the pass checks that
 * each equals the dump's number at the traced sizes, so a wrong rule is
 * caught, not trusted.  Size literals that follow a new symbol are
 * rewritten here too (view sizes, expand sizes), and literals that only
 * happen to equal a traced size are reported (factories, slice ends).
 *
 * Ops without a rule of their own are treated as elementwise with
 * broadcasting, which is what most of ATen is: an output dim takes a new
 * symbol from an input dim at the same place (counted from the right)
 * that had the same traced size.
 */
#include <stdio.h>
#include <string.h>

#include "shapes.h"

/* ----------------------------------------------------------- reading */

bool
shp_arg(SymCtx *c, onnxc_node n, int i, const char *kw, onnxc_arg *a)
{
	return sym_arg(c, n, i, kw, a);
}

bool
shp_islist(const onnxc_arg *a)
{
	return a->kind == ONNXC_ARG_LIST || a->kind == ONNXC_ARG_TUPLE;
}

/* a tensor value of known rank (the rules follow up to SYM_MAXR dims) */
static bool
istensor(SymCtx *c, onnxc_value v)
{
	onnxc_value_info vi = sym_value(c, v);
	return vi.kind == ONNXC_VK_TENSOR && vi.rank >= 0 &&
	    vi.rank <= SYM_MAXR;
}

/* the tensor value of an argument, 0 if it is not one */
onnxc_value
shp_tensor(SymCtx *c, onnxc_node n, int i, const char *kw)
{
	onnxc_arg a;
	if (!shp_arg(c, n, i, kw, &a) || a.kind != ONNXC_ARG_VALUE)
		return 0;
	return istensor(c, a.ref) ? a.ref : 0;
}

int
shp_rank(SymCtx *c, onnxc_value v)
{
	return sym_value(c, v).rank;
}

/* all dims of v (at most SYM_MAXR) */
int
shp_dims(SymCtx *c, onnxc_value v, Dim *out)
{
	int r = sym_dims(c, v, out, SYM_MAXR);
	return r > SYM_MAXR ? SYM_MAXR : r;
}

Dim
shp_dim(SymCtx *c, onnxc_value v, int i)
{
	Dim d[SYM_MAXR];
	int r = shp_dims(c, v, d);
	if (i < 0)
		i += r;
	return i >= 0 && i < r ? d[i] : (Dim){0, 0};
}

/* copies the first cnt dims of v into out */
void
shp_copydims(SymCtx *c, onnxc_value v, Dim *out, int cnt)
{
	Dim d[SYM_MAXR];
	int r = shp_dims(c, v, d);
	for (int i = 0; i < cnt && i < r; i++)
		out[i] = d[i];
}

int
shp_outrank(SymCtx *c, onnxc_node n, uint32_t k)
{
	onnxc_value o = sym_out(c, n, k);
	if (!o)
		return -1;
	onnxc_value_info v = sym_value(c, o);
	return v.kind == ONNXC_VK_TENSOR ? v.rank : -1;
}

bool
shp_ival(SymCtx *c, const onnxc_arg *a, int64_t *v)
{
	if (a->kind == ONNXC_ARG_INT || a->kind == ONNXC_ARG_BOOL) {
		*v = a->i;
		return true;
	}
	if (a->kind == ONNXC_ARG_VALUE) {
		onnxc_expr e = sym_value(c, a->ref).sym;
		onnxc_expr_info x = sym_expr(c, e);
		if (e && x.kind == ONNXC_E_INT) {
			*v = x.n;
			return true;
		}
	}
	return false;
}

int64_t
shp_iarg(SymCtx *c, onnxc_node n, int i, const char *kw, int64_t dflt)
{
	int64_t v;
	onnxc_arg a;
	return shp_arg(c, n, i, kw, &a) && shp_ival(c, &a, &v) ? v : dflt;
}

/* an int list (or a lone int) into out; -1 when absent or not static */
int
shp_ilist(SymCtx *c, const onnxc_arg *a, int64_t *out, int cap)
{
	if (!a || a->kind == ONNXC_ARG_NONE)
		return -1;
	if (!shp_islist(a))
		return cap > 0 && shp_ival(c, a, out) ? 1 : -1;
	if ((int)a->len > cap)
		return -1;
	for (uint32_t k = 0; k < a->len; k++) {
		onnxc_arg it;
		if (!sym_item(c, a, k, &it) || !shp_ival(c, &it, &out[k]))
			return -1;
	}
	return (int)a->len;
}

/* the items of list a into it (cap of them); -1 when it is not a list
 * or longer */
int
shp_items(SymCtx *c, const onnxc_arg *a, onnxc_arg *it, int cap)
{
	if (!shp_islist(a) || (int)a->len > cap)
		return -1;
	for (uint32_t k = 0; k < a->len; k++)
		if (!sym_item(c, a, k, &it[k]))
			return -1;
	return (int)a->len;
}

bool
shp_isnew(SymCtx *c, Dim d)
{
	return d.e && sym_is_new(c, d.e);
}

bool
shp_traced(SymCtx *c, Dim d, int64_t *v)
{
	return sym_traced(c, sym_dim_expr(c, d), v);
}

int
shp_fail(SymCtx *c, onnxc_node n, const char *fmt, const char *what)
{
	char msg[300];
	snprintf(msg, sizeof msg, fmt, what);
	sym_error(c, n, "%s: %s", sym_op(c, n), msg);
	return -1;
}

int
shp_normdim(int64_t d, int r)
{
	return (int)(d < 0 ? d + r : d);
}

bool
shp_has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* ------------------------------------------------------- broadcasting */

/* Output dim i of rank r, from the tensor inputs aligned at the right:
 * a new symbol of the same traced size wins; a fixed size other than 1
 * meeting it only works at the traced size. */
int
shp_bcast_dim(SymCtx *c, onnxc_node n, const onnxc_value *in, int nin, int r,
    int i, Dim *o)
{
	int64_t want;
	if (!shp_traced(c, *o, &want))
		return 0;
	int with = -1;
	for (int k = 0; k < nin && with < 0; k++) {
		int j = i - (r - shp_rank(c, in[k]));
		int64_t v;
		if (j < 0)
			continue;
		Dim d = shp_dim(c, in[k], j);
		if (shp_isnew(c, d) && shp_traced(c, d, &v) && v == want)
			with = k;
	}
	if (with < 0)
		return 0;
	*o = shp_dim(c, in[with], i - (r - shp_rank(c, in[with])));
	for (int k = 0; k < nin; k++) {
		int j = i - (r - shp_rank(c, in[k]));
		if (j < 0 || k == with)
			continue;
		Dim d = shp_dim(c, in[k], j);
		if (!d.e && d.n != 1 && sym_unproven(c, n, "a fixed size",
		    d.n) < 0)
			return -1;
	}
	return 0;
}

/* the tensor values among the node's arguments (lists included) */
static int
tensors(SymCtx *c, onnxc_node n, onnxc_value *in, int cap)
{
	uint32_t na = sym_nargs(c, n);
	int k = 0;
	for (uint32_t i = 0; i < na; i++) {
		onnxc_arg a;
		if (!sym_node_arg(c, n, i, &a))
			continue;
		uint32_t cnt = shp_islist(&a) ? a.len : 1;
		for (uint32_t j = 0; j < cnt && k < cap; j++) {
			onnxc_arg it = a;
			if (shp_islist(&a) && !sym_item(c, &a, j, &it))
				continue;
			if (it.kind == ONNXC_ARG_VALUE && istensor(c, it.ref))
				in[k++] = it.ref;
		}
	}
	return k;
}

int
shp_broadcast(SymCtx *c, onnxc_node n, Out *out)
{
	onnxc_value in[MAXIN];
	int nin = tensors(c, n, in, MAXIN), maxr = 0;
	for (int k = 0; k < nin; k++)
		if (shp_rank(c, in[k]) > maxr)
			maxr = shp_rank(c, in[k]);
	uint32_t nout = 0;
	while (sym_out(c, n, nout))
		nout++;
	bool any = false;
	for (uint32_t k = 0; k < nout && k < MAXIN; k++) {
		int r = shp_outrank(c, n, k);
		if (r < 0 || r != maxr)
			continue;
		any = true;
		for (int i = 0; i < r; i++)
			if (shp_bcast_dim(c, n, in, nin, r, i, &out[k][i]) < 0)
				return -1;
	}
	if (!any && nout && shp_outrank(c, n, 0) > 0)
		return shp_fail(c, n, "%s",
		    "no shape rule for this op, and its "
		    "output rank differs from its inputs'; cannot follow the "
		    "symbolic dim through it");
	return 0;
}

/* -------------------------------------------------------------- table */

/* Every row of the op table with its shape column (NULL for most).  A
 * rule is found by the name without namespace and overload ("view" for
 * aten::view.default and any other overload of view); ops.def gives
 * every overload of one name the same rule. */
static const struct {
	const char *op;
	Rule fn;
} rules[] = {
#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	{op, shape},
#include "../../ir/ops.def"
#undef OP
};

/* Does op's name, without namespace and overload, equal s[0..len)? */
static bool
same_name(const char *op, const char *s, size_t len)
{
	const char *b = strstr(op, "::");
	b = b ? b + 2 : op;
	return strcspn(b, ".") == len && !memcmp(b, s, len);
}

/* Factories and slices are looked at even when nothing symbolic reaches
 * them: their literals may stand for a traced size. */
static bool
always(Rule fn)
{
	return fn == shp_factory || fn == shp_slice;
}

static Rule
find(SymCtx *c, onnxc_node n)
{
	const char *op = sym_op(c, n);
	if (!strncmp(op, "_operator::", 11) || !strncmp(op, "torch::sym_", 11))
		return shp_symop;
	const char *s = strstr(op, "::");
	s = s ? s + 2 : op;
	size_t len = strcspn(s, ".");
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (rules[i].fn && same_name(rules[i].op, s, len))
			return rules[i].fn;
	/* in-place forms (add_) follow their functional form */
	if (len > 1 && s[len - 1] == '_')
		return shp_broadcast;
	return NULL;
}

static bool
val_touched(SymCtx *c, const onnxc_arg *a)
{
	return a->kind == ONNXC_ARG_VALUE && (a->ref >= c->ntouched ||
	    c->touched[a->ref]);
}

static bool
node_touched(SymCtx *c, onnxc_node n)
{
	uint32_t na = sym_nargs(c, n);
	for (uint32_t k = 0; k < na; k++) {
		onnxc_arg a;
		if (!sym_node_arg(c, n, k, &a))
			continue;
		if (!shp_islist(&a)) {
			if (val_touched(c, &a))
				return true;
			continue;
		}
		for (uint32_t j = 0; j < a.len; j++) {
			onnxc_arg it;
			if (sym_item(c, &a, j, &it) && val_touched(c, &it))
				return true;
		}
	}
	return false;
}

int
sym_infer(SymCtx *c, onnxc_node n, Out *out)
{
	Rule fn = find(c, n);
	bool t = node_touched(c, n);
	if (!t && !(fn && always(fn)))
		return 0;
	if (!t && fn == shp_slice) {
		/* a static dim: only the literal check applies */
		return shp_slice(c, n, out);
	}
	return (fn ? fn : shp_broadcast)(c, n, out);
}
