"""Hand-made cases for tests/cases-ops: 3-D grid sampling below opset 20
(lower/lower_nn_grid.c: Gathers, not GridSample) and hash_tensor
(lower/lower_reduce_hash.c: bit patterns rebuilt arithmetically).  Made
with real PyTorch:

    PYTHONPATH=tests/gen /work/shared/tools/torch-env run 2.14 python3 \
        /work/shared/tools/gen2/gen.py tests/cases-ops make_grid_hash_cases
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def case(model, *samples, core=False):
    return dict(model=model, samples=list(samples), core=core, pt2=False)


class Grid3d(nn.Module):
    """Every mode of 5-D grid_sample: (bilinear, nearest) x (zeros, border,
    reflection) x align_corners (False, True)."""
    def forward(self, x, g):
        outs = []
        for mode in ("bilinear", "nearest"):
            for pad in ("zeros", "border", "reflection"):
                for ac in (False, True):
                    outs.append(F.grid_sample(x, g, mode=mode, padding_mode=pad,
                                              align_corners=ac))
        return tuple(outs)


def grid_samples(n, c, d, h, w, do, ho, wo, seed, dtype=torch.float32):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, c, d, h, w, generator=gen, dtype=dtype)
    # well past [-1, 1]: several reflections, many taps outside
    g = (torch.rand(n, do, ho, wo, 3, generator=gen, dtype=dtype) * 5 - 2.5)
    # exact halves after unnormalizing (nearest rounds them to even) and
    # the corners themselves
    flat = g.view(-1, 3)
    special = torch.tensor([[0.0, 0.0, 0.0], [-1.0, -1.0, -1.0], [1.0, 1.0, 1.0],
                            [0.5, -0.5, 0.25], [-0.5, 0.5, -0.25], [3.0, -3.0, 1.0 / 3]],
                           dtype=dtype)
    k = min(len(special), flat.shape[0])
    flat[:k] = special[:k]
    return (x, g)


CASES = {
    "grid_sample3d_modes": lambda: case(Grid3d(), grid_samples(2, 3, 4, 5, 6, 3, 4, 2, 1),
                                        core=True),
    # size-1 depth (reflection with align_corners has nothing to reflect in),
    # float64, one batch, wider grid
    "grid_sample3d_f64_thin": lambda: case(Grid3d(), grid_samples(1, 2, 1, 3, 4, 2, 3, 5, 2,
                                                                  torch.float64), core=True),
}


class HashFloat(nn.Module):
    """hash_tensor on float32/float64/float16/bfloat16: over everything, one
    dim, several, negative dims, keepdim; per element (a dim of size 1: the
    bit pattern itself) on zeros,
    an empty result, -0.0, subnormals, extremes, inf and NaN."""
    def forward(self, x, y, s32, s64, h, b):
        ht = torch.hash_tensor
        return (ht(x), ht(x, 1), ht(x, [0, 2], keepdim=True), ht(x, -1, keepdim=True),
                ht(y), ht(y, 0), ht(y, [1, 0]), ht(s32.unsqueeze(-1), -1),
                ht(s64.unsqueeze(-1), -1), ht(s32), ht(s64, 0, keepdim=True), ht(h, 1), ht(b.bfloat16()),
                ht(x[:, :0], 0), ht(x[:, :0], [0, 2], keepdim=True))


def special_values(dtype):
    fi = torch.finfo(dtype)
    v = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 1.5, -3.75, 1e-3, 123456.789, fi.max, -fi.max,
         fi.tiny, -fi.tiny, fi.smallest_normal * 0.5, fi.tiny * fi.eps, -fi.tiny * fi.eps,
         fi.tiny * (1 - fi.eps), fi.eps, 1 + fi.eps, 1 - fi.eps / 2, 2 ** 60, 2.0 ** -60,
         float("inf"), float("-inf"), float("nan")]
    return torch.tensor(v, dtype=dtype)


def hash_float_samples():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 7, 5, generator=g)
    y = torch.randn(6, 5, generator=g, dtype=torch.float64) * 1e10
    h = torch.randn(3, 9, generator=g).half()
    b = torch.randn(4, 3, generator=g)  # made bfloat16 in the graph: ORT cannot feed it
    return (x, y, special_values(torch.float32), special_values(torch.float64), h, b)


class HashInt(nn.Module):
    """hash_tensor on int8/int32/int64 (sign-extended), uint8 and bool."""
    def forward(self, a, b, c, d, e):
        ht = torch.hash_tensor
        return (ht(a), ht(a, 1), ht(b, 0, keepdim=True), ht(b.unsqueeze(-1), -1), ht(c),
                ht(c, [0, 1]), ht(d, 1), ht(e), ht(e, 0))


def hash_int_samples():
    g = torch.Generator().manual_seed(4)
    a = torch.randint(-128, 128, (5, 11), generator=g, dtype=torch.int8)
    b = torch.tensor([0, 1, -1, 2 ** 31 - 1, -2 ** 31, 12345, -98765], dtype=torch.int32)
    c = torch.randint(-2 ** 62, 2 ** 62, (3, 4, 2), generator=g, dtype=torch.int64)
    c[0, 0, 0] = -2 ** 63
    c[0, 0, 1] = 2 ** 63 - 1
    d = torch.randint(0, 256, (2, 13), generator=g, dtype=torch.uint8)
    e = torch.rand(6, 3, generator=g) > 0.5
    return (a, b, c, d, e)


CASES["hash_tensor_float"] = lambda: case(HashFloat(), hash_float_samples(), core=True)
CASES["hash_tensor_int"] = lambda: case(HashInt(), hash_int_samples())


def dyn(*dims):
    return {d: torch.export.Dim.AUTO for d in dims}


# symbolic batch, input depth/height/width and output grid: every size read
# at run time (three samples of other sizes, one of them with a 1-pixel
# axis)
CASES["grid_sample3d_dynamic"] = lambda: dict(
    model=Grid3d(), core=False, pt2=False,
    samples=[grid_samples(2, 2, 3, 4, 5, 2, 3, 2, 5), grid_samples(1, 2, 1, 6, 2, 3, 1, 4, 6),
             grid_samples(3, 2, 4, 2, 3, 1, 2, 2, 7)],
    dynamic_shapes=({0: torch.export.Dim("n"), 2: torch.export.Dim("d"),
                     3: torch.export.Dim("h"), 4: torch.export.Dim("w")},
                    {0: torch.export.Dim("n"), 1: torch.export.Dim("do"),
                     2: torch.export.Dim("ho"), 3: torch.export.Dim("wo")}))


class HashDyn(nn.Module):
    """hash_tensor over symbolic dims (a Loop of doubling strides) and over a
    static dim of a tensor with symbolic ones (-0.0 first)."""
    def forward(self, x, i):
        ht = torch.hash_tensor
        return ht(x, 1), ht(x), ht(x, [0, 2], keepdim=True), ht(x, 2), ht(i, 0)


def hash_dyn_samples(b, n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(b, n, 3, generator=g, dtype=torch.float64)
    x[0, 0, 0] = -0.0
    i = torch.randint(-2 ** 40, 2 ** 40, (n,), generator=g)
    return (x, i)


# torch.export specializes hash_tensor's sizes (its meta function), and the
# exported program then takes no other sizes, so the dims are made symbolic
# by onnxc's --dynamic, and a second case has other sizes (a count of 2: one
# step of the Loop; a size of 1 --dynamic refuses)
def hash_dyn(b, n, seed):
    return dict(model=HashDyn(), core=False, pt2=False, samples=[hash_dyn_samples(b, n, seed)],
                flags=["--dynamic", "x:0=b", "--dynamic", "x:1=n", "--dynamic", "i:0=n"])


CASES["hash_tensor_dynamic"] = lambda: hash_dyn(3, 13, 6)
CASES["hash_tensor_dynamic_two"] = lambda: hash_dyn(2, 2, 7)
