"""Small training-IR programs for the inline and functionalize passes and the
composite ops they meet (tests/cases-training).  Made with real PyTorch:

    /work/shared/tools/torch-env run 2.14 python3 /work/shared/tools/gen2/gen.py \
        tests/cases-training cases_training   (with tests/gen on PYTHONPATH)
"""
import torch
import torch.nn as nn


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), core=False, pt2=False, **kw)


class GradNested(nn.Module):
    """no_grad around enable_grad: nested wrap_with_set_grad_enabled, several outputs."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
    def forward(self, x):
        with torch.no_grad():
            a = self.lin(x).relu()
            with torch.enable_grad():
                b = a * 2 + x
                c = b.sin()
            d = c - a
        return a, c, d + 1


class AutocastOff(nn.Module):
    def forward(self, x):
        with torch.autocast("cpu", enabled=False):
            y = x @ x.transpose(0, 1)
        return y.tanh()


class Views(nn.Module):
    """A write through each view kind PyTorch can invert."""
    def forward(self, x):
        outs = []
        b = x.new_zeros(4, 6); b[1:3].fill_(1.0); outs.append(b)               # slice
        b = x.new_zeros(4, 6); b[2].add_(x[0]); outs.append(b)                 # select
        b = x.new_zeros(4, 6); b.narrow(1, 2, 3).fill_(2.0); outs.append(b)    # narrow
        b = x.clone(); b.view(24).mul_(3.0); outs.append(b)                    # view
        b = x.clone(); b.reshape(2, 12)[0].zero_(); outs.append(b)             # reshape, select
        b = x.clone(); b.unsqueeze(0).sub_(1.0); outs.append(b)                # unsqueeze
        b = x.clone()[None]; b.squeeze(0).clamp_(min=0.0); outs.append(b)      # squeeze
        b = x.clone(); b.transpose(0, 1)[1].fill_(5.0); outs.append(b)         # transpose
        b = x.clone(); b.t()[0].fill_(6.0); outs.append(b)                     # t
        b = x.clone().view(2, 2, 6); b.permute(2, 0, 1)[3].relu_(); outs.append(b)  # permute
        b = x.clone(); torch.ops.aten.alias(b).neg_(); outs.append(b)          # alias
        return tuple(outs)


class ViewOfView(nn.Module):
    """A write through a view of a view; then reads of the base, of a sibling
    view made before the write, and of the written view."""
    def forward(self, x):
        b = x.new_zeros(4, 6)
        sib = b[:, 0]          # sibling view, read after the write
        v = b[1:3]
        w = v[:, 2:5]
        w.copy_(x[:2, :3])
        w.add_(1.0)
        s = b.sum()
        return b * 2, sib + 0, v.clone(), s


class InputMutation(nn.Module):
    """In-place on a user input (through a view) and on a buffer."""
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))
    def forward(self, x):
        x[:, 1].mul_(2.0)
        self.count.add_(1.0)
        return x.sum(1) + self.count.sum()


class SwinMask(nn.Module):
    """Swin's attention mask: fill_ on slices of new_zeros, then a view of it."""
    def forward(self, x):
        m = x.new_zeros(8, 8)
        cnt = 0
        for h in (slice(0, -4), slice(-4, -2), slice(-2, None)):
            for w in (slice(0, -4), slice(-4, -2), slice(-2, None)):
                m[h, w] = cnt
                cnt += 1
        m = m.view(2, 4, 2, 4).permute(0, 2, 1, 3).reshape(4, 16)
        d = m.unsqueeze(1) - m.unsqueeze(2)
        return x + d.masked_fill(d != 0, -100.0).sum()


class Ops(nn.Module):
    """diff (with prepend/append, n=2, bool) and min/max.other."""
    def forward(self, x, y):
        a = torch.diff(x, dim=-1)
        b = torch.diff(x, n=2, dim=0, prepend=y[:1], append=y[:2])
        c = torch.diff(x > 0, dim=1)
        return a, b, c, torch.min(x, y), torch.max(x, y)


CASES = {
    "inline_grad_nested": lambda: case(GradNested(), (torch.randn(3, 4),)),
    "inline_autocast_off": lambda: case(AutocastOff(), (torch.randn(3, 4),)),
    "func_views": lambda: case(Views(), (torch.randn(4, 6),)),
    "func_view_of_view": lambda: case(ViewOfView(), (torch.randn(4, 6),)),
    "func_input_mutation": lambda: case(InputMutation(), (torch.randn(4, 3),)),
    "func_swin_mask": lambda: case(SwinMask(), (torch.randn(4, 16, 16),)),
    "ops_diff_minmax": lambda: case(Ops(), (torch.randn(5, 6), torch.randn(5, 6))),
}


class Composite(nn.Module):
    """Composite ops the training IR keeps: broadcast_to, weight norm,
    histc (fixed and data range), empty_permuted (shape only)."""
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.utils.parametrizations.weight_norm(nn.Linear(4, 3))
        self.v = nn.Parameter(torch.randn(3, 4))
        self.g = nn.Parameter(torch.rand(3, 1) + 0.5)
    def forward(self, x):
        a = torch.broadcast_to(x[:1], (3, 4))
        w = torch._weight_norm(self.v, self.g, 0)
        w1 = torch._weight_norm(self.v, self.g[:1, :1].reshape(1, 1) + 0.0, -1)
        h = torch.histc(x, bins=5, min=-1.0, max=1.0)
        h2 = torch.histc(x, bins=4)
        e = torch.empty_permuted((3, 4), (1, 0)).fill_(2.0)
        return a + e, x @ w.t(), w1, h, h2, self.lin(x)


CASES["ops_composite"] = lambda: case(Composite(), (torch.randn(3, 4),))


class MetaInplace(nn.Module):
    """In-place ops that change a tensor's shape, not its data (unsqueeze_,
    transpose_), then writes through the renamed tensor and an expand to its
    own shape; the base and a view taken before see them."""
    def forward(self, x):
        base = x.clone()
        before = base[1]
        b = base.view(4, 6)
        b.unsqueeze_(0)
        b[0, 1].fill_(3.0)
        b.transpose_(1, 2)
        b[0, 0].mul_(2.0)
        base.expand(4, 6).add_(1.0)
        return base, before * 1, b * 1


CASES["func_metadata_inplace"] = lambda: case(MetaInplace(), (torch.randn(4, 6),))


class Attention(nn.Module):
    """scaled_dot_product_attention with each argument: bool and float
    masks, is_causal, scale, enable_gqa."""
    def forward(self, q, k, v, m):
        F = torch.nn.functional
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=m > 0)
        b = F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3)
        c = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        kg, vg = k[:, :2], v[:, :2]
        d = F.scaled_dot_product_attention(q, kg, vg, enable_gqa=True)
        return a, b, c, d


class Misc(nn.Module):
    """Pre-dispatch ops as the training IR prints them."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.convt = nn.ConvTranspose2d(4, 2, 2, stride=2)
        self.gn = nn.GroupNorm(2, 4)
        self.ln = nn.LayerNorm(8)
        self.bn = nn.BatchNorm2d(4)
    def forward(self, x):
        F = torch.nn.functional
        y = self.bn(self.gn(self.conv(x)))
        outs = [self.convt(y)]
        for mode in ("constant", "reflect", "replicate", "circular"):
            outs.append(F.pad(y, (1, 2, 2, 1), mode=mode))
        outs.append(F.interpolate(y, scale_factor=2.0, mode="nearest"))
        outs.append(F.interpolate(y, scale_factor=1.5, mode="bilinear", align_corners=False))
        outs.append(F.dropout(self.ln(y), 0.5, training=False))
        a, b = y.chunk(2, dim=1)
        c = torch.stack(y.unbind(1), 0)
        d = y.split([1, 3], dim=1)[1]
        outs += [a * b, c, d.repeat_interleave(2, dim=1), y.flatten(1).unflatten(1, (2, -1))]
        outs.append(y.new_ones(3) + y.new_full((3,), 2.0) + torch.scalar_tensor(1.5))
        outs.append(y.to(torch.float64).type_as(x).contiguous().clone(memory_format=torch.channels_last))
        outs.append(torch.einsum("bchw,bdhw->bcd", y, y))
        outs.append(F.softmax(y, dim=1) + F.log_softmax(y, dim=-1))
        return tuple(outs)


CASES["ops_attention"] = lambda: case(Attention(), (torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8),
                                                   torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 5)))
CASES["ops_misc"] = lambda: case(Misc(), (torch.randn(2, 3, 8, 8),))


class MultiViews(nn.Module):
    """Writes through outputs of split, chunk, split_with_sizes and unbind,
    then reads of the base and of a sibling output made before."""
    def forward(self, x):
        b = x.clone()
        p, q = b.split(2, dim=1)
        p.mul_(2.0)
        c0, c1, c2 = b.chunk(3, dim=0)
        c2.fill_(-1.0)
        r = b.split_with_sizes([1, 3], dim=1)[1]
        r.add_(10.0)
        u = b.unbind(0)
        u[1].zero_()
        return b, q * 1, c0 * 1, u[0] * 1


CASES["func_multi_views"] = lambda: case(MultiViews(), (torch.randn(5, 4),))


class TensorSplitViews(nn.Module):
    """Writes through outputs of tensor_split into sections, whose first
    len % n pieces are one longer (not split's pieces of n), then reads of
    the base and of sibling outputs made before."""
    def forward(self, x):
        b = x.clone()
        p, q, r = b.tensor_split(3, dim=0)
        q.fill_(-1.0)
        s0, s1 = b.tensor_split(2, dim=1)
        s1.mul_(2.0)
        return b, p * 1, r * 1, s0 * 1


CASES["func_tensor_split_views"] = lambda: case(TensorSplitViews(),
                                                (torch.randn(7, 5),))
