"""SmolLM3 (SmolLM3ForCausalLM).

Llama's modules and sequential pre-norm block; config.no_rope_layers turns the rotary off on some
blocks (every fourth by default: NoPE layers), where the attention skips apply_rotary_pos_emb and
the queries and keys reach the kernel as projected. Which blocks those are is read from each
attention's use_rope, and attention_queries and attention_keys say so per block. The attention
passes sliding_window to the kernel (off by default); embed_tokens and lm_head are tied.
"""

from nnterp.family import Checkpoint, Family, HostContext
from nnterp.sites import KERNEL_ARGUMENTS, Argument, Call, Read

from ._llama import tiny


def _kernel_argument(index: int, what: str):
    rotated, unrotated = (
        Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
             description=f"The {what} entering attention, {note}")
        for note in ("rotated", "without rotary: this block is a NoPE layer (no_rope_layers)"))

    def site(context: HostContext):
        return rotated if getattr(context.module, "use_rope", True) else unrotated

    return site


FAMILY = Family(
    name="smollm3",
    model_types=("smollm3",),
    summary="Llama's block with the rotary switched off on every fourth layer (NoPE) and a tied head.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "NoPE layers", "Gated MLP", "Tied embeddings"),
    sites={"attention_queries": _kernel_argument(1, "queries"), "attention_keys": _kernel_argument(2, "keys")},
    checkpoints=(Checkpoint("HuggingFaceTB/SmolLM3-3B", "SmolLM3-3B"),),
    # the second block a NoPE layer, so both kinds are checked
    tiny=tiny("SmolLM3Config", pad_token_id=0, bos_token_id=1, eos_token_id=2, no_rope_layers=[1, 0]),
)
