"""Llama 3.2 Vision, text model (MllamaForCausalLM).

model.{embed_tokens, layers[i], norm, rotary_emb} and lm_head. Two kinds of block. Self-attention
blocks (MllamaSelfAttentionDecoderLayer) are Llama's: input_layernorm, self_attn.{q,k,v,o}_proj
through attention_interface, post_attention_layernorm, a gated MLP. Cross-attention blocks, at
config.cross_attention_layers (every fifth block from 3 on the checkpoints), are
MllamaCrossAttentionDecoderLayer: cross_attn (q_proj on the text, k_proj and v_proj on the
vision features, q_norm and k_norm) and the MLP, each added through a learned tanh gate,
h = x + tanh(cross_attn_attn_gate) * cross_attn(...), out = h + tanh(cross_attn_mlp_gate) * mlp(...).
The text model skips those blocks entirely when no cross_attention_states (image features) are
passed: on text they do not run, and a read of their values says so. On a call with image features
the cross-attention's queries come from the stream, its keys and values from the features (over
their positions, not the call's), and attention_output and mlp_output are what the stream
receives, the tanh gates (attention_gate, mlp_gate) included. The head runs in the weights' dtype and the model returns float32 logits.
"""

from nnterp.declare.crossattention import CrossAttentionBlocks
from nnterp.declare.family import Family
from nnterp.declare.locations import Assigned
from nnterp.declare.mixers import float_logits

CROSS = "MllamaCrossAttentionDecoderLayer"

#: cross-attention blocks run only on a call with image features (or their cached keys and values)
BLOCK = CrossAttentionBlocks(
    CROSS, "cross_attn_attn_gate", "cross_attn_mlp_gate",
    # hidden_states = full_text_row_masked_out_mask[:, 0] * hidden_states: the MLP's output with the rows that
    # attend no image zeroed, the fifth assignment of hidden_states in the block's forward
    mlp_at=Assigned("hidden_states", "output", occurrence=4, from_block=True, forward_of=CROSS),
    # a call passing a cache may run them on the image's cached keys and values
    image_states="cross_attention_states",
    given=("cross_attention_states", "pixel_values", "past_key_values", "cache"),
    skipped="a cross-attention block: the text model skips it when no cross_attention_states (the vision model's "
            "features) are passed, so on text it does not run",
    notes={"mlp": " (zero on the rows full_text_row_masked_out_mask drops: the text before the first image; read "
                  "on a call with a cross_attention_mask, without which that assignment does not run)"},
)

FAMILY = Family(
    name="mllama",
    model_types=("mllama", "mllama_text_model"),
    summary="Llama 3's text model with tanh-gated cross-attention blocks to image features every fifth block, "
            "which a text-only forward skips.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP", "Cross-attention blocks"),
    rename={"cross_attn": "self_attn"},
    block=BLOCK,
    readout=float_logits,
    # the composite config: AutoModelForCausalLM builds MllamaForCausalLM from it (the text config alone is
    # not in its mapping), and the model keeps the text config; vocab_size on top sizes the tokenizer
    # three blocks, the middle one cross-attention: as on the checkpoints, the last block runs on text
    tiny={"config_class": "MllamaConfig", "overrides": {"vocab_size": 300, "text_config": {
        "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 300, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
        "cross_attention_layers": [1]}}},
)
