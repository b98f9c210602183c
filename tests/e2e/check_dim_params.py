"""Checks the dims onnxc wrote on an ONNX model's graph inputs and outputs against case.json.

usage: check_dim_params.py MODEL.onnx CASE_DIR   check the model; exit 0, or 1 with one line per
                                                 wrong dim on stderr (2: bad usage or files)
       check_dim_params.py --args CASE_DIR       print the onnxc arguments the case asks for, one
                                                 per line (as 'compare.js --args' does)

case.json "dim_params": {"inputs": {NAME: DIMS}, "outputs": [DIMS, ...]}, DIMS a list whose items
are numbers (the dim must hold that dim_value) or strings (that exact dim_param: 's0', '2*s0',
's0 + 1', 'batch_size').  Graph inputs that are initializers are not user inputs and are left
out; the user inputs must be exactly the named ones, the outputs exactly as many, in order.
"""
import json, os, sys


def case_args(meta):
    out = []
    for name, dims in (meta.get("symbolize") or {}).items():
        for d, label in dims.items():
            out += ["--dynamic", "%s:%s=%s" % (name, d, label)]
    flags = meta.get("flags") or []
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise ValueError('case.json "flags" must be a list of strings')
    return out + flags


def dims_of(vi):
    """The dims of a ValueInfoProto: int (dim_value), str (dim_param) or None (neither);
    None for the whole list when the value has no tensor shape."""
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return None
    out = []
    for d in t.shape.dim:
        if d.HasField("dim_param"):
            out.append(d.dim_param)
        elif d.HasField("dim_value"):
            out.append(d.dim_value)
        else:
            out.append(None)
    return out


def show(dims):
    return "no shape" if dims is None else "[%s]" % ", ".join(
        "?" if d is None else repr(d) if isinstance(d, str) else str(d) for d in dims)


def compare(what, got, want, errs):
    if got is None or len(got) != len(want):
        errs.append("%s: %s, expected %s" % (what, show(got), show(want)))
        return
    for i, (g, w) in enumerate(zip(got, want)):
        # a dim_param "4" is not the dim_value 4, nor is 4 the string "4"
        if type(g) is not type(w) or g != w:
            errs.append("%s dim %d: %s, expected %s (dims %s)" % (what, i, dimtext(g), dimtext(w), show(got)))


def dimtext(d):
    if isinstance(d, str):
        return "dim_param %r" % d
    return "dim_value %d" % d if isinstance(d, int) else "neither dim_value nor dim_param"


def check(model_path, meta):
    import onnx
    want = meta["dim_params"]
    g = onnx.load(model_path, load_external_data=False).graph
    inits = {i.name for i in g.initializer}
    ins = [v for v in g.input if v.name not in inits]
    errs = []
    names = [v.name for v in ins]
    if sorted(names) != sorted(want["inputs"]):
        errs.append("graph inputs [%s], expected [%s]" % (", ".join(names), ", ".join(want["inputs"])))
    for v in ins:
        if v.name in want["inputs"]:
            compare("input %s" % v.name, dims_of(v), want["inputs"][v.name], errs)
    if len(g.output) != len(want["outputs"]):
        errs.append("%d graph outputs, expected %d" % (len(g.output), len(want["outputs"])))
    for j, (v, w) in enumerate(zip(g.output, want["outputs"])):
        compare("output %d (%s)" % (j, v.name), dims_of(v), w, errs)
    return errs


def main(argv):
    if len(argv) == 2 and argv[0] == "--args":
        with open(os.path.join(argv[1], "case.json")) as f:
            for a in case_args(json.load(f)):
                print(a)
        return 0
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    try:
        with open(os.path.join(argv[1], "case.json")) as f:
            meta = json.load(f)
        if "dim_params" not in meta:
            print("%s: case.json has no dim_params" % argv[1], file=sys.stderr)
            return 2
    except (OSError, ValueError) as e:
        print("check_dim_params: %s" % e, file=sys.stderr)
        return 2
    try:
        errs = check(argv[0], meta)
    except Exception as e:  # an unreadable model is the converter's fault
        print("%s: cannot read the model: %s" % (argv[0], e), file=sys.stderr)
        return 1
    for e in errs:
        print(e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
