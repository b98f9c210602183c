"""onnxc from Python: export a PyTorch model to ONNX with the onnxc compiler.

    import torch, onnxc
    res = onnxc.export(model, (x,), "model.onnx",
                       dynamic_shapes={"x": {0: "batch"}}, verify=True)
    print(res.model_path, res.verify)

export() takes torch.onnx.export's arguments where they share a name; it
runs torch.export, saves the program as a .pt2 archive and runs the onnxc
program on it (found through $ONNXC, the build folder of this checkout, or
PATH).  convert() does the last step for an archive on disk.  Pure Python:
torch is needed for export() and verify, onnxruntime for verify."""
import os
import shutil
import tempfile

from ._program import ConversionError, command, find_onnxc, run

__all__ = ["export", "convert", "verify", "ConversionError", "Result",
           "find_onnxc"]


class Result:
    """What a conversion made: `model_path`, `report_path` (None without
    report=), `archive_path` (the .pt2 when one was kept), `verify` (a
    VerifyResult with verify=True, else None), `warnings` (onnxc's
    stderr), `command` (the onnxc command line)."""

    def __init__(self, model_path, report_path, archive_path, warnings,
                 argv):
        self.model_path = model_path
        self.report_path = report_path
        self.archive_path = archive_path
        self.warnings = warnings
        self.command = argv
        self.verify = None

    def __repr__(self):
        v = "" if self.verify is None else ", verify=%s" % (
            "ok" if self.verify.ok else "MISMATCH")
        return "Result(model_path=%r, report_path=%r%s)" % (
            self.model_path, self.report_path, v)


def _report_path(report, model_path):
    if not report:
        return None
    if report is True:
        return os.path.splitext(model_path)[0] + "_report.md"
    return os.fspath(report)


def _convert(src, f, verify_with=None, dynamic=(), **opt):
    """src (.pt2) -> f; verify_with: (program, inputs) to compare."""
    rtol = opt.pop("rtol", None)
    atol = opt.pop("atol", None)
    if f is None:
        f = os.path.join(tempfile.mkdtemp(prefix="onnxc-"), "model.onnx")
    stream = None
    if hasattr(f, "write"):
        stream = f
        f = os.path.join(tempfile.mkdtemp(prefix="onnxc-"), "model.onnx")
        if opt.get("external_data"):
            raise ValueError("external_data needs a file name, not a "
                             "stream")
        opt["external_data"] = False
    f = os.fspath(f)
    report_path = _report_path(opt.pop("report", False), f)
    argv = command(src, f, report_path=report_path, dynamic=dynamic, **opt)
    warnings = run(argv, report_path)
    res = Result(f, report_path, None, warnings, argv)
    if verify_with is not None:
        from ._verify import verify
        program, inputs = verify_with
        res.verify = verify(program, f, inputs, rtol, atol)
    if stream is not None:
        with open(f, "rb") as fh:
            stream.write(fh.read())
        os.remove(f)
        if not report_path:  # a report stays in the temporary folder
            shutil.rmtree(os.path.dirname(f), ignore_errors=True)
        res.model_path = None
    return res


def convert(archive, f=None, *, input_names=None, output_names=None,
            opset_version=None, optimize=True, verify=False, report=False,
            external_data=None, training=None, passes=None, plugins=(),
            dynamic_shapes=None, rtol=None, atol=None):
    """Converts a .pt2 archive on disk (torch.export.save) to the ONNX model
    f.  dynamic_shapes: {input name: {dim: "label"}} renames the dims of the
    program's inputs (by FX placeholder name).  verify=True compares the
    model with the program on the archive's sample inputs.  Raises
    ConversionError with onnxc's diagnostics when onnxc refuses it."""
    dyn = []
    for name, axes in (dynamic_shapes or {}).items():
        items = axes.items() if isinstance(axes, dict) else enumerate(axes)
        for d, label in items:
            if isinstance(label, str):
                dyn.append((name, int(d), label))
    archive = os.fspath(archive)
    return _convert(archive, f, (archive, None) if verify else None, dyn,
                    input_names=input_names, output_names=output_names,
                    opset_version=opset_version, optimize=optimize,
                    report=report, external_data=external_data,
                    training=bool(training), passes=passes, plugins=plugins,
                    rtol=rtol, atol=atol)


def export(model, args=(), f=None, *, kwargs=None, dynamic_shapes=None,
           input_names=None, output_names=None, opset_version=None,
           optimize=True, verify=False, report=False, external_data=None,
           training=None, passes=None, plugins=(), archive=None, strict=False,
           rtol=None, atol=None):
    """Exports model (an nn.Module or a torch.export.ExportedProgram) to
    the ONNX model f with onnxc; torch.onnx.export's arguments mean what
    they mean there:

    args, kwargs    example inputs; tensors, dicts, lists and tuples of them
                    (flattened as torch.export flattens them)
    dynamic_shapes  as torch.export takes them; a string ({0: "batch"}) or
                    a Dim's name becomes the dim_param of that dim in the
                    ONNX model (derived dims: expressions of it, 2*batch)
    input_names, output_names   the ONNX names of the flattened inputs and
                    outputs, in order
    opset_version   17 to 23 (onnxc's default: 18)
    optimize        True: onnxc's default passes (-O1); False: -O0; 0-2
    verify          run the model in ONNX Runtime and compare with PyTorch
                    (Result.verify)
    report          True: a markdown report beside f (F_report.md), or its
                    path
    external_data   None: only past 2 GB; True/False: always/never
    training        None: from the module's mode (model.training); True
                    keeps dropout and batch statistics (--training)
    passes, plugins an onnxc pipeline (--passes) and plugins to load
    archive         keep the .pt2 at this path (default: a temporary file)

    f None writes into a new temporary folder.  Returns a Result; raises
    ConversionError with onnxc's diagnostics when onnxc refuses the
    program (the archive is then kept: its archive_path), and whatever
    torch.export raises for a model it cannot export."""
    import torch
    from . import _dims
    if not isinstance(args, (tuple, list)):
        args = (args,)
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if isinstance(model, torch.export.ExportedProgram):
        ep, fn = model, None
        mode = bool(training)
    else:
        mode = model.training if training is None else bool(training)
        fn = model.forward
        # each submodule's own mode comes back as it was
        was = {m: m.training for m in model.modules()}
        if training is not None:
            model.train(mode)
        try:
            ep = torch.export.export(
                model, args, kwargs=kwargs or None,
                dynamic_shapes=_dims.for_torch_export(dynamic_shapes),
                strict=strict)
        finally:
            for m, t in was.items():
                m.training = t
    if isinstance(model, torch.export.ExportedProgram) and not args and \
            not kwargs:
        inputs = getattr(ep, "example_inputs", None)
        args, kwargs = inputs if inputs is not None else ((), {})
    dyn = _dims.dynamic_options(ep, fn, args, kwargs, dynamic_shapes)
    tmp = None
    if archive is None:
        tmp = tempfile.mkdtemp(prefix="onnxc-")
        path = os.path.join(tmp, "model.pt2")
    else:
        path = os.fspath(archive)
    try:
        torch.export.save(ep, path)
        res = _convert(path, f, (ep, (args, kwargs)) if verify else None,
                       dyn, input_names=input_names,
                       output_names=output_names, opset_version=opset_version,
                       optimize=optimize, report=report,
                       external_data=external_data, training=mode,
                       passes=passes, plugins=plugins, rtol=rtol, atol=atol)
    except ConversionError as e:
        # the diagnostics name the archive: it stays, to look at or rerun
        e.archive_path = path
        e.args = ("%s\narchive: %s" % (e.args[0], path),)
        tmp = None
        raise
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    res.archive_path = None if tmp else path
    return res


def verify(program, model, inputs=None, rtol=None, atol=None):
    """Compares program (an ExportedProgram or .pt2 path) in PyTorch with
    the ONNX model in ONNX Runtime; returns a VerifyResult (see
    python3 -m onnxc.verify)."""
    from ._verify import verify as _verify
    return _verify(program, model, inputs, rtol, atol)
