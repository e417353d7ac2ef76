"""The run summary: scores, verdicts per criterion, calls, tokens, cost, latency, errors."""

from __future__ import annotations

import statistics
from array import array
from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from .._judges._fleet import EndpointStats
from .._model._reports import CriterionReport, EvaluationReport, TokenUsage
from .._model._scoring import leaf_reports
from .._quantiles import summary_percentiles
from .._stats._flips import FlipTally
from ._store import JudgmentRow

__all__ = ["RunSummary", "SummaryBuilder", "endpoint_lines"]

_MAX_EXAMPLES = 5


class RunSummary(BaseModel):
    """What a run did, in numbers.

    ``items_failed`` counts items whose grading raised; ``items_unscored`` items
    graded without a score because the judge failed on a criterion that carries
    weight (``_scoring.finalize``): both are failed items (``evaluate`` exits 1).
    ``judge_calls`` counts judgments actually made (all of them for a stored run,
    across resumes); ``replayed_calls`` those served from the run store in the last
    session; ``cached_calls`` those the last session made that the judge's response
    cache answered (no model was asked; they are judgments of this run all the same).
    ``cost`` is None when the price of some call is unknown.
    ``endpoints`` holds, for a judge over a fleet of servers (several base URLs),
    each server's requests, failures and latency in the last session.
    ``flip_rates`` holds each criterion's mean flip rate when judgments were
    repeated (``--repeats``), least stable first.
    ``batch_results_rejected`` counts the lines of provider batch results not
    used: for a request not sent in that batch, or a second one for a request
    (whose answer is then recorded as a judge error).
    """

    model_config = ConfigDict(extra="forbid")

    items_total: int
    items_graded: int = 0
    items_failed: int = 0
    items_with_judge_errors: int = 0
    items_unscored: int = 0
    items_resumed: int = 0
    score_mean: float | None = None
    score_median: float | None = None
    score_min: float | None = None
    score_max: float | None = None
    verdicts: dict[str, dict[str, int]] = Field(default_factory=dict)
    judge_calls: int = 0
    replayed_calls: int = 0
    cached_calls: int = 0
    tokens: TokenUsage | None = None
    cost: float | None = None
    latency_s: dict[str, float] = Field(default_factory=dict)
    queue_s: dict[str, float] = Field(default_factory=dict)
    errors: dict[str, int] = Field(default_factory=dict)
    error_examples: list[str] = Field(default_factory=list)
    wall_s: float | None = None
    endpoints: dict[str, EndpointStats] = Field(default_factory=dict)
    flip_rates: dict[str, float] = Field(default_factory=dict)
    batch_results_rejected: int = 0

    def to_text(self) -> str:
        """Render a few readable lines."""
        lines = [
            f"items: {self.items_graded}/{self.items_total} graded, {self.items_failed} failed, "
            f"{self.items_with_judge_errors} with judge errors, {self.items_resumed} resumed"
        ]
        if self.items_unscored:
            lines.append(
                f"items without a score: {self.items_unscored} (the judge failed on a criterion "
                "that carries weight; a judge failure is never a score)"
            )
        if self.score_mean is not None:
            lines.append(
                f"score: mean {self.score_mean:.3f}  median {self.score_median:.3f}  "
                f"min {self.score_min:.3f}  max {self.score_max:.3f}"
            )
        tokens = self.tokens.total_tokens if self.tokens else 0
        cost = "unknown" if self.cost is None else f"${self.cost:.4f}"
        cached = f"{self.cached_calls} from the response cache"
        calls = f"judge calls: {self.judge_calls} ({cached})"
        if self.items_resumed or self.replayed_calls:
            calls = (
                f"judge calls: {self.judge_calls} made over all sessions of this run; in this "
                f"one {self.replayed_calls} replayed from the run store, {cached};"
            )
        lines.append(f"{calls}  tokens: {tokens}  cost: {cost}")
        if self.latency_s:
            lat = "  ".join(f"{k} {v:.3f}s" for k, v in self.latency_s.items())
            lines.append(f"latency (the calls' own time): {lat}")
        if self.queue_s and self.queue_s.get("max", 0.0) > 0.0:
            queue = "  ".join(f"{k} {v:.3f}s" for k, v in self.queue_s.items())
            lines.append(f"queue wait (limits, a busy local model): {queue}")
        if self.wall_s is not None:
            lines.append(f"wall time: {self.wall_s:.2f}s")
        lines.extend(endpoint_lines(self.endpoints))
        if self.batch_results_rejected:
            lines.append(
                f"batch results rejected: {self.batch_results_rejected} (for requests not "
                "sent in that batch, or a second result for one request)"
            )
        if self.verdicts:
            lines.append("verdicts per criterion (answer=count):")
        for key, dist in self.verdicts.items():
            parts = ", ".join(f"{label}={n}" for label, n in sorted(dist.items()))
            lines.append(f"  {key}: {parts}")
        if self.flip_rates:
            lines.append("least stable criteria (mean flip rate over repeats):")
            lines += [f"  {k}: {v:.3f}" for k, v in list(self.flip_rates.items())[:5]]
        if self.errors:
            lines.append("errors: " + ", ".join(f"{k} {n}" for k, n in self.errors.items()))
            lines.extend(f"  {e}" for e in self.error_examples)
        return "\n".join(lines)


def endpoint_lines(endpoints: dict[str, EndpointStats]) -> list[str]:
    """Lines for the servers of a fleet: requests, failures, latency, health."""
    if not endpoints:
        return []
    lines = ["endpoints (requests sent, failed; latency of the answered):"]
    for url, st in endpoints.items():
        lat = "  ".join(f"{k} {v:.3f}s" for k, v in st.latency_s.items()) or "no answer"
        down = "" if st.healthy else "  [down at the end]"
        kinds = [f"{st.unreadable} unreadable"] if st.unreadable else []
        if st.rate_limited:
            kinds.append(f"{st.rate_limited} rate-limited")
        bad = f" ({', '.join(kinds)})" if kinds else ""
        lines.append(f"  {url}: {st.calls} sent, {st.errors} failed{bad}  {lat}{down}")
    return lines


def _label(r: CriterionReport) -> str:
    if r.is_error:
        return "ERROR"
    if r.selection is not None:
        return r.selection.label
    if r.scale_score is not None:
        return f"{r.scale_score.score:g}"
    return r.verdict.value if r.verdict is not None else "NONE"


class SummaryBuilder:
    """Accumulates a summary item by item (what it keeps is small per item)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.scores: list[float] = []
        self.verdicts: dict[str, Counter[str]] = {}
        self.errors: Counter[str] = Counter()
        self.examples: list[str] = []
        self.graded = 0
        self.failed = 0
        self.with_errors = 0
        self.unscored = 0
        self.resumed = 0
        self.flips = FlipTally()

    def _example(self, text: str) -> None:
        if len(self.examples) < _MAX_EXAMPLES:
            self.examples.append(text)

    def add_report(self, key: str, report: EvaluationReport) -> None:
        """Count a graded item."""
        self.graded += 1
        if report.score is not None:
            self.scores.append(report.score)
        if report.error_count or report.error:
            self.with_errors += 1
        if report.score is None and report.error is not None:
            self.unscored += 1
        self.flips.add(report)
        for pos, leaf in enumerate(leaf_reports(report.report or [])):
            ck = leaf.key or f"#{pos}"
            self.verdicts.setdefault(ck, Counter())[_label(leaf)] += 1
            if leaf.is_error:
                self.errors[f"judge:{leaf.error_category or 'unknown'}"] += 1
                self._example(f"{key} / {ck}: {leaf.error}")

    def add_failure(self, key: str, error: str) -> None:
        """Count an item whose grading raised."""
        self.failed += 1
        self.errors[f"item:{error.split(':', 1)[0]}"] += 1
        self._example(f"{key}: {error}")

    def build(
        self,
        judgments: Iterable[JudgmentRow],
        *,
        replayed: int = 0,
        wall_s: float | None = None,
        endpoints: dict[str, EndpointStats] | None = None,
        batch_rejected: int = 0,
        cached: int = 0,
    ) -> RunSummary:
        """Build the summary, with the judge numbers taken from ``judgments``."""
        calls = 0
        tokens: TokenUsage | None = None
        cost: float | None = 0.0
        latencies = array("d")  # 8 bytes a call: a large run's summary stays small
        queued = array("d")
        for row in judgments:
            calls += 1
            if row.usage is not None:
                tokens = row.usage if tokens is None else tokens + row.usage
            cost = None if cost is None or row.cost is None else cost + row.cost
            latencies.append(row.latency_s)
            queued.append(row.queue_s)
        s = self.scores
        return RunSummary(
            items_total=self.total,
            items_graded=self.graded,
            items_failed=self.failed,
            items_with_judge_errors=self.with_errors,
            items_unscored=self.unscored,
            items_resumed=self.resumed,
            score_mean=statistics.fmean(s) if s else None,
            score_median=statistics.median(s) if s else None,
            score_min=min(s) if s else None,
            score_max=max(s) if s else None,
            verdicts={k: dict(v) for k, v in self.verdicts.items()},
            judge_calls=calls,
            replayed_calls=replayed,
            cached_calls=cached,
            tokens=tokens,
            cost=cost if calls else None,
            latency_s=_percentiles(latencies),
            queue_s=_percentiles(queued),
            errors=dict(self.errors),
            error_examples=self.examples,
            wall_s=wall_s,
            endpoints=endpoints or {},
            flip_rates={k: rate for k, rate, _ in self.flips.least_stable(len(self.flips.counts))},
            batch_results_rejected=batch_rejected,
        )


def _percentiles(values: array[float]) -> dict[str, float]:
    """p50, p90, p99 and max of ``values`` (empty when there are none)."""
    return summary_percentiles(values, (("p50", 50), ("p90", 90), ("p99", 99)))
