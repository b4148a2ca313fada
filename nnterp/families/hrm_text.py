"""HRM-Text (HrmTextForCausalLM): Sapient Intelligence's Hierarchical Reasoning Model for text.

model.{embed_tokens, L_module.{layers[i], final_norm}, H_module.{layers[i], final_norm}, z_L_init,
rotary_emb} and lm_head (untied). Two stacks of num_layers_per_stack Llama-like blocks,
layers[i].{input_layernorm, self_attn.{q_proj, k_proj, v_proj, gate_proj, o_proj},
post_attention_layernorm, mlp.{gate_proj, up_proj, act_fn, down_proj}}: a sequential pre-norm block, h =
x + self_attn(input_layernorm(x)), out = h + mlp(post_attention_layernorm(h)), a bare tensor. Every norm
is an RMSNorm without weight; each stack ends with its own final_norm.

The forward is a hierarchical recurrence over the same embeddings: e = embed_tokens(input_ids) ·
embedding_scale; z_H = e; z_L = z_L_init (zeros, frozen); for each of H_cycles: L_cycles times z_L =
L_module(z_L + z_H), then z_H = H_module(z_H + z_L); logits = lm_head(z_H). So every H block runs
H_cycles times and every L block H_cycles · L_cycles times in one forward (config.num_hidden_layers is
inflated to num_layers_per_stack · H_cycles · (L_cycles + 1), the KV-cache slots; model.num_layers is the
stack's num_layers_per_stack).

The standard layers are the H stack's blocks (model.model.H_module.layers), the stack whose output
lm_head reads, and norm is its final_norm. The L stack is mounted as model.L_module: its blocks carry the
same standard values (model.L_module.layers[i].layer_output, ...self_attn.attention_queries), read the
same way. Every block's values are those of its first call (H cycle 0; for the L stack, L cycle 0 of H
cycle 0); the k-th call is read inside `for _ in tracer.iter[k]:` (a value inside a forward, such as the
attention's interior, needs that forward instrumented before it first runs: model.instrument(), or a read
of the value on the first call earlier in the same trace). layers[0].layer_input on the first pass is z_H
+ z_L (the scaled embeddings plus the L stack's state), not the embeddings. lm_head reads the H stack's
final_norm on its last pass, so final_norm_output is read at lm_head's input, and project_on_vocab
(H_module.final_norm, then lm_head) reproduces the logits from layers[-1]'s layer_output on its last pass
(tracer.iter[H_cycles - 1]), not on the first pass the standard value serves: with H_cycles > 1 it is a
lens of the first H cycle.

token_embeddings is embed_tokens' output times embedding_scale (1 / initializer_range unless set), what
z_H starts from; an edit is carried back divided. The attention is multi-head (as many key/value heads as
query heads), rotates queries and keys (rotary over the whole head), and calls the kernel through
attention_interface with scale head_dim^-0.5; a per-head sigmoid gate, sigmoid(gate_proj(x)), then
multiplies the kernel's output before o_proj. With token_type_ids and prefix_lm, positions whose
token_type_ids is 1 attend to each other bidirectionally (a prefix-LM mask); a plain prompt is causal.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import Family, described
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Argument, Child, Read

NOTE = ("Hierarchical recurrence: the H and L stacks run H_cycles and H_cycles·L_cycles times per forward, so a "
        "block's values are those of its first call (later calls inside tracer.iter[k]). The standard layers are the "
        "H stack (the one lm_head reads); the L stack is mounted as model.L_module with the same block values. "
        "project_on_vocab(layers[-1].layer_output) is a lens of the first H cycle, not the logits, which lm_head "
        "computes from the H stack's last pass. Served: every standard value (token_embeddings scaled by "
        "embedding_scale, final_norm_output read at lm_head's input).")

FAMILY = Family(
    name="hrm_text",
    summary="Two stacks of Llama-like blocks, a slow high-level one and a fast low-level one, run in a nested "
            "recurrence over the same scaled embeddings, with a sigmoid output gate in the attention and no norm "
            "weights.",
    tags=("Hierarchical recurrence", "Looped depth", "Sequential block", "RMSNorm without weight",
          "Gated attention output", "Scaled embeddings", "Prefix-LM mask"),
    block=Block("sequential (hierarchical recurrence)"),
    rename={"model.H_module.layers": "layers", "model.H_module.final_norm": "norm", "model.L_module": "L_module"},
    sites={
        "token_embeddings": Read(
            Child("embed_tokens"), scale=lambda config: config.embedding_scale,
            description="The embeddings as the recurrence starts from them (z_H): embed_tokens' output times "
                        "embedding_scale"),
        # H_module.final_norm runs once per H cycle: its first call is not what lm_head reads
        "final_norm_output": Read(
            Child("lm_head", "input"), Argument(0),
            description="The H stack's state after its final_norm on its last pass, what lm_head reads"),
        "attention_premix": described("attention_premix", "Every head's output side by side as o_proj takes it: the kernel's output times the "
                                      "per-head gate sigmoid(gate_proj(x))"),
        "attention_head_outputs": described("attention_head_outputs", "The per-head outputs of the attention kernel, before the sigmoid gate and the output "
                                            "projection"),
    },
    readout=Readout(exact_lens=False),
    # the forward runs each H cycle's first L_cycles - L_bp_cycles[h] low-level cycles under torch.no_grad (L_bp_cycles
    # left-padded with 1s to H_cycles entries): L_cycles for every H cycle keeps them all on
    gradients_on=lambda config: {"L_bp_cycles": [config.L_cycles] * config.H_cycles},
    contract_note=NOTE,
    tiny={"config_class": "HrmTextConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
        "vocab_size": 300, "head_dim": 16}},
)
