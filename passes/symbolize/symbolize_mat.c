/* symbolize_mat.c - the symbolize-shapes pass: reporting literals that
 * only equal a traced size, and materialising symbolic expressions as
 * sym_size and operator nodes (see symbolize.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

/* ---------------------------------------------------- reporting literals */

int
sym_unproven(SymCtx *c, onnxc_node n, const char *what, int64_t lit)
{
	const char *label = NULL;
	for (uint32_t i = 0; i < c->nnew; i++)
		if (c->bval[i] == lit)
			label = sym_symname(c, c->bsym[i]);
	if (!label)
		return 0;
	c->nwarn++;
	const char *op = sym_op(c, n);
	if (c->strict) {
		sym_error(c, n, "%s: %s %lld equals the traced size of '%s' "
		    "but nothing shows it follows '%s' (--strict)", op, what,
		    (long long)lit, label, label);
		return -1;
	}
	sym_warning(c, n, "%s: %s %lld equals the traced size of '%s' but "
	    "nothing shows it follows '%s'; it stays %lld, so the model may "
	    "only work when %s is %lld", op, what, (long long)lit, label,
	    label, (long long)lit, label, (long long)lit);
	return 0;
}

/* ------------------------------------------------------- materialising */

static const char *
fresh_name(SymCtx *c, const char *base, char *buf, size_t cap)
{
	uint32_t nv = c->h->value_end(c->ctx, c->g);
	for (;;) {
		snprintf(buf, cap, "%.80s_%u", base, c->serial++);
		onnxc_str s = c->h->intern(c->ctx, buf);
		bool used = false;
		for (onnxc_value v = 1; v < nv && !used; v++)
			used = sym_value(c, v).name == s;
		if (!used)
			return buf;
	}
}

/* A new FX node computing SymInt e for c->node (the host puts it before
 * its first user); 0 (reported) when the host refuses. */
static onnxc_node
newnode(SymCtx *c, const char *op, onnxc_expr e, const char *base)
{
	const onnxc_host_api *h = c->h;
	char name[128];
	onnxc_node n = h->node_new(c->ctx, c->g, ONNXC_FX, "", op, 1);
	onnxc_value v = n ? sym_out(c, n, 0) : 0;
	fresh_name(c, base, name, sizeof name);
	if (!v || h->node_set_origin(c->ctx, c->g, n, c->node) != ONNXC_OK ||
	    h->node_set_name(c->ctx, c->g, n, name) != ONNXC_OK ||
	    h->value_set_name(c->ctx, c->g, v, name) != ONNXC_OK ||
	    h->value_set_sym(c->ctx, c->g, v, ONNXC_VK_SYMINT, e) !=
	    ONNXC_OK) {
		sym_error(c, c->node, "%s: the host refused a new %s node",
		    sym_op(c, c->node), op);
		return 0;
	}
	return n;
}

static onnxc_arg
intarg(int64_t i)
{
	return (onnxc_arg){.kind = ONNXC_ARG_INT, .i = i};
}

static onnxc_arg
valarg(onnxc_value v)
{
	return (onnxc_arg){.kind = ONNXC_ARG_VALUE, .ref = v};
}

static bool
push(SymCtx *c, onnxc_node n, onnxc_arg a)
{
	if (c->h->node_push_arg(c->ctx, c->g, n, &a) == ONNXC_OK)
		return true;
	sym_error(c, c->node, "%s: the host refused an argument of a new node",
	    sym_op(c, c->node));
	return false;
}

static onnxc_value
binop(SymCtx *c, const char *op, onnxc_arg a, onnxc_arg b, onnxc_expr e)
{
	const char *base = strchr(op, ':') ? strrchr(op, ':') + 1 : op;
	onnxc_node n = newnode(c, op, e, base);
	if (!n || !push(c, n, a) || !push(c, n, b))
		return 0;
	return sym_out(c, n, 0);
}

static onnxc_arg
operand(SymCtx *c, onnxc_expr e, bool *ok)
{
	onnxc_expr_info x = sym_expr(c, e);
	if (x.kind == ONNXC_E_INT)
		return intarg(x.n);
	onnxc_value v = sym_materialize(c, e);
	if (!v)
		*ok = false;
	return valarg(v);
}

static onnxc_value
mat_symbol(SymCtx *c, onnxc_expr s)
{
	for (uint32_t i = 0; i < c->nsrc; i++) {
		if (c->src[i].sym != s)
			continue;
		char base[96];
		snprintf(base, sizeof base, "sym_size_%s", sym_symname(c, s));
		onnxc_node n = newnode(c, "aten::sym_size.int", s, base);
		if (!n || !push(c, n, valarg(c->src[i].v)) ||
		    !push(c, n, intarg(c->src[i].d)))
			return 0;
		return sym_out(c, n, 0);
	}
	sym_error(c, c->node, "%s: no graph input has a dim that is just '%s', "
	    "so its size cannot be read at run time", sym_op(c, c->node),
	    sym_symname(c, s));
	return 0;
}

onnxc_value
sym_materialize(SymCtx *c, onnxc_expr e)
{
	e = sym_simplify(c, e);
	for (uint32_t i = 0; i < c->nmemo; i++)
		if (c->memo_e[i] == e)
			return c->memo_v[i];
	onnxc_expr_info x = sym_expr(c, e);
	onnxc_value r = 0;
	bool ok = true;
	switch (x.kind) {
	case ONNXC_E_SYM:
		r = mat_symbol(c, e);
		break;
	case ONNXC_E_ADD: {
		/* a - b prints as a + (-b): compute it as sub */
		onnxc_expr_info b = sym_expr(c, x.b);
		if (b.kind == ONNXC_E_NEG) {
			onnxc_arg l = operand(c, x.a, &ok);
			onnxc_arg rr = operand(c, b.a, &ok);
			if (ok)
				r = binop(c, "_operator::sub", l, rr, e);
		} else if (b.kind == ONNXC_E_INT && b.n < 0 &&
		    b.n != INT64_MIN) {
			onnxc_arg l = operand(c, x.a, &ok);
			if (ok)
				r = binop(c, "_operator::sub", l,
				    intarg(-b.n), e);
		} else {
			onnxc_arg l = operand(c, x.a, &ok);
			onnxc_arg rr = operand(c, x.b, &ok);
			if (ok)
				r = binop(c, "_operator::add", l, rr, e);
		}
		break;
	}
	case ONNXC_E_MUL: {
		onnxc_arg l = operand(c, x.a, &ok), rr = operand(c, x.b, &ok);
		if (ok)
			r = binop(c, "_operator::mul", l, rr, e);
		break;
	}
	case ONNXC_E_NEG: {
		onnxc_arg l = operand(c, x.a, &ok);
		if (ok)
			r = binop(c, "_operator::mul", l, intarg(-1), e);
		break;
	}
	case ONNXC_E_FLOORDIV:
	case ONNXC_E_MOD:
	case ONNXC_E_MAX:
	case ONNXC_E_MIN: {
		const char *op = x.kind == ONNXC_E_FLOORDIV
		    ? "_operator::floordiv" : x.kind == ONNXC_E_MOD
		    ? "_operator::mod" : x.kind == ONNXC_E_MAX
		    ? "torch::sym_max" : "torch::sym_min";
		onnxc_arg l = operand(c, x.a, &ok), rr = operand(c, x.b, &ok);
		if (ok)
			r = binop(c, op, l, rr, e);
		break;
	}
	case ONNXC_E_POW: {
		onnxc_expr_info k = sym_expr(c, x.b);
		if (k.kind == ONNXC_E_INT && k.n >= 1 && k.n <= 8) {
			onnxc_arg base = operand(c, x.a, &ok), acc = base;
			onnxc_expr acce = x.a;
			for (int64_t i = 1; i < k.n && ok; i++) {
				acce = sym_simplify(c, sym_bin(c, ONNXC_E_MUL,
				    acce, x.a));
				onnxc_value v = binop(c, "_operator::mul", acc,
				    base, acce);
				ok = v != 0;
				acc = valarg(v);
			}
			if (ok)
				r = acc.kind == ONNXC_ARG_VALUE ? acc.ref : 0;
			break;
		}
	}
		/* fallthrough */
	default:
		sym_error(c, c->node, "%s: cannot compute the size '%s' at run "
		    "time", sym_op(c, c->node), sym_text(c, e));
		return 0;
	}
	if (r) {
		uint32_t cap = c->cmemo;
		if (!sym_grow(c, (void **)&c->memo_e, &cap, c->nmemo + 1,
		    sizeof *c->memo_e))
			return 0;
		cap = c->cmemo;
		if (!sym_grow(c, (void **)&c->memo_v, &cap, c->nmemo + 1,
		    sizeof *c->memo_v))
			return 0;
		c->cmemo = cap;
		c->memo_e[c->nmemo] = e;
		c->memo_v[c->nmemo++] = r;
	}
	return r;
}
