/* decompose.h - inside the decompose plugin: the node being rewritten,
 * the toolkit the decompositions share (rewrite.c), and the
 * decompositions the table in decompose.c names (nn.c, math.c). */
#ifndef DECOMPOSE_H
#define DECOMPOSE_H

#include <stdint.h>

#include <onnxc/plugin.h>

#define MAXR 16 /* largest rank a rewrite handles */

/* A tensor type: element type and dims. */
typedef struct Ty {
	uint32_t dtype;
	int32_t rank;
	onnxc_dim d[MAXR];
} Ty;

/* The node being rewritten. */
typedef struct Rw {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	onnxc_node n;
	onnxc_node_info ni;
	char base[96];  /* its FX name: new values are named after it */
	unsigned seq;
	int bad;        /* a host call failed */
	onnxc_value vend; /* values from here on were made by this rewrite */
} Rw;

/* Each decomposition returns 1 when it rewrote the node (every used
 * output bound), 0 when it does not apply (nothing emitted).  Checks come
 * before the first emit so that declining leaves no dead nodes. */
typedef int (*DecFn)(Rw *r);

/* --- rewrite.c: types --- */
/* the type of tensor value v; -1 if v is not a tensor of known rank */
int dec_ty_of(Rw *r, onnxc_value v, Ty *t);
int dec_dim_static(const onnxc_dim *d, int64_t *n);
/* the dim counting negative i from the end */
onnxc_dim *dec_dim_at(Ty *t, int i);
int dec_ty_static(const Ty *t);
Ty dec_ty_dtype(Ty t, uint32_t dtype);
/* broadcast of a and b (numpy rules) */
Ty dec_ty_bcast(const Ty *a, const Ty *b, uint32_t dtype);

/* --- rewrite.c: arguments of new nodes --- */
onnxc_arg dec_a_val(onnxc_value v);
onnxc_arg dec_a_int(int64_t i);
onnxc_arg dec_a_float(double f);
onnxc_arg dec_a_bool(int b);
onnxc_arg dec_a_keyed(Rw *r, onnxc_arg a, const char *key);
onnxc_arg dec_a_ints(Rw *r, const int64_t *v, int n);

/* --- rewrite.c: arguments of the node being rewritten --- */
/* argument pos/key; 0 when absent or None */
int dec_arg(Rw *r, int pos, const char *key, onnxc_arg *a);
/* the value behind a tensor argument, or 0 */
onnxc_value dec_arg_val(Rw *r, int pos, const char *key);
/* a static number: 1 and *out (dflt when absent), 0 when not static */
int dec_arg_int(Rw *r, int pos, const char *key, int64_t dflt,
    int64_t *out);
int dec_arg_float(Rw *r, int pos, const char *key, double dflt,
    double *out);
/* a static int list: its length, -1 when absent, -2 when not static */
int dec_arg_ints(Rw *r, int pos, const char *key, int64_t *out, int cap);
/* argument pos/key copied for a new node; None when absent */
onnxc_arg dec_arg_copy(Rw *r, int pos, const char *key);

/* --- rewrite.c: emitting --- */
/* a new FX node with nout outputs; output 0 has type t */
onnxc_node dec_emit_n(Rw *r, const char *op, const Ty *t, uint32_t nout,
    int nargs, const onnxc_arg *args);
/* the output value of a new one-output node */
onnxc_value dec_emit(Rw *r, const char *op, const Ty *t, int nargs,
    const onnxc_arg *args);
#define EMIT(r, op, t, ...) \
	dec_emit(r, op, t, sizeof((onnxc_arg[]){__VA_ARGS__}) / \
	    sizeof(onnxc_arg), (onnxc_arg[]){__VA_ARGS__})
onnxc_value dec_unary(Rw *r, const char *op, onnxc_value x, const Ty *t);
onnxc_value dec_binary(Rw *r, const char *op, onnxc_value a, onnxc_value b,
    const Ty *t);
/* op(x, scalar) for the .Scalar / .Tensor-with-a-number overloads */
onnxc_value dec_with_scalar(Rw *r, const char *op, onnxc_value x, double s,
    const Ty *t);
onnxc_value dec_permute(Rw *r, onnxc_value x, const Ty *tx,
    const int64_t *perm, Ty *out);
/* x viewed as the static sizes of t */
onnxc_value dec_view(Rw *r, onnxc_value x, const Ty *t);
/* FX output k of the node being rewritten is now computed by v */
void dec_bind(Rw *r, uint32_t k, onnxc_value v);
/* the type of FX output k of the node being rewritten */
int dec_out_ty(Rw *r, uint32_t k, Ty *t);
int dec_out_used(Rw *r, uint32_t k);

/* --- nn.c: linear algebra, normalization, dropout, attention --- */
int dec_linear(Rw *r);
int dec_conv1d(Rw *r);
int dec_conv2d(Rw *r);
int dec_conv3d(Rw *r);
int dec_conv_transpose1d(Rw *r);
int dec_conv_transpose2d(Rw *r);
int dec_conv_transpose3d(Rw *r);
int dec_einsum(Rw *r);
int dec_outer(Rw *r);
int dec_batch_norm(Rw *r);
int dec_layer_norm(Rw *r);
int dec_group_norm(Rw *r);
int dec_rms_norm(Rw *r);
int dec_dropout(Rw *r);
int dec_native_dropout(Rw *r);
int dec_sdpa(Rw *r);

/* --- math.c: element-wise --- */
int dec_hardshrink(Rw *r);
int dec_softshrink(Rw *r);
int dec_logaddexp(Rw *r);
int dec_logaddexp2(Rw *r);
int dec_xlogy(Rw *r);
int dec_glu(Rw *r);
int dec_hypot(Rw *r);
int dec_logit(Rw *r);
int dec_prelu_kernel(Rw *r);
int dec_prelu(Rw *r);
int dec_square(Rw *r);
int dec_deg2rad(Rw *r);
int dec_rad2deg(Rw *r);
int dec_diff(Rw *r);

/* --- composite.c: composite-implicit ops of the training IR --- */
int dec_broadcast_to(Rw *r);
int dec_empty_permuted(Rw *r);
int dec_weight_norm(Rw *r);
int dec_weight_norm_interface(Rw *r);
int dec_histc(Rw *r);

#endif
