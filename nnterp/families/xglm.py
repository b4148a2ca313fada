"""XGLM (XGLMForCausalLM).

model.{embed_tokens, embed_positions, layers[i].{self_attn_layer_norm, self_attn.{q_proj, k_proj, v_proj,
out_proj}, final_layer_norm, fc1, activation_fn, fc2}, layer_norm} and lm_head, tied to embed_tokens. fairseq's
block: sequential pre-norm, h = x + attn(self_attn_layer_norm(x)), out = h + fc2(act(fc1(final_layer_norm(h)))).
The block has no MLP module: fc1, activation_fn and fc2 are the layer's own children, so the standard mlp is an
alias of fc2 (also down_proj), whose output is what the MLP half adds; mlp.input is fc2's input (the neurons), and
the MLP half's input is the layer value mlp_input, fc1's input. The embedding multiplies by sqrt(d_model) inside
embed_tokens (scale_embedding); sinusoidal positions (offset by 2, no weights) are added after it. The attention
is XGLM's own code, whatever attn_implementation says (the model has no sdpa path): the queries are scaled by
head_dim ** -0.5 in q_proj's output, heads are folded into the batch, scores = bmm(q, k^T) + mask, clamped below
at the dtype's minimum, softmax (in float32 for float16 models), dropout, bmm with the values. Queries, keys and
values are read where the forward binds them folded for the bmm, and served heads-first.
"""

from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.sites import BATCH_HEADS, FOLDED_HEADS, WHOLE, Argument, Assigned, ByDtype, Call, Read
from nnterp.families._fairseq_opt import FAIRSEQ_RENAME, MLP_INPUT, MLP_SITES

FAMILY = Family(
    name="xglm",
    summary="Meta's multilingual XGLM on fairseq's block: a sequential pre-norm LayerNorm block with no MLP "
            "module, scaled embeddings, sinusoidal positions and its own attention code.",
    tags=("Sequential block", "No MLP module", "Sinusoidal positions", "Scaled embeddings", "LayerNorm"),
    rename={"model.layer_norm": "norm", "final_layer_norm": "post_attention_layernorm", **FAIRSEQ_RENAME},
    sites={
        "token_embeddings": "The embedding module's output, already multiplied by sqrt(d_model); the sinusoidal "
                            "positions are added after, so layers[0].input is the sum",
        "attention_queries": Read(
            Assigned("query_states", occurrence=-1), WHOLE, FOLDED_HEADS,
            description="The queries entering attention, already multiplied by head_dim ** -0.5 in q_proj's output"),
        "attention_keys": Read(Assigned("key_states", occurrence=-1), WHOLE, FOLDED_HEADS),
        "attention_values": Read(Assigned("value_states", occurrence=-1), WHOLE, FOLDED_HEADS),
        "attention_scores": Read(
            ByDtype("nn.functional.softmax", "input", occurrence=0, otherwise=1), Argument(0), FOLDED_HEADS,
            description="The attention scores entering the softmax, masked: q @ k^T (queries pre-scaled) + mask, "
                        "clamped below at the dtype's minimum"),
        "attention_probabilities": Read(Call("nn.functional.dropout"), WHOLE, FOLDED_HEADS),
        "attention_head_outputs": Read(Call("torch.bmm", occurrence=1), WHOLE, BATCH_HEADS),
        "mlp_input": MLP_INPUT,
        **MLP_SITES,
    },
    accessors={"intermediate_size": lambda c: c.ffn_dim, "num_kv_heads": lambda c: c.num_attention_heads},
    loads=EAGER_LOADS,
    tiny={"config_class": "XGLMConfig", "overrides": {
        "d_model": 64, "num_layers": 2, "attention_heads": 4, "ffn_dim": 128, "vocab_size": 300}},
)
