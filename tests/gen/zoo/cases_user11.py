"""Model code with dynamic sizes (torch.export.Dim), the factories and views no other module tried:
float-step arange of a symbolic length, causal masks built with full/triu/tril,
split by symbolic sizes and unbind, as_strided windows, gather of sort's indices, data-dependent selections
(nonzero, argwhere, masked_select, a boolean index) of a dynamic input, einsum of several forms,
expand/repeat/tile by a size read from another input, negative pads (crops), diff, rot90, sort
stable and descending, searchsorted into dynamic boundaries, scatter_reduce and index_add."""
import torch, torch.nn.functional as F
from torch.export import Dim

from dynlib import D, Fn, case


def spaces(x):
    n = x.shape[1]  # linspace/logspace of a symbolic length: torch.export makes it static
    return torch.arange(0, n, 0.5), torch.arange(n).float() / n, x * torch.arange(n, 0, -1)


def causal_masks(x):
    t = x.shape[1]
    m = torch.full((t, t), float("-inf")).triu(1)
    b = torch.ones(t, t, dtype=torch.bool).tril(-1)
    s = x @ x.transpose(-1, -2)
    return (s + m).softmax(-1), s.masked_fill(b, 0.0), torch.eye(t, t + 1)


def splits(x):
    t = x.shape[1]
    a, b = torch.split(x, [2, t - 2], dim=1)
    u = x.unbind(2)
    return a.sum(1), b.cumsum(1), u[0] * u[2], torch.stack(u[::-1], -1)


def windows(x):
    n = x.shape[0]
    w = x.as_strided((n - 2, 3), (1, 1))
    return w.sum(1), w.amax(1)


def along(x):
    i = x.argsort(1, descending=True)  # take_along_dim: torch.export makes the sizes static
    v, j = x.sort(dim=1, stable=True)
    return x.gather(1, i), v, j, x.gather(1, j[:, :1])


def selections(x):
    m = x > 0
    return torch.nonzero(m), torch.argwhere(x < -0.5), torch.masked_select(x, m).sum(), x[m].mean()


def einsums(q, k):
    s = torch.einsum("bhqd,bhkd->bhqk", q, k)
    return s, torch.einsum("...ij->...ji", s), torch.einsum("bhqq->bhq", s), torch.einsum("bhqd,bhqd->bh", q, q)


def sized_from(x, y):
    n = y.shape[0]
    return x.expand(n, -1) + y, x.repeat(n, 2), x.tile((n, 1)), y.new_zeros(n, x.shape[1]) + 1


def crops(x):
    return F.pad(x, (-1, -1, 0, -2)), F.pad(x, (2, -1)), torch.diff(x, dim=1), torch.diff(x, dim=0, prepend=x[:1])


def rotations(x):
    return torch.rot90(x, 1, (1, 2)), torch.rot90(x, 2, (1, 2)), torch.rot90(x, -1, (1, 2))


def buckets(b, x):
    edges = b.sort().values
    return torch.searchsorted(edges, x), torch.searchsorted(edges, x, right=True), torch.bucketize(x, edges)


def reduce_into(x, idx):
    n = x.shape[0]
    z = torch.zeros(4, x.shape[1])
    a = z.scatter_reduce(0, idx[:, None].expand(n, x.shape[1]), x, "amax", include_self=False)
    m = z.scatter_reduce(0, idx[:, None].expand(n, x.shape[1]), x, "mean")
    return a, m, z.index_add(0, idx, x, alpha=0.5)


torch.manual_seed(0)
CASES = {
    "u11_spaces": lambda: case(Fn(spaces), (torch.randn(2, 5),), (torch.randn(3, 9),), dyn=({0: D, 1: D},)),
    "u11_causal_masks": lambda: case(Fn(causal_masks), (torch.randn(2, 5, 4),), (torch.randn(1, 8, 4),), dyn=({0: D, 1: D},)),
    "u11_splits": lambda: case(Fn(splits), (torch.randn(2, 6, 3),), (torch.randn(3, 4, 3),), dyn=({0: D, 1: D},)),
    "u11_windows": lambda: case(Fn(windows), (torch.randn(7),), (torch.randn(12),), dyn=({0: Dim("n", min=4, max=64)},)),
    "u11_along": lambda: case(Fn(along), (torch.randn(3, 6),), (torch.randn(2, 9),), dyn=({0: D, 1: D},)),
    "u11_selections": lambda: case(Fn(selections), (torch.randn(3, 6),), (torch.randn(4, 5),), dyn=({0: D, 1: D},)),
    "u11_einsums": lambda: case(Fn(einsums), (torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4)),
                                (torch.randn(1, 3, 7, 4), torch.randn(1, 3, 7, 4)),
                                dyn=({0: Dim("b"), 2: Dim("t")}, {0: Dim("b"), 2: Dim("t")})),
    "u11_sized_from": lambda: case(Fn(sized_from), (torch.randn(1, 4), torch.randn(3, 4)), (torch.randn(1, 4), torch.randn(6, 4)),
                                   dyn=(None, {0: D})),
    "u11_crops": lambda: case(Fn(crops), (torch.randn(5, 6),), (torch.randn(7, 9),), dyn=({0: D, 1: D},)),
    "u11_rotations": lambda: case(Fn(rotations), (torch.randn(2, 3, 5),), (torch.randn(1, 6, 4),), dyn=({0: D, 1: D, 2: D},)),
    "u11_buckets": lambda: case(Fn(buckets), (torch.randn(6), torch.randn(2, 4)), (torch.randn(9), torch.randn(3, 5)),
                                dyn=({0: D}, {0: D, 1: D})),
    "u11_reduce_into": lambda: case(Fn(reduce_into), (torch.randn(5, 3), torch.tensor([0, 2, 2, 3, 0])),
                                    (torch.randn(8, 3), torch.tensor([1, 1, 1, 0, 3, 3, 2, 0])),
                                    dyn=({0: Dim("n")}, {0: Dim("n")})),
}
