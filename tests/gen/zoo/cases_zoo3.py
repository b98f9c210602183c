"""More held-out stand-ins: torchvision's video, optical-flow, detection and
quantization-ready models, and torchaudio-free audio front ends written
the way model code writes them (random weights, small inputs)."""
import torch, torch.nn as nn
from torch.export import Dim

B = Dim("batch", min=2, max=16)


def tvv(fn, shape, dyn=True, **kw):
    def b():
        import torchvision.models.video as V
        m = getattr(V, fn)(weights=None, **kw).eval()
        x = torch.randn(*shape)
        s = [(x,), (torch.randn(shape[0] + 1, *shape[1:]),)] if dyn else [(x,)]
        d = dict(model=m, samples=s, rtol=1e-3, atol=1e-4, source=f"torchvision {fn}")
        if dyn:
            d["dynamic_shapes"] = ({0: B},)
        return d
    return b


class Raft(nn.Module):
    def __init__(self):
        super().__init__()
        import torchvision.models.optical_flow as F
        self.m = F.raft_small(weights=None).eval()

    def forward(self, a, b):
        return self.m(a, b, num_flow_updates=3)[-1]


class Det(nn.Module):
    """a detector's backbone + head on a batch tensor (the torchvision
    detection API takes lists and returns dicts: what people export is
    the part before post-processing)"""
    def __init__(self, fn):
        super().__init__()
        import torchvision.models.detection as D
        m = getattr(D, fn)(weights=None, weights_backbone=None, num_classes=5).eval()
        self.backbone = m.backbone
        self.head = m.head if hasattr(m, "head") else None

    def forward(self, x):
        f = self.backbone(x)
        feats = list(f.values()) if isinstance(f, dict) else [f]
        if self.head is None:
            return tuple(feats)
        out = self.head(feats)
        return tuple(out.values()) if isinstance(out, dict) else out


def det(fn, hw=128):
    return lambda: dict(model=Det(fn), samples=[(torch.randn(1, 3, hw, hw),)], rtol=1e-3, atol=1e-4,
                        source=f"torchvision {fn} backbone+head")


class Mel(nn.Module):
    """a log-mel front end as model code writes it: stft with a window,
    power spectrum, mel matrix, log, normalization"""
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(64))
        self.register_buffer("mel", torch.rand(33, 12))

    def forward(self, wav):
        s = torch.stft(wav, 64, 16, window=self.win, return_complex=True)
        p = s.abs().pow(2).transpose(1, 2) @ self.mel
        lm = torch.clamp(p, min=1e-10).log10()
        lm = torch.maximum(lm, lm.amax(dim=(1, 2), keepdim=True) - 8.0)
        return (lm + 4.0) / 4.0


CASES = {
    "v_r3d_18": tvv("r3d_18", (2, 3, 4, 32, 32)),
    "v_mc3_18": tvv("mc3_18", (2, 3, 4, 32, 32)),
    "v_r2plus1d_18": tvv("r2plus1d_18", (2, 3, 4, 32, 32)),
    "v_s3d": tvv("s3d", (1, 3, 16, 224, 224), dyn=False),
    "v_swin3d_t": tvv("swin3d_t", (1, 3, 4, 64, 64), dyn=False),
    "v_mvit_v2_s": tvv("mvit_v2_s", (1, 3, 16, 224, 224), dyn=False),
    "of_raft_small": lambda: dict(model=Raft(), samples=[(torch.randn(1, 3, 128, 128), torch.randn(1, 3, 128, 128))],
                                  rtol=1e-3, atol=1e-3, source="torchvision raft_small"),
    "d_retinanet": det("retinanet_resnet50_fpn_v2"),
    "d_fcos": det("fcos_resnet50_fpn"),
    "d_ssdlite": det("ssdlite320_mobilenet_v3_large", hw=160),
    "d_fasterrcnn_backbone": det("fasterrcnn_mobilenet_v3_large_fpn"),
    "a_logmel": lambda: dict(model=Mel(), samples=[(torch.randn(2, 800),), (torch.randn(3, 800),)],
                             dynamic_shapes=({0: B},), rtol=1e-3, atol=1e-3, source="log-mel front end"),
}
