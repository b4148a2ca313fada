"""circuit-tracer 0.5's attribution graphs of the tiny Llama, in circuit-tracer's own environment: with one transcoder
a block, and with the cross-layer transcoder.

    .venv-circuit-tracer/bin/python benchmarks/against_circuit_tracer/run_circuit_tracer.py FOLDER
    (writes FOLDER/ct_graph.pt and FOLDER/ct_clt_graph.pt)

(At exit circuit-tracer's ``__del__`` raises a TypeError inside TransformerLens 3.2.1's reset_hooks; the graph is
saved before.)
"""

import sys

import torch
from circuit_tracer import attribute
from circuit_tracer.replacement_model.replacement_model_transformerlens import TransformerLensReplacementModel
from circuit_tracer.transcoder.cross_layer_transcoder import load_clt
from circuit_tracer.transcoder.single_layer_transcoder import load_transcoder_set
from transformer_lens import HookedTransformerConfig
from transformer_lens.pretrained.weight_conversions import convert_llama_weights
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerFast

folder = sys.argv[1]
hf = AutoModelForCausalLM.from_pretrained(f"{folder}/tiny-llama", torch_dtype=torch.float32)
# transformers 4 cannot read transformers 5's tokenizer class: the same tokenizer.json, saved again by this version;
# a BOS token set, so circuit-tracer finds one
special = "<|endoftext|>"
tokenizer = PreTrainedTokenizerFast(tokenizer_file=f"{folder}/tiny-llama/tokenizer.json", bos_token=special,
                                    eos_token=special, pad_token=special)
tokenizer.save_pretrained(f"{folder}/tokenizer4")
tokenizer = AutoTokenizer.from_pretrained(f"{folder}/tokenizer4")
c = hf.config
config = HookedTransformerConfig(
    d_model=c.hidden_size, d_head=c.head_dim, n_heads=c.num_attention_heads, d_mlp=c.intermediate_size,
    n_layers=c.num_hidden_layers, n_ctx=128, d_vocab=c.vocab_size, act_fn="silu", normalization_type="RMS",
    eps=c.rms_norm_eps, positional_embedding_type="rotary", rotary_dim=c.head_dim, rotary_base=10000, gated_mlp=True,
    final_rms=True, n_key_value_heads=c.num_key_value_heads, original_architecture="LlamaForCausalLM",
    rotary_adjacent_pairs=False, default_prepend_bos=False, tokenizer_prepends_bos=False, dtype=torch.float32,
    device="cpu")
transcoders = load_transcoder_set({0: f"{folder}/layer_0.safetensors", 1: f"{folder}/layer_1.safetensors"}, "test",
                                  "hook_resid_mid", "hook_mlp_out", device=torch.device("cpu"), lazy_encoder=False,
                                  lazy_decoder=False)
clt = load_clt(f"{folder}/clt", "hook_resid_mid", "hook_mlp_out", device=torch.device("cpu"), dtype=torch.float32,
               lazy_decoder=False)
ids = torch.tensor([tokenizer.bos_token_id] + tokenizer("The Eiffel Tower is in", add_special_tokens=False).input_ids)
for name, replacement in (("ct_graph", transcoders), ("ct_clt_graph", clt)):
    model = TransformerLensReplacementModel(config, tokenizer=tokenizer)
    model.load_state_dict(convert_llama_weights(hf, config), strict=False)  # the rotary tables are buffers it makes
    model._configure_replacement_model(replacement)
    model.zero_positions = slice(0, 0)  # every position kept, as compare.py passes zero_positions=None
    with torch.no_grad():
        print("TransformerLens against transformers, max |logits diff|:",
              float((model(ids[None]) - hf(ids[None]).logits).abs().max()))
    graph = attribute(ids, model, max_n_logits=10, desired_logit_prob=0.95, batch_size=64, max_feature_nodes=None)
    torch.save({"adjacency": graph.adjacency_matrix, "active": graph.active_features,
                "selected": graph.selected_features, "activations": graph.activation_values,
                "logits": [t.vocab_idx for t in graph.logit_targets], "probs": graph.logit_probabilities,
                "tokens": graph.input_tokens}, f"{folder}/{name}.pt")
    print(f"circuit-tracer's graph ({name}):", tuple(graph.adjacency_matrix.shape), "nodes,",
          len(graph.selected_features), "latents")
