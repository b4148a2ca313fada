"""What one family's page shows, gathered from the library's own objects.

The printout, ``support()`` and the config come from the representative checkpoint (the family's
first with config facts) built on the meta device from its config facts, so the sizes are real and no weight is needed;
a family without config facts is built from its config class's defaults, whose docstring names the
checkpoint they reproduce. The notes' snippets run here, on the family's tiny model.
"""

from __future__ import annotations

import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch

from nnterp import tiny
from nnterp.declare.family import COMMON_ACCESSORS
from nnterp.declare.vocabulary import BY_NAME
from nnterp.encyclopedia import markdown, snippets
from nnterp.encyclopedia.configs import config_class, representative, reproduced_checkpoint
from nnterp.encyclopedia.notes import default_load, derived, notes_for
from nnterp.encyclopedia.notes.hand import hand_notes
from nnterp.encyclopedia.notes.identity import identity
from nnterp.encyclopedia.snippets import one_line
from nnterp.encyclopedia.verdicts import verdict
from nnterp.model import StandardizedTransformer
from nnterp.registry import auto_class

#: The fewest family-specific notes a page may carry; the build lists a page below it as a problem.
MIN_FAMILY_NOTES = 6

#: The standard accessors the config section lists, in order.
ACCESSORS = ("num_layers", *COMMON_ACCESSORS)

#: Raw config keys shown when a family ships no config facts (those its config has).
COMMON_KEYS = ("architectures", "num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
               "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings", "hidden_act",
               "layer_norm_eps", "rms_norm_eps", "layer_norm_epsilon", "tie_word_embeddings", "dtype")


@dataclass
class Page:
    family: object
    title: str
    module_file: str
    printout_intro: str
    printout: str
    rows: list
    block_kind: str
    identity: str
    num_layers: int
    accessors: list[tuple[str, object]]
    config: list[tuple[str, str]]
    notes: list[markdown.Note]
    runs_on: str
    checkpoint: str | None = None     # the real checkpoint the "python checkpoint" snippets ran on
    facts: dict = field(default_factory=dict)
    modules: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    #: the numbers the derived notes state of a checkpoint (notes.derived.Stated), each checked against its source
    claims: list = field(default_factory=list)
    #: what the architecture does otherwise than Llama, (aspect, phrase), and what it does as Llama: computed by the
    #: derived notes (None where the page has no derived notes)
    differences: list | None = None
    alike: list = field(default_factory=list)
    #: the family's tags, the key-value grouping read from the representative checkpoint
    tags: tuple = ()

    @property
    def name(self) -> str:
        return self.family.name

    def kinds(self) -> dict[str, int]:
        """The page's notes by how they were written (markdown.Note.kind)."""
        found = {"hand": 0, "feature": 0, "generic": 0}
        for note in self.notes:
            found[note.kind] = found.get(note.kind, 0) + 1
        return found

    def deep_notes(self) -> list[markdown.Note]:
        """The notes that state what a reader would not find on every page: hand-researched and feature notes."""
        return [note for note in self.notes if note.kind in ("hand", "feature")]

    def depth(self) -> dict[str, int]:
        """How deep the page goes: its family notes (hand-researched and feature, and each), its snippets, the checkpoints with real config facts and those the
        committed real-config run checked (python -m nnterp.encyclopedia.realconfigs)."""
        counts = self.snippet_counts()
        with_facts = sum(1 for c in self.family.checkpoints if c.config and not c.not_buildable)
        checked = sum(1 for c in self.family.checkpoints
                      if (verdict(self.family.name, c.repo) or {}).get("status") == "checked")
        kinds = self.kinds()
        return {"notes": len(self.deep_notes()), "hand": kinds["hand"], "feature": kinds["feature"],
                "snippets": sum(counts.values()), "passed": counts["passed"],
                "configs": with_facts, "checked": checked, "checkpoints": len(self.family.checkpoints)}

    def at_seed_depth(self) -> bool:
        """Whether the page carries the seed pages' depth: at least MIN_FAMILY_NOTES hand-researched notes."""
        return self.kinds()["hand"] >= MIN_FAMILY_NOTES

    def snippets(self) -> list[markdown.Code]:
        return [code for note in self.notes for code in note.codes() if code.kind in markdown.RUNNABLE]

    def snippet_counts(self) -> dict[str, int]:
        results = [code.result for code in self.snippets()]
        return {
            "passed": sum(1 for r in results if r is not None and r.passed),
            "failed": sum(1 for r in results if r is not None and not r.passed and not r.skipped),
            "skipped": sum(1 for r in results if r is None or r.skipped),
        }


def title_of(family) -> str:
    """The family's name as its module's docstring opens: 'Phi 1 / 1.5 / 2 (PhiForCausalLM).' gives 'Phi 1 / 1.5 / 2'."""
    first = family.doc.splitlines()[0].strip() if family.doc else ""
    match = re.match(r"(.+?)\s*\(", first)
    return (match.group(1) if match else first.rstrip(".")) or family.name


def module_file(family) -> str:
    module = family.module
    if module is None or not getattr(module, "__file__", None):
        return f"nnterp/families/{family.name}.py"
    path = Path(module.__file__)
    parts = path.parts
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("nnterp"):]) if "nnterp" in parts else path.name


def representative_config(family):
    """(config, intro sentence's subject) of the checkpoint the page's printout and config show."""
    cls = config_class(family)
    checkpoint = representative(family)
    if checkpoint is not None:
        return cls(**checkpoint.facts()), checkpoint.repo
    reproduced = reproduced_checkpoint(cls)
    like = f", which the transformers docs give as {reproduced}'s" if reproduced else ""
    return cls(), f"the defaults of {cls.__name__}{like}"


def build_on_meta(family):
    """The representative checkpoint as a StandardizedTransformer on the meta device: real sizes, no weights."""
    config, shown_on = representative_config(family)
    with torch.device("meta"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = auto_class(family, config).from_config(config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = StandardizedTransformer(hf, tokenizer=tiny.tokenizer(), device=torch.device("meta"))
    return model, shown_on


def config_value(config, key: str):
    try:
        value = getattr(config, key, None)
    except RuntimeError:  # a heterogeneous config refuses a global read of a per-layer attribute
        per_layer = [getattr(layer, key, None) for layer in getattr(config, "per_layer_config", None) or ()]
        distinct = sorted({v for v in per_layer if v is not None}, key=str)
        return f"per layer: {', '.join(map(str, distinct))}" if distinct else None
    if value is None:
        value = (getattr(config, "rope_parameters", None) or {}).get(key)
    return value


def show(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(show(v) for v in value)
    if isinstance(value, torch.dtype):
        return str(value).removeprefix("torch.")
    return str(value)


def config_rows(family, config) -> list[tuple[str, str]]:
    """The raw keys: the checkpoint's config facts, read back from the built config."""
    checkpoint = representative(family)
    keys = list(checkpoint.config) if checkpoint is not None else list(COMMON_KEYS)
    rows = []
    for key in keys:
        value = config_value(config, key)
        if value is None and checkpoint is not None:
            value = checkpoint.config.get(key)
        if value is not None:
            rows.append((key, show(value)))
    return rows


_TREE_LINE = re.compile(r"^\s*\(([\w/\-]+)\): (.+?)\(?$")


def modules_of(printout: str) -> dict[str, dict]:
    """Standard module name -> its native name and what it is, from the printout's ``(std/native): Module(...)`` lines."""
    found = {}
    for line in printout.splitlines():
        match = _TREE_LINE.match(line)
        if not match or " -> " in line or match.group(1) in BY_NAME:
            continue
        names = match.group(1).split("/")
        what = match.group(2)
        if names[0][0].isdigit():  # "(0-31): 32 x PhiDecoderLayer(": the blocks
            found["layers"] = {"native": "layers", "what": what}
            continue
        found.setdefault(names[0], {"native": names[-1], "what": what})
    return found


def block_sums(family, config) -> bool:
    """Whether the block is the sum of its input and its contributions (a post-norm block declares its own
    arithmetic instead)."""
    return family.block.arithmetic(config) is None


def block_kind_of(family, config) -> str:
    try:
        return str(family.block.kind(config))
    except Exception as error:  # a page still builds; the problem is listed on it
        return f"unknown ({type(error).__name__})"


def collect(family, checkpoint_cache: dict | None = None) -> Page:
    """Everything one family's page shows, with its snippets run."""
    problems: list[str] = []
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    checkpoint = representative(family)
    if checkpoint is None:  # no checkpoint with config facts: one named as not buildable says why none is shown
        checkpoint = next((named for named in family.checkpoints if named.not_buildable), None)
    not_buildable = checkpoint.not_buildable if checkpoint is not None else None
    fell_back = False
    try:
        if not_buildable:
            raise NotImplementedError(not_buildable)
        model, shown_on = build_on_meta(family)
        printout_intro = f"What print(model) shows on {shown_on}: the native modules, standard names and every " \
                         "standard value with its layout."
    except Exception as error:
        # with no checkpoint recorded with its source and sizes, the class's defaults were tried: that they do not
        # build is the class's, said on the page, not a problem of the page
        if not not_buildable and checkpoint is not None:
            problems.append(f"the meta build of the representative checkpoint failed ({one_line(error)}); "
                            "the page shows the tiny model")
        model = tiny.load(family.name)
        fell_back = True
        why = f" ({checkpoint.label} is not built here: {not_buildable})" if not_buildable else \
            (" (no checkpoint's config.json is recorded here with its source and sizes, and the config class's "
             f"defaults do not build: {one_line(error)})" if checkpoint is None else "")
        printout_intro = f"What print(model) shows on the tiny {family.name} model{why}: the native modules, " \
                         "standard names and every standard value with its layout."
    config = model.config
    try:
        printout = repr(model)
    except Exception as error:  # the page still shows the rest; the problem is listed on it
        problems.append(f"print(model) failed: {one_line(error)}")
        printout = f"print(model) failed: {one_line(error)}"
    rows = model.support()
    accessors = []
    for name in ACCESSORS:
        try:
            accessors.append((name, getattr(model, name)))
        except Exception as error:  # an accessor a family does not define is shown as such
            accessors.append((name, f"unavailable ({type(error).__name__})"))
    served = model._nnterp_state.config  # the block's facts are read from a wrapper's text config
    block_kind = block_kind_of(family, served)
    seconds["meta"] = time.perf_counter() - start

    start = time.perf_counter()
    sums = block_sums(family, served)
    mid_sums = family.block.mid_arithmetic(served) is None
    hand = hand_notes(family.name)
    load = hand.load if hand is not None and hand.load else default_load(family)
    modules = modules_of(printout)
    with snippets.runner(family, load) as run:
        subject = None
        if hand is None or not hand.whole_page:
            try:
                subject = derived.Subject(family, rows, run.tiny_model(), None if fell_back else model, modules,
                                          block_kind, sums, mid_sums)
            except Exception as error:  # the page keeps the notes that need no tiny model
                problems.append(f"the tiny model did not load ({one_line(error)}); the notes are not derived")
        notes, hand = notes_for(family, rows, block_kind, sums, mid_sums, subject)
        seconds["derive"] = time.perf_counter() - start
        start = time.perf_counter()
        page = Page(
            family=family, title=title_of(family), module_file=module_file(family), printout_intro=printout_intro,
            printout=printout, rows=rows, block_kind=block_kind, identity=identity(rows, sums),
            num_layers=model.num_layers, accessors=accessors,
            config=config_rows(family, config), notes=notes, runs_on="", modules=modules,
            problems=problems, seconds=seconds, tags=tags_of(family, subject),
            claims=list(subject.claims) if subject is not None else [],
            differences=list(subject.differences) if subject is not None else None,
            alike=list(subject.alike) if subject is not None else [],
        )
        run_notes(page, hand.code if hand is not None else None, run,
                  checkpoint_cache if checkpoint_cache is not None else {})
    seconds["notes"] = time.perf_counter() - start
    if hand is not None and len(page.notes) < MIN_FAMILY_NOTES:  # a page with notes of its own
        problems.append(f"only {len(page.notes)} family-specific notes, fewer than {MIN_FAMILY_NOTES}: "
                        f"add notes in {hand.path}")
    return page


#: the tags that say how keys and values are grouped: read from the representative checkpoint, not declared
GROUPING_TAGS = ("Grouped keys/values", "Multi-query")


def tags_of(family, subject) -> tuple:
    """The family's tags, its grouping tag the representative checkpoint's (where the derived notes read it)."""
    if subject is None or subject.grouping is None:
        return tuple(family.tags)
    kept = [tag for tag in family.tags if tag not in GROUPING_TAGS]
    if subject.grouping:
        at = next((i for i, tag in enumerate(family.tags) if tag in GROUPING_TAGS), len(kept))
        kept.insert(min(at, len(kept)), subject.grouping)
    return tuple(kept)


def run_notes(page: Page, module, run, checkpoint_cache: dict) -> None:
    """Run every snippet of the page: ``python`` on the tiny model, ``python checkpoint`` on the real one, which
    ``module`` (the notes file's code: ``CHECKPOINT``, ``load_checkpoint()``, ``facts(scope)``) loads."""
    page.runs_on = run.where
    checkpoint_scope: dict = {}
    for note in page.notes:
        for code in note.codes():
            if code.kind == "python":
                try:
                    model = run.tiny_model()
                except Exception as error:
                    code.result = snippets.Result(False, run.where, 0.0,
                                                  f"the tiny model did not load: {one_line(error)}")
                    continue
                code.result, _ = run.run(code.source, model, run.where)
            elif code.kind == "python checkpoint":
                real, reason = checkpoint_model(page.family.name, module, checkpoint_cache)
                where = f"{module.CHECKPOINT}, at build time" if module is not None else "a real checkpoint"
                if real is None:
                    code.result = snippets.Result(False, where, 0.0, reason, skipped=True)
                    continue
                page.checkpoint = module.CHECKPOINT
                code.result, scope = run.run(code.source, real, where, checkpoint_scope)
                checkpoint_scope.update({k: v for k, v in scope.items() if not k.startswith("__")})
    if checkpoint_scope and hasattr(module, "facts"):
        try:
            page.facts = module.facts(checkpoint_scope)
        except Exception as error:
            page.problems.append(f"the measured numbers could not be read ({one_line(error)})")


def checkpoint_model(name: str, module, cache: dict):
    """The family's real checkpoint, loaded once per build, or (None, why not)."""
    if module is None or not hasattr(module, "load_checkpoint"):
        return None, "the family has no checkpoint available offline"
    if name not in cache:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cache[name] = (module.load_checkpoint(), "")
        except Exception as error:
            cache[name] = (None, f"not run: {module.CHECKPOINT} is not available here ({one_line(error)})")
    return cache[name]
