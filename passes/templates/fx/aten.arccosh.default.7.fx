# onnxc template aten::arccosh.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81, tpl_s45, tpl_s8]"):
            acosh: "f64[tpl_s44, tpl_s81, tpl_s45, tpl_s8]" = torch.ops.aten.acosh.default(ts_0);  ts_0 = None
            return (acosh,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    acosh: USER_OUTPUT
