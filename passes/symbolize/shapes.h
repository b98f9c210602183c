/* shapes.h - what the shape rule files (shapes*.c) share; private to
 * them. */
#ifndef ONNXC_SHAPES_H
#define ONNXC_SHAPES_H

#include "symbolize.h"

typedef Dim Out[SYM_MAXR];

typedef int (*Rule)(SymCtx *c, onnxc_node n, Out *out);

enum { MAXIN = 64 };

/* shapes.c */
bool shp_arg(SymCtx *c, onnxc_node n, int i, const char *kw, onnxc_arg *a);
bool shp_islist(const onnxc_arg *a);
/* the tensor value of an argument, 0 if it is not one */
onnxc_value shp_tensor(SymCtx *c, onnxc_node n, int i, const char *kw);
int shp_rank(SymCtx *c, onnxc_value v);
/* all dims of v (at most SYM_MAXR) */
int shp_dims(SymCtx *c, onnxc_value v, Dim *out);
Dim shp_dim(SymCtx *c, onnxc_value v, int i);
/* copies the first cnt dims of v into out */
void shp_copydims(SymCtx *c, onnxc_value v, Dim *out, int cnt);
int shp_outrank(SymCtx *c, onnxc_node n, uint32_t k);
bool shp_ival(SymCtx *c, const onnxc_arg *a, int64_t *v);
int64_t shp_iarg(SymCtx *c, onnxc_node n, int i, const char *kw, int64_t dflt);
/* an int list (or a lone int) into out; -1 when absent or not static */
int shp_ilist(SymCtx *c, const onnxc_arg *a, int64_t *out, int cap);
/* the items of list a into it (cap of them); -1 when it is not a list
 * or longer */
int shp_items(SymCtx *c, const onnxc_arg *a, onnxc_arg *it, int cap);
bool shp_isnew(SymCtx *c, Dim d);
bool shp_traced(SymCtx *c, Dim d, int64_t *v);
int shp_fail(SymCtx *c, onnxc_node n, const char *fmt, const char *what);
int shp_normdim(int64_t d, int r);
bool shp_has(const char *s, const char *part);
/* Output dim i of rank r, from the tensor inputs aligned at the right:
 * a new symbol of the same traced size wins; a fixed size other than 1
 * meeting it only works at the traced size. */
int shp_bcast_dim(SymCtx *c, onnxc_node n, const onnxc_value *in, int nin,
    int r, int i, Dim *o);
int shp_broadcast(SymCtx *c, onnxc_node n, Out *out);

/* shapes_view.c */
int shp_view(SymCtx *c, onnxc_node n, Out *out);
int shp_reshape(SymCtx *c, onnxc_node n, Out *out);
int shp_unflatten(SymCtx *c, onnxc_node n, Out *out);
/* flatten, squeeze, unsqueeze and friends: reshapes without a size list */
int shp_regroup(SymCtx *c, onnxc_node n, Out *out);
int shp_permute(SymCtx *c, onnxc_node n, Out *out);
int shp_transpose(SymCtx *c, onnxc_node n, Out *out);
int shp_expand(SymCtx *c, onnxc_node n, Out *out);
int shp_cat(SymCtx *c, onnxc_node n, Out *out);
int shp_stack(SymCtx *c, onnxc_node n, Out *out);
/* Outputs are the input with the split dim as the dump has it; splitting
 * along a new symbol into fixed pieces has no fixed answer. */
int shp_split(SymCtx *c, onnxc_node n, Out *out);

/* shapes_nn.c */
int shp_slice(SymCtx *c, onnxc_node n, Out *out);
int shp_select(SymCtx *c, onnxc_node n, Out *out);
int shp_narrow(SymCtx *c, onnxc_node n, Out *out);
int shp_index_select(SymCtx *c, onnxc_node n, Out *out);
int shp_gather(SymCtx *c, onnxc_node n, Out *out);
/* x[i0, i1, ...]: the index tensors broadcast together and replace the
 * dims they index (in place when adjacent, in front otherwise). */
int shp_index(SymCtx *c, onnxc_node n, Out *out);
int shp_embedding(SymCtx *c, onnxc_node n, Out *out);
int shp_mm(SymCtx *c, onnxc_node n, Out *out);
int shp_addmm(SymCtx *c, onnxc_node n, Out *out);
int shp_linear(SymCtx *c, onnxc_node n, Out *out);
/* q[..., L, E] with v[..., S, Ev] -> [..., L, Ev] (and logsumexp
 * [..., L] for the flash variant) */
int shp_sdpa(SymCtx *c, onnxc_node n, Out *out);
int shp_conv(SymCtx *c, onnxc_node n, Out *out);
int shp_pool(SymCtx *c, onnxc_node n, Out *out);
/* native_layer_norm: out, mean and rstd ([..., 1, 1] over the
 * normalised dims) */
int shp_layer_norm(SymCtx *c, onnxc_node n, Out *out);
int shp_reduce(SymCtx *c, onnxc_node n, Out *out);
int shp_repeat(SymCtx *c, onnxc_node n, Out *out);
int shp_pad(SymCtx *c, onnxc_node n, Out *out);
int shp_factory(SymCtx *c, onnxc_node n, Out *out);
int shp_sym_size(SymCtx *c, onnxc_node n, Out *out);
/* Python operators on SymInts: the output's expression, recomputed */
int shp_symop(SymCtx *c, onnxc_node n, Out *out);

#endif
