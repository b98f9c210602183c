"""nn modules as models use them, with masks and parametrizations."""
import torch, torch.nn as nn, torch.nn.functional as F

class MHA(nn.Module):
    def __init__(s, **kw):
        super().__init__(); s.m = nn.MultiheadAttention(8, 2, batch_first=True, **kw)
    def forward(s, x, kpm):
        return s.m(x, x, x, key_padding_mask=kpm, need_weights=False)[0]

class MHAW(nn.Module):
    def __init__(s):
        super().__init__(); s.m = nn.MultiheadAttention(8, 2, batch_first=True)
    def forward(s, x, kpm):
        o, w = s.m(x, x, x, key_padding_mask=kpm, attn_mask=torch.ones(5, 5, dtype=torch.bool).triu(1))
        return o, w

class Enc(nn.Module):
    def __init__(s, norm_first=False):
        super().__init__()
        s.m = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True, norm_first=norm_first), 2, enable_nested_tensor=False)
    def forward(s, x, kpm):
        return s.m(x, src_key_padding_mask=kpm)

class Full(nn.Module):
    def __init__(s):
        super().__init__(); s.m = nn.Transformer(8, 2, 1, 1, 16, 0.0, batch_first=True)
    def forward(s, a, b, kpm):
        return s.m(a, b, tgt_mask=nn.Transformer.generate_square_subsequent_mask(b.shape[1]), src_key_padding_mask=kpm, memory_key_padding_mask=kpm)

class Cells(nn.Module):
    def __init__(s):
        super().__init__(); s.l = nn.LSTMCell(4, 6); s.g = nn.GRUCell(4, 6); s.r = nn.RNNCell(4, 6, nonlinearity="relu")
    def forward(s, x):
        h, c = s.l(x); h2 = s.g(x, h); return h, c, h2, s.r(x, h2)

class Param(nn.Module):
    def __init__(s):
        super().__init__()
        s.a = nn.utils.parametrizations.weight_norm(nn.Linear(4, 5))
        s.b = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 3))
        s.c = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3))
    def forward(s, x):
        return s.c(s.b(s.a(x)))

class Misc(nn.Module):
    def __init__(s):
        super().__init__()
        s.bil = nn.Bilinear(4, 3, 2); s.ebag = nn.EmbeddingBag(10, 4, mode="mean")
        s.conv = nn.Conv1d(4, 4, 3, padding="same", dilation=2, padding_mode="reflect")
        s.convc = nn.Conv2d(2, 2, 3, padding=1, padding_mode="circular")
        s.ct = nn.ConvTranspose2d(2, 3, 3, stride=2, groups=1)
        s.lp = nn.LPPool2d(2, 2)
    def forward(s, x, y, idx, off, img):
        return (s.bil(x, y), s.ebag(idx, off), s.conv(x.T[None]), s.convc(img), s.ct(img, output_size=[9, 9]),
                s.lp(img), F.avg_pool1d(x.T[None], 3, 2, ceil_mode=True, count_include_pad=False))

class Losses(nn.Module):
    def forward(s, x, t, y):
        return (nn.NLLLoss(weight=torch.tensor([1., 2., 0.5, 1.]), ignore_index=1)(x.log_softmax(1), t),
                nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2., 1., 1., .5]))(x, y),
                nn.MultiMarginLoss(p=2, margin=0.5)(x, t), nn.MultiLabelMarginLoss()(x, torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 2]])),
                nn.CosineEmbeddingLoss(0.1)(x, y, torch.tensor([1, -1, 1])), nn.SoftMarginLoss()(x, y * 2 - 1),
                nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance())(x, y, x.flip(0)))

x5 = torch.randn(2, 5, 8)
kpm = torch.tensor([[False] * 5, [False, False, True, True, True]])
kpm_all = torch.tensor([[False] * 5, [True] * 5])
def c(m, *a, **kw):
    return lambda: dict(model=m, samples=[tuple(a)], core=True, pt2=True, **kw)
CASES = {
    "n_mha_kpm": c(MHA(), x5, kpm), "n_mha_kpm_all": c(MHA(), x5, kpm_all), "n_mha_weights": c(MHAW(), x5, kpm),
    "n_mha_bias_kv": c(MHA(add_bias_kv=True, add_zero_attn=True), x5, kpm),
    "n_enc_kpm": c(Enc(), x5, kpm), "n_enc_norm_first": c(Enc(True), x5, kpm),
    "n_transformer": c(Full(), x5, torch.randn(2, 4, 8), kpm),
    "n_cells": c(Cells(), torch.randn(3, 4)), "n_param": c(Param(), torch.randn(3, 4)),
    "n_misc": c(Misc(), torch.randn(3, 4), torch.randn(3, 3), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4]), torch.randn(1, 2, 4, 4)),
    "n_losses": c(Losses(), torch.randn(3, 4), torch.tensor([0, 3, 1]), torch.rand(3, 4)),
}
