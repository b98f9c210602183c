"""Hand-made cases for tests/cases-ops: reductions over zero elements (NaN,
as PyTorch gives).  Made with real PyTorch:

    /work/shared/tools/torch-env run 2.14 python3 /work/shared/tools/gen2/gen.py \
        tests/cases-ops make_ops_cases   (with tests/gen on PYTHONPATH)

The other cases of tests/cases-ops are OpInfo samples 2 and 3, made with
../shared/tools/gen2/opinfo_cases.py (the training-IR form only).
"""
import torch
import torch.nn as nn


def case(model, *samples):
    return dict(model=model, samples=list(samples), core=False, pt2=False)


class EmptyMeans(nn.Module):
    """mean, var_mean, std_mean, var over a dim of size 0 and over an empty tensor."""
    def forward(self, x, e):
        v, m = torch.var_mean(e)
        s, m2 = torch.std_mean(x, dim=1)
        return (x.mean(1), x.mean(), v, m, s, m2, torch.var(x, 1),
                e.mean(0, keepdim=True), x.sum(1))


class Special(nn.Module):
    """The special functions the decompose pass writes as series (special.c)."""
    def forward(self, x, y, p):
        sp = torch.special
        ax = x.abs()
        return (torch.lgamma(x), torch.digamma(x), torch.polygamma(1, x), torch.polygamma(3, x),
                torch.mvlgamma(ax + 3, 3), torch.erfinv(y), sp.ndtr(x), sp.log_ndtr(x), sp.ndtri(p),
                sp.erfcx(x), sp.entr(x), torch.sinc(x), sp.xlog1py(x, y.abs()), sp.zeta(ax + 1.5, x),
                torch.i0(x), sp.i0e(x), sp.i1(x), sp.i1e(x), sp.modified_bessel_k0(ax),
                sp.modified_bessel_k1(ax), sp.scaled_modified_bessel_k0(ax),
                sp.scaled_modified_bessel_k1(ax), sp.spherical_bessel_j0(x))


def special_samples():
    g = torch.Generator().manual_seed(1)
    x = torch.rand(64, generator=g) * 18 - 9
    x[:4] = torch.tensor([0.25, 1.0, 2.0, 30.0])
    y = torch.rand(64, generator=g) * 1.98 - 0.99
    p = torch.rand(64, generator=g) * 0.998 + 0.001
    return (x, y, p)


class Quantiles(nn.Module):
    """quantile and nanquantile over a dim, over everything, with NaN (decompose select.c)."""
    def forward(self, x):
        return (torch.quantile(x, 0.3, dim=1), torch.quantile(x, 0.75, dim=0, keepdim=True),
                torch.quantile(x, 0.5), torch.nanquantile(x, 0.4, dim=1),
                torch.nanquantile(x, 0.9, dim=0, keepdim=True), torch.nanquantile(x, 1.0))


def quantile_samples():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(5, 7, generator=g)
    x[1, 3] = float("nan")
    x[4, :] = float("nan")
    return (x,)


class Frexp(nn.Module):
    """frexp at powers of two, next to them, 0, -0, inf, NaN (decompose arith.c)."""
    def forward(self, x):
        m, e = torch.frexp(x)
        return m, e


def frexp_samples():
    v = [1.0, 2.0, 0.5, 0.99999994, 1.0000001, 3.0, -4.0, -0.75, 1e-30, 3e38, 0.0, -0.0,
         float("inf"), float("-inf"), 1023.9999, 1024.0, 7.0e-3, 12345.678]
    return (torch.tensor(v),)


class IndexOps(nn.Module):
    """index_add, index_copy, index_fill along a dim of a matrix (decompose select.c)."""
    def forward(self, x, src, v):
        i = torch.tensor([3, 0, 2])
        return (x.index_add(1, i, src, alpha=2.5), x.index_copy(1, i, src),
                x.index_fill(0, torch.tensor([1, 3]), -7.0), x.index_fill(1, i, v),
                x.index_add(0, torch.tensor([1, 1]), x[:2] * 2))


class Spaces(nn.Module):
    """linspace / logspace with tensor bounds (decompose select.c)."""
    def forward(self, a, b):
        return (torch.linspace(a, b, 7), torch.linspace(a, 3.5, 6), torch.linspace(-2.0, b, 1),
                torch.logspace(a, b, 5, base=2.0), torch.logspace(a, 1.0, 4))


CASES = {
    "spaces": lambda: case(Spaces(), (torch.tensor(-1.25), torch.tensor(2.5))),
    "index_ops": lambda: case(IndexOps(), (torch.randn(4, 5), torch.randn(4, 3), torch.tensor(9.0))),
    "frexp": lambda: case(Frexp(), frexp_samples()),
    "quantiles": lambda: case(Quantiles(), quantile_samples()),
    "special_fns": lambda: case(Special(), special_samples()),
    "zero_mean": lambda: case(EmptyMeans(), (torch.randn(3, 0, 2), torch.randn(0, 4))),
}
