"""Property-based checks of the scoring invariants (hypothesis).

Random rubrics (flat and nested, binary and multi-choice, positive and negative
weights) with random verdicts are scored through every path that computes a score
and against a reference written straight from the seeds' formulas.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import assume, given, settings
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
    from rubricjudge._datasets._io import RubricDataset

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


# -- gates and relations (``_relations``) ---------------------------------------------------------
@st.composite
def gated_cases(draw: st.DrawFn) -> tuple[Rubric, Rubric, list[Any], float]:
    """(rubric with a gate, the same without it, verdicts other than the gate's, the cap)."""
    rest = draw(criteria("c", 1))
    cap = draw(st.sampled_from([0.0, 0.25, 0.5, 0.9]))
    weight = draw(st.sampled_from([0.0, 1.0, 5.0]))
    gate = Criterion(name="gate", requirement="req gate", weight=weight, gate={"cap": cap})
    plain = gate.model_copy(update={"gate": None})
    at = draw(st.integers(0, len(rest)))
    gated = Rubric([*rest[:at], gate, *rest[at:]])
    ungated = Rubric([*rest[:at], plain, *rest[at:]])
    verdicts = [verdict_for(draw, c) for c in Rubric(rest).leaves()]
    return gated, ungated, verdicts, cap


def _with_gate(rubric: Rubric, verdicts: list[Any], gate: Any) -> list[Any]:
    leaves = [c.name for c in rubric.leaves()]
    out = list(verdicts)
    out.insert(leaves.index("gate"), gate)
    return out


@settings(max_examples=200, deadline=None)
@given(gated_cases(), policies(), st.booleans())
def test_a_gate_caps_and_never_raises(
    case: tuple[Rubric, Rubric, list[Any], float], p: ScoringPolicy, normalize: bool
) -> None:
    gated, ungated, verdicts, cap = case
    p = p.with_normalize(normalize)
    for gate in ("MET", "UNMET", "CANNOT_ASSESS"):
        vs = _with_gate(gated, verdicts, gate)
        free = score_reports(reports_from_verdicts(ungated, vs), p)
        got = score_reports(reports_from_verdicts(gated, vs), p)
        closed = gate == "UNMET" or (
            gate == "CANNOT_ASSESS" and p.cannot_assess in ("zero", "fail")
        )
        if not closed:  # an open gate changes nothing
            assert got == free
            continue
        if free.score is None:
            assert got.score is None
            continue
        unit = score_reports(reports_from_verdicts(ungated, vs), p.with_normalize(True)).score
        assert unit is not None
        if normalize:
            assert got.score == pytest.approx(min(free.score, cap))
        assert got.raw_score <= free.raw_score + 1e-9  # a closed gate never adds
        gated_unit = score_reports(reports_from_verdicts(gated, vs), p.with_normalize(True)).score
        assert gated_unit is not None and gated_unit <= cap + 1e-12
        if unit <= cap:  # under the cap: untouched
            assert got == free


@st.composite
def related_cases(draw: st.DrawFn) -> tuple[Rubric, list[float]]:
    n = draw(st.integers(2, 6))
    names = [f"r{i}" for i in range(n)]
    crits = [
        Criterion(name=x, requirement=f"req {x}", weight=draw(st.sampled_from([1.0, 2.0, 0.5])))
        for x in names
    ]
    relations: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 4))):
        a, b = draw(st.permutations(names))[:2]
        if draw(st.booleans()):
            relations.append({"exclusive": sorted({a, b, *draw(st.sets(st.sampled_from(names)))})})
        else:
            relations.append({"implies": {"when": a, "then": b}})
    try:
        rubric = Rubric(crits, relations=relations)
    except Exception:  # a cycle or a contradiction: refused, as it should be
        assume(False)
    probs = [draw(st.floats(0.01, 0.99)) for _ in names]
    return rubric, probs


@settings(max_examples=200, deadline=None)
@given(related_cases())
def test_the_joint_decision_is_the_most_probable_valid_assignment(
    case: tuple[Rubric, list[float]],
) -> None:
    from itertools import product

    from rubricjudge._model._relations import decide_related
    from rubricjudge._model._reports import CriterionReport

    rubric, probs = case
    leaves = [
        CriterionReport(
            criterion=c,
            verdict="MET" if p > 0.5 else "UNMET",
            probabilities={"MET": p, "UNMET": 1 - p},
        )
        for c, p in zip(rubric.leaves(), probs, strict=True)
    ]
    names = [c.name for c in rubric.leaves()]

    def valid(bits: tuple[bool, ...]) -> bool:
        met = dict(zip(names, bits, strict=True))
        for rel in rubric.relations or []:
            if rel.exclusive is not None and sum(met[x] for x in rel.exclusive) > 1:
                return False
            if rel.implies is not None and met[rel.implies.when] and not met[rel.implies.then]:
                return False
        return True

    def logp(bits: tuple[bool, ...]) -> float:
        return sum(math.log(p if b else 1 - p) for p, b in zip(probs, bits, strict=True))

    out = decide_related(rubric, leaves)
    chosen = tuple(r.verdict is not None and r.verdict.value == "MET" for r in out)
    assert valid(chosen)
    best = max(logp(bits) for bits in product((False, True), repeat=len(names)) if valid(bits))
    assert logp(chosen) == pytest.approx(best, abs=1e-9)
    independent = tuple(p > 0.5 for p in probs)
    if valid(independent):  # nothing to decide: the judge's verdicts stand
        assert chosen == independent
    related = {x for rel in rubric.relations or [] for x in rel.names}
    for before, after in zip(leaves, out, strict=True):
        assert after.probabilities == before.probabilities  # the judge's own, kept
        if before.criterion.name not in related:  # outside every relation: untouched
            assert after == before
            continue
        assert after.relation is not None
        assert after.relation.changed == (after.verdict != before.verdict)
