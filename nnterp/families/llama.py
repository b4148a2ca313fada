"""Llama (LlamaForCausalLM): the common conventions every other family is declared against.

model.{embed_tokens, layers[i].{input_layernorm, self_attn.{q_proj, k_proj, v_proj, o_proj},
post_attention_layernorm, mlp.{gate_proj, up_proj, down_proj, act_fn}}, norm, rotary_emb} and
lm_head. A sequential pre-norm block: h = x + self_attn(input_layernorm(x)), then
out = h + mlp(post_attention_layernorm(h)), returned as a bare tensor. The attention calls the
kernel chosen at run time through attention_interface(self, q, k, v, mask, ...), with keys and
values at num_kv_heads (grouped) and repeated inside the kernel; the gated MLP sends
act(gate_proj(x)) * up_proj(x) to down_proj. logits are lm_head's output with nothing applied.
"""

from nnterp.family import Checkpoint, Family

FAMILY = Family(
    name="llama",
    model_types=("llama",),
    summary="The common conventions: a sequential pre-norm block with RMSNorm, grouped keys and values, "
            "rotary on every dimension, and a gated MLP.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    checkpoints=(
        Checkpoint("HuggingFaceTB/SmolLM2-135M-Instruct", "SmolLM2-135M-Instruct", {
            "architectures": ["LlamaForCausalLM"], "num_hidden_layers": 30, "hidden_size": 576,
            "intermediate_size": 1536, "num_attention_heads": 9, "num_key_value_heads": 3, "head_dim": 64,
            "vocab_size": 49152, "max_position_embeddings": 8192, "hidden_act": "silu", "rms_norm_eps": 1e-05,
            "tie_word_embeddings": True, "rope_theta": 100000.0, "dtype": "bfloat16",
        }),
        # config.json of meta-llama/Llama-3.2-1B (mirrored in Anthony-Lionetti/PyTorch-nn-Tinkering
        # llama_play/configs.py, llama_3_2_1b; the same keys in kevinstephano/thunder_model_blocks
        # hf_llama/llama_config.py, LLAMA_3_2_1B_CFG)
        Checkpoint("meta-llama/Llama-3.2-1B", "Llama-3.2-1B", {
            "architectures": ["LlamaForCausalLM"], "attention_bias": False, "head_dim": 64, "hidden_act": "silu",
            "hidden_size": 2048, "intermediate_size": 8192, "max_position_embeddings": 131072, "mlp_bias": False,
            "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8, "pretraining_tp": 1,
            "rms_norm_eps": 1e-05, "rope_scaling": {
                "factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192, "rope_type": "llama3"},
            "rope_theta": 500000.0, "tie_word_embeddings": True, "dtype": "bfloat16", "vocab_size": 128256,
        }),
    ),
    tiny={"config_class": "LlamaConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 300, "head_dim": 16}},
)
