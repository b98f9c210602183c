"""A wide sweep of real architectures (random weights, tiny configs): a stand-in for held-out models."""
import torch, torch.nn as nn
from torch.export import Dim
from cases_real import hf_lm, _ids, img, LM, Enc, PixelWrap, tv, B, S

def lm(cfgname, modelname, **kw):
    def b():
        import transformers
        return hf_lm(getattr(transformers, cfgname), getattr(transformers, modelname), f"transformers {modelname}", **kw)
    return b

class Out(nn.Module):
    def __init__(self, m, key, **fixed):
        super().__init__(); self.m = m; self.key = key; self.fixed = fixed
    def forward(self, *a):
        o = self.m(*a, **self.fixed)
        return getattr(o, self.key) if self.key else o

def enc(cfgname, modelname, pooled=False, **cfg):
    def b():
        import transformers
        base = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                    max_position_embeddings=64)
        base.update(cfg)
        m = Enc(getattr(transformers, modelname)(getattr(transformers, cfgname)(**base)).eval(), pooled=pooled)
        def s(bb, n):
            mask = torch.ones(bb, n, dtype=torch.int64); mask[0, -2:] = 0
            return (_ids(bb, n), mask)
        return dict(model=m, samples=[s(2, 8), s(3, 6)], dynamic_shapes=({0: B, 1: S}, {0: B, 1: S}), source=modelname)
    return b

def vis(cfgname, modelname, key="last_hidden_state", hw=32, ch=3, **cfg):
    def b():
        import transformers
        m = getattr(transformers, modelname)(getattr(transformers, cfgname)(**cfg)).eval()
        class W(nn.Module):
            def __init__(s, m): super().__init__(); s.m = m
            def forward(s, x): return getattr(s.m(pixel_values=x), key)
        return dict(model=W(m), samples=[(torch.randn(2, ch, hw, hw),)], source=modelname, rtol=1e-3, atol=1e-4)
    return b

def tvm(fn, hw=64, **kw):
    def b():
        import torchvision.models as M
        if not hasattr(M, fn): import torchvision.models.segmentation as M
        m = getattr(M, fn)(weights=None, **kw).eval()
        return tv(m, hw=hw, source=f"torchvision {fn}")
    return b

def whisper():
    from transformers import WhisperConfig, WhisperModel
    c = WhisperConfig(vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                      decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=16,
                      max_source_positions=16, max_target_positions=32, pad_token_id=0, decoder_start_token_id=1, bos_token_id=1, eos_token_id=1)
    m = WhisperModel(c).eval()
    class W(nn.Module):
        def __init__(s, m): super().__init__(); s.m = m
        def forward(s, feats, dec): return s.m(input_features=feats, decoder_input_ids=dec, use_cache=False).last_hidden_state
    return dict(model=W(m), samples=[(torch.randn(2, 16, 32), _ids(2, 5))], source="WhisperModel")

def wav2vec2():
    from transformers import Wav2Vec2Config, Wav2Vec2Model
    c = Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                       conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                       num_conv_pos_embedding_groups=4, do_stable_layer_norm=False, feat_extract_norm="group")
    m = Wav2Vec2Model(c).eval()
    class W(nn.Module):
        def __init__(s, m): super().__init__(); s.m = m
        def forward(s, x): return s.m(input_values=x).last_hidden_state
    return dict(model=W(m), samples=[(torch.randn(2, 400),)], source="Wav2Vec2Model")

def clip_text():
    from transformers import CLIPTextConfig, CLIPTextModel
    c = CLIPTextConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=64)
    m = CLIPTextModel(c).eval()
    return dict(model=Out(m, "pooler_output"), samples=[(_ids(2, 8),)], source="CLIPTextModel")

def mamba():
    from transformers import MambaConfig, MambaForCausalLM
    c = MambaConfig(vocab_size=128, hidden_size=32, state_size=8, num_hidden_layers=2, expand=2, conv_kernel=4)
    return dict(model=LM(MambaForCausalLM(c).eval()), samples=[(_ids(2, 8),)], source="MambaForCausalLM")

def fnet():
    from transformers import FNetConfig, FNetModel
    c = FNetConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, max_position_embeddings=64, use_tpu_fourier_optimizations=False)
    m = FNetModel(c).eval()
    return dict(model=Out(m, "last_hidden_state"), samples=[(_ids(2, 8),)], source="FNetModel")

def seq2seq(cfgname, modelname, **cfg):
    def b():
        import transformers
        base = dict(vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                    decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64)
        base.update(cfg)
        m = getattr(transformers, modelname)(getattr(transformers, cfgname)(**base)).eval()
        class W(nn.Module):
            def __init__(s, m): super().__init__(); s.m = m
            def forward(s, a, d): return s.m(input_ids=a, decoder_input_ids=d, use_cache=False).last_hidden_state
        return dict(model=W(m), samples=[(_ids(2, 8), _ids(2, 5))], source=modelname)
    return b

CASES = {
    "z_mistral": lm("MistralConfig", "MistralForCausalLM", num_key_value_heads=2),
    "z_mixtral": lm("MixtralConfig", "MixtralForCausalLM", num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2),
    "z_qwen2_moe": lm("Qwen2MoeConfig", "Qwen2MoeForCausalLM", num_key_value_heads=2, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, shared_expert_intermediate_size=32),
    "z_qwen3": lm("Qwen3Config", "Qwen3ForCausalLM", num_key_value_heads=2, head_dim=8),
    "z_qwen3_moe": lm("Qwen3MoeConfig", "Qwen3MoeForCausalLM", num_key_value_heads=2, head_dim=8, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16),
    "z_phi": lm("PhiConfig", "PhiForCausalLM"),
    "z_phi3": lm("Phi3Config", "Phi3ForCausalLM", num_key_value_heads=2, pad_token_id=0, eos_token_id=1, bos_token_id=1),
    "z_gemma": lm("GemmaConfig", "GemmaForCausalLM", num_key_value_heads=2, head_dim=8),
    "z_gemma3": lm("Gemma3TextConfig", "Gemma3ForCausalLM", num_key_value_heads=2, head_dim=8, sliding_window=4),
    "z_olmo": lm("OlmoConfig", "OlmoForCausalLM"),
    "z_olmo2": lm("Olmo2Config", "Olmo2ForCausalLM"),
    "z_stablelm": lm("StableLmConfig", "StableLmForCausalLM", num_key_value_heads=2),
    "z_starcoder2": lm("Starcoder2Config", "Starcoder2ForCausalLM", num_key_value_heads=2),
    "z_falcon": lm("FalconConfig", "FalconForCausalLM"),
    "z_granite": lm("GraniteConfig", "GraniteForCausalLM"),
    "z_cohere": lm("CohereConfig", "CohereForCausalLM"),
    "z_deepseek_v3": lm("DeepseekV3Config", "DeepseekV3ForCausalLM", n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, kv_lora_rank=8, q_lora_rank=8, qk_rope_head_dim=4, qk_nope_head_dim=4, v_head_dim=8, n_group=1, topk_group=1, first_k_dense_replace=1, num_key_value_heads=4),
    "z_bloom": lambda: hf_lm(__import__("transformers").BloomConfig, __import__("transformers").BloomForCausalLM, "BloomForCausalLM", n_layer=2, n_head=4),
    "z_opt": lambda: hf_lm(__import__("transformers").OPTConfig, __import__("transformers").OPTForCausalLM, "OPTForCausalLM", ffn_dim=64, word_embed_proj_dim=32),
    "z_gptj": lambda: hf_lm(__import__("transformers").GPTJConfig, __import__("transformers").GPTJForCausalLM, "GPTJForCausalLM", n_embd=32, n_layer=2, n_head=4, rotary_dim=4, n_positions=64),
    "z_codegen": lambda: hf_lm(__import__("transformers").CodeGenConfig, __import__("transformers").CodeGenForCausalLM, "CodeGenForCausalLM", n_embd=32, n_layer=2, n_head=4, rotary_dim=4, n_positions=64, n_ctx=64),
    "z_mamba": mamba,
    "z_distilbert": enc("DistilBertConfig", "DistilBertModel", dim=32, hidden_dim=64, n_layers=2, n_heads=4),
    "z_roberta": enc("RobertaConfig", "RobertaModel", pooled=True, pad_token_id=1),
    "z_albert": enc("AlbertConfig", "AlbertModel", embedding_size=16),
    "z_deberta_v2": enc("DebertaV2Config", "DebertaV2Model", relative_attention=True, position_buckets=16, pos_att_type=["p2c", "c2p"]),
    "z_electra": enc("ElectraConfig", "ElectraModel", embedding_size=16),
    "z_mpnet": enc("MPNetConfig", "MPNetModel"),
    "z_modernbert": enc("ModernBertConfig", "ModernBertModel", pad_token_id=0, bos_token_id=1, eos_token_id=1, cls_token_id=1, sep_token_id=1, global_attn_every_n_layers=2, local_attention=4),
    "z_fnet": fnet,
    "z_clip_text": clip_text,
    "z_whisper": whisper,
    "z_wav2vec2": wav2vec2,
    "z_marian": seq2seq("MarianConfig", "MarianModel", pad_token_id=0, decoder_start_token_id=1, eos_token_id=1),
    "z_pegasus": seq2seq("PegasusConfig", "PegasusModel"),
    "z_hf_swin": vis("SwinConfig", "SwinModel", image_size=32, patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[1, 2], window_size=4),
    "z_hf_convnext": vis("ConvNextConfig", "ConvNextModel", num_stages=2, hidden_sizes=[8, 16], depths=[1, 1], num_channels=3),
    "z_beit": vis("BeitConfig", "BeitModel", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, use_relative_position_bias=True),
    "z_deit": vis("DeiTConfig", "DeiTModel", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64),
    "z_segformer": vis("SegformerConfig", "SegformerModel", num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[8, 16], patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2]),
    "z_mobilevit": vis("MobileViTConfig", "MobileViTModel", hw=64, image_size=64, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 24, 24, 32]),
    "z_dinov2": vis("Dinov2Config", "Dinov2Model", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2),
    "z_resnet_hf": vis("ResNetConfig", "ResNetModel", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1]),
    "z_tv_googlenet": tvm("googlenet", aux_logits=False, init_weights=True),
    "z_tv_inception": tvm("inception_v3", hw=80, aux_logits=False, init_weights=True),
    "z_tv_squeezenet": tvm("squeezenet1_1"),
    "z_tv_mnasnet": tvm("mnasnet0_5"),
    "z_tv_vgg": tvm("vgg11_bn", hw=32),
    "z_tv_alexnet": tvm("alexnet", hw=64),
    "z_tv_resnext": tvm("resnext50_32x4d", hw=32),
    "z_tv_mobilenet_v2": tvm("mobilenet_v2"),
    "z_tv_deeplab": tvm("deeplabv3_mobilenet_v3_large", weights_backbone=None, num_classes=4),
    "z_tv_fcn": tvm("fcn_resnet50", weights_backbone=None, num_classes=4),
    "z_tv_efficientnet_v2": tvm("efficientnet_v2_s"),
}

def lm_mask(cfgname, modelname, kw={}, **cfg):
    def b():
        import transformers
        base = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                    max_position_embeddings=64)
        base.update(cfg)
        m = LM(getattr(transformers, modelname)(getattr(transformers, cfgname)(**base)).eval())
        def s(bb, n):
            mask = torch.ones(bb, n, dtype=torch.int64); mask[0, :2] = 0
            return (_ids(bb, n), mask)
        return dict(model=m, samples=[s(2, 8), s(3, 6)], dynamic_shapes=({0: B, 1: S}, {0: B, 1: S}), source=modelname + " with a padding mask", **kw)
    return b

CASES.update({
    "x_falcon_mask": lm_mask("FalconConfig", "FalconForCausalLM", kw=dict(pt2=False)),
    "x_gemma3_mask": lm_mask("Gemma3TextConfig", "Gemma3ForCausalLM", num_key_value_heads=2, head_dim=8, sliding_window=4),
    "x_llama_mask": lm_mask("LlamaConfig", "LlamaForCausalLM", num_key_value_heads=2),
    "x_mistral_mask": lm_mask("MistralConfig", "MistralForCausalLM", num_key_value_heads=2, sliding_window=4),
    "x_qwen3_moe_mask": lm_mask("Qwen3MoeConfig", "Qwen3MoeForCausalLM", num_key_value_heads=2, head_dim=8, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16),
    "x_gpt_neox_mask": lm_mask("GPTNeoXConfig", "GPTNeoXForCausalLM", rotary_pct=0.5),
    "x_phi3_mask": lm_mask("Phi3Config", "Phi3ForCausalLM", num_key_value_heads=2, pad_token_id=0, eos_token_id=1, bos_token_id=1),
})

class LMCache(nn.Module):
    def __init__(s, m):
        super().__init__(); s.m = m
    def forward(s, ids, mask):
        o = s.m(input_ids=ids, attention_mask=mask, use_cache=True)
        kv = o.past_key_values
        outs = [o.logits]
        for layer in kv.layers:
            outs += [layer.keys, layer.values]
        return tuple(outs)

class LMStep(nn.Module):
    """one decoding step on a cache given as tensors"""
    def __init__(s, m):
        super().__init__(); s.m = m
    def forward(s, ids, mask, k0, v0, k1, v1):
        from transformers import DynamicCache
        c = DynamicCache(config=s.m.config)
        c.update(k0, v0, 0); c.update(k1, v1, 1)
        o = s.m(input_ids=ids, attention_mask=mask, past_key_values=c, use_cache=True)
        return (o.logits,) + tuple(t for l in o.past_key_values.layers for t in (l.keys, l.values))

def lm_cache(cfgname, modelname, step=False, **cfg):
    def b():
        import transformers
        base = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                    max_position_embeddings=64, num_key_value_heads=2)
        base.update(cfg)
        m = getattr(transformers, modelname)(getattr(transformers, cfgname)(**base)).eval()
        if not step:
            mask = torch.ones(2, 6, dtype=torch.int64); mask[0, :2] = 0
            return dict(model=LMCache(m), samples=[(_ids(2, 6), mask)], source=modelname + " with its cache out")
        P = Dim("past", min=1, max=32)
        kv = [torch.randn(2, 2, 5, 8) for _ in range(4)]
        mask = torch.ones(2, 6, dtype=torch.int64); mask[0, :2] = 0
        return dict(model=LMStep(m), samples=[(_ids(2, 1), mask, *kv)],
                    dynamic_shapes=({0: B}, {0: B, 1: P + 1}, *[{0: B, 2: P}] * 4), source=modelname + " decode step")
    return b

CASES.update({
    "w_llama_cache": lm_cache("LlamaConfig", "LlamaForCausalLM"),
    "w_qwen2_cache": lm_cache("Qwen2Config", "Qwen2ForCausalLM"),
    "w_llama_step": lm_cache("LlamaConfig", "LlamaForCausalLM", step=True),
    "w_mistral_step": lm_cache("MistralConfig", "MistralForCausalLM", step=True, sliding_window=4),
    "w_gemma3_step": lm_cache("Gemma3TextConfig", "Gemma3ForCausalLM", step=True, head_dim=8, sliding_window=4),
})

def half(builder, dt=torch.float16):
    def b():
        o = builder()
        o["model"] = o["model"].to(dt)
        o["samples"] = [tuple(a.to(dt) if a.is_floating_point() else a for a in s) for s in o["samples"]]
        o["rtol"], o["atol"] = 2e-2, 2e-2
        return o
    return b

CASES.update({
    "h_llama_half": half(lm_mask("LlamaConfig", "LlamaForCausalLM", num_key_value_heads=2)),
    "h_bert_half": half(enc("BertConfig", "BertModel", pooled=True)),
    "h_tv_resnet_half": half(tvm("resnet18", hw=32)),
    "h_tv_mobilenet_half": half(tvm("mobilenet_v3_small", hw=32)),
    "h_vit_half": half(vis("ViTConfig", "ViTModel", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)),
    "h_whisper_half": half(whisper),
    "h_qwen3_moe_half": half(lm("Qwen3MoeConfig", "Qwen3MoeForCausalLM", num_key_value_heads=2, head_dim=8, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16)),
})

class S2SMask(nn.Module):
    def __init__(s, m):
        super().__init__(); s.m = m
    def forward(s, ids, mask, dec):
        return s.m(input_ids=ids, attention_mask=mask, decoder_input_ids=dec, use_cache=False).last_hidden_state

def s2s_mask(cfgname, modelname, **cfg):
    def b():
        import transformers
        m = getattr(transformers, modelname)(getattr(transformers, cfgname)(**cfg)).eval()
        mask = torch.ones(2, 8, dtype=torch.int64); mask[0, -3:] = 0; mask[1, :2] = 0
        return dict(model=S2SMask(m), samples=[(_ids(2, 8), mask, _ids(2, 5))], source=modelname + " with a padding mask")
    return b

CASES.update({
    "p_t5_mask": s2s_mask("T5Config", "T5Model", vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                          relative_attention_num_buckets=8, decoder_start_token_id=0),
    "p_bart_mask": s2s_mask("BartConfig", "BartModel", vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2,
                            encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                            max_position_embeddings=64),
    "p_marian_mask": s2s_mask("MarianConfig", "MarianModel", vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2,
                              encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                              max_position_embeddings=64, pad_token_id=0, decoder_start_token_id=1, eos_token_id=1),
    "p_distilbert_allpad": enc("DistilBertConfig", "DistilBertModel", dim=32, hidden_dim=64, n_layers=2, n_heads=4),
})
