/* test_onnx.c - the ONNX backend: models built by hand, encoded, unpacked
 * with protobuf-c and checked field by field. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <onnx.pb-c.h>

#include "backend/onnx.h"
#include "backend/pb.h"

/* protobuf-c's names are long */
#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x
#define DT(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x
#define DIM(x) ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_##x

typedef struct Fix {
	char dir[64];
	Module *m;
	char *diag;
	size_t diaglen;
	float w[6];
	float six;
} Fix;

static int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	strcpy(f->dir, "/tmp/test_onnx_XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->m = ir_module_new();
	f->m->diagout = open_memstream(&f->diag, &f->diaglen);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	Fix *f = *state;
	fclose(f->m->diagout);
	free(f->diag);
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

/* A fresh node whose single output gets a name and a type. */
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

/* A new graph, the module's main one. */
static Graph *
main_graph(Fix *f)
{
	GraphId gid = ir_graph_new(f->m, "main_graph", 0);
	f->m->main = gid;
	return ir_graph(f->m, gid);
}

/* x: f32[s0, 3] -> MatMul(x, fc.weight) -> Clip(mm, "", six)
 *   -> Transpose(perm=[1, 0]) -> LeakyRelu(alpha=0.1) -> y: f32[2, s0] */
static GraphId
tiny(Fix *f)
{
	Module *m = f->m;
	Graph *g = main_graph(f);
	Dim s0 = {0, ir_expr_sym(m, "s0")};
	Dim xd[2] = {s0, {3, 0}}, wd[2] = {{3, 0}, {2, 0}};
	Dim md[2] = {s0, {2, 0}}, yd[2] = {{2, 0}, s0};

	ValId x = ir_value(g, S(f, "x"));
	ir_set_tensor(g, x, DT_F32, 2, xd);
	ir_val(g, x)->role = ROLE_USER_INPUT;
	ir_add_input(g, x);

	for (int i = 0; i < 6; i++)
		f->w[i] = (float)i - 2.5f;
	ValId w = ir_value(g, S(f, "fc.weight"));
	ir_set_tensor(g, w, DT_F32, 2, wd);
	ir_val(g, w)->role = ROLE_PARAM;
	int64_t dims[2] = {3, 2};
	Tensor t = {.name = S(f, "fc.weight"), .dtype = DT_F32, .rank = 2,
	    .dims = dims, .data = f->w, .nbytes = 24};
	ir_val(g, w)->init = ir_tensor(m, &t);
	ir_add_input(g, w);

	NodeId mm = node(f, g, "MatMul", "linear", "mm", DT_F32, 2, md);
	ir_push_arg(g, mm, arg_val(x));
	ir_push_arg(g, mm, arg_val(w));
	ir_nodep(g, mm)->trace = S(f, "File: model.py:7 in forward\n"
	    "    return self.fc(x)");

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
	return m->main;
}

static Onnx__ModelProto *
encode(Fix *f, GraphId g, int opset, uint8_t **buf, size_t *len)
{
	BeOptions o = {.opset = opset};
	if (onnx_encode(f->m, g, &o, buf, len) != 0)
		fail_msg("encode failed:\n%s", diag(f));
	Onnx__ModelProto *p = onnx__model_proto__unpack(NULL, *len, *buf);
	assert_non_null(p);
	/* the streaming writer's bytes are canonical: protobuf-c packs the
	 * message it read back into the very same bytes */
	size_t n = onnx__model_proto__get_packed_size(p);
	uint8_t *again = malloc(n);
	assert_non_null(again);
	assert_int_equal(onnx__model_proto__pack(p, again), n);
	assert_int_equal(n, *len);
	assert_memory_equal(again, *buf, n);
	free(again);
	return p;
}

static void
check_tensor_type(Onnx__ValueInfoProto *v, const char *name, int dt,
    const char *d0, const char *d1)
{
	assert_string_equal(v->name, name);
	assert_non_null(v->type);
	assert_int_equal(v->type->value_case,
	    ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
	Onnx__TypeProto__Tensor *t = v->type->tensor_type;
	assert_true(t->has_elem_type);
	assert_int_equal(t->elem_type, dt);
	assert_non_null(t->shape);
	assert_int_equal(t->shape->n_dim, 2);
	const char *want[2] = {d0, d1};
	for (int i = 0; i < 2; i++) {
		Onnx__TensorShapeProto__Dimension *d = t->shape->dim[i];
		if (want[i][0] >= '0' && want[i][0] <= '9') {
			assert_int_equal(d->value_case,
			    DIM(DIM_VALUE));
			assert_int_equal(d->dim_value, atoll(want[i]));
		} else {
			assert_int_equal(d->value_case,
			    DIM(DIM_PARAM));
			assert_string_equal(d->dim_param, want[i]);
		}
	}
}

static const char *
meta(Onnx__StringStringEntryProto **e, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i]->key, key) == 0)
			return e[i]->value;
	return NULL;
}

/* Node names: a repeated base takes the next free "_k", also when a
 * node's own base already is "a_1"; bases past 280 bytes are cut. */
static void
test_node_names(void **state)
{
	(void)state;
	Module *m = ir_module_new();
	BeNames nm = {0};
	char buf[BE_NODE_NAME_MAX];
	const char *bases[] = {"a", "a", "a_1", "b_1", "b", "b", "a"};
	const char *want[] = {"node_a", "node_a_1", "node_a_1_1", "node_b_1",
	    "node_b", "node_b_2", "node_a_2"};
	for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
		StrId s = be_node_name(m, &nm, ir_intern(m, bases[i]));
		size_t len = 0;
		assert_string_equal(be_node_text(m, s, buf, &len), want[i]);
		assert_int_equal(len, strlen(want[i]));
	}
	char long_base[400];
	memset(long_base, 'x', sizeof long_base - 1);
	long_base[sizeof long_base - 1] = 0;
	StrId l1 = be_node_name(m, &nm, ir_intern(m, long_base));
	StrId l2 = be_node_name(m, &nm, ir_intern(m, long_base));
	assert_int_equal(strlen(be_node_text(m, l1, buf, NULL)), 5 + 280);
	size_t len = 0;
	be_node_text(m, l2, buf, &len);
	assert_int_equal(strlen(buf), 5 + 280 + 2);
	assert_int_equal(len, 5 + 280 + 2);
	assert_string_equal(buf + 5 + 280, "_1");
	be_names_free(&nm);
	ir_free(m);
}

static void
test_ir_version(void **state)
{
	(void)state;
	static const int want[][2] = {
		{17, 8}, {18, 8}, {19, 9}, {20, 9}, {21, 10}, {22, 10},
		{23, 11}, {13, 7}, {7, 3},
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		assert_int_equal(be_ir_version(want[i][0]), want[i][1]);
	assert_int_equal(be_ir_version(6), 0);
	assert_int_equal(be_ir_version(99), 0);
}

static void
test_tiny_model(void **state)
{
	Fix *f = *state;
	f->m->ranges = S(f, "{s0: VR[2, 1024]}");
	GraphId g = tiny(f);
	uint8_t *buf;
	size_t len;
	Onnx__ModelProto *p = encode(f, g, 18, &buf, &len);
	assert_int_equal(f->m->nerrors, 0);

	assert_true(p->has_ir_version);
	assert_int_equal(p->ir_version, 8);
	assert_string_equal(p->producer_name, "onnxc");
	assert_string_equal(p->producer_version, ONNXC_VERSION_STRING);
	assert_int_equal(p->n_opset_import, 1);
	assert_string_equal(p->opset_import[0]->domain, "");
	assert_int_equal(p->opset_import[0]->version, 18);
	Onnx__GraphProto *gp = p->graph;
	assert_int_equal(p->n_metadata_props, 0);
	assert_string_equal(meta(gp->metadata_props, gp->n_metadata_props,
	    "pkg.torch.export.ExportedProgram.range_constraints"),
	    "{s0: VR[2, 1024]}");
	assert_string_equal(gp->name, "main_graph");
	/* the weight is an initializer, not an input */
	assert_int_equal(gp->n_input, 1);
	check_tensor_type(gp->input[0], "x", DT(FLOAT),
	    "s0", "3");
	assert_int_equal(gp->n_initializer, 1);
	Onnx__TensorProto *w = gp->initializer[0];
	assert_string_equal(w->name, "fc.weight");
	assert_int_equal(w->data_type, DT(FLOAT));
	assert_int_equal(w->n_dims, 2);
	assert_int_equal(w->dims[0], 3);
	assert_int_equal(w->dims[1], 2);
	assert_true(w->has_raw_data);
	assert_int_equal(w->raw_data.len, 24);
	assert_memory_equal(w->raw_data.data, f->w, 24);
	assert_int_equal(w->n_float_data, 0);

	assert_int_equal(gp->n_output, 1);
	check_tensor_type(gp->output[0], "y", DT(FLOAT),
	    "2", "s0");

	assert_int_equal(gp->n_node, 5);
	Onnx__NodeProto *n = gp->node[0];
	assert_string_equal(n->op_type, "MatMul");
	assert_null(n->domain);
	assert_string_equal(n->name, "node_linear");
	assert_int_equal(n->n_input, 2);
	assert_string_equal(n->input[0], "x");
	assert_string_equal(n->input[1], "fc.weight");
	assert_int_equal(n->n_output, 1);
	assert_string_equal(n->output[0], "mm");
	assert_string_equal(meta(n->metadata_props, n->n_metadata_props,
	    "pkg.torch.onnx.stack_trace"), "File: model.py:7 in forward\n"
	    "    return self.fc(x)");
	assert_string_equal(meta(n->metadata_props, n->n_metadata_props,
	    "namespace"), "linear: MatMul");

	n = gp->node[1];
	assert_string_equal(n->op_type, "Constant");
	assert_string_equal(n->name, "node_clamp");
	assert_int_equal(n->n_input, 0);
	assert_int_equal(n->n_attribute, 1);
	assert_string_equal(n->attribute[0]->name, "value");
	assert_int_equal(n->attribute[0]->type,
	    AT(TENSOR));
	Onnx__TensorProto *c = n->attribute[0]->t;
	assert_non_null(c);
	assert_int_equal(c->n_dims, 0);
	assert_int_equal(c->data_type, DT(FLOAT));
	assert_int_equal(c->raw_data.len, 4);
	assert_memory_equal(c->raw_data.data, &f->six, 4);

	/* same FX node twice: the second name gets a suffix */
	n = gp->node[2];
	assert_string_equal(n->op_type, "Clip");
	assert_string_equal(n->name, "node_clamp_1");
	assert_int_equal(n->n_input, 3);
	assert_string_equal(n->input[0], "mm");
	assert_string_equal(n->input[1], "");
	assert_string_equal(n->input[2], "six");
	assert_string_equal(n->output[0], "clip");

	n = gp->node[3];
	assert_string_equal(n->op_type, "Transpose");
	assert_int_equal(n->n_attribute, 1);
	assert_string_equal(n->attribute[0]->name, "perm");
	assert_int_equal(n->attribute[0]->type,
	    AT(INTS));
	assert_int_equal(n->attribute[0]->n_ints, 2);
	assert_int_equal(n->attribute[0]->ints[0], 1);
	assert_int_equal(n->attribute[0]->ints[1], 0);

	n = gp->node[4];
	assert_string_equal(n->op_type, "LeakyRelu");
	assert_string_equal(n->name, "node_LeakyRelu");
	assert_int_equal(n->n_metadata_props, 0);
	assert_int_equal(n->attribute[0]->type,
	    AT(FLOAT));
	assert_true(n->attribute[0]->has_f);
	assert_true(n->attribute[0]->f == 0.1f);

	/* intermediate values carry their types; outputs are not repeated */
	assert_int_equal(gp->n_value_info, 4);
	check_tensor_type(gp->value_info[0], "mm",
	    DT(FLOAT), "s0", "2");
	for (size_t i = 0; i < gp->n_value_info; i++)
		assert_string_not_equal(gp->value_info[i]->name, "y");

	onnx__model_proto__free_unpacked(p, NULL);
	free(buf);
}

/* Value types are encoded once per recent shape: many shapes in turn (more
 * than the cache holds), scalars, unknown ranks and dtypes that differ
 * with the same dims all come out as each value's own type. */
static void
test_value_types(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	Graph *g = main_graph(f);
	Dim xd[1] = {{4, 0}};
	ValId x = ir_value(g, S(f, "x"));
	ir_set_tensor(g, x, DT_F32, 1, xd);
	ir_val(g, x)->role = ROLE_USER_INPUT;
	ir_add_input(g, x);
	enum { N = 300 };
	ValId prev = x;
	for (int i = 0; i < N; i++) {
		char name[16];
		snprintf(name, sizeof name, "v%d", i);
		/* pairs of one shape (so one run of dims), two dtypes */
		int k = i / 2;
		Dim d[2] = {{k % 97 + 1, 0}, {k % 5 == 0 ? 0 : 3,
		    k % 5 == 0 ? ir_expr_sym(m, "s0") : 0}};
		int32_t rank = k % 7 == 0 ? -1 : k % 11 == 0 ? 0 : 2;
		DType dt = i % 2 ? DT_F32 : DT_I64;
		NodeId n = node(f, g, "Identity", NULL, name, dt, rank, d);
		ir_push_arg(g, n, arg_val(prev));
		prev = out(g, n);
	}
	NodeId last = node(f, g, "Identity", NULL, "y", DT_F32, 1, xd);
	ir_push_arg(g, last, arg_val(prev));
	ir_add_output(g, out(g, last), OUT_USER, 0);
	uint8_t *buf;
	size_t len;
	Onnx__ModelProto *p = encode(f, m->main, 18, &buf, &len);
	Onnx__GraphProto *gp = p->graph;
	assert_int_equal(gp->n_value_info, N);
	for (int i = 0; i < N; i++) {
		Onnx__ValueInfoProto *v = gp->value_info[i];
		char name[16];
		snprintf(name, sizeof name, "v%d", i);
		assert_string_equal(v->name, name);
		Onnx__TypeProto__Tensor *t = v->type->tensor_type;
		assert_int_equal(t->elem_type, i % 2 ? DT(FLOAT) : DT(INT64));
		int k = i / 2;
		int32_t rank = k % 7 == 0 ? -1 : k % 11 == 0 ? 0 : 2;
		if (rank < 0) {
			assert_null(t->shape);
			continue;
		}
		assert_non_null(t->shape);
		assert_int_equal(t->shape->n_dim, (size_t)rank);
		if (rank == 0)
			continue;
		assert_int_equal(t->shape->dim[0]->dim_value, k % 97 + 1);
		if (k % 5 == 0)
			assert_string_equal(t->shape->dim[1]->dim_param, "s0");
		else
			assert_int_equal(t->shape->dim[1]->dim_value, 3);
	}
	onnx__model_proto__free_unpacked(p, NULL);
	free(buf);
}

static void
test_namespace_from_fx(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	/* an FX graph whose node "linear" the ONNX nodes came from */
	GraphId fx = ir_graph_new(m, "fx", 0);
	Graph *fg = ir_graph(m, fx);
	NodeId fn = ir_node(fg, D_FX, S(f, "aten::linear.default"), 1);
	ir_nodep(fg, fn)->name = S(f, "linear");
	GraphId g = tiny(f);
	uint8_t *buf;
	size_t len;
	Onnx__ModelProto *p = encode(f, g, 17, &buf, &len);
	Onnx__NodeProto *n = p->graph->node[0];
	assert_string_equal(meta(n->metadata_props, n->n_metadata_props,
	    "namespace"), "linear: aten.linear.default");
	onnx__model_proto__free_unpacked(p, NULL);
	free(buf);
}

static void
test_attribute_kinds(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	Graph *g = main_graph(f);
	ValId x = ir_value(g, S(f, "x"));
	ir_set_tensor(g, x, DT_BOOL, 0, NULL);
	ir_add_input(g, x);
	/* a bool and an int4 initializer: one byte per bool, two int4 per
	 * byte */
	uint8_t bools[3] = {1, 0, 1}, nib[2] = {0x21, 0x03};
	int64_t three = 3;
	Tensor tb = {.dtype = DT_BOOL, .rank = 1, .dims = &three,
	    .data = bools, .nbytes = 3};
	Tensor t4 = {.dtype = DT_I4, .rank = 1, .dims = &three, .data = nib,
	    .nbytes = 2};
	ValId b = ir_value(g, S(f, "bools"));
	ir_val(g, b)->init = ir_tensor(m, &tb);
	ir_add_input(g, b);
	ValId q = ir_value(g, S(f, "nibbles"));
	ir_val(g, q)->init = ir_tensor(m, &t4);
	ir_add_input(g, q);

	/* then-branch subgraph: Identity of the outer x */
	GraphId sub = ir_graph_new(m, "then_branch", m->main);
	Graph *sg = ir_graph(m, sub);
	g = ir_graph(m, m->main);
	NodeId si = ir_node(sg, D_ONNX, S(f, "Identity"), 1);
	ir_val(sg, ir_nodep(sg, si)->out)->name = S(f, "inner");
	ir_set_tensor(sg, ir_nodep(sg, si)->out, DT_BOOL, 0, NULL);
	ValId outer = ir_value(sg, S(f, "x"));   /* outer-scope reference */
	ir_push_arg(sg, si, arg_val(outer));
	ir_add_output(sg, ir_nodep(sg, si)->out, OUT_USER, 0);

	NodeId n = ir_node(g, D_ONNX, S(f, "Foo"), 2);
	ir_nodep(g, n)->domain = S(f, "com.example");
	ir_val(g, ir_nodep(g, n)->out)->name = S(f, "o1");
	/* o2 left unnamed: the backend names it */
	ir_push_arg(g, n, arg_val(x));
	ir_push_arg(g, n, arg_val(b));
	ir_push_arg(g, n, arg_val(q));
	ir_push_arg(g, n, arg_keyed(arg_int(-7), S(f, "i")));
	ir_push_arg(g, n, arg_keyed(arg_bool(true), S(f, "b")));
	ir_push_arg(g, n, arg_keyed((Arg){.kind = A_DTYPE, .u.i = DT_F16},
	    S(f, "to")));
	ir_push_arg(g, n, arg_keyed(arg_str(S(f, "tanh")), S(f, "s")));
	Arg fl[2] = {arg_float(0.5), arg_int(2)};
	ir_push_arg(g, n, arg_keyed(ir_list(g, A_LIST, fl, 2), S(f, "fs")));
	ir_push_arg(g, n, arg_keyed(ir_list(g, A_LIST, NULL, 0),
	    S(f, "empty")));
	Arg ss[2] = {arg_str(S(f, "a")), arg_str(S(f, "bc"))};
	ir_push_arg(g, n, arg_keyed(ir_list(g, A_LIST, ss, 2), S(f, "ss")));
	ir_push_arg(g, n, arg_keyed((Arg){.kind = A_GRAPH, .u.g = sub},
	    S(f, "then_branch")));
	ir_set_tensor(g, ir_nodep(g, n)->out, DT_BOOL, 0, NULL);
	ir_add_output(g, ir_nodep(g, n)->out, OUT_USER, 0);

	NodeId n2 = ir_node(g, D_ONNX, S(f, "Bar"), 1);
	ir_nodep(g, n2)->domain = S(f, "com.microsoft");
	ir_val(g, ir_nodep(g, n2)->out)->name = S(f, "o3");
	ir_set_tensor(g, ir_nodep(g, n2)->out, DT_F32, -1, NULL);
	ir_push_arg(g, n2, arg_none());
	ir_push_arg(g, n2, arg_none());
	ir_add_output(g, ir_nodep(g, n2)->out, OUT_USER, 0);

	uint8_t *buf;
	size_t len;
	Onnx__ModelProto *p = encode(f, m->main, 23, &buf, &len);
	assert_int_equal(p->ir_version, 11);
	assert_int_equal(p->n_opset_import, 3);
	assert_string_equal(p->opset_import[0]->domain, "");
	assert_int_equal(p->opset_import[0]->version, 23);
	assert_string_equal(p->opset_import[1]->domain, "com.example");
	assert_int_equal(p->opset_import[1]->version, 1);
	assert_string_equal(p->opset_import[2]->domain, "com.microsoft");

	Onnx__GraphProto *gp = p->graph;
	assert_int_equal(gp->n_initializer, 2);
	assert_int_equal(gp->initializer[0]->data_type,
	    DT(BOOL));
	assert_int_equal(gp->initializer[0]->raw_data.len, 3);
	assert_memory_equal(gp->initializer[0]->raw_data.data, bools, 3);
	assert_int_equal(gp->initializer[1]->data_type,
	    DT(INT4));
	assert_int_equal(gp->initializer[1]->raw_data.len, 2);
	assert_int_equal(gp->initializer[1]->dims[0], 3);
	/* a 0-d input has a shape with no dims */
	assert_non_null(gp->input[0]->type->tensor_type->shape);
	assert_int_equal(gp->input[0]->type->tensor_type->shape->n_dim, 0);

	Onnx__NodeProto *np = gp->node[0];
	assert_string_equal(np->domain, "com.example");
	assert_string_equal(np->name, "node_Foo");
	assert_int_equal(np->n_output, 2);
	assert_string_equal(np->output[0], "o1");
	assert_string_equal(np->output[1], "_v5");
	assert_int_equal(np->n_attribute, 8);
	Onnx__AttributeProto **a = np->attribute;
	assert_string_equal(a[0]->name, "i");
	assert_int_equal(a[0]->type, AT(INT));
	assert_int_equal(a[0]->i, -7);
	assert_int_equal(a[1]->i, 1);
	assert_int_equal(a[2]->i, DT(FLOAT16));
	assert_int_equal(a[3]->type,
	    AT(STRING));
	assert_int_equal(a[3]->s.len, 4);
	assert_memory_equal(a[3]->s.data, "tanh", 4);
	assert_int_equal(a[4]->type,
	    AT(FLOATS));
	assert_int_equal(a[4]->n_floats, 2);
	assert_true(a[4]->floats[0] == 0.5f && a[4]->floats[1] == 2.0f);
	assert_int_equal(a[5]->type, AT(INTS));
	assert_int_equal(a[5]->n_ints, 0);
	assert_int_equal(a[6]->type,
	    AT(STRINGS));
	assert_int_equal(a[6]->n_strings, 2);
	assert_memory_equal(a[6]->strings[1].data, "bc", 2);
	assert_int_equal(a[7]->type, AT(GRAPH));
	Onnx__GraphProto *sgp = a[7]->g;
	assert_string_equal(sgp->name, "then_branch");
	assert_int_equal(sgp->n_input, 0);
	assert_int_equal(sgp->n_node, 1);
	assert_string_equal(sgp->node[0]->input[0], "x");
	assert_string_equal(sgp->output[0]->name, "inner");

	/* all-missing inputs: nothing left */
	assert_int_equal(gp->node[1]->n_input, 0);
	/* unknown rank: a type without a shape */
	Onnx__ValueInfoProto *o3 = gp->output[1];
	assert_string_equal(o3->name, "o3");
	assert_null(o3->type->tensor_type->shape);
	onnx__model_proto__free_unpacked(p, NULL);
	free(buf);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	char *p = malloc((size_t)n + 1);
	*len = fread(p, 1, (size_t)n, fp);
	fclose(fp);
	return p;
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

static void
test_write(void **state)
{
	Fix *f = *state;
	GraphId g = tiny(f);
	BeOptions o = {.opset = 17};
	uint8_t *buf;
	size_t len;
	assert_int_equal(onnx_encode(f->m, g, &o, &buf, &len), 0);
	char path[128];
	snprintf(path, sizeof path, "%s/model.onnx", f->dir);
	/* twice: the second replaces the first */
	assert_int_equal(onnx_write(f->m, g, &o, path), 0);
	assert_int_equal(onnx_write(f->m, g, &o, path), 0);
	assert_int_equal(f->m->nerrors, 0);
	size_t flen;
	char *file = slurp(path, &flen);
	assert_non_null(file);
	assert_int_equal(flen, len);
	assert_memory_equal(file, buf, len);
	assert_int_equal(count_files(f->dir), 1);   /* no temporary left */
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_mode & S_IRUSR);
	free(file);

	/* python's onnx checker, if there is one (ONNX 1.12 knows opset 17) */
	const char *py[] = {"python3", "/usr/bin/python3"};
	char cmd[512];
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof cmd, "%s -c 'import onnx' >/dev/null 2>&1",
		    py[i]);
		if (system(cmd) != 0)
			continue;
		snprintf(cmd, sizeof cmd, "%s -c \"import onnx; "
		    "onnx.checker.check_model(onnx.load('%s'), "
		    "full_check=True)\"", py[i], path);
		assert_int_equal(system(cmd), 0);
		break;
	}
	free(buf);
}

static void
test_write_fails(void **state)
{
	Fix *f = *state;
	GraphId g = tiny(f);
	BeOptions o = {.opset = 17};
	char path[160];
	snprintf(path, sizeof path, "%s/no/such/dir/model.onnx", f->dir);
	assert_int_equal(onnx_write(f->m, g, &o, path), -1);
	assert_int_equal(f->m->nerrors, 1);
	char want[200];
	snprintf(want, sizeof want, "cannot write %s: No such file", path);
	if (!strstr(diag(f), want))
		fail_msg("no '%s' in:\n%s", want, diag(f));
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(count_files(f->dir), 0);
}

/* A write that fails half-way (the file size limit stands in for a full
 * disk) leaves nothing behind and says why. */
static void
test_write_error(void **state)
{
	Fix *f = *state;
	GraphId g = tiny(f);
	BeOptions o = {.opset = 17};
	char path[128];
	snprintf(path, sizeof path, "%s/model.onnx", f->dir);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit rl = {100, 100};
		setrlimit(RLIMIT_FSIZE, &rl);
		int r = onnx_write(f->m, g, &o, path);
		_exit(r == -1 && strstr(diag(f), "File too large") ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(count_files(f->dir), 0);
}

static void
test_errors(void **state)
{
	Fix *f = *state;
	GraphId g = tiny(f);
	uint8_t *buf = (uint8_t *)"x";
	size_t len = 1;
	BeOptions bad = {.opset = 5};
	assert_int_equal(onnx_encode(f->m, g, &bad, &buf, &len), -1);
	assert_null(buf);
	assert_non_null(strstr(diag(f), "opset 5 is not supported"));

	/* the same value output twice */
	Graph *gp = ir_graph(f->m, g);
	ir_add_output(gp, gp->outputs[0], OUT_USER, 0);
	BeOptions o = {.opset = 17};
	assert_int_equal(onnx_encode(f->m, g, &o, &buf, &len), -1);
	assert_non_null(strstr(diag(f), "internal error in the ONNX backend: "
	    "'y' is output twice"));
	gp->noutputs--;

	/* an FX node left in the graph */
	NodeId n = ir_node(gp, D_FX, S(f, "aten::relu.default"), 1);
	ir_nodep(gp, n)->name = S(f, "relu");
	ir_val(gp, ir_nodep(gp, n)->out)->name = S(f, "relu");
	assert_int_equal(onnx_encode(f->m, g, &o, &buf, &len), -1);
	assert_non_null(strstr(diag(f), "node 'relu' (aten::relu.default) was "
	    "not lowered"));
	gp->nnodes--;

	/* two values of one name */
	ir_val(gp, ir_nodep(gp, 3)->out)->name = S(f, "mm");
	assert_int_equal(onnx_encode(f->m, g, &o, &buf, &len), -1);
	assert_non_null(strstr(diag(f), "defines 'mm' twice"));
}

static void
test_too_big(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	Graph *g = main_graph(f);
	/* 3 GB of weights and --no-external-data: refused before a byte is
	 * read, and nothing is left behind */
	int64_t n = INT64_C(3) << 28;
	float dummy = 0;
	Tensor t = {.dtype = DT_F32, .rank = 1, .dims = &n, .data = &dummy,
	    .nbytes = (uint64_t)n * 4};
	ValId w = ir_value(g, S(f, "big"));
	ir_set_tensor(g, w, DT_F32, 1, &(Dim){n, 0});
	ir_val(g, w)->init = ir_tensor(m, &t);
	ir_add_input(g, w);
	NodeId id = node(f, g, "Identity", "id", "y", DT_F32, 1, &(Dim){n, 0});
	ir_push_arg(g, id, arg_val(w));
	ir_add_output(g, out(g, id), OUT_USER, 0);
	char path[128];
	snprintf(path, sizeof path, "%s/big.onnx", f->dir);
	BeOptions o = {.opset = 17, .external = BE_EXT_NEVER};
	assert_int_equal(onnx_write(m, m->main, &o, path), -1);
	assert_non_null(strstr(diag(f), "over the 2 GB limit of a single "
	    "ONNX file, and --no-external-data forbids"));
	assert_int_equal(count_files(f->dir), 0);
}

/* Metadata entries of every size the writer treats apart: lengths whose
 * varints take one, two and three bytes, entries over a quarter of its
 * buffer, and enough of them that some cross its end.  The bytes are
 * canonical (encode repacks them) and each value reads back. */
static void
test_long_entries(void **state)
{
	Fix *f = *state;
	GraphId gid = tiny(f);
	Graph *g = ir_graph(f->m, gid);
	static const size_t len[] = {0, 1, 127, 128, 16383, 16384, 20000,
		70000};
	enum { NLEN = sizeof len / sizeof *len };
	char *text[NLEN];
	for (int i = 0; i < NLEN; i++) {
		text[i] = malloc(len[i] + 1);
		assert_non_null(text[i]);
		for (size_t j = 0; j < len[i]; j++)
			text[i][j] = (char)('a' + (i + j) % 26);
		text[i][len[i]] = 0;
	}
	/* a Relu of the output per length, twice over */
	for (int k = 0; k < 2 * NLEN; k++) {
		char nm[16];
		snprintf(nm, sizeof nm, "r%d", k);
		NodeId n = node(f, g, "Relu", "r", nm, DT_F32, 0, NULL);
		ir_push_arg(g, n, arg_val(g->outputs[0]));
		ir_nodep(g, n)->trace = S(f, text[k % NLEN]);
	}
	uint8_t *buf;
	size_t blen;
	Onnx__ModelProto *p = encode(f, gid, 17, &buf, &blen);
	Onnx__GraphProto *gp = p->graph;
	for (int k = 0; k < 2 * NLEN; k++) {
		Onnx__NodeProto *n = gp->node[5 + k];
		const char *got = meta(n->metadata_props, n->n_metadata_props,
		    "pkg.torch.onnx.stack_trace");
		assert_non_null(got);
		assert_string_equal(got, text[k % NLEN]);
	}
	onnx__model_proto__free_unpacked(p, NULL);
	free(buf);
	for (int i = 0; i < NLEN; i++)
		free(text[i]);
}

/* Submessages whose lengths take 1, 2 and 3 bytes, at the top and one
 * level down, with fields of every kind around them. */
static void
emit_nested(Pb *w, const uint8_t *text)
{
	static const size_t top[] = {0, 5, 125, 126, 127, 128, 200, 16381,
		16382, 16383, 16384, 70000};
	static const size_t in[] = {0, 126, 127, 128, 300, 20000};
	for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
		pb_varint(w, 1, i);
		pb_open(w, 2);
		pb_bytes(w, 1, text, top[i]);
		for (size_t j = 0; j < sizeof in / sizeof *in; j++) {
			pb_open(w, 3);
			pb_bytes_any(w, 1, text, in[j]);
			pb_fixed32(w, 2, (uint32_t)j);
			pb_close(w);
		}
		pb_open(w, 4);   /* empty */
		pb_close(w);
		pb_entry(w, 5, "key", 3, text, top[i] % 300);
		pb_raw(w, text, top[i] % 20000);
		pb_close(w);
	}
}

/* One run that puts each length in as its submessage closes gives the
 * bytes of a sizing and a writing run, whatever the buffer it starts
 * with (none, or one that must grow as a submessage moves). */
static void
test_grow_run(void **state)
{
	(void)state;
	uint8_t *text = malloc(70000);
	assert_non_null(text);
	for (size_t i = 0; i < 70000; i++)
		text[i] = (uint8_t)(i * 31 + i / 7);
	Pb w = {0};
	pb_size(&w);
	emit_nested(&w, text);
	size_t n = (size_t)w.pos;
	uint8_t *want = malloc(n);
	assert_non_null(want);
	pb_write(&w, NULL, want);
	emit_nested(&w, text);
	assert_int_equal(pb_flush(&w), 0);
	assert_int_equal(w.pos, n);
	for (int start = 0; start < 3; start++) {
		size_t cap = start == 0 ? 0 : start == 1 ? 16 : n + 100;
		uint8_t *buf = cap ? malloc(cap) : NULL;
		pb_write_grow(&w, &buf, &cap);
		emit_nested(&w, text);
		assert_int_equal(pb_flush(&w), 0);
		assert_int_equal(w.pos, n);
		assert_true(cap >= n);
		assert_memory_equal(buf, want, n);
		free(buf);
	}
	pb_free(&w);
	free(want);
	free(text);
}

/* A long chain, written with its nodes on two threads (pbsplit.h): the
 * bytes are those of one thread, with the helper running, with its
 * chunks made on the calling thread, into memory and into a file (chunks
 * of more than the writer's 64 KiB buffer), and where the graph cannot
 * be split (a value without a name). */
static void
test_split_nodes(void **state)
{
	Fix *f = *state;
	Module *m = f->m;
	Graph *g = main_graph(f);
	Dim d[2] = {{2, 0}, {3, 0}};
	ValId x = ir_value(g, S(f, "x"));
	ir_set_tensor(g, x, DT_F32, 2, d);
	ir_val(g, x)->role = ROLE_USER_INPUT;
	ir_add_input(g, x);
	char trace[700];
	memset(trace, 'a', sizeof trace - 1);
	trace[sizeof trace - 1] = 0;
	ValId prev = x;
	enum { N = 3000 };
	for (int i = 0; i < N; i++) {
		char nm[32], fx[32];
		snprintf(nm, sizeof nm, "v%d", i);
		snprintf(fx, sizeof fx, "fx_%d", i % 97);
		NodeId n;
		if (i % 500 == 250) {   /* a tensor attribute: not helpable */
			Tensor c = {.dtype = DT_F32, .rank = 0, .data = &f->six,
			    .nbytes = 4};
			n = node(f, g, "Constant", fx, nm, DT_F32, 0, NULL);
			ir_push_arg(g, n, arg_keyed((Arg){.kind = A_TENSOR,
			    .u.t = ir_tensor(m, &c)}, S(f, "value")));
			continue;
		}
		n = node(f, g, i % 7 ? "Relu" : "LeakyRelu", fx, nm, DT_F32, 2,
		    d);
		ir_push_arg(g, n, arg_val(prev));
		if (i % 7 == 0)
			ir_push_arg(g, n, arg_keyed(arg_float(0.5 + i),
			    S(f, "alpha")));
		if (i % 3 == 0)
			ir_nodep(g, n)->trace = S(f, trace + i % 600);
		prev = out(g, n);
	}
	ir_add_output(g, prev, OUT_USER, 0);

	BeOptions one = {.opset = 17, .split_nodes = UINT32_MAX};
	uint8_t *want, *buf;
	size_t wlen, len;
	assert_int_equal(onnx_encode(m, m->main, &one, &want, &wlen), 0);
	Onnx__ModelProto *p = onnx__model_proto__unpack(NULL, wlen, want);
	assert_non_null(p);
	assert_int_equal(p->graph->n_node, N);
	onnx__model_proto__free_unpacked(p, NULL);
	/* into a file the chunks are also streamed (sized as written, the
	 * graph's length patched in): width 0 guesses the length's bytes
	 * (3 here), a wrong width falls back to the two walks, -1 does not
	 * stream; the bytes are the same every way */
	static const struct {
		int width;
		bool streams;
	} ways[] = {{0, true}, {5, false}, {2, false}, {-1, false}};
	for (int k = 0; k < 8; k++) {
		unsigned streamed = 0;
		BeOptions o = {.opset = 17, .split_nodes = 100,
			.threads = k % 2, .stream_width = ways[k / 2].width,
			.streamed = &streamed};
		if (k < 2) {
			assert_int_equal(onnx_encode(m, m->main, &o, &buf,
			    &len), 0);
			assert_int_equal(len, wlen);
			assert_memory_equal(buf, want, wlen);
			free(buf);
		}
		char path[128];
		snprintf(path, sizeof path, "%s/split.onnx", f->dir);
		assert_int_equal(onnx_write(m, m->main, &o, path), 0);
		assert_int_equal(streamed, ways[k / 2].streams);
		char *file = slurp(path, &len);
		assert_non_null(file);
		assert_int_equal(len, wlen);
		assert_memory_equal(file, want, wlen);
		free(file);
	}
	free(want);

	/* a value without a name is named as the model is written: the
	 * nodes stay on one thread, and the bytes are still the same */
	ir_val(g, ir_nodep(g, 1234)->out)->name = 0;
	assert_int_equal(onnx_encode(m, m->main, &one, &want, &wlen), 0);
	BeOptions o = {.opset = 17, .split_nodes = 100};
	assert_int_equal(onnx_encode(m, m->main, &o, &buf, &len), 0);
	assert_int_equal(len, wlen);
	assert_memory_equal(buf, want, wlen);
	assert_non_null(memmem(buf, len, "_v", 2));
	free(buf);
	free(want);
	assert_int_equal(m->nerrors, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ir_version),
		cmocka_unit_test(test_node_names),
		cmocka_unit_test_setup_teardown(test_value_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_entries, setup,
		    teardown),
		cmocka_unit_test(test_grow_run),
		cmocka_unit_test_setup_teardown(test_tiny_model, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_namespace_from_fx, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_attribute_kinds, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_fails, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_write_error, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_big, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
