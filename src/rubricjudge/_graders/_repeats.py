"""Repeated judgments: ask each one N times, keep the most common answer, record the flips.

What changes between repeats (``variation``), chosen per judge with ``"auto"``:

* ``temperature``: repeat k asks at the repeat temperature (0.7 unless set) with
  seed ``seed + k``. Used for ``openai/`` and ``litellm/`` judges whose answers no
  calibration re-decides: their backends sample at a temperature.
* ``order``: repeat k shows the allowed answers in another order (``yes``/``no``
  becomes ``no``/``yes``; a multi-choice criterion's options are shuffled, seeded
  by the repeat; a comparison's ``1``/``2``/``tie`` are permuted); repeat 0 asks
  the usual question. Used for the ``local`` judge (its verdict is read from token
  probabilities, and its calibration re-decides it from them, so sampling would
  change nothing that counts), ``anthropic/`` judges (our Messages API calls send
  no temperature), calibrated judges, callables and ``fake``. Two answers have
  only two orders: further repeats ask those questions again.

The answer that counts is the most common one: binary verdicts by head count
(CANNOT_ASSESS abstains), options by mode, numbers on a scale by their median.
Ties go as they do in ensembles, to the verdict that scores lowest for the
criterion's weight sign (UNMET for a positive weight, MET for a penalty, the worst
option). A repeat whose call failed does not vote; when all failed, the failure
is recorded as usual (never a verdict). The flip rate is defined in
``_model._stability``.
"""

from __future__ import annotations

import dataclasses
import itertools
import statistics
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from .._aio import gather_all
from .._errors import ConfigError
from .._judges._base import JudgeRequest
from .._judges._spec import split_spec
from .._model._reports import TokenUsage
from .._model._rubric import Criterion, CriterionVerdict
from .._model._stability import Stability, Variation, flip_rate
from ._criterion_prompts import binary_answers
from ._ensemble import decide_binary, decide_options, decide_scale
from ._judging import Member, Outcome, shuffle_order
from ._options import REPEAT_VARIATIONS, RepeatVariation, check_choice

__all__ = [
    "Repeats",
    "answer_label",
    "ask_repeated",
    "merge_repeats",
    "merged_stability",
    "permutation",
    "vary_order",
]

_SAMPLING_BACKENDS = ("openai", "litellm")


@dataclass(frozen=True)
class Repeats:
    """How often each judgment is asked, and what varies between the asks."""

    n: int = 1
    temperature: float = 0.7
    variation: RepeatVariation = "auto"

    @classmethod
    def build(cls, n: int, temperature: float, variation: str) -> Repeats:
        """Check the grader arguments ``repeats``, ``repeat_temperature``, ``repeat_variation``.

        Raises:
            ConfigError: a count below 1, a temperature outside (0, 2], an unknown variation.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ConfigError(f"repeats {n!r} must be a whole number of at least 1 (--repeats)")
        if not 0.0 < temperature <= 2.0:
            raise ConfigError(
                f"repeat_temperature {temperature!r} must be above 0 and at most 2 "
                "(--repeat-temperature)"
            )
        choice = check_choice(
            "repeat_variation", variation, REPEAT_VARIATIONS, flag="--repeat-variation"
        )
        return cls(n, float(temperature), choice)

    def variation_for(self, member: Member, *, calibrated: bool = False) -> Variation:
        """What varies between the repeats asked of ``member`` (resolving ``auto``)."""
        if self.variation != "auto":
            return "temperature" if self.variation == "temperature" else "order"
        backend = split_spec(str(getattr(member.judge, "name", "")))[0]
        if backend in _SAMPLING_BACKENDS and not calibrated:
            return "temperature"
        return "order"

    def sampled(self, request: JudgeRequest, seed: int) -> JudgeRequest:
        """``request`` asked at the repeat temperature with ``seed``."""
        return dataclasses.replace(request, temperature=self.temperature, seed=seed)


def vary_order(
    criterion: Criterion,
    index: int,
    *,
    item_key: str,
    member_id: str,
    repeat: int,
    seed: int,
    offer_cannot_assess: bool,
) -> tuple[list[int] | None, list[int] | None]:
    """(option order, binary answer order) of repeat ``repeat`` > 0 in the ``order`` variation.

    ``index`` is the criterion's place among the rubric's leaves; ``seed`` the
    grader's; ``offer_cannot_assess`` whether a binary criterion has three answers.
    """
    if criterion.is_multi_choice:
        order = shuffle_order(
            criterion,
            seed=seed,
            item_key=item_key,
            index=index,
            judge_id=f"{member_id}\x00repeat {repeat}",
        )
        return order, None
    if criterion.is_scored_on_scale:
        return None, None  # a number has no list of answers to reorder
    return None, permutation(len(binary_answers(offer_cannot_assess)), repeat)


async def ask_repeated(
    criterion: Criterion,
    member: Member,
    repeats: Repeats,
    variation: Variation,
    judged: Callable[[int], Awaitable[tuple[Outcome, Member]]],
) -> tuple[Outcome, Member]:
    """Ask ``member`` about ``criterion`` ``repeats.n`` times; the most common answer counts.

    ``judged(k)`` asks repeat ``k`` and returns its outcome with the judge whose answer
    counted. Returns the merged outcome and the judge whose answer it took (the
    escalation judge when an escalated repeat gave it), which is asked for a reason if
    one is due.
    """
    asked = await gather_all([judged(k) for k in range(repeats.n)])
    outs = [o for o, _ in asked]
    merged = merge_repeats(criterion, outs, variation, repeats.temperature)
    counted = next(
        (m for o, m in asked if o.ok and answer_label(o) == answer_label(merged)), member
    )
    return merged, counted


def permutation(n: int, k: int) -> list[int] | None:
    """The order of ``n`` answers shown in repeat ``k``: None (as usual) for repeat 0.

    Repeats walk through the permutations in a fixed order, so repeat 1 of two
    answers reverses them.
    """
    if k == 0 or n < 2:
        return None
    perms = list(itertools.islice(itertools.permutations(range(n)), 720))
    chosen = list(perms[k % len(perms)])
    return None if chosen == list(range(n)) else chosen


def answer_label(out: Outcome) -> str | None:
    """An outcome's answer as text (verdict, option label or number); None if it failed."""
    if not out.ok:
        return None
    if out.option_label is not None:
        return out.option_label
    if out.score is not None:
        return f"{out.score:g}"
    return out.verdict.value if out.verdict is not None else None


def _sum_usage(outs: Sequence[Outcome]) -> TokenUsage | None:
    return TokenUsage.total([o.usage for o in outs])


def _sum_cost(outs: Sequence[Outcome]) -> float | None:
    costs = [o.cost for o in outs]
    return None if any(c is None for c in costs) else float(sum(c or 0.0 for c in costs))


def _mean_probs(outs: Sequence[Outcome]) -> dict[str, float] | None:
    probs = [o.probabilities for o in outs]
    if not probs or any(p is None for p in probs):
        return None
    keys = sorted({k for p in probs if p is not None for k in p})
    return {k: sum((p or {}).get(k, 0.0) for p in probs) / len(probs) for k in keys}


def merge_repeats(
    criterion: Criterion,
    outs: Sequence[Outcome],
    variation: Variation,
    temperature: float | None,
) -> Outcome:
    """One outcome from a judge's repeats: the most common answer, with its stability."""
    stability = Stability(
        repeats=len(outs),
        answers=[answer_label(o) for o in outs],
        flip_rate=flip_rate([answer_label(o) for o in outs]),
        variation=variation,
        temperature=temperature if variation == "temperature" else None,
    )
    ok = [o for o in outs if o.ok]
    base = ok[0] if ok else outs[0]
    merged = Outcome(
        judge_id=base.judge_id,
        weight=base.weight,
        error=None if ok else base.error,
        usage=_sum_usage(outs),
        cost=_sum_cost(outs),
        cached=all(o.cached for o in outs),
        calls=sum(o.calls for o in outs),
        stability=stability,
    )
    if not ok:
        return merged
    if criterion.is_scored_on_scale:
        numbers = [o.score for o in ok if o.score is not None]
        if numbers:
            value, _ = decide_scale([(s, 1.0) for s in numbers], "median")
            nearest = min(ok, key=lambda o: abs((o.score or 0.0) - value))
            chosen = nearest
            merged.score = value
        else:
            chosen = ok[0]
            merged.verdict = CriterionVerdict.CANNOT_ASSESS
    elif criterion.is_multi_choice:
        decision = decide_options(criterion, [(o.option, 1.0) for o in ok], "mode")
        chosen = next((o for o in ok if o.option == decision.option), ok[0])
        merged.option, merged.verdict = decision.option, decision.verdict
        if decision.option is not None:
            merged.option_label = (criterion.options or [])[decision.option].label
    else:
        votes = [(o.verdict or CriterionVerdict.CANNOT_ASSESS, 1.0) for o in ok]
        decision = decide_binary(criterion, votes, "majority")
        chosen = next((o for o in ok if o.verdict is decision.verdict), ok[0])
        merged.verdict = decision.verdict
    merged.reason, merged.reasoning = chosen.reason, chosen.reasoning
    merged.shuffle_order = chosen.shuffle_order
    merged.info = chosen.info
    merged.calibration, merged.evidence = chosen.calibration, chosen.evidence
    merged.escalation = chosen.escalation
    merged.probabilities = _mean_probs(ok)
    calibrated = [o.calibrated for o in ok]
    if all(c is not None for c in calibrated):
        keys = sorted({k for c in calibrated if c is not None for k in c})
        merged.calibrated = {
            k: sum((c or {}).get(k, 0.0) for c in calibrated) / len(calibrated) for k in keys
        }
    return merged


def merged_stability(outcomes: Sequence[Outcome]) -> Stability | None:
    """A criterion's stability from its judges' merged outcomes (ensembles: mean flip rate)."""
    records = [o.stability for o in outcomes if o.stability is not None]
    if not records:
        return None
    if len(records) == 1:
        return records[0]
    rates = [r.flip_rate for r in records if r.flip_rate is not None]
    return Stability(
        repeats=records[0].repeats,
        answers=[a for r in records for a in r.answers],
        flip_rate=statistics.fmean(rates) if rates else None,
        variation=records[0].variation,
        temperature=records[0].temperature,
    )
