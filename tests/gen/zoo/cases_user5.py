"""Still more model code with dynamic sizes (torch.export.Dim): decoding steps of language models (nucleus
sampling by sort and cumsum, a beam-search step over a flattened beam-by-vocabulary score, rotary tables
gathered by position ids), classifier-free guidance splitting a doubled batch, Conformer's relative
shift, YOLO's box decoding over a grid of the feature map's size, graph attention's softmax over a
dynamic number of edges, GCN normalization, DLRM's pairwise feature interactions, spectral filtering
with rfft/irfft of a dynamic length, moving averages with replicate padding, and tabular bucketing."""
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


def top_p(logits):
    probs = logits.softmax(-1)
    sp, si = probs.sort(-1, descending=True)
    cum = sp.cumsum(-1)
    remove = cum - sp > 0.8
    sp = sp.masked_fill(remove, 0.0)
    out = torch.zeros_like(probs).scatter(-1, si, sp)
    return out / out.sum(-1, keepdim=True)


def beam_step(scores, logp):
    b, k, v = logp.shape
    total = (scores[:, :, None] + logp).view(b, k * v)
    top, idx = total.topk(k, -1)
    return top, torch.div(idx, v, rounding_mode="floor"), idx % v


class RopeIds(nn.Module):
    def __init__(self):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, 4, 2).float() / 4))
        f = torch.outer(torch.arange(32).float(), inv)
        self.register_buffer("cos", torch.cat([f, f], -1).cos(), persistent=False)
        self.register_buffer("sin", torch.cat([f, f], -1).sin(), persistent=False)
    def forward(self, q, pos):
        c, s = self.cos[pos], self.sin[pos]
        rot = torch.cat([-q[..., 2:], q[..., :2]], -1)
        return q * c + rot * s


def cfg(noise):
    uncond, text = noise.chunk(2)
    return uncond + 7.5 * (text - uncond)


def rel_shift(x):
    b, h, t, p = x.shape
    z = F.pad(x, (1, 0))
    z = z.view(b, h, p + 1, t)
    return z[:, :, 1:].view(b, h, t, p)[:, :, :, : p // 2 + 1]


def yolo(feat):
    b, _, h, w = feat.shape
    p = feat.view(b, 3, 6, h, w).permute(0, 1, 3, 4, 2)
    gy, gx = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    grid = torch.stack((gx, gy), -1).float()
    xy = (p[..., :2].sigmoid() * 2 - 0.5 + grid) * 8
    wh = (p[..., 2:4].sigmoid() * 2) ** 2 * 10
    return torch.cat([xy, wh, p[..., 4:].sigmoid()], -1).view(b, -1, 6)


def gat_softmax(e, dst, n):
    mx = torch.full((n.shape[0],), float("-inf")).scatter_reduce(0, dst, e, "amax", include_self=False)
    ex = (e - mx[dst]).exp()
    den = torch.zeros(n.shape[0]).index_add(0, dst, ex)
    return ex / den[dst]


def gcn_norm(src, dst, n):
    deg = torch.zeros(n.shape[0]).scatter_add(0, dst, torch.ones(dst.shape[0]))
    inv = deg.pow(-0.5)
    inv = inv.masked_fill(torch.isinf(inv), 0.0)
    return inv[src] * inv[dst], torch.zeros(n.shape[0], 2).scatter_reduce(0, dst[:, None].expand(-1, 2), n[src], "mean", include_self=False)


def dlrm(dense, emb):
    t = torch.cat([dense[:, None], emb], 1)
    z = torch.bmm(t, t.transpose(1, 2))
    li, lj = torch.tril_indices(t.shape[1], t.shape[1], offset=-1)
    return torch.cat([dense, z[:, li, lj]], 1)


def spectral(x):
    X = torch.fft.rfft(x, dim=-1)
    keep = (torch.arange(X.shape[-1]) < 4).to(X.dtype)
    return torch.fft.irfft(X * keep, n=x.shape[-1], dim=-1), X.abs()


def moving_avg(x):
    front = x[:, :1].repeat(1, 2, 1)
    end = x[:, -1:].repeat(1, 2, 1)
    y = torch.cat([front, x, end], 1)
    trend = F.avg_pool1d(y.transpose(1, 2), 5, 1).transpose(1, 2)
    return trend, x - trend


def tabular(x, cat):
    b = torch.bucketize(x, torch.tensor([-1.0, 0.0, 0.5, 2.0]))
    oh = F.one_hot(cat, 5).float()
    return torch.cat([F.one_hot(b, 5).float().flatten(1), oh], 1), F.layer_norm(x, (3,))


torch.manual_seed(0)
CASES = {
    "y_top_p": lambda: case(Fn(top_p), (torch.randn(2, 10),), (torch.randn(3, 10),), dyn=({0: D},)),
    "y_beam_step": lambda: case(Fn(beam_step), (torch.randn(2, 3), torch.randn(2, 3, 7).log_softmax(-1)), (torch.randn(4, 3), torch.randn(4, 3, 7).log_softmax(-1)),
                                dyn=({0: Dim("b")}, {0: Dim("b")})),
    "y_rope_ids": lambda: case(RopeIds(), (torch.randn(2, 2, 5, 4), torch.tensor([0, 3, 4, 9, 10])), (torch.randn(1, 2, 3, 4), torch.tensor([1, 2, 30])),
                               dyn=({0: D, 2: Dim("t")}, {0: Dim("t")})),
    "y_cfg": lambda: case(Fn(cfg), (torch.randn(4, 3, 5),), (torch.randn(6, 3, 5),), dyn=({0: 2 * Dim("b", min=2, max=64)},)),
    "y_rel_shift": lambda: case(Fn(rel_shift), (torch.randn(2, 2, 5, 9),), (torch.randn(1, 2, 7, 13),),
                                dyn=({0: D, 2: D, 3: D},)),
    "y_yolo": lambda: case(Fn(yolo), (torch.randn(2, 18, 4, 5),), (torch.randn(1, 18, 6, 3),), dyn=({0: D, 2: D, 3: D},)),
    "y_gat_softmax": lambda: case(Fn(gat_softmax), (torch.randn(6), torch.tensor([0, 1, 1, 2, 0, 1]), torch.randn(4, 2)),
                                  (torch.randn(9), torch.tensor([0, 1, 1, 2, 0, 1, 4, 4, 3]), torch.randn(5, 2)),
                                  dyn=({0: Dim("e")}, {0: Dim("e")}, {0: Dim("n")})),
    "y_gcn_norm": lambda: case(Fn(gcn_norm), (torch.tensor([0, 1, 2, 3, 0]), torch.tensor([1, 2, 3, 0, 2]), torch.randn(5, 2)),
                               (torch.tensor([0, 1, 2, 3, 0, 5, 5]), torch.tensor([1, 2, 3, 0, 2, 4, 1]), torch.randn(6, 2)),
                               dyn=({0: Dim("e")}, {0: Dim("e")}, {0: Dim("n")})),
    "y_dlrm": lambda: case(Fn(dlrm), (torch.randn(3, 4), torch.randn(3, 5, 4)), (torch.randn(5, 4), torch.randn(5, 5, 4)), dyn=({0: Dim("b")}, {0: Dim("b")})),
    "y_spectral": lambda: case(Fn(spectral), (torch.randn(2, 16),), (torch.randn(3, 22),), dyn=({0: D, 1: Dim("n", min=8, max=256)},)),
    "y_moving_avg": lambda: case(Fn(moving_avg), (torch.randn(2, 12, 3),), (torch.randn(1, 17, 3),), dyn=({0: D, 1: D},)),
    "y_tabular": lambda: case(Fn(tabular), (torch.randn(4, 3), torch.tensor([0, 4, 2, 1])), (torch.randn(2, 3), torch.tensor([3, 3])),
                              dyn=({0: Dim("b")}, {0: Dim("b")})),
}
