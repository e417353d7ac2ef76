"""``calibrate``: grade labelled training items, then fit the judge's probabilities.

Only the training items are graded and only their labels are fitted on; their
ids are written into the calibration so that ``rubricjudge metrics`` can leave
them out when it reports agreement before and after calibration.

With ``examples=k`` the first grading pass also chooses up to ``k`` labelled
training answers per criterion to show the judge (see ``_examples``); the
training items are then graded again with those examples in the prompt, and the
fit uses that second pass, leaving out each answer shown as its own example.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._calibration._groups import Calibration, criterion_id
from .._calibration._train import Sample, fit_groups
from .._errors import UsageError
from ._calibration_examples import example_keys, labelled_answers, pick_examples
from ._evaluate import evaluate
from ._fingerprint import item_keys

if TYPE_CHECKING:
    from .._graders._criterion import CriterionGrader

__all__ = ["calibrate", "check_label_counts", "pick_training"]


def pick_training(
    dataset: Any,
    *,
    n_train: int | None = None,
    train_ids: Sequence[str] | None = None,
    seed: int = 0,
) -> Any:
    """The training part of ``dataset``: ``train_ids``, or ``n_train`` items stratified.

    Raises:
        UsageError: neither or both given, an id is unknown, or items lack ids.
    """
    if (n_train is None) == (train_ids is None):
        raise UsageError(
            "give the number of training items (--train N) or their ids (--train-ids FILE)"
        )
    labelled = [it for it in dataset.items if it.ground_truth is not None]
    if not labelled:
        raise UsageError("the dataset has no ground truth; calibration needs human labels")
    if train_ids is not None:
        wanted = list(dict.fromkeys(train_ids))
        keys = dict(zip(item_keys(dataset.items), dataset.items, strict=True))
        unknown = [k for k in wanted if k not in keys]
        if unknown:
            raise UsageError(
                f"{len(unknown)} training id(s) are not in the dataset, e.g. {unknown[0]!r}"
            )
        return dataset._with_items([keys[k] for k in wanted])
    assert n_train is not None
    if not 0 < n_train <= len(labelled):
        raise UsageError(
            f"--train {n_train} must be between 1 and {len(labelled)} (the labelled items)"
        )
    base = dataset._with_items(labelled)
    train, _ = base.split_train_test(n_train, stratify=True, seed=seed)
    return train


def check_label_counts(train: Any) -> None:
    """Refuse, before grading, training items whose labels could not fit any group.

    The same rules as the fit, on the labels alone (the judge's probabilities are
    not known yet, so uniform ones stand in): what is refused here would be refused
    after grading too, with the same message.

    Raises:
        UsageError: no label at all, or too few to fit a group (how many are needed).
    """
    samples = []
    for i, item in enumerate(train.items):
        truth = item.ground_truth or []
        for criterion, value in zip(train.get_item_rubric(i).leaves(), truth, strict=False):
            if value is None:
                continue
            labels = [o.label for o in criterion.options or []] or ["MET", "UNMET"]
            uniform = {label: 1.0 / len(labels) for label in labels}
            label = value.value if hasattr(value, "value") else str(value)
            samples.append(Sample(criterion, uniform, label))
    if not samples:
        raise UsageError(
            f"the {len(train.items)} training items have no labels (every ground_truth value "
            "is null); calibration needs human labels on the training items"
        )
    fit_groups(samples)


async def calibrate(
    dataset: Any,
    grader: CriterionGrader,
    *,
    judge: str,
    verdict_method: str,
    n_train: int | None = None,
    train_ids: Sequence[str] | None = None,
    seed: int = 0,
    run_dir: str | Path | None = None,
    resume: bool = False,
    concurrency: int = 16,
    dataset_source: str | None = None,
    progress: Any = None,
    examples: int = 0,
    method: str = "auto",
) -> Calibration:
    """Grade the training items with ``grader`` and fit a calibration on their labels.

    ``examples`` > 0 chooses that many labelled answers per criterion to show the
    judge, and fits on a second grading pass with them in the prompt. ``method``:
    ``platt`` fits scales and biases on the judge's probabilities; ``probe`` also
    fits a probe on its hidden state (the local judge); ``auto`` takes ``probe`` when
    the judge gave hidden states, else ``platt``.

    Raises:
        UsageError: too few labels (the message says how many are needed), or a
            training choice that does not fit the dataset.
    """
    full_keys = {id(it): k for it, k in zip(dataset.items, item_keys(dataset.items), strict=True)}
    if method not in ("auto", "platt", "probe"):
        raise UsageError(f"method {method!r} is not one of: auto, platt, probe")
    grader = copy.copy(grader)
    if hasattr(grader, "reasons"):  # a fit needs verdicts only: no reason calls
        grader.reasons = False
    if hasattr(grader, "features") and method != "platt":  # the probe reads hidden states
        grader.features = True
    train = pick_training(dataset, n_train=n_train, train_ids=train_ids, seed=seed)
    check_label_counts(train)  # before any judge call: the labels alone may be too few
    result = await evaluate(
        train,
        grader,
        run_dir=run_dir,
        resume=resume,
        concurrency=concurrency,
        dataset_source=dataset_source,
        progress=progress,
    )
    keys = [full_keys[id(it)] for it in train.items]
    answers = labelled_answers(keys, train.items, result.reports)
    if not answers:
        raise UsageError(
            f"the judge {judge!r} reported no token probabilities on the training items; "
            "calibration needs them (the local judge, or an OpenAI-compatible server that "
            "returns logprobs)"
        )
    fitted = Calibration(
        judge=judge,
        verdict_method=verdict_method,
        dataset=dataset_source,
        train_ids=keys,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        examples=pick_examples(answers, examples),
    )
    if fitted.examples:  # grade again, the examples in the prompt, and fit on that pass
        shown = copy.copy(grader)
        shown.calibration = fitted  # no groups yet: only the examples apply
        again = await evaluate(
            train,
            shown,
            run_dir=Path(run_dir) / "with-examples" if run_dir is not None else None,
            resume=resume,
            concurrency=concurrency,
            dataset_source=dataset_source,
            progress=progress,
        )
        own = example_keys(answers, fitted.examples)
        answers = [
            a
            for a in labelled_answers(keys, train.items, again.reports)
            if (a.item_key, criterion_id(a.criterion)) not in own
        ]
    samples = [Sample(a.criterion, a.probabilities, a.truth, a.features) for a in answers]
    if method == "auto":
        method = "probe" if samples and all(s.features for s in samples) else "platt"
    groups = fit_groups(samples, "probe" if method == "probe" else "platt")
    fitted = fitted.model_copy(update={"groups": groups})
    return fitted.with_shares([(s.criterion, s.probabilities, s.features) for s in samples])
