/* vmap.h - what vmap.c and vmap_ops.c share: the state of one sweep and
 * the helpers that batch a node. */
#ifndef ONNXC_VMAP_H
#define ONNXC_VMAP_H

#include <onnxc/plugin.h>

enum { MAXRANK = 64 };

typedef struct Vm {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	int32_t *prank;  /* value -> per-sample rank + 1 when batched, else 0 */
	uint64_t *mask;  /* value -> its levels (bit l: vmap level l) */
	uint32_t cap;
	onnxc_dim size[64];  /* each level's batch size */
	uint64_t known;      /* the levels whose size is set */
	int depth;           /* the level the innermost open vmap adds */
} Vm;

/* how many levels mask m holds */
int vm_nlev(uint64_t m);
/* room for value x in prank and mask (0: out of memory) */
int vm_track(Vm *v, onnxc_value x);
uint64_t vm_mask_of(const Vm *v, onnxc_value x);
/* the level dims of mask m, outer first, into d: how many */
int vm_level_dims(const Vm *v, uint64_t m, onnxc_dim *d);
/* x's per-sample rank + 1 when batched, else 0 */
int32_t vm_prank(const Vm *v, onnxc_value x);
int vm_rank_of(Vm *v, onnxc_value x, onnxc_value_info *vi);
/* x with a new dim at pos, expanded to size (NULL: a dim of 1) */
onnxc_value vm_expand_at(Vm *v, onnxc_node at, onnxc_value x, int64_t pos,
    const onnxc_arg *size, onnxc_dim sd, const char *name);
/* the error naming the vmap region at node n */
onnxc_status vm_fail(Vm *v, onnxc_node n, const char *name,
    const char *why);
/* x, batched at levels m, with 1s for the levels of all it lacks */
onnxc_value vm_aligned(Vm *v, onnxc_node n, onnxc_value x, uint64_t m,
    uint64_t all, const char *name);
/* ni's output, of per-sample rank r, batched at levels all */
onnxc_status vm_batched_out(Vm *v, const onnxc_node_info *ni, int32_t r,
    uint32_t dtype, uint64_t all);

/* vmap_ops.c: index.Tensor by batched indices, views of a batched
 * tensor, matmul of two batched operands */
/* sum/mean of x alone, a vector norm without dim, of a batched x */
onnxc_status vm_full_reduce(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *op, const char *name);
/* outer (ger) and trace of batched operands */
onnxc_status vm_outer_trace(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *op, const char *name);
onnxc_status vm_index(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *name);
onnxc_status vm_view(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *op, const char *name);
onnxc_status vm_matmul(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *name);
onnxc_status vm_linear(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *name);
/* vmap.c: node n of op whose arguments are batched, rewritten to run
 * batched (an error naming vmap where it cannot) */
onnxc_status vm_node(Vm *v, onnxc_node n, const onnxc_node_info *ni,
    const char *op, const char *name);

#endif
