"""nnterp's attribution graph of the same tokens, weights and transcoders, compared with circuit-tracer's node by node."""

import json
import sys
from pathlib import Path

import torch
from nnterp import StandardizedTransformer
from nnterp.tools.graph import attribution_graph
from circuit_tracer.transcoder.single_layer_transcoder import load_transcoder_set
folder = sys.argv[1]
ct = torch.load(f"{folder}/ct_graph.pt", weights_only=False)
model = StandardizedTransformer(f"{folder}/tiny-llama", attn_implementation="eager", dispatch=True)
ts = load_transcoder_set({0: f"{folder}/layer_0.safetensors", 1: f"{folder}/layer_1.safetensors"}, "test", "hook_resid_mid",
                         "hook_mlp_out", device=torch.device("cpu"), lazy_encoder=False, lazy_decoder=False)
ids = ct["tokens"][None]
g = attribution_graph(model, ts, {"input_ids": ids, "attention_mask": torch.ones_like(ids)}, progress=False, batch_size=128)
print("logits", [t for t, _ in g.logit_tokens] == ct["logits"], "probs", (g.logit_probabilities - ct["probs"]).abs().max().item())
L, n = g.num_layers, g.n_pos
def keys(features, n_feat):
    out = [("f", *map(int, f)) for f in features]
    out += [("e", l, p) for l in range(L) for p in range(n)] + [("t", p) for p in range(n)] + [("l", i) for i in range(len(ct["logits"]))]
    return out
ct_feats = ct["active"][ct["selected"]]
ct_keys, nn_keys = keys(ct_feats, len(ct_feats)), keys(g.features, g.n_features)
print("nodes", len(ct_keys), len(nn_keys), set(ct_keys) == set(nn_keys))
index = {k: i for i, k in enumerate(nn_keys)}
order = torch.tensor([index[k] for k in ct_keys])
ours = g.adjacency[order][:, order]
theirs = ct["adjacency"].float()
diff = (ours - theirs).abs()
print("adjacency max |diff|", diff.max().item(), "max |entry|", theirs.abs().max().item(),
      "relative", (diff.max() / theirs.abs().max()).item(), "entries", theirs.numel(), "nonzero", int((theirs != 0).sum()))
act = dict(zip(ct_keys[:len(ct_feats)], ct["activations"].tolist()))
mine = dict(zip(nn_keys[:g.n_features], g.activations.tolist()))
print("activations max |diff|", max(abs(act[k] - mine[k]) for k in act))
print("completeness", g.completeness())
record = {"circuit_tracer": "0.5.0 (TransformerLens 3.2.1 backend, transformers 4.57.3)", "nodes": len(ct_keys),
          "active_latents": int(len(ct_feats)), "same_nodes": set(ct_keys) == set(nn_keys),
          "same_logit_targets": [t for t, _ in g.logit_tokens] == ct["logits"],
          "adjacency_max_abs_diff": diff.max().item(), "adjacency_max_abs_entry": theirs.abs().max().item(),
          "adjacency_entries": theirs.numel(), "adjacency_nonzero": int((theirs != 0).sum()),
          "activations_max_abs_diff": max(abs(act[k] - mine[k]) for k in act), "nnterp_completeness": g.completeness()}
out = Path(__file__).resolve().parents[1] / "recorded" / "circuit_tracer_comparison.json"
out.write_text(json.dumps(record, indent=2) + "\n")
print(json.dumps(record, indent=2))
