"""The real checkpoint the gemma3_text page's ``python checkpoint`` snippets run on (Gemma 3 270M, shipped offline)
and the numbers they measured, quoted in nnterp/families/notes/gemma3_text_measured.md as ``{{name}}``."""

from nnterp import real


CHECKPOINT = "Gemma 3 270M (Q4_K_M GGUF, dequantized)"


def load_checkpoint():
    """Gemma 3 270M under an eager load, or an error saying how to get it."""
    return real.load("gemma-3-270m", attn_implementation="eager").instrument()


FACTS = (
    "prompt_length", "num_layers", "width", "q4k_down", "q4k_levels", "huge_dim", "huge_from", "entry_share", "peak", "peak_block",
    "last_entry", "shared_from", "rest_peak", "rest_peak_block", "median_first", "median_last", "final_entry",
    "key0_low", "key0_low_block", "key0_high", "key0_high_block", "uniform", "full_blocks", "full_shares",
    "lens_first", "num_blocks", "p_paris", "top_token", "rank_before", "lens_before", "rank_two_before",
    "lens_two_before", "rank_half", "vocab", "lens_half", "best_early", "early_tops", "late_tops", "late_from",
    "p_paris_bf16", "p_paris_fp32", "logit_gap", "logit_max", "bf_block", "bf_entry", "fp_entry", "scale_bf16",
    "scale_fp32", "fp16_first_inf", "scale", "row_norm", "embedded_low", "embedded_high", "echo_count", "echo_of",
    "embed_params", "all_params", "embed_share", "readout_macs", "readout_ratio", "block_macs", "logits_mib",
    "lens_gib",
)


def facts(scope: dict) -> dict:
    """The numbers the text quotes, from what the checkpoint snippets left behind."""
    return {name: scope[name] for name in FACTS if name in scope}
