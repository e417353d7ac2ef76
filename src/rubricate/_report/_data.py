"""What a report shows, read from a run directory or a ``grade`` JSONL file.

A run directory (``rubricate evaluate --run-dir``) brings its dataset, so human
labels, agreement and prediction-powered estimates can be shown; a JSONL file of
reports (``rubricate grade -o``) brings the reports only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._reports import CriterionReport, EvaluationReport

__all__ = ["RunData", "load_run"]


@dataclass
class RunData:
    """The reports of one run, with the dataset when the run has one."""

    source: str
    reports: list[EvaluationReport | None]
    ids: list[str]
    submissions: list[str]
    dataset: Any = None
    metrics: Any = None
    thresholds: list[float | None] = field(default_factory=list)


def _leaves(reports: list[CriterionReport]) -> list[CriterionReport]:
    out: list[CriterionReport] = []
    for r in reports:
        out.extend(_leaves(r.children) if r.children else [r])
    return out


def leaves(report: EvaluationReport | None) -> list[CriterionReport]:
    """The leaf criterion reports of ``report`` in rubric order (none without a report)."""
    return [] if report is None or report.report is None else _leaves(report.report)


def _from_jsonl(path: Path) -> RunData:
    reports: list[EvaluationReport | None] = []
    ids: list[str] = []
    subs: list[str] = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                report = EvaluationReport.model_validate(data)
            except ValueError as e:
                raise ConfigError(
                    f"{path} line {n}: not an EvaluationReport ({str(e).splitlines()[0]}); give "
                    "the JSONL that `rubricate grade -o` writes, or a run directory"
                ) from None
            reports.append(report)
            ids.append(str(report.id if report.id is not None else n))
            subs.append(str(report.metadata.get("submission", "")))
    if not reports:
        raise ConfigError(f"{path} holds no reports")
    return RunData(str(path), reports, ids, subs, thresholds=[None] * len(reports))


def _from_run(path: Path) -> RunData:
    from .._runs import RunResult

    result = RunResult.open(path)
    reports = list(result.iter_reports())
    dataset = None
    copy = path / "dataset.jsonl"
    if copy.is_file():
        from .._dataset import RubricDataset

        dataset = RubricDataset.from_file(copy)
    ids: list[str] = []
    subs: list[str] = []
    thresholds: list[float | None] = []
    for i in range(len(reports)):
        item = dataset.items[i] if dataset is not None and i < len(dataset.items) else None
        ids.append(str(getattr(item, "id", None) or f"#{i}"))
        subs.append(str(item.submission) if item is not None else "")
        rubric = dataset.get_item_rubric(i) if dataset is not None and item is not None else None
        thresholds.append(rubric.pass_threshold if rubric is not None else None)
    data = RunData(str(path), reports, ids, subs, dataset=dataset, thresholds=thresholds)
    if dataset is not None and any(it.ground_truth is not None for it in dataset.items):
        from .._metrics import compute_metrics

        data.metrics = compute_metrics(reports, dataset, bootstrap=200, seed=0)
    return data


def load_run(source: str | Path) -> RunData:
    """Read a run directory or a JSONL file of reports.

    Raises:
        ConfigError: neither, or not readable as one.
    """
    path = Path(source)
    if path.is_dir():
        return _from_run(path)
    if path.is_file():
        return _from_jsonl(path)
    raise ConfigError(
        f"{str(path)!r} is neither a run directory nor a JSONL file of reports; give the "
        "--run-dir of `rubricate evaluate` or the -o file of `rubricate grade`"
    )
