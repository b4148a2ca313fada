"""TransformerLens 4's ``TransformerBridge`` over nnterp: ``TransformerBridge.boot_transformers(name)`` and a bridge
around a StandardizedTransformer, whose hook names are the bridge's (the hook_in and hook_out of each bridged
component) with HookedTransformer's as aliases, each meaning the tensor TransformerBridge gives under it
(``nnterp.compat.names``, ``transformerlens=4``). Calls, hooks, the cache, tokens and weights are HookedTransformer's."""

from __future__ import annotations

from nnterp.compat import names
from nnterp.model import StandardizedTransformer
from nnterp.transformerlens.hooked import HookedTransformer


class TransformerBridge(HookedTransformer):
    """TransformerLens 4.x's bridge: the same model, its names meaning TransformerBridge's tensors."""

    generation = 4
    tables = ((names.BRIDGE_MODEL, names.BRIDGE_BLOCK),
              (names.TRANSFORMERLENS_MODEL, names.TRANSFORMERLENS_BLOCK))

    @classmethod
    def boot_transformers(cls, model_name: str, hf_config_overrides: dict | None = None, device=None, dtype=None,
                          tokenizer=None, **kwargs) -> "TransformerBridge":
        """Loads the checkpoint through StandardizedTransformer (its config overridden where asked)."""
        if hf_config_overrides:
            kwargs.update(hf_config_overrides)
        model = StandardizedTransformer(model_name, dtype=dtype, tokenizer=tokenizer, **kwargs)
        if device is not None:
            model.to(device)
        return cls(model)
