"""The report in a real browser: Debian's chromium, headless, driven by Playwright.

Playwright drives the system's chromium (``executable_path``); it downloads no
browser. The tests are skipped only when chromium is missing and this is not CI:
CI (``CI`` or ``RUBRICJUDGE_REQUIRE_BROWSER`` set) installs chromium and must run
them. Screenshots land in ``$RUBRICJUDGE_TEST_ARTEFACTS`` (default ``test-artefacts``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import RunResult
from rubricjudge._cli.main import main
from tests.support.browser import ARTEFACTS, CHROMIUM, FLAGS, Page, needs_chromium
from tests.support.report_runs import HOSTILE, ensemble_run, trust_run

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    trust, ensemble = trust_run(root / "trust"), ensemble_run(root / "ensemble")
    out = root / "report.html"
    assert main(["report", str(trust), "-o", str(out), "--compare", str(ensemble)]) == 0
    return trust, ensemble, out


@pytest.fixture(scope="module")
def long_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("long")
    rubric = root / "r.yaml"
    rubric.write_text("- name: a\n  weight: 1\n  requirement: States A\n")
    inp = root / "in.jsonl"
    inp.write_text(
        "\n".join(json.dumps({"id": f"x{i:04d}", "submission": "t"}) for i in range(600))
    )
    graded, out = root / "graded.jsonl", root / "r.html"
    assert main(["grade", str(rubric), str(inp), "--judge", "fake", "-o", str(graded)]) == 0
    assert main(["report", str(graded), "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory, runs: Any, long_report: Any) -> Iterator[Any]:
    # the reports are written first: Playwright's sync API owns the event loop while it runs
    assert CHROMIUM is not None, "CI must have chromium: .ci/run installs Debian's package"
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")  # a new, empty profile
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 1000},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser: Any, runs: tuple[Path, Path, Path]) -> Iterator[Page]:
    p = Page(browser, runs[2].as_uri())
    yield p
    assert p.errors == []  # nothing failed, no script was blocked, nothing was fetched
    p.page.close()


def test_the_page_loads_with_its_plots_drawn(page: Page) -> None:
    assert page.page.title().startswith("rubricjudge report")
    plots = page.page.locator("svg.plot")
    assert plots.count() >= 8
    for i in range(plots.count()):
        plot = plots.nth(i)
        plot.scroll_into_view_if_needed()
        box = plot.bounding_box()
        assert box is not None and box["width"] > 150 and box["height"] > 80
        assert plot.locator("path").count() > 5  # marks drawn, not an empty frame
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.page.screenshot(path=str(ARTEFACTS / "report-page.png"), full_page=True)


def test_filters_narrow_the_item_table(page: Page, runs: tuple[Path, Path, Path]) -> None:
    reports = [r for r in RunResult.open(runs[0]).iter_reports() if r is not None]
    assert len(page.shown_ids()) == 30
    page.page.fill("#filter", "item-01")
    assert sorted(page.shown_ids()) == [f"item-{i:03d}" for i in range(10, 20)]
    page.page.fill("#filter", "")
    page.page.select_option("#f-passed", "yes")
    assert sorted(page.shown_ids()) == sorted(r.id for r in reports if r.passed)
    page.page.select_option("#f-passed", "")
    page.page.select_option("#f-errors", "with")
    assert page.shown_ids() == ["item-013"]
    page.page.select_option("#f-errors", "without")
    assert len(page.shown_ids()) == 29
    page.page.select_option("#f-errors", "")
    page.page.fill("#f-min", "0.2")
    page.page.fill("#f-max", "0.6")
    want = sorted(r.id for r in reports if r.score is not None and 0.2 <= r.score <= 0.6)
    assert want and sorted(page.shown_ids()) == want
    assert page.page.text_content("#count") == f"{len(want)} of 30 items"


def test_worst_items_come_first_and_columns_sort(page: Page, runs: tuple[Path, Path, Path]) -> None:
    scores = [float(s) for s in page.column(2) if s != "–"]
    assert page.shown_ids()[0] == "item-013"  # no score: it failed, it comes first
    assert scores == sorted(scores)
    header = page.page.locator("#items th[data-key='score']")
    header.click()
    header.click()  # a second click sorts the other way
    assert header.get_attribute("aria-sort") == "descending"
    scores = [float(s) for s in page.column(2) if s != "–"]
    assert scores == sorted(scores, reverse=True)
    page.page.select_option("#sort", "delta")
    deltas = [abs(float(d)) for d in page.column(3) if d != "–"]
    assert deltas == sorted(deltas, reverse=True)


def test_an_item_opens_to_everything_judged(page: Page) -> None:
    page.page.fill("#filter", "item-000")
    page.page.click("#items tbody tr button")
    detail = page.page.locator("#detail")
    assert detail.is_visible()
    assert detail.locator("pre").first.inner_text() == HOSTILE  # shown as text, never run
    assert page.page.title().startswith("rubricjudge report")
    assert detail.locator("h4 + table tbody tr").count() == 4
    for d in detail.locator("details").all():
        d.locator("summary").click()
    text = detail.inner_text()
    assert "Raw judge output" in text and "probabilities" in text
    assert page.page.evaluate("location.hash") == "#item=item-000"
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.page.screenshot(path=str(ARTEFACTS / "report-item.png"), full_page=True)


def test_a_link_to_an_item_opens_it(browser: Any, runs: tuple[Path, Path, Path]) -> None:
    p = Page(browser, runs[2].as_uri() + "#item=item-005")
    try:
        assert p.page.locator("#detail h3").inner_text().startswith("Item item-005")
        assert "escalation" in (p.page.locator("#detail").text_content() or "")
        assert p.errors == []
    finally:
        p.page.close()


def test_a_long_run_draws_a_page_of_rows_at_a_time(browser: Any, long_report: Path) -> None:
    p = Page(browser, long_report.as_uri())
    try:
        assert len(p.shown_ids()) == 250
        p.page.click("#more")
        assert len(p.shown_ids()) == 600 and p.page.locator("#more").is_hidden()
        p.page.fill("#filter", "x059")
        assert sorted(p.shown_ids()) == [f"x{i:04d}" for i in range(590, 600)]
        assert p.errors == []
    finally:
        p.page.close()
