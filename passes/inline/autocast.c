/* autocast.c - PyTorch's CPU autocast policy, for the inline pass.
 *
 * Inside an enabled torch.autocast("cpu", dtype) region, the AutocastCPU
 * kernels of aten/src/ATen/autocast_mode.cpp (torch 2.14) cast the
 * floating-point arguments of some ops before running them: the
 * lower_precision_fp ops to the region's dtype, the fp32 ops to float32.
 * float64 tensors are not eligible and keep their type.  The promote ops
 * (stack, cat, index_copy) cast to the widest floating type of their
 * arguments, which their own type promotion gives too, and every other op
 * runs on what it is given.  The lists match by the op's name without
 * namespace and overload: autocast_mode.cpp registers every overload of
 * these names that takes tensors. */
#include <string.h>

#include "inline.h"

static const char *const lower[] = {
	"_addmm_activation", "_convolution", "_native_multi_head_attention",
	"addbmm", "addmm", "baddbmm", "bmm", "conv1d", "conv2d", "conv3d",
	"conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
	"linalg_vecdot", "linear", "matmul", "mkldnn_reorder_linear_weight",
	"mkldnn_rnn_layer", "mm", "prelu", "scaled_dot_product_attention",
};

static const char *const fp32[] = {
	"_grid_sampler_2d_cpu_fallback", "_lu_with_info",
	"adaptive_avg_pool3d", "adaptive_max_pool3d", "avg_pool3d",
	"binary_cross_entropy", "binary_cross_entropy_with_logits", "cdist",
	"cholesky", "cholesky_inverse", "cholesky_solve",
	"cosine_embedding_loss", "cross_entropy_loss", "ctc_loss",
	"fake_quantize_per_tensor_affine", "fft_fft", "fft_fft2", "fft_fftn",
	"fft_hfft", "fft_ifft", "fft_ifft2", "fft_ifftn", "fft_ihfft",
	"fft_irfft", "fft_irfft2", "fft_irfftn", "fft_rfft", "fft_rfft2",
	"fft_rfftn", "fractional_max_pool2d", "fractional_max_pool3d",
	"geqrf", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
	"hinge_embedding_loss", "huber_loss", "inverse", "kl_div", "l1_loss",
	"linalg_cholesky", "linalg_cholesky_ex", "linalg_cond", "linalg_eig",
	"linalg_eigh", "linalg_eigvals", "linalg_eigvalsh",
	"linalg_householder_product", "linalg_inv", "linalg_inv_ex",
	"linalg_lstsq", "linalg_matrix_rank", "linalg_qr", "linalg_solve",
	"linalg_svd", "linalg_svdvals", "linalg_tensorinv",
	"linalg_tensorsolve", "lu_solve", "margin_ranking_loss", "max_pool3d",
	"max_unpool2d", "max_unpool3d", "mse_loss", "multi_margin_loss",
	"multilabel_margin_loss", "multilabel_margin_loss_forward",
	"nanquantile", "nll_loss", "nll_loss2d", "orgqr", "ormqr", "pinverse",
	"poisson_nll_loss", "polar", "prod", "qr", "quantile",
	"reflection_pad1d", "reflection_pad2d", "replication_pad1d",
	"replication_pad2d", "replication_pad3d", "smooth_l1_loss",
	"soft_margin_loss", "stft", "svd", "trace", "triangular_solve",
	"triplet_margin_loss", "view_as_complex",
};

static int
listed(const char *name, size_t len, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(name, names[i], len))
			return 1;
	return 0;
}

uint32_t
inl_autocast_dtype(const char *op, uint32_t region)
{
	if (!op || strncmp(op, "aten::", 6) != 0)
		return 0;
	op += 6;
	size_t len = strcspn(op, ".");
	if (listed(op, len, lower, sizeof lower / sizeof *lower))
		return region;
	if (listed(op, len, fp32, sizeof fp32 / sizeof *fp32))
		return ONNXC_DT_F32;
	return 0;
}
