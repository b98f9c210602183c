#!/usr/bin/env python3
"""Does a program say what it computes?  Exports each case of the zoo modules named (tests/gen/zoo)
with the torch of the environment it runs in, runs the program (and its core form) node by node on
the case's last sample, and prints every node whose annotated dtype differs from the dtype the run
computes: an annotation onnxc would follow to a wrong number (torch 2.6's integer true division was
one: passes/retype.c).  Needs ../shared/tools/torch-env:

  PYTHONPATH=$PWD/tests/gen/zoo:$PWD/tests/gen ../shared/tools/torch-env run 2.6 \\
      python3 tools/annotcheck.py cases_user2 cases_user3 ...

Prints 'MODULE.CASE[__core]: node (target) out K: annotated D, computed D' per mismatch and
'SKIP ...' for a case torch cannot export or decompose; exit 1 if any mismatch."""
import importlib
import sys
import warnings

import torch
from torch.fx import Interpreter

warnings.filterwarnings("ignore")


class Check(Interpreter):
    def __init__(self, gm, bad):
        super().__init__(gm)
        self.bad = bad

    def run_node(self, n):
        r = super().run_node(n)
        v = n.meta.get("val")
        outs = r if isinstance(r, (tuple, list)) else [r]
        vals = v if isinstance(v, (tuple, list)) else [v]
        for k, (a, m) in enumerate(zip(outs, vals)):
            if isinstance(a, torch.Tensor) and isinstance(m, torch.Tensor) and a.dtype != m.dtype:
                self.bad.append("%s (%s) out %d: annotated %s, computed %s" % (n.name, n.target, k, m.dtype, a.dtype))
        return r


found = 0
for modname in sys.argv[1:]:
    mod = importlib.import_module(modname)
    for name, build in mod.CASES.items():
        try:
            torch.manual_seed(0)
            spec = build()
            model, samples = spec["model"], spec["samples"]
            model.train(spec.get("train", False))
            ep = torch.export.export(model, samples[0], kwargs=spec.get("kwargs"),
                                     dynamic_shapes=spec.get("dynamic_shapes"), strict=False)
            for form, prog in (("", ep), ("__core", ep.run_decompositions())):
                bad = []
                Check(prog.module(), bad).run(*torch.utils._pytree.tree_leaves(samples[-1]))
                for b in sorted(set(bad)):
                    print("%s.%s%s: %s" % (modname, name, form, b), flush=True)
                    found += 1
        except Exception as e:  # torch's own refusal: not ours to judge
            print("SKIP %s.%s: %s: %s" % (modname, name, type(e).__name__, str(e).splitlines()[0][:120] if str(e) else ""),
                  flush=True)
sys.exit(1 if found else 0)
