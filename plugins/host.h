/* host.h - private to plugins/: what the files of the host function table
 * (host.c, host_edit.c, host_lower.c, registry.c) share.  Nothing outside
 * plugins/ includes it; the rest of onnxc sees pl.h. */
#ifndef ONNXC_HOST_H
#define ONNXC_HOST_H

#include "pl.h"

enum {
	MAXRANK = 1024,      /* value_set_type, tensors */
	MAXOUT = 4096,       /* outputs of one node */
	MAXDEPTH = 64,       /* nested lists, as ir_verify allows */
	MAXNAME = 4096       /* names of ops, values, options */
};

/* host.c: handle checks, arguments across the ABI, use counts */
Graph *pl_graph_of(onnxc_ctx *c, onnxc_graph g);
bool pl_live(const Graph *g, onnxc_node n);
bool pl_okval(const Graph *g, onnxc_value v);
bool pl_okexpr(const Module *m, onnxc_expr e);
bool pl_okname(const char *s);
Graph *pl_mutable(onnxc_ctx *c, onnxc_graph g);
void pl_to_plugin(const Arg *a, onnxc_arg *o);
bool pl_from_plugin(const Module *m, const Graph *g, const onnxc_arg *o,
    Arg *a);
uint32_t *pl_uses(onnxc_ctx *c, GraphId gid, bool build);
void pl_bump(onnxc_ctx *c, GraphId gid, const Arg *a, int delta);
void pl_append_arg(Graph *g, NodeId n, Arg a);
/* file: shown instead of the module's (a plugin's path while it
 * initialises), or NULL */
void pl_diag(Module *m, const char *file, const char *kind, Loc loc,
    const char *fmt, ...);
/* host_edit.c */
/* the items as Args in *out, scratch memory (m->scratch: the caller
 * marks and releases); ONNXC_INVALID or ONNXC_NOMEM */
onnxc_status pl_list_items(onnxc_ctx *c, Graph *G, uint32_t kind,
    const onnxc_arg *items, uint32_t n, Arg **out);
bool pl_tensor_size(uint32_t dtype, int32_t rank, const int64_t *dims,
    uint64_t *nb);

/* The host functions of the table (host.c) that other files define. */
onnxc_node h_node_new(onnxc_ctx *c, onnxc_graph g, uint32_t dialect,
    const char *domain, const char *op, uint32_t nout);
onnxc_status h_node_push_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n,
    const onnxc_arg *a);
onnxc_status h_node_set_arg(onnxc_ctx *c, onnxc_graph g, onnxc_node n,
    uint32_t i, const onnxc_arg *a);
onnxc_status h_make_list(onnxc_ctx *c, onnxc_graph g, uint32_t kind,
    const onnxc_arg *items, uint32_t n, onnxc_arg *out);
onnxc_status h_node_erase(onnxc_ctx *c, onnxc_graph g, onnxc_node n);
onnxc_status h_replace_uses(onnxc_ctx *c, onnxc_graph g, onnxc_value from,
    onnxc_value to);
onnxc_status h_value_set_type(onnxc_ctx *c, onnxc_graph g, onnxc_value v,
    uint32_t dtype, int32_t rank, const onnxc_dim *dims);
onnxc_status h_value_set_sym(onnxc_ctx *c, onnxc_graph g, onnxc_value v,
    uint32_t kind, onnxc_expr e);
onnxc_status h_value_set_name(onnxc_ctx *c, onnxc_graph g, onnxc_value v,
    const char *name);
/* host_tensor.c */
onnxc_tensor h_tensor_make(onnxc_ctx *c, uint32_t dtype, int32_t rank,
    const int64_t *dims, int (*fill)(void *, uint64_t, uint64_t, void *),
    void *user);
onnxc_tensor h_tensor_view(onnxc_ctx *c, onnxc_tensor t, int32_t rank,
    const int64_t *dims);
void h_bytes_done(onnxc_ctx *c, const void *p, uint64_t n);
onnxc_tensor h_tensor_make_deferred(onnxc_ctx *c, uint32_t dtype,
    int32_t rank, const int64_t *dims,
    int (*fill)(void *, uint64_t, uint64_t, void *), const void *user,
    uint64_t user_size);
onnxc_tensor h_tensor_new(onnxc_ctx *c, uint32_t dtype, int32_t rank,
    const int64_t *dims, const void *data);
onnxc_value h_constant_input(onnxc_ctx *c, onnxc_graph g, const char *name,
    onnxc_tensor t);
onnxc_expr h_expr_int(onnxc_ctx *c, int64_t n);
onnxc_expr h_expr_sym(onnxc_ctx *c, const char *name);
onnxc_expr h_expr_op(onnxc_ctx *c, uint32_t kind, onnxc_expr a, onnxc_expr b);
onnxc_status h_expr_get(onnxc_ctx *c, onnxc_expr e, onnxc_expr_info *out);
int h_expr_print(onnxc_ctx *c, onnxc_expr e, char *buf, size_t cap);
onnxc_status h_opt_bool(onnxc_ctx *c, const char *name, int *out);
onnxc_status h_opt_int(onnxc_ctx *c, const char *name, int64_t *out);
onnxc_status h_opt_float(onnxc_ctx *c, const char *name, double *out);
onnxc_status h_opt_string(onnxc_ctx *c, const char *name, const char **out);
onnxc_status h_register_pass(onnxc_registry *r, const onnxc_pass_info *pass);
onnxc_status h_register_lowering(onnxc_registry *r,
    const onnxc_lowering_info *lw);
int h_has_lowering(onnxc_ctx *c, const char *op);
onnxc_node h_lower_node(onnxc_ctx *c);
onnxc_graph h_lower_graph(onnxc_ctx *c);
onnxc_status h_lower_input(onnxc_ctx *c, int pos, const char *key,
    onnxc_value *out);
onnxc_node h_lower_emit(onnxc_ctx *c, const char *domain, const char *op,
    uint32_t nin, const onnxc_value *in, uint32_t nout);
onnxc_status h_lower_attr(onnxc_ctx *c, onnxc_node n, const char *name,
    const onnxc_arg *value);
onnxc_status h_lower_set_dtype(onnxc_ctx *c, onnxc_value v, uint32_t dtype);
onnxc_value h_lower_const(onnxc_ctx *c, uint32_t dtype, int32_t rank,
    const int64_t *dims, const void *data);
onnxc_status h_lower_bind(onnxc_ctx *c, uint32_t k, onnxc_value v);
onnxc_status h_lower_list(onnxc_ctx *c, uint32_t kind, const onnxc_arg *items,
    uint32_t n, onnxc_arg *out);
onnxc_expr h_expr_simplify(onnxc_ctx *c, onnxc_expr e);
onnxc_status h_expr_eval(onnxc_ctx *c, onnxc_expr e, const onnxc_expr *syms,
    const int64_t *vals, uint32_t n, int64_t *out);
onnxc_expr h_expr_subst(onnxc_ctx *c, onnxc_expr e, onnxc_expr sym,
    onnxc_expr repl);
int h_expr_mentions(onnxc_ctx *c, onnxc_expr e, onnxc_expr sub);
uint32_t h_range_count(onnxc_ctx *c);
onnxc_status h_range_get(onnxc_ctx *c, uint32_t i, onnxc_expr *e, int64_t *lo,
    int64_t *hi);
onnxc_status h_range_set(onnxc_ctx *c, uint32_t i, onnxc_expr e, int64_t lo,
    int64_t hi);
onnxc_status h_range_erase(onnxc_ctx *c, uint32_t i);
onnxc_status h_node_set_origin(onnxc_ctx *c, onnxc_graph g, onnxc_node n,
    onnxc_node from);
onnxc_status h_node_set_name(onnxc_ctx *c, onnxc_graph g, onnxc_node n,
    const char *name);
onnxc_status h_output_set(onnxc_ctx *c, onnxc_graph g, uint32_t i,
    onnxc_value v);
onnxc_status h_input_erase(onnxc_ctx *c, onnxc_graph g, onnxc_value v);
/* host_graph.c: ABI 1.4 */
onnxc_graph h_graph_new(onnxc_ctx *c, const char *name, onnxc_graph parent);
onnxc_graph h_graph_parent(onnxc_ctx *c, onnxc_graph g);
onnxc_graph h_graph_parse(onnxc_ctx *c, const char *name, const char *text,
    size_t len);
onnxc_value h_input_add(onnxc_ctx *c, onnxc_graph g, const char *name,
    uint32_t role, uint32_t index);
onnxc_status h_output_add(onnxc_ctx *c, onnxc_graph g, onnxc_value v,
    uint32_t kind, onnxc_str target);
onnxc_status h_output_kind(onnxc_ctx *c, onnxc_graph g, uint32_t i,
    uint32_t *kind, onnxc_str *target);
onnxc_status h_output_set_kind(onnxc_ctx *c, onnxc_graph g, uint32_t i,
    uint32_t kind, onnxc_str target);
/* host_graph.c: ABI 1.5 */
uint32_t h_graph_ops(onnxc_ctx *c, onnxc_graph g, onnxc_str *ops,
    uint32_t cap);

#endif
