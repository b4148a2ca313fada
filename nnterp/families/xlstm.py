"""xLSTM (xLSTMForCausalLM).

backbone.{embeddings, blocks[i].{norm_mlstm, mlstm_layer, norm_ffn, ffn.{proj_up_gate, proj_up,
proj_down, act_fn}}, out_norm} and lm_head. A sequential pre-norm block of an mLSTM layer and a
gated feed-forward, returned as (x, state): h = x + mlstm_layer(norm_mlstm(x))[0],
out = h + ffn(norm_ffn(h)). The mLSTM layer (standard name self_attn) projects queries, keys and
values, soft-caps its input and forget gate pre-activations (gate_soft_cap), runs the matrix-memory
recurrence per head in chunks, normalizes per head (multihead_norm), gates with the output gate and
projects with out_proj; it has no softmax attention. The feed-forward sends silu(proj_up_gate) *
proj_up to proj_down. The head runs in the weights' dtype, and the model returns float32 logits
soft-capped as output_logit_soft_cap·tanh(logits / output_logit_soft_cap). In transformers 5.24
the cached recurrent path (use_cache=True, the config's default) fails on a prompt in
mlstm_recurrent_step_native (matC_old has wrong shape), so the tiny recipe runs with use_cache=False.
"""


from nnterp.declare.blocks import Block
from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.mixers import no_attention
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Argument, Own, Read

MLSTM = ("an mLSTM layer: a gated matrix-memory recurrence per head (queries, keys and values update and read a "
         "memory), with no softmax, so there are no attention scores or pattern")


def _up_proj_dim(config):
    """The feed-forward's width: hidden_size * ffn_proj_factor rounded up to ffn_round_up_to_multiple_of."""
    width, multiple = config.hidden_size * config.ffn_proj_factor, config.ffn_round_up_to_multiple_of
    return int(((width + multiple - 1) // multiple) * multiple)


FAMILY = Family(
    name="xlstm",
    summary="A pre-norm block of an mLSTM matrix-memory recurrence and a gated feed-forward, with soft-capped "
            "logits: no attention.",
    tags=("Recurrent mixer", "No attention", "mLSTM", "Gated MLP", "RMSNorm", "Logit softcap"),
    block=Block("recurrent"),
    rename={
        "backbone.embeddings": "embed_tokens", "backbone.blocks": "layers", "backbone.out_norm": "norm",
        "mlstm_layer": "self_attn", "ffn": "mlp", "norm_mlstm": "input_layernorm",
        "norm_ffn": "post_attention_layernorm", "proj_down": "down_proj", "proj_up": "up_proj",
        "proj_up_gate": "gate_proj",
    },
    sites={
        "layer_input": Read(Own("input"), Argument(0, "x")),
        **no_attention(MLSTM),
        "attention_output": "What the mLSTM layer adds to the residual stream",
    },
    accessors={
        "num_heads": lambda c: getattr(c, "num_heads", None), "num_kv_heads": lambda c: getattr(c, "num_heads", None),
        "head_dim": lambda c: None, "qk_head_dim": lambda c: None,
        "intermediate_size": _up_proj_dim,
    },
    readout=Readout(float32=True, softcap="output_logit_soft_cap"),
    loads=EAGER_LOADS,
    tiny={"config_class": "xLSTMConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 300, "use_cache": False}},
)
