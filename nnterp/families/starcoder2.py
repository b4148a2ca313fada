"""StarCoder2 (Starcoder2ForCausalLM).

Llama's sequential pre-norm block with LayerNorms (weight and bias), a bias on every projection,
and a plain MLP named c_fc, act (GELU-tanh) and c_proj (up_proj, act_fn, down_proj), so
mlp_activation and mlp_neurons are the same tensor. The attention and the MLP each end with a
residual dropout inside their own forward (inert in eval). The attention passes
config.sliding_window to the kernel; embed_tokens and lm_head are tied.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="starcoder2",
    summary="Llama's block with LayerNorms, biases everywhere, a plain GELU MLP and a sliding window.",
    tags=("Sequential block", "LayerNorm", "Biased q, k, v", "Grouped keys/values", "Sliding window", "Tied embeddings"),
    rename={"c_fc": "up_proj", "c_proj": "down_proj", "act": "act_fn"},
    tiny=tiny("Starcoder2Config", bos_token_id=1, eos_token_id=2),
)

