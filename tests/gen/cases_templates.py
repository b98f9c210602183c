"""Programs calling composite ops that onnxc has no rule for and that
convert through PyTorch's own decompositions, embedded as templates
(passes/templates, made by tools/gen_templates.py).  Made with real
PyTorch:

    PYTHONPATH=tests/gen /work/shared/tools/torch-env run 2.14 python3 \
        /work/shared/tools/gen2/gen.py tests/cases-templates cases_templates
"""
import torch
import torch.nn as nn
from torch.export import Dim

aten = torch.ops.aten


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), core=False, pt2=True, **kw)


def u(*s, lo=0.1, hi=0.9):
    return torch.rand(s) * (hi - lo) + lo


class Fn(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return self.f(*xs)


class TwoShapes(nn.Module):
    """one template (frobenius_norm over [0, 1], rank 2) at two shapes, and
    a rank-3 template, under a symbolic batch"""
    def forward(self, a, b, c):
        return (aten.frobenius_norm.dim(a, [0, 1]) +
                aten.frobenius_norm.dim(b, [0, 1]),
                aten.frobenius_norm.dim(c, [1, 2]))


B = Dim("batch", min=2)

CASES = {
    "tpl_arc": lambda: case(Fn(lambda x: torch.arccosh(1 + x) + torch.arcsinh(x)
                                + torch.arctanh(x)), (u(3, 5),)),
    "tpl_special_unary": lambda: case(Fn(lambda x: torch.special.expit(x)
                                        + torch.special.exp2(x) + torch.special.expm1(x)
                                        + torch.special.log1p(x) + torch.special.erf(x)
                                        + torch.special.erfc(x)
                                        + torch.special.round(x * 10)), (u(2, 3, 5),)),
    "tpl_logit": lambda: case(Fn(lambda x: torch.special.logit(x, 1e-6)
                                 + torch.special.logit(x)), (u(4, 6, lo=0.0, hi=1.0),)),
    "tpl_xlogy": lambda: case(Fn(lambda x, y: torch.special.xlogy(x, y)),
                              (u(3, 5, lo=-1), u(3, 5)),),
    "tpl_softmax": lambda: case(Fn(lambda x: torch.special.softmax(x, 1)
                                   + torch.special.log_softmax(x, -1)
                                   + torch.special.logsumexp(x, [-1], True)),
                                (torch.randn(2, 3, 5),)),
    "tpl_arith": lambda: case(Fn(lambda x, y: (torch.divide(x, y) + torch.multiply(x, y)
                                               - torch.subtract(y, x),
                                               torch.not_equal(x.round(), y.round()))),
                              (u(3, 5), u(3, 5))),
    "tpl_matrix_power": lambda: case(Fn(lambda x: torch.matrix_power(x, 3)
                                        + torch.matrix_power(x, 2)), (u(2, 4, 4),)),
    "tpl_frobenius": lambda: case(Fn(lambda x: aten.frobenius_norm.dim(x, [1, 2])),
                                  (torch.randn(2, 3, 5),)),
    "tpl_euclidean": lambda: case(Fn(lambda x, y: aten._euclidean_dist.default(x, y)),
                                  (torch.randn(4, 5), torch.randn(6, 5))),
    "tpl_poisson_nll": lambda: case(Fn(lambda x, y: (
        nn.functional.poisson_nll_loss(x, y),
        nn.functional.poisson_nll_loss(x.exp(), y, log_input=False, full=True,
                                       reduction="sum"),
        nn.functional.poisson_nll_loss(x, y, reduction="none"))),
        (torch.randn(3, 5), u(3, 5, lo=0, hi=4))),
    "tpl_two_shapes": lambda: case(TwoShapes(), (u(3, 5), u(3, 7), u(3, 2, 4)),
                                   (u(6, 5), u(6, 7), u(6, 2, 4)),
                                   dynamic_shapes=({0: B}, {0: B}, {0: B})),
}

CASES.update({
    "tpl_divide_modes": lambda: case(Fn(lambda x, y: (
        torch.divide(x * 10, y, rounding_mode="trunc"),
        torch.divide(x * 10, y, rounding_mode="floor"),
        aten.divide.Scalar(x, 2.5) + aten.multiply.Scalar(x, 2.5)
        - aten.subtract.Scalar(x, 2.5),
        torch.not_equal(x, 0.5))), (u(3, 5, lo=-1), u(3, 5))),
    "tpl_addmm_act": lambda: case(Fn(lambda b, m1, m2: (
        aten._addmm_activation.default(b, m1, m2),
        aten._addmm_activation.default(b, m1, m2, use_gelu=True))),
        (torch.randn(5), torch.randn(3, 4), torch.randn(4, 5))),
    "tpl_rms_det": lambda: case(Fn(lambda x, w, a: (
        aten._fused_rms_norm.default(x, [5], w, 1e-06)[0], torch.det(a))),
        (torch.randn(2, 3, 5), torch.randn(5), torch.randn(2, 3, 3))),
    "tpl_f64": lambda: case(Fn(lambda x, y: torch.special.logit(x, 1e-6)
                               + torch.special.xlogy(x, y) + torch.matrix_power(
                                   x[:, :3, :3], 2).sum()),
                            (u(2, 3, 5).double(), u(2, 3, 5).double())),
})

# Scalar parameters: a template traced at one eps takes any other (its
# header says "param"; 0 and +-1 excepted).  And the aliases the decompose
# pass names the target of (passes/decompose/alias.c), no templates: every
# rank (0 too), dtype and broadcast the target takes.
CASES.update({
    "tpl_param_eps": lambda: case(Fn(lambda x, w, y: (
        aten._fused_rms_norm.default(x, [5], w, 1e-05)[0],
        aten._fused_rms_norm.default(x, [5], w, 0.125)[0],
        nn.functional.poisson_nll_loss(x.exp(), y, log_input=False, eps=0.5),
        nn.functional.poisson_nll_loss(x, y, full=True, eps=1e-3))),
        (torch.randn(2, 3, 5), torch.randn(5), u(2, 3, 5, lo=0, hi=4))),
    "alias_bcast": lambda: case(Fn(lambda x, y, s: (
        torch.divide(x, y), torch.multiply(x, 3), torch.subtract(x, y, alpha=2),
        torch.divide(x, y, rounding_mode="floor"), torch.not_equal(x, y),
        torch.greater(x, y), torch.greater_equal(x, 0.5), torch.less(s, x),
        torch.less_equal(x, y), torch.special.xlogy(x, y),
        torch.divide(x, 0.25))),
        (u(2, 3, 5, lo=-1), u(5), u())),
    "alias_unary": lambda: case(Fn(lambda x, s, i: (
        torch.arccosh(1 + x), torch.arcsinh(s), torch.arctanh(x * 0.5),
        torch.special.expit(i), torch.special.exp2(x), torch.special.expm1(s),
        torch.special.log1p(x), torch.special.erf(i), torch.special.erfc(x),
        torch.special.round(x * 100, decimals=1), torch.special.round(s * 10),
        torch.special.logit(x, 0.25), torch.special.logit(x),
        torch.special.softmax(x, 0), torch.special.log_softmax(x, 2),
        torch.special.logsumexp(x, [0, 2], keepdim=False))),
        (u(2, 3, 4, 5, 2), u(), torch.arange(-3, 3))),
    "alias_linalg": lambda: case(Fn(lambda a: (
        torch.matrix_power(a, 4), torch.matrix_power(a, -1), torch.det(a))),
        (torch.randn(2, 3, 3) + 3 * torch.eye(3),)),
})

