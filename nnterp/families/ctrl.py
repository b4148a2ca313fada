"""CTRL (CTRLLMHeadModel).

transformer.{w, dropout, h[i].{layernorm1, multi_head_attention.{Wq, Wk, Wv, dense}, dropout1, layernorm2,
ffn.{0, 1, 2}, dropout2}, layernorm} and lm_head, tied to w and with a bias. A sequential pre-norm block,
h = x + attn(layernorm1(x)), out = h + ffn(layernorm2(h)). The MLP is an nn.Sequential of a Linear (0, up_proj),
ReLU (1, act_fn) and a Linear (2, down_proj). The model multiplies the embedding by sqrt(n_embd) in place after w
returns it, then adds fixed sinusoidal positions: token_embeddings is w's output as returned, a copy taken before
that scaling, and an edit of it is carried back before the scaling. The attention takes (v, k, q), all the
normed stream, projects them with Wq, Wk and Wv (biased), and calls the kernel chosen at run time through
attention_interface, scaled by head_dim ** -0.5; every head has its own key and value. lm_head has a bias, so a
logit lens adds the same bias vector at every block.
"""

from nnterp.declare.family import Family
from nnterp.declare.sites import Child, Read

FAMILY = Family(
    name="ctrl",
    summary="Salesforce's CTRL: a sequential pre-norm LayerNorm block, a Sequential ReLU MLP, embeddings scaled by "
            "sqrt(n_embd) plus sinusoidal positions, and a biased lm_head.",
    tags=("Sequential block", "Sinusoidal positions", "Scaled embeddings", "LayerNorm"),
    rename={
        "transformer.w": "embed_tokens", "transformer.h": "layers", "transformer.layernorm": "norm",
        "multi_head_attention": "self_attn", "Wq": "q_proj", "Wk": "k_proj", "Wv": "v_proj", "dense": "o_proj",
        "layernorm1": "input_layernorm", "layernorm2": "post_attention_layernorm", "ffn": "mlp",
        "ffn.0": "ffn.up_proj", "ffn.1": "ffn.act_fn", "ffn.2": "ffn.down_proj",
    },
    sites={
        "token_embeddings": Read(
            Child("embed_tokens"), snapshot=True,
            description="The embedding w's output, before the model scales it by sqrt(n_embd) in place and adds "
                        "the sinusoidal positions; layers[0].input is the result"),
    },
    accessors={"intermediate_size": lambda c: c.dff},
    tiny={"config_class": "CTRLConfig", "overrides": {
        "n_embd": 64, "n_layer": 2, "n_head": 4, "dff": 128, "vocab_size": 300}},
)
