"""The conformance contract on every family's tiny recipe and every structural variant, under each
load the family claims, and the committed families table is current."""

from pathlib import Path

import pytest
from transformers import AutoConfig, AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM

import nnterp
from nnterp import RegistrationRefused, StandardizedTransformer, UnknownArchitecture, tiny
from nnterp.cli.moved_sweep import check_moved
from nnterp.cli.table import load_row, moved_rows, render, rows
from nnterp.declare.family import Family
from nnterp.families import _index
from nnterp.families._llama import tiny as llama_recipe
from nnterp.registry import family_for, family_named, registry, served_here

ROWS = list(rows())


@pytest.mark.parametrize("label,family,overrides", ROWS, ids=[r[0] for r in ROWS])
def test_contract(label, family, overrides):
    for load in registry()[family].loads:
        model = load_row(family, overrides, attn_implementation=load)
        report = model.check(raise_on_failure=False)
        assert report.ok, str(report)
    # the one block model: blocks without an attention or an MLP (Mamba, hybrids) are skipped, not refused
    assert model.instrument() is model
    assert model.find_nonfinite("The Eiffel Tower is in the city of") is None


def test_families_table_is_current():
    committed = Path(__file__).resolve().parent.parent / "FAMILIES.md"
    assert committed.read_text() == render(), "FAMILIES.md is stale: run `nnterp table --out FAMILIES.md`"


# --------------------------------------------------------------------------- a family registered at run time
class UserLamaConfig(LlamaConfig):
    """A model type transformers does not ship, on Llama's modules: a user's own modeling code."""

    model_type = "userlama"


class UserLamaForCausalLM(LlamaForCausalLM):
    config_class = UserLamaConfig


AutoConfig.register("userlama", UserLamaConfig, exist_ok=True)
AutoModelForCausalLM.register(UserLamaConfig, UserLamaForCausalLM, exist_ok=True)


def user_family(name="userlama", model_types=None):
    """A family on Llama's block; its model types, left out, are its name alone."""
    return Family(name=name, model_types=model_types, summary="Llama's block under a model type of its own.",
                  tiny=llama_recipe(UserLamaConfig))


def test_registry_serves_a_family_declared_outside_the_package():
    family = user_family()
    with nnterp.registered(family):
        assert registry()["userlama"] is family and family_named("userlama") is family
        hf_model, tok = tiny.build("userlama")
        assert type(hf_model) is UserLamaForCausalLM
        assert family_for(hf_model.config) is family
        assert StandardizedTransformer(hf_model, tokenizer=tok).family is family
        for load in family.loads:
            report = tiny.load("userlama", attn_implementation=load).check(raise_on_failure=False)
            assert report.ok, str(report)
            # served as Llama is: every check the built-in family runs under this load runs here too
            llama = tiny.load("llama", attn_implementation=load).check(raise_on_failure=False)
            assert [(r.check, r.where) for r in report.results] == [(r.check, r.where) for r in llama.results]
    assert "userlama" not in registry()
    with pytest.raises(UnknownArchitecture, match=r"UserLamaForCausalLM \(model_type 'userlama'\).*nnterp\.register"):
        family_for(hf_model.config, "UserLamaForCausalLM")
    with pytest.raises(UnknownArchitecture) as error:
        tiny.load("userlama")
    text = str(error.value)
    assert "\n" not in text and "'userlama' is no family" in text and "nnterp.register" in text


def test_registry_model_types_default_to_the_name_and_a_child_declares_its_own():
    assert user_family().model_types == ("userlama",)
    parent = registry()["gemma3n_text"]  # two model types: its text config's and its composite's
    assert len(parent.model_types) == 2
    child = parent.but(name="userlama")
    assert child.model_types == ("userlama",) and child.parent is parent  # the parent's types stay the parent's
    assert parent.but(name="mine", model_types=("userlama", "mine")).model_types == ("userlama", "mine")
    with nnterp.registered(child):
        assert family_for(UserLamaConfig()) is child


def test_registry_a_child_recipe_is_its_parent_s_under_its_own_config_class():
    parent, child = registry()["deepseek_v3"], registry()["glm4_moe_lite"]  # tiny=DEEPSEEK_V3.tiny_for(...)
    assert child.tiny["config_class"] == "Glm4MoeLiteConfig" and parent.tiny["config_class"] == "DeepseekV3Config"
    kept = {key: value for key, value in parent.tiny["overrides"].items() if key != "first_k_dense_replace"}
    assert child.tiny["overrides"] == kept and "first_k_dense_replace" in parent.tiny["overrides"]
    changed = parent.tiny_for("Mine", without=("q_lora_rank",), n_routed_experts=8)
    assert changed["overrides"]["n_routed_experts"] == 8 and "q_lora_rank" not in changed["overrides"]
    assert parent.tiny["overrides"]["n_routed_experts"] == 4  # the parent's recipe is left as it was
    with pytest.raises(ValueError, match="no rope_theta to leave out: drop it from without="):
        parent.tiny_for("Mine", without=("rope_theta",))


def test_registry_refuses_a_taken_name_or_model_type_unless_overriding():
    with pytest.raises(RegistrationRefused) as error:
        nnterp.register(user_family("mine", ("userlama", "llama")))
    assert str(error.value) == ("model_type 'llama' is already served by nnterp's llama family: pass override=True "
                                "to serve it with mine instead")
    with pytest.raises(RegistrationRefused, match="the name of nnterp's own llama family"):
        nnterp.register(user_family("llama"))
    with pytest.raises(RegistrationRefused, match="not dict"):
        nnterp.register({"name": "mine"})
    with pytest.raises(RegistrationRefused, match=r"declares no model type.*model_types=\(config\.model_type,\)"):
        nnterp.register(Family(name="mine", model_types=()))
    with nnterp.registered(Family(name="mine", model_types=("userlama",))):
        with pytest.raises(UnknownArchitecture, match="the mine family declares no tiny recipe"):
            tiny.load("mine")
    assert "mine" not in registry() and family_for(LlamaConfig()).name == "llama"

    mine = user_family("mine", ("userlama", "llama"))
    with nnterp.registered(mine, override=True):
        assert family_for(LlamaConfig()) is mine
        with pytest.raises(RegistrationRefused, match="already served by the registered mine family"):
            nnterp.register(user_family())
        again = user_family("mine", ("userlama", "llama"))  # a notebook cell run twice replaces its family
        assert nnterp.register(again, override=True) is again and family_for(LlamaConfig()) is again
    assert family_for(LlamaConfig()).name == "llama" and "mine" not in registry()
    with pytest.raises(RegistrationRefused, match="'mine' is not a registered family"):
        nnterp.unregister("mine")


def test_registry_unregister_serves_what_was_overridden():
    first, second = user_family(), user_family("userlama2", ("userlama",))
    nnterp.register(user_family())
    nnterp.register(first)  # the same name again (a notebook cell run twice): the new declaration replaces the old
    try:
        assert family_for(UserLamaConfig()) is first and list(registry()).count("userlama") == 1
        nnterp.register(second, override=True)
        assert family_for(UserLamaConfig()) is second
        nnterp.unregister(second)
        assert family_for(UserLamaConfig()) is first
    finally:
        nnterp.unregister("userlama")
    assert "userlama" not in registry()


def test_registry_finds_a_module_not_yet_in_the_index(monkeypatch):
    """A module dropped into nnterp/families before `python -m nnterp.cli.catalogue --write`: docs/families.md's
    next step (pytest tests/test_families.py -k NAME) loads its tiny model."""
    monkeypatch.delitem(_index.MODULES, "mistral")
    family_named.cache_clear()
    try:
        model = tiny.load("mistral")
        assert model.family is registry()["mistral"] and model.family.module.__name__ == "nnterp.families.mistral"
    finally:
        family_named.cache_clear()


# --------------------------------------------------------------------------- the moved recipe
def test_moved_recipe_moves_every_per_block_pattern():
    """One block more, and every per-block pattern moved, found from the config: layer_types reversed, periods one
    longer with their offsets moved, first-k counts one more, index lists moved as a mask over the blocks."""
    sliding, full = "sliding_attention", "full_attention"
    if not all(served_here(name) for name in ("gemma3_text", "jamba", "deepseek_v3", "smollm3", "llama4_text",
                                               "mllama", "gpt_neo", "dory", "longcat_flash", "falcon_h1")):
        pytest.skip("a family of this test is not served by the installed transformers")
    assert tiny.moved_overrides("gemma3_text") == {"num_hidden_layers": 3, "layer_types": [full, sliding, full]}
    assert tiny.moved_overrides("jamba") == {"num_hidden_layers": 3, "expert_layer_period": 3, "expert_layer_offset": 0,
                                             "attn_layer_period": 3, "attn_layer_offset": 0}
    assert tiny.moved_overrides("deepseek_v3") == {"num_hidden_layers": 3, "first_k_dense_replace": 2}
    assert tiny.moved_overrides("smollm3")["no_rope_layers"] == [0, 1, 0]  # a per-block flag list
    llama4 = tiny.moved_overrides("llama4_text")
    assert llama4["interleave_moe_layer_step"] == 2 and llama4["layer_types"] == [full, "chunked_attention", full]
    # a pattern that reads the same reversed is turned by one: the middle cross-attention block goes to the ends
    assert tiny.moved_overrides("mllama")["text_config"]["cross_attention_layers"] == [0, 3]
    # a list the config derives from another key is written through that key
    assert tiny.moved_overrides("gpt_neo")["attention_types"] == [[["local"], 1], [["global"], 1], [["local"], 1]]
    # a section count whose sum is the depth takes the new block; a depth counted by the key the recipe sets
    assert tiny.moved_overrides("dory")["n_output_layers"] == 2
    assert tiny.moved_overrides("longcat_flash") == {"num_layers": 3}
    # as long as the depth, but not one entry per block (Falcon-H1's gate and down multipliers): left as it is
    assert tiny.moved_overrides("falcon_h1") == {"num_hidden_layers": 3}


def test_moved_recipe_builds_for_every_family_or_says_why():
    for label, family, overrides, why in moved_rows():
        if overrides is None:
            assert why, f"{label} is skipped without a reason"
            continue
        recipe, moved = tiny.config(family).get_text_config(), tiny.config(family, **overrides).get_text_config()
        assert moved.num_hidden_layers > recipe.num_hidden_layers, label


def _contract_holds(family, **overrides):
    for load in registry()[family].loads:
        report = tiny.load(family, attn_implementation=load, **overrides).check(raise_on_failure=False)
        assert report.ok, str(report)


@pytest.mark.parametrize("family", ["mllama"])
def test_contract_holds_where_a_block_the_text_call_skips_sits_last(family):
    """The final stream is the last block a text call runs: a cross-attention block last (the moved recipe's
    layout) passes it through, and its layer_output does not exist on text."""
    text = {**tiny.served_recipe(family)["overrides"]["text_config"], "cross_attention_layers": [0, 2]}
    _contract_holds(family, text_config=text)


@pytest.mark.parametrize("family", ["gemma4_text", "gemma4_unified_text"])
def test_contract_holds_on_kv_shared_layers(family):
    """A KV-shared layer reuses the keys and values an earlier layer of its type made, the same tensor: an
    assignment there must reach it as an in-place edit does."""
    full, sliding = "full_attention", "sliding_attention"
    _contract_holds(family, num_hidden_layers=3, layer_types=[full, sliding, full], num_kv_shared_layers=1)


#: families whose special blocks sit by a per-block pattern (layer types, periods and offsets, first-k dense blocks,
#: block-index lists, flags, derived lists), and those whose moved recipe broke a mechanism: their moved recipe runs
#: here; every family's runs by `OMP_NUM_THREADS=1 python -m nnterp.cli.moved_sweep` (too slow for each CI run)
MOVED_SAMPLE = ("gemma3_text", "cohere2", "jamba", "qwen3_next", "deepseek_v3", "llama4_text", "exaone4", "smollm3",
                "mllama", "gemma4_text", "modernbert-decoder", "nemotron_h", "gpt_neo", "zamba")


@pytest.mark.parametrize("family", MOVED_SAMPLE)
def test_contract_on_the_moved_recipe(family):
    if not served_here(family):  # the oldest release of the window serves fewer families
        pytest.skip(f"{family} is not served by the installed transformers")
    overrides, why = tiny.moved(family)
    assert overrides is not None, why
    check_moved(family, overrides)


def test_a_padded_batch_is_refused_where_the_forward_reads_no_mask():
    """RWKV ignores the attention mask: a left-padded batch would read the pads as text, silently; it is refused,
    and prompts of one length still batch."""
    import torch

    from nnterp.declare.errors import BatchRefused
    from nnterp.registry import served_here

    if not served_here("rwkv"):
        pytest.skip("rwkv is not served by the installed transformers")
    model = tiny.load("rwkv")
    with pytest.raises(BatchRefused, match="read the pads as text"):
        with model.trace(["The Eiffel Tower is in", "Paris"]):
            model.logits.save()
    with model.trace(["The Eiffel Tower is in", "The Eiffel Tower is in"]):
        logits = model.logits.save()
    assert logits.shape[0] == 2 and torch.isfinite(logits).all()
