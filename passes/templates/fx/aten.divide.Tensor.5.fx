# onnxc template aten::divide.Tensor
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 other tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s15, tpl_s45]", ts_1: "f64[tpl_s44, tpl_s15, tpl_s45]"):
            div: "f64[tpl_s44, tpl_s15, tpl_s45]" = torch.ops.aten.div.Tensor(ts_0, ts_1);  ts_0 = ts_1 = None
            return (div,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    div: USER_OUTPUT
