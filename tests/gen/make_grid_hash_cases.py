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
