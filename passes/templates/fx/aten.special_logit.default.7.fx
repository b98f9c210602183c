# onnxc template aten::special_logit.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 eps float 1e-06
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81, tpl_s45]"):
            logit: "f64[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.logit.default(ts_0, 1e-06);  ts_0 = None
            return (logit,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    logit: USER_OUTPUT
