"""dots.note 3, the language model (Dots3NoteForCausalLM).

The text tower of rednote's dots.note 3, a heterogeneous MLA model: the config gives each block its
own attention shape (per_layer_config: heads, q/kv LoRA ranks, head widths), so the model-wide
dimensions are the first block's and each block's layouts use its own. Layers are, per layer_types,
indexed (a lightning indexer keeps index_topk keys per query, which under eager and sdpa becomes
part of the kernel's mask) or sliding-window. The attention (see _mla) scales the q-LoRA latent by
q_lora_scale and the key/value latent by kv_lora_scale, normalizes the shared rotary key
(k_rope_only_layernorm), and multiplies the kernel's output per head by sigmoid(g_proj(x)) before
o_proj, so attention_head_outputs is before that gate and attention_premix after it. The MLP slot
holds, per mlp_layer_types, a dense gated MLP or a DeepSeek-V3 mixture (sigmoid, group-limited
router gate with e_score_correction_bias, fused experts, shared_experts).
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import Family
from nnterp.declare.routers import DEEPSEEK_V3
from nnterp.families._llama import tiny
from nnterp.families._mla import PER_LAYER_ACCESSORS, gated_outputs, mla_sites, per_layer_dims, premix_per_block

GATE = "sigmoid(g_proj(x)), one gate per head"
GATED = gated_outputs(GATE)

FAMILY = Family(
    name="dots3_note_text",
    summary="The language model of dots.note 3: latent attention whose shape differs per block, indexed sparse and "
            "sliding-window layers, per-head output gates, and sigmoid-routed experts.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Sparse attention", "Sliding window",
          "Gated attention", "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3,
    block=Block(dims=per_layer_dims),
    sites={
        **mla_sites(indexed=True),
        "attention_head_outputs": GATED["attention_head_outputs"],
        "attention_premix": premix_per_block(GATED["attention_premix"].description),
    },
    accessors=PER_LAYER_ACCESSORS,
    tiny=tiny("Dots3NoteTextConfig", num_key_value_heads=4, moe_intermediate_size=64,
              shared_experts_intermediate_size=64, head_dim=16, n_routed_experts=4, num_experts_per_tok=2, n_group=1,
              topk_group=1, kv_lora_rank=32, q_lora_rank=32, qk_rope_head_dim=16, qk_nope_head_dim=16, v_head_dim=16,
              index_head_dim=32, index_n_heads=2, index_topk=4, pad_token_id=0, bos_token_id=1, eos_token_id=2,
              layer_types=["indexed_attention", "sliding_attention"], mlp_layer_types=["dense", "sparse"]),
)
