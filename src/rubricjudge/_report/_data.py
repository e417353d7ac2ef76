"""What a report shows, read from a run directory or a ``grade`` JSONL file.

A run directory (``rubricjudge evaluate --run-dir``) brings its dataset, so human
labels, agreement and prediction-powered estimates can be shown; a JSONL file of
reports (``rubricjudge grade -o``) brings the reports only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._errors import ConfigError
from .._model._reports import CriterionReport, EvaluationReport

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
    # item key -> criterion key ("" for calls about several) -> raw judge answers
    calls: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    item_errors: list[str | None] = field(default_factory=list)
    wall_s: float | None = None
    metrics_error: str | None = None


def _leaves(reports: list[CriterionReport]) -> list[CriterionReport]:
    out: list[CriterionReport] = []
    for r in reports:
        out.extend(_leaves(r.children) if r.children else [r])
    return out


def leaves(report: EvaluationReport | None) -> list[CriterionReport]:
    """The leaf criterion reports of ``report`` in rubric order (none without a report)."""
    return [] if report is None or report.report is None else _leaves(report.report)


def _why(e: ValueError) -> str:
    if isinstance(e, ValidationError):
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the line"
        return f"{where}: {first['msg']}"
    return str(e).splitlines()[0]


def _from_jsonl(path: Path, flag: str) -> RunData:
    reports: list[EvaluationReport | None] = []
    ids: list[str] = []
    subs: list[str] = []
    try:
        with path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    report = EvaluationReport.model_validate_json(line)
                except ValueError as e:
                    raise ConfigError(
                        f"{flag}{path} line {n}: not a report of `rubricjudge grade` ({_why(e)}); "
                        "give the JSONL that `rubricjudge grade -o` writes, or a run directory"
                    ) from None
                reports.append(report)
                ids.append(str(report.id if report.id is not None else n))
                subs.append(str(report.metadata.get("submission", "")))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{flag}{path}: cannot read it ({e})") from None
    if not reports:
        raise ConfigError(f"{flag}{path} holds no reports; give the -o file of `rubricjudge grade`")
    return RunData(str(path), reports, ids, subs, thresholds=[None] * len(reports))


def _from_run(path: Path) -> RunData:
    from .._runs import RunResult
    from ._judgments import raw_calls

    result = RunResult.open(path)
    reports = list(result.iter_reports())
    errors: list[str | None] = [None] * len(reports)
    keys: dict[int, str] = {}
    for o in result.outcomes:
        keys[o.index] = o.key  # how the store names the item, dataset copy or not
        if o.error and 0 <= o.index < len(errors):
            errors[o.index] = o.error
    dataset = None
    copy = path / "dataset.jsonl"
    if copy.is_file():
        from .._datasets import RubricDataset

        dataset = RubricDataset.from_file(copy)
    ids: list[str] = []
    subs: list[str] = []
    thresholds: list[float | None] = []
    for i in range(len(reports)):
        item = dataset.items[i] if dataset is not None and i < len(dataset.items) else None
        ids.append(keys.get(i) or str(getattr(item, "id", None) or f"#{i}"))
        subs.append(_text(item.submission) if item is not None else "")
        rubric = dataset.get_item_rubric(i) if dataset is not None and item is not None else None
        thresholds.append(rubric.pass_threshold if rubric is not None else None)
    data = RunData(
        str(path),
        reports,
        ids,
        subs,
        dataset=dataset,
        thresholds=thresholds,
        calls=raw_calls(path),
        item_errors=errors,
        wall_s=result.summary.wall_s,
    )
    if dataset is not None and any(it.ground_truth is not None for it in dataset.items):
        from .._metrics import compute_metrics

        try:
            data.metrics = compute_metrics(reports, dataset, bootstrap=200, seed=0)
        except ConfigError as e:  # the report still shows the run, and says why not this
            data.metrics_error = str(e)
    return data


def _text(submission: Any) -> str:
    if isinstance(submission, str):
        return submission
    return json.dumps(submission, ensure_ascii=False, indent=2, default=str)


def load_run(source: str | Path, *, flag: str = "") -> RunData:
    """Read a run directory or a JSONL file of reports.

    ``flag`` names the command-line flag that gave ``source`` (in messages).

    Raises:
        ConfigError: neither, or not readable as one.
    """
    path = Path(source)
    where = f"{flag} " if flag else ""
    if path.is_dir():
        return _from_run(path)
    if path.is_file():
        return _from_jsonl(path, where)
    raise ConfigError(
        f"{where}{str(path)!r} is neither a run directory nor a JSONL file of reports; give "
        "the --run-dir of `rubricjudge evaluate` or the -o file of `rubricjudge grade`"
    )
