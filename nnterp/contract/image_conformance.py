"""The conformance contract where a wrapper's image enters the stream (docs/design.md §4, on image-text-to-text
models): run by ``conformance.check`` on every wrapper, on a call with an image and on a text-only one."""

from __future__ import annotations

import dataclasses

import torch

from nnterp.contract.checks import _check_layout, _check_writable, _diff
from nnterp.declare.engine import module_of
from nnterp.declare.locations import _walk
from nnterp.declare.writeback import Read
from nnterp.wrappers.wrapper import _receiver, has_image


def check_image(model, inputs, report, base) -> None:
    """The contract where the image enters the stream, on a call with an image: image_mask marks the placeholders,
    image_features has a row per image position, the embeddings the language model receives (its inputs_embeds) are
    token_embeddings with image_features merged at image_mask, layers[0].layer_input is them (plus what the language
    model adds before its first block, where the wrapper names it; not checked where the residual is several
    streams), and an edit of image_features reaches the logits while a read leaves them bit-identical. On a
    text-only call: image_mask is all False and image_features is not computed."""
    wrapper = model.family.wrapper
    dtype = next(module_of(model).parameters()).dtype
    # a multi-stream residual has no one layers[0].layer_input: what enters is the language model's inputs_embeds
    one_stream = model.layers[0]._nnterp_site("layer_input").served
    # a language model merging the image itself (Chameleon's, Kosmos-2's) takes no inputs_embeds: its merge's output
    merges_itself = wrapper.injected is None and (
        _receiver(wrapper) == wrapper.merge or wrapper.merged_in_place is not None)
    merged_call = dataclasses.replace(wrapper.merge_call, key="output", child=wrapper.merge or None)
    # where the image enters inside the stack: the first block it is added before
    first = min(wrapper.injected(module_of(model).config)) if wrapper.injected is not None else None
    if wrapper.merged_in_place is not None:  # an operation inside a forward is read where that forward is instrumented
        wrapper.merged_in_place.instrument(model)
    with model.trace(inputs):
        mask = model.image_mask.save()
        embedded = model.token_embeddings.save()
        if first is not None:  # the image rows are added inside the language model: after it receives its input
            received = _walk(model, _receiver(wrapper)).inputs[1]["inputs_embeds"].save()
        if wrapper.merged_in_place is not None and has_image(model, inputs):  # made before the rows are written
            received = getattr(wrapper.merged_in_place.target(model), wrapper.merged_in_place.key).save()
        if has_image(model, inputs):
            features = model.image_features.save()
        if not merges_itself and first is None:
            received = _walk(model, _receiver(wrapper)).inputs[1]["inputs_embeds"].save()
        elif merges_itself and has_image(model, inputs) and wrapper.merged_in_place is None:
            received = merged_call.target(model).output.save()  # what the merge returns is what the blocks receive
        elif merges_itself and not has_image(model, inputs):  # no merge: the blocks receive the embeddings
            received = model.embed_tokens.output.save()
        if one_stream and wrapper.added_before_layers:
            added = _walk(model, wrapper.added_before_layers).output.save()
        if one_stream:
            entering = model.layers[0].layer_input.save()
        if first is not None and has_image(model, inputs):
            before = model.layers[first - 1].layer_output.save() if first > 0 else None
            injected = model.layers[first].layer_input.save()
    # a language model that scales every inputs_embeds row before its first block (HyperCLOVA X's
    # embedding_multiplier) serves token_embeddings and image_features with that scale: compare them with the product
    token = model.family.sites.get("token_embeddings")
    factor = token.scale(model._nnterp_state.config) if isinstance(token, Read) and token.scale else None
    received = received * factor if factor is not None else received
    if one_stream and not (first == 0 and has_image(model, inputs)):
        expected = received + added if wrapper.added_before_layers else received
        label = "layers[0].layer_input == the language model's inputs_embeds (times its embedding scale)" + (
            f" + {wrapper.added_before_layers}'s output" if wrapper.added_before_layers else "")
        report.add(label, "model", torch.equal(entering, expected), f"max diff {_diff(entering, expected):.3g}")
    _check_layout(report, "model", "image_mask", mask, tuple(received.shape[:2]), dtype)
    if not has_image(model, inputs):
        report.add("a text-only call has no image position", "model.image_mask", not bool(mask.any()))
        return
    positions = int(mask.sum())
    report.add("the call has image positions", "model.image_mask", positions > 0, f"{positions}")
    _check_layout(report, "model", "image_features", features, (positions, model.hidden_size), dtype)
    if first is None:
        report.add("the language model's inputs_embeds == image_features at image_mask", "model",
                   torch.equal(received[mask], features), f"max diff {_diff(received[mask], features):.3g}")
    else:
        report.add("the language model's inputs_embeds are zero at image_mask", "model",
                   not bool(received[mask].any()), f"max {_diff(received[mask], 0 * received[mask]):.3g}")
        stream = received if first == 0 else before
        report.add(f"layers[{first}].layer_input == the stream before it + image_features at image_mask", "model",
                   torch.equal(injected[mask], stream[mask] + features),
                   f"max diff {_diff(injected[mask], stream[mask] + features):.3g}")
        report.add(f"layers[{first}].layer_input == the stream before it off image_mask", "model",
                   torch.equal(injected[~mask], stream[~mask]), f"max diff {_diff(injected[~mask], stream[~mask]):.3g}")
    report.add("the language model's inputs_embeds == token_embeddings off image_mask", "model",
               torch.equal(received[~mask], embedded[~mask]), f"max diff {_diff(received[~mask], embedded[~mask]):.3g}")
    _check_writable(model, inputs, lambda: model, "image_features", "model.image_features", report, base)
