"""HTML of the family pages and of the index, from the gathered ``Page`` objects."""

from __future__ import annotations

import html
import json
import re

from nnterp.declare.vocabulary import DIMENSIONS
from nnterp.encyclopedia import assets, markdown
from nnterp.encyclopedia.configs import representative
from nnterp.encyclopedia.diagram import block_svg, stream_html
from nnterp.encyclopedia.notes.derived.checkpoints import COLUMNS, checkpoint_table
from nnterp.encyclopedia.notes.derived.tokenizer import tokenizer_table
from nnterp.encyclopedia.pages import MIN_FAMILY_NOTES
from nnterp.encyclopedia.rows import best, indices, split_host
from nnterp.encyclopedia.verdicts import sentence

#: Modules the diagram draws, and where they sit.
MODULE_PATHS = {
    "layers": "model.layers", "self_attn": "model.layers[i].self_attn", "mlp": "model.layers[i].mlp",
    "o_proj": "model.layers[i].self_attn.o_proj", "down_proj": "model.layers[i].mlp.down_proj",
}

HOW = {"obs": "observed on a tiny model", "src": "read in the modeling source", "cfg": "a config default",
       "inf": "inferred, not verified"}


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _versions(versions: dict) -> str:
    return " · ".join(f"{name} {version}" for name, version in versions.items())


def _json(data) -> str:
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def document(title: str, crumb: str, body: str, script: str, data: str = "", nav: str = "") -> str:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{assets.CSS}</style></head><body>"
        '<header class="topbar"><a class="brand" href="index.html">nnterp <span>· encyclopedia</span></a>'
        f'<span class="crumb">{crumb}</span>{nav}</header>'
        f"{body}<div id=\"tip\" role=\"tooltip\" hidden></div>{data}<script>{script}</script></body></html>\n"
    )


# --------------------------------------------------------------------------- code
_PY = re.compile(
    r"(?P<c>#[^\n]*)|(?P<s>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
    r"|(?P<k>\b(?:with|as|for|in|assert|import|from|def|return|if|else|elif|not|is|and|or|None|True|False|try"
    r"|except|lambda)\b)|(?P<b>\b(?:int|float|len|range|isinstance|all|any|getattr|hasattr|tuple|list)\b(?=\())"
    r"|(?P<n>(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?\b)"
)


def highlight(source: str) -> str:
    out, last = [], 0
    for match in _PY.finditer(source):
        out.append(_e(source[last:match.start()]))
        out.append(f'<span class="tok-{match.lastgroup}">{_e(match.group())}</span>')
        last = match.end()
    out.append(_e(source[last:]))
    return "".join(out)


def _how(text_html: str) -> str:
    """The catalogue's tags ([obs], [src], ...) as small labels that say how a fact is known."""
    def label(match):
        words = match.group(1)
        first = re.split(r"[\s/:]", words)[0]
        meaning = "; ".join(HOW[w] for w in re.findall(r"obs|src|cfg|inf", words) if w in HOW)
        return f'<span class="how" title="{_e(meaning)}">{words}</span>' if first in HOW else match.group(0)
    return re.sub(r"\[((?:obs|src|cfg|inf)[^\]]*)\]", label, text_html)


def code_block(code: markdown.Code) -> str:
    if code.kind == "formula":
        return (f'<div class="formula"><pre><code>{highlight(code.source.rstrip())}</code></pre>'
                '<div class="result">the block\'s arithmetic, in notation</div></div>')
    result = code.result
    if result is None or result.skipped:
        state, head = "skipped", "– not run"
        detail = f'<span class="err">{_e(result.error)}</span>' if result is not None else ""
    elif result.passed:
        state, head, detail = "passed", "✓ passed", ""
    else:
        state, head = "failed", "✗ failed"
        at = f"line {result.line}: " if result.line else ""
        detail = f'<span class="err">{_e(at + result.error)}</span>'
    where = f"<span>ran on {_e(result.where)}</span><span>{result.seconds * 1000:.0f} ms</span>" \
        if result is not None and not result.skipped else ""
    return (f'<div class="snippet {state}"><pre><code>{highlight(code.source.rstrip())}</code></pre>'
            f'<div class="result"><b>{head}</b>{where}{detail}</div></div>')


# --------------------------------------------------------------------------- family page
def _row_data(row) -> dict:
    host, blocks = split_host(row.host)
    return {"path": f"{host}.{row.name}", "blocks": blocks, "status": row.status,
            "layout": row.layout if row.status != "unavailable" else "", "what": row.description,
            "read_at": row.read_at, "note": row.note}


def _kinds_of_block(page) -> list[dict]:
    """Per kind of block of a hybrid, its blocks, values and classes, so the diagram follows i."""
    kinds: dict[str, dict] = {}
    for row in page.rows:
        host, blocks = split_host(row.host)
        if blocks:
            kind = kinds.setdefault(blocks, {"indices": indices(blocks), "rows": {}, "classes": {}})
            kind["rows"][row.name] = _row_data(row)
            kind["classes"][host] = row.host_class
    return list(kinds.values()) if len(kinds) > 1 else []


def _part_data(page) -> dict:
    parts = {row.name: _row_data(row) for row in best(page.rows).values()}
    for name, path in MODULE_PATHS.items():
        info = page.modules.get(name, {})
        native = info.get("native")
        parts[name] = {"path": path, "status": "module" if info else "unavailable",
                       "native": native if native and native != name else "",
                       "what": info.get("what", "a module of the block"), "read_at": "", "note": "",
                       "layout": ""}
    return parts


def _support(page) -> str:
    out = []
    for host, rows in page.rows.by_host().items():
        body = []
        for row in rows:
            mark = ""
            if row.status != "served":
                label = "condition" if row.status == "conditioned" else "reason"
                mark = (f'<span class="warn" tabindex="0" data-note="{_e(label + ": " + row.note)}" '
                        f'aria-label="{_e(label + ": " + row.note)}">⚠︎</span>')
            body.append(
                f'<tr class="s-{row.status}" data-value="{_e(row.name)}"><td class="name">{mark}<code>{_e(row.name)}'
                f'</code></td><td class="layout">{_e(row.layout)}</td><td>{_e(row.description)}</td>'
                f'<td class="readat">{_e(row.read_at)}</td></tr>')
        out.append(
            f'<div class="host"><table class="support"><colgroup><col class="c-name"><col class="c-layout">'
            f'<col class="c-what"><col class="c-readat"></colgroup><thead><tr><th class="hostname"><code>{_e(host)}</code>'
            f'<span class="cls">{_e(rows[0].host_class)}</span></th><th>layout</th><th>what it is</th>'
            f'<th>read at</th></tr></thead><tbody>{"".join(body)}</tbody></table></div>')
    return "".join(out)


_VALUE_LINE = re.compile(r"^(\s*)\((\w+)\)( -&gt; )(\w+(?: \[[^\]]*\])?)(:.*)$")
_PLAIN_VALUE = re.compile(r"^(\s*)\((\w+)\)(: )(.*)$")
_MODULE_LINE = re.compile(r"^(\s*)\(([\w\-]+)((?:/[\w\-]+)?)\): (\w+)(.*)$")


def printout_html(printout: str) -> str:
    lines = []
    for raw in printout.splitlines():
        line = _e(raw)
        if match := _VALUE_LINE.match(line):
            i, name, arrow, layout, rest = match.groups()
            line = f'{i}(<span class="v">{name}</span>){arrow}<span class="lay">{layout}</span>{rest}'
        elif (match := _PLAIN_VALUE.match(line)) and match.group(4).startswith("Unavailable"):
            i, name, colon, rest = match.groups()
            line = f'{i}(<span class="un">{name}</span>){colon}<span class="un">{rest}</span>'
        elif match := _PLAIN_VALUE.match(line):
            i, name, colon, rest = match.groups()
            line = f'{i}(<span class="v">{name}</span>){colon}{rest}'
        elif match := _MODULE_LINE.match(line):
            i, first, native, cls, rest = match.groups()
            first_html = f'<span class="al">{first}</span>' if native else first
            line = f'{i}({first_html}{native}): <span class="cl">{cls}</span>{rest}'
        lines.append(line)
    return "\n".join(lines)


def _config(page) -> str:
    accessors = "".join(f"<tr><th>model.{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in page.accessors)
    raw = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in page.config)
    return (f'<div class="config"><table><caption>standard accessors</caption>{accessors}</table>'
            f'<table><caption>raw keys</caption>{raw}</table></div>')


def _checkpoints(page) -> str:
    """The checkpoints table: each cell read from the checkpoint's recorded config.json, the keys it was read from in
    its data-keys (path and value), a cell the facts give no key for said so."""
    head = "".join(f"<th>{_e(column)}</th>" for column in COLUMNS)
    rows = []
    for checkpoint, cells in checkpoint_table(page.family):
        source = checkpoint.source or "no config.json copy recorded"
        tds = "".join(
            f'<td data-keys="{_e(_json([[list(path), value] for path, value in cell.keys]))}"'
            + ("" if cell.given else ' class="absent"') + f">{_e(cell.text)}</td>" for cell in cells)
        rows.append(f'<tr data-repo="{_e(checkpoint.repo)}"><th title="{_e(source)}"><b>{_e(checkpoint.label)}</b>'
                    f"<code>{_e(checkpoint.repo)}</code></th>{tds}</tr>")
    if not rows:
        return '<p class="lede">The family module names no checkpoint.</p>'
    return ('<p class="lede">Each cell is read from the checkpoint\'s recorded config.json (hover its name for the copy '
            'read) through the family\'s accessors; "not in the file" where the file has no key for it, "not '
            'recorded" where only some of its keys are recorded here: never the config class\'s default.</p>'
            f'<table class="checkpoint-table"><thead><tr><th>checkpoint</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _tokenizers(page) -> str:
    """The tokenizer table: each checkpoint's recorded tokenizer facts, each from the file its source names."""
    columns, rows = tokenizer_table(page.family)
    head = "".join(f"<th>{_e(column)}</th>" for column in columns)
    body = []
    for checkpoint, cells, source in rows:
        tds = "".join(("<td>" if given else '<td class="absent">') + f"{_e(text)}</td>" for text, given in cells)
        body.append(f'<tr data-repo="{_e(checkpoint.repo)}"><th title="{_e(source)}"><b>{_e(checkpoint.label)}</b>'
                    f"<code>{_e(checkpoint.repo)}</code></th>{tds}</tr>")
    if not body:
        return '<p class="lede">The family module names no checkpoint.</p>'
    return ('<p class="lede">Each cell is read from the checkpoint\'s released tokenizer file (hover its name for the '
            'copy read); "not in the file" where the file does not say, "no file recorded" where none was found.</p>'
            f'<table class="checkpoint-table tokenizer-table"><thead><tr><th>checkpoint</th>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def _notes(page, versions: dict) -> str:
    counts = page.snippet_counts()
    total = sum(counts.values())
    ok = counts["failed"] == 0 and counts["skipped"] == 0
    tally = f"{counts['passed']} of {total} snippets passed" if total else "no snippets"
    extra = []
    if counts["failed"]:
        extra.append(f"{counts['failed']} failed")
    if counts["skipped"]:
        extra.append(f"{counts['skipped']} not run")
    where = f"on {page.runs_on}" + (f" and {page.checkpoint}" if page.checkpoint else "")
    version_text = _versions(versions)
    runs = (f'<div class="runs"><span class="tally {"ok" if ok else "bad"}">{"✓" if ok else "✗"} {_e(tally)}'
            f'{_e(", " + ", ".join(extra)) if extra else ""}</span><span>when this page was built, {_e(where)}</span>'
            f'<span class="versions">{_e(version_text)}</span></div>')
    out = [runs]
    for note in page.notes:
        blocks = []
        for block in note.blocks:
            if isinstance(block, markdown.Paragraph):
                blocks.append(f"<p>{_how(markdown.inline(block.text, page.facts))}</p>")
            elif isinstance(block, markdown.Items):
                items = "".join(f"<li>{_how(markdown.inline(item, page.facts))}</li>" for item in block.items)
                blocks.append(f"<ul>{items}</ul>")
            else:
                blocks.append(code_block(block))
        out.append(f'<article class="note" data-kind="{note.kind}"><h3>{markdown.inline(note.title)}</h3>'
                   f'{"".join(blocks)}</article>')
    return "".join(out)


def _docstring(page) -> str:
    paragraphs = [p for p in re.split(r"\n\s*\n", page.family.doc) if p.strip()]
    body = "".join(f"<p>{_e(' '.join(line.strip() for line in p.splitlines()))}</p>" for p in paragraphs)
    return f'<div class="docstring">{body or "<p>The family module has no docstring.</p>"}</div>'


def _differences_html(page) -> str:
    """What the architecture shares with Llama, in one line, and what it does otherwise, as the derived notes
    measured it (nothing where the page's notes are all its own)."""
    if page.differences is None:
        return ""
    alike = (f'<p class="differences">As Llama in: {_e(", ".join(page.alike))}.</p>' if page.alike else "")
    if not page.differences:
        return alike
    items = "".join(f"<li>{markdown.inline(phrase)}</li>" for _, phrase in page.differences)
    return f'{alike}<div class="differences"><p>As Llama, except:</p><ul>{items}</ul></div>'


def family_page(page, versions: dict, built: str) -> str:
    family = page.family
    counts = page.rows.counts()
    shown = representative(family)
    checkpoints = "".join(
        (f'<li class="shown" title="{_e("the printout and config below are this checkpoint’s")}">' if c is shown
         else "<li>") + f"<b>{_e(c.label)}</b><code>{_e(c.repo)}</code></li>" for c in family.checkpoints)
    tags = "".join(f"<li>{_e(t)}</li>" for t in page.tags)
    snippet_counts = page.snippet_counts()
    total = sum(snippet_counts.values())
    values = f"{counts['served']} served · {counts['conditioned']} ⚠︎ conditioned · {counts['unavailable']} unavailable"
    marked = any(row.status != "served" for row in page.rows)
    legend = ('<p class="warn-legend">⚠︎ marks a value this checkpoint has only under some load: hover it for the '
              'condition.</p>' if any(r.status == "conditioned" for r in page.rows) else
              '<p class="warn-legend">⚠︎ marks a value this family does not serve: hover it for the reason.</p>'
              if marked else "")
    problems = "".join(f'<p class="problems">{_e(p)}</p>' for p in page.problems)
    body = f"""<main>
<section class="hero" id="top">
<p class="eyebrow">family <code>{_e(family.name)}</code></p>
<h1>{_e(page.title)}</h1>
<ul class="checkpoints">{checkpoints}</ul>
<p class="summary">{_e(family.summary)}</p>
{_differences_html(page)}
<ul class="tags">{tags}</ul>
<dl class="facts"><div><dt>block</dt><dd>{_e(page.block_kind)}</dd></div><div><dt>values</dt><dd>{_e(values)}</dd></div>
<div><dt>notes</dt><dd>{_kinds(page)} · {snippet_counts['passed']} of {total} snippets passed</dd></div>
<div><dt>model types</dt><dd>{_e(", ".join(family.model_types))}</dd></div>{_real_configs(family)}</dl>
{problems}
</section>
<section id="block">
<div class="section-head"><h2>The block</h2><p class="kicker">01 · the residual stream</p></div>
<p class="lede">One block of the stack. Hover any part for its nnterp name; click to pin the card.</p>
{stream_html(page)}
<div class="block-grid">
<figure class="diagram">
<div class="layer-index"><label for="layer">i = <output id="layer-shown">0</output></label>
<input id="layer" type="range" min="0" max="{max(page.num_layers - 1, 0)}" value="0" aria-label="block index i"></div>
{block_svg(page)}
</figure>
<aside class="card" id="card" aria-live="polite"></aside>
</div>
<p class="identity"><span>identity</span>{f"<code>{_e(page.identity)}</code>" if "==" in page.identity else _e(page.identity)}</p>
</section>
<section id="api">
<div class="section-head"><h2>The API</h2><p class="kicker">02 · support()</p></div>
<h3>Values, by host</h3>
{legend}
{_support(page)}
<h3>Printout</h3>
<p class="lede">{_e(page.printout_intro)}</p>
<pre class="printout"><code>{printout_html(page.printout)}</code></pre>
<h3>Config</h3>
{_config(page)}
<h3>Checkpoints</h3>
{_checkpoints(page)}
<h3>Tokenizer</h3>
{_tokenizers(page)}
</section>
<section id="notes">
<div class="section-head"><h2>The Notes</h2><p class="kicker">03 · what to know before you run</p></div>
{_notes(page, versions)}
</section>
<section id="module">
<div class="section-head"><h2>From the family module</h2><p class="kicker">04 · {_e(page.module_file)}</p></div>
{_docstring(page)}
</section>
</main>
<footer>Generated by <code>nnterp encyclopedia build</code> on {_e(built)} from the family module, <code>support()</code>,
the printout and the config; {_e(_versions(versions))}. <a href="index.html">All families</a></footer>"""
    data = (f'<script type="application/json" id="parts">{_json(_part_data(page))}</script>'
            f'<script type="application/json" id="dims">{_json(DIMENSIONS)}</script>'
            f'<script type="application/json" id="kinds">{_json(_kinds_of_block(page))}</script>')
    nav = ('<nav><a href="#block">block</a><a href="#api">API</a><a href="#notes">notes</a>'
           '<a href="#module">module</a></nav>')
    crumb = f"{_e(family.name)} · {_e(family.module.__name__ if family.module else 'nnterp.families.' + family.name)}"
    return document(f"{page.title} · nnterp encyclopedia", crumb, body, assets.PAGE_JS, data, nav)


def _real_configs(family) -> str:
    """What the committed real-config run (python -m nnterp.encyclopedia.realconfigs) found for each checkpoint."""
    found = [(c, sentence(family.name, c.repo)) for c in family.checkpoints]
    items = "".join(f"<li>{_e(c.label)}: {_e(said)}</li>" for c, said in found if said)
    return f'<div class="real-configs"><dt>real configs</dt><dd><ul>{items}</ul></dd></div>' if items else ""


# --------------------------------------------------------------------------- index
def _kinds(page) -> str:
    kinds = page.kinds()
    said = [f"{kinds[kind]} {words}" for kind, words in (("hand", "hand-researched"), ("feature", "feature"),
                                                         ("generic", "generic")) if kinds.get(kind)]
    return _e(", ".join(said) or "none")


def _depth(page, good: bool) -> str:
    """A page's depth in the index: its hand-researched and feature notes, its snippets (passed of all), its checkpoints checked from
    their real configs; a page below the notes it must carry is marked."""
    depth = page.depth()
    thin = depth["notes"] < MIN_FAMILY_NOTES
    return (f'<div class="depth"><span class="notes{" seed" if page.at_seed_depth() else ""}" title="notes researched '
            f'by hand from the modeling code and the released files, each proved by a snippet; '
            f'{MIN_FAMILY_NOTES} or more is the seed pages\' depth">{depth["hand"]} hand-researched</span>'
            f'<span class="notes{" thin" if thin else ""}" title="notes derived from what the family declares '
            f'otherwise than Llama{"; fewer than " + str(MIN_FAMILY_NOTES) + " family notes in all" if thin else ""}">'
            f'{depth["feature"]} feature</span>'
            f'<span class="checked {"ok" if good else "bad"}" title="snippets run when the page was built">'
            f'{"✓" if good else "✗"} {depth["passed"]}/{depth["snippets"]} snippets</span>'
            f'<span class="configs" title="named checkpoints built from their real config facts that pass the '
            f'contract in float32 and bfloat16 (python -m nnterp.encyclopedia.realconfigs); '
            f'{depth["configs"]} carry real config facts">'
            f'{depth["checked"]}/{depth["checkpoints"]} real configs checked</span></div>')


def index_page(pages: list, versions: dict, built: str, seconds: float) -> str:
    rows = []
    totals = {"served": 0, "conditioned": 0, "unavailable": 0}
    snippets_total = snippets_passed = 0
    for page in pages:
        family = page.family
        counts = page.rows.counts()
        for key in totals:
            totals[key] += counts[key]
        snip = page.snippet_counts()
        snippets_total += sum(snip.values())
        snippets_passed += snip["passed"]
        search = " ".join([family.name, page.title, *family.model_types, *page.tags, page.block_kind, family.summary,
                           *(c.label for c in family.checkpoints), *(c.repo for c in family.checkpoints)]).lower()
        checkpoints = ", ".join(f"<b>{_e(c.label)}</b>" for c in family.checkpoints) or "—"
        good = snip["failed"] == 0 and snip["skipped"] == 0
        kind_class = "parallel" if "parallel" in page.block_kind else "sequential"
        rows.append(
            f'<tr class="family" data-search="{_e(search)}" data-seed="{int(page.at_seed_depth())}"><td class="fam"><a href="{_e(family.name)}.html">'
            f'{_e(family.name).replace("_", "_<wbr>")}</a><span>{_e(page.title)}</span></td>'
            f'<td class="about"><p>{_e(family.summary)}</p><ul class="tags">'
            + "".join(f"<li>{_e(tag)}</li>" for tag in page.tags) + f'</ul></td><td class="cks">{checkpoints}</td>'
            f'<td><span class="kind {kind_class}">{_e(page.block_kind)}</span></td>'
            f'<td><div class="counts"><span class="served" title="served">{counts["served"]} served</span>'
            f'<span class="conditioned" title="served under some loads">{counts["conditioned"]} ⚠︎</span>'
            f'<span class="unavailable" title="not served">{counts["unavailable"]} unavailable</span></div></td>'
            f'<td>{_depth(page, good)}</td></tr>')
    seed_pages = sum(1 for page in pages if page.at_seed_depth())
    body = f"""<main>
<section class="hero">
<p class="eyebrow">nnterp · the encyclopedia</p>
<h1>A page per model family</h1>
<p class="intro">What nnterp reads inside each family of decoder-only models, where each value comes from, and what
to know before you run. Every page is generated from the library's own objects, and every snippet on it ran on the
family's tiny model when the site was built.</p>
<ul class="stats"><li><b>{len(pages)}</b><span>families</span></li>
<li><b>{totals["served"]}</b><span>values served</span></li>
<li><b>{totals["conditioned"]}</b><span>⚠︎ under some loads</span></li>
<li><b>{snippets_passed}/{snippets_total}</b><span>snippets passed</span></li></ul>
<div class="search"><input id="search" type="search" placeholder="Filter: name, checkpoint, tag, block"
aria-label="filter families" autocomplete="off" autofocus><output id="count"></output>
<label class="seed-filter"><input id="seed-depth" type="checkbox"> only the {seed_pages} pages at the seed's depth
({MIN_FAMILY_NOTES} or more hand-researched notes)</label></div>
<table class="families"><thead><tr><th>family</th><th>summary and tags</th><th>checkpoints</th><th>block</th><th>values</th><th>depth</th></tr>
</thead><tbody>{"".join(rows)}</tbody></table>
<p id="empty" hidden></p>
</section>
</main>
<footer>Generated by <code>nnterp encyclopedia build</code> on {_e(built)} in {seconds:.1f} s;
{_e(_versions(versions))}.</footer>"""
    return document("nnterp encyclopedia", "all families", body, assets.INDEX_JS)
