# onnxc template aten::not_equal.Scalar
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 other float 0.5
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81, tpl_s45]"):
            ne: "b8[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.ne.Scalar(ts_0, 0.5);  ts_0 = None
            return (ne,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    ne: USER_OUTPUT
