import pytest
import torch

from nnterp import tiny

PROMPT = "The Eiffel Tower is in the city of"
FAMILIES = ("llama", "phi", "gpt_neox_japanese")


@pytest.fixture(scope="session")
def prompt():
    return PROMPT


@pytest.fixture(scope="session")
def phi():
    return tiny.load("phi", attn_implementation="eager")


@pytest.fixture(scope="session")
def neox_jp():
    return tiny.load("gpt_neox_japanese")


@pytest.fixture(scope="session")
def llama():
    return tiny.load("llama", attn_implementation="eager")


@pytest.fixture(scope="session")
def llama_sdpa():
    return tiny.load("llama", attn_implementation="sdpa")


def snapshot(model):
    """Everything a trace must leave as it was: parameters, buffers and the module tree."""
    module = model._module
    return (
        {k: v.detach().clone() for k, v in module.state_dict(keep_vars=True).items()},
        [(name, type(m).__name__) for name, m in module.named_modules()],
    )


def same_snapshot(a, b):
    return a[1] == b[1] and a[0].keys() == b[0].keys() and all(torch.equal(a[0][k], b[0][k]) for k in a[0])
