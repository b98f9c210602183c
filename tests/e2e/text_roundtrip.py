#!/usr/bin/env python3
"""onnxc's text output (--emit text) read back by onnx.parser is the model
its ONNX output is, for the same flags (tests/e2e/text_roundtrip.sh makes
both files).

usage: text_roundtrip.py DIR NAME...   (DIR/NAME.onnx and DIR/NAME.onnxtxt;
       external data beside each, if any)
       text_roundtrip.py --probe       (exit 0 if this onnx parses the
       syntax onnxc writes: node names in [], quoted names)

Compared: the whole ModelProto, field by field, after what the syntax
cannot hold is taken out of the ONNX model (the limits text.c states):
metadata_props of graphs, nodes and values, and dim_params that are no
identifier (written '?').  Tensors (initializers, tensor attributes) are
compared by name, type, dims and values (bit for bit; NaNs as NaNs), with
their external data loaded.  Prints each difference; exit 1 on any.
"""
import difflib
import os
import re
import sys

import numpy as np
import onnx
import onnx.parser
from onnx import external_data_helper, numpy_helper

PROBE = '''<ir_version: 8, opset_import: ["" : 18]>
"a b" (float[N] x) => (float[N] "y.z") { [n1] "y.z" = Identity (x) }'''

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def graphs(g):
    """g and every subgraph in it, depth first."""
    yield g
    for n in g.node:
        for a in n.attribute:
            if a.HasField("g"):
                yield from graphs(a.g)
            for sub in a.graphs:
                yield from graphs(sub)


def tensors(g):
    """(where, TensorProto) of every tensor in g and its subgraphs."""
    for h in graphs(g):
        for t in h.initializer:
            yield "initializer %s of %s" % (t.name, h.name), t
        for n in h.node:
            for a in n.attribute:
                if a.HasField("t"):
                    yield "attribute %s of %s" % (a.name, n.name), a.t


def strip(model):
    """What the text syntax cannot hold, out of an ONNX model."""
    for g in graphs(model.graph):
        del g.metadata_props[:]
        for n in g.node:
            del n.metadata_props[:]
            if n.domain == "":
                n.ClearField("domain")
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            del vi.metadata_props[:]
            for d in vi.type.tensor_type.shape.dim:
                if d.HasField("dim_param") and not IDENT.match(d.dim_param):
                    d.ClearField("dim_param")
        for t in g.initializer:
            del t.metadata_props[:]


def same_values(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        na, nb = np.isnan(a), np.isnan(b)
        if not np.array_equal(na, nb):
            return False
        a, b = np.where(na, 0, a), np.where(nb, 0, b)
        # bit for bit: -0.0 is not 0.0
        return a.tobytes() == b.tobytes()
    return a.tobytes() == b.tobytes()


def check_tensors(name, want, got):
    bad = 0
    tw, tg = list(tensors(want.graph)), list(tensors(got.graph))
    if len(tw) != len(tg):
        print("%s: %d tensors in ONNX, %d in text" % (name, len(tw), len(tg)))
        return 1
    for (where, a), (_, b) in zip(tw, tg):
        if (a.name, list(a.dims), a.data_type) != \
                (b.name, list(b.dims), b.data_type):
            print("%s: %s: name, dims or type differ: %s %s %d / %s %s %d"
                  % (name, where, a.name, list(a.dims), a.data_type,
                     b.name, list(b.dims), b.data_type))
            bad += 1
        elif not same_values(numpy_helper.to_array(a),
                             numpy_helper.to_array(b)):
            print("%s: %s: values differ" % (name, where))
            bad += 1
        # compared: out of the way of the rest
        for t in (a, b):
            keep = (t.name, list(t.dims), t.data_type)
            t.Clear()
            t.name, t.data_type = keep[0], keep[2]
            t.dims.extend(keep[1])
    return bad


def check(folder, name):
    base = os.path.join(folder, name)
    want = onnx.load(base + ".onnx")            # external data loaded
    with open(base + ".onnxtxt", encoding="utf-8") as f:
        text = f.read()
    try:
        got = onnx.parser.parse_model(text)
    except Exception as e:  # noqa: BLE001 - the parser raises several kinds
        print("%s: onnx.parser refuses the text: %s" % (name, e))
        return 1
    external_data_helper.load_external_data_for_model(got, folder)
    strip(want)
    strip(got)
    bad = check_tensors(name, want, got)
    a = want.SerializeToString(deterministic=True)
    b = got.SerializeToString(deterministic=True)
    if a != b:
        diff = difflib.unified_diff(str(want).splitlines(),
                                    str(got).splitlines(),
                                    "onnx", "text", lineterm="", n=2)
        print("%s: the models differ:" % name)
        for line in list(diff)[:40]:
            print("   " + line)
        bad += 1
    return bad


def main():
    if sys.argv[1:] == ["--probe"]:
        onnx.parser.parse_model(PROBE)
        return 0
    if len(sys.argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    folder, names = sys.argv[1], sys.argv[2:]
    bad = sum(1 for n in names if check(folder, n))
    print("text round trip: %d of %d models the same (onnx %s)"
          % (len(names) - bad, len(names), onnx.__version__))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
