"""circuit-tracer's interventions on the replacement model: ``ReplacementModel(model, transcoders)``.

The model and the transcoders are those of an attribution graph (one transcoder a block or a cross-layer
transcoder: ``graph._replacement``). As circuit-tracer's ``ReplacementModel``:

- ``feature_intervention(inputs, interventions)`` runs the model with each ``(layer, position, feature_idx, value)``
  of ``interventions`` setting a latent: block ``layer``'s mlp_output gains ``(value - activation) × decoder
  vector`` (a cross-layer transcoder's latent: into every block it writes), so the MLP's own output, error included,
  stays under the change. ``position`` and ``feature_idx`` index the [positions, latents] activations as torch does
  (an int, a slice, a tensor); ``value`` is a number or a tensor that broadcasts there. Returns the logits [1, seq,
  vocab] and the transcoders' activations [blocks, seq, latents] in that run (``apply_activation_function=False``:
  the pre-activations, ``x @ W_enc + b_enc``).
- ``freeze_attention`` (default): every block's attention pattern at the clean run's. ``constrained_layers`` (a
  range of blocks): those blocks' mlp_outputs at the clean run's plus the changes, each change computed from the
  clean activations, so an edit does not propagate through a later MLP (a skip transcoder's skip still reads the
  stream); when it covers every block, every norm's scale is frozen too, and the model is the graph's frozen linear
  map: zeroing a latent then moves each logit by minus its direct edge. Without it, each change is computed from
  the activations of the run itself and propagates through everything after it.
- ``feature_intervention_generate(inputs, interventions, max_new_tokens=...)``: greedy decoding with a KV cache; the
  first step is ``feature_intervention``'s forward; on later steps only the open-ended interventions (a position
  slice without an end) apply, at the new token, with nothing frozen (as circuit-tracer's). Returns the text
  (prompt and continuation), the logits of each new token [max_new_tokens, vocab] and the activations of every
  position run [blocks, prompt + max_new_tokens - 1, latents].

A string input is tokenized as ``attribution_graph`` does (``frozen.circuit_tracer_tokens``: a special token first),
so the positions are the graph's; token ids are taken as given.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager, nullcontext

import torch

from nnterp.declare.engine import module_of
from nnterp.tools._common import _IN_A_BLOCK, TEXT_CALL, ToolError, encode, trace
from nnterp.tools.frozen import (
    MLP, circuit_tracer_tokens, fixed_final_scale, fixed_inside, freeze, frozen_attention, one_norm,
)
from nnterp.tools.graph_replacement import _replacement


class ReplacementModel:
    """circuit-tracer's ``ReplacementModel`` interventions on ``model`` with ``transcoders`` (see the module)."""

    def __init__(self, model, transcoders) -> None:
        self.model, self.transcoders = model, transcoders
        self.replacement = _replacement(model, transcoders)

    # ------------------------------------------------------------------ circuit-tracer's surface
    def get_activations(self, inputs, apply_activation_function: bool = True):
        """The logits [1, seq, vocab] and the transcoders' activations [blocks, seq, latents] of a clean run."""
        return self.feature_intervention(inputs, [], freeze_attention=False,
                                         apply_activation_function=apply_activation_function)

    def feature_intervention(self, inputs, interventions, constrained_layers=None, freeze_attention: bool = True,
                             apply_activation_function: bool = True, return_activations: bool = True):
        batch = self._batch(inputs)
        plan = self._plan(interventions)
        frozen, clean = self._clean(batch, plan, constrained_layers, freeze_attention)
        with torch.no_grad():
            logits, activations = self._pass(batch, plan, frozen, clean, constrained_layers, apply_activation_function)
        return logits, (activations if return_activations else None)

    def feature_intervention_generate(self, inputs, interventions, constrained_layers=None,
                                      freeze_attention: bool = True, apply_activation_function: bool = True,
                                      return_activations: bool = True, max_new_tokens: int = 20, **generate_kwargs):
        if max_new_tokens < 1:
            raise ToolError("max_new_tokens must be at least 1")
        if generate_kwargs.get("do_sample"):
            raise ToolError("feature_intervention_generate decodes greedily: leave do_sample out")
        batch = self._batch(inputs)
        plan = self._plan(interventions)
        later = self._plan([(layer, 0, feature, value) for layer, position, feature, value in interventions
                            if isinstance(position, slice) and position.stop is None])
        frozen, clean = self._clean(batch, plan, constrained_layers, freeze_attention)
        settings = {"do_sample": False, **generate_kwargs, "max_new_tokens": max_new_tokens,
                    "min_new_tokens": max_new_tokens}
        logits, activations = [], []
        with torch.no_grad(), self._first_step(frozen if self._covers(constrained_layers) else None), \
                self.model.generate(**settings) as tracer:
            with tracer.invoke({key: value for key, value in batch.items() if key in TEXT_CALL}):
                for step in tracer.iter[0:max_new_tokens]:
                    first = step == 0
                    step_logits, step_activations = self._blocks(
                        plan if first else later, frozen if first else None, clean if first else None,
                        constrained_layers if first else None, apply_activation_function)
                    logits.append(step_logits[0, -1].save())
                    activations.append(step_activations.save())
            with tracer.invoke():
                out = tracer.result.save()
        text = self.model.tokenizer.decode(out[0])
        return (text, torch.stack(logits),
                torch.cat(activations, 1) if return_activations else None)

    # ------------------------------------------------------------------ the passes
    @contextmanager
    def _first_step(self, frozen):
        """``fixed_inside(frozen)`` (every norm and gate inside the attentions at the clean run's) for the first
        forward only, the prompt's: released when lm_head has run, as circuit-tracer's freeze holds the first token."""
        with ExitStack() as held:
            if frozen is not None:
                held.enter_context(fixed_inside(frozen))
                def release(*_) -> None:  # returns nothing: lm_head's output stays
                    held.close()

                hook = module_of(self.model).get_output_embeddings().register_forward_hook(release)
                held.callback(hook.remove)
            yield

    def _batch(self, inputs) -> dict:
        """One row: a prompt tokenized as the graph's, or token ids as given."""
        ids = circuit_tracer_tokens(self.model, inputs) if isinstance(inputs, str) else torch.as_tensor(inputs)
        if ids.dtype not in (torch.int64, torch.int32) or ids.dim() > 2 or (ids.dim() == 2 and len(ids) != 1):
            raise ToolError("inputs are a prompt or one row of token ids")
        return encode(self.model, ids.reshape(1, -1))

    def _plan(self, interventions) -> dict:
        """{block: [(position, feature_idx, value)]}, as circuit-tracer groups them."""
        plan: dict = {}
        for intervention in interventions:
            if len(intervention) != 4:
                raise ToolError("each intervention is (layer, position, feature_idx, value)")
            layer, position, feature, value = intervention
            if not 0 <= int(layer) < self.model.num_layers:
                raise ToolError(f"an intervention at layer {layer}: the model has blocks 0 to "
                                f"{self.model.num_layers - 1}")
            plan.setdefault(int(layer), []).append((position, feature, value))
        return plan

    def _covers(self, constrained_layers) -> bool:
        return constrained_layers is not None and set(range(self.model.num_layers)) <= set(constrained_layers)

    def _clean(self, batch, plan, constrained_layers, freeze_attention):
        """The clean run's frozen values (where something is frozen) and each transcoder's input and activations."""
        if not plan or not (freeze_attention or constrained_layers):
            return None, None
        frozen = freeze(self.model, batch["input_ids"])
        if constrained_layers is None:
            return frozen, None
        reads = []
        with torch.no_grad(), trace(self.model, batch):
            for point in self.replacement.reads:
                reads.append(point.read().save())
        return frozen, [(x, self.replacement.encode(i, x)[0]) for i, x in enumerate(reads)]

    def _pass(self, batch, plan, frozen, clean, constrained_layers, apply_activation_function):
        full = frozen is not None and self._covers(constrained_layers)
        with (fixed_inside(frozen) if full else nullcontext()), trace(self.model, batch):
            logits, activations = self._blocks(plan, frozen, clean, constrained_layers, apply_activation_function)
            logits = logits.save()
            activations = activations.save()
        return logits, activations

    def _blocks(self, plan, frozen, clean, constrained_layers, apply_activation_function):
        """Inside a trace (one forward, or one generation step): each block's read, its interventions' changes,
        and its mlp_output; returns the logits and the activations [blocks, seq, latents]."""
        model, replacement = self.model, self.replacement
        full = frozen is not None and self._covers(constrained_layers)
        constrained = set(range(model.num_layers) if constrained_layers is None else constrained_layers)
        changes: dict = {}
        recorded = []
        for i, layer in enumerate(model.layers):
            point, read = replacement.reads[i], []
            early = point.name == "mlp_norm_output" and one_norm(layer)  # the attention's norm: before the attention
            if frozen is None:
                read.append(point.read())
            elif full:
                frozen_attention(model, frozen, i, 1,
                                 between=(lambda read=read, point=point: read.append(point.read())) if early else None)
                if not early:
                    if frozen.mlp_scales[i] is not None and \
                            _IN_A_BLOCK.get(point.name, 0) > _IN_A_BLOCK["mlp_norm_scale"]:
                        layer.mlp_norm_scale = frozen.mlp_scales[i]
                    read.append(point.read())
            else:  # the pattern alone
                if early:
                    read.append(point.read())
                layer.self_attn.attention_probabilities = frozen.patterns[i]
                if not early:
                    read.append(point.read())
            x = read[0]
            activations = replacement.encode(i, x)[0]
            recorded.append(activations if apply_activation_function else self._pre_activation(i, x)[0])
            if i in plan:
                basis = clean[i][1] if clean is not None else activations
                delta = torch.zeros_like(basis)
                for position, feature, value in plan[i]:
                    delta[position, feature] = torch.as_tensor(value, dtype=delta.dtype) - basis[position, feature]
                for block, decoder in replacement.writes(i):
                    changes[block] = changes.get(block, 0) + delta @ decoder
            output = layer.mlp.mlp_output
            if clean is not None and i in constrained:  # the clean output, its skip reading the stream as it is
                skip, clean_skip = replacement.skip(i, x), replacement.skip(i, clean[i][0])
                base = frozen.inputs[(MLP, i)] + (0 if skip is None else (skip - clean_skip).to(output.dtype))
                layer.mlp.mlp_output = base + changes.get(i, torch.zeros(())).to(output.dtype)
            elif i in changes and i in constrained:
                layer.mlp.mlp_output = output + changes[i].to(output.dtype)
        if full:
            fixed_final_scale(model, frozen, 1)
        return model.logits, torch.stack(recorded)

    def _pre_activation(self, layer: int, x) -> torch.Tensor:
        """What the activation function reads: ``x @ W_enc + b_enc`` (the graph's target input plus ``b_enc``)."""
        replacement = self.replacement
        b_enc = replacement.clt.b_enc[layer] if hasattr(replacement, "clt") else \
            replacement.spliced[layer].sae.b_enc
        return x.float().reshape(*x.shape[:-1], -1) @ replacement.encoder(layer) + b_enc.detach().float()
