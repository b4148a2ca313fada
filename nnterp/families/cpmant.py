"""CPM-Ant (CpmAntForCausalLM).

cpmant.{input_embedding, segment_embedding, position_bias, encoder.{layers[i].{self_att.{layernorm_before_attention,
self_attention.{project_q, project_k, project_v, softmax, dropout, attention_out}}, ffn.{layernorm_before_ffn,
ffn.{w_in.{w_0, w_1, act}, dropout, w_out}}}, output_layernorm}} and lm_head, a separate [vocab_size, hidden_size]
matrix (input_embedding is longer: it also holds the prompt embeddings, so nothing is tied). Every call is prefixed:
the model prepends prompt_length learned prompt tokens (ids vocab_size + 2·prompt_length onwards) to the ids, adds
segment_embedding (segment 0 on the prompt, 2 on every token whose id is not 0, 0 on id 0, which counts as left
padding; the attention_mask argument is ignored) and runs the blocks on prompt_length + seq positions; after the
final norm it drops the prompt positions and lm_head reads the call's own. The standard values are served over the
call's positions: the residual values, the queries, the head outputs and the patterns' query rows are views that
leave the first prompt_length positions out (an edit of them reaches the model, an assignment is carried back
beside the untouched prompt positions); a generation step with a cache runs the blocks on its new positions only,
with no prompt, and its values are served whole. A sequential pre-norm block whose two halves are modules that add
the residual themselves: self_att computes h = x + self_attention(layernorm_before_attention(x)) and ffn computes
out = h + ffn(layernorm_before_ffn(h)) (each with a dropout that is None at dropout_p 0), so self_att's output is
layer_mid, and self_attn (self_att.self_attention) and mlp (ffn.ffn) are the attention and the feed-forward
themselves, whose outputs are what the block adds; the norms are RMSNorms in float32 named CpmAntLayerNorm, without
bias. The attention is CPM-Ant's own code (the model has no other, so the interior needs no eager load and no sdpa
load exists): every head has its own key and value, scores = q k^T / sqrt(dim_head) + position_bias, a T5-style
bucketed relative-position bias per head computed once by cpmant.position_bias (a pair across segments,
prompt and call, takes a segment-pair bucket in place of a distance bucket), masked with -inf, the softmax
module, masked positions set back to 0, dropout, @ v, then attention_out. The mask is not causal: the model marks every position as context, so each position attends to every
prompt and call position, those after it included (the logits at a position depend on the tokens that follow it).
Because the prompt positions are keys of every call position, attention_keys, attention_values and the key
axis of attention_scores and attention_probabilities span prompt_length + seq positions, the prompt's first
(the family's positions.ahead); their query rows, the queries, head outputs and merged heads are the call's. The MLP is gated: w_out(gelu(w_0 x) · w_1 x), with w_0 the gate
and w_1 the up projection, dim_ff wide.
"""

from __future__ import annotations

from nnterp.declare.family import EAGER_LOADS, Family, Positions
from nnterp.declare.sites import (
    HEADS_AFTER_POSITIONS, SPLIT_HEADS, WHOLE, Argument, Assigned, Call, CallPositions, Child, Element, Own, Read,
)


# the call's positions come after the prompt's; on a cached generation step the blocks run on the new positions
# alone, which are then all the call's
STREAM = CallPositions(1, from_end=True)     # [batch prompt+seq hidden] -> [batch seq hidden]
HEAD_ROWS = CallPositions(2, from_end=True)  # [batch heads prompt+seq ...] -> [batch heads seq ...]
HEAD_OUTPUTS = CallPositions(2, HEADS_AFTER_POSITIONS, from_end=True)
MERGED_HEADS = CallPositions(1, SPLIT_HEADS, from_end=True)

FAMILY = Family(
    name="cpmant",
    positions=Positions(ahead=lambda config: config.prompt_length),
    summary="OpenBMB's Chinese CPM-Ant: every call prefixed with learned prompt tokens, a sequential block whose "
            "halves add the residual themselves, relative position buckets, and attention that is not causal.",
    tags=("Sequential block", "Residual inside modules", "Learned prompt prefix", "Relative position bias",
          "Bidirectional attention", "Gated MLP", "RMSNorm"),
    rename={
        "cpmant.input_embedding": "embed_tokens", "cpmant.encoder.layers": "layers",
        "cpmant.encoder.output_layernorm": "norm",
        "self_att.self_attention": "self_attn", "self_att.layernorm_before_attention": "input_layernorm",
        "ffn.layernorm_before_ffn": "post_attention_layernorm", "ffn.ffn": "mlp",
        "project_q": "q_proj", "project_k": "k_proj", "project_v": "v_proj", "attention_out": "o_proj",
        "w_in.w_0": "gate_proj", "w_in.w_1": "up_proj", "w_in.act": "act_fn", "w_out": "down_proj",
    },
    sites={
        # the model: the embedding and the final norm run over the prompt positions too
        "token_embeddings": Read(
            Child("embed_tokens"), layout=STREAM,
            description="input_embedding's output over the call's positions (the prompt positions left out), before "
                        "segment_embedding is added; layers[0].input is that sum"),
        "final_norm_output": Read(
            Child("norm"), layout=STREAM,
            description="output_layernorm's output over the call's positions, the slice lm_head reads"),
        "attention_mask": "The attention mask the model was called with, which CPM-Ant ignores: it takes padding from "
                          "the ids (id 0 is left padding)",
        # the block: its sub-blocks add the residual themselves
        "layer_input": Read(Own("input"), Argument(0, "hidden_states"), STREAM),
        "attention_norm_output": Read(Child("input_layernorm"), layout=STREAM),
        "layer_mid": Read(
            Child("self_att"), Element(0), STREAM,
            description="The residual stream after the attention add: self_att's output, which adds the residual "
                        "inside the module"),
        "mlp_norm_output": Read(Child("post_attention_layernorm"), layout=STREAM),
        "mlp_input": Read(Child("mlp", "input"), Argument(0), STREAM),
        "layer_output": Read(Own("output"), Element(0), STREAM),
        # the attention, CPM-Ant's own code
        "attention_queries": Read(
            Assigned("query", occurrence=-1), WHOLE, HEAD_ROWS,
            description="The queries of the call's positions, as the forward binds them once split into heads"),
        "attention_keys": Read(
            Assigned("key", occurrence=-1), WHOLE,
            description="The keys as the forward binds them once split into heads, before the cache update: the "
                        "prompt_length learned prompt positions first, then the call's (on a call without a past, "
                        "what the score matmul takes)"),
        "attention_values": Read(
            Assigned("value", occurrence=-1), WHOLE,
            description="The values as the forward binds them once split into heads, before the cache update: the "
                        "prompt_length learned prompt positions first, then the call's (on a call without a past, "
                        "what the pattern is multiplied with)"),
        "attention_scores": Read(
            Child("softmax", "input"), Argument(0), HEAD_ROWS,
            description="The attention scores of the call's positions entering the softmax module, over the prompt "
                        "positions and the call's: q k^T / sqrt(dim_head) + the relative position bias, masked "
                        "positions filled with -inf"),
        "attention_probabilities": Read(
            Call("torch.matmul", "input", occurrence=1), Argument(0), HEAD_ROWS,
            description="The pattern the call's positions mix the values with, over the prompt positions and the "
                        "call's: the softmax, masked positions set back to 0, after dropout"),
        "attention_head_outputs": Read(Call("torch.matmul", occurrence=1), WHOLE, HEAD_OUTPUTS),
        "attention_premix": Read(Child("o_proj", "input"), Argument(0), MERGED_HEADS),
        "attention_output": Read(
            Own("output"), Element(0), STREAM,
            description="What the attention adds to the residual stream: self_attention's output, which self_att "
                        "adds to the residual"),
        # the MLP
        "mlp_activation": Read(Child("act_fn"), layout=STREAM,
                               description="gelu(w_0 x), the gate's activation"),
        "mlp_neurons": Read(Child("down_proj", "input"), Argument(0), STREAM,
                            description="What w_out receives: gelu(w_0 x) · w_1 x, after the dropout"),
        "mlp_output": Read(
            Own("output"), Element(0), STREAM,
            description="What the MLP adds to the residual stream: the feed-forward's output, which the ffn block "
                        "adds to the residual"),
    },
    accessors={
        "num_kv_heads": lambda c: c.num_attention_heads,
        "head_dim": lambda c: c.dim_head,
        "qk_head_dim": lambda c: c.dim_head,
        "intermediate_size": lambda c: c.dim_ff,
    },
    loads=EAGER_LOADS,
    variants={"no_prompt": {"prompt_length": 0}},
    tiny={"config_class": "CpmAntConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "dim_ff": 128, "vocab_size": 300,
        "dim_head": 16}},
)
