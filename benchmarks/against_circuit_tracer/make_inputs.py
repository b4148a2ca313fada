"""Identical inputs for both sides: a tiny Llama saved by transformers, and circuit-tracer transcoders in its layout
(one a block, and a cross-layer transcoder in FOLDER/clt).

    python benchmarks/against_circuit_tracer/make_inputs.py FOLDER    (nnterp's python, with circuit-tracer --no-deps)
"""

import sys

import torch
from circuit_tracer.transcoder.cross_layer_transcoder import CrossLayerTranscoder
from circuit_tracer.transcoder.single_layer_transcoder import SingleLayerTranscoder

from nnterp import tiny

folder = sys.argv[1]
model, tokenizer = tiny.build("llama", num_hidden_layers=2)
model.save_pretrained(f"{folder}/tiny-llama")
tokenizer.save_pretrained(f"{folder}/tiny-llama")
width = model.config.hidden_size
generator = torch.Generator().manual_seed(0)
for layer in range(model.config.num_hidden_layers):
    transcoder = SingleLayerTranscoder(width, 4 * width, torch.relu, layer, device=torch.device("cpu"),
                                       dtype=torch.float32)
    with torch.no_grad():
        transcoder.W_enc.normal_(0, width ** -0.5, generator=generator)
        transcoder.W_dec.normal_(0, (4 * width) ** -0.5, generator=generator)
        transcoder.b_enc.fill_(0.0)  # ReLU at zero: about half the latents fire
    transcoder.to_safetensors(f"{folder}/layer_{layer}.safetensors")
clt = CrossLayerTranscoder(model.config.num_hidden_layers, 4 * width, width, lazy_decoder=False,
                           device=torch.device("cpu"), dtype=torch.float32)
with torch.no_grad():
    clt.W_enc.normal_(0, width ** -0.5, generator=generator)
    for decoder in clt.W_dec:
        decoder.normal_(0, (4 * width) ** -0.5, generator=generator)
    clt.b_dec.normal_(0, 0.01, generator=generator)
clt.to_safetensors(f"{folder}/clt")
