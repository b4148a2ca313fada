"""TransformerLens 3.x's API over nnterp: change the import line, keep the script.

``from nnterp.transformerlens import HookedTransformer, ActivationCache, HookPoint, utils`` gives
HookedTransformer's calls, hooks, tokens, weights and config, and ActivationCache's analyses, on every family nnterp
serves. A hook name means TransformerLens's tensor (``nnterp.compat.names``), or is refused saying why."""

from nnterp.transformerlens import utils
from nnterp.transformerlens.activation_cache import ActivationCache
from nnterp.transformerlens.bridge import TransformerBridge
from nnterp.transformerlens.config import HookedTransformerConfig
from nnterp.transformerlens.hooked import HookedTransformer
from nnterp.transformerlens.utils import HookPoint, Output
from nnterp.transformerlens.sae import HookedSAETransformer

__all__ = ["ActivationCache", "HookPoint", "HookedSAETransformer", "HookedTransformer", "HookedTransformerConfig",
           "Output", "TransformerBridge", "utils"]
