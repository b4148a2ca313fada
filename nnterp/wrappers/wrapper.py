"""A wrapper's declaration, and the family it is served as: the text family's sites under the language model's
path, with where the image enters the stream (``image_features``, ``image_mask``)."""

from __future__ import annotations

import dataclasses
import importlib
import json
from importlib import resources
from dataclasses import dataclass, field
from typing import Callable

from nnterp.declare.conventions import COMMON_SITES
from nnterp.declare.family import Checkpoint, Family, merged_checkpoints
from nnterp.declare.layouts import Same
from nnterp.declare.locations import Argument, Call, Own, Where, _walk
from nnterp.declare.writeback import Derived, Read
from nnterp.families._declared import declared as declared_family


#: The text family's native paths start with its base model's attribute on the CausalLM.
TEXT_PREFIX = "model."


def recorded_checkpoints(wrapper_name: str) -> tuple[Checkpoint, ...]:
    """The checkpoints a wrapper's data file (``wrappers/checkpoints/<name>.json``) records, in its order (none
    where it has no file): the config facts are data, kept out of the declarations."""
    found = resources.files(__package__).joinpath("checkpoints", f"{wrapper_name}.json")
    if not found.is_file():
        return ()
    return tuple(Checkpoint(**entry) for entry in json.loads(found.read_text())["checkpoints"])


def tiny_text(family: str, **extra) -> dict:
    """The text family's own tiny recipe, as the wrapper's text config (special ids inside its vocabulary)."""
    return {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, **declared_family(family).tiny["overrides"], **extra}


def recipe(config_class: str, image: dict, **overrides) -> dict:
    """A wrapper's tiny recipe: its config class, the config's overrides (text_config, where it is not the text
    family's own tiny recipe: ``tiny_text``) and what ``tiny.image_call`` builds a call with an image from."""
    return {"config_class": config_class, "overrides": overrides, "image": image}


@dataclass(frozen=True)
class Wrapper:
    """What an image-text-to-text model declares; the rest is its text family's."""

    name: str
    #: the page title: the model's name as researchers say it
    title: str
    #: the class names of the wrapper (a model type a text family also claims is the wrapper's only under these)
    classes: tuple[str, ...]
    #: the family serving the language stack: a text family's name, or a language stack of the wrapper's own
    #: (nnterp.wrappers.stacks: a family declared as its difference from its parent, with no CausalLM of its own)
    text_family: "str | Family"
    #: the config model types served (the wrapper's name alone, by default)
    model_types: tuple[str, ...] = ()
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
    #: checkpoints declared here, before those its data file records (wrappers/checkpoints/<name>.json)
    checkpoints: tuple[Checkpoint, ...] = ()
    #: the tiny recipe (``recipe``): config class, overrides (a one-layer vision tower; text_config, the text
    #: family's recipe unless given), and "image", what tiny.image_call builds a call from: {"tokens": placeholders,
    #: "token": their id where no config field holds it, "around": ids put before and after them, "types": a
    #: token-type input to mark them in, "rows": (name, sizes...) of a mask of the images each row attends,
    #: "pixel_values": shape, other inputs}
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
    #: where the language model writes the image rows in place, where it merges them itself from the input_ids and
    #: image_embeds it is handed, not from inputs_embeds (Kosmos-2 sets inputs_embeds[image_embeds_position_mask] on
    #: embed_tokens' output): after the call this holds the merged embeddings its blocks are built from
    merged_in_place: "Where | None" = None
    #: (config) -> why this config is not served, or None (Chameleon's swin_norm blocks)
    refuses: Callable | None = None
    #: sites where the wrapper's values differ from its text family's (by value name), applied last
    sites: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.model_types:
            object.__setattr__(self, "model_types", (self.name,))

    def but(self, **changes) -> "Wrapper":
        """This declaration with ``changes``: another wrapper of the same architecture (its own name, and so model
        type, unless given)."""
        return dataclasses.replace(self, **{"model_types": (), **changes})


class ImageRows(Same):
    """The features as the merge takes them (per image, or already flat) seen as one row per image position."""

    def view(self, native, model):
        # a flat source (Molmo 2 scatters inputs_embeds[mask] + features.reshape(-1)) is its rows end to end
        return native.reshape(-1, native.shape[-1] if native.dim() > 1 else model.hidden_size)

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


def _tiny(wrapper: Wrapper, text: Family) -> dict:
    """The wrapper's tiny recipe, with the text family's own as text_config where the wrapper gives none and its
    config class nests one (Chameleon's is flat: its overrides hold the text sizes)."""
    import transformers

    config_class = getattr(transformers, wrapper.tiny["config_class"], None)
    if "text_config" in wrapper.tiny["overrides"] or "text_config" not in getattr(config_class, "sub_configs", {}):
        return wrapper.tiny
    overrides = {"text_config": tiny_text(text.name), **wrapper.tiny["overrides"]}
    return {**wrapper.tiny, "overrides": overrides}


def family_of(wrapper: Wrapper, text: Family) -> WrapperFamily:
    """The family serving ``wrapper`` through ``text``, its text family (``nnterp.registry`` finds it): the text
    family's sites renamed under the language model, with the image values."""
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
        checkpoints=merged_checkpoints(recorded_checkpoints(wrapper.name), wrapper.checkpoints),
        tiny=_tiny(wrapper, text), variants={}, module=importlib.import_module(f"{__package__}.declarations"),
        readout=text.readout if wrapper.readout is None else wrapper.readout,
        loads=text.loads if wrapper.loads is None else wrapper.loads,
    )
    return WrapperFamily(**shared, wrapper=wrapper, text=text)


def has_image(model, inputs) -> bool:
    """Whether a call's inputs carry an image (the wrapper's own image inputs, by name)."""
    return isinstance(inputs, dict) and any(inputs.get(name) is not None for name in model.family.wrapper.image_inputs)


def _receiver(wrapper: Wrapper) -> str:
    """Native path of the module the wrapper hands the merged embeddings to (inputs_embeds): its language model, or
    the whole CausalLM holding it where the head is the language model's own (BLIP-2's language_model); the merge
    module itself where the language model merges the image (Chameleon's)."""
    return wrapper.lm_head.rsplit(".", 1)[0] if "." in wrapper.lm_head else wrapper.language_model
