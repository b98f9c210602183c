/* onnxc/plugin.h - the onnxc plugin ABI.
 *
 * A plugin is a shared object exporting one const descriptor,
 * onnxc_plugin (see ONNXC_PLUGIN below).  The host reads the descriptor's
 * ABI numbers before running any plugin code, then calls init with a table
 * of host functions; init registers passes and lowerings.  The plugin
 * reaches the host only through that table: it links nothing from onnxc.
 *
 * IR entities are 32-bit handles (0 = none), never pointers into the host.
 * Strings and data the host returns are borrowed until the pass returns.
 * Plugins report through host->report and return a status; they never
 * exit, abort or longjmp, and never print to stdout.
 *
 * Self-contained C99: include only this header.
 */
#ifndef ONNXC_PLUGIN_H
#define ONNXC_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Major: bumped on any incompatible change.  Minor: bumped when members
 * are appended to the host table or to a descriptor. */
#define ONNXC_PLUGIN_ABI_MAJOR 1
#define ONNXC_PLUGIN_ABI_MINOR 8

/* ------------------------------------------------------------ status */

typedef enum onnxc_status {
	ONNXC_OK = 0,
	ONNXC_ERROR = 1,    /* failed; the details were reported */
	ONNXC_DECLINE = 2,  /* a lowering leaves the node to the next one */
	ONNXC_INVALID = 3,  /* a bad handle or argument */
	ONNXC_NOMEM = 4,
	ONNXC_VERSION = 5   /* ABI mismatch */
} onnxc_status;

/* ----------------------------------------------------------- handles */

typedef struct onnxc_ctx onnxc_ctx;           /* one compilation */
typedef struct onnxc_registry onnxc_registry; /* where init registers */
typedef uint32_t onnxc_graph;
typedef uint32_t onnxc_node;   /* 1 .. node_end-1 in program order */
typedef uint32_t onnxc_value;
typedef uint32_t onnxc_expr;   /* symbolic expression (hash-consed) */
typedef uint32_t onnxc_str;    /* interned string */
typedef uint32_t onnxc_tensor; /* constant tensor */

/* --------------------------------------------------- enumerations */

/* Element types: ONNX TensorProto.DataType numbers. */
enum {
	ONNXC_DT_UNDEF = 0, ONNXC_DT_F32 = 1, ONNXC_DT_U8 = 2, ONNXC_DT_I8 = 3,
	ONNXC_DT_U16 = 4, ONNXC_DT_I16 = 5, ONNXC_DT_I32 = 6, ONNXC_DT_I64 = 7,
	ONNXC_DT_STRING = 8, ONNXC_DT_BOOL = 9, ONNXC_DT_F16 = 10,
	ONNXC_DT_F64 = 11, ONNXC_DT_U32 = 12, ONNXC_DT_U64 = 13,
	ONNXC_DT_BF16 = 16
};

/* Node dialects: FX nodes as parsed ("aten::add.Tensor",
 * "mylib::foo.default", "_operator::mul") or ONNX nodes (op type + domain). */
enum { ONNXC_FX = 0, ONNXC_ONNX = 1 };

/* What a value is. */
enum {
	ONNXC_VK_UNKNOWN = 0, ONNXC_VK_TENSOR = 1, ONNXC_VK_SYMINT = 2,
	ONNXC_VK_SYMFLOAT = 3, ONNXC_VK_SYMBOOL = 4, ONNXC_VK_CONST = 5,
	ONNXC_VK_OBJ = 6
};

/* Roles of graph inputs (graph signature). */
enum {
	ONNXC_ROLE_NONE = 0, ONNXC_ROLE_USER_INPUT = 1, ONNXC_ROLE_PARAM = 2,
	ONNXC_ROLE_BUFFER = 3, ONNXC_ROLE_CONST = 4, ONNXC_ROLE_CUSTOM_OBJ = 5,
	ONNXC_ROLE_TOKEN = 6,
	ONNXC_ROLE_OUTER = 7 /* in a subgraph: a value of the enclosing graph */
};

/* What a graph output is (graph signature); ABI 1.4. */
enum {
	ONNXC_OUT_USER = 0, ONNXC_OUT_LOSS = 1, ONNXC_OUT_BUFFER_MUTATION = 2,
	ONNXC_OUT_USER_INPUT_MUTATION = 3, ONNXC_OUT_GRAD_PARAM = 4,
	ONNXC_OUT_GRAD_INPUT = 5, ONNXC_OUT_TOKEN = 6,
	ONNXC_OUT_PARAM_MUTATION = 7
};

/* Properties of the graph a pipeline works on, for pass contracts
 * (onnxc_pass_info.needs/provides/breaks); ABI 1.4. */
enum {
	ONNXC_PROP_FX = 1u << 0,         /* "fx": FX nodes, before lowering */
	ONNXC_PROP_ONNX = 1u << 1,       /* "onnx": ONNX nodes, lowered */
	ONNXC_PROP_FUNCTIONAL = 1u << 2, /* "functional": no in-place ops */
	ONNXC_PROP_NO_HOP = 1u << 3,     /* "no-hop": no higher-order op
	                                  * wrapping a body to inline */
	ONNXC_PROP_SYMBOLIZED = 1u << 4, /* "symbolized": dims as the
	                                  * --dynamic options want them */
	ONNXC_PROP_ALL = (1u << 5) - 1
};

/* Argument kinds. */
enum {
	ONNXC_ARG_NONE = 0,   /* None / missing optional ONNX input */
	ONNXC_ARG_VALUE = 1,  /* ref: a value */
	ONNXC_ARG_INT = 2,    /* i */
	ONNXC_ARG_FLOAT = 3,  /* f */
	ONNXC_ARG_BOOL = 4,   /* i: 0 or 1 */
	ONNXC_ARG_STR = 5,    /* ref: string */
	ONNXC_ARG_DTYPE = 6,  /* i: element type */
	ONNXC_ARG_LIST = 7,   /* len items: read with list_item */
	ONNXC_ARG_TUPLE = 8,
	ONNXC_ARG_DEVICE = 9, /* ref: string "cpu" */
	ONNXC_ARG_LAYOUT = 10,
	ONNXC_ARG_MEMFMT = 11,
	ONNXC_ARG_GRAPH = 12, /* ref: a graph */
	ONNXC_ARG_OP = 13,    /* ref: string naming an op */
	ONNXC_ARG_TENSOR = 14 /* ref: a constant tensor */
};

/* Symbolic expression kinds. */
enum {
	ONNXC_E_INT = 0, ONNXC_E_FLOAT, ONNXC_E_SYM, ONNXC_E_ADD, ONNXC_E_MUL,
	ONNXC_E_FLOORDIV, ONNXC_E_MOD, ONNXC_E_POW, ONNXC_E_NEG, ONNXC_E_MAX,
	ONNXC_E_MIN, ONNXC_E_TRUEDIV, ONNXC_E_TOFLOAT, ONNXC_E_EQ, ONNXC_E_NE,
	ONNXC_E_LT, ONNXC_E_LE, ONNXC_E_GT, ONNXC_E_GE, ONNXC_E_AND, ONNXC_E_OR,
	ONNXC_E_NOT, ONNXC_E_CALL
};

/* Diagnostic severities. */
enum { ONNXC_SEV_ERROR = 0, ONNXC_SEV_WARNING = 1, ONNXC_SEV_NOTE = 2 };

/* ------------------------------------------------ plain-data records
 * Filled by the host; copies, not views into its tables. */

typedef struct onnxc_arg {
	uint32_t kind;  /* ONNXC_ARG_* */
	onnxc_str key;  /* kwarg / attribute name; 0 for positional */
	int64_t i;
	double f;
	uint32_t ref;   /* value, string, graph or tensor handle, by kind */
	uint32_t len;   /* lists: number of items */
	uint32_t list;  /* lists: the host's list handle */
} onnxc_arg;

typedef struct onnxc_dim {
	int64_t n;      /* the size when e == 0 */
	onnxc_expr e;   /* else the symbolic size */
} onnxc_dim;

typedef struct onnxc_node_info {
	onnxc_str op;
	onnxc_str domain;    /* ONNX nodes: "" is ai.onnx */
	uint32_t dialect;    /* ONNXC_FX or ONNXC_ONNX */
	uint32_t nargs;      /* positional first, then keyed */
	uint32_t npos;
	onnxc_value out;     /* outputs are out .. out+nout-1 */
	uint32_t nout;
	uint32_t line, col;  /* where the dump wrote it; 0 if unknown */
	onnxc_str name;      /* the FX node name */
} onnxc_node_info;

typedef struct onnxc_value_info {
	onnxc_str name;
	uint32_t kind;       /* ONNXC_VK_* */
	uint32_t dtype;      /* ONNXC_DT_* for tensors */
	int32_t rank;        /* -1: unknown */
	uint32_t role;       /* graph inputs: ONNXC_ROLE_* */
	onnxc_node def;      /* 0 for graph inputs */
	uint32_t defidx;
	onnxc_expr sym;      /* Sym values: the expression they equal */
	onnxc_str target;    /* signature target of a parameter/buffer */
	onnxc_tensor init;   /* bound weight bytes, if any */
} onnxc_value_info;

typedef struct onnxc_expr_info {
	uint32_t kind;       /* ONNXC_E_* */
	onnxc_str str;       /* symbol or function name */
	onnxc_expr a, b;
	int64_t n;
	double f;
} onnxc_expr_info;

typedef struct onnxc_tensor_info {
	onnxc_str name;
	uint32_t dtype;
	int32_t rank;
	const int64_t *dims;
	const void *data;    /* read-only, borrowed */
	uint64_t nbytes;
} onnxc_tensor_info;

/* ------------------------------------------------------ descriptors */

typedef struct onnxc_host_api onnxc_host_api;

enum { ONNXC_OPT_BOOL = 0, ONNXC_OPT_INT = 1, ONNXC_OPT_FLOAT = 2,
	ONNXC_OPT_STRING = 3 };

/* An option a pass takes in pipeline text: name{key=value}. */
typedef struct onnxc_option {
	const char *name;
	uint32_t type;       /* ONNXC_OPT_* */
	const char *dflt;    /* default, as text ("1024", "true", "") */
	const char *help;
} onnxc_option;

typedef struct onnxc_pass_info {
	size_t size;         /* sizeof(onnxc_pass_info) */
	const char *name;    /* kebab-case, as in --passes */
	const char *summary; /* one line */
	const onnxc_option *options;
	uint32_t noptions;
	/* runs on host->graph(ctx); options via host->opt_* */
	onnxc_status (*run)(onnxc_ctx *ctx, const onnxc_host_api *host,
	    void *user);
	void *user;
	/* ---- ABI 1.4: the contract, in ONNXC_PROP_* bits.  The pipeline
	 * refuses to run the pass where a property it needs does not hold.
	 * A pass registered with a smaller size has no contract: it is not
	 * checked, and is taken to keep every property. */
	uint32_t needs;      /* must hold before it runs */
	uint32_t provides;   /* hold after it */
	uint32_t breaks;     /* may not hold after it (unless provided) */
} onnxc_pass_info;

typedef struct onnxc_lowering_info {
	size_t size;         /* sizeof(onnxc_lowering_info) */
	const char *target;  /* FX op it lowers: "mylib::rms_norm.default" */
	const char *domain;  /* ONNX domain it emits ("" for ai.onnx) */
	int opset_min, opset_max; /* default-domain opsets it supports */
	/* reads the node with node_get/lower_input, emits with lower_emit,
	 * binds outputs with lower_bind; ONNXC_DECLINE hands the node on */
	onnxc_status (*lower)(onnxc_ctx *ctx, const onnxc_host_api *host,
	    void *user);
	void *user;
} onnxc_lowering_info;

typedef struct onnxc_plugin_info {
	uint16_t abi_major;  /* ONNXC_PLUGIN_ABI_MAJOR when built */
	uint16_t abi_minor;
	const char *name;
	const char *version;
	/* registers passes and lowerings; ctx is for reports */
	onnxc_status (*init)(onnxc_ctx *ctx, const onnxc_host_api *host,
	    onnxc_registry *reg);
	void (*fini)(void);  /* optional: release plugin-private state */
} onnxc_plugin_info;

/* ------------------------------------------------- the host's table
 * Append-only: new members go at the end and bump the minor version.
 * Test for a member with ONNXC_HOST_HAS(host, member). */
struct onnxc_host_api {
	size_t size;
	uint16_t abi_major, abi_minor;

	/* diagnostics: located at node n of graph g when n != 0 */
	void (*report)(onnxc_ctx *ctx, int severity, onnxc_graph g,
	    onnxc_node n, const char *fmt, ...);

	/* memory and strings: arena memory lives as long as the compilation */
	void *(*alloc)(onnxc_ctx *ctx, size_t n);
	onnxc_str (*intern)(onnxc_ctx *ctx, const char *s);
	const char *(*str)(onnxc_ctx *ctx, onnxc_str s);

	/* reading the IR */
	onnxc_graph (*graph)(onnxc_ctx *ctx);   /* the graph being worked on */
	int (*opset)(onnxc_ctx *ctx);           /* target default-domain opset */
	int (*training)(onnxc_ctx *ctx);        /* --training given */
	uint32_t (*node_end)(onnxc_ctx *ctx, onnxc_graph g);
	onnxc_status (*node_get)(onnxc_ctx *ctx, onnxc_graph g, onnxc_node n,
	    onnxc_node_info *out);           /* ONNXC_INVALID if erased */
	onnxc_status (*node_arg)(onnxc_ctx *ctx, onnxc_graph g, onnxc_node n,
	    uint32_t i, onnxc_arg *out);
	/* positional pos, else keyword key; ONNXC_INVALID when absent */
	onnxc_status (*node_find_arg)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_node n, int pos, const char *key, onnxc_arg *out);
	onnxc_status (*list_item)(onnxc_ctx *ctx, onnxc_graph g,
	    const onnxc_arg *list, uint32_t i, onnxc_arg *out);
	uint32_t (*value_end)(onnxc_ctx *ctx, onnxc_graph g);
	onnxc_status (*value_get)(onnxc_ctx *ctx, onnxc_graph g, onnxc_value v,
	    onnxc_value_info *out);
	/* copies min(rank, cap) dims */
	onnxc_status (*value_dims)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_value v, onnxc_dim *out, uint32_t cap);
	uint32_t (*input_count)(onnxc_ctx *ctx, onnxc_graph g);
	onnxc_value (*input_at)(onnxc_ctx *ctx, onnxc_graph g, uint32_t i);
	uint32_t (*output_count)(onnxc_ctx *ctx, onnxc_graph g);
	onnxc_value (*output_at)(onnxc_ctx *ctx, onnxc_graph g, uint32_t i);
	onnxc_status (*tensor_get)(onnxc_ctx *ctx, onnxc_tensor t,
	    onnxc_tensor_info *out);
	/* number of uses of v (args, list items, graph outputs).  From ABI
	 * 1.5 on, a pass may count on it costing O(1): counted once per
	 * graph, kept up to date by the pass's changes (not in a lowering) */
	uint32_t (*value_uses)(onnxc_ctx *ctx, onnxc_graph g, onnxc_value v);

	/* changing the IR.  New nodes are appended; after the pass the host
	 * puts nodes back in an order where every use follows its definition
	 * (keeping the old order otherwise) and drops erased nodes. */
	onnxc_node (*node_new)(onnxc_ctx *ctx, onnxc_graph g, uint32_t dialect,
	    const char *domain, const char *op, uint32_t nout);
	/* adds an argument to the node made last by node_new */
	onnxc_status (*node_push_arg)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_node n, const onnxc_arg *a);
	onnxc_status (*node_set_arg)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_node n, uint32_t i, const onnxc_arg *a);
	/* a list argument holding n items (copied) */
	onnxc_status (*make_list)(onnxc_ctx *ctx, onnxc_graph g, uint32_t kind,
	    const onnxc_arg *items, uint32_t n, onnxc_arg *out);
	onnxc_status (*node_erase)(onnxc_ctx *ctx, onnxc_graph g, onnxc_node n);
	/* every use of from (args, list items, graph outputs) becomes to */
	onnxc_status (*replace_uses)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_value from, onnxc_value to);
	onnxc_status (*value_set_type)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_value v, uint32_t dtype, int32_t rank, const onnxc_dim *dims);
	/* a Sym value (kind ONNXC_VK_SYMINT/FLOAT/BOOL) equal to e */
	onnxc_status (*value_set_sym)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_value v, uint32_t kind, onnxc_expr e);
	onnxc_status (*value_set_name)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_value v, const char *name);
	/* a constant tensor (data copied into the arena) */
	onnxc_tensor (*tensor_new)(onnxc_ctx *ctx, uint32_t dtype, int32_t rank,
	    const int64_t *dims, const void *data);
	/* a new graph input of role ONNXC_ROLE_CONST holding t (an
	 * initializer once lowered), appended after the existing ones */
	onnxc_value (*constant_input)(onnxc_ctx *ctx, onnxc_graph g,
	    const char *name, onnxc_tensor t);

	/* symbolic expressions */
	onnxc_expr (*expr_int)(onnxc_ctx *ctx, int64_t n);
	onnxc_expr (*expr_sym)(onnxc_ctx *ctx, const char *name);
	onnxc_expr (*expr_op)(onnxc_ctx *ctx, uint32_t kind, onnxc_expr a,
	    onnxc_expr b);
	onnxc_status (*expr_get)(onnxc_ctx *ctx, onnxc_expr e,
	    onnxc_expr_info *out);
	/* as PyTorch prints it; returns the length like snprintf */
	int (*expr_print)(onnxc_ctx *ctx, onnxc_expr e, char *buf, size_t cap);

	/* pass options, parsed and checked by the host from pipeline text */
	onnxc_status (*opt_bool)(onnxc_ctx *ctx, const char *name, int *out);
	onnxc_status (*opt_int)(onnxc_ctx *ctx, const char *name, int64_t *out);
	onnxc_status (*opt_float)(onnxc_ctx *ctx, const char *name,
	    double *out);
	onnxc_status (*opt_string)(onnxc_ctx *ctx, const char *name,
	    const char **out);

	/* registration, during init */
	onnxc_status (*register_pass)(onnxc_registry *reg,
	    const onnxc_pass_info *pass);
	onnxc_status (*register_lowering)(onnxc_registry *reg,
	    const onnxc_lowering_info *lowering);
	/* whether some lowering handles FX op `op` at the target opset */
	int (*has_lowering)(onnxc_ctx *ctx, const char *op);

	/* lowering, inside onnxc_lowering_info.lower: host->graph(ctx) is the
	 * FX graph and lower_node(ctx) the node; emitted nodes go to the
	 * ONNX graph lower_graph(ctx) */
	onnxc_node (*lower_node)(onnxc_ctx *ctx);
	onnxc_graph (*lower_graph)(onnxc_ctx *ctx);
	/* the ONNX value for FX argument pos/key (a tensor or SymInt) */
	onnxc_status (*lower_input)(onnxc_ctx *ctx, int pos, const char *key,
	    onnxc_value *out);
	onnxc_node (*lower_emit)(onnxc_ctx *ctx, const char *domain,
	    const char *op, uint32_t nin, const onnxc_value *in, uint32_t nout);
	/* an attribute of an emitted node: INT, FLOAT, STR, LIST of
	 * ints/floats, TENSOR, GRAPH */
	onnxc_status (*lower_attr)(onnxc_ctx *ctx, onnxc_node n,
	    const char *name, const onnxc_arg *value);
	onnxc_status (*lower_set_dtype)(onnxc_ctx *ctx, onnxc_value v,
	    uint32_t dtype);
	onnxc_value (*lower_const)(onnxc_ctx *ctx, uint32_t dtype, int32_t rank,
	    const int64_t *dims, const void *data);
	/* FX output k of the node is computed by ONNX value v */
	onnxc_status (*lower_bind)(onnxc_ctx *ctx, uint32_t k, onnxc_value v);
	/* a list attribute of n ints or n floats for lower_attr; kind is the
	 * list's kind, ONNXC_ARG_LIST (the items say what they hold) */
	onnxc_status (*lower_list)(onnxc_ctx *ctx, uint32_t kind,
	    const onnxc_arg *items, uint32_t n, onnxc_arg *out);

	/* ---- ABI 1.1: symbolic algebra and the range constraints ---- */
	/* the canonical form of e: a sum of products printed as PyTorch
	 * prints it (expr_print), equal for equal values as far as the form
	 * can tell; parts it cannot normalise keep their shape */
	onnxc_expr (*expr_simplify)(onnxc_ctx *ctx, onnxc_expr e);
	/* the integer value of e when symbol syms[i] is vals[i]; ONNXC_ERROR
	 * (nothing reported) when a symbol is unbound, a division is by
	 * zero, it overflows or e is not an integer expression */
	onnxc_status (*expr_eval)(onnxc_ctx *ctx, onnxc_expr e,
	    const onnxc_expr *syms, const int64_t *vals, uint32_t n,
	    int64_t *out);
	/* e with every occurrence of symbol sym replaced by repl, simplified
	 * (e itself when sym does not occur) */
	onnxc_expr (*expr_subst)(onnxc_ctx *ctx, onnxc_expr e, onnxc_expr sym,
	    onnxc_expr repl);
	/* whether sub occurs in e */
	int (*expr_mentions)(onnxc_ctx *ctx, onnxc_expr e, onnxc_expr sub);
	/* The range constraints of the program (torch.export's
	 * range_constraints, written to the model's metadata in this order):
	 * entry i bounds expression e to [lo, hi], with INT64_MIN / INT64_MAX
	 * for an unbounded side (-int_oo / int_oo). */
	uint32_t (*range_count)(onnxc_ctx *ctx);
	onnxc_status (*range_get)(onnxc_ctx *ctx, uint32_t i, onnxc_expr *e,
	    int64_t *lo, int64_t *hi);
	/* entry i becomes e: [lo, hi] (lo <= hi); i == range_count adds e's
	 * entry, or updates it when e has one.  Inside a pass only. */
	onnxc_status (*range_set)(onnxc_ctx *ctx, uint32_t i, onnxc_expr e,
	    int64_t lo, int64_t hi);
	/* drops entry i; the ones after it move up */
	onnxc_status (*range_erase)(onnxc_ctx *ctx, uint32_t i);
	/* node n (made by the pass) stands for source node from: it takes
	 * from's line, column (diagnostics), stack trace and module stack,
	 * and its FX name if n has none (provenance in the model) */
	onnxc_status (*node_set_origin)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_node n, onnxc_node from);
	/* the FX node name (node_info.name), shown as the model's node name */
	onnxc_status (*node_set_name)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_node n, const char *name);

	/* ---- ABI 1.2 ---- */
	/* graph output i becomes v (its kind and target stay); unlike
	 * replace_uses, no argument changes */
	onnxc_status (*output_set)(onnxc_ctx *ctx, onnxc_graph g, uint32_t i,
	    onnxc_value v);
	/* ---- ABI 1.3 ---- */
	/* drops graph input v, bound to bytes (an initializer) and not a
	 * user input, when nothing in g uses it; ONNXC_INVALID otherwise,
	 * and for parameters and buffers under --training */
	onnxc_status (*input_erase)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_value v);
	/* ---- ABI 1.4: graphs that nest, and outputs ---- */
	/* a new empty graph whose parent is `parent` (0: a top-level graph);
	 * a subgraph becomes a node's body through an ONNXC_ARG_GRAPH
	 * argument of a node of its parent.  Inside a pass only; 0 if
	 * parent names no graph or name is empty */
	onnxc_graph (*graph_new)(onnxc_ctx *ctx, const char *name,
	    onnxc_graph parent);
	/* the graph g is nested in; 0 for a top-level graph or a bad g */
	onnxc_graph (*graph_parent)(onnxc_ctx *ctx, onnxc_graph g);
	/* a new graph input of g named name, of role ONNXC_ROLE_* (not
	 * CONST: see constant_input), typed with value_set_type.  In a
	 * subgraph, ONNXC_ROLE_OUTER with index k stands for capture k of
	 * the node owning it (its keyed "capture" arguments, in order) and
	 * is no graph input (ONNX scoping); index is ignored for the other
	 * roles.  A body's own inputs take ONNXC_ROLE_USER_INPUT */
	onnxc_value (*input_add)(onnxc_ctx *ctx, onnxc_graph g,
	    const char *name, uint32_t role, uint32_t index);
	/* appends v as an output of g, of kind ONNXC_OUT_* with target (the
	 * mutated buffer or input, 0 for none) */
	onnxc_status (*output_add)(onnxc_ctx *ctx, onnxc_graph g,
	    onnxc_value v, uint32_t kind, onnxc_str target);
	/* the kind and target (either pointer may be NULL) of output i */
	onnxc_status (*output_kind)(onnxc_ctx *ctx, onnxc_graph g, uint32_t i,
	    uint32_t *kind, onnxc_str *target);
	onnxc_status (*output_set_kind)(onnxc_ctx *ctx, onnxc_graph g,
	    uint32_t i, uint32_t kind, onnxc_str target);
	/* ---- ABI 1.5 ---- */
	/* the distinct ops (node_info.op, either dialect) of the live nodes
	 * of g and of every body its nodes take as a graph argument, at any
	 * depth: how many there are, the first min(count, cap) of them in
	 * ops.  0 for a bad g.  One call where a pass would read every node
	 * to learn that none concerns it */
	uint32_t (*graph_ops)(onnxc_ctx *ctx, onnxc_graph g, onnxc_str *ops,
	    uint32_t cap);
	/* node_get, and node_arg of the node's first min(nargs, cap)
	 * arguments into args, in one call */
	onnxc_status (*node_read)(onnxc_ctx *ctx, onnxc_graph g, onnxc_node n,
	    onnxc_node_info *out, onnxc_arg *args, uint32_t cap);
	/* ---- ABI 1.6: weights too big to hold in memory ---- */
	/* a constant tensor made piece by piece: fill(user, first, count,
	 * out) writes elements [first, first + count) to out and returns 0
	 * (nonzero: failed, and so does tensor_make).  A big tensor goes
	 * through a bounded buffer to a scratch file the writer copies from
	 * (its bytes are mapped, as weights are), so a pass that changes a
	 * weight never holds it whole; fill may read weights through their
	 * pointers: the host lets go of the pages read after each piece.
	 * Whole-byte element types only */
	onnxc_tensor (*tensor_make)(onnxc_ctx *ctx, uint32_t dtype,
	    int32_t rank, const int64_t *dims,
	    int (*fill)(void *user, uint64_t first, uint64_t count, void *out),
	    void *user);
	/* t's bytes under another shape of as many elements (Reshape,
	 * Squeeze...): nothing is copied */
	onnxc_tensor (*tensor_view)(onnxc_ctx *ctx, onnxc_tensor t,
	    int32_t rank, const int64_t *dims);
	/* the pass has read p[0, n) of a tensor's bytes and needs them no
	 * more for now: where they are a mapped weight, the host lets their
	 * pages go (they are read again from the file when needed).  For a
	 * fill that reads across a whole weight per piece (a transpose) */
	void (*bytes_done)(onnxc_ctx *ctx, const void *p, uint64_t n);
	/* ---- ABI 1.7 ---- */
	/* tensor_make, deferred: the host keeps a copy of user[0, user_size)
	 * and calls fill on that copy only when the bytes are needed.  A big
	 * tensor is then made as the writer streams the output, a piece at a
	 * time straight into it (never into a scratch file that is then
	 * copied out), or, when something reads its bytes before (a later
	 * pass), a piece at a time into the scratch file at that moment.  So
	 * fill may use only what the copy holds and the pointers in it to
	 * tensor bytes (weights stay mapped until the output is written); it
	 * may run more than once (each write of the tensor), in element order
	 * each time, and gives the same bytes every time */
	onnxc_tensor (*tensor_make_deferred)(onnxc_ctx *ctx, uint32_t dtype,
	    int32_t rank, const int64_t *dims,
	    int (*fill)(void *user, uint64_t first, uint64_t count, void *out),
	    const void *user, uint64_t user_size);
	/* ---- ABI 1.8 ---- */
	/* text[0, len), a program as print(exported_program) writes it, read
	 * by onnxc's own dump frontend into new top-level graphs of the module
	 * (its forward and the bodies it calls): its forward, which no output
	 * of the program reaches until the pass copies its nodes.  Errors are
	 * reported as the frontend reports a dump's, under `name` (line and
	 * column in text), and 0 returned.  Inside a pass only; the program's
	 * own symbols, ranges and main graph are left as they were, so a
	 * text's symbols should be named apart from the program's (the
	 * templates pass's tpl_sN) */
	onnxc_graph (*graph_parse)(onnxc_ctx *ctx, const char *name,
	    const char *text, size_t len);
};

/* Tensors of at least this many bytes are compared by where their bytes
 * are (the same mapped range is the same tensor), not by content: reading
 * a whole weight to learn it equals another costs more than a duplicate
 * (host constant inputs, cse). */
#define ONNXC_BIG_TENSOR ((uint64_t)1 << 16)

#define ONNXC_HOST_HAS(host, member) \
	((host)->size >= offsetof(onnxc_host_api, member) + \
	    sizeof((host)->member) && (host)->member != NULL)

/* Whether no op of graph g or its bodies concerns a pass (concerns(arg,
 * op) nonzero), asked of the host in one call (graph_ops, ABI 1.5) where
 * a pass would read every node to learn it.  0 when the host cannot say
 * (an older host, more distinct ops than fit here) or an op concerns the
 * pass: then the pass walks the graph. */
static inline int
onnxc_no_op_concerns(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g,
    int (*concerns)(void *arg, onnxc_str op), void *arg)
{
	enum { ONNXC_OPS_CAP = 256 };
	onnxc_str ops[ONNXC_OPS_CAP];
	uint32_t n, i;
	if (!ONNXC_HOST_HAS(h, graph_ops))
		return 0;
	n = h->graph_ops(ctx, g, ops, ONNXC_OPS_CAP);
	if (n > ONNXC_OPS_CAP)
		return 0;
	for (i = 0; i < n; i++)
		if (concerns(arg, ops[i]))
			return 0;
	return 1;
}

/* Node n's record and its first min(nargs, cap) arguments: one host
 * call where the host has node_read (ABI 1.5), else node_get and one
 * node_arg per argument. */
static inline onnxc_status
onnxc_read_node(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g,
    onnxc_node n, onnxc_node_info *ni, onnxc_arg *args, uint32_t cap)
{
	onnxc_status s;
	uint32_t i;
	if (ONNXC_HOST_HAS(h, node_read))
		return h->node_read(ctx, g, n, ni, args, cap);
	s = h->node_get(ctx, g, n, ni);
	for (i = 0; s == ONNXC_OK && i < ni->nargs && i < cap; i++)
		s = h->node_arg(ctx, g, n, i, &args[i]);
	return s;
}

/* Argument a with each value it refers to, in lists and tuples too (to
 * depth 64), replaced by map(user, value), into *out: a list with an item
 * changed is made anew (make_list) and *changed set; other arguments are
 * copied.  What cse and fold do to every node after merging values. */
static inline onnxc_status
onnxc_arg_map(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_graph g,
    const onnxc_arg *a, onnxc_value (*map)(const void *user, onnxc_value v),
    const void *user, onnxc_arg *out, int *changed, int depth)
{
	onnxc_arg *items;
	onnxc_status s = ONNXC_OK;
	int any = 0;
	uint32_t i;
	*out = *a;
	if (a->kind == ONNXC_ARG_VALUE) {
		out->ref = map(user, a->ref);
		*changed |= out->ref != a->ref;
		return ONNXC_OK;
	}
	if ((a->kind != ONNXC_ARG_LIST && a->kind != ONNXC_ARG_TUPLE) ||
	    a->len == 0)
		return ONNXC_OK;
	if (depth > 64)
		return ONNXC_INVALID;
	items = (onnxc_arg *)calloc(a->len, sizeof *items);
	if (!items)
		return ONNXC_NOMEM;
	for (i = 0; i < a->len && s == ONNXC_OK; i++) {
		onnxc_arg it;
		s = h->list_item(ctx, g, a, i, &it);
		if (s == ONNXC_OK)
			s = onnxc_arg_map(ctx, h, g, &it, map, user, &items[i],
			    &any, depth + 1);
	}
	if (s == ONNXC_OK && any) {
		s = h->make_list(ctx, g, a->kind, items, a->len, out);
		out->key = a->key;
		*changed = 1;
	}
	free(items);
	return s;
}

/* Attribute name of node m, made by a lowering (lower_attr): an int, a
 * float, a string.  1, or 0 when the host refused it. */
static inline int
onnxc_lower_attr_i(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_node m,
    const char *name, int64_t i)
{
	onnxc_arg a;
	memset(&a, 0, sizeof a);
	a.kind = ONNXC_ARG_INT;
	a.i = i;
	return h->lower_attr(ctx, m, name, &a) == ONNXC_OK;
}

static inline int
onnxc_lower_attr_f(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_node m,
    const char *name, double f)
{
	onnxc_arg a;
	memset(&a, 0, sizeof a);
	a.kind = ONNXC_ARG_FLOAT;
	a.f = f;
	return h->lower_attr(ctx, m, name, &a) == ONNXC_OK;
}

static inline int
onnxc_lower_attr_s(onnxc_ctx *ctx, const onnxc_host_api *h, onnxc_node m,
    const char *name, const char *text)
{
	onnxc_arg a;
	memset(&a, 0, sizeof a);
	a.kind = ONNXC_ARG_STR;
	a.ref = h->intern(ctx, text);
	return h->lower_attr(ctx, m, name, &a) == ONNXC_OK;
}

/* One ONNX node op(in[0..nin)) of the default domain, made by a lowering,
 * with one output of the given dtype: that output, or 0 when the host
 * refused the node or an input is 0 (so calls may nest); the node into
 * *made when made is not NULL. */
static inline onnxc_value
onnxc_lower_op(onnxc_ctx *ctx, const onnxc_host_api *h, const char *op,
    uint32_t nin, const onnxc_value *in, uint32_t dtype, onnxc_node *made)
{
	onnxc_node_info mi;
	onnxc_node m;
	uint32_t i;
	for (i = 0; i < nin; i++)
		if (!in[i])
			return 0;
	m = h->lower_emit(ctx, "", op, nin, in, 1);
	if (!m || h->node_get(ctx, h->lower_graph(ctx), m, &mi) != ONNXC_OK ||
	    h->lower_set_dtype(ctx, mi.out, dtype) != ONNXC_OK)
		return 0;
	if (made)
		*made = m;
	return mi.out;
}

/* Registers n lowerings from init: ONNXC_OK, or the first refusal. */
static inline onnxc_status
onnxc_register_lowerings(const onnxc_host_api *h, onnxc_registry *reg,
    const onnxc_lowering_info *rules, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		onnxc_status s = h->register_lowering(reg, &rules[i]);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

/* ------------------------------------------------------------ export */

#define ONNXC_PLUGIN_SYMBOL "onnxc_plugin"

#if defined(__GNUC__)
#define ONNXC_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define ONNXC_PLUGIN_EXPORT
#endif

/* Declares the plugin's descriptor:
 *   ONNXC_PLUGIN("my-plugin", "1.0", my_init, NULL);
 * With ONNXC_PLUGIN_STATIC defined (the plugin linked into a program), the
 * symbol is onnxc_plugin_<ident> so several plugins can share a binary. */
#ifdef ONNXC_PLUGIN_STATIC
#define ONNXC_PLUGIN_NAMED(ident, name, version, init, fini) \
	const onnxc_plugin_info onnxc_plugin_##ident = { \
		ONNXC_PLUGIN_ABI_MAJOR, ONNXC_PLUGIN_ABI_MINOR, name, version, \
		init, fini}
#else
#define ONNXC_PLUGIN_NAMED(ident, name, version, init, fini) \
	ONNXC_PLUGIN_EXPORT const onnxc_plugin_info onnxc_plugin = { \
		ONNXC_PLUGIN_ABI_MAJOR, ONNXC_PLUGIN_ABI_MINOR, name, version, \
		init, fini}
#endif

#define ONNXC_PLUGIN(name, version, init, fini) \
	ONNXC_PLUGIN_NAMED(default, name, version, init, fini)

#ifdef __cplusplus
}
#endif

#endif
