"""Choose which labelled training answers a judge is shown as examples, per criterion.

Each criterion gets up to ``k`` answers, the labels taking turns (the first of
each label, then the second ...) so that both kinds are shown; within a label,
the answers the judge found hardest come first: those where its probability of
the human label was lowest. A binary criterion's examples are filed under the
words the judge answers with (``yes``: MET, ``no``: UNMET), a multi-choice
criterion's under its option labels. Ties go to the shorter answer, then the item key,
so the choice is deterministic. Examples are keyed by what the criterion asks
(:func:`criterion_id`), so they apply to that criterion wherever it appears.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._calibration._groups import BINARY, criterion_id
from .._graders._inputs import to_submission
from .._model._rubric import CalibrationExample, Criterion
from .._model._scoring import leaf_reports

__all__ = ["Labelled", "example_keys", "labelled_answers", "pick_examples"]

_SAID = {"MET": "yes", "UNMET": "no"}  # how the per-criterion prompt asks binary criteria


@dataclass(frozen=True)
class Labelled:
    """One training answer about one criterion: its text, the judge's view, the label."""

    item_key: str
    criterion: Criterion
    text: str
    probabilities: dict[str, float]
    truth: str
    features: bytes | None = None


def labelled_answers(
    keys: Sequence[str], items: Sequence[Any], reports: Sequence[Any]
) -> list[Labelled]:
    """Every labelled leaf answer that carries the judge's probabilities."""
    out: list[Labelled] = []
    for key, item, report in zip(keys, items, reports, strict=True):
        if report is None or report.report is None or item.ground_truth is None:
            continue
        text = to_submission(item.submission).output  # what was graded, thinking aside
        for cr, truth in zip(leaf_reports(report.report), item.ground_truth, strict=False):
            if truth is None or cr.error is not None or cr.probabilities is None:
                continue
            label = truth.value if hasattr(truth, "value") else str(truth)
            out.append(
                Labelled(key, cr.criterion, text, dict(cr.probabilities), label, cr.features)
            )
    return out


def pick_examples(
    answers: Sequence[Labelled], k: int
) -> dict[str, dict[str, list[CalibrationExample]]]:
    """Up to ``k`` examples per criterion id, labels taking turns, hardest first."""
    if k <= 0:
        return {}
    by_criterion: dict[str, list[Labelled]] = {}
    for a in answers:
        allowed = (
            [o.label for o in a.criterion.options or []]
            if a.criterion.is_multi_choice
            else list(BINARY)
        )
        if a.truth in allowed:
            by_criterion.setdefault(criterion_id(a.criterion), []).append(a)
    chosen: dict[str, dict[str, list[CalibrationExample]]] = {}
    for cid, group in sorted(by_criterion.items()):
        queues: dict[str, list[Labelled]] = {}
        for a in sorted(
            group, key=lambda a: (a.probabilities.get(a.truth, 0.0), len(a.text), a.item_key)
        ):
            queues.setdefault(a.truth, []).append(a)
        if len(queues) < 2:  # one label only: examples would teach the judge a bias
            continue
        picked: dict[str, list[CalibrationExample]] = {}
        n = 0
        depth = max(len(q) for q in queues.values())
        for level in range(depth):
            for label in sorted(queues):
                if n < k and level < len(queues[label]):
                    picked.setdefault(_SAID.get(label, label), []).append(
                        CalibrationExample(output=queues[label][level].text)
                    )
                    n += 1
        chosen[cid] = picked
    return chosen


def example_keys(
    answers: Sequence[Labelled], examples: dict[str, dict[str, list[CalibrationExample]]]
) -> set[tuple[str, str]]:
    """(item key, criterion id) of the answers shown as examples: left out of the fit."""
    shown = {
        (cid, ex.output)
        for cid, levels in examples.items()
        for exs in levels.values()
        for ex in exs
    }
    return {
        (a.item_key, criterion_id(a.criterion))
        for a in answers
        if (criterion_id(a.criterion), a.text) in shown
    }
