"""Ensembles: every aggregation, every tie-break, agreement, votes and failed members."""

from __future__ import annotations

import re
from typing import Any

import pytest

from rubricjudge import (
    ConfigError,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    JudgeError,
    Rubric,
)
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._ensemble import (
    JudgeSpec,
    check_aggregation,
    decide_binary,
    decide_options,
)
from rubricjudge._graders._judging import shuffle_order
from rubricjudge._graders._oneshot import PerCriterionOneShotGrader
from rubricjudge._judges._fake import FakeJudge

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS
POS = Criterion(requirement="good thing", weight=5)
NEG = Criterion(requirement="bad thing", weight=-5)


def opts(*values: float, na: bool = False) -> list[CriterionOption]:
    out = [CriterionOption(label=f"o{i}", value=x) for i, x in enumerate(values)]
    return out + ([CriterionOption(label="n/a", na=True)] if na else [])


ORD = Criterion(requirement="level", weight=5, options=opts(0.0, 0.5, 1.0, na=True))
ORD_NEG = Criterion(requirement="severity", weight=-5, options=opts(0.0, 0.5, 1.0))
NOM = Criterion(requirement="kind", weight=5, options=opts(0.2, 0.6, 0.9), scale_type="nominal")


# -- binary -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("method", "votes", "expected"),
    [
        ("majority", [MET, MET, UNMET], MET),
        ("majority", [MET, UNMET, UNMET], UNMET),
        ("majority", [MET, UNMET, CA], UNMET),  # tie after CA abstains: worst for +
        ("weighted", [(MET, 3.0), (UNMET, 1.0), (UNMET, 1.0)], MET),
        ("weighted", [(MET, 1.0), (UNMET, 2.0)], UNMET),
        ("weighted", [(MET, 2.0), (UNMET, 2.0)], UNMET),
        ("unanimous", [MET, MET, CA], MET),
        ("unanimous", [MET, MET, UNMET], UNMET),
        ("any", [UNMET, UNMET, MET], MET),
        ("any", [UNMET, CA], UNMET),
        ("majority", [CA, CA], CA),
        ("any", [CA], CA),
    ],
)
def test_binary_aggregations(method: str, votes: list[Any], expected: CriterionVerdict) -> None:
    pairs = [vote if isinstance(vote, tuple) else (vote, 1.0) for vote in votes]
    assert decide_binary(POS, pairs, method).verdict is expected


@pytest.mark.parametrize("method", ["majority", "weighted"])
def test_binary_ties_go_to_the_worst_for_the_weight_sign(method: str) -> None:
    tie = [(MET, 1.0), (UNMET, 1.0)]
    assert decide_binary(POS, tie, method).verdict is UNMET
    assert decide_binary(NEG, tie, method).verdict is MET


def test_binary_agreement_counts_every_cast_vote() -> None:
    d = decide_binary(POS, [(MET, 1.0), (MET, 1.0), (UNMET, 1.0), (CA, 1.0)], "majority")
    assert d.verdict is MET and d.agreement == pytest.approx(0.5)
    assert decide_binary(POS, [(MET, 1.0)] * 3, "majority").agreement == 1.0


# -- options ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("crit", "method", "votes", "expected"),
    [
        (ORD, "mean", [0, 2, 2], 1),  # 0.667: 0.5 is nearer than 1.0
        (ORD, "mean", [0, 1], 0),  # 0.25: tie between 0.0 and 0.5 -> lower value (+)
        (ORD_NEG, "mean", [0, 1], 1),  # same tie on a penalty -> higher value
        (ORD, "median", [0, 2, 2], 2),
        (ORD, "median", [0, 2], 1),  # 0.5 exactly
        (ORD, "weighted_mean", [(0, 1.0), (2, 3.0)], 1),  # 0.75: tie 0.5 / 1.0 -> 0.5 (+)
        (ORD, "weighted_mean", [(0, 3.0), (2, 1.0)], 0),  # 0.25: tie 0.0 / 0.5 -> 0.0 (+)
        (ORD, "mode", [1, 1, 2], 1),
        (ORD, "mode", [1, 2], 1),  # count tie -> lower value (+)
        (ORD_NEG, "mode", [1, 2], 2),  # count tie on a penalty -> higher value
        (ORD, "weighted_mode", [(1, 1.0), (1, 1.0), (2, 3.0)], 2),
        (ORD, "min", [2, 1, 2], 1),
        (ORD, "max", [0, 1, 0], 1),
        (NOM, "mode", [0, 1, 1], 1),
        (NOM, "weighted_mode", [(0, 5.0), (1, 1.0), (1, 1.0)], 0),
        (NOM, "weighted_mode", [(0, 1.0), (2, 1.0)], 0),  # weight tie -> lower value (+)
        (NOM, "unanimous", [2, 2, 2], 2),
        (NOM, "unanimous", [2, 1, 2], 1),  # disagreement -> worst among the votes
    ],
)
def test_option_aggregations(crit: Criterion, method: str, votes: list[Any], expected: int) -> None:
    pairs = [vote if isinstance(vote, tuple) else (vote, 1.0) for vote in votes]
    assert decide_options(crit, pairs, method).option == expected


def test_na_and_cannot_assess_abstain() -> None:
    na = 3
    d = decide_options(ORD, [(na, 1.0), (2, 1.0), (None, 1.0)], "mean")
    assert d.option == 2 and d.agreement == pytest.approx(1 / 3)
    all_na = decide_options(ORD, [(na, 1.0), (None, 1.0)], "mode")
    assert all_na.option == na and all_na.verdict is None
    all_ca = decide_options(ORD, [(None, 1.0), (None, 1.0)], "mode")
    assert all_ca.option is None and all_ca.verdict is CA


def test_aggregation_must_fit_the_criterion() -> None:
    assert check_aggregation(POS, "any", where="x") == "any"
    with pytest.raises(ConfigError, match="'mean' does not apply to a binary criterion"):
        check_aggregation(POS, "mean", where="criteria['a']")
    with pytest.raises(ConfigError, match="nominal"):
        check_aggregation(NOM, "median", where="x")
    assert check_aggregation(ORD, "max", where="x") == "max"


# -- through the grader -----------------------------------------------------------
def fixed(verdict: str, option: int = 1) -> FakeJudge:
    def reply(req: Any) -> dict[str, Any]:
        if "option" in req.schema["properties"]:
            return {"reason": f"picked {option}", "option": option}
        return {"reason": f"said {verdict}", "verdict": verdict}

    return FakeJudge(default=reply, tokens_per_call=5)


@pytest.fixture
def rubric() -> Rubric:
    return Rubric(
        [
            Criterion(name="a", weight=10, requirement="Mentions Rayleigh scattering"),
            Criterion(name="b", weight=10, requirement="Is short", aggregation="any"),
            Criterion(name="c", weight=10, requirement="Level", options=opts(0.0, 0.5, 1.0)),
        ]
    )


async def test_ensemble_votes_agreement_and_override(rubric: Rubric) -> None:
    grader = CriterionGrader(
        judges=[
            JudgeSpec(fixed("MET", 3), id="big", weight=1.0),
            JudgeSpec(fixed("UNMET", 1), id="small"),
            JudgeSpec(fixed("UNMET", 1), id="tiny"),
        ]
    )
    report = await grader.grade(rubric, "text")
    a, b, c = report.report or []
    assert a.verdict is UNMET and a.agreement == pytest.approx(2 / 3)
    assert b.verdict is MET and b.agreement == pytest.approx(1 / 3)  # 'any' override
    assert c.selection is not None and c.selection.index == 1  # mean 0.333 snaps to 0.5
    assert [vote.judge_id for vote in a.votes or []] == ["big", "small", "tiny"]
    assert a.reason == "said UNMET"
    assert report.judge_calls == 9
    assert report.token_usage is not None and report.token_usage.prompt_tokens == 45


async def test_weighted_ensemble_follows_the_weights(rubric: Rubric) -> None:
    grader = CriterionGrader(
        judges=[JudgeSpec(fixed("MET"), weight=3.0), JudgeSpec(fixed("UNMET")), fixed("UNMET")],
        aggregation="weighted",
    )
    report = await grader.grade(rubric, "text")
    assert (report.report or [])[0].verdict is MET
    assert grader.judge_ids == ["fake", "fake#2", "fake#3"]


async def test_failed_members_are_left_out_and_recorded(rubric: Rubric) -> None:
    broken = FakeJudge(default=JudgeError("server down", category="server"))
    grader = CriterionGrader(judges=[fixed("MET"), fixed("UNMET"), broken], aggregation="majority")
    report = await grader.grade(rubric, "text")
    a = (report.report or [])[0]
    assert a.verdict is UNMET  # 1-1 among the two that answered: tie -> worst
    assert a.error is None and report.error_count == 0
    failed = [vote for vote in a.votes or [] if vote.error]
    assert len(failed) == 1 and failed[0].error == "server: server down"
    assert a.agreement == pytest.approx(1 / 2)


async def test_all_members_failing_applies_the_failure_policy(rubric: Rubric) -> None:
    broken = [FakeJudge(default=JudgeError("slow", category="timeout")) for _ in range(2)]
    report = await CriterionGrader(judges=broken).grade(rubric, "text")
    a = (report.report or [])[0]
    assert a.verdict is CA and a.error_category == "timeout"
    assert a.error is not None and a.error.startswith("all 2 judges failed")
    assert report.score is None


def test_judge_weights_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="positive"):
        JudgeSpec("fake", weight=0)
    with pytest.raises(ConfigError, match="empty"):
        CriterionGrader(judges=[])


async def test_bad_criterion_aggregation_stops_before_any_call() -> None:
    judge = FakeJudge()
    rubric = Rubric([Criterion(name="x", requirement="r", aggregation="median")])
    with pytest.raises(ConfigError, match=r"criteria\['x'\]"):
        await CriterionGrader(judges=[judge, judge]).grade(rubric, "t")
    assert judge.requests == []


async def test_with_judges_wraps_every_member_and_keeps_ids(rubric: Rubric) -> None:
    seen: list[str] = []

    class Recording:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        @property
        def name(self) -> str:
            return f"rec({self.inner.name})"

        async def judge(self, request: Any) -> Any:
            seen.append(self.inner.name)
            return await self.inner.judge(request)

    grader = CriterionGrader(
        judges=[JudgeSpec(fixed("MET"), id="a"), JudgeSpec(fixed("UNMET"), id="b")]
    )
    wrapped = grader.with_judges(Recording)
    report = await wrapped.grade(rubric, "text")
    assert len(seen) == 6 and wrapped.judge_ids == ["a", "b"]
    assert [v.judge_id for v in (report.report or [])[0].votes or []] == ["a", "b"]
    assert all(not isinstance(m.judge, Recording) for m in grader.members())


def pick(label: str) -> FakeJudge:
    """A judge that picks the option called ``label`` wherever it is shown."""

    def reply(req: Any) -> dict[str, Any]:
        shown = req.user[req.shared_prefix_chars :]
        m = re.search(rf"^(\d+)\. {label}$", shown, re.MULTILINE)
        assert m is not None
        return {"reason": "r", "option": int(m.group(1))}

    return FakeJudge(default=reply)


@pytest.mark.parametrize("grader_cls", [CriterionGrader, PerCriterionOneShotGrader])
async def test_each_vote_records_the_option_order_its_judge_saw(
    grader_cls: type[CriterionGrader],
) -> None:
    crit = Criterion(requirement="level", weight=5, options=opts(0.0, 0.25, 0.5, 0.75, 1.0))
    rubric = Rubric([crit])
    if grader_cls is PerCriterionOneShotGrader:
        picks = [FakeJudge(default={"1": {"reason": "r", "option": 1}}) for _ in range(2)]
    else:
        picks = [pick("o3"), pick("o3")]
    grader = grader_cls(
        judges=[JudgeSpec(picks[0], id="a"), JudgeSpec(picks[1], id="b")],
        shuffle_options=True,
        seed=7,
    )
    differ = 0
    for item in ("i1", "i2", "i3", "i4"):
        report = await grader.grade(rubric, "text", item_id=item)
        (rep,) = report.report or []
        votes = rep.votes or []
        for vote in votes:
            expected = shuffle_order(crit, seed=7, item_key=item, index=0, judge_id=vote.judge_id)
            assert vote.shuffle_order == expected
            assert vote.selection is not None
            # the number a judge said maps back through its own order
            if grader_cls is PerCriterionOneShotGrader:
                assert vote.selection.index == expected[0]
            else:
                assert vote.selection.label == "o3"
        differ += votes[0].shuffle_order != votes[1].shuffle_order
        dumped = report.model_dump(mode="json")["report"][0]["votes"]
        assert [v["shuffle_order"] for v in dumped] == [v.shuffle_order for v in votes]
    assert differ > 0  # the two judges really saw different orders


async def test_votes_have_no_shuffle_order_without_shuffling() -> None:
    rubric = Rubric([Criterion(requirement="level", weight=5, options=opts(0.0, 1.0))])
    report = await CriterionGrader(judges=[pick("o1"), pick("o1")]).grade(rubric, "x")
    assert all(v.shuffle_order is None for v in (report.report or [])[0].votes or [])
