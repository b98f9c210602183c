"""Hand-made cases for torch.histogram and torch.histogramdd (tests/cases-ops, hist_*): bin
counts with the data's range (values on the edges linspace makes, an empty range widened by
0.5), a range given (values outside it and NaN dropped), weights, density, tensor edges (not
evenly spaced, values on them), float32 and float64; histogramdd with a bin count per dim, one
for all and tensor edges.  Each in the training IR and core ATen (whose histogramdd calls
_histogramdd_bin_edges and _histogramdd_from_bin_cts / _from_bin_tensors).  Run inside
../shared/tools/torch-env (torch 2.14):
    python3 tests/gen/make_histogram_cases.py tests/cases-ops"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../shared/tools/gen2"))
from caselib import write_case  # noqa: E402


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        # a plain tuple: torch.return_types do not serialize
        return tuple(self.fn(*args))


def case(out, name, fn, samples, **kw):
    write_case(out, "hist_" + name, Fn(fn), samples, source="tests/gen/make_histogram_cases.py",
               **kw)
    print("ok  ", name)


def fma_sensitive(dtype, bins, seed):
    """A linspace(a, b, bins + 1) whose inner edges the kernel's fused multiply-adds put an ulp
    away from plain a + step * i (or b - step * j): as data (its ends are the data's range, so
    the edges are its own points) an element lands in another bin unless the edges match."""
    g = torch.Generator().manual_seed(seed)
    steps = bins + 1
    for _ in range(100000):
        a, b = sorted((torch.rand(2, generator=g, dtype=torch.float64) * 20 - 10).tolist())
        e = torch.linspace(a, b, steps, dtype=dtype)
        s, t = e[0], e[-1]
        step = (t - s) / bins
        i = torch.arange(steps, dtype=dtype)
        plain = torch.where(i < steps // 2, s + step * i, t - step * (bins - i))
        if (plain[1:-1] > e[1:-1]).any():
            return e
    raise RuntimeError("no linspace found where a fused multiply-add matters")


def main(out):
    g = torch.Generator().manual_seed(35)
    # the edges of linspace(-1, 2, 13) are points of the data: every one on an edge
    on = torch.linspace(-1, 2, 13)
    x = torch.cat([on, torch.rand(23, generator=g) * 3 - 1]).reshape(4, 9)
    x2 = torch.cat([on, torch.randn(23, generator=g)]).reshape(4, 9)
    for bins in (12, 6, 4):
        case(out, "ct%d" % bins, lambda t, b=bins: torch.histogram(t, bins=b), [(x,), (x2,)])
    xd = torch.cat([torch.linspace(-3, 5, 15, dtype=torch.float64),
                    torch.rand(17, generator=g, dtype=torch.float64) * 8 - 3])
    case(out, "ct_f64", lambda t: torch.histogram(t, bins=14), [(xd,)])
    case(out, "ct_f64_odd", lambda t: torch.histogram(t, bins=7), [(xd * 0.1 + 0.3,)])
    # all equal: the range widens to [v - 0.5, v + 0.5]
    # the kernel's own edges as data: they must fall in their own bins
    for dt, nm in ((torch.float32, "f32"), (torch.float64, "f64")):
        for bins in (9, 13, 40):  # by 0, 1, 2 and 4 are exact; 41 steps: the vector loop
            e = fma_sensitive(dt, bins, bins)
            case(out, "fma_%s_%d" % (nm, bins), lambda t, b=bins: torch.histogram(t, bins=b),
                 [(e,)])
    # no points: edges [0, 1] without a range, the range's with one
    case(out, "ct_empty", lambda t: torch.histogram(t, bins=3), [(torch.empty(0, 2),)])
    case(out, "ct_empty_range", lambda t: torch.histogram(t, bins=2, range=(1.0, 2.0)),
         [(torch.empty(0),)])
    case(out, "ct_flat", lambda t: torch.histogram(t, bins=3), [(torch.full((5,), 3.25),)])
    # a range: outside and NaN dropped, its ends and inner edges counted once
    xr = torch.tensor([-0.5, -0.6, 0.0, 0.1, 0.3, 0.5, 0.9, 1.1, 1.5, 1.7, math.nan, math.inf,
                       0.7, 0.2])
    w = torch.rand(14, generator=g)
    case(out, "range_weight", lambda t, ww: torch.histogram(t, bins=5, range=(-0.5, 1.5),
                                                           weight=ww), [(xr, w)])
    case(out, "range_density", lambda t, ww: torch.histogram(t, bins=4, range=(-0.5, 1.5),
                                                            weight=ww, density=True), [(xr, w)])
    case(out, "density", lambda t: torch.histogram(t, bins=5, density=True), [(x,), (x2,)])
    # tensor edges, unevenly spaced, with points on them and past them
    e = torch.tensor([-1.0, -0.25, 0.0, 0.5, 1.75, 2.0])
    case(out, "edges", lambda t, ee: torch.histogram(t, ee), [(x, e), (x2, e)])
    case(out, "edges_weight_density", lambda t, ee, ww: torch.histogram(
        t, ee, weight=ww, density=True), [(x, e, torch.rand(4, 9, generator=g))])
    ed = torch.tensor([-3.0, -1.0, 0.5, 0.75, 4.0, 5.0], dtype=torch.float64)
    case(out, "edges_f64", lambda t, ee: torch.histogram(t, ee), [(xd, ed)])
    # histogramdd: 2-D and 3-D points
    p = torch.cat([torch.stack([on, on.flip(0)], 1), torch.rand(17, 2, generator=g) * 3 - 1])
    case(out, "dd_cts", lambda t: torch.histogramdd(t, bins=[3, 4]), [(p,)])
    case(out, "dd_int_range_weight", lambda t, ww: torch.histogramdd(
        t, bins=4, range=[-1.0, 2.0, -0.5, 1.5], weight=ww, density=True),
        [(p, torch.rand(30, generator=g))])
    p3 = torch.rand(2, 10, 3, generator=g, dtype=torch.float64) * 2 - 1
    case(out, "dd_f64", lambda t: torch.histogramdd(t, bins=[2, 3, 5], density=True), [(p3,)])
    case(out, "dd_edges", lambda t, a, b: torch.histogramdd(t, [a, b]),
         [(p, torch.tensor([-1.0, 0.0, 0.5, 2.0]), torch.tensor([-1.0, 1.0, 2.0]))])


if __name__ == "__main__":
    main(sys.argv[1])
