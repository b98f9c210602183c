"""Library layers and reductions with dynamic sizes (torch.export.Dim): nn.MultiheadAttention with key
padding and causal masks, a TransformerDecoder under generate_square_subsequent_mask, resampling by a
factor and to a neighbour's size (bilinear, bicubic, nearest), adaptive and dilated pooling, recurrent
cells unrolled over a dynamic batch, losses with weights, distances and similarities, the statistics
pairs (std_mean, var_mean, aminmax), multi-dim logsumexp, diag_embed and cartesian products over a
dynamic size."""
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.MultiheadAttention(8, 2, batch_first=True)
    def forward(self, x, pad):
        t = x.shape[1]
        causal = nn.Transformer.generate_square_subsequent_mask(t)
        o1, w1 = self.a(x, x, x, key_padding_mask=pad)
        o2, _ = self.a(x, x, x, attn_mask=causal, need_weights=False)
        return o1, w1, o2


class Dec(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 1)
    def forward(self, tgt, mem):
        m = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        return self.d(tgt, mem, tgt_mask=m, tgt_is_causal=True)


def resample(x, y):
    return (F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
            F.interpolate(x, size=y.shape[-2:], mode="bicubic", align_corners=False),
            nn.Upsample(scale_factor=2, mode="nearest")(x), F.interpolate(x, size=y.shape[-2:], mode="nearest-exact"))


def pools(x):
    return (F.adaptive_max_pool2d(x, (2, 3)), F.max_pool2d(x, 3, 1, 1, dilation=2),
            F.avg_pool2d(x, 2, ceil_mode=True), F.lp_pool2d(x.abs(), 2, 2))


class Cells(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.LSTMCell(4, 6); self.g = nn.GRUCell(4, 6)
    def forward(self, xs):
        b = xs.shape[0]
        h = c = torch.zeros(b, 6); hg = torch.zeros(b, 6)
        for t in range(xs.shape[1]):
            h, c = self.l(xs[:, t], (h, c))
            hg = self.g(xs[:, t], hg)
        return h, hg


def losses(x, y, t):
    return (F.binary_cross_entropy_with_logits(x, y, pos_weight=torch.tensor([1.0, 2.0, 0.5])),
            F.kl_div(x.log_softmax(-1), y.softmax(-1), reduction="batchmean"),
            F.cosine_similarity(x, y, -1), F.pairwise_distance(x, y), torch.cdist(x, y, p=1),
            F.smooth_l1_loss(x, y, beta=0.5), F.multi_margin_loss(x, t), F.nll_loss(x.log_softmax(-1), t, ignore_index=1))


def stats(x):
    s, m = torch.std_mean(x, 1)
    v, m2 = torch.var_mean(x, (0, 1), correction=0)
    lo, hi = torch.aminmax(x, dim=0)
    return s, m, v, m2, lo, hi, torch.logsumexp(x, (0, 1)), x.softmax(1, dtype=torch.float64)


def structure(x):
    return torch.diag_embed(x), torch.cartesian_prod(x[0], x[1]), torch.diag_embed(x, 1)


torch.manual_seed(0)
CASES = {
    "q_mha_masks": lambda: case(MHA().eval(), (torch.randn(2, 5, 8), torch.tensor([[False] * 5, [False] * 3 + [True] * 2])),
                                (torch.randn(3, 7, 8), torch.tensor([[False] * 7, [False] * 2 + [True] * 5, [False] * 6 + [True]])),
                                dyn=({0: Dim("b"), 1: Dim("t")}, {0: Dim("b"), 1: Dim("t")})),
    "q_decoder_causal": lambda: case(Dec().eval(), (torch.randn(2, 4, 8), torch.randn(2, 6, 8)), (torch.randn(1, 7, 8), torch.randn(1, 3, 8)),
                                     dyn=({0: Dim("b"), 1: Dim("t")}, {0: Dim("b"), 1: Dim("s")})),
    "q_resample": lambda: case(Fn(resample), (torch.randn(2, 3, 5, 6), torch.randn(1, 1, 9, 4)), (torch.randn(1, 3, 7, 4), torch.randn(1, 1, 3, 11)),
                               dyn=({0: D, 2: D, 3: D}, {2: D, 3: D})),
    "q_pools": lambda: case(Fn(pools), (torch.randn(2, 3, 8, 9),), (torch.randn(1, 3, 11, 7),), dyn=({0: D, 2: D, 3: D},)),
    "q_cells": lambda: case(Cells().eval(), (torch.randn(2, 3, 4),), (torch.randn(5, 3, 4),), dyn=({0: D},)),
    "q_losses": lambda: case(Fn(losses), (torch.randn(4, 3), torch.randn(4, 3), torch.tensor([0, 2, 1, 2])),
                             (torch.randn(6, 3), torch.randn(6, 3), torch.tensor([1, 1, 0, 2, 2, 0])),
                             dyn=({0: Dim("b")}, {0: Dim("b")}, {0: Dim("b")})),
    "q_stats": lambda: case(Fn(stats), (torch.randn(3, 5),), (torch.randn(4, 2),), dyn=({0: D, 1: D},)),
    "q_structure": lambda: case(Fn(structure), (torch.randn(2, 4),), (torch.randn(2, 6),), dyn=({1: D},)),
}
