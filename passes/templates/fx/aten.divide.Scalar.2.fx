# onnxc template aten::divide.Scalar
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 other float 2.5
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81, tpl_s45]"):
            div: "f32[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.div.Scalar(ts_0, 2.5);  ts_0 = None
            return (div,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    div: USER_OUTPUT
