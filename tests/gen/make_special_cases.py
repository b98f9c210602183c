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


if __name__ == "__main__":
    main(sys.argv[1])
