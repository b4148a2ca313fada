"""The site's style and script, inlined into every page so that a page opens from disk with nothing else.

System fonts only; no request leaves the page.
"""

CSS = r"""
:root {
  --paper: #f6f5f0; --surface: #ffffff; --ink: #1b1e24; --muted: #5b6270; --faint: #8a909b;
  --line: #dedbd2; --soft: #eeece5;
  --stream: #1f6fb2; --stream-bg: #e8f1fa; --attn: #b9531a; --attn-bg: #fbefe6;
  --mlp: #2c875a; --mlp-bg: #e7f4ec; --model: #6a4fb6; --model-bg: #f0ecfa;
  --warn: #a86a00; --warn-bg: #fff5dc; --off: #8a909b; --off-bg: #f1f1ef;
  --ok: #2c875a; --bad: #b3261e;
  --sans: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "DejaVu Sans", Arial, sans-serif;
  --mono: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; scroll-padding-top: 4.5rem; }
body { margin: 0; background: var(--paper); color: var(--ink); font: 16px/1.6 var(--sans); }
a { color: var(--stream); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, kbd { font-family: var(--mono); font-size: 0.88em; }
p code, li code, td code, dd code, .lede code { background: var(--soft); border-radius: 4px; padding: 0.05em 0.3em; }

.topbar { position: sticky; top: 0; z-index: 5; display: flex; gap: 1rem; align-items: baseline;
  padding: 0.7rem max(1.2rem, calc(50vw - 32.8rem)); background: rgba(246, 245, 240, 0.94);
  border-bottom: 1px solid var(--line); backdrop-filter: blur(6px); }
.brand { font-weight: 700; color: var(--ink); letter-spacing: -0.01em; white-space: nowrap; }
.brand span { color: var(--muted); font-weight: 500; }
.crumb { color: var(--muted); font-family: var(--mono); font-size: 0.85rem; overflow: hidden;
  text-overflow: ellipsis; white-space: nowrap; }
.topbar nav { margin-left: auto; display: flex; gap: 1rem; font-size: 0.9rem; }
main { max-width: 68rem; margin: 0 auto; padding: 0 1.2rem 4rem; }

.hero { padding: 2.6rem 0 1.6rem; border-bottom: 1px solid var(--line); }
.eyebrow { margin: 0; color: var(--muted); font-size: 0.9rem; text-transform: lowercase; letter-spacing: 0.04em; }
.eyebrow code { background: none; padding: 0; color: var(--ink); font-size: 1rem; }
h1 { font-size: clamp(2rem, 5vw, 3.1rem); line-height: 1.1; margin: 0.3rem 0 0.9rem; letter-spacing: -0.025em; }
.checkpoints { list-style: none; display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0 0 1rem; padding: 0; }
.checkpoints li { background: var(--surface); border: 1px solid var(--line); border-radius: 14px;
  padding: 0.2rem 0.75rem; font-size: 0.9rem; }
.checkpoints li b { font-weight: 600; }
.checkpoints li code { color: var(--muted); margin-left: 0.35rem; font-size: 0.8rem; }
.checkpoints li.shown { border-color: var(--stream); box-shadow: 0 0 0 1px var(--stream) inset; }
.summary { font-size: 1.2rem; line-height: 1.55; max-width: 48rem; margin: 0 0 1rem; }
.differences { max-width: 48rem; margin: 0 0 1rem; font-size: .95rem; }
.differences ul { margin: .25rem 0 0; padding-left: 1.2rem; }
.tags { list-style: none; display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0 0 1.2rem; padding: 0; }
.tags li { background: var(--ink); color: var(--paper); border-radius: 6px; padding: 0.12rem 0.6rem;
  font-size: 0.82rem; font-weight: 600; }
.facts { display: flex; flex-wrap: wrap; gap: 0.4rem 1.6rem; margin: 0; color: var(--muted); font-size: 0.92rem; }
.facts div { display: flex; gap: 0.4rem; }
.facts dt { font-weight: 600; color: var(--ink); }
.facts dd { margin: 0; }

section { padding: 2.6rem 0 1rem; border-bottom: 1px solid var(--line); }
.section-head { display: flex; align-items: baseline; justify-content: space-between; gap: 1rem; flex-wrap: wrap;
  margin-bottom: 0.6rem; }
h2 { font-size: 1.9rem; margin: 0; letter-spacing: -0.02em; }
.kicker { margin: 0; font-family: var(--mono); font-size: 0.88rem; color: var(--muted); }
h3 { font-size: 1.2rem; margin: 2rem 0 0.5rem; letter-spacing: -0.01em; }
.lede { color: var(--muted); margin: 0 0 1.2rem; }

/* 01: the stream and the block */
.stream { list-style: none; display: flex; flex-wrap: wrap; align-items: center; gap: 0.45rem;
  padding: 0; margin: 0 0 1.4rem; }
.stream .to { color: var(--faint); font-size: 1.1rem; }
.stream button { display: flex; flex-direction: column; align-items: flex-start; gap: 0.05rem; cursor: pointer;
  font: inherit; text-align: left; background: var(--surface); border: 1px solid var(--line); border-radius: 10px;
  padding: 0.45rem 0.8rem; color: var(--ink); transition: border-color .12s, box-shadow .12s; }
.stream button b { font-family: var(--mono); font-size: 0.95rem; }
.stream button span { font-family: var(--mono); font-size: 0.75rem; color: var(--muted); }
.stream .k-layers { background: var(--stream-bg); border-color: #b9d3ea; }
.stream button:hover, .stream button.hover, .stream button:focus-visible { border-color: var(--stream);
  box-shadow: 0 0 0 3px rgba(31, 111, 178, 0.16); outline: none; }
.stream button.pinned { border-color: var(--ink); box-shadow: 0 0 0 2px var(--ink); }

.block-grid { display: grid; grid-template-columns: minmax(0, 1fr) 21rem; gap: 1.4rem; align-items: start; }
.diagram { margin: 0; background: var(--surface); border: 1px solid var(--line); border-radius: 14px;
  padding: 0.9rem 1rem 0.6rem; }
.layer-index { display: flex; align-items: center; gap: 0.8rem; font-family: var(--mono); font-size: 0.92rem;
  color: var(--muted); margin-bottom: 0.3rem; }
.layer-index output { color: var(--ink); font-weight: 700; min-width: 2ch; display: inline-block; }
.layer-index input { flex: 1; max-width: 16rem; accent-color: var(--stream); }
.block-svg { display: block; width: 100%; height: auto; max-width: 40rem; margin: 0 auto; }
.block-svg .stream-line { stroke: var(--stream); stroke-width: 5; fill: none; stroke-linecap: round; opacity: .85; }
.block-svg .flow { stroke: #9aa1ab; stroke-width: 1.5; fill: none; }
.block-svg marker path { fill: #9aa1ab; }
.block-svg .sum circle { fill: var(--surface); stroke: var(--stream); stroke-width: 2.2; }
.block-svg .sum path { stroke: var(--stream); stroke-width: 2.2; }
.block-svg .sum.s-unavailable circle, .block-svg .sum.s-unavailable path { stroke: var(--off); stroke-dasharray: 2 2; }
.block-svg .s-served .mk, .block-svg .s-module .mk { display: none; }
.block-svg .frame { stroke-width: 1.2; }
.block-svg .f-attn { fill: #fdf7f2; stroke: #efc9ad; }
.block-svg .f-mlp { fill: #f4faf6; stroke: #b9dcc8; }
.block-svg .frame.absent { fill: var(--off-bg); stroke: var(--off); stroke-dasharray: 5 4; }
.block-svg text { font-family: var(--mono); text-anchor: middle; }
.block-svg .t { font-size: 13px; font-weight: 700; fill: var(--ink); }
.block-svg .s { font-size: 10.5px; fill: var(--muted); }
.block-svg .p { font-size: 12px; font-weight: 600; }
.block-svg .d { font-size: 12px; text-anchor: start; fill: var(--ink); font-weight: 600; }
.block-svg .ft { font-size: 13px; font-weight: 700; text-anchor: start; fill: var(--ink); }
.block-svg .fc { font-weight: 400; fill: var(--muted); font-size: 11px; }
.block-svg .part { cursor: pointer; outline: none; }
.block-svg .part rect { stroke-width: 1.4; transition: stroke-width .1s; }
.block-svg .part.title rect { fill: transparent; stroke: transparent; }
.block-svg .k-stream rect { fill: var(--stream-bg); stroke: #9cc2e4; }
.block-svg .k-attn rect { fill: var(--attn-bg); stroke: #e3a57c; }
.block-svg .k-attn .p { fill: #8d3c0f; }
.block-svg .k-mlp rect { fill: var(--mlp-bg); stroke: #8fc7a6; }
.block-svg .k-mlp .p { fill: #1f6a44; }
.block-svg .k-module rect { fill: var(--surface); stroke: #b9bec6; }
.block-svg .k-module .t { font-weight: 600; font-size: 12px; }
.block-svg .dot circle { fill: var(--surface); stroke: var(--stream); stroke-width: 3; }
.block-svg .s-conditioned rect { fill: var(--warn-bg); stroke: var(--warn); stroke-dasharray: 4 3; }
.block-svg .s-conditioned .p { fill: #7a4d00; }
.block-svg .s-unavailable rect { fill: var(--off-bg); stroke: var(--off); stroke-dasharray: 3 3; }
.block-svg .s-unavailable circle { stroke: var(--off); stroke-dasharray: 3 2; fill: var(--off-bg); }
.block-svg .s-unavailable .d, .block-svg .s-unavailable .p { fill: var(--faint); }
.block-svg .part:hover rect, .block-svg .part.hover rect, .block-svg .part:focus-visible rect { stroke-width: 3; }
.block-svg .part.title:hover rect, .block-svg .part.title.hover rect { fill: rgba(0, 0, 0, 0.04); }
.block-svg .part:hover circle, .block-svg .part.hover circle { stroke-width: 5; }
.block-svg .part.pinned rect { stroke: var(--ink) !important; stroke-width: 3; }
.block-svg .part.pinned circle { stroke: var(--ink); }

.card { position: sticky; top: 4.2rem; background: var(--surface); border: 1px solid var(--line); border-radius: 14px;
  padding: 1rem 1.1rem 1.1rem; min-height: 12rem; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.03); }
.card.pinned { border-color: var(--ink); box-shadow: 0 6px 24px rgba(0, 0, 0, 0.08); }
.card .hint { color: var(--muted); margin: 0; }
.card .hint b { color: var(--ink); }
.card-head { display: flex; justify-content: space-between; align-items: center; gap: 0.5rem; }
.card .cname { font-family: var(--mono); font-size: 1.08rem; font-weight: 700; word-break: break-word; }
.card .badge { font-size: 0.72rem; font-weight: 700; border-radius: 999px; padding: 0.1rem 0.55rem;
  white-space: nowrap; text-transform: uppercase; letter-spacing: 0.04em; }
.badge.served { background: var(--mlp-bg); color: var(--ok); }
.badge.conditioned { background: var(--warn-bg); color: var(--warn); }
.badge.unavailable { background: var(--off-bg); color: var(--muted); }
.badge.module { background: var(--soft); color: var(--muted); }
.card .pinmark { font-size: 0.72rem; color: var(--muted); margin-left: auto; }
.card dl { margin: 0.7rem 0 0; display: grid; grid-template-columns: 5.2rem 1fr; gap: 0.45rem 0.6rem; font-size: 0.9rem; }
.card dt { color: var(--muted); font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.05em; padding-top: 0.1rem; }
.card dd { margin: 0; word-break: break-word; }
.card dd code { background: var(--soft); border-radius: 4px; padding: 0.05em 0.3em; }
.card .note { margin-top: 0.8rem; background: var(--warn-bg); border-left: 3px solid var(--warn); padding: 0.5rem 0.7rem;
  font-size: 0.88rem; border-radius: 0 6px 6px 0; }
.dim { border-bottom: 1px dotted var(--faint); cursor: help; }

.identity { display: flex; flex-wrap: wrap; gap: 0.4rem 0.9rem; align-items: baseline; margin: 1.4rem 0 0.6rem;
  background: var(--surface); border: 1px solid var(--line); border-left: 4px solid var(--stream);
  border-radius: 0 10px 10px 0; padding: 0.7rem 1rem; }
.identity span { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.08em; color: var(--muted); font-weight: 700; }
.identity code { font-size: 0.95rem; word-break: break-word; }

/* 02: the API */
.warn-legend { color: var(--muted); margin: 0 0 1rem; }
.host { margin: 0 0 1.3rem; background: var(--surface); border: 1px solid var(--line); border-radius: 12px; overflow: hidden; }
table.support { width: 100%; border-collapse: collapse; font-size: 0.9rem; table-layout: fixed; }
.support col.c-name { width: 25%; } .support col.c-layout { width: 25%; }
.support col.c-what { width: 29%; } .support col.c-readat { width: 21%; }
.support th { text-align: left; font-weight: 600; color: var(--muted); font-size: 0.78rem; text-transform: uppercase;
  letter-spacing: 0.05em; background: var(--soft); padding: 0.55rem 0.8rem; }
.support th.hostname { text-transform: none; letter-spacing: 0; font-size: 0.92rem; color: var(--ink); }
.support th.hostname code { font-weight: 700; }
.support th.hostname .cls { color: var(--muted); font-weight: 500; margin-left: 0.4rem; font-family: var(--mono); font-size: 0.82rem; }
.support td { padding: 0.5rem 0.8rem; border-top: 1px solid var(--soft); vertical-align: top; }
.support td.name { font-family: var(--mono); font-weight: 600; overflow-wrap: anywhere; }
.support td.name code { background: none; padding: 0; }
.support td.layout { font-family: var(--mono); font-size: 0.8rem; color: var(--muted); }
.support td.readat { color: var(--muted); font-size: 0.84rem; overflow-wrap: anywhere; }
.support tr.s-unavailable td { color: var(--faint); }
.support tr.s-unavailable td.name code { text-decoration: line-through; text-decoration-color: var(--faint); }
.warn { display: inline-block; color: var(--warn); cursor: help; margin-right: 0.25rem; border-radius: 4px; font-weight: 700; }
.warn:focus-visible { outline: 2px solid var(--warn); }
.support tr.s-unavailable .warn { color: var(--muted); }

pre.printout, .snippet pre, .formula pre { margin: 0; overflow-x: auto; background: #1d2027; color: #e6e3da;
  border-radius: 12px; padding: 1rem 1.1rem; font-size: 0.8rem; line-height: 1.55; tab-size: 4; }
pre.printout { max-height: 38rem; }
.printout .v { color: #9fd0ff; }
.printout .lay { color: #c6b8ff; }
.printout .un { color: #ffc86b; }
.printout .al { color: #8fe0b0; }
.printout .cl { color: #f0f0ea; font-weight: 600; }

.config { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; align-items: start; }
.config table { width: 100%; border-collapse: collapse; background: var(--surface); border: 1px solid var(--line);
  border-radius: 12px; overflow: hidden; font-size: 0.9rem; }
.config caption { text-align: left; color: var(--muted); font-size: 0.8rem; text-transform: uppercase;
  letter-spacing: 0.05em; padding: 0 0 0.4rem; font-weight: 600; }
.config th, .config td { padding: 0.38rem 0.8rem; border-top: 1px solid var(--soft); text-align: left; }
.config th { font-family: var(--mono); font-weight: 500; color: var(--muted); font-size: 0.84rem; }
.config td { font-family: var(--mono); font-weight: 600; text-align: right; word-break: break-word; }

.checkpoint-table { width: 100%; border-collapse: collapse; background: var(--surface); border: 1px solid var(--line);
  font-size: 0.86rem; display: block; overflow-x: auto; }
.checkpoint-table th, .checkpoint-table td { padding: 0.38rem 0.7rem; border-top: 1px solid var(--soft); text-align: left; }
.checkpoint-table td { font-family: var(--mono); white-space: nowrap; }
.checkpoint-table td.absent { color: var(--muted); font-style: italic; font-family: inherit; }
.checkpoint-table tbody th code { display: block; color: var(--muted); font-weight: 400; font-size: 0.8rem; }

/* 03: the notes */
.runs { display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; align-items: center; background: var(--surface);
  border: 1px solid var(--line); border-radius: 12px; padding: 0.7rem 1rem; font-size: 0.9rem; margin: 0 0 0.5rem; }
.runs .tally { font-weight: 700; }
.runs .tally.ok { color: var(--ok); }
.runs .tally.bad { color: var(--bad); }
.runs .versions { color: var(--muted); font-family: var(--mono); font-size: 0.8rem; }
.note { max-width: 50rem; }
.note h3 { margin-top: 2.2rem; }
.note p { margin: 0 0 0.9rem; }
.note ul { margin: 0 0 0.9rem; padding-left: 1.3rem; }
.note li { margin: 0.2rem 0; }
.how { font-family: var(--mono); font-size: 0.72rem; color: var(--muted); background: var(--soft); border-radius: 4px;
  padding: 0 0.3rem; white-space: nowrap; }
.measured { font-weight: 700; background: var(--stream-bg); border-radius: 4px; padding: 0 0.25rem; }
.measured.missing { background: var(--off-bg); color: var(--muted); }
.snippet, .formula { margin: 0 0 1rem; }
.snippet .result { display: flex; flex-wrap: wrap; gap: 0.2rem 0.7rem; align-items: baseline; font-size: 0.8rem;
  padding: 0.35rem 0.3rem 0; color: var(--muted); }
.snippet .result b { font-weight: 700; }
.snippet.passed .result b { color: var(--ok); }
.snippet.failed .result b { color: var(--bad); }
.snippet.failed pre { box-shadow: 0 0 0 2px var(--bad); }
.snippet.skipped .result b { color: var(--warn); }
.snippet .err { font-family: var(--mono); color: var(--bad); flex-basis: 100%; }
.formula pre { background: var(--surface); color: var(--ink); border: 1px dashed var(--line); font-size: 0.86rem; }
.formula .result { font-size: 0.8rem; color: var(--muted); padding: 0.3rem 0.3rem 0; }
.tok-k { color: #ff9eb1; }
.tok-s { color: #b5e48c; }
.tok-c { color: #8b93a1; font-style: italic; }
.tok-n { color: #ffcf70; }
.tok-b { color: #8fd3ff; }
.formula .tok-c { color: var(--faint); }

/* 04: the family module */
.docstring { background: var(--surface); border: 1px solid var(--line); border-left: 4px solid var(--model);
  border-radius: 0 12px 12px 0; padding: 1rem 1.2rem; max-width: 50rem; }
.docstring p { margin: 0 0 0.8rem; }
.docstring p:first-child { font-weight: 700; }
.docstring p:last-child { margin-bottom: 0; }
.problems { background: #fdecea; border: 1px solid #f3b5ae; border-radius: 10px; padding: 0.6rem 1rem; color: var(--bad); }

footer { max-width: 68rem; margin: 0 auto; padding: 1.6rem 1.2rem 3rem; color: var(--muted); font-size: 0.85rem; }
footer code { font-size: 0.8rem; }

#tip { position: fixed; z-index: 20; pointer-events: none; background: var(--ink); color: #fff; font-family: var(--mono);
  font-size: 0.8rem; padding: 0.3rem 0.55rem; border-radius: 6px; max-width: min(26rem, 90vw);
  box-shadow: 0 4px 14px rgba(0, 0, 0, 0.2); transform: translate(-50%, calc(-100% - 8px)); white-space: normal; }
#tip.wide { font-family: var(--sans); font-size: 0.82rem; line-height: 1.4; }
#tip[hidden] { display: none; }

/* the index */
.intro { font-size: 1.15rem; max-width: 46rem; margin: 0 0 1.2rem; }
.stats { display: flex; flex-wrap: wrap; gap: 0.8rem; margin: 0 0 1.4rem; padding: 0; list-style: none; }
.stats li { background: var(--surface); border: 1px solid var(--line); border-radius: 12px; padding: 0.6rem 1rem;
  min-width: 8.5rem; flex: 0 1 auto; }
.stats b { display: block; font-size: 1.5rem; line-height: 1.2; }
.stats span { color: var(--muted); font-size: 0.85rem; }
.search { display: flex; align-items: center; gap: 0.8rem; flex-wrap: wrap; margin: 1.6rem 0 0.8rem; }
.search input { flex: 1 1 18rem; font: inherit; font-size: 1.05rem; padding: 0.7rem 1rem; border-radius: 12px;
  border: 1px solid var(--line); background: var(--surface); color: var(--ink); }
.search input:focus { outline: none; border-color: var(--stream); box-shadow: 0 0 0 3px rgba(31, 111, 178, 0.16); }
.search output { color: var(--muted); font-size: 0.9rem; }
.search .seed-filter { color: var(--muted); font-size: 0.9rem; display: flex; align-items: center; gap: 0.4rem; }
table.families { width: 100%; border-collapse: collapse; background: var(--surface); border: 1px solid var(--line);
  border-radius: 12px; overflow: hidden; }
.families th { text-align: left; font-size: 0.78rem; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted);
  background: var(--soft); padding: 0.6rem 0.9rem; font-weight: 600; }
.families td { padding: 0.75rem 0.9rem; border-top: 1px solid var(--soft); vertical-align: top; font-size: 0.92rem;
  overflow-wrap: anywhere; }
.families td.fam { min-width: 10rem; }
.families td.about p { margin: 0 0 0.35rem; }
.families td.about .tags { margin: 0; gap: 0.25rem; }
.families td.about .tags li { font-size: 0.72rem; padding: 0.05rem 0.4rem; }
.families tr:hover td { background: #fbfaf7; }
.families .fam a { font-family: var(--mono); font-weight: 700; font-size: 1rem; }
.families .fam span { display: block; color: var(--muted); font-size: 0.85rem; }
.families .cks { color: var(--muted); }
.families .cks b { color: var(--ink); font-weight: 600; }
.kind { display: inline-block; border-radius: 6px; padding: 0 0.5rem; font-size: 0.82rem; font-weight: 600;
  background: var(--stream-bg); color: var(--stream); }
.kind.parallel { background: var(--attn-bg); color: var(--attn); }
.counts { display: flex; gap: 0.35rem; flex-wrap: wrap; }
.counts span { border-radius: 999px; padding: 0 0.5rem; font-size: 0.8rem; font-weight: 700; white-space: nowrap; }
.counts .served { background: var(--mlp-bg); color: var(--ok); }
.counts .conditioned { background: var(--warn-bg); color: var(--warn); }
.counts .unavailable { background: var(--off-bg); color: var(--muted); }
.checked { font-size: 0.85rem; white-space: nowrap; }
.checked.ok { color: var(--ok); }
.checked.bad { color: var(--bad); font-weight: 700; }
.depth { display: flex; flex-direction: column; gap: 0.1rem; font-size: 0.85rem; }
.depth .notes.thin { color: var(--bad); font-weight: 700; }
.depth .notes.seed { color: var(--good, #1a7f37); font-weight: 700; }
.depth .configs { color: var(--muted); }
#empty { color: var(--muted); padding: 1rem 0; }

@media (max-width: 900px) {
  .block-grid { grid-template-columns: 1fr; }
  .card { position: static; min-height: 0; }
  .config { grid-template-columns: 1fr; }
  /* six columns of the index fit from about 900 px; below it each family is a card */
  table.families thead { display: none; }
  table.families, .families tbody, .families tr, .families td { display: block; width: 100%; }
  .families tr { padding: 0.7rem 0.9rem; border-top: 1px solid var(--soft); }
  .families td { border: 0; padding: 0.15rem 0; }
}
@media (max-width: 700px) {
  body { font-size: 15px; }
  main { padding: 0 0.9rem 3rem; }
  .topbar { padding: 0.6rem 0.9rem; }
  .topbar nav { display: none; }
  .brand span { display: none; }
  .hero { padding-top: 1.6rem; }
  .summary { font-size: 1.05rem; }
  h2 { font-size: 1.55rem; }
  .diagram { padding: 0.6rem 0.4rem 0.4rem; }
  .stream { gap: 0.3rem; }
  .stream button { padding: 0.35rem 0.55rem; }
  .stream .to { font-size: 0.9rem; }
  table.support thead, table.support thead tr { display: block; }
  table.support colgroup { display: none; }
  table.support thead th { display: none; }
  table.support thead th.hostname { display: block; width: 100%; overflow-wrap: anywhere; }
  table.support, .support tbody, .support tr, .support td { display: block; width: 100%; }
  .support tr { padding: 0.55rem 0.8rem; border-top: 1px solid var(--soft); }
  .support td { border: 0; padding: 0.05rem 0; }
  .support td.layout { white-space: normal; }
  .support td.readat::before { content: "read at "; font-weight: 600; }
  pre.printout, .snippet pre { font-size: 0.72rem; }
}
"""

PAGE_JS = r"""
(function () {
  var base = JSON.parse(document.getElementById('parts').textContent);
  var dims = JSON.parse(document.getElementById('dims').textContent);
  var kinds = JSON.parse(document.getElementById('kinds').textContent);
  var parts = base;
  var tip = document.getElementById('tip');
  var card = document.getElementById('card');
  var slider = document.getElementById('layer');
  var shown = document.getElementById('layer-shown');
  var pinned = null, layer = 0, tipFor = null;

  function placeTip() {
    var r = tipFor.getBoundingClientRect();
    var x = Math.min(Math.max(r.left + r.width / 2, 80), window.innerWidth - 80);
    tip.style.left = x + 'px';
    tip.style.top = Math.max(r.top, 40) + 'px';
  }
  function showTip(el, text, wide) {
    tipFor = el;
    tip.textContent = text;
    tip.className = wide ? 'wide' : '';
    tip.hidden = false;
    placeTip();
  }
  function hideTip() { tip.hidden = true; tipFor = null; }
  function node(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }
  function layoutNode(text) {
    var code = node('code');
    text.split(/(\s+|\[|\])/).forEach(function (word) {
      if (dims[word]) { var s = node('span', 'dim', word); s.title = word + ': ' + dims[word]; code.appendChild(s); }
      else code.appendChild(document.createTextNode(word));
    });
    return code;
  }
  function render(name) {
    var info = parts[name];
    if (!info) return;
    card.textContent = '';
    var head = node('div', 'card-head');
    head.appendChild(node('span', 'cname', name));
    head.appendChild(node('span', 'badge ' + info.status, info.status === 'conditioned' ? '⚠︎ conditioned' : info.status));
    card.appendChild(head);
    var dl = node('dl');
    function row(label, value) {
      dl.appendChild(node('dt', '', label));
      var dd = node('dd');
      if (typeof value === 'string') dd.textContent = value; else dd.appendChild(value);
      dl.appendChild(dd);
    }
    row('path', node('code', '', info.path.replace('[i]', '[' + layer + ']')));
    if (info.blocks) row('blocks', 'i in ' + info.blocks);
    if (info.native) row('native', node('code', '', info.native));
    if (info.layout) row('layout', layoutNode(info.layout));
    if (info.what) row('what', info.what);
    if (info.read_at) row('read at', info.read_at);
    card.appendChild(dl);
    if (info.note) {
      var note = node('div', 'note');
      note.textContent = (info.status === 'conditioned' ? 'Condition: ' : 'Reason: ') + info.note;
      card.appendChild(note);
    }
    if (pinned === name) { var p = node('div', 'pinmark', 'pinned: click it again to unpin'); card.appendChild(p); }
    card.dataset.name = name;
  }
  function idle() {
    card.textContent = '';
    var p = node('p', 'hint');
    p.innerHTML = 'Hover a part of the diagram for its <b>standard name</b>; click it to pin its card here.';
    card.appendChild(p);
    delete card.dataset.name;
  }
  function mark(name, cls, on) {
    document.querySelectorAll('.part').forEach(function (el) {
      el.classList.toggle(cls, on && el.dataset.name === name);
    });
  }
  function pin(name) {
    pinned = pinned === name ? null : name;
    mark(name, 'pinned', pinned !== null);
    card.classList.toggle('pinned', pinned !== null);
    if (pinned) render(pinned); else render(name);
  }
  document.querySelectorAll('.part').forEach(function (el) {
    var name = el.dataset.name;
    el.addEventListener('mouseenter', function () { showTip(el, name); mark(name, 'hover', true); if (!pinned) render(name); });
    el.addEventListener('mouseleave', function () { hideTip(); mark(name, 'hover', false); if (!pinned) idle(); });
    el.addEventListener('focus', function () { showTip(el, name); if (!pinned) render(name); });
    el.addEventListener('blur', hideTip);
    el.addEventListener('click', function () { pin(name); });
    el.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pin(name); }
    });
  });
  document.querySelectorAll('.warn').forEach(function (el) {
    el.addEventListener('mouseenter', function () { showTip(el, el.dataset.note, true); });
    el.addEventListener('mouseleave', hideTip);
    el.addEventListener('focus', function () { showTip(el, el.dataset.note, true); });
    el.addEventListener('blur', hideTip);
  });
  // a hybrid: the diagram and the cards follow the kind of block i is
  function follow() {
    var kind = null;
    kinds.forEach(function (k) { if (k.indices.indexOf(layer) !== -1) kind = k; });
    parts = kind ? Object.assign({}, base, kind.rows) : base;
    if (!kind) return;
    document.querySelectorAll('.block-svg .part, .block-svg .sum').forEach(function (el) {
      var info = parts[el.dataset.name || el.dataset.sum];
      if (!info || el.classList.contains('s-module')) return;
      el.classList.remove('s-served', 's-conditioned', 's-unavailable');
      el.classList.add('s-' + info.status);
    });
    document.querySelectorAll('.block-svg [data-host]').forEach(function (el) {
      var cls = kind.classes[el.dataset.host];
      if (cls) el.querySelector('.fc').textContent = cls;
    });
  }
  if (slider) slider.addEventListener('input', function () {
    layer = +slider.value;
    shown.textContent = layer;
    follow();
    var name = pinned || card.dataset.name;
    if (name) render(name);
  });
  window.addEventListener('scroll', function () { if (tipFor) placeTip(); }, { passive: true });
  follow();
  idle();
})();
"""

INDEX_JS = r"""
(function () {
  var input = document.getElementById('search');
  var rows = Array.prototype.slice.call(document.querySelectorAll('tr.family'));
  var count = document.getElementById('count');
  var empty = document.getElementById('empty');
  var seed = document.getElementById('seed-depth');
  function filter() {
    var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var text = row.dataset.search;
      var hit = terms.every(function (t) { return text.indexOf(t) !== -1; }) &&
        (!seed.checked || row.dataset.seed === '1');
      row.hidden = !hit;
      if (hit) shown++;
    });
    count.textContent = shown + ' of ' + rows.length + (rows.length === 1 ? ' family' : ' families');
    empty.hidden = shown !== 0;
    empty.textContent = shown ? '' : 'No family matches \u201c' + input.value + '\u201d.';
  }
  input.addEventListener('input', filter);
  seed.addEventListener('change', filter);
  filter();
})();
"""
