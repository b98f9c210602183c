# onnxc template aten::special_erfc.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81]"):
            erfc: "f64[tpl_s44, tpl_s81]" = torch.ops.aten.erfc.default(ts_0);  ts_0 = None
            return (erfc,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    erfc: USER_OUTPUT
