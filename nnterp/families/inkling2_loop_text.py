"""Inkling 2 Loop, text model (Inkling2LoopForCausalLM).

Inkling 2's blocks and names (block attention residuals over depth, short convolutions on the
sublayer outputs, sinks, a gated output projection, a mixture of experts; see inkling2_text), with
looped depth: the blocks loop_layer_index_start..loop_layer_index_end run loop_num_passes times,
every later pass reading messages (message_input) from the previous pass's block states and stream,
gated with rank loop_gate_rank. The same modules run on every pass, so a block's standard values
are read on its first pass (nnsight's first call of the module); later passes are the module's
later calls (read inside `for _ in tracer.iter[k]:` in nnsight). final_input mixes the block states into the final
norm's input; the logits are cast to float32 and soft-capped.
"""

from nnterp.families.inkling2_text import FAMILY as INKLING2

NOTE = ("Looped depth: blocks loop_layer_index_start to loop_layer_index_end run loop_num_passes times, so a looped "
        "block's values are those of its first pass (the same module's later calls are its later passes). Blocks "
        "also read block_states, the stream stacked at the start of every group of blocks, mixed into each "
        "sublayer's input by a softmax over depth (attention_input, mlp_input, final_input): layer_mid is "
        "unavailable, the identity is replaced by the block's arithmetic (the stream restarts at group boundaries), "
        "and project_on_vocab(layer_output) is a lens without final_input's mix, not the logits. Served: the "
        "model's values, layer_input and layer_output, the sublayers' normed inputs, the attention's interior but "
        "the scores (a per-query sink logit joins the softmax), attention_output and mlp_output after their short "
        "convolutions.")

FAMILY = INKLING2.but(
    name="inkling2_loop_text",
    model_types=("inkling2_loop_text", "inkling2_loop"),
    summary="Inkling 2's blocks with looped depth: a range of blocks runs several passes, each reading messages "
            "from the previous pass.",
    tags=("Looped depth", "Block attention residuals", "Short convolutions", "Attention sinks",
          "Gated output projection", "Mixture of experts", "Logit softcap"),
    contract_note=NOTE,
    # blocks 2 and 3 of 4 loop twice (groups of 2 blocks), so the tiny model has looped depth (the
    # defaults loop blocks 6 to 18, groups of 6)
    tiny={"config_class": "Inkling2LoopTextConfig", "overrides": {
        **INKLING2.tiny["overrides"], "num_hidden_layers": 4, "loop_gate_rank": 8,
        "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding", "hybrid"], "n_layers_per_attn_res_block": 2,
        "loop_layer_index_start": 2, "loop_layer_index_end": 4, "loop_num_passes": 2}},
)
