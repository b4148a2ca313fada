"""The replacement model an attribution graph (``nnterp.tools.graph``) is built on: the transcoders as one a
block (``_PerBlock``) or cross-layer (``_CrossLayer``), and one prompt's source nodes, latents, errors and token
embeddings, with their edges into a target (``replacement_sources``, ``ReplacementSources``)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from nnterp.tools._common import ToolError
from nnterp.tools.frozen import circuit_tracer_tokens, freeze, replacement_pass
from nnterp.tools.frozen_probes import first_nonlinear, gradients_off, unreplaced_mlp
from nnterp.tools.splice import CrossLayerSplice, Splice, splice


# --------------------------------------------------------------------------- the replacement model's passes
class _PerBlock:
    """One transcoder a block, each writing its own block's mlp_output (a list, or circuit-tracer's TranscoderSet);
    None at a block with no MLP (a Mamba block): no latents, nothing read or written there."""

    def __init__(self, spliced: list, width: int = 0) -> None:
        self.spliced, self.width = spliced, width
        self.reads = [None if one is None else one.reads for one in spliced]
        # where a block with no transcoder keeps its empty vectors: with the others
        self.device = next((_encoder(one).device for one in spliced if one is not None), torch.device("cpu"))

    def encode(self, layer: int, x) -> torch.Tensor:
        one = self.spliced[layer]
        if one is None:
            return x.new_zeros(*x.shape[:-1], 0, dtype=torch.float32)
        return one.encode(x.to(_encoder(one).dtype)).float()

    def encoder(self, layer: int) -> torch.Tensor:
        one = self.spliced[layer]
        return torch.zeros(self.width, 0, device=self.device) if one is None else _encoder(one).detach().float()

    def writes(self, source: int) -> list:
        """(block, decoder vectors [latents, d_model]) for each block block ``source``'s latents write to."""
        one = self.spliced[source]
        return [(source, torch.zeros(0, self.width, device=self.device) if one is None
                 else _decoder(one).detach().float())]

    def bias(self, layer: int, x, like) -> torch.Tensor:
        """The decoder's bias alone: the reconstruction of zero latents, less the skip."""
        one = self.spliced[layer]
        if one is None:
            return like.new_zeros(like.shape, dtype=torch.float32)
        zero = torch.zeros(*x.shape[:-1], _encoder(one).shape[1], dtype=_encoder(one).dtype)
        skip = self.skip(layer, x)
        out = one.reconstruct(zero, x.to(zero.dtype), like.float()).float()
        return out if skip is None else out - skip.float()

    def skip(self, layer: int, x):
        """The transcoder's skip of ``x`` (SAELens's SkipTranscoder, circuit-tracer's W_skip), or None."""
        one = self.spliced[layer]
        W_skip = getattr(getattr(one, "sae", None), "W_skip", None)
        return None if W_skip is None else one._flat(x).to(W_skip.dtype) @ W_skip.T


class _CrossLayer:
    """circuit-tracer's cross-layer transcoder: block ``k``'s latents read at its input and write to the mlp_output
    of every block from ``k`` on."""

    def __init__(self, spliced: CrossLayerSplice) -> None:
        self.spliced, self.clt = spliced, spliced.clt
        self.reads = spliced.reads

    def encode(self, layer: int, x) -> torch.Tensor:
        return self.clt.encode_layer(x.to(self.clt.dtype), layer).float()

    def encoder(self, layer: int) -> torch.Tensor:
        W_enc = getattr(self.clt, "W_enc", None)  # circuit-tracer's [d_transcoder, d_model] a block, maybe lazy
        return (W_enc[layer] if W_enc is not None else self.clt._get_encoder_weights(layer)).detach().float().T

    def writes(self, source: int) -> list:
        decoder = self.spliced.decoder(source).detach().float()  # [latents, blocks from source on, d_model]
        return [(source + offset, decoder[:, offset]) for offset in range(decoder.shape[1])]

    def bias(self, layer: int, x, like) -> torch.Tensor:
        return self.clt.b_dec[layer].detach().float().expand(like.shape).clone()

    def skip(self, layer: int, x):
        W_skip = getattr(self.clt, "W_skip", None)
        return None if W_skip is None else x.to(W_skip.dtype) @ W_skip[layer]


def _scan(transcoders):
    """The transcoders' name as circuit-tracer's graph keeps it: a set's (or a cross-layer transcoder's)
    ``scan_name`` or ``scan``; for a list, each one's, a list of names; None where any has none."""
    def name(one):
        return getattr(one, "scan_name", None) or getattr(one, "scan", None)

    if isinstance(transcoders, (list, tuple)):
        names = [name(one.sae if isinstance(one, Splice) else one) for one in transcoders]
        return None if any(n is None for n in names) else names
    return name(transcoders)


def _replacement(model, transcoders):
    """The transcoders of a graph, as one replacement of every block's mlp_output."""
    if isinstance(transcoders, CrossLayerSplice) or (hasattr(transcoders, "encode_layer") and
                                                    not hasattr(transcoders, "transcoders")):
        spliced = transcoders if isinstance(transcoders, CrossLayerSplice) else splice(model, transcoders)
        for i, point in enumerate(spliced.writes):
            if point.name != "mlp_output":
                raise ToolError(f"the cross-layer transcoder writes at {point.path}: an attribution graph's "
                                "transcoders write the blocks' mlp_output")
        return _CrossLayer(spliced)
    if hasattr(transcoders, "transcoders") and hasattr(transcoders, "feature_input_hook"):  # circuit-tracer's set
        hooks = (transcoders.feature_input_hook, transcoders.feature_output_hook)
        return _PerBlock([Splice(model, t, f"blocks.{i}.{hooks[0]}", f"blocks.{i}.{hooks[1]}", computed=True)
                          for i, t in enumerate(transcoders)])
    transcoders = list(transcoders)
    if len(transcoders) != model.num_layers:
        raise ToolError(f"an attribution graph needs one transcoder per block or a cross-layer transcoder: "
                        f"{len(transcoders)} given, the model has {model.num_layers} blocks")
    # read and assigned in the replacement's trace, not spliced into: a value the model sums from two modules (a
    # shared expert and the routed ones) is one the trace reads and assigns
    spliced = [t if t is None or isinstance(t, Splice) else Splice(model, t, computed=True) for t in transcoders]
    for i, one in enumerate(spliced):
        if one is None:  # only where the block has no MLP to replace
            if model.serves("mlp_output", i) is None:
                raise ToolError(f"transcoder {i} is None, but block {i} has an MLP: give one transcoder for each "
                                "block, None only for a block with no MLP")
            continue
        if one.reads.layer != i or one.writes.name != "mlp_output" or one.writes.layer != i:
            raise ToolError(f"transcoder {i} reads at {one.reads.path} and writes at {one.writes.path}: an attribution "
                            f"graph's transcoder {i} writes block {i}'s mlp_output")
    return _PerBlock(spliced, model.hidden_size)


def _encoder(spliced: Splice) -> torch.Tensor:
    """Encoder vectors [d_in, latents]: SAELens's W_enc, or circuit-tracer's transposed."""
    W_enc = spliced.sae.W_enc
    width = spliced.d_in
    return W_enc if W_enc.shape[0] == width else W_enc.T


def _decoder(spliced: Splice) -> torch.Tensor:
    """Decoder vectors [latents, d_out] (both formats store them so)."""
    return spliced.sae.W_dec


@dataclass
class ReplacementSources:
    """The source nodes of one prompt's replacement model, as an attribution graph holds them: the active latents
    (``features`` [n, 3] (block, position, latent), ``activations``), one error node a block and position
    (``errors[block]`` [seq, d_model], zero at ``zero_positions``) and one token embedding a position (``embed``);
    each block's leaf at the clean run (``clean_leaves``: latents decoded, bias and error, less the skip the pass
    adds) and what no source carries (``held``: the decoder's bias, and the whole leaf at ``zero_positions``)."""

    replacement: object
    frozen: object
    reads: list
    features: torch.Tensor
    activations: torch.Tensor
    writes: list
    errors: list
    clean_leaves: list
    held: list
    embed: torch.Tensor

    @property
    def n_sources(self) -> int:
        """Latents, then errors (block-major), then tokens: the graph's order."""
        return len(self.features) + (len(self.errors) + 1) * self.frozen.seq_len

    def edges(self, g_embed, g_leaves, into: torch.Tensor | None = None, latents_at_once: int = 2 ** 16,
              positions_at_once: int = 2 ** 16) -> torch.Tensor:
        """Each source's share of a target, [rows, n_sources]: its vector (activation × decoder vector into each
        block it writes, the error, the embedding) times the target's gradient there (``g_embed`` [rows seq d],
        ``g_leaves[block]`` the same at each block's leaf); written into ``into``'s first columns where given
        (``edges_at``, a block at a time)."""
        out = torch.zeros(g_embed.shape[0], self.n_sources) if into is None else into
        for block, gradient in enumerate(g_leaves):
            self.edges_at(block, gradient, out, latents_at_once, positions_at_once)
        self.edges_at(None, g_embed, out)
        return out

    def edges_at(self, block: int | None, gradient, out: torch.Tensor, latents_at_once: int = 2 ** 16,
                 positions_at_once: int = 2 ** 16) -> None:
        """The shares ``gradient`` [rows seq d], a target's gradient at block ``block``'s leaf (None: at the stream
        entering block 0), gives: into ``out``'s columns of the latents that write that block (added: a cross-layer
        latent writes several) and of the block's errors (or of the tokens). A latent's products go a slice at a
        time: few active latents each take their own decoder vector, many take the whole decoder a slice of
        positions at a time, so no [rows seq latents] product is held whole."""
        features, activations, seq, L = self.features, self.activations, self.frozen.seq_len, len(self.errors)
        n_feat = len(features)
        if block is None:
            out[:, n_feat + L * seq: self.n_sources] = (gradient * self.embed).sum(-1)
            return
        for source in range(L):
            idx = (features[:, 0] == source).nonzero().flatten()
            for written, decoder in self.writes[source] if len(idx) else ():
                if written != block:
                    continue
                if 32 * len(idx) < seq * decoder.shape[0]:  # few active: each one's own decoder vector
                    for first in range(0, len(idx), latents_at_once):
                        here = idx[first:first + latents_at_once]
                        out[:, here] += (gradient[:, features[here, 1]] * decoder[features[here, 2]]
                                         ).sum(-1) * activations[here]
                    continue
                for first in range(0, seq, positions_at_once):  # many: every latent's, a slice of positions
                    last = first + positions_at_once
                    here = idx[(features[idx, 1] >= first) & (features[idx, 1] < last)]
                    if len(here):
                        per_position = gradient[:, first:last] @ decoder.T  # [rows positions latents]
                        out[:, here] += per_position[:, features[here, 1] - first, features[here, 2]] * activations[here]
        out[:, n_feat + block * seq: n_feat + (block + 1) * seq] = (gradient * self.errors[block]).sum(-1)

    def backward_edges(self, target: torch.Tensor, inputs: list, roots: list, rows: int, into: torch.Tensor,
                       latents_at_once: int = 2 ** 16, positions_at_once: int = 2 ** 16) -> None:
        """The backward pass from ``target`` (the sum of a pass's targets, one a row) through the forward whose
        inputs are ``inputs`` (the stream entering block 0, then each block's leaf, [rows seq d], reached from
        ``roots``, the tensors autograd differentiates by; the forward's graph kept for the next pass): each input's
        gradient (its first ``rows`` rows) made into its shares (``edges_at``, into ``into``) as it arrives and then
        dropped, one block's at a time, as circuit-tracer's backward hooks do, not every block's at once. An input
        the target does not reach keeps its columns as they are (zero)."""
        def consume(block):
            def hook(gradient):
                self.edges_at(block, gradient[:rows].float(), into, latents_at_once, positions_at_once)
            return hook

        handles = [tensor.register_hook(consume(block))
                   for block, tensor in zip([None, *range(len(inputs) - 1)], inputs)]
        try:
            torch.autograd.backward(target, inputs=roots, retain_graph=True)
        finally:
            for handle in handles:
                handle.remove()
            for root in roots:
                root.grad = None


def _gradients_on(model) -> str:
    """How to load ``model`` so that its forward keeps gradients on: the family's keywords (``gradients_on``) at this
    config's values, or, where it names none, the fix in general words."""
    keywords = model.family.gradients_on
    if keywords is None:
        return "load the model with a config that keeps gradients on there"
    given = ", ".join(f"{key}={value!r}" for key, value in keywords(model.config).items())
    return f"load it as StandardizedTransformer(repo, {given}), which keeps gradients on there"


def refuse_what_is_not_linear(model, frozen) -> None:
    """Refuse, in one sentence, a forward the frozen trace leaves non-linear in the stream (``first_nonlinear``: the
    first module that bends) or whose gradients miss a path its values take (``gradients_off``)."""
    bent = first_nonlinear(model, frozen)
    if bent is not None:
        why = unreplaced_mlp(model, bent[0])
        raise ToolError(f"{model.family.name}'s forward is not linear in the stream with its norms, patterns and gates "
                        f"frozen: {bent[0]} ({bent[1]}) is the first module whose output is not"
                        + (f", in a block with no mlp_output for a transcoder to replace ({why})" if why else "")
                        + ", so no attribution graph of it is complete")
    off = gradients_off(model, frozen)
    if off is not None:
        raise ToolError(f"{model.family.name} runs {off} with gradients off inside its own forward (torch.no_grad), so "
                        "an attribution graph's edges, which are gradients, miss every path through it: "
                        + _gradients_on(model))


def replacement_sources(model, transcoders, prompt, zero_positions: slice | None, chunk_bytes: int | None = None,
                        probed: bool = True) -> ReplacementSources:
    """``prompt``'s frozen trace (its attention a query chunk at a time with ``chunk_bytes``, ``freeze``; refused, in
    one sentence, where the forward is still not linear: ``refuse_what_is_not_linear``; ``probed=False`` leaves that
    to a caller that checks its result's completeness, which fails where the probes would, and probes then) and the
    source nodes of its replacement model with ``transcoders`` (``ReplacementSources``)."""
    replacement = _replacement(model, transcoders)
    frozen = freeze(model, circuit_tracer_tokens(model, prompt) if isinstance(prompt, str) else prompt, chunk_bytes)
    if probed:
        refuse_what_is_not_linear(model, frozen)
    L = model.num_layers
    with torch.no_grad():
        reads, _ = replacement_pass(model, frozen, replacement, frozen.inputs["embed"],
                                    [frozen.inputs[("mlp", i)] for i in range(L)], skips=False)
        latents = [replacement.encode(i, reads[i][0]) for i in range(L)]
        for i in range(L):  # a block the call skips reads nothing: its transcoder never fires (not on its bias)
            if not frozen.runs(i):
                latents[i].zero_()
        if zero_positions is not None:  # circuit-tracer's: no latent there
            for block_latents in latents:
                block_latents[zero_positions] = 0
    features = torch.cat([torch.stack([torch.full_like(p, i), p, f], 1) for i, a in enumerate(latents)
                          for p, f in [a.nonzero(as_tuple=True)]]) if latents else torch.zeros(0, 3, dtype=torch.long)
    activations = torch.stack([latents[l][p, f] for l, p, f in features.tolist()]) if len(features) else torch.zeros(0)
    writes = [replacement.writes(source) for source in range(L)]  # [(block, decoder vectors)] of each block's latents
    errors, clean_leaves, held = [], [], []
    with torch.no_grad():
        for i in range(L):
            out, x = frozen.inputs[("mlp", i)][0], reads[i][0]
            skip = replacement.skip(i, x)
            skip = 0 if skip is None else skip.float()
            bias = replacement.bias(i, x, out)
            decoded = sum(latents[source] @ decoder for source in range(i + 1) for block, decoder in writes[source]
                          if block == i)
            error = out.float() - decoded - bias - skip
            if not frozen.runs(i):  # a block the call skips is written nothing: no decoding, no bias, no error
                decoded, bias, error = (torch.zeros_like(error) for _ in range(3))
            # the leaf: what the block's mlp_output is made of, less the skip (which the pass adds from what it reads)
            clean_leaves.append(decoded + bias + error)
            # what no source carries: the bias, and the whole leaf at zero_positions (circuit-tracer's zeroed error)
            held.append(bias.clone())
            if zero_positions is not None:
                held[i][zero_positions] = clean_leaves[i][zero_positions]
                error[zero_positions] = 0
            errors.append(error)
    return ReplacementSources(replacement, frozen, reads, features, activations, writes, errors, clean_leaves, held,
                              frozen.inputs["embed"][0].float())
