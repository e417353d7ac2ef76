"""Confidence, calibration, evidence checks and the cascade, through the real grader path.

The fake judge returns scripted :class:`JudgeResponse` objects here, so each test
controls the token probabilities a backend would report.
"""

from __future__ import annotations

from typing import Any

import pytest

from rubricjudge import (
    ConfigError,
    Criterion,
    CriterionVerdict,
    JudgeError,
    Rubric,
)
from rubricjudge._calibration._groups import Calibration, CalibrationGroup
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest, JudgeResponse
from rubricjudge._judges._fake import FakeJudge
from tests.support.helpers import LEVELS, sky_rubric

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


def resp(data: dict[str, Any], probs: dict[str, float] | None = None) -> JudgeResponse:
    return JudgeResponse(data=data, raw_text=str(data), cost=0.0, probabilities=probs)


def by_kind(answers: dict[str, Any], *, name: str = "fake") -> FakeJudge:
    """Answer by criterion key, or by 'quote' for evidence requests."""

    def reply(req: JudgeRequest) -> Any:
        if req.tags.get("evidence"):
            return answers["quote:" + str(req.tags["key"])]
        return answers[str(req.tags["key"])]

    return FakeJudge(default=reply, name=name)


@pytest.fixture
def rubric() -> Rubric:
    return sky_rubric()


SUB = "Air molecules scatter blue light more than red light (Rayleigh scattering)."


async def test_confidence_is_the_probability_of_the_chosen_answer(rubric: Rubric) -> None:
    judge = by_kind(
        {
            "cause": resp({"verdict": "MET"}, {"MET": 0.6, "UNMET": 0.3, "CANNOT_ASSESS": 0.1}),
            "myth": resp({"verdict": "ABSENT"}, {"PRESENT": 0.2, "ABSENT": 0.8}),
            "clarity": resp({"option": 3}, {"1": 0.1, "2": 0.2, "3": 0.7}),
        }
    )
    report = await CriterionGrader(judge, verdict_method="verdict-only").grade(rubric, SUB)
    cause, myth, clarity = report.report or []
    assert cause.verdict is MET and cause.confidence == pytest.approx(0.6)
    assert myth.verdict is UNMET and myth.confidence == pytest.approx(0.8)
    # PRESENT/ABSENT are reported with the seeds' meaning: MET = the fault is there
    assert myth.probabilities == pytest.approx({"MET": 0.2, "UNMET": 0.8})
    assert clarity.selection is not None and clarity.selection.label == "great"
    assert clarity.confidence == pytest.approx(0.7)
    assert clarity.probabilities == pytest.approx({"poor": 0.1, "fair": 0.2, "great": 0.7})


async def test_no_probabilities_means_no_confidence(rubric: Rubric) -> None:
    judge = by_kind(
        {
            "cause": {"reason": "says so", "verdict": "MET"},
            "myth": {"reason": "no", "verdict": "ABSENT"},
            "clarity": {"reason": "ok", "option": 2},
        }
    )
    report = await CriterionGrader(judge).grade(rubric, SUB)
    assert all(r.confidence is None and r.probabilities is None for r in report.report or [])


async def test_shuffled_options_map_probabilities_back_to_labels(rubric: Rubric) -> None:
    judge = by_kind(
        {
            "cause": resp({"verdict": "MET"}),
            "myth": resp({"verdict": "ABSENT"}),
            # shown position 1 gets 0.7: whichever option was shown first
            "clarity": resp({"option": 1}, {"1": 0.7, "2": 0.2, "3": 0.1}),
        }
    )
    grader = CriterionGrader(judge, shuffle_options=True, seed=3)
    report = await grader.grade(rubric, SUB, item_id="x")
    clarity = (report.report or [])[2]
    assert clarity.shuffle_order is not None and clarity.selection is not None
    first = LEVELS[clarity.shuffle_order[0]].label
    assert clarity.selection.label == first
    assert clarity.probabilities is not None and clarity.probabilities[first] == pytest.approx(0.7)


async def test_request_names_the_decision_and_layout(rubric: Rubric) -> None:
    judge = FakeJudge()
    await CriterionGrader(judge, verdict_method="verdict-first").grade(rubric, SUB)
    by_key = {r.tags["key"]: r for r in judge.requests if not r.tags.get("evidence")}
    myth = by_key["myth"]
    assert myth.decision is not None and myth.decision.key == "answer"
    assert myth.decision.values == ("yes", "no")
    assert list(myth.schema["properties"]) == ["answer", "reason"]
    assert myth.schema["properties"]["reason"]["maxLength"] == 300
    clarity = by_key["clarity"]
    assert clarity.decision is not None and clarity.decision.values == (1, 2, 3)
    judge = FakeJudge()
    await CriterionGrader(judge, verdict_method="verdict-only").grade(rubric, SUB)
    asked = [r for r in judge.requests if not r.tags.get("evidence")]
    assert all(list(r.schema["properties"]) in (["answer"], ["option"]) for r in asked)
    with pytest.raises(ConfigError, match="verdict_method 'reasons' is not one of"):
        CriterionGrader(judge, verdict_method="reasons")


def _calibration(judge: str = "fake", method: str = "verdict-only") -> Calibration:
    # Pushes towards MET: a judge's 0.4 MET becomes about 0.73 MET.
    group = CalibrationGroup(
        id="pooled:positive", labels=["MET", "UNMET"], scale=1.0, bias=[0.7, -0.7], n=50
    )
    return Calibration(judge=judge, verdict_method=method, groups=[group])


async def test_calibration_redecides_and_keeps_the_raw_answer(rubric: Rubric) -> None:
    judge = by_kind(
        {
            "cause": resp({"verdict": "UNMET"}, {"MET": 0.4, "UNMET": 0.6}),
            "myth": resp({"verdict": "ABSENT"}, {"PRESENT": 0.1, "ABSENT": 0.9}),
            "clarity": resp({"option": 2}, {"1": 0.2, "2": 0.6, "3": 0.2}),
        }
    )
    grader = CriterionGrader(judge, verdict_method="verdict-only", calibration=_calibration())
    report = await grader.grade(rubric, SUB)
    cause, myth, clarity = report.report or []
    assert cause.verdict is MET
    assert cause.calibration is not None and cause.calibration.raw_verdict is UNMET
    assert cause.calibration.changed and cause.calibration.p_calibrated == pytest.approx(
        1 / (1 + (0.6 / 0.4) * 2.718281828**-1.4), rel=1e-6
    )
    assert cause.confidence == pytest.approx(cause.calibration.p_calibrated)
    assert cause.probabilities == pytest.approx({"MET": 0.4, "UNMET": 0.6})  # the judge's own
    # no group for penalties or these options: left as the judge answered
    assert myth.calibration is None and clarity.calibration is None


async def test_calibration_for_another_judge_or_layout_is_refused(
    rubric: Rubric, tmp_path: Any
) -> None:
    judge = by_kind({"cause": resp({"verdict": "MET"}, {"MET": 0.9, "UNMET": 0.1})})
    one = Rubric([rubric.criteria[0]])
    with pytest.raises(ConfigError, match="fitted for the judge 'local'"):
        await CriterionGrader(judge, calibration=_calibration(judge="local")).grade(one, SUB)
    grader = CriterionGrader(judge, verdict_method="reason-first", calibration=_calibration())
    with pytest.raises(ConfigError, match="--verdict-method verdict-only"):
        await grader.grade(one, SUB)
    path = tmp_path / "cal.json"
    _calibration().save(path)
    loaded = CriterionGrader(judge, verdict_method="verdict-only", calibration=str(path))
    assert (await loaded.grade(one, SUB)).score == 1.0


async def test_a_met_penalty_with_a_real_quote_stands(rubric: Rubric) -> None:
    judge = by_kind(
        {
            "cause": resp({"verdict": "UNMET"}),
            "myth": resp({"verdict": "PRESENT"}),
            "quote:myth": {"quote": "It REFLECTS the   ocean"},
            "clarity": resp({"option": 1}),
        }
    )
    report = await CriterionGrader(judge, verdict_method="verdict-only", reasons=False).grade(
        rubric, "The sky is blue: it reflects the ocean."
    )
    myth = (report.report or [])[1]
    assert myth.verdict is MET
    check = myth.evidence_check
    assert check is not None and check.found and check.similarity == 1.0
    assert check.action == "kept" and report.judge_calls == 4


async def test_an_invented_quote_downgrades_the_penalty(rubric: Rubric) -> None:
    judge = by_kind(
        {
            "cause": resp({"verdict": "MET"}),
            "myth": resp({"verdict": "PRESENT"}),
            "quote:myth": {"quote": "the sky mirrors the sea"},
            "clarity": resp({"option": 3}),
        }
    )
    report = await CriterionGrader(judge, verdict_method="verdict-only").grade(rubric, SUB)
    myth = (report.report or [])[1]
    assert myth.verdict is UNMET
    assert myth.evidence_check is not None and not myth.evidence_check.found
    assert myth.evidence_check.raw_verdict is MET
    assert myth.evidence_check.action == "downgraded"
    assert report.score == 1.0
    # record-only policy keeps the verdict
    judge2 = by_kind(
        {
            "cause": resp({"verdict": "MET"}),
            "myth": resp({"verdict": "PRESENT"}),
            "quote:myth": {"quote": ""},
            "clarity": resp({"option": 3}),
        }
    )
    grader = CriterionGrader(judge2, verdict_method="verdict-only", evidence_policy="record")
    myth2 = ((await grader.grade(rubric, SUB)).report or [])[1]
    assert myth2.verdict is MET and myth2.evidence_check is not None
    assert not myth2.evidence_check.found and myth2.evidence_check.action == "kept"


async def test_a_failed_quote_call_never_decides_the_verdict(rubric: Rubric) -> None:
    judge = by_kind(
        {
            "cause": resp({"verdict": "MET"}),
            "myth": resp({"verdict": "PRESENT"}),
            "quote:myth": JudgeError("boom", category="server"),
            "clarity": resp({"option": 3}),
        }
    )
    myth = ((await CriterionGrader(judge).grade(rubric, SUB)).report or [])[1]
    assert myth.verdict is MET and myth.evidence_check is not None
    assert myth.evidence_check.action.startswith("unchecked")


async def test_evidence_on_positive_criteria_is_opt_in(rubric: Rubric) -> None:
    answers = {
        "cause": resp({"verdict": "MET"}),
        "quote:cause": {"quote": "Names Rayleigh scattering"},  # the criterion, not the answer
        "myth": resp({"verdict": "ABSENT"}),
        "clarity": resp({"option": 3}),
    }
    default = (await CriterionGrader(by_kind(answers)).grade(rubric, SUB)).report or []
    assert default[0].verdict is MET and default[0].evidence_check is None
    strict = CriterionGrader(by_kind(answers), evidence="all")
    cause = ((await strict.grade(rubric, "The sky is blue.")).report or [])[0]
    assert cause.verdict is UNMET and cause.evidence_check is not None


async def test_cascade_reasks_only_unsure_answers(rubric: Rubric) -> None:
    cheap = by_kind(
        {
            "cause": resp({"verdict": "UNMET"}, {"MET": 0.45, "UNMET": 0.55}),
            "myth": resp({"verdict": "ABSENT"}, {"PRESENT": 0.05, "ABSENT": 0.95}),
            "clarity": resp({"option": 2}, {"1": 0.1, "2": 0.8, "3": 0.1}),
        },
        name="cheap",
    )
    strong = by_kind({"cause": resp({"verdict": "MET"}, {"MET": 0.99, "UNMET": 0.01})}, name="big")
    grader = CriterionGrader(cheap, escalate_to=strong, below_confidence=0.7)
    report = await grader.grade(rubric, SUB)
    cause, myth, clarity = report.report or []
    assert [r.tags["key"] for r in strong.requests] == ["cause"]
    assert cause.verdict is MET and cause.escalation is not None
    assert cause.escalation.counted == "second"
    assert cause.escalation.first.verdict is UNMET
    assert cause.escalation.first.confidence == pytest.approx(0.55)
    assert cause.escalation.second is not None and cause.escalation.second.judge_id == "big"
    assert myth.escalation is None and clarity.escalation is None
    assert report.judge_calls == 4


async def test_cascade_keeps_the_first_answer_when_the_second_fails(rubric: Rubric) -> None:
    cheap = by_kind(
        {
            "cause": resp({"verdict": "UNMET"}, {"MET": 0.45, "UNMET": 0.55}),
            "myth": resp({"verdict": "ABSENT"}, {"PRESENT": 0.05, "ABSENT": 0.95}),
            "clarity": resp({"option": 2}, {"1": 0.1, "2": 0.8, "3": 0.1}),
        }
    )
    strong = FakeJudge(default=JudgeError("rate limited", category="rate_limit"), name="big")
    report = await CriterionGrader(cheap, escalate_to=strong).grade(rubric, SUB)
    cause = (report.report or [])[0]
    assert cause.verdict is UNMET and cause.error is None
    assert cause.escalation is not None and cause.escalation.counted == "first"
    assert cause.escalation.second is not None and "rate limited" in (
        cause.escalation.second.error or ""
    )


async def test_ensemble_reports_mean_probability_beside_agreement() -> None:
    crit = Rubric([Criterion(name="cause", weight=1, requirement="Names Rayleigh scattering")])
    a = by_kind({"cause": resp({"verdict": "MET"}, {"MET": 0.9, "UNMET": 0.1})}, name="a")
    b = by_kind({"cause": resp({"verdict": "MET"}, {"MET": 0.7, "UNMET": 0.3})}, name="b")
    c = by_kind({"cause": resp({"verdict": "UNMET"}, {"MET": 0.2, "UNMET": 0.8})}, name="c")
    report = await CriterionGrader(judges=[a, b, c]).grade(crit, SUB)
    cr = (report.report or [])[0]
    assert cr.verdict is MET and cr.agreement == pytest.approx(2 / 3)
    assert cr.confidence == pytest.approx((0.9 + 0.7 + 0.2) / 3)
    assert [v.confidence for v in cr.votes or []] == pytest.approx([0.9, 0.7, 0.8])
