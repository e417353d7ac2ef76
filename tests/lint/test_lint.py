"""Rubric lint and the meta-rubric."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, CriterionOption, JudgeError, Rubric
from rubricjudge._cli.main import main
from rubricjudge._graders._mixed import evaluate_rubric
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._lint._meta import build_meta_rubric
from rubricjudge._lint._rules import achievable_range, lint_rubric, lint_rubric_with_judge


def opts(*values: float) -> list[CriterionOption]:
    return [CriterionOption(label=f"L{i}", value=v) for i, v in enumerate(values)]


def found(rubric: Rubric, **kw: Any) -> set[tuple[str, str, str]]:
    return {(f.severity, f.check, f.path) for f in lint_rubric(rubric, **kw)}


CLEAN = Rubric(
    [
        Criterion(name="cause", requirement="Names Rayleigh scattering as the cause", weight=0.6),
        Criterion(
            name="level",
            requirement="Explains it at a middle-school reading level",
            weight=0.4,
            options=opts(0.0, 0.5, 1.0),
        ),
    ],
    pass_threshold=0.6,
)


def test_clean_rubric_has_no_findings() -> None:
    assert lint_rubric(CLEAN, format="dataknobs") == []


def test_structural_checks() -> None:
    r = Rubric(
        [
            Criterion(name="A", id="a1", requirement="Names the scattering effect", weight=0.5),
            Criterion(name="a", id="a2", requirement="Names the  scattering effect", weight=0.3),
            Criterion(
                name="z",
                requirement="Gives the wavelength range in nanometres",
                weight=0.0,
                options=opts(0.0, 0.0),
            ),
            Criterion(
                name="o",
                requirement="Orders the colours by their wavelength",
                weight=0.3,
                options=opts(0.5, 0.0, 1.0),
            ),
        ],
        pass_threshold=1.0,
    )
    got = found(r, format="dataknobs")
    assert ("error", "independence", "criteria[1].name") in got
    assert ("error", "independence", "criteria[1].requirement") in got
    assert ("error", "weights", "criteria") in got  # 1.1 is not 1 +- 0.01
    assert ("warning", "weights", "criteria[2].weight") in got
    assert ("warning", "levels", "criteria[2].options") in got  # all options give 0
    assert ("warning", "levels", "criteria[3].options") in got  # out of order
    assert not any(c == "weights" and s == "error" for s, c, _ in found(r))  # autorubric: relative
    assert ("error", "weights", "criteria") in found(
        r.model_copy(update={"metadata": {"format": "openrubricrl"}})
    )


def test_threshold_reachability_uses_the_scoring() -> None:
    capped = Rubric(
        [Criterion(requirement="Explains the cause in one sentence", options=opts(0.0, 0.4))],
        pass_threshold=0.5,
    )
    assert achievable_range(capped) == (0.0, 0.4)
    assert ("error", "threshold", "pass_threshold") in found(capped)
    trivial = capped.model_copy(update={"pass_threshold": 0.0})
    assert ("warning", "threshold", "pass_threshold") in found(trivial)
    penalties = Rubric(
        [
            Criterion(requirement="Claims the sky reflects the ocean", weight=-2),
            Criterion(requirement="Confuses scattering with reflection", weight=-1),
        ]
    )
    assert achievable_range(penalties) == (0.0, 1.0)
    assert ("warning", "all_negative", "criteria") in found(penalties)


def test_wording_heuristics() -> None:
    r = Rubric(
        [
            Criterion(name="v", requirement="The answer is good and appropriate"),
            Criterion(name="s", requirement="Concise"),
            Criterion(name="d", requirement="Cites the source document and explains the method"),
            Criterion(name="o1", requirement="Lists three causes of ocean acidification today"),
            Criterion(name="o2", requirement="Lists three causes of ocean acidification"),
            Criterion(name="ok", requirement="Uses salt and pepper in the recipe"),
        ]
    )
    got = {(f.check, f.path) for f in lint_rubric(r)}
    assert ("vague", "criteria[0].requirement") in got
    assert ("short", "criteria[1].requirement") in got
    assert ("double_barrelled", "criteria[2].requirement") in got
    assert ("overlap", "criteria[4].requirement") in got
    assert not any(p == "criteria[5].requirement" for _, p in got)
    vague = next(f for f in lint_rubric(r) if f.check == "vague")
    assert str(vague).startswith("warning criteria[0].requirement: vague wording ('appropriate', ")


async def test_judge_checks_and_failures() -> None:
    def reply(req: Any) -> Any:
        if "salt" in req.user:
            return JudgeError("HTTP 500", category="server")
        return {"vague": True, "double_barrelled": False, "explanation": "No observable test."}

    r = Rubric(
        [
            Criterion(name="a", requirement="Explains the recipe steps in order"),
            Criterion(name="b", requirement="Uses salt in the recipe only once"),
        ]
    )
    findings = await lint_rubric_with_judge(r, FakeJudge(default=reply))
    judged = [(f.severity, f.check, f.path) for f in findings if f.source == "judge"]
    assert ("warning", "vague", "criteria[0].requirement") in judged
    assert ("error", "judge", "criteria[1].requirement") in judged


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(CLEAN.to_json(), encoding="utf-8")
    assert main(["lint", str(good)]) == 0
    assert capsys.readouterr().out.strip() == "no findings"
    dk = tmp_path / "dk.json"
    dk.write_text(
        json.dumps(
            {
                "id": "q",
                "name": "Q",
                "description": "d",
                "version": "1.0.0",
                "target_type": "content",
                "pass_threshold": 0.7,
                "criteria": [
                    {
                        "id": "c",
                        "name": "C",
                        "description": "Has at least ten questions",
                        "weight": 0.5,
                        "levels": [
                            {"id": "fail", "label": "Fail", "description": "few", "score": 0.0},
                            {"id": "pass", "label": "Pass", "description": "many", "score": 1.0},
                        ],
                        "scoring_method": {"type": "deterministic", "function_ref": "m:f"},
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    assert main(["lint", str(dk)]) == 1
    out = capsys.readouterr().out
    assert "error criteria: dataknobs weights must sum to 1 (within 0.01); they sum to 0.5" in out
    assert main(["lint", str(dk), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["errors"] == 1 and data["findings"][0]["check"] == "weights"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"criteria": [{"requirement": "x", "weight": "heavy"}]}))
    assert main(["lint", str(broken)]) == 1
    assert capsys.readouterr().out.startswith("error criteria[0].weight")
    assert main(["lint", str(good), "--judge", "fake"]) == 0  # fake: "not vague", for each leaf
    assert capsys.readouterr().out.strip() == "no findings"


async def test_meta_rubric_runs_builtins_without_imports() -> None:
    meta = build_meta_rubric()
    assert [c.scoring_method.function_ref for c in meta.criteria if c.scoring_method] == [
        "rubricjudge.meta:check_criteria_coverage",
        "rubricjudge.meta:check_criteria_independence",
        "rubricjudge.meta:check_weight_distribution",
        "rubricjudge.meta:check_threshold",
        "rubricjudge.meta:check_level_ordering",
    ]
    assert lint_rubric(meta) == []
    ok = await evaluate_rubric(meta, meta.to_dict())
    assert (ok.score, ok.passed, ok.error_count) == (pytest.approx(1.0), True, 0)
    bad = Rubric(
        [
            Criterion(
                name="a",
                requirement="Explains the main cause clearly",
                weight=0.5,
                options=opts(1.0, 0.0, 0.5),
            )
        ],
        pass_threshold=0.9,
        metadata={"format": "dataknobs"},
    )
    report = await evaluate_rubric(meta, bad)
    levels = [r.level_id for r in report.report or []]
    assert levels == ["pass", "pass", "fail", "pass", "fail"]
    assert report.passed is False
    empty = await evaluate_rubric(meta, {"criteria": []})
    assert (empty.report or [])[0].level_id == "fail"
