"""The review flow: artifacts evaluated against their rubrics, evaluations stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import ConfigError, Criterion, CriterionOption, Rubric, ScoringMethod
from rubricjudge._registry._records import RubricNotFound
from rubricjudge._registry._store import RubricRegistry
from rubricjudge._review._artifacts import ArtifactStatus, ArtifactStore, IllegalTransition
from tests.support.registry_backends import BACKENDS, database_url

S = ArtifactStatus
LEVELS = [
    CriterionOption(id="fail", label="Fail", value=0.0),
    CriterionOption(id="pass", label="Pass", value=1.0),
]


def count_questions(content: dict[str, Any]) -> str:
    return "pass" if len(content.get("questions", [])) >= 5 else "fail"


def quiz_rubric(rid: str = "quiz_quality", target_type: str | None = "quiz") -> Rubric:
    method = ScoringMethod(type="function", function_ref="scoring:count")
    return Rubric(
        [
            Criterion(
                id="count",
                name="Question count",
                requirement="Has five or more questions",
                weight=1.0,
                options=LEVELS,
                scoring_method=method,
            )
        ],
        id=rid,
        version="1.0.0",
        target_type=target_type,
        pass_threshold=0.7,
    )


def shape_rubric() -> Rubric:
    method = ScoringMethod(type="json_schema", schema={"type": "object", "required": ["title"]})
    return Rubric(
        [Criterion(id="shape", requirement="Has a title field", scoring_method=method)],
        id="has_title",
        version="1.0.0",
        pass_threshold=1.0,
    )


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ArtifactStore]:
    for url in database_url(request.param, tmp_path):
        registry = RubricRegistry(url)
        registry.register(quiz_rubric())
        registry.register(shape_rubric())
        yield ArtifactStore(registry, functions={"scoring:count": count_questions})


async def test_approved_when_every_rubric_passes(store: ArtifactStore) -> None:
    art = store.create(
        "quiz", "Biology quiz", {"title": "Cells", "questions": ["q"] * 5}, rubric_ids=["has_title"]
    )
    assert art.status is S.DRAFT
    evaluations = await store.submit_for_review(art.id)
    assert sorted(e.rubric_id for e in evaluations) == ["has_title", "quiz_quality"]
    assert all(e.passed and e.score == 1.0 for e in evaluations)
    stored = store.get(art.id)
    assert stored.status is S.APPROVED
    assert [(e.rubric_id, e.review_round) for e in stored.evaluations] == [
        ("has_title", 1),
        ("quiz_quality", 1),
    ]
    quiz_eval = next(e for e in stored.evaluations if e.rubric_id == "quiz_quality")
    assert quiz_eval.report.report is not None and quiz_eval.report.report[0].level_id == "pass"
    assert quiz_eval.rubric_hash == store.registry.get_version("quiz_quality").content_hash
    assert [(a, b) for a, b, _, _ in store.history(art.id)] == [
        (None, "draft"),
        ("draft", "pending_review"),
        ("pending_review", "in_review"),
        ("in_review", "approved"),
    ]
    with pytest.raises(IllegalTransition, match="is approved; only a draft"):
        await store.submit_for_review(art.id)
    with pytest.raises(IllegalTransition, match="none, it is final"):
        store.set_status(art.id, S.DRAFT)


async def test_needs_revision_then_resubmit(store: ArtifactStore) -> None:
    art = store.create("quiz", "Short quiz", {"questions": ["q1", "q2"]})
    [ev] = await store.submit_for_review(art.id)  # only the type's rubric applies
    assert (ev.rubric_id, ev.passed, ev.score) == ("quiz_quality", False, 0.0)
    assert store.get(art.id).status is S.NEEDS_REVISION
    revised = store.update_content(art.id, {"questions": ["q"] * 6})
    assert revised.status is S.DRAFT
    [ev2] = await store.submit_for_review(art.id)
    assert ev2.passed and ev2.review_round == 2
    final = store.get(art.id)
    assert final.status is S.APPROVED and len(final.evaluations) == 2


async def test_illegal_transitions_and_bad_setups(store: ArtifactStore) -> None:
    art = store.create("quiz", "Quiz", {"questions": []})
    with pytest.raises(IllegalTransition, match="draft; it cannot move to approved"):
        store.set_status(art.id, S.APPROVED)
    store.set_status(art.id, S.PENDING_REVIEW)
    with pytest.raises(IllegalTransition, match="only a draft"):
        await store.submit_for_review(art.id)
    with pytest.raises(IllegalTransition, match="only a draft"):
        store.update_content(art.id, {})
    lonely = store.create("essay", "Essay", "text")
    with pytest.raises(ConfigError, match="no rubric applies"):
        await store.submit_for_review(lonely.id)
    assert store.get(lonely.id).status is S.DRAFT  # nothing moved
    missing = store.create("essay", "Essay", "text", rubric_ids=["nope"])
    with pytest.raises(RubricNotFound):
        await store.submit_for_review(missing.id)
    with pytest.raises(ConfigError, match="exists already"):
        store.create("quiz", "Again", {}, id=art.id)


async def test_evaluation_failure_returns_to_pending(store: ArtifactStore) -> None:
    bare = ArtifactStore(store.registry)  # no functions registered: the rubric cannot run
    art = bare.create("quiz", "Quiz", {"questions": []})
    with pytest.raises(ConfigError, match="scoring:count"):
        await bare.submit_for_review(art.id)
    after = bare.get(art.id)
    assert after.status is S.PENDING_REVIEW and after.evaluations == []
    assert bare.history(art.id)[-1][3].startswith("evaluation failed: ConfigError")
