/* meta.c - provenance metadata as torch.onnx writes it, as text.
 *
 * Requires: nodes carrying their FX name, module stack and stack trace
 * (Node.name/scope/trace), the FX graphs still in the module, and graph
 * inputs/outputs carrying their signature roles.
 * Provides: the strings of torch.onnx's metadata keys
 * (torch/onnx/_internal/exporter/_core.py): per node namespace,
 * class_hierarchy, name_scopes, fx_node (torch.fx's Node.format_node())
 * and stack_trace; the graph signature as str(ExportGraphSignature).
 * No protobuf here: the writers attach these strings to their fields.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <onnxc/table.h>

#include "backend.h"

typedef struct Buf {
	char *p;
	size_t n, cap;
	bool count;    /* only count the bytes (be_meta_measure) */
} Buf;

typedef struct FxAt {
	GraphId g;
	NodeId n;
} FxAt;

/* An op's target texts: str() (torch.onnx), its repr() and FX's str(). */
typedef struct OpText {
	StrId op;
	BeText plain, repr, fx;
} OpText;

enum { NOPTEXT = 64 };  /* a direct-mapped cache: models use few ops */

struct BeMeta {
	Module *m;
	Arena *a;          /* the graph signature's text */
	Arena *ops;        /* the op texts of the cache */
	bool strip;        /* --strip-paths */
	FxAt *at;          /* FX node by its name (StrId) */
	uint32_t nat;
	uint32_t **users;  /* per FX graph: num_users per node */
	bool borrowed;     /* at and users are another BeMeta's (a fork) */
	OpText optext[NOPTEXT]; /* by op & (NOPTEXT - 1) */
	Buf b, t;
};

static void
put(Buf *b, const char *s, size_t n)
{
	if (b->count) {
		b->n += n;
		return;
	}
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void
puts_(Buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* an interned string: its length is kept beside it */
static void
put_id(Buf *b, Module *m, StrId s)
{
	put(b, ir_str(m, s), ir_strlen(m, s));
}

static void
put_text(Buf *b, BeText t)
{
	put(b, t.s, t.n);
}

static void
putf(Buf *b, const char *f, ...)
{
	if (b->count) {
		va_list ap;
		va_start(ap, f);
		int n = vsnprintf(NULL, 0, f, ap);
		va_end(ap);
		b->n += n > 0 ? (size_t)n : 0;
		return;
	}
	put(b, "", 0);  /* room for the terminator at least */
	for (;;) {
		va_list ap;
		size_t room = b->cap - b->n;
		va_start(ap, f);
		int n = vsnprintf(b->p + b->n, room, f, ap);
		va_end(ap);
		if (n < 0) {
			b->p[b->n] = 0;
			return;
		}
		if ((size_t)n < room) {
			b->n += (size_t)n;
			return;
		}
		b->cap = (b->n + (size_t)n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
}

/* b's text into arena a (only its length while b counts); b starts
 * over */
static BeText
take_into(Arena *a, Buf *b)
{
	BeText t = {b->count ? NULL : arena_strndup(a, b->p ? b->p : "", b->n),
	    b->n};
	b->n = 0;
	return t;
}


/* Python's repr() of a str: single quotes unless the text has one and
 * no double quote. */
static void
pyrepr(Buf *b, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	put(b, &q, 1);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		/* a run of characters that stand for themselves, at once */
		const unsigned char *r = p;
		while (*r >= 0x20 && *r != 0x7f && *r != '\\' && *r != q)
			r++;
		put(b, (const char *)p, (size_t)(r - p));
		p = r;
		if (!*p)
			break;
		if (*p == '\\' || *p == (unsigned char)q)
			putf(b, "\\%c", *p);
		else if (*p == '\n')
			puts_(b, "\\n");
		else if (*p == '\t')
			puts_(b, "\\t");
		else if (*p == '\r')
			puts_(b, "\\r");
		else
			putf(b, "\\x%02x", *p);
		p++;
	}
	put(b, &q, 1);
}

/* str() of an op target: torch.fx prints OpOverloads as "aten.add.Tensor";
 * Python operators as "<built-in function mul>". */
static void
target(Buf *b, const char *op, bool fx)
{
	const char *ns = strstr(op, "::");
	if (!ns) {
		puts_(b, op);
		return;
	}
	size_t nl = (size_t)(ns - op);
	if ((nl == 9 && !memcmp(op, "_operator", 9)) ||
	    (nl == 8 && !memcmp(op, "builtins", 8))) {
		if (fx)
			putf(b, "%s.%s", nl == 9 ? "operator" : "builtins",
			    ns + 2);
		else
			putf(b, "<built-in function %s>", ns + 2);
		return;
	}
	if (fx)
		puts_(b, "torch.ops.");
	put(b, op, nl);
	put(b, ".", 1);
	puts_(b, ns + 2);
}

/* the texts of op, made once while it stays in the cache (a text
 * takes a few hundred instructions; nodes share few ops) */
static const OpText *
optext(BeMeta *x, StrId op)
{
	OpText *c = &x->optext[op & (NOPTEXT - 1)];
	if (c->op == op && c->plain.s)
		return c;
	const char *s = ir_str(x->m, op);
	Buf *t = &x->t;
	c->op = op;
	t->n = 0;
	target(t, s, true);
	c->fx = take_into(x->ops, t);
	target(t, s, false);
	c->plain = take_into(x->ops, t);
	pyrepr(t, c->plain.s);
	c->repr = take_into(x->ops, t);
	return c;
}

static const char *const torch_dtype[DT_COUNT] = {
	[DT_F32] = "float32", [DT_U8] = "uint8", [DT_I8] = "int8",
	[DT_U16] = "uint16", [DT_I16] = "int16", [DT_I32] = "int32",
	[DT_I64] = "int64", [DT_BOOL] = "bool", [DT_F16] = "float16",
	[DT_F64] = "float64", [DT_U32] = "uint32", [DT_U64] = "uint64",
	[DT_C64] = "complex64", [DT_C128] = "complex128",
	[DT_BF16] = "bfloat16", [DT_F8E4M3FN] = "float8_e4m3fn",
	[DT_F8E4M3FNUZ] = "float8_e4m3fnuz", [DT_F8E5M2] = "float8_e5m2",
	[DT_F8E5M2FNUZ] = "float8_e5m2fnuz", [DT_F8E8M0] = "float8_e8m0fnu",
	[DT_F4E2M1] = "float4_e2m1fn_x2",
};

/* Python's repr() of a float: the shortest text that reads back. */
static void
pyfloat(Buf *b, double f)
{
	if (isnan(f)) {
		puts_(b, "nan");
		return;
	}
	if (isinf(f)) {
		puts_(b, f < 0 ? "-inf" : "inf");
		return;
	}
	char tmp[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, f);
		if (strtod(tmp, NULL) == f)
			break;
	}
	puts_(b, tmp);
	if (!strpbrk(tmp, ".eni"))
		puts_(b, ".0");
}

/* torch.fx's _format_arg */
static void
fxarg(BeMeta *x, const Graph *g, const Arg *a)
{
	Module *m = x->m;
	Buf *b = &x->b;
	switch (a->kind) {
	case A_NONE: puts_(b, "None"); break;
	case A_VAL:
		puts_(b, "%");
		put_id(b, m, ir_val(g, a->u.v)->name);
		break;
	case A_INT: putf(b, "%lld", (long long)a->u.i); break;
	case A_FLOAT: pyfloat(b, a->u.f); break;
	case A_BOOL: puts_(b, a->u.i ? "True" : "False"); break;
	case A_DTYPE:
		putf(b, "torch.%s", (unsigned)a->u.i < DT_COUNT &&
		    torch_dtype[a->u.i] ? torch_dtype[a->u.i] : "?");
		break;
	case A_LAYOUT:
	case A_MEMFMT:
		puts_(b, "torch.");
		put_id(b, m, a->u.s);
		break;
	case A_LIST:
	case A_TUPLE: {
		const Arg *it = ir_items(g, a);
		puts_(b, a->kind == A_LIST ? "[" : "(");
		for (uint32_t i = 0; i < a->u.list.n; i++) {
			if (i)
				puts_(b, ", ");
			fxarg(x, g, &it[i]);
		}
		if (a->kind == A_TUPLE && a->u.list.n == 1)
			puts_(b, ",");
		puts_(b, a->kind == A_LIST ? "]" : ")");
		break;
	}
	case A_GRAPH: puts_(b, ir_str(m, ir_graph(m, a->u.g)->name)); break;
	case A_TENSOR: puts_(b, "tensor"); break;
	default: put_id(b, m, a->u.s); break; /* STR, DEVICE, OP */
	}
}

/* Node.format_node() of FX node n of graph gid:
 * "%add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor]
 * (args = (%x, %y), kwargs = {})" */
static void
format_node(BeMeta *x, GraphId gid, NodeId id)
{
	Module *m = x->m;
	const Graph *g = ir_graph(m, gid);
	const Node *n = ir_nodep(g, id);
	Buf *b = &x->b;
	/* num_users in decimal, without printf's cost */
	char users[16], *u = users + sizeof users;
	uint32_t cnt = x->users[gid][id];
	do
		*--u = (char)('0' + cnt % 10);
	while (cnt /= 10);
	puts_(b, "%");
	put_id(b, m, n->name);
	puts_(b, " : [num_users=");
	put(b, u, (size_t)(users + sizeof users - u));
	puts_(b, "] = call_function[target=");
	put_text(b, optext(x, n->op)->fx);
	puts_(b, "](args = (");
	uint32_t npos = ir_npos(g, id);
	for (uint32_t i = 0; i < npos; i++) {
		if (i)
			puts_(b, ", ");
		fxarg(x, g, ir_arg(g, id, i));
	}
	puts_(b, npos == 1 ? ",), kwargs = {" : "), kwargs = {");
	for (uint32_t i = npos; i < n->nargs; i++) {
		const Arg *a = ir_arg(g, id, i);
		if (i > npos)
			puts_(b, ", ");
		put_id(b, m, a->key);
		puts_(b, ": ");
		fxarg(x, g, a);
	}
	puts_(b, "})");
}

/* num_users of every node of an FX graph: distinct nodes reading one of
 * its outputs, the graph's output counting as one. */
static uint32_t *
count_users(const Graph *g)
{
	uint32_t *users = onnxc_table_calloc(g->nnodes + 1, sizeof *users);
	uint32_t *last = onnxc_table_calloc(g->nnodes + 1, sizeof *last);
	if (!users || !last)
		ir_oom(0);
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = &g->nodes[n];
		for (uint32_t i = 0; i < p->nargs; i++) {
			const Arg *a = &g->args[p->args + i];
			uint32_t cnt = 1;
			if (a->kind == A_LIST || a->kind == A_TUPLE) {
				cnt = a->u.list.n;
				a = ir_items(g, a);
			}
			for (uint32_t j = 0; j < cnt; j++) {
				if (a[j].kind != A_VAL)
					continue;
				NodeId d = g->vals[a[j].u.v].def;
				if (d && last[d] != n) {
					last[d] = n;
					users[d]++;
				}
			}
		}
	}
	for (uint32_t i = 0; i < g->noutputs; i++) {
		NodeId d = g->vals[g->outputs[i]].def;
		if (d && last[d] != g->nnodes) {
			last[d] = g->nnodes;
			users[d]++;
		}
	}
	free(last);
	return users;
}

static BeMeta *
meta_alloc(Module *m, bool strip_paths)
{
	BeMeta *x = calloc(1, sizeof *x);
	if (!x)
		ir_oom(0);
	x->m = m;
	x->a = arena_new();
	x->ops = arena_new();
	x->strip = strip_paths;
	return x;
}

BeMeta *
be_meta_new(Module *m, bool strip_paths)
{
	BeMeta *x = meta_alloc(m, strip_paths);
	x->nat = m->nstrs;
	x->at = onnxc_table_calloc(x->nat + 1, sizeof *x->at);
	x->users = calloc(m->ngraphs + 1, sizeof *x->users);
	if (!x->at || !x->users)
		ir_oom(0);
	for (GraphId gi = 1; gi < m->ngraphs; gi++) {
		const Graph *g = m->graphs[gi];
		bool fx = false;
		for (NodeId n = 1; g && n < g->nnodes; n++) {
			const Node *p = &g->nodes[n];
			if (p->dialect != D_FX || !p->op)
				continue;
			fx = true;
			if (p->name && p->name < x->nat && !x->at[p->name].g)
				x->at[p->name] = (FxAt){gi, n};
		}
		if (fx)
			x->users[gi] = count_users(g);
	}
	return x;
}

BeMeta *
be_meta_fork(const BeMeta *x)
{
	BeMeta *f = meta_alloc(x->m, x->strip);
	f->at = x->at;
	f->nat = x->nat;
	f->users = x->users;
	f->borrowed = true;
	return f;
}

void
be_meta_free(BeMeta *x)
{
	if (!x)
		return;
	if (!x->borrowed) {
		for (GraphId gi = 0; gi <= x->m->ngraphs; gi++)
			free(x->users[gi]);
		free(x->users);
		free(x->at);
	}
	free(x->b.p);
	free(x->t.p);
	arena_free(x->a);
	arena_free(x->ops);
	free(x);
}

/* The trace with every "File: /dir/f.py" or 'File "/dir/f.py"' path cut
 * to its file name. */
static void
strip_paths(BeMeta *x, const char *s)
{
	Buf *b = &x->b;
	for (;;) {
		const char *f = strstr(s, "File");
		if (!f || (f[4] != ':' && f[4] != ' ')) {
			if (!f) {
				puts_(b, s);
				break;
			}
			put(b, s, (size_t)(f - s) + 4);
			s = f + 4;
			continue;
		}
		const char *p = f + 4;
		while (*p == ':' || *p == ' ' || *p == '"')
			p++;
		put(b, s, (size_t)(p - s));
		const char *end = p + strcspn(p, "\":\n, ");
		const char *base = p;
		for (const char *q = p; q < end; q++)
			if (*q == '/' || *q == '\\')
				base = q + 1;
		s = base;
	}
}

void
be_meta_measure(BeMeta *x, bool on)
{
	x->b.count = on;
	x->b.n = 0;
}

bool
be_meta_node(BeMeta *x, const Node *n, BeNodeMeta *out)
{
	Module *m = x->m;
	if (!n->name)
		return false;
	const char *name = ir_str(m, n->name);
	FxAt at = n->name < x->nat ? x->at[n->name] : (FxAt){0, 0};
	const Node *fx = at.g ? ir_nodep(ir_graph(m, at.g), at.n) : NULL;
	const OpText *op = optext(x, fx ? fx->op : n->op);
	StrId scope = n->scope ? n->scope : fx ? fx->scope : 0;

	/* the texts one after the other in b, where they stay until the
	 * next node (no copies): off[k] is where text k starts */
	Buf *b = &x->b;
	size_t off[5] = {0};
	b->n = 0;
	/* scope lines "path\tClass" -> the three views torch.onnx makes */
	const char *sc = scope ? ir_str(m, scope) : "";
	for (int view = 0; view < 3; view++) {
		if (view)
			puts_(b, "[");
		for (const char *l = sc; *l;) {
			const char *nl = strchr(l, '\n'), *tab = strchr(l, '\t');
			size_t len = nl ? (size_t)(nl - l) : strlen(l);
			size_t pl = tab && tab < l + len ? (size_t)(tab - l) : len;
			const char *cls = l + pl + (pl < len);
			size_t cl = len - pl - (pl < len);
			char tmp[512];
			if (view == 0) {
				put(b, l, pl);
				puts_(b, ": ");
				put(b, cls, cl);
				puts_(b, "/");
			} else {
				snprintf(tmp, sizeof tmp, "%.*s", view == 1
				    ? (int)cl : (int)pl, view == 1 ? cls : l);
				pyrepr(b, tmp);
				puts_(b, ", ");
			}
			l += len + (nl != NULL);
		}
		if (view == 0) {
			put_id(b, m, n->name);
			puts_(b, ": ");
			put_text(b, op->plain);
		} else if (view == 1) {
			put_text(b, op->repr);
			puts_(b, "]");
		} else {
			pyrepr(b, name);
			puts_(b, "]");
		}
		off[view + 1] = b->n;
	}
	if (fx)
		format_node(x, at.g, at.n);
	off[4] = b->n;
	StrId tr = n->trace ? n->trace : fx ? fx->trace : 0;
	out->trace = (BeText){tr ? ir_str(m, tr) : "", tr ? ir_strlen(m, tr)
	    : 0};
	if (x->strip && out->trace.n) {
		strip_paths(x, out->trace.s);
		out->trace = (BeText){NULL, b->n - off[4]};
	}
	/* b has moved as it grew: the places only now (none when counting) */
	const char *p = b->count ? NULL : b->p;
	BeText *t[4] = {&out->ns, &out->classes, &out->scopes, &out->fx_node};
	for (int k = 0; k < 4; k++)
		*t[k] = (BeText){p ? p + off[k] : NULL, off[k + 1] - off[k]};
	if (x->strip && out->trace.n && p)
		out->trace.s = p + off[4];
	return true;
}

const char *
be_input_kind(Role r)
{
	static const char *const k[] = {
		[ROLE_NONE] = "USER_INPUT", [ROLE_USER_INPUT] = "USER_INPUT",
		[ROLE_PARAM] = "PARAMETER", [ROLE_BUFFER] = "BUFFER",
		[ROLE_CONST] = "CONSTANT_TENSOR",
		[ROLE_CUSTOM_OBJ] = "CUSTOM_OBJ", [ROLE_TOKEN] = "TOKEN",
	};
	return (unsigned)r < sizeof k / sizeof *k ? k[r] : "USER_INPUT";
}

const char *
be_output_kind(OutKind o)
{
	static const char *const k[] = {
		[OUT_USER] = "USER_OUTPUT", [OUT_LOSS] = "LOSS_OUTPUT",
		[OUT_BUFFER_MUTATION] = "BUFFER_MUTATION",
		[OUT_USER_INPUT_MUTATION] = "USER_INPUT_MUTATION",
		[OUT_GRAD_PARAM] = "GRADIENT_TO_PARAMETER",
		[OUT_GRAD_INPUT] = "GRADIENT_TO_USER_INPUT",
		[OUT_TOKEN] = "TOKEN", [OUT_PARAM_MUTATION] = "PARAMETER_MUTATION",
	};
	return (unsigned)o < sizeof k / sizeof *k ? k[o] : "USER_OUTPUT";
}

const char *
be_persist_text(const Value *v)
{
	if (v->role != ROLE_BUFFER || v->persist == PERSIST_UNKNOWN)
		return "None";
	return v->persist == PERSIST_YES ? "True" : "False";
}

/* A value's name in the FX graph. */
static const char *
fxname(Module *m, const Value *v)
{
	return ir_str(m, v->orig ? v->orig : v->name);
}

const char *
be_meta_signature(BeMeta *x, GraphId gid)
{
	Module *m = x->m;
	const Graph *g = ir_graph(m, gid);
	Buf *b = &x->b;
	bool count = b->count;
	b->count = false;   /* a text that is kept: always made */
	puts_(b, "\n# inputs\n");
	for (uint32_t i = 0; i < g->ninputs; i++) {
		const Value *v = ir_val(g, g->inputs[i]);
		putf(b, "%s: %s", fxname(m, v), be_input_kind((Role)v->role));
		if (v->target)
			putf(b, " target='%s'", ir_str(m, v->target));
		if (v->role == ROLE_BUFFER && v->persist)
			puts_(b, v->persist == PERSIST_YES ? " persistent=True"
			    : " persistent=False");
		puts_(b, "\n");
	}
	puts_(b, "\n# outputs\n");
	for (uint32_t i = 0; i < g->noutputs; i++) {
		const Value *v = ir_val(g, g->outputs[i]);
		putf(b, "%s: %s", fxname(m, v),
		    be_output_kind((OutKind)g->outkind[i]));
		if (g->outtarget && g->outtarget[i])
			putf(b, " target='%s'", ir_str(m, g->outtarget[i]));
		puts_(b, "\n");
	}
	const char *sig = take_into(x->a, b).s;
	b->count = count;
	return sig;
}
