"""The notes written by hand for a family's page: ``nnterp/families/notes/<family>.md``, Markdown in the format of
``nnterp.encyclopedia.markdown``, each note a ``## title``, its paragraphs and its snippets.

The file opens with a front matter between two ``---`` lines, ``key: value`` each:

- ``sources:`` what the notes were read against (the modeling code, the released files), in one line;
- ``load:`` the attention implementation the snippets run under (eager where the family has it, by default);
- ``drop:`` derived notes the hand notes replace, by name, separated by commas;
- ``page: whole`` where the hand notes are the page's notes (otherwise they lead the derived ones);
- ``include:`` another notes file of the folder whose notes follow these (``gemma3_text_measured``).

A family whose snippets measure a real checkpoint available offline (``python checkpoint``) keeps the code that
loads it beside the text, ``nnterp/families/notes/<family>.py``: ``CHECKPOINT``, ``load_checkpoint()`` and
``facts(scope)``, the numbers the text quotes as ``{{name}}``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from types import ModuleType

#: the package holding the notes files, beside the family modules
FOLDER = "nnterp.families.notes"

#: the front matter's keys
KEYS = ("sources", "load", "drop", "page", "include")


class NotesFileError(ValueError):
    """A notes file whose front matter cannot be read."""


@dataclass
class HandNotes:
    """One family's notes file, read."""

    name: str
    text: str
    sources: str = ""
    load: str | None = None
    drop: tuple[str, ...] = ()
    whole_page: bool = False
    #: ``notes/<family>.py``: the real checkpoint's loader and the numbers its snippets measured (None: no such code)
    code: ModuleType | None = field(default=None, repr=False)

    @property
    def path(self) -> str:
        return f"nnterp/families/notes/{self.name}.md"


def _read(name: str) -> str | None:
    found = resources.files(FOLDER).joinpath(f"{name}.md")
    return found.read_text(encoding="utf-8") if found.is_file() else None


def split_front_matter(name: str, text: str) -> tuple[dict, str]:
    """(the front matter's keys, the Markdown after it)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    try:
        end = lines.index("---", 1)
    except ValueError:
        raise NotesFileError(f"nnterp/families/notes/{name}.md opens a front matter with --- and never closes it: "
                             f"end it with a line of ---") from None
    keys = {}
    for line in lines[1:end]:
        key, colon, value = line.partition(":")
        if not colon or key.strip() not in KEYS:
            raise NotesFileError(f"nnterp/families/notes/{name}.md: the front matter line {line!r} is not one of "
                                 f"{', '.join(KEYS)} followed by ': value'")
        keys[key.strip()] = value.strip()
    return keys, "\n".join(lines[end + 1:])


def _code(name: str) -> ModuleType | None:
    if not name.isidentifier():
        return None
    try:
        return importlib.import_module(f"{FOLDER}.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"{FOLDER}.{name}":
            raise
        return None


@lru_cache(maxsize=None)
def hand_notes(name: str) -> HandNotes | None:
    """The family's notes file, read (None where it has none)."""
    text = _read(name)
    if text is None:
        return None
    keys, body = split_front_matter(name, text)
    for included in filter(None, (part.strip() for part in keys.get("include", "").split(","))):
        more = _read(included)
        if more is None:
            raise NotesFileError(f"nnterp/families/notes/{name}.md includes {included!r}, which is no notes file of "
                                 f"the folder: name a file nnterp/families/notes/<name>.md without its .md")
        body = body.rstrip("\n") + "\n\n" + split_front_matter(included, more)[1].lstrip("\n")
    drop = tuple(part.strip() for part in keys.get("drop", "").split(",") if part.strip())
    return HandNotes(name, body, keys.get("sources", ""), keys.get("load") or None, drop,
                     keys.get("page") == "whole", _code(name))


def render_front_matter(sources: str = "", load: str | None = None, drop=(), whole_page: bool = False,
                        include=()) -> str:
    """The front matter a notes file opens with, from its values."""
    lines = ["---"]
    if sources:
        lines.append(f"sources: {' '.join(sources.split())}")
    if load:
        lines.append(f"load: {load}")
    if drop:
        lines.append(f"drop: {', '.join(drop)}")
    if whole_page:
        lines.append("page: whole")
    if include:
        lines.append(f"include: {', '.join(include)}")
    return "\n".join(lines + ["---", ""])
