/* opt_fixture.h - building ONNX graphs for the -O2 pass tests
 * (test_opt.c, test_opt_vision.c, test_opt_layout.c) and reading their constants.
 * Include after pass_fixture.h. */
#ifndef OPT_FIXTURE_H
#define OPT_FIXTURE_H

static inline ValId
onnx(Fix *f, const char *op, const char *name, DType dt, int rank,
    const int64_t *dims, int nargs, const Arg *args)
{
	return node(f, D_ONNX, op, name, dt, rank, dims, nargs, args);
}

/* A Constant node holding n int64s (rank 1). */
static inline ValId
i64_const(Fix *f, const char *name, int n, const int64_t *v)
{
	int64_t *len = arena_alloc(f->m->arena, sizeof *len);
	*len = n;
	Tensor t = {.dtype = DT_I64, .rank = 1, .dims = len, .data = v,
		.nbytes = (uint64_t)n * 8};
	return onnx(f, "Constant", name, DT_I64, 1, len, 1,
	    (Arg[]){kw(f, "value", (Arg){.kind = A_TENSOR,
	    .u.t = ir_tensor(f->m, &t)})});
}

/* Value v's type with dim i symbolic where sym[i] (0: dims[i]). */
static inline void
retype(Fix *f, ValId v, int rank, const int64_t *dims, const ExprId *sym)
{
	Dim d[8];
	for (int i = 0; i < rank; i++)
		d[i] = (Dim){sym[i] ? 0 : dims[i], sym[i]};
	ir_set_tensor(f->g, v, ir_val(f->g, v)->dtype, rank, d);
}

/* The int64s of constant operand i of node n, into out; their count. */
static inline int
const_ints(Fix *f, NodeId n, uint32_t i, int64_t *out)
{
	const Tensor *t = const_of(f, operand(f, n, i));
	assert_non_null(t);
	assert_int_equal(t->dtype, DT_I64);
	memcpy(out, t->data, t->nbytes);
	return (int)(t->nbytes / 8);
}

static inline ValId
view(Fix *f, const char *name, ValId x, int rank, const int64_t *d)
{
	char cn[32];
	snprintf(cn, sizeof cn, "%s_shape", name);
	return onnx(f, "Reshape", name, DT_F32, rank, d, 2, (Arg[]){arg_val(x),
	    arg_val(i64_const(f, cn, rank, d))});
}

static inline const Tensor *
weight_of(Fix *f, NodeId n, uint32_t i)
{
	const Tensor *t = const_of(f, operand(f, n, i));
	assert_non_null(t);
	assert_int_equal(t->dtype, DT_F32);
	return t;
}

#endif
