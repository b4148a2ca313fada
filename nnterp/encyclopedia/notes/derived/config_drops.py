"""What the config class does to a released config.json: each key it does not hold as released, and each released
rotary base the modeling code does not read (``configs.class_differences``), stated as a hazard with its snippet."""

from __future__ import annotations

from nnterp.encyclopedia.configs import PROBE_BASE, class_differences, config_class, ignored_nested_bases, sourced
from nnterp.encyclopedia.notes.derived.reading import _num

#: The most differences one note lists (the rest are counted).
SHOWN = 6


def _value(value) -> str:
    if isinstance(value, float):
        return _num(value)
    if isinstance(value, list) and len(value) > 6:
        return f"a list of {len(value)}"
    return repr(value) if isinstance(value, str) else str(value)


def _lines(repo: str, found: dict) -> list[str]:
    """The snippet lines that assert one difference on the config built from the released facts."""
    path = found["path"]
    released = f"released({repo!r})" + "".join(f"[{key!r}]" for key in path)
    if found["kind"] == "base ignored":
        return [f"assert config.get_text_config().rope_parameters['rope_theta'] == {found['built']!r} != {released}"
                "   # the rotary reads rope_parameters"]
    holder = "config" + "".join(f".{key}" for key in path[:-1])
    if found["kind"] == "dropped":  # the first level the built config lacks (a whole nested config, or one key)
        missing = found.get("missing", path)
        owner = "config" + "".join(f".{key}" for key in missing[:-1])
        return [f"assert not hasattr({owner}, {missing[-1]!r}) and {released} == {found['released']!r}"]
    return [f"assert {holder}.{path[-1]} == {found['built']!r} != {released}"]


def config_drops_note(subject) -> str | None:
    """The differences between each sourced checkpoint's config.json and the config its class builds from it."""
    cls = config_class(subject.family)
    found = []
    for checkpoint in subject.family.checkpoints:
        if not sourced(checkpoint):
            continue
        try:
            differences = class_differences(subject.family, checkpoint)
        except Exception:
            continue
        found += [(checkpoint, difference) for difference in differences
                  if not isinstance(difference["built"], list) or len(difference["built"]) <= 6]
    if not found:
        return _class_note(subject, cls)
    ignored = [pair for pair in found if pair[1]["kind"] == "base ignored"]
    if ignored:
        checkpoint, first = ignored[0]
        heading = (f"{cls.__name__} ignores {checkpoint.label}'s `{'.'.join(first['path'])}`: once built, the rotary's "
                   f"base is {_value(first['built'])}, not the released {_value(first['released'])}")
    else:
        heading = (f"{cls.__name__} does not hold {len(found)} key{'s' if len(found) != 1 else ''} of the released "
                   "config.json as released")
    said = []
    for checkpoint, difference in found[:SHOWN]:
        key = "`" + ".".join(difference["path"]) + "`"
        if difference["kind"] == "base ignored":
            said.append(f"{checkpoint.label}'s {key} is {_value(difference['released'])}, but the modeling code reads "
                        f"`rope_parameters`, which the class fills with {_value(difference['built'])}")
        elif difference["kind"] == "dropped":
            said.append(f"{checkpoint.label}'s {key} ({_value(difference['released'])}) is no attribute of the built "
                        "config, so no modeling code reads it there")
        else:
            said.append(f"{checkpoint.label}'s {key} is {_value(difference['released'])} in the file and "
                        f"{_value(difference['built'])} once built")
    more = f" ({len(found) - SHOWN} more differences are not listed.)" if len(found) > SHOWN else ""
    prose = (f"Built from a checkpoint's config.json, {cls.__name__} does not keep every key as released: "
             + "; ".join(said) + "." + more + " A model loaded with `from_pretrained` computes with the built "
             "config, so where a value differs, the model is not the one the release describes; set the value on the "
             "config before loading where it matters.")
    code = ["import copy", f"from transformers import {cls.__name__}", ""]
    for checkpoint, difference in found[:SHOWN]:
        code.append(f"config = {cls.__name__}(**copy.deepcopy(released({checkpoint.repo!r})))")
        code += _lines(checkpoint.repo, difference)
    subject.differs("config", "the config class does not keep the released config as is")
    return "\n".join([f"## {heading}", "", prose, "", "```python", *code, "```", ""])


def _class_note(subject, cls) -> str | None:
    """Where no checkpoint recorded with its source shows a difference, what the class itself ignores: a base given
    in the attention's sub-config (DbrxConfig's attn_config.rope_theta), said as the class's, with no checkpoint's
    number."""
    names = ignored_nested_bases(cls)
    if not names:
        return None
    name = names[0]
    default = cls().get_text_config().rope_parameters["rope_theta"]
    heading = f"{cls.__name__} ignores `{name}.rope_theta`: the rotary reads `rope_parameters`"
    prose = (f"{cls.__name__} keeps a `rope_theta` given in `{name}` (the place a config.json in this family's "
             "format gives the base) as an extra key, but the rotary is built from `rope_parameters`, which it fills "
             f"with its own default, {_num(float(default))}, whatever `{name}` says: a checkpoint whose config.json "
             "gives its base there is loaded rotating at that default, not at the base it was trained with. No "
             "config.json is recorded here with its source to say which base a release gives; to load one as "
             f"trained, pass its base as `rope_parameters` too. The snippet gives {cls.__name__} a base of "
             f"{_num(PROBE_BASE)}, which no class defaults to:")
    code = [f"from transformers import {cls.__name__}", "",
            f"config = {cls.__name__}({name}={{'rope_theta': {PROBE_BASE!r}}})",
            f"assert config.{name}.rope_theta == {PROBE_BASE!r}   # kept",
            f"assert config.rope_parameters['rope_theta'] == {default!r}   # but not what the rotary reads",
            f"fixed = {cls.__name__}({name}={{'rope_theta': {PROBE_BASE!r}}},",
            f"            rope_parameters={{'rope_type': 'default', 'rope_theta': {PROBE_BASE!r}}})",
            f"assert fixed.rope_parameters['rope_theta'] == {PROBE_BASE!r}"]
    subject.differs("config", f"{cls.__name__} ignores {name}.rope_theta")
    return "\n".join([f"## {heading}", "", prose, "", "```python", *code, "```", ""])
