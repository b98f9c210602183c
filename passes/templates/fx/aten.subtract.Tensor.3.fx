# onnxc template aten::subtract.Tensor
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 other tensor
# arg 2 alpha int 1 default
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s15]", ts_1: "f64[tpl_s44, tpl_s15]"):
            sub: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.sub.Tensor(ts_0, ts_1);  ts_0 = ts_1 = None
            return (sub,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    sub: USER_OUTPUT
