"""The Python package without PyTorch (issue 37): what python/onnxc does on
its own, so CI checks it with a bare python3 too.  onnxc is found through
$ONNXC; convert() runs it on tests/pt2/mlp/model.pt2 (flags, names, a dim
named by dynamic_shapes, the report), a bad archive raises ConversionError
with onnxc's diagnostics and the report, a bad option is a usage error
(exit 2), and importing onnxc and converting loads no torch.

usage: python3 tests/python/test_program.py ONNXC
Prints 'PASS name' / 'FAIL name: why'; exit 1 if any failed."""
import atexit
import os
import shutil
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "python"))
sys.dont_write_bytecode = True
os.environ["ONNXC"] = os.path.abspath(sys.argv[1])

import onnxc  # noqa: E402
from onnxc import _program  # noqa: E402

MLP = os.path.join(TOP, "tests", "pt2", "mlp", "model.pt2")
BAD = os.path.join(TOP, "tests", "pt2", "bad", "bad_dtype", "model.pt2")
WORK = tempfile.mkdtemp(prefix="onnxc-py-")
# what the package puts in a temporary folder (a stream's report, the archive
# of a failed conversion) goes under WORK too, removed at exit
tempfile.tempdir = WORK
os.environ["TMPDIR"] = WORK
atexit.register(shutil.rmtree, WORK, True)
failed = []


def check(name):
    def deco(fn):
        try:
            fn()
            print("PASS", name)
        except Exception as e:
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
            failed.append(name)
        return fn
    return deco


def eq(got, want, what):
    assert got == want, "%s: %r, expected %r" % (what, got, want)


@check("find_onnxc: $ONNXC, and a wrong $ONNXC is an error")
def _():
    eq(onnxc.find_onnxc(), os.environ["ONNXC"], "program")
    keep = os.environ["ONNXC"]
    os.environ["ONNXC"] = os.path.join(WORK, "none")
    try:
        onnxc.find_onnxc()
    except FileNotFoundError as e:
        assert "ONNXC=" in str(e), str(e)
    else:
        raise AssertionError("no FileNotFoundError")
    finally:
        os.environ["ONNXC"] = keep


@check("command: torch.onnx.export's options as onnxc flags")
def _():
    argv = _program.command(
        "m.pt2", "m.onnx", exe="onnxc", input_names=["a", "b"],
        output_names=["y"], opset_version=20, optimize=2,
        report_path="r.md", external_data=True, training=True,
        plugins=["p.so"], dynamic=[("x", 0, "batch")])
    eq(argv, ["onnxc", "m.pt2", "-o", "m.onnx", "--opset", "20", "-O2",
              "--load-plugin", "p.so", "--training", "--input-names", "a,b",
              "--output-names", "y", "--dynamic", "x:0=batch",
              "--external-data", "--report", "r.md"], "argv")
    eq(_program.command("m.pt2", "o", exe="onnxc", optimize=False)[4:],
       ["-O0"], "optimize=False")
    eq(_program.command("m.pt2", "o", exe="onnxc",
                        passes=["decompose", "lower"])[4:],
       ["--passes=decompose,lower"], "passes")
    eq(_program.command("m.pt2", "o", exe="onnxc",
                        external_data=False)[4:],
       ["--no-external-data"], "external_data=False")
    for bad in ({"optimize": 3}, {"external_data": "yes"},
                {"optimize": 2, "passes": "lower"}):
        try:
            _program.command("m.pt2", "o", exe="onnxc", **bad)
        except ValueError:
            continue
        raise AssertionError("%r accepted" % (bad,))


@check("convert: names, a dim named by dynamic_shapes, the report")
def _():
    out = os.path.join(WORK, "mlp.onnx")
    res = onnxc.convert(MLP, out, input_names=["features"],
                        output_names=["scores"],
                        dynamic_shapes={"x": {0: "batch"}}, report=True)
    eq(res.model_path, out, "model_path")
    assert os.path.getsize(out) > 0, "no model"
    eq(res.report_path, os.path.join(WORK, "mlp_report.md"), "report_path")
    with open(res.report_path) as fh:
        rep = fh.read()
    for want in ("`features`", "`scores`", "[batch, 8]", "converted"):
        assert want in rep, "the report lacks %s:\n%s" % (want, rep)
    assert res.verify is None, "verified without verify="
    assert "--dynamic" in res.command and "x:0=batch" in res.command, \
        res.command


@check("a refused archive raises ConversionError with the diagnostics and "
       "the report")
def _():
    out = os.path.join(WORK, "bad.onnx")
    try:
        onnxc.convert(BAD, out, report=True)
    except onnxc.ConversionError as e:
        eq(e.returncode, 1, "returncode")
        assert "error:" in e.diagnostics and BAD in e.diagnostics, \
            e.diagnostics
        assert e.diagnostics.strip() in str(e), str(e)
        assert e.report_path and os.path.exists(e.report_path), \
            e.report_path
        assert e.report_path in str(e), "no report path in the message"
        eq(e.archive_path, BAD, "archive_path")
        assert not os.path.exists(out), "a model was written"
    else:
        raise AssertionError("no ConversionError")
    try:
        onnxc.convert(MLP, out, opset_version=999)
    except onnxc.ConversionError as e:
        eq(e.returncode, 2, "returncode of a usage error")
        assert "usage error" in str(e) and "--opset" in e.diagnostics, str(e)
    else:
        raise AssertionError("no ConversionError for opset 999")


@check("a file object as f; import and convert load no torch")
def _():
    import io
    buf = io.BytesIO()
    res = onnxc.convert(MLP, buf)
    assert len(buf.getvalue()) > 100, "nothing written"
    eq(res.model_path, None, "model_path of a stream")
    res = onnxc.convert(MLP, io.BytesIO(), report=True)
    assert os.path.exists(res.report_path), "the report went with the model"
    assert "torch" not in sys.modules, "torch was imported"


print("%d failed" % len(failed) if failed else "all passed")
sys.exit(1 if failed else 0)
