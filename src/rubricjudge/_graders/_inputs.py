"""What a grader takes in: the submission, few-shot examples and the length penalty.

The submission model (text, ``{"thinking", "output"}`` or a conversation) lives in
``_conversations._submission``; it is re-exported here, where graders have always found it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from .._conversations._submission import Submission, to_submission
from .._errors import ConfigError
from .._model._rubric import Criterion, CriterionVerdict, Rubric
from .._model._scoring import leaf_reports, reports_from_verdicts

__all__ = [
    "FewShotExample",
    "LengthPenalty",
    "Submission",
    "compute_length_penalty",
    "example_labels",
    "to_submission",
    "word_count",
]

# -- length penalty ---------------------------------------------------------------
PenaltyType = Literal["ALL", "OUTPUT_ONLY", "THINKING_ONLY"]
_PENALTY_ALIASES = {"all": "ALL", "output": "OUTPUT_ONLY", "thinking": "THINKING_ONLY"}


def word_count(text: str) -> int:
    """Whitespace-separated words in ``text`` (the default length measure)."""
    return len(text.split())


class LengthPenalty(BaseModel):
    """A penalty for long submissions, subtracted from the score after scoring.

    With ``n`` the length of the counted part (words by default, or ``count_fn``)::

        penalty = 0                                              n <= free_budget
        penalty = penalty_at_cap                                 n >= max_cap
        penalty = penalty_at_cap * ((n - free_budget) / (max_cap - free_budget)) ** exponent

    ``penalty_type`` says which part counts: ``ALL`` (thinking and output),
    ``OUTPUT_ONLY`` or ``THINKING_ONLY`` (``all`` / ``output`` / ``thinking`` work too).
    A normalised score is floored at 0 after the subtraction; a raw score is not.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    free_budget: int = 6000
    max_cap: int = 8000
    penalty_at_cap: float = 0.5
    exponent: float = 1.6
    count_fn: Callable[[str], int] | None = None
    penalty_type: PenaltyType = "ALL"

    @field_validator("penalty_type", mode="before")
    @classmethod
    def _alias(cls, v: Any) -> Any:
        return _PENALTY_ALIASES.get(str(v).lower(), v) if isinstance(v, str) else v

    @model_validator(mode="after")
    def _check(self) -> LengthPenalty:
        if self.free_budget < 0 or self.max_cap <= self.free_budget:
            raise ValueError(
                f"max_cap ({self.max_cap!r}) must exceed free_budget ({self.free_budget!r}) >= 0"
            )
        if not (math.isfinite(self.penalty_at_cap) and self.penalty_at_cap >= 0):
            raise ValueError(f"penalty_at_cap {self.penalty_at_cap!r} must be >= 0")
        if not (math.isfinite(self.exponent) and self.exponent > 0):
            raise ValueError(f"exponent {self.exponent!r} must be > 0")
        return self


def compute_length_penalty(submission: Any, config: LengthPenalty) -> float:
    """Compute the penalty ``config`` gives ``submission`` (text, mapping or Submission)."""
    sub = to_submission(submission)
    if config.penalty_type == "OUTPUT_ONLY":
        text = sub.output
    elif config.penalty_type == "THINKING_ONLY":
        text = sub.thinking
    else:
        text = f"{sub.thinking} {sub.output}"
    n = (config.count_fn or word_count)(text)
    if n <= config.free_budget:
        return 0.0
    if n >= config.max_cap:
        return config.penalty_at_cap
    frac = (n - config.free_budget) / (config.max_cap - config.free_budget)
    return float(config.penalty_at_cap * frac**config.exponent)


# -- few-shot examples ------------------------------------------------------------
@dataclass(frozen=True)
class FewShotExample:
    """A labelled submission shown to the judge: one verdict (or option label) per leaf.

    ``verdicts`` is a list in leaf order or a mapping keyed by criterion name/id,
    exactly as :meth:`Rubric.compute_score` takes them.
    """

    submission: Any
    verdicts: Sequence[Any] | Mapping[str, Any]


def _coerce_example(ex: Any, where: str) -> FewShotExample:
    if isinstance(ex, FewShotExample):
        return ex
    if isinstance(ex, Mapping):
        sub = ex.get("submission")
        verdicts = ex.get("verdicts", ex.get("ground_truth"))
    else:
        sub = getattr(ex, "submission", None)
        verdicts = getattr(ex, "verdicts", None) or getattr(ex, "ground_truth", None)
    if sub is None or verdicts is None:
        raise ConfigError(
            f"{where} needs a 'submission' and 'verdicts' (or 'ground_truth'); "
            f"got {type(ex).__name__}"
        )
    return FewShotExample(submission=sub, verdicts=verdicts)


def example_labels(
    rubric: Rubric, examples: Sequence[Any] | None
) -> tuple[list[Submission], list[list[str | None]]]:
    """Return example submissions and, per leaf criterion, the label each example got.

    Returns ``(submissions, labels)`` where ``labels[leaf][k]`` is ``"MET"``,
    ``"UNMET"``, ``"CANNOT_ASSESS"`` or an option label for example ``k``.

    Raises:
        ConfigError / VerdictError: an example is malformed or its verdicts do not fit.
    """
    leaves = rubric.leaves()
    subs: list[Submission] = []
    labels: list[list[str | None]] = [[] for _ in leaves]
    for k, raw in enumerate(examples or []):
        ex = _coerce_example(raw, f"examples[{k}]")
        sub = to_submission(ex.submission, where=f"examples[{k}].submission")
        if sub.media:  # the judge would read an example's placeholders without its images
            raise ConfigError(
                f"examples[{k}].submission holds images or documents, which few-shot examples "
                "do not send to the judge yet; give a text example"
            )
        subs.append(sub)
        reports = list(leaf_reports(reports_from_verdicts(rubric, ex.verdicts)))
        for i, r in enumerate(reports):
            labels[i].append(_label(r.criterion, r.verdict, r.selection))
    return subs, labels


def _label(criterion: Criterion, verdict: CriterionVerdict | None, selection: Any) -> str | None:
    if selection is not None:
        return str(selection.label)
    return verdict.value if verdict is not None else None
