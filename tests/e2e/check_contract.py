"""The exporter's contract (issue 23), end to end on tests/contract:
names, torch.onnx's metadata keys and their values, the report on success
and on failure, weights as inputs, and the usage errors.

usage: check_contract.py ONNXC TESTS_DIR   (TESTS_DIR: the repo's tests/)
Every model must pass onnx.checker (full_check, opset 17).
Prints 'PASS name' / 'FAIL name: why'; exit 1 if any failed.
"""
import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_meta  # noqa: E402

ONNXC, TESTS = sys.argv[1], sys.argv[2]
CASE = os.path.join(TESTS, "contract")
GRAPH = os.path.join(CASE, "graph.txt")
WEIGHTS = os.path.join(CASE, "weights.safetensors")
WORK = tempfile.mkdtemp(prefix="onnxc-contract-")
atexit.register(shutil.rmtree, WORK, True)
K = "pkg.torch.export.graph_signature."
failed = []


def run(*args):
    p = subprocess.run([ONNXC, *args], capture_output=True, text=True,
                       timeout=60)
    for bad in ("Sanitizer", "runtime error:"):
        assert bad not in p.stderr, "%s: %s" % (args, p.stderr)
    return p.returncode, p.stderr


def convert(name, *flags, opset="17"):
    out = os.path.join(WORK, name + ".onnx")
    rc, err = run(GRAPH, "--weights", WEIGHTS, "-o", out, "--opset", opset,
                  *flags)
    assert rc == 0, "exit %d: %s" % (rc, err)
    onnx.checker.check_model(onnx.load(out), full_check=True)
    return onnx_meta.load(out)


def check(name):
    def deco(fn):
        try:
            fn()
            print("PASS", name)
        except AssertionError as e:
            print("FAIL %s: %s" % (name, e))
            failed.append(name)
        return fn
    return deco


def eq(got, want, what):
    assert got == want, "%s: %r, expected %r" % (what, got, want)


@check("names")
def _():
    g = convert("names", "--input-names", "inp", "--output-names",
                "sum,act").graph
    eq([v.name for v in g.input], ["inp", "y"], "inputs")
    eq([v.name for v in g.output], ["sum", "act"], "outputs")
    # every node reading the input reads it under its new name
    assert any("inp" in n.input for n in g.node), "no node reads 'inp'"


@check("node metadata")
def _():
    g = convert("nodes").graph
    gemm = [n for n in g.node if n.op_type == "Gemm"][0]
    p = onnx_meta.props(gemm)
    eq(p.get("namespace"), "linear: aten.linear.default", "namespace")
    eq(p.get("pkg.torch.onnx.class_hierarchy"), "['aten.linear.default']",
       "class_hierarchy")
    eq(p.get("pkg.torch.onnx.name_scopes"), "['linear']", "name_scopes")
    eq(p.get("pkg.torch.onnx.fx_node"),
       "%linear : [num_users=2] = call_function[target=torch.ops.aten."
       "linear.default](args = (%x, %p_fc_weight, %p_fc_bias), kwargs = {})",
       "fx_node")
    eq(p.get("pkg.torch.onnx.stack_trace"), "File: /home/user/proj/"
       "model.py:12 in forward, code: h = self.fc(x)", "stack_trace")
    # add with alpha becomes several ONNX nodes: each carries add's keys
    adds = [n for n in g.node
            if onnx_meta.props(n).get("pkg.torch.onnx.name_scopes") ==
            "['add']"]
    assert len(adds) >= 2, "add became %d nodes with its metadata" % len(adds)
    eq(onnx_meta.props(adds[0]).get("pkg.torch.onnx.fx_node"),
       "%add : [num_users=1] = call_function[target=torch.ops.aten.add."
       "Tensor](args = (%mul, %y), kwargs = {alpha: 2})", "fx_node of add")
    for n in g.node:
        eq(len(onnx_meta.props(n)), 5, "keys on %s" % n.op_type)


@check("value and initializer metadata")
def _():
    g = convert("values", "--input-names", "inp", "--output-names",
                "sum").graph
    p = {v.name: onnx_meta.props(v) for v in list(g.input) + list(g.output)}
    eq(p["inp"], {K + "InputSpec.kind": "USER_INPUT",
                  K + "InputSpec.persistent": "None",
                  "pkg.torch.onnx.original_node_name": "x"}, "inp")
    eq(p["y"], {K + "InputSpec.kind": "USER_INPUT",
                K + "InputSpec.persistent": "None"}, "y")
    eq(p["sum"], {K + "OutputSpec.kind": "USER_OUTPUT",
                  "pkg.torch.onnx.original_node_name": "add"}, "sum")
    eq(p["relu"], {K + "OutputSpec.kind": "USER_OUTPUT"}, "relu")
    i = {t.name: onnx_meta.props(t) for t in g.initializer}
    eq(i["fc.weight"], {K + "InputSpec.kind": "PARAMETER",
                        K + "InputSpec.persistent": "None",
                        "pkg.torch.onnx.original_node_name": "p_fc_weight"},
       "fc.weight")
    eq(i["scale"], {K + "InputSpec.kind": "BUFFER",
                    K + "InputSpec.persistent": "False",
                    "pkg.torch.onnx.original_node_name": "b_scale"}, "scale")


@check("graph metadata")
def _():
    p = onnx_meta.props(convert("graph", "--input-names", "inp").graph)
    eq(p.get("pkg.torch.export.ExportedProgram.graph_signature"),
       "\n# inputs\np_fc_weight: PARAMETER target='fc.weight'\n"
       "p_fc_bias: PARAMETER target='fc.bias'\n"
       "b_scale: BUFFER target='scale' persistent=False\n"
       "x: USER_INPUT\ny: USER_INPUT\n\n# outputs\n"
       "add: USER_OUTPUT\nrelu: USER_OUTPUT\n", "graph_signature")
    eq(p.get("pkg.torch.export.ExportedProgram.range_constraints"),
       "{s0: VR[2, int_oo]}", "range_constraints")


@check("strip-paths and no-metadata")
def _():
    g = convert("strip", "--strip-paths").graph
    traces = {onnx_meta.props(n)["pkg.torch.onnx.stack_trace"]
              for n in g.node}
    assert "File: model.py:12 in forward, code: h = self.fc(x)" in traces, \
        traces
    assert not any("/" in t for t in traces), traces
    m = convert("bare", "--no-metadata", "--input-names", "inp")
    g = m.graph
    for msg in [g, *g.node, *g.input, *g.output, *g.initializer]:
        eq(len(msg.metadata_props), 0, "metadata with --no-metadata")
    eq(len(m.metadata_props), 0, "model metadata")


@check("weights as inputs")
def _():
    g = convert("keep", "--keep-initializers-as-inputs").graph
    eq(sorted(t.name for t in g.initializer), ["fc.bias", "fc.weight",
                                                "scale"], "initializers")
    eq([v.name for v in g.input], ["fc.weight", "fc.bias", "scale", "x",
                                   "y"], "inputs")
    g = convert("noweights", "--no-weights").graph
    eq(len(g.initializer), 0, "initializers with --no-weights")
    eq([v.name for v in g.input][:3], ["fc.weight", "fc.bias", "scale"],
       "weights as inputs")


@check("names compose with --dynamic")
def _():
    g = convert("dyn", "--input-names", "inp",
                "--dynamic", "inp:0=batch").graph
    eq([d.dim_param for d in g.input[0].type.tensor_type.shape.dim][:1],
       ["batch"], "dim 0 of inp")


@check("report on success")
def _():
    rep = os.path.join(WORK, "ok.md")
    convert("rep", "--input-names", "inp", "--report", rep)
    text = open(rep).read()
    for want in ["- Opset: 17", "Result: **converted**",
                 "| `inp` (was `x`) | f32 | [s0, 4] | s0 |",
                 "| `aten.linear.default` | 1 | built-in rule | Gemm |",
                 "| `aten.add.Tensor` | 1 | built-in rule |",
                 "| lower | onnxc-lower |", "- 3 tensors, 72 bytes",
                 "Unsupported ops\n\nNone."]:
        assert want in text, "%r not in the report:\n%s" % (want, text)
    # every phase ran, each with a time
    for phase in ["read (parse or archive, weights)", "passes", "write"]:
        assert re.search(r"\| %s \| \d+\.\d{3} \|" % re.escape(phase),
                         text), "no time for %r:\n%s" % (phase, text)


@check("report names plugin lowerings")
def _():
    plugin = os.path.join(os.path.dirname(ONNXC), "test-plugins", "mylib.so")
    rep = os.path.join(WORK, "plugin.md")
    rc, err = run(os.path.join(TESTS, "plugins", "mylib.txt"),
                  "--load-plugin", plugin, "-o",
                  os.path.join(WORK, "plugin.onnx"), "--report", rep)
    eq(rc, 0, "exit code (%s)" % err)
    text = open(rep).read()
    # mylib lowers twice itself; its relu lowering declines: onnxc's rule
    for want in ["| `mylib.twice.default` | 1 | plugin `mylib` | Add |",
                 "| `aten.relu.default` | 1 | built-in rule | Relu |"]:
        assert want in text, "%r not in the report:\n%s" % (want, text)


@check("report names decompositions and shipped plugins")
def _():
    for case, want in [
            ("cases-decompose/dec_norms",
             "| `aten.rms_norm.default` | 2 | decomposition (decompose pass) |"),
            ("cases-torchvision/tv_nms",
             "| `torchvision.nms.default` | 1 | plugin `torchvision` |")]:
        d = os.path.join(TESTS, case)
        rep = os.path.join(WORK, "kinds.md")
        args = ["-o", os.path.join(WORK, "kinds.onnx"), "--report", rep]
        if os.path.exists(os.path.join(d, "weights.safetensors")):
            args += ["--weights", os.path.join(d, "weights.safetensors")]
        rc, err = run(os.path.join(d, "graph.txt"), *args)
        eq(rc, 0, "exit code of %s (%s)" % (case, err))
        text = open(rep).read()
        assert want in text, "%r not in the report:\n%s" % (want, text)


@check("report on failure")
def _():
    rep = os.path.join(WORK, "fail.md")
    out = os.path.join(WORK, "fail.onnx")
    bad = os.path.join(TESTS, "cases-diagnose", "two_unknown_ops",
                       "graph.txt")
    rc, err = run(bad, "-o", out, "--report", rep)
    eq(rc, 1, "exit code")
    assert not os.path.exists(out), "a model was written"
    text = open(rep).read()
    for want in ["Result: **failed** (2 errors",
                 "| `aten.foo.bar` | 2 | **none (unsupported)** |",
                 "| `aten.foo.bar` | 2 | `%s:4:32` |" % bad,
                 "| `mylib.baz.default` | 1 | `%s:5:32` |" % bad,
                 "add one in a plugin", "| lower (failed) |"]:
        assert want in text, "%r not in the report:\n%s" % (want, text)
    # the passes failed: no model was written, so no write phase
    assert "| passes |" in text and "| write |" not in text, text


@check("usage errors")
def _():
    out = os.path.join(WORK, "u.onnx")
    for flags, msg in [
            (["--input-names", "a,b,c"], "gives 3 names, but the model has "
             "2 user inputs (x, y)"),
            (["--output-names", "a,,b"], "a name is empty"),
            (["--input-names", "a,a"], "a name is given twice"),
            (["--input-names", "y"], "'y' is already the name of another"),
            (["--no-weights", "--emit", "ort"], "are for .onnx output")]:
        rc, err = run(GRAPH, "--weights", WEIGHTS, "-o", out, *flags)
        eq(rc, 2, "exit code of %s" % flags)
        assert msg in err, "%r not in %r" % (msg, err)
        assert not os.path.exists(out), "%s wrote a model" % flags


print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
