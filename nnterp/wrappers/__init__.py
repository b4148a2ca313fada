"""Wrappers: image-text-to-text models served through the family of the language model inside them.

A wrapper (``Gemma3ForConditionalGeneration``, ``LlavaForConditionalGeneration``, ...) holds a vision tower, a
projector and a decoder-only language model. nnterp serves the language stack with the text family's sites:
``layers`` are the language model's blocks, ``norm`` and ``lm_head`` its readout, and availability is computed
from the text config. Where the image enters the stream is served on the model: ``image_features`` (what the
wrapper places into the stream at the image positions, read where it merges them) and ``image_mask``.

A wrapper is data: a ``Wrapper`` names its model types, its text family, where the language model sits in the
native tree, the module whose forward merges the image features, its image inputs and a tiny recipe.
``family_of`` turns it into a ``Family`` whose renames are the text family's under the language model's path.
"""

from __future__ import annotations

import contextlib
import importlib
import dataclasses
import logging
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from ..errors import UnknownArchitecture
from ..family import COMMON_SITES, Checkpoint, Family, family_named
from ..sites import Argument, Call, Derived, Own, Read, Same, _walk

#: The text family's native paths start with its base model's attribute on the CausalLM.
TEXT_PREFIX = "model."


@dataclass(frozen=True)
class Wrapper:
    """What an image-text-to-text model declares; the rest is its text family's."""

    name: str
    #: the page title: the model's name as researchers say it
    title: str
    model_types: tuple[str, ...]
    #: the class names of the wrapper (a model type a text family also claims is the wrapper's only under these)
    classes: tuple[str, ...]
    text_family: str
    summary: str = ""
    #: native path of the language model's base model (its embed_tokens, layers and norm)
    language_model: str = "model.language_model"
    #: native path of the head, where it is not the wrapper's own lm_head
    lm_head: str = "lm_head"
    #: native path of the module whose forward places the image features into the stream ("" for the wrapper)
    merge: str = "model"
    #: the call that places them, and which of its arguments are the features (masked_scatter's source)
    merge_call: Call = Call("inputs_embeds.masked_scatter", "input")
    features_argument: Argument = Argument(1)
    #: native paths of the vision side, kept native and shown in the printout under their last name
    vision: tuple[str, ...] = ("model.vision_tower", "model.multi_modal_projector")
    #: the forward's own image inputs, beside input_ids and attention_mask
    image_inputs: tuple[str, ...] = ("pixel_values",)
    #: the config field holding the image placeholder token's id
    image_token: str = "image_token_id"
    checkpoints: tuple[Checkpoint, ...] = ()
    #: the tiny recipe: config class, overrides (the text family's recipe as text_config, a one-layer vision
    #: tower), and "image", what tiny.image_call builds a call from: {"tokens": placeholders, "around": ids put
    #: before and after them, "types": a token-type input to mark them in, "pixel_values": shape, other inputs}
    tiny: dict = field(default_factory=dict)
    #: what the wrapper does that its text family's page does not say
    note: str = ""
    #: what the wrapper does past lm_head, where it is not what the text family's CausalLM does: (model, logits)
    #: -> logits (Aya Vision's head applies no logit_scale, Cohere 2's does)
    readout: Callable | None = None
    #: the position id of the call's first token (PaliGemma's positions are 1-indexed: no token has rotary angle 0)
    first_position: int = 0
    #: the attention implementations the wrapper builds under, where its vision side takes fewer than its text
    #: family's loads (Apertus 1.5's VQ image tokenizer has no sdpa, GOT-OCR 2's vision encoder neither)
    loads: tuple[str, ...] | None = None
    #: why transformers' own forward of this wrapper cannot run (then it is refused with this reason, and a test
    #: checks that the forward still fails, so that the day it runs the declaration is served)
    broken: str | None = None
    #: the text configs' model types served, where the wrapper's config also takes others its text family is not
    #: (BLIP-2's Flan-T5 language models, encoder-decoders): a config with another is refused
    text_types: tuple[str, ...] = ()
    #: why a text-only call cannot run (BLIP-2's forward runs its vision side on every call): the contract is then
    #: checked on calls with an image only, and a test checks that a text-only forward still fails
    image_required: str | None = None
    #: native path of a module whose output the language model adds to the merged embeddings before its first block
    #: (BLIP-2's OPT: its learned positions), so that layers[0].layer_input is the merged embeddings plus it
    added_before_layers: str | None = None
    #: the page's account of the language stack, where the text family's docstring is not exactly it (Chameleon's
    #: blocks are Qwen3's but for its layer-normed query and key heads)
    language: str | None = None
    #: (config) -> the blocks before which the language model adds image rows at the image positions, where the image
    #: enters inside the stack, not at the input (Granite 4 Vision's deepstack): inputs_embeds has zeros there, and
    #: image_features are the rows added before the first of those blocks
    injected: Callable | None = None
    #: (config) -> why this config is not served, or None (Chameleon's swin_norm blocks)
    refuses: Callable | None = None
    #: sites where the wrapper's values differ from its text family's (by value name), applied last
    sites: dict = field(default_factory=dict)


class ImageRows(Same):
    """The features as the merge takes them (per image, or already flat) seen as one row per image position."""

    def view(self, native, model):
        return native.reshape(-1, native.shape[-1])

    def inverse(self, value, like, model):
        return value.reshape(like.shape)


IMAGE_ROWS = ImageRows()


def merge_host(model, wrapper: Wrapper):
    """The envoy of the module whose forward places the image features into the stream."""
    return _walk(model, wrapper.merge)


def _image_mask_site(wrapper: Wrapper):
    def site(context):
        token = getattr(context.module.config, wrapper.image_token)
        return Derived(
            Read(Own("input"), Argument(0, "input_ids")), lambda ids: ids == token,
            description=f"input_ids == config.{wrapper.image_token} ({token}): the image placeholder positions, "
                        f"where {type(context.module).__name__} places the image features")
    return site


def _token_embeddings(site, family: str, injected: bool = False):
    """The text family's token_embeddings site, saying what it is on a wrapper."""
    text = ("The embedding module's output, the image placeholders' own embeddings included: the wrapper places "
            "image_features at image_mask after it, so layers[0].layer_input is this with them merged")
    if injected:
        text = ("The embedding module's output, the image placeholders' own embeddings included: the wrapper zeroes "
                "them at image_mask after it, and the image rows are added there inside the stack, before the blocks "
                "it names")
    if callable(site):  # chosen per config (OPT's, projected or not): said of whichever it is
        return lambda context: _token_embeddings(site(context), family, injected)
    if not isinstance(site, Read):
        return site
    # the family's own sentence up to its first clause: what the module computes (what it says of layers[0] is
    # the wrapper's to say)
    clause = (site.description or "").split(";")[0]
    own = f" (on {family}: {clause[0].lower()}{clause[1:]})" if clause else ""
    return dataclasses.replace(site, description=text + own)


@dataclass
class WrapperFamily(Family):
    """A text family served inside a wrapper: its sites, its renames under the language model's path."""

    wrapper: Wrapper = None
    text: Family = None

    @property
    def groups(self) -> tuple[str, ...]:
        return (*self.text.groups, "image")

    @property
    def doc(self) -> str:
        """The wrapper's own note, then its text family's module docstring (the language stack's arithmetic)."""
        head = f"{self.wrapper.title} ({self.wrapper.classes[0]})."
        language = self.wrapper.language or f"Its language model is {self.text.name}'s: {self.text.doc}"
        return f"{head}\n\n{self.wrapper.note}\n\n{language}".strip()

    def served_config(self, config):
        """The text config the language model runs on: what availability and dimensions are read from."""
        return config.get_text_config() if hasattr(config, "get_text_config") else config


def _renamed(wrapper: Wrapper, text: Family) -> dict:
    rename = {}
    for key, alias in text.all_rename.items():
        # a key under the base model moves under the language model; a key named from inside a block stays
        if isinstance(key, str) and key.startswith(TEXT_PREFIX):
            key = f"{wrapper.language_model}.{key[len(TEXT_PREFIX):]}"
        rename[key] = alias
    if wrapper.lm_head != "lm_head":
        rename[wrapper.lm_head] = "lm_head"
    for path in wrapper.vision:
        rename[path] = path.rsplit(".", 1)[-1]
    return rename


def family_of(wrapper: Wrapper) -> WrapperFamily:
    """The family serving ``wrapper``: the text family's, renamed under the language model, with the image values."""
    text = family_named(wrapper.text_family)
    shared = {f.name: getattr(text, f.name) for f in dataclasses.fields(Family)}
    token = text.sites.get("token_embeddings") or COMMON_SITES["token_embeddings"]
    sites = {
        **text.sites,
        "token_embeddings": _token_embeddings(token, text.name, wrapper.injected is not None),
        "image_features": Read(
            dataclasses.replace(wrapper.merge_call, child=wrapper.merge or None), wrapper.features_argument, IMAGE_ROWS,
            # a language model that scales its inputs_embeds before the first block (HyperCLOVA X's
            # embedding_multiplier) scales the merged image rows with the token rows: the stream holds the product
            scale=token.scale if isinstance(token, Read) else None,
            description="The projected image features as the wrapper places them into the stream, one row per "
                        "image position" + (", times the scale the language model gives every embedding row"
                                            if isinstance(token, Read) and token.scale else "")),
        "image_mask": _image_mask_site(wrapper),
        **wrapper.sites,
    }
    shared.update(
        name=wrapper.name, model_types=wrapper.model_types, summary=wrapper.summary or text.summary,
        rename=_renamed(wrapper, text), sites=sites,
        checkpoints=wrapper.checkpoints, tiny=wrapper.tiny, variants={}, module=importlib.import_module(
            f"{__name__}.declarations"),
        readout=text.readout if wrapper.readout is None else wrapper.readout,
        loads=text.loads if wrapper.loads is None else wrapper.loads,
    )
    return WrapperFamily(**shared, wrapper=wrapper, text=text)


def declared() -> tuple[Wrapper, ...]:
    """Every declaration: declarations.py's, then those of the modules beside it (which borrow its recipe parts)."""
    from .declarations import WRAPPERS
    from .llava_kin import LLAVA_KIN
    from .own_text import OWN_TEXT
    from .text_kin import TEXT_KIN
    from .vq_tokens import VQ_TOKENS

    return (*WRAPPERS, *OWN_TEXT, *LLAVA_KIN, *VQ_TOKENS, *TEXT_KIN)


@lru_cache(maxsize=None)
def wrapper_registry() -> dict[str, WrapperFamily]:
    """Every served wrapper, by name."""
    return {w.name: family_of(w) for w in declared() if w.broken is None}


def every_family() -> dict:
    """Every family that names checkpoints and has a page: the text families and the wrappers, by name."""
    from ..family import registry

    return {**registry(), **wrapper_registry()}


def auto_class(family):
    """The transformers auto class that builds a family's models: a wrapper's own, vision side included."""
    from transformers import AutoModelForCausalLM, AutoModelForImageTextToText

    return AutoModelForImageTextToText if getattr(family, "wrapper", None) is not None else AutoModelForCausalLM


def wrapper_for(config, architecture: str | None = None) -> WrapperFamily | None:
    """The wrapper serving a config, or None; a model type a text family also claims (mllama) is the wrapper's
    only when the class is the wrapper's."""
    model_type = getattr(config, "model_type", None)
    architecture = architecture or next(iter(getattr(config, "architectures", None) or []), None)
    from ..families import _index

    claimed = model_type in _index.MODEL_TYPES

    def ours(wrapper):  # the class decides where it is known; a type no text family claims is the wrapper's
        return model_type in wrapper.model_types and (
            architecture in wrapper.classes if architecture is not None else not claimed)

    for wrapper in declared():
        if ours(wrapper) and wrapper.broken is None:
            _check_text_type(wrapper, config, architecture)
            return wrapper_registry()[wrapper.name]
        if ours(wrapper):
            raise UnknownArchitecture(f"{architecture or model_type} (model_type {model_type!r}) is not served: "
                                      f"{wrapper.broken}")
    reason = not_served().get(model_type)
    if reason is not None and (architecture == _wrapper_class(model_type) or (architecture is None and not claimed)):
        raise UnknownArchitecture(
            f"{architecture or model_type} (model_type {model_type!r}) is an image-text-to-text model nnterp does not "
            f"serve: {reason} (FAMILIES.md lists every such type with its reason)")
    return None


def _check_text_type(wrapper: Wrapper, config, architecture: str | None) -> None:
    reason = wrapper.refuses(config) if wrapper.refuses is not None else None
    if reason is not None:
        raise UnknownArchitecture(f"{architecture or wrapper.classes[0]} is not served with this config: {reason}")
    text_type = getattr(config.get_text_config(), "model_type", None)
    if wrapper.text_types and text_type not in wrapper.text_types:
        raise UnknownArchitecture(
            f"{architecture or wrapper.classes[0]} is not served with a language model of type {text_type!r}: nnterp "
            f"serves {wrapper.title} with language models of type {' or '.join(map(repr, wrapper.text_types))} only, "
            f"through the {wrapper.text_family} family")


def _wrapper_class(model_type: str) -> str | None:
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    return MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.get(model_type)


def not_served() -> dict[str, str]:
    """Every image-text-to-text type not served, with its reason: the listed ones and the declared but broken."""
    from .declarations import NOT_SERVED

    broken = {t: w.broken for w in declared() if w.broken for t in w.model_types}
    return {**NOT_SERVED, **broken}


class _NotACausalLM:
    """Drops the text-generation pipeline's 'is not supported for text-generation' record."""

    def filter(self, record) -> bool:
        return "is not supported for text-generation" not in record.getMessage()


@contextlib.contextmanager
def quiet_text_pipeline():
    logger = logging.getLogger("transformers.pipelines.base")
    quiet = _NotACausalLM()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def has_image(model, inputs) -> bool:
    """Whether a call's inputs carry an image (the wrapper's own image inputs, by name)."""
    return isinstance(inputs, dict) and any(inputs.get(name) is not None for name in model.family.wrapper.image_inputs)


def _receiver(wrapper: Wrapper) -> str:
    """Native path of the module the wrapper hands the merged embeddings to (inputs_embeds): its language model, or
    the whole CausalLM holding it where the head is the language model's own (BLIP-2's language_model); the merge
    module itself where the language model merges the image (Chameleon's)."""
    return wrapper.lm_head.rsplit(".", 1)[0] if "." in wrapper.lm_head else wrapper.language_model


def check_image(model, inputs, report, base) -> None:
    """The contract where the image enters the stream, on a call with an image: image_mask marks the placeholders,
    image_features has a row per image position, the embeddings the language model receives (its inputs_embeds) are
    token_embeddings with image_features merged at image_mask, layers[0].layer_input is them (plus what the language
    model adds before its first block, where the wrapper names it; not checked where the residual is several
    streams), and an edit of image_features reaches the logits while a read leaves them bit-identical. On a
    text-only call: image_mask is all False and image_features is not computed."""
    import torch

    from ..conformance import _check_layout, _close, _diff, _logits_after

    wrapper = model.family.wrapper
    dtype = next(model._module.parameters()).dtype
    # a multi-stream residual has no one layers[0].layer_input: what enters is the language model's inputs_embeds
    one_stream = model.layers[0]._nnterp_site("layer_input").served
    # a language model that merges the image itself (ChameleonModel) receives no inputs_embeds: its merge's output
    merges_itself = wrapper.injected is None and _receiver(wrapper) == wrapper.merge
    merged_call = dataclasses.replace(wrapper.merge_call, key="output", child=wrapper.merge or None)
    # where the image enters inside the stack: the first block it is added before
    first = min(wrapper.injected(model._module.config)) if wrapper.injected is not None else None
    with model.trace(inputs):
        mask = model.image_mask.save()
        embedded = model.token_embeddings.save()
        if first is not None:  # the image rows are added inside the language model: after it receives its input
            received = _walk(model, _receiver(wrapper)).inputs[1]["inputs_embeds"].save()
        if has_image(model, inputs):
            features = model.image_features.save()
        if not merges_itself and first is None:
            received = _walk(model, _receiver(wrapper)).inputs[1]["inputs_embeds"].save()
        elif merges_itself and has_image(model, inputs):  # what the merge returns is what the blocks receive
            received = merged_call.target(model).output.save()
        if one_stream and wrapper.added_before_layers:
            added = _walk(model, wrapper.added_before_layers).output.save()
        if one_stream:
            entering = model.layers[0].layer_input.save()
        if first is not None and has_image(model, inputs):
            before = model.layers[first - 1].layer_output.save() if first > 0 else None
            injected = model.layers[first].layer_input.save()
    # a language model that scales every inputs_embeds row before its first block (HyperCLOVA X's
    # embedding_multiplier) serves token_embeddings and image_features with that scale: compare them with the product
    if merges_itself and not has_image(model, inputs):
        received = embedded  # no image: the forward makes no merge, and the blocks receive the embeddings
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
    label = "model.image_features"
    read = _logits_after(model, inputs, lambda: model, "image_features", "read")
    report.add("a read leaves logits bit-identical", label, torch.equal(read, base), f"max diff {_diff(read, base):.3g}")
    inplace = _logits_after(model, inputs, lambda: model, "image_features", "inplace")
    assigned = _logits_after(model, inputs, lambda: model, "image_features", "assign")
    report.add("in-place edit == assignment", label, torch.equal(inplace, assigned) or _close(inplace, assigned),
               f"max diff {_diff(inplace, assigned):.3g}")
    report.add("a zeroing edit reaches the logits", label, not torch.equal(inplace, base))


def table_section(cells_of) -> list[str]:
    """The families table's wrapper section: a row per served wrapper (its tiny model's support(), with the image
    values), then every image-text-to-text type of transformers not served, with its reason. ``cells_of(model,
    names)`` gives the table's cells for a model."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES as MAPPING

    from .. import tiny
    from ..vocabulary import IMAGE_VALUES, VALUES

    served = wrapper_registry()
    types = {t for family in served.values() for t in family.model_types}
    unserved = not_served()
    total = len(MAPPING)
    names = [spec.name for spec in (*VALUES, *IMAGE_VALUES)]
    header = ["wrapper", "model class", "text family", "✓", "⚠︎", "—", *names]
    lines = [
        "", "## Wrappers: image-text-to-text models", "",
        f"{len(types & set(MAPPING))} of the {total} image-text-to-text model types of transformers "
        f"(MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES) are served through their language model's family: the text "
        "family's values on the language stack at every position, image positions included, and where the image "
        "enters the stream (`image_features`, `image_mask`). Each row is the wrapper's tiny model (a one-layer "
        "vision tower), checked by the contract on a text-only call and on a call with an image; "
        f"{len(unserved)} are listed below with their reason.", "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for name, family in served.items():
        model = tiny.load(name)
        counts = model.support().counts()
        also = [t for t in family.model_types if t != name]
        label = name + (f" ({', '.join(also)})" if also else "")
        lines.append(f"| {label} | {type(model._module).__name__} | {family.text.name} | {counts['served']} | "
                     f"{counts['conditioned']} | {counts['unavailable']} | " + " | ".join(cells_of(model, names)) + " |")
    lines += ["", "### Image-text-to-text types not served", ""]
    for model_type in sorted(set(MAPPING) - types):
        reason = unserved.get(model_type, "not classified")
        lines.append(f"- **{model_type}** ({MAPPING[model_type]}): {reason}")
    return lines
