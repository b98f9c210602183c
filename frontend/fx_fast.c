/* fx_fast.c - the statement PyTorch prints for nearly every node,
 *
 *     NAME: "ANNOT" = a.b.c(ARG, ..., KEY = ARG)
 *
 * each ARG a value name, True, False, None, inf, nan, an integer (maybe
 * negative) or a flat [list] of those, the line ending after the ')' or
 * in ";  frees", read from the text in one pass rather than token by
 * token.  Anything else, and any line a diagnostic is to be given for, is
 * left to the general path (fx_parse.c), which then reads the line from
 * its start: nothing is changed before the whole line is read and every
 * name found bound, and names are interned in the general path's order.
 */
#include <string.h>

#include "fx_int.h"

/* Beyond these the general path reads the line. */
enum {
	MAXPARTS = 16,   /* fx_dotted's limit */
	MAXITEMS = 64,   /* arguments and list items of one call */
	MAXNAME = 1024,  /* bytes of a name or an annotation */
	OPG = FX_OPG
};

enum { I_NAME, I_INT, I_LIST, I_END };

/* An argument, a list item, or the start or end of a list. */
typedef struct Item {
	uint8_t kind;
	bool neg;          /* I_INT: written with '-' */
	const char *p;     /* I_NAME: the name */
	uint32_t n;
	uint64_t u;        /* I_INT */
	const char *key;   /* a keyword argument's name, or NULL */
	uint32_t nkey;
} Item;

/* What a line holds, as the scan found it. */
typedef struct Line {
	FxAnnot an;
	const char *part[MAXPARTS];
	uint32_t npart[MAXPARTS];
	int nparts;
	const char *op;    /* the dotted text */
	uint32_t nop;
	StrId opid;        /* its op, where c->opg knew the text */
	uint32_t slot;     /* its entry of c->opg, or OPG */
	Item it[MAXITEMS];
	int nit;
	const char *next;  /* the start of the next line */
} Line;

/* The scan below reads one line, which ends in '\n' (scan checks that
 * first): no loop passes that byte, so none looks for the end of the
 * text. */

static const char *
blanks(const char *q)
{
	while (fx_isblank(*q))
		q++;
	return q;
}

/* The end of the name at q, or q where there is none (or a long one). */
static const char *
name(const char *q)
{
	const char *a = q;
	if (!fx_isname0(*q))
		return a;
	while (fx_isnamec(*q))
		q++;
	return q - a > MAXNAME ? a : q;
}

static bool
wordis(const char *p, uint32_t n, const char *w)
{
	return strlen(w) == n && memcmp(p, w, n) == 0;
}

/* One value at q: a name, an integer or -integer.  Returns its end, or
 * NULL. */
static const char *
value(const char *q, Item *it)
{
	if (*q == '-') {
		it->neg = true;
		q = blanks(q + 1);
	}
	if (fx_isdig(*q)) {
		const char *a = q;
		uint64_t u = 0;
		while (fx_isdig(*q))
			u = u * 10 + (uint64_t)(*q++ - '0');
		/* 18 digits fit 63 bits; '.', 'e' or a letter after the
		 * digits would make another token */
		if (q - a > 18 || (!fx_isblank(*q) && *q != ',' && *q != ')' &&
		    *q != ']'))
			return NULL;
		it->kind = I_INT;
		it->u = u;
		return q;
	}
	const char *e = name(q);
	if (it->neg || e == q)
		return NULL;
	it->kind = I_NAME;
	it->p = q;
	it->n = (uint32_t)(e - q);
	return e;
}

/* The next item of ln, zeroed; NULL when it would leave no room for a
 * list's I_END. */
static Item *
next_item(Line *ln)
{
	if (ln->nit + 2 > MAXITEMS)
		return NULL;
	Item *it = &ln->it[ln->nit++];
	memset(it, 0, sizeof *it);
	return it;
}

/* After an item at q: a ',' (and the blanks after it), or the closer,
 * which is left for the caller; NULL for anything else. */
static const char *
separator(const char *q, char close)
{
	q = blanks(q);
	if (*q == ',')
		return blanks(q + 1);
	return *q == close ? q : NULL;
}

/* The arguments after the '(' at q, up to the ')'; returns the position
 * after it, or NULL. */
static const char *
args(Line *ln, const char *q)
{
	bool kw = false;
	q = blanks(q);
	while (*q != ')') {
		Item *it = next_item(ln);
		if (!it)
			return NULL;
		const char *e = name(q), *eq = blanks(e);
		if (e > q && eq[0] == '=' && eq[1] != '=') {
			it->key = q;
			it->nkey = (uint32_t)(e - q);
			kw = true;
			q = blanks(eq + 1);
		} else if (kw) {
			return NULL;  /* positional after keywords: an error */
		}
		if (*q == '[') {
			/* a flat list: its items follow, then an I_END */
			it->kind = I_LIST;
			q = blanks(q + 1);
			while (*q != ']') {
				Item *x = next_item(ln);
				if (!x || !(q = value(q, x)) ||
				    !(q = separator(q, ']')))
					return NULL;
			}
			ln->it[ln->nit++] = (Item){.kind = I_END};
			q++;
		} else if (!(q = value(q, it))) {
			return NULL;
		}
		if (!(q = separator(q, ')')))
			return NULL;
	}
	return q + 1;
}

/* The entry of c->opg for an op written at q: ops share their first
 * eight bytes (torch.op), the next sixteen tell most apart.  OPG where the
 * line is too short to tell. */
static uint32_t
opslot(const char *q, const char *nl)
{
	if (nl - q < 24)
		return OPG;
	uint64_t x, y;
	memcpy(&x, q + 8, 8);
	memcpy(&y, q + 16, 8);
	return (uint32_t)(((x * 0x9e3779b97f4a7c15u) ^ y) *
	    0xff51afd7ed558ccdu >> 58);
}

/* Reads the line whose first token, a name, is nm (at loc) into ln;
 * false if it is not of the form above. */
static bool
scan(Ctx *c, const char *nm, size_t nn, Loc loc, Line *ln)
{
	const Lexer *lx = &c->p.lx;
	const char *nl = memchr(nm, '\n', (size_t)(lx->s + lx->n - nm));
	if (!nl || nl - nm > FX_MAXLINE)
		return false;
	const char *q = blanks(nm + nn);
	ln->an.s = NULL;
	if (*q == ':') {
		q = blanks(q + 1);
		if (*q != '"' && *q != '\'')
			return false;
		char quote = *q++;
		const char *a = q;
		while (*q != quote && *q != '\n' && *q != '\\')
			q++;
		if (*q != quote || q - a > MAXNAME)
			return false;
		ln->an = (FxAnnot){a, (size_t)(q - a), {loc.line,
		    loc.col + (uint32_t)(a - nm)}};
		q = blanks(q + 1);
	}
	if (q[0] != '=' || q[1] == '=')
		return false;
	q = blanks(q + 1);
	/* the callee, written without blanks: self.x and "not" are other
	 * statements */
	ln->op = q;
	ln->opid = 0;
	ln->slot = opslot(q, nl);
	if (ln->slot < OPG && c->opg[ln->slot].s &&
	    c->opg[ln->slot].n < (size_t)(nl - q) &&
	    memcmp(c->opg[ln->slot].s, q, c->opg[ln->slot].n) == 0 &&
	    q[c->opg[ln->slot].n] == '(') {
		/* the text of an op read before, whole: its parts were
		 * checked then */
		ln->opid = c->opg[ln->slot].op;
		ln->nop = c->opg[ln->slot].n;
		q += ln->nop;
	} else {
		ln->nparts = 0;
		for (;;) {
			const char *e = name(q);
			if (e == q || ln->nparts == MAXPARTS)
				return false;
			ln->part[ln->nparts] = q;
			ln->npart[ln->nparts++] = (uint32_t)(e - q);
			q = e;
			if (*q == '(')
				break;
			if (*q != '.')
				return false;
			q++;
		}
		if (wordis(ln->part[0], ln->npart[0], "self") ||
		    wordis(ln->part[0], ln->npart[0], "not"))
			return false;
		ln->nop = (uint32_t)(q - ln->op);
	}
	ln->nit = 0;
	if (!(q = args(ln, q + 1)))
		return false;
	q = blanks(q);
	if (*q == ';')
		q = nl;  /* frees: skipped */
	if (q != nl)
		return false;
	ln->next = nl + 1;
	return true;
}

/* The op of a dotted text, from the cache or fx_opname. */
static StrId
opread(Ctx *c, const Line *ln)
{
	/* ops share their start (torch.ops.aten.) and often their end
	 * (.default): the middle and the length tell them apart */
	uint64_t w = ln->nop;
	if (ln->nop >= 16) {
		uint64_t x, y;
		memcpy(&x, ln->op + ln->nop / 2 - 4, 8);
		memcpy(&y, ln->op + ln->nop - 16, 8);
		w ^= x * 0x9e3779b97f4a7c15u ^ y;
	} else {
		for (uint32_t i = 0; i < ln->nop; i++)
			w = w * 31 + (unsigned char)ln->op[i];
	}
	w *= 0xff51afd7ed558ccdu;
	uint32_t h = (uint32_t)(w >> 58);  /* 64 entries */
	if (c->opc[h].s && c->opc[h].n == ln->nop &&
	    memcmp(c->opc[h].s, ln->op, ln->nop) == 0)
		return c->opc[h].op;
	Token parts[MAXPARTS];
	for (int i = 0; i < ln->nparts; i++)
		parts[i] = (Token){.kind = T_NAME, .p = ln->part[i],
		    .n = ln->npart[i]};
	StrId op = fx_opname(c->m, parts, ln->nparts);
	c->opc[h].s = ln->op;
	c->opc[h].n = ln->nop;
	c->opc[h].op = op;
	return op;
}

/* The op of the line: known from the text's first bytes, or read. */
static StrId
opof(Ctx *c, const Line *ln)
{
	if (ln->opid)
		return ln->opid;
	StrId op = opread(c, ln);
	if (ln->slot < OPG) {
		c->opg[ln->slot].s = ln->op;
		c->opg[ln->slot].n = ln->nop;
		c->opg[ln->slot].op = op;
	}
	return op;
}

/* ir_internn, with the names read lately looked up first by a cheaper
 * hash: interning a name again changes nothing, so it may be skipped. */
static StrId
internc(Ctx *c, const char *s, uint32_t n, bool fresh)
{
	/* names differ most at their ends (lin_17, relu_17, lin_18) */
	uint32_t h = n * 0x9e3779b1u ^ (unsigned char)s[0] * 0x85ebca6bu ^
	    (unsigned char)s[n - 1] * 0xc2b2ae35u ^
	    (unsigned char)s[n > 1 ? n - 2 : 0] * 0x27d4eb2fu;
	h = (h ^ h >> 15) & (sizeof c->namec / sizeof c->namec[0] - 1);
	if (!fresh && c->namec[h].n == n && c->namec[h].s &&
	    memcmp(c->namec[h].s, s, n) == 0)
		return c->namec[h].id;
	StrId id = ir_internn(c->m, s, n);
	c->namec[h].s = s;
	c->namec[h].n = n;
	c->namec[h].id = id;
	return id;
}

/* An item's value as fx_arg gives it; false where fx_arg would report
 * an error or the name stands for other than a value. */
static bool
itemval(Ctx *c, const Item *it, Arg *out, StrId *nm)
{
	*nm = 0;
	if (it->kind == I_INT) {
		*out = arg_int(it->neg ? (int64_t)(0 - it->u) : (int64_t)it->u);
		return true;
	}
	const char *p = it->p;
	uint32_t n = it->n;
	if (wordis(p, n, "True") || wordis(p, n, "False")) {
		*out = arg_bool(p[0] == 'T');
		return true;
	}
	if (wordis(p, n, "None")) {
		*out = arg_none();
		return true;
	}
	if (wordis(p, n, "inf") || wordis(p, n, "nan")) {
		*out = arg_float(p[0] == 'i' ? 1.0 / 0.0 : 0.0 / 0.0);
		return true;
	}
	StrId s = internc(c, p, n, false);
	Bind *b = fx_lookup(c, s);
	if (!b || b->kind != B_VAL)
		return false;
	*out = arg_val(b->x);
	*nm = s;
	return true;
}

/* The name the next line defines is interned a line from now: its table
 * slot is fetched meanwhile. */
static void
prefetch(const Module *m, const char *q, const char *end)
{
	while (q < end && *q == ' ')
		q++;
	const char *e = q;
	while (e < end && fx_isnamec(*e))
		e++;
	if (e > q)
		ir_intern_prefetch(m, q, (size_t)(e - q));
}

bool
fx_fast_stmt(Ctx *c)
{
	Parser *p = &c->p;
	Lexer *lx = &p->lx;
	size_t nn;
	const char *nm = p->nla || p->join > 0 ? NULL : fx_line_name(lx, &nn);
	if (!nm)
		return false;
	Loc loc = {lx->line, lx->col + (uint32_t)(nm - (lx->s + lx->pos))};
	Line ln;
	if (!scan(c, nm, nn, loc, &ln))
		return false;
	Module *m = c->m;
	prefetch(m, ln.next, lx->s + lx->n);
	/* a name defined is mostly new: not looked for in the cache */
	StrId name = internc(c, nm, (uint32_t)nn, true);
	StrId op = opof(c, &ln);
	/* names are interned and looked up in order, before any change */
	Arg val[MAXITEMS];
	StrId key[MAXITEMS], first = 0;
	for (int i = 0; i < ln.nit; i++) {
		const Item *it = &ln.it[i];
		key[i] = it->key ? internc(c, it->key, it->nkey, false) : 0;
		StrId nm = 0;
		if (it->kind != I_LIST && it->kind != I_END &&
		    !itemval(c, it, &val[i], &nm))
			return false;
		if (i == 0 && !it->key)
			first = nm;
	}
	uint32_t base = c->nscr;
	for (int i = 0; i < ln.nit; i++) {
		Arg a = val[i];
		if (ln.it[i].kind == I_LIST) {
			int j = i + 1;
			while (ln.it[j].kind != I_END)
				j++;
			a = ir_list(c->g, A_LIST, j > i + 1 ? &val[i + 1] :
			    NULL, (uint32_t)(j - i - 1));
			key[j] = key[i];
			i = j;
		}
		fx_scrpush(c, key[i] ? arg_keyed(a, key[i]) : a);
	}
	Loc oploc = {loc.line, loc.col + (uint32_t)(ln.op - nm)};
	fx_callnode(c, name, loc, oploc, op, base, first, ln.an);
	/* the parser goes on at the next line, as fx_skip_line leaves it */
	lx->pos = (size_t)(ln.next - lx->s);
	lx->line++;
	lx->col = 1;
	lx->sawtok = false;
	p->badline = false;
	return true;
}
