/* lower.h - the FX -> ONNX lowering pass and the helpers lowerings use.
 *
 * The pass walks the FX graph in order and builds a new graph of ONNX
 * nodes.  Each FX op is handled by a rule: a function that reads the node
 * being lowered through lw_arg/lw_in/..., emits ONNX nodes with lw_emit
 * and friends, and binds each FX output to the ONNX value that computes it
 * with lw_bind.  Rules live in lower_<family>.c files, static; the op
 * table (ir/ops.def) names each op's family and rule, and each family file
 * exports its rows as one table ending with a {NULL, NULL} row.
 *
 * Conventions:
 * - A rule returns 0, or -1 after reporting with lw_fail.
 * - Errors are sticky: a reader or emitter that fails reports (lw_fail),
 *   marks the Lower failed and returns a harmless default (0, -1, the
 *   default given), so a rule may read all its arguments and test
 *   lw_failed once before it emits.  The pass stops after a node that
 *   failed, adding "could not be lowered" only when nothing said why.
 * - SymInt/SymFloat/SymBool values lower to 0-d INT64/DOUBLE/BOOL tensors.
 * - Types of emitted values: every emitted value carries a dtype (the
 *   helpers set it); shapes are left unknown except on bound values, which
 *   take the FX annotation.  Decide on shapes from the FX side (lw_srcval).
 */
#ifndef ONNXC_LOWER_H
#define ONNXC_LOWER_H

#include "../ir/ir.h"

typedef struct Lower Lower;
typedef int (*LowerFn)(Lower *L);
struct LwRegistry;
struct onnxc_ctx;

typedef struct LowerRule {
	const char *op; /* FX op as in Node.op: "aten::add.Tensor" */
	LowerFn fn;
} LowerRule;

/* An interned name and the text it was last asked by. */
enum { LW_NAMES = 32, LW_INFOS = 16 };
typedef struct LwName {
	const char *s;
	StrId id;
} LwName;

/* An elementwise op's table entry (lwe_info), remembered by op. */
struct OpInfo;
typedef struct LwInfo {
	StrId op;
	const struct OpInfo *info;
} LwInfo;

struct Lower {
	Module *m;
	Graph *src;     /* the FX graph */
	Graph *dst;     /* the ONNX graph being built */
	GraphId dstid;
	ValId *map;     /* src ValId -> dst ValId (0: not lowered yet) */
	NodeId node;    /* the FX node being lowered */
	int opset;
	bool training;  /* --training: dropout and batch norm keep training form */
	bool bn_onnx;   /* ...batch norm as ONNX BatchNormalization(training) */
	Lower *up;      /* lowering a subgraph body: the scope around it */
	bool failed;    /* the node being lowered failed (lw_failed) */
	bool erased;    /* nodes of dst were erased (op 0) or appended out of
	                 * order (lw_legalize): normalize it */
	const struct LwRegistry *reg;  /* onnxc's rules */
	struct onnxc_ctx *ctx;         /* plugin lowerings, NULL for none */
	/* op and attribute names emitted, by the address of their text
	 * (lower_emit.c); zeroed with the rest */
	LwName names[LW_NAMES];
	LwInfo infos[LW_INFOS];
};

/* Rule tables, one per lower_<family>.c, made from ir/ops.def. */
#define FAMILY(f) extern const LowerRule lw_rules_##f[];
#include "../ir/families.def"
#undef FAMILY
/* all of them, in the order of ir/families.def, ending with {NULL, NULL} */
typedef struct LwFamily {
	const char *name;
	const LowerRule *rules;
} LwFamily;
extern const LwFamily lw_families[];

/* Picking one file's rows out of a table (ir/ops.def by family,
 * ir/checks.def by checker file): the file defines its selector
 * (LW_FAMILY_<family>, LWC_FILE_<file>) as LW_THIS, and
 * LW_PICK(selector, op, rule) is "{op, rule}," where the selector is
 * defined so and nothing where it is not defined at all. */
#define LW_THIS ~, 1
#define LW_2ND_(a, b, ...) b
#define LW_2ND(...) LW_2ND_(__VA_ARGS__)
#define LW_CAT_(a, b) a##b
#define LW_CAT(a, b) LW_CAT_(a, b)
#define LW_ROW_0(op, rule)
#define LW_ROW_1(op, rule) {op, rule},
#define LW_PICK(sel, op, rule) LW_CAT(LW_ROW_, LW_2ND(sel, 0, ~))(op, rule)

/* lower.c: the pass.  Builds *out from graph src; returns 0 or -1 (with
 * diagnostics, listing every op that has no rule at once). */
int pass_lower(Module *m, GraphId src, GraphId *out, int opset);
/* whether onnxc has a rule of its own for op: its row of ir/ops.def
 * names a family (the rule tables hold exactly those rows) */
bool lw_has_rule(const char *op);

/* --- the rule-author API: depends on ir/ only ---
 * lower_args.c: reading the FX node being lowered */
const Node *lw_node(Lower *L);
/* positional arg i, else kwarg kw (kw may be NULL); NULL when absent */
const Arg *lw_arg(Lower *L, int i, const char *kw);
/* present and not None */
bool lw_has(Lower *L, int i, const char *kw);
/* the number an int-like arg stands for: a literal, or a SymInt whose
 * expression is a number; false when it is not static */
bool lw_static_int(Lower *L, const Arg *a, int64_t *out);
/* scalar and list readers: absent or None gives dflt; a value that is not
 * static (a SymInt with no fixed number) is an error */
int64_t lw_int(Lower *L, int i, const char *kw, int64_t dflt);
double lw_float(Lower *L, int i, const char *kw, double dflt);
bool lw_bool(Lower *L, int i, const char *kw, bool dflt);
/* a static int list (a lone int counts as [int]) into out[0..cap);
 * returns its length, or -1 if absent/None */
int lw_ints(Lower *L, int i, const char *kw, int64_t *out, int cap);
/* torch dtype argument (torch.float32 ...), DT_UNDEF when absent */
DType lw_dtype_arg(Lower *L, int i, const char *kw);
/* the FX value behind a tensor arg, for its dtype and shape; NULL if the
 * arg is not a value */
const Value *lw_srcval(Lower *L, int i, const char *kw);
/* the type of FX output k of the node */
const Value *lw_outval(Lower *L, int k);
/* FX shape of a value: rank, and dim d (negative d counts from the end);
 * lw_dim_static returns false when that dim is symbolic */
bool lw_dim_static(const Value *v, const Graph *g, int d, int64_t *n);

/* --- operands as ONNX values --- */
/* the ONNX value for a tensor (or SymInt) arg */
ValId lw_in(Lower *L, int i, const char *kw);
/* a tensor arg, or a Python number arg as a 0-d constant; cast to dt
 * unless dt is DT_UNDEF */
ValId lw_operand(Lower *L, int i, const char *kw, DType dt);
/* an int/SymInt list arg (view sizes, expand sizes ...) as a 1-D INT64
 * tensor: a constant when all static, else Unsqueeze+Concat */
ValId lw_shape_list(Lower *L, int i, const char *kw);
/* an int or SymInt arg as a 1-D INT64 tensor of one element; dflt when
 * absent or None */
ValId lw_int1(Lower *L, int i, const char *kw, int64_t dflt);
/* whether an int list arg holds a SymInt with no fixed number */
bool lw_list_symbolic(Lower *L, int i, const char *kw);

/* --- lower_emit.c: emitting ONNX nodes --- */
/* a node of the default domain with nin inputs (0 = missing optional
 * input) and nout outputs; outputs get dtype DT_UNDEF until set */
NodeId lw_emit(Lower *L, const char *op, int nin, const ValId *in, int nout);
NodeId lw_emit_domain(Lower *L, const char *domain, const char *op, int nin,
    const ValId *in, int nout);
ValId lw_res(Lower *L, NodeId n, int k);
void lw_attr_int(Lower *L, NodeId n, const char *name, int64_t v);
void lw_attr_float(Lower *L, NodeId n, const char *name, double v);
void lw_attr_str(Lower *L, NodeId n, const char *name, const char *v);
void lw_attr_ints(Lower *L, NodeId n, const char *name, const int64_t *v,
    int cnt);
void lw_attr_floats(Lower *L, NodeId n, const char *name, const double *v,
    int cnt);
void lw_attr_tensor(Lower *L, NodeId n, const char *name, TensorId t);
void lw_attr_graph(Lower *L, NodeId n, const char *name, GraphId g);
/* set the dtype (and optionally rank/dims) of an emitted value */
void lw_settype(Lower *L, ValId v, DType dt);
DType lw_dtype(Lower *L, ValId v);      /* dtype of an ONNX value */

/* one-liners: output dtype as stated */
ValId lw_op1(Lower *L, const char *op, ValId x);             /* dt of x */
ValId lw_op2(Lower *L, const char *op, ValId a, ValId b);    /* dt of a */
ValId lw_op2t(Lower *L, const char *op, ValId a, ValId b, DType dt);
ValId lw_cast(Lower *L, ValId x, DType to);  /* x itself if same dtype */
/* x rounded to the narrower type dt (half precision computed in float
 * rounds as PyTorch's half kernels do), in x's type again */
ValId lw_rounded(Lower *L, ValId x, DType dt);

/* --- constants (Constant nodes) --- */
ValId lw_const(Lower *L, DType dt, int rank, const int64_t *dims,
    const void *data);
ValId lw_const_i64s(Lower *L, const int64_t *v, int n);   /* 1-D */
ValId lw_scalar_i64(Lower *L, int64_t v);                 /* 0-d */
/* a 0-d constant of numeric dtype dt holding v (converted, as C would;
 * f16/bf16 rounded to nearest even) */
ValId lw_scalar(Lower *L, double v, DType dt);
/* same, but built from an integer without a round trip through double */
ValId lw_scalar_int(Lower *L, int64_t v, DType dt);

/* --- results --- */
/* FX output k is computed by v: v takes the FX name and annotation.  If v
 * already stands for another value (an input, an earlier output), an
 * Identity keeps names unique. */
void lw_bind(Lower *L, int k, ValId v);
/* whether every output of the node is a tensor of static sizes with no
 * element (or an unused tuple part): after its rule returns, such a
 * node's outputs become empty constants (lower.c), so a rule may return
 * 0 early for an empty operand PyTorch takes */
bool lw_outputs_empty(Lower *L);
/* after a rule: nodes it emitted from first on that ONNX Runtime cannot
 * run rewritten into ones it can; true when dst needs ir_normalize
 * (lower_legal.c) */
bool lw_legalize(Lower *L, NodeId first);
/* the indices [0]*r0 + [1]*r1 + ... of 1-D repeats r (int64; its length
 * is data dependent) (lower_index.c) */
ValId lw_repeat_indices(Lower *L, ValId r);
/* report an error at the node, mark it failed and return -1 */
int lw_fail(Lower *L, const char *fmt, ...);
/* has the node being lowered failed? (sticky until the next node) */
bool lw_failed(const Lower *L);

/* --- type promotion, torch semantics (lower_args.c) --- */
/* result dtype of a binary op on two args, following torch: tensors of
 * higher category win, 0-d tensors and Python numbers only decide within
 * their category */
DType lw_promote(Lower *L, int i, const char *kwi, int j, const char *kwj);

/* the nodes of L->src in order: plugin lowerings, then onnxc's rules;
 * 0, or -1 after reporting */
int lw_lower_nodes(Lower *L);

/* --- subgraphs (lower_scope.c): bodies of control-flow ops --- */
/* Subgraph bodies nested deeper than this are refused. */
enum { LW_MAXNEST = 32 };
/* a new, empty ONNX graph whose parent is the graph being built */
GraphId lw_subgraph(Lower *L, const char *name);
/* in subgraph sub, the value that stands for v (a value of the graph being
 * built): a ROLE_OUTER value for capture k of the node that will own sub
 * (push v as that node's capture k with lw_attr_capture) */
ValId lw_outer(Lower *L, GraphId sub, ValId v, uint32_t k);
void lw_attr_capture(Lower *L, NodeId n, ValId v);
/* Lower the FX graph body into graph dst (the graph being built, or a
 * subgraph of it), its inputs bound to ins (values of dst, one per body
 * input); outs (one per body output) receive the ONNX values of its
 * outputs.  Returns 0, or -1 after reporting. */
int lw_body(Lower *L, GraphId body, GraphId dst, const ValId *ins,
    ValId *outs);
/* v becomes the next output of subgraph sub, through an Identity when it
 * is no node's result of its own (an input, an outer value, an output
 * already) */
void lw_sub_output(Lower *L, GraphId sub, ValId v);
/* names for every value of the lowered graph main and its subgraphs,
 * unique across the model: names given stay where they are free (all of
 * main's do), outer values take their capture's */
void lw_name_values(Module *m, Graph *main);

/* --- lower_kit.c: helpers shared by rule files --- */
/* [n, size] indices i*step + k of sliding windows over axis of x, n read
 * at run time (a dynamic signal length) */
ValId lw_frames_dyn(Lower *L, ValId x, int axis, int64_t size, int64_t step);
/* ONNX Pad's pads (2 * R) from torch's pad list arg i known at run time,
 * which pads the first r dims (r < R: the others get zeros) */
ValId lw_pads_dyn(Lower *L, int i, const char *kw, int r, int R);
enum { LW_MAXRANK = 64 }; /* torch's own limit on tensor rank */

/* the tensors of a Tensor[] argument: ONNX values and FX values */
typedef struct LwTensorList {
	ValId *v;
	const Value **s;
} LwTensorList;

/* dtype of the FX annotation of output 0 */
DType lw_outdtype(Lower *L);
/* result 0 of node n, typed dt */
ValId lw_typed(Lower *L, NodeId n, DType dt);
/* The rank of a tensor argument, or -1 after reporting. */
int lw_rank_of(Lower *L, int i, const char *kw);
/* Normalise a torch dim for a tensor of rank r (0-d tensors accept 0 and
 * -1, like torch).  Returns 0, or -1 after reporting. */
int lw_normdim(Lower *L, int64_t *d, int r);
/* lw_dim_static on the FX graph */
bool lw_sdim(Lower *L, const Value *v, int d, int64_t *n);
/* [v] as a 1-D INT64 constant */
ValId lw_i64v(Lower *L, int64_t v);
/* Unsqueeze or Squeeze (op) over constant axes. */
ValId lw_axes_op(Lower *L, const char *op, ValId x, const int64_t *axes,
    int n);
ValId lw_transpose(Lower *L, ValId x, const int64_t *perm, int n);
bool lw_is_identity_perm(const int64_t *perm, int n);
/* Slice x along constant axes with 1-D starts/ends (and steps, or 0). */
ValId lw_slice(Lower *L, ValId x, ValId starts, ValId ends,
    const int64_t *axes, int n, ValId steps);
ValId lw_slice_const(Lower *L, ValId x, int64_t axis, int64_t start,
    int64_t end, int64_t step);
ValId lw_concat(Lower *L, const ValId *parts, int n, int64_t axis, DType dt);
/* Concat of the non-zero 1-D INT64 parts; an empty constant if none. */
ValId lw_concat_shape(Lower *L, const ValId *parts, int n);
/* Shape(x)[d0:d1] at run time. */
ValId lw_shape_range(Lower *L, ValId x, int d0, int d1);
/* Dims [d0, d1) of the FX value sv (ONNX value x) as a 1-D INT64 tensor:
 * a constant when the annotation is static there, else read at run time.
 * 0 when the range is empty. */
ValId lw_dims_of(Lower *L, const Value *sv, ValId x, int d0, int d1);
ValId lw_reshape(Lower *L, ValId x, ValId shape);
/* the list in scratch memory (lw_scratch); its length, or -1 after
 * reporting */
int lw_tensor_list(Lower *L, int i, const char *kw, LwTensorList *tl);
/* n zeroed elements of size bytes of scratch memory, given back when the
 * node has been lowered (lw_lower_nodes releases it) */
void *lw_scratch(Lower *L, size_t n, size_t size);

#endif
