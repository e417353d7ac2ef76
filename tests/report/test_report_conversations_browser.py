"""Conversations on pages, in real Chromium: the report's item view and ``render_for_page``.

Like ``test_report_browser.py``: Debian's chromium driven by Playwright, no browser
download; skipped only when chromium is missing outside CI.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Rubric, RubricDataset
from rubricjudge._cli.main import main
from rubricjudge.conversations import PAGE_CSS, render_for_page
from tests.support.browser import ARTEFACTS, CHROMIUM, FLAGS, Page, needs_chromium
from tests.support.trajectories import OPENAI, SECRET_ARGUMENT, SECRET_RESULT

EXAMPLES = Path(__file__).parents[2] / "examples"
HOSTILE = "<script>document.title='owned'</script><img src=x onerror=\"document.title='owned'\">"

pytestmark = needs_chromium


def _dataset() -> RubricDataset:
    rubric = Rubric.from_file(EXAMPLES / "tau_bench" / "airline_agent.yaml")
    ds = RubricDataset(prompt="Help the airline customer.", rubric=rubric)
    hostile = [dict(m) for m in OPENAI]
    hostile[-1] = {"role": "assistant", "content": "Booked. " + HOSTILE}
    ds.add_item(submission=hostile, id="hostile")
    for line in (EXAMPLES / "tau_bench" / "trajectories.jsonl").read_text().splitlines()[:2]:
        row = json.loads(line)
        ds.add_item(submission=row["messages"], id=row["id"])
    ds.add_item(submission="plain text answer", id="text")
    return ds


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("conv")
    data = root / "d.jsonl"
    _dataset().to_file(data)
    run, out = root / "run", root / "report.html"
    args = ["evaluate", str(data), "--judge", "fake", "--run-dir", str(run)]
    # exit 1: conversations that do not fit even elided fail their criteria (over_budget),
    # and an item whose judge failed on a weighted criterion has no score (a failed item)
    assert main([*args, "--over-budget", "elide", "--conversation-budget", "150"]) == 1
    assert main(["report", str(run), "-o", str(out)]) == 0
    fragment = root / "fragment.html"
    notes = {2: ["polite: MET", HOSTILE]}
    body = render_for_page(_dataset().items[0].submission, turn_notes=notes)
    text = render_for_page("a <b>plain</b> answer")
    fragment.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>fragment</title>"
        f"<style>{PAGE_CSS}</style></head><body>{body}{text}</body></html>",
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="module")
def browser(report: Path) -> Iterator[Any]:
    assert CHROMIUM is not None
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        context = b.new_context(viewport={"width": 1280, "height": 1000})
        try:
            yield context
        finally:
            context.close()
            b.close()


def test_a_conversation_item_shows_turns_folded_calls_and_per_turn_verdicts(
    browser: Any, report: Path
) -> None:
    p = Page(browser, (report / "report.html").as_uri() + "#item=hostile")
    try:
        detail = p.page.locator("#detail")
        assert detail.locator("h4", has_text="Conversation (11 messages)").count() == 1
        messages = detail.locator("ol.conv > li")
        assert messages.count() == 11
        roles = messages.evaluate_all("els => els.map(e => e.className)")
        assert roles[:4] == ["msg system", "msg user", "msg assistant", "msg tool"]
        call = detail.locator("details.call").first
        assert call.locator("summary").inner_text() == "calls tool 1: get_user_details"
        assert not call.evaluate("d => d.open")  # folded until clicked
        args = detail.locator("details.call").nth(2)
        assert not args.locator("pre").is_visible()
        args.locator("summary").click()
        assert SECRET_ARGUMENT in args.locator("pre").inner_text()
        result = detail.locator("details.result").first
        result.locator("summary").click()
        assert SECRET_RESULT in result.locator("pre").inner_text()
        # per-turn verdicts sit under the last message of each assistant turn
        verdicts = detail.locator("ul.verdicts")
        assert verdicts.count() == 2
        first = verdicts.nth(0).inner_text()
        assert "no_invented_facts: " in first
        assert detail.locator("table.turns tbody tr").count() == 2
        last = messages.nth(10)
        assert HOSTILE in last.locator(".text").inner_text()  # shown as text, never run
        assert p.page.title().startswith("rubricjudge report")
        usage = detail.locator("table.kv").first.inner_text()
        assert "conversation shown" in usage and "turns elided" in usage and "budget 150" in usage
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        p.page.screenshot(path=str(ARTEFACTS / "report-conversation.png"), full_page=True)
        # a text item keeps the plain submission view
        p.page.click("#items tbody tr[data-id='text'] button")
        assert p.page.locator("#detail pre").first.inner_text() == "plain text answer"
        assert p.page.locator("#detail ol.conv").count() == 0
        # the item table's filter finds text inside a tool result
        p.page.fill("#filter", "platinum-7731")
        assert p.shown_ids() == ["hostile"]
        assert p.errors == []
    finally:
        p.page.close()


def test_render_for_page_is_escaped_and_folds_tool_calls(browser: Any, report: Path) -> None:
    p = Page(browser, (report / "fragment.html").as_uri())
    try:
        assert p.page.title() == "fragment"
        conv = p.page.locator("ol.rj-conversation > li")
        assert conv.count() == 11
        assert conv.nth(2).locator("details.rj-call summary").inner_text() == (
            "calls tool 1: get_user_details"
        )
        assert not conv.nth(2).locator("details.rj-call pre").is_visible()
        notes = p.page.locator("ul.rj-notes li").all_inner_texts()
        assert notes == ["polite: MET", HOSTILE]
        assert HOSTILE in conv.nth(10).inner_text()
        assert p.page.locator("img").count() == 0 and p.page.locator("script").count() == 0
        assert p.page.locator("pre.rj-text").inner_text() == "a <b>plain</b> answer"
        border = conv.nth(1).evaluate("e => getComputedStyle(e).borderLeftStyle")
        assert border == "solid"  # PAGE_CSS applies
        assert p.errors == []
    finally:
        p.page.close()
