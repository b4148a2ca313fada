"""GPT-J (GPTJForCausalLM).

transformer.{wte, drop, h[i].{ln_1, attn.{q_proj, k_proj, v_proj, out_proj}, mlp.{fc_in, act, fc_out}}, ln_f} and
lm_head, untied and with a bias. A parallel block with one LayerNorm: h = ln_1(x), out = attn(h) + mlp(h) + x, so
ln_1's output is both the attention's and the MLP's input and there is no layer_mid. q, k, v and out_proj are
separate Linears without bias; the MLP's fc_in and fc_out have biases. Rotary is interleaved (rotate_every_two,
pairing dimensions 2i and 2i + 1) and covers the first rotary_dim dimensions of each head (64 of 256 on GPT-J 6B);
there are no other position embeddings. The attention calls the kernel chosen at run time through
attention_interface, scaled by head_dim ** -0.5; the eager kernel multiplies queries by keys in float32 whatever
the model's dtype, so attention_scores is float32 under a half-precision load, and casts the softmax back to the
values' dtype before attention_probabilities. Both are read inside that kernel, so edits of the scores or the
pattern change the values mixed and reach the logits.
"""

from nnterp.declare.family import Family
from nnterp.families._parallel_gptj import GPTJ_BLOCK, GPTJ_RENAME, intermediate_size

FAMILY = Family(
    name="gptj",
    summary="A parallel block with one shared LayerNorm, interleaved rotary on part of each head, bias-free "
            "attention projections and a biased, untied lm_head.",
    tags=("Parallel block", "Partial rotary", "Interleaved rotary", "LayerNorm"),
    rename=GPTJ_RENAME,
    block=GPTJ_BLOCK,
    accessors={"intermediate_size": intermediate_size},
    tiny={"config_class": "GPTJConfig", "overrides": {
        "n_embd": 64, "n_layer": 2, "n_head": 4, "n_inner": 128, "vocab_size": 300, "bos_token_id": 1,
        "eos_token_id": 2, "rotary_dim": 8}},
)

