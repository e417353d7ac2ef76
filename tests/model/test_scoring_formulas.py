"""Scoring formulas checked against hand-computed examples from the seeds."""

from __future__ import annotations

import pytest

from rubricjudge import (
    CannotAssessStrategy,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    Rubric,
    Scale,
    ScoringPolicy,
    VerdictError,
)
from rubricjudge._model._reports import TokenUsage
from rubricjudge._model._scoring import finalize, reports_from_verdicts, score_reports

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


def crit(name: str, weight: float, **kw: object) -> Criterion:
    return Criterion(name=name, requirement=f"requirement {name}", weight=weight, **kw)


def opts(*pairs: tuple[str, float], na: str | None = None) -> list[CriterionOption]:
    out = [CriterionOption(label=label, value=value) for label, value in pairs]
    if na is not None:
        out.append(CriterionOption(label=na, na=True))
    return out


# -- the `rubric` seed: positive formula, clamping, all-negative formula -----------------------
SEED = Rubric([crit("margin", 10.0), crit("shapley", 8.0), crit("deliveries", -15.0)])


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (["MET", "MET", "UNMET"], 18 / 18),
        (["MET", "MET", "MET"], (10 + 8 - 15) / 18),
        (["UNMET", "MET", "UNMET"], 8 / 18),
        (["MET", "UNMET", "UNMET"], 10 / 18),
        (["MET", "UNMET", "MET"], 0.0),  # raw -5 clamps to 0
        (["UNMET", "UNMET", "MET"], 0.0),  # raw -15 clamps to 0
        (["UNMET", "UNMET", "UNMET"], 0.0),
    ],
)
def test_rubric_seed_positive_formula(verdicts: list[str], expected: float) -> None:
    assert SEED.compute_score(verdicts) == pytest.approx(expected)


def test_rubric_seed_raw_score_is_unclamped() -> None:
    reports = reports_from_verdicts(SEED, ["MET", "UNMET", "MET"])
    result = score_reports(reports)
    assert result.raw_score == pytest.approx(-5.0)
    assert result.score == 0.0
    assert SEED.compute_score(["MET", "UNMET", "MET"], normalize=False) == pytest.approx(-5.0)
    assert SEED.compute_score(["MET", "MET", "MET"], normalize=False) == pytest.approx(3.0)


NEG = Rubric([crit("typo", -4.0), crit("wrong_fact", -6.0)])


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (["UNMET", "UNMET"], 1.0),  # every error avoided
        (["MET", "MET"], 0.0),  # every error present
        (["MET", "UNMET"], 1 - 4 / 10),
        (["UNMET", "MET"], 1 - 6 / 10),
    ],
)
def test_rubric_seed_all_negative_formula(verdicts: list[str], expected: float) -> None:
    assert NEG.is_all_negative
    assert NEG.compute_score(verdicts) == pytest.approx(expected)


def test_all_negative_raw_score_is_weighted_sum() -> None:
    assert NEG.compute_score(["MET", "UNMET"], normalize=False) == pytest.approx(-4.0)
    assert NEG.compute_score(["UNMET", "UNMET"], normalize=False) == 0.0


# -- autorubric CannotAssessStrategy on binary criteria -----------------------------------------
BIN = Rubric([crit("a", 10.0), crit("b", 5.0), crit("c", -3.0)])


@pytest.mark.parametrize(
    ("strategy", "partial", "score", "raw"),
    [
        # b, c skipped: 10 / 10
        ("skip", 0.5, 1.0, 10.0),
        # b gets 0 of 5, c gets 0 of -3: 10 / 15
        ("zero", 0.5, 10 / 15, 10.0),
        # b gets 0.5 * 5; a penalty is not charged partial credit (autorubric): 12.5 / 15
        ("partial", 0.5, 12.5 / 15, 12.5),
        ("partial", 0.2, (10 + 1) / 15, 11.0),
        # worst case for the sign: b UNMET, c MET: (10 - 3) / 15
        ("fail", 0.5, 7 / 15, 7.0),
    ],
)
def test_cannot_assess_binary(strategy: str, partial: float, score: float, raw: float) -> None:
    verdicts = [MET, CA, CA]
    got = BIN.compute_score(verdicts, cannot_assess_strategy=strategy, partial_credit=partial)
    assert got == pytest.approx(score)
    got_raw = BIN.compute_score(
        verdicts, normalize=False, cannot_assess_strategy=strategy, partial_credit=partial
    )
    assert got_raw == pytest.approx(raw)
    policy = ScoringPolicy(CannotAssessStrategy(strategy), partial)
    assert score_reports(reports_from_verdicts(BIN, verdicts), policy).cannot_assess_count == 2


def test_fail_on_all_negative_rubric_assumes_the_fault() -> None:
    # CA on a penalty under FAIL counts as MET: 1 + (-4 - 6) / 10 = 0
    assert NEG.compute_score([CA, "MET"], cannot_assess_strategy="fail") == 0.0
    # and under ZERO as absent: 1 + (-6) / 10
    assert NEG.compute_score([CA, "MET"], cannot_assess_strategy="zero") == pytest.approx(0.4)
    # SKIP drops it from the denominator: 1 + (-6) / 6
    assert NEG.compute_score([CA, "MET"], cannot_assess_strategy="skip") == 0.0
    assert NEG.compute_score([CA, "UNMET"], cannot_assess_strategy="skip") == 1.0


def test_nothing_counted_has_no_score() -> None:
    assert BIN.compute_score([CA, CA, CA]) is None  # autorubric returns None too
    assert BIN.compute_score([CA, CA, CA], normalize=False) is None  # as autorubric (R6)
    # only a penalty counted: no positive weight counted, so the all-negative formula
    assert BIN.compute_score([CA, CA, "UNMET"]) == 1.0
    assert BIN.compute_score([CA, CA, "MET"]) == 0.0
    # a zero weight beside a penalty, both UNMET: 1.0 in autorubric and both `rubric`s
    zero = Rubric([crit("z", 0.0), crit("p", -5.0)])
    assert zero.compute_score(["UNMET", "UNMET"]) == 1.0
    assert zero.compute_score(["MET", "MET"]) == 0.0
    assert Rubric([crit("z", 0.0)]).compute_score(["MET"]) == 0.0  # as both peers (R5)


# -- multi-choice criteria ----------------------------------------------------------------------
MC = Rubric(
    [
        crit("a", 4.0),
        crit("q", 6.0, options=opts(("Poor", 0.0), ("Fair", 0.5), ("Good", 1.0), na="N/A")),
    ]
)
MC_NEG = Rubric(
    [
        crit("a", 4.0),
        crit("noise", -6.0, options=opts(("none", 0.0), ("some", 0.5), ("lots", 1.0), na="n/a")),
    ]
)


@pytest.mark.parametrize(
    ("rubric", "verdicts", "strategy", "expected"),
    [
        (MC, ["MET", "Fair"], "skip", (4 + 3) / 10),
        (MC, ["UNMET", "Good"], "skip", 6 / 10),
        (MC, ["MET", "N/A"], "skip", 1.0),  # N/A leaves the denominator
        (MC, ["UNMET", "N/A"], "skip", 0.0),
        (MC, ["MET", "N/A"], "fail", 4 / 10),  # N/A follows the strategy: worst option
        (MC, ["MET", "N/A"], "zero", 4 / 10),  # [10, 5 N/A] -> 0.667 in autorubric alike
        (MC, ["MET", "N/A"], "partial", (4 + 0.25 * 6) / 10),
        (MC, ["MET", CA], "skip", 1.0),
        (MC, ["MET", CA], "zero", 4 / 10),
        (MC, ["MET", CA], "partial", (4 + 0.25 * 6) / 10),
        (MC, ["MET", CA], "fail", 4 / 10),  # worst option: Poor (0)
        (MC_NEG, ["MET", "some"], "skip", (4 - 3) / 4),
        (MC_NEG, ["MET", "none"], "skip", 1.0),
        (MC_NEG, ["MET", "lots"], "skip", 0.0),  # raw -2 clamps
        (MC_NEG, ["MET", "n/a"], "skip", 1.0),
        (MC_NEG, ["MET", CA], "zero", 1.0),
        (MC_NEG, ["MET", CA], "partial", 1.0),  # a penalty gets no partial charge
        (MC_NEG, ["MET", CA], "fail", 0.0),  # worst for a penalty: "lots" (1.0)
    ],
)
def test_multi_choice(
    rubric: Rubric, verdicts: list[object], strategy: str, expected: float
) -> None:
    got = rubric.compute_score(verdicts, cannot_assess_strategy=strategy, partial_credit=0.25)
    assert got == pytest.approx(expected)


def test_multi_choice_raw_sums() -> None:
    assert MC.compute_score(["MET", "Fair"], normalize=False) == pytest.approx(7.0)
    assert MC_NEG.compute_score(["MET", "lots"], normalize=False) == pytest.approx(-2.0)
    assert MC_NEG.compute_score(["UNMET", "some"], normalize=False) == pytest.approx(-3.0)


def test_multi_choice_labels_are_matched_loosely_and_numbers_read_as_labels() -> None:
    ordinal = Rubric([crit("q", 1.0, options=opts(("1", 0.0), ("2", 1 / 3), ("3", 2 / 3)))])
    assert ordinal.compute_score([3]) == pytest.approx(2 / 3)
    assert ordinal.compute_score(["2"]) == pytest.approx(1 / 3)
    assert MC.compute_score(["met", "  fair "]) == pytest.approx(0.7)
    with pytest.raises(VerdictError, match=r"verdicts\[1\].*'Excellent'.*'Poor'"):
        MC.compute_score(["MET", "Excellent"])


# -- dataknobs: weighted mean of level scores, pass threshold -----------------------------------
def _levels() -> list[CriterionOption]:
    return [
        CriterionOption(id="fail", label="Fail", value=0.0),
        CriterionOption(id="pass", label="Pass", value=0.7),
        CriterionOption(id="excellent", label="Excellent", value=1.0),
    ]


def _dataknobs(weights: tuple[float, ...], threshold: float) -> Rubric:
    criteria = [crit(f"c{i}", w, options=_levels()) for i, w in enumerate(weights)]
    return Rubric(criteria, id="content_quality", pass_threshold=threshold)


@pytest.mark.parametrize(
    ("weights", "levels", "threshold", "score", "passed"),
    [
        ((0.4, 0.35, 0.25), ["pass", "excellent", "fail"], 0.7, 0.4 * 0.7 + 0.35, False),
        ((0.4, 0.35, 0.25), ["excellent", "excellent", "pass"], 0.7, 0.75 + 0.25 * 0.7, True),
        ((0.5, 0.5), ["pass", "pass"], 0.7, 0.7, True),  # >= passes at equality
        ((2.0, 1.0), ["excellent", "Fail"], 0.6, 2 / 3, True),  # weights need not sum to 1
        ((2.0, 1.0), ["fail", "excellent"], 0.6, 1 / 3, False),
    ],
)
def test_dataknobs_weighted_mean_and_pass(
    weights: tuple[float, ...], levels: list[str], threshold: float, score: float, passed: bool
) -> None:
    rubric = _dataknobs(weights, threshold)
    report = finalize(rubric, reports_from_verdicts(rubric, levels))
    expected = sum(w * v for w, v in zip(weights, [_value(x) for x in levels], strict=True))
    assert report.score == pytest.approx(expected / sum(weights))
    assert report.score == pytest.approx(score)
    assert report.passed is passed


def _value(level: str) -> float:
    return {"fail": 0.0, "pass": 0.7, "excellent": 1.0}[level.lower()]


# -- OpenRubricRL: weights sum to 1, scaled onto the rubric's scale -----------------------------
def _orrl(scale: Scale) -> Rubric:
    weights = (0.4, 0.3, 0.2, 0.1)
    return Rubric([crit(f"c{i}", w) for i, w in enumerate(weights)], scale=scale)


@pytest.mark.parametrize(
    ("scale", "verdicts", "unit", "scaled"),
    [
        (Scale(min=0, max=10), ["MET", "UNMET", "MET", "MET"], 0.7, 7.0),
        (Scale(min=1, max=5, type="discrete"), ["MET", "UNMET", "MET", "MET"], 0.7, 4.0),
        (Scale(min=1, max=5, type="discrete"), ["UNMET", "MET", "UNMET", "UNMET"], 0.3, 2.0),
        (Scale(min=1, max=5), ["UNMET", "MET", "UNMET", "UNMET"], 0.3, 2.2),
        (Scale(min=0, max=100, type="discrete"), ["MET"] * 4, 1.0, 100.0),
        (Scale(min=-1, max=1), ["UNMET"] * 4, 0.0, -1.0),
    ],
)
def test_openrubricrl_scaled_score(
    scale: Scale, verdicts: list[str], unit: float, scaled: float
) -> None:
    rubric = _orrl(scale)
    report = finalize(rubric, reports_from_verdicts(rubric, verdicts))
    assert report.score == pytest.approx(unit)
    # weights sum to 1, so the weighted sum is already the unit score
    assert report.raw_score == pytest.approx(unit)
    assert report.scaled_score == pytest.approx(scaled)


def test_discrete_scale_rounds_half_up() -> None:
    # 0.25 + 0.125 = 0.375 exactly; 1 + 0.375 * 4 = 2.5 -> 3 (not banker's 2)
    rubric = Rubric(
        [crit("a", 0.25), crit("b", 0.125), crit("c", 0.625)],
        scale=Scale(min=1, max=5, type="discrete"),
    )
    report = finalize(rubric, reports_from_verdicts(rubric, ["MET", "MET", "UNMET"]))
    assert report.scaled_score == 3.0
    continuous = rubric.model_copy(update={"scale": Scale(min=1, max=5)})
    again = finalize(continuous, reports_from_verdicts(continuous, ["MET", "MET", "UNMET"]))
    assert again.scaled_score == 2.5


def test_scale_and_pass_use_unit_score_when_not_normalised() -> None:
    rubric = Rubric(
        [crit("a", 3.0), crit("b", 1.0)], scale=Scale(min=0, max=10), pass_threshold=0.5
    )
    policy = ScoringPolicy(normalize=False)
    report = finalize(rubric, reports_from_verdicts(rubric, ["MET", "UNMET"]), policy)
    assert report.score == 3.0  # the raw weighted sum
    assert report.raw_score == 3.0
    assert report.scaled_score == pytest.approx(7.5)
    assert report.passed is True


# -- hierarchical rubrics -------------------------------------------------------------------------
def _tree() -> Rubric:
    a2 = crit("a2", 3.0, subcriteria=[crit("a2x", 1.0), crit("a2y", 1.0)])
    a = crit("A", 2.0, subcriteria=[crit("a1", 1.0), a2])
    return Rubric([a, crit("B", 1.0)])


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        # a2 = 1/2; A = (1 + 3 * 0.5) / 4 = 0.625; root = (2 * 0.625 + 1) / 3
        ({"a1": "MET", "a2x": "MET", "a2y": "UNMET", "B": "MET"}, 2.25 / 3),
        # a2 = 0; A = 1/4; root = (0.5 + 1) / 3
        ({"a1": "MET", "a2x": "UNMET", "a2y": "UNMET", "B": "MET"}, 0.5),
        ({"a1": "MET", "a2x": "MET", "a2y": "MET", "B": "UNMET"}, 2 / 3),
        # a2 skipped entirely: A = a1 = 1; root = (2 + 0) / 3
        ({"a1": "MET", "a2x": CA, "a2y": CA, "B": "UNMET"}, 2 / 3),
        # A skipped entirely: root = B
        ({"a1": CA, "a2x": CA, "a2y": CA, "B": "MET"}, 1.0),
    ],
)
def test_hierarchical_weighted_mean(verdicts: dict[str, object], expected: float) -> None:
    rubric = _tree()
    assert rubric.compute_score(verdicts) == pytest.approx(expected)
    as_list = [verdicts[k] for k in ("a1", "a2x", "a2y", "B")]
    assert rubric.compute_score(as_list) == pytest.approx(expected)


def test_hierarchical_report_tree_and_parent_values() -> None:
    rubric = _tree()
    reports = reports_from_verdicts(rubric, ["MET", "MET", "UNMET", "MET"])
    assert [r.key for r in reports] == ["A", "B"]
    a = reports[0]
    assert a.children is not None and [c.key for c in a.children] == ["a1", "a2"]
    assert a.children[1].score_value == pytest.approx(0.5)
    assert a.score_value == pytest.approx(0.625)
    assert score_reports(reports).raw_score == pytest.approx(2 * 0.625 + 1)


def test_hierarchical_parent_with_penalty_children() -> None:
    safety = crit("safety", 2.0, subcriteria=[crit("leak", -1.0), crit("insult", -3.0)])
    rubric = Rubric([safety, crit("helpful", 2.0)])
    # safety = 1 + (-1) / 4 = 0.75; root = (2 * 0.75 + 2 * 1) / 4
    assert rubric.compute_score(["MET", "UNMET", "MET"]) == pytest.approx(3.5 / 4)


def test_verdict_for_a_parent_is_refused() -> None:
    with pytest.raises(VerdictError, match=r"verdicts\['A'\].*subcriteria.*'a1'"):
        _tree().compute_score({"A": "MET", "B": "MET"})


# -- verdict values and keys ----------------------------------------------------------------------
def test_binary_verdict_spellings() -> None:
    rubric = Rubric([crit("a", 1.0), crit("b", 1.0), crit("c", 1.0), crit("d", 1.0)])
    assert rubric.compute_score([True, 1, "met", "Yes"]) == 1.0
    assert rubric.compute_score([False, 0, "unmet", "no"]) == 0.0
    assert rubric.compute_score([True, 0.0, "cannot assess", MET]) == pytest.approx(2 / 3)
    with pytest.raises(VerdictError, match=r"verdicts\[2\].*'maybe'.*binary criterion 'c'"):
        rubric.compute_score([True, True, "maybe", True])
    with pytest.raises(VerdictError, match=r"verdicts\[0\].*2"):
        rubric.compute_score([2, True, True, True])


def test_mapping_accepts_id_or_name() -> None:
    rubric = Rubric([Criterion(id="c1", name="clarity", requirement="r", weight=1.0), crit("x", 3)])
    assert rubric.compute_score({"c1": "MET", "x": "UNMET"}) == pytest.approx(0.25)
    assert rubric.compute_score({"clarity": "MET", "x": "UNMET"}) == pytest.approx(0.25)
    with pytest.raises(VerdictError, match="already given"):
        rubric.compute_score({"c1": "MET", "clarity": "MET", "x": "MET"})
    with pytest.raises(VerdictError, match=r"no verdict for criterion 'x'"):
        rubric.compute_score({"c1": "MET"})
    with pytest.raises(
        VerdictError, match=r"verdicts\['claritty'\]: unknown.*did you mean 'clarity'"
    ):
        rubric.compute_score({"claritty": "MET", "x": "MET"})


def test_list_length_must_match_leaves() -> None:
    with pytest.raises(VerdictError, match="got 2 verdicts for 3 leaf criteria"):
        BIN.compute_score(["MET", "MET"])


def test_strategy_names_are_case_insensitive_and_checked() -> None:
    assert CannotAssessStrategy("FAIL") is CannotAssessStrategy.FAIL
    assert ScoringPolicy("Zero").cannot_assess is CannotAssessStrategy.ZERO  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'never'.*'skip', 'zero', 'partial', 'fail'"):
        ScoringPolicy("never")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="partial_credit 1.5"):
        ScoringPolicy(partial_credit=1.5)


# -- finalize: errors, usage, sections ------------------------------------------------------------
def test_finalize_all_errors_means_no_score() -> None:
    reports = reports_from_verdicts(BIN, ["CANNOT_ASSESS"] * 3)
    failed = [r.model_copy(update={"error": "timeout: judge did not answer"}) for r in reports]
    report = finalize(BIN, failed)
    assert report.score is None
    assert report.error_count == 3
    assert report.error is not None and "timeout" in report.error
    # errors that a fallback verdict stood in for still score
    fallbacks = reports_from_verdicts(BIN, ["UNMET", "UNMET", "UNMET"])
    fallen = [r.model_copy(update={"error": "timeout: x"}) for r in fallbacks]
    assert finalize(BIN, fallen).score == 0.0


def test_finalize_counts_errors_and_sums_usage() -> None:
    reports = reports_from_verdicts(BIN, ["MET", "UNMET", "UNMET"])
    reports[0] = reports[0].model_copy(
        update={"token_usage": TokenUsage(prompt_tokens=5, total_tokens=7), "completion_cost": 0.1}
    )
    reports[1] = reports[1].model_copy(
        update={
            "error": "parse: bad JSON",
            "token_usage": TokenUsage(prompt_tokens=1, total_tokens=2),
            "completion_cost": 0.2,
        }
    )
    reports[2] = reports[2].model_copy(update={"completion_cost": 0.0})
    report = finalize(BIN, reports)
    assert report.score == pytest.approx(10 / 15)
    assert report.error_count == 1
    assert report.token_usage is not None and report.token_usage.total_tokens == 9
    assert report.completion_cost == pytest.approx(0.3)


def test_by_section_follows_the_policy() -> None:
    rubric = Rubric(
        [
            crit("facts", 6.0, section="Content"),
            crit("depth", 2.0, section="Content"),
            crit("tone", 2.0, section="Style"),
            crit("rude", -5.0, section="Safety"),
            crit("misc", 1.0),
        ]
    )
    verdicts = ["MET", "UNMET", CA, "MET", "MET"]
    report = finalize(rubric, reports_from_verdicts(rubric, verdicts))
    skip = {s.section: s for s in report.by_section()}
    assert list(skip) == ["Content", "Style", "Safety", None]
    assert skip["Content"].score == pytest.approx(6 / 8)
    assert skip["Content"].raw_score == pytest.approx(6.0)
    assert skip["Content"].criteria == 2
    assert skip["Style"].score is None  # nothing counted under SKIP
    assert skip["Safety"].score == 0.0  # a penalties-only section uses the all-negative formula
    assert skip[None].score == 1.0
    zero = {s.section: s for s in report.by_section(ScoringPolicy(CannotAssessStrategy.ZERO))}
    assert zero["Style"].score == 0.0
    partial = ScoringPolicy(CannotAssessStrategy.PARTIAL, partial_credit=0.3)
    assert {s.section: s for s in report.by_section(partial)}["Style"].score == pytest.approx(0.3)
    raw = {s.section: s for s in report.by_section(ScoringPolicy(normalize=False))}
    assert raw["Safety"].score == -5.0
    assert raw["Style"].score is None


def test_section_with_only_a_penalty_counted_uses_the_all_negative_formula() -> None:
    rubric = Rubric([crit("good", 4.0, section="S"), crit("bad", -2.0, section="S")])
    report = finalize(rubric, reports_from_verdicts(rubric, [CA, "UNMET"]))
    (section,) = report.by_section()
    # only the penalty counted: the all-negative formula, for the section and the report
    assert section.score == 1.0 and section.raw_score == 0.0
    assert report.score == 1.0


def test_sums_are_compensated_so_thresholds_do_not_flip_with_order() -> None:
    # 0.1 * 3 in plain float sums is 0.30000000000000004 one way and 0.3 another
    weights = [0.1, 0.2, 0.3, 0.1, 0.2, 0.1]
    forward = Rubric([crit(f"c{i}", w) for i, w in enumerate(weights)], pass_threshold=0.5)
    backward = Rubric([crit(f"c{i}", w) for i, w in enumerate(reversed(weights))])
    met = ["MET", "UNMET", "MET", "UNMET", "UNMET", "MET"]
    a = forward.compute_score(met)
    b = backward.compute_score(list(reversed(met)))
    assert a == b == pytest.approx(0.5)
    report = finalize(forward, reports_from_verdicts(forward, met))
    assert report.passed is True
