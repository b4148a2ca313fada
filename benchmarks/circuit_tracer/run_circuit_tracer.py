"""circuit-tracer 0.5's attribution graph of the tiny Llama (run with circuit-tracer's own environment)."""

import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformer_lens import HookedTransformerConfig
from transformer_lens.pretrained.weight_conversions import convert_llama_weights
from circuit_tracer.transcoder.single_layer_transcoder import load_transcoder_set
from circuit_tracer.replacement_model.replacement_model_transformerlens import TransformerLensReplacementModel
from circuit_tracer import attribute
folder = sys.argv[1]
hf = AutoModelForCausalLM.from_pretrained(f"{folder}/tiny-llama", torch_dtype=torch.float32)
from transformers import PreTrainedTokenizerFast
tok = PreTrainedTokenizerFast(tokenizer_file=f"{folder}/tiny-llama/tokenizer.json", bos_token="<|endoftext|>", eos_token="<|endoftext|>", pad_token="<|endoftext|>")
tok.save_pretrained(f"{folder}/tok4"); tok = AutoTokenizer.from_pretrained(f"{folder}/tok4")
c = hf.config
cfg = HookedTransformerConfig(d_model=c.hidden_size, d_head=c.head_dim, n_heads=c.num_attention_heads, d_mlp=c.intermediate_size,
    n_layers=c.num_hidden_layers, n_ctx=128, d_vocab=c.vocab_size, act_fn="silu", normalization_type="RMS", eps=c.rms_norm_eps,
    positional_embedding_type="rotary", rotary_dim=c.head_dim, rotary_base=10000, gated_mlp=True, final_rms=True,
    n_key_value_heads=c.num_key_value_heads, original_architecture="LlamaForCausalLM", rotary_adjacent_pairs=False,
    default_prepend_bos=False, tokenizer_prepends_bos=False, dtype=torch.float32, device="cpu")
ts = load_transcoder_set({0: f"{folder}/layer_0.safetensors", 1: f"{folder}/layer_1.safetensors"}, "test", "hook_resid_mid", "hook_mlp_out", device=torch.device("cpu"), lazy_encoder=False, lazy_decoder=False)
model = TransformerLensReplacementModel(cfg, tokenizer=tok)
state = convert_llama_weights(hf, cfg)
missing = model.load_state_dict(state, strict=False)
print("missing", [k for k in missing.missing_keys if "IGNORE" not in k and "mask" not in k][:5])
model._configure_replacement_model(ts)
model.zero_positions = slice(0, 0)
ids = torch.tensor([tok.bos_token_id] + tok("The Eiffel Tower is in", add_special_tokens=False).input_ids)
with torch.no_grad():
    tl = model(ids[None])
    ref = hf(ids[None]).logits
print("tl vs hf logits", (tl - ref).abs().max().item())
g = attribute(ids, model, max_n_logits=10, desired_logit_prob=0.95, batch_size=64, max_feature_nodes=None)
torch.save({"adjacency": g.adjacency_matrix, "active": g.active_features, "selected": g.selected_features,
            "activations": g.activation_values, "logits": [t.vocab_idx for t in g.logit_targets], "probs": g.logit_probabilities,
            "tokens": g.input_tokens}, f"{folder}/ct_graph.pt")
print("ct graph", g.adjacency_matrix.shape, len(g.selected_features), [t.vocab_idx for t in g.logit_targets])
