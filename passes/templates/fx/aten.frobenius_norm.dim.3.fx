# onnxc template aten::frobenius_norm.dim
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 dim ints 0,1
# arg 2 keepdim bool True
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81]"):
            norm: "f64[1, 1]" = torch.ops.aten.norm.ScalarOpt_dim(ts_0, 2.0, [0, 1], True);  ts_0 = None
            return (norm,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    norm: USER_OUTPUT
