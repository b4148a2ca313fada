"""Block presets: the shapes of a block a family declares instead of spelling out its sites.

A preset gives the sites that differ from the common sequential pre-norm block, the block's kind and its own
order of the sum; ``Family(block=Parallel(...))`` is the whole declaration. The sites are made once per
preset, so blocks of one kind share them (``support()`` groups blocks by their sites).
"""

from __future__ import annotations

from typing import Callable

from .family import COMMON_SITES
from .sites import Argument, Child, Nowhere, Read

PARALLEL_REASON = "a parallel block: the attention and the MLP read the same input, so there is no stream between them"


def _sequential_sum(x, attn, mlp):
    return (x + attn) + mlp


class Parallel:
    """A parallel block: the attention and the MLP read the same input and the block adds both outputs to it, so
    there is no ``layer_mid``. ``mlp_norm`` is the norm whose output the MLP reads (the block's one input norm by
    default); ``when`` names a config flag under which the block is parallel (``default`` where the config leaves
    it out), sequential otherwise; ``sum`` is the block's own order of the sum, for the identity."""

    def __init__(self, mlp_norm: str = "input_layernorm",
                 description: str = "The normed stream entering the MLP: the one norm feeds both sublayers",
                 when: str | None = None, default: bool = False, sum: Callable = _sequential_sum) -> None:
        self.mlp_norm, self.when, self.default, self.sum = mlp_norm, when, default, sum
        self.no_mid = Nowhere(PARALLEL_REASON)
        self.mlp_norm_site = Read(Child(mlp_norm), description=description)

    def describe(self) -> str:
        shared = "one norm feeds both sublayers" if self.mlp_norm == "input_layernorm" else f"the MLP reads {self.mlp_norm}"
        when = f" where config.{self.when} is set ({'the default' if self.default else 'off by default'})" \
            if self.when else ""
        return f"parallel{when}: the attention and the MLP read the same input, {shared}; no layer_mid"

    def is_parallel(self, config) -> bool:
        return self.when is None or bool(getattr(config, self.when, self.default))

    def kind(self, config) -> str:
        return "parallel" if self.is_parallel(config) else "sequential"

    def sites(self) -> dict:
        if self.when is None:
            return {"layer_mid": self.no_mid, "mlp_norm_output": self.mlp_norm_site}
        return {
            "layer_mid": lambda context: self.no_mid if self.is_parallel(context.config) else COMMON_SITES["layer_mid"],
            "mlp_norm_output": lambda context: self.mlp_norm_site if self.is_parallel(context.config)
            else COMMON_SITES["mlp_norm_output"],
        }


class PostNorms:
    """A sequential block that normalizes each sublayer's output before adding it, with norms that are modules of
    the block beside the attention and the MLP: ``attention_output`` and ``mlp_output`` are those norms' outputs,
    what the stream receives (Gemma 2's sandwich, GLM-4's, OLMo 2's post-norms). ``pre_mlp`` names the norm the
    MLP reads where it is not ``post_attention_layernorm`` (Gemma 2's pre_feedforward_layernorm); ``pre_norms=False``
    is OLMo 2's block, with no norm before either sublayer; ``scale`` a multiplier both contributions carry
    (config -> number)."""

    def __init__(self, attention: str = "post_attention_layernorm", mlp: str = "post_feedforward_layernorm",
                 pre_mlp: str | None = None, pre_norms: bool = True, scale: Callable | None = None) -> None:
        times = " times residual_multiplier" if scale is not None else ""
        self.sum = _sequential_sum
        contributions = {
            name: Read(Child(norm, from_block=True), scale=scale,
                       description=f"What the {what} adds to the residual stream: its output after the block's "
                                   f"post-norm {norm}{times}")
            for name, what, norm in (("attention_output", "attention", attention), ("mlp_output", "MLP", mlp))
        }
        if not pre_norms:
            into_mlp = Read(Child("mlp", "input"), Argument(0), shared=True,
                            description="The residual stream after the attention add, which the MLP reads unnormed")
            self._sites = {
                "attention_norm_output": Nowhere(
                    f"no norm before the attention: the attention reads the residual stream itself, and the block "
                    f"normalizes the attention's output instead ({attention})"),
                "attention_output": contributions["attention_output"],
                "layer_mid": into_mlp,
                "mlp_norm_output": Nowhere(
                    f"no norm before the MLP: the MLP reads the residual stream itself, and the block normalizes the "
                    f"MLP's output instead ({mlp})"),
                "mlp_input": into_mlp,
                "mlp_output": contributions["mlp_output"],
            }
        elif pre_mlp is not None:
            self._sites = {
                "attention_output": contributions["attention_output"],
                "layer_mid": Read(Child(pre_mlp, "input"), Argument(0), shared=True),
                "mlp_norm_output": Read(Child(pre_mlp),
                                        description=f"The normed stream entering the MLP: {pre_mlp}'s output"),
                "mlp_output": contributions["mlp_output"],
            }
        else:
            self._sites = contributions
        self._words = (f"attention_output is {attention}'s output and mlp_output {mlp}'s" + times
                       + ("; nothing norms the sublayers' inputs" if not pre_norms else "")
                       + (f"; the MLP reads {pre_mlp}" if pre_mlp else ""))

    def describe(self) -> str:
        return f"post-norms beside the sublayers: {self._words}"

    def kind(self, config) -> str:
        return "sequential"

    def sites(self) -> dict:
        return dict(self._sites)


#: Gemma 2's sandwich: a norm before and after each sublayer
SANDWICH = PostNorms(pre_mlp="pre_feedforward_layernorm")
#: GLM-4's post-norms, with Llama's post_attention_layernorm before the MLP
GLM4_POSTNORMS = PostNorms("post_self_attn_layernorm", "post_mlp_layernorm")
#: OLMo 2's block: the sublayers read the stream itself and their outputs are normed
OLMO2_POSTNORMS = PostNorms(pre_norms=False)
