#!/usr/bin/env python3
"""training_check.py MODEL.onnx CASE_DIR exact|onnx: the structure of a --training export.

- one ONNX Dropout per dropout site of the dump (dropout ops with train=True and p > 0, attention
  with dropout_p > 0), each with training_mode a constant true and ratio the site's p;
- every key of weights.safetensors is an initializer of that name with the same bytes, and no
  other initializer comes from state; the graph inputs are the dump's user inputs;
- batch norm in training mode: "exact" wants no BatchNormalization at all (batch statistics are
  computed), "onnx" wants one BatchNormalization(training_mode=1) per batch norm of the dump.
"""
import json, re, struct, sys
import onnx
from onnx import numpy_helper

model, case, bn_mode = sys.argv[1], sys.argv[2], sys.argv[3]
m = onnx.load(model)
g = m.graph
text = open(f"{case}/graph.txt").read()
errors = []

consts = {}
for n in g.node:
    if n.op_type == "Constant":
        consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
for t in g.initializer:
    consts.setdefault(t.name, numpy_helper.to_array(t))

# dropout sites of the dump
sites = []
for mt in re.finditer(r"torch\.ops\.aten\.(\w*dropout)\.default\(\w+, ([0-9.e-]+), True\)", text):
    if float(mt.group(2)) > 0:
        sites.append(float(mt.group(2)))
for mt in re.finditer(r"torch\.ops\.aten\.scaled_dot_product_attention\.default\(([^)]*)\)", text):
    args = [a.strip() for a in mt.group(1).split(",")]
    pos = [a for a in args if "=" not in a]
    kw = dict(a.split("=", 1) for a in args if "=" in a)
    p = float(kw.get("dropout_p", pos[4] if len(pos) > 4 else 0))
    if p > 0:
        sites.append(p)
drops = [n for n in g.node if n.op_type == "Dropout"]
if len(drops) != len(sites):
    errors.append(f"{len(drops)} Dropout nodes for {len(sites)} dropout sites")
for n in drops:
    if len(n.input) < 3 or n.input[2] not in consts or not bool(consts[n.input[2]]):
        errors.append(f"Dropout {n.name}: training_mode is not a constant true")
    if len(n.input) < 2 or n.input[1] not in consts:
        errors.append(f"Dropout {n.name}: ratio is not a constant")
got = sorted(round(float(consts[n.input[1]]), 6) for n in drops if len(n.input) > 1 and n.input[1] in consts)
if got != sorted(round(p, 6) for p in sites):
    errors.append(f"dropout ratios {got} differ from the dump's {sorted(sites)}")

# state: names and bytes
try:
    raw = open(f"{case}/weights.safetensors", "rb").read()
    hl = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + hl])
    header.pop("__metadata__", None)
except FileNotFoundError:
    header, raw, hl = {}, b"", 0
inits = {t.name: t for t in g.initializer}
for key, info in header.items():
    t = inits.get(key)
    if t is None:
        errors.append(f"state '{key}' is not an initializer")
        continue
    a, b = info["data_offsets"]
    want = raw[8 + hl + a:8 + hl + b]
    if numpy_helper.to_array(t).tobytes() != want:
        errors.append(f"initializer '{key}' does not hold the state's bytes")
inputs = [i.name for i in g.input]
user = json.load(open(f"{case}/case.json"))["inputs"]
if inputs != user:
    errors.append(f"graph inputs {inputs}, expected the user inputs {user}")

nbn = len(re.findall(r"torch\.ops\.aten\.batch_norm\.default\(.*, True, [0-9.e-]+, [0-9.e-]+, \w+\)", text))
bns = [n for n in g.node if n.op_type == "BatchNormalization"]
if bn_mode == "exact" and bns:
    errors.append(f"{len(bns)} BatchNormalization nodes; batch statistics expected")
if bn_mode == "onnx":
    if len(bns) != nbn:
        errors.append(f"{len(bns)} BatchNormalization nodes for {nbn} batch norms")
    for n in bns:
        mode = [a.i for a in n.attribute if a.name == "training_mode"]
        if mode != [1]:
            errors.append(f"BatchNormalization {n.name} is not in training mode")
if errors:
    print(f"{model}: " + "; ".join(errors[:6]))
    sys.exit(1)
