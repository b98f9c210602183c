#!/usr/bin/env python3
"""gen_templates.py - PyTorch's own decompositions as onnxc templates.

Run in torch-env (real PyTorch):

    /work/shared/tools/torch-env run 2.14 python3 tools/gen_templates.py OUTDIR
        [--onnxc build/onnxc] [--only aten::foo.default ...]

For each ATen overload of OPS below, traces PyTorch's decomposition of it
(torch._decomp.decomposition_table, else the CompositeImplicitAutograd
kernel through OpOverload.decompose) with torch.export, every tensor dim a
Dim.DYNAMIC, and writes OUTDIR/<op>.<k>.fx: a header of '#' lines, then
print(exported_program) as the frontend reads any dump.  The header says
what the template applies to, so the templates pass (passes/templates)
inlines it only in place of a node whose non-tensor arguments are those:

    # onnxc template aten::special_logit.default
    # torch 2.14.1 decomposition CompositeImplicitAutograd
    # arg 0 self tensor
    # arg 1 eps float 1e-06
    # arg 2 out none default       (default: the node may omit it)

Kinds: tensor (a placeholder, in order), int, float, bool, none, str,
ints (comma-separated).  A float the body holds only as its own literal
(checked by tracing again at other values) is a parameter:

    # arg 3 eps float 1e-06 param

and the pass puts the node's number in the literal's place.  Symbols are renamed tpl_sN so that they never
meet a program's own, and the range constraints are dropped (the node's
own sizes are bound in their place).  With --onnxc, a template whose ops
onnxc cannot lower (no rule, no decomposition, no other template) is
reported and not written.  A rerun on the next PyTorch release follows its
decompositions; the files are committed (passes/templates/fx/) and
embedded into templates.so by CMake.
"""
import argparse
import os
import re
import subprocess
import sys

import torch
from torch.export import Dim, export
from torch._decomp import decomposition_table

aten = torch.ops.aten


def R(*s):
    """a float tensor in (0.1, 0.9): valid for logit, acosh(1 + x)..."""
    return ("rand", s)


# (overload, samples): each sample a list of arguments; ("rand", shape) is
# a float32 tensor input, anything else a literal argument.  One template
# per sample: a sample per rank the op is met at.
# Aliases (torch.divide, torch.special.expit, ...) are not here: the
# decompose pass names their target (passes/decompose/alias.c), which takes
# every rank, dtype and broadcast where a template takes one of each.
OPS = [
    ("aten::frobenius_norm.dim",
     [[R(3, 5), [0, 1]], [R(3, 5), [0, 1], True], [R(2, 3, 5), [1, 2]],
      [R(2, 3, 5), [-2, -1]]]),
    ("aten::_euclidean_dist.default", [[R(3, 5), R(7, 5)],
                                       [R(2, 3, 5), R(2, 7, 5)]]),
    ("aten::special_xlogy.other_scalar", [[R(3, 5), 2.0], [R(2, 3, 5), 2.0]]),
    ("aten::_addmm_activation.default",
     [[R(5), R(3, 4), R(4, 5)], [R(5), R(3, 4), R(4, 5), 1, 1, True],
      [R(3, 5), R(3, 4), R(4, 5)]]),
    ("aten::_fused_rms_norm.default",
     [[R(3, 5), [5], R(5), 1e-06], [R(2, 3, 5), [5], R(5), 1e-06],
      [R(3, 5), [5], R(5), None]]),
]


def kind_of(v):
    if v is None:
        return "none", ""
    if isinstance(v, bool):
        return "bool", "True" if v else "False"
    if isinstance(v, int):
        return "int", str(v)
    if isinstance(v, float):
        return "float", repr(v)
    if isinstance(v, str):
        return "str", v
    if isinstance(v, (list, tuple)) and all(isinstance(x, int) and
                                            not isinstance(x, bool)
                                            for x in v):
        return "ints", ",".join(str(x) for x in v)
    raise ValueError("argument %r has no header kind" % (v,))


def same(a, b):
    return type(a) is type(b) and a == b or \
        (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and
         list(a) == list(b))


def decomposition(op):
    """PyTorch's decomposition of op, as torch.export applies it: the
    table run_decompositions starts from (the core ATen decompositions and
    the CompositeImplicitAutograd kernels), else torch._decomp's."""
    t = torch.export.default_decompositions()
    if op in t:
        cia = torch._C._dispatch_has_kernel_for_dispatch_key(
            op.name(), "CompositeImplicitAutograd")
        return t[op], ("CompositeImplicitAutograd" if cia else
                       "core_aten_decompositions")
    if op in decomposition_table:
        return decomposition_table[op], "decomposition_table"
    return None, None


def header(name, src, op, sample, params=()):
    lines = ["# onnxc template %s" % name,
             "# torch %s decomposition %s" % (torch.__version__.split("+")[0],
                                               src)]
    schema = op._schema
    for i, a in enumerate(schema.arguments):
        if i < len(sample):
            v = sample[i]
        elif a.has_default_value():
            v = a.default_value
        else:
            raise ValueError("no value for argument %s" % a.name)
        if isinstance(v, tuple) and v and v[0] == "rand":
            lines.append("# arg %d %s tensor" % (i, a.name))
            continue
        k, s = kind_of(v)
        dflt = a.has_default_value() and same(v, a.default_value)
        lines.append(("# arg %d %s %s %s" % (i, a.name, k, s)).rstrip() +
                     (" param" if i in params else "") +
                     (" default" if dflt else ""))
    return lines


SYM = re.compile(r"(?<![A-Za-z0-9_])s(\d+)(?![A-Za-z0-9_])")


def trace(op, fn, sample, dtype):
    tensors = [(torch.rand(*s[1]) * 0.8 + 0.1).to(dtype) for s in sample
               if isinstance(s, tuple) and s and s[0] == "rand"]

    class M(torch.nn.Module):
        def forward(self, *ts):
            it = iter(ts)
            args = [next(it) if isinstance(s, tuple) and s and
                    s[0] == "rand" else s for s in sample]
            # keyword-only parameters by name, as the schema wants them
            pos, kw = [], {}
            for a, v in zip(op._schema.arguments, args):
                if a.kwarg_only:
                    kw[a.name] = v
                else:
                    pos.append(v)
            return op(*pos, **kw)

    # the op itself exported, then only its own decomposition run: the
    # ops it calls stay as PyTorch's training IR has them
    dyn = tuple({d: Dim.DYNAMIC for d in range(t.dim())} for t in tensors)
    ep = export(M(), tuple(tensors), dynamic_shapes=(dyn,))
    ep = ep.run_decompositions({op: fn})
    text = str(ep)
    text = text.split("\nRange constraints:")[0].rstrip() + "\n"
    # the generator's own path and line: no part of the template
    text = "".join(l for l in text.splitlines(True)
                   if not l.lstrip().startswith("# File:"))
    # the symbols a template binds, named apart from any program's
    return SYM.sub(lambda m: "tpl_s" + m.group(1), text)


def literal(v):
    """a float as print(ep) writes it, not inside another number or after a
    minus sign (a decomposition's -v is a number of its own)"""
    return re.compile(r"(?<![\w.\-])" + re.escape(repr(v)) + r"(?![\w.])")


def params_of(op, fn, sample, dtype, body):
    """The float arguments the traced body holds only as their own
    literal, or not at all: traced again at 1.25 v, 0.75 v and -v, the
    bodies are the same but for that literal.  The templates pass puts the node's number
    in its place (any but 0 and +-1, where decompositions branch)."""
    found = []
    for i, v in enumerate(sample):
        if type(v) is not float or v in (0.0, 1.0, -1.0) or v != v or \
                abs(v) == float("inf"):
            continue
        mine = literal(v).sub("<param>", body)
        ok = True
        for w in (v * 1.25, v * 0.75, -v):
            other = list(sample)
            other[i] = w
            try:
                b2 = trace(op, fn, other, dtype)
            except Exception:
                ok = False
                break
            if literal(w).sub("<param>", b2) != mine:
                ok = False
                break
        if ok:
            found.append(i)
    return found


def ops_of(text):
    return set(re.findall(r"torch\.ops\.([a-z_0-9]+)\.([A-Za-z_0-9]+)"
                          r"\.([A-Za-z_0-9]+)\(", text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--onnxc", help="onnxc whose --list-lowerings the "
                    "templates' ops are checked against")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--dtypes", default="float32,float64",
                    help="the float dtypes of the tensor arguments: a "
                    "template per sample and dtype (its placeholders say it)")
    o = ap.parse_args()
    o.dtypes = [getattr(torch, d) for d in o.dtypes.split(",")]
    os.makedirs(o.outdir, exist_ok=True)
    have = None
    if o.onnxc:
        out = subprocess.run([o.onnxc, "--list-lowerings"], check=True,
                             capture_output=True, text=True).stdout
        have = {l.split()[0] for l in out.splitlines()
                if l.split() and l.split()[-1] != "templates"}
    made = {}
    for name, samples in OPS:
        if o.only and name not in o.only:
            continue
        ns, ov = name.split("::")
        base, over = ov.rsplit(".", 1)
        op = getattr(getattr(getattr(torch.ops, ns), base), over)
        fn, src = decomposition(op)
        if fn is None:
            print("%s: no decomposition in torch %s" % (name,
                  torch.__version__), file=sys.stderr)
            continue
        if not samples:
            print("%s: no sample (argument kinds not supported)" % name,
                  file=sys.stderr)
            continue
        k = 0
        for sample, dtype in [(x, d) for x in samples for d in o.dtypes]:
            try:
                body = trace(op, fn, sample, dtype)
                hdr = header(name, src, op, sample,
                             params_of(op, fn, sample, dtype, body))
            except Exception as e:  # one sample's failure skips it
                print("%s %r %s: %s" % (name, sample, dtype,
                      (str(e).splitlines() or [type(e).__name__])[0]),
                      file=sys.stderr)
                continue
            used = {"%s::%s.%s" % t for t in ops_of(body)}
            if name in used:
                print("%s %r: the decomposition calls the op itself" %
                      (name, sample), file=sys.stderr)
                continue
            missing = sorted(u for u in used if have is not None and
                             u not in have and u not in made)
            if missing:
                print("%s %r: onnxc lowers none of %s" % (name, sample,
                      ", ".join(missing)), file=sys.stderr)
                continue
            path = os.path.join(o.outdir, "%s.%d.fx" % (
                name.replace("::", "."), k))
            with open(path, "w") as f:
                f.write("\n".join(hdr) + "\n" + body)
            k += 1
        if k:
            made[name] = k
            print("%s: %d templates (%s)" % (name, k, src))
    return 0


if __name__ == "__main__":
    sys.exit(main())
