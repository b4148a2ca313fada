"""The researcher's toolkit on the standard values: lenses, interventions, patching, attribution,
data collection, pictures, and real mechanisms on the embedded model.

Every tool reads and writes only standard values (``layer_output``, ``attention_premix``,
``mlp_neurons``, ``logits``, ...) and the config accessors, so it runs unchanged on every family.
"""

from nnterp.tools.ablation import ablate_heads, ablate_neurons, head_means, neuron_means, skip_blocks
from nnterp.tools.attribution import (
    FrozenNorm, LogitAttribution, attribution_patching, direct_logit_attribution, head_contributions,
)
from nnterp.tools.collect import Collection, collect
from nnterp.tools.graph import AttributionGraph, attribution_graph
from nnterp.tools.heads import HeadLoadings, head_loadings
from nnterp.tools.interventions import Edit, Intervention, generate, run
from nnterp.tools.lens import IDENTITY_PROMPT, LogitLens, Patchscope, lens_logits, logit_lens, patchscope
from nnterp.tools.mechanisms import (
    Induction, InductionAblation, LensDemo, Sink, first_position_sink, induction_ablation, induction_heads,
    lens_on_prompt, repeated_random_tokens,
)
from nnterp.tools.patching import Patching, logit_difference, patch_heads, patch_positions, probability
from nnterp.tools.plots import (
    attention_html, attention_patterns, heatmap, plot_attention, plot_attribution, plot_lens, plot_patching,
    save_attention,
)
from nnterp.tools.qk import QKAttribution, qk_attribution
from nnterp.tools.replacement import ReplacementModel
from nnterp.tools.splice import LocalCLT, LocalSAE, splice
from nnterp.tools.steering import mean_difference, steer, stream_norm_without_sink

__all__ = [
    "logit_lens", "lens_logits", "LogitLens", "patchscope", "Patchscope", "IDENTITY_PROMPT",
    "Intervention", "Edit", "run", "generate", "steer", "mean_difference", "stream_norm_without_sink",
    "ablate_heads", "ablate_neurons", "skip_blocks", "head_means", "neuron_means",
    "patch_positions", "patch_heads", "Patching", "logit_difference", "probability",
    "direct_logit_attribution", "LogitAttribution", "head_contributions", "FrozenNorm", "attribution_patching",
    "collect", "Collection",
    "heatmap", "plot_lens", "plot_patching", "plot_attribution", "plot_attention", "attention_patterns",
    "attention_html", "save_attention",
    "induction_heads", "induction_ablation", "Induction", "InductionAblation", "repeated_random_tokens",
    "first_position_sink", "Sink", "lens_on_prompt", "LensDemo",
    "splice", "LocalSAE", "LocalCLT", "attribution_graph", "AttributionGraph", "qk_attribution", "QKAttribution",
    "head_loadings", "HeadLoadings",
    "ReplacementModel",
]
