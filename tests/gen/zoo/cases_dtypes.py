"""Integer and dtype semantics model code relies on: wrap-around, floor
division and modulo of negatives, truncating casts, promotion of Python
numbers, dtype= arguments, memory formats.  tools/zoo.sh runs it."""
import torch, torch.nn.functional as F
from cases_edges import Fn

def c(fn, *a, **kw):
    return lambda: dict(model=Fn(fn), samples=[tuple(a)], core=True, pt2=True, **kw)

i = torch.tensor([[-7, -3, 0, 5], [9, -1, 2, -8]])
u8 = torch.tensor([[250, 3, 128, 0], [7, 255, 100, 1]], dtype=torch.uint8)
i8 = torch.tensor([[120, -128, 5, -3], [127, 1, -100, 64]], dtype=torch.int8)
f = torch.tensor([[-2.7, -0.5, 0.5, 2.5], [3.5, -3.5, 1e10, -1e10]])
CASES = {
    "t_int_div_mod": c(lambda i: (i // 3, i % 3, i // -3, i % -3, torch.div(i, 3, rounding_mode="trunc"),
                                  torch.fmod(i, 3), torch.remainder(i, -4), i / 2), i),
    "t_wrap": c(lambda u, s: (u + 10, u * 3, u - 5, s + 10, s * 2, -s, s.abs(), (u + u).sum(), s.sum(), u.cumsum(1)), u8, i8),
    "t_casts": c(lambda f: (f.int(), f.long(), f.round(), torch.round(f, decimals=1), f.to(torch.uint8) if False else f.abs().clamp(0, 200).to(torch.uint8),
                            f.trunc(), f.ceil().int(), f.bool(), torch.nan_to_num(f / 0, 1.0, 2.0, -2.0)), f),
    "t_promote": c(lambda i, f: (i * 1.5, i + True, i / i.clamp(min=1), i * f, torch.where(i > 0, i, 0.5), i.float().mean(),
                                 torch.pow(i, 2), torch.pow(2, i.clamp(0, 10)), i.sum(dtype=torch.float32),
                                 torch.cumsum(i, 1, dtype=torch.float64), F.softmax(f, 1, dtype=torch.float64)), i, f),
    "t_bits": c(lambda i: (i & 6, i | 1, i ^ 5, ~i, i << 2, i >> 1, (i > 0) ^ (i < 3), i.sign(), torch.bitwise_right_shift(i, 2)), i),
    "t_memfmt": c(lambda x: (x.to(memory_format=torch.channels_last) * 2, x.contiguous(memory_format=torch.channels_last).sum(1),
                             F.conv2d(x.to(memory_format=torch.channels_last), torch.ones(2, 3, 1, 1))), torch.randn(1, 3, 4, 5)),
    "t_minmax_int": c(lambda i: (i.max(), i.min(1)[0], i.amax(0), torch.clamp(i, -2, 3), torch.clamp(i, min=torch.tensor(0)),
                                 i.argmax(1), i.argmin(), torch.maximum(i, torch.tensor(1)), i.topk(2, 1)[0], i.sort(dim=1, stable=True)[1]), i),
    "t_gelu_tanh": c(lambda x: (F.gelu(x, approximate="tanh"), F.silu(x), F.mish(x), F.hardswish(x), F.elu(x, 2.0), F.celu(x, 0.5)), f / 3),
}
