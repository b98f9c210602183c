/* lower_fixture.h - the cmocka fixture the lowering tests share: a module
 * with one empty FX graph ("main") and its diagnostics captured in a
 * string.  Include after cmocka.h and passes/lower.h. */
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

#endif
