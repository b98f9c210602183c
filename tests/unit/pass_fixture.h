/* pass_fixture.h - building small graphs of either dialect and running
 * the built-in pass modules (<build>/plugins/<name>.so, next to onnxc) on
 * them with the real pass manager: shared by the pass tests.  Include
 * after <cmocka.h>. */
#ifndef PASS_FIXTURE_H
#define PASS_FIXTURE_H

typedef struct Fix {
	Module *m;
	PlRegistry *reg;
	GraphId gid;
	Graph *g;
	char *diag;
	size_t diaglen;
} Fix;

static char plugdir[4096];

/* The modules sit in <dir of onnxc>/plugins; ONNXC_PLUGIN_DIR overrides. */
static inline int
find_plugins(void)
{
	const char *d = getenv("ONNXC_PLUGIN_DIR"), *bin = getenv("ONNXC_BIN");
	if (d) {
		snprintf(plugdir, sizeof plugdir, "%s", d);
		return 0;
	}
	if (!bin)
		return -1;
	const char *slash = strrchr(bin, '/');
	int n = slash ? (int)(slash - bin) : 1;
	snprintf(plugdir, sizeof plugdir, "%.*s/plugins", n, slash ? bin : ".");
	return 0;
}

static inline int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	f->m = ir_module_new();
	f->m->diagout = open_memstream(&f->diag, &f->diaglen);
	f->reg = pl_registry_new(f->m);
	static const char *const mods[] = {"fold", "cse", "dce", "simplify",
	    "lift", "convbn", "prune", "activations", "reshapes",
	    "scales", "matmuls", "einsum", "layout", "pool", "neutral", "inline",
	    "functionalize", "decompose", "retype"};
	for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/%s.so", plugdir, mods[i]);
		if (pl_load(f->reg, path) != 0) {
			fflush(f->m->diagout);
			fprintf(stderr, "%s\n", f->diag);
			return -1;
		}
	}
	f->gid = ir_graph_new(f->m, "main", 0);
	f->g = ir_graph(f->m, f->gid);
	*state = f;
	return 0;
}

static inline int
teardown(void **state)
{
	Fix *f = *state;
	pl_registry_free(f->reg);
	fclose(f->m->diagout);
	free(f->diag);
	ir_free(f->m);
	free(f);
	return 0;
}

static inline const char *
diags(Fix *f)
{
	fflush(f->m->diagout);
	return f->diag ? f->diag : "";
}

/* Run pipeline text; 0 or -1.  The graph may be rebuilt: refresh f->g. */
static inline int
run_at(Fix *f, const char *text, bool training, int opset)
{
	PmPipeline p = {0};
	int rc = pm_parse(f->m, f->reg, "--passes", text, &p);
	if (rc == 0) {
		PmRun o = {.opset = opset, .training = training,
			.verify_each = true};
		rc = pm_run(f->m, f->reg, &p, &o, &f->gid);
	}
	pm_free(&p);
	f->g = ir_graph(f->m, f->gid);
	return rc;
}

static inline int
run(Fix *f, const char *text, bool training)
{
	return run_at(f, text, training, 18);
}

/* ------------------------------------------------------ building graphs */

static inline ValId
input(Fix *f, const char *name, DType dt, int rank, const int64_t *dims,
    Role role, const void *data)
{
	Dim d[8];
	for (int i = 0; i < rank; i++)
		d[i] = (Dim){dims[i], 0};
	ValId v = ir_value(f->g, ir_intern(f->m, name));
	ir_set_tensor(f->g, v, dt, rank, d);
	ir_val(f->g, v)->role = (uint8_t)role;
	if (data) {
		Tensor t = {.name = ir_intern(f->m, name), .dtype = (uint8_t)dt,
			.rank = rank, .dims = (int64_t *)dims, .data = data};
		t.nbytes = ir_numel(&t) * ir_dtype_size(dt);
		ir_val(f->g, v)->init = ir_tensor(f->m, &t);
		ir_val(f->g, v)->target = ir_intern(f->m, name);
	}
	ir_add_input(f->g, v);
	return v;
}

/* A node with one output typed dt[dims] (rank -1: no annotation). */
static inline ValId
node(Fix *f, Dialect d, const char *op, const char *name, DType dt, int rank,
    const int64_t *dims, int nargs, const Arg *args)
{
	NodeId n = ir_node(f->g, d, ir_intern(f->m, op), 1);
	ir_nodep(f->g, n)->name = ir_intern(f->m, name);
	for (int i = 0; i < nargs; i++)
		ir_push_arg(f->g, n, args[i]);
	ValId v = ir_nodep(f->g, n)->out;
	ir_val(f->g, v)->name = ir_intern(f->m, name);
	if (rank >= 0) {
		Dim dd[8];
		for (int i = 0; i < rank; i++)
			dd[i] = (Dim){dims[i], 0};
		ir_set_tensor(f->g, v, dt, rank, dd);
	}
	return v;
}

static inline ValId
fx(Fix *f, const char *op, const char *name, DType dt, int rank,
    const int64_t *dims, int nargs, const Arg *args)
{
	return node(f, D_FX, op, name, dt, rank, dims, nargs, args);
}

static inline Arg
ints(Fix *f, int n, const int64_t *v)
{
	Arg it[8];
	for (int i = 0; i < n; i++)
		it[i] = arg_int(v[i]);
	return ir_list(f->g, A_LIST, it, (uint32_t)n);
}

static inline Arg
kw(Fix *f, const char *key, Arg a)
{
	return arg_keyed(a, ir_intern(f->m, key));
}

static inline void
output(Fix *f, ValId v)
{
	ir_add_output(f->g, v, OUT_USER, 0);
}

/* ---------------------------------------------------- reading results */

static inline uint32_t
count_op(Fix *f, const char *op)
{
	uint32_t c = 0;
	for (NodeId n = 1; n < f->g->nnodes; n++)
		c += !strcmp(ir_str(f->m, ir_nodep(f->g, n)->op), op);
	return c;
}

static inline NodeId
find_op(Fix *f, const char *op)
{
	for (NodeId n = 1; n < f->g->nnodes; n++)
		if (!strcmp(ir_str(f->m, ir_nodep(f->g, n)->op), op))
			return n;
	return 0;
}

/* The constant tensor behind value v: a bound input or a Constant node. */
static inline const Tensor *
const_of(Fix *f, ValId v)
{
	const Value *p = ir_val(f->g, v);
	if (!p->def)
		return p->init ? ir_tensorp(f->m, p->init) : NULL;
	const Node *n = ir_nodep(f->g, p->def);
	if (strcmp(ir_str(f->m, n->op), "Constant"))
		return NULL;
	const Arg *a = ir_find_arg(f->m, f->g, p->def, -1, "value");
	return a && a->kind == A_TENSOR ? ir_tensorp(f->m, a->u.t) : NULL;
}

static inline ValId
operand(Fix *f, NodeId n, uint32_t i)
{
	const Arg *a = ir_arg(f->g, n, i);
	assert_int_equal(a->kind, A_VAL);
	return a->u.v;
}

#endif
