"""What a family's derived notes are made from (``Subject``: its rows, its tiny model, its representative
checkpoint on the meta device) and each number they state of a checkpoint (``Stated``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from nnterp.declare.vocabulary import BY_NAME
from nnterp.encyclopedia.configs import config_class, representative, sourced
from nnterp.encyclopedia.rows import groups


@dataclass
class Stated:
    """A number a note states of a checkpoint, from one place: a checkpoint's recorded config.json facts (``repo``),
    or, where no recorded checkpoint of the family gives it, the config class's default (``repo`` None). The note's
    words (``on``) and its snippet's assertion (``check``) are both made from it, so the assertion fails when the
    sentence is false."""

    path: tuple            # where it sits: ("rope_theta",), ("rope_parameters", "rope_theta")
    value: object
    repo: str | None       # the checkpoint whose facts give it; None: the config class's default
    label: str             # that checkpoint's label, or the config class's name

    @property
    def on(self) -> str:
        """Who the number is: 'on Qwen3-8B' or 'by Qwen2Config's default, which no recorded config.json here sets'."""
        if self.repo:
            return f"on {self.label}"
        return f"by {self.label}'s default (no config.json recorded here gives `{self.path[-1]}`)"

    @property
    def whose(self) -> str:
        return f"{self.label}'s config.json" if self.repo else f"{self.label}'s default"

    def check(self, value=None) -> list[str]:
        """The snippet lines that assert the number (``value``: another one, for the mutation test)."""
        value = self.value if value is None else value
        path = "".join(f"[{key!r}]" for key in self.path)
        if self.repo:
            return [f"assert released({self.repo!r}){path} == {value!r}   # {self.whose}"]
        first, rest = self.path[0], "".join(f"[{key!r}]" for key in self.path[1:])
        return [f"from transformers import {self.label}",
                f"assert {self.label}().get_text_config().{first}{rest} == {value!r}   # {self.whose}"]


def _paths(paths) -> list[tuple]:
    paths = [path if isinstance(path, tuple) else (path,) for path in paths]
    return paths + [("text_config", *path) for path in paths]


def _given(checkpoint, paths) -> tuple | None:
    """(path, value) of the first of ``paths`` a sourced checkpoint's facts give as a number or a string."""
    if not sourced(checkpoint):
        return None
    for path in _paths(paths):
        value = _dig(checkpoint.config, path)
        if value is not None and not isinstance(value, (dict, list)):
            return path, value
    return None


def config_name(subject) -> str:
    return config_class(subject.family).__name__


def _dig(found, path):
    for key in path:
        if isinstance(found, dict):
            found = found.get(key)
        else:
            try:
                found = getattr(found, key, None)
            except Exception:
                return None
        if found is None:
            return None
    return found


@dataclass
class Subject:
    """What a family's derived notes are made from."""

    family: object
    rows: object
    tiny: object                 # the StandardizedTransformer of the tiny model, as the snippets run on it
    real: object = None          # the representative checkpoint on the meta device (None when not buildable)
    modules: dict = field(default_factory=dict)   # standard module name -> {"native": ..., "what": ...}
    block_kind: str = "sequential"
    sums: bool = True
    mid_sums: bool = True

    #: every number the notes state of a checkpoint, as they state it
    claims: list = field(default_factory=list)
    #: what the architecture does otherwise than Llama: (aspect, phrase), computed by the notes, not declared
    differences: list = field(default_factory=list)
    #: the aspects the notes found as Llama has them
    alike: list = field(default_factory=list)
    #: the key-value grouping of the representative checkpoint, as a tag ("Multi-query", "Grouped keys/values", ""
    #: for none; None where it was not read)
    grouping: str | None = None

    def differs(self, aspect: str, phrase: str) -> None:
        if (aspect, phrase) not in self.differences:
            self.differences.append((aspect, phrase))

    def as_llama(self, aspect: str) -> None:
        if aspect not in self.alike:
            self.alike.append(aspect)

    # ------------------------------------------------------------------ the real checkpoint
    @cached_property
    def checkpoint(self):
        """The representative checkpoint: the first whose config facts name their source."""
        return representative(self.family)

    def each(self, *paths) -> list[Stated]:
        """A number as each checkpoint whose facts name their source gives it, in the family's order (none where
        none gives it). ``paths`` as for ``stated``."""
        found = []
        for checkpoint in self.family.checkpoints:
            value = _given(checkpoint, paths)
            if value is not None:
                found.append(self._claim(Stated(value[0], value[1], checkpoint.repo, checkpoint.label)))
        return found

    def stated(self, *paths) -> Stated | None:
        """A number as a note may state it: from the representative checkpoint's recorded facts, else the config
        class's default where no checkpoint whose facts name their source gives it; None where neither does.
        ``paths``: where it may sit (a key, or a tuple of keys: a nested one such as DBRX's ("attn_config",
        "rope_theta")), a wrapper's also under its text_config."""
        if self.checkpoint is not None:
            value = _given(self.checkpoint, paths)
            if value is not None:
                return self._claim(Stated(value[0], value[1], self.checkpoint.repo, self.checkpoint.label))
        if self.checkpoint is not None and any(_given(c, paths) is not None for c in self.family.checkpoints):
            return None  # another checkpoint gives it: the class's default beside this one's name would mislead
        paths = _paths(paths)
        try:
            cls = config_class(self.family)
            default = cls().get_text_config()
        except Exception:
            return None
        for path in paths:
            if path[0] == "text_config":
                continue
            value = _dig(default, path)
            if value is not None and not isinstance(value, (dict, list)):
                return self._claim(Stated(path, value, None, cls.__name__))
        return None

    def _claim(self, stated: Stated) -> Stated:
        self.claims.append(stated)
        return stated

    @property
    def named(self) -> str:
        """How the text names the numbers' source: the checkpoint, or the config class's defaults."""
        if self.real is None:
            return "the tiny model"
        if self.checkpoint is not None:
            return self.checkpoint.label
        return f"the defaults of {type(self.real.config).__name__}"

    @property
    def config(self):
        return (self.real if self.real is not None else self.tiny).config

    def native(self, name: str) -> str:
        return self.modules.get(name, {}).get("native", name)

    def first(self) -> dict:
        return groups(self.rows)[0][1]

    def served(self, name: str, model=None) -> int | None:
        """The first block of ``model`` (the tiny one by default) that serves ``name`` under its load."""
        model = model or self.tiny
        for index in range(model.num_layers):
            try:
                if model.serves(name, index) is None:
                    return index
            except Exception:  # a block without the host
                continue
        return None

    def standard(self, *names, model=None, model_wide: bool = False) -> int | None:
        """The first block serving all ``names`` with their standard meaning (a family that redefines one,
        around a sink say, explains its own); with ``model_wide``, the first whose heads are the model's."""
        model = model or self.tiny
        for index in range(model.num_layers):
            if all(_serves(model, name, index) for name in names) and all(
                    _standard_meaning(model, name, index) for name in names) and (
                    not model_wide or not _own_heads(model, index)):
                return index
        return None


def _own_heads(model, index) -> dict:
    """The head counts block ``index`` has where they are not the model's (Inkling's sliding blocks), else {}."""
    dims = model.family.block.dims
    if dims is None:
        return {}
    own = dims(model.layers[index]._nnterp_context())
    wide = {"num_heads": model.num_heads, "num_kv_heads": model.num_kv_heads}
    return {dim: own[dim] for dim in wide if dim in own and own[dim] != wide[dim]}


def _standard_meaning(model, name, index) -> bool:
    """The value means what the vocabulary says, perhaps with a detail added ('...: normed per head by q_norm')."""
    described = _described(model, name, index) or ""
    standard = BY_NAME[name].description
    return described == standard or described.startswith(standard + ":") or described.startswith(standard + ",")


def _serves(model, name, index) -> bool:
    """Whether block ``index`` serves ``name`` on the notes' text prompts (a block a call may skip, a cross-attention
    block, runs on a call with an image only)."""
    if index is not None and model.family.block.skips(model.layers[index]._nnterp_context()) is not None:
        return False
    try:
        return model.serves(name, index) is None
    except Exception:
        return False


def _described(model, name, index) -> str | None:
    spec = BY_NAME[name]
    block = model.layers[index]
    host = block if spec.host == "layer" else getattr(block, "self_attn" if spec.host == "attention" else "mlp", None)
    try:
        return host._nnterp_site(name).description or spec.description
    except Exception:
        return None
