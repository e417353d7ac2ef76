"""The labelling page in a real browser: Debian's chromium, headless, driven by Playwright.

Labels are given with the keyboard only; the server is SIGKILLed between two
labels and started again, and every label the page was told was saved must be in
the dataset file. Hostile text in a submission must stay text. Skipped like the
report's browser tests when chromium is missing outside CI.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import ARTEFACTS, CHROMIUM, FLAGS, needs_chromium
from tests.support.label_helpers import (
    UNSURE,
    LabelServer,
    grade_run,
    labels_on_disk,
    write_conversation_dataset,
    write_dataset,
)
from tests.support.report_runs import HOSTILE

pytestmark = needs_chromium

KEYS = {"cause": "y", "brief": "n", "error": "n", "clarity": "3"}
STORED = {"cause": "MET", "brief": "UNMET", "error": "UNMET", "clarity": "great"}


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    assert CHROMIUM is not None, "CI must have chromium: .ci/run installs Debian's package"
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield ctx
        finally:
            ctx.close()


class Tab:
    """A page with its console errors and the labels the server answered as saved."""

    def __init__(self, context: Any) -> None:
        self.errors: list[str] = []
        self.saved: list[tuple[str, str, str]] = []
        self.page = context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.answered: list[Any] = []
        self.page.on(
            "response", lambda r: self.answered.append(r) if r.url.endswith("/api/labels") else None
        )

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_selector("#item:not([hidden]), #done:not([hidden])")

    def item_id(self) -> str:
        text: str = self.page.text_content("#item-id") or ""
        return text.split(" ")[0]

    def press(self, key: str) -> dict[str, Any]:
        """Press a labelling key and wait for the server's answer (200 = on disk)."""
        with self.page.expect_response(lambda r: r.url.endswith("/api/labels")) as got:
            self.page.keyboard.press(key)
        response = got.value
        assert response.status == 200, response.text()
        body: dict[str, Any] = response.json()
        for name, value in body["saved"].items():
            self.saved.append((body["item_id"], name, value))
        return body

    def type_fast(self, keys: str) -> None:
        """Type labels without waiting between keys, as a quick labeller does."""
        start = len(self.answered)
        self.page.keyboard.type(keys)
        for _ in range(200):
            if len(self.answered) - start >= len(keys):
                break
            self.page.wait_for_timeout(50)
        for response in self.answered[start:]:
            assert response.status == 200, response.text()
            body = response.json()
            for name, value in body["saved"].items():
                self.saved.append((body["item_id"], name, value))

    def next_item(self) -> None:
        before = self.page.text_content("#item-id")
        self.page.keyboard.press("Enter")
        self.page.wait_for_function(
            "b => !document.getElementById('done').hidden"
            " || document.getElementById('item-id').textContent !== b",
            arg=before,
        )

    def label_current(self, start: int = 0) -> None:
        for name in list(KEYS)[start:]:
            self.press(KEYS[name])


def check_saved_on_disk(path: Path, saved: list[tuple[str, str, str]]) -> None:
    on_disk = labels_on_disk(path)  # the loader reads the file: it is whole
    for item_id, name, value in saved:
        assert on_disk[item_id][name] == value, (item_id, name)


def test_keyboard_labels_survive_sigkill_and_restart_continues(
    context: Any, tmp_path: Path
) -> None:
    dataset = tmp_path / "ds.json"
    write_dataset(dataset)
    run = grade_run(dataset, tmp_path / "run")
    args = ("--run-dir", str(run), "--labeller", "ana")
    tab = Tab(context)
    server = LabelServer(dataset, *args).start()
    try:
        tab.open(server.url)
        least_sure = min(UNSURE, key=lambda i: UNSURE[i])
        assert tab.item_id() == f"item-{least_sure:03d}"  # the judge's least sure first
        order = []
        for _ in range(3):
            order.append(tab.item_id())
            assert tab.page.locator(".judge").all_text_contents() == ["", "", "", ""]  # blind
            tab.label_current()
            assert "judge: MET" in (tab.page.text_content("#criteria") or "")  # revealed now
            ARTEFACTS.mkdir(parents=True, exist_ok=True)
            tab.page.screenshot(path=str(ARTEFACTS / "label-page.png"), full_page=True)
            tab.next_item()
        order.append(tab.item_id())
        tab.press("y")
        tab.press("n")
    finally:
        server.kill()  # SIGKILL right after the last answer
    check_saved_on_disk(dataset, tab.saved)
    assert len(tab.saved) == 14

    server = LabelServer(dataset, *args).start()
    try:
        tab.open(server.url)
        assert tab.item_id() == order[3]  # the unfinished item comes back first
        assert tab.page.locator(".opt.chosen").count() == 2  # with its two labels
        focused = tab.page.locator(".crit.focus .req").text_content() or ""
        assert focused.startswith("3.")  # on the first criterion still open
        tab.label_current(start=2)
        tab.press("u")  # undo the last label (clarity)
        assert labels_on_disk(dataset)[order[3]]["clarity"] is None
        tab.saved.pop()
        tab.press("3")
        labelled = 4
        while True:
            tab.next_item()
            if tab.page.is_visible("#done"):
                break
            tab.type_fast("".join(KEYS.values()))  # each key lands on the next criterion
            labelled += 1
        assert labelled == 12
        assert "12 of 12 items labelled by ana" in (tab.page.text_content("#progress") or "")
    finally:
        server.kill()
    check_saved_on_disk(dataset, tab.saved)
    raw = json.loads(dataset.read_text())
    for item in raw["items"]:
        assert item["ground_truth"] == STORED
        assert set(item["metadata"]["human_labels"]["cause"]) == {"ana"}
    assert tab.errors == []


def test_hostile_text_stays_text(context: Any, tmp_path: Path) -> None:
    dataset = tmp_path / "ds.json"
    write_dataset(dataset, n=1)  # item-000: a question and an answer made of HTML
    tab = Tab(context)
    with LabelServer(dataset) as server:
        tab.open(server.url)
        assert tab.page.text_content("#submission pre") == HOSTILE
        assert tab.page.text_content("#query") == HOSTILE
        assert "<b>two</b>" in (tab.page.text_content("#criteria") or "")
        assert tab.page.locator("#submission img, #query img, #criteria b").count() == 0
        assert tab.page.title() == "rubricjudge label"  # no onerror ran
        tab.label_current()
    assert tab.errors == []  # nothing blocked by the CSP either: nothing tried to run


def test_a_hostile_conversation_stays_text(context: Any, tmp_path: Path) -> None:
    dataset = tmp_path / "conv.json"
    write_conversation_dataset(dataset)
    tab = Tab(context)
    with LabelServer(dataset) as server:
        tab.open(server.url)
        heads = tab.page.locator("#submission .msg-head").all_text_contents()
        assert [h.split(" ")[:2] for h in heads] == [
            ["#1", "user"],
            ["#2", "assistant"],
            ["#3", "tool"],
            ["#4", "assistant"],
        ]
        texts = tab.page.locator("#submission pre.text:not(.call)").all_text_contents()
        assert texts == [HOSTILE, HOSTILE, HOSTILE]
        call = tab.page.text_content("#submission pre.call") or ""
        assert call.startswith("tool 1: search(") and "<b>x</b>" in call
        assert tab.page.locator("#submission img, #submission b").count() == 0
        assert tab.page.title() == "rubricjudge label"  # no onerror ran
        tab.label_current()
    assert labels_on_disk(dataset)["conv-0"] == STORED
    assert tab.errors == []


def _char_lefts(page: Any, selector: str, word: str) -> list[float]:
    """Where each character of ``word`` inside ``selector``'s text is drawn (x, left)."""
    lefts: list[float] = page.evaluate(
        """([selector, word]) => {
          const walker = document.createTreeWalker(document.querySelector(selector), 4);
          while (walker.nextNode()) {
            const node = walker.currentNode, at = node.data.indexOf(word);
            if (at < 0) continue;
            return Array.from(word, (_, k) => {
              const r = document.createRange();
              r.setStart(node, at + k);
              r.setEnd(node, at + k + 1);
              return r.getBoundingClientRect().left;
            });
          }
          return [];
        }""",
        [selector, word],
    )
    return lefts


def test_a_right_to_left_override_reverses_nothing(context: Any, tmp_path: Path) -> None:
    from rubricjudge import RubricDataset
    from tests.support.label_helpers import rubric

    dataset = tmp_path / "ds.json"
    ds = RubricDataset(prompt="Why?", rubric=rubric())
    # drawn as written, U+202E would show "abcdef" as "fedcba": the labeller reads
    # text that is not there
    ds.add_item(submission="safe \u202eabcdef tail", id="rlo", query="q \u202eabcdef")
    ds.to_file(dataset)
    tab = Tab(context)
    with LabelServer(dataset) as server:
        tab.open(server.url)
        for selector in ("#submission pre", "#query"):
            lefts = _char_lefts(tab.page, selector, "abcdef")
            assert len(lefts) == 6 and lefts == sorted(lefts), (selector, lefts)
        text = tab.page.text_content("#submission pre") or ""
        assert text == "safe \u27e8U+202E\u27e9abcdef tail"  # the control, shown as a mark
    assert tab.errors == []


def test_the_page_skips_an_id_holding_a_comma(context: Any, tmp_path: Path) -> None:
    from rubricjudge import RubricDataset
    from tests.support.label_helpers import rubric

    dataset = tmp_path / "ds.json"
    ds = RubricDataset(prompt="Why?", rubric=rubric())
    for name in ("x,y", "x", "z"):
        ds.add_item(submission=f"answer {name}", id=name)
    ds.to_file(dataset)
    tab = Tab(context)
    with LabelServer(dataset, "--order", "random") as server:
        tab.open(server.url)
        seen = [tab.item_id()]
        for _ in range(2):
            tab.next_item()  # Enter on an unlabelled item skips it for now
            seen.append(tab.item_id())
        assert sorted(seen) == ["x", "x,y", "z"], seen  # each offered once
    assert tab.errors == []
