"""OPT (OPTForCausalLM).

model.decoder.{embed_tokens, embed_positions, project_in, layers[i].{self_attn_layer_norm, self_attn.{q_proj,
k_proj, v_proj, out_proj}, final_layer_norm, fc1, activation_fn, fc2}, final_layer_norm, project_out} and lm_head,
tied to embed_tokens. The block has no MLP module: fc1, activation_fn and fc2 are the layer's own children, so the
standard mlp is an alias of fc2 (also down_proj), whose output is what the MLP half adds; mlp.input is fc2's input
(the neurons), and the MLP half's input is the layer value mlp_input, fc1's input. That half runs on the stream
flattened to [batch*seq, hidden]: its values are served unflattened to [batch seq ...], as views. Every OPT but
opt-350m is pre-norm: h = x + attn(self_attn_layer_norm(x)), out = h + fc2(act(fc1(final_layer_norm(h)))), with
model.decoder.final_layer_norm before lm_head. opt-350m (do_layer_norm_before=False) is post-norm: h =
self_attn_layer_norm(x + attn), out = final_layer_norm(h + mlp), so the norms sit on the residual path, no norm
precedes the attention, and the block is not a sum of its input and the two contributions; its decoder has no
final norm, but embeds at word_embed_proj_dim (512) and maps into and out of the 1024-wide stream with project_in
and project_out (Linears without bias): token_embeddings is project_in's output there, there is no
final_norm_output, and the readout is lm_head(project_out(h)). The attention scales the queries in q_proj's
output by head_dim ** -0.5 and calls the kernel chosen at run time through attention_interface with scaling 1.0:
attention_queries are already scaled. Learned absolute positions (offset by 2) are added after the embedding,
ReLU in the MLP, biases everywhere (enable_bias).
"""

from nnterp.declare.blocks import Block
from nnterp.declare.engine import module_of
from nnterp.declare.family import COMMON_SITES, Family
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Argument, Child, Nowhere, Read
from nnterp.families._fairseq_opt import FAIRSEQ_RENAME, FLAT_MLP_SITES, FLAT_TOKENS

POST_NORM = ("a post-norm block (do_layer_norm_before=False): the attention reads the block's input itself, and "
             "self_attn_layer_norm follows the attention's add")


def _post_norm(config) -> bool:
    return not config.do_layer_norm_before


def _projected(config) -> bool:
    return config.word_embed_proj_dim != config.hidden_size


PRE = {
    "layer_mid": Read(Child("post_attention_layernorm", "input"), Argument(0), FLAT_TOKENS, shared=True,
                      description="The residual stream after the attention add, final_layer_norm's input"),
    "mlp_norm_output": Read(Child("post_attention_layernorm"), layout=FLAT_TOKENS),
    "mlp_input": Read(Child("up_proj", "input"), Argument(0), FLAT_TOKENS,
                      description="What the MLP half of the block is called with: fc1's input"),
    "attention_norm_output": COMMON_SITES["attention_norm_output"],
}
POST = {
    "layer_mid": Read(Child("input_layernorm", "input"), Argument(0),
                      description="The residual stream after the attention add, self_attn_layer_norm's input"),
    "mlp_norm_output": Read(
        Child("input_layernorm"),
        description="The normed stream entering the MLP: self_attn_layer_norm of layer_mid, which is also the "
                    "residual the MLP is added to"),
    # fc1's input is also the residual the MLP's output is added to: an assignment is copied into it
    "mlp_input": Read(Child("up_proj", "input"), Argument(0), FLAT_TOKENS, shared=True,
                      description="What the MLP half of the block is called with: fc1's input, also the residual"),
    "attention_norm_output": Nowhere(POST_NORM),
}

PROJECTED_EMBEDDINGS = Read(
    Child("model.decoder.project_in"),
    description="The token embeddings projected into the stream: project_in's output (embed_tokens is "
                "word_embed_proj_dim wide); the learned positions are added after")
NO_FINAL_NORM = Nowhere(
    "the decoder has no final norm (do_layer_norm_before=False): the last block ends with its own norm, and "
    "project_out maps the stream to word_embed_proj_dim before lm_head")


def _layer_site(name):
    return lambda context: (POST if _post_norm(context.config) else PRE)[name]


def _post_norm_arithmetic(layer, x, attn, mlp):
    """opt-350m's post-norm block: each norm follows its add."""
    return layer.final_layer_norm(layer.self_attn_layer_norm(x + attn) + mlp)


def _unembed(model, hidden):
    """Last block's output to lm_head's logits: the final norm where the decoder has one, project_out where it
    has one."""
    layers = module_of(model.layers)  # the decoder holding them, wherever it sits (inside BLIP-2's language_model too)
    decoder = next(module for module in module_of(model).modules() if getattr(module, "layers", None) is layers)
    if decoder.final_layer_norm is not None:
        hidden = decoder.final_layer_norm(hidden)
    if decoder.project_out is not None:
        hidden = decoder.project_out(hidden)
    return model.lm_head(hidden)


FAMILY = Family(
    name="opt",
    summary="Meta's OPT: fairseq's names with no MLP module (fc1 and fc2 on the layer, run on flattened rows), "
            "learned positions, pre-scaled queries, and a post-norm 350M with projections around the stream.",
    tags=("Sequential block", "No MLP module", "Learned positions", "LayerNorm", "Post-norm variant"),
    block=Block(lambda config: "post-norm" if _post_norm(config) else "sequential", arithmetic=lambda config: _post_norm_arithmetic if _post_norm(config) else None),
    rename={
        "model.decoder.embed_tokens": "embed_tokens", "model.decoder.layers": "layers",
        "model.decoder.final_layer_norm": "norm", "final_layer_norm": "post_attention_layernorm",
        **FAIRSEQ_RENAME,
    },
    sites={
        "token_embeddings": lambda context: (
            PROJECTED_EMBEDDINGS if _projected(context.config) else COMMON_SITES["token_embeddings"]),
        "final_norm_output": lambda context: (
            NO_FINAL_NORM if _post_norm(context.config) else COMMON_SITES["final_norm_output"]),
        "attention_queries": "The queries entering attention, already multiplied by head_dim ** -0.5 (OPT scales "
                             "q_proj's output and calls the kernel with scaling 1.0)",
        **{name: _layer_site(name) for name in PRE},
        **FLAT_MLP_SITES,
    },
    readout=Readout(unembed=_unembed),
    accessors={"intermediate_size": lambda c: c.ffn_dim},
    variants={"post_ln_proj": {"do_layer_norm_before": False, "word_embed_proj_dim": 32}},
    tiny={"config_class": "OPTConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "ffn_dim": 128, "vocab_size": 300}},
)

