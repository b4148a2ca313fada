"""What the hyper-connection families share (DeepSeek-V4, HY-V4, Qwen4-Exp): a residual of several
streams that every block reads and returns, [batch, seq, streams, hidden_size].

Each sublayer reads one stream collapsed from all of them (learned pre weights) and its output is
written back into every stream with its own post weight, while the streams are mixed among
themselves (comb). There is no [batch seq hidden_size] layer_input or layer_output, and no identity
to check; the sublayers' values are served on the collapsed stream.
"""

from __future__ import annotations

from nnterp.declare.sites import Nowhere


def streams_reason(where: str) -> str:
    return (f"hyper-connections: the block reads and returns several residual streams, [batch, seq, {where}, "
            f"hidden_size] (read layers[i].input / .output natively); each sublayer reads one stream collapsed from "
            f"them and its output is written back into every stream with its own weight")


def contract_note(where: str, served: str) -> str:
    return (f"The residual is {where} streams, [batch, seq, streams, hidden_size], that every block reads and returns; "
            f"each sublayer reads a learned collapse of them and its output is added to every stream with its own "
            f"weight while the streams are mixed among themselves, so there is no [batch seq hidden_size] "
            f"layer_input, layer_mid or layer_output and no identity to check. Served: {served}.")


def stream_sites(where: str) -> dict:
    reason = Nowhere(streams_reason(where))
    return {
        "layer_input": reason,
        "layer_mid": reason,
        "layer_output": reason,
        "attention_output": "What the attention computes from the collapsed stream; the hyper-connection adds it to every "
                            "stream with its own post weight",
        "mlp_output": "What the MLP computes from the collapsed stream; the hyper-connection adds it to every "
                      "stream with its own post weight",
    }
