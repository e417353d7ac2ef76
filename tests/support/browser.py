"""Debian's chromium for the browser tests: where it is, how it starts, when to skip.

Playwright drives the system's chromium (``executable_path``); it downloads no browser.
The tests are skipped only when chromium is missing and this is not CI: CI (``CI`` or
``RUBRICJUDGE_REQUIRE_BROWSER`` set) installs chromium and must run them. Screenshots
land in ``$RUBRICJUDGE_TEST_ARTEFACTS`` (default ``test-artefacts``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRED = bool(os.environ.get("CI") or os.environ.get("RUBRICJUDGE_REQUIRE_BROWSER"))
ARTEFACTS = Path(os.environ.get("RUBRICJUDGE_TEST_ARTEFACTS", "test-artefacts"))
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not REQUIRED,
    reason="Debian's chromium is not installed (apt-get install chromium; CI installs it)",
)


class Page:
    """A page with its console errors collected."""

    def __init__(self, context: Any, url: str) -> None:
        self.errors: list[str] = []
        self.page = context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)

    def shown_ids(self) -> list[str]:
        ids: list[str] = self.page.eval_on_selector_all(
            "#items tbody tr", "rows => rows.map(r => r.dataset.id)"
        )
        return ids

    def column(self, index: int) -> list[str]:
        cells: list[str] = self.page.eval_on_selector_all(
            f"#items tbody tr td:nth-child({index})", "cells => cells.map(c => c.textContent)"
        )
        return cells
