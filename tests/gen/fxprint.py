"""Print a torch 1.13 make_fx graph the way torch 2.x prints an ExportedProgram.

Adapted from shared/tools/gen/fxprint.py; render() prints one graph in any of
the four layouts onnxc reads (see LAYOUTS). The graph comes from make_fx(functionalize(f)) over
(params..., buffers..., user inputs...); we rename placeholders the torch.export
way (p_*, b_*, c_*, user names), rewrite 1.13-only spellings into what torch 2.x
emits, and print annotations from node.meta['val'].
"""
import math, operator, re
import sympy, torch

DT = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
      torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
      torch.bool: "b8", torch.complex64: "c64"}


class SymMap:
    """Maps 1.13 shape-env symbols to torch.export names (s0, s1...) or to their hint values."""

    def __init__(self, dynamic_syms):
        self.dyn = dynamic_syms  # sympy.Symbol -> 's0'

    def expr(self, d):
        if isinstance(d, int):
            return d
        po = d.get_pyobj() if hasattr(d, "get_pyobj") else d
        e, env = po.expr, po.shape_env
        sub = {}
        for s in e.free_symbols:
            sub[s] = sympy.Symbol(self.dyn[s]) if s in self.dyn else env.var_to_val[s]
        return e.xreplace(sub)

    def text(self, d):
        e = self.expr(d)
        if isinstance(e, int) or (hasattr(e, "is_Integer") and e.is_Integer):
            return str(int(e))
        return sympy.sstr(e).replace(" ", "").replace("+", " + ").replace(" - ", " - ")


def annot(v, sm, quote=True):
    q = '"' if quote else ""
    if isinstance(v, torch.Tensor):
        return '%s%s[%s]%s' % (q, DT[v.dtype], ", ".join(sm.text(d) for d in v.shape), q)
    if hasattr(v, "get_pyobj") or type(v).__name__ == "PySymInt":
        return '%sSym(%s)%s' % (q, sm.text(v), q)
    return None


def fmt(a, names, sm):
    if isinstance(a, torch.fx.Node):
        return names[a]
    if isinstance(a, (list, tuple)):
        inner = ", ".join(fmt(x, names, sm) for x in a)
        return "[%s]" % inner if isinstance(a, list) else ("(%s,)" % inner if len(a) == 1 else "(%s)" % inner)
    if isinstance(a, bool) or a is None:
        return repr(a)
    if isinstance(a, float):
        if math.isinf(a):
            return "inf" if a > 0 else "-inf"
        return repr(a)
    if isinstance(a, torch.dtype):
        return str(a)
    if isinstance(a, torch.device):
        return "device(type='%s')" % a.type
    if isinstance(a, torch.layout):
        return str(a)
    if isinstance(a, torch.memory_format):
        return str(a)
    if hasattr(a, "get_pyobj"):
        return sm.text(a)
    return repr(a)


class NewOp:
    """A torch 2.x op that torch 1.13 lacks: printed by name, never run."""
    def __init__(self, name):
        self.name = name
        self.__name__ = name.replace(".", "_")

    def __call__(self, *a, **k):
        raise RuntimeError("not runnable: " + self.name)

    def __str__(self):
        return self.name


BN_NO_TRAINING = NewOp("aten._native_batch_norm_legit_no_training.default")


def opname(t):
    s = str(t)  # 'aten.add.Tensor'
    return "torch.ops." + s


def _subst(a, n, k):
    if a is n:
        return k
    if isinstance(a, tuple):
        return tuple(_subst(x, n, k) for x in a)
    if isinstance(a, list):
        return [_subst(x, n, k) for x in a]
    if isinstance(a, dict):
        return {kk: _subst(v, n, k) for kk, v in a.items()}
    return a


def cleanup(gm, sm_dyn_of):
    """Rewrite torch 1.13 make_fx spellings into the torch 2.x core-ATen spellings."""
    g = gm.graph
    A = torch.ops.aten
    for n in list(g.nodes):
        if n.op != "call_function":
            continue
        t = n.target
        if t in (A.detach.default, A.lift_fresh_copy.default, A.alias.default):
            n.replace_all_uses_with(n.args[0]); g.erase_node(n); continue
        if t == A.empty.memory_format and not n.users:
            g.erase_node(n); continue
        if t == A._reshape_alias.default:
            n.target = A.view.default; n.args = (n.args[0], n.args[1]); continue
        if t == A.t.default:
            v = n.args[0].meta["val"]
            if v.dim() < 2:
                n.replace_all_uses_with(n.args[0]); g.erase_node(n); continue
            n.target = A.permute.default; n.args = (n.args[0], [1, 0]); continue
        if t == A.native_batch_norm.default and n.args[5] is False:
            x, w, b, rm, rv, _, mom, eps = n.args
            n.target = BN_NO_TRAINING
            n.args = (x, w, b, rm, rv, mom, eps)
            continue
        if str(t) == "aten.sym_size":
            n.target = A.sym_size.int
            continue
        parts = str(t).split(".")  # in-place op whose result make_fx already rebinds: use the functional op
        if len(parts) == 3 and parts[1].endswith("_") and not parts[1].startswith("_"):
            fn = getattr(A, parts[1][:-1], None)
            if fn is not None and hasattr(fn, parts[2]):
                n.target = getattr(fn, parts[2])
    if sm_dyn_of is not None:  # a SymInt that is a plain number after specialization becomes that number
        from torch.fx.node import map_arg
        for n in list(g.nodes):
            v = n.meta.get("val")
            if n.op == "call_function" and v is not None and (hasattr(v, "get_pyobj") or type(v).__name__ == "PySymInt"):
                e = sm_dyn_of.expr(v)
                if isinstance(e, int) or getattr(e, "is_Integer", False):
                    k = int(e)
                    for u in list(n.users):
                        u.args = map_arg(u.args, lambda a: k if a is n else a) if False else _subst(u.args, n, k)
                        u.kwargs = _subst(u.kwargs, n, k)
                    g.erase_node(n)
    for n in list(g.nodes):  # drop getitems and other pure nodes nobody uses
        if n.op == "call_function" and not n.users and (n.target is operator.getitem or str(n.target).startswith("aten.sym_size")):
            g.erase_node(n)
    g.lint()
    gm.recompile()
    return gm


LAYOUTS = ("ep28", "ep24", "ep21", "readable")
INFIX = {operator.mul: "*", operator.add: "+", operator.sub: "-", operator.floordiv: "//", operator.mod: "%"}


def _code(gm, names, sm, quote):
    """The GraphModule text (class line at col 0) as print_readable() prints it."""
    g = gm.graph
    nodes = list(g.nodes)
    ph = [n for n in nodes if n.op == "placeholder"]
    last = {}
    for i, n in enumerate(nodes):
        for a in n.all_input_nodes:
            last[a] = i
    sp = " " * 8
    out = ["class GraphModule(torch.nn.Module):"]
    sig = ", ".join("%s: %s" % (names[p], annot(p.meta["val"], sm, quote)) for p in ph)
    out.append("    def forward(self, %s):" % sig)
    for i, n in enumerate(nodes):
        if n.op in ("placeholder", "output"):
            continue
        v = n.meta.get("val")
        a = annot(v, sm, quote) if not isinstance(v, (tuple, list)) else None
        lhs = names[n] + (": " + a if a else "")
        if n.target is operator.getitem:
            rhs = "%s[%s]" % (names[n.args[0]], n.args[1])
        elif n.target in INFIX:  # SymInt arithmetic: torch prints it as Python
            rhs = "%s %s %s" % (fmt(n.args[0], names, sm), INFIX[n.target], fmt(n.args[1], names, sm))
        else:
            args = [fmt(x, names, sm) for x in n.args]
            args += ["%s = %s" % (k, fmt(x, names, sm)) for k, x in n.kwargs.items()]
            rhs = "%s(%s)" % (opname(n.target), ", ".join(args))
        dead = [names[x] for x in n.all_input_nodes if last.get(x) == i]
        if not n.users:
            dead.append(names[n])
        line = "%s%s = %s" % (sp, lhs, rhs)
        if dead:
            line += ";  " + " = ".join(dict.fromkeys(dead)) + " = None"
        out.append(line)
    o = [n for n in nodes if n.op == "output"][0]
    res = o.args[0]
    res = res if isinstance(res, (list, tuple)) else [res]
    out.append("%sreturn (%s)" % (sp, ", ".join(names[r] for r in res) + ("," if len(res) == 1 else "")))
    out.append(sp)
    return out, [names[r] for r in res]


def render(gm, names, kinds, targets, sm, layout, ranges=None):
    """Print gm in one layout:
    ep28      print(ep), torch 2.8+: '# inputs' / '# outputs' signature listing
    ep24      print(ep), torch 2.3-2.7: one-line ExportGraphSignature(input_specs=[InputSpec(...)])
    ep21      print(ep), torch 2.1-2.2: arg<i>_1 names, unquoted annotations,
              ExportGraphSignature(parameters=[...], inputs_to_parameters={...})
    readable  gm.print_readable(): no signature; kinds come from p_/b_/c_ prefixes
    names maps nodes to their torch 2.4+ names (p_*, b_*, c_*, user names);
    ep21 renames placeholders itself; ranges {symbol: (lo, hi)} fills 'Range constraints'
    (ep28, ep24).  Returns the text."""
    rc = "Range constraints: {%s}" % ", ".join("%s: VR[%s, %s]" % (s, lo, hi) for s, (lo, hi) in (ranges or {}).items())
    ph = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if layout == "ep21":
        names = dict(names)
        for i, p in enumerate(ph):
            names[p] = "arg%d_1" % i
    code, res = _code(gm, names, sm, layout != "ep21")
    if layout == "readable":
        return "\n".join(code) + "\n"
    out = ["ExportedProgram:"] + ["    " + l for l in code]
    if layout == "ep28":
        out.append("Graph signature: ")
        out.append("    # inputs")
        for p in ph:
            k = kinds[p]
            if k == "USER_INPUT":
                out.append("    %s: USER_INPUT" % names[p])
            elif k == "BUFFER":
                out.append("    %s: BUFFER target='%s' persistent=True" % (names[p], targets[p]))
            else:
                out.append("    %s: %s target='%s'" % (names[p], k, targets[p]))
        out.append("    ")
        out.append("    # outputs")
        for r in res:
            out.append("    %s: USER_OUTPUT" % r)
        out.append("    ")
        out.append(rc)
        out.append("")
    elif layout == "ep24":
        num = {"USER_INPUT": 1, "PARAMETER": 2, "BUFFER": 3, "CONSTANT_TENSOR": 4}
        specs = []
        for p in ph:
            k = kinds[p]
            tgt = "'%s'" % targets[p] if k != "USER_INPUT" else "None"
            pers = "True" if k == "BUFFER" else "None"
            specs.append("InputSpec(kind=<InputKind.%s: %d>, arg=TensorArgument(name='%s'), target=%s, persistent=%s)"
                         % (k, num[k], names[p], tgt, pers))
        outs = ["OutputSpec(kind=<OutputKind.USER_OUTPUT: 1>, arg=TensorArgument(name='%s'), target=None)" % r
                for r in res]
        out.append("Graph signature: ExportGraphSignature(input_specs=[%s], output_specs=[%s])"
                   % (", ".join(specs), ", ".join(outs)))
        out.append(rc)
        out.append("")
    elif layout == "ep21":
        if any(kinds[p] == "CONSTANT_TENSOR" for p in ph):
            raise ValueError("ep21 layout has no lifted constants")
        q = lambda xs: "[%s]" % ", ".join("'%s'" % x for x in xs)
        d = lambda kind: "{%s}" % ", ".join("'%s': '%s'" % (names[p], targets[p]) for p in ph if kinds[p] == kind)
        sig = ("ExportGraphSignature(parameters=%s, buffers=%s, user_inputs=%s, user_outputs=%s, "
               "inputs_to_parameters=%s, inputs_to_buffers=%s, buffers_to_mutate={}, "
               "backward_signature=None, assertion_dep_token=None)" % (
                   q([targets[p] for p in ph if kinds[p] == "PARAMETER"]),
                   q([targets[p] for p in ph if kinds[p] == "BUFFER"]),
                   q([names[p] for p in ph if kinds[p] == "USER_INPUT"]), q(res),
                   d("PARAMETER"), d("BUFFER")))
        out.append("Graph signature: " + sig)
        out.append("Range constraints: {}")
        out.append("Equality constraints: []")
        out.append("")
    else:
        raise ValueError(layout)
    return "\n".join(out)
