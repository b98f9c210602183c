/* ir.h - onnxc's intermediate representation, read as a table of contents.
 *
 * One Module per compilation owns everything: an arena, interned strings,
 * symbolic expressions, constant tensors, diagnostics and the graphs.
 * Graph entities are referred to by 32-bit index handles; index 0 of every
 * table is reserved so that 0 always means "none".
 *
 * A graph holds FX nodes (ATen, custom and Python-operator calls, as parsed)
 * or, after the lower pass, ONNX nodes.  Both use the same Node/Arg shape:
 * positional Args are the inputs, keyed Args are kwargs (FX) or attributes
 * (ONNX).
 */
#ifndef ONNXC_IR_H
#define ONNXC_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ONNXC_VERSION_STRING "0.1.0"

typedef uint32_t StrId;    /* interned string; 0 is "" */
typedef uint32_t ExprId;   /* symbolic expression in Module.exprs */
typedef uint32_t TensorId; /* constant tensor in Module.tensors */
typedef uint32_t GraphId;  /* graph in Module.graphs */
typedef uint32_t ValId;    /* value in a Graph */
typedef uint32_t NodeId;   /* node in a Graph */

typedef struct Arena Arena;
typedef struct Module Module;
typedef struct Graph Graph;
typedef struct Node Node;
typedef struct Value Value;
typedef struct Arg Arg;
typedef struct Dim Dim;
typedef struct Expr Expr;
typedef struct Tensor Tensor;
typedef struct Loc Loc;

#define BUG(...) ir_bug(__FILE__, __LINE__, __VA_ARGS__)

/* Element types use ONNX TensorProto.DataType numbers, so the backend
 * needs no table.  0 means unknown / not a tensor. */
typedef enum DType {
	DT_UNDEF = 0,
	DT_F32 = 1,
	DT_U8 = 2,
	DT_I8 = 3,
	DT_U16 = 4,
	DT_I16 = 5,
	DT_I32 = 6,
	DT_I64 = 7,
	DT_STRING = 8,
	DT_BOOL = 9,
	DT_F16 = 10,
	DT_F64 = 11,
	DT_U32 = 12,
	DT_U64 = 13,
	DT_C64 = 14,
	DT_C128 = 15,
	DT_BF16 = 16,
	DT_F8E4M3FN = 17,
	DT_F8E4M3FNUZ = 18,
	DT_F8E5M2 = 19,
	DT_F8E5M2FNUZ = 20,
	DT_U4 = 21,
	DT_I4 = 22,
	DT_F4E2M1 = 23,
	DT_F8E8M0 = 24,
	DT_COUNT
} DType;

/* Where something came from in the input text (1-based; 0 = unknown). */
struct Loc {
	uint32_t line, col;
};

/* A dimension: the number n when e == 0, else the expression e. */
struct Dim {
	int64_t n;
	ExprId e;
};

/* Symbolic expressions, hash-consed: equal ExprIds mean equal trees. */
typedef enum ExprKind {
	E_INT,      /* n */
	E_FLOAT,    /* f */
	E_SYM,      /* symbol named by str (s0, u1, batch) */
	E_ADD,      /* a + b */
	E_MUL,      /* a * b */
	E_FLOORDIV, /* a // b */
	E_MOD,      /* a % b */
	E_POW,      /* a ** b */
	E_NEG,      /* -a */
	E_MAX,      /* Max(a, b) */
	E_MIN,      /* Min(a, b) */
	E_TRUEDIV,  /* a / b (floats) */
	E_TOFLOAT,  /* ToFloat(a) */
	E_EQ, E_NE, E_LT, E_LE, E_GT, E_GE, /* relations */
	E_AND, E_OR, E_NOT,
	E_CALL      /* any other function: str(a, b) */
} ExprKind;

struct Expr {
	uint8_t kind;
	StrId str;     /* E_SYM, E_CALL */
	ExprId a, b;
	int64_t n;     /* E_INT */
	double f;      /* E_FLOAT */
};

/* A constant tensor: bytes mapped from a weights file or kept in the arena.
 * dims are numbers only. */
struct Tensor {
	StrId name;
	uint8_t dtype;
	int32_t rank;
	int64_t *dims;
	const void *data;
	uint64_t nbytes;
};

/* What a value is. */
typedef enum ValKind {
	VK_UNKNOWN,  /* no annotation (side-effect nodes, unused tuple parts) */
	VK_TENSOR,
	VK_SYMINT,   /* "Sym(s0)" */
	VK_SYMFLOAT,
	VK_SYMBOOL,
	VK_CONST,    /* specialised non-tensor user input, e.g. an int */
	VK_OBJ       /* custom object or effect token */
} ValKind;

/* The role a graph input plays, from the graph signature. */
typedef enum Role {
	ROLE_NONE,
	ROLE_USER_INPUT,
	ROLE_PARAM,
	ROLE_BUFFER,
	ROLE_CONST,      /* lifted tensor constant */
	ROLE_CUSTOM_OBJ,
	ROLE_TOKEN,
	ROLE_OUTER       /* not an input: a value of the enclosing graph that
	                  * a subgraph uses; defidx says which capture of the
	                  * node owning the subgraph it is (see Node) */
} Role;

/* What a graph output is, from the graph signature. */
typedef enum OutKind {
	OUT_USER,
	OUT_LOSS,
	OUT_BUFFER_MUTATION,
	OUT_USER_INPUT_MUTATION,
	OUT_GRAD_PARAM,
	OUT_GRAD_INPUT,
	OUT_TOKEN,
	OUT_PARAM_MUTATION
} OutKind;

struct Value {
	StrId name;
	uint8_t kind;    /* ValKind */
	uint8_t dtype;   /* DType for tensors */
	uint8_t role;    /* Role for graph inputs */
	uint8_t persist; /* ROLE_BUFFER: PERSIST_YES/PERSIST_NO; 0 unknown */
	int32_t rank;    /* -1: unknown */
	uint32_t dims;   /* rank Dims at Graph.dims[dims] */
	NodeId def;      /* defining node; 0 for graph inputs */
	uint32_t defidx; /* which output of def */
	ExprId sym;      /* VK_SYMINT/FLOAT/BOOL: the expression it equals */
	StrId target;    /* signature target of a parameter/buffer/constant */
	TensorId init;   /* initializer bytes, if bound */
	StrId orig;      /* the FX name, when the value was renamed (a weight
	                  * named by its target, --input-names): written as
	                  * pkg.torch.onnx.original_node_name */
};

/* Value.persist: the signature's persistent= of a buffer. */
enum { PERSIST_UNKNOWN, PERSIST_YES, PERSIST_NO };

/* Arguments: node inputs, kwargs/attributes and list elements. */
typedef enum ArgKind {
	A_NONE,    /* None, or a missing optional ONNX input */
	A_VAL,     /* v: a value of the graph */
	A_INT,     /* i */
	A_FLOAT,   /* f (inf, nan too) */
	A_BOOL,    /* i is 0 or 1 */
	A_STR,     /* s */
	A_DTYPE,   /* i is a DType (torch.float32) */
	A_LIST,    /* list [...]: n items at Graph.items[off] */
	A_TUPLE,   /* tuple (...): same storage as A_LIST */
	A_DEVICE,  /* s: "cpu", "cuda:0" */
	A_LAYOUT,  /* s: "strided" */
	A_MEMFMT,  /* s: "contiguous_format", "channels_last" ... */
	A_GRAPH,   /* g: a subgraph */
	A_OP,      /* s: an op object passed as argument */
	A_TENSOR   /* t: constant tensor (ONNX tensor attribute) */
} ArgKind;

struct Arg {
	uint8_t kind;
	StrId key; /* 0 for positional; kwarg or attribute name */
	union {
		int64_t i;
		double f;
		ValId v;
		StrId s;
		GraphId g;
		TensorId t;
		struct {
			uint32_t off, n;
		} list;
	} u;
};

/* Captures: an ONNX node whose subgraphs (If, Loop, Scan bodies) use
 * values of the node's own graph lists them, in order, as keyed A_VAL
 * args with the key "capture" (attributes are never values, so keyed
 * values of D_ONNX nodes are exactly these).  Inside a subgraph, the
 * ROLE_OUTER value with defidx k stands for capture k of its owner, and
 * ONNX writes it by its name.  Passes that rewrite the outer graph keep
 * captures right by treating them as ordinary uses. */
#define IR_CAPTURE "capture"

/* Node dialects. */
typedef enum Dialect {
	D_FX,   /* as parsed: op is "aten::add.Tensor", "mylib::foo.default",
	         * "higher_order::cond", "_operator::mul", "torch::sym_float" */
	D_ONNX  /* op is the ONNX op type, domain in Node.domain */
} Dialect;

struct Node {
	StrId op;
	StrId domain;    /* D_ONNX: "" for ai.onnx */
	uint8_t dialect;
	uint32_t args;   /* nargs Args at Graph.args[args]: positional first */
	uint32_t nargs;
	ValId out;       /* outputs are the values out .. out+nout-1 */
	uint32_t nout;
	/* Provenance, filled by every frontend and kept by every pass that
	 * replaces a node (lowering copies it onto each ONNX node it makes,
	 * plugins through node_set_origin); the ONNX backend writes it as
	 * torch.onnx's node metadata.  0 means unknown. */
	Loc loc;         /* where the node was written in the dump */
	StrId trace;     /* Python stack trace: the dump's "# File: ..."
	                  * comment, or an archive's stack_trace text */
	StrId name;      /* the FX node name */
	StrId scope;     /* nn.Module stack, outermost first: one line
	                  * "path\tqualified.Class" per module ("" path for the
	                  * root module), lines joined by '\n'; from an
	                  * archive's nn_module_stack (dumps print none) */
	StrId via;       /* D_ONNX: the plugin whose lowering made the node;
	                  * 0 for onnxc's own rules */
};

/* One graph: the main one, a higher-order op body, or the lowered graph.
 * Arrays grow with realloc and are released by ir_free. */
enum { SHAPE_CACHE = 64 };  /* ir_set_tensor's recent shapes */
struct Graph {
	StrId name;
	GraphId parent;  /* 0 for a top-level graph */
	Value *vals;
	uint32_t nvals, cvals;
	Node *nodes;     /* in program (topological) order */
	uint32_t nnodes, cnodes;
	Arg *args;       /* node-level args, contiguous per node */
	uint32_t nargs, cargs;
	Arg *items;      /* list elements, contiguous per list */
	uint32_t nitems, citems;
	Dim *dims;       /* shared: values of one shape may share a run */
	uint32_t ndims, cdims;
	uint32_t shapes[SHAPE_CACHE]; /* recent runs of dims, by hash */
	ValId *inputs;   /* in signature order (params, buffers, ..., user) */
	uint32_t ninputs, cinputs;
	ValId *outputs;
	uint8_t *outkind;  /* OutKind per output */
	StrId *outtarget;  /* mutated buffer / input per output, or 0 */
	uint32_t noutputs, coutputs;
};

/* One compilation. */
enum { NRECENT = 256 };  /* ir_internn's cache of the last strings */
struct Module {
	Arena *arena;
	Arena *scratch;  /* per-call temporaries: arena_mark/arena_release */
	/* interned strings */
	char **strs;
	uint32_t nstrs, cstrs;
	uint64_t *strkey;  /* per string: its hash << 32 | its length */
	uint64_t *strhash; /* open addressing, size hcap */
	uint32_t strrecent[NRECENT]; /* the last interned, by hash: id + 1 */
	uint32_t hcap;
	/* symbolic expressions (hash-consed like strings) */
	Expr *exprs;
	uint32_t nexprs, cexprs;
	uint32_t *exprhash;
	uint32_t ehcap;
	/* constant tensors */
	Tensor *tensors;
	uint32_t ntensors, ctensors;
	/* graphs; graphs[main] is the program */
	Graph **graphs;
	uint32_t ngraphs, cgraphs;
	GraphId main;
	/* range constraints as printed, for metadata */
	StrId ranges;
	/* the same, structured (sym_range.c); arrays live in the arena */
	struct SymRange *rng;
	uint32_t nrng, crng;
	uint32_t *rngix;    /* ExprId -> index+1 into rng, open addressing */
	uint32_t crngix;    /* its size (a power of two, or 0) */
	/* equality constraints of 2.1-2.2 dumps (sym_range.c) */
	struct SymEq *eqs;
	uint32_t neqs, ceqs;
	/* diagnostics */
	const char *file;   /* the dump's path as given */
	const char *src;    /* its text, for source lines under messages */
	size_t srclen;
	FILE *diagout;      /* where diagnostics go (stderr) */
	int nerrors, nwarnings;
	int maxerrors;      /* stop reporting after this many; 0: no limit */
};

/* util.c: arenas, errors, small helpers */
Arena *arena_new(void);
void *arena_alloc(Arena *a, size_t n);  /* zeroed, 16-byte aligned */
void *arena_alloc_nz(Arena *a, size_t n);  /* the same, not zeroed */
char *arena_strndup(Arena *a, const char *s, size_t n);
void arena_free(Arena *a);
/* n elements of size bytes, zeroed (a BUG when n * size overflows) */
void *arena_array(Arena *a, size_t n, size_t size);
/* the same two, NULL when memory runs out (for errors as values: the
 * plugin ABI's ONNXC_NOMEM) */
void *arena_try_alloc(Arena *a, size_t n);
void *arena_try_array(Arena *a, size_t n, size_t size);
/* Scratch memory: arena_release gives back everything allocated since
 * the mark (marks nest; release the newest first). */
typedef struct ArenaMark {
	void *block;
	size_t used;
	uint64_t seq;
} ArenaMark;
ArenaMark arena_mark(Arena *a);
void arena_release(Arena *a, ArenaMark mk);
void *xrealloc(void *p, size_t n); /* ir_oom on out-of-memory */
void *xzalloc(size_t n, size_t size); /* the same, zeroed; n may be 0 */
/* Appends printf text at buf[len], never writing past buf[cap-1] (the text
 * stays NUL-terminated when cap > 0); returns the length the whole text
 * would have: a result >= cap means it was cut.  Loops that build text
 * piece by piece use it instead of adding snprintf's results by hand. */
size_t str_addf(char *buf, size_t cap, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
_Noreturn void ir_bug(const char *file, int line, const char *fmt, ...);
/* Memory ran out asking for bytes (0: unknown): the hook the program set
 * reports it as an input error and ends the process (the driver removes
 * its temporary output and exits 1); without one, a message and abort().
 * Every allocation failure of the library ends here. */
_Noreturn void ir_oom(size_t bytes);
void ir_set_oom_hook(void (*hook)(size_t bytes));
/* grow *arr (element size sz) to hold at least need elements */
void vgrow(void **arr, uint32_t *cap, uint32_t need, size_t sz);
/* The same without zeroing: for tables whose every new element is written
 * whole (zeroing would touch, and make resident, the unused capacity). */
void vgrow_nz(void **arr, uint32_t *cap, uint32_t need, size_t sz);
/* transparent huge pages for the 2 MiB pages inside [p, p+n), where the
 * system has them: fewer page faults on big tables */
void mem_advise_huge(void *p, size_t n);
/* bytes of uninitialised memory, on 2 MiB pages from 1 MiB (free()) */
void *mem_alloc_big(size_t bytes);

/* module.c: the module, strings, expressions, tensors, diagnostics */
Module *ir_module_new(void);
void ir_free(Module *m);
StrId ir_intern(Module *m, const char *s);
StrId ir_internn(Module *m, const char *s, size_t n);
void ir_intern_prefetch(const Module *m, const char *s, size_t n);
/* Room for more strings without growing the tables on the way (each
 * doubling touches fresh memory and rehashes every string). */
void ir_reserve_strs(Module *m, uint32_t more);
uint32_t ir_hash(const void *p, size_t n);  /* FNV-1a of n bytes */
ExprId ir_expr(Module *m, const Expr *e); /* hash-consed */
ExprId ir_expr_int(Module *m, int64_t n);
ExprId ir_expr_sym(Module *m, const char *name);
ExprId ir_expr_bin(Module *m, ExprKind k, ExprId a, ExprId b);
const Expr *ir_exprp(const Module *m, ExprId e);
TensorId ir_tensor(Module *m, const Tensor *t); /* dims copied */
const Tensor *ir_tensorp(const Module *m, TensorId t);
uint64_t ir_numel(const Tensor *t);
/* file:line:col: error: message, then the source line and a caret */
void ir_error(Module *m, Loc loc, const char *fmt, ...);
void ir_warning(Module *m, Loc loc, const char *fmt, ...);
void ir_note(Module *m, Loc loc, const char *fmt, ...);
/* Notes that say where node p came from in the user's terms: the FX node,
 * its innermost module (path and class) and the user's source line, from
 * what the dump or archive recorded (nothing when it recorded none). */
void ir_note_origin(Module *m, const struct Node *p);
void ir_vdiag(Module *m, const char *kind, Loc loc, const char *fmt,
    va_list ap);
/* A source other than the module's: a diagnostic about a pass list, a
 * plugin, a weights file shows its name, and its text when there is one
 * (NULL: no source lines under messages). */
typedef struct DiagSrc {
	const char *file;
	const char *text;
	size_t len;
} DiagSrc;
/* the same, about src: loc is a place in src->text */
void ir_vdiag_in(Module *m, const DiagSrc *src, const char *kind, Loc loc,
    const char *fmt, va_list ap);
/* line `line` (1-based) of the source text and its length without the
 * newline; NULL when there is no such line */
const char *ir_srcline(const Module *m, uint32_t line, size_t *len);

/* graph.c: building and reading graphs */
GraphId ir_graph_new(Module *m, const char *name, GraphId parent);
Graph *ir_graph(const Module *m, GraphId g);
ValId ir_value(Graph *g, StrId name);           /* a fresh VK_UNKNOWN */
/* room for this many more nodes, values and args (a hint: tables grow) */
void ir_reserve(Graph *g, uint32_t nodes, uint32_t vals, uint32_t args);
void ir_set_tensor(Graph *g, ValId v, DType dt, int32_t rank,
    const Dim *dims);
const Dim *ir_dims(const Graph *g, ValId v);    /* NULL if rank <= 0 */
void ir_add_input(Graph *g, ValId v);
void ir_add_output(Graph *g, ValId v, OutKind k, StrId target);
/* A node with nout fresh output values.  Args are added with ir_push_arg
 * while it is the graph's last node. */
NodeId ir_node(Graph *g, Dialect d, StrId op, uint32_t nout);
void ir_push_arg(Graph *g, NodeId n, Arg a);
/* k of them at once (a not inside g's own tables) */
void ir_push_args(Graph *g, NodeId n, const Arg *a, uint32_t k);
/* positional i, else the kwarg named key; NULL if absent */
const Arg *ir_find_arg(const Module *m, const Graph *g, NodeId n, int i,
    const char *key);
/* a list Arg from n items (copied into Graph.items) */
Arg ir_list(Graph *g, ArgKind kind, const Arg *items, uint32_t n);
const Arg *ir_items(const Graph *g, const Arg *list);
/* Arg constructors */
Arg arg_none(void);
Arg arg_val(ValId v);
Arg arg_int(int64_t i);
Arg arg_float(double f);
Arg arg_bool(bool b);
Arg arg_str(StrId s);
Arg arg_keyed(Arg a, StrId key);
/* a is a capture of n (see IR_CAPTURE) */
bool ir_is_capture(const Graph *g, NodeId n, const Arg *a);
/* Every ROLE_OUTER value in the subgraphs of g's ONNX nodes (at every
 * level) takes the name of the capture it stands for, as the captures
 * are now (passes may have rewritten them); for the writers. */
void ir_name_outer(Module *m, GraphId g);
const char *ir_dtype_name(DType dt);            /* "f32" ... */
DType ir_dtype_parse(const char *code, size_t n); /* "f32" -> DT_F32 */
size_t ir_dtype_size(DType dt);                 /* bytes; 0 for sub-byte */
bool ir_dtype_is_float(DType dt);
bool ir_dtype_is_int(DType dt);                 /* integers, not bool */

/* expr.c: sympy-style expression text <-> Expr */
/* parse s[0..n) into *out; on error returns -1 and sets *errpos */
int ir_expr_parse(Module *m, const char *s, size_t n, ExprId *out,
    size_t *errpos);
/* NULL when e can be a value, else why not ("division by zero",
 * "integer overflow", "exponent too large..."), with *bad (may be NULL)
 * the impossible subexpression: for every frontend to call on the
 * expressions it reads */
const char *ir_expr_check(const Module *m, ExprId e, ExprId *bad);
/* print as PyTorch does ("s0", "2*s0", "s0 + 1"); returns chars written
 * (like snprintf) */
int ir_expr_print(const Module *m, ExprId e, char *buf, size_t cap);
/* a Dim as text (number or expression), into the arena */
const char *ir_dim_text(Module *m, Dim d);

/* print.c: the IR as text (--print-ir) */
void ir_print(Module *m, GraphId g, FILE *f);

/* verify.c: structural invariants; reports each broken one as an error.
 * Descends into the subgraphs of the graph's nodes. */
int ir_verify(Module *m, GraphId g);

/* normalize.c: after a pass edited graph g, erased nodes (op 0) dropped
 * and the rest in an order where every use follows its definition -- the
 * old order where it already does, a node made by the pass (NodeId >=
 * base) right before its first user, or at the end when unused.  -1
 * (reported, naming who) if a value is used after its node was erased,
 * or nodes form a cycle. */
int ir_normalize(Module *m, GraphId g, uint32_t base, const char *who);

/* sym.c: symbolic algebra on Exprs (a canonical sum-of-products form with
 * integer coefficients, printed as sympy prints it), evaluation under
 * bindings, substitution, bounds; sym_range.c: the range/equality
 * constraint tables */
#define SYM_INF INT64_MAX   /* int_oo: an unbounded side of a range */
#define SYM_NINF INT64_MIN  /* -int_oo */
typedef struct SymRange {
	ExprId e;         /* a symbol or an expression over symbols */
	int64_t lo, hi;   /* inclusive; SYM_NINF / SYM_INF when unbounded */
} SymRange;
/* dim adim of input a always equals dim bdim of input b */
typedef struct SymEq {
	StrId a, b;
	int64_t adim, bdim;
} SymEq;
typedef struct SymBind {
	ExprId sym;       /* an E_SYM */
	int64_t n;
} SymBind;
/* the canonical form of e (equal values of e give equal ExprIds as far as
 * the normal form can tell); expressions it cannot normalise are kept with
 * their operands simplified */
ExprId sym_simplify(Module *m, ExprId e);
/* canonical text, as PyTorch prints it ("2*s0", "s0 + 1", "5 - s0") */
int sym_print(Module *m, ExprId e, char *buf, size_t cap);
/* sym_print at buf[len] as str_addf appends: never past cap, returns the
 * whole text's length */
size_t sym_add(Module *m, ExprId e, char *buf, size_t cap, size_t len);
const char *sym_text(Module *m, ExprId e);      /* same, into the arena */
/* the integer value of e; -1 when a symbol is unbound, a division is by
 * zero, it overflows or it is not an integer expression */
int sym_eval(const Module *m, ExprId e, const SymBind *b, uint32_t nb,
    int64_t *out);
/* e with every occurrence of symbol sym replaced by by, simplified */
ExprId sym_subst(Module *m, ExprId e, ExprId sym, ExprId by);
bool sym_mentions(const Module *m, ExprId e, ExprId sym);
/* bounds of e that the range table proves (SYM_NINF/SYM_INF if none) */
void sym_bounds(Module *m, ExprId e, int64_t *lo, int64_t *hi);
/* sym_range.c: ranges: set replaces an existing entry for the same expression; both
 * go through a hash index (O(1)), which whoever writes m->rng directly
 * rebuilds with sym_range_reindex */
void sym_range_set(Module *m, ExprId e, int64_t lo, int64_t hi);
const SymRange *sym_range_find(const Module *m, ExprId e);
void sym_range_reindex(Module *m);
/* "{s0: VR[2, int_oo], ...}" in any layout PyTorch printed (VR[..],
 * RangeConstraint(min_val=, max_val=), ValueRanges(lower=, upper=)) into
 * the table; -1 with *errpos on malformed text */
int sym_parse_ranges(Module *m, const char *s, size_t n, size_t *errpos);
/* NULL when every range of the table can hold, else why not, with *bad
 * its expression (ir_expr_check on each, and lo <= hi) */
const char *sym_check_ranges(const Module *m, ExprId *bad);
/* the table as the reference exporter's metadata text:
 * "{s0: VR[2, int_oo], 2*s0: VR[4, int_oo]}" (str() of the dict) */
const char *sym_ranges_text(Module *m);
void sym_eq_add(Module *m, SymEq eq);

/* ops.c: the op table (ops.def), one row per known overload */
typedef struct IrOp {
	const char *op;       /* "aten::add.Tensor" */
	const char *family;   /* its lowering family, "none" without one */
	const char *rule;     /* the rule's name in lower_<family>.c */
	const char *schema;   /* parameters (ops.def), NULL: not checked */
	const char *inplace;  /* "aten::add_.Tensor", NULL: none */
	const char *out;      /* "aten::add.out", NULL: none */
	bool decompose;       /* the decompose pass has a rewrite for it */
} IrOp;
extern const IrOp ir_ops[];
extern const uint32_t ir_nops;
/* the row of op, NULL if none; linear: for diagnostics and tables, not
 * per node */
const IrOp *ir_op_find(const char *op);
/* the row whose in-place variant op is ("aten::add_.Tensor" gives
 * aten::add.Tensor's), NULL if none */
const IrOp *ir_op_of_inplace(const char *op);

/* Accessors, inline: passes and backends call them for every node, value
 * and argument.  A bad handle is a BUG, as everywhere. */
static inline const char *
ir_str(const Module *m, StrId s)
{
	if (s >= m->nstrs)
		BUG("bad StrId %u", s);
	return m->strs[s];
}

/* its length, kept beside its hash: no strlen */
static inline uint32_t
ir_strlen(const Module *m, StrId s)
{
	if (s >= m->nstrs)
		BUG("bad StrId %u", s);
	return (uint32_t)m->strkey[s];
}

static inline Value *
ir_val(const Graph *g, ValId v)
{
	if (v == 0 || v >= g->nvals)
		BUG("bad ValId %u", v);
	return &g->vals[v];
}

static inline Node *
ir_nodep(const Graph *g, NodeId n)
{
	if (n == 0 || n >= g->nnodes)
		BUG("bad NodeId %u", n);
	return &g->nodes[n];
}

/* argument i (< nargs) of node n */
static inline const Arg *
ir_arg(const Graph *g, NodeId n, uint32_t i)
{
	const Node *p = ir_nodep(g, n);
	if (i >= p->nargs)
		BUG("arg %u of node %u out of range", i, n);
	return &g->args[p->args + i];
}

/* the count of node n's positional args (they come first) */
static inline uint32_t
ir_npos(const Graph *g, NodeId n)
{
	const Node *p = ir_nodep(g, n);
	uint32_t i = 0;
	while (i < p->nargs && g->args[p->args + i].key == 0)
		i++;
	return i;
}

#endif
