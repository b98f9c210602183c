"""Control-flow cases for tests/cases-cf (torch.cond, while_loop, scan, map).

Run with real PyTorch (2.7+), from the repository root:
    /work/shared/tools/torch-env run 2.14 env PYTHONPATH=tests/gen \
        python3 ../shared/tools/gen2/gen.py tests/cases-cf control_flow
Each case has one sample per branch or trip count, so every path is checked."""
import torch
import torch.nn as nn
from torch.export import Dim


class NestedCond(nn.Module):
    """cond inside cond, both on data; the branches use a parameter and
    give two results."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 3) * 0.5)

    def forward(self, x, y):
        def inner_t(x, y):
            return x @ self.w + y, x * y
        def inner_f(x, y):
            return x - y, (x @ self.w).abs()
        def t(x, y):
            return torch.cond(y.mean() > 0, inner_t, inner_f, (x, y))
        def f(x, y):
            return y.sin(), x.cos() + 1.0
        return torch.cond(x.sum() > 0, t, f, (x, y))


def cf_nested_cond():
    x, y = torch.randn(4, 3).abs(), torch.rand(4, 3)
    return dict(model=NestedCond(), core=False, pt2=False,
                samples=[(x, y), (x, -y), (-x, y)],
                source="nested torch.cond on data, a captured parameter, two results")


class WhileCarries(nn.Module):
    """while_loop with four carried values of three dtypes, a parameter
    read by the body (an additional input) and a data-dependent count."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4) * 0.3)

    def forward(self, x, n):
        w = self.w
        def cond(i, h, s, lim):
            return (i < lim) & (s < 1000.0)
        def body(i, h, s, lim):
            h2 = torch.tanh(h @ w) + 0.1
            return i + 1, h2, s + h2.sum(), lim.clone()
        i0 = torch.zeros((), dtype=torch.int64)
        s0 = torch.zeros(())
        i, h, s, _ = torch._higher_order_ops.while_loop(
            cond, body, (i0, x, s0, n.squeeze()))
        return h, s, i


def cf_while_carries():
    x = torch.randn(2, 4)
    return dict(model=WhileCarries(), core=False, pt2=False,
                samples=[(x, torch.tensor([4])), (x, torch.tensor([0])), (x, torch.tensor([1]))],
                source="while_loop: several carries, a parameter in the body, trip counts 4, 0, 1")


class ScanReverse(nn.Module):
    """scan backwards along dim 1 with two carries, two scanned inputs and
    two stacked outputs; the batch is dynamic."""
    def forward(self, xs, zs):
        from torch._higher_order_ops.scan import scan
        def step(carry, x):
            a, b = carry
            x1, z1 = x
            a2 = a * 0.5 + x1
            b2 = torch.maximum(b, z1)
            return (a2, b2), (a2 + b2, a2 * 2)
        a0 = torch.zeros(xs.shape[0], 3)
        b0 = torch.full((xs.shape[0], 3), -1.0)
        (a, b), (ys, zs2) = scan(step, (a0, b0), (xs, zs), dim=1, reverse=True)
        return a, b, ys, zs2


def cf_scan_reverse():
    b = Dim("batch", min=1, max=16)
    return dict(model=ScanReverse(), core=False, pt2=False,
                samples=[(torch.randn(2, 5, 3), torch.randn(2, 5, 3)),
                         (torch.randn(3, 5, 3), torch.randn(3, 5, 3))],
                dynamic_shapes=({0: b}, {0: b}),
                source="scan reverse=True along dim 1, two carries, dynamic batch")


CASES = {"cf_nested_cond": cf_nested_cond, "cf_while_carries": cf_while_carries,
         "cf_scan_reverse": cf_scan_reverse}
