"""Cosmos 3 Edge, the language model (Cosmos3EdgeTextModel).

Llama's attention, rotary and sequential pre-norm block, with Qwen3-VL's multimodal rotary
(rope_parameters' mrope_section: temporal, height and width sections of each head's frequencies)
computed once outside the blocks. The MLP is CLIP's two-projection one, mlp.{fc1, activation_fn,
fc2} without biases, with ReLU squared (hidden_act relu2) and no gate: fc2 takes
activation_fn(fc1(x)), so mlp_activation and mlp_neurons are the same tensor.
"""

from nnterp.wrappers.stacks import like

FAMILY = like(
    "llama", __name__,
    summary="Llama's block with a plain two-projection ReLU-squared MLP (mlp.fc1, fc2) and multimodal rotary "
            "positions.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Plain MLP", "Multimodal rotary"),
    rename={"fc1": "up_proj", "fc2": "down_proj", "activation_fn": "act_fn"},
)
