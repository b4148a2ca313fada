"""The common conventions every family starts from: where each standard value is read on a Llama-like model
(``COMMON_SITES``), its native module names (``COMMON_RENAME``) and config fields (``COMMON_ACCESSORS``), and the
rotary inference that locates the queries and keys before the rotary embedding from the attention's own forward."""

from __future__ import annotations

import ast
import re
from dataclasses import fields, replace
from functools import partial
from typing import Any, Callable

from nnterp.declare import labels
from nnterp.declare.companions import Companion, RotaryInput, WholeBeforeSplit, contributions_of, input_of, scale_of
from nnterp.declare.layouts import HEADS_AFTER_POSITIONS, SAME, SPLIT_HEADS
from nnterp.declare.locations import (
    EAGER_ONLY, KERNEL_ARGUMENTS, WHOLE, Argument, Assigned, Attribute, Call, Child, Element, Own,
)
from nnterp.declare.vocabulary import VALUES
from nnterp.declare.writeback import Derived, Nowhere, Read, Site


def _forward_source(module) -> str:
    try:
        return labels.compiled_forward(module).source
    except Exception:  # a forward nnsight cannot compile has no operation to read either
        return ""


#: what a forward that applies a rotary embedding mentions
_ROTARY_WORDS = ("rotary", "rope", "position_embeddings", "freqs_cis")
_ROTARY = "apply_rotary_pos_emb"


def _rotary_calls(module):
    """The attention's calls of apply_rotary_pos_emb in its forward's syntax tree (the compiled source)."""
    source = _forward_source(module)
    if not source:
        return source, []
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == _ROTARY]
    return source, [(call, parents) for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset))]


def _runs(call, parents, module) -> bool | None:
    """Whether the forward reaches this call on this block: the conditions of the ifs around it, evaluated on
    the attention module where they read only its attributes (``self.sliding_window is not None``); None where
    one reads anything else (an argument)."""
    node, runs = call, True
    while node in parents:
        parent = parents[node]
        if isinstance(parent, ast.If):
            names = {n.id for n in ast.walk(parent.test) if isinstance(n, ast.Name)}
            if names - {"self", "None", "True", "False"}:
                return None
            try:
                holds = bool(_evaluate(parent.test, module))
            except Exception:  # an attribute the module lacks, or a test written otherwise: cannot tell
                return None
            runs = runs and (holds if node in parent.body else not holds)
        node = parent
    return runs


_COMPARISONS = {
    ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b, ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def _evaluate(test: ast.expr, module):
    """An if's test that reads only the module's attributes and constants (``self.sliding_window is not None or
    self.is_sliding``), evaluated on ``module``; anything else raises ValueError."""
    if isinstance(test, ast.Constant):
        return test.value
    if isinstance(test, ast.Name) and test.id == "self":
        return module
    if isinstance(test, ast.Attribute):
        return getattr(_evaluate(test.value, module), test.attr)
    if isinstance(test, ast.Tuple):
        return tuple(_evaluate(element, module) for element in test.elts)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return not _evaluate(test.operand, module)
    if isinstance(test, ast.BoolOp):
        value = None
        for operand in test.values:  # short-circuits as Python does
            value = _evaluate(operand, module)
            if (not value) if isinstance(test.op, ast.And) else value:
                return value
        return value
    if isinstance(test, ast.Compare) and all(type(op) in _COMPARISONS for op in test.ops):
        left = _evaluate(test.left, module)
        for op, comparator in zip(test.ops, test.comparators):
            right = _evaluate(comparator, module)
            if not _COMPARISONS[type(op)](left, right):
                return False
            left = right
        return True
    raise ValueError(f"not a test of the module's attributes: {ast.unparse(test)}")


def _interleaves(module, source: str) -> bool | None:
    """Whether this block's attention rotates interleaved pairs (DeepSeek's ``apply_rotary_pos_emb_interleave``,
    chosen by its config), None where the choice depends on what the forward is called with."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id == f"{_ROTARY}_interleave"]
    runs = [_runs(call, parents, module) for call in calls]
    return None if None in runs else any(runs)


def _normed_after(source: str, target: str) -> str | None:
    """The norm module an attention applies to its rotated queries or keys right after the rotary (RoPE then norm:
    Hunyuan, nanochat), else None."""
    found = re.search(rf"{_ROTARY}\([^\n]*\)\n(?:\s*(?:#[^\n]*)?\n)*((?:\s*\w+ = self\.\w+\(\w+\)\n)+)", source)
    if not found:
        return None
    for name, norm, argument in re.findall(r"(\w+) = self\.(\w+)\((\w+)\)", found.group(1)):
        if name == argument == target:
            return norm
    return None


def _unrotated(rotated: str, index: int):
    """What enters the rotary: an argument of the attention's apply_rotary_pos_emb call (the first two of a
    call on queries and keys together, the first of one call each); where this block's attention has no rotary,
    the value itself (the rotated and unrotated queries are one tensor)."""
    which = rotated.split("_")[1]
    unlocated = Nowhere(f"the attention's rotary is applied by no apply_rotary_pos_emb call this family declares a "
                        f"site for, so the {which} before it are not located")
    same = Companion(rotated, lambda site, module: site)
    split = Nowhere(f"the attention splits each head into its rotary dims and the rest before the rotary (partial "
                    f"rotary) in a way nnterp does not follow, so the whole {which} before it are not located")
    latent = Nowhere(f"no one tensor holds the whole {which} before the rotary: the attention cuts the one rotary "
                     f"key all heads share from its latent (kv_a_proj_with_mqa's output) and makes each head's rest "
                     f"from the normed latent afterwards (kv_b_proj), joining the two only after the rotary")
    branch = Nowhere(f"whether the attention applies its rotary depends on what its forward is called with, so "
                     f"the {which} before it are not located")
    made: dict = {}

    def site(context):
        source, calls = _rotary_calls(context.module)
        if not calls:
            return unlocated if any(word in source for word in _ROTARY_WORDS) else same
        if re.search(rf"{_ROTARY}\(\s*(q|query)_rot", source):
            whole = _before_the_split(context.module, source, which)
            if whole is None:
                return split
            if whole == LATENT:
                return latent
            interleaved = _interleaves(context.module, source)
            if interleaved is None:
                return branch
            key = (*whole, interleaved)
            if key not in made:
                name, occurrence, heads_after, last = whole
                part = "last" if last else "first"
                pairs = (", in the interleaved pairs the rotary rotates together (x0, x1), (x2, x3), ...; the rotated "
                         "ones have the pairs' first members, then their second" if interleaved else "")
                # a copy, as at the rotary's call: the whole may be a view of one split(), not editable in place
                made[key] = WholeBeforeSplit(
                    Assigned(name, occurrence=occurrence), WHOLE, HEADS_AFTER_POSITIONS if heads_after else SAME,
                    snapshot=True, rotary_last=last, interleaved=interleaved, description=(
                        f"The whole {which} before the attention splits each head into its rotary dims and the rest "
                        f"(partial rotary, the rotary dims {part}{pairs}), after any {which[0]} norm: the rotary dims "
                        f"are what it rotates"))
            return made[key]
        paired = len(calls[0][0].args) >= 4  # apply_rotary_pos_emb(q, k, cos, sin) against (x, cos, sin)
        if not paired and len(calls) != 2:
            return unlocated
        call, parents = calls[0] if paired else calls[index]
        runs = _runs(call, parents, context.module)
        if runs is None:
            return branch
        if not runs:
            return same
        heads_after = any(k.arg == "unsqueeze_dim" and getattr(k.value, "value", None) == 2 for k in call.keywords)
        target = call.args[index if paired else 0]
        norm = _normed_after(source, target.id) if isinstance(target, ast.Name) else None
        key = (paired, heads_after, norm)
        if key not in made:
            # a copy taken at the call: some attentions hand the rotary views of one split(), which torch forbids
            # editing in place; an edit is carried back into the call's arguments
            made[key] = RotaryInput(
                Call(_ROTARY, "input", occurrence=0 if paired else index), Argument(index if paired else 0),
                HEADS_AFTER_POSITIONS if heads_after else SAME, snapshot=True, normed_after=norm,
                description=None if norm is None else (
                    f"The {which} entering the rotary embedding; the attention norms them after it ({norm})"))
        return made[key]
    return site


#: ``_before_the_split``'s answer where the keys' rotary dims are cut from MLA's latent, not from the whole keys
LATENT = "latent"


def _before_the_split(module, source: str, which: str):
    """(name, occurrence, heads after positions, rotary dims last) of the assignment that binds the whole queries
    or keys a partial rotary splits (``q_rot = x[..., : self.rotary_ndims]``, ``q_rot, q_pass = (x[...], x[...])``,
    ``q_rot, q_pass = torch.split(x, ...)``, or MLA's ``q_pass, q_rot = torch.split(x, ...)``, the rotary dims
    last): the last assignment of ``x`` before the split that this block's forward runs (its q/k norm's, where the
    attention has one), laid out heads after positions where the forward transposes ``x`` after the rotary.
    ``LATENT`` where the keys' rotary dims are cut from MLA's latent (``kv_nope, k_rot = torch.split(...)``); None
    where the split is written otherwise or a branch depends on what the forward is called with."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    rotated = re.compile(rf"({which[0]}|{'key' if which == 'keys' else 'query'})_rot$")

    def split_of(node):
        """(the name a rotary part is cut from in this assignment, whether the rotary part comes last, the other
        part's name); else None."""
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            return None
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and rotated.match(target.id) and isinstance(value, ast.Subscript) \
                and isinstance(value.value, ast.Name):
            return value.value.id, False, None
        parts = [part.id if isinstance(part, ast.Name) else "" for part in getattr(target, "elts", ())]
        last = len(parts) == 2 and rotated.match(parts[1]) is not None
        if not parts or not (rotated.match(parts[0]) or last):
            return None
        other = parts[0] if last else parts[1] if len(parts) > 1 else ""
        if not last and isinstance(value, ast.Tuple) and value.elts and isinstance(value.elts[0], ast.Subscript) \
                and isinstance(value.elts[0].value, ast.Name):
            return value.elts[0].value.id, False, other
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "split":
            cut = value.args[0] if isinstance(value.func.value, ast.Name) and value.func.value.id == "torch" \
                and value.args else value.func.value
            return (cut.id, last, other) if isinstance(cut, ast.Name) else None
        return None

    splits = sorted(((node, split_of(node)) for node in ast.walk(tree) if split_of(node) is not None),
                    key=lambda found: (found[0].lineno, found[0].col_offset))
    if not splits:
        return None
    split, (name, rotary_last, other) = splits[0]
    if rotary_last and which == "keys" and other.startswith("kv"):
        return LATENT  # MLA: the rotary key is cut from the latent, the rest of each key is made from it later
    if _runs(split, parents, module) is not True:
        return None
    assignments = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Assign) and len(node.targets) == 1
                          and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name),
                         key=lambda node: (node.lineno, node.col_offset))
    chosen, after = None, False
    for occurrence, node in enumerate(assignments):
        if (node.lineno, node.col_offset) >= (split.lineno, split.col_offset):
            moved = [n for n in ast.walk(node.value) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr in ("transpose", "permute")]
            after = after or bool(moved)
            continue
        runs = _runs(node, parents, module)
        if runs is None:
            return None
        if runs:
            chosen = occurrence
    return None if chosen is None else (name, chosen, after, rotary_last)


def _standard_children(context) -> set[str]:
    """The standard names of a host's native children (its own names where the family renames none)."""
    rename = context.family.all_rename
    names = set()
    for child in context.module._modules:
        alias = next((alias for key, alias in rename.items() if isinstance(key, str) and isinstance(alias, str)
                      and key.rsplit(".", 1)[-1] == child), child)
        names.add(alias.rsplit(".", 1)[-1])
    return names


def _up(context):
    """A gated MLP's up projection: up_proj's output beside a gate_proj; unavailable, for the same reason, where
    the activation is (a block of experts)."""
    activation = context.family.site("mlp_activation", context)
    if not activation.served:
        return _UNAVAILABLE_LIKE.setdefault(activation.reason, Nowhere(activation.reason))
    children = _standard_children(context)
    if {"gate_proj", "up_proj"} <= children:
        return _UP
    return _FUSED_UP if "gate_up_proj" in children else _NOT_GATED


_UP = Read(Child("up_proj"))
_UNAVAILABLE_LIKE: dict = {}
_FUSED_UP = Nowhere("gate and up come out of one fused gate_up_proj, split inside the forward; no site is declared "
                    "for the up half")
_NOT_GATED = Nowhere("the MLP is not gated: the activation's output is what the down projection receives")


#: Where every value is read on the common conventions (Llama's module names, a sequential
#: pre-norm block, the attention kernel called through ``attention_interface``).
COMMON_SITES: dict[str, Site] = {
    # the model
    "logits": Read(Own("output"), Attribute("logits")),
    "token_embeddings": Read(Child("embed_tokens")),
    "final_norm_output": Read(Child("norm")),
    "final_norm_scale": Companion("final_norm_output", partial(scale_of, value="final_norm_output")),
    "lm_head_output": Read(Child("lm_head")),
    "next_token_probs": Derived(Read(Own("output"), Attribute("logits")), lambda logits: logits[:, -1].softmax(-1)),
    "input_ids": Read(Own("input"), Argument(0, "input_ids")),
    "attention_mask": Read(Own("input"), Argument(1, "attention_mask")),
    "input_size": Derived(Read(Own("input"), Argument(0, "input_ids")), lambda ids: tuple(ids.shape[:2])),
    # the block
    "layer_input": Read(Own("input"), Argument(0, "hidden_states")),
    "attention_norm_output": Read(Child("input_layernorm")),
    "attention_norm_scale": Companion("attention_norm_output", partial(scale_of, value="attention_norm_output")),
    "layer_mid": Read(Child("post_attention_layernorm", "input"), Argument(0), shared=True),
    "mlp_norm_output": Read(Child("post_attention_layernorm")),
    "mlp_norm_scale": Companion("mlp_norm_output", partial(scale_of, value="mlp_norm_output")),
    "mlp_input": Read(Child("mlp", "input"), Argument(0)),
    "layer_output": Read(Own("output"), Element(0)),
    # the attention
    "attention_queries": Read(Call("attention_interface", "input"), Argument(1), condition=KERNEL_ARGUMENTS),
    "attention_keys": Read(Call("attention_interface", "input"), Argument(2), condition=KERNEL_ARGUMENTS),
    "attention_queries_unrotated": _unrotated("attention_queries", 0),
    "attention_keys_unrotated": _unrotated("attention_keys", 1),
    "attention_values": Read(Call("attention_interface", "input"), Argument(3), condition=KERNEL_ARGUMENTS),
    "attention_scores": Read(
        Call("nn.functional.softmax", "input", inside="attention_interface", eager="eager_attention_forward"),
        Argument(0), condition=EAGER_ONLY),
    "attention_premix": Read(Child("o_proj", "input"), Argument(0), SPLIT_HEADS),
    "attention_head_contributions": Companion("attention_premix", partial(contributions_of, value="attention_premix"),
                                              also=("attention_output",)),
    "attention_output": Read(Own("output"), Element(0)),
    "attention_probabilities": Read(
        Call("nn.functional.dropout", "output", inside="attention_interface", eager="eager_attention_forward"),
        condition=EAGER_ONLY),
    "attention_head_outputs": Read(Call("attention_interface", "output"), Element(0), condition=KERNEL_ARGUMENTS),
    # the MLP
    "mlp_preactivation": Companion("mlp_activation", partial(input_of, value="mlp_activation")),
    "mlp_activation": Read(Child("act_fn")),
    "mlp_up": _up,
    "mlp_neurons": Read(Child("down_proj", "input"), Argument(0)),
    "mlp_output": Read(Own("output"), Element(0)),
}
assert set(COMMON_SITES) == {spec.name for spec in VALUES}

def described(site: "Site | str", sentence: str, **changes) -> Site:
    """A site (or the common site of a value name) in a family's own words, any other field changed too
    (``described("attention_values", text, snapshot=True)``). A family declaring only the words writes the
    sentence alone in ``sites``."""
    return replace(COMMON_SITES[site] if isinstance(site, str) else site, description=sentence, **changes)


def _same_site(a: Site, b: Site) -> bool:
    """Whether two sites read at the same place the same way, whatever their descriptions say."""
    if type(a) is not type(b):
        return False
    for item in fields(a):
        if item.name == "description":
            continue
        x, y = getattr(a, item.name), getattr(b, item.name)
        if item.name == "source":
            if not (_same_site(x, y) and x.description == y.description):
                return False
        elif item.name == "layout":
            if type(x) is not type(y) or vars(x) != vars(y):
                return False
        elif x is not y and x != y:
            return False
    return True


#: Native paths of the common conventions, aliased to the standard names.
COMMON_RENAME = {"model.layers": "layers", "model.embed_tokens": "embed_tokens", "model.norm": "norm"}


def _config_get(config, *names, default=None):
    for name in names:
        value = getattr(config, name, None)
        if value is not None:
            return value
    return default


#: Config accessors on the common conventions; a family overrides any of them.
COMMON_ACCESSORS: dict[str, Callable[[Any], Any]] = {
    "hidden_size": lambda c: c.hidden_size,
    "num_heads": lambda c: c.num_attention_heads,
    "num_kv_heads": lambda c: _config_get(c, "num_key_value_heads", "num_attention_heads"),
    "head_dim": lambda c: _config_get(c, "head_dim", default=c.hidden_size // c.num_attention_heads),
    "qk_head_dim": lambda c: _config_get(c, "head_dim", default=c.hidden_size // c.num_attention_heads),
    "vocab_size": lambda c: c.vocab_size,
    "intermediate_size": lambda c: _config_get(c, "intermediate_size", default=4 * c.hidden_size),
}

