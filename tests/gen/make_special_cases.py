"""Hand-made cases for tests/cases-special beyond the OpInfo samples: the orthogonal
polynomials of torch.special on a grid of x (the ends of [-1, 1] and of [0, 1], inside,
outside, NaN) against degrees n (negative, fractional, 0 and 1, either side of the
thresholds where PyTorch's kernels switch to cos/sin of n acos x, past Hermite's limit of
128, NaN and inf).  Run inside ../shared/tools/torch-env (torch 2.14):
    python3 tests/gen/make_special_cases.py tests/cases-special"""
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


POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
         "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p"]


def main(out):
    nan, inf = math.nan, math.inf
    x = torch.tensor([-1.0, -0.99, -0.7, -0.3, 0.0, 0.2, 0.5, 0.9, 0.999, 1.0, 1.3, -1.6,
                      nan]).reshape(-1, 1)
    n = torch.tensor([-3.0, -0.5, 0.0, 1.0, 1.9, 2.0, 3.0, 5.0, 6.0, 7.0, 9.0, 12.0, 20.0,
                      129.0, nan, inf])
    for name in POLYS:
        fn = getattr(torch.special, name)
        write_case(out, "sp_" + name, Fn(fn), [(x, n)], core=False, pt2=False,
                   source="tests/gen/make_special_cases.py")
        print("ok  ", name)
    # the Bessel functions and Ai across their branches: |x| up to 5 and above, Ai's
    # series on (-2.09, 2.09), its asymptotic forms outside and 0 past 103.892
    edges = [0.0, 1e-6, -1e-6, 4.999, 5.0, 5.001, -5.0, 2.089, 2.09, -2.09, -2.091, 8.32,
             8.33, 103.0, 104.0, -60.0, inf, -inf, nan]
    xs = torch.cat([torch.linspace(-30, 30, 241), torch.tensor(edges)])
    for name in ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"]:
        fn = getattr(torch.special, name)
        write_case(out, "sp_" + name, Fn(fn), [(xs,)], core=False, pt2=False,
                   source="tests/gen/make_special_cases.py")
        print("ok  ", name)
    # nextafter's step (nextafter(x, y) - x, so that an ulp off shows): powers of two
    # either way, subnormals, zero, the largest float, infinities, x == y, NaN
    f32 = torch.finfo(torch.float32)
    xv = torch.tensor([1.0, 1.0, -1.0, -1.0, 0.75, 3.0, -1024.0, 1e-3, 1e-40, -1e-40,
                       f32.tiny, f32.tiny, 0.0, 0.0, 0.0, f32.max, f32.max, -inf, inf, 2.5,
                       nan, 1.0, 6e7, 1.5e-38])
    yv = torch.tensor([2.0, 0.0, -2.0, 0.0, 1.0, -3.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0,
                       -1.0, 0.0, inf, 0.0, 0.0, 5.0, 2.5, 1.0, nan, 0.0, 1.0])
    write_case(out, "sp_nextafter_step", Fn(lambda x, y: (torch.nextafter(x, y) - x) * 2.0 ** 40),
               [(xv, yv)], core=False, pt2=False, source="tests/gen/make_special_cases.py")
    # ...and near zero, scaled so that the subnormal spacing 2^-149 is 1
    xt = torch.tensor([1e-40, -1e-40, f32.tiny, f32.tiny, -f32.tiny, 0.0, 0.0, 2.0 ** -125,
                       2.0 ** -140, 1.5e-38])
    yt = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 1.0, -1.0, 0.0, -1.0, 1.0])
    write_case(out, "sp_nextafter_subnormal",
               Fn(lambda x, y: (torch.nextafter(x, y) - x) * 2.0 ** 100 * 2.0 ** 49),
               [(xt, yt)], core=False, pt2=False, source="tests/gen/make_special_cases.py")
    print("ok   nextafter")


if __name__ == "__main__":
    main(sys.argv[1])
