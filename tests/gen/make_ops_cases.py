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


CASES = {
    "zero_mean": lambda: case(EmptyMeans(), (torch.randn(3, 0, 2), torch.randn(0, 4))),
}
