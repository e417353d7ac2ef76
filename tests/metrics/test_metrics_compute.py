"""compute_metrics on datasets and reports, checked against scikit-learn / SciPy."""

from __future__ import annotations

import math
import warnings

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._errors import ConfigError
from rubricjudge._metrics._compute import compute_metrics
from rubricjudge._model._reports import EvaluationReport, JudgeVote, OptionSelection
from rubricjudge._model._rubric import Criterion, CriterionOption, CriterionVerdict, Rubric
from rubricjudge._model._scoring import finalize
from rubricjudge._model._verdicts import reports_from_verdicts

LEVELS = ["poor", "fair", "good", "great"]
KINDS = ["red", "green", "blue"]


def _rubric() -> Rubric:
    return Rubric(
        [
            Criterion(name="correct", requirement="is correct", weight=10),
            Criterion(name="rude", requirement="is rude", weight=-5),
            Criterion(
                name="quality",
                requirement="overall quality",
                options=[
                    CriterionOption(label="great", value=1.0),
                    CriterionOption(label="poor", value=0.0),
                    CriterionOption(label="good", value=2 / 3),
                    CriterionOption(label="fair", value=1 / 3),
                    CriterionOption(label="N/A", na=True),
                ],
            ),
            Criterion(
                name="colour",
                requirement="which colour",
                scale_type="nominal",
                weight=0,
                options=[CriterionOption(label=k, value=0.5) for k in KINDS],
            ),
        ]
    )


def _draw(rng: np.random.Generator, n: int, noise: float) -> tuple[list, list]:
    truth, judged = [], []
    for _ in range(n):
        t = [
            rng.choice(["MET", "UNMET", "CANNOT_ASSESS"], p=[0.5, 0.4, 0.1]),
            rng.choice(["MET", "UNMET"]),
            rng.choice([*LEVELS, "N/A"], p=[0.2, 0.2, 0.2, 0.3, 0.1]),
            rng.choice(KINDS),
        ]
        j = [v if rng.random() > noise else None for v in t]
        j[0] = j[0] or rng.choice(["MET", "UNMET", "CANNOT_ASSESS"])
        j[1] = j[1] or rng.choice(["MET", "UNMET"])
        j[2] = j[2] or rng.choice([*LEVELS, "N/A"])
        j[3] = j[3] or rng.choice(KINDS)
        truth.append([str(v) for v in t])
        judged.append([str(v) for v in j])
    return truth, judged


def _setup(n: int = 80, seed: int = 0, noise: float = 0.4):
    rng = np.random.default_rng(seed)
    rubric = _rubric()
    truth, judged = _draw(rng, n, noise)
    items = [DataItem(submission=f"s{i}", id=f"i{i}", ground_truth=t) for i, t in enumerate(truth)]
    ds = RubricDataset(prompt="p", rubric=rubric, items=items)
    reports = [finalize(rubric, reports_from_verdicts(rubric, j)) for j in judged]
    return ds, reports, truth, judged


def _same(a: float, b: float) -> None:
    if math.isnan(b):
        assert math.isnan(a)
    else:
        assert a == pytest.approx(b, abs=1e-10)


def _q(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_binary_exclude_matches_sklearn() -> None:
    ds, reports, truth, judged = _setup()
    m = compute_metrics(reports, ds).criterion("correct")
    pairs = [(t[0], j[0]) for t, j in zip(truth, judged, strict=True)]
    kept = [(t == "MET", j == "MET") for t, j in pairs if "CANNOT_ASSESS" not in (t, j)]
    t = [a for a, _ in kept]
    p = [b for _, b in kept]
    assert m.kind == "binary" and m.n == len(kept)
    _same(m.metrics["accuracy"], skm.accuracy_score(t, p))
    _same(m.metrics["precision"], skm.precision_score(t, p, zero_division=np.nan))
    _same(m.metrics["recall"], skm.recall_score(t, p, zero_division=np.nan))
    _same(m.metrics["f1"], skm.f1_score(t, p, zero_division=np.nan))
    _same(m.metrics["kappa"], skm.cohen_kappa_score(t, p))
    _same(m.metrics["mcc"], skm.matthews_corrcoef(t, p))
    assert m.confusion == skm.confusion_matrix(t, p, labels=[False, True]).tolist()
    assert m.n_na_truth == sum(1 for a, _ in pairs if a == "CANNOT_ASSESS")


def test_na_counts_cover_only_the_judged_items() -> None:
    ds, reports, truth, _ = _setup()
    half = [r if i % 2 == 0 else None for i, r in enumerate(reports)]  # a partial run
    m = compute_metrics(half, ds).criterion("correct")
    judged_truth = [t[0] for i, t in enumerate(truth) if i % 2 == 0]
    assert m.n_na_truth == judged_truth.count("CANNOT_ASSESS")
    assert m.n_na_truth < sum(1 for t in truth if t[0] == "CANNOT_ASSESS")


def test_binary_as_unmet_is_weight_aware() -> None:
    ds, reports, truth, judged = _setup()
    got = compute_metrics(reports, ds, na_mode="as_unmet").criterion("correct")

    def worst(v: str) -> bool:  # positive weight: CANNOT_ASSESS counts as UNMET
        return v == "MET"

    t = [worst(x[0]) for x in truth]
    p = [worst(x[0]) for x in judged]
    assert got.n == len(t)
    _same(got.metrics["kappa"], skm.cohen_kappa_score(t, p))
    # the penalty criterion has no N/A here, but its worst level is MET
    rude = compute_metrics(reports, ds, na_mode="as_unmet").criterion("rude")
    assert rude.labels == ["UNMET", "MET"]


def _levels(v: str) -> int:
    return LEVELS.index(v)


def test_ordinal_matches_sklearn_and_scipy() -> None:
    ds, reports, truth, judged = _setup(n=120, seed=3)
    m = compute_metrics(reports, ds).criterion("quality")
    assert m.labels == LEVELS  # sorted by value, not option order
    kept = [(t[2], j[2]) for t, j in zip(truth, judged, strict=True) if "N/A" not in (t[2], j[2])]
    t = np.array([_levels(a) for a, _ in kept])
    p = np.array([_levels(b) for _, b in kept])
    labels = list(range(4))
    _same(m.metrics["accuracy"], skm.accuracy_score(t, p))
    _same(m.metrics["qwk"], skm.cohen_kappa_score(t, p, labels=labels, weights="quadratic"))
    _same(m.metrics["kappa"], skm.cohen_kappa_score(t, p, labels=labels))
    _same(m.metrics["spearman"], stats.spearmanr(t, p).statistic)
    _same(m.metrics["kendall"], stats.kendalltau(t, p).statistic)
    _same(m.metrics["mae"], skm.mean_absolute_error(t, p))
    _same(m.metrics["rmse"], math.sqrt(skm.mean_squared_error(t, p)))
    _same(m.metrics["adjacent_accuracy"], float(np.mean(np.abs(t - p) <= 1)))


def test_category_mode_adds_na_label_but_not_to_order_metrics() -> None:
    ds, reports, truth, judged = _setup(n=120, seed=4)
    m = compute_metrics(reports, ds, na_mode="category").criterion("quality")
    assert m.labels == [*LEVELS, "N/A"]
    code = {**{v: i for i, v in enumerate(LEVELS)}, "N/A": 4}
    t = [code[x[2]] for x in truth]
    p = [code[x[2]] for x in judged]
    assert m.n == len(t)
    _same(m.metrics["accuracy"], skm.accuracy_score(t, p))
    _same(m.metrics["kappa"], skm.cohen_kappa_score(t, p, labels=list(range(5))))
    kept = [(a, b) for a, b in zip(t, p, strict=True) if 4 not in (a, b)]
    ta, pa = [a for a, _ in kept], [b for _, b in kept]
    _same(
        m.metrics["qwk"], skm.cohen_kappa_score(ta, pa, labels=list(range(4)), weights="quadratic")
    )
    assert m.per_label["N/A"]["support"] == sum(1 for x in t if x == 4)


def test_as_unmet_maps_na_to_worst_option() -> None:
    ds, reports, truth, judged = _setup(n=100, seed=5)
    m = compute_metrics(reports, ds, na_mode="as_unmet").criterion("quality")
    code = {**{v: i for i, v in enumerate(LEVELS)}, "N/A": 0}  # worst scored option: poor
    t = [code[x[2]] for x in truth]
    p = [code[x[2]] for x in judged]
    _same(m.metrics["qwk"], skm.cohen_kappa_score(t, p, labels=list(range(4)), weights="quadratic"))


def test_nominal_per_label_matches_sklearn() -> None:
    ds, reports, truth, judged = _setup(n=90, seed=6)
    m = compute_metrics(reports, ds).criterion("colour")
    t = [x[3] for x in truth]
    p = [x[3] for x in judged]
    assert m.kind == "nominal"
    prec, rec, f1, sup = skm.precision_recall_fscore_support(
        t, p, labels=KINDS, zero_division=np.nan
    )
    for i, k in enumerate(KINDS):
        _same(m.per_label[k]["precision"], prec[i])
        _same(m.per_label[k]["recall"], rec[i])
        _same(m.per_label[k]["f1"], f1[i])
        assert m.per_label[k]["support"] == sup[i]
    _same(m.metrics["macro_f1"], skm.f1_score(t, p, labels=KINDS, average="macro"))
    _same(m.metrics["kappa"], skm.cohen_kappa_score(t, p))


def test_item_scores_match_scipy() -> None:
    ds, reports, truth, _ = _setup(n=70, seed=7)
    m = compute_metrics(reports, ds).items
    human = np.array([ds.rubric.compute_score(t) for t in truth])
    judge = np.array([r.score for r in reports])
    assert m.n == 70
    _same(m.metrics["pearson"], stats.pearsonr(human, judge).statistic)
    _same(m.metrics["spearman"], stats.spearmanr(human, judge).statistic)
    _same(m.metrics["kendall"], stats.kendalltau(human, judge).statistic)
    _same(m.metrics["mae"], float(np.mean(np.abs(judge - human))))
    _same(m.metrics["rmse"], float(np.sqrt(np.mean((judge - human) ** 2))))
    _same(m.metrics["bias"], float(np.mean(judge - human)))


def test_judge_errors_and_missing_items_are_left_out() -> None:
    ds, reports, _, _ = _setup(n=30, seed=8)
    leaf = reports[0].report[0]  # type: ignore[index]
    reports[0].report[0] = leaf.model_copy(  # type: ignore[index]
        update={"error": "timeout: slow", "verdict": CriterionVerdict.CANNOT_ASSESS}
    )
    with_gaps: list[EvaluationReport | None] = list(reports)
    with_gaps[1] = None
    m = compute_metrics(with_gaps, ds, na_mode="category")
    c = m.criterion("correct")
    assert c.n_judge_errors == 1
    assert c.n == 28
    assert m.items.n == 29


def test_bootstrap_intervals_are_reproducible_and_bracket() -> None:
    ds, reports, _, _ = _setup(n=150, seed=9, noise=0.3)
    a = compute_metrics(reports, ds, bootstrap=200, seed=1)
    b = compute_metrics(reports, ds, bootstrap=200, seed=1)
    assert a.to_jsonable() == b.to_jsonable()
    q = a.criterion("quality")
    lo, hi = q.intervals["qwk"]
    assert lo <= q.metrics["qwk"] <= hi and lo < hi
    lo, hi = a.items.intervals["pearson"]
    assert lo <= a.items.metrics["pearson"] <= hi


def test_results_by_id_and_bad_inputs() -> None:
    ds, reports, _, _ = _setup(n=10, seed=10)
    by_id = {f"i{i}": r for i, r in enumerate(reports)}
    assert compute_metrics(by_id, ds).to_jsonable() == compute_metrics(reports, ds).to_jsonable()
    with pytest.raises(ConfigError, match="one per item"):
        compute_metrics(reports[:3], ds)
    with pytest.raises(ConfigError, match="na_mode"):
        compute_metrics(reports, ds, na_mode="drop")  # type: ignore[arg-type]


def test_inter_judge_agreement_from_votes() -> None:
    ds, reports, _, _ = _setup(n=40, seed=11)
    rng = np.random.default_rng(0)
    matrix = np.full((3, 40), np.nan)
    out = []
    for i, r in enumerate(reports):
        leaves = list(r.report or [])
        q = leaves[2]
        votes = []
        for j in range(3):
            level = int(rng.integers(0, 4)) if rng.random() < 0.5 else i % 4
            label = LEVELS[level]
            idx = next(k for k, o in enumerate(q.criterion.options or []) if o.label == label)
            sel = OptionSelection(index=idx, label=label, value=0.0)
            votes.append(JudgeVote(judge_id=f"j{j}", selection=sel))
            matrix[j, i] = level
        leaves[2] = q.model_copy(update={"votes": votes})
        out.append(r.model_copy(update={"report": leaves}))
    m = compute_metrics(out, ds)
    (agree,) = m.inter_judge
    assert agree.key == "quality" and agree.judges == ["j0", "j1", "j2"]
    want = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    assert agree.krippendorff_alpha == pytest.approx(want, abs=1e-10)
    assert agree.fleiss_kappa is not None


def test_text_and_json_render_undefined_as_missing() -> None:
    ds, reports, _, _ = _setup(n=5, seed=12)
    m = compute_metrics(reports, ds, bootstrap=20)
    assert "quality [ordinal]" in m.to_text()
    js = m.to_jsonable()
    assert all(v is None or isinstance(v, float) for v in js["items"]["metrics"].values())


def test_degenerate_constant_labels() -> None:
    rubric = Rubric([Criterion(name="a", requirement="x")])
    items = [DataItem(submission=str(i), ground_truth=["MET"]) for i in range(6)]
    ds = RubricDataset(prompt="p", rubric=rubric, items=items)
    reports = [finalize(rubric, reports_from_verdicts(rubric, ["MET"])) for _ in range(6)]
    m = compute_metrics(reports, ds).criterion("a")
    assert m.metrics["accuracy"] == 1.0
    assert math.isnan(m.metrics["kappa"])  # sklearn: undefined, NaN
    assert m.metrics["mcc"] == _q(skm.matthews_corrcoef, [1] * 6, [1] * 6)
    assert math.isnan(compute_metrics(reports, ds).items.metrics["pearson"])
