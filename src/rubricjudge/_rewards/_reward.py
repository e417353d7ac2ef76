"""Rubric scores as rewards for RL training (TRL's ``GRPOTrainer`` and friends).

:class:`RubricReward` is a reward function in TRL's calling convention: called as
``reward(prompts=..., completions=..., **columns)`` it returns one float per
completion (or None, which TRL reads as "no reward"), and it has a ``__name__``
for TRL's logs. Completions may be strings or chat message lists
(``[{"role": "assistant", "content": ...}]``, TRL's conversational format, tool
calls and tool results included); prompts likewise. A conversational completion
is graded as a conversation: the prompt's messages, then the completion's (a
string prompt is one user message), so judges see every turn and tool call, and
criteria may be scoped to the final assistant turn; a string completion is graded
as text, with the prompt's last user message as the query. Extra keyword
arguments are the dataset's columns, one value per completion; the one named
``reference_key`` (default ``"reference"``) is the reference answer, and all of
them reach the hybrid metrics as per-item fields.

The raw reward is the rubric's score on its scale when it has one (the report's
``overall_score``, e.g. 0-10 for an OpenRubricRL rubric, never rounded, as
OpenRubricRL's reward), else the score in [0, 1]. Normalisation:

- ``None``: the raw reward.
- ``"minmax"``: ``(raw - scale.min) / (scale.max - scale.min)``, i.e. [0, 1] over
  the rubric's scale (a rubric without a scale is already in [0, 1]).
- ``"zscore"``: ``(raw - mean) / std`` over the batch of one call (population
  std over the completions that were scored); 0.0 for every item when the std is 0
  or the batch has one scored item. Not available for a single :meth:`reward`.

Hybrid metrics (OpenRubricRL's ``hybrid_metrics``) are blended into the score as
``HybridGrader`` blends them. A metric that cannot be computed for a completion (a
``bleu`` or ``rouge`` metric with no reference in the batch's ``reference_key``
column, say) is never scored 0, as OpenRubricRL scores it: with
``on_metric_error="error"`` (the default) the completion fails, naming the metric
and the column to give; with ``on_metric_error="drop"`` the metric leaves the blend
for that completion and the others are re-weighted, which blends what can be
computed. Either way the metric's error is in the report.

Failures: a completion the grader could not score (every criterion's judge failed,
a hybrid metric failed under ``on_metric_error="error"``, or the grader raised a
:class:`~rubricjudge.RunError`) follows ``failure_policy``:
``"raise"`` raises :class:`RewardError`, ``"skip"`` gives None, ``"value"`` gives
``failure_value`` (as is: never normalised, never part of the z-score). Each
failure, and each criterion whose judge failed inside a scored completion, is
counted in :attr:`RubricReward.stats`. Usage errors (a bad rubric or judge spec)
are always raised.
"""

from __future__ import annotations

import asyncio
import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .._aio import gather_all, run_sync
from .._conversations._media_source import media_source
from .._conversations._messages import read_messages_with_media
from .._conversations._submission import Submission
from .._errors import ConfigError, ConversationError, RewardError, RunError
from .._hybrid._combine import check_hybrid
from .._hybrid._grader import HybridGrader
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import complete_score, failure_reason
from .._model._seams import AsyncGrader
from ._trust import reward_grader

if TYPE_CHECKING:
    from .._hybrid._combine import OnMetricError

__all__ = ["FailurePolicyName", "Normalization", "RewardError", "RewardStats", "RubricReward"]

FailurePolicyName = Literal["raise", "skip", "value"]
Normalization = Literal["minmax", "zscore"]


@dataclass
class RewardStats:
    """Counts kept by a :class:`RubricReward` across calls."""

    calls: int = 0
    completions: int = 0
    scored: int = 0
    failures: int = 0
    judge_errors: int = 0
    failure_messages: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        """The counts as a plain dict (for logging)."""
        return {
            "calls": self.calls,
            "completions": self.completions,
            "scored": self.scored,
            "failures": self.failures,
            "judge_errors": self.judge_errors,
        }


def message_text(value: Any, role: str, where: str) -> str:
    """Text of a prompt or completion: a string, or the last ``role`` message of a chat list."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and "content" in value:
        value = [value]
    if isinstance(value, Sequence) and all(isinstance(m, Mapping) for m in value):
        messages = list(value)
        if not messages:
            return ""
        chosen = [m for m in messages if m.get("role", role) == role] or messages
        content = chosen[-1].get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, Sequence):  # multimodal parts: keep the text ones
            return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    raise ConfigError(
        f"{where} is {type(value).__name__}; give a string or a chat message list "
        '[{"role": ..., "content": ...}]'
    )


def _messages(value: Any) -> list[Mapping[str, Any]] | None:
    """``value`` as a list of chat messages, or None when it is not one."""
    if isinstance(value, Mapping) and "role" in value:
        return [value]
    if (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and value
        and all(isinstance(m, Mapping) and "role" in m for m in value)
    ):
        return list(value)
    return None


def _to_grade(index: int, prompt: Any, completion: Any) -> tuple[Any, str | None]:
    """(what is graded, the query): a conversation for a conversational completion."""
    turns = _messages(completion)
    if turns is None:
        text = message_text(completion, "assistant", f"completions[{index}]")
        query = message_text(prompt, "user", f"prompts[{index}]") if prompt is not None else None
        return text, query
    if prompt is None:
        before: list[Mapping[str, Any]] = []
    elif isinstance(prompt, str):
        before = [{"role": "user", "content": prompt}]
    else:
        before = _messages(prompt) or []
        if not before:
            raise ConfigError(
                f"prompts[{index}] is {type(prompt).__name__}; give a string or a chat message "
                'list [{"role": ..., "content": ...}]'
            )

    where = f"prompts[{index}] + completions[{index}]"
    try:
        # a trainer's messages name no files: images come as bytes (data: URLs, base64)
        with media_source(allow_paths=False, allow_urls=False):
            conv, media = read_messages_with_media([*before, *turns], where=where)
    except ConversationError as e:
        raise ConfigError(str(e)) from None
    return Submission.of_conversation(conv, media), None


def _safe_name(rubric: Rubric) -> str:
    base = rubric.name or rubric.id or "rubric"
    return "rubric_reward_" + re.sub(r"\W+", "_", base).strip("_")


class RubricReward:
    """A rubric's score as a reward function (TRL ``GRPOTrainer``'s convention).

    Args:
        rubric: the rubric (a :class:`~rubricjudge.Rubric`, or a path to a rubric file).
        grader: a grader (``CriterionGrader(judge=...)``) or a judge spec string.
            With hybrid metrics in the rubric it is wrapped in a ``HybridGrader``.
            A spec gets a per-criterion grader with ``calibration``,
            ``verdict_method`` and ``reasons``; a grader is used as it is.
        failure_policy: ``"raise"``, ``"skip"`` (None) or ``"value"`` (``failure_value``).
        failure_value: the reward of a failed completion under ``"value"``.
        normalization: None, ``"minmax"`` or ``"zscore"`` (see the module docstring).
        concurrency: completions graded at once within one call.
        reference_key: the dataset column holding the reference answer.
        on_metric_error: with hybrid metrics, ``"error"`` (a completion whose metric
            cannot be computed fails) or ``"drop"`` (that metric leaves its blend).
        name: the ``__name__`` TRL logs (default ``rubric_reward_<rubric name>``).
        calibration: with a judge spec, a calibration file fitted by ``rubricjudge
            calibrate`` (``"default"``: the judge's own; None: none).
        verdict_method: with a judge spec, the reply layout (as ``grade --verdict-method``).
        reasons: with a judge spec, ask why for the criteria that cost points (one
            extra call each under ``verdict-only``); off: nobody reads a reward's reasons.
    """

    def __init__(
        self,
        rubric: Rubric | str,
        grader: AsyncGrader[Rubric, EvaluationReport] | str,
        *,
        failure_policy: FailurePolicyName = "raise",
        failure_value: float = 0.0,
        normalization: Normalization | None = None,
        concurrency: int = 8,
        reference_key: str = "reference",
        on_metric_error: OnMetricError = "error",
        name: str | None = None,
        calibration: Any = "default",
        verdict_method: str = "auto",
        reasons: bool = False,
    ) -> None:
        if not isinstance(rubric, Rubric):
            rubric = Rubric.from_file(rubric)
        if failure_policy not in ("raise", "skip", "value"):
            raise ConfigError(
                f"failure_policy {failure_policy!r} is not 'raise', 'skip' or 'value'"
            )
        if normalization not in (None, "minmax", "zscore"):
            raise ConfigError(f"normalization {normalization!r} is not None, 'minmax' or 'zscore'")
        if not (isinstance(failure_value, int | float) and math.isfinite(failure_value)):
            raise ConfigError(f"failure_value {failure_value!r} is not a finite number")
        if concurrency < 1:
            raise ConfigError(f"concurrency {concurrency!r} must be at least 1")
        if isinstance(grader, str):
            grader = reward_grader(
                grader, calibration=calibration, verdict_method=verdict_method, reasons=reasons
            )
        elif calibration != "default" or verdict_method != "auto" or reasons:
            raise ConfigError(
                "calibration, verdict_method and reasons apply to a judge spec; "
                "set them on the grader given"
            )
        if rubric.hybrid_metrics:
            extra = grader.metrics if isinstance(grader, HybridGrader) else None
            check_hybrid(rubric, extra)
            if not isinstance(grader, HybridGrader):
                grader = HybridGrader(grader, on_metric_error=on_metric_error)
            elif grader.on_metric_error != on_metric_error and on_metric_error != "error":
                raise ConfigError(
                    "on_metric_error is set on the HybridGrader given; set it there, or "
                    "give its inner grader"
                )
        self.rubric = rubric
        self.grader = grader
        self.failure_policy: FailurePolicyName = failure_policy
        self.failure_value = float(failure_value)
        self.normalization: Normalization | None = normalization
        self.concurrency = concurrency
        self.reference_key = reference_key
        self.__name__ = name or _safe_name(rubric)
        self.stats = RewardStats()

    # -- one completion ------------------------------------------------------------
    def _raw(self, report: EvaluationReport) -> float | None:
        score = complete_score(report)  # no reward from a judge that failed, even partly
        if score is None:
            return None
        if self.rubric.scale is not None:
            # the exact place on the scale, as OpenRubricRL's reward: scaled_score is
            # rounded on a discrete scale and would move the reward by up to half a step
            if report.overall_score is not None:
                return report.overall_score
            return self.rubric.scale.position(score)
        return score

    def _minmax(self, raw: float) -> float:
        scale = self.rubric.scale
        if scale is None:
            return raw
        return (raw - scale.min) / (scale.max - scale.min)

    async def _score(
        self, index: int, prompt: Any, completion: Any, fields: Mapping[str, Any]
    ) -> tuple[float | None, str | None]:
        text, query = _to_grade(index, prompt, completion)
        reference = fields.get(self.reference_key)
        kwargs: dict[str, Any] = {
            "query": query,
            "reference_submission": reference if isinstance(reference, str) else None,
        }

        if isinstance(self.grader, HybridGrader):
            kwargs["fields"] = fields
        try:
            report: EvaluationReport = await self.grader.grade(self.rubric, text, **kwargs)
        except RunError as e:
            return None, f"completion #{index}: {type(e).__name__}: {e}"
        self.stats.judge_errors += report.error_count
        raw = self._raw(report)
        if raw is None:
            why = failure_reason(report) or "no score"
            if "needs a reference" in why:  # the fix for a reward is a column, not an argument
                why += (
                    f"; give the batch a {self.reference_key!r} column (reference_key=), or "
                    "RubricReward(on_metric_error='drop') to blend the metrics it can compute"
                )
            return None, f"completion #{index}: {why}"
        return raw, None

    # -- batches -------------------------------------------------------------------
    async def acall(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """Async :meth:`__call__`: one reward per completion, in order."""
        if completions is None:
            raise ConfigError("a reward function needs completions=[...]")
        n = len(completions)
        if prompts is not None and len(prompts) != n:
            raise ConfigError(
                f"{len(prompts)} prompts for {n} completions; give one per completion"
            )
        columns = {
            k: v
            for k, v in kwargs.items()
            if isinstance(v, Sequence) and not isinstance(v, str) and len(v) == n
        }
        sem = asyncio.Semaphore(self.concurrency)

        async def one(i: int) -> tuple[float | None, str | None]:
            async with sem:
                fields = {k: v[i] for k, v in columns.items()}
                return await self._score(
                    i, prompts[i] if prompts is not None else None, completions[i], fields
                )

        outcomes = await gather_all([one(i) for i in range(n)])
        self.stats.calls += 1
        self.stats.completions += n
        failed = [msg for _, msg in outcomes if msg is not None]
        self.stats.failures += len(failed)
        self.stats.scored += n - len(failed)
        self.stats.failure_messages.extend(failed)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):  # TRL hands reward functions its metric logger
            log_metric(f"{self.__name__}/failed", float(len(failed)))
        if failed and self.failure_policy == "raise":
            raise RewardError(
                f"{len(failed)} of {n} completions could not be scored; first: {failed[0]} "
                "(pass failure_policy='skip' or 'value' to keep training)"
            )
        return self._finish([raw for raw, _ in outcomes])

    def _finish(self, raws: list[float | None]) -> list[float | None]:
        scored = [r for r in raws if r is not None]
        if self.normalization == "minmax":
            values: list[float | None] = [None if r is None else self._minmax(r) for r in raws]
        elif self.normalization == "zscore":
            mean = statistics.fmean(scored) if scored else 0.0
            std = statistics.pstdev(scored) if len(scored) > 1 else 0.0
            values = [None if r is None else ((r - mean) / std if std > 0 else 0.0) for r in raws]
        else:
            values = list(raws)
        if self.failure_policy == "value":
            return [self.failure_value if v is None else v for v in values]
        return values

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """Score a batch (TRL's reward-function call); blocks, even inside an event loop."""
        return run_sync(self.acall(prompts, completions, **kwargs))

    async def areward(self, prompt: Any, completion: Any, **fields: Any) -> float | None:
        """Async :meth:`reward`."""
        if self.normalization == "zscore":
            raise ConfigError("z-score normalisation needs a batch; call the reward with lists")
        wrapped = {k: [v] for k, v in fields.items()}
        return (await self.acall([prompt], [completion], **wrapped))[0]

    def reward(self, prompt: Any, completion: Any, **fields: Any) -> float | None:
        """The reward of one completion (None only under ``failure_policy="skip"``)."""
        return run_sync(self.areward(prompt, completion, **fields))
