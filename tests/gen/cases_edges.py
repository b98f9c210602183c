"""Edge samples of OpInfo ops beyond the two of ../shared/opinfo (samples
2-4 of opinfo_cases.py) that converted but did not run or match: empty
outputs ONNX Runtime's kernels refuse, addmm with K = 0, logit with
eps > 0.5.  Made with real PyTorch 2.14 into tests/cases-ops:

    PYTHONPATH=$PWD/tests/gen ../shared/tools/torch-env run 2.14 python3 \\
        ../shared/tools/gen2/gen.py tests/cases-ops cases_edges [NAME_REGEX...]
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def case(model, *samples, **kw):
    return dict(model=model, samples=list(samples), core=True, pt2=True, **kw)


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class Mods(nn.Module):
    """modules for an Fn's lambda to call, by name"""
    def __init__(self, **mods):
        super().__init__()
        for k, v in mods.items():
            setattr(self, k, v)


torch.manual_seed(0)

CASES = {
    # an empty index of another rank (PyTorch skips the rank check), empty
    # batches of linear algebra (ONNX Runtime's Squeeze refuses them): the
    # outputs, which hold nothing, become empty constants
    "edge_empty_outputs": lambda: case(Fn(lambda x, i, a, b, c: (
        torch.gather(x, 0, i), torch.linalg.det(a), *torch.linalg.inv_ex(a),
        *torch.linalg.solve_ex(a, b), *torch.linalg.slogdet(a),
        *torch.linalg.cholesky_ex(a), x + 1, torch.linalg.det(c))),
        (torch.randn(5), torch.zeros(2, 0, dtype=torch.int64),
         torch.randn(0, 2, 2), torch.randn(0, 2, 3),
         torch.randn(3, 2, 2) + 2 * torch.eye(2))),
    # K = 0: ONNX Runtime's Gemm returns C unscaled by beta
    "edge_addmm_k0": lambda: case(Fn(lambda c, a, b, d, e: (
        torch.addmm(c, a, b, beta=0.2, alpha=0.6), torch.addmm(c, d, e, beta=0.5))),
        (torch.randn(5, 10), torch.randn(5, 0), torch.randn(0, 10),
         torch.randn(5, 7), torch.randn(7, 10))),
    # batch norm of an empty 1-D input (PyTorch takes it)
    "edge_batch_norm_empty_1d": lambda: case(Fn(lambda x, m, v, y: (
        torch.nn.functional.batch_norm(x, m, v, training=True),
        torch.nn.functional.batch_norm(x, m, v),
        torch.nn.functional.batch_norm(y, None, None, training=True))),
        (torch.randn(0), torch.randn(0), torch.rand(0), torch.randn(4, 3))),
    # torch.gradient with a list of dims (the "array" overloads)
    "edge_gradient_dims": lambda: case(Fn(lambda x: (
        *torch.gradient(x, spacing=(2.0, 2.1), dim=(0, 1)),
        *torch.gradient(x, dim=[1, 0], edge_order=2),
        *torch.gradient(x, spacing=0.5, dim=(-1,)))),
        (torch.randn(5, 6),)),
    # repeats as a tensor (a count per element, or one for all): a Gather
    # of the data-dependent indices
    "edge_repeat_interleave_tensor": lambda: case(Fn(lambda x, r, one: (
        torch.repeat_interleave(x, r, dim=1), torch.repeat_interleave(x, one, dim=-1),
        torch.repeat_interleave(x, one))),
        (torch.randn(2, 3, 4), torch.tensor([2, 0, 3]), torch.tensor([2]))),
    # a contracted size 1 against a larger one: PyTorch sums the other side
    "edge_tensordot_bcast": lambda: case(Fn(lambda a, b, c: (
        torch.tensordot(a, b, dims=([0, 1], [2, 0])), torch.tensordot(b, c, dims=([1], [0])))),
        (torch.randn(1, 1, 1), torch.randn(2, 1, 2), torch.randn(3, 4))),
    # integer operands of a float result: promoted first (an int product
    # halved was truncated)
    "edge_int_to_float": lambda: case(Fn(lambda y, x, a, b, t: (
        torch.cumulative_trapezoid(y, x), torch.trapezoid(y, dx=3),
        torch.nn.functional.cosine_embedding_loss(a, b, t, margin=0.5, reduction="none"))),
        (torch.randint(-9, 9, (2, 5)), torch.randint(-9, 9, (2, 5)),
         torch.randint(-9, 9, (4, 6)), torch.randint(-9, 9, (4, 6)),
         torch.tensor([1, -1, 1, -1]))),
    # eps > 0.5: PyTorch's x < eps ? eps : x > 1 - eps ? 1 - eps : x
    "edge_logit_eps": lambda: case(Fn(lambda x: (
        torch.logit(x, 0.6), torch.logit(x, 0.25), torch.special.logit(x, 0.75))),
        (torch.rand(4, 5),)),
    # 0-d self (and index): ATen reads it as one of size 1
    "edge_zero_d_index": lambda: case(Fn(lambda x, i0, i1, u, ui: (
        torch.gather(x, 0, i0), torch.gather(x, 0, i1), torch.scatter_add(x, 0, i0, u),
        torch.scatter(x, 0, i1, 2.5), torch.scatter_reduce(x, 0, i1, u.reshape(1), "amax",
                                                          include_self=False),
        torch.scatter_reduce(ui, 0, i0, ui * 3, "mean"))),
        (torch.randn(()), torch.tensor(0), torch.tensor([0]), torch.randn(()),
         torch.tensor(-7))),
    # coordinates as tensors (uneven steps), both edge orders; integers
    # differenced as floats
    "edge_gradient_coords": lambda: case(Fn(lambda x, c0, c1, n: (
        *torch.gradient(x, spacing=[c0, c1], dim=[0, -1]),
        *torch.gradient(x, spacing=[c1], dim=1, edge_order=2),
        *torch.gradient(n), *torch.gradient(n, spacing=[c0], dim=0, edge_order=2))),
        (torch.randn(4, 5), torch.tensor([0.0, 0.5, 1.7, 2.0]),
         torch.tensor([-1.0, 0.0, 0.25, 1.5, 3.0]), torch.randint(-9, 9, (4, 3))),
        atol=1e-4),
    # lists of tensors: each viewed as its output
    "edge_atleast_seq": lambda: case(Fn(lambda a, b, c, d: (
        *torch.atleast_1d((a, b)), *torch.atleast_2d((a * 2, c)),
        *torch.atleast_3d([a + 1, b * 3, c + 1, d]))),
        (torch.randn(()), torch.randn(3), torch.randn(2, 3), torch.randn(2, 3, 4))),
    # a mean of integers rounds down (ATen's div_(count, "floor")),
    # negatives included
    "edge_scatter_mean_int": lambda: case(Fn(lambda x, i, u, j, s: (
        torch.scatter_reduce(x, 1, i, u, "mean"),
        torch.scatter_reduce(x, 1, i, u, "mean", include_self=False),
        x.index_reduce(0, j, s, "mean"), x.index_reduce(0, j, s, "mean", include_self=False))),
        (torch.randint(-20, 20, (3, 4)), torch.tensor([[0, 0, 2], [1, 1, 1], [3, 0, 3]]),
         torch.randint(-20, 20, (3, 3)), torch.tensor([0, 2, 0]), torch.randint(-20, 20, (3, 4)))),
    # integer inputs of float results (the training IR's composites):
    # promoted first, never truncated
    "edge_int_inputs": lambda: case(Fn(lambda x, y, z, s, e: (
        torch.deg2rad(x), torch.rad2deg(x), torch.nansum(x), torch.nansum(x, dim=1, keepdim=True),
        torch.nn.functional.pairwise_distance(x, y),
        torch.nn.functional.triplet_margin_loss(x, y, z, reduction="none"),
        torch.nn.functional.triplet_margin_with_distance_loss(x, y, z),
        torch.linspace(s, e, 7, dtype=torch.int64), torch.linspace(s, 20, 5, dtype=torch.int64),
        torch.logspace(s, e, 4, base=2, dtype=torch.int64))),
        (torch.randint(-9, 9, (3, 5)), torch.randint(-9, 9, (3, 5)), torch.randint(-9, 9, (3, 5)),
         torch.tensor(-3), torch.tensor(9))),
    # ONNX Runtime's DepthToSpace and OneHot refuse these: pixel_shuffle of
    # integers (reshape, transpose, reshape), one_hot of a 0-d index
    "edge_int_shuffle_onehot": lambda: case(Fn(lambda x, i: (
        torch.nn.functional.pixel_shuffle(x, 2), torch.nn.functional.one_hot(i, 5),
        torch.nn.functional.pixel_shuffle(x[0], 2))),
        (torch.randint(-99, 99, (2, 8, 3, 2)), torch.tensor(3))),
    # shifts of signed values (arithmetic right shift), past the width and
    # negative (ATen's 0 or sign), of int32 and uint8, Python's << and >>
    "edge_int_shift": lambda: case(Fn(lambda x, s, y, u, us: (
        torch.bitwise_left_shift(x, s), torch.bitwise_right_shift(x, s), x << 3, x >> 2,
        torch.bitwise_right_shift(y, 5), torch.bitwise_left_shift(y, s.to(torch.int32)),
        u << us, u >> us, torch.bitwise_left_shift(7, s))),
        (torch.tensor([[-9, 9, -1, 1 << 40, -(1 << 50), 5, -7, 3]]),
         torch.tensor([0, 1, 63, 64, 70, -1, 3, 62]), torch.randint(-2**31, 2**31 - 1, (8,),
                                                                   dtype=torch.int32),
         torch.tensor([1, 128, 255, 7, 0, 64, 3, 200], dtype=torch.uint8),
         torch.tensor([0, 1, 7, 8, 9, 2, 3, 1], dtype=torch.uint8))),
    # Euclid's steps in a Loop: zeros, negatives, broadcasting, int32
    "edge_gcd_lcm": lambda: case(Fn(lambda a, b, c, d: (
        torch.gcd(a, b), torch.lcm(a, b), torch.gcd(a, b[0]), torch.lcm(c, d), torch.gcd(c, d))),
        (torch.tensor([[0, 0, 12, -12, 7, 1 << 40, 832040, -18]]),
         torch.tensor([[0, 5, -18, -18, 0, 6, 514229, 12], [3, 4, 5, 6, 7, 8, 9, 10]]),
         torch.randint(-1000, 1000, (3, 4), dtype=torch.int32),
         torch.randint(-1000, 1000, (3, 4), dtype=torch.int32))),
    # samples 7-11: circular padding cuts first and wraps what is left;
    # prelu of a 0-d input stays 0-d; hypot of values whose squares
    # overflow; einsum ellipses of different ranks, summed when the output
    # has none
    "edge_samples_7_11": lambda: case(Fn(lambda x, s, w, h, a, b: (
        torch.nn.functional.pad(x, (-1, 1, -2, 1), mode="circular"),
        torch.nn.functional.pad(x, (2, -1, 1, -3), mode="circular"),
        torch.nn.functional.prelu(s, w), torch.hypot(h, h.flip(0)),
        torch.einsum("...ik, ...j -> ij", a, b), torch.einsum("...ik,...k->...i", a, b))),
        (torch.randn(1, 3, 4, 4), torch.randn(()), torch.tensor([0.25]),
         torch.tensor([3e38, -3e38, 1e30, 0.0, float("inf"), float("nan"), 3.0]),
         torch.randn(1, 2, 3), torch.randn(3))),
    # a of 1e7 and more with x within some sqrt(a) of it: the series does
    # not converge in its steps there; Temme's expansion (was NaN)
    "edge_igamma_large_a": lambda: case(Fn(lambda a, x, af, xf: (
        torch.special.gammainc(a, x), torch.special.gammaincc(a, x), torch.igamma(af, xf),
        torch.igammac(af, xf))),
        (torch.tensor([1e7, 1e7, 1e7, 4e7, 1e8, 2e7, 5.0, 1e9], dtype=torch.float64),
         torch.tensor([1e7 - 100, 1e7 - 3000, 1e7 + 500, 4e7 - 4000, 1e8 - 1, 2e7 - 9000, 4.0,
                       1e9 - 3e4], dtype=torch.float64),
         torch.tensor([1e7, 3e7, 1e7, 0.5]), torch.tensor([1e7 - 2000, 3e7 - 16, 1e7 + 4000, 0.25]))),
    # half precision special functions and composites: computed in float32
    # and rounded, as PyTorch's CPU kernels do (were unsupported)
    "edge_half_special": lambda: case(Fn(lambda x, p, s, e: (
        torch.lgamma(x), torch.digamma(x), torch.special.i0(x), torch.erfinv(p),
        torch.mvlgamma(x + 2, 2), *torch.gradient(x, spacing=0.5),
        torch.linspace(s, e, 6, dtype=torch.float16))),
        (torch.rand(3, 4, dtype=torch.float16) * 4 + 0.1, torch.rand(7, dtype=torch.float16) * 1.8 - 0.9,
         torch.tensor(-1.5, dtype=torch.float16), torch.tensor(2.25, dtype=torch.float16)),
        rtol=2e-3, atol=2e-3),
    # scatters with a reduction in float16: ONNX Runtime's kernels reduce
    # float32 only (values on a grid of 1/4, so that float16's rounding of
    # each step, as ATen adds, gives the same sums)
    "edge_half_scatter": lambda: case(Fn(lambda x, i, u, j, s, r, v: (
        torch.index_add(x, 0, j, s), torch.scatter_add(x, 1, i, u),
        torch.scatter_reduce(x, 1, i, u, "prod"), torch.scatter_reduce(x, 1, i, u, "amax"),
        torch.scatter_reduce(x, 1, i, u, "mean", include_self=False),
        x.index_reduce(0, j, s, "amin"), torch.index_put(x, (r,), v, accumulate=True),
        torch.put(x, i[0], u[0], accumulate=True))),
        (torch.randint(-8, 8, (3, 4)).half() / 4, torch.tensor([[0, 0, 2], [1, 1, 1], [3, 0, 3]]),
         torch.randint(-8, 8, (3, 3)).half() / 4, torch.tensor([0, 2, 0]),
         torch.randint(-8, 8, (3, 4)).half() / 4, torch.tensor([2, 0, 2, 2]),
         torch.randint(-8, 8, (4, 4)).half() / 4),
        rtol=2e-3, atol=2e-3),
    # nextafter by float16's own steps (powers of two, subnormals, the
    # largest finite, zeros, infinities): exact
    "edge_half_nextafter": lambda: case(Fn(lambda x, y: (
        torch.nextafter(x, y), torch.nextafter(y, x))),
        (torch.tensor([1.0, 1.0, 2.0, -2.0, 0.0, -0.0, 65504.0, -65504.0, 6e-8, 6.1e-5, 1e-4,
                       float("inf"), -float("inf"), 3.0, 0.5, 1024.0], dtype=torch.float16),
         torch.tensor([2.0, 0.0, 0.0, 0.0, 1.0, -1.0, float("inf"), 0.0, 0.0, 0.0, -1.0, 0.0, 0.0,
                       3.0, -7.0, 2000.0], dtype=torch.float16)),
        rtol=0, atol=0),
    # more half precision: renorm (whose core form converts with
    # prims.convert_element_type), ndtr (rounded in float16 each step),
    # rms_norm of values whose squares overflow float16 and of small ones
    # (float32's eps)
    "edge_half_more": lambda: case(Fn(lambda w, g: (
        torch.renorm(w, 2, 0, 1.5), torch.special.ndtr(w * 3),
        torch.nn.functional.rms_norm(w * 400, [4]), torch.nn.functional.rms_norm(w * 300, [3, 4], g),
        torch.nn.functional.rms_norm(w / 100, [4]))),
        (torch.randn(3, 4, dtype=torch.float16), torch.randn(3, 4, dtype=torch.float16)),
        rtol=2e-3, atol=2e-3),
    # integers narrower than 64 bits: max pooling in float64 (exact; 2-d
    # and 3-d, PyTorch has no integer max_pool1d),
    # indices too; trace and sum_to_size sum them in int64, as ATen
    "edge_int_pool_sum": lambda: case(Fn(lambda x, u, v, b: (
        *torch.nn.functional.max_pool2d(x, 2, 1, 1, return_indices=True),
        torch.nn.functional.max_pool3d(u, 2), torch.trace(x[0]), torch.trace(v[:, :2]),
        x.sum_to_size(1, 5, 1), v.sum_to_size(2, 1), b.sum_to_size(1, 4))),
        (torch.randint(-2**31, 2**31 - 1, (2, 5, 5), dtype=torch.int32),
         torch.randint(0, 255, (1, 2, 4, 4, 4), dtype=torch.uint8),
         torch.randint(-2**15, 2**15 - 1, (2, 6), dtype=torch.int16),
         torch.rand(4, 4) > 0.5)),
    # bools: cumulative and modal extremes, unique, scatter reductions
    # (ONNX Runtime's scatters and Where have no bool kernel), nansum;
    # zeta in Cephes' order (s < 1 is NaN even at a pole q = 0)
    "edge_bool_ops": lambda: case(Fn(lambda b, i, u, s, q: (
        *torch.cummax(b, 1), *torch.cummin(b, 0), *torch.mode(b, 1), torch.unique(b),
        torch.scatter_reduce(b, 1, i, u, "amax", include_self=False),
        torch.scatter_reduce(b, 1, i, u, "amin", include_self=False),
        torch.scatter_reduce(b, 1, i, u, "sum"), torch.scatter_reduce(b, 1, i, u, "prod"),
        torch.nansum(b), torch.nansum(b, 0), torch.special.zeta(s, q))),
        (torch.rand(3, 5) > 0.5, torch.tensor([[0, 0, 2], [1, 1, 1], [3, 0, 3]]),
         torch.rand(3, 3) > 0.5, torch.tensor([0.0, 0.5, 1.0, 2.0, 0.0, 2.5, 3.0]),
         torch.tensor([0.0, 0.0, 0.0, 0.0, -1.0, -1.0, 2.0]))),
    # integer inputs of a loss with a float margin: a float result
    "edge_int_margin": lambda: case(Fn(lambda a, b, y: (
        torch.nn.functional.margin_ranking_loss(a, b, y, margin=0.5, reduction="none"),
        torch.nn.functional.margin_ranking_loss(a, b, y), torch.nn.functional.margin_ranking_loss(
            a, b, y, margin=-1.25, reduction="sum"))),
        (torch.randint(-9, 9, (4, 3), dtype=torch.int32), torch.randint(-9, 9, (4, 3), dtype=torch.int32),
         torch.randint(-1, 2, (4, 3), dtype=torch.int32))),
    # max pooling of float64 picks float64 values: exact (it went
    # through float32)
    "edge_f64_max_pool": lambda: case(Fn(lambda x, y: (
        *torch.nn.functional.max_pool2d(x, 2, 1, 1, return_indices=True),
        torch.nn.functional.max_pool1d(y, 3, 2, ceil_mode=True),
        torch.nn.functional.adaptive_max_pool2d(x, 2), torch.nn.functional.adaptive_max_pool2d(x, 1),
        torch.nn.functional.adaptive_max_pool2d(x, (2, 3), return_indices=True)[0],
        torch.nn.functional.adaptive_max_pool1d(y, 7))),
        (torch.randn(1, 2, 5, 5, dtype=torch.float64) * (1 + 1e-12),
         torch.randn(2, 3, 7, dtype=torch.float64) / 3),
        rtol=0, atol=0),
    # attention rows a mask drops whole (left padding under a causal
    # mask: transformers' padding masks) give 0 in PyTorch, not the NaN
    # of a plain softmax; bool and float (-inf) masks, grouped-query, the
    # CPU flash kernel's op
    "edge_sdpa_masked_rows": lambda: case(Fn(lambda q, k, v, kg, b, f: (
        torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=b),
        torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=f),
        torch.nn.functional.scaled_dot_product_attention(q, kg, kg, attn_mask=b, enable_gqa=True),
        torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=f)[0])),
        (torch.randn(2, 4, 5, 8), torch.randn(2, 4, 6, 8), torch.randn(2, 4, 6, 8), torch.randn(2, 2, 6, 8),
         torch.tensor([[True] * 6, [False] * 6, [True, False] * 3, [False] * 5 + [True], [False] * 6]).expand(2, 1, 5, 6),
         torch.zeros(2, 1, 5, 6).masked_fill(torch.arange(5).view(1, 1, 5, 1) < torch.tensor([2, 0]).view(2, 1, 1, 1),
                                             float("-inf")))),
    # linspace/logspace of Python numbers (the training IR's .default
    # overloads), float and integer dtypes, one step, a base
    "edge_space_scalars": lambda: case(Fn(lambda x: (
        x * torch.linspace(0.1, 1.0, 4), torch.linspace(-3, 7, 6, dtype=torch.int64),
        torch.linspace(2.5, 2.5, 1), torch.logspace(-1, 2, 5), torch.logspace(0, 3, 4, base=2.0),
        torch.linspace(0, 1, 0))),
        (torch.randn(3, 4),)),
    # multi-output ops of which the program reads some outputs: the dump
    # makes only those (no getitem, no type for the rest)
    "edge_partial_outputs": lambda: case(Fn(lambda x, a, b: (
        torch.median(x, 1)[0] * 1, torch.nanmedian(x, 0)[1] * 1, torch.kthvalue(x, 2, 1)[1] * 1,
        torch.mode(x.round(), 1)[0] * 1, torch.linalg.solve_ex(a, b)[0] * 1,
        torch.linalg.lu_factor_ex(a)[1] * 1, torch.var_mean(x, 1)[1] * 1, torch.cummin(x, 1)[1] * 1)),
        (torch.randn(3, 4) * 4, torch.randn(3, 3) + 3 * torch.eye(3), torch.randn(3, 2))),
    "edge_partial_frexp": lambda: case(Fn(lambda x: (torch.frexp(x)[1] * 1, torch.frexp(x * 3)[0] * 1)),
                                       (torch.randn(3, 4) * 4,)),
    # overloads with a Python number for an operand, and composites the
    # training IR keeps: eye (also of a symbolic size), vander,
    # chain_matmul, affine_grid (2-D and 3-D, both corner rules)
    "edge_scalar_overloads": lambda: case(Fn(lambda x, i, b: (
        torch.xlogy(2.0, x.abs()), torch.xlogy(x, 3.0), torch.special.xlogy(x.abs(), 0.5),
        torch.special.xlog1py(x, 2.0), torch.special.xlog1py(-0.5, x.abs()),
        torch.special.zeta(x.abs() + 1.5, 2.0), torch.special.zeta(3.0, x.abs() + 1),
        torch.bitwise_and(6, i), torch.bitwise_or(5, i), torch.bitwise_xor(3, i), torch.bitwise_and(True, b),
        torch.isin(i, 2), torch.isin(3, i))),
        (torch.randn(3, 4), torch.randint(-8, 8, (3, 4)), torch.rand(3, 4) > 0.5)),
    "edge_factories": lambda: case(Fn(lambda x, v: (
        torch.eye(4), torch.eye(2, 5, dtype=torch.int64),
        torch.vander(v), torch.vander(v, 3, increasing=True), torch.vander(v.round().int(), 4),
        torch.chain_matmul(x, x.T, x))),
        (torch.randn(3, 4), torch.randn(5))),
    "edge_affine_grid": lambda: case(Fn(lambda th, th3: (
        torch.nn.functional.affine_grid(th, (2, 3, 4, 5), align_corners=False),
        torch.nn.functional.affine_grid(th, (2, 1, 3, 2), align_corners=True),
        torch.nn.functional.affine_grid(th3, (2, 1, 2, 3, 4), align_corners=False))),
        (torch.randn(2, 2, 3), torch.randn(2, 3, 4))),
    "edge_eye_dynamic": lambda: case(Fn(lambda x: (torch.eye(x.shape[0]) * x[:, :1], torch.eye(3, x.shape[0]))),
        (torch.randn(3, 4),), (torch.randn(6, 4),),
        dynamic_shapes=(({0: torch.export.Dim("rows", min=2, max=64)},),)),
    # Python floats a program returns (SymFloat): float32 outputs, as
    # PyTorch's exporter gives them (onnxc gave float64)
    "edge_symfloat_out": lambda: case(Fn(lambda x, b: (x * 2, x.shape[0] / 3, torch.nonzero(b).shape[0] * 0.5)),
        (torch.randn(3, 4), torch.rand(3, 4) > 0.5), (torch.randn(5, 4), torch.rand(3, 4) > 0.2),
        dynamic_shapes=(({0: torch.export.Dim("rows", min=2, max=64)}, None),)),
    # bincount: a size read from the data (max + 1, or minlength),
    # counts and float/double weights, int32 input
    "edge_bincount": lambda: case(Fn(lambda x, w, y: (
        torch.bincount(x), torch.bincount(x, minlength=12), torch.bincount(x, w),
        torch.bincount(x, w.double(), 3), torch.bincount(y.int()))),
        (torch.tensor([3, 1, 4, 1, 5, 9, 2, 6]), torch.randn(8), torch.tensor([0, 0, 2])),
        (torch.tensor([0, 0, 0, 2, 1, 1, 0, 3]), torch.randn(8), torch.tensor([5, 0, 2]))),
    # .item() of a float tensor: Sym(zuf0), an unbacked float symbol
    # (the dump reader took it for an integer: x / 2 for x / 2.6)
    "edge_item_float": lambda: case(Fn(lambda x: (
        x / x.max().item(), torch.full((2,), x.sum().item()), x * (x.min().item() + 0.25))),
        (torch.rand(3, 4) * 3 + 0.5,)),
    # fake quantization (QAT): float and tensor qparams, per channel,
    # FakeQuantize's op; x * (1/scale) on exact halves (round half to
    # even) and out of range
    "edge_fake_quant": lambda: case(FakeQuant().eval(), (torch.cat([
        torch.tensor([0.25, 0.75, -0.25, 1.25, 100.0, -100.0, 0.0, 2.5]), torch.randn(16)]).reshape(2, 3, 4),)),
    # antialiased bicubic resampling (torchvision's Resize(antialias=True),
    # position-embedding interpolation): down, up, by scale, align_corners
    "edge_interp_aa_bicubic": lambda: case(Fn(lambda i: (
        torch.nn.functional.interpolate(i, size=(5, 6), mode="bicubic", antialias=True),
        torch.nn.functional.interpolate(i, scale_factor=0.5, mode="bicubic", antialias=True),
        torch.nn.functional.interpolate(i, size=(12, 10), mode="bicubic", antialias=True),
        torch.nn.functional.interpolate(i, size=(3, 11), mode="bicubic", antialias=True, align_corners=True))),
        (torch.randn(2, 3, 8, 8),)),
    # float64 (OpInfo float64 samples): antialiased resampling weights in
    # double as PyTorch computes them (it was refused), silu and
    # x * sigmoid(x) (ONNX Runtime fuses them into a QuickGelu with no
    # double kernel), Chebyshev polynomials of a large degree near +-1
    # (Acos and Cos have no double kernel; the Newton-refined acos keeps
    # double's accuracy)
    "edge_f64_kernels": lambda: case(Fn(lambda i, x, c, n: (
        torch.nn.functional.interpolate(i, size=(5, 6), mode="bilinear", antialias=True),
        torch.nn.functional.interpolate(i, size=(3, 11), mode="bicubic", antialias=True, align_corners=True),
        torch.nn.functional.silu(x), x * torch.sigmoid(x), torch.nn.functional.hardswish(x),
        torch.special.chebyshev_polynomial_t(c, n), torch.special.chebyshev_polynomial_u(c, n),
        torch.special.chebyshev_polynomial_v(c, n), torch.special.chebyshev_polynomial_w(c, n),
        torch.special.shifted_chebyshev_polynomial_t((c + 1) / 2, n))),
        (torch.randn(2, 3, 8, 8, dtype=torch.float64), torch.randn(3, 5, dtype=torch.float64) * 30,
         torch.tensor([-0.99999999, -0.9999, -0.5, -1e-9, 0.0, 0.3, 0.7071, 0.99, 0.999999, 1 - 1e-12],
                      dtype=torch.float64),
         torch.tensor([7.0, 9.0, 12.0, 25.0, 40.0, 63.0, 100.0, 8.0, 31.0, 17.0], dtype=torch.float64)),
        rtol=1e-9, atol=1e-12),
    # OpInfo samples 12-16: diagonal_scatter of a batch of matrices (any
    # two dims, either order, offsets of both signs; it took matrices
    # only), unique_consecutive along a dim (slices, with inverse and
    # counts; a NaN slice differs from itself; it was refused)
    "edge_diagonal_scatter_nd": lambda: case(Fn(lambda x, a, b, c, e: (
        torch.diagonal_scatter(x, a, 1, 1, 2), torch.diagonal_scatter(x, b, -2, 2, 0),
        torch.diagonal_scatter(x, c, 0, -1, -3), torch.diagonal_scatter(x[0], e, 3))),
        (torch.randn(4, 5, 6), torch.randn(4, 5), torch.randn(5, 4), torch.randn(5, 4), torch.randn(3))),
    "edge_unique_consecutive_dim": lambda: case(Fn(lambda x, v: (
        *torch.unique_consecutive(x, return_inverse=True, return_counts=True, dim=1),
        torch.unique_consecutive(x, dim=0), *torch.unique_consecutive(x, return_counts=True, dim=-1),
        torch.unique_consecutive(v, dim=-1), *torch.unique_consecutive(v, return_inverse=True, dim=0))),
        (torch.tensor([[[1.0, 1.0, 2.0, 2.0, float("nan")], [3.0, 3.0, 3.0, 4.0, float("nan")]],
                       [[1.0, 1.0, 2.0, 2.0, 5.0], [3.0, 3.0, 3.0, 4.0, 5.0]],
                       [[1.0, 1.0, 2.0, 2.0, 5.0], [3.0, 3.0, 3.0, 4.0, 5.0]]]).transpose(1, 2).contiguous(),
         torch.tensor([2.0, 2.0, 0.5, 0.5, 0.5, -1.0, 2.0]))),
    # OpInfo samples 25-40: unique along a dim (unique_dim: distinct
    # slices sorted lexicographically, inverse and counts; any dtype; it
    # was refused)
    "edge_unique_dim": lambda: case(Fn(lambda x, i, b, h: (
        *torch.unique(x, dim=1, return_inverse=True, return_counts=True),
        torch.unique(x, dim=0), *torch.unique(x, sorted=False, return_counts=True, dim=-1),
        *torch.unique(i, return_inverse=True, dim=0), torch.unique(i, dim=1),
        *torch.unique(b, return_counts=True, dim=1), torch.unique(h, dim=0))),
        (torch.tensor([[[1.0, 1.0, 2.0, -2.0, 0.5], [3.0, 3.0, 3.0, 4.0, 5.0]],
                       [[1.0, 1.0, 2.0, 2.0, 5.0], [3.0, 3.0, 3.0, 4.0, 5.0]],
                       [[1.0, 1.0, 2.0, -2.0, 0.5], [3.0, 3.0, 3.0, 4.0, 5.0]]]).transpose(1, 2).contiguous(),
         torch.tensor([[4, -1, 7], [2, 9, 9], [4, -1, 7], [2, 9, 8], [-5, 0, 0], [2, 9, 8]]),
         torch.tensor([[True, False, True, False, True], [False, False, True, True, False]]),
         torch.tensor([[0.5, 1.5], [-0.25, 3.0], [0.5, 1.5], [0.5, -1.5]], dtype=torch.float16))),
    # int64 (OpInfo samples 0-1 of that dtype): convolution and pooling,
    # which ONNX Runtime computes in float only (exact below 2^53; these
    # values are above), as PyTorch's integer kernels do: transposed with
    # stride, dilation, groups, output_padding and a padding that crops;
    # max pooling's first maximum and its index, padding never winning;
    # an integer mean truncated, counting the padding or not (they were
    # refused)
    "edge_int64_conv_pool": lambda: case(Fn(lambda x, w, b, v, u, t, q: (
        torch.nn.functional.conv2d(x, w, b, stride=2, padding=1, dilation=(1, 2), groups=2),
        torch.nn.functional.conv2d(x[:, :2], w[:, :, :2], None, padding="same"),
        torch.nn.functional.conv_transpose2d(x, w.transpose(0, 1).reshape(4, 3, 3, 3)[:, :2], b[:4],
                                             stride=(2, 3), padding=(1, 2), output_padding=(1, 0),
                                             groups=2, dilation=(2, 1)),
        torch.nn.functional.conv_transpose1d(v, u, None, stride=2, padding=3, output_padding=2, dilation=3),
        torch.nn.functional.conv1d(v[0], u.transpose(0, 1), stride=1, padding=2),
        torch.nn.functional.conv_transpose1d(v, u[:, :, :2], None, stride=3, padding=2),
        torch.nn.functional.conv3d(t, t[:, :, :2, :2, :2], None, stride=(1, 2, 1), padding=(0, 1, 1)),
        *torch.nn.functional.max_pool2d(q, 3, 2, 1, dilation=1, ceil_mode=True, return_indices=True),
        *torch.nn.functional.max_pool2d(-q, (2, 3), (1, 2), (1, 1), dilation=(2, 1), return_indices=True),
        *torch.nn.functional.max_pool1d(-v, 3, 2, 1, return_indices=True), torch.nn.functional.max_pool3d(t, 2, 1, 1),
        torch.nn.functional.avg_pool2d(q, 3, 2, 1, ceil_mode=True),
        torch.nn.functional.avg_pool2d(-q, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        torch.nn.functional.avg_pool2d(q - 9, (2, 3), 1, (1, 0), divisor_override=4),
        torch.nn.functional.avg_pool1d(-v, 2, 1, 1), torch.nn.functional.avg_pool3d(t, 2, 2, 1))),
        (torch.randint(-2**55, 2**55, (2, 4, 7, 9)), torch.randint(-9, 10, (6, 2, 3, 3)),
         torch.randint(-2**50, 2**50, (6,)), torch.randint(-20, 20, (2, 3, 11)), torch.randint(-9, 10, (3, 2, 4)),
         torch.randint(-9, 10, (2, 3, 5, 6, 4)), torch.randint(-2**60, 2**60, (2, 3, 8, 7)))),
    # int64 sums above 2^53 and past 2^63 (wrapping, as PyTorch adds):
    # ONNX Runtime's int64 ReduceSum adds in float64; over every axis,
    # some axes kept, an empty axis, int32 summed as int64
    "edge_int64_sum": lambda: case(Fn(lambda x, e, i: (
        x.sum(), x.sum(1), x.sum((0, 2), keepdim=True), x.sum(-1, keepdim=True), x.sum((2, 0)),
        (x * 7).sum(), e.sum(1), e.sum(), i.sum(0), torch.sum(i, dtype=torch.int64),
        torch.count_nonzero(x, 1), x.cumsum(2).sum(2))),
        (torch.randint(-2**62, 2**62, (3, 4, 5)), torch.zeros(2, 0, 3, dtype=torch.int64),
         torch.randint(-2**31, 2**31 - 1, (6, 3), dtype=torch.int32))),
    # integer pow with a constant exponent and int64 fmod, exact and
    # wrapping as PyTorch computes them (ONNX Runtime's integer Pow and
    # int64 fmod go through float64: 3**39 was 11 off)
    "edge_int64_pow_fmod": lambda: case(Fn(lambda x, i, a, b: (
        x ** 39, x ** 5, x ** 0, x ** 1, torch.pow(x, 2), i ** 3, i ** 7,
        torch.fmod(a, b), torch.fmod(a, 7), torch.fmod(-a, 10), torch.remainder(a, b))),
        (torch.tensor([3, -3, 2, 7, -1, 0, 5]), torch.tensor([1300, -2000, 46341, 3, -7], dtype=torch.int32),
         torch.tensor([2**62 + 12345, -2**60 - 77, 9007199254740993 * 7 + 5, 123456789012345678]),
         torch.tensor([7, -10, 3, -1000003]))),
    # cross_entropy of class indices with label_smoothing (refused in the
    # training IR): with ignore_index, class weights, each reduction,
    # spatial (N, C, d1, d2) and unbatched inputs
    "edge_cross_entropy_smoothing": lambda: case(Fn(lambda x, y, w, s, t, u, v: (
        F.cross_entropy(x, y, ignore_index=2, label_smoothing=0.1),
        F.cross_entropy(x, y, weight=w, ignore_index=2, label_smoothing=0.25),
        F.cross_entropy(x, y, weight=w, label_smoothing=0.3, reduction="sum"),
        F.cross_entropy(x, y, weight=w, ignore_index=0, label_smoothing=0.2, reduction="none"),
        F.cross_entropy(s, t, weight=w, ignore_index=1, label_smoothing=0.15),
        F.cross_entropy(s, t, label_smoothing=0.05, reduction="none"),
        F.cross_entropy(u, v, label_smoothing=0.4))),
        (torch.randn(6, 5), torch.tensor([0, 2, 4, 1, 2, 3]), torch.rand(5) + 0.5,
         torch.randn(2, 5, 3, 4), torch.randint(0, 5, (2, 3, 4)), torch.randn(5), torch.tensor(3))),
    # antialiased resampling (torchvision's Resize(antialias=True)) of a
    # dynamic batch: the interpolation matrices need only the heights and
    # widths static (it was refused)
    "edge_interp_aa_dyn_batch": lambda: case(Fn(lambda x, u: (
        F.interpolate(x, size=(5, 7), mode="bilinear", antialias=True),
        F.interpolate(x, size=(6, 4), mode="bicubic", antialias=True),
        F.interpolate(u, size=(5, 7), mode="bilinear", antialias=True))),
        (torch.randn(2, 3, 12, 9), torch.randint(0, 256, (2, 3, 12, 9), dtype=torch.uint8)),
        (torch.randn(5, 3, 12, 9), torch.randint(0, 256, (5, 3, 12, 9), dtype=torch.uint8)),
        dynamic_shapes=(({0: torch.export.Dim("batch", min=1, max=64)},
                         {0: torch.export.Dim("batch", min=1, max=64)}),)),
    # adaptive pooling of dynamic heights and widths (VGG's and AlexNet's
    # AdaptiveAvgPool2d((7, 7)) on images of any size: it was refused):
    # PyTorch's windows with bounds computed at run time, the input
    # smaller than the output too
    "edge_adaptive_pool_dynamic": lambda: case(Fn(lambda x, v: (
        F.adaptive_avg_pool2d(x, (3, 7)), F.adaptive_max_pool2d(x, (2, 5)),
        *F.adaptive_max_pool2d(x * 2, (4, 3), return_indices=True),
        F.adaptive_avg_pool1d(x[:, :, 0], 4), *F.adaptive_max_pool1d(x[:, :, :, 1], 6, return_indices=True),
        F.adaptive_avg_pool3d(v, (2, 3, 1)), F.adaptive_avg_pool2d(x, (1, 4)))),
        (torch.randn(2, 3, 9, 5), torch.randn(1, 2, 4, 5, 6)), (torch.randn(1, 3, 4, 13), torch.randn(1, 2, 7, 3, 6)),
        dynamic_shapes=(({0: torch.export.Dim("batch", min=1, max=64), 2: torch.export.Dim("h", min=2, max=64),
                          3: torch.export.Dim("w", min=2, max=64)},
                         {2: torch.export.Dim("t", min=2, max=64), 3: torch.export.Dim("hh", min=2, max=64)}),)),
    # narrow with a negative start along a dynamic dim (wrapped by the size
    # at run time; it was refused)
    "edge_narrow_negative_dynamic": lambda: case(Fn(lambda x: (
        x.narrow(1, -3, 2), torch.narrow(x, 0, -1, 1))),
        (torch.randn(3, 7),), (torch.randn(2, 5),),
        dynamic_shapes=(({0: torch.export.Dim("b", min=1, max=64), 1: torch.export.Dim("n", min=4, max=64)},),)),
    # half precision as PyTorch's kernels round it (OpInfo float16 samples
    # 1-2): log_softmax along the last dim keeps the sum of exponentials
    # and its log in half; softmax's backward and logcumsumexp compute in
    # float and round once (up to 50 ulp off before)
    "edge_half_softmax_family": lambda: case(Fn(lambda x, g, y, b: (
        torch.log_softmax(x, -1), torch.log_softmax(x, 0), torch.log_softmax(x * 4, 1),
        torch.ops.aten._softmax_backward_data(g, y, 0, torch.float16),
        torch.ops.aten._softmax_backward_data(g, y, 1, torch.float16),
        torch.logcumsumexp(x, 0), torch.logcumsumexp(x * 3, 1),
        torch.log_softmax(b.bfloat16(), -1).float(), torch.logcumsumexp(b.bfloat16(), 1).float())),
        ((torch.randn(6, 9) * 3).half(), torch.randn(5, 7).half(), torch.softmax(torch.randn(5, 7), 0).half(),
         torch.randn(4, 11) * 3)),
    # addr in half precision as ATen's kernel rounds it: alpha and beta in
    # half, beta * self and (alpha * vec1) * vec2 each rounded (float16
    # samples 1-2: 10 of 50 elements off by an ulp)
    "edge_half_addr": lambda: case(Fn(lambda s, a, b, c: (
        torch.addr(s, a, b, beta=0.6, alpha=0.2), torch.addr(s, a, b), torch.addr(s, a, b, beta=0, alpha=3.3),
        torch.addr(c.bfloat16(), c[:, 0].bfloat16(), c[0].bfloat16(), beta=0.7, alpha=1.9).float(),
        torch.addr(c, c[:, 1], c[1], beta=0.3, alpha=0.1))),
        (torch.randn(7, 10).half(), torch.randn(7).half(), torch.randn(10).half(), torch.randn(6, 6))),
    # half-precision instance norm and training batch norm as PyTorch's
    # half kernel rounds: the mean and 1/sqrt(var + eps) in half, the
    # variance in float, x * alpha + beta fused (float16 samples 1-2:
    # instance_norm refused this rounding; batch norm of one sample or
    # more than one was off in a third of the channels)
    "edge_half_instance_norm": lambda: case(Fn(lambda x, w, b, y, z: (
        F.instance_norm(x, weight=w, bias=b), F.instance_norm(x * 3 + 1),
        F.batch_norm(y, None, None, w[:6], b[:6], training=True),
        F.batch_norm(y[:1] * 5, None, None, training=True, eps=1e-3),
        F.instance_norm(z.bfloat16(), weight=w[:4].bfloat16()).float())),
        (torch.randn(3, 7, 13).half(), torch.randn(7).half(), torch.randn(7).half(),
         torch.randn(4, 6, 9).half(), torch.randn(2, 4, 5, 6))),
    # half-precision 3-D adaptive average pooling as ATen's kernel sums:
    # in half, element by element, then divided by each window side in
    # turn (float16 samples 1-2: 165 of 1120 elements an ulp or more off)
    "edge_half_adaptive_avg3d": lambda: case(Fn(lambda x, y: (
        F.adaptive_avg_pool3d(x, (3, 4, 5)), F.adaptive_avg_pool3d(x * 7, (2, 5, 3)),
        F.adaptive_avg_pool3d(x[0], (5, 2, 7)), F.adaptive_avg_pool3d(y.bfloat16(), (2, 3, 4)).float())),
        ((torch.randn(2, 3, 5, 6, 7) * 4).half(), torch.randn(1, 2, 4, 6, 9) * 3)),
    # diagonals of dynamic sizes (a CLIP-style loss takes the diagonal of
    # a batch-by-batch similarity: it was refused): the indices made at
    # run time, offsets of both signs, a batch of matrices, an offset past
    # every size
    "edge_diagonal_dynamic": lambda: case(Fn(lambda a, b, x: (
        (a @ b.T).diag(), torch.diagonal(a @ b.T, 1), torch.diagonal(a @ b.T, -2),
        torch.diagonal(x, 0, 1, 2), torch.diagonal(x, -1, 2, 1), torch.diagonal(x, 99, 0, 1),
        torch.trace(a @ b.T), F.cross_entropy(a @ b.T, torch.arange(a.shape[0])))),
        (torch.randn(5, 4), torch.randn(5, 4), torch.randn(3, 6, 4)), (torch.randn(4, 4), torch.randn(4, 4), torch.randn(2, 8, 4)),
        dynamic_shapes=(({0: torch.export.Dim("b", min=4, max=64)}, {0: torch.export.Dim("b", min=4, max=64)},
                         {0: torch.export.Dim("n", min=1, max=64), 1: torch.export.Dim("m", min=2, max=64)}),)),
    # model code with dynamic sizes (tests/gen/zoo/cases_user2.py to
    # cases_user4.py): sizes known at run time only
    # affine_grid's batch from theta, the training IR's own op
    "edge_affine_grid_dyn_batch": lambda: case(Fn(lambda t, t3: (
        F.affine_grid(t, [t.shape[0], 3, 5, 4], align_corners=False),
        F.affine_grid(t3, [t3.shape[0], 1, 2, 3, 4], align_corners=True))),
        (torch.randn(2, 2, 3), torch.randn(2, 3, 4)), (torch.randn(3, 2, 3), torch.randn(1, 3, 4)),
        dynamic_shapes=(({0: torch.export.Dim("b", max=64)}, {0: torch.export.Dim("c", max=64)}),)),
    # cross entropy of a segmentation map of dynamic batch, height and
    # width, class-weighted too
    "edge_cross_entropy_dynamic": lambda: case(Fn(lambda x, t: (
        F.cross_entropy(x, t, reduction="none"), F.cross_entropy(x, t, weight=torch.tensor([0.5, 2.0, 1.0, 3.0]), ignore_index=1),
        F.nll_loss(x.log_softmax(1), t, weight=torch.tensor([0.5, 2.0, 1.0, 3.0]), reduction="none"))),
        (torch.randn(2, 4, 6, 5), torch.randint(0, 4, (2, 6, 5))), (torch.randn(1, 4, 9, 7), torch.randint(0, 4, (1, 9, 7))),
        dynamic_shapes=(({0: torch.export.Dim("b", max=64), 2: torch.export.Dim("h", max=64), 3: torch.export.Dim("w", max=64)},
                         {0: torch.export.Dim("b", max=64), 1: torch.export.Dim("h", max=64), 2: torch.export.Dim("w", max=64)}),)),
    # a KV cache written at given positions along a dynamic length (dim
    # 2), index_add there too; quantiles along a dynamic dim
    "edge_index_copy_quantile_dynamic": lambda: case(Fn(lambda cache, k, pos, x: (
        cache.index_copy(2, pos, k), cache.index_add(2, pos, k, alpha=0.5),
        torch.quantile(x, 0.9, dim=1), torch.quantile(x, torch.tensor([0.25, 0.5]), dim=1, keepdim=True, interpolation="nearest"),
        torch.nanquantile(x, 0.3, dim=0), torch.quantile(x, torch.tensor(0.75), dim=1, interpolation="midpoint"))),
        (torch.randn(2, 3, 6, 2), torch.randn(2, 3, 2, 2), torch.tensor([4, 1]), torch.tensor([[1.0, 5.0, float("nan"), 2.0], [0.5, -1.0, 3.0, 2.0], [7.0, 1.0, 1.0, 0.0]])),
        (torch.randn(1, 3, 9, 2), torch.randn(1, 3, 3, 2), torch.tensor([8, 0, 3]), torch.randn(2, 7)),
        dynamic_shapes=(({0: torch.export.Dim("b", max=64), 2: torch.export.Dim("p", min=2, max=64)}, {0: torch.export.Dim("b", max=64), 2: torch.export.Dim("k", min=2, max=64)},
                         {0: torch.export.Dim("k", min=2, max=64)}, {0: torch.export.Dim("r", min=2, max=64), 1: torch.export.Dim("c", min=2, max=64)}),)),
    # a window partition's pad to a multiple, (w - h % w) % w, in every
    # mode aten::pad takes
    "edge_pad_dynamic": lambda: case(Fn(lambda x: (
        F.pad(x, (0, (4 - x.shape[-1] % 4) % 4, 1, (4 - x.shape[-2] % 4) % 4)),
        F.pad(x, (0, (4 - x.shape[-1] % 4) % 4), value=-2.5),
        F.pad(x, (1, (4 - x.shape[-1] % 4) % 4, 1, 0), mode="reflect"),
        F.pad(x, ((4 - x.shape[-1] % 4) % 4, 2, 0, 1), mode="replicate"))),
        (torch.randn(2, 3, 7, 9),), (torch.randn(1, 3, 8, 6),),
        dynamic_shapes=(({0: torch.export.Dim("b", max=64), 2: torch.export.Dim("h", min=3, max=64), 3: torch.export.Dim("w", min=4, max=64)},),)),
    # pixel (un)shuffle of dynamic heights and widths, int64 too; float64
    # moved exactly (it went through float32 before)
    "edge_pixel_shuffle_dynamic": lambda: case(Fn(lambda x, i, d: (
        F.pixel_unshuffle(x, 2), F.pixel_shuffle(x, 2), F.pixel_unshuffle(i, 2), F.pixel_shuffle(i, 2),
        F.pixel_shuffle(d, 2) - 1, F.pixel_unshuffle(d, 2) - 1)),
        (torch.randn(2, 4, 6, 8), torch.randint(-2**62, 2**62, (2, 4, 6, 8)), torch.rand(1, 4, 2, 2, dtype=torch.float64) * 1e-9 + 1),
        (torch.randn(1, 4, 4, 10), torch.randint(-2**62, 2**62, (1, 4, 4, 10)), torch.rand(1, 4, 2, 2, dtype=torch.float64) * 1e-9 + 1),
        dynamic_shapes=(({0: torch.export.Dim("b", max=64), 2: 2 * torch.export.Dim("h", max=64), 3: 2 * torch.export.Dim("w", max=64)},
                         {0: torch.export.Dim("b", max=64), 2: 2 * torch.export.Dim("h", max=64), 3: 2 * torch.export.Dim("w", max=64)}, None),), atol=0, rtol=0),
    # a decoder's upsampling sized to its skip connection, of a dynamic
    # size: output_padding (and max_unpool's output_size) known at run time
    "edge_conv_transpose_output_size_dynamic": lambda: case(Fn(lambda x, m=Mods(
            d2=nn.Conv2d(3, 4, 3, 2, 1), u2=nn.ConvTranspose2d(4, 3, 3, 2, 1), d1=nn.Conv1d(3, 2, 2, 3), u1=nn.ConvTranspose1d(2, 3, 2, 3)): (
        m.u2(m.d2(x), output_size=x.shape[-2:]), m.u1(m.d1(x[:, :, 0]), output_size=x.shape[-1:]),
        F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, output_size=x.shape[-2:]))),
        (torch.randn(2, 3, 9, 8),), (torch.randn(1, 3, 12, 11),),
        dynamic_shapes=(({0: torch.export.Dim.DYNAMIC, 2: torch.export.Dim.DYNAMIC, 3: torch.export.Dim.DYNAMIC},),)),
    # cumprod along a dynamic dim (NeRF's transmittance) or one too long to
    # unroll: a Scan in ATen's order; int64 wraps as PyTorch's does
    "edge_cumprod_dynamic": lambda: case(Fn(lambda a, i, l: (
        torch.cumprod(1 - a + 1e-3, -1), torch.cumprod(a, 0), torch.cumprod(i, 1), l.cumprod(0))),
        (torch.rand(3, 7), torch.randint(-9, 9, (2, 40)), torch.rand(300) + 0.5),
        (torch.rand(2, 12), torch.randint(-9, 9, (3, 33)), torch.rand(300) + 0.5),
        dynamic_shapes=(({0: torch.export.Dim("r", max=64), 1: torch.export.Dim("s", max=64)}, {0: torch.export.Dim("q", max=64), 1: torch.export.Dim("t", max=64)}, None),)),
    # median, nanmedian and kthvalue along a dynamic dim, and of all
    # elements of a dynamic tensor
    "edge_median_dynamic": lambda: case(Fn(lambda x, n: (
        *torch.median(x, 1), *torch.median(x, 0, keepdim=True), *torch.nanmedian(n, 1), *torch.kthvalue(x, 2, 1),
        torch.median(x), torch.nanmedian(n))),
        (torch.randn(3, 6), torch.tensor([[1.0, float("nan"), 3.0, 0.5], [float("nan"), 2.0, float("nan"), 1.0]])),
        (torch.randn(4, 5), torch.tensor([[2.0, float("nan"), -1.0, 7.0, 4.0, 1.0], [1.0, 2.0, float("nan"), float("nan"), 9.0, 0.0],
                                          [float("nan"), 5.0, 5.0, 5.0, 1.0, 2.0]])),
        dynamic_shapes=(({0: torch.export.Dim("a", max=64), 1: torch.export.Dim("b", min=2, max=64)}, {0: torch.export.Dim("c", max=64), 1: torch.export.Dim("d", max=64)}),)),
    # running extremes, the mode and a broadcast grid along dynamic dims;
    # a NaN in a running extreme wins and stays, its index the last NaN
    # (3 was given after a NaN before, static sizes too)
    "edge_cummax_mode_dynamic": lambda: case(Fn(lambda x, b, s: (
        *x.cummax(1), *x.cummin(0), *torch.mode(x.round(), 1), *torch.cummax(b, 1),
        *torch.meshgrid(x[0], x[:, 0], indexing="xy"), *torch.broadcast_tensors(x[:, :1], x[:1]), *s.cummax(1), *s.cummin(1))),
        (torch.tensor([[1.0, 3.0, 3.0, float("nan"), 2.0], [0.0, -1.0, 5.0, 5.0, 7.0]]), torch.tensor([[False, True, False], [True, True, False]]),
         torch.tensor([[1.0, 3.0, float("nan"), 2.0, float("nan"), 9.0]])),
        (torch.randn(3, 7), torch.tensor([[True, False], [False, False], [False, True]]), torch.tensor([[float("nan"), 1.0, 0.0, 2.0, -1.0, 5.0]])),
        dynamic_shapes=(({0: torch.export.Dim("a", min=2, max=64), 1: torch.export.Dim("b", min=2, max=64)}, {0: torch.export.Dim("c", max=64), 1: torch.export.Dim("d", min=2, max=64)}, None),)),
    # small linear algebra over a dynamic batch (camera intrinsics, a
    # batch of covariances), right-hand sides with a dynamic number of
    # columns, a static batch broadcast against the dynamic one
    "edge_linalg_dynamic_batch": lambda: case(Fn(lambda k, p, c: (
        torch.linalg.inv(k), torch.linalg.solve(k, p.transpose(1, 2)), torch.linalg.solve(k, p[:, 0]), torch.linalg.det(k),
        *torch.linalg.slogdet(k), torch.linalg.matrix_power(k, -2), torch.linalg.solve(k[:1], p.transpose(1, 2)),
        torch.linalg.solve_triangular(k.triu(), p.transpose(1, 2), upper=True),
        torch.cholesky_solve(p.transpose(1, 2), torch.linalg.cholesky(c @ c.mT + torch.eye(3))),
        torch.linalg.lu_solve(*torch.linalg.lu_factor(k), p.transpose(1, 2)))),
        (torch.eye(3).repeat(2, 1, 1) * 2 + torch.rand(2, 3, 3) * 0.3, torch.randn(2, 5, 3), torch.randn(2, 3, 3)),
        (torch.eye(3).repeat(4, 1, 1) * 2 + torch.rand(4, 3, 3) * 0.3, torch.randn(4, 2, 3), torch.randn(4, 3, 3)),
        dynamic_shapes=(({0: torch.export.Dim("b", max=64)}, {0: torch.export.Dim("b", max=64), 1: torch.export.Dim("n", min=2, max=64)}, {0: torch.export.Dim("b", max=64)}),)),
    # antialiased resampling of images of any size to a fixed one
    # (torchvision's Resize, antialias=True by default): the weights at run
    # time, down and up, bilinear and bicubic, align_corners, float64
    "edge_interp_aa_dynamic": lambda: case(Fn(lambda x, d: (
        F.interpolate(x, size=(8, 6), mode="bilinear", antialias=True),
        F.interpolate(x, size=(5, 40), mode="bicubic", antialias=True),
        F.interpolate(x, size=(7, 9), mode="bilinear", antialias=True, align_corners=True),
        F.interpolate(d, size=(4, 3), mode="bicubic", antialias=True))),
        (torch.randn(2, 3, 19, 23), torch.randn(3, 2, 9, 7, dtype=torch.float64)),
        (torch.randn(1, 3, 12, 30), torch.randn(2, 2, 13, 5, dtype=torch.float64)),
        dynamic_shapes=(({0: torch.export.Dim.DYNAMIC, 2: torch.export.Dim.DYNAMIC, 3: torch.export.Dim.DYNAMIC},
                         {0: torch.export.Dim.DYNAMIC, 2: torch.export.Dim.DYNAMIC, 3: torch.export.Dim.DYNAMIC}),)),
    # chunk and tensor_split along a dynamic dim (classifier-free
    # guidance's noise.chunk(2) of a doubled batch), and a real tensor cast
    # to complex (a spectral mask .to(X.dtype))
    "edge_chunk_split_dynamic": lambda: case(Fn(lambda x, s: (
        *x.chunk(2), *torch.tensor_split(x, 3, 1),
        torch.fft.ifft(torch.fft.fft(s) * (torch.arange(s.shape[-1]) < 3).to(torch.complex64)).real)),
        (torch.randn(4, 7), torch.randn(2, 8)), (torch.randn(6, 10), torch.randn(3, 5)),
        dynamic_shapes=(({0: 2 * torch.export.Dim("b", min=2, max=64), 1: torch.export.Dim.DYNAMIC}, {0: torch.export.Dim.DYNAMIC, 1: torch.export.Dim.DYNAMIC}),)),
    # inverse real FFTs of a dynamic length (a spectral filter,
    # irfft(X, n=x.shape[-1])), each norm, the default n, hfft
    "edge_irfft_dynamic": lambda: case(Fn(lambda x: (
        torch.fft.irfft(torch.fft.rfft(x) * 0.5, n=x.shape[-1]), torch.fft.irfft(torch.fft.rfft(x), n=x.shape[-1], norm="ortho"),
        torch.fft.irfft(torch.fft.rfft(x, norm="forward"), norm="forward"), torch.fft.hfft(torch.fft.ifft(x), n=x.shape[-1]),
        torch.fft.irfft(torch.fft.rfft(x), n=x.shape[-1] + 3))),
        (torch.randn(2, 16),), (torch.randn(3, 11),),
        dynamic_shapes=(({0: torch.export.Dim.DYNAMIC, 1: torch.export.Dim.DYNAMIC},),), atol=1e-4),
    # integer division by a tensor: the divisor guarded against 0 and -1
    # (ONNX Runtime's integer Div and Mod trap there, killing the process;
    # tests/e2e/int_div_zero.sh feeds a 0), -1 computed as -a
    "edge_int_div_guard": lambda: case(Fn(lambda a, b, c, d: (
        a // b, torch.div(a, b, rounding_mode="trunc"), torch.remainder(a, b), torch.fmod(a, b),
        c // d, torch.remainder(c, d), torch.div(c, d, rounding_mode="trunc"))),
        (torch.tensor([7, -7, 9, -2**62, 5]), torch.tensor([-1, 2, -3, -1, 7]),
         torch.tensor([7, -7, 100], dtype=torch.int32), torch.tensor([-1, 3, -1], dtype=torch.int32)),
        (torch.tensor([1, 2, 3, 4, -5]), torch.tensor([-1, -1, 5, 2, 2]),
         torch.tensor([-9, 8, 1], dtype=torch.int32), torch.tensor([2, -1, -1], dtype=torch.int32))),
    # writes through slices of run-time bounds (a buffer's tail y[:, -t:],
    # z[:, 1:-1]) and rolls by run-time shifts; a static shift past a
    # dynamic size wraps as torch's does (5 along 3 rows rolled by 5 before)
    "edge_roll_slice_write_dynamic": lambda: case(Fn(lambda buf, x: (
        (lambda y: (y.__setitem__((slice(None), slice(-x.shape[1], None)), x), y)[1])(buf.clone()),
        (lambda z: (z.__setitem__((slice(None), slice(1, -1)), buf), z)[1])(torch.zeros(buf.shape[0], buf.shape[1] + 2)),
        torch.roll(x, x.shape[1] // 2, 1), torch.roll(x, 5, 0), torch.roll(x, -7), torch.roll(x, (x.shape[1], -1), (1, 0)))),
        (torch.randn(3, 10), torch.randn(3, 4)), (torch.randn(2, 10), torch.randn(2, 7)),
        dynamic_shapes=(({0: torch.export.Dim("b", min=2, max=64)}, {0: torch.export.Dim("b", min=2, max=64), 1: torch.export.Dim("t", min=2, max=9)}),)),
    # composites of a dynamic batch or length: cosine similarity, diagonal
    # embeddings on and off the main diagonal, cartesian products, the
    # margin losses
    "edge_composite_dynamic": lambda: case(Fn(lambda x, y, t, m, z: (
        F.cosine_similarity(x, y, -1), F.cosine_similarity(x[:, None], y[None], -1), torch.diag_embed(z), torch.diag_embed(z, -1),
        torch.diag(z[0], 2), torch.cartesian_prod(z[0], y[1], z[1]), F.multi_margin_loss(x, t, reduction="none"),
        F.multi_margin_loss(x, t, p=2, margin=0.5), F.multilabel_margin_loss(x, m))),
        (torch.randn(3, 4), torch.randn(3, 4), torch.tensor([0, 3, 1]), torch.tensor([[1, 2, -1, 0], [3, -1, 1, 1], [0, 1, 2, 3]]), torch.randn(2, 3)),
        (torch.randn(5, 4), torch.randn(5, 4), torch.tensor([2, 2, 0, 1, 3]), torch.tensor([[1, -1, 0, 0]] * 5), torch.randn(2, 6)),
        dynamic_shapes=(({0: torch.export.Dim("b", min=2, max=64)}, {0: torch.export.Dim("b", min=2, max=64)}, {0: torch.export.Dim("b", min=2, max=64)},
                         {0: torch.export.Dim("b", min=2, max=64)}, {1: torch.export.Dim("n", min=2, max=64)}),)),
    # core ATen's _to_copy of a Python number (vmap of x / (n + 1e-6)
    # decomposed: _to_copy(1e-06, dtype=float32)); in the training IR the
    # vmap region reduces over all of a sample's dims (sum, norm) and takes
    # outer products and traces of batched operands
    "edge_to_copy_number": lambda: case(Fn(lambda x, y: torch.func.vmap(
        lambda a, b: ((a * b).sum() / (a.norm() * b.norm() + 1e-6), torch.outer(a, b).trace(),
                      torch.outer(a, b[:2]), torch.outer(a, torch.arange(3.0))))(x, y)),
        (torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(3, 4) * 3, torch.randn(3, 4))),
    # logsumexp of float16/bfloat16 as ATen's kernel rounds it (each of
    # x - max, exp, the sum, log and + max in the half type; an ulp off
    # before); bfloat16 inside float32 inputs and outputs
    "edge_half_logsumexp": lambda: case(Fn(lambda x, h: (
        torch.logsumexp(x.to(torch.bfloat16) * 3, -1).float(), torch.logsumexp(x.to(torch.bfloat16), (0, 1)).float(),
        torch.logsumexp(h * 4, 1), torch.logsumexp(h, 0, keepdim=True))),
        (torch.randn(6, 9), torch.randn(5, 7).half()), (torch.randn(6, 9) * 2, torch.randn(5, 7).half() * 3), atol=0, rtol=0),
    # irfft with a fixed n of a spectrum whose length is dynamic (onnxc
    # aborted: n, a number, was read as a tensor)
    "edge_irfft_fixed_n_dynamic": lambda: case(Fn(lambda x: (
        torch.fft.irfft(torch.fft.rfft(x), n=16), torch.fft.hfft(torch.fft.ifft(x), n=16))),
        (torch.randn(2, 20),), (torch.randn(3, 25),),
        dynamic_shapes=(({0: torch.export.Dim.DYNAMIC, 1: torch.export.Dim.DYNAMIC},),), atol=1e-4),
    # as_strided views of part of a tensor of dynamic sizes (sliding
    # windows of a row, strides and offsets that are SymInts, a scatter
    # through one): refused as "needs static sizes" before
    "edge_as_strided_dynamic": lambda: case(Fn(lambda x, y: (
        x.as_strided((x.shape[0], x.shape[1] - 2, 3), (x.stride(0), 1, 1)).sum(-1),
        x.as_strided((x.shape[1],), (1,), x.shape[1]) * 2,
        torch.as_strided_scatter(x, y, (x.shape[0], 2), (x.shape[1], 1), 1))),
        (torch.randn(3, 7), torch.randn(3, 2)), (torch.randn(5, 4), torch.randn(5, 2)),
        dynamic_shapes=(({0: torch.export.Dim("b", min=2, max=64), 1: torch.export.Dim("n", min=4, max=64)},
                         {0: torch.export.Dim("b", min=2, max=64)}),)),
    # made under torch 2.6 (torch-env run 2.6): it annotates a true division
    # of integers by a SymInt, and of integer tensors of dynamic size, as an
    # integer tensor, and what is computed from it; running it gives float32
    # (pass retype-int-div).  The coordinate grid of a dynamic image, sums,
    # views, splits and sorts of divisions; argmax, sort's indices and a
    # .long() of one stay integers.  Converted as annotated before: integers
    "edge_int_true_div_torch26": lambda: case(Fn(lambda x: (
        lambda h, w, a: (
            torch.stack(torch.meshgrid(torch.arange(h) / (h - 1) * 2 - 1, torch.arange(w) / (w - 1) * 2 - 1,
                                       indexing="ij"), -1)[None].expand(x.shape[0], -1, -1, -1) * 0.9,
            (a + w) / w, torch.where(a > 1, a, w) / 2, torch.clamp(a, max=w) / 2, (a < w) / w, a.to(torch.int32) / w,
            (a / w).cumsum(0), (a / w).view(-1, 1).sum(0), torch.split(a / h, [2, w - 2])[1], *(a / h).sort(descending=True),
            (a * 3 / w).argmax(), (a * 7 / w).long(), x * (a / w)))(x.shape[1], x.shape[2], torch.arange(x.shape[2]))),
        (torch.randn(2, 5, 6),), (torch.randn(1, 8, 4),),
        dynamic_shapes=(({0: torch.export.Dim.DYNAMIC, 1: torch.export.Dim("h", min=2, max=64), 2: torch.export.Dim("w", min=4, max=64)},),)),
    # antialiased resampling of uint8 images of a dynamic height and width
    # (torchvision's Resize of a uint8 tensor): PyTorch's 16-bit weights,
    # whose precision its kernel chooses per size, chosen at run time;
    # refused by name before.  Exact: the outputs are uint8
    "edge_interp_aa_uint8_dynamic": lambda: case(Fn(lambda x: (
        F.interpolate(x, size=(8, 6), mode="bilinear", antialias=True),
        F.interpolate(x, size=(5, 40), mode="bicubic", antialias=True),
        F.interpolate(x, size=(7, 9), mode="bilinear", antialias=True, align_corners=True),
        F.interpolate(x, size=(30, 4), mode="bicubic", antialias=True, align_corners=True))),
        (torch.randint(0, 256, (2, 3, 19, 23), dtype=torch.uint8),),
        (torch.randint(0, 256, (1, 3, 12, 30), dtype=torch.uint8),),
        dynamic_shapes=(({0: torch.export.Dim.DYNAMIC, 2: torch.export.Dim.DYNAMIC, 3: torch.export.Dim.DYNAMIC},),),
        rtol=0, atol=0),
    # bilinear resampling of uint8 images of a dynamic height and width
    # without antialias: PyTorch's integer kernel, its 16-bit weights and
    # their precision made at run time; refused by name before.  Exact
    "edge_interp_bilinear_uint8_dynamic": lambda: case(Fn(lambda x: (
        F.interpolate(x, size=(8, 6), mode="bilinear"),
        F.interpolate(x, size=(13, 21), mode="bilinear", align_corners=True),
        F.interpolate(x, size=(1, 33), mode="bilinear"),
        F.interpolate(x, size=(40, 2), mode="bilinear", align_corners=True))),
        (torch.randint(0, 256, (2, 3, 10, 12), dtype=torch.uint8),),
        (torch.randint(0, 256, (1, 3, 17, 7), dtype=torch.uint8),),
        dynamic_shapes=(({0: torch.export.Dim.DYNAMIC, 2: torch.export.Dim.DYNAMIC, 3: torch.export.Dim.DYNAMIC},),),
        rtol=0, atol=0),
    # int8 / uint8 (OpInfo samples 0-1 of those dtypes): ops ONNX Runtime
    # has no 8-bit kernel for (MatMul, not even an ONNX type; Where of
    # int8, Trilu, Einsum, ReduceSum) run in int32 and wrap back as
    # PyTorch's 8-bit arithmetic does; gcd/lcm's Where inside their Loop
    # body; trapezoid's and pairwise_distance's differences wrap in the
    # integer type before they become float
    "edge_int8_kernels": lambda: case(Fn(lambda a, b, u, v, m: (
        a @ b, torch.addbmm(a[:, :3], a.reshape(2, 3, 4), b.reshape(2, 4, 3)[:, :, :3]),
        torch.einsum("ij,jk->ik", u, v), u @ v, torch.triu(a, 1), torch.tril(u),
        torch.where(m, a[:, :4], a[:, 4:]), torch.gcd(a, a.flip(0)), torch.lcm(a, b.T),
        torch.trapezoid(u, v.T), torch.cumulative_trapezoid(u, v.T), torch.trapezoid(u, dx=0.5),
        torch.nn.functional.pairwise_distance(u, v.T),
        torch.nn.functional.triplet_margin_loss(u.float(), v.T.float(), u.flip(0).float()))),
        (torch.randint(-100, 100, (3, 8), dtype=torch.int8), torch.randint(-100, 100, (8, 3), dtype=torch.int8),
         torch.randint(0, 255, (4, 6), dtype=torch.uint8), torch.randint(0, 255, (6, 4), dtype=torch.uint8),
         torch.rand(3, 4) > 0.5)),
    # int16 (OpInfo int16 samples 0-1): Pad, Max/Min, ReduceMax/Min,
    # ArgMax and BitShift have no 16-bit kernel in ONNX Runtime (int32,
    # uint32 for the shifts)
    "edge_int16_kernels": lambda: case(Fn(lambda a, b, s: (
        torch.nn.functional.pad(a, (1, 2)), torch.nn.functional.pad(a[None], (2, 1), mode="reflect"),
        torch.nn.functional.pad(a[None], (1, 1), mode="replicate"), torch.maximum(a, b), torch.minimum(a, b),
        a.amax(1), a.amin(0), a.argmax(1), a.argmin(), a << s, a >> s, torch.block_diag(a, b[:2]),
        torch.mode(a, 1)[0], torch.scatter_reduce(a, 1, s.long() % 5, b, "mean"))),
        (torch.randint(-3000, 3000, (3, 5), dtype=torch.int16), torch.randint(-3000, 3000, (3, 5), dtype=torch.int16),
         torch.randint(0, 9, (3, 5), dtype=torch.int16))),
    # trigamma (polygamma(1, x)) step for step as PyTorch's kernel: at a
    # negative integer pi^2 / sin(pi x)^2 of pi x's rounding, large and
    # finite (onnxc gave inf), in float32 and float64 (where ONNX Runtime's
    # double Sin gives sin(-pi) = 0, glibc 1.2e-16); integer inputs
    "edge_trigamma_poles": lambda: case(Fn(lambda x, d, i: (
        torch.polygamma(1, x), torch.special.polygamma(1, d), torch.polygamma(1, i), torch.polygamma(2, x))),
        (torch.tensor([-8.0, -3.0, -1.0, -0.5, 0.0, 1e-4, 0.3, 0.5, 1.0, 2.5, 7.0, 1e3, 3e7, float("inf"),
                       float("-inf"), float("nan"), -2.25, -40.0]),
         torch.tensor([-8.0, -3.0, -2.0, -1.0, -0.5, 1e-4, 0.3, 0.5, 1.0, 2.5, 7.0, 1e3, -2.25, -40.0, -1e6],
                      dtype=torch.float64),
         torch.tensor([-6, -5, -1, 1, 2, 9], dtype=torch.int16)),
        rtol=1e-5, atol=1e-6),
    # OpInfo samples 17-24: diff with n=0 (self, prepend and append left
    # out), linear with no inner dim (ONNX Runtime fused MatMul + Add into
    # a Gemm that refuses K = 0), put of nothing into an empty tensor
    "edge_samples_17_24": lambda: case(Fn(lambda x, p, a, e, w, b, z, zi: (
        torch.diff(x, 0, 0, p, a), torch.diff(x, 0), torch.nn.functional.linear(e, w, b),
        torch.nn.functional.linear(e, w), torch.nn.functional.linear(e[0], w, b),
        torch.put(z, zi, z, accumulate=True), torch.put(z, zi, z))),
        (torch.randn(5, 5), torch.randn(1, 5), torch.randn(2, 5), torch.randn(3, 4, 0), torch.randn(5, 0),
         torch.randn(5), torch.randn(0), torch.zeros(0, dtype=torch.int64))),
    # bicubic resampling of uint8 images (its integer kernel: 16-bit
    # weights from double, two rounded passes; ONNX Runtime's Resize of
    # uint8 failed at run time): down, up, by a scale, align_corners;
    # uint8 outputs compare exactly; upsamplings (as float, within 1)
    # have a few pixels in 10^4 off by 1 near a border, which the model of
    # the kernel's weights does not explain yet
    "edge_interp_bicubic_u8": lambda: case(Fn(lambda i: (
        torch.nn.functional.interpolate(i, size=(13, 7), mode="bicubic"),
        torch.nn.functional.interpolate(i, size=(9, 50), mode="bicubic", align_corners=True),
        torch.nn.functional.interpolate(i, size=(70, 33), mode="bicubic").float(),
        torch.nn.functional.interpolate(i, scale_factor=1.7, mode="bicubic").float(),
        torch.nn.functional.interpolate(i, size=(40, 45), mode="bicubic").float())),
        (torch.randint(0, 256, (2, 3, 27, 30), dtype=torch.uint8),), rtol=0, atol=1),
    # uint8 bilinear, and antialiased bilinear and bicubic (torchvision's
    # Resize(antialias=True) of uint8 images), as the kernel's integer
    # arithmetic computes them: exact (onnxc's Resize was off by 1 in half
    # the pixels; the antialiased ones were refused)
    "edge_interp_u8": lambda: case(Fn(lambda i: (
        torch.nn.functional.interpolate(i, size=(13, 7), mode="bilinear"),
        torch.nn.functional.interpolate(i, size=(40, 45), mode="bilinear"),
        torch.nn.functional.interpolate(i, scale_factor=1.7, mode="bilinear", align_corners=True),
        torch.nn.functional.interpolate(i, size=(13, 7), mode="bilinear", antialias=True),
        torch.nn.functional.interpolate(i, size=(40, 45), mode="bilinear", antialias=True),
        torch.nn.functional.interpolate(i, size=(10, 29), mode="bicubic", antialias=True),
        torch.nn.functional.interpolate(i, scale_factor=0.4, mode="bicubic", antialias=True))),
        (torch.randint(0, 256, (2, 3, 27, 30), dtype=torch.uint8),), rtol=0, atol=0),
    # fractional max pooling given its random samples (as an input; the
    # training IR's aten::rand is refused, or a RandomUniform with
    # --training): 2-D (W's sample first) and 3-D, ties, float64
    "edge_fractional_pool": lambda: case(Fn(lambda x, s, y, t, z, q: (
        *torch.ops.aten.fractional_max_pool2d(x, [3, 2], [4, 5], s),
        *torch.ops.aten.fractional_max_pool3d(y, [2, 3, 2], [3, 4, 5], t),
        torch.ops.aten.fractional_max_pool2d(z, [2, 2], [1, 3], q)[0],
        *torch.ops.aten.fractional_max_pool2d(x.half(), [2, 3], [7, 4], s.half()),
        torch.ops.aten.fractional_max_pool3d(y.half(), [3, 2, 2], [4, 6, 7], t.half())[1])),
        (torch.randn(2, 3, 9, 11), torch.rand(2, 3, 2), torch.randn(2, 3, 7, 8, 9), torch.rand(2, 3, 3),
         torch.randn(1, 2, 5, 6, dtype=torch.float64).round(), torch.rand(1, 2, 2, dtype=torch.float64))),
    # training-mode batch norm of float16 as PyTorch's half kernel rounds:
    # the batch mean, the sum of squares and 1/sqrt(var + eps) kept in
    # half, x * alpha + beta in float (3 ulp off before)
    "edge_bn_half_train": lambda: case(Fn(lambda x, w, b, m, v: (
        *torch.ops.aten.native_batch_norm(x, w, b, m, v, True, 0.5, 0.6),
        torch.nn.functional.batch_norm(x * 3 + 1, None, None, training=True, eps=1e-5))),
        (torch.randn(5, 5, 5, dtype=torch.float16), torch.randn(5, dtype=torch.float16),
         torch.randn(5, dtype=torch.float16), torch.randn(5, dtype=torch.float16),
         torch.rand(5, dtype=torch.float16) + 0.5)),
    # quantile / nanquantile with q a tensor (OpInfo samples 25-40: the
    # .default overload was unsupported): each q's result along a new
    # first dim, with dim and keepdim, interpolation modes, NaNs, 0-d q
    "edge_quantile_tensor_q": lambda: case(Fn(lambda x, q, q0: (
        torch.quantile(x, q), torch.quantile(x, q, dim=1, keepdim=True),
        torch.nanquantile(x, q, dim=0), torch.quantile(x, q0, dim=-1),
        torch.quantile(x, q, dim=1, interpolation="midpoint"),
        torch.nanquantile(x, q, dim=1, interpolation="nearest"))),
        (torch.tensor([[1.0, 5.0, float("nan"), 2.0], [3.0, -1.0, 4.0, 0.5], [7.0, 7.0, 2.0, -3.0]]),
         torch.tensor([0.0, 0.25, 0.5, 0.9, 1.0]), torch.tensor(0.3))),
    # NaN sorts as the largest, after +inf (ONNX's TopK leaves its place
    # open: the core form of quantile gathered 7 where PyTorch has NaN)
    "edge_sort_nan": lambda: case(Fn(lambda x, d: (
        *torch.sort(x, dim=1), *torch.sort(x, dim=0, descending=True), torch.argsort(x, dim=1, stable=True),
        *torch.topk(x, 2, dim=1), *torch.topk(x, 2, dim=1, largest=False), torch.msort(d), *torch.sort(d))),
        (torch.tensor([[1.0, float("nan"), float("inf"), -2.0, float("-inf")],
                       [float("nan"), 3.0, float("nan"), float("inf"), 0.5],
                       [2.0, 1.0, 0.0, -1.0, -0.0]]),
         torch.tensor([3.0, float("nan"), -1.0, float("inf"), 2.0], dtype=torch.float64))),
}


class FakeQuant(nn.Module):
    def forward(self, x):
        return (torch.fake_quantize_per_tensor_affine(x, 0.5, 3, -128, 127),
                torch.fake_quantize_per_tensor_affine(x, torch.tensor(0.2), torch.tensor(-2, dtype=torch.int32), 0, 15),
                torch.fake_quantize_per_channel_affine(x, torch.tensor([0.1, 0.05, 0.5]),
                                                       torch.tensor([0, 1, 2], dtype=torch.int32), 1, -8, 7),
                torch.ops.aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
                    x, torch.tensor([0.05]), torch.tensor([128], dtype=torch.int32), torch.tensor([1], dtype=torch.long),
                                    0, 255)[0])
