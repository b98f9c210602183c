"""Runs a program in PyTorch and its ONNX model in ONNX Runtime on the same
inputs and compares the outputs, as torch.onnx.export(verify=True) does
(onnxc.verify and python3 -m onnxc.verify)."""
import os

__all__ = ["OutputCheck", "VerifyResult", "verify"]

# |a - b| <= atol + rtol * |b|, per element type (exact for the rest)
TOLERANCE = {"float64": (1e-5, 1e-6), "float32": (1e-3, 1e-4),
             "float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2)}


class OutputCheck:
    """One output: name, max_abs and max_rel errors, rtol, atol, ok, and
    why it failed when the dtype or shape differ."""

    def __init__(self, name, ok, max_abs=0.0, max_rel=0.0, rtol=0.0,
                 atol=0.0, why=""):
        self.name, self.ok, self.why = name, ok, why
        self.max_abs, self.max_rel = max_abs, max_rel
        self.rtol, self.atol = rtol, atol

    def __str__(self):
        res = "ok" if self.ok else "MISMATCH"
        if self.why:
            return "%-24s %s: %s" % (self.name, res, self.why)
        return ("%-24s max abs %.3g, max rel %.3g (rtol %g, atol %g): %s"
                % (self.name, self.max_abs, self.max_rel, self.rtol,
                   self.atol, res))


class VerifyResult:
    """The comparison: `outputs` (OutputCheck each), `ok`, and `why` when
    the models could not be compared at all."""

    def __init__(self, outputs, why=""):
        self.outputs, self.why = outputs, why
        self.ok = not why and all(o.ok for o in outputs)

    def __bool__(self):
        return self.ok

    def __str__(self):
        lines = [str(o) for o in self.outputs]
        if self.why:
            lines.append("MISMATCH: " + self.why)
        return "\n".join(lines)


def _compare(name, got, want, rtol=None, atol=None):
    import numpy as np
    import torch
    want = want.detach().cpu()
    dt = str(want.dtype).replace("torch.", "")
    if want.dtype == torch.bfloat16:
        want = want.float()
    w = want.numpy()
    g = np.asarray(got)
    if g.shape != w.shape:
        return OutputCheck(name, False, why="shape %s, PyTorch's is %s"
                           % (list(g.shape), list(w.shape)))
    if dt not in TOLERANCE:
        same = g.dtype == w.dtype and np.array_equal(g, w)
        return OutputCheck(name, same, why="" if same else
                           "differs (%s, compared exactly)" % dt)
    r, a = TOLERANCE[dt]
    r = r if rtol is None else rtol
    a = a if atol is None else atol
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    nan_ok = np.array_equal(np.isnan(g64), np.isnan(w64))
    fin = np.isfinite(w64) & np.isfinite(g64)
    inf_ok = np.array_equal(g64[~fin & ~np.isnan(w64)],
                            w64[~fin & ~np.isnan(w64)])
    diff = np.abs(g64[fin] - w64[fin])
    mabs = float(diff.max()) if diff.size else 0.0
    rel = diff / np.maximum(np.abs(w64[fin]), np.finfo(np.float64).tiny)
    mrel = float(rel.max()) if rel.size else 0.0
    ok = nan_ok and inf_ok and bool(np.all(diff <= a + r * np.abs(w64[fin])))
    why = "" if nan_ok and inf_ok else "NaN or infinity in other places"
    return OutputCheck(name, ok, mabs, mrel, r, a, why)


def _flat_inputs(ep, args, kwargs):
    """The values the ONNX model takes, in order: the tensor (and SymInt)
    user inputs of the flattened (args, kwargs); constants are baked in."""
    import torch
    from torch.export.graph_signature import InputKind
    from torch.utils import _pytree as pytree
    leaves = pytree.tree_leaves((tuple(args), kwargs or {}))
    specs = [s for s in ep.graph_signature.input_specs
             if s.kind == InputKind.USER_INPUT]
    if len(specs) != len(leaves):
        raise ValueError("%d inputs given, the program has %d"
                         % (len(leaves), len(specs)))
    out = []
    for s, v in zip(specs, leaves):
        kind = type(s.arg).__name__
        if kind == "ConstantArgument":
            continue
        if isinstance(v, torch.Tensor):
            v = v.detach().cpu()
            out.append(v.float().numpy() if v.dtype == torch.bfloat16
                       else v.numpy())
        else:
            import numpy as np
            out.append(np.array(v))
    return out


def verify(program, model, inputs=None, rtol=None, atol=None):
    """Compares program (an ExportedProgram or a .pt2 path) in PyTorch with
    model (an ONNX file) in ONNX Runtime.  inputs: a tuple of positional
    inputs or an (args, kwargs) pair; default: the archive's own sample
    inputs (ExportedProgram.example_inputs).  Returns a VerifyResult."""
    import onnxruntime as ort
    import torch
    from torch.utils import _pytree as pytree
    ep = program
    if isinstance(program, (str, os.PathLike)):
        ep = torch.export.load(os.fspath(program))
    if inputs is None:
        inputs = getattr(ep, "example_inputs", None)
        if inputs is None:
            raise ValueError("the program holds no sample inputs; give "
                             "inputs (--inputs FILE)")
    args, kwargs = _split(inputs)
    with torch.no_grad():
        want = ep.module()(*args, **kwargs)
    want = [t for t in pytree.tree_leaves(want)]
    sess = ort.InferenceSession(os.fspath(model),
                                providers=["CPUExecutionProvider"])
    feeds = _flat_inputs(ep, args, kwargs)
    names = [i.name for i in sess.get_inputs()]
    if len(names) != len(feeds):
        return VerifyResult([], "the model has %d inputs (%s), the program "
                            "%d" % (len(names), ", ".join(names),
                                    len(feeds)))
    got = sess.run(None, dict(zip(names, feeds)))
    outs = [o.name for o in sess.get_outputs()]
    if len(got) != len(want):
        return VerifyResult([], "the model has %d outputs, the program %d"
                            % (len(got), len(want)))
    checks = []
    for name, g, w in zip(outs, got, want):
        if not isinstance(w, torch.Tensor):
            w = torch.tensor(w)
        checks.append(_compare(name, g, w, rtol, atol))
    return VerifyResult(checks)


def _split(inputs):
    """(args, kwargs) of a tuple of positional inputs or such a pair."""
    if (isinstance(inputs, (tuple, list)) and len(inputs) == 2 and
            isinstance(inputs[0], (tuple, list)) and
            isinstance(inputs[1], dict)):
        return tuple(inputs[0]), dict(inputs[1])
    if isinstance(inputs, dict):
        return (), dict(inputs)
    if isinstance(inputs, (tuple, list)):
        return tuple(inputs), {}
    return (inputs,), {}
