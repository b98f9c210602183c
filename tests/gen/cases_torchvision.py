"""Programs calling torchvision's ops (tests/cases-torchvision), lowered by
the torchvision translation plugin (passes/torchvision.c).  Made
with real PyTorch and torchvision:

    /work/shared/tools/torch-env run 2.14 python3 /work/shared/tools/gen2/gen.py \
        tests/cases-torchvision cases_torchvision   (with tests/gen on PYTHONPATH)
"""
import torch
import torch.nn as nn
import torchvision


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), core=False, pt2=False, **kw)


def boxes(n, g):
    xy = torch.rand(n, 2, generator=g) * 20
    wh = torch.rand(n, 2, generator=g) * 10 + 1
    return torch.cat([xy, xy + wh], 1)


def rois(n, batch, g):
    b = torch.randint(0, batch, (n, 1), generator=g).float()
    return torch.cat([b, boxes(n, g) * 0.6], 1)


class Nms(nn.Module):
    def forward(self, b, s):
        keep = torchvision.ops.nms(b, s, 0.3)
        return keep, b[keep] * 2


class RoiAlign(nn.Module):
    def __init__(self, aligned, ratio):
        super().__init__()
        self.aligned, self.ratio = aligned, ratio
    def forward(self, x, r):
        return torchvision.ops.roi_align(x, r, (3, 4), spatial_scale=0.5,
                                         sampling_ratio=self.ratio, aligned=self.aligned)


class RoiPool(nn.Module):
    def forward(self, x, r):
        return torchvision.ops.roi_pool(x, r, (2, 3), spatial_scale=0.5).relu()


class RoiPoolArgmax(nn.Module):
    """reads roi_pool's argmax: refused (tests/cases-diagnose)"""
    def forward(self, x, r):
        y, arg = torch.ops.torchvision.roi_pool(x, r, 0.5, 2, 3)
        return y, arg


def g():
    return torch.Generator().manual_seed(1)


CASES = {
    "tv_nms": lambda: case(Nms(), (boxes(12, g()), torch.rand(12, generator=g()))),
    "tv_roi_align": lambda: case(RoiAlign(False, 2), (torch.randn(2, 3, 10, 10), rois(5, 2, g()))),
    "tv_roi_align_aligned": lambda: case(RoiAlign(True, -1), (torch.randn(2, 3, 10, 10), rois(5, 2, g()))),
    "tv_roi_pool": lambda: case(RoiPool(), (torch.randn(2, 3, 10, 10), rois(5, 2, g()))),
    "tv_roi_pool_argmax": lambda: case(RoiPoolArgmax(), (torch.randn(1, 2, 6, 6), rois(2, 1, g()))),
}
