/* inline.h - what the inline pass's files share. */
#ifndef ONNXC_INLINE_H
#define ONNXC_INLINE_H

#include <onnxc/plugin.h>

/* op is one of torch._functorch.predispatch's (torch.vmap's helpers) */
int inl_is_predispatch(const char *op);
/* drops vmap's state helpers and turns elementwise vmap regions of g
 * into batched ops; an error naming vmap for other regions (vmap.c) */
onnxc_status inl_predispatch(onnxc_ctx *ctx, const onnxc_host_api *h,
    onnxc_graph g);
/* the dtype PyTorch's CPU autocast casts the floating arguments of op to
 * in a region of dtype `region`; 0 when it leaves them (autocast.c) */
uint32_t inl_autocast_dtype(const char *op, uint32_t region);

#endif
