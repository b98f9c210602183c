"""Structured ops lowered directly (tests/cases-ops): recurrent layers,
EmbeddingBag, unfold, pooling variants, the edge cases ONNX Runtime refused.
Made with real PyTorch 2.14, training IR (what torch.export.export gives):

    PYTHONPATH=$PWD/tests/gen ../shared/tools/torch-env run 2.14 python3 \
        ../shared/tools/gen2/gen.py tests/cases-ops cases_ops [NAME_REGEX...]
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), core=False, pt2=False, **kw)


class Fn(nn.Module):
    """A module around one function of its inputs."""
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
    def forward(self, *xs):
        return self.fn(*xs)


class ConvT(nn.Module):
    """output_padding of 3 at stride 2 (allowed because dilation is 4)."""
    def __init__(self, nd):
        super().__init__()
        cls = [nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d][nd - 1]
        self.a = cls(2, 3, 3, stride=2, padding=1, output_padding=3, dilation=4)
        self.b = cls(2, 3, 2, stride=2, padding=2, output_padding=1, dilation=3)
    def forward(self, x):
        return self.a(x), self.b(x)


class Rnn(nn.Module):
    """A recurrent layer; h0 (and c0) as inputs when given."""
    def __init__(self, cls, states=False, **kw):
        super().__init__()
        self.rnn = cls(**kw)
        self.states = states
    def forward(self, x, *h):
        if not self.states:
            return self.rnn(x)
        return self.rnn(x, h if len(h) > 1 else h[0])


class Bags(nn.Module):
    """nn.EmbeddingBag in each mode: 1-D indices with offsets (an empty bag
    among them), 2-D indices, per_sample_weights, padding_idx."""
    def __init__(self):
        super().__init__()
        self.sum = nn.EmbeddingBag(10, 3, mode="sum")
        self.mean = nn.EmbeddingBag(10, 3, mode="mean", padding_idx=4)
        self.max = nn.EmbeddingBag(10, 3, mode="max", include_last_offset=True)
        self.maxpad = nn.EmbeddingBag(10, 3, mode="max", padding_idx=2)
    def forward(self, idx, off, idx2, psw):
        return (self.sum(idx, off, per_sample_weights=psw), self.mean(idx, off),
                self.max(idx, off), self.maxpad(idx2), self.mean(idx2))


class BagOutputs(nn.Module):
    """All four outputs of aten::_embedding_bag (offset2bag, bag_size and
    max_indices are what its backward reads)."""
    def __init__(self, mode, pad):
        super().__init__()
        self.w = nn.Parameter(torch.randn(10, 3))
        self.mode, self.pad = mode, pad
    def forward(self, idx, off):
        return torch.ops.aten._embedding_bag(self.w, idx, off, False, self.mode, False, None,
                                             False, self.pad)


class MaxNorm(nn.Module):
    """max_norm: the rows looked up are renormed (in place) first."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 3, max_norm=1.0)
        self.bag = nn.EmbeddingBag(10, 3, max_norm=1.5, norm_type=1.0, mode="mean")
    def forward(self, i, o):
        return self.emb(i), self.bag(i, o)


BAG_IN = (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 4, 4]), torch.tensor([0, 4, 4, 8]),
          torch.tensor([[1, 2, 2], [4, 0, 3], [2, 2, 2]]), torch.rand(10))

CASES = {
    "pixel_unshuffle_empty": lambda: case(
        # eager PyTorch returns an empty input unchanged, where its export
        # says [N, C*r*r, H/r, W/r]: only r=1 is the same in both
        Fn(lambda x, y, z: (F.pixel_unshuffle(x, 1), F.pixel_unshuffle(y, 1),
                            F.pixel_unshuffle(z, 2))),
        (torch.randn(2, 3, 0, 4), torch.randn(1, 1, 4, 0), torch.randn(2, 3, 4, 6))),
    "conv_transpose_outpad": lambda: case(ConvT(2), (torch.randn(1, 2, 5, 4),)),
    "conv_transpose_outpad_1d3d": lambda: case(
        Fn(lambda x, y: (ConvT1(x), ConvT3(y))), (torch.randn(1, 2, 5), torch.randn(1, 2, 3, 4, 2))),
    "lstm_bi_2layer": lambda: case(
        Rnn(nn.LSTM, input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
        (torch.randn(5, 2, 3),)),
    "lstm_batch_first_states": lambda: case(
        Rnn(nn.LSTM, True, input_size=3, hidden_size=4, num_layers=2, batch_first=True),
        (torch.randn(2, 5, 3), torch.randn(2, 2, 4), torch.randn(2, 2, 4))),
    "lstm_nobias_unbatched": lambda: case(
        Rnn(nn.LSTM, input_size=3, hidden_size=5, bias=False, bidirectional=True),
        (torch.randn(4, 3),)),
    # ONNX's LSTM has no projection: unrolled over the sequence
    "lstm_proj": lambda: case(
        Rnn(nn.LSTM, input_size=3, hidden_size=5, proj_size=2), (torch.randn(4, 1, 3),)),
    "gru_bi_2layer": lambda: case(
        Rnn(nn.GRU, input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
        (torch.randn(5, 2, 3),)),
    "gru_batch_first_state": lambda: case(
        Rnn(nn.GRU, True, input_size=3, hidden_size=4, num_layers=2, batch_first=True,
            bidirectional=True),
        (torch.randn(2, 5, 3), torch.randn(4, 2, 4))),
    "rnn_tanh_relu": lambda: case(
        Fn(lambda x, h: (RnnTanh(x), RnnRelu(x, h))),
        (torch.randn(2, 5, 3), torch.randn(2, 2, 4))),
    "embedding_bag_modes": lambda: case(
        Bags(), BAG_IN, (torch.tensor([7, 7, 1, 0, 3, 4, 4, 2, 2, 8]), torch.tensor([0, 1, 1, 10]),
                         torch.tensor([[2, 2, 2], [9, 8, 7], [1, 2, 3]]), torch.rand(10))),
    "embedding_bag_outputs": lambda: case(
        Fn(lambda i, o: BagSum(i, o) + BagMean(i, o) + BagMax(i, o)), BAG_IN[:2]),
    "embedding_max_norm": lambda: case(
        MaxNorm(),
        (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3]))),
    "unfold_windows": lambda: case(
        Fn(lambda x: (x.unfold(0, 2, 1), x.unfold(1, 3, 2), x.unfold(-1, 1, 3) * 2,
                      x[0, 0].unfold(0, 4, 4))),
        (torch.randn(3, 7, 4),)),
    "im2col": lambda: case(
        Fn(lambda x, y: (F.unfold(x, 3, padding=1), F.unfold(x, (2, 3), dilation=(2, 1), stride=2),
                         F.unfold(y, 2, stride=(1, 2)), nn.Unfold(kernel_size=(1, 4))(x))),
        (torch.randn(2, 3, 6, 5), torch.randn(2, 4, 3))),
    "scatter_reduce_modes": lambda: case(
        Fn(lambda x, i, s, n: tuple(
            x.scatter_reduce(1, i, s, r, include_self=inc)
            for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)
        ) + (n.scatter_reduce(0, i[0], n[:4] * 3, "amax", include_self=False),
             n.scatter_reduce(0, i[0], n[:4] - 7, "amin", include_self=False))),
        (torch.randn(3, 6), torch.tensor([[0, 2, 2, 5], [1, 1, 1, 1], [4, 0, 4, 0]]),
         torch.randn(3, 4), torch.arange(6) - 2)),
    # rounded inputs: equal maxima in a window, where the first must win
    "adaptive_max_indices": lambda: case(
        Fn(lambda x, y, z: (F.adaptive_max_pool2d(x, (3, 4), return_indices=True),
                            F.adaptive_max_pool2d(x, 1, return_indices=True),
                            F.adaptive_max_pool1d(y, 3, return_indices=True),
                            F.adaptive_max_pool3d(z, (2, 3, 2), return_indices=True),
                            F.adaptive_max_pool3d(z, (3, 2, 1)))),
        ((torch.randn(2, 3, 7, 9) * 2).round(), torch.randn(4, 10), torch.randn(1, 2, 4, 5, 3))),
    "avg_pool_divisor": lambda: case(
        Fn(lambda x, y: (F.avg_pool2d(x, 3, 2, 1, divisor_override=2),
                         F.avg_pool2d(x, (2, 3), (2, 1), (1, 0), ceil_mode=True, divisor_override=5),
                         F.avg_pool1d(y, 3, 2, 1, ceil_mode=True) * 1,
                         F.avg_pool3d(x[None], 2, 1, 1, divisor_override=3))),
        (torch.randn(2, 3, 7, 6), torch.randn(2, 3, 8))),
    # x rounded: ties, where PyTorch's choice of index is kept (cummax,
    # mode); kthvalue and median leave it open, so y has none
    "select_ops": lambda: case(
        Fn(lambda x, y, n, q: (torch.cummax(x, 1), torch.cummin(x, 0), torch.cummax(n, 0),
                               torch.kthvalue(y, 2, 0), torch.kthvalue(y, 3, 1, keepdim=True),
                               torch.median(y, 1), torch.median(y), torch.median(q, 1),
                               torch.nanmedian(q, 1, keepdim=True), torch.nanmedian(q),
                               torch.mode(x, 1), torch.mode(n, 0), torch.mode(x, 0, True))),
        ((torch.randn(5, 7) * 2).round(), torch.randn(5, 7), torch.tensor([3, 1, 3, 2, 1, 5, 3, 1]),
         torch.tensor([[1., float("nan"), 2, float("nan"), 0], [4, 3, 2, 1, 0],
                       [float("nan"), 7, 1, 2, 5]]))),
    "search_ops": lambda: case(
        Fn(lambda s, v, b, r: (torch.searchsorted(s, v), torch.searchsorted(s, v, right=True),
                               torch.searchsorted(b, r, side="right", out_int32=True),
                               torch.searchsorted(s[0], v), torch.bucketize(r, b),
                               torch.bucketize(v, b, right=True),
                               torch.searchsorted(s.flip(1), v, sorter=torch.arange(5).flip(0)
                                                  .expand(3, 5).contiguous()))),
        (torch.tensor([[1., 2, 2, 5, 9], [0, 0, 1, 1, 3], [-4, -2, 0, 2, 4]]),
         torch.tensor([[2., 0, 9, 10], [1, 1, 0, -1], [-3, 4, 2, 2]]),
         torch.tensor([1, 3, 5, 7]), torch.tensor([[0, 1, 2, 7, 8]]))),
    "max_unpool": lambda: case(
        Fn(lambda x, y: (F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
                         F.max_unpool2d(*F.max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1,
                                        output_size=(7, 6)),
                         F.max_unpool1d(*F.max_pool1d(x[0], 2, return_indices=True), 2),
                         F.max_unpool3d(*F.max_pool3d(y, 2, return_indices=True), 2))),
        (torch.randn(2, 3, 7, 6), torch.randn(1, 2, 4, 4, 6))),
    "index_reduce_modes": lambda: case(
        Fn(lambda x, i, s, n: tuple(
            x.index_reduce(1, i, s, r, include_self=inc)
            for r in ("prod", "mean", "amax", "amin") for inc in (True, False)
        ) + (n.index_reduce(0, i, n[:4] - 5, "amax", include_self=False),)),
        (torch.randn(3, 6), torch.tensor([0, 2, 2, 5]), torch.randn(3, 4), torch.arange(6) - 2)),
    "nonzero_masked": lambda: case(
        Fn(lambda x, m: (torch.nonzero(x), torch.argwhere(x > 0), torch.nonzero(x, as_tuple=True),
                         torch.nonzero_static(x, size=4), torch.nonzero_static(x[0], size=9,
                                                                             fill_value=7),
                         torch.masked_select(x, m), torch.masked_select(x[0], m[1]) * 2)),
        (torch.tensor([[0., 1.5, 0, -2], [3, 0, 0, float("nan")], [0, 0, 0, 0]]),
         torch.tensor([[True, False, True, True], [False, False, True, False],
                       [True, True, False, False]]))),
    "grid_sample_2d": lambda: case(
        Fn(lambda x, g: tuple(F.grid_sample(x, g, mode=m, padding_mode=p, align_corners=a)
                              for m in ("bilinear", "nearest", "bicubic")
                              for p in ("zeros", "border", "reflection") for a in (False, True))),
        (torch.randn(2, 3, 5, 6), torch.rand(2, 4, 7, 2) * 2.4 - 1.2)),
    "grid_sample_3d": lambda: case(
        Fn(lambda x, g: (F.grid_sample(x, g, align_corners=True),
                         F.grid_sample(x, g, mode="nearest", padding_mode="border"))),
        (torch.randn(1, 2, 3, 4, 5), torch.rand(1, 2, 3, 4, 3) * 2.2 - 1.1),
        flags=["--opset", "20"]),
    # part of the tensor, overlapping windows, an offset; on an input, on a
    # fresh result and on a reshape of one (not on another view)
    "as_strided_part": lambda: case(
        Fn(lambda x: (x.as_strided((2, 2), (1, 2)), x.as_strided((3, 3), (2, 1), 1),
                      (x * 2).as_strided((4,), (3,), 2),
                      torch.as_strided_copy(x.view(-1), (2, 3), (1, 1)),
                      torch.as_strided_scatter(x, x[:2, :2] * 10, (2, 2), (1, 4), 1))),
        (torch.randn(3, 4),)),
    # a view of a view reads its base: refused, not guessed
    "as_strided_of_view_refused": lambda: case(
        Fn(lambda x: x.t().as_strided((2, 2), (1, 2))), (torch.randn(3, 4),),
        expect="diagnose"),
    "index_put_mask": lambda: case(
        Fn(lambda x, m, v, y, w: (torch.index_put(x, (m,), v),
                                  torch.index_put(x, (m,), v, accumulate=True),
                                  torch.index_put(y, (m.view(2, 3),), w),
                                  torch.index_put(y, (m.view(2, 3),), w[:1]))),
        (torch.randn(6), torch.tensor([True, False, True, True, False, False]), torch.randn(3),
         torch.randn(2, 3, 4), torch.randn(3, 4))),
    "unique_ops": lambda: case(
        Fn(lambda x, n: (torch.unique(x, return_inverse=True, return_counts=True),
                         torch.unique(n, sorted=False),
                         torch.unique_consecutive(x, return_inverse=True, return_counts=True),
                         torch.unique_consecutive(n))),
        (torch.tensor([[5., 1, 3, 1], [9, 5, 5, 5], [-2, 7, 3, 3]]),
         torch.tensor([4, 4, 1, 0, 0, 0, 9, 1]))),
    "segment_reduce_modes": lambda: case(
        Fn(lambda d, l, o: tuple(
            torch.segment_reduce(d, r, lengths=l, **kw)
            for r in ("sum", "prod", "mean", "max", "min") for kw in ({}, {"initial": 2.0})
        ) + (torch.segment_reduce(d, "mean", offsets=o),
             torch.segment_reduce(d[:, None].expand(5, 3) * torch.arange(3.0), "max",
                                  lengths=l))),
        (torch.tensor([1., -5, 3, 0.5, 2]), torch.tensor([2, 0, 2, 1]),
         torch.tensor([0, 1, 1, 3]))),
}

torch.manual_seed(0)

BagSum, BagMean, BagMax = BagOutputs(0, -1), BagOutputs(1, 4), BagOutputs(2, 4)
RnnTanh = Rnn(nn.RNN, input_size=3, hidden_size=4, num_layers=2, bidirectional=True,
              batch_first=True)
RnnRelu = Rnn(nn.RNN, True, input_size=3, hidden_size=4, num_layers=2, nonlinearity="relu",
              batch_first=True, bias=False)
ConvT1, ConvT3 = ConvT(1), ConvT(3)
