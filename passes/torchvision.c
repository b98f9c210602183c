/* torchvision.c - a translation plugin for torchvision's detection ops,
 * shipped with onnxc: its lowerings apply where a program names them.
 *
 *   torchvision::nms(boxes[N,4], scores[N], iou) -> i64[K], kept boxes by
 *     decreasing score: NonMaxSuppression (Shape's start/end: opset 15)
 *     on one batch and one class (the
 *     corners in any diagonal order, a box suppressed when its IoU with a
 *     kept one is above iou), its selected_indices' box column;
 *   torchvision::roi_align(x, rois[K,5], scale, ph, pw, ratio, aligned):
 *     RoiAlign (opset 16) in avg mode, rois split into the batch index
 *     (column 0) and the box; aligned is half_pixel, else
 *     output_half_pixel (no half-pixel offset, boxes at least 1 wide, as
 *     torchvision); ratio <= 0 is adaptive, ONNX's 0;
 *   torchvision::roi_pool(x, rois[K,5], scale, ph, pw) -> (y, argmax):
 *     MaxRoiPool, whose roi layout and rounding are torchvision's; argmax
 *     (for the backward pass) has no ONNX counterpart, so reading it is
 *     an error;
 *   torchvision::ps_roi_align(x, rois, scale, ph, pw, ratio): the
 *     diagonal of a half_pixel RoiAlign over all channels (a Gather);
 *   torchvision::_cuda_version() unread (a build check) is nothing.
 * ONNX Runtime runs these in float only: other dtypes are declined; it has
 * no RoiAlign or MaxRoiPool of opset 22 (whose new types are bfloat16 and
 * float16), so those two lower up to opset 21. */
#include <stdio.h>

#include <onnxc/plugin.h>

typedef struct Lw {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph fx;
	onnxc_node node;
} Lw;

static onnxc_value
emit(Lw *l, const char *op, uint32_t nin, const onnxc_value *in,
    uint32_t dtype, onnxc_node *made)
{
	return onnxc_lower_op(l->ctx, l->h, op, nin, in, dtype, made);
}

/* argument pos: a number into *out */
static int
num(Lw *l, int pos, const char *key, double *out)
{
	onnxc_arg a;
	if (l->h->node_find_arg(l->ctx, l->fx, l->node, pos, key, &a) !=
	    ONNXC_OK)
		return 0;
	if (a.kind == ONNXC_ARG_FLOAT)
		*out = a.f;
	else if (a.kind == ONNXC_ARG_INT || a.kind == ONNXC_ARG_BOOL)
		*out = (double)a.i;
	else
		return 0;
	return 1;
}

/* argument pos is a float32 tensor of rank `rank` */
static int
f32_arg(Lw *l, int pos, const char *key, int32_t rank)
{
	onnxc_arg a;
	onnxc_value_info vi;
	return l->h->node_find_arg(l->ctx, l->fx, l->node, pos, key, &a) ==
	    ONNXC_OK && a.kind == ONNXC_ARG_VALUE &&
	    l->h->value_get(l->ctx, l->fx, a.ref, &vi) == ONNXC_OK &&
	    vi.kind == ONNXC_VK_TENSOR && vi.dtype == ONNXC_DT_F32 &&
	    vi.rank == rank;
}

static onnxc_status
bad(Lw *l, const char *what)
{
	l->h->report(l->ctx, ONNXC_SEV_ERROR, l->fx, l->node, "%s", what);
	return ONNXC_ERROR;
}

/* v with `n` leading dims of 1 */
static onnxc_value
lead(Lw *l, onnxc_value v, int n)
{
	int64_t axes[2] = {0, 1}, len = n;
	onnxc_value in[2] = {v, l->h->lower_const(l->ctx, ONNXC_DT_I64, 1,
	    &len, axes)};
	return in[1] ? emit(l, "Unsqueeze", 2, in, ONNXC_DT_F32, NULL) : 0;
}

static onnxc_status
lower_nms(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	Lw l = {ctx, h, h->graph(ctx), h->lower_node(ctx)};
	onnxc_value b, s;
	double iou;
	if (!f32_arg(&l, 0, "dets", 2) || !f32_arg(&l, 1, "scores", 1))
		return ONNXC_DECLINE;
	if (!num(&l, 2, "iou_threshold", &iou))
		return bad(&l, "torchvision::nms: iou_threshold must be a "
		    "number");
	onnxc_status st;
	if ((st = h->lower_input(ctx, 0, "dets", &b)) != ONNXC_OK ||
	    (st = h->lower_input(ctx, 1, "scores", &s)) != ONNXC_OK)
		return st;
	/* every box may be kept: max_output_boxes_per_class is N */
	int64_t col = 2;
	onnxc_node sh;
	onnxc_value n = emit(&l, "Shape", 1, &b, ONNXC_DT_I64, &sh);
	float t = (float)iou;
	onnxc_value in[4] = {lead(&l, b, 1), lead(&l, s, 2), n,
	    h->lower_const(ctx, ONNXC_DT_F32, 0, NULL, &t)};
	if (!n || !onnxc_lower_attr_i(ctx, h, sh, "start", 0) ||
	    !onnxc_lower_attr_i(ctx, h, sh, "end", 1) || !in[0] || !in[1] ||
	    !in[3])
		return ONNXC_ERROR;
	onnxc_value sel = emit(&l, "NonMaxSuppression", 4, in, ONNXC_DT_I64,
	    NULL);
	onnxc_value gin[2] = {sel, h->lower_const(ctx, ONNXC_DT_I64, 0, NULL,
	    &col)};
	onnxc_node g;
	onnxc_value keep = sel && gin[1] ? emit(&l, "Gather", 2, gin,
	    ONNXC_DT_I64, &g) : 0;
	if (!keep || !onnxc_lower_attr_i(ctx, h, g, "axis", 1))
		return ONNXC_ERROR;
	return h->lower_bind(ctx, 0, keep);
}

/* rois[K,5] -> batch indices i64[K] (column 0) and boxes [K,4] */
static int
split_rois(Lw *l, onnxc_value r, onnxc_value *bi, onnxc_value *box)
{
	int64_t zero = 0, one = 1, five = 5;
	onnxc_value gin[2] = {r, l->h->lower_const(l->ctx, ONNXC_DT_I64, 0,
	    NULL, &zero)};
	onnxc_node g, c;
	onnxc_value col = gin[1] ? emit(l, "Gather", 2, gin, ONNXC_DT_F32, &g) :
	    0;
	if (!col || !onnxc_lower_attr_i(l->ctx, l->h, g, "axis", 1))
		return 0;
	*bi = emit(l, "Cast", 1, &col, ONNXC_DT_I64, &c);
	if (!*bi || !onnxc_lower_attr_i(l->ctx, l->h, c, "to", ONNXC_DT_I64))
		return 0;
	onnxc_value sin[4] = {r,
		l->h->lower_const(l->ctx, ONNXC_DT_I64, 1, &one, &one),
		l->h->lower_const(l->ctx, ONNXC_DT_I64, 1, &one, &five),
		l->h->lower_const(l->ctx, ONNXC_DT_I64, 1, &one, &one)};
	if (!sin[1] || !sin[2] || !sin[3])
		return 0;
	*box = emit(l, "Slice", 4, sin, ONNXC_DT_F32, NULL);
	return *box != 0;
}

static onnxc_status
lower_roi_align(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	Lw l = {ctx, h, h->graph(ctx), h->lower_node(ctx)};
	double scale, ph, pw, ratio, aligned;
	if (!f32_arg(&l, 0, "input", 4) || !f32_arg(&l, 1, "rois", 2))
		return ONNXC_DECLINE;
	if (!num(&l, 2, "spatial_scale", &scale) ||
	    !num(&l, 3, "pooled_height", &ph) ||
	    !num(&l, 4, "pooled_width", &pw) ||
	    !num(&l, 5, "sampling_ratio", &ratio) ||
	    !num(&l, 6, "aligned", &aligned))
		return bad(&l, "torchvision::roi_align: spatial_scale, "
		    "pooled_height, pooled_width, sampling_ratio and aligned "
		    "must be numbers");
	onnxc_value x, r, bi, box;
	onnxc_status st;
	if ((st = h->lower_input(ctx, 0, "input", &x)) != ONNXC_OK ||
	    (st = h->lower_input(ctx, 1, "rois", &r)) != ONNXC_OK)
		return st;
	if (!split_rois(&l, r, &bi, &box))
		return ONNXC_ERROR;
	onnxc_value in[3] = {x, box, bi};
	onnxc_node m;
	onnxc_value y = emit(&l, "RoiAlign", 3, in, ONNXC_DT_F32, &m);
	if (!y || !onnxc_lower_attr_s(ctx, h, m, "mode", "avg") ||
	    !onnxc_lower_attr_i(ctx, h, m, "output_height", (int64_t)ph) ||
	    !onnxc_lower_attr_i(ctx, h, m, "output_width", (int64_t)pw) ||
	    !onnxc_lower_attr_i(ctx, h, m, "sampling_ratio", ratio > 0 ?
	    (int64_t)ratio : 0) ||
	    !onnxc_lower_attr_f(ctx, h, m, "spatial_scale", scale) ||
	    !onnxc_lower_attr_s(ctx, h, m, "coordinate_transformation_mode",
	    aligned != 0 ? "half_pixel" : "output_half_pixel"))
		return ONNXC_ERROR;
	return h->lower_bind(ctx, 0, y);
}

/* x reshaped to the constant shape dims (0 copies, -1 infers) */
static onnxc_value
reshape(Lw *l, onnxc_value x, int64_t n, const int64_t *dims)
{
	onnxc_value in[2] = {x, l->h->lower_const(l->ctx, ONNXC_DT_I64, 1, &n,
	    dims)};
	return in[1] ? emit(l, "Reshape", 2, in, ONNXC_DT_F32, NULL) : 0;
}

/* ps_roi_align(x, rois, scale, ph, pw, ratio) -> (y, channel_mapping):
 * bin (i, j) of output channel c averages input channel (c ph + i) pw + j
 * with roi_align's sampling (torchvision's kernel: the half-pixel offset,
 * no minimum roi size, an adaptive ratio of ceil(roi size / bins)).  So it
 * is the diagonal of RoiAlign over all channels in half_pixel mode: [K, C,
 * ph, pw] as [K, C/(ph pw), ph pw, ph pw], element (p, p) of each bin. */
static onnxc_status
lower_ps_roi_align(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	Lw l = {ctx, h, h->graph(ctx), h->lower_node(ctx)};
	double scale, ph, pw, ratio;
	onnxc_node_info ni;
	if (!f32_arg(&l, 0, "input", 4) || !f32_arg(&l, 1, "rois", 2))
		return ONNXC_DECLINE;
	if (h->node_get(ctx, l.fx, l.node, &ni) != ONNXC_OK)
		return ONNXC_ERROR;
	if (ni.nout > 1 && h->value_uses(ctx, l.fx, ni.out + 1))
		return bad(&l, "torchvision::ps_roi_align: its channel_mapping "
		    "output (for the backward pass) is read");
	if (!num(&l, 2, "spatial_scale", &scale) ||
	    !num(&l, 3, "pooled_height", &ph) ||
	    !num(&l, 4, "pooled_width", &pw) ||
	    !num(&l, 5, "sampling_ratio", &ratio))
		return bad(&l, "torchvision::ps_roi_align: spatial_scale, "
		    "pooled_height, pooled_width and sampling_ratio must be "
		    "numbers");
	if (ph < 1 || pw < 1 || ph * pw > 4096)
		return bad(&l, "torchvision::ps_roi_align: pooled_height "
		    "and pooled_width must be at least 1, 4096 bins at most");
	onnxc_value x, r, bi, box;
	onnxc_status st;
	if ((st = h->lower_input(ctx, 0, "input", &x)) != ONNXC_OK ||
	    (st = h->lower_input(ctx, 1, "rois", &r)) != ONNXC_OK)
		return st;
	if (!split_rois(&l, r, &bi, &box))
		return ONNXC_ERROR;
	onnxc_value in[3] = {x, box, bi};
	onnxc_node m;
	onnxc_value y = emit(&l, "RoiAlign", 3, in, ONNXC_DT_F32, &m);
	if (!y || !onnxc_lower_attr_s(ctx, h, m, "mode", "avg") ||
	    !onnxc_lower_attr_i(ctx, h, m, "output_height", (int64_t)ph) ||
	    !onnxc_lower_attr_i(ctx, h, m, "output_width", (int64_t)pw) ||
	    !onnxc_lower_attr_i(ctx, h, m, "sampling_ratio", ratio > 0 ?
	    (int64_t)ratio : 0) ||
	    !onnxc_lower_attr_f(ctx, h, m, "spatial_scale", scale) ||
	    !onnxc_lower_attr_s(ctx, h, m, "coordinate_transformation_mode",
	    "half_pixel"))
		return ONNXC_ERROR;
	int64_t p = (int64_t)ph * (int64_t)pw, diag[4096];
	for (int64_t i = 0; i < p; i++)
		diag[i] = i * (p + 1);
	y = reshape(&l, y, 3, (int64_t[]){0, -1, p * p});
	onnxc_value gin[2] = {y, h->lower_const(ctx, ONNXC_DT_I64, 1, &p,
	    diag)};
	onnxc_node g;
	y = y && gin[1] ? emit(&l, "Gather", 2, gin, ONNXC_DT_F32, &g) : 0;
	if (!y || !onnxc_lower_attr_i(ctx, h, g, "axis", 2))
		return ONNXC_ERROR;
	y = reshape(&l, y, 4, (int64_t[]){0, 0, (int64_t)ph, (int64_t)pw});
	return y ? h->lower_bind(ctx, 0, y) : ONNXC_ERROR;
}

static onnxc_status
lower_roi_pool(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	Lw l = {ctx, h, h->graph(ctx), h->lower_node(ctx)};
	double scale, ph, pw;
	onnxc_node_info ni;
	if (!f32_arg(&l, 0, "input", 4) || !f32_arg(&l, 1, "rois", 2))
		return ONNXC_DECLINE;
	if (h->node_get(ctx, l.fx, l.node, &ni) != ONNXC_OK)
		return ONNXC_ERROR;
	if (ni.nout > 1 && h->value_uses(ctx, l.fx, ni.out + 1))
		return bad(&l, "torchvision::roi_pool: its argmax output "
		    "(for the backward pass) is read; ONNX's MaxRoiPool has "
		    "none");
	if (!num(&l, 2, "spatial_scale", &scale) ||
	    !num(&l, 3, "pooled_height", &ph) ||
	    !num(&l, 4, "pooled_width", &pw))
		return bad(&l, "torchvision::roi_pool: spatial_scale, "
		    "pooled_height and pooled_width must be numbers");
	onnxc_value in[2];
	onnxc_status st;
	if ((st = h->lower_input(ctx, 0, "input", &in[0])) != ONNXC_OK ||
	    (st = h->lower_input(ctx, 1, "rois", &in[1])) != ONNXC_OK)
		return st;
	onnxc_node m;
	onnxc_value y = emit(&l, "MaxRoiPool", 2, in, ONNXC_DT_F32, &m);
	onnxc_arg items[2] = {{.kind = ONNXC_ARG_INT, .i = (int64_t)ph},
		{.kind = ONNXC_ARG_INT, .i = (int64_t)pw}}, shape;
	if (!y || h->lower_list(ctx, ONNXC_ARG_LIST, items, 2, &shape) !=
	    ONNXC_OK || h->lower_attr(ctx, m, "pooled_shape", &shape) !=
	    ONNXC_OK || !onnxc_lower_attr_f(ctx, h, m, "spatial_scale",
	    scale))
		return ONNXC_ERROR;
	return h->lower_bind(ctx, 0, y);
}

/* _cuda_version(): torchvision's Python wrappers call it before nms or
 * roi_align (a build check), and the program keeps the call with its
 * result unread.  Unread, it is nothing; read, the number is the
 * exporting machine's build, which the program does not carry. */
static onnxc_status
lower_cuda_version(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	(void)user;
	Lw l = {ctx, h, h->graph(ctx), h->lower_node(ctx)};
	onnxc_node_info ni;
	int64_t none = -1;
	if (h->node_get(ctx, l.fx, l.node, &ni) != ONNXC_OK)
		return ONNXC_ERROR;
	if (ni.nout > 0 && h->value_uses(ctx, l.fx, ni.out))
		return bad(&l, "torchvision::_cuda_version: its result (the "
		    "CUDA version torchvision was built with when exported) "
		    "is read");
	onnxc_value v = h->lower_const(ctx, ONNXC_DT_I64, 0, NULL, &none);
	return v ? h->lower_bind(ctx, 0, v) : ONNXC_ERROR;
}

static const onnxc_lowering_info rules[] = {
	{sizeof(onnxc_lowering_info), "torchvision::_cuda_version.default", "",
		1, 1000, lower_cuda_version, NULL},
	{sizeof(onnxc_lowering_info), "torchvision::nms.default", "", 15,
		1000, lower_nms, NULL},
	{sizeof(onnxc_lowering_info), "torchvision::roi_align.default", "",
		16, 21, lower_roi_align, NULL},
	{sizeof(onnxc_lowering_info), "torchvision::roi_pool.default", "", 1,
		21, lower_roi_pool, NULL},
	{sizeof(onnxc_lowering_info), "torchvision::ps_roi_align.default", "",
		16, 21, lower_ps_roi_align, NULL},
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	if (!ONNXC_HOST_HAS(host, lower_list))
		return ONNXC_VERSION;
	return onnxc_register_lowerings(host, reg, rules,
	    sizeof rules / sizeof *rules);
}

ONNXC_PLUGIN_NAMED(torchvision, "torchvision", "1.0", init, NULL);
