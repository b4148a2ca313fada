"""Tiny random models of every family, with a tokenizer built locally: for tests, demos and checks.

Nothing here touches a model hub. The tokenizer is a byte-level BPE trained in memory on a few
sentences (so any text, any script, tokenizes); a family's recipe (its config class and small
overrides) builds the model with a fixed seed.
"""

from __future__ import annotations

import re
from functools import lru_cache

import torch

from nnterp.declare.errors import UnknownArchitecture
from nnterp.declare.family import Family
from nnterp.model import StandardizedTransformer
from nnterp.registry import auto_class, by_name

CORPUS = (
    "The Eiffel Tower is in the city of Paris. The Colosseum is in the city of Rome. "
    "Hello world. def f(x):\n    return x + 1\n東京は日本の首都です。"
)


@lru_cache(maxsize=None)
def _trained_tokenizer(vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<|endoftext|>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator([CORPUS] * 4, trainer)
    return tokenizer.to_str()


def tokenizer(vocab_size: int = 300):
    """A fast byte-level BPE tokenizer of at most ``vocab_size`` tokens, built locally."""
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer.from_str(_trained_tokenizer(vocab_size)),
        bos_token="<|endoftext|>", eos_token="<|endoftext|>", pad_token="<|endoftext|>",
    )


def _served(family: "str | Family") -> Family:
    """The family itself, or the one a name names."""
    return family if isinstance(family, Family) else by_name(family)


def config(family: "str | Family", **overrides):
    """The family's tiny config (its recipe), with ``overrides`` applied; ``family`` a name or the family itself.
    The recipe's ``config_class`` is the name of a transformers config class, or the class itself (a model type of
    one's own, registered with transformers' AutoConfig)."""
    import transformers

    served = _served(family)
    recipe = served.tiny
    if not recipe:
        raise UnknownArchitecture(f"the {served.name} family declares no tiny recipe: give it "
                                  f"tiny={{'config_class': ..., 'overrides': {{...}}}}")
    config_class = recipe["config_class"]
    if isinstance(config_class, str):
        config_class = getattr(transformers, config_class)
    return config_class(**{**recipe["overrides"], **overrides})


def build(family: "str | Family", attn_implementation: str | None = None, seed: int = 0, dtype=torch.float32,
          **overrides):
    """A tiny random ``transformers`` model of ``family`` (a name, found once, or the family) in eval mode, and its
    tokenizer."""
    served = _served(family)
    cfg = config(served, **overrides)
    torch.manual_seed(seed)
    kwargs = {"attn_implementation": attn_implementation} if attn_implementation else {}
    model = auto_class(served, cfg).from_config(cfg, dtype=dtype, **kwargs).eval()
    _perturb_constants(model)
    return model, tokenizer(cfg.get_text_config().vocab_size)


def image_call(family: str, text: str = "The Eiffel Tower is", seed: int = 0) -> dict:
    """The wrapper's own inputs for a call with one tiny image: the text's ids with the image's placeholders
    inserted after the first token, and the image inputs its tiny recipe names (random, seeded)."""
    wrapper_family = by_name(family)
    recipe, wrapper = wrapper_family.tiny["image"], wrapper_family.wrapper
    cfg = config(wrapper_family)
    ids = tokenizer(cfg.get_text_config().vocab_size)(text, return_tensors="pt")["input_ids"]
    # a placeholder no config field names (IDEFICS's <image> is a tokenizer token): the recipe's own id
    token = recipe["token"] if "token" in recipe else getattr(cfg, wrapper.image_token)
    placeholders = torch.full((1, recipe["tokens"]), token, dtype=ids.dtype)
    around = [torch.tensor([[t]]) for t in recipe.get("around", ())]
    pieces = [ids[:, :1], *around[:1], placeholders, *around[1:], ids[:, 1:]]
    input_ids = torch.cat(pieces, dim=1)
    generator = torch.Generator().manual_seed(seed)
    inputs = {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
    if "types" in recipe:  # the processor's token types: 1 at the image positions (Qwen's multimodal rotary)
        inputs[recipe["types"]] = (input_ids == token).long()
    if "rows" in recipe:  # a processor's mask of the images each row attends: from the first image position on
        name, *per_row = recipe["rows"]  # (name, images, tiles) for Mllama's, (name, images) for IDEFICS's
        first = int((input_ids[0] == token).nonzero()[0])
        inputs[name] = torch.zeros((*input_ids.shape, *per_row), dtype=torch.long)
        inputs[name][:, first:] = 1
    for name, value in recipe.items():
        if name in ("tokens", "around", "types", "rows", "token"):
            continue
        inputs[name] = torch.randn(value, generator=generator) if "pixel_values" in name else torch.tensor(value)
    return inputs


def _perturb_constants(model) -> None:
    """Give constant parameters (zero biases, unit norm weights) some noise, so that checks have teeth:
    a zero dense_bias or norm bias would make a sum indistinguishable from its term."""
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.is_floating_point() and parameter.numel() > 0:
                flat = parameter.detach().flatten()
                if bool((flat == flat[0]).all()):
                    noise = torch.randn(parameter.shape, generator=generator, dtype=torch.float32)
                    parameter.add_((0.1 * noise).to(parameter.dtype))


def load(family: str, attn_implementation: str | None = None, seed: int = 0, **overrides):
    """A ``StandardizedTransformer`` over a tiny random model of ``family``."""
    model, tok = build(family, attn_implementation, seed, **overrides)
    return StandardizedTransformer(model, tokenizer=tok)


# --------------------------------------------------------------------------- the moved recipe
#: config keys holding block indices (not one entry per block): moved as a mask over the blocks
INDEX_LISTS = ("mlp_only_layers", "moe_layers", "cross_attention_layers", "full_attn_idxs")
#: a per-block list the config derives from another key: (the key the config reads, entries to its value)
DERIVED_LISTS = {"attention_layers": ("attention_types", lambda kinds: [[[kind], 1] for kind in kinds])}
#: integer keys naming how many blocks come first (dense blocks before the sparse ones) or last (shared caches)
FIRST_OR_LAST = ("first_k_dense_replace", "num_dense_layers", "num_kv_shared_layers", "max_window_layers",
                 "prefix_dense_sliding_window_pattern")
#: integer keys counting the blocks of a section whose sum is the depth: the new block joins the last section
LAST_SECTION = ("n_output_layers",)
#: integer keys naming a period of special blocks (one in every p); *_offset keys pair with the *_period beside them
PERIOD = re.compile(r"(_period|_interval|_step|sliding_window_pattern|_every_n_layers)$")
#: keys whose name says one entry per block, though transformers' default does not follow the depth
PER_BLOCK = re.compile(r"(layer|block)_?types?$|_layers$|per_layer")


#: the keys a config may count its blocks by (the attribute_map's target first)
DEPTH_KEYS = ("num_hidden_layers", "num_layers", "n_layers", "n_layer")


def _depth_key(config, given: dict | None = None) -> str:
    """The key counting the config's blocks: the one the recipe sets (LongCat's num_layers counts blocks of two
    sublayers, HRM's num_hidden_layers is rewritten from the recipe's per-stack count), else the one num_hidden_layers
    maps to."""
    mapped = type(config).attribute_map.get("num_hidden_layers", "num_hidden_layers")
    return next((key for key in (mapped, *DEPTH_KEYS) if key in (given or {})), mapped)


def _moved_blocks(entries, depth: int):
    """One more block than ``entries`` describe, the pattern reversed ([a, b] -> [b, a, b]), or turned by one
    where it reads the same reversed ([a, b, a] -> [b, a, a, b])."""
    reversed_entries = list(entries)[::-1]
    if reversed_entries == list(entries):
        reversed_entries = list(entries)[1:] + list(entries)[:1]
    moved = [reversed_entries[i % depth] for i in range(depth + 1)]
    return "".join(moved) if isinstance(entries, str) else moved


def _per_block_keys(config, values: dict, depth: int) -> list[str]:
    """The keys of ``config`` holding one entry per block: a list (or a pattern string) as long as the depth, which
    either follows the depth in transformers' own default or is named per block."""
    probe_depth = depth + 5
    try:
        probe = type(config)(**{_depth_key(config): probe_depth}).to_dict()
    except Exception:  # a config class whose defaults do not build at another depth: names decide
        probe = {}
    keys = []
    for key, value in values.items():
        if key in INDEX_LISTS or not isinstance(value, (list, tuple, str)) or len(value) != depth:
            continue
        follows_depth = isinstance(probe.get(key), (list, tuple, str)) and len(probe[key]) == probe_depth
        if follows_depth or (not isinstance(value, str) and PER_BLOCK.search(key)):
            keys.append(key)
    return keys


def _attribute(config, key: str, serialized):
    try:
        return getattr(config, key, serialized)
    except Exception:  # a heterogeneous config refuses a global read of a per-layer attribute
        return serialized


def moved_overrides(family: str) -> dict:
    """The overrides of the family's moved recipe: one block more than its tiny recipe, and every per-block pattern
    of its config (per-block lists, block indices, periods, offsets, first-k counts) moved so the special blocks
    sit elsewhere. Derived from the tiny config, for any family; a config nested under text_config is moved
    there."""
    top = config(family)
    text = top.get_text_config()
    depth = getattr(text, "num_hidden_layers", None)
    if not isinstance(depth, int):
        raise ValueError(f"the {family} config has no num_hidden_layers to move")
    nested = None if text is top else next(name for name, sub in vars(top).items() if sub is text)
    given = served_recipe(family)["overrides"]
    given = given.get(nested, {}) if nested else given
    given = given if isinstance(given, dict) else given.to_dict()
    # the attributes as the model reads them (Dory's to_dict doubles its block counts)
    values = {key: _attribute(text, key, value) for key, value in text.to_dict().items()}
    depth_key = _depth_key(text, given)
    moved: dict = {depth_key: given.get(depth_key, getattr(text, depth_key)) + 1}
    for key in _per_block_keys(text, values, depth):
        if key in DERIVED_LISTS:
            source, convert = DERIVED_LISTS[key]
            moved[source] = convert(_moved_blocks(values[key], depth))
        else:
            moved[key] = _moved_blocks(values[key], depth)
    for key in INDEX_LISTS:
        if isinstance(values.get(key), (list, tuple)) and values[key]:
            mask = _moved_blocks([i in values[key] for i in range(depth)], depth)
            moved[key] = [i for i, special in enumerate(mask) if special]
    for key, value in values.items():
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        if key in LAST_SECTION:
            moved[key] = value + 1
        elif key in FIRST_OR_LAST:
            moved[key] = min(value + 1, depth)  # one more special block, the last kind still present
        elif key.endswith("_offset") and isinstance(values.get(key[: -len("_offset")] + "_period"), int):
            period = values[key[: -len("_offset")] + "_period"]
            moved[key] = (value + 1) % period if period > 1 else value
        elif PERIOD.search(key) and 0 < value <= depth:
            moved[key] = value + 1
    return {nested: {**given, **moved}} if nested else moved


def served_recipe(family: str) -> dict:
    return by_name(family).tiny


def moved(family: str, run: bool = False) -> tuple[dict | None, str]:
    """(overrides, "") for the family's moved recipe, or (None, why) where transformers does not build it: a
    config that refuses the moved pattern, or one whose depth does not follow; with ``run``, also a model whose own
    forward refuses it (HY-V4: a shared indexer layer before any full one)."""
    try:
        overrides = moved_overrides(family)
    except (ValueError, StopIteration) as error:
        return None, str(error) or "no nested text config to move"
    text_of = lambda o: config(family, **o).get_text_config()  # noqa: E731
    try:
        built = text_of(overrides)
    except Exception as error:
        return None, f"transformers refuses the moved config: {' '.join(str(error).split())[:300]}"
    depth = config(family).get_text_config().num_hidden_layers
    if built.num_hidden_layers <= depth:
        return None, f"the depth did not grow: {built.num_hidden_layers} blocks, {depth} in the recipe"
    if run:
        model, tok = build(family, **overrides)
        try:
            with torch.no_grad():
                model(**tok("The Eiffel Tower is", return_tensors="pt"))
        except Exception as error:
            return None, f"transformers' forward refuses the moved config: {' '.join(str(error).split())[:300]}"
    return overrides, ""
