"""TransformerLens 4.3: ``TransformerBridge`` over the same built model, ``run_with_cache``.

Booting forces eager attention on the model it is given (its hooks need the softmax), so every
TransformerLens scenario runs the eager kernel.
"""

from __future__ import annotations

import logging

import torch

from bench_models import lazily

NAME = "transformerlens"
logging.getLogger("transformer_lens").setLevel(logging.ERROR)

#: the Hub name of each family's adapter; with a built model given, nothing is fetched
ADAPTER_NAME = {"llama": "meta-llama/Llama-3.2-1B", "phi": "microsoft/phi-2"}

#: TransformerLens hooks equivalent to the residual values, per block
RESIDUAL_HOOKS = ("hook_resid_pre", "ln1.hook_out", "hook_attn_out", "hook_resid_mid", "ln2.hook_out",
                  "mlp.hook_in", "hook_mlp_out", "hook_resid_post")


def wrap(hf_model, tokenizer, family, device):
    from transformer_lens.model_bridge import TransformerBridge

    return TransformerBridge.boot_transformers(ADAPTER_NAME[family], hf_model=hf_model, tokenizer=tokenizer,
                                               device=device)


def versions() -> dict:
    import importlib.metadata as metadata

    return {name: metadata.version(name) for name in ("transformer-lens", "transformers", "torch")}


def scenarios(ctx) -> dict:
    ids, family, device = ctx.ids, ctx.spec.family, ctx.device
    bridge = wrap(ctx.twin("eager"), ctx.tokenizer, family, device)
    grad_bridge = lazily(lambda: wrap(ctx.twin("eager"), ctx.tokenizer, family, device))
    _, probe = bridge.run_with_cache(ids[:1, :4])
    names = set(probe.keys())
    wanted = {"hook_embed", "ln_final.hook_out"}
    for i in range(ctx.spec.config["num_hidden_layers"]):
        wanted |= {f"blocks.{i}.{hook}" for hook in RESIDUAL_HOOKS}
    residual = sorted(wanted & names)
    missing = sorted(hook for hook in RESIDUAL_HOOKS if f"blocks.0.{hook}" not in names)
    ctx.notes.append(f"TransformerLens residual hooks per block: {', '.join(h for h in RESIDUAL_HOOKS if h not in missing)}"
                     + (f"; absent on this model: {', '.join(missing)}" if missing else ""))
    ctx.notes.append(f"TransformerLens full cache: {len(names)} hooks")
    is_residual = set(residual).__contains__

    def logits():
        return bridge(ids)

    def residuals():
        return bridge.run_with_cache(ids, names_filter=is_residual)

    def everything():
        return bridge.run_with_cache(ids)

    def gradients():
        bridge_with_grads = grad_bridge()
        bridge_with_grads.zero_grad(set_to_none=True)
        with torch.enable_grad():
            return bridge_with_grads.run_with_cache(ids, return_type="loss", incl_bwd=True,
                                              names_filter=lambda name: name.endswith("hook_resid_post"))

    return {"transformerlens.logits": logits, "transformerlens.residuals": residuals,
            "transformerlens.all": everything, "transformerlens.grad": gradients}


def construction(ctx):
    return {"transformerlens.wrap": lambda model: wrap(model, ctx.tokenizer, ctx.spec.family, ctx.device)}
