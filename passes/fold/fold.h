/* fold.h - inside the fold plugin: the state its files share, the tensor
 * arithmetic and layout (tensor.c), reading constants and arguments
 * through the host (fold.c), and each dialect's evaluator (fx.c,
 * onnx.c). */
#ifndef FOLD_H
#define FOLD_H

#include <stddef.h>
#include <stdint.h>

#include <onnxc/plugin.h>

enum { MAXRANK = 8 };

/* A constant: an operand (data borrowed) or a result (data in own, or
 * shared with an operand). */
typedef struct Ten {
	uint32_t dt;
	int rank;
	int64_t dims[MAXRANK];
	uint64_t numel;
	const void *data;
	void *own;
	onnxc_value same;  /* a constant input holding exactly this */
	struct Ten *twin;  /* an earlier result equal to this, whose data
	                    * this one borrows (fold_dedup) */
	onnxc_value made;  /* the constant input made for this result */
	onnxc_tensor src;  /* the host tensor whose bytes data are, or 0 */
	/* a big result of fold_gather, made as it is written (emit_constant
	 * in onnx.c): element k is from[gbase + sum idx * gst]; data NULL */
	const unsigned char *from;
	int64_t gst[MAXRANK], gbase;
} Ten;

/* Results of this many bytes or more are not computed in memory: in the
 * ONNX graph (Fold.bigok) a view of an operand (Reshape, Squeeze...)
 * shares its bytes and a slice of one is made a piece at a time through
 * the host's tensor_make; any other is left alone, Transpose included: a
 * transposed weight is a new copy of it to compute, write to a scratch
 * file and copy out (3x the time of -O1 on BERT-base), and ONNX Runtime
 * folds the Transpose of an initializer itself when it loads the model,
 * so the model runs no faster for it.  Weights stay mapped. */
enum { FOLD_BIG = 1 << 20 };

/* A permute folded before (fx.c): the input's bytes, shape and order,
 * and the result kept for them. */
enum { PMEMO = 8, PMEMO_RANK = 8 };
typedef struct PermMemo {
	const void *data;
	uint32_t dt;
	int rank;
	int64_t dims[PMEMO_RANK], perm[PMEMO_RANK];
	struct Ten *res;     /* NULL: none, or not kept (yet) */
} PermMemo;

typedef struct Fold {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	int64_t maxsize;
	int training;
	uint32_t nvals, end;
	Ten **known;         /* per value: FX result folded here */
	uint32_t *uses;      /* per value: uses by args and graph outputs,
	                      * unless hostuses */
	int hostuses;        /* the host keeps use counts (ABI 1.5) */
	uint32_t *folduses;  /* per value: uses by folded nodes */
	uint8_t *isout;      /* per value: a graph output */
	uint8_t *folded;     /* per node */
	onnxc_value *repl;   /* per value: what replaces it, or 0 */
	uint32_t nrepl;      /* values with a replacement */
	onnxc_str s_constant, s_value;
	Ten **results;       /* distinct FX results by content, open addressing */
	uint32_t nresults, cresults;
	int hostfail;        /* a host call that should work did not */
	/* fold_fx_node's op codes by op handle, direct-mapped */
	uint32_t fxkey[64];  /* op handle + 1; 0: empty */
	int fxcode[64];      /* 0: not an op fx.c folds */
	PermMemo pmemo[PMEMO]; /* by the input's address */
	int pending;         /* pmemo slot + 1 of a permute just computed */
	int bigok;           /* folding ONNX nodes: views and gathers past
	                      * FOLD_BIG may be made (see FOLD_BIG) */
	int bigview;         /* set while a view or gather sets its shape */
} Fold;

/* Outcome of evaluating one node. */
enum { SKIP = 0, DONE = 1, FAIL = -1 };

/* --- tensor.c: shapes and storage --- */
size_t fold_elsize(uint32_t dt);
/* numel of dims, or UINT64_MAX when negative or absurdly large */
uint64_t fold_numel(int rank, const int64_t *dims);
void fold_strides(const Ten *x, int64_t *st);
/* set r's shape; SKIP when past max-size */
int fold_shape(Fold *f, Ten *r, uint32_t dt, int rank, const int64_t *dims);
int fold_storage(Fold *f, Ten *r);
/* r, just computed: when an earlier result has the same type and bytes,
 * r gives its storage up and borrows that one's (r->twin); false when
 * memory runs out */
int fold_dedup(Fold *f, Ten *r);
/* view/reshape sizes: one -1 takes what is left; 0 when they do not fit */
int fold_view_dims(const Ten *x, int64_t *dims, int n);

/* --- tensor.c: results (SKIP, DONE or FAIL) --- */
int fold_copy(Fold *f, const Ten *x, Ten *r);
int fold_reshape(Fold *f, const Ten *x, Ten *r, int rank,
    const int64_t *dims);
int fold_gather(Fold *f, const Ten *x, Ten *r, const int64_t *st,
    int64_t base);
/* fold_shape for a result that views or gathers x: past FOLD_BIG too
 * where Fold.bigok */
int fold_shape_view(Fold *f, Ten *r, uint32_t dt, int rank,
    const int64_t *dims);
/* elements [first, first + count) of a big gather (r->from) to out:
 * onnxc_host_api.tensor_make's fill */
typedef struct FoldGather {
	Fold *f;
	const Ten *r;
} FoldGather;
int fold_gather_fill(void *g, uint64_t first, uint64_t count, void *out);
int fold_permute(Fold *f, const Ten *x, Ten *r, const int64_t *perm, int n);
int fold_slice(Fold *f, const Ten *x, Ten *r, int d, int64_t start,
    int64_t stp, int64_t count, int keep);
int fold_cast(Fold *f, const Ten *x, Ten *r, uint32_t to);
int fold_concat(Fold *f, const Ten *in, int n, int64_t d, Ten *r);
enum { ADD, SUB, MUL, DIV, NEG };
int fold_arith(Fold *f, int op, const Ten *a, const Ten *b, double sf,
    int64_t si, Ten *r);

/* --- fold.c: the IR through the host --- */
/* keyed argument (ONNX attribute, FX kwarg) named key */
int fold_keyed(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    onnxc_str key, onnxc_arg *a);
/* positional pos, else keyword key; 0 when absent */
int fold_arg_at(Fold *f, onnxc_node n, const onnxc_node_info *ni, int pos,
    const char *key, onnxc_arg *a);
/* the constant behind value v; 0 when there is none */
int fold_constant(Fold *f, onnxc_value v, Ten *out);
/* a literal int, or a SymInt the annotations fix */
int fold_as_int(Fold *f, const onnxc_arg *a, int64_t *out);
/* a static int list; its length, or -1 */
int fold_ints(Fold *f, const onnxc_arg *a, int64_t *out, int cap);
/* does r agree with v's annotation, where there is one */
int fold_fits(Fold *f, onnxc_value v, const Ten *r);
onnxc_status fold_count_node(Fold *f, uint32_t *uses, onnxc_node n,
    const onnxc_node_info *ni);
/* from is replaced by to in the nodes the sweep reaches from now on */
void fold_replace(Fold *f, onnxc_value from, onnxc_value to);

/* --- fx.c --- */
enum { FOLD_NFXOPS = 43 }; /* the FX ops fx.c folds (ir/ops.def) */
typedef struct FoldFxOp {
	onnxc_str name;
	int op;           /* its FX_* kind (fx.c) */
} FoldFxOp;
void fold_fx_intern(Fold *f, FoldFxOp *fxop);
onnxc_status fold_fx_node(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    const FoldFxOp *fxop);

/* --- onnx.c --- */
onnxc_status fold_onnx_node(Fold *f, onnxc_node n, const onnxc_node_info *ni);
/* positional input i of n when it is a constant */
int fold_onnx_input(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    uint32_t i, Ten *out);
int fold_onnx_attr(Fold *f, onnxc_node n, const onnxc_node_info *ni,
    const char *name, onnxc_arg *a);

/* --- onnx_math.c: elementwise, comparison, Where, Expand, Gather, Range
 * (SKIP, DONE or FAIL) --- */
int fold_onnx_math(Fold *f, const char *op, onnxc_node n,
    const onnxc_node_info *ni, Ten *r);
/* element i of an integer or bool tensor as int64 */
int64_t fold_geti(const Ten *t, uint64_t i);

/* --- compute.c: Slice and ScatterElements of constants (SKIP, DONE or
 * FAIL) --- */
int fold_onnx_compute(Fold *f, const char *op, onnxc_node n,
    const onnxc_node_info *ni, Ten *r);

#endif
