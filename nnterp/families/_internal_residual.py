"""Shared by Bloom and MPT, whose sublayers add the residual inside their own forward: what they add is read
where it is handed to that addition, not at the module's output (the stream itself)."""

from nnterp.declare.sites import Argument, Call, Read

#: Bloom's and MPT's sublayers end with dropout_add(branch, residual, ...) = residual + dropout(branch)
ATTENTION_BRANCH = Read(
    Call("dropout_add", "input"), Argument(0),
    description="What the attention adds to the residual stream: the branch handed to dropout_add, which adds the "
                "residual inside the module (the module's own output is the stream after the add)")
MLP_BRANCH = Read(
    Call("dropout_add", "input"), Argument(0),
    description="What the MLP adds to the residual stream: the branch handed to dropout_add, which adds the "
                "residual inside the module (the module's own output is the stream after the add)")
