"""Property-based checks of the scoring invariants (hypothesis).

Random rubrics (flat and nested, binary and multi-choice, positive and negative
weights) with random verdicts are scored through every path that computes a score
and against a reference written straight from the seeds' formulas.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricjudge import CannotAssessStrategy, Criterion, CriterionOption, Rubric, ScoringPolicy
from rubricjudge._model._scoring import finalize, reports_from_verdicts, score_reports

STRATEGIES = [s.value for s in CannotAssessStrategy]
weights = st.one_of(
    st.floats(min_value=-20, max_value=20, allow_nan=False).filter(lambda w: abs(w) > 1e-3),
    st.sampled_from([1.0, -1.0, 10.0, -15.0, 0.5, 0.0]),  # 0: counted, moves nothing
)
values = st.floats(min_value=0, max_value=1, allow_nan=False)


@st.composite
def leaf(draw: st.DrawFn, name: str) -> Criterion:
    w = draw(weights)
    if draw(st.booleans()):
        return Criterion(name=name, requirement=f"req {name}", weight=w)
    n = draw(st.integers(1, 4))
    options = [CriterionOption(label=f"o{k}", value=draw(values)) for k in range(n)]
    if draw(st.booleans()):
        options.append(CriterionOption(label="N/A", na=True))
    return Criterion(name=name, requirement=f"req {name}", weight=w, options=options)


@st.composite
def criteria(draw: st.DrawFn, prefix: str, depth: int) -> list[Criterion]:
    out = []
    for i in range(draw(st.integers(1, 4))):
        name = f"{prefix}{i}"
        if depth > 0 and draw(st.integers(0, 3)) == 0:
            kids = draw(criteria(f"{name}_", depth - 1))
            out.append(
                Criterion(
                    name=name, requirement=f"req {name}", weight=draw(weights), subcriteria=kids
                )
            )
        else:
            out.append(draw(leaf(name)))
    return out


def verdict_for(draw: st.DrawFn, c: Criterion) -> Any:
    if c.options is None:
        return draw(st.sampled_from(["MET", "UNMET", "CANNOT_ASSESS", True, False, 1, 0]))
    return draw(st.sampled_from([o.label for o in c.options] + ["CANNOT_ASSESS"]))


@st.composite
def cases(draw: st.DrawFn, depth: int = 2) -> tuple[Rubric, list[Any]]:
    rubric = Rubric(draw(criteria("c", depth)))
    return rubric, [verdict_for(draw, c) for c in rubric.leaves()]


@st.composite
def policies(draw: st.DrawFn) -> ScoringPolicy:
    return ScoringPolicy(
        CannotAssessStrategy(draw(st.sampled_from(STRATEGIES))),
        draw(values),
        normalize=True,
    )


# -- the reference: the formulas, written out once more independently -----------------------------
def _credit(c: Criterion, v: Any, p: ScoringPolicy) -> float | None:
    if c.options is not None and v != "CANNOT_ASSESS":
        opt = next(o for o in c.options if o.label == v)
        if not opt.na:
            return opt.value
        # an N/A option is handled as CANNOT_ASSESS (autorubric: "CANNOT_ASSESS / NA")
    elif v in ("MET", True, 1):
        return 1.0
    elif v in ("UNMET", False, 0):
        return 0.0
    s = p.cannot_assess.value
    if s == "skip":
        return None
    if s == "zero":
        return 0.0
    if s == "partial":  # credit for positive weights only; a penalty is not charged
        return p.partial_credit if c.weight >= 0 else 0.0
    if c.options is not None:  # fail: the worst scored option for the weight's sign
        scored = [o.value for o in c.options if not o.na]
        return max(scored) if c.weight < 0 else min(scored)
    return 1.0 if c.weight < 0 else 0.0


def _reference(cs: list[Criterion], vs: list[Any], p: ScoringPolicy) -> tuple[float | None, float]:
    """(normalised score or None when nothing counted, raw sum); consumes ``vs``."""
    pairs = []
    for c in cs:
        if c.subcriteria:
            credit = _reference(c.subcriteria, vs, p)[0]
        else:
            credit = _credit(c, vs.pop(0), p)
        if credit is not None:
            pairs.append((credit, c.weight))
    raw = sum(v * w for v, w in pairs)
    positive = sum(w for _, w in pairs if w > 0)
    if positive > 0:
        return min(1.0, max(0.0, raw / positive)), raw
    absolute = sum(abs(w) for _, w in pairs)
    if absolute > 0:  # no positive weight counted: 1 + raw / sum|w|
        return min(1.0, max(0.0, 1 + raw / absolute)), raw
    return (0.0 if pairs else None), raw  # only zero weights: 0.0; nothing counted: None


def reference(rubric: Rubric, verdicts: list[Any], p: ScoringPolicy) -> tuple[float | None, float]:
    return _reference(rubric.criteria, list(verdicts), p)


def score(rubric: Rubric, verdicts: list[Any], p: ScoringPolicy) -> float | None:
    return rubric.compute_score(
        verdicts,
        normalize=p.normalize,
        cannot_assess_strategy=p.cannot_assess,
        partial_credit=p.partial_credit,
    )


# -- invariants ---------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)  # no wall-clock limits on a shared machine
@given(cases(), values)
def test_matches_reference_and_stays_in_bounds(
    case: tuple[Rubric, list[Any]], partial: float
) -> None:
    rubric, verdicts = case
    for strategy in CannotAssessStrategy:  # every strategy on every case
        p = ScoringPolicy(strategy, partial)
        got = score(rubric, verdicts, p)
        want, raw = reference(rubric, verdicts, p)
        if want is None:
            assert got is None
        else:
            assert got is not None and 0.0 <= got <= 1.0
            assert got == pytest.approx(want, abs=1e-9)
        unnormalised = ScoringPolicy(strategy, partial, normalize=False)
        if want is None:  # nothing counted: no raw score either (autorubric's None)
            assert score(rubric, verdicts, unnormalised) is None
        else:
            assert score(rubric, verdicts, unnormalised) == pytest.approx(raw, abs=1e-9)


@given(cases(), policies())
def test_every_path_agrees(case: tuple[Rubric, list[Any]], p: ScoringPolicy) -> None:
    from rubricjudge._datasets import RubricDataset

    rubric, verdicts = case
    by_list = score(rubric, verdicts, p)
    by_name = score(
        rubric, dict(zip([c.name or "" for c in rubric.leaves()], verdicts, strict=True)), p
    )
    reports = reports_from_verdicts(rubric, verdicts)
    core = score_reports(reports, p)
    final = finalize(rubric, reports, p)
    dataset = RubricDataset(prompt="p", rubric=rubric).compute_weighted_score(
        verdicts, cannot_assess_strategy=p.cannot_assess, partial_credit=p.partial_credit
    )
    assert by_list == by_name == core.score == final.score == dataset
    assert final.raw_score == core.raw_score
    raw = ScoringPolicy(p.cannot_assess, p.partial_credit, normalize=False)
    unnormalised = score_reports(reports, raw)
    # nothing counted: the score is None (R6, as autorubric), the raw sum stays 0.0
    assert unnormalised.raw_score == (0.0 if unnormalised.score is None else unnormalised.score)
    assert (
        score(rubric, verdicts, raw)
        == unnormalised.score
        == finalize(rubric, reports, raw).score
        == RubricDataset(prompt="p", rubric=rubric).compute_weighted_score(
            verdicts,
            normalize=False,
            cannot_assess_strategy=p.cannot_assess,
            partial_credit=p.partial_credit,
        )
    )


def _effective_sign(rubric: Rubric, leaf_index: int) -> float:
    """Product of the weight signs on the path from the root to the leaf."""

    def walk(cs: list[Criterion], sign: float, counter: list[int]) -> float | None:
        for c in cs:
            s = sign * math.copysign(1.0, c.weight)
            if c.subcriteria:
                found = walk(c.subcriteria, s, counter)
                if found is not None:
                    return found
            else:
                if counter[0] == leaf_index:
                    return s
                counter[0] += 1
        return None

    found = walk(rubric.criteria, 1.0, [0])
    assert found is not None
    return found


@settings(max_examples=150, deadline=None)
@given(cases(), policies(), st.data())
def test_monotone_in_met(
    case: tuple[Rubric, list[Any]], p: ScoringPolicy, data: st.DataObject
) -> None:
    """Turning UNMET into MET never lowers the score for a positive criterion, never raises it
    for a penalty (signs multiply down a tree); the same for a higher-valued option."""
    rubric, verdicts = case
    leaves = rubric.leaves()
    i = data.draw(st.integers(0, len(leaves) - 1))
    c = leaves[i]
    before, after = list(verdicts), list(verdicts)
    if c.options is None:
        before[i], after[i] = "UNMET", "MET"
    else:
        scored = [o for o in c.options if not o.na]
        lo = data.draw(st.sampled_from(scored))
        hi = data.draw(st.sampled_from([o for o in scored if o.value >= lo.value]))
        before[i], after[i] = lo.label, hi.label
    s0, s1 = score(rubric, before, p), score(rubric, after, p)
    if _effective_sign(rubric, i) > 0:
        assert s1 >= s0 - 1e-12
    else:
        assert s1 <= s0 + 1e-12


@given(st.lists(weights.map(abs).filter(lambda w: w > 0), min_size=1, max_size=6), policies())
def test_sign_behaviour(ws: list[float], p: ScoringPolicy) -> None:
    positive = Rubric([Criterion(requirement=f"r{i}", weight=w) for i, w in enumerate(ws)])
    negative = Rubric([Criterion(requirement=f"r{i}", weight=-w) for i, w in enumerate(ws)])
    assert score(positive, ["MET"] * len(ws), p) == 1.0
    assert score(positive, ["UNMET"] * len(ws), p) == 0.0
    assert score(negative, ["UNMET"] * len(ws), p) == 1.0
    assert score(negative, ["MET"] * len(ws), p) == 0.0
    mixed = Rubric(positive.criteria + negative.criteria)
    best = ["MET"] * len(ws) + ["UNMET"] * len(ws)
    worst = ["UNMET"] * len(ws) + ["MET"] * len(ws)
    assert score(mixed, best, p) == 1.0
    assert score(mixed, worst, p) == 0.0
    raw = ScoringPolicy(p.cannot_assess, p.partial_credit, normalize=False)
    assert score(mixed, worst, raw) == pytest.approx(-sum(ws))
    assert score(mixed, best, raw) == pytest.approx(sum(ws))


@given(cases(depth=0), st.data())
def test_fail_is_the_worst_resolution(case: tuple[Rubric, list[Any]], data: st.DataObject) -> None:
    """Under FAIL, any real verdict in place of a CANNOT_ASSESS scores at least as high.

    Flat rubrics only: under a penalty parent the worst case for a leaf is the best for the root.
    """
    rubric, verdicts = case
    fail = score(rubric, verdicts, ScoringPolicy(CannotAssessStrategy.FAIL))
    resolved = list(verdicts)
    for i, (c, v) in enumerate(zip(rubric.leaves(), verdicts, strict=True)):
        if v == "CANNOT_ASSESS":
            real = (
                ["MET", "UNMET"] if c.options is None else [o.label for o in c.options if not o.na]
            )
            resolved[i] = data.draw(st.sampled_from(real))
    assert score(rubric, resolved, ScoringPolicy(CannotAssessStrategy.FAIL)) >= fail - 1e-12
