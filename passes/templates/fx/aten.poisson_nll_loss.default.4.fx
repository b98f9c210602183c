# onnxc template aten::poisson_nll_loss.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 input tensor
# arg 1 target tensor
# arg 2 log_input bool True
# arg 3 full bool False
# arg 4 eps float 1e-08
# arg 5 reduction int 2
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s15]", ts_1: "f32[tpl_s44, tpl_s15]"):
            mul: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Tensor(ts_1, ts_0);  ts_1 = None
            exp: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.exp.default(ts_0);  ts_0 = None
            sub_4: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.sub.Tensor(exp, mul);  exp = mul = None
            sum_1: "f32[]" = torch.ops.aten.sum.default(sub_4);  sub_4 = None
            return (sum_1,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    sum_1: USER_OUTPUT
