"""dynamic_shapes as torch.onnx.export takes them, for torch.export and for
onnxc: strings become Dim.DYNAMIC for torch.export (as torch.onnx does), and
the names the user gave (strings, Dim names) become --dynamic options that
rename the symbols PyTorch assigned (s0, s27) to those names, found by
looking at the fake tensor shapes of the program's input placeholders."""
import inspect
import warnings

import torch
from torch.utils import _pytree as pytree

__all__ = ["for_torch_export", "dynamic_options"]


def for_torch_export(spec):
    """dynamic_shapes with each string replaced by Dim.DYNAMIC."""
    if isinstance(spec, str):
        return torch.export.Dim.DYNAMIC
    if isinstance(spec, dict):
        return {k: for_torch_export(v) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return type(spec)(for_torch_export(v) for v in spec)
    return spec


def _label(axis):
    """(label, derived) for a named axis, or None for a static dim or a
    hint (Dim.AUTO, Dim.DYNAMIC, Dim.STATIC, None, an int)."""
    if isinstance(axis, str):
        return axis, False
    if isinstance(axis, (int, type(None))):
        return None
    root = getattr(axis, "root", None)
    if root is not None and hasattr(root, "__name__"):
        return root.__name__, True  # a derived Dim: name its root symbol
    name = getattr(axis, "__name__", None)
    if isinstance(name, str) and type(axis).__name__ != "_DimHint":
        return name, False
    return None


def _params(fn):
    """The parameter names of fn in order, or None."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    names = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return None
        names.append(p.name)
    return names


def _top(spec, path, params, combined):
    """The part of dynamic_shapes for the top-level argument path[0:2] of
    (args, kwargs), and the rest of the path."""
    if len(path) < 2:
        return None, ()
    which = path[0].idx
    key = path[1]
    if which == 0:
        pos = key.idx
        name = params[pos] if params and pos < len(params) else None
    else:
        name = key.key
    if isinstance(spec, dict):
        return (spec.get(name) if name is not None else None), path[2:]
    if isinstance(spec, (list, tuple)):
        if which == 0 and not combined:
            i = path[1].idx
        elif name in combined:
            i = combined.index(name)
        else:
            return None, ()
        return (spec[i] if i < len(spec) else None), path[2:]
    return None, ()


def _follow(spec, rest):
    for k in rest:
        if spec is None:
            return None
        if isinstance(k, pytree.MappingKey):
            spec = spec.get(k.key) if isinstance(spec, dict) else None
        elif isinstance(k, pytree.SequenceKey):
            spec = (spec[k.idx] if isinstance(spec, (list, tuple)) and
                    k.idx < len(spec) else None)
        elif isinstance(k, pytree.GetAttrKey):
            spec = (spec.get(k.name) if isinstance(spec, dict)
                    else getattr(spec, k.name, None))
        else:
            return None
    return spec


def _axes(spec):
    """(dim, axis) pairs of one tensor's entry of dynamic_shapes."""
    if isinstance(spec, dict):
        return [(d, a) for d, a in spec.items() if isinstance(d, int)]
    if isinstance(spec, (list, tuple)):
        return list(enumerate(spec))
    return []


def _user_placeholders(ep):
    """(name, fake value) of each user input, in signature order."""
    from torch.export.graph_signature import InputKind
    nodes = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    out = []
    for s in ep.graph_signature.input_specs:
        if s.kind != InputKind.USER_INPUT:
            continue
        name = getattr(s.arg, "name", None)
        node = nodes.get(name)
        out.append((name, node.meta.get("val") if node is not None
                    else None))
    return out


def _expr(fake, dim):
    if not isinstance(fake, torch.Tensor) or dim >= fake.dim():
        return None
    d = fake.shape[dim if dim >= 0 else dim + fake.dim()]
    return d.node.expr if isinstance(d, torch.SymInt) else None


def dynamic_options(ep, fn, args, kwargs, dynamic_shapes):
    """--dynamic (input, dim, label) triples naming the symbols of ep's
    inputs as dynamic_shapes does.  fn: the forward whose signature maps
    dynamic_shapes' keys to arguments (None for an ExportedProgram given
    as is).  A name that cannot be placed is a warning, never an error:
    the model is right, only its dim_params keep PyTorch's names."""
    if not dynamic_shapes:
        return []
    leaves, _ = pytree.tree_flatten_with_path((tuple(args), kwargs or {}))
    phs = _user_placeholders(ep)
    if len(leaves) != len(phs):
        warnings.warn("onnxc: %d inputs but %d user inputs in the program; "
                      "dims keep PyTorch's names" % (len(leaves), len(phs)))
        return []
    if fn is None:  # an ExportedProgram: its module has the signature
        try:
            fn = ep.module().forward
        except Exception:
            fn = None
    params = _params(fn) if fn is not None else None
    combined = []
    if params is not None:
        try:
            combined = list(inspect.signature(fn).bind(
                *args, **(kwargs or {})).arguments)
        except TypeError:
            combined = []
    sym2label, order = {}, []
    for (path, _), (ph, fake) in zip(leaves, phs):
        spec, rest = _top(dynamic_shapes, path, params, combined)
        for dim, axis in _axes(_follow(spec, rest)):
            lab = _label(axis)
            e = _expr(fake, dim)
            if lab is None or e is None:
                continue
            label, derived = lab
            syms = list(e.free_symbols)
            if len(syms) != 1 or (not derived and not e.is_Symbol):
                warnings.warn("onnxc: dim %d of '%s' is '%s', not a "
                              "symbol; '%s' is not applied"
                              % (dim, ph, e, label))
                continue
            s = str(syms[0])
            if s in sym2label:
                if sym2label[s] != label:
                    warnings.warn("onnxc: '%s' and '%s' name the same dim "
                                  "(%s); it is named '%s'"
                                  % (sym2label[s], label, s, sym2label[s]))
                continue
            if label in sym2label.values():
                warnings.warn("onnxc: '%s' names two dims PyTorch keeps "
                              "apart; the second keeps its name '%s'"
                              % (label, s))
                continue
            sym2label[s] = label
            order.append(s)
    # each symbol renamed where it stands alone as a dim of an input
    alone = {}
    for ph, fake in phs:
        if not isinstance(fake, torch.Tensor):
            continue
        for d in range(fake.dim()):
            e = _expr(fake, d)
            if e is not None and e.is_Symbol and str(e) not in alone:
                alone[str(e)] = (ph, d)
    out = []
    for s in order:
        if s not in alone:
            warnings.warn("onnxc: no input has '%s' (%s) as a dim of its "
                          "own; it keeps PyTorch's name" % (sym2label[s], s))
            continue
        ph, d = alone[s]
        out.append((ph, d, sym2label[s]))
    return out
