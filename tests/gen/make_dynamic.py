#!/usr/bin/python3
"""Generate onnxc's own dynamic-shape end-to-end cases (tests/cases-dynamic/<name>/) with torch 1.13.

Two kinds of case, in the shared corpus format (graph.txt, weights.safetensors, io.safetensors,
case.json; see ../../../shared/corpus/README.md):
  dynamic    traced with make_fx(tracing_mode="symbolic"); the marked input dims stay symbols,
             printed with torch.export's names (s0, s1) and the way torch 2.5+ prints them
             ("2*s0", "s0 + 1", "s0*s1", "(s0//2)"); every other symbol becomes its number.
             Samples at several sizes; case.json "symbols" and "sizes".
  symbolize  a static dump (make_cases.trace) whose later samples use other sizes:
             case.json "symbolize": {"x": {"0": "batch"}} asks for onnxc --dynamic x:0=batch.
case.json may also hold
  "flags"           extra onnxc arguments (--dynamic renames, --static)
  "dim_params"      {"inputs": {name: dims}, "outputs": [dims...]}: the exact dims onnxc must write
                    on the ONNX graph inputs and outputs, a dim being a number (dim_value) or a
                    string (dim_param); tests/e2e/check_dim_params.sh checks them
  "expect_warning"  a regex onnxc's stderr must match (the conversion still succeeds)
Every dump is executed again from its printed text (fxexec) at every sample size and must
reproduce the eager outputs.  A static dump runs only at its traced size, so a symbolize case is
also traced symbolically with its labels: that twin must run at every size, and its input and
output annotations are the dim_params onnxc must produce.  Deterministic: seeded per case.

usage: /usr/bin/python3 tests/gen/make_dynamic.py [OUTDIR] [NAME_REGEX...]
       (OUTDIR defaults to tests/cases-dynamic next to this folder)
"""
import builtins, json, keyword, math, operator, os, re, shutil, sys, warnings
warnings.filterwarnings("ignore")
import sympy
import torch, torch.nn as nn, torch.nn.functional as F
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter
from torch.fx.experimental.proxy_tensor import make_fx
from functorch import functionalize
from torch.nn.utils.stateless import functional_call
sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fxprint, fxexec, st
import make_cases
from make_cases import MLP, Fn, bn, max_err, reexec, sanitize

R = lambda *s: torch.randn(*s)
aten = torch.ops.aten


class TorchPrinter(StrPrinter):
    """sympy's str printer as torch 2.5+ uses it: FloorDiv prints as (a//b)."""

    def _print_FloorDiv(self, e):
        a, b = (self.parenthesize(x, PRECEDENCE["Atom"] - 0.5) for x in e.args)
        return "(%s//%s)" % (a, b)


def dimtext(e):
    if isinstance(e, int) or getattr(e, "is_Integer", False):
        return str(int(e))
    return TorchPrinter().doprint(e)


class Syms(fxprint.SymMap):
    """1.13 shape-env symbols -> sympy expressions over torch.export's names (a marked dim's
    symbol -> s0, or 2*s0 for a derived input dim); every other symbol -> its traced value."""

    def expr(self, d):
        if isinstance(d, int):
            return d
        po = d.get_pyobj() if hasattr(d, "get_pyobj") else d
        e, env = po.expr, po.shape_env
        return e.xreplace({s: self.dyn[s] if s in self.dyn else env.var_to_val[s] for s in e.free_symbols})

    def text(self, d):
        return dimtext(self.expr(d))


def node_names(g, names):
    """torch.export's node names: after the op (view, sym_size_int, mul for SymInt '*'),
    duplicates _1, _2..., names that shadow a Python builtin start at _1 (sum_1)."""
    used, seen = set(names.values()), {}
    for n in g.nodes:
        if n in names or n.op == "output":
            names.setdefault(n, "output")
            continue
        if n.target is operator.getitem:
            base = "getitem"
        elif n.target in fxprint.INFIX:
            base = n.target.__name__
        elif str(n.target) == "aten.sym_size.int":
            base = "sym_size_int"
        else:
            base = str(n.target).split(".")[1]
        k = seen.get(base, 1 if hasattr(builtins, base) or keyword.iskeyword(base) else 0)
        while True:
            cand = base if k == 0 else "%s_%d" % (base, k)
            k += 1
            if cand not in used:
                break
        seen[base] = k
        used.add(cand)
        names[n] = cand


def trace_dynamic(model, sample, dynamic):
    """make_fx symbolic over (params..., buffers..., user inputs...).
    dynamic: {input: {dim: 's0' or a sympy expression text over earlier names ('2*s0')}}.
    Returns (gm, names, kinds, targets, weights, syms, ranges)."""
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
    for fn in (functionalize(f), f):
        try:
            with torch.no_grad():
                gm = make_fx(fn, tracing_mode="symbolic")(*state, *sample.values())
            break
        except Exception as e:
            err = e
    if gm is None:
        raise SystemExit("symbolic tracing failed: %r" % err)
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
    dyn, ranges, marked = {}, {}, set()
    for p in ph:
        for d, s in dynamic.get(names.get(p), {}).items():
            e = sympy.sympify(s)
            sym = p.meta["val"].shape[d].get_pyobj().expr
            if not isinstance(sym, sympy.Symbol) or dyn.get(sym, e) != e:
                raise SystemExit("%s dim %d: traced as %s, not a fresh symbol (duck sizing? pick another "
                                 "size)" % (names[p], d, sym))
            dyn[sym] = e
            marked.add((p, d))
            for fs in sorted(e.free_symbols, key=str):
                ranges.setdefault(str(fs), (2, "int_oo"))
    syms = Syms(dyn)
    # 1.13's meta for arange with a SymInt end says f32; ATen (and torch 2.x) give i64
    for n in gm.graph.nodes:
        if (n.target is aten.arange.default and "dtype" not in n.kwargs and n.meta["val"].is_floating_point()
                and not any(isinstance(a, float) for a in n.args)):
            if n.users.keys() - {next(x for x in gm.graph.nodes if x.op == "output")}:
                raise SystemExit("arange with a SymInt end feeds other nodes: their f32 annotations would be wrong")
            with n.meta["val"].fake_mode:
                n.meta["val"] = n.meta["val"].to(torch.int64)
    # duck sizing gives every dim with the traced size the same symbol: only marked dims may
    # carry one, or a weight would print as f32[s0, 16]
    for p in ph:
        for d, x in enumerate(p.meta["val"].shape):
            if (p, d) not in marked and not isinstance(syms.expr(x), int) and not syms.expr(x).is_Integer:
                raise SystemExit("%s dim %d prints as %s: its traced size collides with a dynamic one"
                                 % (names[p], d, syms.text(x)))
    fxprint.cleanup(gm, syms)
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
    node_names(g, names)
    order = {"PARAMETER": 0, "BUFFER": 1, "CONSTANT_TENSOR": 2, "USER_INPUT": 3}
    phs = sorted([n for n in g.nodes if n.op == "placeholder"], key=lambda p: order[kinds[p]])
    anchor = next(n for n in g.nodes if n.op != "placeholder")
    for p in phs:
        anchor.prepend(p)
    g.lint()
    gm.recompile()
    return gm, names, kinds, targets, weights, syms, ranges


def io_dims(gm, names, kinds, syms, subst):
    """{"inputs": {name: dims}, "outputs": [dims]} from the annotations, each symbolic dim's
    expression rewritten by subst ({Symbol('s0'): Symbol('batch_size')} or an Integer)."""
    def dims(v):
        out = []
        for d in v.shape:
            e = sympy.sympify(syms.expr(d)).xreplace(subst)
            out.append(int(e) if e.is_Integer else dimtext(e))
        return out
    ins = {names[p]: dims(p.meta["val"]) for p in gm.graph.nodes
           if p.op == "placeholder" and kinds[p] == "USER_INPUT"}
    o = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    o = o if isinstance(o, (list, tuple)) else [o]
    return {"inputs": ins, "outputs": [dims(r.meta["val"]) for r in o]}


def check_dump(name, text, weights, samples, refs, atol, what):
    """The printed graph must compute what the model computes at every sample (ints exactly)."""
    params, _, _ = fxexec.parse(text)
    sig = fxexec.signature(text, params)
    ins = [n for n, _ in params if sig[n][0] == "USER_INPUT"]
    if ins != list(samples[0]):
        raise SystemExit("%s: %s has user inputs %s, model %s" % (name, what, ins, list(samples[0])))
    for k, got in enumerate(reexec(text, weights, samples)):
        if len(got) != len(refs[k]):
            raise SystemExit("%s: %s returns %d outputs, model %d" % (name, what, len(got), len(refs[k])))
        for j, (a, b) in enumerate(zip(got, refs[k])):
            e = max_err(a, b)
            tol = 0 if (b.dtype == torch.bool or not b.is_floating_point()) else atol
            if e > tol:
                raise SystemExit("%s: %s disagrees with the model at sample %d output %d (err %s)"
                                 % (name, what, k, j, e))


FORMATS = {"ep28": "print(ExportedProgram), torch 2.8+ layout",
           "ep24": "print(ExportedProgram), torch 2.3-2.7 layout (InputSpec signature)",
           "readable": "gm.print_readable(), no signature (weights keyed by name without p_/b_/c_)"}


def by_name(weights, names, kinds, targets):
    """print_readable() has no signature: onnxc finds weights by placeholder name minus p_/b_/c_."""
    return {names[p][2:]: weights[targets[p]] for p, k in kinds.items() if k != "USER_INPUT"}


def make_case(outdir, name, model, samples, note, dynamic=None, symbolize=None, flags=(), rename=None,
              static=None, warn=None, layout="ep28", rtol=1e-4, atol=1e-5):
    """dynamic: {input: {dim: 's0'}} for a symbolic dump; symbolize: {input: {dim: label}} for a
    static dump traced at samples[0]; rename {'s0': 'batch_size'} and static {'s1': 5} say what
    the flags do to the expected dim_params; warn: the regex stderr must match."""
    model = model.eval()
    refs, io = [], {}
    with torch.no_grad():
        for k, s in enumerate(samples):
            out = model(*s.values())
            out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            refs.append(out)
            for nm, t in s.items():
                io["%d/in/%s" % (k, nm)] = t
            for j, t in enumerate(out):
                io["%d/out/%d" % (k, j)] = t
    if dynamic:
        gm, names, kinds, targets, weights, syms, ranges = trace_dynamic(model, samples[0], dynamic)
        text = fxprint.render(gm, names, kinds, targets, syms, layout, ranges)
        if layout == "readable":
            weights = by_name(weights, names, kinds, targets)
        check_dump(name, text, weights, samples, refs, atol, "the printed dump")
        subst = {sympy.Symbol(a): sympy.Symbol(b) for a, b in (rename or {}).items()}
        subst.update({sympy.Symbol(a): sympy.Integer(v) for a, v in (static or {}).items()})
        dims = io_dims(gm, names, kinds, syms, subst)
        symbols = sorted(ranges)
        sizes = []
        for s in samples:
            sz = {}
            for nm, dd in dynamic.items():
                for d, e in dd.items():
                    if re.fullmatch(r"s\d+", e):
                        sz[e] = int(s[nm].shape[d])
            sizes.append(sz)
    else:
        gm, names, kinds, targets, weights = make_cases.trace(model, samples[0])
        text = fxprint.render(gm, names, kinds, targets, fxprint.SymMap({}), layout)
        if layout == "readable":
            weights = by_name(weights, names, kinds, targets)
        check_dump(name, text, weights, samples[:1], refs[:1], atol, "the printed static dump")
        # the symbolic twin: the model must be shape-polymorphic the way the labels say
        sym_of = {}  # label -> s<i>: one label on several dims is one symbol
        labels = {nm: {d: sym_of.setdefault(lab, "s%d" % len(sym_of)) for d, lab in dd.items()}
                  for nm, dd in symbolize.items()}
        tgm, tnames, tkinds, ttargets, tweights, tsyms, tranges = trace_dynamic(model, samples[0], labels)
        ttext = fxprint.render(tgm, tnames, tkinds, ttargets, tsyms, "ep28", tranges)
        check_dump(name, ttext, tweights, samples, refs, atol, "the symbolic twin")
        subst = {}
        for nm, dd in symbolize.items():
            for d, lab in dd.items():
                subst[sympy.Symbol(labels[nm][d])] = sympy.Symbol(lab)
        dims = io_dims(tgm, tnames, tkinds, tsyms, subst)
        symbols = []
        sizes = [{lab: int(s[nm].shape[d]) for nm, dd in symbolize.items() for d, lab in dd.items()}
                 for s in samples]
    d = os.path.join(outdir, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "graph.txt"), "w") as fh:
        fh.write(text)
    if weights:
        st.save(os.path.join(d, "weights.safetensors"), weights)
    st.save(os.path.join(d, "io.safetensors"), io)
    meta = {"name": name, "source": "generated by tests/gen/make_dynamic.py: " + note, "format": FORMATS[layout],
            "rtol": rtol, "atol": atol, "samples": len(samples), "symbols": symbols, "sizes": sizes,
            "inputs": list(samples[0]), "outputs": len(refs[0]), "expect": "pass"}
    if symbolize:
        meta["symbolize"] = {nm: {str(dd): lab for dd, lab in v.items()} for nm, v in symbolize.items()}
    if flags:
        meta["flags"] = list(flags)
    meta["dim_params"] = dims
    if warn:
        meta["expect_warning"] = warn
    with open(os.path.join(d, "case.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
        fh.write("\n")
    nops = sum(1 for n in gm.graph.nodes if n.op == "call_function")
    kind = "dynamic " + ",".join(symbols) if dynamic else "symbolize " + json.dumps(meta["symbolize"])
    print("  %-28s %3d nodes  %-8s %s" % (name, nops, layout, kind))


# ---------------------------------------------------------------------------------------------
# the models.  torch 1.13 traces every input dim symbolically and shares one symbol between
# dims of the same size (duck sizing), so traced sizes differ from every other dim; Python
# slicing with a SymInt fails in 1.13, so slices call aten.slice directly.

class Attention(nn.Module):
    """Pre-LN self-attention (math path) and, with ff, a feed-forward: a transformer block.
    The causal mask buffer is sliced to the sequence length."""
    def __init__(s, d=16, h=2, ff=0, maxlen=12):
        super().__init__()
        s.d, s.h, s.hd = d, h, d // h
        s.ln = nn.LayerNorm(d)
        s.qkv = nn.Linear(d, 3 * d)
        s.o = nn.Linear(d, d)
        s.register_buffer("mask", torch.tril(torch.ones(maxlen, maxlen)).view(1, 1, maxlen, maxlen).bool())
        s.ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d)) if ff else None

    def forward(s, x):
        B, T, C = x.shape
        qkv = s.qkv(s.ln(x))  # split(): 1.13 cannot trace split_with_sizes symbolically
        q, k, v = (aten.slice.Tensor(qkv, 2, i * s.d, (i + 1) * s.d) for i in range(3))
        q = q.view(B, T, s.h, s.hd).transpose(1, 2)
        k = k.view(B, T, s.h, s.hd).transpose(1, 2)
        v = v.view(B, T, s.h, s.hd).transpose(1, 2)
        a = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(s.hd))
        m = aten.slice.Tensor(aten.slice.Tensor(s.mask, 2, 0, T), 3, 0, T)
        a = a.masked_fill(~m, float("-inf"))
        y = torch.softmax(a, dim=-1) @ v
        x = x + s.o(y.transpose(1, 2).reshape(B, T, C))
        return x + s.ff(x) if s.ff is not None else x


class ConvPoolFc(nn.Module):
    """conv, batch norm, relu, max pool, flatten (a view of the batch), linear."""
    def __init__(s):
        super().__init__()
        s.conv, s.bn = nn.Conv2d(3, 4, 3, padding=1), bn(4)
        s.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(s, x):
        y = F.max_pool2d(torch.relu(s.bn(s.conv(x))), 2)
        return s.fc(y.flatten(1))


def symint_arith(s, x):
    B = x.shape[0]
    a = x.view(B * 3, 4)                   # sym_size_int * 3 feeds view
    h = torch.full((B // 2, 4), 1.5)       # floordiv feeds full
    r = torch.arange(B + 1)                # add feeds arange (i64)
    t = aten.slice.Tensor(x, 0, 0, B // 2)  # and slice
    return a * 2, h, r, t.sum(1, keepdim=True) + h


def two_symbols(s, x, m):
    B, T, C = x.shape
    h = x.reshape(B * T, C) @ s.w
    pooled = (x * m.unsqueeze(-1)).sum(1) / m.sum(1, keepdim=True)
    return h, pooled


def derived(s, x, y):
    c = torch.cat([x, x], 0)
    q = torch.cat([x, s.w.view(1, 5)], 0)  # F.pad traces to narrow(), which 1.13 cannot do symbolically
    return y + c, q * 0.5, torch.cat([c, x], 0).sum(1)


def reduce_dyn(s, x):
    return (x.sum(1), x.mean(1, keepdim=True), x.amax(1), torch.softmax(x, 1), x.amin(1, keepdim=True),
            x.sum(), torch.log_softmax(x, -2).mean((0, 1)))


def rename_batch(s, x):
    return torch.relu(F.linear(x, s.w, s.b)), torch.cat([x, x * 2], 0)


def static_seq(s, x):
    B, T, C = x.shape
    return (x.reshape(B * T, C) @ s.w, x.reshape(B, T * C) * 0.5, x.mean(1))


class MlpTwo(nn.Module):
    def __init__(s):
        super().__init__()
        s.mlp, s.w = MLP(), nn.Parameter(R(8))

    def forward(s, x, y):
        return s.mlp(x) + y * s.w


def unproven(s, x):
    # arange(6) is a constant of the model: its length equals the traced batch by chance
    return F.linear(x, s.w, s.b), x.mean(1, keepdim=True) * torch.arange(6)


def at(*shapes, fn=R):
    """One sample per shape tuple: {name: fn(*shape)}."""
    return [{k: fn(*v) for k, v in sh.items()} for sh in shapes]


def cases():
    """(name, factory) in a fixed order; each factory runs after torch.manual_seed(0)."""
    B = lambda *bs: at(*({"x": (b, 16)} for b in bs))
    yield "dyn_mlp_batch", lambda: dict(
        model=MLP(), samples=B(3, 5, 11), dynamic={"x": {0: "s0"}},
        note="3-layer MLP, batch symbolic (x: f32[s0, 16]); samples at batch 3, 5, 11")
    yield "dyn_conv_bn_pool", lambda: dict(
        model=make_cases.ConvBnPool(), samples=at(*({"x": (b, 3, 8, 8)} for b in (5, 2, 7))),
        dynamic={"x": {0: "s0"}}, layout="ep24", rtol=1e-4, atol=1e-4,
        note="conv2d, batch norm (eval), relu, max_pool2d with a symbolic batch; torch 2.3-2.7 layout")
    yield "dyn_attention_seq", lambda: dict(
        model=Attention(), samples=at(*({"x": (2, t, 16)} for t in (5, 3, 9))),
        dynamic={"x": {1: "s0"}}, rtol=1e-4, atol=1e-4,
        note="self-attention with a symbolic sequence: view with sym_size, expand/bmm, transpose, "
             "the causal mask buffer sliced to the sequence")
    yield "dyn_symint_arith", lambda: dict(
        model=Fn(symint_arith), samples=at(*({"x": (b, 12)} for b in (7, 4, 10))),
        dynamic={"x": {0: "s0"}},
        note="sym_size.int and SymInt arithmetic (*, //, +) feeding view, full, arange and slice")
    yield "dyn_two_symbols", lambda: dict(
        model=Fn(two_symbols, w=R(8, 8)),
        samples=[{"x": R(b, t, 8), "m": torch.rand(b, t) + 0.5} for b, t in ((3, 5), (2, 7), (4, 3))],
        dynamic={"x": {0: "s0", 1: "s1"}, "m": {0: "s0", 1: "s1"}},
        note="batch and sequence symbolic: reshape to [s0*s1, 8] and matmul; a masked mean over the sequence")
    yield "dyn_derived_dims", lambda: dict(
        model=Fn(derived, w=R(5)), samples=[{"x": R(b, 5), "y": R(2 * b, 5)} for b in (3, 4, 7)],
        dynamic={"x": {0: "s0"}, "y": {0: "2*s0"}},
        note="derived dims: an input f32[2*s0, 5], cat of x with itself ([2*s0, 5]), cat with a "
             "row ([s0 + 1, 5]), cat of three ([3*s0])")
    yield "dyn_reduce", lambda: dict(
        model=Fn(reduce_dyn), samples=at(*({"x": (4, t, 6)} for t in (5, 3, 9))),
        dynamic={"x": {1: "s0"}}, layout="readable", atol=1e-4,
        note="reductions over a symbolic dim: sum, mean keepdim, amax, softmax, amin keepdim, sum of all, "
             "log_softmax then mean; gm.print_readable() layout")
    yield "dyn_rename_batch", lambda: dict(
        model=Fn(rename_batch, w=R(8, 16), b=R(8)), samples=B(3, 6, 2), dynamic={"x": {0: "s0"}},
        flags=["--dynamic", "x:0=batch_size"], rename={"s0": "batch_size"},
        note="a symbolic batch renamed by --dynamic x:0=batch_size: dim_params batch_size and 2*batch_size")
    yield "dyn_static_seq", lambda: dict(
        model=Fn(static_seq, w=R(8, 4)), samples=at(*({"x": (b, 5, 8)} for b in (3, 6, 2))),
        dynamic={"x": {0: "s0", 1: "s1"}}, flags=["--static", "s1=5"], static={"s1": 5},
        note="batch and sequence symbolic, --static s1=5 specialises the sequence: dim_params "
             "[s0, 5, 8], [5*s0, 4], [s0, 40]")
    yield "sym_mlp_two_inputs", lambda: dict(
        model=MlpTwo(), samples=[{"x": R(b, 16), "y": R(b, 8)} for b in (6, 3, 10)],
        symbolize={"x": {0: "batch"}, "y": {0: "batch"}},
        note="static MLP dump (batch 6) with two inputs made dynamic by one label on both: "
             "--dynamic x:0=batch --dynamic y:0=batch")
    yield "sym_transformer_block", lambda: dict(
        model=Attention(ff=32), samples=at(*({"x": (b, 5, 16)} for b in (3, 1, 7))),
        symbolize={"x": {0: "batch"}}, rtol=1e-4, atol=1e-4,
        note="static transformer block (batch 3, sequence 5) made dynamic by --dynamic x:0=batch: "
             "view([15, 16]), view([3, 5, 2, 8]), expand/view [6, 5, 8] for bmm must follow the batch")
    yield "sym_conv_flatten", lambda: dict(
        model=ConvPoolFc(), samples=at(*({"x": (b, 3, 8, 8)} for b in (6, 2, 9))),
        symbolize={"x": {0: "n"}}, rtol=1e-4, atol=1e-4,
        note="static conv net (batch 6) made dynamic by --dynamic x:0=n: flatten is view([6, 64])")
    yield "sym_unproven_literal", lambda: dict(
        model=Fn(unproven, w=R(8, 16), b=R(8)), samples=B(6, 3, 10), symbolize={"x": {0: "batch"}},
        warn="warning:",
        note="static dump (batch 6) with a constant arange(6) of the model: the literal equals the "
             "batch but does not follow it; onnxc keeps it and warns")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    outdir = os.path.join(here, "..", "cases-dynamic")
    if args and not args[0].startswith("^") and (os.sep in args[0] or os.path.isdir(args[0])):
        outdir = args.pop(0)
    for name, mk in cases():
        if args and not any(re.search(p, name) for p in args):
            continue
        torch.manual_seed(0)
        make_case(outdir, name, **mk())


if __name__ == "__main__":
    main()
