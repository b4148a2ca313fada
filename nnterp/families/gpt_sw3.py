"""GPT-SW3 (GPT2LMHeadModel).

AI Sweden's Nordic models are GPT-2's code under their own model_type "gpt-sw3": transformer.{wte, wpe, drop,
h[i].{ln_1, attn.{c_attn, c_proj}, ln_2, mlp.{c_fc, act, c_proj}}, ln_f} and lm_head, tied to wte. A sequential
pre-norm block of Conv1D projections (weights [in, out]) with biases, h = x + attn(ln_1(x)), out = h +
mlp(ln_2(h)); attn.c_proj is o_proj and mlp.c_proj is down_proj. token_embeddings is wte's output, before the
learned positions wpe are added. The attention splits c_attn into q, k and v and calls the kernel chosen at run
time through attention_interface, scaled by head_dim ** -0.5. What differs from GPT-2 is the data: a 64,000-token
SentencePiece vocabulary (GPTSw3Tokenizer) and 2048 positions.
"""

from nnterp.declare.family import Family
from nnterp.families._gpt2 import GPT2_ACCESSORS, GPT2_INTERIOR, GPT2_RENAME, TOKEN_EMBEDDINGS

FAMILY = Family(
    name="gpt-sw3",
    summary="GPT-2's code under its own model type: a sequential pre-norm block of Conv1D projections, learned "
            "positions and a tied head, over a Nordic SentencePiece vocabulary.",
    tags=("Sequential block", "Fused qkv", "Learned positions", "LayerNorm", "Conv1D"),
    rename=GPT2_RENAME,
    sites={"token_embeddings": TOKEN_EMBEDDINGS, **GPT2_INTERIOR},
    accessors=GPT2_ACCESSORS,
    # model_type makes the tiny model a GPT-SW3 one (GPT2Config keeps it), as a real checkpoint's config.json does
    tiny={"config_class": "GPT2Config", "overrides": {
        "model_type": "gpt-sw3", "n_embd": 64, "n_layer": 2, "n_head": 4, "n_inner": 128, "vocab_size": 300,
        "bos_token_id": 1, "eos_token_id": 2}},
)
