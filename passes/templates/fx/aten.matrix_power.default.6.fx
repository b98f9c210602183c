# onnxc template aten::matrix_power.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 n int 3
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s45, tpl_s45]"):
            matmul: "f32[tpl_s44, tpl_s45, tpl_s45]" = torch.ops.aten.matmul.default(ts_0, ts_0)
            matmul_1: "f32[tpl_s44, tpl_s45, tpl_s45]" = torch.ops.aten.matmul.default(matmul, ts_0);  matmul = ts_0 = None
            return (matmul_1,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    matmul_1: USER_OUTPUT
