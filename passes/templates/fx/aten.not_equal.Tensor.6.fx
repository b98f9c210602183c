# onnxc template aten::not_equal.Tensor
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 other tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s15, tpl_s45, tpl_s68]", ts_1: "f32[tpl_s44, tpl_s15, tpl_s45, tpl_s68]"):
            ne: "b8[tpl_s44, tpl_s15, tpl_s45, tpl_s68]" = torch.ops.aten.ne.Tensor(ts_0, ts_1);  ts_0 = ts_1 = None
            return (ne,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    ne: USER_OUTPUT
