# onnxc template aten::_addmm_activation.default
# torch 2.14.1 decomposition decomposition_table
# arg 0 self tensor
# arg 1 mat1 tensor
# arg 2 mat2 tensor
# arg 3 beta int 1 default
# arg 4 alpha int 1 default
# arg 5 use_gelu bool False default
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44]", ts_1: "f32[tpl_s83, tpl_s15]", ts_2: "f32[tpl_s15, tpl_s44]"):
            mm: "f32[tpl_s83, tpl_s44]" = torch.ops.aten.mm.default(ts_1, ts_2);  ts_1 = ts_2 = None
            mul: "f32[tpl_s83, tpl_s44]" = torch.ops.aten.mul.Tensor(mm, 1);  mm = None
            mul_1: "f32[tpl_s44]" = torch.ops.aten.mul.Tensor(ts_0, 1);  ts_0 = None
            add: "f32[tpl_s83, tpl_s44]" = torch.ops.aten.add.Tensor(mul, mul_1);  mul = mul_1 = None
            relu: "f32[tpl_s83, tpl_s44]" = torch.ops.aten.relu.default(add);  add = None
            return (relu,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    ts_2: USER_INPUT
    
    # outputs
    relu: USER_OUTPUT
