"""A family's config class and the checkpoint its page shows: what the pages, the derived notes and the real-config
run all build from, so it sits below each of them."""

from __future__ import annotations

import re

import transformers
from transformers import AutoConfig


def config_class(family):
    """The transformers config class the family's checkpoints load with."""
    name = (family.tiny or {}).get("config_class")
    if name:
        return getattr(transformers, name)
    return type(AutoConfig.for_model(family.model_types[0]))


def reproduced_checkpoint(config_cls) -> str | None:
    """The checkpoint a config class's docstring says its defaults reproduce."""
    match = re.search(r"similar configuration to that of the\s*\[([^\]]+)\]", config_cls.__doc__ or "")
    return match.group(1) if match else None


def representative(family):
    """The checkpoint the page's printout and config show: the family's first whose config facts name their source
    and give its sizes (a checkpoint whose config.json no copy was found of, or whose partial record lacks its depth,
    width or vocabulary, would print the class's defaults under its name)."""
    return next((checkpoint for checkpoint in family.checkpoints
                 if sourced(checkpoint) and sized(checkpoint) and ids_fit(family, checkpoint)), None)


_FIT: dict = {}


def ids_fit(family, checkpoint) -> bool:
    """Whether the config the class builds from the facts has its special token ids within its vocabulary: a record
    that leaves them out (they shape nothing) gets the class's defaults, which may point past a smaller vocabulary
    (GLM-OCR's text config under Glm4Config), and then the model does not build."""
    key = (family.name, checkpoint.repo)
    if key not in _FIT:
        import copy
        import warnings

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                text = config_class(family)(**copy.deepcopy(checkpoint.config)).get_text_config()
            rows = getattr(text, "vocab_size", None)
            ids = [getattr(text, name, None) for name in ("pad_token_id", "bos_token_id", "eos_token_id")]
            _FIT[key] = not isinstance(rows, int) or all(not isinstance(i, int) or i < rows for i in ids)
        except Exception:
            _FIT[key] = False
    return _FIT[key]


#: Config keys each size is read from: where the facts give none of them, the size is the class's default.
SIZE_KEYS = {"blocks": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
             "hidden": ("hidden_size", "n_embd", "d_model"),
             "heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
             "vocab": ("vocab_size", "n_vocab"),
             "width": ("intermediate_size", "n_inner", "ffn_hidden_size", "moe_intermediate_size", "d_inner",
                       "ffn_config", "expand", "intermediate_ratio", "mlp_ratio", "ffn_dim")}


def gives(facts: dict, keys) -> bool:
    """Whether the facts give one of ``keys``, at the top, in a text config or in DBRX's nested configs."""
    held = [facts, facts.get("text_config") or {}, facts.get("attn_config") or {}, facts.get("ffn_config") or {}]
    return any(key in holder for holder in held if isinstance(holder, dict) for key in keys)


def sized(checkpoint) -> bool:
    """Whether a checkpoint's record gives its depth, width and vocabulary (a whole record gives what it has: a key
    the release lacks is the class's default there too)."""
    return not checkpoint.partial or all(gives(checkpoint.config, SIZE_KEYS[name])
                                         for name in ("blocks", "hidden", "vocab"))


def sourced(checkpoint) -> bool:
    """Whether a checkpoint's recorded facts name the copy of its config.json they were read from: only then does a
    page state a number of it."""
    return bool(checkpoint.config) and bool(checkpoint.source) and not checkpoint.not_found


def released_file(checkpoint) -> dict:
    """The config.json as released where its whole copy is recorded, else the recorded facts (the keys of it that
    shape the model), ``dtype`` under its file name ``torch_dtype`` too."""
    whole = dict(checkpoint.released or {})
    facts = dict(checkpoint.config)
    if "dtype" in facts and "torch_dtype" not in whole and "dtype" not in whole:
        whole["torch_dtype"] = facts["dtype"]
    return {**facts, **whole}


#: Keys transformers 5 no longer keeps on a model config (generation settings and legacy flags): not the model's.
GENERATION_KEYS = frozenset({
    "bad_words_ids", "begin_suppress_tokens", "diversity_penalty", "do_sample", "early_stopping",
    "encoder_no_repeat_ngram_size", "length_penalty", "max_length", "min_length", "no_repeat_ngram_size",
    "num_beam_groups", "num_beams", "num_return_sequences", "output_scores", "remove_invalid_values",
    "repetition_penalty", "return_dict_in_generate", "suppress_tokens", "temperature", "top_k", "top_p", "typical_p",
    "forced_bos_token_id", "forced_eos_token_id", "exponential_decay_length_penalty", "chunk_size_feed_forward",
    "tf_legacy_loss", "use_bfloat16", "torchscript", "pruned_heads", "tie_encoder_decoder", "is_decoder",
    "add_cross_attention", "cross_attention_hidden_size", "finetuning_task", "prefix", "problem_type",
    "tokenizer_class", "task_specific_params", "sep_token_id", "decoder_start_token_id", "return_dict",
    "is_encoder_decoder", "output_attentions", "output_hidden_states", "id2label", "label2id", "model_type",
    "max_new_tokens", "min_new_tokens", "num_beam_hyps_to_keep", "guidance_scale"})


def _read(built, path):
    """The built config's value at ``path`` (attributes, sub-configs and dicts), or a KeyError where it has none."""
    found = built
    for key in path:
        if isinstance(found, dict):
            if key not in found:
                raise KeyError(key)
            found = found[key]
        else:
            try:
                found = getattr(found, key)
            except AttributeError as error:
                if type(error) is not AttributeError:  # a per-layer attribute a global read refuses (Gemma 4)
                    raise
                raise KeyError(key) from None
    return found


def _holds(built, path) -> bool:
    try:
        _read(built, path)
        return True
    except KeyError:
        return False


def _leaves(facts: dict, path=()):
    for key, value in facts.items():
        if isinstance(value, dict) and value and key not in ("rope_scaling", "rope_parameters"):
            yield from _leaves(value, (*path, key))
        else:
            yield (*path, key), value


def _bases(built) -> set:
    """The rotary bases the modeling code reads: rope_parameters' (per layer type too), of the text config."""
    text = built.get_text_config() if hasattr(built, "get_text_config") else built
    params = getattr(text, "rope_parameters", None) or {}
    if params and all(isinstance(v, dict) for v in params.values()):
        return {v.get("rope_theta") for v in params.values()} - {None}
    return {params["rope_theta"]} if "rope_theta" in params else set()


def class_differences(family, checkpoint) -> list[dict]:
    """What the family's config class does to a checkpoint's recorded config.json facts: each key (nested ones
    included) that the built config does not hold as released, and each released rotary base the modeling code does
    not read (it reads ``rope_parameters``): {"path", "released", "built", "kind"}, kind "dropped" (the built config
    has no such key), "changed" (it holds another value) or "base ignored"."""
    import copy
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = config_class(family)(**copy.deepcopy(checkpoint.config))
    found = []
    text = built.get_text_config() if hasattr(built, "get_text_config") else built
    params = dict(getattr(text, "rope_parameters", None) or {})
    # the values transformers 5 moves into rope_parameters, per layer type too (Gemma 3's rope_local_base_freq)
    moved = [v for p in [params, *[v for v in params.values() if isinstance(v, dict)]] for v in p.values()]
    for path, value in _leaves(checkpoint.config):
        if path[-1] in ("architectures", "dtype") or path[-1] in ("rope_scaling", "rope_parameters", "rope_theta") \
                or path[-1] in GENERATION_KEYS or value is None:
            continue
        try:
            held = _read(built, path)
        except KeyError:
            # a rotary key transformers 5 moves into rope_parameters (partial_rotary_factor, rotary_emb_base)
            if value not in moved:
                depth = next(i for i in range(1, len(path) + 1) if not _holds(built, path[:i]))
                found.append({"path": path, "released": value, "built": None, "kind": "dropped",
                              "missing": path[:depth]})
            continue
        except Exception:  # a per-layer attribute a global read refuses (Gemma 4): the config holds it per layer
            continue
        if hasattr(held, "to_dict") or isinstance(value, (list, dict)):
            continue
        if held != value and not (isinstance(held, (list, tuple)) and list(held) == value):
            found.append({"path": path, "released": value, "built": held, "kind": "changed"})
    bases = _bases(built)
    for path, value in _leaves(checkpoint.config):
        if path[0] in ("vision_config", "audio_config"):  # a tower's own rotary, not the language model's
            continue
        if path[-1] == "rope_theta" and isinstance(value, (int, float)) and bases and float(value) not in bases:
            found.append({"path": path, "released": value, "built": sorted(bases)[0] if len(bases) == 1 else
                          sorted(bases), "kind": "base ignored"})
    return found


#: A base no class defaults to, to probe where a class reads it from.
PROBE_BASE = 123457.0


def ignored_nested_bases(cls) -> list[str]:
    """The attention sub-configs of a config class that take a ``rope_theta`` the rotary then does not read (it reads
    ``rope_parameters``): DbrxConfig's attn_config, which keeps the key as an extra one. Probed by building the
    class with a base no default has."""
    found = []
    for name in getattr(cls, "sub_configs", None) or {}:
        if not re.search(r"attn|attention", name):  # the attention's own sub-config, where a base would sit
            continue
        try:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                built = cls(**{name: {"rope_theta": PROBE_BASE}})
            held = getattr(getattr(built, name), "rope_theta", None)
        except Exception:
            continue
        if held == PROBE_BASE and _bases(built) and PROBE_BASE not in _bases(built):
            found.append(name)
    return found
