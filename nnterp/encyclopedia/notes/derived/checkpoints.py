"""The checkpoints a family names: the table of each one's sizes, every cell read from its recorded config.json
through the family's own accessors (``checkpoint_table``, which the page renders), and the note of what the
real-config run found, with each one's parameter count built on the meta device."""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass

import torch
from transformers import PreTrainedConfig

from nnterp.encyclopedia.configs import SIZE_KEYS, config_class, gives as _gives, sourced
from nnterp.encyclopedia.notes.derived.reading import _list, _meta_lines, _module
from nnterp.encyclopedia.verdicts import sentence
from nnterp.model import _served_config
from nnterp.registry import auto_class

#: Config keys of the checkpoint's file dtype.
DTYPE_KEYS = ("dtype", "torch_dtype")

#: The table's columns, in order.
COLUMNS = ("blocks", "hidden", "heads × head_dim (query / key-value)", "intermediate", "vocabulary", "context",
           "file dtype or format", "tied embeddings")

#: What a cell says where the recorded config has no key for it: the file lacks it, or (a partial record) only some
#: of the file's keys are recorded here.
NOT_IN_FILE, NOT_RECORDED = "not in the file", "not recorded"
#: the cells of a checkpoint whose recorded facts name no copy of its config.json
NO_SOURCE = "no sourced file"


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
    if checkpoint.config and not sourced(checkpoint):  # a number without its file is not said
        return [Cell(NO_SOURCE, (), False) for _ in COLUMNS]
    missing = NOT_RECORDED if (checkpoint.partial and not checkpoint.released) or not checkpoint.config else NOT_IN_FILE
    facts = checkpoint.released or checkpoint.config  # the whole config.json where it is recorded
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

    def cell(*accessors, show=str, on=served, at=base):
        values, keys = [], []
        for accessor in accessors:
            try:
                value, read, given = _read(facts, at, on, accessor)
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
           # a wrapper whose text config holds no tie (Qwen2.5-VL's) ties by its own, top-level flag
           cell(lambda c: c.tie_word_embeddings, show=lambda tied: "tied" if tied else "untied",
                **({} if hasattr(served, "tie_word_embeddings") else {"on": config, "at": ()}))]
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


def quantization_words(quantization: dict) -> str:
    """What a config.json's ``quantization_config`` says the files hold, in words: 'fp8 (e4m3) weights with
    128×128 block scales, activations quantized dynamically'."""
    method = quantization.get("quant_method", "quantized")
    what = f"{method} ({quantization['fmt']})" if quantization.get("fmt") else str(method)
    if quantization.get("bits"):
        what += f" {quantization['bits']}-bit"
    what += " weights"
    block = quantization.get("weight_block_size")
    if isinstance(block, list) and block:
        what += f" with {'×'.join(map(str, block))} block scales"
    elif quantization.get("group_size"):
        what += f" in groups of {quantization['group_size']}"
    if quantization.get("activation_scheme"):
        what += f", activations quantized {quantization['activation_scheme']}ally" \
            if quantization["activation_scheme"] == "dynamic" else f", activation scheme {quantization['activation_scheme']}"
    skipped = quantization.get("modules_to_not_convert") or quantization.get("ignored_layers")
    if isinstance(skipped, list) and skipped:
        what += (" (kept unquantized: " + ", ".join(f"`{name}`" for name in skipped) + ")" if len(skipped) <= 6
                 else f" ({len(skipped)} module patterns kept unquantized)")
    return what


def files_words(checkpoint) -> str:
    """What a checkpoint's files hold, as its recorded config.json says: the quantization where its whole file records
    one, the dtype otherwise; a partial record that lacks the file says it cannot tell."""
    quantization = (checkpoint.released or {}).get("quantization_config") or checkpoint.config.get("quantization_config")
    dtype = _file_dtype(checkpoint)
    if isinstance(quantization, dict):
        return f"{quantization_words(quantization)}" + (f", the other tensors {dtype}" if dtype else "")
    if not dtype:
        return "no file dtype recorded"
    if checkpoint.partial and checkpoint.released is None:
        return (f"`torch_dtype` {dtype} (a partial record: whether the files are quantized, it does not say)")
    return f"{dtype} files"


def release_format(subject) -> list[str]:
    """For each checkpoint whose recorded config.json quantizes its files: what they hold, what loading them does on
    this stack, and in which dtype the values are then read, with the lines that assert it (the quantizer transformers
    picks for the file's quantization_config, built and checked against this machine as the build runs)."""
    text = []
    for index, checkpoint in enumerate(subject.family.checkpoints):
        quantization = (checkpoint.released or {}).get("quantization_config") if sourced(checkpoint) else None
        if not isinstance(quantization, dict):
            continue
        try:
            from transformers.quantizers import AutoHfQuantizer

            quantizer = AutoHfQuantizer.from_config(dict(quantization), pre_quantized=True)
        except Exception:
            continue
        name = type(quantizer).__name__
        try:  # what loading does on the machine building the page: the quantizer decides from its devices
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                quantizer.validate_environment()
            dequantized = bool(quantizer.quantization_config.dequantize)
        except Exception:
            continue
        prose = (f"{checkpoint.label}'s files hold {quantization_words(quantization)} (its config.json's "
                 f"`quantization_config`). `from_pretrained` loads them through transformers' `{name}`, which "
                 "dequantizes them where its kernels cannot run: ")
        if dequantized:
            prose += ("on the machine that built this page it set `dequantize`, so the weights become bfloat16 as "
                      "they load, the layers are ordinary bfloat16 ones, and every value nnterp reads is a bfloat16 "
                      "tensor.")
        else:
            prose += ("on the machine that built this page its kernels run, so the quantized weights stay as the "
                      "files hold them.")
        code = [f"from transformers.quantizers import AutoHfQuantizer", "",
                f"quantization = model.family.checkpoints[{index}].released[\"quantization_config\"]   "
                f"# {checkpoint.repo}'s config.json",
                f"assert quantization == {quantization!r}",
                "quantizer = AutoHfQuantizer.from_config(dict(quantization), pre_quantized=True)",
                f"assert type(quantizer).__name__ == {name!r}",
                "quantizer.validate_environment()",
                f"assert quantizer.quantization_config.dequantize is {dequantized}   # on the machine building this page"]
        if quantization.get("quant_method") == "fp8":
            block = quantization.get("weight_block_size")
            prose += (" Where they run (a GPU of compute capability 8.9 or more, an H100), the weights stay "
                      "float8_e4m3fn in `FP8Linear` modules beside a float32 `weight_scale_inv`"
                      + (f" per {'×'.join(map(str, block))} block" if block else "")
                      + ": a linear layer's `weight` there is the file's fp8 values, not the weight the layer "
                        "applies, which is that times its block's scale.")
            code += ["from transformers.integrations.finegrained_fp8 import FP8Linear",
                     f"layer = FP8Linear(256, 256, block_size={tuple(block) if block else None!r})",
                     "assert layer.weight.dtype == torch.float8_e4m3fn and layer.weight_scale_inv.dtype == torch.float32"]
            if block:
                code.append(f"assert layer.weight_scale_inv.shape == ({-(-256 // block[0])}, {-(-256 // block[1])})"
                            "   # one scale per block")
        text += [prose, "", "```python", *code, "```", ""]
    return text


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
        if not sourced(checkpoint):
            why = checkpoint.not_found or "its recorded facts name no copy of its config.json they were read from"
            lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): no number is given here: {why}")
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
        try:  # a model without attention heads (Mamba) has none to give
            heads, kv, head_dim = (family.accessor(name, config) for name in ("num_heads", "num_kv_heads", "head_dim"))
            attends = all(isinstance(n, int) for n in (heads, kv, head_dim))
        except Exception:
            attends = False
        lacking = [name for name, keys in SIZE_KEYS.items() if not _gives(facts, keys) and (attends or name != "heads")]
        said = []
        # a size the facts do not give would be the config class's default, not the checkpoint's: none is said
        if not lacking:
            count = _parameters(built)
            said.append(f"{_billions(count)} parameters ({_gigabytes(count, 2)} in bfloat16)")
        said.append(files_words(checkpoint))
        if lacking:
            said.append(f"its recorded facts give no {_list(lacking)} (so no parameter count is given)")
        run = sentence(family.name, checkpoint.repo)
        lines.append(f"- {checkpoint.label} (`{checkpoint.repo}`): " + ", ".join(said) + (f"; {run}" if run else ""))
    count = len(family.checkpoints)
    heading = f"{'One checkpoint' if count == 1 else f'{count} checkpoints'} named by the family module"
    prose = ["Their sizes, each read from the file, are the checkpoints table in section 02. Each one's parameters, "
             "from its recorded config.json facts built on the meta device (counted with tied matrices once, weights "
             "only, arithmetic on the config and no measurement; where the facts lack a size, no count is given), "
             "what its files hold, and what the real-config run (`python -m nnterp.encyclopedia.realconfigs`: "
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
    text += release_format(subject)
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
