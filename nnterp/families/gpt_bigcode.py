"""GPT-BigCode (GPTBigCodeForCausalLM).

transformer.{wte, wpe, drop, h[i].{ln_1, attn.{c_attn, c_proj}, ln_2, mlp.{c_fc, act, c_proj}}, ln_f} and lm_head,
tied to wte. GPT-2's block and names with nn.Linear projections (not Conv1D): a sequential pre-norm block,
h = x + attn(ln_1(x)), out = h + mlp(ln_2(h)); attn.c_proj is o_proj and mlp.c_proj is down_proj; token_embeddings
is wte's output, before the learned positions wpe are added. The checkpoint's multi_query (SantaCoder,
StarCoder) makes c_attn produce num_heads query heads and a single key and value head (num_kv_heads 1), which the
eager kernel repeats over the heads; with multi_query=False every head has its own. The attention calls the
kernel chosen at run time through attention_interface, scaled by head_dim ** -0.5 (scale_attn_weights); the eager
kernel takes the softmax in float32 and casts it back. q, k and v are views of one split() of c_attn's output,
which torch forbids editing in place while autograd records: they are served as copies taken at the kernel call,
and an edit is carried back into the call.
"""

from nnterp.declare.family import Family
from nnterp.families._gpt2 import GPT2_ACCESSORS, GPT2_RENAME, KERNEL_SITES, TOKEN_EMBEDDINGS

FAMILY = Family(
    name="gpt_bigcode",
    summary="SantaCoder's and StarCoder's GPT-2 block with Linear projections and multi-query attention: one key "
            "and one value head shared by every query head.",
    tags=("Sequential block", "Fused qkv", "Multi-query", "Learned positions", "LayerNorm"),
    rename=GPT2_RENAME,
    sites={
        "token_embeddings": TOKEN_EMBEDDINGS,
        **{name: KERNEL_SITES[name] for name in ("attention_queries", "attention_keys", "attention_values")},
    },
    accessors=GPT2_ACCESSORS,
    variants={"mha": {"multi_query": False}},
    tiny={"config_class": "GPTBigCodeConfig", "overrides": {
        "n_embd": 64, "n_layer": 2, "n_head": 4, "n_inner": 128, "vocab_size": 300, "bos_token_id": 1,
        "eos_token_id": 2}},
)
