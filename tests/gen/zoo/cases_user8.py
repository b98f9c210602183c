"""Higher-order ops with dynamic sizes (torch.export.Dim): torch.cond on a data-dependent predicate and
on a shape, torch.ops.higher_order.map over a dynamic leading dim, torch.func.vmap of a per-sample
function over a dynamic batch, associative and sequential scans (torch._higher_order_ops.scan), and a
while_loop whose carried state has a dynamic size."""
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


class CondData(nn.Module):
    def __init__(self):
        super().__init__(); self.l = nn.Linear(4, 4)
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: self.l(x).relu(), lambda x: x.flip(0) * 2, (x,))


class CondShape(nn.Module):
    def forward(self, x):
        return torch.cond(x.shape[0] > 4, lambda x: x[:2] + 1, lambda x: x[-2:] - 1, (x,))


class MapRows(nn.Module):
    def forward(self, xs, w):
        from torch._higher_order_ops.map import map as hmap
        return hmap(lambda x, w: (x @ w).softmax(-1), xs, w)


def per_sample(x, y):
    def one(a, b):
        return (a * b).sum() / (a.norm() * b.norm() + 1e-6), torch.outer(a, b).trace()
    return torch.func.vmap(one)(x, y)


class Scan(nn.Module):
    def forward(self, xs):
        from torch._higher_order_ops.scan import scan
        def step(h, x):
            h2 = torch.tanh(h * 0.5 + x)
            return h2, h2 * 2
        return scan(step, torch.zeros(xs.shape[1]), xs)


class While(nn.Module):
    def forward(self, x):
        from torch._higher_order_ops.while_loop import while_loop
        def cond(i, v):
            return i < 5
        def body(i, v):
            return i + 1, v * 0.5 + v.mean()
        return while_loop(cond, body, (torch.tensor(0), x))


torch.manual_seed(0)
CASES = {
    "r_cond_data": lambda: case(CondData().eval(), (torch.randn(3, 4),), (torch.randn(5, 4),), dyn=({0: D},)),
    "r_cond_shape": lambda: case(CondShape(), (torch.randn(6, 3),), (torch.randn(3, 3),), dyn=({0: Dim("n", min=2, max=64)},)),
    "r_map_rows": lambda: case(MapRows(), (torch.randn(3, 2, 4), torch.randn(4, 5)), (torch.randn(5, 2, 4), torch.randn(4, 5)), dyn=({0: D}, None)),
    "r_vmap": lambda: case(Fn(per_sample), (torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(6, 4), torch.randn(6, 4)),
                           dyn=({0: Dim("b")}, {0: Dim("b")})),
    "r_scan": lambda: case(Scan(), (torch.randn(5, 3),), (torch.randn(8, 3),), dyn=({0: D},)),
    "r_while": lambda: case(While(), (torch.randn(4, 3),), (torch.randn(2, 3),), dyn=({0: D},)),
}
