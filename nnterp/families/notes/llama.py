"""The real checkpoint the llama page's ``python checkpoint`` snippets run on (SmolLM2-135M-Instruct, shipped
offline) and the numbers they measured, quoted in nnterp/families/notes/llama.md as ``{{name}}``."""

from nnterp import real


CHECKPOINT = "HuggingFaceTB/SmolLM2-135M-Instruct"


def load_checkpoint():
    """SmolLM2-135M-Instruct under an eager load, or an error saying how to get it."""
    return real.load(attn_implementation="eager").instrument()


def facts(scope: dict) -> dict:
    """The numbers the text quotes, from what the checkpoint snippets left behind."""
    found = {}
    if "sink" in scope:
        found.update(
            first=scope["sink"][0], last=scope["sink"][-1], first_token=scope["first_token"],
            norm_0_low=min(scope["norm_0"]), norm_0_high=max(scope["norm_0"]),
            rest_low=min(scope["median_rest"]), rest_high=max(scope["median_rest"]),
            share_low=min(scope["share"]), share_high=max(scope["share"]),
        )
    if "huge" in scope:
        found.update(
            huge_first=scope["huge"][0], huge_last=scope["huge"][-1], huge_low=min(scope["huge_values"]),
            huge_high=max(scope["huge_values"]), median_low=min(scope["medians"]), median_high=max(scope["medians"]),
        )
    names = ("p_paris", "top_token", "huge_dim", "entry_share", "jump_block", "jump_write", "jump_attn", "rest_max", "shared_last",
             "lens_first", "num_blocks", "lens_before", "rank_before", "lens_quarter", "rank_quarter", "lens_half",
             "rank_half", "vocab", "filler_count", "filler_top", "p_paris_bf16", "p_paris_fp32", "logit_gap",
             "logit_max", "bf_block", "bf_entry", "fp_entry", "echo_count", "echo_of")
    for name in names:
        if name in scope:
            found[name] = scope[name]
    return found
