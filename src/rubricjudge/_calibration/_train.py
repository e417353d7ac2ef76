"""Fit a :class:`Calibration` from labelled judgments, refusing to fit on too few.

A sample is one (criterion, the judge's probabilities, the human label). Binary
criteria are calibrated over MET and UNMET (CANNOT_ASSESS joins only when the
humans used it often enough to learn it); multi-choice criteria over their
options. A criterion gets its own group when it has enough labels itself;
every criterion also feeds its pooled group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._errors import UsageError
from .._model._rubric import Criterion
from ._fit import apply_fit, fit_scale_bias
from ._model import BINARY, POSITIONS, CalibrationGroup, by_position, group_ids, position_of

__all__ = ["MIN_PER_LABEL", "MIN_POOLED", "MIN_PER_CRITERION", "Sample", "fit_groups"]

MIN_POOLED = 20
"""Labelled answers a pooled group needs at least ..."""
MIN_PER_LABEL = 5
"""... with at least this many of each label it learns (binary: MET and UNMET)."""
MIN_PER_CRITERION = 40
"""Labelled answers one criterion needs before it gets its own group."""


@dataclass(frozen=True)
class Sample:
    """One labelled judgment: the criterion, the judge's probabilities, the human label."""

    criterion: Criterion
    probabilities: dict[str, float]
    truth: str


def _labels(criterion: Criterion, samples: Sequence[Sample]) -> list[str]:
    if criterion.is_multi_choice:
        return [o.label for o in criterion.options or []]
    labels = list(BINARY)
    if sum(s.truth == "CANNOT_ASSESS" for s in samples) >= MIN_PER_LABEL:
        labels.append("CANNOT_ASSESS")
    return labels


def _describe(gid: str, criterion: Criterion) -> str:
    if gid.startswith("criterion:"):
        return " ".join(criterion.requirement.split())[:120]
    if gid == "pooled:positive":
        return "every binary criterion with a positive weight"
    if gid == "pooled:negative":
        return "every penalty (negative weight)"
    if gid.startswith(POSITIONS):
        kind, n = gid.removeprefix(POSITIONS).split(":")
        return f"{kind} multi-choice criteria with {n} options, by the options' places"
    return "multi-choice criteria with options " + ", ".join(
        o.label for o in criterion.options or []
    )


def _placed(samples: Sequence[Sample]) -> list[Sample]:
    """Samples of a positions group: probabilities and labels by option place."""
    return [
        Sample(
            s.criterion,
            by_position(s.criterion, s.probabilities),
            position_of(s.criterion, s.truth),
        )
        for s in samples
    ]


def _fit_group(gid: str, samples: Sequence[Sample], minimum: int) -> CalibrationGroup | None:
    if gid.startswith(POSITIONS):
        samples = _placed(samples)
        n = len(samples[0].criterion.options or [])
        labels = [str(i) for i in range(1, n + 1)]
    else:
        labels = _labels(samples[0].criterion, samples)
    usable = [s for s in samples if s.truth in labels]
    counts = {label: sum(s.truth == label for s in usable) for label in labels}
    learnable = [label for label in labels if counts[label] >= MIN_PER_LABEL]
    if len(usable) < minimum or len(learnable) < 2:
        return None
    probs = [[s.probabilities.get(label, 0.0) for label in labels] for s in usable]
    truth = [labels.index(s.truth) for s in usable]
    fit = fit_scale_bias(labels, probs, truth)

    def accuracy(rows: list[list[float]]) -> float:
        picks = [max(range(len(r)), key=lambda i: (r[i], -i)) for r in rows]
        right = sum(p == t for p, t in zip(picks, truth, strict=True))
        return right / len(truth)

    return CalibrationGroup(
        id=gid,
        labels=labels,
        scale=fit.scale,
        bias=list(fit.bias),
        n=len(usable),
        counts=counts,
        description=_describe(gid, samples[0].criterion),
        train_accuracy_raw=accuracy(probs),
        train_accuracy_calibrated=accuracy([apply_fit(fit, p) for p in probs]),
    )


def fit_groups(samples: Sequence[Sample]) -> list[CalibrationGroup]:
    """Fit every group the samples support.

    Raises:
        UsageError: no group has enough labels; the message says how many are needed.
    """
    by_group: dict[str, list[Sample]] = {}
    for s in samples:
        for gid in group_ids(s.criterion):
            by_group.setdefault(gid, []).append(s)
    groups = []
    for gid in sorted(by_group, key=lambda g: (not g.startswith("pooled"), g)):
        minimum = MIN_POOLED if gid.startswith("pooled") else MIN_PER_CRITERION
        fitted = _fit_group(gid, by_group[gid], minimum)
        if fitted is not None:
            groups.append(fitted)
    if not groups:
        raise UsageError(_too_few(by_group))
    return groups


def _too_few(by_group: dict[str, list[Sample]]) -> str:
    pooled = {g: s for g, s in by_group.items() if g.startswith("pooled")}
    if not pooled:
        return (
            "no labelled judgment with token probabilities to calibrate on; the judge must "
            "report probabilities (the local judge, or an OpenAI-compatible server with logprobs)"
        )
    parts = []
    for gid, samples in sorted(pooled.items()):
        labels = _labels(samples[0].criterion, samples)
        counts = ", ".join(f"{sum(s.truth == x for s in samples)} {x}" for x in labels)
        parts.append(f"{gid}: {len(samples)} labelled ({counts})")
    return (
        f"too few labels to calibrate: a group needs at least {MIN_POOLED} labelled answers "
        f"with at least {MIN_PER_LABEL} of two different labels; have " + "; ".join(parts) + ". "
        "Label more items or train on more of them (--train N)"
    )
