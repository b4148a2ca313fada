"""OLMo 3 (Olmo3ForCausalLM).

OLMo 2's post-norm block: h = x + post_attention_layernorm(self_attn(x)),
out = h + post_feedforward_layernorm(mlp(h)), no norm before either sublayer (attention_output and
mlp_output are the post-norms' outputs, layer_mid is the MLP's input), q_norm and k_norm over the
whole projection width before the rotary. config.layer_types interleaves sliding-window layers
with full attention (three sliding to one full), passed to the kernel as sliding_window.
"""

from nnterp.blocks import OLMO2_POSTNORMS
from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._postnorm_olmo2 import WIDE_QK_NORM

FAMILY = Family(
    name="olmo3",
    model_types=("olmo3",),
    summary="OLMo 2's post-norm block with sliding-window attention on three layers of four.",
    tags=("Post-norm block", "RMSNorm", "QK-norm", "Sliding window", "Gated MLP"),
    block=OLMO2_POSTNORMS,
    sites={
        "attention_queries": "The queries entering attention:" + WIDE_QK_NORM.format(norm="q_norm"),
        "attention_keys": "The keys entering attention:" + WIDE_QK_NORM.format(norm="k_norm"),
    },
    checkpoints=(
        # allenai/Olmo-3-7B-Instruct's raw config.json as noted field by field in hlky/dinoml_v2's olmo3
        # hf_config_snapshots (fetched from the Hub at sha 096bb54; layer_types S,S,S,F repeated, legacy
        # rope_theta 500000 and a YaRN rope_scaling, given here as Olmo3Config's per-layer-type rope_parameters)
        Checkpoint("allenai/Olmo-3-7B-Instruct", "Olmo-3-7B-Instruct", {
            "architectures": ["Olmo3ForCausalLM"], "num_hidden_layers": 32, "hidden_size": 4096,
            "intermediate_size": 11008, "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 100278,
            "max_position_embeddings": 65536, "hidden_act": "silu", "rms_norm_eps": 1e-06, "attention_bias": False,
            "tie_word_embeddings": False, "sliding_window": 4096,
            "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"] * 8,
            "rope_parameters": {
                "full_attention": {"rope_type": "yarn", "rope_theta": 500000.0, "factor": 8.0,
                                   "original_max_position_embeddings": 8192,
                                   "attention_factor": 1.2079441541679836, "beta_fast": 32.0, "beta_slow": 1.0},
                "sliding_attention": {"rope_type": "default", "rope_theta": 500000.0}},
            "pad_token_id": 100277, "eos_token_id": 100257, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("Olmo3Config", eos_token_id=2, layer_types=["sliding_attention", "full_attention"]),
)
