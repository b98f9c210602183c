# onnxc template aten::arctanh.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81]"):
            atanh: "f32[tpl_s44, tpl_s81]" = torch.ops.aten.atanh.default(ts_0);  ts_0 = None
            return (atanh,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    atanh: USER_OUTPUT
