"""Hand-made cases for tests/cases-linalg beyond the OpInfo samples: QR modes, batch
broadcasting of solves, left=False, a singular determinant, matrix_power below zero.
Run inside ../shared/tools/torch-env (torch 2.14):
    python3 tests/gen/make_linalg_cases.py tests/cases-linalg"""
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


def main(out):
    g = torch.Generator().manual_seed(35)

    def r(*s):
        return torch.randn(*s, generator=g)

    spd = r(3, 4, 4)
    spd = spd @ spd.mT + 4 * torch.eye(4)
    # one singular matrix in the batch: a zero column gives an exact zero pivot in any
    # order of rounding (a merely ill-conditioned one has a sign that is rounding noise)
    sing = r(2, 3, 3)
    sing[0, :, 1] = 0
    cases = {
        "la_qr_complete": (lambda a: torch.linalg.qr(a, mode="complete"), (r(2, 5, 3),)),
        "la_qr_r": (lambda a: torch.linalg.qr(a, mode="r")[1], (r(4, 6),)),
        "la_solve_broadcast": (lambda a, b: torch.linalg.solve(a, b), (r(2, 1, 4, 4), r(3, 4, 2))),
        "la_solve_right": (lambda a, b: torch.linalg.solve(a, b, left=False), (r(4, 4), r(2, 3, 4))),
        "la_det_singular": (lambda a: (torch.linalg.det(a), torch.linalg.slogdet(a)), (sing,)),
        "la_cholesky_upper": (lambda a: torch.linalg.cholesky(a, upper=True), (spd,)),
        "la_matrix_power_neg": (lambda a: torch.linalg.matrix_power(a, -3), (spd,)),
        "la_lu_batched": (lambda a: torch.linalg.lu(a), (r(2, 5, 3),)),
    }
    for name, (fn, args) in cases.items():
        write_case(out, name, Fn(fn), [args], pt2=False, source="tests/gen/make_linalg_cases.py")
        print("ok  ", name)


if __name__ == "__main__":
    main(sys.argv[1])
