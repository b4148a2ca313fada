"""Tiny random models of every family, with a tokenizer built locally: for tests, demos and checks.

Nothing here touches a model hub. The tokenizer is a byte-level BPE trained in memory on a few
sentences (so any text, any script, tokenizes); a family's recipe (its config class and small
overrides) builds the model with a fixed seed.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from .errors import UnknownArchitecture
from .family import family_named, known_names, registry, unknown_family
from .model import StandardizedTransformer
from .wrappers import auto_class, declared, family_of, wrapper_registry

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


def _family(name: str):
    """A family (one registered at run time too) or a wrapper (a broken one too: its recipe builds the model that
    shows it), by name."""
    if name in known_names():
        return family_named(name)
    wrapper = next((w for w in declared() if w.name == name), None)
    if wrapper is not None:
        return wrapper_registry().get(name) or family_of(wrapper)
    if name in registry():  # a module dropped into nnterp/families since the index was written
        return family_named(name)
    raise UnknownArchitecture(unknown_family(name, [w.name for w in declared()]))


def config(family: str, **overrides):
    """The family's tiny config (its recipe), with ``overrides`` applied. The recipe's ``config_class`` is the
    name of a transformers config class, or the class itself (a model type of one's own, registered with
    transformers' AutoConfig)."""
    import transformers

    served = _family(family)
    recipe = served.tiny
    if not recipe:
        raise UnknownArchitecture(f"the {served.name} family declares no tiny recipe: give it "
                                  f"tiny={{'config_class': ..., 'overrides': {{...}}}}")
    config_class = recipe["config_class"]
    if isinstance(config_class, str):
        config_class = getattr(transformers, config_class)
    return config_class(**{**recipe["overrides"], **overrides})


def build(family: str, attn_implementation: str | None = None, seed: int = 0, dtype=torch.float32, **overrides):
    """A tiny random ``transformers`` model of ``family`` in eval mode, and its tokenizer."""
    cfg = config(family, **overrides)
    torch.manual_seed(seed)
    kwargs = {"attn_implementation": attn_implementation} if attn_implementation else {}
    model = auto_class(_family(family), cfg).from_config(cfg, dtype=dtype, **kwargs).eval()
    _perturb_constants(model)
    return model, tokenizer(cfg.get_text_config().vocab_size)


def image_call(family: str, text: str = "The Eiffel Tower is", seed: int = 0) -> dict:
    """The wrapper's own inputs for a call with one tiny image: the text's ids with the image's placeholders
    inserted after the first token, and the image inputs its tiny recipe names (random, seeded)."""
    wrapper_family = _family(family)
    recipe, wrapper = wrapper_family.tiny["image"], wrapper_family.wrapper
    cfg = config(family)
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
