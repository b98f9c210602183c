"""Ops with Python-number arguments and factory calls, as model code writes
them; multi-output ops of which one output is read (m_*), list results of
which one is read (l_*).  tools/zoo.sh runs it."""
import torch, torch.nn.functional as F
from cases_edges import Fn

def c(fn, *a, **kw):
    return lambda: dict(model=Fn(fn), samples=[tuple(a)], core=True, pt2=True, **kw)

x = torch.randn(3, 4)
xi = torch.randint(0, 5, (3, 4))
b = torch.rand(3, 4) > 0.5
img = torch.randn(2, 3, 8, 8)
CASES = {
    "s_where_scalars": c(lambda b, x: (torch.where(b, 0.0, x), torch.where(b, x, -1), torch.where(b, 1.0, 2.0)), b, x),
    "s_pow_scalar_base": c(lambda x: (torch.pow(2.0, x), 3 ** x, x ** 0.5, torch.float_power(x.abs(), 2)), x),
    "s_clamp_kw": c(lambda x: (x.clamp(min=-0.5), x.clamp(max=0.2), x.clamp(-1, 1), torch.clip(x, 0)), x),
    "s_full_eye": c(lambda x: (torch.full((2, 3), 1.5), torch.eye(3, 4), torch.eye(3) * x[:3, :3], torch.ones(2, dtype=torch.int32), torch.zeros(0, 3)), x),
    "s_tri_indices": c(lambda x: (torch.tril_indices(4, 5, -1), torch.triu_indices(3, 3, 1), x[tuple(torch.triu_indices(3, 4))]), x),
    "s_arange_float": c(lambda x: (torch.arange(0.5, 3.2, 0.7), torch.arange(10, 0, -3), torch.arange(5, dtype=torch.float64)), x),
    "s_lerp_addcmul": c(lambda x: (torch.lerp(x, x * 2, 0.3), torch.addcmul(x, x, x, value=0.5), torch.addcdiv(x, x, x.abs() + 1, value=-2), torch.baddbmm(x[None], x[None], (x.T @ x)[None], beta=0.5, alpha=2)), x),
    "s_diff_trapz": c(lambda x: (torch.diff(x, dim=1), torch.diff(x, n=2, dim=0, prepend=x[:1]), torch.trapezoid(x, dx=0.5), torch.cumulative_trapezoid(x)), x),
    "s_kron_blockdiag": c(lambda x: (torch.kron(x[:2, :2], x[:2, :3]), torch.block_diag(x[:2, :2], x[:1, :3]), torch.cartesian_prod(x[0], x[1, :2])), x),
    "s_cdist_vander": c(lambda x: (torch.cdist(x, x * 2), torch.cdist(x, x, p=1), torch.vander(x[0], 3), torch.combinations(x[0], 2)), x),
    "s_frexp_ldexp": c(lambda x: (*torch.frexp(x), torch.ldexp(x, torch.tensor(3)), torch.copysign(x, -1.0), torch.heaviside(x, torch.tensor(0.5))), x),
    "s_logaddexp_hypot": c(lambda x: (torch.logaddexp(x, 0.5 * x), torch.logaddexp2(x, x), torch.xlogy(x.abs(), 2.0), torch.special.xlog1py(2.0, x.abs())), x),
    "s_histc_bincount": c(lambda x, xi: (torch.histc(x, 5, -2, 2), torch.bincount(xi.flatten(), minlength=7)), x, xi),
    "s_interp_scale": c(lambda i: (F.interpolate(i, scale_factor=1.5, mode="bilinear"), F.interpolate(i, scale_factor=0.5, mode="nearest"), F.interpolate(i, size=(5, 7), mode="bicubic", align_corners=True), F.interpolate(i, scale_factor=2, mode="nearest-exact"), F.interpolate(i, scale_factor=1.3, mode="area")), img),
    "s_pad_modes": c(lambda i: (F.pad(i, (1, 2, 0, 1), "reflect"), F.pad(i, (1, 1, 1, 1), "replicate"), F.pad(i, (2, 0, 0, 2), "circular"), F.pad(i, (1, 1), value=-3.0)), img),
    "s_unfold_fold": c(lambda i: (F.unfold(i, 3, padding=1, stride=2), F.fold(F.unfold(i, 2, stride=2), (8, 8), 2, stride=2), i.unfold(2, 3, 2)), img),
    "s_norm_sim": c(lambda x: (F.normalize(x, p=1, dim=0), F.cosine_similarity(x, x.flip(0), dim=1, eps=1e-6), F.pairwise_distance(x, x * 0.5, p=3), torch.linalg.vector_norm(x, ord=float("inf"), dim=1)), x),
    "s_act_params": c(lambda x: (F.celu(x, 0.5), F.threshold(x, 0.1, -2.0), F.hardtanh(x, -0.5, 0.5), F.softplus(x, 2, 10), F.elu(x, 0.7), F.leaky_relu(x, 0.2), F.rrelu(x, training=False), F.glu(x, 1), F.softmin(x, 1), F.hardshrink(x, 0.3), F.softshrink(x, 0.3), F.logsigmoid(x), F.tanhshrink(x)), x),
    "s_norm_layers": c(lambda i: (F.group_norm(i, 3, eps=1e-3), F.instance_norm(i), F.layer_norm(i, (8, 8)), F.local_response_norm(i, 2), F.batch_norm(i, torch.zeros(3), torch.ones(3), training=False)), img),
    "s_one_hot_embed": c(lambda t: (F.one_hot(t, 6), F.embedding(t, torch.arange(18.).reshape(6, 3), padding_idx=0), F.embedding(t, torch.arange(18.).reshape(6, 3) / 4, max_norm=1.0)), torch.tensor([[0, 5, 2], [1, 1, 3]])),
    "s_grid_affine": c(lambda i, th: (F.grid_sample(i, F.affine_grid(th, (2, 3, 5, 5), align_corners=False), align_corners=False), F.grid_sample(i, F.affine_grid(th, (2, 3, 4, 6), align_corners=True), mode="nearest", padding_mode="border", align_corners=True), F.grid_sample(i, F.affine_grid(th, (2, 3, 4, 4), align_corners=False), padding_mode="reflection", align_corners=False)), img, torch.randn(2, 2, 3) * 0.5),
    "s_sort_topk": c(lambda x: (*torch.sort(x, dim=1, descending=True, stable=True), *torch.topk(x, 2, dim=0, largest=False), torch.argsort(x, 1), torch.msort(x), *torch.max(x, 1), torch.argmax(x), *torch.aminmax(x, dim=0)), x),
    "s_masked": c(lambda x, b: (x.masked_fill(b, 0.25), torch.masked_select(x, b).sum(), x[b].mean(), torch.nonzero(b).shape[0] * 1.0, b.sum(1), b.any(), b.all(1)), x, b),
    "s_scatter_gather": c(lambda x, i: (torch.gather(x, 1, i), x.scatter(1, i, 0.5), x.scatter_add(1, i, x), x.scatter_reduce(1, i, x, "amax", include_self=False), x.index_fill(1, torch.tensor([0, 2]), -1.0), torch.take_along_dim(x, i, 1)), x, torch.randint(0, 4, (3, 4))),
    "s_einsum_misc": c(lambda x: (torch.einsum("ij,kj->ik", x, x), torch.einsum("ii->i", x[:, :3]), torch.tensordot(x, x, dims=([1], [1])), torch.outer(x[0], x[1]), torch.inner(x, x), torch.chain_matmul(x, x.T, x) if hasattr(torch, "chain_matmul") else x), x),
    "s_round_div": c(lambda x: (torch.round(x, decimals=2), torch.div(x, 0.3, rounding_mode="floor"), torch.div(x, 0.3, rounding_mode="trunc"), torch.remainder(x, 0.7), torch.fmod(x, -0.7), x // 0.4), x * 3),
    "s_cum": c(lambda x: (torch.cumsum(x, 1, dtype=torch.float64), torch.cumprod(x, 0), torch.logcumsumexp(x, 1), *torch.cummax(x, 1)), x),
    "s_std_var": c(lambda x: (torch.std(x, 1, correction=0), torch.var(x, unbiased=False), torch.std_mean(x, 0), torch.var_mean(x, 1, keepdim=True), torch.quantile(x, 0.3, dim=1), torch.nanmedian(x), torch.median(x, 0)[0], torch.mode(x.round(), 1)[0]), x),
    "s_type_conv": c(lambda x: (x.to(torch.float16).float(), x.double() * 2, x.int(), x.bool(), x.type(torch.int64), x.type_as(torch.tensor([1], dtype=torch.int16)), x.half().sum()), x * 5),
    "s_shape_ops": c(lambda x: (x.repeat(2, 1), x.repeat_interleave(2, 0), x.repeat_interleave(torch.tensor([1, 2, 0]), 0), x.roll(1, 1), x.rot90(1, (0, 1)), x.flip(0), x.tile((2,)), torch.stack([x, x], 2), x.unflatten(1, (2, 2)), x.movedim(0, 1), x.chunk(3, 1)[1], x.split([1, 3], 1)[1], torch.hstack([x, x]), torch.dstack([x, x]), torch.column_stack([x[0], x[1]])), x),
    "s_triu_diag": c(lambda x: (x.triu(1), x.tril(-1), torch.diag(x), torch.diag(x[0], 1), torch.diagonal(x, -1), torch.diag_embed(x[:2]), torch.trace(x[:, :3]), x.fill_diagonal_(0.0) if False else x), x),
}

sq = torch.randn(3, 3)
spd = sq @ sq.T + 3 * torch.eye(3)
MULTI = {
    "max": lambda x: torch.max(x, 1), "min": lambda x: torch.min(x, 0), "median": lambda x: torch.median(x, 1),
    "nanmedian": lambda x: torch.nanmedian(x, 1), "mode": lambda x: torch.mode(x.round(), 1),
    "kthvalue": lambda x: torch.kthvalue(x, 2, 1), "topk": lambda x: torch.topk(x, 2), "sort": lambda x: torch.sort(x, 1),
    "cummax": lambda x: torch.cummax(x, 1), "cummin": lambda x: torch.cummin(x, 0), "aminmax": lambda x: torch.aminmax(x, dim=1),
    "std_mean": lambda x: torch.std_mean(x, 1), "var_mean": lambda x: torch.var_mean(x, 0), "frexp": lambda x: torch.frexp(x),
    "qr": lambda x: torch.linalg.qr(x), "slogdet": lambda x: torch.linalg.slogdet(x[:, :3]), "eigh": lambda x: torch.linalg.eigh(spd),
    "lu_factor": lambda x: torch.linalg.lu_factor(x[:, :3]), "inv_ex": lambda x: torch.linalg.inv_ex(x[:, :3]),
    "cholesky_ex": lambda x: torch.linalg.cholesky_ex(spd), "svd": lambda x: torch.linalg.svd(x, full_matrices=False),
    "maxpool_idx": lambda x: F.max_pool2d(x[None, None], 2, return_indices=True),
    "adamax_idx": lambda x: F.adaptive_max_pool1d(x[None], 2, return_indices=True),
    "unique_consec": lambda x: torch.unique_consecutive(x.round(), return_counts=True),
    "histogram": lambda x: torch.histogram(x, 4),
    "layer_norm_native": lambda x: torch.ops.aten.native_layer_norm(x, [4], None, None, 1e-5),
    "lstsq": lambda x: torch.linalg.lstsq(x, x[:, :2]),
}
for k, f in MULTI.items():
    for j in (0, 1):
        CASES[f"m_{k}_{j}"] = c((lambda f, j: lambda x: f(x)[j] * 1)(f, j), x)

LISTS = {
    "gradient": lambda x: torch.gradient(x)[0], "gradient1": lambda x: torch.gradient(x, spacing=0.5)[1],
    "atleast": lambda x: torch.atleast_3d(x, x[0])[1], "meshgrid": lambda x: torch.meshgrid(x[0], x[:, 0], indexing="ij")[1],
    "bcast": lambda x: torch.broadcast_tensors(x, x[0])[1], "unbind": lambda x: x.unbind(1)[2],
    "split": lambda x: x.split(3, 1)[1], "chunk": lambda x: x.chunk(2)[0], "tsplit": lambda x: torch.tensor_split(x, 3, 1)[2],
    "hsplit": lambda x: torch.hsplit(x, 2)[1], "swsizes": lambda x: x.split([1, 3], 1)[0],
    "unsafe_split": lambda x: x.unsafe_split(2, 1)[1], "histdd": lambda x: torch.histogramdd(x[:, :2], bins=3)[1][0],
}
for k, f in LISTS.items():
    CASES[f"l_{k}"] = c((lambda f: lambda x: f(x) * 1)(f), x)

CASES.update({
    "s_interp_aa": c(lambda i: (F.interpolate(i, size=(5, 6), mode="bilinear", antialias=True),
                                F.interpolate(i, scale_factor=0.5, mode="bicubic", antialias=True, align_corners=False),
                                F.interpolate(i, size=(12, 10), mode="bicubic", antialias=True)), img),
    "s_interp_recompute": c(lambda i: (F.interpolate(i, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
                                       F.interpolate(i[:, :, 0], scale_factor=2.5, mode="linear"),
                                       F.interpolate(i[:, :, None], scale_factor=(1, 1.5, 0.75), mode="trilinear")), img),
    "s_pixel_ops": c(lambda i: (F.pixel_shuffle(i.repeat(1, 4, 1, 1)[:, :12], 2), F.pixel_unshuffle(i, 2),
                                F.channel_shuffle(i.repeat(1, 2, 1, 1), 3), F.unfold(i, (2, 3), dilation=2)), img),
})
