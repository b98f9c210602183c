"""Execute a printed ExportedProgram (graph.txt) with torch 1.13: the reference oracle.
Adapted from shared/tools/gen/fxexec.py; signature() reads all four layouts.

The forward body of print(ep) is Python: we strip the signature annotations,
map torch.ops.aten.X.Y onto what torch 1.13 has (with shims for newer ops), and run it.
"""
import math, operator, re
import torch

A = torch.ops.aten


def _bn_no_training(x, w, b, rm, rv, momentum, eps):
    out = torch.nn.functional.batch_norm(x, rm, rv, w, b, False, momentum, eps)
    return (out, torch.empty(0), torch.empty(0))


def _bn_functional(x, w, b, rm, rv, training, momentum, eps):
    rm2, rv2 = rm.clone(), rv.clone()
    out = torch.nn.functional.batch_norm(x, rm2, rv2, w, b, training, momentum, eps)
    return (out, torch.empty(0), torch.empty(0), rm2, rv2)


def _sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    import math as _m
    sc = scale if scale is not None else 1.0 / _m.sqrt(q.shape[-1])
    a = torch.matmul(q, k.transpose(-2, -1)) * sc
    if is_causal:
        L, S = q.shape[-2], k.shape[-2]
        a = a.masked_fill(torch.ones(L, S, dtype=torch.bool).tril().logical_not(), float("-inf"))
    if attn_mask is not None:
        a = a.masked_fill(attn_mask.logical_not(), float("-inf")) if attn_mask.dtype == torch.bool else a + attn_mask
    return torch.matmul(torch.softmax(a, -1), v)


SHIMS = {
    "aten._native_batch_norm_legit_no_training.default": _bn_no_training,
    "aten._native_batch_norm_legit_functional.default": _bn_functional,
    "aten.sym_size.int": lambda x, d: x.shape[d],
    "aten.scaled_dot_product_attention.default": _sdpa,
    "aten._assert_scalar.default": lambda c, msg: None,
    "aten.sym_constrain_range_for_size.default": lambda *a, **k: None,
}


class _Overload:
    def __init__(self, name):
        self.name = name

    def __getattr__(self, ov):
        full = "aten.%s.%s" % (self.name, ov)
        if full in SHIMS:
            return SHIMS[full]
        return getattr(getattr(A, self.name), ov)


class _Aten:
    def __getattr__(self, name):
        return _Overload(name)


class _Ops:
    aten = _Aten()


class _Torch:
    """Stands in for `torch` inside the executed body."""
    ops = _Ops()

    def __getattr__(self, k):
        return getattr(torch, k)


SIG = re.compile(r"def forward\(self,?(.*)\):\s*$")
DT = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16, "i64": torch.int64,
      "i32": torch.int32, "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8, "b8": torch.bool}


def parse(text):
    """Returns (params [(name, annotation)], body lines, signature dict name->(kind, target))."""
    lines = text.splitlines()
    i = next(k for k, l in enumerate(lines) if "def forward(self" in l)
    sig = lines[i]
    m = re.search(r"def forward\(self,?\s*(.*)\):", sig)
    params = []
    for part in re.findall(r'(\w+)\s*:\s*"([^"]*)"|(\w+)\s*:\s*([A-Za-z0-9]+\[[^\]]*\])|(\w+)\s*(?=,|$)', m.group(1)):
        if part[0]:
            params.append((part[0], part[1]))
        elif part[2]:
            params.append((part[2], part[3]))
        elif part[4]:
            params.append((part[4], ""))
    body = []
    for l in lines[i + 1:]:
        s = l.strip()
        if s.startswith("class ") or s.startswith("Graph signature") or s.startswith("def "):
            break
        if not s or s.startswith("#"):
            continue
        body.append(s)
        if s.startswith("return"):
            break
    kinds = {}
    for l in lines:
        mm = re.match(r"\s+(\w+): (PARAMETER|BUFFER|CONSTANT_TENSOR|USER_INPUT)(?: target='([^']*)')?", l)
        if mm:
            kinds[mm.group(1)] = (mm.group(2), mm.group(3))
    return params, body, kinds


def shape_of(annot, sizes):
    m = re.match(r"(\w+)\[(.*)\]", annot)
    dt, dims = DT[m.group(1)], m.group(2).strip()
    shp = []
    if dims:
        for d in dims.split(","):
            d = d.strip()
            shp.append(int(eval(d, {}, dict(sizes))))
    return dt, shp


def run(text, feeds):
    """feeds: name -> tensor for every placeholder. Returns a tuple of outputs."""
    params, body, _ = parse(text)
    src = "def _fwd(%s):\n" % ", ".join(n for n, _ in params)
    for s in body:
        # drop '  x = y = None' frees and annotations
        s = re.sub(r";\s+[\w ]+ = None\s*$", "", s)
        s = re.sub(r'^(\w+)\s*:\s*"[^"]*"\s*=', r"\1 =", s)
        s = re.sub(r"^(\w+)\s*:\s*[A-Za-z0-9]+\[[^\]]*\]\s*=", r"\1 =", s)
        s = s.rstrip(";")
        src += "    " + s + "\n"
    env = {"torch": _Torch(), "device": torch.device, "inf": math.inf, "nan": math.nan, "operator": operator}
    exec(src, env)
    with torch.no_grad():
        out = env["_fwd"](*[feeds[n] for n, _ in params])
    return out if isinstance(out, tuple) else (out,)


def signature(text, params):
    """name -> (kind, target) for every placeholder, from any signature layout
    (2.8+ listing, 2.3-2.7 InputSpec, 2.1-2.2 inputs_to_*) or, for
    print_readable() text without one, from the p_/b_/c_ name prefixes."""
    kinds = {}
    for m in re.finditer(r"^\s+(\w+): (PARAMETER|BUFFER|CONSTANT_TENSOR|USER_INPUT)(?: target='([^']*)')?", text, re.M):
        kinds[m.group(1)] = (m.group(2), m.group(3))
    for m in re.finditer(r"InputSpec\(kind=<InputKind\.(\w+): \d+>, arg=\w+\(name='(\w+)'\), target=(?:'([^']*)'|None)", text):
        kinds[m.group(2)] = (m.group(1), m.group(3))
    for tbl, kind in (("inputs_to_parameters", "PARAMETER"), ("inputs_to_buffers", "BUFFER")):
        m = re.search(tbl + r"=\{([^}]*)\}", text, re.S)
        if m:
            for a, b in re.findall(r"'(\w+)': '([^']+)'", m.group(1)):
                kinds[a] = (kind, b)
    for n, _ in params:
        if n not in kinds:
            if re.match(r"(p|b|c)_", n):
                kinds[n] = ({"p": "PARAMETER", "b": "BUFFER", "c": "CONSTANT_TENSOR"}[n[0]], n[2:])
            else:
                kinds[n] = ("USER_INPUT", None)
    return kinds
