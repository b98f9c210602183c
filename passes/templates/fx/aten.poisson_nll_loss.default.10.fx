# onnxc template aten::poisson_nll_loss.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 input tensor
# arg 1 target tensor
# arg 2 log_input bool True
# arg 3 full bool True
# arg 4 eps float 1e-08
# arg 5 reduction int 2
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s15]", ts_1: "f32[tpl_s44, tpl_s15]"):
            mul: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Tensor(ts_1, ts_0)
            exp: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.exp.default(ts_0);  ts_0 = None
            sub_4: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.sub.Tensor(exp, mul);  exp = mul = None
            mul_7: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Scalar(ts_1, 6.283185307179586)
            log: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.log.default(mul_7);  mul_7 = None
            mul_12: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Scalar(log, 0.5);  log = None
            log_1: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.log.default(ts_1)
            mul_17: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Tensor(ts_1, log_1);  log_1 = None
            sub_17: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.sub.Tensor(mul_17, ts_1);  mul_17 = None
            add_27: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.add.Tensor(sub_17, mul_12);  sub_17 = mul_12 = None
            le: "b8[tpl_s44, tpl_s15]" = torch.ops.aten.le.Scalar(ts_1, 1);  ts_1 = None
            masked_fill: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.masked_fill.Scalar(add_27, le, 0);  add_27 = le = None
            add_43: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.add.Tensor(sub_4, masked_fill);  sub_4 = masked_fill = None
            sum_1: "f32[]" = torch.ops.aten.sum.default(add_43);  add_43 = None
            return (sum_1,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    sum_1: USER_OUTPUT
