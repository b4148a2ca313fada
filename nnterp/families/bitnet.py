"""BitNet b1.58 (BitNetForCausalLM).

Llama's modules and sequential pre-norm block with one more RMSNorm inside each sublayer: the
attention normalizes its heads' concatenated output with self_attn.attn_sub_norm before o_proj,
and the MLP normalizes act(gate_proj(x)) * up_proj(x) with mlp.ffn_sub_norm before down_proj. The
activation is ReLU². attention_premix, o_proj's input, and mlp_neurons, down_proj's input, are
therefore read after those sub-norms; attention_head_outputs (the kernel's output) is before
attn_sub_norm.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="bitnet",
    model_types=("bitnet",),
    summary="Llama's block with an extra RMSNorm before each sublayer's output projection and a ReLU² gated MLP.",
    tags=("Sequential block", "RMSNorm", "Sub-norms", "Grouped keys/values", "ReLU² MLP"),
    sites={
        "attention_premix": "What o_proj takes: the heads' outputs side by side after attn_sub_norm, an RMSNorm over "
                            "all heads at once",
        "mlp_neurons": "What down_proj takes: act(gate)·up after ffn_sub_norm, an RMSNorm over all neurons",
    },
    checkpoints=(
        # config.json of microsoft/bitnet-b1.58-2B-4T-bf16 (the same model's master weights; the packed repo
        # differs only in quantization_mode), as quoted in full in a public model-architecture note
        Checkpoint("microsoft/bitnet-b1.58-2B-4T", "BitNet b1.58 2B4T", {
            "architectures": ["BitNetForCausalLM"], "num_hidden_layers": 30, "hidden_size": 2560,
            "intermediate_size": 6912, "num_attention_heads": 20, "num_key_value_heads": 5, "vocab_size": 128256,
            "max_position_embeddings": 4096, "hidden_act": "relu2", "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
            "tie_word_embeddings": True, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("BitNetConfig", bos_token_id=1, eos_token_id=2),
)
