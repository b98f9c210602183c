# onnxc template aten::det.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s44]"):
            linalg_det: "f32[]" = torch.ops.aten.linalg_det.default(ts_0);  ts_0 = None
            return (linalg_det,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    linalg_det: USER_OUTPUT
