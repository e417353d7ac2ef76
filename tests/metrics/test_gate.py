"""`rubricjudge gate`: a known drop is caught, no drop and noise pass, the false-alarm rate.

The runs are real run directories and `grade` JSONL files, graded through the real
grader and run store by the scripted judge of ``gate_runs.py``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from rubricjudge._cli.main import main
from rubricjudge._metrics._gate import paired_change
from rubricjudge.metrics import GateResult
from rubricjudge.metrics import gate_runs as gate
from tests.support import gate_runs

N = 150
DROP = {"accuracy": -0.3}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("gate")
    return {
        "base": gate_runs.run_dir(d / "base", N, seed=1),
        "noise": gate_runs.run_dir(d / "noise", N, seed=2),
        "drop": gate_runs.run_dir(d / "drop", N, seed=2, shift=DROP),
        "base.jsonl": gate_runs.jsonl(d / "base.jsonl", N, seed=1),
        "drop.jsonl": gate_runs.jsonl(d / "drop.jsonl", N, seed=2, shift=DROP),
        "failing": gate_runs.run_dir(d / "failing", N, seed=2, fail_items=set(range(0, N, 6))),
        "labelled": gate_runs.run_dir(d / "labelled", N, seed=1, labels=True),
        "labelled-drop": gate_runs.run_dir(d / "labelled-drop", N, seed=2, shift=DROP, labels=True),
    }


def _gate(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["gate", *(str(a) for a in args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_known_drop_is_caught(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _gate(capsys, runs["base"], runs["drop"])
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0].startswith("FAIL mean_score: ")
    assert "95% CI" in lines[0] and f"{N} paired items" in lines[0]
    assert "worse beyond max drop 0 (the interval lies below 0)" in lines[0]
    assert lines[1] == f"items: {N} paired by id ({N} in the baseline, {N} in the new run)"
    worst = lines[lines.index("criteria that dropped most (mean credit, 95% CI):") + 1]
    assert worst.split()[0] == "accuracy"  # the criterion whose shift made the drop


def test_the_same_run_against_itself_passes(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for base, new in [("base", "base"), ("base.jsonl", "base.jsonl"), ("base", "base.jsonl")]:
        code, out, _ = _gate(capsys, runs[base], runs[new], "--json")
        data = json.loads(out)
        assert code == 0 and data["verdict"] == "pass"
        assert data["change"] == {"estimate": 0.0, "low": 0.0, "high": 0.0, "n": N}
        assert all(c["change"] == 0.0 for c in data["criteria"])
    code, out, _ = _gate(capsys, runs["base"], runs["base"])
    assert code == 0 and out.startswith("PASS mean_score: ")
    assert "no criterion's mean credit dropped" in out


def test_noise_only_passes(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    for metric in ("mean_score", "pass_rate", "criterion:accuracy"):
        code, out, _ = _gate(capsys, runs["base"], runs["noise"], "--metric", metric, "--json")
        data = json.loads(out)
        assert code == 0, data
        assert data["change"]["low"] < 0 < data["change"]["high"]  # noise, both ways


def test_jsonl_outputs_gate_like_run_directories(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _gate(capsys, runs["base.jsonl"], runs["drop.jsonl"], "--json")
    from_jsonl = json.loads(out)
    code_dirs, out, _ = _gate(capsys, runs["base"], runs["drop"], "--json")
    from_dirs = json.loads(out)
    assert code == code_dirs == 1
    assert from_jsonl["change"] == from_dirs["change"]
    assert from_jsonl["criteria"] == from_dirs["criteria"]


def test_max_drop_allows_a_small_drop(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _gate(capsys, runs["base"], runs["drop"], "--json")
    change = json.loads(out)["change"]
    allowed = round(-change["low"] + 0.01, 2)  # more than the whole interval's worst
    code, out, _ = _gate(capsys, runs["base"], runs["drop"], "--max-drop", allowed)
    assert code == 0 and f"not significantly worse beyond max drop {allowed:g}" in out
    barely = round(-change["high"] - 0.01, 2)  # the whole interval lies below -barely
    code, out, _ = _gate(capsys, runs["base"], runs["drop"], "--max-drop", barely)
    assert code == 1 and f"lies below -{barely:g}" in out


def test_pass_rate_and_criterion_metrics(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _gate(capsys, runs["base"], runs["drop"], "--metric", "pass_rate", "--json")
    data = json.loads(out)
    assert code == 1 and data["metric"] == "pass_rate"
    assert 0 <= data["new"] < data["baseline"] <= 1
    code, out, _ = _gate(capsys, runs["base"], runs["drop"], "--metric", "criterion:accuracy")
    assert code == 1 and out.startswith("FAIL criterion:accuracy: ")
    # the accuracy shift moved nothing else: brief is within noise
    code, _, _ = _gate(capsys, runs["base"], runs["drop"], "--metric", "criterion:brief")
    assert code == 0
    # --pass-threshold replaces the rubric's: at 0 every graded item passes
    code, out, _ = _gate(
        capsys, runs["base"], runs["drop"], "--metric", "pass_rate", "--pass-threshold", "0"
    )
    assert code == 0 and "1.000 -> 1.000" in out


def test_new_failures_fail_the_gate_and_too_few_pairs_are_refused(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    failed = len(range(0, N, 6))
    # judge failures the baseline has not fail the new run (exit 1, named), too few pairs
    # or not: a failure of the new run is never a paired improvement (this passed with
    # --min-coverage 0.8 before issue 32)
    for extra in ((), ("--min-coverage", "0.8")):
        code, out, err = _gate(capsys, runs["base"], runs["failing"], *extra)
        assert code == 1 and err == "" and "Traceback" not in out
        assert out.startswith(f"FAIL mean_score: the judge failed on {failed} items of the new")
        assert "item 'item-000': no criterion could be graded; first error: timeout" in out
        assert (
            f"items: {N - failed} paired by id" in out and f"{failed} failed in the new run" in out
        )
    # failed in both runs: no new failure; too few pairs is refused (exit 2) with the counts
    code, out, err = _gate(capsys, runs["failing"], runs["failing"])
    assert code == 2 and out == ""
    assert f"{N - failed} items have a value in both runs" in err
    assert f"{failed} failed in the baseline" in err
    assert "--min-coverage 0.9" in err and "Traceback" not in err


def test_runs_of_different_items_are_refused(
    tmp_path: Path, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    small = gate_runs.run_dir(tmp_path / "small", 8, seed=1)
    code, _, err = _gate(capsys, small, small)
    assert code == 2 and "8 items have a value in both runs" in err and "--min-pairs 10" in err
    code, _, _ = _gate(capsys, small, small, "--min-pairs", "5")
    assert code == 0
    code, _, err = _gate(capsys, runs["base"], small, "--min-pairs", "5")
    assert code == 2 and f"{N - 8} are not in the new run" in err


def test_bad_usage_exits_2_with_the_fix(
    tmp_path: Path, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base = runs["base"]
    code, _, err = _gate(capsys, base, tmp_path / "missing")
    assert code == 2 and "NEW" in err and "neither a run directory nor a JSONL file" in err
    code, _, err = _gate(capsys, base, base, "--metric", "mean-score")
    assert code == 2 and "did you mean 'mean_score'" in err
    code, _, err = _gate(capsys, base, base, "--metric", "criterion:acuracy")
    assert code == 2 and "did you mean 'criterion:accuracy'" in err
    code, _, err = _gate(capsys, base, base, "--max-drop", "-0.1")
    assert code == 2 and "--max-drop" in err
    code, _, err = _gate(capsys, base, base, "--bootstrap", "10")
    assert code == 2 and "--bootstrap" in err
    code, _, err = _gate(capsys, base, base, "--confidence", "95")
    assert code == 2 and "--confidence" in err
    with pytest.raises(SystemExit) as exit_info:  # argparse: a flag that is not a number
        main(["gate", str(base), str(base), "--max-drop", "a lot"])
    assert exit_info.value.code == 2
    capsys.readouterr()
    dup = tmp_path / "dup.jsonl"
    line = runs["base.jsonl"].read_text().splitlines()[0]
    dup.write_text(line + "\n" + line + "\n")
    code, _, err = _gate(capsys, dup, base)
    assert code == 2 and "share the id 'item-000'" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"score": "high"}\n')
    code, _, err = _gate(capsys, bad, base)
    assert code == 2 and "line 1: not a report" in err


def test_pass_rate_needs_a_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = gate_runs.run_dir(tmp_path / "run", 12, seed=1, pass_threshold=None)
    code, _, err = _gate(capsys, run, run, "--metric", "pass_rate")
    assert code == 2 and "--pass-threshold T" in err
    code, _, _ = _gate(capsys, run, run, "--metric", "pass_rate", "--pass-threshold", "0.5")
    assert code == 0


def test_human_labels_give_the_prediction_powered_change(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _gate(capsys, runs["labelled"], runs["labelled-drop"], "--json")
    data = json.loads(out)
    human = data["human"]
    assert code == 1 and human["n_labelled"] == N
    assert human["high"] < 0  # the humans saw the drop too
    code, out, _ = _gate(capsys, runs["labelled"], runs["labelled-drop"])
    assert "human labels: " in out and f"{N} items labelled in both runs" in out
    # labels on one side only: no estimate, and the output says why
    code, out, _ = _gate(capsys, runs["labelled"], runs["drop"], "--json")
    data = json.loads(out)
    assert data["human"] is None and "only the baseline has human labels" in data["human_note"]
    code, out, _ = _gate(capsys, runs["base"], runs["drop"], "--json")
    assert json.loads(out)["human_note"] is None  # no labels anywhere: nothing to say


def test_github_actions_gets_an_error_annotation(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = _gate(capsys, runs["base"], runs["drop"])
    annotation = out.splitlines()[-1]
    assert code == 1 and annotation.startswith("::error title=rubricjudge gate::FAIL mean_score")
    assert "95%25 CI" in annotation  # '%' escaped as workflow commands need
    code, out, _ = _gate(capsys, runs["base"], runs["noise"])
    assert code == 0 and "::error" not in out


def test_the_library_call_returns_the_result(runs: dict[str, Path]) -> None:
    result = gate(runs["base"], runs["drop"], bootstrap=500, seed=3)
    assert isinstance(result, GateResult) and result.worse
    assert result.change.high < 0 and result.criteria[0].key == "accuracy"
    again = gate(runs["base"], runs["drop"], bootstrap=500, seed=3)
    assert again == result  # seeded: the same interval


# -- the false-alarm rate -------------------------------------------------------------


def _simulated_scores(rng: random.Random, n: int, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """Scores of ``n`` items in two runs: three weighted MET/UNMET criteria per item."""
    weights = np.array([10.0, 5.0, 3.0])
    q = np.array([rng.uniform(0.2, 0.95) for _ in range(n)])
    base = np.array([[rng.random() < p for p in (qi, qi, qi)] for qi in q], dtype=float)
    new = np.array([[rng.random() < p + shift for p in (qi, qi, qi)] for qi in q], dtype=float)
    return base @ weights / weights.sum(), new @ weights / weights.sum()


@pytest.mark.parametrize(("shift", "max_drop"), [(0.0, 0.0), (-0.05, 0.05)])
def test_false_alarm_rate_is_near_nominal(shift: float, max_drop: float) -> None:
    """Runs that are truly no worse than ``-max_drop`` fail about (1 - 0.95) / 2 of the time.

    ``shift`` moves every MET probability, so the true change of the mean score is
    exactly ``shift``: the boundary of the rule. 400 simulated pairs of 100 items.
    """
    rng = random.Random(28)
    sims, alarms = 400, 0
    for k in range(sims):
        base, new = _simulated_scores(rng, 100, shift)
        change = paired_change(base, new, confidence=0.95, bootstrap=1000, seed=k)
        alarms += change.high < -max_drop
    rate = alarms / sims
    # nominal 0.025; 400 draws put a correct rule in [0.01, 0.045] with high probability,
    # an interval half as wide (or twice as wide) far outside it
    assert 0.01 <= rate <= 0.045, rate


def test_t_quantiles_match_scipy() -> None:
    from scipy import stats

    from rubricjudge._metrics._student import expanded_confidence, t_quantile

    for df in (1, 2, 3, 5, 9, 30, 200):
        for p in (0.9, 0.95, 0.975, 0.995):
            tolerance = 1e-9 if df <= 2 else 1e-2 if df < 5 else 2e-3
            assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=tolerance)
    # the expanded level is wider for few items and tends to the level asked for
    assert expanded_confidence(0.95, 10) > expanded_confidence(0.95, 100) > 0.95
    assert expanded_confidence(0.95, 100_000) == pytest.approx(0.95, abs=1e-4)
    assert expanded_confidence(0.95, 1) == 0.95


def test_progress_counts_reading_and_resampling(runs: dict[str, Path]) -> None:
    seen: list[tuple[int, int]] = []
    gate(
        runs["labelled"],
        runs["labelled-drop"],
        bootstrap=300,
        progress=lambda d, t: seen.append((d, t)),
    )
    # reports read, human labels scored (both runs), then the resamples: one total at the end
    assert seen[-1] == (4 * N + 300, 4 * N + 300)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_damaged_run_directories_exit_2_without_a_traceback(
    tmp_path: Path, runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil
    import sqlite3

    from rubricjudge._runs._store import DB_NAME

    bad_report = tmp_path / "bad-report"
    shutil.copytree(runs["base"], bad_report)
    db = sqlite3.connect(bad_report / DB_NAME)
    db.execute("UPDATE items SET report = '{\"score\": \"high\"}' WHERE item_key = 'item-003'")
    db.commit()
    db.close()
    code, _, err = _gate(capsys, bad_report, runs["base"])
    assert code == 2 and "stored report of item 'item-003' cannot be read" in err
    not_a_db = tmp_path / "not-a-db"
    shutil.copytree(runs["base"], not_a_db)
    (not_a_db / DB_NAME).write_bytes(b"garbage" * 100)
    code, _, err = _gate(capsys, runs["base"], not_a_db)
    assert code == 2 and "run store" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("NaN", "'score' is nan"),
        ("-Infinity", "'score' is -inf"),
        ("5.0", "'score' is 5, outside 0 to 1"),
        ('"0.5"', "'score' is str '0.5', not a number"),
    ],
)
def test_a_score_that_is_not_a_score_is_refused_with_its_line(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, why: str
) -> None:
    # NaN and -Infinity counted as N/A (half the scores NaN still passed coverage); 5.0
    # and the text "0.5" were used as they are
    lines = runs["drop.jsonl"].read_text(encoding="utf-8").splitlines()
    for k in range(1, len(lines), 2):  # half the scores
        row = json.loads(lines[k])
        row["score"] = "SCORE"
        lines[k] = json.dumps(row).replace('"SCORE"', value)
    bad = tmp_path / "new.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = _gate(capsys, runs["base.jsonl"], bad)
    assert code == 2, err
    assert f"{bad} line 2:" in err and why in err and "Traceback" not in err
