# onnxc template aten::special_expit.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81, tpl_s45, tpl_s8]"):
            sigmoid: "f64[tpl_s44, tpl_s81, tpl_s45, tpl_s8]" = torch.ops.aten.sigmoid.default(ts_0);  ts_0 = None
            return (sigmoid,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    sigmoid: USER_OUTPUT
