# Makes tests/hostile/*/: archives an attacker would hand onnxc, one or more
# per class of defect the archive reader must hold against (overflowing
# text, blow-ups of memory, ambiguous layouts, names that are not names,
# counts that lie, nesting, pointer arithmetic), each with the error onnxc
# must give.  Plain python3 (zipfile, zlib, json), no torch: the archives
# are edits of tests/pt2's real ones.  Big inputs are deflated, so the
# files stay small.
#   cd tests/hostile && python3 make_hostile.py
import copy, io, json, os, shutil, struct, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PT2 = os.path.join(HERE, "..", "pt2")
PROG = "model/models/model.json"
WCFG = "model/data/weights/model_weights_config.json"


def entries(path):
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i.filename)) for i in z.infolist()
                if "sample_inputs" not in i.filename]


MLP = entries(os.path.join(PT2, "mlp/model.pt2"))
DYN = entries(os.path.join(PT2, "dynamic/model.pt2"))
V26 = entries(os.path.join(PT2, "v26_cond/model.pt2"))


def zipped(items, deflate=()):
    """a zip of (name, bytes); names in deflate are deflated"""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, b in items:
            zi = zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0))
            zi.compress_type = (zipfile.ZIP_DEFLATED if n in deflate
                                else zipfile.ZIP_STORED)
            z.writestr(zi, b)
    return buf.getvalue()


def case(name, items, expect, deflate=(), raw=None):
    """expect: regexes that must all match stderr (exit 1, no output)"""
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    data = raw if raw is not None else zipped(items, deflate)
    open(os.path.join(d, "model.pt2"), "wb").write(data)
    with open(os.path.join(d, "expect.txt"), "w") as f:
        f.write("1\n" + "".join(e + "\n" for e in expect) +
                "!internal\n")
    with open(os.path.join(d, "args"), "w") as f:
        f.write("@DIR@/model.pt2\n-o\n@OUT@\n")


def edit(items, name, fn):
    return [(n, fn(b) if n == name else b) for n, b in items]


def prog(fn, items=MLP, name=PROG):
    def f(b):
        d = json.loads(b)
        fn(d)
        return json.dumps(d).encode()
    return edit(items, name, f)


def graph(d):
    return d["graph_module"]["graph"]


for n in os.listdir(HERE):
    if os.path.isdir(os.path.join(HERE, n)):
        shutil.rmtree(os.path.join(HERE, n))

# --- 1. text that does not fit a buffer: a value of 2,000 dims (the type
# text is longer than any buffer; it was written past one)
def many_dims(d, k=2000, expr=False):
    tv = next(iter(graph(d)["tensor_values"].values()))
    big = "Add(Symbol('s77', integer=True, positive=True), Integer(123456))"
    tv["sizes"] = [{"as_expr": {"expr_str": big, "hint": 1}} if expr else
                   {"as_int": 1234567890123} for _ in range(k)]


case("many_dims", prog(many_dims), ["error: .*tensor type too long"])
case("many_symbolic_dims", prog(lambda d: many_dims(d, 300, True), DYN),
     ["error: .*tensor type too long"])
# a tuple output named twice with long names: the name buffers are fixed
case("long_names", prog(lambda d: graph(d)["nodes"][0]["outputs"][0]
                        ["as_tensor"].update(name="n" * 100000)),
     ["error: .*undefined value 'linear'"])

# --- 3. memory: budgets that follow from the input
zeros = b"[" + b"0," * (24 << 20) + b"0]"  # 48 MiB of JSON, 50 MB deflated
case("json_bomb", [(n, zeros if n == PROG else b) for n, b in MLP],
     ["error: .*entry 'model/models/model.json' inflates to .* an inflate bomb"],
     deflate={PROG})
case("config_bomb", [(n, zeros if n == WCFG else b) for n, b in MLP],
     ["error: .*model_weights_config.json' inflates to .*inflate bomb"],
     deflate={WCFG})
big = b"\0" * (256 << 20)
wnames = ["model/data/weights/weight_%d" % i for i in range(4)]
case("weights_bomb", [(n, big if n in wnames else b) for n, b in MLP],
     ["error: .*weight_.' inflates to .*inflate bomb"], deflate=set(wnames))


def saved(pkl, deflate=False, storages=()):
    """a torch.save zip around a pickle (and storage entries)"""
    items = [("archive/data.pkl", pkl)] + list(storages)
    return zipped(items, {"archive/data.pkl"} if deflate else ())


# an unpickler that keeps an object per opcode: 32 MiB of None, POP
nones = b"\x80\x02" + b"N0" * (16 << 20) + b"}."
case("pickle_bomb", edit(V26, "serialized_state_dict.pt",
                         lambda b: saved(nones, deflate=True)),
     ["error: .*data.pkl' inflates to .*inflate bomb"])
# under the inflate budget, a pickle of ~6 MiB whose opcodes each make an
# object that POP drops: what the unpickler keeps stays bounded by its size
pops = b"\x80\x02" + b"N0" * (1 << 20) + b"K\x010" * (1 << 20) + b"}."
case("pickle_objects", edit(V26, "serialized_state_dict.pt",
                            lambda b: saved(pops, deflate=True)),
     ["error: .*the archive has no tensor"])
# 2M list appends: ints the list keeps, past the unpickler's budget (16
# bytes of values per byte of pickle)
appends = b"\x80\x02]" + b"K\x01a" * (2 << 20) + b"."
case("pickle_list", edit(V26, "serialized_state_dict.pt",
                         lambda b: saved(appends, deflate=True)),
     ["error: .*data.pkl, byte .*more objects than one of its size can "
      "hold"])


# a stride-0 view: 4 bytes of storage seen as 2^28 floats
def stride0(shape_too):
    def f(d):
        m = d["config"]["scale"]["tensor_meta"]
        m["sizes"] = [{"as_int": 1 << 28}]
        m["strides"] = [{"as_int": 0}]
    items = prog(f, name=WCFG)
    if shape_too:
        def g(d):
            tv = graph(d)["tensor_values"]["b_scale"]
            tv["sizes"] = [{"as_int": 1 << 28}]
            tv["strides"] = [{"as_int": 1}]
        items = prog(g, items)
    return items


case("stride0_view", stride0(False),
     ["error: .*tensor 'scale' has shape \\[268435456\\] but buffer"])
case("stride0_view_annotated", stride0(True),
     ["error: .*tensor 'scale': a strided view that makes more bytes than "
      "the archive holds"])

# --- 4. layouts and names that must be refused
case("two_roots", MLP + [("other/archive_format", b"pt2")],
     ["error: .*more than one archive root"])
case("outside_root", MLP + [("other/notes.txt", b"hi")],
     ["error: .*entry 'other/notes.txt' lies outside the archive's root"])
case("dotdot_root", [("../" + n, b) for n, b in MLP],
     ["error: .*entry '\\.\\./.*': an absolute name or one with '\\.\\.'"])
case("absolute_root", [("/" + n, b) for n, b in MLP],
     ["error: .*entry '/model/.*absolute name"])
case("dotdot_inside", MLP + [("model/data/../../evil", b"x")],
     ["error: .*entry 'model/data/\\.\\./\\.\\./evil'"])
case("two_layouts", MLP + [("model/serialized_exported_program.json",
                            dict(V26)["serialized_exported_program.json"])],
     ["error: .*both a torch >= 2.7 and a torch <= 2.6 layout"])
case("two_old_layouts", V26 + [("x/serialized_exported_program.json",
                                dict(V26)["serialized_exported_program.json"])],
     ["error: .*more than one archive root"])


def rename_value(old, new):
    def f(d):
        s = json.dumps(d).replace('"%s"' % old, json.dumps(new))
        d.clear()
        d.update(json.loads(s))
    return f


# a member named twice: Python's json keeps the last, a reader that
# kept the first would convert another program than PyTorch loads
case("duplicate_key", edit(MLP, PROG, lambda b: b.replace(
    b'{"target": "torch.ops.aten.linear.default",',
    b'{"target": "torch.ops.aten.linear.default", '
    b'"target": "torch.ops.aten.relu.default",', 1)),
     ["error: .*a member name given twice in one object"])
case("nul_in_name", prog(rename_value("linear", "linear\0x")),
     ["error: .*NUL character"])
case("nul_in_path_name", prog(lambda d: d["config"]["fc1.weight"].update(
    path_name="weight_0\0/../x"), name=WCFG), ["error: .*NUL character"])
bad_utf8 = edit(MLP, PROG, lambda b: b.replace(b'"linear"', b'"lin\xffear"'))
case("invalid_utf8", bad_utf8, ["error: .*invalid UTF-8"])
overlong = edit(MLP, PROG, lambda b: b.replace(b'"linear"', b'"lin\xc0\xafear"'))
case("overlong_utf8", overlong, ["error: .*invalid UTF-8"])
surrogate = edit(MLP, PROG, lambda b: b.replace(b'"linear"', b'"lin\xed\xa0\x80ear"'))
case("surrogate_utf8", surrogate, ["error: .*invalid UTF-8"])


def drop_param(d):
    specs = d["graph_module"]["signature"]["input_specs"]
    specs[:] = [s for s in specs if "parameter" not in s or
                s["parameter"]["parameter_name"] != "fc2.bias"]


case("signature_omits_param", prog(drop_param),
     ["error: .*lists 5 inputs but the graph has 6 placeholders"])


def dup_spec(d):
    specs = d["graph_module"]["signature"]["input_specs"]
    specs[3] = copy.deepcopy(specs[2])


case("signature_names_twice", prog(dup_spec),
     ["error: .*names placeholder 'p_fc2_weight' twice"])
case("signature_extra_output", prog(lambda d: d["graph_module"]["signature"][
    "output_specs"].append(copy.deepcopy(d["graph_module"]["signature"][
        "output_specs"][0]))),
     ["error: .*lists 2 outputs but forward\\(\\) returns 1"])
case("inverted_range", prog(lambda d: d["range_constraints"]["s77"].update(
    min_val=64, max_val=2), DYN),
     ["error: .*impossible range constraint on 's77': the lower bound is above"])
case("nan_range", edit(DYN, PROG, lambda b: b.replace(b'"min_val": 2',
                                                      b'"min_val": NaN')),
     ["error: .*range bound must be an integer or null"])
case("nan_size", edit(MLP, WCFG, lambda b: b.replace(
    b'{"as_int": 16}', b'{"as_int": NaN}', 1)),
     ["error: .*weights need numeric sizes"])
case("nan_graph_size", edit(MLP, PROG, lambda b: b.replace(
    b'{"as_int": 16}', b'{"as_int": NaN}', 1)),
     ["error: .*bad size: expected as_int"])
case("negative_schema", prog(lambda d: d["schema_version"].update(major=-1)),
     ["error: .*schema version numbers must be integers of 0 or more"])
case("negative_minor", prog(lambda d: d["schema_version"].update(minor=-3)),
     ["error: .*schema version numbers must be integers of 0 or more"])

# --- 5. input errors that were reported as internal ones
def kwarg(name, twice=False):
    def f(d):
        ins = graph(d)["nodes"][0]["inputs"]
        ins[2] = {"name": name, "arg": ins[2]["arg"], "kind": 2}
        if twice:
            ins.append(copy.deepcopy(ins[2]))
    return f


case("empty_kwarg_name", prog(kwarg("")),
     ["error: .*keyword argument needs a non-empty name"])
case("kwarg_twice", prog(kwarg("bias", True)),
     ["error: .*keyword argument 'bias' given twice"])


def nested(depth):
    def f(d):
        g = {"inputs": [], "outputs": [], "nodes": [], "tensor_values": {}}
        for i in range(depth):
            g = {"inputs": [], "outputs": [], "tensor_values": {}, "nodes": [{
                "target": "torch.ops.higher_order.cond", "name": "cond%d" % i,
                "inputs": [{"name": "true_fn", "kind": 1, "arg": {
                    "as_graph": {"name": "true_graph_%d" % i, "graph": g}}}],
                "outputs": [], "metadata": {}}]}
        graph(d)["nodes"].insert(0, g["nodes"][0])
    return f


case("deep_subgraphs", prog(nested(70)),
     ["error: .*subgraphs nested more than 64 deep"])

# --- 6. pointer arithmetic: an empty view far past its storage
def empty_far(d):
    m = d["config"]["scale"]["tensor_meta"]
    m["sizes"] = [{"as_int": 0}]
    m["storage_offset"] = {"as_int": 1 << 61}


case("empty_view_offset", prog(empty_far, name=WCFG),
     ["error: .*tensor 'scale': .*reach past the end of its storage"])
