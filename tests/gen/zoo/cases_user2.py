"""Model code as users write it, exported with dynamic sizes (the batch, a sequence length, an image's
height and width as torch.export.Dim): the mask, position and cache arithmetic of language models
(causal and sliding-window masks, rotary and ALiBi biases, T5 buckets, position ids from an attention
mask, KV-cache concatenation, last-token gathers, top-k and repetition-penalty logits), recurrent text
and speech encoders (a dynamic batch: torch.export fixes an RNN's length), spectrograms, NeRF transmittance, ViT position embeddings resized to the image,
Swin windows padded to a multiple, FPN upsampling to a neighbour's size, affine warps, keypoint sampling,
segmentation losses and CTC greedy decoding.  Each is checked on a second sample of other sizes."""
import math
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


def causal_sliding(x):
    t = x.shape[1]
    i = torch.arange(t)
    m = (i[None, :] <= i[:, None]) & ((i[:, None] - i[None, :]) < 3)
    s = (x @ x.transpose(1, 2)).masked_fill(~m, float("-inf"))
    tri = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
    return s.softmax(-1), (x @ x.transpose(1, 2)).masked_fill(tri, -1e4).softmax(-1)


class Rotary(nn.Module):
    def __init__(self, dim=8, maxlen=64):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        t = torch.arange(maxlen).float()
        f = torch.outer(t, inv)
        emb = torch.cat([f, f], -1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)
    def forward(self, q):
        t = q.shape[-2]
        c, s = self.cos[:t], self.sin[:t]
        h = q.shape[-1] // 2
        rot = torch.cat([-q[..., h:], q[..., :h]], -1)
        return q * c + rot * s


def alibi(x):
    b, h, t, _ = x.shape
    slopes = torch.tensor([2 ** (-8 * (i + 1) / 4) for i in range(4)])
    pos = torch.arange(t)
    bias = (pos[None, :] - pos[:, None]).float().abs().neg()
    return (x + slopes[:, None, None] * bias).softmax(-1)


def t5_bucket(x):
    t = x.shape[1]
    ctx = torch.arange(t)[:, None]
    mem = torch.arange(t)[None, :]
    rel = mem - ctx
    nb = 16
    ret = (rel > 0).long() * (nb // 2)
    n = rel.abs()
    exact = nb // 4
    large = exact + (torch.log(n.float() / exact) / math.log(32 / exact) * (nb // 2 - exact)).long()
    large = torch.min(large, torch.full_like(large, nb // 2 - 1))
    ret = ret + torch.where(n < exact, n, large)
    return ret, F.embedding(ret, torch.arange(16 * 2.0).reshape(16, 2)).sum(-1) + x.mean(-1, keepdim=True)


def position_ids(mask, x):
    pid = mask.long().cumsum(-1) - 1
    pid = pid.masked_fill(mask == 0, 1)
    last = x[torch.arange(x.shape[0]), mask.sum(-1) - 1]
    return pid, last


class KVCache(nn.Module):
    def __init__(self):
        super().__init__(); self.q = nn.Linear(8, 8); self.k = nn.Linear(8, 8); self.v = nn.Linear(8, 8)
    def forward(self, x, pk, pv):
        b, t, _ = x.shape
        k = torch.cat([pk, self.k(x).view(b, t, 2, 4).transpose(1, 2)], 2)
        v = torch.cat([pv, self.v(x).view(b, t, 2, 4).transpose(1, 2)], 2)
        q = self.q(x).view(b, t, 2, 4).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v)
        return o.transpose(1, 2).reshape(b, t, 8), k, v


def sampling(logits, ids):
    score = torch.gather(logits, 1, ids)
    score = torch.where(score < 0, score * 1.3, score / 1.3)
    logits = logits.scatter(1, ids, score)
    top = logits.topk(3, -1)
    out = torch.full_like(logits, float("-inf")).scatter(1, top.indices, top.values)
    return out.softmax(-1), logits.argmax(-1)


class TextRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(20, 8, padding_idx=0)
        self.l = nn.LSTM(8, 6, num_layers=2, batch_first=True, bidirectional=True)
        self.o = nn.Linear(12, 3)
    def forward(self, ids):
        m = (ids != 0).float()
        h, _ = self.l(self.e(ids))
        pooled = (h * m[..., None]).sum(1) / m.sum(1, keepdim=True).clamp(min=1)
        return self.o(pooled), h.amax(1)


class SpeechGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv1d(4, 8, 3, padding=1)
        self.g = nn.GRU(8, 8, batch_first=False)
        self.n = nn.LayerNorm(8)
    def forward(self, x, h0):
        y = F.gelu(self.c(x)).permute(2, 0, 1)
        o, h = self.g(y, h0)
        return self.n(o), h


class Spectrogram(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(32))
        self.register_buffer("mel", torch.rand(17, 6))
    def forward(self, wav):
        s = torch.stft(wav, 32, 8, window=self.win, return_complex=True)
        p = s.abs().pow(2).transpose(1, 2) @ self.mel
        lm = torch.log(p.clamp(min=1e-5))
        return (lm - lm.mean(1, keepdim=True)) / (lm.std(1, keepdim=True) + 1e-5)


def nerf(sigma, rgb, z):
    delta = torch.cat([z[..., 1:] - z[..., :-1], torch.full_like(z[..., :1], 1e10)], -1)
    alpha = 1 - torch.exp(-F.relu(sigma) * delta)
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[..., :1]), 1 - alpha + 1e-10], -1), -1)[..., :-1]
    w = alpha * trans
    return (w[..., None] * rgb).sum(-2), (w * z).sum(-1)


class ViTPos(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Conv2d(3, 8, 4, 4)
        self.pos = nn.Parameter(torch.randn(1, 16, 8))
        self.cls = nn.Parameter(torch.randn(1, 1, 8))
    def forward(self, x):
        b, _, h, w = x.shape
        t = self.p(x).flatten(2).transpose(1, 2)
        pe = self.pos.reshape(1, 4, 4, 8).permute(0, 3, 1, 2)
        pe = F.interpolate(pe, size=(h // 4, w // 4), mode="bicubic", align_corners=False)
        t = t + pe.flatten(2).transpose(1, 2)
        return torch.cat([self.cls.expand(b, -1, -1), t], 1)


def swin_windows(x):
    b, h, w, c = x.shape
    ws = 4
    ph, pw = (ws - h % ws) % ws, (ws - w % ws) % ws
    x = F.pad(x, (0, 0, 0, pw, 0, ph))
    hp, wp = x.shape[1], x.shape[2]
    win = x.view(b, hp // ws, ws, wp // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
    return win.softmax(-1), torch.roll(x, (-2, -2), (1, 2))


class FPN(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, 2, 1); self.b = nn.Conv2d(8, 8, 3, 2, 1)
        self.la = nn.Conv2d(8, 8, 1); self.lb = nn.Conv2d(8, 8, 1)
    def forward(self, x):
        ca = self.a(x); cb = self.b(ca)
        pb = self.lb(cb)
        pa = self.la(ca) + F.interpolate(pb, size=ca.shape[-2:], mode="nearest")
        up = F.interpolate(pa, size=x.shape[-2:], mode="bilinear", align_corners=False)
        return up, pb


def warp(x, theta, pts):
    g = F.affine_grid(theta, list(x.shape), align_corners=False)
    y = F.grid_sample(x, g, mode="bilinear", padding_mode="zeros", align_corners=False)
    k = F.grid_sample(x, pts[:, :, None, :], align_corners=True).squeeze(-1)
    return y, k


def seg_losses(logits, target):
    p = logits.softmax(1)
    oh = F.one_hot(target, logits.shape[1]).permute(0, 3, 1, 2).float()
    inter = (p * oh).sum((2, 3))
    dice = 1 - (2 * inter + 1) / (p.sum((2, 3)) + oh.sum((2, 3)) + 1)
    ce = F.cross_entropy(logits, target, reduction="none")
    pt = torch.exp(-ce)
    focal = ((1 - pt) ** 2 * ce).mean()
    return dice.mean(), focal


def ctc_greedy(logp, lengths):
    best = logp.argmax(-1)
    keep = torch.ones_like(best, dtype=torch.bool)
    keep[:, 1:] = best[:, 1:] != best[:, :-1]
    valid = torch.arange(best.shape[1])[None] < lengths[:, None]
    keep = keep & (best != 0) & valid
    return torch.where(keep, best, -1), keep.sum(1)


def unfold_patches(x):
    p = x.unfold(2, 2, 2).unfold(3, 2, 2)
    cols = F.unfold(x, 3, padding=1)
    return p.reshape(x.shape[0], x.shape[1], -1, 4).mean(-1), cols.mean(1)


def causal_conv(x, w):
    return F.conv1d(F.pad(x, (2, 0)), w), F.avg_pool1d(F.pad(x, (1, 1), mode="reflect"), 3, 1)


def sort_by_length(x, lengths):
    order = lengths.argsort(descending=True, stable=True)
    return x[order], lengths[order], order.argsort()


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True),
                                       2, enable_nested_tensor=False)
    def forward(self, x, pad):
        return self.e(x, src_key_padding_mask=pad)


def cheb(x):
    # user-written reductions over a dynamic axis
    return torch.logsumexp(x, 1), x.var(1, unbiased=False), x.norm(dim=1), torch.median(x, 1).values, x.prod(1)


def mix(x, y):
    return torch.einsum("btd,bsd->bts", x, y).softmax(-1) @ y, torch.cdist(x, y).amin(-1)


def depth_space(x):
    return F.pixel_shuffle(x, 2), F.pixel_unshuffle(x, 2), x.flip(-1).cumsum(-2)


torch.manual_seed(0)
CASES = {
    "v_causal_sliding": lambda: case(Fn(causal_sliding), (torch.randn(2, 6, 4),), (torch.randn(3, 9, 4),), dyn=({0: D, 1: D},)),
    "v_rotary": lambda: case(Rotary(), (torch.randn(2, 2, 5, 8),), (torch.randn(1, 2, 11, 8),), dyn=({0: D, 2: D},)),
    "v_alibi": lambda: case(Fn(alibi), (torch.randn(2, 4, 5, 5),), (torch.randn(1, 4, 7, 7),), dyn=({0: D, 2: Dim("t"), 3: Dim("t")},)),
    "v_t5_bucket": lambda: case(Fn(t5_bucket), (torch.randn(2, 40, 3),), (torch.randn(1, 23, 3),), dyn=({0: D, 1: D},)),
    "v_position_ids": lambda: case(Fn(position_ids), (torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]]), torch.randn(2, 4, 3)),
                                   (torch.tensor([[1, 1, 1, 1, 1, 0], [1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]]), torch.randn(3, 6, 3)),
                                   dyn=({0: Dim("b"), 1: Dim("t")}, {0: Dim("b"), 1: Dim("t")})),
    "v_kv_cache": lambda: case(KVCache().eval(), (torch.randn(2, 2, 8), torch.randn(2, 2, 5, 4), torch.randn(2, 2, 5, 4)),
                               (torch.randn(1, 3, 8), torch.randn(1, 2, 9, 4), torch.randn(1, 2, 9, 4)),
                               dyn=({0: Dim("b"), 1: D}, {0: Dim("b"), 2: Dim("p")}, {0: Dim("b"), 2: Dim("p")})),
    "v_sampling": lambda: case(Fn(sampling), (torch.randn(2, 10), torch.tensor([[1, 3], [4, 4]])),
                               (torch.randn(3, 10), torch.tensor([[0, 9, 2], [5, 5, 5], [7, 1, 1]])), dyn=({0: Dim("b")}, {0: Dim("b"), 1: D})),
    "v_text_lstm": lambda: case(TextRNN().eval(), (torch.tensor([[3, 4, 5, 0], [7, 1, 0, 0]]),),
                                (torch.tensor([[3, 4, 5, 0], [7, 0, 0, 0], [1, 2, 3, 4]]),), dyn=({0: D},)),
    "v_speech_gru": lambda: case(SpeechGRU().eval(), (torch.randn(2, 4, 7), torch.randn(1, 2, 8)), (torch.randn(3, 4, 7), torch.randn(1, 3, 8)),
                                 dyn=({0: Dim("b")}, {1: Dim("b")})),
    "v_spectrogram": lambda: case(Spectrogram(), (torch.randn(2, 160),), (torch.randn(3, 250),), dyn=({0: D, 1: Dim("n", min=40)},), atol=1e-3),
    "v_nerf": lambda: case(Fn(nerf), (torch.rand(4, 8), torch.rand(4, 8, 3), torch.sort(torch.rand(4, 8)).values),
                           (torch.rand(6, 13), torch.rand(6, 13, 3), torch.sort(torch.rand(6, 13)).values),
                           dyn=({0: Dim("r"), 1: Dim("s", min=3)}, {0: Dim("r"), 1: Dim("s", min=3)}, {0: Dim("r"), 1: Dim("s", min=3)})),
    "v_vit_pos": lambda: case(ViTPos().eval(), (torch.randn(2, 3, 16, 16),), (torch.randn(1, 3, 24, 32),),
                              dyn=({0: D, 2: 4 * Dim("h", min=2, max=64), 3: 4 * Dim("w", min=2, max=64)},)),
    "v_swin_windows": lambda: case(Fn(swin_windows), (torch.randn(2, 7, 9, 3),), (torch.randn(1, 8, 5, 3),), dyn=({0: D, 1: D, 2: D},)),
    "v_fpn": lambda: case(FPN().eval(), (torch.randn(2, 3, 32, 32),), (torch.randn(1, 3, 40, 24),), dyn=({0: D, 2: D, 3: D},)),
    "v_warp": lambda: case(Fn(warp), (torch.randn(2, 3, 8, 8), torch.randn(2, 2, 3) * 0.3 + torch.eye(2, 3), torch.rand(2, 5, 2) * 2 - 1),
                           (torch.randn(3, 3, 8, 8), torch.randn(3, 2, 3) * 0.3 + torch.eye(2, 3), torch.rand(3, 7, 2) * 2 - 1),
                           dyn=({0: Dim("b")}, {0: Dim("b")}, {0: Dim("b"), 1: D})),
    "v_seg_losses": lambda: case(Fn(seg_losses), (torch.randn(2, 4, 6, 5), torch.randint(0, 4, (2, 6, 5))),
                                 (torch.randn(1, 4, 9, 7), torch.randint(0, 4, (1, 9, 7))),
                                 dyn=({0: Dim("b"), 2: Dim("h"), 3: Dim("w")}, {0: Dim("b"), 1: Dim("h"), 2: Dim("w")})),
    "v_ctc_greedy": lambda: case(Fn(ctc_greedy), (torch.randn(2, 7, 5).log_softmax(-1), torch.tensor([7, 4])),
                                 (torch.randn(3, 10, 5).log_softmax(-1), torch.tensor([10, 2, 6])), dyn=({0: Dim("b"), 1: D}, {0: Dim("b")})),
    "v_unfold": lambda: case(Fn(unfold_patches), (torch.randn(2, 3, 6, 8),), (torch.randn(1, 3, 10, 4),),
                             dyn=({0: D, 2: 2 * Dim("h", max=64), 3: 2 * Dim("w", max=64)},)),
    "v_causal_conv": lambda: case(Fn(causal_conv), (torch.randn(2, 4, 9), torch.randn(5, 4, 3)), (torch.randn(1, 4, 17), torch.randn(5, 4, 3)),
                                  dyn=({0: D, 2: D}, None)),
    "v_sort_by_length": lambda: case(Fn(sort_by_length), (torch.randn(4, 3), torch.tensor([2, 5, 5, 1])),
                                     (torch.randn(6, 3), torch.tensor([3, 3, 9, 1, 9, 2])), dyn=({0: Dim("b")}, {0: Dim("b")})),
    "v_encoder_pad": lambda: case(Enc().eval(), (torch.randn(2, 5, 8), torch.tensor([[False] * 5, [False] * 3 + [True] * 2])),
                                  (torch.randn(3, 7, 8), torch.tensor([[False] * 7, [False] * 2 + [True] * 5, [False] * 6 + [True]])),
                                  dyn=({0: Dim("b"), 1: Dim("t")}, {0: Dim("b"), 1: Dim("t")})),
    "v_reductions": lambda: case(Fn(cheb), (torch.randn(3, 5, 2),), (torch.randn(2, 8, 2),), dyn=({0: D, 1: D},)),
    "v_einsum_cdist": lambda: case(Fn(mix), (torch.randn(2, 4, 3), torch.randn(2, 6, 3)), (torch.randn(1, 5, 3), torch.randn(1, 2, 3)),
                                   dyn=({0: Dim("b"), 1: D}, {0: Dim("b"), 1: D})),
    "v_depth_space": lambda: case(Fn(depth_space), (torch.randn(2, 4, 6, 8),), (torch.randn(1, 4, 4, 10),),
                                  dyn=({0: D, 2: 2 * Dim("h", max=64), 3: 2 * Dim("w", max=64)},)),
}
