#!/usr/bin/python3
"""Write tests/cases-diagnose/<name>/: inputs onnxc must refuse, and how (see tests/e2e/run_diagnose.sh).

Each case is a small variation of one valid dump (a linear layer and a relu, torch 2.8+ layout);
expect.txt holds the exit code and the regexes stderr must match.  Weights are deterministic.
usage: /usr/bin/python3 tests/gen/make_diagnose.py [OUTDIR]
"""
import os, shutil, sys
import numpy as np
sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st

# line 4 is the first body line; diagnostics point at it
GOOD = '''ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, p_fc_weight: "f32[4, 8]", p_fc_bias: "f32[4]", x: "f32[2, 8]"):
            permute: "f32[8, 4]" = torch.ops.aten.permute.default(p_fc_weight, [1, 0]);  p_fc_weight = None
            addmm: "f32[2, 4]" = torch.ops.aten.addmm.default(p_fc_bias, x, permute);  p_fc_bias = x = permute = None
            relu: "f32[2, 4]" = torch.ops.aten.relu.default(addmm);  addmm = None
            return (relu,)
            
Graph signature: 
    # inputs
    p_fc_weight: PARAMETER target='fc.weight'
    p_fc_bias: PARAMETER target='fc.bias'
    x: USER_INPUT
    
    # outputs
    relu: USER_OUTPUT
    
Range constraints: {}
'''

UNKNOWN = '''ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[2, 8]"):
            bar: "f32[2, 8]" = torch.ops.aten.foo.bar(x);  x = None
            relu: "f32[2, 8]" = torch.ops.aten.relu.default(bar);  bar = None
            return (relu,)
            
Graph signature: 
    # inputs
    x: USER_INPUT
    
    # outputs
    relu: USER_OUTPUT
    
Range constraints: {}
'''

TWO_UNKNOWN = '''ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[2, 8]"):
            bar: "f32[2, 8]" = torch.ops.aten.foo.bar(x);  x = None
            baz: "f32[2, 8]" = torch.ops.mylib.baz.default(bar, 3);  bar = None
            relu: "f32[2, 8]" = torch.ops.aten.relu.default(baz);  baz = None
            bar_1: "f32[2, 8]" = torch.ops.aten.foo.bar(relu);  relu = None
            return (bar_1,)
            
Graph signature: 
    # inputs
    x: USER_INPUT
    
    # outputs
    bar_1: USER_OUTPUT
    
Range constraints: {}
'''

GM_CODE = '''


def forward(self, p_fc_weight, p_fc_bias, x):
    permute = torch.ops.aten.permute.default(p_fc_weight, [1, 0]);  p_fc_weight = None
    addmm = torch.ops.aten.addmm.default(p_fc_bias, x, permute);  p_fc_bias = x = permute = None
    relu = torch.ops.aten.relu.default(addmm);  addmm = None
    return (relu,)
    '''

rng = np.random.default_rng(0)
W = rng.standard_normal((4, 8)).astype(np.float32)
B = rng.standard_normal(4).astype(np.float32)
GOOD_W = {"fc.weight": W, "fc.bias": B}


def case(out, name, expect, graph=GOOD, weights=GOOD_W, args=None, raw_weights=None):
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    if graph is not None:
        with open(os.path.join(d, "graph.txt"), "w") as f:
            f.write(graph)
    if raw_weights is not None:
        with open(os.path.join(d, "weights.safetensors"), "wb") as f:
            f.write(raw_weights)
    elif weights is not None:
        st.save(os.path.join(d, "weights.safetensors"), weights)
    if args is not None:
        with open(os.path.join(d, "args"), "w") as f:
            f.write("\n".join(args) + "\n")
    with open(os.path.join(d, "expect.txt"), "w") as f:
        f.write("\n".join(str(x) for x in expect) + "\n")
    print("  " + name)


def safetensors_bytes(tensors):
    tmp = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".tmp.safetensors")
    st.save(tmp, tensors)
    with open(tmp, "rb") as f:
        data = f.read()
    os.remove(tmp)
    return data


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "cases-diagnose")
    os.makedirs(out, exist_ok=True)
    # the control: the dump every other case varies converts cleanly
    case(out, "control_converts", [0])
    case(out, "unknown_op", [1, r"graph\.txt:4:\d+: error: unsupported operator 'aten::foo\.bar'"],
         graph=UNKNOWN, weights=None)
    # every unsupported op is reported (each once, at its first use), not just the first
    case(out, "two_unknown_ops", [1, r"graph\.txt:4:\d+: error: unsupported operator 'aten::foo\.bar'",
                                  r"graph\.txt:5:\d+: error: unsupported operator 'mylib::baz\.default'"],
         graph=TWO_UNKNOWN, weights=None)
    case(out, "missing_weight", [1, r"error:.*fc\.bias"], weights={"fc.weight": W})
    case(out, "weight_wrong_shape", [1, r"error:.*fc\.weight", r"error:.*(?i)(shape|8, ?4|dims|size)"],
         weights={"fc.weight": W.T.copy(), "fc.bias": B})
    case(out, "weight_wrong_dtype", [1, r"error:.*fc\.weight", r"error:.*(?i)(dtype|type|f64|float64|double)"],
         weights={"fc.weight": W.astype(np.float64), "fc.bias": B})
    good = safetensors_bytes(GOOD_W)
    # header intact, tensor bytes cut short: offsets point past the end of the file
    case(out, "truncated_safetensors", [1, r"weights\.safetensors: error:|error:.*(weights\.safetensors|fc\.bias)"],
         raw_weights=good[:len(good) - 20])
    # the 8-byte header length promises more JSON than the file holds
    case(out, "truncated_safetensors_header", [1, r"weights\.safetensors: error:|error:.*weights\.safetensors"],
         raw_weights=good[:40])
    # one mistake, one error: the valid lines after it must not be reported too
    case(out, "unterminated_string", [1, r"graph\.txt:5:\d+: error:.*(?i)(unterminated|string|quote|\")",
                                      r"!graph\.txt:[67]:\d+: error:"],
         graph=GOOD.replace('addmm: "f32[2, 4]" =', 'addmm: "f32[2, 4] ='))
    # gm.code: plain Python without annotations; nothing says what x is
    case(out, "gm_code_no_types", [1, r"graph\.txt:\d+:\d+: error:.*(?i)(type|annotat|shape)"], graph=GM_CODE)
    case(out, "empty_file", [1, r"graph\.txt(:\d+:\d+)?: error:.*(?i)(empty|no graph|no forward|end of (file|input)|expected)"], graph="", weights=None)
    case(out, "bad_flag", [2, r"--frobnicate"], args=["@DIR@/graph.txt", "--weights", "@DIR@/weights.safetensors",
                                                      "--frobnicate", "-o", "@OUT@"])
    case(out, "opset_99", [2, r"(?i)opset", r"99"], args=["@DIR@/graph.txt", "--weights",
                                                          "@DIR@/weights.safetensors", "--opset", "99", "-o", "@OUT@"])
    case(out, "missing_input_file", [1, r"error:.*no-such-graph\.txt|no-such-graph\.txt.*error:",
                                         r"(?i)(no such|cannot|can't|could not|unable|not found|open|read)"], graph=None,
         weights=None, args=["@DIR@/no-such-graph.txt", "-o", "@OUT@"])
    case(out, "missing_weights_file", [1, r"error:.*no-such-weights\.safetensors|no-such-weights\.safetensors.*error:",
                                           r"(?i)(no such|cannot|can't|could not|unable|not found|open|read)"],
         weights=None, args=["@DIR@/graph.txt", "--weights", "@DIR@/no-such-weights.safetensors", "-o", "@OUT@"])


if __name__ == "__main__":
    main()
