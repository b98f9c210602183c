"""Library code inside models, with dynamic sizes: torchvision's box ops, ROI Align and NMS over a dynamic
number of boxes, its v2 functional transforms as preprocessing (normalize, resize, center crop,
grayscale), Swin's patch merging by strided slices, ConvNeXt's channels-first LayerNorm, squeeze and
excitation, language-model pieces (grouped-query repeat_kv, RMSNorm computed in float32 for a half
model, SwiGLU, a cache written at a dynamic position, a causal mask offset by the cache length), batched
small linear algebra over a dynamic batch (camera intrinsics: inv, solve, det; LU, matrix_exp), quantiles and norms
along a dynamic axis, and framing a signal with Tensor.unfold."""
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


def boxes_fn(a, b, img):
    import torchvision.ops as ops
    iou = ops.box_iou(a, b)
    giou = ops.generalized_box_iou(a, b)
    clipped = ops.clip_boxes_to_image(a * 1.5, (img.shape[-2], img.shape[-1]))
    r = ops.roi_align(img, [a], output_size=(2, 2), spatial_scale=1.0, sampling_ratio=2, aligned=True)
    return iou, giou, clipped, r, ops.box_convert(a, "xyxy", "cxcywh")


def nms_fn(boxes, scores):
    import torchvision.ops as ops
    keep = ops.nms(boxes, scores, 0.5)
    return keep, boxes[keep]


def preprocess(img):
    import torchvision.transforms.v2.functional as TF
    x = img.float() / 255
    x = TF.resize(x, [32, 32])
    x = TF.center_crop(x, [24, 24])
    g = TF.rgb_to_grayscale(x)
    return TF.normalize(x, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), g


def patch_merge(x):
    x0 = x[:, 0::2, 0::2, :]; x1 = x[:, 1::2, 0::2, :]; x2 = x[:, 0::2, 1::2, :]; x3 = x[:, 1::2, 1::2, :]
    return torch.cat([x0, x1, x2, x3], -1)


class ConvNeXtNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(6) + 0.5); self.b = nn.Parameter(torch.randn(6))
        self.se1 = nn.Conv2d(6, 3, 1); self.se2 = nn.Conv2d(3, 6, 1)
    def forward(self, x):
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        y = (x - u) / torch.sqrt(s + 1e-6)
        y = self.w[:, None, None] * y + self.b[:, None, None]
        se = torch.sigmoid(self.se2(F.relu(self.se1(F.adaptive_avg_pool2d(y, 1)))))
        return y * se, F.layer_norm(x.permute(0, 2, 3, 1), (6,)).permute(0, 3, 1, 2)


class LMBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8, bias=False); self.kv = nn.Linear(8, 8, bias=False)
        self.g = nn.Linear(8, 12, bias=False); self.u = nn.Linear(8, 12, bias=False); self.d = nn.Linear(12, 8, bias=False)
        self.nw = nn.Parameter(torch.ones(8))
    def rms(self, x):
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.nw * h.to(x.dtype)
    def forward(self, x, cache, pos):
        b, t, _ = x.shape
        h = self.rms(x)
        q = self.q(h).view(b, t, 4, 2).transpose(1, 2)
        k, v = self.kv(h).view(b, t, 2, 2, 2).permute(2, 0, 3, 1, 4)
        k = k[:, :, None].expand(b, 2, 2, t, 2).reshape(b, 4, t, 2)
        v = v[:, :, None].expand(b, 2, 2, t, 2).reshape(b, 4, t, 2)
        past = cache.shape[2]
        full_k = torch.cat([cache, k], 2)
        mask = torch.ones(t, past + t, dtype=torch.bool).tril(diagonal=past)
        s = (q @ full_k.transpose(-1, -2)) * 0.7
        s = s.masked_fill(~mask, torch.finfo(s.dtype).min)
        a = s.softmax(-1) @ torch.cat([cache, v], 2)
        o = x + a.transpose(1, 2).reshape(b, t, 8)
        new_cache = cache.clone()
        new_cache.index_copy_(2, pos, k[:, :, :pos.shape[0]])
        return o + self.d(F.silu(self.g(self.rms(o))) * self.u(self.rms(o))), new_cache


def cameras(k, p):
    kin = torch.linalg.inv(k)
    rays = (kin @ p.transpose(1, 2)).transpose(1, 2)
    sol = torch.linalg.solve(k, p.transpose(1, 2))
    return rays, sol, torch.linalg.det(k)


def linalg_more(k):
    p, l, u = torch.linalg.lu(k)
    c = torch.linalg.cholesky(k @ k.mT)
    return torch.linalg.matrix_exp(k * 0.1), p, l, u, torch.cholesky_inverse(c), torch.linalg.inv_ex(k).inverse


def stats(x):
    return (torch.quantile(x, 0.9, dim=1), torch.quantile(x, torch.tensor([0.25, 0.5]), dim=1, interpolation="nearest"),
            torch.linalg.vector_norm(x, 3, dim=1), torch.linalg.norm(x, dim=1), x.std(1), torch.nanmean(x, 1))


def framing(sig):
    fr = sig.unfold(1, 8, 4)
    w = torch.hann_window(8)
    e = (fr * w).pow(2).sum(-1)
    return e, F.avg_pool1d(sig[:, None], 4, 4, ceil_mode=True)[:, 0], F.conv1d(sig[:, None], torch.ones(1, 1, 5) / 5, padding="same")


torch.manual_seed(0)


def _boxes(n):
    xy = torch.rand(n, 2) * 10
    return torch.cat([xy, xy + torch.rand(n, 2) * 6 + 1], 1)


CASES = {
    "x_box_ops": lambda: case(Fn(boxes_fn), (_boxes(5), _boxes(3), torch.randn(1, 2, 16, 16)), (_boxes(7), _boxes(2), torch.randn(1, 2, 20, 12)),
                              dyn=({0: D}, {0: D}, {2: D, 3: D})),
    "x_nms": lambda: case(Fn(nms_fn), (_boxes(8), torch.rand(8)), (_boxes(12), torch.rand(12)), dyn=({0: Dim("n")}, {0: Dim("n")})),
    "x_preprocess": lambda: case(Fn(preprocess), (torch.randint(0, 256, (2, 3, 40, 48), dtype=torch.uint8),),
                                 (torch.randint(0, 256, (1, 3, 36, 64), dtype=torch.uint8),), dyn=({0: D, 2: D, 3: D},), atol=1e-3),
    "x_patch_merge": lambda: case(Fn(patch_merge), (torch.randn(2, 6, 8, 3),), (torch.randn(1, 10, 4, 3),),
                                  dyn=({0: D, 1: 2 * Dim("h", max=64), 2: 2 * Dim("w", max=64)},)),
    "x_convnext_norm": lambda: case(ConvNeXtNorm().eval(), (torch.randn(2, 6, 5, 7),), (torch.randn(1, 6, 9, 4),), dyn=({0: D, 2: D, 3: D},)),
    "x_lm_block": lambda: case(LMBlock().eval(), (torch.randn(2, 3, 8), torch.randn(2, 4, 5, 2), torch.tensor([1, 3])),
                               (torch.randn(1, 4, 8), torch.randn(1, 4, 7, 2), torch.tensor([0, 2, 6])),
                               dyn=({0: Dim("b"), 1: Dim("t", min=2, max=64)}, {0: Dim("b"), 2: Dim("p", min=2, max=64)}, {0: Dim("k", min=2, max=64)})),
    "x_lm_block_bf16": lambda: case(LMBlock().eval().to(torch.float16), (torch.randn(2, 3, 8, dtype=torch.float16), torch.randn(2, 4, 5, 2, dtype=torch.float16), torch.tensor([1, 3])),
                                    (torch.randn(1, 4, 8, dtype=torch.float16), torch.randn(1, 4, 7, 2, dtype=torch.float16), torch.tensor([0, 2, 6])),
                                    dyn=({0: Dim("b"), 1: Dim("t", min=2, max=64)}, {0: Dim("b"), 2: Dim("p", min=2, max=64)}, {0: Dim("k", min=2, max=64)}),
                                    rtol=1e-2, atol=1e-2),
    "x_cameras": lambda: case(Fn(cameras), (torch.eye(3).repeat(2, 1, 1) * 2 + torch.rand(2, 3, 3) * 0.3, torch.randn(2, 5, 3)),
                              (torch.eye(3).repeat(3, 1, 1) * 2 + torch.rand(3, 3, 3) * 0.3, torch.randn(3, 4, 3)),
                              dyn=({0: Dim("b")}, {0: Dim("b"), 1: D})),
    "x_linalg_more": lambda: case(Fn(linalg_more), (torch.eye(3).repeat(2, 1, 1) * 2 + torch.rand(2, 3, 3) * 0.3,),
                                  (torch.eye(3).repeat(3, 1, 1) * 2 + torch.rand(3, 3, 3) * 0.3,), dyn=({0: D},)),
    "x_stats": lambda: case(Fn(stats), (torch.randn(3, 7),), (torch.randn(2, 12),), dyn=({0: D, 1: D},)),
    "x_framing": lambda: case(Fn(framing), (torch.randn(2, 40),), (torch.randn(1, 57),), dyn=({0: D, 1: D},)),
}
