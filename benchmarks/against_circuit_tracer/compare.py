"""nnterp's attribution graphs of the same tokens, weights and transcoders (one a block, and the cross-layer
transcoder), compared with circuit-tracer's node by node."""

import json
import sys
from pathlib import Path

import torch
from circuit_tracer.transcoder.cross_layer_transcoder import load_clt
from circuit_tracer.transcoder.single_layer_transcoder import load_transcoder_set
from nnterp import StandardizedTransformer
from nnterp.tools.graph import attribution_graph

folder = sys.argv[1]
model = StandardizedTransformer(f"{folder}/tiny-llama", attn_implementation="eager", dispatch=True)
transcoders = load_transcoder_set({0: f"{folder}/layer_0.safetensors", 1: f"{folder}/layer_1.safetensors"}, "test",
                                  "hook_resid_mid", "hook_mlp_out", device=torch.device("cpu"), lazy_encoder=False,
                                  lazy_decoder=False)
clt = load_clt(f"{folder}/clt", "hook_resid_mid", "hook_mlp_out", device=torch.device("cpu"), dtype=torch.float32)


def compare(ct, replacement) -> dict:
    ids = ct["tokens"][None]
    g = attribution_graph(model, replacement, {"input_ids": ids, "attention_mask": torch.ones_like(ids)},
                          progress=False, batch_size=128, zero_positions=None)  # circuit-tracer ran with none
    L, n = g.num_layers, g.n_pos

    def keys(features):
        out = [("f", *map(int, f)) for f in features]
        out += [("e", l, p) for l in range(L) for p in range(n)] + [("t", p) for p in range(n)]
        return out + [("l", i) for i in range(len(ct["logits"]))]

    ct_feats = ct["active"][ct["selected"]]
    ct_keys, nn_keys = keys(ct_feats), keys(g.features)
    index = {k: i for i, k in enumerate(nn_keys)}
    order = torch.tensor([index[k] for k in ct_keys])
    theirs = ct["adjacency"].float()
    diff = (g.adjacency[order][:, order] - theirs).abs()
    act = dict(zip(ct_keys[:len(ct_feats)], ct["activations"].tolist()))
    mine = dict(zip(nn_keys[:g.n_features], g.activations.tolist()))
    return {"circuit_tracer": "0.5.0 (TransformerLens 3.2.1 backend, transformers 4.57.3)", "nodes": len(ct_keys),
            "active_latents": int(len(ct_feats)), "same_nodes": set(ct_keys) == set(nn_keys),
            "same_logit_targets": [t for t, _ in g.logit_tokens] == ct["logits"],
            "logit_probabilities_max_abs_diff": (g.logit_probabilities - ct["probs"]).abs().max().item(),
            "adjacency_max_abs_diff": diff.max().item(), "adjacency_max_abs_entry": theirs.abs().max().item(),
            "adjacency_entries": theirs.numel(), "adjacency_nonzero": int((theirs != 0).sum()),
            "activations_max_abs_diff": max(abs(act[k] - mine[k]) for k in act),
            "nnterp_completeness": g.completeness()}


recorded = Path(__file__).resolve().parents[1] / "recorded"
for name, replacement, record in (("ct_graph", transcoders, "circuit_tracer_comparison.json"),
                                  ("ct_clt_graph", clt, "circuit_tracer_clt_comparison.json")):
    result = compare(torch.load(f"{folder}/{name}.pt", weights_only=False), replacement)
    (recorded / record).write_text(json.dumps(result, indent=2) + "\n")
    print(record, json.dumps(result, indent=2))
