"""The interactive diagram of section 01: the residual stream and one block, as HTML and SVG.

Every part carries ``data-name``, the standard name of the value or module it stands for; the page's
script shows that name on hover and pins the part's card on click. The block is drawn from the page's
data: its kind (parallel or sequential), the norms its values are read at, and each value's status,
so a value the family does not serve is drawn as such.
"""

from __future__ import annotations

import html
import re

from nnterp.encyclopedia.rows import best, split_host

W = 460  # the SVG's width in user units; the page scales it to the column


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def norm_read(rows_by_name: dict, value: str) -> str | None:
    """The module a norm value is read at ('the child module input_layernorm's output' gives input_layernorm)."""
    row = rows_by_name.get(value)
    if row is None or row.status == "unavailable":
        return None
    match = re.search(r"child module (\w+)'s output", row.read_at)
    return match.group(1) if match else None


class Svg:
    def __init__(self, rows_by_name: dict, modules: dict):
        self.rows = rows_by_name
        self.modules = modules
        self.items: list[str] = []

    def _status(self, name: str, module: bool = False) -> str:
        """A value's status; a value the family has no row for, or a module it lacks, is not served."""
        if module:
            return "module" if name in self.modules else "unavailable"
        row = self.rows.get(name)
        return row.status if row is not None else "unavailable"

    def _open(self, name: str, kind: str, extra: str = "") -> str:
        status = self._status(name, kind == "module" or "title" in extra)
        return (f'<g class="part k-{kind} s-{status}{extra}" data-name="{_e(name)}" tabindex="0" role="button" '
                f'aria-label="{_e(name)}">')

    MARK = '<tspan class="mk">⚠︎ </tspan>'  # shown by the style where the value is not served outright

    def box(self, name, x, y, w, h, title, sub=None, kind="stream"):
        """A module that produces a value (or a module itself): its name, and the value's name under it."""
        ty = y + (h / 2 + 4 if sub is None else h / 2 - 3)
        out = [self._open(name, kind), f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="7"/>',
               f'<text class="t" x="{x + w / 2}" y="{ty}">{self.MARK if kind != "module" else ""}{_e(title)}</text>']
        if sub:
            out.append(f'<text class="s" x="{x + w / 2}" y="{y + h / 2 + 12}">{_e(sub)}</text>')
        self.items.append("".join(out) + "</g>")

    def pill(self, name, x, y, w, label, kind):
        h = 26
        self.items.append(
            self._open(name, kind, " pill") + f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="13"/>'
            f'<text class="p" x="{x + w / 2}" y="{y + 17}">{self.MARK}{_e(label)}</text></g>')

    def dot(self, name, cx, cy, label, kind="stream"):
        self.items.append(
            self._open(name, kind, " dot") + f'<circle cx="{cx}" cy="{cy}" r="7"/>'
            f'<text class="d" x="{cx + 14}" y="{cy + 4}">{self.MARK}{_e(label)}</text></g>')

    def frame(self, name, x, y, w, h, title, cls, kind, absent=False):
        """A sublayer's outline; ``absent`` when the family serves none of its values (no MLP, say)."""
        extra = " absent" if absent else ""
        self.items.append(f'<rect class="frame f-{kind}{extra}" x="{x}" y="{y}" width="{w}" height="{h}" rx="12"/>')
        host = {"self_attn": "model.layers[i].self_attn", "mlp": "model.layers[i].mlp"}.get(name, "")
        self.items.append(
            self._open(name, kind, " title").replace("<g ", f'<g data-host="{host}" ', 1) + f'<rect x="{x + 8}" y="{y + 6}" width="{w - 16}" height="22" rx="5"/>'
            f'<text class="ft" x="{x + 16}" y="{y + 21}">{_e(title)} <tspan class="fc">{_e(cls)}</tspan></text></g>')

    def arrow(self, *points, cls="flow"):
        path = " ".join(f"{'M' if i == 0 else 'L'}{x},{y}" for i, (x, y) in enumerate(points))
        self.items.append(f'<path class="{cls}" d="{path}" marker-end="url(#arrow)"/>')

    def line(self, *points, cls="flow"):
        path = " ".join(f"{'M' if i == 0 else 'L'}{x},{y}" for i, (x, y) in enumerate(points))
        self.items.append(f'<path class="{cls}" d="{path}"/>')

    def add(self, cx, cy, name):
        """The add of a contribution into the stream (drawn dashed where the family does not serve it)."""
        self.items.append(f'<g class="sum s-{self._status(name)}" data-sum="{_e(name)}"><circle cx="{cx}" cy="{cy}" r="8"/>'
                          f'<path d="M{cx - 4},{cy} L{cx + 4},{cy} M{cx},{cy - 4} L{cx},{cy + 4}"/></g>')

    def render(self, height: int, label: str) -> str:
        defs = ('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
                'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>')
        return (f'<svg class="block-svg" viewBox="0 0 {W} {height}" role="img" aria-label="{_e(label)}">'
                + defs + "".join(self.items) + "</svg>")


def block_svg(page) -> str:
    """One block of the family: the stream down the left, the attention and the MLP beside it."""
    rows = best(page.rows)
    classes = {split_host(row.host)[0]: row.host_class for row in rows.values()}
    parallel = "parallel" in page.block_kind
    svg = Svg(rows, page.modules)
    bar = 30
    attn_norm = norm_read(rows, "attention_norm_output") or "input_layernorm"
    mlp_norm = norm_read(rows, "mlp_norm_output")
    shared_norm = mlp_norm == attn_norm

    def native(std, room=40):
        """'o_proj/dense' as the printout spells an alias, or the standard name alone where that is too long."""
        info = page.modules.get(std)
        both = f"{std}/{info['native']}" if info and info["native"] != std else std
        return both if len(both) <= room else std

    # the stream, with the sums drawn over it
    svg.line((bar, 30), (bar, 560), cls="stream-line")
    svg.dot("layer_input", bar, 30, "x · layers[i].input")

    # the attention: its norm, then the interior from queries to what it adds
    svg.arrow((bar, 71), (58, 71))
    svg.box("attention_norm_output", 60, 50, 210, 42, attn_norm, "attention_norm_output")
    svg.arrow((123, 92), (123, 110))
    def absent(host):
        return all(row.status == "unavailable" for row in rows.values() if split_host(row.host)[0] == host)

    svg.frame("self_attn", 52, 112, 396, 196, native("self_attn"), classes.get("model.layers[i].self_attn", ""),
              "attn", absent("model.layers[i].self_attn"))
    svg.pill("attention_queries", 64, 144, 118, "queries", "attn")
    svg.pill("attention_keys", 192, 144, 118, "keys", "attn")
    svg.pill("attention_values", 320, 144, 116, "values", "attn")
    svg.pill("attention_scores", 64, 196, 118, "scores", "attn")
    svg.pill("attention_probabilities", 192, 196, 118, "probabilities", "attn")
    svg.pill("attention_head_outputs", 320, 196, 116, "head outputs", "attn")
    svg.pill("attention_output", 64, 262, 118, "output", "attn")
    svg.box("o_proj", 192, 262, 118, 26, native("o_proj", 14), kind="module")
    svg.pill("attention_premix", 320, 262, 116, "premix", "attn")
    svg.arrow((123, 170), (123, 194))
    svg.arrow((236, 170), (170, 194))
    svg.arrow((378, 170), (378, 194))
    svg.arrow((182, 209), (190, 209))
    svg.arrow((310, 209), (318, 209))
    svg.arrow((378, 222), (378, 260))
    svg.arrow((320, 275), (312, 275))
    svg.arrow((192, 275), (184, 275))

    # between the sublayers: layer_mid on a sequential block, nothing on a parallel one
    if parallel:
        svg.line((64, 275), (46, 275), (46, 502))
    else:
        svg.arrow((64, 275), (40, 275))
        svg.add(bar, 275, "attention_output")
    svg.dot("layer_mid", bar, 322, "h · layer_mid" if not parallel else "layer_mid")

    # the MLP's norm: fed by the stream, or by the attention's norm when one norm feeds both
    if parallel and shared_norm:
        svg.line((270, 71), (452, 71), (452, 332), (165, 332))
        svg.arrow((165, 332), (165, 342))
        svg.box("mlp_norm_output", 60, 344, 210, 42, f"{attn_norm} (the same)", "mlp_norm_output")
    else:
        svg.arrow((bar, 365), (58, 365))
        svg.box("mlp_norm_output", 60, 344, 210, 42, mlp_norm or "post_attention_layernorm", "mlp_norm_output")
    svg.arrow((123, 386), (123, 402))

    svg.frame("mlp", 52, 404, 396, 130, native("mlp"), classes.get("model.layers[i].mlp", "(none in this block)"),
              "mlp", absent("model.layers[i].mlp"))
    svg.pill("mlp_input", 64, 442, 118, "input", "mlp")
    svg.box("mlp_activation", 192, 436, 118, 40, native("act_fn", 14), "mlp_activation", kind="mlp")
    svg.pill("mlp_neurons", 320, 442, 116, "neurons", "mlp")
    svg.pill("mlp_output", 64, 491, 118, "output", "mlp")
    svg.box("down_proj", 192, 491, 118, 26, native("down_proj", 14), kind="module")
    svg.arrow((182, 455), (190, 455))
    svg.arrow((310, 455), (318, 455))
    svg.arrow((378, 468), (378, 504), (312, 504))
    svg.arrow((192, 504), (184, 504))
    svg.arrow((64, 504), (40, 504))
    svg.add(bar, 504, "mlp_output")

    svg.dot("layer_output", bar, 556, "out · layer_output")
    kind = "parallel" if parallel else "sequential"
    return svg.render(580, f"one {kind} block of {page.name}")


def stream_html(page) -> str:
    """The residual stream through the whole model: embed_tokens, the blocks, norm, lm_head, logits."""
    parts = [
        ("token_embeddings", "embed_tokens", "token_embeddings", "model"),
        ("layers", "layers", f"× {page.num_layers}", "layers"),
        ("final_norm_output", "norm", "final_norm_output", "model"),
        ("lm_head_output", "lm_head", "lm_head_output", "model"),
        ("logits", "logits", "the output", "model"),
    ]
    rows = best(page.rows)
    items = []
    for index, (name, title, sub, kind) in enumerate(parts):
        if index:
            items.append('<li class="to" aria-hidden="true">→</li>')
        status = rows[name].status if name in rows else "module"
        items.append(f'<li><button type="button" class="part k-{kind} s-{status}" data-name="{_e(name)}">'
                     f'<b>{_e(title)}</b><span>{_e(sub)}</span></button></li>')
    return '<ol class="stream">' + "".join(items) + "</ol>"
