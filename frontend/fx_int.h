/* fx_int.h - private to the FX frontend: tokens, the lexer and the parser
 * state shared by fx_lex.c, fx_parse.c, fx_stmt.c, fx_args.c, fx_fast.c and
 * fx_sig.c.
 */
#ifndef ONNXC_FX_INT_H
#define ONNXC_FX_INT_H

#include <string.h>

#include "fe.h"
#include "fx.h"

/* Entries of the cache of ops by the bytes after their start. */
#define FX_OPG 64
/* Bytes in one line: a longer one is an error. */
#define FX_MAXLINE (16 << 20)
/* Brackets nested deeper than this are reported, not recursed into. */
#define FX_MAXDEPTH 64
/* Dimensions a tensor annotation may have. */
#define FX_MAXRANK 64

typedef enum TokKind {
	T_EOF,
	T_NL,      /* end of a line */
	T_NAME,    /* identifier or keyword */
	T_INT,     /* u, with ovf set if it does not fit 64 bits */
	T_FLOAT,   /* f */
	T_STR,     /* '...' or "...": p/n include the quotes */
	T_PUNCT,   /* operator or bracket: p/n is its text */
	T_COMMENT, /* '#' to the end of the line: p/n is the text after '#' */
	T_ERR      /* bad input: msg says what */
} TokKind;

typedef struct Token {
	uint8_t kind;
	bool first;      /* first token on its line */
	bool ovf;        /* T_INT too large */
	const char *p;
	uint32_t n;
	Loc loc;
	uint32_t indent; /* first: columns of indentation (after prefixes) */
	uint64_t u;
	double f;
	const char *msg; /* T_ERR */
} Token;

typedef struct Lexer {
	const char *s;
	size_t n, pos;
	uint32_t line, col;
	bool bol;        /* at the beginning of a line */
	bool sawtok;     /* a token was already returned on this line */
	uint32_t indent;
} Lexer;

/* fx_lex.c */
/* Character classes by table: the lexer tests one for every byte. */
enum { C_DIG = 1, C_NAME0 = 2, C_BLANK = 4 };
extern const uint8_t fx_cclass[256];
static inline bool
fx_isdig(char c)
{
	return fx_cclass[(unsigned char)c] & C_DIG;
}
static inline bool
fx_isname0(char c)
{
	return fx_cclass[(unsigned char)c] & C_NAME0;
}
static inline bool
fx_isnamec(char c)
{
	return fx_cclass[(unsigned char)c] & (C_NAME0 | C_DIG);
}
static inline bool
fx_isblank(char c)
{
	return fx_cclass[(unsigned char)c] & C_BLANK;
}
void fx_lex_init(Lexer *lx, const char *s, size_t n);
void fx_lex_next(Lexer *lx, Token *t);
/* Is t of kind k and, unless text is NULL, spelled text?  Inline, so
 * that strlen of a literal folds away. */
static inline bool
fx_tok_is(const Token *t, TokKind k, const char *text)
{
	if (t->kind != k)
		return false;
	if (!text)
		return true;
	if (t->n == 0 || t->p[0] != text[0])
		return false;   /* most mismatches, without strlen */
	size_t n = strlen(text);
	return t->n == n && memcmp(t->p, text, n) == 0;
}
/* newlines and comments: what a joined construct skips */
static inline bool
fx_tok_soft(const Token *t)
{
	return t->kind == T_NL || t->kind == T_COMMENT;
}
/* the decoded contents of a T_STR token, interned */
StrId fx_str_value(Module *m, const Token *t);
/* short printable description of a token for messages ("'foo'", "end of
 * line"); buf must hold 48 bytes */
const char *fx_tok_desc(const Token *t, char *buf);

/* The parser. */
typedef struct Parser {
	Module *m;
	Lexer lx;
	Token la[4];     /* lookahead */
	int nla;
	int nsoft;       /* newlines and comments among la[0..nla) */
	int join;        /* > 0: newlines and comments are skipped */
	Sig sig;
	bool badline;    /* an error was reported on the current line */
} Parser;

/* fx_lex.c: the parser's token stream */
Token *fx_peek_slow(Parser *p, int k);
/* k tokens after the current one */
static inline Token *
fx_peek(Parser *p, int k)
{
	if (k < p->nla && (p->join <= 0 || p->nsoft == 0))
		return &p->la[k];
	return fx_peek_slow(p, k);
}
static inline Token *
fx_cur(Parser *p)
{
	/* a lookahead token that joining would not drop is the current
	 * one, whatever follows it */
	if (p->nla > 0 && (p->join <= 0 || !fx_tok_soft(&p->la[0])))
		return &p->la[0];
	return fx_peek_slow(p, 0);
}
void fx_adv(Parser *p);
/* A dotted name a.b.c written without blanks and followed by '(' (an op
 * in a call: torch.ops.aten.add.Tensor(...)), read from the text rather
 * than token by token: its parts into parts (at most max) and the '(' the
 * current token, as fx_dotted leaves them.  0 where the text is anything
 * else (fx_dotted then reads it token by token). */
int fx_dotted_fast(Parser *p, Token *parts, int max);
void fx_skip_line(Parser *p);      /* the rest of the line and its newline */
/* The same without lexing it, if the line holds no "[ INT ]" (for a scan
 * that looks for getitems only); false if it does, or if the lookahead
 * already holds its end. */
bool fx_skip_plain_line(Parser *p);
/* At the start of a line not yet lexed, indented by blanks: its first
 * name and its length, unless that is a word the body loop treats apart
 * (class, def, return, a section's); NULL for any other line. */
const char *fx_line_name(const Lexer *lx, size_t *len);
/* fx_skip_plain_line for such a line, without lexing its first token. */
bool fx_skip_body_line(Parser *p);
/* an error, unless one was already reported on this line */
void fx_err(Parser *p, Loc loc, const char *fmt, ...);
/* report "expected X, found Y" at the current token */
void fx_expected(Parser *p, const char *what);
static inline bool
fx_atpunct(Parser *p, const char *punct)
{
	return fx_tok_is(fx_cur(p), T_PUNCT, punct);
}
/* consume if there */
static inline bool
fx_accept(Parser *p, const char *punct)
{
	if (!fx_atpunct(p, punct))
		return false;
	fx_adv(p);
	return true;
}
bool fx_expect(Parser *p, const char *punct);  /* else report */
/* at newline or end */
static inline bool
fx_eol(Parser *p)
{
	Token *t = fx_cur(p);
	return t->kind == T_NL || t->kind == T_EOF;
}

/* The state of one fx_parse, and of the forward() being parsed. */
/* What a name in a forward() body stands for. */
enum { B_NONE, B_VAL, B_MULTI, B_REF, B_POISON, B_SUB };

/* B_SUB: a list that is the last element of a tuple-valued node's result
 * (histogramdd's (Tensor hist, Tensor[] bin_edges)); its elements are the
 * node's outputs from off on. */
typedef struct Bind {
	uint8_t kind;
	uint32_t x;   /* ValId, NodeId (B_MULTI, B_SUB) or Ref index */
	Loc loc;
	uint32_t off; /* B_SUB: the node's output of its element 0 */
} Bind;

/* "name = self.attr": a subgraph reference, resolved at the end. */
typedef struct Ref {
	GraphId owner;
	StrId attr;
	Loc loc;
	GraphId target;
} Ref;

/* One "class X(torch.nn.Module):" in textual order. */
typedef struct Class {
	GraphId g;
	GraphId parent;
	StrId name;
	uint32_t indent;
	Loc loc;
	bool lambda;
	bool hasdef;
	bool used;
} Class;

typedef struct Ctx {
	Parser p;
	Module *m;
	GraphId main;
	GraphId first;    /* the first graph this parse made: a module may
	                   * hold graphs of an earlier parse (a template) */
	Class *cls;
	uint32_t ncls, ccls;
	Ref *refs;
	uint32_t nrefs, crefs;
	Arg *scr;         /* arguments being collected, innermost last */
	uint32_t nscr, cscr;
	/* the forward() being parsed */
	Graph *g;
	GraphId gid;
	StrMap names;     /* StrId -> index into binds */
	Bind *binds;
	uint32_t nbinds, cbinds;
	StrMap nout;      /* producer StrId -> largest getitem index + 1, a
	                   * nested list's elements counted as outputs */
	StrMap nested;    /* producer StrId -> 1 + the index of the first of
	                   * its elements that is a list (getitems of it) */
	StrId trace;
	/* the last annotation text fx_stmt.c read, and its static type */
	struct {
		const char *s;
		size_t n;
		uint8_t dtype;
		int32_t rank;  /* -1: none kept */
		Dim dims[FX_MAXRANK];
	} ann;
	bool poisoned;    /* an argument named a value whose statement failed */
	StrMap inpl;      /* op StrId -> 1 + whether it is in-place */
	bool general;     /* FxOpts.general: no fx_fast_stmt, fx_skip_body_line */
	uint32_t fastlines;
	/* names fx_fast_stmt read lately, by their text (direct-mapped): a
	 * value is mostly used within a few lines of its definition */
	struct {
		const char *s;
		uint32_t n;
		StrId id;
	} namec[256];
	/* ops of fx_fast_stmt by their dotted text (a direct-mapped cache),
	 * and by the bytes after its start (found before its end is) */
	struct {
		const char *s;
		uint32_t n;
		StrId op;
	} opc[64], opg[FX_OPG];
} Ctx;

/* A value's annotation text (s NULL: none) and where it starts. */
typedef struct FxAnnot {
	const char *s;
	size_t n;
	Loc loc;
} FxAnnot;

/* fx_stmt.c: the statements of a forward() body */
Bind *fx_lookup(Ctx *c, StrId name);
/* name bound to x (a ValId, NodeId or Ref index by kind); a second
 * definition is an error unless rebind (an in-place op's first argument) */
void fx_bind(Ctx *c, StrId name, uint8_t kind, uint32_t x, Loc loc,
    bool rebind);
/* ": ANNOT" after a name, quoted or not (inparams: in a def's parameter
 * list, where ',' and ')' end it); *s NULL if absent.  False after an
 * error. */
bool fx_annotation(Ctx *c, const char **s, size_t *n, Loc *loc,
    bool inparams);
/* the stack trace comment t, for the nodes that follow */
void fx_settrace(Ctx *c, const Token *t);
/* NAME [: ANNOT] = EXPR [; frees] */
void fx_assignment(Ctx *c);
/* the name the line after t defines, fetched into the string table */
void fx_prefetch_name(Ctx *c, const Token *t);
/* return ... */
void fx_return(Ctx *c);
/* The node of a call whose op and arguments (c->scr[base..]) are read:
 * made, its value named, typed and bound; first is the name of its first
 * positional argument (0: none), rebound if the op is in-place. */
void fx_callnode(Ctx *c, StrId name, Loc loc, Loc oploc, StrId op,
    uint32_t base, StrId first, FxAnnot an);

/* fx_fast.c: the statement form of nearly every node, read from the text
 * at once where the parser stands at the start of such a line (nothing
 * of it lexed), and the parser then at the start of the next; false, with
 * nothing changed, for any other line (the general path reads it) */
bool fx_fast_stmt(Ctx *c);

/* fx_args.c */
void fx_scrpush(Ctx *c, Arg a);
/* a.b.c into parts (at most max); returns the count or -1 */
int fx_dotted(Ctx *c, Token *parts, int max);
/* fe_opname over tokens */
StrId fx_opname(Module *m, const Token *parts, int n);
/* one argument; *name gets the name of a plain value reference */
bool fx_arg(Ctx *c, Arg *out, StrId *name, int depth);

/* fx_sig.c: the "Graph signature:", "Range constraints:" and "Equality
 * constraints:" sections, starting at the current token (the section's
 * first word).  Returns -1 after an error. */
int fx_section(Parser *p);
/* Is the current token the start of one of those sections? */
bool fx_at_section(Parser *p);

#endif
