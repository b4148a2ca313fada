"""nnterp 1.3.0 (on nnsight 0.7.0): the values its accessors offer.

It serves token_embeddings, each layer's input and output, the attention's and the MLP's
input and output, the attention probabilities (eager) and the logits; the rest of the residual
values and the attention interior have no accessor.
"""

from __future__ import annotations

import logging

import torch

import lib_nnsight
from bench_models import lazily, lm_loss

NAME = "nnterp-1.3.0"
logging.getLogger("nnterp").setLevel(logging.ERROR)


def wrap(hf_model, tokenizer, eager=False):
    from nnterp import StandardizedTransformer

    return StandardizedTransformer(hf_model, tokenizer=tokenizer, enable_attention_probs=eager)


def versions() -> dict:
    import importlib.metadata as metadata

    return {name: metadata.version(name) for name in ("nnterp", "nnsight", "transformers", "torch")}


def scenarios(ctx) -> dict:
    ids, extra = ctx.ids, lib_nnsight.trace_kwargs(ctx)
    sdpa = wrap(ctx.twin("sdpa"), ctx.tokenizer)
    eager = wrap(ctx.twin("eager"), ctx.tokenizer, eager=True)
    grad_hf = lazily(lambda: ctx.twin("sdpa"))
    grad_model = lazily(lambda: wrap(grad_hf(), ctx.tokenizer))
    ctx.notes.append("nnterp 1.3.0 reads per block, residual: layers_input, attentions_output, mlps_input, "
                     "mlps_output, layers_output (no accessor for the norms' outputs or the stream between "
                     "the sublayers); all: the same plus attention_probabilities (its only attention value)")

    def logits():
        with sdpa.trace(ids, **extra):
            value = sdpa.logits.save()
        return value

    def residuals():
        saved = []
        with sdpa.trace(ids, **extra):
            saved.append(sdpa.token_embeddings.save())
            for i in range(sdpa.num_layers):
                saved.append(sdpa.layers_input[i].save())
                saved.append(sdpa.attentions_output[i].save())
                saved.append(sdpa.mlps_input[i].save())
                saved.append(sdpa.mlps_output[i].save())
                saved.append(sdpa.layers_output[i].save())
            saved.append(sdpa.ln_final.output.save())
            saved.append(sdpa.logits.save())
        return saved

    def everything():
        saved = []
        with eager.trace(ids, **extra):
            saved.append(eager.input_ids.save())
            saved.append(eager.attention_mask.save())
            saved.append(eager.token_embeddings.save())
            for i in range(eager.num_layers):
                saved.append(eager.layers_input[i].save())
                saved.append(eager.attention_probabilities[i].save())
                saved.append(eager.attentions_output[i].save())
                saved.append(eager.mlps_input[i].save())
                saved.append(eager.mlps_output[i].save())
                saved.append(eager.layers_output[i].save())
            saved.append(eager.ln_final.output.save())
            saved.append(eager.logits.save())
            saved.append(eager.next_token_probs.save())
        return saved

    def gradients():
        grad_hf().zero_grad(set_to_none=True)
        grads, model = [], grad_model()
        with torch.enable_grad():
            with model.trace(ids, **extra):
                outputs = [model.layers_output[i] for i in range(model.num_layers)]
                loss = lm_loss(model.logits, ids)
                with loss.backward():
                    for h in reversed(outputs):
                        grads.append(h.grad.save())
        return grads

    found = {"nnterp-1.3.0.logits": logits, "nnterp-1.3.0.residuals": residuals,
             "nnterp-1.3.0.all": everything, "nnterp-1.3.0.grad": gradients}
    found.update(lib_nnsight.scenarios(ctx))
    return found


def construction(ctx):
    return {"nnsight.wrap": lambda model: lib_nnsight.wrap(model, ctx.tokenizer),
            "nnterp-1.3.0.wrap": lambda model: wrap(model, ctx.tokenizer)}
