"""nnterp: the standard values, read through the standard names."""

from __future__ import annotations

import torch

import lib_nnsight
from bench_models import lazily, lm_loss

NAME = "nnterp"

#: every block value, in the order a sequential block computes it
BLOCK_ORDER = (
    ("layer", "layer_input"), ("layer", "attention_norm_output"),
    ("attention", "attention_queries"), ("attention", "attention_keys"), ("attention", "attention_values"),
    ("attention", "attention_scores"), ("attention", "attention_probabilities"),
    ("attention", "attention_head_outputs"), ("attention", "attention_premix"), ("attention", "attention_output"),
    ("layer", "layer_mid"), ("layer", "mlp_norm_output"), ("layer", "mlp_input"),
    ("mlp", "mlp_activation"), ("mlp", "mlp_neurons"), ("mlp", "mlp_output"), ("layer", "layer_output"),
)
#: a parallel block's one norm feeds both sublayers, so its MLP norm output comes before the attention
PARALLEL_ORDER = tuple(item for item in BLOCK_ORDER if item[1] not in ("layer_mid", "mlp_norm_output"))
PARALLEL_ORDER = PARALLEL_ORDER[:2] + (("layer", "mlp_norm_output"),) + PARALLEL_ORDER[2:]
RESIDUAL_KIND = "Residual"


def _transformerlens_api(model):
    from nnterp.transformerlens import HookedTransformer

    return HookedTransformer(model)


def wrap(hf_model, tokenizer):
    from nnterp import StandardizedTransformer

    return StandardizedTransformer(hf_model, tokenizer=tokenizer)


def versions() -> dict:
    import importlib.metadata as metadata

    return {name: metadata.version(name) for name in ("nnterp", "nnsight", "transformers", "torch")}


def _host(layer, host):
    return {"layer": layer, "attention": layer.self_attn, "mlp": layer.mlp}[host]


def block_values(model, residual_only: bool) -> list[tuple[str, str]]:
    """The (host, name) pairs this model serves under its load, in forward order."""
    from nnterp.declare.vocabulary import BY_NAME

    order = PARALLEL_ORDER if model.family.block.kind(model._nnterp_state.config) == "parallel" else BLOCK_ORDER
    layer = model.layers[0]
    chosen = []
    for host, name in order:
        if residual_only and BY_NAME[name].layout.kind != RESIDUAL_KIND:
            continue
        site = _host(layer, host)._nnterp_site(name)
        if site.served and (site.condition is None or site.condition.holds(model)):
            chosen.append((host, name))
    return chosen


def scenarios(ctx) -> dict:
    ids = ctx.ids
    sdpa = wrap(ctx.twin("sdpa"), ctx.tokenizer)
    eager = wrap(ctx.twin("eager"), ctx.tokenizer)
    grad_hf = lazily(lambda: ctx.twin("sdpa"))
    grad_model = lazily(lambda: wrap(grad_hf(), ctx.tokenizer))
    residual = block_values(sdpa, residual_only=True)
    every = block_values(eager, residual_only=False)
    ctx.notes.append(f"nnterp reads per block, residual: {', '.join(n for _, n in residual)}")
    ctx.notes.append(f"nnterp reads per block, all (eager): {', '.join(n for _, n in every)}")

    def logits():
        with sdpa.trace(ids):
            value = sdpa.logits.save()
        return value

    def residuals():
        saved = []
        with sdpa.trace(ids):
            saved.append(sdpa.token_embeddings.save())
            for layer in sdpa.layers:
                for host, name in residual:
                    saved.append(getattr(_host(layer, host), name).save())
            saved.append(sdpa.final_norm_output.save())
            saved.append(sdpa.logits.save())
        return saved

    def everything():
        saved = []
        with eager.trace(ids):
            saved.append(eager.input_ids.save())
            saved.append(eager.attention_mask.save())
            saved.append(eager.token_embeddings.save())
            for layer in eager.layers:
                for host, name in every:
                    saved.append(getattr(_host(layer, host), name).save())
            saved.append(eager.final_norm_output.save())
            saved.append(eager.lm_head_output.save())
            saved.append(eager.logits.save())
            saved.append(eager.next_token_probs.save())
        return saved

    def gradients():
        grad_hf().zero_grad(set_to_none=True)
        grads, model = [], grad_model()
        with torch.enable_grad():
            with model.trace(ids):
                outputs = [layer.layer_output for layer in model.layers]
                loss = lm_loss(model.logits, ids)
                with loss.backward():
                    for h in reversed(outputs):
                        grads.append(h.grad.save())
        return grads

    residual_names = ["token_embeddings", *dict.fromkeys(n for _, n in residual), "final_norm_output", "logits"]

    def cache_residuals():
        return sdpa.cache(ids, values=residual_names, progress=False)

    def cache_everything():
        return eager.cache(ids, progress=False)

    def cache_everything_named():  # the values computed beside the forward named too: the default before
        from nnterp.declare.vocabulary import BY_NAME

        return eager.cache(ids, values=list(BY_NAME), progress=False)

    # the TransformerLens API over the same eager model: run_with_cache beside model.cache, and run_with_hooks
    # (a hook reading every block's resid_post) beside the trace that reads the same values
    hooked = lazily(lambda: _transformerlens_api(eager))

    def tl_run_with_cache():
        return hooked().run_with_cache(ids)

    def tl_run_with_hooks():
        kept = []
        return hooked().run_with_hooks(ids, fwd_hooks=[(lambda name: name.endswith("hook_resid_post"),
                                                        lambda resid, hook: kept.append(resid))])

    def resid_post_trace():
        saved = []
        with eager.trace(ids):
            for layer in eager.layers:
                saved.append(layer.layer_output.save())
            saved.append(eager.logits.save())
        return saved

    found = {"nnterp.logits": logits, "nnterp.residuals": residuals, "nnterp.all": everything,
             "nnterp.grad": gradients, "nnterp.cache_residuals": cache_residuals, "nnterp.cache_all": cache_everything,
             "nnterp.cache_all_named": cache_everything_named, "nnterp.tl_run_with_cache": tl_run_with_cache,
             "nnterp.tl_run_with_hooks": tl_run_with_hooks, "nnterp.resid_post_trace": resid_post_trace}
    found.update(lib_nnsight.scenarios(ctx))
    _check_same_values(ctx, found, (("residuals", sdpa, residual), ("all", eager, every)))
    return found


def _check_same_values(ctx, found, cached) -> None:
    """nnterp and bare nnsight must read the same tensors (on twins with equal weights), and model.cache the
    tensors nnterp's trace reads."""
    with torch.no_grad():
        for kind in ("residuals", "all"):
            ours, native = found[f"nnterp.{kind}"](), found[f"nnsight.{kind}"]()
            same = len(ours) == len(native) and all(
                torch.equal(a.reshape(-1), b.reshape(-1)) for a, b in zip(ours, native))
            ctx.notes.append(f"{kind}: nnterp and bare nnsight read {len(ours)} and {len(native)} tensors, "
                             f"{'identical' if same else 'NOT identical'}")
            ctx.checks[f"same_values.{kind}"] = same
        for kind, model, names in cached:
            cache, traced = found[f"nnterp.cache_{kind}"](), found[f"nnterp.{kind}"]()
            keys = [name for name in ("input_ids", "attention_mask") if kind == "all"] + ["token_embeddings"]
            keys += [f"layers.{i}.{prefix}{name}" for i in range(model.num_layers) for host, name in names
                     for prefix in [{"layer": "", "attention": "self_attn.", "mlp": "mlp."}[host]]]
            keys += ["final_norm_output"] + (["lm_head_output"] if kind == "all" else []) + ["logits"]
            keys += ["next_token_probs"] if kind == "all" else []
            same = len(keys) == len(traced) and all(torch.equal(cache[k], v) for k, v in zip(keys, traced))
            ctx.notes.append(f"cache of {kind}: model.cache holds {len(cache)} tensors; the {len(traced)} the trace "
                             f"reads are {'identical' if same else 'NOT identical'}")
            ctx.checks[f"same_values.cache_{kind}"] = same
        kept, native = found["hooks.residuals"](), found["nnsight.residuals"]()
        same = len(kept) == len(native) and all(a is b or torch.equal(a, b) for a, b in zip(kept, native))
        ctx.notes.append(f"residuals: plain torch hooks keep {len(kept)} tensors, "
                         f"{'the same as bare nnsight reads' if same else 'NOT the same as bare nnsight reads'}")
        ctx.checks["same_values.hooks"] = same


def construction(ctx):
    """(name, build) pairs for construction timing: bare wrap and nnterp, each on a built model."""
    return {"nnsight.wrap": lambda model: lib_nnsight.wrap(model, ctx.tokenizer),
            "nnterp.wrap": lambda model: wrap(model, ctx.tokenizer)}
