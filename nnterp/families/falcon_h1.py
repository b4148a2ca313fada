"""Falcon-H1 (FalconH1ForCausalLM).

Jamba's names on a block whose two token mixers run in parallel: input_layernorm feeds both a
Mamba-2 mixer (mamba) and the attention (self_attn, which reads the normed stream times
attention_in_multiplier; its keys are multiplied by key_multiplier), and the block adds
mamba·ssm_out_multiplier + attention·attention_out_multiplier to the stream at once. self_attn is
the attention; attention_output is what the two mixers add together, read where the attention
returns (the Mamba mixer has run by then), so an edit is carried back into the attention's output
minus the Mamba part, divided by its multiplier; any value of self_attn reads the Mamba output
first, while it is still ahead of the forward. Then pre_ff_layernorm (aliased
post_attention_layernorm) -> feed_forward (aliased mlp: a gated MLP whose gate input is multiplied
by mlp_multipliers[0] and whose down_proj output by mlp_multipliers[1]) -> add; the block returns a
1-tuple. muP multipliers also scale the embeddings (embedding_multiplier, inside the model) and
the logits (lm_head_multiplier, after lm_head). The final norm is final_layernorm.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import COMMON_SITES, Family
from nnterp.declare.mixers import ATTENTION_INTERIOR, JAMBA_RENAME
from nnterp.declare.readout import Readout
from nnterp.declare.sites import EarlierFirst, Element, Own, PlusEarlier, Sibling
from nnterp.declare.vocabulary import FORWARD_ORDER, up_first
from nnterp.families._llama import tiny

JAMBA_RENAME_NO_MAMBA = {key: alias for key, alias in JAMBA_RENAME.items() if key != "mamba"}

MIXERS_OUTPUT = PlusEarlier(
    Own("output"), Element(0), scale=lambda c: c.attention_out_multiplier, earlier=Sibling("mamba"),
    earlier_scale=lambda c: c.ssm_out_multiplier,
    words=", each times its multiplier (attention_out_multiplier, ssm_out_multiplier)",
    description="What the token mixers add to the residual stream: the attention's output times "
                "attention_out_multiplier plus the parallel Mamba-2 mixer's output times ssm_out_multiplier")

def _earlier_first(name):
    """A common site chosen per block (the rotary's input), read after the Mamba mixer's output like the rest."""
    made = {}

    def site(context):
        inner = COMMON_SITES[name](context)
        if id(inner) not in made:
            made[id(inner)] = (inner, EarlierFirst(inner, MIXERS_OUTPUT))
        return made[id(inner)][1]
    return site


FAMILY = Family(
    name="falcon_h1",
    summary="TII's Falcon-H1: a Mamba-2 mixer and an attention side by side in every block, their outputs scaled and "
            "summed, with muP multipliers on embeddings, keys, MLP and logits.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "State-space (Mamba-2)", "Parallel mixers", "Multipliers",
          "Gated MLP"),
    # the MLP calls up_proj before the activation: up_proj(x) * act(gate_proj(x) * gate_multiplier)
    block=Block(order=up_first(FORWARD_ORDER["block"])),
    rename=JAMBA_RENAME_NO_MAMBA,
    sites={"attention_output": MIXERS_OUTPUT, **{name: EarlierFirst(COMMON_SITES[name], MIXERS_OUTPUT)
                                                for name in ATTENTION_INTERIOR},
           **{name: _earlier_first(name) for name in ("attention_queries_unrotated", "attention_keys_unrotated")}},
    readout=Readout(times="lm_head_multiplier"),
    tiny=tiny("FalconH1Config", mamba_n_heads=4, mamba_d_state=16, mamba_n_groups=1, attention_in_multiplier=0.5,
              attention_out_multiplier=0.75, ssm_out_multiplier=1.5, key_multiplier=0.8, embedding_multiplier=2.0,
              lm_head_multiplier=0.3, mlp_multipliers=[1.2, 1.0]),
)
