"""quantile / nanquantile with each interpolation mode (tests/cases-ops),
lowered by the decompose pass (passes/decompose/select.c).  Made with
    PYTHONPATH=tests/gen /work/shared/tools/torch-env run 2.14 python3 \
        /work/shared/tools/gen2/gen.py tests/cases-ops cases_quantile
"""
import torch


class Q(torch.nn.Module):
    def __init__(self, fn, q, mode):
        super().__init__()
        self.fn, self.q, self.mode = fn, q, mode

    def forward(self, x):
        return self.fn(x, self.q, dim=1, keepdim=True, interpolation=self.mode)


def case(fn, q, mode):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(3, 7, 4, generator=g)
    y = x.clone()
    y[0, 2, 1] = float("nan")
    return lambda: dict(model=Q(fn, q, mode), samples=[(x,), (y,)], core=False,
                        pt2=False)


CASES = {f"{fn.__name__}_{mode}_{int(q * 100)}": case(fn, q, mode)
         for fn in (torch.quantile, torch.nanquantile)
         for q, mode in ((0.3, "lower"), (0.3, "higher"), (0.5, "nearest"),
                         (0.25, "nearest"), (0.7, "linear"))}
