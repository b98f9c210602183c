# onnxc template aten::arccosh.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81]"):
            acosh: "f32[tpl_s44, tpl_s81]" = torch.ops.aten.acosh.default(ts_0);  ts_0 = None
            return (acosh,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    acosh: USER_OUTPUT
