"""Training-IR programs with pre-dispatch helpers and enabled autocast regions
(tests/cases-training, issue 35).  Made with real PyTorch:

    /work/shared/tools/torch-env run 2.14 python3 /work/shared/tools/gen2/gen.py \
        tests/cases-training cases_predispatch   (with tests/gen on PYTHONPATH)
"""
import torch
import torch.nn as nn


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), core=False, pt2=False, **kw)


class VmapElementwise(nn.Module):
    """torch.vmap over dim 0 of an elementwise body: lazy_load_decompositions,
    _vmap_increment_nesting/_vmap_decrement_nesting and the batch-dim markers."""
    def forward(self, x):
        return torch.vmap(lambda r: r.sin() * 2)(x)


class VmapInputReadOutside(nn.Module):
    """The mapped input is read outside the region too (unbatched there)."""
    def forward(self, x):
        return torch.vmap(lambda r: r.cos() + 1)(x) * x + x.sum(0)


class VmapInDim1(nn.Module):
    """vmap over dim 1, output batch dim 0, two inputs (one not mapped)."""
    def forward(self, x, y):
        return torch.vmap(lambda r, s: (r * s).tanh() + r, in_dims=(1, None))(x, y)


class VmapInDim2(nn.Module):
    """vmap over dim 2 of a 3-D input (out_dims other than 0 do not
    export in torch 2.14: a lifted fake tensor); a per-sample
    operand of lower rank (broadcast) and a scalar."""
    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.linspace(-1, 1, 4))
    def forward(self, x):
        return torch.vmap(lambda r: torch.where(r > 0, r * self.b, r.sigmoid()), in_dims=2)(x)


class VmapAlong(nn.Module):
    """Per-sample ops along dims (sum, softmax, negative and positive
    dims) and products with the batched operand first (linear, matmul)."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 3)
        self.register_buffer("w", torch.randn(3, 2))
    def forward(self, x):
        def f(r):
            h = self.lin(r).softmax(-1)
            return ((h @ self.w).sum(0) + r.mean(1, keepdim=True).sum(0)
                    + h.cumsum(0).amax([0]).logsumexp(-1, keepdim=True))
        return torch.vmap(f)(x)


class VmapNestedMask(nn.Module):
    """transformers' masking_utils: a mask function of (batch, head, q, kv)
    index scalars vmapped over all four (nested levels, inputs mapped at
    one level each, results not batched at some levels expanded)."""
    def forward(self, x):
        def mask(b, h, q, kv):
            return (kv <= q) & (q - kv < 3)
        f = mask
        for dims in [(None, None, None, 0), (None, None, 0, None),
                     (None, 0, None, None), (0, None, None, None)]:
            f = torch.vmap(f, in_dims=dims, out_dims=0)
        n = x.shape[-1]
        m = f(torch.arange(x.shape[0]), torch.arange(1), torch.arange(n), torch.arange(n))
        return x.masked_fill(~m, -1.0)


class VmapNestedOuter(nn.Module):
    """An outer product by nested vmap: operands batched at different
    levels meet in one op (level dims aligned), a reduction inside."""
    def forward(self, a, b):
        f = lambda r, s: (r * s + r).sum(-1) + s.amax(0)
        return torch.vmap(torch.vmap(f, in_dims=(0, None)), in_dims=(None, 0))(a, b)


class VmapMaskDynamic(nn.Module):
    """transformers' and_masks as Falcon exports it: the mask starts as
    q.new_ones((), dtype=bool) (the same for every sample), each term is
    .to() its device; batch and sequence sizes are symbolic, so the levels
    a result is not batched at expand to a symbolic size."""
    def forward(self, x):
        def causal(b, h, q, kv):
            return kv <= q
        def window(b, h, q, kv):
            return q - kv < 3
        def mask(b, h, q, kv):
            r = q.new_ones((), dtype=torch.bool)
            for f in (causal, window):
                r = r & f(b, h, q, kv).to(r.device)
            return r
        f = mask
        for dims in [(None, None, None, 0), (None, None, 0, None),
                     (None, 0, None, None), (0, None, None, None)]:
            f = torch.vmap(f, in_dims=dims, out_dims=0)
        n = x.shape[-1]
        m = f(torch.arange(x.shape[0]), torch.arange(1), torch.arange(n) + 0, torch.arange(n) + 0)
        return x.masked_fill(~m, -1.0)


class VmapPaddingMask(nn.Module):
    """transformers' padding_mask_function under its 4-level vmap:
    padding_mask[batch_idx, kv_idx] of the mask input by batched index
    scalars, which torch.export writes as flat_apply(..., ModIndex, ...);
    functorch leaves a dead unsqueeze/expand of a batched value behind.
    modindex: under TransformGetItemToIndex, as transformers calls it, the
    indexing is written flat_apply(spec, ModIndex, ...)."""
    def __init__(self, modindex=False):
        super().__init__()
        self.modindex = modindex

    def forward(self, x, pad):
        def mask(b, h, q, kv):
            r = q.new_ones((), dtype=torch.bool)
            r = r & (kv <= q).to(r.device)
            return r & pad[b, kv].to(r.device)
        f = mask
        for dims in [(None, None, None, 0), (None, None, 0, None),
                     (None, 0, None, None), (0, None, None, None)]:
            f = torch.vmap(f, in_dims=dims, out_dims=0)
        n = x.shape[-1]
        args = (torch.arange(x.shape[0]), torch.arange(1), torch.arange(n) + 0, torch.arange(n) + 0)
        if self.modindex:
            from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
            with TransformGetItemToIndex():
                m = f(*args)
        else:
            m = f(*args)
        return x.masked_fill(~m, -1.0)


class VmapSequential(nn.Module):
    """Mamba's parallel scan: one vmap after another at the same level,
    each over a different number of samples (halving), one over none."""
    def forward(self, a, b):
        while a.shape[0] > 1:
            f = lambda a0, b0, a1, b1: (a0 * a1, a1 * b0 + b1)
            a, b = torch.vmap(f)(a[0::2], b[0::2], a[1::2], b[1::2])
        return a, b, torch.vmap(lambda r: r * 2)(a[1:])


class VmapViews(nn.Module):
    """Per-sample views: reshape, transpose, unsqueeze/squeeze, permute,
    flatten, select and slice, then a sum along a dim."""
    def forward(self, x):
        def f(r):
            y = r.reshape(2, 6).transpose(0, 1).unsqueeze(0)
            y = y.permute(2, 0, 1).flatten(1, 2)[:, 1:5].squeeze(0)
            return y.sum(-1) + y.select(1, 2)
        return torch.vmap(f)(x)


class VmapHeads(nn.Module):
    """Attention per sample: q @ k.T with both batched (numpy_T), a
    softmax along a dim."""
    def forward(self, q, k):
        return torch.vmap(lambda q, k: (q @ k.T / 2).softmax(-1))(q, k)


class VmapBroadcast(nn.Module):
    """A batched operand of lower per-sample rank than the result: each
    sample against every row of an unbatched matrix."""
    def forward(self, a, b):
        return torch.vmap(lambda x: ((x - b) ** 2).sum(-1).sqrt())(a)


class VmapEnsemble(nn.Module):
    """Model ensembling as PyTorch's tutorial does it: the members'
    parameters stacked (torch.func.stack_module_state), one model called
    on each set by torch.func.functional_call under vmap: linear with a
    batched weight and bias."""
    def __init__(self, n=3):
        super().__init__()
        import copy
        from torch.func import stack_module_state
        members = [nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)) for _ in range(n)]
        params, _ = stack_module_state(members)
        self.names = list(params)
        for k, t in params.items():
            self.register_buffer(k.replace(".", "_"), t.detach())
        self.base = copy.deepcopy(members[0])

    def forward(self, x):
        from torch.func import functional_call
        params = {k: getattr(self, k.replace(".", "_")) for k in self.names}
        return torch.vmap(lambda p, x: functional_call(self.base, (p,), (x,)), in_dims=(0, None))(params, x)


class VmapTranspose(nn.Module):
    """A per-sample transpose (its dims move past the batch dim)."""
    def forward(self, x):
        return torch.vmap(lambda r: r.transpose(0, 1) * 2)(x)


class AutocastBf16(nn.Module):
    """An enabled CPU bfloat16 region: linear and matmul in bf16, the rest
    promoted; the result read outside in float32 arithmetic."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 6)
    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = self.lin(x)
            a = h.relu() + x[:, :6]
            m = a @ a.transpose(0, 1)
            s = m.softmax(-1)
        return s.float() * 2, a


class AutocastNested(nn.Module):
    """An enabled region with a disabled one inside (float32 there)."""
    def forward(self, x, w):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = torch.mm(x, w)
            with torch.autocast("cpu", enabled=False):
                z = torch.mm(x, w)
            r = y + z
        return r


class AutocastPolicy(nn.Module):
    """float16 region: conv2d (lower precision), prod (float32 list), cat
    of float16 and float32 (promote)."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.float16):
            y = self.conv(x)
            p = (y * 0.5).prod(dim=1)
            z = torch.cat([y, x], dim=1)
        return p, z


def padding_mask_case(modindex):
    bs, seq = torch.export.Dim("batch", max=64), torch.export.Dim("seq", max=64)
    return case(VmapPaddingMask(modindex),
                (torch.randn(2, 1, 5, 5), torch.tensor([[False, True, True, True, True], [True] * 5])),
                (torch.randn(3, 1, 4, 4), torch.rand(3, 4) > 0.3),
                dynamic_shapes=({0: bs, 2: seq, 3: seq}, {0: bs, 1: seq}))


CASES = {
    "pre_vmap_elementwise": lambda: case(VmapElementwise(), (torch.randn(3, 4),)),
    "pre_vmap_read_outside": lambda: case(VmapInputReadOutside(), (torch.randn(3, 4),)),
    "pre_vmap_in_dim1": lambda: case(VmapInDim1(), (torch.randn(4, 5), torch.randn(4))),
    "pre_vmap_in_dim2": lambda: case(VmapInDim2(), (torch.randn(3, 4, 2),)),
    "pre_vmap_along": lambda: case(VmapAlong(), (torch.randn(3, 4, 5),)),
    "pre_vmap_nested_mask": lambda: case(VmapNestedMask(), (torch.randn(2, 1, 5, 5),)),
    "pre_vmap_nested_outer": lambda: case(VmapNestedOuter(), (torch.randn(3, 4), torch.randn(5, 4))),
    "pre_vmap_mask_dynamic": lambda: case(
        VmapMaskDynamic(), (torch.randn(2, 1, 5, 5),), (torch.randn(3, 1, 4, 4),),
        dynamic_shapes=({0: torch.export.Dim("batch", max=64), 2: torch.export.Dim("seq", max=64),
                         3: torch.export.Dim("seq", max=64)},)),
    "pre_vmap_padding_mask": lambda: padding_mask_case(False),
    "pre_vmap_modindex": lambda: padding_mask_case(True),
    "pre_vmap_sequential": lambda: case(VmapSequential(), (torch.randn(8, 2, 3), torch.randn(8, 2, 3))),
    "pre_vmap_views": lambda: case(VmapViews(), (torch.randn(3, 12),)),
    "pre_vmap_heads": lambda: case(VmapHeads(), (torch.randn(2, 5, 4), torch.randn(2, 5, 4))),
    "pre_vmap_broadcast": lambda: case(VmapBroadcast(), (torch.randn(4, 3), torch.randn(5, 3))),
    "pre_vmap_ensemble": lambda: case(VmapEnsemble(), (torch.randn(5, 4),)),
    "pre_vmap_transpose": lambda: case(VmapTranspose(), (torch.randn(3, 4, 5),)),
    "autocast_bf16": lambda: case(AutocastBf16(), (torch.randn(5, 8),)),
    "autocast_policy": lambda: case(AutocastPolicy(), (torch.randn(2, 3, 5, 5),)),
    "autocast_nested": lambda: case(AutocastNested(), (torch.randn(4, 6), torch.randn(6, 3))),
}
