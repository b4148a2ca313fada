"""Byte Latent Transformer (BltForCausalLM).

model.{local_encoder.{embed_tokens, layers[j], cross_attn_layers, patch_embedding_projection},
encoder_hash_tok_embedding, patcher, global_transformer.{token_embedding_projection, layers[k]},
local_decoder.{patch_embedding_projection, cross_attn_layers, layers[i], norm}} and lm_head. The ids are
bytes (260 rows: 256 byte values and 4 specials). Three stacks of the same Llama-style block
(input_layernorm, self_attn through attention_interface with interleaved rotary, post_attention_layernorm,
a gated SiLU MLP; h = x + attn, out = h + mlp, returned as a bare tensor) run at two resolutions. The
local encoder embeds the bytes (embed_tokens, to which the model adds hash n-gram embeddings in place),
runs its blocks over the bytes under a sliding window (local_attention_window_len) and pools them per
patch (scatter amax) into cross_attn_k queries per patch, which cross-attend to the bytes. The patches
come from the entropy patcher (patcher, a small byte LM of its own, when patch_in_forward) or one byte per
patch. The global transformer runs over the patches, one position per patch, not per byte. The local
decoder projects the patch states to cross_attn_k keys per patch and runs over the bytes again, from the
encoder's byte states: before each of its blocks (cross_attn_all_layers) or before the first only, a
BltCrossAttention (q_norm, k_norm, no rotary, its mask from the patch ids) returns o_proj(attention) plus
its own input, and the decoder adds that to the stream, so the stream entering a decoder block is twice
the previous block's output plus the cross-attention. local_decoder.norm is the final norm and lm_head
reads it; the logits are cast to float32. The standard layers are the local decoder's: it is the only
stack whose positions are the call's bytes and whose output the head reads, so its blocks keep the whole
contract and project_on_vocab(layers[-1].layer_output) is the logits. token_embeddings is embed_tokens'
output alone, before the hash n-gram embeddings are added. Under transformers 5.24 a forward with
use_cache=True (the config's default) fails before any block runs: the model builds
DynamicCache(config=BltConfig), which asks the config for num_hidden_layers, and BltConfig has none (its
stacks' configs do); the tiny recipe runs with use_cache=False, as the checkpoint's model card generates.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import Family
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Child, Nowhere, Read

_TOKEN_EMBEDDINGS = Read(
    Child("embed_tokens"), snapshot=True,
    description="The byte embedding's output (the local encoder's embed_tokens), before the model adds the hash "
                "n-gram embeddings to it in place; the local encoder reads the sum, and the decoder's layers[0] "
                "starts from the encoder's byte states")
_WIDER = Nowhere(
    "the local encoder embeds the bytes at its own width (encoder_config.hidden_size), which differs from the "
    "local decoder's residual width that the standard layout uses; read model.embed_tokens.output natively")


def _token_embeddings(context):
    config = context.config
    same = config.encoder_config.hidden_size == config.decoder_config.hidden_size
    return _TOKEN_EMBEDDINGS if same else _WIDER


NOTE = ("Three stacks at two resolutions: the local encoder over bytes, the global transformer over patches (one "
        "position per patch, not per byte) and the local decoder over bytes, with cross-attentions between them; "
        "there is no single residual stream from the embeddings to the logits. The standard layers are the local "
        "decoder's blocks, the only stack whose positions are the call's bytes and whose last output the final "
        "norm and lm_head read: every block value is served there and the identity and project_on_vocab == logits "
        "hold. Between decoder blocks the model adds a cross-attention to the patches plus the stream itself, so "
        "layers[i + 1].layer_input is 2 * layers[i].layer_output + the cross-attention's o_proj output. The "
        "encoder's and the global transformer's blocks, the patcher and the cross-attentions are read natively "
        "(model.model.local_encoder.layers[j], model.model.global_transformer.layers[k], "
        "model.model.local_decoder.cross_attn_layers[i]). Served: every standard value on the decoder's blocks and "
        "every model value, token_embeddings being the byte embedding before the hash n-gram embeddings.")

FAMILY = Family(
    name="blt",
    summary="A byte-level model of three stacks: a local encoder over bytes pooled into entropy-sized patches, a "
            "global transformer over the patches and a local decoder over bytes that cross-attends to them; the "
            "standard layers are the local decoder's.",
    tags=("Byte-level", "Byte latent patches", "Cross-attention", "Hash n-gram embeddings", "Sliding window",
          "RMSNorm", "Gated MLP"),
    block=Block("byte latent (local decoder)"),
    rename={
        "model.local_decoder.layers": "layers", "model.local_encoder.embed_tokens": "embed_tokens",
        "model.local_decoder.norm": "norm",
    },
    sites={"token_embeddings": _token_embeddings},
    accessors={
        "hidden_size": lambda c: c.decoder_config.hidden_size,
        "num_heads": lambda c: c.decoder_config.num_attention_heads,
        "num_kv_heads": lambda c: c.decoder_config.num_key_value_heads,
        "head_dim": lambda c: c.decoder_config.hidden_size // c.decoder_config.num_attention_heads,
        "qk_head_dim": lambda c: c.decoder_config.hidden_size // c.decoder_config.num_attention_heads,
        "intermediate_size": lambda c: c.decoder_config.intermediate_size,
    },
    readout=Readout(float32=True),
    contract_note=NOTE,
    tiny={"config_class": "BltConfig", "overrides": {
        "vocab_size": 260, "encoder_hash_byte_group_vocab": 1000, "use_cache": False,
        "patcher_config": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                           "intermediate_size": 128},
        "encoder_config": {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
                           "hidden_size_global": 128, "intermediate_size": 128},
        "decoder_config": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                           "hidden_size_global": 128, "intermediate_size": 128},
        "global_config": {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                          "intermediate_size": 256}}},
)
