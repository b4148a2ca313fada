"""Pictures: heatmaps for lenses, patching and attribution, and attention patterns per head with the
tokens on the axes, as PNG (matplotlib) and as one self-contained interactive HTML page.

Every function returns a matplotlib ``Figure`` (built without pyplot, so no global state and no
window) and writes it when given a path.
"""

from __future__ import annotations

import html as html_escape
import json
import warnings
from pathlib import Path

import torch

from nnterp.tools._common import ToolError, blocks_serving, encode, read_blocks, token_text


def label(token: str, width: int = 12) -> str:
    """A token as it can be printed on an axis: whitespace and control characters made visible."""
    text = token.replace("\n", "\\n").replace("\t", "\\t").replace(" ", "␣")
    text = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(max(width, 3.0), max(height, 2.5)), layout="constrained")


def save(figure, path) -> None:
    """Write ``figure`` to ``path`` (the extension picks the format), creating the folder."""
    if path is None:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glyphs a font lacks are drawn as boxes; not worth a warning
        figure.savefig(path, dpi=110)


def heatmap(values, *, rows=None, columns=None, title: str = "", xlabel: str = "", ylabel: str = "",
            path=None, cmap: str | None = None, centre: float | None = None, annotations=None,
            colorbar_label: str = ""):
    """A heatmap of a 2-D tensor; ``centre`` picks a diverging map symmetric about it; ``annotations``
    (same shape, strings) are written in the cells."""
    values = torch.as_tensor(values).detach().float().cpu()
    if values.dim() != 2:
        raise ToolError(f"a heatmap needs a 2-D tensor; got shape {list(values.shape)}")
    height, width = values.shape
    figure = _figure(1.2 + 0.55 * width, 1.0 + 0.32 * height)
    axes = figure.add_subplot()
    options = {"cmap": cmap or ("RdBu_r" if centre is not None else "viridis"), "aspect": "auto",
               "interpolation": "nearest"}
    if centre is not None:
        span = float((values - centre).abs().max()) or 1.0
        options.update(vmin=centre - span, vmax=centre + span)
    image = axes.imshow(values.numpy(), **options)
    bar = figure.colorbar(image, ax=axes, shrink=0.8)
    if colorbar_label:
        bar.set_label(colorbar_label)
    if columns is not None:
        axes.set_xticks(range(width), [label(str(c)) for c in columns], rotation=60, ha="right", fontsize=8)
    if rows is not None:
        step = max(1, height // 40)
        axes.set_yticks(range(0, height, step), [str(r) for r in list(rows)[::step]], fontsize=8)
    if annotations is not None:
        scale = float(values.abs().max()) or 1.0
        for i in range(height):
            for j in range(width):
                dark = abs(float(values[i, j])) > 0.6 * scale if centre is not None else float(values[i, j]) < 0.6 * scale
                axes.text(j, i, label(str(annotations[i][j]), 8), ha="center", va="center", fontsize=6,
                          color="white" if dark else "black")
    axes.set_title(title, fontsize=10)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    save(figure, path)
    return figure


# --------------------------------------------------------------------------- results
def plot_lens(lens, path=None, *, target=None):
    """The logit lens: blocks × positions, coloured by the top token's probability (or ``target``'s), the top token written in."""
    if target is None:
        values = lens.top_probs[..., 0]
        what = "probability of the top token"
    else:
        values = lens.target_probs[..., lens._target(target)]
        what = f"probability of {target!r}"
    annotations = [[lens.top_tokens[b][p][0] for p in range(len(lens.positions))] for b in range(len(lens.layers))]
    return heatmap(values, rows=lens.layers, columns=[lens.tokens[p] for p in lens.positions],
                   title=f"logit lens ({what}; cells: top token)", xlabel="position", ylabel="block",
                   annotations=annotations, path=path, colorbar_label=what)


def plot_patching(result, path=None, *, normalized: bool = True):
    """A patching sweep: blocks × positions (or heads), the normalized effect centred on 0."""
    values = result.normalized if normalized else result.scores
    unit = "position" if result.kind == "positions" else "head"
    columns = result.column_labels if result.kind == "positions" else [str(c) for c in result.columns]
    what = "normalized effect (0 corrupt, 1 clean)" if normalized else result.metric_name
    return heatmap(values, rows=result.layers, columns=columns, centre=0.0,
                   title=f"{result.method}: {result.value}, {result.metric_name}", xlabel=unit, ylabel="block",
                   path=path, colorbar_label=what)


def plot_attribution(result, path=None):
    """Direct logit attribution: every head (blocks × heads) beside each block's whole attention and MLP,
    each panel on its own symmetric colour scale (one MLP can dwarf every head)."""
    heads = result.heads
    wholes = torch.stack([result.attentions, result.mlps], 1)                       # [blocks 2]

    def options(values):
        span = float(values.nan_to_num().abs().max()) or 1.0
        return {"cmap": "RdBu_r", "vmin": -span, "vmax": span, "aspect": "auto", "interpolation": "nearest"}

    figure = _figure(4.2 + 0.5 * heads.shape[1], 1.2 + 0.3 * heads.shape[0])
    if heads.shape[1]:
        left, right = figure.subplots(1, 2, width_ratios=[max(heads.shape[1], 2), 2])
        image = left.imshow(heads.numpy(), **options(heads))
        figure.colorbar(image, ax=left, shrink=0.8, label="logit")
        left.set_xlabel("head")
        left.set_ylabel("block")
        left.set_title(f"heads → {result.target}", fontsize=9)
    else:
        right = figure.subplots()
        right.set_ylabel("block")
    image = right.imshow(wholes.numpy(), **options(wholes))
    figure.colorbar(image, ax=right, shrink=0.8, label="logit")
    right.set_xticks([0, 1], ["attention", "MLP"], fontsize=8)
    right.set_title("whole sublayers", fontsize=9)
    save(figure, path)
    return figure


# --------------------------------------------------------------------------- attention
def attention_patterns(model, prompt: str, layers=None) -> tuple[dict[int, torch.Tensor], list[str]]:
    """Every head's pattern of ``prompt`` at ``layers``: {block: [num_heads query key]}, and the tokens."""
    batch = encode(model, prompt)
    layers = blocks_serving(model, "attention_probabilities", layers)
    reads = read_blocks(model, batch, "attention_probabilities", layers)
    return {layer: r[0].float().cpu() for layer, r in reads.items()}, token_text(model, batch["input_ids"][0])


def plot_attention(model, prompt: str, layer: int, *, heads=None, path=None, html=None):
    """The attention pattern of every head (or ``heads``) of block ``layer``, tokens on both axes.

    ``path`` writes the PNG; ``html`` also writes the interactive page for this block.
    """
    block = layer % model.num_layers
    patterns, tokens = attention_patterns(model, prompt, [block])
    figure = plot_attention_from(patterns[block], tokens, block, heads=heads, path=path)
    if html is not None:
        attention_html(patterns, tokens, html, title=f"attention patterns: {prompt!r}")
    return figure


_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>%(title)s</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.2em;color:#222}
select{font-size:14px;margin-right:1em}
#grid{border-collapse:collapse;margin-top:1em}
#grid td{width:18px;height:18px;padding:0;border:1px solid #f4f4f4}
#grid th{font:11px monospace;font-weight:normal;white-space:pre;padding:0 4px}
#grid thead th{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;height:6em}
#info{font:13px monospace;margin-top:.6em;min-height:1.4em}
</style></head><body>
<h3>%(title)s</h3>
<label>block <select id="layer"></select></label>
<label>head <select id="head"></select></label>
<div id="info">hover a cell: query token → key token, weight</div>
<table id="grid"></table>
<script>
const DATA = %(data)s;
const tokens = DATA.tokens, layers = Object.keys(DATA.patterns);
const layerSel = document.getElementById("layer"), headSel = document.getElementById("head");
const grid = document.getElementById("grid"), info = document.getElementById("info");
layers.forEach(l => layerSel.add(new Option(l, l)));
function heads(){ headSel.innerHTML = "";
  DATA.patterns[layerSel.value].forEach((_, h) => headSel.add(new Option(h, h))); }
function show(){
  const p = DATA.patterns[layerSel.value][headSel.value];
  let rows = "<thead><tr><th></th>" + tokens.map(t => "<th>" + esc(t) + "</th>").join("") + "</tr></thead><tbody>";
  p.forEach((row, q) => {
    rows += "<tr><th>" + esc(tokens[q]) + "</th>";
    row.forEach((w, k) => { const a = k > q ? 0 : w;
      rows += `<td style="background:rgba(33,102,172,${a})" data-q="${q}" data-k="${k}" data-w="${w}"></td>`; });
    rows += "</tr>"; });
  grid.innerHTML = rows + "</tbody>";
}
function esc(t){ return t.replace(/&/g,"&amp;").replace(/</g,"&lt;"); }
grid.addEventListener("mouseover", e => { const d = e.target.dataset; if (d.w === undefined) return;
  info.textContent = `block ${layerSel.value} head ${headSel.value}: ${JSON.stringify(tokens[d.q])} (${d.q}) → ` +
    `${JSON.stringify(tokens[d.k])} (${d.k}): ${Number(d.w).toFixed(3)}`; });
layerSel.onchange = () => { heads(); show(); }; headSel.onchange = show;
heads(); show();
</script></body></html>
"""


def attention_html(patterns: dict[int, torch.Tensor], tokens: list[str], path, *, title: str = "attention patterns") -> Path:
    """One self-contained page (no network): pick a block and a head, hover a cell for its tokens and weight."""
    data = {"tokens": [label(t, 40) for t in tokens],
            "patterns": {str(layer): [[[round(float(w), 4) for w in row] for row in head] for head in pattern]
                         for layer, pattern in patterns.items()}}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_PAGE % {"title": html_escape.escape(title), "data": json.dumps(data)}, encoding="utf-8")
    return path


def save_attention(model, prompt: str, folder, *, layers=None, heads=None) -> list[Path]:
    """One call: a PNG of every head of each block in ``layers`` and one interactive page of them all."""
    folder = Path(folder)
    patterns, tokens = attention_patterns(model, prompt, layers)
    written = []
    for layer in patterns:
        plot_attention_from(patterns[layer], tokens, layer, heads=heads, path=folder / f"attention_block{layer:02d}.png")
        written.append(folder / f"attention_block{layer:02d}.png")
    written.append(attention_html(patterns, tokens, folder / "attention.html", title=f"attention patterns: {prompt!r}"))
    return written


def plot_attention_from(pattern: torch.Tensor, tokens: list[str], layer: int, *, heads=None, path=None):
    """``plot_attention`` on a pattern already read ([num_heads query key])."""
    heads = list(range(pattern.shape[0])) if heads is None else [int(h) for h in heads]
    columns = min(len(heads), 4)
    lines = -(-len(heads) // columns)
    size = 0.9 + 0.22 * len(tokens)
    figure = _figure(columns * size + 1.0, lines * size + 0.6)
    grid = figure.subplots(lines, columns, squeeze=False)
    names = [label(t, 10) for t in tokens]
    for slot, axes in enumerate(grid.flat):
        if slot >= len(heads):
            axes.set_axis_off()
            continue
        head = heads[slot]
        axes.imshow(pattern[head].numpy(), cmap="Blues", vmin=0, vmax=1, interpolation="nearest")
        axes.set_title(f"block {layer} head {head}", fontsize=9)
        if len(tokens) <= 48:
            axes.set_xticks(range(len(tokens)), names, rotation=90, fontsize=6)
            axes.set_yticks(range(len(tokens)), names, fontsize=6)
        axes.set_xlabel("key", fontsize=7)
        axes.set_ylabel("query", fontsize=7)
    save(figure, path)
    return figure
