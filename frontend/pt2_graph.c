/* pt2_graph.c - the JSON program of a .pt2 archive (torch/_export/serde/
 * schema.py: GraphModule, Graph, Node, Argument, GraphSignature) into the
 * IR fx_parse builds from the same program's dump: the same op names
 * (fe_opname), value names, annotations (through fe_annot, from the text
 * the dump would print), getitem outputs, subgraphs in the order the dump
 * prints them, and the signature through fe_sig_apply.
 *
 * Positional arguments (kind 1) and keyword arguments (kind 2) are FX's
 * args and kwargs, as the dump prints them; arguments left at their
 * defaults are absent in both.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2_int.h"

enum { MAXGRAPHDEPTH = 64, MAXOUTPUTS = 65536 };

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
		fe_map_set(&c->meta, s, c->nmetas);
	}
}

/* A symbolic value as the dump prints its type: "Sym(2*s0)". */
static int
symtext(GCtx *c, const JVal *v, char *buf, size_t cap)
{
	Module *m = c->m;
	const char *k;
	const JVal *u = pt2_union(v, &k);
	if (!u) {
		json_err(m, v, "expected a symbolic value");
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
		json_err(m, v, "expected as_expr with an expr_str");
		return -1;
	}
	ExprId e;
	const char *why = NULL;
	if (pt2_srepr(m, s->s, s->n, &e, &why) < 0) {
		json_err(m, s, "bad symbolic expression: %s", why);
		return -1;
	}
	size_t n = str_addf(buf, cap, 0, "Sym(");
	n = sym_add(m, e, buf, cap, n);
	n = str_addf(buf, cap, n, ")");
	return n >= cap ? (int)cap : (int)n;  /* too long: the caller says */
}

/* A TensorMeta as the dump prints its type: "f32[4, s0]". */
static int
tensortext(GCtx *c, const JVal *meta, char *buf, size_t cap)
{
	Module *m = c->m;
	const JVal *dt = json_get(meta, "dtype"), *sz = json_get(meta, "sizes");
	if (!dt || !dt->isint || !json_is(sz, J_ARR)) {
		json_err(m, meta, "tensor meta needs an integer dtype and "
		    "sizes");
		return -1;
	}
	DType t = pt2_dtype(dt->i);
	if (!t) {
		json_err(m, dt, "unknown dtype code %lld", (long long)dt->i);
		return -1;
	}
	/* appended within cap; n keeps the whole length, so a type that
	 * does not fit is reported, never written past the buffer */
	size_t n = str_addf(buf, cap, 0, "%s[", ir_dtype_name(t));
	for (uint32_t i = 0; i < sz->n && n < cap; i++) {
		const char *k;
		const JVal *u = pt2_union(&sz->kids[i], &k);
		if (i)
			n = str_addf(buf, cap, n, ", ");
		if (u && !strcmp(k, "as_int") && u->isint && u->i >= 0) {
			n = str_addf(buf, cap, n, "%lld", (long long)u->i);
			continue;
		}
		const JVal *s = u && !strcmp(k, "as_expr") ?
		    json_get(u, "expr_str") : NULL;
		ExprId e;
		const char *why = "expected as_int (>= 0) or as_expr";
		if (!json_is(s, J_STR) || pt2_srepr(m, s->s, s->n, &e, &why)) {
			json_err(m, s ? s : &sz->kids[i], "bad size: %s", why);
			return -1;
		}
		n = sym_add(m, e, buf, cap, n);
	}
	n = str_addf(buf, cap, n, "]");
	if (n >= cap) {
		json_err(m, meta, "tensor type too long (%u dims)", sz->n);
		return -1;
	}
	return (int)n;
}

/* Types a value named name from the graph's *_values tables, through the
 * dump's annotation reader so that both frontends agree. */
static int
annotate(GCtx *c, ValId v, StrId name, const JVal *at)
{
	uint32_t k = fe_map_get(&c->meta, name);
	if (!k)
		return 0;  /* untyped, like an unannotated dump value */
	const JVal *meta = c->metas[k - 1];
	char buf[4096];
	int n = (json_get(meta, "dtype") ? tensortext : symtext)(c, meta,
	    buf, sizeof buf);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof buf) {
		json_err(c->m, meta, "type of '%s' too long",
		    ir_str(c->m, name));
		return -1;
	}
	return fe_annot(c->m, c->g, v, buf, (size_t)n, at->loc);
}

/* The frame of a stack trace at f ('File "PATH", line N, in FUNC' and
 * its code line) as the dump's comment shows it, "File: PATH:N in FUNC,
 * code: CODE", appended to buf at *n (room for the trace's length + 32
 * per frame); false if f is not such a frame. */
static bool
frametext(const char *f, char *buf, size_t cap, size_t *n)
{
	const char *path = f + 6, *q = strchr(path, '"');
	if (!q || strncmp(q, "\", line ", 8))
		return false;
	const char *ln = q + 8, *in = strstr(ln, ", in ");
	if (!in)
		return false;
	const char *fn = in + 5, *eol = strchr(fn, '\n');
	if (!eol)
		return false;  /* a frame without its code line: the dump
				* prints no trace for it either */
	size_t fnl = (size_t)(eol - fn);
	const char *code = eol + 1;
	while (*code == ' ')
		code++;
	size_t cl = strcspn(code, "\n");
	while (cl && (code[cl - 1] == ' ' || code[cl - 1] == '\r'))
		cl--;
	*n = str_addf(buf, cap, *n, "%sFile: %.*s:%.*s in %.*s, code: %.*s",
	    *n ? "\n" : "", (int)(q - path), path, (int)(in - ln), ln,
	    (int)fnl, fn, (int)cl, code);
	return true;
}

/* A frame of torch's own code (nn.Module internals, functional): not the
 * line a user wrote. */
static bool
torch_frame(const char *f)
{
	const char *q = strchr(f + 6, '"');
	const char *t = strstr(f + 6, "/torch/");
	return t && q && t < q;
}

/* The innermost frame of a stack trace, as the dump's comment shows it.
 * When that frame is torch's own code, the innermost frame of the user's
 * code comes first, on a line of its own: diagnostics point at it, and
 * the metadata keeps both, outermost first as Python prints a trace. */
static StrId
tracetext(Module *m, const JVal *node)
{
	const JVal *st = json_get(json_get(node, "metadata"), "stack_trace");
	if (!json_is(st, J_STR))
		return 0;
	const char *f = NULL, *user = NULL;
	for (const char *p = st->s; (p = strstr(p, "File \"")); p++) {
		f = p;
		if (!torch_frame(p))
			user = p;
	}
	if (!f)
		return 0;
	size_t cap = (size_t)st->n + 64, n = 0;
	char *buf = xrealloc(NULL, cap);
	if (user && user != f && !frametext(user, buf, cap, &n))
		n = 0;
	StrId s = frametext(f, buf, cap, &n) && n < cap ?
	    ir_internn(m, buf, n) : 0;
	free(buf);
	return s;
}

/* The module stack of a node's nn_module_stack metadata ("key,path,Class"
 * entries joined by ';', outermost first) as Node.scope wants it: one
 * "path\tClass" line per module.  A path may hold commas (ModuleList
 * items print none, but keys do): the class is after the last comma, the
 * path between the first and the last. */
static StrId
scopetext(Module *m, const JVal *node)
{
	const JVal *ms = json_get(json_get(node, "metadata"),
	    "nn_module_stack");
	if (!json_is(ms, J_STR) || !ms->n)
		return 0;
	char *buf = xrealloc(NULL, (size_t)ms->n + 1);
	size_t n = 0;
	for (const char *e = ms->s, *end = ms->s + ms->n; e < end;) {
		const char *semi = memchr(e, ';', (size_t)(end - e));
		const char *stop = semi ? semi : end;
		const char *c1 = memchr(e, ',', (size_t)(stop - e)), *c2 = NULL;
		for (const char *p = stop; p > e; p--)
			if (p[-1] == ',') {
				c2 = p - 1;
				break;
			}
		if (c1 && c2 && c2 > c1) {
			if (n)
				buf[n++] = '\n';
			memcpy(buf + n, c1 + 1, (size_t)(c2 - c1 - 1));
			n += (size_t)(c2 - c1 - 1);
			buf[n++] = '\t';
			memcpy(buf + n, c2 + 1, (size_t)(stop - c2 - 1));
			n += (size_t)(stop - c2 - 1);
		}
		e = stop + 1;
	}
	StrId r = n ? ir_internn(m, buf, n) : 0;
	free(buf);
	return r;
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
			fe_map_set(&c->used, ir_internn(c->m, n->s, n->n), 1);
		for (uint32_t i = 0; i < v->n; i++)
			if (strcmp(v->kids[i].key, "as_graph"))
				markused(c, &v->kids[i], depth + 1);
	} else if (v->kind == J_ARR) {
		for (uint32_t i = 0; i < v->n; i++)
			markused(c, &v->kids[i], depth + 1);
	}
}

/* The output names of a node: one entry each, NULL-named ones unused.  A
 * list as the last element of a tuple ((Tensor hist, Tensor[] bin_edges)
 * of histogramdd) is flattened into it: its tensors are the outputs from
 * nest on, as the dump's parser makes them of its nested getitems. */
typedef struct Outs {
	const JVal **v;   /* n entries, freed by the caller */
	uint32_t n;
	uint32_t nest;    /* the first output of a nested list; n if none */
	bool tuple;
} Outs;

static bool
outs(GCtx *c, const JVal *node, Outs *o)
{
	const JVal *os = json_get(node, "outputs");
	o->n = 0;
	o->tuple = false;
	o->v = NULL;
	if (!json_is(os, J_ARR)) {
		json_err(c->m, node, "node without an outputs list");
		return false;
	}
	const char *k;
	const JVal *u = os->n == 1 ? pt2_union(&os->kids[0], &k) : NULL;
	const JVal *list = u && !strcmp(k, "as_tensors") &&
	    u->kind == J_ARR ? u : os;
	/* a tuple whose last element is a list of tensors */
	const JVal *nested = NULL;
	for (uint32_t i = 0; list == os && os->n > 1 && i < os->n; i++) {
		const JVal *e = pt2_union(&os->kids[i], &k);
		if (!e || strcmp(k, "as_tensors"))
			continue;
		if (i + 1 < os->n || e->kind != J_ARR) {
			json_err(c->m, &os->kids[i], "a list of tensors "
			    "inside a tuple output is supported as its last "
			    "element only");
			return false;
		}
		nested = e;
	}
	uint32_t total = list->n - (nested ? 1 : 0) + (nested ? nested->n : 0);
	if (total > MAXOUTPUTS) {
		json_err(c->m, list, "more than %d outputs", MAXOUTPUTS);
		return false;
	}
	o->v = calloc(total ? total : 1, sizeof *o->v);
	if (!o->v)
		ir_oom(0);
	o->tuple = list != os || os->n > 1;
	o->nest = nested ? os->n - 1 : total;
	for (uint32_t i = 0; i < list->n; i++) {
		const JVal *x = &list->kids[i];
		if (nested && i == o->nest)
			break;
		if (list == os)  /* an Argument; as_none outputs name nothing */
			x = pt2_union(x, &k) && strcmp(k, "as_none") ? x : NULL;
		o->v[o->n++] = x;
	}
	for (uint32_t i = 0; nested && i < nested->n; i++)
		o->v[o->n++] = &nested->kids[i];
	return true;
}

static StrId
outname(GCtx *c, const JVal *v)
{
	const char *k;
	const JVal *u = pt2_union(v, &k);
	if (!u)
		return pt2_refname(c->m, v);
	return u->kind == J_STR ? pt2_jname(c->m, u) : pt2_refname(c->m, u);
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
	if (fe_map_get(&c->used, vn))
		return true;
	const char *s = ir_str(c->m, vn), *u = strstr(s, "_unused_");
	if (i >= o->nest)  /* in a nested list: named unless unused */
		return !u;
	char tail[24];
	snprintf(tail, sizeof tail, "_unused_%u", i);
	size_t ls = strlen(s), lt = strlen(tail);
	return !u || ls < lt || strcmp(s + ls - lt, tail) != 0;
}

static int
defname(GCtx *c, ValId x, StrId name, const JVal *at)
{
	if (fe_map_get(&c->names, name)) {
		json_err(c->m, at, "duplicate definition of '%s'",
		    ir_str(c->m, name));
		return -1;
	}
	ir_val(c->g, x)->name = name;
	fe_map_set(&c->names, name, x);
	return annotate(c, x, name, at);
}

/* Schema 8.2 nodes have no name: the dump's is the output's, or for a
 * tuple-valued node the op's (cond, cond_1, ...). */
static StrId
nodename(GCtx *c, const JVal *nd, StrId op, const Outs *o)
{
	Module *m = c->m;
	StrId name = pt2_jname(m, json_get(nd, "name"));
	if (name || !op)
		return name;
	if (!o->tuple && o->n == 1 && o->v[0])
		return outname(c, o->v[0]);
	const char *s = ir_str(m, op), *b = strstr(s, "::");
	b = b ? b + 2 : s;
	size_t n = strcspn(b, ".");
	char buf[160];
	snprintf(buf, sizeof buf, "%.*s", (int)(n > 100 ? 100 : n), b);
	StrId base = name = ir_intern(m, buf);
	/* the suffixes tried before stay taken (names are never freed), so
	 * each base resumes where it stopped: linear in the nodes, where
	 * probing from 1 each time was quadratic */
	uint32_t k = fe_map_get(&c->suffix, base);
	k = k ? k : 1;
	for (; fe_map_get(&c->names, name) || fe_map_get(&c->used, name);
	    k++) {
		snprintf(buf, sizeof buf, "%.*s_%u", (int)(n > 100 ? 100 : n),
		    b, k);
		name = ir_intern(m, buf);
	}
	fe_map_set(&c->suffix, base, k);
	fe_map_set(&c->used, name, 1);  /* taken, as FX's namespace */
	return name;
}

/* A keyword argument needs a name (valid as a Python identifier would
 * be: not empty) that no earlier keyword of the node has. */
static bool
keyword_ok(GCtx *c, const JVal *a)
{
	StrId kn = pt2_jname(c->m, json_get(a, "name"));
	if (!kn) {
		json_err(c->m, a, "a keyword argument needs a non-empty name");
		return false;
	}
	/* kwseen maps a name to the last node that used it */
	if (fe_map_get(&c->kwseen, kn) == c->nnode) {
		json_err(c->m, a, "keyword argument '%s' given twice",
		    ir_str(c->m, kn));
		return false;
	}
	fe_map_set(&c->kwseen, kn, c->nnode);
	return true;
}

static int
node(GCtx *c, const JVal *nd)
{
	Module *m = c->m;
	const JVal *t = json_get(nd, "target"), *in = json_get(nd, "inputs");
	StrId op = json_is(t, J_STR) ? fe_opname_text(m, t->s, t->n) : 0;
	Outs o;
	if (!outs(c, nd, &o)) {
		free(o.v);
		return -1;
	}
	StrId name = nodename(c, nd, op, &o);
	if (!op || !json_is(in, J_ARR) || !name) {
		json_err(m, nd, "node needs a target, a name and an inputs "
		    "list");
		free(o.v);
		return -1;
	}
	c->hop = !strncmp(ir_str(m, op), "higher_order::", 14);
	c->nnode++;
	/* FX args first, then kwargs, each in the order written */
	Arg *args = xzalloc(in->n, sizeof *args);
	uint32_t na = 0;
	int rc = 0;
	for (int pass = 1; pass <= 2 && rc == 0; pass++) {
		for (uint32_t i = 0; i < in->n && rc == 0; i++) {
			const JVal *a = &in->kids[i], *an = json_get(a,
			    "name");
			int64_t kd = pt2_argkind(c, op, a);
			if (kd != 1 && kd != 2) {
				json_err(m, a, "argument kind must be 1 or 2");
				rc = -1;
			} else if (kd == pass && !pt2_arg(c, json_get(a, "arg") ?
			    json_get(a, "arg") : a, &args[na], 0)) {
				rc = -1;
			} else if (kd == pass && pass == 2 &&
			    !keyword_ok(c, a)) {
				rc = -1;
			} else if (kd == pass) {
				if (pass == 2)
					args[na] = arg_keyed(args[na],
					    pt2_jname(m, an));
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
		np->scope = scopetext(m, nd);
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
	free(o.v);
	return rc;
}

static int
inputs(GCtx *c, const JVal *ins)
{
	if (!json_is(ins, J_ARR)) {
		json_err(c->m, ins, "graph inputs must be a list");
		return -1;
	}
	for (uint32_t i = 0; i < ins->n; i++) {
		const char *k;
		const JVal *u = pt2_union(&ins->kids[i], &k);
		StrId name = u ? (u->kind == J_STR ? pt2_jname(c->m, u) :
		    pt2_refname(c->m, u)) : 0;
		if (!name) {
			json_err(c->m, &ins->kids[i], "graph input without a "
			    "name");
			return -1;
		}
		ValId v = ir_value(c->g, 0);
		if (defname(c, v, name, &ins->kids[i]) < 0)
			return -1;
		if (!fe_map_get(&c->meta, name))
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
		json_err(c->m, os, "graph outputs must be a list");
		return -1;
	}
	for (uint32_t i = 0; i < os->n; i++) {
		const char *k;
		const JVal *u = pt2_union(&os->kids[i], &k);
		if (u && !strcmp(k, "as_tensors") && u->kind == J_ARR) {
			for (uint32_t j = 0; j < u->n; j++) {
				ValId v = pt2_lookup(c, &u->kids[j],
				    pt2_refname(c->m, &u->kids[j]));
				if (!v)
					return -1;
				ir_add_output(c->g, v, OUT_USER, 0);
			}
			continue;
		}
		StrId name = u ? (u->kind == J_STR ? pt2_jname(c->m, u) :
		    pt2_refname(c->m, u)) : 0;
		ValId v = name ? pt2_lookup(c, &os->kids[i], name) : 0;
		if (!v) {
			if (!name)
				json_err(c->m, &os->kids[i], "only graph "
				    "values can be outputs");
			return -1;
		}
		ir_add_output(c->g, v, OUT_USER, 0);
	}
	return 0;
}

int
pt2_build(Module *m, const JVal *graph, const char *name, GraphId parent,
    int depth, GraphId *out)
{
	if (!json_is(graph, J_OBJ)) {
		json_err(m, graph, "expected a graph object");
		return -1;
	}
	if (depth > MAXGRAPHDEPTH) {
		json_err(m, graph, "subgraphs nested more than %d deep",
		    MAXGRAPHDEPTH);
		return -1;
	}
	GCtx c = {.m = m, .depth = depth};
	c.gid = ir_graph_new(m, name, parent);
	c.g = ir_graph(m, c.gid);
	addmeta(&c, json_get(graph, "tensor_values"));
	addmeta(&c, json_get(graph, "sym_int_values"));
	addmeta(&c, json_get(graph, "sym_bool_values"));
	addmeta(&c, json_get(graph, "sym_float_values"));
	const JVal *nodes = json_get(graph, "nodes");
	int rc = json_is(nodes, J_ARR) ? 0 : -1;
	if (rc < 0)
		json_err(m, graph, "graph without a nodes list");
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
	fe_map_free(&c.names);
	fe_map_free(&c.meta);
	fe_map_free(&c.used);
	fe_map_free(&c.suffix);
	fe_map_free(&c.kwseen);
	free(c.metas);
	*out = c.gid;
	return rc;
}

