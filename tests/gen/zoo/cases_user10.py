"""bfloat16 inside float32 programs (ONNX Runtime's Node API has no bfloat16 tensors, so inputs and
outputs stay float32 and the model casts, as mixed-precision code does): a transformer MLP and
attention in bfloat16, normalizations, activations, reductions, a convolution block and an embedding
lookup, with dynamic batch and sequence sizes (torch.export.Dim)."""
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case

BF = torch.bfloat16


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 32).to(BF); self.b = nn.Linear(32, 16).to(BF); self.n = nn.LayerNorm(16).to(BF)
    def forward(self, x):
        h = x.to(BF)
        return (h + self.b(F.gelu(self.a(self.n(h))))).float()


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48, bias=False).to(BF)
    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x.to(BF)).view(b, t, 3, 2, 8).permute(2, 0, 3, 1, 4)
        s = (q @ k.transpose(-1, -2)) * 0.35
        return (s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, 16).float(), F.scaled_dot_product_attention(q, k, v, is_causal=True).float()


def elementwise(x):
    h = x.to(BF)
    return (F.silu(h).float(), torch.tanh(h).float(), torch.exp(h * 0.5).float(), torch.rsqrt(h.abs() + 1).float(),
            F.softplus(h).float(), (h * h + h / 3).float(), torch.sigmoid(h).float())


def reductions(x):
    h = x.to(BF)
    return (h.sum(-1).float(), h.mean(1).float(), h.amax(-1).float(), h.var(-1).float(), torch.logsumexp(h, -1).float(),
            h.softmax(-1).float(), h.log_softmax(1).float(), h.cumsum(1).float())


class ConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3, padding=1).to(BF); self.g = nn.GroupNorm(2, 8).to(BF)
    def forward(self, x):
        return F.max_pool2d(F.relu(self.g(self.c(x.to(BF)))), 2).float()


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(50, 8).to(BF); self.n = nn.RMSNorm(8).to(BF)
    def forward(self, ids):
        return self.n(self.e(ids)).float()


torch.manual_seed(0)
CASES = {
    "bf_mlp": lambda: case(MLP().eval(), (torch.randn(2, 5, 16),), (torch.randn(3, 7, 16),), dyn=({0: D, 1: D},), rtol=2e-2, atol=2e-2),
    "bf_attn": lambda: case(Attn().eval(), (torch.randn(2, 5, 16),), (torch.randn(1, 9, 16),), dyn=({0: D, 1: D},), rtol=2e-2, atol=2e-2),
    "bf_elementwise": lambda: case(Fn(elementwise), (torch.randn(3, 6),), (torch.randn(2, 11),), dyn=({0: D, 1: D},), rtol=1e-2, atol=1e-2),
    "bf_reductions": lambda: case(Fn(reductions), (torch.randn(3, 6),), (torch.randn(2, 11),), dyn=({0: D, 1: D},), rtol=2e-2, atol=2e-2),
    "bf_conv_block": lambda: case(ConvBlock().eval(), (torch.randn(2, 3, 8, 8),), (torch.randn(1, 3, 10, 6),),
                                  dyn=({0: D, 2: 2 * Dim("h", max=64), 3: 2 * Dim("w", max=64)},), rtol=2e-2, atol=2e-2),
    "bf_embed": lambda: case(Embed().eval(), (torch.tensor([[1, 5, 49], [0, 7, 7]]),), (torch.tensor([[3, 3, 2, 1, 0]]),), dyn=({0: D, 1: D},),
                             rtol=1e-2, atol=1e-2),
}
