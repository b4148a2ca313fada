"""Notes derived from a family's own objects, so that they cannot drift from the code.

Each note states one fact of the family in its heading, says where it comes from, and carries a snippet that
asserts it on the family's tiny model. The facts of the real checkpoints are read from the representative
checkpoint built on the meta device from its config facts (its modules, its attributes as transformers computes
them: ``self_attn.scaling``, the rotary's ``inv_freq``, the norms' epsilons, whether ``lm_head`` is the embedding
matrix, the parameter count); the facts a config decides differently on the tiny model are said so, and the
snippet asserts what the tiny model has. Where the form of a computation is not written in any declaration (the
RMSNorm's ``x · w`` or ``x · (1 + w)``, how a fused projection is cut, what the model does past ``lm_head``), the
candidates are tried on the tiny model when the page is built and the one that holds is written, with the snippet
that asserts it; none is written when none holds.
"""

from __future__ import annotations

import inspect
import re
import sys
import warnings
from dataclasses import dataclass, field
from functools import cached_property

import torch

from ...support import compact_indices
from ...vocabulary import BY_NAME
from ..rows import groups
from ..snippets import PROMPT

#: Config keys of the activation, in the order the families use them.
ACTIVATION_KEYS = ("hidden_act", "hidden_activation", "activation_function", "mlp_hidden_act", "activation")
#: Config keys of the checkpoint's file dtype.
DTYPE_KEYS = ("dtype", "torch_dtype")


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


def config_name(subject) -> str:
    from ..pages import config_class

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
        return next((c for c in self.family.checkpoints if c.config), None)

    def stated(self, *paths, others: bool = False) -> Stated | None:
        """A number as a note may state it: from the representative checkpoint's recorded facts (``others``: or,
        failing those, from the first other checkpoint's that give it), else the config class's default; None where
        neither gives it. ``paths``: where it may sit (a key, or a tuple of keys), a wrapper's also under its
        text_config."""
        from ..pages import config_class

        paths = [path if isinstance(path, tuple) else (path,) for path in paths]
        paths += [("text_config", *path) for path in paths]
        checkpoints = [self.checkpoint] if self.checkpoint is not None else []
        if others:
            checkpoints += [c for c in self.family.checkpoints if c.config and c is not self.checkpoint]
        for checkpoint in checkpoints:
            for path in paths:
                value = _dig(checkpoint.config, path)
                if value is not None and not isinstance(value, (dict, list)):
                    return self._claim(Stated(path, value, checkpoint.repo, checkpoint.label))
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


def _module(envoy):
    return getattr(envoy, "_module", envoy)


def _attention_module(model, index):
    block = model.layers[index]
    return _module(block.self_attn) if hasattr(block, "self_attn") and block.self_attn is not None else None


def _children(module) -> dict:
    return dict(module.named_children()) if module is not None else {}


def _linear_like(module) -> bool:
    return hasattr(module, "weight") and isinstance(getattr(module, "weight", None), torch.Tensor) \
        and getattr(module, "weight").dim() == 2


def _has_bias(module) -> bool:
    return isinstance(getattr(module, "bias", None), torch.Tensor)


def _eps(module):
    for name in ("eps", "variance_epsilon", "epsilon"):
        value = getattr(module, name, None)
        if isinstance(value, (int, float)):
            return value
    return None


def _num(value) -> str:
    """A number as the text writes it: 1e-06, 10000.0 as 10000, 0.0625."""
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1:
        return str(int(value))
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _billions(count: int) -> str:
    return f"{count / 1e9:.2f}B" if count >= 9.995e8 else f"{count / 1e6:.0f}M"


def _gigabytes(count: int, width: int) -> str:
    size = count * width
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def _trace(model, reads):
    """Run the prompt once and return the saved values of ``reads(model)``, a dict of envoy lambdas."""
    saved: dict = {}  # filled inside the trace: nnsight runs the block's source in a frame of its own
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with model.trace(PROMPT):
            for name, read in reads.items():
                saved[name] = read().save()
    return saved


def _instrumented_trace(model, reads) -> dict | None:
    """``_trace`` on the instrumented model (the reads take children's outputs beside values), or None where a read
    does not run on it."""
    try:
        model.instrument()
        return _trace(model, reads)
    except Exception:
        return None


def _note(heading: str, prose: str, code: list[str]) -> str:
    """A note as the page renders it: its heading, its prose, its snippet."""
    return "\n".join([f"## {heading}", "", prose, "", "```python", *code, "```", ""])


def _parameters(module) -> int:
    return sum(p.numel() for p in module.parameters())


def _config_value(config, *keys):
    for key in keys:
        try:
            value = getattr(config, key, None)
        except Exception:
            value = None
        if value is not None:
            return key, value
    return None, None


def _meta_build(family, checkpoint):
    """The checkpoint built on the meta device from its config facts (None when that fails)."""
    from ..pages import config_class

    try:
        with torch.device("meta"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _auto_class(family).from_config(config_class(family)(**checkpoint.facts()))
    except Exception:
        return None


def _auto_class(family):
    """The auto class a checkpoint of the family builds with: a wrapper's is image-text-to-text."""
    import transformers

    return getattr(transformers, _auto_name(family))


def _auto_name(family) -> str:
    return "AutoModelForImageTextToText" if getattr(family, "wrapper", None) is not None else "AutoModelForCausalLM"


def _meta_lines(subject, name="real") -> list[str]:
    """Snippet lines that build the representative checkpoint on the meta device from its config facts."""
    from ..pages import config_class

    cls = config_class(subject.family).__name__
    auto = _auto_name(subject.family)
    lines = [f"from transformers import {auto}, {cls}", ""]
    if subject.checkpoint is not None:
        index = subject.family.checkpoints.index(subject.checkpoint)
        lines.append(f"facts = model.family.checkpoints[{index}].config   # {subject.checkpoint.repo}'s config facts")
        build = f"{cls}(**facts)"
    else:
        build = f"{cls}()"
    lines += ["with torch.device(\"meta\"):", f"    {name} = {auto}.from_config({build})"]
    return lines


# --------------------------------------------------------------------------- the notes
#: the makers that write a note on every family, Llama included; the others write one only where the family has
#: the feature (a window, experts, a norm after each sublayer...)
GENERIC = ("block_note", "projections_note", "grouped_note", "rotary_note", "scale_note", "mlp_note", "norm_note",
           "readout_note", "checkpoints_note")
#: the aspect of the architecture a feature maker's note is about, for the "As Llama, except" line
FEATURE_ASPECTS = {"post_norm_note": "norms", "embedding_scale_note": "embedding scale", "qk_norm_note": "norms",
                   "qk_norm_property_note": "norms", "latent_attention_note": "attention", "ssm_note": "mixer",
                   "sliding_note": "window", "moe_note": "experts", "past_head_note": "readout"}


def notes(subject: Subject, drop=()) -> list[tuple[str, str]]:
    """The derived notes' (kind, text), in page order: kind "feature" where the note states what the family does
    otherwise than Llama, "generic" where it states what every family has; ``drop``: names of makers whose note a
    hand-written one replaces (its aspect still counts in what the family does otherwise than Llama, which is
    computed from the architecture, not from the notes shown)."""
    makers = (block_note, post_norm_note, embedding_scale_note, projections_note, grouped_note, qk_norm_note,
              qk_norm_property_note, latent_attention_note, rotary_note, ssm_note, scale_note, sliding_note,
              mlp_note, moe_note, norm_note, readout_note, past_head_note, checkpoints_note)
    found = []
    for make in makers:
        before, claimed = len(subject.differences), len(subject.claims)
        text = make(subject)
        dropped = make.__name__ in drop
        # a number read but not written (the note said it otherwise, or was not written) is no claim of the page
        subject.claims[claimed:] = [c for c in subject.claims[claimed:] if text and not dropped and c.check()[-1] in text]
        if not text:
            continue
        if dropped:
            if make.__name__ in FEATURE_ASPECTS:
                subject.differs(FEATURE_ASPECTS[make.__name__], text.strip("\n").split("\n", 1)[0].removeprefix("## "))
            continue
        text = text.strip("\n") + "\n"
        if make.__name__ in FEATURE_ASPECTS:
            subject.differs(FEATURE_ASPECTS[make.__name__], text.split("\n", 1)[0].removeprefix("## "))
        feature = make.__name__ not in GENERIC or len(subject.differences) > before
        found.append(("feature" if feature else "generic", text))
    return found


# --------------------------------------------------------------------------- the block
_CHILD = re.compile(r"^the child module (\w+)'s (output|input)$")
_SIBLING = re.compile(r"^the block's child module (\w+)'s output$")


def _read_at(row):
    return row.read_at if row is not None and row.status != "unavailable" else None


def _child_of(row) -> str | None:
    match = _CHILD.match(_read_at(row) or "")
    return match.group(1) if match else None


def _sibling_of(row) -> str | None:
    match = _SIBLING.match(_read_at(row) or "")
    return match.group(1) if match else None


def _block_shape(subject) -> dict:
    first = subject.first()
    n = subject.native
    attn_norm = _child_of(first.get("attention_norm_output"))
    mlp_norm = _child_of(first.get("mlp_norm_output"))
    post_attn = _sibling_of(first.get("attention_output"))
    post_mlp = _sibling_of(first.get("mlp_output"))
    has_mlp = first.get("mlp_output") is not None and first["mlp_output"].status != "unavailable"
    return {"attn_norm": attn_norm and n(attn_norm), "mlp_norm": mlp_norm and n(mlp_norm),
            "post_attn": post_attn, "post_mlp": post_mlp, "has_mlp": has_mlp,
            "attn": n("self_attn"), "mlp": n("mlp")}


def _formula(subject, shape) -> list[str] | None:
    first = subject.first()
    plain = ("the module's own output", None)
    for name in ("attention_output", "mlp_output"):
        row = first.get(name)
        if row is not None and row.status != "unavailable" and _read_at(row) != "the module's own output" \
                and not _sibling_of(row):
            return None  # read inside a forward: the block's own arithmetic, said in prose
    del plain
    attn_in = f"{shape['attn_norm']}(x)" if shape["attn_norm"] else "x"
    attn = f"{shape['attn']}({attn_in})"
    if shape["post_attn"]:
        attn = f"{shape['post_attn']}({attn})"
    if not shape["has_mlp"]:
        return [f"out = x + {attn}"]
    if "parallel" in subject.block_kind:
        if shape["mlp_norm"] and shape["mlp_norm"] == shape["attn_norm"]:
            mlp = f"{shape['mlp']}(h)"
            attn = attn.replace(attn_in, "h")
            return [f"h   = {attn_in}", f"out = x + {attn} + {mlp}"]
        mlp = f"{shape['mlp']}({shape['mlp_norm']}(x))" if shape["mlp_norm"] else f"{shape['mlp']}(x)"
        return [f"out = x + {attn} + {mlp}"]
    mlp = f"{shape['mlp']}({shape['mlp_norm']}(h))" if shape["mlp_norm"] else f"{shape['mlp']}(h)"
    if shape["post_mlp"]:
        mlp = f"{shape['post_mlp']}({mlp})"
    return [f"h   = x + {attn}", f"out = h + {mlp}"]


def _block_heading(subject, shape) -> str:
    kind = subject.block_kind
    if shape["post_attn"] and shape["attn_norm"]:
        return f"The block is a sandwich: a norm before and after each sublayer, `{shape['attn_norm']}` first"
    if shape["post_attn"]:
        return f"The block normalizes each sublayer's output, not its input: `{shape['post_attn']}` after the attention"
    if "parallel" in kind:
        if shape["mlp_norm"] and shape["mlp_norm"] == shape["attn_norm"]:
            return f"The block is parallel, with one norm: `{shape['attn_norm']}` feeds both sublayers"
        return "The block is parallel: the attention and the MLP read the same input, and the block adds both at once"
    if not shape["has_mlp"]:
        mixer = f"`{shape['attn']}`"
        return f"The block is {kind}: one mixer, {mixer}, and no MLP" if shape["attn_norm"] is None else \
            f"The block is {kind}: `{shape['attn_norm']}`, then {mixer}, and no MLP"
    if shape["attn_norm"] and shape["mlp_norm"]:
        return (f"The block is {kind} and pre-norm: `{shape['attn_norm']}` before the attention, "
                f"`{shape['mlp_norm']}` before the MLP")
    return f"The block is {kind}"


def block_note(subject) -> str:
    from . import _block_note

    first = subject.first()
    shape = _block_shape(subject)
    llama = (subject.block_kind == "sequential" and subject.sums and shape["has_mlp"] and shape["attn_norm"]
             and shape["mlp_norm"] and not shape["post_attn"] and not shape["post_mlp"])
    if llama:  # Llama's sequential pre-norm block: section 01 states its identity
        subject.as_llama("the sequential pre-norm block")
        return None
    heading = _block_heading(subject, shape)
    subject.differs("block", heading.removeprefix("The block is ").replace("`", ""))
    text = [f"## {heading}", ""]
    formula = _formula(subject, shape) if subject.sums else None
    if formula:
        text += ["```formula", *formula, "```", ""]
    reads = []
    for name in ("attention_norm_output", "layer_mid", "mlp_norm_output", "attention_output", "mlp_output"):
        row = first.get(name)
        if row is not None and row.status != "unavailable":
            reads.append(f"`{name}` at {_native_in(subject, row.read_at)}")
    if reads:
        text += ["Where each value of the block is read: " + "; ".join(reads) + ".", ""]
    stream = [first.get(name) for name in ("layer_input", "layer_output")]
    if all(row is not None and row.status == "served" for row in stream):
        text += _block_note(first, subject.rows, subject.sums, subject.mid_sums)
        returns = _block_returns(subject)
        if returns:
            text += [returns, ""]
    else:
        reason = next(row.note for row in stream if row is not None and row.status != "served")
        text += [f"The block has no single residual stream to read: {reason}.", ""]
    return "\n".join(text)


def _native_in(subject, read_at: str) -> str:
    """A read_at sentence with its standard module names followed by the native ones."""
    def swap(match):
        name = match.group(1)
        native = subject.native(name)
        return f"`{name}`" + (f" (native `{native}`)" if native != name else "")
    return re.sub(r"module (\w+)'s", lambda m: "module " + swap(m) + "'s", read_at)


def _block_returns(subject) -> str | None:
    """What the block's forward returns, seen on the tiny model."""
    try:
        saved = _trace(subject.tiny, {"out": lambda: subject.tiny.layers[0].output})
    except Exception:
        return None
    out = saved["out"]
    if isinstance(out, torch.Tensor):
        return "The block returns a bare tensor, so `model.layers[i].output` is `layer_output`."
    if isinstance(out, (tuple, list)):
        return (f"The block returns a tuple of {len(out)}; `layer_output` is its first element, a tensor, "
                "whatever the block returns.")
    return None


def post_norm_note(subject) -> str | None:
    """attention_output / mlp_output read at a norm of the block applied to the sublayer's own output."""
    shape = _block_shape(subject)
    posts = [(name, host, shape[key]) for name, host, key in (
        ("attention_output", "self_attn", "post_attn"), ("mlp_output", "mlp", "post_mlp")) if shape[key]]
    if not posts:
        return None
    model = subject.tiny
    block = model.layers[0]
    own = {}
    kept = []
    for name, host, post in posts:  # what the tiny model shows bit for bit (a term added besides is said in 04)
        try:
            saved = _trace(model, {"own": lambda host=host: getattr(block, host).output,
                                   "value": lambda host=host, name=name: getattr(getattr(block, host), name)})
            own[name] = saved["own"]
            output = own[name][0] if isinstance(own[name], (tuple, list)) else own[name]
            if torch.equal(getattr(block, post)(output), saved["value"]):
                kept.append((name, host, post))
        except Exception:
            continue
    posts = kept
    if not posts:
        return None
    names = " and ".join(f"`{name}`" for name, _, _ in posts)
    after = " and ".join(f"`{post}`" for _, _, post in posts)
    text = [f"## {names} {'are' if len(posts) > 1 else 'is'} read after {after}", ""]
    lines = []
    for name, host, post in posts:
        word = "attention" if host == "self_attn" else "MLP"
        lines.append(f"`{post}` is a norm of the {word}'s own output, applied before the block adds it to the "
                     f"stream: `{name}` is its output, what the stream receives, not `{host}`'s output.")
    if shape["post_attn"] == "post_attention_layernorm" and shape["attn_norm"]:
        lines.append("The name is Llama's, the module is not: on Llama `post_attention_layernorm` is the norm "
                     "before the MLP; here that one is "
                     f"`{shape['mlp_norm'] or 'the pre-MLP norm'}`, and `post_attention_layernorm` normalizes the "
                     "attention's output.")
    lines.append("A reader of the sublayer's own output (a hook on the module, as TransformerLens-style code "
                 "places it) gets the value before the norm, which the stream never receives.")
    text += [" ".join(lines), ""]
    code = ["block = model.layers[0]", "with model.trace(prompt):"]
    checks = []
    for name, host, post in posts:
        var = "attn" if host == "self_attn" else "mlp"
        element = "[0]" if isinstance(own[name], (tuple, list)) else ""
        code += [f"    {var}_own = block.{host}.output{element}.save()", f"    {var} = block.{host}.{name}.save()"]
        checks.append(f"assert torch.equal(block.{post}({var}_own), {var})   # the norm of the sublayer's output")
        checks.append(f"assert not torch.equal({var}_own, {var})")
    text += ["```python", *code, "", *checks, "```", ""]
    return "\n".join(text)


def embedding_scale_note(subject) -> str | None:
    """An embedding that multiplies by a scale inside its forward, the scale cast to the weights' dtype first."""
    tiny = subject.tiny
    embed = _module(getattr(tiny, "embed_tokens", None)) if hasattr(tiny, "embed_tokens") else None
    if not isinstance(getattr(embed, "embed_scale", None), torch.Tensor):
        return None
    real_embed = _module(subject.real.embed_tokens) if subject.real is not None else embed
    scale = getattr(real_embed, "scalar_embed_scale", None)
    if not isinstance(scale, (int, float)):
        return None
    try:
        saved = _trace(tiny, {"ids": lambda: tiny.input_ids, "x": lambda: tiny.token_embeddings})
    except Exception:
        return None
    ids, x = saved["ids"], saved["x"]
    if not torch.equal(embed.weight[ids] * embed.embed_scale.to(embed.weight.dtype), x):
        return None
    hidden = getattr(subject.config, "hidden_size", None)
    root = f"√{hidden} = " if hidden and abs(scale - hidden ** 0.5) < 1e-9 else ""
    halves = {name: torch.tensor(scale).to(dtype).item() for name, dtype in
              (("bfloat16", torch.bfloat16), ("float16", torch.float16))}
    heading = (f"The embeddings are multiplied by {root}{scale:.4g}, cast to the weights' dtype: "
               f"{_num(halves['bfloat16'])} in bfloat16")
    prose = (f"`embed_tokens` ({type(real_embed).__name__}) multiplies the looked-up rows by its `embed_scale` inside "
             f"its own forward, after casting that scale to the weights' dtype: on {subject.named}, "
             f"{root}{scale:.6g} in float32, {_num(halves['bfloat16'])} in bfloat16 and {_num(halves['float16'])} in "
             "float16. `token_embeddings` is that product, and so is `layers[0].input`; a reimplementation that "
             "multiplies by the exact root computes another model under a half-precision load.")
    code = ["embed = model.embed_tokens", "with model.trace(prompt):", "    ids = model.input_ids.save()",
            "    x = model.token_embeddings.save()", "",
            "assert torch.equal(embed.weight[ids] * embed.embed_scale.to(embed.weight.dtype), x)",
            f"assert torch.tensor({scale!r}).to(torch.bfloat16).item() == {halves['bfloat16']!r}"
            f"   # {subject.named}'s scale in bfloat16"]
    return _note(heading, prose, code)


# --------------------------------------------------------------------------- the attention
def _attention_block(subject, model=None):
    model = model or subject.tiny
    index = subject.served("attention_queries", model) if model is subject.tiny else None
    if index is None:
        for i in range(model.num_layers):
            attention = _attention_module(model, i)
            if attention is not None and any(_linear_like(c) for c in attention.children()):
                return i
        return None
    return index


def _real_attention(subject):
    if subject.real is None:
        return None, None
    for value in ("attention_queries", "attention_output"):  # a softmax attention first, else the token mixer
        for index in range(subject.real.num_layers):
            try:
                if subject.real.serves(value, index) is None:
                    module = _attention_module(subject.real, index)
                    if module is not None and any(_linear_like(c) for c in module.children()):
                        return index, module
            except Exception:
                continue
    return None, None


def _projections(module) -> dict:
    """name -> (in, out, bias) of the attention's direct 2-D weighted children."""
    found = {}
    for name, child in _children(module).items():
        if _linear_like(child):
            out_features, in_features = child.weight.shape
            if type(child).__name__ == "Conv1D":  # GPT-2's Conv1D keeps the weight as [in, out]
                in_features, out_features = out_features, in_features
            found[name] = (in_features, out_features, _has_bias(child))
    return found


def _bias_phrase(projections: dict) -> str:
    biased = [name for name, (_, _, bias) in projections.items() if bias]
    plain = [name for name, (_, _, bias) in projections.items() if not bias]
    if not biased:
        return "none has a bias"
    if not plain:
        return "each has a bias"
    return f"{_list(biased)} {'has' if len(biased) == 1 else 'have'} a bias, {_list(plain)} not"


def _list(names) -> str:
    names = [f"`{n}`" for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_FUSED = ("query_key_value", "qkv_proj", "c_attn", "Wqkv", "qkv")


def projections_note(subject) -> str | None:
    index, real = _real_attention(subject)
    tiny_index = _attention_block(subject)
    tiny_attention = _attention_module(subject.tiny, tiny_index) if tiny_index is not None else None
    if tiny_attention is None:
        return None
    module = real if real is not None else tiny_attention
    projections = _projections(module)
    if not projections:
        return None
    fused = next((name for name in projections if name in _FUSED), None)
    biased = [name for name, (_, _, bias) in projections.items() if bias]
    if not fused and not biased and all(name in projections for name in ("q_proj", "k_proj", "v_proj", "o_proj")):
        subject.as_llama("separate, unbiased q, k, v and o projections")
        return None
    if fused:
        subject.differs("projections", f"one fused `{fused}`")
    if biased:
        subject.differs("projections", f"a bias on {_list(biased)}")
    mixer = "attention" if subject.served("attention_queries") is not None else "token mixer"
    sizes = "; ".join(f"`{name}` {i} → {o}" for name, (i, o, _) in projections.items())
    if fused:
        heading = f"Queries, keys and values come from one projection, `{fused}`"
    elif all(name in projections for name in ("q_proj", "k_proj", "v_proj")):
        heading = "`q_proj`, `k_proj` and `v_proj` are separate; " + _bias_phrase(projections)
        heading = heading[0].upper() + heading[1:] if not heading.startswith("`") else heading
    else:
        heading = f"The {mixer}'s projections are {_list(projections)}: {_bias_phrase(projections)}"
    text = [f"## {heading}", "",
            f"On {subject.named} (block {index if index is not None else tiny_index}), the {mixer}'s weighted "
            f"modules are {sizes} (in → out features): {_bias_phrase(projections)}."]
    tiny_projections = _projections(tiny_attention)
    same = {n: b for n, (_, _, b) in tiny_projections.items()} == {n: b for n, (_, _, b) in projections.items()}
    if not same:
        text.append("The tiny model's config places the biases otherwise ("
                    + _bias_phrase(tiny_projections) + "); the snippet asserts them on the checkpoint's config, "
                    "built on the meta device.")
    text.append("")
    cuts = _fused_layouts(subject, tiny_index, fused) if fused else []
    if len(cuts) == 1:
        text += [cuts[0][1][0], ""]
    elif cuts:
        text += [f"How `{fused}`'s output is cut depends on the checkpoint's config flags; each layout was tried on the "
                 "tiny model with the checkpoint's flags:", ""]
        text += [f"- {labels}: {cut[0][0].lower()}{cut[0][1:]}" for labels, cut in cuts] + [""]
        subject.differs("projections", f"`{fused}` cut in {len(cuts)} layouts, by the checkpoint's flags")
    if same:
        code = [f"attention = model.layers[{tiny_index}].self_attn"]
        target = "attention"
    else:
        code = _meta_lines(subject) + [f"attention = real.{_module_path(subject.real, index)}"]
        target = "attention"
    # names an envoy keeps for itself (RWKV's output projection is called output) are read on the module
    reach = (lambda name: f"{target}._module.{name}" if same and name in ("output", "input", "source") else
             f"{target}.{name}")
    code += [f"assert {reach(name)}.bias is {'not None' if bias else 'None'}"
             for name, (_, _, bias) in (projections.items())]
    text += ["```python", *code, "```", ""]
    for _, cut in cuts:
        text += ["```python", *cut[1], "```", ""]
    return "\n".join(text)


#: boolean config keys that do not change how a fused projection is cut
_NOT_LAYOUT = ("tie_word_embeddings", "use_cache", "bias", "use_bias", "attention_bias", "mlp_bias", "alibi",
               "parallel_attn", "use_parallel_residual", "use_sliding_window", "is_decoder")


def _fused_layouts(subject, index, fused) -> list:
    """(checkpoints, (sentence, snippet)) of each layout the fused projection's output takes on the family's named
    checkpoints, tried on the tiny model loaded with each checkpoint's boolean config flags (one entry, the tiny
    model's, where no checkpoint sets a flag otherwise)."""
    from nnterp import tiny as tiny_models

    base = subject.tiny
    groups: dict = {}
    for checkpoint in subject.family.checkpoints:
        flags = tuple(sorted((key, value) for key, value in checkpoint.config.items()
                             if isinstance(value, bool) and key not in _NOT_LAYOUT
                             and isinstance(getattr(base.config, key, None), bool)
                             and getattr(base.config, key) != value))
        if flags:  # a head count the facts do not give is the class's own (Falcon-RW's num_kv_heads: num_heads)
            flags += tuple((key, None) for key in ("num_kv_heads", "num_key_value_heads")
                           if key in (subject.family.tiny or {}).get("overrides", {}) and key not in checkpoint.config)
        if checkpoint.config:
            groups.setdefault(flags, []).append(checkpoint)
    if set(groups) <= {()}:
        cut = _fused_cut(subject, index, fused)
        return [("the tiny model", cut)] if cut else []
    found = {}
    for flags, checkpoints in groups.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = tiny_models.load(subject.family.name, **dict(flags)) if flags else base
        except Exception:
            continue
        cut = _fused_cut(subject, index, fused, model=model, flags=dict(flags))
        if cut is None:
            continue
        key = cut[0]
        entry = found.setdefault(key, ([], cut))
        entry[0].extend(checkpoints)
    said = []
    for sentence, (checkpoints, cut) in found.items():
        flags = sorted({key for c in checkpoints for key, v in c.config.items() if isinstance(v, bool)
                        and key not in _NOT_LAYOUT and isinstance(getattr(base.config, key, None), bool)})
        names = ", ".join(c.label for c in checkpoints)
        shown = "; ".join(f"`{key}` {checkpoints[0].config[key]}" for key in flags if key in checkpoints[0].config)
        said.append((f"{names} ({shown})" if shown else names, cut))
    return said


def _module_path(model, index) -> str:
    """The native path of block ``index``'s attention in the HF model (for a snippet on a meta build)."""
    module = _attention_module(model, index)
    for name, found in _module(model).named_modules():
        if found is module:
            return re.sub(r"\.(\d+)\.", r"[\1].", name)
    return f"model.layers[{index}].self_attn"


def _fused_cut(subject, index, fused, model=None, flags=None):
    """(sentence, snippet) of how the fused projection's output is cut into values, tried on the tiny model (or on
    ``model``, the tiny model loaded with ``flags``)."""
    model = model or subject.tiny
    if index is None or not _serves(model, "attention_values", index):
        return None
    attention = model.layers[index].self_attn
    try:
        saved = _trace(model, {"raw": lambda: getattr(attention, fused).output,
                               "v": lambda: attention.attention_values})
    except Exception:
        saved = _instrumented_trace(model, {"raw": lambda: getattr(attention, fused).output,
                                            "v": lambda: attention.attention_values})
        if saved is None:
            return None
    raw, v = saved["raw"], saved["v"]
    if not isinstance(raw, torch.Tensor) or raw.dim() != 3 or v.dim() != 4:
        return None
    b, s, _ = raw.shape
    heads, kv, d = model.num_heads, v.shape[1], v.shape[-1]
    qd = model.qk_head_dim
    candidates = {
        "blocked": ("The output is laid out in blocks, all the queries, then all the keys, then all the values:",
                    [f"v_again = raw[..., {heads}*{qd} + {kv}*{qd}:].view(b, s, {kv}, {d}).transpose(1, 2)"],
                    lambda: raw[..., heads * qd + kv * qd:].reshape(b, s, kv, d).transpose(1, 2)),
        "per_head": ("The output is laid out per head: each head's slice holds its query, then its key, then its value:",
                     [f"v_again = raw.view(b, s, {heads}, 3, {d})[..., 2, :].transpose(1, 2)"],
                     lambda: raw.reshape(b, s, heads, 3, d)[..., 2, :].transpose(1, 2)),
        "per_group": ("The output is laid out per key-value group: each group's queries, then its key, then its value:",
                      [f"v_again = raw.view(b, s, {kv}, {heads // max(kv, 1)} + 2, {d})[..., -1, :].transpose(1, 2)"],
                      lambda: raw.reshape(b, s, kv, heads // max(kv, 1) + 2, d)[..., -1, :].transpose(1, 2)),
    }
    for sentence, lines, compute in candidates.values():
        try:
            again = compute()
        except Exception:
            continue
        if again.shape == v.shape and torch.equal(again, v):
            load = ([f"from nnterp import tiny", "",
                     f"model = tiny.load({subject.family.name!r}, "
                     + ", ".join(f"{key}={value!r}" for key, value in flags.items()) + ")   # the checkpoint's flags"]
                    if flags else [])
            code = [*load, "model.instrument()   # the trace reads a child's output and a value inside the same forward",
                    f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
                    f"    raw = attention.{fused}.output.save()", "    v = attention.attention_values.save()", "",
                    "b, s, _ = raw.shape", *lines, "assert torch.equal(v_again, v)"]
            turn = " (the queries and keys then turn by the rotary)" if _rotary_module(model) is not None and \
                not flags else ""
            return (f"{sentence} the values are read as cut{turn}.", code)
    return None


def grouped_note(subject) -> str | None:
    index = subject.standard("attention_values", "attention_probabilities", "attention_head_outputs",
                             model_wide=True)
    if index is None:
        return None
    real = subject.real if subject.real is not None else subject.tiny
    try:
        heads, kv = real.num_heads, real.num_kv_heads
    except Exception:
        return None
    if not isinstance(heads, int) or not isinstance(kv, int) or kv <= 0:
        return None
    subject.grouping = "Multi-query" if kv == 1 else "Grouped keys/values" if kv < heads else ""
    # the counts as the recorded facts give them: said as the checkpoint's only where both keys are there
    stated = [subject.stated(*keys) for keys in (("num_attention_heads", "n_head", "num_heads"),
                                                 ("num_key_value_heads", "num_kv_heads", "n_head_kv"))]
    stated = [s for s, value in zip(stated, (heads, kv)) if s is not None and s.value == value]
    # the checkpoint's where its facts give both; the class's defaults where the family records no facts at all
    own = len(stated) == 2 and (all(s.repo for s in stated) or subject.checkpoint is None)
    on = f"On {subject.named}" if own or subject.checkpoint is None else \
        f"On {subject.named}'s config as built here (its recorded facts with {config_name(subject)}'s defaults)"
    if kv == heads:
        heading = f"Keys and values have all {heads} heads: no grouping"
        prose = (f"{on}, `num_kv_heads` equals `num_heads` ({heads}): every query head has its own key "
                 "and value head.")
    elif kv == 1:
        heading = f"One key and value head serves all {heads} query heads (multi-query)"
        prose = f"{on}, `num_kv_heads` is 1 against {heads} query heads."
    else:
        heading = f"Keys and values are grouped: {heads} query heads over {kv} key and value heads, {heads // kv} per group"
        prose = (f"{on}, `num_kv_heads` is {kv} against {heads} query heads: query head h reads key and "
                 f"value head h // {heads // kv}.")
    prose += (" `attention_keys` and `attention_values` are read as the kernel receives them, before any repeat for "
              "the groups; the snippet repeats them as the kernel does and recovers the head outputs.")
    tiny = subject.tiny
    if tiny.num_kv_heads != kv:
        prose += f" (The tiny model has {tiny.num_heads} query heads over {tiny.num_kv_heads}.)"
    other = next((i for i in range(tiny.num_layers) if _own_heads(tiny, i)), None)
    if other is not None:
        own = _own_heads(tiny, other)
        prose += (f" Some blocks have heads of their own (on the tiny model, layers[{other}] has "
                  + ", ".join(f"{dim} {count}" for dim, count in own.items())
                  + "): they group by their attention's own counts, which the values' shapes follow.")
    others = []
    if other is not None and "num_kv_heads" in _own_heads(tiny, other) and _serves(tiny, "attention_values", other):
        others = [f"    v_own = model.layers[{other}].self_attn.attention_values.save()   # a block with its own heads"]
    code = [f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            "    v = attention.attention_values.save()", "    p = attention.attention_probabilities.save()",
            "    heads = attention.attention_head_outputs.save()", *others, "",
            "group = model.num_heads // model.num_kv_heads", "assert v.shape[1] == model.num_kv_heads",
            "torch.testing.assert_close((p @ v.repeat_interleave(group, dim=1)).transpose(1, 2), heads)"]
    if others:
        code.append(f"assert v_own.shape[1] == {_own_heads(tiny, other)['num_kv_heads']} != model.num_kv_heads   "
                    "# its own key and value heads")
    if own:
        code += [line for s in stated for line in s.check()]
    return _note(heading, prose, code)


_QK_NORMS = (("q_norm", "k_norm"), ("query_layernorm", "key_layernorm"), ("q_layernorm", "k_layernorm"))


def qk_norm_note(subject) -> str | None:
    """A norm over each query and key head (or over all heads at once) before the rotary."""
    tiny = subject.tiny
    index = _attention_block(subject)
    attention = _attention_module(tiny, index) if index is not None else None
    children = _children(attention)
    pair = next((pair for pair in _QK_NORMS if all(name in children for name in pair)), None)
    if pair is None or "q_proj" not in children or not _serves(tiny, "attention_queries", index):
        return None
    q_name, k_name = pair
    _, real_attention = _real_attention(subject)
    real_norm = _children(real_attention).get(q_name) if real_attention is not None else children[q_name]
    if real_norm is None or not isinstance(getattr(real_norm, "weight", None), torch.Tensor):
        return None
    head_dim = (subject.real or tiny).qk_head_dim
    per_head = real_norm.weight.numel() == head_dim
    host = tiny.layers[index].self_attn
    saved = _instrumented_trace(tiny, {"raw": lambda: host.q_proj.output,
                                       "normed": lambda: getattr(host, q_name).output,
                                       "q": lambda: host.attention_queries})
    if saved is None:
        return None
    raw, normed, q = saved["raw"], saved["normed"], saved["q"]
    d = q.shape[-1]
    tiny_norm = children[q_name]
    tiny_per_head = tiny_norm.weight.numel() == d
    if normed.dim() == 4 and normed.shape == q.shape:  # normed after the heads moved first (Gemma 3)
        again = getattr(host, q_name)(raw.view(*raw.shape[:2], -1, d).transpose(1, 2))
        view = f"q_raw.view(*q_raw.shape[:2], -1, {d}).transpose(1, 2)"
        entering = "q_normed"
        entered = normed
    elif normed.dim() == 4:
        again = getattr(host, q_name)(raw.view(*raw.shape[:2], -1, d))
        view = f"q_raw.view(*q_raw.shape[:2], -1, {d})"
        entering = "q_normed.transpose(1, 2)"
        entered = normed.transpose(1, 2)
    elif normed.dim() == 3 and normed.shape[-1] == d and normed.shape[-2] * d == raw.shape[-1]:
        # normed as rows of heads, [batch·seq, heads, head_dim] (Chameleon's)
        heads = normed.shape[-2]
        again = getattr(host, q_name)(raw.reshape(-1, heads, d))
        view = f"q_raw.reshape(-1, {heads}, {d})"
        entering = f"q_normed.view(*q_raw.shape[:2], {heads}, {d}).transpose(1, 2)"
        entered = normed.view(*raw.shape[:2], heads, d).transpose(1, 2)
    else:
        again = getattr(host, q_name)(raw)
        view = "q_raw"
        entering = f"q_normed.view(*q_normed.shape[:2], -1, {d}).transpose(1, 2)"
        entered = normed.reshape(*normed.shape[:2], -1, d).transpose(1, 2)
    if not torch.equal(again, normed):
        return None
    checks = [f"assert torch.equal(attention.{q_name}({view}), q_normed)   # the norm reads the projection's output"]
    if entered.shape == q.shape and torch.equal(entered[:, :, 0], q[:, :, 0]):
        checks.append(f"assert torch.equal({entering}[:, :, 0], q[:, :, 0])   # position 0: no turn, the normed query "
                      "enters")
    # a [heads, head_dim] weight: the statistics over each head, each head with its own weight (Chameleon's)
    own_weights = tuple(tiny_norm.weight.shape) == (normed.shape[-2], d) and normed.shape[-1] == d
    checks.append(f"assert attention.{q_name}.weight.numel() == {tiny_norm.weight.numel()}   # "
                  + ("one head's width: a norm per head, shared by the heads" if tiny_per_head else
                     "a weight per head: each head normed over its own width" if own_weights else
                     "every head at once"))
    where = ("over each head" if per_head or own_weights else "over all heads at once") + (
        ", each head with its own weights" if own_weights else "")
    heading = (f"Queries and keys are normalized {where} (`{q_name}`, `{k_name}`, {type(real_norm).__name__}) "
               "before the rotary")
    prose = (f"On {subject.named}, `{q_name}` and `{k_name}` hold {real_norm.weight.numel()} weights "
             f"({'one head' if per_head else 'every head'}: {head_dim} per head"
             f"{', each head its own' if own_weights else ''}) and normalize the projections' "
             "outputs before the rotary turns them; `attention_queries` and `attention_keys` are read after both. "
             "The queries' scale is set by the norm's weights, not by the stream's size: multiplying the projection's "
             "output by a constant leaves the queries as they were, up to the norm's eps.")
    code = ["model.instrument()   # the trace reads children's outputs and a value inside the same forward",
            f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            "    q_raw = attention.q_proj.output.save()", f"    q_normed = attention.{q_name}.output.save()",
            "    q = attention.attention_queries.save()", "", *checks]
    return _note(heading, prose, code)


def latent_attention_note(subject) -> str | None:
    """Multi-head latent attention: keys and values expanded from one normed latent, one rotated key shared by every
    head; each claim measured on the tiny model and asserted."""
    tiny = subject.tiny
    index = subject.served("attention_keys")
    attention = _attention_module(tiny, index) if index is not None else None
    children = _children(attention)
    if not all(name in children for name in ("kv_a_proj_with_mqa", "kv_a_layernorm", "kv_b_proj")):
        return None
    dims = {name: getattr(attention, name, None) for name in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")}
    if not all(isinstance(value, int) and value > 0 for value in dims.values()):
        return None
    nope, rope, width = dims["qk_nope_head_dim"], dims["qk_rope_head_dim"], dims["v_head_dim"]
    host = tiny.layers[index].self_attn
    saved = _instrumented_trace(tiny, {"latent": lambda: host.kv_a_proj_with_mqa.output,
                                       "normed": lambda: host.kv_a_layernorm.output,
                                       "k": lambda: host.attention_keys, "v": lambda: host.attention_values})
    if saved is None:
        return None
    latent, normed, k, v = saved["latent"], saved["normed"], saved["k"], saved["v"]
    with torch.no_grad():
        kv = attention.kv_b_proj(normed)
    kv = kv.view(*normed.shape[:2], -1, nope + width).transpose(1, 2)
    shared = k[..., nope:]
    holds = {
        "norm": torch.equal(attention.kv_a_layernorm(latent[..., :-rope]), normed),
        "keys": kv.shape[:3] == k.shape[:3] and torch.equal(kv[..., :nope], k[..., :nope]),
        "values": kv.shape[:3] == v.shape[:3] and torch.equal(kv[..., nope:], v),
        "shared": torch.equal(shared, shared[:, :1].expand_as(shared)),
    }
    if not (holds["keys"] and holds["shared"]):
        return None
    checks = [f"nope, rope = {nope}, {rope}   # each key head: non-rotary dims, then the rotated ones"]
    if holds["norm"]:
        checks.append("assert torch.equal(attention.kv_a_layernorm(latent[..., :-rope]), normed)   # the norm reads "
                      "the latent, not the rotary part")
    checks += ["kv = attention.kv_b_proj(normed)",
               f"kv = kv.view(*normed.shape[:2], -1, nope + {width}).transpose(1, 2)   # [batch, heads, seq, dims]",
               "assert torch.equal(kv[..., :nope], k[..., :nope])   # each head's non-rotary key from kv_b_proj"]
    if holds["values"]:
        checks.append("assert torch.equal(kv[..., nope:], v)   # and its value")
    checks.append("assert torch.equal(k[..., nope:], k[:, :1, :, nope:].expand_as(k[..., nope:]))   # one rotated "
                  "key, the same in every head")
    config = subject.config.get_text_config() if hasattr(subject.config, "get_text_config") else subject.config
    rank = getattr(config, "kv_lora_rank", None)
    real = {name: getattr(config, name, None) for name in dims}
    heads = getattr(config, "num_attention_heads", None)
    q_rank = getattr(config, "q_lora_rank", None)
    queries = (f"the queries come through a {q_rank}-wide low-rank path (q_a_proj, q_a_layernorm, q_b_proj)"
               if q_rank and "q_a_proj" in children else "the queries come from q_proj at full width")
    heading = (f"Keys and values come from a {rank}-wide latent; one rotated key of {real['qk_rope_head_dim']} dims "
               f"serves all {heads} heads")
    prose = (f"On {subject.named}, `kv_a_proj_with_mqa` maps the stream to {rank} + {real['qk_rope_head_dim']} "
             f"channels. The first {rank} are normed by `kv_a_layernorm` and expanded by `kv_b_proj` into each head's "
             f"{real['qk_nope_head_dim']} non-rotary key dims and {real['v_head_dim']} value dims; the last "
             f"{real['qk_rope_head_dim']} are one key that the rotary turns and every head shares; {queries}. "
             "`attention_keys` is the kernel's argument, each head's own part joined to the shared one. There is "
             "no k_proj or v_proj to hook: keys and values are read, and edited, at `attention_keys` and "
             "`attention_values`.")
    code = ["model.instrument()   # the trace reads children's outputs and values inside the same forward",
            f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            "    latent = attention.kv_a_proj_with_mqa.output.save()",
            "    normed = attention.kv_a_layernorm.output.save()", "    k = attention.attention_keys.save()",
            "    v = attention.attention_values.save()", "", *checks]
    return _note(heading, prose, code)


_QK_NORM_NAMES = ("q_norm", "query_layernorm", "q_layernorm", "qk_norm")


def qk_norm_property_note(subject) -> str | None:
    """Where qk_norm_note does not apply (a norm without a weight, after the rotary, one module for both, a fused
    or gated projection): what the query norm makes of each head, measured on the tiny model and asserted."""
    if qk_norm_note(subject) is not None:
        return None
    tiny = subject.tiny
    index = next((i for i in range(tiny.num_layers) if _serves(tiny, "attention_queries", i)
                  and any(n in _children(_attention_module(tiny, i)) for n in _QK_NORM_NAMES)), None)
    if index is None:
        return None
    children = _children(_attention_module(tiny, index))
    name = next(n for n in _QK_NORM_NAMES if n in children)
    norm = children[name]
    weight = getattr(norm, "weight", None)
    weight = weight if isinstance(weight, torch.Tensor) else None
    bias = getattr(norm, "bias", None)
    bias = bias if isinstance(bias, torch.Tensor) else None
    host = tiny.layers[index].self_attn
    saved = _instrumented_trace(tiny, {"normed": lambda: getattr(host, name).output,
                                       "q": lambda: host.attention_queries})
    if saved is None:
        return None
    normed, q = saved["normed"], saved["q"]
    read = f"attention.{name}.output"
    if isinstance(normed, tuple):  # one module for the queries and the keys returns both (Zaya's qk_norm)
        normed, read = normed[0], f"attention.{name}.output[0]"
    if not isinstance(normed, torch.Tensor):
        return None
    d = q.shape[-1]
    if normed.shape[-1] != d and normed.shape[-1] % d:
        return None
    lines, heads = [], normed
    if normed.shape[-1] != d:
        lines.append(f"heads = q_normed.view(*q_normed.shape[:-1], -1, {d})   # one row per head")
        heads = normed.view(*normed.shape[:-1], -1, d)
    else:
        lines.append("heads = q_normed")
    if weight is not None and weight.numel() != d:
        return None
    # what the norm makes of each head, measured: the candidates for undoing its weight, then its property
    undo = [("heads", heads.float(), None)]
    if weight is not None:
        w = f"attention.{name}.weight"
        shifted = heads.float() - (bias.float() if bias is not None else 0)
        minus = f"(heads - attention.{name}.bias)" if bias is not None else "heads"
        undo = [(f"{minus} / {w}", shifted / weight.float(), "the norm's weight"),
                (f"{minus} / (1 + {w})", shifted / (1 + weight.float()), "one plus the norm's weight")]
    properties = (
        ("zero mean and unit variance", lambda u: torch.allclose(u.mean(-1), torch.zeros(()), atol=1e-3)
         and torch.allclose(u.var(-1, unbiased=False), torch.ones(()), atol=2e-2),
         ["assert torch.allclose(unit.mean(-1), torch.zeros(()), atol=1e-3)   # centred per head",
          "assert torch.allclose(unit.var(-1, unbiased=False), torch.ones(()), atol=2e-2)   # unit variance"]),
        ("unit root mean square", lambda u: torch.allclose(u.pow(2).mean(-1), torch.ones(()), atol=2e-2),
         ["assert torch.allclose(unit.pow(2).mean(-1), torch.ones(()), atol=2e-2)   # unit RMS per head"]),
        ("unit length", lambda u: torch.allclose(u.norm(dim=-1), torch.ones(()), atol=1e-3),
         ["assert torch.allclose(unit.norm(dim=-1), torch.ones(()), atol=1e-3)   # unit length per head"]),
    )
    found = next(((expr, scaled, what, asserts) for expr, unit, scaled in undo
                  for what, holds, asserts in properties if holds(unit)), None)
    if found is None:
        return None
    expr, scaled, what, asserts = found
    lines += [f"unit = {expr}", *asserts]
    kind = type(norm).__name__
    weighs = (f"then scales each of its dims by {scaled} (one head's width, shared by the heads)"
              if scaled else "and has no weight: every head leaves the norm at the same scale")
    # where it sits against the rotary: the queries the kernel takes, laid out [batch heads seq dim]
    if heads.dim() == 4 and heads.shape[1] == q.shape[1] and heads.shape[2] == q.shape[2]:
        as_q, layout = heads, "heads"
    elif heads.dim() == 4 and heads.shape[2] == q.shape[1]:
        as_q, layout = heads.transpose(1, 2), "heads.transpose(1, 2)"
    else:
        as_q, layout = None, None
    where = "`attention_queries` are read after it"
    if as_q is not None and as_q.shape == q.shape:
        if torch.equal(as_q, q):
            lines.append(f"assert torch.equal({layout}, q)   # the kernel takes the normed queries as they are")
            where = ("the kernel takes its output as it is: on this block `attention_queries` is the normed query "
                     "(a rotary, where the block has one, turns the projection before the norm)")
        elif torch.equal(as_q[:, :, 0], q[:, :, 0]):
            lines.append(f"assert torch.equal({layout}[:, :, 0], q[:, :, 0])   # position 0: no turn, the normed "
                         "query enters")
            where = "the rotary turns its output: `attention_queries` equal it at position 0, where nothing turns"
    shared = " (one module normalizes both the queries and the keys)" if name == "qk_norm" else ""
    heading = f"`{name}` ({kind}) brings each query head to {what} before the attention"
    prose = (f"`self_attn.{name}`{shared} brings every query head to {what}, measured on its output, {weighs}; "
             f"{where}. The queries' "
             "scale is set by the norm, not by the stream's size. Read on block "
             f"{index} of the tiny model, whose attention serves the queries.")
    code = ["model.instrument()   # the trace reads a child's output and a value inside the same forward",
            f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            f"    q_normed = {read}.save()", "    q = attention.attention_queries.save()", "",
            *lines]
    return _note(heading, prose, code)


def _by_layer_order(per_type: dict, config) -> list:
    """A per-layer-type dict's items in the order the config's layer_types first lists each type (a stable order
    however the dict was built)."""
    order = list(dict.fromkeys(getattr(config, "layer_types", None) or ()))
    return sorted(per_type.items(), key=lambda item: (order.index(item[0]) if item[0] in order else len(order), item[0]))


def _rope_parameters(config) -> dict:
    params = getattr(config, "rope_parameters", None) or {}
    if params and all(isinstance(v, dict) for v in params.values()):
        return {"per_layer_type": params}
    return dict(params)


def _rotary_module(model):
    for module in _module(model).modules():
        if _inv_freq(module) is not None:
            return module
    return None


def _inv_freq(module):
    """The rotary's frequencies: inv_freq, or the first layer type's (Gemma 3's sliding_attention_inv_freq)."""
    found = getattr(module, "inv_freq", None)
    if isinstance(found, torch.Tensor):
        return found
    return next((buffer for name, buffer in module.named_buffers(recurse=False)
                 if name.endswith("_inv_freq") and "original" not in name), None)


def _rotary_style(attention_module) -> str | None:
    """rotate_half or interleaved, from the modeling module's own rotate function."""
    modeling = sys.modules.get(type(attention_module).__module__)
    if modeling is None:
        return None
    rotate = getattr(modeling, "rotate_half", None)
    apply = getattr(modeling, "apply_rotary_pos_emb", None)
    try:
        applied = inspect.getsource(apply) if apply else ""
        rotated = inspect.getsource(rotate) if rotate else ""
    except (OSError, TypeError):
        return None
    if "rotate_half" in applied and rotated:
        if "::2" in rotated:
            return "interleaved: `rotate_half` here pairs dimension 2i with 2i + 1"
        return "`rotate_half`: dimension i turns with i + rot / 2"
    return None


def rotary_note(subject) -> str | None:
    model = subject.real if subject.real is not None else subject.tiny
    rotary = _rotary_module(model)
    tiny_rotary = _rotary_module(subject.tiny)
    if rotary is None or tiny_rotary is None:
        return _absolute_positions_note(subject) if rotary is None and tiny_rotary is None else None
    index = _attention_block(subject)
    attention = _attention_module(subject.tiny, index) if index is not None else None
    if attention is None:
        return None
    head_dim = model.qk_head_dim
    rot = 2 * _inv_freq(rotary).numel()
    params = _rope_parameters(model.config)
    kind = params.get("rope_type") or getattr(rotary, "rope_type", None)
    if rot >= head_dim:
        heading = f"Rotary turns every dimension of each head ({head_dim})"
    else:
        heading = f"Rotary turns {rot} of the {head_dim} dimensions of each head"
    # the base as a checkpoint's config.json gives it, or as the config class's default, said so
    if "per_layer_type" in params:
        bases = [(layer_type, subject.stated(("rope_parameters", layer_type, "rope_theta")))
                 for layer_type, _ in _by_layer_order(params["per_layer_type"], model.config)]
        bases = [(layer_type, base) for layer_type, base in bases if base is not None]
    else:
        base = subject.stated("rope_theta", ("rope_parameters", "rope_theta"), others=True)
        bases = [(None, base)] if base is not None else []
    if bases:
        heading += ", at base " + " and ".join(
            _num(float(base.value)) + (f" on {layer_type.replace('_attention', '')} layers" if layer_type else "")
            for layer_type, base in bases)
        source = bases[0][1]
        if source.repo is None:
            heading += f" ({source.label}'s default)"
        elif subject.checkpoint is not None and source.repo != subject.checkpoint.repo:
            heading += f" on {source.label}"
    prose = [f"On {subject.named}, the rotary's `inv_freq` holds {rot // 2} frequencies: {rot} dimensions of each "
             f"{head_dim}-dimensional query and key head turn"]
    if rot < head_dim:
        prose[-1] += f"; the other {head_dim - rot} are the projection's output unchanged and carry no position"
    prose[-1] += "."
    if bases:
        source = bases[0][1]
        if source.repo is None:
            prose.append(f"The base is {source.label}'s default: none of the config.json files recorded for the "
                         "family gives `rope_theta`, so a released checkpoint may well use another.")
        else:
            prose.append(f"The base is {source.whose} `{'.'.join(source.path[1:] if source.path[0] == 'text_config' else source.path)}`.")
    if "per_layer_type" in params:
        described = "; ".join(f"{layer_type}: {p.get('rope_type', 'default')}"
                              for layer_type, p in _by_layer_order(params["per_layer_type"], model.config))
        prose.append(f"Each layer type has its own rotary ({described}).")
    elif kind and kind != "default":
        prose.append(f"The frequencies are scaled: `rope_type` is {kind}.")
    elif subject.checkpoint is not None:
        prose.append(f"The config facts recorded for {subject.named} name no rope scaling (`rope_type` default).")
    else:
        prose.append("The frequencies are unscaled (`rope_type` default).")
    scaling = getattr(rotary, "attention_scaling", 1.0)
    if isinstance(scaling, float) and scaling != 1.0:
        prose.append(f"cos and sin are multiplied by `attention_scaling` = {scaling:.4g}, so the rotary scales "
                     "the queries and keys as well as turning them.")
    style = _rotary_style(attention)
    if style:
        prose.append(f"The rotation is {style}.")
    before = len(subject.differences)
    if rot < head_dim:
        subject.differs("rotary", f"rotary on {rot} of the {head_dim} dimensions of each head")
    if "per_layer_type" in params:
        subject.differs("rotary", "a rotary of its own per layer type")
    elif kind and kind != "default":
        subject.differs("rotary", f"rope_type {kind}")
    if style and style.startswith("interleaved"):
        subject.differs("rotary", "interleaved rotary pairs")
    if len(subject.differences) == before:
        subject.as_llama("rotate_half rotary on every dimension")
    prose.append("`attention_queries` and `attention_keys` are read after the rotary.")
    text = [f"## {heading}", "", " ".join(prose), ""]
    snippet = _rotary_snippet(subject, index, attention, tiny_rotary)
    checks = [line for _, base in bases for line in base.check()]
    if snippet:
        text += [snippet[0], "", "```python", *snippet[1], *checks, "```", ""]
    elif checks:
        text += ["```python", *checks, "```", ""]
    return "\n".join(text)


def _absolute_positions_note(subject) -> str | None:
    """No rotary: a learned table of absolute positions added to the token embeddings before the first block."""
    tiny = subject.tiny
    hf = _module(tiny)
    embed = _module(tiny.embed_tokens) if hasattr(tiny, "embed_tokens") else None
    found = [(name, module) for name, module in hf.named_modules()
             if isinstance(module, torch.nn.Embedding) and module is not embed
             and re.search(r"(^|\.)(wpe|position_embeddings|embed_positions|pos_emb\w*)$", name)]
    if len(found) != 1 or type(found[0][1]) is not torch.nn.Embedding:
        return None
    path, table = found[0]
    try:
        saved = _trace(tiny, {"ids": lambda: tiny.input_ids, "x": lambda: tiny.layers[0].layer_input})
    except Exception:
        return None
    ids, x = saved["ids"], saved["x"]
    n = ids.shape[-1]
    if not isinstance(getattr(embed, "weight", None), torch.Tensor) or \
            not _assert_close_holds(embed.weight[ids] + table.weight[:n], x):
        return None
    real_table = dict(_module(subject.real).named_modules()).get(path) if subject.real is not None else table
    rows = real_table.weight.shape[0] if real_table is not None else table.weight.shape[0]
    heading = f"No rotary: positions are a learned table of {rows} absolute embeddings, `{path.split('.')[-1]}`"
    subject.differs("positions", f"learned absolute positions (`{path.split('.')[-1]}`), no rotary")
    prose = (f"On {subject.named}, `{path}` holds {rows} rows, one per position, added to the token embeddings "
             "before the first block: `layers[0].input` is the token's row plus its position's row, and the "
             "attention itself sees no position. `token_embeddings` is the token's row alone. A prompt longer than "
             f"{rows} tokens has no position to read.")
    code = [f"positions = model._module.{path}", "with model.trace(prompt):", "    ids = model.input_ids.save()",
            "    x = model.layers[0].layer_input.save()", "",
            "n = ids.shape[-1]", "torch.testing.assert_close(model.embed_tokens.weight[ids] + positions.weight[:n], x)"]
    return _note(heading, prose, code)


def _rotary_snippet(subject, index, attention, tiny_rotary):
    """The queries before the rotary, read from the projection (or the query norm), against attention_queries."""
    model = subject.tiny
    children = _children(attention)
    if "q_proj" not in children or not _serves(model, "attention_queries", index) or \
            not _standard_meaning(model, "attention_queries", index):
        return None
    source = "q_norm" if "q_norm" in children else "q_proj"
    host = model.layers[index].self_attn
    saved = _instrumented_trace(model, {"pre": lambda: getattr(host, source).output,
                                        "q": lambda: host.attention_queries})
    if saved is None:
        return None
    pre, q = saved["pre"], saved["q"]
    if not isinstance(pre, torch.Tensor) or q.dim() != 4:
        return None
    d = q.shape[-1]
    if pre.dim() == 3:
        reshape = f"q_pre = q_raw.view(*q_raw.shape[:2], -1, {d}).transpose(1, 2)"
        q_pre = pre.reshape(*pre.shape[:2], -1, d).transpose(1, 2)
    elif pre.shape == q.shape:  # the heads already first
        reshape = "q_pre = q_raw"
        q_pre = pre
    else:
        reshape = "q_pre = q_raw.transpose(1, 2)"
        q_pre = pre.transpose(1, 2)
    if q_pre.shape != q.shape:
        return None
    rot = 2 * _inv_freq(tiny_rotary).numel()
    scaling = getattr(tiny_rotary, "attention_scaling", 1.0)
    checks = []
    if rot < d and torch.equal(q_pre[..., rot:], q[..., rot:]):
        checks.append(f"assert torch.equal(q_pre[..., {rot}:], q[..., {rot}:])   # past rot: no rotation")
    if scaling == 1.0 and torch.equal(q_pre[:, :, 0], q[:, :, 0]):
        checks.append("assert torch.equal(q_pre[:, :, 0], q[:, :, 0])   # position 0: the rotation is the identity")
    if not torch.equal(q_pre[:, :, 1:, :rot], q[:, :, 1:, :rot]):
        checks.append(f"assert not torch.equal(q_pre[:, :, 1:, :{rot}], q[:, :, 1:, :{rot}])   # later positions turn")
    if len(checks) < 2:
        return None
    code = ["model.instrument()   # the trace reads a child's output and a value inside the same forward",
            f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            f"    q_raw = attention.{source}.output.save()", "    q = attention.attention_queries.save()", "",
            reshape, *checks]
    lead = (f"On the tiny model ({rot} of {d} dimensions turn), the queries before the rotary are "
            f"`{source}`'s output{' (after the query norm)' if source == 'q_norm' else ''}, one head per "
            f"{d} dimensions:")
    return lead, code


def scale_note(subject) -> str | None:
    """The scores against the product of the queries and keys, measured on the tiny model: the scaled product
    (Llama's, said nothing of), another scale, a softcap, queries scaled before the product, no scale at all, a mask
    of -1e4; where none of these holds (ALiBi, a family's own term), the note says nothing."""
    tiny = subject.tiny
    index = subject.standard("attention_queries", "attention_keys", "attention_probabilities")
    if index is None or not _serves(tiny, "attention_scores", index):
        return None
    _, real_attention = _real_attention(subject)
    tiny_attention = _attention_module(tiny, index)
    # the attribute the attention multiplies its scores by: scaling on most, inv_norm_factor on Falcon
    scale_name = next((name for name in ("scaling", "inv_norm_factor", "softmax_scale", "scale_attn")
                       if isinstance(getattr(tiny_attention, name, None), (int, float))), "scaling")
    scale = getattr(real_attention if real_attention is not None else tiny_attention, scale_name, None)
    tiny_scale = getattr(tiny_attention, scale_name, None)
    head_dim = (subject.real or tiny).qk_head_dim
    scale_expr = f"attention.{scale_name}"
    if not isinstance(tiny_scale, (int, float)) and getattr(tiny_attention, "scale", None) is True:
        # a switch, not a number (openai-gpt's scale=True): the code divides by the root of the head's width
        scale_name, scale_expr = "scale", "q.shape[-1] ** -0.5"
        tiny_scale, scale = None, head_dim ** -0.5
    attention = tiny.layers[index].self_attn
    try:
        saved = _trace(tiny, {"q": lambda: attention.attention_queries, "k": lambda: attention.attention_keys,
                              "scores": lambda: attention.attention_scores,
                              "probs": lambda: attention.attention_probabilities})
    except Exception:
        return None
    q, k, scores, probs = saved["q"], saved["k"], saved["scores"], saved["probs"]
    if not (q.dim() == 4 and k.dim() == 4 and q.shape[1] % k.shape[1] == 0 and q.shape[-1] == k.shape[-1]
            and scores.shape[-1] == k.shape[-2] and scores.shape == probs.shape):
        return None
    product = q @ k.repeat_interleave(q.shape[1] // k.shape[1], dim=1).transpose(-1, -2)
    live = scores > torch.finfo(scores.dtype).min / 2
    soft = _assert_close_holds(scores.softmax(-1), probs)
    tiny_cap = getattr(tiny.config, "attn_logit_softcapping", None)
    reads = [f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
             "    q = attention.attention_queries.save()", "    k = attention.attention_keys.save()",
             "    scores = attention.attention_scores.save()", "    probs = attention.attention_probabilities.save()",
             "", "k = k.repeat_interleave(model.num_heads // model.num_kv_heads, dim=1)"]
    marked = sorted({row.name for row in subject.rows if row.status == "conditioned"})
    lead = (f"Under the default load, {len(marked)} values carry ⚠︎ in the table above "
            f"({', '.join(f'`{n}`' for n in marked)}): the kernel that serves them is eager's, which materialises "
            "the scores. " if marked else "")
    softmax = ["torch.testing.assert_close(scores.softmax(-1), probs)"] if soft else []

    scaled = None
    if tiny_scale is None and scale_name == "scale":
        tiny_scale = q.shape[-1] ** -0.5
    if isinstance(tiny_scale, (int, float)):
        scaled = product * tiny_scale
        if tiny_cap:
            scaled = tiny_cap * torch.tanh(scaled / tiny_cap)
    if scaled is not None and _assert_close_holds(scaled[live], scores[live]):
        cap = subject.stated("attn_logit_softcapping") if tiny_cap else None
        pre = subject.stated("query_pre_attn_scalar")
        pre = pre if pre is not None and isinstance(scale, (int, float)) and pre.value and \
            abs(scale - pre.value ** -0.5) < 1e-9 else None
        plain = isinstance(scale, (int, float)) and abs(scale - head_dim ** -0.5) < 1e-9
        if plain and cap is None and soft and (pre is None or abs(pre.value - head_dim) < 1e-9):
            subject.as_llama("softmax scale qk_head_dim ** -0.5")
            return None
        if pre is not None:
            same = ", as is `qk_head_dim ** -0.5` here" if plain else f", not `qk_head_dim ** -0.5` ({head_dim ** -0.5:.4g})"
            heading = f"The softmax scale is `query_pre_attn_scalar ** -0.5` ({_num(float(pre.value))} ** -0.5 = {scale:.4g}){same}"
            subject.differs("scale", f"softmax scale query_pre_attn_scalar ** -0.5 = {scale:.4g}")
        elif plain:
            heading = f"The softmax scale is `qk_head_dim ** -0.5` ({head_dim} ** -0.5 = {scale:.4g})"
        elif isinstance(scale, (int, float)):
            heading = f"The softmax scale is {scale:.4g}, not `qk_head_dim ** -0.5` ({head_dim ** -0.5:.4g})"
            subject.differs("scale", f"softmax scale {scale:.4g}, not qk_head_dim ** -0.5")
        else:
            return None
        prose = [lead + f"`self_attn.{scale_name}` is {scale:.6g} on {subject.named}, as the attention's constructor "
                 "computes it from the config" + (f" (`query_pre_attn_scalar` {pre.on})" if pre is not None else "")
                 + "."]
        code = [*reads, f"raw = q @ k.transpose(-1, -2) * {scale_expr}"]
        if cap is not None:
            heading += f"; the scores are soft-capped at {_num(float(cap.value))}"
            subject.differs("scale", f"scores soft-capped at {_num(float(cap.value))}")
            prose.append(f"The kernel soft-caps the scaled scores, cap · tanh(s / cap) with `attn_logit_softcapping` "
                         f"= {_num(float(cap.value))} {cap.on}, then adds the mask: `attention_scores` are capped. "
                         "sdpa cannot cap, so the eager load is the model.")
            code += ["cap = model.config.attn_logit_softcapping", "raw = cap * torch.tanh(raw / cap)   # the softcap, before the mask"]
        prose.append("On the tiny model the scores are the scaled product of the queries and the repeated keys"
                     + (", soft-capped," if cap is not None else "") + " where the mask keeps them"
                     + (", and their softmax is the pattern:" if soft else ":"))
        code += ["live = scores > torch.finfo(scores.dtype).min / 2   # the entries the mask keeps",
                 "torch.testing.assert_close(raw[live], scores[live])", *softmax]
        checks = [line for stated in (cap, pre) if stated is not None for line in stated.check()]
        return _note(heading, " ".join(prose), code + checks)

    if _assert_close_holds(product[live], scores[live]):  # the scores are the bare product: where is the scale?
        source = next((name for name, _ in tiny_attention.named_modules()
                       if name.split(".")[-1] in ("q_proj", "query") and name.count(".") <= 1), None)
        if source is None or not _serves(tiny, "attention_queries", index):
            return None
        host = tiny.layers[index].self_attn

        def projected():
            found = host
            for part in source.split("."):
                found = getattr(found, part)
            return found.output
        seen = _instrumented_trace(tiny, {"raw": projected})
        if seen is None or not isinstance(seen["raw"], torch.Tensor) or seen["raw"].dim() != 3:
            return None
        raw = seen["raw"]
        heads = raw.reshape(*raw.shape[:2], -1, q.shape[-1]).transpose(1, 2)
        if heads.shape != q.shape:
            return None
        reshape = f"q_pre = q_raw.view(*q_raw.shape[:2], -1, {q.shape[-1]}).transpose(1, 2)"
        code = ["model.instrument()   # the trace reads a child's output and a value inside the same forward",
                *reads[:2], f"    q_raw = attention.{source}.output.save()", *reads[2:], reshape]
        if isinstance(tiny_scale, (int, float)) and tiny_scale != 1 and _assert_close_holds(heads * tiny_scale, q):
            heading = (f"The queries are scaled before the product, by {scale:.4g}: the scores are exactly q · kᵀ"
                       if isinstance(scale, (int, float)) else
                       "The queries are scaled before the product: the scores are exactly q · kᵀ")
            subject.differs("scale", "the queries scaled before the product (the scores are q · kᵀ)")
            prose = (lead + f"The attention multiplies `{source}`'s output by `self_attn.{scale_name}` "
                     + (f"({scale:.6g} on {subject.named}) " if isinstance(scale, (int, float)) else "")
                     + "before the product, so `attention_queries` are already scaled and `attention_scores` are "
                     "q · kᵀ with nothing more where the mask keeps them; a reader who scales them again divides "
                     "twice. On the tiny model:")
            code += [f"torch.testing.assert_close(q_pre * attention.{scale_name}, q)   # the scale is in the queries"]
        elif _assert_close_holds(heads, q):
            heading = "The scores are q · kᵀ with no scale at all: no division by √head_dim"
            subject.differs("scale", "no softmax scale at all (the scores are q · kᵀ)")
            scale = None
            prose = (lead + "Neither the queries nor the product are scaled: `attention_queries` are the projection's "
                     "output and `attention_scores` are q · kᵀ where the mask keeps them. A reimplementation that "
                     "divides by √head_dim computes a softer pattern than the model's. On the tiny model:")
            code += ["torch.testing.assert_close(q_pre, q)   # the queries as projected, unscaled"]
        else:
            return None
        code += ["live = scores > torch.finfo(scores.dtype).min / 2   # the entries the mask keeps",
                 "torch.testing.assert_close((q @ k.transpose(-1, -2))[live], scores[live])", *softmax]
        return _note(heading, prose, code)

    if scaled is not None and scores.shape[-1] > 2:  # ALiBi: a bias linear in the key's position, a slope per head
        bias = scores - scaled
        steps = bias[..., 1:] - bias[..., :-1]
        both = live[..., 1:] & live[..., :-1]
        slopes = steps[..., -1:, :1]  # the last query sees every key
        if bool(both.any()) and bool((slopes != 0).all()) and \
                _assert_close_holds(steps[both], slopes.expand_as(steps)[both]):
            heading = "The scores add ALiBi: a bias linear in the key's position, with a slope per head, and no rotary"
            subject.differs("positions", "ALiBi: a per-head bias linear in the key's position")
            prose = (lead + f"`attention_scores` are q · kᵀ · `{scale_expr.removeprefix('attention.')}` plus, in each "
                     "head, a bias that grows by the same step from one key to the next: the model's positions live "
                     "in the scores alone, not in the queries and keys. A reader who recomputes the scores from "
                     "`attention_queries` and `attention_keys` without the bias gets a model that cannot tell "
                     "positions apart. On the tiny model:")
            code = [*reads, f"raw = q @ k.transpose(-1, -2) * {scale_expr}", "bias = scores - raw",
                    "live = scores > torch.finfo(scores.dtype).min / 2   # the entries the mask keeps",
                    "steps, both = bias[..., 1:] - bias[..., :-1], live[..., 1:] & live[..., :-1]",
                    "slopes = steps[..., -1:, :1]   # one per head, read on the last query, which sees every key",
                    "torch.testing.assert_close(steps[both], slopes.expand_as(steps)[both])   # linear in the key",
                    "assert (slopes != 0).all() and len(set(slopes.flatten().tolist())) == model.num_heads",
                    *softmax]
            if len(set(slopes.flatten().tolist())) == q.shape[1]:
                return _note(heading, prose, code)
    if scaled is not None:  # a mask of its own value in place of the dtype's minimum (openai-gpt's -1e4)
        masked = scores == -1e4
        if bool(masked.any()) and _assert_close_holds(scaled[~masked], scores[~masked]):
            heading = "The scores are the scaled product with the masked entries set to −1e4, not the dtype's minimum"
            subject.differs("scale", "masked scores set to −1e4")
            prose = (lead + f"`attention_scores` are q · kᵀ · {scale_expr.removeprefix('attention.')} where the causal mask keeps them and −1e4 "
                     "where it does not: a reader testing for the dtype's minimum finds no masked entry, and the "
                     "masked entries keep a probability of about e^−1e4, zero in float32. On the tiny model:")
            code = [*reads, f"raw = q @ k.transpose(-1, -2) * {scale_expr}",
                    "masked = scores == -1e4", "assert masked.any()   # the mask's own value",
                    "torch.testing.assert_close(raw[~masked], scores[~masked])", *softmax]
            return _note(heading, prose, code)
    return None


def sliding_note(subject) -> str | None:
    config = subject.config
    window = getattr(config, "sliding_window", None)
    if not isinstance(window, int) or window <= 0:
        return None
    types = getattr(config, "layer_types", None) or []
    count = sum(1 for t in types if "sliding" in str(t)) if types else None
    total = getattr(config, "num_hidden_layers", None) or len(types)
    if count == 0:
        return None
    stated = subject.stated("sliding_window")
    stated = stated if stated is not None and stated.value == window else None
    whose = "" if stated is None or stated.repo else f" ({stated.label}'s default)"
    if count is None or count == total:
        heading = f"Every layer attends within a window of {window} tokens{whose}"
        which = "every layer"
    else:
        heading = f"{count} of {total} layers attend within a window of {window} tokens{whose}"
        which = _pattern(types)
    snippet = _sliding_snippet(subject)
    # the exact span is said where the tiny model showed it: the snippet below checks it with a window of 3
    span = (f": a query at position i sees the keys i - {window} + 1 to i there, and the others see every earlier "
            "key" if snippet else "")
    others = "" if count is None or count == total else ("; the other layers attend to every earlier key"
                                                         if not snippet else "")
    if which == "every layer":
        span = span.replace(" there, and the others see every earlier key", "")
        which = "every layer slides"
    said = stated.on if stated is not None else f"on {subject.named} as built here"
    prose = (f"`sliding_window` is {window} {said}, and {which}{span}{others}. The mask does it: the "
             "pattern is zero outside the window.")
    if stated is not None and stated.repo is None:
        prose += (" The window is the config class's default: no recorded config.json of the family gives it, and a "
                  "released one may set it to null (no window) or to another size.")
    text = [f"## {heading}", "", prose, ""]
    checks = stated.check() if stated is not None else []
    if snippet:
        text += [snippet[0], "", "```python", *snippet[1], *checks, "```", ""]
    elif checks:
        text += ["```python", *checks, "```", ""]
    return "\n".join(text)


def _pattern(types) -> str:
    sliding = [i for i, t in enumerate(types) if "sliding" in str(t)]
    full = [i for i, t in enumerate(types) if "sliding" not in str(t)]
    if len(full) and all(i % (full[0] + 1) == full[0] for i in full) and len(full) == len(types) // (full[0] + 1):
        step = full[0] + 1
        every = "every other layer" if step == 2 else f"every {step}{'rd' if step == 3 else 'th'} layer"
        return f"{every} ({', '.join(map(str, full[:3]))}, ...) is full, the others slide"
    return f"the sliding layers are {compact_indices(sliding)}"


def _sliding_snippet(subject):
    """A tiny model with a window of 3, whose sliding layer's pattern is zero outside it."""
    from nnterp import tiny as tiny_models

    family = subject.family
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            small = tiny_models.load(family.name, attn_implementation="eager", sliding_window=3)
    except Exception:
        return None
    types = getattr(small.config, "layer_types", None) or []
    layers = [i for i, t in enumerate(types) if "sliding" in str(t)] if types else list(range(small.num_layers))
    layer = next((i for i in layers if _serves(small, "attention_probabilities", i)
                  and _described(small, "attention_probabilities", i) == BY_NAME["attention_probabilities"].description),
                 None)
    if layer is None:
        return None
    try:
        probs = _trace(small, {"p": lambda: small.layers[layer].self_attn.attention_probabilities})["p"]
    except Exception:
        return None
    n = probs.shape[-1]
    i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
    inside = (j <= i) & (i - j < 3)
    if not (bool((probs[..., ~inside] == 0).all()) and bool((probs[..., inside] > 0).all())):
        return None
    code = ["from nnterp import tiny", "",
            "small = tiny.load(" + repr(family.name) + ", attn_implementation=\"eager\", sliding_window=3)",
            f"with small.trace(prompt):", f"    probs = small.layers[{layer}].self_attn.attention_probabilities.save()",
            "", "n = probs.shape[-1]", "i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing=\"ij\")",
            "inside = (j <= i) & (i - j < 3)   # the query itself and the two keys before it",
            "assert (probs[..., ~inside] == 0).all() and (probs[..., inside] > 0).all()"]
    return (f"On the family's tiny model loaded with a window of 3, block {layer} (a sliding layer) gives each "
            "query weight on exactly itself and the two keys before it:", code)


def _ssm_mixer(model):
    """(path, module) of the first selective-scan mixer (a module with A_log and a conv1d), or (None, None)."""
    for name, module in _module(model).named_modules():
        if isinstance(getattr(module, "A_log", None), torch.Tensor) and hasattr(module, "conv1d"):
            return name, module
    return None, None


def ssm_note(subject) -> str | None:
    """A Mamba-style mixer: its state, its causal convolution, its decays, as the modules hold them."""
    path, tiny_mixer = _ssm_mixer(subject.tiny)
    if tiny_mixer is None:
        return None
    real_path, mixer = _ssm_mixer(subject.real) if subject.real is not None else (path, tiny_mixer)
    mixer = mixer if mixer is not None else tiny_mixer
    conv = mixer.conv1d
    depthwise = conv.groups == conv.in_channels
    state = getattr(mixer, "ssm_state_size", None)
    width = getattr(mixer, "intermediate_size", None)
    per_channel = mixer.A_log.dim() == 2
    if not per_channel and not (mixer.A_log.dim() == 1 and mixer.A_log.numel() == getattr(mixer, "num_heads", -1)):
        return None  # another layout of the decays (Zamba's): said in section 04
    count = sum(1 for _, m in _module(subject.real or subject.tiny).named_modules() if type(m) is type(mixer))
    layers = (subject.real or subject.tiny).num_layers
    where = "every block" if count == layers else f"{count} of {layers} blocks"
    if per_channel:
        heading = (f"The mixer is a selective scan with a state of {state} per channel over {width} channels, "
                   f"on {where}")
        decay = (f"`A_log` is {tuple(mixer.A_log.shape)}: one decay per channel and state dimension (Mamba 1), "
                 f"and the step size comes from a rank-{getattr(mixer, 'time_step_rank', '?')} projection (`dt_proj`)")
    else:
        heads = getattr(mixer, "num_heads", mixer.A_log.numel())
        heading = f"The mixer is a selective scan of {heads} heads with a state of {state}, on {where}"
        decay = (f"`A_log` holds one decay per head ({mixer.A_log.numel()}, Mamba 2's scalar decay), over "
                 f"{getattr(mixer, 'n_groups', 1)} group(s) of B and C")
    prose = (f"On {subject.named}, `{real_path or path}` ({type(mixer).__name__}) widens the stream to {width} "
             f"channels, runs a causal convolution of kernel {conv.kernel_size[0]} "
             f"{'over each channel alone (depthwise)' if depthwise else 'across channels'}, and scans with a state "
             f"of {state}; {decay}. It has no attention pattern: the interior values of an attention are not served "
             "on its blocks, and what it adds to the stream is its `attention_output`.")
    checks = [f"assert mixer.conv1d.kernel_size == ({tiny_mixer.conv1d.kernel_size[0]},)"]
    if tiny_mixer.conv1d.groups == tiny_mixer.conv1d.in_channels:
        checks.append("assert mixer.conv1d.groups == mixer.conv1d.in_channels   # depthwise: one filter per channel")
    if tiny_mixer.A_log.dim() == 2:
        checks.append("assert mixer.A_log.shape == (mixer.intermediate_size, mixer.ssm_state_size)")
    else:
        checks.append("assert mixer.A_log.shape == (mixer.num_heads,)   # one decay per head")
    checks.append("assert (-mixer.A_log.exp() < 0).all()   # A = -exp(A_log): every state decays")
    for check in checks:  # each as the tiny model holds it
        if not eval(check.split("#")[0].removeprefix("assert "), {"mixer": tiny_mixer, "torch": torch}):
            return None
    indexed = re.sub(r"[.](\d+)(?=[.]|$)", r"[\1]", path)   # backbone.layers.0.mixer -> backbone.layers[0].mixer
    code = [f"mixer = model._module.{indexed}", *checks]
    return _note(heading, prose, code)


# --------------------------------------------------------------------------- the MLP
def _mlp_module(model, index):
    block = model.layers[index]
    mlp = getattr(block, "mlp", None)
    return _module(mlp) if mlp is not None else None


def mlp_note(subject) -> str | None:
    tiny = subject.tiny
    index = subject.standard("mlp_input", "mlp_activation", "mlp_neurons")
    if index is None:
        return None
    mlp = _mlp_module(tiny, index)
    children = _children(mlp)
    real_mlp = _mlp_module(subject.real, index) if subject.real is not None else mlp
    real_children = _children(real_mlp) if real_mlp is not None else children
    # a wrapper's activation is its text config's
    text_config = subject.config.get_text_config() if hasattr(subject.config, "get_text_config") else subject.config
    key, activation = _config_value(text_config, *ACTIVATION_KEYS)
    act_name = next((n for n in ("act_fn", "activation_fn", "act", "activation") if n in real_children), None)
    act_class = type(real_children[act_name]).__name__ if act_name else None
    activation_text = f"`{activation}`" if activation else "its activation"
    if act_class:
        activation_text += f" (`{act_class}`)"
    host = tiny.layers[index].mlp
    try:
        saved = _trace(tiny, {"x": lambda: tiny.layers[index].mlp_input, "act": lambda: host.mlp_activation,
                              "neurons": lambda: host.mlp_neurons})
    except Exception:
        return None
    x, act, neurons = saved["x"], saved["act"], saved["neurons"]
    code = [f"mlp = model.layers[{index}].mlp", "with model.trace(prompt):",
            f"    x = model.layers[{index}].mlp_input.save()", "    act = mlp.mlp_activation.save()",
            "    neurons = mlp.mlp_neurons.save()", ""]
    up = next((n for n in ("up_proj", "c_fc", "fc_in", "w3") if n in children and "gate_proj" in children), None)
    fused = next((n for n in ("gate_up_proj",) if n in children), None)
    sizes = _sizes(real_children)
    if up and _close(act * getattr(host, up)(x), neurons):
        if up == "up_proj" and str(activation) == "silu":
            subject.as_llama("the gated SiLU MLP")
            return None
        subject.differs("mlp", f"gated MLP with `{activation}`")
        heading = f"The MLP is gated: `{act_name or 'act_fn'}(gate_proj(x)) · {up}(x)`, with {activation_text}"
        prose = (f"`mlp_activation` is the activation of `gate_proj` alone; `mlp_neurons`, what `down_proj` "
                 f"receives, is that times `{up}`'s output. On {subject.named}: {sizes}.")
        code.append(f"torch.testing.assert_close(act * mlp.{up}(x), neurons)")
    elif fused and _fused_gate(host, fused, x, act, neurons) is not None:
        order = _fused_gate(host, fused, x, act, neurons)
        subject.differs("mlp", f"gate and up fused in `{fused}`" + ("" if str(activation) == "silu" else f", `{activation}`"))
        heading = f"The MLP is gated through one fused `{fused}`, cut in two halves, with {activation_text}"
        prose = (f"`{fused}` computes the gate and the up projection in one matrix; its output's "
                 f"{'first' if order == 0 else 'second'} half is the gate, whose activation is `mlp_activation`, and "
                 f"the other half multiplies it into `mlp_neurons`. On {subject.named}: {sizes}.")
        gate, other = ("gate, up", "") if order == 0 else ("up, gate", "")
        code += [f"{gate} = mlp.{fused}(x).chunk(2, dim=-1)", "torch.testing.assert_close(act * up, neurons)"]
        del other
    elif torch.equal(act, neurons):
        subject.differs("mlp", f"an ungated MLP with `{activation}`" if activation else "an ungated MLP")
        heading = f"The MLP is not gated: one up projection, {activation_text}, then the down projection"
        prose = (f"`mlp_activation` and `mlp_neurons` are the same tensor's values: what the down projection receives "
                 f"is the activation itself. On {subject.named}: {sizes}.")
        code.append("assert torch.equal(act, neurons)   # no gate: the down projection reads the activation")
    else:
        return None
    if key:
        prose += f" The activation is the config's `{key}`."
    return _note(heading, prose, code)


def _close(a, b) -> bool:
    return _assert_close_holds(a, b)


def _assert_close_holds(a, b) -> bool:
    """Whether ``torch.testing.assert_close(a, b)``, the snippets' check, passes."""
    try:
        torch.testing.assert_close(a, b)
        return True
    except Exception:
        return False


def _fused_gate(host, fused, x, act, neurons):
    try:
        first, second = getattr(host, fused)(x).chunk(2, dim=-1)
    except Exception:
        return None
    if _close(act * second, neurons):
        return 0
    if _close(act * first, neurons):
        return 1
    return None


def _sizes(children) -> str:
    parts = []
    for name, child in children.items():
        if _linear_like(child):
            out_features, in_features = child.weight.shape
            if type(child).__name__ == "Conv1D":
                in_features, out_features = out_features, in_features
            parts.append(f"`{name}` {in_features} → {out_features}{' with a bias' if _has_bias(child) else ''}")
    return "; ".join(parts) if parts else "its projections"


def moe_note(subject) -> str | None:
    tiny = subject.tiny
    index = subject.served("router_logits")
    if index is None:
        return None
    real = subject.real if subject.real is not None else tiny
    try:
        experts, top_k = real.num_experts, real.num_experts_per_token
    except Exception:
        return None
    config = subject.config
    shared = None
    real_index = next((i for i in range(real.num_layers) if _serves(real, "router_logits", i)), index)
    children = _children(_mlp_module(real, real_index))
    shared_name = next((n for n in children if "shared" in n and "gate" not in n), None)
    if shared_name:
        key, count = _config_value(config, "n_shared_experts", "num_shared_experts", "shared_expert_count")
        shared = f"{count} shared expert{'s' if count != 1 else ''} (`{shared_name}`)" if isinstance(count, int) \
            else f"a shared expert (`{shared_name}`)"
    counts = [subject.stated(*keys) for keys in (
        ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", "num_routed_experts"),
        ("num_experts_per_tok", "num_experts_per_token", "moe_top_k", "moe_topk", "top_k", "moe_k"))]
    counts = [c for c, value in zip(counts, (experts, top_k)) if c is not None and c.value == value]
    own = len(counts) == 2 and (all(c.repo for c in counts) or subject.checkpoint is None)
    heading = f"The MLP is a mixture of {experts} experts, {top_k} per token"
    if shared:
        heading += f", plus {shared} every token passes through"
    on = f"On {subject.named}" if own or subject.checkpoint is None else \
        f"On {subject.named}'s config as built here (its recorded facts with {config_name(subject)}'s defaults)"
    prose = [f"{on}, the router (`{_router_name(children)}`) scores {experts} experts per position "
             f"and sends each to {top_k}."]
    source = _modeling_source(_mlp_module(real, real_index))
    key, norm = _config_value(config, "norm_topk_prob")
    if key and "norm_topk_prob" in source:  # the switch, where the family's router reads it
        prose.append(f"`norm_topk_prob` is {norm}: the chosen experts' weights are "
                     f"{'renormalised to sum to 1' if norm else 'the router probabilities as chosen, not renormalised'}")
        factor_key, factor = _config_value(config, "routed_scaling_factor")
        if factor_key and factor != 1 and "routed_scaling_factor" in source:
            prose[-1] += f", then multiplied by `routed_scaling_factor` = {_num(float(factor))}"
        prose[-1] += "."
    dense = [i for i in range(real.num_layers) if not _serves(real, "router_logits", i)]
    if dense:
        prose.append(f"Block{'s' if len(dense) > 1 else ''} {compact_indices(dense)} {'have' if len(dense) > 1 else 'has'} "
                     "a dense MLP and no router.")
    prose.append("`router_logits`, `router_choices` and `router_weights` are served on the routed blocks; "
                 "`mlp_activation` and `mlp_neurons` of one expert are not standard values.")
    order = _router_order(tiny, index)
    if order is None:
        return None
    code = [f"mlp = model.layers[{index}].mlp", "with model.trace(prompt):",
            *(f"    {var} = mlp.{name}.save()" for var, name in order), "",
            "assert logits.shape[-1] == model.num_experts", "assert choices.shape[-1] == model.num_experts_per_token",
            "assert weights.shape == choices.shape and choices.max() < model.num_experts",
            *([line for c in counts for line in c.check()] if own else [])]
    return "\n".join([f"## {heading}", "", " ".join(prose), "", "```python", *code, "```", ""])


def _modeling_source(module) -> str:
    """The source of the modeling file a module's class is defined in ('' when it cannot be read)."""
    modeling = sys.modules.get(type(module).__module__) if module is not None else None
    try:
        return inspect.getsource(modeling) if modeling is not None else ""
    except (OSError, TypeError):
        return ""


def _router_order(tiny, index):
    """(variable, value) of the three router values in an order the forward computes them, tried on the tiny model."""
    from itertools import permutations

    mlp = tiny.layers[index].mlp
    names = (("logits", "router_logits"), ("choices", "router_choices"), ("weights", "router_weights"))
    for order in permutations(names):
        try:
            _trace(tiny, {var: (lambda name=name: getattr(mlp, name)) for var, name in order})
            return order
        except Exception:
            continue
    return None


def _router_name(children) -> str:
    return next((n for n in ("gate", "router", "routing") if n in children), "gate")


# --------------------------------------------------------------------------- the norms
def norm_note(subject) -> str | None:
    tiny = subject.tiny
    first = subject.first()
    norm_std = _child_of(first.get("attention_norm_output"))
    if norm_std is None or first.get("layer_input") is None or first["layer_input"].status != "served":
        return None
    native = subject.native(norm_std)
    block = tiny.layers[0]
    tiny_norm = _module(getattr(block, native, None)) if hasattr(block, native) else None
    if tiny_norm is None:
        return None
    real_norm = getattr(_module(subject.real.layers[0]), native, None) if subject.real is not None else tiny_norm
    real_norm = real_norm if real_norm is not None else tiny_norm
    try:
        saved = _trace(tiny, {"x": lambda: block.layer_input, "h": lambda: block.attention_norm_output})
    except Exception:
        return None
    x, h = saved["x"], saved["h"]
    eps = _eps(tiny_norm)
    weight = getattr(tiny_norm, "weight", None)
    bias = getattr(tiny_norm, "bias", None)
    if eps is None or not isinstance(weight, torch.Tensor) or x.shape != h.shape:
        return None
    forms = []
    rms = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    centred = x - x.mean(-1, keepdim=True)
    if isinstance(bias, torch.Tensor):
        forms.append(("a LayerNorm with a bias: (x - mean) / std · weight + bias",
                      "torch.nn.functional.layer_norm(x, x.shape[-1:], norm.weight, norm.bias, {eps})",
                      lambda: torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps)))
    forms += [
        ("an RMSNorm: x / rms(x) · weight", "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + {eps}) * norm.weight",
         lambda: rms * weight),
        ("an RMSNorm with an offset weight: x / rms(x) · (1 + weight)",
         "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + {eps}) * (1 + norm.weight)", lambda: rms * (1 + weight)),
        ("a LayerNorm without a bias: (x - mean) / std · weight",
         "torch.nn.functional.layer_norm(x, x.shape[-1:], norm.weight, None, {eps})",
         lambda: torch.nn.functional.layer_norm(x, x.shape[-1:], weight, None, eps)),
        ("a mean-centred norm without a bias: (x - mean) / std · weight",
         "(x - x.mean(-1, keepdim=True)) * torch.rsqrt((x - x.mean(-1, keepdim=True)).pow(2).mean(-1, keepdim=True) "
         "+ {eps}) * norm.weight",
         lambda: centred * torch.rsqrt(centred.pow(2).mean(-1, keepdim=True) + eps) * weight),
    ]
    for words, expression, compute in forms:
        try:
            again = compute()
        except Exception:
            continue
        if again.shape == h.shape and _assert_close_holds(again, h):
            break
    else:
        return None
    real_eps = _eps(real_norm)
    if words.startswith("an RMSNorm: "):  # Llama's
        subject.as_llama("RMSNorm before each sublayer")
        return None
    subject.differs("norms", words.split(":")[0])
    stated = subject.stated("rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps", "norm_epsilon",
                            "rms_norm_epsilon")
    stated = stated if stated is not None and real_eps is not None and float(stated.value) == float(real_eps) else None
    heading = f"`{native}` is {words.split(':')[0]}, eps {_num(real_eps if real_eps is not None else eps)}"
    norms = sorted({type(m).__name__ for name, m in _module(subject.real or tiny).named_modules()
                    if "norm" in type(m).__name__.lower()})
    prose = (f"`{native}` ({type(real_norm).__name__}) computes {words.split(': ', 1)[-1]}, with eps "
             f"{_num(real_eps if real_eps is not None else eps)} "
             + (stated.on if stated is not None else f"on {subject.named} as built here") + "; the model's norm "
             f"classes are {_list(norms)}.")
    if "(1 + weight)" in words:
        prose += " A weight of zero is the identity scale, so the stored weights sit around 0, not 1."
    code = [f"norm = model.layers[0].{native}", "with model.trace(prompt):",
            "    x = model.layers[0].layer_input.save()", "    h = model.layers[0].attention_norm_output.save()", "",
            f"torch.testing.assert_close({expression.format(eps=_num(eps) if eps >= 1e-3 else repr(eps))}, h)",
            *(stated.check() if stated is not None else [])]
    return _note(heading, prose, code)


# --------------------------------------------------------------------------- the readout
def _tied(model) -> bool | None:
    hf = _module(model)
    try:
        head, embed = hf.get_output_embeddings(), hf.get_input_embeddings()
    except Exception:
        return None
    if head is None or embed is None:
        return None
    return getattr(head, "weight", None) is getattr(embed, "weight", 0)


def readout_note(subject) -> str | None:
    tiny = subject.tiny
    last = groups(subject.rows)[-1][1]
    served = last.get("layer_output") is not None and last["layer_output"].status == "served"
    real = subject.real if subject.real is not None else tiny
    tied, tiny_tied = _tied(real), _tied(tiny)
    hf = _module(real)
    head = hf.get_output_embeddings() if hasattr(hf, "get_output_embeddings") else None
    head_bias = _has_bias(head) if head is not None else False
    final = getattr(_module(real), "model", None)
    norm = _module(getattr(real, "norm", None)) if hasattr(real, "norm") else None
    del final
    norm_bias = _has_bias(norm) if norm is not None else False
    parts = ["tied to the embeddings" if tied else "its own matrix" if tied is False else "the model's head"]
    parts.append("with a bias" if head_bias else "without a bias")
    heading = f"`lm_head` is {parts[0]}, {parts[1]}"
    vocab = getattr(subject.config, "vocab_size", None)
    prose = [f"On {subject.named}, `lm_head`'s weight "
             + ("is `embed_tokens.weight`, the same tensor" if tied else "is a matrix of its own" if tied is False
                else "is not the embedding's")
             + (f" ({vocab} rows, the config's `vocab_size`)" if vocab else "") + "."]
    if norm_bias or head_bias:
        terms = (["lm_head.weight @ norm.bias"] if norm_bias else []) + (["lm_head.bias"] if head_bias else [])
        prose.append(f"The {'final norm' if norm_bias else 'head'} has a bias, so every readout, a logit lens at any "
                     f"block included, adds the same logit vector whatever the input: `{' + '.join(terms)}`, what a "
                     "stream of zeros reads as.")
    if not subject.family.readout.exact_lens or not served:
        prose.append("`project_on_vocab` is the final norm, `lm_head` and whatever the model does past `lm_head`, but "
                     "the logits are not that projection of the last block's `layer_output` here: a logit lens is an "
                     "approximation, even at the last block.")
        code = None
    else:
        prose.append("`project_on_vocab` (the final norm, `lm_head` and whatever the model does past `lm_head`) "
                     "applied to the last block's `layer_output` gives `logits`.")
        code = ["with model.trace(prompt):", "    last = model.layers[-1].layer_output.save()",
                "    logits = model.logits.save()", "",
                "torch.testing.assert_close(model.project_on_vocab(last), logits)"]
        if tiny_tied is not None and isinstance(getattr(_module(tiny.lm_head), "weight", None), torch.Tensor):
            code.append(f"assert (model.lm_head.weight is model.embed_tokens.weight) is {tiny_tied}"
                        + ("" if tiny_tied == tied else "   # the tiny model's config; the checkpoint's differs"))
        tiny_norm = _module(getattr(tiny, "norm", None)) if hasattr(tiny, "norm") else None
        if (norm_bias or head_bias) and tiny_norm is not None and _constant_holds(tiny, tiny_norm):
            terms = (["model.lm_head.weight @ model.norm.bias"] if _has_bias(tiny_norm) else [])
            tiny_head = _module(tiny.lm_head)
            terms += ["model.lm_head.bias"] if _has_bias(tiny_head) else []
            if terms:
                code += ["zeros = torch.zeros(1, 1, model.hidden_size)",
                         f"torch.testing.assert_close(model.project_on_vocab(zeros)[0, 0], {' + '.join(terms)})"]
    text = [f"## {heading}", "", " ".join(prose), ""]
    if code:
        text += ["```python", *code, "```", ""]
    return "\n".join(text)


def _constant_holds(tiny, norm) -> bool:
    if not isinstance(norm, torch.nn.LayerNorm) or subject_readout_identity(tiny.family) is False:
        return False
    try:
        zeros = torch.zeros(1, 1, tiny.hidden_size)
        got = tiny.project_on_vocab(zeros)[0, 0]
        want = tiny.lm_head.weight @ norm.bias if norm.bias is not None else 0
        head = _module(tiny.lm_head)
        if _has_bias(head):
            want = want + head.bias
        return _assert_close_holds(got, want)
    except Exception:
        return False


def subject_readout_identity(family) -> bool:
    return family.readout.past_head_identity


#: What a model may do past lm_head, by config key: (words, expression of head, the tiny model's check).
_PAST_HEAD = (
    ("final_logit_softcapping", "soft-capped: cap · tanh(lm_head_output / cap)",
     "cap * torch.tanh(head / cap)", lambda head, v: v * torch.tanh(head / v)),
    ("logit_scale", "scaled: lm_head_output · logit_scale", "head * model.config.logit_scale",
     lambda head, v: head * v),
    ("logits_scaling", "divided: lm_head_output / logits_scaling", "head / model.config.logits_scaling",
     lambda head, v: head / v),
    ("logits_scaling", "scaled: lm_head_output · logits_scaling", "head * model.config.logits_scaling",
     lambda head, v: head * v),
    ("lm_head_multiplier", "scaled: lm_head_output · lm_head_multiplier", "head * model.config.lm_head_multiplier",
     lambda head, v: head * v),
)


def past_head_note(subject) -> str | None:
    tiny = subject.tiny
    if subject_readout_identity(subject.family):
        return None
    try:
        saved = _trace(tiny, {"head": lambda: tiny.lm_head_output, "logits": lambda: tiny.logits})
    except Exception:
        return None
    head, logits = saved["head"], saved["logits"]
    for key, words, expression, compute in _PAST_HEAD:
        value = getattr(tiny.config, key, None)
        real_value = getattr(subject.config, key, None)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        try:
            again = compute(head, value)
        except Exception:
            continue
        if again.shape == logits.shape and torch.equal(again.to(logits.dtype), logits):
            stated = subject.stated(key) if isinstance(real_value, (int, float)) else None
            stated = stated if stated is not None and float(stated.value) == float(real_value) else None
            shown = _num(float(real_value)) if isinstance(real_value, (int, float)) else "unset"
            heading = f"The logits are {words.split(':')[0]}, `{key}` = {shown}" + (
                f" ({stated.label}'s default)" if stated is not None and not stated.repo else "")
            prose = (f"`logits` is {words.split(': ', 1)[1]}, with `{key}` = {shown} "
                     + (stated.on if stated is not None else f"on {subject.named} as built here")
                     + ". `lm_head_output` is the head's own output, before that; `project_on_vocab` "
                     "applies it, so a logit lens reads as the model's own logits do.")
            code = ["with model.trace(prompt):", "    head = model.lm_head_output.save()",
                    "    logits = model.logits.save()", ""]
            if key == "final_logit_softcapping":
                code.append("cap = model.config.final_logit_softcapping")
            cast = "" if again.dtype == logits.dtype else ".to(logits.dtype)"
            code.append(f"assert torch.equal(({expression}){cast}, logits)")
            code += stated.check() if stated is not None else []
            return _note(heading, prose, code)
    if logits.dtype != head.dtype and torch.equal(head.to(logits.dtype), logits):
        heading = f"The logits are lm_head's output cast to {str(logits.dtype).removeprefix('torch.')}"
        prose = ("`logits` is `lm_head_output` cast to float32 by the model, whatever the load's dtype.")
        code = ["with model.trace(prompt):", "    head = model.lm_head_output.save()", "    logits = model.logits.save()",
                "", "assert torch.equal(head.float(), logits)"]
        return _note(heading, prose, code)
    return None


# --------------------------------------------------------------------------- loading and the checkpoints
def _file_dtype(checkpoint) -> str | None:
    if checkpoint is None:
        return None
    for key in DTYPE_KEYS:
        if checkpoint.config.get(key):
            return str(checkpoint.config[key]).removeprefix("torch.")
    return None


def realconfigs_sentence(family_name: str, repo: str) -> str | None:
    from ..realconfigs import sentence  # imported here: ``python -m nnterp.encyclopedia.realconfigs`` runs it as main

    return sentence(family_name, repo)


def checkpoints_note(subject) -> str | None:
    """One table of the named checkpoints: each one's size, depth, width, heads, vocabulary and files, from its
    recorded facts built on the meta device (a number its facts do not give is marked as the class's default), what
    the real-config run found, and the representative's parameter count and vocabulary asserted."""
    family = subject.family
    if not family.checkpoints:
        return None
    lines = []
    for checkpoint in family.checkpoints:
        if not checkpoint.config:
            lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): no config facts are recorded for it, so no size "
                         "is given here")
            continue
        if checkpoint.not_buildable:
            lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): not built here ({checkpoint.not_buildable})")
            continue
        built = _module(subject.real) if subject.real is not None and checkpoint is subject.checkpoint \
            else _meta_build(family, checkpoint)
        if built is None:
            lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): its config facts do not build here")
            continue
        config = built.config
        facts = checkpoint.config

        def given(value, *keys):  # a number the facts do not give is the class's
            return f"{value}" if any(k in facts or k in facts.get("text_config", {}) for k in keys) \
                else f"{value} (class default)"
        count = _parameters(built)
        said = [f"{_billions(count)} parameters ({_gigabytes(count, 2)} in bfloat16)"]
        layers = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layer", None)
        hidden = getattr(config, "hidden_size", None)
        if layers:
            said.append(given(f"{layers} blocks", "num_hidden_layers", "n_layer", "num_layers"))
        if hidden:
            said.append(given(f"hidden {hidden}", "hidden_size", "n_embd", "d_model"))
        try:
            heads = family.accessor("num_heads", config)
            kv = family.accessor("num_kv_heads", config)
            head_dim = family.accessor("head_dim", config)
            said.append(f"{heads} heads × {head_dim}" + (f" over {kv} key-value heads" if kv != heads else ""))
        except Exception:
            pass
        try:
            embedding, head = built.get_input_embeddings(), built.get_output_embeddings()
            rows = embedding.weight.shape[0]
            tied = head is not None and head.weight is embedding.weight
            said.append(given(f"vocabulary {rows:,}", "vocab_size", "n_vocab")
                        + (", lm_head tied" if tied else ", lm_head its own"))
        except Exception:
            pass
        dtype = _file_dtype(checkpoint)
        said.append(f"{dtype} files" if dtype else "no file dtype recorded")
        run = realconfigs_sentence(family.name, checkpoint.repo)
        lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): " + ", ".join(said) + (f"; {run}" if run else ""))
    count = len(family.checkpoints)
    heading = f"{'One checkpoint' if count == 1 else f'{count} checkpoints'} named by the family module"
    prose = ["Each from its recorded config.json facts built on the meta device (parameters counted with tied "
             "matrices once, weights only, arithmetic on the config and no measurement; a number marked class "
             "default is not in the facts), with what the real-config run (`python -m nnterp.encyclopedia.realconfigs`: "
             "the config as released, the depth cut to one block of each layer type, experts and vocabulary capped, "
             "random weights, the contract in float32 and bfloat16) found:"]
    loads = family.loads
    after = []
    if loads is None:
        after.append("Every attention implementation transformers accepts for the class is a valid load.")
    elif loads:
        after.append(f"The attention implementations nnterp accepts for this family: {_list(loads)}.")
    if family.hazard is not None:
        after.append("The family module declares a numerical hazard: nnterp warns when a load meets it.")
    text = [f"## {heading}", "", *prose, "", *lines, ""]
    if after:
        text += [" ".join(after), ""]
    if subject.real is not None and subject.checkpoint is not None:
        real = _module(subject.real)
        total = _parameters(real)
        code = [*_meta_lines(subject), "", "count = sum(p.numel() for p in real.parameters())   # tied matrices once",
                f"assert count == {total}"]
        try:
            rows = real.get_input_embeddings().weight.shape[0]
            code.append(f"assert real.get_input_embeddings().weight.shape[0] == {rows}")
        except Exception:
            pass
        text += ["```python", *code, "```", ""]
    return "\n".join(text)
