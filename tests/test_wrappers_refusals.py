"""Wrappers whose config takes language models their text family does not describe refuse those configs by name."""

import pytest

from nnterp import tiny
from nnterp.declare.errors import UnknownArchitecture
from nnterp.registry import family_for


@pytest.mark.parametrize("text_type", ["mistral4", "ministral3"])
def test_mistral3_with_another_language_model_is_refused(text_type):
    """Mistral Small 4's wrapper is Mistral3ForConditionalGeneration around a mistral4 language model, which the
    mistral family does not describe; Ministral 3's around a ministral3 one."""
    from transformers import Mistral3Config

    config = Mistral3Config(text_config={"model_type": text_type})
    with pytest.raises(UnknownArchitecture, match=f"not served with a language model of type '{text_type}'.*"
                                                  f"load its language model alone, which the {text_type} family"):
        family_for(config, "Mistral3ForConditionalGeneration")
    assert family_for(tiny.config("mistral3"), "Mistral3ForConditionalGeneration").name == "mistral3"


@pytest.mark.parametrize("change, named", [({"qk_norm_type": "olmo"}, "qk_norm_type='olmo'"),
                                           ({"norm_after": True}, "norm_after=True")])
def test_molmo2_with_blocks_other_than_qwen3s_is_refused(change, named):
    config = tiny.config("molmo2")
    assert family_for(config, "Molmo2ForConditionalGeneration").name == "molmo2"
    for key, value in change.items():
        setattr(config.text_config, key, value)
    with pytest.raises(UnknownArchitecture, match=named):
        family_for(config, "Molmo2ForConditionalGeneration")
