# onnxc template aten::poisson_nll_loss.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 input tensor
# arg 1 target tensor
# arg 2 log_input bool False
# arg 3 full bool True
# arg 4 eps float 1e-08
# arg 5 reduction int 0
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s15]", ts_1: "f64[tpl_s44, tpl_s15]"):
            add: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.add.Scalar(ts_0, 1e-08)
            log: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.log.default(add);  add = None
            mul_4: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Tensor(ts_1, log);  log = None
            sub_6: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.sub.Tensor(ts_0, mul_4);  ts_0 = mul_4 = None
            mul_9: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Scalar(ts_1, 6.283185307179586)
            log_1: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.log.default(mul_9);  mul_9 = None
            mul_14: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Scalar(log_1, 0.5);  log_1 = None
            log_2: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.log.default(ts_1)
            mul_19: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Tensor(ts_1, log_2);  log_2 = None
            sub_19: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.sub.Tensor(mul_19, ts_1);  mul_19 = None
            add_31: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.add.Tensor(sub_19, mul_14);  sub_19 = mul_14 = None
            le: "b8[tpl_s44, tpl_s15]" = torch.ops.aten.le.Scalar(ts_1, 1);  ts_1 = None
            masked_fill: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.masked_fill.Scalar(add_31, le, 0);  add_31 = le = None
            add_47: "f64[tpl_s44, tpl_s15]" = torch.ops.aten.add.Tensor(sub_6, masked_fill);  sub_6 = masked_fill = None
            return (add_47,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    add_47: USER_OUTPUT
