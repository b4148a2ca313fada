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

from nnterp.families._gpt2 import GPT2_INTERIOR, GPT2_RENAME, TOKEN_EMBEDDINGS
from nnterp.family import Checkpoint, Family

FAMILY = Family(
    name="gpt2",
    model_types=("gpt2",),
    summary="The original GPT-2: a sequential pre-norm block of Conv1D projections with biases, learned absolute "
            "positions, a fused c_attn and lm_head tied to the embedding.",
    tags=("Sequential block", "Fused qkv", "Learned positions", "LayerNorm", "Conv1D"),
    rename=GPT2_RENAME,
    sites={"token_embeddings": TOKEN_EMBEDDINGS, **GPT2_INTERIOR},
    accessors={"intermediate_size": lambda c: c.n_inner or 4 * c.hidden_size},
    variants={"reorder_and_upcast_attn": {"reorder_and_upcast_attn": True}},
    checkpoints=(
        # config.json of openai-community/gpt2, as copied into mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py
        # (preset "gpt2"); it sets no n_inner, scale_attn_weights or tie_word_embeddings (the class's defaults)
        Checkpoint("openai-community/gpt2", "GPT-2 (124M)", {
            "architectures": ["GPT2LMHeadModel"], "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05,
            "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024, "vocab_size": 50257,
            "bos_token_id": 50256, "eos_token_id": 50256,
        }),
        # config.json of openai-community/gpt2-medium, as copied into mlc-ai/mlc-llm
        # python/mlc_llm/model/model_preset.py (preset "gpt2_medium")
        Checkpoint("openai-community/gpt2-medium", "GPT-2 Medium", {
            "architectures": ["GPT2LMHeadModel"], "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05,
            "n_ctx": 1024, "n_embd": 1024, "n_head": 16, "n_layer": 24, "n_positions": 1024, "n_special": 0,
            "predict_special_tokens": True, "vocab_size": 50257,
        }),
        Checkpoint("openai-community/gpt2-large", "GPT-2 Large"),
        Checkpoint("openai-community/gpt2-xl", "GPT-2 XL"),
    ),
    tiny={"config_class": "GPT2Config", "overrides": {
        "n_embd": 64, "n_layer": 2, "n_head": 4, "n_inner": 128, "vocab_size": 300, "bos_token_id": 1,
        "eos_token_id": 2}},
)

