"""``compute_metrics``: agreement of a run's judgments with a dataset's ground truth.

Bootstrap intervals resample items (all criteria share each resample, so the
intervals respect the pairing of criteria within an item) and are percentile
intervals over the resamples where the metric is defined.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._datasets._dataset import item_keys
from .._datasets._labels import LABELS_KEY, read_records
from .._datasets._labels import leaf_names as names_of
from .._errors import ConfigError, DatasetError, VerdictError
from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import leaf_reports
from .._runs._result import RunResult
from ._agreement import Level, fleiss_kappa, krippendorff_alpha
from ._classification import (
    accuracy,
    adjacent_accuracy,
    cohen_kappa,
    matthews,
    mean_abs_error,
    per_class,
    root_mean_sq_error,
)
from ._coding import MISSING, NA, CriterionCoder, NaMode, na_modes
from ._correlation import kendall_tau_b, pearson, spearman, table_points
from ._estimates import estimates
from ._labellers import LabelledUnit, labeller_agreement
from ._pooled import confidence_summary, pooled_binary
from ._raw import raw_confidence, raw_score
from ._results import CriterionMetrics, ItemMetrics, JudgeAgreement, MetricsReport
from ._tables import FloatArray, contingency, percentile_interval, resample_weights

__all__ = ["compute_metrics", "human_score"]


@dataclass
class _Group:
    coder: CriterionCoder
    truth: np.ndarray
    judge: np.ndarray
    votes: dict[str, np.ndarray] = field(default_factory=dict)
    errors: int = 0


@dataclass
class _Collected:
    groups: dict[str, _Group]
    human: FloatArray
    judged: FloatArray
    threshold: FloatArray
    confidence: list[tuple[float, bool]] = field(default_factory=list)
    calibrated: int = 0
    labelled: list[LabelledUnit] = field(default_factory=list)


def _group_key(groups: Mapping[str, _Group], key: str, criterion: Any) -> str:
    """The group of a criterion: its key, unless that key already holds another kind.

    Per-item rubrics may reuse a name ("c1", "clarity") for different questions; two
    with the same name pool together only when they are coded alike (both binary, or
    the same options), else the later one gets its labels appended to the key.
    """
    coder = CriterionCoder.for_criterion(criterion)
    existing = groups.get(key)
    if existing is None or (existing.coder.kind, existing.coder.labels) == (
        coder.kind,
        coder.labels,
    ):
        return key
    return f"{key} [{'/'.join(coder.labels)}]"


def _code_judged(g: _Group, jr: CriterionReport | None, verdicts: str) -> int:
    if jr is not None and verdicts == "raw" and jr.calibration is not None:
        cal = jr.calibration
        return g.coder.code_parts(cal.raw_verdict, cal.raw_selection, jr.error)
    return g.coder.code_report(jr)


def _resolve(results: Any, dataset: Any) -> list[EvaluationReport | None]:
    n = len(dataset.items)
    if isinstance(results, str | Path):
        results = RunResult.open(results)
    if hasattr(results, "iter_reports"):
        results = list(results.iter_reports())
    if isinstance(results, Mapping):
        ids = item_keys(dataset.items)
        return [results.get(i) for i in ids]
    if isinstance(results, Sequence):
        if len(results) != n:
            raise ConfigError(
                f"got {len(results)} results for a dataset of {n} items; give one per item "
                "(None for an item without a result)"
            )
        return list(results)
    raise ConfigError(
        f"results {type(results).__name__!r} are not a RunResult, a run directory, "
        "a list of EvaluationReports or a mapping of item id to report"
    )


def human_score(rubric: Rubric, truth: Sequence[Any]) -> float | None:
    """The score the human labels give an item, or None when they do not score it."""
    try:
        return rubric.compute_score(list(truth))
    except (VerdictError, ValueError):
        return None


def _records(item: Any, index: int) -> dict[str, Any]:
    metadata = getattr(item, "metadata", None)
    if not metadata or LABELS_KEY not in metadata:
        return {}
    try:
        return read_records(metadata, f"dataset items[{index}]")
    except DatasetError as e:
        raise ConfigError(str(e)) from None


def _collect(dataset: Any, reports: list[EvaluationReport | None], verdicts: str) -> _Collected:
    n = len(reports)
    groups: dict[str, _Group] = {}
    human = np.full(n, np.nan)
    judged = np.full(n, np.nan)
    out = _Collected(groups, human, judged, np.full(n, np.nan))
    for i, item in enumerate(dataset.items):
        rubric: Rubric = dataset.get_item_rubric(i)
        if rubric.pass_threshold is not None:
            out.threshold[i] = rubric.pass_threshold
        truth = getattr(item, "ground_truth", None)
        report = reports[i]
        leaves = rubric.leaves()
        records = _records(item, i)
        leaf_names = names_of(rubric) if records else []
        judged_leaves = list(leaf_reports(report.report or [])) if report is not None else []
        score = report.score if report is not None else None
        if report is not None and verdicts == "raw":
            score = raw_score(rubric, report)
        if score is not None:
            judged[i] = score
        if truth is not None:
            h = human_score(rubric, truth)
            human[i] = np.nan if h is None else h
        for pos, criterion in enumerate(leaves):
            key = _group_key(groups, criterion.key or f"#{pos}", criterion)
            g = groups.get(key)
            if g is None:
                coder = CriterionCoder.for_criterion(criterion)
                g = _Group(coder, np.full(n, MISSING), np.full(n, MISSING))
                groups[key] = g
            if truth is not None and pos < len(truth):
                try:
                    g.truth[i] = g.coder.code_value(truth[pos])
                except VerdictError as e:
                    raise ConfigError(f"dataset item {i}, ground_truth[{pos}]: {e}") from None
            jr = judged_leaves[pos] if pos < len(judged_leaves) else None
            if jr is not None and jr.is_error:
                g.errors += 1
            g.judge[i] = _code_judged(g, jr, verdicts)
            if jr is not None and jr.calibration is not None:
                out.calibrated += 1
            said, truth_code = int(g.judge[i]), int(g.truth[i])
            conf = None
            if jr is not None:
                conf = raw_confidence(jr) if verdicts == "raw" else jr.confidence
            if conf is not None and said >= 0 and truth_code >= 0:
                out.confidence.append((float(conf), said == truth_code))
            people = records.get(leaf_names[pos]) if records else None
            if people:
                labels = {who: r.label for who, r in people.items()}
                out.labelled.append(LabelledUnit(i, key, g.coder, int(g.judge[i]), labels))
            for vote in (jr.votes or []) if jr is not None else []:
                arr = g.votes.setdefault(vote.judge_id, np.full(n, MISSING))
                arr[i] = g.coder.code_parts(vote.verdict, vote.selection, vote.error)
    return out


def _pack(
    values: dict[str, FloatArray], confidence: float
) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    point = {k: float(v[0]) for k, v in values.items()}
    intervals = {}
    for k, v in values.items():
        if v.shape[0] > 1:
            intervals[k] = percentile_interval(v[1:], confidence)
    return point, intervals


def _criterion(
    key: str,
    g: _Group,
    weights: FloatArray,
    mode: NaMode,
    confidence: float,
    judged: np.ndarray,
) -> CriterionMetrics:
    c = g.coder
    k = len(c.labels)
    tl = np.array([c.apply_mode(int(v), mode, ordered=False) for v in g.truth])
    jl = np.array([c.apply_mode(int(v), mode, ordered=False) for v in g.judge])
    kl = k + 1 if mode == "category" else k
    labels = [*c.labels, "N/A"] if mode == "category" else list(c.labels)
    tables = contingency(tl, jl, kl, weights)
    values: dict[str, FloatArray] = {"accuracy": accuracy(tables)}
    precision, recall, f1, _ = per_class(tables)
    per_label: dict[str, dict[str, float]] = {}
    if c.kind == "binary":
        values |= {"precision": precision[:, 1], "recall": recall[:, 1], "f1": f1[:, 1]}
    values["kappa"] = cohen_kappa(tables)
    values["mcc"] = matthews(tables)
    if c.kind == "ordinal":
        to = np.array([c.apply_mode(int(v), mode, ordered=True) for v in g.truth])
        jo = np.array([c.apply_mode(int(v), mode, ordered=True) for v in g.judge])
        ordered = contingency(to, jo, k, weights)
        x, y, w = table_points(ordered)
        values |= {
            "adjacent_accuracy": adjacent_accuracy(ordered),
            "qwk": cohen_kappa(ordered, "quadratic"),
            "spearman": spearman(x, y, w),
            "kendall": kendall_tau_b(x, y, w),
            "mae": mean_abs_error(ordered),
            "rmse": root_mean_sq_error(ordered),
        }
    if c.kind == "nominal":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            values["macro_f1"] = np.nanmean(f1, axis=1)
    if c.kind != "binary":
        support = tables[0].sum(axis=1)
        for j, label in enumerate(labels):
            per_label[label] = {
                "precision": float(precision[0, j]),
                "recall": float(recall[0, j]),
                "f1": float(f1[0, j]),
                "support": float(support[j]),
            }
    point, intervals = _pack(values, confidence)
    return CriterionMetrics(
        key=key,
        kind=c.kind,
        labels=labels,
        n=int(round(tables[0].sum())),
        n_na_truth=int(((g.truth == NA) & judged).sum()),  # of the judged items only
        n_na_judge=int(((g.judge == NA) & judged).sum()),
        n_judge_errors=g.errors,
        n_missing=int((((g.truth == MISSING) | (g.judge == MISSING)) & judged).sum()),
        metrics=point,
        intervals=intervals,
        confusion=[[int(round(v)) for v in row] for row in tables[0]],
        per_label=per_label,
    )


def _items(
    human: FloatArray, judged: FloatArray, weights: FloatArray, confidence: float
) -> ItemMetrics:
    keep = ~(np.isnan(human) | np.isnan(judged))
    x, y, w = human[keep], judged[keep], weights[:, keep]
    n_w = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = y - x
        values = {
            "pearson": pearson(x, y, w),
            "spearman": spearman(x, y, w),
            "kendall": kendall_tau_b(x, y, w),
            "mae": (w * np.abs(diff)).sum(axis=1) / n_w,
            "rmse": np.sqrt((w * diff * diff).sum(axis=1) / n_w),
            "bias": (w * diff).sum(axis=1) / n_w,
        }
    point, intervals = _pack(values, confidence)
    return ItemMetrics(n=int(keep.sum()), metrics=point, intervals=intervals)


def _inter_judge(key: str, g: _Group, mode: NaMode) -> JudgeAgreement | None:
    if len(g.votes) < 2:
        return None
    c = g.coder
    judges = sorted(g.votes)
    ordered = c.kind == "ordinal" and mode != "category"
    coded = np.array(
        [[c.apply_mode(int(v), mode, ordered=ordered) for v in g.votes[j]] for j in judges],
        dtype=np.float64,
    )
    coded[coded < 0] = np.nan
    level: Level = "ordinal" if ordered else "nominal"
    units = int((np.sum(~np.isnan(coded), axis=0) >= 2).sum())
    alpha = krippendorff_alpha(coded, level)
    complete = coded[:, ~np.isnan(coded).any(axis=0)]
    fk: float | None = None
    if complete.shape[1]:
        k = len(c.labels) + 1
        counts = np.stack([(complete == v).sum(axis=0) for v in range(k)], axis=1)
        fk = fleiss_kappa(counts)
    return JudgeAgreement(
        key=key, judges=judges, units=units, krippendorff_alpha=alpha, fleiss_kappa=fk
    )


def compute_metrics(
    results: Any,
    dataset: Any,
    *,
    na_mode: NaMode = "exclude",
    bootstrap: int = 0,
    confidence: float = 0.95,
    seed: int | None = 0,
    verdicts: str = "final",
    exclude_ids: Iterable[str] | None = None,
) -> MetricsReport:
    """Agreement of judged results with the dataset's ground truth.

    Args:
        results: a :class:`RunResult`, a run directory, a list of
            :class:`EvaluationReport` (None where an item has none) in dataset
            order, or a mapping of item id to report.
        dataset: the :class:`RubricDataset` with ground truth.
        na_mode: how N/A and CANNOT_ASSESS count (see ``_metrics._coding``).
        bootstrap: number of bootstrap resamples over items; 0 for none.
        confidence: the confidence level of the bootstrap intervals.
        seed: seed of the resampling.
        verdicts: ``final`` compares the verdicts that counted; ``raw`` the judge's own
            where a calibration changed them (the report's ``calibration`` record).
        exclude_ids: item ids (``#index`` for items without one) to leave out, such as
            the items a calibration was fitted on.

    Raises:
        ConfigError: a bad argument, or results that do not fit the dataset.
    """
    if na_mode not in na_modes():
        raise ConfigError(f"na_mode {na_mode!r} is not valid; use one of {na_modes()}")
    if bootstrap < 0:
        raise ConfigError(f"bootstrap {bootstrap!r} is negative; give 0 or a number of resamples")
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence {confidence!r} must lie strictly between 0 and 1")
    if verdicts not in ("final", "raw"):
        raise ConfigError(f"verdicts {verdicts!r} is not 'final' or 'raw'")
    reports = _resolve(results, dataset)
    excluded = 0
    left_out: set[int] = set()
    if exclude_ids is not None:
        leave_out = set(exclude_ids)
        for i, key in enumerate(item_keys(dataset.items)):
            if key in leave_out:
                left_out.add(i)  # left out of the people's agreement too
                if reports[i] is not None:
                    reports[i] = None
                    excluded += 1
    got = _collect(dataset, reports, verdicts)
    groups, human, judged = got.groups, got.human, got.judged
    n = len(reports)
    weights = np.ones((1, n))
    if bootstrap:
        weights = np.concatenate([weights, resample_weights(n, bootstrap, seed)])
    has_report = np.array([r is not None for r in reports], dtype=bool)
    criteria = [
        _criterion(k, g, weights, na_mode, confidence, has_report) for k, g in groups.items()
    ]
    inter = [a for k, g in groups.items() if (a := _inter_judge(k, g, na_mode)) is not None]
    people = labeller_agreement([u for u in got.labelled if u.index not in left_out], na_mode)
    pooled = pooled_binary(list(groups.values()), weights, na_mode, confidence, percentile_interval)
    return MetricsReport(
        pooled=pooled,
        verdicts=verdicts,
        excluded_items=excluded,
        calibrated_answers=got.calibrated,
        confidence_calibration=confidence_summary(got.confidence),
        estimates=estimates(human, judged, got.threshold, confidence),
        na_mode=na_mode,
        bootstrap=bootstrap,
        confidence=confidence,
        items_total=n,
        items_judged=int(has_report.sum()),
        criteria=criteria,
        items=_items(human, judged, weights, confidence),
        inter_judge=inter,
        labellers=people,
    )
