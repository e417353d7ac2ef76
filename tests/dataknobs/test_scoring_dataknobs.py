"""The ``dataknobs`` compatibility policy against rubricjudge's default, case by case.

Each case of issue 12 item 8 is run under both policies: rubricjudge's default keeps
"a failure is not a verdict"; ``compat="dataknobs"`` reproduces dataknobs' executor.
A property test checks the policy against a transcription of that executor's rules
(written here, independently of ``_scoring_dataknobs``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricjudge import (
    ConfigError,
    Criterion,
    CriterionOption,
    EvaluationReport,
    Rubric,
    ScoringMethod,
    ScoringPolicy,
)
from rubricjudge._cli.main import main
from rubricjudge._methods._run import run_method
from rubricjudge._model._scoring_dataknobs import neumaier_sum
from rubricjudge._registry._store import RubricRegistry
from rubricjudge._review._artifacts import ArtifactStatus, ArtifactStore
from rubricjudge.methods import evaluate_rubric_sync

LEVELS = [
    CriterionOption(id="fail", label="Fail", value=0.0),
    CriterionOption(id="ok", label="Acceptable", value=0.6),
    CriterionOption(id="pass", label="Pass", value=1.0),
]


def boom(_: Any) -> str:
    raise RuntimeError("the checker crashed")


FUNCTIONS: dict[str, Any] = {
    "app:pass": lambda _: "pass",
    "app:ok": lambda _: "ok",
    "app:fail": lambda _: "fail",
    "app:boom": boom,
    "app:unknown": lambda _: "superb",  # not a level of the criterion
    "app:label": lambda _: "Pass",  # the label of level "pass", not its id
}


def crit(cid: str, ref: str, weight: float = 1.0) -> Criterion:
    return Criterion(
        id=cid,
        requirement=f"criterion {cid}",
        weight=weight,
        options=LEVELS,
        scoring_method=ScoringMethod(type="function", function_ref=ref),
    )


def rubric(*criteria: tuple[str, float], threshold: float = 0.7) -> Rubric:
    return Rubric(
        [crit(f"c{i}", ref, w) for i, (ref, w) in enumerate(criteria)], pass_threshold=threshold
    )


def run(r: Rubric, policy: Any) -> EvaluationReport:
    return evaluate_rubric_sync(r, {"questions": []}, functions=FUNCTIONS, policy=policy)


# -- the cases, under both policies ----------------------------------------------------------


def test_a_function_that_raises() -> None:
    r = rubric(("app:pass", 1.0), ("app:boom", 1.0))
    ours = run(r, None)
    # a crash is no verdict either way: the item has no score (it was skipped, 1.0, before)
    assert ours.score is None and ours.passed is None
    assert "the judge failed on 1 of 2 criteria" in (ours.error or "")
    assert ours.report is not None and ours.report[1].level_id == "error"
    assert ours.report[1].error is not None and "the checker crashed" in ours.report[1].error
    dk = run(r, "dataknobs")
    assert dk.score == 0.5 and dk.passed is False  # dataknobs: level "error", score 0
    assert dk.report is not None and dk.report[1].level_id == "error"
    assert dk.error_count == 1


def test_an_unknown_level_id() -> None:
    r = rubric(("app:pass", 3.0), ("app:unknown", 1.0))
    ours = run(r, "rubricjudge")
    assert ours.score is None  # an answer that is not a level decided nothing
    assert ours.report is not None and ours.report[1].level_id == "error"
    assert "'superb' is not a level" in (ours.report[1].error or "")
    dk = run(r, ScoringPolicy.dataknobs())
    assert dk.score == 0.75 and dk.passed is True
    assert dk.report is not None and dk.report[1].level_id == "superb"  # kept, as dataknobs does


def test_a_level_label_instead_of_its_id() -> None:
    r = rubric(("app:label", 1.0), ("app:fail", 1.0))
    ours = run(r, None)
    assert ours.score == 0.5  # "Pass" is read as the level "pass"
    assert ours.report is not None and ours.report[0].level_id == "pass"
    dk = run(r, "dataknobs")
    assert dk.score == 0.0 and dk.passed is False  # dataknobs compares ids only
    assert dk.report is not None and dk.report[0].level_id == "Pass"


def test_every_function_raises() -> None:
    r = rubric(("app:boom", 1.0), ("app:boom", 2.0), threshold=0.5)
    ours = run(r, None)
    assert ours.score is None and ours.passed is None
    assert ours.error is not None and ours.error.startswith("no criterion could be graded")
    dk = run(r, "dataknobs")
    assert dk.score == 0.0 and dk.passed is False and dk.raw_score == 0.0
    assert dk.error is None and dk.error_count == 2
    # a threshold of 0 passes even then, as 0.0 >= 0.0 does in dataknobs
    assert run(rubric(("app:boom", 1.0), threshold=0.0), "dataknobs").passed is True


@pytest.mark.parametrize(
    ("refs", "ours", "theirs"),
    [
        # both criteria at "pass": penalty charged in full
        ((("app:pass", 1.0), ("app:pass", -0.5)), 0.5, 1.0),
        # the penalty's level scores 0: dataknobs divides by 1 - 0.5 and leaves [0, 1]
        ((("app:pass", 1.0), ("app:fail", -0.5)), 1.0, 2.0),
        ((("app:fail", 1.0), ("app:pass", -0.5)), 0.0, -1.0),
        # weights summing to 0: dataknobs says 0.0
        ((("app:pass", 1.0), ("app:pass", -1.0)), 0.0, 0.0),
        # penalties only: rubricjudge's all-negative formula; dataknobs' plain ratio
        ((("app:pass", -1.0), ("app:fail", -1.0)), 0.5, 0.5),
        ((("app:ok", -2.0), ("app:fail", -1.0)), 0.6, 0.4),
    ],
)
def test_negative_weights(refs: tuple[tuple[str, float], ...], ours: float, theirs: float) -> None:
    r = rubric(*refs, threshold=0.5)
    assert run(r, None).score == pytest.approx(ours)
    dk = run(r, "dataknobs")
    assert dk.score == pytest.approx(theirs)
    assert dk.passed is (theirs >= 0.5)


def test_run_method_takes_the_policy() -> None:
    import asyncio

    c = crit("c", "app:label")
    ours = asyncio.run(run_method(c, {}, functions=FUNCTIONS))
    theirs = asyncio.run(run_method(c, {}, functions=FUNCTIONS, policy="dataknobs"))
    assert ours.score_value == 1.0 and ours.error is None
    assert theirs.error is not None and "exact ids only" in theirs.error
    assert theirs.level_id == "Pass"


def test_bad_policy_names_are_usage_errors() -> None:
    with pytest.raises(ConfigError, match="'datanobs' is unknown; use one of 'rubricjudge'"):
        run(rubric(("app:pass", 1.0)), "datanobs")
    with pytest.raises(ValueError, match="compat 'x' is unknown"):
        ScoringPolicy(compat="x")  # type: ignore[arg-type]


def test_neumaier_sum_compensates_like_python_312() -> None:
    # plain left-to-right addition loses the 1.0; Python 3.12's sum() and ours keep it
    assert 1e16 + 1.0 - 1e16 == 0.0
    assert neumaier_sum([1e16, 1.0, -1e16]) == 1.0
    assert neumaier_sum([0.1] * 10) == 1.0
    assert math.isinf(neumaier_sum([1e308, 1e308]))


# -- against a transcription of dataknobs' executor ----------------------------------------


def dataknobs_reference(
    weights: list[float], answers: list[str], threshold: float
) -> tuple[float, bool]:
    """dataknobs' RubricExecutor rules, restated: level score by exact id, else 0."""
    scores = {o.id: o.value for o in LEVELS}
    results = [0.0 if a in ("app:boom",) else scores.get(FUNCTIONS[a](None), 0.0) for a in answers]
    total = 0.0
    for w in weights:
        total += w
    if total == 0:
        return 0.0, 0.0 >= threshold
    acc = 0.0
    for w, s in zip(weights, results, strict=True):
        acc += w * s
    score = acc / total
    return score, score >= threshold


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(FUNCTIONS)),
            # quarters add exactly, so the reference needs no compensated sum of its own
            st.integers(-12, 12).map(lambda k: k / 4),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([0.0, 0.25, 0.5, 0.7, 1.0]),
)
def test_dataknobs_policy_matches_the_executors_rules(
    spec: list[tuple[str, float]], threshold: float
) -> None:
    r = rubric(*spec, threshold=threshold)
    report = run(r, "dataknobs")
    score, passed = dataknobs_reference([w for _, w in spec], [a for a, _ in spec], threshold)
    assert report.score == score
    assert report.passed is passed


# -- through the review flow and the command line ----------------------------------------------


async def test_review_flow_scores_with_the_store_policy(tmp_path: Path) -> None:
    r = rubric(("app:pass", 1.0), ("app:boom", 1.0)).model_copy(
        update={"id": "quiz", "version": "1.0.0", "target_type": "quiz"}
    )
    outcomes = {}
    for policy in ("rubricjudge", "dataknobs"):
        registry = RubricRegistry(tmp_path / f"{policy}.sqlite3")
        registry.register(r)
        store = ArtifactStore(registry, functions=FUNCTIONS, policy=policy)
        art = store.create("quiz", "Biology quiz", {"questions": ["q"] * 5})
        [ev] = await store.submit_for_review(art.id)
        outcomes[policy] = (ev.score, store.get(art.id).status)
    # a checker that crashed approves nothing (it was skipped and approved before)
    assert outcomes["rubricjudge"] == (None, ArtifactStatus.NEEDS_REVISION)
    assert outcomes["dataknobs"] == (0.5, ArtifactStatus.NEEDS_REVISION)
    with pytest.raises(ConfigError, match="'nope' is unknown"):
        ArtifactStore(RubricRegistry(tmp_path / "x.sqlite3"), policy="nope")


def test_score_command_compat_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rubric_file = tmp_path / "r.json"
    rubric_file.write_text(
        json.dumps(
            [
                {"name": "good", "weight": 1.0, "requirement": "Good"},
                {"name": "bad", "weight": -0.5, "requirement": "A fault"},
                {"name": "unsure", "weight": 1.0, "requirement": "Maybe"},
            ]
        )
    )
    verdicts = tmp_path / "v.json"
    verdicts.write_text(json.dumps({"good": "MET", "bad": "UNMET", "unsure": "CANNOT_ASSESS"}))
    assert main(["score", str(rubric_file), "--verdicts", str(verdicts), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == 1.0
    args = ["score", str(rubric_file), "--verdicts", str(verdicts), "--compat", "dataknobs"]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(1.0 / 1.5)
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "dataknobs: sum(w*s) / sum(w)" in out and "CANNOT_ASSESS [0, dataknobs]" in out


@pytest.mark.parametrize("policy", [None, "dataknobs"])
def test_misconfiguration_is_raised_under_either_policy(policy: Any) -> None:
    # dataknobs turns an unknown function ref into level "error" at evaluation time;
    # rubricjudge refuses the rubric before anything runs, whatever the policy
    with pytest.raises(ConfigError, match="'app:missing' is not registered"):
        run(rubric(("app:pass", 1.0), ("app:missing", 1.0)), policy)
    bad_schema = Criterion(
        id="shape",
        requirement="Has a title",
        scoring_method=ScoringMethod(type="json_schema", schema={"type": "no-such-type"}),
    )
    with pytest.raises(ConfigError):
        evaluate_rubric_sync(Rubric([bad_schema]), {}, policy=policy)
