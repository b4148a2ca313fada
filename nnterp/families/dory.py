"""Dory (DoryForCausalLM): NVIDIA Nemotron-Labs' looped nGPT.

model.{embed_tokens, layers[i].{input_layernorm, self_attn.{q_proj, k_proj, v_proj, gate_proj, q_norm,
k_norm, attn_sub_norm, o_proj}, post_attention_layernorm, pre_feedforward_layernorm, mlp.{gate_proj,
up_proj, act_fn, ffn_sub_norm, down_proj}, post_feedforward_layernorm}, norm} and lm_head (untied, with a
learned per-token logit_scale). Every norm is DoryL2Norm, a projection onto the unit sphere (x / sqrt(sum
x^2 + eps)) with no weight.

Looped depth: the blocks are three sections. layers[:n_input_layers] run once; the recurrent section
layers[n_input_layers : n_input_layers + n_recurrent_layers] runs n_recurrent_loops times, each loop
starting from norm(h) + norm(input section's output) (model.norm, the final norm, is also called there);
layers[num_hidden_layers - n_output_layers:] run once. Loop 0 thus starts from 2·norm(h), h the input
section's output, and loop k from norm(loop k-1's output) + norm(h). A looped block is the same module on
every loop, so its standard values are those of its first loop (nnsight's first call of the module); loop
k is read inside `for _ in tracer.iter[k]:` (a value inside a forward, such as the attention's interior,
needs that forward instrumented before it first runs: model.instrument(), or a read of the value on the
first call earlier in the same trace). model.norm is called 1 + n_recurrent_loops + 1 times, so
final_norm_output is read at lm_head's input. The output blocks run once, so the last block's
layer_output is the stream model.norm normalizes for lm_head on every checkpoint with n_output_layers >=
1 (all released ones), and project_on_vocab reproduces the logits.

The block is Gemma 2's sandwich on the unit sphere, with the residual a per-channel interpolation (lerp)
instead of a sum: h0 = input_layernorm(x); a = post_attention_layernorm(self_attn(h0)); h1 = h0 +
|lambda_1·lambda_scale|·(a − h0); h2 = pre_feedforward_layernorm(h1); m =
post_feedforward_layernorm(mlp(h2)); out = h2 + |lambda_2·lambda_scale|·(m − h2). The stream is
normalized before each move (input_layernorm and pre_feedforward_layernorm are on the residual path:
their outputs are both the sublayer's input and the point the stream moves from). attention_output is a,
mlp_output is m: the normalized branch outputs, the points on the sphere the stream is pulled toward at
the block's learned rates, which is what the stream receives from each sublayer. layer_input +
attention_output + mlp_output is no part of this arithmetic, so the contract checks the block's own:
lerp(pre_feedforward_layernorm(lerp(input_layernorm(layer_input), attention_output, rate_1)), mlp_output,
rate_2) == layer_output, with the block's own lambda_1, lambda_2 and norms. layer_mid is the stream after
the attention's lerp (h1, pre_feedforward_layernorm's input), checked against the block's own
arithmetic lerp(input_layernorm(layer_input), attention_output, rate_1).

The attention (through attention_interface) L2-normalizes queries and keys per head (q_norm, k_norm),
rotates them, and multiplies the queries by (sqk·sqk_scale)^2 per channel; the kernel scales by
head_dim^-0.5. Its output is gated by sigmoid(gate_proj(h0)·(s_gate·s_gate_scale)^2), L2-normalized over
all heads together (attn_sub_norm) and projected by o_proj. Layers alternate sliding-window and full
attention (layer_types). The MLP scales gate and up by suv_gate, suv_up times sqrt(hidden_size), and
L2-normalizes act(gate)·up (ffn_sub_norm) before down_proj. lm_head multiplies its float32 logits by
logit_scale·(1/initializer_range) per token; logits are lm_head's output, float32 under any dtype.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import Family, described
from nnterp.declare.sites import Argument, Child, Nowhere, Read, Sibling
from nnterp.families._llama import tiny


NOTE = ("Looped depth: the recurrent blocks (n_input_layers to n_input_layers + n_recurrent_layers) run "
        "n_recurrent_loops times, so a looped block's values are those of its first loop (loop k inside "
        "tracer.iter[k]). The residual is an nGPT interpolation on the unit sphere, out = h + rate·(branch − "
        "h) after normalizing h, so the identity is replaced by the block's arithmetic of layer_input, "
        "attention_output and mlp_output (the normalized branch outputs the stream is pulled toward), and layer_mid "
        "by its own arithmetic of layer_input and attention_output. project_on_vocab(layers[-1].layer_output) reproduces the logits where n_output_layers >= 1 "
        "(the last block then runs once). Served: the model's values (final_norm_output read at lm_head's input, "
        "model.norm also running inside the loop), every block value, the attention's interior and the MLP's "
        "values. lm_head computes the logits in float32, so under a bfloat16 or float16 load logits, "
        "lm_head_output and next_token_probs are float32.")


def _rate(layer, name):
    return (getattr(layer, name) * layer.lambda_scale).abs()


def lerp_mid(layer, x, attention):
    """The stream after the attention's move: normalize, then move toward the attention's output."""
    h = layer.input_layernorm(x)
    return h + _rate(layer, "lambda_1") * (attention - h)


def lerp_arithmetic(layer, x, attention, mlp):
    """DoryDecoderLayer's arithmetic: normalize, move toward the attention's output, normalize, move toward
    the MLP's."""
    h = layer.pre_feedforward_layernorm(lerp_mid(layer, x, attention))
    return h + _rate(layer, "lambda_2") * (mlp - h)


FAMILY = Family(
    name="dory",
    summary="A looped normalized transformer (nGPT): input blocks, a recurrent section run several times from the "
            "re-injected input, output blocks; every hidden state on the unit sphere and each sublayer moving the "
            "stream toward its normalized output at a learned per-channel rate.",
    tags=("Looped depth", "Normalized transformer (nGPT)", "L2 norm", "Interpolated residual", "Sandwich norms",
          "QK-norm", "Gated attention output", "Sliding window", "Scaled logits"),
    block=Block("looped nGPT (interpolated residual)", arithmetic=lambda config: lerp_arithmetic, mid=lambda config: lerp_mid),
    sites={
        "attention_queries_unrotated": Nowhere(
            "the attention multiplies the rotated queries per channel by (sqk·sqk_scale)² before the kernel, so "
            "what enters the rotary is not attention_queries at position 0; not served until the contract checks "
            "that scale"),
        "mlp_up": Nowhere(
            "the MLP multiplies up_proj's output by suv_up · suv_scale inside its forward before the product, so no "
            "module's output is the up the activation multiplies"),
        "attention_output": Read(
            Sibling("post_attention_layernorm"),
            description="The attention's output after the block's L2 post-norm post_attention_layernorm: the point "
                        "on the unit sphere the stream moves toward, by |lambda_1·lambda_scale| per channel"),
        "mlp_output": Read(
            Sibling("post_feedforward_layernorm"),
            description="The MLP's output after the block's L2 post-norm post_feedforward_layernorm: the point on "
                        "the unit sphere the stream moves toward, by |lambda_2·lambda_scale| per channel"),
        "layer_mid": Read(
            Child("pre_feedforward_layernorm", "input"), Argument(0),
            description="The residual stream after the attention's move, input_layernorm(layer_input) + "
                        "|lambda_1·lambda_scale|·(attention_output − input_layernorm(layer_input)), before "
                        "pre_feedforward_layernorm projects it back onto the unit sphere"),
        "attention_norm_output": "The block's input projected onto the unit sphere (input_layernorm): the attention's input "
                                 "and the point the stream moves from",
        "mlp_norm_output": Read(
            Child("pre_feedforward_layernorm"),
            description="The stream after the attention's move, projected onto the unit sphere "
                        "(pre_feedforward_layernorm): the MLP's input and the point the stream moves from"),
        # pre_feedforward_layernorm's output is both the MLP's argument and the lerp's base: an assignment is copied
        # into it, so it reaches both holders as an in-place edit does
        "mlp_input": Read(
            Child("mlp", "input"), Argument(0), shared=True,
            description="What the MLP is called with: pre_feedforward_layernorm's output, the same tensor the "
                        "block's second move starts from (an edit changes both)"),
        "attention_queries": described("attention_queries", "The queries entering attention: L2-normalized per head (q_norm), rotated, then multiplied "
                                       "by (sqk·sqk_scale)^2 per channel"),
        "attention_keys": described("attention_keys", "The keys entering attention: L2-normalized per head (k_norm), then rotated"),
        "attention_premix": "Every head's output side by side as o_proj takes it: gated by sigmoid(gate_proj·"
                            "(s_gate·s_gate_scale)^2), then L2-normalized over all heads together (attn_sub_norm)",
        "mlp_activation": "The activation of the gate, act(gate_proj(x)·suv_gate·suv_scale)",
        "mlp_neurons": "What down_proj receives: act(gate)·up (gate and up scaled by suv_gate, suv_up times "
                       "sqrt(hidden_size)), L2-normalized by ffn_sub_norm",
        # model.norm is also called inside the loop (every loop starts from norm(h) + norm(input section's
        # output)): its first call is not the final norm, so what lm_head reads is read at lm_head's input
        "final_norm_output": Read(
            Child("lm_head", "input"), Argument(0),
            description="The residual stream after the final norm (model.norm's last call), what lm_head reads"),
        "lm_head_output": "lm_head's logits: the projection in float32 times logit_scale·(1/initializer_range) per "
                          "token",
    },
    contract_note=NOTE,
    # the catalogue's recipe (2 blocks) leaves n_input_layers and n_output_layers at their defaults of 8, so both
    # sections cover both blocks and nothing loops; here one input, one looped and one output block, two loops
    tiny=tiny("DoryConfig", num_hidden_layers=3, head_dim=16,
              layer_types=["sliding_attention", "full_attention", "sliding_attention"], n_input_layers=1,
              n_recurrent_layers=1, n_output_layers=1, n_recurrent_loops=2),
)
