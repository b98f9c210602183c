"""Hand-made cases for tests/cases-special beyond the OpInfo samples: igamma and igammac
(torch.special.gammainc/gammaincc) on a grid of a against x across their magnitudes and
the switches of PyTorch's kernel (x against 0.5, 1, 1.1 and a; a against 20 and 200, where
Temme's expansion takes over near x), the edges (0, inf, NaN, negative), and samples of x
within a few sqrt(a) of a up to a = 1e6; in float32 and float64.  Run inside
../shared/tools/torch-env (torch 2.14):
    python3 tests/gen/make_igamma_cases.py tests/cases-special"""
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
        return self.fn(*args)


def samples(dtype):
    nan, inf = math.nan, math.inf
    a = torch.tensor([0.0, 1e-30, 1e-6, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 5.0, 10.0, 19.9, 21.0,
                      50.0, 100.0, 199.0, 201.0, 500.0, 1000.0, 1e4, inf, nan, -1.0],
                     dtype=dtype).reshape(-1, 1)
    x = torch.tensor([0.0, 1e-30, 1e-8, 1e-3, 0.1, 0.3, 0.5, 0.7, 1.0, 1.05, 1.1, 1.2, 2.0, 5.0,
                      10.0, 20.0, 25.0, 50.0, 100.0, 150.0, 210.0, 500.0, 990.0, 1000.0, 1010.0,
                      1e4, 1e5, inf, nan, -1.0], dtype=dtype)
    grid = (a, x)
    # x near a, where PyTorch uses Temme's expansion, and either side of its bounds
    g = torch.Generator().manual_seed(0)
    av = 10 ** (torch.rand(400, generator=g, dtype=torch.float64) * 6 - 0)
    z = torch.randn(400, generator=g, dtype=torch.float64) * 3
    xv = (av + z * av.sqrt()).abs()
    near = (av.to(dtype), xv.to(dtype))
    # a and x each over many magnitudes
    aw = 10 ** (torch.rand(600, generator=g, dtype=torch.float64) * 12 - 8)
    xw = aw * 10 ** (torch.rand(600, generator=g, dtype=torch.float64) * 6 - 3)
    wide = (aw.to(dtype), xw.to(dtype))
    return {"grid": grid, "near": near, "wide": wide}


def main(out):
    src = "tests/gen/make_igamma_cases.py"
    for dtype, tag, tol in [(torch.float32, "f32", dict(rtol=1e-3, atol=1e-4)),
                            (torch.float64, "f64", dict(rtol=1e-7, atol=1e-10))]:
        for part, args in samples(dtype).items():
            for name, fn in [("igamma", torch.igamma), ("igammac", torch.igammac)]:
                write_case(out, f"sp_{name}_{tag}_{part}", Fn(fn), [args], core=False,
                           pt2=False, source=src, **tol)
                print("ok  ", name, tag, part)
    # torch.special's spellings stay special_gammainc/gammaincc in the export
    wide = samples(torch.float32)["wide"]
    write_case(out, "sp_gammainc_pair", Fn(lambda a, x: (torch.special.gammainc(a, x),
                                                         torch.special.gammaincc(a, x))),
               [wide], core=False, pt2=False, source=src)
    print("ok   gammainc pair")
    # small a and x, the kernel's small-x series of Q: float64 to 1e-12 (its lgamma(1 + a)
    # of 1 + a rounded, as PyTorch has it)
    g = torch.Generator().manual_seed(1)
    sa = 10 ** (torch.rand(500, generator=g, dtype=torch.float64) * 12.2 - 12)
    sx = 10 ** (torch.rand(500, generator=g, dtype=torch.float64) * 4.05 - 4)
    for name, fn in [("igamma", torch.igamma), ("igammac", torch.igammac)]:
        write_case(out, f"sp_{name}_f64_small", Fn(fn), [(sa, sx)], core=False, pt2=False,
                   source=src, rtol=1e-12, atol=1e-300)
    print("ok   small")
    # float16 (computed in float by PyTorch, rounded once) on the grid's finite part
    a16 = torch.tensor([1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 21.0, 100.0, 1000.0],
                       dtype=torch.float16).reshape(-1, 1)
    x16 = torch.tensor([0.0, 1e-3, 0.3, 0.7, 1.05, 2.0, 10.0, 25.0, 90.0, 1000.0, 1e4],
                       dtype=torch.float16)
    for name, fn in [("igamma", torch.igamma), ("igammac", torch.igammac)]:
        write_case(out, f"sp_{name}_f16", Fn(fn), [(a16, x16)], core=False, pt2=False,
                   source=src, rtol=2e-3, atol=1e-3)
    print("ok   float16")
    # a dynamic length, a sample of each size
    n = torch.export.Dim("n")
    near = samples(torch.float32)["near"]
    write_case(out, "sp_igamma_dynamic", Fn(torch.igamma),
               [near, (near[0][:37], near[1][:37])],
               dynamic_shapes=(({0: n}, {0: n}),), core=False, pt2=True, source=src)
    print("ok   dynamic")


if __name__ == "__main__":
    main(sys.argv[1])
