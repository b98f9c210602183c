# Makes tests/pt2/bad/*: malformed archives from the good ones of
# tests/pt2 (plain python3, no torch), each with the error onnxc must give.
#   cd tests/pt2 && python3 make_bad.py
import json, os, shutil, struct, zipfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(HERE, "bad")


def entries(path):
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i.filename)) for i in z.infolist()
                if "sample_inputs" not in i.filename]


def write(name, items, expect, method=zipfile.ZIP_STORED, patch=None,
          args=None):
    d = os.path.join(BAD, name)
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "model.pt2")
    with zipfile.ZipFile(p, "w", method) as z:
        for n, b in items:
            zi = zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0))
            zi.compress_type = method
            z.writestr(zi, b)
    if patch:
        data = bytearray(open(p, "rb").read())
        patch(data)
        open(p, "wb").write(bytes(data))
    with open(os.path.join(d, "expect.txt"), "w") as f:
        f.write("1\nerror: .*" + expect + "\n")
    with open(os.path.join(d, "args"), "w") as f:
        f.write("\n".join(args or ["@DIR@/model.pt2", "-o", "@OUT@"]) + "\n")


def edit(items, name, fn):
    out = []
    for n, b in items:
        if n == name:
            b = fn(b)
        if b is not None:
            out.append((n, b))
    return out


def js(fn):
    def f(b):
        d = json.loads(b)
        fn(d)
        return json.dumps(d).encode()
    return f


def eocd(data):
    return data.rfind(b"PK\x05\x06")


mlp = entries(os.path.join(HERE, "mlp/model.pt2"))
dyn = entries(os.path.join(HERE, "dynamic/model.pt2"))
PROG, WCFG = "model/models/model.json", "model/data/weights/model_weights_config.json"
if os.path.isdir(BAD):
    shutil.rmtree(BAD)

raw = open(os.path.join(HERE, "mlp/model.pt2"), "rb").read()
os.makedirs(os.path.join(BAD, "truncated"))
open(os.path.join(BAD, "truncated/model.pt2"), "wb").write(raw[:len(raw) // 2])
open(os.path.join(BAD, "truncated/expect.txt"), "w").write(
    "1\nerror: .*(truncated|no zip end record)\n")
open(os.path.join(BAD, "truncated/args"), "w").write(
    "@DIR@/model.pt2\n-o\n@OUT@\n")


def more_entries(d):
    e = eocd(d)
    n = struct.unpack_from("<H", d, e + 10)[0] + 1
    struct.pack_into("<HH", d, e + 8, n, n)


write("lying_count", mlp, "entry count|fewer entries", patch=more_entries)


def bad_cd_offset(d):
    e = eocd(d)
    struct.pack_into("<I", d, e + 16, struct.unpack_from("<I", d, e + 16)[0] + 7)


write("lying_directory", mlp, "central directory", patch=bad_cd_offset)


def cd(d):
    return struct.unpack_from("<I", d, eocd(d) + 16)[0]


def bzip2(d):
    # method 12 in the first local header and its directory entry
    struct.pack_into("<H", d, 8, 12)
    c = cd(d)
    struct.pack_into("<H", d, c + 10, 12)


write("unknown_method", mlp, "unknown compression method", patch=bzip2)


def bomb(d):
    # the directory says the deflated program is 100 bytes; it is far more
    c = cd(d)
    struct.pack_into("<I", d, c + 24, 100)
    struct.pack_into("<I", d, 22, 100)


write("inflate_bomb", [(PROG, b"{" + b" " * 1000000 + b"}")] +
      [(n, b) for n, b in mlp if n != PROG],
      "inflates to a size other than", method=zipfile.ZIP_DEFLATED,
      patch=bomb)
write("duplicate_entry", mlp + [mlp[0]], "duplicate entry")
write("missing_weight", [(n, b) for n, b in mlp
                         if not n.endswith("weights/weight_0")],
      "has no 'model/data/weights/weight_0'")
write("not_json", edit(mlp, PROG, lambda b: b[:50]), "not JSON")
write("newer_schema", edit(mlp, PROG, js(
    lambda d: d["schema_version"].update(major=99))), "newer than onnxc reads")
write("no_graph", edit(mlp, PROG, js(lambda d: d.pop("graph_module"))),
      "expected graph_module")


def tensor_dtype(d):
    g = d["graph_module"]["graph"]
    next(iter(g["tensor_values"].values()))["dtype"] = 99


write("bad_dtype", edit(mlp, PROG, js(tensor_dtype)), "unknown dtype code 99")


def undefined(d):
    n = d["graph_module"]["graph"]["nodes"][0]
    n["inputs"][0]["arg"] = {"as_tensor": {"name": "nowhere"}}


write("undefined_value", edit(mlp, PROG, js(undefined)),
      "use of undefined value 'nowhere'")


def divzero(d):
    for t in d["graph_module"]["graph"]["tensor_values"].values():
        for s in t["sizes"]:
            if "as_expr" in s:
                s["as_expr"]["expr_str"] = \
                    "FloorDiv(Symbol('s0', integer=True), Integer(0))"


write("div_by_zero", edit(dyn, PROG, js(divzero)),
      "division by zero")


def weight(fn):
    def f(d):
        fn(d["config"]["fc1.weight"]["tensor_meta"])
    return js(f)


write("weight_dtype", edit(mlp, WCFG, weight(lambda m: m.update(dtype=77))),
      "unknown dtype code 77")
write("negative_size", edit(mlp, WCFG, weight(
    lambda m: m["sizes"][0].update(as_int=-16))), "negative size")
write("overflowing_size", edit(mlp, WCFG, weight(lambda m: (
    m["sizes"][0].update(as_int=1 << 62), m["sizes"][1].update(as_int=1 << 62)))),
    "overflows")
write("offset_past_data", edit(mlp, WCFG, weight(
    lambda m: m["storage_offset"].update(as_int=1000))), "reach past the end")
write("stride_past_data", edit(mlp, WCFG, weight(
    lambda m: m["strides"][0].update(as_int=1000))), "reach past the end")


def saved(pkl):
    """a torch.save zip around a pickle"""
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl)
    return buf.getvalue()


def use_pickle(d):
    d["config"]["fc1.weight"]["use_pickle"] = True


evil = saved(b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.")
write("forbidden_global", edit(edit(mlp, WCFG, js(use_pickle)),
                               "model/data/weights/weight_0", lambda b: evil),
      "forbidden pickle global 'os.system'")
write("bad_opcode", edit(edit(mlp, WCFG, js(use_pickle)),
                         "model/data/weights/weight_0",
                         lambda b: saved(b"\x80\x02\xff.")),
      "unsupported pickle opcode 0xff")
# an op onnxc has no rule for: the error names the FX node, its module and
# the user's line, and says what to do
write("unsupported_op", edit(mlp, PROG, lambda b: b.replace(
    b"torch.ops.aten.linear.default", b"torch.ops.aten.frobnicate.default", 1)),
      "unsupported operator 'aten::frobnicate.default'\n"
      "note: in FX node 'linear' of module 'fc1' "
      "\\(torch.nn.modules.linear.Linear\\)\n"
      "note: from your code: File: .*gen.py:36 in forward, code: return "
      "self.fc2\n"
      "note: onnxc has no lowering for it: 'onnxc --list-lowerings'")
write("many_programs", [(n, b) for n, b in entries(
    os.path.join(HERE, "multi.pt2"))], "choose one with --program")
write("not_an_export", [("hello.txt", b"hi")], "not one of torch.export.save")


# --weights over an archive: mlp's tensors with "scale" doubled
st = open(os.path.join(HERE, "mlp/weights.safetensors"), "rb").read()
hl = struct.unpack_from("<Q", st)[0]
hdr = json.loads(st[8:8 + hl])
b, e = hdr["scale"]["data_offsets"]
vals = struct.unpack_from("<%df" % ((e - b) // 4), st, 8 + hl + b)
st = bytearray(st)
struct.pack_into("<%df" % len(vals), st, 8 + hl + b, *[2 * v for v in vals])
open(os.path.join(HERE, "mlp/override.safetensors"), "wb").write(bytes(st))
