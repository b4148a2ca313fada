"""StarCoder2 (Starcoder2ForCausalLM).

Llama's sequential pre-norm block with LayerNorms (weight and bias), a bias on every projection,
and a plain MLP named c_fc, act (GELU-tanh) and c_proj (up_proj, act_fn, down_proj), so
mlp_activation and mlp_neurons are the same tensor. The attention and the MLP each end with a
residual dropout inside their own forward (inert in eval). The attention passes
config.sliding_window to the kernel; embed_tokens and lm_head are tied.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="starcoder2",
    model_types=("starcoder2",),
    summary="Llama's block with LayerNorms, biases everywhere, a plain GELU MLP and a sliding window.",
    tags=("Sequential block", "LayerNorm", "Biased q, k, v", "Grouped keys/values", "Sliding window", "Tied embeddings"),
    rename={"c_fc": "up_proj", "c_proj": "down_proj", "act": "act_fn"},
    checkpoints=(
        # config.json of bigcode/starcoder2-3b at revision 733247c55e3f (mirrored in AshishKumar4/dew
        # tests/fixtures/hf/starcoder2-3b/config.json, pinned by its source.json); the file sets neither
        # torch_dtype nor tie_word_embeddings (the class default, true, ties the head)
        Checkpoint("bigcode/starcoder2-3b", "StarCoder2-3B", {
            "architectures": ["Starcoder2ForCausalLM"], "attention_dropout": 0.1, "residual_dropout": 0.1,
            "embedding_dropout": 0.1, "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu_pytorch_tanh",
            "hidden_size": 3072, "initializer_range": 0.018042, "intermediate_size": 12288,
            "max_position_embeddings": 16384, "mlp_type": "default", "norm_epsilon": 1e-05, "norm_type": "layer_norm",
            "num_attention_heads": 24, "num_hidden_layers": 30, "num_key_value_heads": 2,
            "rope_theta": 999999.4420358813, "sliding_window": 4096, "use_bias": True, "vocab_size": 49152,
        }),
        # config.json of bigcode/starcoder2-15b (mirrored in hlky/dinoml_v2
        # agents/plans/transformers/starcoder2/_sources/bigcode__starcoder2-15b.config.json)
        Checkpoint("bigcode/starcoder2-15b", "StarCoder2-15B", {
            "architectures": ["Starcoder2ForCausalLM"], "hidden_act": "gelu_pytorch_tanh", "hidden_size": 6144,
            "intermediate_size": 24576, "max_position_embeddings": 16384, "mlp_type": "default", "norm_epsilon": 1e-05,
            "norm_type": "layer_norm", "num_attention_heads": 48, "num_hidden_layers": 40, "num_key_value_heads": 4,
            "rope_theta": 100000, "sliding_window": 4096, "tie_word_embeddings": False, "dtype": "float32",
            "use_bias": True, "vocab_size": 49152,
        }),
    ),
    tiny=tiny("Starcoder2Config", bos_token_id=1, eos_token_id=2),
)

