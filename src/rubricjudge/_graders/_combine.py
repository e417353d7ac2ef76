"""Turn what the judges said about one criterion into its report, failures included.

Failure policy. A judge call that fails (after the judge layer's retries), or whose
reply does not answer the question, is recorded on the criterion: ``error`` holds
``"<category>: message"`` and ``error_category`` the category. In an ensemble the
failed members are left out of the vote and listed in ``votes``; the policy below
applies only when every member failed. Then the criterion gets:

* ``CANNOT_ASSESS`` with ``error`` set (the default): the criterion is undecided, and
  the scoring layer's rule applies (``_model._scoring``): an item with an undecided
  criterion that carries weight has no score, or, opted in, a ``partial`` floor; the
  CannotAssessStrategy prices only CANNOT_ASSESS verdicts a judge gave;
* the ``default_fallback_verdicts`` verdict for the weight's sign, when given
  (``{"positive": "UNMET", "negative": "MET"}`` assumes the worst); on a
  multi-choice criterion a fallback of the worst case picks the worst option and
  the other verdict the best one; on a criterion scored on a scale MET is the top
  of the scale and UNMET the bottom;
* or, with ``on_error="raise"``, the :class:`JudgeError` is raised.

When every criterion failed, nothing was graded: ``score`` is None, as it is when
any weighted criterion failed (``_scoring.finalize``).

Criteria scored by another method (a function, a JSON Schema, ``llm_decode``) record
their failures the same way (``_methods.run_method``); :func:`apply_policy` puts
those reports through this same policy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast, get_args

from .._errors import ConfigError, JudgeError, JudgeErrorCategory
from .._model._reports import CriterionReport, OptionSelection, ScaleScore, TokenUsage
from .._model._rubric import Criterion, CriterionVerdict
from ._ensemble import decide_binary, decide_options, decide_scale
from ._judging import Outcome
from ._options import ON_ERROR, OnError, check_choice

__all__ = ["FailurePolicy", "apply_policy", "combine"]


def _verdict(value: Any, where: str) -> CriterionVerdict:
    try:
        return CriterionVerdict(
            str(value.value if isinstance(value, CriterionVerdict) else value).upper()
        )
    except ValueError:
        raise ConfigError(f"{where} is {value!r}; use 'MET', 'UNMET' or 'CANNOT_ASSESS'") from None


@dataclass(frozen=True)
class FailurePolicy:
    """What a criterion gets when its judge failed (see the module docstring)."""

    on_error: OnError = "record"
    fallback: Mapping[str, CriterionVerdict] | None = None

    @classmethod
    def build(cls, on_error: object, fallback: Mapping[str, Any] | None) -> FailurePolicy:
        """Validate the grader arguments into a policy."""
        choice = check_choice("on_error", on_error, ON_ERROR)
        if fallback is None:
            return cls(on_error=choice)
        if set(fallback) != {"positive", "negative"}:
            raise ConfigError(
                f"default_fallback_verdicts needs exactly the keys 'positive' and 'negative'; "
                f"got {sorted(fallback)!r}"
            )
        parsed = {k: _verdict(v, f"default_fallback_verdicts[{k!r}]") for k, v in fallback.items()}
        return cls(on_error=choice, fallback=parsed)


def _sum_cost(outcomes: Sequence[Outcome]) -> float | None:
    costs = [o.cost for o in outcomes]
    if not costs or any(c is None for c in costs):
        return None
    return float(sum(c or 0.0 for c in costs))


def _selection(criterion: Criterion, index: int) -> OptionSelection:
    opt = (criterion.options or [])[index]
    return OptionSelection(index=index, label=opt.label, value=opt.value, na=opt.na)


def _fallback(criterion: Criterion, policy: FailurePolicy) -> dict[str, Any]:
    if policy.fallback is None:
        return {"verdict": CriterionVerdict.CANNOT_ASSESS}
    verdict = policy.fallback["positive" if criterion.weight >= 0 else "negative"]
    if criterion.scale is not None and verdict is not CriterionVerdict.CANNOT_ASSESS:
        # MET is the top of the scale, UNMET the bottom, as for a binary criterion
        top = verdict is CriterionVerdict.MET
        number = criterion.scale.max if top else criterion.scale.min
        return {"scale_score": ScaleScore.of(criterion, number)}
    if not criterion.is_multi_choice or verdict is CriterionVerdict.CANNOT_ASSESS:
        return {"verdict": verdict}
    opts = criterion.options or []
    worst_case = (verdict is CriterionVerdict.UNMET) == (criterion.weight >= 0)
    if worst_case:
        return {"selection": _selection(criterion, criterion.worst_scored_option()[0])}
    sign = -1.0 if criterion.weight < 0 else 1.0
    scored = [i for i, o in enumerate(opts) if not o.na]
    best = max(scored, key=lambda i: (sign * opts[i].value, -i))
    return {"selection": _selection(criterion, best)}


def combine(
    criterion: Criterion,
    outcomes: Sequence[Outcome],
    *,
    method: str,
    ensemble: bool,
    policy: FailurePolicy,
) -> CriterionReport:
    """Build the report for ``criterion`` from its judges' outcomes.

    Raises:
        JudgeError: every judge failed and ``policy.on_error`` is ``"raise"``.
    """
    usage = TokenUsage.total([o.usage for o in outcomes])
    common: dict[str, Any] = {
        "criterion": criterion,
        "token_usage": usage,
        "completion_cost": _sum_cost(outcomes),
    }
    if ensemble:
        common["votes"] = [o.vote(criterion) for o in outcomes]
    ok = [o for o in outcomes if o.ok]
    if not ok:
        first = outcomes[0].error
        assert first is not None
        if policy.on_error == "raise":
            raise first
        if len(outcomes) > 1:
            message = f"all {len(outcomes)} judges failed: " + "; ".join(
                f"{o.judge_id}: {o.error}" for o in outcomes
            )
        else:
            message = str(first)
        return CriterionReport(
            **common, **_fallback(criterion, policy), error=message, error_category=first.category
        )
    if not ensemble:
        o = ok[0]
        return CriterionReport(
            **common,
            verdict=o.verdict,
            selection=o.selection(criterion),
            scale_score=o.scale_score(criterion),
            reason=o.reason,
            reasoning=o.reasoning,
            shuffle_order=o.shuffle_order,
            llm_invocation=o.info or None,
            confidence=o.confidence,
            probabilities=o.probabilities,
            calibration=o.calibration,
            evidence_check=o.evidence,
            escalation=o.escalation,
            features=o.features,
        )
    if criterion.scale is not None:
        return _combine_scale(criterion, ok, method, common)
    if criterion.is_multi_choice:
        decision = decide_options(criterion, [(o.option, o.weight) for o in ok], method)
    else:
        votes = [(o.verdict or CriterionVerdict.CANNOT_ASSESS, o.weight) for o in ok]
        decision = decide_binary(criterion, votes, method)
    agree = next(
        (o for o in ok if o.option == decision.option and o.verdict == decision.verdict), ok[0]
    )
    selection = _selection(criterion, decision.option) if decision.option is not None else None
    probabilities = _mean_probabilities([o.probabilities for o in ok])
    chosen = decision.verdict.value if decision.verdict is not None else None
    chosen = selection.label if selection is not None else chosen
    return CriterionReport(
        **common,
        verdict=decision.verdict,
        selection=selection,
        reason=agree.reason,
        reasoning=agree.reasoning,
        agreement=decision.agreement,
        probabilities=probabilities,
        confidence=probabilities.get(chosen or "") if probabilities is not None else None,
    )


def _combine_scale(
    criterion: Criterion, ok: Sequence[Outcome], method: str, common: dict[str, Any]
) -> CriterionReport:
    """An ensemble's report on a criterion scored on a scale: the judges' numbers combined."""
    scale = criterion.scale
    assert scale is not None
    scored = [o for o in ok if o.score is not None]
    if not scored:  # every judge that answered said CANNOT_ASSESS
        return CriterionReport(
            **common,
            verdict=CriterionVerdict.CANNOT_ASSESS,
            reason=ok[0].reason,
            agreement=1.0,
        )
    value, agreement = decide_scale([(o.score or 0.0, o.weight) for o in scored], method)
    nearest = min(scored, key=lambda o: abs((o.score or 0.0) - value))
    # each number was checked against the scale; their mean lies on it (maybe between steps)
    score = ScaleScore(score=value, value=scale.unit(value))
    return CriterionReport(
        **common,
        scale_score=score,
        reason=nearest.reason,
        reasoning=nearest.reasoning,
        agreement=agreement * len(scored) / len(ok),
    )


def _mean_probabilities(
    members: Sequence[Mapping[str, float] | None],
) -> dict[str, float] | None:
    """The members' probabilities averaged; None unless every member reported some."""
    if not members or any(m is None for m in members):
        return None
    keys = sorted({k for m in members if m is not None for k in m})
    return {k: sum((m or {}).get(k, 0.0) for m in members) / len(members) for k in keys}


_CATEGORIES: frozenset[str] = frozenset(get_args(JudgeErrorCategory))


def apply_policy(report: CriterionReport, policy: FailurePolicy) -> CriterionReport:
    """Put a report that recorded its own failure (``error`` set) through ``policy``.

    The error stays recorded; only the verdict or option changes (to the fallback).

    Raises:
        JudgeError: ``policy.on_error`` is ``"raise"``; its category is the report's
            (``unknown`` for one outside :data:`JudgeErrorCategory`, the message keeps it).
    """
    if report.error is None:
        return report
    if policy.on_error == "raise":
        given = report.error_category or "unknown"
        category: JudgeErrorCategory = "unknown"
        message = report.error
        if given in _CATEGORIES:
            category = cast(JudgeErrorCategory, given)
            message = message.removeprefix(f"{given}: ")
        raise JudgeError(message, category=category)
    if policy.fallback is None:
        return report
    decided = _fallback(report.criterion, policy)
    return report.model_copy(
        update={
            "verdict": decided.get("verdict"),
            "selection": decided.get("selection"),
            "scale_score": decided.get("scale_score"),
        }
    )
