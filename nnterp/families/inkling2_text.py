"""Inkling 2, text model (Inkling2ForCausalLM).

model.{embed_tokens (a normed embedding), layers[i], final_input, norm} and lm_head. Blocks take
(hidden_states, block_states): block_states stacks the stream at the start of every group of
blocks (block attention residuals), and attention_input / mlp_input mix those states with the
current stream by a softmax over depth (through attention_interface) before a sublayer. A sliding
block: h = x + post_attention_convolution(self_attn(input_layernorm(x'))); a full block reads
separate query, key and value inputs from attention_input, each normed (q/k/v_input_layernorm).
At a block boundary the block's input joins block_states and the stream restarts from the
attention's contribution. Then out = h + post_mlp_convolution(mlp(post_attention_layernorm(
mlp_input(block_states, h)))). attention_output and mlp_output are the short convolutions'
outputs, and the block's arithmetic (with the boundary) replaces the identity. The attention has
relative position bias, one learned sink logit per query (sink_proj) and a sigmoid-gated output
projection. The MLP is a mixture of experts. final_input mixes the block states into the final
norm's input, so project_on_vocab(layer_output) is a lens without that mix: it equals the logits
only where the last group's states add nothing. lm_head has unpadded_vocab_size rows; the logits are
cast to float32 and soft-capped, tanh(logits / 30) * 30.
"""

from nnterp.declare.blocks import Block, attention_dims
from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.families._inkling import FLOAT_SOFT_CAP, block_residual_arithmetic, inkling2_sites

NOTE = ("Blocks also read block_states, the stream stacked at the start of every group of blocks, mixed into each "
        "sublayer's input by a softmax over depth (attention_input, mlp_input, final_input): the stream a block adds "
        "to is not the only path between blocks, so layer_mid is unavailable and the identity is replaced by the "
        "block's arithmetic (the stream restarts at group boundaries). Served: the model's values, layer_input and "
        "layer_output, project_on_vocab as a lens without final_input's mix of the block states (it is "
        "not the logits), the sublayers' normed inputs, the attention's interior but the scores (a per-query sink "
        "logit joins the softmax), attention_output and mlp_output after their short convolutions.")

FAMILY = Family(
    name="inkling2_text",
    model_types=("inkling2_text", "inkling2"),
    summary="Blocks with attention residuals over depth (earlier blocks' states mixed into each sublayer's input), "
            "short convolutions on the sublayer outputs, sinks and a gated output projection.",
    tags=("Block attention residuals", "Short convolutions", "Attention sinks", "Relative position bias",
          "Gated output projection", "Mixture of experts", "muP head", "Logit softcap"),
    contract_note=NOTE,
    sites=inkling2_sites(),
    block=Block(arithmetic=block_residual_arithmetic, dims=attention_dims),
    # the depth-mixing readout (a lens, not the logits), the soft-capped float32 logits
    readout=FLOAT_SOFT_CAP,
    accessors={"vocab_size": lambda c: c.unpadded_vocab_size or c.vocab_size},
    loads=EAGER_LOADS,
    tiny={"config_class": "Inkling2TextConfig", "overrides": {
        "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "moe_intermediate_size": 64,
        "vocab_size": 300, "unpadded_vocab_size": 300, "head_dim": 16, "swa_head_dim": 16, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "swa_num_attention_heads": 4, "swa_num_key_value_heads": 4, "eos_token_id": 2,
        "num_hidden_layers": 2, "layer_types": ["hybrid_sliding", "hybrid"]}},
)
