"""`rubricjudge report`: the page's content, checked as text (the browser tests are apart)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import RunResult
from rubricjudge._cli.main import main
from rubricjudge._report import _plots
from tests.support.report_runs import HOSTILE, PRICE, ensemble_run, trust_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    return trust_run(root / "trust"), ensemble_run(root / "ensemble")


@pytest.fixture(scope="module")
def page(runs: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("page") / "r.html"
    assert main(["report", str(runs[0]), "-o", str(out), "--compare", str(runs[1])]) == 0
    return out.read_text(encoding="utf-8")


def items_of(page: str) -> dict[str, Any]:
    block = re.search(r"<script type='application/json' id='items-data'>(.*?)</script>", page, re.S)
    assert block is not None
    data: dict[str, Any] = json.loads(block.group(1))
    return data


def reports_of(run_dir: Path) -> dict[str, Any]:
    return {r.id or "": r for r in RunResult.open(run_dir).iter_reports() if r is not None}


def test_the_page_needs_no_network_and_runs_only_its_own_script(page: str) -> None:
    assert not re.search(r"(src|href)\s*=\s*['\"]?(https?:)?//", page)
    assert "<link" not in page and "@import" not in page and "<iframe" not in page
    assert len(re.findall(r"<script", page)) == 2  # the data block and the page's script
    csp = re.search(r"Content-Security-Policy' content=\"([^\"]+)\"", page)
    assert csp is not None and "default-src 'none'" in csp.group(1)
    script = re.search(r"<script>(.*)</script></body>", page, re.S)
    assert script is not None
    digest = base64.b64encode(hashlib.sha256(script.group(1).encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp.group(1)  # only this exact script may run


def test_user_text_is_escaped_everywhere(page: str) -> None:
    assert HOSTILE not in page and "<img" not in page and "<i>$5" not in page
    assert "<b>0." not in page  # the judges' reasons hold <b> tags
    assert "price &lt;i&gt;$5&lt;/i&gt;-$10" in page  # the criterion name, as text
    items = items_of(page)["items"]
    assert items[0]["submission"] == HOSTILE  # intact once the JSON is parsed


def test_sections_and_plots_are_all_there(page: str) -> None:
    for section in ("overview", "criteria", "humans", "compare", "item-list"):
        assert f"<section id='{section}'>" in page
    titles = re.findall(r"<svg role=\"img\" aria-label=\"([^\"]+)\"", page)
    assert {"Score distribution", "Answers per criterion", "Reliability diagram"} <= set(titles)
    assert "Score change per item" in titles
    assert f"Confidence: {PRICE}".replace("<", "&lt;").replace(">", "&gt;") in titles
    assert len(set(re.findall(r'id="([^"]+)"', page))) == len(re.findall(r'id="([^"]+)"', page))


def test_overview_counts_match_the_run(runs: tuple[Path, Path], page: str) -> None:
    reports = list(reports_of(runs[0]).values())
    scores = [r.score for r in reports if r.score is not None]
    passed = [r.passed for r in reports if r.passed is not None]
    assert f"{len(scores)} scored, {len(reports)} graded, 30 in the run" in page
    rate = f"{sum(passed) / len(passed):.1%} of {len(passed)} items with a pass_threshold (0.5)"
    assert rate in page
    calls = sum(r.judge_calls for r in reports)
    assert f"{calls:,} (0 from the response cache)" in page
    assert "server: 4" in page  # item-013's four criteria: the server failed every judge
    # the plot's numbers in words, for screen readers
    assert f"<title>Score distribution</title><desc>{len(scores)} values; " in page


def test_failures_are_errors_never_verdicts(page: str) -> None:
    item = next(it for it in items_of(page)["items"] if it["id"] == "item-013")
    assert item["errors"] == 4 and item["score"] is None
    for c in item["crit"]:
        assert c["ans"] == "error" and c["cat"] == "server"
        assert "policy" in c  # what the failure policy filled in, kept apart


def test_every_trust_field_reaches_the_item_view(runs: tuple[Path, Path], page: str) -> None:
    crits = [c for it in items_of(page)["items"] for c in it["crit"]]
    escalated = [c for c in crits if "escalation" in c]
    assert escalated and all(c["escalation"]["first"]["judge_id"] == "cheap" for c in escalated)
    assert any(c.get("calibration", {}).get("changed") for c in crits)
    assert any("evidence" in c and not c["evidence"]["found"] for c in crits)
    assert all(0.0 <= c["conf"] <= 1.0 and c["probs"] for c in crits if c["ans"] != "error")
    # raw answers from the run store, the second judge's included
    judges = {call["judge"] for c in crits for call in c.get("raw", [])}
    assert judges == {"cheap", "strong"}
    reports = reports_of(runs[0])
    for it in items_of(page)["items"]:
        for c, cr in zip(it["crit"], reports[it["id"]].report or [], strict=True):
            assert c.get("conf") == cr.confidence
            assert (c.get("escalation") is None) == (cr.escalation is None)


def test_ensemble_votes_and_agreement(runs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "e.html"
    assert main(["report", str(runs[1]), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    crits = [c for it in items_of(page)["items"] for c in it["crit"]]
    assert all(len(c["votes"]) == 3 for c in crits)
    assert all({v["judge_id"] for v in c["votes"]} == {"j0", "j1", "j2"} for c in crits)
    assert "Krippendorff&#x27;s alpha" in page  # the judges' agreement with each other
    split = sum(1 for c in crits if c["agree"] < 1.0)
    assert split == sum(it["split"] for it in items_of(page)["items"]) > 0


def test_against_people(runs: tuple[Path, Path], page: str) -> None:
    from rubricjudge import RubricDataset, compute_metrics

    ds = RubricDataset.from_file(runs[0] / "dataset.jsonl")
    m = compute_metrics(RunResult.open(runs[0]), ds, bootstrap=200, seed=0)
    for c in m.criteria:
        acc, (lo, hi) = c.metrics["accuracy"], c.intervals["accuracy"]
        assert f"{acc:.3f} [{lo:.3f}, {hi:.3f}]" in page
    assert page.count("<table class='confusion'>") == len(m.criteria)
    for kind in ("naive", "human", "ppi"):
        assert f"mean score: {kind}" in page
    ppi = m.estimates["mean_score"]["ppi"]
    assert f"{ppi.estimate:.3f}" in page


def test_compare_measures_this_run_minus_the_other(runs: tuple[Path, Path], page: str) -> None:
    here, there = reports_of(runs[0]), reports_of(runs[1])
    items = {it["id"]: it for it in items_of(page)["items"]}
    both = [i for i in here if here[i].score is not None and there[i].score is not None]
    assert both and len(both) < len(here)  # item-013 has no score here
    for i in both:
        assert items[i]["delta"] == pytest.approx(here[i].score - there[i].score)
    assert "delta" not in items["item-013"]
    assert "30 items in both runs (matched by id), 0 only in this run, 0 only in the other" in page


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
    assert main(["report", str(graded), "-o", str(out), "--submissions", str(inp)]) == 0
    items = items_of(out.read_text(encoding="utf-8"))["items"]
    assert [it["submission"] for it in items] == ["text 0", "text 1", "text 2"]
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "neither a run directory nor a JSONL file"),
        (["bad.jsonl"], "bad.jsonl line 2: not a report of `rubricjudge grade` (not:"),
        (["good.jsonl", "--compare", "nope"], "--compare 'nope' is neither"),
        (["good.jsonl", "--submissions", "nope.jsonl"], "--submissions nope.jsonl: cannot read"),
        (["good.jsonl", "-o", "missing/r.html"], "-o missing/r.html: the directory"),
        (["empty.jsonl"], "empty.jsonl holds no reports"),
    ],
)
def test_bad_input_is_a_clean_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    good = json.dumps({"id": "a", "score": 0.5})
    Path("good.jsonl").write_text(good + "\n")
    Path("bad.jsonl").write_text(good + '\n{"not": "a report"}\n')
    Path("empty.jsonl").write_text("\n")
    if "-o" not in args:
        args = [*args, "-o", "r.html"]
    assert main(["report", *args]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not Path("r.html").exists()


def test_missing_matplotlib_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "g.jsonl"
    src.write_text(json.dumps({"id": "a", "score": 0.5}) + "\n")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # what an install without it sees
    assert main(["report", str(src), "-o", str(tmp_path / "r.html")]) == 1
    assert "pip install 'rubricjudge[report]'" in capsys.readouterr().err


def test_drawing_leaves_the_callers_matplotlib_alone(tmp_path: Path) -> None:
    import matplotlib

    before = (matplotlib.get_backend(), dict(matplotlib.rcParams))
    rows = [("a $x$ <b>", [("MET", 2), ("opt $1$", 1)], ["opt $1$", "opt $2$"])]
    svg = _plots.answer_bars(rows, title="t", key="k")
    assert (matplotlib.get_backend(), dict(matplotlib.rcParams)) == before
    assert "a $x$ &lt;b&gt;" in svg and "opt $1$" in svg  # text, not mathtext or markup


def test_a_run_without_its_dataset_copy_still_reports(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    import shutil

    bare = tmp_path / "bare"
    shutil.copytree(runs[0], bare)
    (bare / "dataset.jsonl").unlink()
    out = tmp_path / "r.html"
    assert main(["report", str(bare), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<section id='humans'>" not in page  # no labels without the dataset
    items = items_of(page)["items"]
    assert [it["id"] for it in items] == [f"item-{i:03d}" for i in range(30)]
    assert all("raw" in c for it in items if it["id"] != "item-013" for c in it["crit"])


def test_compare_counts_changed_answers_per_criterion_key(
    runs: tuple[Path, Path], page: str, tmp_path: Path
) -> None:
    from rubricjudge._report._html import answer_of

    here, there = reports_of(runs[0]), reports_of(runs[1])
    changed, items = 0, set()
    for i, a in here.items():
        for x, y in zip(a.report or [], there[i].report or [], strict=True):
            if answer_of(x) != answer_of(y):
                changed, items = changed + 1, items | {i}
    assert f"{changed} answers changed on {len(items)} items" in page
    # the other run judged only "clarity": nothing else is paired with it by position
    other = tmp_path / "other.jsonl"
    with other.open("w") as f:
        for r in there.values():
            last = (r.report or [])[-1]
            f.write(json.dumps(r.model_copy(update={"report": [last]}).to_jsonable()) + "\n")
    out = tmp_path / "c.html"
    assert main(["report", str(runs[0]), "-o", str(out), "--compare", str(other)]) == 0
    section = out.read_text(encoding="utf-8").split("<section id='compare'>")[1]
    section = section.split("</section>")[0]
    assert "<th scope='row'>clarity</th>" in section and "<th scope='row'>cause</th>" not in section


def test_a_max_items_run_shows_only_the_items_it_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 23: 3 graded items of 223 made a 1.5 MB page of 220 "not graded" errors
    run = tmp_path / "run"
    args = ["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--run-dir", str(run)]
    assert main([*args, "--max-items", "3"]) == 0
    out = tmp_path / "r.html"
    assert main(["report", str(run), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    items = items_of(page)["items"]
    assert len(items) == 3 and not any(it.get("error") for it in items)
    assert "not reached" in page and "220 items of the dataset, never graded" in page
    assert len(page) < 400_000


def test_a_right_to_left_override_is_shown_not_obeyed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rubricjudge import RubricDataset
    from rubricjudge._cli.main import main
    from tests.support.report_runs import rubric

    ds = RubricDataset(prompt="Why?", rubric=rubric())
    ds.add_item(submission="safe \u202eabcdef", id="rlo \u202eid")
    data, run, html = tmp_path / "ds.json", tmp_path / "run", tmp_path / "r.html"
    ds.to_file(data)
    assert main(["evaluate", str(data), "--judge", "fake", "--run-dir", str(run)]) == 0
    assert main(["report", str(run), "-o", str(html)]) == 0, capsys.readouterr().err
    page = html.read_text(encoding="utf-8")
    assert "\u202e" not in page  # drawn, it would reverse "abcdef" on the page
    assert "safe \u27e8U+202E\u27e9abcdef" in page and "rlo \u27e8U+202E\u27e9id" in page
