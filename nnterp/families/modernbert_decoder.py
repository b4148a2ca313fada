"""ModernBERT decoder (ModernBertDecoderForCausalLM).

model.{embeddings.{tok_embeddings, norm, drop}, layers[i].{attn_norm, attn.{q_proj, k_proj,
v_proj, Wo}, mlp_norm, mlp.{Wi, act, Wo}}, final_norm}, then lm_head (a prediction head: dense,
act, norm) and decoder, the unembedding (tied to the embeddings, with a bias). A sequential
pre-norm block with LayerNorms: h = x + attn(attn_norm(x))[0], out = h + mlp(mlp_norm(h)), a bare
tensor; block 0's attn_norm is an Identity (the embeddings are already normed). The attention
alternates sliding and global layers (layer_types) through attention_interface; the MLP's Wi is a
fused gate and up projection, act(gate) · up goes to Wo. The embedding module norms the token
embeddings (embeddings.norm) before block 0. The native lm_head is the prediction head, so the
unembedding keeps its name decoder and lm_head_output is read there; the final norm's output
enters the prediction head, not the unembedding, so final_norm_output is not served as what the
unembedding reads.
"""

from nnterp.declare.engine import module_of
from nnterp.declare.family import Family
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Argument, Child, Nowhere, Read

HEAD = ("the final norm's output enters a prediction head (lm_head: dense, activation, norm) before the unembedding "
        "(decoder); read model.model.final_norm.output natively")


def _unembed(model, hidden):
    """The final norm, the prediction head, then the unembedding."""
    module = module_of(model)
    return module.decoder(module.lm_head(module.model.final_norm(hidden)))


FAMILY = Family(
    name="modernbert-decoder",
    summary="ModernBERT's pre-norm LayerNorm block as a decoder: alternating sliding and global attention, a fused "
            "gated MLP, and a prediction head before the tied unembedding.",
    tags=("Sequential block", "LayerNorm", "Sliding window", "Gated MLP", "Prediction head", "Tied embeddings"),
    rename={
        "model.embeddings.tok_embeddings": "embed_tokens", "model.layers": "layers", "attn": "self_attn",
        "attn_norm": "input_layernorm", "mlp_norm": "post_attention_layernorm", "attn.Wo": "attn.o_proj",
        "mlp.Wo": "mlp.down_proj", "act": "act_fn",
    },
    sites={
        "token_embeddings": "The token embedding's output; the embeddings module norms it (embeddings.norm) and that is "
                            "layers[0].input",
        "final_norm_output": Nowhere(HEAD),
        # block 0's attn_norm is an Identity: its output is the block's input itself, so an assignment is
        # copied into it, as an in-place edit reaches both
        "attention_norm_output": Read(
            Child("input_layernorm"), shared=True,
            description="The normed stream entering the attention (on block 0, where attn_norm is an Identity, the "
                        "block's input itself)"),
        "lm_head_output": Read(
            Child("decoder"), description="The unembedding's logits (decoder, after the prediction head lm_head)"),
        "mlp_neurons": Read(Child("down_proj", "input"), Argument(0)),
    },
    readout=Readout(unembed=_unembed),
    tiny={"config_class": "ModernBertDecoderConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
        "vocab_size": 300, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}},
)
