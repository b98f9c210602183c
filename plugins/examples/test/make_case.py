#!/usr/bin/python3
"""Write the example's test case next to this script: graph.txt (a print(ExportedProgram) dump, torch
2.8+ layout, calling torch.ops.mylib.rms_norm.default), weights.safetensors, io.safetensors
(input '0/in/x', reference output '0/out/0') and case.json.

The model is  y = linear(rms_norm(x, w, eps), proj_w, proj_b)  with mylib::rms_norm defined as
x * rsqrt(mean(x^2, -1, keepdim) + eps) * w; the reference is computed with torch ops (torch 1.13
has no torch.export, so the dump is written out here).  Deterministic (seeded).

usage: /usr/bin/python3 make_case.py
"""
import json, os, struct
import torch

here = os.path.dirname(os.path.abspath(__file__))
ST = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64"}


def save(path, tensors):
    """safetensors: u64 header length, JSON header, raw little-endian bytes."""
    hdr, blobs, off = {}, [], 0
    for k, t in tensors.items():
        raw = t.contiguous().numpy().tobytes()
        hdr[k] = {"dtype": ST[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


GRAPH = '''ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, p_norm_weight: "f32[16]", p_proj_weight: "f32[8, 16]", p_proj_bias: "f32[8]", x: "f32[2, 5, 16]"):
            rms_norm: "f32[2, 5, 16]" = torch.ops.mylib.rms_norm.default(x, p_norm_weight, 1e-06);  x = p_norm_weight = None
            permute: "f32[16, 8]" = torch.ops.aten.permute.default(p_proj_weight, [1, 0]);  p_proj_weight = None
            view: "f32[10, 16]" = torch.ops.aten.view.default(rms_norm, [10, 16]);  rms_norm = None
            addmm: "f32[10, 8]" = torch.ops.aten.addmm.default(p_proj_bias, view, permute);  p_proj_bias = view = permute = None
            view_1: "f32[2, 5, 8]" = torch.ops.aten.view.default(addmm, [2, 5, 8]);  addmm = None
            return (view_1,)
            
Graph signature: 
    # inputs
    p_norm_weight: PARAMETER target='norm.weight'
    p_proj_weight: PARAMETER target='proj.weight'
    p_proj_bias: PARAMETER target='proj.bias'
    x: USER_INPUT
    
    # outputs
    view_1: USER_OUTPUT
    
Range constraints: {}
'''


def main():
    torch.manual_seed(0)
    w = torch.rand(16) + 0.5
    pw, pb = torch.randn(8, 16) * 0.25, torch.randn(8)
    x = torch.randn(2, 5, 16) * 3
    eps = 1e-6
    with torch.no_grad():
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
        y = torch.nn.functional.linear(y, pw, pb)
    with open(os.path.join(here, "graph.txt"), "w") as f:
        f.write(GRAPH)
    save(os.path.join(here, "weights.safetensors"),
         {"norm.weight": w, "proj.weight": pw, "proj.bias": pb})
    save(os.path.join(here, "io.safetensors"), {"0/in/x": x, "0/out/0": y})
    meta = {"name": "mylib_rms_norm", "source": "plugins/examples/test/make_case.py",
            "format": "print(ExportedProgram), torch 2.8+ layout", "rtol": 1e-4, "atol": 1e-5,
            "samples": 1, "symbols": [], "sizes": [{}], "inputs": ["x"], "outputs": 1,
            "expect": "pass"}
    with open(os.path.join(here, "case.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
