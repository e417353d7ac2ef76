"""How verdicts are priced: the CANNOT_ASSESS strategy, normalising, and whose rules.

A :class:`ScoringPolicy` travels with every scoring call (``_scoring``); the module
docstring of ``_scoring`` states the rules it selects between.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal

__all__ = [
    "COMPAT_CHOICES",
    "DEFAULT_POLICY",
    "JUDGE_FAILURE_CHOICES",
    "CannotAssessStrategy",
    "Compat",
    "JudgeFailurePolicy",
    "ScoringPolicy",
]


class CannotAssessStrategy(StrEnum):
    """What a CANNOT_ASSESS verdict counts as.

    SKIP leaves the criterion out; ZERO gives no credit; PARTIAL gives
    ``partial_credit``; FAIL assumes the worst for the weight's sign (UNMET on a
    positive criterion, MET on a penalty, the worst option on a multi-choice one).
    """

    SKIP = "skip"
    ZERO = "zero"
    PARTIAL = "partial"
    FAIL = "fail"

    @classmethod
    def _missing_(cls, value: object) -> CannotAssessStrategy | None:
        # accept "SKIP", " Zero " and friends; anything else is a ValueError naming the choices
        if isinstance(value, str):
            for member in cls:
                if member.value == value.strip().lower():
                    return member
        return None


Compat = Literal["rubricjudge", "autorubric", "dataknobs"]
COMPAT_CHOICES: tuple[Compat, ...] = ("rubricjudge", "autorubric", "dataknobs")

JudgeFailurePolicy = Literal["no_score", "partial"]
"""What an item whose judge failed on a weighted criterion scores (see ``_scoring``):
``"no_score"`` (the default) none, ``"partial"`` the floor over the decided criteria."""
JUDGE_FAILURE_CHOICES: tuple[JudgeFailurePolicy, ...] = ("no_score", "partial")


@dataclass(frozen=True)
class ScoringPolicy:
    """How to score: the CANNOT_ASSESS strategy, whether to normalise, whose rules.

    ``compat="rubricjudge"`` (the default) never counts a failure as a verdict: a
    scoring function that raises or answers something that is not a level is
    recorded and priced by ``cannot_assess``, a level label is read as its level,
    and the score is clamped to [0, 1]. ``compat="dataknobs"`` reproduces the
    dataknobs executor exactly instead: failures and unknown levels score 0, only
    exact level ids count, ``score = Σ w·s / Σ w`` with negative weights and no
    clamp, and a rubric where everything failed scores 0.0 (and fails its
    threshold) rather than None. ``cannot_assess`` and ``partial_credit`` do not
    apply under ``dataknobs``: anything undecided is worth 0 there.
    ``compat="autorubric"`` keeps rubricjudge's rules but adds the weighted terms in
    rubric order, as autorubric's ``score_reports`` does, instead of exactly rounded:
    the two can differ in the last bit, and a PaperBench tree then matches its scores.

    ``judge_failure`` is what an item gets when its judge failed on a criterion that
    carries weight: ``"no_score"`` (the default; the item is failed) or ``"partial"``
    (the floor over the decided criteria, flagged ``partial``). A judge failure is
    never priced by ``cannot_assess``: that prices CANNOT_ASSESS verdicts a judge gave.
    """

    cannot_assess: CannotAssessStrategy = CannotAssessStrategy.SKIP
    partial_credit: float = 0.5
    normalize: bool = True
    compat: Compat = "rubricjudge"
    judge_failure: JudgeFailurePolicy = "no_score"

    @classmethod
    def dataknobs(cls, *, normalize: bool = True) -> ScoringPolicy:
        """Return the policy that scores exactly as dataknobs' ``RubricExecutor`` does."""
        return cls(CannotAssessStrategy.ZERO, normalize=normalize, compat="dataknobs")

    @classmethod
    def coerce(cls, value: ScoringPolicy | str | None) -> ScoringPolicy:
        """Return a policy from a policy, a compat name (``"dataknobs"``) or None (the default).

        Raises:
            ValueError: an unknown name; the message lists the valid ones.
        """
        if value is None:
            return DEFAULT_POLICY
        if isinstance(value, ScoringPolicy):
            return value
        if value == "dataknobs":
            return cls.dataknobs()
        if value == "autorubric":
            return cls(compat="autorubric")
        if value == "rubricjudge":
            return DEFAULT_POLICY
        choices = ", ".join(repr(c) for c in COMPAT_CHOICES)
        raise ValueError(f"scoring policy {value!r} is unknown; use one of {choices}")

    def with_normalize(self, normalize: bool) -> ScoringPolicy:
        """This policy with ``normalize`` set (everything else kept)."""
        return replace(self, normalize=normalize)

    def __post_init__(self) -> None:
        if self.compat not in COMPAT_CHOICES:
            choices = ", ".join(repr(c) for c in COMPAT_CHOICES)
            raise ValueError(f"compat {self.compat!r} is unknown; use one of {choices}")
        if self.judge_failure not in JUDGE_FAILURE_CHOICES:
            choices = ", ".join(repr(c) for c in JUDGE_FAILURE_CHOICES)
            raise ValueError(
                f"judge_failure {self.judge_failure!r} is unknown; use one of {choices}"
            )
        if not isinstance(self.cannot_assess, CannotAssessStrategy):
            try:
                strategy = CannotAssessStrategy(self.cannot_assess)
            except ValueError:
                choices = ", ".join(repr(m.value) for m in CannotAssessStrategy)
                bad = self.cannot_assess
                raise ValueError(
                    f"cannot_assess strategy {bad!r} is unknown; use one of {choices}"
                ) from None
            object.__setattr__(self, "cannot_assess", strategy)
        if not 0.0 <= self.partial_credit <= 1.0:
            raise ValueError(
                f"partial_credit {self.partial_credit!r} is outside [0, 1]; give a fraction"
            )


DEFAULT_POLICY = ScoringPolicy()
