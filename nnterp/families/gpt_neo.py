"""GPT-Neo (GPTNeoForCausalLM).

transformer.{wte, wpe, drop, h[i].{ln_1, attn.attention.{q_proj, k_proj, v_proj, out_proj}, ln_2, mlp.{c_fc, act,
c_proj}}, ln_f} and lm_head, tied to wte. GPT-2's sequential pre-norm block, h = x + attn(ln_1(x)), out = h +
mlp(ln_2(h)), returned as (hidden_states, attn_weights); token_embeddings is wte's output, before the learned
positions wpe are added. self_attn is the wrapper attn, which hands everything to attn.attention, the module that
does the arithmetic; its projections are aliased on the wrapper (q, k and v without bias, out_proj with one).
The blocks alternate global and local attention (attention_layers, from attention_types): a local block's causal
mask also hides every key more than window_size (256) positions back, so its scores are masked there. The
attention is GPT-Neo's own _attn, whatever attn_implementation says (the model has no sdpa path): q @ k^T in
float32 with no scale at all (GPT-Neo was trained without 1/sqrt(head_dim)), the causal or local mask put in with
torch.where as the float32 minimum, the padding mask added, softmax, a cast to the values' dtype, attn_dropout,
@ v. So attention_scores are float32 and unscaled, and the interior needs no eager load.
"""

from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.sites import HEADS_AFTER_POSITIONS, Argument, Call, Element, Read
from nnterp.families._gpt2 import TOKEN_EMBEDDINGS

_ATTN = "self._attn"

FAMILY = Family(
    name="gpt_neo",
    summary="EleutherAI's GPT-Neo: GPT-2's block alternating global and local (windowed) attention, computed by "
            "its own code in float32 without any 1/sqrt(head_dim) scale.",
    tags=("Sequential block", "Local attention", "Unscaled attention", "Learned positions", "LayerNorm"),
    rename={
        "transformer.wte": "embed_tokens", "transformer.h": "layers", "transformer.ln_f": "norm", "attn": "self_attn",
        "ln_1": "input_layernorm", "ln_2": "post_attention_layernorm", "attention.q_proj": "q_proj",
        "attention.k_proj": "k_proj", "attention.v_proj": "v_proj", "attention.out_proj": "o_proj",
        "mlp.c_proj": "mlp.down_proj", "c_fc": "up_proj", "act": "act_fn",
    },
    sites={
        "token_embeddings": TOKEN_EMBEDDINGS,
        "attention_queries": Read(Call(_ATTN, "input", child="attention"), Argument(0)),
        "attention_keys": Read(Call(_ATTN, "input", child="attention"), Argument(1)),
        "attention_values": Read(Call(_ATTN, "input", child="attention"), Argument(2)),
        "attention_scores": Read(
            Call("nn.functional.softmax", "input", inside=_ATTN, child="attention"), Argument(0),
            description="The attention scores entering the softmax, masked: q @ k^T in float32 with no scale "
                        "(GPT-Neo uses none), the causal or local window mask as the float32 minimum, plus the "
                        "padding mask"),
        "attention_probabilities": Read(Call("self.attn_dropout", inside=_ATTN, child="attention")),
        "attention_head_outputs": Read(Call(_ATTN, child="attention"), Element(0), HEADS_AFTER_POSITIONS),
    },
    loads=EAGER_LOADS,
    tiny={"config_class": "GPTNeoConfig", "overrides": {
        "hidden_size": 64, "num_layers": 2, "intermediate_size": 128, "vocab_size": 300, "bos_token_id": 1,
        "eos_token_id": 2, "attention_types": [[["global", "local"], 1]]}},
)

