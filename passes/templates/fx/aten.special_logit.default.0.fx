# onnxc template aten::special_logit.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 eps none default
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f32[tpl_s44, tpl_s81]"):
            logit: "f32[tpl_s44, tpl_s81]" = torch.ops.aten.logit.default(ts_0);  ts_0 = None
            return (logit,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    logit: USER_OUTPUT
