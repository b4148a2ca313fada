"""Whether ``attribution_graph`` builds a graph through a token mixer that is no softmax attention, and how: what the
frozen trace fixes inside the mixer, read off the trace itself (``tools.frozen``), or the tool's refusal."""

from __future__ import annotations

from nnterp.encyclopedia.notes.derived.reading import _note
from nnterp.encyclopedia.snippets import PROMPT
from nnterp.tools._common import ToolError
from nnterp.tools.frozen import freeze, has_mlp
from nnterp.tools.frozen_mixers import block_mixers, mixer_modules
from nnterp.tools.graph import attribution_graph
from nnterp.tools.graph_sweep import transcoders

#: random transcoders sparse enough that a page's graph is a few dozen latents (seconds, not minutes, on a Mamba-2
#: scan's padded chunks), each block with an MLP reading what its MLP reads
THRESHOLD, BATCH = 2.0, 16
_BUILD = ["from nnterp.tools import attribution_graph",
          "from nnterp.tools.graph_sweep import transcoders",
          f"saes = transcoders(model, threshold={THRESHOLD})   # random, one a block with an MLP, reading what it reads"]
_GRAPH = f"attribution_graph(model, saes, prompt, progress=False, batch_size={BATCH})"


def fixed_calls(frozen) -> list:
    """(callee, how, names) of each call the frozen trace fixes inside the mixers, once each, in block order: "takes"
    (the coefficient arguments it is given at the clean run's), "returns" (the coefficients it returns), or "slope"
    (a SiLU made its input times the clean run's slope, no names)."""
    found = []
    for block in frozen.kernels:
        for _, calls in block:
            for kernel in calls or ():
                call = kernel.call
                entry = (call.callee, "takes", call.what) if call.kind == "arguments" else \
                    (call.callee, "returns", call.names) if call.kind == "outputs" else (call.callee, "slope", ())
                if entry not in found:
                    found.append(entry)
    return found


def gate_functions(model, frozen) -> list:
    """The functions whose outputs the clean run kept inside the mixers, call by call (a mixer's gates and a gated
    norm's, ``frozen.GATES`` and beyond), each name once, sorted."""
    inside = {module for mixer in mixer_modules(model) for module in mixer.modules()}
    return sorted({name for module, calls in frozen.gates.items() if module in inside
                   for name in getattr(calls, "names", ())})


def _words(callee: str, how: str, names) -> str:
    named = ", ".join(f"`{name}`" for name in names)
    if how == "slope":
        return f"the SiLU of `{callee}` becomes its input times the clean run's slope"
    if how == "takes":
        return f"`{callee}` is given {named} as the clean run computed them"
    return f"the {named} that `{callee}` returns {'are' if len(names) > 1 else 'is'} the clean run's"


def graph_note(subject) -> str | None:
    """On a family whose blocks hold a mixer that is no softmax attention: the graph is served, with what is frozen
    in the mixer, or refused, with the tool's sentence."""
    tiny = subject.tiny
    try:
        mixers = mixer_modules(tiny)
    except Exception:  # noqa: BLE001 (a model whose blocks the trace cannot read: no note)
        return None
    if not mixers:
        return None
    classes = ", ".join(dict.fromkeys(f"`{type(mixer).__name__}`" for mixer in mixers))
    attention = any(mixer is None for i in range(tiny.num_layers) for _, mixer in block_mixers(tiny, i))
    classes += " (with a softmax attention elsewhere, whose pattern is frozen)" if attention else ""
    try:
        attribution_graph(tiny, transcoders(tiny, threshold=THRESHOLD), PROMPT, progress=False, batch_size=BATCH)
    except ToolError as error:
        refusal = str(error)
        prose = (f"On {subject.named}, {classes} mixes the positions, and `attribution_graph` refuses the model in one "
                 f"sentence: \"{refusal}\".")
        code = [*_BUILD, "refusal = None", "try:", f"    {_GRAPH}",
                "except Exception as error:", "    refusal = str(error)", f"assert refusal == {refusal!r}"]
        return _note("No attribution graph is built", prose, code)
    except Exception:  # noqa: BLE001 (a failure is the sweep's to report, not a note's to state)
        return None
    frozen = freeze(tiny, PROMPT)
    fixed, gates = fixed_calls(frozen), gate_functions(tiny, frozen)
    how = [_words(*call) for call in fixed]
    if gates:
        how.append(f"its calls of {', '.join(f'`{name}`' for name in gates)} return the clean run's outputs, call by "
                   "call")
    if any(has_mlp(tiny, i) for i in range(tiny.num_layers)):
        checked = ("each target's input is the sum of its edges and constant, which a plain forward, hooked on each "
                   "MLP's input and on `lm_head`, confirms within rounding")
    else:
        checked = ("no block has an MLP, so no transcoder (None for each block) and no latent: the edges run from the "
                   "embeddings to the logits through the frozen mixers, and each logit is the sum of its edges and "
                   "constant, which a plain forward, hooked on `lm_head`, confirms within rounding")
    prose = (f"On {subject.named}, {classes} mixes the positions and has no pattern to freeze, so `attribution_graph` "
             f"freezes the mixer's data-dependent coefficients at the clean run's instead: {'; '.join(how)}. The mixer "
             "is then linear in its input, as an attention is with its pattern fixed, and still carries it: "
             f"{checked}.")
    code = [*_BUILD, f"graph = {_GRAPH}",
            "from nnterp.tools.graph import completeness_tolerance",
            "from nnterp.tools.graph_sweep import independent_completeness",
            "allowed = completeness_tolerance(model, len(graph.adjacency), graph.adjacency.dtype)",
            "assert independent_completeness(model, graph, saes) <= allowed",
            "from nnterp.encyclopedia.notes.derived.graph import fixed_calls, gate_functions",
            "from nnterp.tools.frozen import freeze",
            "frozen = freeze(model, prompt)",
            f"assert fixed_calls(frozen) == {fixed!r}",
            f"assert gate_functions(model, frozen) == {gates!r}"]
    return _note("Attribution graphs are served, the mixer frozen at its clean run's coefficients", prose, code)
