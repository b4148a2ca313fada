"""SmolLM3 (SmolLM3ForCausalLM).

Llama's modules and sequential pre-norm block; config.no_rope_layers turns the rotary off on some
blocks (every fourth by default: NoPE layers), where the attention skips apply_rotary_pos_emb and
the queries and keys reach the kernel as projected (each attention's use_rope says which). The attention
passes sliding_window to the kernel (off by default); embed_tokens and lm_head are tied.
"""

from nnterp.family import Checkpoint, Family
from nnterp.sites import KERNEL_ARGUMENTS, Argument, Call, Read

from ._llama import tiny


def _kernel_argument(index: int, what: str) -> Read:
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention, rotated except on the NoPE layers (no_rope_layers, "
                            f"every fourth by default), which skip the rotary")


FAMILY = Family(
    name="smollm3",
    model_types=("smollm3",),
    summary="Llama's block with the rotary switched off on every fourth layer (NoPE) and a tied head.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "NoPE layers", "Gated MLP", "Tied embeddings"),
    sites={"attention_queries": _kernel_argument(1, "queries"), "attention_keys": _kernel_argument(2, "keys")},
    checkpoints=(
        # config.json of HuggingFaceTB/SmolLM3-3B (a copy of the file in fetchwiki/HuggingFaceTB-SmolLM3-3B; its
        # no_rope_layers is 1, 1, 1, 0 nine times over, and it has no tie_word_embeddings key)
        Checkpoint("HuggingFaceTB/SmolLM3-3B", "SmolLM3-3B", {
            "architectures": ["SmolLM3ForCausalLM"], "num_hidden_layers": 36, "hidden_size": 2048,
            "intermediate_size": 11008, "num_attention_heads": 16, "num_key_value_heads": 4, "vocab_size": 128256,
            "max_position_embeddings": 65536, "hidden_act": "silu", "rms_norm_eps": 1e-06, "attention_bias": False,
            "mlp_bias": False, "no_rope_layer_interval": 4, "no_rope_layers": [1, 1, 1, 0] * 9,
            "layer_types": ["full_attention"] * 36, "use_sliding_window": False, "sliding_window": None,
            "bos_token_id": 128000, "eos_token_id": 128012, "pad_token_id": 128004,
            "rope_parameters": {"rope_type": "default", "rope_theta": 5000000.0}, "dtype": "bfloat16",
        }),
    ),
    # the second block a NoPE layer, so both kinds are checked
    tiny=tiny("SmolLM3Config", pad_token_id=0, bos_token_id=1, eos_token_id=2, no_rope_layers=[1, 0]),
)

