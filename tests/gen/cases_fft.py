"""The FFT family and complex values inside a real program (tests/cases-fft):
torch.fft.* with each norm, n/s and dims, stft with a hann window followed by
abs/angle/view_as_real, istft of an stft.  Inputs and outputs are real, as
ONNX Runtime and corpus-check compare them; complex values live inside the
graph.  Made with real PyTorch 2.14, training IR and core ATen:

    PYTHONPATH=$PWD/tests/gen ../shared/tools/torch-env run 2.14 python3 \
        ../shared/tools/gen2/gen.py tests/cases-fft cases_fft [NAME_REGEX...]

then set "expect": "diagnose" in istft_*__core/case.json: their overlap-add is an
index_put([None, idx], accumulate=True) that the index lowering refuses yet.
"""
import torch
import torch.nn as nn


class Fn(nn.Module):
    """A module around one function of its inputs."""
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
    def forward(self, *xs):
        return self.fn(*xs)


class Spec(nn.Module):
    """|stft| with a hann window buffer (center=True, reflect padding)."""
    def __init__(self, n_fft, hop, win=None, normalized=False):
        super().__init__()
        self.n_fft, self.hop, self.normalized = n_fft, hop, normalized
        self.register_buffer("w", torch.hann_window(win or n_fft))
        self.win = win
    def forward(self, x):
        s = torch.stft(x, self.n_fft, self.hop, win_length=self.win, window=self.w,
                       center=True, normalized=self.normalized, return_complex=True)
        # angle away from the bins whose imaginary part is zero up to
        # rounding (DC, Nyquist, the mirror-padded first and last frames),
        # where its sign, and so +-pi, is the FFT implementation's
        return s.abs(), torch.angle(s[..., 1:-1, 1:-1]), torch.view_as_real(s)


class Roundtrip(nn.Module):
    """istft(stft(x)) with a hann window, and a chosen length."""
    def __init__(self, n_fft, hop, length=None):
        super().__init__()
        self.n_fft, self.hop, self.length = n_fft, hop, length
        self.register_buffer("w", torch.hann_window(n_fft))
    def forward(self, x):
        s = torch.stft(x, self.n_fft, self.hop, window=self.w, return_complex=True)
        s = s * 0.5
        return torch.istft(s, self.n_fft, self.hop, window=self.w, length=self.length)


class MelPower(nn.Module):
    """A log-mel front end as torchaudio builds it: |stft|^2 normalized by
    the window's energy, a filterbank product, log."""
    def __init__(self, n_fft=64, hop=16, mels=8):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("w", torch.hann_window(n_fft))
        self.register_buffer("fb", torch.rand(n_fft // 2 + 1, mels))
    def forward(self, x):
        s = torch.stft(x, self.n_fft, self.hop, window=self.w, center=True,
                       pad_mode="reflect", return_complex=True)
        s = s / self.w.pow(2.0).sum().sqrt()
        p = s.abs().pow(2.0)
        return torch.log(torch.matmul(p.transpose(-1, -2), self.fb) + 1e-6)


class FNetMix(nn.Module):
    """FNet's token mixing: the real part of a 2-D DFT over hidden and
    sequence dims."""
    def forward(self, x):
        return torch.fft.fft(torch.fft.fft(x, dim=-1), dim=-2).real


class Rope(nn.Module):
    """Rotary embeddings as Meta's Llama writes them: a complex freqs_cis
    buffer (torch.polar), queries viewed as complex, multiplied, viewed
    back as real."""
    def __init__(self, dim=8, seq=5):
        super().__init__()
        f = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        f = torch.outer(torch.arange(seq).float(), f)
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(f), f))
    def forward(self, q):
        qc = torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2))
        out = torch.view_as_real(qc * self.freqs_cis.view(1, q.shape[1], 1, -1))
        return out.flatten(3).type_as(q)


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), core=True, pt2=False, **kw)


X = lambda *s: (torch.randn(*s),)
F = torch.fft
CASES = {
    "fft_rfft_norms": lambda: case(Fn(lambda x: (
        torch.view_as_real(F.rfft(x)), torch.view_as_real(F.rfft(x, norm="ortho")),
        torch.view_as_real(F.rfft(x, n=6, dim=1, norm="forward")),
        F.rfft(x, n=12, dim=0).abs())), X(7, 9)),
    "fft_irfft_norms": lambda: case(Fn(lambda x: (
        F.irfft(x), F.irfft(x, n=9, norm="ortho"), F.irfft(x, n=4, dim=0, norm="forward"),
        F.irfft(F.rfft(x, dim=0), n=7, dim=0))), X(7, 6)),
    "fft_fft2_norms": lambda: case(Fn(lambda x: (
        torch.view_as_real(F.fft2(x)), F.fft2(x, norm="ortho").abs(),
        torch.view_as_real(F.ifft2(x, s=(4, 9), norm="forward")),
        F.fftn(x, dim=(0, 2))[1:].angle(), F.ifftn(F.fftn(x)).real)), X(3, 5, 8)),
    "fft_rfft2_hfft": lambda: case(Fn(lambda x: (
        F.irfft2(F.rfft2(x)), F.rfftn(x, norm="ortho").abs(), F.hfft(x, n=8),
        F.ihfft(x, norm="forward").imag, F.hfftn(x, s=(3, 6)), F.ihfftn(x).real,
        torch.view_as_real(F.fft(x, n=5, dim=0)), F.ifft(x).imag)), X(4, 5)),
    "stft_hann_abs": lambda: case(Spec(64, 16), X(2, 400)),
    "stft_hann_win_norm": lambda: case(Spec(32, 10, win=24, normalized=True), X(300)),
    "istft_roundtrip": lambda: case(Roundtrip(32, 8), X(2, 256)),
    "istft_length": lambda: case(Roundtrip(20, 5, length=190), X(200)),
    "mel_power_dynbatch": lambda: case(
        MelPower(), (torch.randn(2, 320),), (torch.randn(3, 320),),
        dynamic_shapes=({0: torch.export.Dim("batch")},)),
    "fnet_mix_dynbatch": lambda: case(
        FNetMix(), (torch.randn(2, 6, 8),), (torch.randn(1, 6, 8),),
        dynamic_shapes=({0: torch.export.Dim("batch")},)),
    "rope_complex_buffer": lambda: case(Rope(), X(2, 5, 3, 8)),
    "complex_arith": lambda: case(Fn(lambda x, y: (
        (F.fft(x) * F.fft(y)).abs(), F.ifft(F.fft(x) * F.fft(y)).real,
        (F.fft(x) + 2 * F.fft(y)).conj().imag,
        torch.view_as_real(torch.view_as_complex(torch.stack([x, y], -1)) * 3),
        torch.view_as_real(F.fft(x).sum(1)), torch.view_as_real(F.fft(x).mean((0, 1), keepdim=True)),
        torch.view_as_real(torch.exp(torch.view_as_complex(torch.stack([x, y], -1)))))),
        (torch.randn(4, 8), torch.randn(4, 8))),
}
