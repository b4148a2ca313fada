"""CodeGen (CodeGenForCausalLM).

GPT-J's block under GPT-J's names: transformer.{wte, drop, h[i].{ln_1, attn.{qkv_proj, out_proj}, mlp.{fc_in, act,
fc_out}}, ln_f} and lm_head, untied and with a bias. A parallel block with one LayerNorm: h = ln_1(x),
out = attn(h) + mlp(h) + x, so there is no layer_mid. q, k and v come from one fused qkv_proj without bias whose
output is blocked for the 4 model-parallel shards CodeGen was trained on (mp_num = 4): viewed as [4, 3 *
hidden / 4], each shard holds its heads' queries, then values, then keys, in that order. Rotary is interleaved
(rotate_every_two) on the first rotary_dim dimensions of each head (32 of 64 on CodeGen-350M). The attention calls
the kernel chosen at run time through attention_interface, scaled by head_dim ** -0.5; the eager kernel computes
the scores in float32 whatever the model's dtype. The values are a view of one split() of qkv_proj's output,
which torch forbids editing in place while autograd records: they are served as a copy taken at the kernel call,
and an edit is carried back into the call.
"""

from nnterp.declare.sites import KERNEL_ARGUMENTS, Argument, Call, Read
from nnterp.families.gptj import FAMILY as GPTJ

FAMILY = GPTJ.but(
    name="codegen",
    summary="GPT-J's parallel block with one shared LayerNorm, a fused qkv_proj blocked over four model-parallel "
            "shards, interleaved rotary on part of each head and a biased, untied lm_head.",
    tags=("Parallel block", "Fused qkv", "Partial rotary", "Interleaved rotary", "LayerNorm"),
    sites={
        "attention_values": Read(Call("attention_interface", "input"), Argument(3), condition=KERNEL_ARGUMENTS,
                                 snapshot=True),
    },
    tiny={**GPTJ.tiny, "config_class": "CodeGenConfig"},
)
