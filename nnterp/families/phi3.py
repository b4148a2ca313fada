"""Phi-3 (Phi3ForCausalLM).

Phi-3 and Phi-4 mini.

Llama's sequential pre-norm block with fused projections: self_attn.qkv_proj computes queries, keys
and values in one Linear (split by slicing; there are no q_proj, k_proj or v_proj modules) and
mlp.gate_up_proj computes gate and up in one, split in halves, with mlp.activation_fn (act_fn) on
the gate and down_proj taking act(gate) * up. mlp_activation is act_fn's output, act(gate);
mlp_neurons is down_proj's input. resid_attn_dropout and resid_mlp_dropout wrap each contribution
before the add (inert in eval). The attention passes config.sliding_window to the kernel.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="phi3",
    model_types=("phi3",),
    summary="Llama's block with a fused qkv_proj and a fused gate_up_proj.",
    tags=("Sequential block", "RMSNorm", "Fused q, k, v", "Fused gate/up", "Grouped keys/values"),
    rename={"activation_fn": "act_fn"},
    checkpoints=(
        Checkpoint("microsoft/Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", {
            "architectures": ["Phi3ForCausalLM"], "num_hidden_layers": 32, "hidden_size": 3072,
            "intermediate_size": 8192, "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32064,
            "max_position_embeddings": 4096, "hidden_act": "silu", "rms_norm_eps": 1e-05, "sliding_window": 2047,
            "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
        Checkpoint("microsoft/Phi-4-mini-instruct", "Phi-4-mini-instruct"),
    ),
    tiny=tiny("Phi3Config", pad_token_id=0, eos_token_id=2),
)


#: What the catalogue of transformers' decoder-only families found for this family's model type: [obs] observed
#: on a tiny model, [src] read in the modeling source, [cfg] a config default, [inf] inferred and not verified;
#: caveats say what a standard value meets here. The page lists them under its traps.
TRAPS = {'phi3': {'caveats': [],
          'quirks': ['fused qkv_proj and gate_up_proj; activation_fn [obs]',
                     'resid_attn_dropout/resid_mlp_dropout modules [obs]']}}
