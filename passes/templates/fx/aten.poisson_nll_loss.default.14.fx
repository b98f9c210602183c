# onnxc template aten::poisson_nll_loss.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 input tensor
# arg 1 target tensor
# arg 2 log_input bool False
# arg 3 full bool False
# arg 4 eps float 1e-08
# arg 5 reduction int 1
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s15]", ts_1: "f32[tpl_s44, tpl_s15]"):
            add: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.add.Scalar(ts_0, 1e-08)
            log: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.log.default(add);  add = None
            mul_4: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Tensor(ts_1, log);  ts_1 = log = None
            sub_6: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.sub.Tensor(ts_0, mul_4);  ts_0 = mul_4 = None
            mean: "f32[]" = torch.ops.aten.mean.default(sub_6);  sub_6 = None
            return (mean,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    mean: USER_OUTPUT
