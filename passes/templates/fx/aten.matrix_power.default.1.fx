# onnxc template aten::matrix_power.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 n int 2
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s44]"):
            matmul: "f64[tpl_s44, tpl_s44]" = torch.ops.aten.matmul.default(ts_0, ts_0);  ts_0 = None
            return (matmul,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    matmul: USER_OUTPUT
