"""Relations between criteria: the format, validation, lint, the joint decision and gates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from rubricjudge import ConfigError, Criterion, CriterionGrader, FakeJudge, Rubric, RubricError
from rubricjudge._cli.main import main
from rubricjudge._formats._dump import convert_rubric
from rubricjudge._formats._schema import rubric_json_schema
from rubricjudge._lint._rules import lint_rubric
from rubricjudge._model._relations import MAX_RELATED, decide_related
from rubricjudge._model._reports import CalibrationRecord, CriterionReport
from rubricjudge.errors import JudgeError
from tests.support.chat_server import ChatServer, Reply

MET, UNMET = "MET", "UNMET"

NATIVE = """\
format: rubricjudge/1
criteria:
  - name: answer
    requirement: States the final ionisation energy ordering
    weight: 1
    gate: true
  - name: full
    requirement: Fully explains potential energy against ionisation energy
    weight: 2
  - name: partial
    requirement: Partly explains potential energy against ionisation energy
    weight: 1
  - name: units
    requirement: Gives every energy with its unit
    weight: 1
    gate: {cap: 0.5}
relations:
  - exclusive: [full, partial]
  - implies: {when: full, then: answer}
"""


def _rubric(text: str = NATIVE) -> Rubric:
    return Rubric.from_yaml(text)


def _with(relations: str, criteria: str | None = None) -> str:
    head = NATIVE.split("relations:")[0] if criteria is None else criteria
    return head + "relations:\n" + relations


# -- the format ------------------------------------------------------------------------
def test_native_round_trip_keeps_relations_and_gates() -> None:
    r = _rubric()
    assert r.relations is not None and r.relations[0].exclusive == ["full", "partial"]
    assert r.criteria[0].gate is not None and r.criteria[0].gate.cap == 0.0
    assert r.criteria[3].gate is not None and r.criteria[3].gate.cap == 0.5
    data = r.to_dict()
    assert data["criteria"][0]["gate"] is True  # the shorthand is what is written
    assert data["criteria"][3]["gate"] == {"cap": 0.5}
    assert data["relations"][1] == {"implies": {"when": "full", "then": "answer"}}
    assert Rubric.from_dict(data) == r
    assert Rubric.from_yaml(r.to_yaml()) == r


def test_the_json_schema_describes_relations_and_gates() -> None:
    schema = rubric_json_schema()
    assert "relations" in schema["properties"]
    validator = jsonschema_rs.validator_for(schema)
    assert validator.is_valid(_rubric().to_dict())
    bad = _rubric().to_dict()
    bad["relations"][0] = {"exclusive": ["full", "partial"], "typo": 1}
    assert not validator.is_valid(bad)


@pytest.mark.parametrize(
    ("relations", "expected"),
    [
        ("  - exclusive: [full, nope]\n", "no criterion is named 'nope'"),
        ("  - exclusive: [full]\n", "at least two criteria"),
        ("  - exclusive: [full, full]\n", "names a criterion twice"),
        ("  - implies: {when: full, then: full}\n", "implies itself"),
        (
            "  - exclusive: [full, partial]\n    implies: {when: full, then: answer}\n",
            "exactly one",
        ),
        (
            "  - implies: {when: full, then: partial}\n  - implies: {when: partial, then: full}\n",
            "cycle (full implies partial implies full)",
        ),
        (
            "  - exclusive: [full, partial]\n  - implies: {when: full, then: partial}\n",
            "'full' can never be MET",
        ),
    ],
)
def test_bad_relations_are_refused_with_the_reason(relations: str, expected: str) -> None:
    with pytest.raises(RubricError, match="relations") as err:
        _rubric(_with(relations))
    assert expected in str(err.value)


def test_relations_join_binary_leaves_only() -> None:
    criteria = """\
format: rubricjudge/1
criteria:
  - name: level
    requirement: How well it explains
    options: [{label: none, value: 0}, {label: all, value: 1}]
  - name: parent
    requirement: Has parts
    subcriteria:
      - {name: child, requirement: One part}
  - name: plain
    requirement: Plain check
"""
    with pytest.raises(RubricError, match="'level' has options or a scale"):
        _rubric(_with("  - exclusive: [level, plain]\n", criteria))
    with pytest.raises(RubricError, match="'parent' has subcriteria"):
        _rubric(_with("  - implies: {when: plain, then: parent}\n", criteria))
    assert _rubric(_with("  - implies: {when: plain, then: child}\n", criteria)).relations


def test_a_related_set_larger_than_the_bound_is_refused() -> None:
    names = [f"c{i}" for i in range(MAX_RELATED + 1)]
    criteria = [Criterion(name=n, requirement=f"Check {n}") for n in names]
    chain = [{"implies": {"when": a, "then": b}} for a, b in zip(names, names[1:], strict=False)]
    with pytest.raises(ValueError, match=f"at most {MAX_RELATED}"):
        Rubric(criteria, relations=chain)
    assert Rubric(criteria[:-1], relations=chain[:-1]).relations  # exactly the bound is fine


def test_gates_are_binary_positive_criteria() -> None:
    with pytest.raises(ValueError, match="this criterion is a penalty"):
        Criterion(requirement="States a wrong value", weight=-1, gate=True)
    with pytest.raises(ValueError, match="a gate is decided MET or UNMET"):
        Criterion(
            requirement="Level",
            options=[{"label": "a", "value": 0}, {"label": "b", "value": 1}],
            gate=True,
        )
    with pytest.raises(ValueError, match=r"gate cap 1\.0 is outside"):
        Criterion(requirement="Cap", gate={"cap": 1.0})
    assert Criterion(requirement="Free of faults", weight=0, gate=True).gate is not None


def test_validate_cli_names_the_file_and_the_relation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(_with("  - exclusive: [full, nope]\n"))
    assert main(["validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert str(path) in err and "relations" in out and "'nope'" in out
    assert "Traceback" not in out + err


def test_other_formats_cannot_express_relations_or_gates() -> None:
    for fmt in ("openrubricrl", "dataknobs"):
        with pytest.raises(ConfigError) as err:
            convert_rubric(_rubric(), to=fmt)
        text = str(err.value)
        assert "relations[0] (exclusive: full, partial)" in text
        assert "'answer'" in text and "no gates" in text
    plain = Rubric([Criterion(name="a", requirement="Does a thing", weight=1)])
    convert_rubric(plain, to="openrubricrl")  # no relations: converts as before


# -- lint ------------------------------------------------------------------------------
def test_lint_shows_relations_gates_and_mixed_signs() -> None:
    text = _with(
        "  - exclusive: [full, partial]\n  - exclusive: [answer, wrong]\n",
        NATIVE.split("relations:")[0]
        + "  - name: wrong\n    requirement: States a wrong value for the energy\n"
        "    weight: -1\n",
    )
    findings = [f for f in lint_rubric(_rubric(text)) if f.check == "relations"]
    shown = {(f.severity, f.path) for f in findings}
    assert ("info", "relations[0]") in shown and ("info", "criteria[0].gate") in shown
    assert ("info", "criteria[3].gate") in shown
    warned = [f for f in findings if f.severity == "warning"]
    assert [f.path for f in warned] == ["relations[1]"]
    assert "penalty MET means the fault is present" in warned[0].message


def test_levels_declared_exclusive_are_not_an_overlap() -> None:
    criteria = [
        Criterion(name="full", requirement="Explains how potential energy sets ionisation energy"),
        Criterion(name="partial", requirement="Partly explains how potential energy sets energy"),
    ]
    overlap = [f for f in lint_rubric(Rubric(criteria)) if f.check == "overlap"]
    assert overlap  # without the relation the two read as one criterion twice
    related = Rubric(criteria, relations=[{"exclusive": ["full", "partial"]}])
    assert not [f for f in lint_rubric(related) if f.check == "overlap"]


def test_lint_threshold_counts_the_exclusive_pair() -> None:
    criteria = [
        Criterion(name="full", requirement="Full explanation", weight=2),
        Criterion(name="partial", requirement="Partial explanation", weight=1),
    ]
    base = Rubric(criteria, pass_threshold=0.9)
    assert not [f for f in lint_rubric(base) if f.check == "threshold"]
    related = Rubric(criteria, pass_threshold=0.9, relations=[{"exclusive": ["full", "partial"]}])
    found = [f for f in lint_rubric(related) if f.check == "threshold"]
    assert found and "best achievable score 0.667" in found[0].message


# -- decided together --------------------------------------------------------------------
PAIR = Rubric(
    [
        Criterion(name="full", requirement="Explains it fully", weight=2),
        Criterion(name="partial", requirement="Explains it partly", weight=1),
        Criterion(name="other", requirement="Names the element", weight=1),
    ],
    relations=[{"exclusive": ["full", "partial"]}],
)


def _p_yes(user: str, table: dict[str, float]) -> Reply:
    for text, p in table.items():
        if text in user:
            return Reply.answer("answer", "yes" if p >= 0.5 else "no", {"yes": p, "no": 1 - p})
    raise AssertionError(f"no scripted probability for {user[:200]!r}")


def _grade(chat_server: ChatServer, table: dict[str, float], rubric: Rubric = PAIR) -> Any:
    chat_server.handler = lambda body: _p_yes(body["messages"][1]["content"], table)
    grader = CriterionGrader(
        "openai/test",
        judge_options={"base_url": chat_server.base_url, "cache": False},
        verdict_method="verdict-only",
        evidence="off",
        reasons=False,
    )
    return grader.grade_sync(rubric, "Some answer.")


def test_an_exclusive_pair_is_never_both_met(chat_server: ChatServer) -> None:
    table = {"Explains it fully": 0.7, "Explains it partly": 0.6, "Names the element": 0.9}
    report = _grade(chat_server, table)
    full, partial, other = report.report
    # P(full, not partial) = .7 * .4 = .28 beats P(not full, partial) = .3 * .6 = .18
    assert (full.verdict.value, partial.verdict.value, other.verdict.value) == (MET, UNMET, MET)
    assert partial.relation is not None and partial.relation.changed
    assert partial.relation.raw_verdict.value == MET
    assert partial.relation.p_met == pytest.approx(0.6)
    assert partial.probabilities == pytest.approx({"MET": 0.6, "UNMET": 0.4})  # the judge's own
    assert partial.confidence == pytest.approx(0.4)  # of the verdict that counts
    assert "decided with the relations (exclusive: full, partial)" in partial.notes
    assert full.relation is not None and not full.relation.changed
    assert other.relation is None  # not related to anything
    assert report.score == pytest.approx((2 + 1) / 4)


def test_the_more_probable_member_wins(chat_server: ChatServer) -> None:
    table = {"Explains it fully": 0.55, "Explains it partly": 0.95, "Names the element": 0.2}
    full, partial, _ = _grade(chat_server, table).report
    assert (full.verdict.value, partial.verdict.value) == (UNMET, MET)
    assert full.relation is not None and full.relation.changed


def test_without_the_relation_both_are_met(chat_server: ChatServer) -> None:
    table = {"Explains it fully": 0.7, "Explains it partly": 0.6, "Names the element": 0.9}
    plain = Rubric(PAIR.criteria)
    full, partial, _ = _grade(chat_server, table, plain).report
    assert (full.verdict.value, partial.verdict.value) == (MET, MET)
    assert full.relation is None and partial.relation is None


def test_a_calibration_decides_with_its_probabilities(chat_server: ChatServer) -> None:
    from rubricjudge._calibration._groups import Calibration, CalibrationGroup, criterion_id

    # the judge prefers partial (0.7 against 0.6); the calibration fitted for "full"
    # raises its MET (bias +2 on the logit), so the calibrated joint decision keeps full
    full = PAIR.criteria[0]
    group = CalibrationGroup(
        id=f"criterion:{criterion_id(full)}", labels=["MET", "UNMET"], scale=1, bias=[2, 0], n=40
    )
    cal = Calibration(judge="openai/test", verdict_method="verdict-only", groups=[group])
    chat_server.handler = lambda body: _p_yes(
        body["messages"][1]["content"],
        {"Explains it fully": 0.6, "Explains it partly": 0.7, "Names the element": 0.9},
    )
    options = {"base_url": chat_server.base_url, "cache": False}
    common: dict[str, Any] = {"verdict_method": "verdict-only", "evidence": "off"}
    plain = CriterionGrader("openai/test", judge_options=options, reasons=False, **common)
    got = [r.verdict.value for r in plain.grade_sync(PAIR, "Some answer.").report[:2]]
    assert got == [UNMET, MET]
    calibrated = CriterionGrader(
        "openai/test", judge_options=options, reasons=False, calibration=cal, **common
    )
    full_r, partial_r = calibrated.grade_sync(PAIR, "Some answer.").report[:2]
    assert (full_r.verdict.value, partial_r.verdict.value) == (MET, UNMET)
    assert full_r.relation is not None and full_r.calibration is not None
    assert full_r.relation.p_met == pytest.approx(full_r.calibration.p_calibrated)
    assert full_r.relation.p_met > 0.9
    assert partial_r.relation is not None and partial_r.relation.changed


def _report(name: str, verdict: str, **kw: Any) -> CriterionReport:
    criterion = next(c for c in PAIR.criteria if c.name == name)
    return CriterionReport(criterion=criterion, verdict=verdict, **kw)


def test_the_joint_decision_uses_the_calibrated_probability() -> None:
    # the judge's own probabilities favour partial; the calibration says full is likelier
    full = _report(
        "full",
        MET,
        probabilities={"MET": 0.55, "UNMET": 0.45},
        calibration=CalibrationRecord(raw_verdict=MET, p_calibrated=0.9),
    )
    partial = _report(
        "partial",
        MET,
        probabilities={"MET": 0.8, "UNMET": 0.2},
        calibration=CalibrationRecord(raw_verdict=MET, p_calibrated=0.6),
    )
    out = decide_related(PAIR, [full, partial, _report("other", UNMET)])
    assert [r.verdict.value for r in out] == [MET, UNMET, UNMET]
    assert out[1].relation is not None and out[1].relation.p_met == pytest.approx(0.6)


def test_without_probabilities_the_fewest_and_least_credit_change() -> None:
    out = decide_related(
        PAIR, [_report("full", MET), _report("partial", MET), _report("other", MET)]
    )
    # either verdict could go; the lesser credit (partial, weight 1) is kept MET
    assert [r.verdict.value for r in out] == [UNMET, MET, MET]
    assert out[0].relation is not None and out[0].relation.p_met is None


def test_a_verdict_set_against_its_probability_counts_as_certain() -> None:
    # an evidence check turned full down although the judge said MET at 0.9: that verdict
    # stands, and the relation is satisfied, so nothing changes
    full = _report("full", UNMET, probabilities={"MET": 0.9, "UNMET": 0.1})
    partial = _report("partial", MET, probabilities={"MET": 0.55, "UNMET": 0.45})
    out = decide_related(PAIR, [full, partial, _report("other", MET)])
    assert [r.verdict.value for r in out] == [UNMET, MET, MET]
    assert out[0].relation is not None and out[0].relation.p_met is None
    # and when the relation is broken it is the consistent verdict that gives way
    full = _report("full", MET, probabilities={"MET": 0.3, "UNMET": 0.7})
    partial = _report("partial", MET, probabilities={"MET": 0.9, "UNMET": 0.1})
    out = decide_related(PAIR, [full, partial, _report("other", MET)])
    assert [r.verdict.value for r in out] == [MET, UNMET, MET]


def test_a_failed_or_undecided_member_is_left_alone() -> None:
    failed = _report("full", "CANNOT_ASSESS", error="timeout")
    partial = _report("partial", MET, probabilities={"MET": 0.6, "UNMET": 0.4})
    out = decide_related(PAIR, [failed, partial, _report("other", MET)])
    assert out[0] == failed and out[1].verdict.value == MET
    assert out[1].relation is not None and not out[1].relation.changed


# -- gates -----------------------------------------------------------------------------
def test_a_closed_gate_zeroes_or_caps_the_score() -> None:
    r = _rubric()
    best = {"answer": MET, "full": MET, "partial": UNMET, "units": MET}
    assert r.compute_score(best) == pytest.approx(4 / 5)
    assert r.compute_score({**best, "answer": UNMET}) == 0.0
    assert r.compute_score({**best, "units": UNMET}) == pytest.approx(0.5)  # 3/5 capped at 0.5
    low = {"answer": MET, "full": UNMET, "partial": UNMET, "units": UNMET}
    assert r.compute_score(low) == pytest.approx(0.2)  # under the cap: unchanged
    assert r.compute_score({**best, "answer": UNMET}, normalize=False) == 0.0
    assert r.compute_score({**best, "units": UNMET}, normalize=False) == pytest.approx(2.5)


def test_cannot_assess_on_a_gate_follows_the_strategy() -> None:
    r = _rubric()
    v = {"answer": "CANNOT_ASSESS", "full": UNMET, "partial": MET, "units": MET}
    assert r.compute_score(v) == pytest.approx(2 / 4)  # skipped: the gate stays open
    assert r.compute_score(v, cannot_assess_strategy="partial") == pytest.approx(2.5 / 5)
    assert r.compute_score(v, cannot_assess_strategy="zero") == 0.0
    assert r.compute_score(v, cannot_assess_strategy="fail") == 0.0


def test_a_judge_failure_on_a_gate_is_a_failed_item_not_a_zero() -> None:
    def reply(req: Any) -> Any:
        if "final ionisation energy" in req.user:
            return JudgeError("the judge timed out", category="timeout")
        return {"reason": "r", "verdict": "UNMET" if "Partly" in req.user else "MET"}

    report = _rubric().grade_sync(to_grade="x", grader=CriterionGrader(FakeJudge(default=reply)))
    assert report.score is None
    assert (
        report.error is not None and "gate criterion 'answer' could not be judged" in report.error
    )
    assert "timed out" in report.error


def test_a_gate_judged_unmet_scores_what_the_rubric_says() -> None:
    def reply(req: Any) -> Any:
        if "final ionisation energy" in req.user:
            return {"reason": "r", "verdict": "UNMET"}
        return {"reason": "r", "verdict": "UNMET" if "Partly" in req.user else "MET"}

    report = _rubric().grade_sync(to_grade="x", grader=CriterionGrader(FakeJudge(default=reply)))
    assert report.score == 0.0 and report.error is None
    # full implies answer: with answer UNMET and no probabilities, full is turned down too
    full = report.report[1]
    assert full.verdict.value == UNMET and full.relation is not None and full.relation.changed


def test_score_cli_applies_gates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(NATIVE)
    verdicts = tmp_path / "v.json"
    verdicts.write_text(json.dumps({"answer": MET, "full": MET, "partial": UNMET, "units": UNMET}))
    args = ["score", str(rubric), "--verdicts", str(verdicts), "--json"]
    assert main(args) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(0.5)
