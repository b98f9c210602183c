/* lower_fixture.h - the cmocka fixture the lowering tests share: a module
 * with one empty FX graph ("main") and its diagnostics captured in a
 * string, and the small builders the tests share.  Include after cmocka.h
 * and lower/lower.h.  Dims given as -1 mean the symbol s0. */
#ifndef ONNXC_LOWER_FIXTURE_H
#define ONNXC_LOWER_FIXTURE_H

typedef struct Fix {
	Module *m;
	GraphId gid;
	Graph *g;
	GraphId out;     /* the lowered graph, for tests that lower */
	char *diag;
	size_t diaglen;
	char ops[1024];  /* op types of the lowered graph, for tests that list
			  * them */
} Fix;

static inline int
setup(void **state)
{
	Fix *f = calloc(1, sizeof *f);
	f->m = ir_module_new();
	f->m->diagout = open_memstream(&f->diag, &f->diaglen);
	f->gid = ir_graph_new(f->m, "main", 0);
	f->g = ir_graph(f->m, f->gid);
	*state = f;
	return 0;
}

static inline int
teardown(void **state)
{
	Fix *f = *state;
	fclose(f->m->diagout);
	free(f->diag);
	ir_free(f->m);
	free(f);
	return 0;
}

/* everything reported so far */
static inline const char *
diags(Fix *f)
{
	fflush(f->m->diagout);
	return f->diag ? f->diag : "";
}

/* building the FX graph and reading the lowered one */

static inline void
arg(Fix *f, NodeId n, Arg a)
{
	ir_push_arg(f->g, n, a);
}

static inline Graph *
dst(Fix *f)
{
	return ir_graph(f->m, f->out);
}

static inline void
kwarg(Fix *f, NodeId n, const char *key, Arg a)
{
	ir_push_arg(f->g, n, arg_keyed(a, ir_intern(f->m, key)));
}

static inline uint32_t
ninputs(Fix *f, NodeId n)
{
	return ir_npos(dst(f), n);
}

static inline void
output(Fix *f, ValId v)
{
	ir_add_output(f->g, v, OUT_USER, 0);
}

/* dims: numbers, or -1 for the symbol s0 */
static inline void
set_type(Fix *f, ValId v, DType dt, int rank, const int64_t *dims)
{
	Dim d[8];
	for (int i = 0; i < rank; i++)
		d[i] = dims[i] < 0 ? (Dim){0, ir_expr_sym(f->m, "s0")}
		    : (Dim){dims[i], 0};
	ir_set_tensor(f->g, v, dt, rank, d);
}

#endif
