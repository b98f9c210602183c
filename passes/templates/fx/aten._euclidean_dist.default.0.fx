# onnxc template aten::_euclidean_dist.default
# torch 2.14.1 decomposition core_aten_decompositions
# arg 0 x1 tensor
# arg 1 x2 tensor
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s15]", ts_1: "f32[tpl_s83, tpl_s15]"):
            pow_1: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.pow.Tensor_Scalar(ts_0, 2)
            sum_1: "f32[tpl_s44, 1]" = torch.ops.aten.sum.dim_IntList(pow_1, [-1], True);  pow_1 = None
            ones_like: "f32[tpl_s44, 1]" = torch.ops.aten.ones_like.default(sum_1, pin_memory = False, memory_format = torch.contiguous_format)
            pow_2: "f32[tpl_s83, tpl_s15]" = torch.ops.aten.pow.Tensor_Scalar(ts_1, 2)
            sum_2: "f32[tpl_s83, 1]" = torch.ops.aten.sum.dim_IntList(pow_2, [-1], True);  pow_2 = None
            ones_like_1: "f32[tpl_s83, 1]" = torch.ops.aten.ones_like.default(sum_2, pin_memory = False, memory_format = torch.contiguous_format)
            mul: "f32[tpl_s44, tpl_s15]" = torch.ops.aten.mul.Tensor(ts_0, -2);  ts_0 = None
            cat: "f32[tpl_s44, tpl_s15 + 2]" = torch.ops.aten.cat.default([mul, sum_1, ones_like], -1);  mul = sum_1 = ones_like = None
            cat_1: "f32[tpl_s83, tpl_s15 + 2]" = torch.ops.aten.cat.default([ts_1, ones_like_1, sum_2], -1);  ts_1 = ones_like_1 = sum_2 = None
            transpose: "f32[tpl_s15 + 2, tpl_s83]" = torch.ops.aten.transpose.int(cat_1, -2, -1);  cat_1 = None
            matmul: "f32[tpl_s44, tpl_s83]" = torch.ops.aten.matmul.default(cat, transpose);  cat = transpose = None
            clamp_min: "f32[tpl_s44, tpl_s83]" = torch.ops.aten.clamp_min.default(matmul, 0);  matmul = None
            sqrt: "f32[tpl_s44, tpl_s83]" = torch.ops.aten.sqrt.default(clamp_min);  clamp_min = None
            return (sqrt,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    ts_1: USER_INPUT
    
    # outputs
    sqrt: USER_OUTPUT
