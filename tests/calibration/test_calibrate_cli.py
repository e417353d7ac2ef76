"""Token probabilities over the wire, and `rubricjudge calibrate` -> grade -> metrics end to end.

The judge is an OpenAI-compatible server on 127.0.0.1 (tests/support/chat_server.py) that
answers with ``logprobs``: a biased judge that says "yes" far too readily, which
a calibration fitted on labelled items must correct on items it never saw.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, CriterionVerdict, Rubric
from rubricjudge._calibration._groups import criterion_id
from rubricjudge._cli.main import main
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._registry import get_judge
from tests.support.calibration_helpers import biased, labelled
from tests.support.chat_server import ChatServer, Reply

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET


def test_openai_judge_reads_confidence_from_logprobs(chat_server: ChatServer) -> None:
    chat_server.handler = biased
    judge = get_judge("openai/test", base_url=chat_server.base_url, cache=False)
    rubric = Rubric([Criterion(name="c", weight=1, requirement="States A")])
    grader = CriterionGrader(judge, verdict_method="verdict-only")
    report = grader.grade_sync(rubric, "A, clearly. [label MET]")
    cr = (report.report or [])[0]
    assert cr.verdict is MET and cr.confidence == pytest.approx(0.85)
    assert cr.probabilities == pytest.approx({"MET": 0.85, "UNMET": 0.15})
    body = chat_server.chat_requests[0].json
    assert body["logprobs"] is True and body["top_logprobs"] == 20


def test_a_server_that_refuses_logprobs_still_judges(chat_server: ChatServer) -> None:
    def refuses(body: Any) -> Reply:
        if body.get("logprobs"):
            return Reply.error(400, "logprobs are not supported with this model")
        return Reply.json({"answer": "yes"})

    chat_server.handler = refuses
    judge = get_judge("openai/nolp", base_url=chat_server.base_url, cache=False)
    rubric = Rubric([Criterion(name="c", weight=1, requirement="States A")])
    grader = CriterionGrader(judge, verdict_method="verdict-only")
    first = (grader.grade_sync(rubric, "A").report or [])[0]
    second = (grader.grade_sync(rubric, "A").report or [])[0]
    assert first.verdict is MET and first.confidence is None and first.error is None
    assert second.verdict is MET
    # the refusal is remembered: the second grade asks without logprobs straight away
    assert [bool(r.json.get("logprobs")) for r in chat_server.chat_requests] == [
        True,
        False,
        False,
    ]


def test_calibrate_then_grade_then_metrics_on_held_out_items(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = biased
    data = labelled(tmp_path)
    cal = tmp_path / "cal.json"
    base = ["--judge", "openai/test", "--base-url", chat_server.base_url]
    method = ["--verdict-method", "verdict-only"]
    code = main(["calibrate", str(data), "--train", "30", "-o", str(cal), *base, *method])
    assert code == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "calibrated openai/test (verdict-only) on 30 items" in err and "pooled:positive" in err
    saved = json.loads(cal.read_text())
    assert saved["judge"] == "openai/test" and len(saved["train_ids"]) == 30
    run = tmp_path / "run"
    args = ["evaluate", str(data), "--run-dir", str(run), "--calibration", str(cal), *base]
    assert main([*args, *method]) == 0
    capsys.readouterr()
    assert main(["metrics", str(run), "--calibration", str(cal), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["excluded_items"] == 30 and out["items_judged"] == 30
    before = out["before_calibration"]["pooled"]["metrics"]["accuracy"]
    after = out["pooled"]["metrics"]["accuracy"]
    assert before < 0.7 < after  # the judge's yes-bias, corrected on items it never saw
    assert main(["metrics", str(run), "--calibration", str(cal)]) == 0
    text = capsys.readouterr().out
    assert "== before calibration" in text and "== after calibration" in text


def test_calibrate_refuses_too_few_labels_or_no_probabilities(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = biased
    data = labelled(tmp_path, n=8)
    cal = tmp_path / "cal.json"
    base = ["--judge", "openai/test", "--base-url", chat_server.base_url]
    assert main(["calibrate", str(data), "--train", "8", "-o", str(cal), *base]) == 1
    err = capsys.readouterr().err
    assert "too few labels to calibrate" in err and "at least 20 labelled answers" in err
    assert not cal.exists()
    assert chat_server.chat_requests == []  # refused from the labels, before grading
    enough = labelled(tmp_path, n=60)
    code = main(["calibrate", str(enough), "--train", "30", "-o", str(cal), "--judge", "fake"])
    assert code == 1
    assert "reported no token probabilities" in capsys.readouterr().err
    ids = tmp_path / "ids.txt"
    ids.write_text("x1\nnope\n")
    assert main(["calibrate", str(data), "--train-ids", str(ids), "-o", str(cal), *base]) == 1
    assert "not in the dataset, e.g. 'nope'" in capsys.readouterr().err


def test_grade_dry_run_estimates_the_cascade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rubricjudge._calibration._groups import Calibration, CalibrationGroup

    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: a\n  weight: 1\n  requirement: States A\n")
    group = CalibrationGroup(
        id="pooled:positive", labels=["MET", "UNMET"], scale=1, bias=[0, 0], n=30
    )
    cal = Calibration(
        judge="fake",
        verdict_method="reason-first",
        groups=[group],
        confidence_shares={"0.70": 0.25},
    )
    path = tmp_path / "cal.json"
    cal.save(path)
    args = ["grade", str(rubric), "--text", "x", "--judge", "fake", "--dry-run"]
    assert main([*args, "--escalate-to", "openai/gpt-4.1-mini", "--calibration", str(path)]) == 0
    err = capsys.readouterr().err
    assert "cascade: about 25% of criteria below confidence 0.7" in err
    assert main([*args, "--escalate-to", "openai/gpt-4.1-mini"]) == 0
    assert "is unknown" in capsys.readouterr().err
    assert main([*args, "--grader", "holistic", "--escalate-to", "openai/x"]) == 1
    assert "--escalate-to work with --grader per-criterion only" in capsys.readouterr().err


def graded_by_number(body: Any) -> Reply:
    """Like ``biased``, but less sure the higher the answer's number: item 1 is the easiest."""
    user = body["messages"][1]["content"]
    if '"quote"' in user:
        return Reply.json({"quote": ""})
    gold = re.search(r"answer (\d+) \[label (MET|UNMET)\]\s*</submission", user)
    n = int(gold.group(1)) if gold else 0
    met = gold is not None and gold.group(2) == "MET"
    p_yes = (0.95 if met else 0.55) - n * 0.004
    return Reply.answer("answer", "yes", {"yes": p_yes, "no": 1 - p_yes})


def test_calibrate_chooses_examples_and_fits_with_them_shown(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = graded_by_number
    data = labelled(tmp_path)
    cal = tmp_path / "cal.json"
    base = ["--judge", "openai/test", "--base-url", chat_server.base_url]
    method = ["--verdict-method", "verdict-only", "--evidence", "off"]
    args = ["calibrate", str(data), "--train", "30", "-o", str(cal), "--examples", "2"]
    assert main([*args, *base, *method]) == 0, capsys.readouterr().err
    assert "examples: 4 labelled answers for 2 criteria" in capsys.readouterr().err
    saved = json.loads(cal.read_text())
    train = sorted(int(i[1:]) for i in saved["train_ids"])
    a = saved["examples"][criterion_id(Criterion(requirement="States A", weight=1))]
    # the hardest answers of each label: P(yes) falls with the number, so the highest-numbered
    # MET answer and the lowest-numbered UNMET one (its P(no) is lowest); "yes"/"no" are the
    # words the judge answers with
    assert a["yes"][0]["output"] == f"answer {max(i for i in train if i % 2)} [label MET]"
    assert a["no"][0]["output"] == f"answer {min(i for i in train if not i % 2)} [label UNMET]"
    assert len(saved["examples"]) == 2
    # two passes over the 30 training items, two criteria each; the second shows examples
    prompts = [r.json["messages"][1]["content"] for r in chat_server.chat_requests]
    assert len(prompts) == 120
    assert sum("Calibration:\n- yes: answer" in p for p in prompts) == 60
    # the fit leaves out each answer shown as its own example
    group, *own = saved["groups"]
    assert group["id"] == "pooled:positive" and group["n"] == 60 - 4
    assert all(g["base"] == "pooled" for g in own)  # each criterion's adjustment on it
    # grading with the calibration shows them; --max-examples 0 hides them
    one = ["grade", str(tmp_path / "r.yaml"), "--text", "answer 99", "--calibration", str(cal)]
    (tmp_path / "r.yaml").write_text(
        "- name: a\n  weight: 1\n  requirement: States A\n"
        "- name: b\n  weight: 1\n  requirement: States B\n"
    )
    assert main([*one, *base, *method]) == 0
    assert main([*one, *base, *method, "--max-examples", "0"]) == 0
    later = [  # the verdict calls (reasons for the UNMET ones are asked apart)
        r
        for r in chat_server.chat_requests[120:]
        if "The grader decided" not in r.json["messages"][1]["content"]
    ]
    assert ["Calibration:" in r.json["messages"][1]["content"] for r in later] == [
        True,
        True,
        False,
        False,
    ]


def test_calibrate_refuses_unlabelled_training_items_before_grading(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 23, N10: all-null labels were graded for minutes, then blamed on the judge
    data = labelled(tmp_path, n=40)
    raw = json.loads(data.read_text())
    for item in raw["items"]:
        item["ground_truth"] = [None, None]
    data.write_text(json.dumps(raw))
    cal = tmp_path / "cal.json"
    base = ["--judge", "openai/test", "--base-url", chat_server.base_url]
    assert main(["calibrate", str(data), "--train", "30", "-o", str(cal), *base]) == 1
    err = capsys.readouterr().err
    assert "training items have no labels (every ground_truth value is null)" in err
    assert "token probabilities" not in err
    assert chat_server.chat_requests == [] and not cal.exists()


def test_calibrate_names_groups_by_criterion_and_says_what_it_skipped(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = biased
    rubric = {
        "format": "rubricjudge/1",
        "name": "r",
        "criteria": [
            {"name": "cause", "requirement": "States A", "weight": 1.0},
            {"name": "myth", "requirement": "States a myth", "weight": -1.0},
        ],
    }
    items = []
    for i in range(30):
        ga = "MET" if i % 2 else "UNMET"
        gm = "MET" if i in (3, 7) else "UNMET"  # two MET penalties: too few to fit
        items.append(
            {"id": f"x{i}", "submission": f"answer {i} [label {ga}]", "ground_truth": [ga, gm]}
        )
    data = tmp_path / "d.json"
    data.write_text(json.dumps({"prompt": "q", "rubric": rubric, "items": items}))
    cal = tmp_path / "cal.json"
    base = ["--judge", "openai/test", "--base-url", chat_server.base_url]
    args = ["calibrate", str(data), "--train", "30", "-o", str(cal), *base]
    assert main([*args, "--verdict-method", "verdict-only"]) == 0
    err = capsys.readouterr().err
    assert "criterion 'cause' (adjustment of the pooled fit)" in err
    assert "criterion:" not in err  # no hashes
    assert "skipped pooled:negative (every penalty): 30 labels {'MET': 2, 'UNMET': 28}" in err
    assert "penalties keep the judge's own verdicts" in err
    assert "no adjustment of their own for 1 criteria" in err and err.rstrip().count("myth")


def test_calibrate_help_states_the_label_rule(capsys: pytest.CaptureFixture[str]) -> None:
    from rubricjudge._calibration._train import (
        MIN_PER_CRITERION,
        MIN_PER_CRITERION_LABEL,
        MIN_PER_LABEL,
        MIN_POOLED,
    )

    with pytest.raises(SystemExit):
        main(["calibrate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"at least {MIN_POOLED} of its labels with at least {MIN_PER_LABEL} of each" in text
    assert f"with {MIN_PER_CRITERION} labels, {MIN_PER_CRITERION_LABEL} of each answer" in text
