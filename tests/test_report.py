"""`rubricate report`: one self-contained HTML page, checked as text and in headless Chromium.

The browser tests drive Debian's chromium through Playwright (no browser download).
They are skipped when chromium is absent, unless RUBRICATE_REQUIRE_BROWSER is set
(as .ci/run sets it after installing chromium), so CI always runs them.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from rubricate import Criterion, Rubric, RubricDataset
from rubricate._cli.main import main
from rubricate._graders import CriterionGrader
from rubricate._judges._base import JudgeResponse
from rubricate._judges._fake import FakeJudge
from rubricate._runs import evaluate_sync

HOSTILE = "</script><img src=x onerror=\"document.title='pwned'\"><!-- <b>bold</b>"
ARTEFACTS = Path(os.environ.get("RUBRICATE_TEST_ARTEFACTS", "test-artefacts"))


def make_run(run_dir: Path, seed: int, n: int = 30) -> Path:
    rubric = [
        Criterion(name="a", weight=1, requirement="States A"),
        Criterion(name="b", weight=1, requirement="States B"),
        Criterion(name="f", weight=-1, requirement="Commits fault F"),
    ]
    ds = RubricDataset(prompt="q", rubric=Rubric(rubric, pass_threshold=0.5))
    rng = random.Random(seed)
    for i in range(n):
        text = HOSTILE if i == 0 else f"answer number {i} " + "lorem " * (i % 5)
        truth = [rng.choice(["MET", "UNMET"]) for _ in range(3)]
        truth[1] = None if i % 7 == 0 else truth[1]
        ds.add_item(submission=text, ground_truth=truth, id=f"item-{i:03d}")

    def reply(req: Any) -> Any:
        if req.tags.get("evidence"):
            return {"quote": "answer number"}
        p = rng.random()
        ans = "yes" if p > 0.5 else "no"
        return JudgeResponse(
            data={"answer": ans},
            raw_text=ans,
            cost=0.0,
            latency_s=p,
            probabilities={"yes": p, "no": 1 - p},
        )

    grader = CriterionGrader(FakeJudge(default=reply), verdict_method="verdict-only")
    evaluate_sync(ds, grader, run_dir=run_dir)
    return run_dir


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    return make_run(root / "one", 1), make_run(root / "two", 2)


def test_the_page_is_self_contained_and_escapes_user_text(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "r.html"
    assert main(["report", str(runs[0]), "-o", str(out), "--compare", str(runs[1])]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<script src" not in page and "<link" not in page and "@import" not in page
    assert not re.search(r"(src|href)=['\"]https?://", page)  # nothing fetched to open it
    assert HOSTILE not in page and "<img src=x" not in page  # escaped wherever it appears
    for section in ("overview", "criteria", "humans", "compare", "item-list"):
        assert f"id='{section}'" in page
    assert page.count("<svg") >= 4 and "<title>Score distribution</title>" in page
    assert "Reliability diagram" in page and "<h3>Estimates</h3>" in page
    data = re.search(r"<script type='application/json' id='items-data'>(.*?)</script>", page, re.S)
    assert data is not None
    items = json.loads(data.group(1))
    assert len(items) == 30 and items[0]["submission"] == HOSTILE
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)


def test_a_grade_jsonl_with_its_input_shows_submissions(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: a\n  weight: 1\n  requirement: States A\n")
    inp = tmp_path / "in.jsonl"
    inp.write_text(
        "\n".join(json.dumps({"id": f"x{i}", "submission": f"text {i}"}) for i in range(3))
    )
    graded = tmp_path / "graded.jsonl"
    assert main(["grade", str(rubric), str(inp), "--judge", "fake", "-o", str(graded)]) == 0
    out = tmp_path / "r.html"
    args = ["report", str(graded), "-o", str(out), "--submissions", str(inp)]
    assert main(args) == 0
    assert '"submission": "text 2"' in out.read_text(encoding="utf-8")


def test_bad_sources_are_clean_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nope"), "-o", str(tmp_path / "r.html")]) == 1
    assert "neither a run directory nor a JSONL file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"not": "a report"}\n')
    assert main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 1
    assert "line 1: not an EvaluationReport" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_browser = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("RUBRICATE_REQUIRE_BROWSER"),
    reason="Debian's chromium is not installed (.ci/run installs it)",
)


@needs_browser
def test_the_report_works_in_headless_chromium(runs: tuple[Path, Path], tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "RUBRICATE_REQUIRE_BROWSER is set but chromium is missing"
    out = tmp_path / "r.html"
    assert main(["report", str(runs[0]), "-o", str(out), "--compare", str(runs[1])]) == 0
    flags = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=flags)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1800})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(out.as_uri())
            assert errors == []
            assert page.title().startswith("rubricate report")  # the hostile text ran nothing
            plots = page.locator("svg.plot")
            assert plots.count() >= 4
            box = plots.first.bounding_box()
            assert box is not None and box["width"] > 100 and box["height"] > 50
            assert plots.first.locator("path").count() > 5  # bars, not an empty frame
            rows = page.locator("#items tbody tr")
            assert rows.count() == 30
            page.fill("#filter", "item-01")
            assert rows.count() == 10  # item-010 ... item-019
            page.fill("#filter", "")
            page.select_option("#sort", "id")
            rows.first.click()
            detail = page.locator("#detail")
            assert detail.is_visible()
            assert HOSTILE in detail.locator("pre").first.inner_text()  # shown as text
            assert detail.locator("tbody tr").count() == 3
            ARTEFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTEFACTS / "report.png"), full_page=True)
            assert errors == []
        finally:
            browser.close()
