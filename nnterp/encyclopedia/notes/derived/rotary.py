"""The position encoding: how many dimensions the rotary turns, its frequencies and its style, or a learned table
of absolute positions."""

from __future__ import annotations

import inspect
import re
import sys

import torch

from nnterp.contract.support import compact_indices
from nnterp.encyclopedia.configs import sourced
from nnterp.encyclopedia.notes.derived.reading import (
    _assert_close_holds, _attention_block, _attention_module, _children, _meta_lines, _module, _note, _num,
    _queries_beside, _trace,
)
from nnterp.encyclopedia.notes.derived.subject import _serves, _standard_meaning


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
    native = _module(model)
    wrapper = getattr(getattr(model, "family", None), "wrapper", None)
    vision = ()
    if wrapper is not None:  # a wrapper's vision tower has a rotary of its own (Pixtral's 2D one): not the text's,
        # nor may one inside the language model's module (Evolla's protein encoder, under model)
        vision = tuple(f"{path[len(wrapper.language_model) + 1:]}." for path in wrapper.vision
                       if path.startswith(wrapper.language_model + "."))
        native = native.get_submodule(wrapper.language_model)
    for name, module in native.named_modules():
        if _inv_freq(module) is not None and not f"{name}.".startswith(vision or ("\0",)):
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


#: Where a checkpoint's config.json gives its rotary base: the legacy key, rope_parameters, DBRX's nested attn_config.
BASE_PATHS = ("rope_theta", ("rope_parameters", "rope_theta"), ("attn_config", "rope_theta"))
#: The scaling as the rotary's words for it.
ROPE_KINDS = {"longrope": "LongRoPE", "yarn": "YaRN", "llama3": "Llama 3's", "linear": "linear", "dynamic": "dynamic NTK",
              "su": "LongRoPE", "mrope": "M-RoPE", "default": "none"}


def _scalings(checkpoint) -> list[dict]:
    """The rope scaling dicts a checkpoint's facts give (rope_scaling, rope_parameters, a text config's), or []."""
    facts = checkpoint.config
    found = []
    for holder in (facts, facts.get("text_config") if isinstance(facts.get("text_config"), dict) else {}):
        for key in ("rope_scaling", "rope_parameters"):
            value = holder.get(key)
            if isinstance(value, dict) and value:
                found.append(value)
    return found


def _scaling_words(checkpoint) -> str | None:
    """How a checkpoint's config.json scales its rotary, in words, or None where its recorded facts do not say (a
    partial record that lacks the key says nothing: the file may have one)."""
    for scaling in _scalings(checkpoint):
        if all(isinstance(v, dict) for v in scaling.values()):  # per layer type
            return "; ".join(f"{layer_type}: {_kind_words(p)}" for layer_type, p in scaling.items())
        words = _kind_words(scaling)
        if words:
            return words
    given = any(key in checkpoint.config or key in (checkpoint.config.get("text_config") or {})
                for key in ("rope_scaling", "rope_parameters"))
    if not checkpoint.partial or given:
        return "no rope scaling"
    return None


def _kind_words(scaling: dict) -> str | None:
    kind = scaling.get("rope_type") or scaling.get("type")
    words = []
    if isinstance(scaling.get("mrope_section"), list):
        words.append(f"M-RoPE: the frequencies in sections {scaling['mrope_section']} turn with the temporal, "
                     "height and width position ids")
        if kind in (None, "default", "mrope"):
            return words[0]
    if kind in (None, "default"):
        return None if not words else words[0]
    detail = []
    for key in ("factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor", "beta_fast",
                "beta_slow", "mscale", "mscale_all_dim", "short_mscale", "long_mscale"):
        if isinstance(scaling.get(key), (int, float)) and not isinstance(scaling.get(key), bool):
            detail.append(f"{key} {_num(float(scaling[key]))}")
    for key in ("short_factor", "long_factor"):
        if isinstance(scaling.get(key), list):
            detail.append(f"{len(scaling[key])} {key} values, one per frequency")
    words.append(f"{ROPE_KINDS.get(kind, kind)} scaling (`{kind}`" + (f": {', '.join(detail)}" if detail else "") + ")")
    return "; ".join(words)


def _said_per_checkpoint(stated: list) -> str:
    """'10000 on A and 1000000 on B', or '10000 on A and B' where they agree."""
    values = list(dict.fromkeys(_num(float(s.value)) for s in stated))
    if len(values) == 1:
        return f"{values[0]} on " + _and([s.label for s in stated])
    return _and([f"{_num(float(s.value))} on {s.label}" for s in stated])


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _rotary_guard(attention) -> str | None:
    """The condition the attention's forward applies the rotary under (``if self.sliding_window is None or
    self.is_sliding:``, ``if self.use_rope:``), from the modeling source: the innermost ``if`` enclosing a call of
    ``apply_rotary*`` whose condition reads the rotary's or the window's switch; None where there is none."""
    try:
        source = inspect.getsource(type(attention).forward).splitlines()
    except (OSError, TypeError):
        return None
    for number, line in enumerate(source):
        if not re.search(r"\bapply_rotary\w*\(", line):  # apply_rotary_pos_emb, Llama 4's apply_rotary_emb
            continue
        indent = len(line) - len(line.lstrip())
        for above in reversed(source[:number]):  # the blocks enclosing the call, innermost first
            code = above.split("#")[0].rstrip()
            depth = len(code) - len(code.lstrip())
            if not code.strip() or depth >= indent:
                continue
            indent = depth
            match = re.fullmatch(r"if (.+):", code.strip())
            if match and "self." in match.group(1) and re.search(r"rope|rotary|sliding", match.group(1)):
                return match.group(1)
            if code.strip().startswith("def "):
                break
    return None


def _rotates(attention, guard: str) -> bool | None:
    try:
        return bool(eval(guard, {}, {"self": attention}))  # noqa: S307 - the modeling code's own condition
    except Exception:
        return None


def _per_layer_rotation(subject):
    """(guard, {block index: rotates}) of the representative checkpoint's blocks, where its attention applies the
    rotary under a condition some blocks fail (EXAONE 4's and Cohere 2's global layers, Llama 4's no-rope layers);
    None where every block rotates."""
    real = subject.real
    if real is None:
        return None
    found, guard = {}, None
    for index in range(real.num_layers):
        attention = _attention_module(real, index)
        if attention is None:
            continue
        guard = guard or _rotary_guard(attention)
        if guard is None:
            return None
        found[index] = _rotates(attention, guard)
    if not found or None in found.values() or all(found.values()):
        return None
    return guard, found


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
    per_layer = _per_layer_rotation(subject)
    if rot >= head_dim:
        heading = f"Rotary turns every dimension of each head ({head_dim})"
    else:
        heading = f"Rotary turns {rot} of the {head_dim} dimensions of each head"
    if per_layer is not None:
        kept = [i for i, turns in per_layer[1].items() if turns]
        heading += f" on {len(kept)} of the {len(per_layer[1])} blocks"
    # the base as each checkpoint's config.json gives it, or as the config class's default, said so
    bases, default = [], None
    if "per_layer_type" in params:
        for layer_type, _ in _by_layer_order(params["per_layer_type"], model.config):
            given = subject.each(("rope_parameters", layer_type, "rope_theta"))
            if given:
                bases.append((layer_type, given))
    else:
        given = subject.each(*BASE_PATHS)
        if given:
            bases.append((None, given))
        elif subject.checkpoint is None or not subject.checkpoint.partial:
            # the class's default: the page's subject, or what a whole config.json that sets no base gets
            default = subject.stated(*BASE_PATHS)
    if bases:
        heading += ", at base " + "; ".join(
            _said_per_checkpoint(given) + (f" on {layer_type.replace('_attention', '')} layers" if layer_type else "")
            for layer_type, given in bases)
    elif default is not None:
        heading += f", at base {_num(float(default.value))} ({default.label}'s default" + (
            f": {subject.checkpoint.label}'s config.json sets none)" if subject.checkpoint is not None else ")")
    prose = [f"On {subject.named}, the rotary's `inv_freq` holds {rot // 2} frequencies: {rot} dimensions of each "
             f"{head_dim}-dimensional query and key head turn"]
    if rot < head_dim:
        prose[-1] += f"; the other {head_dim - rot} are the projection's output unchanged and carry no position"
    prose[-1] += "."
    if per_layer is not None:
        guard, turns = per_layer
        still = [i for i, t in turns.items() if not t]
        prose.append(f"Not every block rotates: the attention applies the rotary only where `{guard}`, which "
                     f"block{'s' if len(still) > 1 else ''} {compact_indices(still)} of {subject.named} "
                     f"{'fail' if len(still) > 1 else 'fails'}: no rotary turns their queries and keys, and "
                     "position reaches them only through the causal mask.")
    if bases:
        paths = sorted({".".join(s.path[1:] if s.path[0] == "text_config" else s.path)
                        for _, given in bases for s in given})
        prose.append(f"The base{'s are' if sum(len(g) for _, g in bases) > 1 else ' is'} each checkpoint's "
                     f"config.json {_and([f'`{p}`' for p in paths])}.")
    elif default is not None and subject.checkpoint is not None:
        prose.append(f"The base is {default.label}'s default: the whole config.json recorded for "
                     f"{subject.checkpoint.label} sets none, so the class's applies.")
    elif default is not None:
        prose.append(f"The base is {default.label}'s default: no config.json recorded here with the copy it was "
                     "read from gives `rope_theta` at its top, in `rope_parameters` or in `attn_config`, so a "
                     "released checkpoint may well use another.")
    elif subject.checkpoint is not None:
        prose.append(f"The facts recorded for {subject.checkpoint.label} give no rotary base (its record is "
                     "partial), so none is said here.")
    said = [(c.label, _scaling_words(c)) for c in subject.family.checkpoints if sourced(c)]
    said = [(label, words) for label, words in said if words]
    if "per_layer_type" in params:
        described = "; ".join(f"{layer_type}: {p.get('rope_type', 'default')}"
                              for layer_type, p in _by_layer_order(params["per_layer_type"], model.config))
        prose.append(f"Each layer type has its own rotary ({described} on {subject.named} as built here).")
    if said:
        prose.append("Rope scaling in each recorded config.json: " + "; ".join(f"{label}, {words}" for label, words
                                                                                in said) + ".")
    elif subject.checkpoint is None:
        prose.append(f"No config.json is recorded for the family with its source: the scaling here is that of "
                     f"{subject.named}.")
    scaling = getattr(rotary, "attention_scaling", 1.0)
    if isinstance(scaling, float) and scaling != 1.0:
        prose.append(f"On {subject.named} as built here, cos and sin are multiplied by `attention_scaling` = "
                     f"{scaling:.4g}, so the rotary scales the queries and keys as well as turning them.")
    style = _rotary_style(attention)
    if style:
        prose.append(f"The rotation is {style}.")
    kinds = {words.split(" scaling")[0] for _, words in said if words != "no rope scaling"}
    before = len(subject.differences)
    if rot < head_dim:
        subject.differs("rotary", f"rotary on {rot} of the {head_dim} dimensions of each head")
    if per_layer is not None:
        subject.differs("rotary", "no rotary on some blocks")
    if "per_layer_type" in params:
        subject.differs("rotary", "a rotary of its own per layer type")
    elif kinds:
        subject.differs("rotary", "rope scaling: " + ", ".join(sorted(kinds)))
    if style and style.startswith("interleaved"):
        subject.differs("rotary", "interleaved rotary pairs")
    if len(subject.differences) == before:
        subject.as_llama("rotate_half rotary on every dimension")
    prose.append("`attention_queries` and `attention_keys` are read after the rotary.")
    text = [f"## {heading}", "", " ".join(prose), ""]
    snippet = _rotary_snippet(subject, index, attention, tiny_rotary)
    checks = [line for _, given in bases for s in given for line in s.check()]
    if default is not None:
        checks += default.check()
    if per_layer is not None:
        checks += _per_layer_lines(subject, *per_layer)
    if snippet:
        text += [snippet[0], "", "```python", *snippet[1], *checks, "```", ""]
    elif checks:
        text += ["```python", *checks, "```", ""]
    return "\n".join(text)


def _per_layer_lines(subject, guard: str, turns: dict) -> list[str]:
    """Snippet lines that evaluate the modeling code's own condition on one block that rotates and one that does not,
    of the representative checkpoint built on the meta device."""
    real = _module(subject.real)
    paths = {id(module): name for name, module in real.named_modules()}
    lines = _meta_lines(subject)
    for index in (next(i for i, t in turns.items() if t), next(i for i, t in turns.items() if not t)):
        path = paths.get(id(_attention_module(subject.real, index)))
        if path is None:
            return []
        condition = re.sub(r"\bself\.", "attention.", guard)
        lines += [f"attention = real.get_submodule({path!r})",
                  f"assert {'' if turns[index] else 'not '}({condition})   # block {index} "
                  + ("rotates" if turns[index] else "applies no rotary")]
    return lines


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
    found = _queries_beside(model, index, source)
    if found is None:
        return None
    pre, q = found
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
