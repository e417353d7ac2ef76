"""Seed 004's dataknobs examples, run with only their imports changed.

The bodies below follow the seed's end-to-end example and its executor example
statement by statement; only the ``from dataknobs_... import`` lines point at
:mod:`rubricjudge.dataknobs` instead. The scoring functions are deterministic, so
nothing here needs a judge.
"""

from __future__ import annotations

import pytest

import rubricjudge


async def test_end_to_end_example_runs_with_import_changes_only() -> None:
    # the seed imports these from dataknobs_data.backends.memory, dataknobs_bots.artifacts,
    # dataknobs_bots.artifacts.provenance and dataknobs_bots.rubrics: the only change
    from rubricjudge.dataknobs import (
        ArtifactRegistry,
        ArtifactTypeDefinition,
        AsyncMemoryDatabase,
        FunctionRegistry,
        Rubric,
        RubricCriterion,
        RubricExecutor,
        RubricLevel,
        RubricRegistry,
        ScoringMethod,
        ScoringType,
        create_provenance,
    )

    # 1. the scoring function
    def check_question_count(content: dict) -> str:  # type: ignore[type-arg]
        questions = content.get("questions", [])
        if len(questions) >= 5:
            return "pass"
        return "fail"

    # 2. the rubric system
    func_registry = FunctionRegistry()
    func_registry.register("scoring:check_question_count", check_question_count)

    rubric = Rubric(
        id="quiz_quality",
        name="Quiz Quality",
        description="Validates quiz content",
        version="1.0.0",
        target_type="content",
        criteria=[
            RubricCriterion(
                id="question_count",
                name="Question Count",
                description="Sufficient number of questions",
                weight=1.0,
                levels=[
                    RubricLevel(id="fail", label="Fail", description="Too few", score=0.0),
                    RubricLevel(id="pass", label="Pass", description="Enough", score=1.0),
                ],
                scoring_method=ScoringMethod(
                    type=ScoringType.DETERMINISTIC,
                    function_ref="scoring:check_question_count",
                ),
            ),
        ],
        pass_threshold=0.7,
    )

    rubric_db = AsyncMemoryDatabase()
    rubric_registry = RubricRegistry(rubric_db)
    await rubric_registry.register(rubric)
    rubric_executor = RubricExecutor(function_registry=func_registry)

    # 3. the artifact registry, with rubrics
    artifact_db = AsyncMemoryDatabase()
    artifact_registry = ArtifactRegistry(
        db=artifact_db,
        rubric_registry=rubric_registry,
        rubric_executor=rubric_executor,
        type_definitions={
            "quiz": ArtifactTypeDefinition(
                id="quiz",
                rubrics=["quiz_quality"],
            ),
        },
    )

    # 4. create and evaluate an artifact
    artifact = await artifact_registry.create(
        artifact_type="quiz",
        name="Biology Quiz",
        content={"questions": ["Q1", "Q2", "Q3", "Q4", "Q5"]},
        provenance=create_provenance("bot:quizbot", "generator"),
    )

    evaluations = await artifact_registry.submit_for_review(artifact.id)

    updated = await artifact_registry.get(artifact.id)
    assert f"Status: {updated.status.value}" == "Status: approved"
    assert f"Score: {evaluations[0]['weighted_score']:.0%}" == "Score: 100%"

    # beyond the seed: what was stored, and a quiz that is too short
    assert evaluations[0]["criterion_results"][0]["level_id"] == "pass"
    assert updated.metadata["provenance"]["created_by"] == "bot:quizbot"
    stored = await rubric_registry.get("quiz_quality")
    assert stored is not None and stored.model_dump() == rubric.model_dump()
    short = await artifact_registry.create(
        artifact_type="quiz", name="Short", content={"questions": ["Q1"]}
    )
    [ev] = await artifact_registry.submit_for_review(short.id)
    assert ev["weighted_score"] == 0.0 and ev["passed"] is False
    assert (await artifact_registry.get(short.id)).status.value == "needs_revision"
    # the artifacts live in their own database, as in the seed
    assert artifact_db is not rubric_db
    assert artifact_db.run(lambda tx: tx.execute("SELECT COUNT(*) FROM artifacts"))[0][0] == 2
    assert rubric_db.run(lambda tx: tx.execute("SELECT COUNT(*) FROM artifacts"))[0][0] == 0


async def test_executor_example_and_evaluation_fields() -> None:
    from rubricjudge.dataknobs import (
        FunctionRegistry,
        Rubric,
        RubricCriterion,
        RubricExecutor,
        RubricLevel,
        ScoringMethod,
        ScoringType,
    )

    def check_clarity(content: dict) -> str:  # type: ignore[type-arg]
        return "excellent" if len(content["questions"]) >= 3 else "fail"

    def check_completeness(content: dict) -> str:  # type: ignore[type-arg]
        return "pass"

    def criterion(cid: str, ref: str, weight: float) -> RubricCriterion:
        return RubricCriterion(
            id=cid,
            name=cid.title(),
            description=f"How good the {cid} is",
            weight=weight,
            levels=[
                RubricLevel(id="fail", label="Fail", description="Unclear", score=0.0),
                RubricLevel(id="pass", label="Pass", description="Fine", score=0.7),
                RubricLevel(id="excellent", label="Excellent", description="Great", score=1.0),
            ],
            scoring_method=ScoringMethod(type=ScoringType.DETERMINISTIC, function_ref=ref),
        )

    func_registry = FunctionRegistry()
    func_registry.register("myapp.scoring:check_clarity", check_clarity)
    func_registry.register("myapp.scoring:check_completeness", check_completeness)
    rubric = Rubric(
        id="content_quality",
        name="Content Quality",
        description="Evaluates the quality of generated content",
        version="1.0.0",
        target_type="content",
        criteria=[
            criterion("clarity", "myapp.scoring:check_clarity", 0.4),
            criterion("completeness", "myapp.scoring:check_completeness", 0.6),
        ],
        pass_threshold=0.7,
        metadata={"author": "system", "domain": "education"},
    )
    executor = RubricExecutor(function_registry=func_registry)

    evaluation = await executor.evaluate(
        rubric=rubric,
        target={"questions": ["Q1", "Q2", "Q3"]},
        target_id="art_abc123",
        target_type="content",
    )
    assert f"Score: {evaluation.weighted_score:.1%}" == "Score: 82.0%"
    assert evaluation.passed is True
    assert evaluation.feedback_summary is not None
    assert evaluation.feedback_summary.startswith("Evaluation PASSED")
    assert [r.level_id for r in evaluation.criterion_results] == ["excellent", "pass"]
    assert evaluation.id == "art_abc123"
    assert evaluation.metadata["target_type"] == "content"
    # the levels are ordinary options, the criterion an ordinary criterion
    crit = rubric.criteria[0]
    assert isinstance(crit, rubricjudge.Criterion) and crit.levels == crit.options
    assert crit.levels[1].score == crit.levels[1].value == 0.7


def test_aliases_are_our_objects_and_do_not_clash() -> None:
    from rubricjudge import dataknobs

    assert rubricjudge.ScoringType.DETERMINISTIC is rubricjudge.ScoringType.FUNCTION
    assert rubricjudge.ScoringType.SCHEMA is rubricjudge.ScoringType.JSON_SCHEMA
    assert "DETERMINISTIC" not in [m.name for m in rubricjudge.ScoringType]  # not listed twice
    from rubricjudge.registry import RubricRegistry

    # dataknobs' names live in rubricjudge.dataknobs only; one class per name at the top
    for name in ("RubricLevel", "RubricCriterion", "RubricExecutor", "RubricRegistry"):
        assert not hasattr(rubricjudge, name), name
    assert dataknobs.RubricRegistry is not RubricRegistry  # dataknobs' async one
    assert dataknobs.RubricEvaluation is rubricjudge.EvaluationReport
    level = dataknobs.RubricLevel(id="ok", label="OK", score=0.5)
    assert level.value == 0.5 and level.model_dump()["value"] == 0.5
    with pytest.raises(ValueError, match="both 'score' and 'value'"):
        dataknobs.RubricLevel(label="OK", score=0.5, value=0.5)
    with pytest.raises(ValueError, match="outside"):
        dataknobs.RubricLevel(label="OK", score=7)
    c = dataknobs.RubricCriterion(description="Clear", levels=[level])
    assert c.options == [level]
    with pytest.raises(ValueError, match="both 'levels' and 'options'"):
        dataknobs.RubricCriterion(description="Clear", levels=[level], options=[level])
    assert sorted(dataknobs.__all__) == dataknobs.__all__


async def test_the_executor_takes_the_dataknobs_policy() -> None:
    from rubricjudge.dataknobs import Rubric, RubricCriterion, RubricExecutor, RubricLevel

    def crashes(content: object) -> str:
        raise RuntimeError("no")

    levels = [
        RubricLevel(id="fail", label="Fail", score=0.0),
        RubricLevel(id="pass", label="Pass", score=1.0),
    ]
    rubric = Rubric(
        criteria=[
            RubricCriterion(
                id="a",
                description="A",
                weight=1.0,
                levels=levels,
                scoring_method={"type": "function", "function_ref": "x:crash"},
            )
        ],
        pass_threshold=0.5,
    )
    ours = await RubricExecutor({"x:crash": crashes}).evaluate(rubric, {})
    theirs = await RubricExecutor({"x:crash": crashes}, policy="dataknobs").evaluate(rubric, {})
    assert ours.weighted_score is None and ours.passed is None
    assert theirs.weighted_score == 0.0 and theirs.passed is False


async def test_registry_meta_rubric_and_feedback_examples() -> None:
    from rubricjudge.dataknobs import (
        AsyncMemoryDatabase,
        FunctionRegistry,
        Rubric,
        RubricExecutor,
        RubricRegistry,
        build_meta_rubric,
        generate_criterion_feedback,
        generate_deterministic_summary,
        generate_feedback_summary,
    )

    config = {
        "rubrics": [
            {
                "id": "content_quality",
                "name": "Content Quality",
                "description": "Evaluates content quality",
                "version": "1.0.0",
                "target_type": "content",
                "criteria": [
                    {
                        "id": "has_title",
                        "name": "Has title",
                        "description": "The content has a title",
                        "weight": 1.0,
                        "levels": [
                            {"id": "fail", "label": "Fail", "description": "No", "score": 0.0},
                            {"id": "pass", "label": "Pass", "description": "Yes", "score": 1.0},
                        ],
                        "scoring_method": {
                            "type": "schema",
                            "schema": {"type": "object", "required": ["title"]},
                        },
                    }
                ],
                "pass_threshold": 0.7,
            },
        ]
    }
    db = AsyncMemoryDatabase()
    registry = await RubricRegistry.from_config(config, db=db)
    rubric = await registry.get("content_quality")
    assert rubric is not None and [r.id for r in await registry.get_for_target("content")] == [
        "content_quality"
    ]
    assert Rubric.from_dict(rubric.to_dict(format="dataknobs")).model_dump() == rubric.model_dump()

    # the meta-rubric judges the rubric's structure, from its dict
    meta_rubric = build_meta_rubric()
    executor = RubricExecutor(function_registry=FunctionRegistry())
    evaluation = await executor.evaluate(
        meta_rubric, target=rubric.to_dict(), target_id=rubric.id, target_type="rubric"
    )
    assert f"{evaluation.weighted_score:.0%}" == "100%" and evaluation.passed is True

    # feedback, with and without an "LLM" (none here: the template is used)
    evaluation = await executor.evaluate(rubric, {"title": "Cells"})
    summary = await generate_feedback_summary(rubric, evaluation, llm=None)
    assert str(summary) == str(generate_deterministic_summary(rubric, evaluation))
    assert str(summary).startswith("Evaluation PASSED for rubric 'Content Quality'.")
    feedback = generate_criterion_feedback(rubric.criteria[0], evaluation)
    assert feedback == "Has title: pass (score: 1.00)"
    assert await registry.delete("content_quality") is True
    assert await registry.get("content_quality") is None
    assert await registry.delete("content_quality") is False
