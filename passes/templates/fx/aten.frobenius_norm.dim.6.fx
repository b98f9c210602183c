# onnxc template aten::frobenius_norm.dim
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 dim ints -2,-1
# arg 2 keepdim bool False default
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81, tpl_s45]"):
            norm: "f32[tpl_s44]" = torch.ops.aten.norm.ScalarOpt_dim(ts_0, 2.0, [-2, -1]);  ts_0 = None
            return (norm,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    norm: USER_OUTPUT
