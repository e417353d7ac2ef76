"""Rewards for trainers that call a function per rollout or per batch (veRL, verifiers).

A :class:`RewardEngine` holds the rubric(s), the grader and the failure policy;
:meth:`RewardEngine.score` grades one rollout and :meth:`RewardEngine.score_batch`
a batch (through :func:`grade_rewards`). Each result is a dict of numbers in the
shape veRL logs (``score`` plus the same keys for every rollout): the reward,
whether the rollout failed, how many criteria's judges failed, judge calls, cache
hits and tokens. A failed rollout is never a silent 0: under ``"error"`` it
raises :class:`~rubricjudge.RewardError`; under ``"neutral"`` its score is the
neutral value and ``rubric_failed`` is 1. ``"skip"`` (no reward) cannot be said to
a trainer that needs a number for every rollout, so these entries refuse it.

Engines are cached by their settings (:func:`engine`), so a trainer calling the
function once per rollout builds the judge (its HTTP session, its response
cache) once.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._errors import ConfigError, RewardError, RunError, UsageError
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import complete_score, failure_reason
from .._model._seams import AsyncGrader
from ._batch import DEFAULT_NEUTRAL, OnFailure, RewardBatch, Rollout, check_policy, grade_rewards
from ._trust import reward_grader

__all__ = ["RewardEngine", "engine"]

Result = dict[str, float]


class RewardEngine:
    """Rubric(s), grader and failure policy for per-rollout and batched reward functions.

    Args:
        rubric: a rubric or rubric file; or a mapping from a rollout's data source
            (veRL's ``data_source``) to one.
        grader: a grader, or a judge spec string (``"openai/gpt-4.1-mini"``).
        on_failure: ``"error"`` or ``"neutral"``.
        neutral_value: the reward of a failed rollout under ``"neutral"``.
        concurrency: rollouts of a batch graded at once.
        flag: how the caller's configuration names ``on_failure`` (for messages).
    """

    def __init__(
        self,
        rubric: Rubric | str | Path | Mapping[str, Rubric | str | Path],
        grader: AsyncGrader[Rubric, EvaluationReport] | str,
        *,
        on_failure: OnFailure = "error",
        neutral_value: float = DEFAULT_NEUTRAL,
        concurrency: int = 64,
        flag: str = "on_failure",
    ) -> None:
        check_policy(on_failure, neutral_value, flag=flag)
        if on_failure == "skip":
            raise ConfigError(
                f"{flag} 'skip' gives no reward, and this trainer needs a number for every "
                "rollout; use 'neutral' or 'error'"
            )
        if isinstance(rubric, Mapping):
            self.rubrics = {str(k): _load(v) for k, v in rubric.items()}
            if not self.rubrics:
                raise ConfigError("the rubric mapping is empty; map each data source to a rubric")
        else:
            self.rubrics = {"": _load(rubric)}
        if isinstance(grader, str):
            grader = reward_grader(grader)  # reasons off: nobody reads a reward's reasons
        if concurrency < 1:
            raise ConfigError(f"concurrency {concurrency!r} must be at least 1")
        self.grader = grader
        self.on_failure: OnFailure = on_failure
        self.neutral_value = float(neutral_value)
        self.concurrency = concurrency

    def rubric_for(self, source: str | None) -> Rubric:
        """The rubric of a rollout from ``source`` (the only one, or the mapping's entry)."""
        if "" in self.rubrics:
            return self.rubrics[""]
        found = self.rubrics.get(str(source))
        if found is None:
            known = ", ".join(sorted(self.rubrics))
            raise ConfigError(f"no rubric for data source {source!r} (the mapping has: {known})")
        return found

    def _fail(self, error: str) -> Result:
        if self.on_failure == "error":
            raise RewardError(
                f"{error} (on_failure='neutral' keeps training with a neutral reward)"
            )
        return _result(self.neutral_value, failed=True)

    async def score(
        self,
        response: str,
        *,
        query: str | None = None,
        reference: str | None = None,
        source: str | None = None,
    ) -> Result:
        """Grade one rollout; the reward is ``result["score"]``."""
        result, _ = await self.grade_one(response, query=query, reference=reference, source=source)
        return result

    async def grade_one(
        self,
        response: str,
        *,
        query: str | None = None,
        reference: str | None = None,
        source: str | None = None,
    ) -> tuple[Result, EvaluationReport | None]:
        """Grade one rollout: its result and the grader's report (None if the grader raised)."""
        rubric = self.rubric_for(source)
        try:
            report: EvaluationReport = await self.grader.grade(
                rubric, response, query=query, reference_submission=reference
            )
        except UsageError:
            raise
        except RunError as e:
            return self._fail(f"the rollout could not be scored: {type(e).__name__}: {e}"), None
        score = complete_score(report)  # no reward from a judge that failed, even partly
        if score is None:
            error = failure_reason(report) or "no criterion could be graded"
            return self._fail(f"the rollout could not be scored: {error}"), report
        usage = report.token_usage
        result = _result(
            score,
            failed=False,
            judge_errors=report.error_count,
            calls=report.judge_calls,
            cached=report.cached_calls,
            tokens=usage.total_tokens if usage else 0,
        )
        return result, report

    async def score_batch(
        self,
        responses: Sequence[str],
        *,
        queries: Sequence[str | None] | None = None,
        references: Sequence[str | None] | None = None,
        sources: Sequence[str | None] | None = None,
    ) -> list[Result]:
        """Grade a batch, in order; each rubric's rollouts are graded together."""
        n = len(responses)
        for name, seq in (("queries", queries), ("references", references), ("sources", sources)):
            if seq is not None and len(seq) != n:
                raise ConfigError(f"{len(seq)} {name} for {n} responses; give one each")
        groups: dict[int, list[int]] = {}
        rubrics: dict[int, Rubric] = {}
        for i in range(n):
            rubric = self.rubric_for(sources[i] if sources is not None else None)
            rubrics[id(rubric)] = rubric
            groups.setdefault(id(rubric), []).append(i)
        out: list[Result] = [{}] * n
        for key, idx in groups.items():
            rollouts = [
                Rollout(
                    responses[i],
                    queries[i] if queries is not None else None,
                    references[i] if references is not None else None,
                )
                for i in idx
            ]
            batch = await grade_rewards(
                rubrics[key], self.grader, rollouts, concurrency=self.concurrency, keep_reports=True
            )
            for i, result in zip(idx, self._batch_results(batch), strict=True):
                out[i] = result
        return out

    def _batch_results(self, batch: RewardBatch) -> list[Result]:
        failure = batch.failure(self.on_failure)
        if failure is not None:
            raise RewardError(failure)
        out = []
        for s, report in zip(batch.scores, batch.reports, strict=True):
            usage = report.token_usage if report is not None else None
            out.append(
                _result(
                    self.neutral_value if s is None else s,
                    failed=s is None,
                    judge_errors=report.error_count if report is not None else 0,
                    calls=report.judge_calls if report is not None else 0,
                    cached=report.cached_calls if report is not None else 0,
                    tokens=usage.total_tokens if usage is not None else 0,
                )
            )
        return out


def _load(rubric: Rubric | str | Path) -> Rubric:
    return rubric if isinstance(rubric, Rubric) else Rubric.from_file(rubric)


def _result(
    score: float,
    *,
    failed: bool,
    judge_errors: int = 0,
    calls: int = 0,
    cached: int = 0,
    tokens: int = 0,
) -> Result:
    # the same keys for every rollout: veRL appends each key's values into one list
    return {
        "score": float(score),
        "rubric_failed": 1.0 if failed else 0.0,
        "rubric_judge_errors": float(judge_errors),
        "rubric_judge_calls": float(calls),
        "rubric_cached_calls": float(cached),
        "rubric_tokens": float(tokens),
    }


_ENGINES: dict[tuple[Any, ...], RewardEngine] = {}
_LOCK = threading.Lock()


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def engine(
    *,
    rubric: Rubric | str | Path | Mapping[str, Rubric | str | Path] | None,
    judge: str = "local",
    base_url: str | None = None,
    on_failure: str = "error",
    neutral_reward: float = DEFAULT_NEUTRAL,
    concurrency: int = 64,
    flag: str = "on_failure",
    calibration: str | None = None,
    verdict_method: str = "auto",
    reasons: bool = False,
) -> RewardEngine:
    """The engine for these settings, built on first use and kept (one judge per setting).

    ``calibration`` (a file of ``rubricjudge calibrate``), ``verdict_method`` and
    ``reasons`` are ``grade``'s trust options; reasons are off by default.
    """
    if rubric is None:
        raise ConfigError(
            "no rubric: pass rubric=PATH (or a mapping data_source -> PATH) in the reward's "
            "keyword arguments (veRL: reward.custom_reward_function.reward_kwargs.rubric)"
        )
    key = _freeze(
        (
            rubric,
            judge,
            base_url,
            on_failure,
            neutral_reward,
            concurrency,
            calibration,
            verdict_method,
            reasons,
        )
    )
    with _LOCK:
        found = _ENGINES.get(key)
        if found is None:
            options: dict[str, Any] = {"base_url": base_url} if base_url else {}
            grader = reward_grader(
                judge,
                calibration="default" if calibration is None else calibration,
                verdict_method=verdict_method,
                reasons=reasons,
                judge_options=options,
            )
            rubric = dict(rubric) if isinstance(rubric, Mapping) else rubric
            found = _ENGINES[key] = RewardEngine(
                rubric,
                grader,
                on_failure=on_failure,  # type: ignore[arg-type]
                neutral_value=neutral_reward,
                concurrency=concurrency,
                flag=flag,
            )
    return found
