"""Whether ``attribution_graph`` builds a graph through a token mixer that is no softmax attention or over a residual
of several streams, and how: what the frozen trace fixes inside the mixer and what mixes the streams, read off the
trace itself (``tools.frozen``, ``tools.frozen_streams``), or the tool's refusal; and, on a family whose forward runs
what no site serves, what the graph does there: blocks a text call skips, positions ahead of the call's whose MLP
outputs it holds, cycles run with gradients off that its refusal names the load for."""

from __future__ import annotations

import tempfile

from nnterp.declare.engine import module_of
from nnterp.encyclopedia.notes.derived.reading import _note
from nnterp.encyclopedia.snippets import PROMPT
from nnterp.tools._common import ToolError
from nnterp.model import StandardizedTransformer
from nnterp.tools.frozen import freeze, gating_activations, has_mlp, holds_ahead, unpatterned_attentions
from nnterp.tools.frozen_gates import writes_softmax_out
from nnterp.tools.frozen_mixers import block_mixers, mixer_modules
from nnterp.tools.frozen_streams import (
    magnitude_hosts,
    map_input,
    reversible_functions,
    stream_mixers,
    stream_routers,
)
from nnterp.tools.graph import attribution_graph, completeness_tolerance
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


def stream_gate_functions(model, frozen) -> list:
    """The functions whose outputs the clean run kept inside the hyper-connections (``frozen_streams.stream_mixers``),
    call by call, each name once, sorted."""
    inside = {module for mixer in stream_mixers(model) for module in mixer.modules()}
    return sorted({name for module, calls in frozen.gates.items() if module in inside
                   for name in getattr(calls, "names", ())})


def _streams(tiny, frozen) -> tuple[str, list]:
    """What a residual of several streams makes the note say, and the snippet's assertions of it; ("", []) on one
    stream."""
    hyper, routers, hosts = stream_mixers(tiny), stream_routers(tiny), magnitude_hosts(tiny)
    functions = reversible_functions(tiny)
    if not (hyper or routers or hosts or functions):
        return "", []
    code = ["from nnterp.tools.frozen_streams import map_input",
            'assert map_input(model) == "token_embeddings"   # the embedding nodes']
    if functions and not (hyper or routers or hosts):
        named = ", ".join(f"`{function.__name__}`" for function in functions)
        part = ("the residual is two streams, which each block reads and returns as a reversible residual (y1 = x1 + "
                f"attention(x2), y2 = x2 + feed_forward(y1)) run inside {named}, an autograd Function whose backward "
                "recomputes the blocks from their outputs, in training mode only: the graph's passes call its forward "
                "as a plain function and lift each block's own `torch.no_grad` once its attention runs, so the edges, "
                "which are gradients, pass through the blocks as the passes compute them. No weights mix the two "
                "streams; the embedding nodes are the token embedding both are made from, and the transcoders read "
                "what each MLP reads and write its output")
        code += ["from nnterp.tools.frozen_streams import reversible_functions",
                 f"assert [f.__name__ for f in reversible_functions(model)] == {[f.__name__ for f in functions]!r}",
                 "from nnterp.tools.frozen_probes import gradients_off",
                 "assert gradients_off(model, frozen) is None   # the passes' gradients are the map's"]
        return part, code
    how = []
    if hyper:
        classes = ", ".join(dict.fromkeys(f"`{type(mixer).__name__}`" for mixer in hyper))
        gates = stream_gate_functions(tiny, frozen)
        residual = (f"hyper-connections ({classes}) collapse into each sublayer's input and spread its output back "
                    "into, with weights computed from the streams")
        how.append(f"the hyper-connections' calls of {', '.join(f'`{name}`' for name in gates)} (the weights they "
                   "compute from the streams, and the scale of their norm of them) return the clean run's outputs, "
                   "call by call")
        code += ["from nnterp.encyclopedia.notes.derived.graph import stream_gate_functions",
                 f"assert stream_gate_functions(model, frozen) == {gates!r}"]
    else:
        residual = ("AltUp predicts the one each block computes on from and corrects after the block, with "
                    "coefficients computed from the streams")
    if routers:
        altup = type(next(m for m in module_of(tiny).modules() if routers[0] in set(m.children()))).__name__
        calls = len(frozen.taps[routers[0]])
        how.append(f"`{altup}`'s `modality_router`, whose outputs give the coefficients that predict and correct the "
                   "streams, returns the clean run's outputs, call by call (once to predict, once to correct)")
        code += ["from nnterp.tools.frozen_streams import stream_routers",
                 f"assert [len(frozen.taps[router]) for router in stream_routers(model)] == {[calls] * len(routers)!r}"]
    held = [module for module in gating_activations(tiny) if module in frozen.taps]
    if held and routers:  # Gemma 3n's per-layer input, gated by an activation of the corrected stream
        names = {module: name.rsplit(".", 1)[-1] for name, module in module_of(tiny).named_modules()}
        activations = ", ".join(dict.fromkeys(f"`{names[module]}`" for module in held))
        how.append(f"the block's {activations}, the activation of the corrected stream that gates the per-layer input "
                   "added to the streams, is held at its clean output, call by call")
        code += ["from nnterp.tools.frozen import gating_activations",
                 f"assert sum(module in frozen.taps for module in gating_activations(model)) == {len(held)}"]
    for host in hosts:
        roots = frozen.magnitudes[host].names.count("sqrt")
        how.append(f"the square roots with which `{type(host).__name__}` matches each stream's magnitude to the first "
                   "one's in its own forward (as it makes the streams from the embedding and as it brings them back "
                   "after the blocks) are the clean run's")
        code += ["from nnterp.tools.frozen_streams import magnitude_hosts",
                 "(host,) = magnitude_hosts(model)",
                 f'assert frozen.magnitudes[host].names.count("sqrt") == {roots}']
    part = (f"the residual is several streams, which {residual}, so no single stream enters block 0: the embedding "
            "nodes are the token embedding the streams are made from, the transcoders read what each MLP reads and "
            f"write its output before it goes back into the streams, and the mixing is frozen at the clean run's: "
            f"{'; '.join(how)}. Every stream is then linear in the embedding and the MLPs' outputs")
    return part, code

def _words(callee: str, how: str, names) -> str:
    named = ", ".join(f"`{name}`" for name in names)
    if how == "slope":
        return f"the SiLU of `{callee}` becomes its input times the clean run's slope"
    if how == "takes":
        return f"`{callee}` is given {named} as the clean run computed them"
    return f"the {named} that `{callee}` returns {'are' if len(names) > 1 else 'is'} the clean run's"


_CHECK = ["from nnterp.tools.graph import completeness_tolerance",
          "from nnterp.tools.graph_sweep import independent_completeness",
          "allowed = completeness_tolerance(model, len(graph.adjacency), graph.adjacency.dtype)",
          "assert independent_completeness(model, graph, saes) <= allowed"]


def graph_note(subject) -> str | None:
    """On a family whose blocks hold a mixer that is no softmax attention, or whose residual is several streams: the
    graph is served, with what is frozen in the mixer and what mixes the streams, or refused, with the tool's
    sentence. On a family whose forward runs what no site serves (a block a text call skips, positions ahead of the
    call's, cycles with gradients off): what the graph does there."""
    tiny = subject.tiny
    try:
        mixers = mixer_modules(tiny)
        several = map_input(tiny) == "token_embeddings"
    except Exception:  # noqa: BLE001 (a model whose blocks the trace cannot read: no note)
        return None
    if not mixers and not several:
        family = tiny.family
        try:
            if family.gradients_on is not None:
                return _gradients_note(subject)
            if family.positions.ahead(tiny.config):
                return _ahead_note(subject)
            if family.block.may_skip:
                return _skipped_note(subject)
        except Exception:  # noqa: BLE001 (a failure is the sweep's to report, not a note's to state)
            return None
        return None
    # an attention that writes its softmax out (Reformer's, which no site serves a pattern of) is no mixer to the prose
    written = [mixer for mixer in mixers if writes_softmax_out(mixer)]
    mixers = [mixer for mixer in mixers if mixer not in written]
    classes = ", ".join(dict.fromkeys(f"`{type(mixer).__name__}`" for mixer in mixers))
    attention = any(mixer is None for i in range(tiny.num_layers) for _, mixer in block_mixers(tiny, i))
    classes += " (with a softmax attention elsewhere, whose pattern is frozen)" if attention and mixers else ""
    what = f"{classes} mixes the positions" if mixers else "the residual is several streams"
    try:
        attribution_graph(tiny, transcoders(tiny, threshold=THRESHOLD), PROMPT, progress=False, batch_size=BATCH)
    except ToolError as error:
        refusal = str(error)
        prose = (f"On {subject.named}, {what}, and `attribution_graph` refuses the model in one sentence: "
                 f"\"{refusal}\".")
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
    streams, stream_code = _streams(tiny, frozen)
    unpatterned = unpatterned_attentions(tiny)
    if any(has_mlp(tiny, i) for i in range(tiny.num_layers)):
        checked = ("each target's input is the sum of its edges and constant, which a plain forward, hooked on each "
                   "MLP's input and on `lm_head`, confirms within rounding")
    else:
        checked = ("no block has an MLP, so no transcoder (None for each block) and no latent: the edges run from the "
                   "embeddings to the logits through the frozen mixers, and each logit is the sum of its edges and "
                   "constant, which a plain forward, hooked on `lm_head`, confirms within rounding")
    parts = []
    if mixers:
        parts.append(f"{classes} mixes the positions and has no pattern to freeze, so `attribution_graph` freezes the "
                     f"mixer's data-dependent coefficients at the clean run's instead: {'; '.join(how)}. The mixer is "
                     "then linear in its input, as an attention is with its pattern fixed, and still carries it")
    if written:
        named = ", ".join(dict.fromkeys(f"`{type(mixer).__name__}`" for mixer in written))
        parts.append(f"{named} computes its pattern as exp(scores - logsumexp(scores)) within chunks of positions and "
                     "hash buckets, which no site serves: its calls of "
                     f"{', '.join(f'`{name}`' for name in gates)} (the buckets it hashes and sorts the keys into, and "
                     "the pattern) return the clean run's outputs, call by call, so it is linear in its values")
    if streams:
        parts.append(streams)
    if unpatterned:
        parts.append("an attention whose pattern no site serves is fixed by its own softmax, whose outputs the clean "
                     "run kept and the graph's passes replay, call by call")
    prose = f"On {subject.named}, {'; and '.join(parts)}: {checked}."
    title = ("Attribution graphs are served, the mixer frozen at its clean run's coefficients" if mixers and not streams
             else "Attribution graphs are served, the mixer and the streams' mixing frozen at the clean run's" if mixers
             else "Attribution graphs are served through the reversible blocks, run as plain differentiable calls"
             if reversible_functions(tiny)
             else "Attribution graphs are served, the streams' mixing frozen at the clean run's weights")
    code = [*_BUILD, f"graph = {_GRAPH}",
            *_CHECK,
            "from nnterp.encyclopedia.notes.derived.graph import fixed_calls, gate_functions",
            "from nnterp.tools.frozen import freeze",
            "frozen = freeze(model, prompt)",
            f"assert fixed_calls(frozen) == {fixed!r}",
            f"assert gate_functions(model, frozen) == {gates!r}",
            *stream_code]
    if unpatterned:
        code += ["from nnterp.tools.frozen import unpatterned_attentions",
                 f"assert unpatterned_attentions(model) == {unpatterned!r}",
                 ("assert all('softmax' in frozen.gates[model.layers[i].self_attn._module].names "
                  "for i in unpatterned_attentions(model))")]
    return _note(title, prose, code)


def _skipped_note(subject) -> str | None:
    """Blocks a text call does not run (a cross-attention block without image features): no latent, no error, no
    pattern there; the graph complete over the others."""
    tiny = subject.tiny
    frozen = freeze(tiny, PROMPT)
    skipped = [i for i in range(tiny.num_layers) if not frozen.runs(i)]
    if not skipped:
        return None
    saes = transcoders(tiny, threshold=THRESHOLD)
    saes[skipped[0]].b_enc.data.fill_(1.0)
    graph = attribution_graph(tiny, saes, PROMPT, progress=False, batch_size=BATCH)
    errors = graph.n_features + skipped[0] * graph.n_pos
    if skipped[0] in graph.features[:, 0].tolist() or graph.adjacency[:, errors:errors + graph.n_pos].any() or \
            graph.stats.get("blocks_not_run") != skipped:
        return None
    blocks = ", ".join(map(str, skipped))
    prose = (f"On a text call, with no image features, the model does not run its cross-attention blocks (block "
             f"{blocks} of the tiny model), so `attribution_graph` has no pattern, no norm scale and no MLP output "
             "to fix or set there: a transcoder given for such a block never fires, not even on a positive encoder "
             "bias, its error nodes carry nothing, and it adds nothing to any edge; "
             "`graph.stats[\"blocks_not_run\"]` lists those blocks. Over the blocks that run, each target's input "
             "is the sum of its edges and constant, which a plain forward, hooked on each MLP's input and on "
             "`lm_head`, confirms within rounding.")
    code = [*_BUILD, "from nnterp.tools.frozen import freeze",
            "skipped = [i for i in range(model.num_layers) if not freeze(model, prompt).runs(i)]",
            f"assert skipped == {skipped!r}",
            "saes[skipped[0]].b_enc.data.fill_(1.0)   # it would fire on any input it read",
            f"graph = {_GRAPH}",
            "assert graph.stats[\"blocks_not_run\"] == skipped",
            "assert skipped[0] not in graph.features[:, 0].tolist()",
            "errors = graph.n_features + skipped[0] * graph.n_pos   # that block's error nodes",
            "assert not graph.adjacency[:, errors:errors + graph.n_pos].any()", *_CHECK]
    return _note("Attribution graphs leave out the blocks a text call skips", prose, code)


def _ahead_note(subject) -> str | None:
    """Positions the blocks run ahead of the call's (CPM-Ant's learned prompt): their MLP outputs held at the clean
    run's, a share of each target's constant that the graph reports."""
    tiny = subject.tiny
    saes = transcoders(tiny, threshold=THRESHOLD)
    graph = attribution_graph(tiny, saes, PROMPT, progress=False, batch_size=BATCH)
    frozen = freeze(tiny, graph.token_ids)
    if not holds_ahead(frozen) or not graph.stats.get("held_ahead_share"):
        return None
    prose = ("The blocks also run over `config.prompt_length` learned prompt positions ahead of the call's, which no "
             "site serves, and those positions attend to the call's tokens, so their MLP outputs depend on the prompt "
             "and no transcoder replaces them. `attribution_graph` holds those MLP outputs at the clean run's, as "
             "circuit-tracer's `zero_positions` hold the first position's: they are a share of each target's constant, "
             "not of any edge, and `graph.stats[\"held_ahead_share\"]` is the largest share of a target (of its "
             "constant plus its edges' magnitudes) they carry. The norms and softmaxes there are frozen as at the "
             "call's positions. Each target's input is then the sum of its edges and constant, which a plain forward, "
             "hooked on each MLP's input (the call's positions, after the prompt's) and on `lm_head`, confirms within "
             "rounding.")
    code = [*_BUILD, f"graph = {_GRAPH}", *_CHECK,
            "from nnterp.tools.frozen import HeldAhead, block_mlps, freeze",
            "frozen = freeze(model, graph.token_ids)",
            "held = [frozen.taps[mlp] for mlp in block_mlps(model)]",
            ("assert all(isinstance(h, HeldAhead) and h.clean.shape[1] == model.config.prompt_length "
             "for (h,) in held)"),
            "other = freeze(model, \"A cat sat on the mat\")   # another prompt: other held outputs",
            ("assert not any(torch.allclose(h.clean, other.taps[mlp][0].clean) "
             "for (h,), mlp in zip(held, block_mlps(model)))"),
            "assert graph.stats[\"held_ahead_share\"] > 0   # what the held outputs carry of some target"]
    return _note("Attribution graphs hold the learned prompt's MLP outputs at the clean run's", prose, code)


def _gradients_note(subject) -> str | None:
    """A forward that runs part of itself with gradients off by default: the refusal, naming the load that keeps them
    on (the family's ``gradients_on``), and the graph complete under that load."""
    tiny = subject.tiny
    try:
        attribution_graph(tiny, transcoders(tiny, threshold=THRESHOLD), PROMPT, progress=False, batch_size=BATCH)
        return None
    except ToolError as error:
        refusal = str(error)
    keywords = tiny.family.gradients_on(tiny.config)
    given = ", ".join(f"{key}={value!r}" for key, value in keywords.items())
    if given not in refusal:
        return None
    with tempfile.TemporaryDirectory() as folder:
        module_of(tiny).save_pretrained(folder)
        tiny.tokenizer.save_pretrained(folder)
        fixed = StandardizedTransformer(folder, attn_implementation="eager", dispatch=True, **keywords)
        graph = attribution_graph(fixed, transcoders(fixed, threshold=THRESHOLD), PROMPT, progress=False,
                                  batch_size=BATCH)
    if graph.stats["completeness_over_every_active_latent"] > completeness_tolerance(fixed, len(graph.adjacency),
                                                                                      graph.adjacency.dtype):
        return None
    default = ", ".join(f"{key}={getattr(tiny.config, key)!r}" for key in keywords)
    prose = (f"With `{default}`, as on the tiny model, the forward runs part of itself under `torch.no_grad`, so an "
             "attribution graph's edges, which are gradients, would miss every path through it: `attribution_graph` "
             f"refuses in one sentence, \"{refusal}\". Loaded as it says ({given} on the tiny model, from the model's "
             "own config), "
             "nothing runs with gradients off and the graph is built, each target's input the sum of its edges and "
             "constant within rounding.")
    code = [*_BUILD, *[f"assert model.config.{key} == {getattr(tiny.config, key)!r}" for key in keywords],
            "refusal = None", "try:", f"    {_GRAPH}", "except Exception as error:",
            "    refusal = str(error)", f"assert refusal == {refusal!r}",
            "import tempfile",
            "folder = tempfile.mkdtemp()",
            "model._module.save_pretrained(folder)",
            "model.tokenizer.save_pretrained(folder)",
            f"fixed = StandardizedTransformer(folder, attn_implementation=\"eager\", dispatch=True, {given})",
            (f"graph = attribution_graph(fixed, transcoders(fixed, threshold={THRESHOLD}), prompt, progress=False, "
             f"batch_size={BATCH})"),
            "from nnterp.tools.graph import completeness_tolerance",
            "allowed = completeness_tolerance(fixed, len(graph.adjacency), graph.adjacency.dtype)",
            "assert graph.stats[\"completeness_over_every_active_latent\"] <= allowed",
            "from nnterp.tools.frozen import freeze",
            "from nnterp.tools.frozen_probes import gradients_off",
            "assert gradients_off(fixed, freeze(fixed, prompt)) is None"]
    return _note(f"No attribution graph with {default}; one under the load its refusal names", prose, code)
