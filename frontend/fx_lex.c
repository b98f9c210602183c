/* fx_lex.c - tokens of an FX dump, with their line:col in the original text.
 *
 * The lexer is line-aware but does not use indentation for structure:
 * dumps arrive re-indented by markdown/rst, with odd indents after comment
 * lines, or behind logger prefixes.  It strips what wraps a dump (logger
 * prefixes, ANSI colour codes, code-fence lines) without changing the
 * positions it reports, and never emits empty lines.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fx_int.h"

/* Limits that keep hostile input cheap, far above what PyTorch prints (the
 * longest real lines are def lines of a few hundred KB). */
enum {
	MAXLINE = FX_MAXLINE, /* bytes in one line */
	MAXTOKEN = 64 << 10   /* bytes in a name, number or string */
};

void
fx_lex_init(Lexer *lx, const char *s, size_t n)
{
	memset(lx, 0, sizeof *lx);
	lx->s = s;
	lx->n = n;
	lx->line = 1;
	lx->col = 1;
	lx->bol = true;
}

const uint8_t fx_cclass[256] = {
	['0'] = C_DIG, ['1'] = C_DIG, ['2'] = C_DIG, ['3'] = C_DIG,
	['4'] = C_DIG, ['5'] = C_DIG, ['6'] = C_DIG, ['7'] = C_DIG,
	['8'] = C_DIG, ['9'] = C_DIG, ['_'] = C_NAME0,
	['a'] = C_NAME0, ['b'] = C_NAME0, ['c'] = C_NAME0, ['d'] = C_NAME0,
	['e'] = C_NAME0, ['f'] = C_NAME0, ['g'] = C_NAME0, ['h'] = C_NAME0,
	['i'] = C_NAME0, ['j'] = C_NAME0, ['k'] = C_NAME0, ['l'] = C_NAME0,
	['m'] = C_NAME0, ['n'] = C_NAME0, ['o'] = C_NAME0, ['p'] = C_NAME0,
	['q'] = C_NAME0, ['r'] = C_NAME0, ['s'] = C_NAME0, ['t'] = C_NAME0,
	['u'] = C_NAME0, ['v'] = C_NAME0, ['w'] = C_NAME0, ['x'] = C_NAME0,
	['y'] = C_NAME0, ['z'] = C_NAME0,
	['A'] = C_NAME0, ['B'] = C_NAME0, ['C'] = C_NAME0, ['D'] = C_NAME0,
	['E'] = C_NAME0, ['F'] = C_NAME0, ['G'] = C_NAME0, ['H'] = C_NAME0,
	['I'] = C_NAME0, ['J'] = C_NAME0, ['K'] = C_NAME0, ['L'] = C_NAME0,
	['M'] = C_NAME0, ['N'] = C_NAME0, ['O'] = C_NAME0, ['P'] = C_NAME0,
	['Q'] = C_NAME0, ['R'] = C_NAME0, ['S'] = C_NAME0, ['T'] = C_NAME0,
	['U'] = C_NAME0, ['V'] = C_NAME0, ['W'] = C_NAME0, ['X'] = C_NAME0,
	['Y'] = C_NAME0, ['Z'] = C_NAME0,
	[' '] = C_BLANK, ['\t'] = C_BLANK, ['\r'] = C_BLANK, ['\f'] = C_BLANK,
	['\v'] = C_BLANK,
};

static size_t
digits(const char *s, size_t n, size_t i)
{
	size_t j = i;
	while (j < n && fx_isdig(s[j]))
		j++;
	return j - i;
}

/* A glog-style logger prefix, as torch logging writes before each line:
 *   V0610 18:40:25.800000 93824 torch/_export/_trace.py:690] text
 * optionally preceded by "[rank0]:".  Returns its length, or 0. */
static size_t
logprefix(const char *s, size_t n)
{
	size_t i = 0, k;
	if (n > 5 && memcmp(s, "[rank", 5) == 0) {
		k = digits(s, n, 5);
		if (k && 5 + k + 1 < n && s[5 + k] == ']' && s[6 + k] == ':')
			i = 7 + k;
		else
			return 0;
	}
	if (i >= n || !strchr("IWEVD", s[i]) || s[i] == 0)
		return 0;
	i++;
	if (digits(s, n, i) != 4 || i + 4 >= n || s[i + 4] != ' ')
		return 0;
	i += 5;
	/* hh:mm:ss[.frac] */
	for (int part = 0; part < 3; part++) {
		if (digits(s, n, i) != 2)
			return 0;
		i += 2;
		if (part < 2) {
			if (i >= n || s[i] != ':')
				return 0;
			i++;
		}
	}
	if (i < n && s[i] == '.') {
		i++;
		i += digits(s, n, i);
	}
	if (i >= n || s[i] != ' ')
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	k = digits(s, n, i);
	if (!k || i + k >= n || s[i + k] != ' ')
		return 0;
	i += k + 1;
	/* path:line] */
	size_t start = i;
	while (i < n && s[i] != ']' && s[i] != ' ' && s[i] != '\n')
		i++;
	if (i == start || i >= n || s[i] != ']')
		return 0;
	i++;
	if (i < n && s[i] == ' ')
		i++;
	return i;
}

/* ESC [ params letter; at least the ESC itself */
static size_t
ansilen(const char *s, size_t n)
{
	if (n < 2)
		return n;
	if (s[1] != '[')
		return 1;
	size_t i = 2;
	while (i < n && (fx_isdig(s[i]) || s[i] == ';' || s[i] == '?'))
		i++;
	if (i < n && ((s[i] >= 'A' && s[i] <= 'Z') ||
	    (s[i] >= 'a' && s[i] <= 'z')))
		i++;
	return i;
}

static void
skipbytes(Lexer *lx, size_t k)
{
	lx->pos += k;
	lx->col += (uint32_t)k;
}

/* Lines that only wrap the dump: ``` fences, rst directives, prompts. */
static bool
wrapperline(const char *s, size_t n)
{
	if (n >= 3 && (memcmp(s, "```", 3) == 0 || memcmp(s, "~~~", 3) == 0))
		return true;
	if (n >= 3 && memcmp(s, ".. ", 3) == 0)
		return true;
	if (n >= 3 && memcmp(s, ">>>", 3) == 0)
		return true;
	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		size_t i = 2;
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		return i == n || s[i] == '\n';
	}
	return false;
}

/* At the start of a line: drop its prefix, measure its indentation. */
static void
linestart(Lexer *lx)
{
	for (;;) {
		lx->bol = false;
		lx->sawtok = false;
		size_t k = logprefix(lx->s + lx->pos, lx->n - lx->pos);
		skipbytes(lx, k);
		uint32_t ind = 0;
		for (;;) {
			/* a run of blanks at once: dumps indent by 8 or 12 */
			size_t i = lx->pos;
			while (i < lx->n && (lx->s[i] == ' ' || lx->s[i] == '\t'))
				i++;
			ind += (uint32_t)(i - lx->pos);
			skipbytes(lx, i - lx->pos);
			if (lx->pos < lx->n && lx->s[lx->pos] == 0x1b)
				skipbytes(lx, ansilen(lx->s + lx->pos,
				    lx->n - lx->pos));
			else
				break;
		}
		lx->indent = ind;
		if (!wrapperline(lx->s + lx->pos, lx->n - lx->pos))
			return;
		while (lx->pos < lx->n && lx->s[lx->pos] != '\n')
			lx->pos++;
		if (lx->pos >= lx->n)
			return;
		lx->pos++;
		lx->line++;
		lx->col = 1;
	}
}

static void
settok(Lexer *lx, Token *t, TokKind k, size_t start, size_t len)
{
	t->kind = (uint8_t)k;
	t->p = lx->s + start;
	t->n = (uint32_t)len;
	t->first = !lx->sawtok;
	t->indent = lx->indent;
	lx->sawtok = true;
}

static void
lexnumber(Lexer *lx, Token *t, size_t start)
{
	const char *s = lx->s;
	size_t i = start, n = lx->n;
	bool isfloat = false;
	uint64_t u = 0;
	bool ovf = false;
	while (i < n && fx_isdig(s[i])) {
		uint64_t d = (uint64_t)(s[i] - '0');
		if (u > (UINT64_MAX - d) / 10)
			ovf = true;
		else
			u = u * 10 + d;
		i++;
	}
	if (i < n && s[i] == '.' && !(i + 1 < n && fx_isname0(s[i + 1]))) {
		isfloat = true;
		i++;
		i += digits(s, n, i);
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		if (digits(s, n, j)) {
			isfloat = true;
			i = j + digits(s, n, j);
		}
	}
	settok(lx, t, isfloat ? T_FLOAT : T_INT, start, i - start);
	t->u = u;
	t->ovf = ovf;
	if (isfloat) {
		char buf[128];
		if (i - start >= sizeof buf) {
			t->kind = T_ERR;
			t->msg = "numeric literal too long";
		} else {
			memcpy(buf, s + start, i - start);
			buf[i - start] = 0;
			t->f = strtod(buf, NULL);
		}
	}
	skipbytes(lx, i - start);
}

/* A line over MAXLINE is one error token; the rest of it is skipped
 * unread, up to its newline. */
static bool
longline(Lexer *lx, Token *t)
{
	size_t rest = lx->n - lx->pos;
	const char *nl = memchr(lx->s + lx->pos, '\n', rest);
	size_t len = nl ? (size_t)(nl - (lx->s + lx->pos)) : rest;
	if (len <= MAXLINE)
		return false;
	t->loc = (Loc){lx->line, lx->col};
	settok(lx, t, T_ERR, lx->pos, 1);
	t->msg = "line longer than 16 MB (not a PyTorch dump line)";
	lx->pos += len;
	return true;
}

/* A token over MAXTOKEN becomes an error token; its bytes are consumed. */
static void
toolong(Token *t, const char *what)
{
	if (t->n <= MAXTOKEN)
		return;
	t->kind = T_ERR;
	t->msg = what;
	t->n = 1;
}

/* The length of the punctuation token at s[0..n), 0 if there is none:
 * a switch on the first character, then the second of the two-character
 * operators (** // == != <= >= ->).  This runs for every token. */
static size_t
punct_len(const char *s, size_t n)
{
	char c2 = n >= 2 ? s[1] : 0;
	switch (s[0]) {
	case '(': case ')': case '[': case ']': case '{': case '}': case ',':
	case ':': case ';': case '.': case '+': case '%': case '&': case '|':
	case '~': case '^': case '@':
		return 1;
	case '*': case '/':
		return c2 == s[0] ? 2 : 1;
	case '=': case '!': case '<': case '>':
		return c2 == '=' ? 2 : 1;
	case '-':
		return c2 == '>' ? 2 : 1;
	default:
		return 0;
	}
}

void
fx_lex_next(Lexer *lx, Token *t)
{
	memset(t, 0, sizeof *t);
	const char *s = lx->s;
	for (;;) {
		if (lx->bol && lx->pos < lx->n) {
			linestart(lx);
			if (longline(lx, t))
				return;
		}
		t->loc = (Loc){lx->line, lx->col};
		if (lx->pos >= lx->n) {
			if (lx->sawtok) {
				/* a last line without '\n' still ends */
				settok(lx, t, T_NL, lx->pos, 0);
				t->first = false;
				lx->sawtok = false;
				return;
			}
			settok(lx, t, T_EOF, lx->pos, 0);
			lx->sawtok = false;
			return;
		}
		char c = s[lx->pos];
		if (fx_isblank(c)) {
			size_t i = lx->pos + 1;
			while (i < lx->n && fx_isblank(s[i]))
				i++;
			skipbytes(lx, i - lx->pos);
			continue;
		}
		if (c == 0x1b) {
			skipbytes(lx, ansilen(s + lx->pos, lx->n - lx->pos));
			continue;
		}
		if (c == '\n') {
			bool had = lx->sawtok;
			size_t at = lx->pos;
			lx->pos++;
			lx->line++;
			lx->col = 1;
			lx->bol = true;
			if (had) {
				lx->sawtok = true;
				settok(lx, t, T_NL, at, 0);
				t->first = false;
				lx->sawtok = false;
				return;
			}
			continue;
		}
		break;
	}
	size_t start = lx->pos;
	char c = s[start];
	if (fx_isname0(c)) {
		size_t i = start;
		while (i < lx->n && fx_isnamec(s[i]))
			i++;
		settok(lx, t, T_NAME, start, i - start);
		skipbytes(lx, i - start);
		toolong(t, "name longer than 64 KB");
		return;
	}
	if (fx_isdig(c) || (c == '.' && start + 1 < lx->n &&
	    fx_isdig(s[start + 1]))) {
		lexnumber(lx, t, start);
		toolong(t, "number longer than 64 KB");
		return;
	}
	if (c == '\'' || c == '"') {
		size_t i = start + 1;
		while (i < lx->n && s[i] != c && s[i] != '\n') {
			if (s[i] == '\\' && i + 1 < lx->n && s[i + 1] != '\n')
				i++;
			i++;
		}
		if (i >= lx->n || s[i] != c) {
			/* the rest of the line is lost; the parser resyncs
			 * at the newline */
			settok(lx, t, T_ERR, start, i - start);
			t->msg = "unterminated string";
			skipbytes(lx, i - start);
			return;
		}
		settok(lx, t, T_STR, start, i + 1 - start);
		skipbytes(lx, i + 1 - start);
		toolong(t, "string longer than 64 KB");
		return;
	}
	if (c == '#') {
		size_t i = start + 1;
		while (i < lx->n && s[i] != '\n')
			i++;
		settok(lx, t, T_COMMENT, start + 1, i - start - 1);
		skipbytes(lx, i - start);
		return;
	}
	size_t plen = punct_len(s + start, lx->n - start);
	if (plen) {
		settok(lx, t, T_PUNCT, start, plen);
		skipbytes(lx, plen);
		return;
	}
	/* anything else: one character (a whole UTF-8 sequence) */
	size_t len = 1;
	if ((unsigned char)c >= 0xc0)
		while (start + len < lx->n &&
		    ((unsigned char)s[start + len] & 0xc0) == 0x80 && len < 4)
			len++;
	settok(lx, t, T_ERR, start, len);
	t->msg = c == 0 ? "unexpected NUL byte" : "unexpected character";
	skipbytes(lx, len);
}


static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t
utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

StrId
fx_str_value(Module *m, const Token *t)
{
	if (t->kind != T_STR || t->n < 2)
		return 0;
	const char *s = t->p + 1;
	size_t n = t->n - 2;
	char *buf = xrealloc(NULL, n * 2 + 1), *o = buf;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 >= n) {
			*o++ = s[i];
			continue;
		}
		char e = s[++i];
		uint32_t cp = 0;
		int need = 0;
		switch (e) {
		case 'n': *o++ = '\n'; continue;
		case 't': *o++ = '\t'; continue;
		case 'r': *o++ = '\r'; continue;
		case '\\': case '\'': case '"': *o++ = e; continue;
		case 'x': need = 2; break;
		case 'u': need = 4; break;
		case 'U': need = 8; break;
		default:
			*o++ = '\\';
			*o++ = e;
			continue;
		}
		bool ok = i + (size_t)need < n;
		for (int k = 1; ok && k <= need; k++) {
			int h = hexval(s[i + (size_t)k]);
			if (h < 0)
				ok = false;
			else
				cp = cp * 16 + (uint32_t)h;
		}
		/* NUL cannot live in an interned C string; keep the escape */
		if (!ok || cp == 0 || cp > 0x10ffff) {
			*o++ = '\\';
			*o++ = e;
			continue;
		}
		o += utf8(o, cp);
		i += (size_t)need;
	}
	/* a raw NUL byte inside the quotes would cut the string short */
	for (char *q = buf; q < o; q++)
		if (*q == 0)
			*q = '?';
	StrId id = ir_internn(m, buf, (size_t)(o - buf));
	free(buf);
	return id;
}

const char *
fx_tok_desc(const Token *t, char *buf)
{
	switch (t->kind) {
	case T_EOF:
		return "end of input";
	case T_NL:
		return "end of line";
	case T_STR:
		return "a string";
	case T_COMMENT:
		return "a comment";
	case T_ERR:
		return t->msg;
	default:
		break;
	}
	size_t n = t->n > 40 ? 40 : t->n;
	buf[0] = '\'';
	memcpy(buf + 1, t->p, n);
	for (size_t i = 1; i <= n; i++)
		if ((unsigned char)buf[i] < 32)
			buf[i] = '?';
	strcpy(buf + 1 + n, t->n > 40 ? "...'" : "'");
	return buf;
}

/* The token stream of the parser: lookahead, and newlines skipped while
 * a bracket of a joined construct is open.  fx_cur/fx_peek (fx_int.h)
 * return a lookahead token directly; the work is done here only when a
 * token must be lexed or a newline dropped. */

static bool
skippable(const Parser *p, const Token *t)
{
	return p->join > 0 && fx_tok_soft(t);
}

Token *
fx_peek_slow(Parser *p, int k)
{
	if (p->join > 0 && p->nsoft > 0) {
		int j = 0;
		for (int i = 0; i < p->nla; i++)
			if (!skippable(p, &p->la[i]) && j++ != i)
				p->la[j - 1] = p->la[i];
		p->nla = j;
		p->nsoft = 0;
	}
	while (p->nla <= k) {
		Token *t = &p->la[p->nla];
		fx_lex_next(&p->lx, t);
		if (fx_tok_soft(t)) {
			if (p->join > 0)
				continue;
			p->nsoft++;
		}
		p->nla++;
	}
	return &p->la[k];
}

void
fx_adv(Parser *p)
{
	Token *t = fx_peek(p, 0);
	if (t->kind == T_EOF)
		return;
	if (t->kind == T_NL)
		p->badline = false;
	if (fx_tok_soft(t))
		p->nsoft--;
	if (p->nla > 1)
		memmove(p->la, p->la + 1, (size_t)(p->nla - 1) * sizeof *p->la);
	p->nla--;
}

int
fx_dotted_fast(Parser *p, Token *parts, int max)
{
	Lexer *lx = &p->lx;
	if (p->nla < 1 || p->nsoft || p->la[0].kind != T_NAME)
		return 0;
	/* the tokens looked ahead at lie end to end from the current one,
	 * and the lexer stopped after the last: the text is read again from
	 * there, and the lexer goes on at the '(' it ends at */
	const Token *t = &p->la[0];
	const char *s = lx->s, *q = t->p, *end = s + lx->n, *e = t->p + t->n;
	for (int i = 1; i < p->nla; i++) {
		if (p->la[i].p != e || (p->la[i].kind != T_NAME &&
		    p->la[i].kind != T_PUNCT))
			return 0;
		e += p->la[i].n;
	}
	if (lx->pos != (size_t)(e - s))
		return 0;
	int n = 0;
	for (;;) {
		const char *a = q;
		if (q >= end || !fx_isname0(*q) || n == max)
			return 0;
		while (q < end && fx_isnamec(*q))
			q++;
		if (q - a > 1024)
			return 0;   /* the token path says what is wrong */
		parts[n++] = (Token){.kind = T_NAME, .p = a,
		    .n = (uint32_t)(q - a), .indent = t->indent,
		    .loc = {t->loc.line, t->loc.col + (uint32_t)(a - t->p)}};
		if (q < end && *q == '(')
			break;
		if (q >= end || *q != '.')
			return 0;
		q++;
	}
	parts[0].first = t->first;
	lx->col = t->loc.col + (uint32_t)(q - t->p);
	lx->pos = (size_t)(q - s);
	p->nla = 0;
	return n;
}

/* Skip the rest of the line, newline included. */
void
fx_skip_line(Parser *p)
{
	int join = p->join;
	p->join = 0;
	for (;;) {
		Token *t = fx_cur(p);
		if (t->kind == T_EOF)
			break;
		if (t->kind == T_NL) {
			fx_adv(p);
			break;
		}
		fx_adv(p);
	}
	p->badline = false;
	p->join = join;
}

/* Could s[0..n) lex to '[' INT ']'?  A colour code between them is
 * skipped as blank by the lexer, so any ESC answers yes. */
static bool
hasindex(const char *s, size_t n)
{
	if (memchr(s, 0x1b, n))
		return true;
	const char *end = s + n, *q = s;
	while ((q = memchr(q, '[', (size_t)(end - q))) != NULL) {
		q++;
		while (q < end && fx_isblank(*q))
			q++;
		if (q >= end || !fx_isdig(*q))
			continue;
		while (q < end && fx_isdig(*q))
			q++;
		while (q < end && fx_isblank(*q))
			q++;
		if (q < end && *q == ']')
			return true;
	}
	return false;
}

/* Words that start the lines a body treats apart: its end (class, def, a
 * section's first word) and return. */
static bool
stopword(const char *p, size_t n)
{
	const char *w;
	switch (p[0]) {   /* one word per first letter */
	case 'c': w = "class"; break;
	case 'd': w = "def"; break;
	case 'r': w = "return"; break;
	case 'G': w = "Graph"; break;
	case 'R': w = "Range"; break;
	case 'E': w = "Equality"; break;
	case 'S': w = "Symbol"; break;
	default: return false;
	}
	return strlen(w) == n && memcmp(p, w, n) == 0;
}

const char *
fx_line_name(const Lexer *lx, size_t *len)
{
	const char *s = lx->s + lx->pos, *end = lx->s + lx->n, *q = s;
	if (!lx->bol)
		return NULL;
	/* dumps indent by 8 or 12 blanks: eight at a time first */
	uint64_t w;
	while (end - q >= 8 && (memcpy(&w, q, 8), w == 0x2020202020202020u))
		q += 8;
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	/* a line that is not indented may start with a logger prefix */
	if (q == s || q >= end || !fx_isname0(*q))
		return NULL;
	const char *a = q;
	while (q < end && fx_isnamec(*q))
		q++;
	if (q - a > MAXTOKEN || stopword(a, (size_t)(q - a)))
		return NULL;
	*len = (size_t)(q - a);
	return a;
}

bool
fx_skip_body_line(Parser *p)
{
	Lexer *lx = &p->lx;
	size_t n;
	const char *a = p->nla ? NULL : fx_line_name(lx, &n);
	if (!a)
		return false;
	const char *nl = memchr(a, '\n', (size_t)(lx->s + lx->n - a));
	if (!nl || nl - a > MAXLINE || hasindex(a, (size_t)(nl - a)))
		return false;
	lx->pos = (size_t)(nl + 1 - lx->s);
	lx->line++;
	lx->col = 1;
	lx->sawtok = false;
	p->badline = false;
	return true;
}

bool
fx_skip_plain_line(Parser *p)
{
	for (int i = 0; i < p->nla; i++)
		if (p->la[i].kind == T_NL || p->la[i].kind == T_EOF)
			return false;
	Lexer *lx = &p->lx;
	const char *from = p->nla ? p->la[0].p : lx->s + lx->pos;
	size_t rest = (size_t)(lx->s + lx->n - from);
	const char *nl = memchr(from, '\n', rest);
	size_t len = nl ? (size_t)(nl - from) : rest;
	if (hasindex(from, len))
		return false;
	/* the next token is the first of the next line */
	lx->pos = nl ? (size_t)(nl + 1 - lx->s) : lx->n;
	lx->line++;
	lx->col = 1;
	lx->bol = true;
	lx->sawtok = false;
	p->nla = 0;
	p->nsoft = 0;
	p->badline = false;
	return true;
}

void
fx_err(Parser *p, Loc loc, const char *fmt, ...)
{
	if (p->badline)
		return;
	p->badline = true;
	va_list ap;
	va_start(ap, fmt);
	ir_vdiag(p->m, "error", loc, fmt, ap);
	va_end(ap);
}

void
fx_expected(Parser *p, const char *what)
{
	Token *t = fx_cur(p);
	char buf[48];
	if (t->kind == T_ERR)
		fx_err(p, t->loc, "%s", t->msg);
	else
		fx_err(p, t->loc, "expected %s, found %s", what,
		    fx_tok_desc(t, buf));
}



bool
fx_expect(Parser *p, const char *punct)
{
	if (fx_accept(p, punct))
		return true;
	char what[16];
	snprintf(what, sizeof what, "'%s'", punct);
	fx_expected(p, what);
	return false;
}
