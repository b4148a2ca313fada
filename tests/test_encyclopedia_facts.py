"""The encyclopedia's facts about checkpoints: every number a page states of a checkpoint is its released config's,
each claim is asserted by lines made from the same value (and fails when the value is changed), and the committed
real-config run covers every named checkpoint."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from encyclopedia_pages import ROOT, page_sections, squeeze
from nnterp.declare.family import Checkpoint


def _derived_text(site: Path, name: str) -> str:
    """The text of a page's derived notes (those the build wrote from the family's objects), tags stripped."""
    page = (site / f"{name}.html").read_text()
    notes = re.findall(r'<article class="note" data-kind="(?:feature|generic)">(.*?)</article>', page, re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", " ".join(notes))))


#: What a derived note states of a checkpoint, and the config keys it is a number of.
QUOTED = {
    r"at base ([0-9.e+-]+)": ("rope_theta",),
    r"window of (\d+) tokens": ("sliding_window",),
    r"(\d+) query heads over (\d+) key": ("num_attention_heads", "n_head", "num_heads", "n_heads",
                                            "num_key_value_heads", "num_kv_heads", "n_head_kv", "kv_n_heads"),
    r"soft-capped at ([0-9.]+)": ("attn_logit_softcapping",),
    r"`?final_logit_softcapping`? = ([0-9.]+)": ("final_logit_softcapping",),
    r"mixture of (\d+) experts, (\d+) per token": ("num_local_experts", "num_experts", "n_routed_experts",
                                                      "moe_num_experts", "num_routed_experts", "num_experts_per_tok",
                                                      "num_experts_per_token", "moe_top_k", "moe_topk", "top_k",
                                                      "moe_k"),
    r"plus (\d+) shared experts?": ("n_shared_experts", "num_shared_experts", "shared_expert_count"),
    r"`?routed_scaling_factor`? = ([0-9]+(?:\.[0-9]+)?)": ("routed_scaling_factor",),
}


def test_every_number_a_page_states_of_a_checkpoint_is_its_released_config(site, record):
    """A number a derived note states as a checkpoint's (rotary base, window, heads, softcaps, experts, eps) is a
    claim the build recorded: its checkpoint's config.json facts give it, or it is said as the config class's
    default, and then no recorded checkpoint gives it; every such number in a page's text is one of its claims."""
    from nnterp.registry import every_family
    from nnterp.encyclopedia.configs import config_class
    from nnterp.encyclopedia.notes.derived.subject import _dig

    families = every_family()
    wrong, unclaimed = [], []
    for name, fam in record["families"].items():
        family = families[name]
        facts = {c.repo: c.config for c in family.checkpoints}
        for claim in fam["claims"]:
            path, value = tuple(claim["path"]), claim["value"]
            if claim["repo"]:
                if _dig(facts[claim["repo"]], path) != value:
                    wrong.append((name, claim))
            else:
                given = [repo for repo, config in facts.items() if _dig(config, path) is not None]
                default = _dig(config_class(family)().get_text_config(), path)
                if default != value or claim["label"] != config_class(family).__name__ or (
                        given and path[-1] == "rope_theta"):
                    wrong.append((name, claim, given))
        text = _derived_text(site, name)
        # a page whose printout is the tiny model's (its checkpoint is not built here) speaks of the tiny model
        tiny_page = f"What print(model) shows on the tiny {name} model" in (site / f"{name}.html").read_text()
        for pattern, keys in QUOTED.items():
            for match in re.finditer(pattern, text):
                around = text[max(0, match.start() - 300):match.end() + 300]
                if "as built here" in around:  # said as the config built from the facts and the class's defaults
                    continue
                if "On the defaults of" in around:  # no checkpoint is the page's: the class's defaults, said so
                    continue
                if tiny_page and "On the tiny model" in around:  # no checkpoint builds: the tiny model's numbers
                    continue
                for number in match.groups():
                    if not any(c["path"][-1] in keys and float(c["value"]) == float(number) for c in fam["claims"]):
                        unclaimed.append((name, match.group(0)))
    assert not wrong, wrong
    assert not unclaimed, unclaimed


def test_a_claim_and_its_proof_are_made_from_one_fact(site, record):
    """Each number a derived note states of a checkpoint is asserted on the page by the lines made from the same
    value; the assertion passes, and fails once the value is changed (the mutation a false sentence would be)."""
    from nnterp.encyclopedia import snippets
    from nnterp.encyclopedia.notes.derived import Stated
    from nnterp.registry import every_family

    families = every_family()
    checked = 0
    for name, fam in record["families"].items():
        page = squeeze(html.unescape(re.sub(r"<[^>]+>", "", (site / f"{name}.html").read_text())))
        scope = snippets.Runner(families[name], None, Path(".")).namespace(None)
        for claim in fam["claims"]:
            stated = Stated(tuple(claim["path"]), claim["value"], claim["repo"], claim["label"])
            for line in stated.check():
                assert squeeze(line.split("   #")[0]) in page, (name, line)
            exec("\n".join(stated.check()), dict(scope))
            value = stated.value
            mutated = (not value) if isinstance(value, bool) else value * 2 + 1 if isinstance(value, (int, float)) \
                else f"{value}-mutated"
            with pytest.raises(AssertionError):
                exec("\n".join(stated.check(mutated)), dict(scope))
            checked += 1
    assert checked >= len(record["families"])  # most pages state a rotary base or head counts


def test_a_family_s_checkpoints_are_read_from_its_data_file_and_merged_with_those_it_still_declares():
    """Family.checkpoints: the data file's entries (nnterp/families/checkpoints/<module>.json), a literal still in
    the module replacing the entry of its repository (keeping the file's source) and leading in its own order."""
    from nnterp.declare.family import Checkpoint, merged_checkpoints
    from nnterp.families._declared import checkpoint_data
    from nnterp.registry import registry

    recorded = (Checkpoint("a/one", "One", {"hidden_size": 8}, source="a copy of one's config.json"),
                Checkpoint("a/two", "Two", {"hidden_size": 16}, source="two's"))
    declared = (Checkpoint("a/three", "Three", {"hidden_size": 32}), Checkpoint("a/two", "Two", {"hidden_size": 24}))
    merged = merged_checkpoints(recorded, declared)
    assert [c.repo for c in merged] == ["a/three", "a/two", "a/one"]
    assert merged[1].config == {"hidden_size": 24} and merged[1].source == "two's"
    assert merged_checkpoints(merged, merged) == merged  # idempotent: the index and the scan may both meet a module
    folder = ROOT / "nnterp" / "families" / "checkpoints"
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        for entry in data["checkpoints"]:
            assert set(entry) >= {"repo", "label", "source", "partial", "config"}, (path.name, entry)
        family = next((f for f in registry().values() if f.module.__name__.rsplit(".", 1)[-1] == path.stem), None)
        if family is not None:
            assert {c.repo for c in checkpoint_data(path.stem)} <= {c.repo for c in family.checkpoints}, path.name


#: Facts read in the modeling code of transformers that the pages must state, each with the snippet that proves it.
FACTS = {
    "gemma2": ("`attention_output` and `mlp_output` are read after `post_attention_layernorm` and "
               "`post_feedforward_layernorm`",
               "assert torch.equal(block.post_attention_layernorm(attn_own), attn)"),
    "gemma3_text": ("The embeddings are multiplied by √1152 = 33.94, cast to the weights' dtype: 34 in bfloat16",
                    "assert torch.tensor(33.94112549695428).to(torch.bfloat16).item() == 34.0"),
    "falcon": ("Falcon-RW under eager adds ALiBi twice, so eager and sdpa compute two models",
               "twice = (q @ k.transpose(-1, -2) + alibi) / d ** 0.5 + alibi / d ** 0.5"),
    "deepseek_v3": ("The softmax scale is 192 ** -0.5 × mscale², about 0.1352, not 1 / √192",
                    "assert abs(scale - 192 ** -0.5 * mscale ** 2) < 1e-12"),
    "xglm": ("`attention_queries` are already scaled, and the scores are not scaled again",  # the hand note's
             "torch.testing.assert_close(q * model.head_dim ** 0.5, projected)"),
    "opt": ("The queries are scaled before the product", "torch.testing.assert_close(q_pre * attention.scaling, q)"),
    "gpt_neo": ("The scores are q · kᵀ with no scale at all", "torch.testing.assert_close(q_pre, q)"),
    "openai-gpt": ("A masked score is −10000, not −inf",
                   "assert bool((scores[..., masked] == -1e4).all()) and not bool(scores.isinf().any())"),
    "bloom": ("The scores add ALiBi: a bias linear in the key's position, with a slope per head",
              "torch.testing.assert_close(steps[both], slopes.expand_as(steps)[both])"),
}


def test_falcon_s_fused_projection_is_cut_per_checkpoint_from_its_config_flags(site, record):
    """_split_heads has three layouts: multi_query alone in blocks, new_decoder_architecture per key-value group,
    neither flag per head; each checkpoint's is tried on the tiny model with its flags."""
    notes = page_sections(site, "falcon")["notes"]
    for line in ("Falcon-7B (multi_query True; new_decoder_architecture False): the output is laid out in blocks",
                 "Falcon-40B (new_decoder_architecture True): the output is laid out per key-value group",
                 "Falcon-RW-1B (multi_query False; new_decoder_architecture False): the output is laid out per head",
                 "model = tiny.load('falcon', multi_query=False, num_kv_heads=None)"):
        assert squeeze(line) in notes, line
    assert not record["families"]["falcon"]["failed"]


def test_no_page_says_more_than_it_measured(site, record):
    """No fallback sentence: a scale note names its cause or is not written; a grouping tag is the representative
    checkpoint's; the line of what a family shares with Llama is computed from its architecture."""
    for name in record["families"]:
        html = (site / f"{name}.html").read_text()
        assert "adds a term of its own" not in html, name
        assert "the family module declares nothing" not in html, name
    tags = page_sections(site, "phi3")["top"]
    from nnterp.registry import registry
    from nnterp.encyclopedia.configs import representative

    facts = representative(registry()["phi3"]).config
    grouped = facts["num_key_value_heads"] < facts["num_attention_heads"]
    assert (squeeze("Grouped keys/values") in tags) is grouped
    top = page_sections(site, "qwen2")["top"]
    assert squeeze("As Llama in: the sequential pre-norm block") in top
    assert squeeze("As Llama, except: a bias on q_proj, k_proj and v_proj") in top


@pytest.mark.parametrize("name", sorted(FACTS))
def test_a_page_states_the_fact_its_modeling_code_holds(site, record, name):
    heading, line = FACTS[name]
    notes = page_sections(site, name)["notes"]
    assert squeeze(heading.replace("`", "")) in notes
    assert squeeze(line) in notes
    assert not record["families"][name]["failed"]


def test_a_named_checkpoint_built_from_its_real_config_at_reduced_depth_passes_the_contract():
    """The real-config command's sample for CI (the whole run is python -m nnterp.encyclopedia.realconfigs): the
    depth covers every kind of block the config lists, widths stay as released, experts and vocabulary are capped."""
    import torch

    from nnterp.encyclopedia import realconfigs
    from nnterp.encyclopedia.configs import config_class
    from nnterp.registry import registry

    gemma3 = registry()["gemma3_text"].checkpoints[0].config
    full = config_class(registry()["gemma3_text"])(**gemma3)
    cut = realconfigs.reduced(gemma3, realconfigs.pattern_of(full))
    kinds = realconfigs.pattern_of(full)
    assert cut["num_hidden_layers"] == max(kinds.index(kind) for kind in set(kinds)) + 1 < gemma3["num_hidden_layers"]
    assert cut["hidden_size"] == gemma3["hidden_size"] and cut["vocab_size"] == realconfigs.MAX_VOCAB
    family = registry()["gpt2"]
    result = realconfigs.check_one(family, family.checkpoints[0], torch.bfloat16)
    assert result["passed"], result


def test_the_real_config_caps_keep_each_reduced_config_valid():
    """What the full run found in its own caps: they reach nested expert counts (DBRX's ffn_config) and every top-k
    key (Aria's moe_topk), and keep an output vocabulary smaller than the input's (Apertus 1.5) within it, so each
    reduced config builds; a checkpoint whose facts are only its architecture is not built at all."""
    from nnterp.encyclopedia import realconfigs
    from nnterp.encyclopedia.configs import config_class
    from nnterp.registry import registry

    families = registry()
    dbrx = realconfigs.reduced(families["dbrx"].checkpoints[0].config)
    assert dbrx["ffn_config"]["moe_num_experts"] == realconfigs.MAX_EXPERTS >= dbrx["ffn_config"]["moe_top_k"]
    aria = realconfigs.reduced(families["aria_text"].checkpoints[0].config)
    assert aria["moe_num_experts"] == realconfigs.MAX_EXPERTS >= aria["moe_topk"]
    apertus = config_class(families["apertus1p5_text"])(
        **realconfigs.reduced(families["apertus1p5_text"].checkpoints[0].config))
    assert apertus.output_vocab_size < apertus.vocab_size == realconfigs.MAX_VOCAB
    for name in ("dbrx", "aria_text"):
        config_class(families[name])(**realconfigs.reduced(families[name].checkpoints[0].config))
    named_only = Checkpoint("skt/A.X-K1", "A.X-K1", {"architectures": ["AXK1ForCausalLM"], "dtype": "bfloat16"})
    assert "architecture" in realconfigs.unbuilt(named_only)


def test_a_config_json_becomes_the_checkpoint_a_family_s_data_file_records():
    """``--facts`` turns a checkpoint's config.json into its data file entry: the keys that shape the model as
    released (legacy rope keys, a nested text config), torch_dtype as dtype, and nothing of files, training or
    tokens, with the source it was read from; the entry reads back as those facts and builds the config."""
    from transformers import Qwen3Config

    from nnterp.encyclopedia import realconfigs

    released = {"_name_or_path": "x", "architectures": ["Qwen3ForCausalLM"], "attention_dropout": 0.0,
                "bos_token_id": 151643, "hidden_size": 4096, "num_hidden_layers": 36, "rope_theta": 1000000,
                "rope_scaling": None, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
                "use_cache": True, "tie_word_embeddings": False, "text_config": {"hidden_dropout": 0.1, "a": 1}}
    facts = realconfigs.facts_of(released)
    assert facts == {"architectures": ["Qwen3ForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 36,
                     "rope_theta": 1000000, "rope_scaling": None, "dtype": "bfloat16", "tie_word_embeddings": False,
                     "text_config": {"a": 1}}
    entry = json.loads(json.dumps(realconfigs.checkpoint_entry("Qwen/Qwen3-8B", "Qwen3-8B", facts, "a copy")))
    assert entry == {"repo": "Qwen/Qwen3-8B", "label": "Qwen3-8B", "source": "a copy", "partial": False,
                     "config": facts}
    assert Checkpoint(entry["repo"], entry["label"], entry["config"], source=entry["source"]) == \
        Checkpoint("Qwen/Qwen3-8B", "Qwen3-8B", facts, source="a copy")
    built = Qwen3Config(**{k: v for k, v in facts.items() if k != "text_config"})
    assert (built.num_hidden_layers, built.rope_parameters["rope_theta"]) == (36, 1000000)


def test_the_real_config_depth_cut_reaches_each_config_s_own_depth_keys():
    """The depth is cut where each config keeps it: ExaoneConfig's num_layers, Dory's three sections, GPT-Neo's
    attention_types, Emu3's text_config; a composite config that ignores flat facts (MllamaConfig) is not built."""
    import torch

    from nnterp.encyclopedia import realconfigs
    from nnterp.registry import registry

    families = registry()

    def planned(name):
        family = families[name]
        return realconfigs.plan(family, next(c for c in family.checkpoints if c.config), torch.bfloat16)

    assert planned("exaone")["facts"]["num_layers"] == 1
    dory = planned("dory")["facts"]
    assert dory["n_input_layers"] + dory["n_recurrent_layers"] + dory["n_output_layers"] == dory["num_hidden_layers"]
    assert planned("gpt_neo")["facts"]["attention_types"] == [[["global", "local"], 1]]
    assert planned("emu3")["facts"]["text_config"]["num_hidden_layers"] == 1
    assert "does not take the facts as given" in planned("mllama")["reason"]


@pytest.mark.parametrize("family,overrides", [
    ("apertus1p5_text", {"output_vocab_size": 200}),   # Apertus-v1.5-8B's head is 131072 of 266752 rows
    ("cohere_compass_text", {"logit_scale": None}),    # North Micro Vision's config leaves logit_scale unset
])
def test_what_the_real_config_run_found_holds_on_the_tiny_model(family, overrides):
    """Two failures of the full run were nnterp's: the logits' layout read vocab_size where lm_head is
    output_vocab_size wide, and the readout multiplied by an unset logit_scale (the model takes it as 1)."""
    from nnterp import tiny

    model = tiny.load(family, **overrides)
    assert model.vocab_size == model._module.lm_head.out_features
    report = model.check(raise_on_failure=False)
    assert report.ok, str(report)


def test_a_build_past_the_memory_ceiling_is_not_checked_never_a_pass():
    """The full run's guard: a checkpoint whose weights cannot fit under the ceiling is not started, and a build that
    grows past it is stopped; either is "not checked", with the reason."""
    import torch

    from nnterp.encyclopedia import realconfigs
    from nnterp.registry import registry

    bloom = registry()["bloom"]
    planned = realconfigs.plan(bloom, bloom.checkpoints[1], torch.float32, memory_gb=8)
    assert planned["blocks"] == 1 and "9.9 GB of weights in float32" in planned["reason"]
    gpt2 = registry()["gpt2"]
    results = list(realconfigs.isolated([(gpt2, gpt2.checkpoints[0])], ("float32",), memory_gb=0.05))
    assert [r["status"] for r in results] == ["not checked"] and "ceiling" in results[0]["reason"], results


def test_the_committed_real_config_run_covers_every_named_checkpoint_and_the_pages_say_what_it_found(site, record):
    """nnterp/encyclopedia/realconfigs.json (python -m nnterp.encyclopedia.realconfigs) has a line per named
    checkpoint and dtype, the wrappers' included; a page says "checked from its real config" exactly for the
    checkpoints that passed in both dtypes, and FAMILIES.md's section is generated from the same record (test_families_table_is_current)."""
    from nnterp.encyclopedia.verdicts import load, sentence, verdict
    from nnterp.registry import every_family

    run = load()
    lines = {(r["family"], r["checkpoint"], r["dtype"]) for r in run["results"]}
    families = every_family()
    for name, family in families.items():
        for checkpoint in family.checkpoints:
            assert {(name, checkpoint.repo, d) for d in ("float32", "bfloat16")} <= lines, (name, checkpoint.repo)
    for name, fam in record["families"].items():
        if name not in families:
            continue
        top = page_sections(site, name)["top"]
        verdicts = {c.repo: verdict(name, c.repo) for c in families[name].checkpoints}
        checked = [repo for repo, found in verdicts.items() if found["status"] == "checked"]
        for repo in checked:
            assert squeeze(sentence(name, repo)) in top, (name, repo)
        assert top.count(squeeze("checked from its real config in float32 and bfloat16")) == len(checked), name
        assert fam["depth"]["checked"] == len(checked), name




def _data_entries():
    folders = [ROOT / "nnterp" / "families" / "checkpoints", ROOT / "nnterp" / "wrappers" / "checkpoints"]
    for folder in folders:
        for path in sorted(folder.glob("*.json")):
            for entry in json.loads(path.read_text())["checkpoints"]:
                yield path.name, entry


def test_every_recorded_config_names_its_source_or_why_none_was_found():
    """A recorded config names the copy of its config.json it was read from, or says why none was found; a whole
    file recorded as ``released`` is the one its facts are read from (nested keys and quantization_config kept)."""
    from nnterp.encyclopedia.realconfigs import facts_of

    silent, astray = [], []
    for name, entry in _data_entries():
        if entry.get("config") and not entry.get("source") and not entry.get("not_found"):
            silent.append((name, entry["repo"]))
        if entry.get("released") is not None:
            if facts_of(entry["released"]) != entry["config"] or entry.get("partial"):
                astray.append((name, entry["repo"]))
    assert not silent, silent
    assert not astray, astray
    deepseek = next(e for n, e in _data_entries() if e["repo"] == "deepseek-ai/DeepSeek-V3")
    assert deepseek["released"]["quantization_config"]["weight_block_size"] == [128, 128]


def test_the_files_a_checkpoint_holds_are_read_from_its_quantization_config():
    """DeepSeek-V3's release is FP8 e4m3 with 128×128 block scales, not "bfloat16 files" (its torch_dtype); a partial
    record that lacks the file does not claim either."""
    from nnterp.encyclopedia.notes.derived.checkpoints import files_words
    from nnterp.registry import registry

    v3, r1 = registry()["deepseek_v3"].checkpoints[:2]
    assert files_words(v3).startswith("fp8 (e4m3) weights with 128×128 block scales"), files_words(v3)
    assert "bfloat16 files" not in files_words(r1) and "partial record" in files_words(r1)


def test_a_note_states_no_number_of_a_checkpoint_without_a_source_nor_a_class_default_beside_its_name():
    """Subject.stated and Subject.each read only checkpoints whose facts name their source; where one gives the
    number, no class default stands in for the representative's; the rotary's bases are said per checkpoint."""
    from nnterp.encyclopedia.configs import representative, sourced
    from nnterp.encyclopedia.notes.derived import Subject
    from nnterp.encyclopedia.notes.derived.rotary import BASE_PATHS
    from nnterp.registry import registry

    families = registry()
    mistral = Subject(families["mistral"], None, None)
    bases = {s.label: s.value for s in mistral.each(*BASE_PATHS)}
    assert bases == {"Mistral-7B-v0.1": 10000.0, "Mistral-Nemo-Base-2407": 1000000.0}
    cohere = Subject(families["cohere"], None, None)
    # each checkpoint at its own base, as its sourced release gives it (Command R's at 8000000, R+'s at 75000000)
    assert representative(families["cohere"]).repo == "CohereForAI/c4ai-command-r-v01"
    assert {s.label: s.value for s in cohere.each(*BASE_PATHS)} == {"Command R (35B)": 8000000.0,
                                                                     "Command R+ (qk-norm)": 75000000.0}
    unsourced = Subject(families["cohere2_moe"], None, None)   # no copy of its config.json was found
    assert unsourced.each(*BASE_PATHS) == [] and unsourced.checkpoint is None
    default = unsourced.stated(*BASE_PATHS)
    assert default.repo is None and default.label == "Cohere2MoeConfig" and "Cohere2MoeConfig's default" in default.on
    falcon = families["falcon_h1"]
    assert not any(sourced(c) for c in falcon.checkpoints) and representative(falcon) is None
    for family in families.values():
        for claim in Subject(family, None, None).each(*BASE_PATHS):
            checkpoint = next(c for c in family.checkpoints if c.repo == claim.repo)
            assert sourced(checkpoint), (family.name, claim)


def test_the_config_class_differences_find_dbrx_s_ignored_base_and_their_lines_fail_when_false():
    """DbrxConfig keeps attn_config.rope_theta but the rotary reads rope_parameters (10000): the check finds it on
    the recorded facts, and the snippet line made from it fails once the built value is mutated."""
    import copy

    from transformers import DbrxConfig

    from nnterp.encyclopedia.configs import class_differences
    from nnterp.encyclopedia.notes.derived.config_drops import _lines
    from nnterp.registry import registry

    from nnterp.encyclopedia.configs import ignored_nested_bases

    assert ignored_nested_bases(DbrxConfig) == ["attn_config"]  # the class's own, said where no release is sourced
    dbrx = registry()["dbrx"]
    found = class_differences(dbrx, dbrx.checkpoints[0])
    assert {"path": ("attn_config", "rope_theta"), "released": 500000.0, "built": 10000.0,
            "kind": "base ignored"} in found
    scope = {"released": lambda repo: copy.deepcopy(dbrx.checkpoints[0].config), "DbrxConfig": DbrxConfig}
    difference = next(d for d in found if d["kind"] == "base ignored")
    setup = "config = DbrxConfig(**copy.deepcopy(released('x')))\n"
    exec("import copy\n" + setup + "\n".join(_lines("x", difference)), dict(scope))
    with pytest.raises(AssertionError):
        exec("import copy\n" + setup + "\n".join(_lines("x", dict(difference, built=500000.0))), dict(scope))


def test_the_rotary_is_said_per_layer_where_some_blocks_apply_none():
    """EXAONE 4's attention applies the rotary only where `self.sliding_window is None or self.is_sliding`: on
    EXAONE-4.0-32B (sliding_window 4096, every fourth layer global) the global blocks do not rotate, read from the
    modeling code's own condition on the checkpoint built on the meta device."""
    from nnterp.encyclopedia.notes.derived.rotary import _per_layer_rotation
    from nnterp.encyclopedia.pages import build_on_meta
    from nnterp.registry import registry
    from nnterp.encyclopedia.notes.derived import Subject

    family = registry()["exaone4"]
    real, _ = build_on_meta(family)
    guard, turns = _per_layer_rotation(Subject(family, None, None, real))
    assert guard == "self.sliding_window is None or self.is_sliding"
    assert [i for i, t in turns.items() if not t] == list(range(3, real.num_layers, 4))
    llama = registry()["llama"]
    assert _per_layer_rotation(Subject(llama, None, None, build_on_meta(llama)[0])) is None
    from transformers.models.mistral_large4.modeling_mistral_large4 import MistralLarge4TextAttention

    from nnterp.encyclopedia.notes.derived.rotary import _rotary_guard

    # the innermost enclosing if that reads the rotary's switch, past an if of another kind (is_kv_shared_layer)
    assert _rotary_guard(MistralLarge4TextAttention.__new__(MistralLarge4TextAttention)) == "self.use_rope"


def test_the_rotary_words_read_longrope_m_rope_and_yarn_from_the_release():
    """The scaling a config.json names, in the rotary note's words: LongRoPE with its factor lists, M-RoPE with its
    sections, YaRN with its factor; a partial record without the key says nothing."""
    from nnterp.encyclopedia.notes.derived.rotary import _scaling_words

    longrope = Checkpoint("a/b", "B", {"rope_scaling": {"type": "longrope", "short_factor": [1.0] * 48,
                                                        "long_factor": [1.0] * 48, "short_mscale": 1.243}})
    assert _scaling_words(longrope).startswith("LongRoPE scaling (`longrope`: short_mscale 1.243")
    mrope = Checkpoint("a/c", "C", {"text_config": {"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}})
    assert _scaling_words(mrope).startswith("M-RoPE: the frequencies in sections [16, 24, 24]")
    from nnterp.registry import registry

    v3 = registry()["deepseek_v3"].checkpoints[0]
    assert _scaling_words(v3).startswith("YaRN scaling (`yarn`: factor 40")
    assert _scaling_words(Checkpoint("a/d", "D", {"hidden_size": 8}, partial=True)) is None
    assert _scaling_words(Checkpoint("a/e", "E", {"hidden_size": 8})) == "no rope scaling"


def test_the_pages_print_no_none_and_no_class_default_beside_a_checkpoint(site, record):
    """No derived note prints a None where a number belongs ("None heads × None"), marks a size "(class default)"
    beside a checkpoint, or states a number of a checkpoint whose facts name no source; every number a note states
    of a named checkpoint reads back from that checkpoint's recorded release file."""
    from nnterp.encyclopedia.configs import released_file, sourced
    from nnterp.encyclopedia.notes.derived.subject import _dig
    from nnterp.registry import every_family

    families = every_family()
    for name, fam in record["families"].items():
        text = _derived_text(site, name)
        assert not re.search(r"\bNone (heads|×|blocks|parameters)", text), name
        assert "(class default)" not in text, name
        checkpoints = {c.repo: c for c in families[name].checkpoints}
        for claim in fam["claims"]:
            if claim["repo"] is None:
                continue
            checkpoint = checkpoints[claim["repo"]]
            assert sourced(checkpoint), (name, claim)
            file = released_file(checkpoint)
            assert _dig(file, tuple(claim["path"])) == claim["value"], (name, claim)


def _release_claims(source: str):
    """Each top-level assertion of a snippet that reads only ``released(...)`` and literals (a number stated of a
    checkpoint's config.json), with the assignments before it that read only those: (setup, assert statement)."""
    import ast
    import builtins

    tree = ast.parse(source)
    allowed, setup = {"released"} | set(dir(builtins)), []

    def pure(node) -> bool:
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        return "released" in ast.unparse(node) and names <= allowed | {t for s in setup for t in _targets(s)}

    for statement in tree.body:
        if isinstance(statement, ast.Assign) and pure(statement.value):
            setup.append(statement)
        elif isinstance(statement, ast.Assert) and pure(statement.test):
            yield [ast.unparse(s) for s in setup], statement


def _targets(statement) -> set:
    import ast

    return {n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _mutants(statement):
    """The assertion with each number in it changed, one at a time (the sentence it proves made false)."""
    import ast

    numbers = [n for n in ast.walk(statement) if isinstance(n, ast.Constant)
               and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)]
    for number in numbers:
        original = number.value
        number.value = original * 2 + 1
        yield ast.unparse(statement)
        number.value = original


def test_every_release_number_a_hand_note_asserts_is_the_recorded_file_s_and_fails_when_changed():
    """Every hand-written note's assertion on released(repo) — a number the note states of a checkpoint's config.json
    — holds against the recorded release, and fails once any number in it is changed; the checkpoints it reads are
    recorded (with config facts). The hand notes' assertions the mutation cannot reach (they read the tiny model) are
    checked by the build itself."""
    from nnterp.encyclopedia import markdown, snippets
    from nnterp.encyclopedia.notes.hand import hand_notes
    from nnterp.registry import every_family

    checked, surviving, failing = 0, [], []
    for name, family in every_family().items():
        hand = hand_notes(family.name)
        texts = [hand.text] if hand is not None else []
        if not texts:
            continue
        scope = snippets.Runner(family, None, Path(".")).namespace(None)
        for note in (n for text in texts for n in markdown.parse(text)):
            for code in note.codes("python"):
                for setup, statement in _release_claims(code.source):
                    import ast

                    lines = "\n".join(setup)
                    try:
                        exec(lines + "\n" + ast.unparse(statement), dict(scope))
                    except Exception as error:
                        failing.append((name, note.title, ast.unparse(statement), repr(error)[:120]))
                        continue
                    for mutant in _mutants(statement):
                        try:
                            exec(lines + "\n" + mutant, dict(scope))
                        except Exception:
                            continue
                        surviving.append((name, note.title, mutant))
                    checked += 1
    assert not failing, failing
    assert not surviving, surviving
    assert checked >= 20, checked


def test_a_page_shows_a_checkpoint_only_where_its_record_gives_its_sizes():
    """The printout and the notes' "On <checkpoint>" speak of the representative: the first checkpoint whose facts
    name their source and, where the record is partial, give its depth, width and vocabulary; a record of only the
    architecture (A.X-K1's) would print the config class's defaults under the checkpoint's name, so the page speaks
    of the class's defaults instead."""
    from nnterp.encyclopedia.configs import representative, sized
    from nnterp.registry import registry

    families = registry()
    assert representative(families["axk1"]) is None
    assert not sized(Checkpoint("a/b", "B", {"architectures": ["X"], "dtype": "bfloat16"}, source="s", partial=True))
    assert sized(Checkpoint("a/b", "B", {"architectures": ["X"]}, source="s", partial=False))
    assert representative(families["mistral"]).repo == "mistralai/Mistral-7B-v0.1"
