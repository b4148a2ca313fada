"""TransformerLens 3.x's API over nnterp: change the import line, keep the script.

``from nnterp.transformerlens import HookedTransformer, ActivationCache, HookPoint, utils`` gives
HookedTransformer's calls, hooks, tokens, weights and config, and ActivationCache's analyses, on every family nnterp
serves. A hook name means TransformerLens's tensor (``nnterp.names``), or is refused saying why."""

from . import utils
from .activation_cache import ActivationCache
from .bridge import TransformerBridge
from .config import HookedTransformerConfig
from .hooked import HookedTransformer, HookPoint, Output
from .sae import HookedSAETransformer

__all__ = ["ActivationCache", "HookPoint", "HookedSAETransformer", "HookedTransformer", "HookedTransformerConfig",
           "Output", "TransformerBridge", "utils"]
