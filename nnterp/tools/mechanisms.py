"""Real mechanisms, measured through the standard values: induction heads, the first-position sink
and the logit lens on the seeds' prompt. Each runs on any model; the documented numbers are the
embedded SmolLM2-135M-Instruct's (``nnterp.real.load(attn_implementation="eager")``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from nnterp.declare.engine import module_of
from nnterp.tools._common import ToolError, blocks_serving, encode, token_text, trace
from nnterp.tools.ablation import ablate_heads
from nnterp.tools.lens import LogitLens, logit_lens
from nnterp.tools.plots import _figure, heatmap, label, save

PROMPT = "The Eiffel Tower is in the city of"


# --------------------------------------------------------------------------- induction heads
@dataclass
class Induction:
    """Induction scores of every head on random tokens repeated twice (Olsson et al. 2022).

    ``scores[l, h]`` is the mean attention, over the repeated half, from a token to the token
    that followed its first occurrence. ``loss_first``/``loss_repeated`` are the model's
    next-token losses on each half.
    """

    scores: torch.Tensor              # [blocks num_heads]
    tokens: torch.Tensor              # [batch prefix + 2 * length]
    prefix: int
    length: int
    loss_first: float
    loss_repeated: float

    def top(self, k: int = 5) -> list[tuple[int, int, float]]:
        """The ``k`` heads with the highest induction score: (block, head, score)."""
        flat = self.scores.nan_to_num(nan=-float("inf")).flatten()
        values, index = flat.topk(min(k, int(self.scores.isfinite().sum())))
        heads = self.scores.shape[1]
        return [(int(i) // heads, int(i) % heads, float(v)) for v, i in zip(values, index)]

    def table(self, k: int = 10) -> str:
        lines = [f"induction heads on {self.tokens.shape[0]} sequences of {self.length} random tokens repeated twice",
                 f"  loss on the first half {self.loss_first:.3f}, on the repeated half {self.loss_repeated:.3f}",
                 f"  top {k} heads (block.head: induction score):"]
        lines += [f"    {layer}.{head}: {score:.3f}" for layer, head, score in self.top(k)]
        return "\n".join(lines)

    def plot(self, path=None):
        return heatmap(self.scores, rows=list(range(self.scores.shape[0])), columns=list(range(self.scores.shape[1])),
                       title="induction score per head", xlabel="head", ylabel="block", path=path,
                       colorbar_label="attention to the token after the previous occurrence")


def repeated_random_tokens(model, length: int = 40, batch: int = 8, seed: int = 0, prefix=None) -> tuple[torch.Tensor, int]:
    """``batch`` rows of ``length`` random tokens, each repeated twice, after ``prefix`` (default: whatever
    the tokenizer puts before a prompt, such as a BOS token). Special tokens are never drawn."""
    tokenizer = model.tokenizer
    if prefix is None:
        with_special = tokenizer("a").input_ids
        without = tokenizer("a", add_special_tokens=False).input_ids
        prefix = with_special[: len(with_special) - len(without)] if with_special[-len(without):] == without else []
    prefix = list(prefix)
    generator = torch.Generator().manual_seed(seed)
    special = torch.tensor(sorted(set(tokenizer.all_special_ids)), dtype=torch.long)
    vocab = min(model.vocab_size, len(tokenizer))
    draws = torch.randint(0, vocab, (batch, length), generator=generator)
    while bool(torch.isin(draws, special).any()):
        again = torch.isin(draws, special)
        draws[again] = torch.randint(0, vocab, (int(again.sum()),), generator=generator)
    rows = torch.cat([draws, draws], 1)
    if prefix:
        rows = torch.cat([torch.tensor(prefix).expand(batch, len(prefix)), rows], 1)
    return rows, len(prefix)


def _losses(logits: torch.Tensor, tokens: torch.Tensor, prefix: int, length: int) -> tuple[float, float]:
    """Next-token loss on the first half (after its first token) and on the repeated half (all but its first token)."""
    logprobs = logits.float().log_softmax(-1)

    def loss(positions):
        return float(-logprobs[:, positions].gather(-1, tokens[:, positions + 1, None].to(logits.device)).mean())

    return (loss(torch.arange(prefix, prefix + length - 1)),
            loss(torch.arange(prefix + length, prefix + 2 * length - 1)))


def induction_heads(model, *, length: int = 40, batch: int = 8, seed: int = 0, prefix=None) -> Induction:
    """Every head's induction score on random tokens repeated twice; needs ``attention_probabilities``
    (an eager load on most families). Blocks without softmax attention score NaN."""
    blocks = blocks_serving(model, "attention_probabilities")
    tokens, start = repeated_random_tokens(model, length, batch, seed, prefix)
    tokens = tokens.to(next(module_of(model).parameters()).device)
    queries = torch.arange(start + length + 1, start + 2 * length)
    keys = queries - length + 1
    scores = []
    with torch.no_grad():
        with trace(model, {"input_ids": tokens, "attention_mask": torch.ones_like(tokens)}):
            for layer in blocks:
                pattern = model.layers[layer].self_attn.attention_probabilities
                scores.append(pattern[:, :, queries, keys].float().mean((0, 2)).cpu().save())
            logits = model.logits.save()
    first, repeated = _losses(logits, tokens, start, length)
    return Induction(_by_block(model, blocks, scores), tokens.cpu(), start, length, first, repeated)


def _by_block(model, blocks: list[int], rows: list[torch.Tensor]) -> torch.Tensor:
    """[blocks ...] with NaN rows for the blocks not read."""
    table = torch.full((model.num_layers, *rows[0].shape), float("nan"))
    for layer, row in zip(blocks, rows):
        table[layer] = row
    return table


@dataclass
class InductionAblation:
    """Loss on the repeated half with the top induction heads removed, against as many random heads."""

    heads: list[tuple[int, int]]
    baseline: float
    targeted: float
    random_heads: list[list[tuple[int, int]]]
    random: list[float]
    loss_first: float

    @property
    def random_mean(self) -> float:
        return sum(self.random) / len(self.random)

    def table(self) -> str:
        names = ", ".join(f"{l}.{h}" for l, h in self.heads)
        spread = ", ".join(f"{x:.3f}" for x in self.random)
        return "\n".join([
            f"loss on the repeated half (first half: {self.loss_first:.3f})",
            f"  nothing removed:                         {self.baseline:.3f}",
            f"  top {len(self.heads)} induction heads removed ({names}): {self.targeted:.3f} "
            f"({self.targeted - self.baseline:+.3f})",
            f"  {len(self.heads)} random heads removed, {len(self.random)} draws: mean {self.random_mean:.3f} "
            f"({self.random_mean - self.baseline:+.3f}); each: {spread}",
            *[f"    draw {i}: {', '.join(f'{l}.{h}' for l, h in heads)}: {loss:.3f} ({loss - self.baseline:+.3f})"
              for i, (heads, loss) in enumerate(zip(self.random_heads, self.random))],
        ])


def induction_ablation(model, induction: Induction, *, k: int = 5, draws: int = 5, seed: int = 0) -> InductionAblation:
    """Zero the top-``k`` induction heads (in ``attention_premix``) and, ``draws`` times, ``k`` random other heads;
    the loss on the repeated half of the same sequences for each."""
    top = [(layer, head) for layer, head, _ in induction.top(k)]
    with_heads = [l for l in range(model.num_layers) if bool(induction.scores[l].isfinite().all())]
    others = [(l, h) for l in with_heads for h in range(induction.scores.shape[1]) if (l, h) not in top]
    generator = torch.Generator().manual_seed(seed)
    picks = [[others[int(i)] for i in torch.randperm(len(others), generator=generator)[:k]] for _ in range(draws)]
    tokens = induction.tokens.to(next(module_of(model).parameters()).device)

    def repeated_loss(heads) -> float:
        with torch.no_grad():
            with trace(model, {"input_ids": tokens, "attention_mask": torch.ones_like(tokens)}):
                ablate_heads(heads)(model)
                logits = model.logits.save()
        return _losses(logits, tokens, induction.prefix, induction.length)[1]

    return InductionAblation(top, repeated_loss([]), repeated_loss(top), picks, [repeated_loss(p) for p in picks],
                             induction.loss_first)


# --------------------------------------------------------------------------- the first-position sink
@dataclass
class Sink:
    """The first position's outlier: the stream's norm per block and position, and the attention on key 0."""

    tokens: list[str]
    norms: torch.Tensor               # [blocks seq]: |layer_output|
    key0_share: torch.Tensor          # [blocks num_heads]: mean attention on key 0 over queries 1..
    outlier_block: int                # the block where position 0's norm is largest
    outlier_dimension: int            # position 0's largest entry there
    outlier_value: float
    others_max: float                 # the largest |entry| at any other position of that block

    @property
    def ratio(self) -> torch.Tensor:
        """Per block, position 0's norm over the mean norm of the other positions."""
        return self.norms[:, 0] / self.norms[:, 1:].mean(-1)

    def table(self) -> str:
        lines = [f"first-position sink on {''.join(self.tokens)!r}",
                 "  block  |pos 0|  mean |pos 1..|  ratio  attention on key 0 (mean over heads, queries 1..)"]
        share = self.key0_share.mean(-1)  # NaN on blocks without softmax attention
        for layer in range(self.norms.shape[0]):
            lines.append(f"  {layer:>5}  {float(self.norms[layer, 0]):>7.1f}  {float(self.norms[layer, 1:].mean()):>13.1f}"
                         f"  {float(self.ratio[layer]):>5.1f}  {float(share[layer]):.3f}")
        lines.append(f"  at block {self.outlier_block}, position 0's dimension {self.outlier_dimension} is "
                     f"{self.outlier_value:.1f}; no entry at any other position exceeds {self.others_max:.1f} in magnitude")
        return "\n".join(lines)

    def plot(self, path=None):
        """Two panels: the stream norm per block and position, and the share of attention on key 0 per block and head."""
        figure = _figure(11, 0.8 + 0.22 * self.norms.shape[0])
        left, right = figure.subplots(1, 2)
        image = left.imshow(self.norms.log10().numpy(), aspect="auto", cmap="magma", interpolation="nearest")
        left.set_xticks(range(len(self.tokens)), [label(t) for t in self.tokens], rotation=60, ha="right", fontsize=7)
        left.set_xlabel("position")
        left.set_ylabel("block")
        left.set_title("log10 |layer_output|", fontsize=10)
        figure.colorbar(image, ax=left, shrink=0.8)
        image = right.imshow(self.key0_share.numpy(), aspect="auto", cmap="viridis", vmin=0, vmax=1,
                             interpolation="nearest")
        right.set_xlabel("head")
        right.set_ylabel("block")
        right.set_title("share of attention on key 0", fontsize=10)
        figure.colorbar(image, ax=right, shrink=0.8)
        save(figure, path)
        return figure


def first_position_sink(model, prompt: str = PROMPT) -> Sink:
    """Norm of ``layer_output`` per block and position, and every head's share of attention on key 0
    (NaN on blocks without softmax attention)."""
    blocks = set(blocks_serving(model, "attention_probabilities"))
    batch = encode(model, prompt)
    if batch["input_ids"].shape[0] != 1:
        raise ToolError("the sink is read on one prompt: pass a string")
    if batch["input_ids"].shape[1] < 2:
        raise ToolError("the sink needs a prompt of two tokens or more")
    streams, shares = [], []
    with torch.no_grad():
        with trace(model, batch):
            for layer in range(model.num_layers):
                if layer in blocks:
                    pattern = model.layers[layer].self_attn.attention_probabilities
                    shares.append(pattern[0, :, 1:, 0].float().mean(-1).cpu().save())
                streams.append(model.layers[layer].layer_output[0].float().cpu().save())
    stream = torch.stack(streams)                          # [blocks seq hidden]
    norms = stream.norm(dim=-1)
    block = int(norms[:, 0].argmax())
    dimension = int(stream[block, 0].abs().argmax())
    return Sink(token_text(model, batch["input_ids"][0]), norms, _by_block(model, sorted(blocks), shares), block, dimension,
                float(stream[block, 0, dimension]), float(stream[block, 1:].abs().max()))


# --------------------------------------------------------------------------- the logit lens on the seeds' prompt
@dataclass
class LensDemo:
    lens: LogitLens
    target: str
    first_top: int | None
    top_from: int | None
    final_probability: float

    def table(self) -> str:
        lens = self.lens
        return "\n".join([
            lens.table(k=3),
            f"{self.target!r} is first the top token at block {self.first_top} and stays on top from block "
            f"{self.top_from} to the last ({lens.layers[-1]}), where p = {self.final_probability:.3f}",
        ])


def lens_on_prompt(model, prompt: str = PROMPT, target: str = " Paris") -> LensDemo:
    """The logit lens at the last position of ``prompt``: the block where ``target`` becomes the top token."""
    lens = logit_lens(model, prompt, positions=[-1], targets=[target], top_k=5)
    return LensDemo(lens, target, lens.first_top_block(target), lens.top_from_block(target),
                    float(lens.target_probs[-1, 0, 0]))
