"""Runs a program in PyTorch and its ONNX model in ONNX Runtime on the same
inputs and compares the outputs, as torch.onnx.export(verify=True) does.

    python3 -m onnxc.verify MODEL.pt2 MODEL.onnx [--inputs FILE]
        [--rtol R] [--atol A]

The archive's own sample inputs (torch.export.save keeps them) are used
unless --inputs names a torch.save file holding a tuple of positional
inputs or an (args, kwargs) pair.  Prints, per output, the largest absolute
and relative error and the tolerance; exit 0 when every output matches,
1 when one does not, 2 on bad usage."""
import argparse
import os
import sys

from ._verify import OutputCheck, VerifyResult, verify

__all__ = ["OutputCheck", "VerifyResult", "verify", "main"]


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m onnxc.verify",
        description="Run a .pt2 program in PyTorch and its ONNX model in "
        "ONNX Runtime and compare the outputs.")
    ap.add_argument("program", help="the .pt2 archive")
    ap.add_argument("model", help="the ONNX model")
    ap.add_argument("--inputs", help="a torch.save file: a tuple of inputs "
                    "or an (args, kwargs) pair (default: the archive's "
                    "sample inputs)")
    ap.add_argument("--rtol", type=float)
    ap.add_argument("--atol", type=float)
    a = ap.parse_args(argv)
    for f in (a.program, a.model, a.inputs):
        if f is not None and not os.path.isfile(f):
            print("onnxc.verify: error: no file '%s'" % f, file=sys.stderr)
            return 2
    try:
        import onnxruntime  # noqa: F401
        import torch
    except ImportError as e:
        print("onnxc.verify: error: needs torch and onnxruntime (%s)" % e,
              file=sys.stderr)
        return 2
    inputs = program = None
    try:
        program = torch.export.load(a.program)
        if a.inputs:
            inputs = torch.load(a.inputs, weights_only=True)
    except Exception as e:
        print("onnxc.verify: error: cannot read %s: %s"
              % (a.inputs if program is not None else a.program, e),
              file=sys.stderr)
        return 2
    try:
        res = verify(program, a.model, inputs, a.rtol, a.atol)
    except ValueError as e:
        print("onnxc.verify: error: %s" % e, file=sys.stderr)
        return 2
    except Exception as e:  # a model ONNX Runtime refuses is a mismatch
        print("onnxc.verify: %s: %s" % (type(e).__name__, e),
              file=sys.stderr)
        return 1
    print(res)
    print("outputs match" if res.ok else "outputs DIFFER")
    return 0 if res.ok else 1


if __name__ == "__main__":
    sys.exit(main())
