# onnxc template aten::special_log_softmax.default
# torch 2.14.1 decomposition CompositeImplicitAutograd
# arg 0 self tensor
# arg 1 dim int -1
# arg 2 dtype none default
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, ts_0: "f64[tpl_s44, tpl_s81, tpl_s45]"):
            log_softmax: "f64[tpl_s44, tpl_s81, tpl_s45]" = torch.ops.aten.log_softmax.int(ts_0, -1);  ts_0 = None
            return (log_softmax,)
    
Graph signature:
    # inputs
    ts_0: USER_INPUT
    
    # outputs
    log_softmax: USER_OUTPUT
