# onnxc template aten::arcsinh.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81, tpl_s45]"):
            asinh: "f32[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.asinh.default(ts_0);  ts_0 = None
            return (asinh,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    asinh: USER_OUTPUT
