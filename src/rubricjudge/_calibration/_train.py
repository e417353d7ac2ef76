"""Fit a :class:`Calibration` from labelled judgments, refusing to fit on too few.

A sample is one (criterion, the judge's probabilities, its hidden state when the
judge gave one, the human label). Binary criteria are calibrated over MET and UNMET
(CANNOT_ASSESS joins only when the humans used it often enough to learn it);
multi-choice criteria over their options.

Two stages. Every criterion feeds the pooled group of its kind, fitted on the
judge's answers: a scale and biases (``platt``), plus, with ``method="probe"``, a
probe on the judge's hidden state (binary MET/UNMET and multi-choice groups). Then
each criterion with a handful of labels of its own (``MIN_PER_CRITERION``, both
answers present) gets an adjustment fitted on what the pooled group makes of its
answers, pulled towards no change (``criterion_l2``): a few labels move its
threshold a little, many move it as far as they show. The defaults were chosen on
real labelled data (``benchmarks/judge_agreement.py``, docs/trust.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .._errors import UsageError
from .._features import PROBE_BLOCKS
from .._model._rubric import Criterion
from ._checks import ANSWERS
from ._fit import apply_fit, fit_scale_bias
from ._groups import (
    BINARY,
    POSITIONS,
    Calibration,
    CalibrationGroup,
    by_position,
    group_ids,
    position_of,
)
from ._probe import fit_option_probe, fit_probe, has_blocks, hidden_state

__all__ = [
    "CRITERION_L2",
    "MIN_PER_CRITERION",
    "MIN_PER_CRITERION_LABEL",
    "MIN_PER_LABEL",
    "MIN_POOLED",
    "PROBE_C",
    "PROBE_C_LAYERS",
    "Method",
    "Sample",
    "fit_groups",
    "labels_needed",
]

Method = Literal["platt", "probe"]

MIN_POOLED = 20
"""Labelled answers a pooled group needs at least ..."""
MIN_PER_LABEL = 5
"""... with at least this many of each label it learns (binary: MET and UNMET)."""
MIN_PER_CRITERION = 8
"""Labelled answers one criterion needs for its own adjustment on the pooled fit ..."""
MIN_PER_CRITERION_LABEL = 2
"""... with at least this many of each of two labels."""
CRITERION_L2: dict[str, float] = {"platt": 0.3, "probe": 3.0}
"""How hard a criterion's adjustment is pulled towards no change, by method.

Chosen on RiceChem's train split only (10 labelled answers of a question fitted, its
other train answers scored; ``benchmarks/judge_agreement.py`` reports on the test
split): after ``platt`` the adjustment is most of the gain (accuracy 70.2% with none,
73.9% at 0.3, 73.1% at 1.0); after ``probe`` the hidden state already tells the
criteria apart and the adjustment is best kept small (76.3% none, 76.1% at 3.0, 75.9%
at 1.0)."""
PROBE_C = 0.01
"""The regularisation of a probe on the last layer alone (scikit-learn's ``C``; same
search: 0.001 75.2%, 0.003 75.9%, 0.01 76.3%, 0.03 75.9%, 0.1 75.3%, 0.3 74.6%): what a
probe gets when the answers were judged before the judge read its middle layers."""
PROBE_C_LAYERS = 0.003
"""The regularisation of a probe on ``_features.PROBE_BLOCKS`` (three middle layers,
three times the inputs; chosen with them in ``benchmarks/probe_layers.py``)."""


@dataclass(frozen=True)
class Sample:
    """One labelled judgment: the criterion, the judge's probabilities, the human label.

    ``features`` is the judge's hidden state at the decision, when it gave one.
    """

    criterion: Criterion
    probabilities: dict[str, float]
    truth: str
    features: bytes | None = None


def _labels(criterion: Criterion, samples: Sequence[Sample]) -> list[str]:
    return _learnable(criterion, [s.truth for s in samples])


def _learnable(criterion: Criterion, truths: Sequence[str]) -> list[str]:
    if criterion.is_multi_choice:
        return [o.label for o in criterion.options or []]
    labels = list(BINARY)
    if sum(t == "CANNOT_ASSESS" for t in truths) >= MIN_PER_LABEL:
        labels.append("CANNOT_ASSESS")
    return labels


def labels_needed(gid: str, criterion: Criterion, truths: Sequence[str]) -> int:
    """How many more human labels group ``gid`` needs before :func:`fit_groups` fits it.

    ``criterion`` is any criterion of the group and ``truths`` the labels its answers
    have so far. The count is the fewest that could do it: the new labels are assumed
    to go to the answers that lack them (a binary group needs at least
    ``MIN_PER_LABEL`` MET and as many UNMET, and ``MIN_POOLED`` labels in all). That
    is what a first group needs, pooled or a criterion's own; a criterion's smaller
    adjustment (``MIN_PER_CRITERION``) builds on a pooled group once there is one.
    """
    if gid.startswith(POSITIONS):
        labels = [str(i) for i in range(1, len(criterion.options or []) + 1)]
        truths = [position_of(criterion, t) for t in truths]
    else:
        labels = _learnable(criterion, truths)
    counts = sorted((sum(t == label for t in truths) for label in labels), reverse=True)
    short = sum(max(0, MIN_PER_LABEL - c) for c in counts[:2])
    return max(MIN_POOLED - sum(counts), short)


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


def _fit_group(
    gid: str,
    samples: Sequence[Sample],
    minimum: int,
    *,
    l2: float = 1.0,
    per_label: int = MIN_PER_LABEL,
) -> CalibrationGroup | None:
    if gid.startswith(POSITIONS):
        samples = _placed(samples)
        n = len(samples[0].criterion.options or [])
        labels = [str(i) for i in range(1, n + 1)]
    else:
        labels = _labels(samples[0].criterion, samples)
    usable = [s for s in samples if s.truth in labels]
    counts = {label: sum(s.truth == label for s in usable) for label in labels}
    learnable = [label for label in labels if counts[label] >= per_label]
    if len(usable) < minimum or len(learnable) < 2:
        return None
    probs = [[s.probabilities.get(label, 0.0) for label in labels] for s in usable]
    truth = [labels.index(s.truth) for s in usable]
    fit = fit_scale_bias(labels, probs, truth, l2=l2)

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


def fit_groups(
    samples: Sequence[Sample],
    method: Method = "platt",
    *,
    probe_c: float | None = None,
    criterion_l2: float | None = None,
    probe_blocks: Sequence[str] | None = PROBE_BLOCKS,
) -> list[CalibrationGroup]:
    """Fit every group the samples support (see the module docstring).

    A probe reads ``probe_blocks`` of the judge's features (``_features``; None: the
    last layer alone) with regularisation ``probe_c`` (default :data:`PROBE_C_LAYERS`,
    or :data:`PROBE_C` for the last layer alone); answers judged before the judge read
    its middle layers get a probe on the last layer.

    Raises:
        UsageError: no group has enough labels (the message says how many are
            needed), or ``method="probe"`` on answers that carry no hidden state.
    """
    if criterion_l2 is None:
        criterion_l2 = CRITERION_L2[method]
    by_group: dict[str, list[Sample]] = {}
    for s in samples:
        for gid in group_ids(s.criterion):
            by_group.setdefault(gid, []).append(s)
    pooled: list[CalibrationGroup] = []
    for gid in sorted(g for g in by_group if g.startswith("pooled")):
        fitted = _fit_group(gid, by_group[gid], MIN_POOLED)
        if fitted is not None and method == "probe" and _probed(fitted):
            fitted = _with_probe(fitted, by_group[gid], probe_c, probe_blocks)
        if fitted is not None:
            pooled.append(fitted)
    first = Calibration(judge="", verdict_method="", groups=pooled)
    own: list[CalibrationGroup] = []
    for gid in sorted(g for g in by_group if not g.startswith("pooled")):
        group_samples = by_group[gid]
        if first.chain_for(group_samples[0].criterion):  # an adjustment on the pooled fit
            staged = [_through(first, s) for s in group_samples]
            fitted = _fit_group(
                gid,
                [s for s in staged if s is not None],
                MIN_PER_CRITERION,
                l2=criterion_l2,
                per_label=MIN_PER_CRITERION_LABEL,
            )
            if fitted is not None:
                own.append(fitted.model_copy(update={"base": "pooled"}))
        else:  # no pooled fit to build on: the criterion's own, as before
            fitted = _fit_group(gid, group_samples, MIN_POOLED)
            if fitted is not None:
                own.append(fitted)
    if not pooled and not own:
        raise UsageError(_too_few(by_group))
    return pooled + own


def _through(calibration: Calibration, s: Sample) -> Sample | None:
    """``s`` with the probabilities the pooled groups give it (None if none applies)."""
    decided = calibration.calibrate(s.criterion, s.probabilities, s.features)
    return replace(s, probabilities=decided[1]) if decided is not None else None


def _probed(group: CalibrationGroup) -> bool:
    """Whether ``method="probe"`` fits a probe on this pooled group.

    Binary MET/UNMET groups and multi-choice groups get one; a group that learns
    CANNOT_ASSESS keeps its scale and biases.
    """
    return group.labels == list(BINARY) or not set(group.labels) & ANSWERS


def _with_probe(
    group: CalibrationGroup,
    samples: Sequence[Sample],
    c: float | None,
    blocks: Sequence[str] | None = None,
) -> CalibrationGroup:
    view = _placed(samples) if group.id.startswith(POSITIONS) else list(samples)
    usable = [(s, v) for s, v in zip(samples, view, strict=True) if v.truth in group.labels]
    missing = sum(s.features is None for s, _ in usable)
    if missing:
        raise UsageError(
            f"--method probe reads the judge's hidden state, and {missing} of {len(usable)} "
            "labelled answers have none: use the local judge (or --method platt)"
        )
    features = [s.features for s, _ in usable if s.features is not None]
    if blocks and not all(has_blocks(f, blocks) for f in features):
        blocks = None  # some judged before the judge read its middle layers: the last one
    # answers judged with more blocks than the probe reads (hidden_blocks "all") mix with
    # the others: only the blocks read must agree in size
    if len({hidden_state(f, blocks).size for f in features}) != 1:
        raise UsageError(
            "the labelled answers' hidden states differ in size (judged by different "
            "models or versions of the judge): judge them again"
        )
    if c is None:
        c = PROBE_C_LAYERS if blocks else PROBE_C
    if group.labels == list(BINARY):
        probe = fit_probe(
            features,
            [
                (v.probabilities.get("MET", 0.0), v.probabilities.get("UNMET", 0.0))
                for _, v in usable
            ],
            [v.truth == "MET" for _, v in usable],
            regularisation=c,
            blocks=blocks,
        )
    elif len({v.truth for _, v in usable}) < 2:  # one label only: the scale and biases stay
        return group
    else:
        # multi-choice probes keep the last layer: on LLM-Rubric the middle layers did
        # no better (51% exact beside 52%, Spearman 0.19 beside 0.21; docs/trust.md)
        probe = fit_option_probe(
            features,
            [[v.probabilities.get(x, 0.0) for x in group.labels] for _, v in usable],
            [group.labels.index(v.truth) for _, v in usable],
            len(group.labels),
            regularisation=PROBE_C if blocks else c,
        )
    with_probe = group.model_copy(update={"probe": probe})
    cal = Calibration(judge="", verdict_method="", groups=[with_probe])
    right = 0
    for s, _ in usable:
        decided = cal.calibrate(s.criterion, s.probabilities, s.features)
        right += decided is not None and decided[0] == s.truth
    return with_probe.model_copy(update={"train_accuracy_calibrated": right / len(usable)})


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
