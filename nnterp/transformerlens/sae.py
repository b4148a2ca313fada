"""SAELens's HookedSAETransformer over nnterp: SAEs spliced at their hook names (``add_sae``, ``run_with_saes``,
``run_with_cache_with_saes``, ``reset_saes``), taking SAELens SAE objects as they are. An SAE replaces the tensor at
its hook with its reconstruction (plus the error term under ``use_error_term``), inside the nnterp trace; the SAE's
own hook points (``{hook}.hook_sae_acts_post`` and the others) are read and hooked through its modules."""

from __future__ import annotations

import contextlib

import torch

from nnterp.declare.errors import NnterpError
from nnterp.transformerlens.hooked import HookedTransformer
from nnterp.transformerlens.utils import HookPoint

#: the hook points of a SAELens SAE, under ``{hook_name}.``
SAE_HOOKS = ("hook_sae_input", "hook_sae_acts_pre", "hook_sae_acts_post", "hook_sae_recons", "hook_sae_output",
             "hook_sae_error")


def hook_name_of(sae) -> str:
    """Where a SAELens SAE reads and writes (its cfg's metadata, or its cfg on older releases)."""
    cfg = sae.cfg
    name = getattr(getattr(cfg, "metadata", None), "hook_name", None) or getattr(cfg, "hook_name", None)
    if not name:
        raise NnterpError("this SAE names no hook_name in its cfg: nnterp.tools.splice takes an SAE at any path")
    return name


class HookedSAETransformer(HookedTransformer):
    """HookedTransformer with SAEs attached at their hook names."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.acts_to_saes: dict = {}  # hook name -> (SAE, use_error_term)

    def add_sae(self, sae, use_error_term: bool | None = None) -> None:
        name = hook_name_of(sae)
        self._matching(name)  # an unknown name fails here, in nnterp's words
        error = getattr(sae, "use_error_term", False) if use_error_term is None else use_error_term
        self.acts_to_saes[name] = (sae, error)

    def reset_saes(self, act_names=None, prev_saes=None) -> None:
        names = list(self.acts_to_saes) if act_names is None else [act_names] if isinstance(act_names, str) \
            else list(act_names)
        for name in names:
            self.acts_to_saes.pop(name, None)

    @contextlib.contextmanager
    def saes(self, saes=(), reset_saes_end: bool = True, use_error_term: bool | None = None):
        before = dict(self.acts_to_saes)
        for sae in [saes] if not isinstance(saes, (list, tuple)) else saes:
            self.add_sae(sae, use_error_term)
        try:
            yield self
        finally:
            if reset_saes_end:
                self.acts_to_saes = before

    def run_with_saes(self, *model_args, saes=(), reset_saes_end: bool = True, use_error_term: bool | None = None,
                      **model_kwargs):
        with self.saes(saes, reset_saes_end, use_error_term):
            return self(*model_args, **model_kwargs)

    def run_with_cache_with_saes(self, *model_args, saes=(), reset_saes_end: bool = True,
                                 use_error_term: bool | None = None, return_cache_object: bool = True,
                                 remove_batch_dim: bool = False, **model_kwargs):
        with self.saes(saes, reset_saes_end, use_error_term):
            return self.run_with_cache(*model_args, return_cache_object=return_cache_object,
                                       remove_batch_dim=remove_batch_dim, **model_kwargs)

    def run_with_hooks_with_saes(self, *model_args, saes=(), reset_saes_end: bool = True, fwd_hooks=(),
                                 bwd_hooks=(), reset_hooks_end: bool = True, **model_kwargs):
        with self.saes(saes, reset_saes_end):
            return self.run_with_hooks(*model_args, fwd_hooks=fwd_hooks, bwd_hooks=bwd_hooks,
                                       reset_hooks_end=reset_hooks_end, **model_kwargs)

    # -- the SAEs inside the trace
    def hook_names(self) -> list[str]:
        return super().hook_names() + [f"{name}.{hook}" for name, (sae, error) in self.acts_to_saes.items()
                                       for hook in SAE_HOOKS if hook != "hook_sae_error" or error]

    def _matching(self, name_or_filter) -> list[str]:
        if isinstance(name_or_filter, str) and name_or_filter.rsplit(".", 1)[-1] in SAE_HOOKS:
            return [name_or_filter]
        return super()._matching(name_or_filter)

    def _active_hooks(self) -> list:
        """The SAEs as hooks on their names, first at each name, then the user's hooks (those on an SAE's own
        points ride inside the SAE's call)."""
        inner = [(name, hook) for name, hook in super()._active_hooks() if name.rsplit(".", 1)[-1] in SAE_HOOKS]
        outer = [(name, hook) for name, hook in super()._active_hooks() if name.rsplit(".", 1)[-1] not in SAE_HOOKS]
        spliced = [(name, self._splice(name, sae, error, inner)) for name, (sae, error) in self.acts_to_saes.items()]
        return spliced + outer

    def _run_hooks(self, saving=(), saved=None, **window):
        self._saving, self._saved = [n for n in saving if n.rsplit(".", 1)[-1] in SAE_HOOKS], saved
        return super()._run_hooks([n for n in saving if n.rsplit(".", 1)[-1] not in SAE_HOOKS], saved, **window)

    def _splice(self, name, sae, use_error_term, inner):
        """The hook that runs ``sae`` on the tensor at ``name``: its hook points read into the cache and edited
        by the hooks on them, its output replacing the tensor."""
        def run(tensor, hook):
            handles, kept = [], {}
            for point in SAE_HOOKS:
                module = getattr(sae, point, None)
                if not isinstance(module, torch.nn.Module):
                    continue
                full = f"{name}.{point}"
                functions = [fn for hooked, fn in inner if hooked == full]

                def fire(module, args, output, full=full, functions=functions):
                    for fn in functions:
                        changed = fn(output, hook=HookPoint(full))
                        output = output if changed is None else changed
                    kept[full] = output
                    return output
                handles.append(module.register_forward_hook(fire))
            try:
                out = sae.decode(sae.encode(tensor))
            finally:
                for handle in handles:
                    handle.remove()
            if use_error_term:  # the error of the SAE without the hooks, so an edit of its features is not undone
                with torch.no_grad():
                    error = tensor - sae.decode(sae.encode(tensor))
                kept[f"{name}.hook_sae_error"] = error
                out = out + error
            for full in getattr(self, "_saving", ()):
                if full.startswith(f"{name}.") and full in kept and self._saved is not None:
                    self._saved[full] = kept[full].save()
            return out.to(tensor.dtype)
        return run
