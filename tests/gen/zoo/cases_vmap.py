"""torch.vmap as model code uses it: ensembles (functional_call), per-sample
models, views, attention per sample.  tools/zoo.sh runs it."""
import torch, torch.nn as nn, torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap
import copy

class MLP(nn.Module):
    def __init__(s):
        super().__init__(); s.a = nn.Linear(4, 8); s.b = nn.Linear(8, 3)
    def forward(s, x): return s.b(F.relu(s.a(x)))

class Ensemble(nn.Module):
    def __init__(s, n=3):
        super().__init__()
        ms = [MLP() for _ in range(n)]
        p, b = stack_module_state(ms)
        s.names = list(p)
        for k, v in p.items(): s.register_buffer(k.replace(".", "_"), v.detach())
        s.base = copy.deepcopy(ms[0])
    def forward(s, x):
        params = {k: getattr(s, k.replace(".", "_")) for k in s.names}
        f = lambda p, x: functional_call(s.base, (p,), (x,))
        return vmap(f, in_dims=(0, None))(params, x)

class PerSample(nn.Module):
    def __init__(s):
        super().__init__(); s.m = MLP()
    def forward(s, x):
        return vmap(lambda r: s.m(r).softmax(-1))(x)

class Views(nn.Module):
    def forward(s, x):
        return vmap(lambda r: r.reshape(2, 6).transpose(0, 1).sum(0))(x)

class Heads(nn.Module):
    def forward(s, q, k):
        def att(q, k):  # per sample: q [T, D], k [T, D]
            return (q @ k.T / 2).softmax(-1)
        return vmap(att)(q, k)

class Dist(nn.Module):
    def forward(s, a, b):
        return vmap(lambda x: ((x - b) ** 2).sum(-1).sqrt())(a)

def c(m, *a):
    return lambda: dict(model=m, samples=[tuple(a)], core=False, pt2=False)
CASES = {
    "v_ensemble": c(Ensemble(), torch.randn(5, 4)), "v_per_sample": c(PerSample(), torch.randn(6, 4)),
    "v_views": c(Views(), torch.randn(3, 12)), "v_heads": c(Heads(), torch.randn(2, 5, 4), torch.randn(2, 5, 4)),
    "v_dist": c(Dist(), torch.randn(4, 3), torch.randn(5, 3)),
}
