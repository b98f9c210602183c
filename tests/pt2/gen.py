# Makes the small archives of tests/pt2 with real torch (2.14):
#   cd tests/pt2 && /work/shared/tools/torch-env run 2.14 python3 gen.py
# Each case folder: model.pt2 (torch.export.save), graph.txt (print(ep)),
# weights.safetensors (the same tensors keyed by signature target, for the
# dump).  multi.pt2 holds two programs.
import json, os, struct
import torch
from torch.export import Dim

torch.manual_seed(0)


def safetensors(path, tensors):
    names = {torch.float32: "F32", torch.int64: "I64"}
    header, blobs, off = {}, [], 0
    for k, t in tensors.items():
        b = t.detach().contiguous().numpy().tobytes()
        header[k] = {"dtype": names[t.dtype], "shape": list(t.shape),
                     "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)
        self.register_buffer("scale", torch.rand(4))

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))) * self.scale


class Strided(torch.nn.Module):
    """Weights that are views: a transposed parameter, a sliced buffer."""
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 6).t())
        self.register_buffer("b", torch.arange(20.0)[5:9])

    def forward(self, x):
        return x @ self.w + self.b


class Dyn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        y = self.fc(x)
        return y.reshape(x.shape[0] * 3), torch.nn.functional.softmax(y, -1)


class HistDD(torch.nn.Module):
    """histogramdd's (Tensor hist, Tensor[] bin_edges): a list inside the
    tuple, flattened into the node's outputs by both readers."""
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.rand(12))

    def forward(self, x):
        h, edges = torch.histogramdd(x, bins=[2, 3], weight=self.w)
        return (h, *edges)


def case(name, mod, args, **kw):
    ep = torch.export.export(mod.eval(), args, **kw)
    os.makedirs(name, exist_ok=True)
    torch.export.save(ep, f"{name}/model.pt2")
    with open(f"{name}/graph.txt", "w") as f:
        f.write(str(ep))
    sig = ep.graph_signature
    ts = {}
    for spec in sig.input_specs:
        if spec.target is not None:
            ts[spec.target] = (ep.state_dict.get(spec.target)
                               if spec.target in ep.state_dict
                               else ep.constants[spec.target])
    safetensors(f"{name}/weights.safetensors", ts)
    return ep


a = case("mlp", Mlp(), (torch.randn(2, 8),))
case("strided", Strided(), (torch.randn(3, 6),))
case("dynamic", Dyn(), (torch.randn(5, 4),),
     dynamic_shapes={"x": {0: Dim("batch", min=2, max=64)}})
case("histogramdd", HistDD(), (torch.randn(12, 2),))
b = torch.export.export(Strided().eval(), (torch.randn(3, 6),))
from torch.export.pt2_archive._package import package_pt2
package_pt2("multi.pt2", exported_programs={"first": a, "second": b})
