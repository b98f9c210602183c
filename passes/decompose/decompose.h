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

/* Values replaced so far in the graph being swept: old -> new.  Later
 * nodes read their arguments through it (resolved as the sweep reaches
 * them), so a replacement costs O(1), not a pass over the graph. */
typedef struct Remap {
	onnxc_value *to;
	uint32_t n;
	int any;
} Remap;

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
	Remap *rm;        /* where dec_bind records its replacements */
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
onnxc_arg dec_a_dtype(Rw *r, uint32_t dt);
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
/* FX output k of the node being rewritten is now computed by v (every
 * later use of it reads v: Remap) */
void dec_bind(Rw *r, uint32_t k, onnxc_value v);
int dec_remap(Remap *rm, onnxc_value old, onnxc_value v);
onnxc_value dec_resolve(const void *user, onnxc_value v);
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

/* --- alias.c: ATen aliases as their target --- */
int dec_alias(Rw *r);
/* scalars.c */
int dec_scalar_operand(Rw *r);
int dec_eye(Rw *r);
int dec_vander(Rw *r);
int dec_affine_grid(Rw *r);
/* quant.c */
int dec_fake_quant(Rw *r);
int dec_qdq(Rw *r);
/* fracpool.c */
int dec_fractional_max_pool(Rw *r);
int dec_choose_qparams(Rw *r);

/* --- build.c: typed values, one FX node per call --- */
typedef struct TV {
	onnxc_value v; /* 0: absent */
	Ty t;
} TV;
TV dec_in(Rw *r, int pos, const char *key);
TV dec_out(Rw *r, uint32_t k);
TV dec_tv(onnxc_value v, Ty t);
TV dec_u(Rw *r, const char *op, TV x);
/* op(a, b) broadcast; a float operand's dtype wins */
TV dec_b(Rw *r, const char *op, TV a, TV b);
/* comparison: bool */
TV dec_c(Rw *r, const char *op, TV a, TV b);
TV dec_s(Rw *r, const char *op, TV x, double s);
TV dec_cs(Rw *r, const char *op, TV x, double s);
TV dec_sel(Rw *r, TV c, TV a, TV b);
TV dec_sel_s(Rw *r, TV c, double a, TV x);
TV dec_cast(Rw *r, TV x, uint32_t dt);
TV dec_red(Rw *r, const char *op, TV x, const int64_t *dims, int n,
    int keep);
/* the float operand pos/key cast to the output's dtype (float32 or
 * float64); .v == 0 when absent or when the output is not one of those */
TV dec_fin(Rw *r, int pos, const char *key);
int dec_dt_float(uint32_t dt);
/* v as a number of type dt holds it: float32 and the half types rounded
 * to their significant bits (to nearest even; normal numbers), as a C++
 * scalar_t of that type; v itself for other types */
double dec_num_in(uint32_t dt, double v);
/* the tensors of list argument pos/key into xs (cap of them): how many,
 * -1 when not a list of typed tensors */
int dec_tensor_list(Rw *r, int pos, const char *key, TV *xs, int cap);
/* x cast to the output's float dtype when x is an integer or bool */
TV dec_as_out_float(Rw *r, TV x);
TV dec_add(Rw *r, TV a, TV b);
TV dec_sub(Rw *r, TV a, TV b);
TV dec_mul(Rw *r, TV a, TV b);
TV dec_div(Rw *r, TV a, TV b);
TV dec_adds(Rw *r, TV a, double s);
TV dec_muls(Rw *r, TV a, double s);
TV dec_rsubs(Rw *r, TV a, double s);
/* c[0] x^(n-1) + ... + c[n-1], n >= 2 */
TV dec_poly(Rw *r, TV x, const double *c, int n);
/* P(x) / Q(x), coefficients highest power first */
TV dec_ratio(Rw *r, TV x, const double *p, int np, const double *q,
    int nq);
TV dec_unsq(Rw *r, TV x, int d);
TV dec_sq(Rw *r, TV x, int d);
/* x[lo:hi] along dim, static bounds */
TV dec_slice(Rw *r, TV x, int64_t dim, int64_t lo, int64_t hi);
TV dec_swap(Rw *r, TV x, int a, int b);
TV dec_expand(Rw *r, TV x, const Ty *t);
/* the same where t has symbolic sizes x lacks: each read (sym_size) from
 * one of srcs[0..ns) that has it */
TV dec_expand_from(Rw *r, TV x, const Ty *t, const TV *srcs, int ns);
/* a SymInt value for src's size along dim d (symbolic): aten::sym_size */
onnxc_value dec_sym_size(Rw *r, TV src, int d);
/* views.c: i64 [m] 0..m-1; x's last dim on diagonal off of two new
 * trailing dims of size md (the output's), zeros elsewhere */
TV dec_iota(Rw *r, int64_t m);
TV dec_embed_diag(Rw *r, TV x, int64_t off, onnxc_dim md);

/* --- views.c: composite views and layout ops --- */
int dec_mT(Rw *r);
int dec_real_copy(Rw *r);
int dec_isreal(Rw *r);
int dec_ravel(Rw *r);
int dec_t_copy(Rw *r);
int dec_flipud(Rw *r);
int dec_fliplr(Rw *r);
int dec_fftshift(Rw *r);
int dec_ifftshift(Rw *r);
int dec_atleast(Rw *r);
int dec_atleast_seq(Rw *r);
int dec_msort(Rw *r);
int dec_argsort(Rw *r);
int dec_broadcast_tensors(Rw *r);
int dec_meshgrid(Rw *r);
int dec_trace(Rw *r);
int dec_diag_embed(Rw *r);
int dec_diag(Rw *r);
int dec_linalg_diagonal(Rw *r);
int dec_take_along_dim(Rw *r);
int dec_rot90(Rw *r);
int dec_channel_shuffle(Rw *r);
int dec_sum_to_size(Rw *r);
int dec_nansum(Rw *r);
int dec_nanmean(Rw *r);

/* --- losses.c: losses and distances --- */
int dec_l1_loss(Rw *r);
int dec_mse_loss(Rw *r);
int dec_smooth_l1_loss(Rw *r);
int dec_huber_loss(Rw *r);
int dec_soft_margin_loss(Rw *r);
int dec_binary_cross_entropy(Rw *r);
int dec_bce_with_logits(Rw *r);
int dec_hinge_embedding_loss(Rw *r);
int dec_margin_ranking_loss(Rw *r);
int dec_cosine_embedding_loss(Rw *r);
int dec_kl_div(Rw *r);
int dec_poisson_nll_loss(Rw *r);
int dec_pairwise_distance(Rw *r);
int dec_dist(Rw *r);
int dec_cosine_similarity(Rw *r);
int dec_cdist(Rw *r);
int dec_triplet_margin_loss(Rw *r);

/* --- special.c: special functions --- */
int dec_lgamma(Rw *r);
int dec_mvlgamma(Rw *r);
int dec_digamma(Rw *r);
int dec_zeta(Rw *r);
int dec_polygamma(Rw *r);
int dec_special_polygamma(Rw *r);
int dec_erfinv(Rw *r);
int dec_erfcx(Rw *r);
int dec_ndtr(Rw *r);
int dec_log_ndtr(Rw *r);
int dec_ndtri(Rw *r);
int dec_entr(Rw *r);
int dec_sinc(Rw *r);
int dec_spherical_j0(Rw *r);
int dec_xlog1py(Rw *r);

int dec_i0(Rw *r);
int dec_i0e(Rw *r);
int dec_i1(Rw *r);
int dec_i1e(Rw *r);
int dec_k0(Rw *r);
int dec_k1(Rw *r);
int dec_k0e(Rw *r);
int dec_k1e(Rw *r);

/* --- bessel.c: Bessel functions of the first and second kind, Airy Ai */
int dec_bessel_j0(Rw *r);
int dec_bessel_j1(Rw *r);
int dec_bessel_y0(Rw *r);
int dec_bessel_y1(Rw *r);
int dec_airy_ai(Rw *r);

/* --- nextafter.c */
int dec_nextafter(Rw *r);

/* --- linalg.c: products, norms, scans --- */
int dec_linalg_vecdot(Rw *r);
int dec_vdot(Rw *r);
int dec_inner(Rw *r);
int dec_tensordot(Rw *r);
int dec_kron(Rw *r);
int dec_addr(Rw *r);
int dec_multi_dot(Rw *r);
int dec_linalg_matrix_norm(Rw *r);
int dec_linalg_norm(Rw *r);
int dec_cross(Rw *r);
int dec_logcumsumexp(Rw *r);
int dec_aminmax(Rw *r);
int dec_softmax_backward(Rw *r);
int dec_trapezoid(Rw *r);
int dec_cumulative_trapezoid(Rw *r);

int dec_nll_loss(Rw *r);
int dec_cross_entropy_loss(Rw *r);

/* --- arith.c: element-wise, splits and stacks --- */
int dec_signbit(Rw *r);
int dec_copysign(Rw *r);
int dec_float_power(Rw *r);
int dec_ldexp(Rw *r);
int dec_isclose(Rw *r);
int dec_hsplit(Rw *r);
int dec_vsplit(Rw *r);
int dec_dsplit(Rw *r);
int dec_dstack(Rw *r);
int dec_column_stack(Rw *r);
int dec_block_diag(Rw *r);

/* --- select.c: selections and constructions --- */
int dec_take(Rw *r);
int dec_isin(Rw *r);
int dec_diagflat(Rw *r);
int dec_diagonal_scatter(Rw *r);
int dec_cartesian_prod(Rw *r);
int dec_renorm(Rw *r);

int dec_quantile(Rw *r);
int dec_nanquantile(Rw *r);

int dec_frexp(Rw *r);

int dec_index_copy(Rw *r);
int dec_index_add(Rw *r);
int dec_index_fill(Rw *r);

int dec_linspace(Rw *r);
int dec_logspace(Rw *r);

/* --- cover.c, cover_sel.c: issue 35's composite ops --- */
/* a 1-D INT64 constant (a new constant graph input) */
TV dec_const_i64(Rw *r, const int64_t *v, int64_t n);
int dec_rrelu(Rw *r);
int dec_rrelu_with_noise(Rw *r);
int dec_pdist(Rw *r);
int dec_trilinear(Rw *r);
int dec_bilinear(Rw *r);
int dec_combinations(Rw *r);
int dec_gradient(Rw *r);
int dec_chunk_cat(Rw *r);
int dec_masked_scatter(Rw *r);
int dec_put(Rw *r);
int dec_unsafe_masked_index(Rw *r);
int dec_unsafe_masked_index_put_accumulate(Rw *r);
int dec_multi_margin_loss(Rw *r);
int dec_multilabel_margin_loss(Rw *r);
int dec_linear_cross_entropy(Rw *r);
int dec_max_pool_backward(Rw *r);
int dec_upsample_bilinear2d_aa(Rw *r);

#endif
