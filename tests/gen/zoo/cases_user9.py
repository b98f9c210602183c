"""Vision and audio model code with dynamic sizes (torch.export.Dim): patches folded back to an image of
the input's size (inpainting), anchors over a feature map of any size, segmentation logits resized to the
input with align_corners, sampling grids with reflection and nearest modes over dynamic inputs, the
temporal shift module over a dynamic number of frames, circular padding, sinusoidal embeddings computed
for a dynamic length (torch.export fixes the length of an istft's signal)."""
import math
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


def fold_back(x):
    h, w = x.shape[-2:]
    cols = F.unfold(x, 3, padding=1)
    ones = F.fold(torch.ones_like(cols), (h, w), 3, padding=1)
    return F.fold(cols * 0.5, (h, w), 3, padding=1) / ones


def anchors(feat):
    h, w = feat.shape[-2:]
    sy = torch.arange(h, dtype=torch.float32) * 8 + 4
    sx = torch.arange(w, dtype=torch.float32) * 8 + 4
    yy, xx = torch.meshgrid(sy, sx, indexing="ij")
    base = torch.tensor([[-8.0, -8.0, 8.0, 8.0], [-16.0, -8.0, 16.0, 8.0]])
    ctr = torch.stack([xx, yy, xx, yy], -1).reshape(-1, 1, 4)
    return (ctr + base).reshape(-1, 4), feat.flatten(2).transpose(1, 2)


def seg_resize(logits, img):
    up = F.interpolate(logits, size=img.shape[-2:], mode="bilinear", align_corners=True)
    return up.argmax(1), up.softmax(1).amax(1)


def sample_modes(x, grid):
    return (F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False),
            F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=True))


def temporal_shift(x):
    n, t, c, h, w = x.shape
    fold = c // 4
    out = torch.zeros_like(x)
    out[:, :-1, :fold] = x[:, 1:, :fold]
    out[:, 1:, fold:2 * fold] = x[:, :-1, fold:2 * fold]
    out[:, :, 2 * fold:] = x[:, :, 2 * fold:]
    return out


def circular(x):
    return F.pad(x, (1, 2), mode="circular"), F.pad(x.unsqueeze(1), (1, 1, 2, 0), mode="circular")


def sinusoid(x):
    t, d = x.shape[1], x.shape[2]
    pos = torch.arange(t, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
    pe = torch.zeros(t, d)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return x + pe


torch.manual_seed(0)
CASES = {
    "s_fold_back": lambda: case(Fn(fold_back), (torch.randn(2, 3, 6, 7),), (torch.randn(1, 3, 9, 5),), dyn=({0: D, 2: D, 3: D},)),
    "s_anchors": lambda: case(Fn(anchors), (torch.randn(2, 4, 5, 6),), (torch.randn(1, 4, 3, 8),), dyn=({0: D, 2: D, 3: D},)),
    "s_seg_resize": lambda: case(Fn(seg_resize), (torch.randn(2, 5, 8, 8), torch.randn(2, 3, 31, 29)), (torch.randn(1, 5, 6, 10), torch.randn(1, 3, 22, 40)),
                                 dyn=({0: Dim("b"), 2: D, 3: D}, {0: Dim("b"), 2: D, 3: D})),
    "s_sample_modes": lambda: case(Fn(sample_modes), (torch.randn(2, 3, 7, 9), torch.rand(2, 4, 5, 2) * 2.4 - 1.2),
                                   (torch.randn(1, 3, 5, 6), torch.rand(1, 6, 3, 2) * 2.4 - 1.2),
                                   dyn=({0: Dim("b"), 2: D, 3: D}, {0: Dim("b"), 1: D, 2: D})),
    "s_temporal_shift": lambda: case(Fn(temporal_shift), (torch.randn(2, 5, 8, 3, 3),), (torch.randn(1, 7, 8, 3, 3),), dyn=({0: D, 1: Dim("t", min=3, max=64)},)),
    "s_circular": lambda: case(Fn(circular), (torch.randn(2, 3, 6),), (torch.randn(1, 3, 9),), dyn=({0: D, 2: Dim("n", min=3, max=64)},)),
    "s_sinusoid": lambda: case(Fn(sinusoid), (torch.randn(2, 5, 8),), (torch.randn(1, 9, 8),), dyn=({0: D, 1: D},)),
}
