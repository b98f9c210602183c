/* pt2_graph.c - the JSON program of a .pt2 archive (torch/_export/serde/
 * schema.py: GraphModule, Graph, Node, Argument, GraphSignature) into the
 * IR fx_parse builds from the same program's dump: the same op names
 * (fx_opname), value names, annotations (through fx_annot, from the text
 * the dump would print), getitem outputs, subgraphs in the order the dump
 * prints them, and the signature through fx_apply_sig.
 *
 * Positional arguments (kind 1) and keyword arguments (kind 2) are FX's
 * args and kwargs, as the dump prints them; arguments left at their
 * defaults are absent in both.
 */
#include <stdlib.h>
#include <string.h>

#include "fx_int.h"
#include "pt2_int.h"

enum { MAXGRAPHDEPTH = 64, MAXLIST = 1 << 20 };

typedef struct GCtx {
	Module *m;
	const JVal *tvals, *symint, *symbool, *symfloat; /* of this graph */
	StrMap names;      /* value name -> ValId */
	StrMap meta;       /* value name -> index+1 into metas */
	const JVal **metas;
	uint32_t nmetas, cmetas;
	StrMap used;       /* names read by some argument or output */
	Graph *g;
	GraphId gid;
	bool hop;          /* the node being read is a higher-order op */
} GCtx;

static int build(Module *m, const JVal *graph, const char *name,
    GraphId parent, int depth, GraphId *out);

/* {"as_x": payload}: the payload when the one key is as_x */
static const JVal *
union_of(const JVal *v, const char **key)
{
	if (!v || v->kind != J_OBJ || v->n != 1)
		return NULL;
	*key = v->kids[0].key;
	return &v->kids[0];
}

static StrId
jname(Module *m, const JVal *v)
{
	return v && v->kind == J_STR && v->n ? ir_internn(m, v->s, v->n) : 0;
}

/* The name of a TensorArgument / SymIntArgument ... ({"name": x} or
 * {"as_name": x}). */
static StrId
refname(Module *m, const JVal *v)
{
	const JVal *n = json_get(v, "name");
	if (!n)
		n = json_get(v, "as_name");
	return jname(m, n);
}

static void
addmeta(GCtx *c, const JVal *map)
{
	if (!json_is(map, J_OBJ))
		return;
	for (uint32_t i = 0; i < map->n; i++) {
		StrId s = ir_internn(c->m, map->kids[i].key, map->kids[i].klen);
		vgrow((void **)&c->metas, &c->cmetas, c->nmetas + 1,
		    sizeof *c->metas);
		c->metas[c->nmetas++] = &map->kids[i];
		fx_map_set(&c->meta, s, c->nmetas);
	}
}

/* A symbolic value as the dump prints its type: "Sym(2*s0)". */
static int
symtext(GCtx *c, const JVal *v, char *buf, size_t cap)
{
	Module *m = c->m;
	const char *k;
	const JVal *u = union_of(v, &k);
	if (!u) {
		pt2_err(m, v, "expected a symbolic value");
		return -1;
	}
	if (!strcmp(k, "as_int") && u->isint)
		return snprintf(buf, cap, "Sym(%lld)", (long long)u->i);
	if (!strcmp(k, "as_bool") && u->kind == J_BOOL)
		return snprintf(buf, cap, "Sym(%s)", u->b ? "True" : "False");
	if (!strcmp(k, "as_float") && u->kind == J_NUM)
		return snprintf(buf, cap, "Sym(%.17g)", u->f);
	const JVal *s = json_get(u, "expr_str");
	if (strcmp(k, "as_expr") || !json_is(s, J_STR)) {
		pt2_err(m, v, "expected as_expr with an expr_str");
		return -1;
	}
	ExprId e;
	const char *why = NULL;
	if (pt2_srepr(m, s->s, s->n, &e, &why) < 0) {
		pt2_err(m, s, "bad symbolic expression: %s", why);
		return -1;
	}
	int n = snprintf(buf, cap, "Sym(");
	n += sym_print(m, e, buf + n, cap - (size_t)n);
	return n + snprintf(buf + n, cap - (size_t)n, ")");
}

/* A TensorMeta as the dump prints its type: "f32[4, s0]". */
static int
tensortext(GCtx *c, const JVal *meta, char *buf, size_t cap)
{
	Module *m = c->m;
	const JVal *dt = json_get(meta, "dtype"), *sz = json_get(meta, "sizes");
	if (!dt || !dt->isint || !json_is(sz, J_ARR)) {
		pt2_err(m, meta, "tensor meta needs an integer dtype and sizes");
		return -1;
	}
	DType t = pt2_dtype(dt->i);
	if (!t) {
		pt2_err(m, dt, "unknown dtype code %lld", (long long)dt->i);
		return -1;
	}
	size_t n = (size_t)snprintf(buf, cap, "%s[", ir_dtype_name(t));
	for (uint32_t i = 0; i < sz->n && n < cap; i++) {
		const char *k;
		const JVal *u = union_of(&sz->kids[i], &k);
		if (i)
			n += (size_t)snprintf(buf + n, cap - n, ", ");
		if (u && !strcmp(k, "as_int") && u->isint && u->i >= 0) {
			n += (size_t)snprintf(buf + n, cap - n, "%lld",
			    (long long)u->i);
			continue;
		}
		const JVal *s = u && !strcmp(k, "as_expr") ?
		    json_get(u, "expr_str") : NULL;
		ExprId e;
		const char *why = "expected as_int (>= 0) or as_expr";
		if (!json_is(s, J_STR) || pt2_srepr(m, s->s, s->n, &e, &why)) {
			pt2_err(m, s ? s : &sz->kids[i], "bad size: %s", why);
			return -1;
		}
		if (n < cap)
			n += (size_t)sym_print(m, e, buf + n, cap - n);
	}
	if (n + 2 > cap) {
		pt2_err(m, meta, "tensor type too long");
		return -1;
	}
	buf[n++] = ']';
	buf[n] = 0;
	return (int)n;
}

/* Types a value named name from the graph's *_values tables, through the
 * dump's annotation reader so that both frontends agree. */
static int
annotate(GCtx *c, ValId v, StrId name, const JVal *at)
{
	uint32_t k = fx_map_get(&c->meta, name);
	if (!k)
		return 0;  /* untyped, like an unannotated dump value */
	const JVal *meta = c->metas[k - 1];
	char buf[4096];
	int n = (json_get(meta, "dtype") ? tensortext : symtext)(c, meta,
	    buf, sizeof buf);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof buf) {
		pt2_err(c->m, meta, "type of '%s' too long",
		    ir_str(c->m, name));
		return -1;
	}
	return fx_annot(c->m, c->g, v, buf, (size_t)n, at->loc);
}

static ValId
lookup(GCtx *c, const JVal *v, StrId name)
{
	ValId x = fx_map_get(&c->names, name);
	if (!x)
		pt2_err(c->m, v, name ? "use of undefined value '%s'" :
		    "missing value name%s", name ? ir_str(c->m, name) : "");
	return x;
}

static const struct {
	const char *name;
	uint8_t kind;
} named[] = {
	{"strided", A_LAYOUT}, {"sparse_coo", A_LAYOUT},
	{"sparse_csr", A_LAYOUT}, {"sparse_csc", A_LAYOUT},
	{"sparse_bsr", A_LAYOUT}, {"sparse_bsc", A_LAYOUT},
	{"_mkldnn", A_LAYOUT}, {"contiguous_format", A_MEMFMT},
	{"channels_last", A_MEMFMT}, {"channels_last_3d", A_MEMFMT},
	{"preserve_format", A_MEMFMT},
};

/* Layout and MemoryFormat codes of schema.py -> the names the dump
 * prints. */
static bool
enumarg(GCtx *c, const JVal *u, bool layout, Arg *out)
{
	static const char *layouts[] = {NULL, "sparse_coo", "sparse_csr",
		"sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "strided"};
	static const char *fmts[] = {NULL, "contiguous_format",
		"channels_last", "channels_last_3d", "preserve_format"};
	int64_t n = u->isint ? u->i : -1;
	const char *s = layout ? (n >= 0 && n < 8 ? layouts[n] : NULL) :
	    (n >= 0 && n < 5 ? fmts[n] : NULL);
	if (!s) {
		pt2_err(c->m, u, "unknown %s code", layout ? "layout" :
		    "memory format");
		return false;
	}
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (!strcmp(named[i].name, s))
			*out = (Arg){.kind = named[i].kind,
			    .u.s = ir_intern(c->m, s)};
	return true;
}

static bool arg(GCtx *c, const JVal *v, Arg *out, int depth);
static StrId opname(Module *m, const char *s, size_t n);

/* A list payload: every item through item_kind ("as_int" items are bare
 * numbers; "as_tensors" items are TensorArguments ...). */
static bool
listarg(GCtx *c, const JVal *u, const char *k, Arg *out, int depth)
{
	Module *m = c->m;
	if (!json_is(u, J_ARR) || u->n > MAXLIST) {
		pt2_err(m, u, "expected a list for %s", k);
		return false;
	}
	Arg *items = calloc(u->n ? u->n : 1, sizeof *items);
	bool ok = true;
	for (uint32_t i = 0; i < u->n && ok; i++) {
		const JVal *x = &u->kids[i];
		if (!strcmp(k, "as_ints") && x->isint) {
			items[i] = arg_int(x->i);
		} else if (!strcmp(k, "as_floats") && x->kind == J_NUM) {
			items[i] = arg_float(x->f);
		} else if (!strcmp(k, "as_bools") && x->kind == J_BOOL) {
			items[i] = arg_bool(x->b);
		} else if (!strcmp(k, "as_strings") && x->kind == J_STR) {
			items[i] = arg_str(ir_internn(m, x->s, x->n));
		} else if (!strcmp(k, "as_tensors")) {
			ValId vv = lookup(c, x, refname(m, x));
			ok = vv != 0;
			items[i] = arg_val(vv);
		} else if (!strcmp(k, "as_sym_ints") ||
		    !strcmp(k, "as_sym_bools") || !strcmp(k, "as_sym_floats") ||
		    !strcmp(k, "as_optional_tensors")) {
			ok = arg(c, x, &items[i], depth + 1);
		} else {
			pt2_err(m, x, "bad item for %s", k);
			ok = false;
		}
	}
	if (ok)
		*out = ir_list(c->g, c->hop ? A_TUPLE : A_LIST, items, u->n);
	free(items);
	return ok;
}

/* One Argument (a one-key object). */
static bool
arg(GCtx *c, const JVal *v, Arg *out, int depth)
{
	Module *m = c->m;
	const char *k;
	const JVal *u = union_of(v, &k);
	if (!u || depth > 32) {
		pt2_err(m, v, "expected an argument (an object with one key)");
		return false;
	}
	if (!strcmp(k, "as_none")) {
		*out = arg_none();
	} else if (!strcmp(k, "as_tensor") || !strcmp(k, "as_custom_obj") ||
	    !strcmp(k, "as_name")) {
		ValId x = lookup(c, v, k[3] == 'n' ? jname(m, u) :
		    refname(m, u));
		*out = arg_val(x);
		return x != 0;
	} else if (!strcmp(k, "as_int") && u->isint) {
		*out = arg_int(u->i);
	} else if (!strcmp(k, "as_float") && u->kind == J_NUM) {
		*out = arg_float(u->f);
	} else if (!strcmp(k, "as_float") && u->kind == J_STR) {
		/* "-Infinity" as a string in some versions */
		double f = !strcmp(u->s, "Infinity") ? 1.0 / 0.0 :
		    !strcmp(u->s, "-Infinity") ? -1.0 / 0.0 :
		    !strcmp(u->s, "NaN") ? 0.0 / 0.0 : 0;
		if (f == 0) {
			pt2_err(m, u, "bad float");
			return false;
		}
		*out = arg_float(f);
	} else if (!strcmp(k, "as_bool") && u->kind == J_BOOL) {
		*out = arg_bool(u->b);
	} else if (!strcmp(k, "as_string") && u->kind == J_STR) {
		*out = arg_str(ir_internn(m, u->s, u->n));
	} else if (!strcmp(k, "as_scalar_type") && u->isint &&
	    pt2_dtype(u->i)) {
		*out = (Arg){.kind = A_DTYPE, .u.i = pt2_dtype(u->i)};
	} else if (!strcmp(k, "as_layout") || !strcmp(k, "as_memory_format")) {
		return enumarg(c, u, k[3] == 'l', out);
	} else if (!strcmp(k, "as_device")) {
		const JVal *t = json_get(u, "type"), *i = json_get(u, "index");
		if (!json_is(t, J_STR) || (i && i->kind != J_NULL && !i->isint)) {
			pt2_err(m, u, "bad device");
			return false;
		}
		char buf[96];
		if (i && i->isint)
			snprintf(buf, sizeof buf, "%.60s:%lld", t->s,
			    (long long)i->i);
		else
			snprintf(buf, sizeof buf, "%.60s", t->s);
		*out = (Arg){.kind = A_DEVICE, .u.s = ir_intern(m, buf)};
	} else if (!strcmp(k, "as_sym_int") || !strcmp(k, "as_sym_bool") ||
	    !strcmp(k, "as_sym_float") || !strcmp(k, "as_optional_tensor")) {
		return arg(c, u, out, depth + 1);
	} else if (!strcmp(k, "as_graph")) {
		GraphId sub;
		const JVal *nm = json_get(u, "name");
		if (!json_is(nm, J_STR) || build(m, json_get(u, "graph"),
		    nm->s, c->gid, depth + 1, &sub) < 0)
			return false;
		*out = (Arg){.kind = A_GRAPH, .u.g = sub};
	} else if (!strcmp(k, "as_operator") && u->kind == J_STR) {
		StrId op = opname(m, u->s, u->n);
		if (!op) {
			pt2_err(m, u, "bad operator name");
			return false;
		}
		*out = (Arg){.kind = A_OP, .u.s = op};
	} else if (k[0] == 'a' && k[strlen(k) - 1] == 's' &&
	    u->kind == J_ARR) {
		return listarg(c, u, k, out, depth);
	} else {
		pt2_err(m, v, "unsupported or malformed argument '%s'", k);
		return false;
	}
	return true;
}

/* torch.ops.aten.add.Tensor -> aten::add.Tensor, as the dump's reader
 * names it. */
static StrId
opname(Module *m, const char *s, size_t n)
{
	Token parts[16];
	int np = 0;
	size_t i = 0;
	while (i <= n && np < 16) {
		size_t j = i;
		while (j < n && s[j] != '.')
			j++;
		parts[np++] = (Token){.kind = T_NAME, .p = s + i,
			.n = (uint32_t)(j - i)};
		i = j + 1;
	}
	if (i <= n || np == 0)
		return 0;
	return fx_opname(m, parts, np);
}

/* The innermost frame of a stack trace, as the dump's comment shows it:
 * "File: PATH:LINE in FUNC, code: CODE". */
static StrId
tracetext(Module *m, const JVal *node)
{
	const JVal *st = json_get(json_get(node, "metadata"), "stack_trace");
	if (!json_is(st, J_STR))
		return 0;
	const char *f = NULL;
	for (const char *p = st->s; (p = strstr(p, "File \"")); p++)
		f = p;
	if (!f)
		return 0;
	const char *path = f + 6, *q = strchr(path, '"');
	if (!q || strncmp(q, "\", line ", 8))
		return 0;
	const char *ln = q + 8, *in = strstr(ln, ", in ");
	if (!in)
		return 0;
	const char *fn = in + 5, *eol = strchr(fn, '\n');
	if (!eol)
		return 0;  /* a frame without its code line: the dump prints
			    * no trace for it either */
	size_t fnl = (size_t)(eol - fn);
	const char *code = eol + 1;
	while (*code == ' ')
		code++;
	size_t cl = strcspn(code, "\n");
	while (cl && (code[cl - 1] == ' ' || code[cl - 1] == '\r'))
		cl--;
	size_t len = (size_t)(q - path) + (size_t)(in - ln) + fnl + cl + 32;
	char *buf = malloc(len);
	int n = snprintf(buf, len, "File: %.*s:%.*s in %.*s, code: %.*s",
	    (int)(q - path), path, (int)(in - ln), ln, (int)fnl, fn, (int)cl,
	    code);
	StrId s = ir_internn(m, buf, (size_t)n);
	free(buf);
	return s;
}

/* Every name some argument or output reads: tuple outputs nobody reads
 * are dropped, as the dump (which has no getitem for them) drops them. */
static void
markused(GCtx *c, const JVal *v, int depth)
{
	if (!v || depth > 64)
		return;
	if (v->kind == J_OBJ) {
		const JVal *n = json_get(v, "name");
		if (!n)
			n = json_get(v, "as_name");
		if (json_is(n, J_STR) && n->n)
			fx_map_set(&c->used, ir_internn(c->m, n->s, n->n), 1);
		for (uint32_t i = 0; i < v->n; i++)
			if (strcmp(v->kids[i].key, "as_graph"))
				markused(c, &v->kids[i], depth + 1);
	} else if (v->kind == J_ARR) {
		for (uint32_t i = 0; i < v->n; i++)
			markused(c, &v->kids[i], depth + 1);
	}
}

/* The output names of a node: one entry each, NULL-named ones unused. */
typedef struct Outs {
	const JVal *v[256];
	uint32_t n;
	bool tuple;
} Outs;

static bool
outs(GCtx *c, const JVal *node, Outs *o)
{
	const JVal *os = json_get(node, "outputs");
	o->n = 0;
	o->tuple = false;
	if (!json_is(os, J_ARR)) {
		pt2_err(c->m, node, "node without an outputs list");
		return false;
	}
	for (uint32_t i = 0; i < os->n; i++) {
		const char *k;
		const JVal *u = union_of(&os->kids[i], &k);
		if (u && !strcmp(k, "as_tensors") && u->kind == J_ARR &&
		    os->n == 1) {
			o->tuple = true;
			for (uint32_t j = 0; j < u->n && o->n < 256; j++)
				o->v[o->n++] = &u->kids[j];
			return true;
		}
		if (o->n == 256) {
			pt2_err(c->m, &os->kids[i], "more than 256 outputs");
			return false;
		}
		o->v[o->n++] = u && strcmp(k, "as_none") ? &os->kids[i] : NULL;
	}
	o->tuple = os->n > 1;
	return true;
}

static StrId
outname(GCtx *c, const JVal *v)
{
	const char *k;
	const JVal *u = union_of(v, &k);
	if (!u)
		return refname(c->m, v);
	return u->kind == J_STR ? jname(c->m, u) : refname(c->m, u);
}

/* Output i of a tuple-valued node had a getitem in FX (so the dump names
 * it) unless the serializer named it NODE_unused_I; a value something
 * reads always counts. */
static bool
has_getitem(GCtx *c, const Outs *o, uint32_t i)
{
	StrId vn = o->v[i] ? outname(c, o->v[i]) : 0;
	if (!vn)
		return false;
	if (fx_map_get(&c->used, vn))
		return true;
	const char *s = ir_str(c->m, vn), *u = strstr(s, "_unused_");
	char tail[16];
	snprintf(tail, sizeof tail, "_unused_%u", i);
	size_t ls = strlen(s), lt = strlen(tail);
	return !u || ls < lt || strcmp(s + ls - lt, tail) != 0;
}

static int
defname(GCtx *c, ValId x, StrId name, const JVal *at)
{
	if (fx_map_get(&c->names, name)) {
		pt2_err(c->m, at, "duplicate definition of '%s'",
		    ir_str(c->m, name));
		return -1;
	}
	ir_val(c->g, x)->name = name;
	fx_map_set(&c->names, name, x);
	return annotate(c, x, name, at);
}

/* Keyword-only arguments of ATen ops (generated by tools/gen_kwonly.py
 * from torch's schemas, sorted by op): schema 8.2 (torch 2.6) does not
 * say which arguments FX had as kwargs, and these must stay keyed. */
static const struct {
	const char *op, *names;
} kwonly[] = {
#define KWONLY(op, names) {op, names},
#include "pt2_kwonly.def"
#undef KWONLY
};

static int
kwcmp(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static bool
is_kwonly(const char *op, const char *name)
{
	const char *const *e = bsearch(op, kwonly, sizeof kwonly /
	    sizeof kwonly[0], sizeof kwonly[0], kwcmp);
	if (!e || !*name)
		return false;
	const char *names = e[1];
	size_t n = strlen(name);
	for (const char *p = names; (p = strstr(p, name)); p += n)
		if ((p == names || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* 1 positional, 2 keyword: as written (schema >= 8.3), else from the
 * op's schema. */
static int64_t
argkind(GCtx *c, StrId op, const JVal *a)
{
	const JVal *kind = json_get(a, "kind"), *an = json_get(a, "name");
	if (kind)
		return kind->isint ? kind->i : -1;
	return json_is(an, J_STR) && is_kwonly(ir_str(c->m, op), an->s) ? 2 :
	    1;
}

/* Schema 8.2 nodes have no name: the dump's is the output's, or for a
 * tuple-valued node the op's (cond, cond_1, ...). */
static StrId
nodename(GCtx *c, const JVal *nd, StrId op, const Outs *o)
{
	Module *m = c->m;
	StrId name = jname(m, json_get(nd, "name"));
	if (name || !op)
		return name;
	if (!o->tuple && o->n == 1 && o->v[0])
		return outname(c, o->v[0]);
	const char *s = ir_str(m, op), *b = strstr(s, "::");
	b = b ? b + 2 : s;
	size_t n = strcspn(b, ".");
	char buf[160];
	snprintf(buf, sizeof buf, "%.*s", (int)(n > 100 ? 100 : n), b);
	name = ir_intern(m, buf);
	for (uint32_t k = 1; fx_map_get(&c->names, name) ||
	    fx_map_get(&c->used, name); k++) {
		snprintf(buf, sizeof buf, "%.*s_%u", (int)(n > 100 ? 100 : n),
		    b, k);
		name = ir_intern(m, buf);
	}
	fx_map_set(&c->used, name, 1);  /* taken, as FX's namespace */
	return name;
}

static int
node(GCtx *c, const JVal *nd)
{
	Module *m = c->m;
	const JVal *t = json_get(nd, "target"), *in = json_get(nd, "inputs");
	StrId op = json_is(t, J_STR) ? opname(m, t->s, t->n) : 0;
	Outs o;
	if (!outs(c, nd, &o))
		return -1;
	StrId name = nodename(c, nd, op, &o);
	if (!op || !json_is(in, J_ARR) || !name) {
		pt2_err(m, nd, "node needs a target, a name and an inputs list");
		return -1;
	}
	c->hop = !strncmp(ir_str(m, op), "higher_order::", 14);
	/* FX args first, then kwargs, each in the order written */
	Arg *args = calloc(in->n ? in->n : 1, sizeof *args);
	uint32_t na = 0;
	int rc = 0;
	for (int pass = 1; pass <= 2 && rc == 0; pass++) {
		for (uint32_t i = 0; i < in->n && rc == 0; i++) {
			const JVal *a = &in->kids[i], *an = json_get(a,
			    "name");
			int64_t kd = argkind(c, op, a);
			if (kd != 1 && kd != 2) {
				pt2_err(m, a, "argument kind must be 1 or 2");
				rc = -1;
			} else if (kd == pass && !arg(c, json_get(a, "arg") ?
			    json_get(a, "arg") : a, &args[na], 0)) {
				rc = -1;
			} else if (kd == pass) {
				if (pass == 2)
					args[na] = arg_keyed(args[na],
					    jname(m, an));
				na++;
			}
		}
	}
	uint32_t nout = 1;
	if (o.tuple) {
		nout = 0;
		for (uint32_t i = 0; i < o.n; i++)
			if (has_getitem(c, &o, i))
				nout = i + 1;
	}
	if (rc == 0) {
		NodeId n = ir_node(c->g, D_FX, op, nout ? nout : 1);
		Node *np = ir_nodep(c->g, n);
		np->loc = nd->loc;
		np->name = name;
		np->trace = tracetext(m, nd);
		for (uint32_t i = 0; i < na; i++)
			ir_push_arg(c->g, n, args[i]);
		ValId out = np->out;
		if (!o.tuple || !nout) {
			StrId vn = o.n && o.v[0] && !o.tuple ?
			    outname(c, o.v[0]) : name;
			rc = defname(c, out, vn ? vn : name, nd);
		}
		for (uint32_t i = 0; o.tuple && i < nout && rc == 0; i++) {
			StrId vn = o.v[i] ? outname(c, o.v[i]) : 0;
			if (has_getitem(c, &o, i)) {
				rc = defname(c, out + i, vn, o.v[i]);
				continue;
			}
			char buf[300];
			snprintf(buf, sizeof buf, "%.200s_unused_%u",
			    ir_str(m, name), i);
			ir_val(c->g, out + i)->name = ir_intern(m, buf);
		}
	}
	free(args);
	return rc;
}

static int
inputs(GCtx *c, const JVal *ins)
{
	if (!json_is(ins, J_ARR)) {
		pt2_err(c->m, ins, "graph inputs must be a list");
		return -1;
	}
	for (uint32_t i = 0; i < ins->n; i++) {
		const char *k;
		const JVal *u = union_of(&ins->kids[i], &k);
		StrId name = u ? (u->kind == J_STR ? jname(c->m, u) :
		    refname(c->m, u)) : 0;
		if (!name) {
			pt2_err(c->m, &ins->kids[i], "graph input without a "
			    "name");
			return -1;
		}
		ValId v = ir_value(c->g, 0);
		if (defname(c, v, name, &ins->kids[i]) < 0)
			return -1;
		if (!fx_map_get(&c->meta, name))
			ir_val(c->g, v)->kind = VK_CONST;
		ir_val(c->g, v)->role = ROLE_USER_INPUT;
		ir_add_input(c->g, v);
	}
	return 0;
}

static int
outputs(GCtx *c, const JVal *os)
{
	if (!json_is(os, J_ARR)) {
		pt2_err(c->m, os, "graph outputs must be a list");
		return -1;
	}
	for (uint32_t i = 0; i < os->n; i++) {
		const char *k;
		const JVal *u = union_of(&os->kids[i], &k);
		if (u && !strcmp(k, "as_tensors") && u->kind == J_ARR) {
			for (uint32_t j = 0; j < u->n; j++) {
				ValId v = lookup(c, &u->kids[j],
				    refname(c->m, &u->kids[j]));
				if (!v)
					return -1;
				ir_add_output(c->g, v, OUT_USER, 0);
			}
			continue;
		}
		StrId name = u ? (u->kind == J_STR ? jname(c->m, u) :
		    refname(c->m, u)) : 0;
		ValId v = name ? lookup(c, &os->kids[i], name) : 0;
		if (!v) {
			if (!name)
				pt2_err(c->m, &os->kids[i], "only graph values "
				    "can be outputs");
			return -1;
		}
		ir_add_output(c->g, v, OUT_USER, 0);
	}
	return 0;
}

static int
build(Module *m, const JVal *graph, const char *name, GraphId parent,
    int depth, GraphId *out)
{
	if (!json_is(graph, J_OBJ)) {
		pt2_err(m, graph, "expected a graph object");
		return -1;
	}
	if (depth > MAXGRAPHDEPTH) {
		pt2_err(m, graph, "subgraphs nested too deeply");
		return -1;
	}
	GCtx c = {.m = m};
	c.gid = ir_graph_new(m, name, parent);
	c.g = ir_graph(m, c.gid);
	addmeta(&c, json_get(graph, "tensor_values"));
	addmeta(&c, json_get(graph, "sym_int_values"));
	addmeta(&c, json_get(graph, "sym_bool_values"));
	addmeta(&c, json_get(graph, "sym_float_values"));
	const JVal *nodes = json_get(graph, "nodes");
	int rc = json_is(nodes, J_ARR) ? 0 : -1;
	if (rc < 0)
		pt2_err(m, graph, "graph without a nodes list");
	for (uint32_t i = 0; rc == 0 && i < nodes->n; i++)
		markused(&c, json_get(&nodes->kids[i], "inputs"), 0);
	markused(&c, json_get(graph, "outputs"), 0);
	if (rc == 0)
		rc = inputs(&c, json_get(graph, "inputs"));
	for (uint32_t i = 0; rc == 0 && i < nodes->n; i++) {
		c.g = ir_graph(m, c.gid);  /* subgraphs grow m->graphs */
		rc = node(&c, &nodes->kids[i]);
	}
	c.g = ir_graph(m, c.gid);
	if (rc == 0)
		rc = outputs(&c, json_get(graph, "outputs"));
	fx_map_free(&c.names);
	fx_map_free(&c.meta);
	fx_map_free(&c.used);
	free(c.metas);
	*out = c.gid;
	return rc;
}

/* ---------------------------------------------------------- signature */

static const struct {
	const char *key, *target;
	uint8_t kind;
} inspecs[] = {
	{"user_input", NULL, ROLE_USER_INPUT},
	{"parameter", "parameter_name", ROLE_PARAM},
	{"buffer", "buffer_name", ROLE_BUFFER},
	{"tensor_constant", "tensor_constant_name", ROLE_CONST},
	{"custom_obj", "custom_obj_name", ROLE_CUSTOM_OBJ},
	{"token", NULL, ROLE_TOKEN},
}, outspecs[] = {
	{"user_output", NULL, OUT_USER},
	{"loss_output", NULL, OUT_LOSS},
	{"buffer_mutation", "buffer_name", OUT_BUFFER_MUTATION},
	{"gradient_to_parameter", "parameter_name", OUT_GRAD_PARAM},
	{"gradient_to_user_input", "user_input_name", OUT_GRAD_INPUT},
	{"user_input_mutation", "user_input_name", OUT_USER_INPUT_MUTATION},
	{"token", NULL, OUT_TOKEN},
	{"parameter_mutation", "parameter_name", OUT_PARAM_MUTATION},
};

/* InputSpec/OutputSpec lists into the dump reader's Sig. */
static int
specs(Module *m, const JVal *list, bool in, Sig *s)
{
	if (!json_is(list, J_ARR)) {
		pt2_err(m, list, "the graph signature needs %s",
		    in ? "input_specs" : "output_specs");
		return -1;
	}
	size_t nt = in ? sizeof inspecs / sizeof inspecs[0] :
	    sizeof outspecs / sizeof outspecs[0];
	for (uint32_t i = 0; i < list->n; i++) {
		const char *k;
		const JVal *u = union_of(&list->kids[i], &k);
		size_t t = 0;
		while (u && t < nt && strcmp((in ? inspecs : outspecs)[t].key,
		    k))
			t++;
		if (!u || t == nt) {
			pt2_err(m, &list->kids[i], "unknown %s spec",
			    in ? "input" : "output");
			return -1;
		}
		const char *tk = (in ? inspecs : outspecs)[t].target;
		const JVal *a = json_get(u, "arg");
		const char *ak;
		const JVal *au = union_of(a, &ak);
		StrId name = refname(m, a);
		if (!name && au)
			name = au->kind == J_STR ? jname(m, au) :
			    refname(m, au);
		SigEntry e = {.name = name, .kind = (in ? inspecs :
			outspecs)[t].kind, .loc = list->kids[i].loc,
			.target = tk ? jname(m, json_get(u, tk)) : 0};
		if (in) {
			vgrow((void **)&s->in, &s->cin, s->nin + 1,
			    sizeof *s->in);
			s->in[s->nin++] = e;
		} else {
			vgrow((void **)&s->out, &s->cout, s->nout + 1,
			    sizeof *s->out);
			s->out[s->nout++] = e;
		}
	}
	return 0;
}

/* range_constraints {"s0": {"min_val": 2, "max_val": 64}} as the dump
 * prints them, into Module.ranges and the range table. */
static int
ranges(Module *m, const JVal *rc)
{
	if (!rc)
		return 0;
	if (!json_is(rc, J_OBJ)) {
		pt2_err(m, rc, "range_constraints must be an object");
		return -1;
	}
	size_t cap = 64 + (size_t)rc->n * 96, n = 0;
	char *buf = malloc(cap);
	n += (size_t)snprintf(buf, cap, "{");
	for (uint32_t i = 0; i < rc->n; i++) {
		const JVal *r = &rc->kids[i], *lo = json_get(r, "min_val"),
		    *hi = json_get(r, "max_val");
		char l[32] = "-int_oo", h[32] = "int_oo";
		if (lo && lo->isint)
			snprintf(l, sizeof l, "%lld", (long long)lo->i);
		if (hi && hi->isint)
			snprintf(h, sizeof h, "%lld", (long long)hi->i);
		n += (size_t)snprintf(buf + n, cap - n, "%s%.*s: VR[%s, %s]",
		    i ? ", " : "", r->klen > 40 ? 40 : (int)r->klen, r->key,
		    l, h);
	}
	n += (size_t)snprintf(buf + n, cap - n, "}");
	size_t err = 0;
	int res = 0;
	m->ranges = ir_internn(m, buf, n);
	if (sym_parse_ranges(m, buf, n, &err) < 0) {
		pt2_err(m, rc, "range constraints not understood");
		res = -1;
	}
	free(buf);
	return res;
}

int
pt2_graph(Module *m, const JVal *prog, GraphId *out)
{
	int errs = m->nerrors;
	const JVal *gm = json_get(prog, "graph_module");
	const JVal *sig = json_get(gm, "signature");
	if (!json_is(gm, J_OBJ) || !json_is(sig, J_OBJ)) {
		pt2_err(m, gm ? gm : prog, "expected graph_module with a graph "
		    "and a signature");
		return -1;
	}
	GraphId main;
	if (build(m, json_get(gm, "graph"), "GraphModule", 0, 0, &main) < 0)
		return -1;
	Parser p = {.m = m};
	p.sig.present = true;
	p.sig.loc = sig->loc;
	if (specs(m, json_get(sig, "input_specs"), true, &p.sig) == 0 &&
	    specs(m, json_get(sig, "output_specs"), false, &p.sig) == 0)
		fx_apply_sig(&p, main);
	fx_sig_free(&p.sig);
	ranges(m, json_get(prog, "range_constraints"));
	if (m->nerrors != errs)
		return -1;
	m->main = main;
	*out = main;
	return 0;
}
