"""Shared by the fairseq-lineage families (OPT, BioGPT, XGLM): the MLP half of the block sits on the layer itself
(fc1, activation_fn, fc2), with no module of its own. The ``mlp`` host is fc2, the module whose output is what
the MLP half adds, aliased ``mlp`` beside ``down_proj``; its other values are read on its siblings.
"""

from __future__ import annotations


from nnterp.declare.sites import TOKEN_ROWS, Argument, Child, Own, Read, Sibling

#: fairseq's names onto the standard ones (OPT adds its decoder's own on top)
FAIRSEQ_RENAME = {
    "self_attn_layer_norm": "input_layernorm", "out_proj": "o_proj", "fc1": "up_proj", "activation_fn": "act_fn",
    "fc2": ["down_proj", "mlp"],
}

#: fc1 to fc2 run on [batch*seq, hidden] rows
FLAT_TOKENS = TOKEN_ROWS


#: the MLP half, on the mlp host (fc2)
MLP_SITES = {
    "mlp_activation": Read(Sibling("act_fn")),
    "mlp_neurons": Read(Sibling("down_proj", "input"), Argument(0)),
    "mlp_output": Read(Own("output"), description="What the MLP adds to the residual stream: fc2's output"),
}

#: OPT runs the MLP half on [batch*seq, hidden] rows: the same values, unflattened
FLAT_MLP_SITES = {
    "mlp_activation": Read(Sibling("act_fn"), layout=FLAT_TOKENS),
    "mlp_neurons": Read(Sibling("down_proj", "input"), Argument(0), FLAT_TOKENS),
    "mlp_output": Read(Own("output"), layout=FLAT_TOKENS,
                       description="What the MLP adds to the residual stream: fc2's output"),
}

MLP_INPUT = Read(Child("up_proj", "input"), Argument(0),
                 description="What the MLP half of the block is called with: fc1's input")
