"""GPT-2 (GPT2LMHeadModel).

transformer.{wte, wpe, drop, h[i].{ln_1, attn.{c_attn, c_proj}, ln_2, mlp.{c_fc, act, c_proj}}, ln_f} and lm_head,
tied to wte. A sequential pre-norm block, h = x + attn(ln_1(x)), out = h + mlp(ln_2(h)), returned as a bare tensor;
ln_2's input is layer_mid. Every projection is a Conv1D, whose weight is laid out [in, out] (the transpose of a
Linear's), with a bias. Both output projections are called c_proj: attn.c_proj is o_proj and mlp.c_proj is
down_proj. The block's input is wte(ids) + wpe(positions): token_embeddings is wte's output alone. The attention
splits the fused c_attn into q, k and v (all num_heads heads) and calls the kernel chosen at run time through
attention_interface, scaled by head_dim ** -0.5 (scale_attn_weights) and further by 1 / (layer index + 1) where
scale_attn_by_inverse_layer_idx is set; with reorder_and_upcast_attn, the eager load runs the block's own
_upcast_and_reordered_attn (scores in float32) instead, and the interior is read there. attn_dropout,
resid_dropout and the MLP's dropout are inert in eval.
"""

from nnterp.declare.family import Family
from nnterp.families._gpt2 import GPT2_ACCESSORS, GPT2_INTERIOR, GPT2_RENAME, TOKEN_EMBEDDINGS

FAMILY = Family(
    name="gpt2",
    summary="The original GPT-2: a sequential pre-norm block of Conv1D projections with biases, learned absolute "
            "positions, a fused c_attn and lm_head tied to the embedding.",
    tags=("Sequential block", "Fused qkv", "Learned positions", "LayerNorm", "Conv1D"),
    rename=GPT2_RENAME,
    sites={"token_embeddings": TOKEN_EMBEDDINGS, **GPT2_INTERIOR},
    accessors=GPT2_ACCESSORS,
    variants={"reorder_and_upcast_attn": {"reorder_and_upcast_attn": True}},
    tiny={"config_class": "GPT2Config", "overrides": {
        "n_embd": 64, "n_layer": 2, "n_head": 4, "n_inner": 128, "vocab_size": 300, "bos_token_id": 1,
        "eos_token_id": 2}},
)

