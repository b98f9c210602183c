/* pt2_args.c - node arguments of a .pt2 program (schema.py's Argument
 * union) as the dump parser's Args: values by name, numbers, strings,
 * dtypes, layouts, memory formats, devices, lists (tuples for
 * higher-order ops), op objects and subgraphs; and which arguments were
 * FX kwargs.  Also the small readers of schema.py's types that the graph
 * and the weights share (unions, names, ScalarType codes). */
#include <stdlib.h>
#include <string.h>

#include "pt2_int.h"

enum { MAXLIST = 1 << 20 };

DType
pt2_dtype(int64_t code)
{
	/* ScalarType in torch/_export/serde/schema.py */
	static const uint8_t t[] = {
		[1] = DT_U8, [2] = DT_I8, [3] = DT_I16, [4] = DT_I32,
		[5] = DT_I64, [6] = DT_F16, [7] = DT_F32, [8] = DT_F64,
		[10] = DT_C64, [11] = DT_C128, [12] = DT_BOOL, [13] = DT_BF16,
		[28] = DT_U16, [29] = DT_F8E4M3FN, [30] = DT_F8E5M2,
		[31] = DT_F8E4M3FNUZ, [32] = DT_F8E5M2FNUZ, [34] = DT_U32,
		[35] = DT_U64,
	};
	return code > 0 && code < (int64_t)sizeof t ? (DType)t[code] : DT_UNDEF;
}

/* {"as_x": payload}: the payload when the one key is as_x */
const JVal *
pt2_union(const JVal *v, const char **key)
{
	if (!v || v->kind != J_OBJ || v->n != 1)
		return NULL;
	*key = v->kids[0].key;
	return &v->kids[0];
}

StrId
pt2_jname(Module *m, const JVal *v)
{
	return v && v->kind == J_STR && v->n ? ir_internn(m, v->s, v->n) : 0;
}

/* The name of a TensorArgument / SymIntArgument ... ({"name": x} or
 * {"as_name": x}). */
StrId
pt2_refname(Module *m, const JVal *v)
{
	const JVal *n = json_get(v, "name");
	if (!n)
		n = json_get(v, "as_name");
	return pt2_jname(m, n);
}

ValId
pt2_lookup(GCtx *c, const JVal *v, StrId name)
{
	ValId x = fe_map_get(&c->names, name);
	if (!x)
		json_err(c->m, v, name ? "use of undefined value '%s'" :
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
		json_err(c->m, u, "unknown %s code", layout ? "layout" :
		    "memory format");
		return false;
	}
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (!strcmp(named[i].name, s))
			*out = (Arg){.kind = named[i].kind,
			    .u.s = ir_intern(c->m, s)};
	return true;
}

/* A list payload: every item through item_kind ("as_int" items are bare
 * numbers; "as_tensors" items are TensorArguments ...). */
static bool
listarg(GCtx *c, const JVal *u, const char *k, Arg *out, int depth)
{
	Module *m = c->m;
	if (!json_is(u, J_ARR) || u->n > MAXLIST) {
		json_err(m, u, "expected a list for %s", k);
		return false;
	}
	Arg *items = xzalloc(u->n, sizeof *items);
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
			ValId vv = pt2_lookup(c, x, pt2_refname(m, x));
			ok = vv != 0;
			items[i] = arg_val(vv);
		} else if (!strcmp(k, "as_sym_ints") ||
		    !strcmp(k, "as_sym_bools") || !strcmp(k, "as_sym_floats") ||
		    !strcmp(k, "as_optional_tensors")) {
			ok = pt2_arg(c, x, &items[i], depth + 1);
		} else {
			json_err(m, x, "bad item for %s", k);
			ok = false;
		}
	}
	if (ok)
		*out = ir_list(c->g, c->hop ? A_TUPLE : A_LIST, items, u->n);
	free(items);
	return ok;
}

/* One Argument (a one-key object). */
bool
pt2_arg(GCtx *c, const JVal *v, Arg *out, int depth)
{
	Module *m = c->m;
	const char *k;
	const JVal *u = pt2_union(v, &k);
	if (!u || depth > 32) {
		json_err(m, v, "expected an argument (an object with one key)");
		return false;
	}
	if (!strcmp(k, "as_none")) {
		*out = arg_none();
	} else if (!strcmp(k, "as_tensor") || !strcmp(k, "as_custom_obj") ||
	    !strcmp(k, "as_name")) {
		ValId x = pt2_lookup(c, v, k[3] == 'n' ? pt2_jname(m, u) :
		    pt2_refname(m, u));
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
			json_err(m, u, "bad float");
			return false;
		}
		*out = arg_float(f);
	} else if (!strcmp(k, "as_complex") && u->kind == J_OBJ) {
		const JVal *re = json_get(u, "real"), *im = json_get(u, "imag");
		if (!json_is(re, J_NUM) || !json_is(im, J_NUM)) {
			json_err(m, u, "a complex number needs numbers \"real\" "
			    "and \"imag\"");
			return false;
		}
		*out = arg_val(fe_complex(m, c->g, re->f, im->f, u->loc));
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
			json_err(m, u, "bad device");
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
		return pt2_arg(c, u, out, depth + 1);
	} else if (!strcmp(k, "as_graph")) {
		GraphId sub;
		const JVal *nm = json_get(u, "name");
		if (!json_is(nm, J_STR)) {
			json_err(m, u, "a subgraph argument needs a \"name\"");
			return false;
		}
		/* the graphs' nesting, not this argument's (which starts
		 * again at each node) */
		if (pt2_build(m, json_get(u, "graph"), nm->s, c->gid,
		    c->depth + 1, &sub) < 0)
			return false;
		*out = (Arg){.kind = A_GRAPH, .u.g = sub};
	} else if (!strcmp(k, "as_operator") && u->kind == J_STR) {
		StrId op = fe_opname_text(m, u->s, u->n);
		if (!op) {
			json_err(m, u, "bad operator name");
			return false;
		}
		*out = (Arg){.kind = A_OP, .u.s = op};
	} else if (k[0] == 'a' && k[strlen(k) - 1] == 's' &&
	    u->kind == J_ARR) {
		return listarg(c, u, k, out, depth);
	} else {
		json_err(m, v, "unsupported or malformed argument '%s'", k);
		return false;
	}
	return true;
}

/* Keyword-only arguments of ATen ops (generated by tools/gen_kwonly.py
 * from torch's schemas, sorted by op): schema 8.2 (torch 2.6) does not
 * say which arguments FX had as kwargs, and these must stay keyed. */
typedef struct KwOnly {
	const char *op, *names;  /* names: space-separated */
} KwOnly;

static const KwOnly kwonly[] = {
#define KWONLY(op, names) {op, names},
#include "pt2_kwonly.def"
#undef KWONLY
};

static int
kwcmp(const void *key, const void *elem)
{
	return strcmp(key, ((const KwOnly *)elem)->op);
}

static bool
is_kwonly(const char *op, const char *name)
{
	const KwOnly *e = bsearch(op, kwonly, sizeof kwonly /
	    sizeof kwonly[0], sizeof kwonly[0], kwcmp);
	if (!e || !*name)
		return false;
	const char *names = e->names;
	size_t n = strlen(name);
	for (const char *p = names; (p = strstr(p, name)); p += n)
		if ((p == names || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* 1 positional, 2 keyword: as written (schema >= 8.3), else from the
 * op's schema. */
int64_t
pt2_argkind(GCtx *c, StrId op, const JVal *a)
{
	const JVal *kind = json_get(a, "kind"), *an = json_get(a, "name");
	if (kind)
		return kind->isint ? kind->i : -1;
	return json_is(an, J_STR) && is_kwonly(ir_str(c->m, op), an->s) ? 2 :
	    1;
}
