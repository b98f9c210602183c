#!/usr/bin/python3
"""Checks compare.js itself, without onnxc: hand-built ONNX models for three of tests/cases must
be accepted, and models that are subtly wrong (a perturbed weight, an off-by-one integer, the wrong
dtype, shape, input name or output count) must be rejected with a message saying why.

usage: selftest_compare.py [CASES_DIR]     (needs python3-onnx and numpy; NODE_PATH as run_cases.sh)
Prints 'PASS what' / 'FAIL what: why' and ends with 'N passed, N failed'.
"""
import atexit, os, shutil, subprocess, sys, tempfile
import numpy as np
try:
    import onnx
    from onnx import TensorProto as TP, helper as H, numpy_helper as NH
except ImportError:
    print("selftest_compare: skipped: python3-onnx is not installed")
    sys.exit(77)
sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gen"))
import st

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "cases")


def model(nodes, inputs, outputs, inits):
    g = H.make_graph(nodes, "selftest", inputs, outputs, [NH.from_array(v, k) for k, v in inits.items()])
    m = H.make_model(g, opset_imports=[H.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def vi(name, et, shape):
    return H.make_tensor_value_info(name, et, shape)


def two_outputs(w, b, perturb=0.0, out_dtype=TP.FLOAT, mean_keepdims=0):
    """softmax(x @ w.T + b), mean over dim 0 (case two_outputs)."""
    nodes = [H.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1),
             H.make_node("Softmax", ["h"], ["sm"], axis=-1),
             H.make_node("ReduceMean", ["h"], ["mean"], axes=[0], keepdims=mean_keepdims)]
    outs = [vi("sm", TP.FLOAT, None), vi("mean", out_dtype, None)]
    if out_dtype != TP.FLOAT:
        nodes[-1].output[0] = "mean_f"
        nodes.append(H.make_node("Cast", ["mean_f"], ["mean"], to=out_dtype))
    return model(nodes, [vi("x", TP.FLOAT, [3, 5])], outs, {"w": w + perturb, "b": b})


def embedding_cumsum(emb, int_off=0, input_name="idx"):
    """gather rows, cumsum over dim 1 (float) and over the last dim of the ids (int64)."""
    nodes = [H.make_node("Gather", ["emb", input_name], ["e"], axis=0),
             H.make_node("CumSum", ["e", "one"], ["c0"]),
             H.make_node("CumSum", [input_name, "minus1"], ["c1a"]),
             H.make_node("Add", ["c1a", "off"], ["c1"])]
    inits = {"emb": emb, "one": np.array(1, np.int64), "minus1": np.array(-1, np.int64),
             "off": np.array(int_off, np.int64)}
    return model(nodes, [vi(input_name, TP.INT64, [2, 5])],
                 [vi("c0", TP.FLOAT, None), vi("c1", TP.INT64, None)], inits)


def fp16_io(w, drop_cast=False):
    """x*w+y, (x-y)*0.5, float(x*y), where(x>y, x, y), all in f16 (case fp16_io)."""
    nodes = [H.make_node("Mul", ["x", "w"], ["m"]), H.make_node("Add", ["m", "y"], ["o0"]),
             H.make_node("Sub", ["x", "y"], ["d"]), H.make_node("Mul", ["d", "half"], ["o1"]),
             H.make_node("Mul", ["x", "y"], ["p"]),
             H.make_node("Greater", ["x", "y"], ["gt"]), H.make_node("Where", ["gt", "x", "y"], ["o3"])]
    if drop_cast:
        nodes.append(H.make_node("Identity", ["p"], ["o2"]))
        o2 = TP.FLOAT16
    else:
        nodes.append(H.make_node("Cast", ["p"], ["o2"], to=TP.FLOAT))
        o2 = TP.FLOAT
    ins = [vi("x", TP.FLOAT16, [2, 3, 4]), vi("y", TP.FLOAT16, [2, 3, 4])]
    outs = [vi("o0", TP.FLOAT16, None), vi("o1", TP.FLOAT16, None), vi("o2", o2, None), vi("o3", TP.FLOAT16, None)]
    return model(nodes, ins, outs, {"w": w, "half": np.array(0.5, np.float16)})


def main():
    env = dict(os.environ)
    env.setdefault("NODE_PATH", os.path.join(HERE, "..", "..", "tools", "node_modules"))
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="onnxc-selftest-")
    atexit.register(shutil.rmtree, tmp, True)
    seen = []  # every check, again through --batch at the end

    def check(what, m, case, want_ok, want_msg=""):
        nonlocal passed, failed
        path = os.path.join(tmp, what + ".onnx")
        onnx.save(m, path)
        seen.append((what, path, case, want_ok, want_msg))
        r = subprocess.run(["node", os.path.join(HERE, "compare.js"), path, os.path.join(CASES, case)],
                           capture_output=True, text=True, env=env)
        ok = (r.returncode == 0) == want_ok and (want_ok or want_msg in r.stderr) and (want_ok or r.returncode == 1)
        if ok:
            passed += 1
            print("PASS %s%s" % (what, "" if want_ok else "  (" + r.stderr.strip() + ")"))
        else:
            failed += 1
            print("FAIL %s: exit %d, stderr: %s" % (what, r.returncode, r.stderr.strip()[:300]))

    w = st.load(os.path.join(CASES, "two_outputs", "weights.safetensors"))
    check("two_outputs_correct", two_outputs(w["w"], w["b"]), "two_outputs", True)
    check("two_outputs_perturbed_weight", two_outputs(w["w"], w["b"], perturb=1e-3), "two_outputs", False, "differ")
    check("two_outputs_wrong_dtype", two_outputs(w["w"], w["b"], out_dtype=TP.DOUBLE), "two_outputs", False, "dtype")
    check("two_outputs_wrong_shape", two_outputs(w["w"], w["b"], mean_keepdims=1), "two_outputs", False, "shape")
    check("two_outputs_wrong_case", two_outputs(w["w"], w["b"]), "embedding_cumsum", False, "inputs")
    w = st.load(os.path.join(CASES, "embedding_cumsum", "weights.safetensors"))
    check("embedding_cumsum_correct", embedding_cumsum(w["emb.weight"]), "embedding_cumsum", True)
    check("embedding_cumsum_int_off_by_one", embedding_cumsum(w["emb.weight"], int_off=1), "embedding_cumsum",
          False, "output 1")
    check("embedding_cumsum_input_name", embedding_cumsum(w["emb.weight"], input_name="input"), "embedding_cumsum",
          False, "inputs")
    w = st.load(os.path.join(CASES, "fp16_io", "weights.safetensors"))
    check("fp16_io_correct", fp16_io(w["w"]), "fp16_io", True)
    check("fp16_io_perturbed", fp16_io(w["w"] + np.float16(0.25)), "fp16_io", False, "output 0")
    check("fp16_io_missing_cast", fp16_io(w["w"], drop_cast=True), "fp16_io", False, "dtype float16, expected float32")
    # a model with one output fewer than the case expects
    w = st.load(os.path.join(CASES, "two_outputs", "weights.safetensors"))
    m = two_outputs(w["w"], w["b"])
    del m.graph.output[1]
    check("two_outputs_missing_output", m, "two_outputs", False, "outputs, expected 2")
    # --batch (run_cases.sh): the same verdicts, one line each, in order, a model that is not
    # there among them (a failure that must not stop the rest)
    seen.insert(1, ("no_such_model", os.path.join(tmp, "absent.onnx"), "two_outputs", False, "rejects"))
    lines = "".join("%s\t%s\t%s\n" % (w, p, os.path.join(CASES, c)) for w, p, c, _, _ in seen)
    r = subprocess.run(["node", os.path.join(HERE, "compare.js"), "--batch"], input=lines,
                       capture_output=True, text=True, env=env)
    got = r.stdout.splitlines()
    bad = [w for (w, _, _, ok, msg), g in zip(seen, got)
           if not (g == "PASS " + w if ok else g.startswith("FAIL %s: " % w) and msg in g)]
    if len(got) == len(seen) and not bad and r.returncode == 1:
        passed += 1
        print("PASS batch_verdicts (%d checks)" % len(seen))
    else:
        failed += 1
        print("FAIL batch_verdicts: exit %d, %d lines for %d checks, wrong: %s" %
              (r.returncode, len(got), len(seen), ", ".join(bad) or r.stderr.strip()[:300]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
