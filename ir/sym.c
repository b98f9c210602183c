/* sym.c - symbolic algebra on Exprs.
 *
 * Arithmetic over integers (+, *, negation, powers by constants, floor
 * division and modulo by constants) is brought into a sum-of-products
 * normal form: a sum of terms c * a1**k1 * a2**k2 ..., where the atoms ai
 * are symbols or expressions the form does not look into (Max, a // s1,
 * calls), themselves simplified.  The form is turned back into an Expr the
 * way sympy orders and prints it, so that printing a simplified expression
 * gives PyTorch's text: terms by descending lexicographic exponent vectors
 * over atoms sorted by name ("s0*s1 + s0 + 1"), coefficient first ("2*s0"),
 * and sympy's one special case of a positive number before a single
 * negative term ("5 - s0").
 *
 * Normal forms are bounded (MAXT terms of MAXF factors); an expression
 * that would exceed them, or overflow, is kept as it is.
 *
 * The tables of range and equality constraints sym_bounds reads are in
 * sym_range.c.
 */
#include <stdlib.h>
#include <string.h>

#include "ckint.h"
#include "ir.h"

enum { MAXT = 24, MAXF = 6, MAXDEPTH = 64 };

typedef struct Fac {
	ExprId atom;
	int32_t exp;
} Fac;

typedef struct Term {
	int64_t c;
	uint8_t nf;
	Fac f[MAXF];
} Term;

typedef struct Poly {
	uint32_t n;
	bool bad; /* too big or overflowed: use the expression as is */
	Term t[MAXT];
} Poly;

/* ------------------------------------------------------------ ordering */

static const char *
atomtext(Module *m, ExprId e, char *buf, size_t cap)
{
	ir_expr_print(m, e, buf, cap);
	return buf;
}

/* Symbols first, by name (sympy compares names as strings); then other
 * atoms by their text. */
static int
atomcmp(Module *m, ExprId a, ExprId b)
{
	if (a == b)
		return 0;
	Expr x = *ir_exprp(m, a), y = *ir_exprp(m, b);
	int cx = x.kind != E_SYM, cy = y.kind != E_SYM;
	if (cx != cy)
		return cx - cy;
	int r;
	if (!cx) {
		r = strcmp(ir_str(m, x.str), ir_str(m, y.str));
	} else {
		char ba[256], bb[256];
		r = strcmp(atomtext(m, a, ba, sizeof ba),
		    atomtext(m, b, bb, sizeof bb));
	}
	if (r)
		return r;
	return a < b ? -1 : 1;
}

/* Monomial order: negative when s comes before t in a printed sum. */
static int
monocmp(Module *m, const Term *s, const Term *t)
{
	uint8_t i = 0, j = 0;
	while (i < s->nf && j < t->nf) {
		int c = atomcmp(m, s->f[i].atom, t->f[j].atom);
		if (c < 0)
			return -1; /* s has an earlier atom t lacks */
		if (c > 0)
			return 1;
		if (s->f[i].exp != t->f[j].exp)
			return s->f[i].exp > t->f[j].exp ? -1 : 1;
		i++;
		j++;
	}
	if (i < s->nf)
		return -1;
	if (j < t->nf)
		return 1;
	return 0;
}

static bool
samemono(const Term *s, const Term *t)
{
	if (s->nf != t->nf)
		return false;
	for (uint8_t i = 0; i < s->nf; i++)
		if (s->f[i].atom != t->f[i].atom || s->f[i].exp != t->f[i].exp)
			return false;
	return true;
}

/* Sort terms, merge equal monomials, drop zeros. */
static void
normalize(Module *m, Poly *p)
{
	if (p->bad)
		return;
	for (uint32_t i = 1; i < p->n; i++) {
		Term t = p->t[i];
		uint32_t j = i;
		while (j > 0 && monocmp(m, &p->t[j - 1], &t) > 0) {
			p->t[j] = p->t[j - 1];
			j--;
		}
		p->t[j] = t;
	}
	uint32_t w = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		if (w > 0 && samemono(&p->t[w - 1], &p->t[i])) {
			if (__builtin_add_overflow(p->t[w - 1].c, p->t[i].c,
			    &p->t[w - 1].c))
				p->bad = true;
		} else {
			p->t[w++] = p->t[i];
		}
	}
	p->n = w;
	w = 0;
	for (uint32_t i = 0; i < p->n; i++)
		if (p->t[i].c != 0)
			p->t[w++] = p->t[i];
	p->n = w;
}

/* ---------------------------------------------------------- arithmetic */

static void
pconst(Poly *p, int64_t c)
{
	p->n = 0;
	p->bad = false;
	if (c) {
		p->t[0] = (Term){.c = c};
		p->n = 1;
	}
}

static void
patom(Poly *p, ExprId a)
{
	p->bad = false;
	p->n = 1;
	p->t[0] = (Term){.c = 1, .nf = 1, .f = {{a, 1}}};
}

static bool
isconst(const Poly *p, int64_t *c)
{
	if (p->bad || p->n > 1 || (p->n == 1 && p->t[0].nf))
		return false;
	*c = p->n ? p->t[0].c : 0;
	return true;
}

static void
padd(Module *m, Poly *r, const Poly *a, const Poly *b)
{
	Poly t;
	t.bad = a->bad || b->bad || a->n + b->n > MAXT;
	t.n = 0;
	if (!t.bad) {
		memcpy(t.t, a->t, a->n * sizeof *a->t);
		memcpy(t.t + a->n, b->t, b->n * sizeof *b->t);
		t.n = a->n + b->n;
	}
	normalize(m, &t);
	*r = t;
}

static bool
termmul(Module *m, Term *r, const Term *s, const Term *t)
{
	Term x = {.nf = 0};
	if (__builtin_mul_overflow(s->c, t->c, &x.c))
		return false;
	uint8_t i = 0, j = 0;
	while (i < s->nf || j < t->nf) {
		if (x.nf == MAXF)
			return false;
		int c = i == s->nf ? 1 : j == t->nf ? -1
		    : atomcmp(m, s->f[i].atom, t->f[j].atom);
		if (c < 0) {
			x.f[x.nf++] = s->f[i++];
		} else if (c > 0) {
			x.f[x.nf++] = t->f[j++];
		} else {
			x.f[x.nf] = s->f[i++];
			x.f[x.nf++].exp += t->f[j++].exp;
		}
	}
	*r = x;
	return true;
}

static void
pmul(Module *m, Poly *r, const Poly *a, const Poly *b)
{
	Poly t;
	t.n = 0;
	t.bad = a->bad || b->bad || a->n * b->n > MAXT;
	for (uint32_t i = 0; i < a->n && !t.bad; i++)
		for (uint32_t j = 0; j < b->n && !t.bad; j++)
			if (!termmul(m, &t.t[t.n++], &a->t[i], &b->t[j]))
				t.bad = true;
	normalize(m, &t);
	*r = t;
}

static void
pscale(Poly *p, int64_t c)
{
	for (uint32_t i = 0; i < p->n && !p->bad; i++)
		if (__builtin_mul_overflow(p->t[i].c, c, &p->t[i].c))
			p->bad = true;
	if (c == 0)
		p->n = 0;
}

/* ------------------------------------------------------ Expr <-> Poly */

static void topoly(Module *m, ExprId e, Poly *p, int depth);

static ExprId
monoexpr(Module *m, const Term *t)
{
	ExprId r = 0;
	for (uint8_t i = 0; i < t->nf; i++) {
		ExprId f = t->f[i].atom;
		if (t->f[i].exp != 1)
			f = ir_expr_bin(m, E_POW, f,
			    ir_expr_int(m, t->f[i].exp));
		r = r ? ir_expr_bin(m, E_MUL, r, f) : f;
	}
	return r;
}

/* A term as it prints with its sign: "-s0*s1" is Mul(Neg(s0), s1). */
static ExprId
termexpr(Module *m, const Term *t, bool abs)
{
	int64_t c = t->c;
	if (abs && c < 0)
		c = -c;
	if (t->nf == 0)
		return ir_expr_int(m, c);
	if (c == 1)
		return monoexpr(m, t);
	if (c == -1) {
		Term rest = *t;
		ExprId first = rest.f[0].atom;
		if (rest.f[0].exp != 1)
			first = ir_expr_bin(m, E_POW, first,
			    ir_expr_int(m, rest.f[0].exp));
		ExprId r = ir_expr_bin(m, E_NEG, first, 0);
		for (uint8_t i = 1; i < t->nf; i++) {
			Term one = {.c = 1, .nf = 1, .f = {t->f[i]}};
			r = ir_expr_bin(m, E_MUL, r, monoexpr(m, &one));
		}
		return r;
	}
	ExprId r = ir_expr_int(m, c);
	for (uint8_t i = 0; i < t->nf; i++) {
		Term one = {.c = 1, .nf = 1, .f = {t->f[i]}};
		r = ir_expr_bin(m, E_MUL, r, monoexpr(m, &one));
	}
	return r;
}

static ExprId
polyexpr(Module *m, const Poly *p)
{
	if (p->n == 0)
		return ir_expr_int(m, 0);
	/* sympy: Add(positive number, Mul(negative number, x)) prints the
	 * number first ("5 - s0") */
	if (p->n == 2 && p->t[1].nf == 0 && p->t[1].c > 0 &&
	    p->t[0].c < 0 && p->t[0].nf == 1 && p->t[0].c != INT64_MIN) {
		ExprId r = ir_expr_int(m, p->t[1].c);
		ExprId neg = ir_expr_bin(m, E_NEG, termexpr(m, &p->t[0], true),
		    0);
		return ir_expr_bin(m, E_ADD, r, neg);
	}
	ExprId r = termexpr(m, &p->t[0], false);
	for (uint32_t i = 1; i < p->n; i++) {
		const Term *t = &p->t[i];
		ExprId x;
		if (t->nf == 0)
			x = ir_expr_int(m, t->c);
		else if (t->c < 0 && t->c != INT64_MIN)
			x = ir_expr_bin(m, E_NEG, termexpr(m, t, true), 0);
		else
			x = termexpr(m, t, false);
		r = ir_expr_bin(m, E_ADD, r, x);
	}
	return r;
}

/* Max/Min: operands flattened, constants folded, sorted (numbers first,
 * then by text) and deduplicated, then decided by ranges where they
 * can. */
static ExprId
lattice(Module *m, ExprKind k, ExprId e)
{
	ExprId ops[32];
	uint32_t n = 0;
	ExprId stack[64];
	uint32_t sp = 0;
	stack[sp++] = e;
	while (sp) {
		ExprId x = stack[--sp];
		Expr ex = *ir_exprp(m, x);
		if (ex.kind == k && sp + 2 <= 64) {
			stack[sp++] = ex.b;
			stack[sp++] = ex.a;
		} else if (n < 32) {
			ops[n++] = sym_simplify(m, x);
		} else {
			return e;
		}
	}
	bool haveconst = false;
	int64_t cv = 0;
	uint32_t w = 0;
	for (uint32_t i = 0; i < n; i++) {
		Expr x = *ir_exprp(m, ops[i]);
		if (x.kind == E_INT) {
			if (!haveconst || (k == E_MAX ? x.n > cv : x.n < cv))
				cv = x.n;
			haveconst = true;
			continue;
		}
		bool dup = false;
		for (uint32_t j = 0; j < w; j++)
			dup |= ops[j] == ops[i];
		if (!dup)
			ops[w++] = ops[i];
	}
	n = w;
	/* drop operands another operand dominates for sure */
	for (uint32_t i = 0; i < n; i++) {
		int64_t lo, hi;
		bool dominated = false;
		for (uint32_t j = 0; j < n && !dominated; j++) {
			if (i == j || !ops[j])
				continue;
			ExprId d = ir_expr_bin(m, E_ADD, ops[j],
			    ir_expr_bin(m, E_NEG, ops[i], 0));
			sym_bounds(m, d, &lo, &hi);
			dominated = k == E_MAX ? lo >= 0 : hi <= 0;
		}
		if (haveconst && !dominated) {
			sym_bounds(m, ops[i], &lo, &hi);
			if (k == E_MAX ? hi <= cv : lo >= cv)
				dominated = true;
			else if (k == E_MAX ? lo >= cv : hi <= cv)
				haveconst = false; /* it is dominated */
		}
		if (dominated)
			ops[i] = 0;
	}
	w = 0;
	for (uint32_t i = 0; i < n; i++)
		if (ops[i])
			ops[w++] = ops[i];
	n = w;
	for (uint32_t i = 1; i < n; i++) {
		ExprId t = ops[i];
		uint32_t j = i;
		char a[256], b[256];
		while (j > 0 && strcmp(atomtext(m, ops[j - 1], a, sizeof a),
		    atomtext(m, t, b, sizeof b)) > 0) {
			ops[j] = ops[j - 1];
			j--;
		}
		ops[j] = t;
	}
	if (haveconst) {
		memmove(ops + 1, ops, n * sizeof *ops);
		ops[0] = ir_expr_int(m, cv);
		n++;
	}
	if (n == 0)
		return e; /* cannot happen: something always survives */
	ExprId r = ops[n - 1];
	for (uint32_t i = n - 1; i-- > 0;)
		r = ir_expr_bin(m, k, ops[i], r);
	return r;
}

/* a // c and a % c for a constant c != 0: the terms of a that c divides
 * come out of the floor ((c*q + r) // c == q + r // c for integers). */
static void
divmod(Module *m, const Expr *x, Poly *p, int depth)
{
	Poly a, b;
	topoly(m, x->a, &a, depth + 1);
	topoly(m, x->b, &b, depth + 1);
	bool isdiv = x->kind == E_FLOORDIV;
	if (a.bad || b.bad) {
		p->bad = true;
		return;
	}
	int64_t cb = 0, rc;
	bool bconst = isconst(&b, &cb) && cb != 0;
	Poly q = {.n = 0}, r = {.n = 0};
	if (bconst && cb > 0) {
		for (uint32_t i = 0; i < a.n; i++) {
			if (a.t[i].c % cb == 0) {
				q.t[q.n] = a.t[i];
				q.t[q.n++].c /= cb;
			} else {
				r.t[r.n++] = a.t[i];
			}
		}
	} else {
		r = a;
	}
	Poly rest;
	int64_t v;
	if (bconst && isconst(&r, &rc) && (isdiv ? ck_floordiv(rc, cb, &v)
	    : ck_mod(rc, cb, &v))) {
		pconst(&rest, v);
	} else {
		ExprId re = polyexpr(m, &r), be = polyexpr(m, &b);
		Expr y = {.kind = x->kind, .str = 0, .a = re, .b = be};
		if (!isdiv)
			y.str = ir_intern(m, "Mod");
		patom(&rest, ir_expr(m, &y));
	}
	if (isdiv)
		padd(m, p, &q, &rest);
	else
		*p = rest; /* (c*q + r) % c == r % c */
}

/* A node the normal form does not look into, with its operands
 * simplified (Max/Min normalised). */
static ExprId
opaque(Module *m, ExprId e)
{
	Expr x = *ir_exprp(m, e);
	if (x.kind == E_MAX || x.kind == E_MIN)
		return lattice(m, (ExprKind)x.kind, e);
	if (x.kind == E_INT || x.kind == E_SYM || x.kind == E_FLOAT)
		return e;
	Expr y = x;
	if (x.a)
		y.a = sym_simplify(m, x.a);
	if (x.b)
		y.b = sym_simplify(m, x.b);
	return ir_expr(m, &y);
}

static void
topoly(Module *m, ExprId e, Poly *p, int depth)
{
	p->bad = false;
	if (depth > MAXDEPTH) {
		p->bad = true;
		return;
	}
	Expr x = *ir_exprp(m, e);
	Poly a, b;
	switch (x.kind) {
	case E_INT:
		pconst(p, x.n);
		return;
	case E_SYM:
		patom(p, e);
		return;
	case E_ADD:
		topoly(m, x.a, &a, depth + 1);
		topoly(m, x.b, &b, depth + 1);
		padd(m, p, &a, &b);
		return;
	case E_NEG:
		topoly(m, x.a, p, depth + 1);
		pscale(p, -1);
		return;
	case E_MUL:
		topoly(m, x.a, &a, depth + 1);
		topoly(m, x.b, &b, depth + 1);
		pmul(m, p, &a, &b);
		return;
	case E_POW: {
		Expr ex = *ir_exprp(m, x.b);
		if (ex.kind != E_INT || ex.n < 0 || ex.n > 16)
			break;
		topoly(m, x.a, &a, depth + 1);
		pconst(p, 1);
		for (int64_t i = 0; i < ex.n && !p->bad; i++)
			pmul(m, p, p, &a);
		return;
	}
	case E_FLOORDIV:
	case E_MOD:
		divmod(m, &x, p, depth);
		return;
	default:
		break;
	}
	ExprId o = opaque(m, e);
	const Expr *y = ir_exprp(m, o);
	if (y->kind == E_INT)
		pconst(p, y->n);
	else
		patom(p, o);
}

static bool
arith(uint8_t k)
{
	return k == E_INT || k == E_SYM || k == E_ADD || k == E_NEG ||
	    k == E_MUL || k == E_POW || k == E_FLOORDIV || k == E_MOD;
}

ExprId
sym_simplify(Module *m, ExprId e)
{
	if (e == 0)
		return 0;
	Expr x = *ir_exprp(m, e);
	if (!arith(x.kind))
		return opaque(m, e);
	Poly p;
	topoly(m, e, &p, 0);
	if (p.bad)
		return e;
	return polyexpr(m, &p);
}

int
sym_print(Module *m, ExprId e, char *buf, size_t cap)
{
	return ir_expr_print(m, sym_simplify(m, e), buf, cap);
}

size_t
sym_add(Module *m, ExprId e, char *buf, size_t cap, size_t len)
{
	int n = len < cap ? sym_print(m, e, buf + len, cap - len) :
	    sym_print(m, e, NULL, 0);
	return len + (n > 0 ? (size_t)n : 0);
}

const char *
sym_text(Module *m, ExprId e)
{
	return ir_dim_text(m, (Dim){0, sym_simplify(m, e)});
}

/* ----------------------------------------------------------- evaluation */

static int
ev(const Module *m, ExprId e, const SymBind *bs, uint32_t nb, int64_t *out,
    int depth)
{
	if (e == 0 || depth > MAXDEPTH)
		return -1;
	const Expr *x = ir_exprp(m, e);
	int64_t a = 0, b = 0;
	if (x->kind == E_INT) {
		*out = x->n;
		return 0;
	}
	if (x->kind == E_SYM) {
		for (uint32_t i = 0; i < nb; i++) {
			if (bs[i].sym == e) {
				*out = bs[i].n;
				return 0;
			}
		}
		return -1;
	}
	if (x->kind == E_FLOAT || x->kind == E_TRUEDIV || x->kind == E_CALL)
		return -1;
	ExprId xa = x->a, xb = x->b;
	uint8_t k = x->kind;
	if (xa && ev(m, xa, bs, nb, &a, depth + 1) < 0)
		return -1;
	if (xb && ev(m, xb, bs, nb, &b, depth + 1) < 0)
		return -1;
	switch (k) {
	case E_ADD:
		return ck_add(a, b, out) ? 0 : -1;
	case E_MUL:
		return ck_mul(a, b, out) ? 0 : -1;
	case E_NEG:
		return ck_neg(a, out) ? 0 : -1;
	case E_FLOORDIV:
		return ck_floordiv(a, b, out) ? 0 : -1;
	case E_MOD:
		return ck_mod(a, b, out) ? 0 : -1;
	case E_POW:
		return ck_pow(a, b, out) ? 0 : -1;
	case E_MAX: *out = a > b ? a : b; return 0;
	case E_MIN: *out = a < b ? a : b; return 0;
	case E_TOFLOAT: *out = a; return 0;
	case E_EQ: *out = a == b; return 0;
	case E_NE: *out = a != b; return 0;
	case E_LT: *out = a < b; return 0;
	case E_LE: *out = a <= b; return 0;
	case E_GT: *out = a > b; return 0;
	case E_GE: *out = a >= b; return 0;
	case E_AND: *out = a && b; return 0;
	case E_OR: *out = a || b; return 0;
	case E_NOT: *out = !a; return 0;
	default:
		return -1;
	}
}

int
sym_eval(const Module *m, ExprId e, const SymBind *b, uint32_t nb,
    int64_t *out)
{
	return ev(m, e, b, nb, out, 0);
}

/* --------------------------------------------------------- substitution */

static ExprId
subst(Module *m, ExprId e, ExprId sym, ExprId by, int depth)
{
	if (e == 0 || depth > MAXDEPTH)
		return e;
	if (e == sym)
		return by;
	Expr x = *ir_exprp(m, e);
	if (x.kind == E_INT || x.kind == E_SYM || x.kind == E_FLOAT)
		return e;
	Expr y = x;
	y.a = subst(m, x.a, sym, by, depth + 1);
	y.b = subst(m, x.b, sym, by, depth + 1);
	if (y.a == x.a && y.b == x.b)
		return e;
	return ir_expr(m, &y);
}

ExprId
sym_subst(Module *m, ExprId e, ExprId sym, ExprId by)
{
	ExprId r = subst(m, e, sym, by, 0);
	return r == e ? e : sym_simplify(m, r);
}

static bool
mentions(const Module *m, ExprId e, ExprId sym, int depth)
{
	if (e == 0 || depth > MAXDEPTH)
		return false;
	if (e == sym)
		return true;
	const Expr *x = ir_exprp(m, e);
	return mentions(m, x->a, sym, depth + 1) ||
	    mentions(m, x->b, sym, depth + 1);
}

bool
sym_mentions(const Module *m, ExprId e, ExprId sym)
{
	return mentions(m, e, sym, 0);
}

/* --------------------------------------------------------------- ranges */

/* Interval arithmetic with SYM_NINF/SYM_INF as infinities. */
static int64_t
satmul(int64_t a, int64_t b)
{
	if (a == 0 || b == 0)
		return 0;
	bool neg = (a < 0) != (b < 0);
	if (a == SYM_INF || a == SYM_NINF || b == SYM_INF || b == SYM_NINF)
		return neg ? SYM_NINF : SYM_INF;
	int64_t r;
	if (__builtin_mul_overflow(a, b, &r))
		return neg ? SYM_NINF : SYM_INF;
	return r;
}

static int64_t
satadd(int64_t a, int64_t b)
{
	if (a == SYM_NINF || b == SYM_NINF)
		return SYM_NINF;
	if (a == SYM_INF || b == SYM_INF)
		return SYM_INF;
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return a < 0 ? SYM_NINF : SYM_INF;
	return r;
}

static void
imul(int64_t *lo, int64_t *hi, int64_t l2, int64_t h2)
{
	int64_t c[4] = {satmul(*lo, l2), satmul(*lo, h2), satmul(*hi, l2),
	    satmul(*hi, h2)};
	*lo = *hi = c[0];
	for (int i = 1; i < 4; i++) {
		if (c[i] < *lo)
			*lo = c[i];
		if (c[i] > *hi)
			*hi = c[i];
	}
}

static void
atombounds(Module *m, ExprId a, int64_t *lo, int64_t *hi)
{
	const SymRange *r = sym_range_find(m, a);
	*lo = r ? r->lo : SYM_NINF;
	*hi = r ? r->hi : SYM_INF;
}

void
sym_bounds(Module *m, ExprId e, int64_t *lo, int64_t *hi)
{
	*lo = SYM_NINF;
	*hi = SYM_INF;
	Poly p;
	topoly(m, e, &p, 0);
	if (p.bad)
		return;
	int64_t slo = 0, shi = 0;
	for (uint32_t i = 0; i < p.n; i++) {
		const Term *t = &p.t[i];
		int64_t tlo = t->c, thi = t->c;
		for (uint8_t k = 0; k < t->nf; k++) {
			int64_t alo, ahi;
			atombounds(m, t->f[k].atom, &alo, &ahi);
			for (int32_t j = 0; j < t->f[k].exp; j++) {
				/* even powers are not negative */
				if (j == 1 && t->f[k].exp % 2 == 0 && alo < 0)
					alo = 0;
				imul(&tlo, &thi, alo, ahi);
			}
		}
		slo = satadd(slo, tlo);
		shi = satadd(shi, thi);
	}
	/* a whole expression may have a range of its own (2*s0: VR[..]) */
	const SymRange *r = sym_range_find(m, e);
	if (r) {
		if (r->lo > slo)
			slo = r->lo;
		if (r->hi < shi)
			shi = r->hi;
	}
	*lo = slo;
	*hi = shi;
}
