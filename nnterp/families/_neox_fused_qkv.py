"""Shared by the fused-qkv families of GPT-NeoX's lineage (GPT-NeoX, Falcon): names and sentences."""

#: GPT-NeoX's native names onto the standard ones; a key that does not resolve on a model is skipped.
NEOX_RENAME = {
    "gpt_neox.embed_in": "embed_tokens", "gpt_neox.layers": "layers", "gpt_neox.final_layer_norm": "norm",
    "attention": "self_attn", "dense": "o_proj", "dense_h_to_4h": "up_proj", "dense_4h_to_h": "down_proj",
    "act": "act_fn",
}

