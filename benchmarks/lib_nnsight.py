"""Bare nnsight: the same locations the standard values are read at, under native names.

Works with nnsight 0.8.1 (``TransformersModel``) and 0.7.0 (``LanguageModel``), whose operation
numbering differs: 0.8 counts assignments too, so Llama's call is ``attention_interface_1``.
"""

from __future__ import annotations

import nnsight
import torch

from bench_models import lazily, lm_loss

try:
    from nnsight import TransformersModel as Wrapper
except ImportError:  # nnsight < 0.8
    from nnsight import LanguageModel as Wrapper

VERSION = nnsight.__version__
AT_LEAST_0_8 = tuple(map(int, VERSION.split(".")[:2])) >= (0, 8)
KERNEL_CALL = "attention_interface_1" if AT_LEAST_0_8 else "attention_interface_0"
#: 0.7 swaps the callee in before the call's inputs are served; 0.8 drills in once they are read
NESTED_SOURCE_FIRST = not AT_LEAST_0_8

#: native module names of the two families benchmarked
NATIVE = {
    "llama": dict(attention_norm="input_layernorm", mlp_norm="post_attention_layernorm", o_proj="o_proj",
                  act="act_fn", down="down_proj", final_norm="norm"),
    "phi": dict(attention_norm="input_layernorm", mlp_norm=None, o_proj="dense", act="activation_fn",
                down="fc2", final_norm="final_layernorm"),
}


def trace_kwargs(ctx) -> dict:
    """What a trace is given besides the ids, so that the model receives exactly what the bare call
    does (0.8 adds the all-ones mask itself; 0.7 passes the ids alone)."""
    return {} if AT_LEAST_0_8 else {"attention_mask": ctx.mask}


def wrap(hf_model, tokenizer):
    return Wrapper(hf_model, tokenizer=tokenizer)


def first(value):
    return value[0] if isinstance(value, tuple) else value


def residual_readers(family: str):
    """(standard name, native read) per block in forward order: every Residual value."""
    n = NATIVE[family]
    readers = [
        ("layer_input", lambda L: L.input),
        ("attention_norm_output", lambda L: getattr(L, n["attention_norm"]).output),
    ]
    if n["mlp_norm"] is None:  # a parallel block: one norm feeds both sublayers
        readers.append(("mlp_norm_output", lambda L: getattr(L, n["attention_norm"]).output))
    readers.append(("attention_output", lambda L: L.self_attn.output[0]))
    if n["mlp_norm"] is not None:
        readers += [
            ("layer_mid", lambda L: getattr(L, n["mlp_norm"]).input),
            ("mlp_norm_output", lambda L: getattr(L, n["mlp_norm"]).output),
        ]
    readers += [
        ("mlp_input", lambda L: L.mlp.input),
        ("mlp_output", lambda L: L.mlp.output),
        ("layer_output", lambda L: first(L.output)),
    ]
    return readers


def keeping_hooks(model, family: str, kept: list) -> None:
    """Plain torch hooks on the native modules the residual reads above use, each keeping a reference to
    the same tensor in ``kept``, in the same order: what keeping every residual value costs with no
    library at all (the forward can no longer reuse those buffers)."""
    n = NATIVE[family]
    keep_output = lambda module, args, output: kept.append(first(output))
    keep_input = lambda module, args, kwargs: kept.append(args[0] if args else kwargs["hidden_states"])
    hooks = [(model.model.embed_tokens, "output", keep_output)]
    for layer in model.model.layers:
        hooks.append((layer, "input", keep_input))
        attention_norm = getattr(layer, n["attention_norm"])
        hooks.append((attention_norm, "output", keep_output))
        if n["mlp_norm"] is None:  # a parallel block: the one norm's output is also the MLP's norm output
            hooks.append((attention_norm, "output", keep_output))
        hooks.append((layer.self_attn, "output", keep_output))
        if n["mlp_norm"] is not None:
            hooks += [(getattr(layer, n["mlp_norm"]), "input", keep_input),
                      (getattr(layer, n["mlp_norm"]), "output", keep_output)]
        hooks += [(layer.mlp, "input", keep_input), (layer.mlp, "output", keep_output), (layer, "output", keep_output)]
    hooks.append((getattr(model.model, n["final_norm"]), "output", keep_output))
    for module, kind, hook in hooks:
        if kind == "input":
            module.register_forward_pre_hook(hook, with_kwargs=True)
        else:
            module.register_forward_hook(hook)


def read_all_block(L, family: str, out: list) -> None:
    """Every value of one block (eager), attention interior included, in forward order."""
    n = NATIVE[family]
    out.append(L.input.save())
    out.append(getattr(L, n["attention_norm"]).output.save())
    if n["mlp_norm"] is None:
        out.append(getattr(L, n["attention_norm"]).output.save())
    kernel = getattr(L.self_attn.source, KERNEL_CALL)
    if NESTED_SOURCE_FIRST:
        inner = kernel.source
    args, _ = kernel.inputs
    if not NESTED_SOURCE_FIRST:
        inner = kernel.source
    out += [args[1].save(), args[2].save(), args[3].save()]
    out.append(inner.nn_functional_softmax_0.input.save())
    out.append(inner.nn_functional_dropout_0.output.save())
    out.append(kernel.output[0].save())
    out.append(getattr(L.self_attn, n["o_proj"]).input.save())
    out.append(L.self_attn.output[0].save())
    if n["mlp_norm"] is not None:
        out.append(getattr(L, n["mlp_norm"]).input.save())
        out.append(getattr(L, n["mlp_norm"]).output.save())
    out.append(L.mlp.input.save())
    out.append(getattr(L.mlp, n["act"]).output.save())
    out.append(getattr(L.mlp, n["down"]).input.save())
    out.append(L.mlp.output.save())
    out.append(first(L.output).save())


def scenarios(ctx) -> dict:
    family, ids, extra = ctx.spec.family, ctx.ids, trace_kwargs(ctx)
    sdpa = wrap(ctx.twin("sdpa"), ctx.tokenizer)
    eager = wrap(ctx.twin("eager"), ctx.tokenizer)
    grad_hf = lazily(lambda: ctx.twin("sdpa"))
    grad_model = lazily(lambda: wrap(grad_hf(), ctx.tokenizer))
    readers = residual_readers(family)
    final_norm = NATIVE[family]["final_norm"]

    kept, keeping = [], ctx.twin("sdpa")  # a twin of its own: its hooks stay on it
    keeping_hooks(keeping, family, kept)

    def keep_residuals():
        kept.clear()
        logits = keeping(input_ids=ids, attention_mask=ctx.mask).logits
        found = [*kept, logits]
        kept.clear()
        return found

    def trace():
        with sdpa.trace(ids, **extra):
            pass

    def logits():
        with sdpa.trace(ids, **extra):
            value = sdpa.output.logits.save()
        return value

    def residuals():
        saved = []
        with sdpa.trace(ids, **extra):
            saved.append(sdpa.model.embed_tokens.output.save())
            for L in sdpa.model.layers:
                for _, read in readers:
                    saved.append(read(L).save())
            saved.append(getattr(sdpa.model, final_norm).output.save())
            saved.append(sdpa.output.logits.save())
        return saved

    def everything():
        saved = []
        with eager.trace(ids, **extra):
            args, kwargs = eager.inputs
            saved.append(kwargs["input_ids"].save())
            saved.append(kwargs["attention_mask"].save())
            saved.append(eager.model.embed_tokens.output.save())
            for L in eager.model.layers:
                read_all_block(L, family, saved)
            saved.append(getattr(eager.model, final_norm).output.save())
            saved.append(eager.lm_head.output.save())
            value = eager.output.logits
            saved.append(value.save())
            saved.append(value[:, -1].softmax(-1).save())
        return saved

    def gradients():
        grad_hf().zero_grad(set_to_none=True)
        grads, model = [], grad_model()
        with torch.enable_grad():
            with model.trace(ids, **extra):
                outputs = [first(L.output) for L in model.model.layers]
                loss = lm_loss(model.output.logits, ids)
                with loss.backward():
                    for h in reversed(outputs):
                        grads.append(h.grad.save())
        return grads

    return {"nnsight.trace": trace, "nnsight.logits": logits, "nnsight.residuals": residuals,
            "nnsight.all": everything, "nnsight.grad": gradients, "hooks.residuals": keep_residuals}


def residual_names(family: str) -> list[str]:
    return ["token_embeddings", *(name for name, _ in residual_readers(family)), "final_norm_output", "logits"]
