"""Helpers of the zoo modules of model code exported with dynamic sizes (cases_user2..5.py)."""
import torch.nn as nn
from torch.export import Dim

D = Dim.DYNAMIC


class Fn(nn.Module):
    """a function as a module: its tensor arguments are the inputs"""
    def __init__(self, fn):
        super().__init__(); self.fn = fn
    def forward(self, *xs):
        return self.fn(*xs)


def case(model, *samples, dyn, **kw):
    """a case of samples (the first is the export example) and dynamic shapes dyn, one entry per input"""
    # Fn takes *xs: its dynamic shapes are one tuple for that one parameter
    return dict(model=model, samples=list(samples), dynamic_shapes=(dyn,) if isinstance(model, Fn) else dyn, **kw)
