# onnxc template aten::special_erf.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81, tpl_s45]"):
            erf: "f32[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.erf.default(ts_0);  ts_0 = None
            return (erf,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    erf: USER_OUTPUT
