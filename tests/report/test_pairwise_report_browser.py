"""The pairwise report and the least-stable section in headless Chromium (Debian's, no download)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._cli.main import main
from tests.support.browser import ARTEFACTS, CHROMIUM, FLAGS, needs_chromium
from tests.support.pairwise_helpers import write_pairs

pytestmark = needs_chromium

HOSTILE = "<img src=x onerror=\"document.title='pwned'\">"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pairwise-report")
    rubric = root / "r.json"
    rubric.write_text(
        json.dumps(
            [
                {"name": "paris", "weight": 2, "requirement": "Names Paris"},
                {"name": "hostile", "weight": 1, "requirement": HOSTILE},
            ]
        )
    )
    rows = [
        {"id": f"p{i}", "submission_a": f"A {i}", "submission_b": HOSTILE, "label": "ab"[i % 2]}
        for i in range(12)
    ]
    out = root / "pairs-out.jsonl"
    args = ["grade", str(rubric), str(write_pairs(root / "p.jsonl", rows)), "--pairwise"]
    assert main([*args, "--judge", "fake", "--repeats", "3", "-o", str(out)]) == 0
    pairwise = root / "pairwise.html"
    assert main(["report", str(out), "-o", str(pairwise)]) == 0
    run = root / "run"
    evaluate = ["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--max-items", "3"]
    assert main([*evaluate, "--repeats", "3", "--run-dir", str(run)]) == 0
    stable = root / "stability.html"
    assert main(["report", str(run), "-o", str(stable)]) == 0
    return pairwise, stable


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory, pages: Any) -> Iterator[Any]:
    assert CHROMIUM is not None, "CI must have chromium: .ci/run installs Debian's package"
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        try:
            yield context
        finally:
            context.close()


def _open(browser: Any, path: Path) -> tuple[Any, list[str]]:
    errors: list[str] = []
    page = browser.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, errors


def test_the_pairwise_page_shows_position_bias_and_consistency(
    browser: Any, pages: tuple[Path, Path]
) -> None:
    page, errors = _open(browser, pages[0])
    assert page.title().startswith("rubricjudge pairwise report")
    facts = page.locator("table.facts").inner_text()
    assert "position bias" in facts and "won 100.0% of the decisive answers" in facts
    assert "0.0% of the comparisons gave the same answer in both orders" in facts
    assert "accuracy (ties count half)\t50.0%" in facts
    rows = page.locator("#pairs tbody tr")
    assert rows.count() == 12
    # the hostile requirement is shown as text, and ran nothing
    assert HOSTILE in page.locator("#criteria").inner_text()
    assert page.title() != "pwned" and page.locator("img").count() == 0
    unstable = page.locator("#criteria table").nth(1)
    assert "Least stable criteria" in unstable.inner_text()
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "pairwise-report.png"), full_page=True)
    assert errors == []
    page.close()


def test_the_least_stable_criteria_are_listed_in_a_run_report(
    browser: Any, pages: tuple[Path, Path]
) -> None:
    page, errors = _open(browser, pages[1])
    section = page.locator("#stability")
    assert section.is_visible()
    assert "Least stable criteria" in section.inner_text()
    rates = [
        float(t)
        for t in page.eval_on_selector_all(
            "#stability tbody td:nth-child(2)", "cells => cells.map(c => c.textContent)"
        )
    ]
    assert rates and rates == sorted(rates, reverse=True)
    assert page.locator("nav a[href='#stability']").count() == 1
    assert errors == []
    page.close()
