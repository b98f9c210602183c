# onnxc template aten::special_logsumexp.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 dim ints -1
# arg 2 keepdim bool True
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81, tpl_s45]"):
            logsumexp: "f64[tpl_s44, tpl_s81, 1]" = torch.ops.aten.logsumexp.default(ts_0, [-1], True);  ts_0 = None
            return (logsumexp,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    logsumexp: USER_OUTPUT
