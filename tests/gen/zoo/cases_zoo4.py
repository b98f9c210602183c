"""Fourth sweep: architectures of transformers 5 no earlier sweep had (decoders with sliding windows,
soft-capping, MoE, hybrid Mamba/attention and linear attention; encoders with convolutional, grouped or
relative attention; vision backbones; WavLM).  torch.export itself refuses RWKV, Longformer, MobileBERT
(a sequence constraint or a data-dependent guard) and MRA (flat_apply it cannot serialize), so they are
left out."""
import torch, torch.nn as nn
from cases_real import hf_lm, _ids, img, LM, B, S
from cases_zoo import lm, enc, vis, Out
from cases_zoo2 import audio, W2V

KV = dict(num_key_value_heads=2)
CASES = {
    "v_gemma2": lm("Gemma2Config", "Gemma2ForCausalLM", head_dim=8, **KV),
    "v_glm": lm("GlmConfig", "GlmForCausalLM", head_dim=8, pad_token_id=0, **KV),
    "v_glm4": lm("Glm4Config", "Glm4ForCausalLM", head_dim=8, pad_token_id=0, **KV),
    "v_nemotron": lm("NemotronConfig", "NemotronForCausalLM", **KV),
    "v_helium": lm("HeliumConfig", "HeliumForCausalLM", head_dim=8, **KV),
    "v_smollm3": lm("SmolLM3Config", "SmolLM3ForCausalLM", pad_token_id=0, **KV),
    "v_ernie45": lm("Ernie4_5Config", "Ernie4_5ForCausalLM", head_dim=8, **KV),
    "v_arcee": lm("ArceeConfig", "ArceeForCausalLM", **KV),
    "v_dots1": lm("Dots1Config", "Dots1ForCausalLM", n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, n_shared_experts=1, first_k_dense_replace=1, n_group=1, topk_group=1, **KV),
    "v_cohere2": lm("Cohere2Config", "Cohere2ForCausalLM", sliding_window=4, **KV),
    "v_olmo3": lm("Olmo3Config", "Olmo3ForCausalLM", sliding_window=4, **KV),
    "v_seed_oss": lm("SeedOssConfig", "SeedOssForCausalLM", head_dim=8, **KV),
    "v_hunyuan": lm("HunYuanDenseV1Config", "HunYuanDenseV1ForCausalLM", head_dim=8, **KV),
    "v_bitnet": lm("BitNetConfig", "BitNetForCausalLM", **KV),
    "v_lfm2": lm("Lfm2Config", "Lfm2ForCausalLM", layer_types=["conv", "full_attention"], conv_L_cache=3, **KV, dynamic=False),
    "v_bamba": lm("BambaConfig", "BambaForCausalLM", mamba_n_heads=4, mamba_d_head=16, mamba_d_state=8, mamba_chunk_size=4, attn_layer_indices=[1], **KV, dynamic=False),
    "v_granite_hybrid": lm("GraniteMoeHybridConfig", "GraniteMoeHybridForCausalLM", num_local_experts=4, num_experts_per_tok=2, mamba_n_heads=4, mamba_d_head=16, mamba_d_state=8, mamba_chunk_size=4, layer_types=["mamba", "attention"], **KV, dynamic=False),
    "v_qwen3_next": lm("Qwen3NextConfig", "Qwen3NextForCausalLM", head_dim=8, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, shared_expert_intermediate_size=16, linear_num_value_heads=4, linear_num_key_heads=2, linear_key_head_dim=8, linear_value_head_dim=8, layer_types=["linear_attention", "full_attention"], **KV, dynamic=False),
    "v_minimax": lm("MiniMaxConfig", "MiniMaxForCausalLM", head_dim=8, num_local_experts=4, num_experts_per_tok=2, block_size=4, layer_types=["linear_attention", "full_attention"], **KV, dynamic=False),
    "v_gemma3n": lm("Gemma3nTextConfig", "Gemma3nForCausalLM", head_dim=8, hidden_size_per_layer_input=8, vocab_size_per_layer_input=128, laurel_rank=4, altup_num_inputs=2, num_kv_shared_layers=0, activation_sparsity_pattern=[0.0, 0.0], layer_types=["sliding_attention", "full_attention"], sliding_window=4, **KV, dynamic=False),
    "v_convbert": enc("ConvBertConfig", "ConvBertModel", embedding_size=32, head_ratio=2, conv_kernel_size=3),
    "v_squeezebert": enc("SqueezeBertConfig", "SqueezeBertModel", embedding_size=32, q_groups=2, k_groups=2, v_groups=2, post_attention_groups=2, intermediate_groups=2, output_groups=2),
    "v_roformer": enc("RoFormerConfig", "RoFormerModel", embedding_size=32),
    "v_megatron_bert": enc("MegatronBertConfig", "MegatronBertModel"),
    "v_rembert": enc("RemBertConfig", "RemBertModel", input_embedding_size=16, output_embedding_size=16),
    "v_yoso": enc("YosoConfig", "YosoModel", use_fast_hash=False, hash_code_len=4, num_hash=2),
    "v_ibert": enc("IBertConfig", "IBertModel", pad_token_id=1),
    "v_ernie": enc("ErnieConfig", "ErnieModel"),
    "v_deberta": enc("DebertaConfig", "DebertaModel", relative_attention=True, pos_att_type=["c2p", "p2c"], max_relative_positions=16),
    "v_yolos": vis("YolosConfig", "YolosModel", hw=32, image_size=[32, 32], patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, num_detection_tokens=4),
    "v_regnet": vis("RegNetConfig", "RegNetModel", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], groups_width=4, key="pooler_output"),
    "v_efficientnet": vis("EfficientNetConfig", "EfficientNetModel", image_size=32, width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=320, key="pooler_output"),
    "v_mobilenet_v1": vis("MobileNetV1Config", "MobileNetV1Model", image_size=32, depth_multiplier=0.25, key="pooler_output"),
    "v_mobilenet_v2": vis("MobileNetV2Config", "MobileNetV2Model", image_size=32, depth_multiplier=0.25, key="pooler_output"),
    "v_focalnet": vis("FocalNetConfig", "FocalNetModel", image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], focal_levels=[2, 2], focal_windows=[3, 3]),
    "v_swiftformer": vis("SwiftFormerConfig", "SwiftFormerModel", image_size=32, depths=[1, 1, 1, 1], embed_dims=[8, 16, 24, 32]),
    "v_data2vec_vision": vis("Data2VecVisionConfig", "Data2VecVisionModel", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, use_relative_position_bias=True),
    "v_vitdet": vis("VitDetConfig", "VitDetModel", key="last_hidden_state", image_size=32, pretrain_image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2, window_size=2, window_block_indices=[0], use_relative_position_embeddings=True),
    "v_pvt_v2": vis("PvtV2Config", "PvtV2Model", image_size=32, hidden_sizes=[8, 16], depths=[1, 1], num_encoder_blocks=2, num_attention_heads=[1, 2], sr_ratios=[2, 1], patch_sizes=[7, 3], strides=[4, 2], mlp_ratios=[2, 2]),
    "v_textnet": vis("TextNetConfig", "TextNetModel", key="pooler_output"),
    "v_hgnetv2": vis("HGNetV2Config", "HGNetV2Backbone", key="feature_maps", stem_channels=[3, 8, 8], stage_in_channels=[8, 16], stage_mid_channels=[8, 8], stage_out_channels=[16, 16], stage_num_blocks=[1, 1], stage_downsample=[False, True], stage_light_block=[False, True], stage_kernel_size=[3, 5], stage_numb_of_layers=[2, 2], hidden_sizes=[16, 16], depths=[1, 1], out_features=["stage2"]),
    "v_dinov2_reg": vis("Dinov2WithRegistersConfig", "Dinov2WithRegistersModel", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_register_tokens=2),
    "v_dinov3": vis("DINOv3ViTConfig", "DINOv3ViTModel", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, num_register_tokens=2),
    "v_wavlm": audio("WavLMConfig", "WavLMModel", num_buckets=16, max_bucket_distance=32, **W2V),
}
