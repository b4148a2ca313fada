"""Identical inputs for both sides: a tiny Llama saved by transformers, and circuit-tracer transcoders in its layout."""

import sys

import torch
from nnterp import tiny
from circuit_tracer.transcoder.single_layer_transcoder import SingleLayerTranscoder
folder = sys.argv[1]
model, tok = tiny.build("llama", num_hidden_layers=2)
model.save_pretrained(f"{folder}/tiny-llama"); tok.save_pretrained(f"{folder}/tiny-llama")
cfg = model.config
g = torch.Generator().manual_seed(0)
H = cfg.hidden_size
for l in range(cfg.num_hidden_layers):
    t = SingleLayerTranscoder(H, 4 * H, torch.relu, l, device=torch.device("cpu"), dtype=torch.float32)
    with torch.no_grad():
        t.W_enc.normal_(0, H ** -0.5, generator=g); t.W_dec.normal_(0, (4*H) ** -0.5, generator=g); t.b_enc.fill_(0.0)
    t.to_safetensors(f"{folder}/layer_{l}.safetensors")
