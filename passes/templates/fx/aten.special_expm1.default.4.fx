# onnxc template aten::special_expm1.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81, tpl_s45]"):
            expm1: "f32[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.expm1.default(ts_0);  ts_0 = None
            return (expm1,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    expm1: USER_OUTPUT
