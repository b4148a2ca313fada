"""SmolLM3 (SmolLM3ForCausalLM).

Llama's modules and sequential pre-norm block; config.no_rope_layers turns the rotary off on some
blocks (every fourth by default: NoPE layers), where the attention skips apply_rotary_pos_emb and
the queries and keys reach the kernel as projected (each attention's use_rope says which). The attention
passes sliding_window to the kernel (off by default); embed_tokens and lm_head are tied.
"""

from nnterp.declare.family import Family
from nnterp.declare.sites import KERNEL_ARGUMENTS, Argument, Call, Read
from nnterp.families._llama import tiny


def _kernel_argument(index: int, what: str) -> Read:
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention, rotated except on the NoPE layers (no_rope_layers, "
                            f"every fourth by default), which skip the rotary")


FAMILY = Family(
    name="smollm3",
    summary="Llama's block with the rotary switched off on every fourth layer (NoPE) and a tied head.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "NoPE layers", "Gated MLP", "Tied embeddings"),
    sites={"attention_queries": _kernel_argument(1, "queries"), "attention_keys": _kernel_argument(2, "keys")},
    # the second block a NoPE layer, so both kinds are checked
    tiny=tiny("SmolLM3Config", pad_token_id=0, bos_token_id=1, eos_token_id=2, no_rope_layers=[1, 0]),
)

