/* test_ort.c - the .ort backend and the op-schema table: graphs built by
 * hand, encoded, and read back field by field with a small FlatBuffer
 * reader (slots as in ort.fbs). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/opschema.h"
#include "backend/ort.h"
#include "frontend/fx.h"
#include "lower/lower.h"

/* ------------------------------------------------------------- reader */

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static int64_t
rd64(const uint8_t *p)
{
	return (int64_t)(rd32(p) | (uint64_t)rd32(p + 4) << 32);
}

static const uint8_t *
deref(const uint8_t *p)
{
	return p + rd32(p);
}

static const uint8_t *
fld(const uint8_t *t, unsigned slot)
{
	const uint8_t *vt = t - (int32_t)rd32(t);
	if (4 + 2 * slot >= rd16(vt))
		return NULL;
	uint16_t o = rd16(vt + 4 + 2 * slot);
	return o ? t + o : NULL;
}

static const uint8_t *
sub(const uint8_t *t, unsigned slot)      /* table or vector field */
{
	const uint8_t *p = fld(t, slot);
	return p ? deref(p) : NULL;
}

static const char *
fstr(const uint8_t *t, unsigned slot)     /* NULL when absent */
{
	const uint8_t *s = sub(t, slot);
	return s ? (const char *)s + 4 : NULL;
}

static int64_t
fint(const uint8_t *t, unsigned slot, unsigned size)  /* 0 when absent */
{
	const uint8_t *p = fld(t, slot);
	if (!p)
		return 0;
	return size == 1 ? p[0] : size == 4 ? (int32_t)rd32(p) : rd64(p);
}

static uint32_t
vlen(const uint8_t *v)
{
	return v ? rd32(v) : 0;
}

static const uint8_t *
vtab(const uint8_t *v, uint32_t i)          /* element i: table/string */
{
	return deref(v + 4 + 4 * i);
}

static const char *
vstr(const uint8_t *v, uint32_t i)
{
	return (const char *)vtab(v, i) + 4;
}

/* the table in vector v whose string slot equals name */
static const uint8_t *
by_name(const uint8_t *v, unsigned slot, const char *name)
{
	for (uint32_t i = 0; i < vlen(v); i++) {
		const char *s = fstr(vtab(v, i), slot);
		if (s && strcmp(s, name) == 0)
			return vtab(v, i);
	}
	return NULL;
}

/* ------------------------------------------------------------ fixture */

typedef struct Fix {
	char dir[64];
	Module *m;
	char *diag;
	size_t diaglen;
	float w[6];
	float six;
	uint8_t *buf;
	size_t len;
} Fix;

static int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	strcpy(f->dir, "/tmp/test_ort_XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->m = ir_module_new();
	f->m->diagout = open_memstream(&f->diag, &f->diaglen);
	*state = f;
	return 0;
}

static int
count_files(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int
teardown(void **state)
{
	Fix *f = *state;
	fclose(f->m->diagout);
	free(f->diag);
	free(f->buf);
	ir_free(f->m);
	DIR *d = opendir(f->dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char p[512];
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", f->dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

static const char *
diag(Fix *f)
{
	fflush(f->m->diagout);
	return f->diag ? f->diag : "";
}

static StrId
S(Fix *f, const char *s)
{
	return ir_intern(f->m, s);
}

static NodeId
node(Fix *f, Graph *g, const char *op, const char *fxname, const char *out,
    DType dt, int32_t rank, const Dim *dims)
{
	NodeId n = ir_node(g, D_ONNX, S(f, op), 1);
	Node *p = ir_nodep(g, n);
	p->name = fxname ? S(f, fxname) : 0;
	Value *v = ir_val(g, p->out);
	v->name = S(f, out);
	if (dt)
		ir_set_tensor(g, p->out, dt, rank, dims);
	return n;
}

static ValId
out(Graph *g, NodeId n)
{
	return ir_nodep(g, n)->out;
}

static GraphId
new_graph(Fix *f)
{
	GraphId gid = ir_graph_new(f->m, "main_graph", 0);
	f->m->main = gid;
	return gid;
}

static ValId
input(Fix *f, Graph *g, const char *name, int32_t rank, const Dim *d)
{
	ValId x = ir_value(g, S(f, name));
	ir_set_tensor(g, x, DT_F32, rank, d);
	ir_val(g, x)->role = ROLE_USER_INPUT;
	ir_add_input(g, x);
	return x;
}

/* x: f32[s0, 3] -> MatMul(x, fc.weight) -> Clip(mm, "", six)
 *   -> Transpose(perm=[1, 0]) -> LeakyRelu(alpha=0.1) -> y: f32[2, s0]
 * plus an unused weight and a Softmax that leaves its axis out. */
static GraphId
tiny(Fix *f)
{
	Module *m = f->m;
	GraphId gid = new_graph(f);
	Graph *g = ir_graph(m, gid);
	Dim s0 = {0, ir_expr_sym(m, "s0")};
	Dim xd[2] = {s0, {3, 0}}, wd[2] = {{3, 0}, {2, 0}};
	Dim md[2] = {s0, {2, 0}}, yd[2] = {{2, 0}, s0};
	ValId x = input(f, g, "x", 2, xd);

	for (int i = 0; i < 6; i++)
		f->w[i] = (float)i - 2.5f;
	int64_t dims[2] = {3, 2};
	Tensor t = {.name = S(f, "fc.weight"), .dtype = DT_F32, .rank = 2,
	    .dims = dims, .data = f->w, .nbytes = 24};
	const char *wnames[2] = {"fc.weight", "unused"};
	ValId w[2];
	for (int i = 0; i < 2; i++) {
		w[i] = ir_value(g, S(f, wnames[i]));
		ir_set_tensor(g, w[i], DT_F32, 2, wd);
		ir_val(g, w[i])->role = ROLE_PARAM;
		ir_val(g, w[i])->init = ir_tensor(m, &t);
		ir_add_input(g, w[i]);
	}

	NodeId mm = node(f, g, "MatMul", "linear", "mm", DT_F32, 2, md);
	ir_push_arg(g, mm, arg_val(x));
	ir_push_arg(g, mm, arg_val(w[0]));

	f->six = 6.0f;
	Tensor c = {.dtype = DT_F32, .rank = 0, .data = &f->six, .nbytes = 4};
	NodeId k = node(f, g, "Constant", "clamp", "six", DT_F32, 0, NULL);
	ir_push_arg(g, k, arg_keyed((Arg){.kind = A_TENSOR,
	    .u.t = ir_tensor(m, &c)}, S(f, "value")));

	NodeId cl = node(f, g, "Clip", "clamp", "clip", DT_F32, 2, md);
	ir_push_arg(g, cl, arg_val(out(g, mm)));
	ir_push_arg(g, cl, arg_none());
	ir_push_arg(g, cl, arg_val(out(g, k)));
	ir_push_arg(g, cl, arg_none());   /* trailing: dropped */

	NodeId tr = node(f, g, "Transpose", "t", "tr", DT_F32, 2, yd);
	ir_push_arg(g, tr, arg_val(out(g, cl)));
	Arg perm[2] = {arg_int(1), arg_int(0)};
	ir_push_arg(g, tr, arg_keyed(ir_list(g, A_LIST, perm, 2),
	    S(f, "perm")));

	NodeId lr = node(f, g, "LeakyRelu", NULL, "y", DT_F32, 2, yd);
	ir_push_arg(g, lr, arg_val(out(g, tr)));
	ir_push_arg(g, lr, arg_keyed(arg_float(0.1), S(f, "alpha")));
	ir_add_output(g, out(g, lr), OUT_USER, 0);

	NodeId sm = node(f, g, "Softmax", "softmax", "sm", DT_F32, -1, NULL);
	ir_push_arg(g, sm, arg_val(out(g, mm)));
	ir_add_output(g, out(g, sm), OUT_USER, 0);
	return gid;
}

static const uint8_t *
encode(Fix *f, GraphId g, int opset)
{
	BeOptions o = {.opset = opset};
	free(f->buf);
	f->buf = NULL;
	if (ort_encode(f->m, g, &o, &f->buf, &f->len) != 0)
		fail_msg("encode failed:\n%s", diag(f));
	assert_memory_equal(f->buf + 4, "ORTM", 4);
	return deref(f->buf);
}

/* InferenceSession -> Model -> Graph */
static const uint8_t *
graph_of(const uint8_t *session)
{
	return sub(sub(session, 1), 7);
}

/* "(INPUT|OUTPUT)<index>" args of key in the resolver entry of op_id */
static void
resolver_args(const uint8_t *session, const char *op_id, const char *key,
    char *buf, size_t cap)
{
	const uint8_t *ops = sub(sub(session, 3), 0);
	const uint8_t *op = by_name(ops, 0, op_id);
	assert_non_null(op);
	const uint8_t *k = by_name(sub(op, 1), 0, key);
	assert_non_null(k);
	const uint8_t *args = sub(k, 1);
	buf[0] = 0;
	for (uint32_t i = 0; i < vlen(args); i++) {
		const uint8_t *a = vtab(args, i);
		size_t n = strlen(buf);
		snprintf(buf + n, cap - n, "%s%s%lld", i ? " " : "",
		    fint(a, 0, 1) ? "out" : "in", (long long)fint(a, 1, 4));
	}
}

/* ---------------------------------------------------------- the model */

static void
test_tiny_model(void **state)
{
	Fix *f = *state;
	const uint8_t *s = encode(f, tiny(f), 18);
	assert_string_equal(fstr(s, 0), "6");
	assert_null(fld(s, 2));                 /* deprecated session state */

	const uint8_t *model = sub(s, 1);
	assert_int_equal(fint(model, 0, 8), 8);   /* ir_version */
	const uint8_t *imports = sub(model, 1);
	assert_int_equal(vlen(imports), 1);
	assert_string_equal(fstr(vtab(imports, 0), 0), "");
	assert_int_equal(fint(vtab(imports, 0), 1, 8), 18);
	assert_string_equal(fstr(model, 2), "onnxc");

	const uint8_t *g = graph_of(s);
	/* the Constant became an initializer; the unused weight is gone */
	const uint8_t *inits = sub(g, 0);
	assert_int_equal(vlen(inits), 2);
	const uint8_t *w = by_name(inits, 0, "fc.weight");
	assert_non_null(w);
	assert_int_equal(fint(w, 3, 4), DT_F32);
	assert_int_equal(vlen(sub(w, 2)), 2);
	const uint8_t *raw = sub(w, 4);
	assert_int_equal(vlen(raw), 24);
	assert_memory_equal(raw + 4, f->w, 24);
	assert_int_equal((size_t)(raw + 4 - f->buf) % 16, 0);
	const uint8_t *six = by_name(inits, 0, "six");
	assert_non_null(six);
	assert_non_null(sub(six, 2));           /* dims: present, empty */
	assert_int_equal(vlen(sub(six, 2)), 0);
	assert_null(by_name(inits, 0, "unused"));

	/* nodes in order, indices 0.., since_version from the schema */
	const uint8_t *nodes = sub(g, 2);
	static const struct {
		const char *name, *op;
		int since;
	} want[] = {
		{"node_linear", "MatMul", 13}, {"node_clamp_1", "Clip", 13},
		{"node_t", "Transpose", 13},
		{"node_LeakyRelu", "LeakyRelu", 16},
		{"node_softmax", "Softmax", 13},
	};
	assert_int_equal(vlen(nodes), 5);
	assert_int_equal(fint(g, 3, 4), 5);     /* max_node_index */
	for (uint32_t i = 0; i < 5; i++) {
		const uint8_t *n = vtab(nodes, i);
		assert_string_equal(fstr(n, 0), want[i].name);
		assert_string_equal(fstr(n, 2), "");
		assert_int_equal(fint(n, 3, 4), want[i].since);
		assert_int_equal(fint(n, 4, 4), i);
		assert_string_equal(fstr(n, 5), want[i].op);
		assert_non_null(sub(n, 12));    /* implicit_inputs */
		assert_int_equal(vlen(sub(n, 12)), 0);
	}
	const uint8_t *clip = vtab(nodes, 1);
	const uint8_t *in = sub(clip, 8);
	assert_int_equal(vlen(in), 3);
	assert_string_equal(vstr(in, 0), "mm");
	assert_string_equal(vstr(in, 1), "");
	assert_string_equal(vstr(in, 2), "six");
	const uint8_t *cnt = sub(clip, 11);
	assert_int_equal(vlen(cnt), 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rd32(cnt + 4 + 4 * i), 1);
	/* attributes: given ones, then the schema's defaults */
	const uint8_t *tra = by_name(sub(vtab(nodes, 2), 10), 0, "perm");
	assert_int_equal(fint(tra, 2, 4), 7);   /* INTS */
	const uint8_t *ints = sub(tra, 9);
	assert_int_equal(vlen(ints), 2);
	assert_int_equal(rd64(ints + 4), 1);
	assert_int_equal(rd64(ints + 12), 0);
	const uint8_t *alpha = by_name(sub(vtab(nodes, 3), 10), 0, "alpha");
	assert_int_equal(fint(alpha, 2, 4), 1); /* FLOAT */
	float a;
	memcpy(&a, fld(alpha, 3), 4);
	assert_true(a == 0.1f);
	assert_int_equal(vlen(sub(vtab(nodes, 3), 10)), 1);
	const uint8_t *axis = by_name(sub(vtab(nodes, 4), 10), 0, "axis");
	assert_non_null(axis);
	assert_int_equal(fint(axis, 2, 4), 2);  /* INT */
	assert_int_equal(fint(axis, 4, 8), -1);

	/* every name has a ValueInfo; "" has one without a type */
	const uint8_t *args = sub(g, 1);
	static const char *names[] = {"x", "fc.weight", "mm", "six", "clip",
	    "tr", "y", "sm"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const uint8_t *v = by_name(args, 0, names[i]);
		assert_non_null(v);
		const uint8_t *ti = sub(v, 2);
		assert_int_equal(fint(ti, 1, 1), 1);        /* tensor_type */
		assert_int_equal(fint(sub(ti, 2), 0, 4), DT_F32);
	}
	assert_int_equal(vlen(args), 9);
	const uint8_t *hole = by_name(args, 0, "");
	assert_non_null(hole);
	assert_null(fld(hole, 2));
	assert_null(by_name(args, 0, "unused"));
	/* x: [s0, 3] as PARAM and VALUE; sm: no shape */
	const uint8_t *xs = sub(sub(sub(by_name(args, 0, "x"), 2), 2), 1);
	const uint8_t *dims = sub(xs, 0);
	assert_int_equal(vlen(dims), 2);
	const uint8_t *d0 = sub(vtab(dims, 0), 0), *d1 = sub(vtab(dims, 1), 0);
	assert_int_equal(fint(d0, 0, 1), 2);
	assert_string_equal(fstr(d0, 2), "s0");
	assert_int_equal(fint(d1, 0, 1), 1);
	assert_int_equal(fint(d1, 1, 8), 3);
	assert_null(fld(sub(sub(by_name(args, 0, "sm"), 2), 2), 1));

	/* edges: MatMul feeds Clip (input 0) and Softmax; Clip feeds
	 * Transpose, which feeds LeakyRelu */
	const uint8_t *edges = sub(g, 4);
	assert_int_equal(vlen(edges), 5);
	const uint8_t *e0 = vtab(edges, 0);
	assert_int_equal(fint(e0, 0, 4), 0);
	assert_int_equal(vlen(sub(e0, 1)), 0);
	const uint8_t *oe = sub(e0, 2);
	assert_int_equal(vlen(oe), 2);
	assert_int_equal(rd32(oe + 4), 1);      /* {1, 0, 0} */
	assert_int_equal(rd32(oe + 8), 0);
	assert_int_equal(rd32(oe + 12), 0);
	assert_int_equal(rd32(oe + 16), 4);     /* {4, 0, 0} */
	const uint8_t *ie = sub(vtab(edges, 1), 1);
	assert_int_equal(vlen(ie), 1);
	assert_int_equal(rd32(ie + 4), 0);
	assert_int_equal(rd32(ie + 12), 0);     /* into input 0 */

	/* graph inputs without initializers; outputs */
	assert_int_equal(vlen(sub(g, 5)), 1);
	assert_string_equal(vstr(sub(g, 5), 0), "x");
	assert_int_equal(vlen(sub(g, 6)), 2);
	assert_string_equal(vstr(sub(g, 6), 0), "y");

	/* the resolver: sorted op ids, type strings with their args */
	const uint8_t *ops = sub(sub(s, 3), 0);
	static const char *ids[] = {":Clip:13", ":LeakyRelu:16",
	    ":MatMul:13", ":Softmax:13", ":Transpose:13"};
	assert_int_equal(vlen(ops), 5);
	for (uint32_t i = 0; i < 5; i++)
		assert_string_equal(fstr(vtab(ops, i), 0), ids[i]);
	char buf[128];
	resolver_args(s, ":Clip:13", "T", buf, sizeof buf);
	assert_string_equal(buf, "in0 in1 in2 out0");
	resolver_args(s, ":MatMul:13", "T", buf, sizeof buf);
	assert_string_equal(buf, "in0 in1 out0");
}

/* Fixed-type parameters are keyed by their own name; a variadic input
 * takes the remaining inputs in input_arg_counts. */
static void
test_resolver_keys_and_counts(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	GraphId gid = new_graph(f);
	Graph *g = ir_graph(m, gid);
	Dim d[1] = {{4, 0}}, d3[1] = {{12, 0}};
	ValId x = input(f, g, "x", 1, d);
	NodeId c = node(f, g, "Concat", "cat", "c", DT_F32, 1, d3);
	for (int i = 0; i < 3; i++)
		ir_push_arg(g, c, arg_val(x));
	ir_push_arg(g, c, arg_keyed(arg_int(0), S(f, "axis")));
	NodeId sh = node(f, g, "Shape", "shape", "s", DT_I64, 1,
	    (Dim[]){{1, 0}});
	ir_push_arg(g, sh, arg_val(out(g, c)));
	NodeId r = node(f, g, "Reshape", "view", "r", DT_F32, 1, d3);
	ir_push_arg(g, r, arg_val(out(g, c)));
	ir_push_arg(g, r, arg_val(out(g, sh)));
	ir_add_output(g, out(g, r), OUT_USER, 0);

	const uint8_t *s = encode(f, gid, 21);
	const uint8_t *nodes = sub(graph_of(s), 2);
	const uint8_t *cnt = sub(vtab(nodes, 0), 11);
	assert_int_equal(vlen(cnt), 1);
	assert_int_equal(rd32(cnt + 4), 3);
	assert_int_equal(fint(vtab(nodes, 0), 3, 4), 13);
	assert_int_equal(fint(vtab(nodes, 1), 3, 4), 21);
	assert_int_equal(fint(vtab(nodes, 2), 3, 4), 21);
	/* Shape's start defaults to 0: stored as an INT without a value */
	const uint8_t *start = by_name(sub(vtab(nodes, 1), 10), 0, "start");
	assert_non_null(start);
	assert_null(fld(start, 4));
	assert_null(by_name(sub(vtab(nodes, 1), 10), 0, "end"));
	char buf[128];
	resolver_args(s, ":Concat:13", "T", buf, sizeof buf);
	assert_string_equal(buf, "in0 out0");
	resolver_args(s, ":Reshape:21", "T", buf, sizeof buf);
	assert_string_equal(buf, "in0 out0");
	resolver_args(s, ":Reshape:21", "shape", buf, sizeof buf);
	assert_string_equal(buf, "in1");
	resolver_args(s, ":Shape:21", "T1", buf, sizeof buf);
	assert_string_equal(buf, "out0");
	/* x comes from outside, so the edges into view are from cat and
	 * shape only */
	const uint8_t *edges = sub(graph_of(s), 4);
	assert_int_equal(vlen(sub(vtab(edges, 2), 1)), 2);
}

static void
test_write(void **state)
{
	Fix *f = *state;
	GraphId g = tiny(f);
	char path[128];
	snprintf(path, sizeof path, "%s/m.ort", f->dir);
	BeOptions o = {.opset = 17};
	assert_int_equal(ort_write(f->m, g, &o, path), 0);
	encode(f, g, 17);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	uint8_t *file = malloc(f->len + 1);
	size_t n = fread(file, 1, f->len + 1, fp);
	fclose(fp);
	assert_int_equal(n, f->len);
	assert_memory_equal(file, f->buf, n);
	free(file);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_mode & 0044);         /* not mkstemp's 0600 */
	assert_int_equal(count_files(f->dir), 1);

	/* a folder that does not exist: an error and nothing left */
	snprintf(path, sizeof path, "%s/no/such/m.ort", f->dir);
	assert_int_equal(ort_write(f->m, g, &o, path), -1);
	assert_non_null(strstr(diag(f), "cannot write"));
}

/* ----------------------------------------------------------- refusals */

static void
test_errors(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	uint8_t *buf;
	size_t len;
	BeOptions o = {.opset = 16};
	GraphId gid = tiny(f);
	assert_int_equal(ort_encode(m, gid, &o, &buf, &len), -1);
	assert_non_null(strstr(diag(f), "opset 16 cannot be written"));
	assert_null(buf);

	/* an op without a schema */
	Graph *g = ir_graph(m, gid);
	ir_nodep(g, 1)->op = S(f, "Frobnicate");
	o.opset = 18;
	assert_int_equal(ort_encode(m, gid, &o, &buf, &len), -1);
	assert_non_null(strstr(diag(f), "no schema for Frobnicate"));
	ir_nodep(g, 1)->op = S(f, "MatMul");

	/* an intermediate value without a type */
	ir_val(g, out(g, 3))->dtype = DT_UNDEF;
	assert_int_equal(ort_encode(m, gid, &o, &buf, &len), -1);
	assert_non_null(strstr(diag(f), "value 'clip' has no type"));
	ir_val(g, out(g, 3))->dtype = DT_F32;

	/* int4 weights: ONNX Runtime 1.30 cannot read them from .ort */
	static const uint8_t nib[3];
	int64_t n = 6;
	Tensor t = {.dtype = DT_I4, .rank = 1, .dims = &n, .data = nib,
	    .nbytes = 3};
	ir_val(g, g->inputs[1])->init = ir_tensor(m, &t);
	assert_int_equal(ort_encode(m, gid, &o, &buf, &len), -1);
	assert_non_null(strstr(diag(f), "cannot hold"));
}

static void
test_too_big(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	GraphId gid = new_graph(f);
	Graph *g = ir_graph(m, gid);
	/* 2.5 GB of weights in two tensors: refused before a byte is read */
	int64_t n = INT64_C(5) << 26;
	static const float dummy;
	Tensor t = {.dtype = DT_F32, .rank = 1, .dims = &n, .data = &dummy,
	    .nbytes = (uint64_t)n * 4};
	NodeId add = node(f, g, "Add", "add", "y", DT_F32, 1, &(Dim){n, 0});
	for (int i = 0; i < 2; i++) {
		ValId w = ir_value(g, S(f, i ? "b" : "a"));
		ir_set_tensor(g, w, DT_F32, 1, &(Dim){n, 0});
		ir_val(g, w)->init = ir_tensor(m, &t);
		ir_add_input(g, w);
		ir_push_arg(g, add, arg_val(w));
	}
	ir_add_output(g, out(g, add), OUT_USER, 0);
	char path[128];
	snprintf(path, sizeof path, "%s/big.ort", f->dir);
	BeOptions o = {.opset = 17};
	assert_int_equal(ort_write(m, gid, &o, path), -1);
	assert_non_null(strstr(diag(f), "2560 MB of weights"));
	assert_non_null(strstr(diag(f), "external data"));
	assert_int_equal(count_files(f->dir), 0);
}

/* Past ONNX Runtime's verifier limit of 1,000,000 tables the shapes of
 * intermediate values are left out; graph inputs and outputs keep them. */
static void
test_table_limit(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	GraphId gid = new_graph(f);
	Graph *g = ir_graph(m, gid);
	Dim d[3] = {{1, 0}, {2, 0}, {3, 0}};
	ValId v = input(f, g, "x", 3, d);
	/* about 12 tables per node with shapes, 6 without */
	for (int i = 0; i < 100000; i++) {
		char name[32];
		snprintf(name, sizeof name, "v%d", i);
		NodeId n = node(f, g, "Relu", "relu", name, DT_F32, 3, d);
		ir_push_arg(g, n, arg_val(v));
		v = out(g, n);
	}
	ir_add_output(g, v, OUT_USER, 0);
	const uint8_t *s = encode(f, gid, 18);
	const uint8_t *args = sub(graph_of(s), 1);
	const uint8_t *mid = by_name(args, 0, "v500");
	assert_non_null(mid);
	assert_null(fld(sub(sub(mid, 2), 2), 1));
	const uint8_t *last = by_name(args, 0, "v99999");
	assert_non_null(fld(sub(sub(last, 2), 2), 1));
}

/* ---------------------------------------------------------- schemas */

static void
test_schema_rows(void **state)
{
	(void)state;
	uint32_t n;
	const OpSchema *r = opschema_rows(&n);
	assert_true(n > 100);
	for (uint32_t i = 0; i < n; i++) {
		if (i > 0) {
			int c = strcmp(r[i - 1].op, r[i].op);
			if (c > 0 || (c == 0 && r[i - 1].since >= r[i].since))
				fail_msg("rows out of order at %s-%d", r[i].op,
				    r[i].since);
		}
		assert_true(r[i].since >= 1 &&
		    r[i].since <= OPSCHEMA_MAX_OPSET);
		/* every row parses; only the last parameter is variadic */
		OpParam p[OPSCHEMA_MAX_PARAMS];
		OpAttr a[OPSCHEMA_MAX_PARAMS];
		for (int k = 0; k < 2; k++) {
			int np = opschema_params(k ? r[i].outputs : r[i].inputs,
			    p);
			for (int j = 0; j + 1 < np; j++)
				assert_int_not_equal(p[j].opt, OPT_VARIADIC);
			for (int j = 0; j < np; j++)
				assert_true(p[j].namelen > 0 &&
				    p[j].typelen > 0);
		}
		int na = opschema_attrs(&r[i], a);
		for (int j = 1; j < na; j++)
			assert_true(strncmp(a[j - 1].name, a[j].name,
			    (size_t)a[j].namelen) != 0 ||
			    a[j - 1].namelen != a[j].namelen);
		/* rows older than opset 17 are there only if 17 uses them */
		if (r[i].since < OPSCHEMA_MIN_OPSET && i + 1 < n &&
		    strcmp(r[i].op, r[i + 1].op) == 0)
			assert_true(r[i + 1].since > OPSCHEMA_MIN_OPSET);
	}
}

static void
test_schema_find(void **state)
{
	(void)state;
	static const struct {
		const char *op;
		int opset, since;
	} cases[] = {
		{"Softmax", 17, 13}, {"Softmax", 23, 13},
		{"ReduceMean", 17, 13}, {"ReduceMean", 18, 18},
		{"ReduceMax", 19, 18}, {"ReduceMax", 20, 20},
		{"Cast", 18, 13}, {"Cast", 20, 19}, {"Cast", 23, 23},
		{"Conv", 21, 11}, {"Conv", 22, 22}, {"Pad", 20, 19},
		{"Split", 17, 13}, {"Split", 18, 18}, {"Abs", 17, 13},
		{"Where", 23, 16}, {"Identity", 22, 21},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const OpSchema *s = opschema_find("", cases[i].op,
		    cases[i].opset);
		assert_non_null(s);
		assert_string_equal(s->op, cases[i].op);
		if (s->since != cases[i].since)
			fail_msg("%s in opset %d: since %d, want %d",
			    cases[i].op, cases[i].opset, s->since,
			    cases[i].since);
	}
	assert_non_null(opschema_find("ai.onnx", "Relu", 18));
	assert_null(opschema_find("com.microsoft", "Relu", 18));
	assert_null(opschema_find("", "Frobnicate", 18));
	assert_null(opschema_find("", "Gelu", 19));   /* since 20 */
	assert_null(opschema_find("", "Zzz", 18));    /* after the last */
}

static void
test_schema_parts(void **state)
{
	(void)state;
	int32_t c[OPSCHEMA_MAX_PARAMS];
	const OpSchema *split = opschema_find("", "Split", 17);
	assert_int_equal(opschema_arg_counts(split, 1, c), 2);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 0);
	const OpSchema *cat = opschema_find("", "Concat", 17);
	assert_int_equal(opschema_arg_counts(cat, 4, c), 1);
	assert_int_equal(c[0], 4);
	const OpSchema *mm = opschema_find("", "MatMul", 17);
	assert_int_equal(opschema_arg_counts(mm, 3, c), -1);

	OpParam p[OPSCHEMA_MAX_PARAMS];
	const OpSchema *rs = opschema_find("", "Resize", 19);
	assert_int_equal(opschema_params(rs->inputs, p), 4);
	assert_true(opschema_is_constraint(&p[0]));
	assert_int_equal(p[1].opt, OPT_OPTIONAL);
	assert_false(opschema_is_constraint(&p[2]));
	assert_int_equal(p[2].namelen, 6);
	assert_memory_equal(p[2].name, "scales", 6);

	OpAttr a[OPSCHEMA_MAX_PARAMS];
	int na = opschema_attrs(rs, a);
	bool seen_mode = false, seen_coeff = false, seen_axes = false;
	for (int i = 0; i < na; i++) {
		if (a[i].namelen == 4 && !memcmp(a[i].name, "mode", 4)) {
			seen_mode = a[i].has_default &&
			    a[i].kind == OAK_STRING && a[i].slen == 7 &&
			    !memcmp(a[i].s, "nearest", 7);
		} else if (a[i].namelen == 13 &&
		    !memcmp(a[i].name, "cubic_coeff_a", 13)) {
			seen_coeff = a[i].kind == OAK_FLOAT &&
			    a[i].f == -0.75;
		} else if (a[i].namelen == 4 &&
		    !memcmp(a[i].name, "axes", 4)) {
			seen_axes = a[i].kind == OAK_INTS &&
			    !a[i].has_default;
		}
	}
	assert_true(seen_mode && seen_coeff && seen_axes);
}

/* opschema_check on a lowered graph: good nodes pass, bad ones are named */
static void
test_schema_check(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	GraphId gid = tiny(f);
	assert_int_equal(opschema_check(m, gid, 18), 0);
	assert_int_equal(m->nerrors, 0);

	Graph *g = ir_graph(m, gid);
	NodeId bad = node(f, g, "MatMul", "mm2", "mm2", DT_F32, -1, NULL);
	ir_push_arg(g, bad, arg_val(g->inputs[0]));
	ir_push_arg(g, bad, arg_keyed(arg_int(1), S(f, "transA")));
	NodeId lr = node(f, g, "LeakyRelu", "lr", "lr2", DT_F32, -1, NULL);
	ir_push_arg(g, lr, arg_val(g->inputs[0]));
	ir_push_arg(g, lr, arg_keyed(arg_int(1), S(f, "alpha")));
	assert_int_equal(opschema_check(m, gid, 18), -1);
	assert_non_null(strstr(diag(f), "MatMul-13 takes 2 to 2 inputs, "
	    "not 1"));
	assert_non_null(strstr(diag(f), "no attribute 'transA'"));
	assert_non_null(strstr(diag(f), "'alpha' of LeakyRelu-16 has the "
	    "wrong kind"));
}

/* Every op the lowering rules emit by name has a schema (read from the
 * sources, ONNXC_SRC); the e2e tests check the versions opset by opset. */
static void
test_schema_covers_lowering(void **state)
{
	(void)state;
	const char *src = getenv("ONNXC_SRC");
	if (!src)
		skip();
	char dir[512];
	snprintf(dir, sizeof dir, "%s/lower", src);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	int found = 0;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		if (nl < 3 || strcmp(de->d_name + nl - 2, ".c") != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		FILE *fp = fopen(path, "r");
		assert_non_null(fp);
		char line[1024];
		while (fgets(line, sizeof line, fp)) {
			static const char *pats[] = {"lw_emit(L, \"",
			    "lw_op1(L, \"", "lw_op2(L, \"", "lw_op2t(L, \""};
			for (size_t k = 0; k < 4; k++) {
				char *p = strstr(line, pats[k]);
				if (!p)
					continue;
				p += strlen(pats[k]);
				char op[64];
				size_t n = strcspn(p, "\"");
				if (n == 0 || n >= sizeof op)
					continue;
				memcpy(op, p, n);
				op[n] = 0;
				found++;
				/* some need a later opset than 17 and say
				 * so; every one exists in the newest */
				if (!opschema_find("", op, OPSCHEMA_MAX_OPSET))
					fail_msg("%s (%s) has no schema", op,
					    de->d_name);
			}
		}
		fclose(fp);
	}
	closedir(d);
	assert_true(found > 20);
}

/* The ONNX the lowering writes for tests/cases fits the schemas, in every
 * opset the case lowers in: the table checks the ONNX backend's input. */
static void
test_schema_checks_lowered_cases(void **state)
{
	(void)state;
	const char *src = getenv("ONNXC_SRC");
	if (!src)
		skip();
	char dir[512];
	snprintf(dir, sizeof dir, "%s/tests/cases", src);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	int checked = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s/graph.txt", dir, de->d_name);
		FILE *fp = fopen(path, "rb");
		if (!fp)
			continue;
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		char buf[4096];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
			fwrite(buf, 1, n, mem);
		fclose(fp);
		fclose(mem);
		for (int v = OPSCHEMA_MIN_OPSET; v <= OPSCHEMA_MAX_OPSET; v++) {
			Module *m = ir_module_new();
			char *diag = NULL;
			size_t dlen = 0;
			m->diagout = open_memstream(&diag, &dlen);
			m->file = path;
			m->src = text;
			m->srclen = len;
			GraphId fx, onnx;
			if (fx_parse(m, &fx) == 0 &&
			    pass_lower(m, fx, &onnx, v) == 0) {
				if (opschema_check(m, onnx, v) != 0) {
					fflush(m->diagout);
					fail_msg("%s, opset %d:\n%s", path, v,
					    diag);
				}
				checked++;
			}
			fclose(m->diagout);
			free(diag);
			ir_free(m);
		}
		free(text);
	}
	closedir(d);
	assert_true(checked > 50);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tiny_model, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_resolver_keys_and_counts,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_limit, setup,
		    teardown),
		cmocka_unit_test(test_schema_rows),
		cmocka_unit_test(test_schema_find),
		cmocka_unit_test(test_schema_parts),
		cmocka_unit_test_setup_teardown(test_schema_check, setup,
		    teardown),
		cmocka_unit_test(test_schema_covers_lowering),
		cmocka_unit_test(test_schema_checks_lowered_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
