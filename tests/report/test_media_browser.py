"""Thumbnails in the HTML report and on the label page, in a real browser (Debian's chromium).

An image is shown inline as a small thumbnail (the page stays one file and fetches
nothing), each part with its label; a hostile file name stays text. Skipped like the
report's browser tests when chromium is missing outside CI.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._cli.main import main
from tests.support.browser import ARTEFACTS, CHROMIUM, FLAGS, needs_chromium
from tests.support.label_helpers import LabelServer
from tests.support.media_helpers import pdf, png

pytestmark = needs_chromium

HOSTILE_NAME = "<img src=x onerror=document.title='owned'>.png"
BIG = png(600, 300, lambda x, y: (255, 0, 0) if x < 300 else (0, 0, 255))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("media")
    (root / HOSTILE_NAME).write_bytes(BIG)
    (root / "note.pdf").write_bytes(pdf(["A note"]))
    item = {
        "id": "pic",
        "submission": [
            {"type": "text", "text": "My drawing"},
            {"type": "image", "path": HOSTILE_NAME},
            {"type": "document", "path": "note.pdf"},
        ],
    }
    rubric = {"criteria": [{"name": "red", "requirement": "It is red", "weight": 1}]}
    path = root / "ds.json"
    path.write_text(json.dumps({"prompt": "Draw", "rubric": rubric, "items": [item]}))
    return path


@pytest.fixture(scope="module")
def report(dataset: Path) -> Path:
    run = dataset.parent / "run"
    assert main(["evaluate", str(dataset), "--judge", "fake", "--run-dir", str(run)]) == 0
    out = dataset.parent / "report.html"
    assert main(["report", str(run), "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory, report: Path) -> Iterator[Any]:
    assert CHROMIUM is not None, "CI must have chromium: .ci/run installs Debian's package"
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        try:
            yield ctx
        finally:
            ctx.close()


def _open(context: Any, url: str) -> tuple[Any, list[str]]:
    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url)
    return page, errors


def _shown(page: Any) -> tuple[list[dict[str, Any]], list[str]]:
    images = page.eval_on_selector_all(
        ".media img",
        "els => els.map(e => ({w: e.naturalWidth, h: e.naturalHeight, done: e.complete,"
        " src: e.src.slice(0, 22), alt: e.alt}))",
    )
    captions = page.locator(".media figcaption").all_text_contents()
    return images, captions


def test_the_report_shows_a_thumbnail_and_the_labels(context: Any, report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    assert base64.b64encode(BIG).decode()[:200] not in html  # a thumbnail, not the original
    page, errors = _open(context, report.as_uri())
    page.click("#items tbody tr")
    page.wait_for_selector(".media figure")
    images, captions = _shown(page)
    assert images == [
        {"w": 192, "h": 96, "done": True, "src": "data:image/png;base64,", "alt": captions[0]}
    ]
    assert captions[0] == f"image 1 ({HOSTILE_NAME}, PNG 600x300, {len(BIG):,} bytes)"
    assert captions[1].startswith("document 2 (note.pdf, PDF, ")
    assert page.title().startswith("rubricjudge report")  # the name's onerror never ran
    assert page.locator("#detail img").count() == 1  # only the thumbnail is an image
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "report-media.png"), full_page=True)
    assert errors == []  # the CSP allowed the inline image and blocked nothing
    page.close()


def test_the_label_page_shows_the_image_to_label(context: Any, dataset: Path) -> None:
    with LabelServer(dataset) as server:
        page, errors = _open(context, server.url)
        page.wait_for_selector("#submission .media figure")
        images, captions = _shown(page)
        assert [(i["w"], i["h"], i["done"]) for i in images] == [(192, 96, True)]
        assert captions[0].startswith(f"image 1 ({HOSTILE_NAME}, PNG 600x300")
        assert "My drawing\n[image 1]\n[document 2]" in (page.text_content("#submission") or "")
        assert page.title() == "rubricjudge label"
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTEFACTS / "label-media.png"), full_page=True)
        assert errors == []
        page.close()
