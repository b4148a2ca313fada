"""How keys and values are grouped over the query heads."""

from __future__ import annotations

from nnterp.encyclopedia.notes.derived.reading import _note
from nnterp.encyclopedia.notes.derived.subject import _own_heads, _serves, config_name


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
    stated = [subject.stated(*keys) for keys in (("num_attention_heads", "n_head", "num_heads", "n_heads"),
                                                 ("num_key_value_heads", "num_kv_heads", "n_head_kv",
                                                  ("attn_config", "kv_n_heads")))]
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
