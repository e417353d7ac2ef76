"""Metrics a calibration needs: PPI estimates, pooled agreement, raw vs calibrated, confidence."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from rubricjudge import (
    Criterion,
    CriterionReport,
    CriterionVerdict,
    EvaluationReport,
    Rubric,
    RubricDataset,
)
from rubricjudge._metrics._compute import compute_metrics
from rubricjudge._metrics._ppi import naive_mean, ppi_mean
from rubricjudge.reports import CalibrationRecord

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET


def test_ppi_matches_the_formula_on_a_hand_example() -> None:
    unl = [1.0, 0.0, 1.0, 1.0]  # judge on 4 unlabelled items
    jl, hl = [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]  # judge and humans on 3 labelled ones
    est = ppi_mean(unl, jl, hl, confidence=0.9)
    assert est is not None
    # 0.75 - mean(0, 1, 0) = 0.75 - 1/3
    assert est.estimate == pytest.approx(0.75 - 1 / 3)
    var = np.var(unl, ddof=1) / 4 + np.var([0.0, 1.0, 0.0], ddof=1) / 3
    assert est.high - est.estimate == pytest.approx(1.6448536 * math.sqrt(var), rel=1e-6)
    assert (est.n_labelled, est.n_unlabelled) == (3, 4)
    assert ppi_mean([], [], []) is None
    only = ppi_mean([], jl, hl)
    assert only is not None and only.estimate == pytest.approx(1 / 3) and only.n_unlabelled == 0


def test_ppi_interval_covers_the_truth_at_its_level_where_the_naive_one_does_not() -> None:
    rng = np.random.default_rng(7)
    truth_mean, covered, naive_covered, runs = 0.6, 0, 0, 1500
    for _ in range(runs):
        big_n, n = 2000, 150
        y_unl = rng.random(big_n) < truth_mean
        y_lab = rng.random(n) < truth_mean

        def judge(y: np.ndarray) -> np.ndarray:  # biased: misses 30% of the passes
            return (y & (rng.random(y.size) > 0.3)) | (~y & (rng.random(y.size) < 0.05))

        f_unl, f_lab = judge(y_unl).astype(float), judge(y_lab).astype(float)
        est = ppi_mean(f_unl.tolist(), f_lab.tolist(), y_lab.astype(float).tolist(), confidence=0.9)
        assert est is not None
        covered += est.low <= truth_mean <= est.high
        naive = naive_mean(np.concatenate([f_unl, f_lab]).tolist(), confidence=0.9)
        assert naive is not None
        naive_covered += naive.low <= truth_mean <= naive.high
    assert 0.87 <= covered / runs <= 0.93  # nominal 0.90
    assert naive_covered / runs < 0.05  # the judge's bias puts the truth outside


CRIT = [
    Criterion(name="a", weight=1, requirement="States A"),
    Criterion(name="b", weight=1, requirement="States B"),
    Criterion(name="f", weight=-1, requirement="Commits fault F"),
]
RUBRIC = Rubric(CRIT, pass_threshold=0.5)


def report(
    verdicts: list[CriterionVerdict],
    raw: list[CriterionVerdict] | None = None,
    conf: list[float] | None = None,
) -> EvaluationReport:
    leaves = []
    for i, (c, v) in enumerate(zip(CRIT, verdicts, strict=True)):
        cal = None
        if raw is not None and raw[i] is not v:
            cal = CalibrationRecord(raw_verdict=raw[i], changed=True)
        elif raw is not None:
            cal = CalibrationRecord(raw_verdict=raw[i])
        leaves.append(
            CriterionReport(
                criterion=c,
                verdict=v,
                calibration=cal,
                confidence=None if conf is None else conf[i],
            )
        )
    score = RUBRIC.compute_score(verdicts)
    return EvaluationReport(score=score, report=leaves)


def dataset(truths: list[Any]) -> RubricDataset:
    ds = RubricDataset(prompt="q", rubric=RUBRIC)
    for i, t in enumerate(truths):
        ds.add_item(submission=f"s{i}", ground_truth=t, id=f"i{i}")
    return ds


def test_null_ground_truth_is_unlabelled_not_cannot_assess() -> None:
    ds = dataset([["MET", None, "UNMET"], {"a": "MET", "b": "MET", "f": None}])
    assert ds.items[0].ground_truth == [MET, None, UNMET]
    assert ds.items[1].ground_truth == [MET, MET, None]
    reports = [report([MET, MET, UNMET]), report([MET, MET, UNMET])]
    m = compute_metrics(reports, ds)
    assert m.criterion("b").n == 1 and m.criterion("f").n == 1  # the nulls are left out
    assert m.criterion("b").n_na_truth == 0  # and are not N/A
    text = ds.to_json()
    assert RubricDataset.from_json(text).items[0].ground_truth == [MET, None, UNMET]


def test_pooled_agreement_counts_every_binary_pair() -> None:
    ds = dataset([["MET", "MET", "UNMET"], ["UNMET", "MET", "MET"]])
    reports = [report([MET, UNMET, UNMET]), report([UNMET, MET, MET])]
    m = compute_metrics(reports, ds, bootstrap=50)
    assert m.pooled is not None and m.pooled.n == 6
    assert m.pooled.metrics["accuracy"] == pytest.approx(5 / 6)
    assert "accuracy" in m.pooled.intervals
    assert "(pooled: every binary criterion)" in m.to_text()


def test_raw_and_calibrated_verdicts_and_excluded_items() -> None:
    ds = dataset([["MET", "MET", "UNMET"], ["UNMET", "MET", "UNMET"], ["MET", "MET", "UNMET"]])
    reports = [
        report([MET, MET, UNMET], raw=[UNMET, MET, MET]),  # calibration fixed two
        report([UNMET, MET, UNMET], raw=[UNMET, MET, UNMET]),
        report([MET, MET, UNMET], raw=[MET, MET, UNMET]),
    ]
    after = compute_metrics(reports, ds)
    before = compute_metrics(reports, ds, verdicts="raw")
    assert after.pooled is not None and before.pooled is not None
    assert after.pooled.metrics["accuracy"] == 1.0
    assert before.pooled.metrics["accuracy"] == pytest.approx(7 / 9)
    assert after.calibrated_answers == 9
    held_out = compute_metrics(reports, ds, verdicts="raw", exclude_ids=["i0"])
    assert held_out.excluded_items == 1 and held_out.items_judged == 2
    assert held_out.pooled is not None and held_out.pooled.metrics["accuracy"] == 1.0


def test_confidence_summary_and_estimates() -> None:
    ds = dataset([["MET", "MET", "UNMET"], ["UNMET", "UNMET", "UNMET"]])
    ds.add_item(submission="unlabelled", id="u")
    reports = [
        report([MET, MET, UNMET], conf=[0.9, 0.9, 0.9]),  # all agree
        report([MET, UNMET, UNMET], conf=[0.9, 0.6, 0.6]),  # first disagrees
        report([MET, MET, UNMET]),
    ]
    m = compute_metrics(reports, ds)
    cc = m.confidence_calibration
    assert cc is not None and cc.n == 6
    assert cc.agreement == pytest.approx(5 / 6)
    expected_brier = (3 * 0.1**2 + 0.9**2 + 2 * 0.4**2) / 6
    assert cc.brier == pytest.approx(expected_brier)
    assert sum(b["n"] for b in cc.bins) == 6
    naive, human, ppi = (m.estimates["mean_score"][k] for k in ("naive", "human", "ppi"))
    assert naive.n_unlabelled == 3 and human.n_labelled == 2
    judge_scores = [r.score for r in reports]
    assert naive.estimate == pytest.approx(sum(judge_scores) / 3)  # type: ignore[arg-type]
    # ppi: judge's unlabelled mean minus the judge-human gap on the labelled items
    gap = ((judge_scores[0] or 0) - 1.0 + (judge_scores[1] or 0) - 0.0) / 2
    assert ppi.estimate == pytest.approx((judge_scores[2] or 0) - gap)
    assert "pass_rate" in m.estimates
    assert "prediction-powered" in m.to_text()


def test_per_item_rubrics_reusing_a_name_with_other_options_do_not_crash() -> None:
    from rubricjudge import CriterionOption

    def rubric(labels: list[str]) -> Rubric:
        opts = [CriterionOption(label=x, value=i / (len(labels) - 1)) for i, x in enumerate(labels)]
        return Rubric([Criterion(name="q", weight=1, requirement="How many?", options=opts)])

    a, b = rubric(["None", "One", "Both"]), rubric(["Low", "High"])
    ds = RubricDataset(prompt="q", rubric=None)
    ds.add_item(submission="x", rubric=a, ground_truth=["Both"], id="1")
    ds.add_item(submission="y", rubric=b, ground_truth=["High"], id="2")
    reports = [
        EvaluationReport(score=1.0, report=reports_of(a, "Both")),
        EvaluationReport(score=1.0, report=reports_of(b, "Low")),
    ]
    m = compute_metrics(reports, ds)
    assert sorted(c.key for c in m.criteria) == ["q", "q [Low/High]"]
    assert m.criterion("q").metrics["accuracy"] == 1.0
    assert m.criterion("q [Low/High]").metrics["accuracy"] == 0.0


def reports_of(rubric: Rubric, label: str) -> list[CriterionReport]:
    from rubricjudge._model._verdicts import reports_from_verdicts

    return reports_from_verdicts(rubric, [label])


def test_before_calibration_pairs_the_raw_confidence_and_item_scores() -> None:
    # issue 23: the raw view used the calibrated confidence (mean 0.700 where the raw one
    # was 0.645) and the item scores that counted, so its item line equalled the other's
    truths = [["MET", "MET", "UNMET"], ["UNMET", "MET", "UNMET"], ["MET", "UNMET", "UNMET"]]
    calibrated = [[MET, MET, UNMET], [UNMET, MET, UNMET], [MET, UNMET, UNMET]]
    raw = [[UNMET, MET, MET], [MET, MET, UNMET], [MET, UNMET, MET]]
    reports = []
    for verdicts, said in zip(calibrated, raw, strict=True):
        r = report(verdicts, raw=said, conf=[0.9, 0.9, 0.9])
        for leaf, v in zip(r.report or [], said, strict=True):
            other = "UNMET" if v is MET else "MET"
            leaf.probabilities = {v.value: 0.6, other: 0.4}  # the judge's own, raw
        reports.append(r)
    ds = dataset(truths)
    after = compute_metrics(reports, ds, bootstrap=0)
    before = compute_metrics(reports, ds, bootstrap=0, verdicts="raw")
    assert after.confidence_calibration is not None and before.confidence_calibration is not None
    assert after.confidence_calibration.mean_confidence == pytest.approx(0.9)
    assert before.confidence_calibration.mean_confidence == pytest.approx(0.6)
    # the raw verdicts' own item scores: each has the fault MET or a requirement missed
    raw_scores = [RUBRIC.compute_score(v) for v in raw]
    assert after.items.metrics != before.items.metrics
    assert after.items.metrics["mae"] == pytest.approx(0.0)
    human = [RUBRIC.compute_score(t) for t in truths]
    mae = float(np.mean(np.abs(np.array(raw_scores) - np.array(human))))
    assert before.items.metrics["mae"] == pytest.approx(mae) and mae > 0
