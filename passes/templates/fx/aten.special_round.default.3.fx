# onnxc template aten::special_round.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 decimals int 0 default
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81]"):
            round_1: "f64[tpl_s44, tpl_s81]" = torch.ops.aten.round.decimals(ts_0, decimals = 0);  ts_0 = None
            return (round_1,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    round_1: USER_OUTPUT
