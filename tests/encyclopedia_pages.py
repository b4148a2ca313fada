"""What the encyclopedia's tests read a built page with: the text of each section, compared whitespace aside.
The site itself is the ``site`` fixture (tests/conftest.py)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts" / "encyclopedia"


class _Sections(HTMLParser):
    """The text of each <section id=...>, without scripts and styles."""

    def __init__(self):
        super().__init__()
        self.sections: dict[str, list[str]] = {}
        self.current: str | None = None
        self.depth = 0
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag == "section":
            self.current, self.depth = dict(attrs).get("id"), 1
            self.sections.setdefault(self.current, [])
        elif self.current and tag not in ("br", "input", "col", "meta"):
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        if self.current and tag not in ("br", "input", "col", "meta"):
            self.depth -= 1
            if self.depth == 0:
                self.current = None

    def handle_data(self, data):
        if self.current and not self.skip:
            self.sections[self.current].append(data)


def squeeze(text: str) -> str:
    """Text compared without whitespace, marks or case: the page's layout is not its content."""
    return re.sub(r"\s+", "", text.replace("⚠︎", "").replace("•", "")).lower()


def page_sections(site: Path, name: str) -> dict[str, str]:
    parser = _Sections()
    parser.feed((site / f"{name}.html").read_text())
    return {key: squeeze(" ".join(parts)) for key, parts in parser.sections.items()}


SECTION_IDS = {"top": "top", "block": "block", "api": "api", "notes": "notes", "module": "module"}


def assert_page_reads(site: Path, name: str, expected: dict) -> None:
    found = page_sections(site, name)
    missing = {
        section: [line for line in lines if squeeze(line) not in found.get(SECTION_IDS[section], "")]
        for section, lines in expected.items()
    }
    missing = {section: lines for section, lines in missing.items() if lines}
    assert not missing, f"the {name} page lacks, by section: {json.dumps(missing, indent=1, ensure_ascii=False)}"


