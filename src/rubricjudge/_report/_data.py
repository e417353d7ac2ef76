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

from .._conversations._conversation import Conversation
from .._conversations._render_prompt import render_conversation
from .._conversations._submission import Submission
from .._errors import ConfigError
from .._model._reports import CriterionReport, EvaluationReport
from .._model._scoring import leaf_reports
from .._pages._media_view import media_view
from .._pages._render_page import page_view
from .._runs._result import RunResult
from ._judgments import raw_calls

__all__ = ["RunData", "conversation_view", "load_run", "submission_of"]


@dataclass
class RunData:
    """The reports of one run, with the dataset when the run has one."""

    source: str
    reports: list[EvaluationReport | None]
    ids: list[str]
    submissions: list[str]
    dataset: Any = None
    # per item, a conversation's page view (``page_view``), None for text
    views: list[dict[str, Any] | None] = field(default_factory=list)
    # per item, its images' thumbnails and documents' labels (``media_view``), None without
    media: list[list[dict[str, Any]] | None] = field(default_factory=list)
    metrics: Any = None
    thresholds: list[float | None] = field(default_factory=list)
    # item key -> criterion key ("" for calls about several) -> raw judge answers
    calls: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    item_errors: list[str | None] = field(default_factory=list)
    wall_s: float | None = None
    metrics_error: str | None = None
    not_attempted: int = 0  # dataset items the run never reached (--max-items, a stop)


def leaves(report: EvaluationReport | None) -> list[CriterionReport]:
    """The leaf criterion reports of ``report`` in rubric order (none without a report)."""
    return [] if report is None or report.report is None else list(leaf_reports(report.report))


def _from_jsonl(path: Path, flag: str) -> RunData:
    # deferred: reading a run loads the run machinery (about 1 s); see _from_run
    from .._runs._read import read_reports_jsonl

    run = read_reports_jsonl(path, flag=flag)
    subs = [str(r.metadata.get("submission", "")) if r is not None else "" for r in run.reports]
    return RunData(run.source, run.reports, run.ids, subs, thresholds=[None] * len(run.reports))


def _from_run(path: Path, include_training: bool = False) -> RunData:
    # deferred: reading a run loads the run machinery (about 1 s), the run engine with it
    from .._runs._read import read_run_dir

    run = read_run_dir(path, whole_dataset=True)
    reports, dataset, ids, errors = run.reports, run.dataset, run.ids, run.errors
    # only the items the run reached are shown: a --max-items run of 3 is not 220 errors
    reached = [i for i, r in enumerate(reports) if r is not None or errors[i] is not None]
    not_attempted = len(reports) - len(reached)
    rubrics = [run.item_rubric(i) for i in reached]
    if not_attempted:
        reports = [reports[i] for i in reached]
        errors = [errors[i] for i in reached]
        ids = [ids[i] for i in reached]
        if dataset is not None:
            items = dataset.items
            dataset = dataset._with_items([items[i] for i in reached if i < len(items)])
    subs: list[str] = []
    views: list[dict[str, Any] | None] = []
    media: list[list[dict[str, Any]] | None] = []
    thresholds: list[float | None] = []
    for i in range(len(reports)):
        item = dataset.items[i] if dataset is not None and i < len(dataset.items) else None
        subs.append(_text(item.submission) if item is not None else "")
        views.append(conversation_view(item.submission) if item is not None else None)
        parts = getattr(item.submission, "media", ()) if item is not None else ()
        media.append(media_view(parts) if parts else None)
        rubric = rubrics[i] if item is not None else None
        thresholds.append(rubric.pass_threshold if rubric is not None else None)
    data = RunData(
        str(path),
        reports,
        ids,
        subs,
        dataset=dataset,
        thresholds=thresholds,
        views=views,
        media=media,
        calls=raw_calls(path),
        item_errors=errors,
        wall_s=RunResult.open(path).summary.wall_s,
        not_attempted=not_attempted,
    )
    if dataset is not None and any(it.ground_truth is not None for it in dataset.items):
        # deferred: agreement loads numpy, needed only for a labelled dataset
        from .._metrics._compute import compute_metrics

        try:
            leave_out = None if include_training else run.training_ids or None
            data.metrics = compute_metrics(
                reports, dataset, bootstrap=200, seed=0, exclude_ids=leave_out
            )
        except ConfigError as e:  # the report still shows the run, and says why not this
            data.metrics_error = str(e)
    return data


def _text(submission: Any) -> str:
    if isinstance(submission, str):
        return submission
    if isinstance(submission, Conversation):  # as judges read it: searchable, compact
        return render_conversation(submission).text
    if isinstance(submission, Submission):  # with images: the text shows [image N]
        return submission.text
    return json.dumps(submission, ensure_ascii=False, indent=2, default=str)


def conversation_view(submission: Any) -> dict[str, Any] | None:
    """A conversation's page view (``page_view``); None for anything else."""
    if isinstance(submission, Conversation):
        return page_view(submission)
    if isinstance(submission, Submission) and submission.conversation is not None:
        return page_view(submission.conversation)
    return None


def submission_of(text: str, conversation: Conversation | None) -> tuple[str, Any]:
    """(searchable text, page view) of a submission read from a ``grade`` input line."""
    if conversation is None:
        return text, None
    return render_conversation(conversation).text, page_view(conversation)


def load_run(source: str | Path, *, flag: str = "", include_training: bool = False) -> RunData:
    """Read a run directory or a JSONL file of reports.

    ``flag`` names the command-line flag that gave ``source`` (in messages);
    ``include_training`` keeps the calibration's training items in the agreement.

    Raises:
        ConfigError: neither, or not readable as one.
    """
    path = Path(source)
    where = f"{flag} " if flag else ""
    if path.is_dir():
        return _from_run(path, include_training)
    if path.is_file():
        return _from_jsonl(path, where)
    raise ConfigError(
        f"{where}{str(path)!r} is neither a run directory nor a JSONL file of reports; give "
        "the --run-dir of `rubricjudge evaluate` or the -o file of `rubricjudge grade`"
    )
