"""Second sweep: more architectures (audio, vision, time series, MoE, state-space)."""
import torch, torch.nn as nn
from cases_real import hf_lm, _ids, img, LM, B, S
from cases_zoo import lm, enc, vis, Out

def audio(cfgname, modelname, n=400, key="last_hidden_state", kwarg="input_values", **cfg):
    def b():
        import transformers
        m = getattr(transformers, modelname)(getattr(transformers, cfgname)(**cfg)).eval()
        class W(nn.Module):
            def __init__(s, m): super().__init__(); s.m = m
            def forward(s, x): return getattr(s.m(**{kwarg: x}), key)
        x = torch.randn(2, n) if isinstance(n, int) else torch.randn(*n)
        return dict(model=W(m), samples=[(x,)], source=modelname)
    return b

W2V = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
           conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
           num_conv_pos_embedding_groups=4)

def ts(cfgname, modelname, **cfg):
    def b():
        import transformers
        c = getattr(transformers, cfgname)(**cfg)
        m = getattr(transformers, modelname)(c).eval()
        L = c.context_length + max(c.lags_sequence)
        class W(nn.Module):
            def __init__(s, m): super().__init__(); s.m = m
            def forward(s, pv, ptf, pom, ftf, fv):
                return s.m(past_values=pv, past_time_features=ptf, past_observed_mask=pom,
                           future_time_features=ftf, future_values=fv, use_cache=False).last_hidden_state
        P = c.prediction_length
        args = (torch.randn(2, L), torch.randn(2, L, c.num_time_features), torch.ones(2, L),
                torch.randn(2, P, c.num_time_features), torch.randn(2, P))
        return dict(model=W(m), samples=[args], source=modelname)
    return b

def patchtst():
    from transformers import PatchTSTConfig, PatchTSTModel
    c = PatchTSTConfig(num_input_channels=3, context_length=32, patch_length=8, patch_stride=8, d_model=16,
                       num_attention_heads=2, num_hidden_layers=2, ffn_dim=32, do_mask_input=False)
    m = PatchTSTModel(c).eval()
    return dict(model=Out(m, "last_hidden_state"), samples=[(torch.randn(2, 32, 3),)], source="PatchTSTModel")

def encodec():
    from transformers import EncodecConfig, EncodecModel
    c = EncodecConfig(target_bandwidths=[1.5], sampling_rate=8000, audio_channels=1, hidden_size=16,
                      num_filters=4, num_residual_layers=1, upsampling_ratios=[4, 2], codebook_size=32,
                      codebook_dim=16, num_lstm_layers=2)
    m = EncodecModel(c).eval()
    class W(nn.Module):
        def __init__(s, m): super().__init__(); s.m = m
        def forward(s, x): return s.m.encoder(x)
    return dict(model=W(m), samples=[(torch.randn(2, 1, 64),)], source="EncodecModel encoder (conv + 2-layer LSTM, weight norm)")

def sam():
    from transformers import SamConfig, SamModel, SamVisionConfig, SamPromptEncoderConfig, SamMaskDecoderConfig
    c = SamConfig(vision_config=SamVisionConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, image_size=64,
                  patch_size=8, output_channels=16, window_size=2, global_attn_indexes=[1], mlp_dim=64),
                  prompt_encoder_config=SamPromptEncoderConfig(hidden_size=16, image_size=64, patch_size=8, mask_input_channels=4),
                  mask_decoder_config=SamMaskDecoderConfig(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, mlp_dim=32, iou_head_hidden_dim=16))
    m = SamModel(c).eval()
    class W(nn.Module):
        def __init__(s, m): super().__init__(); s.m = m
        def forward(s, px, pts): return s.m(pixel_values=px, input_points=pts, multimask_output=False).pred_masks
    return dict(model=W(m), samples=[(torch.randn(1, 3, 64, 64), torch.rand(1, 1, 2, 2) * 64)], source="SamModel")

CASES = {
    "y_hubert": audio("HubertConfig", "HubertModel", **W2V),
    "y_data2vec_audio": audio("Data2VecAudioConfig", "Data2VecAudioModel", **W2V),
    "y_w2v2_conformer": audio("Wav2Vec2ConformerConfig", "Wav2Vec2ConformerModel", position_embeddings_type="relative", conv_depthwise_kernel_size=3, **W2V),
    "y_sew": audio("SEWConfig", "SEWModel", squeeze_factor=2, **W2V),
    "y_unispeech": audio("UniSpeechConfig", "UniSpeechModel", **W2V),
    "y_speech2text": audio("Speech2TextConfig", "Speech2TextModel", n=(2, 20, 16), kwarg="input_features", key="encoder_last_hidden_state", vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, input_feat_per_channel=16, conv_channels=32, max_source_positions=64, max_target_positions=64, pad_token_id=0, decoder_start_token_id=1, eos_token_id=1, bos_token_id=1),
    "y_ast": audio("ASTConfig", "ASTModel", n=(2, 32, 16), hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_length=32, num_mel_bins=16, patch_size=8, frequency_stride=8, time_stride=8, kwarg="input_values"),
    "y_encodec": encodec,
    "y_autoformer": ts("AutoformerConfig", "AutoformerModel", prediction_length=4, context_length=8, lags_sequence=[1, 2], num_time_features=1, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=16, moving_average=3),
    "y_ts_transformer": ts("TimeSeriesTransformerConfig", "TimeSeriesTransformerModel", prediction_length=4, context_length=8, lags_sequence=[1, 2], num_time_features=1, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=16),
    "y_patchtst": patchtst,
    "y_olmoe": lm("OlmoeConfig", "OlmoeForCausalLM", num_key_value_heads=2, num_experts=4, num_experts_per_tok=2),
    "y_granitemoe": lm("GraniteMoeConfig", "GraniteMoeForCausalLM", num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2),
    "y_phimoe": lm("PhimoeConfig", "PhimoeForCausalLM", num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2),
    "y_dbrx": lambda: hf_lm(__import__("transformers").DbrxConfig, __import__("transformers").DbrxForCausalLM, "DbrxForCausalLM",
                            d_model=32, n_heads=4, n_layers=2, max_seq_len=64, attn_config=dict(kv_n_heads=2), ffn_config=dict(ffn_hidden_size=32, moe_num_experts=4, moe_top_k=2)),
    "y_jamba": lm("JambaConfig", "JambaForCausalLM", num_key_value_heads=2, num_experts=2, num_experts_per_tok=1, expert_layer_period=2, expert_layer_offset=1, attn_layer_period=2, attn_layer_offset=1, mamba_d_state=8, mamba_dt_rank=4, use_mamba_kernels=False, dynamic=False),
    "y_mamba2": lm("Mamba2Config", "Mamba2ForCausalLM", num_heads=4, head_dim=16, state_size=8, n_groups=1, chunk_size=4, expand=2, dynamic=False),
    "y_falcon_mamba": lm("FalconMambaConfig", "FalconMambaForCausalLM", state_size=8, dynamic=False),
    "y_recurrent_gemma": lm("RecurrentGemmaConfig", "RecurrentGemmaForCausalLM", num_key_value_heads=2, lru_width=32, attention_window_size=4, block_types=["recurrent", "attention"], dynamic=False),
    "y_gpt_bigcode": lambda: hf_lm(__import__("transformers").GPTBigCodeConfig, __import__("transformers").GPTBigCodeForCausalLM, "GPTBigCodeForCausalLM", n_embd=32, n_layer=2, n_head=4, n_positions=64),
    "y_gpt_neo": lambda: hf_lm(__import__("transformers").GPTNeoConfig, __import__("transformers").GPTNeoForCausalLM, "GPTNeoForCausalLM", attention_types=[[["global", "local"], 1]], window_size=4),
    "y_mpt": lambda: hf_lm(__import__("transformers").MptConfig, __import__("transformers").MptForCausalLM, "MptForCausalLM", d_model=32, n_heads=4, n_layers=2, max_seq_len=64),
    "y_persimmon": lm("PersimmonConfig", "PersimmonForCausalLM"),
    "y_esm": enc("EsmConfig", "EsmModel", position_embedding_type="rotary", pad_token_id=1),
    "y_xlnet": lambda: dict(model=Out(__import__("transformers").XLNetModel(__import__("transformers").XLNetConfig(vocab_size=128, d_model=32, n_layer=2, n_head=4, d_inner=64)).eval(), "last_hidden_state", use_mems=False), samples=[(_ids(2, 8),)], source="XLNetModel"),
    "y_funnel": enc("FunnelConfig", "FunnelModel", block_sizes=[1, 1], d_model=32, n_head=4, d_head=8, d_inner=64),
    "y_canine": enc("CanineConfig", "CanineModel", num_hash_buckets=64, downsampling_rate=2, local_transformer_stride=4),
    "y_big_bird": enc("BigBirdConfig", "BigBirdModel", attention_type="original_full"),
    "y_nystromformer": enc("NystromformerConfig", "NystromformerModel", num_landmarks=4, segment_means_seq_len=8),
    "y_convnextv2": vis("ConvNextV2Config", "ConvNextV2Model", num_stages=2, hidden_sizes=[8, 16], depths=[1, 1]),
    "y_levit": vis("LevitConfig", "LevitModel", hw=64, image_size=64, hidden_sizes=[16, 32, 48], num_attention_heads=[1, 2, 3], depths=[1, 1, 1], key_dim=[8, 8, 8], mlp_ratio=[2, 2, 2], attention_ratio=[2, 2, 2]),
    "y_pvt": vis("PvtConfig", "PvtModel", hw=64, image_size=64, num_encoder_blocks=2, depths=[1, 1], sequence_reduction_ratios=[2, 1], hidden_sizes=[8, 16], patch_sizes=[4, 2], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2]),
    "y_poolformer": vis("PoolFormerConfig", "PoolFormerModel", num_encoder_blocks=2, depths=[1, 1], hidden_sizes=[8, 16], patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1]),
    "y_cvt": vis("CvtConfig", "CvtModel", hw=64, num_stages=2, patch_sizes=[7, 3], patch_stride=[4, 2], patch_padding=[2, 1], embed_dim=[16, 32], num_heads=[1, 2], depth=[1, 1], mlp_ratio=[2.0, 2.0], attention_drop_rate=[0.0, 0.0], drop_rate=[0.0, 0.0], drop_path_rate=[0.0, 0.0], qkv_bias=[True, True], cls_token=[False, True], qkv_projection_method=["dw_bn", "dw_bn"], kernel_qkv=[3, 3], padding_kv=[1, 1], stride_kv=[2, 2], padding_q=[1, 1], stride_q=[1, 1]),
    "y_swinv2": vis("Swinv2Config", "Swinv2Model", image_size=32, patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[1, 2], window_size=4),
    "y_dpt": vis("DPTConfig", "DPTModel", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=4, num_attention_heads=4, intermediate_size=64, neck_hidden_sizes=[8, 8, 16, 16], fusion_hidden_size=16, backbone_out_indices=[0, 1, 2, 3]),
    "y_glpn": vis("GLPNConfig", "GLPNModel", hw=64, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[8, 16], patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2]),
    "y_mobilevitv2": vis("MobileViTV2Config", "MobileViTV2Model", hw=64, image_size=64, width_multiplier=0.25),
    "y_siglip_vision": vis("SiglipVisionConfig", "SiglipVisionModel", key="pooler_output", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64),
    "y_hiera": vis("HieraConfig", "HieraModel", hw=64, image_size=[64, 64], embed_dim=8, patch_stride=[4, 4], patch_size=[7, 7], patch_padding=[3, 3], depths=[1, 1], num_heads=[1, 2], query_stride=[2, 2], masked_unit_size=[4, 4], embed_dim_multiplier=2.0, num_query_pool=1),
    "y_sam": sam,
}
