"""Other ways model code runs: fake quantization, autograd.Function, checkpoint, item(), static KV cache."""
import torch, torch.nn as nn, torch.nn.functional as F
from cases_edges import Fn

class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x); return x * x.sigmoid()
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors; return g * 2

class AF(nn.Module):
    def forward(s, x): return Sq.apply(x) + 1

class CK(nn.Module):
    def __init__(s):
        super().__init__(); s.l = nn.Linear(4, 4)
    def forward(s, x):
        from torch.utils.checkpoint import checkpoint
        return checkpoint(lambda y: s.l(y).relu(), x, use_reentrant=False)

class FQ(nn.Module):
    def forward(s, x):
        return (torch.fake_quantize_per_tensor_affine(x, 0.1, 3, -128, 127),
                torch.fake_quantize_per_channel_affine(x, torch.tensor([0.1, 0.05, 0.2]), torch.tensor([0, 1, 2], dtype=torch.int32), 1, 0, 255),
                torch.fake_quantize_per_tensor_affine(x, torch.tensor(0.2), torch.tensor(0), 0, 15))

class QAT(nn.Module):
    def __init__(s):
        super().__init__()
        s.fq = torch.ao.quantization.FakeQuantize(observer=torch.ao.quantization.MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
        s.l = nn.Linear(4, 3)
    def forward(s, x): return s.l(s.fq(x))

class Item(nn.Module):
    def forward(s, x):
        m = x.max().item()
        return x / m, torch.full((2,), x.sum().item())

class Static(nn.Module):
    def __init__(s):
        super().__init__()
        s.register_buffer("k", torch.zeros(1, 2, 8, 4)); s.register_buffer("v", torch.zeros(1, 2, 8, 4))
    def forward(s, kn, vn, pos):
        s.k.index_copy_(2, pos, kn); s.v[:, :, pos] = vn
        return F.scaled_dot_product_attention(kn, s.k, s.v)

def c(m, *a, **kw):
    return lambda: dict(model=m, samples=[tuple(a)], core=True, pt2=True, **kw)
x = torch.randn(3, 4)
CASES = {
    "q_autograd_fn": c(AF(), x), "q_checkpoint": c(CK(), x), "q_fake_quant": c(FQ(), torch.randn(2, 3, 4)),
    "q_qat": c(QAT().eval(), x), "q_item": c(Item(), x.abs() + 0.5),
    "q_static_cache": c(Static(), torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4), torch.tensor([2, 3, 4])),
    "q_where1": c(Fn(lambda x: torch.where(x > 0)[1] * 1), x),
    "q_tolist_shape": c(Fn(lambda x: x.reshape(-1, x.shape[1] // 2) * 2), x),
}
