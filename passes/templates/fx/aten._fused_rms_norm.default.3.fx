# onnxc template aten::_fused_rms_norm.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 input tensor
# arg 1 normalized_shape ints 5
# arg 2 weight tensor
# arg 3 eps float 1e-06 param
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81, tpl_s45]", ts_1: "f64[tpl_s45]"):
            pow_1: "f64[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.pow.Tensor_Scalar(ts_0, 2)
            mean: "f64[tpl_s44, tpl_s81, 1]" = torch.ops.aten.mean.dim(pow_1, [2], True);  pow_1 = None
            add_8: "f64[tpl_s44, tpl_s81, 1]" = torch.ops.aten.add.Scalar(mean, 1e-06);  mean = None
            rsqrt: "f64[tpl_s44, tpl_s81, 1]" = torch.ops.aten.rsqrt.default(add_8);  add_8 = None
            mul_9: "f64[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.mul.Tensor(ts_0, rsqrt)
            mul_13: "f64[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.mul.Tensor(mul_9, ts_1);  mul_9 = ts_1 = None
            type_as: "f64[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.type_as.default(mul_13, ts_0);  mul_13 = ts_0 = None
            return (type_as, rsqrt)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    type_as: USER_OUTPUT
    rsqrt: USER_OUTPUT
