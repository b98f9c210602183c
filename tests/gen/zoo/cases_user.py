"""Model code as users write it, beyond whole architectures: a diffusion UNet block (timestep
embedding, GroupNorm, cross-attention), point-cloud kNN (cdist, topk, gather), graph message passing
(index_add, scatter_add, scatter_reduce), spectral and weight norm, a TransformerDecoderLayer, the losses of
torch.nn.functional one by one (label smoothing, class weights), and the module and functional
variants models pick (padding modes, output_size, unpooling, LP pooling, SDPA's mask, scale, causal
and GQA forms, resampling modes, cumulative and NaN-aware reductions).  torch.export refuses ctc_loss
with tensor lengths, AdaptiveLogSoftmaxWithLoss, gaussian_nll_loss and nn.Transformer with a causal
mask (data-dependent guards), so they are left out."""
import torch, torch.nn as nn, torch.nn.functional as F

def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), **kw)

class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__(); self.fn = fn
    def forward(self, *xs):
        return self.fn(*xs)



class M(nn.Module):
    def __init__(self, **mods):
        super().__init__()
        for k, v in mods.items(): setattr(self, k, v)

class SN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.utils.parametrizations.spectral_norm(nn.Conv2d(3, 4, 3))
        self.l = nn.utils.parametrizations.weight_norm(nn.Linear(4, 5))
    def forward(self, x):
        return self.l(self.c(x).mean((2, 3)))

class UNetBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1 = nn.GroupNorm(4, 16); self.c1 = nn.Conv2d(16, 16, 3, padding=1)
        self.t = nn.Linear(32, 16); self.n2 = nn.GroupNorm(4, 16); self.c2 = nn.Conv2d(16, 16, 3, padding=1)
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
        self.ctx = nn.Linear(8, 16)
    def forward(self, x, t, ctx):
        half = 16
        f = torch.exp(-torch.log(torch.tensor(10000.0)) * torch.arange(half, dtype=torch.float32) / half)
        e = t[:, None].float() * f[None]
        emb = torch.cat([e.sin(), e.cos()], -1)
        h = self.c1(F.silu(self.n1(x))) + self.t(F.silu(emb))[:, :, None, None]
        h = self.c2(F.silu(self.n2(h))) + x
        b, c, hh, ww = h.shape
        q = h.flatten(2).transpose(1, 2)
        kv = self.ctx(ctx)
        a, _ = self.attn(q, kv, kv, need_weights=False)
        h = h + a.transpose(1, 2).reshape(b, c, hh, ww)
        return F.interpolate(h, scale_factor=2, mode="nearest")

class KNN(nn.Module):
    def forward(self, pts, feat):
        d = torch.cdist(pts, pts)
        idx = d.topk(4, largest=False).indices
        nb = torch.gather(feat.unsqueeze(1).expand(-1, pts.shape[1], -1, -1), 2,
                          idx.unsqueeze(-1).expand(-1, -1, -1, feat.shape[-1]))
        return (nb - feat.unsqueeze(2)).amax(2)

class GNN(nn.Module):
    def __init__(self):
        super().__init__(); self.lin = nn.Linear(8, 8)
    def forward(self, x, ei):
        src, dst = ei
        msg = self.lin(x)[src]
        agg = torch.zeros_like(x).index_add_(0, dst, msg)
        deg = torch.zeros(x.shape[0]).scatter_add_(0, dst, torch.ones_like(dst, dtype=torch.float32))
        mx = torch.zeros_like(x).scatter_reduce(0, dst[:, None].expand_as(msg), msg, "amax", include_self=False)
        return agg / deg.clamp(min=1)[:, None], mx


torch.manual_seed(0)
x4 = torch.randn(2, 4, 8, 8)
CASES = {
    "u_spectral_weight_norm": lambda: case(SN().eval(), (torch.randn(2, 3, 8, 8),)),
    "u_unet_block": lambda: case(UNetBlock().eval(), (torch.randn(2, 16, 8, 8), torch.tensor([3, 700]), torch.randn(2, 5, 8))),
    "u_knn": lambda: case(KNN(), (torch.randn(2, 10, 3), torch.randn(2, 10, 6))),
    "u_gnn": lambda: case(GNN(), (torch.randn(7, 8), torch.tensor([[0, 1, 2, 3, 4, 5, 6, 0, 2], [1, 2, 3, 4, 5, 6, 0, 3, 3]]))),
    "u_loss0": lambda: case(Fn(lambda logits, y, a, b, t: F.cross_entropy(logits, y, ignore_index=2, label_smoothing=0.1)), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss1": lambda: case(Fn(lambda logits, y, a, b, t: F.nll_loss(logits.log_softmax(1), y, weight=torch.arange(1.0, 6.0), reduction="sum")), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss2": lambda: case(Fn(lambda logits, y, a, b, t: F.kl_div(a.log_softmax(1), b.softmax(1), reduction="batchmean")), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss3": lambda: case(Fn(lambda logits, y, a, b, t: F.cosine_embedding_loss(a, b, t, margin=0.2)), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss4": lambda: case(Fn(lambda logits, y, a, b, t: F.margin_ranking_loss(a[:, 0], b[:, 0], t, margin=0.1)), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss5": lambda: case(Fn(lambda logits, y, a, b, t: F.triplet_margin_with_distance_loss(a, b, b.flip(0), distance_function=lambda u, v: 1 - F.cosine_similarity(u, v))), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss6": lambda: case(Fn(lambda logits, y, a, b, t: F.multilabel_soft_margin_loss(a, (b > 0).float())), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss7": lambda: case(Fn(lambda logits, y, a, b, t: F.huber_loss(a, b, delta=0.5)), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss8": lambda: case(Fn(lambda logits, y, a, b, t: F.poisson_nll_loss(a, b.abs())), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "u_loss10": lambda: case(Fn(lambda logits, y, a, b, t: F.hinge_embedding_loss(a, t[:, None].expand_as(a))), (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]), torch.randn(4, 6), torch.randn(4, 6), torch.tensor([1.0, -1.0, 1.0, -1.0]))),
    "w_embed_maxnorm": lambda: case(nn.Embedding(10, 4, max_norm=1.0).eval(), (torch.tensor([[1, 2, 1], [9, 0, 2]]),)),
    "w_rmsnorm": lambda: case(nn.RMSNorm([4, 8], eps=1e-5), (torch.randn(2, 3, 4, 8),)),
    "w_mha_kv": lambda: case(nn.MultiheadAttention(8, 2, kdim=6, vdim=5, add_bias_kv=True, add_zero_attn=True).eval(),
                              (torch.randn(3, 2, 8), torch.randn(4, 2, 6), torch.randn(4, 2, 5))),
    "w_decoder_layer": lambda: case(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval(), (torch.randn(2, 3, 8), torch.randn(2, 5, 8))),
    "w_conv_pad_modes": lambda: case(Fn(lambda x, m=M(a=nn.Conv2d(4, 4, 3, padding=2, padding_mode="circular"), b=nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect"), c=nn.Conv1d(4, 4, 3, padding=1, padding_mode="replicate")): (m.a(x), m.b(x), m.c(x[:, :, 0]))), (x4,)),
    "w_convT_output_size": lambda: case(Fn(lambda x, c=nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1): c(x, output_size=[16, 16])), (x4,)),
    "w_maxunpool": lambda: case(Fn(lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, output_size=[9, 9])), (torch.randn(2, 4, 9, 9),)),
    "w_lppool": lambda: case(Fn(lambda x: (F.lp_pool2d(x, 2, 3, 2), F.lp_pool1d(x[:, :, 0], 3.0, 2))), (x4.abs(),)),
    "w_adaptive_max_idx": lambda: case(Fn(lambda x: F.adaptive_max_pool2d(x, (3, 5), return_indices=True)), (x4,)),
    "w_instnorm_stats": lambda: case(nn.InstanceNorm2d(4, affine=True, track_running_stats=True).eval(), (x4,)),
    "w_sdpa_variants": lambda: case(Fn(lambda q, k, v, m: (F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3),
        F.scaled_dot_product_attention(q, k, v, is_causal=True), F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], enable_gqa=True))),
        (torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8), torch.rand(5, 5) > 0.3)),
    "w_pad_modes": lambda: case(Fn(lambda x: (F.pad(x, (1, 2, 2, 1), mode="reflect"), F.pad(x, (1, 2, 2, 1), mode="replicate"), F.pad(x, (1, 2, 2, 1), mode="circular"),
        F.pad(x.unsqueeze(2).expand(-1, -1, 3, -1, -1), (1, 1, 1, 1, 1, 1), mode="replicate"))), (x4,)),
    "w_interp_area_aa": lambda: case(Fn(lambda x: (F.interpolate(x, size=(5, 3), mode="area"), F.interpolate(x, size=(5, 3), mode="bilinear", antialias=True),
        F.interpolate(x, scale_factor=1.7, mode="bicubic", align_corners=True), F.interpolate(x[:, :, 0], scale_factor=2.5, mode="linear"))), (x4,)),
    "w_shuffles": lambda: case(Fn(lambda x: (F.pixel_unshuffle(x, 2), F.pixel_shuffle(x, 2), F.channel_shuffle(x, 2), nn.Unflatten(1, (2, 2))(x).flatten(2))), (x4,)),
    "w_activations": lambda: case(Fn(lambda x: (F.glu(x, 1), F.mish(x), F.hardtanh(x, -0.5, 0.7), F.celu(x, 0.7), F.selu(x), F.softplus(x, 2.0, 1.0), F.logsigmoid(x), F.softmin(x, 1),
        F.rrelu(x, training=False), F.prelu(x, torch.tensor([0.1, 0.2, 0.3, 0.4])), F.threshold(x, 0.1, -2.0), F.softshrink(x, 0.3), F.tanhshrink(x), F.silu(x), F.elu(x, 0.3), F.normalize(x, p=1.5, dim=1))), (x4,)),
    "w_cumulative": lambda: case(Fn(lambda x: (*x.cummax(1), *x.cummin(2), x.cumprod(3), torch.logcumsumexp(x, 1), x.cumsum(1, dtype=torch.float64))), (x4,)),
    "w_search": lambda: case(Fn(lambda s, v: (torch.searchsorted(s, v), torch.searchsorted(s, v, right=True), torch.bucketize(v, s[0]), torch.histc(v, 5, -1, 1))),
        (torch.sort(torch.randn(3, 6)).values, torch.randn(3, 4))),
    "w_nan_ops": lambda: case(Fn(lambda x: (torch.nan_to_num(x, 0.0, 9.0, -9.0), x.nansum(1), x.nanmean(1), *torch.nanmedian(x, 1), x.isnan().any(1))),
        (torch.tensor([[1.0, float("nan"), float("inf")], [-float("inf"), 2.0, float("nan")]]),)),
    "w_onehot_where": lambda: case(Fn(lambda i, x: (F.one_hot(i, 6), torch.where(x > 0, x, 0.0), torch.clamp(x, min=x.mean(0), max=x.mean(0) + 0.5), torch.masked_fill(x, x < -0.5, float("-inf")).softmax(1))),
        (torch.tensor([0, 5, 2]), torch.randn(3, 4))),
}
