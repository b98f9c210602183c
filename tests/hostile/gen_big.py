# Writes a big archive for the scaling test: tests/pt2/mlp's program with
#   nameless N: N nodes without a name whose dump name must be made up
#               (relu, relu_1, ...: FX's namespace), or
#   ranges N:   N range constraints.
# usage: python3 gen_big.py OUT.pt2 nameless|ranges N
import json, os, sys, zipfile

here = os.path.dirname(os.path.abspath(__file__))
out, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
src = zipfile.ZipFile(os.path.join(here, "..", "pt2", "mlp", "model.pt2"))
PROG = "model/models/model.json"
d = json.loads(src.read(PROG))
g = d["graph_module"]["graph"]
if kind == "nameless":
    x = {"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}
    g["nodes"][:0] = [{"target": "torch.ops.aten.relu.default",
                       "inputs": [x], "outputs": [], "metadata": {}}
                      for _ in range(n)]
elif kind == "ranges":
    d["range_constraints"] = {"s%d" % i: {"min_val": 2, "max_val": 64 + i}
                              for i in range(n)}
else:
    sys.exit("kind must be nameless or ranges")
with zipfile.ZipFile(out, "w") as z:
    for i in src.infolist():
        z.writestr(i, json.dumps(d) if i.filename == PROG else
                   src.read(i.filename))
