# onnxc template aten::special_exp2.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81, tpl_s45, tpl_s8]"):
            exp2: "f32[tpl_s44, tpl_s81, tpl_s45, tpl_s8]" = torch.ops.aten.exp2.default(ts_0);  ts_0 = None
            return (exp2,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    exp2: USER_OUTPUT
