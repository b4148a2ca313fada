"""The notes' text format: a small subset of Markdown, parsed into blocks the page renders.

``## Title`` opens a note; paragraphs are separated by blank lines; ``- `` starts a list item;
fenced blocks carry a kind: ``python`` runs on the family's tiny model when the site is built,
``python checkpoint`` runs on the family's real checkpoint where one is available offline, and
``formula`` is the block's arithmetic in notation, not code. Inline, `name` is code, and
``{{name}}`` or ``{{name:.2f}}`` is a number a ``python checkpoint`` block of the same page measured.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

RUNNABLE = ("python", "python checkpoint")
KINDS = (*RUNNABLE, "formula")


@dataclass
class Code:
    kind: str
    source: str
    result: object = None  # a snippets.Result once run


@dataclass
class Paragraph:
    text: str


@dataclass
class Items:
    items: list[str]


@dataclass
class Note:
    title: str
    blocks: list = field(default_factory=list)
    #: how the note was written: "hand" (read from the modeling code and the released configs, in a notes module),
    #: "feature" (derived: what the family does otherwise than Llama), "generic" (derived: what every family has)
    kind: str = "hand"

    def codes(self, kind: str | None = None) -> list[Code]:
        return [b for b in self.blocks if isinstance(b, Code) and (kind is None or b.kind == kind)]


def parse(text: str) -> list[Note]:
    """The notes of one family, in order."""
    notes: list[Note] = []
    lines = text.strip("\n").splitlines()
    index, paragraph = 0, []

    def flush():
        if not paragraph:
            return
        if all(line.startswith("- ") for line in paragraph if not line.startswith("  ")):
            items: list[str] = []
            for line in paragraph:
                if line.startswith("- "):
                    items.append(line[2:].strip())
                else:
                    items[-1] += " " + line.strip()
            notes[-1].blocks.append(Items(items))
        else:
            notes[-1].blocks.append(Paragraph(" ".join(line.strip() for line in paragraph)))
        paragraph.clear()

    while index < len(lines):
        line = lines[index]
        if line.startswith("## "):
            flush()
            notes.append(Note(line[3:].strip()))
        elif line.startswith("```"):
            flush()
            kind = line[3:].strip()
            if kind not in KINDS:
                raise ValueError(f"a fenced block of kind {kind!r} is not one of {', '.join(KINDS)}")
            body = []
            index += 1
            while not lines[index].startswith("```"):
                body.append(lines[index])
                index += 1
            notes[-1].blocks.append(Code(kind, "\n".join(body) + "\n"))
        elif not line.strip():
            flush()
        else:
            if not notes:
                raise ValueError("notes start with a '## ' title")
            paragraph.append(line)
        index += 1
    flush()
    return notes


_INLINE = re.compile(r"`([^`]+)`|\{\{(\w+)(?::([^}]*))?\}\}")


def inline(text: str, facts: dict | None = None) -> str:
    """HTML of one paragraph: escaped, with `code` and measured ``{{facts}}`` filled in."""
    out, last = [], 0
    for match in _INLINE.finditer(text):
        out.append(html.escape(text[last:match.start()], quote=False))
        if match.group(1) is not None:
            out.append(f"<code>{inline(match.group(1), facts) if '{{' in match.group(1) else html.escape(match.group(1), quote=False)}</code>")
        else:
            name, spec = match.group(2), match.group(3) or ""
            if facts is not None and name in facts:
                out.append(f'<span class="measured">{html.escape(format(facts[name], spec))}</span>')
            else:
                out.append('<span class="measured missing" title="not measured in this build">n/a</span>')
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def plain(text: str) -> str:
    """A paragraph without its markup, for search and comparison."""
    return re.sub(r"`([^`]+)`", r"\1", text)
