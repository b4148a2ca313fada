"""BioGPT (BioGptForCausalLM).

biogpt.{embed_tokens, embed_positions, layers[i].{self_attn_layer_norm, self_attn.{q_proj, k_proj, v_proj,
out_proj}, final_layer_norm, fc1, activation_fn, fc2}, layer_norm} and output_projection, the head, tied to
embed_tokens. fairseq's block: sequential pre-norm, h = x + attn(self_attn_layer_norm(x)), out = h +
fc2(act(fc1(final_layer_norm(h)))). The block has no MLP module: fc1, activation_fn and fc2 are the layer's own
children, so the standard mlp is an alias of fc2 (also down_proj), whose output is what the MLP half adds;
mlp.input is fc2's input (the neurons), and the MLP half's input is the layer value mlp_input, fc1's input. The
embedding multiplies by sqrt(hidden_size) inside embed_tokens (scale_embedding), and learned positions (offset
by 2) are added after it. The attention calls the kernel chosen at run time through attention_interface, scaled
by head_dim ** -0.5; every head has its own key and value. Dropouts and layerdrop are inert in eval.
"""

from nnterp.declare.family import Family
from nnterp.families._fairseq_opt import FAIRSEQ_RENAME, MLP_INPUT, MLP_SITES

FAMILY = Family(
    name="biogpt",
    summary="Microsoft's biomedical GPT on fairseq's block: a sequential pre-norm LayerNorm block with no MLP "
            "module, scaled embeddings, learned positions and a tied output_projection.",
    tags=("Sequential block", "No MLP module", "Learned positions", "Scaled embeddings", "LayerNorm"),
    rename={
        "biogpt.embed_tokens": "embed_tokens", "biogpt.layers": "layers", "biogpt.layer_norm": "norm",
        "output_projection": "lm_head", "final_layer_norm": "post_attention_layernorm", **FAIRSEQ_RENAME,
    },
    sites={
        "token_embeddings": "The embedding module's output, already multiplied by sqrt(hidden_size); the learned "
                            "positions are added after, so layers[0].input is the sum",
        "mlp_input": MLP_INPUT,
        **MLP_SITES,
    },
    tiny={"config_class": "BioGptConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
        "vocab_size": 300}},
)
