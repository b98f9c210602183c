"""PyTorch 2 export quantization: the Q/DQ ops of quantized_decomposed
(quantize_per_tensor / quantize_per_channel / dequantize_*), as
convert_pt2e leaves them (torch 2.6, which has torch.ao's quantize_pt2e and
XNNPACKQuantizer; 2.14 moved them to torchao) and as a program calls them.
Made with real PyTorch into tests/cases-quant:

    PYTHONPATH=$PWD/tests/gen ../shared/tools/torch-env run 2.6 python3 \\
        ../shared/tools/gen2/gen.py tests/cases-quant cases_qdq 'qdq_pt2e'
    PYTHONPATH=$PWD/tests/gen ../shared/tools/torch-env run 2.14 python3 \\
        ../shared/tools/gen2/gen.py tests/cases-quant cases_qdq 'qdq_ops'
"""
import torch
import torch.nn as nn
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)

qd = torch.ops.quantized_decomposed
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, groups=2)
        self.l = nn.Linear(8, 5)

    def forward(self, x):
        y = torch.relu(self.c1(x))
        y = torch.nn.functional.max_pool2d(y, 2) + 0.5
        y = torch.relu(self.c2(y)).mean((2, 3))
        return self.l(y)


def pt2e(per_channel, dynamic=False):
    from torch.ao.quantization.quantize_pt2e import prepare_pt2e, convert_pt2e
    from torch.ao.quantization.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    m = Net().eval()
    xs = [torch.randn(2, 3, 10, 10) for _ in range(4)]
    g = torch.export.export_for_training(m, (xs[0],)).module()
    q = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(
        is_per_channel=per_channel, is_dynamic=dynamic))
    p = prepare_pt2e(g, q)
    for x in xs:
        p(x)
    c = convert_pt2e(p)
    torch.ao.quantization.allow_exported_model_train_eval(c)  # the case writer calls eval()
    return dict(model=c, samples=[(xs[0],), (torch.randn(2, 3, 10, 10) * 2,)], rtol=1e-5, atol=1e-6)


class ConvBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 6, 3, padding=1)
        self.bn = nn.BatchNorm2d(6)
        self.l = nn.Linear(6, 4)

    def forward(self, x):
        return self.l(torch.relu(self.bn(self.c(x))).mean((2, 3)))


def qat():
    """quantization-aware training (prepare_qat_pt2e), a few steps, then
    convert_pt2e: conv + batch norm folded, per-channel weights"""
    from torch.ao.quantization.quantize_pt2e import prepare_qat_pt2e, convert_pt2e
    from torch.ao.quantization.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    m = ConvBn()
    xs = [torch.randn(4, 3, 8, 8) for _ in range(3)]
    g = torch.export.export_for_training(m, (xs[0],)).module()
    p = prepare_qat_pt2e(g, XNNPACKQuantizer().set_global(get_symmetric_quantization_config(
        is_per_channel=True, is_qat=True)))
    opt = torch.optim.SGD(p.parameters(), lr=0.01)
    for x in xs:
        opt.zero_grad()
        p(x).sum().backward()
        opt.step()
    torch.ao.quantization.move_exported_model_to_eval(p)
    c = convert_pt2e(p)
    torch.ao.quantization.allow_exported_model_train_eval(c)
    # within one step of the output's scale: a float convolution's last bit
    # (ONNX Runtime's order of summation, not PyTorch's) can move a value
    # across a quantization step
    return dict(model=c, samples=[(xs[0][:2],), (torch.randn(2, 3, 8, 8),)], rtol=0, atol=4e-3)


class Ops(nn.Module):
    def forward(self, x, w, s, z, sc, zc):
        a = qd.quantize_per_tensor(x, 0.05, 3, 0, 255, torch.uint8)
        b = qd.quantize_per_tensor(x, 0.1, 0, -127, 127, torch.int8)
        c = qd.quantize_per_tensor.tensor(x, s, z, -128, 127, torch.int8)
        d = qd.quantize_per_channel(w, sc, zc, 0, -128, 127, torch.int8)
        e = qd.quantize_per_channel(x, sc[:4], zc[:4], 1, 0, 255, torch.uint8)
        return (a, b, c, d, e,
                qd.dequantize_per_tensor(a, 0.05, 3, 0, 255, torch.uint8),
                qd.dequantize_per_tensor(b, 0.1, 0, -127, 127, torch.int8, out_dtype=torch.float16),
                qd.dequantize_per_tensor.tensor(c, s, z, -128, 127, torch.int8),
                qd.dequantize_per_channel(d, sc, zc, 0, -128, 127, torch.int8),
                qd.dequantize_per_channel(e, sc[:4], None, -2, 0, 255, torch.uint8),
                qd.dequantize_per_channel(d, sc.double(), zc, 0, -128, 127, torch.int8))


def ops():
    # values on exact halves of the step (round half to even) and out of range
    x = torch.cat([torch.tensor([0.025, 0.075, -0.05, 0.15, 100.0, -100.0, 0.0, 0.125]),
                   torch.randn(40)]).reshape(2, 4, 6)
    return dict(model=Ops(), samples=[(x, torch.randn(6, 3, 2), torch.tensor([0.02]), torch.tensor([-4]),
                                       torch.rand(6) * 0.1 + 0.01, torch.randint(-5, 5, (6,)))],
                rtol=1e-6, atol=1e-6)


class Dyn(nn.Module):
    """dynamic quantization's parameters from the input's range"""
    def forward(self, x, pos, zero):
        outs = []
        for t in (x, pos, zero):
            s, z = qd.choose_qparams.tensor(t, -128, 127, 0.000244140625, torch.int8)
            q = qd.quantize_per_tensor.tensor(t, s, z, -128, 127, torch.int8)
            outs += [s, z, q, qd.dequantize_per_tensor.tensor(q, s, z, -128, 127, torch.int8)]
        return tuple(outs)


CASES = {
    "qdq_pt2e_qat": qat,
    "qdq_pt2e_dynamic": lambda: pt2e(True, dynamic=True),
    "qdq_dynamic_ops": lambda: dict(model=Dyn(), samples=[
        (torch.randn(3, 7) * 3, torch.rand(4, 5) + 0.5, torch.zeros(2, 3))], rtol=1e-6, atol=1e-7),
    "qdq_pt2e_per_tensor": lambda: pt2e(False),
    "qdq_pt2e_per_channel": lambda: pt2e(True),
    "qdq_ops": ops,
}
