# onnxc template aten::divide.Tensor_mode
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 other tensor
# arg 2 rounding_mode str floor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s15]", ts_1: "f64[tpl_s44, tpl_s15]"):
            div: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.div.Tensor_mode(ts_0, ts_1, rounding_mode = 'floor');  ts_0 = ts_1 = None
            return (div,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    div: USER_OUTPUT
