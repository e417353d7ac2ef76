"""Scores beside the released peers where they once differed (issue 23, R5, R6, R7).

The references below transcribe autorubric 1.6.1's ``scoring.score_reports`` loop
(read from its wheel) and the ``rubric`` 2.2.0 ``PerCriterionGrader.aggregate``:

* R5: when only zero-weight criteria count, both give 0.0 (rubricjudge gave None);
* R6: ``normalize=False`` with nothing counted gives None in autorubric (and in our
  own docs); rubricjudge gave 0.0;
* R7: both add in rubric order; rubricjudge's exactly rounded ``math.fsum`` differs in
  the last bit now and then. ``compat="autorubric"`` adds in order and matches bit
  for bit; the default keeps exactly rounded sums (order-independent).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rubricjudge import CannotAssessStrategy, Criterion, Rubric, ScoringPolicy
from rubricjudge._model._scoring import finalize, reports_from_verdicts, score_reports

MET, UNMET, CA = "MET", "UNMET", "CANNOT_ASSESS"
AUTORUBRIC = ScoringPolicy(compat="autorubric")


def autorubric_score(pairs: list[tuple[float, str]], normalize: bool = True) -> float | None:
    """autorubric 1.6.1 ``score_reports`` under SKIP, binary criteria: (weight, verdict)."""
    weighted_sum = 0.0
    total_positive_weight = 0.0
    total_negative_weight = 0.0
    n_scored = 0
    for w, v in pairs:
        if v == CA:
            continue
        weighted_sum += (1.0 if v == MET else 0.0) * w
        n_scored += 1
        if w > 0:
            total_positive_weight += w
        else:
            total_negative_weight += abs(w)
    if n_scored == 0:
        return None
    if not normalize:
        return weighted_sum
    if total_positive_weight > 0:
        return max(0.0, min(1.0, weighted_sum / total_positive_weight))
    if total_negative_weight > 0:
        return max(0.0, min(1.0, 1.0 + weighted_sum / total_negative_weight))
    return 0.0


def rubric_pkg_score(pairs: list[tuple[float, str]]) -> float:
    """``rubric`` 2.2.0 ``PerCriterionGrader.aggregate`` (normalised; MET or not)."""
    total_positive_weight = sum(max(0.0, w) for w, _ in pairs)
    total_negative_weight = sum(abs(w) for w, _ in pairs if w < 0)
    weighted_score_sum = sum((1.0 if v == MET else 0.0) * w for w, v in pairs)
    if total_positive_weight > 0:
        return max(0.0, min(1.0, weighted_score_sum / total_positive_weight))
    if total_negative_weight > 0:
        return max(0.0, min(1.0, 1.0 + weighted_score_sum / total_negative_weight))
    return 0.0


def ours(pairs: list[tuple[float, str]], policy: ScoringPolicy | None = None) -> Any:
    rubric = Rubric(
        [Criterion(name=f"c{i}", requirement="x", weight=w) for i, (w, _) in enumerate(pairs)]
    )
    reports = reports_from_verdicts(rubric, [v for _, v in pairs])
    policy = policy or ScoringPolicy()
    return score_reports(reports, policy, all_negative=rubric.is_all_negative).score


def test_r5_only_zero_weights_counted_is_0_like_both_peers() -> None:
    pairs = [(0.0, MET), (0.0, UNMET), (5.0, CA)]
    assert autorubric_score(pairs) == 0.0
    assert rubric_pkg_score([(0.0, MET), (0.0, UNMET)]) == 0.0
    assert ours(pairs) == 0.0  # was None
    rubric = Rubric([Criterion(name="info", requirement="x", weight=0)])
    assert rubric.compute_score([MET]) == 0.0
    assert finalize(rubric, reports_from_verdicts(rubric, [UNMET])).score == 0.0


def test_r6_nothing_counted_is_none_normalised_or_not() -> None:
    pairs = [(3.0, CA), (-2.0, CA)]
    assert autorubric_score(pairs, normalize=False) is None
    assert ours(pairs, ScoringPolicy(normalize=False)) is None  # was 0.0
    assert ours(pairs) is None
    rubric = Rubric([Criterion(name="a", requirement="x", weight=3)])
    assert rubric.compute_score([CA], normalize=False) is None
    assert rubric.compute_score([UNMET], normalize=False) == 0.0  # counted: a real 0.0


def test_r7_the_sums_differ_in_the_last_bit_and_the_autorubric_mode_matches() -> None:
    pairs = [(0.1, MET), (0.2, MET), (0.3, UNMET)]
    in_order = autorubric_score(pairs)
    assert in_order == rubric_pkg_score(pairs) == 0.5
    exact = math.fsum([0.1, 0.2]) / math.fsum([0.1, 0.2, 0.3])
    assert exact != in_order  # 0.5000000000000001: one ulp
    assert ours(pairs) == exact
    assert ours(pairs, AUTORUBRIC) == in_order
    assert ScoringPolicy.coerce("autorubric") == AUTORUBRIC


def test_r7_a_paperbench_tree_adds_in_order_in_the_autorubric_mode() -> None:
    # a parent is the weighted mean of its children, PaperBench's node score
    kids = [
        Criterion(name=f"k{i}", requirement="x", weight=w) for i, w in enumerate((0.1, 0.2, 0.3))
    ]
    root = Rubric([Criterion(name="root", requirement="r", weight=1.0, subcriteria=kids)])
    reports = reports_from_verdicts(root, [MET, MET, UNMET])
    paperbench = (1.0 * 0.1 + 1.0 * 0.2 + 0.0 * 0.3) / (0.1 + 0.2 + 0.3)
    assert score_reports(reports, AUTORUBRIC).score == paperbench
    assert score_reports(reports).score != paperbench  # exactly rounded: 1 ulp apart


binary = st.lists(
    st.tuples(
        st.one_of(
            st.floats(min_value=-20, max_value=20, allow_nan=False),
            st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.7, -0.1, -0.3]),
        ),
        st.sampled_from([MET, UNMET, CA]),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(binary)
def test_the_autorubric_mode_is_bit_exact_with_autorubric(pairs: list[tuple[float, str]]) -> None:
    assert ours(pairs, AUTORUBRIC) == autorubric_score(pairs)
    unnormalised = ScoringPolicy(normalize=False, compat="autorubric")
    assert ours(pairs, unnormalised) == autorubric_score(pairs, normalize=False)
    strategy = ScoringPolicy(CannotAssessStrategy.SKIP)
    got, want = ours(pairs, strategy), autorubric_score(pairs)
    assert (got is None) == (want is None)
    if got is not None and want is not None:
        assert abs(got - want) <= 4 * math.ulp(max(abs(want), 1.0))  # the default: exact sums
