"""The Python package (python/onnxc) in real PyTorch, ONNX and ONNX Runtime
(issue 37): the torch.onnx documentation's example through onnxc.export,
python3 -m onnxc.verify on a right and a wrong model, a KV-cache step with
Dim names, a failing conversion, the training mode, an output that is the
input, convert() and derived Dims.

usage: ONNXC=build/onnxc python3 tests/python/test_onnxc.py
Prints 'PASS name' / 'FAIL name: why'; exit 1 if any failed."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "python"))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import onnxc  # noqa: E402

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
        except Exception as e:  # an assertion or anything unexpected
            print("FAIL %s: %s" % (name, e))
            traceback.print_exc(limit=3)
            failed.append(name)
        return fn
    return deco


def eq(got, want, what):
    assert got == want, "%s: %r, expected %r" % (what, got, want)


def dims(vi):
    return [d.dim_param or d.dim_value for d in
            vi.type.tensor_type.shape.dim]


def run_ort(path, feeds):
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


def close(a, b, what):
    b = b.detach().numpy()
    assert a.shape == b.shape, "%s: shape %s, expected %s" % (
        what, a.shape, b.shape)
    assert np.allclose(a, b, rtol=1e-3, atol=1e-4), "%s: max error %g" % (
        what, float(np.abs(a - b).max()))


# -- the torch.onnx documentation's example (torch.export-based exporter) --
class MLPModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc0 = nn.Linear(8, 8, bias=True)
        self.fc1 = nn.Linear(8, 4, bias=True)
        self.fc2 = nn.Linear(4, 2, bias=True)
        self.fc3 = nn.Linear(2, 2, bias=True)
        self.fc_combined = nn.Linear(8 + 8 + 8, 8, bias=True)

    def forward(self, tensor_x, input_dict, input_list):
        dict_tensor = input_dict["tensor_x"]
        list_tensor = input_list[0]
        t = torch.cat([tensor_x, dict_tensor, list_tensor], dim=1)
        t = torch.sigmoid(self.fc_combined(t))
        t = torch.sigmoid(self.fc0(t))
        t = torch.sigmoid(self.fc1(t))
        t = torch.sigmoid(self.fc2(t))
        return self.fc3(t)


@check("documentation example: names, batch_size, verify, report")
def _():
    torch.manual_seed(0)
    model = MLPModel().eval()
    args = (torch.rand(97, 8), {"tensor_x": torch.rand(97, 8)},
            [torch.rand(97, 8)])
    # the documentation names all three 'tensor_x'; torch.onnx itself now
    # refuses repeated names, so they are told apart here
    names = ["tensor_x", "dict_tensor_x", "list_tensor_x"]
    out = os.path.join(WORK, "mlp.onnx")
    res = onnxc.export(
        model, args, out,
        dynamic_shapes=({0: "batch_size"}, {"tensor_x": {0: "batch_size"}},
                        [{0: "batch_size"}]),
        input_names=names, output_names=["output"], verify=True,
        report=True)
    eq(res.model_path, out, "model_path")
    m = onnx.load(out)
    onnx.checker.check_model(m, full_check=True)
    eq([i.name for i in m.graph.input], names, "inputs")
    eq([o.name for o in m.graph.output], ["output"], "outputs")
    for i in m.graph.input:
        eq(dims(i)[0], "batch_size", "dim 0 of %s" % i.name)
    eq(dims(m.graph.output[0])[0], "batch_size", "dim 0 of output")
    assert res.verify is not None and res.verify.ok, str(res.verify)
    eq([o.name for o in res.verify.outputs], ["output"], "verified")
    assert res.report_path and os.path.getsize(res.report_path) > 0, \
        "no report at %r" % res.report_path
    with open(res.report_path) as fh:
        assert "batch_size" in fh.read(), "the report lacks batch_size"
    # and the model runs at another batch size
    x = [torch.rand(5, 8) for _ in range(3)]
    got = run_ort(out, dict(zip(names, [t.numpy() for t in x])))
    with torch.no_grad():
        close(got[0], model(x[0], {"tensor_x": x[1]}, [x[2]]), "batch 5")


@check("python3 -m onnxc.verify: 0 on the model, 1 on a wrong one, 2 on "
       "bad usage")
def _():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(6, 5), nn.GELU(), nn.Linear(5, 3)).eval()
    pt2 = os.path.join(WORK, "seq.pt2")
    out = os.path.join(WORK, "seq.onnx")
    res = onnxc.export(model, (torch.randn(4, 6),), out, archive=pt2)
    eq(res.archive_path, pt2, "archive_path")
    env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "python"))

    def cli(*a):
        p = subprocess.run([sys.executable, "-m", "onnxc.verify", *a],
                           capture_output=True, text=True, env=env)
        return p.returncode, p.stdout + p.stderr
    rc, text = cli(pt2, out)
    eq(rc, 0, "exit on the right model (%s)" % text)
    assert "max abs" in text and "outputs match" in text, text
    # a wrong model: one weight changed
    m = onnx.load(out)
    w = max(m.graph.initializer, key=lambda t: len(t.raw_data or b""))
    arr = onnx.numpy_helper.to_array(w).copy()
    arr.flat[0] += 1.0
    w.CopyFrom(onnx.numpy_helper.from_array(arr, w.name))
    bad = os.path.join(WORK, "seq_wrong.onnx")
    onnx.save(m, bad)
    rc, text = cli(pt2, bad)
    eq(rc, 1, "exit on the wrong model (%s)" % text)
    assert "MISMATCH" in text, text
    # given inputs (another batch) through --inputs
    inp = os.path.join(WORK, "inputs.pt")
    torch.save((torch.randn(4, 6),), inp)
    rc, text = cli(pt2, out, "--inputs", inp)
    eq(rc, 0, "exit with --inputs (%s)" % text)
    rc, text = cli(pt2)
    eq(rc, 2, "exit without the model")
    rc, text = cli(pt2, os.path.join(WORK, "none.onnx"))
    eq(rc, 2, "exit on a missing model")


# -- a decoder step with a KV cache: dims named by Dims -------------------
class Step(nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, past_k, past_v):
        b, n, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.view(b, n, self.h, self.hd).transpose(1, 2)
                   for t in (q, k, v))
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        return self.out(a.transpose(1, 2).reshape(b, n, d)), k, v


@check("KV cache with Dim names: batch, new, past and past+new")
def _():
    from torch.export import Dim
    torch.manual_seed(2)
    model = Step().eval()
    batch, new, past = Dim("batch"), Dim("new"), Dim("past")
    args = (torch.randn(2, 3, 16), torch.randn(2, 2, 5, 8),
            torch.randn(2, 2, 5, 8))
    ds = {"x": {0: batch, 1: new}, "past_k": {0: batch, 2: past},
          "past_v": {0: batch, 2: past}}
    out = os.path.join(WORK, "kv.onnx")
    res = onnxc.export(model, args, out, dynamic_shapes=ds, verify=True,
                       output_names=["y", "present_k", "present_v"])
    assert res.verify.ok, str(res.verify)
    m = onnx.load(out)
    got = {i.name: dims(i) for i in m.graph.input}
    eq(got, {"x": ["batch", "new", 16], "past_k": ["batch", 2, "past", 8],
             "past_v": ["batch", 2, "past", 8]}, "input dims")
    pk = dims(m.graph.output[1])
    eq(pk[:2], ["batch", 2], "present_k dims 0-1")
    assert isinstance(pk[2], str) and "past" in pk[2] and "new" in pk[2], \
        "present_k dim 2: %r" % (pk[2],)
    for o in m.graph.output:
        for d in dims(o):
            assert not (isinstance(d, str) and any(
                w.startswith("s") and w[1:].isdigit()
                for w in d.replace("+", " ").replace("*", " ").split())), \
                "%s keeps a PyTorch symbol: %r" % (o.name, d)
    # a longer cache, one new token, three sequences
    x, pk_, pv = (torch.randn(3, 1, 16), torch.randn(3, 2, 9, 8),
                  torch.randn(3, 2, 9, 8))
    y = run_ort(out, {"x": x.numpy(), "past_k": pk_.numpy(),
                      "past_v": pv.numpy()})
    with torch.no_grad():
        want = model(x, pk_, pv)
    for g, w, n in zip(y, want, ("y", "present_k", "present_v")):
        close(g, w, n)


# -- a failing conversion -------------------------------------------------
@torch.library.custom_op("onnxc_test::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@twice.register_fake
def _(x):
    return torch.empty_like(x)


class Custom(nn.Module):
    def forward(self, x):
        return twice(x).relu()


@check("a failing conversion raises ConversionError with the diagnostics "
       "and the report")
def _():
    out = os.path.join(WORK, "custom.onnx")
    try:
        onnxc.export(Custom(), (torch.randn(3),), out, report=True)
    except onnxc.ConversionError as e:
        eq(e.returncode, 1, "returncode")
        assert "error:" in e.diagnostics and "onnxc_test::twice" in \
            e.diagnostics, e.diagnostics
        assert "unsupported operator" in str(e), str(e)
        assert e.report_path and os.path.exists(e.report_path), \
            "report %r" % e.report_path
        assert e.report_path in str(e), "the message lacks the report path"
        assert not os.path.exists(out), "a model was written"
        assert e.archive_path and os.path.exists(e.archive_path) and \
            e.archive_path in e.diagnostics, "archive %r" % e.archive_path
    else:
        raise AssertionError("no ConversionError")
    try:
        onnxc.export(nn.ReLU(), (torch.randn(3),),
                     os.path.join(WORK, "o.onnx"), opset_version=999)
    except onnxc.ConversionError as e:
        eq(e.returncode, 2, "returncode of a usage error")
        assert "--opset" in e.diagnostics, e.diagnostics
    else:
        raise AssertionError("no ConversionError for opset 999")


@check("training from the module's mode: dropout stays dropout")
def _():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    out = os.path.join(WORK, "train.onnx")
    model.train()
    onnxc.export(model, (torch.randn(2, 4),), out)
    ops = [n.op_type for n in onnx.load(out).graph.node]
    assert "Dropout" in ops, ops
    assert model.training, "the module's mode was not restored"
    onnxc.export(model, (torch.randn(2, 4),), out, training=False)
    ops = [n.op_type for n in onnx.load(out).graph.node]
    assert "Dropout" not in ops, ops
    assert model.training, "the module's mode was not restored"
    model[0].eval()  # a mixed mode survives an export in eval mode
    onnxc.export(model, (torch.randn(2, 4),), out, training=False)
    eq([m.training for m in model.modules()], [True, False, True],
       "modes after the export")


class Same(nn.Module):
    def forward(self, x):
        return torch.diff(x, n=0), torch.diff(x)


@check("an output that is the input keeps the input's name")
def _():
    out = os.path.join(WORK, "same.onnx")
    res = onnxc.export(Same(), (torch.randn(2, 5),), out, verify=True)
    m = onnx.load(out)
    eq([i.name for i in m.graph.input], ["x"], "inputs")
    assert "x" not in [o.name for o in m.graph.output], "x is an output"
    assert res.verify.ok, str(res.verify)


@check("convert() of an archive on disk, dims named by placeholder")
def _():
    from torch.export import Dim
    model = nn.Linear(3, 2).eval()
    ep = torch.export.export(model, (torch.randn(4, 3),),
                             dynamic_shapes=({0: Dim("n")},))
    pt2 = os.path.join(WORK, "lin.pt2")
    torch.export.save(ep, pt2)
    out = os.path.join(WORK, "lin.onnx")
    res = onnxc.convert(pt2, out, dynamic_shapes={"input": {0: "rows"}},
                        verify=True)
    assert res.verify.ok, str(res.verify)
    eq(dims(onnx.load(out).graph.input[0]), ["rows", 3], "input dims")


class Twice(nn.Module):
    def forward(self, x, y):
        return x.repeat(2) + y


@check("a derived Dim is an expression of its root; an ExportedProgram "
       "takes names too")
def _():
    from torch.export import Dim
    n = Dim("n")
    args = (torch.randn(3), torch.randn(6))
    out = os.path.join(WORK, "twice.onnx")
    res = onnxc.export(Twice(), args, out, verify=True,
                       dynamic_shapes={"x": {0: n}, "y": {0: 2 * n}})
    assert res.verify.ok, str(res.verify)
    m = onnx.load(out)
    eq([dims(i) for i in m.graph.input], [["n"], ["2*n"]], "input dims")
    ep = torch.export.export(Twice(), args, dynamic_shapes=(
        {0: Dim("a")}, {0: 2 * Dim("a")}))
    res = onnxc.export(ep, f=out, dynamic_shapes={"x": {0: "half"}},
                       verify=True)
    assert res.verify.ok, str(res.verify)
    m = onnx.load(out)
    eq([dims(i) for i in m.graph.input], [["half"], ["2*half"]],
       "input dims of the ExportedProgram")


print("%d failed" % len(failed) if failed else "all passed")
sys.exit(1 if failed else 0)
