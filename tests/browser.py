"""Headless Chromium (Debian's package) driven by playwright, for the pages the project serves: the encyclopedia's
files and the attribution graph frontend. CI installs both (.ci/setup-extra)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run",
                 # every host name but localhost fails to resolve: a page that needs the internet cannot draw
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost"]


def launch():
    """Yields a launched Chromium; skips (fails on CI) where chromium or playwright is missing."""
    missing = [what for what, present in (("chromium", Path(CHROMIUM).exists()),
                                          ("playwright", importlib.util.find_spec("playwright") is not None))
               if not present]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{' and '.join(missing)} missing: .ci/setup-extra installs them")
        pytest.skip(f"{' and '.join(missing)} not installed (run .ci/setup-extra)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Visit:
    """A page opened, with what it asked the network for and what it logged."""

    def __init__(self, browser, url: str, width: int = 1280):
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.problems: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", lambda message: self.problems.append(f"{message.type}: {message.text}")
                     if message.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.goto(url)

    def close(self):
        self.context.close()
