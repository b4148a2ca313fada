"""The checkpoints a family names: the table of each one's sizes, every cell read from its recorded config.json
through the family's own accessors (``checkpoint_table``, which the page renders), and the note of what the
real-config run found, with each one's parameter count built on the meta device."""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass

import torch
from transformers import PreTrainedConfig

from ....model import _served_config
from ....wrappers import auto_class
from ...configs import config_class
from ...verdicts import sentence
from .reading import _list, _meta_lines, _module

#: Config keys of the checkpoint's file dtype.
DTYPE_KEYS = ("dtype", "torch_dtype")

#: The table's columns, in order.
COLUMNS = ("blocks", "hidden", "heads × head_dim (query / key-value)", "intermediate", "vocabulary", "context",
           "file dtype or format", "tied embeddings")

#: What a cell says where the recorded config has no key for it: the file lacks it, or (a partial record) only some
#: of the file's keys are recorded here.
NOT_IN_FILE, NOT_RECORDED = "not in the file", "not recorded"


@dataclass
class Cell:
    """One cell of the checkpoints table: its text, and the recorded keys it was read from (paths in the config.json
    facts, with their values), none where the file does not give it."""

    text: str
    keys: tuple = ()      # ((path, value), ...): the recorded keys the cell's numbers come from
    given: bool = True    # False: the recorded config has no key for it ("not in the file")


class _Reads:
    """A config as an accessor sees it, logging every attribute it reads: (path, value, the class that holds it)."""

    def __init__(self, config, path: tuple, log: list):
        object.__setattr__(self, "_config", config)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_log", log)

    def __getattr__(self, name):
        config = object.__getattribute__(self, "_config")
        derived = inspect.getattr_static(type(config), name, None)
        if isinstance(derived, property) and derived.fget is not None:
            return derived.fget(self)  # a value the class computes (LongCat's 2 * num_layers): its reads traced too
        path = object.__getattribute__(self, "_path") + (name,)
        value = getattr(config, name)  # AttributeError: the accessor's getattr default applies
        object.__getattribute__(self, "_log").append((path, value, type(config)))
        if isinstance(value, PreTrainedConfig):
            return _Reads(value, path, object.__getattribute__(self, "_log"))
        return value


def _dig(facts, path):
    for key in path:
        if not isinstance(facts, dict) or key not in facts:
            return None
        facts = facts[key]
    return facts


def _class_default(owner, name):
    """The config class's default for ``name``; None where it has none or derives it (a None default)."""
    try:
        parameter = inspect.signature(owner).parameters.get(name)
    except (TypeError, ValueError):
        return None
    if parameter is None or parameter.default is inspect.Parameter.empty:
        return None
    return parameter.default


def _resolve(facts, base: tuple, path: tuple, value, owner):
    """Where a value an accessor read sits in the recorded facts: (file path, recorded value); None for a value the
    class derives from other keys; False where it is the class's default, the file giving no key for it."""
    level = _dig(facts, base + path[:-1])
    level = level if isinstance(level, dict) else {}
    name = path[-1]
    mapped = getattr(owner, "attribute_map", {}) or {}
    names = [name, mapped.get(name, name), *(k for k, v in mapped.items() if v == name)]
    for key in names:
        if key in level:
            return base + path[:-1] + (key,), level[key]
    for key in names:  # the class's default under any name the attribute_map gives it
        default = _class_default(owner, key)
        if default is not None and value == default:
            return False
    return None  # derived by the class (a None default), or renamed from a key the file gives


def _read(facts, base: tuple, served, accessor):
    """(value, keys, given) of one accessor on the served config, each value it read traced to the facts."""
    log: list = []
    value = accessor(_Reads(served, (), log))
    keys = []
    for path, read, owner in log:
        if read is None or callable(read) or isinstance(read, PreTrainedConfig):
            continue
        where = _resolve(facts, base, path, read, owner)
        if where is False:
            return value, (), False
        if where is not None and where not in keys:
            keys.append(where)
    return value, tuple(keys), True


def _base(config, served) -> tuple:
    """Where the served (text) config sits in the facts: () for the model's own, ("text_config",) for a wrapper's."""
    if served is config:
        return ()
    return next(((name,) for name, value in vars(config).items() if value is served), ("text_config",))


def _file_format(facts: dict, missing: str) -> Cell:
    """The file's dtype, or its quantization format where it has one; ``missing`` where the facts give neither."""
    for level, prefix in ((facts, ()), (facts.get("text_config") or {}, ("text_config",))):
        quantization = level.get("quantization_config")
        if isinstance(quantization, dict):
            method = quantization.get("quant_method") or quantization.get("fmt")
            detail = quantization.get("fmt") if quantization.get("quant_method") else None
            bits = quantization.get("bits")
            said = " ".join(str(part) for part in (method, detail, f"{bits}-bit" if bits else None) if part)
            return Cell(said or "quantized", ((prefix + ("quantization_config",), quantization),))
        for key in DTYPE_KEYS:
            if level.get(key):
                return Cell(str(level[key]).removeprefix("torch."), ((prefix + (key,), level[key]),))
    return Cell(missing, (), False)


def checkpoint_row(family, checkpoint) -> list[Cell]:
    """The table's cells for one checkpoint, in ``COLUMNS`` order: each read from its recorded config.json facts
    through the family's accessors, empty where the facts have no key for it (never the config class's default)."""
    missing = NOT_RECORDED if checkpoint.partial or not checkpoint.config else NOT_IN_FILE
    facts = checkpoint.config
    if not facts:
        return [Cell(missing, (), False) for _ in COLUMNS]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config = config_class(family)(**checkpoint.facts())
        served = _served_config(family, config)
    except Exception:
        return [Cell(missing, (), False) for _ in COLUMNS[:-2]] + [_file_format(facts, missing), Cell(missing, (), False)]
    base = _base(config, served)

    def cell(*accessors, show=str):
        values, keys = [], []
        for accessor in accessors:
            try:
                value, read, given = _read(facts, base, served, accessor)
            except Exception:
                return Cell(missing, (), False)
            if not given or value is None:
                return Cell(missing, (), False)
            values.append(value)
            keys += [k for k in read if k not in keys]
        return Cell(show(*values), tuple(keys))

    def named(name):
        return lambda c: family.accessor(name, c)

    def heads(query, qk, kv, dim):
        return f"{query} × {qk} / {kv} × {dim}"

    row = [cell(lambda c: c.num_hidden_layers), cell(named("hidden_size")),
           cell(named("num_heads"), named("qk_head_dim"), named("num_kv_heads"), named("head_dim"), show=heads),
           cell(named("intermediate_size")), cell(named("vocab_size")), cell(lambda c: c.max_position_embeddings),
           _file_format(facts, missing),
           cell(lambda c: c.tie_word_embeddings, show=lambda tied: "tied" if tied else "untied")]
    return row


def checkpoint_table(family) -> list[tuple[object, list[Cell]]]:
    """(checkpoint, its cells) for each checkpoint the family names, in its order."""
    return [(checkpoint, checkpoint_row(family, checkpoint)) for checkpoint in family.checkpoints]


def _billions(count: int) -> str:
    return f"{count / 1e9:.2f}B" if count >= 9.995e8 else f"{count / 1e6:.0f}M"


def _gigabytes(count: int, width: int) -> str:
    size = count * width
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def _parameters(module) -> int:
    return sum(p.numel() for p in module.parameters())


def _meta_build(family, checkpoint):
    """The checkpoint built on the meta device from its config facts (None when that fails)."""
    try:
        with torch.device("meta"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config = config_class(family)(**checkpoint.facts())
            return auto_class(family, config).from_config(config)
    except Exception:
        return None


def _file_dtype(checkpoint) -> str | None:
    if checkpoint is None:
        return None
    for key in DTYPE_KEYS:
        if checkpoint.config.get(key):
            return str(checkpoint.config[key]).removeprefix("torch.")
    return None


def checkpoints_note(subject) -> str | None:
    """The named checkpoints' parameter counts, from their recorded facts built on the meta device, and what the
    real-config run found, with the representative's count and vocabulary asserted; their sizes are the page's
    checkpoints table (``checkpoint_table``), each cell from the file."""
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
        count = _parameters(built)
        said = f"{_billions(count)} parameters ({_gigabytes(count, 2)} in bfloat16)"
        run = sentence(family.name, checkpoint.repo)
        lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): {said}" + (f"; {run}" if run else ""))
    count = len(family.checkpoints)
    heading = f"{'One checkpoint' if count == 1 else f'{count} checkpoints'} named by the family module"
    prose = ["Their sizes, each read from the file, are the checkpoints table in section 02. Each one's parameters, "
             "from its recorded config.json facts built on the meta device (counted with tied matrices once, weights "
             "only, arithmetic on the config and no measurement; a key the facts lack is the config class's), with "
             "what the real-config run (`python -m nnterp.encyclopedia.realconfigs`: "
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
