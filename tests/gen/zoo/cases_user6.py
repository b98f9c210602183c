"""Model code that writes into tensors, with dynamic sizes (torch.export.Dim): in-place updates through
views of symbolic bounds (a cache's tail, a prefix, strided rows), index_put with tensors and slices,
scatter_ and masked_fill_ into fresh buffers sized from the input, expand/repeat/unflatten by a symbolic
size, roll and narrow by symbolic amounts, flips and reversed cumulative sums, stacks and
concatenations of dynamic pieces, and the tensor factories of symbolic size (new_full, full_like,
zeros, arange with a start and a step)."""
import torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


def tail_write(buf, x):
    y = buf.clone()
    t = x.shape[1]
    y[:, -t:] = x
    y[:, :t] += 1.0
    y[:, ::2] *= 0.5
    return y


def index_writes(x, idx, upd):
    y = x.clone()
    y[idx] = upd
    z = x.clone()
    z[:, 1:3] = 0.0
    z.index_put_((idx,), upd, accumulate=True)
    return y, z


def fresh_buffers(x, idx):
    b, n = x.shape
    oh = torch.zeros(b, 6).scatter_(1, idx, 1.0)
    m = x.new_full((b, n), 2.0).masked_fill_(x > 0, -1.0)
    e = torch.full_like(x, 3.0)
    e[x < -1] = 0.0
    return oh, m, e


def reshapes(x, v):
    b, t, c = x.shape
    y = v.expand(b, -1, -1) + x
    r = x.repeat(1, 2, 1)
    u = x.unflatten(1, (t // 2, 2)).sum(2)
    return y, r, u, x.reshape(b, -1).flip(1), x.transpose(0, 1).contiguous().view(t, -1)


def shifts(x):
    t = x.shape[1]
    return torch.roll(x, t // 2, 1), x.narrow(1, 1, t - 2), x.flip(1).cumsum(1).flip(1), torch.roll(x, -1, 0)


def stacks(a, b):
    return torch.stack([a, b, a * b], 1), torch.cat([a, b[:, :1], b], 1), torch.cat([a[None], b[None]]).amax(0)


def factories(x):
    b, n = x.shape
    r = torch.arange(1, n + 1, 2, dtype=torch.float32)
    z = torch.zeros(b, n + 2)
    z[:, 1:-1] = x
    return r, z, torch.ones(b, 1).expand(b, n) * x, torch.eye(n, 3)


torch.manual_seed(0)
CASES = {
    "z_tail_write": lambda: case(Fn(tail_write), (torch.randn(2, 10), torch.randn(2, 4)), (torch.randn(3, 10), torch.randn(3, 7)),
                                 dyn=({0: Dim("b")}, {0: Dim("b"), 1: Dim("t", min=2, max=9)})),
    "z_index_writes": lambda: case(Fn(index_writes), (torch.randn(5, 4), torch.tensor([0, 3]), torch.randn(2, 4)),
                                   (torch.randn(7, 4), torch.tensor([6, 1, 2]), torch.randn(3, 4)),
                                   dyn=({0: Dim("n")}, {0: Dim("k")}, {0: Dim("k")})),
    "z_fresh_buffers": lambda: case(Fn(fresh_buffers), (torch.randn(3, 5), torch.tensor([[0, 2], [5, 5], [1, 4]])),
                                    (torch.randn(2, 8), torch.tensor([[3, 3], [0, 1]])), dyn=({0: Dim("b"), 1: D}, {0: Dim("b")})),
    "z_reshapes": lambda: case(Fn(reshapes), (torch.randn(2, 6, 3), torch.randn(1, 6, 3)), (torch.randn(3, 4, 3), torch.randn(1, 4, 3)),
                               dyn=({0: D, 1: 2 * Dim("h", min=2, max=32)}, {1: 2 * Dim("h", min=2, max=32)})),
    "z_shifts": lambda: case(Fn(shifts), (torch.randn(3, 7),), (torch.randn(2, 12),), dyn=({0: D, 1: Dim("t", min=4, max=64)},)),
    "z_stacks": lambda: case(Fn(stacks), (torch.randn(2, 3), torch.randn(2, 3)), (torch.randn(4, 5), torch.randn(4, 5)),
                             dyn=({0: Dim("b"), 1: Dim("n")}, {0: Dim("b"), 1: Dim("n")})),
    "z_factories": lambda: case(Fn(factories), (torch.randn(2, 5),), (torch.randn(3, 8),), dyn=({0: D, 1: Dim("n", min=3, max=64)},)),
}
