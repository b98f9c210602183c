"""Hand-made cases for tests/cases-linalg of what the Jacobi eigen/singular value solver
(lower/lower_linalg_eig.c) carries: eigvalsh, svdvals, pinv, matrix_rank, cond, matrix_sqrth
and matrix norms of order 2 / 'nuc', batched, in float64, singular and ill-conditioned;
polar; geqrf, ormqr (both sides, transposed) and linalg_vander of integers.
Run inside ../shared/tools/torch-env (torch 2.14):
    python3 tests/gen/make_linalg_spec_cases.py tests/cases-linalg"""
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
    g = torch.Generator().manual_seed(3535)

    def r(*s, dtype=torch.float32):
        return torch.randn(*s, generator=g, dtype=dtype)

    def with_singular_values(s, dtype):
        # U diag(s) V^T with random orthogonal U, V: the singular values are known
        n = len(s)
        u, _ = torch.linalg.qr(r(n, n, dtype=torch.float64))
        v, _ = torch.linalg.qr(r(n, n, dtype=torch.float64))
        return (u * torch.tensor(s, dtype=torch.float64)) @ v.T

    ill = with_singular_values([1.0, 1e-2, 1e-4, 1e-6], torch.float64)
    # rank 1, 2 and 3 in one batch of 4x4: products of random factors, exact zeros beyond
    ranked = torch.stack([r(4, k) @ r(k, 4) for k in (1, 2, 3)])
    ranked64 = torch.stack([r(4, k, dtype=torch.float64) @ r(k, 4, dtype=torch.float64)
                            for k in (1, 2, 3)])
    sym = r(3, 5, 5)
    sym_sing = r(5, 2)
    sym_sing = sym_sing @ sym_sing.T  # symmetric, rank 2
    # two eigenvalues 1e-9 apart and one near zero, off-diagonal part 1e-3
    sym64 = r(4, 4, dtype=torch.float64)
    cluster = torch.diag(torch.tensor([3.0, 1.0, 1.0 + 1e-9, 1e-12], dtype=torch.float64)) \
        + 1e-3 * (sym64 + sym64.T)
    # an exact zero pivot in the second matrix: cond is inf there
    singular = r(2, 3, 3)
    singular[1, :, 0] = 0
    spd = r(2, 4, 4)
    spd = spd @ spd.mT + torch.eye(4)
    cases = {
        "la_eigvalsh_batched": (lambda a: torch.linalg.eigvalsh(a), (sym,)),
        "la_eigvalsh_upper": (lambda a: torch.linalg.eigvalsh(a, UPLO="U"), (r(2, 4, 4),)),
        "la_eigvalsh_f64_cluster": (lambda a: torch.linalg.eigvalsh(a), (cluster,)),
        "la_eigh_values_only": (lambda a: torch.linalg.eigh(a)[0] * 2, (sym,)),
        "la_svdvals_batched": (lambda a: torch.linalg.svdvals(a), (r(2, 5, 3),)),
        "la_svdvals_wide": (lambda a: torch.linalg.svdvals(a), (r(3, 6),)),
        "la_svdvals_ill_f64": (lambda a: torch.linalg.svdvals(a), (ill,)),
        "la_svd_values_only": (lambda a: torch.linalg.svd(a)[1].sum(-1), (r(2, 4, 3),)),
        "la_pinv_batched": (lambda a: torch.linalg.pinv(a), (r(2, 3, 5),)),
        "la_pinv_singular": (lambda a: torch.linalg.pinv(a), (ranked,)),
        "la_pinv_hermitian_singular": (lambda a: torch.linalg.pinv(a, hermitian=True),
                                       (sym_sing,)),
        "la_pinv_atol": (lambda a: torch.linalg.pinv(a, atol=0.5), (r(4, 4),)),
        "la_matrix_rank_batched": (lambda a: torch.linalg.matrix_rank(a), (ranked,)),
        "la_matrix_rank_f64": (lambda a: torch.linalg.matrix_rank(a), (ranked64,)),
        "la_matrix_rank_ill_f64": (lambda a: (torch.linalg.matrix_rank(a),
                                              torch.linalg.matrix_rank(a, rtol=1e-5),
                                              torch.linalg.matrix_rank(a, atol=1e-3)), (ill,)),
        "la_matrix_rank_hermitian": (lambda a: torch.linalg.matrix_rank(a, hermitian=True),
                                     (sym_sing,)),
        "la_cond_batched": (lambda a: (torch.linalg.cond(a), torch.linalg.cond(a, -2)),
                            (r(3, 4, 4),)),
        "la_cond_ill_f64": (lambda a: torch.linalg.cond(a), (ill,)),
        "la_matrix_norm_spectral": (lambda a: (torch.linalg.matrix_norm(a, 2),
                                               torch.linalg.matrix_norm(a, -2, dim=(0, 2),
                                                                        keepdim=True),
                                               torch.linalg.matrix_norm(a, "nuc"),
                                               torch.linalg.norm(a, "nuc", dim=(2, 1)),
                                               torch.linalg.norm(a[0], 2)), (r(3, 4, 5),)),
        "la_cond_orders": (lambda a: (torch.linalg.cond(a, "fro"), torch.linalg.cond(a, "nuc"),
                                      torch.linalg.cond(a, 1), torch.linalg.cond(a, -1),
                                      torch.linalg.cond(a, float("inf")),
                                      torch.linalg.cond(a, -float("inf"))), (r(2, 4, 4),)),
        "la_cond_singular": (lambda a: (torch.linalg.cond(a, 1), torch.linalg.cond(a, "fro")),
                             (singular,)),
        "la_polar_tall": (lambda a: torch.linalg.polar(a), (r(2, 5, 3),)),
        # rank 2 of 4: H is unique (U is not, and onnxc gives NaN for it)
        "la_polar_singular_h": (lambda a: torch.linalg.polar(a)[1], (ranked[1],)),
        "la_geqrf_wide": (lambda a: torch.geqrf(a), (r(2, 3, 5),)),
        "la_ormqr_right_t": (lambda a, t, c: torch.ormqr(a, t, c, left=False, transpose=True),
                             (*torch.geqrf(r(4, 3)), r(2, 4))),
        "la_ormqr_left": (lambda a, t, c: torch.ormqr(a, t, c), (*torch.geqrf(r(2, 5, 2)),
                                                                   r(2, 5, 3))),
        "la_vander_int": (lambda x: torch.linalg.vander(x, N=4),
                          (torch.randint(-3, 4, (2, 3), generator=g),)),
        "la_matrix_sqrth": (lambda a: torch.linalg.matrix_sqrth(a), (spd,)),
    }
    only = sys.argv[2:]
    for name, (fn, args) in cases.items():
        if only and name not in only:
            continue
        # float64 cases are held to float64 accuracy
        tol = dict(rtol=1e-9, atol=1e-12) if args[0].dtype == torch.float64 else {}
        write_case(out, name, Fn(fn), [args], pt2=False, source="tests/gen/make_linalg_spec_cases.py",
                   **tol)
        print("ok  ", name)


if __name__ == "__main__":
    main(sys.argv[1])
