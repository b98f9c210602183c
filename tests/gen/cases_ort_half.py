"""Float16 programs whose ONNX form ONNX Runtime's CPU runs only after it
inserts Casts when it loads an .onnx file; an .ort file gets none, so onnxc
computes these ops (which compare, select or move values: exact in
float32) in float32 itself.  Into tests/cases, where e2e.ort_vs_runtime
runs the .ort:

    PYTHONPATH=$PWD/tests/gen ../shared/tools/torch-env run 2.14 python3 \\
        ../shared/tools/gen2/gen.py tests/cases cases_ort_half
"""
import torch
import torch.nn.functional as F

from cases_edges import Fn


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), core=False, pt2=False, **kw)


CASES = {
    # Pad (constant, reflect, replicate), Tile (repeat), Trilu (triu),
    # Where (masked_fill, where), the comparisons of half tensors and
    # ReduceMax/ReduceMin (cummax, cummin, mode), TopK (median,
    # kthvalue, nanmedian); the means of scatter_reduce and index_reduce
    "half_exact_ops": lambda: case(Fn(lambda x, y: (
        F.pad(x, (1, 2, 0, 1), value=2.5), F.pad(x[None], (2, 1, 1, 0), mode="reflect"),
        F.pad(x[None], (1, 1, 2, 2), mode="replicate"), x.repeat(2, 3), x.triu(1),
        torch.where(x > y, x, y), x.masked_fill(x < 0, -1.0), (x == y) | (x >= 0.5), x <= y,
        x.amax(1), x.amin(0, keepdim=True), torch.cummax(x, 1)[0], torch.cummin(x, 0)[1],
        torch.mode(x.round(), 1)[0], torch.median(x, 1)[0], torch.kthvalue(x, 2, 0)[1],
        torch.nanmedian(x.masked_fill(x > 1, float("nan")), 1)[0],
        x.scatter_reduce(1, (torch.arange(5) % 3).expand(4, 5), y, "mean"),
        x.index_reduce(0, torch.arange(4) // 2, y, "mean", include_self=False))),
        (torch.randn(4, 5).half(), torch.randn(4, 5).half())),
}
