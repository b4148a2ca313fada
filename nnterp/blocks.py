"""Block presets: the shapes of a block a family declares instead of spelling out its sites.

A preset gives the sites that differ from the common sequential pre-norm block, the block's kind and its own
order of the sum; ``Family(block=Parallel(...))`` is the whole declaration. The sites are made once per
preset, so blocks of one kind share them (``support()`` groups blocks by their sites).
"""

from __future__ import annotations

from typing import Callable

from .family import COMMON_SITES
from .sites import Child, Nowhere, Read

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
