#!/usr/bin/python3
"""Generate onnxc's own end-to-end cases (tests/cases/<name>/) with Debian's torch 1.13.

Each case is a tiny model or op family, traced with make_fx (functionalized, static shapes),
printed by fxprint.render() in one of the dump layouts onnxc reads, with
  graph.txt            the dump
  weights.safetensors  parameters, buffers, lifted constants keyed by their target (for the
                       print_readable layout, which has no signature: by the name without p_/b_/c_)
  io.safetensors       '<k>/in/<input name>' and '<k>/out/<index>': outputs computed by PyTorch eager
  case.json            the shared corpus format (see ../shared/corpus/README.md)
Every case is re-executed from its printed text (fxexec) and must reproduce the eager outputs,
so the dump provably describes the model.  Deterministic: seeded per case.

usage: /usr/bin/python3 tests/gen/make_cases.py [OUTDIR] [NAME_REGEX...]
       (OUTDIR defaults to tests/cases next to this folder; existing cases of the same name are
        replaced, others are left alone)
"""
import builtins, json, keyword, math, operator, os, re, shutil, sys, warnings
warnings.filterwarnings("ignore")
import torch, torch.nn as nn, torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx
from functorch import functionalize
from torch.nn.utils.stateless import functional_call
sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fxprint, fxexec, st

R = lambda *s: torch.randn(*s)


def sanitize(t):
    return re.sub(r"[^0-9a-zA-Z_]", "_", t)


def trace(model, sample):
    """make_fx over (params..., buffers..., user inputs...) -> (gm, names, kinds, targets, weights)."""
    params = [(n, p.detach()) for n, p in model.named_parameters()]
    bufs = [(n, b) for n, b in model.named_buffers()]
    state_names = [n for n, _ in params] + [n for n, _ in bufs]
    state = [t for _, t in params] + [t for _, t in bufs]
    in_names = list(sample)

    def f(*args):
        sd = dict(zip(state_names, args[:len(state)]))
        out = functional_call(model, sd, tuple(args[len(state):]))
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    gm, err = None, None
    args = (*state, *sample.values())
    for fn in (functionalize(f), f):
        try:
            with torch.no_grad():
                gm = make_fx(fn, tracing_mode="fake")(*args)
            break
        except Exception as e:
            err = e
    if gm is None:
        # fake tensors fail on some 1.13 kernels (batch_norm): trace real tensors, then record
        # each node's value as torch.export's meta['val'] would hold it
        class Rec(torch.fx.Interpreter):
            def run_node(self, n):
                r = super().run_node(n)
                n.meta["val"] = r
                return r
        with torch.no_grad():
            gm = make_fx(functionalize(f), tracing_mode="real")(*args)
            Rec(gm).run(*args)
    ph = [n for n in gm.graph.nodes if n.op == "placeholder"]
    names, kinds, targets = {}, {}, {}
    for i, p in enumerate(ph):
        if i < len(params):
            names[p], kinds[p], targets[p] = "p_" + sanitize(params[i][0]), "PARAMETER", params[i][0]
        elif i < len(state):
            t = bufs[i - len(params)][0]
            names[p], kinds[p], targets[p] = "b_" + sanitize(t), "BUFFER", t
        else:
            names[p], kinds[p] = in_names[i - len(state)], "USER_INPUT"
    fxprint.cleanup(gm, None)
    # get_attr constants (tensor literals in forward) -> lifted constant placeholders
    g = gm.graph
    weights = dict(params)
    weights.update(bufs)
    ci = 0
    for n in list(g.nodes):
        if n.op == "get_attr":
            val = getattr(gm, n.target)
            with g.inserting_before(next(x for x in g.nodes if x.op != "placeholder")):
                newp = g.placeholder("c_lifted_tensor_%d" % ci)
            newp.meta["val"] = val
            n.replace_all_uses_with(newp)
            g.erase_node(n)
            names[newp], kinds[newp], targets[newp] = "c_lifted_tensor_%d" % ci, "CONSTANT_TENSOR", "lifted_tensor_%d" % ci
            weights["lifted_tensor_%d" % ci] = val
            ci += 1
    # name nodes as torch.export does: after the op (convolution, view, getitem), duplicates _1, _2...,
    # names that shadow a Python builtin start at _1 (sum_1, abs_1); 1.13 would say t, _reshape_alias
    used, seen = set(names.values()), {}
    for n in g.nodes:
        if n in names or n.op == "output":
            names.setdefault(n, "output")
            continue
        base = "getitem" if n.target is operator.getitem else str(n.target).split(".")[1]
        k = seen.get(base, 1 if hasattr(builtins, base) or keyword.iskeyword(base) else 0)
        while True:
            cand = base if k == 0 else "%s_%d" % (base, k)
            k += 1
            if cand not in used:
                break
        seen[base] = k
        used.add(cand)
        names[n] = cand
    # torch.export orders placeholders: params, buffers, constants, user inputs
    order = {"PARAMETER": 0, "BUFFER": 1, "CONSTANT_TENSOR": 2, "USER_INPUT": 3}
    phs = sorted([n for n in g.nodes if n.op == "placeholder"], key=lambda p: order[kinds[p]])
    anchor = next(n for n in g.nodes if n.op != "placeholder")
    for p in phs:
        anchor.prepend(p)
    g.lint()
    gm.recompile()
    return gm, names, kinds, targets, weights


def reexec(text, weights, samples):
    """Run the printed dump on every sample; yields its outputs per sample."""
    params, _, _ = fxexec.parse(text)
    kinds = fxexec.signature(text, params)
    for s in samples:
        feeds = {}
        for n, _ in params:
            kind, target = kinds[n]
            feeds[n] = s[n] if kind == "USER_INPUT" else weights[target]
        yield fxexec.run(text, {k: v.clone() for k, v in feeds.items()})


def max_err(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return math.inf
    if a.dtype == torch.bool or not a.is_floating_point():
        return float((a != b).sum())
    return float((a.double() - b.double()).abs().max()) if a.numel() else 0.0


def make_case(outdir, name, model, samples, note, layout="ep28", rtol=1e-4, atol=1e-5, seed=0):
    torch.manual_seed(seed)
    model = model.eval()
    gm, names, kinds, targets, weights = trace(model, samples[0])
    text = fxprint.render(gm, names, kinds, targets, fxprint.SymMap({}), layout)
    if layout == "readable":  # no signature: onnxc finds weights by the placeholder name minus its prefix
        by_name = {}
        for p, k in kinds.items():
            if k != "USER_INPUT":
                by_name[names[p][2:]] = weights[targets[p]]
        weights = by_name
    # user inputs as the dump names them (ep21 renames every placeholder to arg<i>_1)
    params, _, _ = fxexec.parse(text)
    sig = fxexec.signature(text, params)
    ins = [n for n, _ in params if sig[n][0] == "USER_INPUT"]
    if len(ins) != len(samples[0]):
        raise SystemExit("%s: dump has user inputs %s, model %s" % (name, ins, list(samples[0])))
    dumped = [dict(zip(ins, s.values())) for s in samples]
    io, refs = {}, []
    with torch.no_grad():
        for k, s in enumerate(samples):
            out = model(*s.values())
            out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            refs.append(out)
            for nm, t in dumped[k].items():
                io["%d/in/%s" % (k, nm)] = t
            for j, t in enumerate(out):
                io["%d/out/%d" % (k, j)] = t
    # the printed graph must compute what the model computes (ints and bools exactly)
    for k, got in enumerate(reexec(text, weights, dumped)):
        if len(got) != len(refs[k]):
            raise SystemExit("%s: dump returns %d outputs, model %d" % (name, len(got), len(refs[k])))
        for j, (a, b) in enumerate(zip(got, refs[k])):
            e = max_err(a, b)
            tol = 0 if (b.dtype == torch.bool or not b.is_floating_point()) else atol
            if e > tol:
                raise SystemExit("%s: printed dump disagrees with the model at sample %d output %d (err %s)"
                                 % (name, k, j, e))
    d = os.path.join(outdir, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "graph.txt"), "w") as fh:
        fh.write(text)
    if weights:
        st.save(os.path.join(d, "weights.safetensors"), weights)
    st.save(os.path.join(d, "io.safetensors"), io)
    fmt = {"ep28": "print(ExportedProgram), torch 2.8+ layout",
           "ep24": "print(ExportedProgram), torch 2.3-2.7 layout (InputSpec signature)",
           "ep21": "print(ExportedProgram), torch 2.1-2.2 layout (arg<i>_1 names, unquoted annotations)",
           "readable": "gm.print_readable(), no signature (weights keyed by name without p_/b_/c_)"}[layout]
    meta = {"name": name, "source": "generated by tests/gen/make_cases.py: " + note, "format": fmt,
            "rtol": rtol, "atol": atol, "samples": len(samples), "symbols": [], "sizes": [{} for _ in samples],
            "inputs": ins, "outputs": len(refs[0]), "expect": "pass"}
    with open(os.path.join(d, "case.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
        fh.write("\n")
    nops = sum(1 for n in gm.graph.nodes if n.op == "call_function")
    print("  %-28s %3d nodes  %s" % (name, nops, layout))


# ---------------------------------------------------------------------------------------------
# the models

class Fn(nn.Module):
    """A function with named parameters/buffers: fn(self, *inputs)."""
    def __init__(s, fn, **state):
        super().__init__()
        s.fn = fn
        for k, v in state.items():
            if v.is_floating_point():
                setattr(s, k, nn.Parameter(v))
            else:
                s.register_buffer(k, v)

    def forward(s, *a):
        return s.fn(s, *a)


class MLP(nn.Module):
    def __init__(s):
        super().__init__()
        s.fc1, s.fc2, s.fc3 = nn.Linear(16, 32), nn.Linear(32, 32), nn.Linear(32, 8)

    def forward(s, x):
        return s.fc3(F.gelu(s.fc2(torch.relu(s.fc1(x)))))


def bn(c):
    """BatchNorm with non-trivial running statistics (eval mode uses them)."""
    b = nn.BatchNorm2d(c)
    with torch.no_grad():
        b.running_mean.copy_(torch.randn(c) * 0.1)
        b.running_var.copy_(torch.rand(c) + 0.5)
        b.weight.copy_(torch.rand(c) + 0.5)
        b.bias.copy_(torch.randn(c) * 0.1)
    return b


class ConvBnPool(nn.Module):
    def __init__(s):
        super().__init__()
        s.conv, s.bn = nn.Conv2d(3, 8, 3, padding=1), bn(8)

    def forward(s, x):
        return F.max_pool2d(torch.relu(s.bn(s.conv(x))), 2)


class GroupedConv(nn.Module):
    def __init__(s):
        super().__init__()
        s.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        s.gc = nn.Conv2d(8, 12, 3, stride=2, padding=1, groups=4, bias=False)
        s.pw = nn.Conv2d(12, 6, 1)

    def forward(s, x):
        return s.pw(F.relu6(s.gc(s.dw(x))))


class Pools(nn.Module):
    def forward(s, x):
        return (F.avg_pool2d(x, 2), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                F.adaptive_avg_pool2d(x, 1), F.adaptive_avg_pool2d(x, (2, 2)), F.max_pool2d(x, 3, 2, 1))


class AttnBlock(nn.Module):
    """Pre-LN self-attention with scaled dot product attention written out (the math path)."""
    def __init__(s, d=16, h=2):
        super().__init__()
        s.h, s.hd = h, d // h
        s.ln = nn.LayerNorm(d)
        s.qkv = nn.Linear(d, 3 * d)
        s.o = nn.Linear(d, d)
        s.register_buffer("mask", torch.tril(torch.ones(6, 6)).view(1, 1, 6, 6).bool())

    def forward(s, x):
        B, T, C = x.shape
        q, k, v = s.qkv(s.ln(x)).split(C, dim=2)
        q = q.view(B, T, s.h, s.hd).transpose(1, 2)
        k = k.view(B, T, s.h, s.hd).transpose(1, 2)
        v = v.view(B, T, s.h, s.hd).transpose(1, 2)
        a = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(s.hd))
        a = a.masked_fill(~s.mask[:, :, :T, :T], float("-inf"))
        y = torch.softmax(a, dim=-1) @ v
        return x + s.o(y.transpose(1, 2).reshape(B, T, C))


class EmbedCumsum(nn.Module):
    def __init__(s):
        super().__init__()
        s.emb = nn.Embedding(10, 8)

    def forward(s, idx):
        e = s.emb(idx)
        return torch.cumsum(e, dim=1), torch.cumsum(idx, -1)


class Residual(nn.Module):
    def __init__(s, c=8):
        super().__init__()
        s.c1, s.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn(c)
        s.c2, s.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn(c)

    def forward(s, x):
        return torch.relu(x + s.b2(s.c2(torch.relu(s.b1(s.c1(x))))))


class SmallNet(nn.Module):
    """The model printed in every layout: conv, batch norm (buffers), linear."""
    def __init__(s):
        super().__init__()
        s.conv, s.bn = nn.Conv2d(3, 4, 3, padding=1), bn(4)
        s.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(s, x):
        y = torch.relu(s.bn(s.conv(x)))
        return s.fc(y.flatten(1))


def elementwise(s, x, i):
    # float tensor with int/float scalars, int tensor with int/float scalars (promotion), mixed tensors
    return (x + 1, x * 2.5 - 3, 1 - x, x / 4, i + 1, i * 3, i + 1.5, i / 2, x + i, i * x,
            x.pow(2), torch.exp(x * 0.5), torch.sqrt(x.abs()), torch.tanh(x), torch.sigmoid(x),
            torch.neg(i), i // 3, torch.remainder(i, 4))


def compare_where(s, x, y):
    return (x > y, x < 0.5, x == y, x != 0, x >= y, x <= -0.25,
            torch.where(x > y, x, y), torch.where(x > 0, x, 0.0), x.masked_fill(x < 0, -1.0),
            torch.logical_and(x > 0, y > 0), torch.logical_or(x > 0, y < 0), torch.logical_not(x > 0),
            torch.maximum(x, y), torch.clamp(x, -0.5, 0.5))


def reductions(s, x):
    return (x.sum(), x.sum(-1), x.sum((0, 2), keepdim=True), x.mean(-2), x.mean((-1, -3), keepdim=True),
            x.amax(-1), x.amin(1, keepdim=True), x.argmax(-1), x.argmin(0, keepdim=True),
            x.max(dim=-2).values, x.prod(1), torch.softmax(x, -1), torch.log_softmax(x, 0))


def view_permute(s, x):
    return (x.view(6, 4), x.reshape(-1, 2), x.permute(2, 0, 1), x.transpose(-1, 0), x.flatten(1),
            x.unsqueeze(1), x.unsqueeze(-1).squeeze(-1) * 2, x.contiguous().view(2, 12))


def cat_split(s, x, y):
    a, b = torch.split(x, [1, 2], dim=1)
    c, d = torch.chunk(y, 2, dim=-1)
    return torch.cat([x, y], 1), torch.cat([c, d, c], -1), torch.stack([x, y], 0), a * b, x.unbind(0)[1]


def slice_select(s, x):
    return x[:, 1:], x[..., ::2], x[1], x[:, -1], x[:, 1:3, -2:], x[0, :, 1::2], x.narrow(2, 1, 2)


def expand_index(s, x, i):
    return (x[:, :1].expand(2, 3, 4), x.unsqueeze(0).expand(3, -1, -1, -1), x[:, i], torch.index_select(x, 2, i),
            torch.gather(x, 2, i.view(1, 1, 2).expand(2, 3, 2)), x[i % 2])


def creation(s, x):
    return (x + torch.arange(4), torch.arange(0, 12, 3), torch.arange(1.0, 2.0, 0.25) * x,
            torch.full((3, 4), 2.5) * x, torch.zeros(2, 1, 4) + x, torch.ones(4, dtype=torch.int64) * 7,
            torch.zeros_like(x) + 1, torch.full_like(x, -3.0), torch.ones_like(x) * x)


def casts(s, x):
    h = x.to(torch.float16)
    return (x.to(torch.int64), x.to(torch.int32) + 1, (x > 0).to(torch.float32), (h * 2).to(torch.float32),
            h + 1, x.double() * 2, (x * 3).long().to(torch.bool), x.float().to(torch.int8))


def fp16_input(s, x, y):
    # half inputs and outputs; the weight is half too
    return x * s.w + y, (x - y) * 0.5, (x * y).float(), torch.where(x > y, x, y)


def int64_arith(s, i, j):
    return i + j, i * j - 3, i // (j + 1), i % 5, torch.maximum(i, j), i > j, i.sum(-1), (i * 2).float() / 3


def lifted_const(s, x):
    # a tensor literal in forward becomes a lifted constant (c_lifted_tensor_0)
    return x * torch.tensor([1.0, -2.0, 0.5, 3.0]) + s.w


def two_outputs(s, x):
    h = F.linear(x, s.w, s.b)
    return torch.softmax(h, -1), h.mean(0)


def norms(s, x):
    return (F.layer_norm(x, (5,), s.lw, s.lb), F.layer_norm(x, (4, 5)), F.group_norm(x.unsqueeze(-1), 2, s.gw, s.gb))


def matmul(s, x, y):
    return (x @ y.transpose(-1, -2), torch.bmm(x, y.transpose(1, 2)), torch.matmul(x, s.w), F.linear(x, s.w.t()),
            torch.mm(x[0], s.w))


def activations(s, x):
    return (F.relu(x), F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.hardswish(x),
            F.hardsigmoid(x), F.leaky_relu(x, 0.1), F.elu(x), F.relu6(x * 4), torch.erf(x))


def conv1d_transpose(s, x):
    y = F.conv1d(x, s.w, s.b, stride=2, padding=1)
    return y, F.conv_transpose1d(y, s.tw, None, stride=2, padding=1, output_padding=1)


I = lambda hi, *shape: torch.randint(0, hi, shape)
X3 = lambda: R(2, 3, 4)


def cases():
    """(name, factory) in a fixed order; each factory runs after torch.manual_seed."""
    yield "mlp_relu_gelu", lambda: dict(model=MLP(), samples=[{"x": R(4, 16)}, {"x": R(4, 16)}],
                                        note="3-layer MLP: linear (permute+addmm), relu, gelu; two samples")
    yield "conv_bn_relu_maxpool", lambda: dict(model=ConvBnPool(), samples=[{"x": R(2, 3, 8, 8)}],
                                               note="conv2d, batch norm (eval, running stats), relu, max_pool2d",
                                               rtol=1e-4, atol=1e-4)
    yield "grouped_conv", lambda: dict(model=GroupedConv(), samples=[{"x": R(1, 8, 8, 8)}],
                                       note="depthwise conv (groups=C), grouped strided conv without bias, 1x1, relu6",
                                       rtol=1e-4, atol=1e-4)
    yield "pools", lambda: dict(model=Pools(), samples=[{"x": R(1, 3, 8, 8)}],
                                note="avg_pool2d (with and without counting padding), adaptive avg pool to 1 and 2x2, "
                                     "padded strided max pool; 5 outputs")
    yield "attention_block", lambda: dict(model=AttnBlock(), samples=[{"x": R(2, 6, 16)}],
                                          note="layer norm, qkv linear, split, view/transpose, q@k^T*scale, bool "
                                               "causal mask buffer, masked_fill -inf, softmax, @v, residual",
                                          rtol=1e-4, atol=1e-4)
    yield "embedding_cumsum", lambda: dict(model=EmbedCumsum(), samples=[{"idx": I(10, 2, 5)}],
                                           note="int64 input; embedding; cumsum on float and on int64 (exact)")
    yield "residual_block", lambda: dict(model=Residual(), samples=[{"x": R(1, 8, 6, 6)}],
                                         note="conv-bn-relu-conv-bn + identity skip, relu", rtol=1e-4, atol=1e-4)
    yield "elementwise_promotion", lambda: dict(model=Fn(elementwise), samples=[{"x": R(3, 4), "i": I(20, 3, 4) - 10}],
                                                note="add/sub/mul/div with int and float scalars, rsub, int64 tensor "
                                                     "with int scalar (stays i64) and float scalar (becomes f32), "
                                                     "true division of ints, f32+i64 tensors, pow, exp, sqrt, tanh, "
                                                     "sigmoid, neg, floor_divide and remainder of negative ints")
    yield "compare_where", lambda: dict(model=Fn(compare_where), samples=[{"x": R(3, 4), "y": R(3, 4)}],
                                        note="gt/lt/eq/ne/ge/le (tensor and scalar) -> bool outputs, where with "
                                             "tensor and scalar branches, masked_fill, logical and/or/not, "
                                             "maximum, clamp")
    yield "reductions", lambda: dict(model=Fn(reductions), samples=[{"x": X3()}],
                                     note="sum (all, dim, dims+keepdim), mean with negative dims and keepdim, "
                                          "amax/amin, argmax/argmin (i64, keepdim), max.dim values, prod, "
                                          "softmax, log_softmax")
    yield "view_permute", lambda: dict(model=Fn(view_permute), samples=[{"x": X3()}],
                                       note="view, reshape with -1, permute, transpose with negative dim, flatten, "
                                            "unsqueeze/squeeze, contiguous")
    yield "cat_split", lambda: dict(model=Fn(cat_split), samples=[{"x": X3(), "y": X3()}],
                                    note="cat (dim 1 and -1), stack, split_with_sizes, chunk, unbind")
    yield "slice_select", lambda: dict(model=Fn(slice_select), samples=[{"x": X3()}],
                                       note="slice with start, step, negative bounds; select; narrow")
    yield "expand_index", lambda: dict(model=Fn(expand_index), samples=[{"x": X3(), "i": torch.tensor([2, 0])}],
                                       note="expand (explicit and -1), index.Tensor with an i64 index input, "
                                            "index_select, gather, indexing dim 0 with a computed index")
    yield "creation", lambda: dict(model=Fn(creation), samples=[{"x": X3()}],
                                   note="arange (int and float steps), full, zeros, ones (i64), zeros_like, "
                                        "full_like, ones_like")
    yield "casts", lambda: dict(model=Fn(casts), samples=[{"x": X3() * 3}],
                                note="_to_copy to i64/i32/f32/f16/f64/bool/i8; f16 arithmetic and an f16 output",
                                rtol=1e-3, atol=1e-3)
    yield "fp16_io", lambda: dict(model=Fn(fp16_input, w=R(4).half()),
                                  samples=[{"x": R(2, 3, 4).half(), "y": R(2, 3, 4).half()}],
                                  note="f16 inputs, f16 weight, f16 arithmetic and outputs, an f16 product cast to f32, where on f16",
                                  rtol=1e-2, atol=1e-2)
    yield "int64_arith", lambda: dict(model=Fn(int64_arith), samples=[{"i": I(50, 3, 4) - 20, "j": I(9, 3, 4)}],
                                      note="two int64 inputs: add, mul, floor_divide, remainder, maximum, "
                                           "comparison, sum, cast to float and divide")
    yield "lifted_constant", lambda: dict(model=Fn(lifted_const, w=R(4)), samples=[{"x": X3()}],
                                          note="a tensor literal lifted to a CONSTANT_TENSOR input (c_lifted_tensor_0)")
    yield "two_outputs", lambda: dict(model=Fn(two_outputs, w=R(6, 5), b=R(6)), samples=[{"x": R(3, 5)}],
                                      note="linear then two outputs of different shapes: softmax and mean")
    yield "norms", lambda: dict(model=Fn(norms, lw=R(5), lb=R(5), gw=R(4), gb=R(4)), samples=[{"x": R(2, 4, 5)}],
                                note="layer norm (affine and not, over 1 and 2 dims), group norm", atol=1e-4)
    yield "matmul", lambda: dict(model=Fn(matmul, w=R(4, 5)), samples=[{"x": X3(), "y": X3()}],
                                 note="matmul of 3-D tensors, bmm, matmul by a parameter, linear without bias, mm")
    yield "activations", lambda: dict(model=Fn(activations), samples=[{"x": X3() * 3}],
                                      note="relu, gelu (erf and tanh), silu, hardswish, hardsigmoid, leaky_relu, "
                                           "elu, relu6, erf")
    yield "conv1d_transpose", lambda: dict(model=Fn(conv1d_transpose, w=R(5, 3, 3), b=R(5), tw=R(5, 2, 3)),
                                           samples=[{"x": R(2, 3, 16)}],
                                           note="conv1d with stride and padding, conv_transpose1d with output_padding",
                                           atol=1e-4)
    for lay, what in (("ep28", "torch 2.8+ print(ep)"), ("ep24", "torch 2.3-2.7 print(ep), InputSpec signature"),
                      ("ep21", "torch 2.1-2.2 print(ep), arg<i>_1 names, unquoted annotations"),
                      ("readable", "gm.print_readable(), no signature")):
        yield "layout_" + lay, (lambda lay=lay, what=what: dict(
            model=SmallNet(), samples=[{"x": R(2, 3, 4, 4)}], layout=lay, atol=1e-4,
            note="the same conv+bn+linear model in the %s layout (params, buffers incl. an unused "
                 "num_batches_tracked i64[])" % what))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    outdir = os.path.join(here, "..", "cases")
    if args and not args[0].startswith("^") and (os.sep in args[0] or os.path.isdir(args[0])):
        outdir = args.pop(0)
    for name, mk in cases():
        if args and not any(re.search(p, name) for p in args):
            continue
        torch.manual_seed(0)
        kw = mk()
        make_case(outdir, name, **kw)


if __name__ == "__main__":
    main()
