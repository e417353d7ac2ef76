"""What ``evaluate`` returns, and how a finished run directory is read back."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .._errors import ConfigError
from .._model._reports import EvaluationReport
from .._model._scoring import under_the_rule
from ._store import DB_NAME, RunStore
from ._summary import RunSummary, SummaryBuilder

__all__ = ["ItemOutcome", "RunResult"]


@dataclass(slots=True)
class ItemOutcome:
    """One item of a run: its status and score (the full report when kept in memory).

    ``status`` is ``done``, ``partial`` (graded, but some judge calls failed; it is
    graded again on resume) or ``failed`` (grading raised; ``error`` says why).
    """

    key: str
    index: int
    status: str
    score: float | None
    error: str | None = None
    report: EvaluationReport | None = None


class RunResult:
    """The outcome of a run: one :class:`ItemOutcome` per item graded, and a summary.

    With a run directory the full reports stay on disk and :meth:`iter_reports`
    streams them, so a large run's memory holds only keys, statuses and scores.
    """

    def __init__(
        self,
        outcomes: list[ItemOutcome],
        summary: RunSummary,
        *,
        dataset_size: int,
        run_dir: Path | None = None,
    ) -> None:
        self.outcomes = outcomes
        self.summary = summary
        self.dataset_size = dataset_size
        self.run_dir = run_dir

    def __len__(self) -> int:
        return len(self.outcomes)

    @property
    def scores(self) -> list[float | None]:
        """Scores of the graded items, in dataset order."""
        return [o.score for o in self.outcomes]

    def iter_reports(self) -> Iterator[EvaluationReport | None]:
        """One report per dataset item, in order; None where an item has none."""
        if self.run_dir is None:
            by_index = {o.index: o.report for o in self.outcomes}
            for i in range(self.dataset_size):
                yield by_index.get(i)
            return
        store = RunStore(self.run_dir)
        try:
            nxt = 0
            for item in store.iter_items():
                while nxt < item.index:
                    yield None
                    nxt += 1
                report = item.report_json
                # read under the failure rule: a score stored beside a judge failure
                # before that rule is not kept (``_scoring.under_the_rule``)
                yield (
                    None
                    if report is None
                    else under_the_rule(EvaluationReport.model_validate_json(report))
                )
                nxt = item.index + 1
            while nxt < self.dataset_size:
                yield None
                nxt += 1
        finally:
            store.close()

    @property
    def reports(self) -> list[EvaluationReport | None]:
        """Every report, in dataset order (loaded from the run store when there is one)."""
        return list(self.iter_reports())

    @classmethod
    def open(cls, run_dir: str | Path) -> RunResult:
        """Read a run directory written by :func:`evaluate`.

        Raises:
            ConfigError: the directory holds no run.
        """
        path = Path(run_dir)
        if not (path / DB_NAME).is_file():
            raise ConfigError(
                f"{str(path)!r} is not a run directory (no {DB_NAME}); "
                "give the --run-dir of an earlier `rubricjudge evaluate`"
            )
        store = RunStore(path)
        try:
            meta = store.meta()
            size = int(meta.get("dataset_size", "0"))
            builder = SummaryBuilder(int(meta.get("items_in_scope", str(size))))
            outcomes = []
            for item in store.iter_items():
                outcomes.append(
                    ItemOutcome(item.key, item.index, item.status, item.score, item.error)
                )
                if item.status == "failed":
                    builder.add_failure(item.key, item.error or "unknown")
                elif item.report_json is not None:
                    report = EvaluationReport.model_validate_json(item.report_json)
                    builder.add_report(item.key, under_the_rule(report))
            summary = builder.build(store.judgment_rows())
        finally:
            store.close()
        return cls(outcomes, summary, dataset_size=size, run_dir=path)
