"""MPT (MptForCausalLM).

transformer.{wte, blocks[i].{norm_1, attn.{Wqkv, out_proj}, norm_2, ffn.{up_proj, act, down_proj},
resid_attn_dropout}, norm_f} and lm_head, tied to wte. A sequential pre-norm block with bias-free LayerNorms and
Linears: h = x + attn(norm_1(x)), out = ffn(norm_2(h), h). The MLP adds the residual inside its own forward
(ffn(x_ln, residual) returns residual + dropout(down_proj(...))), so the ffn module's output is the stream and
mlp_output is down_proj's output, what the MLP adds; the attention returns its out_proj output and the block adds
it. The MLP is 4 x hidden_size wide whatever expansion_ratio says (transformers builds it so). No position
embeddings: ALiBi, a per-head bias on the key distance (alibi_bias_max 8) added to the scores; the transformers
implementation always applies it. The attention is MPT's own code (the model has no other, so the interior needs
no eager load and no sdpa load exists): one fused Wqkv, optionally clamped to +-clip_qkv, chunked into q, k and v
(every head has its own key and value), scores = q @ k^T * softmax_scale (1/sqrt(head_dim) unless the config sets
one) + alibi, the padding and causal mask filled in with the dtype's minimum, softmax in float32 cast back,
dropout, @ v. q, k and v are views of one chunk() of Wqkv's output, which torch forbids editing in place while
autograd records: they are served as copies taken where the forward binds them, and an edit is carried back.
"""

from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.sites import HEADS_AFTER_POSITIONS, WHOLE, Argument, Assigned, Call, Child, Read

FAMILY = Family(
    name="mpt",
    summary="MosaicML's MPT: a sequential block of bias-free LayerNorms and Linears whose MLP adds the residual "
            "itself, ALiBi in place of positions, and its own attention code.",
    tags=("Sequential block", "Residual inside modules", "ALiBi", "Fused qkv", "LayerNorm"),
    rename={
        "transformer.wte": "embed_tokens", "transformer.blocks": "layers", "transformer.norm_f": "norm",
        "attn": "self_attn", "out_proj": "o_proj", "norm_1": "input_layernorm", "norm_2": "post_attention_layernorm",
        "ffn": "mlp", "act": "act_fn",
    },
    sites={
        "attention_queries": Read(Assigned("query_states"), WHOLE, snapshot=True),
        "attention_keys": Read(Assigned("key_states"), WHOLE, snapshot=True),
        "attention_values": Read(Assigned("value_states"), WHOLE, snapshot=True),
        "attention_scores": Read(
            Call("nn.functional.softmax", "input"), Argument(0),
            description="The attention scores entering the softmax, masked, ALiBi included: q @ k^T * "
                        "softmax_scale + alibi, masked positions filled with the dtype's minimum, in float32"),
        "attention_probabilities": Read(Call("nn.functional.dropout"), WHOLE),
        "attention_head_outputs": Read(Call("torch.matmul", occurrence=1), WHOLE, HEADS_AFTER_POSITIONS),
        "mlp_output": Read(
            Child("down_proj"),
            description="What the MLP adds to the residual stream: down_proj's output, before the MLP adds the "
                        "residual itself (the ffn module's output is the stream)"),
    },
    accessors={"num_kv_heads": lambda c: c.num_attention_heads, "intermediate_size": lambda c: 4 * c.hidden_size},
    loads=EAGER_LOADS,
    tiny={"config_class": "MptConfig", "overrides": {
        "d_model": 64, "n_layers": 2, "n_heads": 4, "vocab_size": 300, "attn_config": {}}},
)
