"""Part of the held-out stand-in sweep (tools/zoo.sh)."""
import torch
from torch.export import Dim
def tvd(fn, hw=(64, 64), hw2=(96, 80), **kw):
    def b():
        import torchvision.models as M
        if not hasattr(M, fn): import torchvision.models.segmentation as M
        m = None
        if "weights_backbone" not in kw and fn in ("lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "fcn_resnet50"):
            m = getattr(M, fn)(weights=None, weights_backbone=None).eval()
        if m is None:
            m = getattr(M, fn)(weights=None, **kw).eval()
        return dict(model=m, samples=[(torch.randn(2, 3, *hw),), (torch.randn(3, 3, *hw2),)],
                    dynamic_shapes=({0: Dim.DYNAMIC, 2: Dim.DYNAMIC, 3: Dim.DYNAMIC},), rtol=1e-3, atol=1e-4, core=True, pt2=True)
    return b
CASES = {f"d_{n}": tvd(n) for n in ["resnet18", "mobilenet_v3_small", "efficientnet_b0", "regnet_y_400mf", "densenet121", "squeezenet1_1", "shufflenet_v2_x0_5", "mnasnet0_5", "googlenet", "lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "fcn_resnet50", "convnext_tiny"]}
# AdaptiveAvgPool2d((7, 7)) of a dynamic size (torch.export fails on AlexNet's ((6, 6)))
CASES.update({f"d_{n}": tvd(n, hw=(64, 64), hw2=(72, 96)) for n in ["vgg11"]})
