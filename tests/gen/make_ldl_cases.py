"""Hand-made cases for tests/cases-linalg of LDL^T with Bunch-Kaufman pivoting
(lower/lower_linalg_ldl.c): linalg_ldl_factor(_ex) and linalg_ldl_solve on sizes 1 to 6,
batches whose matrices take different pivot steps, float32 and float64, matrices that force 2x2
blocks (a zero diagonal), interchanges with 1x1 pivots, integer entries (ties in the pivot
search: the first row wins), a zero column (info), and B broadcast over LD's batch or LD
unbatched.  Run inside ../shared/tools/torch-env (torch 2.14):
    python3 tests/gen/make_ldl_cases.py tests/cases-linalg"""
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


def factor_all(*mats):
    out = []
    for a in mats:
        out += list(torch.linalg.ldl_factor(a))
    return tuple(out)


def factor_solve(a, b):
    ld, piv = torch.linalg.ldl_factor(a)
    return ld, piv, torch.linalg.ldl_solve(ld, piv, b)


def main(out):
    g = torch.Generator().manual_seed(3536)

    def r(*s, dtype=torch.float32):
        return torch.randn(*s, generator=g, dtype=dtype)

    def mixed(batch, n, dtype=torch.float32):
        """a batch of n x n matrices taking different pivot steps: plain random ones,
        ones with a small or a zero diagonal (2x2 blocks, interchanges) and small integer
        ones (ties in the search for the largest entry)"""
        a = r(batch, n, n, dtype=dtype)
        for i in range(batch):
            kind = i % 4
            if kind == 1:
                a[i].diagonal().mul_(0.05)
            elif kind == 2:
                a[i].diagonal().zero_()
            elif kind == 3:
                a[i] = torch.randint(-3, 4, (n, n), generator=g).to(dtype)
            # drawn again where a step meets an exact zero column (a zero 1x1, a
            # singular integer matrix), which ldl_factor (not _ex) reports as an error
            while torch.linalg.ldl_factor_ex(a[i]).info != 0:
                a[i] = torch.randint(-3, 4, (n, n), generator=g).to(dtype)
        return a

    # matrices with a known pivot pattern: [[0, 1], [1, 0]] is one 2x2 block; a large
    # entry below a small diagonal in the last rows makes the 2x2 block the final step
    swap2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    tail2 = torch.tensor([[4.0, 1.0, 0.5, 0.2], [1.0, 3.0, 0.1, 0.3],
                          [0.5, 0.1, 1e-3, 2.0], [0.2, 0.3, 2.0, 1e-3]])
    # a zero first column (info 1) next to a regular matrix
    zcol = r(2, 4, 4, dtype=torch.float64)
    zcol[0, :, 0] = 0
    zcol[0, 0, :] = 0
    sizes = [mixed(8, n) for n in range(1, 7)]
    cases = {
        "la_ldl_factor_sizes": (factor_all, [tuple(sizes),
                                             tuple(mixed(8, n) for n in range(1, 7))]),
        "la_ldl_factor_known": (factor_all, [(swap2, tail2)]),
        "la_ldl_factor_ex_f64": (lambda a: tuple(torch.linalg.ldl_factor_ex(a)),
                                 [(mixed(6, 6, torch.float64).reshape(2, 3, 6, 6),)]),
        "la_ldl_factor_ex_info": (lambda a: tuple(torch.linalg.ldl_factor_ex(a, hermitian=True)),
                                  [(zcol,)]),
        "la_ldl_solve_f32": (factor_solve, [(mixed(8, 5), r(8, 5, 3))]),
        "la_ldl_solve_f64": (factor_solve, [(mixed(4, 6, torch.float64),
                                             r(4, 6, 2, dtype=torch.float64))]),
        "la_ldl_solve_b_unbatched": (factor_solve, [(mixed(4, 4), r(4, 2))]),
        "la_ldl_solve_ld_unbatched": (
            lambda ld, piv, b: torch.linalg.ldl_solve(ld, piv, b),
            [tuple(torch.linalg.ldl_factor(mixed(3, 5)[2])) + (r(2, 3, 5, 2),)]),
    }
    for name, (fn, samples) in cases.items():
        write_case(out, name, Fn(fn), samples, pt2=False, source="tests/gen/make_ldl_cases.py")
        print("ok  ", name)


if __name__ == "__main__":
    main(sys.argv[1])
