"""More model code as users write it with dynamic sizes (torch.export.Dim): detection and segmentation heads
(DETR's sine position embedding from a padding mask, transposed convolutions sized to a skip connection,
max unpooling, ceil-mode pooling), mixture-of-experts routing over a dynamic number of tokens, bags of
embeddings with offsets, top-k with k from a size, running maxima, modes and searches along a dynamic
axis, index arithmetic (index_select, gather, masks, index_put with accumulation, repeat_interleave),
grids from meshgrid, video convolutions over a dynamic time axis, and the tensor factories
(new_zeros, full, arange with a float step, tril of a dynamic square)."""
import math
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


def detr_pos(mask):
    not_mask = ~mask
    y = not_mask.cumsum(1, dtype=torch.float32)
    x = not_mask.cumsum(2, dtype=torch.float32)
    y = y / (y[:, -1:, :] + 1e-6) * 2 * math.pi
    x = x / (x[:, :, -1:] + 1e-6) * 2 * math.pi
    dim_t = torch.arange(8, dtype=torch.float32)
    dim_t = 10000 ** (2 * (dim_t // 2) / 8)
    px = x[:, :, :, None] / dim_t
    py = y[:, :, :, None] / dim_t
    px = torch.stack((px[:, :, :, 0::2].sin(), px[:, :, :, 1::2].cos()), dim=4).flatten(3)
    py = torch.stack((py[:, :, :, 0::2].sin(), py[:, :, :, 1::2].cos()), dim=4).flatten(3)
    return torch.cat((py, px), dim=3).permute(0, 3, 1, 2)


class UpSkip(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = nn.Conv2d(3, 6, 3, 2, 1); self.u = nn.ConvTranspose2d(6, 3, 3, 2, 1)
    def forward(self, x):
        return self.u(self.d(x), output_size=x.shape[-2:]) + x


def unpool(x):
    y, i = F.max_pool2d(x, 2, return_indices=True)
    return F.max_unpool2d(y, i, 2, output_size=x.shape[-2:]), F.max_pool2d(x, 3, 2, ceil_mode=True), F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 4, bias=False)
        self.w1 = nn.Parameter(torch.randn(4, 8, 16) * 0.2); self.w2 = nn.Parameter(torch.randn(4, 16, 8) * 0.2)
    def forward(self, x):
        p = self.gate(x).softmax(-1)
        w, e = p.topk(2, -1)
        w = w / w.sum(-1, keepdim=True)
        out = torch.zeros_like(x)
        for k in range(4):
            m = (e == k).to(x.dtype)
            wk = (w * m).sum(-1, keepdim=True)
            out = out + wk * (F.silu(x @ self.w1[k]) @ self.w2[k])
        counts = F.one_hot(e, 4).sum((0, 1))
        return out, counts


class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = nn.EmbeddingBag(20, 4, mode="sum"); self.m = nn.EmbeddingBag(20, 4, mode="mean", padding_idx=0)
        self.x = nn.EmbeddingBag(20, 4, mode="max")
    def forward(self, ids, offsets, w):
        return self.s(ids, offsets, per_sample_weights=w), self.m(ids, offsets), self.x(ids, offsets)


def topk_half(x):
    k = x.shape[1] // 2
    v, i = x.topk(k, 1)
    return v, i, x.kthvalue(2, 1).values


def running(x, s, v):
    return (*x.cummax(1), *x.cummin(1), *torch.mode(x.round(), 1), torch.searchsorted(s, v), torch.bucketize(v, s[0]),
            torch.logcumsumexp(x, 1), torch.diff(x, dim=1))


def indexing(x, idx, m):
    a = x.index_select(1, idx)
    b = torch.gather(x, 1, idx[None].expand(x.shape[0], -1))
    y = x.masked_fill(m, 0.0)
    z = x.clone()
    z[:, idx] += 1.0
    return a, b, y, z, x.repeat_interleave(2, dim=1), torch.gather(x, 1, x.argsort(1))


def grids(x):
    h, w = x.shape[-2:]
    ys, xs = torch.meshgrid(torch.arange(h) / (h - 1) * 2 - 1, torch.arange(w) / (w - 1) * 2 - 1, indexing="ij")
    g = torch.stack([xs, ys], -1)[None].expand(x.shape[0], -1, -1, -1)
    return F.grid_sample(x, g * 0.9, align_corners=True), torch.arange(0, w, 0.5)[None] + x.mean((1, 2))[:, :1]


class Video(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv3d(3, 4, (3, 3, 3), padding=(1, 1, 1)); self.p = nn.MaxPool3d((1, 2, 2))
        self.n = nn.GroupNorm(2, 4)
    def forward(self, x):
        y = self.p(F.relu(self.n(self.c(x))))
        return y.mean(2), F.adaptive_avg_pool3d(y, (1, 2, 2))


def factories(x):
    b, t = x.shape
    z = x.new_zeros(b, 3)
    f = torch.full((b, t), 2.5)
    tri = torch.tril(torch.ones(t, t), diagonal=-1)
    eye = torch.eye(t)
    return z + x[:, :1], f * x, x @ tri, x @ eye, torch.ones_like(x).cumsum(1)


def lengths_mask(x, lengths):
    t = x.shape[1]
    m = torch.arange(t)[None, :] < lengths[:, None]
    s = x.masked_fill(~m[..., None], float("-inf")).amax(1)
    avg = (x * m[..., None]).sum(1) / lengths[:, None]
    return s, avg, F.interpolate(x.transpose(1, 2), scale_factor=2, mode="linear", align_corners=False)


torch.manual_seed(0)
CASES = {
    "w_detr_pos": lambda: case(Fn(detr_pos), (torch.tensor([[[False] * 5] * 3 + [[False] * 3 + [True] * 2]] * 2),),
                               (torch.zeros(3, 6, 7, dtype=torch.bool),), dyn=({0: D, 1: D, 2: D},)),
    "w_up_skip": lambda: case(UpSkip().eval(), (torch.randn(2, 3, 9, 8),), (torch.randn(1, 3, 12, 11),), dyn=({0: D, 2: D, 3: D},)),
    "w_unpool": lambda: case(Fn(unpool), (torch.randn(2, 3, 8, 10),), (torch.randn(1, 3, 12, 6),),
                             dyn=({0: D, 2: 2 * Dim("h", min=2, max=64), 3: 2 * Dim("w", min=2, max=64)},)),
    "w_moe": lambda: case(MoE().eval(), (torch.randn(2, 5, 8),), (torch.randn(3, 7, 8),), dyn=({0: D, 1: D},)),
    "w_embedding_bag": lambda: case(Bag().eval(), (torch.tensor([1, 2, 0, 4, 5, 9, 0, 3]), torch.tensor([0, 3, 3, 6]), torch.rand(8)),
                                    (torch.tensor([7, 2, 0, 4, 5, 9, 1, 3, 8, 8, 1]), torch.tensor([0, 2, 5]), torch.rand(11)),
                                    dyn=({0: Dim("n")}, {0: Dim("b")}, {0: Dim("n")})),
    "w_topk_half": lambda: case(Fn(topk_half), (torch.randn(3, 8),), (torch.randn(2, 12),), dyn=({0: D, 1: 2 * Dim("k", min=2, max=32)},)),
    "w_running": lambda: case(Fn(running), (torch.randn(3, 6), torch.sort(torch.randn(3, 5)).values, torch.randn(3, 4)),
                              (torch.randn(2, 9), torch.sort(torch.randn(2, 7)).values, torch.randn(2, 3)),
                              dyn=({0: Dim("b"), 1: D}, {0: Dim("b"), 1: D}, {0: Dim("b"), 1: D})),
    "w_indexing": lambda: case(Fn(indexing), (torch.randn(3, 6), torch.tensor([0, 2, 5, 2]), torch.rand(3, 6) > 0.5),
                               (torch.randn(2, 9), torch.tensor([8, 1, 1]), torch.rand(2, 9) > 0.5),
                               dyn=({0: Dim("b"), 1: Dim("n")}, {0: D}, {0: Dim("b"), 1: Dim("n")})),
    "w_grids": lambda: case(Fn(grids), (torch.randn(2, 3, 5, 6),), (torch.randn(1, 3, 8, 4),), dyn=({0: D, 2: D, 3: D},)),
    "w_video": lambda: case(Video().eval(), (torch.randn(2, 3, 4, 8, 8),), (torch.randn(1, 3, 7, 8, 8),), dyn=({0: D, 2: D},)),
    "w_factories": lambda: case(Fn(factories), (torch.randn(3, 5),), (torch.randn(2, 8),), dyn=({0: D, 1: D},)),
    "w_lengths_mask": lambda: case(Fn(lengths_mask), (torch.randn(3, 6, 4), torch.tensor([6, 2, 4])), (torch.randn(2, 9, 4), torch.tensor([3, 9])),
                                   dyn=({0: Dim("b"), 1: D}, {0: Dim("b")})),
}
