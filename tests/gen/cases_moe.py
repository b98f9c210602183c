"""Mixture-of-experts layers of transformers (tests/cases-moe), whose experts
run through transformers' custom op `transformers::grouped_mm_fallback`,
lowered by the translation plugin passes/transformers.c.  Made with real
PyTorch and transformers:

    PYTHONPATH=tests/gen /work/shared/tools/torch-env run 2.14 python3 \
        /work/shared/tools/gen2/gen.py tests/cases-moe cases_moe
"""
import torch
from transformers import MixtralConfig, MixtralForCausalLM


def config(**kw):
    c = MixtralConfig(vocab_size=64, hidden_size=32, intermediate_size=48,
                      num_hidden_layers=1, num_attention_heads=4,
                      num_key_value_heads=2, num_local_experts=4,
                      num_experts_per_tok=2, max_position_embeddings=64, **kw)
    c._experts_implementation = "grouped_mm"
    return c


class Lm(torch.nn.Module):
    """The logits only: no cache (torch.export cannot return one)."""
    def __init__(self, cfg):
        super().__init__()
        self.m = MixtralForCausalLM(cfg)

    def forward(self, ids):
        return self.m(ids, use_cache=False).logits


def tokens(n, seed):
    return torch.randint(0, 64, (1, n), generator=torch.Generator().manual_seed(seed))


def moe_block():
    torch.manual_seed(0)
    lm = MixtralForCausalLM(config())
    block = lm.model.layers[0].mlp
    g = torch.Generator().manual_seed(3)
    return dict(model=block, samples=[(torch.randn(2, 5, 32, generator=g),),
                                      (torch.randn(2, 5, 32, generator=g),)],
                core=False, pt2=True)


def mixtral_lm():
    torch.manual_seed(0)
    return dict(model=Lm(config()), samples=[(tokens(8, 1),), (tokens(8, 2),)],
                core=False, pt2=True, rtol=1e-3, atol=1e-4)


def moe_block_half():
    """The block in float16 (model.half()): the experts run in float32,
    rounded once, as onnxc's other products; an .ort file of it runs on
    ONNX Runtime's CPU, which has no float16 MatMul."""
    d = moe_block()
    d["model"] = d["model"].half()
    d["samples"] = [tuple(t.half() for t in s) for s in d["samples"]]
    d.update(rtol=1e-2, atol=1e-3)
    return d


CASES = {"moe_block": moe_block, "mixtral_lm": mixtral_lm, "moe_block_half": moe_block_half}
