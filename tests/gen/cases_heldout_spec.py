"""Variants of the issue-35 families as people export them (a held-out
style sweep): stft/istft/fft.* and complex values, transformers'
mixture-of-experts models of several families, torchvision's detection
ops, autocast regions.  Each case is a real torch.export (training IR,
core ATen and model.pt2).  The cases that exercise a fix are copied into
tests/cases-fft, tests/cases-moe, tests/cases-torchvision and
tests/cases-training.  Made with real PyTorch 2.14:

    PYTHONPATH=$PWD/tests/gen ../shared/tools/torch-env run 2.14 python3 \
        ../shared/tools/gen2/gen.py OUTDIR cases_heldout_spec [NAME_REGEX...]
"""
import math

import torch
import torch.nn as nn

F = torch.fft
Dim = torch.export.Dim


def case(model, *samples, **kw):
    kw.setdefault("core", True)
    kw.setdefault("pt2", True)
    return dict(model=model, samples=list(samples), **kw)


def gen(seed):
    return torch.Generator().manual_seed(seed)


def rn(*s, seed=1):
    return torch.randn(*s, generator=gen(seed))


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


# ---------------------------------------------------------------- stft

class Stft(nn.Module):
    """stft with the given options, the spectrum read back as `out`."""
    def __init__(self, n_fft, hop=None, win_length=None, window="hann", center=True,
                 pad_mode="reflect", normalized=False, onesided=None, out="abs",
                 in_forward=False):
        super().__init__()
        self.n_fft, self.hop, self.wl = n_fft, hop, win_length
        self.center, self.pad_mode, self.normalized, self.onesided = center, pad_mode, normalized, onesided
        self.out, self.in_forward, self.kind = out, in_forward, window
        if window and not in_forward:
            self.register_buffer("w", self._window())

    def _window(self):
        n = self.wl or self.n_fft
        return {"hann": torch.hann_window, "hamming": torch.hamming_window,
                "blackman": torch.blackman_window}[self.kind](n)

    def forward(self, x):
        w = None
        if self.kind:
            w = self._window().to(x.device) if self.in_forward else self.w
        s = torch.stft(x, self.n_fft, hop_length=self.hop, win_length=self.wl, window=w,
                       center=self.center, pad_mode=self.pad_mode, normalized=self.normalized,
                       onesided=self.onesided, return_complex=True)
        o = self.out
        if o == "abs":
            return s.abs()
        if o == "power":
            return s.abs().pow(2)
        if o == "real":
            return s.real, s.imag
        if o == "view_as_real":
            return torch.view_as_real(s)
        if o == "sq":
            r = torch.view_as_real(s)
            return r[..., 0] ** 2 + r[..., 1] ** 2
        if o == "angle":
            return s.abs(), torch.angle(s[..., 1:-1, 1:-1])
        raise ValueError(o)


class StftReal(nn.Module):
    """The old return_complex=False form (a deprecation warning; still used)."""
    def __init__(self, n_fft, hop):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("w", torch.hann_window(n_fft))

    def forward(self, x):
        s = torch.stft(x, self.n_fft, self.hop, window=self.w, return_complex=False)
        return s.pow(2).sum(-1).sqrt()


class WhisperLogMel(nn.Module):
    """Whisper's log_mel_spectrogram: stft, drop the last frame, |.|^2,
    mel filters, log10 with a floor and a dynamic range clamp."""
    def __init__(self, n_fft=64, hop=16, mels=10):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("fb", torch.rand(mels, n_fft // 2 + 1, generator=gen(4)))

    def forward(self, audio):
        window = torch.hann_window(self.n_fft).to(audio.device)
        stft = torch.stft(audio, self.n_fft, self.hop, window=window, return_complex=True)
        magnitudes = stft[..., :-1].abs() ** 2
        mel_spec = self.fb @ magnitudes
        log_spec = torch.clamp(mel_spec, min=1e-10).log10()
        log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
        return (log_spec + 4.0) / 4.0


class TorchaudioMel(nn.Module):
    """torchaudio.transforms.MelSpectrogram's path without torchaudio:
    a framewise stft, power 2, normalized='window' off, mel fb, dB."""
    def __init__(self, n_fft=32, hop=8, mels=6):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("fb", torch.rand(n_fft // 2 + 1, mels, generator=gen(5)))

    def forward(self, wav):
        shape = wav.size()
        wav = wav.reshape(-1, shape[-1])
        spec = torch.stft(wav, self.n_fft, self.hop, self.n_fft, self.window, center=True,
                          pad_mode="reflect", normalized=False, onesided=True, return_complex=True)
        spec = spec.reshape(shape[:-1] + spec.shape[-2:])
        spec = spec.abs().pow(2.0)
        mel = torch.matmul(spec.transpose(-1, -2), self.fb).transpose(-1, -2)
        db = 10.0 * torch.log10(torch.clamp(mel, min=1e-10))
        return db


class Istft(nn.Module):
    def __init__(self, n_fft, hop, window="hann", center=True, normalized=False, length=None,
                 onesided=True, scale=0.5):
        super().__init__()
        self.n_fft, self.hop, self.center, self.normalized = n_fft, hop, center, normalized
        self.length, self.onesided, self.scale = length, onesided, scale
        w = {"hann": torch.hann_window, "hamming": torch.hamming_window}[window](n_fft)
        self.register_buffer("w", w)

    def forward(self, x):
        s = torch.stft(x, self.n_fft, self.hop, window=self.w, center=self.center,
                       normalized=self.normalized, onesided=self.onesided, return_complex=True)
        s = s * self.scale
        return torch.istft(s, self.n_fft, self.hop, window=self.w, center=self.center,
                           normalized=self.normalized, onesided=self.onesided, length=self.length)


class IstftFromReal(nn.Module):
    """A vocoder head: magnitude and phase predicted, made complex with
    torch.polar (or exp(1j*phase)), then istft (Vocos style)."""
    def __init__(self, n_fft=16, hop=4, use_polar=True):
        super().__init__()
        self.n_fft, self.hop, self.use_polar = n_fft, hop, use_polar
        self.register_buffer("w", torch.hann_window(n_fft))

    def forward(self, mag, phase):
        mag = torch.exp(mag).clip(max=1e2)
        if self.use_polar:
            s = torch.polar(mag, phase)
        else:
            s = mag * (torch.cos(phase) + 1j * torch.sin(phase))
        return torch.istft(s, self.n_fft, self.hop, window=self.w, center=True)


# ---------------------------------------------------------------- fft

class FftConv(nn.Module):
    """Long convolution by FFT (Hyena / S4 style)."""
    def __init__(self, ch=3, L=16):
        super().__init__()
        self.k = nn.Parameter(torch.randn(ch, L, generator=gen(6)) * 0.1)
        self.D = nn.Parameter(torch.randn(ch, generator=gen(7)))

    def forward(self, u):
        L = u.shape[-1]
        n = 2 * L
        kf = torch.fft.rfft(self.k, n=n)
        uf = torch.fft.rfft(u, n=n)
        y = torch.fft.irfft(uf * kf, n=n, norm="forward")[..., :L]
        return y + u * self.D.unsqueeze(-1)


class SpectralConv2d(nn.Module):
    """Fourier Neural Operator layer: complex weights (cfloat parameters),
    einsum on the low modes, irfft2 back with s=."""
    def __init__(self, cin=2, cout=3, m1=3, m2=3):
        super().__init__()
        self.m1, self.m2, self.cout = m1, m2, cout
        scale = 1 / (cin * cout)
        self.w1 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, dtype=torch.cfloat, generator=gen(8)))
        self.w2 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, dtype=torch.cfloat, generator=gen(9)))

    def forward(self, x):
        b = x.shape[0]
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, self.cout, x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat,
                             device=x.device)
        out_ft[:, :, :self.m1, :self.m2] = torch.einsum(
            "bixy,ioxy->boxy", x_ft[:, :, :self.m1, :self.m2], self.w1)
        out_ft[:, :, -self.m1:, :self.m2] = torch.einsum(
            "bixy,ioxy->boxy", x_ft[:, :, -self.m1:, :self.m2], self.w2)
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


class SpectralConv1d(nn.Module):
    """FNO 1-d with complex weights multiplied by hand (no einsum)."""
    def __init__(self, cin=2, cout=2, modes=4):
        super().__init__()
        self.modes = modes
        self.w = nn.Parameter(torch.randn(cin, cout, modes, dtype=torch.cfloat, generator=gen(10)) * 0.3)

    def forward(self, x):
        xf = torch.fft.rfft(x, norm="ortho")
        lo = xf[:, :, :self.modes]
        y = (lo.unsqueeze(2) * self.w.unsqueeze(0)).sum(1)
        out = torch.zeros(x.shape[0], self.w.shape[1], x.shape[-1] // 2 + 1, dtype=torch.cfloat)
        out[:, :, :self.modes] = y
        return torch.fft.irfft(out, n=x.shape[-1], norm="ortho")


class GFNet(nn.Module):
    """Global filter network: rfft2 over the token grid, times a learned
    complex filter stored as real pairs (view_as_complex), irfft2."""
    def __init__(self, h=4, w=4, dim=3):
        super().__init__()
        self.h, self.w = h, w
        self.complex_weight = nn.Parameter(torch.randn(h, w // 2 + 1, dim, 2, generator=gen(11)) * 0.02)

    def forward(self, x):
        B, N, C = x.shape
        x = x.view(B, self.h, self.w, C).to(torch.float32)
        x = torch.fft.rfft2(x, dim=(1, 2), norm="ortho")
        weight = torch.view_as_complex(self.complex_weight)
        x = x * weight
        x = torch.fft.irfft2(x, s=(self.h, self.w), dim=(1, 2), norm="ortho")
        return x.reshape(B, N, C)


class FNetHF(nn.Module):
    """transformers' FNetBasicFourierTransform: fftn over (seq, hidden)."""
    def forward(self, h):
        return torch.fft.fftn(h, dim=(1, 2)).real


class AutoCorr(nn.Module):
    """Autoformer's autocorrelation: irfft(q_fft * conj(k_fft)) along time."""
    def forward(self, q, k):
        qf = torch.fft.rfft(q.permute(0, 2, 3, 1).contiguous(), dim=-1)
        kf = torch.fft.rfft(k.permute(0, 2, 3, 1).contiguous(), dim=-1)
        res = qf * torch.conj(kf)
        corr = torch.fft.irfft(res, n=q.shape[1], dim=-1)
        return corr.mean(1).mean(1)


class Shifts(nn.Module):
    def forward(self, x):
        s = torch.fft.fftshift(torch.fft.fft2(x), dim=(-2, -1))
        mag = s.abs()
        back = torch.fft.ifft2(torch.fft.ifftshift(s, dim=(-2, -1))).real
        return mag, back, torch.fft.fftshift(x), torch.fft.ifftshift(x, dim=1)


class Freqs(nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        f = torch.fft.fftfreq(n, d=0.5)
        r = torch.fft.rfftfreq(n)
        return x * f, torch.fft.rfft(x).abs() * r


class Fft1d(nn.Module):
    def __init__(self, kind, **kw):
        super().__init__()
        self.kind, self.kw = kind, kw

    def forward(self, x):
        f = getattr(torch.fft, self.kind)
        y = f(x, **self.kw)
        return torch.view_as_real(y) if y.is_complex() else y


class ComplexInput(nn.Module):
    """A complex tensor built from two real inputs, through fft and ifft."""
    def forward(self, re, im):
        z = torch.complex(re, im)
        y = torch.fft.ifft(torch.fft.fft(z, dim=0) * 2, dim=0)
        return torch.view_as_real(y), z.abs(), (z * z.conj()).real, torch.fft.hfft(z)


class PowerSpectrum(nn.Module):
    def forward(self, x):
        f = torch.fft.rfft(x, dim=1, norm="ortho")
        p = f.real ** 2 + f.imag ** 2
        return p, torch.log1p(f.abs()), f.abs().argmax(dim=1)


# ---------------------------------------------------------------- rotary

def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class LlamaAttention(nn.Module):
    """Meta's llama/model.py Attention (no cache): freqs_cis sliced by
    start_pos and seq len from a precomputed complex buffer."""
    def __init__(self, dim=16, heads=2, max_seq=32, buffer=True):
        super().__init__()
        self.h, self.hd = heads, dim // heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.buffer = buffer
        self.max_seq = max_seq
        if buffer:
            self.register_buffer("freqs_cis", precompute_freqs_cis(self.hd, max_seq), persistent=False)

    def forward(self, x):
        bsz, seqlen, _ = x.shape
        fc = self.freqs_cis[:seqlen] if self.buffer else precompute_freqs_cis(self.hd, seqlen)
        xq = self.wq(x).view(bsz, seqlen, self.h, self.hd)
        xk = self.wk(x).view(bsz, seqlen, self.h, self.hd)
        xv = self.wv(x).view(bsz, seqlen, self.h, self.hd)
        xq, xk = apply_rotary_emb(xq, xk, fc)
        xq, xk, xv = xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2)
        s = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.hd)
        mask = torch.full((seqlen, seqlen), float("-inf")).triu(1)
        s = (s + mask).softmax(-1)
        o = torch.matmul(s, xv).transpose(1, 2).reshape(bsz, seqlen, -1)
        return self.wo(o)


class RopeComplexFn(nn.Module):
    """torch.complex(cos, sin) made in forward; rotation of a half-split
    query (ChatGLM/other style via complex mul)."""
    def forward(self, q, pos):
        d = q.shape[-1]
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
        ang = pos.float()[:, None] * inv[None, :]
        rot = torch.complex(torch.cos(ang), torch.sin(ang))
        qc = torch.view_as_complex(q.float().unflatten(-1, (-1, 2)).contiguous())
        return torch.view_as_real(qc * rot).flatten(-2)


class RopeExp(nn.Module):
    """freqs as exp(1j * theta) (torch.exp of a complex)."""
    def forward(self, x):
        n, d = x.shape[-2], x.shape[-1]
        theta = torch.arange(n).float()[:, None] * torch.linspace(0.1, 1.0, d // 2)[None]
        rot = torch.exp(1j * theta)
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], d // 2, 2))
        y = xc * rot
        return torch.view_as_real(y).reshape(x.shape), y.abs()


# ---------------------------------------------------------------- MoE

MOE_COMMON = dict(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=1,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)

MOE_FAMILIES = {
    "mixtral": dict(num_local_experts=4, num_experts_per_tok=2),
    "qwen2_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                      shared_expert_intermediate_size=40, decoder_sparse_step=1, mlp_only_layers=[]),
    "qwen3_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                      decoder_sparse_step=1, mlp_only_layers=[], head_dim=8),
    "olmoe": dict(num_experts=4, num_experts_per_tok=2),
    "granitemoe": dict(num_local_experts=4, num_experts_per_tok=2),
    "granitemoeshared": dict(num_local_experts=4, num_experts_per_tok=2, shared_intermediate_size=24),
    "deepseek_v3": dict(n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                        n_shared_experts=1, first_k_dense_replace=0, n_group=2, topk_group=1,
                        kv_lora_rank=8, q_lora_rank=12, qk_rope_head_dim=8, qk_nope_head_dim=8, head_dim=8,
                        v_head_dim=16, rope_scaling=None, num_key_value_heads=4),
    "deepseek_v2": dict(n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                        n_shared_experts=1, first_k_dense_replace=0, n_group=2, topk_group=1,
                        kv_lora_rank=8, q_lora_rank=12, qk_rope_head_dim=8, qk_nope_head_dim=8, head_dim=8,
                        v_head_dim=16, topk_method="group_limited_greedy", num_key_value_heads=4),
    "gpt_oss": dict(num_local_experts=4, num_experts_per_tok=2, head_dim=8, sliding_window=8,
                    layer_types=["full_attention"]),
    "phimoe": dict(num_local_experts=4, num_experts_per_tok=2),
    "dbrx": None,  # its own nested config
    "jamba": dict(num_experts=4, num_experts_per_tok=2, attn_layer_period=1, attn_layer_offset=0,
                  expert_layer_period=1, expert_layer_offset=0, use_mamba_kernels=False),
    "hunyuan_v1_moe": dict(num_experts=4, moe_topk=2, head_dim=8),
    "ernie4_5_moe": dict(moe_num_experts=4, moe_k=2, moe_intermediate_size=24, moe_layer_start_index=0,
                         moe_num_shared_experts=1),
    "glm4_moe": dict(n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                     first_k_dense_replace=0, n_group=1, topk_group=1, n_shared_experts=1, head_dim=8),
    "dots1": dict(n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                  first_k_dense_replace=0, n_group=1, topk_group=1, n_shared_experts=1, head_dim=8),
    "flex_olmo": dict(num_experts=4, num_experts_per_tok=2, pad_token_id=0, eos_token_id=1, bos_token_id=None),
    "minimax": dict(num_local_experts=4, num_experts_per_tok=2, head_dim=8,
                    layer_types=["full_attention"]),
    "jetmoe": dict(num_local_experts=4, num_experts_per_tok=2, kv_channels=8, num_key_value_heads=4),
    "lfm2_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                     num_dense_layers=0, layer_types=["full_attention"]),
    "exaone_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                       first_k_dense_replace=0, head_dim=8),
}


class Lm(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids):
        return self.m(input_ids=ids, use_cache=False).logits


def moe_model(family):
    import transformers
    torch.manual_seed(0)
    if family == "dbrx":
        cfg = transformers.DbrxConfig(
            d_model=32, n_heads=4, n_layers=1, max_seq_len=64, vocab_size=64,
            attn_config=dict(kv_n_heads=2, rope_theta=10000.0, clip_qkv=8.0),
            ffn_config=dict(ffn_hidden_size=32, moe_num_experts=4, moe_top_k=2))
    else:
        kw = dict(MOE_COMMON)
        kw.update(MOE_FAMILIES[family])
        cfg = transformers.AutoConfig.for_model(family, **kw)
    m = transformers.AutoModelForCausalLM.from_config(cfg)
    # routers some families start at zero (ERNIE 4.5): random weights, as
    # a trained model has, so that top-k has no ties
    with torch.no_grad():
        for p in m.parameters():
            if not p.any():
                p.normal_(0, 0.1, generator=gen(12))
    return Lm(m.eval())


def moe_block_case(family, attr, dyn=True):
    """The mixture-of-experts block of layer 0 alone, on a dynamic
    sequence length (the committed tests: small, no model.pt2)."""
    def build():
        blk = getattr(moe_model(family).m.model.layers[0], attr)
        h = lambda n, seed: (rn(2, n, 32, seed=seed),)
        if not dyn:
            return case(blk, h(6, 1), h(6, 2), pt2=False)
        return case(blk, h(6, 1), h(3, 2), h(9, 3), pt2=False,
                    dynamic_shapes=({1: Dim("seq", min=2, max=32)},))
    return build


def tokens(n, seed, b=1):
    return torch.randint(0, 64, (b, n), generator=gen(seed))


def moe_case(family, dyn=False):
    def build():
        m = moe_model(family)
        if dyn:
            return case(m, (tokens(8, 1),), (tokens(5, 2),), (tokens(11, 3),),
                        dynamic_shapes=({1: Dim("seq", min=2, max=32)},), atol=2e-4)
        return case(m, (tokens(7, 1, 2),), (tokens(7, 2, 2),), atol=2e-4)
    return build


# ---------------------------------------------------------------- torchvision

def boxes(n, g, scale=20.0):
    xy = torch.rand(n, 2, generator=g) * scale
    wh = torch.rand(n, 2, generator=g) * scale / 2 + 1
    return torch.cat([xy, xy + wh], 1)


def rois(n, batch, g, scale=12.0):
    b = torch.randint(0, batch, (n, 1), generator=g).float()
    return torch.cat([b, boxes(n, g, scale)], 1)


class TvNmsThresh(nn.Module):
    def __init__(self, iou=0.5, score=0.2):
        super().__init__()
        self.iou, self.score = iou, score

    def forward(self, b, s):
        import torchvision
        keep = s > self.score
        b, s = b[keep], s[keep]
        k = torchvision.ops.nms(b, s, self.iou)
        return b[k], s[k]


class TvBatchedNms(nn.Module):
    def forward(self, b, s, idx):
        import torchvision
        keep = torchvision.ops.batched_nms(b, s, idx, 0.4)
        return keep, s[keep]


class TvBoxOps(nn.Module):
    def forward(self, a, b):
        import torchvision.ops as ops
        return (ops.box_iou(a, b), ops.box_area(a), ops.generalized_box_iou(a, b),
                ops.box_convert(a, "xyxy", "cxcywh"), ops.clip_boxes_to_image(a * 1.5, (16, 20)),
                ops.remove_small_boxes(a, 6.0))


class TvRoiAlign(nn.Module):
    def __init__(self, out=(3, 3), scale=0.5, ratio=-1, aligned=False, as_list=False):
        super().__init__()
        self.out, self.scale, self.ratio, self.aligned, self.as_list = out, scale, ratio, aligned, as_list

    def forward(self, x, *bs):
        import torchvision
        r = list(bs) if self.as_list else bs[0]
        return torchvision.ops.roi_align(x, r, self.out, spatial_scale=self.scale,
                                         sampling_ratio=self.ratio, aligned=self.aligned)


class TvRoiAlignModule(nn.Module):
    def __init__(self):
        super().__init__()
        import torchvision
        self.ra = torchvision.ops.RoIAlign((2, 2), spatial_scale=0.25, sampling_ratio=2, aligned=True)
        self.rp = torchvision.ops.RoIPool((2, 2), spatial_scale=0.25)

    def forward(self, x, r):
        return self.ra(x, r), self.rp(x, r)


class TvPs(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, x, r):
        import torchvision.ops as ops
        if self.kind == "align":
            return ops.ps_roi_align(x, r, 2, spatial_scale=0.5, sampling_ratio=2)
        if self.kind == "align_adaptive":
            return ops.ps_roi_align(x, r, (2, 3), spatial_scale=0.25, sampling_ratio=-1)
        return ops.ps_roi_pool(x, r, (2, 2), spatial_scale=0.5)


class TvMultiScale(nn.Module):
    def __init__(self):
        super().__init__()
        import torchvision
        self.p = torchvision.ops.MultiScaleRoIAlign(["f0", "f1"], 3, 2)

    def forward(self, f0, f1, b0):
        return self.p({"f0": f0, "f1": f1}, [b0], [(32, 32)])


class TvHead(nn.Module):
    """A tiny two-stage head: backbone conv, roi_align of proposals,
    a box regressor and classifier, nms of the scored boxes."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, stride=2)
        self.fc = nn.Linear(4 * 2 * 2, 16)
        self.cls = nn.Linear(16, 3)
        self.reg = nn.Linear(16, 4)

    def forward(self, img, props):
        import torchvision
        f = self.conv(img).relu()
        p = torchvision.ops.roi_align(f, [props], (2, 2), spatial_scale=0.5, sampling_ratio=2)
        h = self.fc(p.flatten(1)).relu()
        sc = self.cls(h).softmax(-1)[:, 1]
        bx = props + self.reg(h)
        keep = torchvision.ops.nms(bx, sc, 0.5)
        return bx[keep], sc[keep]


# ---------------------------------------------------------------- autocast

class AcCpuBf16(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 8)
        self.l2 = nn.Linear(8, 4)
        self.ln = nn.LayerNorm(8)

    def forward(self, x):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            h = nn.functional.gelu(self.ln(self.l1(x)))
            y = self.l2(h)
        return y.float().softmax(-1)


class AcCudaFp16(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 6)

    def forward(self, x):
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            y = self.l1(x).relu()
        return y * 2


class AcAmpDecorated(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 6)
        self.conv = nn.Conv1d(2, 3, 3)

    @torch.autocast("cpu", dtype=torch.bfloat16)
    def forward(self, x, s):
        a = self.l1(x)
        c = self.conv(s)
        return a.sum(-1).float(), torch.bmm(c, c.transpose(1, 2)).float(), (a.exp() + 1).log().float()


class AcNestedDtype(nn.Module):
    """bf16 region, an inner float16 region, an inner disabled region."""
    def forward(self, x, w):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            a = x @ w
            with torch.autocast("cpu", dtype=torch.float16):
                b = x @ w
            with torch.autocast("cpu", enabled=False):
                c = x.float() @ w.float()
            d = torch.addmm(a.float(), x, w)
        return a.float(), b.float(), c, d.float()


class AcAttention(nn.Module):
    """A transformer block under autocast bf16: sdpa, layer norm, linear."""
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.o = nn.Linear(16, 16)
        self.n = nn.LayerNorm(16)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            q, k, v = self.qkv(self.n(x)).view(x.shape[0], x.shape[1], 3, 2, 8).unbind(2)
            a = nn.functional.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                                           v.transpose(1, 2), is_causal=True)
            y = self.o(a.transpose(1, 2).reshape(x.shape))
        return x + y.float()


class AcConvBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        with torch.amp.autocast("cpu", dtype=torch.bfloat16):
            y = self.bn(self.c(x)).relu().mean((2, 3))
            z = self.fc(y)
        return z.float(), nn.functional.cross_entropy(z.float(), torch.tensor([0, 1]))


# ---------------------------------------------------------------- the table

X = lambda *s: (rn(*s),)
CASES = {
    # stft
    "sp_stft_nowin_abs": lambda: case(Stft(32, 8, window=None), X(2, 200)),
    "sp_stft_hamming_nocenter": lambda: case(Stft(32, 8, window="hamming", center=False), X(2, 200)),
    "sp_stft_constpad_power": lambda: case(Stft(32, 16, pad_mode="constant", out="power"), X(3, 160)),
    "sp_stft_twosided": lambda: case(Stft(16, 4, onesided=False, out="view_as_real"), X(1, 64)),
    "sp_stft_normalized_sq": lambda: case(Stft(32, 8, normalized=True, out="sq"), X(2, 128)),
    "sp_stft_real_imag": lambda: case(Stft(20, 5, win_length=16, out="real"), X(100)),
    "sp_stft_default_hop": lambda: case(Stft(32, out="abs"), X(2, 256)),
    "sp_stft_window_in_fwd": lambda: case(Stft(32, 8, in_forward=True), X(2, 200)),
    "sp_stft_blackman_angle": lambda: case(Stft(32, 8, window="blackman", out="angle"), X(2, 200)),
    "sp_stft_dynlen": lambda: case(Stft(32, 8), (rn(2, 200),), (rn(2, 264, seed=2),),
                                   dynamic_shapes=({1: Dim("n", min=64, max=1024)},)),
    "sp_stft_dynbatch_len": lambda: case(Stft(32, 8, out="power"), (rn(2, 200),), (rn(3, 176, seed=2),),
                                         dynamic_shapes=({0: Dim("b"), 1: Dim("n", min=64, max=1024)},)),
    "sp_stft_dynlen_nocenter": lambda: case(Stft(32, 8, center=False), (rn(2, 200),), (rn(2, 264, seed=2),),
                                            dynamic_shapes=({1: Dim("n", min=64, max=1024)},)),
    "sp_stft_real_form": lambda: case(StftReal(32, 8), X(2, 128)),
    "sp_windows": lambda: case(Fn(lambda x: (
        x[:16] * torch.hann_window(16, periodic=False), x[:9] * torch.hamming_window(9, False, 0.6, 0.4),
        x[:12] * torch.blackman_window(12), x[:7] * torch.bartlett_window(7),
        x[:10] * torch.kaiser_window(10, True, 5.0), x[:1] * torch.hann_window(1),
        x[:8] * torch.kaiser_window(8), torch.hann_window(6, dtype=torch.float64))), X(16)),
    "sp_whisper_logmel": lambda: case(WhisperLogMel(), X(2, 320)),
    "sp_whisper_logmel_1d": lambda: case(WhisperLogMel(), X(320)),
    "sp_torchaudio_mel": lambda: case(TorchaudioMel(), X(2, 1, 160)),
    "sp_torchaudio_mel_dyn": lambda: case(TorchaudioMel(), (rn(2, 1, 160),), (rn(2, 1, 200, seed=2),),
                                          dynamic_shapes=({2: Dim.DYNAMIC},)),
    "sp_istft_hamming": lambda: case(Istft(32, 8, window="hamming"), X(2, 256)),
    "sp_istft_normalized": lambda: case(Istft(16, 4, normalized=True, length=100), X(100)),
    "sp_istft_dynlen": lambda: case(Istft(32, 8), (rn(2, 256),), (rn(2, 320, seed=2),),
                                    dynamic_shapes=({1: Dim.DYNAMIC},)),
    "sp_istft_dynlen_length": lambda: case(Istft(16, 4, window="hamming", center=True, length=150),
                                           (rn(2, 150),), (rn(2, 190, seed=2),), (rn(2, 120, seed=3),),
                                           dynamic_shapes=({1: Dim.DYNAMIC},)),
    "sp_istft_dynlen_nocenter": lambda: case(Istft(16, 4, window="hamming", center=False, normalized=True), (rn(2, 100),),
                                             (rn(2, 132, seed=2),), dynamic_shapes=({1: Dim.DYNAMIC},)),
    "sp_vocos_dynframes": lambda: case(IstftFromReal(), (rn(2, 9, 20), rn(2, 9, 20, seed=2)),
                                       (rn(2, 9, 31, seed=3), rn(2, 9, 31, seed=4)),
                                       dynamic_shapes=({2: Dim.DYNAMIC}, {2: Dim.DYNAMIC})),
    "sp_istft_twosided": lambda: case(Istft(16, 4, onesided=False), X(96)),
    "sp_vocos_polar": lambda: case(IstftFromReal(), (rn(2, 9, 20), rn(2, 9, 20, seed=2))),
    "sp_vocos_exp1j": lambda: case(IstftFromReal(use_polar=False), (rn(2, 9, 20), rn(2, 9, 20, seed=2))),
    # fft
    "ff_fft_n_dim": lambda: case(Fft1d("fft", n=10, dim=0, norm="ortho"), X(6, 5)),
    "ff_ifft_forward": lambda: case(Fft1d("ifft", norm="forward"), X(3, 8)),
    "ff_rfft_dim1_n": lambda: case(Fft1d("rfft", n=7, dim=1), X(2, 9, 3)),
    "ff_irfft_odd": lambda: case(Fft1d("irfft", n=9, dim=-1, norm="backward"), X(2, 5)),
    "ff_fft2_s": lambda: case(Fft1d("fft2", s=(4, 6), norm="ortho"), X(2, 5, 5)),
    "ff_rfftn": lambda: case(Fft1d("rfftn", dim=(1, 2)), X(2, 4, 6)),
    "ff_irfftn_s": lambda: case(Fft1d("irfftn", s=(4, 6), dim=(-2, -1)), X(2, 4, 4)),
    "ff_hfft": lambda: case(Fft1d("hfft", n=10, norm="ortho"), X(3, 6)),
    "ff_ihfft": lambda: case(Fft1d("ihfft", dim=0), X(7, 3)),
    "ff_ifftn_all": lambda: case(Fft1d("ifftn"), X(2, 3, 4)),
    "ff_shifts": lambda: case(Shifts(), X(2, 4, 5)),
    "ff_freqs": lambda: case(Freqs(), X(3, 8)),
    "ff_freqs_odd": lambda: case(Freqs(), X(2, 7)),
    "ff_freqs_dyn": lambda: case(Freqs(), (rn(3, 8),), (rn(3, 12, seed=2),),
                                 dynamic_shapes=({1: Dim("n", min=2, max=64)},)),
    "ff_fftconv": lambda: case(FftConv(), X(2, 3, 16)),
    "ff_fftconv_dyn": lambda: case(FftConv(), (rn(2, 3, 16),), (rn(1, 3, 16, seed=2),),
                                   dynamic_shapes=({0: Dim("b")},)),
    "ff_fno2d": lambda: case(SpectralConv2d(), X(2, 2, 8, 8)),
    "ff_fno1d": lambda: case(SpectralConv1d(), X(2, 2, 12)),
    "ff_gfnet": lambda: case(GFNet(), X(2, 16, 3)),
    "ff_fnet_hf": lambda: case(FNetHF(), X(2, 6, 8)),
    "ff_fnet_hf_dynseq": lambda: case(FNetHF(), (rn(2, 6, 8),), (rn(2, 9, 8, seed=2),),
                                      dynamic_shapes=({1: Dim("s", min=2, max=64)},)),
    "ff_dyn_norms": lambda: case(Fn(lambda x: (
        torch.view_as_real(F.fft(x, dim=1, norm="ortho")), F.ifft(x, dim=1).real,
        F.rfft(x, dim=1, norm="forward").abs(), F.ifftn(x, dim=(0, 1), norm="ortho").imag,
        F.ihfft(x, dim=1).real, torch.view_as_real(F.rfft2(x, dim=(0, 1))),
        F.ifft(F.fft(x, dim=1), dim=1, norm="forward").real)),
        (rn(3, 8),), (rn(3, 11, seed=2),), dynamic_shapes=(({1: Dim("n", min=2, max=64)},),)),
    "ff_autocorr": lambda: case(AutoCorr(), (rn(2, 8, 2, 3), rn(2, 8, 2, 3, seed=2))),
    "ff_complex_input": lambda: case(ComplexInput(), (rn(4, 5), rn(4, 5, seed=2))),
    "ff_power_spectrum": lambda: case(PowerSpectrum(), X(2, 16, 3)),
    "ff_fft_f64": lambda: case(Fft1d("rfft", norm="ortho"), (rn(3, 8).double(),), atol=1e-9),
    # rotary embeddings
    "rope_llama_attn": lambda: case(LlamaAttention(), X(2, 6, 16)),
    "rope_llama_attn_dynseq": lambda: case(LlamaAttention(), (rn(2, 6, 16),), (rn(2, 9, 16, seed=2),),
                                           dynamic_shapes=({1: Dim("seq", min=2, max=32)},)),
    "rope_llama_fwd_polar": lambda: case(LlamaAttention(buffer=False), X(1, 5, 16)),
    "rope_llama_fwd_polar_dyn": lambda: case(LlamaAttention(buffer=False), (rn(2, 5, 16),), (rn(3, 7, 16, seed=2),),
                                             dynamic_shapes=({0: Dim("b"), 1: Dim("seq", min=2, max=32)},)),
    "rope_complex_fn": lambda: case(RopeComplexFn(), (rn(2, 4, 8), torch.arange(4))),
    "rope_exp1j": lambda: case(RopeExp(), X(2, 5, 8)),
    "rope_half": lambda: case(Fn(lambda q: apply_rotary_emb(q, q * 2, precompute_freqs_cis(8, 6))),
                              (rn(1, 6, 2, 8).half(),), atol=2e-3, rtol=2e-3),
    # MoE
    **{f"moe_{f}": moe_case(f) for f in MOE_FAMILIES},
    "moe_mixtral_dynseq": moe_case("mixtral", dyn=True),
    "moe_block_mixtral_dynseq": moe_block_case("mixtral", "mlp"),
    "moe_block_granitemoe": moe_block_case("granitemoe", "block_sparse_moe", dyn=False),
    "moe_block_jetmoe_dynseq": moe_block_case("jetmoe", "mlp"),
    "moe_qwen3_moe_dynseq": moe_case("qwen3_moe", dyn=True),
    "moe_deepseek_v3_dynseq": moe_case("deepseek_v3", dyn=True),
    "moe_gpt_oss_dynseq": moe_case("gpt_oss", dyn=True),
    # torchvision
    "tv_nms_thresh": lambda: case(TvNmsThresh(), (boxes(16, gen(2)), torch.rand(16, generator=gen(3)))),
    "tv_batched_nms": lambda: case(TvBatchedNms(), (boxes(14, gen(2)), torch.rand(14, generator=gen(3)),
                                                    torch.randint(0, 3, (14,), generator=gen(4)))),
    "tv_box_ops": lambda: case(TvBoxOps(), (boxes(5, gen(2)), boxes(4, gen(3)))),
    "tv_roi_align_list": lambda: case(TvRoiAlign(as_list=True, ratio=2),
                                      (rn(2, 3, 12, 12), boxes(3, gen(2), 10), boxes(2, gen(3), 10))),
    "tv_roi_align_adaptive": lambda: case(TvRoiAlign(out=(2, 4), scale=0.25, ratio=-1),
                                          (rn(2, 3, 10, 10), rois(6, 2, gen(2), 30.0))),
    "tv_roi_align_aligned_r2": lambda: case(TvRoiAlign(out=2, scale=1.0, ratio=2, aligned=True),
                                            (rn(1, 2, 8, 8), rois(4, 1, gen(2), 6.0))),
    "tv_roi_align_dynk": lambda: case(TvRoiAlign(ratio=2), (rn(2, 3, 10, 10), rois(5, 2, gen(2))),
                                      (rn(2, 3, 10, 10, seed=3), rois(3, 2, gen(4))),
                                      dynamic_shapes=(None, ({0: Dim("k")},))),
    "tv_roi_modules": lambda: case(TvRoiAlignModule(), (rn(2, 3, 16, 16), rois(4, 2, gen(2), 40.0))),
    "tv_ps_roi_align": lambda: case(TvPs("align"), (rn(1, 8, 10, 10), rois(3, 1, gen(2)))),
    "tv_ps_roi_align_adaptive": lambda: case(TvPs("align_adaptive"), (rn(2, 12, 9, 9), rois(5, 2, gen(2), 30.0))),
    "tv_ps_roi_pool": lambda: case(TvPs("pool"), (rn(1, 8, 10, 10), rois(3, 1, gen(2)))),
    "tv_multiscale": lambda: case(TvMultiScale(), (rn(1, 2, 8, 8), rn(1, 2, 4, 4, seed=2),
                                                   boxes(4, gen(3), 16.0))),
    "tv_det_head": lambda: case(TvHead(), (rn(1, 3, 16, 16), boxes(6, gen(3), 8.0))),
    # autocast
    "ac_cpu_bf16_mlp": lambda: case(AcCpuBf16(), X(3, 8), atol=3e-2, rtol=3e-2),
    "ac_cuda_fp16": lambda: case(AcCudaFp16(), X(3, 8)),
    "ac_decorated": lambda: case(AcAmpDecorated(), (rn(3, 8), rn(2, 2, 6, seed=2)), atol=3e-2, rtol=3e-2),
    "ac_nested_dtype": lambda: case(AcNestedDtype(), (rn(4, 6), rn(6, 3, seed=2)), atol=3e-2, rtol=3e-2),
    "ac_attention": lambda: case(AcAttention(), X(2, 5, 16), atol=3e-2, rtol=3e-2),
    "ac_attention_dyn": lambda: case(AcAttention(), (rn(2, 5, 16),), (rn(1, 7, 16, seed=2),),
                                     dynamic_shapes=({0: Dim("b"), 1: Dim("s", min=2, max=32)},),
                                     atol=3e-2, rtol=3e-2),
    "ac_convbn_train": lambda: case(AcConvBn(), X(2, 3, 6, 6), atol=3e-2, rtol=3e-2),
}
