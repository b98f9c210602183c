"""Recurrent layers, EmbeddingBag and unfold/fold as real models export them
(issue 35): nn.LSTM/GRU/RNN in each configuration (layers, directions,
batch_first, bias, given or omitted states, unbatched input, dynamic batch,
proj_size, dropout in eval), the cells stepped in a Python loop, embedding ->
LSTM -> Linear taggers and classifiers; nn.EmbeddingBag in each mode with
offsets, per_sample_weights, padding_idx, empty bags, a dynamic number of
bags; F.unfold/F.fold and Tensor.unfold.  Training IR, core ATen and model.pt2,
made with real PyTorch 2.14:

    PYTHONPATH=$PWD/tests/gen ../shared/tools/torch-env run 2.14 python3 \
        ../shared/tools/gen2/gen.py OUTDIR cases_heldout_rnn [NAME_REGEX...]
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), **kw)


class Fn(nn.Module):
    """A module around one function of its inputs."""
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
    def forward(self, *xs):
        return self.fn(*xs)


class Rnn(nn.Module):
    """A recurrent layer; its states as inputs when given; all outputs."""
    def __init__(self, cls, states=0, **kw):
        super().__init__()
        self.rnn = cls(**kw)
        self.states = states
    def forward(self, x, *h):
        if not h:
            return self.rnn(x)
        return self.rnn(x, h if len(h) > 1 else h[0])


class Tagger(nn.Module):
    """Embedding -> (bi)LSTM -> Linear per token: a sequence tagger."""
    def __init__(self, cls=nn.LSTM, bidir=True, layers=1, bf=True, pad=0):
        super().__init__()
        self.emb = nn.Embedding(20, 6, padding_idx=pad)
        self.rnn = cls(6, 5, num_layers=layers, bidirectional=bidir, batch_first=bf)
        self.out = nn.Linear(5 * (2 if bidir else 1), 4)
        self.bf = bf
    def forward(self, tok):
        x = self.emb(tok if self.bf else tok.t())
        y, _ = self.rnn(x)
        return self.out(y).log_softmax(-1)


class Classifier(nn.Module):
    """Embedding -> LSTM -> last hidden state (both directions) -> Linear."""
    def __init__(self, cls=nn.LSTM, bidir=True, layers=2, dropout=0.3):
        super().__init__()
        self.emb = nn.Embedding(20, 6)
        self.rnn = cls(6, 5, num_layers=layers, bidirectional=bidir, batch_first=True,
                       dropout=dropout)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(5 * (2 if bidir else 1), 3)
        self.bidir = bidir
    def forward(self, tok):
        out = self.rnn(self.emb(tok))
        h = out[1][0] if isinstance(out[1], tuple) else out[1]
        feat = torch.cat([h[-2], h[-1]], 1) if self.bidir else h[-1]
        return self.fc(self.drop(feat))


class MeanPool(nn.Module):
    """LSTM output averaged over time, then Linear (a regressor)."""
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 6, batch_first=True)
        self.fc = nn.Linear(6, 1)
    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y.mean(1)).squeeze(-1), self.fc(y[:, -1])


class CellLoop(nn.Module):
    """A cell stepped over the time axis in Python, outputs stacked."""
    def __init__(self, cls, steps_first=True, given=False, **kw):
        super().__init__()
        self.cell = cls(**kw)
        self.lstm = cls is nn.LSTMCell
        self.given = given
    def forward(self, x, *h0):
        state = None
        if self.given:
            state = tuple(h0) if self.lstm else h0[0]
        outs = []
        for t in range(x.shape[0]):
            state = self.cell(x[t], state)
            outs.append(state[0] if self.lstm else state)
        return torch.stack(outs), state


class Seq2Seq(nn.Module):
    """GRU encoder, GRUCell decoder fed back its argmax embedding."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 5)
        self.enc = nn.GRU(5, 6, batch_first=True)
        self.dec = nn.GRUCell(5, 6)
        self.out = nn.Linear(6, 12)
    def forward(self, src):
        _, h = self.enc(self.emb(src))
        h = h[0]
        tok = src[:, 0]
        logits = []
        for _ in range(3):
            h = self.dec(self.emb(tok), h)
            lg = self.out(h)
            logits.append(lg)
            tok = lg.argmax(-1)
        return torch.stack(logits, 1)


class StackedDifferent(nn.Module):
    """LSTM feeding a GRU feeding an RNN, with a residual."""
    def __init__(self):
        super().__init__()
        self.a = nn.LSTM(4, 4)
        self.b = nn.GRU(4, 4, bidirectional=True)
        self.c = nn.RNN(8, 4, nonlinearity="relu")
    def forward(self, x):
        y, _ = self.a(x)
        y, _ = self.b(y + x)
        y, h = self.c(y)
        return y, h


class Bag(nn.Module):
    def __init__(self, *a, **kw):
        super().__init__()
        self.bag = nn.EmbeddingBag(*a, **kw)
    def forward(self, idx, *rest):
        if len(rest) == 2:
            return self.bag(idx, rest[0], per_sample_weights=rest[1])
        if len(rest) == 1:
            return self.bag(idx, rest[0])
        return self.bag(idx)


class Bag2dWeights(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 3, **kw)
    def forward(self, idx, w):
        return self.bag(idx, per_sample_weights=w)


class BagText(nn.Module):
    """The torchtext classifier: EmbeddingBag(mean) over offsets, Linear."""
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(30, 8, mode="mean")
        self.fc = nn.Linear(8, 4)
    def forward(self, text, offsets):
        return self.fc(self.bag(text, offsets))


class Pretrained(nn.Module):
    def __init__(self, mode):
        super().__init__()
        w = torch.arange(24, dtype=torch.float32).reshape(8, 3) / 7 - 1
        self.bag = nn.EmbeddingBag.from_pretrained(w, mode=mode, freeze=True)
        self.emb = nn.Embedding.from_pretrained(w, padding_idx=1)
    def forward(self, idx, off):
        return self.bag(idx, off), self.emb(idx)


class EmbNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Embedding(10, 4, padding_idx=3)
        self.b = nn.Embedding(10, 4, max_norm=1.0, norm_type=2.0)
    def forward(self, i):
        return self.a(i), self.b(i) * 2


class Patches(nn.Module):
    """ViT-style patching with F.unfold, then a Linear."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3 * 4 * 4, 5)
    def forward(self, x):
        p = F.unfold(x, 4, stride=4).transpose(1, 2)
        return self.fc(p)


class FoldBack(nn.Module):
    """unfold, scale, fold: overlapping windows summed back."""
    def __init__(self, k, **kw):
        super().__init__()
        self.k, self.kw = k, kw
    def forward(self, x):
        c = F.unfold(x, self.k, **self.kw)
        return F.fold(c * 0.5, x.shape[-2:], self.k, **self.kw)


class LocalConv(nn.Module):
    """A locally connected layer: unfold, per-position weights, einsum."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(9 * 2, 3) * 0.3)
    def forward(self, x):
        c = F.unfold(x, 3, padding=1)
        y = torch.einsum("bkl,ko->bol", c, self.w)
        return y.reshape(x.shape[0], 3, x.shape[2], x.shape[3])


class Frames(nn.Module):
    """Audio framing with Tensor.unfold, a window, then a Linear."""
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(8))
        self.fc = nn.Linear(8, 3)
    def forward(self, x):
        fr = x.unfold(-1, 8, 4) * self.win
        return self.fc(fr)


class TextCNNRNN(nn.Module):
    """Embedding -> Conv1d -> LSTM -> max over time -> Linear."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6, padding_idx=0)
        self.conv = nn.Conv1d(6, 6, 3, padding=1)
        self.rnn = nn.LSTM(6, 4, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(8, 2)
    def forward(self, tok):
        x = self.conv(self.emb(tok).transpose(1, 2)).relu().transpose(1, 2)
        y, _ = self.rnn(x)
        return self.fc(y.max(1).values)


B = Dim("batch", min=1, max=64)
TOK = torch.tensor([[1, 5, 7, 2, 0, 0], [3, 3, 9, 11, 19, 4]])
BAG_IDX = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 4, 4])
BAG_OFF = torch.tensor([0, 4, 4, 8])


def rnn_cases():
    out = {}
    for cls, tag in ((nn.LSTM, "lstm"), (nn.GRU, "gru"), (nn.RNN, "rnn")):
        g = 2 if cls is nn.LSTM else 1
        for layers in (1, 3):
            for bi in (False, True):
                for bf in (False, True):
                    nm = f"{tag}_l{layers}{'_bi' if bi else ''}{'_bf' if bf else ''}"
                    x = torch.randn(2, 5, 3) if bf else torch.randn(5, 2, 3)
                    out[nm] = (lambda cls=cls, layers=layers, bi=bi, bf=bf, x=x: case(
                        Rnn(cls, input_size=3, hidden_size=4, num_layers=layers,
                            bidirectional=bi, batch_first=bf), (x,)))
        d = 2
        out[f"{tag}_states_bi_2layer"] = (lambda cls=cls, g=g: case(
            Rnn(cls, input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
            (torch.randn(5, 2, 3),) + tuple(torch.randn(4, 2, 4) for _ in range(g))))
        out[f"{tag}_nobias_bf_states"] = (lambda cls=cls, g=g: case(
            Rnn(cls, input_size=3, hidden_size=4, bias=False, batch_first=True),
            (torch.randn(2, 5, 3),) + tuple(torch.randn(1, 2, 4) for _ in range(g))))
        out[f"{tag}_unbatched_states"] = (lambda cls=cls, g=g: case(
            Rnn(cls, input_size=3, hidden_size=4, num_layers=2),
            (torch.randn(5, 3),) + tuple(torch.randn(2, 4) for _ in range(g))))
        out[f"{tag}_unbatched_bi"] = (lambda cls=cls: case(
            Rnn(cls, input_size=3, hidden_size=4, bidirectional=True, batch_first=True),
            (torch.randn(5, 3),)))
        out[f"{tag}_dyn_batch"] = (lambda cls=cls: case(
            Rnn(cls, input_size=3, hidden_size=4, num_layers=2, batch_first=True,
                bidirectional=True),
            (torch.randn(2, 5, 3),), (torch.randn(5, 5, 3),), dynamic_shapes=({0: B},)))
        out[f"{tag}_dyn_batch_states"] = (lambda cls=cls, g=g: case(
            Rnn(cls, input_size=3, hidden_size=4),
            (torch.randn(5, 2, 3),) + tuple(torch.randn(1, 2, 4) for _ in range(g)),
            (torch.randn(5, 3, 3),) + tuple(torch.randn(1, 3, 4) for _ in range(g)),
            dynamic_shapes=({1: B}, tuple({1: B} for _ in range(g)))))
        out[f"{tag}_dropout_eval"] = (lambda cls=cls: case(
            Rnn(cls, input_size=3, hidden_size=4, num_layers=3, dropout=0.4),
            (torch.randn(5, 2, 3),)))
        out[f"{tag}_len1"] = (lambda cls=cls: case(
            Rnn(cls, input_size=3, hidden_size=4, batch_first=True, bidirectional=True),
            (torch.randn(2, 1, 3),)))
    out["rnn_relu_bi_states"] = lambda: case(
        Rnn(nn.RNN, input_size=3, hidden_size=4, nonlinearity="relu", bidirectional=True,
            num_layers=2), (torch.randn(5, 2, 3), torch.randn(4, 2, 4)))
    out["rnn_relu_dyn_batch"] = lambda: case(
        Rnn(nn.RNN, input_size=3, hidden_size=4, nonlinearity="relu", batch_first=True),
        (torch.randn(2, 5, 3),), (torch.randn(4, 5, 3),), dynamic_shapes=({0: B},))
    out["lstm_proj"] = lambda: case(
        Rnn(nn.LSTM, input_size=3, hidden_size=5, proj_size=2), (torch.randn(4, 2, 3),))
    out["lstm_proj_bi_2layer_bf"] = lambda: case(
        Rnn(nn.LSTM, input_size=3, hidden_size=5, proj_size=2, num_layers=2,
            bidirectional=True, batch_first=True), (torch.randn(2, 4, 3),))
    out["lstm_proj_states"] = lambda: case(
        Rnn(nn.LSTM, input_size=3, hidden_size=5, proj_size=2, num_layers=2),
        (torch.randn(4, 2, 3), torch.randn(2, 2, 2), torch.randn(2, 2, 5)))
    out["lstm_proj_dyn_batch"] = lambda: case(
        Rnn(nn.LSTM, input_size=3, hidden_size=5, proj_size=3, batch_first=True),
        (torch.randn(2, 4, 3),), (torch.randn(3, 4, 3),), dynamic_shapes=({0: B},))
    out["lstm_proj_unbatched"] = lambda: case(
        Rnn(nn.LSTM, input_size=3, hidden_size=5, proj_size=2, bias=False),
        (torch.randn(4, 3),))
    return out


CASES = dict(rnn_cases())
CASES.update({
    "tagger_bilstm": lambda: case(Tagger(), (TOK,)),
    "tagger_gru_tf": lambda: case(Tagger(nn.GRU, bidir=False, layers=2, bf=False), (TOK,)),
    "tagger_dyn_batch": lambda: case(Tagger(), (TOK,), (TOK[[1, 0, 1]],),
                                     dynamic_shapes=({0: B},)),
    "classifier_lstm": lambda: case(Classifier(), (TOK,)),
    "classifier_gru_uni": lambda: case(Classifier(nn.GRU, bidir=False, layers=1, dropout=0),
                                       (TOK,)),
    "classifier_dyn_batch": lambda: case(Classifier(), (TOK,), (TOK[[1, 1, 0]],),
                                         dynamic_shapes=({0: B},)),
    "lstm_meanpool": lambda: case(MeanPool(), (torch.randn(3, 5, 3),)),
    "textcnn_rnn": lambda: case(TextCNNRNN(), (TOK,)),
    "stacked_different": lambda: case(StackedDifferent(), (torch.randn(5, 2, 4),)),
    "lstmcell_loop": lambda: case(CellLoop(nn.LSTMCell, input_size=3, hidden_size=4),
                                  (torch.randn(4, 2, 3),)),
    "lstmcell_loop_states": lambda: case(
        CellLoop(nn.LSTMCell, given=True, input_size=3, hidden_size=4),
        (torch.randn(4, 2, 3), torch.randn(2, 4), torch.randn(2, 4))),
    "grucell_loop": lambda: case(CellLoop(nn.GRUCell, input_size=3, hidden_size=4),
                                 (torch.randn(4, 2, 3),)),
    "grucell_loop_states_nobias": lambda: case(
        CellLoop(nn.GRUCell, given=True, input_size=3, hidden_size=4, bias=False),
        (torch.randn(4, 2, 3), torch.randn(2, 4))),
    "rnncell_tanh_loop": lambda: case(CellLoop(nn.RNNCell, input_size=3, hidden_size=4),
                                      (torch.randn(4, 2, 3),)),
    "rnncell_relu_loop_states": lambda: case(
        CellLoop(nn.RNNCell, given=True, input_size=3, hidden_size=4, nonlinearity="relu"),
        (torch.randn(4, 2, 3), torch.randn(2, 4))),
    "lstmcell_dyn_batch": lambda: case(
        CellLoop(nn.LSTMCell, input_size=3, hidden_size=4),
        (torch.randn(3, 2, 3),), (torch.randn(3, 5, 3),), dynamic_shapes=({1: B},)),
    "lstmcell_unbatched": lambda: case(
        Fn(lambda x, h, c: nn.LSTMCell(3, 4)(x, (h, c))) if False else
        CellLoop(nn.LSTMCell, given=True, input_size=3, hidden_size=4),
        (torch.randn(3, 3), torch.randn(4), torch.randn(4))),
    "grucell_unbatched": lambda: case(
        CellLoop(nn.GRUCell, input_size=3, hidden_size=4), (torch.randn(3, 3),)),
    "seq2seq_grucell": lambda: case(Seq2Seq(), (torch.tensor([[1, 4, 2, 7], [3, 3, 0, 11]]),)),
    # EmbeddingBag
    "bag_sum_offsets": lambda: case(Bag(10, 3, mode="sum"), (BAG_IDX, BAG_OFF)),
    "bag_mean_offsets": lambda: case(Bag(10, 3, mode="mean"), (BAG_IDX, BAG_OFF)),
    "bag_max_offsets": lambda: case(Bag(10, 3, mode="max"), (BAG_IDX, BAG_OFF)),
    "bag_sum_last_offset": lambda: case(Bag(10, 3, mode="sum", include_last_offset=True),
                                        (BAG_IDX, torch.tensor([0, 4, 4, 8, 10]))),
    "bag_mean_last_offset": lambda: case(Bag(10, 3, mode="mean", include_last_offset=True),
                                         (BAG_IDX, torch.tensor([0, 3, 3, 10]))),
    "bag_max_last_offset_empty": lambda: case(
        Bag(10, 3, mode="max", include_last_offset=True),
        (BAG_IDX, torch.tensor([0, 0, 5, 5, 10]))),
    "bag_psw_sum": lambda: case(Bag(10, 3, mode="sum"), (BAG_IDX, BAG_OFF, torch.rand(10))),
    "bag_psw_last_offset": lambda: case(Bag(10, 3, mode="sum", include_last_offset=True),
                                        (BAG_IDX, torch.tensor([0, 2, 10]), torch.rand(10))),
    "bag_psw_2d": lambda: case(Bag2dWeights(mode="sum"),
                               (torch.tensor([[1, 2, 3], [4, 4, 0]]), torch.rand(2, 3))),
    "bag_psw_pad": lambda: case(Bag(10, 3, mode="sum", padding_idx=4),
                                (BAG_IDX, BAG_OFF, torch.rand(10))),
    "bag_pad_sum": lambda: case(Bag(10, 3, mode="sum", padding_idx=2), (BAG_IDX, BAG_OFF)),
    "bag_pad_mean_allpad": lambda: case(Bag(10, 3, mode="mean", padding_idx=4),
                                        (BAG_IDX, torch.tensor([0, 1, 8, 9]))),
    "bag_pad_max": lambda: case(Bag(10, 3, mode="max", padding_idx=4), (BAG_IDX, BAG_OFF)),
    "bag_pad0_2d_mean": lambda: case(Bag(10, 3, mode="mean", padding_idx=0),
                                     (torch.tensor([[1, 0, 0], [0, 0, 0], [5, 6, 0]]),)),
    "bag_2d_sum": lambda: case(Bag(10, 3, mode="sum"), (torch.tensor([[1, 2, 3], [4, 4, 9]]),)),
    "bag_2d_max": lambda: case(Bag(10, 3, mode="max"), (torch.tensor([[1, 2, 3], [4, 4, 9]]),)),
    "bag_2d_dyn": lambda: case(Bag(10, 3, mode="mean"), (torch.tensor([[1, 2, 3], [4, 4, 9]]),),
                               (torch.tensor([[1, 2, 3], [4, 4, 9], [0, 0, 0], [7, 8, 9]]),),
                               dynamic_shapes=({0: B},)),
    "bag_dyn_bags": lambda: case(
        Bag(10, 3, mode="sum"), (BAG_IDX, BAG_OFF),
        (torch.tensor([1, 2, 3, 4, 5, 6, 7]), torch.tensor([0, 1, 3, 3, 5, 6])),
        dynamic_shapes=({0: Dim("n", min=2, max=1000)}, ({0: Dim("bags", min=2, max=100)},))),
    "bag_dyn_bags_mean_last": lambda: case(
        Bag(10, 3, mode="mean", include_last_offset=True), (BAG_IDX, torch.tensor([0, 4, 4, 10])),
        (torch.tensor([1, 2, 3, 4, 5, 6, 7]), torch.tensor([0, 1, 3, 3, 5, 7])),
        dynamic_shapes=({0: Dim.AUTO}, ({0: Dim.AUTO},))),
    "bag_dyn_bags_max": lambda: case(
        Bag(10, 3, mode="max"), (BAG_IDX, BAG_OFF),
        (torch.tensor([1, 2, 3, 4, 5, 6, 7]), torch.tensor([0, 1, 3, 3, 5, 6])),
        dynamic_shapes=({0: Dim("n", min=2, max=1000)}, ({0: Dim("bags", min=2, max=100)},))),
    "bag_text_classifier": lambda: case(
        BagText(), (torch.tensor([3, 7, 7, 29, 1, 0, 5, 5, 2]), torch.tensor([0, 3, 6])),
        (torch.tensor([3, 7, 7, 29, 1]), torch.tensor([0, 2])),
        dynamic_shapes=({0: Dim("n", min=2, max=1000)}, {0: Dim("bags", min=1, max=100)})),
    "bag_pretrained": lambda: case(Pretrained("sum"), (torch.tensor([1, 2, 7, 1, 0]),
                                                       torch.tensor([0, 2]))),
    "bag_pretrained_max": lambda: case(Pretrained("max"), (torch.tensor([1, 2, 7, 1, 0]),
                                                           torch.tensor([0, 2]))),
    "bag_max_norm": lambda: case(Bag(10, 3, mode="sum", max_norm=1.0),
                                 (BAG_IDX, BAG_OFF)),
    "bag_double": lambda: case(Bag(10, 3, mode="mean").double(), (BAG_IDX, BAG_OFF)),
    "functional_bag": lambda: case(
        Fn(lambda w, i, o: (F.embedding_bag(i, w, o, mode="sum"),
                            F.embedding_bag(i, w, o, mode="max", padding_idx=2))),
        (torch.randn(10, 3), BAG_IDX, BAG_OFF)),
    "embedding_pad_norm": lambda: case(EmbNorm(), (torch.tensor([[1, 3, 3], [9, 0, 1]]),)),
    "embedding_dyn": lambda: case(
        Fn(lambda w, i: F.embedding(i, w, padding_idx=0)),
        (torch.randn(7, 3), torch.tensor([[1, 0, 6], [2, 2, 0]])),
        (torch.randn(7, 3), torch.tensor([[1, 0, 6, 2], [5, 5, 5, 5]])),
        dynamic_shapes=((None, {0: B, 1: Dim("seq", min=1, max=64)}),)),
    # unfold / fold
    "unfold_basic": lambda: case(Fn(lambda x: F.unfold(x, 3)), (torch.randn(2, 3, 6, 5),)),
    "unfold_pad_stride_dil": lambda: case(
        Fn(lambda x: (F.unfold(x, (3, 2), dilation=(1, 2), padding=(2, 1), stride=(2, 3)),
                      F.unfold(x, 1), F.unfold(x, (6, 5)))),
        (torch.randn(2, 3, 6, 5),)),
    "unfold_dyn_batch": lambda: case(
        Fn(lambda x: F.unfold(x, 2, stride=2)), (torch.randn(2, 3, 4, 6),),
        (torch.randn(3, 3, 4, 6),), dynamic_shapes=(({0: B},),)),
    "unfold_dyn_hw": lambda: case(
        Fn(lambda x: F.unfold(x, 3, padding=1)), (torch.randn(2, 2, 4, 6),),
        (torch.randn(1, 2, 5, 3),),
        dynamic_shapes=(({0: B, 2: Dim("h", min=3, max=64), 3: Dim("w", min=3, max=64)},),)),
    "unfold_unbatched": lambda: case(Fn(lambda x: F.unfold(x, 2, stride=(1, 2))),
                                     (torch.randn(3, 4, 5),)),
    "unfold_patches": lambda: case(Patches(), (torch.randn(2, 3, 8, 8),)),
    "unfold_local_conv": lambda: case(LocalConv(), (torch.randn(2, 2, 4, 5),)),
    "fold_basic": lambda: case(nn.Fold((4, 5), 2), (torch.randn(2, 12, 12),)),
    "fold_stride_pad_dil": lambda: case(
        nn.Fold((5, 6), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
        (torch.randn(2, 12, 15),)),
    "fold_unbatched": lambda: case(nn.Fold((3, 4), 2), (torch.randn(8, 6),)),
    "fold_unfold_roundtrip": lambda: case(FoldBack(3, padding=1, stride=2),
                                          (torch.randn(2, 3, 7, 6),)),
    "fold_dyn_batch": lambda: case(nn.Fold((4, 5), 2), (torch.randn(2, 12, 12),),
                                   (torch.randn(4, 12, 12),), dynamic_shapes=({0: B},)),
    "tensor_unfold_frames": lambda: case(Frames(), (torch.randn(2, 40),)),
    "tensor_unfold_dyn": lambda: case(
        Fn(lambda x: x.unfold(1, 3, 2).sum(-1)), (torch.randn(2, 9, 4),),
        (torch.randn(3, 9, 4),), dynamic_shapes=(({0: B},),)),
    "tensor_unfold_dyn_len": lambda: case(
        Fn(lambda x: x.unfold(-1, 4, 2)), (torch.randn(2, 12),), (torch.randn(2, 17),),
        dynamic_shapes=(({1: Dim.AUTO},),)),
    "tensor_unfold_2d_patches": lambda: case(
        Fn(lambda x: x.unfold(2, 2, 2).unfold(3, 2, 2).reshape(2, 3, -1, 4)),
        (torch.randn(2, 3, 4, 6),)),
    "tensor_unfold_step_gt_size": lambda: case(
        Fn(lambda x: (x.unfold(0, 2, 3), x.unfold(1, 5, 1))), (torch.randn(8, 5),)),
})

# the cells called by hand with one bias (the other is zero)
_W = {k: torch.randn(*s) * 0.5 for k, s in (("w4", (16, 3)), ("r4", (16, 4)), ("b4", (16,)),
                                              ("w3", (12, 3)), ("r3", (12, 4)), ("b3", (12,)))}
CASES["cell_one_bias"] = lambda: case(
    Fn(lambda x, h, c: (torch.ops.aten.lstm_cell(x, [h, c], _W["w4"], _W["r4"], _W["b4"]),
                        torch.ops.aten.gru_cell(x, h, _W["w3"], _W["r3"], None, _W["b3"]),
                        torch.ops.aten.rnn_tanh_cell(x, h, _W["w4"][:4], _W["r4"][:4],
                                                     None, _W["b4"][:4]))),
    (torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)))

# all four outputs of _embedding_bag with a dynamic number of bags
_WB = torch.randn(10, 3)
CASES["bag_outputs_dyn"] = lambda: case(
    Fn(lambda i, o: (torch.ops.aten._embedding_bag(_WB, i, o, False, 0, False, None)[2:],
                     torch.ops.aten._embedding_bag(_WB, i, o, False, 1, False, None)[1:],
                     torch.ops.aten._embedding_bag(_WB, i, o, False, 2, False, None, False, 4))),
    (BAG_IDX, BAG_OFF), (torch.tensor([1, 2, 3, 4, 5, 6, 7]), torch.tensor([0, 1, 3, 3, 5, 6])),
    dynamic_shapes=(({0: Dim.AUTO}, {0: Dim.AUTO}),))

# float64 layers (computed in f32 by ONNX's LSTM, in f64 when unrolled)
CASES["lstm_double"] = lambda: case(
    Rnn(nn.LSTM, input_size=3, hidden_size=4, bidirectional=True).double(),
    (torch.randn(5, 2, 3, dtype=torch.float64),))
CASES["lstm_proj_double_states"] = lambda: case(
    Rnn(nn.LSTM, input_size=3, hidden_size=4, proj_size=2, bidirectional=True).double(),
    (torch.randn(5, 2, 3, dtype=torch.float64), torch.randn(2, 2, 2, dtype=torch.float64),
     torch.randn(2, 2, 4, dtype=torch.float64)), rtol=1e-7, atol=1e-9)
CASES["gru_double_bf"] = lambda: case(
    Rnn(nn.GRU, input_size=3, hidden_size=4, batch_first=True).double(),
    (torch.randn(2, 5, 3, dtype=torch.float64),))

# windows counted at run time: strides that do not divide the lengths
CASES["unfold_dyn_hw_strided"] = lambda: case(
    Fn(lambda x: F.unfold(x, (2, 3), dilation=(2, 1), padding=(1, 0), stride=(2, 3))),
    (torch.randn(2, 2, 7, 8),), (torch.randn(1, 2, 6, 11),),
    dynamic_shapes=(({0: Dim.AUTO, 2: Dim.AUTO, 3: Dim.AUTO},),))
CASES["tensor_unfold_dyn_step"] = lambda: case(
    Fn(lambda x: (x.unfold(0, 3, 4), x.unfold(0, 2, 1) * 2)),
    (torch.randn(11, 2),), (torch.randn(14, 2),), dynamic_shapes=(({0: Dim.AUTO},),))


class Dlrm(nn.Module):
    """DLRM: EmbeddingBags per sparse feature, a bottom MLP, the pairwise
    dot products below the diagonal (tril_indices), a top MLP."""
    def __init__(self):
        super().__init__()
        self.bags = nn.ModuleList([nn.EmbeddingBag(n, 4, mode="sum") for n in (10, 7, 5)])
        self.bot = nn.Linear(3, 4)
        self.top = nn.Linear(4 + 6, 1)
    def forward(self, dense, idx0, off0, idx1, off1, idx2, off2):
        e = [self.bags[0](idx0, off0), self.bags[1](idx1, off1), self.bags[2](idx2, off2)]
        d = self.bot(dense).relu()
        t = torch.stack([d] + e, 1)
        z = torch.bmm(t, t.transpose(1, 2))
        li, lj = torch.tril_indices(4, 4, -1)
        return torch.sigmoid(self.top(torch.cat([d, z[:, li, lj]], 1)))


CASES["dlrm"] = lambda: case(
    Dlrm(), (torch.randn(2, 3), torch.tensor([1, 2, 9]), torch.tensor([0, 1]),
             torch.tensor([0, 6]), torch.tensor([0, 2]), torch.tensor([4, 4, 1, 0]),
             torch.tensor([0, 3])))
CASES["tri_indices"] = lambda: case(
    Fn(lambda x: (x[:, torch.tril_indices(4, 5)[0], torch.tril_indices(4, 5)[1]],
                  torch.triu_indices(3, 5, 1), torch.triu_indices(5, 3, -2, dtype=torch.int32),
                  torch.tril_indices(4, 3, 1), torch.tril_indices(0, 3), torch.triu_indices(3, 3, 5))),
    (torch.randn(2, 4, 5),))


class ZeroInit(nn.Module):
    """h0/c0 made in forward from the batch size (the common pattern)."""
    def __init__(self, cls=nn.LSTM, layers=2, bi=True):
        super().__init__()
        self.rnn = cls(3, 4, num_layers=layers, bidirectional=bi, batch_first=True)
        self.n = layers * (2 if bi else 1)
        self.lstm = cls is nn.LSTM
    def forward(self, x):
        h0 = torch.zeros(self.n, x.size(0), 4, device=x.device)
        if self.lstm:
            c0 = torch.zeros(self.n, x.size(0), 4, device=x.device)
            out, (h, c) = self.rnn(x, (h0, c0))
        else:
            out, h = self.rnn(x, h0)
        return out[:, -1, :], h.view(self.n // 2 if self.n > 1 else 1, -1, x.size(0), 4).sum(1)

class Flatten(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 4, batch_first=True)
    def forward(self, x):
        self.rnn.flatten_parameters()
        return self.rnn(x)[0]

class Attn(nn.Module):
    """BiLSTM + additive attention pooling + classifier."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6)
        self.rnn = nn.LSTM(6, 5, batch_first=True, bidirectional=True)
        self.att = nn.Linear(10, 1)
        self.fc = nn.Linear(10, 3)
    def forward(self, tok, mask):
        y, _ = self.rnn(self.emb(tok))
        s = self.att(y).squeeze(-1).masked_fill(~mask, -1e9)
        a = torch.softmax(s, 1)
        return self.fc(torch.bmm(a.unsqueeze(1), y).squeeze(1))

class DeepSpeech(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, stride=(2, 1), padding=1)
        self.rnn = nn.GRU(2 * 4, 4, bidirectional=True, num_layers=2)
        self.fc = nn.Linear(4, 5)
    def forward(self, spec):  # [B, 1, F=8, T]
        x = self.conv(spec).relu()
        b, c, f, t = x.shape
        x = x.view(b, c * f, t).permute(2, 0, 1)
        y, _ = self.rnn(x)
        y = y.view(t, b, 2, 4).sum(2)
        return self.fc(y).log_softmax(-1)

class BagI32(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 3, **kw)
    def forward(self, i, o):
        return self.bag(i, o)

class FoldDyn(nn.Module):
    def forward(self, x):
        c = F.unfold(x, 2, stride=2)
        return F.fold(c, x.shape[-2:], 2, stride=2)

class GruSumDirs(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 4, bidirectional=True, batch_first=True)
    def forward(self, x):
        out, h = self.gru(x)
        return out[:, :, :4] + out[:, :, 4:], torch.cat((h[0], h[1]), 1)

class TrainMode(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 4, num_layers=1)
    def forward(self, x):
        return self.rnn(x)[0]

TOKM = torch.tensor([[True] * 4 + [False] * 2, [True] * 6])
CASES.update({
    "zeroinit_lstm_dyn": lambda: case(ZeroInit(), (torch.randn(2, 5, 3),), (torch.randn(3, 5, 3),),
                                      dynamic_shapes=({0: Dim.AUTO},)),
    "zeroinit_gru": lambda: case(ZeroInit(nn.GRU, 1, False), (torch.randn(2, 5, 3),)),
    "flatten_params": lambda: case(Flatten(), (torch.randn(2, 5, 3),)),
    "attn_bilstm": lambda: case(Attn(), (TOK, TOKM)),
    "attn_bilstm_dyn": lambda: case(Attn(), (TOK, TOKM), (TOK[[1, 0, 0]], TOKM[[1, 0, 0]]),
                                    dynamic_shapes=({0: Dim.AUTO}, {0: Dim.AUTO})),
    "deepspeech_gru": lambda: case(DeepSpeech(), (torch.randn(2, 1, 8, 6),)),
    "bag_int32": lambda: case(BagI32(mode="mean"), (BAG_IDX.int(), BAG_OFF.int())),
    "bag_int32_max_last": lambda: case(BagI32(mode="max", include_last_offset=True),
                                       (BAG_IDX.int(), torch.tensor([0, 3, 10]).int())),
    "bag_sparse_sgbf": lambda: case(BagI32(mode="sum", sparse=True, scale_grad_by_freq=True),
                                    (BAG_IDX, BAG_OFF)),
    "emb_sparse_sgbf": lambda: case(Fn(lambda w, i: F.embedding(i, w, sparse=True, scale_grad_by_freq=True)),
                                    (torch.randn(10, 3), TOK % 10)),
    "fold_dyn_hw": lambda: case(FoldDyn(), (torch.randn(2, 3, 4, 6),), (torch.randn(1, 3, 6, 8),),
                                dynamic_shapes=({0: Dim.AUTO, 2: 2 * Dim("h2", min=1, max=32), 3: 2 * Dim("w2", min=1, max=32)},)),
    "gru_sum_dirs": lambda: case(GruSumDirs(), (torch.randn(2, 5, 3),)),
    "lstm_train_mode": lambda: case(TrainMode(), (torch.randn(5, 2, 3),), train=True),
    "lstm_long_proj": lambda: case(Rnn(nn.LSTM, input_size=3, hidden_size=8, proj_size=4, num_layers=2),
                                   (torch.randn(120, 2, 3),)),
    "lstm_long": lambda: case(Rnn(nn.LSTM, input_size=3, hidden_size=8, num_layers=2, bidirectional=True),
                              (torch.randn(120, 2, 3),)),
    "lstm_proj_len1": lambda: case(Rnn(nn.LSTM, input_size=3, hidden_size=4, proj_size=2, batch_first=True),
                                   (torch.randn(3, 1, 3),)),
})


class FoldDynPad(nn.Module):
    """unfold then fold back into the input's own (symbolic) size."""
    def forward(self, x):
        kw = dict(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
        return F.fold(F.unfold(x, **kw) * 0.5, x.shape[-2:], **kw)


CASES["fold_dyn_hw_pad"] = lambda: case(
    FoldDynPad(), (torch.randn(2, 3, 5, 6),), (torch.randn(1, 3, 8, 4),),
    dynamic_shapes=({0: Dim.AUTO, 2: Dim.AUTO, 3: Dim.AUTO},))


class WeightNormLSTM(nn.Module):
    """An LSTM whose recurrent weight is a weight_norm parametrization (the
    params of aten::lstm are computed in the graph)."""
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.utils.parametrizations.weight_norm(
            nn.LSTM(3, 4, batch_first=True), "weight_hh_l0")
    def forward(self, x):
        return self.rnn(x)[0]


CASES["lstm_weight_norm"] = lambda: case(WeightNormLSTM(), (torch.randn(2, 5, 3),))
CASES["ngrams_int_unfold"] = lambda: case(
    Fn(lambda t: (t.unfold(1, 3, 1), (t.unfold(1, 2, 1) * torch.tensor([31, 1])).sum(-1))),
    (TOK,), (TOK[[1, 0, 1]],), dynamic_shapes=(({0: Dim.AUTO},),))
